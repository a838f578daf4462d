/*
 * hidden.c — the row-lock waits the log never shows.
 *
 * log_lock_waits writes a wait only once it passes deadlock_timeout (1 s
 * by default); most queueing on a hot row is shorter. With every hold of
 * a hot row known (transactions.c), each statement that locked the row
 * while another transaction held it waited until that hold — and every
 * hold queued before it — ended: from the statement's start to the moment
 * the row was free (never later than the statement's own end, when the log
 * has it). The hold it waited behind is the one holding the row when it
 * started. Under log_statement = 'all' the statement's end is unknown, so
 * the hold itself starts when the row was free (the hold before it ended),
 * not at the statement's start; and the queue is not in the order the
 * statements started. PostgreSQL's row-lock queue is not FIFO: the first
 * waiter holds the tuple lock and waits for the holder's transaction, but
 * waiters that found the row already updated again follow the update chain
 * and wait for the new holder's transaction without the tuple lock
 * (heapam_tuple_lock), so at each commit they race the tuple-lock holder.
 * The order the holds were released in is known (the COMMITs' starts) and
 * holds of a row do not overlap, so under log_statement = 'all' the holds
 * are queued in the order they ended.
 *
 * A logged tuple-lock wait ends when its waiter is next in line; it then
 * waits, below deadlock_timeout, for the holder's transaction: the
 * reconstruction's end stands when it is later.
 *
 * A logged wait of the same transaction and row wins (kind 'logged'): it
 * ends the wait, and its length is the logged part (logged_ms); queueing
 * the reconstruction finds before it (a tuple lock below deadlock_timeout,
 * then the logged transaction wait) is the hidden part. A reconstruction
 * whose end disagrees with the logged one by more than LS_LOGGED_AGREE_MS /
 * LS_LOGGED_AGREE_FRAC is counted.
 *
 * Holds are streamed per row in acquisition order; only the last
 * QUEUE_MEMORY holds are kept to find who held the row when a statement
 * started, so memory does not grow with the log.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "correlate_int.h"
#include "ls_columns.h"

#define QUEUE_MEMORY 256      /* holds remembered per row */

/*
 * The logged waits of each (transaction, row), one line each: its first
 * wait, and the span of them all — a statement's tuple-lock wait, then its
 * transaction wait, back to back. wait_id is in start order (the episodes
 * pass numbers waits by start, and no pass moves a start), so the first
 * wait is the least wait_id. Built from lock_wait_rows in one grouped scan, so
 * the scan of the holds below joins a table the size of the logged waits
 * instead of probing lock_wait_rows once per hold.
 */
static const char logged_table_sql[] =
    "DROP TABLE IF EXISTS temp.hidden_logged;"
    "CREATE TEMP TABLE hidden_logged(tx_id INTEGER, row_id INTEGER, first_wait INTEGER,"
    " l0 INTEGER, l1 INTEGER, ms REAL, tx_wait INTEGER, PRIMARY KEY(tx_id, row_id))"
    " WITHOUT ROWID;"
    "INSERT INTO temp.hidden_logged SELECT waiter_tx, row_id, min(wait_id), min(start_ts),"
    " max(coalesce(end_ts, logged_ts)),"
    " (max(coalesce(end_ts, logged_ts)) - min(start_ts)) / 1000.0,"
    " max(target_kind IS NOT 'tuple') FROM lock_wait_rows"
    " WHERE waiter_tx IS NOT NULL AND row_id IS NOT NULL GROUP BY waiter_tx, row_id;";

/*
 * Holds in (row, acquisition) order — under log_statement = 'all', where
 * acquisitions are what is reconstructed, in the order they ended — sorted
 * (NOT INDEXED): the holds table is in time order, so walking an index on
 * (row_id, start_ts) row by row would read every page of it once per hot
 * row once it no longer fits the page cache. The sort is one scan, and
 * spills to temp files beyond its memory (ls_store_sorting() while it
 * runs). Each hold carries its transaction's logged waits for the row.
 */
#define NO_DURATION "'start of the locking statement (no duration logged)'"
#define HOLD_COLS(X, Q)                                                                \
    X(Q, hold_id, "h.hold_id")                                                         \
    X(Q, row_id, "h.row_id")                                                           \
    X(Q, tx_id, "h.tx_id")                                                             \
    X(Q, session_id, "h.session_id")                                                   \
    X(Q, pid, "h.pid")                                                                 \
    X(Q, acquired, "h.start_ts")                                                       \
    X(Q, stmt_start, "h.start_lo")                                                     \
    X(Q, end_ts, "h.end_ts")                                                           \
    X(Q, lock_stmt, "h.lock_stmt")                                                     \
    X(Q, no_duration, "h.start_evidence IS " NO_DURATION)                              \
    X(Q, logged, "l.first_wait")                                                       \
    X(Q, l0, "l.l0")                                                                   \
    X(Q, l1, "l.l1")                                                                   \
    X(Q, logged_ms, "l.ms")                                                            \
    X(Q, tx_wait, "l.tx_wait")
LS_COLUMNS(hq, HOLD_COLS);
static const char holds_sql[] =
    "SELECT " LS_SELECT_LIST(hq, HOLD_COLS)
    " FROM holds h LEFT JOIN temp.hidden_logged l"
    "  ON l.tx_id = h.tx_id AND l.row_id = h.row_id"
    /* +: sorted, not walked through holds_row (see above) */
    " ORDER BY +h.row_id,"
    " CASE WHEN h.start_evidence IN (" NO_DURATION ","
    "  'acquired after the locking statement''s logged wait')"
    "  THEN h.end_ts ELSE h.start_ts END, h.start_ts, h.hold_id";

static const char insert_sql[] =
    "INSERT INTO row_waits(row_id, hold_id, tx_id, session_id, pid, stmt_id, start_ts, end_ts,"
    " wait_ms, behind_hold, behind_tx, kind, logged_wait_id, inferred_ms, logged_ms)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)";

/* Holds whose start moves are noted here and stored after the scan:
 * storing them during it would change what the scan reads (the holds view
 * joins hold_queued). The start moves to when the hold before it ended;
 * start_lo is the statement's start, NULL when the same (the view's
 * start_evidence is then LS_HOLD_QUEUED_EVIDENCE). */
static const char moved_table_sql[] =
    "DROP TABLE IF EXISTS temp.moved_holds;"
    "CREATE TEMP TABLE moved_holds(hold_id INTEGER PRIMARY KEY, start_ts INTEGER,"
    " start_lo INTEGER);";
static const char move_hold_sql[] =
    "INSERT INTO temp.moved_holds VALUES (?1, ?2, nullif(?3, ?2))";
static const char apply_moves_sql[] =
    "INSERT INTO hold_queued(hold_id, start_ts, start_lo) SELECT hold_id, start_ts, start_lo"
    " FROM temp.moved_holds ORDER BY hold_id;"
    "DELETE FROM temp.moved_holds;";

/*
 * The logged waits of statements that failed in them (a lock timeout, a
 * deadlock victim, 40001 after the wait): such a statement acquired
 * nothing on the row, so its transaction has no hold of it and the scan
 * above never meets it, but it queued, and its wait counts (logged).
 * No stmt_id: with durations the statement has no line of its own.
 */
static const char failed_waits_sql[] =
    "INSERT INTO row_waits(row_id, tx_id, session_id, pid, start_ts, end_ts, wait_ms,"
    " behind_hold, behind_tx, kind, logged_wait_id, logged_ms)"
    " SELECT l.row_id, l.tx_id, w.session_id, w.pid, l.l0, l.l1, l.ms,"
    " (SELECT h.hold_id FROM hold_rows h WHERE h.tx_id = w.holder_tx AND h.row_id = l.row_id"
    "  ORDER BY h.hold_id LIMIT 1), w.holder_tx, 'logged', l.first_wait, l.ms"
    " FROM temp.hidden_logged l JOIN lock_wait_rows w ON w.wait_id = l.first_wait"
    " WHERE NOT EXISTS (SELECT 1 FROM hold_rows h WHERE h.tx_id = l.tx_id AND h.row_id = l.row_id)"
    " AND EXISTS (SELECT 1 FROM lock_wait_rows x WHERE x.waiter_tx = l.tx_id"
    "  AND x.row_id = l.row_id AND x.outcome IS NOT 'acquired');";

/* Each row's totals, one row_hidden row for every row with a queued
 * statement or a hold (the view rows gives the others' as 0). The spans
 * of temp.row_spans come from the scan of the holds (ls_correlate_hidden),
 * not from another pass over the table. */
static const char spans_table_sql[] =
    "DROP TABLE IF EXISTS temp.row_spans;"
    "CREATE TEMP TABLE row_spans(row_id INTEGER PRIMARY KEY, span_us INTEGER);";
static const char span_insert_sql[] = "INSERT INTO temp.row_spans VALUES (?1, ?2)";
static const char stats_sql[] =
    "INSERT INTO row_hidden(row_id, hidden_wait_ms, logged_wait_ms, waited_statements,"
    " utilisation)"
    " SELECT k.row_id,"
    " coalesce((SELECT sum(max(0, wait_ms - logged_ms)) FROM row_waits q"
    "  WHERE q.row_id = k.row_id), 0),"
    " coalesce((SELECT sum(logged_ms) FROM row_waits q WHERE q.row_id = k.row_id), 0),"
    " (SELECT count(*) FROM row_waits q WHERE q.row_id = k.row_id AND q.wait_ms > 20),"
    /* Utilisation: the share of the row's span (its first hold's start to
     * its last hold's end) that it was held. */
    " (SELECT CASE WHEN sp.span_us > 0 THEN min(1.0, rh.occupied_ms * 1000.0 / sp.span_us) END"
    "  FROM temp.row_spans sp LEFT JOIN row_holds rh ON rh.row_id = sp.row_id"
    "  WHERE sp.row_id = k.row_id)"
    " FROM row_keys k WHERE k.row_id IN (SELECT row_id FROM row_waits"
    "  UNION SELECT row_id FROM temp.row_spans) ORDER BY k.row_id;"
    "DROP TABLE temp.row_spans;";

/* A row's span so far: its holds' earliest start and latest end. */
typedef struct row_span {
    int64_t row_id, first, last;
    int has_first, has_last;
} row_span;

static void span_add(row_span *sp, int64_t start, int has_end, int64_t end)
{
    if (!sp->has_first || start < sp->first)
        sp->first = start;
    sp->has_first = 1;
    if (has_end && (!sp->has_last || end > sp->last)) {
        sp->last = end;
        sp->has_last = 1;
    }
}

static int span_flush(ls_stmt *u, const row_span *sp)
{
    int rc;
    if (sp->row_id < 0)
        return 0;
    ls_stmt_reset(u);
    ls_stmt_bind_int64(u, 1, sp->row_id);
    if (sp->has_last)
        ls_stmt_bind_int64(u, 2, sp->last - sp->first);
    else
        ls_stmt_bind_null(u, 2);
    rc = ls_stmt_step(u);
    return rc < 0 ? rc : 0;
}

typedef struct ring {
    ls_queued_hold h[QUEUE_MEMORY];
    int64_t hold_id[QUEUE_MEMORY], tx_id[QUEUE_MEMORY];
    int n, next;
} ring;

static void ring_push(ring *r, const ls_queued_hold *h, int64_t hold_id, int64_t tx_id)
{
    r->h[r->next] = *h;
    r->hold_id[r->next] = hold_id;
    r->tx_id[r->next] = tx_id;
    r->next = (r->next + 1) % QUEUE_MEMORY;
    if (r->n < QUEUE_MEMORY)
        r->n++;
}

int ls_correlate_hidden(ls_store *s, ls_correlate_stats *stats)
{
    ls_stmt *q = NULL, *ins = NULL, *mv = NULL, *ut = NULL;
    ring *r = ls_calloc(1, sizeof(*r));
    row_span span = {-1, 0, 0, 0, 0};
    int64_t row = -1;
    int rc, sorting = 0;

    if (!r)
        return LS_ENOMEM;
    if ((rc = ls_store_exec(s, moved_table_sql)) != 0 ||
        (rc = ls_store_exec(s, spans_table_sql)) != 0 ||
        (rc = ls_store_sorting(s, sorting = 1)) != 0 ||
        (rc = ls_store_exec(s, logged_table_sql)) != 0 ||
        (rc = ls_store_prepare(s, holds_sql, &q)) != 0 ||
        (rc = ls_store_prepare(s, insert_sql, &ins)) != 0 ||
        (rc = ls_store_prepare(s, move_hold_sql, &mv)) != 0 ||
        (rc = ls_store_prepare(s, span_insert_sql, &ut)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        ls_queued_hold self;
        ls_queue_result res;
        int64_t hold_id = ls_stmt_int64(q, hq_hold_id), tx_id = ls_stmt_int64(q, hq_tx_id);
        int64_t stmt_start = ls_stmt_int64(q, hq_stmt_start);
        int64_t acquired = ls_stmt_int64(q, hq_acquired);
        int no_duration = (int)ls_stmt_int64(q, hq_no_duration), found;
        int64_t logged = ls_stmt_isnull(q, hq_logged) ? 0 : ls_stmt_int64(q, hq_logged);
        double inferred_ms = 0;

        if (ls_stmt_int64(q, hq_row_id) != row) {
            row = ls_stmt_int64(q, hq_row_id);
            r->n = r->next = 0;
            if ((rc = span_flush(ut, &span)) != 0)
                goto out;
            memset(&span, 0, sizeof(span));
            span.row_id = row;
        }
        if (ls_stmt_isnull(q, hq_end_ts)) {
            /* a hold with no end: part of the row's span, not of its queue */
            span_add(&span, acquired, 0, 0);
            continue;
        }
        self.start_ts = acquired;
        self.end_ts = ls_stmt_int64(q, hq_end_ts);
        /* The ring is in acquisition order; ls_queue_wait takes any order. */
        found = !ls_stmt_isnull(q, hq_lock_stmt) &&
                ls_queue_wait(r->h, r->n, stmt_start, acquired, !no_duration, &res);
        if (found && no_duration && res.end_ts > acquired) {
            /* Without durations the row was got when the hold before it
             * ended, not when the statement started. */
            self.start_ts = res.end_ts;
            ls_stmt_reset(mv);
            ls_stmt_bind_int64(mv, 1, hold_id);
            ls_stmt_bind_int64(mv, 2, res.end_ts);
            ls_stmt_bind_int64(mv, 3, stmt_start);
            if ((rc = ls_stmt_step(mv)) < 0)
                goto out;
        }
        if (found)
            inferred_ms = (double)(res.end_ts - res.start_ts) / 1000.0;
        if (found || logged) {
            int b = found ? (res.behind + 0) : -1;
            int64_t w0 = found ? res.start_ts : stmt_start, w1 = found ? res.end_ts : acquired;
            double ms = inferred_ms;
            ls_stmt_reset(ins);
            ls_stmt_bind_int64(ins, 1, row);
            ls_stmt_bind_int64(ins, 2, hold_id);
            ls_stmt_bind_int64(ins, 3, tx_id);
            ls_stmt_bind_int64(ins, 4, ls_stmt_int64(q, hq_session_id));
            ls_stmt_bind_int64(ins, 5, ls_stmt_int64(q, hq_pid));
            if (!ls_stmt_isnull(q, hq_lock_stmt))
                ls_stmt_bind_int64(ins, 6, ls_stmt_int64(q, hq_lock_stmt));
            if (logged) {
                /* The logged wait wins for its part; queueing before it
                 * (a tuple lock below deadlock_timeout, then the logged
                 * transaction wait) stays hidden. */
                if (!ls_stmt_isnull(q, hq_l0)) {
                    double lms = ls_stmt_double(q, hq_logged_ms);
                    double tol = lms * LS_LOGGED_AGREE_FRAC;
                    int64_t l0 = ls_stmt_int64(q, hq_l0), l1 = ls_stmt_int64(q, hq_l1), d;
                    if (tol < LS_LOGGED_AGREE_MS)
                        tol = LS_LOGGED_AGREE_MS;
                    w0 = found && res.start_ts < l0 ? res.start_ts : l0;
                    /* Only a tuple lock logged: its waiter was next in
                     * line when it ended, and waited on for the holder's
                     * transaction, below deadlock_timeout. */
                    w1 = found && !ls_stmt_int64(q, hq_tx_wait) && res.end_ts > l1 ? res.end_ts : l1;
                    d = found ? res.end_ts - w1 : 0;
                    if (found && (double)(d < 0 ? -d : d) / 1000.0 > tol)
                        stats->hidden_disagree++;
                    ms = (double)(w1 - w0) / 1000.0;
                    ls_stmt_bind_double(ins, 15, lms);
                }
                ls_stmt_bind_text(ins, 12, "logged");
                ls_stmt_bind_int64(ins, 13, logged);
            } else {
                ls_stmt_bind_text(ins, 12, "inferred");
                ls_stmt_bind_double(ins, 15, 0.0);
                stats->hidden_waits++;
            }
            ls_stmt_bind_int64(ins, 7, w0);
            ls_stmt_bind_int64(ins, 8, w1);
            ls_stmt_bind_double(ins, 9, ms);
            if (b >= 0) {
                ls_stmt_bind_int64(ins, 10, r->hold_id[b]);
                ls_stmt_bind_int64(ins, 11, r->tx_id[b]);
            }
            if (found)
                ls_stmt_bind_double(ins, 14, inferred_ms);
            if ((rc = ls_stmt_step(ins)) < 0)
                goto out;
        }
        ring_push(r, &self, hold_id, tx_id);
        span_add(&span, self.start_ts, 1, self.end_ts);
    }
    if (rc == 0)
        rc = span_flush(ut, &span);
    ls_stmt_finalize(q);
    ls_stmt_finalize(mv);
    q = mv = NULL;
    if (rc == 0)
        rc = ls_store_exec(s, "CREATE INDEX IF NOT EXISTS row_waits_row ON row_waits(row_id);");
    if (rc == 0)
        rc = ls_store_sorting(s, sorting = 0);
    if (rc == 0)
        rc = ls_store_exec(s, apply_moves_sql);
    if (rc == 0)
        rc = ls_store_exec(s, failed_waits_sql);
    if (rc == 0)
        rc = ls_store_exec(s, stats_sql);
out:
    if (sorting)
        ls_store_sorting(s, 0);
    ls_stmt_finalize(q);
    ls_stmt_finalize(ins);
    ls_stmt_finalize(mv);
    ls_stmt_finalize(ut);
    free(r);
    return rc < 0 ? rc : 0;
}
