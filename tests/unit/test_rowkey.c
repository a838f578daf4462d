/*
 * test_rowkey.c — which logical row a wait or a statement is about
 * (src/correlate/rowkey.c). The CONTEXT texts are in the form PostgreSQL 15 writes
 * them (lmgr.c XactLockTableWaitErrorCb, then pl_exec.c's "SQL statement"
 * and "PL/pgSQL function" lines, joined by newlines as lockspan stores
 * them); the statements are those the samples' drivers send.
 */
#include <string.h>

#include "ls_test.h"
#include "rowkey.h"

static const char withdraw_ctx[] =
    "while updating tuple (0,7) in relation \"accounts\"\n"
    "SQL statement \"UPDATE accounts SET balance = balance - p_amount WHERE id = p_id\"\n"
    "PL/pgSQL function withdraw(integer,integer) line 3 at SQL statement";

static const char trigger_ctx[] =
    "while updating tuple (0,3) in relation \"merchant_totals\"\n"
    "SQL statement \"UPDATE merchant_totals SET total = total + NEW.amount,"
    " n = n + 1 WHERE merchant_id = NEW.merchant_id\"\n"
    "PL/pgSQL function bump_merchant_total() line 3 at SQL statement";

static const char dollar_ctx[] =
    "while locking tuple (1,2) in relation \"stock\"\n"
    "SQL statement \"SELECT 1 FROM stock WHERE sku = $1 FOR UPDATE\"\n"
    "PL/pgSQL function reserve(integer) line 2 at PERFORM";

static void test_evidence(void)
{
    static const struct {
        ls_rowkey_evidence ev;
        int keyed;
        const char *rel, *key, *grouped_by;
    } cases[] = {
        /* The waiter's own statement: literal, bound, EXECUTE. */
        {{"UPDATE accounts SET balance = balance + 1 WHERE id = 7", NULL, NULL,
          "while updating tuple (0,7) in relation \"accounts\"", "accounts"},
         1, "accounts", "id=7", LS_GROUPED_STATEMENT},
        {{"UPDATE accounts SET balance = balance + $1 WHERE id = $2", "$1 = '5', $2 = '9'", NULL,
          NULL, "accounts"},
         1, "accounts", "id=9", LS_GROUPED_PARAM},
        {{"UPDATE accounts SET balance = balance + $1 WHERE id = $2", NULL, NULL, NULL,
          "accounts"},
         0, "", "", "bind parameters not logged"},
        {{"EXECUTE reserve(7, 1)", NULL,
          "PREPARE reserve(int, int) AS UPDATE stock SET qty = qty - $2 WHERE sku = $1", NULL,
          "stock"},
         1, "stock", "sku=7", LS_GROUPED_PREPARE},
        /* A trigger's statement: NEW.col is the INSERT's column. */
        {{"INSERT INTO payments(merchant_id, amount) VALUES ($1, $2)", "$1 = '4', $2 = '250'",
          NULL, trigger_ctx, "merchant_totals"},
         1, "merchant_totals", "merchant_id=4", LS_GROUPED_CONTEXT},
        {{"INSERT INTO payments(amount, merchant_id) VALUES (10, 3)", NULL, NULL, trigger_ctx,
          "merchant_totals"},
         1, "merchant_totals", "merchant_id=3", LS_GROUPED_CONTEXT},
        /* A function's $1 is the call's first argument. */
        {{"SELECT reserve(42)", NULL, NULL, dollar_ctx, "stock"}, 1, "stock", "sku=42",
         LS_GROUPED_CONTEXT},
        /* A PL/pgSQL variable: not resolved here (a learned rule does). */
        {{"SELECT * FROM withdraw(7, 5)", NULL, NULL, withdraw_ctx, "accounts"}, 0, "accounts",
         "", "function variable not resolved"},
        /* The statement names another relation than the locked one. */
        {{"UPDATE orders SET state = 'paid' WHERE id = 3", NULL, NULL, NULL, "accounts"}, 0, "",
         "", "statement addresses another relation"},
    };
    size_t i;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ls_rowkey k;
        int got = ls_rowkey_of(&cases[i].ev, &k);
        if (got != cases[i].keyed || strcmp(k.key, cases[i].key) != 0)
            fprintf(stderr, "  case %zu: %s\n", i, cases[i].ev.statement);
        CHECK_INT(got, cases[i].keyed);
        CHECK_STR(k.rel, cases[i].rel);
        CHECK_STR(k.key, cases[i].key);
        CHECK_STR(k.grouped_by, cases[i].grouped_by);
    }
}

static void test_learn(void)
{
    ls_shape_rule r;
    ls_rowkey k;
    char shape[512];

    /* withdraw(7, 5) waited on accounts id=7: the first argument. */
    CHECK_INT(ls_rowkey_learn("SELECT * FROM withdraw(7, 5)", NULL, "accounts", "id=7", &r), 1);
    CHECK_INT(r.arg, 0);
    CHECK_STR(r.col, "id");
    ls_rowkey_shape("SELECT * FROM withdraw(12, 30)", shape, sizeof(shape));
    CHECK_INT(ls_rowkey_apply(&r, shape, "SELECT * FROM withdraw(12, 30)", NULL, &k), 1);
    CHECK_STR(k.key, "id=12");
    CHECK_STR(k.grouped_by, LS_GROUPED_SHAPE);
    /* Bound parameters count as arguments in order. */
    CHECK_INT(ls_rowkey_learn("SELECT withdraw($1, $2)", "$1 = '3', $2 = '8'", "accounts",
                              "id=8", &r), 1);
    CHECK_INT(r.arg, 1);
    ls_rowkey_shape("SELECT withdraw($1, $2)", shape, sizeof(shape));
    CHECK_INT(ls_rowkey_apply(&r, shape, "SELECT withdraw($1, $2)", "$1 = '1', $2 = '2'", &k),
              1);
    CHECK_STR(k.key, "id=2");
    /* Another shape is not covered by the rule. */
    ls_rowkey_shape("SELECT deposit(1, 2)", shape, sizeof(shape));
    CHECK_INT(ls_rowkey_apply(&r, shape, "SELECT deposit(1, 2)", NULL, &k), 0);
    /* Ambiguous: both arguments equal the key's value. */
    CHECK_INT(ls_rowkey_learn("SELECT * FROM withdraw(7, 7)", NULL, "accounts", "id=7", &r), 0);
    /* No argument carries it. */
    CHECK_INT(ls_rowkey_learn("SELECT * FROM withdraw(1, 5)", NULL, "accounts", "id=7", &r), 0);
}

/* An INSERT whose trigger locked a row (samples/trigger-paths, a real
 * PostgreSQL 15 log: the checkout path's wait, keyed by its CONTEXT)
 * teaches every INSERT into payments that sets merchant_id, whatever its
 * text: the import path's literal INSERT of another column order. */
static void test_learn_insert(void)
{
    ls_shape_rule r;
    ls_rowkey k;
    char shape[512];
    static const char imp[] = "INSERT INTO payments (source, amount, merchant_id)"
                              " VALUES ('import', 120, 1) RETURNING 1";

    CHECK_INT(ls_rowkey_learn("INSERT INTO payments (merchant_id, amount) VALUES ($1, $2)"
                              " RETURNING extract(epoch FROM clock_timestamp())",
                              "$1 = '1', $2 = '311'", "merchant_totals", "merchant_id=1", &r),
              1);
    CHECK_INT(r.arg, 0);
    CHECK_STR(r.target, "payments");
    CHECK_STR(r.target_col, "merchant_id");
    ls_rowkey_shape(imp, shape, sizeof(shape));
    CHECK_INT(ls_rowkey_apply(&r, shape, imp, NULL, &k), 1);
    CHECK_STR(k.rel, "merchant_totals");
    CHECK_STR(k.key, "merchant_id=1");
    CHECK_STR(k.grouped_by, LS_GROUPED_SHAPE);
    /* Quoted identifiers (an ORM's) name the same relation and column. */
    ls_rowkey_shape("insert into \"payments\" (\"amount\", \"merchant_id\") values ($1, $2)", shape,
                    sizeof(shape));
    CHECK_INT(ls_rowkey_apply(&r, shape,
                              "insert into \"payments\" (\"amount\", \"merchant_id\") values ($1, $2)",
                              "$1 = '10', $2 = '3'", &k),
              1);
    CHECK_STR(k.key, "merchant_id=3");
    /* An INSERT elsewhere, or an UPDATE of payments: not taught. */
    ls_rowkey_shape("INSERT INTO refunds (merchant_id) VALUES (1)", shape, sizeof(shape));
    CHECK_INT(ls_rowkey_apply(&r, shape, "INSERT INTO refunds (merchant_id) VALUES (1)", NULL, &k),
              0);
    ls_rowkey_shape("UPDATE payments SET amount = 1 WHERE merchant_id = 1", shape, sizeof(shape));
    CHECK_INT(ls_rowkey_apply(&r, shape, "UPDATE payments SET amount = 1 WHERE merchant_id = 1",
                              NULL, &k),
              0);
}

static void test_args(void)
{
    ls_sql_args a;
    CHECK_INT(ls_sql_args_of("INSERT INTO payments(merchant_id, amount) VALUES (7, 'x''y')",
                             NULL, &a), 2);
    CHECK_STR(a.v[0].col, "merchant_id");
    CHECK_STR(a.v[0].value, "7");
    CHECK_STR(a.v[1].col, "amount");
    CHECK_STR(a.v[1].value, "x'y");
    CHECK_INT(ls_sql_args_of("UPDATE t SET a = $1 WHERE id = $2", "$1 = '5', $2 = '6'", &a), 2);
    CHECK_STR(a.v[0].col, "a");
    CHECK_STR(a.v[1].col, "id");
    CHECK_STR(a.v[1].value, "6");
    CHECK_INT(ls_sql_args_of("SELECT f($1)", NULL, &a), 1);
    CHECK_INT(a.v[0].bound, 0);
}

static void test_shared_arg(void)
{
    char key[64];
    /* withdraw(7, 5) waited behind deposit(7, 100): id=7. */
    CHECK_INT(ls_rowkey_shared_arg("SELECT * FROM withdraw(7, 5)", NULL, "SELECT deposit(7, 100)",
                                   NULL, "id", key, sizeof(key)), 1);
    CHECK_STR(key, "id=7");
    /* Bound parameters on both sides. */
    CHECK_INT(ls_rowkey_shared_arg("SELECT withdraw($1, $2)", "$1 = '12', $2 = '1'",
                                   "SELECT deposit($1, $2)", "$1 = '12', $2 = '40'", "id", key,
                                   sizeof(key)), 1);
    CHECK_STR(key, "id=12");
    /* Two shared values: which is the key is unknown. */
    CHECK_INT(ls_rowkey_shared_arg("SELECT f(7, 5)", NULL, "SELECT g(5, 7)", NULL, "id", key,
                                   sizeof(key)), 0);
    /* None shared, unbound parameters, or no column to name. */
    CHECK_INT(ls_rowkey_shared_arg("SELECT f(1, 2)", NULL, "SELECT g(3, 4)", NULL, "id", key,
                                   sizeof(key)), 0);
    CHECK_INT(ls_rowkey_shared_arg("SELECT f($1)", NULL, "SELECT g($1)", NULL, "id", key,
                                   sizeof(key)), 0);
    CHECK_INT(ls_rowkey_shared_arg("SELECT f(7)", NULL, "SELECT g(7)", NULL, NULL, key,
                                   sizeof(key)), 0);
}

/*
 * The row key ingest stores for each statement (ls_rowkey_stmt(), issue 38:
 * tx_keys) is what ls_rowkey_of() gives the transactions pass for the same
 * statement: the text's reference decided once, the value from the
 * statement's parameters. The pgbench statements are those of
 * bench/pgbench_log.sh's log (pgbench's tpcb-like script, -M extended).
 */
static void test_stmt_key(void)
{
    static const struct {
        const char *statement, *params, *prepare;
        int keyed;
        const char *rel, *key;
    } cases[] = {
        /* pgbench -M extended: the key is a bound parameter */
        {"UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2;",
         "$1 = '-4137', $2 = '7'", NULL, 1, "pgbench_tellers", "tid=7"},
        {"UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2;",
         "$1 = '12', $2 = '1'", NULL, 1, "pgbench_branches", "bid=1"},
        /* no key: no WHERE, an INSERT, a SELECT without a locking clause */
        {"UPDATE accounts SET balance = 0", NULL, NULL, 0, "", ""},
        {"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4,"
         " CURRENT_TIMESTAMP);",
         "$1 = '7', $2 = '1', $3 = '5', $4 = '3'", NULL, 0, "", ""},
        {"SELECT abalance FROM pgbench_accounts WHERE aid = $1;", "$1 = '5'", NULL, 0, "", ""},
        {"UPDATE accounts SET balance = 0 WHERE balance > 5", NULL, NULL, 0, "", ""},
        /* $n beyond the parameters logged, or none logged */
        {"UPDATE accounts SET balance = 1 WHERE id = $3", "$1 = '1', $2 = '2'", NULL, 0, "", ""},
        {"UPDATE accounts SET balance = 1 WHERE id = $1", NULL, NULL, 0, "", ""},
        /* $10 is not $1 */
        {"UPDATE t SET a = $1 WHERE id = $10",
         "$1 = 'a', $2 = 'b', $3 = 'c', $4 = 'd', $5 = 'e', $6 = 'f', $7 = 'g', $8 = 'h',"
         " $9 = 'i', $10 = '42'",
         NULL, 1, "t", "id=42"},
        /* literal keys: a number, a quoted string (its quotes taken off) */
        {"UPDATE accounts SET balance = balance - 5 WHERE id = 7", NULL, NULL, 1, "accounts",
         "id=7"},
        {"DELETE FROM sessions WHERE token = 'ab12'", NULL, NULL, 1, "sessions", "token=ab12"},
        {"SELECT * FROM stock WHERE sku = 3 FOR UPDATE", NULL, NULL, 1, "stock", "sku=3"},
        /* quoted identifiers and a schema: the last name component, unquoted */
        {"UPDATE \"Accounts\" SET balance = 1 WHERE \"Id\" = 7", NULL, NULL, 1, "Accounts",
         "Id=7"},
        {"UPDATE public.accounts SET balance = 1 WHERE accounts.id = 8", NULL, NULL, 1,
         "accounts", "id=8"},
        /* a trigger's NEW.col or a variable: no key of its own */
        {"UPDATE accounts SET balance = 1 WHERE id = p_id", NULL, NULL, 0, "", ""},
        /* EXECUTE of a PREPAREd text: the text read, not a reference */
        {"EXECUTE upd(7)", NULL, "PREPARE upd(int) AS UPDATE accounts SET balance = 1 WHERE id = $1",
         1, "accounts", "id=7"},
        {"EXECUTE upd(7)", NULL, "PREPARE upd(int) AS SELECT 1", 0, "", ""},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ls_rowkey_evidence ev = {cases[i].statement, cases[i].params, cases[i].prepare, NULL,
                                 NULL};
        ls_rowkey k, of;
        ls_row_ref ref;
        int has = ls_sql_row_ref(cases[i].statement, &ref);
        int keyed = ls_rowkey_stmt(cases[i].prepare ? cases[i].statement : NULL,
                                   cases[i].prepare || !has ? NULL : &ref, cases[i].params,
                                   cases[i].prepare, &k);
        CHECK_INT(keyed, cases[i].keyed);
        if (keyed) {
            CHECK_STR(k.rel, cases[i].rel);
            CHECK_STR(k.key, cases[i].key);
        }
        /* what the pass decided of the statement before schema 18 */
        CHECK_INT(ls_rowkey_of(&ev, &of), keyed);
        if (keyed) {
            CHECK_STR(of.rel, k.rel);
            CHECK_STR(of.key, k.key);
        }
    }
}

int main(void)
{
    test_shared_arg();
    test_evidence();
    test_learn();
    test_learn_insert();
    test_args();
    test_stmt_key();
    return TEST_REPORT();
}
