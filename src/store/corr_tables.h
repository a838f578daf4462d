/*
 * corr_tables.h — the tables correlation writes, each declared once, as
 * store_tables.h declares the tables ingest writes and with its scheme:
 * LS_TABLE_t(F, C, T) lists t's columns in order, (T, name, type), and
 * LS_CREATE_TABLE(t), LS_TABLE_COLUMNS(t), LS_COLUMN_NAMES(t),
 * LS_INSERT_INTO(OP, t) are made from it (store_tables.h). A table with a
 * table constraint (a key of several columns, a UNIQUE) has it in
 * LS_KEY_t, and its DDL is LS_CREATE_TABLE_KEYED(t); a table that also
 * lives in the temp database (correlation's working tables) is made by
 * LS_CREATE_TABLE_IN(DB, t).
 *
 * What each table holds is told where its DDL is named (store_schema.h,
 * findings_schema.h, holdrange_schema.h, logcover_schema.h,
 * summary_schema.h) and in docs/store.md. Changing a column here changes
 * the schema: LS_STORE_SCHEMA_VERSION and a step in store_upgrades go
 * with it; a step that made the table at an older version keeps its own
 * copy of that version's DDL (tests/e2e/check_store_schema.py).
 */
#ifndef LS_CORR_TABLES_H
#define LS_CORR_TABLES_H

#include "store_tables.h"

/* ---- the transactions pass (transactions.c) ---- */

#define LS_TABLE_transactions(F, C, T)  \
    F(T, tx_id, LS_INT " PRIMARY KEY")  \
    C(T, session_id, LS_INT)            \
    C(T, pid, LS_INT)                   \
    C(T, xid, LS_INT)                   \
    C(T, vxid, LS_TEXT)                 \
    C(T, explicit, LS_INT)              \
    C(T, start_ts, LS_INT)              \
    C(T, start_known, LS_TEXT)          \
    C(T, end_ts, LS_INT)                \
    C(T, end_known, LS_TEXT)            \
    C(T, outcome, LS_TEXT)              \
    C(T, first_stmt, LS_INT)            \
    C(T, last_stmt, LS_INT)             \
    C(T, statements, LS_INT)            \
    C(T, sql_ms, LS_REAL)               \
    C(T, idle_ms, LS_REAL)              \
    C(T, max_idle_ms, LS_REAL)          \
    C(T, commit_ms, LS_REAL)            \
    C(T, cut_shape, LS_INT)             \
    C(T, first_pos, LS_INT)

#define LS_TABLE_rule_keyed(F, C, T)      \
    F(T, rule_id, LS_INT " PRIMARY KEY")  \
    C(T, statements, LS_INT)

#define LS_TABLE_row_rules(F, C, T)  \
    F(T, shape, LS_TEXT)             \
    C(T, relation, LS_TEXT)          \
    C(T, col, LS_TEXT)               \
    C(T, arg, LS_INT)                \
    C(T, learned_from, LS_INT)       \
    C(T, target, LS_TEXT)            \
    C(T, target_col, LS_TEXT)

/* hold_evidence, bound_evidence, hold_final_evidence: one text each. */
#define LS_TABLE_hold_evidence(F, C, T)       \
    F(T, evidence_id, LS_INT " PRIMARY KEY")  \
    C(T, text, LS_TEXT " UNIQUE")
#define LS_TABLE_bound_evidence LS_TABLE_hold_evidence
#define LS_TABLE_hold_final_evidence LS_TABLE_hold_evidence

/* hold_rows, and hold_final with the same columns. */
#define LS_TABLE_hold_rows(F, C, T)       \
    F(T, hold_id, LS_INT " PRIMARY KEY")  \
    C(T, row_id, LS_INT)                  \
    C(T, tx_id, LS_INT)                   \
    C(T, session_id, LS_INT)              \
    C(T, pid, LS_INT)                     \
    C(T, start_ts, LS_INT)                \
    C(T, start_lo, LS_INT)                \
    C(T, start_hi, LS_INT)                \
    C(T, start_evidence, LS_INT)          \
    C(T, end_ts, LS_INT)                  \
    C(T, end_lo, LS_INT)                  \
    C(T, end_hi, LS_INT)                  \
    C(T, end_evidence, LS_INT)            \
    C(T, lock_stmt, LS_INT)               \
    C(T, waits, LS_INT)                   \
    C(T, waiter_ms, LS_REAL)              \
    C(T, max_queue, LS_INT)               \
    C(T, contended_ms, LS_REAL)           \
    C(T, sql_ms, LS_REAL)                 \
    C(T, idle_ms, LS_REAL)                \
    C(T, commit_ms, LS_REAL)              \
    C(T, head_state, LS_TEXT)             \
    C(T, observed_state, LS_TEXT)         \
    C(T, observed_samples, LS_INT)
#define LS_TABLE_hold_final LS_TABLE_hold_rows

#define LS_TABLE_hold_bounds(F, C, T)     \
    F(T, hold_id, LS_INT " PRIMARY KEY")  \
    C(T, start_ts, LS_INT)                \
    C(T, start_lo, LS_INT)                \
    C(T, start_hi, LS_INT)                \
    C(T, start_evidence, LS_INT)          \
    C(T, end_ts, LS_INT)                  \
    C(T, end_lo, LS_INT)                  \
    C(T, end_hi, LS_INT)                  \
    C(T, end_evidence, LS_INT)            \
    C(T, lock_stmt, LS_INT)               \
    C(T, waits, LS_INT)                   \
    C(T, waiter_ms, LS_REAL)              \
    C(T, contended_ms, LS_REAL)           \
    C(T, sql_ms, LS_REAL)                 \
    C(T, idle_ms, LS_REAL)                \
    C(T, commit_ms, LS_REAL)              \
    C(T, head_state, LS_TEXT)             \
    C(T, observed_state, LS_TEXT)         \
    C(T, observed_samples, LS_INT)

#define LS_TABLE_hold_queued(F, C, T)     \
    F(T, hold_id, LS_INT " PRIMARY KEY")  \
    C(T, start_ts, LS_INT)                \
    C(T, start_lo, LS_INT)

#define LS_TABLE_hold_range(F, C, T)      \
    F(T, hold_id, LS_INT " PRIMARY KEY")  \
    C(T, lo_us, LS_INT)                   \
    C(T, hi_us, LS_INT)                   \
    C(T, est_us, LS_INT)                  \
    C(T, start_lo, LS_INT)                \
    C(T, start_hi, LS_INT)                \
    C(T, end_lo, LS_INT)                  \
    C(T, end_hi, LS_INT)

#define LS_TABLE_hold_parts(F, C, T)  \
    F(T, hold_id, LS_INT)             \
    C(T, part, LS_TEXT)               \
    C(T, name, LS_TEXT)               \
    C(T, ms, LS_REAL)

/* ---- logical rows and their totals ---- */

#define LS_TABLE_row_keys(F, C, T)       \
    F(T, row_id, LS_INT " PRIMARY KEY")  \
    C(T, relation, LS_TEXT)              \
    C(T, row_key, LS_TEXT)               \
    C(T, evidence, LS_TEXT)              \
    C(T, grouped_by, LS_TEXT)            \
    C(T, ctids, LS_TEXT)                 \
    C(T, waits, LS_INT)                  \
    C(T, total_wait_ms, LS_REAL)         \
    C(T, max_wait_ms, LS_REAL)           \
    C(T, longest_chain, LS_INT)          \
    C(T, first_ts, LS_INT)               \
    C(T, last_ts, LS_INT)

#define LS_TABLE_row_holds(F, C, T)      \
    F(T, row_id, LS_INT " PRIMARY KEY")  \
    C(T, holds, LS_INT)                  \
    C(T, occupancy_holds, LS_INT)        \
    C(T, occupied_ms, LS_REAL)           \
    C(T, mean_hold_ms, LS_REAL)          \
    C(T, capacity_per_s, LS_REAL)

#define LS_TABLE_row_queue_peaks(F, C, T)  \
    F(T, row_id, LS_INT " PRIMARY KEY")    \
    C(T, max_queue, LS_INT)                \
    C(T, max_queue_ts, LS_INT)

#define LS_TABLE_row_hidden(F, C, T)     \
    F(T, row_id, LS_INT " PRIMARY KEY")  \
    C(T, hidden_wait_ms, LS_REAL)        \
    C(T, logged_wait_ms, LS_REAL)        \
    C(T, waited_statements, LS_INT)      \
    C(T, utilisation, LS_REAL)

#define LS_TABLE_row_final(F, C, T)      \
    F(T, row_id, LS_INT " PRIMARY KEY")  \
    C(T, holds, LS_INT)                  \
    C(T, mean_hold_ms, LS_REAL)          \
    C(T, capacity_per_s, LS_REAL)        \
    C(T, max_queue, LS_INT)              \
    C(T, max_queue_ts, LS_INT)           \
    C(T, occupancy_holds, LS_INT)        \
    C(T, occupied_ms, LS_REAL)           \
    C(T, hidden_wait_ms, LS_REAL)        \
    C(T, logged_wait_ms, LS_REAL)        \
    C(T, waited_statements, LS_INT)      \
    C(T, utilisation, LS_REAL)

#define LS_TABLE_row_waits(F, C, T)     \
    F(T, rw_id, LS_INT " PRIMARY KEY")  \
    C(T, row_id, LS_INT)                \
    C(T, hold_id, LS_INT)               \
    C(T, tx_id, LS_INT)                 \
    C(T, session_id, LS_INT)            \
    C(T, pid, LS_INT)                   \
    C(T, stmt_id, LS_INT)               \
    C(T, start_ts, LS_INT)              \
    C(T, end_ts, LS_INT)                \
    C(T, wait_ms, LS_REAL)              \
    C(T, behind_hold, LS_INT)           \
    C(T, behind_tx, LS_INT)             \
    C(T, kind, LS_TEXT)                 \
    C(T, logged_wait_id, LS_INT)        \
    C(T, inferred_ms, LS_REAL)          \
    C(T, logged_ms, LS_REAL)

#define LS_TABLE_row_queue(F, C, T)  \
    F(T, row_id, LS_INT)             \
    C(T, ts, LS_INT)                 \
    C(T, depth, LS_INT)

#define LS_TABLE_row_cover(F, C, T)  \
    F(T, rw_id, LS_INT)              \
    C(T, tx_id, LS_INT)              \
    C(T, us, LS_INT)

/* ---- waits: episodes, their rows, chains and links ---- */

/* holders and queue: no type (store_tables.h, lock_event_rows). */
#define LS_TABLE_lock_wait_rows(F, C, T)             \
    F(T, wait_id, LS_INT " PRIMARY KEY")             \
    C(T, session_id, LS_INT " REFERENCES sessions")  \
    C(T, pid, LS_INT)                                \
    C(T, mode, LS_TEXT)                              \
    C(T, target_kind, LS_TEXT)                       \
    C(T, target, LS_TEXT)                            \
    C(T, target_xid, LS_INT)                         \
    C(T, rel_oid, LS_INT)                            \
    C(T, db_oid, LS_INT)                             \
    C(T, relation, LS_TEXT)                          \
    C(T, ctid, LS_TEXT)                              \
    C(T, start_ts, LS_INT)                           \
    C(T, logged_ts, LS_INT)                          \
    C(T, end_ts, LS_INT)                             \
    C(T, waited_ms, LS_REAL)                         \
    C(T, outcome, LS_TEXT)                           \
    C(T, statement, LS_TEXT)                         \
    C(T, holders, LS_ANY)                            \
    C(T, queue, LS_ANY)                              \
    C(T, blocker_pid, LS_INT)                        \
    C(T, blocker_session, LS_INT)                    \
    C(T, blocker_xid, LS_INT)                        \
    C(T, root_pid, LS_INT)                           \
    C(T, root_session, LS_INT)                       \
    C(T, root_xid, LS_INT)                           \
    C(T, chain_depth, LS_INT)                        \
    C(T, first_event, LS_INT)                        \
    C(T, file_id, LS_INT)                            \
    C(T, line, LS_INT)                               \
    C(T, row_id, LS_INT)                             \
    C(T, waiter_stmt, LS_INT)                        \
    C(T, waiter_tx, LS_INT)                          \
    C(T, holder_pid, LS_INT)                         \
    C(T, holder_tx, LS_INT)                          \
    C(T, root_tx, LS_INT)                            \
    C(T, end_file, LS_INT)                           \
    C(T, end_line, LS_INT)                           \
    C(T, row_evidence, LS_TEXT)                      \
    C(T, blocker_tx, LS_INT)

#define LS_TABLE_wait_rows(F, C, T)       \
    F(T, wait_id, LS_INT " PRIMARY KEY")  \
    C(T, row_id, LS_INT)                  \
    C(T, waiter_stmt, LS_INT)             \
    C(T, row_evidence, LS_TEXT)

#define LS_TABLE_event_waits(F, C, T)      \
    F(T, event_id, LS_INT " PRIMARY KEY")  \
    C(T, wait_id, LS_INT)

#define LS_TABLE_wait_chains(F, C, T)     \
    F(T, wait_id, LS_INT " PRIMARY KEY")  \
    C(T, blocker_session, LS_INT)         \
    C(T, blocker_xid, LS_INT)             \
    C(T, root_pid, LS_INT)                \
    C(T, root_session, LS_INT)            \
    C(T, root_xid, LS_INT)                \
    C(T, chain_depth, LS_INT)

#define LS_TABLE_wait_links(F, C, T)      \
    F(T, wait_id, LS_INT " PRIMARY KEY")  \
    C(T, waiter_stmt, LS_INT)             \
    C(T, waiter_tx, LS_INT)               \
    C(T, holder_pid, LS_INT)              \
    C(T, holder_tx, LS_INT)               \
    C(T, blocker_tx, LS_INT)              \
    C(T, root_tx, LS_INT)                 \
    C(T, root_pid, LS_INT)                \
    C(T, root_session, LS_INT)            \
    C(T, root_xid, LS_INT)                \
    C(T, chain_depth, LS_INT)

#define LS_TABLE_error_links(F, C, T)      \
    F(T, error_id, LS_INT " PRIMARY KEY")  \
    C(T, tx_id, LS_INT)                    \
    C(T, wait_id, LS_INT)                  \
    C(T, cause_tx, LS_INT)

#define LS_TABLE_retries(F, C, T)          \
    F(T, error_id, LS_INT " PRIMARY KEY")  \
    C(T, retry_stmt, LS_INT)               \
    C(T, retry_tx, LS_INT)                 \
    C(T, retry_outcome, LS_TEXT)           \
    C(T, retry_span, LS_INT)

#define LS_TABLE_deadlock_links(F, C, T)  \
    F(T, deadlock_id, LS_INT)             \
    C(T, pid, LS_INT)                     \
    C(T, session_id, LS_INT)              \
    C(T, tx_id, LS_INT)
#define LS_KEY_deadlock_links "PRIMARY KEY(deadlock_id, pid)"

#define LS_TABLE_relations(F, C, T)  \
    F(T, db_oid, LS_INT)             \
    C(T, rel_oid, LS_INT)            \
    C(T, name, LS_TEXT)              \
    C(T, evidence, LS_TEXT)
#define LS_KEY_relations "PRIMARY KEY(db_oid, rel_oid)"

/* ---- spans and statements ---- */

#define LS_TABLE_span_placement(F, C, T)   \
    F(T, span_row, LS_INT " PRIMARY KEY")  \
    C(T, pid, LS_INT)                      \
    C(T, how, LS_TEXT)                     \
    C(T, why, LS_TEXT)

#define LS_TABLE_span_clock(F, C, T)  \
    F(T, offset_us, LS_INT)           \
    C(T, offset_from, LS_TEXT)        \
    C(T, votes, LS_INT)

#define LS_TABLE_stmt_span_time(F, C, T)  \
    F(T, stmt_id, LS_INT " PRIMARY KEY")  \
    C(T, span_row, LS_INT)                \
    C(T, log_ts, LS_INT)                  \
    C(T, start_ts, LS_INT)                \
    C(T, dur_us, LS_INT)

#define LS_TABLE_stmt_tags(F, C, T)  \
    F(T, stmt_id, LS_INT)            \
    C(T, key, LS_TEXT)               \
    C(T, value, LS_TEXT)

#define LS_TABLE_stmt_stats(F, C, T)          \
    F(T, id, LS_INT " PRIMARY KEY")           \
    C(T, statements, LS_INT " NOT NULL")      \
    C(T, timed, LS_INT " NOT NULL")           \
    C(T, min_dur_us, LS_INT)                  \
    C(T, tx_control, LS_INT " NOT NULL")

#define LS_TABLE_stmt_minutes(F, C, T)   \
    F(T, minute, LS_INT " PRIMARY KEY")  \
    C(T, statements, LS_INT " NOT NULL")

#define LS_TABLE_logcover(F, C, T)  \
    F(T, statements, LS_INT)        \
    C(T, from_spans, LS_INT)        \
    C(T, timed, LS_INT)             \
    C(T, shortest_ms, LS_REAL)      \
    C(T, tx_control, LS_INT)        \
    C(T, holds, LS_INT)             \
    C(T, holds_at_least, LS_INT)    \
    C(T, verdict, LS_INT)

/* ---- code paths (traces.c, paths.c) ---- */

#define LS_TABLE_shapes(F, C, T)           \
    F(T, shape_id, LS_INT " PRIMARY KEY")  \
    C(T, shape, LS_TEXT " UNIQUE")

#define LS_TABLE_lock_orders(F, C, T)      \
    F(T, order_id, LS_INT " PRIMARY KEY")  \
    C(T, relations, LS_TEXT " UNIQUE")

#define LS_TABLE_tx_shapes(F, C, T)           \
    F(T, tx_shape_id, LS_INT " PRIMARY KEY")  \
    C(T, label, LS_TEXT " UNIQUE")            \
    C(T, sequence, LS_TEXT)

#define LS_TABLE_path_identity(F, C, T)  \
    F(T, identity, LS_TEXT)              \
    C(T, reason, LS_TEXT)                \
    C(T, holds, LS_INT)                  \
    C(T, named, LS_INT)                  \
    C(T, names, LS_INT)                  \
    C(T, top_holds, LS_INT)

#define LS_TABLE_path_names(F, C, T)      \
    F(T, name_id, LS_INT " PRIMARY KEY")  \
    C(T, name, LS_TEXT " UNIQUE")

#define LS_TABLE_path_sets(F, C, T)      \
    F(T, set_id, LS_INT " PRIMARY KEY")  \
    C(T, function_id, LS_INT)            \
    C(T, function_src, LS_INT)           \
    C(T, route_id, LS_INT)               \
    C(T, route_src, LS_INT)              \
    C(T, service_id, LS_INT)             \
    C(T, service_src, LS_INT)            \
    C(T, application_id, LS_INT)         \
    C(T, application_src, LS_INT)        \
    C(T, statement_id, LS_INT)           \
    C(T, statement_src, LS_INT)          \
    C(T, shape_id, LS_INT)               \
    C(T, shape_src, LS_INT)
#define LS_KEY_path_sets                                                                   \
    "UNIQUE(function_id, function_src, route_id, route_src, service_id, service_src,\n"    \
    "  application_id, application_src, statement_id, statement_src, shape_id,\n"        \
    "  shape_src)"

#define LS_TABLE_tx_code_rows(F, C, T)  \
    F(T, tx_id, LS_INT " PRIMARY KEY")  \
    C(T, link, LS_TEXT)                 \
    C(T, trace_id, LS_TEXT)             \
    C(T, span_row, LS_INT)              \
    C(T, code_span_row, LS_INT)         \
    C(T, code_function, LS_TEXT)        \
    C(T, code_namespace, LS_TEXT)       \
    C(T, code_filepath, LS_TEXT)        \
    C(T, code_lineno, LS_INT)           \
    C(T, route, LS_TEXT)                \
    C(T, service, LS_TEXT)              \
    C(T, root_name, LS_TEXT)            \
    C(T, tag_route, LS_TEXT)            \
    C(T, tag_controller, LS_TEXT)       \
    C(T, tag_action, LS_TEXT)           \
    C(T, tag_application, LS_TEXT)      \
    C(T, shape_id, LS_INT)              \
    C(T, offset_us, LS_INT)             \
    C(T, comment_span, LS_TEXT)         \
    C(T, order_id, LS_INT)              \
    C(T, tx_shape_id, LS_INT)           \
    C(T, path_set, LS_INT)

/* ---- findings and the report's summaries ---- */

#define LS_TABLE_findings(F, C, T)           \
    F(T, finding_id, LS_INT " PRIMARY KEY")  \
    C(T, grouping, LS_TEXT)                  \
    C(T, seq, LS_INT)                        \
    C(T, rule, LS_TEXT)                      \
    C(T, weight_ms, LS_REAL)                 \
    C(T, title, LS_TEXT)                     \
    C(T, evidence, LS_TEXT)                  \
    C(T, fix, LS_TEXT)

#define LS_TABLE_finding_fields(F, C, T)  \
    F(T, finding_id, LS_INT)              \
    C(T, pos, LS_INT)                     \
    C(T, name, LS_TEXT)                   \
    C(T, kind, LS_TEXT)                   \
    C(T, value, LS_ANY)
#define LS_KEY_finding_fields "PRIMARY KEY (finding_id, pos)"

#define LS_TABLE_path_ranking(F, C, T)  \
    F(T, ord, LS_INT " PRIMARY KEY")    \
    C(T, code_path, LS_ANY)             \
    C(T, named_by, LS_ANY)              \
    C(T, blocking_episodes, LS_ANY)     \
    C(T, waits_caused, LS_ANY)          \
    C(T, total_hold_ms, LS_ANY)         \
    C(T, max_hold_ms, LS_ANY)           \
    C(T, p95_hold_ms, LS_ANY)           \
    C(T, waiter_ms_caused, LS_ANY)      \
    C(T, waits_suffered, LS_ANY)        \
    C(T, waited_ms_suffered, LS_ANY)

#define LS_TABLE_path_queueing(F, C, T)     \
    F(T, ord, LS_INT " PRIMARY KEY")        \
    C(T, code_path, LS_ANY)                 \
    C(T, statements_queued_behind, LS_ANY)  \
    C(T, hidden_wait_ms_caused, LS_ANY)     \
    C(T, logged_wait_ms_caused, LS_ANY)     \
    C(T, statements_waited, LS_ANY)         \
    C(T, hidden_wait_ms_suffered, LS_ANY)   \
    C(T, logged_wait_ms_suffered, LS_ANY)

#define LS_TABLE_path_occupancy(F, C, T)  \
    F(T, ord, LS_INT " PRIMARY KEY")      \
    C(T, code_path, LS_ANY)               \
    C(T, named_by, LS_ANY)                \
    C(T, holds, LS_ANY)                   \
    C(T, waited, LS_ANY)                  \
    C(T, bounded, LS_ANY)                 \
    C(T, ranged, LS_ANY)                  \
    C(T, total_ms, LS_ANY)                \
    C(T, max_ms, LS_ANY)                  \
    C(T, p95_ms, LS_ANY)                  \
    C(T, all_ms, LS_ANY)                  \
    C(T, total_lo_ms, LS_ANY)             \
    C(T, total_hi_ms, LS_ANY)             \
    C(T, row_id, LS_ANY)                  \
    C(T, row_us, LS_ANY)                  \
    C(T, row_timed, LS_ANY)

#define LS_TABLE_row_queue_buckets(F, C, T)  \
    F(T, row_id, LS_INT)                     \
    C(T, b, LS_INT)                          \
    C(T, first_ts, LS_INT)                   \
    C(T, last_ts, LS_INT)                    \
    C(T, depth, LS_INT)                      \
    C(T, end_depth, LS_INT)
#define LS_KEY_row_queue_buckets "PRIMARY KEY (row_id, b)"

#endif
