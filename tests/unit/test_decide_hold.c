/*
 * test_decide_hold.c — decide/hold.c: a hold's end and start with their
 * bounds, and what its holder did while others waited. Boundary cases
 * first: an acquisition at the transaction's very end, a write begun
 * exactly LS_MILLISECOND_US after the first wait, a start exactly the
 * resolution after the first wait for the transaction, ties in the state.
 */
#include <string.h>

#include "decide/hold.h"
#include "decide/tolerances.h"
#include "ls_test.h"

#define MS 1000

static ls_hold_end_in end_in(int tx_has_end, int64_t tx_end, const char *known, int acq_known,
                             int64_t acq, int64_t last)
{
    ls_hold_end_in in;
    in.tx_has_end = tx_has_end;
    in.tx_end = tx_end;
    in.tx_end_known = known;
    in.first_acq_known = acq_known;
    in.first_acq = acq;
    in.last_wait_end = last;
    in.aborted = 0;
    in.aborted_at = 0;
    return in;
}

static void test_end(void)
{
    ls_hold_bound e;
    ls_hold_end_in in;

    /* COMMIT's start logged; the first waiter acquired later: the end is
     * that acquisition, lo the COMMIT's start. */
    in = end_in(1, 100 * MS, LS_HOLD_COMMIT_START, 1, 130 * MS, 140 * MS);
    ls_hold_end(&in, &e);
    CHECK_INT(e.lo, 100 * MS);
    CHECK_INT(e.ts, 130 * MS);
    CHECK_INT(e.hi, 130 * MS);
    CHECK_STR(e.evidence, "first waiter acquired (COMMIT started earlier)");
    in.tx_end_known = LS_HOLD_ROLLBACK_START;
    ls_hold_end(&in, &e);
    CHECK_STR(e.evidence, "first waiter acquired (ROLLBACK started earlier)");
    /* Acquired at the COMMIT's start exactly (not later): the
     * transaction's end stands (first_acq > tx_end, not >=). */
    in = end_in(1, 100 * MS, LS_HOLD_COMMIT_START, 1, 100 * MS, 140 * MS);
    ls_hold_end(&in, &e);
    CHECK_INT(e.ts, 100 * MS);
    CHECK_INT(e.lo, 100 * MS);
    CHECK_INT(e.hi, 100 * MS);
    CHECK_STR(e.evidence, LS_HOLD_COMMIT_START);
    /* A logged end (with a duration): the end, hi the later acquisition. */
    in = end_in(1, 100 * MS, "commit", 1, 130 * MS, 140 * MS);
    ls_hold_end(&in, &e);
    CHECK_INT(e.ts, 100 * MS);
    CHECK_INT(e.lo, 100 * MS);
    CHECK_INT(e.hi, 130 * MS);
    CHECK_STR(e.evidence, "commit");
    /* An acquisition before the logged end does not move hi below it. */
    in = end_in(1, 100 * MS, "commit", 1, 90 * MS, 140 * MS);
    ls_hold_end(&in, &e);
    CHECK_INT(e.hi, 100 * MS);
    /* No transaction end: the first acquisition, else the last wait's end. */
    in = end_in(0, 0, "", 1, 120 * MS, 140 * MS);
    ls_hold_end(&in, &e);
    CHECK_INT(e.ts, 120 * MS);
    CHECK_INT(e.hi, 120 * MS);
    CHECK_STR(e.evidence, "bounded by first acquisition");
    in = end_in(0, 0, "", 0, 0, 140 * MS);
    ls_hold_end(&in, &e);
    CHECK_INT(e.ts, 140 * MS);
    CHECK_INT(e.lo, 140 * MS);
    CHECK_INT(e.hi, 140 * MS);
    CHECK_STR(e.evidence, "bounded by last wait");
}

/* An error that aborted the transaction releases its locks there (issue
 * 34 item 5: a deadlock victim's rows are free at its error, its ROLLBACK
 * comes later). */
static void test_end_aborted(void)
{
    ls_hold_bound e;
    ls_hold_end_in in;

    /* The victim's ROLLBACK 300 ms after its error: the error ends it;
     * hi is the survivor's acquisition just after. */
    in = end_in(1, 400 * MS, "rollback", 1, 101 * MS, 140 * MS);
    in.aborted = 1;
    in.aborted_at = 100 * MS;
    ls_hold_end(&in, &e);
    CHECK_INT(e.ts, 100 * MS);
    CHECK_INT(e.lo, 100 * MS);
    CHECK_INT(e.hi, 101 * MS);
    CHECK_STR(e.evidence, LS_HOLD_ABORTED);
    /* Under log_statement = 'all' too (the ROLLBACK's start logged). */
    in.tx_end_known = LS_HOLD_ROLLBACK_START;
    ls_hold_end(&in, &e);
    CHECK_INT(e.ts, 100 * MS);
    CHECK_STR(e.evidence, LS_HOLD_ABORTED);
    /* The error in the ROLLBACK's millisecond: the same end, said to be
     * the error's (the evidence does not depend on the log's rounding). */
    in = end_in(1, 100 * MS, "rollback", 0, 0, 0);
    in.aborted = 1;
    in.aborted_at = 100 * MS;
    ls_hold_end(&in, &e);
    CHECK_INT(e.ts, 100 * MS);
    CHECK_STR(e.evidence, LS_HOLD_ABORTED);
    /* An error after the transaction's end (not its own): the end stands. */
    in.aborted_at = 100 * MS + 1;
    ls_hold_end(&in, &e);
    CHECK_INT(e.ts, 100 * MS);
    CHECK_STR(e.evidence, "rollback");
    /* Not aborted: the ROLLBACK ends it. */
    in = end_in(1, 400 * MS, "rollback", 0, 0, 0);
    in.aborted_at = 100 * MS;
    ls_hold_end(&in, &e);
    CHECK_INT(e.ts, 400 * MS);
    /* No transaction end known: the error ends it. */
    in = end_in(0, 0, "", 1, 130 * MS, 140 * MS);
    in.aborted = 1;
    in.aborted_at = 100 * MS;
    ls_hold_end(&in, &e);
    CHECK_INT(e.ts, 100 * MS);
    CHECK_INT(e.hi, 130 * MS);
}

static void test_aborted(void)
{
    /* Rolled back, an error, nothing ran after it, the hold before it. */
    CHECK_INT(ls_hold_aborted(1, 1, 100 * MS, 0, 50 * MS), 1);
    CHECK_INT(ls_hold_aborted(1, 1, 100 * MS, 0, 100 * MS), 1); /* same ms: begun by then */
    CHECK_INT(ls_hold_aborted(1, 1, 100 * MS, 0, 100 * MS + 1), 0);
    CHECK_INT(ls_hold_aborted(0, 1, 100 * MS, 0, 50 * MS), 0);  /* committed */
    CHECK_INT(ls_hold_aborted(1, 0, 100 * MS, 0, 50 * MS), 0);  /* no error */
    CHECK_INT(ls_hold_aborted(1, 1, 100 * MS, 1, 50 * MS), 0);  /* ran on: a savepoint */
}

static ls_hold_stmt stmt(int64_t id, int64_t start, int has_end, int64_t end, int write,
                         int is_end, int names_row, int names_rel)
{
    ls_hold_stmt st;
    memset(&st, 0, sizeof(st));
    st.id = id;
    st.start = start;
    st.has_end = has_end;
    st.end = end;
    st.is_write = write;
    st.is_end = is_end;
    st.names_row = names_row;
    st.names_rel = names_rel;
    return st;
}

static void test_walk(void)
{
    ls_hold_walk w;
    ls_hold_bound start = {10 * MS, 5 * MS, 50 * MS, "bounded by transaction start and first wait"};
    ls_hold_stmt st;

    /* Empty transaction: nothing moves, no time. */
    ls_hold_walk_begin(&w, 50 * MS, 200 * MS, &start, 0);
    ls_hold_walk_end(&w, 0, 0, MS);
    CHECK_INT(w.lock_stmt, 0);
    CHECK_INT(w.start.ts, 10 * MS);
    CHECK_INT(w.sql_us + w.commit_us, 0);
    CHECK_INT(w.c_end - w.first_wait, 150 * MS);

    /* The write naming the row's key is the locking statement: the start
     * is its end, lo its start; a second one does not move it. */
    ls_hold_walk_begin(&w, 50 * MS, 200 * MS, &start, 0);
    st = stmt(7, 20 * MS, 1, 30 * MS, 1, 0, 1, 1);
    ls_hold_walk_stmt(&w, &st);
    st = stmt(8, 35 * MS, 1, 40 * MS, 1, 0, 1, 1);
    ls_hold_walk_stmt(&w, &st);
    ls_hold_walk_end(&w, 0, 0, MS);
    CHECK_INT(w.lock_stmt, 7);
    CHECK_INT(w.start.lo, 20 * MS);
    CHECK_INT(w.start.ts, 30 * MS);
    CHECK_INT(w.start.hi, 30 * MS);
    CHECK_STR(w.start.evidence, LS_HOLD_BY_KEY);

    /* A locking statement the transactions pass found is kept. */
    ls_hold_walk_begin(&w, 50 * MS, 200 * MS, &start, 3);
    st = stmt(7, 20 * MS, 1, 30 * MS, 1, 0, 1, 1);
    ls_hold_walk_stmt(&w, &st);
    ls_hold_walk_end(&w, 0, 0, MS);
    CHECK_INT(w.lock_stmt, 3);
    CHECK_INT(w.start.ts, 10 * MS);

    /* The first write to the relation: begun exactly LS_MILLISECOND_US
     * after the first wait counts, one microsecond later does not. */
    ls_hold_walk_begin(&w, 50 * MS, 200 * MS, &start, 0);
    st = stmt(9, 50 * MS + LS_MILLISECOND_US, 1, 60 * MS, 1, 0, 0, 1);
    ls_hold_walk_stmt(&w, &st);
    ls_hold_walk_end(&w, 0, 0, MS);
    CHECK_INT(w.lock_stmt, 9);
    CHECK_INT(w.start.lo, 50 * MS + LS_MILLISECOND_US);
    CHECK_INT(w.start.ts, 60 * MS);
    CHECK_STR(w.start.evidence, LS_HOLD_BY_FIRST_WRITE);
    ls_hold_walk_begin(&w, 50 * MS, 200 * MS, &start, 0);
    st = stmt(9, 50 * MS + LS_MILLISECOND_US + 1, 1, 60 * MS, 1, 0, 0, 1);
    ls_hold_walk_stmt(&w, &st);
    ls_hold_walk_end(&w, 0, 0, MS);
    CHECK_INT(w.lock_stmt, 0);
    CHECK_INT(w.start.ts, 10 * MS);
    /* A write naming the key wins over an earlier write to the relation. */
    ls_hold_walk_begin(&w, 50 * MS, 200 * MS, &start, 0);
    st = stmt(4, 15 * MS, 1, 16 * MS, 1, 0, 0, 1);
    ls_hold_walk_stmt(&w, &st);
    st = stmt(5, 20 * MS, 1, 25 * MS, 1, 0, 1, 1);
    ls_hold_walk_stmt(&w, &st);
    ls_hold_walk_end(&w, 0, 0, MS);
    CHECK_INT(w.lock_stmt, 5);
    CHECK_INT(w.start.ts, 25 * MS);
    /* A read is neither. */
    ls_hold_walk_begin(&w, 50 * MS, 200 * MS, &start, 0);
    st = stmt(4, 15 * MS, 1, 16 * MS, 0, 0, 1, 1);
    ls_hold_walk_stmt(&w, &st);
    ls_hold_walk_end(&w, 0, 0, MS);
    CHECK_INT(w.lock_stmt, 0);

    /* Time while others waited (50..200 ms): a statement's part inside
     * the contention is SQL; a COMMIT without a duration runs to the end. */
    ls_hold_walk_begin(&w, 50 * MS, 200 * MS, &start, 3);
    st = stmt(4, 40 * MS, 1, 70 * MS, 1, 0, 0, 0);
    ls_hold_walk_stmt(&w, &st);
    st = stmt(5, 150 * MS, 0, 0, 0, 1, 0, 0);
    ls_hold_walk_stmt(&w, &st);
    CHECK_INT(w.sql_us, 20 * MS);
    CHECK_INT(w.commit_us, 50 * MS);
    /* A statement without a duration that is not the end: no time. */
    st = stmt(6, 100 * MS, 0, 0, 0, 0, 0, 0);
    ls_hold_walk_stmt(&w, &st);
    CHECK_INT(w.sql_us, 20 * MS);
    /* A hold ending before the first wait: no contention. */
    ls_hold_walk_begin(&w, 50 * MS, 40 * MS, &start, 3);
    CHECK_INT(w.c_end, 50 * MS);
}

static void test_moved_back(void)
{
    ls_hold_walk w;
    ls_hold_bound start = {100 * MS, 80 * MS, 120 * MS, "end of the locking statement"};

    /* A start exactly the resolution after the first wait for the
     * transaction stays (>, not >=); one microsecond more moves back. */
    ls_hold_walk_begin(&w, 90 * MS, 300 * MS, &start, 3);
    ls_hold_walk_end(&w, 1, 100 * MS - MS, MS);
    CHECK_INT(w.start.ts, 100 * MS);
    CHECK_STR(w.start.evidence, "end of the locking statement");
    CHECK_INT(w.start.hi, 99 * MS);
    ls_hold_walk_begin(&w, 90 * MS, 300 * MS, &start, 3);
    ls_hold_walk_end(&w, 1, 100 * MS - MS - 1, MS);
    CHECK_INT(w.start.ts, 99 * MS - 1);
    CHECK_INT(w.start.hi, 99 * MS - 1);
    CHECK_STR(w.start.evidence, LS_HOLD_BY_TX_WAIT);
    /* No wait for the transaction (only tuple waits): nothing moves. */
    ls_hold_walk_begin(&w, 90 * MS, 300 * MS, &start, 3);
    ls_hold_walk_end(&w, 0, 10 * MS, MS);
    CHECK_INT(w.start.ts, 100 * MS);
    CHECK_INT(w.start.hi, 120 * MS);
    /* lo never after the start it bounds. */
    ls_hold_walk_begin(&w, 90 * MS, 300 * MS, &start, 3);
    ls_hold_walk_end(&w, 1, 50 * MS, MS);
    CHECK_INT(w.start.ts, 50 * MS);
    CHECK_INT(w.start.lo, 50 * MS);
    /* Whole seconds: a start in the same second as the wait stays. */
    ls_hold_walk_begin(&w, 90 * MS, 300 * MS, &start, 3);
    ls_hold_walk_end(&w, 1, 0, LS_WHOLE_SECOND_US);
    CHECK_INT(w.start.ts, 100 * MS);
}

static void test_state(void)
{
    int64_t idle;
    /* Ties: idle wins over both, committing over running. */
    CHECK_STR(ls_hold_state(300, 100, 100, 1, &idle), "idle_in_transaction");
    CHECK_INT(idle, 100);
    CHECK_STR(ls_hold_state(200, 100, 100, 1, &idle), "committing");
    CHECK_INT(idle, 0);
    CHECK_STR(ls_hold_state(250, 150, 100, 1, &idle), "running");
    CHECK_STR(ls_hold_state(250, 100, 150, 1, &idle), "committing");
    /* More running than contended (overlaps): idle is 0, not negative. */
    CHECK_STR(ls_hold_state(100, 150, 0, 1, &idle), "running");
    CHECK_INT(idle, 0);
    /* Without durations only committing is known. */
    CHECK_STR(ls_hold_state(250, 150, 100, 0, &idle), "unknown");
    CHECK_STR(ls_hold_state(300, 0, 0, 0, &idle), "unknown");
    CHECK_STR(ls_hold_state(300, 0, 200, 0, &idle), "committing");
    /* Empty: idle (0 >= 0). */
    CHECK_STR(ls_hold_state(0, 0, 0, 1, &idle), "idle_in_transaction");
}

static void test_overlap(void)
{
    CHECK_INT(ls_overlap(0, 10, 10, 20), 0); /* touching */
    CHECK_INT(ls_overlap(0, 11, 10, 20), 1);
    CHECK_INT(ls_overlap(12, 15, 10, 20), 3);
    CHECK_INT(ls_overlap(5, 5, 0, 20), 0);
}

/* A statement that queued twice for its row (a holder, then the next one
 * "while rechecking updated tuple") has it at its last acquisition; a
 * wait keyed to no row falls back to the first of those; another row's
 * acquisition never counts for this one. */
static void test_acquired(void)
{
    const ls_acquisition twice[] = {{1000, 7}, {5000, 7}, {9000, 7}};
    const ls_acquisition mixed[] = {{1000, 8}, {2000, 7}, {3000, 8}};
    const ls_acquisition unkeyed[] = {{1500, 0}, {2500, 0}};
    const ls_acquisition other_then_unkeyed[] = {{1000, 8}, {2500, 0}, {3000, 0}};

    CHECK_INT(ls_hold_acquired(twice, 3, 7), 9000);
    CHECK_INT(ls_hold_acquired(twice, 1, 7), 1000);
    CHECK_INT(ls_hold_acquired(mixed, 3, 7), 2000);
    CHECK_INT(ls_hold_acquired(mixed, 3, 8), 3000);
    /* no acquisition keyed to the row: the first keyed to none */
    CHECK_INT(ls_hold_acquired(unkeyed, 2, 7), 1500);
    CHECK_INT(ls_hold_acquired(other_then_unkeyed, 3, 7), 2500);
    /* only other rows' acquisitions: none is this row's (samples/blind-py:
     * an INSERT whose trigger bumps merchant_totals, logged in the second
     * its own UPDATE of stock got that row, took the stock acquisition for
     * the counter row's) */
    CHECK_INT(ls_hold_acquired(mixed, 3, 9), 0);
    /* row 0 (not known) matches nothing keyed: the first */
    CHECK_INT(ls_hold_acquired(twice, 3, 0), 1000);
    CHECK_INT(ls_hold_acquired(NULL, 0, 7), 0);
}

/* Issue 34: samples/blind-java, pid 14679 (PostgreSQL 15, whole-second
 * stamps): transferCredit's second UPDATE logs only
 *   06:19:11 bind <unnamed>: UPDATE accounts SET balance = balance + $1 ...
 * then waits, and at 06:19:15 "ERROR:  deadlock detected": the 3 s (less
 * the stamps' rounding) are the statement's, waiting, not idle. */
static void test_failed_end(void)
{
    const int64_t bind = 1796624351999987, bind_end = bind + 13, err = 1796624355000000;
    ls_hold_walk w;
    ls_hold_bound start = {bind - 1000000, bind - 1000000, bind - 1000000, "x"};
    ls_hold_stmt st;
    int64_t idle;

    CHECK_INT(ls_hold_failed_end(bind_end, 1, err), err);
    /* no error after it: the bind's own end */
    CHECK_INT(ls_hold_failed_end(bind_end, 0, err), bind_end);
    /* the boundary: an error stamped before the bind's end (the same
     * whole second) never moves the end back */
    CHECK_INT(ls_hold_failed_end(bind_end, 1, bind_end - 1), bind_end);
    CHECK_INT(ls_hold_failed_end(bind_end, 1, bind_end), bind_end);
    CHECK_INT(ls_hold_failed_end(bind_end, 1, bind_end + 1), bind_end + 1);
    /* the hold of its first UPDATE, waited for from the bind on: with the
     * failed statement run to its error the holder was running, not idle */
    ls_hold_walk_begin(&w, bind, err, &start, 1);
    memset(&st, 0, sizeof(st));
    st.id = 2;
    st.start = bind;
    st.has_end = 1;
    st.end = ls_hold_failed_end(bind_end, 1, err);
    ls_hold_walk_stmt(&w, &st);
    CHECK(strcmp(ls_hold_state(w.c_end - w.first_wait, w.sql_us, w.commit_us, 1, &idle),
                 "idle_in_transaction") != 0);
    CHECK_INT(idle, 0);
}

int main(void)
{
    test_failed_end();
    test_acquired();
    test_end();
    test_end_aborted();
    test_aborted();
    test_walk();
    test_moved_back();
    test_state();
    test_overlap();
    return TEST_REPORT();
}
