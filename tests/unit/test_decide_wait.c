/*
 * test_decide_wait.c — decide/wait.c: whether a wait was on at a moment,
 * which messages make one episode, its start and end, and whether an
 * error ended it. Boundary cases first: equal log positions, equal times,
 * exactly the tolerance.
 */
#include "decide/tolerances.h"
#include "decide/wait.h"
#include "ls_test.h"

#define S LS_WHOLE_SECOND_US
#define MS LS_MILLISECOND_US

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

/* Boundaries of ls_wait_open_at: the moment is the message at line 100. */
static void test_open_at_boundaries(void)
{
    ls_logpos at = {1, 100};
    ls_wait_span w;

    /* Its first message is the moment's own line: it had begun (<=). */
    w = span(20 * S, 0, 100, 0);
    CHECK_INT(ls_wait_open_at(&w, 11 * S, at, 1), 1);
    CHECK_INT(ls_wait_open_at(&w, 11 * S, at, 0), 1);
    /* Its closing message is the moment's own line: still on (only an end
     * logged before the moment ended it). */
    w = span(10 * S, 11 * S, 90, 100);
    CHECK_INT(ls_wait_open_at(&w, 11 * S, at, 0), 1);
    w = span(10 * S, 11 * S, 90, 99);
    CHECK_INT(ls_wait_open_at(&w, 11 * S, at, 0), 0);
    /* Whole seconds, first logged after the moment: a start exactly one
     * second before the moment is sure (the tolerance, <=); a microsecond
     * later is not. */
    w = span(10 * S, 0, 105, 0);
    CHECK_INT(ls_wait_open_at(&w, 11 * S, at, 0), 1);
    w = span(10 * S + 1, 0, 105, 0);
    CHECK_INT(ls_wait_open_at(&w, 11 * S, at, 0), 0);
    /* Sub-second, first logged after: a start at the moment's time is on
     * (equal timestamps), one microsecond after is not. */
    w = span(11 * S, 0, 105, 0);
    CHECK_INT(ls_wait_open_at(&w, 11 * S, at, 1), 1);
    w = span(11 * S + 1, 0, 105, 0);
    CHECK_INT(ls_wait_open_at(&w, 11 * S, at, 1), 0);
    /* No closing position: an end at the moment's time is on, one a
     * microsecond before is over. */
    w = span(9 * S, 11 * S, 50, 0);
    CHECK_INT(ls_wait_open_at(&w, 11 * S, at, 1), 1);
    w = span(9 * S, 11 * S - 1, 50, 0);
    CHECK_INT(ls_wait_open_at(&w, 11 * S, at, 1), 0);
    /* A closing position in an earlier file ends it, whatever its line. */
    w = span(9 * S, 12 * S, 50, 0);
    w.end.file = 0;
    w.end.line = 500;
    CHECK_INT(ls_wait_open_at(&w, 11 * S, (ls_logpos){2, 1}, 0), 0);
}

/* The cases test_correlate.c had: times where they decide, the log's
 * order where whole seconds tie. */
static void test_open_at(void)
{
    ls_logpos at = {1, 100};
    ls_wait_span w;

    w = span(10 * S, 12 * S, 90, 120);
    CHECK_INT(ls_wait_open_at(&w, 11 * S, at, 1), 1);
    w = span(10 * S, 11 * S, 90, 101);
    CHECK_INT(ls_wait_open_at(&w, 11 * S, at, 0), 1);
    w = span(11 * S - S / 5, 0, 105, 0);
    CHECK_INT(ls_wait_open_at(&w, 11 * S, at, 0), 0);
    CHECK_INT(ls_wait_open_at(&w, 11 * S, at, 1), 1);
    w = span(9 * S, 0, 105, 0);
    CHECK_INT(ls_wait_open_at(&w, 11 * S, at, 0), 1);
    w = span(9 * S, 10 * S, 50, 0);
    CHECK_INT(ls_wait_open_at(&w, 11 * S, at, 1), 0);
}

static void test_after_us(void)
{
    CHECK_INT(ls_wait_after_us(0.0), 0);
    CHECK_INT(ls_wait_after_us(240.695), 240695);
    CHECK_INT(ls_wait_after_us(1000.0), S);
    /* rounded to the nearest microsecond */
    CHECK_INT(ls_wait_after_us(0.0004), 0);
    CHECK_INT(ls_wait_after_us(0.0006), 1);
}

/* Which messages go on with an open episode. */
static void test_goes_on(void)
{
    /* The store knows: its answer, whatever the times. */
    CHECK_INT(ls_wait_goes_on(1, 100 * S, 0, 1), 1);
    CHECK_INT(ls_wait_goes_on(0, 0, 100 * S, 1), 0);
    /* Times: an implied start up to the resolution after the episode's
     * latest message goes on (exactly the tolerance included). */
    CHECK_INT(ls_wait_goes_on(-1, 10 * S, 10 * S, 1), 1);
    CHECK_INT(ls_wait_goes_on(-1, 10 * S + LS_EPISODE_SLACK_US, 10 * S, 1), 1);
    CHECK_INT(ls_wait_goes_on(-1, 10 * S + LS_EPISODE_SLACK_US + 1, 10 * S, 1), 0);
    CHECK_INT(ls_wait_goes_on(-1, 11 * S, 10 * S, 0), 1);
    CHECK_INT(ls_wait_goes_on(-1, 11 * S + 1, 10 * S, 0), 0);
}

/* The start an episode's messages imply, and its end. */
static void test_start_end(void)
{
    /* A message implying an earlier start moves it back. */
    CHECK_INT(ls_wait_start_with(10 * S, 11 * S, S + 5 * MS, 1), 10 * S - 5 * MS);
    /* Implying the same start, or a later one: unchanged. */
    CHECK_INT(ls_wait_start_with(10 * S, 11 * S, S, 1), 10 * S);
    CHECK_INT(ls_wait_start_with(10 * S, 11 * S, S - MS, 1), 10 * S);
    /* No "after X ms", or whole seconds: the first message's start stands. */
    CHECK_INT(ls_wait_start_with(10 * S, 11 * S, 0, 1), 10 * S);
    CHECK_INT(ls_wait_start_with(10 * S, 12 * S, 3 * S, 0), 10 * S);

    /* The closing line stamped late: the end is start + its own X. */
    CHECK_INT(ls_wait_end_at(10 * S, 11 * S, 240 * MS, 1), 10 * S + 240 * MS);
    /* start + X exactly the line's time: that time. */
    CHECK_INT(ls_wait_end_at(10 * S, 11 * S, S, 1), 11 * S);
    /* start + X after the line's time (the start moved back by an
     * earlier message): the line's time, never after it. */
    CHECK_INT(ls_wait_end_at(10 * S, 11 * S, S + 1, 1), 11 * S);
    /* whole seconds, or no X: the line's time */
    CHECK_INT(ls_wait_end_at(10 * S, 11 * S, 240 * MS, 0), 11 * S);
    CHECK_INT(ls_wait_end_at(10 * S, 11 * S, 0, 1), 11 * S);
}

/* Whether the process's first error after a wait's message ended it. */
static void test_error_closes(void)
{
    /* No lock message of the process after the wait: the error ended it. */
    CHECK_INT(ls_error_closes_wait(10 * S, 12 * S, 0, 0), 1);
    /* The error at the wait's own time (whole seconds). */
    CHECK_INT(ls_error_closes_wait(10 * S, 10 * S, 0, 0), 1);
    /* Another lock message strictly between: the wait had ended, and the
     * error is a later statement's (the dropped NOT EXISTS of issue 33). */
    CHECK_INT(ls_error_closes_wait(10 * S, 12 * S, 1, 11 * S), 0);
    CHECK_INT(ls_error_closes_wait(10 * S, 12 * S, 1, 12 * S - 1), 0);
    /* ... but one at the error's time, or later, is not between. */
    CHECK_INT(ls_error_closes_wait(10 * S, 12 * S, 1, 12 * S), 1);
    CHECK_INT(ls_error_closes_wait(10 * S, 12 * S, 1, 13 * S), 1);
    /* An error before the wait was logged is not its end. */
    CHECK_INT(ls_error_closes_wait(10 * S, 10 * S - 1, 0, 0), 0);
}

/* A serialization failure right after an acquired wait was its outcome. */
static void test_serialization(void)
{
    /* at the acquisition, and exactly the window after it: the outcome */
    CHECK_INT(ls_serialization_ended(10 * S, 10 * S), 1);
    CHECK_INT(ls_serialization_ended(10 * S, 10 * S + LS_SERIALIZATION_WINDOW_US), 1);
    /* a microsecond later: another statement's */
    CHECK_INT(ls_serialization_ended(10 * S, 10 * S + LS_SERIALIZATION_WINDOW_US + 1), 0);
    CHECK_INT(ls_serialization_ended(10 * S, 60 * S), 0);
    /* before the acquisition: not this wait's */
    CHECK_INT(ls_serialization_ended(10 * S, 10 * S - 1), 0);
}

static void test_ms_until(void)
{
    /* The wait lasted until the error: longer than its logged "after X". */
    CHECK(ls_wait_ms_until(1000.0, 10 * S, 12 * S) == 2000.0);
    /* Never shorter than what its messages said. */
    CHECK(ls_wait_ms_until(3000.0, 10 * S, 12 * S) == 3000.0);
    CHECK(ls_wait_ms_until(2000.0, 10 * S, 12 * S) == 2000.0);
    CHECK(ls_wait_ms_until(0.0, 10 * S, 10 * S + 1500) == 1.5);
}

/* ls_pid_listed: whole pids only, at either end of the list. */
static void test_pid_listed(void)
{
    CHECK_INT(ls_pid_listed("23411,23426,24448", 23411), 1);
    CHECK_INT(ls_pid_listed("23411,23426,24448", 24448), 1);
    CHECK_INT(ls_pid_listed("23411,23426,24448", 23426), 1);
    /* a prefix or a suffix of a listed pid is not listed */
    CHECK_INT(ls_pid_listed("23411,23426", 2341), 0);
    CHECK_INT(ls_pid_listed("23411,23426", 3426), 0);
    CHECK_INT(ls_pid_listed("7", 7), 1);
    CHECK_INT(ls_pid_listed("", 7), 0);
    CHECK_INT(ls_pid_listed(NULL, 7), 0);
}

/*
 * ls_wait_blocker: the first holder, unless the awaited transaction's
 * owner was seen by the message and the list is the woken waiters (more
 * than one) or names the owner. The figures are those of
 * tests/e2e/excerpts/c160-woken-holders.log (a transaction of 24425,
 * the message of 23467 listing the waiters its end woke).
 */
static void test_blocker(void)
{
    ls_xid_owner o = {1, 24425, 10 * S};

    /* the woken waiters: the owner, not the first listed */
    CHECK_INT(ls_wait_blocker("23411,23426,24448", &o, 11 * S), 24425);
    /* the owner's xid first seen at the message's very time: known then */
    CHECK_INT(ls_wait_blocker("23411,23426,24448", &o, 10 * S), 24425);
    /* seen only after the message (another server's xid): the list stands */
    CHECK_INT(ls_wait_blocker("23411,23426,24448", &o, 10 * S - 1), 23411);
    /* one holder: the owner when it is that holder, else the holder */
    CHECK_INT(ls_wait_blocker("24425", &o, 11 * S), 24425);
    CHECK_INT(ls_wait_blocker("23411", &o, 11 * S), 23411);
    /* no owner known, or a wait on anything but a transaction */
    o.known = 0;
    CHECK_INT(ls_wait_blocker("23411,23426", &o, 11 * S), 23411);
    CHECK_INT(ls_wait_blocker("23411,23426", NULL, 11 * S), 23411);
    /* no holder listed: no blocker, whoever owns the transaction */
    o.known = 1;
    CHECK_INT(ls_wait_blocker("", &o, 11 * S), 0);
}

/* ls_holder_wait_names: the holder's wait on at the tuple wait's message
 * (an end at that very time is on), for the same tuple, naming a
 * relation. */
static void test_holder_wait_names(void)
{
    const char *rel = "pgbench_branches";

    CHECK_INT(ls_holder_wait_names(rel, "(0,28)", "(0,28)", 0, 0, 10 * S), 1);
    CHECK_INT(ls_holder_wait_names(rel, "(0,28)", "(0,28)", 1, 10 * S, 10 * S), 1);
    CHECK_INT(ls_holder_wait_names(rel, "(0,28)", "(0,28)", 1, 10 * S - 1, 10 * S), 0);
    CHECK_INT(ls_holder_wait_names(rel, "(0,28)", "(0,29)", 0, 0, 10 * S), 0);
    CHECK_INT(ls_holder_wait_names(NULL, "(0,28)", "(0,28)", 0, 0, 10 * S), 0);
    CHECK_INT(ls_holder_wait_names(rel, NULL, "(0,28)", 0, 0, 10 * S), 0);
    CHECK_INT(ls_holder_wait_names(rel, "(0,28)", NULL, 0, 0, 10 * S), 0);
}

/* ls_holder_wait_at: the latest wait begun by the message, one begun at
 * its very microsecond included (S7), candidates latest first. */
static void test_holder_wait_at(void)
{
    const int64_t starts[] = {12 * S, 10 * S + 1, 10 * S, 9 * S};
    const int64_t earlier[] = {9 * S, 8 * S};

    CHECK_INT(ls_holder_wait_at(starts, 4, 10 * S), 2);
    CHECK_INT(ls_holder_wait_at(starts, 4, 10 * S + 1), 1);
    CHECK_INT(ls_holder_wait_at(starts, 4, 10 * S - 1), 3);
    CHECK_INT(ls_holder_wait_at(starts, 4, 13 * S), 0);
    CHECK_INT(ls_holder_wait_at(starts, 4, 9 * S - 1), -1);
    CHECK_INT(ls_holder_wait_at(earlier, 2, 10 * S), 0);
    CHECK_INT(ls_holder_wait_at(starts, 0, 10 * S), -1);
}

/* PostgreSQL's conflict table at its edges: a mode against the weakest
 * and strongest, the self-conflicting ones, and names that are no mode. */
static void test_modes_conflict(void)
{
    CHECK_INT(ls_lock_modes_conflict("AccessShareLock", "AccessShareLock"), 0);
    CHECK_INT(ls_lock_modes_conflict("AccessShareLock", "ExclusiveLock"), 0);
    CHECK_INT(ls_lock_modes_conflict("AccessShareLock", "AccessExclusiveLock"), 1);
    CHECK_INT(ls_lock_modes_conflict("AccessExclusiveLock", "AccessShareLock"), 1);
    CHECK_INT(ls_lock_modes_conflict("RowShareLock", "ExclusiveLock"), 1);
    CHECK_INT(ls_lock_modes_conflict("RowShareLock", "ShareRowExclusiveLock"), 0);
    CHECK_INT(ls_lock_modes_conflict("RowExclusiveLock", "RowExclusiveLock"), 0);
    CHECK_INT(ls_lock_modes_conflict("RowExclusiveLock", "ShareLock"), 1);
    CHECK_INT(ls_lock_modes_conflict("ShareLock", "RowExclusiveLock"), 1);
    CHECK_INT(ls_lock_modes_conflict("ShareLock", "ShareLock"), 0);
    CHECK_INT(ls_lock_modes_conflict("ShareUpdateExclusiveLock", "ShareUpdateExclusiveLock"), 1);
    CHECK_INT(ls_lock_modes_conflict("ShareUpdateExclusiveLock", "RowExclusiveLock"), 0);
    CHECK_INT(ls_lock_modes_conflict("ShareRowExclusiveLock", "ShareRowExclusiveLock"), 1);
    CHECK_INT(ls_lock_modes_conflict("ShareRowExclusiveLock", "RowShareLock"), 0);
    CHECK_INT(ls_lock_modes_conflict("ExclusiveLock", "RowShareLock"), 1);
    CHECK_INT(ls_lock_modes_conflict("ExclusiveLock", "AccessShareLock"), 0);
    CHECK_INT(ls_lock_modes_conflict("AccessExclusiveLock", "AccessExclusiveLock"), 1);
    CHECK_INT(ls_lock_modes_conflict("AccessShareLock", "Access"), -1);
    CHECK_INT(ls_lock_modes_conflict(NULL, "AccessShareLock"), -1);
    CHECK_INT(ls_lock_modes_conflict("AccessShareLock", NULL), -1);
}

/* The waiters listed before the waiter itself: first and last places,
 * spaces after commas, and a waiter the queue does not list. */
static void test_queue_ahead(void)
{
    int64_t out[4];

    CHECK_INT(ls_queue_ahead("16410,16411,16412", 16410, out, 4), 0);
    CHECK_INT(ls_queue_ahead("16410,16411,16412", 16412, out, 4), 2);
    CHECK_INT(out[0], 16410);
    CHECK_INT(out[1], 16411);
    CHECK_INT(ls_queue_ahead("16410, 16411", 16411, out, 4), 1);
    CHECK_INT(out[0], 16410);
    CHECK_INT(ls_queue_ahead("16410,16411", 1641, out, 4), 0);
    CHECK_INT(ls_queue_ahead("16410,16411", 16412, out, 4), 0);
    CHECK_INT(ls_queue_ahead("", 16410, out, 4), 0);
    CHECK_INT(ls_queue_ahead(NULL, 16410, out, 4), 0);
    /* More ahead than room: the first max are kept. */
    CHECK_INT(ls_queue_ahead("1,2,3,4,5,6", 6, out, 4), 4);
    CHECK_INT(out[3], 4);
}

/* The blocker ahead in the queue: the nearest conflicting request, none
 * when nothing ahead conflicts or its mode is unknown, never for tuple
 * and transaction locks (samples/ddl-queue: SELECTs behind an ALTER
 * TABLE, UPDATEs behind a CREATE INDEX). */
static void test_queue_blocker(void)
{
    ls_queued alter_then_select[] = {{16410, "AccessExclusiveLock"}, {16411, "AccessShareLock"}};
    ls_queued index_then_update[] = {{16656, "ShareLock"}, {16657, "RowExclusiveLock"}};
    ls_queued two_ddl[] = {{1, "AccessExclusiveLock"}, {2, "AccessExclusiveLock"}};
    ls_queued unknown[] = {{1, NULL}};
    ls_queued readers[] = {{1, "AccessShareLock"}, {2, "RowShareLock"}};

    CHECK_INT(ls_queue_blocker("relation", "AccessShareLock", alter_then_select, 1), 16410);
    /* The SELECT ahead does not conflict; the ALTER before it does. */
    CHECK_INT(ls_queue_blocker("relation", "AccessShareLock", alter_then_select, 2), 16410);
    CHECK_INT(ls_queue_blocker("relation", "AccessExclusiveLock", alter_then_select, 2), 16411);
    CHECK_INT(ls_queue_blocker("relation", "RowExclusiveLock", index_then_update, 2), 16656);
    CHECK_INT(ls_queue_blocker("relation", "AccessShareLock", index_then_update, 2), 0);
    CHECK_INT(ls_queue_blocker("relation", "AccessShareLock", two_ddl, 2), 2);
    CHECK_INT(ls_queue_blocker("relation", "RowExclusiveLock", readers, 2), 0);
    CHECK_INT(ls_queue_blocker("relation", "AccessShareLock", unknown, 1), 0);
    CHECK_INT(ls_queue_blocker("relation", "AccessShareLock", alter_then_select, 0), 0);
    CHECK_INT(ls_queue_blocker("advisory", "ExclusiveLock", two_ddl, 2), 2);
    CHECK_INT(ls_queue_blocker("tuple", "ExclusiveLock", two_ddl, 2), 0);
    CHECK_INT(ls_queue_blocker("transaction", "ShareLock", two_ddl, 2), 0);
    CHECK_INT(ls_queue_blocker(NULL, "AccessShareLock", two_ddl, 2), 0);
}

/* The vote for a relation's name: statements that name no table do not
 * count, one that names another table ends it, the first name stands. */
static void test_relation_name_vote(void)
{
    char agreed[16] = "";
    int conflict = 0;

    CHECK_INT(ls_relation_name_vote(agreed, sizeof(agreed), &conflict, NULL), 0);
    CHECK_INT(ls_relation_name_vote(agreed, sizeof(agreed), &conflict, ""), 0);
    CHECK_INT(ls_relation_name_vote(agreed, sizeof(agreed), &conflict, "orders"), 1);
    CHECK_STR(agreed, "orders");
    CHECK_INT(ls_relation_name_vote(agreed, sizeof(agreed), &conflict, NULL), 1);
    CHECK_INT(ls_relation_name_vote(agreed, sizeof(agreed), &conflict, "orders"), 1);
    CHECK_INT(ls_relation_name_vote(agreed, sizeof(agreed), &conflict, "orders_pkey"), 0);
    CHECK_INT(conflict, 1);
    CHECK_INT(ls_relation_name_vote(agreed, sizeof(agreed), &conflict, "orders"), 0);
}

int main(void)
{
    test_open_at_boundaries();
    test_open_at();
    test_after_us();
    test_goes_on();
    test_start_end();
    test_error_closes();
    test_serialization();
    test_ms_until();
    test_pid_listed();
    test_blocker();
    test_holder_wait_names();
    test_holder_wait_at();
    test_modes_conflict();
    test_queue_ahead();
    test_queue_blocker();
    test_relation_name_vote();
    return TEST_REPORT();
}
