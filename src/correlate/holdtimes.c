/*
 * holdtimes.c — how long each hold lasted when the log's times are whole
 * seconds (%t): the range the log allows and an estimate that places each
 * end in its second by where its line was written (decide/holdrange.h
 * argues for it), in hold_range, which the occupancy ranking sums
 * (reports/codepaths.c). Run with the code paths pass, after the final
 * holds are written. A log with sub-second times (or a statement a span
 * timed, stmt_span_time) needs none: hold_range stays empty and the
 * ranking takes each hold's end minus its start.
 *
 * The line of a hold's start is its locking statement's, when the log
 * time of that statement is the start; of its end, its transaction's
 * last statement's (the COMMIT or ROLLBACK logged when it began), when
 * that is the end. A second's lines are those of the statements and lock
 * messages stamped with it in one file: the k-th of n lies at (k + 1/2) / n
 * of the second (a record's first line counts; the lines of one second
 * are consecutive in the file).
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

/* Each second's first line and line count, per file: statements by their
 * log time (the logged one where a span retimed them), lock messages. */
static const char seconds_sql[] =
    "DROP TABLE IF EXISTS temp.sec_lines;"
    "CREATE TEMP TABLE sec_lines(file_id INTEGER, sec INTEGER, first_line INTEGER,"
    " lines INTEGER, PRIMARY KEY (file_id, sec)) WITHOUT ROWID;"
    "INSERT INTO sec_lines SELECT file_id, sec, min(line), max(line) - min(line) + 1 FROM ("
    " SELECT st.file_id, coalesce(x.log_ts, st.start_ts) AS sec, st.line FROM stmt_rows st"
    "  LEFT JOIN stmt_span_time x ON x.stmt_id = st.stmt_id"
    "  WHERE st.verb IS NOT 5 AND st.line IS NOT NULL AND st.start_ts IS NOT NULL" /* LS_VERB_SPAN */
    " UNION ALL SELECT file_id, ts, line FROM lock_event_rows"
    "  WHERE line IS NOT NULL AND ts IS NOT NULL)"
    " GROUP BY file_id, sec;";

#define HOLD_COLS(X, Q)                                                                      \
    X(Q, hold_id, "h.hold_id")                                                               \
    X(Q, start_ts, "h.start_ts")                                                             \
    X(Q, start_lo, "h.start_lo")                                                             \
    X(Q, start_hi, "h.start_hi")                                                             \
    X(Q, end_ts, "h.end_ts")                                                                 \
    X(Q, end_lo, "h.end_lo")                                                                 \
    X(Q, end_hi, "h.end_hi")                                                                 \
    X(Q, start_k, "ls.line - ss.first_line")                                                 \
    X(Q, start_n, "ss.lines")                                                                \
    X(Q, end_k, "le.line - se.first_line")                                                   \
    X(Q, end_n, "se.lines")
LS_COLUMNS(hq, HOLD_COLS);
static const char holds_sql[] =
    "SELECT " LS_SELECT_LIST(hq, HOLD_COLS) " FROM holds h"
    " LEFT JOIN stmt_rows ls ON ls.stmt_id = h.lock_stmt AND ls.dur_us IS NULL"
    "  AND ls.start_ts = h.start_ts"
    " LEFT JOIN sec_lines ss ON ss.file_id = ls.file_id AND ss.sec = h.start_ts"
    " LEFT JOIN transactions t ON t.tx_id = h.tx_id"
    " LEFT JOIN stmt_rows le ON le.stmt_id = t.last_stmt AND le.dur_us IS NULL"
    "  AND le.start_ts = h.end_ts"
    " LEFT JOIN sec_lines se ON se.file_id = le.file_id AND se.sec = h.end_ts"
    " WHERE h.start_ts IS NOT NULL AND h.end_ts IS NOT NULL";

static const char insert_sql[] =
    "INSERT INTO hold_range(hold_id, lo_us, hi_us, est_us) VALUES (?1, ?2, ?3, ?4)";

/* One end of the hold in row q: a whole-second time has the second's
 * resolution and its line's place in it. */
static void edge_of(ls_stmt *q, int ts, int lo, int hi, int k, int n, ls_hold_edge *e)
{
    e->ts = ls_stmt_int64(q, ts);
    e->lo = ls_stmt_int64(q, lo);
    e->hi = ls_stmt_int64(q, hi);
    e->res = e->ts % LS_WHOLE_SECOND_US == 0 ? LS_WHOLE_SECOND_US : 0;
    e->frac = ls_stmt_isnull(q, k) || ls_stmt_isnull(q, n)
                  ? -1
                  : ls_line_frac(ls_stmt_int64(q, k), ls_stmt_int64(q, n));
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
    if ((rc = ls_store_exec(s, seconds_sql)) != 0 ||
        (rc = ls_store_prepare(s, holds_sql, &q)) != 0 ||
        (rc = ls_store_prepare(s, insert_sql, &ins)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        ls_hold_edge a, b;
        ls_hold_range r;
        edge_of(q, hq_start_ts, hq_start_lo, hq_start_hi, hq_start_k, hq_start_n, &a);
        edge_of(q, hq_end_ts, hq_end_lo, hq_end_hi, hq_end_k, hq_end_n, &b);
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
    if (rc >= 0) {
        int rc2 = ls_store_exec(s, "DROP TABLE IF EXISTS temp.sec_lines");
        if (rc2 != 0)
            rc = rc2;
    }
    return rc < 0 ? rc : 0;
}
