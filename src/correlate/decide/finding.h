/*
 * finding.h — when does a finding rule fire, and which of its findings
 * does the report name first? The findings pass (findings.c) gathers each
 * rule's candidates with SQL (per code path, per row, per log) and asks
 * these functions; the thresholds are in tolerances.h.
 */
#ifndef LS_DECIDE_FINDING_H
#define LS_DECIDE_FINDING_H

#include <stddef.h>
#include <stdint.h>

/* external_call_in_transaction: the spans of one name inside a code
 * path's holds of hot rows took span_ms in all: named at
 * LS_FINDING_CALL_MIN_MS or more. */
int ls_finding_call_fires(double span_ms);

/*
 * external_call_in_transaction: the call-site template of a span's name,
 * as OpenTelemetry's http.route names a route: in each URL path of the
 * name (a word holding a '/'), every segment that is an id becomes
 * "{id}" (LS_FINDING_CALL_ID) and a query or fragment ("?...", "#...")
 * is dropped, so that "HTTP GET kyc-api /v1/customers/17/status" and
 * ".../42/status" are one call site. A segment is an id when it is all
 * digits, a UUID (8-4-4-4-12 hex digits), or LS_FINDING_CALL_HEX_MIN hex
 * digits or more with at least one decimal digit (a hash, an object id;
 * "deadbeef", with none, is a word). Writes the template into out
 * (size n, n > 0, cut to fit and always terminated); returns how many
 * segments it replaced (0: the name is its own template).
 */
int ls_finding_call_template(const char *name, char *out, size_t n);
/* What a call-site template has in place of an id segment. */
#define LS_FINDING_CALL_ID "{id}"

/* idle_in_transaction_head, per hold: a hold of a hot row whose holder
 * sat idle in transaction at the head of the queue counts when it made
 * others wait LS_FINDING_IDLE_MIN_WAITER_MS or more and held
 * LS_FINDING_IDLE_MIN_UNEXPLAINED_MS or more of idle time no trace span
 * explains. NaN is unknown, and does not count. */
int ls_finding_idle_hold_counts(double waiter_ms, double unexplained_ms);

/* A code path's idle heads: the holds that count, summed. */
typedef struct ls_idle_heads {
    int64_t holds;
    double unexplained_ms, waiter_ms;
    double max_hold_ms; /* NaN while no counted hold has a known length */
    /* Of those, the holds known idle from the session's silence in a log
     * without durations (decide/idlegap.h), and the longest such silence:
     * its length, its bounds (the statement that took the row and the
     * session's next, as logged) and the hold's waits. */
    int64_t gap_holds;
    double gap_ms;
    int64_t gap_from, gap_to, gap_waits;
    /* Of those, the holds waited for below deadlock_timeout alone, their
     * idle time from durations (decide/idlegap.h, ls_idle_span_add): how
     * many, the sum of their estimates and of their bounds (the sum joins
     * unexplained_ms at ls_idle_span_finish), and the variance of that sum
     * that the stamps' rounding alone makes (ms^2). */
    int64_t span_holds;
    double span_ms, span_lo_ms, span_hi_ms, span_var_ms2;
    /* The heads the holds pass found idle (or, on a whole-second log,
     * any head with durations), their idle from durations
     * (decide/idlegap.h, ls_idle_known_add): held apart until
     * ls_idle_span_finish, which counts them (holds, waiter_ms,
     * max_hold_ms, unexplained_ms) when their sum is above the stamps'
     * rounding: how many, the waiting they caused, the longest, the sum
     * of their signed estimates and of their bounds, its variance. */
    int64_t known_holds;
    double known_waiter_ms, known_max_hold_ms;
    double known_ms, known_lo_ms, known_hi_ms, known_var_ms2;
    /* Of those, on a whole-second log, the part of known_lo_ms that waits
     * on the holders' transactions logged before their ends proved
     * (ls_idle_known_add_waited): above the stamps' own lower bounds. */
    int64_t waited_holds;
    double waited_lo_ms;
} ls_idle_heads;

/* Start a code path's sums. */
void ls_finding_idle_start(ls_idle_heads *p);
/* Add one hold (hold_ms NaN: its end unknown) if it counts; 1 if it did. */
int ls_finding_idle_add(ls_idle_heads *p, double waiter_ms, double unexplained_ms, double hold_ms);

/* A rule that counts events (deadlocks, serialization failures, holds
 * idle or committing at the head of a queue): fires on one or more. */
int ls_finding_count_fires(int64_t n);

/*
 * lock_queue_behind_ddl: a relation lock queue (store_schema.h's
 * relation_queues) whose head waits in `mode` with `queued` waits behind
 * it fires when something queued (ls_finding_count_fires) and the head
 * asks for a mode only DDL, maintenance or LOCK TABLE takes: one that
 * conflicts with LS_FINDING_DDL_MODE_FLOOR (ShareUpdateExclusiveLock and
 * stronger; SELECT, SELECT ... FOR UPDATE and the DML take AccessShareLock,
 * RowShareLock and RowExclusiveLock, which do not). An UPDATE at the head
 * of a queue behind LOCK TABLE ... IN SHARE MODE is no DDL. A mode that is
 * none (NULL, unknown) does not fire.
 */
int ls_finding_queue_fires(const char *mode, int64_t queued);

/*
 * inconsistent_lock_order: two sides (two code paths, or one against
 * itself) that locked the same two rows in opposite orders, as read from
 * the deadlocks' edges and the rows each side locked (correlate/lockorder.h),
 * made `deadlocks` deadlocks: named on one or more. Two paths that only
 * write the same relations in opposite orders are never named: they may
 * lock different rows, or one may INSERT a fresh row nobody else can
 * hold, and neither can deadlock.
 */
int ls_finding_lock_order_fires(int64_t deadlocks);

/*
 * inconsistent_lock_order read from a deadlock's DETAIL alone, where the
 * log does not show which rows each side locked first (a threshold log:
 * samples/blind-rb, 13 deadlocks of `transfer` locking two accounts rows
 * in request order, none read from the rows). The DETAIL's `procs`
 * processes form a cycle (PostgreSQL writes only cycles); `row_edges` of
 * their edges are row locks (ls_is_row_lock: a transaction or a tuple)
 * and `same_stmt` of them run the victim's statement, `stmt` (its text or
 * its shape: ls_finding_same_stmt). When every
 * process waits for a row lock and runs that one statement, and the
 * statement locks rows that exist (ls_finding_locks_rows), each process
 * held a row the statement locks while waiting for another: had they all
 * locked those rows in one order, none could wait for a row locked
 * after its own, and the cycle could not close. So the statement's rows
 * are locked in inconsistent order. A cycle of two statements, a
 * process without an edge (unknown), a lock on a relation or an object,
 * an INSERT (its fresh row: the cycle is through a unique index or a
 * foreign key, not an order of rows) tell nothing: 0.
 */
int ls_finding_detail_cycle(int64_t procs, int64_t row_edges, int64_t same_stmt, const char *stmt);

/*
 * Do two DETAIL statements of a deadlock run one statement
 * (ls_finding_detail_cycle's same_stmt)? The same text, or the same shape
 * (ls_sql_shape: literals and $n made ?, case and spaces folded), so that
 * an ORM that writes its values into the text (Sequelize's
 * `WHERE "Account"."id" = 4 FOR UPDATE` and `... = 2 ...`, samples/blind-zk)
 * runs one statement as a driver that binds them ($1) does. A shape of
 * LS_FINDING_SHAPE_MAX bytes or more (cut: its tails unread) is not read
 * as the same; NULL (no statement read) is no statement: 0.
 */
int ls_finding_same_stmt(const char *a, const char *b);
#define LS_FINDING_SHAPE_MAX 4096

/* Does `sql` lock rows that exist, as UPDATE, DELETE and SELECT ... FOR
 * UPDATE/SHARE do (ls_sql_kind_of a write, led by one of those verbs)?
 * An INSERT, a MERGE, a LOCK, a WITH and anything else: 0. */
int ls_finding_locks_rows(const char *sql);

/* hot_counter_row: is a statement an increment of a column, as in
 * "UPDATE t SET n = n + 1", an ORM's row version aside
 * (ls_sql_increments(), src/common/sqlshape.c, reads its SET list). */
int ls_finding_is_increment(const char *sql);

/* The row rules (hot_counter_row, hidden_waiting, serial_capacity): is
 * row_key a logical row's key? A wait the logical rows pass could not key
 * is counted on its row version, "ctid (b,o)" (decide/rowid.c): one
 * logical row may be several of those, and one of them never the whole
 * row's history, so none gets a row finding of its own claiming a hot
 * row (blind-pool's event_totals "ctid (0,20)", 3 waits of a trigger whose
 * key the log does not give, was "at its serial capacity" and "a counter
 * row"); the report lists it with why it could not be keyed. NULL: not a
 * key. */
int ls_finding_row_keyed(const char *row_key);

/* hot_counter_row: a row that writers increment, with `waits` logged
 * waits: a bottleneck at LS_FINDING_ROW_MIN_WAITS or more. */
int ls_finding_counter_fires(int64_t waits);

/* hidden_waiting: a row's waiting rebuilt below deadlock_timeout
 * (hidden_ms) against its logged waiting: named when the hidden part is
 * LS_FINDING_HIDDEN_MIN_MS or more and no less than the logged. */
int ls_finding_hidden_fires(double hidden_ms, double logged_ms);

/* The rate at which `wanting` transactions wanted a row over span_s
 * seconds (its first to last event), the span no shorter than
 * LS_FINDING_SPAN_FLOOR_S: transactions per second. */
double ls_finding_demand_per_s(int64_t wanting, double span_s);

/* serial_capacity: a row with `waits` logged waits whose mean hold allows
 * capacity_per_s transactions per second (0 or less: unknown), wanted by
 * `wanting` transactions over span_s: at its capacity when it has
 * LS_FINDING_ROW_MIN_WAITS waits or more and the demand is
 * LS_FINDING_SERIAL_DEMAND_SHARE of the capacity or more. */
int ls_finding_serial_fires(int64_t waits, int64_t wanting, double span_s, double capacity_per_s);

/*
 * A rule names its heaviest findings, at most `limit`, in the order found
 * among equals. kept[0..n) are the weights of those kept so far (heaviest
 * first, n <= limit): the index at which a new finding of weight w goes
 * (0..n; the caller moves the later ones down and drops the one past
 * limit), or `limit` when it is not kept. An equal weight goes after
 * those kept before it.
 */
size_t ls_finding_slot(const double *kept, size_t n, size_t limit, double w);

/* The report's order of findings: heavier first; equal weights by seq
 * (the rule's place in the rule table, then the finding's in its rule).
 * Weights are compared as the report shows them, to the microsecond:
 * two sums of the same waits added in another order are equal.
 * Negative when a goes first, positive when b does, 0 when the same. */
int ls_finding_cmp(double weight_a, size_t seq_a, double weight_b, size_t seq_b);

#endif
