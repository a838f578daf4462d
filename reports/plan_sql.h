/*
 * plan_sql.h — reads of the report model (model.c) whose answers or cost
 * hang on their plan, here so that tests/unit/test_pass_table.c checks
 * the plan of the very text the report runs.
 */
#ifndef LS_PLAN_SQL_H
#define LS_PLAN_SQL_H

#include "model_int.h"

/* The kept hot rows' waits read once for three figures (after "WITH
 * hot_top AS (...)", the rows kept): walked in row_id order (row_keys'
 * key: no sorter for the GROUP BY), each row's waits in the order of its
 * index lock_waits_row, wait_rows(row_id), whose entries follow their
 * rowid, the wait_id: the root blockers' pids in the order of their first
 * wait, as the subquery per row had them. */
#define HOT_ROW_WAITS                                                                      \
    ", hot_waits AS MATERIALIZED (SELECT k.row_id AS row_id, min(w.rel_oid) AS rel_oid,"  \
    " count(DISTINCT w.pid) AS sessions, group_concat(DISTINCT w.root_pid) AS roots"     \
    " FROM row_keys k CROSS JOIN lock_waits w ON w.row_id = k.row_id"                    \
    " WHERE k.row_id IN (SELECT row_id FROM hot_top) GROUP BY k.row_id)"

/* A row's root blockers, one per (pid, transaction), in the order of
 * their first wait: its waits read in wait_id order (lock_waits_row, as
 * above), each pair kept where it first occurs (DISTINCT, no sorter),
 * the read stopping at the 100th. */
#define ROW_ROOTS_SQL                                                                      \
    "SELECT DISTINCT root_pid, root_tx FROM lock_waits WHERE row_id = :row_id"            \
    " AND root_pid IS NOT NULL LIMIT 100"

/* The first :limit waits in the filter, in time order: wait_id numbers the
 * waits by (start_ts, pid, build order) (src/correlate/correlate.c,
 * store_episodes_sql), so (start_ts, wait_id) order is wait_id order,
 * lock_wait_rows' own: the first ones are read, the rest not. */
#define FIRST_WAITS_SQL                                                                    \
    "SELECT w.wait_id FROM lock_waits w WHERE" WAIT_FILTER("w") "ORDER BY w.wait_id LIMIT :limit"

#endif
