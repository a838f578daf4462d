/*
 * failwait.h — the wait of a locking statement that ended in an error.
 * A statement that failed on a hot row (40001 after the holder committed,
 * 55P03 lock_timeout, 40P01 deadlock victim) acquired nothing on it, so it
 * has no hold and the queue of holds (queue.h) never meets it; but it
 * queued for the row before it failed. The hidden-waits pass (hidden.c)
 * asks this of every such statement, with the holds of the row by other
 * transactions that overlap it.
 */
#ifndef LS_DECIDE_FAILWAIT_H
#define LS_DECIDE_FAILWAIT_H

#include <stdint.h>

#include "queue.h"

/*
 * Did a statement that started at stmt_start and failed at error_ts wait
 * for the row behind one of the holds `held` (other transactions' holds
 * of the row, any order)? It waited if one of them held the row when it
 * started (got it at or before stmt_start, freed it after; of several,
 * the latest got, the later in held on a tie, as ls_queue_wait()), and
 * the wait ran until the error: the error is what ended it, whatever the
 * class (40001 is raised when the holder commits, 55P03 when lock_timeout
 * runs out, 40P01 when the deadlock is found), so error_ts is its end
 * even where the holder's release was logged a little earlier or later.
 * A hold freed exactly when the statement started did not hold it up;
 * an error at the statement's own start (equal times, a whole-second log)
 * leaves no wait to tell. Returns 1 with out filled (out->behind: the
 * index of the holder in held), 0 if it did not wait.
 */
int ls_failed_wait(const ls_queued_hold *held, int n, int64_t stmt_start, int64_t error_ts,
                   ls_queue_result *out);

/*
 * Where the log has a wait of the failed statement too (the logged part
 * starts at logged_start), where its whole wait starts: at the statement's
 * start where that certainly came before the logged wait began, by more
 * than the statement's own work before it asks for the lock
 * (stmt_start + resolution_us + LS_FAILED_QUEUE_MIN_US <= logged_start:
 * a start logged to the second may be anywhere in its second, one logged
 * to the millisecond anywhere in its millisecond), else at the logged
 * start, the better estimate (a whole-second floor is no evidence of
 * earlier queueing).
 */
int64_t ls_failed_wait_start(int64_t stmt_start, int64_t resolution_us, int64_t logged_start);

#endif
