/*
 * summary_sql.h — reads of the report summary pass (summary.c) whose
 * cost hangs on their plan, here so that tests/unit/test_pass_table.c
 * checks the plan of the very text the pass runs.
 */
#ifndef LS_CORRELATE_SUMMARY_SQL_H
#define LS_CORRELATE_SUMMARY_SQL_H

/* The occupancy ranking's holds on a store without hold_range rows
 * (whole-microsecond times, the usual case): hold_final's own columns in
 * hold order, nothing joined or computed per hold (summary.c,
 * occ_scan_exact, does it in C; each transaction's path set comes from
 * OCC_TX_SETS_SQL walked alongside). */
#define OCC_HOLDS_EXACT_SQL                                                                        \
    "SELECT h.tx_id, h.waits, h.row_id, h.start_ts, h.end_ts, h.start_evidence,"                   \
    " h.end_evidence FROM hold_final h WHERE h.end_ts IS NOT NULL ORDER BY h.hold_id"

/* The transactions' path sets from :tx on, in tx_id order (tx_code_rows'
 * key): read alongside the holds, whose tx_ids follow their hold_ids
 * (the transactions pass numbers both in one order), and sought again
 * where a hold's tx_id goes back or far ahead (summary.c, OCC_TX_WALK_MAX). */
#define OCC_TX_SETS_SQL "SELECT tx_id, path_set FROM tx_code_rows WHERE tx_id >= :tx ORDER BY tx_id"

/* The waits suffered (ranking_fmt's suffered, summary.c) for the stored
 * ranking: the two columns from their tables, not the lock_waits view,
 * whose LEFT JOINs of wait_chains and wait_rows an aggregate keeps (2.51
 * -> 1.99 M SQLite VM steps at 1 GiB); a window's ranking reads its view
 * (scope.c), which keeps the window's waits. */
#define SUFFERED_WAITS_MAIN                                                                        \
    "(SELECT x.waited_ms AS waited_ms, l.waiter_tx AS waiter_tx FROM lock_wait_rows x"             \
    " LEFT JOIN wait_links l ON l.wait_id = x.wait_id)"

#endif
