/*
 * jaeger.c — parser for Jaeger JSON: the query service's /api/traces
 * response and the UI's "Download JSON", {"data":[trace, ...]}, where a
 * trace is {"traceID","spans":[...],"processes":{"p1":{"serviceName",
 * "tags"}}}; also JSON Lines of such trace objects, and a top-level array
 * of them (the "data" array saved alone, as jq '.data' and scripts do). Framing and the size
 * bound are in tracejson.c.
 *
 * A span's parent is its CHILD_OF reference within the same trace, else its
 * FOLLOWS_FROM reference, else the older parentSpanID field. Jaeger ids are
 * 64 or 128 bits, written as 16 or 32 hex digits (sometimes without leading
 * zeros): they are left-padded to 32 (trace) and 16 (span) digits. Times
 * are microseconds. The span.kind tag gives the kind; error=true (the bool
 * or its text) or otel.status_code=ERROR marks an error. Every tag lands in
 * the attributes text with its value's JSON type; process tags do not.
 */
#include <string.h>

#include "tracejson.h"

static const char *const kind_names[] = {
    "unspecified", "internal", "server", "client", "producer", "consumer",
};

static ls_span_kind kind_of(const char *s)
{
    size_t i;
    for (i = 1; s && i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
        if (strcmp(s, kind_names[i]) == 0)
            return (ls_span_kind)i;
    return LS_SPAN_UNSPECIFIED;
}

static int is_true(const cJSON *v)
{
    return cJSON_IsTrue(v) || (cJSON_IsString(v) && strcmp(v->valuestring, "true") == 0);
}

/*
 * The parent's span id from the references; 0 when there is none. A
 * reference into another trace is no parent here.
 */
static int parent_of(ls_tj *tj, const cJSON *span, char parent[17])
{
    static const char *const types[] = {"CHILD_OF", "FOLLOWS_FROM"};
    const cJSON *refs = cJSON_GetObjectItemCaseSensitive(span, "references"), *ref;
    size_t t;
    for (t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
        cJSON_ArrayForEach(ref, ls_tj_array(refs))
        {
            const char *rt = ls_tj_str(ref, "refType");
            char tid[33];
            if (!rt || strcmp(rt, types[t]) != 0)
                continue;
            if (ls_tj_id(tj, tid, 32, cJSON_GetObjectItemCaseSensitive(ref, "traceID")) > 0 &&
                tj->sp.trace_id[0] && strcmp(tid, tj->sp.trace_id) != 0)
                continue;
            return ls_tj_id(tj, parent, 16, cJSON_GetObjectItemCaseSensitive(ref, "spanID"));
        }
    }
    return ls_tj_id(tj, parent, 16, cJSON_GetObjectItemCaseSensitive(span, "parentSpanID"));
}

static int one_span(ls_tj *tj, const cJSON *span, const cJSON *trace, uint64_t line)
{
    const cJSON *tags, *tag, *process, *tid;
    ls_span *sp = &tj->sp;
    int64_t start, dur;
    int rc;

    if (!cJSON_IsObject(span)) {
        ls_tj_bad_span(tj, "Jaeger span is not a JSON object", span);
        return 0;
    }
    ls_tj_span_begin(tj, "jaeger", line);
    tid = cJSON_GetObjectItemCaseSensitive(span, "traceID");
    if (ls_tj_id(tj, sp->trace_id, 32, tid ? tid : cJSON_GetObjectItemCaseSensitive(trace, "traceID")) < 0) {
        ls_tj_bad_span(tj, "Jaeger span whose traceID is not 16 or 32 hex digits", span);
        return 0;
    }
    if (ls_tj_id(tj, sp->span_id, 16, cJSON_GetObjectItemCaseSensitive(span, "spanID")) <= 0) {
        ls_tj_bad_span(tj, "Jaeger span without a spanID of 16 hex digits", span);
        return 0;
    }
    if (parent_of(tj, span, sp->parent_id) < 0) {
        ls_tj_bad_span(tj, "Jaeger span whose parent reference is not 16 hex digits", span);
        return 0;
    }
    sp->name = ls_tj_str(span, "operationName");
    start = ls_tj_uint(cJSON_GetObjectItemCaseSensitive(span, "startTime"));
    dur = ls_tj_uint(cJSON_GetObjectItemCaseSensitive(span, "duration"));
    if (start > 0) {
        sp->start = start;
        if (dur >= 0 && dur <= INT64_MAX - start)
            sp->end = start + dur;
    }

    process = cJSON_GetObjectItemCaseSensitive(span, "process");
    if (!cJSON_IsObject(process)) {
        const char *pid = ls_tj_str(span, "processID");
        process = pid ? cJSON_GetObjectItemCaseSensitive(
                            cJSON_GetObjectItemCaseSensitive(trace, "processes"), pid)
                      : NULL;
    }
    sp->service = ls_tj_str(process, "serviceName");

    tags = cJSON_GetObjectItemCaseSensitive(span, "tags");
    cJSON_ArrayForEach(tag, ls_tj_array(tags))
    {
        const char *key = ls_tj_str(tag, "key");
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(tag, "value");
        if (!key)
            continue;
        if (strcmp(key, "span.kind") == 0 && cJSON_IsString(v))
            sp->kind = kind_of(v->valuestring);
        else if (strcmp(key, "error") == 0 && is_true(v))
            sp->error = 1;
        else if (strcmp(key, "otel.status_code") == 0 && cJSON_IsString(v) &&
                 strcmp(v->valuestring, "ERROR") == 0)
            sp->error = 1;
        rc = ls_tj_attr(tj, key, v, 0);
        if (rc < 0)
            return rc;
    }
    return ls_tj_span_emit(tj, span);
}

static int one_trace(ls_tj *tj, const cJSON *trace, uint64_t line)
{
    const cJSON *spans = cJSON_GetObjectItemCaseSensitive(trace, "spans"), *span;
    int rc;
    cJSON_ArrayForEach(span, ls_tj_array(spans))
    {
        rc = one_span(tj, span, trace, line);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int ls_jaeger_walk(ls_tj *tj, const cJSON *root, uint64_t line)
{
    const cJSON *data = cJSON_IsArray(root) ? root : cJSON_GetObjectItemCaseSensitive(root, "data"),
                *trace;
    int rc;
    if (!cJSON_IsArray(data))
        return one_trace(tj, root, line);
    cJSON_ArrayForEach(trace, data)
    {
        rc = one_trace(tj, trace, line);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/*
 * The query API and the UI download write {"data":[{"traceID":... on one
 * line; JSON Lines of traces start with {"traceID". A line "{" alone (a
 * pretty-printed file) could open any JSON document, a truth.json beside
 * the logs as well as an export, so it is not claimed: such a file is read
 * with --format jaeger (or otlp / zipkin: tracejson.c reads a value by its
 * shape whichever trace parser reads it).
 */
static int jaeger_sniff(const char *line, size_t len)
{
    if (ls_tj_starts(line, len, "{\"data\":") || ls_tj_starts(line, len, "{\"data\" :") ||
        ls_tj_starts(line, len, "{ \"data\":"))
        return ls_tj_contains(line, len, "\"traceID\"") || ls_tj_is(line, len, "{\"data\":[") ||
                       ls_tj_is(line, len, "{\"data\": [")
                   ? 90
                   : 0;
    if ((ls_tj_starts(line, len, "{\"traceID\":") || ls_tj_starts(line, len, "[{\"traceID\":")) &&
        ls_tj_contains(line, len, "\"spans\""))
        return 90;
    return 0;
}

static int jaeger_create(void **out, const ls_parse_opts *opts, const ls_sink *sink,
                         char *errbuf, size_t errlen)
{
    (void)errbuf;
    (void)errlen;
    return ls_tj_create(out, "jaeger", opts, sink);
}

const ls_parser_ops ls_jaeger_parser = {
    "jaeger", jaeger_sniff, jaeger_create, ls_tj_feed, ls_tj_finish, ls_tj_destroy,
};
