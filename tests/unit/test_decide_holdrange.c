/*
 * test_decide_holdrange.c — decide/holdrange.c: a hold's length from
 * whole-second log times. Boundary cases: a hold within one second, one
 * crossing a second boundary, ends exactly on a second's edge, exact
 * (span-timed) ends beside stamped ones, bounds wider than the times,
 * ranges that touch; where each end truly lay: a COMMIT that crossed
 * into the next second (the session's next line), equal seconds, a
 * hold inside one second, back-to-back holds of one row, a hold set
 * aside, an order the evidence contradicts, an empty row.
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


/* The interval of a stamped end: the whole second of its stamp; an exact
 * one: its time. An end without a next line of its session ends within
 * its second. */
static void test_when_second(void)
{
    ls_hold_edge a = sec(10 * S), b = sec(10 * S);
    ls_hold_when w;
    ls_hold_when_of(&a, &b, LS_NO_NEXT, &w);
    CHECK_INT(w.start.lo, 10 * S);
    CHECK_INT(w.start.hi, 11 * S);
    CHECK_INT(w.end.lo, 10 * S);
    CHECK_INT(w.end.hi, 11 * S);
    CHECK_INT(w.aside, 0);
    a = exact(10 * S + 300 * MS);
    b = exact(10 * S + 310 * MS);
    ls_hold_when_of(&a, &b, 12 * S, &w);
    CHECK_INT(w.start.lo, 10 * S + 300 * MS);
    CHECK_INT(w.start.hi, 10 * S + 300 * MS);
    CHECK_INT(w.end.lo, 10 * S + 310 * MS);
    CHECK_INT(w.end.hi, 10 * S + 310 * MS); /* exact: no next line widens it */
}

/*
 * A COMMIT logged at 10 s that returned 1.7 ms into 11 s, its session's
 * next statement logged at 11 s (samples/blind-py, pid 10461's at
 * 08:12:09, next line 08:12:11, two seconds later there): the end lies
 * before the next line's second ends, 12 s, not 11 s. A next line in the
 * same second: 11 s. A bound the evidence gave (the first waiter
 * acquired at 10 s, end 9 s): the earlier of it and the next line.
 */
static void test_when_next_line(void)
{
    ls_hold_edge a = sec(10 * S), b = sec(10 * S);
    ls_hold_when w;
    ls_hold_range r;
    ls_hold_when_of(&a, &b, 11 * S + S, &w);
    CHECK_INT(w.end.lo, 10 * S);
    CHECK_INT(w.end.hi, 12 * S);
    CHECK(w.end.lo <= 11 * S + 1700 && 11 * S + 1700 <= w.end.hi);
    ls_hold_range_when(&a, &b, &w, &r);
    CHECK_INT(r.lo, 0);
    CHECK_INT(r.hi, 2 * S);
    CHECK_INT(r.est, 0);
    ls_hold_when_of(&a, &b, 10 * S + S, &w);
    CHECK_INT(w.end.hi, 11 * S);
    a = sec(8 * S);
    b = sec(9 * S);
    b.hi = 10 * S;
    ls_hold_when_of(&a, &b, 12 * S + S, &w);
    CHECK_INT(w.end.hi, 11 * S);
    ls_hold_when_of(&a, &b, 10 * S + S, &w);
    CHECK_INT(w.end.hi, 11 * S);
    ls_hold_when_of(&a, &b, 9 * S + S, &w);
    CHECK_INT(w.end.hi, 10 * S);
}

/* A start no later than the end: an exact end early in the start's
 * second caps the start's interval there. */
static void test_when_start_before_end(void)
{
    ls_hold_edge a = sec(10 * S), b = exact(10 * S + 200 * MS);
    ls_hold_when w;
    ls_hold_when_of(&a, &b, LS_NO_NEXT, &w);
    CHECK_INT(w.start.lo, 10 * S);
    CHECK_INT(w.start.hi, 10 * S + 200 * MS);
}

/* Holds of one row: h[i] stamped (s[i], e[i]) seconds, each's own
 * intervals, then the row's order. */
static void row_of(ls_hold_when *h, const int64_t (*se)[2], size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        ls_hold_edge a = sec(se[i][0] * S), b = sec(se[i][1] * S);
        ls_hold_when_of(&a, &b, LS_NO_NEXT, &h[i]);
    }
    ls_hold_when_row(h, n);
}

/*
 * Back to back: A 10 s .. 12 s, then B 12 s .. 12 s: B took the row no
 * earlier than A's COMMIT line, 12 s (its own stamp said so too); then C
 * logged its statement at 11 s (it queued) and its COMMIT at 13 s: C
 * began no earlier than B's end, 12 s, not at 11 s; its end no earlier
 * than its start. Ends are not moved by the next start (A's stays at
 * [12 s, 13 s]).
 */
static void test_row_back_to_back(void)
{
    static const int64_t se[3][2] = {{10, 12}, {12, 12}, {11, 13}};
    ls_hold_when h[3];
    ls_hold_range r;
    ls_hold_edge a = sec(11 * S), b = sec(13 * S);
    row_of(h, se, 3);
    CHECK_INT(h[0].start.lo, 10 * S);
    CHECK_INT(h[1].start.lo, 12 * S);
    CHECK_INT(h[2].start.lo, 12 * S);
    CHECK_INT(h[2].start.hi, 12 * S);
    CHECK_INT(h[2].end.lo, 13 * S);
    CHECK_INT(h[0].end.lo, 12 * S);
    CHECK_INT(h[0].end.hi, 13 * S);
    /* C's length: at least 1 s (13 s - 12 s), at most 2 s (14 s - 12 s), where
     * its own stamps allowed 1 s .. 3 s */
    ls_hold_range_when(&a, &b, &h[2], &r);
    CHECK_INT(r.lo, S);
    CHECK_INT(r.hi, 2 * S);
    CHECK_INT(r.est, S + S / 2);
}

/* Equal seconds: three holds of one row all stamped 10 s: none moves (each
 * began no earlier than 10 s, which it did), each [0, 1 s]. A hold inside
 * one second after one that ended in an earlier second: unchanged. */
static void test_row_equal_seconds(void)
{
    static const int64_t se[4][2] = {{9, 9}, {10, 10}, {10, 10}, {10, 10}};
    ls_hold_when h[4];
    size_t i;
    row_of(h, se, 4);
    for (i = 1; i < 4; i++) {
        CHECK_INT(h[i].start.lo, 10 * S);
        CHECK_INT(h[i].start.hi, 11 * S);
        CHECK_INT(h[i].end.lo, 10 * S);
        CHECK_INT(h[i].end.hi, 11 * S);
    }
}

/* A hold set aside (an error ended it; or a failed statement's) neither
 * narrows the next nor is narrowed: B follows A directly. */
static void test_row_aside(void)
{
    ls_hold_edge a = sec(10 * S), b = sec(12 * S), c = sec(11 * S), d = sec(11 * S),
                 e = sec(11 * S), f = sec(13 * S);
    ls_hold_when h[3];
    ls_hold_when_of(&a, &b, LS_NO_NEXT, &h[0]);
    ls_hold_when_of(&c, &d, LS_NO_NEXT, &h[1]);
    ls_hold_when_of(&e, &f, LS_NO_NEXT, &h[2]);
    h[0].aside = 1;
    ls_hold_when_row(h, 3);
    CHECK_INT(h[0].start.lo, 10 * S);
    CHECK_INT(h[1].start.lo, 11 * S);
    CHECK_INT(h[2].start.lo, 11 * S); /* from h[1]'s end, 11 s: not h[0]'s 12 s */
    h[0].aside = 0;
    h[1].aside = 1;
    ls_hold_when_row(h, 3);
    CHECK_INT(h[1].start.lo, 11 * S);
    CHECK_INT(h[2].start.lo, 12 * S); /* from h[0]'s end */
}

/* A start moved later moves the end's floor with it: B stamped 11 s ..
 * 11 s after a hold whose COMMIT line was stamped 12 s (B's own COMMIT
 * line came first in the log, its release did not) began at 12 s, so it
 * ended no earlier than 12 s. */
static void test_row_end_follows_start(void)
{
    static const int64_t se[2][2] = {{10, 12}, {11, 11}};
    ls_hold_when h[2];
    row_of(h, se, 2);
    CHECK_INT(h[1].start.lo, 12 * S);
    CHECK_INT(h[1].end.lo, 12 * S);
    CHECK_INT(h[1].end.hi, 12 * S);
}

/* An order the evidence contradicts (the hold before ended at 14 s, the
 * next began by 12 s): the narrowing would leave nothing, so it is not
 * made. An empty row: nothing (and nothing read). */
static void test_row_contradiction(void)
{
    static const int64_t se[2][2] = {{10, 14}, {11, 11}};
    ls_hold_when h[2];
    row_of(h, se, 2);
    CHECK_INT(h[1].start.lo, 11 * S);
    CHECK_INT(h[1].start.hi, 12 * S);
    CHECK_INT(h[1].end.lo, 11 * S);
    ls_hold_when_row(NULL, 0);
    ls_hold_when_row(h, 1);
    CHECK_INT(h[0].start.lo, 10 * S);
    CHECK_INT(h[0].end.hi, 15 * S);
}

static void test_overlap(void)
{
    CHECK(ls_ranges_overlap(0, 10, 10, 20));
    CHECK(!ls_ranges_overlap(0, 9, 10, 20));
    CHECK(ls_ranges_overlap(5, 6, 0, 20));
    CHECK(!ls_ranges_overlap(21, 30, 0, 20));
}

/* A path's holds of one row fit in the row's span less the other paths'
 * least (samples/blind-java: warehouses id=1, 49 holds of 0 to 2 s each
 * by reserveShipment, 7 by recountShelf, in a 39 s log). */
static void test_row_cap(void)
{
    /* 98 s allowed by the holds, the row spans 39 s, the others took 1 s */
    CHECK_INT(ls_hold_row_cap(0, 98 * S, 1 * S, 39 * S), 38 * S);
    /* the holds' own hi is the tighter: it stands; at the boundary equal */
    CHECK_INT(ls_hold_row_cap(0, 20 * S, 1 * S, 39 * S), 20 * S);
    CHECK_INT(ls_hold_row_cap(0, 38 * S, 1 * S, 39 * S), 38 * S);
    CHECK_INT(ls_hold_row_cap(0, 38 * S + 1, 1 * S, 39 * S), 38 * S);
    /* the path's own lo counts once (all_lo includes it) */
    CHECK_INT(ls_hold_row_cap(5 * S, 98 * S, 6 * S, 39 * S), 38 * S);
    /* never below the path's lo, even where the evidence contradicts */
    CHECK_INT(ls_hold_row_cap(5 * S, 98 * S, 50 * S, 39 * S), 5 * S);
}

int main(void)
{
    test_within_second();
    test_crossing();
    test_unbiased();
    test_exact_edges();
    test_bounds();
    test_overlap();
    test_when_second();
    test_when_next_line();
    test_when_start_before_end();
    test_row_back_to_back();
    test_row_equal_seconds();
    test_row_aside();
    test_row_end_follows_start();
    test_row_contradiction();
    test_row_cap();
    return TEST_REPORT();
}
