/*
 * spanq.h — did a locking statement that only the application's spans
 * show queue for a row behind another request's transaction (issue 34,
 * samples/blind-zk)?
 *
 * Under log_statement = 'mod' the SELECT ... FOR UPDATE that takes a row
 * is in no log line, nor are BEGIN and COMMIT; a FOR UPDATE queued on a
 * row whose holders UPDATE it waits once per row version, each wait
 * shorter than deadlock_timeout, so no wait is logged either
 * (blind-zk's warehouses id=1: 88 waits up to 4.9 s, none logged). The
 * request's spans have the statement (an ORM inlines the key: `id = 1`)
 * and its transaction (BEGIN..COMMIT spans), all on one clock (the
 * application's). A transaction holds a key from the end of its first
 * locking span on it (the row was got by then) to the start of its
 * COMMIT or ROLLBACK span (the server frees it no earlier than it is
 * sent). A locking span of another transaction that began while that
 * hold was on, and ended right after the holder's COMMIT (or ROLLBACK)
 * span, queued behind it: the row was granted when the holder ended.
 * The spans-queue step (src/correlate/spanqueue.c) makes a key a row when
 * such queueing lasted at least LS_HOT_HIDDEN_MIN_US.
 */
#ifndef LS_DECIDE_SPANQ_H
#define LS_DECIDE_SPANQ_H

#include <stdint.h>

/* How long after the holder's COMMIT (ROLLBACK) span ended the waiter's
 * locking span may end and still be the grant that end gave: both
 * replies travel back to the application, its event loop stamps each in
 * whole milliseconds (blind-zk: at most 3 ms). A later end is another
 * holder's grant, or no queueing behind this one. */
#define LS_SPANQ_GRANT_SLACK_US (20 * 1000)

/* A transaction's locking span on a key, and the span that ended its
 * transaction; all on the application's clock (µs). */
typedef struct ls_spanq_lock {
    int64_t tx;                   /* the transaction (its BEGIN span's row) */
    int64_t lock_start, lock_end; /* its first locking span on the key */
    int64_t end_start, end_end;   /* its COMMIT or ROLLBACK span */
    int shared;                   /* FOR SHARE / FOR KEY SHARE (ls_sql_shared_lock()) */
} ls_spanq_lock;

/*
 * How long (µs) w's locking span queued behind h's hold of the same key:
 * h is another transaction, not both shared; h got the row at or before
 * w's span began (h.lock_end <= w.lock_start); h was still to free it
 * then (w.lock_start < h.end_start); and w's span ended from the start of
 * h's end span to LS_SPANQ_GRANT_SLACK_US after its end (granted by it).
 * Then from w's start to h's end span's start (a lower bound: the server
 * freed the row no earlier). 0 otherwise.
 */
int64_t ls_spanq_queued_us(const ls_spanq_lock *h, const ls_spanq_lock *w);

#endif
