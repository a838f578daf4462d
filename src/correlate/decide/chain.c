/*
 * chain.c — the walk to the root blocker, step by step (chain.h).
 */
#include "chain.h"

#include <stdio.h>
#include <string.h>

void ls_chain_start(ls_chain *c, int64_t waiter, int64_t blocker, int64_t awaited_xid,
                    const char *target)
{
    memset(c, 0, sizeof(*c));
    c->root = blocker;
    c->root_xid = awaited_xid;
    c->depth = 1;
    c->seen[c->nseen++] = waiter; /* a cycle back to it ends the walk */
    c->seen[c->nseen++] = blocker;
    snprintf(c->target, sizeof(c->target), "%s", target ? target : "");
}

static int chain_seen(const ls_chain *c, int64_t pid)
{
    int i;
    for (i = 0; i < c->nseen; i++)
        if (c->seen[i] == pid)
            return 1;
    return 0;
}

int ls_chain_step(ls_chain *c, const ls_chain_wait *w, int64_t t, ls_logpos pos, int subsecond)
{
    if (!ls_wait_open_at(&w->span, t, pos, subsecond))
        return LS_CHAIN_SKIP;
    /* The server named the root a holder of the lock the last link waits
     * for, in a message logged by then: its own wait for that lock is
     * over, were its "acquired" line stamped later (a tuple lock granted
     * when the queue's head left it at a deadlock). */
    if (c->target[0] && strcmp(w->target, c->target) == 0)
        return LS_CHAIN_STOP;
    if (!w->has_blocker)
        return LS_CHAIN_STOP;
    /* Its holders are known at the moment only if it was logged by then;
     * a blocker ahead in its queue was named a waiter, not a holder. */
    if (ls_logpos_cmp(w->span.first, pos) <= 0 && !w->blocker_queued)
        snprintf(c->target, sizeof(c->target), "%s", w->target);
    else
        c->target[0] = '\0';
    if (chain_seen(c, w->blocker) || c->nseen == LS_CHAIN_MAX)
        return LS_CHAIN_STOP; /* a deadlock cycle: the root is the last distinct blocker */
    c->root_xid = w->awaited_xid;
    c->root = w->blocker;
    c->seen[c->nseen++] = w->blocker;
    c->depth++;
    return LS_CHAIN_ON;
}
