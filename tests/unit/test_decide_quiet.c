/*
 * test_decide_quiet.c — decide/quiet.c: did a keyed statement queue,
 * unlogged, behind another transaction's hold of its key, and is that
 * enough to make the key a row? Boundaries: a statement that starts
 * exactly at the other hold's end, 4.9 vs 5.0 ms, FOR SHARE among FOR
 * SHARE, the same transaction's second statement. Whole seconds
 * (ls_quiet_line_lo/hi, ls_quiet_bounded_us): lines in the same second,
 * adjacent seconds, bounds tightened by a session's durations, the 5 ms
 * limit, A == B's transaction, A's lines after b's. By excess duration
 * (ls_quiet_excess_us): A's end exactly on b's session's previous line
 * or on b's line, 4.999 vs 5 ms beyond the text's fastest run.
 */
#include "decide/quiet.h"
#include "decide/tolerances.h"
#include "ls_test.h"

#include <stdint.h>

#define MS 1000

static void test_times(void)
{
    /* tx 1 got the row at 100 ms and committed at 200 ms */
    ls_quiet_hold h = {1, 100 * MS, 200 * MS, 0};
    ls_quiet_stmt s = {2, 150 * MS, 210 * MS, 0};
    CHECK_INT(ls_quiet_queued_us(&h, &s), 50 * MS);
    /* started exactly at the hold's end: the row was free */
    s.start_ts = 200 * MS;
    CHECK_INT(ls_quiet_queued_us(&h, &s), 0);
    s.start_ts = 200 * MS - 1;
    CHECK_INT(ls_quiet_queued_us(&h, &s), 1);
    /* started exactly when the hold got the row: behind it */
    s.start_ts = 100 * MS;
    CHECK_INT(ls_quiet_queued_us(&h, &s), 100 * MS);
    /* started before the hold got it: it was first, not behind */
    s.start_ts = 100 * MS - 1;
    CHECK_INT(ls_quiet_queued_us(&h, &s), 0);
    /* ended before the hold was freed: it never had the row then (no
     * conflict, or another key): no queueing */
    s.start_ts = 150 * MS;
    s.end_ts = 200 * MS - 1;
    CHECK_INT(ls_quiet_queued_us(&h, &s), 0);
    /* ended exactly when it was freed (the stamps' tie): queued */
    s.end_ts = 200 * MS;
    CHECK_INT(ls_quiet_queued_us(&h, &s), 50 * MS);
}

static void test_same_tx_and_shared(void)
{
    ls_quiet_hold h = {7, 100 * MS, 200 * MS, 0};
    ls_quiet_stmt s = {7, 150 * MS, 210 * MS, 0};
    /* the same transaction's second statement does not queue behind itself */
    CHECK_INT(ls_quiet_queued_us(&h, &s), 0);
    s.tx = 8;
    /* FOR SHARE among FOR SHARE does not queue */
    h.shared = s.shared = 1;
    CHECK_INT(ls_quiet_queued_us(&h, &s), 0);
    /* a shared lock and an exclusive one do, either way round */
    s.shared = 0;
    CHECK_INT(ls_quiet_queued_us(&h, &s), 50 * MS);
    h.shared = 0;
    s.shared = 1;
    CHECK_INT(ls_quiet_queued_us(&h, &s), 50 * MS);
}

static void test_threshold(void)
{
    ls_quiet_hold h = {1, 0, 100 * MS, 0};
    ls_quiet_stmt s = {2, 100 * MS - 4900, 101 * MS, 0};
    CHECK_INT(LS_HOT_HIDDEN_MIN_US, 5 * MS);
    /* 4.9 ms: not a row; 5.0 ms: a row */
    CHECK_INT(ls_quiet_makes_row(ls_quiet_queued_us(&h, &s), 1), 0);
    s.start_ts = 100 * MS - 5000;
    CHECK_INT(ls_quiet_makes_row(ls_quiet_queued_us(&h, &s), 1), 1);
    /* whole seconds: no queueing under a second is known */
    CHECK_INT(ls_quiet_makes_row(ls_quiet_queued_us(&h, &s), 0), 0);
    CHECK_INT(ls_quiet_makes_row(900 * MS, 0), 0);
}

#define SEC 1000000LL

static void test_line_bounds(void)
{
    /* alone: the stamp's second */
    CHECK_INT(ls_quiet_line_lo(10 * SEC, INT64_MIN, INT64_MIN, 0), 10 * SEC);
    CHECK_INT(ls_quiet_line_hi(10 * SEC, SEC, INT64_MAX, INT64_MAX), 11 * SEC);
    /* the line before was later in its second than this stamp says */
    CHECK_INT(ls_quiet_line_lo(10 * SEC, 10 * SEC + 300 * MS, INT64_MIN, 0), 10 * SEC + 300 * MS);
    /* a statement of 800 ms whose session's previous line was at >= 10.1 s */
    CHECK_INT(ls_quiet_line_lo(10 * SEC, 10 * SEC, 10 * SEC + 100 * MS, 800 * MS),
              10 * SEC + 900 * MS);
    /* the line after is at <= 10.5 s; the session's next statement, of
     * 900 ms, ended by 11 s: it began, after this line, by 10.1 s */
    CHECK_INT(ls_quiet_line_hi(10 * SEC, SEC, 10 * SEC + 500 * MS, INT64_MAX), 10 * SEC + 500 * MS);
    CHECK_INT(ls_quiet_line_hi(10 * SEC, SEC, 11 * SEC, 11 * SEC - 900 * MS), 10 * SEC + 100 * MS);
}

static void test_bounded(void)
{
    /* a (pos 1) and c (pos 5) of tx 1, b (pos 9) of tx 2 */
    ls_quiet_bounded q = {1, 2, 0, 1, 5, 9, 10 * SEC, 11 * SEC, 900 * MS};
    /* same second, stamps alone: c may be at 10.999 s, b's end at
     * 10.999 s, b began 900 ms before: nothing proven */
    CHECK_INT(ls_quiet_bounded_us(&q), 0);
    /* a duration over the second: its excess is certain */
    q.b_dur = SEC + 5 * MS;
    CHECK_INT(ls_quiet_bounded_us(&q), 5 * MS);
    CHECK_INT(ls_quiet_bounded_makes_row(ls_quiet_bounded_us(&q)), 1);
    q.b_dur = SEC + 4900;
    CHECK_INT(ls_quiet_bounded_makes_row(ls_quiet_bounded_us(&q)), 0);
    /* adjacent seconds: c in 10, b in 11 (hi 12 s): 2 s of doubt */
    q.b_hi = 12 * SEC;
    q.b_dur = 2 * SEC + 5 * MS;
    CHECK_INT(ls_quiet_bounded_us(&q), 5 * MS);
    q.b_dur = SEC + 5 * MS;
    CHECK_INT(ls_quiet_bounded_us(&q), 0);
    /* bounds tightened by durations (test_line_bounds): c at >= 10.9 s,
     * b at <= 11.1 s: a 205 ms statement queued 5 ms, a 204.9 ms one is
     * not proven to */
    q.c_lo = 10 * SEC + 900 * MS;
    q.b_hi = 11 * SEC + 100 * MS;
    q.b_dur = 205 * MS;
    CHECK_INT(ls_quiet_bounded_us(&q), 5 * MS);
    CHECK_INT(ls_quiet_bounded_makes_row(ls_quiet_bounded_us(&q)), 1);
    q.b_dur = 205 * MS - 100;
    CHECK_INT(ls_quiet_bounded_makes_row(ls_quiet_bounded_us(&q)), 0);
    q.b_dur = 300 * MS;
    CHECK_INT(ls_quiet_bounded_us(&q), 100 * MS);
    /* A == B's transaction: its own hold */
    q.tx_b = 1;
    CHECK_INT(ls_quiet_bounded_us(&q), 0);
    q.tx_b = 2;
    /* FOR SHARE among FOR SHARE */
    q.both_shared = 1;
    CHECK_INT(ls_quiet_bounded_us(&q), 0);
    q.both_shared = 0;
    /* A freed it after b's line (b never waited for A's end), or got it
     * after (b may have had the row first) */
    q.c_pos = 10;
    CHECK_INT(ls_quiet_bounded_us(&q), 0);
    q.c_pos = 5;
    q.a_pos = 10;
    CHECK_INT(ls_quiet_bounded_us(&q), 0);
    q.a_pos = 1;
    CHECK_INT(ls_quiet_bounded_us(&q), 100 * MS);
}

/* samples/blind-php/postgresql.log.gz, 18:46:27 (whole seconds, every
 * statement with its duration; positions are the store's log order of
 * statement lines): pid 11891's SELECT ... FROM products WHERE id = $1
 * FOR UPDATE ($1 = '1', line 3094, pos 1302) and its COMMIT (line 3130,
 * pos 1316); pid 11894's DEALLOCATE (pos 1301), then its bind of the same
 * SELECT for id 1 (line 3098) and its execute "durée : 30.832 ms" (line
 * 3132, pos 1318); the text's fastest run 0.011 ms. The bounds of
 * test_bounded prove nothing (the second holds ~800 lines). */
static void test_excess(void)
{
    ls_quiet_excess q = {2106, 2138, 0, 1302, 1316, 1318, 1301, 30832, 11, 1};
    CHECK_INT(ls_quiet_excess_us(&q), 30821);
    CHECK_INT(ls_quiet_excess_makes_row(ls_quiet_excess_us(&q)), 1);
    /* 5 ms beyond the fastest run is enough, 4.999 ms is not */
    q.b_dur = 5 * MS + 11;
    CHECK_INT(ls_quiet_excess_makes_row(ls_quiet_excess_us(&q)), 1);
    q.b_dur = 5 * MS + 10;
    CHECK_INT(ls_quiet_excess_makes_row(ls_quiet_excess_us(&q)), 0);
    /* no faster than its fastest: nothing */
    q.b_dur = 11;
    CHECK_INT(ls_quiet_excess_us(&q), 0);
    q.b_dur = 30832;
    /* A's end on or before b's session's previous line: b may have
     * started after it */
    q.c_pos = 1301;
    CHECK_INT(ls_quiet_excess_us(&q), 0);
    q.c_pos = 1300;
    CHECK_INT(ls_quiet_excess_us(&q), 0);
    /* A's end on or after b's line: b ended before A freed the row */
    q.c_pos = 1318;
    CHECK_INT(ls_quiet_excess_us(&q), 0);
    q.c_pos = 1317;
    CHECK_INT(ls_quiet_excess_us(&q), 30821);
    /* A got the row after b's line */
    q.a_pos = 1319;
    CHECK_INT(ls_quiet_excess_us(&q), 0);
    q.a_pos = 1302;
    /* b's session's first statement (no previous line) */
    q.b_prev_pos = -1;
    CHECK_INT(ls_quiet_excess_us(&q), 30821);
    /* its own transaction; FOR SHARE among FOR SHARE */
    q.tx_b = 2106;
    CHECK_INT(ls_quiet_excess_us(&q), 0);
    q.tx_b = 2138;
    q.both_shared = 1;
    CHECK_INT(ls_quiet_excess_us(&q), 0);
    q.both_shared = 0;
    /* a log of slow statements only: neither the previous line nor the
     * fastest run is what the rule needs */
    q.every_statement = 0;
    CHECK_INT(ls_quiet_excess_us(&q), 0);
    q.every_statement = 1;
    CHECK_INT(ls_quiet_excess_us(&q), 30821);
}

/* The latest end as of LS_QUIET_READ_LAG reads ago (ls_quiet_lag_read).
 * The order is samples/blind-java's: stmt 2510 (an execute at line 3615
 * of its postgresql.log, its process's next line 3673) is read after
 * stmt 2506 (line 3665) and the statements between; here the lines
 * after 3615 come after a pause of the server, 20 s later, so the
 * latest end read before 2510 is 20 s after 2510's own end. */
static void test_read_lag(void)
{
    ls_quiet_lag l;
    const int64_t s = 1000000, t0 = 1796624328 * s;
    int64_t plain = INT64_MIN, safe = 0;
    int i;

    ls_quiet_lag_init(&l);
    /* nothing known before LS_QUIET_READ_LAG reads: no key is stale */
    for (i = 0; i < LS_QUIET_READ_LAG; i++)
        CHECK(ls_quiet_lag_read(&l, t0 - 60 * s + i, 1) == INT64_MIN);
    /* then the latest end of the reads LS_QUIET_READ_LAG back, not the last */
    CHECK(ls_quiet_lag_read(&l, t0 - 10 * s, 1) == INT64_MIN);
    CHECK(ls_quiet_lag_read(&l, t0 - 10 * s, 1) == t0 - 60 * s);
    CHECK(ls_quiet_lag_read(&l, t0 - 10 * s, 0) == t0 - 60 * s + 1);

    /* 2510 (ended at t0) read 50 statements after ones logged 20 s later */
    ls_quiet_lag_init(&l);
    for (i = 0; i < 350; i++) {
        int64_t end = i < 300 ? t0 - (300 - i) * 10000 : t0 + 20 * s + i;
        safe = ls_quiet_lag_read(&l, end, 1);
        if (end > plain)
            plain = end;
    }
    /* the running max (what the horizon was measured from before) is
     * 20 s past 2510's end: a key whose holds ended 10 s before 2510's
     * start would have been dropped before 2510 was read */
    CHECK(plain > t0 + 20 * s);
    safe = ls_quiet_lag_read(&l, t0, 1);
    CHECK(safe <= t0);
    /* a statement without an end moves nothing */
    ls_quiet_lag_init(&l);
    for (i = 0; i < LS_QUIET_READ_LAG + 1; i++)
        ls_quiet_lag_read(&l, t0 + i, 0);
    CHECK(ls_quiet_lag_read(&l, t0, 1) == INT64_MIN);
}

int main(void)
{
    test_read_lag();
    test_line_bounds();
    test_bounded();
    test_excess();
    test_times();
    test_same_tx_and_shared();
    test_threshold();
    return TEST_REPORT();
}
