/*
 * test_i18n_table.c — every translated message of every catalog revision
 * lockspan's table was built from (tools/catalogs.txt) is read back as its
 * English form.
 *
 * Usage: test_i18n_table VECTORS
 * VECTORS is written by tests/e2e/check_i18n_table.py from the committed
 * catalog texts (tools/catalog_texts.json), formatting each msgstr the way
 * the server does, one case a line, fields separated by tabs (a backslash,
 * tab or newline within a field written \\, \t, \n):
 *   M lang catalog line english...   a message: the line must be written
 *                                    back as one of the English texts (more
 *                                    than one where the catalog gives two
 *                                    msgids one translation)
 *   S lang catalog line primary english...
 *                                    a severity: the line starts with the
 *                                    translated word as elog.c writes it
 *                                    ("FEHLER:  " or "DETALLE:  "); a
 *                                    primary (1) word is also given alone,
 *                                    as csvlog and jsonlog carry it, and
 *                                    every line is read by the stderr
 *                                    parser's prefix matcher after a
 *                                    "%p " prefix (its fast walk and PCRE2):
 *                                    the English word, the message at "x"
 *                                    (tr writes "AYRINTI:x", no space)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_i18n.h"
#include "ls_prefix.h"
#include "ls_test.h"

#define MAX_FIELDS 8
#define OUT_CAP 8192
#define MAX_REPORTED 40 /* failures printed in full */
#define PID_PREFIX "%p "   /* the prefix of the stderr lines the cases become */
#define PID_TEXT "4242 "   /* what it writes */

typedef struct vec_case {
    char *f[MAX_FIELDS];
    int nf;
} vec_case;

static int reported;

/* Undo the writer's escapes in place: \\ \t \n. */
static void unescape(char *s)
{
    char *o = s;

    for (; *s; s++) {
        if (*s == '\\' && s[1]) {
            s++;
            *o++ = *s == 't' ? '\t' : *s == 'n' ? '\n' : *s;
        } else
            *o++ = *s;
    }
    *o = '\0';
}

/* Split line (modified in place) at tabs into c->f, each unescaped; the
 * newline is cut. */
static void split(char *line, vec_case *c)
{
    char *p = line, *tab;
    int i;

    line[strcspn(line, "\n")] = '\0';
    c->nf = 0;
    while (c->nf < MAX_FIELDS) {
        c->f[c->nf++] = p;
        tab = strchr(p, '\t');
        if (!tab)
            break;
        *tab = '\0';
        p = tab + 1;
    }
    for (i = 0; i < c->nf; i++)
        unescape(c->f[i]);
}

static void fail(const vec_case *c, const char *got)
{
    if (reported++ < MAX_REPORTED)
        fprintf(stderr, "%s %s: \"%s\" read as \"%s\", want \"%s\"\n", c->f[1], c->f[2], c->f[3],
                got ? got : "(no match)", c->f[c->nf - 1]);
}

static void check_message(const vec_case *c)
{
    char out[OUT_CAP];
    int lang = ls_i18n_lang_index(c->f[1]), near, rc, i, ok = 0;

    CHECK(lang >= 0);
    rc = ls_i18n_translate(c->f[3], strlen(c->f[3]), lang, out, sizeof(out), &near);
    for (i = 4; rc >= 0 && i < c->nf; i++)
        ok |= strcmp(out, c->f[i]) == 0;
    if (ok)
        ls_t_passed++;
    else {
        ls_t_failed++;
        fail(c, rc >= 0 ? out : NULL);
    }
}

/* Is v's English one of the case's, from field `from` on? */
static int sev_one_of(const ls_i18n_sev *v, const vec_case *c, int from)
{
    int i;

    for (i = from; v && i < c->nf; i++)
        if (strcmp(v->english, c->f[i]) == 0)
            return 1;
    return 0;
}

/*
 * The severity case's line after PID_TEXT, as the stderr parser reads it
 * with prefix p: a match whose severity is one of the case's English words
 * and whose message is the line's last byte (the "x" the case ends in).
 */
static void check_severity_line(const vec_case *c, ls_prefix *p)
{
    char buf[OUT_CAP];
    ls_prefix_match m;
    int n = snprintf(buf, sizeof(buf), "%s%s", PID_TEXT, c->f[3]);
    const char *en = NULL;
    int ok = 0, i;

    if (n > 0 && (size_t)n < sizeof(buf) && ls_prefix_match_line(p, buf, (size_t)n, &m) == 1) {
        en = m.f[LS_PF_SEVERITY].ptr;
        for (i = 5; en && i < c->nf; i++)
            ok |= m.f[LS_PF_SEVERITY].len == strlen(c->f[i]) &&
                  memcmp(en, c->f[i], m.f[LS_PF_SEVERITY].len) == 0;
        ok &= m.msg_off == (size_t)n - 1;
    }
    if (ok)
        ls_t_passed++;
    else {
        ls_t_failed++;
        fail(c, en ? "a severity, or a message elsewhere than at the line's x" : NULL);
    }
}

static void check_severity(const vec_case *c)
{
    const char *line = c->f[3];
    const ls_i18n_sev *v = ls_i18n_severity_at(line, strlen(line));
    int ok = sev_one_of(v, c, 5);

    if (ok && strcmp(c->f[4], "1") == 0) {
        /* csvlog/jsonlog: the word alone */
        v = ls_i18n_severity_word(line, (size_t)v->len);
        ok = sev_one_of(v, c, 5);
    }
    if (ok)
        ls_t_passed++;
    else {
        ls_t_failed++;
        fail(c, v ? v->english : NULL);
    }
}

int main(int argc, char **argv)
{
    FILE *f;
    char *line = NULL;
    size_t cap = 0;
    int messages = 0, severities = 0;
    vec_case c;
    ls_prefix *fast = NULL, *pcre = NULL;
    char err[256];

    if (argc != 2 || !(f = fopen(argv[1], "r"))) {
        fprintf(stderr, "usage: test_i18n_table VECTORS (a readable file)\n");
        return 2;
    }
    if (ls_prefix_compile(&fast, PID_PREFIX, err, sizeof(err)) != 0 ||
        ls_prefix_compile(&pcre, PID_PREFIX, err, sizeof(err)) != 0) {
        fprintf(stderr, "test_i18n_table: prefix %s: %s\n", PID_PREFIX, err);
        return 2;
    }
    ls_prefix_pcre_only(pcre);
    while (getline(&line, &cap, f) >= 0) {
        split(line, &c);
        if (c.f[0][0] == 'M' && c.nf >= 5) {
            check_message(&c);
            messages++;
        } else if (c.f[0][0] == 'S' && c.nf >= 6) {
            check_severity(&c);
            check_severity_line(&c, fast);
            check_severity_line(&c, pcre);
            severities++;
        } else {
            fprintf(stderr, "%s: a line of %d fields: %s\n", argv[1], c.nf, c.f[0]);
            ls_t_failed++;
        }
    }
    free(line);
    ls_prefix_free(fast);
    ls_prefix_free(pcre);
    if (ferror(f) || fclose(f) != 0) {
        perror(argv[1]);
        return 2;
    }
    /* an empty vector file proves nothing */
    CHECK(messages > 0 && severities > 0);
    fprintf(stderr, "%d messages, %d severity words checked\n", messages, severities);
    printf("%d passed, %d failed\n", ls_t_passed, ls_t_failed);
    return ls_t_failed ? 1 : 0;
}
