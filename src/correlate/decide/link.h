/*
 * link.h — which transaction a wait's root blocker was in, where the
 * store's other links already say (transactions.c asks this, then looks
 * up the rest by log position and by time in SQL).
 */
#ifndef LS_DECIDE_LINK_H
#define LS_DECIDE_LINK_H

#include <stdint.h>

/* What the earlier links found for one wait (0: none, for any id). */
typedef struct ls_root_link {
    int64_t root_pid;    /* the root blocker (chain walk) */
    int64_t by_xid_tx;   /* the transaction of the xid the chain's last link awaited, run by root_pid */
    int64_t holder_pid;  /* the process holding the row waited for */
    int64_t holder_tx;   /* and its transaction */
    int64_t blocker_pid; /* the direct blocker */
    int64_t blocker_tx;  /* and its transaction */
} ls_root_link;

/*
 * The root's transaction from what is linked already: the one of the
 * awaited xid; else, at the same moment a process is in one transaction:
 * the holder's when the root is the holder (even when that is unknown:
 * 0), else the direct blocker's when the root is the blocker. 0 when none
 * of them says: the caller looks further (log position, time).
 */
int64_t ls_root_tx(const ls_root_link *l);

#endif
