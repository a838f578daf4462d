/*
 * quiet.h — did a locking statement queue for a row behind another
 * transaction's hold of it, when no wait of it was logged (issue 34:
 * rows whose every wait was below deadlock_timeout are hot rows too)?
 * The quiet-rows step (src/correlate/quiet.c) keeps a few recent holds
 * of each key ingest found (tx_keys) and asks this of every keyed
 * statement with a logged end; a key some statement queued for at least
 * LS_HOT_HIDDEN_MIN_US becomes a logical row, whose holds and hidden
 * waits the later passes then make.
 */
#ifndef LS_DECIDE_QUIET_H
#define LS_DECIDE_QUIET_H

#include <stdint.h>

/* A transaction's hold of a key as the step knows it before the holds
 * pass: from its first statement on the key (acquired: that statement's
 * end, else its start) to the transaction's end. */
typedef struct ls_quiet_hold {
    int64_t tx;       /* the transaction (its first stmt_id, tx_cuts) */
    int64_t acquired; /* when the row was got */
    int64_t end_ts;   /* when it was freed: the transaction's end */
    int shared;       /* FOR SHARE / FOR KEY SHARE (ls_sql_shared_lock()) */
} ls_quiet_hold;

/* A keyed statement with a logged duration. */
typedef struct ls_quiet_stmt {
    int64_t tx;
    int64_t start_ts, end_ts;
    int shared;
} ls_quiet_stmt;

/*
 * How long (µs) statement s queued behind hold h of the same key: h of
 * another transaction got the row at or before s started and freed it
 * after s started (a hold freed exactly at s's start did not hold it
 * up), and s ended no earlier than h was freed (s could not lock the row
 * before). Then from s's start to h's end. 0 when it did not: the same
 * transaction (its second statement does not queue behind itself), both
 * shared (FOR SHARE among FOR SHARE), or the times above.
 */
int64_t ls_quiet_queued_us(const ls_quiet_hold *h, const ls_quiet_stmt *s);

/* Is queueing of queued_us enough to make the key a row: at least
 * LS_HOT_HIDDEN_MIN_US (the report's hidden-only hot-row threshold) on a
 * log whose times are below a second (subsecond; on whole seconds a
 * statement's start is its end's second less its duration, 0..1 s off,
 * and no queueing under a second is known)? */
int ls_quiet_makes_row(int64_t queued_us, int subsecond);

/*
 * Whole-second logs (issue 34). A stamp says only the second of its line;
 * the rule above then cannot tell 5 ms of queueing. What is certain:
 * lines are written in the order things happen, a statement's duration
 * line at its end, and a session's statement starts no earlier than its
 * previous line. Each line's time t is bounded, lo <= t <= hi, from the
 * stamps, the log's order and the durations (a difference-constraint
 * system whose tightest bounds are one pass each way):
 *
 *   lo = max(stamp, lo of the line before, lo of the session's previous
 *            line + this statement's duration)
 *   hi = min(stamp + 1 s, hi of the line after, hi of the session's next
 *            statement's line - that statement's duration)
 *
 * The latest t_b - t_c can be for lines c before b is hi(b) - lo(c).
 */

/* A line's lower bound (µs): its stamp (the second's start), lo_before
 * (the line before's lo) and prev_lo (its session's previous line's lo;
 * both INT64_MIN: none), dur its duration (0: none). */
int64_t ls_quiet_line_lo(int64_t stamp, int64_t lo_before, int64_t prev_lo, int64_t dur);

/* A line's upper bound (µs): its stamp + tick (a whole second: the stamp
 * is the second it was in), hi_after (the line after's hi) and next_start_hi
 * (its session's next statement's hi less that statement's duration; both
 * INT64_MAX: none). */
int64_t ls_quiet_line_hi(int64_t stamp, int64_t tick, int64_t hi_after, int64_t next_start_hi);

/* Transaction A's first statement on the key (line a) and its end (line
 * c, its COMMIT/ROLLBACK or autocommit statement), and statement b of the
 * key, by their places in the log (pos) and the bounds above. */
typedef struct ls_quiet_bounded {
    int64_t tx_a, tx_b;
    int both_shared;             /* FOR SHARE among FOR SHARE */
    int64_t a_pos, c_pos, b_pos; /* log positions */
    int64_t c_lo;                /* lo of A's end line */
    int64_t b_hi, b_dur;         /* hi of b's line, b's duration */
} ls_quiet_bounded;

/*
 * How long (µs) b certainly queued behind A's hold, 0 when it is not
 * proven. A of another transaction, not both shared; line a before line b
 * (A got the row no later than b ended, and b's transaction held what it
 * got past b's end, so b did not get the row before A: b got it after A
 * freed it), line c before line b (A freed it before b ended). Then b ran
 * from t_b - b_dur without the row until t_c, at least
 * b_dur - (hi(b) - lo(c)): the queueing every order of the lines the log
 * allows has. (As the sub-second rule, a statement of one row is taken to
 * reach it at once.)
 */
int64_t ls_quiet_bounded_us(const ls_quiet_bounded *q);

/* Does proven queueing (ls_quiet_bounded_us()) make the key a row: at
 * least LS_HOT_HIDDEN_MIN_US, as on sub-second logs? */
int ls_quiet_bounded_makes_row(int64_t proven_us);

/*
 * Whole-second logs where the bounds above prove nothing (issue 34,
 * samples/blind-php: 10 sessions write ~800 lines a second, so hi(b) -
 * lo(c) is hundreds of ms against waits of 5-30 ms). What the log still
 * shows exactly is each statement's duration, and its order: b queued
 * behind A's hold when A got the row before b's line (line a before line
 * b, as above), A freed it after b's session's previous line (b started
 * after that line, so A's end can lie within b) and before b's line (b
 * got the row after A freed it), and b ran longer than its text's fastest
 * logged run: that excess is taken as its queueing (as the sub-second
 * rule, a statement of one row is taken to reach it at once; and once it
 * has it, to take no longer than its fastest run). An estimate, not a
 * proof: a slow run for another reason whose span A's end fell in counts
 * too, so the excess must reach LS_HOT_HIDDEN_MIN_US.
 */
typedef struct ls_quiet_excess {
    int64_t tx_a, tx_b;
    int both_shared;             /* FOR SHARE among FOR SHARE */
    int64_t a_pos, c_pos, b_pos; /* log positions of A's key line, A's end line, b's line */
    int64_t b_prev_pos;          /* b's session's previous statement line (-1: none) */
    int64_t b_dur, b_fastest;    /* b's duration, its text's shortest logged duration */
    int every_statement;         /* the log has every statement (statement logging verdict
                                    complete): b's session's previous line is its previous
                                    statement, and the fastest run a real one (a log of slow
                                    statements only has neither) */
} ls_quiet_excess;

/* How long (µs) b queued behind A's hold by its excess duration, 0 when
 * the lines' order does not put A's end within b, b's run was no longer
 * than its text's fastest, or the log lacks statements. */
int64_t ls_quiet_excess_us(const ls_quiet_excess *q);

/* Does queueing by excess duration (ls_quiet_excess_us()) make the key a
 * row: at least LS_HOT_HIDDEN_MIN_US? */
int ls_quiet_excess_makes_row(int64_t excess_us);

/*
 * The quiet-rows step reads the keyed statements in stmt_id order. That
 * is not quite the log's: ingest numbers a statement when the parser
 * hands its record over, and a stderr or syslog parser holds each
 * process's record until that process starts its next message, or until
 * the record has been quiet for FLUSH_AFTER (64) lines, or its slot is
 * wanted (32 pending records at most: parsers/stderr.c). A statement may
 * so be read after others whose lines follow its own: on
 * samples/blind-java (PgJDBC's parse/bind/execute lines, interleaved by
 * 10 backends) stmt 2510, an execute at line 3615, after stmt 2506 at
 * line 3665; up to 65 lines in that log. A key dropped because its holds
 * all ended a horizon before the latest end read could then still be
 * queued for by a statement read later, whose end is behind that
 * latest end by as much time as those lines span (a pause of the server
 * among them: 10 s and more).
 *
 * What is safe: the latest end of the statements read at least
 * LS_QUIET_READ_LAG reads before the current one. Every statement read
 * that long ago was handed over before the current one's line came
 * (each handing over is at a line, at most FLUSH_AFTER lines after the
 * statement's own, and up to MAX_PENDING at once), so its line is
 * before the current one's and it ended no later. A key none of whose
 * holds ended within the horizon before that is stale for every
 * statement read from now on, as the horizon's argument needs (a later
 * statement started no earlier than its end less its duration).
 */
#define LS_QUIET_READ_LAG 128

typedef struct ls_quiet_lag {
    int64_t latest;                  /* the latest end read so far */
    int64_t ring[LS_QUIET_READ_LAG]; /* `latest` as it was at each of the last reads */
    uint64_t reads;
} ls_quiet_lag;

/* An empty lag: nothing read. */
void ls_quiet_lag_init(ls_quiet_lag *l);

/* One statement read (has_end: it ended at end_ts). Returns the latest
 * end of the statements read LS_QUIET_READ_LAG reads or more before it
 * (INT64_MIN while fewer were): no statement read from now on ended
 * before it. */
int64_t ls_quiet_lag_read(ls_quiet_lag *l, int64_t end_ts, int has_end);

#endif
