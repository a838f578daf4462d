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

#endif
