/*
 * victim.h — a deadlock victim's failed span and transaction on a pooled
 * backend (issue 34, blind-pool), where the log has neither: its failed
 * statement is in the log only as the ERROR's, its BEGIN and ROLLBACK ran
 * too fast for log_min_duration_statement, and the spans carry no backend
 * pid. spans.c (write_victims) pairs each victim with the database span of
 * its text that ended in an error, and the transactions pass links the
 * deadlock to the transaction rebuilt from that span's request.
 */
#ifndef LS_DECIDE_VICTIM_H
#define LS_DECIDE_VICTIM_H

#include <stddef.h>
#include <stdint.h>

/* The application hears of a deadlock this long after the server wrote
 * it, at most (through pgbouncer: 7-17 ms on blind-pool). */
#define LS_VICTIM_HEARD_US 100000

/* The clock offset measured on a whole-second log is right to tens of
 * milliseconds, not to one (blind-pool: -15.3 ms, truth +0.08 ms): a
 * failed span's end on the database clock may come out this much before
 * the deadlock's second began. */
#define LS_VICTIM_CLOCK_SLACK_US 50000

/* A failed database span of the victim's text, as the pairing reads it. */
typedef struct ls_failed_span {
    int64_t end;  /* its end, on the database clock */
    int used;     /* already paired with an earlier deadlock of the log */
} ls_failed_span;

/*
 * Which of the failed spans c[0..n) (of the victim's text, those the
 * caller's window gives, sorted by end) ended in the deadlock at ts (its
 * log time, database clock) of a log whose times have resolution res
 * (0: to the millisecond; else a whole second, ts its start). To the
 * millisecond: the one span there is that ended in [ts - slack, ts +
 * LS_VICTIM_HEARD_US], or none when several did (no unique evidence); a
 * span of the text that failed later was the next victim's. Whole seconds: deadlocks of one text in one second
 * are taken in the log's order, each the first span not yet used whose
 * end lies in [ts - slack, ts + res + LS_VICTIM_HEARD_US] (slack: the
 * clock offset's error, LS_VICTIM_CLOCK_SLACK_US there): the server
 * writes the deadlock before the client hears of it, in the order it
 * detects them. Returns its index, or -1.
 */
int ls_victim_span(const ls_failed_span *c, size_t n, int64_t ts, int64_t res, int64_t slack);

/* A transaction of the victim's session that may be its (the
 * transactions pass's candidates, latest begun first). */
typedef struct ls_victim_tx_cand {
    int64_t start, end; /* end 0: open, not ended */
    int from_spans;     /* its first statement came from a span (spans.c) */
    int victim_before;  /* an earlier deadlock of the log was linked to it */
} ls_victim_tx_cand;

/*
 * On a whole-second log (res > 0) the transaction the deadlock at ts
 * (its second's start) is linked to: of the transactions rebuilt from
 * the victim's spans (from_spans) that were open at some moment of the
 * deadlock's second [ts, ts + res) and that no earlier deadlock of the
 * log chose (a deadlock aborts its victim's transaction: it is a victim
 * once), the earliest begun: deadlocks of one session in one second are
 * linked in the log's order. The log's positions cannot tell it:
 * none of its statements is a line of the log, and the logged
 * transactions of other clients on the same pooled backend in that
 * second look as open as it. -1 when there is none, or the log has
 * sub-second times (the position rule holds there).
 */
int ls_victim_tx(const ls_victim_tx_cand *c, size_t n, int64_t ts, int64_t res);

/*
 * Is a statement of a deadlock process's DETAIL text, logged by its
 * session, the one it was running when the deadlock at ts was written
 * (a log of resolution res: ts is then its second's start)? It began by
 * then (start <= ts + res) and, when the log gave its duration (end >=
 * 0), had not ended before (end >= ts): the process was waiting in it.
 * Without a duration (log_statement), the latest of the text begun by
 * then is taken, as the caller reads latest first.
 */
int ls_deadlock_stmt_running(int64_t start, int64_t end, int64_t ts, int64_t res);

#endif
