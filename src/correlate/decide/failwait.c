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

int ls_failed_wait_same_second(const ls_queued_hold *held, const int64_t *lock_pos,
                               const int64_t *end_pos, int n, int64_t stmt_start, int64_t stmt_pos,
                               int64_t error_ts, int64_t error_pos, int64_t resolution_us,
                               int64_t max_unlogged_us, ls_queue_result *out)
{
    int i, holder = -1;

    memset(out, 0, sizeof(*out));
    if (resolution_us < LS_WHOLE_SECOND_US || max_unlogged_us <= 0 || error_ts != stmt_start)
        return 0;
    for (i = 0; i < n; i++)
        if (held[i].start_ts <= stmt_start && held[i].end_ts == stmt_start &&
            lock_pos[i] < stmt_pos && end_pos[i] > stmt_pos && end_pos[i] < error_pos &&
            (holder < 0 || end_pos[i] < end_pos[holder]))
            holder = i;
    return holder < 0 ? 0 : ls_queue_same_second_wait(stmt_start, holder, resolution_us,
                                                      max_unlogged_us, out);
}

int64_t ls_failed_wait_start(int64_t stmt_start, int64_t resolution_us, int64_t logged_start)
{
    return stmt_start + resolution_us + LS_FAILED_QUEUE_MIN_US <= logged_start ? stmt_start
                                                                               : logged_start;
}

/* Can hold h not have had the row at the error? */
static int error_hold_ruled_out(const ls_error_hold *h, int64_t error_ts, int64_t error_pos,
                                int64_t resolution_us)
{
    if (h->lock_pos ? h->lock_pos > error_pos : h->start_ts >= error_ts + resolution_us)
        return 1; /* got it after the error */
    if (h->end_pos && h->end_after)
        return h->end_pos < error_pos; /* freed it before the error */
    return h->end_ts && h->end_ts + resolution_us <= error_ts;
}

ls_error_holder_answer ls_error_holder(const ls_error_hold *held, int n, int64_t error_ts,
                                       int64_t error_pos, int64_t resolution_us, int *holder)
{
    int i, left = 0, one = -1;

    *holder = -1;
    for (i = 0; i < n; i++)
        if (!error_hold_ruled_out(&held[i], error_ts, error_pos, resolution_us)) {
            left++;
            one = i;
        }
    if (left == 0)
        return LS_HOLDER_NONE;
    if (left > 1)
        return LS_HOLDER_SEVERAL;
    if (!held[one].lock_pos || !held[one].lock_after || held[one].lock_pos >= error_pos ||
        !held[one].end_pos || held[one].end_pos <= error_pos)
        return LS_HOLDER_UNSURE;
    *holder = one;
    return LS_HOLDER_ONE;
}
