/*
 * sqlcomment.c — sqlcommenter (and marginalia) tags from SQL text.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "ls_sqlcomment.h"

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* URL-decode src[0..n) into dst (NUL-terminated, truncated to cap). */
static void url_decode(char *dst, size_t cap, const char *src, size_t n)
{
    size_t i, k = 0;
    for (i = 0; i < n && k + 1 < cap; i++) {
        if (src[i] == '%' && i + 2 < n + 0 && hexval(src[i + 1]) >= 0 &&
            hexval(src[i + 2]) >= 0) {
            dst[k++] = (char)(hexval(src[i + 1]) * 16 + hexval(src[i + 2]));
            i += 2;
        } else if (src[i] == '\\' && i + 1 < n && src[i + 1] == '\'') {
            dst[k++] = '\'';
            i++;
        } else {
            dst[k++] = src[i];
        }
    }
    dst[k] = '\0';
}

static int is_hex(const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (hexval(s[i]) < 0)
            return 0;
    return 1;
}

/* "00-<trace>-<span>-<flags>" → ids, lower case. */
static void traceparent(ls_sqltags *t, const char *v)
{
    size_t i;
    if (strlen(v) < 55 || v[2] != '-' || v[35] != '-' || v[52] != '-' || !is_hex(v + 3, 32) ||
        !is_hex(v + 36, 16))
        return;
    for (i = 0; i < 32; i++)
        t->trace_id[i] = (char)tolower((unsigned char)v[3 + i]);
    t->trace_id[32] = '\0';
    for (i = 0; i < 16; i++)
        t->span_id[i] = (char)tolower((unsigned char)v[36 + i]);
    t->span_id[16] = '\0';
}

int ls_sqlcomment_parse(const char *sql, ls_sqltags *out)
{
    const char *open = NULL, *close, *p;
    memset(out, 0, sizeof(*out));
    if (!sql)
        return 0;
    /* The last block comment of the statement. */
    for (p = strstr(sql, "/*"); p; p = strstr(p + 2, "/*"))
        open = p;
    if (!open || !(close = strstr(open + 2, "*/")))
        return 0;
    p = open + 2;
    while (p < close && out->n < LS_SQLCOMMENT_MAX_TAGS) {
        const char *k0, *k1, *v0, *v1;
        char sep;
        while (p < close && (isspace((unsigned char)*p) || *p == ','))
            p++;
        k0 = p;
        while (p < close && *p != '=' && *p != ':' && *p != ',')
            p++;
        if (p >= close || *p == ',')
            break;
        k1 = p;
        sep = *p++;
        if (sep == '=' && *p == '\'') {
            /* sqlcommenter: key='value', ' inside escaped as \' */
            v0 = ++p;
            while (p < close && !(*p == '\'' && p[-1] != '\\'))
                p++;
            v1 = p;
            if (p < close)
                p++;
        } else {
            /* marginalia: key:value up to the next comma */
            v0 = p;
            while (p < close && *p != ',')
                p++;
            v1 = p;
        }
        while (k1 > k0 && isspace((unsigned char)k1[-1]))
            k1--;
        if (k1 == k0)
            continue;
        url_decode(out->tag[out->n].key, sizeof(out->tag[0].key), k0, (size_t)(k1 - k0));
        url_decode(out->tag[out->n].value, sizeof(out->tag[0].value), v0, (size_t)(v1 - v0));
        if (strcmp(out->tag[out->n].key, "traceparent") == 0)
            traceparent(out, out->tag[out->n].value);
        out->n++;
    }
    return out->n;
}

const char *ls_sqltags_get(const ls_sqltags *t, const char *key)
{
    int i;
    for (i = 0; i < t->n; i++)
        if (strcmp(t->tag[i].key, key) == 0)
            return t->tag[i].value;
    return NULL;
}
