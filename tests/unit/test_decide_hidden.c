/*
 * test_decide_hidden.c — decide/hidden.c: a statement's queueing merged
 * with its logged wait. Boundary cases first: ends that differ by exactly
 * the tolerance (LS_LOGGED_AGREE_MS, and LS_LOGGED_AGREE_FRAC of a long
 * wait), equal starts, no reconstruction.
 */
#include "decide/hidden.h"
#include "decide/tolerances.h"
#include "ls_test.h"

#define MS 1000

static ls_logged_span logged(int64_t start, int64_t end, int tx_wait)
{
    ls_logged_span l;
    l.start_ts = start;
    l.end_ts = end;
    l.ms = (double)(end - start) / MS;
    l.tx_wait = tx_wait;
    return l;
}

static ls_queue_result rec(int64_t start, int64_t end)
{
    ls_queue_result r;
    r.start_ts = start;
    r.end_ts = end;
    r.behind = 0;
    return r;
}

static void test_tolerance(void)
{
    ls_hidden_wait w;
    ls_logged_span l = logged(100 * MS, 200 * MS, 1); /* 100 ms: 25 ms tolerance */
    ls_queue_result r = rec(50 * MS, 225 * MS);

    /* Exactly the tolerance off: agrees (>, not >=); 1 us more: not. */
    ls_hidden_logged_wait(&r, &l, 0, &w);
    CHECK_INT(w.disagree, 0);
    r.end_ts = 225 * MS + 1;
    ls_hidden_logged_wait(&r, &l, 0, &w);
    CHECK_INT(w.disagree, 1);
    r.end_ts = 175 * MS;
    ls_hidden_logged_wait(&r, &l, 0, &w);
    CHECK_INT(w.disagree, 0);
    r.end_ts = 175 * MS - 1;
    ls_hidden_logged_wait(&r, &l, 0, &w);
    CHECK_INT(w.disagree, 1);
    /* A long logged wait: LS_LOGGED_AGREE_FRAC of it (1000 ms: 100 ms). */
    l = logged(0, 1000 * MS, 1);
    r = rec(0, 1100 * MS);
    ls_hidden_logged_wait(&r, &l, 0, &w);
    CHECK_INT(w.disagree, 0);
    r.end_ts = 1100 * MS + 1;
    ls_hidden_logged_wait(&r, &l, 0, &w);
    CHECK_INT(w.disagree, 1);
}

static void test_merge(void)
{
    ls_hidden_wait w;
    ls_logged_span l = logged(100 * MS, 200 * MS, 1);
    ls_queue_result r = rec(50 * MS, 260 * MS);

    /* A transaction wait logged: its end stands; the earlier start wins. */
    ls_hidden_logged_wait(&r, &l, 0, &w);
    CHECK_INT(w.start_ts, 50 * MS);
    CHECK_INT(w.end_ts, 200 * MS);
    CHECK(w.ms == 150.0);
    /* ... unless the statement's end is logged: a later reconstructed
     * end is the race its waiter lost after the transaction ended
     * (samples/blind-pool pid 21503, events id=1: logged to .877, the
     * hold before it ended at 28.184). */
    ls_hidden_logged_wait(&r, &l, 1, &w);
    CHECK_INT(w.end_ts, 260 * MS);
    CHECK(w.ms == 210.0);
    r.end_ts = 200 * MS + 1; /* 1 us later: it stands */
    ls_hidden_logged_wait(&r, &l, 1, &w);
    CHECK_INT(w.end_ts, 200 * MS + 1);
    r.end_ts = 200 * MS; /* equal, or earlier: the logged end */
    ls_hidden_logged_wait(&r, &l, 1, &w);
    CHECK_INT(w.end_ts, 200 * MS);
    r.end_ts = 190 * MS;
    ls_hidden_logged_wait(&r, &l, 1, &w);
    CHECK_INT(w.end_ts, 200 * MS);
    CHECK_INT(w.start_ts, 50 * MS);
    r.end_ts = 260 * MS;
    /* Only a tuple lock logged: the later reconstructed end stands. */
    l.tx_wait = 0;
    ls_hidden_logged_wait(&r, &l, 0, &w);
    CHECK_INT(w.end_ts, 260 * MS);
    CHECK(w.ms == 210.0);
    /* ... but not an earlier one. */
    r.end_ts = 190 * MS;
    ls_hidden_logged_wait(&r, &l, 0, &w);
    CHECK_INT(w.end_ts, 200 * MS);
    /* A reconstruction starting after the log's first message: the log's
     * start; at the same time: that time. */
    r = rec(120 * MS, 200 * MS);
    ls_hidden_logged_wait(&r, &l, 0, &w);
    CHECK_INT(w.start_ts, 100 * MS);
    r.start_ts = 100 * MS;
    ls_hidden_logged_wait(&r, &l, 0, &w);
    CHECK_INT(w.start_ts, 100 * MS);
    /* No reconstruction: the logged wait alone, never a disagreement. */
    ls_hidden_logged_wait(NULL, &l, 0, &w);
    CHECK_INT(w.start_ts, 100 * MS);
    CHECK_INT(w.end_ts, 200 * MS);
    CHECK_INT(w.disagree, 0);
    CHECK(w.ms == 100.0);
}

/* An unlogged wait reconstructed from whole-second stamps is no longer
 * than what a logged wait had waited at its first line (deadlock_timeout):
 * samples/blind-py, an INSERT stamped 08:12:06 whose trigger queued for
 * merchant_totals behind a COMMIT stamped 08:12:07 (1000 ms from the
 * stamps; 107 ms by the client's clock; the log's shortest "after" 200.05
 * ms). */
static void test_unlogged(void)
{
    const int64_t S = LS_WHOLE_SECOND_US, dt = 200050;

    /* whole seconds: [6 s, 7 s) becomes [7 s - dt, 7 s) */
    CHECK_INT(ls_hidden_unlogged_start(6 * S, 7 * S, S, dt), 7 * S - dt);
    /* exactly the bound long, or shorter: unchanged; 1 us longer: cut */
    CHECK_INT(ls_hidden_unlogged_start(7 * S - dt, 7 * S, S, dt), 7 * S - dt);
    CHECK_INT(ls_hidden_unlogged_start(7 * S - dt - 1, 7 * S, S, dt), 7 * S - dt);
    CHECK_INT(ls_hidden_unlogged_start(7 * S - 5 * MS, 7 * S, S, dt), 7 * S - 5 * MS);
    /* stamps to the millisecond: the reconstruction stands */
    CHECK_INT(ls_hidden_unlogged_start(6 * S, 7 * S, LS_MILLISECOND_US, dt), 6 * S);
    /* no logged wait, nothing known: unchanged */
    CHECK_INT(ls_hidden_unlogged_start(6 * S, 7 * S, S, 0), 6 * S);
    /* an empty or reversed wait is left alone */
    CHECK_INT(ls_hidden_unlogged_start(7 * S, 7 * S, S, dt), 7 * S);
    CHECK_INT(ls_hidden_unlogged_start(8 * S, 7 * S, S, dt), 8 * S);
}

/* A statement whose duration is logged is not bounded by deadlock_timeout
 * (its wait is no longer than the statement); one whose duration is not
 * logged is (samples/blind-java: a FOR UPDATE on warehouses id=1 with a
 * 5820.7 ms duration queued behind several holders in turn, no wait
 * logged; the log's shortest "after" 1000.071 ms). */
static void test_unlogged_bound(void)
{
    const int64_t S = LS_WHOLE_SECOND_US, dt = 1000071;

    CHECK_INT(ls_hidden_unlogged_bound(1, dt), 0);
    CHECK_INT(ls_hidden_unlogged_bound(0, dt), dt);
    CHECK_INT(ls_hidden_unlogged_bound(0, 0), 0);
    /* the FOR UPDATE's 5.82 s stand with its duration logged, are cut to
     * deadlock_timeout without */
    CHECK_INT(
        ls_hidden_unlogged_start(10 * S, 10 * S + 5820710, S, ls_hidden_unlogged_bound(1, dt)),
        10 * S);
    CHECK_INT(
        ls_hidden_unlogged_start(10 * S, 10 * S + 5820710, S, ls_hidden_unlogged_bound(0, dt)),
        10 * S + 5820710 - dt);
}

/* Logged waits' start: whole seconds take the later of the first and the
 * closing lines' implied starts (samples/blind-py, pid 10474: "still
 * waiting ... after 200.078 ms" at 08:12:06, "acquired ... after 329.959
 * ms" at 08:12:07). */
static void test_logged_start(void)
{
    const int64_t S = LS_WHOLE_SECOND_US, first = 6 * S - 200078, closed = 7 * S - 329959;

    CHECK_INT(ls_hidden_logged_start(first, 1, closed, S), closed);
    /* equal, or the closing line implies an earlier start: the first */
    CHECK_INT(ls_hidden_logged_start(first, 1, first, S), first);
    CHECK_INT(ls_hidden_logged_start(first, 1, first - 1, S), first);
    CHECK_INT(ls_hidden_logged_start(first, 1, first + 1, S), first + 1);
    /* no closing line (a wait still open at the log's end): the first */
    CHECK_INT(ls_hidden_logged_start(first, 0, closed, S), first);
    /* sub-second stamps: the episodes pass's earliest start stands */
    CHECK_INT(ls_hidden_logged_start(first, 1, closed, LS_MILLISECOND_US), first);
}

/* The hold evidences of blind-pool's report (its jsonlog with the OTLP
 * export): which statements' starts are known. */
static void test_stmt_start_known(void)
{
    /* a logged locking statement, whatever the evidence */
    CHECK(ls_hidden_stmt_start_known(1, "end of the locking statement") == 1);
    CHECK(ls_hidden_stmt_start_known(1, NULL) == 1);
    /* a statement a span timed: the span's start */
    CHECK(ls_hidden_stmt_start_known(0, "end of its statement's span (statement not logged)") == 1);
    CHECK(ls_hidden_stmt_start_known(0, "spans only: end of its statement's span (no statement "
                                        "of its transaction logged)") == 1);
    /* no statement: bounded by the transaction's start */
    CHECK(ls_hidden_stmt_start_known(0, "bounded by transaction start and first wait") == 0);
    CHECK(ls_hidden_stmt_start_known(0, "first wait for the holder's transaction") == 0);
    CHECK(ls_hidden_stmt_start_known(0, NULL) == 0);
}

/* Whole seconds, the logged waits' exact length known (samples/correlation
 * cut to %t, tx 24 on stock row 5: "acquired ... after 1420.126 ms", 1100
 * ms of stamps; its statement's wait spans 1421.674 ms). */
static void test_exact_wait(void)
{
    const int64_t S = LS_WHOLE_SECOND_US;
    /* a timed statement: what the span says beyond the exact length */
    CHECK(ls_hidden_exact_wait_ms(1422.0, 1420.0, 1, S) == 1422.0);
    /* the span exactly the exact length, or shorter: the exact length */
    CHECK(ls_hidden_exact_wait_ms(1420.0, 1420.0, 1, S) == 1420.0);
    CHECK(ls_hidden_exact_wait_ms(1100.0, 1420.0, 1, S) == 1420.0);
    /* a statement's start only its whole-second stamp: the excess over a
     * tick (1 s), none up to it */
    CHECK(ls_hidden_exact_wait_ms(2420.0, 1420.0, 0, S) == 1420.0);
    CHECK(ls_hidden_exact_wait_ms(2420.5, 1420.0, 0, S) == 1420.5);
    CHECK(ls_hidden_exact_wait_ms(1900.0, 1420.0, 0, S) == 1420.0);
    /* millisecond stamps: the span's excess, untimed or not */
    CHECK(ls_hidden_exact_wait_ms(1425.0, 1420.0, 0, LS_MILLISECOND_US) == 1425.0);
}

/* A hold's tick: its statement's evidence's. */
static void test_wait_resolution(void)
{
    /* %t with traces: a line whole seconds, a span-timed one the spans' */
    CHECK_INT(ls_hidden_wait_resolution(LS_MILLISECOND_US, LS_WHOLE_SECOND_US, 0),
              LS_WHOLE_SECOND_US);
    CHECK_INT(ls_hidden_wait_resolution(LS_MILLISECOND_US, LS_WHOLE_SECOND_US, 1),
              LS_MILLISECOND_US);
    /* one tick everywhere: that, whatever the evidence */
    CHECK_INT(ls_hidden_wait_resolution(LS_WHOLE_SECOND_US, LS_WHOLE_SECOND_US, 1),
              LS_WHOLE_SECOND_US);
    CHECK_INT(ls_hidden_wait_resolution(LS_MILLISECOND_US, LS_MILLISECOND_US, 0),
              LS_MILLISECOND_US);
}

/* Whole-second lines, a statement its span timed (samples/blind-pool %t +
 * traces, times from second 64 of the store; tx 8, a check-in's INSERT
 * whose trigger waited on event_totals event_id=1: "acquired ... after
 * 263.865 ms" stamped 65, its span 64.944684-65.423784, truth 478.4 ms;
 * from the lines 1077.7 ms before). */
static void test_span_timed(void)
{
    const int64_t S = LS_WHOLE_SECOND_US;
    ls_logged_span l = logged(798597, 1000000, 0);
    ls_hidden_wait w;

    /* the span inside the lines' ticks: its times */
    ls_hidden_span_timed_wait(&l, S, 944684, 1423784, 263.865, &w);
    CHECK_INT(w.start_ts, 944684);
    CHECK_INT(w.end_ts, 1423784);
    CHECK(w.ms == 479.1);
    CHECK_INT(w.disagree, 0);
    /* the span's end past the acquired line's second: that second's end */
    ls_hidden_span_timed_wait(&l, S, 944684, 2000001, 263.865, &w);
    CHECK_INT(w.end_ts, 2000000);
    CHECK_INT(w.disagree, 0);
    ls_hidden_span_timed_wait(&l, S, 944684, 2000000, 263.865, &w);
    CHECK_INT(w.end_ts, 2000000);
    /* the span's end at the acquired line's stamp: fits, and the wait is
     * never shorter than the "after"s */
    ls_hidden_span_timed_wait(&l, S, 944684, 1000000, 263.865, &w);
    CHECK_INT(w.disagree, 0);
    CHECK_INT(w.end_ts, 1000000);
    CHECK(w.ms == 263.865);
    /* a start one tick after the logged wait's: not its statement; one
     * microsecond less: it fits */
    ls_hidden_span_timed_wait(&l, S, 798597 + S - 1, 1900000, 0.0, &w);
    CHECK_INT(w.disagree, 0);
    ls_hidden_span_timed_wait(&l, S, 798597 + S, 1900000, 0.0, &w);
    CHECK_INT(w.disagree, 1);
    /* an end before the acquired line's second: not its statement */
    ls_hidden_span_timed_wait(&l, S, 944684, 999999, 0.0, &w);
    CHECK_INT(w.disagree, 1);
    CHECK_INT(w.end_ts, 999999);
    /* tx 273: a wait logged 82.796-83 ("after 206.42 ms") linked to a
     * statement whose span is 84.611684-84.862851 (truth 249.5 ms; 2042.7
     * ms from the lines): the span alone, not clamped */
    l = logged(82796149 - 64 * S, 83000000 - 64 * S, 0);
    ls_hidden_span_timed_wait(&l, S, 84611684 - 64 * S, 84862851 - 64 * S, 206.42, &w);
    CHECK_INT(w.disagree, 1);
    CHECK_INT(w.start_ts, 84611684 - 64 * S);
    CHECK_INT(w.end_ts, 84862851 - 64 * S);
    CHECK(w.ms == 251.167);
}

int main(void)
{
    test_stmt_start_known();
    test_logged_start();
    test_tolerance();
    test_merge();
    test_exact_wait();
    test_wait_resolution();
    test_span_timed();
    test_unlogged();
    test_unlogged_bound();
    return TEST_REPORT();
}
