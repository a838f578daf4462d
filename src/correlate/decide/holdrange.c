/*
 * holdrange.c — a hold's length from whole-second log times: range and
 * estimate (holdrange.h).
 *
 * Why this estimate. A hold of a few milliseconds that crosses a second
 * boundary is logged as starting in second S and ending in S + 1: taking
 * the stamps as the times gives 1,000 ms; so does the middle of the range
 * the log allows ([0, 2 s]), and so does the expected length given only
 * that each end lies uniformly in its second. What places an event within
 * its second is the log itself: the server writes its lines in time
 * order, so the rank of a line among the n lines stamped with its second
 * orders it in that second, and with the lines spread over the second the
 * k-th lies, in expectation, at (k + 1/2) / n of it. The short hold's
 * start is then one of the last lines of S and its end one of the first
 * of S + 1: about 1/n s, not 1 s; a hold within one second gets the
 * distance between its lines. Where no line is known an end is put in
 * the middle of its second (the expected value under uniform placement),
 * which for two such ends gives the stamps' difference: unbiased over
 * where in the second a hold of any length falls, though not for a
 * single hold. The estimate is then kept within what the log allows.
 */
#include "holdrange.h"

#define HALF 0.5

double ls_line_frac(int64_t k, int64_t n)
{
    if (n <= 0 || k < 0 || k >= n)
        return -1;
    return ((double)k + HALF) / (double)n;
}

static double place(const ls_hold_edge *e)
{
    double f = e->frac >= 0 && e->frac < 1 ? e->frac : HALF;
    return (double)e->ts + (double)e->res * f;
}

void ls_hold_range_of(const ls_hold_edge *start, const ls_hold_edge *end, ls_hold_range *out)
{
    double est = place(end) - place(start);

    out->lo = end->lo - (start->hi + start->res);
    if (out->lo < 0)
        out->lo = 0;
    out->hi = end->hi + end->res - start->lo;
    if (out->hi < out->lo)
        out->hi = out->lo;
    out->est = (int64_t)(est + HALF);
    if (est < 0)
        out->est = 0;
    if (out->est < out->lo)
        out->est = out->lo;
    if (out->est > out->hi)
        out->est = out->hi;
}

int ls_ranges_overlap(int64_t alo, int64_t ahi, int64_t blo, int64_t bhi)
{
    return alo <= bhi && blo <= ahi;
}
