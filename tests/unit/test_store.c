/*
 * test_store.c — how the store folds an extended-protocol statement's
 * parse and bind lines into its execute line's row (docs/store.md,
 * stmt_rows), whatever number of other sessions' lines come between: the
 * statement rows are inserted in groups, and where a group ends must not
 * decide what folds.
 *
 * The events are built here as a parser hands them over (ls_event with its
 * ls_record); no log text is involved.
 *
 * That transaction ids by the thousand are stored each with its own
 * session, pid and first time (xids, written in groups of rows).
 *
 * And how a writer binds a row (store_binds.h): the first failed bind is
 * kept and the statement not stepped, whatever binds come after it; a
 * multi-row INSERT's row k at k * columns.
 *
 * And a query's named parameters (ls_params.h): declared in the order the
 * SQL first uses them, each at LS_PARAM(Q, name); a statement whose
 * parameters differ from its list fails to prepare.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ls_event.h"
#include "ls_params.h"
#include "ls_store.h"
#include "ls_test.h"
#include "store_binds.h"

#define T0 1733140000000000LL /* µs */

typedef struct feed {
    ls_store *s;
    int64_t file_id;
    uint64_t line;
} feed;

/* One "duration: D ms  VERB NAME: TEXT" line of process `pid`, with the
 * DETAIL parameters `params` (or none), in vxid "3/<pid>". */
static int duration_line(feed *f, int pid, const char *verb, const char *name, const char *text,
                         const char *params)
{
    char session[32], vxid[32];
    ls_record r;
    ls_event ev;

    snprintf(session, sizeof(session), "6b125d80.%x", (unsigned)pid);
    snprintf(vxid, sizeof(vxid), "3/%d", pid);
    memset(&r, 0, sizeof(r));
    r.file = "test.log";
    r.line = ++f->line;
    r.ts = T0 + (ls_ts)f->line * 100;
    r.pid = pid;
    r.session_id = session;
    r.session_line = -1;
    r.session_start = LS_TS_NONE;
    r.vxid = vxid;
    r.severity = "LOG";
    r.message = text;
    r.detail = params;
    memset(&ev, 0, sizeof(ev));
    ev.kind = LS_EV_DURATION;
    ev.rec = &r;
    ev.u.stmt.duration_ms = 0.05;
    snprintf(ev.u.stmt.verb, sizeof(ev.u.stmt.verb), "%s", verb);
    ev.u.stmt.name = name;
    ev.u.stmt.text = text;
    ev.u.stmt.params = params;
    /* the caller's strings are good until the next detach (ingest detaches
     * after every batch, or every event with -j 1) */
    if (ls_store_event(f->s, f->file_id, &ev) != 0)
        return -1;
    return ls_store_detach(f->s);
}

/* `n` lines of other sessions (simple-protocol statements, nothing to fold). */
static int others(feed *f, int n)
{
    int i;
    for (i = 0; i < n; i++)
        if (duration_line(f, 20000 + i % 16, "statement", NULL, "SELECT 1", NULL) != 0)
            return -1;
    return 0;
}

static sqlite3_int64 count(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    sqlite3_int64 v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static int open_feed(feed *f, const char *path)
{
    char err[256];
    unlink(path);
    memset(f, 0, sizeof(*f));
    return ls_store_open(&f->s, path, err, sizeof(err)) != 0 || ls_store_begin(f->s) != 0 ||
                   ls_store_file_begin(f->s, "test.log", "stderr", NULL, 0, &f->file_id) != 0
               ? -1
               : 0;
}

static sqlite3 *close_feed(feed *f, const char *path)
{
    sqlite3 *db = NULL;
    int rc = ls_store_commit(f->s);
    ls_store_close(f->s);
    if (rc != 0 || sqlite3_open(path, &db) != SQLITE_OK) {
        sqlite3_close(db);
        return NULL;
    }
    return db;
}

/* A statement whose lines are hundreds of rows apart, as when its execute
 * waited for a lock: one row. The groups of 256 rows once cut such lines
 * apart (three rows). */
static void test_fold_far_apart(const char *path)
{
    static const char *q = "UPDATE accounts SET balance = balance + $1 WHERE id = $2";
    static const char *p = "parameters: $1 = '5', $2 = '7'";
    feed f;
    sqlite3 *db;
    int ok = open_feed(&f, path) == 0 && others(&f, 100) == 0 &&
             duration_line(&f, 100, "parse", "<unnamed>", q, NULL) == 0 && others(&f, 300) == 0 &&
             duration_line(&f, 100, "bind", "<unnamed>", q, p) == 0 && others(&f, 1000) == 0 &&
             duration_line(&f, 100, "execute", "<unnamed>", q, p) == 0 && others(&f, 10) == 0;
    CHECK(ok);
    db = close_feed(&f, path);
    CHECK(db != NULL);
    if (!db)
        return;
    CHECK_INT(count(db, "SELECT count(*) FROM statements WHERE pid = 100"), 1);
    CHECK_INT(count(db, "SELECT count(*) FROM statements WHERE pid = 100 AND verb = 'execute'"
                        " AND bind_ms IS NOT NULL AND parse_ms IS NOT NULL"
                        " AND params = 'parameters: $1 = ''5'', $2 = ''7'''"),
              1);
    CHECK_INT(count(db, "SELECT count(*) FROM statements"), 1 + 100 + 300 + 1000 + 10);
    sqlite3_close(db);
}

/* More sessions between their parse and their bind lines than rows may
 * wait (768): the oldest go to the table as they are; no line is lost,
 * every bind still folds into its execute, and the others' parse lines
 * fold too. */
static void test_fold_many_waiting(const char *path)
{
    enum { N = 900 };
    static const char *q = "SELECT abalance FROM pgbench_accounts WHERE aid = $1";
    char params[N][32];
    feed f;
    sqlite3 *db;
    int i, ok = open_feed(&f, path) == 0;
    for (i = 0; i < N && ok; i++) {
        snprintf(params[i], sizeof(params[i]), "parameters: $1 = '%d'", i);
        ok = duration_line(&f, 1000 + i, "parse", "<unnamed>", q, NULL) == 0;
    }
    ok = ok && others(&f, 300) == 0;
    for (i = 0; i < N && ok; i++)
        ok = duration_line(&f, 1000 + i, "bind", "<unnamed>", q, params[i]) == 0 &&
             duration_line(&f, 1000 + i, "execute", "<unnamed>", q, params[i]) == 0;
    CHECK(ok);
    db = close_feed(&f, path);
    CHECK(db != NULL);
    if (!db)
        return;
    CHECK_INT(count(db,
                    "SELECT count(*) FROM statements WHERE verb = 'execute' AND bind_ms IS NOT NULL"
                    " AND params = 'parameters: $1 = ''' || (pid - 1000) || '''' "),
              N);
    CHECK_INT(
        count(db, "SELECT count(parse_ms) + (SELECT count(*) FROM statements WHERE verb = 'parse')"
                  " FROM statements"),
        N);
    /* 768 parse rows wait; when the buffer is full to the last row, a group
     * that cannot be filled otherwise takes the oldest of them */
    CHECK(count(db, "SELECT count(parse_ms) FROM statements") >= 760);
    sqlite3_close(db);
}

/* Sessions whose pids are 1024 apart, each mid-statement while the others'
 * lines come: every statement is one row. The store's cache of sessions
 * once had one place per pid modulo 1024, and such sessions (a busy
 * server's, or two servers' logs ingested with -j) took it from each other,
 * leaving their parse and bind lines as rows of their own. */
static void test_fold_pids_alike(const char *path)
{
    enum { N = 3 };
    static const char *q = "UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2";
    static const char *verbs[] = {"parse", "bind", "execute"};
    feed f;
    sqlite3 *db;
    int i, v, ok = open_feed(&f, path) == 0;
    for (v = 0; v < 3 && ok; v++)
        for (i = 0; i < N && ok; i++)
            ok = duration_line(&f, 4000 + 1024 * i, verbs[v], "<unnamed>", q,
                               v ? "parameters: $1 = '1', $2 = '2'" : NULL) == 0;
    CHECK(ok);
    db = close_feed(&f, path);
    CHECK(db != NULL);
    if (!db)
        return;
    CHECK_INT(count(db, "SELECT count(*) FROM statements"), N);
    CHECK_INT(count(db, "SELECT count(*) FROM statements WHERE verb = 'execute'"
                        " AND parse_ms IS NOT NULL AND bind_ms IS NOT NULL"),
              N);
    CHECK_INT(count(db, "SELECT count(DISTINCT session_id) FROM statements"), N);
    sqlite3_close(db);
}

/* A statement line of process `pid` in transaction `xid`, logged with
 * log_statement (no duration). */
static int xid_line(feed *f, int pid, int64_t xid)
{
    char session[32];
    ls_record r;
    ls_event ev;

    snprintf(session, sizeof(session), "6b125d80.%x", (unsigned)pid);
    memset(&r, 0, sizeof(r));
    r.file = "test.log";
    r.line = ++f->line;
    r.ts = T0 + (ls_ts)f->line * 100;
    r.pid = pid;
    r.session_id = session;
    r.session_line = -1;
    r.session_start = LS_TS_NONE;
    r.xid = xid;
    r.severity = "LOG";
    r.message = "UPDATE t SET v = v + 1 WHERE id = 1";
    memset(&ev, 0, sizeof(ev));
    ev.kind = LS_EV_STATEMENT;
    ev.rec = &r;
    snprintf(ev.u.stmt.verb, sizeof(ev.u.stmt.verb), "%s", "statement");
    ev.u.stmt.text = r.message;
    if (ls_store_event(f->s, f->file_id, &ev) != 0)
        return -1;
    return ls_store_detach(f->s);
}

/* Transaction ids by the thousand: each leaves the store's cache for the
 * xids table in groups of rows (one multi-row INSERT each, store.c,
 * xid_write()), and every row holds its own xid's session, pid and first
 * time, each column its own value. */
#define MANY_XIDS 12288 /* three times the store's cache of transaction ids */
#define XID_PIDS 50
static void test_many_xids(const char *path)
{
    feed f;
    sqlite3 *db;
    char sql[256];
    int i;

    CHECK(open_feed(&f, path) == 0);
    for (i = 0; i < MANY_XIDS; i++)
        if (xid_line(&f, 100 + i % XID_PIDS, 1000 + i) != 0)
            break;
    CHECK_INT(i, MANY_XIDS);
    db = close_feed(&f, path);
    CHECK(db != NULL);
    if (!db)
        return;
    CHECK_INT(count(db, "SELECT count(*) FROM xids"), MANY_XIDS);
    /* line k (from 1) is xid 999 + k of pid 100 + (k - 1) % 50, at T0 + 100 k */
    snprintf(sql, sizeof(sql), "SELECT count(*) FROM xids x JOIN sessions s"
             " ON s.session_id = x.session_id AND s.pid = x.pid"
             " WHERE x.pid = 100 + (x.xid - 1000) %% %d AND x.first_ts = %lld + 100 * (x.xid - 999)",
             XID_PIDS, (long long)T0);
    CHECK_INT(count(db, sql), MANY_XIDS);
    CHECK_INT(count(db, "SELECT count(*) FROM statements s JOIN xids x ON x.xid = s.xid"
                        " WHERE x.first_ts = s.start_ts AND x.pid = s.pid"),
              MANY_XIDS);
    sqlite3_close(db);
}

/* The binds of a row: a bind that fails (a parameter past the statement's,
 * SQLITE_RANGE) fails the row, unstepped, even when later binds succeed;
 * the next row, bound whole, is written; rows of a multi-row INSERT go to
 * their own parameters. */
static void test_binds(void)
{
    sqlite3 *db;
    sqlite3_stmt *one, *two;
    binds b;
    enum { c_a, c_b, c_ncols };

    CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "CREATE TABLE t(a, b)", NULL, NULL, NULL) == SQLITE_OK);
    CHECK(sqlite3_prepare_v2(db, "INSERT INTO t(a, b) VALUES (?, ?)", -1, &one, NULL) ==
          SQLITE_OK);
    CHECK(sqlite3_prepare_v2(db, "INSERT INTO t(a, b) VALUES (?, ?), (?, ?)", -1, &two,
                             NULL) == SQLITE_OK);

    b = binds_of(one);
    bind_int64(&b, c_a, 1);
    bind_int64(&b, c_ncols + 3, 2); /* no such parameter */
    bind_text(&b, c_b, "after");
    CHECK_INT(b.rc, SQLITE_RANGE);
    CHECK_INT(binds_step(&b), SQLITE_RANGE);
    CHECK_INT(count(db, "SELECT count(*) FROM t"), 0);

    b = binds_of(one);
    bind_int64(&b, c_a, 1);
    bind_ts(&b, c_b, LS_TS_NONE);
    CHECK_INT(binds_step(&b), SQLITE_DONE);
    CHECK_INT(count(db, "SELECT count(*) FROM t WHERE a = 1 AND b IS NULL"), 1);

    b = binds_of(two);
    bind_int64(&b, c_a, 10);
    bind_pos(&b, c_b, 0);
    b.base += c_ncols;
    bind_int64(&b, c_a, 20);
    bind_if(&b, c_b, 1, 21);
    CHECK_INT(binds_step(&b), SQLITE_DONE);
    CHECK_INT(count(db, "SELECT count(*) FROM t WHERE a = 10 AND b IS NULL"), 1);
    CHECK_INT(count(db, "SELECT count(*) FROM t WHERE a = 20 AND b = 21"), 1);
    sqlite3_finalize(one);
    sqlite3_finalize(two);
    sqlite3_close(db);
}

/* ls_stmt_last_rowid(): the rowid the store's last INSERT added, as the
 * transactions pass reads each transaction's tx_id (no RETURNING). */
static void test_last_rowid(const char *path)
{
    feed f;
    ls_stmt *ins = NULL, *other = NULL;
    CHECK(open_feed(&f, path) == 0);
    CHECK(ls_store_exec(f.s, "CREATE TEMP TABLE lr(id INTEGER PRIMARY KEY, v);"
                             "CREATE TEMP TABLE lr2(id INTEGER PRIMARY KEY, v);"
                             "INSERT INTO temp.lr(id, v) VALUES (41, 0);") == 0);
    CHECK(ls_store_prepare(f.s, "INSERT INTO temp.lr(v) VALUES (?1)", &ins) == 0);
    CHECK(ls_store_prepare(f.s, "INSERT INTO temp.lr2(id, v) VALUES (7, ?1)", &other) == 0);
    CHECK(ls_stmt_bind_int64(ins, 1, 1) == 0);
    CHECK_INT(ls_stmt_step(ins), 0);
    CHECK_INT(ls_stmt_last_rowid(ins), 42);
    ls_stmt_reset(ins);
    CHECK(ls_stmt_bind_int64(ins, 1, 2) == 0);
    CHECK_INT(ls_stmt_step(ins), 0);
    CHECK_INT(ls_stmt_last_rowid(ins), 43);
    /* the store's last INSERT, whichever statement ran it */
    CHECK(ls_stmt_bind_int64(other, 1, 3) == 0);
    CHECK_INT(ls_stmt_step(other), 0);
    CHECK_INT(ls_stmt_last_rowid(ins), 7);
    ls_stmt_finalize(ins);
    ls_stmt_finalize(other);
    sqlite3_close(close_feed(&f, path));
}

/* The parameters of a query, by name (ls_params.h). */
#define PQ_PARAMS(X, Q) X(Q, lo) X(Q, hi) X(Q, label)
LS_PARAMS(pq, PQ_PARAMS);
#define PQ_VOCAB(X, Q) X(Q, since) X(Q, until) X(Q, limit)

static void test_named_params(const char *path)
{
    feed f;
    ls_stmt *q = NULL;
    CHECK(open_feed(&f, path) == 0);
    CHECK_INT(pq__nparams, 3);
    CHECK_INT(LS_PARAM(pq, label), 3);
    /* the list in the order of first use; :lo used twice is one index */
    CHECK(ls_store_prepare_params(f.s, "SELECT :lo + :hi, :label || :lo", LS_PARAM_NAMES(PQ_PARAMS),
                                  &q) == 0);
    CHECK(ls_stmt_bind_int64(q, LS_PARAM(pq, lo), 40) == 0);
    CHECK(ls_stmt_bind_int64(q, LS_PARAM(pq, hi), 2) == 0);
    CHECK(ls_stmt_bind_text(q, LS_PARAM(pq, label), "x") == 0);
    CHECK_INT(ls_stmt_step(q), 1);
    CHECK_INT(ls_stmt_int64(q, 0), 42);
    CHECK(strcmp(ls_stmt_text(q, 1), "x40") == 0);
    ls_stmt_finalize(q);
    /* a '?' in a quoted string is no parameter */
    CHECK(ls_store_prepare_params(f.s, "SELECT :lo + :hi, :label || '?1'", LS_PARAM_NAMES(PQ_PARAMS),
                                  &q) == 0);
    ls_stmt_finalize(q);
    /* each a bug of the query, refused as it is prepared: another order,
     * one missing, one more, one numbered, one anonymous, a name misspelt */
    static const char *const wrong[] = {
        "SELECT :hi + :lo, :label", "SELECT :lo + :hi", "SELECT :lo + :hi, :label, :x",
        "SELECT :lo + :hi, ?3",     "SELECT :lo + :hi, ?", "SELECT :lo + :hi, :labl",
    };
    for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
        CHECK(ls_store_prepare_params(f.s, wrong[i], LS_PARAM_NAMES(PQ_PARAMS), &q) == LS_ESTORE);
        CHECK(q == NULL);
    }
    /* named parameters are never prepared unchecked */
    CHECK(ls_store_prepare(f.s, "SELECT :lo + :hi, :label", &q) == LS_ESTORE);
    CHECK(q == NULL);
    CHECK(ls_store_prepare(f.s, "SELECT ?1 + ?2", &q) == 0);
    ls_stmt_finalize(q);
    /* a vocabulary: any of its names, in any order, found by name */
    CHECK(ls_store_prepare_vocab(f.s, "SELECT :until, :since", LS_PARAM_NAMES(PQ_VOCAB), &q) == 0);
    CHECK_INT(ls_stmt_param(q, "since"), 2);
    CHECK_INT(ls_stmt_param(q, "until"), 1);
    CHECK_INT(ls_stmt_param(q, "limit"), 0);
    ls_stmt_finalize(q);
    CHECK(ls_store_prepare_vocab(f.s, "SELECT :until, :sinse", LS_PARAM_NAMES(PQ_VOCAB), &q) ==
          LS_ESTORE);
    CHECK(ls_store_prepare_vocab(f.s, "SELECT :until, ?1", LS_PARAM_NAMES(PQ_VOCAB), &q) ==
          LS_ESTORE);
    sqlite3_close(close_feed(&f, path));
}

/* One record of samples/blind-dj/postgresql.json.gz (PostgreSQL 18.6,
 * jsonlog, lc_messages es_ES: "sentencia:", "duración:"), as the parser
 * hands it over: its log line, time (ms since 16:27:54.000), vxid, txid
 * and event. */
typedef struct dj_line {
    uint64_t line;
    int ms;
    const char *vxid;
    int64_t xid;
    ls_event_kind kind; /* LS_EV_STATEMENT, LS_EV_DURATION or LS_EV_ERROR */
    double dur_ms;
    const char *text; /* the statement's; "" for a bare duration */
} dj_line;

static int dj_event(feed *f, int pid, const dj_line *l)
{
    ls_record r;
    ls_event ev;

    memset(&r, 0, sizeof(r));
    r.file = "postgresql.json";
    r.line = l->line;
    r.ts = T0 + (ls_ts)l->ms * 1000;
    r.pid = pid;
    r.session_id = "6b16de88.5a3e";
    r.session_line = -1;
    r.session_start = LS_TS_NONE;
    r.vxid = l->vxid;
    r.xid = l->xid;
    r.severity = l->kind == LS_EV_ERROR ? "ERROR" : "LOG";
    r.message = l->text;
    memset(&ev, 0, sizeof(ev));
    ev.kind = l->kind;
    ev.rec = &r;
    if (l->kind == LS_EV_ERROR) {
        snprintf(ev.u.error.sqlstate, sizeof(ev.u.error.sqlstate), "40001");
        ev.u.error.cls = LS_ERRC_SERIALIZATION;
        r.statement = "UPDATE \"products\" SET \"price\" = 102 WHERE \"products\".\"id\" = 1";
    } else {
        ev.u.stmt.duration_ms = l->kind == LS_EV_DURATION ? l->dur_ms : -1;
        snprintf(ev.u.stmt.verb, sizeof(ev.u.stmt.verb), "%s",
                 l->kind == LS_EV_STATEMENT ? "statement" : "");
        ev.u.stmt.name = "";
        ev.u.stmt.text = l->kind == LS_EV_STATEMENT ? l->text : "";
    }
    if (ls_store_event(f->s, f->file_id, &ev) != 0)
        return -1;
    return ls_store_detach(f->s);
}

/*
 * log_statement = 'all' with log_duration = on (issue 34, samples/blind-dj):
 * each statement is its "sentencia: ..." record when it starts and a bare
 * "duración: X ms" record (no statement) of the same pid when it ends; the
 * duration folds into the statement's row, one row each, whatever other
 * sessions log between. A statement that failed (the 40001 UPDATE) has no
 * duration: it stays a row without one, and the next bare duration is the
 * next statement's. Records 796-926 of pid 23038 in
 * samples/blind-dj/postgresql.json.gz (times in ms after 16:27:54).
 * Before the fold (6c72676): 11 rows, 5 of them without text.
 */
static void test_fold_bare_durations(const char *path)
{
    static const dj_line ls[] = {
        {790, 680, "15/11", 0, LS_EV_STATEMENT, 0, "BEGIN ISOLATION LEVEL REPEATABLE READ"},
        {791, 680, "15/11", 0, LS_EV_DURATION, 0.031, ""},
        {796, 696, "15/11", 0, LS_EV_STATEMENT, 0,
         "UPDATE \"products\" SET \"price\" = 102 WHERE \"products\".\"id\" = 1"},
        {797, 696, "15/11", 847, LS_EV_ERROR, 0,
         "no se pudo serializar el acceso debido a un update concurrente"},
        {802, 696, "15/0", 847, LS_EV_STATEMENT, 0, "ROLLBACK"},
        {803, 696, "15/0", 0, LS_EV_DURATION, 0.016, ""},
        {915, 773, "15/12", 0, LS_EV_STATEMENT, 0, "SET default_transaction_isolation TO DEFAULT"},
        {916, 773, "15/0", 0, LS_EV_DURATION, 0.023, ""},
        {921, 774, "15/13", 0, LS_EV_STATEMENT, 0, "BEGIN ISOLATION LEVEL REPEATABLE READ"},
        {922, 774, "15/13", 0, LS_EV_DURATION, 0.056, ""},
        {925, 774, "15/13", 0, LS_EV_STATEMENT, 0,
         "SELECT \"products\".\"id\", \"products\".\"name\", \"products\".\"price\","
         " \"products\".\"stock\" FROM \"products\" WHERE \"products\".\"id\" = 1 LIMIT 21"},
        {926, 774, "15/13", 0, LS_EV_DURATION, 0.129, ""},
    };
    feed f;
    sqlite3 *db;
    size_t i;
    int ok = open_feed(&f, path) == 0;

    for (i = 0; i < sizeof(ls) / sizeof(ls[0]) && ok; i++) {
        f.line = ls[i].line * 1000; /* the others' lines after it */
        ok = dj_event(&f, 23038, &ls[i]) == 0 && others(&f, 300) == 0;
    }
    CHECK(ok);
    db = close_feed(&f, path);
    CHECK(db != NULL);
    if (!db)
        return;
    CHECK_INT(count(db, "SELECT count(*) FROM statements WHERE pid = 23038"), 6);
    CHECK_INT(
        count(db, "SELECT count(*) FROM statements WHERE pid = 23038 AND coalesce(text, '') = ''"),
        0);
    /* each timed but the failed UPDATE, at its duration record's line */
    CHECK_INT(count(db, "SELECT count(*) FROM statements WHERE pid = 23038 AND duration_ms IS NULL"
                        " AND text LIKE 'UPDATE%' AND line = 796"),
              1);
    CHECK_INT(count(db, "SELECT count(*) FROM statements WHERE pid = 23038"
                        " AND duration_ms IS NOT NULL AND line IN (791, 803, 916, 922, 926)"),
              5);
    CHECK_INT(count(db, "SELECT round(sum(duration_ms), 3) * 1000 FROM statements"
                        " WHERE pid = 23038"),
              31 + 16 + 23 + 56 + 129);
    sqlite3_close(db);
}

int main(void)
{
    char dir[] = "/tmp/lockspan-test-store.XXXXXX", path[64];
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(path, sizeof(path), "%s/s.db", dir);
    test_fold_far_apart(path);
    test_fold_many_waiting(path);
    test_fold_pids_alike(path);
    test_fold_bare_durations(path);
    test_many_xids(path);
    test_binds();
    test_last_rowid(path);
    test_named_params(path);
    unlink(path);
    rmdir(dir);
    return TEST_REPORT();
}
