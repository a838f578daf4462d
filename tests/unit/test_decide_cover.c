/*
 * test_decide_cover.c — decide/cover.c: how much of a row wait a hold of
 * another transaction covered. Boundary cases first: an overlap of exactly
 * LS_COVER_MIN_US and one microsecond less, a hold that began exactly when
 * the wait ended or ended exactly when it began, the waiter's own
 * transaction, unknown transactions.
 */
#include "decide/cover.h"
#include "decide/tolerances.h"
#include "ls_test.h"

#define MS 1000

static ls_cover_span span(int64_t start, int64_t end, int has_tx, int64_t tx)
{
    ls_cover_span s;
    s.start_ts = start;
    s.end_ts = end;
    s.has_tx = has_tx;
    s.tx_id = tx;
    return s;
}

static void test_boundaries(void)
{
    ls_cover_span w = span(100 * MS, 200 * MS, 1, 7), h;

    /* Exactly the minimum is a share; a microsecond less is not. */
    h = span(0, 100 * MS + LS_COVER_MIN_US, 1, 3);
    CHECK_INT(ls_cover_us(&w, &h), LS_COVER_MIN_US);
    h = span(0, 100 * MS + LS_COVER_MIN_US - 1, 1, 3);
    CHECK_INT(ls_cover_us(&w, &h), 0);
    /* ... at the wait's end too */
    h = span(200 * MS - LS_COVER_MIN_US, 300 * MS, 1, 3);
    CHECK_INT(ls_cover_us(&w, &h), LS_COVER_MIN_US);
    h = span(200 * MS - LS_COVER_MIN_US + 1, 300 * MS, 1, 3);
    CHECK_INT(ls_cover_us(&w, &h), 0);
    /* A hold begun exactly when the wait ended, or ended exactly when it
     * began, covered none of it. */
    h = span(200 * MS, 900 * MS, 1, 3);
    CHECK_INT(ls_cover_us(&w, &h), 0);
    h = span(0, 100 * MS, 1, 3);
    CHECK_INT(ls_cover_us(&w, &h), 0);
    /* A hold longer than the wait on both sides covers all of it; one
     * inside it, its own length. */
    h = span(0, 900 * MS, 1, 3);
    CHECK_INT(ls_cover_us(&w, &h), 100 * MS);
    h = span(120 * MS, 150 * MS, 1, 3);
    CHECK_INT(ls_cover_us(&w, &h), 30 * MS);
    /* An empty wait is covered by nothing. */
    {
        ls_cover_span e = span(100 * MS, 100 * MS, 1, 7);
        h = span(0, 900 * MS, 1, 3);
        CHECK_INT(ls_cover_us(&e, &h), 0);
    }
}

static void test_transactions(void)
{
    ls_cover_span w = span(100 * MS, 200 * MS, 1, 7), h;

    /* The waiter's own transaction is no share. */
    h = span(0, 900 * MS, 1, 7);
    CHECK_INT(ls_cover_us(&w, &h), 0);
    /* Another's, the whole overlap. */
    h = span(0, 900 * MS, 1, 8);
    CHECK_INT(ls_cover_us(&w, &h), 100 * MS);
    /* A hold of an unknown transaction covers a known waiter's wait, and
     * a known hold an unknown waiter's; two unknowns count as the same. */
    h = span(0, 900 * MS, 0, 0);
    CHECK_INT(ls_cover_us(&w, &h), 100 * MS);
    {
        ls_cover_span u = span(100 * MS, 200 * MS, 0, 0);
        h = span(0, 900 * MS, 1, 0);
        CHECK_INT(ls_cover_us(&u, &h), 100 * MS);
        h = span(0, 900 * MS, 0, 0);
        CHECK_INT(ls_cover_us(&u, &h), 0);
    }
}

int main(void)
{
    test_boundaries();
    test_transactions();
    return TEST_REPORT();
}
