/*
 * hidden.h — a statement's queueing for a row when log_lock_waits logged
 * part of it. The hidden-waits pass (hidden.c) reconstructs each
 * statement's queueing (ls_queue_wait, queue.h) and asks this where the
 * statement's transaction has a logged wait for the row.
 */
#ifndef LS_DECIDE_HIDDEN_H
#define LS_DECIDE_HIDDEN_H

#include <stdint.h>

#include "queue.h"

/* The logged waits of a (transaction, row): from the first's start to the
 * last's end, ms long; tx_wait: one of them waited for the transaction
 * (not only for the tuple lock). */
typedef struct ls_logged_span {
    int64_t start_ts, end_ts;
    double ms;
    int tx_wait;
} ls_logged_span;

/* The statement's wait, and whether the reconstruction disagreed. */
typedef struct ls_hidden_wait {
    int64_t start_ts, end_ts;
    double ms;
    int disagree; /* the reconstruction's end is off the logged one by more
                     than the tolerance */
} ls_hidden_wait;

/*
 * The logged wait wins for its part: the wait starts at the earlier of the
 * reconstruction's start and the logged start (queueing before the log's
 * first message, a tuple lock below deadlock_timeout, stays hidden) and
 * ends at the logged end, unless only a tuple lock was logged: its waiter
 * was next in line when it ended and waited on, below deadlock_timeout,
 * for the holder's transaction, so the reconstruction's end stands when
 * later. The two ends disagree when they differ by more than
 * max(LS_LOGGED_AGREE_MS, LS_LOGGED_AGREE_FRAC of the logged length).
 * rec is the reconstruction, NULL when there is none.
 */
void ls_hidden_logged_wait(const ls_queue_result *rec, const ls_logged_span *logged,
                           ls_hidden_wait *out);

#endif
