/*
 * test_decide_waitrange.c — decide/waitrange.c: how long a wait lasted
 * when the log's times are whole seconds. Figures from samples/correlation
 * cut to %t (the %m log with its milliseconds removed): pid 8392's tuple
 * wait "still waiting ... after 1000.1 ms" stamped 12:33:23 and "acquired
 * ... after 1420.126 ms" stamped 12:33:24 (exact); pid 8766's wait "still
 * waiting ... after 100.138 ms" and its lock timeout, both stamped
 * 12:33:31 (the error has no "after": bounded by the stamps); the hidden
 * parts of its waits rebuilt from stamps, deadlock_timeout 100 ms.
 */
#include <sqlite3.h>
#include <stdio.h>

#include "decide/waitrange.h"
#include "ls_test.h"

#define S 1000000 /* one second in µs */
#define MS 1000

/* A closing "acquired ... after N ms": N, whatever the stamps say. */
static void test_exact(void)
{
    ls_wait_range r;
    ls_logged_wait_range(1, 1420126, 22 * S + 899853, 24 * S, 100 * MS, S, &r);
    CHECK_INT(r.lo, 1420126);
    CHECK_INT(r.hi, 1420126);
}

/* Ended by an error in the second of its "still waiting" line: at least
 * that line's "after", at most the stamps' difference plus a second. */
static void test_error_same_second(void)
{
    ls_wait_range r;
    /* start = 31 s - 100.138 ms, end = the error's stamp 31 s */
    ls_logged_wait_range(0, 100138, 31 * S - 100138, 31 * S, 100138, S, &r);
    CHECK_INT(r.lo, 100138);
    CHECK_INT(r.hi, 100138 + S);
}

/* Ended by an error seconds later: the stamps' difference less a second
 * to it plus a second (the "after" below both). */
static void test_error_later(void)
{
    ls_wait_range r;
    ls_logged_wait_range(0, 3100 * MS, 10 * S - 100 * MS, 13 * S, 100 * MS, S, &r);
    CHECK_INT(r.lo, 2100 * MS);
    CHECK_INT(r.hi, 4100 * MS);
    /* an "after" above the stamps' difference: it is the figure, and the
     * least */
    ls_logged_wait_range(0, 2500 * MS, 10 * S, 12 * S, 2500 * MS, S, &r);
    CHECK_INT(r.lo, 2500 * MS);
    CHECK_INT(r.hi, 3000 * MS);
}

/* Millisecond stamps (res 0): the figure itself, exact or not. */
static void test_milliseconds(void)
{
    ls_wait_range r;
    ls_logged_wait_range(0, 300 * MS, 0, 300 * MS, 100 * MS, 0, &r);
    CHECK_INT(r.lo, 300 * MS);
    CHECK_INT(r.hi, 300 * MS);
    ls_hidden_wait_range(321 * MS, 0, 100 * MS, &r);
    CHECK_INT(r.lo, 321 * MS);
    CHECK_INT(r.hi, 321 * MS);
}

/* A rebuilt part: a second either way, never below 0; no more than
 * deadlock_timeout above the estimate when that is under a second. */
static void test_hidden(void)
{
    ls_wait_range r;
    ls_hidden_wait_range(321 * MS, S, 100 * MS, &r);
    CHECK_INT(r.lo, 0);
    CHECK_INT(r.hi, 421 * MS);
    ls_hidden_wait_range(2500 * MS, S, 0, &r);
    CHECK_INT(r.lo, 1500 * MS);
    CHECK_INT(r.hi, 3500 * MS);
    /* deadlock_timeout above a second: the second bounds it */
    ls_hidden_wait_range(0, S, 5 * S, &r);
    CHECK_INT(r.lo, 0);
    CHECK_INT(r.hi, S);
    /* a negative estimate is none */
    ls_hidden_wait_range(-5, S, 100 * MS, &r);
    CHECK_INT(r.lo, 0);
    CHECK_INT(r.hi, 100 * MS);
}

/* The least waiting caused a path without a logged wait is listed for:
 * the millisecond tick, or on whole seconds any (its range says the
 * rest). */
static void test_listed_min(void)
{
    CHECK(ls_caused_listed_min_ms(MS) == 1.0);
    CHECK(ls_caused_listed_min_ms(0) == 1.0);
    CHECK(ls_caused_listed_min_ms(S) == 0.0);
    /* samples/trigger-paths: ledger-import's 0.611 ms is below it */
    CHECK(0.611 < ls_caused_listed_min_ms(MS));
}

/* The blocking ranking's test of a path without a logged wait, in SQL
 * (ls_caused_listed_sql, summary.c's ranking query) and in C, at the
 * floor and beside it: a path at exactly 1.000 ms is listed on a
 * millisecond log (mutation m11-22, ">=" turned ">", left it out and no
 * sample has such a path), 0 never is, on whole seconds any waiting is. */
static void test_listed_sql(void)
{
    static const double v[] = {0.0, 0.611, 0.999, 1.0, 1.001, 2.5};
    static const int64_t res[] = {MS, 0, S};
    sqlite3 *db = NULL;
    size_t i, j;
    CHECK(ls_caused_listed(1.0, MS));
    CHECK(!ls_caused_listed(0.999, MS));
    CHECK(!ls_caused_listed(0.0, S));
    CHECK(ls_caused_listed(0.1, S));
    CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
    for (i = 0; i < sizeof(res) / sizeof(res[0]); i++)
        for (j = 0; j < sizeof(v) / sizeof(v[0]); j++) {
            char cond[256], sql[400];
            sqlite3_stmt *q = NULL;
            CHECK(ls_caused_listed_sql(cond, sizeof(cond), "c.ms", res[i]) < (int)sizeof(cond));
            snprintf(sql, sizeof(sql),
                     "SELECT CASE WHEN %s THEN 1 ELSE 0 END"
                     " FROM (SELECT ?1 AS ms) c",
                     cond);
            CHECK(sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK);
            sqlite3_bind_double(q, 1, v[j]);
            CHECK(sqlite3_step(q) == SQLITE_ROW);
            CHECK_INT(sqlite3_column_int(q, 0), ls_caused_listed(v[j], res[i]));
            sqlite3_finalize(q);
        }
    sqlite3_close(db);
}

int main(void)
{
    test_exact();
    test_error_same_second();
    test_error_later();
    test_milliseconds();
    test_hidden();
    test_listed_min();
    test_listed_sql();
    return TEST_REPORT();
}
