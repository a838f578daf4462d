/*
 * link.c — links from a wait to transactions (link.h).
 */
#include "link.h"

int64_t ls_root_tx_linked(const ls_root_link *l)
{
    if (l->by_xid_tx)
        return l->by_xid_tx;
    if (l->root_pid == l->holder_pid)
        return l->holder_tx;
    if (l->root_pid == l->blocker_pid)
        return l->blocker_tx;
    return 0;
}

int64_t ls_root_tx(const ls_root_link *l)
{
    int64_t tx = ls_root_tx_linked(l);
    if (tx)
        return tx;
    if (l->by_pos_tx && !l->ends_unlogged)
        return l->by_pos_tx;
    return l->by_time_tx;
}

int64_t ls_root_apart_xid(int64_t root_tx, int64_t root_xid)
{
    return root_tx ? 0 : root_xid;
}

int ls_head_wait_on(const ls_head_wait *h, int whole_seconds)
{
    if (!whole_seconds)
        return !h->has_end || h->end_ts >= h->tuple_start;
    if (h->has_end_line)
        return ls_logpos_cmp(h->end_pos, h->tuple_pos) >= 0;
    return !h->has_end || h->end_ts >= h->tuple_logged;
}

int ls_holder_hold_covers(const ls_holder_hold *h, int64_t at)
{
    return h->start_lo < at && h->end > at;
}

/* Of the covering holds in c whose pid is `pid`: the only one, else the
 * only one that surely held the row at `at`; 0: none, -1:
 * several that this does not tell apart. */
static int64_t holder_pick(const ls_holder_wait *w, const ls_holder_hold *c, size_t n, int64_t pid)
{
    int64_t one = 0, sure = 0;
    size_t i, found = 0, nsure = 0;

    for (i = 0; i < n; i++) {
        if (c[i].pid != pid || (w->waiter_tx && c[i].tx == w->waiter_tx) ||
            !ls_holder_hold_covers(&c[i], w->at))
            continue;
        found++;
        one = c[i].tx;
        if (c[i].start <= w->at) {
            nsure++;
            sure = c[i].tx;
        }
    }
    if (found == 1)
        return one;
    if (found == 0)
        return 0;
    return nsure == 1 ? sure : -1;
}

int ls_holder_linked_kept(const ls_holder_wait *w)
{
    return w->linked_tx && (w->by_xid || (w->has_linked_span && w->linked_start <= w->at &&
                                          w->linked_end > w->at));
}

int64_t ls_holder_tx(const ls_holder_wait *w, const ls_holder_hold *c, size_t n)
{
    int64_t tx;

    if (ls_holder_linked_kept(w))
        return w->linked_tx;
    tx = w->holder_pid ? holder_pick(w, c, n, w->holder_pid) : 0;
    if (tx == 0)
        tx = holder_pick(w, c, n, 0);
    if (tx > 0)
        return tx;
    if (w->ends_unlogged == LS_ENDS_UNLOGGED_THRESHOLD)
        return w->linked_locks_relation ||
                       (w->has_linked_span && w->linked_end + w->tick >= w->start)
                   ? w->linked_tx
                   : 0;
    return w->ends_unlogged ? 0 : w->linked_tx;
}
