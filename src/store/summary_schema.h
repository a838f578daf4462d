/*
 * summary_schema.h — the small tables the report reads as they are,
 * declared once: the store makes them (store_schema.h), the upgrade to
 * schema 17 adds them, and scope.c makes temp tables of the same columns
 * for a report window or another --group-by (src/correlate/summary.c
 * fills both).
 *
 * - path_ranking, path_queueing, path_occupancy: the code-path rankings
 *   (reports/codepaths.c), every path, in the report's order (ord), for
 *   the default grouping over the whole log: correlation's "report
 *   summary" pass (summary.c). The report takes the first --top rows.
 *   The value columns carry no type, so each value is kept as the query
 *   made it (an integer stays one, a sum of doubles keeps every bit).
 * - row_queue_buckets: each row's queue depth in at most 400 buckets of
 *   equal time, which a hot row's timeline draws when its lists are cut
 *   (reports/queue.c), from the same pass.
 * - stmt_minutes, ingest's: the statement rows begun in each minute
 *   (start_ts / 60 s), counted as the store writer writes each row once
 *   (stmtstats.c), added to by every ingest in the transaction that
 *   writes the rows. meta 'stmt_minutes' = 'complete' says it counts
 *   every statement row the store holds (a new store, or one upgraded
 *   without statements); --retention drops the mark, and the report
 *   (reports/context.c) then counts the rows, as it does for a window or
 *   a --database filter, or when the spans pass made or moved statements.
 */
#ifndef LS_SUMMARY_SCHEMA_H
#define LS_SUMMARY_SCHEMA_H

/* The blocking ranking: holds others waited for, per code path. */
#define LS_PATH_RANKING_COLS \
    "(ord INTEGER PRIMARY KEY, code_path, named_by, blocking_episodes, waits_caused,\n" \
    "  total_hold_ms, max_hold_ms, p95_hold_ms, waiter_ms_caused, waits_suffered,\n" \
    "  waited_ms_suffered)"
/* Queueing for hot rows, caused and suffered, per code path. */
#define LS_PATH_QUEUEING_COLS \
    "(ord INTEGER PRIMARY KEY, code_path, statements_queued_behind, hidden_wait_ms_caused,\n" \
    "  logged_wait_ms_caused, statements_waited, hidden_wait_ms_suffered,\n" \
    "  logged_wait_ms_suffered)"
/* Occupancy per code path: its holds, those others waited for, those the
 * log bounds, those with a whole-second range; the sum, longest and p95
 * (ms), the sum over every path (all_ms, the same in each row: the
 * shares' whole) and the range of the path's sum; the row it held
 * longest (row_id NULL: none), its time there (µs) and whether any hold
 * there had both times. */
#define LS_PATH_OCCUPANCY_COLS \
    "(ord INTEGER PRIMARY KEY, code_path, named_by, holds, waited, bounded, ranged,\n" \
    "  total_ms, max_ms, p95_ms, all_ms, total_lo_ms, total_hi_ms, row_id, row_us, row_timed)"
/* A row's queue depth over its whole time (row_queue) in buckets of
 * equal time (reports/queue.c): bucket b of the row, its first and last
 * change's times, its deepest queue and the depth it ended at. */
#define LS_ROW_QUEUE_BUCKETS_COLS \
    "(row_id INTEGER, b INTEGER, first_ts INTEGER, last_ts INTEGER, depth INTEGER,\n" \
    "  end_depth INTEGER, PRIMARY KEY (row_id, b))"
#define LS_SUMMARY_DDL \
    "CREATE TABLE IF NOT EXISTS path_ranking" LS_PATH_RANKING_COLS ";\n" \
    "CREATE TABLE IF NOT EXISTS path_queueing" LS_PATH_QUEUEING_COLS ";\n" \
    "CREATE TABLE IF NOT EXISTS path_occupancy" LS_PATH_OCCUPANCY_COLS ";\n" \
    "CREATE TABLE IF NOT EXISTS row_queue_buckets" LS_ROW_QUEUE_BUCKETS_COLS ";\n"

/* The statement rows begun in each minute (µs since the epoch / 60 s). */
#define LS_STMT_MINUTES_DDL \
    "CREATE TABLE IF NOT EXISTS stmt_minutes(\n" \
    "  minute INTEGER PRIMARY KEY, statements INTEGER NOT NULL);\n"

#endif
