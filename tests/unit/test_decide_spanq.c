/*
 * test_decide_spanq.c — decide/spanq.c: did a locking span queue behind
 * another request's transaction's hold of its key, seen in the spans
 * alone? Boundaries: a span that begins exactly when the holder's locking
 * span ended, or exactly when its COMMIT span began; a span that ends at
 * the COMMIT span's start, LS_SPANQ_GRANT_SLACK_US after its end and 1 µs
 * more; the same transaction; FOR SHARE among FOR SHARE.
 */
#include "decide/spanq.h"
#include "ls_test.h"

#include <stdint.h>

#define MS 1000

static void test_times(void)
{
    /* tx 1 locked the row (its span 100..102 ms) and committed (300..301) */
    ls_spanq_lock h = {1, 100 * MS, 102 * MS, 300 * MS, 301 * MS, 0};
    /* tx 2's FOR UPDATE from 150 ms ended at 302 ms: granted by the COMMIT */
    ls_spanq_lock w = {2, 150 * MS, 302 * MS, 310 * MS, 311 * MS, 0};
    CHECK_INT(ls_spanq_queued_us(&h, &w), 150 * MS);
    /* began exactly when the holder's locking span ended: behind it */
    w.lock_start = 102 * MS;
    CHECK_INT(ls_spanq_queued_us(&h, &w), 198 * MS);
    /* began before the holder had the row (known): not behind it */
    w.lock_start = 102 * MS - 1;
    CHECK_INT(ls_spanq_queued_us(&h, &w), 0);
    /* began when the COMMIT was sent: the row may have been free */
    w.lock_start = 300 * MS;
    CHECK_INT(ls_spanq_queued_us(&h, &w), 0);
    w.lock_start = 300 * MS - 1;
    CHECK_INT(ls_spanq_queued_us(&h, &w), 1);
    /* ended before the COMMIT was sent: it had no wait for this hold */
    w.lock_start = 150 * MS;
    w.lock_end = 300 * MS - 1;
    CHECK_INT(ls_spanq_queued_us(&h, &w), 0);
    w.lock_end = 300 * MS;
    CHECK_INT(ls_spanq_queued_us(&h, &w), 150 * MS);
    /* ended up to the slack after the COMMIT span's end: its grant */
    w.lock_end = 301 * MS + LS_SPANQ_GRANT_SLACK_US;
    CHECK_INT(ls_spanq_queued_us(&h, &w), 150 * MS);
    /* later: another holder's grant (or no queueing behind this one) */
    w.lock_end = 301 * MS + LS_SPANQ_GRANT_SLACK_US + 1;
    CHECK_INT(ls_spanq_queued_us(&h, &w), 0);
}

static void test_who(void)
{
    ls_spanq_lock h = {1, 100 * MS, 102 * MS, 300 * MS, 301 * MS, 0};
    ls_spanq_lock w = {1, 150 * MS, 302 * MS, 310 * MS, 311 * MS, 0};
    /* the same transaction's second statement on the key */
    CHECK_INT(ls_spanq_queued_us(&h, &w), 0);
    w.tx = 2;
    /* FOR SHARE among FOR SHARE: no conflict */
    h.shared = w.shared = 1;
    CHECK_INT(ls_spanq_queued_us(&h, &w), 0);
    /* a FOR UPDATE behind a FOR SHARE, and the other way round, queue */
    w.shared = 0;
    CHECK_INT(ls_spanq_queued_us(&h, &w), 150 * MS);
    h.shared = 0;
    w.shared = 1;
    CHECK_INT(ls_spanq_queued_us(&h, &w), 150 * MS);
}

int main(void)
{
    test_times();
    test_who();
    return TEST_REPORT();
}
