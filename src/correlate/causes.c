/*
 * causes.c — the holder of the row a lock timeout gave up on.
 *
 * A 55P03 (lock_timeout, or NOWAIT's "could not obtain lock") that fails
 * below deadlock_timeout leaves no "still waiting" line and no DETAIL
 * naming its holder, so error_links.cause_tx (the logged wait's holder,
 * transactions.c) stays NULL. Where its statement's row is known (the
 * failed lock the transactions pass noted from its bind parameters or its
 * text, temp.failed_locks; a row no logged wait names is made by the
 * error itself, holds.c step 7) and every other hold of that row is known, the
 * log's order of lines tells which transaction had the row at the error
 * (decide/failwait.h, ls_error_holder()). When it cannot single one out
 * the cause stays NULL; the report says why (errors[].cause_untold).
 * Run at the end of the transactions pass, which owns error_links: its
 * holds (hold_rows, before the later passes bound their times) are what
 * it reads, and their times only where a line's position is unknown.
 */
#include <stdint.h>

#include "correlate_int.h"
#include "decide/failwait.h"
#include "ls_columns.h"
#include "ls_params.h"

#define CAUSE_HELD_MAX 64 /* holds of the row around the error; more: not told */

#define LOG_POS(T) LS_LOG_POS_SQL(T)

/* The lock errors with no logged wait, no cause yet, and one row their
 * statement failed on. */
#define CAUSE_ERR_COLS(X, Q)                                                                       \
    X(Q, error_id, "l.error_id")                                                                   \
    X(Q, row_id, "min(f.row_id)")                                                                  \
    X(Q, tx_id, "l.tx_id")                                                                         \
    X(Q, ts, "e.ts")                                                                               \
    X(Q, pos, LOG_POS("e"))
LS_COLUMNS(ce, CAUSE_ERR_COLS);
static const char cause_errors_sql[] =
    "SELECT " LS_SELECT_LIST(ce, CAUSE_ERR_COLS) " FROM temp.failed_locks f"
    " JOIN error_links l ON l.tx_id = f.tx_id"
    " AND l.wait_id IS NULL AND l.cause_tx IS NULL"
    " JOIN errors e ON e.error_id = l.error_id"
    " AND e.ts = f.error_ts AND e.class = f.class"
    " WHERE f.class IN ('lock_timeout', 'lock_nowait') AND e.file_id IS NOT NULL"
    " GROUP BY l.error_id HAVING count(DISTINCT f.row_id) = 1 ORDER BY l.error_id";

/* The holds of row :row by other transactions (:tx) that may be on around
 * the error (:ts, stamps of :res µs), with the log positions of the lines
 * that show the row got (the locking statement's) and freed (the
 * transaction's last statement, a COMMIT or ROLLBACK), each with whether
 * the line was written at the statement's end (a duration). */
#define CAUSE_HELD_COLS(X, Q)                                                                      \
    X(Q, tx_id, "h.tx_id")                                                                         \
    X(Q, start_ts, "h.start_ts")                                                                   \
    X(Q, end_ts, "h.end_ts")                                                                       \
    X(Q, lock_pos, LOG_POS("lp"))                                                                  \
    X(Q, lock_after, "lp.dur_us IS NOT NULL")                                                      \
    X(Q, end_pos,                                                                                  \
      "(SELECT " LOG_POS("p") " FROM transactions t JOIN stmt_rows p"                              \
                              " ON p.stmt_id = t.last_stmt WHERE t.tx_id = h.tx_id"                \
                              " AND t.outcome IN ('commit', 'rollback', 'aborted'))")              \
    X(Q, end_after,                                                                                \
      "(SELECT p.dur_us IS NOT NULL FROM transactions t JOIN stmt_rows p"                          \
      " ON p.stmt_id = t.last_stmt WHERE t.tx_id = h.tx_id)")
LS_COLUMNS(ch, CAUSE_HELD_COLS);
static const char cause_held_sql[] =
    "SELECT " LS_SELECT_LIST(ch, CAUSE_HELD_COLS) " FROM hold_rows h"
    " LEFT JOIN stmt_rows lp ON lp.stmt_id = h.lock_stmt"
    " WHERE h.row_id = :row AND h.tx_id IS NOT NULL AND h.tx_id IS NOT :tx"
    " AND h.start_ts <= :ts + 2 * :res"
    " AND (h.end_ts IS NULL OR h.end_ts >= :ts - 2 * :res)"
    " ORDER BY h.start_ts, h.hold_id LIMIT " LS_SQL_INT(CAUSE_HELD_MAX + 1);
#define CAUSE_HELD_PARAMS(X, Q) X(Q, row) X(Q, tx) X(Q, ts) X(Q, res)
LS_PARAMS(chp, CAUSE_HELD_PARAMS);

static const char cause_set_sql[] = "UPDATE error_links SET cause_tx = :tx WHERE error_id = :error";
#define CAUSE_SET_PARAMS(X, Q) X(Q, tx) X(Q, error)
LS_PARAMS(csp, CAUSE_SET_PARAMS);

/* The holds of e's row around it (cause_held_sql) into held/tx; how many
 * (CAUSE_HELD_MAX + 1: too many to tell). Below 0 a store error. */
static int cause_candidates(ls_stmt *hs, ls_stmt *e, int64_t resolution, ls_error_hold *held,
                            int64_t *tx)
{
    int n = 0, rc = 0;
    ls_stmt_reset(hs);
    ls_stmt_bind_int64(hs, LS_PARAM(chp, row), ls_stmt_int64(e, ce_row_id));
    if (!ls_stmt_isnull(e, ce_tx_id))
        ls_stmt_bind_int64(hs, LS_PARAM(chp, tx), ls_stmt_int64(e, ce_tx_id));
    ls_stmt_bind_int64(hs, LS_PARAM(chp, ts), ls_stmt_int64(e, ce_ts));
    ls_stmt_bind_int64(hs, LS_PARAM(chp, res), resolution);
    while (n <= CAUSE_HELD_MAX && (rc = ls_stmt_step(hs)) == 1) {
        ls_error_hold *h = &held[n];
        h->start_ts = ls_stmt_int64(hs, ch_start_ts);
        h->end_ts = ls_stmt_isnull(hs, ch_end_ts) ? 0 : ls_stmt_int64(hs, ch_end_ts);
        h->lock_pos = ls_stmt_isnull(hs, ch_lock_pos) ? 0 : ls_stmt_int64(hs, ch_lock_pos);
        h->lock_after = ls_stmt_int64(hs, ch_lock_after) != 0;
        h->end_pos = ls_stmt_isnull(hs, ch_end_pos) ? 0 : ls_stmt_int64(hs, ch_end_pos);
        h->end_after = ls_stmt_int64(hs, ch_end_after) != 0;
        tx[n] = ls_stmt_int64(hs, ch_tx_id);
        n++;
    }
    ls_stmt_reset(hs);
    return rc < 0 ? rc : n;
}

int ls_correlate_error_causes(ls_store *s, int64_t resolution)
{
    ls_stmt *e = NULL, *hs = NULL, *u = NULL;
    ls_error_hold held[CAUSE_HELD_MAX + 1];
    int64_t tx[CAUSE_HELD_MAX + 1];
    int rc;

    if ((rc = ls_store_prepare(s, cause_errors_sql, &e)) != 0 ||
        (rc = ls_store_prepare_params(s, cause_held_sql, LS_PARAM_NAMES(CAUSE_HELD_PARAMS),
                                      &hs)) != 0 ||
        (rc = ls_store_prepare_params(s, cause_set_sql, LS_PARAM_NAMES(CAUSE_SET_PARAMS), &u)) !=
            0)
        goto out;
    while ((rc = ls_stmt_step(e)) == 1) {
        int n = cause_candidates(hs, e, resolution, held, tx), one;
        if (n < 0) {
            rc = n;
            break;
        }
        if (n > CAUSE_HELD_MAX ||
            ls_error_holder(held, n, ls_stmt_int64(e, ce_ts), ls_stmt_int64(e, ce_pos), resolution,
                            &one) != LS_HOLDER_ONE)
            continue;
        ls_stmt_reset(u);
        ls_stmt_bind_int64(u, LS_PARAM(csp, error), ls_stmt_int64(e, ce_error_id));
        ls_stmt_bind_int64(u, LS_PARAM(csp, tx), tx[one]);
        if ((rc = ls_stmt_step(u)) < 0)
            break;
    }
out:
    ls_stmt_finalize(e);
    ls_stmt_finalize(hs);
    ls_stmt_finalize(u);
    return rc < 0 ? rc : 0;
}
