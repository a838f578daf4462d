/*
 * test_decide_waittx.c — decide/waittx.c: a deadlock wait's transaction
 * on a whole-second log.
 *
 * The times are samples/blind-pool's (PostgreSQL 17, '%t', pgbouncer; the
 * transactions as the transactions pass rebuilt them from the requests'
 * spans, database clock, offset -15316 us). Pid 21502's "detected
 * deadlock ... after 202.422 ms" of log line 188 is stamped 17:36:05: the
 * wait began in [04.797578, 05.797578) and ended in [05.000, 06.000).
 * The session's transactions then: 432 [04.707257, 05.002571] (the victim
 * of line 47's deadlock, trace 015dd808), 435 [05.032464, 05.474606]
 * (line 164's, ddffeb75), 436 [05.475621, 05.713812] (line 192's, the
 * deadlock that ended this wait: trace 001a8f84 in truth.json), all ended
 * by a ROLLBACK, and 29 [05.783328, 07.184342], committed. On 5120a43 the
 * wait took 432 (open at 04.797578, the interval's first instant).
 */
#include "decide/victim.h"
#include "decide/waittx.h"
#include "ls_test.h"

#define SEC 1000000LL
#define S05 1796578565000000LL /* 17:36:05 */

static ls_wait_tx_wait wait188(void)
{
    ls_wait_tx_wait w = {S05 - 202422, S05, 202422, SEC, LS_VICTIM_CLOCK_SLACK_US, 1};
    return w;
}

static void test_two_in_one_second(void)
{
    ls_wait_tx_cand c[] = {{1796578565783328LL, 1796578567184342LL, 0, 0, 0, 0, 0, 0, 0},
                           {1796578565475621LL, 1796578565713812LL, 0, 0, 1, 0, 0, 0, 0},
                           {1796578565032464LL, 1796578565474606LL, 0, 0, 1, 0, 0, 0, 0},
                           {1796578564707257LL, 1796578565002571LL, 0, 0, 1, 0, 1, 0, 0}};
    ls_wait_tx_wait w = wait188();

    /* three aborted transactions of the session fit the second: none is
     * taken without the deadlock's own link, nor is 432, which the log's
     * positions linked (5120a43's answer), over it */
    CHECK_INT(ls_wait_tx_fits(&c[1], &w), 1);
    CHECK_INT(ls_wait_tx_fits(&c[2], &w), 1);
    CHECK_INT(ls_wait_tx_fits(&c[3], &w), 1);
    CHECK_INT(ls_wait_tx_fits(&c[0], &w), 0); /* committed */
    CHECK_INT(ls_wait_tx_pick(c, 4, &w), 3);
    c[3].linked = 0;
    CHECK_INT(ls_wait_tx_pick(c, 4, &w), -1);
    /* the log's position of the wait's statement is exact */
    c[3].linked = 1;
    c[0].linked = 0;
    c[3].by_pos = 1;
    CHECK_INT(ls_wait_tx_pick(c, 4, &w), 3);
    c[3].by_pos = 0;
    /* the deadlock of line 192 was linked to 436 */
    c[1].victim = 1;
    CHECK_INT(ls_wait_tx_pick(c, 4, &w), 1);
    /* one candidate alone: taken */
    CHECK_INT(ls_wait_tx_pick(&c[2], 1, &w), 0);
}

/* A deadlock's transaction that does not fit the wait's second is not
 * taken, nor is another in its place: not linked. */
static void test_victim_not_fitting(void)
{
    ls_wait_tx_cand c[] = {{S05 + SEC + 200000, S05 + SEC + 400000, 0, 0, 1, 1, 0, 0, 0},
                           {S05 + 100000, S05 + 400000, 0, 0, 1, 0, 0, 0, 0}};
    ls_wait_tx_wait w = wait188();

    CHECK_INT(ls_wait_tx_fits(&c[0], &w), 0);
    CHECK_INT(ls_wait_tx_fits(&c[1], &w), 1);
    CHECK_INT(ls_wait_tx_pick(c, 2, &w), -1);
    c[0].victim = 0;
    CHECK_INT(ls_wait_tx_pick(c, 2, &w), 1);
}

/* The second's edges: the wait began before start_lo + res and its
 * message was written at end_lo or later (the clock slack either side). */
static void test_second_boundary(void)
{
    ls_wait_tx_wait w = wait188();
    const int64_t last = w.start_lo + SEC; /* no wait began this late */
    ls_wait_tx_cand c = {last + LS_VICTIM_CLOCK_SLACK_US, last + 300000, 0, 0, 1, 0, 0, 0, 0};

    CHECK_INT(ls_wait_tx_fits(&c, &w), 0);
    c.start = last + LS_VICTIM_CLOCK_SLACK_US - 1;
    CHECK_INT(ls_wait_tx_fits(&c, &w), 1);
    /* ended exactly when the message's second began, less the slack:
     * still open then */
    c.start = S05 - 300000;
    c.end = S05 - LS_VICTIM_CLOCK_SLACK_US;
    CHECK_INT(ls_wait_tx_fits(&c, &w), 1);
    c.end = S05 - LS_VICTIM_CLOCK_SLACK_US - 1;
    CHECK_INT(ls_wait_tx_fits(&c, &w), 0);
    /* a deadlock's transaction ends by the time the client hears of it */
    c.end = S05 + SEC + LS_VICTIM_HEARD_US + LS_VICTIM_CLOCK_SLACK_US;
    CHECK_INT(ls_wait_tx_fits(&c, &w), 1);
    c.end++;
    CHECK_INT(ls_wait_tx_fits(&c, &w), 0);
    /* not a deadlock: a committed transaction open past the second fits */
    w.deadlock = 0;
    c.aborted = 0;
    CHECK_INT(ls_wait_tx_fits(&c, &w), 1);
    /* an open transaction (no end yet) that began in time fits */
    c.end = 0;
    CHECK_INT(ls_wait_tx_fits(&c, &w), 1);
}

/* It lasted the wait: 202.422 ms need a transaction at least that long,
 * less the slack at each end. */
static void test_lasted_the_wait(void)
{
    ls_wait_tx_wait w = wait188();
    ls_wait_tx_cand c = {S05 + 100000, S05 + 100000 + 202422 - 2 * LS_VICTIM_CLOCK_SLACK_US, 0,
                         0, 1, 0, 0, 0, 0};

    CHECK_INT(ls_wait_tx_fits(&c, &w), 1);
    c.end--;
    CHECK_INT(ls_wait_tx_fits(&c, &w), 0);
}

/* A logged transaction's times are its lines' seconds (samples/blind-py,
 * PostgreSQL 15, '%t', no pooler): pid 10474's "detected deadlock ...
 * after 200.2 ms" stamped 08:32:10 (wait 264, derived start 09.799800)
 * ran in the transaction whose BEGIN and ROLLBACK lines are both stamped
 * 08:32:10. Read as a span's, it would have lasted 0 ms. */
static void test_logged_end_second(void)
{
    const int64_t s10 = 1796544730000000LL;
    ls_wait_tx_wait w = {s10 - 200200, s10, 200200, SEC, LS_VICTIM_CLOCK_SLACK_US, 1};
    ls_wait_tx_cand c = {s10, s10, 0, 0, 1, 0, 0, 0, 0};

    CHECK_INT(ls_wait_tx_fits(&c, &w), 0);
    c.end_res = SEC;
    CHECK_INT(ls_wait_tx_fits(&c, &w), 1);
    CHECK_INT(ls_wait_tx_pick(&c, 1, &w), 0);
}

/* samples/blind-pool's %t log alone (no spans): pid 21509's deadlock wait
 * of line 146 (stamped 17:36:05, 200+ ms: begun in [04.8, 05.8)) is in the
 * transaction of its UPDATE logged at line 70 ("duration: 219.007 ms",
 * stamped 05: begun 04.780993), the transfer's first, whose ROLLBACK the
 * log does not have: it ends at that statement's second, open after it.
 * Pid 21502's deadlock wait of line 43 (stamped 04, begun in [03.798,
 * 04.798)) is not in the transaction of its next logged UPDATE (line 98,
 * stamped 05, 159.492 ms: begun 04.840508 at the earliest): that one's
 * statement had not ended when the wait began. */
static void test_end_not_logged(void)
{
    const int64_t s04 = S05 - SEC;
    ls_wait_tx_wait w = {S05 - 200000, S05, 200000, SEC, LS_VICTIM_CLOCK_SLACK_US, 1};
    ls_wait_tx_cand c = {1796578564780993LL, S05, SEC, 1, 0, 0, 0, 0, 0};

    CHECK_INT(ls_wait_tx_fits(&c, &w), 1);
    c.end_open = 0; /* read as its end: a commit */
    CHECK_INT(ls_wait_tx_fits(&c, &w), 0);
    w.start_lo = s04 - 201778;
    w.end_lo = s04;
    w.waited = 201778;
    c.start = 1796578564840508LL;
    c.end_open = 1;
    CHECK_INT(ls_wait_tx_fits(&c, &w), 0);
    /* the boundary: its last statement ended before the latest start */
    c.end = w.start_lo + SEC + LS_VICTIM_CLOCK_SLACK_US - 1;
    c.start = w.start_lo;
    CHECK_INT(ls_wait_tx_fits(&c, &w), 1);
    c.end++;
    CHECK_INT(ls_wait_tx_fits(&c, &w), 0);
}

/* The same log: pid 21502's deadlock waits of lines 160 and 188 (both
 * stamped 05) fit the transaction of its UPDATE of line 98 (begun
 * 04.840508 at the earliest), its ROLLBACK not logged. The first in the
 * log's order takes it (the transfer whose increment deadlocked after
 * that decrement); a deadlock aborts it, so line 188's is not linked. */
static void test_victim_once(void)
{
    ls_wait_tx_wait w = {S05 - 202422, S05, 202422, SEC, LS_VICTIM_CLOCK_SLACK_US, 1};
    ls_wait_tx_cand c = {1796578564840508LL, S05, SEC, 1, 0, 0, 0, 0, 0};

    CHECK_INT(ls_wait_tx_pick(&c, 1, &w), 0);
    c.taken = 1;
    CHECK_INT(ls_wait_tx_pick(&c, 1, &w), -1);
    /* a wait that did not end in a deadlock may share it */
    w.deadlock = 0;
    CHECK_INT(ls_wait_tx_pick(&c, 1, &w), 0);
}

/* Deadlock 1 of samples/blind-pool's %t log (line 61, stamped 17:36:04,
 * victim 21503 waiting for 21504): 21504's DETAIL statement, UPDATE
 * "accounts" ... + 5 WHERE "id" = 3, is its line 73 "duration: 175.234
 * ms" stamped 04, its start derived 03.824766: it ends at the second's
 * very start, and ran at the deadlock. */
static void test_holder_stmt(void)
{
    const int64_t s04 = S05 - SEC;
    ls_wait_holder_stmt c[] = {{1796578563824766LL, s04}, {s04 - 900000, s04 - 700000}};

    CHECK_INT(ls_wait_holder_stmt_pick(c, 2, s04, SEC), 0);
    /* ended a microsecond before the deadlock's second: not running */
    c[0].end = s04 - 1;
    CHECK_INT(ls_wait_holder_stmt_pick(c, 2, s04, SEC), -1);
    /* begun after the second: not yet */
    c[0].start = s04 + SEC + 1;
    c[0].end = s04 + SEC + 200000;
    CHECK_INT(ls_wait_holder_stmt_pick(c, 1, s04, SEC), -1);
    c[0].start = s04 + SEC;
    CHECK_INT(ls_wait_holder_stmt_pick(c, 1, s04, SEC), 0);
    /* two of the text running in that second: neither */
    c[1].start = s04 - 100000;
    c[1].end = s04 + 300000;
    CHECK_INT(ls_wait_holder_stmt_pick(c, 2, s04, SEC), -1);
    /* without durations (log_statement): the latest begun by then */
    c[0].end = -1;
    c[1].end = -1;
    CHECK_INT(ls_wait_holder_stmt_pick(c, 2, s04, SEC), 0);
    /* one with its duration running, then one without: two candidates,
     * neither (a mutation that took the one without was caught by no
     * other test) */
    c[0].start = s04 - 100000;
    c[0].end = s04 + 300000;
    c[1].start = s04 - 50000;
    c[1].end = -1;
    CHECK_INT(ls_wait_holder_stmt_pick(c, 2, s04, SEC), -1);
    CHECK_INT(ls_wait_holder_stmt_pick(&c[1], 1, s04, SEC), 0);
}

/* tests/e2e/data/pgbench-deadlock-handoff cut to %t: an excerpt that
 * begins inside pid 3281's transaction (xid 26797, its BEGIN not in it):
 * its statements are transactions of their own, the one with the
 * deadlock wait's statement ended "commit" at 06:29:49. The log's
 * position links the wait to it, whatever its times say. */
static void test_by_position(void)
{
    const int64_t s49 = 1796544589000000LL;
    ls_wait_tx_wait w = {s49 - 50117, s49, 50117, SEC, LS_VICTIM_CLOCK_SLACK_US, 1};
    ls_wait_tx_cand c[] = {{1796544588504978LL, s49, SEC, 0, 0, 0, 1, 1, 0},
                           {1796544588999971LL, s49, SEC, 0, 1, 0, 0, 0, 0}};

    CHECK_INT(ls_wait_tx_fits(&c[0], &w), 0); /* ended, committed */
    CHECK_INT(ls_wait_tx_pick(c, 2, &w), 0);
    c[0].by_pos = 0;
    CHECK_INT(ls_wait_tx_pick(c, 2, &w), 1);
}

int main(void)
{
    test_two_in_one_second();
    test_victim_not_fitting();
    test_second_boundary();
    test_lasted_the_wait();
    test_logged_end_second();
    test_end_not_logged();
    test_victim_once();
    test_holder_stmt();
    test_by_position();
    return TEST_REPORT();
}
