/*
 * i18n.c — match translated PostgreSQL messages and write them in English
 * (see ls_i18n.h). The tables are generated (messages_i18n.c); this file
 * only walks them.
 *
 * A pattern is matched whole against one line. Captures of text are tried
 * shortest first, with backtracking; every pattern is anchored by literal
 * bytes between its captures, and lines handed here are message heads,
 * DETAIL or CONTEXT lines, so the backtracking stays short.
 */
#include <pthread.h>
#include <string.h>

#include "ls_i18n.h"

#define MAX_ARGS 16

typedef struct slice {
    const char *p;
    size_t n;
} slice;

static int is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

static const char *digits(const char *s, const char *e)
{
    while (s < e && is_digit(*s))
        s++;
    return s;
}

/* Does pattern p match all of [s,e)? Captures go to caps[argument]. */
static int match(const char *p, const char *s, const char *e, slice *caps)
{
    while (*p) {
        const char *t = s, *d;
        char type;
        int arg;

        if (*p != '\x1f') {
            if (s == e || *s != *p)
                return 0;
            p++;
            s++;
            continue;
        }
        type = p[1];
        arg = (p[2] - '0') & (MAX_ARGS - 1);
        p += 3;
        if (type == 's') {
            if (!*p) {
                caps[arg].p = s;
                caps[arg].n = (size_t)(e - s);
                return 1;
            }
            for (t = s; t <= e; t++) {
                if (*p != '\x1f' && (t == e || *t != *p))
                    continue;
                if (match(p, t, e, caps)) {
                    caps[arg].p = s;
                    caps[arg].n = (size_t)(t - s);
                    return 1;
                }
            }
            return 0;
        }
        if (type == 'd' && t < e && *t == '-')
            t++;
        d = t;
        t = digits(t, e);
        if (t == d)
            return 0;
        if (type == 'f' && t < e && *t == '.' && t + 1 < e && is_digit(t[1]))
            t = digits(t + 1, e);
        caps[arg].p = s;
        caps[arg].n = (size_t)(t - s);
        s = t;
    }
    return s == e;
}

/* The English template with the captures put back; -2 if out is too small. */
static int render(const char *en, const slice *caps, char *out, size_t cap)
{
    size_t used = 0;

    for (; *en; en++) {
        const char *src = en;
        size_t n = 1;
        if (*en == '\x1f') {
            const slice *c = &caps[(en[1] - '0') & (MAX_ARGS - 1)];
            src = c->p;
            n = c->n;
            en++;
        }
        if (used + n >= cap)
            return -2;
        if (n)
            memcpy(out + used, src, n);
        used += n;
    }
    out[used] = '\0';
    return 0;
}

/* Bytes of the pattern before its first capture. */
static size_t lead_len(const char *p)
{
    const char *x = strchr(p, '\x1f');
    return x ? (size_t)(x - p) : strlen(p);
}

/*
 * After a pattern's leading literal matched: does the line go on like it
 * (a digit for a number, the next literal somewhere for text)? Catalogs
 * share leading words ("データベース" begins many messages), so the lead
 * alone would call unrelated messages ours.
 */
static int begins_like(const char *p, const char *s, const char *e)
{
    const char *next, *x;
    size_t n;

    if (p[0] != '\x1f')
        return 0;
    if (p[1] != 's')
        return is_digit(*s);
    next = p + 3;
    x = strchr(next, '\x1f');
    n = x ? (size_t)(x - next) : strlen(next);
    if (n < 2)
        return 0;
    for (; s + n <= e; s++)
        if (memcmp(s, next, n) == 0)
            return 1;
    return 0;
}

static int try_lang(int lang, const char *s, size_t n, char *out, size_t cap, int *near)
{
    int i, end = ls_i18n_langs[lang].first + ls_i18n_langs[lang].count;

    for (i = ls_i18n_langs[lang].first; i < end; i++) {
        const ls_i18n_msg *m = &ls_i18n_msgs[i];
        slice caps[MAX_ARGS];
        size_t lead;

        if (m->pattern[0] != '\x1f' && (n == 0 || m->pattern[0] != s[0]))
            continue;
        memset(caps, 0, sizeof(caps));
        if (match(m->pattern, s, s + n, caps))
            return render(m->english, caps, out, cap) ? -2 : lang;
        lead = lead_len(m->pattern);
        if (lead >= 8 && lead < n && memcmp(m->pattern, s, lead) == 0 &&
            begins_like(m->pattern + lead, s + lead, s + n))
            *near = 1;
    }
    return -1;
}

int ls_i18n_translate(const char *s, size_t n, int first, char *out, size_t cap, int *near)
{
    int lang, rc;

    *near = 0;
    if (first >= 0 && (rc = try_lang(first, s, n, out, cap, near)) != -1)
        return rc;
    for (lang = 0; lang < ls_i18n_nlangs; lang++)
        if (lang != first && (rc = try_lang(lang, s, n, out, cap, near)) != -1)
            return rc;
    return -1;
}

const ls_i18n_sev *ls_i18n_severity_at(const char *s, size_t len)
{
    int i;

    if (len == 0)
        return NULL;
    for (i = 0; i < ls_i18n_nsevs; i++) {
        const ls_i18n_sev *v = &ls_i18n_sevs[i];
        if ((size_t)v->len < len && v->word[0] == s[0] && memcmp(s, v->word, (size_t)v->len) == 0 &&
            s[v->len] == ':')
            return v;
    }
    return NULL;
}

/* The translated words by first byte (counting sort into sev_order;
 * sev_byte[c] .. sev_byte[c + 1] are those starting with c): each line asks
 * once (prefix.c, classify.c) whether its severity is a translation, and
 * most lines are English. */
static short sev_order[LS_I18N_MAX_SEVS];
static short sev_byte[257];
static pthread_once_t sev_index_once = PTHREAD_ONCE_INIT;

static void sev_index_init(void)
{
    int i, c, n = 0;
    for (c = 0; c < 256; c++) {
        sev_byte[c] = (short)n;
        for (i = 0; i < ls_i18n_nsevs && n < (int)(sizeof(sev_order) / sizeof(sev_order[0])); i++)
            if (ls_i18n_sevs[i].len > 0 && (unsigned char)ls_i18n_sevs[i].word[0] == c)
                sev_order[n++] = (short)i;
    }
    sev_byte[256] = (short)n;
}

const ls_i18n_sev *ls_i18n_severity_word(const char *s, size_t len)
{
    int i, c;

    if (len == 0)
        return NULL;
    pthread_once(&sev_index_once, sev_index_init);
    c = (unsigned char)s[0];
    for (i = sev_byte[c]; i < sev_byte[c + 1]; i++) {
        const ls_i18n_sev *v = &ls_i18n_sevs[sev_order[i]];
        if ((size_t)v->len == len && memcmp(s, v->word, len) == 0)
            return v;
    }
    return NULL;
}

int ls_i18n_lang_index(const char *code)
{
    int i;
    size_t n;

    for (i = 0; i < ls_i18n_nlangs; i++) {
        n = strlen(ls_i18n_langs[i].code);
        if (strncmp(code, ls_i18n_langs[i].code, n) == 0 &&
            (code[n] == '\0' || code[n] == '.' || code[n] == '@' ||
             (code[n] == '_' && !strchr(ls_i18n_langs[i].code, '_'))))
            return i;
    }
    return -1;
}
