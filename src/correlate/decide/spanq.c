/*
 * spanq.c — queueing behind another request's transaction, seen in the
 * spans alone (spanq.h).
 */
#include "spanq.h"

int64_t ls_spanq_queued_us(const ls_spanq_lock *h, const ls_spanq_lock *w)
{
    if (h->tx == w->tx || (h->shared && w->shared))
        return 0;
    if (h->lock_end > w->lock_start || w->lock_start >= h->end_start)
        return 0;
    if (w->lock_end < h->end_start || w->lock_end > h->end_end + LS_SPANQ_GRANT_SLACK_US)
        return 0;
    return h->end_start - w->lock_start;
}
