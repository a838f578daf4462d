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
    if (l->by_pos_tx)
        return l->by_pos_tx;
    return l->by_time_tx;
}

int ls_head_wait_on(const ls_head_wait *h, int whole_seconds)
{
    if (!whole_seconds)
        return !h->has_end || h->end_ts >= h->tuple_start;
    if (h->has_end_line)
        return ls_logpos_cmp(h->end_pos, h->tuple_pos) >= 0;
    return !h->has_end || h->end_ts >= h->tuple_logged;
}
