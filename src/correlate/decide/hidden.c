/*
 * hidden.c — a statement's queueing merged with its logged wait (hidden.h).
 */
#include "hidden.h"

#include <string.h>

#include "spantx.h"
#include "tolerances.h"

int ls_hidden_stmt_start_known(int has_lock_stmt, const char *start_evidence)
{
    if (has_lock_stmt)
        return 1;
    return start_evidence && (strcmp(start_evidence, LS_SPAN_LOCK_START) == 0 ||
                              strcmp(start_evidence, LS_SPAN_ONLY_START) == 0);
}

void ls_hidden_logged_wait(const ls_queue_result *rec, const ls_logged_span *logged,
                           int stmt_end_logged, ls_hidden_wait *out)
{
    double tol = logged->ms * LS_LOGGED_AGREE_FRAC;
    int64_t d;

    if (tol < LS_LOGGED_AGREE_MS)
        tol = LS_LOGGED_AGREE_MS;
    out->start_ts = rec && rec->start_ts < logged->start_ts ? rec->start_ts : logged->start_ts;
    out->end_ts =
        rec && (!logged->tx_wait || stmt_end_logged) && rec->end_ts > logged->end_ts
            ? rec->end_ts
            : logged->end_ts;
    d = rec ? rec->end_ts - out->end_ts : 0;
    out->disagree = rec && (double)(d < 0 ? -d : d) / LS_US_PER_MS > tol;
    out->ms = (double)(out->end_ts - out->start_ts) / LS_US_PER_MS;
}

int64_t ls_hidden_unlogged_start(int64_t start_ts, int64_t end_ts, int64_t resolution_us,
                                 int64_t max_unlogged_us)
{
    if (resolution_us < LS_WHOLE_SECOND_US || max_unlogged_us <= 0 || end_ts <= start_ts)
        return start_ts;
    return end_ts - start_ts > max_unlogged_us ? end_ts - max_unlogged_us : start_ts;
}

int64_t ls_hidden_logged_start(int64_t first_start, int has_closed, int64_t closed_start,
                               int64_t resolution_us)
{
    if (resolution_us >= LS_WHOLE_SECOND_US && has_closed && closed_start > first_start)
        return closed_start;
    return first_start;
}

int64_t ls_hidden_unlogged_bound(int duration_logged, int64_t max_unlogged_us)
{
    return duration_logged ? 0 : max_unlogged_us;
}

double ls_hidden_exact_wait_ms(double span_ms, double exact_ms, int stmt_timed, int64_t res_us)
{
    double beyond = span_ms - exact_ms;
    if (res_us >= LS_WHOLE_SECOND_US && !stmt_timed)
        beyond -= (double)res_us / LS_US_PER_MS;
    return exact_ms + (beyond > 0 ? beyond : 0);
}

int64_t ls_hidden_wait_resolution(int64_t stmts_res, int64_t lines_res, int span_timed)
{
    return span_timed ? stmts_res : lines_res;
}

void ls_hidden_span_timed_wait(const ls_logged_span *logged, int64_t res_us, int64_t stmt_start,
                               int64_t stmt_end, double exact_ms, ls_hidden_wait *out)
{
    int64_t end = stmt_end;
    double ms;

    /* the lines fit the span: its start no later than the logged wait's
     * tick, its end no earlier than the acquired line's */
    out->disagree = stmt_start >= logged->start_ts + res_us || stmt_end < logged->end_ts;
    if (!out->disagree && end > logged->end_ts + res_us)
        end = logged->end_ts + res_us;
    if (end < stmt_start)
        end = stmt_start;
    ms = (double)(end - stmt_start) / LS_US_PER_MS;
    out->start_ts = stmt_start;
    out->end_ts = end;
    out->ms = ms < exact_ms ? exact_ms : ms;
}
