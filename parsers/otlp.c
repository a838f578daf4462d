/*
 * otlp.c — parser for OpenTelemetry OTLP/JSON trace exports (TracesData /
 * ExportTraceServiceRequest): the collector's file exporter writes JSON
 * Lines, one object per line; an OTLP/HTTP request body saved to a file is
 * one document, often pretty-printed. Framing, the size bound and the
 * folding of semantic-convention names are in tracejson.c.
 *
 * OTLP/JSON is the proto3 JSON mapping with two exceptions (opentelemetry-
 * proto, docs/specification.md, "JSON Protobuf Encoding"): trace and span
 * ids are hex, not base64, and enums are integers. Exporters that use a
 * stock protobuf JSON printer write base64 ids and enum names anyway, and a
 * proto3 JSON reader accepts the original snake_case field names too, so
 * all of these are read. 64-bit integers (times, intValue) come as decimal
 * strings or numbers. Unknown fields are ignored. Spans under the
 * pre-1.0 key instrumentationLibrarySpans are read like scopeSpans.
 */
#include <stdlib.h>
#include <string.h>

#include "ls_common.h"
#include "tracejson.h"

static const char *const kind_names[] = {
    "UNSPECIFIED", "INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER",
};

static ls_span_kind kind_of(const cJSON *v)
{
    size_t i;
    if (cJSON_IsNumber(v))
        return v->valuedouble >= 1 && v->valuedouble <= 5 ? (ls_span_kind)(int)v->valuedouble
                                                         : LS_SPAN_UNSPECIFIED;
    if (cJSON_IsString(v)) {
        const char *s = v->valuestring;
        if (strncmp(s, "SPAN_KIND_", 10) == 0)
            s += 10;
        for (i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
            if (strcmp(s, kind_names[i]) == 0)
                return (ls_span_kind)i;
    }
    return LS_SPAN_UNSPECIFIED;
}

static int is_error_status(const cJSON *status)
{
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(status, "code");
    if (cJSON_IsNumber(code))
        return code->valuedouble == 2;
    return cJSON_IsString(code) && (strcmp(code->valuestring, "STATUS_CODE_ERROR") == 0 ||
                                    strcmp(code->valuestring, "2") == 0);
}

/* Microseconds from a nanosecond count; LS_TS_NONE for 0 or absent. */
static ls_ts ts_of_nanos(const cJSON *v)
{
    int64_t ns = ls_tj_uint(v);
    return ns > 0 ? ns / 1000 : LS_TS_NONE;
}

/* service.name among a resource's attributes. */
static const char *service_of(const cJSON *resource)
{
    const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(resource, "attributes"), *kv;
    cJSON_ArrayForEach(kv, ls_tj_array(attrs))
    {
        const char *k = ls_tj_str(kv, "key");
        if (k && strcmp(k, "service.name") == 0) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(kv, "value");
            const char *s = ls_tj_str(v, "stringValue");
            return s ? s : ls_tj_str(v, "string_value");
        }
    }
    return NULL;
}

static int one_span(ls_tj *tj, const cJSON *span, const char *service, uint64_t line)
{
    const cJSON *attrs, *kv;
    ls_span *sp = &tj->sp;
    int rc;

    if (!cJSON_IsObject(span)) {
        ls_tj_bad_span(tj, "OTLP span is not a JSON object", span);
        return 0;
    }
    ls_tj_span_begin(tj, "otlp", line);
    if (ls_tj_id(tj, sp->trace_id, 32, ls_tj_get(span, "traceId", "trace_id")) < 0) {
        ls_tj_bad_span(tj, "OTLP span whose traceId is not 32 hex digits (or base64)", span);
        return 0;
    }
    if (ls_tj_id(tj, sp->span_id, 16, ls_tj_get(span, "spanId", "span_id")) <= 0) {
        ls_tj_bad_span(tj, "OTLP span without a spanId of 16 hex digits (or base64)", span);
        return 0;
    }
    if (ls_tj_id(tj, sp->parent_id, 16, ls_tj_get(span, "parentSpanId", "parent_span_id")) < 0) {
        ls_tj_bad_span(tj, "OTLP span whose parentSpanId is not 16 hex digits (or base64)", span);
        return 0;
    }
    sp->name = ls_tj_str(span, "name");
    sp->kind = kind_of(cJSON_GetObjectItemCaseSensitive(span, "kind"));
    sp->service = service;
    sp->start = ts_of_nanos(ls_tj_get(span, "startTimeUnixNano", "start_time_unix_nano"));
    sp->end = ts_of_nanos(ls_tj_get(span, "endTimeUnixNano", "end_time_unix_nano"));
    sp->error = is_error_status(cJSON_GetObjectItemCaseSensitive(span, "status"));

    attrs = cJSON_GetObjectItemCaseSensitive(span, "attributes");
    cJSON_ArrayForEach(kv, ls_tj_array(attrs))
    {
        rc = ls_tj_attr(tj, ls_tj_str(kv, "key"), cJSON_GetObjectItemCaseSensitive(kv, "value"), 1);
        if (rc < 0)
            return rc;
    }
    return ls_tj_span_emit(tj, span);
}

int ls_otlp_walk_resource(ls_tj *tj, const cJSON *rs, uint64_t line)
{
    static const char *const scope_keys[][2] = {
        {"scopeSpans", "scope_spans"},
        {"instrumentationLibrarySpans", "instrumentation_library_spans"},
    };
    const char *service = service_of(cJSON_GetObjectItemCaseSensitive(rs, "resource"));
    size_t k;
    int rc;

    for (k = 0; k < sizeof(scope_keys) / sizeof(scope_keys[0]); k++) {
        const cJSON *sss = ls_tj_get(rs, scope_keys[k][0], scope_keys[k][1]), *ss;
        cJSON_ArrayForEach(ss, ls_tj_array(sss))
        {
            const cJSON *spans = cJSON_GetObjectItemCaseSensitive(ss, "spans"), *span;
            cJSON_ArrayForEach(span, ls_tj_array(spans))
            {
                rc = one_span(tj, span, service, line);
                if (rc < 0)
                    return rc;
            }
        }
    }
    return 0;
}

int ls_otlp_resource(ls_tj *tj, const cJSON *resource)
{
    const char *service = service_of(resource);
    free(tj->rs_service);
    tj->rs_service = NULL;
    if (service && !(tj->rs_service = ls_strdup(service)))
        return LS_ENOMEM;
    return 0;
}

int ls_otlp_walk_span(ls_tj *tj, const cJSON *span, uint64_t line)
{
    return one_span(tj, span, tj->rs_service, line);
}

int ls_otlp_walk(ls_tj *tj, const cJSON *root, uint64_t line)
{
    const cJSON *rss = ls_tj_get(root, "resourceSpans", "resource_spans"), *rs;
    int rc;

    cJSON_ArrayForEach(rs, ls_tj_array(rss))
    {
        rc = ls_otlp_walk_resource(tj, rs, line);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/*
 * The collector's file exporter starts every line with {"resourceSpans".
 * A pretty-printed document starts with a line "{" that any JSON document
 * starts with (a truth.json beside the logs, too), so it is not claimed:
 * such a file is read with --format otlp.
 */
static int otlp_sniff(const char *line, size_t len)
{
    if (ls_tj_starts(line, len, "{\"resourceSpans\"") ||
        ls_tj_starts(line, len, "{\"resource_spans\""))
        return 90;
    if (ls_tj_starts(line, len, "{") && (ls_tj_contains(line, len, "\"resourceSpans\"") ||
                                         ls_tj_contains(line, len, "\"resource_spans\"")))
        return 85;
    return 0;
}

static int otlp_create(void **out, const ls_parse_opts *opts, const ls_sink *sink, char *errbuf,
                       size_t errlen)
{
    (void)errbuf;
    (void)errlen;
    return ls_tj_create(out, "otlp", opts, sink);
}

const ls_parser_ops ls_otlp_parser = {
    "otlp", otlp_sniff, otlp_create, ls_tj_feed, ls_tj_finish, ls_tj_destroy,
};
