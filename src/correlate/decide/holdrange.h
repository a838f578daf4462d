/*
 * holdrange.h — how long a hold lasted when the log gives its times in
 * whole seconds (%t): the range the log allows and a best estimate
 * (holdrange.c, the code paths pass). The occupancy ranking sums both:
 * the estimate ranks, the ranges say where two paths' order is uncertain.
 */
#ifndef LS_DECIDE_HOLDRANGE_H
#define LS_DECIDE_HOLDRANGE_H

#include <stdint.h>

/*
 * One end of a hold as the log gives it: its time and bounds (ts within
 * [lo, hi]), the resolution of the log times they are (0: exact, a span's
 * microsecond or the log's millisecond; a second for %t: the event was
 * in [lo, hi + res)), and where in its second the line that gave ts was
 * written: frac = (k + 1/2) / n for the k-th of the n lines of that
 * second in the file (ls_line_frac()), -1 when not known.
 */
typedef struct ls_hold_edge {
    int64_t ts, lo, hi, res;
    double frac;
} ls_hold_edge;

/* A hold's length: what the log allows (lo..hi) and the estimate. */
typedef struct ls_hold_range {
    int64_t lo, hi, est;
} ls_hold_range;

/* Where the k-th (from 0) of n lines of one second lies in it: (k + 1/2) / n;
 * -1 when n is 0 or k is not in [0, n). */
double ls_line_frac(int64_t k, int64_t n);

/*
 * The length of a hold from start to end. lo: the end's earliest minus
 * the start's latest (never below 0); hi: the end's latest minus the
 * start's earliest. est: each end at ts + res * frac (frac 1/2 when not
 * known), the difference kept within [lo, hi].
 */
void ls_hold_range_of(const ls_hold_edge *start, const ls_hold_edge *end, ls_hold_range *out);

/* Whether two totals' ranges [alo, ahi] and [blo, bhi] meet: the log
 * cannot tell which is larger. */
int ls_ranges_overlap(int64_t alo, int64_t ahi, int64_t blo, int64_t bhi);

#endif
