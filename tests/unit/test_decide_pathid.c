/*
 * test_decide_pathid.c — decide/pathid.c: when application_name names code
 * paths and when a transaction's shape does, and the shape's label.
 * Boundaries first: no hold, one name, a name at exactly the dominant
 * share and one hold below it, spans naming a single hold.
 */
#include <string.h>

#include "decide/pathid.h"
#include "ls_test.h"

static ls_path_identity decide(int64_t holds, int64_t named, int64_t groups, int64_t top,
                               int blank, ls_path_reason *why)
{
    ls_path_names n = {holds, named, groups, top, blank};
    return ls_path_identity_of(&n, why);
}

static void test_identity(void)
{
    ls_path_reason why;
    /* Nothing to rank, or every hold named by spans or tags. */
    CHECK_INT(decide(0, 0, 0, 0, 0, &why), LS_PATH_BY_APPLICATION);
    CHECK_INT(why, LS_PATH_NO_HOLDS);
    CHECK_INT(decide(10, 10, 0, 0, 0, &why), LS_PATH_BY_APPLICATION);
    CHECK_INT(why, LS_PATH_NO_HOLDS);
    /* One hold named by a span: the others keep their name. */
    CHECK_INT(decide(10, 1, 1, 9, 0, &why), LS_PATH_BY_APPLICATION);
    CHECK_INT(why, LS_PATH_NAMED);
    /* pgbench: one name for every hold. */
    CHECK_INT(decide(1000, 0, 1, 1000, 0, &why), LS_PATH_BY_SHAPE);
    CHECK_INT(why, LS_PATH_ONE_NAME);
    /* No session named at all. */
    CHECK_INT(decide(5, 0, 1, 5, 1, &why), LS_PATH_BY_SHAPE);
    CHECK_INT(why, LS_PATH_NO_NAME);
    /* Two names, the larger at exactly 99 %: dominant; at 98.9 %: a partition. */
    CHECK_INT(decide(1000, 0, 2, 990, 0, &why), LS_PATH_BY_SHAPE);
    CHECK_INT(why, LS_PATH_DOMINANT);
    CHECK_INT(decide(1000, 0, 2, 989, 0, &why), LS_PATH_BY_APPLICATION);
    CHECK_INT(why, LS_PATH_PARTITION);
    /* samples/trigger-paths: 178 checkout holds and 18 import holds (90.8 %). */
    CHECK_INT(decide(196, 0, 2, 178, 0, &why), LS_PATH_BY_APPLICATION);
    CHECK_INT(why, LS_PATH_PARTITION);
    /* A named session and unnamed ones, half and half: the name partitions. */
    CHECK_INT(decide(10, 0, 2, 5, 1, &why), LS_PATH_BY_APPLICATION);
    CHECK_INT(why, LS_PATH_PARTITION);
    /* why may be NULL; every reason has a phrase. */
    CHECK_INT(decide(3, 0, 1, 3, 0, NULL), LS_PATH_BY_SHAPE);
    CHECK(strstr(ls_path_reason_text(LS_PATH_ONE_NAME), "application_name") != NULL);
    CHECK(ls_path_reason_text(LS_PATH_DOMINANT)[0] != '\0');
}

static void test_step(void)
{
    char s[LS_TXSHAPE_STEP_MAX];
    /* Statements of bench/pgbench/tpcb.sql, as PostgreSQL 15 logs them. */
    CHECK_INT(ls_txshape_step("UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2",
                              s, sizeof(s)), 1);
    CHECK_STR(s, "UPDATE pgbench_accounts");
    CHECK_INT(ls_txshape_step("SELECT abalance FROM pgbench_accounts WHERE aid = $1", s,
                              sizeof(s)), 1);
    CHECK_STR(s, "SELECT pgbench_accounts");
    CHECK_INT(ls_txshape_step("INSERT INTO pgbench_history (tid, bid, aid, delta, mtime)"
                              " VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)", s, sizeof(s)), 1);
    CHECK_STR(s, "INSERT pgbench_history");
    CHECK_INT(ls_txshape_step("select * from accounts where id = 1 for update", s, sizeof(s)), 1);
    CHECK_STR(s, "SELECT FOR UPDATE accounts");
    CHECK_INT(ls_txshape_step("/* app */ SELECT pg_sleep(0.01)", s, sizeof(s)), 1);
    CHECK_STR(s, "SELECT");
    /* What frames a transaction is no step. */
    CHECK_INT(ls_txshape_step("BEGIN", s, sizeof(s)), 0);
    CHECK_INT(ls_txshape_step("END;", s, sizeof(s)), 0);
    CHECK_INT(ls_txshape_step("ROLLBACK", s, sizeof(s)), 0);
    CHECK_INT(ls_txshape_step("   ", s, sizeof(s)), 0);
    CHECK_INT(ls_txshape_step(NULL, s, sizeof(s)), 0);
}

/* An EXECUTE's step is its PREPARE body's. The texts are those of
 * samples/blind-py/postgresql.log (PostgreSQL 15, log_statement = 'all'):
 * "statement: EXECUTE move_money( -12, 1)" with DETAIL "prepare: PREPARE
 * move_money(numeric, int) AS UPDATE accounts SET ...". */
static void test_step_executed(void)
{
    static const char exec_text[] = "EXECUTE move_money( -12, 1)";
    static const char body[] = "UPDATE accounts SET balance = balance + $1 WHERE id = $2";
    char s[LS_TXSHAPE_STEP_MAX];

    CHECK_INT(ls_txshape_executes(exec_text), 1);
    CHECK_INT(ls_txshape_executes("  execute\tq1"), 1);
    CHECK_INT(ls_txshape_executes("EXECUTED"), 0);
    CHECK_INT(ls_txshape_executes("DEALLOCATE move_money"), 0);
    CHECK_INT(ls_txshape_executes("PREPARE move_money(numeric, int) AS UPDATE accounts SET"
                                  " balance = balance + $1 WHERE id = $2"), 0);
    CHECK_INT(ls_txshape_executes(NULL), 0);
    /* The PREPARE known: the body's step. */
    CHECK_INT(ls_txshape_step_executed(exec_text, body, s, sizeof(s)), 1);
    CHECK_STR(s, "UPDATE accounts");
    /* The name prepared again later with another body: the same EXECUTE
     * text is another step (the step follows the body, not the text). */
    CHECK_INT(ls_txshape_step_executed(exec_text, "SELECT balance FROM accounts WHERE id = $2"
                                       " FOR UPDATE", s, sizeof(s)), 1);
    CHECK_STR(s, "SELECT FOR UPDATE accounts");
    /* No PREPARE known (none logged, or an empty body): the name. */
    CHECK_INT(ls_txshape_step_executed(exec_text, NULL, s, sizeof(s)), 1);
    CHECK_STR(s, "EXECUTE move_money");
    CHECK_INT(ls_txshape_step_executed(exec_text, "", s, sizeof(s)), 1);
    CHECK_STR(s, "EXECUTE move_money");
    CHECK_INT(ls_txshape_step_executed("execute q1;", NULL, s, sizeof(s)), 1);
    CHECK_STR(s, "EXECUTE q1");
    CHECK_INT(ls_txshape_step_executed("EXECUTE", NULL, s, sizeof(s)), 1);
    CHECK_STR(s, "EXECUTE");
    /* DEALLOCATE and PREPARE are steps of their own, never the body's. */
    CHECK_INT(ls_txshape_step_executed("DEALLOCATE move_money", body, s, sizeof(s)), 1);
    CHECK_STR(s, "DEALLOCATE");
    /* A text that does not EXECUTE ignores any body. */
    CHECK_INT(ls_txshape_step_executed("UPDATE stock SET qty = qty - 1 WHERE id = 1", body, s,
                                       sizeof(s)), 1);
    CHECK_STR(s, "UPDATE stock");
    CHECK_INT(ls_txshape_step_executed("COMMIT", body, s, sizeof(s)), 0);
}

static void test_label(void)
{
    ls_txshape t;
    char out[LS_TXSHAPE_LABEL_MAX + 32], other[LS_TXSHAPE_LABEL_MAX + 32], step[32];
    int i;

    ls_txshape_init(&t);
    CHECK_INT((int)ls_txshape_label(&t, out, sizeof(out)), (int)strlen("(no statement)"));
    CHECK_STR(out, "(no statement)");
    /* Runs collapse; a later repeat of a step is a run of its own. */
    ls_txshape_add(&t, "UPDATE a");
    ls_txshape_add(&t, "SELECT b");
    ls_txshape_add(&t, "SELECT b");
    ls_txshape_add(&t, "SELECT b");
    ls_txshape_add(&t, "UPDATE a");
    ls_txshape_label(&t, out, sizeof(out));
    CHECK_STR(out, "UPDATE a; SELECT b x3; UPDATE a");
    /* A label of exactly LS_TXSHAPE_LABEL_MAX bytes is whole; one more byte cuts it. */
    ls_txshape_init(&t);
    for (i = 0; i < 16; i++) { /* 16 steps of 8 bytes + 15 separators = 158 */
        snprintf(step, sizeof(step), "INSERT%02d", i);
        ls_txshape_add(&t, step);
    }
    ls_txshape_add(&t, "X"); /* 158 + 2 + 1 = 161 */
    ls_txshape_label(&t, out, sizeof(out));
    CHECK(strstr(out, "... (+") != NULL);
    CHECK(strlen(out) <= LS_TXSHAPE_LABEL_MAX + 32);
    ls_txshape_init(&t);
    for (i = 0; i < 16; i++) {
        snprintf(step, sizeof(step), "INSERT%02d", i);
        ls_txshape_add(&t, step);
    }
    ls_txshape_label(&t, out, sizeof(out));
    CHECK_INT((int)strlen(out), 158);
    CHECK(strstr(out, "...") == NULL);
    /* Exactly LS_TXSHAPE_LABEL_MAX (160) bytes: whole. */
    snprintf(t.run[t.nrun - 1].step, sizeof(t.run[0].step), "INSERT1510");
    ls_txshape_label(&t, out, sizeof(out));
    CHECK_INT((int)strlen(out), LS_TXSHAPE_LABEL_MAX);
    CHECK(strstr(out, "...") == NULL);
    /* One step more: those 160 bytes still fit, the rest is counted. */
    {
        char whole[LS_TXSHAPE_LABEL_MAX + 32];
        snprintf(whole, sizeof(whole), "%s", out);
        ls_txshape_add(&t, "X");
        ls_txshape_label(&t, out, sizeof(out));
        CHECK(strncmp(out, whole, LS_TXSHAPE_LABEL_MAX) == 0);
        CHECK(strstr(out, "; ... (+1 more) #") == out + LS_TXSHAPE_LABEL_MAX);
        t.nrun--;
    }
    snprintf(t.run[t.nrun - 1].step, sizeof(t.run[0].step), "INSERT15");
    /* Two long shapes that differ past the cut keep different labels. */
    ls_txshape_add(&t, "UPDATE x");
    ls_txshape_add(&t, "UPDATE y");
    ls_txshape_label(&t, out, sizeof(out));
    t.run[t.nrun - 1].step[7] = 'z';
    ls_txshape_label(&t, other, sizeof(other));
    CHECK(strcmp(out, other) != 0);
    /* Past LS_TXSHAPE_STEPS runs the rest is counted, and the label says so. */
    ls_txshape_init(&t);
    for (i = 0; i < LS_TXSHAPE_STEPS + 5; i++) {
        snprintf(step, sizeof(step), "S%d", i);
        ls_txshape_add(&t, step);
    }
    CHECK_INT((int)t.dropped, 5);
    ls_txshape_label(&t, out, sizeof(out));
    CHECK(strstr(out, "more) #") != NULL);
}

/* Issue 34: a failed statement is a step of its transaction's shape.
 * samples/blind-java (PostgreSQL 15, log_min_duration_statement = 0)
 * logs a recountShelf whose UPDATE hit lock_timeout as
 *   duration: 0.067 ms  parse <unnamed>: UPDATE warehouses SET last_counted ...
 *   duration: 0.083 ms  bind <unnamed>: UPDATE warehouses SET last_counted ...
 *   ERROR:  canceling statement due to lock timeout
 * and no execute line: the bind row is the UPDATE that ran. */
static void test_row_is_step(void)
{
    CHECK_INT(ls_txshape_row_is_step(LS_TXROW_STATEMENT), 1);
    /* the boundary: a bind alone ran (and failed), a parse alone did not */
    CHECK_INT(ls_txshape_row_is_step(LS_TXROW_BIND), 1);
    CHECK_INT(ls_txshape_row_is_step(LS_TXROW_PARSE), 0);
}

int main(void)
{
    test_row_is_step();
    test_identity();
    test_step();
    test_step_executed();
    test_label();
    return TEST_REPORT();
}
