/*
 * upgrade_steps.h — the SQL of each step of the store's upgrade
 * (store_upgrades[], store.c), frozen: the text a step ran when its
 * version was the newest, the tables it made as they were then.
 *
 * A step is never edited. The declarations (store_tables.h,
 * corr_tables.h) give a fresh store's tables; a step here made a table
 * of its version from the declaration of that day, and pasting the
 * declaration's macro instead would make an old store's table with
 * today's columns, which the steps after it (ALTER TABLE ... ADD COLUMN,
 * INSERT ... SELECT *) do not expect. A change of a declaration comes
 * with a new schema version and a new step that makes the change.
 * tests/e2e/check_columns.py fails on a macro of a declaration here.
 *
 * Made from the expansion of the steps of schema 18 (main 732069d):
 * `gcc -E` of store.c, each step's string literals joined, split here
 * where the DDL breaks its lines.
 */
#ifndef LS_UPGRADE_STEPS_H
#define LS_UPGRADE_STEPS_H

/* to schema 9 */
#define LS_UPGRADE_TO_9 \
    "ALTER TABLE stmt_rows ADD COLUMN bind_us INTEGER; ALTER TABLE stmt_rows ADD COLUMN" \
    " parse_us INTEGER; DROP VIEW statements;"

/* to schema 10 */
#define LS_UPGRADE_TO_10 \
    "ALTER TABLE lock_events ADD COLUMN after_lock INTEGER;"

/* to schema 11 */
#define LS_UPGRADE_TO_11 \
    "CREATE TABLE IF NOT EXISTS lock_event_rows(\n" \
    "  event_id INTEGER PRIMARY KEY, session_id INTEGER REFERENCES sessions, pid INTEGER," \
    " file_id INTEGER, line INTEGER, ts INTEGER, phase TEXT, mode TEXT, target_kind TEXT," \
    " target TEXT, target_xid INTEGER, rel_oid INTEGER, db_oid INTEGER, page INTEGER," \
    " tuple_offset INTEGER, waited_ms REAL, holders, queue, ctx_action TEXT, ctx_relation" \
    " TEXT, ctx_page INTEGER, ctx_offset INTEGER, text_id INTEGER, xid INTEGER, vxid TEXT," \
    " wait_id INTEGER, context_id INTEGER, after_lock INTEGER);\n" \
    "CREATE TABLE IF NOT EXISTS lock_wait_rows(\n" \
    "  wait_id INTEGER PRIMARY KEY, session_id INTEGER REFERENCES sessions, pid INTEGER," \
    " mode TEXT, target_kind TEXT, target TEXT, target_xid INTEGER, rel_oid INTEGER, db_oid" \
    " INTEGER, relation TEXT, ctid TEXT, start_ts INTEGER, logged_ts INTEGER, end_ts" \
    " INTEGER, waited_ms REAL, outcome TEXT, statement TEXT, holders, queue, blocker_pid" \
    " INTEGER, blocker_session INTEGER, blocker_xid INTEGER, root_pid INTEGER, root_session" \
    " INTEGER, root_xid INTEGER, chain_depth INTEGER, first_event INTEGER, file_id INTEGER," \
    " line INTEGER, row_id INTEGER, waiter_stmt INTEGER, waiter_tx INTEGER, holder_pid" \
    " INTEGER, holder_tx INTEGER, root_tx INTEGER, end_file INTEGER, end_line INTEGER," \
    " row_evidence TEXT, blocker_tx INTEGER);\n" \
    "INSERT INTO lock_event_rows SELECT * FROM lock_events; INSERT INTO lock_wait_rows" \
    " SELECT * FROM lock_waits; DROP TABLE lock_events; DROP TABLE lock_waits; CREATE INDEX" \
    " IF NOT EXISTS lock_events_pid ON lock_event_rows(pid, ts); DELETE FROM meta WHERE key" \
    " = 'correlated';"

/* to schema 12 */
#define LS_UPGRADE_TO_12 \
    "DROP TABLE IF EXISTS tx_code; DROP TABLE IF EXISTS lock_order; DROP TABLE IF EXISTS" \
    " holds; CREATE TABLE IF NOT EXISTS shapes(\n" \
    "  shape_id INTEGER PRIMARY KEY, shape TEXT UNIQUE);\n" \
    "CREATE TABLE IF NOT EXISTS lock_orders(\n" \
    "  order_id INTEGER PRIMARY KEY, relations TEXT UNIQUE);\n" \
    "CREATE TABLE IF NOT EXISTS tx_code_rows(\n" \
    "  tx_id INTEGER PRIMARY KEY, link TEXT, trace_id TEXT, span_row INTEGER, code_span_row" \
    " INTEGER, code_function TEXT, code_namespace TEXT, code_filepath TEXT, code_lineno" \
    " INTEGER, route TEXT, service TEXT, root_name TEXT, tag_route TEXT, tag_controller" \
    " TEXT, tag_action TEXT, tag_application TEXT, shape_id INTEGER, offset_us INTEGER," \
    " comment_span TEXT, order_id INTEGER, tx_shape_id INTEGER, path_set INTEGER);\n" \
    "CREATE TABLE IF NOT EXISTS tx_shapes(\n" \
    "  tx_shape_id INTEGER PRIMARY KEY, label TEXT UNIQUE, sequence TEXT);\n" \
    "CREATE TABLE IF NOT EXISTS path_identity(\n" \
    "  identity TEXT, reason TEXT, holds INTEGER, named INTEGER, names INTEGER, top_holds" \
    " INTEGER);\n" \
    "CREATE TABLE IF NOT EXISTS path_names(\n" \
    "  name_id INTEGER PRIMARY KEY, name TEXT UNIQUE);\n" \
    "CREATE TABLE IF NOT EXISTS path_sets(\n" \
    "  set_id INTEGER PRIMARY KEY, function_id INTEGER, function_src INTEGER, route_id" \
    " INTEGER, route_src INTEGER, service_id INTEGER, service_src INTEGER, application_id" \
    " INTEGER, application_src INTEGER, statement_id INTEGER, statement_src INTEGER," \
    " shape_id INTEGER, shape_src INTEGER,\n" \
    "  UNIQUE(function_id, function_src, route_id, route_src, service_id, service_src,\n" \
    "  application_id, application_src, statement_id, statement_src, shape_id,\n" \
    "  shape_src));\n" \
    "CREATE TABLE IF NOT EXISTS hold_evidence(\n" \
    "  evidence_id INTEGER PRIMARY KEY, text TEXT UNIQUE);\n" \
    "CREATE TABLE IF NOT EXISTS hold_rows(\n" \
    "  hold_id INTEGER PRIMARY KEY, row_id INTEGER, tx_id INTEGER, session_id INTEGER, pid" \
    " INTEGER, start_ts INTEGER, start_lo INTEGER, start_hi INTEGER, start_evidence INTEGER," \
    " end_ts INTEGER, end_lo INTEGER, end_hi INTEGER, end_evidence INTEGER, lock_stmt" \
    " INTEGER, waits INTEGER, waiter_ms REAL, max_queue INTEGER, contended_ms REAL, sql_ms" \
    " REAL, idle_ms REAL, commit_ms REAL, head_state TEXT, observed_state TEXT," \
    " observed_samples INTEGER);\n" \
    " DELETE FROM meta WHERE key = 'correlated';"

/* to schema 13 */
#define LS_UPGRADE_TO_13 \
    "CREATE TABLE IF NOT EXISTS span_placement(\n" \
    "  span_row INTEGER PRIMARY KEY, pid INTEGER, how TEXT, why TEXT);\n" \
    "CREATE TABLE IF NOT EXISTS findings(\n" \
    "  finding_id INTEGER PRIMARY KEY, grouping TEXT, seq INTEGER, rule TEXT, weight_ms" \
    " REAL, title TEXT, evidence TEXT, fix TEXT);\n" \
    "CREATE TABLE IF NOT EXISTS finding_fields(\n" \
    "  finding_id INTEGER, pos INTEGER, name TEXT, kind TEXT, value,\n" \
    "  PRIMARY KEY (finding_id, pos));\n" \
    "CREATE TABLE IF NOT EXISTS row_cover(\n" \
    "  rw_id INTEGER, tx_id INTEGER, us INTEGER);\n" \
    "CREATE TABLE IF NOT EXISTS span_clock(\n" \
    "  offset_us INTEGER, offset_from TEXT, votes INTEGER);\n" \
    "CREATE TABLE IF NOT EXISTS row_keys(\n" \
    "  row_id INTEGER PRIMARY KEY, relation TEXT, row_key TEXT, evidence TEXT, grouped_by" \
    " TEXT, ctids TEXT, waits INTEGER, total_wait_ms REAL, max_wait_ms REAL, longest_chain" \
    " INTEGER, first_ts INTEGER, last_ts INTEGER);\n" \
    "CREATE TABLE IF NOT EXISTS row_holds(\n" \
    "  row_id INTEGER PRIMARY KEY, holds INTEGER, occupancy_holds INTEGER, occupied_ms REAL," \
    " mean_hold_ms REAL, capacity_per_s REAL);\n" \
    "CREATE TABLE IF NOT EXISTS row_queue_peaks(\n" \
    "  row_id INTEGER PRIMARY KEY, max_queue INTEGER, max_queue_ts INTEGER);\n" \
    "CREATE TABLE IF NOT EXISTS row_hidden(\n" \
    "  row_id INTEGER PRIMARY KEY, hidden_wait_ms REAL, logged_wait_ms REAL," \
    " waited_statements INTEGER, utilisation REAL);\n" \
    "CREATE TABLE IF NOT EXISTS bound_evidence(\n" \
    "  evidence_id INTEGER PRIMARY KEY, text TEXT UNIQUE);\n" \
    "CREATE TABLE IF NOT EXISTS hold_bounds(\n" \
    "  hold_id INTEGER PRIMARY KEY, start_ts INTEGER, start_lo INTEGER, start_hi INTEGER," \
    " start_evidence INTEGER, end_ts INTEGER, end_lo INTEGER, end_hi INTEGER, end_evidence" \
    " INTEGER, lock_stmt INTEGER, waits INTEGER, waiter_ms REAL, contended_ms REAL, sql_ms" \
    " REAL, idle_ms REAL, commit_ms REAL, head_state TEXT, observed_state TEXT," \
    " observed_samples INTEGER);\n" \
    "CREATE TABLE IF NOT EXISTS hold_queued(\n" \
    "  hold_id INTEGER PRIMARY KEY, start_ts INTEGER, start_lo INTEGER);\n" \
    " DROP TABLE IF EXISTS rows; DROP VIEW IF EXISTS holds; DELETE FROM meta WHERE key =" \
    " 'correlated' OR key GLOB 'span_clock_offset_*';CREATE TABLE IF NOT EXISTS wait_links(\n" \
    "  wait_id INTEGER PRIMARY KEY, waiter_stmt INTEGER, waiter_tx INTEGER, holder_pid" \
    " INTEGER, holder_tx INTEGER, blocker_tx INTEGER, root_tx INTEGER, root_pid INTEGER," \
    " root_session INTEGER, root_xid INTEGER, chain_depth INTEGER);\n" \
    "CREATE TABLE IF NOT EXISTS error_links(\n" \
    "  error_id INTEGER PRIMARY KEY, tx_id INTEGER, wait_id INTEGER, cause_tx INTEGER);\n" \
    "CREATE TABLE IF NOT EXISTS retries(\n" \
    "  error_id INTEGER PRIMARY KEY, retry_stmt INTEGER, retry_tx INTEGER, retry_outcome" \
    " TEXT, retry_span INTEGER);\n" \
    "CREATE TABLE IF NOT EXISTS deadlock_links(\n" \
    "  deadlock_id INTEGER, pid INTEGER, session_id INTEGER, tx_id INTEGER,\n" \
    "  PRIMARY KEY(deadlock_id, pid));\n" \
    " CREATE TABLE IF NOT EXISTS wait_rows(\n" \
    "  wait_id INTEGER PRIMARY KEY, row_id INTEGER, waiter_stmt INTEGER, row_evidence" \
    " TEXT);\n" \
    "CREATE TABLE IF NOT EXISTS event_waits(\n" \
    "  event_id INTEGER PRIMARY KEY, wait_id INTEGER);\n" \
    "CREATE TABLE IF NOT EXISTS wait_chains(\n" \
    "  wait_id INTEGER PRIMARY KEY, blocker_session INTEGER, blocker_xid INTEGER, root_pid" \
    " INTEGER, root_session INTEGER, root_xid INTEGER, chain_depth INTEGER);\n" \
    " DROP VIEW IF EXISTS lock_events; DROP VIEW IF EXISTS lock_waits;"

/* to schema 14 */
#define LS_UPGRADE_TO_14 \
    "CREATE TABLE IF NOT EXISTS hold_final_evidence(\n" \
    "  evidence_id INTEGER PRIMARY KEY, text TEXT UNIQUE);\n" \
    "CREATE TABLE IF NOT EXISTS hold_final(\n" \
    "  hold_id INTEGER PRIMARY KEY, row_id INTEGER, tx_id INTEGER, session_id INTEGER, pid" \
    " INTEGER, start_ts INTEGER, start_lo INTEGER, start_hi INTEGER, start_evidence INTEGER," \
    " end_ts INTEGER, end_lo INTEGER, end_hi INTEGER, end_evidence INTEGER, lock_stmt" \
    " INTEGER, waits INTEGER, waiter_ms REAL, max_queue INTEGER, contended_ms REAL, sql_ms" \
    " REAL, idle_ms REAL, commit_ms REAL, head_state TEXT, observed_state TEXT," \
    " observed_samples INTEGER);\n" \
    "CREATE TABLE IF NOT EXISTS row_final(\n" \
    "  row_id INTEGER PRIMARY KEY, holds INTEGER, mean_hold_ms REAL, capacity_per_s REAL," \
    " max_queue INTEGER, max_queue_ts INTEGER, occupancy_holds INTEGER, occupied_ms REAL," \
    " hidden_wait_ms REAL, logged_wait_ms REAL, waited_statements INTEGER, utilisation" \
    " REAL);\n" \
    " DROP VIEW IF EXISTS holds; DROP VIEW IF EXISTS rows; DELETE FROM meta WHERE key =" \
    " 'correlated'; ALTER TABLE stmt_texts ADD COLUMN kind INTEGER; ALTER TABLE stmt_texts" \
    " ADD COLUMN writes TEXT; CREATE TABLE IF NOT EXISTS tx_cuts(\n" \
    "  first_stmt INTEGER PRIMARY KEY, last_stmt INTEGER, session_id INTEGER, pid INTEGER," \
    " xid INTEGER, vxid TEXT, explicit INTEGER, closed INTEGER, end_kind INTEGER, start_ts" \
    " INTEGER, end_ts INTEGER, statements INTEGER, sql_ms REAL, idle_ms REAL, max_idle_ms" \
    " REAL, commit_ms REAL, shape INTEGER);\n" \
    "CREATE INDEX IF NOT EXISTS tx_cuts_open ON tx_cuts(session_id) WHERE closed = 0;\n" \
    " DELETE FROM meta WHERE key = 'tx_cuts'; CREATE TABLE IF NOT EXISTS server_events(\n" \
    "  event_id INTEGER PRIMARY KEY, ts INTEGER, kind TEXT, pid INTEGER, file_id INTEGER," \
    " line INTEGER, relation TEXT, bytes INTEGER, duration_ms REAL);\n" \
    " INSERT OR REPLACE INTO meta(key, value) SELECT 'server_events_from_file', max(file_id)" \
    " + 1 FROM files HAVING count(*) > 0;"

/* to schema 15 */
#define LS_UPGRADE_TO_15 \
    "ALTER TABLE row_rules ADD COLUMN target TEXT; ALTER TABLE row_rules ADD COLUMN" \
    " target_col TEXT; CREATE TABLE IF NOT EXISTS rule_keyed(\n" \
    "  rule_id INTEGER PRIMARY KEY, statements INTEGER);\n" \
    " DROP VIEW IF EXISTS tx_code; DROP TABLE IF EXISTS tx_code_rows; CREATE TABLE IF NOT" \
    " EXISTS shapes(\n" \
    "  shape_id INTEGER PRIMARY KEY, shape TEXT UNIQUE);\n" \
    "CREATE TABLE IF NOT EXISTS lock_orders(\n" \
    "  order_id INTEGER PRIMARY KEY, relations TEXT UNIQUE);\n" \
    "CREATE TABLE IF NOT EXISTS tx_code_rows(\n" \
    "  tx_id INTEGER PRIMARY KEY, link TEXT, trace_id TEXT, span_row INTEGER, code_span_row" \
    " INTEGER, code_function TEXT, code_namespace TEXT, code_filepath TEXT, code_lineno" \
    " INTEGER, route TEXT, service TEXT, root_name TEXT, tag_route TEXT, tag_controller" \
    " TEXT, tag_action TEXT, tag_application TEXT, shape_id INTEGER, offset_us INTEGER," \
    " comment_span TEXT, order_id INTEGER, tx_shape_id INTEGER, path_set INTEGER);\n" \
    "CREATE TABLE IF NOT EXISTS tx_shapes(\n" \
    "  tx_shape_id INTEGER PRIMARY KEY, label TEXT UNIQUE, sequence TEXT);\n" \
    "CREATE TABLE IF NOT EXISTS path_identity(\n" \
    "  identity TEXT, reason TEXT, holds INTEGER, named INTEGER, names INTEGER, top_holds" \
    " INTEGER);\n" \
    "CREATE TABLE IF NOT EXISTS path_names(\n" \
    "  name_id INTEGER PRIMARY KEY, name TEXT UNIQUE);\n" \
    "CREATE TABLE IF NOT EXISTS path_sets(\n" \
    "  set_id INTEGER PRIMARY KEY, function_id INTEGER, function_src INTEGER, route_id" \
    " INTEGER, route_src INTEGER, service_id INTEGER, service_src INTEGER, application_id" \
    " INTEGER, application_src INTEGER, statement_id INTEGER, statement_src INTEGER," \
    " shape_id INTEGER, shape_src INTEGER,\n" \
    "  UNIQUE(function_id, function_src, route_id, route_src, service_id, service_src,\n" \
    "  application_id, application_src, statement_id, statement_src, shape_id,\n" \
    "  shape_src));\n" \
    " CREATE TABLE IF NOT EXISTS stmt_span_time(\n" \
    "  stmt_id INTEGER PRIMARY KEY, span_row INTEGER, log_ts INTEGER);\n" \
    "CREATE TABLE IF NOT EXISTS hold_range(\n" \
    "  hold_id INTEGER PRIMARY KEY, lo_us INTEGER, hi_us INTEGER, est_us INTEGER, start_lo" \
    " INTEGER, start_hi INTEGER, end_lo INTEGER, end_hi INTEGER);\n" \
    " DROP TABLE IF EXISTS main.hold_rows; DROP TABLE IF EXISTS main.hold_evidence; DROP" \
    " TABLE IF EXISTS main.hold_bounds; DROP TABLE IF EXISTS main.bound_evidence; DROP TABLE" \
    " IF EXISTS main.hold_queued; ALTER TABLE transactions ADD COLUMN cut_shape INTEGER;" \
    " DELETE FROM meta WHERE key = 'correlated';"

/* to schema 16 */
#define LS_UPGRADE_TO_16 \
    "CREATE TABLE IF NOT EXISTS stmt_stats(\n" \
    "  id INTEGER PRIMARY KEY, statements INTEGER NOT NULL, timed INTEGER NOT NULL," \
    " min_dur_us INTEGER, tx_control INTEGER NOT NULL);\n" \
    "CREATE TABLE IF NOT EXISTS logcover(\n" \
    "  statements INTEGER, from_spans INTEGER, timed INTEGER, shortest_ms REAL, tx_control" \
    " INTEGER, holds INTEGER, holds_at_least INTEGER, verdict INTEGER);\n" \
    "INSERT OR REPLACE INTO meta(key, value) SELECT 'stmt_stats', 'complete' WHERE NOT" \
    " EXISTS (SELECT 1 FROM stmt_rows WHERE verb IS NOT 5); DROP VIEW IF EXISTS tx_code;" \
    " DROP TABLE IF EXISTS tx_code_rows; CREATE TABLE IF NOT EXISTS shapes(\n" \
    "  shape_id INTEGER PRIMARY KEY, shape TEXT UNIQUE);\n" \
    "CREATE TABLE IF NOT EXISTS lock_orders(\n" \
    "  order_id INTEGER PRIMARY KEY, relations TEXT UNIQUE);\n" \
    "CREATE TABLE IF NOT EXISTS tx_code_rows(\n" \
    "  tx_id INTEGER PRIMARY KEY, link TEXT, trace_id TEXT, span_row INTEGER, code_span_row" \
    " INTEGER, code_function TEXT, code_namespace TEXT, code_filepath TEXT, code_lineno" \
    " INTEGER, route TEXT, service TEXT, root_name TEXT, tag_route TEXT, tag_controller" \
    " TEXT, tag_action TEXT, tag_application TEXT, shape_id INTEGER, offset_us INTEGER," \
    " comment_span TEXT, order_id INTEGER, tx_shape_id INTEGER, path_set INTEGER);\n" \
    "CREATE TABLE IF NOT EXISTS tx_shapes(\n" \
    "  tx_shape_id INTEGER PRIMARY KEY, label TEXT UNIQUE, sequence TEXT);\n" \
    "CREATE TABLE IF NOT EXISTS path_identity(\n" \
    "  identity TEXT, reason TEXT, holds INTEGER, named INTEGER, names INTEGER, top_holds" \
    " INTEGER);\n" \
    "CREATE TABLE IF NOT EXISTS path_names(\n" \
    "  name_id INTEGER PRIMARY KEY, name TEXT UNIQUE);\n" \
    "CREATE TABLE IF NOT EXISTS path_sets(\n" \
    "  set_id INTEGER PRIMARY KEY, function_id INTEGER, function_src INTEGER, route_id" \
    " INTEGER, route_src INTEGER, service_id INTEGER, service_src INTEGER, application_id" \
    " INTEGER, application_src INTEGER, statement_id INTEGER, statement_src INTEGER," \
    " shape_id INTEGER, shape_src INTEGER,\n" \
    "  UNIQUE(function_id, function_src, route_id, route_src, service_id, service_src,\n" \
    "  application_id, application_src, statement_id, statement_src, shape_id,\n" \
    "  shape_src));\n" \
    " CREATE INDEX IF NOT EXISTS row_queue_row ON row_queue(row_id, ts); DELETE FROM meta" \
    " WHERE key = 'correlated';"

/* to schema 17 */
#define LS_UPGRADE_TO_17 \
    "CREATE TABLE IF NOT EXISTS path_ranking(\n" \
    "  ord INTEGER PRIMARY KEY, code_path, named_by, blocking_episodes, waits_caused," \
    " total_hold_ms, max_hold_ms, p95_hold_ms, waiter_ms_caused, waits_suffered," \
    " waited_ms_suffered);\n" \
    "CREATE TABLE IF NOT EXISTS path_queueing(\n" \
    "  ord INTEGER PRIMARY KEY, code_path, statements_queued_behind, hidden_wait_ms_caused," \
    " logged_wait_ms_caused, statements_waited, hidden_wait_ms_suffered," \
    " logged_wait_ms_suffered);\n" \
    "CREATE TABLE IF NOT EXISTS path_occupancy(\n" \
    "  ord INTEGER PRIMARY KEY, code_path, named_by, holds, waited, bounded, ranged," \
    " total_ms, max_ms, p95_ms, all_ms, total_lo_ms, total_hi_ms, row_id, row_us," \
    " row_timed);\n" \
    "CREATE TABLE IF NOT EXISTS row_queue_buckets(\n" \
    "  row_id INTEGER, b INTEGER, first_ts INTEGER, last_ts INTEGER, depth INTEGER," \
    " end_depth INTEGER,\n" \
    "  PRIMARY KEY (row_id, b));\n" \
    "CREATE TABLE IF NOT EXISTS stmt_minutes(\n" \
    "  minute INTEGER PRIMARY KEY, statements INTEGER NOT NULL);\n" \
    "DROP VIEW IF EXISTS errors_linked; DROP TABLE IF EXISTS retries; CREATE TABLE IF NOT" \
    " EXISTS wait_links(\n" \
    "  wait_id INTEGER PRIMARY KEY, waiter_stmt INTEGER, waiter_tx INTEGER, holder_pid" \
    " INTEGER, holder_tx INTEGER, blocker_tx INTEGER, root_tx INTEGER, root_pid INTEGER," \
    " root_session INTEGER, root_xid INTEGER, chain_depth INTEGER);\n" \
    "CREATE TABLE IF NOT EXISTS error_links(\n" \
    "  error_id INTEGER PRIMARY KEY, tx_id INTEGER, wait_id INTEGER, cause_tx INTEGER);\n" \
    "CREATE TABLE IF NOT EXISTS retries(\n" \
    "  error_id INTEGER PRIMARY KEY, retry_stmt INTEGER, retry_tx INTEGER, retry_outcome" \
    " TEXT, retry_span INTEGER);\n" \
    "CREATE TABLE IF NOT EXISTS deadlock_links(\n" \
    "  deadlock_id INTEGER, pid INTEGER, session_id INTEGER, tx_id INTEGER,\n" \
    "  PRIMARY KEY(deadlock_id, pid));\n" \
    "INSERT OR REPLACE INTO meta(key, value) SELECT 'stmt_minutes', 'complete' WHERE NOT" \
    " EXISTS (SELECT 1 FROM stmt_rows); DELETE FROM meta WHERE key = 'correlated';"

/* to schema 18 */
#define LS_UPGRADE_TO_18 \
    "CREATE TABLE IF NOT EXISTS tx_keys(\n" \
    "  first_stmt INTEGER PRIMARY KEY, n INTEGER, keys TEXT);\n"

/* to schema 19 */
#define LS_UPGRADE_TO_19 \
    "ALTER TABLE tx_cuts ADD COLUMN first_pos INTEGER;" \
    " ALTER TABLE transactions ADD COLUMN first_pos INTEGER;"

/* 20: the times a span gives a logged statement kept in stmt_span_time
 * alone (start_ts, dur_us), stmt_rows as logged (issue 33): a store
 * correlated before had them in stmt_rows, the log's start in
 * stmt_span_time.log_ts (its duration was NULL); moved across, so the
 * correlation stays current. The table made anew (whatever columns it
 * had), the view statements, which reads it, with the others. */
#define LS_UPGRADE_TO_20 \
    "CREATE TEMP TABLE span_time_19 AS SELECT x.stmt_id, x.span_row, x.log_ts, r.start_ts," \
    " r.dur_us FROM stmt_span_time x LEFT JOIN stmt_rows r ON r.stmt_id = x.stmt_id;" \
    " DROP VIEW IF EXISTS statements; DROP TABLE stmt_span_time;" \
    " CREATE TABLE IF NOT EXISTS stmt_span_time(\n" \
    "  stmt_id INTEGER PRIMARY KEY, span_row INTEGER, log_ts INTEGER, start_ts INTEGER," \
    " dur_us INTEGER);\n" \
    " INSERT INTO stmt_span_time(stmt_id, span_row, log_ts, start_ts, dur_us)" \
    " SELECT * FROM temp.span_time_19; DROP TABLE temp.span_time_19;" \
    " UPDATE stmt_rows SET start_ts = (SELECT x.log_ts FROM stmt_span_time x" \
    "  WHERE x.stmt_id = stmt_rows.stmt_id), dur_us = NULL" \
    "  WHERE stmt_id IN (SELECT stmt_id FROM stmt_span_time);"

#endif
