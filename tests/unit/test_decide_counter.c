/*
 * test_decide_counter.c — hot_counter_row's decision over a row's writers
 * (decide/counter.c): which writer is named, and is the row a counter.
 * The figures are the samples' (the writers of the row as the findings
 * pass sums them from the store).
 */
#include "decide/counter.h"
#include "decide/tolerances.h"
#include "ls_test.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static void test_bumps(void)
{
    const int64_t n = LS_FINDING_COUNTER_MIN_HOLDS;
    ls_counter_writer w = {2 * n, 0, 1.0, 1, 0};
    CHECK_INT(ls_counter_bumps(&w), 1);
    /* moved: under half still bumps, half does not */
    w.moved = n - 1;
    CHECK_INT(ls_counter_bumps(&w), 1);
    w.moved = n;
    CHECK_INT(ls_counter_bumps(&w), 0);
    /* neither an increment nor another relation: a plain write or a
     * decrement (blind-otel's stock), whatever its holds */
    w.moved = 0;
    w.increments = 0;
    CHECK_INT(ls_counter_bumps(&w), 0);
    /* a trigger's bump: the statement writes another relation */
    w.other_relation = 1;
    CHECK_INT(ls_counter_bumps(&w), 1);
}

static void test_longer(void)
{
    ls_counter_writer a = {3, 0, 900.0, 1, 0}, b = {40, 0, 100.0, 1, 0};
    /* by hold time first, not by transactions */
    CHECK_INT(ls_counter_longer(&a, &b), 1);
    CHECK_INT(ls_counter_longer(&b, &a), 0);
    /* equal hold time: more transactions */
    b.held_ms = 900.0;
    CHECK_INT(ls_counter_longer(&b, &a), 1);
    CHECK_INT(ls_counter_longer(&a, &b), 0);
    /* equal on both: neither */
    b.holds = 3;
    CHECK_INT(ls_counter_longer(&a, &b), 0);
    CHECK_INT(ls_counter_longer(&b, &a), 0);
}

/* A named shape's code path: the one that held the row longest, of
 * equal hold time more transactions, of equals the first. */
static void test_longest(void)
{
    /* blind-py's INSERT shape as two paths would be: the majority by
     * transactions holds less */
    ls_counter_writer p[] = {{90, 0, 1000.0, 0, 1}, {27, 0, 29000.0, 0, 1}, {5, 0, 29000.0, 0, 1}};
    CHECK_INT((int)ls_counter_longest(p, N_OF(p)), 1);
    CHECK_INT((int)ls_counter_longest(p, 1), 0);
    p[2].holds = 27;
    CHECK_INT((int)ls_counter_longest(p, N_OF(p)), 1);
    p[2].holds = 28;
    CHECK_INT((int)ls_counter_longest(p, N_OF(p)), 2);
}

/* samples/basic's accounts id=1: four "+ 1" of 0 ms and one "- 10" of
 * 802 ms (held across a sleep, "the HTTP call to the payment
 * provider"): a counter by its writers, named by its increment (the
 * decrement holds longer but bumps nothing), but the hold time is the
 * decrement's: no counter finding (issue 34; idle_in_transaction_head
 * names billing). */
static void test_basic(void)
{
    ls_counter_writer w[] = {{1, 0, 802.0, 0, 0}, {4, 0, 0.0, 1, 0}};
    ls_counter_verdict v;
    CHECK_INT(ls_counter_decide(w, N_OF(w), 1.0, &v), 0);
    CHECK_INT(v.top, 1);
    CHECK_INT(v.how, LS_COUNTER_HOW_ONLY);
    CHECK_INT(v.bump_holds, 4);
    CHECK_INT(v.all_holds, 5);
    CHECK_INT(v.held_by_others, 1);
    CHECK(v.all_held_ms == 802.0 && v.bump_held_ms == 0.0);
    /* had the increments held it as long as the decrement: a counter */
    w[1].held_ms = 802.0;
    CHECK_INT(ls_counter_decide(w, N_OF(w), 1.0, &v), 1);
    CHECK_INT(v.held_by_others, 0);
}

/* samples/blind-php's warehouses id=1 (whole-second log): restock's
 * "stock = stock + ?" from 167 transactions held it 0.0 ms in all;
 * reserve_stock's SELECT ... FOR UPDATE (72 transactions) held it across
 * an HTTP call, 43.5 s of the row's holds (its shape's total over the
 * hot rows). Not a counter: the queue is behind the reservation. */
static void test_php(void)
{
    ls_counter_writer w[] = {{72, 0, 43500.0, 0, 0}, {167, 0, 0.0, 1, 0}};
    ls_counter_verdict v;
    CHECK_INT(ls_counter_decide(w, N_OF(w), 1.0, &v), 0);
    CHECK_INT(v.top, 1);
    CHECK_INT(v.held_by_others, 1);
}

/* The share's boundary: the bumping writers' hold time at exactly
 * LS_FINDING_COUNTER_HELD_SHARE of all is a counter, under it not; the
 * named writer must have held the row at all where the holds were
 * timed; where none was (all under the log's tick), the writers' counts
 * decide. */
static void test_held_share(void)
{
    const double share = LS_FINDING_COUNTER_HELD_SHARE;
    ls_counter_writer w[] = {{4, 0, 1000.0 * (1.0 - share), 0, 0}, {4, 0, 1000.0 * share, 1, 0}};
    ls_counter_verdict v;
    CHECK_INT(ls_counter_decide(w, N_OF(w), 1.0, &v), 1);
    w[0].held_ms += 1.0;
    CHECK_INT(ls_counter_decide(w, N_OF(w), 1.0, &v), 0);
    CHECK_INT(v.held_by_others, 1);
    CHECK_INT(ls_counter_held_by_bumps(500.0, 500.0, 1000.0, 1.0), 1);
    CHECK_INT(ls_counter_held_by_bumps(499.0, 499.0, 999.0, 1.0), 0);
    CHECK_INT(ls_counter_held_by_bumps(0.001, 0.001, 0.001, 1.0), 1);
    /* timed, but the named writer held it 0 ms: never the cause */
    CHECK_INT(ls_counter_held_by_bumps(0.0, 600.0, 1000.0, 1.0), 0);
    /* nothing timed (all the holds under the log's tick): the times say
     * nothing, the writers' counts decide */
    CHECK_INT(ls_counter_held_by_bumps(0.0, 0.0, 0.0, 1.0), 1);
    CHECK_INT(ls_counter_held_by_bumps(0.0, 0.0, 999.0, 1000.0), 1);
    CHECK_INT(ls_counter_held_by_bumps(0.0, 0.0, 1000.0, 1000.0), 0);
    w[0].held_ms = 0.0;
    w[1].held_ms = 0.0;
    CHECK_INT(ls_counter_decide(w, N_OF(w), 1.0, &v), 1);
    CHECK_INT(v.held_by_others, 0);
    w[0].held_ms = 0.002; /* a whole-second log's untimed holds */
    CHECK_INT(ls_counter_decide(w, N_OF(w), 1000.0, &v), 1);
    w[0].held_ms = 1000.0;
    CHECK_INT(ls_counter_decide(w, N_OF(w), 1000.0, &v), 0);
    CHECK_INT(v.held_by_others, 1);
    /* the named one held it, another bumping one not: the share is the
     * bumping writers' together */
    {
        ls_counter_writer x[] = {{3, 0, 300.0, 1, 0}, {9, 0, 0.0, 1, 0}, {2, 0, 600.0, 0, 0}};
        CHECK_INT(ls_counter_decide(x, N_OF(x), 1.0, &v), 0);
        x[1].held_ms = 300.0;
        CHECK_INT(ls_counter_decide(x, N_OF(x), 1.0, &v), 1);
        CHECK_INT(v.top, 1); /* equal hold time: more transactions */
    }
}

/* blind-py's merchant_totals:1: place_order's INSERT (its trigger bumps
 * the row: another relation) and refund's SELECT apply_refund(...) (whose
 * INSERT the log does not show: no relation written). */
static void test_trigger(void)
{
    ls_counter_writer w[] = {{8, 0, 1000.0, 0, 0}, {117, 0, 30000.0, 0, 1}};
    ls_counter_verdict v;
    CHECK_INT(ls_counter_decide(w, N_OF(w), 1.0, &v), 1);
    CHECK_INT(v.top, 1);
    /* a trigger's statement on both: by hold time */
    w[0].other_relation = 1;
    CHECK_INT(ls_counter_decide(w, N_OF(w), 1.0, &v), 1);
    CHECK_INT(v.top, 1);
    CHECK_INT(v.how, LS_COUNTER_HOW_HELD);
    /* the minority held it longer: it is the one named */
    w[0].held_ms = 31000.0;
    CHECK_INT(ls_counter_decide(w, N_OF(w), 1.0, &v), 1);
    CHECK_INT(v.top, 0);
    CHECK_INT(v.how, LS_COUNTER_HOW_HELD);
}

/* Ties between two bumping writers: equal hold time goes to more
 * transactions; equal on both to the first. */
static void test_ties(void)
{
    ls_counter_writer w[] = {{5, 0, 40.0, 1, 0}, {9, 0, 40.0, 1, 0}};
    ls_counter_verdict v;
    CHECK_INT(ls_counter_decide(w, N_OF(w), 1.0, &v), 1);
    CHECK_INT(v.top, 1);
    CHECK_INT(v.how, LS_COUNTER_HOW_HOLDS);
    w[1].holds = 5;
    CHECK_INT(ls_counter_decide(w, N_OF(w), 1.0, &v), 1);
    CHECK_INT(v.top, 0);
    CHECK_INT(v.how, LS_COUNTER_HOW_FIRST);
    /* a third, shorter one does not make the choice a tie */
    {
        ls_counter_writer x[] = {{5, 0, 40.0, 1, 0}, {9, 0, 41.0, 1, 0}, {9, 0, 41.0, 0, 0}};
        CHECK_INT(ls_counter_decide(x, N_OF(x), 1.0, &v), 1);
        CHECK_INT(v.top, 1);
        CHECK_INT(v.how, LS_COUNTER_HOW_HELD);
    }
}

/* A balance moved between rows: blind-pool's accounts id=3, where each
 * "+ ?" credit's request debited another account first (its trace says
 * so; the log, at log_min_duration_statement = 50, mostly does not), and
 * blind-otel's wallets id=1. Not a counter, whichever shape is longer. */
static void test_moved(void)
{
    ls_counter_writer pool[] = {{43, 43, 402.0, 1, 0}, {31, 31, 0.0, 0, 0}};
    ls_counter_writer wallet[] = {{43, 43, 356.0, 1, 0}, {67, 67, 5348.0, 0, 0}};
    ls_counter_verdict v;
    CHECK_INT(ls_counter_decide(pool, N_OF(pool), 1.0, &v), 0);
    CHECK_INT(v.top, -1);
    CHECK_INT(v.how, LS_COUNTER_HOW_NONE);
    CHECK_INT(v.moved, 43);
    CHECK_INT(ls_counter_decide(wallet, N_OF(wallet), 1.0, &v), 0);
    /* without the trace's evidence the same row is a counter: the
     * evidence decides, not the names */
    pool[0].moved = 0;
    CHECK_INT(ls_counter_decide(pool, N_OF(pool), 1.0, &v), 1);
    CHECK_INT(v.top, 0);
}

/* The floors: the named writer's transactions, and the bumping writers'
 * share of all (more than half). */
static void test_floors(void)
{
    const int64_t n = LS_FINDING_COUNTER_MIN_HOLDS;
    ls_counter_writer w[] = {{n, 0, 1.0, 1, 0}, {n - 1, 0, 1.0, 0, 0}};
    ls_counter_verdict v;
    CHECK_INT(ls_counter_decide(w, N_OF(w), 1.0, &v), 1);
    w[0].holds = n - 1;
    CHECK_INT(ls_counter_decide(w, N_OF(w), 1.0, &v), 0);
    CHECK_INT(v.top, 0); /* named, but not a counter */
    /* exactly half of the transactions bump: a counter (correlation's
     * accounts id=15: four "+ 1" of ledger, four "- 1" of checkout);
     * under half: not */
    w[0].holds = n;
    w[1].holds = n;
    CHECK_INT(ls_counter_decide(w, N_OF(w), 1.0, &v), 1);
    w[1].holds = n + 1;
    CHECK_INT(ls_counter_decide(w, N_OF(w), 1.0, &v), 0);
    /* blind-py's stock sku=2: 12 "+ 0" (report_fix) against 36 "- 1"
     * (place_order): a reservation, not a counter */
    {
        ls_counter_writer s[] = {{12, 0, 0.0, 1, 0}, {36, 0, 17000.0, 0, 0}};
        CHECK_INT(ls_counter_decide(s, N_OF(s), 1.0, &v), 0);
    }
    /* no writers */
    CHECK_INT(ls_counter_decide(w, 0, 1.0, &v), 0);
    CHECK_INT(v.top, -1);
}

int main(void)
{
    test_bumps();
    test_longer();
    test_longest();
    test_basic();
    test_php();
    test_held_share();
    test_trigger();
    test_ties();
    test_moved();
    test_floors();
    return TEST_REPORT();
}
