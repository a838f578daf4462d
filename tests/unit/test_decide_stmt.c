/*
 * test_decide_stmt.c — decide/stmt.c: which logged line of the waiter's
 * session is the statement that waited. Candidates are in log order;
 * {after the wait's message, has a duration, a bind line, duration µs}.
 */
#include "decide/stmt.h"
#include "decide/tolerances.h"
#include "ls_test.h"

/* Empty input, and a single line on either side of the message. */
static void test_edges(void)
{
    ls_stmt_candidate before_stmt[] = {{0, 0, 0, 0}};
    ls_stmt_candidate after_dur[] = {{1, 1, 0, 5}};
    ls_stmt_candidate after_stmt[] = {{1, 0, 0, 0}};
    CHECK_INT(ls_pick_waiter_stmt(NULL, 0), -1);
    CHECK_INT(ls_pick_waiter_line(NULL, 0, 0), -1);
    CHECK_INT(ls_pick_waiter_line(NULL, 0, 1), -1);
    CHECK_INT(ls_pick_waiter_stmt(before_stmt, 1), 0);
    CHECK_INT(ls_pick_waiter_stmt(after_dur, 1), 0);
    /* a statement line logged after the wait's message began later */
    CHECK_INT(ls_pick_waiter_stmt(after_stmt, 1), -1);
}

/* The cases test_correlate.c had. */
static void test_pick_waiter(void)
{
    /* Duration logs: the first duration line after the wait's message. */
    ls_stmt_candidate d[] = {{0, 1, 0, 0}, {1, 1, 0, 0}, {1, 1, 0, 0}};
    /* log_statement = 'all': the last statement line before it. */
    ls_stmt_candidate a[] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}};
    /* A statement that failed in its wait has no duration line. */
    ls_stmt_candidate f[] = {{0, 1, 0, 0}};
    CHECK_INT(ls_pick_waiter_stmt(d, 3), 1);
    CHECK_INT(ls_pick_waiter_stmt(a, 3), 1);
    CHECK_INT(ls_pick_waiter_stmt(f, 1), -1);
    /* Both kinds: the first duration line after wins over a statement
     * line before (the duration line is the one that ended it). */
    {
        ls_stmt_candidate m[] = {{0, 0, 0, 0}, {1, 1, 0, 0}};
        CHECK_INT(ls_pick_waiter_stmt(m, 2), 1);
    }
}

/* Bind lines and statements that failed in their wait. */
static void test_pick_line(void)
{
    /* The extended protocol: bind before, execute's duration after. */
    ls_stmt_candidate e[] = {{0, 1, 1, 0}, {1, 1, 0, 0}};
    /* A deadlock victim: its bind before; after, the ROLLBACK's duration. */
    ls_stmt_candidate v[] = {{0, 1, 1, 0}, {1, 1, 0, 0}};
    /* Two binds before: the last. */
    ls_stmt_candidate b[] = {{0, 1, 1, 0}, {0, 1, 1, 0}, {1, 1, 1, 0}};
    CHECK_INT(ls_pick_waiter_line(e, 2, 0), 1);
    CHECK_INT(ls_pick_waiter_line(v, 2, 1), 0);
    CHECK_INT(ls_pick_waiter_line(b, 3, 0), 1);
    /* A failed wait with a statement line before: that line. */
    {
        ls_stmt_candidate s[] = {{0, 0, 0, 0}, {0, 1, 1, 0}, {1, 1, 0, 0}};
        CHECK_INT(ls_pick_waiter_line(s, 3, 1), 0);
        CHECK_INT(ls_pick_waiter_line(s, 3, 0), 2);
    }
}

/* Whether the candidates may have missed the waiter's statement. */
static void test_missed(void)
{
    /* waited 100 ms: a statement of exactly 100 ms less the slack is long
     * enough; a microsecond shorter is a later statement. */
    ls_stmt_candidate ok = {1, 1, 0, 100 * LS_US_PER_MS - LS_STMT_DURATION_SLACK_US};
    ls_stmt_candidate shorter = {1, 1, 0, 100 * LS_US_PER_MS - LS_STMT_DURATION_SLACK_US - 1};
    ls_stmt_candidate before = {0, 0, 0, 0};
    CHECK_INT(ls_waiter_stmt_missed(&ok, 0, 100.0), 0);
    CHECK_INT(ls_waiter_stmt_missed(&shorter, 0, 100.0), 1);
    CHECK_INT(ls_waiter_stmt_missed(&before, 0, 100.0), 1);
    CHECK_INT(ls_waiter_stmt_missed(NULL, 0, 100.0), 1);
    /* a failed wait logged no end: nothing to miss */
    CHECK_INT(ls_waiter_stmt_missed(NULL, 1, 100.0), 0);
    CHECK_INT(ls_waiter_stmt_missed(&shorter, 1, 100.0), 0);
}

/* Only acquired locks are held: a failed statement and its rows. */
static void test_lock_holds(void)
{
    /* ran to its end: held, whatever else is said */
    ls_locked_row ok = {0, 0, 7, 0, 0};
    ls_locked_row ok_same = {0, 1, 7, 7, 0};
    /* 40001 / lock timeout on its own row, the wait logged: not held */
    ls_locked_row own = {1, 1, 7, 7, 0};
    /* ... even when an earlier wait of it for that row was granted (an
     * "acquired" transaction lock, then 40001 on the row) */
    ls_locked_row own_acq = {1, 1, 7, 7, 1};
    /* the same with no wait logged (below deadlock_timeout): not held */
    ls_locked_row own_unlogged = {1, 1, 7, 0, 0};
    /* a multi-row statement: a row its logged wait got, then failed on row 9 */
    ls_locked_row before_acq = {1, 1, 7, 9, 1};
    /* a row other than the logged one it failed on: locked before it */
    ls_locked_row before = {1, 1, 7, 9, 0};
    /* a row it waited for and got, the failure's wait not logged */
    ls_locked_row acq_unlogged = {1, 1, 7, 0, 1};
    /* not a lock error (a constraint after the write): held */
    ls_locked_row other = {1, 0, 7, 0, 0};
    /* a cancel that ended its wait for this row: not held */
    ls_locked_row other_wait = {1, 0, 7, 7, 0};
    CHECK_INT(ls_locked_row_held(&ok), 1);
    CHECK_INT(ls_locked_row_held(&ok_same), 1);
    CHECK_INT(ls_locked_row_held(&own), 0);
    CHECK_INT(ls_locked_row_held(&own_acq), 0);
    CHECK_INT(ls_locked_row_held(&own_unlogged), 0);
    CHECK_INT(ls_locked_row_held(&before_acq), 1);
    CHECK_INT(ls_locked_row_held(&before), 1);
    CHECK_INT(ls_locked_row_held(&acq_unlogged), 1);
    CHECK_INT(ls_locked_row_held(&other), 1);
    CHECK_INT(ls_locked_row_held(&other_wait), 0);
}

int main(void)
{
    test_edges();
    test_pick_waiter();
    test_pick_line();
    test_missed();
    test_lock_holds();
    return TEST_REPORT();
}
