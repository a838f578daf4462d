/*
 * ls_record.h — one PostgreSQL log record, whatever format it came in.
 *
 * A parser (stderr, csvlog, jsonlog, ...) fills an ls_record and hands it to
 * the classifier. Every string is NUL-terminated and owned by the parser;
 * it stays valid only during the callback that receives the record. NULL
 * means "not in this log" (e.g. the prefix has no %u); "" means present but
 * empty.
 */
#ifndef LS_RECORD_H
#define LS_RECORD_H

#include "ls_common.h"

typedef struct ls_record {
    /* Where the record starts in the input, for messages and the store. */
    const char *file;
    uint64_t line;

    ls_ts ts;                 /* %m/%t/%n or log_time; LS_TS_NONE if absent */
    int pid;                  /* %p or process_id; 0 if absent */
    const char *session_id;   /* %c: "<start hex>.<pid hex>" */
    int64_t session_line;     /* %l; -1 if absent */
    ls_ts session_start;      /* %s; LS_TS_NONE if absent */
    const char *user;         /* %u */
    const char *database;     /* %d */
    const char *application;  /* %a */
    const char *remote;       /* %r or %h (host, host(port), [local]) */
    const char *backend_type; /* %b */
    const char *command_tag;  /* %i */
    const char *vxid;         /* %v: "3/12"; NULL/"" if none */
    uint32_t xid;             /* %x; 0 = none assigned */
    char sqlstate[6];         /* %e or from verbose output; "" if unknown */

    const char *severity;     /* LOG, ERROR, FATAL, ... (English form) */
    const char *message;
    const char *detail;
    const char *hint;
    const char *query;        /* internal query (QUERY: line) */
    const char *context;
    const char *statement;    /* STATEMENT: the client statement */
    const char *location;

    /* Lines of this record the parser read by structure alone (a field
     * label it knew by its place, not its word): counted, see
     * ls_classify_stats.structural. */
    uint32_t structural_lines;

    /* A parser that builds a record's strings in one buffer says where it
     * is: every string field above but file that lies in these bytes ends
     * in them too, and the handoff to the store copies them in one go.
     * NULL when the strings are anywhere. */
    const char *strings;
    size_t strings_len;
} ls_record;

#endif
