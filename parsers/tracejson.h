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
 * count. Inside a document, a line at column 0 that is a complete JSON
 * object or array on its own ends an unfinished document (pretty-printers
 * indent nested lines): a JSON Lines file whose first line was cut is read
 * from its second line on.
 *
 * Streaming. A value is never held whole when its spans can be read in
 * parts: the bytes go through a small structural scanner (brackets,
 * strings, and the member names of the few objects that matter, each
 * container given a role by where it is) that cuts out "units", the
 * smallest values a format walker reads on their own:
 *   - each span of an OTLP ScopeSpans ("resourceSpans"[i]."scopeSpans"[j].
 *     "spans"[k]; also the snake_case and instrumentationLibrarySpans
 *     keys) when its ResourceSpans' "resource" came before its spans, as
 *     exporters write it: the resource is read first and gives the spans
 *     their service. A ResourceSpans whose spans come first is one unit;
 *   - each element of a top-level "data" array: one Jaeger trace (its
 *     "processes" follow its spans);
 *   - each element of a top-level array, and each element of an array
 *     inside it: a Jaeger trace or a Zipkin span, told by its shape.
 * Only a unit's text is parsed by cJSON. Other top-level values (a Jaeger
 * trace per line, a lone Zipkin span, anything unknown) are held and parsed
 * whole. A line may come in pieces (ls_tj_feed_part: the input layer's
 * over-long lines), so one line of any length is read in memory bounded by
 * doc_max. A unit, or a value held whole, over doc_max is reported (note +
 * bad) and skipped; the units around it are read. A unit that is not valid
 * JSON is a bad record (its line and its byte offset in the line), and the
 * next unit is read. The scanner checks brackets and strings, not the JSON
 * grammar between units: text there that is not JSON goes unnoticed.
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

/* Largest unit, or value held whole, in memory (its text; cJSON's tree is
 * a few times more). */
#define LS_TRACE_DOC_MAX (64u * 1024u * 1024u)
/* Depth of the deepest container the scanner gives a role (an OTLP span
 * array: {"resourceSpans":[{"scopeSpans":[{"spans":[ ). */
#define TJ_ROLE_DEPTH 6
/* Largest ls_span.attributes text; attributes that do not fit are dropped. */
#define LS_TRACE_ATTRS_MAX (16u * 1024u)
/* Longest span name ls_tj_http_name writes; a longer one keeps the span's own. */
#define LS_TRACE_NAME_MAX 2048u

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
    TJ_URL_PATH,
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

    /* framing: lines */
    int mode;          /* TJ_UNDECIDED, TJ_LINES, TJ_DOC */
    int cont;          /* the last piece fed did not end its line */
    int skip_line;     /* the rest of this line is not JSON: skipped */
    uint64_t lineno;   /* line being read */
    uint64_t line_off; /* bytes of this line before the piece being read */

    /* framing: the top-level value being read (see "Streaming") */
    int root;           /* a top-level value is open */
    int depth;          /* brackets open in it */
    int in_str, esc;
    uint64_t root_line; /* line it began on */
    int role[TJ_ROLE_DEPTH + 1]; /* the container open at each depth: TJ_R_* */
    int key_depth;      /* depth of the object whose member names are read, or 0 */
    int want_key;       /* ... the next string there names a member */
    int in_key;         /* ... and is being read */
    int value_next;     /* ... its value comes next */
    int member_kind;    /* ... what it is: TJ_K_* */
    char key[32];       /* the member's name (cut: longer names matter not) */
    size_t keylen;
    int streamed;       /* the value is read unit by unit, not held whole */

    /* the text being held: a unit, or the top-level value */
    int capturing;      /* bytes go to cap */
    int in_unit, unit_scalar;
    int unit_kind;      /* TJ_U_* */
    int unit_roles;     /* a ResourceSpans held while its members are looked at */
    int unit_depth;     /* depth of the array the unit is an element of */
    size_t cap_from;    /* where the held text goes on in the piece being read */
    uint64_t cap_line;  /* line the held text began on */
    uint64_t cap_off;   /* its byte offset in that line */
    int cap_over;       /* ... passed doc_max: reported, scanned, not kept */
    ls_buf cap;
    uint64_t over;      /* values over doc_max */

    /* the current OTLP ResourceSpans' resource, when its spans are read one
     * by one */
    int res_on;         /* being read into res */
    int res_depth;      /* its depth */
    int res_seen;       /* read: the spans that follow are units */
    size_t res_from;
    ls_buf res;
    char *rs_service;   /* its service.name, or NULL */

    /* the value being read: its first line; whether it is a JSON Lines line;
     * the byte of that line it starts at when it is a unit of a line */
    uint64_t cur_line;
    int cur_is_line;
    uint64_t cur_off;
    int cur_has_off;

    /* the span being built */
    ls_span sp;
    int rank[TJ__FIELDS];
    ls_buf attrs;   /* "{" and the pairs so far */
    ls_buf one;     /* one rendered value */
    ls_buf name;    /* the name ls_tj_http_name completed */
    int nattrs, cut;

    /* facts for the closing note */
    uint64_t spans, values, bad_spans, bad_units, bad_records, attrs_cut, base64_ids;
} ls_tj;

/* Create / destroy: `format` is the parser's name ("otlp", ...). */
int ls_tj_create(void **out, const char *format, const ls_parse_opts *opts, const ls_sink *sink);
void ls_tj_destroy(void *state);
int ls_tj_feed(void *state, const char *line, size_t len, uint64_t lineno);
/* A piece of line `lineno`; `more` = 1 when the line goes on in the next
 * call. ls_tj_feed is a whole line: one piece with more = 0. */
int ls_tj_feed_part(void *state, const char *part, size_t len, uint64_t lineno, int more);
/* End of input: the closing notes. LS_EFORMAT when no span was read and
 * records were rejected (never a silent zero), else 0. */
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
/* One element of resourceSpans (a unit). */
int ls_otlp_walk_resource(ls_tj *tj, const cJSON *rs, uint64_t line);
/* A ResourceSpans' resource, read before its spans: keeps its service
 * name in tj->rs_service. 0 or LS_ENOMEM. */
int ls_otlp_resource(ls_tj *tj, const cJSON *resource);
/* One span of the current ResourceSpans (a unit), of service
 * tj->rs_service. */
int ls_otlp_walk_span(ls_tj *tj, const cJSON *span, uint64_t line);
int ls_jaeger_walk(ls_tj *tj, const cJSON *root, uint64_t line);
int ls_zipkin_walk(ls_tj *tj, const cJSON *root, uint64_t line);

/* Span building, for the walkers. */
void ls_tj_span_begin(ls_tj *tj, const char *format, uint64_t line);
/* Fold one attribute into the span and its attributes text. `v` is an OTLP
 * AnyValue object when `anyvalue`, else a plain JSON value. */
int ls_tj_attr(ls_tj *tj, const char *key, const cJSON *v, int anyvalue);
/* Hand the span to the sink (after checking its ids); 0 or negative. */
int ls_tj_span_emit(ls_tj *tj, const cJSON *obj);

/*
 * The name an HTTP span should have had. The semantic conventions name an
 * HTTP server span "{method} {http.route}" and a client span "{method}
 * {url.template}", and "{method}" alone when the instrumentation knows
 * neither: Node's stock http instrumentation without a web framework
 * names every request and every outgoing call "POST". When sp's name is
 * only its method ("POST", "post", "HTTP POST"), write to out the method
 * and what the span says of its target: a server span's http.route, else
 * its url.path (http.target); a client span's peer and path from url.full
 * (no scheme, credentials, query or fragment), else peer.service and
 * url.path. 1 when out holds a name, 0 when sp's name stands (it says more
 * than the method, or the span names no target), LS_ENOMEM.
 */
int ls_tj_http_name(const ls_span *sp, ls_buf *out);
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
