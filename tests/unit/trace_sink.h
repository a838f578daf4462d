/*
 * trace_sink.h — a sink for the trace parser tests that copies every span,
 * bad line and note, and a driver that feeds a text line by line.
 */
#ifndef TRACE_SINK_H
#define TRACE_SINK_H

#include <stdlib.h>
#include <string.h>

#include "../../parsers/tracejson.h"
#include "ls_input.h"
#include "ls_parser.h"

#define TS_MAX 64

typedef struct ts_span {
    ls_span sp; /* string members point at the copies below */
    char *s[18];
} ts_span;

typedef struct ts_sink {
    ts_span spans[TS_MAX]; /* the first TS_MAX spans */
    int n;
    /* over every span */
    long total, with_parent, with_statement, with_function, with_route, with_pid, errors;
    long long sum_us; /* of end - start */
    uint64_t bad_line[TS_MAX];
    char *bad_reason[TS_MAX];
    char *bad_text[TS_MAX];
    int nbad;
    char *notes[TS_MAX];
    int nnotes;
} ts_sink;

static char *ts_dup(const char *s)
{
    return s ? strdup(s) : NULL;
}

static int ts_on_span(void *ctx, const ls_span *sp)
{
    ts_sink *c = ctx;
    ts_span *g = &c->spans[c->n < TS_MAX ? c->n : 0];
    const char **const f[18] = {
        &g->sp.file,         &g->sp.format,         &g->sp.name,          &g->sp.service,
        &g->sp.db_system,    &g->sp.db_statement,   &g->sp.db_name,       &g->sp.db_operation,
        &g->sp.code_function, &g->sp.code_namespace, &g->sp.code_filepath, &g->sp.http_route,
        &g->sp.http_method,  &g->sp.http_url,       &g->sp.peer_service,  &g->sp.attributes,
        &g->sp.url_path,     NULL,
    };
    int i;
    c->total++;
    c->with_parent += sp->parent_id[0] != '\0';
    c->with_statement += sp->db_statement != NULL;
    c->with_function += sp->code_function != NULL;
    c->with_route += sp->http_route != NULL;
    c->with_pid += sp->db_pid > 0;
    c->errors += sp->error;
    if (sp->start != LS_TS_NONE && sp->end != LS_TS_NONE)
        c->sum_us += sp->end - sp->start;
    if (strlen(sp->trace_id) != 32 || strlen(sp->span_id) != 16)
        c->errors += 1000000; /* breaks the contract: fails every count check */
    if (c->n >= TS_MAX)
        return 0;
    c->n++;
    g->sp = *sp;
    for (i = 0; f[i]; i++) {
        /* f[] holds addresses inside g->sp; the pointers there still point
         * at the parser's strings, which die after this call. */
        g->s[i] = ts_dup(*f[i]);
        *f[i] = g->s[i];
    }
    return 0;
}

static void ts_on_bad(void *ctx, const char *file, uint64_t line, const char *reason,
                      const char *text, size_t len)
{
    ts_sink *c = ctx;
    (void)file;
    if (c->nbad >= TS_MAX)
        return;
    c->bad_line[c->nbad] = line;
    c->bad_reason[c->nbad] = strdup(reason);
    c->bad_text[c->nbad] = strndup(text, len);
    c->nbad++;
}

static void ts_on_note(void *ctx, const char *file, uint64_t line, const char *msg)
{
    ts_sink *c = ctx;
    char s[1024];
    (void)file;
    snprintf(s, sizeof(s), "line %llu: %s", (unsigned long long)line, msg);
    if (c->nnotes < TS_MAX)
        c->notes[c->nnotes++] = strdup(s);
}

static int ts_on_record(void *ctx, const ls_record *r)
{
    (void)ctx;
    (void)r;
    return 0;
}

static void ts_free(ts_sink *c)
{
    int i, j;
    for (i = 0; i < c->n; i++)
        for (j = 0; j < 18; j++)
            free(c->spans[i].s[j]);
    for (i = 0; i < c->nbad; i++) {
        free(c->bad_reason[i]);
        free(c->bad_text[i]);
    }
    for (i = 0; i < c->nnotes; i++)
        free(c->notes[i]);
    memset(c, 0, sizeof(*c));
}

/* Whether a note holds `part`. */
static int ts_has_note(const ts_sink *c, const char *part)
{
    int i;
    for (i = 0; i < c->nnotes; i++)
        if (strstr(c->notes[i], part))
            return 1;
    return 0;
}

/*
 * Feed `text` (len bytes; lines split on '\n') to a new parser of `ops`
 * with a document bound of doc_max (0 = default), then finish. Returns the
 * first negative code, else 0.
 */
static int ts_run_n(ts_sink *c, const ls_parser_ops *ops, const char *text, size_t len,
                    size_t doc_max)
{
    ls_sink sink = {.record = ts_on_record, .bad = ts_on_bad, .note = ts_on_note, .ctx = c, .span = ts_on_span};
    ls_parse_opts opts = {.file = "test.json", .prefix = NULL};
    char err[128];
    void *st;
    uint64_t lineno = 0;
    size_t i = 0;
    int rc;

    memset(c, 0, sizeof(*c));
    rc = ops->create(&st, &opts, &sink, err, sizeof(err));
    if (rc)
        return rc;
    if (doc_max)
        ls_trace_parser_set_doc_max(st, doc_max);
    while (i < len && rc == 0) {
        size_t j = i;
        while (j < len && text[j] != '\n')
            j++;
        rc = ops->feed(st, text + i, j - i, ++lineno);
        i = j + 1;
    }
    if (rc == 0)
        rc = ops->finish(st);
    ops->destroy(st);
    return rc;
}

/*
 * As ts_run_n with the default bound, but each line is fed in pieces of
 * `piece` bytes (ls_tj_feed_part), as the input layer feeds a line over
 * LS_LINE_MAX.
 */
static inline int ts_run_pieces(ts_sink *c, const ls_parser_ops *ops, const char *text, size_t len,
                         size_t piece)
{
    ls_sink sink = {.record = ts_on_record, .bad = ts_on_bad, .note = ts_on_note, .ctx = c, .span = ts_on_span};
    ls_parse_opts opts = {.file = "test.json", .prefix = NULL};
    char err[128];
    void *st;
    uint64_t lineno = 0;
    size_t i = 0;
    int rc;

    memset(c, 0, sizeof(*c));
    rc = ops->create(&st, &opts, &sink, err, sizeof(err));
    while (rc == 0 && i < len) {
        size_t j = i, k;
        while (j < len && text[j] != '\n')
            j++;
        lineno++;
        for (k = i; rc == 0 && (k < j || k == i); k += piece) {
            size_t n = j - k < piece ? j - k : piece;
            rc = ls_tj_feed_part(st, text + k, n, lineno, k + n < j);
        }
        i = j + 1;
    }
    if (rc == 0)
        rc = ops->finish(st);
    ops->destroy(st);
    return rc;
}

static int ts_run(ts_sink *c, const ls_parser_ops *ops, const char *text)
{
    return ts_run_n(c, ops, text, strlen(text), 0);
}

/*
 * Read the file `name` beside this test's source, in ../../samples/app/,
 * through the input layer (gzip too). Returns 1 when read, 0 when the
 * file is not there (the sample set is optional), -1 on failure.
 */
static int ts_run_sample(ts_sink *c, const ls_parser_ops *ops, const char *name)
{
    ls_sink sink = {.record = ts_on_record, .bad = ts_on_bad, .note = ts_on_note, .ctx = c, .span = ts_on_span};
    char path[4096], err[256];
    const char *src = __FILE__, *slash = strrchr(src, '/'), *line;
    ls_parse_opts opts = {.file = NULL};
    ls_input *in;
    void *st;
    size_t len;
    uint64_t lineno;
    int truncated, rc;

    memset(c, 0, sizeof(*c));
    if (!slash)
        return 0;
    snprintf(path, sizeof(path), "%.*s/../../samples/app/%s", (int)(slash - src), src, name);
    if (ls_input_open(&in, path, err, sizeof(err)) != 0)
        return 0;
    opts.file = path;
    rc = ops->create(&st, &opts, &sink, err, sizeof(err));
    if (rc) {
        ls_input_close(in);
        return -1;
    }
    while ((rc = ls_input_next_line(in, &line, &len, &lineno, &truncated, err, sizeof(err))) == 1)
        if (ops->feed(st, line, len, lineno) != 0)
            break;
    if (rc == 0)
        rc = ops->finish(st);
    ops->destroy(st);
    ls_input_close(in);
    return rc == 0 ? 1 : -1;
}

/* The same run exported in two formats gives the same spans: counts equal,
 * durations within 1 µs a span (exporters round nanoseconds apart). */
static void ts_check_same_run(const ts_sink *a, const ts_sink *b)
{
    long long d = a->sum_us - b->sum_us;
    CHECK_INT(a->total, b->total);
    CHECK_INT(a->with_parent, b->with_parent);
    CHECK_INT(a->with_statement, b->with_statement);
    CHECK_INT(a->with_function, b->with_function);
    CHECK_INT(a->with_route, b->with_route);
    CHECK_INT(a->with_pid, b->with_pid);
    CHECK_INT(a->errors, b->errors);
    CHECK((d < 0 ? -d : d) <= a->total);
}

#endif
