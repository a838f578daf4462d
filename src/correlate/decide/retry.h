/*
 * retry.h — which statement retried a lock error (40001, 40P01, 55P03,
 * 57014), and how it was matched. A client retries a failed transaction
 * by running it again: the retry is the transaction right after the
 * failed one in the stream of the failed request's statements, with no
 * other transaction between, and it runs the failed statement's shape
 * again within LS_RETRY_WINDOW_US (tolerances.h). That stream is the
 * database spans of the failed statement's trace in time order (the
 * request, on whatever backend a client pool or pgbouncer gave the
 * retry), else the session's statements in log order where the log shows
 * the failed transaction (a client that kept its connection).
 * Never "the session's next run of the shape within 30 s": that is often
 * the next request's. Pure functions over plain values: the retries pass
 * (retries.c) reads the streams from the store and asks these.
 */
#ifndef LS_DECIDE_RETRY_H
#define LS_DECIDE_RETRY_H

#include <stddef.h>
#include <stdint.h>

#include "logpos.h"

/* What a statement of the stream does to its transaction. */
typedef enum ls_retry_kind {
    LS_RETRY_STEP_OTHER = 0, /* any other statement */
    LS_RETRY_STEP_BEGIN,     /* BEGIN, START TRANSACTION */
    LS_RETRY_STEP_COMMIT,    /* COMMIT, END */
    LS_RETRY_STEP_ROLLBACK,  /* ROLLBACK, ABORT */
    LS_RETRY_STEP_SETTING    /* SET, RESET, SHOW: the session's settings */
} ls_retry_kind;

/*
 * Does `sql` only set or show the session's settings (SET, RESET, SHOW;
 * SET SESSION CHARACTERISTICS AS TRANSACTION ...)? Between transactions
 * such a statement is the client preparing its next transaction (PgJDBC
 * sends SET SESSION CHARACTERISTICS for setTransactionIsolation() before
 * the BEGIN: samples/blind-java), not a transaction of other work; the
 * walk passes over it (issue 34). Returns 1 or 0.
 */
int ls_retry_sets_session(const char *sql);

/* How a run of the failed statement's text binds its parameters against
 * the failed statement's logged ones. */
typedef enum ls_retry_params {
    LS_RETRY_PARAMS_UNKNOWN = 0, /* either not logged, or another text */
    LS_RETRY_PARAMS_SAME,        /* the same text, the same logged parameters */
    LS_RETRY_PARAMS_OTHER        /* the same text, other logged parameters */
} ls_retry_params;

/* One statement of the stream after the failed statement. */
typedef struct ls_retry_step {
    int64_t ts;         /* when it started, us */
    ls_retry_kind kind; /* its effect on the transaction */
    int shape;          /* it runs the failed statement's shape */
    int failed;         /* it ended in an error (a span's status), when known */
    int again;          /* it runs the failed transaction's first statement
                         * again: the same text with the same logged
                         * parameters (none logged: 0) */
    int other_run;      /* it runs the failed statement's shape on another
                         * row, or (a timeout) with other parameters:
                         * another request's (ls_retry_other_request()) */
} ls_retry_step;

/*
 * Does the failed statement's logged parameter text (`params`, a DETAIL
 * "parameters: $1 = '15', $2 = '2'" body) bind a parameter other than
 * $key_param, the one its WHERE clause names its row by (0: the row is
 * named by a literal or not at all)? Such a value is the request's own
 * (restock's quantity), not the row's: a run that binds it again is the
 * same request's. Quoted values are skipped whole ('' inside them).
 * Returns 1 or 0 (none, NULL or unparsable text).
 */
int ls_retry_params_beyond_key(const char *params, int key_param);

/*
 * Is a run of the failed statement's shape on its row, after a lock or
 * statement timeout (asks_retry 0: ls_retry_class_asks_retry()), another
 * request's because it binds other parameters (params, both logged)?
 * A client that retries a timeout runs the same request again, with its
 * values (issue 34, samples/blind-php: restock retries its UPDATE
 * warehouses with the same `$1 = '15', $2 = '2'`; after its third failed
 * try the worker's next restock of the same row binds another quantity).
 * A serialization failure's or deadlock victim's retry computes its
 * values again (ls_retry_row_untold()): never by parameters. Returns 1
 * (another request's) or 0.
 */
int ls_retry_other_request(int asks_retry, ls_retry_params params);

/*
 * Is a timeout's retry told by its repeated parameters (repeats in
 * ls_retry_session_told()) untold, because the client may have given up
 * by then? try_no: the failed run's place in its session's run of failures
 * of the same text with the same parameters, each the previous one's
 * retry (1: a first failure); give_up: the fewest failures of such a run
 * after which the log shows the session moving on to another request
 * (told not retried), for the failed statement's text, 0 none seen. A
 * client gives up after a fixed number of tries, and its next request
 * may bind the same values by chance (issue 34, samples/blind-php:
 * restock tries 3 times; pid 11887 failed 6 times in a row with
 * `$1 = '15', $2 = '1'` at 18:46:51-53, two requests of the same
 * quantity, while 74 runs of 3 failures ended in another request).
 * Returns 1 (untold) when give_up > 0 and try >= give_up, else 0.
 */
int ls_retry_tries_untold(int try_no, int give_up);

/* The result of ls_retry_walk(). */
typedef struct ls_retry_found {
    int index;           /* the retry's statement in the steps, -1 none */
    const char *outcome; /* its transaction's outcome as the stream shows it:
                          * "commit", "rollback", "aborted" (it failed again),
                          * NULL unknown (the stream ends first) */
    int64_t ended_ts;    /* when the failed transaction's end (its ROLLBACK)
                          * started, else the error's time */
    int64_t next_ts;     /* when the next transaction's first statement started */
    int set_between;     /* a SETTING was passed over between the two */
} ls_retry_found;

/* retries.retry_outcome of an error whose retry the log cannot tell
 * (LS_RETRY_UNTOLD): retry_stmt and retry_span are then NULL. */
#define LS_RETRY_OUTCOME_UNTOLD "untold"
/* ... untold because the failed session logged nothing after it
 * (ls_retry_ended_untold()): the report gives its own reason. */
#define LS_RETRY_OUTCOME_UNTOLD_ENDED "untold_ended"
/* ... untold because the client was seen to give up after as many tries
 * (ls_retry_tries_untold()): the report gives its own reason. */
#define LS_RETRY_OUTCOME_UNTOLD_TRIES "untold_tries"
/* ... untold because no stream of the failed request was there to walk
 * (ls_retry_elsewhere_untold()): the report gives its own reason. */
#define LS_RETRY_OUTCOME_UNTOLD_ELSEWHERE "untold_elsewhere"

/* What the session's log order tells of the retry ls_retry_walk() found. */
typedef enum ls_retry_told {
    LS_RETRY_TOLD = 0, /* it is the retry */
    LS_RETRY_UNTOLD    /* it may be the retry or the next request given the
                        * connection: the log cannot tell */
} ls_retry_told;

/*
 * Is the next transaction of the failed statement's shape (and row) that
 * ls_retry_walk() found in the session's log order (f) the retry, on a log
 * of times of `resolution` us? Issue 34 (samples/blind-java): a client
 * pool hands the connection to whichever request asks next, and the
 * client sets its connection up again for each (PgJDBC's SET SESSION
 * CHARACTERISTICS, f.set_between): the retry and another request of the
 * same shape, on the same row, then look alike. The retry runs right
 * after the failed transaction's ROLLBACK: within LS_RETRY_GAP_US of it
 * (f.ended_ts to f.next_ts) it is told, when the log's times can measure
 * that gap (below a whole second); with whole-second times, or a longer
 * gap, a connection set up again between is untold. Without a SETTING
 * between, the client kept its connection as it was: told, unless the
 * connection is shared (the log shows it running other requests'
 * transactions: retries.c, conn_shared()) and the next transaction
 * began later than ls_retry_kept_late() allows. A SETTING the session
 * sent before the failed transaction too (set_routine: psycopg2 sends
 * SET default_transaction_isolation TO DEFAULT before every transaction
 * of a connection whose isolation level it sets, samples/blind-dj) is
 * the client's routine, not a retry's: the thread's next request on that
 * connection follows a ROLLBACK as fast as its retry does (2 to 84 ms
 * against 5 to 36 ms there, same row): untold. A pool that sets nothing
 * up hands its connection on as well (issue 34, samples/blind-otel
 * without its traces: knex's pool; a deadlock victim's request answered
 * 409, and the next transfer between the same wallets, same amount, ran
 * on that connection 131 ms after the ROLLBACK), while a client of its
 * own connection backs off before its retry (samples/correlation: 100 ms
 * after a 40001, 700 ms after a lock timeout). A lock or statement
 * timeout (asks_retry 0: ls_retry_class_asks_retry()) is a limit the
 * client gives up by, not a failure it retries as a matter of course: on
 * a shared connection its next run of the statement is untold, however
 * soon (issue 34, samples/blind-java: recountShelf never retries its
 * 55P03, and the pool's next recountShelf of the same warehouse ran on
 * the connection in the same second, 0.1 ms after the ROLLBACK), unless
 * that run repeats the request (repeats: it binds the failed statement's
 * logged parameters, one of them beyond the row's key,
 * ls_retry_params_beyond_key(); issue 34, samples/blind-php: PDO's
 * restock retried on its worker's connection with the same quantity and
 * warehouse; blind-java's recountShelf binds only the warehouse, which
 * the pool's next recountShelf of that row binds too). Returns
 * LS_RETRY_TOLD or LS_RETRY_UNTOLD.
 */
ls_retry_told ls_retry_session_told(ls_retry_found f, int64_t resolution, int shared,
                                    int set_routine, int asks_retry, int repeats);

/*
 * Did the next transaction f found on a connection kept as it was (no
 * SETTING between) begin later than a retry runs on a shared connection:
 * over ls_retry_param_gap(resolution) after the failed transaction's
 * ROLLBACK (LS_RETRY_GAP_US, plus a whole second's resolution: times
 * tie), as a retry by parameters on another connection does? Only then
 * does the pass ask whether the connection is shared. Returns 1 or 0.
 */
int ls_retry_kept_late(ls_retry_found f, int64_t resolution);

/*
 * Is a statement at pos (started at ts) after the error line at err (err_ts)
 * in the log? By log position where both are known: within one whole second
 * the times tie, and the failed statement, logged before its error, is not
 * after it. Else by time, strictly later. Returns 1 or 0.
 */
int ls_retry_after(ls_logpos err, int64_t err_ts, ls_logpos pos, int64_t ts);

/*
 * Does a statement run the failed one again? It has the failed
 * statement's shape (same_shape) and, where both name the row they
 * address by key (ls_sql_row_key(): "relation col=value"; "" or NULL
 * unknown, e.g. a $n parameter not logged), the same row: a retry
 * repeats its request, whose keys are the request's; the next request's
 * run of the shape on another key is not it. Returns 1 or 0.
 */
int ls_retry_same_run(int same_shape, const char *failed_row, const char *row);

/*
 * Is a transaction open (explicit, begun and not ended) after a statement
 * of kind `kind`, when one was open before it (open)? A BEGIN opens one, a
 * COMMIT or ROLLBACK closes it. Fed a stream's statements before the
 * failed one, in order, from 0: was the failed one inside an explicit
 * transaction? Returns 1 or 0.
 */
int ls_retry_open_after(int open, ls_retry_kind kind);

/*
 * The retry in the n steps of the stream after the failed statement (in
 * order; those of its own transaction first), failed at err_ts. in_tx: the
 * failed statement was in an explicit transaction (its steps up to its
 * COMMIT or ROLLBACK are that transaction's, whatever they run). The next
 * transaction is the first after that: a BEGIN up to its COMMIT or
 * ROLLBACK, or a statement of its own (not a SETTING, which only
 * prepares the next transaction and is passed over). It is the retry when one of its
 * statements runs the shape and started within LS_RETRY_WINDOW_US of
 * err_ts; the first such statement is returned. Any other next
 * transaction (another request's work, in between) means no retry. A
 * BEGIN inside an open transaction, and an end between transactions, are
 * repeats of the same statement (an ORM's span and its driver's) and
 * change nothing. An explicit next transaction that never runs the shape
 * is the retry all the same when its first statement runs the failed
 * transaction's first statement again (step.again: same text, same
 * logged parameters) within the window, no statement of it runs the
 * shape on another row (step.other_run), and it ends in a ROLLBACK or the
 * stream ends inside it: the retry failed before it reached the failed
 * statement, whose failing run logs no duration line (issue 34, pgbench
 * --max-tries: the retry deadlocks at the script's first UPDATE, or the
 * log is cut while it waits); its first statement is returned. A next
 * transaction that commits without the shape is another request's.
 */
/* A failed transaction's end (its ROLLBACK): time and log position. */
typedef struct ls_retry_end {
    int64_t ts;
    ls_logpos pos; /* {0, 0} unknown */
} ls_retry_end;

/* A candidate retry matched by parameters: a transaction that ran the
 * failed statement's text with the failed statement's logged parameters. */
typedef struct ls_retry_cand {
    int64_t begun_ts; /* its first statement's start */
    ls_logpos pos;    /* its first statement's line, {0, 0} unknown */
    int own_session;  /* on the failed statement's own session */
    int claimed;      /* already the retry of another error */
    int other_request; /* linked to another trace than the failure's
                        * (both known): another request, never its retry */
} ls_retry_cand;

/*
 * Is a lock error of this class (errors.class) one a client retries as a
 * matter of course, so that a later run of its statement with its
 * parameters on another connection is taken for its retry
 * (ls_retry_by_params())? A serialization failure (40001) and a deadlock
 * victim (40P01) ask for the transaction to be run again; a lock or
 * statement timeout (55P03, 57014) is a limit the client set to give up
 * by: on samples/blind-java recountShelf never retries its lock
 * timeouts, and the next request for the same warehouse on another
 * connection runs the statement with the same parameters right after.
 * Returns 1 or 0.
 */
int ls_retry_class_asks_retry(const char *cls);

/*
 * How long after a failed transaction's end (ROLLBACK) a retry matched by
 * parameters may begin: LS_RETRY_PARAM_GAP_US, plus the log's resolution
 * when it is a whole second (times tie). The pass reads only the
 * transactions begun from LS_START_SLACK_US before that end to this
 * after it (ls_retry_param_in_gap() takes no other).
 */
int64_t ls_retry_param_gap(int64_t resolution);

/*
 * Did a transaction begun at (ts, pos) begin after the failed
 * transaction's end and within LS_RETRY_PARAM_GAP_US of it (plus the
 * log's resolution when it is a whole second: then times tie, and the log
 * position says after)? Returns 1 or 0.
 */
int ls_retry_param_in_gap(ls_retry_end end, int64_t ts, ls_logpos pos, int64_t resolution);

/*
 * The retry of a failed statement on any pooled connection, told by its
 * parameters (issue 34, samples/blind-java: a pool gives the retry
 * another connection, and the log shows each statement's bind
 * parameters): of the transactions c[0..nc-1] that ran the failed text
 * with the failed statement's parameters, the one begun within the gap
 * after the failure's end (ls_retry_param_in_gap()), leaving out those
 * of another request's trace (a retry is its request's: samples/blind-otel
 * never retries a deadlock, and the next transfer of the same amount
 * between the same wallets ran right after). None (-1) when no
 * candidate or more than one is in the gap (the same business key run by
 * two requests), when that one is on the failure's own session (the
 * session's log order answers there: ls_retry_walk()), already claimed,
 * or in the gap of another failure of the same text and parameters
 * (rivals[0..nr-1]: two failures share the parameters). Returns the
 * index or -1.
 */
int ls_retry_by_params(ls_retry_end end, const ls_retry_end *rivals, size_t nr,
                       const ls_retry_cand *c, size_t nc, int64_t resolution);

/*
 * Is the retry of a serialization failure or deadlock victim
 * (ls_retry_class_asks_retry()) that neither its trace, nor its
 * session's order, nor its parameters (ls_retry_by_params()) told
 * untold, rather than none? c[0..nc-1]: the transactions that ran the
 * failed text on the failed statement's row (ls_retry_same_run()) with
 * other parameters. A retry computes its values again (issue 34,
 * samples/blind-otel without its traces: a repricing that failed with
 * 40001 reads the price again and writes another one, on whatever
 * connection the pool gives it: 45 ms after the ROLLBACK on another pid)
 * and the pool's next request on the same row looks the same. Untold
 * when one of them, on another session, not claimed and not of another
 * request's trace, began in the gap after the failure's end
 * (ls_retry_param_in_gap()); else none. Returns 1 (untold) or 0.
 */
int ls_retry_row_untold(ls_retry_end end, const ls_retry_cand *c, size_t nc, int64_t resolution);

ls_retry_found ls_retry_walk(int64_t err_ts, int in_tx, const ls_retry_step *steps, size_t n);

/*
 * Is the retry of a failure that no trace, session order or parameters
 * matched untold, rather than none, because its session ended after it?
 * Issue 34 (samples/blind-rb: ActiveRecord 6.1 sends no ROLLBACK after a
 * 40001 or a deadlock; it drops the connection and retries on a new
 * backend, 180 of 234 serialization failures and 9 of 13 victims
 * retried, none on the failed pid): when the failed session logged no
 * statement after the error line (its last lines are the error and the
 * aborted transaction's own 25P02 errors, or a disconnection), the retry
 * cannot be on that session, and where the failed statement's parameters
 * were not logged (or its transaction's end is unknown) nothing else can
 * look for it on another connection. asks_retry: the class is retried as
 * a matter of course (ls_retry_class_asks_retry(); a timeout is a limit
 * the client gave up by: none); later_stmt: the session logged a
 * statement after the error (its order decides, as before); by_params:
 * ls_retry_by_params() and ls_retry_row_untold() looked on every
 * connection (parameters logged, end known) and found none. Returns 1
 * (untold) or 0 (none).
 */
int ls_retry_ended_untold(int asks_retry, int later_stmt, int by_params);

/*
 * Is the retry of a failure that neither its trace, its session's order
 * nor its parameters matched (and that ls_retry_row_untold() and
 * ls_retry_ended_untold() left as none) untold, rather than none, because
 * a retry on another pooled connection would not show in what was read?
 * Issue 34 (samples/blind-zk: Sequelize's pool, log_statement = 'mod';
 * 177 of 216 serialization failures retried, most on another backend;
 * the log alone said 65 retried ones "not retried"). "None" needs the
 * failed request's own stream: its trace (trace_walked: the request's
 * spans after the failure were walked; that stream is the request's on
 * any connection), or its session's statements where they show the
 * request: its BEGIN was logged (begun), so the transaction that follows
 * its ROLLBACK is the session's next, and a client that retries on its
 * connection runs it there (samples/blind-py, log_statement = 'all':
 * every retry on the failed session, 3 last attempts followed by another
 * request's transaction, truly not retried). So, for a class retried as
 * a matter of course (asks_retry, ls_retry_class_asks_retry()), untold
 * when no trace was walked and either the log does not show the failed
 * transaction (log_shows 0: nothing of the request was walked) or shows
 * it without its BEGIN (begun 0: log_statement = 'mod', an autocommit
 * statement) on a session that ran another request's work around the
 * failure (pooled: a statement that writes or locks, of a text the failed
 * transaction never ran, within LS_RETRY_WINDOW_US either side: the pool
 * gave the connection to other requests, and the retry to any
 * connection). Returns 1 (untold) or 0.
 */
int ls_retry_elsewhere_untold(int asks_retry, int trace_walked, int log_shows, int begun,
                              int pooled);
#endif
