/*
 * prefix.c — compile a log_line_prefix into one anchored PCRE2 pattern and
 * match stderr line heads with it (contract: include/ls_prefix.h).
 *
 * The pattern mirrors log_line_prefix() in PostgreSQL's utils/error/elog.c
 * (15-17): every escape becomes the sub-pattern of what that escape prints,
 * literal text is escaped byte by byte, and the severity word, the optional
 * verbose-mode SQLSTATE and the spaces before the message are appended.
 *
 * Choices worth knowing:
 * - Free-text values (%a %u %d %r %h %b %i) are lazy and bounded to
 *   FREE_MAX bytes, so the literal text after them anchors them and a line
 *   that does not match fails in bounded time. A value that contains the
 *   literal that follows it (user "a@b" in "%u@%d") is split at the first
 *   occurrence: the log itself is ambiguous there.
 * - Padded escapes (%-10u, %5p) accept any number of spaces on both sides of
 *   the value; the spaces are outside the capture group, so slices come out
 *   trimmed.
 * - Everything after the first %q is one optional group: postmaster,
 *   checkpointer, parallel workers and other processes without a client
 *   connection stop printing the prefix there.
 * - Verbose mode prints "LOG:  00000: msg" (two spaces after the severity,
 *   then the SQLSTATE, a colon and one space). The SQLSTATE is only looked
 *   for after primary severities (LOG, ERROR, ...), never after DETAIL,
 *   CONTEXT and the other secondary lines, which do not carry one.
 * - Between the severity and the message one or two spaces are accepted
 *   (PostgreSQL writes two), or the end of the line for an empty message;
 *   further spaces belong to the message.
 * - An unknown escape prints nothing in PostgreSQL, so it matches nothing
 *   here; ls_prefix_compile() still succeeds but leaves a note in errbuf.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "ls_buf.h"
#include "ls_common.h"
#include "ls_i18n.h"
#include "ls_prefix.h"

/* Upper bound for one free-text value; host names reach 1025 bytes. */
#define FREE_MAX "1100"
#define FREE_RE ".{0," FREE_MAX "}?"
#define FREE_MAX_BYTES 1100u /* FREE_MAX as a number, for the fast matcher */

/* A date and time as pg_strftime("%Y-%m-%d %H:%M:%S") prints it. */
#define DATETIME_RE "[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}"

/*
 * The zone as %Z prints it: a tzdb abbreviation (UTC, CEST, ChST) or a
 * numeric one (+03, -0330, +05:30). Narrower than [A-Za-z0-9:+-]+ on
 * purpose: that class would swallow the ':' separators of prefixes such as
 * RDS's "%t:%r:%u@%d:[%p]:".
 */
#define ZONE_RE "(?:[A-Za-z]{1,6}|[+-][0-9]{2}(?::?[0-9]{2}){0,2})"

/* A line that needs more backtracking than this is treated as not matching. */
#define MATCH_LIMIT 1000000u

/* Caps the compiled pattern; real prefixes produce well under 4 KB. */
#define PATTERN_MAX ((size_t)1 << 20)

typedef struct escape_def {
    char letter;
    int field;      /* ls_prefix_field */
    const char *re; /* what PostgreSQL prints, without a capture group */
} escape_def;

static const escape_def escapes[] = {
    {'a', LS_PF_APP, FREE_RE},
    {'u', LS_PF_USER, FREE_RE},
    {'d', LS_PF_DB, FREE_RE},
    {'r', LS_PF_REMOTE, FREE_RE},
    {'h', LS_PF_HOST, FREE_RE},
    {'b', LS_PF_BTYPE, FREE_RE},
    {'p', LS_PF_PID, "[0-9]+"},
    {'P', LS_PF_LEADER, "[0-9]*"},
    {'t', LS_PF_TIME, DATETIME_RE " " ZONE_RE},
    {'m', LS_PF_TIME_MS, DATETIME_RE "\\.[0-9]{3} " ZONE_RE},
    {'n', LS_PF_EPOCH, "[0-9]+\\.[0-9]{3}"},
    {'i', LS_PF_TAG, FREE_RE},
    {'e', LS_PF_SQLSTATE, "[0-9A-Z]{5}"},
    {'c', LS_PF_SESSION, "[0-9a-f]+\\.[0-9a-f]+"},
    {'l', LS_PF_LINE, "[0-9]+"},
    {'s', LS_PF_SESS_START, DATETIME_RE " " ZONE_RE},
    {'v', LS_PF_VXID, "(?:-?[0-9]+/[0-9]+)?"},
    {'x', LS_PF_XID, "[0-9]+"},
    {'Q', LS_PF_QUERYID, "-?[0-9]+"},
};

/*
 * The severity (error_severity() in elog.c): the English words, then the
 * translated ones of ls_i18n.h (lc_messages other than C), which a match
 * hands on in English. Branch reset keeps the severity in one group number
 * across both alternatives.
 */
static void add_severity_re(ls_buf *b)
{
    int prim, i;

    ls_buf_adds(b, "(?|(LOG|ERROR|FATAL|PANIC|WARNING|NOTICE|INFO|DEBUG[1-5]?");
    for (prim = 1; prim >= 0; prim--) {
        for (i = 0; i < ls_i18n_nsevs; i++)
            if (ls_i18n_sevs[i].primary == prim)
                ls_buf_printf(b, "|\\Q%s\\E", ls_i18n_sevs[i].word);
        if (prim)
            ls_buf_adds(b, "):(?:  ?(?:([0-9A-Z]{5}): )?|$)"
                           "|(DETAIL|HINT|QUERY|CONTEXT|LOCATION|STATEMENT");
    }
    ls_buf_adds(b, "):(?:  ?|$))");
}

/* A translated severity word in a match becomes its English word. */
static void severity_english(ls_prefix_match *out)
{
    ls_slice *f = &out->f[LS_PF_SEVERITY];
    const ls_i18n_sev *v;

    if (f->ptr && f->len && (f->ptr[0] < 'A' || f->ptr[0] > 'Z' || f->len > 9 ||
                             memchr(f->ptr, ' ', f->len)) &&
        (v = ls_i18n_severity_word(f->ptr, f->len)) != NULL) {
        f->ptr = v->english;
        f->len = strlen(v->english);
    }
}

/*
 * The fast matcher: the prefix as a list of steps (literal bytes or one
 * escape) walked left to right with memchr and byte tests, taking at each
 * step the choice PCRE2 tries first (greedy digits, the first occurrence
 * of the literal after a free-text value, the %q group present). When it
 * reaches the message it has found the match PCRE2 finds first, so the
 * slices are the same; on any failure the line goes to PCRE2, which may
 * backtrack into another choice or reject the line. Prefixes it cannot
 * walk (padding, a free-text value not followed by literal text) use
 * PCRE2 for every line.
 */
typedef struct fast_op {
    char letter;      /* escape letter, 0 = literal, 'q' = start of the optional group */
    int field;        /* ls_prefix_field to fill, -1 = a repeated escape (not captured) */
    const char *lit;  /* literal bytes (into spec copy), for letter 0 */
    size_t litlen;
} fast_op;

struct ls_prefix {
    char *spec; /* owned copy of the log_line_prefix */
    pcre2_code *code;
    pcre2_match_data *md; /* allocated once, reused by every match */
    pcre2_match_context *mctx;
    pcre2_jit_stack *jit_stack; /* NULL when JIT is unavailable */
    int jit;                    /* 1 when pcre2_jit_compile() succeeded */
    int group[LS_PF__COUNT];    /* capture group of each field, 0 = none */
    fast_op *fast;              /* the prefix as steps for fast_match, NULL = PCRE2 only */
    char *fastlit;              /* the literal bytes the steps point into */
    int nfast;
};

static const escape_def *escape_find(char letter)
{
    size_t i;

    for (i = 0; i < sizeof(escapes) / sizeof(escapes[0]); i++)
        if (escapes[i].letter == letter)
            return &escapes[i];
    return NULL;
}

/* Append one literal prefix byte so that PCRE2 matches exactly that byte. */
static void pattern_add_literal(ls_buf *b, unsigned char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        ls_buf_addc(b, (char)c);
    else if (c >= 0x20 && c < 0x7f)
        ls_buf_printf(b, "\\%c", c); /* backslash + punctuation is always literal */
    else
        ls_buf_printf(b, "\\x{%02x}", c);
}

/*
 * Build the pattern for `spec` into b, recording capture groups in p->group.
 * Unknown escapes are listed in `unknown` (for the note in errbuf).
 */
static void pattern_build(ls_prefix *p, ls_buf *b, const char *spec, ls_buf *unknown)
{
    const char *s = spec;
    int ngroups = 0;
    int in_q = 0;

    while (*s) {
        const escape_def *e;
        int padded = 0;

        if (*s != '%') {
            pattern_add_literal(b, (unsigned char)*s++);
            continue;
        }
        s++;
        if (*s == '\0')
            break; /* a trailing '%' prints nothing */
        if (*s == '-' || (*s >= '0' && *s <= '9')) {
            /* process_log_prefix_padding(): sign, digits, then the letter */
            if (*s == '-')
                s++;
            while (*s >= '0' && *s <= '9') {
                if (*s != '0')
                    padded = 1;
                s++;
            }
            if (*s == '\0')
                break; /* PostgreSQL stops printing the prefix here */
        }
        if (*s == '%') {
            pattern_add_literal(b, '%');
        } else if (*s == 'q') {
            if (!in_q) {
                ls_buf_adds(b, "(?:");
                in_q = 1;
            }
        } else if ((e = escape_find(*s)) != NULL) {
            int capture = p->group[e->field] == 0;

            if (padded)
                ls_buf_adds(b, " *");
            if (capture) {
                p->group[e->field] = ++ngroups;
                ls_buf_printf(b, "(%s)", e->re);
            } else {
                ls_buf_printf(b, "(?:%s)", e->re);
            }
            if (padded)
                ls_buf_adds(b, " *");
        } else {
            ls_buf_printf(unknown, "%s%%%c", unknown->len ? ", " : "", *s);
        }
        s++;
    }
    if (in_q)
        ls_buf_adds(b, ")?");
    add_severity_re(b);
    p->group[LS_PF_SEVERITY] = ++ngroups;
    p->group[LS_PF_VSQLSTATE] = ++ngroups;
}

/* ---- the fast matcher (see fast_op) ---- */

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* [0-9]+ greedy from `at`; the end, or `at` itself when there is no digit. */
static size_t scan_digits(const char *s, size_t len, size_t at)
{
    while (at < len && is_digit(s[at]))
        at++;
    return at;
}

static size_t scan_hex(const char *s, size_t len, size_t at)
{
    while (at < len && (is_digit(s[at]) || (s[at] >= 'a' && s[at] <= 'f')))
        at++;
    return at;
}

#define NO_MATCH ((size_t)-1)

/* DATETIME_RE, then ".mmm" when `ms`, then " " and ZONE_RE's first branch
 * (a zone in letters); a numeric zone goes to PCRE2. */
static size_t scan_time(const char *s, size_t len, size_t at, int ms)
{
    static const char shape[] = "dddd-dd-dd dd:dd:dd";
    size_t i, z;

    if (len - at < sizeof(shape) - 1)
        return NO_MATCH;
    for (i = 0; i < sizeof(shape) - 1; i++)
        if (shape[i] == 'd' ? !is_digit(s[at + i]) : s[at + i] != shape[i])
            return NO_MATCH;
    at += i;
    if (ms) {
        if (len - at < 4 || s[at] != '.' || !is_digit(s[at + 1]) || !is_digit(s[at + 2]) ||
            !is_digit(s[at + 3]))
            return NO_MATCH;
        at += 4;
    }
    if (at >= len || s[at] != ' ')
        return NO_MATCH;
    z = ++at;
    while (at < len && at - z < 6 && ((s[at] >= 'A' && s[at] <= 'Z') || (s[at] >= 'a' && s[at] <= 'z')))
        at++;
    return at > z ? at : NO_MATCH;
}

/* A free-text value: up to the first occurrence of the literal `lit` that
 * starts within FREE_MAX bytes (the lazy .{0,1100}? of the pattern). */
static size_t scan_free(const char *s, size_t len, size_t at, const fast_op *next)
{
    size_t limit = at + FREE_MAX_BYTES, from = at;
    const char *hit;

    for (;;) {
        size_t span = (limit < len ? limit + 1 : len) - from;
        if (from >= len || !(hit = memchr(s + from, next->lit[0], span)))
            return NO_MATCH;
        from = (size_t)(hit - s);
        if (len - from >= next->litlen && memcmp(hit, next->lit, next->litlen) == 0)
            return from;
        from++;
        if (from > limit)
            return NO_MATCH;
    }
}

/* Where the value of escape `op` that starts at `at` ends, or NO_MATCH. */
static size_t scan_escape(const fast_op *op, const char *s, size_t len, size_t at)
{
    size_t e, f;

    switch (op->letter) {
    case 'a': case 'u': case 'd': case 'r': case 'h': case 'b': case 'i':
        return scan_free(s, len, at, op + 1);
    case 'p': case 'l': case 'x':
        e = scan_digits(s, len, at);
        return e > at ? e : NO_MATCH;
    case 'P':
        return scan_digits(s, len, at);
    case 'Q':
        f = at < len && s[at] == '-' ? at + 1 : at;
        e = scan_digits(s, len, f);
        return e > f ? e : NO_MATCH;
    case 'm':
        return scan_time(s, len, at, 1);
    case 't': case 's':
        return scan_time(s, len, at, 0);
    case 'n':
        e = scan_digits(s, len, at);
        if (e == at || len - e < 4 || s[e] != '.' || !is_digit(s[e + 1]) ||
            !is_digit(s[e + 2]) || !is_digit(s[e + 3]))
            return NO_MATCH;
        return e + 4;
    case 'e':
        for (e = at; e < len && e - at < 5 &&
                     (is_digit(s[e]) || (s[e] >= 'A' && s[e] <= 'Z'));
             e++)
            ;
        return e - at == 5 ? e : NO_MATCH;
    case 'c':
        e = scan_hex(s, len, at);
        if (e == at || e >= len || s[e] != '.')
            return NO_MATCH;
        f = scan_hex(s, len, e + 1);
        return f > e + 1 ? f : NO_MATCH;
    case 'v': /* (?:-?[0-9]+/[0-9]+)? : the group when it is there, else empty */
        f = at < len && s[at] == '-' ? at + 1 : at;
        e = scan_digits(s, len, f);
        if (e == f || e >= len || s[e] != '/')
            return at;
        f = scan_digits(s, len, e + 1);
        return f > e + 1 ? f : at;
    default:
        return NO_MATCH;
    }
}

/* severity_re by hand; returns the message offset or NO_MATCH. */
static size_t scan_severity(const char *s, size_t len, size_t at, ls_prefix_match *out)
{
    static const char *const primary[] = {"LOG", "ERROR", "FATAL", "PANIC", "WARNING",
                                          "NOTICE", "INFO", "DEBUG"};
    static const char *const secondary[] = {"DETAIL", "HINT", "QUERY", "CONTEXT",
                                            "LOCATION", "STATEMENT"};
    size_t w = at, n, i;
    int prim = 0, sec = 0;

    while (w < len && s[w] >= 'A' && s[w] <= 'Z')
        w++;
    n = w - at;
    for (i = 0; i < sizeof(primary) / sizeof(primary[0]) && !prim; i++)
        prim = strlen(primary[i]) == n && memcmp(s + at, primary[i], n) == 0;
    for (i = 0; i < sizeof(secondary) / sizeof(secondary[0]) && !prim && !sec; i++)
        sec = strlen(secondary[i]) == n && memcmp(s + at, secondary[i], n) == 0;
    if (!prim && !sec) {
        const ls_i18n_sev *v = ls_i18n_severity_at(s + at, len - at);
        if (!v)
            return NO_MATCH;
        prim = v->primary;
        w = at + (size_t)v->len;
        out->f[LS_PF_SEVERITY].ptr = v->english;
        out->f[LS_PF_SEVERITY].len = strlen(v->english);
    } else {
        if (n == 5 && s[at] == 'D' && w < len && s[w] >= '1' && s[w] <= '5')
            w++; /* DEBUG1..DEBUG5 */
        out->f[LS_PF_SEVERITY].ptr = s + at;
        out->f[LS_PF_SEVERITY].len = w - at;
    }
    if (w >= len || s[w] != ':')
        return NO_MATCH;
    if (++w == len)
        return w;
    if (s[w] != ' ')
        return NO_MATCH;
    if (++w < len && s[w] == ' ')
        w++;
    if (prim && len - w >= 7 && s[w + 5] == ':' && s[w + 6] == ' ') {
        for (i = 0; i < 5 && (is_digit(s[w + i]) || (s[w + i] >= 'A' && s[w + i] <= 'Z')); i++)
            ;
        if (i == 5) {
            out->f[LS_PF_VSQLSTATE].ptr = s + w;
            out->f[LS_PF_VSQLSTATE].len = 5;
            w += 7;
        }
    }
    return w;
}

/* 1 with *out filled when the line takes PCRE2's first path, else 0. */
static int fast_match(const ls_prefix *p, const char *s, size_t len, ls_prefix_match *out)
{
    size_t at = 0, e;
    int i;

    memset(out->f, 0, sizeof(out->f));
    for (i = 0; i < p->nfast; i++) {
        const fast_op *op = &p->fast[i];
        if (op->letter == 'q')
            continue;
        if (op->letter == 0) {
            if (len - at < op->litlen || memcmp(s + at, op->lit, op->litlen) != 0)
                return 0;
            at += op->litlen;
            continue;
        }
        if ((e = scan_escape(op, s, len, at)) == NO_MATCH)
            return 0;
        if (op->field >= 0) {
            out->f[op->field].ptr = s + at;
            out->f[op->field].len = e - at;
        }
        at = e;
    }
    if ((e = scan_severity(s, len, at, out)) == NO_MATCH)
        return 0;
    out->msg_off = e;
    return 1;
}

static int fast_add(ls_prefix *p, char letter, int field, const char *lit, size_t litlen)
{
    fast_op *op;
    if (letter == 0 && p->nfast > 0 && p->fast[p->nfast - 1].letter == 0) {
        p->fast[p->nfast - 1].litlen += litlen; /* lit is contiguous in p->fastlit */
        return 0;
    }
    op = &p->fast[p->nfast++];
    op->letter = letter;
    op->field = field;
    op->lit = lit;
    op->litlen = litlen;
    return 0;
}

/*
 * Build p->fast from the spec, walking it as pattern_build does. Leaves
 * p->fast NULL (PCRE2 for every line) for what fast_match cannot walk.
 */
static int fast_build(ls_prefix *p, const char *spec)
{
    const char *s = spec;
    size_t n = strlen(spec);
    int seen[LS_PF__COUNT] = {0}, in_q = 0, i, ok = 1;
    char *lit;

    p->fast = ls_calloc(n + 1, sizeof(*p->fast));
    p->fastlit = lit = ls_malloc(n + 1);
    if (!p->fast || !p->fastlit)
        return LS_ENOMEM;
    while (*s && ok) {
        const escape_def *e;
        if (*s != '%') {
            *lit = *s++;
            fast_add(p, 0, -1, lit++, 1);
            continue;
        }
        s++;
        if (*s == '\0')
            break;
        if (*s == '-' || (*s >= '0' && *s <= '9')) {
            while (*s == '-' || *s == '0')
                s++;
            if (*s >= '1' && *s <= '9')
                ok = 0; /* padding: spaces around the value */
            if (*s == '\0')
                break;
        }
        if (*s == '%') {
            *lit = '%';
            fast_add(p, 0, -1, lit++, 1);
        } else if (*s == 'q') {
            if (!in_q)
                fast_add(p, 'q', -1, NULL, 0);
            in_q = 1;
        } else if ((e = escape_find(*s)) != NULL) {
            fast_add(p, e->letter, seen[e->field] ? -1 : e->field, NULL, 0);
            seen[e->field] = 1;
        }
        s++;
    }
    for (i = 0; i < p->nfast && ok; i++)
        if (strchr("aurdhbi", p->fast[i].letter) && p->fast[i].letter &&
            (i + 1 == p->nfast || p->fast[i + 1].letter != 0))
            ok = 0; /* a free-text value needs literal text after it */
    if (!ok) {
        free(p->fast);
        free(p->fastlit);
        p->fast = NULL;
        p->fastlit = NULL;
        p->nfast = 0;
    }
    return 0;
}

void ls_prefix_pcre_only(ls_prefix *p)
{
    free(p->fast);
    p->fast = NULL;
    p->nfast = 0;
}

void ls_prefix_free(ls_prefix *p)
{
    if (!p)
        return;
    free(p->fast);
    free(p->fastlit);
    pcre2_match_data_free(p->md);
    pcre2_match_context_free(p->mctx);
    pcre2_jit_stack_free(p->jit_stack);
    pcre2_code_free(p->code);
    free(p->spec);
    free(p);
}

int ls_prefix_compile(ls_prefix **out, const char *spec, char *errbuf, size_t errlen)
{
    ls_prefix *p = NULL;
    ls_buf pat = LS_BUF_INIT(PATTERN_MAX);
    ls_buf unknown = LS_BUF_INIT(4096);
    const char *nl;
    int errcode = 0;
    PCRE2_SIZE erroff = 0;
    int rc = LS_EFORMAT;

    *out = NULL;
    if (errbuf && errlen)
        errbuf[0] = '\0';
    if (!spec) {
        if (errbuf && errlen)
            snprintf(errbuf, errlen, "log_line_prefix missing: pass the value of log_line_prefix");
        return LS_EFORMAT;
    }
    nl = strpbrk(spec, "\r\n");
    if (nl) {
        if (errbuf && errlen)
            snprintf(errbuf, errlen,
                     "log_line_prefix \"%s\": line break at byte %zu; a prefix that spans "
                     "lines cannot be matched line by line",
                     spec, (size_t)(nl - spec));
        return LS_EFORMAT;
    }

    p = ls_calloc(1, sizeof(*p));
    if (!p || !(p->spec = ls_strdup(spec))) {
        rc = LS_ENOMEM;
        goto out;
    }
    pattern_build(p, &pat, spec, &unknown);
    if (ls_buf_failed(&pat) || ls_buf_failed(&unknown)) {
        rc = pat.err == LS_ENOMEM || unknown.err == LS_ENOMEM ? LS_ENOMEM : LS_EFORMAT;
        if (rc == LS_EFORMAT && errbuf && errlen)
            snprintf(errbuf, errlen, "log_line_prefix \"%s\": too long to compile", spec);
        goto out;
    }

    p->code =
        pcre2_compile((PCRE2_SPTR)pat.ptr, pat.len, PCRE2_ANCHORED | PCRE2_DOTALL | PCRE2_NEVER_UTF,
                      &errcode, &erroff, NULL);
    if (!p->code) {
        PCRE2_UCHAR msg[256];

        if (pcre2_get_error_message(errcode, msg, sizeof(msg)) < 0)
            msg[0] = '\0';
        if (errbuf && errlen)
            snprintf(errbuf, errlen,
                     "log_line_prefix \"%s\": generated pattern does not compile (%s at offset "
                     "%zu); this is a bug in lockspan, please report the prefix",
                     spec, (const char *)msg, (size_t)erroff);
        goto out;
    }
    if (pcre2_jit_compile(p->code, PCRE2_JIT_COMPLETE) == 0) {
        p->jit = 1;
        p->jit_stack = pcre2_jit_stack_create(32 * 1024, 1024 * 1024, NULL);
        if (!p->jit_stack) {
            rc = LS_ENOMEM;
            goto out;
        }
    }
    p->md = pcre2_match_data_create_from_pattern(p->code, NULL);
    p->mctx = pcre2_match_context_create(NULL);
    if (!p->md || !p->mctx) {
        rc = LS_ENOMEM;
        goto out;
    }
    pcre2_set_match_limit(p->mctx, MATCH_LIMIT);
    if ((rc = fast_build(p, spec)) != 0)
        goto out;
    rc = LS_EFORMAT;
    if (p->jit_stack)
        pcre2_jit_stack_assign(p->mctx, NULL, p->jit_stack);

    if (unknown.len && errbuf && errlen)
        snprintf(errbuf, errlen,
                 "log_line_prefix \"%s\": unknown escape %s ignored (PostgreSQL prints nothing "
                 "for it)",
                 spec, ls_buf_str(&unknown));
    *out = p;
    p = NULL;
    rc = LS_OK;
out:
    if (rc == LS_ENOMEM && errbuf && errlen)
        snprintf(errbuf, errlen, "log_line_prefix \"%s\": out of memory", spec);
    ls_prefix_free(p);
    ls_buf_free(&pat);
    ls_buf_free(&unknown);
    return rc;
}

const char *ls_prefix_spec(const ls_prefix *p)
{
    return p->spec;
}

int ls_prefix_match_line(ls_prefix *p, const char *line, size_t len, ls_prefix_match *out)
{
    const PCRE2_SIZE *ov;
    PCRE2_SPTR subject = (PCRE2_SPTR)(line ? line : "");
    int rc, i;

    if (!line)
        len = 0;
    if (p->fast && fast_match(p, (const char *)subject, len, out))
        return 1;
    if (p->jit)
        rc = pcre2_jit_match(p->code, subject, len, 0, 0, p->md, p->mctx);
    else
        rc = pcre2_match(p->code, subject, len, 0, 0, p->md, p->mctx);
    if (rc < 0) {
        switch (rc) {
        case PCRE2_ERROR_NOMATCH:
        /* Lines that exhaust the limits are data we cannot read, not failures. */
        case PCRE2_ERROR_MATCHLIMIT:
        case PCRE2_ERROR_DEPTHLIMIT:
        case PCRE2_ERROR_HEAPLIMIT:
        case PCRE2_ERROR_JIT_STACKLIMIT:
            return 0;
        case PCRE2_ERROR_NOMEMORY:
            return LS_ENOMEM;
        default:
            return LS_ERR;
        }
    }

    ov = pcre2_get_ovector_pointer(p->md);
    for (i = 0; i < LS_PF__COUNT; i++) {
        int g = p->group[i];

        if (g > 0 && g < rc && ov[2 * g] != PCRE2_UNSET) {
            out->f[i].ptr = line + ov[2 * g];
            out->f[i].len = ov[2 * g + 1] - ov[2 * g];
        } else {
            out->f[i].ptr = NULL;
            out->f[i].len = 0;
        }
    }
    out->msg_off = ov[1];
    severity_english(out);
    return 1;
}
