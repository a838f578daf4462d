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
 * leaves no wait to tell by time (ls_failed_wait_same_second() reads the
 * log's positions for a 40001). Returns 1 with out filled (out->behind: the
 * index of the holder in held), 0 if it did not wait.
 */
int ls_failed_wait(const ls_queued_hold *held, int n, int64_t stmt_start, int64_t error_ts,
                   ls_queue_result *out);

/*
 * Stamps to the second and no durations (log_statement = 'all'): a
 * statement logged at stmt_pos, stamped stmt_start, that failed with a
 * serialization failure (40001) logged at error_pos in that same second
 * (error_ts == stmt_start: ls_failed_wait() sees no time pass). Log
 * positions (file, then line) order what stamps cannot, as for
 * ls_queue_same_second() (queue.h): it queued behind a hold of the row
 * whose locking statement was logged before it (lock_pos[i] < stmt_pos)
 * and whose transaction's COMMIT was logged after it and before the error
 * (stmt_pos < end_pos[i] < error_pos; 0: not known), got no later than
 * that second (start_ts <= stmt_start) and ended in it (end_ts ==
 * stmt_start). A 40001 after a wait is raised when the holder commits, so
 * its COMMIT line comes first; one raised at once (the row's version the
 * snapshot sees was changed by a transaction that had committed already)
 * is written right after the statement, before any such COMMIT
 * (samples/blind-py, pid 10474 at 08:12:19: the failure at once, lines
 * 4402-4403, then the one that queued behind 10463 until its COMMIT at
 * 4438, lines 4435-4442). Of several such holds, the one whose COMMIT was
 * logged first: holds of a row end in order, so it had the row when the
 * statement started. The wait lies inside the second and was not logged
 * (the caller's to know), so was shorter than max_unlogged_us
 * (decide/hidden.h): its length is not known, anywhere in (0, min(1 s,
 * max_unlogged_us)); it is taken as half of that, from the second's start,
 * as ls_queue_same_second() takes it. resolution_us below a second, or
 * max_unlogged_us 0: 0. Returns 1 with out filled (out->behind: the index
 * of the holder in held), 0 if none.
 */
int ls_failed_wait_same_second(const ls_queued_hold *held, const int64_t *lock_pos,
                               const int64_t *end_pos, int n, int64_t stmt_start, int64_t stmt_pos,
                               int64_t error_ts, int64_t error_pos, int64_t resolution_us,
                               int64_t max_unlogged_us, ls_queue_result *out);

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

/*
 * Who held the row when a statement's lock wait ended in an error the log
 * shows no wait for (a 55P03 lock_timeout below deadlock_timeout: no
 * "still waiting" line, no DETAIL naming the holder). Holds of a row in an
 * exclusive mode do not overlap, and the log is written in the order
 * things happened, lines of all sessions interleaved, so the holder is
 * the hold whose row was got before the error's line and freed after it:
 * got before, when the line that shows the row got (its locking
 * statement's, written at its end with its duration: lock_after) comes
 * before the error's line; freed after, when the line of the statement
 * that freed it (its transaction's COMMIT or ROLLBACK) comes after. A
 * line written at a statement's start (log_statement, no duration) comes
 * before the lock is got or freed: a locking statement's start after the
 * error still rules the hold out, a COMMIT's start before it does not.
 */
typedef struct ls_error_hold {
    int64_t start_ts, end_ts; /* the hold's times; end_ts 0: no end known */
    int64_t lock_pos;         /* log position of its locking statement's line, 0: none */
    int64_t end_pos;          /* of the line of the statement that freed it, 0: none */
    int lock_after;           /* lock_pos's line was written once the row was got */
    int end_after;            /* end_pos's line was written once the row was freed */
} ls_error_hold;

typedef enum ls_error_holder_answer {
    LS_HOLDER_ONE,     /* one hold had the row at the error: *holder */
    LS_HOLDER_NONE,    /* no known hold may have had it (its holder's hold not in the log) */
    LS_HOLDER_SEVERAL, /* more than one may have had it: the log cannot single one out */
    LS_HOLDER_UNSURE   /* one may have, but the log's lines do not show it had */
} ls_error_holder_answer;

/*
 * Of the holds `held` of the row by other transactions (any order), the
 * one that had it at the error, logged at error_ts (stamps of
 * resolution_us) and log position error_pos. A hold is ruled out by the
 * log's order (its locking statement's line after the error's, or the
 * line that shows it freed before it) or, where a position is unknown, by
 * time: got a whole tick after the error's stamp, or freed a whole tick
 * before it. The answer is LS_HOLDER_ONE only when exactly one hold is
 * left and the log's order shows it got before and freed after the error;
 * *holder is then its index, else -1.
 */
ls_error_holder_answer ls_error_holder(const ls_error_hold *held, int n, int64_t error_ts,
                                       int64_t error_pos, int64_t resolution_us, int *holder);

#endif
