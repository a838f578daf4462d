/*
 * test_decide_retry.c — decide/retry.c: which statement retried a lock
 * error. Boundaries: the error's own time, the window's edge, a
 * different shape.
 */
#include "decide/retry.h"
#include "decide/tolerances.h"
#include "ls_test.h"

#define ERR_TS 1796544739000000LL /* 08:12:19, a whole second of blind-py */

static void test_window(void)
{
    /* strictly after the error, up to the window's end inclusive */
    CHECK_INT(ls_retry_is(ERR_TS, ERR_TS + 1, 1), 1);
    CHECK_INT(ls_retry_is(ERR_TS, ERR_TS + LS_RETRY_WINDOW_US, 1), 1);
    CHECK_INT(ls_retry_is(ERR_TS, ERR_TS + LS_RETRY_WINDOW_US + 1, 1), 0);
    /* the error's own time is not after it, nor anything before */
    CHECK_INT(ls_retry_is(ERR_TS, ERR_TS, 1), 0);
    CHECK_INT(ls_retry_is(ERR_TS, ERR_TS - 1, 1), 0);
}

static void test_shape(void)
{
    /* another statement shape is never the retry, however close */
    CHECK_INT(ls_retry_is(ERR_TS, ERR_TS + 1, 0), 0);
}

int main(void)
{
    test_window();
    test_shape();
    return TEST_REPORT();
}
