/*
 * hidden.c — a statement's queueing merged with its logged wait (hidden.h).
 */
#include "hidden.h"

#include "tolerances.h"

void ls_hidden_logged_wait(const ls_queue_result *rec, const ls_logged_span *logged,
                           ls_hidden_wait *out)
{
    double tol = logged->ms * LS_LOGGED_AGREE_FRAC;
    int64_t d;

    if (tol < LS_LOGGED_AGREE_MS)
        tol = LS_LOGGED_AGREE_MS;
    out->start_ts = rec && rec->start_ts < logged->start_ts ? rec->start_ts : logged->start_ts;
    out->end_ts =
        rec && !logged->tx_wait && rec->end_ts > logged->end_ts ? rec->end_ts : logged->end_ts;
    d = rec ? rec->end_ts - out->end_ts : 0;
    out->disagree = rec && (double)(d < 0 ? -d : d) / LS_US_PER_MS > tol;
    out->ms = (double)(out->end_ts - out->start_ts) / LS_US_PER_MS;
}
