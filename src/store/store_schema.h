/*
 * store_schema.h — the SQLite schema of a lockspan store (LS_STORE_SCHEMA_VERSION).
 * Documented table by table in docs/store.md; keep the two in step.
 * Times are INTEGER microseconds since the Unix epoch, UTC.
 */
#ifndef LS_STORE_SCHEMA_H
#define LS_STORE_SCHEMA_H

/* Code paths of transactions (traces.c), here and in the step to schema
 * 12 (store.c). A transaction's statement shape and the order in which it
 * writes relations are texts that thousands of transactions share: each
 * distinct one is stored once (a JSON array of relation names for an
 * order) and tx_code_rows points at it. */
#define LS_TX_CODE_ROWS_DDL \
    "CREATE TABLE IF NOT EXISTS shapes(\n" \
    "  shape_id INTEGER PRIMARY KEY, shape TEXT UNIQUE);\n" \
    "CREATE TABLE IF NOT EXISTS lock_orders(\n" \
    "  order_id INTEGER PRIMARY KEY, relations TEXT UNIQUE);\n" \
    "CREATE TABLE IF NOT EXISTS tx_code_rows(\n" \
    "  tx_id INTEGER PRIMARY KEY, link TEXT, trace_id TEXT, span_row INTEGER,\n" \
    "  code_span_row INTEGER, code_function TEXT, code_namespace TEXT,\n" \
    "  code_filepath TEXT, code_lineno INTEGER, route TEXT, service TEXT,\n" \
    "  root_name TEXT, tag_route TEXT, tag_controller TEXT, tag_action TEXT,\n" \
    "  tag_application TEXT, shape_id INTEGER, offset_us INTEGER,\n" \
    "  comment_span TEXT, order_id INTEGER);\n"

/* The holds of rows (correlation, holds.c), here and in the step to
 * schema 12 (store.c): a bound equal to its time (start_lo and start_hi
 * to start_ts, end_lo and end_hi to end_ts) is NULL, and how the bounds
 * were found is an id of hold_evidence, a text that a hundred thousand
 * holds share. */
#define LS_HOLD_ROWS_DDL \
    "CREATE TABLE IF NOT EXISTS hold_evidence(\n" \
    "  evidence_id INTEGER PRIMARY KEY, text TEXT UNIQUE);\n" \
    "CREATE TABLE IF NOT EXISTS hold_rows(\n" \
    "  hold_id INTEGER PRIMARY KEY, row_id INTEGER, tx_id INTEGER, session_id INTEGER,\n" \
    "  pid INTEGER, start_ts INTEGER, start_lo INTEGER, start_hi INTEGER,\n" \
    "  start_evidence INTEGER, end_ts INTEGER, end_lo INTEGER, end_hi INTEGER,\n" \
    "  end_evidence INTEGER, lock_stmt INTEGER, waits INTEGER, waiter_ms REAL,\n" \
    "  max_queue INTEGER, contended_ms REAL, sql_ms REAL, idle_ms REAL,\n" \
    "  commit_ms REAL, head_state TEXT, observed_state TEXT,\n" \
    "  observed_samples INTEGER);\n"

/* SQL: the text of hold_evidence id ID (an SQL expression). */
#define LS_HOLD_EVIDENCE_OF(ID) \
    "(SELECT text FROM hold_evidence WHERE evidence_id = " ID ")"

/* The two tables behind the lock_events and lock_waits views, here and in
 * the step to schema 11 (store.c). holders and queue have no type: a
 * TEXT column would turn the INTEGER id of a list into text. */
#define LS_LOCK_EVENT_ROWS_DDL \
    "CREATE TABLE IF NOT EXISTS lock_event_rows(\n" \
    "  event_id INTEGER PRIMARY KEY, session_id INTEGER REFERENCES sessions,\n" \
    "  pid INTEGER, file_id INTEGER, line INTEGER, ts INTEGER, phase TEXT,\n" \
    "  mode TEXT, target_kind TEXT, target TEXT, target_xid INTEGER,\n" \
    "  rel_oid INTEGER, db_oid INTEGER, page INTEGER, tuple_offset INTEGER,\n" \
    "  waited_ms REAL, holders, queue, ctx_action TEXT,\n" \
    "  ctx_relation TEXT, ctx_page INTEGER, ctx_offset INTEGER, text_id INTEGER,\n" \
    "  xid INTEGER, vxid TEXT, wait_id INTEGER, context_id INTEGER, after_lock INTEGER);\n"
#define LS_LOCK_WAIT_ROWS_DDL \
    "CREATE TABLE IF NOT EXISTS lock_wait_rows(\n" \
    "  wait_id INTEGER PRIMARY KEY, session_id INTEGER REFERENCES sessions,\n" \
    "  pid INTEGER, mode TEXT, target_kind TEXT, target TEXT, target_xid INTEGER,\n" \
    "  rel_oid INTEGER, db_oid INTEGER, relation TEXT, ctid TEXT,\n" \
    "  start_ts INTEGER, logged_ts INTEGER, end_ts INTEGER, waited_ms REAL,\n" \
    "  outcome TEXT, statement TEXT, holders, queue,\n" \
    "  blocker_pid INTEGER, blocker_session INTEGER, blocker_xid INTEGER,\n" \
    "  root_pid INTEGER, root_session INTEGER, root_xid INTEGER,\n" \
    "  chain_depth INTEGER, first_event INTEGER, file_id INTEGER, line INTEGER,\n" \
    "  row_id INTEGER, waiter_stmt INTEGER, waiter_tx INTEGER, holder_pid INTEGER,\n" \
    "  holder_tx INTEGER, root_tx INTEGER, end_file INTEGER, end_line INTEGER,\n" \
    "  row_evidence TEXT, blocker_tx INTEGER);\n"

/* Each database span without a backend pid: the pid and how it was
 * placed (trace, logged statement), else why not (correlation's
 * "statements from spans" pass, spans.c). */
#define LS_SPAN_PLACEMENT_DDL \
    "CREATE TABLE IF NOT EXISTS span_placement(\n" \
    "  span_row INTEGER PRIMARY KEY, pid INTEGER, how TEXT, why TEXT);\n"

#include "findings_schema.h" /* LS_FINDINGS_DDL */

static const char *const ls_schema_sql[] = {
    "CREATE TABLE IF NOT EXISTS meta(\n"
    "  key TEXT PRIMARY KEY, value TEXT);\n",
    "CREATE TABLE IF NOT EXISTS files(\n"
    "  file_id INTEGER PRIMARY KEY, path TEXT NOT NULL, format TEXT, prefix TEXT,\n"
    "  gzip INTEGER, bytes INTEGER, lines INTEGER, records INTEGER,\n"
    "  bad_lines INTEGER, first_ts INTEGER, last_ts INTEGER, fingerprint INTEGER,\n"
    "  text_bytes INTEGER, tail_hash INTEGER, used_prefix TEXT);\n",
    /* A file is found again by the hash of its first line (incremental ingest). */
    "CREATE INDEX IF NOT EXISTS files_fingerprint ON files(fingerprint);\n",
    "CREATE TABLE IF NOT EXISTS bad_lines(\n"
    "  file_id INTEGER REFERENCES files, line INTEGER, reason TEXT, sample TEXT);\n",
    "CREATE TABLE IF NOT EXISTS sessions(\n"
    "  session_id INTEGER PRIMARY KEY, key TEXT UNIQUE NOT NULL, pid INTEGER,\n"
    "  pg_session TEXT, start_ts INTEGER, end_ts INTEGER, first_ts INTEGER,\n"
    "  last_ts INTEGER, user_name TEXT, database TEXT, application TEXT,\n"
    "  remote TEXT, backend_type TEXT);\n",
    "CREATE INDEX IF NOT EXISTS sessions_pid ON sessions(pid);\n",
    /* Statement texts, once each: a workload runs a few hundred texts
     * millions of times (parameters are apart, in stmt_rows.params). */
    "CREATE TABLE IF NOT EXISTS stmt_texts(\n"
    "  text_id INTEGER PRIMARY KEY, hash INTEGER NOT NULL, text TEXT NOT NULL);\n",
    "CREATE INDEX IF NOT EXISTS stmt_texts_hash ON stmt_texts(hash);\n",
    /* Prepared statement names, once each (P_1, <unnamed>, S_12, ...). */
    "CREATE TABLE IF NOT EXISTS stmt_names(\n"
    "  name_id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL);\n",
    /*
     * One row per statement line, narrow (docs/store.md), except that the
     * parse and bind lines of an extended-protocol statement, logged by
     * duration, join the row of its execute line as bind_us and parse_us
     * (store.c, fold_row()): the name and text
     * by id, the verb as a small integer, the duration in whole
     * microseconds, the end derived from the start and the duration, the
     * pid NULL when it is the session's (view statements). vxid and params repeat from line to line (a
     * transaction's lines share its vxid, an execute line the parameters of
     * its bind line): an INTEGER k there means "as in the row k stmt_ids
     * before", which holds the TEXT.
     */
    "CREATE TABLE IF NOT EXISTS stmt_rows(\n"
    "  stmt_id INTEGER PRIMARY KEY, session_id INTEGER REFERENCES sessions,\n"
    "  pid INTEGER, file_id INTEGER, line INTEGER, start_ts INTEGER, dur_us INTEGER,\n"
    "  verb INTEGER, name_id INTEGER, xid INTEGER, vxid, text_id INTEGER, params,\n"
    "  prepare TEXT, bind_us INTEGER, parse_us INTEGER);\n",
    /* What readers query: the columns of schema version 4. A one-table
     * view, so that SQLite flattens it into every query and the indexes
     * on stmt_rows serve; what is stored by reference is looked up only
     * when asked for. The verb codes are LS_VERB_* (ls_store.h). */
    "CREATE VIEW IF NOT EXISTS statements AS SELECT stmt_id, session_id,\n"
    "  " LS_STMT_PID("stmt_rows") " AS pid, file_id, line, CASE WHEN dur_us IS NULL THEN start_ts ELSE start_ts + dur_us END AS log_ts,\n"
    "  start_ts, start_ts + dur_us AS end_ts, dur_us / 1000.0 AS duration_ms,\n"
    "  CASE verb WHEN 0 THEN 'execute' WHEN 1 THEN 'bind' WHEN 2 THEN 'parse'\n"
    "    WHEN 3 THEN 'statement' WHEN 4 THEN '' WHEN 5 THEN 'span' END AS verb,\n"
    "  (SELECT n.name FROM stmt_names n WHERE n.name_id = stmt_rows.name_id) AS name,\n"
    "  xid,\n"
    "  " LS_STMT_REF("stmt_rows", "vxid") " AS vxid,\n"
    "  (SELECT t.text FROM stmt_texts t WHERE t.text_id = stmt_rows.text_id) AS text,\n"
    "  " LS_STMT_REF("stmt_rows", "params") " AS params,\n"
    "  prepare, bind_us / 1000.0 AS bind_ms, parse_us / 1000.0 AS parse_ms FROM stmt_rows;\n",
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
    "  ctx_page, ctx_offset, text_id, xid, vxid, wait_id, context_id, after_lock\n"
    "  FROM lock_event_rows;\n",
    /* Written by correlation; queue as in lock_event_rows (the lock
     * message's own value, TEXT or a stmt_texts id), holders as TEXT. */
    LS_LOCK_WAIT_ROWS_DDL,
    "CREATE VIEW IF NOT EXISTS lock_waits AS SELECT wait_id, session_id, pid, mode,\n"
    "  target_kind, target, target_xid, rel_oid, db_oid, relation, ctid, start_ts,\n"
    "  logged_ts, end_ts, waited_ms, outcome, statement,\n"
    "  " LS_PIDS_OF("lock_wait_rows", "holders") " AS holders,\n"
    "  " LS_PIDS_OF("lock_wait_rows", "queue") " AS queue, blocker_pid,\n"
    "  blocker_session, blocker_xid, root_pid, root_session, root_xid, chain_depth,\n"
    "  first_event, file_id, line, row_id, waiter_stmt, waiter_tx, holder_pid,\n"
    "  holder_tx, root_tx, end_file, end_line, row_evidence, blocker_tx\n"
    "  FROM lock_wait_rows;\n",
    "CREATE TABLE IF NOT EXISTS deadlocks(\n"
    "  deadlock_id INTEGER PRIMARY KEY, file_id INTEGER, line INTEGER,\n"
    "  ts INTEGER, victim_pid INTEGER, victim_session INTEGER, detail TEXT);\n",
    "CREATE TABLE IF NOT EXISTS deadlock_edges(\n"
    "  deadlock_id INTEGER REFERENCES deadlocks, seq INTEGER, waiter_pid INTEGER,\n"
    "  mode TEXT, target_kind TEXT, target TEXT, blocker_pid INTEGER);\n",
    "CREATE TABLE IF NOT EXISTS deadlock_procs(\n"
    "  deadlock_id INTEGER REFERENCES deadlocks, pid INTEGER,\n"
    "  session_id INTEGER, text_id INTEGER, tx_id INTEGER);\n",
    "CREATE TABLE IF NOT EXISTS errors(\n"
    "  error_id INTEGER PRIMARY KEY, session_id INTEGER REFERENCES sessions,\n"
    "  pid INTEGER, file_id INTEGER, line INTEGER, ts INTEGER, severity TEXT,\n"
    "  sqlstate TEXT, class TEXT, message TEXT, detail TEXT, text_id INTEGER,\n"
    "  xid INTEGER, vxid TEXT, tx_id INTEGER, wait_id INTEGER, cause_tx INTEGER,\n"
    "  retry_stmt INTEGER, retry_tx INTEGER, retry_outcome TEXT);\n",
    "CREATE TABLE IF NOT EXISTS relations(\n"
    "  db_oid INTEGER, rel_oid INTEGER, name TEXT, evidence TEXT,\n"
    "  PRIMARY KEY(db_oid, rel_oid));\n",
    "CREATE TABLE IF NOT EXISTS transactions(\n"
    "  tx_id INTEGER PRIMARY KEY, session_id INTEGER, pid INTEGER, xid INTEGER,\n"
    "  vxid TEXT, explicit INTEGER, start_ts INTEGER, start_known TEXT,\n"
    "  end_ts INTEGER, end_known TEXT, outcome TEXT, first_stmt INTEGER,\n"
    "  last_stmt INTEGER, statements INTEGER, sql_ms REAL, idle_ms REAL,\n"
    "  max_idle_ms REAL, commit_ms REAL);\n",
    "CREATE TABLE IF NOT EXISTS rows(\n"
    "  row_id INTEGER PRIMARY KEY, relation TEXT, row_key TEXT, evidence TEXT, grouped_by TEXT,\n"
    "  ctids TEXT, waits INTEGER, total_wait_ms REAL, max_wait_ms REAL,\n"
    "  holds INTEGER, mean_hold_ms REAL, capacity_per_s REAL, max_queue INTEGER,\n"
    "  max_queue_ts INTEGER, longest_chain INTEGER, first_ts INTEGER, last_ts INTEGER,\n"
    "  occupancy_holds INTEGER, occupied_ms REAL, hidden_wait_ms REAL,\n"
    "  logged_wait_ms REAL, waited_statements INTEGER, utilisation REAL);\n",
    "CREATE TABLE IF NOT EXISTS row_waits(\n"
    "  rw_id INTEGER PRIMARY KEY, row_id INTEGER, hold_id INTEGER, tx_id INTEGER,\n"
    "  session_id INTEGER, pid INTEGER, stmt_id INTEGER, start_ts INTEGER, end_ts INTEGER,\n"
    "  wait_ms REAL, behind_hold INTEGER, behind_tx INTEGER, kind TEXT,\n"
    "  logged_wait_id INTEGER, inferred_ms REAL, logged_ms REAL);\n",
    LS_HOLD_ROWS_DDL,
    /* What readers query: every bound as a time, the evidence as text
     * (one-table view, flattened into every query as statements is). */
    "CREATE VIEW IF NOT EXISTS holds AS SELECT hold_id, row_id, tx_id, session_id, pid,\n"
    "  start_ts, coalesce(start_lo, start_ts) AS start_lo,\n"
    "  coalesce(start_hi, start_ts) AS start_hi,\n"
    "  " LS_HOLD_EVIDENCE_OF("hold_rows.start_evidence") " AS start_evidence,\n"
    "  end_ts, coalesce(end_lo, end_ts) AS end_lo, coalesce(end_hi, end_ts) AS end_hi,\n"
    "  " LS_HOLD_EVIDENCE_OF("hold_rows.end_evidence") " AS end_evidence,\n"
    "  lock_stmt, waits, waiter_ms, max_queue, contended_ms, sql_ms, idle_ms, commit_ms,\n"
    "  head_state, observed_state, observed_samples FROM hold_rows;\n",
    "CREATE TABLE IF NOT EXISTS row_rules(\n"
    "  shape TEXT, relation TEXT, col TEXT, arg INTEGER, learned_from INTEGER);\n",
    "CREATE TABLE IF NOT EXISTS row_queue(\n"
    "  row_id INTEGER, ts INTEGER, depth INTEGER);\n",
    "CREATE TABLE IF NOT EXISTS spans(\n"
    "  span_row INTEGER PRIMARY KEY, file_id INTEGER, line INTEGER, format TEXT,\n"
    "  trace_id TEXT, span_id TEXT, parent_id TEXT, name TEXT, kind INTEGER,\n"
    "  service TEXT, start_ts INTEGER, end_ts INTEGER, error INTEGER,\n"
    "  db_system TEXT, db_statement TEXT, db_name TEXT, db_operation TEXT,\n"
    "  code_function TEXT, code_namespace TEXT, code_filepath TEXT,\n"
    "  code_lineno INTEGER, http_route TEXT, http_method TEXT, http_url TEXT,\n"
    "  peer_service TEXT, db_pid INTEGER, attributes TEXT);\n",
    /* The same span in several exports of one run (OTLP and Zipkin, or a
     * file and its .gz) is stored once. */
    "CREATE UNIQUE INDEX IF NOT EXISTS spans_id ON spans(trace_id, span_id);\n",
    "CREATE TABLE IF NOT EXISTS stmt_tags(\n"
    "  stmt_id INTEGER, key TEXT, value TEXT);\n",
    LS_TX_CODE_ROWS_DDL,
    /* What readers query: a transaction's shape as text, its session's
     * application_name, and the relations it writes one row each, in
     * order (one-table views, as lock_events; the second a join). */
    "CREATE VIEW IF NOT EXISTS tx_code AS SELECT tx_id, link, trace_id, span_row,\n"
    "  code_span_row, code_function, code_namespace, code_filepath, code_lineno,\n"
    "  route, service, root_name, tag_route, tag_controller, tag_action,\n"
    "  tag_application, (SELECT nullif(se.application, '') FROM transactions t\n"
    "   JOIN sessions se ON se.session_id = t.session_id\n"
    "   WHERE t.tx_id = tx_code_rows.tx_id) AS application,\n"
    "  (SELECT shape FROM shapes WHERE shapes.shape_id = tx_code_rows.shape_id) AS shape,\n"
    "  offset_us, comment_span, order_id FROM tx_code_rows;\n",
    "CREATE VIEW IF NOT EXISTS lock_order AS SELECT c.tx_id, r.key + 1 AS seq,\n"
    "  r.value AS relation FROM tx_code_rows c JOIN lock_orders o ON o.order_id = c.order_id,\n"
    "  json_each(o.relations) r;\n",
    "CREATE TABLE IF NOT EXISTS hold_parts(\n"
    "  hold_id INTEGER, part TEXT, name TEXT, ms REAL);\n",
    "CREATE TABLE IF NOT EXISTS activity(\n"
    "  file_id INTEGER, line INTEGER, ts INTEGER, pid INTEGER, state TEXT,\n"
    "  wait_event_type TEXT, wait_event TEXT, xact_start INTEGER,\n"
    "  query_start INTEGER, backend_start INTEGER, blocking_pids TEXT, query TEXT);\n",
    LS_SPAN_PLACEMENT_DDL,
    LS_FINDINGS_DDL,
    "CREATE TABLE IF NOT EXISTS xids(\n"
    "  xid INTEGER PRIMARY KEY, session_id INTEGER, pid INTEGER, first_ts INTEGER);\n",
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
