/*
 * hold.c — a hold's start and end with bounds, and its holder's time
 * while others waited (hold.h).
 */
#include "hold.h"

#include <string.h>

#include "idlegap.h"
#include "tolerances.h"

void ls_hold_end(const ls_hold_end_in *in, ls_hold_bound *out)
{
    int commit_start = strcmp(in->tx_end_known, LS_HOLD_COMMIT_START) == 0;
    int rollback_start = strcmp(in->tx_end_known, LS_HOLD_ROLLBACK_START) == 0;

    if (in->aborted && (!in->tx_has_end || in->aborted_at <= in->tx_end)) {
        /* The error released the locks; the ROLLBACK came later. */
        out->ts = out->lo = in->aborted_at;
        out->evidence = LS_HOLD_ABORTED;
    } else if (in->tx_has_end && in->first_acq_known && in->first_acq > in->tx_end &&
        (commit_start || rollback_start)) {
        /* log_statement = 'all' logs only when COMMIT (ROLLBACK) starts;
         * the first waiter's acquisition says when it had released the
         * row. */
        out->lo = in->tx_end;
        out->ts = in->first_acq;
        out->evidence = rollback_start ? "first waiter acquired (ROLLBACK started earlier)"
                                       : "first waiter acquired (COMMIT started earlier)";
    } else if (in->tx_has_end) {
        out->ts = out->lo = in->tx_end;
        out->evidence = in->tx_end_known;
    } else {
        out->ts = out->lo = in->first_acq_known ? in->first_acq : in->last_wait_end;
        out->evidence = in->first_acq_known ? "bounded by first acquisition"
                                            : "bounded by last wait";
    }
    out->hi = in->first_acq_known && in->first_acq > out->lo ? in->first_acq : out->lo;
}

int ls_hold_aborted(int rolled_back, int has_error, int64_t error_ts, int ran_after,
                    int64_t hold_start)
{
    return rolled_back && has_error && !ran_after && error_ts >= hold_start;
}

int64_t ls_hold_failed_end(int64_t bind_end, int has_error, int64_t error_ts)
{
    return has_error && error_ts > bind_end ? error_ts : bind_end;
}

int64_t ls_overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
    int64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
    return hi > lo ? hi - lo : 0;
}

void ls_hold_walk_begin(ls_hold_walk *w, int64_t first_wait, int64_t end_ts,
                        const ls_hold_bound *start, int64_t lock_stmt)
{
    memset(w, 0, sizeof(*w));
    w->first_wait = first_wait;
    w->end_ts = end_ts;
    w->c_end = end_ts > first_wait ? end_ts : first_wait;
    w->start = *start;
    w->lock_stmt = lock_stmt;
}

void ls_hold_walk_stmt(ls_hold_walk *w, const ls_hold_stmt *st)
{
    int64_t st1 = st->has_end ? st->end : st->start;

    /* Without a duration a COMMIT runs until the row is released; other
     * statements' running time is then unknown (counted idle). */
    if (!st->has_end && st->is_end)
        st1 = w->end_ts;
    if (!w->lock_stmt && st->is_write && st->names_row) {
        w->lock_stmt = st->id;
        w->start.lo = st->start;
        w->start.ts = w->start.hi = st1;
        w->start.evidence = LS_HOLD_BY_KEY;
    }
    if (!w->first_write && st->is_write && st->start <= w->first_wait + LS_MILLISECOND_US &&
        st->names_rel) {
        w->first_write = st->id;
        w->fw_lo = st->start;
        w->fw_hi = st1;
    }
    if (st->is_end)
        w->commit_us += ls_overlap(st->start, st1, w->first_wait, w->c_end);
    else
        w->sql_us += ls_overlap(st->start, st1, w->first_wait, w->c_end);
}

void ls_hold_walk_end(ls_hold_walk *w, int has_tx_wait, int64_t first_tx_wait,
                      int64_t resolution)
{
    if (!w->lock_stmt && w->first_write) {
        w->lock_stmt = w->first_write;
        w->start.lo = w->fw_lo;
        w->start.ts = w->start.hi = w->fw_hi;
        w->start.evidence = LS_HOLD_BY_FIRST_WRITE;
    }
    /* With whole-second times the start fell later in the second of the
     * wait; with milliseconds the locking statement's line was stamped
     * late. Only a wait for the transaction says so: a tuple lock's holder
     * is itself queued for the row. */
    if (has_tx_wait) {
        if (w->start.ts > first_tx_wait + resolution) {
            w->start.ts = first_tx_wait;
            w->start.evidence = LS_HOLD_BY_TX_WAIT;
        }
        if (w->start.hi > first_tx_wait + resolution)
            w->start.hi = first_tx_wait;
    }
    if (w->start.lo > w->start.ts)
        w->start.lo = w->start.ts;
}

const char *ls_hold_state(int64_t contended_us, int64_t sql_us, int64_t commit_us,
                          int has_durations, int64_t *idle_us)
{
    ls_idle_span b;
    int64_t idle;
    const char *state;

    /* the state from the idle never below 0 (the stamps' doubt aside:
     * the holds pass stores the idle at the log's resolution) */
    ls_idle_window(contended_us, sql_us + commit_us, 0, &b);
    idle = b.lo;
    *idle_us = idle;
    state = idle >= sql_us && idle >= commit_us ? "idle_in_transaction"
            : commit_us >= sql_us               ? "committing"
                                                : "running";
    if (!has_durations && strcmp(state, "committing") != 0)
        state = "unknown";
    return state;
}

int64_t ls_hold_acquired(const ls_acquisition *acq, size_t n, int64_t row_id)
{
    int64_t last = 0;

    for (size_t i = 0; i < n; i++)
        if (row_id && acq[i].row_id == row_id)
            last = acq[i].end_ts;
    if (last)
        return last;
    /* An acquisition keyed to another row is that row's (a trigger's
     * counter row is got after the statement's own: its end says nothing
     * of this one); only a wait the log names no row for may be it. */
    for (size_t i = 0; i < n; i++)
        if (!acq[i].row_id || !row_id)
            return acq[i].end_ts;
    return 0;
}
