/*
 * errstmt.h — which statement an error line belongs to. An error belongs
 * to the statement that was running in its session when the server wrote
 * it: the session's last statement before it in the log. Never "the
 * process's next error after a wait": on a backend that a pooler shares,
 * or in a session that ran on after the wait, that next error is another
 * statement's (another client's, a later transaction's). The session and
 * the log position (logpos.h) decide; times only bound the search.
 * Pure functions over plain values: no store, no I/O.
 */
#ifndef LS_DECIDE_ERRSTMT_H
#define LS_DECIDE_ERRSTMT_H

#include <stddef.h>
#include <stdint.h>

#include "logpos.h"

/*
 * Does the statement line at `line`, a line of the same session as the
 * wait and the error, separate the statement whose lock wait closed at
 * wait_end from the error at err? It does when it lies strictly between
 * them in the log: a statement line there is either the waiting
 * statement's own duration line (it ended well) or a later statement's
 * (the session ran on; on a pooled backend, maybe another client's). An
 * unknown position (a span's statement, file and line 0) separates
 * nothing. Returns 1 or 0.
 */
int ls_line_separates(ls_logpos wait_end, ls_logpos err, ls_logpos line);

/*
 * Was the error at err the outcome of the statement whose lock wait
 * closed at wait_end (its "acquired" message), given the session's
 * statement lines `lines` (n of them, any order; those outside the span
 * between the two are ignored)? Yes when the error was written after the
 * wait's end and no statement line of the session lies between them
 * (ls_line_separates). Returns 1 yes, 0 no, -1 when either position is
 * unknown (the caller decides by time, as before positions).
 */
int ls_error_ended_wait_stmt(ls_logpos wait_end, ls_logpos err, const ls_logpos *lines, size_t n);

/* A transaction of the error's session that may be the error's, as
 * ls_error_tx() weighs it. */
typedef struct ls_tx_candidate {
    ls_logpos first; /* its first statement's line; file and line 0: unknown */
    int open;        /* by time, it had not ended before the error */
} ls_tx_candidate;

/*
 * The transaction an error line at err belongs to, of the n transactions
 * of its session begun by the error's time (c, latest begun first): the
 * one whose first statement is the last written before the error in the
 * log (a transaction begun after it, even in the same whole second, is
 * not its), if by time it had not ended before it (open). Where the
 * error's position is unknown, or no candidate's is, the latest begun.
 * When that one had ended, the first open candidate of unknown position
 * (rebuilt from trace spans: spans.c) is the error's. Returns its index
 * in c, or -1 for none.
 */
int ls_error_tx(const ls_tx_candidate *c, size_t n, ls_logpos err);

/* What the statement row its session logged last before an error line
 * is (a row no later line of the session joined). */
typedef enum ls_last_line {
    LS_LAST_STATEMENT, /* a statement line of its own (execute, statement) */
    LS_LAST_PARSE,     /* a parse line alone */
    LS_LAST_BIND       /* a bind line (its parse line folded in or not) */
} ls_last_line;

/*
 * Is that row the statement the error ended, known only from its bind
 * line (issue 34)? With durations logged (log_min_duration_statement) an
 * extended-protocol statement writes parse, bind and execute lines, each
 * when its step is done; an execute that fails writes none, so its bind
 * line, with the text and the parameters (DETAIL), is all the log has of
 * it, and the ERROR follows it. It is when the row is a bind line, the
 * error is the session's first after it (first) and was written no
 * earlier than the bind line (bind_ts <= error_ts; equal in a
 * whole-second log): the execute began when the bind was done (bind_ts)
 * and ended at the error. A parse line alone is a bind that failed
 * (nothing ran, no parameters); a statement line of its own is a
 * statement that ended well (its line is written at its end), so the
 * error is of one the log does not show. Returns 1 or 0.
 */
int ls_error_ended_bind(ls_last_line last, int first, int64_t bind_ts, int64_t error_ts);

#endif
