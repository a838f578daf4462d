/*
 * prefix.c — compile a log_line_prefix into one anchored PCRE2 pattern and
 * match stderr line heads with it (contract: include/ls_prefix.h).
 *
 * The pattern mirrors log_line_prefix() in PostgreSQL's utils/error/elog.c
 * (15-17): every escape becomes the sub-pattern of what that escape prints,
 * literal text is escaped byte by byte, and a callout matches the severity
 * word, the optional verbose-mode SQLSTATE and the spaces before the
 * message (sev_match). Most lines never reach PCRE2: a matcher of our own
 * walks the same choices in the same order (see fast_op).
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
#include <pthread.h>
#include <stdint.h>
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

/* Places ls_prefix_other_readings() tries a severity at, at most, in one line. */
#define OTHER_TRIES_MAX 32
/* Bytes of the longest severity word (translated ones are longer than English). */
#define SEV_WORD_MAX 64

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
 * The severity (error_severity() in elog.c) after the prefix, by hand: the
 * pattern ends in a callout (see sev_callout) instead of this as PCRE2
 * alternatives. As a regex it is
 *   (?|(LOG|ERROR|FATAL|PANIC|WARNING|NOTICE|INFO|DEBUG[1-5]?|<translated
 *       primary words>):(?:  ?(?:([0-9A-Z]{5}): )?|$)
 *     |(DETAIL|HINT|QUERY|CONTEXT|LOCATION|STATEMENT|<translated secondary
 *       words>):(?:  ?|$))
 * and it is matched as PCRE2 would: the first alternative that fits, in
 * that order (the translated words of ls_i18n.h in table order), greedy
 * spaces and SQLSTATE, '$' also before a final newline. A tight word is one
 * a catalog writes with no space after its colon (tr "AYRINTI:" for
 * "DETAIL:  ": ls_i18n_sev.tight), so its message may start right after
 * the colon: its alternative ends in ":(?:  ?|)" instead. Nothing follows it
 * in the pattern, so the first fit is the match. Why not in the pattern:
 * the translated words made it some 6 KB, and compiling it took ~85 us of
 * every ls_prefix_compile(), which prefix inference calls for each of up to
 * 64 candidates.
 */
static const char *const sev_primary[] = {"LOG", "ERROR", "FATAL", "PANIC", "WARNING",
                                          "NOTICE", "INFO", "DEBUG"};
static const char *const sev_secondary[] = {"DETAIL", "HINT", "QUERY", "CONTEXT", "LOCATION",
                                            "STATEMENT"};

/*
 * The alternatives in the regex's order, grouped by first byte
 * (sev_byte[c] .. sev_byte[c + 1] in sev_alt), and the lookahead
 * "(?=[...])" of all first bytes that stands before the callout. Most
 * positions PCRE2 reaches at the end of the prefix start no severity; and
 * without an item there PCRE2 would take the callout for the end of the
 * pattern and make a repeat before it possessive ("%m" right before "LOG:"
 * needs the zone's letters to give back "LOG").
 */
typedef struct sev_word {
    const char *word;
    size_t len;
    int primary;
    int plain; /* English, and no translated word of another severity */
    int tight; /* the message may follow the colon with no space (ls_i18n_sev.tight) */
} sev_word;

#define SEV_ALTS_MAX 512
#define SEV_LENS_MAX 64
static sev_word sev_alt[SEV_ALTS_MAX];
static size_t sev_lens[SEV_LENS_MAX]; /* the distinct lengths of the words (DEBUGn too), ascending */
static int nsev_lens;
static int sev_byte[257];
static char sev_lookahead[8 + 256 * 7];
static pthread_once_t sev_once = PTHREAD_ONCE_INIT;

static void sev_init(void)
{
    sev_word all[SEV_ALTS_MAX];
    int nall = 0, prim, i, c, n = 0;
    size_t k, off;

    for (prim = 1; prim >= 0; prim--) {
        const char *const *en = prim ? sev_primary : sev_secondary;
        size_t nen = prim ? sizeof(sev_primary) / sizeof(sev_primary[0])
                          : sizeof(sev_secondary) / sizeof(sev_secondary[0]);
        for (k = 0; k < nen && nall < SEV_ALTS_MAX; k++)
            all[nall++] = (sev_word){en[k], strlen(en[k]), prim, 1, 0};
        for (i = 0; i < ls_i18n_nsevs && nall < SEV_ALTS_MAX; i++)
            if (ls_i18n_sevs[i].primary == prim && ls_i18n_sevs[i].len > 0)
                all[nall++] = (sev_word){ls_i18n_sevs[i].word, (size_t)ls_i18n_sevs[i].len, prim, 0,
                                         ls_i18n_sevs[i].tight};
    }
    /* An English word severity_english() leaves as it is: no need to ask it. */
    for (i = 0; i < nall; i++) {
        const ls_i18n_sev *v = all[i].plain ? ls_i18n_severity_word(all[i].word, all[i].len) : NULL;
        if (v && strcmp(v->english, all[i].word) != 0)
            all[i].plain = 0;
    }
    off = (size_t)snprintf(sev_lookahead, sizeof(sev_lookahead), "(?=[");
    for (c = 0; c < 256; c++) {
        sev_byte[c] = n;
        for (i = 0; i < nall; i++)
            if ((unsigned char)all[i].word[0] == c)
                sev_alt[n++] = all[i];
        if (n > sev_byte[c])
            off += (size_t)snprintf(sev_lookahead + off, sizeof(sev_lookahead) - off, "\\x{%02x}",
                                    c);
    }
    sev_byte[256] = n;
    snprintf(sev_lookahead + off, sizeof(sev_lookahead) - off, "])");
    for (i = 0; i <= nall; i++) {
        size_t l = i < nall ? all[i].len : strlen("DEBUG1");
        for (c = 0; c < nsev_lens && sev_lens[c] != l; c++)
            ;
        if (c == nsev_lens && nsev_lens < SEV_LENS_MAX && l <= SEV_WORD_MAX) {
            /* in ascending order: the scan stops at the first too long */
            for (c = nsev_lens++; c > 0 && sev_lens[c - 1] > l; c--)
                sev_lens[c] = sev_lens[c - 1];
            sev_lens[c] = l;
        }
    }
}

/* ':' then "  ?" (and "([0-9A-Z]{5}): " after a primary) or the end, or, after a
 * tight word, nothing; the message offset. */
static size_t sev_tail(const char *s, size_t len, size_t w, int primary, int tight,
                       ls_prefix_match *out)
{
    size_t i;

    if (w >= len || s[w] != ':')
        return (size_t)-1;
    w++;
    if (w < len && s[w] == ' ') {
        w++;
        if (w < len && s[w] == ' ')
            w++;
        if (primary && len - w >= 7 && s[w + 5] == ':' && s[w + 6] == ' ') {
            for (i = 0; i < 5 && ((s[w + i] >= '0' && s[w + i] <= '9') ||
                                  (s[w + i] >= 'A' && s[w + i] <= 'Z'));
                 i++)
                ;
            if (i == 5) {
                out->f[LS_PF_VSQLSTATE].ptr = s + w;
                out->f[LS_PF_VSQLSTATE].len = 5;
                w += 7;
            }
        }
        return w;
    }
    if (w == len || (w + 1 == len && s[w] == '\n') || tight)
        return w; /* '$', or a tight word's message */
    return (size_t)-1;
}

/* One alternative: `word` (n bytes) at `at`, then the tail. */
static size_t sev_try(const char *s, size_t len, size_t at, const char *word, size_t n,
                      int primary, int tight, ls_prefix_match *out)
{
    size_t e;

    if (len - at < n || memcmp(s + at, word, n) != 0)
        return (size_t)-1;
    if ((e = sev_tail(s, len, at + n, primary, tight, out)) == (size_t)-1)
        return e;
    out->f[LS_PF_SEVERITY].ptr = s + at;
    out->f[LS_PF_SEVERITY].len = n;
    out->sev_off = at;
    return e;
}

/* The regex above at `at`: the message offset with the severity slices set, or (size_t)-1;
 * *plain (when not NULL) says whether the severity is an English word severity_english()
 * would leave as it is. */
static size_t sev_match(const char *s, size_t len, size_t at, ls_prefix_match *out, int *plain)
{
    size_t e;
    int i, c;

    if (plain)
        *plain = 0;
    out->f[LS_PF_SEVERITY].ptr = out->f[LS_PF_VSQLSTATE].ptr = NULL;
    out->f[LS_PF_SEVERITY].len = out->f[LS_PF_VSQLSTATE].len = 0;
    if (at >= len)
        return (size_t)-1;
    c = (unsigned char)s[at];
    for (i = sev_byte[c]; i < sev_byte[c + 1]; i++) {
        const char *w = sev_alt[i].word;
        size_t n = sev_alt[i].len;
        /* DEBUG[1-5]?: the digit is taken when there is one (without it
         * ':' would have to stand where the digit is) */
        if (w == sev_primary[7] && len - at > 5 && s[at + 5] >= '1' && s[at + 5] <= '5' &&
            memcmp(s + at, "DEBUG", 5) == 0) {
            w = s + at;
            n = 6;
        }
        if ((e = sev_try(s, len, at, w, n, sev_alt[i].primary, sev_alt[i].tight, out)) !=
            (size_t)-1) {
            if (plain)
                *plain = sev_alt[i].plain && n == sev_alt[i].len;
            return e;
        }
    }
    return (size_t)-1;
}

/* A translated severity word in a match becomes its English word. */
static void severity_english(ls_prefix_match *out)
{
    ls_slice *f = &out->f[LS_PF_SEVERITY];
    const ls_i18n_sev *v;

    if (f->ptr && (v = ls_i18n_severity_word(f->ptr, f->len)) != NULL) {
        f->ptr = v->english;
        f->len = strlen(v->english);
    }
}

/*
 * The fast matcher: the prefix as a list of steps (literal bytes, one
 * escape, the spaces of a padded value, the start of the %q group) walked
 * depth first with memchr and byte tests, trying at each step the choices
 * PCRE2 tries in the order it tries them (greedy digits and spaces, lazy
 * free text, the %q group present before absent, the letters of a zone
 * longest first) and backtracking when a later step fails. The first walk
 * that reaches a severity is the match PCRE2 finds first, so the slices
 * are the same (tests/unit/test_prefix.c and the stderr_prefix fuzz target
 * compare the two). Lines that take it too many steps go to PCRE2, which
 * decides within its own match limit (see WALK_BUDGET). The matcher is why inference can try 64 candidates: most
 * never need PCRE2 at all.
 */
typedef enum fast_kind {
    FK_LIT, FK_SPACES, FK_Q, FK_FREE, FK_DIGITS, FK_OTHER
} fast_kind;

typedef struct fast_op {
    char letter;      /* escape letter, 0 = literal, 'q' = start of the optional group,
                         ' ' = the spaces around a padded value */
    unsigned char kind; /* fast_kind, from the letter: first_path's switch */
    int field;        /* ls_prefix_field to fill, -1 = a repeated escape (not captured) */
    int stop;         /* FK_FREE: the first byte of the literal after it, or -1 */
    const char *lit;  /* literal bytes (into spec copy), for letter 0 */
    size_t litlen;
    size_t taillen;   /* an escape's: litlen of the literal step after it, which
                         first_path matches in the escape's step, or 0 */
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
    ls_prefix_match sev; /* sev_callout's severity slices and message offset */
    char *pattern;       /* the PCRE2 pattern, compiled when first needed (lazy) */
    unsigned char *memo; /* the walk's memo of failures (see WALK_BUDGET), reused */
    size_t memo_size;
    size_t pattern_len;
    int jit_wanted;
    int has_free;  /* a free-text escape (%a %u %d %r %h %b %i): a line may read two ways */
    unsigned q_after;  /* bit per ls_prefix_field: the fields after %q */
    unsigned q_before; /* the client's values (%a %u %d %r %h) before %q */
    size_t sev_at; /* the severity must start here, or NO_SEV_AT (ls_prefix_match_at) */
};

#define NO_SEV_AT ((size_t)-1)

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
    ls_buf_adds(b, sev_lookahead); /* the severity: sev_callout */
    ls_buf_adds(b, "(?C1)");
}

/* ---- the fast matcher (see fast_op) ---- */

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f');
}

static int is_letter(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The high bit of each byte of `w` that is not '0'..'9'. A byte less '0'
 * is 0..9 for a digit; its low seven bits plus 0x76 reach 0x80 from 10 up
 * (and never carry into the next byte), and its own high bit is set from
 * 0x80 up. */
static inline uint64_t nondigit_bits(uint64_t w)
{
    uint64_t t = w ^ 0x3030303030303030u;
    return (((t & 0x7f7f7f7f7f7f7f7fu) + 0x7676767676767676u) | t) & 0x8080808080808080u;
}
#define SCAN_WORDS 1
#endif

/* [0-9]+ greedy from `at`; the end, or `at` itself when there is no digit.
 * Eight bytes at a time where the line has them: a pid, a line number or
 * an xid is one step. */
static size_t scan_digits(const char *s, size_t len, size_t at)
{
#ifdef SCAN_WORDS
    while (len - at >= 8) {
        uint64_t w, nd;
        memcpy(&w, s + at, sizeof(w));
        if ((nd = nondigit_bits(w)) != 0)
            return at + (size_t)(__builtin_ctzll(nd) >> 3);
        at += 8;
    }
#endif
    while (at < len && is_digit(s[at]))
        at++;
    return at;
}

static size_t scan_hex(const char *s, size_t len, size_t at)
{
    while (at < len && is_hex(s[at]))
        at++;
    return at;
}

#define NO_MATCH ((size_t)-1)

/*
 * The ends of one value other than free text, in the order PCRE2 tries
 * them: runs from hi down to lo, one run after the other. Greedy digits
 * are one run; shorter digit or hex runs than the greedy ones elsewhere
 * cannot be followed by what follows them in the regex, so they are no
 * choice.
 */
typedef struct end_runs {
    size_t hi[4], lo[4];
    int n;
} end_runs;

static void run_add(end_runs *r, size_t hi, size_t lo)
{
    r->hi[r->n] = hi;
    r->lo[r->n++] = lo;
}

/*
 * DATETIME_RE, ".mmm" when `ms`, " ", then ZONE_RE. Letters are greedy
 * ([A-Za-z]{1,6}: longest first); a numeric zone takes its optional
 * "[:]dd" groups greedily (two, one, none).
 */
static void time_ends(const char *s, size_t len, size_t at, int ms, end_runs *r)
{
    const char *t = s + at;
    size_t z, k, e[3];
    int g;

    /* "dddd-dd-dd dd:dd:dd", spelt out (the loop over a shape string was
     * a tenth of the time of matching a line); its first sixteen bytes as
     * two words where that can be done */
    if (len - at < 19 || t[4] != '-' || t[7] != '-' || t[10] != ' ' || t[13] != ':' ||
        t[16] != ':' || !is_digit(t[17]) || !is_digit(t[18]))
        return;
#ifdef SCAN_WORDS
    {
        uint64_t w0, w1;
        memcpy(&w0, t, sizeof(w0));
        memcpy(&w1, t + 8, sizeof(w1));
        /* the only bytes not digits: 4 and 7 ('-'), then 10 and 13 */
        if (nondigit_bits(w0) != (0x80ull << 32 | 0x80ull << 56) ||
            nondigit_bits(w1) != (0x80ull << 16 | 0x80ull << 40))
            return;
    }
#else
    if (!is_digit(t[0]) || !is_digit(t[1]) || !is_digit(t[2]) || !is_digit(t[3]) ||
        !is_digit(t[5]) || !is_digit(t[6]) || !is_digit(t[8]) || !is_digit(t[9]) ||
        !is_digit(t[11]) || !is_digit(t[12]) || !is_digit(t[14]) || !is_digit(t[15]))
        return;
#endif
    at += 19;
    if (ms) {
        if (len - at < 4 || s[at] != '.' || !is_digit(s[at + 1]) || !is_digit(s[at + 2]) ||
            !is_digit(s[at + 3]))
            return;
        at += 4;
    }
    if (at >= len || s[at] != ' ')
        return;
    z = ++at;
    while (at < len && at - z < 6 && is_letter(s[at]))
        at++;
    if (at > z) {
        run_add(r, at, z + 1);
        return;
    }
    if (z + 3 > len || (s[z] != '+' && s[z] != '-') || !is_digit(s[z + 1]) || !is_digit(s[z + 2]))
        return;
    e[0] = k = z + 3;
    for (g = 1; g <= 2; g++) {
        size_t c = k < len && s[k] == ':' ? k + 1 : k;
        if (c + 2 > len || !is_digit(s[c]) || !is_digit(s[c + 1]))
            break;
        e[g] = k = c + 2;
    }
    while (g-- > 0)
        run_add(r, e[g], e[g]);
}

/* The ends of the value of escape `op` at `at` other than free text. */
static void escape_ends(const fast_op *op, const char *s, size_t len, size_t at, end_runs *r)
{
    size_t e, f;

    r->n = 0;
    switch (op->letter) {
    case 'p': case 'l': case 'x': /* [0-9]+ */
        if ((e = scan_digits(s, len, at)) > at)
            run_add(r, e, at + 1);
        return;
    case 'P': /* [0-9]* */
        if ((e = scan_digits(s, len, at)) > at)
            run_add(r, e, at + 1);
        run_add(r, at, at);
        return;
    case 'Q': /* -?[0-9]+ */
        f = at < len && s[at] == '-' ? at + 1 : at;
        if ((e = scan_digits(s, len, f)) > f)
            run_add(r, e, f + 1);
        return;
    case 'm':
        time_ends(s, len, at, 1, r);
        return;
    case 't': case 's':
        time_ends(s, len, at, 0, r);
        return;
    case 'n': /* [0-9]+\.[0-9]{3} */
        e = scan_digits(s, len, at);
        if (e > at && len - e >= 4 && s[e] == '.' && is_digit(s[e + 1]) && is_digit(s[e + 2]) &&
            is_digit(s[e + 3]))
            run_add(r, e + 4, e + 4);
        return;
    case 'e': /* [0-9A-Z]{5} */
        for (e = at; e < len && e - at < 5 && (is_digit(s[e]) || (s[e] >= 'A' && s[e] <= 'Z'));
             e++)
            ;
        if (e - at == 5)
            run_add(r, e, e);
        return;
    case 'c': /* [0-9a-f]+\.[0-9a-f]+ */
        e = scan_hex(s, len, at);
        if (e > at && e < len && s[e] == '.' && (f = scan_hex(s, len, e + 1)) > e + 1)
            run_add(r, f, e + 2);
        return;
    case 'v': /* (?:-?[0-9]+/[0-9]+)? */
        f = at < len && s[at] == '-' ? at + 1 : at;
        e = scan_digits(s, len, f);
        if (e > f && e < len && s[e] == '/' && (f = scan_digits(s, len, e + 1)) > e + 1)
            run_add(r, f, e + 2);
        run_add(r, at, at);
        return;
    default:
        return;
    }
}

/*
 * How much a walk may try. Up to WALK_BUDGET steps PCRE2 (counting at most
 * a few of its steps for one of ours) stays far below MATCH_LIMIT, so a
 * match found within it is the one PCRE2 finds. Past MEMO_AFTER steps the
 * walk remembers the (step, offset) pairs that failed and does not try
 * them again: a line that then fails has no match at all, which PCRE2,
 * running out of its limit or not, also says; a match found with the memo
 * on goes to PCRE2, which may have run out first. Past WALK_MAX the line
 * goes to PCRE2 as well.
 */
#define WALK_BUDGET 20000
#define FAST_MAX_STEPS 1024
#define MEMO_AFTER 2000
#define MEMO_MAX_BITS ((size_t)1 << 23)
#define WALK_MAX 2000000

typedef struct walk_ctx {
    const char *s;
    size_t len;
    ls_prefix_match *out;
    long steps;
    unsigned char *memo; /* a bit per (op, offset) that failed, or NULL */
} walk_ctx;

static int walk(ls_prefix *p, int i, size_t at, walk_ctx *w);

/* Field `f` (or none, -1) takes [at, e), then the walk goes on at op i + 1. */
static int walk_on(ls_prefix *p, int i, int f, size_t at, size_t e, walk_ctx *w)
{
    int rc;

    if (f >= 0) {
        w->out->f[f].ptr = w->s + at;
        w->out->f[f].len = e - at;
    }
    rc = walk(p, i + 1, e, w);
    if (rc == 0 && f >= 0) {
        w->out->f[f].ptr = NULL;
        w->out->f[f].len = 0;
    }
    return rc;
}

/* Turn the memo on for this line (left off when it would be too large). */
static void memo_start(ls_prefix *p, walk_ctx *w)
{
    size_t bits = (size_t)(p->nfast + 1) * (w->len + 1), bytes = (bits + 7) / 8;

    if (bits > MEMO_MAX_BITS)
        return;
    if (bytes > p->memo_size) {
        unsigned char *m = realloc(p->memo, bytes);
        if (!m)
            return;
        p->memo = m;
        p->memo_size = bytes;
    }
    memset(p->memo, 0, bytes);
    w->memo = p->memo;
}

static int walk_step(ls_prefix *p, int i, size_t at, walk_ctx *w);

/*
 * The pattern from op i at `at`, depth first in PCRE2's order: 1 with the
 * fields and severity set (the match PCRE2 finds first), 0 when no choice
 * fits, -1 when PCRE2 must decide (see WALK_BUDGET).
 */
static int walk(ls_prefix *p, int i, size_t at, walk_ctx *w)
{
    size_t bit = (size_t)i * (w->len + 1) + at;
    int rc;

    if (++w->steps > WALK_MAX)
        return -1;
    if (w->steps == MEMO_AFTER)
        memo_start(p, w);
    if (w->memo && (w->memo[bit / 8] >> (bit % 8) & 1))
        return 0;
    rc = walk_step(p, i, at, w);
    if (rc == 0 && w->memo)
        w->memo[bit / 8] |= (unsigned char)(1u << (bit % 8));
    return rc;
}

/* A prefix's literals are a byte or a few (" [", "] ", "@"): a loop beats
 * a call to memcmp, which the walk made on most steps. */
static inline int lit_at(const char *s, const char *lit, size_t n)
{
    size_t k;
    for (k = 0; k < n; k++)
        if (s[k] != lit[k])
            return 0;
    return 1;
}

static int walk_step(ls_prefix *p, int i, size_t at, walk_ctx *w)
{
    const char *s = w->s;
    size_t len = w->len, e;
    const fast_op *op;
    end_runs r;
    int k, rc;

    if (i == p->nfast) {
        if ((p->sev_at != NO_SEV_AT && at != p->sev_at) ||
            (e = sev_match(s, len, at, w->out, NULL)) == NO_MATCH)
            return 0;
        w->out->msg_off = e;
        return 1;
    }
    op = &p->fast[i];
    switch (op->letter) {
    case 0:
        if (len - at < op->litlen || !lit_at(s + at, op->lit, op->litlen))
            return 0;
        return walk(p, i + 1, at + op->litlen, w);
    case ' ': /* " *" of a padded value: greedy */
        for (e = at; e < len && s[e] == ' '; e++)
            ;
        for (;; e--) {
            if ((rc = walk(p, i + 1, e, w)) != 0 || e == at)
                return rc;
        }
    case 'q': /* (?: the rest )? : with the rest first, else straight to the severity */
        if ((rc = walk(p, i + 1, at, w)) != 0)
            return rc;
        return walk(p, p->nfast, at, w);
    case 'a': case 'u': case 'd': case 'r': case 'h': case 'b': case 'i':
        /* .{0,1100}? : shortest first; before a literal, only where it starts */
        for (e = at; e <= len && e - at <= FREE_MAX_BYTES; e++) {
            if (i + 1 < p->nfast && p->fast[i + 1].letter == 0) {
                const char *hit = memchr(s + e, p->fast[i + 1].lit[0], len - e);
                if (!hit || (size_t)(hit - s) - at > FREE_MAX_BYTES)
                    return 0;
                e = (size_t)(hit - s);
            }
            if ((rc = walk_on(p, i, op->field, at, e, w)) != 0)
                return rc;
        }
        return 0;
    default:
        escape_ends(op, s, len, at, &r);
        for (k = 0; k < r.n; k++)
            for (e = r.hi[k]; e >= r.lo[k]; e--)
                if ((rc = walk_on(p, i, op->field, at, e, w)) != 0 || e == r.lo[k]) {
                    if (rc != 0)
                        return rc;
                    break;
                }
        return 0;
    }
}

/*
 * The end of the first choice escape_ends() gives (its first run's longest
 * end), or NO_MATCH; the digit escapes, most of a prefix, and %c and %e
 * without building the runs.
 */
static size_t first_end(const fast_op *op, const char *s, size_t len, size_t at)
{
    end_runs r;
    size_t e, f;
    int k;

    switch (op->letter) {
    case 'p': case 'l': case 'x': /* [0-9]+ */
        return (e = scan_digits(s, len, at)) > at ? e : NO_MATCH;
    case 'P': /* [0-9]* */
        return scan_digits(s, len, at);
    case 'v': /* (?:-?[0-9]+/[0-9]+)? */
        f = at < len && s[at] == '-' ? at + 1 : at;
        e = scan_digits(s, len, f);
        if (e > f && e < len && s[e] == '/' && (f = scan_digits(s, len, e + 1)) > e + 1)
            return f;
        return at;
    case 'c': /* [0-9a-f]+\.[0-9a-f]+ */
        e = scan_hex(s, len, at);
        if (e > at && e < len && s[e] == '.' && (f = scan_hex(s, len, e + 1)) > e + 1)
            return f;
        return NO_MATCH;
    case 'e': /* [0-9A-Z]{5} */
        for (e = at; e < len && e - at < 5 && (is_digit(s[e]) || (s[e] >= 'A' && s[e] <= 'Z'));
             e++)
            ;
        return e - at == 5 ? e : NO_MATCH;
    default:
        escape_ends(op, s, len, at, &r);
        for (k = 0; k < r.n && r.hi[k] < r.lo[k]; k++)
            ;
        return k < r.n ? r.hi[k] : NO_MATCH;
    }
}

/*
 * The walk's first path alone, in a loop: each step takes its first choice
 * (a literal, the most spaces, the %q group present, free text up to the
 * first byte of the literal after it, an escape's longest run). Nearly
 * every line of a log matches that way, and the depth-first walk tries
 * that path before any other, so when it reaches a severity it is the
 * match the walk (and PCRE2) finds. 1 then; 0 when some step's first
 * choice fails, and the walk must decide.
 */
/* Literal step `op` at *at: 1 with *at past it, or 0. */
static inline int lit_step(const fast_op *op, const char *s, size_t len, size_t *at)
{
    if (len - *at < op->litlen || s[*at] != op->lit[0] ||
        !lit_at(s + *at + 1, op->lit + 1, op->litlen - 1))
        return 0;
    *at += op->litlen;
    return 1;
}

static int first_path(ls_prefix *p, const char *s, size_t len, ls_prefix_match *out, int *plain)
{
    const fast_op *op, *end = p->fast + p->nfast;
    size_t at = 0, e;

    for (op = p->fast; op < end; op++) {
        switch ((fast_kind)op->kind) {
        case FK_LIT:
            if (!lit_step(op, s, len, &at))
                return 0;
            continue;
        case FK_SPACES:
            while (at < len && s[at] == ' ')
                at++;
            continue;
        case FK_Q:
            continue;
        case FK_FREE: /* up to the literal after it, within FREE_MAX_BYTES */
            e = at;
            if (op->stop >= 0) {
                const char *hit = memchr(s + at, op->stop, len - at);
                if (!hit || (size_t)(hit - s) - at > FREE_MAX_BYTES)
                    return 0;
                e = (size_t)(hit - s);
            }
            break;
        case FK_DIGITS: /* [0-9]+ */
            if ((e = scan_digits(s, len, at)) == at)
                return 0;
            break;
        default:
            if ((e = first_end(op, s, len, at)) == NO_MATCH)
                return 0;
            break;
        }
        if (op->field >= 0) {
            out->f[op->field].ptr = s + at;
            out->f[op->field].len = e - at;
        }
        at = e;
        if (op->taillen && !lit_step(++op, s, len, &at)) /* the literal step after it */
            return 0;
    }
    if ((p->sev_at != NO_SEV_AT && at != p->sev_at) ||
        (e = sev_match(s, len, at, out, plain)) == NO_MATCH)
        return 0;
    out->msg_off = e;
    return 1;
}

/* 1 with *out filled, 0 when the line does not match, -1 when PCRE2 must decide. */
static int fast_match(ls_prefix *p, const char *s, size_t len, ls_prefix_match *out)
{
    walk_ctx w = {s, len, out, 0, NULL};
    int rc, plain;

    memset(out->f, 0, sizeof(out->f));
    if (first_path(p, s, len, out, &plain)) {
        if (!plain)
            severity_english(out);
        return 1;
    }
    memset(out->f, 0, sizeof(out->f));
    rc = walk(p, 0, 0, &w);
    if (rc == 1 && (w.memo || w.steps > WALK_BUDGET))
        rc = -1;
    if (rc == 1)
        severity_english(out);
    return rc;
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
    int seen[LS_PF__COUNT] = {0}, in_q = 0, i;
    char *lit;

    p->fast = ls_calloc(2 * n + 1, sizeof(*p->fast));
    p->fastlit = lit = ls_malloc(n + 1);
    if (!p->fast || !p->fastlit)
        return LS_ENOMEM;
    while (*s) {
        const escape_def *e;
        int padded = 0;
        if (*s != '%') {
            *lit = *s++;
            fast_add(p, 0, -1, lit++, 1);
            continue;
        }
        s++;
        if (*s == '\0')
            break;
        if (*s == '-' || (*s >= '0' && *s <= '9')) { /* as pattern_build reads it */
            if (*s == '-')
                s++;
            for (; *s >= '0' && *s <= '9'; s++)
                padded |= *s != '0';
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
            if (in_q)
                p->q_after |= 1u << e->field;
            else if (e->field <= LS_PF_HOST) /* %a %u %d %r %h */
                p->q_before |= 1u << e->field;
            if (padded) /* " *" on both sides of the value */
                fast_add(p, ' ', -1, NULL, 0);
            fast_add(p, e->letter, seen[e->field] ? -1 : e->field, NULL, 0);
            if (padded)
                fast_add(p, ' ', -1, NULL, 0);
            seen[e->field] = 1;
        }
        s++;
    }
    for (i = 0; i < p->nfast; i++) {
        fast_op *op = &p->fast[i];
        switch (op->letter) {
        case 0: op->kind = FK_LIT; break;
        case ' ': op->kind = FK_SPACES; break;
        case 'q': op->kind = FK_Q; break;
        case 'a': case 'u': case 'd': case 'r': case 'h': case 'b': case 'i':
            op->kind = FK_FREE;
            p->has_free = 1;
            break;
        case 'p': case 'l': case 'x': op->kind = FK_DIGITS; break;
        default: op->kind = FK_OTHER; break;
        }
        op->stop = op->kind == FK_FREE && i + 1 < p->nfast && p->fast[i + 1].letter == 0
                       ? (unsigned char)p->fast[i + 1].lit[0]
                       : -1;
        op->taillen = (op->kind == FK_FREE || op->kind == FK_DIGITS || op->kind == FK_OTHER) &&
                              i + 1 < p->nfast && p->fast[i + 1].letter == 0
                          ? p->fast[i + 1].litlen
                          : 0;
    }
    /* The walk recurses once per step: a prefix of thousands of escapes
     * (no server prints one) is left to PCRE2 rather than to the stack. */
    if (p->nfast > FAST_MAX_STEPS)
        ls_prefix_pcre_only(p);
    return 0;
}

/*
 * The pattern's last item: the severity at the position the prefix reached.
 * 0 lets the match end there (nothing follows), 1 makes PCRE2 backtrack into
 * the prefix, as a failing severity alternation did.
 */
static int sev_callout(pcre2_callout_block *cb, void *data)
{
    ls_prefix *p = data;
    size_t e;

    if (p->sev_at != NO_SEV_AT && cb->current_position != p->sev_at)
        return 1;
    e = sev_match((const char *)cb->subject, cb->subject_length, cb->current_position, &p->sev,
                  NULL);
    if (e == (size_t)-1)
        return 1;
    p->sev.msg_off = e;
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
    free(p->pattern);
    free(p->memo);
    free(p->spec);
    free(p);
}

/*
 * Compile p->pattern with PCRE2 (and its JIT when p->jit_wanted). LS_EFORMAT
 * with a message in errbuf when PCRE2 refuses it, which would be a bug.
 */
static int pcre_prepare(ls_prefix *p, char *errbuf, size_t errlen)
{
    int errcode = 0;
    PCRE2_SIZE erroff = 0;

    p->code = pcre2_compile((PCRE2_SPTR)p->pattern, p->pattern_len,
                            PCRE2_ANCHORED | PCRE2_DOTALL | PCRE2_NEVER_UTF, &errcode, &erroff,
                            NULL);
    if (!p->code) {
        PCRE2_UCHAR msg[256];

        if (errcode == PCRE2_ERROR_NOMEMORY)
            return LS_ENOMEM;
        if (pcre2_get_error_message(errcode, msg, sizeof(msg)) < 0)
            msg[0] = '\0';
        if (errbuf && errlen)
            snprintf(errbuf, errlen,
                     "log_line_prefix \"%s\": generated pattern does not compile (%s at offset "
                     "%zu); this is a bug in lockspan, please report the prefix",
                     p->spec, (const char *)msg, (size_t)erroff);
        return LS_EFORMAT;
    }
    if (p->jit_wanted && pcre2_jit_compile(p->code, PCRE2_JIT_COMPLETE) == 0) {
        p->jit = 1;
        p->jit_stack = pcre2_jit_stack_create(32 * 1024, 1024 * 1024, NULL);
        if (!p->jit_stack)
            return LS_ENOMEM;
    }
    p->md = pcre2_match_data_create_from_pattern(p->code, NULL);
    p->mctx = pcre2_match_context_create(NULL);
    if (!p->md || !p->mctx)
        return LS_ENOMEM;
    pcre2_set_match_limit(p->mctx, MATCH_LIMIT);
    pcre2_set_callout(p->mctx, sev_callout, p);
    if (p->jit_stack)
        pcre2_jit_stack_assign(p->mctx, NULL, p->jit_stack);
    return 0;
}

/* lazy: PCRE2 compiles the pattern when a line first needs it (no JIT then). */
static int compile(ls_prefix **out, const char *spec, int lazy, char *errbuf, size_t errlen)
{
    ls_prefix *p = NULL;
    ls_buf pat = LS_BUF_INIT(PATTERN_MAX);
    ls_buf unknown = LS_BUF_INIT(4096);
    const char *nl;
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

    pthread_once(&sev_once, sev_init);
    p = ls_calloc(1, sizeof(*p));
    if (!p || !(p->spec = ls_strdup(spec))) {
        rc = LS_ENOMEM;
        goto out;
    }
    p->sev_at = NO_SEV_AT;
    pattern_build(p, &pat, spec, &unknown);
    if (ls_buf_failed(&pat) || ls_buf_failed(&unknown)) {
        rc = pat.err == LS_ENOMEM || unknown.err == LS_ENOMEM ? LS_ENOMEM : LS_EFORMAT;
        if (rc == LS_EFORMAT && errbuf && errlen)
            snprintf(errbuf, errlen, "log_line_prefix \"%s\": too long to compile", spec);
        goto out;
    }
    p->pattern_len = pat.len;
    if (!(p->pattern = ls_malloc(pat.len + 1))) {
        rc = LS_ENOMEM;
        goto out;
    }
    memcpy(p->pattern, pat.ptr, pat.len);
    p->pattern[pat.len] = '\0';
    p->jit_wanted = !lazy;
    if ((!lazy && (rc = pcre_prepare(p, errbuf, errlen)) != 0) ||
        (rc = fast_build(p, spec)) != 0)
        goto out;

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

int ls_prefix_compile(ls_prefix **out, const char *spec, char *errbuf, size_t errlen)
{
    return compile(out, spec, 0, errbuf, errlen);
}

int ls_prefix_compile_lazy(ls_prefix **out, const char *spec, char *errbuf, size_t errlen)
{
    return compile(out, spec, 1, errbuf, errlen);
}

const char *ls_prefix_spec(const ls_prefix *p)
{
    return p->spec;
}

static int match_line(ls_prefix *p, const char *line, size_t len, ls_prefix_match *out)
{
    const PCRE2_SIZE *ov;
    PCRE2_SPTR subject = (PCRE2_SPTR)(line ? line : "");
    int rc, i;

    if (!line)
        len = 0;
    if (p->fast && (rc = fast_match(p, (const char *)subject, len, out)) >= 0)
        return rc;
    /* Every severity is followed by ':' (PCRE2 made this check itself when
     * the severity was part of the pattern). */
    if (!memchr(subject, ':', len))
        return 0;
    if (!p->code && (rc = pcre_prepare(p, NULL, 0)) != 0)
        return rc == LS_ENOMEM ? rc : LS_ERR;
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
    out->f[LS_PF_SEVERITY] = p->sev.f[LS_PF_SEVERITY];
    out->f[LS_PF_VSQLSTATE] = p->sev.f[LS_PF_VSQLSTATE];
    out->msg_off = p->sev.msg_off;
    out->sev_off = p->sev.sev_off;
    severity_english(out);
    return 1;
}

int ls_prefix_match_line(ls_prefix *p, const char *line, size_t len, ls_prefix_match *out)
{
    return match_line(p, line, len, out);
}

int ls_prefix_match_at(ls_prefix *p, const char *line, size_t len, size_t sev_off,
                       ls_prefix_match *out)
{
    int rc;

    p->sev_at = sev_off;
    rc = match_line(p, line, len, out);
    p->sev_at = NO_SEV_AT;
    return rc;
}

int ls_prefix_free_text(const ls_prefix *p)
{
    return p->has_free;
}

/* A byte of a severity word: an upper-case letter, a digit (DEBUG1), a
 * space (French "ASTUCE :", Korean) or part of a UTF-8 character. */
static int in_severity(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || is_digit((char)c) || c == ' ' || c >= 0x80;
}

/* How many bytes before the colon s[colon] a severity word may take: the
 * run of such bytes before it, at most SEV_WORD_MAX. */
static size_t severity_room(const char *s, size_t colon)
{
    size_t n = 0;

    while (n < colon && n < SEV_WORD_MAX && in_severity((unsigned char)s[colon - n - 1]))
        n++;
    return n;
}

/*
 * Other places a severity can start in the line: before each ':' that may
 * end a severity word, a word of each length; where sev_match() finds one
 * and the whole prefix matches up to it (ls_prefix_match_at), that is
 * another reading.
 */
int ls_prefix_other_readings(ls_prefix *p, const char *line, size_t len, const ls_prefix_match *m,
                             ls_prefix_match *alts, int max)
{
    size_t tried[OTHER_TRIES_MAX];
    int ntried = 0, n = 0, k, t, rc;
    const char *c;

    if (!p->has_free || !line || max <= 0)
        return 0;
    for (c = memchr(line, ':', len); c; c = memchr(c + 1, ':', len - (size_t)(c + 1 - line))) {
        size_t colon = (size_t)(c - line), room;

        /* sev_tail: a space or the end after the colon (not a time's
         * "10:00"); and not the colons of m's own severity */
        if ((colon + 1 < len && line[colon + 1] != ' ' &&
             !(line[colon + 1] == '\n' && colon + 2 == len)) ||
            (colon >= m->sev_off && colon < m->msg_off))
            continue;
        room = severity_room(line, colon);
        for (k = 0; k < nsev_lens && sev_lens[k] <= room; k++) {
            ls_prefix_match tmp;
            size_t at = colon - sev_lens[k];
            unsigned char b;

            b = (unsigned char)line[at];
            if (at == m->sev_off || sev_byte[b] == sev_byte[b + 1])
                continue;
            for (t = 0; t < ntried && tried[t] != at; t++)
                ;
            if (t < ntried || sev_match(line, len, at, &tmp, NULL) == NO_MATCH)
                continue;
            if (ntried == OTHER_TRIES_MAX)
                return n;
            tried[ntried++] = at;
            if ((rc = ls_prefix_match_at(p, line, len, at, &alts[n])) < 0)
                return rc;
            if (rc == 1 && ++n == max)
                return n;
        }
    }
    return n;
}

int ls_prefix_session_possible(const ls_prefix *p, const ls_prefix_match *m)
{
    int f, after = 0, client = 0;

    if (!p->q_after || !p->q_before)
        return 1;
    for (f = 0; f < LS_PF__COUNT; f++) {
        if (!m->f[f].ptr)
            continue;
        after |= (p->q_after >> f) & 1u;
        client |= (p->q_before >> f) & 1u && m->f[f].len > 0;
    }
    return after || !client;
}
