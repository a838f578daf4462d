/*
 * test_correlate.c — pure functions of correlation outside decide/: ctid
 * chains and the application clock's offset. (The decisions under
 * src/correlate/decide/ have a test file each: test_decide_*.c.)
 */
#include "correlate_int.h"
#include "ls_test.h"

#define S 1000000 /* one second in µs */

/* The application clock's offset: the range most waits' spans agree on. */
static void test_span_offset(void)
{
    /* Three waits agree on [295, 305] ms; a wrong span of the same pid
     * gives [-900, -890]; the second wait's span is a little longer. */
    int64_t lo[] = {290 * 1000, -900 * 1000, 295 * 1000, 280 * 1000};
    int64_t hi[] = {310 * 1000, -890 * 1000, 305 * 1000, 320 * 1000};
    int64_t off = 0;
    CHECK_INT(ls_span_offset(lo, hi, 4, &off), 3);
    CHECK_INT(off, 300 * 1000);
    CHECK_INT(ls_span_offset(lo + 1, hi + 1, 1, &off), 1);
    CHECK_INT(off, -895 * 1000);
    off = 7;
    CHECK_INT(ls_span_offset(lo, hi, 0, &off), 0);
    CHECK_INT(off, 7);
}

static void test_ctid_nearest(void)
{
    /* Waits on one row version (s): keyed at 1 and 5 (twice at 5), not at
     * 0, 2, 4, 5, 30. 2 is nearer 1; 4 nearer 5 (the first keyed at 5);
     * 3 ties between 1 and 5 and takes the earlier; 30 is beyond the
     * window of 10 s; 0 takes 1. */
    int64_t ts[] = {0, 1, 2, 3, 4, 5, 5, 5, 30};
    int keyed[] = {0, 1, 0, 0, 0, 1, 1, 0, 0};
    long near[9];
    size_t i;
    for (i = 0; i < 9; i++)
        ts[i] *= 1000000;
    ls_ctid_nearest(ts, keyed, 9, 10 * 1000000, near);
    CHECK_INT(near[0], 1);
    CHECK_INT(near[1], -1); /* keyed: its own key */
    CHECK_INT(near[2], 1);
    CHECK_INT(near[3], 1);
    CHECK_INT(near[4], 5);
    CHECK_INT(near[7], 5);
    CHECK_INT(near[8], -1);
    /* The window's edge is in it. */
    ls_ctid_nearest(ts + 5, keyed + 5, 4, 25 * 1000000, near);
    CHECK_INT(near[3], 0);
    ls_ctid_nearest(ts, keyed, 0, 1, near);
}

/*
 * The offset from logged statements (no logged wait): statements the
 * database saw inside the spans that sent them, the application's clock
 * 300 ms ahead; each statement's text also ran in other spans (other
 * requests, seconds away), which give intervals no other statement shares.
 */
static void test_statement_offset(void)
{
    enum { N = 6 };
    /* database clock, ms: a duration line's start and end; the last was
     * logged by log_statement alone (its start only) */
    int64_t db0[N] = {1000, 2500, 2600, 4000, 7000, 9000};
    int64_t db1[N] = {1012, 2540, 2601, 4003, 7090, 9000};
    int64_t lo[3 * N], hi[3 * N], off = 0;
    int i, n = 0;

    for (i = 0; i < N; i++) {
        /* the span that sent it: from 2 ms before to 1 ms after, 300 ms ahead */
        int64_t a = (db0[i] - 2 + 300) * 1000, b = (db1[i] + 1 + 300) * 1000;
        int64_t d = 1000 * (i + 1);
        CHECK(ls_span_offset_interval(db0[i] * 1000, db1[i] * 1000, a, b, &lo[n], &hi[n]) == 0);
        n++;
        /* the same text in requests before and after it */
        if (ls_span_offset_interval(db0[i] * 1000, db1[i] * 1000, a - d * 1000, b - d * 1000,
                                    &lo[n], &hi[n]) == 0)
            n++;
        if (ls_span_offset_interval(db0[i] * 1000, db1[i] * 1000, a + 2 * d * 1000,
                                    b + 2 * d * 1000, &lo[n], &hi[n]) == 0)
            n++;
    }
    CHECK_INT(ls_span_offset(lo, hi, n, &off), N);
    CHECK(off >= -301 * 1000 && off <= -299 * 1000);
    /* a span shorter than the statement cannot have sent it */
    CHECK(ls_span_offset_interval(1000000, 1090000, 0, 50000, &lo[0], &hi[0]) == -1);
    /* an interval is the offsets that put the statement inside the span */
    CHECK(ls_span_offset_interval(1000000, 1010000, 1300000 - 5000, 1310000 + 5000, &lo[0],
                                  &hi[0]) == 0);
    CHECK_INT(lo[0], -305000 - 1000);
    CHECK_INT(hi[0], -295000 + 1000);
}

int main(void)
{
    test_ctid_nearest();
    test_span_offset();
    test_statement_offset();
    return TEST_REPORT();
}
