/*
 * jsonlog.c — parser for PostgreSQL's jsonlog format (utils/error/jsonlog.c,
 * PostgreSQL 15+).
 *
 * One JSON object per line. Keys whose value is NULL are left out, numbers
 * are unquoted, and state_code is left out for 00000. A line that is not a
 * JSON object, or an object with neither timestamp nor error_severity, is a
 * bad line; nothing here is fatal but memory exhaustion.
 *
 * The remote end is written as "host:port" (or the host alone, e.g.
 * "[local]"), which is what csvlog's connection_from holds for the same
 * connection; stderr's %r writes "host(port)" instead.
 *
 * cJSON decodes "\u0000" into a NUL inside its NUL-terminated strings, so a
 * string holding one ends there. PostgreSQL's own strings are C strings and
 * cannot contain a NUL; only a forged line can.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ls_buf.h"
#include "ls_common.h"
#include "ls_parser.h"

#define REMOTE_MAX 4096

typedef struct json_parser {
    char *file;
    ls_sink sink;
    ls_buf remote;   /* "host:port" of the current record */
    ls_buf location; /* "func, file:line" of the current record */
} json_parser;

static const char *str_of(const cJSON *obj, const char *key)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(it) ? it->valuestring : NULL;
}

/* A non-negative integer, given as a JSON number or a string of digits; -1 if absent. */
static int64_t int_of(const cJSON *obj, const char *key)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (cJSON_IsNumber(it))
        return it->valuedouble >= 0 && it->valuedouble < 9e15 ? (int64_t)it->valuedouble : -1;
    if (cJSON_IsString(it)) {
        const char *s = it->valuestring;
        int64_t v = 0;
        int n = 0;
        if (!*s)
            return -1;
        for (; *s >= '0' && *s <= '9' && n < 18; s++, n++)
            v = v * 10 + (*s - '0');
        return *s ? -1 : v;
    }
    return -1;
}

static ls_ts ts_of(const cJSON *obj, const char *key)
{
    const char *s = str_of(obj, key);
    ls_ts ts;
    if (!s || ls_ts_parse(&ts, s, strlen(s)) != 0)
        return LS_TS_NONE;
    return ts;
}

static void bad(json_parser *jp, uint64_t lineno, const char *reason, const char *line, size_t len)
{
    if (jp->sink.bad)
        jp->sink.bad(jp->sink.ctx, jp->file, lineno, reason, line, len);
}

static int json_feed(void *state, const char *line, size_t len, uint64_t lineno)
{
    json_parser *jp = state;
    const char *end = NULL, *host, *st;
    cJSON *obj;
    ls_record r;
    int64_t v;
    int rc;

    if (len == 0 || (len == 1 && line[0] == '\r'))
        return 0;
    obj = cJSON_ParseWithLengthOpts(line, len, &end, 0);
    if (obj && end) {
        /* Only white space may follow the object. */
        for (; end < line + len; end++)
            if (*end != ' ' && *end != '\t' && *end != '\r')
                break;
    }
    if (!cJSON_IsObject(obj) || !end || end < line + len) {
        cJSON_Delete(obj);
        bad(jp, lineno, "not a JSON object", line, len);
        return 0;
    }
    if (!str_of(obj, "timestamp") && !str_of(obj, "error_severity")) {
        cJSON_Delete(obj);
        bad(jp, lineno, "JSON object without timestamp or error_severity: not a jsonlog record",
            line, len);
        return 0;
    }

    memset(&r, 0, sizeof(r));
    r.file = jp->file;
    r.line = lineno;
    r.ts = ts_of(obj, "timestamp");
    v = int_of(obj, "pid");
    r.pid = v > 0 && v <= INT32_MAX ? (int)v : 0;
    r.session_id = str_of(obj, "session_id");
    r.session_line = int_of(obj, "line_num");
    r.session_start = ts_of(obj, "session_start");
    r.user = str_of(obj, "user");
    r.database = str_of(obj, "dbname");
    r.application = str_of(obj, "application_name");
    r.backend_type = str_of(obj, "backend_type");
    r.command_tag = str_of(obj, "ps");
    r.vxid = str_of(obj, "vxid");
    v = int_of(obj, "txid");
    r.xid = v > 0 && v <= UINT32_MAX ? (uint32_t)v : 0;
    st = str_of(obj, "state_code");
    if (!st)
        st = "00000";
    if (strlen(st) == 5)
        memcpy(r.sqlstate, st, 6);
    r.severity = str_of(obj, "error_severity");
    r.message = str_of(obj, "message");
    r.detail = str_of(obj, "detail");
    r.hint = str_of(obj, "hint");
    r.query = str_of(obj, "internal_query");
    r.context = str_of(obj, "context");
    r.statement = str_of(obj, "statement");

    host = str_of(obj, "remote_host");
    if (host) {
        int64_t port = int_of(obj, "remote_port");
        ls_buf_reset(&jp->remote);
        if (port >= 0)
            ls_buf_printf(&jp->remote, "%.*s:%lld", REMOTE_MAX, host, (long long)port);
        else
            ls_buf_printf(&jp->remote, "%.*s", REMOTE_MAX, host);
        if (ls_buf_failed(&jp->remote) == LS_ENOMEM) {
            cJSON_Delete(obj);
            return LS_ENOMEM;
        }
        r.remote = ls_buf_str(&jp->remote);
    }
    {
        /* As elog.c writes LOCATION: "func, file:line", or "file:line". */
        const char *func = str_of(obj, "func_name"), *fname = str_of(obj, "file_name");
        int64_t fline = int_of(obj, "file_line_num");
        if (fname && fline >= 0) {
            ls_buf_reset(&jp->location);
            if (func)
                ls_buf_printf(&jp->location, "%.*s, ", REMOTE_MAX, func);
            ls_buf_printf(&jp->location, "%.*s:%lld", REMOTE_MAX, fname, (long long)fline);
            if (ls_buf_failed(&jp->location) == LS_ENOMEM) {
                cJSON_Delete(obj);
                return LS_ENOMEM;
            }
            r.location = ls_buf_str(&jp->location);
        }
    }
    rc = jp->sink.record(jp->sink.ctx, &r);
    cJSON_Delete(obj);
    return rc;
}

static int json_finish(void *state)
{
    (void)state;
    return 0;
}

static void json_destroy(void *state)
{
    json_parser *jp = state;
    if (!jp)
        return;
    ls_buf_free(&jp->remote);
    ls_buf_free(&jp->location);
    free(jp->file);
    free(jp);
}

static int json_create(void **out, const ls_parse_opts *opts, const ls_sink *sink, char *errbuf,
                       size_t errlen)
{
    json_parser *jp = ls_calloc(1, sizeof(*jp));

    (void)errbuf;
    (void)errlen;
    *out = NULL;
    if (!jp)
        return LS_ENOMEM;
    jp->sink = *sink;
    ls_buf_init(&jp->remote, REMOTE_MAX + 32);
    ls_buf_init(&jp->location, 2 * REMOTE_MAX + 32);
    jp->file = ls_strdup(opts->file ? opts->file : "-");
    if (!jp->file) {
        json_destroy(jp);
        return LS_ENOMEM;
    }
    *out = jp;
    return 0;
}

/* jsonlog.c writes "timestamp" first, always. */
static int json_sniff(const char *line, size_t len)
{
    static const char mark[] = "{\"timestamp\":";
    return len >= sizeof(mark) - 1 && memcmp(line, mark, sizeof(mark) - 1) == 0 ? 90 : 0;
}

const ls_parser_ops ls_jsonlog_parser = {
    "jsonlog", json_sniff, json_create, json_feed, json_finish, json_destroy,
};
