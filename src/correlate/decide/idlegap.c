/*
 * idlegap.c — idle in transaction at the head, from the session's
 * silence in a log without durations (idlegap.h).
 */
#include "idlegap.h"

#include <math.h>

#include "tolerances.h"

int64_t ls_idle_gap_silence_us(const ls_idle_gap_in *in)
{
    int64_t from, by_time, by_pos = 0;

    if (!in->has_tx_wait || in->own_wait || in->next_ts < in->lock_ts)
        return 0;
    /* L had written the row when the first waiter queued on its
     * transaction; the silence is known from then. */
    from = in->tx_wait_ts > in->lock_ts ? in->tx_wait_ts : in->lock_ts;
    by_time = in->next_ts - from - in->resolution;
    if (!isnan(in->logged_wait_ms) && in->logged_wait_ms > 0)
        by_pos = (int64_t)(in->logged_wait_ms * LS_US_PER_MS);
    if (by_time < by_pos)
        by_time = by_pos;
    return by_time > 0 ? by_time : 0;
}

int ls_idle_gap_add(ls_idle_heads *p, double waiter_ms, int64_t silence_us,
                    double explained_cap_ms, double hold_ms, int64_t from_ts, int64_t to_ts,
                    int64_t waits)
{
    double idle_ms = (double)silence_us / LS_US_PER_MS;

    if (!isnan(explained_cap_ms) && explained_cap_ms < idle_ms)
        idle_ms = explained_cap_ms; /* a trace span explains the rest */
    if (!ls_finding_idle_add(p, waiter_ms, idle_ms, hold_ms))
        return 0;
    p->gap_holds++;
    if (idle_ms > p->gap_ms) {
        p->gap_ms = idle_ms;
        p->gap_from = from_ts;
        p->gap_to = to_ts;
        p->gap_waits = waits;
    }
    return 1;
}

void ls_idle_window(int64_t window_us, int64_t busy_us, int64_t resolution, ls_idle_span *out)
{
    int64_t raw = window_us - busy_us;
    int64_t res = resolution > 0 ? resolution : 0;

    out->est = raw;
    out->resolution = res;
    out->lo = raw - res > 0 ? raw - res : 0;
    out->hi = raw + res > 0 ? raw + res : 0;
}

void ls_idle_at_least_waited(ls_idle_span *b, double waited_ms, int64_t busy_us)
{
    int64_t at_least;

    if (isnan(waited_ms) || busy_us < 0)
        return;
    at_least = llround(waited_ms * LS_US_PER_MS) - busy_us;
    if (at_least > b->hi)
        at_least = b->hi; /* the stamps' bound stands */
    if (at_least > b->lo)
        b->lo = at_least;
}

int64_t ls_idle_stored_us(const ls_idle_span *b)
{
    if (b->resolution >= LS_WHOLE_SECOND_US)
        return b->est;
    return b->est > 0 ? b->est : 0;
}

void ls_idle_span_bound(const ls_idle_span_in *in, ls_idle_span *out)
{
    ls_idle_window(in->last_start - in->lock_end, in->busy_us, in->resolution, out);
}

/* v capped at cap (NaN: no cap). */
static double capped(double v, double cap)
{
    return !isnan(cap) && cap < v ? cap : v;
}

int ls_idle_span_add(ls_idle_heads *p, double waiter_ms, const ls_idle_span *b,
                     double explained_cap_ms, double hold_ms)
{
    double hi = capped((double)b->hi / LS_US_PER_MS, explained_cap_ms);

    /* It may have been idle long enough, and caused waiting enough, by
     * the hidden waiting rule's floor (LS_FINDING_HIDDEN_MIN_MS: waits
     * rebuilt below deadlock_timeout, not logged, and a short pause of
     * the client, are near the idle rule's own floors from one run to
     * the next): counted, with its estimate as it is (below 0 too: the
     * sum of the estimates is what is unbiased). */
    if (!ls_finding_idle_hold_counts(waiter_ms, hi) || !(waiter_ms >= LS_FINDING_HIDDEN_MIN_MS) ||
        !(hi >= LS_FINDING_HIDDEN_MIN_MS))
        return 0;
    p->holds++;
    p->waiter_ms += waiter_ms;
    if (!isnan(hold_ms) && (isnan(p->max_hold_ms) || hold_ms > p->max_hold_ms))
        p->max_hold_ms = hold_ms;
    p->span_holds++;
    p->span_ms += capped((double)b->est / LS_US_PER_MS, explained_cap_ms);
    p->span_lo_ms += capped((double)b->lo / LS_US_PER_MS, explained_cap_ms);
    p->span_hi_ms += hi;
    p->span_var_ms2 += ls_idle_rounding_var_ms2(b->resolution);
    return 1;
}

/* v held within [lo, hi]. */
static double within(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* The known heads (ls_idle_known_add) counted when their sum is above
 * the stamps' rounding, else dropped. */
static void known_finish(ls_idle_heads *p)
{
    double est;

    if (p->known_holds == 0)
        return;
    est = within(p->known_ms, p->known_lo_ms, p->known_hi_ms);
    if (!ls_idle_above_rounding(est, p->known_var_ms2, p->known_holds) &&
        !(p->waited_holds > 0 &&
          p->known_lo_ms >= LS_FINDING_IDLE_MIN_UNEXPLAINED_MS * (double)p->known_holds)) {
        p->known_holds = 0; /* no more idle than the stamps' rounding could make */
        return;
    }
    p->known_ms = est;
    p->holds += p->known_holds;
    p->waiter_ms += p->known_waiter_ms;
    p->unexplained_ms += est;
    if (!isnan(p->known_max_hold_ms) &&
        (isnan(p->max_hold_ms) || p->known_max_hold_ms > p->max_hold_ms))
        p->max_hold_ms = p->known_max_hold_ms;
}

void ls_idle_span_finish(ls_idle_heads *p)
{
    double est;

    known_finish(p);
    if (p->span_holds == 0)
        return;
    est = within(p->span_ms, p->span_lo_ms, p->span_hi_ms);
    if (!ls_idle_above_rounding(est, p->span_var_ms2, p->span_holds) && p->holds == p->span_holds) {
        /* no more idle than the holds' own floor in all, or not by more
         * than the stamps' rounding could make: nothing shown */
        p->holds = 0;
        return;
    }
    p->unexplained_ms += est;
    p->span_ms = est;
}

double ls_idle_rounding_var_ms2(int64_t resolution)
{
    double r_ms = resolution > 0 ? (double)resolution / LS_US_PER_MS : 0;

    return r_ms * r_ms / 6.0;
}

int ls_idle_above_rounding(double est_ms, double var_ms2, int64_t n)
{
    return est_ms - 2.0 * sqrt(var_ms2) >= LS_FINDING_IDLE_MIN_UNEXPLAINED_MS * (double)n;
}

int ls_idle_known_add(ls_idle_heads *p, double waiter_ms, double est_ms, double hold_ms,
                      int64_t resolution)
{
    return ls_idle_known_add_waited(p, waiter_ms, est_ms, hold_ms, resolution, NAN, -1);
}

int ls_idle_known_add_waited(ls_idle_heads *p, double waiter_ms, double est_ms, double hold_ms,
                             int64_t resolution, double waited_ms, int64_t busy_us)
{
    ls_idle_span b;
    double lo, hi;

    if (isnan(est_ms))
        return 0;
    /* est_ms is already the window less its statements (findings_sum.c) */
    ls_idle_window(llround(est_ms * LS_US_PER_MS), 0, resolution, &b);
    lo = (double)b.lo / LS_US_PER_MS;
    hi = (double)b.hi / LS_US_PER_MS;
    ls_idle_at_least_waited(&b, waited_ms, busy_us);

    /* It may have been idle long enough (its upper bound): counted, with
     * its estimate as it is (below 0 too: only the sum of the signed
     * estimates is unbiased); the sum decides at ls_idle_span_finish. */
    if (!ls_finding_idle_hold_counts(waiter_ms, hi))
        return 0;
    p->known_holds++;
    p->known_waiter_ms += waiter_ms;
    if (!isnan(hold_ms) && (isnan(p->known_max_hold_ms) || hold_ms > p->known_max_hold_ms))
        p->known_max_hold_ms = hold_ms;
    p->known_ms += est_ms;
    if ((double)b.lo / LS_US_PER_MS > lo) {
        p->waited_holds++;
        p->waited_lo_ms += (double)b.lo / LS_US_PER_MS - lo;
        lo = (double)b.lo / LS_US_PER_MS;
    }
    p->known_lo_ms += lo;
    p->known_hi_ms += hi;
    p->known_var_ms2 += ls_idle_rounding_var_ms2(resolution);
    return 1;
}

void ls_idle_range(const ls_idle_heads *p, double *lo, double *hi)
{
    double est = 0, var = 0, min = 0, max = 0, margin;

    if (p->span_holds > 0) {
        est += p->span_ms;
        var += p->span_var_ms2;
        min += p->span_lo_ms;
        max += p->span_hi_ms;
    }
    if (p->known_holds > 0) {
        est += p->known_ms;
        var += p->known_var_ms2;
        min += p->known_lo_ms;
        max += p->known_hi_ms;
    }
    margin = 2.0 * sqrt(var);
    /* the rest of the amount (silences) as it is */
    *lo = p->unexplained_ms - est + within(est - margin, min, max);
    *hi = p->unexplained_ms - est + within(est + margin, min, max);
}
