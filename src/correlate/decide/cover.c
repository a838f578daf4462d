/*
 * cover.c — a hold's share of a row wait (cover.h).
 */
#include "cover.h"

#include "tolerances.h"

/* Is the hold the waiter's own transaction (or are both unknown)? */
static int same_tx(const ls_cover_span *wait, const ls_cover_span *hold)
{
    return hold->has_tx == wait->has_tx && (!hold->has_tx || hold->tx_id == wait->tx_id);
}

int64_t ls_cover_us(const ls_cover_span *wait, const ls_cover_span *hold)
{
    int64_t lo = hold->start_ts > wait->start_ts ? hold->start_ts : wait->start_ts;
    int64_t hi = hold->end_ts < wait->end_ts ? hold->end_ts : wait->end_ts;

    if (hold->start_ts >= wait->end_ts || hi - lo < LS_COVER_MIN_US ||
        same_tx(wait, hold))
        return 0; /* not yet begun, too short a share, or its own transaction */
    return hi - lo;
}
