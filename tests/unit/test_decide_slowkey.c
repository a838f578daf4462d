/*
 * test_decide_slowkey.c — decide/slowkey.c: on a threshold log, do a
 * key's slow locking statements make it a contended row? Boundaries:
 * exactly at the statement and duration floors and one below, a key alone
 * in its relation, two keys tied, exactly LS_SLOWKEY_DOMINANCE times the
 * next key, the other keys together as many as it. The figures of
 * samples/blind-rb's warehouses (54 slow FOR UPDATEs of id=1, 32.6 s).
 */
#include "decide/slowkey.h"
#include "decide/tolerances.h"
#include "ls_test.h"

static ls_slowkey_in in_of(int64_t n, double ms, int64_t next, int64_t others)
{
    ls_slowkey_in in;
    in.statements = n;
    in.ms = ms;
    in.next_key = next;
    in.other_keys_sum = others;
    return in;
}

static void test_floors(void)
{
    ls_slowkey_in in = in_of(LS_SLOWKEY_MIN_STATEMENTS, LS_SLOWKEY_MIN_MS, 0, 0);
    /* exactly at both floors, one key only: a row */
    CHECK_INT(ls_slowkey_makes_row(&in), 1);
    /* one statement fewer */
    in.statements = LS_SLOWKEY_MIN_STATEMENTS - 1;
    CHECK_INT(ls_slowkey_makes_row(&in), 0);
    /* just under the duration floor */
    in = in_of(LS_SLOWKEY_MIN_STATEMENTS, LS_SLOWKEY_MIN_MS - 0.001, 0, 0);
    CHECK_INT(ls_slowkey_makes_row(&in), 0);
    /* no duration at all (NaN sums never qualify) */
    in = in_of(100, 0.0 / 0.0, 0, 0);
    CHECK_INT(ls_slowkey_makes_row(&in), 0);
}

static void test_other_keys(void)
{
    /* blind-rb: warehouses id=1 54 statements, 32.6 s; id=2 fewer */
    ls_slowkey_in in = in_of(54, 32600.0, 13, 25);
    CHECK_INT(ls_slowkey_makes_row(&in), 1);
    /* keys tied: neither is the row the time went to */
    in = in_of(10, 5000.0, 10, 10);
    CHECK_INT(ls_slowkey_makes_row(&in), 0);
    /* exactly LS_SLOWKEY_DOMINANCE times the next key: enough */
    in = in_of(LS_SLOWKEY_DOMINANCE * 4, 5000.0, 4, 4);
    CHECK_INT(ls_slowkey_makes_row(&in), 1);
    /* one fewer than that: not */
    in = in_of(LS_SLOWKEY_DOMINANCE * 4 - 1, 5000.0, 4, 4);
    CHECK_INT(ls_slowkey_makes_row(&in), 0);
    /* many keys of a few each, as many together as it: spread slowness
     * (the statement's own cost), not one row */
    in = in_of(12, 5000.0, 1, 12);
    CHECK_INT(ls_slowkey_makes_row(&in), 0);
    in.other_keys_sum = 11;
    CHECK_INT(ls_slowkey_makes_row(&in), 1);
}

/* Whose waiting it was: the lockers of one path credit it; of two, or
 * one of none, no path; no lockers, none. blind-rb's warehouses id=1:
 * 54 holds, all "SELECT FOR UPDATE warehouses". */
static void test_one_holder_path(void)
{
    CHECK_INT(ls_slowkey_one_holder_path(54, 1, 0), 1);
    CHECK_INT(ls_slowkey_one_holder_path(1, 1, 0), 1);
    CHECK_INT(ls_slowkey_one_holder_path(54, 2, 0), 0);
    CHECK_INT(ls_slowkey_one_holder_path(54, 1, 1), 0);
    CHECK_INT(ls_slowkey_one_holder_path(1, 0, 1), 0);
    CHECK_INT(ls_slowkey_one_holder_path(0, 0, 0), 0);
}

int main(void)
{
    test_floors();
    test_other_keys();
    test_one_holder_path();
    return TEST_REPORT();
}
