/*
 * waittx.h — the waiter's transaction of a lock wait on a whole-second log
 * (issue 34, blind-pool: pgbouncer in transaction pooling, '%t').
 *
 * A pooled backend runs several clients' transactions in one second, and
 * on a '%t' log a wait's start is only known to a second: the message
 * "detected deadlock ... after 201.778 ms" stamped 17:36:04 began in
 * [03.798, 04.798). The transactions pass linked it to the session's
 * transaction open at the interval's first instant (OPEN_TX): none, or a
 * transaction that ended before the wait began, while the transaction
 * the deadlock itself was linked to (decide/victim.h, from its request's
 * spans, to the microsecond) began at 04.707. Here the candidates' span
 * times are read against the whole interval.
 */
#ifndef LS_DECIDE_WAITTX_H
#define LS_DECIDE_WAITTX_H

#include <stddef.h>
#include <stdint.h>

/* A transaction of the waiter's session that may have run the wait. */
typedef struct ls_wait_tx_cand {
    int64_t start, end; /* database clock; end 0: not ended */
    int64_t end_res;    /* its end's resolution: 0 for a span's, the log's
                         * (whole second) for a logged line's: it ended in
                         * [end, end + end_res) */
    int end_open;       /* end is only its last logged statement's: its own
                         * end is not in the log (log_min_duration_statement
                         * logs no COMMIT, ROLLBACK or failed statement) */
    int aborted;        /* it ended in a ROLLBACK or an error */
    int victim;         /* the transaction the wait's deadlock was linked to */
    int linked;         /* the transaction the links before linked */
    int by_pos;         /* linked, by the log's position of the wait's own
                         * statement, which is one of its statements */
    int taken;          /* an earlier deadlock wait of the log took it */
} ls_wait_tx_cand;

/* What the waiter's transaction is judged against. */
typedef struct ls_wait_tx_wait {
    int64_t start_lo; /* the wait began in [start_lo, start_lo + res) */
    int64_t end_lo;   /* its last message was written in [end_lo, end_lo + res) */
    int64_t waited;   /* how long it waited, us (the log's "after N ms") */
    int64_t res;      /* the log's resolution (LS_WHOLE_SECOND_US) */
    int64_t slack;    /* the spans' clock offset's error (LS_VICTIM_CLOCK_SLACK_US) */
    int deadlock;     /* it ended in a deadlock (its transaction was aborted) */
} ls_wait_tx_wait;

/*
 * Could transaction c have run wait w? It began before the wait's latest
 * start (c.start - slack < start_lo + res), was still open when the
 * wait's last message was written (c.end + end_res + slack >= end_lo) and
 * lasted the wait (c.end + end_res - c.start + 2 slack >= waited). A
 * deadlock aborts its
 * victim's transaction: it ended in a ROLLBACK or an error, by the time
 * the client heard of it (c.end - slack <= end_lo + res +
 * LS_VICTIM_HEARD_US). A transaction whose end is not in the log
 * (end_open) may have run on and been aborted: its last logged statement
 * ended before the wait's latest start (c.end - slack < start_lo + res).
 * A deadlock aborts its victim's transaction once: one an earlier
 * deadlock wait took (taken) does not fit another.
 */
int ls_wait_tx_fits(const ls_wait_tx_cand *c, const ls_wait_tx_wait *w);

/*
 * The waiter's transaction among c[0..n): the deadlock's own (victim)
 * when there is one and it fits (the deadlock's link tells apart the
 * victims of one session in one second, decide/victim.h), none when it
 * does not; else the one the log's position of the wait's statement
 * linked (exact, whatever the times: an excerpt of a log that begins
 * inside transactions cuts them at its first line); else the one linked
 * before when it fits (a log with its BEGIN and ROLLBACK lines:
 * blind-py); else the one candidate that fits. -1 (not linked) when none
 * or several fit.
 */
int ls_wait_tx_pick(const ls_wait_tx_cand *c, size_t n, const ls_wait_tx_wait *w);

/* A logged statement of a deadlock process's DETAIL text in its session
 * (latest begun first). */
typedef struct ls_wait_holder_stmt {
    int64_t start;
    int64_t end; /* its end; -1: no duration logged */
} ls_wait_holder_stmt;

/*
 * A deadlock wait's holder on a whole-second log is the process the
 * wait's DETAIL names, itself waiting in the deadlock's cycle: its
 * transaction is the one running its DETAIL statement when the deadlock
 * at ts was written (ls_deadlock_stmt_running, resolution res). Behind a
 * pooler that statement's duration line comes after the deadlock's (it
 * got the row once the victim rolled back), so the log's position gives
 * the transaction before it, another client's. Of c[0..n): the one
 * running then, when only one is; of statements without a duration the
 * latest begun (as the caller reads them). -1 when none or several.
 */
int ls_wait_holder_stmt_pick(const ls_wait_holder_stmt *c, size_t n, int64_t ts, int64_t res);

#endif
