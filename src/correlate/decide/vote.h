/*
 * vote.h — which database span a transaction links to by its statements
 * (traces.c, link_by_statement). Spans and logged statements of one shape
 * are paired best first, each used once; each pair is a vote of the
 * statement's transaction for the span's trace. Concurrent transactions
 * of one code path send the same text, so a single pair can be wrong: a
 * transaction joins the trace most of its statements came from.
 */
#ifndef LS_DECIDE_VOTE_H
#define LS_DECIDE_VOTE_H

#include <stddef.h>
#include <stdint.h>

/* One pair: the span (its trace and row) a statement of the transaction
 * was matched to, d microseconds apart (after the clock offset). */
typedef struct ls_span_vote {
    const char *trace_id;
    int64_t span_row;
    int64_t d;
} ls_span_vote;

/*
 * The vote, of one transaction's n, whose span the transaction links to:
 * the trace with the most votes (on a tie, the smaller sum of d, then the
 * smaller trace id); of that trace's votes, the nearest (on a tie, the
 * first in v). v holds each trace's votes together (sorted by trace id,
 * say). Returns its index; 0 when n is 0.
 */
size_t ls_vote_span(const ls_span_vote *v, size_t n);

/* A trace's request in the application's clock: its root span (a span
 * without a parent; the extent of them if several), and the extent of
 * all its spans, which stands for it when no root span was exported. */
typedef struct ls_request {
    int has_root;
    int64_t root_start, root_end;
    int64_t span_start, span_end;
} ls_request;

/*
 * May a transaction from tx_start to tx_end (database clock; tx_end ==
 * tx_start when it has no end) link to the trace whose request is rq?
 * The request is its root span, else its spans' extent, moved onto the
 * database clock by offset (the database clock less the application's).
 * Yes when each end of the transaction lies inside, or outside by no more
 * than slack (>= 0): the boundary itself is in. A transaction of another
 * request that sends the trace's statements, or its pid, at the moment
 * begins or ends outside (issue 34 item 7).
 */
int ls_link_in_request(int64_t tx_start, int64_t tx_end, const ls_request *rq, int64_t offset,
                       int64_t slack);

#endif
