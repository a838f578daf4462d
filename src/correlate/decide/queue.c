/*
 * queue.c — a statement's queueing behind the holds before it (queue.h).
 */
#include "queue.h"

#include <string.h>

#include "tolerances.h"

int ls_queue_wait(const ls_queued_hold *prev, int n, int64_t stmt_start, int64_t acquired,
                  int has_end, int64_t tie_us, ls_queue_result *out)
{
    int i, holder = -1, tied = -1;
    int64_t busy_until = 0;

    memset(out, 0, sizeof(*out));
    for (i = 0; i < n; i++) {
        if (prev[i].end_ts > busy_until)
            busy_until = prev[i].end_ts;
        if (prev[i].start_ts <= stmt_start && prev[i].end_ts > stmt_start &&
            (holder < 0 || prev[i].start_ts >= prev[holder].start_ts))
            holder = i;
        /* got within a tick after the start, let go before the row was got */
        if (has_end && prev[i].start_ts > stmt_start && prev[i].start_ts - stmt_start < tie_us &&
            prev[i].end_ts <= acquired && (tied < 0 || prev[i].start_ts < prev[tied].start_ts))
            tied = i;
    }
    out->start_ts = stmt_start;
    if (holder < 0 && tied >= 0) {
        holder = tied;
        out->start_ts = prev[tied].start_ts;
    }
    if (holder < 0 || busy_until <= stmt_start)
        return 0; /* the row was free when the statement started */
    /* It got the row when the last hold before it ended; a logged end of
     * the statement bounds that. */
    out->end_ts = has_end && acquired < busy_until ? acquired : busy_until;
    if (out->end_ts <= out->start_ts)
        return 0;
    out->behind = holder;
    return 1;
}

int ls_queue_same_second(const ls_queued_hold *prev, const int64_t *lock_pos,
                         const int64_t *end_pos, int n, int64_t stmt_start, int64_t stmt_pos,
                         int64_t resolution_us, int64_t max_unlogged_us, ls_queue_result *out)
{
    int i, holder = -1;

    memset(out, 0, sizeof(*out));
    if (resolution_us < LS_WHOLE_SECOND_US || max_unlogged_us <= 0)
        return 0;
    for (i = 0; i < n; i++)
        if (prev[i].start_ts <= stmt_start && prev[i].end_ts == stmt_start &&
            lock_pos[i] < stmt_pos && end_pos[i] > stmt_pos &&
            (holder < 0 || lock_pos[i] > lock_pos[holder]))
            holder = i;
    return holder < 0 ? 0 : ls_queue_same_second_wait(stmt_start, holder, resolution_us,
                                                      max_unlogged_us, out);
}

int ls_queue_same_second_wait(int64_t stmt_start, int holder, int64_t resolution_us,
                              int64_t max_unlogged_us, ls_queue_result *out)
{
    int64_t bound = max_unlogged_us < resolution_us ? max_unlogged_us : resolution_us;

    out->start_ts = stmt_start;
    out->end_ts = stmt_start + bound / 2;
    out->behind = holder;
    return out->end_ts > out->start_ts;
}

int64_t ls_queue_hold_start(const ls_queued_hold *prev, const unsigned char *prev_shared, int n,
                            int64_t acquired, int64_t end_ts, int shared)
{
    int64_t start = acquired;
    int i;
    for (i = 0; i < n; i++)
        if (prev[i].end_ts <= end_ts && prev[i].end_ts > start &&
            !(shared && prev_shared && prev_shared[i]))
            start = prev[i].end_ts;
    return start;
}
