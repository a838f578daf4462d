/*
 * victim.c — a pooled deadlock victim's failed span and transaction
 * (victim.h).
 */
#include "victim.h"

int ls_victim_span(const ls_failed_span *c, size_t n, int64_t ts, int64_t res, int64_t slack)
{
    size_t i;
    int pick = -1;

    if (res <= 0) {
        for (i = 0; i < n; i++) {
            if (c[i].end < ts - slack || c[i].end > ts + LS_VICTIM_HEARD_US)
                continue;
            if (pick >= 0)
                return -1;
            pick = (int)i;
        }
        return pick;
    }
    for (i = 0; i < n; i++)
        if (!c[i].used && c[i].end >= ts - slack && c[i].end <= ts + res + LS_VICTIM_HEARD_US)
            return (int)i;
    return -1;
}

int ls_victim_tx(const ls_victim_tx_cand *c, size_t n, int64_t ts, int64_t res)
{
    size_t i;
    int pick = -1;

    if (res <= 0)
        return -1;
    for (i = 0; i < n; i++) {
        if (!c[i].from_spans || c[i].victim_before || c[i].start >= ts + res ||
            (c[i].end && c[i].end < ts))
            continue;
        if (pick < 0 || c[i].start < c[pick].start)
            pick = (int)i;
    }
    return pick;
}

int ls_deadlock_stmt_running(int64_t start, int64_t end, int64_t ts, int64_t res)
{
    if (start > ts + (res > 0 ? res : 0))
        return 0;
    return end < 0 || end >= ts;
}
