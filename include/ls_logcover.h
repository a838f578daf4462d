/*
 * ls_logcover.h — whether the log's statement logging can bound a hold
 * (the decision: src/correlate/decide/logcover.c). Public, as ls_range.h
 * is: the report applies the stored verdict to each hold's end.
 *
 * A hold ends at its transaction's COMMIT or ROLLBACK. When the server
 * logged statements only past a duration threshold
 * (log_min_duration_statement > 0, log_statement = 'none'), a
 * transaction's BEGIN, COMMIT and fast statements are missing: its last
 * logged statement is not its end, and a hold that ends there is a lower
 * bound, not a time. The report's input section and "How sure" say so:
 * correlation's "statement logging" pass (src/correlate/logging.c)
 * decides and stores the verdict, which reports/coverage.c reads and
 * applies to each hold's end (ls_logcover_open_end).
 */
#ifndef LS_LOGCOVER_H
#define LS_LOGCOVER_H

#include <stdint.h>

/* Fewer logged statements than this tell nothing about a threshold. */
#define LS_LOGCOVER_MIN_STATEMENTS 20
/* Statements of a complete log include fast ones: when none of at least
 * LS_LOGCOVER_MIN_STATEMENTS timed statements took under this, they were
 * logged only past a threshold (the shortest is at least the threshold). */
#define LS_LOGCOVER_FLOOR_MS 5.0

/* What the store holds of the statement logging. */
typedef struct ls_logcover_in {
    int64_t statements; /* logged statement lines (not taken from spans) */
    int64_t from_spans; /* statements taken from trace spans instead (the
                           pass counts them only when statements is 0,
                           the one case they decide) */
    int64_t timed;      /* of them with a duration */
    double shortest_ms; /* the shortest duration of the timed ones */
    int64_t tx_control; /* of them BEGIN, COMMIT, ROLLBACK */
    int64_t holds;      /* row locks the correlation found taken */
    int64_t reads;      /* of the statements plain reads (SELECT without a
                           locking clause): counted only when
                           ls_logcover_reads_needed() says they decide,
                           else 0; not stored (a window counts again) */
} ls_logcover_in;

typedef enum ls_logcover {
    LS_LOGCOVER_COMPLETE = 0, /* nothing says statements are missing */
    LS_LOGCOVER_THRESHOLD,    /* logged only past a duration threshold */
    LS_LOGCOVER_NO_STATEMENTS, /* locks taken, no statement logged at all */
    LS_LOGCOVER_CLASSES,       /* only some statement classes logged
                                  (log_statement = 'mod' or 'ddl'): no
                                  BEGIN/COMMIT, no reads, no durations */
    LS_LOGCOVER_NONE           /* no statement logged at all, none taken
                                  from spans, no lock found taken: the log
                                  has only waits, deadlocks and errors
                                  (log_statement = 'none', no
                                  log_min_duration_statement; samples/
                                  blind-pl): no hold can be timed */
} ls_logcover;
/* LS_LOGCOVER_THRESHOLD as SQL reads logcover.verdict. */
#define LS_LOGCOVER_THRESHOLD_SQL "1"
_Static_assert(LS_LOGCOVER_THRESHOLD == 1, "LS_LOGCOVER_THRESHOLD_SQL");

/*
 * The one rule for a log whose transactions' ends are missing (issue 34):
 * among at least LS_LOGCOVER_MIN_STATEMENTS logged statements, either
 * every one is timed and none is fast (THRESHOLD: logged past
 * log_min_duration_statement), or none is timed, none is BEGIN, COMMIT or
 * ROLLBACK and none a plain read (CLASSES: log_statement = 'mod' logs
 * INSERT, UPDATE, DELETE only; the SELECT ... FOR UPDATE that takes a row
 * and the COMMIT that frees it are not in it, samples/blind-zk). A
 * complete log of an application that reads has reads; one that opens
 * transactions has BEGIN; one with durations has them timed.
 *
 * CLASSES as above (checked before THRESHOLD: it needs timed == 0); 
 * THRESHOLD when at least LS_LOGCOVER_MIN_STATEMENTS statements were
 * logged, every one with a duration (no log_statement line), none shorter
 * than LS_LOGCOVER_FLOOR_MS (a COMMIT slower than the threshold is logged
 * too: tx_control does not decide, the report shows it); NO_STATEMENTS when
 * holds were found but no statement was logged nor taken from spans (the
 * spans' statements, BEGIN and COMMIT among them, time the holds); NONE
 * when no statement was logged nor taken from spans and no hold was found
 * (a log of only lock waits, deadlocks and errors, samples/blind-pl: its
 * logging is not complete, it times nothing); else COMPLETE.
 */
ls_logcover ls_logcover_decide(const ls_logcover_in *in);

/* 1 when in->reads decides the verdict (the other counts say CLASSES but
 * for the reads): the pass counts the reads only then, as a complete
 * log's BEGINs or durations make counting them needless. */
int ls_logcover_reads_needed(const ls_logcover_in *in);

/*
 * Whether the log leaves out the transactions' boundaries so that a
 * session's last logged statement is not known to be in the transaction
 * it had open later (the links from a wait to its holder, decide/link.c
 * ends_unlogged): CLASSES, decided on the statements alone (holds do not
 * decide it), and THRESHOLD with no BEGIN, COMMIT or ROLLBACK logged
 * (samples/blind-go: a pooled connection's slow statement and the
 * transaction it ran next were one). A threshold log whose slow COMMITs
 * are logged keeps the links it had. Returns 0, LS_ENDS_UNLOGGED_CLASSES
 * or LS_ENDS_UNLOGGED_THRESHOLD (decide/link.c tells them apart: a
 * threshold log's unlogged statements may be the linked transaction's own).
 */
#define LS_ENDS_UNLOGGED_CLASSES 1
#define LS_ENDS_UNLOGGED_THRESHOLD 2
int ls_logcover_tx_ends_unlogged(const ls_logcover_in *in);

/* The verdict's name in the report's JSON (input.logging.verdict). */
const char *ls_logcover_name(ls_logcover v);

/*
 * 1 when a hold's end is only "at least": the log is not COMPLETE and
 * the hold's end evidence is a statement (its transaction's last logged
 * one, "statement" or "statement start") or absent, not a COMMIT,
 * ROLLBACK, disconnection or a bound. end_evidence may be NULL.
 */
int ls_logcover_open_end(ls_logcover v, const char *end_evidence);

/*
 * Is the split of a hold's or a transaction's time into idle in
 * transaction and COMMIT unknown, its end's evidence end_evidence? Where
 * the log does not show the end (ls_logcover_open_end: the log is not
 * COMPLETE and the end is its last logged statement), what came after
 * that statement (idle, fast statements under the threshold, the COMMIT)
 * is not in the log, nor are the statements between two logged ones: 0 ms
 * idle and 0 ms commit would be figures the log cannot give (samples/
 * blind-rb's root blockers: "idle in transaction 0.0 ms, commit 0.0 ms"
 * beside holds read "at least", issue 34). The report then leaves idle,
 * longest gap, commit and each statement's idle before it null, and the
 * holder's state (where that time mostly went) unknown. An end the log or
 * a trace shows (COMMIT, ROLLBACK, its span, a bound), or any end on a
 * COMPLETE log: known. Returns 1 when unknown, else 0.
 */
int ls_logcover_split_unknown(ls_logcover v, const char *end_evidence);

/*
 * Is a code path's hold breakdown (where its holds others waited for
 * went: SQL, idle in transaction, commit) unknown but for its SQL, over
 * `holds` holds of which `split_known` have an end the log shows
 * (ls_logcover_split_unknown 0)? When none has, the idle and commit
 * parts are not in the log and 0 ms of them is no figure: a path whose
 * holds were mostly an outbound call, idle in transaction, would read
 * "mostly SQL" (samples/blind-go's reserveWithPayment: 99.7 % of its hold
 * time the payment call; its one hold behind the breakdown ends at its
 * last logged statement, issue 34). No hold: nothing to say (0). Any end
 * known: the breakdown is the log's (0). Returns 1 when unknown.
 */
int ls_logcover_breakdown_unknown(int64_t holds, int64_t split_known);

/* What the report may say of the waiting the log never showed (waits
 * shorter than deadlock_timeout, rebuilt from the logged statements). */
typedef enum ls_logcover_hidden {
    LS_HIDDEN_KNOWN = 0, /* every statement logged: the rebuilt sum is it */
    LS_HIDDEN_AT_LEAST,  /* threshold log: what was rebuilt from the slow
                            statements is a lower bound */
    LS_HIDDEN_UNKNOWN    /* threshold or classes log, nothing rebuilt:
                            the statements that waited (fast ones, or
                            the unlogged reads and FOR UPDATE) are not in
                            the log, so 0 is no answer; unknown (issue 34) */
} ls_logcover_hidden;

/*
 * KNOWN when the log is COMPLETE; UNKNOWN when it has no statements
 * (NONE or NO_STATEMENTS: nothing to rebuild from, so a 0 is no answer,
 * samples/blind-pl: 158 s unlogged); under THRESHOLD or CLASSES, AT_LEAST
 * when hidden_ms > 0, else UNKNOWN.
 */
ls_logcover_hidden ls_logcover_hidden_decide(ls_logcover v, double hidden_ms);

/*
 * The evidence (rows.grouped_by) of a row a THRESHOLD log shows only by
 * its slow lockers: many logged locking statements by its key, far fewer
 * on its relation's other keys (src/correlate/slowkeys.c, decided by
 * decide/slowkey.c). Its waits are 0 (none logged), its total_wait_ms the
 * lockers' durations summed (a lower bound of its waiting: the waits under
 * the threshold are not in the log) and its max_wait_ms the longest (each
 * duration bounds its statement's wait from above). The report says
 * these figures are bounds.
 */
#define LS_SLOWKEY_EVIDENCE "slow locking statements on one key (threshold log)"

/*
 * What the evidence (rows.grouped_by) of a row known only by its ctid
 * ("ctid only: ...") adds when its relation has other rows
 * (ls_ctid_row_may_be_other, decide/rowid.c): it may be a version of one
 * of them. The reports say so under the hot rows (samples/blind-pl's
 * warehouses id=1, three ctid rows).
 */
#define LS_ROW_MAY_BE_VERSION                                                             \
    "may be a version of another row of its relation (an update gives a row a new ctid;" \
    " no key in the log tells them apart)"

/*
 * The one rule for a figure summed or averaged over holds (a path's or a
 * row's total, mean, occupied time, utilisation, hold breakdown): is it
 * unknown, `holds` holds behind it of which `timed` the log gave a length
 * above 0 (a caller that only has the figure's sum passes 1 when it is
 * above 0, else 0)? On a log that is not COMPLETE a 0 ms hold is one the
 * log did not time (its transaction's end is not in it): when none of
 * the holds was timed, 0 ms would be a confident figure the log cannot
 * give (samples/blind-rb: the accounts path's hold breakdown, 0 ms idle
 * and SQL; warehouses id=1's mean hold 0 ms over 54 untimed holds, issue
 * 34), and the report says it unknown (null, with the reason). No hold:
 * nothing summed (the figure is its own 0 or null); any hold timed: the
 * figure is the log's (a lower bound); a COMPLETE log's 0 ms is a time
 * below its resolution. Returns 1 when unknown, else 0.
 */
int ls_logcover_holds_unknown(ls_logcover v, int64_t holds, int64_t timed);

/* Is the story's hold total of the top code path a lower bound, its share
 * of the timed holds no share of the time hot rows were held? On a log
 * that is not COMPLETE (samples/blind-go: "95.9 %" of the hold time was
 * 3 glued holds timed from their statements' starts). 1 or 0. */
int ls_logcover_hold_total_at_least(ls_logcover v);

/*
 * Can the code paths be ranked by how long they held hot rows, when the
 * top of the ranking held them top_hold_ms? Not when that is 0 (so is
 * every path's) and the log is not COMPLETE: no hold was timed, the
 * transactions' ends are not in the log (samples/blind-rb: "SELECT FOR
 * UPDATE accounts holds the hot rows longest: 0.0 ms, 0.0 %", issue 34).
 * A complete log's 0 ms is a measured time below its resolution (a
 * whole-second log: samples/prefixes): ranked as before. Returns 1 when
 * the ranking is unknown, else 0.
 */
int ls_logcover_occupancy_unknown(ls_logcover v, double top_hold_ms);

/*
 * Is one path's row occupancy unknown: `holds` holds of hot rows, the
 * longest max_ms? On a log that is not COMPLETE a 0 ms hold is one the
 * log did not time (its ends are not in it), as for the top of the
 * ranking (ls_logcover_occupancy_unknown): when none of the path's holds
 * was timed, its 0 ms total would be a confident figure the log cannot
 * give (samples/blind-rb: 54 slow FOR UPDATEs of warehouses at 0 ms,
 * issue 34), and the report says it unknown (null, with the reason). A
 * path with any hold timed (its total a lower bound the log does give),
 * or any path of a COMPLETE log: known. Returns 1 when unknown, else 0.
 */
int ls_logcover_path_occupancy_unknown(ls_logcover v, int64_t holds, double max_ms);

/*
 * Has the blocking ranking's waiting caused no upper bound the log gives?
 * On a THRESHOLD log, the statements under the threshold are not in it,
 * nor the waits in them under deadlock_timeout, so each path's waiting
 * caused is at least its figure (samples/blind-go: transferCredit's
 * 144.8 s printed as 141.8-167.8 s, the app's 234.0 s outside it), unless
 * trace spans (has_spans) time the statements the log leaves out
 * (samples/blind-pool's %t log and traces keep their ranges); so too
 * where a row was found only by its slow lockers (slow_key_rows: made on
 * threshold logs alone). 1: the range is its figure up (no maximum).
 */
int ls_logcover_caused_unbounded(ls_logcover v, int slow_key_rows, int has_spans);

/*
 * Is one path's hold time in the blocking ranking unknown: `episodes`
 * holds others waited for, the waiting it is credited with caused_ms, its
 * longest such hold max_ms? As for its occupancy: on a log that is not
 * COMPLETE, a path that blocked (an episode, or waiting credited to it:
 * a threshold log's slow-locker row, ls_slowkey_one_holder_path) with no
 * hold timed has a 0 ms total the log cannot give (samples/blind-rb's
 * warehouses path, 32.6 s of waiting credited, its total hold 0 ms; the
 * accounts path's 6 episodes at 0 ms). Returns 1 when unknown, else 0.
 */
int ls_logcover_path_blocking_unknown(ls_logcover v, int64_t episodes, double caused_ms,
                                      double max_ms);

/*
 * What the blocking ranking may say when it ranks no code path (the
 * words: reports/prose.c ls_write_no_code_paths). "No transaction held a
 * row others waited for" is a fact only when no holder is known: with
 * root blockers listed (holders named by the logged waits' blocker pids)
 * it is false (samples/blind-pl: 4 root blockers, 33 holds with a logged
 * wait behind them, no statement logged). NONE_HELD when root_blockers is
 * 0; else UNLOGGED when the statement logging is not complete (the
 * holders' statements are not in the log), UNNAMED when it is (their
 * transactions were found, no code path could be named for them).
 */
typedef enum ls_nopaths {
    LS_NOPATHS_NONE_HELD = 0,
    LS_NOPATHS_UNLOGGED,
    LS_NOPATHS_UNNAMED
} ls_nopaths;
ls_nopaths ls_logcover_no_paths(int64_t root_blockers, int logging_complete);

#endif
