/*
 * hidden.h — a statement's queueing for a row when log_lock_waits logged
 * part of it. The hidden-waits pass (hidden.c) reconstructs each
 * statement's queueing (ls_queue_wait, queue.h) and asks this where the
 * statement's transaction has a logged wait for the row.
 */
#ifndef LS_DECIDE_HIDDEN_H
#define LS_DECIDE_HIDDEN_H

#include <stdint.h>

#include "queue.h"

/* The logged waits of a (transaction, row): from the first's start to the
 * last's end, ms long; tx_wait: one of them waited for the transaction
 * (not only for the tuple lock). */
typedef struct ls_logged_span {
    int64_t start_ts, end_ts;
    double ms;
    int tx_wait;
} ls_logged_span;

/* The statement's wait, and whether the reconstruction disagreed. */
typedef struct ls_hidden_wait {
    int64_t start_ts, end_ts;
    double ms;
    int disagree; /* the reconstruction's end is off the logged one by more
                     than the tolerance */
} ls_hidden_wait;

/*
 * The logged wait wins for its part: the wait starts at the earlier of the
 * reconstruction's start and the logged start (queueing before the log's
 * first message, a tuple lock below deadlock_timeout, stays hidden) and
 * ends at the logged end, unless only a tuple lock was logged: its waiter
 * was next in line when it ended and waited on, below deadlock_timeout,
 * for the holder's transaction, so the reconstruction's end stands when
 * later. So it does after a logged transaction wait when the statement's
 * end is logged and timed (stmt_end_logged: a duration on a log with
 * sub-second stamps, not whole seconds, whose holds' ends the queue cannot
 * order within their second), so the reconstruction ends
 * at the last hold queued before it that ended before the statement did):
 * every waiter of a transaction wakes at its end and they race for the
 * row; a loser waits on for the winner's transaction, below
 * deadlock_timeout, unlogged, until that hold ends (samples/blind-pool:
 * pid 21503's UPDATE of events id=1 logged 27.664-.877, its statement
 * 27.530-28.187, the hold before it ended at 28.184; truth 657 ms).
 * The two ends disagree when they differ by more than
 * max(LS_LOGGED_AGREE_MS, LS_LOGGED_AGREE_FRAC of the logged length).

 * rec is the reconstruction, NULL when there is none.
 */
void ls_hidden_logged_wait(const ls_queue_result *rec, const ls_logged_span *logged,
                           int stmt_end_logged, ls_hidden_wait *out);

/*
 * Where a wait the log never showed (no logged wait of its statement for
 * the row) starts, reconstructed as [start_ts, end_ts) from statement and
 * hold stamps of resolution_us. Stamps to the second make the
 * reconstruction whole seconds long (a statement stamped in one second
 * behind a hold that ended in the next: 1000 ms, whatever it waited, from
 * nearly 0 to nearly 2 s); but log_lock_waits writes any wait for a lock
 * that passes deadlock_timeout, so an unlogged one was shorter than it:
 * max_unlogged_us, the shortest time a logged wait had waited when its
 * "still waiting" line was written (0: no wait logged, nothing known).
 * With whole-second stamps and max_unlogged_us known, the wait starts no
 * earlier than end_ts - max_unlogged_us (its length is then that bound, a
 * wait for one lock; a statement that queued for the tuple lock and then
 * for the holder's transaction, each below it, may have waited up to
 * twice as long: the log cannot tell). Stamps finer than a second, or
 * nothing known: start_ts as it is. Never later than end_ts.
 */
/*
 * Where the logged waits of a (transaction, row) start: first_start, the
 * earliest start their first lines imply (each line's time less its
 * "after"), or, with whole-second stamps (resolution_us a second), the
 * later closed_start when has_closed: the earliest start their closing
 * lines ("acquired", "detected deadlock", an error) imply, their time
 * less their "after". A whole-second stamp is its second's start, so
 * both are lower bounds of the true start, and the later is the better
 * (samples/blind-py, pid 10474: "still waiting ... after 200.078 ms"
 * stamped 08:12:06 and "acquired ... after 329.959 ms" stamped 08:12:07
 * began at 06.670 or later, not at 05.800; the client saw 06.713; taken
 * from the first line, the wait was 1200 ms long, 330 ms by its own
 * message). With sub-second stamps first_start stands (the episodes
 * pass's start, the earliest any message implies).
 */
int64_t ls_hidden_logged_start(int64_t first_start, int has_closed, int64_t closed_start,
                               int64_t resolution_us);

/*
 * Whether the hidden-waits pass knows when a hold's statement began, and
 * so may queue it from then to the hold's start: its locking statement is
 * a line of the log (has_lock_stmt: its start, or its end less its
 * duration), or a span timed the statement the log does not have
 * (start_evidence LS_SPAN_LOCK_START or LS_SPAN_ONLY_START, decide/spantx.h:
 * the span's start). Behind a pooler under log_min_duration_statement
 * most statements are of the second kind, and a statement that queued
 * under 50 ms is one of them (blind-pool: 36 of accounts id=3's 107 waits,
 * 0.7 s, were not rebuilt). Any other hold without a statement (bounded by
 * its transaction's start and its first wait) has no statement start: a
 * queue from its start_lo would count the transaction's own work.
 */
int ls_hidden_stmt_start_known(int has_lock_stmt, const char *start_evidence);

int64_t ls_hidden_unlogged_start(int64_t start_ts, int64_t end_ts, int64_t resolution_us,
                                 int64_t max_unlogged_us);

/*
 * The bound ls_hidden_unlogged_start() takes for a statement's unlogged
 * wait: max_unlogged_us bounds a wait for one lock, and a statement whose
 * duration is not logged (duration_logged 0: log_statement = 'all', its
 * start the stamp of its line) has nothing better. A statement whose
 * duration is logged has its start derived from its end's stamp less its
 * exact duration, and its reconstructed wait ends no later than its end:
 * the wait is no longer than the statement, whatever the stamps' tick.
 * It may be longer than deadlock_timeout without a log line: a FOR UPDATE
 * queued behind several holders in turn sleeps on each (the tuple lock,
 * then each holder's transaction as the update chain moves on), and
 * deadlock_timeout restarts with each sleep (samples/blind-java: 48 FOR
 * UPDATEs on warehouses id=1 waited up to 5.8 s, 3 were logged).
 * Returns 0 (no bound) then.
 */
int64_t ls_hidden_unlogged_bound(int duration_logged, int64_t max_unlogged_us);

/*
 * A statement's wait (ms) when its logged waits' own length is known,
 * exact_ms (whole seconds: each closing message's "after", summed), and
 * the wait as merged (ls_hidden_logged_wait()) spans span_ms of stamps
 * of tick res_us: the logged part is exact_ms, the hidden part only what
 * the statement waited beyond it (samples/correlation cut to %t: tx 24's
 * "acquired ... after 1420.126 ms", 1100 ms of stamps, its statement's
 * wait 1421.674 ms: 1.5 ms hidden, not 321.5). What the span says beyond
 * exact_ms is the hidden part where the statement's times are as fine as
 * its wait's end (stmt_timed: its end logged, a duration, its start that
 * end less it, the two ends mostly in one tick, and that start before
 * the logged waits'): the stamps' error is shared. A statement whose
 * start is only its line's whole-second stamp (log_statement = 'all', no
 * duration) began up to a tick later than it says, and its wait ended up
 * to a tick later than stamped; a span of the logged lines' stamps alone
 * is off by as much (tests/e2e/data/pgbench-rollback-holder cut to %t:
 * a statement's two transaction waits, 113.8 and 111.1 ms, stamped
 * 37.886 to 39 s): the log shows queueing beyond the logged wait only
 * where the span exceeds exact_ms by more than a tick, that excess (samples/blind-py
 * merchant_totals id=1: 42 logged waits, 16.5 s exact, their statements'
 * truth 17.2 s; the span less exact_ms summed 7.8 s, none over a
 * second). Never below exact_ms.
 */
double ls_hidden_exact_wait_ms(double span_ms, double exact_ms, int stmt_timed, int64_t res_us);

/*
 * The tick of the times a hold's wait is rebuilt from: its statement's
 * evidence's (issue 34: every time carries its resolution). stmts_res is
 * the tick of all the statements' times, lines_res that of the log's own
 * statement lines; span_timed: the hold's statement was timed by its span
 * (its start the span's start, the hold from the span's end: txspans.c),
 * finer than a whole-second line. A %t log with traces has both: a
 * span-timed statement gets stmts_res, a line lines_res.
 */
int64_t ls_hidden_wait_resolution(int64_t stmts_res, int64_t lines_res, int span_timed);

/*
 * A logged wait on a log whose lines are stamped to res_us (whole
 * seconds: each stamp is its second's start, the moment up to a tick
 * later) of a statement its span timed, [stmt_start, stmt_end] on the
 * database clock (the measured offset applied). The span's times are the
 * precise evidence, the lines' bound them to their tick:
 *  - the statement queued from its start, which is no later than its
 *    logged wait began (at most a tick after logged->start_ts): the wait
 *    starts at stmt_start;
 *  - it got the row when its acquired line was written, in
 *    [logged->end_ts, logged->end_ts + res_us), and before the statement
 *    ended (it returns right after it, the locking statement's last
 *    work): the wait ends at stmt_end, kept inside the acquired line's
 *    tick;
 *  - it is never shorter than exact_ms, its logged waits' own "after"s
 *    summed (0: none given, an error ended one).
 * samples/blind-pool %t + traces, event_totals:1's 62 logged waits of
 * logged statements: 24.71 s against the truth's 24.70; 28.26 s from the
 * lines' stamps (the first line's second's start less its "after" taken
 * as the wait's start, up to a second early), 30.7 s from the whole-
 * second rule alone (the stamps' span beyond the "after"s counted).
 * When the lines do not fit the span (it starts after the logged wait's
 * tick, or ends before its acquired line's second), they are not this
 * statement's (a pooled backend's wait linked to another client's
 * statement): the span alone times it, [stmt_start, stmt_end], and
 * out->disagree is set (blind-pool %t + traces: a check-in's 251 ms
 * span, truth 249.5 ms, against a wait logged 1.8 s before it: 2043 ms
 * from the lines).
 */
void ls_hidden_span_timed_wait(const ls_logged_span *logged, int64_t res_us, int64_t stmt_start,
                               int64_t stmt_end, double exact_ms, ls_hidden_wait *out);

#endif
