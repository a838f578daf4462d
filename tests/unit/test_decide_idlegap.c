/*
 * test_decide_idlegap.c — decide/idlegap.c: a head's silence in a log
 * without durations, by time and by log position, at its boundaries; no
 * silence without a wait on the transaction, with a wait of the holder's
 * own, or with N before L; the idle rule's sums of such holds. With
 * durations, a hold waited for below deadlock_timeout only
 * (ls_idle_span_*): its estimate and bounds at a whole-second and a
 * millisecond resolution, which holds count, and the path's sum held
 * within its bounds. The times are those of samples/blind-java's
 * reserveShipment (hold of warehouses id=1 by pid 14680, postgresql.log
 * lines 875-1596: the SELECT ... FOR UPDATE logged at :24 with 0.025 ms,
 * the UPDATE at :25 with 0.049 ms, bind 0.038, parse 0.043, the COMMIT at
 * :25 with 0.033 ms, bind 0.006).
 */
#include <math.h>

#include "decide/idlegap.h"
#include "decide/tolerances.h"
#include "ls_test.h"

#define MS LS_MILLISECOND_US
#define SEC LS_WHOLE_SECOND_US
/* An arbitrary time of the log (µs). */
#define T0 INT64_C(1796566411000000)

/* A millisecond log: L at T0, a wait on its transaction from T0 + 5 ms,
 * N at T0 + 600 ms, nothing logged between by position. */
static ls_idle_gap_in ms_gap(void)
{
    ls_idle_gap_in in;
    in.lock_ts = T0;
    in.next_ts = T0 + 600 * MS;
    in.has_tx_wait = 1;
    in.tx_wait_ts = T0 + 5 * MS;
    in.logged_wait_ms = NAN;
    in.own_wait = 0;
    in.resolution = MS;
    return in;
}

static void test_by_time(void)
{
    ls_idle_gap_in in = ms_gap();

    /* From the first wait on the transaction (L had written the row),
     * less one resolution: 600 - 5 - 1 ms. */
    CHECK_INT(ls_idle_gap_silence_us(&in), 594 * MS);
    /* A wait on the transaction that began before L's logged start (the
     * stamp late): from L. */
    in.tx_wait_ts = T0 - 3 * MS;
    CHECK_INT(ls_idle_gap_silence_us(&in), 599 * MS);
    /* N one resolution after the wait began: nothing known. */
    in = ms_gap();
    in.next_ts = in.tx_wait_ts + MS;
    CHECK_INT(ls_idle_gap_silence_us(&in), 0);
    in.next_ts = in.tx_wait_ts + MS + 1;
    CHECK_INT(ls_idle_gap_silence_us(&in), 1);
}

static void test_refused(void)
{
    ls_idle_gap_in in = ms_gap();

    in.has_tx_wait = 0; /* nothing says L had written the row */
    CHECK_INT(ls_idle_gap_silence_us(&in), 0);
    in = ms_gap();
    in.own_wait = 1; /* the holder was queued itself */
    CHECK_INT(ls_idle_gap_silence_us(&in), 0);
    in = ms_gap();
    in.next_ts = in.lock_ts - 1; /* N before L: not a gap */
    in.logged_wait_ms = 300;
    CHECK_INT(ls_idle_gap_silence_us(&in), 0);
}

/* Whole seconds (%t): L at :31, N at :32; the stamps cannot show a
 * silence, the log's order can (a wait on the transaction said "still
 * waiting after 102.516 ms" on a line between L's and N's). */
static void test_by_position(void)
{
    ls_idle_gap_in in = ms_gap();

    in.resolution = SEC;
    in.lock_ts = T0;
    in.next_ts = T0 + SEC;
    in.tx_wait_ts = T0 + SEC - 102516;
    CHECK_INT(ls_idle_gap_silence_us(&in), 0);
    in.logged_wait_ms = 102.516;
    CHECK_INT(ls_idle_gap_silence_us(&in), 102516);
    in.logged_wait_ms = 0; /* nothing waited yet */
    CHECK_INT(ls_idle_gap_silence_us(&in), 0);
    /* The longer of the two bounds: by time when N is seconds later. */
    in.logged_wait_ms = 102.516;
    in.next_ts = T0 + 3 * SEC;
    CHECK_INT(ls_idle_gap_silence_us(&in), 3 * SEC - (SEC - 102516) - SEC);
}

static void test_add(void)
{
    ls_idle_heads p;

    ls_finding_idle_start(&p);
    CHECK_INT(p.gap_holds, 0);
    /* Below the idle floor, and below the waiting floor: not counted. */
    CHECK_INT(ls_idle_gap_add(&p, 500, (int64_t)(LS_FINDING_IDLE_MIN_UNEXPLAINED_MS * MS) - 1,
                              NAN, 900, T0, T0 + SEC, 3), 0);
    CHECK_INT(ls_idle_gap_add(&p, LS_FINDING_IDLE_MIN_WAITER_MS - 0.001, 400 * MS, NAN, 900, T0,
                              T0 + SEC, 3), 0);
    CHECK_INT(p.holds, 0);
    /* At the floors: counted. */
    CHECK_INT(ls_idle_gap_add(&p, LS_FINDING_IDLE_MIN_WAITER_MS,
                              (int64_t)(LS_FINDING_IDLE_MIN_UNEXPLAINED_MS * MS), NAN, 300, T0,
                              T0 + SEC, 1), 1);
    /* A trace span explains all but 20 ms of a 400 ms silence: not idle. */
    CHECK_INT(ls_idle_gap_add(&p, 500, 400 * MS, 20, 900, T0, T0 + SEC, 3), 0);
    /* ... all but 70 ms: 70 ms idle. */
    CHECK_INT(ls_idle_gap_add(&p, 500, 400 * MS, 70, 900, T0 + 5 * SEC, T0 + 6 * SEC, 4), 1);
    /* The longest silence is kept with its bounds and waits. */
    CHECK_INT(ls_idle_gap_add(&p, 200, 300 * MS, NAN, 350, T0 + 9 * SEC, T0 + 10 * SEC, 2), 1);
    CHECK_INT(p.holds, 3);
    CHECK_INT(p.gap_holds, 3);
    CHECK(fabs(p.unexplained_ms - (LS_FINDING_IDLE_MIN_UNEXPLAINED_MS + 70 + 300)) < 1e-9);
    CHECK(fabs(p.gap_ms - 300) < 1e-9);
    CHECK_INT(p.gap_from, T0 + 9 * SEC);
    CHECK_INT(p.gap_to, T0 + 10 * SEC);
    CHECK_INT(p.gap_waits, 2);
    CHECK(fabs(p.max_hold_ms - 900) < 1e-9);
    /* A hold counted from its durations is no silence. */
    CHECK_INT(ls_finding_idle_add(&p, 500, 1000, 2000), 1);
    CHECK_INT(p.gap_holds, 3);
    CHECK(fabs(p.gap_ms - 300) < 1e-9);
}

/* blind-java's hold: L ends at :24 (its stamp), C starts at :25 less
 * 0.033 ms, the UPDATE between and C's bind took 0.136 ms. */
static ls_idle_span_in java_span(void)
{
    ls_idle_span_in in;
    in.lock_end = T0;
    in.last_start = T0 + SEC - 33;
    in.busy_us = 49 + 38 + 43 + 6;
    in.resolution = SEC;
    return in;
}

static void test_span_bound(void)
{
    ls_idle_span_in in = java_span();
    ls_idle_span b;

    /* 999.831 ms, known within a second either way: 0 to 1999.831 ms. */
    ls_idle_span_bound(&in, &b);
    CHECK_INT(b.est, SEC - 33 - 136);
    CHECK_INT(b.lo, 0);
    CHECK_INT(b.hi, 2 * SEC - 33 - 136);
    /* Two seconds apart: at least one second. */
    in.last_start += SEC;
    ls_idle_span_bound(&in, &b);
    CHECK_INT(b.lo, SEC - 33 - 136);
    /* C in L's second: the estimate below 0 (kept: the sums need it), the
     * bounds 0 and what is left of the second. */
    in = java_span();
    in.last_start = T0 - 33;
    ls_idle_span_bound(&in, &b);
    CHECK_INT(b.est, -33 - 136);
    CHECK_INT(b.lo, 0);
    CHECK_INT(b.hi, SEC - 33 - 136);
    /* Exactly one resolution of doubt below 0: nothing at all. */
    in.resolution = 169;
    ls_idle_span_bound(&in, &b);
    CHECK_INT(b.hi, 0);
    /* A millisecond log: the bounds one millisecond either side. */
    in = java_span();
    in.resolution = MS;
    ls_idle_span_bound(&in, &b);
    CHECK_INT(b.lo, SEC - 33 - 136 - MS);
    CHECK_INT(b.hi, SEC - 33 - 136 + MS);
}

/* A hold's idle, one definition (ls_idle_window): samples/realistic's
 * accounts.deposit, its %t log's contended window 100.758 ms (first wait
 * to the COMMIT's stamp), 0.395 ms of SQL and 0.159 ms of COMMIT; its
 * csvlog says 783.998 ms idle while others waited. */
static void test_window(void)
{
    ls_idle_span b;

    ls_idle_window(100758, 395 + 159, SEC, &b);
    CHECK_INT(b.est, 100204);
    CHECK_INT(b.lo, 0);
    CHECK_INT(b.hi, SEC + 100204);
    CHECK(b.lo <= 783998 && 783998 <= b.hi);
    /* stored as it is on a whole-second log, below 0 too */
    CHECK_INT(ls_idle_stored_us(&b), 100204);
    ls_idle_window(1000, 1044, SEC, &b);
    CHECK_INT(ls_idle_stored_us(&b), -44);
    CHECK_INT(b.lo, 0);
    CHECK_INT(b.hi, SEC - 44);
    /* a millisecond log: never below 0, as the holds pass always stored */
    ls_idle_window(1000, 1044, MS, &b);
    CHECK_INT(ls_idle_stored_us(&b), 0);
    CHECK_INT(b.hi, MS - 44);
    ls_idle_window(5 * MS, MS, MS, &b);
    CHECK_INT(ls_idle_stored_us(&b), 4 * MS);
    CHECK_INT(b.lo, 3 * MS);
    CHECK_INT(b.hi, 5 * MS);
    /* no resolution (the holds pass's state): the estimate, never below 0 */
    ls_idle_window(100, 150, 0, &b);
    CHECK_INT(b.lo, 0);
    CHECK_INT(b.hi, 0);
}

/* A wait on the holder's transaction logged before its end raises the
 * lower bound (ls_idle_at_least_waited): samples/realistic's %t
 * accounts.deposit, its waiter's "still waiting ... after 100.758 ms"
 * before its COMMIT, its statements from the one that took the row
 * 0.999 ms in all. */
static void test_at_least_waited(void)
{
    ls_idle_span b;

    ls_idle_window(100204, 0, SEC, &b);
    ls_idle_at_least_waited(&b, 100.758, 999);
    CHECK_INT(b.lo, 99759);
    CHECK_INT(b.hi, SEC + 100204);
    CHECK_INT(b.est, 100204); /* the estimate stays: sums of it are unbiased */
    /* no wait, or the holder's statements not all timed: as it was */
    ls_idle_window(100204, 0, SEC, &b);
    ls_idle_at_least_waited(&b, NAN, 999);
    CHECK_INT(b.lo, 0);
    ls_idle_at_least_waited(&b, 100.758, -1);
    CHECK_INT(b.lo, 0);
    /* a bound below the stamps' changes nothing */
    ls_idle_window(1500 * MS, 0, SEC, &b);
    ls_idle_at_least_waited(&b, 300, 0);
    CHECK_INT(b.lo, 500 * MS);
    /* never above the stamps' upper bound (samples/i18n's refunds, had
     * its waiter's "acquired ... after 2131.737 ms", logged after the
     * victim's ROLLBACK, been read) */
    ls_idle_window(102373, 0, SEC, &b);
    ls_idle_at_least_waited(&b, 2131.737, 1284);
    CHECK_INT(b.lo, b.hi);
}

static void test_span_sum(void)
{
    ls_idle_heads p;
    ls_idle_span b;

    ls_finding_idle_start(&p);
    b.resolution = SEC; /* a whole-second log's, but where said */
    /* Its upper bound under the idle floor: not counted. */
    b.est = -300 * MS;
    b.lo = 0;
    b.hi = (int64_t)(LS_FINDING_IDLE_MIN_UNEXPLAINED_MS * MS) - 1;
    CHECK_INT(ls_idle_span_add(&p, 500, &b, NAN, 1000), 0);
    /* Too little waiting behind it: not counted (the hidden waiting
     * floor, above the idle rule's own). */
    b.est = 600 * MS;
    b.hi = 1600 * MS;
    CHECK_INT(ls_idle_span_add(&p, LS_FINDING_IDLE_MIN_WAITER_MS - 0.001, &b, NAN, 1000), 0);
    CHECK_INT(ls_idle_span_add(&p, LS_FINDING_HIDDEN_MIN_MS - 0.001, &b, NAN, 1000), 0);
    /* ... nor with its upper bound under that floor (samples/i18n's
     * checkout: 99 ms idle, 297 ms of waiting caused). */
    b.est = 99 * MS;
    b.hi = 100 * MS;
    CHECK_INT(ls_idle_span_add(&p, 297, &b, NAN, 1000), 0);
    b.hi = (int64_t)(LS_FINDING_HIDDEN_MIN_MS * MS) - 1;
    CHECK_INT(ls_idle_span_add(&p, 297, &b, NAN, 1000), 0);
    CHECK_INT(p.holds, 0);
    b.est = 600 * MS;
    b.hi = 1600 * MS;
    /* Counted: an estimate of 600 ms, and one of -200 ms (its second
     * said less than its statements took): 400 ms in all, 0 to 2.4 s. */
    CHECK_INT(ls_idle_span_add(&p, 500, &b, NAN, 1000), 1);
    b.est = -200 * MS;
    b.hi = 800 * MS;
    CHECK_INT(ls_idle_span_add(&p, LS_FINDING_HIDDEN_MIN_MS, &b, NAN, 2000), 1);
    CHECK_INT(p.holds, 2);
    CHECK(fabs(p.waiter_ms - 500 - LS_FINDING_HIDDEN_MIN_MS) < 1e-9);
    CHECK(fabs(p.max_hold_ms - 2000) < 1e-9);
    CHECK(fabs(p.span_hi_ms - 2400) < 1e-9);
    CHECK(fabs(p.span_var_ms2 - 2.0 * 1000 * 1000 / 6) < 1e-6);
    ls_idle_span_finish(&p);
    /* ... but 400 ms over two holds of whole seconds is what the stamps'
     * rounding alone may make (2 sigma = 1155 ms): the path drops. */
    CHECK_INT(p.holds, 0);
    /* The same two on a millisecond log: 400 ms, 0 to 2.4 s. */
    ls_finding_idle_start(&p);
    b.resolution = MS;
    b.est = 600 * MS;
    b.hi = 1600 * MS;
    CHECK_INT(ls_idle_span_add(&p, 500, &b, NAN, 1000), 1);
    b.est = -200 * MS;
    b.hi = 800 * MS;
    CHECK_INT(ls_idle_span_add(&p, LS_FINDING_HIDDEN_MIN_MS, &b, NAN, 2000), 1);
    ls_idle_span_finish(&p);
    CHECK_INT(p.holds, 2);
    CHECK(fabs(p.unexplained_ms - 400) < 1e-9);
    CHECK(fabs(p.span_hi_ms - 2400) < 1e-9);
    /* One hold of 749 ms on a whole-second log (samples/pgbench-hot-hold
     * read with %t: bounds 0 to 1.7 s; 2 sigma = 816 ms): no evidence. */
    ls_finding_idle_start(&p);
    b.resolution = SEC;
    b.est = 749 * MS;
    b.lo = 0;
    b.hi = 1749 * MS;
    CHECK_INT(ls_idle_span_add(&p, 500, &b, NAN, 1000), 1);
    ls_idle_span_finish(&p);
    CHECK_INT(p.holds, 0);
    /* Thirty of 1 s each (samples/blind-java's reserveShipment: 30 s in
     * all, 2 sigma = 4.5 s): idle, by far. */
    ls_finding_idle_start(&p);
    b.est = SEC;
    b.hi = 2 * SEC;
    for (int i = 0; i < 30; i++)
        CHECK_INT(ls_idle_span_add(&p, 500, &b, NAN, 1000), 1);
    ls_idle_span_finish(&p);
    CHECK_INT(p.holds, 30);
    CHECK(fabs(p.unexplained_ms - 30000) < 1e-6);
    /* ... and just at the edge: the sum less 2 sigma at the floor a
     * hold stays, a microsecond under it drops. */
    {
        double two_sigma = 2.0 * sqrt(4.0 * 1000.0 * 1000.0 / 6.0);
        double at = 4 * LS_FINDING_IDLE_MIN_UNEXPLAINED_MS + two_sigma;

        for (int under = 0; under <= 1; under++) {
            ls_finding_idle_start(&p);
            for (int i = 0; i < 4; i++) {
                b.est = (int64_t)ceil(at * MS / 4) - (under && i == 0 ? 4 : 0);
                b.hi = b.est + SEC;
                CHECK_INT(ls_idle_span_add(&p, 500, &b, NAN, 1000), 1);
            }
            ls_idle_span_finish(&p);
            CHECK_INT(p.holds, under ? 0 : 4);
        }
    }
    b.resolution = 0; /* exact times below: the floor alone decides */
    /* A sum under the sum of the lower bounds is raised to it. */
    ls_finding_idle_start(&p);
    b.est = -900 * MS;
    b.lo = 100 * MS;
    b.hi = 1100 * MS;
    CHECK_INT(ls_idle_span_add(&p, 500, &b, NAN, 1000), 1);
    ls_idle_span_finish(&p);
    CHECK(fabs(p.unexplained_ms - 100) < 1e-9);
    /* A sum under the floor a hold, with no other hold: the path drops. */
    ls_finding_idle_start(&p);
    b.est = (int64_t)(LS_FINDING_IDLE_MIN_UNEXPLAINED_MS * MS) - 1;
    b.lo = 0;
    CHECK_INT(ls_idle_span_add(&p, 500, &b, NAN, 1000), 1);
    ls_idle_span_finish(&p);
    CHECK_INT(p.holds, 0);
    /* ... at the floor it stays. */
    ls_finding_idle_start(&p);
    b.est = (int64_t)(LS_FINDING_IDLE_MIN_UNEXPLAINED_MS * MS);
    CHECK_INT(ls_idle_span_add(&p, 500, &b, NAN, 1000), 1);
    ls_idle_span_finish(&p);
    CHECK_INT(p.holds, 1);
    /* ... and with a hold idle by its logged wait the path keeps both. */
    ls_finding_idle_start(&p);
    b.est = 0;
    CHECK_INT(ls_idle_span_add(&p, 500, &b, NAN, 1000), 1);
    CHECK_INT(ls_finding_idle_add(&p, 500, 999, 1000), 1);
    ls_idle_span_finish(&p);
    CHECK_INT(p.holds, 2);
    CHECK(fabs(p.unexplained_ms - 999) < 1e-9);
    /* A trace span explains all but 150 ms: not counted; all but 250 ms:
     * the estimate and bounds capped. */
    ls_finding_idle_start(&p);
    b.est = 600 * MS;
    b.lo = 0;
    b.hi = 1600 * MS;
    CHECK_INT(ls_idle_span_add(&p, 500, &b, 150, 1000), 0);
    CHECK_INT(ls_idle_span_add(&p, 500, &b, 250, 1000), 1);
    CHECK(fabs(p.span_ms - 250) < 1e-9);
    CHECK(fabs(p.span_hi_ms - 250) < 1e-9);
}

/*
 * The stamps' rounding margin (ls_idle_above_rounding), and a head the
 * holds pass found idle in transaction (ls_idle_known_add) on it. The
 * holds are those of the samples' whole-second reads (tools/compare_reports.sh's
 * -t cuts, and %t logs; issue 34): samples/blind-java's reserveShipment
 * (warehouses id=1, 999.6 ms idle by its stamps, 3035.2 ms of waiting
 * caused; the app slept 200-1000 ms on the carrier's API holding the row),
 * samples/trigger-paths' shop-checkout read with %t (999.9 ms by its
 * stamps, 113.9 ms caused; its %m log, lock at line 2382, says 114.9 ms
 * idle: a second's boundary fell in it).
 */
static void test_known(void)
{
    ls_idle_heads p;
    double sec_var = ls_idle_rounding_var_ms2(SEC), ms_var = ls_idle_rounding_var_ms2(MS);
    /* 2 sigma of one hold's rounding at a whole second: 816.5 ms. */
    double sec_at = LS_FINDING_IDLE_MIN_UNEXPLAINED_MS + 2.0 * sqrt(1000.0 * 1000.0 / 6.0);
    double ms_at = LS_FINDING_IDLE_MIN_UNEXPLAINED_MS + 2.0 * sqrt(1.0 / 6.0);

    CHECK(fabs(sec_var - 1000.0 * 1000.0 / 6.0) < 1e-6);
    CHECK(fabs(ms_var - 1.0 / 6.0) < 1e-12);
    CHECK(ls_idle_rounding_var_ms2(0) == 0);
    CHECK(ls_idle_rounding_var_ms2(-1) == 0);
    /* The floor itself with exact times; a microsecond under it, not. */
    CHECK_INT(ls_idle_above_rounding(LS_FINDING_IDLE_MIN_UNEXPLAINED_MS, 0, 1), 1);
    CHECK_INT(ls_idle_above_rounding(LS_FINDING_IDLE_MIN_UNEXPLAINED_MS - 0.001, 0, 1), 0);
    CHECK_INT(ls_idle_above_rounding(NAN, 0, 1), 0);
    /* One hold at a whole second: 866.5 ms and up. */
    CHECK_INT(ls_idle_above_rounding(sec_at + 0.001, sec_var, 1), 1);
    CHECK_INT(ls_idle_above_rounding(sec_at - 0.001, sec_var, 1), 0);
    /* ... at a millisecond: 50.82 ms and up. */
    CHECK_INT(ls_idle_above_rounding(ms_at + 0.001, ms_var, 1), 1);
    CHECK_INT(ls_idle_above_rounding(ms_at - 0.001, ms_var, 1), 0);
    /* n holds: n floors, and 2 sigma of their sum (sqrt(n) a hold's). */
    {
        double four = 4 * LS_FINDING_IDLE_MIN_UNEXPLAINED_MS + 2.0 * sqrt(4 * sec_var);

        CHECK_INT(ls_idle_above_rounding(four + 0.001, 4 * sec_var, 4), 1);
        CHECK_INT(ls_idle_above_rounding(four - 0.001, 4 * sec_var, 4), 0);
    }

    ls_finding_idle_start(&p);
    /* blind-java's reserveShipment on its %t log: counted, as it was. */
    CHECK_INT(ls_idle_known_add(&p, 3035.2, 999.6, 1000, SEC), 1);
    /* trigger-paths' shop-checkout read with %t: counted too (the %m log
     * says it idled, 114.9 ms). */
    CHECK_INT(ls_idle_known_add(&p, 113.9, 999.9, 1000, SEC), 1);
    /* Held apart until the path's sum decides. */
    CHECK_INT(p.holds, 0);
    CHECK_INT(p.known_holds, 2);
    ls_idle_span_finish(&p);
    CHECK_INT(p.holds, 2);
    CHECK(fabs(p.unexplained_ms - 1999.5) < 1e-9);
    CHECK(fabs(p.waiter_ms - 3149.1) < 1e-9);

    /* A hold counts on its upper bound (est + r): at a second one read
     * 0 (or below: only the signed sum is unbiased) may have idled; at a
     * millisecond the floor less one. */
    ls_finding_idle_start(&p);
    CHECK_INT(ls_idle_known_add(&p, 500, LS_FINDING_IDLE_MIN_UNEXPLAINED_MS - 1000, 1000, SEC),
              1);
    CHECK_INT(
        ls_idle_known_add(&p, 500, LS_FINDING_IDLE_MIN_UNEXPLAINED_MS - 1000.001, 1000, SEC), 0);
    CHECK_INT(ls_idle_known_add(&p, 500, LS_FINDING_IDLE_MIN_UNEXPLAINED_MS - 1, 1000, MS), 1);
    CHECK_INT(ls_idle_known_add(&p, 500, LS_FINDING_IDLE_MIN_UNEXPLAINED_MS - 1.001, 1000, MS),
              0);
    /* The waiter floor still decides; NaN (unknown) never counts. */
    CHECK_INT(ls_idle_known_add(&p, LS_FINDING_IDLE_MIN_WAITER_MS - 0.001, 999.9, 1000, SEC), 0);
    CHECK_INT(ls_idle_known_add(&p, NAN, 999.9, 1000, SEC), 0);
    CHECK_INT(ls_idle_known_add(&p, 500, NAN, 1000, MS), 0);
    CHECK_INT(p.known_holds, 2);

    /* One hold: just above the margin it stays, just under it, nothing;
     * at a second and at a millisecond. */
    ls_finding_idle_start(&p);
    ls_idle_known_add(&p, 500, sec_at + 0.001, 1000, SEC);
    ls_idle_span_finish(&p);
    CHECK_INT(p.holds, 1);
    ls_finding_idle_start(&p);
    ls_idle_known_add(&p, 500, sec_at - 0.001, 1000, SEC);
    ls_idle_span_finish(&p);
    CHECK_INT(p.holds, 0);
    CHECK(p.unexplained_ms == 0);
    ls_finding_idle_start(&p);
    ls_idle_known_add(&p, 500, ms_at + 0.001, 1000, MS);
    ls_idle_span_finish(&p);
    CHECK_INT(p.holds, 1);
    ls_finding_idle_start(&p);
    ls_idle_known_add(&p, 500, ms_at - 0.001, 1000, MS);
    ls_idle_span_finish(&p);
    CHECK_INT(p.holds, 0);
    /* 600 ms idle: evidence at a millisecond (samples/correlation's
     * billing, 603.9 ms, 597.1 ms caused), not at a whole second. */
    ls_finding_idle_start(&p);
    ls_idle_known_add(&p, 597.1, 603.9, 604, MS);
    ls_idle_span_finish(&p);
    CHECK_INT(p.holds, 1);
    ls_finding_idle_start(&p);
    ls_idle_known_add(&p, 597.1, 603.9, 604, SEC);
    ls_idle_span_finish(&p);
    CHECK_INT(p.holds, 0);

    /* samples/trigger-paths' shop-checkout in its %t cut: of 90 holds
     * idle about 130 ms each (11.9 s by its %m log), 13 read a second
     * (999.9 ms less its COMMIT) and 77 read 0 (-0.1 ms); clipped at 0
     * and counted one by one, the 13 made 13 s; summed signed, all 90:
     * 13.0 s, 2 sigma 7.7 s, its range 5.3 to 20.7 s holds 11.9 s. */
    ls_finding_idle_start(&p);
    for (int i = 0; i < 90; i++)
        CHECK_INT(ls_idle_known_add(&p, 300, i < 13 ? 999.9 : -0.1, 1000, SEC), 1);
    ls_idle_span_finish(&p);
    CHECK_INT(p.holds, 90);
    CHECK(fabs(p.unexplained_ms - (13 * 999.9 - 77 * 0.1)) < 1e-6);
    {
        double lo, hi, m = 2.0 * sqrt(90 * sec_var);
        ls_idle_range(&p, &lo, &hi);
        CHECK(fabs(lo - (p.unexplained_ms - m)) < 1e-6);
        CHECK(fabs(hi - (p.unexplained_ms + m)) < 1e-6);
        CHECK(lo < 11917.6 && 11917.6 < hi);
    }

}

/* The known heads' count of holds whose logged wait raised the lower
 * bound (findings_sum.c's "Of those, N holds idle at least ..."): only a
 * raise counts, a bound at or below the stamps' is not one (m12-15). */
static void test_known_waited(void)
{
    ls_idle_heads p;

    ls_finding_idle_start(&p);
    /* samples/realistic's %t accounts.deposit (test_at_least_waited):
     * raised from 0 to 99.759 ms */
    CHECK_INT(ls_idle_known_add_waited(&p, 500, 100.204, 100.204, SEC, 100.758, 999), 1);
    CHECK_INT(p.waited_holds, 1);
    CHECK(fabs(p.waited_lo_ms - 99.759) < 1e-9);
    CHECK(fabs(p.known_lo_ms - 99.759) < 1e-9);
    /* a waited bound below the stamps' 500 ms: counted, not raised */
    CHECK_INT(ls_idle_known_add_waited(&p, 500, 1500, 1500, SEC, 300, 0), 1);
    CHECK_INT(p.waited_holds, 1);
    CHECK(fabs(p.known_lo_ms - 599.759) < 1e-9);
    /* no wait read: not raised either */
    CHECK_INT(ls_idle_known_add(&p, 500, 1500, 1500, SEC), 1);
    CHECK_INT(p.known_holds, 3);
    CHECK_INT(p.waited_holds, 1);
    CHECK(fabs(p.waited_lo_ms - 99.759) < 1e-9);
}

int main(void)
{
    test_known();
    test_span_bound();
    test_window();
    test_at_least_waited();
    test_span_sum();
    test_by_time();
    test_refused();
    test_by_position();
    test_add();
    test_known_waited();
    return TEST_REPORT();
}
