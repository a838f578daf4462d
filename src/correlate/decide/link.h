/*
 * link.h — links from a wait to transactions that are decided apart from
 * the store: which transaction a wait's root blocker was in, and whether
 * a tuple lock's queue head was still waiting for the row's holder
 * (transactions.c looks up the candidates in SQL and asks these).
 */
#ifndef LS_DECIDE_LINK_H
#define LS_DECIDE_LINK_H

#include <stdint.h>

#include "logpos.h"

/* What the earlier links found for one wait (0: none, for any id). */
typedef struct ls_root_link {
    int64_t root_pid;    /* the root blocker (chain walk) */
    int64_t by_xid_tx;   /* the transaction of the xid the chain's last link awaited, run by root_pid */
    int64_t holder_pid;  /* the process holding the row waited for */
    int64_t holder_tx;   /* and its transaction */
    int64_t blocker_pid; /* the direct blocker */
    int64_t blocker_tx;  /* and its transaction */
    /* Looked up only where ls_root_tx_linked() is 0: */
    int64_t by_pos_tx;  /* the root session's transaction open at the message's log position */
    int64_t by_time_tx; /* and the one open at the message's time */
} ls_root_link;

/*
 * The root's transaction from the links alone: the one of the awaited
 * xid; else, at the same moment a process is in one transaction: the
 * holder's when the root is the holder (even when that is unknown: 0),
 * else the direct blocker's when the root is the blocker. 0 when none of
 * them says: the caller looks up by_pos_tx and by_time_tx.
 */
int64_t ls_root_tx_linked(const ls_root_link *l);

/*
 * The root's transaction: ls_root_tx_linked(), else the one open at the
 * message's log position (exact where whole-second times tie: a root
 * whose transaction ended and the next began in the second the message
 * was stamped in), else the one open at its time. 0: none.
 */
int64_t ls_root_tx(const ls_root_link *l);

/* A tuple wait and the queue head's latest wait by then (a wait for the
 * row's transaction). */
typedef struct ls_head_wait {
    int64_t tuple_start;  /* the tuple wait's start */
    int64_t tuple_logged; /* and the time of its first message */
    ls_logpos tuple_pos;  /* that message's position */
    int has_end;          /* the head's wait ended (else still on at the log's end) */
    int64_t end_ts;       /* when */
    int has_end_line;     /* a line of the log ended it */
    ls_logpos end_pos;    /* that line's position */
} ls_head_wait;

/*
 * Was the queue head's wait still on when the tuple wait was (so that the
 * head was waiting for the row's holder, which holds the row)? With
 * sub-second times: it had not ended before the tuple wait began (ended
 * at the very moment: still on). With whole-second times (whole_seconds),
 * where times tie, by log position: the line that ended it is not before
 * the tuple wait's message; a wait with no such line, by time, at the
 * message's time.
 */
int ls_head_wait_on(const ls_head_wait *h, int whole_seconds);

#endif
