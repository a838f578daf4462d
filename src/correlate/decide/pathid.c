/*
 * pathid.c — what names a code path when nothing in the application does,
 * and the readable shape of a transaction (pathid.h).
 */
#include "decide/pathid.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ls_common.h"
#include "ls_sqlshape.h"

/* A number constant as text, in a string made at compile time. */
#define PCT_TEXT_(n) #n
#define PCT_TEXT(n) PCT_TEXT_(n)

ls_path_identity ls_path_identity_of(const ls_path_names *n, ls_path_reason *why)
{
    ls_path_reason r;
    int64_t unnamed = n->holds - n->named;

    if (n->holds <= 0 || unnamed <= 0)
        r = LS_PATH_NO_HOLDS;
    else if (n->named > 0)
        r = LS_PATH_NAMED;
    else if (n->groups <= 1)
        r = n->top_blank ? LS_PATH_NO_NAME : LS_PATH_ONE_NAME;
    else if (n->top * 100 >= (int64_t)LS_PATH_DOMINANT_PCT * unnamed)
        r = LS_PATH_DOMINANT;
    else
        r = LS_PATH_PARTITION;
    if (why)
        *why = r;
    return r == LS_PATH_NO_NAME || r == LS_PATH_ONE_NAME || r == LS_PATH_DOMINANT
               ? LS_PATH_BY_SHAPE
               : LS_PATH_BY_APPLICATION;
}

const char *ls_path_reason_text(ls_path_reason r)
{
    switch (r) {
    case LS_PATH_NO_HOLDS: return "no hold of a hot row lacks a name from spans or tags";
    case LS_PATH_NAMED:
        return "spans or sqlcommenter tags name code paths; the other transactions keep "
               "their application_name";
    case LS_PATH_PARTITION: return "application_name tells the transactions apart";
    case LS_PATH_NO_NAME:
        return "no span, sqlcommenter tag or application_name names the transactions";
    case LS_PATH_ONE_NAME:
        return "no span or sqlcommenter tag names the transactions, and one "
               "application_name covers every hold";
    case LS_PATH_DOMINANT:
        return "no span or sqlcommenter tag names the transactions, and one "
               "application_name covers " PCT_TEXT(LS_PATH_DOMINANT_PCT) " % or more of the holds";
    }
    return "";
}

/* Past blanks and comments (-- to the end of the line, block comments). */
static const char *skip_blank(const char *p)
{
    for (;;) {
        while (*p && (isspace((unsigned char)*p) || *p == '('))
            p++;
        if (p[0] == '-' && p[1] == '-') {
            while (*p && *p != '\n')
                p++;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            p = e ? e + 2 : p + strlen(p);
        } else
            return p;
    }
}

/* Does `sql` hold the words "for update" (any case, any blanks between)? */
static int for_update(const char *sql)
{
    const char *p;
    for (p = sql; *p; p++) {
        const char *w = p + 3;
        if ((p > sql && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) ||
            strncasecmp(p, "for", 3) != 0 || !isspace((unsigned char)*w))
            continue;
        while (isspace((unsigned char)*w))
            w++;
        if (strncasecmp(w, "update", 6) == 0)
            return 1;
    }
    return 0;
}

int ls_txshape_step(const char *sql, char *out, size_t n)
{
    char verb[32], rel[64];
    const char *p = skip_blank(sql ? sql : "");
    ls_sql_kind kind;
    size_t i = 0;

    out[0] = '\0';
    while (i + 1 < sizeof(verb) && (isalpha((unsigned char)p[i]) || p[i] == '_')) {
        verb[i] = (char)toupper((unsigned char)p[i]);
        i++;
    }
    verb[i] = '\0';
    if (!i)
        return 0;
    kind = ls_sql_kind_of(sql);
    if (kind == LS_SQL_BEGIN || kind == LS_SQL_COMMIT || kind == LS_SQL_ROLLBACK)
        return 0;
    if (kind == LS_SQL_WRITE && strcmp(verb, "SELECT") == 0)
        snprintf(verb, sizeof(verb), "%s", for_update(sql) ? "SELECT FOR UPDATE"
                                                           : "SELECT FOR SHARE");
    if (ls_sql_table_of(sql, rel, sizeof(rel)) || ls_sql_relation(sql, rel, sizeof(rel)))
        snprintf(out, n, "%s %s", verb, rel);
    else
        snprintf(out, n, "%s", verb);
    return 1;
}

/* Does `p` begin with the word `w` (any case, not a longer word)? */
static int word_at(const char *p, const char *w)
{
    size_t k = strlen(w);
    return strncasecmp(p, w, k) == 0 && !isalnum((unsigned char)p[k]) && p[k] != '_';
}

int ls_txshape_row_is_step(ls_txrow row)
{
    return row != LS_TXROW_PARSE;
}

int ls_txshape_executes(const char *sql)
{
    return word_at(skip_blank(sql ? sql : ""), "execute");
}

int ls_txshape_step_executed(const char *sql, const char *prepared, char *out, size_t n)
{
    char name[LS_TXSHAPE_STEP_MAX];
    const char *p;
    size_t i = 0;

    if (!ls_txshape_executes(sql))
        return ls_txshape_step(sql, out, n);
    if (prepared && ls_txshape_step(prepared, out, n))
        return 1;
    /* No body known: "EXECUTE name", the name as written (a quoted one
     * keeps its quotes). */
    p = skip_blank(sql) + strlen("execute");
    while (isspace((unsigned char)*p))
        p++;
    while (i + 1 < sizeof(name) && *p && *p != '(' && !isspace((unsigned char)*p) && *p != ';') {
        name[i++] = *p;
        p++;
    }
    name[i] = '\0';
    if (i)
        snprintf(out, n, "EXECUTE %s", name);
    else
        snprintf(out, n, "EXECUTE");
    return 1;
}

void ls_txshape_init(ls_txshape *t)
{
    t->nrun = 0;
    t->dropped = 0;
}

void ls_txshape_add(ls_txshape *t, const char *step)
{
    if (t->nrun && strcmp(t->run[t->nrun - 1].step, step) == 0) {
        t->run[t->nrun - 1].n++;
        return;
    }
    if (t->nrun == LS_TXSHAPE_STEPS) {
        t->dropped++;
        return;
    }
    snprintf(t->run[t->nrun].step, sizeof(t->run[0].step), "%s", step);
    t->run[t->nrun++].n = 1;
}

/* Run i as the label writes it, in out (n bytes). */
static void run_text(const ls_txshape *t, int i, char *out, size_t n)
{
    if (t->run[i].n > 1)
        snprintf(out, n, "%s x%d", t->run[i].step, t->run[i].n);
    else
        snprintf(out, n, "%s", t->run[i].step);
}

/* FNV-1a, 32 bits: a short, stable tag of a long label. */
static uint32_t fnv32(const char *s, uint32_t h)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

#define FNV32_BASIS 2166136261u

size_t ls_txshape_label(const ls_txshape *t, char *out, size_t n)
{
    char one[LS_TXSHAPE_STEP_MAX + 16];
    uint32_t h = FNV32_BASIS;
    size_t len = 0, total = 0;
    int i, fit = 0;

    out[0] = '\0';
    if (t->nrun == 0) {
        snprintf(out, n, "(no statement)");
        return strlen(out);
    }
    /* The whole label's length and hash, and how many runs fit. */
    for (i = 0; i < t->nrun; i++) {
        run_text(t, i, one, sizeof(one));
        if (i)
            h = fnv32("; ", h);
        h = fnv32(one, h);
        total += (i ? 2 : 0) + strlen(one);
        if (total <= LS_TXSHAPE_LABEL_MAX)
            fit = i + 1;
    }
    if (t->dropped) {
        char more[32];
        snprintf(more, sizeof(more), "; +%" PRId64, t->dropped);
        h = fnv32(more, h);
        total = LS_TXSHAPE_LABEL_MAX + 1;
    }
    if (total > LS_TXSHAPE_LABEL_MAX && fit == t->nrun)
        fit--; /* room for the tail */
    for (i = 0; i < (total > LS_TXSHAPE_LABEL_MAX ? fit : t->nrun) && len + 1 < n; i++) {
        run_text(t, i, one, sizeof(one));
        len += (size_t)snprintf(out + len, n - len, "%s%s", i ? "; " : "", one);
        if (len >= n)
            len = n - 1;
    }
    if (total > LS_TXSHAPE_LABEL_MAX && len + 1 < n) {
        int64_t more = (int64_t)(t->nrun - fit) + t->dropped;
        len += (size_t)snprintf(out + len, n - len, "%s... (+%" PRId64 " more) #%08" PRIx32,
                                fit ? "; " : "", more, h);
        if (len >= n)
            len = n - 1;
    }
    return len;
}
