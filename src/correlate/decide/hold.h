/*
 * hold.h — a hold others waited for: when it started and ended, with
 * bounds, and what its holder did while others waited. The holds waited
 * for pass (ls_correlate_holds, holds.c) reads each hold's waits, its
 * transaction and the transaction's statements, and asks these.
 *
 * Times are microseconds; a hold's start and end each have bounds
 * (lo <= ts <= hi) and a text saying how they were found (a constant of
 * this file or the text given in, which must outlive the result).
 */
#ifndef LS_DECIDE_HOLD_H
#define LS_DECIDE_HOLD_H

#include <stddef.h>
#include <stdint.h>

/* A time with its bounds, and how it was found. */
typedef struct ls_hold_bound {
    int64_t ts, lo, hi;
    const char *evidence;
} ls_hold_bound;

/* What the end of a hold is decided from. */
typedef struct ls_hold_end_in {
    int tx_has_end;            /* the transaction's end is known */
    int64_t tx_end;            /* ... and is this */
    const char *tx_end_known;  /* how it is known (transactions.end_known), never NULL */
    int first_acq_known;       /* a waiter acquired the row (or got 40001 after it) */
    int64_t first_acq;         /* ... first at this time */
    int64_t last_wait_end;     /* the end (or last message) of the last wait */
    int aborted;               /* an ERROR aborted the transaction ... */
    int64_t aborted_at;        /* ... at this time (ls_hold_aborted) */
} ls_hold_end_in;

/* transactions.end_known values that say only when the COMMIT (ROLLBACK)
 * started: log_statement = 'all' without durations. */
#define LS_HOLD_COMMIT_START "commit start"
#define LS_HOLD_ROLLBACK_START "rollback start"

/*
 * The end of a hold: its transaction's, bounded above by the first
 * waiter's acquisition (the row was free then). When the transaction's
 * end is only the start of its COMMIT or ROLLBACK and the first waiter
 * acquired later, the end is that acquisition (lo: the COMMIT's start).
 * Without the transaction's end: the first acquisition, else the last
 * wait's end. An ERROR that aborted the transaction, not after that end
 * (aborted), ends it there (the same time: the same end, said so): PostgreSQL releases an aborted transaction's
 * locks when the error is raised (AbortTransaction), not at its ROLLBACK,
 * which only ends the failed block (a deadlock victim's rows are free at
 * its error). hi is the first acquisition when later than lo, else lo.
 */
void ls_hold_end(const ls_hold_end_in *in, ls_hold_bound *out);

/* The end evidence of a hold its transaction's error released. */
#define LS_HOLD_ABORTED "error aborted the transaction (locks released)"

/*
 * Did an ERROR abort the transaction and release its locks, at error_ts?
 * The transaction was rolled back (rolled_back) after the error, and no
 * statement of it ran between the error and its end but that end
 * (ran_after 0: a ROLLBACK TO SAVEPOINT would have kept the transaction
 * and the locks taken before the savepoint); the error is not before the
 * hold began (error_ts >= hold_start: a hold taken after a savepoint's
 * rollback is not released by an earlier error).
 */
int ls_hold_aborted(int rolled_back, int has_error, int64_t error_ts, int ran_after,
                    int64_t hold_start);

/* A statement of the holder's transaction, in log order, as
 * ls_hold_walk_stmt() sees it. */
typedef struct ls_hold_stmt {
    int64_t id, start;
    int has_end;     /* a duration was logged: end is its end */
    int64_t end;
    int is_write;    /* INSERT, UPDATE, DELETE, SELECT ... FOR ... (ls_sql_kind_of) */
    int is_end;      /* COMMIT, ROLLBACK */
    int names_row;   /* a write whose key is the hold's row */
    int names_rel;   /* its text names the row's relation */
} ls_hold_stmt;

/*
 * Until when did a statement the log shows only by its bind row run
 * (issue 34)? With durations logged, an execute that fails writes no
 * line: the bind row (start..bind_end) is all the log has of it, and the
 * ERROR that ended it, when the session wrote one after the bind line
 * (has_error, at error_ts), is its end. The time between is the
 * statement's: a deadlock victim or a lock_timeout waits there for a
 * lock, which is not idle in transaction. Without an error after it (an
 * execute too quick to be logged) it ran until bind_end as far as the
 * log tells. Never before bind_end.
 */
int64_t ls_hold_failed_end(int64_t bind_end, int has_error, int64_t error_ts);

/* The walk of a hold's transaction's statements. Fill with
 * ls_hold_walk_begin(), pass every statement to ls_hold_walk_stmt(), end
 * with ls_hold_walk_end(); then read start, lock_stmt, sql_us, commit_us. */
typedef struct ls_hold_walk {
    int64_t first_wait;  /* the first wait for the hold began */
    int64_t end_ts;      /* the hold's end (ls_hold_end) */
    int64_t c_end;       /* the end of contention: end_ts, not before first_wait */
    ls_hold_bound start; /* the hold's start */
    int64_t lock_stmt;   /* the locking statement's id, 0: not known */
    int64_t first_write, fw_lo, fw_hi; /* the first write to the relation, 0: none */
    int64_t sql_us, commit_us;         /* statements running while others waited */
} ls_hold_walk;

/* Starts the walk of a hold whose start the transactions pass found
 * (start; lock_stmt 0 when it did not find the locking statement). */
void ls_hold_walk_begin(ls_hold_walk *w, int64_t first_wait, int64_t end_ts,
                        const ls_hold_bound *start, int64_t lock_stmt);

/*
 * One statement of the transaction. A statement without a duration runs
 * for no time, but a COMMIT or ROLLBACK runs until the hold's end. Without
 * a locking statement, the first write naming the row's key is it (the
 * start is its end, lo its start); the first write to the relation begun
 * by the first wait (within LS_MILLISECOND_US) is kept for
 * ls_hold_walk_end(). Each statement's overlap with the contention (the
 * first wait to the hold's end) counts as SQL, or COMMIT time.
 */
void ls_hold_walk_stmt(ls_hold_walk *w, const ls_hold_stmt *st);

/*
 * The end of the walk. Without a locking statement the first write to
 * the relation is it. A wait for the holder's transaction on this row
 * (first_tx_wait, when has_tx_wait) says the holder had the row by then:
 * a start (or start_hi) later than it by more than the log's time
 * resolution moves back to it. lo never exceeds the start.
 */
void ls_hold_walk_end(ls_hold_walk *w, int has_tx_wait, int64_t first_tx_wait,
                      int64_t resolution);

/* The hold's evidence texts of ls_hold_walk_stmt() and ls_hold_walk_end(). */
#define LS_HOLD_BY_KEY "statement with the row's key"
#define LS_HOLD_BY_FIRST_WRITE "first write to the relation"
#define LS_HOLD_BY_TX_WAIT "first wait for the holder's transaction"

/*
 * What the holder did while others waited (contended_us, of which sql_us
 * ran statements and commit_us a COMMIT or ROLLBACK): the largest of
 * idle in transaction (the rest, never below 0), committing and running;
 * idle wins a tie, then committing. Without durations (has_durations 0)
 * only a COMMIT's time is known: anything but "committing" is "unknown".
 * *idle_us is the idle time, never below 0 (decide/idlegap.h
 * ls_idle_window, at no resolution; the holds pass stores it at the
 * log's, ls_idle_stored_us).
 */
const char *ls_hold_state(int64_t contended_us, int64_t sql_us, int64_t commit_us,
                          int has_durations, int64_t *idle_us);

/* A logged wait of the session that ended with the lock acquired, as
 * ls_hold_acquired() reads them: its end and the row it was keyed to
 * (0: none). */
typedef struct ls_acquisition {
    int64_t end_ts, row_id;
} ls_acquisition;

/*
 * When a statement logged at its start (log_statement = 'all', no
 * duration) got row `row_id`, from its session's acquisitions while it
 * ran (acq[0..n), in end order, all between its start and its next
 * statement): the LAST acquisition keyed to the row, since a statement
 * that finds the row updated again queues again for the next holder
 * ("while rechecking updated tuple") and has the row only at its last
 * acquisition; without one keyed to the row, the first keyed to no row
 * (a wait the log names no row for): one keyed to another row is that
 * row's, never this one's (row_id 0, not known: the first of any).
 * 0: no acquisition.
 */
int64_t ls_hold_acquired(const ls_acquisition *acq, size_t n, int64_t row_id);

/* The length of [a0, a1) ∩ [b0, b1), 0 when they do not meet. */
int64_t ls_overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1);

#endif
