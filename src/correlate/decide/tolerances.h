/*
 * tolerances.h — every tolerance, window and threshold the correlation
 * decides with, in one place (issue 33). Times are microseconds.
 *
 * Each value is a plain integer literal, so that LS_SQL_INT() can paste it
 * into SQL text as well as C uses it: one definition for both. Changing a
 * value changes what the analysis derives: bump CORRELATION_REV
 * (correlate.c) and say why in docs/correlation.md.
 */
#ifndef LS_DECIDE_TOLERANCES_H
#define LS_DECIDE_TOLERANCES_H

/* A constant's digits as an SQL literal: "..." LS_SQL_INT(X) "...". */
#define LS_SQL_INT_(x) #x
#define LS_SQL_INT(x) LS_SQL_INT_(x)

/* ---- clocks and their resolution ---- */

#define LS_US_PER_MS 1000
/* One second: the resolution of %t times, and the slack every decision
 * that compares them gives (a message stamped in the second of a moment
 * may come before or after it by the clock). */
#define LS_WHOLE_SECOND_US 1000000
/* One millisecond: the resolution of %m times and csvlog/jsonlog. */
#define LS_MILLISECOND_US 1000

/* ---- wait episodes (correlate.c, decide/wait.c) ---- */

/* When the store cannot tell whether a lock message follows its process's
 * last one directly, a message whose implied start ("ts less X ms") is
 * within this of the episode's latest message goes on with it: the
 * timestamps' resolution. */
#define LS_EPISODE_SLACK_US LS_MILLISECOND_US
#define LS_EPISODE_SLACK_WHOLE_US LS_WHOLE_SECOND_US
/* A serialization failure within this of an "acquired" transaction wait
 * is that wait's outcome (the row it waited for had changed). */
#define LS_SERIALIZATION_WINDOW_US 1000000
/* A statement line written after a wait's end (decide/errstmt.h) started
 * at most this before the end's timestamp: a whole-second log floors both,
 * and a statement's start is reckoned from its floored end less its
 * duration. */
#define LS_LINE_START_SLACK_US LS_WHOLE_SECOND_US
/* An error of the process within this before or at its latest wait's end
 * is the error that ended it (error_links.wait_id). */
#define LS_ERROR_ENDS_WAIT_US 1000000

/* ---- blocker chains (correlate.c, decide/chain.c) ---- */

/* Blockers followed from one waiter (a longer chain stops at its 32nd). */
#define LS_CHAIN_MAX 32
/* A process's waits that may be on at a moment: the latest few begun by
 * then (one lock at a time); with whole-seconds times, a process under a
 * crowd may begin a dozen in the second after the moment. */
#define LS_OPEN_WAIT_CANDIDATES 4
#define LS_OPEN_WAIT_CANDIDATES_WHOLE 32
/* Relation names: a holder's waits begun up to this long after a tuple
 * wait's message are read too, so that the boundary (one begun at that
 * very microsecond counts) is decided in C (ls_holder_wait_at), at most
 * this many of them (a process begins far fewer in a millisecond). */
#define LS_HOLDER_WAIT_LOOKAHEAD_US LS_MILLISECOND_US
#define LS_HOLDER_WAIT_CANDIDATES 16

/* ---- transactions and links (transactions.c) ---- */

/* A wait's start derived from millisecond times may fall this much before
 * the statement or transaction it belongs to began. */
#define LS_START_SLACK_US 1000
/* A process's waits (or a session's statements) read around a moment by
 * log position, with whole-second times. */
#define LS_POS_CANDIDATES_WHOLE 32
/* A session's transactions that may be open at a moment: the latest few
 * begun by then. */
#define LS_OPEN_TX_CANDIDATES 3
/* A pooled holder's transaction by its hold of the row (ls_holder_tx()):
 * the row's latest holds begun (surely locked: the locking statement's or
 * span's end) by the wait's message plus this, a locking statement that
 * ended after it... */
#define LS_HOLDER_HOLD_AFTER_US LS_WHOLE_SECOND_US
/* ... at most this many of them (holds of a row follow one another). */
#define LS_HOLDER_HOLD_CANDIDATES 16
/* A retry is the same statement shape within this after the lock error. */
#define LS_RETRY_WINDOW_US 30000000
/* A retry on the failed transaction's connection (set up again or not)
 * runs within this of its ROLLBACK (retry.h, ls_retry_session_told());
 * later, the pool's next request is as likely. */
#define LS_RETRY_GAP_US 100000
/* A retry matched by its parameters on another connection (retry.h,
 * ls_retry_by_params()) begins within this after the failed transaction's
 * ROLLBACK (plus the log's resolution when whole seconds), as a retry on
 * its own connection does (LS_RETRY_GAP_US): measured, ROLLBACK to the
 * retry's first statement, 17-41 ms on samples/blind-ts (deadlock
 * victims, another pid for one), below 13 ms in blind-java's truth; the
 * next request of the same parameters that is no retry, 108 and 322 ms on
 * samples/blind-otel without its traces (its deadlocks are never
 * retried). */
#define LS_RETRY_PARAM_GAP_US LS_RETRY_GAP_US

/* ---- logical rows and holds (holds.c) ---- */

/* A wait on the same ctid of the same relation within this of a keyed
 * one is on the same row (a ctid is reused only after pruning). */
#define LS_CTID_CHAIN_US 10000000
/* A statement found for a wait ran at least the wait's length, less this
 * (durations are whole microseconds, waits derived from ms times). */
#define LS_STMT_DURATION_SLACK_US 1000

/* ---- the application's clock (spans.c, decide/clock.c) ---- */

/* A logged time is the event's give or take this (millisecond times). */
#define LS_SPAN_LOG_SLACK_US 1000
/* An ORM's span wraps its driver's span of the same statement when each
 * end of the driver's lies inside it, or outside by no more than this
 * (the two instrumentations read the clock at different moments). */
#define LS_SPAN_NEST_SLACK_US 1000
/* Of the several sessions whose statements fit all of a trace's spans
 * (ls_span_trace_pid), the one whose statement of each span lies inside
 * the span, or outside it by no more than this, is the trace's: a span
 * is the client's wait for its statement, and its ends are the
 * statement's give or take the exporter's resolution (the JS SDK's
 * starts are whole milliseconds) and the clock offset's own error.
 * samples/blind-ts: the sessions the truth names are at most 1.08 ms
 * outside their spans; a session running the same request's statements
 * beside it at least 1.76 ms (its statement started before the client
 * sent, or ended after the reply). */
#define LS_SPAN_FIT_SLACK_US 1500
/* ... and only in a trace of at least this many such spans: one span's
 * timing is no evidence whose statement it is (samples/app: a COMMIT
 * span whose own statement the log has with a sqlcommenter comment, so
 * of another text, and another session's bare COMMIT 1.12 ms outside). */
#define LS_SPAN_FIT_MIN_SPANS 2

/* A transaction linked to a trace lies inside the trace's request (its
 * root span, else its spans' extent) on the database clock, each end
 * outside by no more than this (traces.c, decide/vote.c). The offset is
 * the median of statement-start minus span-start differences: it holds
 * the one-way network time, which only moves the request's start later
 * than the BEGIN can be, and the COMMIT line is written before its reply
 * reaches the application, that is before the root span ends. What is
 * left is the offset's own error (the spread of that network time and of
 * millisecond log times, LS_SPAN_LOG_SLACK_US each): 10 ms covers it ten
 * times over (blind-otel's correct links end at most 0.34 ms after their
 * request), while a transaction of another request sharing the trace's
 * statements ends or begins whole statements away. Whole-second log
 * times add LS_WHOLE_SECOND_US. */
#define LS_REQUEST_SLACK_US 10000

/* ---- hidden waits (hidden.c) ---- */

/* A reconstructed wait agrees with a logged one within this many ms, or
 * this share of the logged wait. */
#define LS_LOGGED_AGREE_MS 25.0
#define LS_LOGGED_AGREE_FRAC 0.1
/* A statement that queued longer than this many ms for a row is one of
 * the row's waited statements (rows.waited_statements). */
#define LS_WAITED_STATEMENT_MS 20
/* A row with no logged wait is hot when some statement queued for it at
 * least this long behind another transaction's hold (the report's
 * hidden-only hot rows, reports/model.c HIDDEN_HOT_MIN_MS; the quiet-rows
 * step, decide/quiet.c, makes such keys rows). */
#define LS_HOT_HIDDEN_MIN_US 5000
/* On a log whose statements are logged only past a duration threshold
 * (decide/logcover.c: THRESHOLD), a key is a contended row when at least
 * LS_SLOWKEY_MIN_STATEMENTS logged locking statements named it, taking
 * at least LS_SLOWKEY_MIN_MS in all, and its relation's other keys had
 * far fewer: each at most 1/LS_SLOWKEY_DOMINANCE as many, all of them
 * together fewer than it (decide/slowkey.c, issue 34: samples/blind-rb's
 * warehouses id=1, 54 slow FOR UPDATEs, 32.6 s). */
#define LS_SLOWKEY_MIN_STATEMENTS 5
#define LS_SLOWKEY_MIN_MS 1000.0
#define LS_SLOWKEY_DOMINANCE 3

/* ---- code paths (traces.c, cover.c, decide/cover.c) ---- */

/* A hold's overlap with a row wait under this is not a share of it: both
 * bounds come from millisecond log times, and separate runs of one
 * workload would name a path there one time and not the next. */
#define LS_COVER_MIN_US 5000
/* A failed statement's queueing before its logged wait (its start to the
 * wait's) counts only past this beyond the log's resolution: a statement
 * runs a millisecond or two (parse, plan, its first rows) before it asks
 * for the lock (decide/failwait.c). */
#define LS_FAILED_QUEUE_MIN_US 5000

/* ---- findings (findings.c, decide/finding.c) ---- */

/* An external call is named when the spans inside hot-row holds of one
 * code path took at least this much. */
#define LS_FINDING_CALL_MIN_MS 50.0
/* An idle-in-transaction head counts when its hold made others wait at
 * least this long and held at least this much idle time no span explains
 * (per hold; a code path's counted holds are summed). */
#define LS_FINDING_IDLE_MIN_WAITER_MS 100.0
#define LS_FINDING_IDLE_MIN_UNEXPLAINED_MS 50.0
/* A counter row, or a row at its serial capacity, has at least this many
 * logged waits. */
#define LS_FINDING_ROW_MIN_WAITS 3
/* A counter row is bumped by one statement shape from at least this
 * many transactions. */
#define LS_FINDING_COUNTER_MIN_HOLDS 3
/* A counter row's bumping writers held it at least this share of the
 * time all its writers held it: where others' holds (a reservation held
 * across an HTTP call) make up most of it, the queue is theirs, and
 * splitting the counter cures nothing (issue 34, samples/blind-php). */
#define LS_FINDING_COUNTER_HELD_SHARE 0.5
/* Waiting below deadlock_timeout is named when it is at least this much
 * and no less than the waiting logged on the row. */
#define LS_FINDING_HIDDEN_MIN_MS 200.0
/* A row is at its serial capacity when the transactions that wanted it
 * came at this share of the rate its mean hold allows, or more; the
 * demand is over the row's active span, no shorter than the floor. */
#define LS_FINDING_SERIAL_DEMAND_SHARE 0.9
#define LS_FINDING_SPAN_FLOOR_S 0.001
/* A relation lock queue is one behind DDL when its head asks for a mode
 * that conflicts with this one: ShareUpdateExclusiveLock and stronger,
 * which no plain SELECT, SELECT ... FOR UPDATE or DML takes. */
#define LS_FINDING_DDL_MODE_FLOOR "ShareUpdateExclusiveLock"
/* A URL path segment of this many hex digits or more (one at least a
 * decimal digit) is an id in a call-site template (ls_finding_call_template):
 * a 32-bit hash in hex, a Mongo ObjectId (24), a git hash (40). */
#define LS_FINDING_CALL_HEX_MIN 8
/* Two sides that locked the same rows in opposite orders are named when
 * they deadlocked at least this often (one deadlock proves the order). */
#define LS_FINDING_ORDER_MIN_DEADLOCKS 1
/* The most findings one rule names: per code path, and per row. */
#define LS_FINDING_MAX_PER_PATH 5
#define LS_FINDING_MAX_PER_ROW 3

#endif
