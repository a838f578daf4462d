/*
 * quiet.h — did a locking statement queue for a row behind another
 * transaction's hold of it, when no wait of it was logged (issue 34:
 * rows whose every wait was below deadlock_timeout are hot rows too)?
 * The quiet-rows step (src/correlate/quiet.c) keeps a few recent holds
 * of each key ingest found (tx_keys) and asks this of every keyed
 * statement with a logged end; a key some statement queued for at least
 * LS_HOT_HIDDEN_MIN_US becomes a logical row, whose holds and hidden
 * waits the later passes then make.
 */
#ifndef LS_DECIDE_QUIET_H
#define LS_DECIDE_QUIET_H

#include <stdint.h>

/* A transaction's hold of a key as the step knows it before the holds
 * pass: from its first statement on the key (acquired: that statement's
 * end, else its start) to the transaction's end. */
typedef struct ls_quiet_hold {
    int64_t tx;       /* the transaction (its first stmt_id, tx_cuts) */
    int64_t acquired; /* when the row was got */
    int64_t end_ts;   /* when it was freed: the transaction's end */
    int shared;       /* FOR SHARE / FOR KEY SHARE (ls_sql_shared_lock()) */
} ls_quiet_hold;

/* A keyed statement with a logged duration. */
typedef struct ls_quiet_stmt {
    int64_t tx;
    int64_t start_ts, end_ts;
    int shared;
} ls_quiet_stmt;

/*
 * How long (µs) statement s queued behind hold h of the same key: h of
 * another transaction got the row at or before s started and freed it
 * after s started (a hold freed exactly at s's start did not hold it
 * up), and s ended no earlier than h was freed (s could not lock the row
 * before). Then from s's start to h's end. 0 when it did not: the same
 * transaction (its second statement does not queue behind itself), both
 * shared (FOR SHARE among FOR SHARE), or the times above.
 */
int64_t ls_quiet_queued_us(const ls_quiet_hold *h, const ls_quiet_stmt *s);

/* Is queueing of queued_us enough to make the key a row: at least
 * LS_HOT_HIDDEN_MIN_US (the report's hidden-only hot-row threshold) on a
 * log whose times are below a second (subsecond; on whole seconds a
 * statement's start is its end's second less its duration, 0..1 s off,
 * and no queueing under a second is known)? */
int ls_quiet_makes_row(int64_t queued_us, int subsecond);

#endif
