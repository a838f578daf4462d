/*
 * hot_sql.h — two reads of a hot row's waits whose answers hang on their plan
 * (model.c), here so that tests/unit/test_pass_table.c checks the plan
 * of the very text the report runs.
 */
#ifndef LS_HOT_SQL_H
#define LS_HOT_SQL_H

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

#endif
