/*
 * ls_span.h — one span of an application trace, whatever export format it
 * came in (OTLP/JSON, Jaeger JSON, Zipkin v2 JSON).
 *
 * A trace parser fills an ls_span per span and hands it to the sink's
 * span() callback; strings are NUL-terminated, owned by the parser and
 * valid only during the callback. NULL means absent. Attributes known
 * under old and new OpenTelemetry semantic-convention names land in one
 * field (db.statement / db.query.text → db_statement, ...).
 */
#ifndef LS_SPAN_H
#define LS_SPAN_H

#include "ls_common.h"

/* OTLP span kinds; Jaeger's span.kind tag and Zipkin's kind map onto them. */
typedef enum ls_span_kind {
    LS_SPAN_UNSPECIFIED = 0,
    LS_SPAN_INTERNAL = 1,
    LS_SPAN_SERVER = 2,
    LS_SPAN_CLIENT = 3,
    LS_SPAN_PRODUCER = 4,
    LS_SPAN_CONSUMER = 5
} ls_span_kind;

/* The attribute that carries the database backend's pid, when an
 * instrumentation records it (lockspan --pid-attribute overrides). */
#define LS_SPAN_PID_ATTRIBUTE "db.postgresql.backend_pid"

typedef struct ls_span {
    const char *file;       /* input file, for messages */
    uint64_t line;          /* line of the span's object (JSON Lines), else 0 */
    const char *format;     /* "otlp", "jaeger", "zipkin" */
    char trace_id[33];      /* lower-case hex, 32 digits; "" if absent */
    char span_id[17];       /* lower-case hex, 16 digits */
    char parent_id[17];     /* "" for a root span */
    const char *name;       /* span / operation name */
    ls_span_kind kind;
    const char *service;    /* service.name of the resource / process / endpoint */
    ls_ts start, end;       /* microseconds, UTC */
    int error;              /* status ERROR (OTLP code 2), error=true tag */

    /* Semantic conventions, old → new names folded together. */
    const char *db_system;      /* db.system, db.system.name */
    const char *db_statement;   /* db.statement, db.query.text */
    const char *db_name;        /* db.name, db.namespace */
    const char *db_operation;   /* db.operation, db.operation.name */
    const char *code_function;  /* code.function, code.function.name */
    const char *code_namespace; /* code.namespace */
    const char *code_filepath;  /* code.filepath, code.file.path */
    int64_t code_lineno;        /* code.lineno, code.line.number; 0 if absent */
    const char *http_route;     /* http.route */
    const char *http_method;    /* http.method, http.request.method */
    const char *http_url;       /* http.url, url.full */
    const char *url_path;       /* url.path, http.target, http.path (Zipkin) */
    const char *peer_service;   /* peer.service, server.address */
    int64_t db_pid;             /* LS_SPAN_PID_ATTRIBUTE (or as configured); 0 if absent */
    const char *attributes;     /* every attribute as a JSON object text, or NULL */
} ls_span;

#endif
