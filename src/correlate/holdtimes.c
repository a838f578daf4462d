/*
 * holdtimes.c — when each hold began and ended and how long it lasted
 * when the log's times are whole seconds (%t): where each end truly lay
 * (the report's bounds), the range the length may take and an estimate
 * (decide/holdrange.h argues for them), in hold_range, which the
 * occupancy ranking sums (reports/codepaths.c) and the report's holds
 * show. Run with the code paths pass, after the final holds are written.
 * A log with sub-second times (but those a span gave, stmt_span_time)
 * needs none: hold_range stays empty and the ranking takes each hold's
 * end minus its start. A hold's end is exact when a span timed it (its
 * locking statement's end, its transaction's last statement, in
 * stmt_span_time); any other end lies within a second of its time: a
 * stamp, or a time derived from one (a stamp less a logged duration or
 * wait), and before the session's next logged statement. The holds of one
 * row (not a relation's lock, which many hold at once) are taken in the
 * order they held it, and narrowed by it (ls_hold_when_row): one after
 * another, they end in the order they start, so by their ends, and
 * within one second by the log position of their transactions' last
 * statements (a COMMIT is logged as it starts, before its locks are
 * released, so before the next holder's); by the starts within a second
 * they would not be (a statement logged first may have queued behind
 * one logged after it).
 */
#include <stdint.h>
#include <stdlib.h>

#include "correlate_int.h"
#include "decide/hold.h"
#include "decide/holdrange.h"
#include "decide/tolerances.h"
#include "holdrange_schema.h"
#include "ls_columns.h"

/* txspans.c's evidence of a hold's start taken from its locking
 * statement's span (whole-second logs); its end at the request's COMMIT
 * or ROLLBACK span ends in " span of its request (not logged)". */
#define LS_HOLD_SPAN_START "end of the span of the locking statement"

/* Whole seconds: no statement's log time, but those spans gave, and no
 * lock message has sub-second digits, and there is a statement or a
 * lock message. */
static const char whole_sql[] =
    "SELECT NOT EXISTS (SELECT 1 FROM statements WHERE log_ts % " LS_SQL_INT(LS_WHOLE_SECOND_US)
    "  <> 0 AND stmt_id NOT IN (SELECT stmt_id FROM stmt_span_time))"
    " AND NOT EXISTS (SELECT 1 FROM lock_event_rows WHERE ts % " LS_SQL_INT(LS_WHOLE_SECOND_US)
    "  <> 0)"
    " AND (EXISTS (SELECT 1 FROM stmt_rows) OR EXISTS (SELECT 1 FROM lock_event_rows))";

/* hold_range as a store of schema 15 written before its bounds' columns
 * has it: made again (the pass fills it whole). */
static const char layout_sql[] =
    "SELECT count(*) FROM pragma_table_info('hold_range') WHERE name = 'end_hi'";
static const char remake_sql[] = "DROP TABLE IF EXISTS hold_range; " LS_HOLD_RANGE_DDL;

/* The session's next logged statement after the hold's transaction (a
 * span's own statement is no line of the log): its stamp. */
#define NEXT_LINE_SQL                                                                       \
    "(SELECT n.start_ts FROM transactions t JOIN stmt_rows n ON n.session_id = t.session_id" \
    " WHERE t.tx_id = h.tx_id AND n.start_ts >= h.end_ts AND n.stmt_id > t.last_stmt"       \
    " AND n.verb <> 5 /* LS_VERB_SPAN */ ORDER BY n.start_ts, n.stmt_id LIMIT 1)"

#define HOLD_COLS(X, Q)                                                                      \
    X(Q, hold_id, "h.hold_id")                                                               \
    X(Q, row_id, "h.row_id")                                                                 \
    X(Q, relation_lock, "h.row_id IN (SELECT row_id FROM relation_lock_rows)")               \
    X(Q, start_ts, "h.start_ts")                                                             \
    X(Q, start_lo, "h.start_lo")                                                             \
    X(Q, start_hi, "h.start_hi")                                                             \
    X(Q, end_ts, "h.end_ts")                                                                 \
    X(Q, end_lo, "h.end_lo")                                                                 \
    X(Q, end_hi, "h.end_hi")                                                                 \
    X(Q, start_exact, "EXISTS (SELECT 1 FROM stmt_span_time x WHERE x.stmt_id = h.lock_stmt)" \
                      " OR h.start_evidence = '" LS_HOLD_SPAN_START "'")                       \
    X(Q, end_exact, "EXISTS (SELECT 1 FROM transactions t JOIN stmt_span_time x"             \
                    " ON x.stmt_id = t.last_stmt WHERE t.tx_id = h.tx_id)"                   \
                    " OR h.end_evidence GLOB '* span of its request (not logged)'")          \
    X(Q, next_ts, NEXT_LINE_SQL)                                                             \
    X(Q, aborted, "h.end_evidence = '" LS_HOLD_ABORTED "'")
LS_COLUMNS(hq, HOLD_COLS);
static const char holds_sql[] =
    "SELECT " LS_SELECT_LIST(hq, HOLD_COLS) " FROM holds h"
    " LEFT JOIN transactions ht ON ht.tx_id = h.tx_id"
    " LEFT JOIN stmt_rows lastst ON lastst.stmt_id = ht.last_stmt"
    " WHERE h.start_ts IS NOT NULL AND h.end_ts IS NOT NULL"
    " ORDER BY h.row_id, h.end_ts, lastst.file_id, lastst.line, h.start_ts, h.hold_id";

LS_TABLE_COLUMNS(hold_range);
static const char insert_sql[] = LS_INSERT_INTO("INSERT", hold_range);

#define ROW_HOLDS_FIRST 16 /* holds of a row room is first made for */

/* One hold of the row being read: its ends as the log gives them. */
typedef struct held {
    int64_t hold_id;
    ls_hold_edge start, end;
} held;

/* The holds of one row, in the order they held it: h[i]'s ends, and
 * w[i], where they truly lay. */
typedef struct row_holds {
    int64_t row_id;
    int relation_lock; /* a relation's lock: held by many at once, not narrowed */
    held *h;
    ls_hold_when *w;
    size_t n, cap;
} row_holds;

/* One end of the hold in row q: exact when a span timed it, else within
 * the second from its time. */
static void edge_of(ls_stmt *q, int ts, int lo, int hi, int exact, ls_hold_edge *e)
{
    e->ts = ls_stmt_int64(q, ts);
    e->lo = ls_stmt_int64(q, lo);
    e->hi = ls_stmt_int64(q, hi);
    e->res = ls_stmt_int64(q, exact) ? 0 : LS_WHOLE_SECOND_US;
}

/* Append the hold in row q to r; LS_ENOMEM when out of memory. */
static int add_hold(row_holds *r, ls_stmt *q)
{
    held *x;
    int64_t next = LS_NO_NEXT;

    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : ROW_HOLDS_FIRST;
        held *nh = realloc(r->h, cap * sizeof(*nh));
        ls_hold_when *nw;
        if (!nh)
            return LS_ENOMEM;
        r->h = nh;
        if (!(nw = realloc(r->w, cap * sizeof(*nw))))
            return LS_ENOMEM;
        r->w = nw;
        r->cap = cap;
    }
    x = &r->h[r->n];
    x->hold_id = ls_stmt_int64(q, hq_hold_id);
    edge_of(q, hq_start_ts, hq_start_lo, hq_start_hi, hq_start_exact, &x->start);
    edge_of(q, hq_end_ts, hq_end_lo, hq_end_hi, hq_end_exact, &x->end);
    if (!ls_stmt_isnull(q, hq_next_ts))
        next = ls_stmt_int64(q, hq_next_ts) + LS_WHOLE_SECOND_US;
    ls_hold_when_of(&x->start, &x->end, next, &r->w[r->n]);
    /* an error's line is not where the transaction's last statement is:
     * its place in the row's order is not known */
    r->w[r->n++].aside = (int)ls_stmt_int64(q, hq_aborted);
    return 0;
}

/* Narrow r's holds by the row's order and store each one's times;
 * < 0 on a store error. */
static int flush_row(row_holds *r, ls_stmt *ins)
{
    size_t i;
    int rc;

    if (!r->relation_lock)
        ls_hold_when_row(r->w, r->n);
    for (i = 0; i < r->n; i++) {
        const held *x = &r->h[i];
        const ls_hold_when *w = &r->w[i];
        ls_hold_range len;
        ls_hold_range_when(&x->start, &x->end, w, &len);
        ls_stmt_reset(ins);
        ls_stmt_bind_int64(ins, LS_PARAM(hold_range, hold_id), x->hold_id);
        ls_stmt_bind_int64(ins, LS_PARAM(hold_range, lo_us), len.lo);
        ls_stmt_bind_int64(ins, LS_PARAM(hold_range, hi_us), len.hi);
        ls_stmt_bind_int64(ins, LS_PARAM(hold_range, est_us), len.est);
        ls_stmt_bind_int64(ins, LS_PARAM(hold_range, start_lo), w->start.lo);
        ls_stmt_bind_int64(ins, LS_PARAM(hold_range, start_hi), w->start.hi);
        ls_stmt_bind_int64(ins, LS_PARAM(hold_range, end_lo), w->end.lo);
        ls_stmt_bind_int64(ins, LS_PARAM(hold_range, end_hi), w->end.hi);
        if ((rc = ls_stmt_step(ins)) < 0)
            return rc;
    }
    r->n = 0;
    return 0;
}

/* Store the times of every hold (q: holds_sql), row by row; < 0 on a
 * store error. */
static int store_holds(ls_stmt *q, ls_stmt *ins)
{
    row_holds r = {0};
    int rc;

    while ((rc = ls_stmt_step(q)) == 1) {
        int64_t row_id = ls_stmt_int64(q, hq_row_id);
        if (r.n > 0 && row_id != r.row_id && (rc = flush_row(&r, ins)) < 0)
            break;
        r.row_id = row_id;
        r.relation_lock = (int)ls_stmt_int64(q, hq_relation_lock);
        if ((rc = add_hold(&r, q)) < 0)
            break;
    }
    if (rc == 0 && r.n > 0)
        rc = flush_row(&r, ins);
    free(r.h);
    free(r.w);
    return rc < 0 ? rc : 0;
}

/* Whether the log's times are whole seconds: *whole. */
static int is_whole(ls_store *s, int *whole)
{
    ls_stmt *q = NULL;
    int rc;

    *whole = 0;
    if ((rc = ls_store_prepare(s, whole_sql, &q)) != 0)
        return rc;
    if ((rc = ls_stmt_step(q)) == 1)
        *whole = (int)ls_stmt_int64(q, LS_ONLY_COLUMN);
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

/* Make hold_range again where the store's lacks the bounds' columns. */
static int hold_range_layout(ls_store *s)
{
    ls_stmt *q = NULL;
    int rc, has = 0;

    if ((rc = ls_store_prepare(s, layout_sql, &q)) != 0)
        return rc;
    if ((rc = ls_stmt_step(q)) == 1)
        has = ls_stmt_int64(q, LS_ONLY_COLUMN) > 0;
    ls_stmt_finalize(q);
    if (rc < 0)
        return rc;
    return has ? 0 : ls_store_exec(s, remake_sql);
}

int ls_correlate_hold_ranges(ls_store *s)
{
    ls_stmt *q = NULL, *ins = NULL;
    int rc, whole;

    if ((rc = is_whole(s, &whole)) != 0 || !whole)
        return rc;
    if ((rc = hold_range_layout(s)) != 0 ||
        (rc = ls_store_prepare(s, holds_sql, &q)) != 0 ||
        (rc = ls_store_prepare(s, insert_sql, &ins)) != 0)
        goto out;
    rc = store_holds(q, ins);
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(ins);
    return rc;
}
