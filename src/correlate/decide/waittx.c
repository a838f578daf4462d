/*
 * waittx.c — the waiter's transaction of a wait on a whole-second log
 * (waittx.h).
 */
#include "waittx.h"

#include "victim.h"

int ls_wait_tx_fits(const ls_wait_tx_cand *c, const ls_wait_tx_wait *w)
{
    if (c->start - w->slack >= w->start_lo + w->res || (w->deadlock && c->taken))
        return 0;
    if (c->end_open)
        return c->end - w->slack < w->start_lo + w->res;
    if (c->end) {
        int64_t end_hi = c->end + c->end_res;

        if (end_hi + w->slack < w->end_lo || end_hi - c->start + 2 * w->slack < w->waited)
            return 0;
        if (w->deadlock && c->end - w->slack > w->end_lo + w->res + LS_VICTIM_HEARD_US)
            return 0;
    }
    return !w->deadlock || c->aborted;
}

int ls_wait_tx_pick(const ls_wait_tx_cand *c, size_t n, const ls_wait_tx_wait *w)
{
    size_t i;
    int pick = -1;

    for (i = 0; i < n; i++)
        if (c[i].victim)
            return ls_wait_tx_fits(&c[i], w) ? (int)i : -1;
    for (i = 0; i < n; i++)
        if (c[i].linked && c[i].by_pos)
            return (int)i;
    for (i = 0; i < n; i++)
        if (c[i].linked && ls_wait_tx_fits(&c[i], w))
            return (int)i;
    for (i = 0; i < n; i++) {
        if (!ls_wait_tx_fits(&c[i], w))
            continue;
        if (pick >= 0)
            return -1;
        pick = (int)i;
    }
    return pick;
}

int ls_wait_holder_stmt_pick(const ls_wait_holder_stmt *c, size_t n, int64_t ts, int64_t res)
{
    size_t i;
    int pick = -1;

    for (i = 0; i < n; i++) {
        if (!ls_deadlock_stmt_running(c[i].start, c[i].end, ts, res))
            continue;
        if (c[i].end < 0)
            return pick < 0 ? (int)i : -1;
        if (pick >= 0)
            return -1;
        pick = (int)i;
    }
    return pick;
}
