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

#include "corr_tables.h" /* the columns, declared once */

/* The blocking ranking: holds others waited for, per code path. */
#define LS_PATH_RANKING_COLS LS_TABLE_DEFN(path_ranking)
/* Queueing for hot rows, caused and suffered, per code path. */
#define LS_PATH_QUEUEING_COLS LS_TABLE_DEFN(path_queueing)
/* Occupancy per code path: its holds, those others waited for, those the
 * log bounds, those with a whole-second range; the sum, longest and p95
 * (ms), the sum over every path (all_ms, the same in each row: the
 * shares' whole) and the range of the path's sum; the row it held
 * longest (row_id NULL: none), its time there (µs) and whether any hold
 * there had both times. */
#define LS_PATH_OCCUPANCY_COLS LS_TABLE_DEFN(path_occupancy)
/* A row's queue depth over its whole time (row_queue) in buckets of
 * equal time (reports/queue.c): bucket b of the row, its first and last
 * change's times, its deepest queue and the depth it ended at. */
#define LS_ROW_QUEUE_BUCKETS_COLS LS_TABLE_DEFN_KEYED(row_queue_buckets)
#define LS_SUMMARY_DDL \
    LS_CREATE_TABLE(path_ranking) \
    LS_CREATE_TABLE(path_queueing) \
    LS_CREATE_TABLE(path_occupancy) \
    LS_CREATE_TABLE_KEYED(row_queue_buckets)

/* The statement rows begun in each minute (µs since the epoch / 60 s). */
#define LS_STMT_MINUTES_DDL LS_CREATE_TABLE(stmt_minutes)

#endif
