/*
 * test_decide_rows.c — decide/rows.c: a wait known only by its ctid
 * joins the nearest keyed wait on the same row version (from
 * test_correlate.c: ties, exactly the window, empty input).
 */
#include "decide/rows.h"
#include "ls_test.h"

#define S 1000000 /* one second in µs */

static void test_ctid_nearest(void)
{
    /* Waits on one row version (s): keyed at 1 and 5 (twice at 5), not at
     * 0, 2, 4, 5, 30. 2 is nearer 1; 4 nearer 5 (the first keyed at 5);
     * 3 ties between 1 and 5 and takes the earlier; 30 is beyond the
     * window of 10 s; 0 takes 1. */
    int64_t ts[] = {0, 1, 2, 3, 4, 5, 5, 5, 30};
    int keyed[] = {0, 1, 0, 0, 0, 1, 1, 0, 0};
    long near[9];
    size_t i;
    for (i = 0; i < 9; i++)
        ts[i] *= 1000000;
    ls_ctid_nearest(ts, keyed, 9, 10 * 1000000, near);
    CHECK_INT(near[0], 1);
    CHECK_INT(near[1], -1); /* keyed: its own key */
    CHECK_INT(near[2], 1);
    CHECK_INT(near[3], 1);
    CHECK_INT(near[4], 5);
    CHECK_INT(near[7], 5);
    CHECK_INT(near[8], -1);
    /* The window's edge is in it. */
    ls_ctid_nearest(ts + 5, keyed + 5, 4, 25 * 1000000, near);
    CHECK_INT(near[3], 0);
    ls_ctid_nearest(ts, keyed, 0, 1, near);
    /* A tie: keyed waits 5 s before and 5 s after; the earlier. */
    {
        int64_t t3[] = {0, 5 * S, 10 * S};
        int k3[] = {1, 0, 1};
        long n3[3];
        ls_ctid_nearest(t3, k3, 3, 10 * S, n3);
        CHECK_INT(n3[1], 0);
        /* one microsecond nearer the later one: the later */
        t3[1] = 5 * S + 1;
        ls_ctid_nearest(t3, k3, 3, 10 * S, n3);
        CHECK_INT(n3[1], 2);
    }
}

int main(void)
{
    test_ctid_nearest();
    return TEST_REPORT();
}
