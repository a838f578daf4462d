/*
 * quiet.c — queueing behind another transaction's hold, unlogged
 * (quiet.h).
 */
#include "quiet.h"

#include <stddef.h>

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

int64_t ls_quiet_line_lo(int64_t stamp, int64_t lo_before, int64_t prev_lo, int64_t dur)
{
    int64_t lo = stamp;
    if (lo_before > lo)
        lo = lo_before;
    if (prev_lo != INT64_MIN && prev_lo + dur > lo)
        lo = prev_lo + dur;
    return lo;
}

int64_t ls_quiet_line_hi(int64_t stamp, int64_t tick, int64_t hi_after, int64_t next_start_hi)
{
    int64_t hi = stamp + tick;
    if (hi_after < hi)
        hi = hi_after;
    if (next_start_hi < hi)
        hi = next_start_hi;
    return hi;
}

int64_t ls_quiet_bounded_us(const ls_quiet_bounded *q)
{
    int64_t proven;
    if (q->tx_a == q->tx_b || q->both_shared)
        return 0;
    if (!(q->a_pos < q->b_pos && q->c_pos < q->b_pos))
        return 0;
    proven = q->b_dur - (q->b_hi - q->c_lo);
    return proven > 0 ? proven : 0;
}

int ls_quiet_bounded_makes_row(int64_t proven_us)
{
    return proven_us >= LS_HOT_HIDDEN_MIN_US;
}

int64_t ls_quiet_excess_us(const ls_quiet_excess *q)
{
    int64_t excess;
    if (!q->every_statement || q->tx_a == q->tx_b || q->both_shared)
        return 0;
    if (!(q->a_pos < q->b_pos && q->b_prev_pos < q->c_pos && q->c_pos < q->b_pos))
        return 0;
    excess = q->b_dur - q->b_fastest;
    return excess > 0 ? excess : 0;
}

int ls_quiet_excess_makes_row(int64_t excess_us)
{
    return excess_us >= LS_HOT_HIDDEN_MIN_US;
}

void ls_quiet_lag_init(ls_quiet_lag *l)
{
    size_t i;
    l->latest = INT64_MIN;
    l->reads = 0;
    for (i = 0; i < LS_QUIET_READ_LAG; i++)
        l->ring[i] = INT64_MIN;
}

int64_t ls_quiet_lag_read(ls_quiet_lag *l, int64_t end_ts, int has_end)
{
    size_t at = (size_t)(l->reads % LS_QUIET_READ_LAG);
    /* the slot holds `latest` as it was LS_QUIET_READ_LAG reads ago */
    int64_t safe = l->ring[at];
    l->ring[at] = l->latest;
    if (has_end && end_ts > l->latest)
        l->latest = end_ts;
    l->reads++;
    return safe;
}
