/*
 * test_decide_clock.c — decide/clock.c: the application clock's offset,
 * the range most spans agree on (from test_correlate.c, with the empty
 * and the too-short cases).
 */
#include "decide/clock.h"
#include "decide/tolerances.h"
#include "ls_test.h"

#define S 1000000 /* one second in µs */
#define MS 1000

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
    /* Exactly long enough: the span is the statement's 10 ms less the
     * log's slack at both ends; one microsecond shorter is too short. */
    CHECK(ls_span_offset_interval(1000000, 1010000, 0, 10000 - 2 * LS_SPAN_LOG_SLACK_US,
                                  &lo[0], &hi[0]) == 0);
    CHECK_INT(lo[0], hi[0]);
    CHECK(ls_span_offset_interval(1000000, 1010000, 0, 10000 - 2 * LS_SPAN_LOG_SLACK_US - 1,
                                  &lo[0], &hi[0]) == -1);
}

/* Touching intervals agree at their common point (an interval opens
 * before another closes at the same offset). */
static void test_touching(void)
{
    int64_t lo[] = {0, 10}, hi[] = {10, 20}, off = -1;
    CHECK_INT(ls_span_offset(lo, hi, 2, &off), 2);
    CHECK_INT(off, 10);
}

/* A span's start inside the logged second gives a second-wide range of
 * offsets; statements' ranges meet in a narrow one (the range function
 * gives it, the offset its middle). */
static void test_log_time(void)
{
    int64_t lo[3], hi[3], rlo = 0, rhi = 0, off = 0;

    /* The database received at 0.2, 6.9 and 7.05 s, logged as seconds 0,
     * 6 and 7; the application's clock 300 ms behind (offset +300 ms)
     * started the spans then; slack 1 ms. */
    ls_span_offset_in_log_time(0, S, 200 * MS - 300 * MS, MS, &lo[0], &hi[0]);
    CHECK_INT(lo[0], 99 * MS);
    CHECK_INT(hi[0], 1101 * MS);
    ls_span_offset_in_log_time(6 * S, S, 6900 * MS - 300 * MS, MS, &lo[1], &hi[1]);
    CHECK_INT(lo[1], -601 * MS);
    CHECK_INT(hi[1], 401 * MS);
    ls_span_offset_in_log_time(7 * S, S, 7050 * MS - 300 * MS, MS, &lo[2], &hi[2]);
    CHECK_INT(ls_span_offset_range(lo, hi, 3, &rlo, &rhi), 3);
    CHECK_INT(rlo, 249 * MS);
    CHECK_INT(rhi, 401 * MS);
    CHECK_INT(ls_span_offset(lo, hi, 3, &off), 3);
    CHECK_INT(off, 325 * MS);
    rlo = rhi = 7;
    CHECK_INT(ls_span_offset_range(lo, hi, 0, &rlo, &rhi), 0);
    CHECK_INT(rlo, 7);
}

int main(void)
{
    test_log_time();
    test_span_offset();
    test_statement_offset();
    test_touching();
    return TEST_REPORT();
}
