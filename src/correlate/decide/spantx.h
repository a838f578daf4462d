/*
 * spantx.h — a logged statement's transaction from its request's trace
 * (issue 34, blind-pool). With log_statement = 'none' and
 * log_min_duration_statement, a statement is logged alone: no BEGIN
 * before it, no COMMIT after, so the log reads it as a transaction of
 * its own and a row it locked as held until its end (0 ms). Its
 * request's trace has the whole transaction: the BEGIN span before the
 * statement's span and the COMMIT or ROLLBACK span after it.
 */
#ifndef LS_DECIDE_SPANTX_H
#define LS_DECIDE_SPANTX_H

#include <stddef.h>
#include <stdint.h>

#include "ls_sqlshape.h"

/* The start evidence of a hold a span timed (txspans.c): a statement the
 * log does not have of a transaction rebuilt from its spans, and one of a
 * transaction of spans only. Its start_lo is the span's start: when the
 * statement began. */
#define LS_SPAN_LOCK_START "end of its statement's span (statement not logged)"
#define LS_SPAN_ONLY_START                                                                         \
    "spans only: end of its statement's span (no statement of its transaction logged)"
/* The same of a statement the log has, on whole seconds: the hold begins
 * at its span's end, its statement at the span's start (start_lo). */
#define LS_SPAN_LOGGED_START "end of the span of the locking statement"

/* One database span of a request, as the decision reads it: its kind
 * (ls_sql_kind_of of its text), its start and its end (database clock). */
typedef struct ls_tx_span {
    ls_sql_kind kind;
    uint64_t text; /* ls_span_text_hash() of its text */
    int64_t start, end;
} ls_tx_span;

/* A statement the log has of the same session: its text's hash
 * (ls_span_text_hash()), its start and end (database clock). */
typedef struct ls_tx_logged {
    uint64_t text;
    int64_t start, end;
} ls_tx_logged;

/*
 * The explicit transaction span v[k] ran in, among its request's database
 * spans v[0..n) (in start order): the last BEGIN before it with no COMMIT
 * or ROLLBACK between, and the first COMMIT or ROLLBACK after it with no
 * BEGIN between, in *first and *last; 1 when there is one. 0: v[k] is
 * itself a BEGIN, COMMIT or ROLLBACK, k >= n, no BEGIN opened one (an
 * autocommit statement), or none ended it in the export.
 */
int ls_span_tx_of(const ls_tx_span *v, size_t n, size_t k, size_t *first, size_t *last);

/*
 * Whether the transaction v[first..last] can be the one a logged
 * statement of a session ran in, given the session's logged statements
 * st[0..n) that overlap it: each one that ran between the BEGIN's end and
 * the COMMIT's start (more than `slack` inside) is one of its spans (the
 * same text, inside that span's start and end, with slack). A log with
 * whole-second times (res: LS_WHOLE_SECOND_US, else 0) gives times that
 * may be up to res early: only a statement inside the transaction at any
 * of its possible times counts (after the BEGIN's end at its earliest,
 * before the COMMIT's start at its latest), and it is inside a span when
 * it could have started there. A backend
 * runs one transaction at a time, also behind a pooler: a transaction
 * that overlaps another statement the session logged is not this one.
 */
int ls_span_tx_fits(const ls_tx_span *v, size_t first, size_t last, const ls_tx_logged *st,
                    size_t n, int64_t res, int64_t slack);

/*
 * Whether the transaction v[first..last] of a request (spans in start
 * order, database clock) is one the log has: some statement st[0..n)
 * (sorted by start; every statement the store has, of any session, logged
 * or added from a span) is one of its spans v[first..last] (the same
 * text, inside the span with slack, at any of its times within res: as
 * ls_span_tx_fits() matches them); its BEGIN and COMMIT (ROLLBACK) too: a
 * deadlock victim's transaction is rebuilt from those two spans alone
 * (spans.c write_victims), and a log that has its BEGIN has it; those two
 * only when they end with their span (with slack) at the time given (res
 * 0): every BEGIN has one text, and behind a pooler a BEGIN's span lasts
 * while the request waits for a backend (blind-pool: 59 ms), in which
 * other transactions begin. 0: none of its statements was logged
 * (blind-pool: log_min_duration_statement = 50 behind pgbouncer, a
 * request whose statements all ran under 50 ms without a lock wait), so
 * only its spans tell of it.
 */
int ls_span_tx_logged(const ls_tx_span *v, size_t first, size_t last, const ls_tx_logged *st,
                      size_t n, int64_t res, int64_t slack);

/*
 * Whether a span, by its error flag, may be a statement the log wrote
 * with its duration (log_min_duration_statement, log_duration): the server
 * writes a statement's duration when it completes; one that failed (a
 * deadlock victim's, a 40001, a cancel) has an ERROR line with its text
 * and no duration. A span that ended in an error is none of them
 * (blind-pool %t + traces: a deadlock victim's UPDATE span, ended 6 ms
 * before the second two transfers' UPDATEs of its text were stamped in,
 * made three spans for two statements, so the log's order could not
 * pair them). 1: it may be; 0: it ended in an error.
 */
int ls_span_may_be_logged(int error);

/*
 * On a whole-second log, the span of a statement logged with others of
 * its text in the same second (the same stamp), where the spans alone do
 * not tell. d[0..nl): the durations of those statements in the log's
 * order (file and line: each line is written when its statement ends);
 * e[0..ns): the durations of the spans of that text that ended in that
 * second (with slack), in end order. A span whose duration fits none of
 * the statements' (e in [d - lo, d + hi]: the span holds its statement
 * and the reply through the pooler) is none of them (a statement under
 * log_min_duration_statement that the log did not write). When as many
 * spans remain as statements and each pairs, in order, with a span whose
 * duration fits its statement's, the index (in e) of statement `rank`'s
 * span; -1 otherwise: the log's order does not decide, left as the log
 * has it.
 */
long ls_span_pick_in_order(const int64_t *d, size_t nl, const int64_t *e, size_t ns, size_t rank,
                           int64_t lo, int64_t hi);

/*
 * On a whole-second log, where a logged statement's hold begins once its
 * span is known: its stamp is its end up to a second early, so the hold
 * begins at the span's end (*acquired), and the statement began at the
 * span's start (*stmt_start, the hold's start_lo): the hidden-waits pass
 * reconstructs its queueing from there, as it does from a millisecond
 * log's statement start (its end less its duration). With the span's
 * start dropped (start_lo NULL, as branch pool34c left it) the statement
 * had no time to queue in: blind-pool's %t log with its export rebuilt
 * 4.0 s of hidden waiting (truth: 35.0 s of waits below
 * deadlock_timeout, the jsonlog's 46.6 s). Returns 1; 0 when the span
 * ended before `stamp` (the hold's start as the log gave it: a span
 * earlier than its statement's stamp is not its), nothing set.
 */
int ls_span_hold_start(const ls_tx_span *sp, int64_t stamp, int64_t *acquired, int64_t *stmt_start);

/*
 * A deadlock victim behind a pooler (spans.c write_victim rebuilt its
 * transaction from its request's BEGIN and ROLLBACK spans): the
 * statements it ran before the one that failed are in no log line under
 * log_min_duration_statement, but each held the rows it locked until the
 * error aborted the transaction (blind-pool: a transfer's first UPDATE,
 * the row the other side of the deadlock waited for). v[0..n) its
 * request's spans by start, begin the index of its BEGIN span. Returns 1
 * when the spans from it are one transaction (ls_span_tx_of()) with
 * *last its end (COMMIT or ROLLBACK); the spans in (begin, *last) are its
 * statements, each holding from its end the rows its text names, but a
 * span that ended in an error (it locked nothing) and one whose statement
 * the log has (a transaction of its own there, with its hold). 0 when
 * begin is no BEGIN of a transaction in v.
 */
int ls_span_victim_tx(const ls_tx_span *v, size_t n, size_t begin, size_t *last);

#endif
