/*
 * test_idle_waited.c — idle_sql.h's LS_IDLE_WAITED_FILL_SQL (issue 34's
 * lower bound of a hold's idle from the waits on its transaction) over a
 * small store built here: the tables are the columns the query reads.
 *
 * The bound is what a wait had waited at a line logged before the line of
 * the holder's last statement (its COMMIT). A wait that acquired after
 * that line is no proof of idle for its whole waited_ms: only its "still
 * waiting ... after" logged before the COMMIT counts (issue 33, mutation
 * m12-26 of docs/mutations.md: `AND` turned `OR` in the acquired branch
 * took the whole 5000 ms of such a wait; no sample's figure moved enough
 * for a fact check to see it).
 */
#include <sqlite3.h>
#include <stdio.h>

#include "idle_sql.h"
#include "ls_test.h"

/* Holder transaction 1's last statement (its COMMIT) is line 100 of file
 * 1; transaction 2's, line 300. Times in µs. */
static const char schema_sql[] =
    "CREATE TABLE wait_links(wait_id INTEGER PRIMARY KEY, holder_tx INTEGER);"
    "CREATE TABLE wait_rows(wait_id INTEGER PRIMARY KEY, row_id INTEGER);"
    "CREATE TABLE lock_wait_rows(wait_id INTEGER PRIMARY KEY, target_kind TEXT, outcome TEXT,"
    " file_id INTEGER, line INTEGER, end_file INTEGER, end_line INTEGER, start_ts INTEGER,"
    " logged_ts INTEGER, waited_ms REAL);"
    "CREATE TABLE transactions(tx_id INTEGER PRIMARY KEY, last_stmt INTEGER);"
    "CREATE TABLE stmt_rows(stmt_id INTEGER PRIMARY KEY, file_id INTEGER, line INTEGER);"
    "CREATE TEMP TABLE idle_waited(holder_tx INTEGER, row_id INTEGER, ms REAL,"
    " PRIMARY KEY (holder_tx, row_id)) WITHOUT ROWID;"
    "INSERT INTO stmt_rows VALUES (10, 1, 100), (20, 1, 300);"
    "INSERT INTO transactions VALUES (1, 10), (2, 20);"
    /* wait 1 on tx 1's row 7: "still waiting after 1000.0 ms" at line 50,
     * acquired at line 120 (after the COMMIT) having waited 5000 ms */
    "INSERT INTO lock_wait_rows VALUES (1, 'transaction', 'acquired', 1, 50, 1, 120,"
    " 0, 1000000, 5000.0);"
    /* wait 2 on tx 2's row 8: still waiting at line 200, acquired at line
     * 250 (before tx 2's COMMIT at 300) having waited 3000 ms */
    "INSERT INTO lock_wait_rows VALUES (2, 'transaction', 'acquired', 1, 200, 1, 250,"
    " 0, 1000000, 3000.0);"
    "INSERT INTO wait_links VALUES (1, 1), (2, 2);"
    "INSERT INTO wait_rows VALUES (1, 7), (2, 8);";

/* temp.idle_waited's ms for (tx, row), -1 when none. */
static double waited(sqlite3 *db, int tx, int row)
{
    sqlite3_stmt *q = NULL;
    double ms = -1;

    if (sqlite3_prepare_v2(db,
                           "SELECT ms FROM temp.idle_waited WHERE holder_tx = ?1 AND row_id = ?2",
                           -1, &q, NULL) != SQLITE_OK)
        return -2;
    sqlite3_bind_int(q, 1, tx);
    sqlite3_bind_int(q, 2, row);
    if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL)
        ms = sqlite3_column_double(q, 0);
    sqlite3_finalize(q);
    return ms;
}

static void test_acquired_after_commit(void)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;

    CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, schema_sql, NULL, NULL, NULL) == SQLITE_OK);
    CHECK(sqlite3_prepare_v2(db, LS_IDLE_WAITED_FILL_SQL, -1, &q, NULL) == SQLITE_OK);
    if (!q) {
        fprintf(stderr, "prepare: %s\n", sqlite3_errmsg(db));
        sqlite3_close(db);
        return;
    }
    CHECK_INT(sqlite3_bind_int(q, sqlite3_bind_parameter_index(q, ":whole"), 1), SQLITE_OK);
    CHECK_INT(sqlite3_step(q), SQLITE_DONE);
    sqlite3_finalize(q);
    /* acquired after the holder's COMMIT: only the 1000 ms logged before it */
    CHECK_INT((long long)waited(db, 1, 7), 1000);
    /* acquired before the holder's COMMIT: its whole 3000 ms */
    CHECK_INT((long long)waited(db, 2, 8), 3000);
    sqlite3_close(db);
}

int main(void)
{
    test_acquired_after_commit();
    return TEST_REPORT();
}
