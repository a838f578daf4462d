/*
 * syslog.c — parser for PostgreSQL logs written through syslog
 * (log_destination = 'syslog'), as a syslog daemon stores them:
 *
 *   Dec  2 12:13:30 host postgres[23962]: [12-2] <prefix>DETAIL:  Process ...
 *   2026-12-02T12:14:13.775091+00:00 host postgres[25388]: <prefix>LOG:  ...
 *
 * PostgreSQL's write_syslog (utils/error/elog.c) sends one message as one
 * or more syslog() calls. With syslog_split_messages = on (the default) it
 * cuts the message at each newline, and each line into pieces of at most
 * PG_SYSLOG_LIMIT (900) bytes, preferably before a space; every piece is
 * written "[SEQ-PIECE] text" (syslog_sequence_numbers = on) or
 * "[PIECE] text" (off). Unsplit messages are written "[SEQ] text" or bare,
 * newlines and all. The daemon escapes control characters: rsyslog writes
 * TAB as "#011" and LF as "#012".
 *
 * This parser strips the syslog header, undoes the escapes, glues pieces cut
 * for length back together, and feeds the stderr-format lines it recovers to
 * an inner stderr parser, which does all record assembly. A piece that
 * continues the same line cannot be told apart by its number alone, so the
 * cut is judged from how write_syslog cuts (see piece_classify()).
 *
 * Heroku's logplex writes the same pieces with a header of its own and the
 * database's color name before them (the server's log_line_prefix is
 * ' sql_error_code = %e '):
 *
 *   2017-06-28T15:10:02+00:00 app[postgres.13761]: [DATABASE] [7-1]  sql_error_code = 00000 LOG:  ...
 *
 * "ident[name.pid]" gives the pid and the "[COLOR] " word is passed over.
 *
 * The header's pid and time are handed on with each line: they are the
 * record's when the log_line_prefix has no %p or time (the usual setup with
 * syslog, whose header carries both). RFC 3339 headers carry the zone; an
 * RFC 3164 "Dec  2 12:13:30" is local time (TZ) of a year guessed as the
 * latest that does not put it more than a day ahead of now.
 *
 * Each process's pieces are gathered in a group: one prefixed line plus the
 * TAB continuation lines after it. A group is handed to the inner parser as
 * a whole, so that continuation lines follow their own process's line even
 * when other processes' messages come in between. A group ends when its
 * process starts a new prefixed line, after GROUP_QUIET quiet input lines,
 * or at the end of input; at most MAX_GROUPS are open.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ls_buf.h"
#include "ls_common.h"
#include "ls_parser.h"
#include "ls_prefix.h"

#define MAX_GROUPS 32
/* Smaller than the stderr parser's 64-line flush, so that a secondary line
 * reaches it before it gives up on the record the line belongs to. */
#define GROUP_QUIET 16
#define GROUP_MAX (32u * 1024u * 1024u)
/* elog.c PG_SYSLOG_LIMIT, less 3 bytes that pg_mbcliplen may cut off. */
#define PIECE_FULL (900 - 3)
#define TAG_SEARCH 256

typedef struct group {
    int used;
    int pid;
    ls_ts ts;           /* the first piece's header time; LS_TS_NONE if unreadable */
    int64_t seq;        /* sequence number; -1 if the pieces carry none */
    int piece;          /* number of the last piece; 0 = unnumbered */
    size_t piece_len;   /* decoded bytes of the last piece */
    uint64_t line;      /* input line of the first piece */
    uint64_t last_line; /* input line of the last piece */
    int truncated;
    ls_buf text; /* lines separated by '\n' */
} group;

typedef struct syslog_parser {
    char *file;
    ls_sink sink;
    void *inner;       /* a stderr parser */
    ls_prefix *prefix; /* to tell a new line from a piece cut for length */
    int prefix_given;  /* prefix is the user's (--prefix), not a default */
    group groups[MAX_GROUPS];
    ls_buf scratch; /* the current piece, unescaped */
} syslog_parser;

/* One syslog line taken apart. */
typedef struct syslog_msg {
    int pid;
    ls_ts ts;
    int64_t seq;      /* -1 if none */
    int piece;        /* 0 if none */
    const char *text; /* after the header and the [..] field */
    size_t len;
} syslog_msg;

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static int is_tag_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' ||
           c == '-' || c == '.' || c == '/';
}

/*
 * Parse digits at s[*i]; returns the value or -1 if there are none (or too
 * many). Advances *i past them.
 */
static int64_t parse_uint(const char *s, size_t len, size_t *i)
{
    int64_t v = 0;
    size_t start = *i;
    while (*i < len && is_digit(s[*i]) && *i - start < 18)
        v = v * 10 + (s[(*i)++] - '0');
    return *i > start && (*i >= len || !is_digit(s[*i])) ? v : -1;
}

/*
 * Find "ident[pid]: " in the first TAG_SEARCH bytes, at the start of the
 * line or after a space (the syslog timestamp and host come before it);
 * logplex's "app[postgres.pid] " may come without the ':' (a log drain's
 * "d.<uuid> app[postgres.N] ...").
 * Returns the offset of the message after it, or 0 if there is none;
 * *pid_out gets the pid and *tag_out the offset of the ident.
 */
static size_t find_tag(const char *line, size_t len, int *pid_out, size_t *tag_out)
{
    size_t p, i;
    int64_t pid;
    int plex;
    for (p = 0; p < len && p < TAG_SEARCH; p++) {
        if (p > 0 && line[p - 1] != ' ')
            continue;
        for (i = p; i < len && is_tag_char(line[i]); i++)
            ;
        if (i == p || i >= len || line[i] != '[')
            continue;
        i++;
        /* logplex: "app[postgres.PID]", from a log drain without the ':' */
        plex = i + 9 < len && memcmp(line + i, "postgres.", 9) == 0;
        if (plex)
            i += 9;
        pid = parse_uint(line, len, &i);
        if (pid <= 0 || pid > INT32_MAX || i + 1 >= len || line[i] != ']' ||
            (line[i + 1] != ':' && !(plex && line[i + 1] == ' ')))
            continue;
        i += line[i + 1] == ':' ? 2 : 1;
        if (i < len && line[i] == ' ')
            i++;
        *pid_out = (int)pid;
        *tag_out = p;
        return i;
    }
    return 0;
}

/*
 * "[SEQ-PIECE] " or "[N] " at the start of a message. Returns the bytes it
 * takes (0 if there is none); a lone number is taken as a piece number.
 */
static size_t parse_numbers(const char *s, size_t len, int64_t *seq, int *piece)
{
    size_t i = 1;
    int64_t a, b;
    if (len < 4 || s[0] != '[')
        return 0;
    if ((a = parse_uint(s, len, &i)) < 0 || i >= len)
        return 0;
    if (s[i] == '-') {
        i++;
        if ((b = parse_uint(s, len, &i)) <= 0 || b > INT32_MAX)
            return 0;
        *seq = a;
        *piece = (int)b;
    } else {
        if (a <= 0 || a > INT32_MAX)
            return 0;
        *seq = -1;
        *piece = (int)a;
    }
    if (i + 1 >= len || s[i] != ']' || s[i + 1] != ' ')
        return 0;
    return i + 2;
}

/* Heroku's "[COLOR] " (an upper-case name) before the numbers: its length, or 0. */
static size_t skip_color(const char *s, size_t len)
{
    size_t i = 1;
    if (len < 4 || s[0] != '[' || s[1] < 'A' || s[1] > 'Z')
        return 0;
    while (i < len && ((s[i] >= 'A' && s[i] <= 'Z') || is_digit(s[i]) || s[i] == '_'))
        i++;
    return i + 1 < len && s[i] == ']' && s[i + 1] == ' ' ? i + 2 : 0;
}

/* Match against the log_line_prefix: 1 yes, 0 no, negative on error. */
static int starts_with_prefix(syslog_parser *sp, const char *s, size_t len)
{
    ls_prefix_match m;
    return ls_prefix_match_line(sp->prefix, s, len, &m);
}

/* "Mmm dd HH:MM:SS" as local time of the latest year not more than a day ahead. */
static ls_ts rfc3164_time(const char *s, size_t len)
{
    static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    time_t now = time(NULL), t;
    struct tm tm;
    int mon, k;

    if (len < 15 || s[3] != ' ' || s[6] != ' ' || s[9] != ':' || s[12] != ':')
        return LS_TS_NONE;
    for (mon = 0; mon < 12 && memcmp(s, months + 3 * mon, 3) != 0; mon++)
        ;
    for (k = 4; k < 15; k++)
        if (k != 6 && k != 9 && k != 12 && !is_digit(s[k]) && !(k == 4 && s[k] == ' '))
            return LS_TS_NONE;
    if (mon == 12 || !localtime_r(&now, &tm))
        return LS_TS_NONE;
    tm.tm_mon = mon;
    tm.tm_mday = (s[4] == ' ' ? 0 : (s[4] - '0') * 10) + (s[5] - '0');
    tm.tm_hour = (s[7] - '0') * 10 + (s[8] - '0');
    tm.tm_min = (s[10] - '0') * 10 + (s[11] - '0');
    tm.tm_sec = (s[13] - '0') * 10 + (s[14] - '0');
    tm.tm_isdst = -1;
    if ((t = mktime(&tm)) > now + 86400) {
        tm.tm_year--;
        tm.tm_isdst = -1;
        t = mktime(&tm);
    }
    return t == (time_t)-1 ? LS_TS_NONE : (ls_ts)t * 1000000;
}

/* The header's time: RFC 3339 up to the first space, or RFC 3164. */
static ls_ts header_time(const char *line, size_t len)
{
    const char *sp = memchr(line, ' ', len);
    ls_ts ts;

    if (len >= 20 && line[4] == '-' && line[10] == 'T' && sp &&
        ls_ts_parse(&ts, line, (size_t)(sp - line)) == 0)
        return ts;
    return rfc3164_time(line, len);
}

static int split_line(syslog_parser *sp, const char *line, size_t len, syslog_msg *out)
{
    size_t tag, off = find_tag(line, len, &out->pid, &tag), n;
    if (!off)
        return 0;
    out->ts = header_time(line, tag);
    out->seq = -1;
    out->piece = 0;
    out->text = line + off;
    out->len = len - off;
    n = skip_color(out->text, out->len);
    out->text += n;
    out->len -= n;
    n = parse_numbers(out->text, out->len, &out->seq, &out->piece);
    if (n) {
        /* "[N] " could also be the start of a prefix such as '[%p] '. */
        if (out->seq < 0 && starts_with_prefix(sp, out->text, out->len) == 1) {
            out->piece = 0;
            return 1;
        }
        out->text += n;
        out->len -= n;
    }
    return 1;
}

/*
 * Undo the syslog daemon's escapes of control characters: "#" and three
 * octal digits for bytes 0-31 and 127 (rsyslog's default, e.g. #011 = TAB).
 * Other "#" stay as they are.
 */
static void unescape(ls_buf *out, const char *s, size_t len)
{
    size_t i, run = 0;
    ls_buf_reset(out);
    for (i = 0; i + 3 < len; i++) {
        const char *d = s + i + 1;
        if (s[i] != '#')
            continue;
        if ((d[0] == '0' && d[1] >= '0' && d[1] <= '3' && d[2] >= '0' && d[2] <= '7') ||
            (d[0] == '1' && d[1] == '7' && d[2] == '7')) {
            ls_buf_add(out, s + run, i - run);
            ls_buf_addc(out, (char)((d[0] - '0') * 64 + (d[1] - '0') * 8 + (d[2] - '0')));
            i += 3;
            run = i + 1;
        }
    }
    ls_buf_add(out, s + run, len - run);
}

/* How a piece goes on from the previous piece of the same message. */
typedef enum piece_kind {
    PIECE_CUT,  /* the same line, cut for length: glued on as it is */
    PIECE_LINE, /* the next line of a field (after a newline in it) */
    PIECE_NEW   /* a new prefixed line (DETAIL, CONTEXT, ...) or unknown text */
} piece_kind;

/*
 * Classify a piece of `text` (decoded) of the same message as the previous
 * piece (prev_len decoded bytes). write_syslog cuts a line at 900 bytes
 * (fewer to end on a whole character), or earlier just before the last
 * whitespace when the cut would split a word; the next piece then starts
 * with that whitespace, followed by a word that did not fit. A piece after
 * a newline starts with the log_line_prefix (each DETAIL, CONTEXT, ...
 * line has its own) or with the TAB elog.c puts after every newline inside
 * a field; Heroku's log drain writes the lines of a multi-line statement
 * with their indentation but without that TAB. Its prefix,
 * ' sql_error_code = %e ', starts with a space: so the prefix is looked
 * for first.
 */
static piece_kind piece_classify(syslog_parser *sp, size_t prev_len, const char *text, size_t len)
{
    size_t run = 0;

    if (len == 0)
        return PIECE_CUT;
    if (starts_with_prefix(sp, text, len) == 1)
        return PIECE_NEW;
    if (is_space(text[0])) {
        /* Cut before this whitespace only if no whitespace followed it in the 900. */
        while (1 + run < len && !is_space(text[1 + run]))
            run++;
        if (prev_len + 1 + run >= PIECE_FULL)
            return PIECE_CUT;
        /* Without --prefix the prefix is not known yet (the inner parser
         * infers it from the lines it is given): a severity such as
         * "DETAIL:  " near the start says a prefixed line. */
        if (text[0] != '\t' && !sp->prefix_given && ls_stderr_parser.sniff(text, len))
            return PIECE_NEW;
        return PIECE_LINE;
    }
    /* Cut inside a word: only when the previous piece was full. */
    return prev_len >= PIECE_FULL ? PIECE_CUT : PIECE_NEW;
}

/* Hand a group's lines to the inner parser and free the group. */
static int group_emit(syslog_parser *sp, group *g)
{
    const char *s, *nl, *end;
    int rc = 0;
    if (!g->used)
        return 0;
    g->used = 0;
    if (ls_buf_failed(&g->text) == LS_ENOMEM)
        return LS_ENOMEM;
    if (g->truncated && sp->sink.bad)
        sp->sink.bad(sp->sink.ctx, sp->file, g->line, "syslog message longer than 32 MiB, text cut",
                     "", 0);
    s = ls_buf_str(&g->text);
    end = s + g->text.len;
    for (;;) {
        nl = memchr(s, '\n', (size_t)(end - s));
        if ((rc = ls_stderr_feed_headed(sp->inner, s, nl ? (size_t)(nl - s) : (size_t)(end - s),
                                        g->line, g->pid, g->ts)) != 0)
            return rc;
        if (!nl)
            return 0;
        s = nl + 1;
    }
}

static group *group_of(syslog_parser *sp, int pid)
{
    int i;
    for (i = 0; i < MAX_GROUPS; i++)
        if (sp->groups[i].used && sp->groups[i].pid == pid)
            return &sp->groups[i];
    return NULL;
}

/* A free group, emitting the oldest if all are open. */
static int group_take(syslog_parser *sp, group **out)
{
    int i, oldest = 0;
    for (i = 0; i < MAX_GROUPS; i++) {
        if (!sp->groups[i].used) {
            *out = &sp->groups[i];
            return 0;
        }
        if (sp->groups[i].last_line < sp->groups[oldest].last_line)
            oldest = i;
    }
    *out = &sp->groups[oldest];
    return group_emit(sp, *out);
}

/* Emit open groups, oldest first: all, or those quiet since `before`. */
static int emit_older(syslog_parser *sp, uint64_t before, int all)
{
    int i, rc;
    for (;;) {
        group *first = NULL;
        for (i = 0; i < MAX_GROUPS; i++) {
            group *g = &sp->groups[i];
            if (g->used && (all || g->last_line < before) && (!first || g->line < first->line))
                first = g;
        }
        if (!first)
            return 0;
        if ((rc = group_emit(sp, first)) != 0)
            return rc;
    }
}

static void group_add(group *g, const char *s, size_t n, char sep)
{
    if (g->text.len + n + 1 > GROUP_MAX) {
        g->truncated = 1;
        return;
    }
    if (sep)
        ls_buf_addc(&g->text, sep);
    ls_buf_add(&g->text, s, n);
}

static int syslog_feed(void *state, const char *line, size_t len, uint64_t lineno)
{
    syslog_parser *sp = state;
    syslog_msg m;
    group *g;
    const char *text;
    size_t tlen;
    int rc;

    if (len == 0 || (len == 1 && line[0] == '\r'))
        return 0;
    if (!split_line(sp, line, len, &m)) {
        if (sp->sink.bad)
            sp->sink.bad(sp->sink.ctx, sp->file, lineno,
                         "not a syslog line (no 'ident[pid]: ' after the header)", line, len);
        return emit_older(sp, lineno > GROUP_QUIET ? lineno - GROUP_QUIET : 0, 0);
    }
    unescape(&sp->scratch, m.text, m.len);
    if (ls_buf_failed(&sp->scratch))
        return LS_ENOMEM;
    text = ls_buf_str(&sp->scratch);
    tlen = sp->scratch.len;

    g = group_of(sp, m.pid);
    if (g && m.piece > 1 && g->piece == m.piece - 1 && g->seq == m.seq &&
        g->last_line + GROUP_QUIET >= lineno) {
        /* Another piece of the same message: same line, or the next one. */
        switch (piece_classify(sp, g->piece_len, text, tlen)) {
        case PIECE_CUT:
            group_add(g, text, tlen, 0);
            break;
        case PIECE_LINE: /* a continuation line as stderr has it: '\t' first */
            if (text[0] != '\t')
                group_add(g, "\t", 1, '\n');
            group_add(g, text, tlen, text[0] == '\t' ? '\n' : 0);
            break;
        case PIECE_NEW:
            g = NULL;
            break;
        }
        if (g) {
            g->piece = m.piece;
            g->piece_len = tlen;
            g->last_line = lineno;
            return emit_older(sp, lineno > GROUP_QUIET ? lineno - GROUP_QUIET : 0, 0);
        }
    }
    /* A new line: the process's previous group is complete. */
    if ((g = group_of(sp, m.pid)) != NULL && (rc = group_emit(sp, g)) != 0)
        return rc;
    if ((rc = group_take(sp, &g)) != 0)
        return rc;
    if (!g->text.max)
        ls_buf_init(&g->text, GROUP_MAX + 64);
    ls_buf_reset(&g->text);
    g->used = 1;
    g->pid = m.pid;
    g->ts = m.ts;
    g->seq = m.seq;
    g->piece = m.piece;
    g->piece_len = tlen;
    g->line = g->last_line = lineno;
    g->truncated = 0;
    group_add(g, text, tlen, 0);
    return emit_older(sp, lineno > GROUP_QUIET ? lineno - GROUP_QUIET : 0, 0);
}

static int syslog_finish(void *state)
{
    syslog_parser *sp = state;
    int rc = emit_older(sp, 0, 1);
    return rc ? rc : ls_stderr_parser.finish(sp->inner);
}

static void syslog_destroy(void *state)
{
    syslog_parser *sp = state;
    int i;
    if (!sp)
        return;
    for (i = 0; i < MAX_GROUPS; i++)
        ls_buf_free(&sp->groups[i].text);
    ls_buf_free(&sp->scratch);
    if (sp->inner)
        ls_stderr_parser.destroy(sp->inner);
    ls_prefix_free(sp->prefix);
    free(sp->file);
    free(sp);
}

static int syslog_create(void **out, const ls_parse_opts *opts, const ls_sink *sink, char *errbuf,
                         size_t errlen)
{
    syslog_parser *sp = ls_calloc(1, sizeof(*sp));
    int rc;

    *out = NULL;
    if (!sp)
        return LS_ENOMEM;
    sp->sink = *sink;
    ls_buf_init(&sp->scratch, 0);
    sp->file = ls_strdup(opts->file ? opts->file : "-");
    if (!sp->file) {
        syslog_destroy(sp);
        return LS_ENOMEM;
    }
    sp->prefix_given = opts->prefix != NULL;
    /* The same default as the stderr parser: PostgreSQL 15's '%m [%p] '. */
    rc = ls_prefix_compile(&sp->prefix, opts->prefix ? opts->prefix : "%m [%p] ", errbuf, errlen);
    if (rc == 0 && (rc = ls_stderr_parser.create(&sp->inner, opts, sink, errbuf, errlen)) == 0)
        ls_stderr_set_headed(sp->inner);
    if (rc) {
        syslog_destroy(sp);
        return rc;
    }
    *out = sp;
    return 0;
}

/* "Mmm dd HH:MM:SS " (RFC 3164) or "YYYY-MM-DDTHH:MM:SS" (RFC 3339) first. */
static int has_syslog_time(const char *s, size_t len)
{
    static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    size_t i;
    if (len >= 16 && s[3] == ' ' && s[6] == ' ' && s[9] == ':' && s[12] == ':') {
        for (i = 0; i < 36; i += 3)
            if (memcmp(s, months + i, 3) == 0)
                return (s[4] == ' ' || is_digit(s[4])) && is_digit(s[5]);
        return 0;
    }
    return len >= 20 && is_digit(s[0]) && is_digit(s[3]) && s[4] == '-' && s[7] == '-' &&
           s[10] == 'T' && s[13] == ':' && s[16] == ':';
}

/*
 * Sure (80, above stderr's 50) when the line has a syslog timestamp and a
 * "postgres[pid]: " tag, or any "ident[pid]: [N-M] " (PostgreSQL's own
 * numbering); fairly sure (70) with a timestamp, another ident and a
 * PostgreSQL severity in the message.
 */
static int syslog_sniff(const char *line, size_t len)
{
    int pid;
    size_t tag, off = find_tag(line, len, &pid, &tag), i;
    if (!off)
        return 0;
    i = off + skip_color(line + off, len - off);
    if (i + 1 < len && line[i] == '[') {
        i++;
        if (parse_uint(line, len, &i) >= 0 && i < len && line[i] == '-') {
            i++;
            if (parse_uint(line, len, &i) > 0 && i + 1 < len && line[i] == ']' &&
                line[i + 1] == ' ')
                return 80;
        }
    }
    if (!has_syslog_time(line, len))
        return 0;
    if (off - tag >= 9 && memcmp(line + tag, "postgres[", 9) == 0)
        return 80;
    return ls_stderr_parser.sniff(line + off, len - off) ? 70 : 0;
}

const ls_parser_ops ls_syslog_parser = {
    "syslog", syslog_sniff, syslog_create, syslog_feed, syslog_finish, syslog_destroy,
};
