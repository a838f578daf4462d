/*
 * holdrange.h — when a hold began and ended, and how long it lasted, when
 * the log gives its times in whole seconds (%t): the interval each end
 * truly lay in, narrowed by what the log's order says (a session's next
 * line, the hold before it on its row), the range of its length and a
 * best estimate (holdrange.c, the code paths pass). The report shows the
 * intervals as each hold's bounds; the occupancy ranking sums the ranges
 * and the estimates: the estimate ranks, the ranges say where two paths'
 * order is uncertain.
 */
#ifndef LS_DECIDE_HOLDRANGE_H
#define LS_DECIDE_HOLDRANGE_H

#include <stddef.h>
#include <stdint.h>

#include "ls_range.h"

/*
 * One end of a hold as the log gives it: its time and bounds (ts within
 * [lo, hi]), and the resolution of the log times they are: 0, exact (a
 * span's microsecond); a second for a %t stamp or a time derived from one
 * (less a logged duration), the event then lay in [lo, hi + res).
 */
typedef struct ls_hold_edge {
    int64_t ts, lo, hi, res;
} ls_hold_edge;

/* A hold's length: what the log allows (lo..hi) and the estimate. */
typedef struct ls_hold_range {
    int64_t lo, hi, est;
} ls_hold_range;

/* The interval [lo, hi] (µs, both included) an instant truly lay in. */
typedef struct ls_when {
    int64_t lo, hi;
} ls_when;

/* Where a hold's start and its end truly lay; aside: not narrowed by
 * its row's order, nor narrowing it (ls_hold_when_row). */
typedef struct ls_hold_when {
    ls_when start, end;
    int aside;
} ls_hold_when;

/* No later line of the session: the `next` of ls_hold_when_of(). */
#define LS_NO_NEXT INT64_MAX

/*
 * Where the hold from `start` to `end` truly began and ended. An end
 * stamped in whole seconds lay within the second of its stamp: [lo, hi +
 * res]; an exact one at its time. The end (the locks released, as the
 * transaction's COMMIT, ROLLBACK or error returned) lay before `next`,
 * the latest time of the session's next log line after the transaction
 * (its stamp + its resolution; LS_NO_NEXT: none): the client sent nothing
 * before its COMMIT returned, and a COMMIT can cross a second boundary.
 * Without a next line the end is taken to lie within the second of its
 * time, or of its bound when the evidence gave one (hi > ts: the first
 * waiter's acquisition). A hold starts no later than it ends. out->aside
 * is 0.
 */
void ls_hold_when_of(const ls_hold_edge *start, const ls_hold_edge *end, int64_t next,
                     ls_hold_when *out);

/*
 * Narrow the holds h[0..n) of one row, in the order they held it: one
 * transaction holds a row lock at a time, so each hold began no earlier
 * than the one before it began to end (h[i].start.lo >= h[i-1].end.lo),
 * and ended no earlier than it began; carried along the row. The ends
 * are not narrowed by the next start (holdrange.c says why). A hold set
 * aside (its place in the order is not known: an error ended it, whose
 * line is not where its transaction's last statement is, or it held
 * nothing, a failed statement's) is skipped: the holds either side of it
 * narrow each other. A narrowing that would leave an interval empty (the
 * order or the evidence contradicts it) is not made. n == 0: nothing.
 */
void ls_hold_when_row(ls_hold_when *h, size_t n);

/*
 * The length of a hold that began in w->start and ended in w->end (see
 * ls_hold_when_of): lo, the end's earliest minus the start's latest
 * (never below 0); hi, the end's latest minus the start's earliest. est:
 * each end in the middle of its second (ts + res / 2), kept within its
 * interval, the difference kept within [lo, hi].
 */
void ls_hold_range_when(const ls_hold_edge *start, const ls_hold_edge *end, const ls_hold_when *w,
                        ls_hold_range *out);

/* ls_hold_range_when() of ls_hold_when_of() with no next line: the
 * length as the hold's own times allow. */
void ls_hold_range_of(const ls_hold_edge *start, const ls_hold_edge *end, ls_hold_range *out);

/*
 * The most a code path can have held one row, in all (µs): the holds of a
 * row do not overlap (one transaction holds a row lock at a time, as
 * ls_hold_when_row() reads the row's order), so together they lay within
 * the row's span, from its earliest hold's earliest start to its latest
 * hold's latest end, of which the other paths' holds took at least their
 * lengths' lo. path_lo, path_hi: the path's holds of the row, their
 * lengths' lo and hi summed; all_lo: every path's (path_lo among them).
 * Returns min(path_hi, span - (all_lo - path_lo)), never below path_lo
 * (samples/blind-java: 49 holds of warehouses id=1 by one path, each of
 * 0 to 2 s on whole-second stamps, 0.0-134.9 s summed in a 39 s log).
 */
int64_t ls_hold_row_cap(int64_t path_lo, int64_t path_hi, int64_t all_lo, int64_t span);

/* ls_ranges_overlap(): whether two totals' ranges meet (ls_range.h). */

#endif
