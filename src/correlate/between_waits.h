/*
 * between_waits.h — a test of the transactions pass (transactions.c,
 * LINK_NEXT_SQL), here so that a unit test can check its query plan
 * (test_pass_table.c).
 *
 * BETWEEN_WAITS: SQL, true when the queue head n's pid waited for n's row
 * in n's transaction before f's start, in another wait than n.
 */
#ifndef LS_BETWEEN_WAITS_H
#define LS_BETWEEN_WAITS_H

/* Found by the transaction's own waits (wait_links_waiter_tx: a few),
 * not the pid's: the unary + keeps the planner off lock_waits_pid, whose
 * (pid, start_ts < ?) walked every earlier wait of the pid, a walk that
 * grows with the log (issue 38, final38: 9 VM steps a wait at 100 MiB,
 * 32 at 1 GiB). */
#define BETWEEN_WAITS                                                                              \
    "EXISTS (SELECT 1 FROM lock_waits p WHERE +p.pid = n.pid"                                      \
    " AND p.waiter_tx = n.waiter_tx AND p.row_id = n.row_id"                                       \
    " AND +p.start_ts <= f.start_ts AND p.wait_id <> n.wait_id)"

#endif
