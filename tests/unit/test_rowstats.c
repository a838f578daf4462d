/*
 * test_rowstats.c — the logical rows pass's totals of each row's waits
 * (rowstats_sql.h, holds.c): what row_keys says of each row, from its
 * waits as the lock_waits view gives them, and that the waits are read
 * by row from wait_rows' index, not grouped by a sort of every wait
 * through the view (issue 38: 92 SQLite VM steps a wait at 1 GiB).
 *
 * A store of the real schema: row 1 has three waits (two on one ctid, a
 * chain's depth from wait_chains and one from wait_links' root), row 2
 * one without a ctid, row 3 none (a deadlock's row).
 */
#include <stdio.h>
#include <string.h>

#include "ls_store.h"
#include "ls_test.h"
#include "rowstats_sql.h"

static const char fill_sql[] =
    "INSERT INTO row_keys(row_id, relation, row_key) VALUES (1, 'accounts', 'aid=1'),"
    " (2, 'accounts', 'aid=2'), (3, 'branches', 'bid=1');"
    "INSERT INTO lock_wait_rows(wait_id, start_ts, logged_ts, end_ts, waited_ms, ctid) VALUES"
    " (1, 100, 150, 200, 1.5, '(0,2)'), (2, 120, 170, 300, 2.0, '(0,10)'),"
    " (3, 90, 400, NULL, 0.25, '(0,2)'), (4, 500, 550, 600, 7.0, NULL),"
    " (5, 700, 750, 800, 9.0, '(0,9)');" /* wait 5: keyed to no row */
    "INSERT INTO wait_rows(wait_id, row_id) VALUES (1, 1), (2, 1), (3, 1), (4, 2), (5, NULL);"
    "INSERT INTO wait_chains(wait_id, chain_depth) VALUES (1, 1), (2, 1), (3, 2), (4, 1);"
    "INSERT INTO wait_links(wait_id, root_pid, chain_depth) VALUES (2, 42, 3);"
    "CREATE INDEX IF NOT EXISTS lock_waits_row ON wait_rows(row_id);";

/* Row r's totals as "waits total max chain first last ctids". */
static void row_of(ls_store *s, int r, char *out, size_t n)
{
    ls_stmt *q = NULL;
    char sql[256];

    snprintf(out, n, "?");
    snprintf(sql, sizeof(sql),
             "SELECT printf('%%s %%s %%s %%s %%s %%s %%s', waits, total_wait_ms, max_wait_ms,"
             " longest_chain, first_ts, last_ts, ctids) FROM row_keys WHERE row_id = %d",
             r);
    if (ls_store_prepare(s, sql, &q) == 0 && ls_stmt_step(q) == 1)
        snprintf(out, n, "%s", ls_stmt_text(q, 0));
    ls_stmt_finalize(q);
}

static void test_totals(ls_store *s)
{
    char got[256];

    CHECK(ls_store_exec(s, fill_sql) == 0);
    CHECK(ls_store_exec(s, LS_ROW_STATS_SQL LS_ROW_CTIDS_SQL LS_ROW_NO_WAITS_SQL) == 0);
    row_of(s, 1, got, sizeof(got));
    CHECK_STR(got, "3 3.75 2.0 3 90 400 (0,10) (0,2)");
    row_of(s, 2, got, sizeof(got));
    CHECK_STR(got, "1 7.0 7.0 1 500 600 ");
    row_of(s, 3, got, sizeof(got));
    CHECK_STR(got, "0      ");
}

/* The totals walk wait_rows' row index: no sort of every wait. */
static void test_plan(ls_store *s)
{
    ls_stmt *q = NULL;
    int sorts = 0, index = 0;

    CHECK(ls_store_prepare(s, "EXPLAIN QUERY PLAN " LS_ROW_STATS_SQL, &q) == 0);
    while (q && ls_stmt_step(q) == 1) {
        const char *d = ls_stmt_text(q, 3);
        sorts += strstr(d, "TEMP B-TREE FOR GROUP BY") != NULL;
        index += strstr(d, "INDEX lock_waits_row") != NULL;
    }
    ls_stmt_finalize(q);
    CHECK_INT(sorts, 0);
    CHECK_INT(index, 1);
}

int main(void)
{
    char err[256];
    ls_store *s = NULL;

    if (ls_store_open(&s, "", err, sizeof(err)) != 0) {
        fprintf(stderr, "store: %s\n", err);
        return 1;
    }
    test_totals(s);
    test_plan(s);
    ls_store_close(s);
    return TEST_REPORT();
}
