/*
 * test_decide_link.c — decide/link.c: the root blocker's transaction from
 * the links found before. {root, by xid, holder, holder tx, blocker,
 * blocker tx}; 0 is "none".
 */
#include "decide/link.h"
#include "ls_test.h"

static void test_root_tx(void)
{
    /* Nothing known: 0 (the caller looks by log position, then time). */
    ls_root_link none = {30, 0, 0, 0, 0, 0};
    /* The awaited xid's transaction wins over the rest. */
    ls_root_link xid = {20, 7, 20, 8, 20, 8};
    /* The root is the direct blocker, which holds the row: one transaction. */
    ls_root_link same = {20, 0, 20, 8, 20, 8};
    /* A tuple lock's queue: the holder (30, tx 9) is not the direct blocker
     * (20, the queue head, tx 8). A root that is the holder has the
     * holder's transaction; one that is the blocker, the blocker's. */
    ls_root_link holder = {30, 0, 30, 9, 20, 8};
    ls_root_link blocker = {20, 0, 30, 9, 20, 8};
    /* The root is the holder whose transaction is unknown: not the
     * blocker's, even when the blocker is the same process. */
    ls_root_link unknown = {20, 0, 20, 0, 20, 8};
    /* The root is neither. */
    ls_root_link other = {40, 0, 30, 9, 20, 8};

    CHECK_INT(ls_root_tx(&none), 0);
    CHECK_INT(ls_root_tx(&xid), 7);
    CHECK_INT(ls_root_tx(&same), 8);
    CHECK_INT(ls_root_tx(&holder), 9);
    CHECK_INT(ls_root_tx(&blocker), 8);
    CHECK_INT(ls_root_tx(&unknown), 0);
    CHECK_INT(ls_root_tx(&other), 0);
}

int main(void)
{
    test_root_tx();
    return TEST_REPORT();
}
