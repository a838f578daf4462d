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
    ls_retry_step a1[] = {{S18, R, 0, 0, 0, 0}, {S18, B, 0, 0, 0, 0}, {S18, O, 0, 0, 0, 0},
                          {S18, O, 0, 0, 0, 0}, {S19, O, 1, 0, 0, 0}, {S19, R, 0, 0, 0, 0}};
    /* attempt 3: the next transaction is another request's (place_order's
     * UPDATE stock ... - 1 is another shape); the report_fix after it
     * runs the shape but is not the retry */
    ls_retry_step a3[] = {{S19, R, 0, 0, 0, 0}, {S19, B, 0, 0, 0, 0}, {S19, O, 0, 0, 0, 0},
                          {S19, O, 0, 0, 0, 0}, {S19, C, 0, 0, 0, 0}, {S19, B, 0, 0, 0, 0},
                          {S19, O, 0, 0, 0, 0}, {S19, O, 0, 0, 0, 0}, {S19, O, 1, 0, 0, 0},
                          {S19, C, 0, 0, 0, 0}};
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
        ls_retry_step s[] = {{S18, O, 1, 0, 0, 0}, {S18, R, 0, 0, 0, 0}, {S18, O, 1, 0, 0, 0}};
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
    ls_retry_step same[] = {{S18 + 5, O, 1, 0, 0, 0}};
    ls_retry_step other[] = {{S18 + 5, O, 0, 0, 0, 0}, {S18 + 6, O, 1, 0, 0, 0}};
    ls_retry_step again[] = {{S18 + 5, O, 1, 1, 0, 0}};
    CHECK_INT(ls_retry_walk(S18, 0, same, N(same)).index, 0);
    CHECK_INT(ls_retry_walk(S18, 0, other, N(other)).index, -1);
    /* it failed again */
    CHECK_STR(ls_retry_walk(S18, 0, again, N(again)).outcome, "aborted");
}

static void test_window(void)
{
    ls_retry_step edge[] = {{S18, R, 0, 0, 0, 0},
                            {S18, B, 0, 0, 0, 0},
                            {S18 + LS_RETRY_WINDOW_US, O, 1, 0, 0, 0},
                            {S18 + LS_RETRY_WINDOW_US, C, 0, 0, 0, 0}};
    ls_retry_found f = ls_retry_walk(S18, 1, edge, N(edge));
    CHECK_INT(f.index, 2);
    CHECK_STR(f.outcome, "commit");
    edge[2].ts++;
    CHECK_INT(ls_retry_walk(S18, 1, edge, N(edge)).index, -1);
    /* autocommit, one past the window */
    {
        ls_retry_step late[] = {{S18 + LS_RETRY_WINDOW_US + 1, O, 1, 0, 0, 0}};
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
    ls_retry_step s[] = {
        {t + 871000, R, 0, 0, 0, 0}, {t + 871000, R, 0, 0, 0, 0}, {t + 878000, B, 0, 0, 0, 0},
        {t + 878000, B, 0, 0, 0, 0}, {t + 880000, O, 0, 0, 0, 0}, {t + 880000, O, 0, 0, 0, 0},
        {t + 882000, O, 0, 0, 0, 0}, {t + 882000, O, 0, 0, 0, 0}, {t + 932000, O, 1, 0, 0, 0},
        {t + 933000, O, 1, 0, 0, 0}, {t + 938000, C, 0, 0, 0, 0}, {t + 938000, C, 0, 0, 0, 0}};
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

/* Issue 34: samples/blind-java (PgJDBC, PostgreSQL 15, '%t [%p]: ...',
 * durations), pid 14692 at 06:18:45, repriceProduct's attempt 2 fails:
 *   [208-1] ERROR: could not serialize access due to concurrent update
 *   [211-1] execute S_2: ROLLBACK
 *   [214-1] execute <unnamed>: SET SESSION CHARACTERISTICS AS TRANSACTION
 *           ISOLATION LEVEL REPEATABLE READ   (setTransactionIsolation())
 *   [217-1] BEGIN  ...  then the UPDATE products SET price of attempt 3.
 * The SET between the transactions prepares the next one; it is no
 * transaction of other work. */
#define S45 1796624325000000LL /* 06:18:45 */
#define T LS_RETRY_STEP_SETTING
static void test_setting(void)
{
    ls_retry_step s[] = {{S45, R, 0, 0, 0, 0}, {S45, T, 0, 0, 0, 0}, {S45, B, 0, 0, 0, 0},
                         {S45, O, 0, 0, 0, 0}, {S45, O, 1, 0, 0, 0}, {S45, C, 0, 0, 0, 0}};
    /* another request's SET then another shape: still no retry */
    ls_retry_step other[] = {{S45, R, 0, 0, 0, 0}, {S45, T, 0, 0, 0, 0}, {S45, B, 0, 0, 0, 0},
                             {S45, O, 0, 0, 0, 0}, {S45, C, 0, 0, 0, 0}, {S45, B, 0, 0, 0, 0},
                             {S45, O, 1, 0, 0, 0}, {S45, C, 0, 0, 0, 0}};
    /* a statement of its own that is not a setting is a transaction */
    ls_retry_step plain[] = {{S45, R, 0, 0, 0, 0},
                             {S45, O, 0, 0, 0, 0},
                             {S45, B, 0, 0, 0, 0},
                             {S45, O, 1, 0, 0, 0},
                             {S45, C, 0, 0, 0, 0}};
    ls_retry_found f = ls_retry_walk(S45, 1, s, N(s));
    CHECK_INT(f.index, 4);
    CHECK_STR(f.outcome, "commit");
    f = ls_retry_walk(S45, 1, other, N(other));
    CHECK_INT(f.index, -1);
    f = ls_retry_walk(S45, 1, plain, N(plain));
    CHECK_INT(f.index, -1);
    /* what is a setting: SET, RESET, SHOW, a word of its own */
    CHECK_INT(ls_retry_sets_session("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL "
                                    "REPEATABLE READ"),
              1);
    CHECK_INT(ls_retry_sets_session("  set application_name = 'x'"), 1);
    CHECK_INT(ls_retry_sets_session("RESET ALL"), 1);
    CHECK_INT(ls_retry_sets_session("SHOW transaction_isolation"), 1);
    CHECK_INT(ls_retry_sets_session("SETUP_TABLE()"), 0);
    CHECK_INT(ls_retry_sets_session("settle()"), 0);
    CHECK_INT(ls_retry_sets_session("UPDATE t SET x = 1"), 0);
    CHECK_INT(ls_retry_sets_session("SELECT set_config('a', 'b', false)"), 0);
    CHECK_INT(ls_retry_sets_session(NULL), 0);
}

/* Issue 34: samples/blind-java, pid 14692 at 06:18:48 (a repriceProduct
 * whose retry the app ran on the same pooled connection; pid 14697 at
 * 06:18:44 has the same lines, but there the pool gave the connection to
 * another repriceProduct request on the same product):
 *   [244-1] ERROR: could not serialize access due to concurrent update
 *   [247-1] execute S_2: ROLLBACK
 *   [250-1] SET SESSION CHARACTERISTICS ... READ COMMITTED   (returned)
 *   [253-1] SET SESSION CHARACTERISTICS ... REPEATABLE READ  (borrowed)
 *   [255-1] execute S_4: BEGIN, SELECT sum(stock), UPDATE products ...
 * What the walk reports of the gap, and what the session's order tells. */
#define S48 1796624328000000LL /* 06:18:48 */
static void test_told(void)
{
    ls_retry_step s[] = {{S48, R, 0, 0, 0, 0}, {S48, T, 0, 0, 0, 0}, {S48, T, 0, 0, 0, 0},
                         {S48, B, 0, 0, 0, 0}, {S48, O, 0, 0, 0, 0}, {S48, O, 1, 0, 0, 0},
                         {S48, C, 0, 0, 0, 0}};
    /* the same with ms times: ROLLBACK at +5 ms, BEGIN at +5 ms + gap */
    ls_retry_step ms[] = {{S48 + 5000, R, 0, 0, 0, 0},
                          {S48 + 5100, T, 0, 0, 0, 0},
                          {S48 + 5000 + LS_RETRY_GAP_US, B, 0, 0, 0, 0},
                          {S48 + 5000 + LS_RETRY_GAP_US + 40000, O, 1, 0, 0, 0},
                          {S48 + 5000 + LS_RETRY_GAP_US + 41000, C, 0, 0, 0, 0}};
    /* no SET between: a client that kept its connection as it was */
    ls_retry_step kept[] = {
        {S48, R, 0, 0, 0, 0}, {S48, B, 0, 0, 0, 0}, {S48, O, 1, 0, 0, 0}, {S48, C, 0, 0, 0, 0}};
    /* an autocommit retry right after the failed autocommit statement */
    ls_retry_step own[] = {{S48 + 2000000, T, 0, 0, 0, 0}, {S48 + 2000000, O, 1, 0, 0, 0}};
    ls_retry_found f = ls_retry_walk(S48, 1, s, N(s));

    CHECK_INT(f.index, 5);
    CHECK_INT(f.set_between, 1);
    CHECK_INT(f.ended_ts == S48, 1);
    CHECK_INT(f.next_ts == S48, 1);
    /* whole seconds: the gap is not measured; untold */
    CHECK_INT(ls_retry_session_told(f, LS_WHOLE_SECOND_US, 1, 0, 1, 0), LS_RETRY_UNTOLD);
    /* the same ties with millisecond times: a gap of 0, told */
    CHECK_INT(ls_retry_session_told(f, 1000, 1, 0, 1, 0), LS_RETRY_TOLD);

    f = ls_retry_walk(S48, 1, ms, N(ms));
    CHECK_INT(f.index, 3);
    CHECK_INT(f.next_ts - f.ended_ts == LS_RETRY_GAP_US, 1);
    CHECK_INT(ls_retry_session_told(f, 1000, 1, 0, 1, 0), LS_RETRY_TOLD); /* at the gap: told */
    f.next_ts++;
    CHECK_INT(ls_retry_session_told(f, 1000, 1, 0, 1, 0), LS_RETRY_UNTOLD); /* 1 us over: untold */
    CHECK_INT(ls_retry_session_told(f, 1000, 0, 0, 1, 0), LS_RETRY_UNTOLD); /* set up again: shared */
    CHECK_INT(ls_retry_session_told(f, 999999, 1, 0, 1, 0), LS_RETRY_UNTOLD);

    f = ls_retry_walk(S48, 1, kept, N(kept));
    CHECK_INT(f.index, 2);
    CHECK_INT(f.set_between, 0);
    CHECK_INT(ls_retry_session_told(f, LS_WHOLE_SECOND_US, 1, 0, 1, 0), LS_RETRY_TOLD);

    /* autocommit: from the error's time to the statement of its own */
    f = ls_retry_walk(S48, 0, own, N(own));
    CHECK_INT(f.index, 1);
    CHECK_INT(f.set_between, 1);
    CHECK_INT(f.next_ts - f.ended_ts == 2000000, 1);
    CHECK_INT(ls_retry_session_told(f, 1000, 1, 0, 1, 0), LS_RETRY_UNTOLD);
    f.next_ts = f.ended_ts + LS_RETRY_GAP_US;
    CHECK_INT(ls_retry_session_told(f, 1000, 1, 0, 1, 0), LS_RETRY_TOLD);

    /* samples/blind-dj (psycopg2, REPEATABLE READ alias): the SET came
     * before the failed transaction too, the client's routine; pid 23038's
     * third 40001 (not retried) at 16:27:54.696, its ROLLBACK then, the
     * next request's SET 77 ms later on the same row: untold, however
     * close (a retry's gap there is 5 to 36 ms, a next request's 2 to 84) */
    f = ls_retry_walk(S48, 1, ms, N(ms));
    f.next_ts = f.ended_ts + 77000;
    CHECK_INT(ls_retry_session_told(f, 1000, 0, 0, 1, 0), LS_RETRY_TOLD);
    CHECK_INT(ls_retry_session_told(f, 1000, 0, 1, 1, 0), LS_RETRY_UNTOLD);
    f.next_ts = f.ended_ts + 2000;
    CHECK_INT(ls_retry_session_told(f, 1000, 0, 1, 1, 0), LS_RETRY_UNTOLD);
    /* no SET between: the routine flag is not read */
    f = ls_retry_walk(S48, 1, kept, N(kept));
    CHECK_INT(ls_retry_session_told(f, 1000, 0, 1, 1, 0), LS_RETRY_TOLD);
}

/* Issue 34: a retry on another pooled connection, told by its parameters
 * (samples/blind-java: the ROLLBACK of a 40001 at [57-1], the retry's
 * first statement on another pid in the same or the next second). */
static void test_params(void)
{
    const int64_t S = 1796624324000000; /* 06:18:44, whole seconds */
    const ls_retry_end end = {S, {1, 1000}};
    const ls_retry_end end_ms = {S, {0, 0}};
    ls_retry_cand one[] = {{S + 1000000, {1, 1200}, 0, 0, 0}};
    ls_retry_cand two[] = {{S, {1, 1010}, 0, 0, 0}, {S + 1000000, {1, 1300}, 0, 0, 0}};
    ls_retry_cand before[] = {{S, {1, 990}, 0, 0, 0}, {S, {1, 1010}, 0, 0, 0}};
    ls_retry_cand own[] = {{S, {1, 1010}, 1, 0, 0}};
    ls_retry_cand claimed[] = {{S, {1, 1010}, 0, 1, 0}};
    ls_retry_end rival[] = {{S, {1, 1005}}};
    ls_retry_end rival_after[] = {{S, {1, 1020}}};

    CHECK_INT(ls_retry_class_asks_retry("serialization_failure"), 1);
    CHECK_INT(ls_retry_class_asks_retry("deadlock"), 1);
    CHECK_INT(ls_retry_class_asks_retry("lock_timeout"), 0);
    CHECK_INT(ls_retry_class_asks_retry("statement_timeout"), 0);
    CHECK_INT(ls_retry_class_asks_retry(NULL), 0);

    /* the gap at its limit: whole seconds add the resolution */
    /* the gap the pass reads transactions in: the in-gap test's own bound */
    CHECK_INT(ls_retry_param_gap(1000), LS_RETRY_PARAM_GAP_US);
    CHECK_INT(ls_retry_param_gap(LS_WHOLE_SECOND_US), LS_RETRY_PARAM_GAP_US + LS_WHOLE_SECOND_US);
    CHECK_INT(ls_retry_param_in_gap(end_ms, S + ls_retry_param_gap(1000), (ls_logpos){0, 0}, 1000),
              1);
    CHECK_INT(ls_retry_param_in_gap(end_ms, S + LS_RETRY_PARAM_GAP_US, (ls_logpos){0, 0}, 1000), 1);
    CHECK_INT(ls_retry_param_in_gap(end_ms, S + LS_RETRY_PARAM_GAP_US + 1, (ls_logpos){0, 0}, 1000),
              0);
    CHECK_INT(ls_retry_param_in_gap(end_ms, S - 1, (ls_logpos){0, 0}, 1000), 0);
    CHECK_INT(ls_retry_param_in_gap(end, S + LS_RETRY_PARAM_GAP_US + LS_WHOLE_SECOND_US,
                                    (ls_logpos){1, 1001}, LS_WHOLE_SECOND_US),
              1);
    CHECK_INT(ls_retry_param_in_gap(end, S + LS_RETRY_PARAM_GAP_US + LS_WHOLE_SECOND_US + 1,
                                    (ls_logpos){1, 1001}, LS_WHOLE_SECOND_US),
              0);
    /* times tie: the log's order says after, or not */
    CHECK_INT(ls_retry_param_in_gap(end, S, (ls_logpos){1, 1001}, LS_WHOLE_SECOND_US), 1);
    CHECK_INT(ls_retry_param_in_gap(end, S, (ls_logpos){1, 999}, LS_WHOLE_SECOND_US), 0);

    CHECK_INT(ls_retry_by_params(end, NULL, 0, one, N(one), LS_WHOLE_SECOND_US), 0);
    /* no candidate (no parameters logged: the caller asks none) */
    CHECK_INT(ls_retry_by_params(end, NULL, 0, one, 0, LS_WHOLE_SECOND_US), -1);
    /* equal parameters on two candidates in the gap: untold */
    CHECK_INT(ls_retry_by_params(end, NULL, 0, two, N(two), LS_WHOLE_SECOND_US), -1);
    /* ... with one of them past the gap (sub-second times): the other */
    CHECK_INT(ls_retry_by_params(end_ms, NULL, 0, two, N(two), 1000), 0);
    /* one begun before the ROLLBACK is not a candidate */
    CHECK_INT(ls_retry_by_params(end, NULL, 0, before, N(before), LS_WHOLE_SECOND_US), 1);
    /* on the own session (the walk answers), or claimed: none */
    CHECK_INT(ls_retry_by_params(end, NULL, 0, own, N(own), LS_WHOLE_SECOND_US), -1);
    CHECK_INT(ls_retry_by_params(end, NULL, 0, claimed, N(claimed), LS_WHOLE_SECOND_US), -1);
    /* another request's trace: left out, the other candidate stays */
    {
        ls_retry_cand traced[] = {{S, {1, 1010}, 0, 0, 1}, {S, {1, 1020}, 0, 0, 0}};
        CHECK_INT(ls_retry_by_params(end, NULL, 0, traced, N(traced), LS_WHOLE_SECOND_US), 1);
        CHECK_INT(ls_retry_by_params(end, NULL, 0, traced, 1, LS_WHOLE_SECOND_US), -1);
    }
    /* two failures share the parameters: the candidate fits the other too */
    CHECK_INT(ls_retry_by_params(end, rival, N(rival), own, 0, LS_WHOLE_SECOND_US), -1);
    CHECK_INT(ls_retry_by_params(end, rival, N(rival), before + 1, 1, LS_WHOLE_SECOND_US), -1);
    /* ... not when the other failure ended after it began */
    CHECK_INT(
        ls_retry_by_params(end, rival_after, N(rival_after), before + 1, 1, LS_WHOLE_SECOND_US), 0);
}

/* Issue 34: samples/blind-otel without its traces, pid 8314 (knex's
 * pool sets nothing up between requests):
 *   05:52:18.767 ERROR: deadlock detected (update "wallets" ... + $1
 *                where "id" = $2; bind: $1 = '1', $2 = '2')
 *   05:52:18.769 statement: ROLLBACK
 *   05:52:18.900 statement: BEGIN;   (the next transfer, 1 -> 2, amount 1:
 *                the same statements and parameters; no retry, the truth)
 * and pid 8313's 40001 at 05:52:02.636, whose retry began on the same
 * connection 7 ms after the ROLLBACK. The gap without a SET between. */
#define SO18 1796536338000000LL /* 05:52:18 */
static void test_kept_gap(void)
{
    ls_retry_step next[] = {{SO18 + 769000, R, 0, 0, 0, 0},
                            {SO18 + 900000, B, 0, 0, 0, 0},
                            {SO18 + 931000, O, 0, 0, 0, 0},
                            {SO18 + 950000, O, 1, 0, 0, 0},
                            {SO18 + 951000, C, 0, 0, 0, 0}};
    ls_retry_step quick[] = {{SO18 + 769000, R, 0, 0, 0, 0},
                             {SO18 + 776000, B, 0, 0, 0, 0},
                             {SO18 + 790000, O, 1, 0, 0, 0},
                             {SO18 + 791000, C, 0, 0, 0, 0}};
    ls_retry_found f = ls_retry_walk(SO18 + 767000, 1, next, N(next));

    CHECK_INT(f.index, 3);
    CHECK_INT(f.set_between, 0);
    CHECK_INT(f.next_ts - f.ended_ts == 131000, 1);
    CHECK_INT(ls_retry_kept_late(f, 1000), 1);
    /* 131 ms, shared: untold */
    CHECK_INT(ls_retry_session_told(f, 1000, 1, 0, 1, 0), LS_RETRY_UNTOLD);
    /* a connection of its own (samples/correlation backs off 100 ms after
     * a 40001, 700 ms after a lock timeout): told */
    CHECK_INT(ls_retry_session_told(f, 1000, 0, 0, 1, 0), LS_RETRY_TOLD);
    f = ls_retry_walk(SO18 + 767000, 1, quick, N(quick));
    CHECK_INT(f.index, 2);
    CHECK_INT(ls_retry_kept_late(f, 1000), 0);
    CHECK_INT(ls_retry_session_told(f, 1000, 1, 0, 1, 0), LS_RETRY_TOLD); /* 7 ms: told */
    /* the boundary: LS_RETRY_GAP_US told, 1 us more untold */
    f.next_ts = f.ended_ts + LS_RETRY_GAP_US;
    CHECK_INT(ls_retry_session_told(f, 1000, 1, 0, 1, 0), LS_RETRY_TOLD);
    f.next_ts++;
    CHECK_INT(ls_retry_session_told(f, 1000, 1, 0, 1, 0), LS_RETRY_UNTOLD);
    /* whole seconds: the next second is within the gap, two are not */
    f.ended_ts = SO18;
    f.next_ts = SO18 + LS_WHOLE_SECOND_US;
    CHECK_INT(ls_retry_session_told(f, LS_WHOLE_SECOND_US, 1, 0, 1, 0), LS_RETRY_TOLD);
    f.next_ts = SO18 + 2 * LS_WHOLE_SECOND_US;
    CHECK_INT(ls_retry_session_told(f, LS_WHOLE_SECOND_US, 1, 0, 1, 0), LS_RETRY_UNTOLD);
}

/* Issue 34: samples/blind-otel without its traces, pid 8302's 40001 at
 * 05:52:00.781 (update "products" set "price" = $1 where "sku" = $2;
 * bind: $1 = '102', $2 = 'SKU-1'), ROLLBACK at .974; its own connection
 * then ran a payment, and the retry began on pid 8312 at 01.019 (45 ms)
 * and wrote $1 = '103', $2 = 'SKU-1': the same row, another price. */
#define S00 1796536320000000LL /* 05:52:00 */
static void test_row_untold(void)
{
    const ls_retry_end end = {S00 + 974000, {1, 300}};
    ls_retry_cand other[] = {{S00 + 974000 + 45000, {1, 310}, 0, 0, 0}};
    ls_retry_cand own[] = {{S00 + 974000 + 28000, {1, 305}, 1, 0, 0}};
    ls_retry_cand claimed[] = {{S00 + 974000 + 45000, {1, 310}, 0, 1, 0}};
    ls_retry_cand traced[] = {{S00 + 974000 + 45000, {1, 310}, 0, 0, 1}};
    ls_retry_cand late[] = {{S00 + 974000 + LS_RETRY_PARAM_GAP_US + 1, {0, 0}, 0, 0, 0}};
    ls_retry_cand edge[] = {{S00 + 974000 + LS_RETRY_PARAM_GAP_US, {0, 0}, 0, 0, 0}};
    ls_retry_cand before[] = {{S00 + 974000, {1, 299}, 0, 0, 0}};
    const ls_retry_end end_ms = {S00 + 974000, {0, 0}};

    CHECK_INT(ls_retry_row_untold(end, other, N(other), 1000), 1);
    CHECK_INT(ls_retry_row_untold(end, other, 0, 1000), 0); /* none ran it: none */
    CHECK_INT(ls_retry_row_untold(end, own, N(own), 1000), 0);
    CHECK_INT(ls_retry_row_untold(end, claimed, N(claimed), 1000), 0);
    CHECK_INT(ls_retry_row_untold(end, traced, N(traced), 1000), 0);
    CHECK_INT(ls_retry_row_untold(end_ms, edge, N(edge), 1000), 1);
    CHECK_INT(ls_retry_row_untold(end_ms, late, N(late), 1000), 0);
    CHECK_INT(ls_retry_row_untold(end_ms, late, N(late), LS_WHOLE_SECOND_US), 1);
    CHECK_INT(ls_retry_row_untold(end, before, N(before), 1000), 0); /* logged before the end */
    {
        ls_retry_cand mixed[] = {own[0], claimed[0], other[0]};
        CHECK_INT(ls_retry_row_untold(end, mixed, N(mixed), 1000), 1);
        CHECK_INT(ls_retry_row_untold(end, mixed, 2, 1000), 0);
    }
}

/* Issue 34, samples/blind-rb/postgresql.log (PostgreSQL 15, '%m [%p] ',
 * log_min_duration_statement = 100ms): pid 21119's last lines are
 *   7  ERROR: could not serialize access due to concurrent update
 *   9  ERROR: current transaction is aborted ... STATEMENT: DEALLOCATE a1
 *   11 ERROR: current transaction is aborted ... STATEMENT: DEALLOCATE a2
 * and ActiveRecord retried on a new backend: untold, not "not retried". */
static void test_ended(void)
{
    /* the session ended after a 40001/40P01, no parameters to look by */
    CHECK_INT(ls_retry_ended_untold(1, 0, 0), 1);
    /* the session logged a statement after: its order decides */
    CHECK_INT(ls_retry_ended_untold(1, 1, 0), 0);
    /* every connection was searched by the logged parameters: none */
    CHECK_INT(ls_retry_ended_untold(1, 0, 1), 0);
    /* a lock or statement timeout: a limit the client gave up by */
    CHECK_INT(ls_retry_ended_untold(0, 0, 0), 0);
    CHECK_INT(ls_retry_ended_untold(0, 1, 1), 0);
}

static void test_elsewhere(void)
{
    /* samples/blind-zk (log_statement = 'mod', Sequelize's pool): error
     * line 153, 40001 on pid 30369 at 15:25:35.922 (UPDATE "products"
     * ... $2 = '2'), no BEGIN logged; the session's next statement, line
     * 170, runs the shape on id=1 (another request); the app retried on
     * pid 30376 */
    CHECK_INT(ls_retry_elsewhere_untold(1, 0, 1, 0, 1), 1);
    /* the failed transaction not in the log and no trace: nothing walked */
    CHECK_INT(ls_retry_elsewhere_untold(1, 0, 0, 0, 0), 1);
    CHECK_INT(ls_retry_elsewhere_untold(1, 0, 0, 0, 1), 1);
    /* shown without its BEGIN on a session that ran nothing else: the
     * client's own connection, its order says none */
    CHECK_INT(ls_retry_elsewhere_untold(1, 0, 1, 0, 0), 0);
    /* its BEGIN logged (samples/blind-py, log_statement = 'all'): the
     * session's next transaction is the retry or none, pool or not */
    CHECK_INT(ls_retry_elsewhere_untold(1, 0, 1, 1, 1), 0);
    CHECK_INT(ls_retry_elsewhere_untold(1, 0, 1, 1, 0), 0);
    /* the request's trace was walked: it says none, on any connection */
    CHECK_INT(ls_retry_elsewhere_untold(1, 1, 0, 0, 1), 0);
    CHECK_INT(ls_retry_elsewhere_untold(1, 1, 1, 0, 1), 0);
    /* a lock or statement timeout: a limit the client gave up by */
    CHECK_INT(ls_retry_elsewhere_untold(0, 0, 0, 0, 1), 0);
    CHECK_INT(ls_retry_elsewhere_untold(0, 0, 1, 0, 1), 0);
}

/*
 * A retry that failed before it reached the failed statement (issue 34,
 * retry34n). Backend 15649 of tests/e2e/data/pgbench-tuple-queue.log.gz
 * (pgbench --max-tries=10, '%m ...'): transaction 12/793 ran
 *   BEGIN; UPDATE pgbench_branches ... + $1 WHERE bid = 2 ($1 = '2916');
 *   SELECT pg_sleep(0.01); UPDATE pgbench_branches ... - $1 WHERE bid = 3
 * which deadlocked at 01:10:05.408 (40P01); ROLLBACK .409; then 12/794:
 * BEGIN .409, UPDATE ... + $1 WHERE bid = 2 ($1 = '2916') .409, which
 * waits on a tuple lock until the log ends at .605: pgbench's retry, the
 * failed statement never reached. In busy-row the retry deadlocks at its
 * first UPDATE and pgbench sends a ROLLBACK.
 */
static void test_again(void)
{
    const int64_t t = 1796346605000000LL; /* 2026-12-04 01:10:05 */
    ls_retry_step s[] = {{t + 409000, R, 0, 0, 0, 0},
                         {t + 409000, B, 0, 0, 0, 0},
                         {t + 409000, O, 0, 0, 1, 0},
                         {t + 610000, R, 0, 0, 0, 0}};
    ls_retry_found f;

    /* the stream ends inside it: the retry, outcome unknown */
    f = ls_retry_walk(t + 408000, 1, s, 3);
    CHECK_INT(f.index, 2);
    CHECK(f.outcome == NULL);
    /* it ends in a ROLLBACK: the retry, rolled back */
    f = ls_retry_walk(t + 408000, 1, s, N(s));
    CHECK_INT(f.index, 2);
    CHECK_STR(f.outcome, "rollback");
    /* it commits without the failed statement: another request's */
    s[3].kind = C;
    CHECK_INT(ls_retry_walk(t + 408000, 1, s, N(s)).index, -1);
    s[3].kind = R;
    /* its first statement with other parameters: none */
    s[2].again = 0;
    CHECK_INT(ls_retry_walk(t + 408000, 1, s, N(s)).index, -1);
    CHECK_INT(ls_retry_walk(t + 408000, 1, s, 3).index, -1);
    s[2].again = 1;
    /* past the window: none */
    CHECK_INT(ls_retry_walk(s[2].ts - LS_RETRY_WINDOW_US, 1, s, N(s)).index, 2);
    CHECK_INT(ls_retry_walk(s[2].ts - LS_RETRY_WINDOW_US - 1, 1, s, N(s)).index, -1);
    {
        /* the failed statement's shape on another row in it: another
         * request that began alike */
        ls_retry_step o[] = {{t + 409000, R, 0, 0, 0, 0},
                             {t + 409000, B, 0, 0, 0, 0},
                             {t + 409000, O, 0, 0, 1, 0},
                             {t + 420000, O, 0, 0, 0, 1},
                             {t + 421000, R, 0, 0, 0, 0}};
        /* the first statement is not it, a later one is: none */
        ls_retry_step l[] = {{t + 409000, R, 0, 0, 0, 0},
                             {t + 409000, B, 0, 0, 0, 0},
                             {t + 409000, O, 0, 0, 0, 0},
                             {t + 420000, O, 0, 0, 1, 0},
                             {t + 421000, R, 0, 0, 0, 0}};
        /* it reaches the failed statement: that one, as before */
        ls_retry_step r[] = {{t + 409000, R, 0, 0, 0, 0},
                             {t + 409000, B, 0, 0, 0, 0},
                             {t + 409000, O, 0, 0, 1, 0},
                             {t + 420000, O, 1, 0, 0, 0},
                             {t + 421000, C, 0, 0, 0, 0}};
        CHECK_INT(ls_retry_walk(t + 408000, 1, o, N(o)).index, -1);
        CHECK_INT(ls_retry_walk(t + 408000, 1, l, N(l)).index, -1);
        f = ls_retry_walk(t + 408000, 1, r, N(r));
        CHECK_INT(f.index, 3);
        CHECK_STR(f.outcome, "commit");
    }
}

/* Issue 34 (retry34n): samples/blind-java, pid 14696's 55P03 at 06:18:57
 * (line 8920, recountShelf's UPDATE warehouses ... WHERE id = $1, '1'),
 * ROLLBACK, then BEGIN; SET LOCAL lock_timeout; the same UPDATE on
 * warehouses id=1, all in that second: the pool's next recountShelf
 * (0.1 ms after, the app's records), which never retries a timeout. */
static void test_timeout(void)
{
    const int64_t t = 1796624337000000LL; /* 2026-12-07 06:18:57 */
    ls_retry_step s[] = {{t, R, 0, 0, 0, 0},
                         {t, B, 0, 0, 0, 0},
                         {t, LS_RETRY_STEP_SETTING, 0, 0, 0, 0},
                         {t, O, 1, 0, 0, 0},
                         {t, R, 0, 0, 0, 0}};
    ls_retry_found f = ls_retry_walk(t, 1, s, N(s));

    CHECK_INT(f.index, 3);
    CHECK_INT(f.set_between, 0);
    /* a timeout on a shared connection: untold, at any gap */
    CHECK_INT(ls_retry_session_told(f, LS_WHOLE_SECOND_US, 1, 0, 0, 0), LS_RETRY_UNTOLD);
    CHECK_INT(ls_retry_session_told(f, 1000, 1, 0, 0, 0), LS_RETRY_UNTOLD);
    /* a connection of its own (samples/correlation: 700 ms after a lock
     * timeout): told */
    CHECK_INT(ls_retry_session_told(f, 1000, 0, 0, 0, 0), LS_RETRY_TOLD);
    /* a 40001 or deadlock victim on the same shared connection, soon: told */
    CHECK_INT(ls_retry_session_told(f, LS_WHOLE_SECOND_US, 1, 0, 1, 0), LS_RETRY_TOLD);
    CHECK_INT(ls_retry_session_told(f, 1000, 1, 0, 1, 0), LS_RETRY_TOLD);
}

/* Issue 34 (phpretry34): samples/blind-php/postgresql.log.gz (PHP PDO,
 * PostgreSQL 13 in French, '%t [%p]: [%l-1] ...'; each php-cli worker runs
 * every request on its own connection, restock retries a 55P03 up to 3
 * tries with the same arguments):
 *   pid 11894, 18:46:23: line 295 DÉTAIL: paramètres : $1 = '15', $2 = '2'
 *     (UPDATE warehouses SET stock = stock + $1 WHERE id = $2), 503 ERREUR
 *     (55P03), 509 ROLLBACK, 556 BEGIN, 557 SET LOCAL lock_timeout =
 *     '150ms', 560 paramètres : $1 = '15', $2 = '2', 621 exécute (30 ms):
 *     its retry, which committed;
 *   pid 11894, 18:46:26: line 2718 ERREUR (55P03) for $1 = '12', $2 = '1',
 *     ROLLBACK, BEGIN, SET LOCAL, line 2734 paramètres : $1 = '15', $2 =
 *     '1': the worker's next restock of warehouses id=1 (its third try had
 *     failed), not a retry;
 *   pid 11887, 18:46:51-53: six failures in a row of $1 = '15', $2 = '1'
 *     (lines 23195 to 24036): two requests of the same quantity, while 74
 *     runs of 3 failures ended in another request. */
static void test_php(void)
{
    const int64_t t = 1796669183000000LL; /* 2026-12-07 18:46:23 */
    ls_retry_step s[] = {{t, R, 0, 0, 0, 0},
                         {t, B, 0, 0, 0, 0},
                         {t, LS_RETRY_STEP_SETTING, 0, 0, 0, 0},
                         {t, O, 1, 0, 0, 0},
                         {t, C, 0, 0, 0, 0}};
    ls_retry_found f = ls_retry_walk(t, 1, s, N(s));

    CHECK_INT(f.index, 3);
    CHECK_STR(f.outcome, "commit");
    /* the request's quantity is beyond the row's key ($2) */
    CHECK_INT(ls_retry_params_beyond_key("$1 = '15', $2 = '2'", 2), 1);
    CHECK_INT(ls_retry_params_beyond_key("$1 = '15', $2 = '2'", 1), 1);
    /* blind-java's recountShelf binds only the warehouse, its key */
    CHECK_INT(ls_retry_params_beyond_key("$1 = '1'", 1), 0);
    /* a row named by a literal (0): any bound value is beyond it */
    CHECK_INT(ls_retry_params_beyond_key("$1 = '1'", 0), 1);
    /* quoted values are skipped whole, '' inside them and a comma too */
    CHECK_INT(ls_retry_params_beyond_key("$1 = 'a, $2 = ''b'''", 1), 0);
    CHECK_INT(ls_retry_params_beyond_key("$1 = 'it''s', $2 = '2'", 1), 1);
    CHECK_INT(ls_retry_params_beyond_key("$2 = NULL, $1 = '7'", 2), 1);
    /* none, nothing or unparsable: 0 */
    CHECK_INT(ls_retry_params_beyond_key(NULL, 1), 0);
    CHECK_INT(ls_retry_params_beyond_key("", 1), 0);
    CHECK_INT(ls_retry_params_beyond_key("$2 = '2", 2), 0);
    CHECK_INT(ls_retry_params_beyond_key("parameters: $1 = '1'", 2), 0);
    /* on a shared connection, a timeout's run that repeats the request's
     * parameters is its retry; without them untold, as before */
    CHECK_INT(ls_retry_session_told(f, LS_WHOLE_SECOND_US, 1, 0, 0, 1), LS_RETRY_TOLD);
    CHECK_INT(ls_retry_session_told(f, LS_WHOLE_SECOND_US, 1, 0, 0, 0), LS_RETRY_UNTOLD);
    /* a timeout's run of the same text with other parameters is another
     * request's (line 2734); a 40001's or victim's may compute its
     * values again; parameters unknown or the same tell nothing */
    CHECK_INT(ls_retry_other_request(0, LS_RETRY_PARAMS_OTHER), 1);
    CHECK_INT(ls_retry_other_request(1, LS_RETRY_PARAMS_OTHER), 0);
    CHECK_INT(ls_retry_other_request(0, LS_RETRY_PARAMS_SAME), 0);
    CHECK_INT(ls_retry_other_request(0, LS_RETRY_PARAMS_UNKNOWN), 0);
    s[3].shape = 0; /* the next restock, marked another request's */
    s[3].other_run = 1;
    CHECK_INT(ls_retry_walk(t, 1, s, N(s)).index, -1);
    /* the tries: the client gave up after 3; a third failure's same-value
     * run (pid 11887's fourth) untold, a second's told */
    CHECK_INT(ls_retry_tries_untold(3, 3), 1);
    CHECK_INT(ls_retry_tries_untold(4, 3), 1);
    CHECK_INT(ls_retry_tries_untold(2, 3), 0);
    CHECK_INT(ls_retry_tries_untold(1, 1), 1);
    /* no run seen given up: told */
    CHECK_INT(ls_retry_tries_untold(5, 0), 0);
}

int main(void)
{
    test_php();
    test_timeout();
    test_again();
    test_elsewhere();
    test_ended();
    test_kept_gap();
    test_row_untold();
    test_params();
    test_told();
    test_setting();
    test_same_run();
    test_after();
    test_session();
    test_autocommit();
    test_window();
    test_trace();
    return TEST_REPORT();
}
