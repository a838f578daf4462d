/*
 * csvlog.c — parser for PostgreSQL's csvlog format (utils/error/csvlog.c).
 *
 * One record per log event, RFC 4180 style: fields separated by ',', a
 * field that is quoted has '"' doubled inside and keeps raw newlines. The
 * framing layer hands over lines without their '\n', so a record goes on
 * across lines while a quote is open and the '\n' is put back.
 *
 * PostgreSQL writes NULL as an empty unquoted field and an empty string as
 * "", so the two are told apart: NULL stays NULL in the ls_record.
 *
 * The column count depends on the server version: 26 (PostgreSQL 14-17),
 * 24 (13: no leader_pid, query_id), 23 (12: no backend_type either). The
 * first record of a file with one of these counts fixes it; a record with
 * another count is a bad line. Only one record is held at a time, at most
 * RECORD_MAX bytes of it: a longer field is cut there (and reported, as
 * stderr.c does), the fields after it still fit in RECORD_SLACK.
 *
 * An unbalanced quote (a file cut in the middle of a record) makes the rest
 * of the file one field until RECORD_MAX; PostgreSQL itself always closes
 * its quotes, so this only happens at a truncated end, reported by finish.
 */
#include <stdlib.h>
#include <string.h>

#include "ls_buf.h"
#include "ls_common.h"
#include "ls_parser.h"

#define RECORD_MAX (32u * 1024u * 1024u)
#define RECORD_SLACK (64u * 1024u)
#define MAX_FIELDS 26
#define SAMPLE_MAX 300

/* Column positions; the same in the 23-, 24- and 26-column layouts. */
enum {
    C_LOG_TIME,
    C_USER,
    C_DB,
    C_PID,
    C_CONN_FROM,
    C_SESSION_ID,
    C_SESSION_LINE,
    C_TAG,
    C_SESSION_START,
    C_VXID,
    C_XID,
    C_SEVERITY,
    C_SQLSTATE,
    C_MESSAGE,
    C_DETAIL,
    C_HINT,
    C_INTERNAL_QUERY,
    C_INTERNAL_QUERY_POS,
    C_CONTEXT,
    C_QUERY,
    C_QUERY_POS,
    C_LOCATION,
    C_APP,
    C_BTYPE /* 24 and 26 columns only */
};

typedef struct csv_parser {
    char *file;
    ls_sink sink;
    int ncols; /* fixed by the first good record; 0 before */

    /* The record being read. */
    int open;         /* a record has started and not ended */
    int in_quotes;    /* inside a quoted field: a newline is data */
    uint64_t line;    /* first line of the record */
    int nfields;      /* fields ended so far (may pass MAX_FIELDS) */
    size_t field_off; /* where the current field starts in text */
    int field_quoted; /* the current field started with '"' */
    size_t off[MAX_FIELDS];
    int is_null[MAX_FIELDS];
    ls_buf text;             /* field contents, each NUL-terminated */
    int truncated;           /* text was cut to stay under RECORD_MAX */
    char sample[SAMPLE_MAX]; /* the record's first line, for bad-line reports */
    size_t sample_len;
    ls_ts_cache ts_cache; /* log_time: only the fraction changes, mostly */
} csv_parser;

static void bad(csv_parser *cp, uint64_t line, const char *reason, const char *text, size_t len)
{
    if (cp->sink.bad)
        cp->sink.bad(cp->sink.ctx, cp->file, line, reason, text, len);
}

/*
 * Append field bytes. The field that passes RECORD_MAX is cut there; fields
 * that start after the cut may still use RECORD_SLACK so that the short
 * trailing columns (application_name, backend_type) survive.
 */
static void text_add(csv_parser *cp, const char *s, size_t n)
{
    size_t limit = cp->field_off >= RECORD_MAX ? RECORD_MAX + RECORD_SLACK : RECORD_MAX;
    if (cp->text.len + n > limit) {
        cp->truncated = 1;
        n = cp->text.len < limit ? limit - cp->text.len : 0;
    }
    if (n)
        ls_buf_add(&cp->text, s, n);
}

static void record_start(csv_parser *cp, const char *line, size_t len, uint64_t lineno)
{
    ls_buf_reset(&cp->text);
    cp->open = 1;
    cp->in_quotes = cp->field_quoted = 0;
    cp->line = lineno;
    cp->nfields = 0;
    cp->field_off = 0;
    cp->truncated = 0;
    cp->sample_len = len < SAMPLE_MAX ? len : SAMPLE_MAX;
    memcpy(cp->sample, line, cp->sample_len);
}

static void field_end(csv_parser *cp)
{
    if (cp->nfields < MAX_FIELDS) {
        cp->off[cp->nfields] = cp->field_off;
        cp->is_null[cp->nfields] = !cp->field_quoted && cp->text.len == cp->field_off;
        /* The NUL is outside the size limit: the buffer's max has room. */
        ls_buf_addc(&cp->text, '\0');
    } else {
        cp->text.len = cp->field_off; /* an extra column: count it, drop it */
    }
    cp->nfields++;
    cp->field_off = cp->text.len;
    cp->field_quoted = 0;
}

static const char *field(const csv_parser *cp, int i)
{
    if (i >= cp->ncols || cp->is_null[i])
        return NULL;
    return ls_buf_str(&cp->text) + cp->off[i];
}

static int64_t field_int(const csv_parser *cp, int i)
{
    const char *s = field(cp, i);
    int64_t v = 0;
    int n = 0;
    if (!s || !*s)
        return -1;
    for (; *s >= '0' && *s <= '9' && n < 18; s++, n++)
        v = v * 10 + (*s - '0');
    return *s ? -1 : v;
}

/* Column i as a time; through `cache` when given (log_time: only the
 * fraction changes from record to record, mostly). */
static ls_ts field_ts(const csv_parser *cp, int i, ls_ts_cache *cache)
{
    const char *s = field(cp, i);
    ls_ts ts;
    if (!s || !*s ||
        (cache ? ls_ts_parse_cached(cache, &ts, s, strlen(s)) : ls_ts_parse(&ts, s, strlen(s))) != 0)
        return LS_TS_NONE;
    return ts;
}

/* The record is complete: check its shape, map the columns, emit it. */
static int record_end(csv_parser *cp)
{
    ls_record r;
    const char *st;
    int64_t v;

    cp->open = 0;
    if (ls_buf_failed(&cp->text) == LS_ENOMEM)
        return LS_ENOMEM;
    /* A CRLF file: the last field is unquoted and ends with '\r'. */
    if (cp->nfields > 0 && cp->nfields <= MAX_FIELDS && !cp->is_null[cp->nfields - 1]) {
        size_t o = cp->off[cp->nfields - 1], n = strlen(cp->text.ptr + o);
        if (n > 0 && cp->text.ptr[o + n - 1] == '\r')
            cp->text.ptr[o + n - 1] = '\0';
    }
    if (cp->ncols == 0 && (cp->nfields == 23 || cp->nfields == 24 || cp->nfields == 26))
        cp->ncols = cp->nfields;
    if (cp->nfields != cp->ncols) {
        bad(cp, cp->line,
            cp->ncols ? "csvlog record with a different number of columns than the first"
                      : "not a csvlog record (23, 24 or 26 columns expected)",
            cp->sample, cp->sample_len);
        return 0;
    }

    memset(&r, 0, sizeof(r));
    r.file = cp->file;
    r.line = cp->line;
    r.ts = field_ts(cp, C_LOG_TIME, &cp->ts_cache);
    v = field_int(cp, C_PID);
    r.pid = v > 0 && v <= INT32_MAX ? (int)v : 0;
    r.session_id = field(cp, C_SESSION_ID);
    r.session_line = field_int(cp, C_SESSION_LINE);
    r.session_start = field_ts(cp, C_SESSION_START, NULL);
    r.user = field(cp, C_USER);
    r.database = field(cp, C_DB);
    r.application = field(cp, C_APP);
    r.remote = field(cp, C_CONN_FROM);
    r.backend_type = field(cp, C_BTYPE); /* NULL with 23 columns */
    r.command_tag = field(cp, C_TAG);
    r.vxid = field(cp, C_VXID);
    v = field_int(cp, C_XID);
    r.xid = v > 0 && v <= UINT32_MAX ? (uint32_t)v : 0;
    st = field(cp, C_SQLSTATE);
    if (st && strlen(st) == 5)
        memcpy(r.sqlstate, st, 6);
    r.severity = field(cp, C_SEVERITY);
    r.message = field(cp, C_MESSAGE);
    r.detail = field(cp, C_DETAIL);
    r.hint = field(cp, C_HINT);
    r.query = field(cp, C_INTERNAL_QUERY);
    r.context = field(cp, C_CONTEXT);
    r.statement = field(cp, C_QUERY);
    r.location = field(cp, C_LOCATION);
    r.strings = ls_buf_str(&cp->text);
    r.strings_len = cp->text.len;
    if (cp->truncated)
        bad(cp, cp->line, "record longer than 32 MiB, text cut", "", 0);
    return cp->sink.record(cp->sink.ctx, &r);
}

static int csv_feed(void *state, const char *line, size_t len, uint64_t lineno)
{
    csv_parser *cp = state;
    const char *p = line, *end = line + len;

    if (!cp->open) {
        if (len == 0 || (len == 1 && line[0] == '\r'))
            return 0;
        record_start(cp, line, len, lineno);
    } else {
        /* Still inside a quoted field: the framing ate its newline. */
        text_add(cp, "\n", 1);
    }
    while (p < end) {
        if (cp->in_quotes) {
            const char *q = memchr(p, '"', (size_t)(end - p));
            if (!q) {
                text_add(cp, p, (size_t)(end - p));
                p = end;
                break;
            }
            text_add(cp, p, (size_t)(q - p));
            if (q + 1 < end && q[1] == '"') {
                text_add(cp, "\"", 1);
                p = q + 2;
            } else {
                cp->in_quotes = 0;
                p = q + 1;
            }
            continue;
        }
        if (*p == ',') {
            field_end(cp);
            p++;
            continue;
        }
        if (*p == '"' && cp->text.len == cp->field_off && !cp->field_quoted) {
            cp->in_quotes = cp->field_quoted = 1;
            p++;
            continue;
        }
        {
            /* Unquoted text, or stray text after a closing quote: keep it. */
            const char *c = memchr(p, ',', (size_t)(end - p));
            const char *stop = c ? c : end;
            text_add(cp, p, (size_t)(stop - p));
            p = stop;
        }
    }
    if (cp->in_quotes)
        return 0; /* the record goes on on the next line */
    field_end(cp);
    return record_end(cp);
}

static int csv_finish(void *state)
{
    csv_parser *cp = state;
    if (cp->open) {
        cp->open = 0;
        bad(cp, cp->line, "csvlog record not finished: the file ends inside a quoted field",
            cp->sample, cp->sample_len);
    }
    return 0;
}

static void csv_destroy(void *state)
{
    csv_parser *cp = state;
    if (!cp)
        return;
    ls_buf_free(&cp->text);
    free(cp->file);
    free(cp);
}

static int csv_create(void **out, const ls_parse_opts *opts, const ls_sink *sink, char *errbuf,
                      size_t errlen)
{
    csv_parser *cp = ls_calloc(1, sizeof(*cp));

    (void)errbuf;
    (void)errlen;
    *out = NULL;
    if (!cp)
        return LS_ENOMEM;
    cp->sink = *sink;
    /* Room for the cut field, the slack after it and one NUL per column. */
    ls_buf_init(&cp->text, RECORD_MAX + RECORD_SLACK + MAX_FIELDS + 1);
    cp->file = ls_strdup(opts->file ? opts->file : "-");
    if (!cp->file) {
        csv_destroy(cp);
        return LS_ENOMEM;
    }
    *out = cp;
    return 0;
}

/* "YYYY-MM-DD HH:MM:SS[.fff] ZONE," at the start of the line: log_time. */
static int csv_sniff(const char *line, size_t len)
{
    static const char shape[] = "dddd-dd-dd dd:dd:dd";
    size_t i, n = sizeof(shape) - 1, zone;
    int quoted = len > 0 && line[0] == '"';

    /* A log re-saved by a CSV tool may quote the timestamp: "2026-...". */
    line += quoted;
    len -= (size_t)quoted;
    if (len < n + 3)
        return 0;
    for (i = 0; i < n; i++) {
        if (shape[i] == 'd' ? (line[i] < '0' || line[i] > '9') : line[i] != shape[i])
            return 0;
    }
    if (line[i] == '.') {
        for (i++; i < len && line[i] >= '0' && line[i] <= '9'; i++)
            ;
    }
    if (i >= len || line[i] != ' ')
        return 0;
    for (zone = ++i; i < len && line[i] != ',' && line[i] != ' ' && line[i] != '"'; i++)
        ;
    if (quoted && i < len && line[i] == '"')
        i++;
    else if (quoted)
        return 0;
    return i > zone + (size_t)quoted && i < len && line[i] == ',' ? 90 : 0;
}

const ls_parser_ops ls_csvlog_parser = {
    "csvlog", csv_sniff, csv_create, csv_feed, csv_finish, csv_destroy,
};
