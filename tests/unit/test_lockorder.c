/*
 * test_lockorder.c — lockorder.h's lock_cycles over a store of N
 * deadlocks between two processes (one victim pid, one survivor pid, as
 * a pgbench client pair of a long run): the pair it names, and the cost
 * of reading it, which must grow linearly with the deadlocks (issue 38:
 * a lookup per deadlock that read every edge, every wait of the victim's
 * process or every hold of a hot row made the findings pass quadratic,
 * 230 M VM steps on a 1 GiB pgbench log).
 *
 * The tables are the columns the query reads, with the store's keys and
 * indexes (lock_waits_pid, deadlock_edges_waiter, hold_final_tx,
 * hold_final_row), filled by
 * the test: each deadlock's victim locked row 1 then waited for row 2
 * (held by the survivor), the survivor then took row 1.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

#include "lockorder.h"
#include "ls_test.h"

/* Deadlocks of the small store; the large one has LARGE_FACTOR times as
 * many. Linear cost: the large store's steps at most MAX_STEP_RATIO
 * times the small one's (a quadratic read is LARGE_FACTOR squared). */
#define SMALL_DEADLOCKS 100
#define LARGE_FACTOR 4
#define MAX_STEP_RATIO 6
#define VICTIM_PID 100
#define SURVIVOR_PID 200
/* Log lines and statement ids of one deadlock: k * LINES_PER_DEADLOCK
 * plus the offsets below (the victim's lock of row 1, its wait, the
 * DETAIL, the survivor's locks). */
#define LINES_PER_DEADLOCK 10
#define AT_VICTIM_LOCK 0
#define AT_SURVIVOR_LOCK 2
#define AT_WAIT 3
#define AT_DEADLOCK 4
#define AT_VICTIM_WAIT_STMT 5
#define AT_SURVIVOR_TAKES_A 7
#define TS_PER_DEADLOCK 1000

static const char schema_sql[] =
    "CREATE TABLE deadlocks(deadlock_id INTEGER PRIMARY KEY, file_id INTEGER, line INTEGER,"
    " ts INTEGER, victim_pid INTEGER);"
    "CREATE TABLE deadlock_edges(deadlock_id INTEGER, seq INTEGER, waiter_pid INTEGER,"
    " blocker_pid INTEGER);"
    "CREATE INDEX deadlock_edges_waiter ON deadlock_edges(deadlock_id, waiter_pid);"
    "CREATE TABLE lock_wait_rows(wait_id INTEGER PRIMARY KEY, pid INTEGER, start_ts INTEGER,"
    " outcome TEXT, file_id INTEGER, line INTEGER, end_ts INTEGER, logged_ts INTEGER);"
    "CREATE TABLE wait_links(wait_id INTEGER PRIMARY KEY, waiter_tx INTEGER);"
    "CREATE INDEX wait_links_waiter_tx ON wait_links(waiter_tx);"
    "CREATE TABLE wait_rows(wait_id INTEGER PRIMARY KEY, row_id INTEGER);"
    "CREATE INDEX lock_waits_pid ON lock_wait_rows(pid, start_ts);"
    "CREATE TABLE lock_waits(wait_id INTEGER PRIMARY KEY, waiter_tx INTEGER, holder_tx INTEGER,"
    " holder_pid INTEGER, row_id INTEGER, waiter_stmt INTEGER);"
    "CREATE TABLE holds(hold_id INTEGER PRIMARY KEY, tx_id INTEGER, row_id INTEGER,"
    " start_ts INTEGER, waits INTEGER, lock_stmt INTEGER);"
    "CREATE INDEX hold_final_row ON holds(row_id, start_ts, tx_id);"
    "CREATE INDEX hold_final_tx ON holds(tx_id, waits);"
    "CREATE TABLE tx_code(tx_id INTEGER PRIMARY KEY, label TEXT);"
    "CREATE TEMP TABLE dl_procs(deadlock_id INTEGER, pid INTEGER, row_id INTEGER,"
    " tx_id INTEGER, span_tx INTEGER, PRIMARY KEY(deadlock_id, pid));"
    LS_DL_SELF_DDL
    "CREATE TABLE row_keys(row_id INTEGER PRIMARY KEY, relation TEXT, row_key TEXT);"
    "INSERT INTO row_keys VALUES (1, 'accounts', 'aid=1'), (2, 'accounts', 'aid=2'),"
    " (3, 'accounts', 'aid=3'), (4, 'branches', 'bid=1');";

/* Deadlock k (1..n): victim tx 2k, survivor tx 2k+1, one edge each way. */
static const char fill_sql[] =
    "WITH RECURSIVE k(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM k WHERE k < ?1)"
    " SELECT k FROM k";

/* What a store has of each deadlock: the holds of both sides (the log
 * has their statements), the DETAIL's rows and transactions (dlprocs.c). */
#define WITH_HOLDS 1
#define WITH_DETAIL 2
#define HOLDS_INSERT 4  /* inserts[]: the holds */
#define DETAIL_INSERT 6 /* inserts[]: dl_procs */

static int exec_per_deadlock(sqlite3 *db, int n, int with)
{
    static const char *const inserts[] = {
        "INSERT INTO deadlocks VALUES (?1, 1, ?1 * ?2 + ?3, ?1 * ?4, ?5)",
        "INSERT INTO deadlock_edges VALUES (?1, 1, ?5, ?6), (?1, 2, ?6, ?5)",
        "INSERT INTO lock_wait_rows(wait_id, pid, start_ts, outcome, file_id, line)"
        " VALUES (?1, ?5, ?1 * ?4, 'deadlock', 1, ?1 * ?2 + ?7)",
        "INSERT INTO lock_waits VALUES (?1, 2 * ?1, 2 * ?1 + 1, ?6, 2, ?1 * ?2 + ?8)",
        "INSERT INTO holds(tx_id, row_id, start_ts, waits, lock_stmt) VALUES"
        " (2 * ?1, 1, ?1, 0, ?1 * ?2 + ?9), (2 * ?1 + 1, 2, ?1, 0, ?1 * ?2 + ?10),"
        " (2 * ?1 + 1, 1, ?1, 0, ?1 * ?2 + ?11)",
        "INSERT INTO tx_code VALUES (2 * ?1, 'transfer'), (2 * ?1 + 1, 'transfer')",
        /* each side's DETAIL row and the transaction running its statement */
        "INSERT INTO dl_procs VALUES (?1, ?6, 1, 2 * ?1 + 1, NULL),"
        " (?1, ?5, 2, 2 * ?1, NULL)",
    };
    for (size_t i = 0; i < sizeof(inserts) / sizeof(inserts[0]); i++) {
        if ((i == HOLDS_INSERT && !(with & WITH_HOLDS)) ||
            (i == DETAIL_INSERT && !(with & WITH_DETAIL)))
            continue;
        sqlite3_stmt *ks = NULL, *ins = NULL;
        int rc;

        if (sqlite3_prepare_v2(db, fill_sql, -1, &ks, NULL) != SQLITE_OK ||
            sqlite3_prepare_v2(db, inserts[i], -1, &ins, NULL) != SQLITE_OK) {
            fprintf(stderr, "prepare: %s\n", sqlite3_errmsg(db));
            sqlite3_finalize(ks);
            return -1;
        }
        sqlite3_bind_int(ks, 1, n);
        while ((rc = sqlite3_step(ks)) == SQLITE_ROW) {
            sqlite3_bind_int(ins, 1, sqlite3_column_int(ks, 0));
            sqlite3_bind_int(ins, 2, LINES_PER_DEADLOCK);
            sqlite3_bind_int(ins, 3, AT_DEADLOCK);
            sqlite3_bind_int(ins, 4, TS_PER_DEADLOCK);
            sqlite3_bind_int(ins, 5, VICTIM_PID);
            sqlite3_bind_int(ins, 6, SURVIVOR_PID);
            sqlite3_bind_int(ins, 7, AT_WAIT);
            sqlite3_bind_int(ins, 8, AT_VICTIM_WAIT_STMT);
            sqlite3_bind_int(ins, 9, AT_VICTIM_LOCK);
            sqlite3_bind_int(ins, 10, AT_SURVIVOR_LOCK);
            sqlite3_bind_int(ins, 11, AT_SURVIVOR_TAKES_A);
            if (sqlite3_step(ins) != SQLITE_DONE) {
                rc = SQLITE_ERROR;
                break;
            }
            sqlite3_reset(ins);
        }
        sqlite3_finalize(ks);
        sqlite3_finalize(ins);
        if (rc != SQLITE_DONE) {
            fprintf(stderr, "fill: %s\n", sqlite3_errmsg(db));
            return -1;
        }
    }
    return 0;
}

/* Runs lock_cycles over a fresh store of n deadlocks; checks its one
 * row and returns the VM steps the query took (-1 on error). */
/* The lock_cycles query (lockorder.h's two literals joined), its label
 * c.label: sqlite3_free it. */
static char *cycles_query(void)
{
    static const char head[] = LS_LOCK_CYCLES_HEAD("1");
    static const char tail[] = LS_LOCK_CYCLES_TAIL;
    char *t = sqlite3_mprintf(tail, "c.label", "c.label"); /* lc_l's and lc_e's */
    char *sql = t ? sqlite3_mprintf("WITH %s,%s SELECT label, r1, r2, other, row1, row2,"
                                    " deadlocks, first_ts, longer, detail FROM lock_cycles",
                                    head, t)
                  : NULL;
    sqlite3_free(t);
    return sql;
}

static long lock_cycles_steps(int n, int with)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    char *sql = NULL;
    long steps = -1;

    if (sqlite3_open(":memory:", &db) != SQLITE_OK ||
        sqlite3_exec(db, schema_sql, NULL, NULL, NULL) != SQLITE_OK || exec_per_deadlock(db, n, with) ||
        sqlite3_exec(db, "ANALYZE", NULL, NULL, NULL) != SQLITE_OK)
        goto done;
    /* the victims' waits, as dlprocs.c makes them before the query */
    if (sqlite3_exec(db, LS_LOCK_CYCLES_VICTIMS_SQL, NULL, NULL, NULL) != SQLITE_OK)
        goto done;
    sql = cycles_query();
    if (!sql || sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
        fprintf(stderr, "prepare: %s\n", sqlite3_errmsg(db));
        goto done;
    }
    if (!(with & (WITH_HOLDS | WITH_DETAIL))) {
        CHECK_INT(sqlite3_step(q), SQLITE_DONE);
        steps = 0;
        goto done;
    }
    CHECK_INT(sqlite3_step(q), SQLITE_ROW);
    CHECK_STR((const char *)sqlite3_column_text(q, 0), "transfer");
    CHECK_STR((const char *)sqlite3_column_text(q, 4), "accounts aid=1");
    CHECK_STR((const char *)sqlite3_column_text(q, 5), "accounts aid=2");
    CHECK_INT(sqlite3_column_int(q, 6), n);
    CHECK_INT(sqlite3_column_int64(q, 7), TS_PER_DEADLOCK);
    CHECK_INT(sqlite3_step(q), SQLITE_DONE);
    steps = sqlite3_stmt_status(q, SQLITE_STMTSTATUS_VM_STEP, 0);
done:
    sqlite3_finalize(q);
    sqlite3_free(sql);
    sqlite3_close(db);
    return steps;
}

static void test_linear(void)
{
    long small = lock_cycles_steps(SMALL_DEADLOCKS, WITH_HOLDS | WITH_DETAIL);
    long large = lock_cycles_steps(SMALL_DEADLOCKS * LARGE_FACTOR, WITH_HOLDS | WITH_DETAIL);

    CHECK(small > 0 && large > 0);
    if (small > 0 && large > MAX_STEP_RATIO * small)
        fprintf(stderr, "lock_cycles: %ld VM steps for %d deadlocks, %ld for %d\n", small,
                SMALL_DEADLOCKS, large, SMALL_DEADLOCKS * LARGE_FACTOR);
    CHECK(small > 0 && large <= MAX_STEP_RATIO * small);
}

/* Behind a pooler with log_min_duration_statement (blind-pool's
 * transfers) neither the victim's first UPDATE nor the survivor's second
 * is logged: no hold gives the victim's first row, the DETAIL does (the
 * survivor was waiting for it). Without either, no pair is read. */
static void test_detail_rows(void)
{
    CHECK(lock_cycles_steps(SMALL_DEADLOCKS, WITH_HOLDS) > 0);
    CHECK(lock_cycles_steps(SMALL_DEADLOCKS, WITH_DETAIL) > 0);
    CHECK(lock_cycles_steps(SMALL_DEADLOCKS, 0) == 0);
}

/*
 * A cycle of three (blind-java's deadlock at line 15176 of its log, three
 * transfers in request order): the victim (tx 10, pid 100) locked aid=1,
 * then waited for aid=2, held by tx 11 (pid 200), which waited for aid=3
 * (its wait logged, still waiting at the deadlock), held by tx 12 (pid
 * 300), which waited for aid=1. The holder wanted no row of the
 * victim's, so no two-row inversion is read; the pair is counted as a
 * cycle through a third transaction when the holder's wanted row is of
 * the victim's first row's relation. `wanted`: that row (3: aid=3; 4: a
 * branches row; 0: no wait of the holder logged, nor a later hold).
 * Returns the pair's deadlocks (0: none read), -1 on error.
 */
static int three_cycle(int wanted, int *longer)
{
    static const char fill[] =
        "INSERT INTO deadlocks VALUES (1, 1, 40, 5000000, 100);"
        "INSERT INTO deadlock_edges VALUES (1, 1, 100, 200), (1, 2, 200, 300), (1, 3, 300, 100);"
        "INSERT INTO lock_wait_rows(wait_id, pid, start_ts, outcome, file_id, line)"
        " VALUES (1, 100, 4500000, 'deadlock', 1, 39);"
        "INSERT INTO lock_waits VALUES (1, 10, 11, 200, 2, 35);"
        "INSERT INTO holds(tx_id, row_id, start_ts, waits, lock_stmt) VALUES"
        " (10, 1, 4000000, 0, 30), (11, 2, 4000000, 0, 31), (12, 3, 4000000, 0, 32);"
        "INSERT INTO tx_code VALUES (10, 'transfer'), (11, 'transfer'), (12, 'transfer');";
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    char *sql = NULL, *wait = NULL;
    int n = -1;

    *longer = -1;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK ||
        sqlite3_exec(db, schema_sql, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, fill, NULL, NULL, NULL) != SQLITE_OK)
        goto done;
    if (wanted) {
        /* the holder's wait, from before the deadlock's second, logged
         * (still waiting) after it */
        wait = sqlite3_mprintf("INSERT INTO lock_wait_rows(wait_id, pid, start_ts, outcome,"
                               " file_id, line, logged_ts) VALUES (2, 200, 4200000, NULL, 1, 41,"
                               " 5200000); INSERT INTO wait_links VALUES (2, 11);"
                               " INSERT INTO wait_rows VALUES (2, %d);",
                               wanted);
        if (!wait || sqlite3_exec(db, wait, NULL, NULL, NULL) != SQLITE_OK)
            goto done;
    }
    /* the victims' waits, as dlprocs.c makes them before the query */
    if (sqlite3_exec(db, LS_LOCK_CYCLES_VICTIMS_SQL, NULL, NULL, NULL) != SQLITE_OK)
        goto done;
    sql = cycles_query();
    if (!sql || sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
        fprintf(stderr, "prepare: %s\n", sqlite3_errmsg(db));
        goto done;
    }
    n = 0;
    if (sqlite3_step(q) == SQLITE_ROW) {
        CHECK_STR((const char *)sqlite3_column_text(q, 0), "transfer");
        CHECK_STR((const char *)sqlite3_column_text(q, 3), "transfer");
        CHECK_STR((const char *)sqlite3_column_text(q, 4), "accounts aid=1");
        CHECK_STR((const char *)sqlite3_column_text(q, 5), "accounts aid=2");
        n = sqlite3_column_int(q, 6);
        *longer = sqlite3_column_int(q, 8);
        CHECK_INT(sqlite3_step(q), SQLITE_DONE);
    }
done:
    sqlite3_finalize(q);
    sqlite3_free(sql);
    sqlite3_free(wait);
    sqlite3_close(db);
    return n;
}

static void test_three_cycle(void)
{
    int longer;

    /* The holder waited for aid=3: counted, through a third transaction. */
    CHECK_INT(three_cycle(3, &longer), 1);
    CHECK_INT(longer, 1);
    /* ... for the victim's own aid=1: a two-row inversion, as the DETAIL
     * went through the tuple lock's holder (blind-java's line 15085). */
    CHECK_INT(three_cycle(1, &longer), 1);
    CHECK_INT(longer, 0);
    /* ... for a row of another relation: not read (the two sides' orders
     * are not of the same relations). */
    CHECK_INT(three_cycle(4, &longer), 0);
    /* Nothing says what the holder wanted: not read. */
    CHECK_INT(three_cycle(0, &longer), 0);
}

/*
 * A deadlock read from its DETAIL alone (temp.dl_self, dlprocs.c: every
 * process waits for a row lock running one statement; samples/blind-rb's
 * transfers, no rows known): n deadlocks, each with the transactions
 * `labels` names (a label per transaction; "" for none; NULL: a
 * transaction not known, dl_self's tx_id NULL), no holds and no
 * DETAIL rows. Returns the VM steps (-1: error), the one pair's fields in
 * *label, *other and *deadlocks (0: no pair).
 */
static long detail_cycles(int n, const char *const *labels, int nlabels, char *label,
                          char *other, int *deadlocks)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    char *sql = NULL;
    long steps = -1;
    int i;

    *deadlocks = 0;
    label[0] = other[0] = '\0';
    if (sqlite3_open(":memory:", &db) != SQLITE_OK ||
        sqlite3_exec(db, schema_sql, NULL, NULL, NULL) != SQLITE_OK || exec_per_deadlock(db, n, 0))
        goto done;
    /* exec_per_deadlock's tx_code rows are 2k and 2k+1: these are 10 n + i */
    for (i = 0; i < nlabels; i++) {
        char *ins = !labels[i] ? sqlite3_mprintf(
            "WITH RECURSIVE k(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM k WHERE k < %d)"
            " INSERT INTO dl_self SELECT k, 'accounts', NULL FROM k;", n) : sqlite3_mprintf(
            "WITH RECURSIVE k(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM k WHERE k < %d)"
            " INSERT INTO dl_self SELECT k, 'accounts', 10 * k + %d FROM k;"
            "WITH RECURSIVE k(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM k WHERE k < %d)"
            " INSERT INTO tx_code SELECT 10 * k + %d, nullif(%Q, '') FROM k;",
            n, i + 10 * n, n, i + 10 * n, labels[i]);
        int rc = ins ? sqlite3_exec(db, ins, NULL, NULL, NULL) : SQLITE_NOMEM;
        sqlite3_free(ins);
        if (rc != SQLITE_OK)
            goto done;
    }
    if (sqlite3_exec(db, "ANALYZE", NULL, NULL, NULL) != SQLITE_OK)
        goto done;
    /* the victims' waits, as dlprocs.c makes them before the query */
    if (sqlite3_exec(db, LS_LOCK_CYCLES_VICTIMS_SQL, NULL, NULL, NULL) != SQLITE_OK)
        goto done;
    sql = cycles_query();
    if (!sql || sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
        fprintf(stderr, "prepare: %s\n", sqlite3_errmsg(db));
        goto done;
    }
    if (sqlite3_step(q) == SQLITE_ROW) {
        const char *l = (const char *)sqlite3_column_text(q, 0);
        const char *o = (const char *)sqlite3_column_text(q, 3);
        snprintf(label, 32, "%s", l ? l : "(none)");
        snprintf(other, 32, "%s", o ? o : "(none)");
        CHECK_STR((const char *)sqlite3_column_text(q, 1), "accounts");
        CHECK_STR((const char *)sqlite3_column_text(q, 2), "accounts");
        CHECK_INT(sqlite3_column_type(q, 4), SQLITE_NULL); /* no rows known */
        CHECK_INT(sqlite3_column_type(q, 5), SQLITE_NULL);
        *deadlocks = sqlite3_column_int(q, 6);
        CHECK_INT(sqlite3_column_int(q, 9), *deadlocks); /* each read from the DETAIL */
        CHECK_INT(sqlite3_step(q), SQLITE_DONE);
    }
    steps = sqlite3_stmt_status(q, SQLITE_STMTSTATUS_VM_STEP, 0);
done:
    sqlite3_finalize(q);
    sqlite3_free(sql);
    sqlite3_close(db);
    return steps;
}

/* One path against itself; two paths a pair, named both; three paths: no
 * pair; none known: the order, by no code path (samples/blind-zk's log
 * alone). Linear in the deadlocks. */
static void test_detail_cycles(void)
{
    static const char *const one[] = {"transfer", "transfer", ""};
    static const char *const two[] = {"payout", "transfer"};
    static const char *const three[] = {"payout", "transfer", "refund"};
    static const char *const none[] = {""};
    static const char *const unknown[] = {NULL};
    static const char *const known_unknown[] = {"transfer", NULL};
    char label[32], other[32];
    int n;
    long small, large;

    small = detail_cycles(SMALL_DEADLOCKS, one, 3, label, other, &n);
    CHECK_INT(n, SMALL_DEADLOCKS);
    CHECK_STR(label, "transfer");
    CHECK_STR(other, "transfer");
    large = detail_cycles(SMALL_DEADLOCKS * LARGE_FACTOR, one, 3, label, other, &n);
    CHECK_INT(n, SMALL_DEADLOCKS * LARGE_FACTOR);
    CHECK(small > 0 && large > 0 && large <= MAX_STEP_RATIO * small);
    CHECK(detail_cycles(3, two, 2, label, other, &n) > 0);
    CHECK_INT(n, 3);
    CHECK_STR(label, "payout");
    CHECK_STR(other, "transfer");
    CHECK(detail_cycles(3, three, 3, label, other, &n) > 0);
    CHECK_INT(n, 0);
    CHECK(detail_cycles(3, none, 1, label, other, &n) > 0);
    CHECK_INT(n, 3);
    CHECK_STR(label, "(none)");
    CHECK_STR(other, "(none)");
    /* no transaction at all (dlprocs.c keeps the cycle's row, tx_id NULL) */
    CHECK(detail_cycles(3, unknown, 1, label, other, &n) > 0);
    CHECK_INT(n, 3);
    CHECK_STR(label, "(none)");
    /* a known path beside an unknown transaction names the cycle */
    CHECK(detail_cycles(3, known_unknown, 2, label, other, &n) > 0);
    CHECK_INT(n, 3);
    CHECK_STR(label, "transfer");
    CHECK_STR(other, "transfer");
}

int main(void)
{
    test_detail_cycles();
    test_three_cycle();
    test_linear();
    test_detail_rows();
    return TEST_REPORT();
}
