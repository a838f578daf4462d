/*
 * test_decide_holdrange.c — decide/holdrange.c: a hold's length from
 * whole-second log times. Boundary cases: a hold within one second, one
 * crossing a second boundary, ends exactly on a second's edge, exact
 * (span-timed) ends beside stamped ones, bounds wider than the times,
 * ranges that touch.
 */
#include "decide/holdrange.h"
#include "ls_test.h"

#define S 1000000 /* one second in µs */
#define MS 1000

static ls_hold_edge sec(int64_t t)
{
    ls_hold_edge e;
    e.ts = e.lo = e.hi = t;
    e.res = S;
    return e;
}

static ls_hold_edge exact(int64_t t)
{
    ls_hold_edge e;
    e.ts = e.lo = e.hi = t;
    e.res = 0;
    return e;
}

/* Within one second: the range [0, 1 s], the estimate 0 (the stamps'
 * difference). */
static void test_within_second(void)
{
    ls_hold_edge a = sec(10 * S), b = sec(10 * S);
    ls_hold_range r;
    ls_hold_range_of(&a, &b, &r);
    CHECK_INT(r.lo, 0);
    CHECK_INT(r.hi, S);
    CHECK_INT(r.est, 0);
}

/* Crossing one boundary: [0, 2 s], estimate 1 s; two seconds apart: at
 * least 1 s (the start's second ended, the end's began), at most 3 s. */
static void test_crossing(void)
{
    ls_hold_edge a = sec(10 * S), b = sec(11 * S);
    ls_hold_range r;
    ls_hold_range_of(&a, &b, &r);
    CHECK_INT(r.lo, 0);
    CHECK_INT(r.hi, 2 * S);
    CHECK_INT(r.est, S);
    b = sec(12 * S);
    ls_hold_range_of(&a, &b, &r);
    CHECK_INT(r.lo, S);
    CHECK_INT(r.hi, 3 * S);
    CHECK_INT(r.est, 2 * S);
}

/*
 * The estimate is unbiased over where a hold falls in its seconds: a 2 ms
 * hold started at each millisecond of a second crosses the boundary in 2
 * of 1,000 placements; the estimates sum to 2 s over the 1,000, 2 ms each
 * on average.
 */
static void test_unbiased(void)
{
    int64_t sum = 0, t;
    for (t = 0; t < S; t += MS) {
        int64_t t0 = 10 * S + t, t1 = t0 + 2 * MS;
        ls_hold_edge a = sec(t0 - t0 % S), b = sec(t1 - t1 % S);
        ls_hold_range r;
        ls_hold_range_of(&a, &b, &r);
        CHECK(r.lo <= 2 * MS && 2 * MS <= r.hi);
        sum += r.est;
    }
    CHECK_INT(sum, 2 * S);
}

/* Exact ends (a span's): the length itself; an exact start 1 µs before a
 * stamped end's second: the range opens at that second's start. */
static void test_exact_edges(void)
{
    ls_hold_edge a = exact(10 * S + 999 * MS), b = exact(11 * S + 1 * MS);
    ls_hold_range r;
    ls_hold_range_of(&a, &b, &r);
    CHECK_INT(r.lo, 2 * MS);
    CHECK_INT(r.hi, 2 * MS);
    CHECK_INT(r.est, 2 * MS);
    a = exact(11 * S - 1);
    b = sec(11 * S);
    ls_hold_range_of(&a, &b, &r);
    CHECK_INT(r.lo, 1);
    CHECK_INT(r.hi, S + 1);
    CHECK_INT(r.est, S / 2 + 1);
    /* a stamped start and an exact end early in the same second: the
     * estimate (-400 ms) kept at the range's floor */
    a = sec(11 * S);
    b = exact(11 * S + 100 * MS);
    ls_hold_range_of(&a, &b, &r);
    CHECK_INT(r.lo, 0);
    CHECK_INT(r.hi, 100 * MS);
    CHECK_INT(r.est, 0);
    /* ... late in it: 400 ms */
    b = exact(11 * S + 900 * MS);
    ls_hold_range_of(&a, &b, &r);
    CHECK_INT(r.hi, 900 * MS);
    CHECK_INT(r.est, 400 * MS);
}

/* Bounds wider than the times: a start bounded in [9 s, 10 s] by the
 * evidence, an end bounded by the first waiter's acquisition at 12 s. */
static void test_bounds(void)
{
    ls_hold_edge a = sec(10 * S), b = sec(11 * S);
    ls_hold_range r;
    a.lo = 9 * S;
    b.hi = 12 * S;
    ls_hold_range_of(&a, &b, &r);
    CHECK_INT(r.lo, 0);
    CHECK_INT(r.hi, 4 * S);
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
    test_within_second();
    test_crossing();
    test_unbiased();
    test_exact_edges();
    test_bounds();
    test_overlap();
    return TEST_REPORT();
}
