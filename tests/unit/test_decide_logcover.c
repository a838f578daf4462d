/*
 * test_decide_logcover.c — decide/logcover.c: whether statement logging
 * bounds holds. Boundaries: LS_LOGCOVER_MIN_STATEMENTS statements and one
 * fewer, a shortest duration of exactly LS_LOGCOVER_FLOOR_MS and just
 * under, one statement without a duration, no statement at all.
 */
#include "ls_logcover.h"
#include "ls_test.h"

static ls_logcover_in in(int64_t statements, int64_t timed, double shortest_ms, int64_t holds)
{
    ls_logcover_in i;
    i.statements = statements;
    i.timed = timed;
    i.shortest_ms = shortest_ms;
    i.tx_control = 0;
    i.from_spans = 0;
    i.holds = holds;
    i.reads = 0;
    return i;
}

static void test_decide(void)
{
    const int64_t n = LS_LOGCOVER_MIN_STATEMENTS;
    ls_logcover_in i = in(n, n, LS_LOGCOVER_FLOOR_MS, 5);

    /* log_min_duration_statement = 50: every statement timed, none fast. */
    CHECK_INT(ls_logcover_decide(&i), LS_LOGCOVER_THRESHOLD);
    i.shortest_ms = 50.0;
    CHECK_INT(ls_logcover_decide(&i), LS_LOGCOVER_THRESHOLD);
    /* A slow COMMIT logged past the threshold does not make it complete. */
    i.tx_control = 3;
    CHECK_INT(ls_logcover_decide(&i), LS_LOGCOVER_THRESHOLD);
    /* One statement just under the floor: fast ones are logged. */
    i = in(n, n, LS_LOGCOVER_FLOOR_MS - 0.001, 5);
    CHECK_INT(ls_logcover_decide(&i), LS_LOGCOVER_COMPLETE);
    /* Too few statements to tell. */
    i = in(n - 1, n - 1, 100.0, 5);
    CHECK_INT(ls_logcover_decide(&i), LS_LOGCOVER_COMPLETE);
    /* One statement without a duration (log_statement = 'all'). */
    i = in(n, n - 1, 100.0, 5);
    i.tx_control = 1;
    CHECK_INT(ls_logcover_decide(&i), LS_LOGCOVER_COMPLETE);
    /* No statement logged: only locks (log_lock_waits alone). */
    i = in(0, 0, 0.0, 1);
    CHECK_INT(ls_logcover_decide(&i), LS_LOGCOVER_NO_STATEMENTS);
    /* ... but statements from the spans: they time the holds. */
    i.from_spans = 1;
    CHECK_INT(ls_logcover_decide(&i), LS_LOGCOVER_COMPLETE);
    i.from_spans = 0;
    /* No statement and no hold (samples/blind-pl: log_statement = 'none',
     * no durations; only waits over deadlock_timeout, deadlocks and
     * errors): not complete, its own verdict (it was "complete"). */
    i.holds = 0;
    CHECK_INT(ls_logcover_decide(&i), LS_LOGCOVER_NONE);
    i.from_spans = 1; /* the spans' statements time what holds there are */
    CHECK_INT(ls_logcover_decide(&i), LS_LOGCOVER_COMPLETE);
    i = in(1, 0, 0.0, 0); /* one statement logged: too few to judge */
    CHECK_INT(ls_logcover_decide(&i), LS_LOGCOVER_COMPLETE);
    CHECK_STR(ls_logcover_name(LS_LOGCOVER_NONE), "none");
    CHECK_INT(ls_logcover_open_end(LS_LOGCOVER_NONE, "statement"), 1);
    CHECK_INT(ls_logcover_occupancy_unknown(LS_LOGCOVER_NONE, 0.0), 1);
    CHECK_INT(ls_logcover_tx_ends_unlogged(&i), 0);
    CHECK_STR(ls_logcover_name(LS_LOGCOVER_THRESHOLD), "threshold");
    CHECK_STR(ls_logcover_name(LS_LOGCOVER_NO_STATEMENTS), "no_statements");
    CHECK_STR(ls_logcover_name(LS_LOGCOVER_COMPLETE), "complete");
    CHECK_STR(ls_logcover_name(LS_LOGCOVER_CLASSES), "statement_classes");
}

/* Issue 34 (samples/blind-zk: log_statement = 'mod', 1775 INSERT/UPDATE
 * lines, no BEGIN/COMMIT, no SELECT, no duration; the report said
 * "complete", "Hidden waits: 0.0 ms", "INSERT orders holds the hot rows
 * longest: 0.0 ms"). Boundaries: MIN_STATEMENTS and one fewer, one BEGIN
 * or COMMIT, one read, one duration. */
static void test_classes(void)
{
    const int64_t n = LS_LOGCOVER_MIN_STATEMENTS;
    ls_logcover_in i = in(n, 0, 0.0, 5);

    CHECK_INT(ls_logcover_reads_needed(&i), 1);
    CHECK_INT(ls_logcover_decide(&i), LS_LOGCOVER_CLASSES);
    i.holds = 0; /* the verdict is the log's, holds or none */
    CHECK_INT(ls_logcover_decide(&i), LS_LOGCOVER_CLASSES);
    i = in(1775, 0, 0.0, 60);
    CHECK_INT(ls_logcover_decide(&i), LS_LOGCOVER_CLASSES);
    /* One read logged: log_statement = 'all' of an autocommit application. */
    i.reads = 1;
    CHECK_INT(ls_logcover_decide(&i), LS_LOGCOVER_COMPLETE);
    /* One BEGIN or COMMIT: the transactions' ends are logged. */
    i = in(n, 0, 0.0, 5);
    i.tx_control = 1;
    CHECK_INT(ls_logcover_reads_needed(&i), 0);
    CHECK_INT(ls_logcover_decide(&i), LS_LOGCOVER_COMPLETE);
    /* One duration: not 'mod' without durations (a threshold needs all). */
    i = in(n, 1, 0.5, 5);
    CHECK_INT(ls_logcover_reads_needed(&i), 0);
    CHECK_INT(ls_logcover_decide(&i), LS_LOGCOVER_COMPLETE);
    /* Too few statements to tell. */
    i = in(n - 1, 0, 0.0, 5);
    CHECK_INT(ls_logcover_reads_needed(&i), 0);
    CHECK_INT(ls_logcover_decide(&i), LS_LOGCOVER_COMPLETE);
    /* The same rule as a threshold log for what follows from it. */
    CHECK_INT(ls_logcover_open_end(LS_LOGCOVER_CLASSES, "statement"), 1);
    CHECK_INT(ls_logcover_open_end(LS_LOGCOVER_CLASSES, NULL), 1);
    CHECK_INT(ls_logcover_open_end(LS_LOGCOVER_CLASSES, "commit"), 0);
    CHECK_INT(ls_logcover_hidden_decide(LS_LOGCOVER_CLASSES, 0.0), LS_HIDDEN_UNKNOWN);
    CHECK_INT(ls_logcover_hidden_decide(LS_LOGCOVER_CLASSES, 0.001), LS_HIDDEN_AT_LEAST);
    CHECK_INT(ls_logcover_occupancy_unknown(LS_LOGCOVER_CLASSES, 0.0), 1);
    CHECK_INT(ls_logcover_occupancy_unknown(LS_LOGCOVER_CLASSES, 0.001), 0);
    /* The holder links: only a classes log leaves the ends out of them. */
    i = in(n, 0, 0.0, 0);
    CHECK_INT(ls_logcover_tx_ends_unlogged(&i), LS_ENDS_UNLOGGED_CLASSES);
    i.reads = 1;
    CHECK_INT(ls_logcover_tx_ends_unlogged(&i), 0);
    /* a threshold log (samples/blind-go: 250 ms, no BEGIN or COMMIT
     * logged) cannot delimit transactions either */
    i = in(n, n, 250.0, 0);
    CHECK_INT(ls_logcover_decide(&i), LS_LOGCOVER_THRESHOLD);
    CHECK_INT(ls_logcover_tx_ends_unlogged(&i), LS_ENDS_UNLOGGED_THRESHOLD);
    i = in(n, n, 50.0, 5);
    i.tx_control = 3;
    CHECK_INT(ls_logcover_decide(&i), LS_LOGCOVER_THRESHOLD);
    CHECK_INT(ls_logcover_tx_ends_unlogged(&i), 0); /* slow COMMITs logged: kept */
    i = in(0, 0, 0.0, 5);
    CHECK_INT(ls_logcover_tx_ends_unlogged(&i), 0);
}

/* The blocking ranking's range: unbounded above on a threshold log
 * (samples/blind-go: transferCredit 141.8-167.8 s printed, the app's
 * 234.0 s outside it; waits under 250 ms and deadlock_timeout unlogged). */
static void test_caused_unbounded(void)
{
    CHECK_INT(ls_logcover_caused_unbounded(LS_LOGCOVER_THRESHOLD, 0, 0), 1);
    CHECK_INT(ls_logcover_caused_unbounded(LS_LOGCOVER_THRESHOLD, 1, 0), 1);
    /* spans time the statements under the threshold: bounded */
    CHECK_INT(ls_logcover_caused_unbounded(LS_LOGCOVER_THRESHOLD, 0, 1), 0);
    CHECK_INT(ls_logcover_caused_unbounded(LS_LOGCOVER_THRESHOLD, 1, 1), 1); /* as before */
    CHECK_INT(ls_logcover_caused_unbounded(LS_LOGCOVER_COMPLETE, 0, 0), 0);
    CHECK_INT(ls_logcover_caused_unbounded(LS_LOGCOVER_COMPLETE, 1, 0), 1); /* as before */
    CHECK_INT(ls_logcover_caused_unbounded(LS_LOGCOVER_CLASSES, 0, 0), 0);
    CHECK_INT(ls_logcover_caused_unbounded(LS_LOGCOVER_NONE, 0, 0), 0);
    /* the story's hold total: a lower bound unless the log is complete */
    CHECK_INT(ls_logcover_hold_total_at_least(LS_LOGCOVER_COMPLETE), 0);
    CHECK_INT(ls_logcover_hold_total_at_least(LS_LOGCOVER_THRESHOLD), 1);
    CHECK_INT(ls_logcover_hold_total_at_least(LS_LOGCOVER_CLASSES), 1);
}

static void test_open_end(void)
{
    /* A complete log: the last statement is the end (autocommit). */
    CHECK_INT(ls_logcover_open_end(LS_LOGCOVER_COMPLETE, "statement"), 0);
    CHECK_INT(ls_logcover_open_end(LS_LOGCOVER_COMPLETE, NULL), 0);
    /* Past a threshold: only a transaction's end, a disconnection or a
     * bound closes it. */
    CHECK_INT(ls_logcover_open_end(LS_LOGCOVER_THRESHOLD, "statement"), 1);
    CHECK_INT(ls_logcover_open_end(LS_LOGCOVER_THRESHOLD, "statement start"), 1);
    CHECK_INT(ls_logcover_open_end(LS_LOGCOVER_THRESHOLD, NULL), 1);
    CHECK_INT(ls_logcover_open_end(LS_LOGCOVER_THRESHOLD, "commit"), 0);
    CHECK_INT(ls_logcover_open_end(LS_LOGCOVER_THRESHOLD, "rollback start"), 0);
    CHECK_INT(ls_logcover_open_end(LS_LOGCOVER_NO_STATEMENTS, "bounded by the next wait"), 0);
    CHECK_INT(ls_logcover_open_end(LS_LOGCOVER_NO_STATEMENTS, "statements"), 0);
}

/* The idle/commit split of a hold or transaction whose end the log does
 * not show is unknown (samples/blind-rb's root blockers: 0.0 ms idle and
 * commit, their ends "statement" on a threshold log); a shown end, or a
 * complete log, keeps its figures. */
static void test_split_unknown(void)
{
    CHECK_INT(ls_logcover_split_unknown(LS_LOGCOVER_THRESHOLD, "statement"), 1);
    CHECK_INT(ls_logcover_split_unknown(LS_LOGCOVER_THRESHOLD, "statement start"), 1);
    CHECK_INT(ls_logcover_split_unknown(LS_LOGCOVER_THRESHOLD, NULL), 1);
    CHECK_INT(ls_logcover_split_unknown(LS_LOGCOVER_CLASSES, "statement"), 1);
    CHECK_INT(ls_logcover_split_unknown(LS_LOGCOVER_NONE, "statement"), 1);
    CHECK_INT(ls_logcover_split_unknown(LS_LOGCOVER_THRESHOLD, "commit"), 0);
    CHECK_INT(ls_logcover_split_unknown(LS_LOGCOVER_THRESHOLD, "rollback"), 0);
    CHECK_INT(
        ls_logcover_split_unknown(LS_LOGCOVER_THRESHOLD, "COMMIT span of its request (not logged)"),
        0);
    CHECK_INT(ls_logcover_split_unknown(LS_LOGCOVER_COMPLETE, "statement"), 0);
    CHECK_INT(ls_logcover_split_unknown(LS_LOGCOVER_COMPLETE, NULL), 0);
}

/* samples/blind-pl: "No transaction held a row others waited for" beside
 * 4 root blockers; the sentence follows the holders the waits name. */
static void test_no_paths(void)
{
    CHECK_INT(ls_logcover_no_paths(0, 1), LS_NOPATHS_NONE_HELD);
    CHECK_INT(ls_logcover_no_paths(0, 0), LS_NOPATHS_NONE_HELD);
    CHECK_INT(ls_logcover_no_paths(1, 0), LS_NOPATHS_UNLOGGED);
    CHECK_INT(ls_logcover_no_paths(4, 0), LS_NOPATHS_UNLOGGED);
    CHECK_INT(ls_logcover_no_paths(1, 1), LS_NOPATHS_UNNAMED);
}

/* Issue 34 (samples/blind-rb: log_min_duration_statement = 100ms, the
 * report said "Hidden waits: 0.0 ms" where the app waited 50.4 s under
 * deadlock_timeout): a threshold log's zero is unknown, its sum at least. */
static void test_hidden(void)
{
    CHECK_INT(ls_logcover_hidden_decide(LS_LOGCOVER_COMPLETE, 0.0), LS_HIDDEN_KNOWN);
    CHECK_INT(ls_logcover_hidden_decide(LS_LOGCOVER_COMPLETE, 120.0), LS_HIDDEN_KNOWN);
    /* No statement logged (samples/blind-pl: hidden_wait_ms was 0 where
     * 158 s went unlogged): nothing to rebuild from, unknown. */
    CHECK_INT(ls_logcover_hidden_decide(LS_LOGCOVER_NO_STATEMENTS, 0.0), LS_HIDDEN_UNKNOWN);
    CHECK_INT(ls_logcover_hidden_decide(LS_LOGCOVER_NONE, 0.0), LS_HIDDEN_UNKNOWN);
    CHECK_INT(ls_logcover_hidden_decide(LS_LOGCOVER_NONE, 10.0), LS_HIDDEN_UNKNOWN);
    CHECK_INT(ls_logcover_hidden_decide(LS_LOGCOVER_THRESHOLD, 0.0), LS_HIDDEN_UNKNOWN);
    CHECK_INT(ls_logcover_hidden_decide(LS_LOGCOVER_THRESHOLD, 0.001), LS_HIDDEN_AT_LEAST);
    CHECK_INT(ls_logcover_hidden_decide(LS_LOGCOVER_THRESHOLD, 800.0), LS_HIDDEN_AT_LEAST);
}

/* Issue 34: a 0 ms top of the occupancy ranking is unknown on a log that
 * is not complete, a measured time on a complete one. */
static void test_occupancy(void)
{
    CHECK_INT(ls_logcover_occupancy_unknown(LS_LOGCOVER_THRESHOLD, 0.0), 1);
    CHECK_INT(ls_logcover_occupancy_unknown(LS_LOGCOVER_NO_STATEMENTS, 0.0), 1);
    CHECK_INT(ls_logcover_occupancy_unknown(LS_LOGCOVER_THRESHOLD, 0.001), 0);
    CHECK_INT(ls_logcover_occupancy_unknown(LS_LOGCOVER_COMPLETE, 0.0), 0);
    CHECK_INT(ls_logcover_occupancy_unknown(LS_LOGCOVER_COMPLETE, 5.0), 0);
}

/* Issue 34 (rbrank34): one path's 0 ms occupancy is unknown when none
 * of its holds was timed on a log that is not complete (blind-rb's 54
 * untimed warehouses holds); known with any hold timed, with no holds,
 * or on a complete log. */
static void test_path_occupancy(void)
{
    CHECK_INT(ls_logcover_path_occupancy_unknown(LS_LOGCOVER_THRESHOLD, 54, 0.0), 1);
    CHECK_INT(ls_logcover_path_occupancy_unknown(LS_LOGCOVER_NO_STATEMENTS, 1, 0.0), 1);
    CHECK_INT(ls_logcover_path_occupancy_unknown(LS_LOGCOVER_THRESHOLD, 54, 0.001), 0);
    CHECK_INT(ls_logcover_path_occupancy_unknown(LS_LOGCOVER_THRESHOLD, 0, 0.0), 0);
    CHECK_INT(ls_logcover_path_occupancy_unknown(LS_LOGCOVER_COMPLETE, 54, 0.0), 0);
    CHECK_INT(ls_logcover_path_occupancy_unknown(LS_LOGCOVER_THRESHOLD, 54, 0.0 / 0.0), 1);
}

/* The blocking ranking's hold time of a path that blocked with no hold
 * timed is unknown on a log that is not complete (blind-rb's warehouses:
 * 0 episodes, 32.6 s credited; accounts: 6 episodes at 0 ms). */
static void test_path_blocking(void)
{
    CHECK_INT(ls_logcover_path_blocking_unknown(LS_LOGCOVER_THRESHOLD, 0, 32575.71, 0.0 / 0.0), 1);
    CHECK_INT(ls_logcover_path_blocking_unknown(LS_LOGCOVER_THRESHOLD, 6, 16271.3, 0.0), 1);
    CHECK_INT(ls_logcover_path_blocking_unknown(LS_LOGCOVER_THRESHOLD, 6, 16271.3, 0.001), 0);
    CHECK_INT(ls_logcover_path_blocking_unknown(LS_LOGCOVER_THRESHOLD, 0, 0.0, 0.0), 0);
    CHECK_INT(ls_logcover_path_blocking_unknown(LS_LOGCOVER_COMPLETE, 6, 16271.3, 0.0), 0);
    CHECK_INT(ls_logcover_path_blocking_unknown(LS_LOGCOVER_CLASSES, 1, 0.0, 0.0), 1);
}

/* A sum or mean over holds none of which was timed is unknown on a log
 * that is not complete: the boundaries of holds and timed (blind-rb's
 * warehouses id=1: 54 holds, none timed; its accounts path: 6). */
static void test_breakdown_unknown(void)
{
    /* samples/blind-go: 1 hold behind the breakdown, its end not logged */
    CHECK_INT(ls_logcover_breakdown_unknown(1, 0), 1);
    CHECK_INT(ls_logcover_breakdown_unknown(54, 0), 1);
    CHECK_INT(ls_logcover_breakdown_unknown(54, 1), 0);
    CHECK_INT(ls_logcover_breakdown_unknown(1, 1), 0);
    CHECK_INT(ls_logcover_breakdown_unknown(0, 0), 0);
}

static void test_holds_unknown(void)
{
    CHECK_INT(ls_logcover_holds_unknown(LS_LOGCOVER_THRESHOLD, 54, 0), 1);
    CHECK_INT(ls_logcover_holds_unknown(LS_LOGCOVER_THRESHOLD, 1, 0), 1);
    CHECK_INT(ls_logcover_holds_unknown(LS_LOGCOVER_THRESHOLD, 1, 1), 0);
    CHECK_INT(ls_logcover_holds_unknown(LS_LOGCOVER_THRESHOLD, 54, 1), 0);
    CHECK_INT(ls_logcover_holds_unknown(LS_LOGCOVER_THRESHOLD, 0, 0), 0);
    CHECK_INT(ls_logcover_holds_unknown(LS_LOGCOVER_THRESHOLD, 1, -1), 1);
    CHECK_INT(ls_logcover_holds_unknown(LS_LOGCOVER_CLASSES, 1, 0), 1);
    CHECK_INT(ls_logcover_holds_unknown(LS_LOGCOVER_NO_STATEMENTS, 1, 0), 1);
    CHECK_INT(ls_logcover_holds_unknown(LS_LOGCOVER_COMPLETE, 54, 0), 0);
    CHECK_INT(ls_logcover_holds_unknown(LS_LOGCOVER_COMPLETE, 0, 0), 0);
}

int main(void)
{
    test_caused_unbounded();
    test_holds_unknown();
    test_breakdown_unknown();
    test_occupancy();
    test_path_occupancy();
    test_path_blocking();
    test_decide();
    test_classes();
    test_open_end();
    test_split_unknown();
    test_hidden();
    test_no_paths();
    return TEST_REPORT();
}
