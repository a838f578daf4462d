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
 * CloudNativePG's instance manager writes each csvlog record of its server
 * as a JSON line of its own (docs/src/logging.md in cloudnative-pg):
 *   {"level":"info","ts":1619781249.7188137,"logger":"postgres","msg":"record",
 *    "record":{"log_time":"2021-04-30 11:14:09.718 UTC","process_id":"25",...}}
 * with csvlog's column names and every value a string ("" for csvlog's
 * empty fields). Its lines of other loggers (the operator, pg_controldata,
 * ...) are not server records and are passed over without a word.
 *
 * Cloud SQL's log entries, as Cloud Logging exports them one JSON object a
 * line ({"textPayload":"...","timestamp":"2020-04-08T21:32:23.456622Z",
 * "severity":"INFO","resource":{"type":"cloudsql_database",...},...}),
 * carry a stderr line in textPayload: "2022-07-30 05:04:30.061 UTC
 * [4075710]: [2-1] db=...,user=... STATEMENT:  ..." (older servers wrote no
 * time: "[153735]: [10-1] db=...,user=... LOG:  ..."). The text goes
 * through a stderr parser (prefix given or inferred), with the entry's
 * timestamp standing in for a missing time.
 *
 * The same entries pretty-printed, as the Logs Explorer downloads them or
 * `gcloud logging read --format=json` writes them (a JSON array over many
 * lines, a line "[" or "{" alone opening it), are read in
 * document mode: the lines are scanned for the array's elements (or a run
 * of objects), each gathered up to DOC_ENTRY_MAX bytes and handled as a
 * line would be, its number that of the line it began on.
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
#define DOC_ENTRY_MAX (4u << 20) /* document mode: the longest entry gathered */

/* Document mode's scanner: where it is in the JSON text. */
typedef struct doc_scan {
    int on;          /* a line opened a document (and mode stays on) */
    int depth;       /* brackets and braces open */
    int entry_depth; /* depth an entry's '{' opens at: 1 in an array, 0 else */
    int in_string, escape;
    int gathering;   /* inside an entry */
    int too_long;    /* its text passed DOC_ENTRY_MAX and is not kept */
    uint64_t line;   /* the line the entry began on */
    ls_buf entry;
} doc_scan;

typedef struct json_parser {
    char *file;
    ls_sink sink;
    ls_parse_opts opts; /* for the stderr parser of Cloud SQL's textPayload */
    char *prefix;       /* opts.prefix, owned */
    void *inner;        /* that parser, made at the first textPayload */
    ls_buf remote;   /* "host:port" of the current record */
    ls_buf location; /* "func, file:line" of the current record */
    doc_scan doc;    /* document mode */
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

/* A CloudNativePG string: "" stands for csvlog's empty field, i.e. NULL. */
static const char *cnpg_str(const cJSON *rec, const char *key)
{
    const char *s = str_of(rec, key);
    return s && *s ? s : NULL;
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

/* A Cloud SQL entry: its textPayload's lines through the stderr parser. */
static int cloudsql_entry(json_parser *jp, const cJSON *obj, uint64_t lineno)
{
    const char *text = str_of(obj, "textPayload"), *nl;
    ls_ts ts = ts_of(obj, "timestamp");
    char err[512] = "";
    int rc;

    if (!jp->inner) {
        if ((rc = ls_stderr_parser.create(&jp->inner, &jp->opts, &jp->sink, err, sizeof(err))) !=
            0) {
            if (rc != LS_ENOMEM)
                bad(jp, lineno, err[0] ? err : "bad --prefix", "", 0);
            return rc;
        }
        ls_stderr_set_headed(jp->inner);
    }
    for (;;) {
        nl = strchr(text, '\n');
        rc = ls_stderr_feed_headed(jp->inner, text, nl ? (size_t)(nl - text) : strlen(text),
                                   lineno, 0, ts);
        if (rc != 0 || !nl)
            return rc;
        text = nl + 1;
    }
}

/* A CloudNativePG line: its "record" when its logger is postgres. */
static int cnpg_record(json_parser *jp, const cJSON *obj, uint64_t lineno, const char *line,
                       size_t len)
{
    const cJSON *rec = cJSON_GetObjectItemCaseSensitive(obj, "record");
    const char *st;
    ls_record r;
    int64_t v;

    if (strcmp(str_of(obj, "logger"), "postgres") != 0)
        return 0;
    if (!cJSON_IsObject(rec) || !str_of(rec, "error_severity")) {
        bad(jp, lineno, "CloudNativePG postgres line without a csvlog record", line, len);
        return 0;
    }
    memset(&r, 0, sizeof(r));
    r.file = jp->file;
    r.line = lineno;
    r.ts = ts_of(rec, "log_time");
    v = int_of(rec, "process_id");
    r.pid = v > 0 && v <= INT32_MAX ? (int)v : 0;
    r.session_id = cnpg_str(rec, "session_id");
    r.session_line = int_of(rec, "session_line_num");
    r.session_start = ts_of(rec, "session_start_time");
    r.user = cnpg_str(rec, "user_name");
    r.database = cnpg_str(rec, "database_name");
    r.application = cnpg_str(rec, "application_name");
    r.backend_type = cnpg_str(rec, "backend_type");
    r.command_tag = cnpg_str(rec, "command_tag");
    r.remote = cnpg_str(rec, "connection_from");
    r.vxid = cnpg_str(rec, "virtual_transaction_id");
    v = int_of(rec, "transaction_id");
    r.xid = v > 0 && v <= UINT32_MAX ? (uint32_t)v : 0;
    st = str_of(rec, "sql_state_code");
    if (st && strlen(st) == 5)
        memcpy(r.sqlstate, st, 6);
    r.severity = str_of(rec, "error_severity");
    r.message = str_of(rec, "message");
    r.detail = cnpg_str(rec, "detail");
    r.hint = cnpg_str(rec, "hint");
    r.query = cnpg_str(rec, "internal_query");
    r.context = cnpg_str(rec, "context");
    r.statement = cnpg_str(rec, "query");
    r.location = cnpg_str(rec, "location");
    return jp->sink.record(jp->sink.ctx, &r);
}

static int json_entry(json_parser *jp, const char *line, size_t len, uint64_t lineno);

/* A line that is "[" or "{" alone (blanks aside): a pretty-printed document. */
static int opens_document(const char *line, size_t len)
{
    size_t i, n = 0;
    char c = 0;
    for (i = 0; i < len; i++) {
        if (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')
            continue;
        c = line[i];
        n++;
    }
    return n == 1 && (c == '[' || c == '{');
}

/* The end of an entry gathered in document mode: handled as a line. */
static int doc_entry_end(json_parser *jp)
{
    doc_scan *d = &jp->doc;
    int rc = 0;
    d->gathering = 0;
    if (ls_buf_failed(&d->entry) == LS_ENOMEM)
        return LS_ENOMEM;
    if (d->too_long)
        bad(jp, d->line, "JSON entry longer than 4 MiB", ls_buf_str(&d->entry),
            d->entry.len);
    else
        rc = json_entry(jp, ls_buf_str(&d->entry), d->entry.len, d->line);
    ls_buf_reset(&d->entry);
    d->too_long = 0;
    return rc;
}

/* Scan one line of a document: gather its entries' text, handle each as
 * it closes. Text outside entries (the array's brackets, commas) is
 * skipped. */
static int doc_feed(json_parser *jp, const char *line, size_t len, uint64_t lineno)
{
    doc_scan *d = &jp->doc;
    size_t i, from = 0;
    int rc;

    for (i = 0; i < len; i++) {
        char c = line[i];
        if (d->in_string) {
            if (d->escape)
                d->escape = 0;
            else if (c == '\\')
                d->escape = 1;
            else if (c == '"')
                d->in_string = 0;
            continue;
        }
        if (c == '"') {
            d->in_string = 1;
        } else if (c == '{' || c == '[') {
            if (!d->gathering && c == '{' && d->depth == d->entry_depth) {
                d->gathering = 1;
                d->line = lineno;
                from = i;
            } else if (d->depth == 0 && c == '[') {
                d->entry_depth = 1; /* an array: its elements are the entries */
            }
            d->depth++;
        } else if ((c == '}' || c == ']') && d->depth > 0) {
            d->depth--;
            if (d->gathering && d->depth == d->entry_depth) {
                if (!d->too_long)
                    ls_buf_add(&d->entry, line + from, i + 1 - from);
                if ((rc = doc_entry_end(jp)) != 0)
                    return rc;
            } else if (d->depth == 0) {
                d->entry_depth = 0;
            }
        }
    }
    if (d->gathering && !d->too_long) {
        if (d->entry.len + (len - from) > DOC_ENTRY_MAX)
            d->too_long = 1;
        else {
            ls_buf_add(&d->entry, line + from, len - from);
            ls_buf_add(&d->entry, "\n", 1);
        }
    }
    return ls_buf_failed(&d->entry) == LS_ENOMEM ? LS_ENOMEM : 0;
}

static int json_feed(void *state, const char *line, size_t len, uint64_t lineno)
{
    json_parser *jp = state;

    /* A JSON-lines record is never "[" or "{" alone: such a line starts a
     * pretty-printed document, the file's or a later one's in the run.
     * Document mode reads JSON lines as well (each is an entry). */
    if (!jp->doc.on && opens_document(line, len))
        jp->doc.on = 1;
    if (jp->doc.on)
        return doc_feed(jp, line, len, lineno);
    return json_entry(jp, line, len, lineno);
}

/* One JSON object: a jsonlog record, a Cloud SQL or CloudNativePG entry. */
static int json_entry(json_parser *jp, const char *line, size_t len, uint64_t lineno)
{
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
            if (*end != ' ' && *end != '\t' && *end != '\r' && *end != '\n')
                break;
    }
    if (!cJSON_IsObject(obj) || !end || end < line + len) {
        cJSON_Delete(obj);
        bad(jp, lineno, "not a JSON object", line, len);
        return 0;
    }
    if (str_of(obj, "textPayload")) {
        rc = cloudsql_entry(jp, obj, lineno);
        cJSON_Delete(obj);
        return rc;
    }
    if (str_of(obj, "logger")) {
        rc = cnpg_record(jp, obj, lineno, line, len);
        cJSON_Delete(obj);
        return rc;
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
    json_parser *jp = state;
    if (jp->doc.gathering) { /* the file ended inside an entry */
        jp->doc.gathering = 0;
        bad(jp, jp->doc.line, "JSON entry not closed at the end of the file",
            ls_buf_str(&jp->doc.entry), jp->doc.entry.len);
    }
    return jp->inner ? ls_stderr_parser.finish(jp->inner) : 0;
}

static void json_destroy(void *state)
{
    json_parser *jp = state;
    if (!jp)
        return;
    ls_buf_free(&jp->remote);
    ls_buf_free(&jp->location);
    ls_buf_free(&jp->doc.entry);
    if (jp->inner)
        ls_stderr_parser.destroy(jp->inner);
    free(jp->prefix);
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
    ls_buf_init(&jp->doc.entry, 0);
    jp->file = ls_strdup(opts->file ? opts->file : "-");
    jp->prefix = opts->prefix ? ls_strdup(opts->prefix) : NULL;
    jp->opts.file = jp->file;
    jp->opts.prefix = jp->prefix;
    jp->opts.prefix_inferred = opts->prefix_inferred;
    if (!jp->file || (opts->prefix && !jp->prefix)) {
        json_destroy(jp);
        return LS_ENOMEM;
    }
    *out = jp;
    return 0;
}

static int has(const char *line, size_t len, const char *s)
{
    size_t n = strlen(s), i;
    for (i = 0; i + n <= len && i < 4096; i++)
        if (memcmp(line + i, s, n) == 0)
            return 1;
    return 0;
}

/* A line of a pretty-printed entry that is its field `key`. */
static int pretty_field(const char *line, size_t len, const char *key)
{
    size_t i = 0, n = strlen(key);
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    return i > 0 && len - i >= n && memcmp(line + i, key, n) == 0;
}

/*
 * jsonlog.c writes "timestamp" first, always (Cloud Logging's export starts
 * with "textPayload" or "insertId"). A CloudNativePG file starts
 * with {"level": and names its logger (the first line may be the operator's
 * or the instance manager's own, not the server's).
 */
static int json_sniff(const char *line, size_t len)
{
    static const char mark[] = "{\"timestamp\":", cnpg[] = "{\"level\":";
    if (len >= sizeof(mark) - 1 && memcmp(line, mark, sizeof(mark) - 1) == 0)
        return 90;
    if (len >= sizeof(cnpg) - 1 && memcmp(line, cnpg, sizeof(cnpg) - 1) == 0 &&
        has(line, len, "\"logger\":") && has(line, len, "\"ts\":"))
        return 90;
    /* Cloud SQL through Cloud Logging, one entry a line */
    if (len > 0 && line[0] == '{' && has(line, len, "\"textPayload\":") &&
        has(line, len, "cloudsql"))
        return 90;
    /* A pretty-printed export (document mode): the first line says no more
     * than "a JSON document" (a weak score: ingest reads the file as ours
     * only when a later line is surely ours: a field only ours have). */
    if (opens_document(line, len))
        return 30;
    if (pretty_field(line, len, "\"textPayload\":") ||
        pretty_field(line, len, "\"error_severity\":"))
        return 40;
    return 0;
}

const ls_parser_ops ls_jsonlog_parser = {
    "jsonlog", json_sniff, json_create, json_feed, json_finish, json_destroy,
};
