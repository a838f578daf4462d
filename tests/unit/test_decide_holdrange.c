/*
 * test_decide_holdrange.c — decide/holdrange.c: a hold's length from
 * whole-second log times. Boundary cases: a hold within one second, one
 * crossing a second boundary, ends exactly on a second's edge, lines at
 * the first and last rank of their second, an end without a line, exact
 * (span-timed) ends, ranges that touch.
 */
#include "decide/holdrange.h"
#include "ls_test.h"

#define S 1000000 /* one second in µs */
#define MS 1000

static ls_hold_edge sec(int64_t t, double frac)
{
    ls_hold_edge e;
    e.ts = e.lo = e.hi = t;
    e.res = S;
    e.frac = frac;
    return e;
}

static ls_hold_edge exact(int64_t t)
{
    ls_hold_edge e;
    e.ts = e.lo = e.hi = t;
    e.res = 0;
    e.frac = -1;
    return e;
}

static void test_frac(void)
{
    CHECK(ls_line_frac(0, 1) == 0.5);
    CHECK(ls_line_frac(0, 4) == 0.125);
    CHECK(ls_line_frac(3, 4) == 0.875);
    CHECK(ls_line_frac(4, 4) == -1);
    CHECK(ls_line_frac(-1, 4) == -1);
    CHECK(ls_line_frac(0, 0) == -1);
}

/* Within one second: start line 2nd of 10, end line 4th: 200 ms, the
 * range [0, 1 s). */
static void test_within_second(void)
{
    ls_hold_edge a = sec(10 * S, ls_line_frac(1, 10)), b = sec(10 * S, ls_line_frac(3, 10));
    ls_hold_range r;
    ls_hold_range_of(&a, &b, &r);
    CHECK_INT(r.lo, 0);
    CHECK_INT(r.hi, S);
    CHECK_INT(r.est, 200 * MS);
    /* the same line order reversed (the end's line before the start's:
     * not a real hold, a clock tie): never below 0 */
    ls_hold_range_of(&b, &a, &r);
    CHECK_INT(r.est, 0);
}

/* Crossing one boundary: the start the last of 20 lines of second 10, the
 * end the first of 20 of second 11: 50 ms, not 1,000; the range [0, 2 s). */
static void test_crossing(void)
{
    ls_hold_edge a = sec(10 * S, ls_line_frac(19, 20)), b = sec(11 * S, ls_line_frac(0, 20));
    ls_hold_range r;
    ls_hold_range_of(&a, &b, &r);
    CHECK_INT(r.lo, 0);
    CHECK_INT(r.hi, 2 * S);
    CHECK_INT(r.est, 50 * MS);
    /* without lines: each end in the middle of its second, the stamps'
     * difference */
    a.frac = b.frac = -1;
    ls_hold_range_of(&a, &b, &r);
    CHECK_INT(r.est, S);
    /* two seconds apart: at least 1 s (the start's second ended, the end's
     * began), at most 3 s */
    b = sec(12 * S, ls_line_frac(0, 20));
    a.frac = ls_line_frac(19, 20);
    ls_hold_range_of(&a, &b, &r);
    CHECK_INT(r.lo, S);
    CHECK_INT(r.hi, 3 * S);
    CHECK_INT(r.est, S + 50 * MS);
}

/* Exact ends (a span's or the log's millisecond): the length itself; an
 * exact start 1 µs before a whole-second end's second: the range opens
 * at that second's start. */
static void test_exact_edges(void)
{
    ls_hold_edge a = exact(10 * S + 999 * MS), b = exact(11 * S + 1 * MS);
    ls_hold_range r;
    ls_hold_range_of(&a, &b, &r);
    CHECK_INT(r.lo, 2 * MS);
    CHECK_INT(r.hi, 2 * MS);
    CHECK_INT(r.est, 2 * MS);
    a = exact(11 * S - 1);
    b = sec(11 * S, ls_line_frac(0, 1));
    ls_hold_range_of(&a, &b, &r);
    CHECK_INT(r.lo, 1);
    CHECK_INT(r.hi, S + 1);
    CHECK_INT(r.est, S / 2 + 1);
    /* a whole-second start and an exact end in the same second */
    a = sec(11 * S, ls_line_frac(0, 2));
    b = exact(11 * S + 900 * MS);
    ls_hold_range_of(&a, &b, &r);
    CHECK_INT(r.lo, 0);
    CHECK_INT(r.hi, 900 * MS);
    CHECK_INT(r.est, 650 * MS);
}

/* Bounds wider than the time: a start bounded in [9 s, 10 s] by the
 * evidence, an end bounded by the first waiter's acquisition at 12 s. */
static void test_bounds(void)
{
    ls_hold_edge a = sec(10 * S, -1), b = sec(11 * S, -1);
    ls_hold_range r;
    a.lo = 9 * S;
    b.hi = 12 * S;
    ls_hold_range_of(&a, &b, &r);
    CHECK_INT(r.lo, 0);
    CHECK_INT(r.hi, 13 * S - 9 * S);
    CHECK_INT(r.est, S);
}

static void test_overlap(void)
{
    CHECK(ls_ranges_overlap(0, 10, 10, 20));
    CHECK(!ls_ranges_overlap(0, 9, 10, 20));
    CHECK(ls_ranges_overlap(5, 6, 0, 20));
    CHECK(!ls_ranges_overlap(21, 30, 0, 20));
}

int main(void)
{
    test_frac();
    test_within_second();
    test_crossing();
    test_exact_edges();
    test_bounds();
    test_overlap();
    return TEST_REPORT();
}
