/*
 * tracejson.c — framing, format dispatch and span building shared by the
 * OTLP/JSON, Jaeger and Zipkin parsers (the contract is in tracejson.h).
 *
 * Strings handed to the sink point into the cJSON tree of the value being
 * read, so they live exactly as long as the span() callback needs. cJSON
 * does not check UTF-8: bytes that are not UTF-8 pass through as they are,
 * and the report layer cleans them. Numbers go through a double, so a
 * nanosecond time given as a JSON number (not a string, as OTLP/JSON
 * writes it) is exact to about 256 ns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ls_common.h"
#include "tracejson.h"

enum { TJ_UNDECIDED, TJ_LINES, TJ_DOC };
/* What a container open in the top-level value is (tracejson.h,
 * "Streaming"): its elements or members the scanner looks at. */
enum {
    TJ_R_NONE,         /* nothing inside matters (or it is held whole) */
    TJ_R_ROOT_OBJ,     /* the top-level object */
    TJ_R_ROOT_ARR,     /* the top-level array: units, or arrays of units */
    TJ_R_UNITS_JAEGER, /* Jaeger's "data": each element a trace */
    TJ_R_UNITS_ELEM,   /* each element a Jaeger trace or a Zipkin span */
    TJ_R_UNITS_SPAN,   /* an OTLP ScopeSpans' "spans": each element a span */
    TJ_R_RS_ARR,       /* "resourceSpans" */
    TJ_R_RS,           /* one ResourceSpans */
    TJ_R_SS_ARR,       /* its "scopeSpans" */
    TJ_R_SS            /* one ScopeSpans */
};
/* Members of those objects that matter. */
enum {
    TJ_K_OTHER,
    TJ_K_RESOURCE_SPANS,
    TJ_K_DATA,
    TJ_K_RESOURCE,
    TJ_K_SCOPE_SPANS,
    TJ_K_SPANS
};
/* What a unit is read as. */
enum { TJ_U_OTLP, TJ_U_SPAN, TJ_U_JAEGER, TJ_U_ELEM, TJ_U_SKIP };

#define BAD_TEXT_MAX 300 /* bytes of a value shown with a bad report */
#define RENDER_DEPTH 16  /* nested arrays / kvlists rendered; deeper is null */
#define CAP_KEEP (1024u * 1024u) /* held-text memory kept between values */

/* ---- sniffing ---------------------------------------------------------- */

int ls_tj_contains(const char *line, size_t len, const char *needle)
{
    size_t n = strlen(needle), i;
    if (len > 65536)
        len = 65536;
    for (i = 0; n <= len && i <= len - n; i++)
        if (line[i] == needle[0] && memcmp(line + i, needle, n) == 0)
            return 1;
    return 0;
}

/* The line without surrounding white space (and a UTF-8 byte order mark). */
static void trim(const char **line, size_t *len)
{
    const char *p = *line;
    size_t n = *len;
    if (n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0) {
        p += 3;
        n -= 3;
    }
    while (n > 0 && (*p == ' ' || *p == '\t'))
        p++, n--;
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
        n--;
    *line = p;
    *len = n;
}

int ls_tj_starts(const char *line, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    trim(&line, &len);
    return len >= n && memcmp(line, prefix, n) == 0;
}

int ls_tj_is(const char *line, size_t len, const char *text)
{
    trim(&line, &len);
    return len == strlen(text) && memcmp(line, text, len) == 0;
}

/* ---- small readers ------------------------------------------------------ */

const cJSON *ls_tj_get(const cJSON *obj, const char *camel, const char *snake)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, camel);
    if (!it && snake)
        it = cJSON_GetObjectItemCaseSensitive(obj, snake);
    return it;
}

const cJSON *ls_tj_array(const cJSON *v)
{
    return cJSON_IsArray(v) ? v : NULL;
}

const cJSON *ls_tj_object(const cJSON *v)
{
    return cJSON_IsObject(v) ? v : NULL;
}

const char *ls_tj_str(const cJSON *obj, const char *key)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(it) ? it->valuestring : NULL;
}

int64_t ls_tj_uint(const cJSON *v)
{
    if (cJSON_IsNumber(v))
        return v->valuedouble >= 0 && v->valuedouble < 9.2e18 ? (int64_t)v->valuedouble : -1;
    if (cJSON_IsString(v)) {
        const char *s = v->valuestring;
        int64_t n = 0;
        if (!*s)
            return -1;
        for (; *s >= '0' && *s <= '9'; s++) {
            if (n > (INT64_MAX - (*s - '0')) / 10)
                return -1;
            n = n * 10 + (*s - '0');
        }
        return *s ? -1 : n;
    }
    return -1;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int b64val(int c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

/* Decode base64 (standard or URL-safe, padded or not) of exactly `nbytes`
 * bytes into hex; 0 or -1. */
static int b64_to_hex(char *out, const char *s, size_t n, size_t nbytes)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char bytes[16];
    size_t i, nb = 0;
    unsigned acc = 0;
    int bits = 0;

    while (n > 0 && s[n - 1] == '=')
        n--;
    if (nbytes > sizeof(bytes) || (n * 6) / 8 != nbytes)
        return -1;
    for (i = 0; i < n; i++) {
        int v = b64val((unsigned char)s[i]);
        if (v < 0)
            return -1;
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            bytes[nb++] = (unsigned char)(acc >> bits);
            acc &= (1u << bits) - 1;
        }
    }
    if (nb != nbytes || acc != 0)
        return -1;
    for (i = 0; i < nb; i++) {
        out[2 * i] = hex[bytes[i] >> 4];
        out[2 * i + 1] = hex[bytes[i] & 15];
    }
    out[2 * nb] = '\0';
    return 0;
}

int ls_tj_id(ls_tj *tj, char *out, size_t width, const cJSON *v)
{
    size_t n, i;
    const char *s;

    out[0] = '\0';
    if (!v || cJSON_IsNull(v))
        return 0;
    if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        if (!(d >= 0 && d < 1.8e19) || d != (double)(unsigned long long)d)
            return -1;
        snprintf(out, width + 1, "%0*llx", (int)width, (unsigned long long)d);
        return d == 0 ? (out[0] = '\0', 0) : 1;
    }
    if (!cJSON_IsString(v))
        return -1;
    s = v->valuestring;
    n = strlen(s);
    if (n == 0)
        return 0;
    for (i = 0; i < n && hexval((unsigned char)s[i]) >= 0; i++)
        ;
    if (i == n && n <= width) {
        memset(out, '0', width - n);
        for (i = 0; i < n; i++)
            out[width - n + i] = "0123456789abcdef"[hexval((unsigned char)s[i])];
        out[width] = '\0';
    } else if (b64_to_hex(out, s, n, width / 2) == 0) {
        tj->base64_ids++;
    } else {
        out[0] = '\0';
        return -1;
    }
    for (i = 0; i < width && out[i] == '0'; i++)
        ;
    if (i == width) {
        out[0] = '\0';
        return 0;
    }
    return 1;
}

/* ---- reports ------------------------------------------------------------ */

/* A bad record at `line`; inside a unit of a line, its byte offset too. */
static void bad(ls_tj *tj, uint64_t line, const char *reason, const char *text, size_t len)
{
    char with_off[320];
    tj->bad_records++;
    if (!tj->sink.bad)
        return;
    if (tj->cur_has_off) {
        snprintf(with_off, sizeof(with_off), "%s (in the element at byte %llu of the line)",
                 reason, (unsigned long long)tj->cur_off);
        reason = with_off;
    }
    tj->sink.bad(tj->sink.ctx, tj->file, line, reason, text, len > BAD_TEXT_MAX ? BAD_TEXT_MAX : len);
}

static void note(ls_tj *tj, uint64_t line, const char *msg)
{
    if (tj->sink.note)
        tj->sink.note(tj->sink.ctx, tj->file, line, msg);
}

void ls_tj_bad_span(ls_tj *tj, const char *reason, const cJSON *obj)
{
    char *text = obj ? cJSON_PrintUnformatted(obj) : NULL;
    tj->bad_spans++;
    bad(tj, tj->cur_line, reason, text ? text : "", text ? strlen(text) : 0);
    cJSON_free(text);
}

/* ---- attributes text ---------------------------------------------------- */

static void render_str(ls_buf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    ls_buf_addc(b, '"');
    for (; *p; p++) {
        const unsigned char *q = p;
        while (*q && *q >= 0x20 && *q != '"' && *q != '\\')
            q++;
        if (q > p) {
            ls_buf_add(b, p, (size_t)(q - p));
            p = q;
            if (!*p)
                break;
        }
        switch (*p) {
        case '"': ls_buf_adds(b, "\\\""); break;
        case '\\': ls_buf_adds(b, "\\\\"); break;
        case '\n': ls_buf_adds(b, "\\n"); break;
        case '\r': ls_buf_adds(b, "\\r"); break;
        case '\t': ls_buf_adds(b, "\\t"); break;
        default: ls_buf_printf(b, "\\u%04x", *p); break;
        }
    }
    ls_buf_addc(b, '"');
}

static void render_num(ls_buf *b, double d)
{
    if (!(d >= -1.7e308 && d <= 1.7e308))
        ls_buf_adds(b, "null");
    else if (d >= -9.2e18 && d <= 9.2e18 && (double)(long long)d == d)
        ls_buf_printf(b, "%lld", (long long)d);
    else
        ls_buf_printf(b, "%.17g", d);
}

static void render_plain(ls_buf *b, const cJSON *v, int depth)
{
    const cJSON *it;
    if (cJSON_IsString(v)) {
        render_str(b, v->valuestring);
    } else if (cJSON_IsNumber(v)) {
        render_num(b, v->valuedouble);
    } else if (cJSON_IsBool(v)) {
        ls_buf_adds(b, cJSON_IsTrue(v) ? "true" : "false");
    } else if (depth < RENDER_DEPTH && (cJSON_IsArray(v) || cJSON_IsObject(v))) {
        int obj = cJSON_IsObject(v);
        ls_buf_addc(b, obj ? '{' : '[');
        for (it = v->child; it; it = it->next) {
            if (it != v->child)
                ls_buf_addc(b, ',');
            if (obj) {
                render_str(b, it->string ? it->string : "");
                ls_buf_addc(b, ':');
            }
            render_plain(b, it, depth + 1);
        }
        ls_buf_addc(b, obj ? '}' : ']');
    } else {
        ls_buf_adds(b, "null");
    }
}

/* A string of an optionally signed decimal integer (OTLP's int64 as text). */
static int is_int_text(const char *s)
{
    size_t n = 0;
    if (*s == '-')
        s++;
    for (; s[n] >= '0' && s[n] <= '9'; n++)
        ;
    return n > 0 && n <= 19 && s[n] == '\0';
}

/* An OTLP AnyValue: {"stringValue":..} | {"intValue":..} | ... */
static void render_any(ls_buf *b, const cJSON *v, int depth)
{
    const cJSON *it;
    if (!cJSON_IsObject(v) || !v->child || depth >= RENDER_DEPTH) {
        ls_buf_adds(b, "null");
        return;
    }
    if ((it = ls_tj_get(v, "intValue", "int_value")) != NULL) {
        if (cJSON_IsString(it) && is_int_text(it->valuestring))
            ls_buf_adds(b, it->valuestring);
        else
            render_plain(b, it, RENDER_DEPTH);
    } else if ((it = ls_tj_get(v, "arrayValue", "array_value")) != NULL) {
        const cJSON *vals = cJSON_GetObjectItemCaseSensitive(it, "values"), *e;
        ls_buf_addc(b, '[');
        cJSON_ArrayForEach(e, ls_tj_array(vals))
        {
            if (e != vals->child)
                ls_buf_addc(b, ',');
            render_any(b, e, depth + 1);
        }
        ls_buf_addc(b, ']');
    } else if ((it = ls_tj_get(v, "kvlistValue", "kvlist_value")) != NULL) {
        const cJSON *vals = cJSON_GetObjectItemCaseSensitive(it, "values"), *e;
        int first = 1;
        ls_buf_addc(b, '{');
        cJSON_ArrayForEach(e, ls_tj_array(vals))
        {
            const char *k = ls_tj_str(e, "key");
            if (!k)
                continue;
            if (!first)
                ls_buf_addc(b, ',');
            first = 0;
            render_str(b, k);
            ls_buf_addc(b, ':');
            render_any(b, cJSON_GetObjectItemCaseSensitive(e, "value"), depth + 1);
        }
        ls_buf_addc(b, '}');
    } else {
        /* stringValue, boolValue, doubleValue (a number, or "NaN" /
         * "Infinity" as a string), bytesValue (base64 text, kept). */
        render_plain(b, v->child, RENDER_DEPTH);
    }
}

/* The scalar inside an OTLP AnyValue, or NULL for arrays / kvlists. */
static const cJSON *any_scalar(const cJSON *v)
{
    static const char *const keys[][2] = {{"stringValue", "string_value"},
                                          {"intValue", "int_value"},
                                          {"boolValue", "bool_value"},
                                          {"doubleValue", "double_value"},
                                          {"bytesValue", "bytes_value"}};
    size_t i;
    const cJSON *it;
    for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if ((it = ls_tj_get(v, keys[i][0], keys[i][1])) != NULL)
            return it;
    return NULL;
}

/* ---- semantic conventions ---------------------------------------------- */

/* Old and new names of one field; the higher rank wins, whatever the order
 * the attributes come in. peer.service names the logical service and beats
 * the host name (server.address, formerly net.peer.name). */
static const struct {
    const char *key;
    int field;
    int rank;
} semconv[] = {
    {"db.system", TJ_DB_SYSTEM, 1},
    {"db.system.name", TJ_DB_SYSTEM, 2},
    {"db.statement", TJ_DB_STATEMENT, 1},
    {"db.query.text", TJ_DB_STATEMENT, 2},
    {"db.name", TJ_DB_NAME, 1},
    {"db.namespace", TJ_DB_NAME, 2},
    {"db.operation", TJ_DB_OPERATION, 1},
    {"db.operation.name", TJ_DB_OPERATION, 2},
    {"code.function", TJ_CODE_FUNCTION, 1},
    {"code.function.name", TJ_CODE_FUNCTION, 2},
    {"code.namespace", TJ_CODE_NAMESPACE, 1},
    {"code.filepath", TJ_CODE_FILEPATH, 1},
    {"code.file.path", TJ_CODE_FILEPATH, 2},
    {"code.lineno", TJ_CODE_LINENO, 1},
    {"code.line.number", TJ_CODE_LINENO, 2},
    {"http.route", TJ_HTTP_ROUTE, 1},
    {"http.method", TJ_HTTP_METHOD, 1},
    {"http.request.method", TJ_HTTP_METHOD, 2},
    {"http.url", TJ_HTTP_URL, 1},
    {"url.full", TJ_HTTP_URL, 2},
    {"http.path", TJ_URL_PATH, 1},
    {"http.target", TJ_URL_PATH, 2},
    {"url.path", TJ_URL_PATH, 3},
    {"net.peer.name", TJ_PEER_SERVICE, 1},
    {"server.address", TJ_PEER_SERVICE, 2},
    {"peer.service", TJ_PEER_SERVICE, 3},
};

static const char **str_field(ls_span *sp, int field)
{
    switch (field) {
    case TJ_DB_SYSTEM: return &sp->db_system;
    case TJ_DB_STATEMENT: return &sp->db_statement;
    case TJ_DB_NAME: return &sp->db_name;
    case TJ_DB_OPERATION: return &sp->db_operation;
    case TJ_CODE_FUNCTION: return &sp->code_function;
    case TJ_CODE_NAMESPACE: return &sp->code_namespace;
    case TJ_CODE_FILEPATH: return &sp->code_filepath;
    case TJ_HTTP_ROUTE: return &sp->http_route;
    case TJ_HTTP_METHOD: return &sp->http_method;
    case TJ_HTTP_URL: return &sp->http_url;
    case TJ_URL_PATH: return &sp->url_path;
    case TJ_PEER_SERVICE: return &sp->peer_service;
    default: return NULL;
    }
}

static void fold(ls_tj *tj, int field, int rank, const cJSON *scalar)
{
    if (!scalar || rank <= tj->rank[field])
        return;
    if (field == TJ_CODE_LINENO || field == TJ_DB_PID) {
        /* An integer, or its decimal text (Zipkin's tags are all strings). */
        int64_t v = ls_tj_uint(scalar);
        if (v <= 0)
            return;
        if (field == TJ_CODE_LINENO)
            tj->sp.code_lineno = v;
        else
            tj->sp.db_pid = v;
    } else {
        if (!cJSON_IsString(scalar) || !scalar->valuestring[0])
            return;
        *str_field(&tj->sp, field) = scalar->valuestring;
    }
    tj->rank[field] = rank;
}

void ls_tj_span_begin(ls_tj *tj, const char *format, uint64_t line)
{
    memset(&tj->sp, 0, sizeof(tj->sp));
    memset(tj->rank, 0, sizeof(tj->rank));
    tj->sp.file = tj->file;
    tj->sp.line = tj->cur_is_line ? line : 0;
    tj->sp.format = format;
    tj->sp.start = tj->sp.end = LS_TS_NONE;
    ls_buf_reset(&tj->attrs);
    ls_buf_addc(&tj->attrs, '{');
    tj->nattrs = 0;
    tj->cut = 0;
}

int ls_tj_attr(ls_tj *tj, const char *key, const cJSON *v, int anyvalue)
{
    const cJSON *scalar = anyvalue ? any_scalar(v) : v;
    size_t i;
    int rc;

    if (!key)
        return 0;
    for (i = 0; i < sizeof(semconv) / sizeof(semconv[0]); i++)
        if (strcmp(key, semconv[i].key) == 0)
            fold(tj, semconv[i].field, semconv[i].rank, scalar);
    if (strcmp(key, tj->pid_attr) == 0)
        fold(tj, TJ_DB_PID, 1, scalar);

    ls_buf_reset(&tj->one);
    if (tj->nattrs)
        ls_buf_addc(&tj->one, ',');
    render_str(&tj->one, key);
    ls_buf_addc(&tj->one, ':');
    if (anyvalue)
        render_any(&tj->one, v, 0);
    else
        render_plain(&tj->one, v, 0);
    rc = ls_buf_failed(&tj->one);
    if (rc == LS_ENOMEM)
        return LS_ENOMEM;
    /* Keep room for the closing brace. */
    if (rc != 0 || tj->attrs.len + tj->one.len + 1 > LS_TRACE_ATTRS_MAX) {
        tj->cut = 1;
        return 0;
    }
    ls_buf_add(&tj->attrs, tj->one.ptr, tj->one.len);
    tj->nattrs++;
    return ls_buf_failed(&tj->attrs) == LS_ENOMEM ? LS_ENOMEM : 0;
}

/* What older instrumentations put before a span name's method ("HTTP GET"). */
#define HTTP_NAME_PREFIX "HTTP "
#define HTTP_NAME_PREFIX_LEN (sizeof(HTTP_NAME_PREFIX) - 1)

/* s past the "HTTP " older instrumentations put before a method. */
static const char *past_http_prefix(const char *s)
{
    return strncasecmp(s, HTTP_NAME_PREFIX, HTTP_NAME_PREFIX_LEN) == 0 ? s + HTTP_NAME_PREFIX_LEN
                                                                       : s;
}

/* Does name say nothing but the request's method: "POST", "post", "HTTP POST"? */
static int is_bare_method(const char *name, const char *method)
{
    static const char *const methods[] = {"GET",    "POST",  "PUT",     "PATCH", "DELETE",
                                          "HEAD",   "OPTIONS", "TRACE", "CONNECT"};
    size_t i;

    name = past_http_prefix(name);
    if (method && strcasecmp(name, method) == 0)
        return 1;
    for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
        if (strcasecmp(name, methods[i]) == 0)
            return 1;
    return 0;
}

/* Append s up to its query or fragment. */
static void add_path(ls_buf *out, const char *s)
{
    ls_buf_add(out, s, strcspn(s, "?#"));
}

int ls_tj_http_name(const ls_span *sp, ls_buf *out)
{
    const char *method, *url = sp->http_url, *host;
    int rc;

    if (!sp->name || !is_bare_method(sp->name, sp->http_method))
        return 0;
    method = past_http_prefix(sp->http_method ? sp->http_method : sp->name);
    ls_buf_reset(out);
    ls_buf_add(out, method, strlen(method));
    ls_buf_addc(out, ' ');
    if (sp->kind != LS_SPAN_CLIENT && sp->http_route) {
        ls_buf_add(out, sp->http_route, strlen(sp->http_route));
    } else if (sp->kind != LS_SPAN_CLIENT && sp->url_path && sp->url_path[0] == '/') {
        add_path(out, sp->url_path);
    } else if (url && (host = strstr(url, "://")) != NULL && host[3]) {
        /* the peer and the path of the full URL, without scheme,
         * credentials or query */
        const char *at;
        host += 3;
        at = strchr(host, '@');
        if (at && at < host + strcspn(host, "/?#"))
            host = at + 1;
        add_path(out, host);
    } else if (sp->url_path && sp->url_path[0] == '/') {
        if (sp->peer_service)
            ls_buf_add(out, sp->peer_service, strlen(sp->peer_service));
        add_path(out, sp->url_path);
    } else {
        return 0;
    }
    rc = ls_buf_failed(out);
    return rc == LS_ENOMEM ? LS_ENOMEM : rc != 0 ? 0 : 1; /* too long: the name stands */
}

int ls_tj_span_emit(ls_tj *tj, const cJSON *obj)
{
    int rc;

    (void)obj;
    if ((rc = ls_tj_http_name(&tj->sp, &tj->name)) < 0)
        return rc;
    if (rc == 1)
        tj->sp.name = ls_buf_str(&tj->name);
    if (tj->nattrs) {
        ls_buf_addc(&tj->attrs, '}');
        if (ls_buf_failed(&tj->attrs) == LS_ENOMEM)
            return LS_ENOMEM;
        tj->sp.attributes = ls_buf_str(&tj->attrs);
    }
    tj->attrs_cut += tj->cut;
    tj->spans++;
    return tj->sink.span ? tj->sink.span(tj->sink.ctx, &tj->sp) : 0;
}

/* ---- dispatch ----------------------------------------------------------- */

/* A top-level value held whole, by its shape. */
static int dispatch(ls_tj *tj, const cJSON *root, uint64_t line, int is_line, const char *raw,
                    size_t rawlen)
{
    tj->cur_line = line;
    tj->cur_is_line = is_line;
    tj->cur_has_off = 0;
    tj->values++;
    /* An array of Jaeger traces, or Zipkin's array of spans. */
    if (cJSON_IsArray(root) && cJSON_GetObjectItemCaseSensitive(root->child, "traceID") &&
        cJSON_GetObjectItemCaseSensitive(root->child, "spans"))
        return ls_jaeger_walk(tj, root, line);
    if (cJSON_IsArray(root))
        return ls_zipkin_walk(tj, root, line);
    if (cJSON_IsObject(root)) {
        if (ls_tj_get(root, "resourceSpans", "resource_spans"))
            return ls_otlp_walk(tj, root, line);
        if (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "data")) ||
            (cJSON_GetObjectItemCaseSensitive(root, "traceID") &&
             cJSON_GetObjectItemCaseSensitive(root, "spans")))
            return ls_jaeger_walk(tj, root, line);
        if (cJSON_GetObjectItemCaseSensitive(root, "traceId") &&
            cJSON_GetObjectItemCaseSensitive(root, "id"))
            return ls_zipkin_walk(tj, root, line);
    }
    bad(tj, line,
        "JSON value is not a trace export (OTLP resourceSpans, Jaeger data/spans or Zipkin "
        "spans)",
        raw, rawlen);
    return 0;
}

/* One unit (see tracejson.h, "Streaming") of a value of kind `kind`. */
static int dispatch_unit(ls_tj *tj, const cJSON *v, int kind, uint64_t line)
{
    switch (kind) {
    case TJ_U_SPAN: return ls_otlp_walk_span(tj, v, line);
    case TJ_U_OTLP:
        if (!cJSON_IsObject(v)) {
            ls_tj_bad_span(tj, "OTLP resourceSpans element is not a JSON object", v);
            return 0;
        }
        return ls_otlp_walk_resource(tj, v, line);
    case TJ_U_JAEGER:
        if (!cJSON_IsObject(v)) {
            ls_tj_bad_span(tj, "Jaeger trace is not a JSON object", v);
            return 0;
        }
        return ls_jaeger_walk(tj, v, line);
    default:
        if (cJSON_IsObject(v) && cJSON_GetObjectItemCaseSensitive(v, "traceID") &&
            cJSON_GetObjectItemCaseSensitive(v, "spans"))
            return ls_jaeger_walk(tj, v, line);
        return ls_zipkin_walk(tj, v, line);
    }
}

/* ---- framing ------------------------------------------------------------ */

/* Parse len bytes as exactly one JSON value (white space may follow);
 * NULL if they are not, with *errpos the offset of the error. */
static cJSON *parse_value(const char *p, size_t len, size_t *errpos)
{
    const char *end = NULL;
    cJSON *v = cJSON_ParseWithLengthOpts(p, len, &end, 0);
    if (v && end) {
        for (; end < p + len; end++)
            if (*end != ' ' && *end != '\t' && *end != '\r' && *end != '\n')
                break;
        if (end < p + len) {
            cJSON_Delete(v);
            v = NULL;
        }
    }
    if (errpos)
        *errpos = end && end >= p && end <= p + len ? (size_t)(end - p) : 0;
    return v;
}

static int is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Forget the held text; give a large buffer's memory back. */
static void cap_drop(ls_tj *tj)
{
    tj->capturing = tj->cap_over = 0;
    if (tj->cap.cap > CAP_KEEP) {
        ls_buf_free(&tj->cap);
        ls_buf_init(&tj->cap, tj->doc_max);
    } else {
        ls_buf_reset(&tj->cap);
    }
}

/* Hold text from byte `off` of the piece being read on. */
static void cap_begin(ls_tj *tj, size_t off)
{
    cap_drop(tj);
    tj->capturing = 1;
    tj->cap_from = off;
    tj->cap_line = tj->lineno;
    tj->cap_off = tj->line_off + off;
}

/* The held text passed doc_max: say so once, keep scanning, keep nothing.
 * `more` (n bytes) is what did not fit, shown when nothing is held yet. */
static void cap_over_bound(ls_tj *tj, const char *more, size_t n)
{
    char msg[320];
    snprintf(msg, sizeof(msg),
             "the JSON value starting here (at byte %llu of the line) is larger than %zu bytes, "
             "the bound for one value read whole (%s); its spans are skipped",
             (unsigned long long)tj->cap_off, tj->doc_max,
             tj->in_unit ? "one ResourceSpans, trace or span of the export"
                         : "a document that is not read element by element");
    note(tj, tj->cap_line, msg);
    tj->cur_has_off = 0;
    if (tj->cap.len > 0)
        bad(tj, tj->cap_line, "JSON value over the size bound, skipped", ls_buf_str(&tj->cap),
            tj->cap.len);
    else
        bad(tj, tj->cap_line, "JSON value over the size bound, skipped", more, n);
    tj->over++;
    ls_buf_free(&tj->cap);
    ls_buf_init(&tj->cap, tj->doc_max);
    tj->cap_over = 1;
}

/* Append n bytes to the held text. 0 or LS_ENOMEM. */
static int cap_add(ls_tj *tj, const char *p, size_t n)
{
    int rc;
    if (!tj->capturing || tj->cap_over || n == 0)
        return 0;
    ls_buf_add(&tj->cap, p, n);
    rc = ls_buf_failed(&tj->cap);
    if (rc == LS_ENOMEM)
        return LS_ENOMEM;
    if (rc != 0)
        cap_over_bound(tj, p, n);
    return 0;
}

/* Held text of the piece p from where it started up to byte e. */
static int cap_to(ls_tj *tj, const char *p, size_t e)
{
    int rc = cap_add(tj, p + tj->cap_from, e - tj->cap_from);
    tj->cap_from = e;
    return rc;
}

/* The OTLP resource being read, from byte e of the piece p on. */
static int res_to(ls_tj *tj, const char *p, size_t e)
{
    if (tj->res_on && e > tj->res_from) {
        ls_buf_add(&tj->res, p + tj->res_from, e - tj->res_from);
        if (ls_buf_failed(&tj->res) == LS_ENOMEM)
            return LS_ENOMEM;
    }
    tj->res_from = e;
    return 0;
}

/* The text held for a value that did not parse: name the line of the
 * error (text from `line` on, `off` its byte offset in its line) and show
 * that line. */
static void bad_json(ls_tj *tj, const char *what, uint64_t line, uint64_t off, size_t errpos)
{
    const char *t = ls_buf_str(&tj->cap);
    size_t i, from = 0, to;
    char reason[160];
    uint64_t at = line;

    for (i = 0; i < errpos; i++)
        if (t[i] == '\n') {
            at++;
            from = i + 1;
        }
    for (to = from; to < tj->cap.len && t[to] != '\n'; to++)
        ;
    if (at == line && from == 0)
        snprintf(reason, sizeof(reason), "%s: invalid JSON (from byte %llu of the line)", what,
                 (unsigned long long)off);
    else
        snprintf(reason, sizeof(reason), "%s: invalid JSON in the value starting at line %llu",
                 what, (unsigned long long)line);
    tj->cur_has_off = 0;
    bad(tj, at, reason, t + from, to - from);
}

/* The current ResourceSpans' resource is forgotten. */
static void resource_reset(ls_tj *tj)
{
    free(tj->rs_service);
    tj->rs_service = NULL;
    tj->res_seen = tj->res_on = 0;
    ls_buf_reset(&tj->res);
}

/* Forget the top-level value being read. */
static void value_reset(ls_tj *tj)
{
    tj->root = 0;
    tj->depth = tj->in_str = tj->esc = 0;
    tj->key_depth = tj->want_key = tj->in_key = tj->value_next = 0;
    tj->keylen = 0;
    tj->streamed = 0;
    tj->in_unit = tj->unit_scalar = tj->unit_roles = 0;
    cap_drop(tj);
    resource_reset(tj);
}

/* Whether the unit held, or the value, lies on one line of JSON Lines. */
static int on_one_line(const ls_tj *tj, uint64_t first)
{
    return tj->mode != TJ_DOC && first == tj->lineno && first == tj->root_line;
}

/* The unit held is complete: parse it and read its spans. */
static int unit_done(ls_tj *tj)
{
    size_t errpos;
    cJSON *v;
    int rc = 0;

    tj->in_unit = tj->unit_scalar = tj->unit_roles = 0;
    if (!tj->cap_over && tj->unit_kind != TJ_U_SKIP) {
        tj->cur_line = tj->cap_line;
        tj->cur_is_line = on_one_line(tj, tj->cap_line);
        tj->cur_off = tj->cap_off;
        tj->cur_has_off = tj->cur_is_line;
        v = parse_value(ls_buf_str(&tj->cap), tj->cap.len, &errpos);
        if (v) {
            rc = dispatch_unit(tj, v, tj->unit_kind, tj->cap_line);
            cJSON_Delete(v);
            tj->cur_has_off = 0;
        } else {
            tj->bad_units++;
            bad_json(tj, "an element of the export", tj->cap_line, tj->cap_off, errpos);
        }
    }
    cap_drop(tj);
    return rc;
}

/* The resource of the current ResourceSpans is complete: its service. */
static int resource_done(ls_tj *tj)
{
    cJSON *v = parse_value(ls_buf_str(&tj->res), tj->res.len, NULL);
    int rc = 0;

    tj->res_on = 0;
    tj->res_seen = 1; /* a broken resource names no service; its spans still count */
    if (v) {
        rc = ls_otlp_resource(tj, v);
        cJSON_Delete(v);
    }
    ls_buf_reset(&tj->res);
    return rc;
}

/* The top-level value closed on the current line. */
static int root_done(ls_tj *tj)
{
    size_t errpos;
    cJSON *v;
    int rc = 0, one_line = tj->root_line == tj->lineno;

    if (tj->mode == TJ_UNDECIDED)
        tj->mode = one_line ? TJ_LINES : TJ_DOC;
    if (tj->streamed) {
        tj->values++;
    } else if (tj->capturing && !tj->cap_over) {
        v = parse_value(ls_buf_str(&tj->cap), tj->cap.len, &errpos);
        if (v) {
            rc = dispatch(tj, v, tj->root_line, tj->mode == TJ_LINES && one_line,
                          ls_buf_str(&tj->cap), tj->cap.len);
            cJSON_Delete(v);
        } else if (one_line && tj->mode == TJ_LINES) {
            tj->cur_has_off = 0;
            bad(tj, tj->root_line, "not a JSON value", ls_buf_str(&tj->cap), tj->cap.len);
        } else {
            bad_json(tj, "a JSON document", tj->root_line, tj->cap_off, errpos);
        }
    }
    value_reset(tj);
    return rc;
}

static int role_at(const ls_tj *tj, int depth)
{
    return depth > 0 && depth <= TJ_ROLE_DEPTH ? tj->role[depth] : TJ_R_NONE;
}

static int is_object_role(int role)
{
    return role == TJ_R_ROOT_OBJ || role == TJ_R_RS || role == TJ_R_SS;
}

/* Open a container of role `role` one level down. */
static void push(ls_tj *tj, int role)
{
    tj->depth++;
    if (tj->depth <= TJ_ROLE_DEPTH)
        tj->role[tj->depth] = role;
    if (is_object_role(role) && tj->depth <= TJ_ROLE_DEPTH) {
        tj->key_depth = tj->depth;
        tj->want_key = 1;
        tj->value_next = 0;
    }
}

/* A top-level value opens with `c` at byte i of the piece. */
static void root_begin(ls_tj *tj, char c, size_t i)
{
    value_reset(tj);
    tj->root = 1;
    tj->root_line = tj->lineno;
    if (c == '{') {
        /* Held whole until a member turns out to be an array of units. */
        cap_begin(tj, i);
        push(tj, TJ_R_ROOT_OBJ);
    } else {
        tj->streamed = 1;
        push(tj, TJ_R_ROOT_ARR);
    }
}

/* What the member named key[0, len) of an object of role `role` is. */
static int key_kind(int role, const char *key, size_t len)
{
#define KEY_IS(s) (len == sizeof(s) - 1 && memcmp(key, s, len) == 0)
    if (role == TJ_R_ROOT_OBJ && (KEY_IS("resourceSpans") || KEY_IS("resource_spans")))
        return TJ_K_RESOURCE_SPANS;
    if (role == TJ_R_ROOT_OBJ && KEY_IS("data"))
        return TJ_K_DATA;
    if (role == TJ_R_RS && KEY_IS("resource"))
        return TJ_K_RESOURCE;
    if (role == TJ_R_RS && (KEY_IS("scopeSpans") || KEY_IS("scope_spans") ||
                            KEY_IS("instrumentationLibrarySpans") ||
                            KEY_IS("instrumentation_library_spans")))
        return TJ_K_SCOPE_SPANS;
    if (role == TJ_R_SS && KEY_IS("spans"))
        return TJ_K_SPANS;
    return TJ_K_OTHER;
#undef KEY_IS
}

/* Text that is not JSON where a top-level value should begin: the rest of
 * the line is reported and skipped. */
static void not_json(ls_tj *tj, const char *p, size_t n)
{
    tj->cur_has_off = 0;
    bad(tj, tj->lineno, "not a JSON value", p, n);
    tj->skip_line = 1;
}

/* A unit of kind `kind` begins with c at byte i; a container opened by it
 * takes role `role`. */
static void unit_begin(ls_tj *tj, int kind, char c, size_t i, int role)
{
    cap_begin(tj, i);
    tj->in_unit = 1;
    tj->unit_kind = kind;
    tj->unit_roles = 0;
    tj->unit_scalar = c != '{' && c != '[';
    tj->unit_depth = tj->depth;
    if (c == '"')
        tj->in_str = 1;
    else if (!tj->unit_scalar)
        push(tj, role);
}

/* An element of an array of role `role` begins with c at byte i. */
static void element_begin(ls_tj *tj, int role, char c, size_t i)
{
    switch (role) {
    case TJ_R_ROOT_ARR:
        if (c == '[')
            push(tj, TJ_R_UNITS_ELEM); /* a list of traces, each a list of spans */
        else
            unit_begin(tj, TJ_U_ELEM, c, i, TJ_R_NONE);
        break;
    case TJ_R_UNITS_JAEGER: unit_begin(tj, TJ_U_JAEGER, c, i, TJ_R_NONE); break;
    case TJ_R_UNITS_ELEM: unit_begin(tj, TJ_U_ELEM, c, i, TJ_R_NONE); break;
    case TJ_R_UNITS_SPAN: unit_begin(tj, TJ_U_SPAN, c, i, TJ_R_NONE); break;
    case TJ_R_RS_ARR:
        /* A ResourceSpans: held whole until its spans turn out to come
         * after its resource, then read span by span. */
        resource_reset(tj);
        unit_begin(tj, TJ_U_OTLP, c, i, TJ_R_RS);
        tj->unit_roles = c == '{';
        break;
    default: /* TJ_R_SS_ARR */
        if (c == '{')
            push(tj, TJ_R_SS);
        else
            unit_begin(tj, TJ_U_SKIP, c, i, TJ_R_NONE);
        break;
    }
}

/* The value of a member of kind `kind` (TJ_K_*) opens a container with c
 * at byte i. */
static void member_begin(ls_tj *tj, int kind, char c, size_t i)
{
    if (c == '[' && (kind == TJ_K_RESOURCE_SPANS || kind == TJ_K_DATA)) {
        /* The export's array: from here on, unit by unit. */
        cap_drop(tj);
        tj->streamed = 1;
        push(tj, kind == TJ_K_DATA ? TJ_R_UNITS_JAEGER : TJ_R_RS_ARR);
    } else if (c == '{' && kind == TJ_K_RESOURCE && !tj->res_seen && !tj->res_on) {
        tj->res_on = 1;
        tj->res_from = i;
        tj->res_depth = tj->depth + 1;
        ls_buf_reset(&tj->res);
        push(tj, TJ_R_NONE);
    } else if (c == '[' && kind == TJ_K_SCOPE_SPANS && tj->res_seen) {
        if (tj->in_unit && tj->unit_roles) {
            /* The resource is known: the spans are read one by one. */
            tj->in_unit = tj->unit_roles = 0;
            cap_drop(tj);
        }
        push(tj, TJ_R_SS_ARR);
    } else if (c == '[' && kind == TJ_K_SPANS) {
        push(tj, TJ_R_UNITS_SPAN);
    } else {
        push(tj, TJ_R_NONE);
    }
}

/* A container closes with the byte i of p. */
static int pop(ls_tj *tj, const char *p, size_t i)
{
    int d = tj->depth, role = role_at(tj, d), rc;

    tj->depth--;
    if (tj->res_on && d == tj->res_depth) {
        if ((rc = res_to(tj, p, i + 1)) != 0 || (rc = resource_done(tj)) != 0)
            return rc;
    }
    if (tj->in_unit && !tj->unit_scalar && tj->depth == tj->unit_depth) {
        if ((rc = cap_to(tj, p, i + 1)) != 0 || (rc = unit_done(tj)) != 0)
            return rc;
    }
    if (role == TJ_R_RS)
        resource_reset(tj);
    if (is_object_role(role)) {
        /* Member names are read in the enclosing object of a role, if any. */
        int k = tj->depth;
        while (k > 0 && !is_object_role(role_at(tj, k)))
            k--;
        tj->key_depth = k;
        tj->want_key = tj->value_next = 0;
    }
    if (tj->depth == 0) {
        if ((rc = cap_to(tj, p, i + 1)) != 0)
            return rc;
        return root_done(tj);
    }
    return 0;
}

/*
 * One byte outside strings, at byte i of the piece p, in the top-level
 * value (see "Streaming" in tracejson.h). Returns 0 or a negative code.
 */
static int scan_byte(ls_tj *tj, const char *p, size_t i)
{
    char c = p[i];
    int role, rc;

    /* A scalar unit ends before the ',' or bracket after it. */
    if (tj->in_unit && tj->unit_scalar && tj->depth == tj->unit_depth &&
        (c == ',' || c == ']' || c == '}')) {
        if ((rc = cap_to(tj, p, i)) != 0 || (rc = unit_done(tj)) != 0)
            return rc;
    }
    role = role_at(tj, tj->depth);
    if (!tj->in_unit && c != ',' && c != ']' && c != '}' &&
        (role == TJ_R_ROOT_ARR || role == TJ_R_UNITS_JAEGER || role == TJ_R_UNITS_ELEM ||
         role == TJ_R_UNITS_SPAN || role == TJ_R_RS_ARR || role == TJ_R_SS_ARR)) {
        element_begin(tj, role, c, i);
        return 0;
    }
    if (tj->value_next && tj->depth == tj->key_depth) {
        tj->value_next = 0;
        if (c == '{' || c == '[') {
            member_begin(tj, tj->member_kind, c, i);
            return 0;
        }
    }
    switch (c) {
    case '"':
        tj->in_str = 1;
        if (tj->depth == tj->key_depth && tj->want_key) {
            tj->in_key = 1;
            tj->want_key = 0;
            tj->keylen = 0;
        }
        break;
    case ':':
        if (tj->depth == tj->key_depth) {
            tj->value_next = 1;
            tj->member_kind = key_kind(role, tj->key, tj->keylen);
        }
        break;
    case ',':
        if (tj->depth == tj->key_depth)
            tj->want_key = 1;
        break;
    case '{':
    case '[':
        push(tj, TJ_R_NONE);
        break;
    case '}':
    case ']':
        return pop(tj, p, i);
    default:
        break;
    }
    return 0;
}

/* Bytes of a string from byte i of p: past its end, or to the end of p.
 * Returns the offset of the next byte to scan. */
static size_t scan_string(ls_tj *tj, const char *p, size_t i, size_t n)
{
    for (; i < n; i++) {
        char c = p[i];
        if (tj->esc) {
            tj->esc = 0;
        } else if (c == '\\') {
            tj->esc = 1;
        } else if (c == '"') {
            tj->in_str = tj->in_key = 0;
            return i + 1;
        } else if (tj->in_key) {
            if (tj->keylen < sizeof(tj->key))
                tj->key[tj->keylen++] = c;
        } else {
            /* Plain string bytes: skip to the next quote or backslash. */
            const char *q = p + i, *end = p + n;
            while (q < end && *q != '"' && *q != '\\')
                q++;
            i = (size_t)(q - p) - 1;
        }
    }
    return n;
}

/* A piece of the current line through the scanner. */
static int scan_piece(ls_tj *tj, const char *p, size_t n)
{
    size_t i = 0;
    int rc;

    tj->cap_from = tj->res_from = 0;
    while (i < n) {
        if (tj->in_str) {
            i = scan_string(tj, p, i, n);
            continue;
        }
        if (tj->in_unit && !tj->unit_scalar && !tj->unit_roles) {
            /* Inside a unit only strings and brackets matter. */
            while (i < n && p[i] != '"' && p[i] != '{' && p[i] != '}' && p[i] != '[' &&
                   p[i] != ']')
                i++;
            if (i == n)
                break;
        }
        if (is_ws(p[i])) {
            i++;
            continue;
        }
        if (!tj->root) {
            if (p[i] != '{' && p[i] != '[') {
                not_json(tj, p + i, n - i);
                return 0;
            }
            root_begin(tj, p[i], i);
            i++;
            continue;
        }
        if ((rc = scan_byte(tj, p, i)) != 0)
            return rc;
        i++;
    }
    if ((rc = res_to(tj, p, n)) != 0)
        return rc;
    return cap_to(tj, p, n);
}

/* The current line ended with a top-level value open. */
static int line_end(ls_tj *tj)
{
    if (!tj->root)
        return 0;
    if (tj->mode == TJ_LINES) {
        if (!tj->cap_over) {
            tj->cur_has_off = 0;
            bad(tj, tj->root_line, "incomplete JSON value (a JSON Lines line cut short?)",
                ls_buf_str(&tj->cap), tj->cap.len);
        }
        value_reset(tj);
        return 0;
    }
    tj->mode = TJ_DOC;
    if (tj->res_on) {
        ls_buf_addc(&tj->res, '\n');
        if (ls_buf_failed(&tj->res) == LS_ENOMEM)
            return LS_ENOMEM;
    }
    return cap_add(tj, "\n", 1);
}

/*
 * Whether a line opens an object or array at column 0 whose brackets close
 * at its end, with something inside: a JSON Lines line, not a line of a
 * pretty-printed document ("{}" or "[]" at column 0 may be a member of a
 * document printed with no indentation). Brackets only: its elements may
 * be invalid, and are reported when read.
 */
static int closes_alone(const char *p, size_t n)
{
    size_t i;
    int depth = 0, in_str = 0, esc = 0, inside = 0;

    while (n > 0 && is_ws(p[n - 1]))
        n--;
    if (n == 0 || (p[0] != '{' && p[0] != '['))
        return 0;
    for (i = 0; i < n; i++) {
        char c = p[i];
        if (in_str) {
            if (esc)
                esc = 0;
            else if (c == '\\')
                esc = 1;
            else if (c == '"')
                in_str = 0;
            continue;
        }
        if (c == '"')
            in_str = 1;
        else if (c == '{' || c == '[')
            depth++;
        else if ((c == '}' || c == ']') && --depth == 0)
            return i == n - 1 && inside;
        if (i > 0 && !is_ws(c))
            inside = 1;
    }
    return 0;
}

/*
 * A new line: a byte order mark at the file's start is dropped; a whole
 * line at column 0 that is a complete object or array on its own, inside
 * an unfinished document, ends that document (it was a cut JSON Lines
 * line).
 */
static void line_begin(ls_tj *tj, const char **line, size_t *len, uint64_t lineno, int more)
{
    tj->lineno = lineno;
    tj->line_off = 0;
    tj->skip_line = 0;
    if (lineno == 1 && *len >= 3 && memcmp(*line, "\xef\xbb\xbf", 3) == 0) {
        *line += 3;
        *len -= 3;
        tj->line_off = 3;
    }
    if (tj->root && tj->mode == TJ_DOC && !more && closes_alone(*line, *len)) {
        if (!tj->cap_over) {
            tj->cur_has_off = 0;
            bad(tj, tj->root_line, "incomplete JSON value (a JSON Lines line cut short?)",
                ls_buf_str(&tj->cap), tj->cap.len);
        }
        value_reset(tj);
        tj->mode = TJ_LINES;
    }
}

int ls_tj_feed_part(void *state, const char *part, size_t len, uint64_t lineno, int more)
{
    ls_tj *tj = state;
    int rc = 0;

    if (!tj->cont)
        line_begin(tj, &part, &len, lineno, more);
    tj->cont = more;
    if (!tj->skip_line && (rc = scan_piece(tj, part, len)) != 0)
        return rc;
    tj->line_off += len;
    if (!more)
        rc = line_end(tj);
    return rc;
}

int ls_tj_feed(void *state, const char *line, size_t len, uint64_t lineno)
{
    if (len > 0 && line[len - 1] == '\r')
        len--;
    return ls_tj_feed_part(state, line, len, lineno, 0);
}

int ls_tj_finish(void *state)
{
    ls_tj *tj = state;
    char msg[256];

    if (tj->root && !tj->cap_over) {
        tj->cur_has_off = 0;
        bad(tj, tj->root_line,
            "incomplete JSON document at the end of the file (its brackets do not close)",
            ls_buf_str(&tj->cap), tj->cap.len);
    }
    value_reset(tj);
    snprintf(msg, sizeof(msg), "%llu spans read from %llu JSON values (%s)",
             (unsigned long long)tj->spans, (unsigned long long)tj->values,
             tj->mode == TJ_LINES ? "one per line" : "multi-line documents");
    note(tj, 0, msg);
    if (tj->bad_units || tj->over) {
        snprintf(msg, sizeof(msg),
                 "%llu elements of the export were not read (%llu invalid JSON, %llu over the "
                 "size bound); the elements around them were",
                 (unsigned long long)(tj->bad_units + tj->over),
                 (unsigned long long)tj->bad_units, (unsigned long long)tj->over);
        note(tj, 0, msg);
    }
    if (tj->spans == 0 && tj->bad_records > 0) {
        /* Never a silent zero: an export none of whose spans could be read
         * fails the run, as a log none of whose lines parse does. */
        snprintf(msg, sizeof(msg),
                 "no span could be read from this trace export (%llu records rejected, named "
                 "above)",
                 (unsigned long long)tj->bad_records);
        note(tj, 0, msg);
        return LS_EFORMAT;
    }
    if (tj->base64_ids) {
        snprintf(msg, sizeof(msg),
                 "%llu ids were base64 (the protobuf JSON mapping) rather than OTLP/JSON's hex; "
                 "decoded",
                 (unsigned long long)tj->base64_ids);
        note(tj, 0, msg);
    }
    if (tj->attrs_cut) {
        snprintf(msg, sizeof(msg),
                 "%llu spans had attributes beyond the %u-byte bound of their attributes text; "
                 "those were dropped",
                 (unsigned long long)tj->attrs_cut, LS_TRACE_ATTRS_MAX);
        note(tj, 0, msg);
    }
    return 0;
}

/* ---- life cycle --------------------------------------------------------- */

void ls_tj_destroy(void *state)
{
    ls_tj *tj = state;
    if (!tj)
        return;
    ls_buf_free(&tj->cap);
    ls_buf_free(&tj->res);
    free(tj->rs_service);
    ls_buf_free(&tj->attrs);
    ls_buf_free(&tj->one);
    ls_buf_free(&tj->name);
    free(tj->file);
    free(tj->pid_attr);
    free(tj);
}

int ls_tj_create(void **out, const char *format, const ls_parse_opts *opts, const ls_sink *sink)
{
    ls_tj *tj = ls_calloc(1, sizeof(*tj));

    *out = NULL;
    if (!tj)
        return LS_ENOMEM;
    tj->sink = *sink;
    tj->format = format;
    tj->doc_max = LS_TRACE_DOC_MAX;
    ls_buf_init(&tj->cap, tj->doc_max);
    ls_buf_init(&tj->res, tj->doc_max);
    ls_buf_init(&tj->attrs, LS_TRACE_ATTRS_MAX + 16);
    ls_buf_init(&tj->one, LS_TRACE_ATTRS_MAX + 16);
    ls_buf_init(&tj->name, LS_TRACE_NAME_MAX);
    tj->file = ls_strdup(opts && opts->file ? opts->file : "-");
    tj->pid_attr = ls_strdup(LS_SPAN_PID_ATTRIBUTE);
    if (!tj->file || !tj->pid_attr) {
        ls_tj_destroy(tj);
        return LS_ENOMEM;
    }
    *out = tj;
    return 0;
}

void ls_trace_parser_set_doc_max(void *state, size_t max)
{
    ls_tj *tj = state;
    tj->doc_max = max ? max : LS_TRACE_DOC_MAX;
    ls_buf_free(&tj->cap);
    ls_buf_init(&tj->cap, tj->doc_max);
}

int ls_trace_parser_set_pid_attribute(void *state, const char *name)
{
    ls_tj *tj = state;
    char *s = ls_strdup(name ? name : LS_SPAN_PID_ATTRIBUTE);
    if (!s)
        return LS_ENOMEM;
    free(tj->pid_attr);
    tj->pid_attr = s;
    return 0;
}
