/*
 * test_decide_finding.c — decide/finding.c: each finding rule fires
 * exactly at its threshold and not below it, stays silent on empty input,
 * and findings of equal weight keep the order they were found in.
 */
#include <math.h>
#include <string.h>

#include "decide/finding.h"
#include "decide/tolerances.h"
#include "ls_test.h"

/* The smallest step below a threshold the store's microsecond times give. */
#define BELOW 0.001

static void test_call(void)
{
    CHECK_INT(ls_finding_call_fires(LS_FINDING_CALL_MIN_MS), 1);
    CHECK_INT(ls_finding_call_fires(LS_FINDING_CALL_MIN_MS - BELOW), 0);
    CHECK_INT(ls_finding_call_fires(0), 0);
    CHECK_INT(ls_finding_call_fires(50.0), 1); /* the documented 50 ms */
}

/* The call-site template: ids in a URL path become {id}; words, versions
 * and short hex stay; a query is dropped; the output is cut to fit. */
static void check_template(const char *name, const char *want, int replaced)
{
    char out[128];
    CHECK_INT(ls_finding_call_template(name, out, sizeof(out)), replaced);
    CHECK_STR(out, want);
}

static void test_call_template(void)
{
    char small[8];
    check_template("HTTP GET kyc-api /v1/customers/17/status",
                   "HTTP GET kyc-api /v1/customers/{id}/status", 1);
    check_template("HTTP GET kyc-api /v1/customers/4242/status",
                   "HTTP GET kyc-api /v1/customers/{id}/status", 1);
    check_template("GET /orders/123e4567-e89b-12d3-a456-426614174000",
                   "GET /orders/{id}", 1);
    check_template("GET /orders/123e4567-e89b-12d3-a456-42661417400", /* 35: no UUID */
                   "GET /orders/123e4567-e89b-12d3-a456-42661417400", 0);
    check_template("GET /blobs/5f2b9c1e", "GET /blobs/{id}", 1); /* 8 hex, digits */
    check_template("GET /blobs/5f2b9c1", "GET /blobs/5f2b9c1", 0); /* 7: a word */
    check_template("GET /blobs/deadbeef", "GET /blobs/deadbeef", 0); /* no digit */
    check_template("GET /v1/status", "GET /v1/status", 0);
    check_template("GET /a/1/b/2?x=3&y=4 tail", "GET /a/{id}/b/{id} tail", 2);
    check_template("GET http://127.0.0.1:8080/charge/9#top", "GET http://127.0.0.1:8080/charge/{id}",
                   1);
    check_template("POST", "POST", 0);
    check_template("HTTP POST payments-api /charge", "HTTP POST payments-api /charge", 0);
    check_template("rate 50/100?", "rate 50/{id}", 1); /* a slash makes a path */
    check_template("", "", 0);
    CHECK_INT(ls_finding_call_template("GET /a/12345", small, sizeof(small)), 1);
    CHECK_STR(small, "GET /a/"); /* cut to 7 bytes and terminated */
}

static void test_idle(void)
{
    ls_idle_heads p;
    /* Per hold: both floors, each exactly, count; a hair below either,
     * or unknown, does not. */
    CHECK_INT(ls_finding_idle_hold_counts(LS_FINDING_IDLE_MIN_WAITER_MS,
                                          LS_FINDING_IDLE_MIN_UNEXPLAINED_MS), 1);
    CHECK_INT(ls_finding_idle_hold_counts(100.0, 50.0), 1); /* the documented floors */
    CHECK_INT(ls_finding_idle_hold_counts(LS_FINDING_IDLE_MIN_WAITER_MS - BELOW, 1000), 0);
    CHECK_INT(ls_finding_idle_hold_counts(1000, LS_FINDING_IDLE_MIN_UNEXPLAINED_MS - BELOW), 0);
    CHECK_INT(ls_finding_idle_hold_counts(NAN, 1000), 0);
    CHECK_INT(ls_finding_idle_hold_counts(1000, NAN), 0);

    /* A path: empty, then holds added; only those that count are summed. */
    ls_finding_idle_start(&p);
    CHECK_INT(p.holds, 0);
    CHECK_INT(ls_finding_count_fires(p.holds), 0);
    CHECK(isnan(p.max_hold_ms));
    CHECK_INT(ls_finding_idle_add(&p, 99.999, 500, 900), 0);
    CHECK_INT(p.holds, 0);
    CHECK(isnan(p.max_hold_ms)); /* a hold that did not count is not the longest */
    CHECK_INT(ls_finding_idle_add(&p, 100, 50, 300), 1);
    CHECK_INT(ls_finding_idle_add(&p, 400, 60, NAN), 1); /* its end unknown */
    CHECK_INT(ls_finding_idle_add(&p, 200, 70, 250), 1);
    CHECK_INT(p.holds, 3);
    CHECK(p.waiter_ms == 700);
    CHECK(p.unexplained_ms == 180);
    CHECK(p.max_hold_ms == 300);
    CHECK_INT(ls_finding_count_fires(p.holds), 1);
    /* Only holds of unknown length: no longest. */
    ls_finding_idle_start(&p);
    CHECK_INT(ls_finding_idle_add(&p, 100, 50, NAN), 1);
    CHECK(isnan(p.max_hold_ms));
}

static void test_count(void)
{
    CHECK_INT(ls_finding_count_fires(0), 0); /* no deadlock: no finding */
    CHECK_INT(ls_finding_count_fires(1), 1);
    CHECK_INT(ls_finding_count_fires(-1), 0);
}

/* lock_queue_behind_ddl: something queued, behind a DDL-strength mode. */
static void test_queue(void)
{
    CHECK_INT(ls_finding_queue_fires("AccessExclusiveLock", 1), 1); /* ALTER TABLE */
    CHECK_INT(ls_finding_queue_fires("ShareLock", 3), 1);           /* CREATE INDEX */
    CHECK_INT(ls_finding_queue_fires("ShareUpdateExclusiveLock", 1), 1); /* the floor */
    CHECK_INT(ls_finding_queue_fires("ExclusiveLock", 2), 1);
    CHECK_INT(ls_finding_queue_fires("AccessExclusiveLock", 0), 0); /* nothing queued */
    CHECK_INT(ls_finding_queue_fires("RowExclusiveLock", 3), 0);    /* an UPDATE at the head */
    CHECK_INT(ls_finding_queue_fires("RowShareLock", 3), 0);        /* SELECT ... FOR UPDATE */
    CHECK_INT(ls_finding_queue_fires("AccessShareLock", 3), 0);     /* a SELECT */
    CHECK_INT(ls_finding_queue_fires(NULL, 3), 0);                  /* no mode logged */
    CHECK_INT(ls_finding_queue_fires("ExclusiveLock on", 3), 0);    /* not a mode's name */
}

/* inconsistent_lock_order: a pair of opposite orders is named from its
 * first deadlock, never without one (two paths writing two relations in
 * opposite orders with no deadlock between them). */
static void test_lock_order(void)
{
    CHECK_INT(ls_finding_lock_order_fires(LS_FINDING_ORDER_MIN_DEADLOCKS), 1);
    CHECK_INT(ls_finding_lock_order_fires(LS_FINDING_ORDER_MIN_DEADLOCKS - 1), 0);
    CHECK_INT(ls_finding_lock_order_fires(1), 1); /* the documented one deadlock */
    CHECK_INT(ls_finding_lock_order_fires(0), 0);
    CHECK_INT(ls_finding_lock_order_fires(-1), 0);
    CHECK_INT(ls_finding_lock_order_fires(7), 1);
}

/* inconsistent_lock_order from a deadlock's DETAIL alone: every process
 * waits for a row lock running the one statement, which locks rows that
 * exist; the statements are samples/blind-rb's and blind-otel's DETAILs. */
static void test_detail_cycle(void)
{
    static const char rb[] = "SELECT \"accounts\".* FROM \"accounts\" WHERE \"accounts\".\"id\""
                             " = $1 LIMIT $2 FOR UPDATE";
    static const char otel[] = "update \"wallets\" set \"balance\" = \"balance\" - $1 where \"id\""
                               " = $2 returning 1";
    static const char pl[] = "SELECT balance FROM accounts WHERE id = $1 FOR UPDATE";
    CHECK_INT(ls_finding_detail_cycle(3, 3, 3, rb), 1); /* blind-rb's first */
    CHECK_INT(ls_finding_detail_cycle(5, 5, 5, rb), 1);
    CHECK_INT(ls_finding_detail_cycle(2, 2, 2, otel), 1);
    CHECK_INT(ls_finding_detail_cycle(2, 2, 2, "DELETE FROM t WHERE id = $1"), 1);
    CHECK_INT(ls_finding_detail_cycle(1, 1, 1, rb), 0);     /* no cycle of one */
    CHECK_INT(ls_finding_detail_cycle(0, 0, 0, rb), 0);
    CHECK_INT(ls_finding_detail_cycle(4, 4, 3, otel), 0);   /* another statement in it */
    CHECK_INT(ls_finding_detail_cycle(3, 2, 3, rb), 0);     /* a relation or object lock */
    CHECK_INT(ls_finding_detail_cycle(2, 2, 2, NULL), 0);   /* no statement */
    CHECK_INT(ls_finding_detail_cycle(2, 2, 2, "INSERT INTO orders VALUES ($1)"), 0);
    CHECK_INT(ls_finding_detail_cycle(2, 2, 2, "SELECT * FROM t WHERE id = 1"), 0); /* no lock */
    CHECK_INT(ls_finding_detail_cycle(2, 2, 2, "LOCK TABLE t"), 0);
    /* samples/blind-pl (DBD::Pg, log_statement = 'none': no transaction is
     * known): each DETAIL's two processes wait for a transaction lock
     * running this one statement (postgresql.log lines 153-154) */
    CHECK_INT(ls_finding_detail_cycle(2, 2, 2, pl), 1);
    CHECK_INT(ls_finding_detail_cycle(2, 1, 2, pl), 0);     /* one edge not a row lock */
    CHECK_INT(ls_finding_detail_cycle(2, 2, 1, pl), 0);     /* the other ran another */
    CHECK_INT(ls_finding_detail_cycle(2, 2, 2, "SELECT balance FROM accounts WHERE id = $1"),
              0); /* the same read without FOR UPDATE locks no row */
    CHECK_INT(ls_finding_locks_rows("  /* c */ select 1 from t for share"), 1);
    CHECK_INT(ls_finding_locks_rows("WITH x AS (SELECT 1) UPDATE t SET a = 1"), 0);
    CHECK_INT(ls_finding_locks_rows("MERGE INTO t USING s ON true WHEN MATCHED THEN DELETE"), 0);
}

/* One statement in a DETAIL cycle by its text or its shape: Sequelize
 * writes the values into the text (samples/blind-zk's two DETAILs, lines
 * 1497-1500 of its postgresql.log). */
static void test_same_stmt(void)
{
    static const char zk4[] = "SELECT \"id\", \"balance\" FROM \"accounts\" AS \"Account\""
                              " WHERE \"Account\".\"id\" = 4 FOR UPDATE;";
    static const char zk2[] = "SELECT \"id\", \"balance\" FROM \"accounts\" AS \"Account\""
                              " WHERE \"Account\".\"id\" = 2 FOR UPDATE;";
    char a[LS_FINDING_SHAPE_MAX + 64], b[LS_FINDING_SHAPE_MAX + 64];
    size_t n;

    CHECK_INT(ls_finding_same_stmt(zk4, zk4), 1);
    CHECK_INT(ls_finding_same_stmt(zk4, zk2), 1); /* blind-zk: values in the text */
    CHECK_INT(ls_finding_same_stmt("UPDATE t SET a = 'x' WHERE id = 7",
                                   "update  t set a = 'y''s' where id = $1"), 1);
    CHECK_INT(ls_finding_same_stmt(zk4, "SELECT \"id\", \"balance\" FROM \"accounts\" AS"
                                        " \"Account\" WHERE \"Account\".\"id\" = 4 FOR SHARE;"), 0);
    CHECK_INT(ls_finding_same_stmt("UPDATE t SET a = 1 WHERE id = 1",
                                   "UPDATE u SET a = 1 WHERE id = 1"), 0); /* another relation */
    CHECK_INT(ls_finding_same_stmt("UPDATE t SET a = 1 WHERE id = 1",
                                   "UPDATE t SET b = 1 WHERE id = 1"), 0); /* another column */
    CHECK_INT(ls_finding_same_stmt(zk4, NULL), 0);
    CHECK_INT(ls_finding_same_stmt(NULL, zk4), 0);
    CHECK_INT(ls_finding_same_stmt(NULL, NULL), 0);
    /* a shape of LS_FINDING_SHAPE_MAX bytes or more is cut: two that differ
     * past it are not read as one; the same text still is */
    n = LS_FINDING_SHAPE_MAX;
    memset(a, 'x', sizeof(a));
    memcpy(a, "UPDATE t SET ", 13);
    memcpy(b, a, sizeof(b));
    memcpy(a + n + 20, " = 1", 4);
    memcpy(b + n + 20, " = 2", 4);
    a[n + 24] = b[n + 24] = '\0';
    CHECK_INT(ls_finding_same_stmt(a, b), 0);
    CHECK_INT(ls_finding_same_stmt(a, a), 1);
    a[n - 40] = b[n - 40] = '\0'; /* well within: the same shape */
    memcpy(a + n - 44, " = 1", 4);
    memcpy(b + n - 44, " = 2", 4);
    CHECK_INT(ls_finding_same_stmt(a, b), 1);
    /* with it, a DETAIL cycle of those two statements is one statement's */
    CHECK_INT(ls_finding_detail_cycle(2, 2, 1 + ls_finding_same_stmt(zk4, zk2), zk4), 1);
    CHECK_INT(ls_finding_detail_cycle(2, 2, 1 + ls_finding_same_stmt(zk4, "INSERT INTO accounts"
                                                                          " VALUES (4)"), zk4), 0);
}

static void test_counter(void)
{
    CHECK_INT(ls_finding_counter_fires(LS_FINDING_ROW_MIN_WAITS), 1);
    CHECK_INT(ls_finding_counter_fires(LS_FINDING_ROW_MIN_WAITS - 1), 0);
    CHECK_INT(ls_finding_counter_fires(0), 0);
    CHECK_INT(ls_finding_counter_fires(3), 1); /* the documented 3 waits */
    CHECK_INT(ls_finding_counter_fires(2), 0);
}

static void test_increment(void)
{
    CHECK_INT(ls_finding_is_increment("UPDATE accounts SET balance = balance + 1 WHERE id = 1"), 1);
    CHECK_INT(ls_finding_is_increment("update c set n=n+1"), 1);
    CHECK_INT(ls_finding_is_increment("UPDATE t SET a = 1, n = n + $1 WHERE id = $2"), 1);
    CHECK_INT(ls_finding_is_increment("UPDATE t SET \"N\" = \"N\" + ? RETURNING n"), 1);
    /* A decrement, or no SET: not an increment. */
    CHECK_INT(ls_finding_is_increment("UPDATE inventory SET qty = qty - 1 WHERE id = 1"), 0);
    CHECK_INT(ls_finding_is_increment("SELECT 1 + 1"), 0);
    /* A '+' outside the SET list's expressions does not count: before
     * the '=', in the WHERE, in a quoted literal, "set" inside a word. */
    CHECK_INT(ls_finding_is_increment("SELECT a + b = c FROM settings"), 0);
    CHECK_INT(ls_finding_is_increment("UPDATE t SET a = 1 WHERE id = n + 1"), 0);
    CHECK_INT(ls_finding_is_increment("UPDATE t SET a = 'x + y' WHERE id = 1"), 0);
    CHECK_INT(ls_finding_is_increment("UPDATE assets SET a = 1 WHERE b = c + 1"), 0);
    CHECK_INT(ls_finding_is_increment("UPDATE c S ET n = n + 1"), 0);
    /* An ORM's row version bumped beside the columns it sets is no
     * counter (TypeORM's update of samples/blind-ts, shaped); a counter
     * beside it still is. */
    CHECK_INT(ls_finding_is_increment(
                  "UPDATE \"seats\" SET \"holder\" = ?, \"version\" = \"version\" + ? "
                  "WHERE \"id\" IN (?)"),
              0);
    CHECK_INT(ls_finding_is_increment("UPDATE t SET lock_version = COALESCE(lock_version, 0) + 1, "
                                      "name = ? WHERE id = ?"),
              0);
    CHECK_INT(ls_finding_is_increment("UPDATE t SET version = version + 1, hits = hits + 1"), 1);
    CHECK_INT(ls_finding_is_increment("UPDATE t SET t.versions = t.versions + 1"), 1);
    /* A '+' inside a call of the expression counts; a comma inside one
     * does not end the assignment. */
    CHECK_INT(ls_finding_is_increment("UPDATE t SET n = greatest(n, 0) + 1"), 1);
    CHECK_INT(ls_finding_is_increment("UPDATE t SET n = coalesce(n + 1, 0), a = 2"), 1);
    CHECK_INT(ls_finding_is_increment(""), 0);
    /* Cut short: "set =" with no '+'. */
    CHECK_INT(ls_finding_is_increment("update t set n ="), 0);
}

static void test_hidden(void)
{
    /* At the threshold, nothing logged: fires; just below: silent. */
    CHECK_INT(ls_finding_hidden_fires(LS_FINDING_HIDDEN_MIN_MS, 0), 1);
    CHECK_INT(ls_finding_hidden_fires(LS_FINDING_HIDDEN_MIN_MS - BELOW, 0), 0);
    CHECK_INT(ls_finding_hidden_fires(200.0, 0), 1);
    /* Hidden equal to logged: fires (no less); logged a hair more: silent. */
    CHECK_INT(ls_finding_hidden_fires(500, 500), 1);
    CHECK_INT(ls_finding_hidden_fires(500, 500 + BELOW), 0);
    CHECK_INT(ls_finding_hidden_fires(0, 0), 0);
}

static void test_serial(void)
{
    /* Capacity 10/s; 9 transactions in 1 s is 90 %: at capacity. */
    CHECK_INT(ls_finding_serial_fires(LS_FINDING_ROW_MIN_WAITS, 9, 1.0, 10.0), 1);
    CHECK_INT(ls_finding_serial_fires(3, 9, 1.0, 10.0), 1);
    /* 8 in 1 s is 80 %: below. */
    CHECK_INT(ls_finding_serial_fires(3, 8, 1.0, 10.0), 0);
    /* Just below 90 %: 9 in a hair more than 1 s. */
    CHECK_INT(ls_finding_serial_fires(3, 9, 1.0 + 1e-6, 10.0), 0);
    /* One wait too few. */
    CHECK_INT(ls_finding_serial_fires(LS_FINDING_ROW_MIN_WAITS - 1, 9, 1.0, 10.0), 0);
    /* Capacity unknown. */
    CHECK_INT(ls_finding_serial_fires(3, 9, 1.0, 0), 0);
    /* No transaction wanted it. */
    CHECK_INT(ls_finding_serial_fires(3, 0, 1.0, 10.0), 0);
    /* A row whose events are all at one time: the span floor, not a
     * division by zero. */
    CHECK(ls_finding_demand_per_s(2, 0) == 2 / LS_FINDING_SPAN_FLOOR_S);
    CHECK(ls_finding_demand_per_s(2, LS_FINDING_SPAN_FLOOR_S / 2) == 2 / LS_FINDING_SPAN_FLOOR_S);
    CHECK(ls_finding_demand_per_s(3, 2.0) == 1.5);
    CHECK_INT(ls_finding_serial_fires(3, 1, 0, 900.0), 1);
    CHECK_INT(ls_finding_serial_fires(3, 1, 0, 1200.0), 0);
    /* A quiet row (no logged wait; its statements queued below
     * deadlock_timeout are its waits and their span its window, issue
     * 34): samples/blind-php's warehouses id=1, 163 statements queued,
     * 220 holds and 61 lock-timed-out transactions in 28.42 s at a mean
     * hold of 109 ms (9.167/s): 108 %, at capacity; with the holds alone
     * (84 %) it would not be. Its id=4: 53 in 19.0 s at 192 ms: 54 %. */
    CHECK_INT(ls_finding_serial_fires(163, 281, 28.42, 9.167), 1);
    CHECK_INT(ls_finding_serial_fires(163, 220, 28.42, 9.167), 0);
    CHECK_INT(ls_finding_serial_fires(18, 53, 19.0, 5.2), 0);
}

static void test_slot(void)
{
    double kept[3] = {300, 200, 100};
    /* Empty: the first goes first; a limit of 0 keeps nothing. */
    CHECK_INT(ls_finding_slot(kept, 0, 3, 5), 0);
    CHECK_INT(ls_finding_slot(kept, 0, 0, 5), 0);
    /* Heavier than all: first. Between: its place. */
    CHECK_INT(ls_finding_slot(kept, 3, 3, 400), 0);
    CHECK_INT(ls_finding_slot(kept, 3, 3, 250), 1);
    /* A tie goes after the one found before it. */
    CHECK_INT(ls_finding_slot(kept, 3, 3, 200), 2);
    CHECK_INT(ls_finding_slot(kept, 2, 3, 200), 2);
    /* Full: a tie with the last, or lighter, is not kept. */
    CHECK_INT(ls_finding_slot(kept, 3, 3, 100), 3);
    CHECK_INT(ls_finding_slot(kept, 3, 3, 50), 3);
    /* Not full: lighter goes at the end. */
    CHECK_INT(ls_finding_slot(kept, 2, 3, 50), 2);
}

static void test_cmp(void)
{
    CHECK(ls_finding_cmp(10, 5, 9, 0) < 0);  /* heavier first, whatever seq */
    CHECK(ls_finding_cmp(9, 0, 10, 5) > 0);
    CHECK(ls_finding_cmp(10, 1, 10, 2) < 0); /* tie: found first, first */
    CHECK(ls_finding_cmp(10, 2, 10, 1) > 0);
    CHECK_INT(ls_finding_cmp(10, 2, 10, 2), 0);
    /* Equal to the microsecond (the same waits summed in another order,
     * one ulp apart): a tie, in rule order. A microsecond apart: not. */
    CHECK(ls_finding_cmp(11253.416, 8, 11253.416000000001, 1) > 0);
    CHECK(ls_finding_cmp(11253.416000000001, 1, 11253.416, 8) < 0);
    CHECK(ls_finding_cmp(11253.415, 1, 11253.416, 8) > 0);
    /* Less than half a microsecond apart: the same to the microsecond,
     * so rule order, even against the heavier. */
    CHECK(ls_finding_cmp(0.0004, 8, 0.0, 1) > 0);
    CHECK(ls_finding_cmp(1.0004, 8, 1.0, 1) > 0);
    CHECK(ls_finding_cmp(1.0006, 8, 1.0, 1) < 0); /* 1001 us against 1000 */
}

/* blind-pool's event_totals rows: "event_id=1" keyed, "ctid (0,20)" a
 * row version the logical rows pass could not key (a trigger's
 * NEW.event_id with no parameters logged), as the report's hot_rows name
 * them; a lock target is not a ctid. */
static void test_row_keyed(void)
{
    CHECK_INT(ls_finding_row_keyed("event_id=1"), 1);
    CHECK_INT(ls_finding_row_keyed("ctid (0,20)"), 0);
    CHECK_INT(ls_finding_row_keyed("ctid ?"), 0);
    CHECK_INT(ls_finding_row_keyed("ctid=7"), 1); /* a column named ctid: a key */
    CHECK_INT(ls_finding_row_keyed("transaction 1069"), 1);
    CHECK_INT(ls_finding_row_keyed(""), 1);
    CHECK_INT(ls_finding_row_keyed(NULL), 0);
}

int main(void)
{
    test_row_keyed();
    test_call();
    test_call_template();
    test_idle();
    test_count();
    test_queue();
    test_lock_order();
    test_detail_cycle();
    test_same_stmt();
    test_counter();
    test_increment();
    test_hidden();
    test_serial();
    test_slot();
    test_cmp();
    return TEST_REPORT();
}
