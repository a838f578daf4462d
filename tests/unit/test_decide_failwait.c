/*
 * test_decide_failwait.c — decide/failwait.c: the wait of a locking
 * statement that ended in an error. Boundaries: the error exactly at the
 * holder's release, no holder, equal timestamps, whole-second times.
 */
#include "decide/failwait.h"
#include "decide/tolerances.h"
#include "ls_test.h"

#define MS 1000
#define SECOND (1000 * MS)

static void test_boundaries(void)
{
    ls_queue_result r;
    /* No holder at all: no wait. */
    CHECK_INT(ls_failed_wait(NULL, 0, 50 * MS, 80 * MS, &r), 0);
    /* 40001 raised exactly when the holder released the row: the wait
     * runs from the statement's start to that release. */
    {
        ls_queued_hold h[] = {{0, 200 * MS}};
        CHECK_INT(ls_failed_wait(h, 1, 100 * MS, 200 * MS, &r), 1);
        CHECK_INT(r.start_ts, 100 * MS);
        CHECK_INT(r.end_ts, 200 * MS);
        CHECK_INT(r.behind, 0);
        /* the error logged 3 ms after the holder's COMMIT line: the error
         * ended the wait */
        CHECK_INT(ls_failed_wait(h, 1, 100 * MS, 203 * MS, &r), 1);
        CHECK_INT(r.end_ts, 203 * MS);
        /* a lock_timeout fired while the holder still held it */
        CHECK_INT(ls_failed_wait(h, 1, 100 * MS, 150 * MS, &r), 1);
        CHECK_INT(r.end_ts, 150 * MS);
    }
    /* A hold freed exactly when the statement started did not hold it up
     * (a 40001 that did not queue: the row was updated and committed after
     * its snapshot, before it came). One got exactly then did. */
    {
        ls_queued_hold h[] = {{0, 100 * MS}};
        CHECK_INT(ls_failed_wait(h, 1, 100 * MS, 101 * MS, &r), 0);
        CHECK_INT(ls_failed_wait(h, 1, 100 * MS - 1, 101 * MS, &r), 1);
        ls_queued_hold g[] = {{100 * MS, 300 * MS}};
        CHECK_INT(ls_failed_wait(g, 1, 100 * MS, 300 * MS, &r), 1);
        CHECK_INT(r.start_ts, 100 * MS);
    }
    /* A hold that began after the statement started is not its holder. */
    {
        ls_queued_hold h[] = {{120 * MS, 300 * MS}};
        CHECK_INT(ls_failed_wait(h, 1, 100 * MS, 300 * MS, &r), 0);
    }
    /* Equal timestamps: an error at the statement's start is no wait; an
     * error before it (clock order of two lines) neither. */
    {
        ls_queued_hold h[] = {{0, 200 * MS}};
        CHECK_INT(ls_failed_wait(h, 1, 100 * MS, 100 * MS, &r), 0);
        CHECK_INT(ls_failed_wait(h, 1, 100 * MS, 99 * MS, &r), 0);
    }
    /* Two holds on at the start got at the same time: the later in held;
     * otherwise the latest got. */
    {
        ls_queued_hold h[] = {{10 * MS, 200 * MS}, {10 * MS, 150 * MS}};
        CHECK_INT(ls_failed_wait(h, 2, 100 * MS, 180 * MS, &r), 1);
        CHECK_INT(r.behind, 1);
        ls_queued_hold g[] = {{20 * MS, 200 * MS}, {10 * MS, 150 * MS}};
        CHECK_INT(ls_failed_wait(g, 2, 100 * MS, 180 * MS, &r), 1);
        CHECK_INT(r.behind, 0);
    }
}

/* Whole-second times (%t): the statement, the holder's lines and the
 * error each stamped with their second. */
static void test_whole_seconds(void)
{
    ls_queue_result r;
    ls_queued_hold h[] = {{10 * SECOND, 12 * SECOND}};
    /* started in the holder's second 11, failed at its commit in 12 */
    CHECK_INT(ls_failed_wait(h, 1, 11 * SECOND, 12 * SECOND, &r), 1);
    CHECK_INT(r.end_ts - r.start_ts, SECOND);
    /* started and failed in the same second: nothing to tell */
    CHECK_INT(ls_failed_wait(h, 1, 12 * SECOND, 12 * SECOND, &r), 0);
    /* started in the second the holder got the row: it holds it */
    CHECK_INT(ls_failed_wait(h, 1, 10 * SECOND, 12 * SECOND, &r), 1);
    CHECK_INT(r.behind, 0);
}

/* Whole seconds, the statement and its 40001 in one second: the log's
 * positions tell whether it queued (samples/blind-py, pid 10474 at
 * 08:12:19: UPDATE line 4435, holder 10463's UPDATE 4365 and COMMIT 4438,
 * the error 4442; the attempt before, UPDATE 4402 and error 4403, failed
 * at once). deadlock_timeout 200 ms: the shortest logged wait. */
static void test_same_second(void)
{
    ls_queue_result r;
    const int64_t s = 19 * SECOND, dt = 200 * MS;
    ls_queued_hold h[] = {{s, s}};
    int64_t lock[] = {4365}, end[] = {4438};
    /* queued behind 10463 until its COMMIT: half of min(1 s, 200 ms) */
    CHECK_INT(ls_failed_wait_same_second(h, lock, end, 1, s, 4435, s, 4442, SECOND, dt, &r), 1);
    CHECK_INT(r.start_ts, s);
    CHECK_INT(r.end_ts, s + 100 * MS);
    CHECK_INT(r.behind, 0);
    /* failed at once: the error before the holder's COMMIT line */
    CHECK_INT(ls_failed_wait_same_second(h, lock, end, 1, s, 4402, s, 4403, SECOND, dt, &r), 0);
    /* boundaries of the positions: the COMMIT at the statement's line or
     * at the error's is no order; the locking statement at the
     * statement's line neither */
    {
        int64_t e1[] = {4435}, e2[] = {4442}, l1[] = {4435};
        CHECK_INT(ls_failed_wait_same_second(h, lock, e1, 1, s, 4435, s, 4442, SECOND, dt, &r), 0);
        CHECK_INT(ls_failed_wait_same_second(h, lock, e2, 1, s, 4435, s, 4442, SECOND, dt, &r), 0);
        CHECK_INT(ls_failed_wait_same_second(h, l1, end, 1, s, 4435, s, 4442, SECOND, dt, &r), 0);
    }
    /* an unknown COMMIT position (0) is none */
    {
        int64_t e0[] = {0};
        CHECK_INT(ls_failed_wait_same_second(h, lock, e0, 1, s, 4435, s, 4442, SECOND, dt, &r), 0);
    }
    /* the hold ended in another second, or was got after it: not this
     * rule's (ls_failed_wait() has a hold on past the start) */
    {
        ls_queued_hold g[] = {{s - SECOND, s + SECOND}}, k[] = {{s + SECOND, s + SECOND}};
        CHECK_INT(ls_failed_wait_same_second(g, lock, end, 1, s, 4435, s, 4442, SECOND, dt, &r), 0);
        CHECK_INT(ls_failed_wait_same_second(k, lock, end, 1, s, 4435, s, 4442, SECOND, dt, &r), 0);
        ls_queued_hold p[] = {{s - SECOND, s}};
        CHECK_INT(ls_failed_wait_same_second(p, lock, end, 1, s, 4435, s, 4442, SECOND, dt, &r), 1);
    }
    /* the error in the next second: not the same second */
    CHECK_INT(
        ls_failed_wait_same_second(h, lock, end, 1, s, 4435, s + SECOND, 4442, SECOND, dt, &r), 0);
    /* of two such holds, the one whose COMMIT came first had the row */
    {
        ls_queued_hold two[] = {{s, s}, {s, s}};
        int64_t l2[] = {4300, 4365}, e2[] = {4440, 4438};
        CHECK_INT(ls_failed_wait_same_second(two, l2, e2, 2, s, 4435, s, 4442, SECOND, dt, &r), 1);
        CHECK_INT(r.behind, 1);
    }
    /* a bound above a second: half a second; milliseconds, or no logged
     * wait to bound it: nothing */
    CHECK_INT(ls_failed_wait_same_second(h, lock, end, 1, s, 4435, s, 4442, SECOND, 3 * SECOND, &r),
              1);
    CHECK_INT(r.end_ts - r.start_ts, SECOND / 2);
    CHECK_INT(ls_failed_wait_same_second(h, lock, end, 1, s, 4435, s, 4442, MS, dt, &r), 0);
    CHECK_INT(ls_failed_wait_same_second(h, lock, end, 1, s, 4435, s, 4442, SECOND, 0, &r), 0);
    CHECK_INT(ls_failed_wait_same_second(NULL, NULL, NULL, 0, s, 4435, s, 4442, SECOND, dt, &r), 0);
}

/* Where the log has a wait of it too: the statement's start only where it
 * certainly came before the logged wait began. */
static void test_start_with_logged(void)
{
    /* whole seconds: a statement logged at 5 s, its wait logged from
     * 5.796 s (a 204 ms wait ended by the deadlock at 6 s): the second's
     * floor is no evidence of earlier queueing */
    CHECK_INT(ls_failed_wait_start(5 * SECOND, SECOND, 5 * SECOND + 796 * MS),
              5 * SECOND + 796 * MS);
    /* ... one logged a whole second (and the statement's own work,
     * LS_FAILED_QUEUE_MIN_US) before the logged wait began did queue
     * before it (exactly at the boundary too) */
    CHECK_INT(ls_failed_wait_start(4 * SECOND, SECOND, 5 * SECOND + LS_FAILED_QUEUE_MIN_US),
              4 * SECOND);
    CHECK_INT(ls_failed_wait_start(4 * SECOND, SECOND, 5 * SECOND + LS_FAILED_QUEUE_MIN_US - 1),
              5 * SECOND + LS_FAILED_QUEUE_MIN_US - 1);
    CHECK_INT(ls_failed_wait_start(4 * SECOND, SECOND, 5 * SECOND), 5 * SECOND);
    /* milliseconds: 40 ms before the logged start (a tuple lock below
     * deadlock_timeout), the statement's */
    CHECK_INT(ls_failed_wait_start(100 * MS, MS, 140 * MS), 100 * MS);
    CHECK_INT(ls_failed_wait_start(100 * MS, MS, 106 * MS), 100 * MS);
    /* 1.7 ms before (the statement's own work), or within its
     * millisecond: the logged start */
    CHECK_INT(ls_failed_wait_start(100 * MS, MS, 101 * MS + 700), 101 * MS + 700);
    CHECK_INT(ls_failed_wait_start(100 * MS, MS, 106 * MS - 1), 106 * MS - 1);
    CHECK_INT(ls_failed_wait_start(100 * MS, MS, 100 * MS + 860), 100 * MS + 860);
    /* equal times: the logged start */
    CHECK_INT(ls_failed_wait_start(100 * MS, MS, 100 * MS), 100 * MS);
}

/*
 * The holder of the row at a lock timeout the log shows no wait of. The
 * positions and seconds are those of samples/blind-java/postgresql.log.gz
 * around its first 55P03 (line 1951, 06:18:45, pid 14677's UPDATE
 * warehouses ... id=1, lock_timeout 500ms): pid 14680's reserveShipment
 * committed at line 1596, pid 14686's recountShelf took the row at 1597
 * (its UPDATE's duration line) and committed at 1617, pid 14696's
 * reserveShipment took it at 1618 (SELECT ... FOR UPDATE, 468 ms) and
 * committed at 2068 (06:18:46). The app's truth: 14696 held it then.
 */
#define AT(s) ((int64_t)(s)*SECOND)
static void test_error_holder(void)
{
    int one = 5;
    ls_error_hold h[] = {
        {AT(44), AT(45), 1500, 1596, 1, 1}, /* 14680 */
        {AT(45), AT(45), 1597, 1617, 1, 1}, /* 14686 */
        {AT(45), AT(46), 1618, 2068, 1, 1}, /* 14696 */
    };
    CHECK_INT(ls_error_holder(h, 3, AT(45), 1951, SECOND, &one), LS_HOLDER_ONE);
    CHECK_INT(one, 2);
    /* no hold, or none left: none known */
    CHECK_INT(ls_error_holder(h, 0, AT(45), 1951, SECOND, &one), LS_HOLDER_NONE);
    CHECK_INT(one, -1);
    CHECK_INT(ls_error_holder(h, 2, AT(45), 1951, SECOND, &one), LS_HOLDER_NONE);
    /* the COMMIT's line right after the error's: still held then; right
     * before it (written once the row was freed): ruled out */
    {
        ls_error_hold g[] = {{AT(45), AT(45), 1618, 1952, 1, 1}};
        CHECK_INT(ls_error_holder(g, 1, AT(45), 1951, SECOND, &one), LS_HOLDER_ONE);
        g[0].end_pos = 1950;
        CHECK_INT(ls_error_holder(g, 1, AT(45), 1951, SECOND, &one), LS_HOLDER_NONE);
        /* a COMMIT line written at its start (log_statement) before the
         * error: the row may be freed after it; the times leave it */
        g[0].end_after = 0;
        CHECK_INT(ls_error_holder(g, 1, AT(45), 1951, SECOND, &one), LS_HOLDER_UNSURE);
        /* beside 14696's hold: two may have had it */
        ls_error_hold two[] = {g[0], h[2]};
        CHECK_INT(ls_error_holder(two, 2, AT(45), 1951, SECOND, &one), LS_HOLDER_SEVERAL);
        CHECK_INT(one, -1);
    }
    /* the locking statement's line after the error's: got after it, even
     * a line written at the statement's start */
    {
        ls_error_hold g[] = {{AT(45), AT(46), 1952, 2068, 0, 1}, h[2]};
        CHECK_INT(ls_error_holder(g, 2, AT(45), 1951, SECOND, &one), LS_HOLDER_ONE);
        CHECK_INT(one, 1);
        /* ... before it but written at its start: it may itself have
         * waited; alone, not shown to have had the row */
        g[0].lock_pos = 1900;
        CHECK_INT(ls_error_holder(g, 1, AT(45), 1951, SECOND, &one), LS_HOLDER_UNSURE);
    }
    /* no positions (a hold rebuilt from spans): the times rule out only a
     * hold got a whole tick after the error's stamp or freed a whole tick
     * before it */
    {
        ls_error_hold g[] = {{AT(46), AT(47), 0, 0, 0, 0}, h[2]};
        CHECK_INT(ls_error_holder(g, 2, AT(45), 1951, SECOND, &one), LS_HOLDER_ONE);
        CHECK_INT(one, 1);
        g[0].start_ts = AT(46) - 1;
        CHECK_INT(ls_error_holder(g, 2, AT(45), 1951, SECOND, &one), LS_HOLDER_SEVERAL);
        g[0].start_ts = AT(43);
        g[0].end_ts = AT(44);
        CHECK_INT(ls_error_holder(g, 2, AT(45), 1951, SECOND, &one), LS_HOLDER_ONE);
        g[0].end_ts = AT(44) + 1;
        CHECK_INT(ls_error_holder(g, 2, AT(45), 1951, SECOND, &one), LS_HOLDER_SEVERAL);
        /* no end at all: it may still hold it */
        g[0].end_ts = 0;
        CHECK_INT(ls_error_holder(g, 2, AT(45), 1951, SECOND, &one), LS_HOLDER_SEVERAL);
        CHECK_INT(ls_error_holder(g, 1, AT(45), 1951, SECOND, &one), LS_HOLDER_UNSURE);
        /* milliseconds: a hold freed at 44.998 s, a tick before 44.999 */
        ls_error_hold m[] = {{AT(44), AT(45) - 2 * MS, 0, 0, 0, 0}, h[2]};
        CHECK_INT(ls_error_holder(m, 2, AT(45) - MS, 1951, MS, &one), LS_HOLDER_ONE);
        m[0].end_ts = AT(45) - 2 * MS + 1;
        CHECK_INT(ls_error_holder(m, 2, AT(45) - MS, 1951, MS, &one), LS_HOLDER_SEVERAL);
    }
}

int main(void)
{
    test_error_holder();
    test_boundaries();
    test_whole_seconds();
    test_same_second();
    test_start_with_logged();
    return TEST_REPORT();
}
