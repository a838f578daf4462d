/*
 * test_decide_span.c — decide/span.c: which span anchors a transaction's
 * hold breakdown, which two database spans are one statement (an ORM's
 * and its driver's), and when one wraps the other, at the boundaries.
 * The texts are those of samples/blind-otel's traces (knex 3 over pg 8
 * under the OpenTelemetry JS auto-instrumentation).
 */
#include "decide/span.h"
#include "decide/tolerances.h"
#include "ls_span.h"
#include "ls_test.h"

static void test_anchor(void)
{
    /* the Express "request handler" (internal) and the request (server) */
    CHECK_INT(ls_span_is_anchor(LS_SPAN_INTERNAL, 0), 1);
    CHECK_INT(ls_span_is_anchor(LS_SPAN_SERVER, 0), 1);
    CHECK_INT(ls_span_is_anchor(LS_SPAN_UNSPECIFIED, 0), 1);
    CHECK_INT(ls_span_is_anchor(LS_SPAN_CONSUMER, 0), 1);
    /* a database span of any kind: pg.query (client), knex's, pg.connect */
    CHECK_INT(ls_span_is_anchor(LS_SPAN_CLIENT, 1), 0);
    CHECK_INT(ls_span_is_anchor(LS_SPAN_INTERNAL, 1), 0);
    /* the partner's HTTP POST (client): a pg.query leaked under it */
    CHECK_INT(ls_span_is_anchor(LS_SPAN_CLIENT, 0), 0);
}

static void test_same_statement(void)
{
    static const char knex[] =
        "update \"inventory\" set \"stock\" = \"stock\" - ? where \"sku\" = ? returning "
        "extract(epoch FROM clock_timestamp())::float8 * 1000 AS locked_at";
    static const char pg[] =
        "update \"inventory\" set \"stock\" = \"stock\" - $1 where \"sku\" = $2 returning "
        "extract(epoch FROM clock_timestamp())::float8 * 1000 AS locked_at";
    CHECK_INT(ls_span_same_statement(knex, pg), 1);
    CHECK_INT(ls_span_same_statement(pg, knex), 1);
    CHECK_INT(ls_span_same_statement(pg, pg), 1);
    CHECK_INT(ls_span_same_statement("BEGIN;", "BEGIN;"), 1);
    /* multi-digit parameters, and a placeholder at the very end */
    CHECK_INT(ls_span_same_statement("select ? limit ?", "select $10 limit $2"), 1);
    /* the other statement of the same table: stock + against stock - */
    CHECK_INT(ls_span_same_statement("update t set n = n + ?", "update t set n = n - $1"), 0);
    /* one text longer than the other */
    CHECK_INT(ls_span_same_statement("select ?", "select $1, $2"), 0);
    CHECK_INT(ls_span_same_statement("select ?, ?", "select $1"), 0);
    /* a "$" that is no parameter is text; "?" is no "$" */
    CHECK_INT(ls_span_same_statement("select ?", "select $x"), 0);
    CHECK_INT(ls_span_same_statement("select ?", "select ?"), 1);
    CHECK_INT(ls_span_same_statement("select $1", "select $2"), 0);
    CHECK_INT(ls_span_same_statement("select ?", "select $"), 0);
    /* named placeholders (TypeORM's ":orm_param_0", samples/blind-ts's
     * "TypeORM select page_counters" around its pg.query child) against
     * "$n" and "?"; a cast's "::" is no placeholder */
    CHECK_INT(ls_span_same_statement(
                  "SELECT \"PageCounter\".\"slug\" AS \"PageCounter_slug\" FROM "
                  "\"page_counters\" \"PageCounter\" WHERE ((\"PageCounter\".\"slug\" = "
                  ":orm_param_0)) LIMIT 1",
                  "SELECT \"PageCounter\".\"slug\" AS \"PageCounter_slug\" FROM "
                  "\"page_counters\" \"PageCounter\" WHERE ((\"PageCounter\".\"slug\" = "
                  "$1)) LIMIT 1"),
              1);
    CHECK_INT(ls_span_same_statement("select :id, :n", "select ?, ?"), 1);
    CHECK_INT(ls_span_same_statement("select :id", "select :id"), 1);
    CHECK_INT(ls_span_same_statement("select :id", "select :other"), 0); /* same style */
    CHECK_INT(ls_span_same_statement("select x::float8", "select x$1"), 0);
    CHECK_INT(ls_span_same_statement("select x::float8", "select x::float8"), 1);
    CHECK_INT(ls_span_same_statement("select :1", "select $1"), 0); /* ":1" is no name */
    /* case counts: the ORM passes its text on unchanged */
    CHECK_INT(ls_span_same_statement("SELECT 1", "select 1"), 0);
    /* absent or empty */
    CHECK_INT(ls_span_same_statement(NULL, pg), 0);
    CHECK_INT(ls_span_same_statement(pg, NULL), 0);
    CHECK_INT(ls_span_same_statement("", ""), 0);
}

/* samples/blind-ts: the npm TypeORM instrumentation's increment span
 * around its one pg.query child (UPDATE "page_counters" SET "hits" =
 * "hits" + 1 ...) records the call as JSON, not its SQL */
static void test_orm_call(void)
{
    static const char call[] = "{\"entityClass\":\"PageCounter\",\"conditions\":{\"slug\":"
                               "\"home\"},\"propertyPath\":\"hits\",\"value\":1}";
    CHECK_INT(ls_span_orm_call_of(call, 1), 1);
    CHECK_INT(ls_span_orm_call_of(" [1, 2]", 1), 1);
    CHECK_INT(ls_span_orm_call_of(call, 2), 0); /* two statements: which one? */
    CHECK_INT(ls_span_orm_call_of(call, 0), 0); /* no child: a statement of its own */
    /* SQL is one statement only by its text (ls_span_same_statement) */
    CHECK_INT(ls_span_orm_call_of("UPDATE t SET n = n + 1", 1), 0);
    CHECK_INT(ls_span_orm_call_of(NULL, 1), 0);
    CHECK_INT(ls_span_orm_call_of("", 1), 0);
}

/* samples/blind-ts, trace f95bdfe4... (/pages/hit, truth pid 30769): its
 * START, UPDATE, SELECT and COMMIT spans each have logged statements of
 * several sessions inside them; only 30769 fits all four (30768 ran the
 * text 7 ms before it, outside the 40.8 ms UPDATE span's wait) */
static void test_trace_pid(void)
{
    const ls_pid_fit hit[] = {
        {30768, 2, 0}, {30769, 4, 0}, {30771, 3, 0}, {30774, 1, 0}, {30779, 1, 0}};
    const ls_pid_fit two[] = {{30768, 4, 0}, {30769, 4, 0}};
    const int64_t d = LS_SPAN_FIT_SLACK_US;
    /* samples/blind-ts, trace 0228ce...: 30768 and 30778 fit all four of
     * its spans, 30778's statements inside them within 1.083 ms, 30768's
     * up to 4.848 ms outside (its UPDATE started before the client sent
     * it); the truth's pid is 30778 */
    const ls_pid_fit near[] = {{30768, 4, 4848}, {30778, 4, 1083}};
    /* trace 57a7f5...: 30691 (the truth's) 0.527 ms, 30778 0 ms: both
     * inside, no evidence which */
    const ls_pid_fit both_in[] = {{30691, 4, 527}, {30778, 4, 0}};
    const ls_pid_fit edge[] = {{1, 4, d}, {2, 4, d + 1}, {3, 3, 0}};
    const ls_pid_fit out[] = {{1, 4, d + 1}, {2, 4, d + 1}};
    CHECK_INT((int)ls_span_trace_pid(hit, 5, 4), 30769);
    CHECK_INT((int)ls_span_trace_pid(two, 2, 4), 0); /* two fit all: no evidence */
    CHECK_INT((int)ls_span_trace_pid(near, 2, 4), 30778);
    CHECK_INT((int)ls_span_trace_pid(both_in, 2, 4), 0);
    /* at the slack is inside, over it outside; one that fits only some
     * spans is no rival however close */
    CHECK_INT((int)ls_span_trace_pid(edge, 3, 4), 1);
    CHECK_INT((int)ls_span_trace_pid(out, 2, 4), 0); /* none inside */
    /* the only one that fits all is the trace's, however far outside */
    CHECK_INT((int)ls_span_trace_pid(out, 1, 4), 1);
    /* samples/app, trace d15ec3a7...: its one such span, a COMMIT, fits
     * 16810 (1.12 ms outside) and 16813 (3.12 ms); its own statement,
     * 16811's, has a sqlcommenter comment (another text): one span's
     * timing says nothing, with two spans it would */
    {
        const ls_pid_fit one[] = {{16810, 1, 1120}, {16813, 1, 3120}};
        const ls_pid_fit two_spans[] = {{16810, 2, 1120}, {16813, 2, 3120}};
        CHECK_INT((int)ls_span_trace_pid(one, 2, 1), 0);
        CHECK_INT((int)ls_span_trace_pid(two_spans, 2, 2), 16810);
    }
    CHECK_INT((int)ls_span_trace_pid(hit, 5, 5), 0); /* none fits all */
    CHECK_INT((int)ls_span_trace_pid(hit, 0, 4), 0);
    CHECK_INT((int)ls_span_trace_pid(hit, 5, 0), 0);
}

static void test_wraps(void)
{
    const int64_t s = 1000000, e = 2000000, d = LS_SPAN_NEST_SLACK_US;
    CHECK_INT(ls_span_wraps(s, e, s, e), 1);         /* equal: both ways */
    CHECK_INT(ls_span_wraps(s, e, s + 10, e - 10), 1);
    CHECK_INT(ls_span_wraps(s, e, s - d, e + d), 1); /* exactly the slack */
    CHECK_INT(ls_span_wraps(s, e, s - d - 1, e), 0);
    CHECK_INT(ls_span_wraps(s, e, s, e + d + 1), 0);
    CHECK_INT(ls_span_wraps(s + 10, e - 10, s, e), 1); /* inner wider by under the slack */
    CHECK_INT(ls_span_wraps(s, e, e + 5 * d, e + 6 * d), 0); /* after it */
    CHECK_INT(ls_span_wraps(s, e, s + 10, s), 0);            /* an inner that ends first */
}

static void test_orm_of(void)
{
    const int64_t s = 1000000, e = 2000000, d = LS_SPAN_NEST_SLACK_US;
    /* samples/blind-otel, trace d1d41baa...: knex's "first shop.products"
     * starts at ...549.000 and ends at ...567.476, its child pg.query at
     * ...553.000 and ...571.156 (after its parent): the parent is the ORM's */
    ls_span_pair p = {1, 0, 549000, 567476, 553000, 571156, 1};
    CHECK_INT(ls_span_is_orm_of(&p), 1);
    p.a_later = 0;
    CHECK_INT(ls_span_is_orm_of(&p), 1);
    /* seen from the child: not the ORM's, however the times nest */
    {
        ls_span_pair c = {0, 1, s, e, s + 10, e - 10, 1};
        CHECK_INT(ls_span_is_orm_of(&c), 0);
    }
    /* neither the other's parent (pg's span under BEGIN, beside knex's):
     * the one that wraps the other, by the slack exactly */
    {
        ls_span_pair w = {0, 0, s, e, s + d + 1, e - d - 1, 0};
        ls_span_pair v = {0, 0, s + d + 1, e - d - 1, s, e, 1};
        ls_span_pair x = {0, 0, s, e, s - d - 1, e, 1};
        CHECK_INT(ls_span_is_orm_of(&w), 1);
        CHECK_INT(ls_span_is_orm_of(&v), 0); /* the inner one, even if later */
        CHECK_INT(ls_span_is_orm_of(&x), 0); /* starts over the slack before it */
    }
    /* the same interval (to the slack): the later one, and only it */
    {
        ls_span_pair a = {0, 0, s, e, s + d, e - d, 1};
        ls_span_pair b = {0, 0, s + d, e - d, s, e, 0};
        CHECK_INT(ls_span_is_orm_of(&a), 1);
        CHECK_INT(ls_span_is_orm_of(&b), 0);
    }
    /* each the other's parent (a broken export): neither */
    {
        ls_span_pair l = {1, 1, s, e, s, e, 1};
        CHECK_INT(ls_span_is_orm_of(&l), 0);
    }
}

int main(void)
{
    test_orm_of();
    test_anchor();
    test_same_statement();
    test_orm_call();
    test_trace_pid();
    test_wraps();
    return TEST_REPORT();
}
