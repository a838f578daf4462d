/*
 * stmt.h — which logged statement of the waiter's session is the one that
 * waited. The waiter-statement step (holds.c) reads the session's lines
 * near the wait's first message and places each against it in the log.
 */
#ifndef LS_DECIDE_STMT_H
#define LS_DECIDE_STMT_H

#include <stdint.h>

/* A logged statement of the waiter's session near a wait. */
typedef struct ls_stmt_candidate {
    int after;        /* logged after the wait's first message */
    int has_duration; /* a duration line: written when the statement ended */
    int bind;         /* a bind line: the parameters of an execute that may not be logged */
    int64_t dur_us;   /* its duration, when has_duration */
} ls_stmt_candidate;

/*
 * Which candidate (in log order; bind lines are not looked at) is the
 * statement that waited: a duration line is written when the statement
 * ends, so the first one after the wait's message; a log_statement line
 * when it starts, so the last one before. Returns its index, or -1.
 */
int ls_pick_waiter_stmt(const ls_stmt_candidate *c, int n);

/*
 * The waiter's line among n candidates in log order: ls_pick_waiter_stmt()
 * over those that are not bind lines, else the last bind line before the
 * message. A statement that failed in its wait (`failed`: a deadlock
 * victim, a timeout) logged no line at its end: a duration line after the
 * message is a later statement (the ROLLBACK, the retry) and is passed
 * over. Returns its index, or -1.
 */
int ls_pick_waiter_line(const ls_stmt_candidate *c, int n, int failed);

/*
 * Whether the candidates looked at may have missed the waiter's statement
 * (picked: the one ls_pick_waiter_line() chose, NULL for none): the wait
 * did not fail, yet none was logged at its end after the message, or the
 * one found ran shorter than the wait of waited_ms (less
 * LS_STMT_DURATION_SLACK_US: durations are whole microseconds), a later
 * statement: the waiter's began before the ones looked at.
 */
int ls_waiter_stmt_missed(const ls_stmt_candidate *picked, int failed, double waited_ms);

/* A row a statement would lock, and how the statement ended. */
typedef struct ls_locked_row {
    int failed;         /* an error of the session ended the statement */
    int lock_error;     /* that error is a lock's: 40001, 40P01, 55P03 */
    int64_t row_id;     /* the row its text, parameters or a rule name */
    int64_t failed_row; /* the row its own wait ended in the error was for, 0: none logged */
    int acquired;       /* its own logged wait for row_id ended with the lock acquired */
} ls_locked_row;

/*
 * Whether the statement holds the row (until its transaction ends). One
 * that ran to its end does. One that failed acquired nothing on the row
 * it failed on (it queued for it: the wait is a wait, not a hold), but
 * keeps what it took before failing: a row its logged wait got, or any
 * row other than the one a logged wait shows it failed on (a deadlock
 * victim's function that locked one row and died waiting for the next).
 * A lock error with no wait logged was on the statement's own row. Any
 * other error (a constraint, a trigger's RAISE) may come after the write:
 * the row stays held.
 */
int ls_locked_row_held(const ls_locked_row *l);

#endif
