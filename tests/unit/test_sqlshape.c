/*
 * test_sqlshape.c — statement kind, shape and row key. The statements are
 * those of samples/ (scenarios.py, as logged by PostgreSQL 15.18) plus the
 * forms PostgreSQL's log shows for other drivers (extended protocol with
 * $n parameters, sqlcommenter comments).
 */
#include <string.h>

#include "ls_sqlshape.h"
#include "ls_test.h"

static void test_kind(void)
{
    static const struct {
        const char *sql;
        ls_sql_kind kind;
    } cases[] = {
        {"BEGIN", LS_SQL_BEGIN},
        {"begin isolation level repeatable read", LS_SQL_BEGIN},
        {"START TRANSACTION", LS_SQL_BEGIN},
        {"COMMIT", LS_SQL_COMMIT},
        {"end", LS_SQL_COMMIT},
        {"ROLLBACK", LS_SQL_ROLLBACK},
        {"ABORT", LS_SQL_ROLLBACK},
        {"ROLLBACK TO SAVEPOINT a", LS_SQL_OTHER},
        {"rollback work", LS_SQL_ROLLBACK},
        {"UPDATE accounts SET balance = balance - 10 WHERE id = 1", LS_SQL_WRITE},
        {"/* app */ DELETE FROM t WHERE id = 2", LS_SQL_WRITE},
        {"SELECT * FROM inventory WHERE id = 7 FOR UPDATE", LS_SQL_WRITE},
        {"SELECT 'for update' FROM inventory", LS_SQL_READ},
        {"SELECT balance FROM accounts WHERE id = 8", LS_SQL_READ},
        {"SET lock_timeout = '400ms'", LS_SQL_OTHER},
    };
    size_t i;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ls_sql_kind k = ls_sql_kind_of(cases[i].sql);
        if (k != cases[i].kind)
            fprintf(stderr, "  kind of \"%s\"\n", cases[i].sql);
        CHECK_INT(k, cases[i].kind);
    }
}

static void test_shape(void)
{
    static const struct {
        const char *sql, *shape;
    } cases[] = {
        {"UPDATE accounts SET balance = balance - 10 WHERE id = 1",
         "update accounts set balance = balance - ? where id = ?"},
        {"update  accounts\n\tset balance=balance+1 where id=2 /*traceparent='00-ab-cd-01'*/",
         "update accounts set balance=balance+? where id=?"},
        {"SELECT * FROM t WHERE name = 'O''Brien' AND x IN (1, 2, 3)",
         "select * from t where name = ? and x in (?)"},
        {"SELECT $1::int, E'a\\'b' -- trailing", "select ?::int, ?"},
        {"INSERT INTO \"Mixed\" VALUES (1.5e3, 'x')", "insert into \"Mixed\" values (?, ?)"},
    };
    size_t i;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ls_buf b = LS_BUF_INIT(0);
        ls_sql_shape(&b, cases[i].sql, 1000);
        CHECK_STR(ls_buf_str(&b), cases[i].shape);
        ls_buf_free(&b);
    }
}

static void test_row_key(void)
{
    static const struct {
        const char *sql, *params, *rel, *key;
    } cases[] = {
        {"UPDATE accounts SET balance = balance + 1 WHERE id = 1", NULL, "accounts", "id=1"},
        {"UPDATE public.\"Accounts\" SET n = n + 1 WHERE \"Id\" = 42", NULL, "Accounts", "Id=42"},
        {"SELECT * FROM inventory WHERE id = 7 FOR UPDATE", NULL, "inventory", "id=7"},
        {"DELETE FROM jobs WHERE queue = 'mail' AND id = 9", NULL, "jobs", "queue=mail"},
        {"UPDATE accounts SET balance = balance - $1 WHERE id = $2", "$1 = '10', $2 = '3'",
         "accounts", "id=3"},
        {"update counters set n = n + 1 where (name = 'daily') and day = '2026-12-02'", NULL,
         "counters", "name=daily"},
        {"UPDATE accounts SET balance = 0", NULL, "", ""},
        {"SELECT * FROM accounts WHERE id = 1", NULL, "", ""},
        {"UPDATE t SET a = 1 WHERE id = $3", "$1 = '1'", "", ""},
        /* a FROM or WHERE inside parentheses is not the statement's own:
         * TypeORM's pessimistic_write of samples/blind-ts (its csvlog's
         * text, shortened), and the same keywords in calls and subqueries */
        {"SELECT \"e\".\"id\" AS \"e_id\", extract(epoch FROM clock_timestamp())::float8 * 1000"
         " AS \"locked_at\" FROM \"events\" \"e\" WHERE \"e\".\"id\" = $1 FOR UPDATE",
         "$1 = '1'", "events", "id=1"},
        {"SELECT substring(name FROM 2), trim(both FROM name) FROM items WHERE id = 4 FOR SHARE",
         NULL, "items", "id=4"},
        {"UPDATE seats SET n = (SELECT count(*) FROM holds WHERE holds.seat = 3) WHERE id = 8",
         NULL, "seats", "id=8"},
        {"SELECT \"from\" FROM \"where\" WHERE id = 5 FOR UPDATE", NULL, "where", "id=5"},
    };
    size_t i;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char rel[64], key[128];
        int found = ls_sql_row_key(cases[i].sql, cases[i].params, rel, sizeof(rel), key,
                                   sizeof(key));
        CHECK_INT(found, cases[i].key[0] != '\0');
        CHECK_STR(rel, cases[i].rel);
        CHECK_STR(key, cases[i].key);
    }
}

static void test_relation(void)
{
    char rel[64];
    CHECK(ls_sql_relation("UPDATE accounts SET a = 1", rel, sizeof(rel)) && !strcmp(rel, "accounts"));
    CHECK(ls_sql_relation("insert into public.orders (id) values (1)", rel, sizeof(rel)) &&
          !strcmp(rel, "orders"));
    CHECK(ls_sql_relation("DELETE FROM \"Jobs\" WHERE id = 1", rel, sizeof(rel)) &&
          !strcmp(rel, "Jobs"));
    CHECK(ls_sql_relation("SELECT * FROM inventory WHERE id = 7 FOR UPDATE", rel, sizeof(rel)) &&
          !strcmp(rel, "inventory"));
    CHECK(ls_sql_relation("LOCK TABLE invoices IN EXCLUSIVE MODE", rel, sizeof(rel)) &&
          !strcmp(rel, "invoices"));
    CHECK(!ls_sql_relation("SELECT * FROM inventory", rel, sizeof(rel)));
}

/* The one table a statement locks as a whole (a relation lock's name):
 * the DDL of samples/ddl-queue, its options, and statements that name
 * several relations or none. */
static void test_table_of(void)
{
    static const struct {
        const char *sql, *rel; /* "" when none */
    } cases[] = {
        {"ALTER TABLE orders ADD COLUMN note text", "orders"},
        {"alter table if exists only public.\"Orders\" add column x int", "Orders"},
        {"CREATE INDEX customers_balance ON customers (balance)", "customers"},
        {"CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS ix ON ONLY s.t USING btree (a)", "t"},
        {"SELECT amount FROM orders WHERE id = 2", "orders"},
        {"SELECT sum(amount) FROM orders", "orders"},
        {"UPDATE customers SET balance = balance - 1 WHERE id = 2", "customers"},
        {"TRUNCATE TABLE jobs", "jobs"},
        {"TRUNCATE a, b", ""},
        {"DROP TABLE IF EXISTS old_jobs", "old_jobs"},
        {"DROP INDEX ix", ""},
        {"VACUUM (VERBOSE) jobs", ""},
        {"VACUUM jobs", "jobs"},
        {"REINDEX TABLE jobs", "jobs"},
        {"SELECT * FROM a JOIN b ON a.id = b.id", ""},
        {"SELECT * FROM a, b", ""},
        {"SELECT * FROM a WHERE id IN (SELECT id FROM b)", ""},
        {"SELECT 1", ""},
        {"CREATE TABLE t (id int)", ""},
        {"COMMIT", ""},
        {"", ""},
    };
    size_t i;
    char rel[64];

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        CHECK_INT(ls_sql_table_of(cases[i].sql, rel, sizeof(rel)), cases[i].rel[0] != '\0');
        CHECK_STR(rel, cases[i].rel);
    }
    CHECK_INT(ls_sql_table_of(NULL, rel, sizeof(rel)), 0);
}

/* The table of a tuple lock's wait: the row-locking SELECT of one table
 * only (the first from samples/blind-dj's log, transfer's wait on relation
 * 16447); UPDATE and DELETE may fire triggers that lock another table. */
static void test_row_lock_table(void)
{
    static const struct {
        const char *sql, *rel; /* "" when none */
    } cases[] = {
        {"SELECT \"accounts\".\"id\", \"accounts\".\"owner\", \"accounts\".\"balance\" FROM "
         "\"accounts\" WHERE \"accounts\".\"id\" = 4 LIMIT 21 FOR UPDATE",
         "accounts"},
        {"select * from public.jobs where id = 1 for no key update skip locked", "jobs"},
        {"SELECT * FROM t WHERE id = 1 FOR SHARE", "t"},
        {"SELECT * FROM a JOIN b ON a.id = b.id FOR UPDATE OF a", ""},
        {"SELECT * FROM t WHERE note = 'for update'", ""},
        {"SELECT amount FROM orders WHERE id = 2", ""},
        {"UPDATE pages SET hits = hits + 1 WHERE id = 1", ""},
        {"DELETE FROM jobs WHERE id = 1", ""},
        {"", ""},
    };
    size_t i;
    char rel[64];

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        CHECK_INT(ls_sql_row_lock_table(cases[i].sql, rel, sizeof(rel)), cases[i].rel[0] != '\0');
        CHECK_STR(rel, cases[i].rel);
    }
    CHECK_INT(ls_sql_row_lock_table(NULL, rel, sizeof(rel)), 0);
}

static void test_shared_lock(void)
{
    /* samples/realistic's FOR SHARE read */
    CHECK_INT(ls_sql_shared_lock("SELECT id, balance FROM accounts WHERE id = $1 FOR SHARE"), 1);
    CHECK_INT(ls_sql_shared_lock("select * from t where id = 1 for  key\n share nowait"), 1);
    CHECK_INT(ls_sql_shared_lock("SELECT * FROM a JOIN b USING (id) FOR SHARE OF a"
                                 " FOR KEY SHARE OF b"),
              1);
    /* any exclusive clause makes it exclusive */
    CHECK_INT(ls_sql_shared_lock("SELECT * FROM a, b FOR SHARE OF a FOR UPDATE OF b"), 0);
    CHECK_INT(ls_sql_shared_lock("SELECT * FROM t WHERE id = 1 FOR NO KEY UPDATE"), 0);
    CHECK_INT(ls_sql_shared_lock("SELECT * FROM t WHERE id = 1 FOR UPDATE"), 0);
    CHECK_INT(ls_sql_shared_lock("UPDATE t SET n = n + 1 WHERE id = 1"), 0);
    CHECK_INT(ls_sql_shared_lock("DELETE FROM t WHERE id = 1"), 0);
    /* in a quote or a comment it locks nothing */
    CHECK_INT(ls_sql_shared_lock("SELECT 'for share' FROM t"), 0);
    CHECK_INT(ls_sql_shared_lock("SELECT \"for share\" FROM t FOR UPDATE"), 0);
    CHECK_INT(ls_sql_shared_lock("SELECT * FROM t FOR UPDATE /* for share */"), 0);
    CHECK_INT(ls_sql_shared_lock("UPDATE t SET note = 'x' -- for share\n WHERE id = 1"), 0);
    /* a word ending in "for" is not FOR */
    CHECK_INT(ls_sql_shared_lock("SELECT * FROM t WHERE waitfor = 1 FOR UPDATE"), 0);
    CHECK_INT(ls_sql_shared_lock(""), 0);
    CHECK_INT(ls_sql_shared_lock(NULL), 0);
}

int main(void)
{
    test_shared_lock();
    test_relation();
    test_table_of();
    test_row_lock_table();
    test_kind();
    test_shape();
    test_row_key();
    return TEST_REPORT();
}
