/*
 * spantx.c — a logged statement's transaction from its request's trace
 * (spantx.h argues for it).
 */
#include "decide/spantx.h"

#include "decide/tolerances.h"

static int tx_edge(ls_sql_kind k)
{
    return k == LS_SQL_BEGIN || k == LS_SQL_COMMIT || k == LS_SQL_ROLLBACK;
}

static int tx_end(ls_sql_kind k)
{
    return k == LS_SQL_COMMIT || k == LS_SQL_ROLLBACK;
}

int ls_span_tx_of(const ls_tx_span *v, size_t n, size_t k, size_t *first, size_t *last)
{
    size_t i;
    int begun = 0;

    if (k >= n || tx_edge(v[k].kind))
        return 0;
    for (i = k; i-- > 0;) {
        if (tx_end(v[i].kind))
            return 0;
        if (v[i].kind == LS_SQL_BEGIN) {
            *first = i;
            begun = 1;
            break;
        }
    }
    if (!begun)
        return 0;
    for (i = k + 1; i < n; i++) {
        if (v[i].kind == LS_SQL_BEGIN)
            return 0;
        if (tx_end(v[i].kind)) {
            *last = i;
            return 1;
        }
    }
    return 0;
}

/* A statement logged at st ran from st->start to st->end, each up to res
 * later: inside sp when it could have. The span holds its statement: it
 * lasted no less than the statement, less each end's millisecond
 * (LS_SPAN_LOG_SLACK_US; `slack` may be wider, the clock offset's, which
 * moves both ends alike). With res 0 and the millisecond slack the two
 * ends' tests imply it; on a whole-second log they do not: a 0.8 ms span
 * of the text in the second a 63 ms statement was stamped is not its
 * (blind-pool %t + traces, a transfer's UPDATE accounts). */
static int is_span_of(const ls_tx_span *sp, const ls_tx_logged *st, int64_t res, int64_t slack)
{
    return sp->text == st->text && sp->start - slack <= st->start + res &&
           st->end <= sp->end + slack &&
           st->end - st->start <= sp->end - sp->start + 2 * LS_SPAN_LOG_SLACK_US;
}

int ls_span_tx_fits(const ls_tx_span *v, size_t first, size_t last, const ls_tx_logged *st,
                    size_t n, int64_t res, int64_t slack)
{
    size_t i, j;

    for (i = 0; i < n; i++) {
        int ours = 0;
        /* ran inside it whatever its time within the log's resolution:
         * after the BEGIN's end even at its earliest, before the COMMIT's
         * start even at its latest */
        if (st[i].end <= v[first].end + slack || st[i].start + res >= v[last].start - slack)
            continue;
        for (j = first + 1; j < last && !ours; j++)
            ours = is_span_of(&v[j], &st[i], res, slack);
        if (!ours)
            return 0;
    }
    return 1;
}

/* The first of st[0..n) (sorted by start) that starts at t or later. */
static size_t first_from(const ls_tx_logged *st, size_t n, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (st[mid].start < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int ls_span_tx_logged(const ls_tx_span *v, size_t first, size_t last, const ls_tx_logged *st,
                      size_t n, int64_t res, int64_t slack)
{
    size_t i, j;

    for (j = first; j <= last; j++) {
        int edge = j == first || j == last;
        int64_t r = edge ? 0 : res;
        /* is_span_of: st.start >= sp.start - slack - r, and st.start <=
         * st.end <= sp.end + slack */
        for (i = first_from(st, n, v[j].start - slack - r);
             i < n && st[i].start <= v[j].end + slack; i++)
            if (is_span_of(&v[j], &st[i], r, slack) && (!edge || st[i].end >= v[j].end - slack))
                return 1;
    }
    return 0;
}

int ls_span_may_be_logged(int error)
{
    return error == 0;
}

/* Whether a span of duration e may be a statement's of duration d. */
static int dur_fits(int64_t d, int64_t e, int64_t lo, int64_t hi)
{
    return e >= d - lo && e <= d + hi;
}

long ls_span_pick_in_order(const int64_t *d, size_t nl, const int64_t *e, size_t ns, size_t rank,
                           int64_t lo, int64_t hi)
{
    size_t i, j, m = 0;
    long pick = -1;

    if (rank >= nl)
        return -1;
    /* the spans that may be one of them, paired in order */
    for (j = 0; j < ns; j++) {
        int any = 0;
        for (i = 0; i < nl && !any; i++)
            any = dur_fits(d[i], e[j], lo, hi);
        if (!any)
            continue;
        if (m >= nl || !dur_fits(d[m], e[j], lo, hi))
            return -1;
        if (m == rank)
            pick = (long)j;
        m++;
    }
    return m == nl ? pick : -1;
}

int ls_span_hold_start(const ls_tx_span *sp, int64_t stamp, int64_t *acquired, int64_t *stmt_start)
{
    if (sp->end < stamp)
        return 0;
    *acquired = sp->end;
    *stmt_start = sp->start < sp->end ? sp->start : sp->end;
    return 1;
}

int ls_span_victim_tx(const ls_tx_span *v, size_t n, size_t begin, size_t *last)
{
    size_t first;
    if (begin + 1 >= n || v[begin].kind != LS_SQL_BEGIN ||
        !ls_span_tx_of(v, n, begin + 1, &first, last) || first != begin)
        return 0;
    return 1;
}
