/*
 * test_decide_finding.c — decide/finding.c: each finding rule fires
 * exactly at its threshold and not below it, stays silent on empty input,
 * and findings of equal weight keep the order they were found in.
 */
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

static void test_count(void)
{
    CHECK_INT(ls_finding_count_fires(0), 0); /* no deadlock: no finding */
    CHECK_INT(ls_finding_count_fires(1), 1);
    CHECK_INT(ls_finding_count_fires(-1), 0);
}

static void test_counter(void)
{
    CHECK_INT(ls_finding_counter_fires(LS_FINDING_ROW_MIN_WAITS), 1);
    CHECK_INT(ls_finding_counter_fires(LS_FINDING_ROW_MIN_WAITS - 1), 0);
    CHECK_INT(ls_finding_counter_fires(0), 0);
    CHECK_INT(ls_finding_counter_fires(3), 1); /* the documented 3 waits */
    CHECK_INT(ls_finding_counter_fires(2), 0);
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

int main(void)
{
    test_call();
    test_count();
    test_counter();
    test_hidden();
    test_serial();
    test_slot();
    test_cmp();
    return TEST_REPORT();
}
