/*
 * holdrange.c — a hold's length from whole-second log times: range and
 * estimate (holdrange.h).
 *
 * Why this estimate. Each end is put in the middle of its second, the
 * expected value given uniform placement within it: for two stamped
 * ends the estimate is the stamps' difference. For one hold that is
 * coarse (a 2 ms hold that crosses a second counts 1 s, one that does not
 * counts 0), but it is unbiased where it matters, in the totals the
 * ranking sums: a hold of length d whose start falls uniformly in its
 * second crosses floor(d) + 1 boundaries with probability frac(d) and
 * floor(d) otherwise, so its expected stamps' difference is d exactly,
 * and a path's many short holds sum to their true total. The middle of
 * the feasible range is not unbiased (a hold within one second would
 * count 500 ms). Placing an end by its line's rank among the lines of
 * its second, (k + 1/2) / n, was tried and measured worse: a log's lines
 * come in bursts (a COMMIT wakes a queue that logs at once), so ranks
 * spread what happened in one instant over the second; on samples/
 * app-seconds it put the paths of 155 ms of true holds at 3.1 s (this
 * estimate: 0 s; 4.5 s of the other path's at 3.7 s, this: 5.0 s), and
 * it was further from the millisecond log's totals on most whole-second
 * copies of the samples (tools/compare_reports.sh). Where an end is exact (a
 * span's time, or derived from a logged duration) it is taken as it is.
 * The estimate is kept within what the log allows.
 */
#include "holdrange.h"

#define HALF 2 /* the middle of a second: res / HALF */

void ls_hold_range_of(const ls_hold_edge *start, const ls_hold_edge *end, ls_hold_range *out)
{
    int64_t est = (end->ts + end->res / HALF) - (start->ts + start->res / HALF);

    out->lo = end->lo - (start->hi + start->res);
    if (out->lo < 0)
        out->lo = 0;
    out->hi = end->hi + end->res - start->lo;
    if (out->hi < out->lo)
        out->hi = out->lo;
    out->est = est < out->lo ? out->lo : est > out->hi ? out->hi : est;
}
