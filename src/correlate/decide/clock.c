/*
 * clock.c — the application clock's offset from the database's, measured
 * on what both saw (clock.h).
 */
#include "clock.h"

#include <stdlib.h>

#include "ls_common.h"
#include "tolerances.h"

typedef struct offset_edge {
    int64_t at;
    int delta; /* +1 an interval opens, -1 it closes */
} offset_edge;

static int by_edge(const void *a, const void *b)
{
    const offset_edge *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    return y->delta - x->delta; /* opens first: touching intervals agree */
}

/*
 * The offset most intervals contain: the middle of the first range of
 * greatest depth. Returns the depth (0: no interval).
 */
int ls_span_offset(const int64_t *lo, const int64_t *hi, int n, int64_t *offset)
{
    int64_t rlo = 0, rhi = 0;
    int depth = ls_span_offset_range(lo, hi, n, &rlo, &rhi);

    if (depth)
        *offset = rlo + (rhi - rlo) / 2;
    return depth;
}

/* The first range of greatest depth (clock.h); a sweep over the sorted
 * edges. */
int ls_span_offset_range(const int64_t *lo, const int64_t *hi, int n, int64_t *rlo, int64_t *rhi)
{
    offset_edge *e = n ? ls_calloc((size_t)n * 2, sizeof(*e)) : NULL;
    int i, depth = 0, best = 0;
    int64_t best_lo = 0, best_hi = 0;

    if (!e)
        return 0;
    for (i = 0; i < n; i++) {
        e[2 * i].at = lo[i];
        e[2 * i].delta = 1;
        e[2 * i + 1].at = hi[i];
        e[2 * i + 1].delta = -1;
    }
    qsort(e, (size_t)n * 2, sizeof(*e), by_edge);
    for (i = 0; i < 2 * n; i++) {
        depth += e[i].delta;
        if (depth > best) {
            best = depth;
            best_lo = e[i].at;
            best_hi = i + 1 < 2 * n ? e[i + 1].at : e[i].at;
        }
    }
    free(e);
    if (best) {
        *rlo = best_lo;
        *rhi = best_hi;
    }
    return best;
}

/*
 * The offsets that put a statement seen by the database from db0 to db1
 * inside a span the application timed from app0 to app1: app0 + offset <=
 * db0 and app1 + offset >= db1, give or take the log's millisecond. 0 with
 * *lo..*hi filled, -1 when the span is too short to have run it.
 */
int ls_span_offset_interval(int64_t db0, int64_t db1, int64_t app0, int64_t app1, int64_t *lo,
                            int64_t *hi)
{
    *lo = db1 - app1 - LS_SPAN_LOG_SLACK_US;
    *hi = db0 - app0 + LS_SPAN_LOG_SLACK_US;
    return *lo <= *hi ? 0 : -1;
}

void ls_span_offset_in_log_time(int64_t db0, int64_t res, int64_t app0, int64_t slack,
                                int64_t *lo, int64_t *hi)
{
    *lo = db0 - app0 - slack;
    *hi = db0 + res - app0 + slack;
}
