/*
 * failwait.c — the wait of a locking statement that ended in an error
 * (failwait.h).
 */
#include "failwait.h"

#include <string.h>

#include "tolerances.h"

int ls_failed_wait(const ls_queued_hold *held, int n, int64_t stmt_start, int64_t error_ts,
                   ls_queue_result *out)
{
    int i, holder = -1;

    memset(out, 0, sizeof(*out));
    for (i = 0; i < n; i++)
        if (held[i].start_ts <= stmt_start && held[i].end_ts > stmt_start &&
            (holder < 0 || held[i].start_ts >= held[holder].start_ts))
            holder = i;
    if (holder < 0 || error_ts <= stmt_start)
        return 0; /* the row was free when it started, or no time passed */
    out->start_ts = stmt_start;
    out->end_ts = error_ts;
    out->behind = holder;
    return 1;
}

int64_t ls_failed_wait_start(int64_t stmt_start, int64_t resolution_us, int64_t logged_start)
{
    return stmt_start + resolution_us + LS_FAILED_QUEUE_MIN_US <= logged_start ? stmt_start
                                                                               : logged_start;
}
