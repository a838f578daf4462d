/*
 * tracejson.h — what the three trace parsers (otlp.c, jaeger.c, zipkin.c)
 * share: framing lines into JSON values, telling the export format from a
 * value's shape, and building an ls_span from attributes under old and new
 * semantic-convention names. Private to parsers/.
 *
 * Framing. A file is either JSON Lines (one complete value per line, as the
 * OpenTelemetry collector's file exporter writes) or one or more documents
 * spread over many lines (pretty-printed). The first value decides: one that
 * closes on the line it opened on makes the file JSON Lines, and then a line
 * that is not a complete value is a bad line while its neighbours still
 * count. A multi-line document is accumulated up to a bound (doc_max) and
 * parsed when its braces balance; one over the bound is reported (note +
 * bad) and skipped. Inside a document, a line at column 0 that is a
 * complete JSON object or array on its own ends an unfinished document
 * (pretty-printers indent nested lines): a JSON Lines file whose first line
 * was cut is read from its second line on.
 *
 * Dispatch. Whichever of the three parsers the first line chose, a value is
 * read by its shape: {"resourceSpans"|"resource_spans"} is OTLP, {"data":[..]}
 * or {"traceID","spans"} is Jaeger, an array (of spans or of traces) or
 * {"traceId","id"} is Zipkin. A file therefore reads right whichever trace
 * parser reads it (e.g. a pretty-printed file given with --format).
 */
#ifndef LS_TRACEJSON_H
#define LS_TRACEJSON_H

#include <cjson/cJSON.h>

#include "ls_buf.h"
#include "ls_parser.h"

/* Largest multi-line document held in memory (its text; cJSON's tree is a
 * few times more). */
#define LS_TRACE_DOC_MAX (64u * 1024u * 1024u)
/* Largest ls_span.attributes text; attributes that do not fit are dropped. */
#define LS_TRACE_ATTRS_MAX (16u * 1024u)

/* The ls_span fields that semantic-convention attributes fill. */
enum {
    TJ_DB_SYSTEM,
    TJ_DB_STATEMENT,
    TJ_DB_NAME,
    TJ_DB_OPERATION,
    TJ_CODE_FUNCTION,
    TJ_CODE_NAMESPACE,
    TJ_CODE_FILEPATH,
    TJ_CODE_LINENO,
    TJ_HTTP_ROUTE,
    TJ_HTTP_METHOD,
    TJ_HTTP_URL,
    TJ_PEER_SERVICE,
    TJ_DB_PID,
    TJ__FIELDS
};

/* State of one trace parser; each parser's state is exactly this. */
typedef struct ls_tj {
    char *file;
    char *pid_attr; /* attribute holding the backend pid */
    const char *format; /* the parser's own name, for messages */
    ls_sink sink;
    size_t doc_max;

    /* framing */
    int mode;          /* TJ_UNDECIDED, TJ_LINES, TJ_DOC */
    int pending;       /* inside a multi-line document */
    int skipping;      /* ... that is over doc_max: scanned, not kept */
    int depth, in_str, esc;
    uint64_t doc_line; /* line the pending document began on */
    ls_buf doc;

    /* the value being read: its first line; whether it is a JSON Lines line */
    uint64_t cur_line;
    int cur_is_line;

    /* the span being built */
    ls_span sp;
    int rank[TJ__FIELDS];
    ls_buf attrs;   /* "{" and the pairs so far */
    ls_buf one;     /* one rendered value */
    int nattrs, cut;

    /* facts for the closing note */
    uint64_t spans, values, bad_spans, attrs_cut, base64_ids;
} ls_tj;

/* Create / destroy: `format` is the parser's name ("otlp", ...). */
int ls_tj_create(void **out, const char *format, const ls_parse_opts *opts, const ls_sink *sink);
void ls_tj_destroy(void *state);
int ls_tj_feed(void *state, const char *line, size_t len, uint64_t lineno);
int ls_tj_finish(void *state);

/*
 * Test and option hooks for any of the three parsers' state: the document
 * bound in bytes (0 = LS_TRACE_DOC_MAX), and the attribute naming the
 * backend pid (NULL = LS_SPAN_PID_ATTRIBUTE). Return 0 or LS_ENOMEM.
 */
void ls_trace_parser_set_doc_max(void *state, size_t max);
int ls_trace_parser_set_pid_attribute(void *state, const char *name);

/* Format walkers, each in its parser's file: every span of `root` (a value
 * of that format's shape) to the sink. Return 0 or the sink's negative code. */
int ls_otlp_walk(ls_tj *tj, const cJSON *root, uint64_t line);
int ls_jaeger_walk(ls_tj *tj, const cJSON *root, uint64_t line);
int ls_zipkin_walk(ls_tj *tj, const cJSON *root, uint64_t line);

/* Span building, for the walkers. */
void ls_tj_span_begin(ls_tj *tj, const char *format, uint64_t line);
/* Fold one attribute into the span and its attributes text. `v` is an OTLP
 * AnyValue object when `anyvalue`, else a plain JSON value. */
int ls_tj_attr(ls_tj *tj, const char *key, const cJSON *v, int anyvalue);
/* Hand the span to the sink (after checking its ids); 0 or negative. */
int ls_tj_span_emit(ls_tj *tj, const cJSON *obj);
/* Report a span that cannot be used; `obj` is shown (cut). */
void ls_tj_bad_span(ls_tj *tj, const char *reason, const cJSON *obj);

/* Id text to lower-case hex of `width` digits (32 or 16), left-padded with
 * zeros: hex strings up to `width` digits, base64 of 16 / 8 bytes (the
 * proto3 JSON mapping), or a non-negative JSON integer. Returns 1 for an
 * id, 0 for absent / empty / all zeros, -1 for a value that is not an id. */
int ls_tj_id(ls_tj *tj, char *out, size_t width, const cJSON *v);

/* For sniffing: whether the first 64 KiB of line hold `needle`; whether
 * the line, white space aside, starts with `prefix` / is exactly `text`. */
int ls_tj_contains(const char *line, size_t len, const char *needle);
int ls_tj_starts(const char *line, size_t len, const char *prefix);
int ls_tj_is(const char *line, size_t len, const char *text);

/* Object member, camelCase name first, then the proto field name. */
const cJSON *ls_tj_get(const cJSON *obj, const char *camel, const char *snake);
/* v if it is an array (an object), else NULL: for cJSON_ArrayForEach. */
const cJSON *ls_tj_array(const cJSON *v);
const cJSON *ls_tj_object(const cJSON *v);
/* String member or NULL. */
const char *ls_tj_str(const cJSON *obj, const char *key);
/* A non-negative integer given as a JSON number or decimal string; -1 if
 * absent or not one. */
int64_t ls_tj_uint(const cJSON *v);

#endif
