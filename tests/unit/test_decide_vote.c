/*
 * test_decide_vote.c — decide/vote.c: the span a transaction links to by
 * the votes of its statements. Boundary cases first: a tie in the count
 * of votes (broken by the distance, then the trace id), a tie in the
 * distance within the winning trace (the first vote), one vote, none.
 */
#include "decide/tolerances.h"
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

/* ls_link_in_request: a transaction inside its request, each end at the
 * slack exactly (in) and one microsecond past it (out); the request moved
 * by the offset; no root span. */
static void test_in_request(void)
{
    const int64_t lo = 1796536319709656, hi = 1796536320810764, k = LS_REQUEST_SLACK_US;
    /* a root span lo..hi inside wider spans: the root span decides */
    const ls_request rq = {1, lo, hi, lo - 5 * k, hi + 5 * k};
    /* no root span exported: the spans' extent */
    const ls_request noroot = {0, 0, 0, lo, hi};

    CHECK_INT(ls_link_in_request(lo + 200000, hi - 3000, &rq, 0, k), 1);
    CHECK_INT(ls_link_in_request(lo, hi, &rq, 0, 0), 1); /* the request itself */
    /* the end: at the slack, just outside */
    CHECK_INT(ls_link_in_request(lo + 1, hi + k, &rq, 0, k), 1);
    CHECK_INT(ls_link_in_request(lo + 1, hi + k + 1, &rq, 0, k), 0);
    /* the start: at the slack, just outside */
    CHECK_INT(ls_link_in_request(lo - k, hi - 1, &rq, 0, k), 1);
    CHECK_INT(ls_link_in_request(lo - k - 1, hi - 1, &rq, 0, k), 0);
    /* no slack: one microsecond either side is out */
    CHECK_INT(ls_link_in_request(lo - 1, hi, &rq, 0, 0), 0);
    CHECK_INT(ls_link_in_request(lo, hi + 1, &rq, 0, 0), 0);
    /* wider than the request at both ends */
    CHECK_INT(ls_link_in_request(lo - k - 1, hi + k + 1, &rq, 0, k), 0);
    /* an open transaction is taken at its start (tx_end == tx_start) */
    CHECK_INT(ls_link_in_request(hi + k, hi + k, &rq, 0, k), 1);
    CHECK_INT(ls_link_in_request(hi + k + 1, hi + k + 1, &rq, 0, k), 0);
    /* whole-second logs: the slack grows by a second */
    CHECK_INT(ls_link_in_request(lo + 1, hi + LS_WHOLE_SECOND_US, &rq, 0,
                                 k + LS_WHOLE_SECOND_US), 1);
    /* the offset moves the request onto the database clock: 2 s ahead */
    CHECK_INT(ls_link_in_request(lo + 2000000, hi + 2000000, &rq, 2000000, 0), 1);
    CHECK_INT(ls_link_in_request(lo + 2000000, hi + 2000000 + 1, &rq, 2000000, 0), 0);
    CHECK_INT(ls_link_in_request(lo, hi, &rq, 2000000, k), 0);
    /* no root span: the spans' extent, with the same boundaries */
    CHECK_INT(ls_link_in_request(lo - k, hi + k, &noroot, 0, k), 1);
    CHECK_INT(ls_link_in_request(lo - k - 1, hi, &noroot, 0, k), 0);
    CHECK_INT(ls_link_in_request(lo, hi + k + 1, &noroot, 0, k), 0);
    /* a root span: a transaction inside the spans but after the root is out */
    CHECK_INT(ls_link_in_request(lo, hi + 2 * k, &rq, 0, k), 0);
}

/* blind-otel, trace 1c2b1229 (POST /transfer, its root span 1101 ms,
 * offset -344 us): two sessions' transactions sent its statements; the
 * one of another request (trace 9a8bd01b) ended 906 ms after the request
 * (times of samples/blind-otel's store, as the old binary linked them). */
static void test_other_request(void)
{
    const ls_request rq = {1, 1796536319710000, 1796536320811108, 1796536319710000,
                           1796536320811108};

    CHECK_INT(ls_link_in_request(1796536319911872, 1796536320717000, &rq, -344,
                                 LS_REQUEST_SLACK_US), 1);
    CHECK_INT(ls_link_in_request(1796536319906946, 1796536321717000, &rq, -344,
                                 LS_REQUEST_SLACK_US), 0);
}

int main(void)
{
    test_boundaries();
    test_crowd();
    test_in_request();
    test_other_request();
    return TEST_REPORT();
}
