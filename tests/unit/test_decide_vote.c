/*
 * test_decide_vote.c — decide/vote.c: the span a transaction links to by
 * the votes of its statements. Boundary cases first: a tie in the count
 * of votes (broken by the distance, then the trace id), a tie in the
 * distance within the winning trace (the first vote), one vote, none.
 */
#include "decide/vote.h"
#include "ls_test.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_boundaries(void)
{
    /* No vote, one vote. */
    CHECK_INT(ls_vote_span(NULL, 0), 0);
    {
        ls_span_vote v[] = {{"b", 10, 400}};
        CHECK_INT(ls_vote_span(v, N(v)), 0);
    }
    /* More votes beat nearer ones: trace b has two, a one at 1 µs. */
    {
        ls_span_vote v[] = {{"a", 1, 1}, {"b", 2, 300}, {"b", 3, 200}};
        CHECK_INT(ls_vote_span(v, N(v)), 2);
    }
    /* Equal counts: the smaller sum of distances; one microsecond decides. */
    {
        ls_span_vote v[] = {{"a", 1, 100}, {"a", 2, 101}, {"b", 3, 50}, {"b", 4, 150}};
        CHECK_INT(ls_vote_span(v, N(v)), 2); /* b: 200 < a: 201 */
        v[1].d = 99;
        CHECK_INT(ls_vote_span(v, N(v)), 1); /* a: 199 < b: 200 */
    }
    /* Equal counts and sums: the smaller trace id, wherever it is in v. */
    {
        ls_span_vote v[] = {{"b", 1, 10}, {"a", 2, 10}};
        CHECK_INT(ls_vote_span(v, N(v)), 1);
        ls_span_vote w[] = {{"a", 2, 10}, {"b", 1, 10}};
        CHECK_INT(ls_vote_span(w, N(w)), 0);
    }
    /* Within the winning trace, the nearest vote; on a tie, the first. */
    {
        ls_span_vote v[] = {{"a", 1, 30}, {"a", 2, 20}, {"a", 3, 20}, {"a", 4, 25}};
        CHECK_INT(ls_vote_span(v, N(v)), 1);
    }
}

/* Concurrent transactions of one code path: one statement paired with
 * another transaction's span, the rest with its own trace's. */
static void test_crowd(void)
{
    ls_span_vote v[] = {
        {"0af7651916cd43dd8448eb211c80319c", 41, 900},
        {"0af7651916cd43dd8448eb211c80319c", 44, 1200},
        {"4bf92f3577b34da6a3ce929d0e0e4736", 17, 15},
        {"0af7651916cd43dd8448eb211c80319c", 47, 700},
    };
    /* v must hold a trace's votes together: sorted by trace, as traces.c does */
    ls_span_vote sorted[] = {v[0], v[1], v[3], v[2]};
    CHECK_INT(sorted[ls_vote_span(sorted, N(sorted))].span_row, 47);
}

int main(void)
{
    test_boundaries();
    test_crowd();
    return TEST_REPORT();
}
