/*
 * idlegap.h — idle in transaction at the head of a row's queue, from a
 * log without durations (log_statement = 'all', no log_duration): how
 * long the holder's session is known to have sat silent, holding the
 * row, while others queued for it. The idle rule (findings.c,
 * ls_fnd_gather_idle) asks this for each hold whose head state the holds
 * pass could not name ("unknown": a statement's end is bounded only by
 * the session's next line).
 *
 * The evidence, for one hold: the statement that took the row (L), the
 * session's next statement (N), and the waits queued on the holder's
 * transaction for the row. A waiter that queues on the transaction found
 * the row already written by it: L had done its write by then, so a
 * silence of the session from that moment to N is time the holder held
 * the row without running a statement. Times are microseconds; positions
 * are lines in the log (ls_logpos: its order decides where whole-second
 * times tie).
 */
#ifndef LS_DECIDE_IDLEGAP_H
#define LS_DECIDE_IDLEGAP_H

#include <stdint.h>

#include "finding.h"

/* One hold's evidence, as the idle rule's query gathers it. */
typedef struct ls_idle_gap_in {
    int64_t lock_ts;    /* L's logged start */
    int64_t next_ts;    /* N's logged start */
    int has_tx_wait;    /* a waiter queued on the holder's transaction for the row */
    int64_t tx_wait_ts; /* ... the first such wait's start */
    /* The longest time one such wait is known to have waited at a line the
     * log wrote between L's and N's (its "still waiting after d ms" or its
     * end): NaN when none. Whole-second stamps cannot order L, the wait
     * and N; the log's order can. */
    double logged_wait_ms;
    int own_wait;       /* the holder logged a wait of its own between L and N
                         * that had not ended before the first such wait was
                         * logged: it was queued, not idle */
    int64_t resolution; /* the log's time resolution: LS_WHOLE_SECOND_US or less */
} ls_idle_gap_in;

/*
 * How long the session is known to have sat silent holding the row,
 * between L and N: the longer of
 *   - by time: N's start minus the later of L's start and the first wait
 *     on the transaction, less the log's resolution (each stamp may lie
 *     up to one resolution before the true time), and
 *   - by log position: logged_wait_ms.
 * 0 without a wait on the transaction (nothing says L had written the
 * row), when the holder was itself queued (own_wait), when N is not
 * after L, or when neither bound is above 0.
 */
int64_t ls_idle_gap_silence_us(const ls_idle_gap_in *in);

/*
 * Add one hold, its idle time known from silence (silence_us, above) and
 * explained_cap_ms the idle time no trace span explains (NaN: no trace
 * linked, the silence is unexplained): the hold counts as
 * ls_finding_idle_hold_counts() says, with the smaller of the two. The
 * longest silence of a path's counted holds is kept, with its bounds
 * (from_ts, to_ts: L's and N's logged starts) and the hold's waits, for
 * the finding to say how it knows. 1 if it counted.
 */
int ls_idle_gap_add(ls_idle_heads *p, double waiter_ms, int64_t silence_us,
                    double explained_cap_ms, double hold_ms, int64_t from_ts, int64_t to_ts,
                    int64_t waits);

/*
 * Idle at the head with durations, for a hold that others waited for
 * below deadlock_timeout (the hidden pass's row_waits covered it; no wait
 * logged, so the holds pass split no contended window): the time its
 * session spent outside statements between the end of the statement that
 * took the row (L) and the start of its transaction's last statement
 * (C, the COMMIT or ROLLBACK), less the durations of the statements
 * between (their bind and parse included). With durations every
 * statement's start is its logged time less its duration, and the logged
 * time is known to the log's resolution: on a whole-second log
 * (LS_WHOLE_SECOND_US, pgBadger's %t) each of L's end and C's start lies
 * up to one resolution after its stamp, so the idle time is only known
 * to lie within one resolution of the estimate either way (the two
 * errors may cancel or add; they are independent, so over many holds the
 * estimates' errors average out, the bounds' do not). Times in µs.
 */
typedef struct ls_idle_span_in {
    int64_t lock_end;   /* L's end: its logged time */
    int64_t last_start; /* C's start: its logged time less its duration */
    int64_t busy_us;    /* the statements between, and C's bind and parse */
    int64_t resolution; /* the log's time resolution */
} ls_idle_span_in;

typedef struct ls_idle_span {
    int64_t est;        /* the estimate: below 0 where the stamps' doubt exceeds the idle */
    int64_t lo, hi;     /* its bounds, each 0 or more */
    int64_t resolution; /* the log's resolution the estimate is off by, at most, either way */
} ls_idle_span;

/* The idle time between L and C as the log allows it (above):
 * ls_idle_window of the window from L's end to C's start. */
void ls_idle_span_bound(const ls_idle_span_in *in, ls_idle_span *out);

/*
 * A hold's idle, the one definition (issue 34) of every idle figure read
 * from the log's stamps: the holds pass's per hold (holds.idle_ms, the
 * holder's time while others waited less its statements: decide/hold.c
 * ls_hold_state), the idle rule's from durations (ls_idle_span_bound,
 * ls_idle_known_add); the report's range of a hold's idle
 * (reports/model.c, which may not include this header) follows it.
 * window_us is a time between two stamps, busy_us the
 * statements' time in it (durations, exact); resolution r the log's. The
 * estimate, window_us - busy_us, is off by a triangular error on (-r, r)
 * (each stamp up to r early): below 0 too, and unbiased, so sums of it
 * are; lo and hi, each 0 or more, bound the truth: est - r and est + r.
 * At a millisecond the bounds are a millisecond either way; on a
 * whole-second log (%t) a second: samples/realistic's accounts.deposit,
 * 784 ms idle while others waited by its csvlog, reads 100 ms in its %t
 * log, 0 to 1.1 s.
 */
void ls_idle_window(int64_t window_us, int64_t busy_us, int64_t resolution, ls_idle_span *out);

/*
 * A lower bound of a hold's idle from a wait on its transaction (issue
 * 34), raising b's lo (never above its hi, nor below it). waited_ms: the
 * longest time a wait queued on the holder's transaction for the row had
 * waited at a line the log wrote before the line of the holder's
 * transaction's last statement (its COMMIT or ROLLBACK): a "still waiting
 * ... after d ms", or its closing line's "acquired" or "detected
 * deadlock ... after d ms" when that too came first (a wait an error
 * ended, a lock timeout's, has no `after` there: its length on a
 * whole-second log is from stamps, samples/i18n's lock_timeout, 1125.5 ms
 * read where its %m log says 413.5 ms);
 * the holder's transaction held the row that long while others waited,
 * and whole-second stamps need not order the two lines: the log does.
 * busy_us: the whole durations (bind and parse included) of the holder's
 * statements from the one that took the row to its last, an upper bound
 * of what it ran meanwhile. NaN waited_ms, or busy_us below 0 (a
 * statement without a duration, or one that failed: its wait, not idle,
 * is not known), leave b as it is. The link is the log's order, not the
 * wait's end: a waiter's closing line logged after the holder's end says
 * nothing of the hold (samples/i18n's refunds, the deadlock victim: its
 * waiter logged "acquired ... after 2131.737 ms" 1.8 s after the victim's
 * ROLLBACK, the waiter's backend not running meanwhile; the victim was
 * idle 437 ms, its waiter's "still waiting ... after 103.695 ms" came
 * before the ROLLBACK). samples/realistic %t: accounts.deposit, 0 to
 * 1.1 s by its stamps, at least 99.8 ms by its waiter's "still waiting
 * ... after 100.758 ms" before its COMMIT (its csvlog: 784.0 ms). The
 * evidence: src/correlate/idle_sql.h.
 */
void ls_idle_at_least_waited(ls_idle_span *b, double waited_ms, int64_t busy_us);

/*
 * The figure of b a hold stores as its idle (holds.idle_ms): on a
 * whole-second log its estimate as it is (below 0 too: the report shows
 * it with its range, and a sum over holds stays unbiased); with finer
 * times the estimate never below 0 (a millisecond's doubt is below what
 * a report shows).
 */
int64_t ls_idle_stored_us(const ls_idle_span *b);

/*
 * Add one such hold: it counts when ls_finding_idle_hold_counts() says so
 * of its waiting caused and its upper bound (it may have been idle that
 * long), and both reach LS_FINDING_HIDDEN_MIN_MS (the hidden waiting
 * rule's floor: near the idle rule's own floors, waits rebuilt below
 * deadlock_timeout and a client's short pauses come and go from one run
 * to the next, samples/i18n's checkout); its estimate, as it is (below 0 too: per hold the estimate is
 * off by up to a resolution either way, and only the sum of the signed
 * estimates is unbiased), and its bounds are summed into p's span_*
 * (each capped by explained_cap_ms, the idle no trace span explains; NaN:
 * none linked). 1 if it counted.
 */
int ls_idle_span_add(ls_idle_heads *p, double waiter_ms, const ls_idle_span *b,
                     double explained_cap_ms, double hold_ms);

/*
 * A code path's holds all added: the sum of the span holds' estimates,
 * held within the sum of their bounds, joins p->unexplained_ms (and is
 * kept in p->span_ms). When the path's only counted holds are such holds
 * and that sum, less two standard deviations of what the stamps' rounding
 * alone makes of it, is below LS_FINDING_IDLE_MIN_UNEXPLAINED_MS a hold
 * (ls_idle_above_rounding, below), they are dropped (p->holds 0: the rule does not fire for the path).
 * Each estimate is the difference of two stamps, each up to a resolution
 * r early, uniformly: off by a triangular error on (-r, r), variance
 * r^2 / 6; n holds' sum, n r^2 / 6. One 749 ms hold on a whole-second log
 * (2 sigma = 816 ms) is no evidence of idling; thirty that sum to 30 s
 * (2 sigma = 4.5 s) are.
 */
void ls_idle_span_finish(ls_idle_heads *p);

/*
 * The stamps' rounding, one mechanism for the idle rule's estimates from
 * durations (ls_idle_span_* above, and a head the holds pass found idle
 * in transaction, ls_idle_known_add below). An idle time read as the
 * difference of two logged times, each up to the log's resolution r
 * early, uniformly and independently, is off by a triangular error on
 * (-r, r): variance r^2 / 6 (ls_idle_rounding_var_ms2, in ms^2; n holds'
 * sum, n times that). An estimate est_ms of n holds' idle with that
 * variance is evidence of idling when, less two standard deviations, it
 * reaches LS_FINDING_IDLE_MIN_UNEXPLAINED_MS a hold
 * (ls_idle_above_rounding; NaN: no). At a millisecond the margin is
 * 0.82 ms a hold; at a whole second (%t), 816 ms: one hold idle 1.0 s by
 * its stamps (1 s less sub-millisecond statements) stays, one of 0.5 s
 * is no evidence.
 */
double ls_idle_rounding_var_ms2(int64_t resolution);
int ls_idle_above_rounding(double est_ms, double var_ms2, int64_t n);

/*
 * Add one head the holds pass found idle in transaction (or, on a
 * whole-second log, where its state is read from rounded times, any head
 * with durations; findings_sum.c): est_ms is its idle, unclipped, read
 * from the log's stamps at resolution r: the hold's length less its
 * statements' durations after the one that took the row (and the parts
 * a trace span explains), below 0 too, off by a triangular error on
 * (-r, r). It counts when it made others wait
 * LS_FINDING_IDLE_MIN_WAITER_MS or more and its upper bound (est_ms + r)
 * reaches LS_FINDING_IDLE_MIN_UNEXPLAINED_MS (ls_finding_idle_hold_counts),
 * its estimate and bounds summed into p's known_* apart. At
 * ls_idle_span_finish the path's known heads join its sums when their
 * summed estimate is above the stamps' rounding (ls_idle_above_rounding,
 * n holds), else none does. On a whole-second log a hold idle 130 ms
 * reads 1.0 s when a second boundary fell in it (13 % of such holds) and
 * 0 otherwise: clipped at 0 and counted one by one, only the first were
 * counted, at a second each (samples/trigger-paths' %t cut: 16 s for
 * holds idle 2.09 s); summed signed, the path's 90 holds read 16.0 s
 * where its %m log reads 11.9 s (2 sigma: 7.7 s). 1 if it counted (for
 * now: the sum decides).
 */
int ls_idle_known_add(ls_idle_heads *p, double waiter_ms, double est_ms, double hold_ms,
                      int64_t resolution);

/*
 * ls_idle_known_add with the waits' evidence of the hold (issue 34):
 * waited_ms and busy_us as ls_idle_at_least_waited reads them (NaN, -1:
 * none), which raise its lower bound. At ls_idle_span_finish the path's
 * known heads count when their summed estimate is above the stamps'
 * rounding, or when the sum of their lower bounds alone reaches
 * LS_FINDING_IDLE_MIN_UNEXPLAINED_MS a hold: idle proved, however the
 * stamps round (samples/realistic's %t accounts.deposit: its one hold
 * estimated -0.4 ms from stamps one second apart at most, at least
 * 99.8 ms by its waiter's "still waiting ... after 100.758 ms" before its
 * COMMIT; its csvlog: 800.8 ms). The path's amount is then the sum of
 * the estimates held within the sums of the bounds (99.8 ms there), its
 * range (ls_idle_range) what the log allows.
 */
int ls_idle_known_add_waited(ls_idle_heads *p, double waiter_ms, double est_ms, double hold_ms,
                             int64_t resolution, double waited_ms, int64_t busy_us);

/*
 * A finished path's idle (p->unexplained_ms, after ls_idle_span_finish)
 * as a range: its part from durations (the span and known heads' summed
 * estimates) within two standard deviations of the stamps' rounding
 * either way, held within the sum of those holds' bounds; the rest
 * (silences, lower bounds already) as it is. On a whole-second log the
 * report states it: samples/trigger-paths' shop-checkout, 92 holds
 * estimated 18.0 s, 10.2 to 25.8 s, where its %m log reads 11.9 s.
 */
void ls_idle_range(const ls_idle_heads *p, double *lo, double *hi);

#endif
