/*
 * store_tables.h — the tables ingest writes, each declared once.
 *
 * LS_TABLE_t(F, C, T) lists the columns of table t in their order, each
 * an entry (T, name, type): the column's SQL type and constraint, in
 * which LS_INT, LS_TEXT and LS_REAL give the type and LS_ANY none (an
 * untyped column keeps an INTEGER as an INTEGER and a TEXT as a TEXT).
 * The first entry is F's, the others C's, so that the lists made from it
 * need no trailing separator. From the one list come:
 *
 *   LS_CREATE_TABLE(t)     "CREATE TABLE IF NOT EXISTS t(\n  c1 T1, c2 T2);\n"
 *   LS_TABLE_COLUMNS(t)    enum { t__c1, t__c2, t__ncols }: each column's
 *                          position, 0-based (its parameter is 1 + that in
 *                          the INSERT below)
 *   LS_COLUMN_NAMES(t)     "c1, c2"
 *   LS_INSERT_INTO(OP, t)  OP " INTO t(c1, c2) VALUES (?, ?)"
 *   LS_INSERT_HEAD(OP, t)  OP " INTO t(c1, c2) VALUES " (the rows follow)
 *
 * so that a writer binds `t__c2` and reads `t__c2` of a RETURNING or
 * SELECT of LS_COLUMN_NAMES(t), never a number, and a column added,
 * dropped or moved here moves the DDL, the INSERT and every bind with it.
 * A column the writer does not bind is NULL (an INTEGER PRIMARY KEY: the
 * next rowid), as if the INSERT had left it out.
 *
 * The schema of a new store is these tables, correlation's (declared the
 * same way in corr_tables.h) and what store_schema.h declares beside them
 * (views, indexes); an old
 * store is brought to it by store_upgrades (store.c). Changing a column
 * here changes the schema: LS_STORE_SCHEMA_VERSION and a step in
 * store_upgrades go with it (tests/e2e/check_store_schema.py holds every
 * table's columns as a store of this version has them).
 */
#ifndef LS_STORE_TABLES_H
#define LS_STORE_TABLES_H

#define LS_INT " INTEGER"
#define LS_TEXT " TEXT"
#define LS_REAL " REAL"
#define LS_ANY ""

/* The store's own facts (schema version aside), key = value. */
#define LS_TABLE_meta(F, C, T)         \
    F(T, key, LS_TEXT " PRIMARY KEY")  \
    C(T, value, LS_TEXT)

/* Each input file read (ingest.c): its format, prefix, size and
 * progress; found again by the hash of its first line (fingerprint,
 * incremental ingest). */
#define LS_TABLE_files(F, C, T)           \
    F(T, file_id, LS_INT " PRIMARY KEY")  \
    C(T, path, LS_TEXT " NOT NULL")       \
    C(T, format, LS_TEXT)                 \
    C(T, prefix, LS_TEXT)                 \
    C(T, gzip, LS_INT)                    \
    C(T, bytes, LS_INT)                   \
    C(T, lines, LS_INT)                   \
    C(T, records, LS_INT)                 \
    C(T, bad_lines, LS_INT)               \
    C(T, first_ts, LS_INT)                \
    C(T, last_ts, LS_INT)                 \
    C(T, fingerprint, LS_INT)             \
    C(T, text_bytes, LS_INT)              \
    C(T, tail_hash, LS_INT)               \
    C(T, used_prefix, LS_TEXT)

/* Lines that could not be read: the first 300 bytes of each, kept
 * as a blob (invalid UTF-8 as it was; reports escape it). */
#define LS_TABLE_bad_lines(F, C, T)            \
    F(T, file_id, LS_INT " REFERENCES files")  \
    C(T, line, LS_INT)                         \
    C(T, reason, LS_TEXT)                      \
    C(T, sample, LS_TEXT)

/* One row per session, keyed by %c or "pid@connection time"
 * (session_flush(), store.c). */
#define LS_TABLE_sessions(F, C, T)           \
    F(T, session_id, LS_INT " PRIMARY KEY")  \
    C(T, key, LS_TEXT " UNIQUE NOT NULL")    \
    C(T, pid, LS_INT)                        \
    C(T, pg_session, LS_TEXT)                \
    C(T, start_ts, LS_INT)                   \
    C(T, end_ts, LS_INT)                     \
    C(T, first_ts, LS_INT)                   \
    C(T, last_ts, LS_INT)                    \
    C(T, user_name, LS_TEXT)                 \
    C(T, database, LS_TEXT)                  \
    C(T, application, LS_TEXT)               \
    C(T, remote, LS_TEXT)                    \
    C(T, backend_type, LS_TEXT)

/* Statement texts, once each: a workload runs a few hundred texts
 * millions of times (parameters are apart, in stmt_rows.params). kind:
 * ls_sql_kind of the text, and writes: the relation a writing statement
 * writes (ls_sql_relation), decided once as the text is added (NULL in
 * texts added before version 14, and by correlation). */
#define LS_TABLE_stmt_texts(F, C, T)      \
    F(T, text_id, LS_INT " PRIMARY KEY")  \
    C(T, hash, LS_INT " NOT NULL")        \
    C(T, text, LS_TEXT " NOT NULL")       \
    C(T, kind, LS_INT)                    \
    C(T, writes, LS_TEXT)

/* One row per transaction, cut as ingest stores the statements
 * (LS_TX_CUTS_DDL, store_schema.h, tells the rest). */
#define LS_TABLE_tx_cuts(F, C, T)            \
    F(T, first_stmt, LS_INT " PRIMARY KEY")  \
    C(T, last_stmt, LS_INT)                  \
    C(T, session_id, LS_INT)                 \
    C(T, pid, LS_INT)                        \
    C(T, xid, LS_INT)                        \
    C(T, vxid, LS_TEXT)                      \
    C(T, explicit, LS_INT)                   \
    C(T, closed, LS_INT)                     \
    C(T, end_kind, LS_INT)                   \
    C(T, start_ts, LS_INT)                   \
    C(T, end_ts, LS_INT)                     \
    C(T, statements, LS_INT)                 \
    C(T, sql_ms, LS_REAL)                    \
    C(T, idle_ms, LS_REAL)                   \
    C(T, max_idle_ms, LS_REAL)               \
    C(T, commit_ms, LS_REAL)                 \
    C(T, shape, LS_INT)                      \
    C(T, first_pos, LS_INT)

/* The row keys of the statements that may lock a row by their key,
 * decided as ingest writes them (issue 38: the transactions pass reads
 * these instead of the statements), a few thousand bytes to a row (ls_keypack.h),
 * keyed by the least stmt_id among them (LS_TX_KEYS_DDL, store_schema.h). */
#define LS_TABLE_tx_keys(F, C, T)          \
    F(T, first_stmt, LS_INT " PRIMARY KEY") \
    C(T, n, LS_INT)                        \
    C(T, keys, LS_TEXT)

/* Prepared statement names, once each (P_1, <unnamed>, S_12, ...). */
#define LS_TABLE_stmt_names(F, C, T)        \
    F(T, name_id, LS_INT " PRIMARY KEY")    \
    C(T, name, LS_TEXT " UNIQUE NOT NULL")

/*
 * One row per statement line, narrow (docs/store.md), except that the
 * parse and bind lines of an extended-protocol statement, logged by
 * duration, join the row of its execute line as bind_us and parse_us
 * (store.c, fold_row()): the name and text by id, the verb as a small
 * integer, the duration in whole microseconds, the end derived from the
 * start and the duration, the pid NULL when it is the session's (view
 * statements). vxid and params repeat from line to line (a transaction's
 * lines share its vxid, an execute line the parameters of its bind
 * line): an INTEGER k there means "as in the row k stmt_ids before",
 * which holds the TEXT; so they have no type.
 */
#define LS_TABLE_stmt_rows(F, C, T)                  \
    F(T, stmt_id, LS_INT " PRIMARY KEY")             \
    C(T, session_id, LS_INT " REFERENCES sessions")  \
    C(T, pid, LS_INT)                                \
    C(T, file_id, LS_INT)                            \
    C(T, line, LS_INT)                               \
    C(T, start_ts, LS_INT)                           \
    C(T, dur_us, LS_INT)                             \
    C(T, verb, LS_INT)                               \
    C(T, name_id, LS_INT)                            \
    C(T, xid, LS_INT)                                \
    C(T, vxid, LS_ANY)                               \
    C(T, text_id, LS_INT)                            \
    C(T, params, LS_ANY)                             \
    C(T, prepare, LS_TEXT)                           \
    C(T, bind_us, LS_INT)                            \
    C(T, parse_us, LS_INT)

/* One row per lock message (the table behind the view lock_events).
 * holders and queue, the pid lists of DETAIL, are TEXT, or when long an
 * INTEGER text_id of stmt_texts (store.c, bind_pids()): no type, as a
 * TEXT column would turn the INTEGER id into text. wait_id is no longer
 * written (event_waits holds it). */
#define LS_TABLE_lock_event_rows(F, C, T)            \
    F(T, event_id, LS_INT " PRIMARY KEY")            \
    C(T, session_id, LS_INT " REFERENCES sessions")  \
    C(T, pid, LS_INT)                                \
    C(T, file_id, LS_INT)                            \
    C(T, line, LS_INT)                               \
    C(T, ts, LS_INT)                                 \
    C(T, phase, LS_TEXT)                             \
    C(T, mode, LS_TEXT)                              \
    C(T, target_kind, LS_TEXT)                       \
    C(T, target, LS_TEXT)                            \
    C(T, target_xid, LS_INT)                         \
    C(T, rel_oid, LS_INT)                            \
    C(T, db_oid, LS_INT)                             \
    C(T, page, LS_INT)                               \
    C(T, tuple_offset, LS_INT)                       \
    C(T, waited_ms, LS_REAL)                         \
    C(T, holders, LS_ANY)                            \
    C(T, queue, LS_ANY)                              \
    C(T, ctx_action, LS_TEXT)                        \
    C(T, ctx_relation, LS_TEXT)                      \
    C(T, ctx_page, LS_INT)                           \
    C(T, ctx_offset, LS_INT)                         \
    C(T, text_id, LS_INT)                            \
    C(T, xid, LS_INT)                                \
    C(T, vxid, LS_TEXT)                              \
    C(T, wait_id, LS_INT)                            \
    C(T, context_id, LS_INT)                         \
    C(T, after_lock, LS_INT)

/* A deadlock: where it was logged, its victim and its DETAIL. */
#define LS_TABLE_deadlocks(F, C, T)           \
    F(T, deadlock_id, LS_INT " PRIMARY KEY")  \
    C(T, file_id, LS_INT)                     \
    C(T, line, LS_INT)                        \
    C(T, ts, LS_INT)                          \
    C(T, victim_pid, LS_INT)                  \
    C(T, victim_session, LS_INT)              \
    C(T, detail, LS_TEXT)

/* Each "Process W waits for M on T; blocked by process B" of a
 * deadlock, in order (seq from 1). */
#define LS_TABLE_deadlock_edges(F, C, T)               \
    F(T, deadlock_id, LS_INT " REFERENCES deadlocks")  \
    C(T, seq, LS_INT)                                  \
    C(T, waiter_pid, LS_INT)                           \
    C(T, mode, LS_TEXT)                                \
    C(T, target_kind, LS_TEXT)                         \
    C(T, target, LS_TEXT)                              \
    C(T, blocker_pid, LS_INT)

/* Each process of a deadlock and its statement's text id. */
#define LS_TABLE_deadlock_procs(F, C, T)               \
    F(T, deadlock_id, LS_INT " REFERENCES deadlocks")  \
    C(T, pid, LS_INT)                                  \
    C(T, text_id, LS_INT)

/* One row per ERROR/FATAL line of a class lockspan reads (class:
 * ls_error_class_name), a deadlock's DETAIL in its deadlocks row. */
#define LS_TABLE_errors(F, C, T)                     \
    F(T, error_id, LS_INT " PRIMARY KEY")            \
    C(T, session_id, LS_INT " REFERENCES sessions")  \
    C(T, pid, LS_INT)                                \
    C(T, file_id, LS_INT)                            \
    C(T, line, LS_INT)                               \
    C(T, ts, LS_INT)                                 \
    C(T, severity, LS_TEXT)                          \
    C(T, sqlstate, LS_TEXT)                          \
    C(T, class, LS_TEXT)                             \
    C(T, message, LS_TEXT)                           \
    C(T, detail, LS_TEXT)                            \
    C(T, text_id, LS_INT)                            \
    C(T, xid, LS_INT)                                \
    C(T, vxid, LS_TEXT)

/* The server's own work as the log reports it (LS_SERVER_EVENTS_DDL,
 * store_schema.h, tells the rest). */
#define LS_TABLE_server_events(F, C, T)    \
    F(T, event_id, LS_INT " PRIMARY KEY")  \
    C(T, ts, LS_INT)                       \
    C(T, kind, LS_TEXT)                    \
    C(T, pid, LS_INT)                      \
    C(T, file_id, LS_INT)                  \
    C(T, line, LS_INT)                     \
    C(T, relation, LS_TEXT)                \
    C(T, bytes, LS_INT)                    \
    C(T, duration_ms, LS_REAL)

/* One row per application span (OTLP, Jaeger, Zipkin); the same span
 * in several exports is stored once (index spans_id). */
#define LS_TABLE_spans(F, C, T)            \
    F(T, span_row, LS_INT " PRIMARY KEY")  \
    C(T, file_id, LS_INT)                  \
    C(T, line, LS_INT)                     \
    C(T, format, LS_TEXT)                  \
    C(T, trace_id, LS_TEXT)                \
    C(T, span_id, LS_TEXT)                 \
    C(T, parent_id, LS_TEXT)               \
    C(T, name, LS_TEXT)                    \
    C(T, kind, LS_INT)                     \
    C(T, service, LS_TEXT)                 \
    C(T, start_ts, LS_INT)                 \
    C(T, end_ts, LS_INT)                   \
    C(T, error, LS_INT)                    \
    C(T, db_system, LS_TEXT)               \
    C(T, db_statement, LS_TEXT)            \
    C(T, db_name, LS_TEXT)                 \
    C(T, db_operation, LS_TEXT)            \
    C(T, code_function, LS_TEXT)           \
    C(T, code_namespace, LS_TEXT)          \
    C(T, code_filepath, LS_TEXT)           \
    C(T, code_lineno, LS_INT)              \
    C(T, http_route, LS_TEXT)              \
    C(T, http_method, LS_TEXT)             \
    C(T, http_url, LS_TEXT)                \
    C(T, peer_service, LS_TEXT)            \
    C(T, db_pid, LS_INT)                   \
    C(T, attributes, LS_TEXT)

/* pg_stat_activity snapshots, one row per backend and snapshot. */
#define LS_TABLE_activity(F, C, T)  \
    F(T, file_id, LS_INT)           \
    C(T, line, LS_INT)              \
    C(T, ts, LS_INT)                \
    C(T, pid, LS_INT)               \
    C(T, state, LS_TEXT)            \
    C(T, wait_event_type, LS_TEXT)  \
    C(T, wait_event, LS_TEXT)       \
    C(T, xact_start, LS_INT)        \
    C(T, query_start, LS_INT)       \
    C(T, backend_start, LS_INT)     \
    C(T, blocking_pids, LS_TEXT)    \
    C(T, query, LS_TEXT)

/* Where each transaction id (%x) was seen first (xid_seen(), store.c). */
#define LS_TABLE_xids(F, C, T)        \
    F(T, xid, LS_INT " PRIMARY KEY")  \
    C(T, session_id, LS_INT)          \
    C(T, pid, LS_INT)                 \
    C(T, first_ts, LS_INT)

/* ---- what is made from a declaration ---- */

#define LS_TCOL_DDL1_(T, name, type) #name type
#define LS_TCOL_DDL_(T, name, type) ", " #name type
#define LS_TCOL_NAME1_(T, name, type) #name
#define LS_TCOL_NAME_(T, name, type) ", " #name
#define LS_TCOL_PARAM1_(T, name, type) "?"
#define LS_TCOL_PARAM_(T, name, type) ", ?"
#define LS_TCOL_ENUM_(T, name, type) T##__##name,

/* "CREATE TABLE IF NOT EXISTS t(\n  c1 T1, c2 T2, ...);\n" */
#define LS_CREATE_TABLE(t)                                                                 \
    "CREATE TABLE IF NOT EXISTS " #t "(\n  " LS_TABLE_##t(LS_TCOL_DDL1_, LS_TCOL_DDL_, t)  \
    ");\n"

/* "CREATE TABLE IF NOT EXISTS DBt(...);\n": t in database DB ("temp."
 * for correlation's working tables, "" the store's own). */
#define LS_CREATE_TABLE_IN(DB, t) "CREATE TABLE IF NOT EXISTS " DB #t LS_TABLE_DEFN(t) ";\n"

/* "(\n  c1 T1, c2 T2, ...)": t's columns as a CREATE TABLE lists them, for
 * a temp table of t's columns (findings.c, summary.c). */
#define LS_TABLE_DEFN(t) "(\n  " LS_TABLE_##t(LS_TCOL_DDL1_, LS_TCOL_DDL_, t) ")"

/* The same with t's table constraint LS_KEY_t after the columns (a key of
 * several columns, a UNIQUE of several: corr_tables.h). */
#define LS_TABLE_DEFN_KEYED(t)                                                             \
    "(\n  " LS_TABLE_##t(LS_TCOL_DDL1_, LS_TCOL_DDL_, t) ",\n  " LS_KEY_##t ")"
#define LS_CREATE_TABLE_KEYED(t) "CREATE TABLE IF NOT EXISTS " #t LS_TABLE_DEFN_KEYED(t) ";\n"

/* enum { t__c1, t__c2, ..., t__ncols }: the columns' positions. */
#define LS_TABLE_COLUMNS(t) enum { LS_TABLE_##t(LS_TCOL_ENUM_, LS_TCOL_ENUM_, t) t##__ncols }

/* "c1, c2, ...": t's columns in their order. */
#define LS_COLUMN_NAMES(t) LS_TABLE_##t(LS_TCOL_NAME1_, LS_TCOL_NAME_, t)

/* OP " INTO t(c1, c2, ...) VALUES ": an INSERT of whole rows, the rows to
 * follow; OP is "INSERT", "INSERT OR IGNORE", ... */
#define LS_INSERT_HEAD(OP, t) OP " INTO " #t "(" LS_COLUMN_NAMES(t) ") VALUES "

/* OP " INTO t(c1, c2, ...) VALUES (?, ?, ...)": an INSERT of one whole
 * row, column k (t__k) at parameter t__k + 1. */
#define LS_INSERT_INTO(OP, t)                                                              \
    LS_INSERT_HEAD(OP, t) "(" LS_TABLE_##t(LS_TCOL_PARAM1_, LS_TCOL_PARAM_, t) ")"

/* The same into t of database DB ("temp.", "main.", or "%s." for a
 * format that names it). */
#define LS_INSERT_INTO_IN(OP, DB, t)                                                               \
    OP " INTO " DB #t                                                                              \
       "(" LS_COLUMN_NAMES(t) ") VALUES (" LS_TABLE_##t(LS_TCOL_PARAM1_, LS_TCOL_PARAM_, t) ")"

/* The parameter of column `col` in LS_INSERT_INTO(OP, t), for the
 * ls_stmt_bind_* of ls_store.h (parameters count from 1). A correlation
 * pass that writes a table declared here prepares LS_INSERT_INTO and binds
 * ls_stmt_bind_int64(st, LS_PARAM(t, col), v): see docs/design.md. */
#include "ls_params.h" /* LS_PARAM(t, col): (t__col + 1) */

#endif
