/*
 * test_decide_victim.c — decide/victim.c: a pooled deadlock victim's
 * failed span and transaction on a whole-second log.
 *
 * The times are samples/blind-pool's (PostgreSQL 17, '%t', pgbouncer):
 * deadlocks 4 (log line 164, victim pid 21502) and 5 (line 206, pid 21504)
 * are both stamped 17:36:05 (1796578565000000 us) and both victims failed
 * on UPDATE "accounts" SET "balance"="balance"+ 5 WHERE "id" = 3. The
 * driver spans of that text that ended in an error around then end, on
 * the database clock (offset -15316 us), at 04.983226 (the victim of
 * 17:36:04's deadlock, trace 015dd808), 05.464090 (trace ddffeb75) and
 * 05.737535 (trace 4f866e39). The truth (truth.json) has 21502's victim
 * in trace ddffeb75, caught at 05.481, and 21504's in 4f866e39 at 05.754.
 */
#include "decide/victim.h"
#include "ls_test.h"

#define SEC 1000000LL
#define TS 1796578565000000LL /* 17:36:05 */
#define SLACK 1000

static void test_span_in_log_order(void)
{
    ls_failed_span f[] = {{1796578564983226LL, 0}, {1796578565464090LL, 0},
                          {1796578565737535LL, 0}};

    /* the 04-second's span ended before this second: not this one's */
    CHECK_INT(ls_victim_span(f, 3, TS, SEC, SLACK), 1);
    f[1].used = 1; /* deadlock 4 took it: deadlock 5 gets the next */
    CHECK_INT(ls_victim_span(f, 3, TS, SEC, SLACK), 2);
    f[2].used = 1;
    CHECK_INT(ls_victim_span(f, 3, TS, SEC, SLACK), -1);
}

/* Second 17:36:12 (deadlocks 22, pid 21503, and 23, pid 21510, both of
 * UPDATE "accounts" SET "balance"="balance"+ 5 WHERE "id" = 3): 21503's
 * span ends at 11.994277 on the database clock as the offset measured on
 * the %t log (-15.3 ms) puts it, 6 ms before the second its deadlock was
 * stamped in (the truth's offset is +0.08 ms); 21510's at 12.212727. */
static void test_span_clock_slack(void)
{
    ls_failed_span f[] = {{1796578571994277LL, 0}, {1796578572212727LL, 0}};
    const int64_t ts = 1796578572000000LL;

    CHECK_INT(ls_victim_span(f, 2, ts, SEC, LS_VICTIM_CLOCK_SLACK_US), 0);
    f[0].used = 1;
    CHECK_INT(ls_victim_span(f, 2, ts, SEC, LS_VICTIM_CLOCK_SLACK_US), 1);
    /* with a millisecond's slack 21503 would take 21510's span */
    f[0].used = 0;
    CHECK_INT(ls_victim_span(f, 2, ts, SEC, SLACK), 1);
}

static void test_span_window_edges(void)
{
    ls_failed_span f[1];

    f[0].used = 0;
    f[0].end = TS - SLACK; /* the earliest end: in */
    CHECK_INT(ls_victim_span(f, 1, TS, SEC, SLACK), 0);
    f[0].end = TS - SLACK - 1;
    CHECK_INT(ls_victim_span(f, 1, TS, SEC, SLACK), -1);
    /* heard up to LS_VICTIM_HEARD_US after the second's end: in */
    f[0].end = TS + SEC + LS_VICTIM_HEARD_US;
    CHECK_INT(ls_victim_span(f, 1, TS, SEC, SLACK), 0);
    f[0].end = TS + SEC + LS_VICTIM_HEARD_US + 1;
    CHECK_INT(ls_victim_span(f, 1, TS, SEC, SLACK), -1);
}

/* The jsonlog of the same run: deadlock 22 (pid 21503) at 12.008; its
 * driver span of the text ends 1.518 ms after the deadlock, the next
 * victim's (deadlock 23, trace e2a38fba, caught at 12.228) 219.968 ms
 * after; both began before it. */
static void test_span_millisecond_next_victim(void)
{
    const int64_t ts = 1796578572008000LL;
    ls_failed_span f[] = {{ts + 1518, 0}, {ts + 219968, 0}};

    CHECK_INT(ls_victim_span(f, 2, ts, 0, SLACK), 0);
    f[1].end = ts + LS_VICTIM_HEARD_US; /* heard as soon: not unique */
    CHECK_INT(ls_victim_span(f, 2, ts, 0, SLACK), -1);
    f[1].end = ts + LS_VICTIM_HEARD_US + 1;
    CHECK_INT(ls_victim_span(f, 2, ts, 0, SLACK), 0);
    f[0].end = ts - SLACK - 1; /* ended before the deadlock: not its */
    CHECK_INT(ls_victim_span(f, 2, ts, 0, SLACK), -1);
}

static void test_span_millisecond(void)
{
    ls_failed_span f[] = {{TS + 10000, 0}, {TS + 20000, 0}};

    /* to the millisecond: one span is unique evidence, two are none */
    CHECK_INT(ls_victim_span(f, 1, TS, 0, SLACK), 0);
    CHECK_INT(ls_victim_span(f, 2, TS, 0, SLACK), -1);
    CHECK_INT(ls_victim_span(f, 0, TS, 0, SLACK), -1);
}

static void test_tx(void)
{
    /* 21502's session at 17:36:05, latest begun first: the victim's
     * transaction from its spans (BEGIN at 05.447, ROLLBACK at 05.466),
     * and another client's logged transaction begun at 04.840 and last
     * seen in the same second. */
    ls_victim_tx_cand c[] = {{1796578565447000LL, 1796578565466000LL, 1, 0},
                             {1796578564840508LL, TS, 0, 0}};

    CHECK_INT(ls_victim_tx(c, 2, TS, SEC), 0);
    /* an earlier deadlock of the log took it: a victim once */
    c[0].victim_before = 1;
    CHECK_INT(ls_victim_tx(c, 2, TS, SEC), -1);
    c[0].victim_before = 0;
    /* to the millisecond the position rule decides */
    CHECK_INT(ls_victim_tx(c, 2, TS, 0), -1);
    /* begun at the second's end: not open in it */
    c[0].start = TS + SEC;
    CHECK_INT(ls_victim_tx(c, 2, TS, SEC), -1);
    /* begun at its last microsecond: in */
    c[0].start = TS + SEC - 1;
    CHECK_INT(ls_victim_tx(c, 2, TS, SEC), 0);
    /* ended before the second: not it */
    c[0].start = TS - 20000;
    c[0].end = TS - 1;
    CHECK_INT(ls_victim_tx(c, 2, TS, SEC), -1);
    c[0].end = TS;
    CHECK_INT(ls_victim_tx(c, 2, TS, SEC), 0);
    /* still open (end 0) */
    c[0].end = 0;
    CHECK_INT(ls_victim_tx(c, 2, TS, SEC), 0);
    CHECK_INT(ls_victim_tx(c, 0, TS, SEC), -1);
}

/* Pid 21510 at 17:36:15: deadlocks 25 (line 1445) and 26 (line 1464)
 * both chose it; its two transactions from spans, latest begun first,
 * 15.510545-15.744066 and 15.166411-15.505466, and another client's
 * logged one of 15.948631 (truth: 25's victim caught at 15.514, 26's at
 * 15.742). */
static void test_tx_two_in_one_second(void)
{
    const int64_t ts = 1796578575000000LL;
    ls_victim_tx_cand c[] = {{1796578575948631LL, 1796578576000000LL, 0, 0},
                             {1796578575510545LL, 1796578575744066LL, 1, 0},
                             {1796578575166411LL, 1796578575505466LL, 1, 0}};

    CHECK_INT(ls_victim_tx(c, 3, ts, SEC), 2); /* deadlock 25: the earlier */
    c[2].victim_before = 1;
    CHECK_INT(ls_victim_tx(c, 3, ts, SEC), 1); /* deadlock 26: the next */
    c[1].victim_before = 1;
    CHECK_INT(ls_victim_tx(c, 3, ts, SEC), -1);
}

/* The survivor's UPDATE of a deadlock: on the %t log its duration line
 * (stamped in the second after the deadlock's) gives start = end - dur;
 * it ran across the deadlock's second. */
static void test_stmt_running(void)
{
    CHECK_INT(ls_deadlock_stmt_running(TS - 150000, TS + SEC, TS, SEC), 1);
    CHECK_INT(ls_deadlock_stmt_running(TS + SEC, TS + SEC + 5000, TS, SEC), 1); /* edge */
    CHECK_INT(ls_deadlock_stmt_running(TS + SEC + 1, TS + SEC + 5000, TS, SEC), 0);
    CHECK_INT(ls_deadlock_stmt_running(TS - 150000, TS - 1, TS, SEC), 0); /* ended before */
    CHECK_INT(ls_deadlock_stmt_running(TS - 150000, TS, TS, SEC), 1);
    /* to the millisecond: begun by the deadlock's time itself */
    CHECK_INT(ls_deadlock_stmt_running(TS + 1, TS + 5000, TS, 0), 0);
    /* logged without a duration (log_statement): begun by then */
    CHECK_INT(ls_deadlock_stmt_running(TS - 150000, -1, TS, 0), 1);
    /* samples/blind-ts's csvlog, deadlock 6 (victim 30778's error at
     * 04:01:31.424): the survivor 30770's "Dauer: 95.751 ms" line at .425,
     * UPDATE "seats" ... WHERE "id" = $2 with $2 = '3' (begun .329249), is
     * the statement its DETAIL names, and its parameters key it; its own
     * update of seats id=2 before it (.265800, 36.2 ms) is not */
    CHECK_INT(ls_deadlock_stmt_running(TS - 94751, TS + 1000, TS, 0), 1);
    CHECK_INT(ls_deadlock_stmt_running(TS - 158200, TS - 122000, TS, 0), 0);
}

int main(void)
{
    test_stmt_running();
    test_span_in_log_order();
    test_span_clock_slack();
    test_span_window_edges();
    test_span_millisecond();
    test_span_millisecond_next_victim();
    test_tx();
    test_tx_two_in_one_second();
    return TEST_REPORT();
}
