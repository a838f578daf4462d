/*
 * holdrange.h — how long a hold lasted when the log gives its times in
 * whole seconds (%t): the range the log allows and a best estimate
 * (holdrange.c, the code paths pass). The occupancy ranking sums both:
 * the estimate ranks, the ranges say where two paths' order is uncertain.
 */
#ifndef LS_DECIDE_HOLDRANGE_H
#define LS_DECIDE_HOLDRANGE_H

#include <stdint.h>

#include "ls_range.h"

/*
 * One end of a hold as the log gives it: its time and bounds (ts within
 * [lo, hi]), and the resolution of the log times they are: 0, exact (a
 * span's microsecond); a second for a %t stamp or a time derived from one
 * (less a logged duration), the event then lay in [lo, hi + res).
 */
typedef struct ls_hold_edge {
    int64_t ts, lo, hi, res;
} ls_hold_edge;

/* A hold's length: what the log allows (lo..hi) and the estimate. */
typedef struct ls_hold_range {
    int64_t lo, hi, est;
} ls_hold_range;

/*
 * The length of a hold from start to end. lo: the end's earliest minus
 * the start's latest (never below 0); hi: the end's latest minus the
 * start's earliest. est: each end in the middle of its second (ts + res /
 * 2), the difference kept within [lo, hi].
 */
void ls_hold_range_of(const ls_hold_edge *start, const ls_hold_edge *end, ls_hold_range *out);

/* ls_ranges_overlap(): whether two totals' ranges meet (ls_range.h). */

#endif
