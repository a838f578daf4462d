/*
 * zipkin.c — parser for Zipkin v2 JSON (zipkin-api, zipkin2-api.yaml): a
 * JSON array of spans as POST /api/v2/spans takes and GET /api/v2/trace/{id}
 * returns, or a list of traces (an array of such arrays) as GET
 * /api/v2/traces returns; also JSON Lines of either, or of single spans.
 * Framing and the size bound are in tracejson.c.
 *
 * Ids are 16 or 32 lower-hex digits; times are microseconds (timestamp and
 * duration; no duration = end unknown). kind is CLIENT, SERVER, PRODUCER or
 * CONSUMER; a span without one is in-process but the export does not say
 * more, so it stays unspecified. Tags are a string map: an "error" tag
 * marks an error whatever its text (Zipkin's convention) unless the text is
 * "false", and so does otel.status_code=ERROR. The remote endpoint's
 * serviceName stands for peer.service when no peer.service tag is present.
 */
#include <string.h>

#include "tracejson.h"

static const char *const kind_names[] = {
    "UNSPECIFIED", "INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER",
};

static ls_span_kind kind_of(const char *s)
{
    size_t i;
    for (i = 1; s && i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
        if (strcmp(s, kind_names[i]) == 0)
            return (ls_span_kind)i;
    return LS_SPAN_UNSPECIFIED;
}

static int one_span(ls_tj *tj, const cJSON *span, uint64_t line)
{
    const cJSON *tags, *tag;
    const char *remote;
    ls_span *sp = &tj->sp;
    int64_t start, dur;
    int rc;

    if (!cJSON_IsObject(span)) {
        ls_tj_bad_span(tj, "Zipkin span is not a JSON object", span);
        return 0;
    }
    ls_tj_span_begin(tj, "zipkin", line);
    if (ls_tj_id(tj, sp->trace_id, 32, cJSON_GetObjectItemCaseSensitive(span, "traceId")) < 0) {
        ls_tj_bad_span(tj, "Zipkin span whose traceId is not 16 or 32 hex digits", span);
        return 0;
    }
    if (ls_tj_id(tj, sp->span_id, 16, cJSON_GetObjectItemCaseSensitive(span, "id")) <= 0) {
        ls_tj_bad_span(tj, "Zipkin span without an id of 16 hex digits", span);
        return 0;
    }
    if (ls_tj_id(tj, sp->parent_id, 16, cJSON_GetObjectItemCaseSensitive(span, "parentId")) < 0) {
        ls_tj_bad_span(tj, "Zipkin span whose parentId is not 16 hex digits", span);
        return 0;
    }
    sp->name = ls_tj_str(span, "name");
    sp->kind = kind_of(ls_tj_str(span, "kind"));
    start = ls_tj_uint(cJSON_GetObjectItemCaseSensitive(span, "timestamp"));
    dur = ls_tj_uint(cJSON_GetObjectItemCaseSensitive(span, "duration"));
    if (start > 0) {
        sp->start = start;
        if (dur >= 0 && dur <= INT64_MAX - start)
            sp->end = start + dur;
    }
    sp->service = ls_tj_str(cJSON_GetObjectItemCaseSensitive(span, "localEndpoint"), "serviceName");

    tags = cJSON_GetObjectItemCaseSensitive(span, "tags");
    cJSON_ArrayForEach(tag, ls_tj_object(tags))
    {
        if (!tag->string)
            continue;
        if (strcmp(tag->string, "error") == 0 &&
            !(cJSON_IsString(tag) && strcmp(tag->valuestring, "false") == 0) &&
            !cJSON_IsFalse(tag))
            sp->error = 1;
        else if (strcmp(tag->string, "otel.status_code") == 0 && cJSON_IsString(tag) &&
                 strcmp(tag->valuestring, "ERROR") == 0)
            sp->error = 1;
        rc = ls_tj_attr(tj, tag->string, tag, 0);
        if (rc < 0)
            return rc;
    }
    /* A named remote service beats a host name (server.address), not a
     * peer.service tag. */
    remote = ls_tj_str(cJSON_GetObjectItemCaseSensitive(span, "remoteEndpoint"), "serviceName");
    if (remote && remote[0] && tj->rank[TJ_PEER_SERVICE] < 3)
        sp->peer_service = remote;
    return ls_tj_span_emit(tj, span);
}

int ls_zipkin_walk(ls_tj *tj, const cJSON *root, uint64_t line)
{
    const cJSON *it, *span;
    int rc;

    if (!cJSON_IsArray(root))
        return one_span(tj, root, line); /* a span, or a unit that is none */
    cJSON_ArrayForEach(it, root)
    {
        if (cJSON_IsArray(it)) {
            /* /api/v2/traces: a list of traces, each a list of spans. */
            cJSON_ArrayForEach(span, it)
            {
                rc = one_span(tj, span, line);
                if (rc < 0)
                    return rc;
            }
        } else {
            rc = one_span(tj, it, line);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

/*
 * An API response is one line starting [{"traceId" (or [[{"traceId" for a
 * list of traces). A pretty-printed one starts with "[" alone, which any
 * JSON array starts with: not claimed; read it with --format zipkin.
 */
static int zipkin_sniff(const char *line, size_t len)
{
    if ((ls_tj_starts(line, len, "[{") || ls_tj_starts(line, len, "[[{") ||
         ls_tj_starts(line, len, "[ {")) &&
        ls_tj_contains(line, len, "\"traceId\""))
        return 90;
    if (ls_tj_starts(line, len, "{\"traceId\":") && ls_tj_contains(line, len, "\"id\""))
        return 80;
    return 0;
}

static int zipkin_create(void **out, const ls_parse_opts *opts, const ls_sink *sink,
                         char *errbuf, size_t errlen)
{
    (void)errbuf;
    (void)errlen;
    return ls_tj_create(out, "zipkin", opts, sink);
}

const ls_parser_ops ls_zipkin_parser = {
    "zipkin", zipkin_sniff, zipkin_create, ls_tj_feed, ls_tj_finish, ls_tj_destroy,
};
