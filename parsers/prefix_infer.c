/*
 * prefix_infer.c — guess a stderr log's log_line_prefix from its first lines
 * (contract: ls_prefix_infer() in include/ls_prefix.h).
 *
 * Candidates come from two places:
 *   1. well-known presets (PostgreSQL's default, Debian's, RDS's, pgbadger's);
 *   2. shape inference: the text before each line's "SEVERITY:  " is one
 *      printed prefix; it is cut into tokens recognised by their shape
 *      (timestamps, epoch, "[pid]", session id, vxid, SQLSTATE, user@db,
 *      host(port), key=value pairs, ...) and the literal text between them
 *      is kept. Each candidate is also tried with %q before each of its
 *      escapes, because non-session processes stop printing there.
 * Every candidate is compiled with ls_prefix_compile_lazy() and scored on all
 * lines that carry a severity: most lines matched first, then fewest bytes
 * captured by free-text escapes (a lazy %d can swallow "db/app 6b10.13be 3"
 * and still match; the tighter candidate is the truer one), then most
 * escapes, then presets before inferred candidates. The winner must match
 * MIN_SHARE of the lines, or every line when there are fewer than
 * MIN_LINES of them. A candidate whose only captures are free text (it
 * would match any first word) does not count.
 *
 * Number tokens after the pid default to %l then %x; the winner's %l is
 * checked against what %l prints and turned into %x when it does not
 * behave like one: %l rises with every line of a process (by one in a
 * whole log, by more in an excerpt or a sampled log such as pgBadger's
 * "light" fixture), while an xid repeats on a transaction's lines and is 0
 * outside one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_buf.h"
#include "ls_common.h"
#include "ls_i18n.h"
#include "ls_prefix.h"

#define MIN_SHARE 0.95
#define MIN_LINES 5
#define MAX_SPEC 256     /* longest inferred spec */
#define MAX_INSTANCE 512 /* longest printed prefix looked at */
#define MAX_CANDIDATES 64
#define MAX_SHAPES 12 /* distinct inferred specs tried (most frequent first) */
/* Share of a process's line-to-line steps in which %l must rise (a pid
 * reused, or two logs of one server run together, make a few fall). */
#define LINE_RISING_MIN 0.9
#define OTHER_READINGS 8 /* other readings of a line looked at (possible_reading) */

static const char *const presets[] = {
    "%m [%p] ",
    "%m [%p] %q%u@%d ",
    "%t:%r:%u@%d:[%p]:",
    "%t [%p]: user=%u,db=%d,app=%a,client=%h ",
    "%t [%p]: [%l-1] user=%u,db=%d,app=%a,client=%h ",
    "%t [%p]: [%l-1] ",
    "%m [%p] %q%u@%d/%a ",
    "%t [%p] ",
};

static const char *const severities[] = {
    "LOG",     "ERROR",    "FATAL",     "PANIC",  "WARNING", "NOTICE", "INFO",
    "DEBUG1",  "DEBUG2",   "DEBUG3",    "DEBUG4", "DEBUG5",  "DETAIL", "HINT",
    "QUERY",   "CONTEXT",  "LOCATION",  "STATEMENT",
};

/* Free-text escapes: their captured bytes measure how loose a candidate is. */
static const int free_fields[] = {LS_PF_APP, LS_PF_USER, LS_PF_DB,  LS_PF_REMOTE,
                                  LS_PF_HOST, LS_PF_BTYPE, LS_PF_TAG};

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int is_alnum(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/*
 * Offset of the first "SEVERITY:  " (or "SEVERITY:" at the end) in the line
 * that is not preceded by a letter or digit, or -1.
 */
static long severity_offset(const char *s, size_t len)
{
    const ls_i18n_sev *v;
    size_t k, i;

    if (len > MAX_INSTANCE + 16)
        len = MAX_INSTANCE + 16;
    for (k = 0; k < len; k++) {
        if ((k > 0 && is_alnum(s[k - 1])) || (k > 0 && (unsigned char)s[k - 1] >= 0x80))
            continue;
        /* A translated severity word (lc_messages other than C). */
        if ((s[k] < 'A' || s[k] > 'Z') && (unsigned char)s[k] < 0x80)
            continue;
        if ((v = ls_i18n_severity_at(s + k, len - k)) != NULL) {
            size_t n = (size_t)v->len;
            if (k + n + 1 == len || (k + n + 1 < len && s[k + n + 1] == ' '))
                return (long)k;
        }
        if (s[k] < 'A' || s[k] > 'Z')
            continue;
        for (i = 0; i < sizeof(severities) / sizeof(severities[0]); i++) {
            size_t n = strlen(severities[i]);
            if (k + n < len && memcmp(s + k, severities[i], n) == 0 && s[k + n] == ':' &&
                (k + n + 1 == len || (s[k + n + 1] == ' ')))
                return (long)k;
        }
    }
    return -1;
}

/* ---- shape inference: one printed prefix → one spec ---- */

typedef struct shaper {
    ls_buf *out;
    int used[128]; /* escape letters already emitted */
    int times;     /* timestamps seen */
    char last;     /* last escape letter emitted (literal text in between allowed) */
} shaper;

static void emit_escape(shaper *sh, const char *pad, char letter)
{
    ls_buf_printf(sh->out, "%%%s%c", pad ? pad : "", letter);
    sh->used[(unsigned char)letter] = 1;
    sh->last = letter;
}

static void emit_literal(shaper *sh, char c)
{
    if (c == '%')
        ls_buf_adds(sh->out, "%%");
    else
        ls_buf_addc(sh->out, c);
}

static size_t span_digits(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && is_digit(s[i]))
        i++;
    return i;
}

/* "YYYY-MM-DD HH:MM:SS[.mmm] ZONE": its length, *ms = 1 with milliseconds. */
static size_t span_datetime(const char *s, size_t n, int *ms)
{
    static const char shape[] = "dddd-dd-dd dd:dd:dd";
    size_t i, z;

    if (n < sizeof(shape) - 1)
        return 0;
    for (i = 0; i < sizeof(shape) - 1; i++)
        if (shape[i] == 'd' ? !is_digit(s[i]) : s[i] != shape[i])
            return 0;
    *ms = 0;
    if (i + 4 <= n && s[i] == '.' && span_digits(s + i + 1, 3) == 3) {
        *ms = 1;
        i += 4;
    }
    if (i >= n || s[i] != ' ')
        return 0;
    i++;
    z = i;
    if (i < n && (s[i] == '+' || s[i] == '-')) {
        i++;
        while (i < n && (is_digit(s[i]) || s[i] == ':') && i - z < 9)
            i++;
    } else {
        while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z')) &&
               i - z < 6)
            i++;
    }
    return i > z + 1 ? i : 0;
}

/* "host(port)": its length, or 0. */
static size_t span_remote(const char *s, size_t n)
{
    size_t i = 0, d;

    while (i < n && (is_alnum(s[i]) || s[i] == '.' || s[i] == ':' || s[i] == '-'))
        i++;
    if (i == 0 || i >= n || s[i] != '(')
        return 0;
    d = span_digits(s + i + 1, n - i - 1);
    if (d == 0 || i + 1 + d >= n || s[i + 1 + d] != ')')
        return 0;
    return i + d + 2;
}

/* "6b100521.13be": lowercase hex, a dot, hex; the first part 6+ digits. */
static size_t span_session(const char *s, size_t n)
{
    size_t i = 0, j;
    int letters = 0;

    while (i < n && (is_digit(s[i]) || (s[i] >= 'a' && s[i] <= 'f'))) {
        letters |= !is_digit(s[i]);
        i++;
    }
    if (i < 6 || i >= n || s[i] != '.')
        return 0;
    j = i + 1;
    while (j < n && (is_digit(s[j]) || (s[j] >= 'a' && s[j] <= 'f'))) {
        letters |= !is_digit(s[j]);
        j++;
    }
    if (j == i + 1 || (j < n && is_alnum(s[j])))
        return 0;
    /* all-digit "1796213437.693" is an epoch, not a session id */
    return letters ? j : 0;
}

/* A SQLSTATE: five of [0-9A-Z], not a plain number (a leading 0, or a letter). */
static int is_sqlstate(const char *s, size_t n)
{
    size_t i;
    int letter = 0;

    if (n != 5)
        return 0;
    for (i = 0; i < 5; i++) {
        if (!is_digit(s[i]) && !(s[i] >= 'A' && s[i] <= 'Z'))
            return 0;
        letter |= !is_digit(s[i]);
    }
    return letter || s[0] == '0';
}

/* Characters that end a free-text value when shaping. */
static int is_sep(char c)
{
    return c == ' ' || c == '[' || c == ']' || c == '(' || c == ')' || c == '@' || c == ',' ||
           c == ':' || c == '/' || c == '|' || c == '=' || c == ';' || c == '<' || c == '>' ||
           c == '"' || c == '\'';
}

static size_t span_word(const char *s, size_t n)
{
    size_t i = 0;

    if (n >= 9 && memcmp(s, "[unknown]", 9) == 0)
        return 9;
    while (i < n && !is_sep(s[i]))
        i++;
    return i;
}

static int word_is(const char *s, size_t n, const char *w)
{
    return strlen(w) == n && memcmp(s, w, n) == 0;
}

/* What a "key=" in the prefix names: the escape letter of its value, or 0. */
static char key_letter(const char *s, size_t n)
{
    static const struct {
        const char *key;
        char letter;
    } keys[] = {
        {"user", 'u'},    {"usr", 'u'},     {"db", 'd'},      {"database", 'd'},
        {"app", 'a'},     {"application", 'a'}, {"appname", 'a'}, {"client", 'h'},
        {"host", 'h'},    {"remote", 'r'},  {"pid", 'p'},     {"session", 'c'},
        {"sess", 'c'},    {"xid", 'x'},     {"vxid", 'v'},    {"line", 'l'},
        {"tag", 'i'},     {"cmd", 'i'},     {"sqlstate", 'e'}, {"state", 'e'},
        {"backend", 'b'}, {"type", 'b'},    {"query_id", 'Q'}, {"queryid", 'Q'},
        {"sql_error_code", 'e'},
    };
    /* Stems for keys people spell their own way ("appli=", "username=") */
    static const struct {
        const char *stem;
        char letter;
    } stems[] = {
        {"app", 'a'}, {"user", 'u'}, {"db", 'd'}, {"datab", 'd'}, {"client", 'h'},
        {"query", 'Q'},
    };
    size_t i;

    for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (word_is(s, n, keys[i].key))
            return keys[i].letter;
    for (i = 0; i < sizeof(stems) / sizeof(stems[0]); i++)
        if (n > strlen(stems[i].stem) && strncmp(s, stems[i].stem, strlen(stems[i].stem)) == 0)
            return stems[i].letter;
    return 0;
}

/* The letter for a free-text word at this point of the prefix. */
static char free_letter(shaper *sh, const char *s, size_t n, size_t i, size_t w)
{
    static const char *const tags[] = {"SELECT", "INSERT", "UPDATE", "DELETE", "BEGIN",
                                       "COMMIT", "ROLLBACK", "CHECKPOINT", "VACUUM", "SET",
                                       "SHOW", "COPY", "CREATE", "ALTER", "DROP", "idle",
                                       "authentication", "startup", "LOCK", "TRUNCATE"};
    size_t k;

    if (i + w < n && s[i + w] == '@' && !sh->used['u'])
        return 'u';
    if (sh->last == 'u' && i > 0 && s[i - 1] == '@')
        return 'd';
    for (k = 0; k < sizeof(tags) / sizeof(tags[0]); k++)
        if (word_is(s + i, w, tags[k]) && !sh->used['i'])
            return 'i';
    if (!sh->used['a'])
        return 'a';
    if (!sh->used['h'])
        return 'h';
    return 0;
}

/* Emit a number token's escape: pid first, then %l, %x, %Q. */
static char number_letter(shaper *sh, int negative)
{
    if (negative)
        return 'Q';
    if (!sh->used['p'])
        return 'p';
    if (!sh->used['l'])
        return 'l';
    if (!sh->used['x'])
        return 'x';
    return 'Q';
}

/* Shape one printed prefix s[0..n) into a spec (appended to out). */
static void shape_prefix(ls_buf *out, const char *s, size_t n)
{
    shaper sh;
    size_t i = 0;

    memset(&sh, 0, sizeof(sh));
    sh.out = out;
    while (i < n) {
        size_t w, d, eq;
        int ms;
        char c = s[i], letter;

        if (is_digit(c) && (w = span_datetime(s + i, n - i, &ms)) > 0) {
            sh.times++;
            if (sh.times == 1)
                emit_escape(&sh, NULL, ms ? 'm' : 't');
            else
                emit_escape(&sh, NULL, ms && !sh.used['m'] ? 'm' : 's');
            i += w;
            continue;
        }
        if ((w = span_remote(s + i, n - i)) > 0 ||
            (n - i >= 7 && memcmp(s + i, "[local]", 7) == 0 && (w = 7) > 0)) {
            emit_escape(&sh, NULL, sh.used['r'] ? 'h' : 'r');
            i += w;
            continue;
        }
        if ((w = span_session(s + i, n - i)) > 0) {
            emit_escape(&sh, NULL, 'c');
            i += w;
            continue;
        }
        d = span_digits(s + i, n - i);
        if (d == 10 && i + 14 <= n && s[i + 10] == '.' && span_digits(s + i + 11, 3) == 3 &&
            (i + 14 == n || !is_digit(s[i + 14]))) {
            emit_escape(&sh, NULL, 'n');
            i += 14;
            continue;
        }
        if (d > 0 && i + d < n && s[i + d] == '/' && span_digits(s + i + d + 1, n - i - d - 1)) {
            emit_escape(&sh, NULL, 'v');
            i += d + 1 + span_digits(s + i + d + 1, n - i - d - 1);
            continue;
        }
        if (d > 0 && i + d + 1 < n && s[i + d] == '.' && is_digit(s[i + d + 1])) {
            /* a dotted number such as an IP address */
            w = d;
            while (i + w < n && (is_digit(s[i + w]) || s[i + w] == '.'))
                w++;
            emit_escape(&sh, NULL, 'h');
            i += w;
            continue;
        }
        if ((d > 0 || c == '-') && !(i > 0 && is_alnum(s[i - 1]))) {
            int neg = c == '-' && span_digits(s + i + 1, n - i - 1) > 0;
            size_t len = neg ? 1 + span_digits(s + i + 1, n - i - 1) : d;
            size_t sp = 0;
            char pad[16] = "";

            if (len > 0 && (i + len == n || !is_alnum(s[i + len]))) {
                if (is_sqlstate(s + i, len)) {
                    emit_escape(&sh, NULL, 'e');
                    i += len;
                    continue;
                }
                /*
                 * "[N-M]" before any pid: pgbadger's "[%l-1]" when M is 1,
                 * else "[%p-%l]". A "[%p-%l]" line of a process's first
                 * line prints "[pid-1]" too: both shapes become candidates
                 * and the scores decide.
                 */
                if (!neg && !sh.used['p'] && i > 0 && s[i - 1] == '[' && i + len + 1 < n &&
                    s[i + len] == '-') {
                    size_t m = span_digits(s + i + len + 1, n - i - len - 1);

                    if (m > 0 && i + len + 1 + m < n && s[i + len + 1 + m] == ']') {
                        if (m == 1 && s[i + len + 1] == '1') {
                            emit_escape(&sh, NULL, 'l');
                            emit_literal(&sh, '-');
                            emit_literal(&sh, '1');
                        } else {
                            emit_escape(&sh, NULL, 'p');
                            emit_literal(&sh, '-');
                            emit_escape(&sh, NULL, 'l');
                        }
                        i += len + 1 + m;
                        continue;
                    }
                }
                letter = number_letter(&sh, neg);
                if (letter != 'p' && i > 0 && s[i - 1] == '[' && n - i - len >= 3 &&
                    memcmp(s + i + len, "-1]", 3) == 0 && !sh.used['l'])
                    letter = 'l'; /* pgbadger's "[%l-1]" */
                while (i + len + sp < n && s[i + len + sp] == ' ')
                    sp++;
                /* "%-8p ": the value, padding spaces, then one literal space */
                if (sp >= 2 && i + len + sp < n) {
                    snprintf(pad, sizeof(pad), "-%zu", len + sp - 1);
                    emit_escape(&sh, pad, letter);
                    i += len + sp - 1;
                } else {
                    emit_escape(&sh, NULL, letter);
                    i += len;
                }
                if (letter == 'l' && n - i >= 2 && s[i] == '-' && s[i + 1] == '1') {
                    emit_literal(&sh, '-');
                    emit_literal(&sh, '1');
                    i += 2;
                }
                continue;
            }
        }
        if (!is_sep(c) || (n - i >= 9 && memcmp(s + i, "[unknown]", 9) == 0)) {
            w = span_word(s + i, n - i);
            /* "key=value", or "key = value" (Heroku's "sql_error_code = %e") */
            eq = i + w < n && s[i + w] == '='                                   ? 1
                 : i + w + 3 < n && memcmp(s + i + w, " = ", 3) == 0 ? 3
                                                                        : 0;
            if (eq && (letter = key_letter(s + i, w)) != 0) {
                size_t v = i + w + eq, k = i;
                for (; i < v; i++)
                    emit_literal(&sh, s[i]);
                /*
                 * The value runs to the next ',' or ' ' (it may be empty),
                 * or to the bracket that closes one opened before the key
                 * ("[queryid=%Q]").
                 */
                while (i < n && s[i] != ',' && s[i] != ' ' &&
                       !(s[i] == ']' && k > 0 && s[k - 1] == '[') &&
                       !(s[i] == ')' && k > 0 && s[k - 1] == '('))
                    i++;
                if (letter == 'h' && span_remote(s + v, i - v) == i - v && i > v)
                    letter = 'r';
                emit_escape(&sh, NULL, letter);
                continue;
            }
            if (is_sqlstate(s + i, w)) {
                emit_escape(&sh, NULL, 'e');
                i += w;
                continue;
            }
            if (word_is(s + i, w, "client") && i + 15 <= n &&
                memcmp(s + i, "client backend", 14) == 0) {
                emit_escape(&sh, NULL, 'b');
                i += 14;
                continue;
            }
            letter = free_letter(&sh, s, n, i, w);
            if (letter) {
                emit_escape(&sh, NULL, letter);
                i += w;
                continue;
            }
            for (; w > 0; w--)
                emit_literal(&sh, s[i++]);
            continue;
        }
        emit_literal(&sh, c);
        i++;
    }
}

/* ---- scoring ---- */

typedef struct candidate {
    char spec[MAX_SPEC];
    int preset;
    int matched;
    long loose;  /* bytes captured by free-text escapes over matched lines */
    int escapes; /* fields that captured something on some line */
} candidate;

typedef struct infer_ctx {
    const char *const *lines;
    const size_t *lens;
    int *sev; /* indexes of the lines that carry a severity */
    int nsev;
    candidate *cand;
    int ncand;
    int headed; /* time and pid come from an outer header */
} infer_ctx;

static int candidate_add(infer_ctx *ic, const char *spec, int preset)
{
    int i;

    if (strlen(spec) >= MAX_SPEC || ic->ncand >= MAX_CANDIDATES)
        return 0;
    for (i = 0; i < ic->ncand; i++)
        if (strcmp(ic->cand[i].spec, spec) == 0)
            return 0;
    memset(&ic->cand[ic->ncand], 0, sizeof(ic->cand[0]));
    memcpy(ic->cand[ic->ncand].spec, spec, strlen(spec) + 1);
    ic->cand[ic->ncand].preset = preset;
    ic->ncand++;
    return 0;
}

/*
 * Match every severity line with c's spec. Returns 0 or LS_ENOMEM. A
 * candidate that has missed more lines than `bound` (the best one's
 * matches) leaves room for stops there: it can no longer win.
 */
/*
 * A line the candidate matched as *m in a way PostgreSQL does not print
 * (a client's values before %q, the part after it missing: see
 * ls_prefix_session_possible): 1 with *m set to another reading of it that
 * it prints, 0 when there is none (the line does not count as matched),
 * negative on error. A forged application_name ("x [123] a@b ERROR:  y")
 * otherwise makes a candidate that reads it into the prefix after a %q
 * match every line.
 */
static int possible_reading(ls_prefix *p, const char *line, size_t len, ls_prefix_match *m)
{
    ls_prefix_match alt[OTHER_READINGS];
    int n = ls_prefix_other_readings(p, line, len, m, alt, OTHER_READINGS), i;

    for (i = 0; i < n; i++)
        if (ls_prefix_session_possible(p, &alt[i])) {
            *m = alt[i];
            return 1;
        }
    return n < 0 ? n : 0;
}

static int candidate_score(infer_ctx *ic, candidate *c, int bound)
{
    ls_prefix *p = NULL;
    char err[256];
    int i, k, rc, seen[LS_PF__COUNT] = {0};

    rc = ls_prefix_compile_lazy(&p, c->spec, err, sizeof(err));
    if (rc == LS_ENOMEM)
        return rc;
    c->matched = -1;
    if (rc)
        return 0;
    c->matched = 0;
    for (i = 0; i < ic->nsev; i++) {
        ls_prefix_match m;
        int j = ic->sev[i];

        rc = ls_prefix_match_line(p, ic->lines[j], ic->lens[j], &m);
        if (rc == 1 && !ls_prefix_session_possible(p, &m))
            rc = possible_reading(p, ic->lines[j], ic->lens[j], &m);
        if (rc < 0) {
            ls_prefix_free(p);
            return rc;
        }
        if (rc == 0) {
            if (bound >= 0 && i + 1 - c->matched > ic->nsev - bound)
                break;
            continue;
        }
        c->matched++;
        for (k = 0; k < LS_PF_SEVERITY; k++)
            if (m.f[k].ptr && !seen[k]) {
                seen[k] = 1;
                c->escapes++;
            }
        for (k = 0; k < (int)(sizeof(free_fields) / sizeof(free_fields[0])); k++)
            c->loose += (long)m.f[free_fields[k]].len;
    }
    ls_prefix_free(p);
    /*
     * Free text alone matches anything ("%a " eats any first word): such a
     * candidate must capture at least one field with a shape of its own.
     */
    if (!ic->headed && c->loose > 0 && !seen[LS_PF_PID] && !seen[LS_PF_TIME] && !seen[LS_PF_TIME_MS] &&
        !seen[LS_PF_EPOCH] && !seen[LS_PF_SESSION] && !seen[LS_PF_LINE] &&
        !seen[LS_PF_SESS_START])
        c->matched = 0;
    return 0;
}

static int candidate_better(const candidate *a, const candidate *b)
{
    if (a->matched != b->matched)
        return a->matched > b->matched;
    if (a->loose != b->loose)
        return a->loose < b->loose;
    if (a->escapes != b->escapes)
        return a->escapes > b->escapes;
    return a->preset > b->preset;
}

/*
 * Add spec and, for each escape after the first and each literal word after
 * a space, spec with %q before it.
 */
static void candidate_add_q_variants(infer_ctx *ic, const char *spec)
{
    char buf[MAX_SPEC];
    size_t n = strlen(spec), i;
    int seen = 0;

    candidate_add(ic, spec, 0);
    if (strstr(spec, "%q") || n + 2 >= MAX_SPEC)
        return;
    for (i = 0; i < n; i++) {
        /* %q may also stand before literal text: "%q[queryid=%Q]" */
        if (spec[i] != '%') {
            if (seen == 0 || i == 0 || spec[i - 1] != ' ' || spec[i] == ' ')
                continue;
        } else if (spec[i + 1] == '%') {
            i++;
            continue;
        } else if (seen++ == 0)
            continue;
        memcpy(buf, spec, i);
        memcpy(buf + i, "%q", 2);
        memcpy(buf + i + 2, spec + i, n - i + 1);
        candidate_add(ic, buf, 0);
    }
}

/* Fraction of steps between lines of the same pid in which field f rises. */
static double per_pid_rising_share(infer_ctx *ic, ls_prefix *p, int f)
{
    enum { NPID = 64 };
    long pid[NPID], last[NPID];
    int npid = 0, steps = 0, rises = 0, i, k;

    for (i = 0; i < ic->nsev; i++) {
        ls_prefix_match m;
        int j = ic->sev[i];
        long pv = 0, v = 0;
        size_t b;

        if (ls_prefix_match_line(p, ic->lines[j], ic->lens[j], &m) != 1 || !m.f[f].ptr ||
            !m.f[LS_PF_PID].ptr)
            continue;
        for (b = 0; b < m.f[LS_PF_PID].len && b < 12; b++)
            pv = pv * 10 + (m.f[LS_PF_PID].ptr[b] - '0');
        for (b = 0; b < m.f[f].len && b < 12; b++)
            v = v * 10 + (m.f[f].ptr[b] - '0');
        for (k = 0; k < npid && pid[k] != pv; k++)
            ;
        if (k == npid) {
            if (npid == NPID)
                continue;
            pid[npid] = pv;
            last[npid++] = v;
            continue;
        }
        steps++;
        rises += v > last[k];
        last[k] = v;
    }
    return steps ? (double)rises / steps : 1.0;
}

/*
 * %l and %x both print digits; swap them in `spec` (in place) when the
 * values say the guess was the wrong way round: %l rises on every line of
 * a process, an xid does not.
 */
static void fix_line_vs_xid(infer_ctx *ic, char *spec)
{
    ls_prefix *p = NULL;
    char err[256], *l = strstr(spec, "%l"), *x = strstr(spec, "%x");
    double ls, xs;

    if (!l || ls_prefix_compile_lazy(&p, spec, err, sizeof(err)) != 0)
        return;
    ls = per_pid_rising_share(ic, p, LS_PF_LINE);
    xs = x ? per_pid_rising_share(ic, p, LS_PF_XID) : 0.0;
    ls_prefix_free(p);
    if (ls >= LINE_RISING_MIN)
        return;
    l[1] = 'x';
    if (x && xs >= LINE_RISING_MIN)
        x[1] = 'l';
}

/* Write `s` (n bytes) into out, control and non-ASCII bytes as \xNN, cut at max. */
static void escape_sample(ls_buf *out, const char *s, size_t n, size_t max)
{
    size_t i;

    for (i = 0; i < n && i < max; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch >= 0x20 && ch < 0x7f && ch != '\'')
            ls_buf_addc(out, (char)ch);
        else
            ls_buf_printf(out, "\\x%02x", ch);
    }
    if (n > max)
        ls_buf_adds(out, "...");
}

void ls_prefix_sample_line(char *out, size_t outlen, const char *line, size_t len)
{
    ls_buf b = LS_BUF_INIT(1024);

    if (!outlen)
        return;
    escape_sample(&b, line, len, 120);
    snprintf(out, outlen, "%s", ls_buf_failed(&b) ? "" : ls_buf_str(&b));
    ls_buf_free(&b);
}

static int infer(char *out, size_t outlen, const char *const *lines, const size_t *lens, int n,
                 char *why, size_t whylen, int headed)
{
    infer_ctx ic;
    char(*shapes)[MAX_SPEC] = NULL;
    int *shape_count = NULL, nshapes = 0, npresets, i, k, best = -1, rc = LS_EFORMAT;
    ls_buf b = LS_BUF_INIT(MAX_SPEC);

    if (out && outlen)
        out[0] = '\0';
    if (why && whylen)
        why[0] = '\0';
    memset(&ic, 0, sizeof(ic));
    ic.lines = lines;
    ic.lens = lens;
    ic.headed = headed;
    ic.sev = ls_calloc(n > 0 ? (size_t)n : 1, sizeof(int));
    ic.cand = ls_calloc(MAX_CANDIDATES, sizeof(candidate));
    shapes = ls_calloc(n > 0 ? (size_t)n : 1, sizeof(*shapes));
    shape_count = ls_calloc(n > 0 ? (size_t)n : 1, sizeof(int));
    if (!ic.sev || !ic.cand || !shapes || !shape_count) {
        rc = LS_ENOMEM;
        goto out;
    }

    /* Lines with a severity, and the distinct shapes of their prefixes. */
    for (i = 0; i < n; i++) {
        long off;

        if (lens[i] == 0 || lines[i][0] == '\t')
            continue;
        off = severity_offset(lines[i], lens[i]);
        if (off < 0 || off > MAX_INSTANCE)
            continue;
        ic.sev[ic.nsev++] = i;
        ls_buf_reset(&b);
        shape_prefix(&b, lines[i], (size_t)off);
        if (ls_buf_failed(&b) || b.len >= MAX_SPEC)
            continue;
        for (k = 0; k < nshapes && strcmp(shapes[k], ls_buf_str(&b)) != 0; k++)
            ;
        if (k == nshapes)
            memcpy(shapes[nshapes++], ls_buf_str(&b), b.len + 1);
        shape_count[k]++;
    }
    if (ic.nsev == 0) {
        if (why && whylen)
            snprintf(why, whylen, "none of the first %d lines has a severity such as 'LOG:  '",
                     n);
        goto out;
    }

    for (i = 0; i < (int)(sizeof(presets) / sizeof(presets[0])); i++)
        candidate_add(&ic, presets[i], 1);
    npresets = ic.ncand;
    /* The most frequent shapes, each with its %q variants. */
    for (k = 0; k < MAX_SHAPES && k < nshapes; k++) {
        int top = -1;
        for (i = 0; i < nshapes; i++)
            if (shape_count[i] > 0 && (top < 0 || shape_count[i] > shape_count[top]))
                top = i;
        if (top < 0)
            break;
        shape_count[top] = 0;
        candidate_add_q_variants(&ic, shapes[top]);
    }

    /*
     * The shapes first: the most frequent one usually fits, and its score
     * lets most other candidates stop after a few lines.
     */
    for (k = 0; k < ic.ncand; k++) {
        i = (k + npresets) % ic.ncand;
        if ((rc = candidate_score(&ic, &ic.cand[i], best < 0 ? -1 : ic.cand[best].matched)) != 0)
            goto out;
        if (best < 0 || candidate_better(&ic.cand[i], &ic.cand[best]))
            best = i;
    }
    rc = LS_EFORMAT;
    if (best < 0 || ic.cand[best].matched <= 0) {
        if (why && whylen)
            snprintf(why, whylen, "no candidate prefix matches any of the %d lines with a "
                     "severity", ic.nsev);
        goto out;
    }
    if (ic.nsev < MIN_LINES ? ic.cand[best].matched < ic.nsev
                            : ic.cand[best].matched < MIN_SHARE * ic.nsev) {
        if (why && whylen)
            snprintf(why, whylen,
                     "the best guess '%s' matches only %d of %d lines with a severity",
                     ic.cand[best].spec, ic.cand[best].matched, ic.nsev);
        goto out;
    }
    fix_line_vs_xid(&ic, ic.cand[best].spec);
    if (strlen(ic.cand[best].spec) >= outlen) {
        if (why && whylen)
            snprintf(why, whylen, "inferred prefix longer than %zu bytes", outlen);
        goto out;
    }
    memcpy(out, ic.cand[best].spec, strlen(ic.cand[best].spec) + 1);
    if (why && whylen)
        snprintf(why, whylen, "matches %d of %d lines with a severity", ic.cand[best].matched,
                 ic.nsev);
    rc = 0;
out:
    ls_buf_free(&b);
    free(ic.sev);
    free(ic.cand);
    free(shapes);
    free(shape_count);
    return rc;
}

int ls_prefix_infer(char *out, size_t outlen, const char *const *lines, const size_t *lens,
                    int n, char *why, size_t whylen)
{
    return infer(out, outlen, lines, lens, n, why, whylen, 0);
}

int ls_prefix_infer_headed(char *out, size_t outlen, const char *const *lines,
                           const size_t *lens, int n, char *why, size_t whylen)
{
    return infer(out, outlen, lines, lens, n, why, whylen, 1);
}
