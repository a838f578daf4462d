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

/* What sets a root blocker apart beside its pid, session and transaction:
 * with no transaction known, the xid its waiters named, a process's
 * different xids being different transactions (ls_root_apart_xid(),
 * src/correlate/decide/link.h; samples/blind-pl's pid 9132: three
 * transactions 20 s apart were one root listing the rows of all three).
 * NULL where the transaction is known or no xid was named. */
#define ROOT_APART_XID(w) " (CASE WHEN " w ".root_tx IS NULL THEN " w ".root_xid END)"

/* The waits of the top roots (root blockers' root_rows, after "WITH
 * top_roots AS (...)"): those whose root transaction is a top root's, or,
 * without one, whose root pid is a top root's: a superset of the pairs
 * (root_pid, root_tx) the roots read back, and the few waits of the top
 * roots alone sorted and joined to their rows, not every wait of their
 * pids (a pid is the root of many transactions: 32 k of the 51 k waits
 * at 1 GiB for 10 roots; the query 6.71 -> 5.45 M SQLite VM steps). */
#define ROOT_ROWS_OF_TOP(w)                                                                \
    " CASE WHEN " w ".root_tx IS NULL THEN " w ".root_pid IN (SELECT root_pid FROM top_roots)" \
    " ELSE " w ".root_tx IN (SELECT root_tx FROM top_roots) END"

/* How many roots the root blockers rank: the distinct (pid, session,
 * transaction) of the waits, as top_roots groups them (NULLs alike in
 * both), by a DISTINCT's index rather than a GROUP BY's sort of every
 * wait (2.38 -> 1.62 M SQLite VM steps at 1 GiB). */
#define ROOTS_COUNT_SQL                                                                    \
    "SELECT count(*) FROM (SELECT DISTINCT w.root_pid, w.root_session, w.root_tx,"         \
    ROOT_APART_XID("w") " FROM lock_waits w WHERE w.root_pid IS NOT NULL AND"              \
    WAIT_FILTER("w") ")"

#endif
