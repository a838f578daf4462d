/*
 * vote.c — a transaction's span by the vote of its statements, and whether
 * it lies inside that span's request (vote.h).
 */
#include "vote.h"

#include <string.h>

/* Does the run of votes from `run` (count, sum) beat the best so far? */
static int beats(const ls_span_vote *v, size_t run, size_t count, int64_t sum, size_t best,
                 size_t best_count, int64_t best_sum)
{
    if (count != best_count)
        return count > best_count;
    if (sum != best_sum)
        return sum < best_sum;
    return strcmp(v[run].trace_id, v[best].trace_id) < 0;
}

size_t ls_vote_span(const ls_span_vote *v, size_t n)
{
    size_t i = 0, best = 0, best_count = 0;
    int64_t best_sum = 0;

    /* One run per trace: its votes' count and distance, and its nearest. */
    while (i < n) {
        size_t run = i, nearest = i, count = 0;
        int64_t sum = 0;
        for (; i < n && strcmp(v[i].trace_id, v[run].trace_id) == 0; i++) {
            count++;
            sum += v[i].d;
            if (v[i].d < v[nearest].d)
                nearest = i;
        }
        if (run == 0 || beats(v, run, count, sum, best, best_count, best_sum)) {
            best = nearest;
            best_count = count;
            best_sum = sum;
        }
    }
    return best;
}

int ls_link_in_request(int64_t tx_start, int64_t tx_end, const ls_request *rq, int64_t offset,
                       int64_t slack)
{
    int64_t lo = (rq->has_root ? rq->root_start : rq->span_start) + offset;
    int64_t hi = (rq->has_root ? rq->root_end : rq->span_end) + offset;

    return tx_start >= lo - slack && tx_end <= hi + slack;
}
