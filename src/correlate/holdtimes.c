/*
 * holdtimes.c — how long each hold lasted when the log's times are whole
 * seconds (%t): the range the log allows and an estimate, each end in the
 * middle of its second (decide/holdrange.h argues for it), in hold_range,
 * which the occupancy ranking sums (reports/codepaths.c). Run with the
 * code paths pass, after the final holds are written. A log with
 * sub-second times (but those a span gave, stmt_span_time) needs none:
 * hold_range stays empty and the ranking takes each hold's end minus its
 * start. A hold's end is exact when a span timed it (its locking
 * statement's end, its transaction's last statement, in stmt_span_time);
 * any other end lies within a second of its time: a stamp, or a time
 * derived from one (a stamp less a logged duration or wait).
 */
#include <stdint.h>

#include "correlate_int.h"
#include "decide/holdrange.h"
#include "decide/tolerances.h"
#include "ls_columns.h"

/* Whole seconds: no statement's log time, but those spans gave, and no
 * lock message has sub-second digits, and there is a statement or a
 * lock message. */
static const char whole_sql[] =
    "SELECT NOT EXISTS (SELECT 1 FROM statements WHERE log_ts % " LS_SQL_INT(LS_WHOLE_SECOND_US)
    "  <> 0 AND stmt_id NOT IN (SELECT stmt_id FROM stmt_span_time))"
    " AND NOT EXISTS (SELECT 1 FROM lock_event_rows WHERE ts % " LS_SQL_INT(LS_WHOLE_SECOND_US)
    "  <> 0)"
    " AND (EXISTS (SELECT 1 FROM stmt_rows) OR EXISTS (SELECT 1 FROM lock_event_rows))";

#define HOLD_COLS(X, Q)                                                                      \
    X(Q, hold_id, "h.hold_id")                                                               \
    X(Q, start_ts, "h.start_ts")                                                             \
    X(Q, start_lo, "h.start_lo")                                                             \
    X(Q, start_hi, "h.start_hi")                                                             \
    X(Q, end_ts, "h.end_ts")                                                                 \
    X(Q, end_lo, "h.end_lo")                                                                 \
    X(Q, end_hi, "h.end_hi")                                                                 \
    X(Q, start_exact, "EXISTS (SELECT 1 FROM stmt_span_time x WHERE x.stmt_id = h.lock_stmt)") \
    X(Q, end_exact, "EXISTS (SELECT 1 FROM transactions t JOIN stmt_span_time x"             \
                    " ON x.stmt_id = t.last_stmt WHERE t.tx_id = h.tx_id)")
LS_COLUMNS(hq, HOLD_COLS);
static const char holds_sql[] =
    "SELECT " LS_SELECT_LIST(hq, HOLD_COLS) " FROM holds h"
    " WHERE h.start_ts IS NOT NULL AND h.end_ts IS NOT NULL";

static const char insert_sql[] =
    "INSERT INTO hold_range(hold_id, lo_us, hi_us, est_us) VALUES (?1, ?2, ?3, ?4)";

/* One end of the hold in row q: exact when a span timed it, else within
 * the second from its time. */
static void edge_of(ls_stmt *q, int ts, int lo, int hi, int exact, ls_hold_edge *e)
{
    e->ts = ls_stmt_int64(q, ts);
    e->lo = ls_stmt_int64(q, lo);
    e->hi = ls_stmt_int64(q, hi);
    e->res = ls_stmt_int64(q, exact) ? 0 : LS_WHOLE_SECOND_US;
}

int ls_correlate_hold_ranges(ls_store *s)
{
    ls_stmt *q = NULL, *ins = NULL;
    int rc, whole = 0;

    if ((rc = ls_store_prepare(s, whole_sql, &q)) != 0)
        return rc;
    if ((rc = ls_stmt_step(q)) == 1)
        whole = (int)ls_stmt_int64(q, 0);
    ls_stmt_finalize(q);
    q = NULL;
    if (rc < 0 || !whole)
        return rc < 0 ? rc : 0;
    if ((rc = ls_store_prepare(s, holds_sql, &q)) != 0 ||
        (rc = ls_store_prepare(s, insert_sql, &ins)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        ls_hold_edge a, b;
        ls_hold_range r;
        edge_of(q, hq_start_ts, hq_start_lo, hq_start_hi, hq_start_exact, &a);
        edge_of(q, hq_end_ts, hq_end_lo, hq_end_hi, hq_end_exact, &b);
        ls_hold_range_of(&a, &b, &r);
        ls_stmt_reset(ins);
        ls_stmt_bind_int64(ins, 1, ls_stmt_int64(q, hq_hold_id));
        ls_stmt_bind_int64(ins, 2, r.lo);
        ls_stmt_bind_int64(ins, 3, r.hi);
        ls_stmt_bind_int64(ins, 4, r.est);
        if ((rc = ls_stmt_step(ins)) < 0)
            goto out;
    }
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(ins);
    return rc < 0 ? rc : 0;
}
