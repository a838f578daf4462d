/*
 * link.h — links from a wait to transactions that are decided apart from
 * the store: which transaction a wait's root blocker was in, and whether
 * a tuple lock's queue head was still waiting for the row's holder
 * (transactions.c looks up the candidates in SQL and asks these).
 */
#ifndef LS_DECIDE_LINK_H
#define LS_DECIDE_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "logpos.h"
#include "ls_logcover.h"

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
    /* The log has no transaction control (ls_logcover_tx_ends_unlogged:
     * log_statement = 'mod'): a session's last logged statement before
     * the message is not known to be in the transaction open then. */
    int ends_unlogged;
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
 * was stamped in; not where ends_unlogged: that is the session's last
 * logged statement's, issue 34), else the one open at its time. 0: none.
 */
int64_t ls_root_tx(const ls_root_link *l);

/*
 * What sets a root blocker apart beside its pid and session when its
 * transaction is not known (root_tx 0: no statement, BEGIN or COMMIT of it
 * is logged): the xid its waiters named (root_xid, "ShareLock on
 * transaction N" of the chain's last link; 0 when none did). A process's
 * different xids are different transactions, so the report lists each
 * apart, with only the rows waited for behind it, and never one
 * transaction holding rows another held (samples/blind-pl: pid 9132's
 * xids 856, 1011 and 1094, two transfers and a reserve_stock 20 s apart,
 * were one root). 0 where the transaction is known (it alone sets the
 * root apart) or no xid was named (the pid's waits stay one root whose
 * transactions are unknown). reports/plan_sql.h's ROOT_APART_XID is its
 * SQL.
 */
int64_t ls_root_apart_xid(int64_t root_tx, int64_t root_xid);

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

/*
 * The holder's transaction behind a pooler (issue 34, samples/blind-pool):
 * the pid the DETAIL names ran many requests' transactions one after
 * another, and the one that held the row may be one the log has no
 * statement of, rebuilt from its request's BEGIN..COMMIT spans (txspans.c
 * "spans only": no pid). The steps before (by xid, log position, time)
 * took the pid's logged transaction; where that one was not open when the
 * DETAIL named the pid (the wait's first message: a tuple lock's holder
 * may change while the waiter waits), the holder is the transaction whose
 * hold of the row covered that moment.
 */
typedef struct ls_holder_wait {
    int64_t at;          /* when the DETAIL named the holder: the wait's first message */
    int64_t holder_pid;  /* the process the DETAIL names */
    int64_t waiter_tx;   /* the waiter's own transaction (0: unknown) */
    int64_t linked_tx;   /* what the steps before linked (0: none) */
    int by_xid;          /* linked_tx is the awaited xid's: exact */
    int has_linked_span; /* linked_tx's start and end are known: */
    int64_t linked_start;
    int64_t linked_end; /* (INT64_MAX: still open at the log's end) */
    /* The log has no transaction control (log_statement = 'mod', or a
     * threshold log with no BEGIN or COMMIT logged; issue 34): linked_tx
     * is the pid's last logged statement's transaction, not known to be
     * the one that held the row when it had ended. */
    int ends_unlogged; /* 0, LS_ENDS_UNLOGGED_CLASSES or _THRESHOLD (ls_logcover.h) */
    /* (THRESHOLD only) linked_tx's own logged statements locked a row of the waited row's
     * relation (a hold of it before the links): it may have gone on,
     * unlogged, to lock this one. Else the row is another transaction's
     * (samples/blind-go: a pooled connection's slow inventory FOR UPDATE
     * named the holder of the accounts row its next transaction took). */
    int linked_locks_relation;
    int64_t start; /* when the wait began */
    int64_t tick;  /* the log's time resolution (µs): 1000, or a second for %t */
} ls_holder_wait;

/* A hold of the wait's row. */
typedef struct ls_holder_hold {
    int64_t tx;  /* its transaction */
    int64_t pid; /* its process; 0: none known (spans only) */
    /* the earliest it can have locked the row: its locking statement's
     * (or span's) start */
    int64_t start_lo;
    int64_t start; /* by when it surely had (that statement's or span's end) */
    int64_t end;   /* its end (its COMMIT's, or its COMMIT span's) */
} ls_holder_hold;

/*
 * Whether hold h covered the moment `at`: its span-timed start before it
 * (a statement sent at that very moment locked the row after it), its end
 * after it (a hold that ended at that moment had let the row go).
 */
int ls_holder_hold_covers(const ls_holder_hold *h, int64_t at);

/* Whether linked_tx stands as it is: by xid, or open at `at` (a process
 * is in one transaction at a time). */
int ls_holder_linked_kept(const ls_holder_wait *w);

/*
 * The wait's holder transaction, given the holds c[0..n) of its row:
 * linked_tx when it is by xid, or was open at `at` (a process is in one
 * transaction at a time). Else, of the holds that covered `at` (not the
 * waiter's own; of the holder's pid, or of no known
 * pid): those of the holder's pid first (the log says whose they are),
 * else those of no pid; of them the only one, else the only one that
 * surely held the row by then (start <= at). Where that
 * does not decide (none, or several alike): linked_tx; 0 (unknown) where
 * ends_unlogged is CLASSES (samples/blind-zk: pid 30377's INSERT orders,
 * committed 24 ms before the wait, named as the holder of accounts id=4
 * that its next transaction's unlogged SELECT ... FOR UPDATE took), and
 * where it is THRESHOLD when no statement of linked_tx wrote or locked a
 * row of that relation (a transferCredit, whose logged FOR UPDATE of
 * accounts may be followed by unlogged ones, is kept; samples/blind-go's
 * reserveWithPayment, which locks inventory only, is not) and its last
 * logged statement had ended more than a tick before the wait began
 * (samples/blind-go: 3 and 7 s; samples/blind-pool's bookings, whose
 * unlogged UPDATE events came before their logged INSERT, within 1.8 s of
 * a whole-second log: kept).
 */
int64_t ls_holder_tx(const ls_holder_wait *w, const ls_holder_hold *c, size_t n);

#endif
