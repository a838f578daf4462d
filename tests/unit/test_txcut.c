/*
 * test_txcut.c — the per-session state machine that cuts statements into
 * transactions as the store writes them (src/store/txcut.c). Its rules
 * must be those of the transactions pass (transactions.c,
 * tx_statement()); the kinds come from ls_sql_kind_of() on the texts, as
 * the store decides them. The statement texts are those of samples/
 * (scenarios.py and pgbench, as PostgreSQL 15 logged them).
 */
#include <stdlib.h>
#include <string.h>

#include "ls_sqlshape.h"
#include "ls_test.h"
#include "ls_txcut.h"

#define MAX_ROWS 4096

/* What the cutter handed over: every row in order, and the unfinished
 * ones kept apart for reload (as the store keeps them in tx_cuts). */
typedef struct sink {
    ls_txcut_row rows[MAX_ROWS];
    size_t n;
    ls_txcut_row kept[MAX_ROWS];
    size_t nkept;
    int reloads;
} sink;

static int emit(void *ctx, const ls_txcut_row *row)
{
    sink *k = ctx;
    if (!row->closed) {
        if (k->nkept == MAX_ROWS)
            return -1;
        k->kept[k->nkept++] = *row;
        return 0;
    }
    if (k->n == MAX_ROWS)
        return -1;
    k->rows[k->n++] = *row;
    return 0;
}

static int reload(void *ctx, int64_t session, ls_txcut_row *out, int *found)
{
    sink *k = ctx;
    size_t i;
    *found = 0;
    k->reloads++;
    for (i = 0; i < k->nkept; i++)
        if (k->kept[i].session_id == session) {
            *out = k->kept[i];
            k->kept[i] = k->kept[--k->nkept];
            *found = 1;
            return 0;
        }
    return 0;
}

/* Feed one statement: `dur_us` below 0 for a log_statement line (no
 * duration). Its text_id is its stmt_id's, for the shape. */
static void feed(ls_txcut *c, int64_t session, int64_t stmt, int64_t start, int64_t dur_us,
                 const char *text, int64_t xid, const char *vxid)
{
    ls_txcut_stmt st;
    memset(&st, 0, sizeof(st));
    st.stmt_id = stmt;
    st.session_id = session;
    st.pid = 1000 + session;
    st.start_ts = start;
    st.has_dur = dur_us >= 0;
    st.dur_us = dur_us >= 0 ? dur_us : 0;
    st.kind = (int)ls_sql_kind_of(text);
    st.text_id = stmt;
    st.pos = 5000 + stmt; /* its line's place in the log */
    st.xid = xid;
    st.vxid = vxid;
    CHECK_INT(ls_txcut_feed(c, &st), 0);
}

static void test_autocommit(void)
{
    sink *k = calloc(1, sizeof(*k));
    ls_txcut *c = ls_txcut_new(emit, reload, k);
    feed(c, 1, 10, 1000000, 2500, "SELECT abalance FROM pgbench_accounts WHERE aid = 7", 0,
         "3/12");
    feed(c, 1, 11, 1010000, -1, "UPDATE pgbench_branches SET bbalance = 1 WHERE bid = 1",
         741, "3/13");
    CHECK_INT(k->n, 2);
    CHECK_INT(k->rows[0].closed, 1);
    CHECK_INT(k->rows[0].explicit_tx, 0);
    CHECK_INT(k->rows[0].end, LS_TXCUT_END_STATEMENT);
    CHECK_STR(ls_txcut_end_name(k->rows[0].end), "statement");
    CHECK_INT(k->rows[0].start_ts, 1000000);
    CHECK_INT(k->rows[0].end_ts, 1002500);
    CHECK_INT(k->rows[0].durations, 1);
    CHECK(k->rows[0].sql_ms == 2.5);
    CHECK_STR(k->rows[0].vxid, "3/12");
    CHECK_INT(k->rows[1].end, LS_TXCUT_END_STATEMENT_START); /* log_statement: no end */
    CHECK_INT(k->rows[1].end_ts, 1010000);
    CHECK_INT(k->rows[1].durations, 0);
    CHECK_INT(k->rows[1].xid, 741);
    CHECK_INT(k->rows[1].first_stmt, 11);
    CHECK_INT(k->rows[1].first_pos, 5011);
    CHECK_INT(k->rows[1].last_stmt, 11);
    ls_txcut_free(c);
    free(k);
}

static void test_explicit(void)
{
    sink *k = calloc(1, sizeof(*k));
    ls_txcut *c = ls_txcut_new(emit, reload, k);
    feed(c, 2, 20, 1000, 10, "BEGIN", 0, "4/7");
    feed(c, 2, 21, 2000, 1500, "UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 3",
         900, "4/7");
    /* a savepoint and its rollback do not cut */
    feed(c, 2, 22, 4000, 20, "SAVEPOINT s1", 0, "4/7");
    feed(c, 2, 23, 5000, 20, "ROLLBACK TO SAVEPOINT s1", 0, "4/7");
    /* BEGIN inside a transaction: PostgreSQL warns, nothing ends */
    feed(c, 2, 24, 6000, 5, "begin", 0, "4/7");
    CHECK_INT(k->n, 0);
    feed(c, 2, 25, 9000, 700, "COMMIT", 0, "4/0");
    CHECK_INT(k->n, 1);
    CHECK_INT(k->rows[0].explicit_tx, 1);
    CHECK_INT(k->rows[0].closed, 1);
    CHECK_INT(k->rows[0].end, LS_TXCUT_END_COMMIT);
    CHECK_INT(k->rows[0].first_stmt, 20);
    CHECK_INT(k->rows[0].first_pos, 5020); /* the BEGIN's line (schema 19) */
    CHECK_INT(k->rows[0].last_stmt, 25);
    CHECK_INT(k->rows[0].statements, 6);
    CHECK_INT(k->rows[0].xid, 900);
    CHECK_STR(k->rows[0].vxid, "4/7");
    CHECK_INT(k->rows[0].start_ts, 1000);
    CHECK_INT(k->rows[0].end_ts, 9700);
    CHECK_INT(k->rows[0].pid, 1002);
    /* statements' time: 10 + 1500 + 20 + 20 + 5 us; the COMMIT's apart */
    CHECK(k->rows[0].sql_ms == 0.01 + 1.5 + 0.02 + 0.02 + 0.005);
    CHECK(k->rows[0].commit_ms == 0.7);
    /* idle: 990 + 500 + 980 + 980 + 2995 us between them, the largest 2.995 ms */
    CHECK(k->rows[0].idle_ms == 0.99 + 0.5 + 0.98 + 0.98 + 2.995);
    CHECK(k->rows[0].max_idle_ms == 2.995);
    ls_txcut_free(c);
    free(k);
}

static void test_rollback_and_stray_end(void)
{
    sink *k = calloc(1, sizeof(*k));
    ls_txcut *c = ls_txcut_new(emit, reload, k);
    /* ROLLBACK and ABORT close; PREPARE TRANSACTION does not */
    feed(c, 3, 30, 100, -1, "START TRANSACTION ISOLATION LEVEL SERIALIZABLE", 0, NULL);
    feed(c, 3, 31, 200, -1, "PREPARE TRANSACTION 'p1'", 0, NULL);
    feed(c, 3, 32, 300, -1, "ROLLBACK", 0, NULL);
    feed(c, 3, 33, 400, -1, "BEGIN", 0, NULL);
    feed(c, 3, 34, 500, -1, "ABORT", 0, NULL);
    /* a COMMIT or END whose BEGIN was not logged: a transaction of its own */
    feed(c, 3, 35, 600, 30, "END", 0, NULL);
    feed(c, 3, 36, 700, 30, "COMMIT PREPARED 'p1'", 0, NULL);
    CHECK_INT(k->n, 4);
    CHECK_INT(k->rows[0].end, LS_TXCUT_END_ROLLBACK_START);
    CHECK_INT(k->rows[0].statements, 3);
    CHECK_INT(k->rows[0].durations, 0);
    CHECK_INT(k->rows[1].end, LS_TXCUT_END_ROLLBACK_START);
    CHECK_INT(k->rows[1].first_stmt, 33);
    CHECK_INT(k->rows[2].explicit_tx, 0);
    CHECK_INT(k->rows[2].end, LS_TXCUT_END_COMMIT);
    CHECK(k->rows[2].commit_ms == 0.03);
    CHECK(k->rows[2].sql_ms == 0.0);
    CHECK_INT(k->rows[3].end, LS_TXCUT_END_COMMIT);
    CHECK_INT(k->rows[3].first_stmt, 36);
    ls_txcut_free(c);
    free(k);
}

/* Sessions interleave; each is cut on its own. Statements of one
 * session with equal text sequences have equal shapes. */
static void test_sessions_and_shape(void)
{
    sink *k = calloc(1, sizeof(*k));
    ls_txcut *c = ls_txcut_new(emit, reload, k);
    ls_txcut_stmt st;
    feed(c, 5, 1, 10, 1, "BEGIN", 0, NULL);
    feed(c, 6, 2, 11, 1, "BEGIN", 0, NULL);
    feed(c, 5, 3, 12, 1, "UPDATE t SET v = 1 WHERE id = 1", 0, NULL);
    feed(c, 6, 4, 13, 1, "COMMIT", 0, NULL);
    feed(c, 5, 5, 14, 1, "COMMIT", 0, NULL);
    CHECK_INT(k->n, 2);
    CHECK_INT(k->rows[0].session_id, 6);
    CHECK_INT(k->rows[0].statements, 2);
    CHECK_INT(k->rows[1].session_id, 5);
    CHECK_INT(k->rows[1].statements, 3);
    CHECK(k->rows[0].shape ==
          ls_txcut_shape_add(ls_txcut_shape_add(0, 2), 4));
    CHECK(k->rows[0].shape != ls_txcut_shape_add(ls_txcut_shape_add(0, 4), 2));
    /* not a session's: not cut */
    memset(&st, 0, sizeof(st));
    st.stmt_id = 9;
    CHECK_INT(ls_txcut_feed(c, &st), 0);
    CHECK_INT(k->n, 2);
    ls_txcut_free(c);
    free(k);
}

/* A transaction open when the ingest ends is handed over unfinished and
 * taken back by the next ingest (a session across rotated files). */
static void test_across_runs(void)
{
    sink *k = calloc(1, sizeof(*k));
    ls_txcut *c = ls_txcut_new(emit, reload, k);
    feed(c, 7, 70, 1000, 100, "BEGIN", 0, "5/9");
    feed(c, 7, 71, 2000, 100, "UPDATE t SET v = 2 WHERE id = 2", 77, "5/9");
    feed(c, 8, 72, 2500, 100, "SELECT 1", 0, NULL);
    CHECK_INT(ls_txcut_flush(c), 0);
    CHECK_INT(k->n, 1);
    CHECK_INT(k->nkept, 1);
    CHECK_INT(k->kept[0].closed, 0);
    CHECK_INT(k->kept[0].end, LS_TXCUT_END_NONE);
    CHECK(ls_txcut_end_name(k->kept[0].end) == NULL);
    CHECK_INT(k->kept[0].explicit_tx, 1);
    CHECK_INT(k->kept[0].last_stmt, 71);
    ls_txcut_free(c);

    /* the next run: told of the unfinished one by the store */
    c = ls_txcut_new(emit, reload, k);
    ls_txcut_spilled(c, 7);
    k->reloads = 0;
    feed(c, 8, 80, 2600, 100, "SELECT 1", 0, NULL); /* no unfinished one: no probe */
    CHECK_INT(k->reloads, 0);
    feed(c, 7, 81, 3000, 100, "COMMIT", 0, "5/0");
    CHECK_INT(k->reloads, 1);
    CHECK_INT(k->nkept, 0);
    CHECK_INT(k->n, 3);
    CHECK_INT(k->rows[2].first_stmt, 70);
    CHECK_INT(k->rows[2].last_stmt, 81);
    CHECK_INT(k->rows[2].statements, 3);
    CHECK_INT(k->rows[2].xid, 77);
    CHECK_STR(k->rows[2].vxid, "5/9");
    CHECK_INT(k->rows[2].end, LS_TXCUT_END_COMMIT);
    CHECK(k->rows[2].idle_ms == 0.9 + 0.9);
    /* its session's next statements are its own again: no probe */
    feed(c, 7, 82, 4000, 100, "BEGIN", 0, NULL);
    feed(c, 7, 83, 4200, 100, "COMMIT", 0, NULL);
    CHECK_INT(k->reloads, 1);
    CHECK_INT(k->n, 4);
    CHECK_INT(k->rows[3].first_stmt, 82);
    ls_txcut_free(c);
    free(k);
}

/* More sessions in a transaction than the cutter holds: the longest idle
 * are handed over and taken back, and every transaction comes out whole. */
static void test_bounded(void)
{
    enum { SESSIONS = LS_TXCUT_OPEN_MAX + 200 };
    sink *k = calloc(1, sizeof(*k));
    ls_txcut *c = ls_txcut_new(emit, reload, k);
    int64_t sess, stmt = 1;
    size_t i;
    int whole = 1;
    for (sess = 1; sess <= SESSIONS; sess++)
        feed(c, sess, stmt, stmt, 1, "BEGIN", 0, NULL), stmt++;
    CHECK_INT(k->nkept, 200); /* the first 200 went */
    for (sess = 1; sess <= SESSIONS; sess++)
        feed(c, sess, stmt, stmt, 1, "UPDATE t SET v = 1 WHERE id = 1", sess, NULL), stmt++;
    for (sess = 1; sess <= SESSIONS; sess++)
        feed(c, sess, stmt, stmt, 1, "COMMIT", 0, NULL), stmt++;
    CHECK_INT(k->n, SESSIONS);
    CHECK_INT(k->nkept, 0);
    for (i = 0; i < k->n; i++)
        whole &= k->rows[i].statements == 3 && k->rows[i].xid == k->rows[i].session_id &&
                 k->rows[i].first_stmt == k->rows[i].session_id &&
                 k->rows[i].explicit_tx == 1;
    CHECK(whole);
    ls_txcut_free(c);
    free(k);
}

int main(void)
{
    test_autocommit();
    test_explicit();
    test_rollback_and_stray_end();
    test_sessions_and_shape();
    test_across_runs();
    test_bounded();
    return TEST_REPORT();
}
