/*
 * holdrange.c — when a hold began and ended and how long it lasted, from
 * whole-second log times: intervals, range and estimate (holdrange.h).
 *
 * Why these intervals. A %t stamp is the second the server wrote the
 * line in; the event it tells of (a statement's start, a lock acquired)
 * lay in that second. A hold's end is the release of its locks when the
 * transaction's COMMIT (or ROLLBACK, or error) ran: after the line that
 * logged it (PostgreSQL releases them after the commit record is
 * flushed), so a COMMIT may cross into the next second: on
 * samples/blind-py pid 10461's COMMIT logged at 08:12:09 returned
 * 1.7 ms into 08:12:10. The next line of the same session is logged only
 * after the client had its answer (08:12:11 there), so its second bounds
 * the end; nothing tighter is sound for a hold nobody queued behind.
 * Holds of one row follow each other: one transaction holds a row lock
 * at a time, so the next holder took the row no earlier than the one
 * before it began to release it (its COMMIT's line). The other way round
 * (the one before released the row before the next holder's
 * acquisition, which the server logged) is true of the server's release
 * but not of the moment the holder's client saw its COMMIT return, the
 * truth the samples' applications record, nor where the row's order read
 * from the log is wrong: on samples/blind-py 11 of 245 returns came after
 * the second of the next hold's start ended, 8 by 20-112 ms (a Python
 * client's thread scheduled late), 3 by 0.6-1.2 s; so an end is not
 * narrowed by the next start.
 *
 * Why this estimate. Each end is put in the middle of its second, the
 * expected value given uniform placement within it: for two stamped
 * ends the estimate is the stamps' difference. For one hold that is
 * coarse (a 2 ms hold that crosses a second counts 1 s, one that does not
 * counts 0), but it is unbiased where it matters, in the totals the
 * ranking sums: a hold of length d whose start falls uniformly in its
 * second crosses floor(d) + 1 boundaries with probability frac(d) and
 * floor(d) otherwise, so its expected stamps' difference is d exactly,
 * and a path's many short holds sum to their true total. The middle of
 * the feasible range is not unbiased (a hold within one second would
 * count 500 ms). Placing an end by its line's rank among the lines of
 * its second, (k + 1/2) / n, was tried and measured worse: a log's lines
 * come in bursts (a COMMIT wakes a queue that logs at once), so ranks
 * spread what happened in one instant over the second; on samples/
 * app-seconds it put the paths of 155 ms of true holds at 3.1 s (this
 * estimate: 0 s; 4.5 s of the other path's at 3.7 s, this: 5.0 s), and
 * it was further from the millisecond log's totals on most whole-second
 * copies of the samples (tools/compare_reports.sh). Where an end is exact (a
 * span's time, or derived from a logged duration) it is taken as it is.
 * Each end's point is kept within its (narrowed) interval, the estimate
 * within what the log allows.
 */
#include "holdrange.h"

#define HALF 2 /* the middle of a second: res / HALF */

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

void ls_hold_when_of(const ls_hold_edge *start, const ls_hold_edge *end, int64_t next,
                     ls_hold_when *out)
{
    int64_t end_hi = end->hi + end->res;

    out->aside = 0;
    out->start.lo = start->lo;
    out->start.hi = start->hi + start->res;
    out->end.lo = end->lo;
    if (end->res == 0)
        out->end.hi = end->hi;
    else if (next != LS_NO_NEXT)
        out->end.hi = end->hi > end->ts ? min64(end_hi, next) : max64(next, out->end.lo);
    else
        out->end.hi = end_hi;
    if (out->end.hi < out->end.lo)
        out->end.hi = out->end.lo;
    /* a hold starts no later than it ends */
    if (out->start.hi > out->end.hi)
        out->start.hi = max64(out->end.hi, out->start.lo);
    if (out->end.lo < out->start.lo)
        out->end.lo = min64(out->start.lo, out->end.hi);
}

/* Raise w's lo to at least lo, where that leaves it non-empty. */
static void raise_lo(ls_when *w, int64_t lo)
{
    if (lo > w->lo && lo <= w->hi)
        w->lo = lo;
}

void ls_hold_when_row(ls_hold_when *h, size_t n)
{
    const ls_hold_when *before = NULL;
    size_t i;

    for (i = 0; i < n; i++) {
        if (h[i].aside)
            continue;
        if (before) {
            raise_lo(&h[i].start, before->end.lo);
            raise_lo(&h[i].end, h[i].start.lo);
        }
        before = &h[i];
    }
}

void ls_hold_range_when(const ls_hold_edge *start, const ls_hold_edge *end, const ls_hold_when *w,
                        ls_hold_range *out)
{
    int64_t a = clamp64(start->ts + start->res / HALF, w->start.lo, w->start.hi);
    int64_t b = clamp64(end->ts + end->res / HALF, w->end.lo, w->end.hi);

    out->lo = max64(w->end.lo - w->start.hi, 0);
    out->hi = max64(w->end.hi - w->start.lo, out->lo);
    out->est = clamp64(b - a, out->lo, out->hi);
}

void ls_hold_range_of(const ls_hold_edge *start, const ls_hold_edge *end, ls_hold_range *out)
{
    ls_hold_when w;

    ls_hold_when_of(start, end, LS_NO_NEXT, &w);
    ls_hold_range_when(start, end, &w, out);
}

int64_t ls_hold_row_cap(int64_t path_lo, int64_t path_hi, int64_t all_lo, int64_t span)
{
    int64_t room = span - (all_lo - path_lo);
    return max64(min64(path_hi, room), path_lo);
}
