/*
 * test_decide_queue.c — decide/queue.c: did a statement queue for a row
 * behind the holds before it? Boundary cases first: a hold freed exactly
 * when the statement started, two holds got at the same time, an
 * acquisition exactly when the last hold ended, empty input.
 */
#include "decide/queue.h"
#include "decide/tolerances.h"
#include "ls_test.h"

#define MS 1000

static void test_boundaries(void)
{
    ls_queue_result r;
    /* Empty input: free. */
    CHECK_INT(ls_queue_wait(NULL, 0, 50 * MS, 51 * MS, 1, 0, &r), 0);
    /* A hold freed exactly when the statement started did not hold it up
     * (end > start, not >=). */
    {
        ls_queued_hold h[] = {{0, 100 * MS}};
        CHECK_INT(ls_queue_wait(h, 1, 100 * MS, 150 * MS, 1, 0, &r), 0);
        CHECK_INT(ls_queue_wait(h, 1, 100 * MS - 1, 150 * MS, 1, 0, &r), 1);
        CHECK_INT(r.end_ts, 100 * MS);
    }
    /* A hold got exactly when the statement started holds it (start <=). */
    {
        ls_queued_hold h[] = {{100 * MS, 200 * MS}};
        CHECK_INT(ls_queue_wait(h, 1, 100 * MS, 300 * MS, 1, 0, &r), 1);
        CHECK_INT(r.behind, 0);
        CHECK_INT(r.start_ts, 100 * MS);
        CHECK_INT(r.end_ts, 200 * MS);
    }
    /* The holder is the hold on at the start, not one freed at that very
     * moment however late it was got: B [0,200) holds it, A [50,100) had
     * just let go. */
    {
        ls_queued_hold h[] = {{0, 200 * MS}, {50 * MS, 100 * MS}};
        CHECK_INT(ls_queue_wait(h, 2, 100 * MS, 300 * MS, 1, 0, &r), 1);
        CHECK_INT(r.behind, 0);
    }
    /* Two holds on at the start got at the same time: the later in prev. */
    {
        ls_queued_hold h[] = {{10 * MS, 200 * MS}, {10 * MS, 150 * MS}};
        CHECK_INT(ls_queue_wait(h, 2, 100 * MS, 300 * MS, 1, 0, &r), 1);
        CHECK_INT(r.behind, 1);
        CHECK_INT(r.end_ts, 200 * MS);
    }
    /* Acquired exactly when the last hold ended: that end. Acquired
     * before (a logged end bounds it): the acquisition. */
    {
        ls_queued_hold h[] = {{0, 200 * MS}};
        CHECK_INT(ls_queue_wait(h, 1, 100 * MS, 200 * MS, 1, 0, &r), 1);
        CHECK_INT(r.end_ts, 200 * MS);
        CHECK_INT(ls_queue_wait(h, 1, 100 * MS, 199 * MS, 1, 0, &r), 1);
        CHECK_INT(r.end_ts, 199 * MS);
        /* ... but only a logged end bounds it */
        CHECK_INT(ls_queue_wait(h, 1, 100 * MS, 199 * MS, 0, 0, &r), 1);
        CHECK_INT(r.end_ts, 200 * MS);
        /* acquired at its own start: an empty wait is none */
        CHECK_INT(ls_queue_wait(h, 1, 100 * MS, 100 * MS, 1, 0, &r), 0);
    }
}

/* The cases test_correlate.c had. */
static void test_queue(void)
{
    /* Holds of one row, in the order the row was got: [0,100) [100,250)
     * [250,260) (ms). */
    ls_queued_hold h[] = {{0, 100 * MS}, {100 * MS, 250 * MS}, {250 * MS, 260 * MS}};
    ls_queue_result r;

    CHECK_INT(ls_queue_wait(h, 3, 50 * MS, 261 * MS, 1, 0, &r), 1);
    CHECK_INT(r.start_ts, 50 * MS);
    CHECK_INT(r.end_ts, 260 * MS);
    CHECK_INT(r.behind, 0);
    CHECK_INT(ls_queue_wait(h, 3, 50 * MS, 255 * MS, 1, 0, &r), 1);
    CHECK_INT(r.end_ts, 255 * MS);
    CHECK_INT(ls_queue_wait(h, 3, 120 * MS, 120 * MS, 0, 0, &r), 1);
    CHECK_INT(r.end_ts, 260 * MS);
    CHECK_INT(r.behind, 1);
    CHECK_INT(ls_queue_wait(h, 3, 300 * MS, 301 * MS, 1, 0, &r), 0);
    {
        ls_queued_hold g[] = {h[2], h[0], h[1]};
        CHECK_INT(ls_queue_wait(g, 3, 120 * MS, 300 * MS, 1, 0, &r), 1);
        CHECK_INT(r.behind, 2);
        CHECK_INT(r.end_ts, 260 * MS);
    }
}

/* Stamps tie within their tick (samples/blind-otel, %m: an INSERT whose
 * start is derived at .210800 from its 45.2 ms duration, ended .256000,
 * behind a hold got at .211000, the end stamp of another's 0.194 ms
 * INSERT, committed at .255000). */
static void test_tie(void)
{
    ls_queue_result r;
    ls_queued_hold h[] = {{211 * MS, 255 * MS}};
    const int64_t start = 210800, tick = MS;

    /* got 200 us after the start, let go before it got the row: queued
     * behind it from when it got the row */
    CHECK_INT(ls_queue_wait(h, 1, start, 256 * MS, 1, tick, &r), 1);
    CHECK_INT(r.start_ts, 211 * MS);
    CHECK_INT(r.end_ts, 255 * MS);
    CHECK_INT(r.behind, 0);
    /* without the tick (or no logged end): free at the start */
    CHECK_INT(ls_queue_wait(h, 1, start, 256 * MS, 1, 0, &r), 0);
    CHECK_INT(ls_queue_wait(h, 1, start, 256 * MS, 0, tick, &r), 0);
    /* got a tick or more after the start: not a tie (< tie_us) */
    CHECK_INT(ls_queue_wait(h, 1, 210 * MS, 256 * MS, 1, tick, &r), 0);
    CHECK_INT(ls_queue_wait(h, 1, 210 * MS + 1, 256 * MS, 1, tick, &r), 1);
    /* let go after the statement got the row: it cannot have queued
     * behind it (end <= acquired) */
    CHECK_INT(ls_queue_wait(h, 1, start, 255 * MS - 1, 1, tick, &r), 0);
    CHECK_INT(ls_queue_wait(h, 1, start, 255 * MS, 1, tick, &r), 1);
    /* a hold on at the start wins over a tied one */
    {
        ls_queued_hold g[] = {{100 * MS, 211 * MS}, {211 * MS, 255 * MS}};
        CHECK_INT(ls_queue_wait(g, 2, start, 256 * MS, 1, tick, &r), 1);
        CHECK_INT(r.behind, 0);
        CHECK_INT(r.start_ts, start);
        CHECK_INT(r.end_ts, 255 * MS);
    }
}

/* Whole seconds, no durations: log positions order a hold's end stamped
 * in the statement's own second (samples/blind-py: place_order's INSERT
 * at 08:12:xx line 898, behind 10461's hold of merchant_totals taken at
 * line 827, whose COMMIT is line 991 of that second). */
static void test_same_second(void)
{
    const int64_t S = LS_WHOLE_SECOND_US, dt = 200050;
    ls_queue_result r;
    ls_queued_hold h[] = {{18 * S, 19 * S}};
    int64_t lock_pos[] = {827}, end_pos[] = {991};

    CHECK_INT(ls_queue_same_second(h, lock_pos, end_pos, 1, 19 * S, 898, S, dt, &r), 1);
    CHECK_INT(r.start_ts, 19 * S);
    CHECK_INT(r.end_ts, 19 * S + dt / 2);
    CHECK_INT(r.behind, 0);
    /* the COMMIT logged before the statement, or at its line: free */
    CHECK_INT(ls_queue_same_second(h, lock_pos, end_pos, 1, 19 * S, 991, S, dt, &r), 0);
    CHECK_INT(ls_queue_same_second(h, lock_pos, end_pos, 1, 19 * S, 990, S, dt, &r), 1);
    /* the holder's locking statement logged after it: not its holder */
    CHECK_INT(ls_queue_same_second(h, lock_pos, end_pos, 1, 19 * S, 827, S, dt, &r), 0);
    /* an end not known (0), or in another second: not this case */
    {
        int64_t unknown[] = {0};
        ls_queued_hold later[] = {{18 * S, 20 * S}};
        CHECK_INT(ls_queue_same_second(h, lock_pos, unknown, 1, 19 * S, 898, S, dt, &r), 0);
        CHECK_INT(ls_queue_same_second(later, lock_pos, end_pos, 1, 19 * S, 898, S, dt, &r), 0);
        CHECK_INT(ls_queue_same_second(h, lock_pos, end_pos, 1, 18 * S, 898, S, dt, &r), 0);
    }
    /* a hold got in a later second is not before it */
    {
        ls_queued_hold next[] = {{20 * S, 19 * S}};
        CHECK_INT(ls_queue_same_second(next, lock_pos, end_pos, 1, 19 * S, 898, S, dt, &r), 0);
    }
    /* no logged wait to bound it, or sub-second stamps: nothing said */
    CHECK_INT(ls_queue_same_second(h, lock_pos, end_pos, 1, 19 * S, 898, S, 0, &r), 0);
    CHECK_INT(ls_queue_same_second(h, lock_pos, end_pos, 1, 19 * S, 898, MS, dt, &r), 0);
    /* a bound over a second: half a second */
    CHECK_INT(ls_queue_same_second(h, lock_pos, end_pos, 1, 19 * S, 898, S, 3 * S, &r), 1);
    CHECK_INT(r.end_ts, 19 * S + S / 2);
    /* of two, the one whose locking statement was logged last */
    {
        ls_queued_hold two[] = {{18 * S, 19 * S}, {19 * S, 19 * S}};
        int64_t lp[] = {827, 850}, ep[] = {991, 995};
        CHECK_INT(ls_queue_same_second(two, lp, ep, 2, 19 * S, 898, S, dt, &r), 1);
        CHECK_INT(r.behind, 1);
    }
}

/* Where a hold starts when its statement's end is not logged
 * (ls_queue_hold_start): samples/app-seconds' csvlog (log_statement =
 * 'all'), inventory id=1 at 14:13:33: 9425 commits at .655; 9424, 9423
 * and 9452 each log "acquired ShareLock on transaction 738" at .655 and
 * commit at .667, .671 and 34.266 (ms from 33.000 here). */
static void test_hold_start(void)
{
    const int64_t S = LS_WHOLE_SECOND_US;
    ls_queued_hold h[] = {{(int64_t)(-95) * MS, 655 * MS}, /* 9425 */
                          {655 * MS, 667 * MS},            /* 9424, as decided */
                          {667 * MS, 671 * MS}};           /* 9423, as decided */

    /* Equal acquired times: each starts when the one before it in end
     * order ended. The first, behind 9425 alone, keeps its line's time. */
    CHECK_INT(ls_queue_hold_start(h, NULL, 1, 655 * MS, 667 * MS, 0), 655 * MS);
    CHECK_INT(ls_queue_hold_start(h, NULL, 2, 655 * MS, 671 * MS, 0), 667 * MS);
    CHECK_INT(ls_queue_hold_start(h, NULL, 3, 655 * MS, S + 266 * MS, 0), 671 * MS);
    /* any order */
    {
        ls_queued_hold g[] = {h[2], h[0], h[1]};
        CHECK_INT(ls_queue_hold_start(g, NULL, 3, 655 * MS, S + 266 * MS, 0), 671 * MS);
    }
    /* an acquisition after every end before it stands; empty input */
    CHECK_INT(ls_queue_hold_start(h, NULL, 3, 700 * MS, S, 0), 700 * MS);
    CHECK_INT(ls_queue_hold_start(NULL, NULL, 0, 655 * MS, S, 0), 655 * MS);
    /* Equal end times: a hold that ended in the same stamp was before it
     * (the order of the scan): it starts at that stamp, a hold of none
     * of the stamp's length. One ending a microsecond later was not. */
    CHECK_INT(ls_queue_hold_start(h, NULL, 3, 655 * MS, 671 * MS, 0), 671 * MS);
    CHECK_INT(ls_queue_hold_start(h, NULL, 3, 655 * MS, 671 * MS - 1, 0), 667 * MS);
    /* A hold that ends after it was not before it, however early it was
     * got (its end is the later one) */
    {
        ls_queued_hold later[] = {{600 * MS, 900 * MS}};
        CHECK_INT(ls_queue_hold_start(later, NULL, 1, 655 * MS, 800 * MS, 0), 655 * MS);
    }
    /* One shared hold among exclusive ones: a shared hold does not wait
     * for another shared one (FOR SHARE beside FOR SHARE), but waits for
     * an exclusive one, and an exclusive one waits for it. */
    {
        ls_queued_hold m[] = {{600 * MS, 650 * MS}, {650 * MS, 700 * MS}};
        unsigned char sh[] = {0, 1}, both[] = {1, 1};
        CHECK_INT(ls_queue_hold_start(m, sh, 2, 655 * MS, 720 * MS, 1), 655 * MS);
        CHECK_INT(ls_queue_hold_start(m, sh, 2, 640 * MS, 720 * MS, 1), 650 * MS);
        CHECK_INT(ls_queue_hold_start(m, sh, 2, 655 * MS, 720 * MS, 0), 700 * MS);
        /* NULL: none shared */
        CHECK_INT(ls_queue_hold_start(m, NULL, 2, 655 * MS, 720 * MS, 1), 700 * MS);
        CHECK_INT(ls_queue_hold_start(m, both, 2, 640 * MS, 720 * MS, 1), 640 * MS);
        CHECK_INT(ls_queue_hold_start(m, both, 2, 640 * MS, 720 * MS, 0), 700 * MS);
    }
}

int main(void)
{
    test_hold_start();
    test_same_second();
    test_boundaries();
    test_queue();
    test_tie();
    return TEST_REPORT();
}
