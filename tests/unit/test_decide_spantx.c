/*
 * test_decide_spantx.c — decide/spantx.c: a logged statement's
 * transaction from its request's BEGIN and COMMIT spans. Boundary cases
 * first: the statement's own span a BEGIN or COMMIT, k past the end, no
 * BEGIN (autocommit), a COMMIT between the BEGIN and it (the transaction
 * had ended), no end in the export, a BEGIN before the end; then a
 * session's other logged statements at the slack's edges, inside one of
 * the transaction's spans or not. The shape is blind-pool's booking
 * (BEGIN, UPDATE events, the partner call, INSERT bookings, COMMIT).
 */
#include "decide/spantx.h"
#include "ls_test.h"

#define MS 1000
#define SLACK (1 * MS)

static ls_tx_span sp(ls_sql_kind kind, uint64_t text, int64_t start, int64_t end)
{
    ls_tx_span s;
    s.kind = kind;
    s.text = text;
    s.start = start;
    s.end = end;
    return s;
}

static void test_tx_of(void)
{
    /* BEGIN 0-2, UPDATE 5-300, INSERT 700-710, COMMIT 712-714 (ms) */
    ls_tx_span v[5];
    size_t first = 99, last = 99;
    v[0] = sp(LS_SQL_BEGIN, 1, 0, 2 * MS);
    v[1] = sp(LS_SQL_WRITE, 2, 5 * MS, 300 * MS);
    v[2] = sp(LS_SQL_WRITE, 3, 700 * MS, 710 * MS);
    v[3] = sp(LS_SQL_COMMIT, 4, 712 * MS, 714 * MS);
    v[4] = sp(LS_SQL_WRITE, 2, 800 * MS, 801 * MS); /* autocommit after it */

    CHECK(ls_span_tx_of(v, 5, 1, &first, &last) == 1);
    CHECK_INT(first, 0);
    CHECK_INT(last, 3);
    CHECK(ls_span_tx_of(v, 5, 2, &first, &last) == 1);
    CHECK_INT(first, 0);
    CHECK_INT(last, 3);
    /* the BEGIN and the COMMIT themselves are no statement of it */
    CHECK(ls_span_tx_of(v, 5, 0, &first, &last) == 0);
    CHECK(ls_span_tx_of(v, 5, 3, &first, &last) == 0);
    /* past the end; after the COMMIT: autocommit */
    CHECK(ls_span_tx_of(v, 5, 5, &first, &last) == 0);
    CHECK(ls_span_tx_of(v, 5, 4, &first, &last) == 0);
    /* no end in the export (the request cut at v[2]) */
    CHECK(ls_span_tx_of(v, 3, 1, &first, &last) == 0);
    /* no BEGIN */
    CHECK(ls_span_tx_of(v + 1, 3, 0, &first, &last) == 0);
    /* a ROLLBACK ends it too */
    v[3].kind = LS_SQL_ROLLBACK;
    CHECK(ls_span_tx_of(v, 5, 1, &first, &last) == 1);
    CHECK_INT(last, 3);
    /* a BEGIN before any end: not one transaction */
    v[2].kind = LS_SQL_BEGIN;
    CHECK(ls_span_tx_of(v, 5, 1, &first, &last) == 0);
}

static ls_tx_logged lg(uint64_t text, int64_t start, int64_t end)
{
    ls_tx_logged l;
    l.text = text;
    l.start = start;
    l.end = end;
    return l;
}

static void test_fits(void)
{
    ls_tx_span v[4];
    ls_tx_logged st[3];
    v[0] = sp(LS_SQL_BEGIN, 1, 0, 2 * MS);
    v[1] = sp(LS_SQL_WRITE, 2, 5 * MS, 300 * MS);
    v[2] = sp(LS_SQL_WRITE, 3, 700 * MS, 710 * MS);
    v[3] = sp(LS_SQL_COMMIT, 4, 712 * MS, 714 * MS);

    /* nothing else logged; the statement itself (inside its span) */
    CHECK(ls_span_tx_fits(v, 0, 3, st, 0, 0, SLACK) == 1);
    st[0] = lg(2, 50 * MS, 299 * MS);
    CHECK(ls_span_tx_fits(v, 0, 3, st, 1, 0, SLACK) == 1);
    /* its span's end exceeded by exactly the slack: in; by one µs more: out */
    st[0] = lg(2, 50 * MS, 301 * MS);
    CHECK(ls_span_tx_fits(v, 0, 3, st, 1, 0, SLACK) == 1);
    st[0] = lg(2, 50 * MS, 301 * MS + 1);
    CHECK(ls_span_tx_fits(v, 0, 3, st, 1, 0, SLACK) == 0);
    /* another text of the session in the middle: another transaction ran */
    st[0] = lg(2, 50 * MS, 299 * MS);
    st[1] = lg(9, 400 * MS, 450 * MS);
    CHECK(ls_span_tx_fits(v, 0, 3, st, 2, 0, SLACK) == 0);
    /* the same text as its UPDATE, but not inside its span */
    st[1] = lg(2, 400 * MS, 450 * MS);
    CHECK(ls_span_tx_fits(v, 0, 3, st, 2, 0, SLACK) == 0);
    /* the INSERT of it, logged too */
    st[1] = lg(3, 701 * MS, 709 * MS);
    CHECK(ls_span_tx_fits(v, 0, 3, st, 2, 0, SLACK) == 1);
    /* one ending exactly at the BEGIN's end + slack, one starting exactly
     * at the COMMIT's start - slack: outside it, fine */
    st[1] = lg(9, -50 * MS, 3 * MS);
    st[2] = lg(9, 711 * MS, 720 * MS);
    CHECK(ls_span_tx_fits(v, 0, 3, st, 3, 0, SLACK) == 1);
    /* one µs further in, either side: overlaps it */
    st[1] = lg(9, -50 * MS, 3 * MS + 1);
    CHECK(ls_span_tx_fits(v, 0, 3, st, 3, 0, SLACK) == 0);
    st[1] = lg(9, -50 * MS, 3 * MS);
    st[2] = lg(9, 711 * MS - 1, 720 * MS);
    CHECK(ls_span_tx_fits(v, 0, 3, st, 3, 0, SLACK) == 0);
}

/* A whole-second log: times up to a second early (a %t stamp is its
 * second's start; a duration line's statement began its duration before).
 * A transaction of 2.6 s: BEGIN ends 10.102, COMMIT starts 12.712. */
static void test_fits_seconds(void)
{
    ls_tx_span v[4];
    ls_tx_logged st[2];
    const int64_t S = 1000 * MS;
    v[0] = sp(LS_SQL_BEGIN, 1, 10 * S + 100 * MS, 10 * S + 102 * MS);
    v[1] = sp(LS_SQL_WRITE, 2, 10 * S + 105 * MS, 10 * S + 400 * MS);
    v[2] = sp(LS_SQL_WRITE, 3, 11 * S + 500 * MS, 11 * S + 900 * MS);
    v[3] = sp(LS_SQL_COMMIT, 4, 12 * S + 712 * MS, 12 * S + 714 * MS);

    /* its UPDATE stamped 10 s with its 295 ms: [9.705, 10.000], may be before */
    st[0] = lg(2, 10 * S - 295 * MS, 10 * S);
    CHECK(ls_span_tx_fits(v, 0, 3, st, 1, S, SLACK) == 1);
    /* its INSERT stamped 11 s with 300 ms: [10.700, 11.000], inside at any
     * time, and may have run at 11.500: ours; as a millisecond time it
     * would have run before its span: not */
    st[1] = lg(3, 11 * S - 300 * MS, 11 * S);
    CHECK(ls_span_tx_fits(v, 0, 3, st, 2, S, SLACK) == 1);
    CHECK(ls_span_tx_fits(v, 0, 3, st, 2, 0, SLACK) == 0);
    /* another text then: another transaction ran inside it */
    st[1] = lg(9, 11 * S - 100 * MS, 11 * S);
    CHECK(ls_span_tx_fits(v, 0, 3, st, 2, S, SLACK) == 0);
    /* ending exactly at the BEGIN's end + slack: may be before it; 1 µs later: inside */
    st[1] = lg(9, 10 * S, 10 * S + 103 * MS);
    CHECK(ls_span_tx_fits(v, 0, 3, st, 2, S, SLACK) == 1);
    st[1] = lg(9, 10 * S, 10 * S + 103 * MS + 1);
    CHECK(ls_span_tx_fits(v, 0, 3, st, 2, S, SLACK) == 0);
    /* starting exactly res before the COMMIT's start - slack: may be after
     * it; 1 µs earlier: inside even at its latest */
    st[1] = lg(9, 12 * S + 711 * MS - S, 12 * S);
    CHECK(ls_span_tx_fits(v, 0, 3, st, 2, S, SLACK) == 1);
    st[1] = lg(9, 12 * S + 711 * MS - S - 1, 12 * S);
    CHECK(ls_span_tx_fits(v, 0, 3, st, 2, S, SLACK) == 0);
}

/* A request whose transaction the log has none of (blind-pool: a
 * check-in that ran under 50 ms, no wait): rebuilt from its spans alone;
 * one whose statement the log has, of any session, is the log's. */
static void test_logged(void)
{
    ls_tx_span v[4];
    ls_tx_logged st[4] = {{0, 0, 0}};
    const int64_t S = 1000 * MS;
    v[0] = sp(LS_SQL_BEGIN, 1, 0, 2 * MS);
    v[1] = sp(LS_SQL_WRITE, 2, 5 * MS, 300 * MS);
    v[2] = sp(LS_SQL_WRITE, 3, 700 * MS, 710 * MS);
    v[3] = sp(LS_SQL_COMMIT, 4, 712 * MS, 714 * MS);

    /* nothing logged */
    CHECK(ls_span_tx_logged(v, 0, 3, st, 0, 0, SLACK) == 0);
    /* others' statements, sorted: another text inside, its texts outside
     * its spans */
    st[0] = lg(2, -500 * MS, -400 * MS);
    st[1] = lg(9, 50 * MS, 299 * MS);
    st[2] = lg(2, 400 * MS, 450 * MS);
    st[3] = lg(3, 711 * MS + 1, 712 * MS);
    CHECK(ls_span_tx_logged(v, 0, 3, st, 4, 0, SLACK) == 0);
    /* its INSERT logged, at the slack's edge: the log's */
    st[3] = lg(3, 699 * MS, 711 * MS);
    CHECK(ls_span_tx_logged(v, 0, 3, st, 4, 0, SLACK) == 1);
    /* 1 µs before the slack: not inside its span */
    st[3] = lg(3, 699 * MS - 1, 711 * MS);
    CHECK(ls_span_tx_logged(v, 0, 3, st, 4, 0, SLACK) == 0);
    /* on whole seconds it may have run a second later: the log's */
    CHECK(ls_span_tx_logged(v, 0, 3, st, 4, S, SLACK) == 1);
    /* its BEGIN or its COMMIT in the store (a deadlock victim's, rebuilt
     * from those two spans: spans.c write_victims): the log's */
    st[0] = lg(1, 0, 1 * MS);
    CHECK(ls_span_tx_logged(v, 0, 3, st, 1, 0, SLACK) == 1);
    st[0] = lg(4, 712 * MS, 713 * MS);
    CHECK(ls_span_tx_logged(v, 0, 3, st, 1, 0, SLACK) == 1);
    /* a COMMIT of another transaction, after its own ended; on whole
     * seconds too (the edges are taken at their times) */
    st[0] = lg(4, 716 * MS, 717 * MS);
    CHECK(ls_span_tx_logged(v, 0, 3, st, 1, 0, SLACK) == 0);
    st[0] = lg(1, -500 * MS, -499 * MS);
    CHECK(ls_span_tx_logged(v, 0, 3, st, 1, S, SLACK) == 0);
    /* another's BEGIN (a victim's) inside its long BEGIN span (the pooler
     * queued it: blind-pool 50004fd3, 59 ms), ending before it: not its */
    v[0] = sp(LS_SQL_BEGIN, 1, -60 * MS, 2 * MS);
    st[0] = lg(1, -40 * MS, -40 * MS);
    CHECK(ls_span_tx_logged(v, 0, 3, st, 1, 0, SLACK) == 0);
    /* ending 1 ms (the slack) before its span: its; 1 µs more: not */
    st[0] = lg(1, 1 * MS, 1 * MS);
    CHECK(ls_span_tx_logged(v, 0, 3, st, 1, 0, SLACK) == 1);
    st[0] = lg(1, 1 * MS - 1, 1 * MS - 1);
    CHECK(ls_span_tx_logged(v, 0, 3, st, 1, 0, SLACK) == 0);
}

/* On a whole-second log a statement may be any span of its text within
 * its second, but only one that lasted as long: a span holds its
 * statement (less the app clock's millisecond). blind-pool %t + traces:
 * statement 35, 63.378 ms stamped 17:36:07, against a transfer's 0.838 ms
 * UPDATE span at 07.186: that request's transaction is none the log has
 * (accounts id=3 holds 132 of the truth's 216 before, 200 with it).
 * ls_span_tx_fits() reads the same test (is_span_of). */
static void test_logged_duration(void)
{
    ls_tx_span v[3];
    ls_tx_logged st[1];
    const int64_t S = 1000 * MS;
    const int64_t OFF = 50 * MS; /* a whole-second log's offset slack */
    v[0] = sp(LS_SQL_BEGIN, 1, 7 * S - 300 * MS, 7 * S + 185 * MS);
    v[1] = sp(LS_SQL_WRITE, 2, 7 * S + 186 * MS, 7 * S + 187 * MS);
    v[2] = sp(LS_SQL_COMMIT, 4, 7 * S + 235 * MS, 7 * S + 236 * MS);

    /* 63 ms stamped 7 s: not the 1 ms span, whatever the offset slack */
    st[0] = lg(2, 7 * S - 63 * MS, 7 * S);
    CHECK(ls_span_tx_logged(v, 0, 2, st, 1, S, OFF) == 0);
    /* as long as the span and each end's millisecond: its; 1 µs longer: not */
    st[0] = lg(2, 7 * S - 3 * MS, 7 * S);
    CHECK(ls_span_tx_logged(v, 0, 2, st, 1, S, OFF) == 1);
    st[0] = lg(2, 7 * S - 3 * MS - 1, 7 * S);
    CHECK(ls_span_tx_logged(v, 0, 2, st, 1, S, OFF) == 0);
    /* millisecond times: the ends' tests said so already */
    st[0] = lg(2, 7 * S + 185 * MS, 7 * S + 188 * MS);
    CHECK(ls_span_tx_logged(v, 0, 2, st, 1, 0, SLACK) == 1);
    st[0] = lg(2, 7 * S + 185 * MS - 1, 7 * S + 188 * MS);
    CHECK(ls_span_tx_logged(v, 0, 2, st, 1, 0, SLACK) == 0);
}

/* A span that ended in an error is no statement logged with a duration
 * (blind-pool %t + traces, 17:36:05: a deadlock victim's UPDATE span of
 * accounts id=1, 223.9 ms, ended 6 ms before the second in which two
 * transfers' UPDATEs of its text, 170.4 and 207.4 ms, were stamped; with
 * it, three spans fit two statements and the log's order could not pair
 * them). */
static void test_may_be_logged(void)
{
    const int64_t d[2] = {170372, 207432};
    const int64_t all[3] = {223885, 175826, 228145}; /* the victim's first */
    const int64_t ok[2] = {175826, 228145};

    CHECK(ls_span_may_be_logged(0) == 1);
    CHECK(ls_span_may_be_logged(1) == 0);
    /* with the failed span: undecided; without it, each pairs in order */
    CHECK(ls_span_pick_in_order(d, 2, all, 3, 0, 1 * MS, 60 * MS) == -1);
    CHECK(ls_span_pick_in_order(d, 2, ok, 2, 0, 1 * MS, 60 * MS) == 0);
    CHECK(ls_span_pick_in_order(d, 2, ok, 2, 1, 1 * MS, 60 * MS) == 1);
}

/* Same-text statements of one second on a whole-second log (blind-pool's
 * %t log: two booking UPDATEs stamped in one second, 80 and 120 ms). */
static void test_pick_in_order(void)
{
    int64_t d[3] = {80 * MS, 120 * MS, 60 * MS};
    int64_t e[3] = {81 * MS, 125 * MS, 130 * MS};

    CHECK(ls_span_pick_in_order(d, 2, e, 2, 0, SLACK, 60 * MS) == 0);
    CHECK(ls_span_pick_in_order(d, 2, e, 2, 1, SLACK, 60 * MS) == 1);
    /* rank past them; one span (that may be one of them) more or fewer: left */
    CHECK(ls_span_pick_in_order(d, 2, e, 2, 2, SLACK, 60 * MS) == -1);
    CHECK(ls_span_pick_in_order(d, 2, e, 3, 0, SLACK, 60 * MS) == -1);
    CHECK(ls_span_pick_in_order(d, 2, e, 1, 0, SLACK, 60 * MS) == -1);
    /* a span shorter than its statement by the slack: fits; 1 µs more: the
     * order is not the spans' (any rank left) */
    e[0] = 79 * MS;
    CHECK(ls_span_pick_in_order(d, 2, e, 2, 1, SLACK, 60 * MS) == 1);
    e[0] = 79 * MS - 1;
    CHECK(ls_span_pick_in_order(d, 2, e, 2, 1, SLACK, 60 * MS) == -1);
    /* longer by the reply's slack: fits; 1 µs more: left */
    e[0] = 140 * MS;
    CHECK(ls_span_pick_in_order(d, 2, e, 2, 0, SLACK, 60 * MS) == 0);
    e[0] = 140 * MS + 1;
    CHECK(ls_span_pick_in_order(d, 2, e, 2, 0, SLACK, 60 * MS) == -1);
    /* in the other order the durations do not pair: left */
    e[0] = 125 * MS;
    e[1] = 81 * MS;
    CHECK(ls_span_pick_in_order(d, 2, e, 2, 0, SLACK, 10 * MS) == -1);
    /* a short span between them (a statement under the threshold, not
     * logged): none of theirs; the rest pair in order */
    e[0] = 81 * MS;
    e[1] = 12 * MS;
    e[2] = 125 * MS;
    CHECK(ls_span_pick_in_order(d, 2, e, 3, 0, SLACK, 60 * MS) == 0);
    CHECK(ls_span_pick_in_order(d, 2, e, 3, 1, SLACK, 60 * MS) == 2);
    /* a third span that fits one of them: more spans than statements, left */
    e[1] = 100 * MS;
    CHECK(ls_span_pick_in_order(d, 2, e, 3, 0, SLACK, 60 * MS) == -1);
}

/* blind-pool's %t log with its export: pid 21452's check-in INSERT,
 * stamped 17:36:05 (postgresql.log line 95, duration: 237.813 ms); its
 * pg span (traces.otlp.jsonl.gz) ran 17:36:04.825000 to 05.068476 on the
 * app's clock, 04.809685 to 05.053161 on the database's (offset
 * -15.315 ms, the report's). In µs from 17:36:04. */
static void test_hold_start(void)
{
    ls_tx_span sp = {LS_SQL_WRITE, 0, 809685, 1053161};
    int64_t acquired = -1, stmt_start = -1;

    /* the hold begins at the span's end, its statement at the span's
     * start: 243 ms it may have queued in (none before: start_lo NULL) */
    CHECK(ls_span_hold_start(&sp, 1000 * MS, &acquired, &stmt_start) == 1);
    CHECK(acquired == 1053161);
    CHECK(stmt_start == 809685);
    /* a span that ended before the stamp is not the statement's */
    acquired = stmt_start = -1;
    CHECK(ls_span_hold_start(&sp, 1054 * MS, &acquired, &stmt_start) == 0);
    CHECK(acquired == -1 && stmt_start == -1);
    /* a span of no length: the statement starts where the hold does */
    sp.start = sp.end;
    CHECK(ls_span_hold_start(&sp, 1000 * MS, &acquired, &stmt_start) == 1);
    CHECK(stmt_start == acquired);
}

/* blind-pool's deadlock victim of trace 015dd808... (spans of the
 * OTLP export, app clock, in µs from 17:36:04.697): START TRANSACTION,
 * UPDATE accounts id = 2 (not logged: under 50 ms), UPDATE accounts
 * id = 3 (failed: 40P01), ROLLBACK. */
static void test_victim_tx(void)
{
    ls_tx_span v[5];
    size_t last = 99;
    v[0] = sp(LS_SQL_BEGIN, 1, 0, 25573);
    v[1] = sp(LS_SQL_WRITE, 2, 38000, 45238);
    v[2] = sp(LS_SQL_WRITE, 3, 87000, 301542);
    v[3] = sp(LS_SQL_ROLLBACK, 4, 311000, 320887);

    /* its statements are v[1] (held accounts id=2 until the error) and
     * v[2] (the failed one, which the caller skips) */
    CHECK(ls_span_victim_tx(v, 4, 0, &last) == 1);
    CHECK_INT(last, 3);
    /* not from a statement; not past the spans */
    CHECK(ls_span_victim_tx(v, 4, 1, &last) == 0);
    CHECK(ls_span_victim_tx(v, 4, 3, &last) == 0);
    CHECK(ls_span_victim_tx(v, 4, 4, &last) == 0);
    /* the request cut before its ROLLBACK: no transaction known */
    CHECK(ls_span_victim_tx(v, 3, 0, &last) == 0);
    /* a second BEGIN before the end: not one transaction */
    v[4] = v[3];
    v[3] = sp(LS_SQL_BEGIN, 1, 305000, 306000);
    CHECK(ls_span_victim_tx(v, 5, 0, &last) == 0);
}

int main(void)
{
    test_victim_tx();
    test_hold_start();
    test_pick_in_order();
    test_logged();
    test_logged_duration();
    test_may_be_logged();
    test_tx_of();
    test_fits();
    test_fits_seconds();
    return TEST_REPORT();
}
