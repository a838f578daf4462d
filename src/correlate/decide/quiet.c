/*
 * quiet.c — queueing behind another transaction's hold, unlogged
 * (quiet.h).
 */
#include "quiet.h"

#include "tolerances.h"

int64_t ls_quiet_queued_us(const ls_quiet_hold *h, const ls_quiet_stmt *s)
{
    if (h->tx == s->tx || (h->shared && s->shared))
        return 0;
    if (h->acquired > s->start_ts || h->end_ts <= s->start_ts || s->end_ts < h->end_ts)
        return 0;
    return h->end_ts - s->start_ts;
}

int ls_quiet_makes_row(int64_t queued_us, int subsecond)
{
    return subsecond && queued_us >= LS_HOT_HIDDEN_MIN_US;
}
