/*
 * stmt.c — the waiter's statement among its session's lines (stmt.h).
 */
#include "stmt.h"

#include "tolerances.h"

int ls_pick_waiter_stmt(const ls_stmt_candidate *c, int n)
{
    int i, before = -1;
    for (i = 0; i < n; i++) {
        if (c[i].bind)
            continue;
        if (c[i].after && c[i].has_duration)
            return i;
        if (!c[i].after && !c[i].has_duration)
            before = i;
    }
    return before;
}

int ls_pick_waiter_line(const ls_stmt_candidate *c, int n, int failed)
{
    int i, before = -1, last_bind = -1;
    for (i = 0; i < n; i++) {
        if (failed && c[i].after && c[i].has_duration)
            continue;
        if (c[i].bind) {
            if (!c[i].after)
                last_bind = i;
        } else if (c[i].after && c[i].has_duration) {
            return i;
        } else if (!c[i].after && !c[i].has_duration) {
            before = i;
        }
    }
    return before >= 0 ? before : last_bind;
}

int ls_waiter_stmt_missed(const ls_stmt_candidate *picked, int failed, double waited_ms)
{
    if (failed)
        return 0;
    return !picked || !picked->after || !picked->has_duration ||
           (double)picked->dur_us <
               waited_ms * (double)LS_US_PER_MS - (double)LS_STMT_DURATION_SLACK_US;
}

int ls_locked_row_held(const ls_locked_row *l)
{
    if (!l->failed)
        return 1;
    if (l->failed_row && l->failed_row == l->row_id)
        return 0; /* queued for it, then failed */
    if (l->acquired || l->failed_row)
        return 1; /* taken before the statement failed on another row */
    return !l->lock_error;
}
