/*
 * test_decide_spantime.c — decide/spantime.c: a statement of a
 * whole-second log paired with the span that sent it, and its time from
 * the span. Boundary cases: a span starting exactly at the second's edges
 * and the slack's, a statement crossing a second boundary, texts that
 * differ only by a sqlcommenter comment, a span naming another pid or
 * trace.
 */
#include "decide/spantime.h"
#include "ls_test.h"

#define S 1000000 /* one second in µs */
#define MS 1000
#define SLACK (5 * MS)

static ls_seq_item item(int64_t ts, uint64_t text, int64_t pid, uint64_t trace)
{
    ls_seq_item it;
    it.ts = ts;
    it.text = text;
    it.pid = pid;
    it.trace = trace;
    return it;
}

static void test_text_hash(void)
{
    uint64_t a = ls_span_text_hash("UPDATE inventory SET qty = qty - 1 WHERE id = 1");
    CHECK(a != 0);
    CHECK(a == ls_span_text_hash("UPDATE inventory SET qty = qty - 1 WHERE id = 1 /*route='%2Fpay',"
                                 "traceparent='00-aa-bb-01'*/"));
    CHECK(a == ls_span_text_hash("UPDATE inventory SET qty = qty - 1 WHERE id = 1;\n"));
    CHECK(a != ls_span_text_hash("UPDATE inventory SET qty = qty + 1 WHERE id = 1"));
    CHECK(ls_span_text_hash("") != 0);
}

/* The span's start within the logged second, with the slack either side:
 * exactly at each edge is in, one µs beyond is out. */
static void test_window(void)
{
    ls_seq_item st = item(10 * S, 7, 42, 0), sp = item(10 * S, 7, 0, 99);

    CHECK(ls_span_is_stmt(&st, &sp, S, SLACK));
    sp.ts = 10 * S - SLACK;
    CHECK(ls_span_is_stmt(&st, &sp, S, SLACK));
    sp.ts = 10 * S - SLACK - 1;
    CHECK(!ls_span_is_stmt(&st, &sp, S, SLACK));
    sp.ts = 11 * S + SLACK;
    CHECK(ls_span_is_stmt(&st, &sp, S, SLACK));
    sp.ts = 11 * S + SLACK + 1;
    CHECK(!ls_span_is_stmt(&st, &sp, S, SLACK));
    /* another text, another pid, another trace than the comment's */
    sp.ts = 10 * S + 500 * MS;
    sp.text = 8;
    CHECK(!ls_span_is_stmt(&st, &sp, S, SLACK));
    sp.text = 7;
    sp.pid = 43;
    CHECK(!ls_span_is_stmt(&st, &sp, S, SLACK));
    sp.pid = 42;
    CHECK(ls_span_is_stmt(&st, &sp, S, SLACK));
    st.trace = 98;
    CHECK(!ls_span_is_stmt(&st, &sp, S, SLACK));
    st.trace = 99;
    CHECK(ls_span_is_stmt(&st, &sp, S, SLACK));
}

/*
 * A transaction logged BEGIN, UPDATE at second 10 and COMMIT at second 11
 * (its 2 ms hold crossed the boundary): the trace's three spans fit; a
 * trace of BEGIN, UPDATE alone fits too (a prefix of the session's run);
 * spans in another order, or one more span than statements, do not.
 */
static void test_sequence(void)
{
    ls_seq_item st[3] = {item(10 * S, 1, 5, 0), item(10 * S, 2, 5, 0), item(11 * S, 3, 5, 0)};
    ls_seq_item sp[4] = {item(10 * S + 996 * MS, 1, 0, 9), item(10 * S + 998 * MS, 2, 0, 9),
                         item(11 * S + 0 * MS, 3, 0, 9), item(11 * S + 10 * MS, 4, 0, 9)};
    ls_seq_item swapped[2] = {sp[1], sp[0]};

    CHECK(ls_span_seq_fits(st, 3, sp, 3, S, SLACK));
    CHECK(ls_span_seq_fits(st, 3, sp, 2, S, SLACK));
    CHECK(!ls_span_seq_fits(st, 3, sp, 4, S, SLACK));
    CHECK(!ls_span_seq_fits(st, 3, swapped, 2, S, SLACK));
    CHECK(!ls_span_seq_fits(st, 3, sp, 0, S, SLACK));
    /* the COMMIT's span one second early: out */
    sp[2].ts = 10 * S + 999 * MS - SLACK - 1;
    CHECK(!ls_span_seq_fits(st, 3, sp, 3, S, SLACK));
}

/* The statement's time: the span's start kept inside the logged second
 * (a span that started before it, or after it, by the offset's error),
 * the duration to the span's end. */
static void test_time(void)
{
    int64_t start = 0, dur = 0;

    /* inside: as the span says (a hold within one second) */
    ls_stmt_time_from_span(10 * S, S, 10 * S + 400 * MS, 10 * S + 402 * MS, &start, &dur);
    CHECK_INT(start, 10 * S + 400 * MS);
    CHECK_INT(dur, 2 * MS);
    /* a span that started 3 ms before the logged second: at its start */
    ls_stmt_time_from_span(10 * S, S, 10 * S - 3 * MS, 10 * S + 1 * MS, &start, &dur);
    CHECK_INT(start, 10 * S);
    CHECK_INT(dur, 1 * MS);
    /* exactly at the second's end is the next second: its last µs */
    ls_stmt_time_from_span(10 * S, S, 11 * S, 11 * S + 5 * MS, &start, &dur);
    CHECK_INT(start, 11 * S - 1);
    CHECK_INT(dur, 5 * MS + 1);
    /* a span that ended before the clamped start: no time */
    ls_stmt_time_from_span(10 * S, S, 10 * S - 4 * MS, 10 * S - 2 * MS, &start, &dur);
    CHECK_INT(start, 10 * S);
    CHECK_INT(dur, 0);
}

int main(void)
{
    test_text_hash();
    test_window();
    test_sequence();
    test_time();
    return TEST_REPORT();
}
