/*
 * test_decide_quiet.c — decide/quiet.c: did a keyed statement queue,
 * unlogged, behind another transaction's hold of its key, and is that
 * enough to make the key a row? Boundaries: a statement that starts
 * exactly at the other hold's end, 4.9 vs 5.0 ms, FOR SHARE among FOR
 * SHARE, the same transaction's second statement.
 */
#include "decide/quiet.h"
#include "decide/tolerances.h"
#include "ls_test.h"

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

int main(void)
{
    test_times();
    test_same_tx_and_shared();
    test_threshold();
    return TEST_REPORT();
}
