/*
 * activity.c — parser for pg_stat_activity snapshots saved as CSV with a
 * header line, as the query in the README writes them:
 *
 *   now,pid,state,wait_event_type,wait_event,xact_start,query_start,
 *   backend_start,pg_blocking_pids,query
 *
 * Columns are found by the header's names, so extra or reordered columns
 * are fine. Fields follow RFC 4180 (COPY ... CSV): quotes doubled, and a
 * quoted field may hold newlines, so a row can span lines.
 */
#include <stdlib.h>
#include <string.h>

#include "ls_buf.h"
#include "ls_common.h"
#include "ls_parser.h"

#define MAX_COLS 32
#define ROW_MAX (4u * 1024u * 1024u)

enum { A_NOW, A_PID, A_STATE, A_WTYPE, A_WEVENT, A_XACT, A_QUERY_START, A_BACKEND, A_BLOCKING,
       A_QUERY, A__COUNT };

static const char *const col_names[A__COUNT] = {
    "now",        "pid",         "state",         "wait_event_type",  "wait_event",
    "xact_start", "query_start", "backend_start", "pg_blocking_pids", "query"};

typedef struct act_parser {
    char *file;
    ls_sink sink;
    int col[A__COUNT];    /* column of each field; -1 if absent; set by the header */
    int have_header;
    ls_buf row;           /* the row so far, lines joined with '\n' */
    uint64_t row_line;
    int in_quotes;
    size_t off[MAX_COLS]; /* field starts in `fields` after splitting */
    int nfields;
    ls_buf fields;
} act_parser;

/* Split the row into NUL-terminated unquoted fields. */
static void split(act_parser *ap)
{
    const char *p = ls_buf_str(&ap->row), *end = p + ap->row.len;
    int q = 0;
    ls_buf_reset(&ap->fields);
    ap->nfields = 0;
    ap->off[0] = 0;
    for (; p <= end; p++) {
        if (p == end || (*p == ',' && !q)) {
            ls_buf_addc(&ap->fields, '\0');
            if (ap->nfields < MAX_COLS - 1)
                ap->off[++ap->nfields] = ap->fields.len;
            continue;
        }
        if (*p == '"') {
            if (q && p + 1 < end && p[1] == '"') {
                ls_buf_addc(&ap->fields, '"');
                p++;
            } else {
                q = !q;
            }
            continue;
        }
        ls_buf_addc(&ap->fields, *p);
    }
}

static const char *field(const act_parser *ap, int which)
{
    int c = ap->col[which];
    if (c < 0 || c >= ap->nfields)
        return NULL;
    return ls_buf_str(&ap->fields) + ap->off[c];
}

static ls_ts field_ts(const act_parser *ap, int which)
{
    const char *s = field(ap, which);
    ls_ts t;
    if (!s || !*s || ls_ts_parse(&t, s, strlen(s)) != 0)
        return LS_TS_NONE;
    return t;
}

static int row_end(act_parser *ap)
{
    ls_activity a;
    char blocking[256];
    const char *b, *pid;
    size_t k = 0;
    int i;

    split(ap);
    if (ls_buf_failed(&ap->fields) == LS_ENOMEM)
        return LS_ENOMEM;
    if (!ap->have_header) {
        for (i = 0; i < A__COUNT; i++) {
            int c;
            ap->col[i] = -1;
            for (c = 0; c < ap->nfields; c++)
                if (strcmp(ls_buf_str(&ap->fields) + ap->off[c], col_names[i]) == 0)
                    ap->col[i] = c;
        }
        ap->have_header = 1;
        if (ap->col[A_NOW] < 0 || ap->col[A_PID] < 0) {
            if (ap->sink.bad)
                ap->sink.bad(ap->sink.ctx, ap->file, ap->row_line,
                             "snapshot header lacks the now and pid columns", ls_buf_str(&ap->row),
                             ap->row.len);
            return LS_EFORMAT;
        }
        return 0;
    }
    memset(&a, 0, sizeof(a));
    a.file = ap->file;
    a.line = ap->row_line;
    a.ts = field_ts(ap, A_NOW);
    pid = field(ap, A_PID);
    if (pid && *pid) {
        char *end;
        long v = strtol(pid, &end, 10);
        a.pid = *end == '\0' && v > 0 && v <= INT32_MAX ? (int)v : 0;
    }
    if (a.ts == LS_TS_NONE || a.pid <= 0) {
        if (ap->sink.bad)
            ap->sink.bad(ap->sink.ctx, ap->file, ap->row_line,
                         "snapshot row without a time or pid", ls_buf_str(&ap->row), ap->row.len);
        return 0;
    }
    a.state = field(ap, A_STATE);
    a.wait_event_type = field(ap, A_WTYPE);
    a.wait_event = field(ap, A_WEVENT);
    if (a.wait_event_type && !*a.wait_event_type)
        a.wait_event_type = NULL;
    if (a.wait_event && !*a.wait_event)
        a.wait_event = NULL;
    a.xact_start = field_ts(ap, A_XACT);
    a.query_start = field_ts(ap, A_QUERY_START);
    a.backend_start = field_ts(ap, A_BACKEND);
    /* "{1,2}" → "1,2" */
    for (b = field(ap, A_BLOCKING); b && *b && k + 1 < sizeof(blocking); b++)
        if (*b != '{' && *b != '}')
            blocking[k++] = *b;
    blocking[k] = '\0';
    a.blocking_pids = blocking;
    a.query = field(ap, A_QUERY);
    return ap->sink.activity ? ap->sink.activity(ap->sink.ctx, &a) : 0;
}

static int act_feed(void *state, const char *line, size_t len, uint64_t lineno)
{
    act_parser *ap = state;
    size_t i;
    if (ap->row.len == 0 && !ap->in_quotes) {
        if (len == 0)
            return 0;
        ap->row_line = lineno;
    } else {
        ls_buf_addc(&ap->row, '\n');
    }
    if (ap->row.len + len > ROW_MAX) {
        if (ap->sink.bad)
            ap->sink.bad(ap->sink.ctx, ap->file, ap->row_line, "snapshot row over 4 MiB", line,
                         len);
        ls_buf_reset(&ap->row);
        ap->in_quotes = 0;
        return 0;
    }
    ls_buf_add(&ap->row, line, len);
    for (i = 0; i < len; i++)
        if (line[i] == '"')
            ap->in_quotes = !ap->in_quotes;
    if (ap->in_quotes)
        return 0;
    {
        int rc = row_end(ap);
        ls_buf_reset(&ap->row);
        return rc;
    }
}

static int act_finish(void *state)
{
    act_parser *ap = state;
    if (ap->row.len && ap->sink.bad)
        ap->sink.bad(ap->sink.ctx, ap->file, ap->row_line,
                     "snapshot row not finished: the file ends inside a quoted field",
                     ls_buf_str(&ap->row), ap->row.len);
    return 0;
}

static void act_destroy(void *state)
{
    act_parser *ap = state;
    if (!ap)
        return;
    ls_buf_free(&ap->row);
    ls_buf_free(&ap->fields);
    free(ap->file);
    free(ap);
}

static int act_create(void **out, const ls_parse_opts *opts, const ls_sink *sink, char *errbuf,
                      size_t errlen)
{
    act_parser *ap = ls_calloc(1, sizeof(*ap));
    (void)errbuf;
    (void)errlen;
    *out = NULL;
    if (!ap)
        return LS_ENOMEM;
    ap->sink = *sink;
    ls_buf_init(&ap->row, ROW_MAX + 16);
    ls_buf_init(&ap->fields, ROW_MAX + 16);
    ap->file = ls_strdup(opts->file ? opts->file : "-");
    if (!ap->file) {
        act_destroy(ap);
        return LS_ENOMEM;
    }
    *out = ap;
    return 0;
}

/* The header the README's query writes; other column orders still match. */
static int act_sniff(const char *line, size_t len)
{
    static const char head[] = "now,pid,";
    return len >= sizeof(head) - 1 && memcmp(line, head, sizeof(head) - 1) == 0 &&
                   memchr(line, 's', len) && len < 400
               ? 95
               : 0;
}

const ls_parser_ops ls_activity_parser = {
    "activity", act_sniff, act_create, act_feed, act_finish, act_destroy,
};
