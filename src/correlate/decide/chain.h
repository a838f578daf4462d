/*
 * chain.h — the walk from a waiter to its root blocker, one decision per
 * step (the chain-walk pass gathers each blocker's waits around the
 * moment and stores the result; this decides).
 *
 * From the wait's direct blocker, follow blockers while the blocker is
 * itself in an open wait episode at the moment the wait was logged, but
 * not one for the lock the server names it a holder of (that wait is
 * over, were its "acquired" line stamped later); stop at a process that
 * is not waiting (the head of the chain) or at a repeat (a deadlock
 * cycle: the root is the last distinct blocker), or after LS_CHAIN_MAX.
 */
#ifndef LS_DECIDE_CHAIN_H
#define LS_DECIDE_CHAIN_H

#include <stdint.h>

#include "tolerances.h"
#include "wait.h"

#define LS_CHAIN_TARGET_MAX 160 /* a lock target's text ("tuple (0,1) of ...") */

/* The walk so far. */
typedef struct ls_chain {
    int64_t root;     /* the last blocker reached: the root when the walk ends */
    int64_t root_xid; /* the transaction the chain's last link awaited, or 0 */
    int depth;        /* blockers followed: 1 for the direct blocker alone */
    int64_t seen[LS_CHAIN_MAX]; /* the waiter and every blocker reached */
    int nseen;
    /* The lock the chain's last link waits for, whose holders the server
     * named by then; "" when that wait was logged after the moment. */
    char target[LS_CHAIN_TARGET_MAX];
} ls_chain;

/* One wait of the current root, as the walk sees it. */
typedef struct ls_chain_wait {
    ls_wait_span span;
    int has_blocker;
    int64_t blocker;    /* its direct blocker, when has_blocker */
    int64_t awaited_xid; /* the transaction it waits for (a transaction lock), or 0 */
    const char *target; /* the lock it waits for (never NULL) */
    /* Its blocker is a waiter ahead of it in the lock's queue, not a
     * holder the server named (ls_queue_blocker()). */
    int blocker_queued;
} ls_chain_wait;

/* What a step decided. */
enum {
    LS_CHAIN_SKIP = 0, /* that wait was not on at the moment: try the root's next */
    LS_CHAIN_STOP = 1, /* the root stands */
    LS_CHAIN_ON = 2    /* the walk went on to that wait's blocker: the new root */
};

/*
 * Start the walk of the wait of `waiter`, whose direct blocker is
 * `blocker`, for lock `target`, the lock the server named the blocker a
 * holder of (NULL: unknown, or the blocker is a waiter ahead in that
 * lock's queue, whose own wait for it goes on with the walk); awaited_xid
 * is the transaction it waits for (0 when not a transaction lock).
 */
void ls_chain_start(ls_chain *c, int64_t waiter, int64_t blocker, int64_t awaited_xid,
                    const char *target);

/*
 * Take w, one of the root's waits around the moment of the walk (time t,
 * log position pos), the latest first: SKIP when it was not on then,
 * STOP when the root stands (its wait is for the lock it was named a
 * holder of, it has no blocker, the blocker is one seen before, or the
 * chain is full), ON when the walk went on to w's blocker. When every
 * wait of the root was skipped, the root stands too.
 */
int ls_chain_step(ls_chain *c, const ls_chain_wait *w, int64_t t, ls_logpos pos, int subsecond);

#endif
