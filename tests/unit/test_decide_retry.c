/*
 * test_decide_retry.c — decide/retry.c: which statement retried a lock
 * error. Boundaries: the error's own second by log position, a
 * transaction between, a different shape, the same shape on another key,
 * the window's edge, an autocommit failure, the repeats of an ORM's spans
 * over its driver's. Another trace's spans are never in a trace's stream
 * (retries.c reads one trace): check_blind_pool.py shows that end.
 *
 * The session streams are one backend's (pid 10474) lines of the real
 * log samples/blind-py/postgresql.log (PostgreSQL 15, '%t [%p-%l] ',
 * log_statement = 'all'; 08:12:18 and 08:12:19), after a 40001:
 *   4369 [10474-399] ERROR: could not serialize access (attempt 1)
 *   4371 ROLLBACK  4385 BEGIN  4386 SET TRANSACTION ...  4387 SELECT ...
 *   4402 UPDATE stock SET qty = qty + 0 WHERE sku = 2    (08:12:19)
 *   4443 [10474-413] ERROR: could not serialize access (attempt 3, the last)
 *   4445 ROLLBACK  4457 BEGIN  4458 UPDATE stock SET qty = qty - 1 WHERE sku = 2
 *   4484 INSERT INTO orders ...  4500 COMMIT   (another request: place_order)
 *   4510 BEGIN  4511 SET ...  4512 SELECT ...
 *   4530 UPDATE stock SET qty = qty + 0 WHERE sku = 6    (the next report_fix)
 * The trace stream is trace c37b0bb0... of samples/blind-pool (Sequelize
 * over pg, OTLP; each statement a Sequelize span and a pg.query span):
 * the UPDATE ticket_prices span failed (40001) ending at .870409, then
 * ROLLBACK x2 .871, START TRANSACTION x2 .878, SET x2 .880, SELECT x2
 * .882, UPDATE ticket_prices x2 .932/.933, COMMIT x2 .938.
 */
#include "decide/retry.h"
#include "decide/tolerances.h"
#include "ls_test.h"

#define S18 1796544738000000LL /* 08:12:18 */
#define S19 1796544739000000LL /* 08:12:19 */
#define POS(l) ((ls_logpos){1, (l)})
#define B LS_RETRY_STEP_BEGIN
#define C LS_RETRY_STEP_COMMIT
#define R LS_RETRY_STEP_ROLLBACK
#define O LS_RETRY_STEP_OTHER
#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_after(void)
{
    /* in the error's own second, the log position decides: the ROLLBACK
     * and the retry's BEGIN after it are after it, the failed UPDATE
     * (4368, logged before its error) is not */
    CHECK_INT(ls_retry_after(POS(4369), S18, POS(4371), S18), 1);
    CHECK_INT(ls_retry_after(POS(4369), S18, POS(4385), S18), 1);
    CHECK_INT(ls_retry_after(POS(4369), S18, POS(4368), S18), 0);
    CHECK_INT(ls_retry_after(POS(4369), S18, POS(4369), S18), 0);
    /* a later file is after, whatever the line */
    CHECK_INT(ls_retry_after(POS(4369), S18, ((ls_logpos){2, 1}), S18), 1);
    /* a position unknown on either side: by time, strictly later */
    CHECK_INT(ls_retry_after(POS(4369), S18, ((ls_logpos){0, 0}), S18), 0);
    CHECK_INT(ls_retry_after(POS(4369), S18, ((ls_logpos){0, 0}), S18 + 1), 1);
    CHECK_INT(ls_retry_after(((ls_logpos){0, 0}), S18, POS(4368), S18 + 1), 1);
}

static void test_session(void)
{
    /* attempt 1: the next transaction runs the shape (its UPDATE, the 4th
     * statement after the error), a second later */
    ls_retry_step a1[] = {{S18, R, 0, 0}, {S18, B, 0, 0}, {S18, O, 0, 0}, {S18, O, 0, 0},
                          {S19, O, 1, 0}, {S19, R, 0, 0}};
    /* attempt 3: the next transaction is another request's (place_order's
     * UPDATE stock ... - 1 is another shape); the report_fix after it
     * runs the shape but is not the retry */
    ls_retry_step a3[] = {{S19, R, 0, 0}, {S19, B, 0, 0}, {S19, O, 0, 0}, {S19, O, 0, 0},
                          {S19, C, 0, 0}, {S19, B, 0, 0}, {S19, O, 0, 0}, {S19, O, 0, 0},
                          {S19, O, 1, 0}, {S19, C, 0, 0}};
    ls_retry_found f = ls_retry_walk(S18, 1, a1, N(a1));
    CHECK_INT(f.index, 4);
    CHECK_STR(f.outcome, "rollback");
    f = ls_retry_walk(S19, 1, a3, N(a3));
    CHECK_INT(f.index, -1);
    /* the stream ends inside the retry's transaction: outcome unknown */
    f = ls_retry_walk(S18, 1, a1, 5);
    CHECK_INT(f.index, 4);
    CHECK(f.outcome == NULL);
    /* the failed transaction's own statements (rejected, 25P02) up to its
     * end are not the next transaction, even of the shape */
    {
        ls_retry_step s[] = {{S18, O, 1, 0}, {S18, R, 0, 0}, {S18, O, 1, 0}};
        f = ls_retry_walk(S18, 1, s, N(s));
        CHECK_INT(f.index, 2);
        CHECK_STR(f.outcome, "commit");
        /* nothing after the failed transaction */
        CHECK_INT(ls_retry_walk(S18, 1, s, 2).index, -1);
    }
}

static void test_autocommit(void)
{
    /* a failed statement of its own: the next statement is the next
     * transaction; of the shape, it is the retry; of another, none */
    ls_retry_step same[] = {{S18 + 5, O, 1, 0}};
    ls_retry_step other[] = {{S18 + 5, O, 0, 0}, {S18 + 6, O, 1, 0}};
    ls_retry_step again[] = {{S18 + 5, O, 1, 1}};
    CHECK_INT(ls_retry_walk(S18, 0, same, N(same)).index, 0);
    CHECK_INT(ls_retry_walk(S18, 0, other, N(other)).index, -1);
    /* it failed again */
    CHECK_STR(ls_retry_walk(S18, 0, again, N(again)).outcome, "aborted");
}

static void test_window(void)
{
    ls_retry_step edge[] = {{S18, R, 0, 0}, {S18, B, 0, 0},
                            {S18 + LS_RETRY_WINDOW_US, O, 1, 0}, {S18 + LS_RETRY_WINDOW_US, C, 0, 0}};
    ls_retry_found f = ls_retry_walk(S18, 1, edge, N(edge));
    CHECK_INT(f.index, 2);
    CHECK_STR(f.outcome, "commit");
    edge[2].ts++;
    CHECK_INT(ls_retry_walk(S18, 1, edge, N(edge)).index, -1);
    /* autocommit, one past the window */
    {
        ls_retry_step late[] = {{S18 + LS_RETRY_WINDOW_US + 1, O, 1, 0}};
        CHECK_INT(ls_retry_walk(S18, 0, late, N(late)).index, -1);
        late[0].ts--;
        CHECK_INT(ls_retry_walk(S18, 0, late, N(late)).index, 0);
    }
}

static void test_trace(void)
{
    /* blind-pool's trace c37b0bb0...: every statement twice (Sequelize's
     * span and pg's); the repeats of the ROLLBACK, START TRANSACTION and
     * COMMIT change nothing; the retry is the first UPDATE span */
    const int64_t t = 1796578565000000LL;
    ls_retry_step s[] = {{t + 871000, R, 0, 0}, {t + 871000, R, 0, 0}, {t + 878000, B, 0, 0},
                         {t + 878000, B, 0, 0}, {t + 880000, O, 0, 0}, {t + 880000, O, 0, 0},
                         {t + 882000, O, 0, 0}, {t + 882000, O, 0, 0}, {t + 932000, O, 1, 0},
                         {t + 933000, O, 1, 0}, {t + 938000, C, 0, 0}, {t + 938000, C, 0, 0}};
    ls_retry_found f = ls_retry_walk(t + 870409, 1, s, N(s));
    int open = 0;
    size_t i;
    CHECK_INT(f.index, 8);
    CHECK_STR(f.outcome, "commit");
    /* the retry failed again (40001 once more): aborted, whatever the end */
    s[8].failed = 1;
    CHECK_STR(ls_retry_walk(t + 870409, 1, s, N(s)).outcome, "aborted");
    s[8].failed = 0;
    s[10].kind = s[11].kind = R;
    CHECK_STR(ls_retry_walk(t + 870409, 1, s, N(s)).outcome, "rollback");
    /* the spans before the failed one: START x2, SET x2, SELECT x2 leave
     * the transaction open; a COMMIT closes it */
    {
        const ls_retry_kind before[] = {B, B, O, O, O, O};
        for (i = 0; i < N(before); i++)
            open = ls_retry_open_after(open, before[i]);
        CHECK_INT(open, 1);
        CHECK_INT(ls_retry_open_after(open, C), 0);
        CHECK_INT(ls_retry_open_after(0, O), 0);
        CHECK_INT(ls_retry_open_after(1, R), 0);
    }
}

static void test_same_run(void)
{
    /* the next report_fix request of pid 10478 (log line 4519) ran the
     * shape on sku 12 right after attempt 3 on sku 2 failed (4489): not a
     * retry; the same key, or a key unknown on either side ($n not
     * logged), is */
    CHECK_INT(ls_retry_same_run(1, "stock sku=2", "stock sku=12"), 0);
    CHECK_INT(ls_retry_same_run(1, "stock sku=2", "stock sku=2"), 1);
    CHECK_INT(ls_retry_same_run(1, "stock sku=2", ""), 1);
    CHECK_INT(ls_retry_same_run(1, NULL, "stock sku=2"), 1);
    CHECK_INT(ls_retry_same_run(1, "", NULL), 1);
    /* another shape, whatever the key */
    CHECK_INT(ls_retry_same_run(0, "stock sku=2", "stock sku=2"), 0);
    CHECK_INT(ls_retry_same_run(0, NULL, NULL), 0);
}

int main(void)
{
    test_same_run();
    test_after();
    test_session();
    test_autocommit();
    test_window();
    test_trace();
    return TEST_REPORT();
}
