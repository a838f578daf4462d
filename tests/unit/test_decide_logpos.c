/*
 * test_decide_logpos.c — decide/logpos.h: the log's order, which decides
 * where timestamps tie. Files in reading order first, then lines.
 */
#include "decide/logpos.h"
#include "ls_test.h"

static void test_cmp(void)
{
    ls_logpos a = {1, 100}, b = {1, 101}, c = {2, 1}, z = {0, 0};
    /* equal positions tie */
    CHECK_INT(ls_logpos_cmp(a, a), 0);
    /* lines within a file */
    CHECK(ls_logpos_cmp(a, b) < 0);
    CHECK(ls_logpos_cmp(b, a) > 0);
    /* a later file comes after, whatever the lines */
    CHECK(ls_logpos_cmp(b, c) < 0);
    CHECK(ls_logpos_cmp(c, b) > 0);
    /* large line numbers do not overflow the comparison */
    {
        ls_logpos big = {1, INT64_MAX}, small = {1, INT64_MIN};
        CHECK(ls_logpos_cmp(small, big) < 0);
        CHECK(ls_logpos_cmp(big, small) > 0);
    }
    CHECK_INT(ls_logpos_known(z), 0);
    CHECK_INT(ls_logpos_known(a), 1);
    CHECK_INT(ls_logpos_known((ls_logpos){0, 5}), 1);
}

int main(void)
{
    test_cmp();
    return TEST_REPORT();
}
