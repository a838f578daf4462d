/*
 * test_correlate.c — the decisions of correlation that are pure functions:
 * whether a wait was open when another was logged (log order where
 * whole-second timestamps tie), and which logged statement is a waiter's.
 */
#include "correlate_int.h"
#include "ls_test.h"

#define S 1000000 /* one second in µs */

static ls_wait_span span(int64_t start, int64_t end, int64_t first_line, int64_t end_line)
{
    ls_wait_span w;
    w.start_ts = start;
    w.end_ts = end;
    w.has_end = end != 0;
    w.first.file = 1;
    w.first.line = first_line;
    w.end.file = end_line ? 1 : 0;
    w.end.line = end_line;
    return w;
}

static void test_open_at(void)
{
    ls_logpos at = {1, 100};
    ls_wait_span w;

    /* Millisecond times: the times decide. */
    w = span(10 * S, 12 * S, 90, 120);
    CHECK_INT(ls_wait_open_at(&w, 11 * S, at, 1), 1);
    /* Closed by a message logged before the moment: not open, even when the
     * whole-second end time equals the moment's. */
    w = span(10 * S, 11 * S, 90, 99);
    CHECK_INT(ls_wait_open_at(&w, 11 * S, at, 0), 0);
    /* Closed by a message logged after it: open, whatever the times say. */
    w = span(10 * S, 11 * S, 90, 101);
    CHECK_INT(ls_wait_open_at(&w, 11 * S, at, 0), 1);
    /* %t: first logged later in the same second (its computed start, 0.2 s
     * before its whole-second message time, is not before the moment). */
    w = span(11 * S - S / 5, 0, 105, 0);
    CHECK_INT(ls_wait_open_at(&w, 11 * S, at, 0), 0);
    /* ... but with millisecond times the start decides. */
    CHECK_INT(ls_wait_open_at(&w, 11 * S, at, 1), 1);
    /* %t: logged later, but its wait began a whole second earlier. */
    w = span(9 * S, 0, 105, 0);
    CHECK_INT(ls_wait_open_at(&w, 11 * S, at, 0), 1);
    /* No closing position: its end time decides. */
    w = span(9 * S, 10 * S, 50, 0);
    CHECK_INT(ls_wait_open_at(&w, 11 * S, at, 1), 0);
}

static void test_pick_waiter(void)
{
    /* Duration logs: the first duration line after the wait's message. */
    ls_stmt_candidate d[] = {{0, 1}, {1, 1}, {1, 1}};
    /* log_statement = 'all': the last statement line before it. */
    ls_stmt_candidate a[] = {{0, 0}, {0, 0}, {1, 0}};
    /* A statement that failed in its wait has no duration line. */
    ls_stmt_candidate f[] = {{0, 1}};
    CHECK_INT(ls_pick_waiter_stmt(d, 3), 1);
    CHECK_INT(ls_pick_waiter_stmt(a, 3), 1);
    CHECK_INT(ls_pick_waiter_stmt(f, 1), -1);
    CHECK_INT(ls_pick_waiter_stmt(NULL, 0), -1);
}

int main(void)
{
    test_open_at();
    test_pick_waiter();
    return TEST_REPORT();
}
