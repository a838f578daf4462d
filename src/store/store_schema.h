/*
 * store_schema.h — the SQLite schema of a lockspan store (LS_STORE_SCHEMA_VERSION).
 * Documented table by table in docs/store.md; keep the two in step.
 * Times are INTEGER microseconds since the Unix epoch, UTC.
 */
#ifndef LS_STORE_SCHEMA_H
#define LS_STORE_SCHEMA_H

#include "store_tables.h" /* the tables ingest writes: LS_CREATE_TABLE */
#include "corr_tables.h"  /* the tables correlation writes */

/* The transactions pass's count of what each learned rule keyed
 * (schema 15). */
#define LS_RULE_KEYED_DDL LS_CREATE_TABLE(rule_keyed)

/* The server's own work as the log reports it (classify.c, LS_EV_SERVER),
 * here and in the step to schema 14 (store.c): one row per line, kind one
 * of checkpoint_start, checkpoint, autovacuum, autoanalyze, temp_file;
 * relation "db.schema.table" (autovacuum, autoanalyze), bytes (temp_file),
 * duration_ms (checkpoint total=, autovacuum/autoanalyze elapsed:), else
 * NULL. The per-minute context reads them (reports/context.c). */
#define LS_SERVER_EVENTS_DDL LS_CREATE_TABLE(server_events)

/* Transaction shapes (traces.c, schema 15): the label of each distinct
 * sequence of statement steps ("UPDATE a; SELECT b x3", decide/pathid.h)
 * with the normalized statements of the first transaction seen with it;
 * and what names the code paths that no span or tag names
 * (path_identity: one row, 'application' or 'shape', and why). */
#define LS_TX_SHAPES_DDL LS_CREATE_TABLE(tx_shapes) LS_CREATE_TABLE(path_identity)

/* Each transaction's code path under every grouping, as the code paths
 * pass decides it (decide/pathname.h), here and in the step to schema 16
 * (store.c): every distinct name and evidence text once (path_names),
 * every distinct set of a name and an evidence per grouping once
 * (path_sets, ids of path_names in the order of ls_grouping), and
 * tx_code_rows.path_set points at it. A few dozen sets name a million
 * transactions; readers group by a name id and read its text by key. */
#define LS_PATH_SETS_DDL LS_CREATE_TABLE(path_names) LS_CREATE_TABLE_KEYED(path_sets)

/* Code paths of transactions (traces.c), here and in the steps to schema
 * 12, 15 and 16 (store.c). A transaction's statement shape and the order in which it
 * writes relations are texts that thousands of transactions share: each
 * distinct one is stored once (a JSON array of relation names for an
 * order) and tx_code_rows points at it; so are its paths (path_set). */
#define LS_TX_CODE_ROWS_DDL                                                                \
    LS_CREATE_TABLE(shapes) LS_CREATE_TABLE(lock_orders) LS_CREATE_TABLE(tx_code_rows)     \
    LS_TX_SHAPES_DDL LS_PATH_SETS_DDL

/* The holds of rows as the transactions pass decides them
 * (transactions.c), in database DB ("temp.": correlation's working
 * tables, LS_WORKING_DDL; "": the step to schema 12, store.c): a bound
 * equal to its time (start_lo and start_hi to start_ts, end_lo and end_hi
 * to end_ts) is NULL, and how the bounds were found is an id of
 * hold_evidence, a text that a hundred thousand holds share. */
#define LS_HOLD_ROWS_DDL_IN(DB)                                                            \
    LS_CREATE_TABLE_IN(DB, hold_evidence) LS_CREATE_TABLE_IN(DB, hold_rows)


/*
 * What the passes after the transactions pass decide about a hold, each
 * in a table of its own keyed by hold_id (issue 33: one writer per table),
 * in database DB as LS_HOLD_ROWS_DDL_IN (the step to schema 13, store.c);
 * the final holds and rows pass prefers them over hold_rows' values
 * (hold_final).
 * hold_bounds (holds waited for, holds.c): a hold others waited for, all
 * of the columns that pass decides, as in hold_rows (a bound equal to its
 * time NULL); the evidence ids are of bound_evidence, that pass's own.
 * hold_queued (hidden waits, hidden.c): a hold whose statement queued
 * under log_statement = 'all', its start moved to when the hold before it
 * ended (start_lo: the statement's start, NULL when the same); its start
 * evidence is QUEUED_EVIDENCE (final.c).
 */
#define LS_HOLD_SIDE_DDL_IN(DB)                                                            \
    LS_CREATE_TABLE_IN(DB, bound_evidence) LS_CREATE_TABLE_IN(DB, hold_bounds)             \
    LS_CREATE_TABLE_IN(DB, hold_queued)

/*
 * Correlation's working tables: what the passes decide about a hold
 * before the final holds and rows pass joins it into hold_final, made in
 * the connection's temp database when a store is opened (store.c). They
 * live as long as the connection and never in the store's file: a hold
 * is stored once, in hold_final (issue 38; the store was 0.295 x the
 * 1 GiB bench log with hold_rows and its indexes kept beside it). Every
 * pass runs in the one correlation that reads them (correlate.c).
 * ls_store_guard_writes() holds the passes to their own among them as
 * it does in the store (LS_WORKING_TABLES, store.c).
 */
#define LS_WORKING_DDL LS_HOLD_ROWS_DDL_IN("temp.") LS_HOLD_SIDE_DDL_IN("temp.")

/*
 * The final holds and rows pass (final.c), here and in the step to schema
 * 14 (store.c): each hold and each row's totals as the last pass that
 * decided them left them, in one table each, written once after the
 * passes that decide them, so that readers (code paths, findings, the
 * report) read real columns with real indexes instead of a view that
 * looks each column up in three tables.
 * hold_final: every hold, a bound equal to its time NULL (as in
 * hold_rows), the evidence ids of hold_final_evidence (texts that a
 * hundred thousand holds share).
 * row_final: every logical row's totals from the passes after logical
 * rows, counts 0 where a pass had nothing for the row. The view rows
 * takes the row's own columns from row_keys: the transactions pass reads
 * those before this pass runs.
 */
#define LS_FINAL_DDL                                                                       \
    LS_CREATE_TABLE(hold_final_evidence) LS_CREATE_TABLE(hold_final) LS_CREATE_TABLE(row_final)

/* SQL: the text of hold_final_evidence id ID (an SQL expression). */
#define LS_FINAL_EVIDENCE_OF(ID) \
    "(SELECT text FROM hold_final_evidence WHERE evidence_id = " ID ")"

/* SQL: column COL of row k in row_final, NULL before the final holds and
 * rows pass has run. */
#define LS_ROW_FINAL(COL) \
    "(SELECT f." COL " FROM row_final f WHERE f.row_id = k.row_id)"

/*
 * Logical rows, one table per pass that decides about them (issue 33),
 * here and in the step to schema 13 (store.c); readers query the view
 * rows, which joins them.
 * row_keys (logical rows, holds.c): the row, its key, how it was keyed,
 * and its waits' totals.
 * row_holds (holds waited for): its holds' totals; row_queue_peaks (queue
 * depth): its longest queue; row_hidden (hidden waits): its queueing the
 * log did not show, and its utilisation.
 */
#define LS_ROW_TABLES_DDL                                                                  \
    LS_CREATE_TABLE(row_keys) LS_CREATE_TABLE(row_holds) LS_CREATE_TABLE(row_queue_peaks)  \
    LS_CREATE_TABLE(row_hidden)

/* The two tables behind the lock_events and lock_waits views, here and in
 * the step to schema 11 (store.c). holders and queue have no type: a
 * TEXT column would turn the INTEGER id of a list into text. */
#define LS_LOCK_EVENT_ROWS_DDL LS_CREATE_TABLE(lock_event_rows)
#define LS_LOCK_WAIT_ROWS_DDL LS_CREATE_TABLE(lock_wait_rows)

/* What the "transactions and holds" and "retries" passes link to rows
 * they do not own (transactions.c), here and in the step to schema 13
 * (store.c): one row per wait (wait_links), per error of a lock class
 * (error_links), per retried error (retries) and per deadlock process
 * (deadlock_links). The views lock_waits and errors_linked join them in;
 * the raw tables stay as written. wait_links' root_* and chain_depth are
 * set only where a chain ends at a tuple lock's queue head and goes on to
 * the row's holder (root_pid not NULL): they replace the chain walk's. */
#define LS_LINK_TABLES_DDL                                                                 \
    LS_CREATE_TABLE(wait_links) LS_CREATE_TABLE(error_links) LS_CREATE_TABLE(retries)      \
    LS_CREATE_TABLE_KEYED(deadlock_links)

/* The logical rows pass's row of each wait (and the waiter's statement it
 * was keyed by), the wait episodes pass's link from each lock message to
 * its wait, and the blocker chains pass's walk from each wait to its root (docs/store.md;
 * the lock_events and lock_waits views join them in), here and in the
 * step to schema 13 (store.c). */
#define LS_WAIT_SIDE_DDL                                                                   \
    LS_CREATE_TABLE(wait_rows) LS_CREATE_TABLE(event_waits) LS_CREATE_TABLE(wait_chains)

/* Each database span without a backend pid: the pid and how it was
 * placed (trace, logged statement), else why not (correlation's
 * "statements from spans" pass, spans.c). */
#define LS_SPAN_PLACEMENT_DDL LS_CREATE_TABLE(span_placement)

/* The application clock's offset from the database's, one row: the
 * offset (database minus application clock, applied to the database
 * spans), what measured it (`logged lock waits`, `logged statements`,
 * `none`: taken as 0) and how many waits or statements agreed
 * (correlation's "statements from spans" pass, spans.c). */
/* The logged statements whose times came from the spans that sent them
 * (correlation's "statements from spans" pass, spantimes.c): the span,
 * the statement's start as the log gave it (its duration was NULL, and
 * stmt_rows keeps both as logged), and the start and duration the span
 * gives it, which the views below read. */
#define LS_STMT_SPAN_TIME_DDL LS_CREATE_TABLE(stmt_span_time)

/* A statement's start and duration as the passes after "statements from
 * spans" read them: the span's (stmt_span_time) for a logged statement
 * it timed, else the log's. Only a statement logged without a duration
 * can have one, so a log with durations reads no stmt_span_time. `r` is
 * stmt_rows' alias, `db` "" or "main." (from the connection's temp view). */
#define LS_STMT_TIMED_START(r, db)                                                        \
    "CASE WHEN " r ".dur_us IS NULL THEN coalesce((SELECT x_.start_ts FROM " db           \
    "stmt_span_time x_ WHERE x_.stmt_id = " r ".stmt_id), " r ".start_ts) ELSE " r        \
    ".start_ts END"
#define LS_STMT_TIMED_DUR(r, db)                                                          \
    "CASE WHEN " r ".dur_us IS NULL THEN (SELECT x_.dur_us FROM " db "stmt_span_time x_" \
    " WHERE x_.stmt_id = " r ".stmt_id) ELSE " r ".dur_us END"
/* Every column of stmt_rows (store_tables.h, in order), timed as above. */
#define LS_STMT_TIMED_COLS(r, db)                                                         \
    r ".stmt_id, " r ".session_id, " r ".pid, " r ".file_id, " r ".line, "               \
    LS_STMT_TIMED_START(r, db) " AS start_ts, " LS_STMT_TIMED_DUR(r, db) " AS dur_us, "  \
    r ".verb, " r ".name_id, " r ".xid, " r ".vxid, " r ".text_id, " r ".params, " r     \
    ".prepare, " r ".bind_us, " r ".parse_us"

/* The columns of the view statements, read from a table or view named
 * stmt_rows. */
#define LS_STATEMENTS_COLS                                                                 \
    "stmt_id, session_id,\n"                                                               \
    "  " LS_STMT_PID("stmt_rows") " AS pid, file_id, line, CASE WHEN dur_us IS NULL THEN"  \
    " start_ts ELSE start_ts + dur_us END AS log_ts,\n"                                    \
    "  start_ts, start_ts + dur_us AS end_ts, dur_us / 1000.0 AS duration_ms,\n"          \
    "  CASE verb WHEN 0 THEN 'execute' WHEN 1 THEN 'bind' WHEN 2 THEN 'parse'\n"          \
    "    WHEN 3 THEN 'statement' WHEN 4 THEN '' WHEN 5 THEN 'span' END AS verb,\n"        \
    "  (SELECT n.name FROM stmt_names n WHERE n.name_id = stmt_rows.name_id) AS name,\n"   \
    "  xid,\n"                                                                             \
    "  " LS_STMT_REF("stmt_rows", "vxid") " AS vxid,\n"                                    \
    "  (SELECT t.text FROM stmt_texts t WHERE t.text_id = stmt_rows.text_id) AS text,\n"   \
    "  " LS_STMT_REF("stmt_rows", "params") " AS params,\n"                                \
    "  prepare, bind_us / 1000.0 AS bind_ms, parse_us / 1000.0 AS parse_ms"

/*
 * The statements as lockspan reads them, in the connection's temp
 * database in front of the store's (ls_store_stmt_views): issue 33, one
 * writer per table. stmt_rows is ingest's alone; the times the
 * "statements from spans" pass gives logged statements are its own
 * (stmt_span_time). Once it has given any, temp.stmt_rows stands in
 * front of the table: a copy of every row and column, the times as
 * LS_STMT_TIMED_START gives them, indexed by session and start as
 * statements_session indexes the table, and the passes after it and the
 * report read statements through it as they read the table before (no
 * reader asks where a time came from unless it wants to:
 * stmt_span_time). A copy, not a view: a view's time is an expression,
 * which no index orders, and the per-session streams by time (holds.c)
 * then sorted a session's statements at each call. temp.statements is
 * the store's view over whichever stmt_rows is in front: on a store
 * without span times the one-table view over the table, as before.
 */
#define LS_STMT_ROWS_TEMP_DDL                                                            \
    LS_CREATE_TABLE_IN("temp.", stmt_rows)                                               \
    "INSERT INTO temp.stmt_rows SELECT " LS_STMT_TIMED_COLS("r", "main.")               \
    " FROM main.stmt_rows r ORDER BY r.stmt_id;"                                         \
    " CREATE INDEX temp.stmt_rows_session ON stmt_rows(session_id, start_ts);"
#define LS_STATEMENTS_TEMP_DDL                                                           \
    "CREATE TEMP VIEW statements AS SELECT " LS_STATEMENTS_COLS " FROM stmt_rows"

/* hold_range: holdrange_schema.h */

#define LS_SPAN_CLOCK_DDL LS_CREATE_TABLE(span_clock)

/* Each hold of another transaction that covered a row wait (row_waits)
 * by at least LS_COVER_MIN_US, and by how much: what the report's row
 * queueing shares each wait out by (correlation's "code paths" pass,
 * cover.c). tx_id NULL: the hold's transaction is not known. */
#define LS_ROW_COVER_DDL LS_CREATE_TABLE(row_cover)
/*
 * One row per transaction, cut as ingest stores the statements
 * (src/store/txcut.c, docs/streaming.md): ingest's raw table, which the
 * "transactions and holds" pass reads instead of every statement. Keyed
 * by its first statement. closed 0: still open when its session's slot
 * went (the ingest ended, or the writer held too many); the writer takes
 * it back when the session logs again, the pass ends it at the session's
 * disconnection, else its last statement. end_kind is ls_txcut_end; the
 * *_ms sums are NULL unless every statement had a duration; shape is the
 * FNV-1a hash of its statements' text ids in order.
 */
#define LS_TX_CUTS_DDL LS_CREATE_TABLE(tx_cuts) \
    "CREATE INDEX IF NOT EXISTS tx_cuts_open ON tx_cuts(session_id) WHERE closed = 0;\n"
/* The statements' row keys as ingest decided them (schema 18), n packed
 * in each row (ls_keypack.h): complete for the statements cut when meta
 * 'tx_keys' is 'complete' (ls_store_cuts_end); the transactions pass
 * reads them beside tx_cuts and empties the table. */
#define LS_TX_KEYS_DDL LS_CREATE_TABLE(tx_keys)
#include "holdrange_schema.h" /* LS_HOLD_RANGE_DDL */
#include "findings_schema.h" /* LS_FINDINGS_DDL */
#include "logcover_schema.h" /* LS_STMT_STATS_DDL, LS_LOGCOVER_DDL */
#include "summary_schema.h" /* LS_SUMMARY_DDL, LS_STMT_MINUTES_DDL */
#include "store_sql.h"       /* LS_PIDS_OF, LS_TEXT_OF */
#include "codepath.h"        /* LS_CODE_NAME_SQL */

/*
 * A transaction's code path under each grouping (tx_code's G_path and
 * G_source), over its columns c: decided once by the code paths pass
 * (decide/pathname.h) and read here by key, the set c.path_set and the
 * name G_id of path_names (tx_code's G_id, for readers that group by
 * it). A transaction the pass named nothing has NULL paths.
 */
#define TX_PATH_ID(col) "(SELECT s." col " FROM path_sets s WHERE s.set_id = c.path_set)"
#define TX_PATH_TEXT(col)                                                                  \
    "(SELECT n.name FROM path_sets s JOIN path_names n ON n.name_id = s." col              \
    " WHERE s.set_id = c.path_set)"
#define TX_PATH_COLS(G)                                                                    \
    ",\n  " TX_PATH_TEXT(G "_id") " AS " G "_path, " TX_PATH_TEXT(G "_src") " AS " G "_source,\n" \
    "  " TX_PATH_ID(G "_id") " AS " G "_id"

/* A new store's schema, in order; the tables ingest writes are declared
 * in store_tables.h, with what they hold. */
static const char *const ls_schema_sql[] = {
    LS_CREATE_TABLE(meta),
    LS_CREATE_TABLE(files),
    /* A file is found again by the hash of its first line (incremental ingest). */
    "CREATE INDEX IF NOT EXISTS files_fingerprint ON files(fingerprint);\n",
    LS_CREATE_TABLE(bad_lines),
    LS_CREATE_TABLE(sessions),
    "CREATE INDEX IF NOT EXISTS sessions_pid ON sessions(pid);\n",
    LS_CREATE_TABLE(stmt_texts),
    LS_TX_CUTS_DDL,
    LS_TX_KEYS_DDL,
    "CREATE INDEX IF NOT EXISTS stmt_texts_hash ON stmt_texts(hash);\n",
    LS_CREATE_TABLE(stmt_names),
    LS_CREATE_TABLE(stmt_rows),
    /* What readers query: the columns of schema version 4, a logged
     * statement's times those a span gave it where it has one
     * (stmt_span_time: LS_STMT_TIMED_START). Within lockspan the
     * connection's own view statements (LS_STATEMENTS_TEMP_DDL) stands
     * in front of this one: a one-table view, so that SQLite flattens it
     * into every query and the indexes on stmt_rows serve; what is stored
     * by reference is looked up only when asked for. The verb codes are
     * LS_VERB_* (ls_store.h). */
    "CREATE VIEW IF NOT EXISTS statements AS SELECT " LS_STATEMENTS_COLS
    " FROM (SELECT " LS_STMT_TIMED_COLS("r", "") " FROM stmt_rows r) AS stmt_rows;\n",
    /* One row per lock message. holders and queue, the pid lists of
     * DETAIL, are TEXT, or when long an INTEGER text_id of stmt_texts:
     * with many sessions a wait queue is hundreds of bytes, logged again
     * by every waiter and every "still waiting" (store.c, bind_pids()). */
    LS_LOCK_EVENT_ROWS_DDL,
    /* What readers query: the pid lists as text (one-table view, flattened
     * into every query as statements is). */
    "CREATE VIEW IF NOT EXISTS lock_events AS SELECT event_id, session_id, pid, file_id,\n"
    "  line, ts, phase, mode, target_kind, target, target_xid, rel_oid, db_oid, page,\n"
    "  tuple_offset, waited_ms, " LS_PIDS_OF("lock_event_rows", "holders") " AS holders,\n"
    "  " LS_PIDS_OF("lock_event_rows", "queue") " AS queue, ctx_action, ctx_relation,\n"
    "  ctx_page, ctx_offset, text_id, xid, vxid,\n"
    "  (SELECT ew.wait_id FROM event_waits ew WHERE ew.event_id = lock_event_rows.event_id)\n"
    "  AS wait_id, context_id, after_lock FROM lock_event_rows;\n",
    /* Written by correlation; queue as in lock_event_rows (the lock
     * message's own value, TEXT or a stmt_texts id), holders as TEXT. */
    LS_LOCK_WAIT_ROWS_DDL,
    LS_WAIT_SIDE_DDL,
    LS_LINK_TABLES_DDL,
    /* A wait: its episode (lock_wait_rows, the wait episodes pass), its
     * chain (wait_chains, blocker chains), its row (wait_rows, logical
     * rows), its relation's name (relations,
     * when its messages named it by OID only) and its links (wait_links,
     * transactions and holds: LEFT JOINs on their keys, flattened into
     * every query, lock_wait_rows' indexes serve). wait_links' root_* and
     * chain_depth, set where a chain ends at a tuple lock's queue head and
     * goes on to the row's holder, replace the walk's as a group.
     * lock_wait_rows' own chain and link columns are no longer written
     * (kept for the step to schema 11). */
    "CREATE VIEW IF NOT EXISTS lock_waits AS SELECT lock_wait_rows.wait_id AS wait_id,\n"
    "  session_id, pid, mode, target_kind, target, target_xid, rel_oid, db_oid,\n"
    "  coalesce(lock_wait_rows.relation, (SELECT r.name FROM relations r\n"
    "   WHERE r.db_oid = lock_wait_rows.db_oid AND r.rel_oid = lock_wait_rows.rel_oid))\n"
    "  AS relation, ctid, start_ts, logged_ts, end_ts, waited_ms, outcome, statement,\n"
    "  " LS_PIDS_OF("lock_wait_rows", "holders") " AS holders,\n"
    "  " LS_PIDS_OF("lock_wait_rows", "queue") " AS queue, blocker_pid,\n"
    "  c.blocker_session AS blocker_session, c.blocker_xid AS blocker_xid,\n"
    "  CASE WHEN l.root_pid IS NULL THEN c.root_pid ELSE l.root_pid END AS root_pid,\n"
    "  CASE WHEN l.root_pid IS NULL THEN c.root_session ELSE l.root_session END\n"
    "   AS root_session,\n"
    "  CASE WHEN l.root_pid IS NULL THEN c.root_xid ELSE l.root_xid END AS root_xid,\n"
    "  CASE WHEN l.root_pid IS NULL THEN c.chain_depth ELSE l.chain_depth END\n"
    "   AS chain_depth,\n"
    "  first_event, file_id, line, wr.row_id AS row_id,\n"
    "  coalesce(l.waiter_stmt, wr.waiter_stmt) AS waiter_stmt,\n"
    "  l.waiter_tx AS waiter_tx, l.holder_pid AS holder_pid, l.holder_tx AS holder_tx,\n"
    "  l.root_tx AS root_tx, end_file, end_line, wr.row_evidence AS row_evidence,\n"
    "  l.blocker_tx AS blocker_tx\n"
    "  FROM lock_wait_rows LEFT JOIN wait_chains c ON c.wait_id = lock_wait_rows.wait_id\n"
    "  LEFT JOIN wait_links l ON l.wait_id = lock_wait_rows.wait_id\n"
    "  LEFT JOIN wait_rows wr ON wr.wait_id = lock_wait_rows.wait_id;\n",
    LS_CREATE_TABLE(deadlocks),
    LS_CREATE_TABLE(deadlock_edges),
    LS_CREATE_TABLE(deadlock_procs),
    LS_CREATE_TABLE(errors),
    LS_SERVER_EVENTS_DDL,
    LS_LINK_TABLES_DDL,
    /* What readers of an error's links query: the error as ingest wrote
     * it, its transaction, wait and cause (error_links) and its retry
     * (retries). */
    "CREATE VIEW IF NOT EXISTS errors_linked AS SELECT e.error_id AS error_id,\n"
    "  e.session_id AS session_id, e.pid AS pid, e.file_id AS file_id, e.line AS line,\n"
    "  e.ts AS ts, e.severity AS severity, e.sqlstate AS sqlstate, e.class AS class,\n"
    "  e.message AS message, e.detail AS detail, e.text_id AS text_id, e.xid AS xid,\n"
    "  e.vxid AS vxid, l.tx_id AS tx_id, l.wait_id AS wait_id, l.cause_tx AS cause_tx,\n"
    "  r.retry_stmt AS retry_stmt, r.retry_tx AS retry_tx, r.retry_outcome AS retry_outcome,\n"
    "  r.retry_span AS retry_span\n"
    "  FROM errors e LEFT JOIN error_links l ON l.error_id = e.error_id\n"
    "  LEFT JOIN retries r ON r.error_id = e.error_id;\n",
    LS_CREATE_TABLE_KEYED(relations),
    LS_CREATE_TABLE(transactions),
    LS_ROW_TABLES_DDL,
    /* What readers query: a row's own columns (row_keys, the logical rows
     * pass) and its totals as the final holds and rows pass wrote them
     * (row_final; NULL before that pass). One-table, flattened into every
     * query, even as the right side of a LEFT JOIN, which a view that joins
     * is not (it is computed whole there). */
    "CREATE VIEW IF NOT EXISTS rows AS SELECT k.row_id, k.relation, k.row_key, k.evidence,\n"
    "  k.grouped_by, k.ctids, k.waits, k.total_wait_ms, k.max_wait_ms,\n"
    "  " LS_ROW_FINAL("holds") " AS holds,\n"
    "  " LS_ROW_FINAL("mean_hold_ms") " AS mean_hold_ms,\n"
    "  " LS_ROW_FINAL("capacity_per_s") " AS capacity_per_s,\n"
    "  " LS_ROW_FINAL("max_queue") " AS max_queue,\n"
    "  " LS_ROW_FINAL("max_queue_ts") " AS max_queue_ts,\n"
    "  k.longest_chain, k.first_ts, k.last_ts,\n"
    "  " LS_ROW_FINAL("occupancy_holds") " AS occupancy_holds,\n"
    "  " LS_ROW_FINAL("occupied_ms") " AS occupied_ms,\n"
    "  " LS_ROW_FINAL("hidden_wait_ms") " AS hidden_wait_ms,\n"
    "  " LS_ROW_FINAL("logged_wait_ms") " AS logged_wait_ms,\n"
    "  " LS_ROW_FINAL("waited_statements") " AS waited_statements,\n"
    "  " LS_ROW_FINAL("utilisation") " AS utilisation\n"
    "  FROM row_keys k;\n",
    LS_CREATE_TABLE(row_waits),
    LS_FINAL_DDL,
    /* What readers query: each hold as the final holds and rows pass wrote
     * it (hold_final), every bound a time, the evidence as text; empty
     * before that pass. */
    "CREATE VIEW IF NOT EXISTS holds AS SELECT h.hold_id, h.row_id, h.tx_id, h.session_id,\n"
    "  h.pid, h.start_ts, coalesce(h.start_lo, h.start_ts) AS start_lo,\n"
    "  coalesce(h.start_hi, h.start_ts) AS start_hi,\n"
    "  " LS_FINAL_EVIDENCE_OF("h.start_evidence") " AS start_evidence,\n"
    "  h.end_ts, coalesce(h.end_lo, h.end_ts) AS end_lo,\n"
    "  coalesce(h.end_hi, h.end_ts) AS end_hi,\n"
    "  " LS_FINAL_EVIDENCE_OF("h.end_evidence") " AS end_evidence,\n"
    "  h.lock_stmt, h.waits, h.waiter_ms, h.max_queue, h.contended_ms, h.sql_ms,\n"
    "  h.idle_ms, h.commit_ms, h.head_state, h.observed_state, h.observed_samples\n"
    "  FROM hold_final h;\n",
    /* target, target_col: an INSERT rule's relation and column
     * (decide/rule.h) */
    LS_CREATE_TABLE(row_rules),
    /* The statements each rule (row_rules.rowid) keyed to a hot row: the
     * transactions pass's, which applies them. */
    LS_RULE_KEYED_DDL,
    LS_CREATE_TABLE(row_queue),
    /* A row's queue in time order, as the report's timeline and its
     * rows' peaks read it (reports/model.c, scope.c): each hot row read
     * by key, not by a scan of every row's queue (schema 16). */
    "CREATE INDEX IF NOT EXISTS row_queue_row ON row_queue(row_id, ts);\n",
    LS_CREATE_TABLE(spans),
    /* The same span in several exports of one run (OTLP and Zipkin, or a
     * file and its .gz) is stored once. */
    "CREATE UNIQUE INDEX IF NOT EXISTS spans_id ON spans(trace_id, span_id);\n",
    LS_CREATE_TABLE(stmt_tags),
    LS_TX_CODE_ROWS_DDL,
    /* What readers query: a transaction's shape as text, its session's
     * application_name, and the relations it writes one row each, in
     * order (one-table views, as lock_events; the second a join).
     * tx_code also names the transaction's code path under each grouping
     * (--group-by G: G_path, G_source, the evidence that named it, and
     * G_id, the name's id in path_names), as the code paths pass stored
     * it (path_set), so that the findings pass and the report name a path
     * by one key, and its code attributes and sqlcommenter controller +
     * action by one rule (code_name, tag_name; codepath.h). */
    "CREATE VIEW IF NOT EXISTS tx_code AS SELECT c.*,\n"
    "  " LS_CODE_NAME_SQL("c.code_namespace", "c.code_function") " AS code_name,\n"
    "  " LS_CODE_NAME_SQL("c.tag_controller", "c.tag_action") " AS tag_name"
    TX_PATH_COLS("function") TX_PATH_COLS("route") TX_PATH_COLS("service")
    TX_PATH_COLS("application") TX_PATH_COLS("statement") TX_PATH_COLS("shape") "\n"
    " FROM (SELECT tx_id, link, trace_id, span_row,\n"
    "  code_span_row, code_function, code_namespace, code_filepath, code_lineno,\n"
    "  route, service, root_name, tag_route, tag_controller, tag_action,\n"
    "  tag_application, (SELECT nullif(se.application, '') FROM transactions t\n"
    "   JOIN sessions se ON se.session_id = t.session_id\n"
    "   WHERE t.tx_id = tx_code_rows.tx_id) AS application,\n"
    "  (SELECT shape FROM shapes WHERE shapes.shape_id = tx_code_rows.shape_id) AS shape,\n"
    "  offset_us, comment_span, order_id,\n"
    "  (SELECT label FROM tx_shapes x WHERE x.tx_shape_id = tx_code_rows.tx_shape_id)\n"
    "   AS tx_shape, path_set FROM tx_code_rows) c;\n",
    "CREATE VIEW IF NOT EXISTS lock_order AS SELECT c.tx_id, r.key + 1 AS seq,\n"
    "  r.value AS relation FROM tx_code_rows c JOIN lock_orders o ON o.order_id = c.order_id,\n"
    "  json_each(o.relations) r;\n",
    LS_CREATE_TABLE(hold_parts),
    LS_ROW_COVER_DDL,
    LS_CREATE_TABLE(activity),
    LS_SPAN_PLACEMENT_DDL,
    LS_SPAN_CLOCK_DDL,
    LS_STMT_SPAN_TIME_DDL,
    LS_HOLD_RANGE_DDL,
    LS_FINDINGS_DDL,
    LS_CREATE_TABLE(xids),
    LS_STMT_STATS_DDL,
    LS_LOGCOVER_DDL,
    LS_SUMMARY_DDL,
    LS_STMT_MINUTES_DDL,
    /* Relation-level contention (issue 34 item 8). relation_lock_rows: the
     * logical rows that are a whole relation's lock (their waits are for
     * a relation lock): a lock queue, not a hot row, which the hot-row
     * sections and rankings leave out. relation_queues: each wait for a
     * relation lock at the head of its queue (blocked by the lock's
     * holder: the DDL waiting behind a transaction that read the table),
     * with the waits for the same lock queued behind a waiter (the
     * episodes pass's queue_blockers()) during its wait, behind it or
     * behind a waiter behind it (a second DDL); a head with nothing
     * queued behind it is no queue. The lock_queue_behind_ddl finding
     * reads this view (findings.c; decide/finding.c decides which queue
     * is one behind DDL), as the report's section does. */
    "CREATE VIEW IF NOT EXISTS relation_lock_rows AS SELECT DISTINCT wr.row_id AS row_id\n"
    "  FROM wait_rows wr JOIN lock_wait_rows lw ON lw.wait_id = wr.wait_id\n"
    "  WHERE lw.target_kind = 'relation' AND wr.row_id IS NOT NULL;\n",
    "CREATE VIEW IF NOT EXISTS relation_queues AS SELECT d.wait_id AS wait_id,\n"
    "  d.relation AS relation, d.rel_oid AS rel_oid, d.mode AS mode,\n"
    "  d.statement AS statement, d.pid AS pid, d.session_id AS session_id,\n"
    "  d.waiter_tx AS waiter_tx, d.start_ts AS start_ts, d.logged_ts AS logged_ts,\n"
    "  d.end_ts AS end_ts,\n"
    "  d.waited_ms AS waited_ms, d.outcome AS outcome, d.holder_pid AS holder_pid,\n"
    "  d.holder_tx AS holder_tx, count(*) AS queued, sum(q.waited_ms) AS queued_wait_ms,\n"
    "  max(q.waited_ms) AS max_queued_wait_ms\n"
    "  FROM lock_waits d JOIN lock_waits q ON q.target = d.target\n"
    "  AND q.blocker_pid IS NOT q.holder_pid AND q.wait_id <> d.wait_id\n"
    "  AND q.logged_ts >= d.start_ts AND (d.end_ts IS NULL OR q.start_ts <= d.end_ts)\n"
    "  WHERE d.target_kind = 'relation' AND d.blocker_pid = d.holder_pid\n"
    "  GROUP BY d.wait_id;\n",
    NULL,
};

/*
 * Sorted after the bulk load by one thread (one sort each, not an insert per
 * row), or grown with the load when other threads parse meanwhile
 * (ingest.c). A
 * transaction's statements (session_id, stmt_id BETWEEN first and last) are
 * read as a stmt_id range of the table itself (`+session_id` in the
 * readers): a second index for them cost 0.045 bytes per log byte. xids is
 * written by ingest as it goes (store.c), not from an index on stmt_rows.
 */
static const char ls_index_sql[] =
    "CREATE INDEX IF NOT EXISTS statements_session ON stmt_rows(session_id, start_ts);\n"
    "CREATE INDEX IF NOT EXISTS lock_events_pid ON lock_event_rows(pid, ts);\n"
    "CREATE INDEX IF NOT EXISTS errors_pid ON errors(pid, ts);\n";

#endif
