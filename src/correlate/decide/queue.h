/*
 * queue.h — did a statement queue for a row behind the holds before it?
 * The hidden-waits pass (hidden.c) keeps each hot row's recent holds and
 * asks this of every statement that locked the row.
 */
#ifndef LS_DECIDE_QUEUE_H
#define LS_DECIDE_QUEUE_H

#include <stdint.h>

/* A hold of a row as the queue sees it: when the row was got and freed. */
typedef struct ls_queued_hold {
    int64_t start_ts, end_ts;
} ls_queued_hold;

typedef struct ls_queue_result {
    int64_t start_ts, end_ts; /* the wait */
    int behind;               /* index of the hold holding the row when it started */
} ls_queue_result;

/*
 * Did a statement that started at stmt_start and got the row at `acquired`
 * (its end when has_end) queue behind the earlier holds `prev` (any
 * order)? It waited if one of them held the row when it started (got it
 * at or before stmt_start, freed it after; of several, the latest got,
 * the later in prev on a tie), until the last of them ended (bounded by
 * its acquisition when known and earlier). A hold freed exactly when the
 * statement started did not hold it up.
 *
 * Stamps order two moments only to their resolution, tie_us (a
 * millisecond with %m, a second with %t): a statement whose end is logged
 * (has_end) that started less than tie_us before another transaction got
 * the row, which it then held until before the statement got it, queued
 * behind that hold too when no hold had the row at its start (the order
 * of the two starts is within one stamp's tick, and a statement that had
 * reached the row first would have had it first): from when that hold
 * got the row (samples/blind-otel: an INSERT whose trigger bumps
 * merchant_totals, its start derived at .210800 from its 45.2 ms
 * duration, behind a hold got at .211, the end stamp of a 0.194 ms
 * INSERT, and committed at .255). The earliest such hold, the first in
 * prev on a tie. tie_us 0: none.
 *
 * Returns 1 with out filled, 0 if the row was free (or the wait would be
 * empty).
 */
int ls_queue_wait(const ls_queued_hold *prev, int n, int64_t stmt_start, int64_t acquired,
                  int has_end, int64_t tie_us, ls_queue_result *out);

/*
 * Stamps to the second and no durations (log_statement = 'all'): did a
 * statement logged at stmt_pos (a log position: file, then line), stamped
 * stmt_start, queue behind a hold of the row whose end is stamped in that
 * same second (ls_queue_wait() sees none: an end at the statement's start
 * did not hold it up)? Log positions order what stamps cannot: it did if
 * the hold's locking statement was logged before it (lock_pos[i] <
 * stmt_pos) and the hold's end after it (stmt_pos < end_pos[i]; 0: not
 * known), the hold got no later than that second (start_ts <=
 * stmt_start) and ended in it (end_ts == stmt_start); of several, the
 * one logged last. The wait lies inside that second, and, no wait of the
 * statement being logged (the caller's to know), was shorter than
 * max_unlogged_us (ls_hidden_unlogged_start(), decide/hidden.h): its
 * length is not known, anywhere in (0, min(1 s, max_unlogged_us)); it is
 * taken as half of that, from the second's start. resolution_us below a
 * second, or max_unlogged_us 0 (no logged wait to bound it): 0. Returns
 * 1 with out filled, 0 if none.
 */
int ls_queue_same_second(const ls_queued_hold *prev, const int64_t *lock_pos,
                         const int64_t *end_pos, int n, int64_t stmt_start, int64_t stmt_pos,
                         int64_t resolution_us, int64_t max_unlogged_us, ls_queue_result *out);

/* The wait of a statement in its own second behind prev[holder] (of
 * ls_queue_same_second() and ls_failed_wait_same_second(), failwait.h):
 * half of min(resolution_us, max_unlogged_us) from the second's start.
 * 1 with out filled, 0 when that is no time. */
int ls_queue_same_second_wait(int64_t stmt_start, int holder, int64_t resolution_us,
                              int64_t max_unlogged_us, ls_queue_result *out);

/*
 * Where a hold starts whose locking statement's end the log does not give
 * (log_statement = 'all'): `acquired` is the statement's start, or the
 * `acquired` line of its logged wait, which is the lock it waited for and
 * not always the row: every waiter of a transaction lock wakes at that
 * transaction's end ("acquired ShareLock on transaction N", all stamped
 * alike) and they race for the row, the losers waiting again below
 * deadlock_timeout, unlogged (samples/app-seconds: three acquired at
 * .655, committed at .667, .671 and 34.266). Holds of a row do not
 * overlap unless both are shared, and are released in the order of their
 * ends, so the hold starts no earlier than `acquired` and than the end of
 * every hold of prev (any order) that ended no later than it (end_ts; an
 * equal end counts: the two ends share a stamp, the hold starts at it),
 * but a shared one's (prev_shared[i], NULL: none) when it is shared too
 * (`shared`: held in a shared mode, its locking statement's FOR SHARE or
 * FOR KEY SHARE, ls_sql_shared_lock()). A hold of prev that ends after it
 * was not before it. Returns the start.
 */
int64_t ls_queue_hold_start(const ls_queued_hold *prev, const unsigned char *prev_shared, int n,
                            int64_t acquired, int64_t end_ts, int shared);

#endif
