/*
 * test_decide_tolerances.c — decide/tolerances.h: each constant that SQL
 * text pastes in with LS_SQL_INT() reads there as the same number C uses,
 * and the relations the decisions rely on hold.
 */
#include <stdio.h>
#include <stdlib.h>

#include "decide/tolerances.h"
#include "ls_test.h"

/* SQL's literal and C's value of one constant agree. */
#define CHECK_SQL_INT(c) CHECK_INT(strtoll(LS_SQL_INT(c), NULL, 10), (c))

static void test_sql_literals(void)
{
    CHECK_SQL_INT(LS_WHOLE_SECOND_US);
    CHECK_SQL_INT(LS_MILLISECOND_US);
    CHECK_SQL_INT(LS_SERIALIZATION_WINDOW_US);
    CHECK_SQL_INT(LS_ERROR_ENDS_WAIT_US);
    CHECK_SQL_INT(LS_LINE_START_SLACK_US);
    CHECK_SQL_INT(LS_START_SLACK_US);
    CHECK_SQL_INT(LS_POS_CANDIDATES_WHOLE);
    CHECK_SQL_INT(LS_OPEN_TX_CANDIDATES);
    CHECK_SQL_INT(LS_RETRY_WINDOW_US);
    /* a literal of digits alone, nothing SQL would read otherwise */
    CHECK_STR(LS_SQL_INT(LS_WHOLE_SECOND_US), "1000000");
    CHECK_STR(LS_SQL_INT(LS_EPISODE_SLACK_WHOLE_US), "1000000");
}

static void test_relations(void)
{
    CHECK_INT(LS_WHOLE_SECOND_US, 1000 * LS_MILLISECOND_US);
    CHECK_INT(LS_US_PER_MS, LS_MILLISECOND_US);
    /* the slack of each time resolution is that resolution */
    CHECK_INT(LS_EPISODE_SLACK_US, LS_MILLISECOND_US);
    CHECK_INT(LS_EPISODE_SLACK_WHOLE_US, LS_WHOLE_SECOND_US);
    /* whole seconds look at more of a process's waits than %m */
    CHECK(LS_OPEN_WAIT_CANDIDATES_WHOLE > LS_OPEN_WAIT_CANDIDATES);
    CHECK(LS_CHAIN_MAX >= 2); /* the waiter and its direct blocker */
}

int main(void)
{
    test_sql_literals();
    test_relations();
    return TEST_REPORT();
}
