/*
 * findings.c — the "findings" pass: rules that turn the evidence into
 * findings a person can act on. Each names what was seen (with numbers),
 * why it matters, and the fix it suggests.
 *
 * A rule is one query that gathers its candidates over the views (per
 * code path, per row, per log) with the words and numbers the report
 * shows, and one decision (decide/finding.c) over the candidate's numbers:
 * whether it fires. A rule names its heaviest findings, a few at most
 * (ls_finding_slot); all are written in the report's order, heavier first
 * (ls_finding_cmp). The thresholds are in decide/tolerances.h; the SQL
 * gathers, it does not decide. Three rules gather finer rows and sum them
 * in C: the external call per span name (one finding per call-site
 * template, ls_fnd_gather_call), the idle head per hold (which holds
 * count, ls_fnd_gather_idle), the counter row per transaction and
 * statement that took it (is it a counter, and which shape held it
 * longest: ls_fnd_gather_counter, decide/counter.c; its query names the
 * candidate rows, heaviest first, and the gather reads each one's
 * writers by key, only while the rule's keeper can still keep it);
 * their sentences are written by SQLite's printf, as the others'. A
 * serial-capacity row's floor of waits is also bound into its query, from
 * the same constant, to spare a count of transactions per row that cannot
 * fire; the decision checks it again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "correlate_int.h"
#include "findings.h"
#include "findings_int.h"
#include "findings_schema.h"
#include "idle_sql.h"
#include "ls_grouping.h"
#include "lockorder.h"

/*
 * A rule's parameters, named once for all rules (a vocabulary,
 * ls_params.h): its floor of waits (:min_waits, finding_rule.min_waits)
 * and the scope's time window (:since and :until, NULL when open),
 * bound by bind_rule() where the rule's SQL has them.
 */
#define RULE_PARAMS(X, Q) X(Q, min_waits) X(Q, since) X(Q, until) X(Q, untimed_unknown)

/*
 * The time window in a rule's SQL: :since and :until. A point
 * event (deadlock, error) counts when its time is in the window; a hold
 * or a transaction when it overlaps the window, as a wait does in the
 * sections; a rule over a row's whole history (rows.waits,
 * hidden_wait_ms, ...) only when that history lies inside the window, so
 * that no figure of a finding comes from outside it.
 */
#define AT_IN_WINDOW(ts) \
    " (:since IS NULL OR " ts " >= :since) AND (:until IS NULL OR " ts " <= :until) "
#define OVERLAPS_WINDOW(s, e)                                                     \
    " (:since IS NULL OR coalesce(" e ", " s ") >= :since) AND (:until IS NULL OR " s \
    " <= :until) "
#define INSIDE_WINDOW(s, e) \
    " (:since IS NULL OR " s " >= :since) AND (:until IS NULL OR " e " <= :until) "

/* A row that is a whole relation's lock (its waits are for a relation
 * lock): a lock queue, not a hot row, so no hot-row rule speaks of it
 * (lock_queue_behind_ddl does). The rows of relation-lock waits are read
 * once (an uncorrelated list), not per candidate row: a correlated probe
 * of the lock_waits view for every waiter's statement of the counter rule
 * took the findings pass of the 256 MiB bench log from 11 M SQLite VM
 * steps to 548 M. */
#define NOT_A_RELATION_LOCK(row_id)                                                         \
    " " row_id " NOT IN (SELECT wr_.row_id FROM wait_rows wr_ JOIN lock_wait_rows lw_"       \
    " ON lw_.wait_id = wr_.wait_id WHERE lw_.target_kind = 'relation'"                      \
    " AND wr_.row_id IS NOT NULL) "

/* The idle rule's columns of a hold h (its code path c, its cover cv). */
#define IDLE_HOLD_COLS                                                                  \
    "SELECT h.*, %s AS label, (SELECT p.ms FROM hold_parts p"                           \
    "  WHERE p.hold_id = h.hold_id AND p.part = 'idle') AS span_idle, cv.ms AS cover_ms"

/* A code path's label for transaction tx (the rule's %s reads tx_code c). */
#define LABEL_OF_TX(tx) "(SELECT %s FROM tx_code c WHERE c.tx_id = " tx ")"

/* A rule over one log-wide count names one finding. */
#define ONE_PER_LOG 1
/* Of errors_linked's retries, those stored by a statement of another
 * session: matched by the failed statement's parameters on another
 * connection (retries.c by_params(), issue 34). */
/* The log has no statement at all (none logged, none from spans): a
 * session's silence after a failure then says nothing of it (samples/
 * blind-pl, log_statement = 'none': DBD::Pg retried 32 of 34 40001s on
 * the same connection). Chooses the words of an untold retry. */
/* A row's share of the time it was held (rows.utilisation), NULL when
 * the log cannot give it: :untimed_unknown (bind_rule: 1 when the log's
 * statement logging is not complete, ls_logcover_holds_unknown) and the
 * row has holds of which none has a length above 0 (no BEGIN/COMMIT,
 * threshold logging: samples/blind-go's inventory sku=SKU-1, 20 holds of
 * 0 ms, "held 0 % of the time" against the truth's 45 %, issue 34). */
#define HELD_SHARE                                                                         \
    " (CASE WHEN :untimed_unknown = 1 AND coalesce(r.occupancy_holds, 0) > 0 AND NOT"      \
    " coalesce(r.occupied_ms, 0) > 0 THEN NULL ELSE r.utilisation END) "
#define NO_STATEMENTS_LOGGED "NOT EXISTS (SELECT 1 FROM statements)"

#define OTHER_SESSION_RETRIES                                                           \
    "coalesce(sum(retry_stmt IS NOT NULL AND (SELECT st.session_id FROM stmt_rows st"   \
    " WHERE st.stmt_id = retry_stmt) IS NOT errors_linked.session_id), 0)"
/* ---- reading a candidate's numbers by field name ---- */

/* The column of field `name`, or -1 (a rule without it: a bug). */
int ls_fnd_field_col(const rule_fields *rf, const char *name)
{
    int i;
    for (i = 0; i < rf->n; i++)
        if (strcmp(rf->f[i].name, name) == 0)
            return COL_FIELDS + i;
    return -1;
}

/* Field `name` of q as a number in *v: 0 when NULL or unknown. */
static int num(ls_stmt *q, const rule_fields *rf, const char *name, double *v)
{
    int col = ls_fnd_field_col(rf, name);
    if (col < 0 || ls_stmt_isnull(q, col))
        return 0;
    *v = ls_stmt_double(q, col);
    return 1;
}

static int count(ls_stmt *q, const rule_fields *rf, const char *name, int64_t *v)
{
    int col = ls_fnd_field_col(rf, name);
    if (col < 0 || ls_stmt_isnull(q, col))
        return 0;
    *v = ls_stmt_int64(q, col);
    return 1;
}

/* Field `name` of q as text, valid until q steps: NULL when NULL or
 * unknown. */
static const char *text(ls_stmt *q, const rule_fields *rf, const char *name)
{
    int col = ls_fnd_field_col(rf, name);
    return col < 0 || ls_stmt_isnull(q, col) ? NULL : ls_stmt_text(q, col);
}

/* ---- each rule's decision over its candidate ---- */

static int holds_fire(ls_stmt *q, const rule_fields *rf)
{
    int64_t n;
    return count(q, rf, "holds", &n) && ls_finding_count_fires(n);
}

/* Two sides that locked the same rows in opposite orders: named by the
 * deadlocks they made (ls_finding_lock_order_fires). */
static int order_fires(ls_stmt *q, const rule_fields *rf)
{
    int64_t n;
    return count(q, rf, "deadlocks", &n) && ls_finding_lock_order_fires(n);
}

static int deadlocks_fire(ls_stmt *q, const rule_fields *rf)
{
    int64_t n;
    return count(q, rf, "deadlocks", &n) && ls_finding_count_fires(n);
}

static int failures_fire(ls_stmt *q, const rule_fields *rf)
{
    int64_t n;
    return count(q, rf, "failures", &n) && ls_finding_count_fires(n);
}

static int hidden_fires(ls_stmt *q, const rule_fields *rf)
{
    double hidden, logged;
    return num(q, rf, "hidden_wait_ms", &hidden) && num(q, rf, "logged_wait_ms", &logged) &&
           ls_finding_row_keyed(text(q, rf, "row")) && ls_finding_hidden_fires(hidden, logged);
}

static int queued_fire(ls_stmt *q, const rule_fields *rf)
{
    int64_t n;
    return count(q, rf, "queued", &n) && ls_finding_queue_fires(text(q, rf, "mode"), n);
}

/* The serial_capacity rule's rows (r0): those with a known capacity and
 * the floor of waits (:min_waits) whose waits lie inside the window, no relation
 * lock. Its query and gather_serial read them alike. A row the quiet-rows
 * rule made (no logged wait, COUNTER_QUIET, as hot_counter_row reads it)
 * counts its statements queued below deadlock_timeout as its waits, their
 * hidden waiting as its weight, and their span (row_waits kind 'inferred',
 * first start to last end) as its window; the transactions that queued
 * for it count in the demand (serial_waits_sql). samples/blind-php's
 * warehouses id=1, 163 statements queued and none logged, held 80 % of
 * the time, had no window before (issue 34). */
#define SERIAL_QUIET_SPAN(agg, col)                                                     \
    "(SELECT " agg "(" col ") FROM row_waits rw WHERE rw.row_id = r.row_id"              \
    " AND rw.kind = 'inferred')"
#define SERIAL_ROWS                                                                    \
    "r0 AS MATERIALIZED (SELECT * FROM (SELECT r.row_id, r.relation, r.row_key,"        \
    "  r.mean_hold_ms, r.capacity_per_s, " COUNTER_WAIT_MS " AS total_wait_ms, "         \
    COUNTER_WAITS " AS waits, CASE WHEN " COUNTER_QUIET " THEN "                         \
    SERIAL_QUIET_SPAN("min", "rw.start_ts") " ELSE r.first_ts END AS first_ts,"         \
    "  CASE WHEN " COUNTER_QUIET " THEN "                                                \
    SERIAL_QUIET_SPAN("max", "coalesce(rw.end_ts, rw.start_ts)") " ELSE r.last_ts END"  \
    "  AS last_ts FROM rows r WHERE r.capacity_per_s > 0) r"                             \
    "  WHERE r.waits >= :min_waits AND" INSIDE_WINDOW("r.first_ts", "r.last_ts") "AND"   \
    NOT_A_RELATION_LOCK("r.row_id") ")"

static int gather_serial(ls_store *s, const ls_findings_scope *sc, const finding_rule *r,
                         const rule_fields *rf, ls_stmt *q, keeper *k);

static int serial_fires(ls_stmt *q, const rule_fields *rf)
{
    int64_t waits, wanting;
    double span_s, capacity;
    return count(q, rf, "waits", &waits) && count(q, rf, "transactions", &wanting) &&
           num(q, rf, "window_s", &span_s) && num(q, rf, "capacity_per_s", &capacity) &&
           ls_finding_row_keyed(text(q, rf, "row")) &&
           ls_finding_serial_fires(waits, wanting, span_s, capacity);
}

/* ---- the rules, in the order they are asked (ties keep it) ---- */

static const finding_rule rules[] = {
    {"external_call_in_transaction",
     "Move the call out of the transaction: call first and then update the row and commit at "
     "once, or commit first and make the call from an outbox afterwards. Every millisecond the "
     "call takes is a millisecond every other writer of the row waits.",
     /* Each code path's span parts by name; the names of one call-site
      * template (a URL's ids as {id}) are one finding
      * (ls_fnd_gather_call). */
     /* the waiting a hold caused: its logged waiters', else (a row whose
      * every wait was rebuilt) the rebuilt waits behind it */
     "WITH hl AS (SELECT h.*, %s AS label, CASE WHEN h.waits > 0 THEN h.waiter_ms"
     "  ELSE coalesce((SELECT sum(rw.wait_ms) FROM row_waits rw WHERE rw.row_id = h.row_id"
     "  AND rw.behind_hold = h.hold_id AND rw.kind = 'inferred'), 0) END AS caused_ms"
     "  FROM " LS_HOLDS_WAITED_SQL " h LEFT JOIN tx_code c"
     "  ON c.tx_id = h.tx_id WHERE" OVERLAPS_WINDOW("h.start_ts", "h.end_ts")
     /* none when no hold has a span part (a log without traces): the
      * rule then names nothing, and hl whole (every waited hold with its
      * path's label, which the path's held time sums) was 1.6 M SQLite VM
      * steps of the pass at 1 GiB */
     "AND EXISTS (SELECT 1 FROM hold_parts sp_ WHERE sp_.part = 'span'))"
     " SELECT " LS_SELECT_LIST(kq, CALL_COLS)
     " FROM hold_parts p JOIN hl ON hl.hold_id = p.hold_id WHERE p.part = 'span'"
     " GROUP BY hl.label, p.name ORDER BY hl.label, p.name",
     "code_path:s,span:s,span_ms:m,holds:i,waiter_ms:m", NULL, ls_fnd_gather_call,
     LS_FINDING_MAX_PER_PATH, 0},
    {"idle_in_transaction_head",
     "Send the transaction's statements back to back and commit at once; do application work "
     "(rendering, calls, waiting for the client) before BEGIN or after COMMIT. Set "
     "idle_in_transaction_session_timeout as a safety net.",
     /* Each hold idle at the head, by code path; idle time a trace span
      * explains (an external call) is not counted (ls_fnd_gather_idle).
      * Without durations a head is "unknown": its silence decides
      * (decide/idlegap.h), from the statement that took the row (L), the
      * session's next statement (N) and the waits on the holder's
      * transaction for the row (read from the holds of that kind alone:
      * when there is none, no wait is read). */
     /* A hold no logged wait queued on (head_state NULL) that waits
      * below deadlock_timeout did (the hidden pass's row_waits, shared
      * among the holds that covered them: row_cover) is read too: its
      * idle from durations (decide/idlegap.h, ls_idle_span_bound), from
      * the end of the statement that took the row to the start of its
      * transaction's last statement (sp), every statement between with
      * a duration. Not when its transaction is linked to a trace: the
      * holds pass splits a hold by its spans (hold_parts) only where a
      * wait was logged, so what the spans explain of it is not known. */
     /* The holds read in two parts: those with a head state, by a scan
      * of the holds that tests their own columns alone, and those
      * without, from the covers (cv) by the holds' tx_id index. One
      * scan that tested a cover and a code path per hold (a disjunction
      * of the two) joined every hold: 21.7 M of the rule's 26.6 M SQLite
      * VM steps at 1 GiB, 4.9 M so. */
     "WITH cv AS (SELECT w.row_id, k.tx_id, sum(k.us) / 1000.0 AS ms FROM row_cover k"
     " JOIN row_waits w ON w.rw_id = k.rw_id WHERE w.tx_id IS NOT k.tx_id"
     " GROUP BY w.row_id, k.tx_id),"
     " hu AS (" IDLE_HOLD_COLS
     " FROM holds h LEFT JOIN tx_code c ON c.tx_id = h.tx_id"
     " LEFT JOIN cv ON cv.row_id = h.row_id AND cv.tx_id = h.tx_id"
     " WHERE h.head_state = 'idle_in_transaction' OR (h.head_state = 'unknown'"
     " AND h.waits > 0 AND h.lock_stmt IS NOT NULL)"
     /* on a whole-second log a head's state is read from rounded times:
      * every head with durations is read (those ending on a whole second
      * here; ls_fnd_gather_idle keeps them on such a log alone), its
      * idle unclipped (findings_sum.c IDLE_EST_SQL), the path's sum
      * unbiased */
     " OR (h.head_state IN ('committing','running') AND h.end_ts %% "
     LS_SQL_INT(LS_WHOLE_SECOND_US) " = 0)"
     " UNION ALL " IDLE_HOLD_COLS
     " FROM cv CROSS JOIN holds h ON h.tx_id = cv.tx_id AND h.row_id = cv.row_id"
     " LEFT JOIN tx_code c ON c.tx_id = h.tx_id"
     " WHERE h.head_state IS NULL AND h.waits = 0 AND h.lock_stmt IS NOT NULL"
     " AND cv.ms > 0 AND c.trace_id IS NULL),"
     " hi AS (SELECT * FROM hu h WHERE" NOT_A_RELATION_LOCK("h.row_id") "AND"
     OVERLAPS_WINDOW("h.start_ts", "h.end_ts") "),"
     " sp AS (SELECT hi.hold_id, l.end_ts AS l_end, (SELECT x.start_ts FROM statements x"
     " WHERE x.stmt_id = t.last_stmt AND +x.session_id = l.session_id) AS c_start,"
     /* NULL when a statement between has no duration, or failed (a bind
      * without its execute: a deadlock victim's or a lock timeout's
      * statement waited until its error, it was not idle). */
     " (SELECT CASE WHEN count(x.duration_ms) = count(*) AND total(x.verb IS 'bind') = 0"
     " THEN total(x.duration_ms + coalesce(x.bind_ms, 0) + coalesce(x.parse_ms, 0))"
     " - total(CASE WHEN x.stmt_id = t.last_stmt THEN x.duration_ms END) END"
     /* by the stmt_id range (the transaction's span of the log), the
      * session a filter (+): the session's index would read every
      * statement the session ever ran before the range, per hold */
     " FROM statements x WHERE +x.session_id = l.session_id"
     " AND x.stmt_id > l.stmt_id AND x.stmt_id <= t.last_stmt"
     " AND (x.verb IS NULL OR x.verb <> 'parse')) AS busy_ms"
     " FROM hi JOIN statements l ON l.stmt_id = hi.lock_stmt"
     " JOIN transactions t ON t.tx_id = hi.tx_id"
     " WHERE hi.head_state IS NULL AND l.end_ts IS NOT NULL),"
     " g AS (SELECT hi.hold_id, hi.tx_id, hi.row_id, l.session_id, l.pid, l.start_ts AS l_ts,"
     " " LOG_POS("l") " AS l_pos, n.start_ts AS n_ts, " LOG_POS("n") " AS n_pos"
     " FROM hi JOIN statements l ON l.stmt_id = hi.lock_stmt"
     " JOIN transactions t ON t.tx_id = hi.tx_id"
     /* N through the session's statements in time order (its index),
      * not the stmt_id range from L, which holds every other session's
      * statements logged during the silence. */
     " JOIN statements n ON n.stmt_id = (SELECT x.stmt_id FROM statements x"
     " WHERE x.session_id = l.session_id AND x.start_ts >= l.start_ts"
     " AND x.stmt_id > l.stmt_id AND x.stmt_id <= t.last_stmt"
     " AND (x.verb IS NULL OR x.verb NOT IN ('parse', 'bind'))"
     " ORDER BY x.start_ts, x.stmt_id LIMIT 1)"
     " WHERE hi.head_state = 'unknown'),"
     " tw AS (SELECT g.hold_id, min(w.start_ts) AS t_ts, min(" LOG_POS("w") ") AS t_pos,"
     " max(CASE WHEN " LOG_POS("w") " <= g.l_pos THEN NULL"
     " WHEN w.end_line IS NOT NULL AND " LOG_END_POS("w") " < g.n_pos THEN w.waited_ms"
     " WHEN " LOG_POS("w") " < g.n_pos THEN (w.logged_ts - w.start_ts) / 1000.0 END)"
     " AS logged_ms"
     LS_IDLE_HEAD_WAITS_FROM " GROUP BY g.hold_id)"
     " SELECT " LS_SELECT_LIST(iq, IDLE_COLS) " FROM hi LEFT JOIN g ON g.hold_id = hi.hold_id"
     " LEFT JOIN tw ON tw.hold_id = hi.hold_id LEFT JOIN sp ON sp.hold_id = hi.hold_id"
     /* a path's holds in hold order, as the one scan of the holds read
      * them (hi is two parts now) */
     " ORDER BY hi.label, hi.hold_id",
     "code_path:s,holds:i,idle_ms:m,waiter_ms:m,max_hold_ms:m", NULL, ls_fnd_gather_idle,
     LS_FINDING_MAX_PER_PATH, 0},
    {"commit_wait_head",
     "The COMMIT itself held the row: check WAL flush latency (wait event WalSync), a synchronous "
     "standby (SyncRep) and deferred triggers or constraints that run at COMMIT; update the hot "
     "row as the transaction's last statement.",
     "SELECT sum(h.waiter_ms), %s || ' holds hot rows through a slow COMMIT',"
     " printf('%%d hold%%s spent " DUR " committing while others waited (" DUR " of waiting "
     "caused).', count(*), CASE WHEN count(*) > 1 THEN 's' ELSE '' END, sum(h.commit_ms),"
     " sum(h.waiter_ms)), %s, count(*), sum(h.commit_ms), sum(h.waiter_ms)"
     " FROM holds h LEFT JOIN tx_code c ON c.tx_id = h.tx_id"
     " WHERE h.head_state = 'committing' AND" OVERLAPS_WINDOW("h.start_ts", "h.end_ts")
     " GROUP BY 2",
     "code_path:s,holds:i,commit_ms:m,waiter_ms:m", holds_fire, NULL, LS_FINDING_MAX_PER_PATH,
     0},
    {"inconsistent_lock_order",
     "Take locks in one order everywhere: sort the keys before locking them (lock the lower id "
     "first, whatever the request's order: SELECT ... FOR UPDATE ORDER BY id), and take "
     "relations in one order (for example by table); shortening transactions does not remove "
     "these deadlocks.",
     /* The pairs of the log's deadlocks (lockorder.h): each side's
      * order read from the rows it locked, one code path against itself
      * included; each deadlock counted for the pair that made it, a
      * cycle through a third transaction too (x.longer of them; the rows
      * named are a two-transaction cycle's where the pair has one). */
     "WITH %W SELECT 1000.0 * (1 + x.deadlocks), CASE WHEN x.rows_detail AND x.label = x.other"
     " THEN x.label || ' locks rows of ' || x.r1 || ' in inconsistent order against itself'"
     " WHEN x.rows_detail AND x.label IS NULL THEN 'Transactions lock rows of ' || x.r1 ||"
     " ' in inconsistent order'"
     " WHEN x.rows_detail THEN 'Code paths lock rows of ' || x.r1 || ' in inconsistent order'"
     " WHEN x.label = x.other THEN x.label || ' locks"
     " the same rows in opposite orders in concurrent transactions' ELSE 'Code paths lock the"
     " same rows in opposite orders' END, CASE WHEN x.rows_detail THEN printf('%%d deadlock%%s"
     " %%s cycles of transactions %%s, each holding a row of %%s while it waited, in the"
     " same statement, for a row another held: those rows are locked in no one order. Read"
     " from each deadlock''s DETAIL: the log does not show which rows each transaction locked"
     " first. The first at %%s UTC.', x.deadlocks, CASE WHEN x.deadlocks > 1 THEN 's' ELSE ''"
     " END, CASE WHEN x.deadlocks > 1 THEN 'were' ELSE 'was' END, CASE WHEN x.label IS NULL"
     " THEN 'whose code paths the log does not show (it ties none of them to a transaction)'"
     " WHEN x.label = x.other THEN 'of ' || x.label ELSE 'of ' || x.label"
     " || ' and ' || x.other END, x.r1,"
     " strftime('%%Y-%%m-%%d %%H:%%M:%%f', x.first_ts / 1e6, 'unixepoch')) ELSE"
     " printf('%%s locked %%s, then waited for %%s, while"
     " %%s held %%s and waited%%s for %%s: %%d deadlock%%s between them%%s, the first at %%s"
     " UTC.', CASE WHEN x.label = x.other THEN 'One transaction of ' || x.label ELSE x.label"
     " END, x.row1, x.row2, CASE WHEN x.label = x.other THEN 'another' ELSE x.other END,"
     " x.row2, CASE WHEN x.rows_longer THEN ', through other transactions of the cycle,'"
     " ELSE '' END, x.row1, x.deadlocks, CASE WHEN x.deadlocks > 1 THEN 's' ELSE '' END,"
     " CASE WHEN x.longer > 0 THEN printf(' (%%d of them through a third transaction: a"
     " cycle of three or more, each locking in its own order)', x.longer) ELSE '' END,"
     " strftime('%%Y-%%m-%%d %%H:%%M:%%f', x.first_ts / 1e6, 'unixepoch')) END,"
     " x.label, x.r1, x.r2, x.other, x.deadlocks, x.row1, x.row2"
     " FROM lock_cycles x ORDER BY x.label, x.other, x.r1, x.r2",
     "code_path:s,first:s,then:s,other_code_path:s,deadlocks:i,first_row:s,then_row:s",
     order_fires, NULL, LS_FINDING_MAX_PER_PATH, 0},
    {"deadlocks",
     "Find the two code paths in the cycle and make them lock rows in the same order (the "
     "deadlock section lists each side's statements in the order it took its locks).",
     "SELECT 1000.0 * count(*), printf('%%d deadlock%%s', count(*), CASE WHEN count(*) > 1"
     " THEN 's' ELSE '' END), printf('%%d processes cancelled (SQLSTATE 40P01); the first at "
     "%%s UTC.', count(*), strftime('%%Y-%%m-%%d %%H:%%M:%%f', min(ts) / 1e6, 'unixepoch')),"
     " count(*), strftime('%%Y-%%m-%%dT%%H:%%M:%%fZ', min(ts) / 1e6, 'unixepoch')"
     " FROM deadlocks WHERE" AT_IN_WINDOW("ts"),
     "deadlocks:i,first_time:s", deadlocks_fire, NULL, ONE_PER_LOG, 0},
    {"hot_counter_row",
     "Split the counter into N rows updated at random and summed on read, or append increments "
     "to a log table and aggregate them later.",
     /* The rows with the floor of waits (:min_waits), heaviest first (the
      * finding's weight, NULL as 0), then in row order: the order a keeper
      * of the rows in row order would keep them in, so that the gather
      * reads the writers (COUNTER_WRITERS_SQL) only of rows it can still
      * keep (ls_fnd_gather_counter). */
     "SELECT " LS_SELECT_LIST(cq, COUNTER_COLS) " FROM rows r WHERE ((r.waits >= :min_waits"
     " AND r.row_id IN (SELECT k.row_id FROM row_keys k WHERE k.waits >= :min_waits)) OR"
     " (" COUNTER_QUIET " AND r.waited_statements >= :min_waits"
     " AND r.row_id IN (SELECT k.row_id FROM row_keys k)))"
     " AND" INSIDE_WINDOW("r.first_ts", "r.last_ts") "AND" NOT_A_RELATION_LOCK("r.row_id")
     "ORDER BY coalesce(" COUNTER_WAIT_MS ", 0.0) DESC, r.row_id",
     "relation:s,row:s,waits:i,total_wait_ms:m,statement:s,transactions:i,held_ms:m,"
     "code_path:s,writing_transactions:i,decided_by:s,trigger_statement:s", NULL,
     ls_fnd_gather_counter, LS_FINDING_MAX_PER_ROW, LS_FINDING_ROW_MIN_WAITS},
    {"retries_after_serialization_failure",
     "Retry the whole transaction (not the statement) with a bound and back-off, keep it "
     "short, or lock the row first (SELECT ... FOR UPDATE) where the isolation level allows.",
     "SELECT 100.0 * count(*), printf('%%d serialization failure%%s (40001)', count(*),"
     " CASE WHEN count(*) > 1 THEN 's' ELSE '' END), printf('%%d retried (%%d committed): %%d "
     "by the session''s next transaction, %%d by the request''s trace, %%d by the failed"
     " statement''s parameters on another connection.%%s',"
     " count(retry_stmt) + count(retry_span), sum(retry_outcome = 'commit'),"
     " count(retry_stmt) - " OTHER_SESSION_RETRIES ", count(retry_span), "
     OTHER_SESSION_RETRIES ", CASE WHEN sum(retry_outcome = 'untold') > 0 THEN printf(' %%d could"
     " not be told: the session''s next transaction ran the statement again after the"
     " connection was set up again, a retry or the pool''s next request.',"
     " sum(retry_outcome = 'untold')) ELSE '' END ||"
     " CASE WHEN sum(retry_outcome = 'untold_ended') > 0 AND " NO_STATEMENTS_LOGGED " THEN"
     " printf(' %%d could not be told: the log has no statement (log_statement = ''none''),"
     " so what a session ran after its failure, a retry or not, is not in it.',"
     " sum(retry_outcome = 'untold_ended'))"
     " WHEN sum(retry_outcome = 'untold_ended') > 0 THEN printf(' %%d could not be told:"
     " the session logged nothing after the failure (the client dropped the connection), so a"
     " retry, if any, ran on another connection, which the log cannot tie to it.',"
     " sum(retry_outcome = 'untold_ended')) ELSE '' END ||"
     " CASE WHEN sum(retry_outcome = 'untold_elsewhere') > 0 THEN printf(' %%d could not be"
     " told: no trace of the request, and its session ran other requests'' work around it or"
     " does not show its transaction, so a retry, if any, ran on a connection the log cannot"
     " tie to it.', sum(retry_outcome = 'untold_elsewhere')) ELSE '' END ||"
     " CASE WHEN sum(retry_outcome = 'untold_tries') > 0 THEN printf(' %%d could not be"
     " told: the session ran the statement again with the same parameters after as many"
     " failed tries as the client was seen to give up after.',"
     " sum(retry_outcome = 'untold_tries')) ELSE '' END),"
     " count(*), count(retry_stmt) + count(retry_span), sum(retry_outcome = 'commit'),"
     " count(retry_stmt) - " OTHER_SESSION_RETRIES ", count(retry_span),"
     " coalesce(sum(retry_outcome IN ('untold', 'untold_ended', 'untold_elsewhere', 'untold_tries')), 0), " OTHER_SESSION_RETRIES
     /* retries.c: a retry found in the session's statements is a
      * statement (retry_stmt), one found in the trace's spans a span
      * (retry_span); neither, with retry_outcome 'untold', one the log
      * cannot tell (decide/retry.h ls_retry_session_told()) */
     " FROM errors_linked WHERE class = 'serialization_failure' AND" AT_IN_WINDOW("ts"),
     "failures:i,retried:i,committed:i,by_session:i,by_trace:i,untold:i,by_parameters:i",
     failures_fire, NULL, ONE_PER_LOG,
     0},
    {"hidden_waiting",
     "The log shows only waits longer than deadlock_timeout; the rest of the queueing on this row "
     "is as real. Shorten what holds the row (see the rankings) rather than tuning "
     "deadlock_timeout, which changes what is logged, not how long anyone waits.",
     "SELECT r.hidden_wait_ms, printf('%%.0f %%%% of the waiting on %%s %%s was below "
     "deadlock_timeout and never logged', 100.0 * r.hidden_wait_ms / (r.hidden_wait_ms +"
     " r.logged_wait_ms), r.relation, r.row_key),"
     " printf('%%d statements queued for the row: " DUR " of waiting rebuilt from the holds "
     "before them, " DUR " logged as lock waits; ', r.waited_statements, r.hidden_wait_ms,"
     " r.logged_wait_ms) || CASE WHEN " HELD_SHARE " IS NULL THEN 'how much of the time the row"
     " was held is unknown: no hold of it is timed (the log has no transaction boundaries or"
     " none of its holds ends in it).' ELSE printf('the row was held %%.0f %%%% of the time.',"
     " 100.0 * " HELD_SHARE ") END,"
     " r.relation, r.row_key, 100.0 * r.hidden_wait_ms / (r.hidden_wait_ms + r.logged_wait_ms),"
     " r.waited_statements, r.hidden_wait_ms, r.logged_wait_ms, " HELD_SHARE ""
     " FROM rows r WHERE" INSIDE_WINDOW("r.first_ts", "r.last_ts")
     "AND" NOT_A_RELATION_LOCK("r.row_id"),
     "relation:s,row:s,hidden_share_pct:m,statements_waited:i,hidden_wait_ms:m,"
     "logged_wait_ms:m,utilisation:m", hidden_fires, NULL, LS_FINDING_MAX_PER_ROW, 0},
    {"lock_queue_behind_ddl",
     "Run DDL with a short lock_timeout (SET lock_timeout = '2s') and retry it until it gets "
     "the lock, so that it never waits long at the head of the table's queue; shorten or end "
     "the transaction that held the table (the root blocker), and run migrations when no long "
     "transaction reads the table.",
     /* Each relation lock queue (store_schema.h's relation_queues: a
      * wait at the head of the queue, blocked by a holder, with the waits
      * queued behind it during its wait), read as the report's section
      * reads it: the queue is found once, by the view. */
     "SELECT rq.waited_ms + rq.queued_wait_ms, printf('%%s queued for %%s on %%s behind %%s; "
     "%%d statement%%s queued behind it', coalesce(" LABEL_OF_TX("rq.waiter_tx") ", 'pid ' ||"
     " rq.pid), rq.mode, rq.relation, coalesce(" LABEL_OF_TX("rq.holder_tx") ", 'pid ' ||"
     " rq.holder_pid), rq.queued, CASE WHEN rq.queued > 1 THEN 's' ELSE '' END),"
     " printf('%%s waited " DUR " for %%s on %%s while %%s held the table; %%d statement%%s "
     "queued behind it for " DUR " in all (the longest " DUR "): the server grants a table "
     "lock in queue order, so every request that conflicts with the waiting %%s waits behind "
     "it, plain reads included.', rq.statement, rq.waited_ms, rq.mode, rq.relation,"
     " coalesce(" LABEL_OF_TX("rq.holder_tx") ", 'pid ' || rq.holder_pid), rq.queued,"
     " CASE WHEN rq.queued > 1 THEN 's' ELSE '' END, rq.queued_wait_ms,"
     " rq.max_queued_wait_ms, rq.mode),"
     " rq.relation, rq.statement, rq.mode, rq.waited_ms, " LABEL_OF_TX("rq.holder_tx") ","
     " rq.queued, rq.queued_wait_ms, " LABEL_OF_TX("rq.waiter_tx")
     " FROM relation_queues rq WHERE" OVERLAPS_WINDOW("rq.start_ts", "rq.end_ts")
     "ORDER BY rq.wait_id",
     "relation:s,statement:s,mode:s,waited_ms:m,holder_code_path:s,queued:i,queued_wait_ms:m,"
     "code_path:s", queued_fire, NULL, LS_FINDING_MAX_PER_ROW, 0},
    {"serial_capacity",
     "One row lets one transaction through at a time: shorten the hold (see the findings above) "
     "or spread the writes over several rows.",
     /* The transactions that wanted the row within the window of its
      * logged waits (first_ts..last_ts, the demand's span): those that
      * held it then and those that waited for it, each once (a statement
      * may wait for one row many times, and a waiter that got the row
      * holds it). A hold counts when it surely held the row inside the
      * window, whatever its times' ranges (HOLD_IN_WINDOW: on a
      * whole-second log each end is only known to its second); the holds
      * the ranges merely allow are counted apart (wanting_hi), for the
      * evidence to say how sure the count is. Holds outside the window
      * wanted the row at another time, not within it. The capacity is
      * that of the holds surely inside the window (their mean length,
      * the row's mean when they have none above 0): a row's holds are
      * longer while it queues than over the whole log, and the demand
      * of the window is to be set against the holds of the window.
      * Counted only for rows with a known capacity and the floor of
      * waits (:min_waits).
      * A transaction tied up in a deadlock on the row (a victim of a
      * wait for it that ended in a deadlock, or the holder that wait was
      * for: lock_waits outcome 'deadlock') counts neither in the demand
      * nor in the holds' mean: such a hold lasts as long as its holder
      * waits for the other side (deadlock_timeout and more), the victim
      * never gets the row, and the remedy is the lock order the deadlock
      * findings name, not a shorter hold (issue 34: samples/blind-java's
      * accounts id=1, 8 transactions in 4 s at a mean hold of 1.0 s, 5
      * of them in its three deadlocks; the truth's holds of that window
      * are 3.05 s, 0.1 ms, 83, 1006 and 68 ms, so the stamps did not make
      * it up: the deadlocks did). The sentence says how many were left
      * out (?tied).
      * MATERIALIZED: the rows view read once, not again at each use of
      * r0 (a flattened subquery of the rows cost 4.8 M of the pass's
      * 14.5 M VM steps on the 256 MiB bench log). */
     "WITH " SERIAL_ROWS ","
     /* each row's wanting transactions and mean hold, summed in C
      * (gather_serial) */
     " r AS (SELECT r0.*, coalesce(a.wanting, 0) AS wanting, coalesce(a.wanting_hi, 0)"
     "  AS wanting_hi, coalesce(a.tied, 0) AS tied, a.mw AS mw FROM r0"
     "  LEFT JOIN temp.serial_want a ON a.row_id = r0.row_id),"
     " q AS (SELECT relation, row_key, total_wait_ms, first_ts, last_ts, waits, wanting,"
     "  wanting_hi, tied, CASE WHEN mw > 0 THEN mw ELSE mean_hold_ms END AS mean_hold_ms,"
     "  1000.0 / CASE WHEN mw > 0 THEN mw ELSE mean_hold_ms END AS capacity_per_s FROM r)"
     " SELECT r.total_wait_ms, 'Row ' || r.relation || ' ' || r.row_key || ' is at its serial "
     "capacity', printf('Mean hold " DUR " while it queued caps the row at %%.1f transactions/s; %%d "
     "transactions%%s wanted it within those " DUR " (%%.1f/s, %%.0f %%%% of that).', r.mean_hold_ms,"
     " r.capacity_per_s, r.wanting, CASE WHEN r.wanting_hi > r.wanting THEN printf(' (up"
     " to %%d: the log''s times leave %%d more holds inside or outside the window)',"
     " r.wanting_hi, r.wanting_hi - r.wanting) ELSE '' END || CASE WHEN r.tied > 0 THEN"
     " printf(' (not counting %%d tied up in deadlocks on it)',"
     " r.tied) ELSE '' END,"
     " (r.last_ts - r.first_ts) / 1e3, r.wanting /"
     " max((r.last_ts - r.first_ts) / 1e6, 0.001), 100.0 * r.wanting /"
     " max((r.last_ts - r.first_ts) / 1e6, 0.001) / r.capacity_per_s),"
     " r.relation, r.row_key, r.mean_hold_ms, r.capacity_per_s, r.wanting,"
     " (r.last_ts - r.first_ts) / 1e6, r.wanting / max((r.last_ts - r.first_ts) / 1e6, 0.001),"
     " r.waits FROM q r",
     "relation:s,row:s,mean_hold_ms:m,capacity_per_s:m,transactions:i,window_s:m,demand_per_s:m,"
     "waits:x", serial_fires, gather_serial, LS_FINDING_MAX_PER_ROW, LS_FINDING_ROW_MIN_WAITS},
};

#define NRULES (sizeof(rules) / sizeof(rules[0]))
/* The most findings all rules name together. */
#define MAX_FINDINGS (NRULES * MAX_KEPT)

/* Parse a rule's field spec; -1 if it has more fields than MAX_FIELDS
 * or a name too long (a bug in the table). */
static int parse_fields(const char *spec, rule_fields *out)
{
    out->n = 0;
    while (spec && *spec) {
        const char *colon = strchr(spec, ':');
        size_t n;
        if (!colon || !colon[1] || out->n == MAX_FIELDS)
            return -1;
        if ((n = (size_t)(colon - spec)) >= FIELD_NAME_MAX)
            return -1;
        memcpy(out->f[out->n].name, spec, n);
        out->f[out->n].name[n] = 0;
        out->f[out->n].kind = colon[1];
        out->n++;
        spec = colon[2] == ',' ? colon + 3 : colon + 2;
    }
    return 0;
}

/* ---- a finding kept in memory until all rules have spoken ---- */

void ls_fnd_value_free(value *v)
{
    free(v->s);
    v->s = NULL;
}

void ls_fnd_finding_free(finding *f)
{
    int i;
    ls_fnd_value_free(&f->title);
    ls_fnd_value_free(&f->evidence);
    for (i = 0; i < f->fields.n; i++)
        ls_fnd_value_free(&f->f[i]);
}

/* Column col of q as kind (s, i, m; x is read as m) into v; -1 on no
 * memory. */
int ls_fnd_value_read(value *v, ls_stmt *q, int col, char kind)
{
    memset(v, 0, sizeof(*v));
    if ((v->null = ls_stmt_isnull(q, col)) != 0)
        return 0;
    if (kind == 's')
        return (v->s = strdup(ls_stmt_text(q, col))) ? 0 : -1;
    if (kind == 'i')
        v->i = ls_stmt_int64(q, col);
    else
        v->d = ls_stmt_double(q, col);
    return 0;
}

static int finding_read(finding *f, const finding_rule *r, const rule_fields *rf, ls_stmt *q)
{
    int i, rc;
    memset(f, 0, sizeof(*f));
    f->rule = r;
    f->fields = *rf;
    rc = ls_fnd_value_read(&f->weight, q, COL_WEIGHT, 'm');
    rc |= ls_fnd_value_read(&f->title, q, COL_TITLE, 's');
    rc |= ls_fnd_value_read(&f->evidence, q, COL_EVIDENCE, 's');
    for (i = 0; i < rf->n; i++)
        rc |= ls_fnd_value_read(&f->f[i], q, COL_FIELDS + i, rf->f[i].kind);
    if (rc) {
        ls_fnd_finding_free(f);
        return LS_ENOMEM;
    }
    return 0;
}

/* A finding's weight for ordering: NULL as 0. */
double ls_fnd_weight_of(const finding *f)
{
    return f->weight.null ? 0.0 : f->weight.d;
}

static int by_report_order(const void *a, const void *b)
{
    const finding *x = a, *y = b;
    return ls_finding_cmp(ls_fnd_weight_of(x), x->seq, ls_fnd_weight_of(y), y->seq);
}

/* ---- gathering and deciding ---- */

/* The lock cycles' WITH tables (lockorder.h) over the window's deadlocks,
 * in two literals (each within C11's length): a rule's %W. */
static const char lock_cycles_head[] = LS_LOCK_CYCLES_HEAD(AT_IN_WINDOW("d.ts"));
static const char lock_cycles_tail[] = LS_LOCK_CYCLES_TAIL;

/* sql with %s replaced by `label` and %% by %, appended to out; %W by
 * the lock cycles' tables (themselves with %s for the label). */
static void expand_into(ls_buf *out, const char *sql, const char *label)
{
    const char *p;
    for (p = sql; *p; p++) {
        if (p[0] == '%' && p[1] == 'W') {
            expand_into(out, lock_cycles_head, label);
            ls_buf_addc(out, ',');
            expand_into(out, lock_cycles_tail, label);
            p++;
        } else if (p[0] == '%' && p[1] == 's') {
            ls_buf_adds(out, label);
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            ls_buf_addc(out, '%');
            p++;
        } else {
            ls_buf_addc(out, *p);
        }
    }
}

/* The rule's SQL with %s replaced by `label`, %% by % and %W by the lock
 * cycles' tables. */
void ls_fnd_expand(ls_buf *out, const char *sql, const char *label)
{
    ls_buf_reset(out);
    expand_into(out, sql, label);
}

static int window_set(int64_t t)
{
    return t != 0 && t != LS_TS_NONE;
}

/* Bind the rule's floor of waits (:min_waits, unbound at 0) and the
 * scope's window (:since, :until; unbound when open) where q (prepared
 * with RULE_PARAMS) has them. 0 or the bind's error. */
static int bind_rule(ls_store *s, ls_stmt *q, const finding_rule *r,
                     const ls_findings_scope *sc)
{
    int p, rc = 0;
    if ((p = ls_stmt_param(q, "untimed_unknown")) != 0) {
        ls_logcover v;
        /* a row none of whose holds the log timed: its share unknown? */
        if ((rc = ls_correlate_stmt_logging(s, &v)) == 0)
            rc = ls_stmt_bind_int64(q, p, ls_logcover_holds_unknown(v, 1, 0));
    }
    if (r->min_waits != 0 && (p = ls_stmt_param(q, "min_waits")) != 0)
        rc = ls_stmt_bind_double(q, p, r->min_waits);
    if (rc == 0 && window_set(sc->since) && (p = ls_stmt_param(q, "since")) != 0)
        rc = ls_stmt_bind_int64(q, p, sc->since);
    if (rc == 0 && window_set(sc->until) && (p = ls_stmt_param(q, "until")) != 0)
        rc = ls_stmt_bind_int64(q, p, sc->until);
    return rc;
}

/* Where a finding of weight w goes, or k->limit when it is not kept. */
size_t ls_fnd_keeper_slot(const keeper *k, double w)
{
    return ls_finding_slot(k->weights, k->n, k->limit, w);
}

/* Put f at slot (from ls_fnd_keeper_slot, < limit), dropping the lightest when
 * full; the keeper owns f from here. */
void ls_fnd_keeper_put(keeper *k, size_t slot, finding *f)
{
    if (k->n == k->limit)
        ls_fnd_finding_free(&k->kept[--k->n]);
    memmove(&k->kept[slot + 1], &k->kept[slot], (k->n - slot) * sizeof(k->kept[0]));
    memmove(&k->weights[slot + 1], &k->weights[slot], (k->n - slot) * sizeof(k->weights[0]));
    k->kept[slot] = *f;
    k->weights[slot] = ls_fnd_weight_of(f);
    k->n++;
}

/* Each row of q a candidate, as its columns say; r->fires decides. */
static int gather_rows(ls_store *s, const ls_findings_scope *sc, const finding_rule *r,
                       const rule_fields *rf, ls_stmt *q, keeper *k)
{
    int rc;
    (void)s;
    (void)sc;
    while ((rc = ls_stmt_step(q)) == 1) {
        finding f;
        size_t slot;
        if (!r->fires(q, rf))
            continue;
        slot = ls_fnd_keeper_slot(k, ls_stmt_isnull(q, COL_WEIGHT) ? 0.0
                                                                  : ls_stmt_double(q, COL_WEIGHT));
        if (slot >= k->limit)
            continue;
        if ((rc = finding_read(&f, r, rf, q)) != 0)
            return rc;
        ls_fnd_keeper_put(k, slot, &f);
    }
    return rc < 0 ? rc : 0;
}

/* ---- serial_capacity: the transactions that wanted each row ---- */

/* Each row of SERIAL_ROWS with its window (its logged waits' span). */
#define SR_COLS(X, Q)                   \
    X(Q, row_id, "r0.row_id")           \
    X(Q, first_ts, "r0.first_ts")       \
    X(Q, last_ts, "r0.last_ts")
LS_COLUMNS(srq, SR_COLS);
static const char serial_rows_sql[] =
    "WITH " SERIAL_ROWS " SELECT " LS_SELECT_LIST(srq, SR_COLS) " FROM r0 ORDER BY r0.row_id";
/* A hold's row, transaction, times and their ranges (the holds view's
 * coalesce and length are done in C: 26 SQLite VM steps a hold through
 * the view, 11 so). */
#define SH_COLS(X, Q)                 \
    X(Q, row_id, "h.row_id")          \
    X(Q, tx_id, "h.tx_id")            \
    X(Q, start_ts, "h.start_ts")      \
    X(Q, start_lo, "h.start_lo")      \
    X(Q, start_hi, "h.start_hi")      \
    X(Q, end_ts, "h.end_ts")          \
    X(Q, end_lo, "h.end_lo")          \
    X(Q, end_hi, "h.end_hi")
LS_COLUMNS(shq, SH_COLS);
/* Every hold, in hold order. Whether its transaction is tied up in a
 * deadlock on its row (the rule's query above says why it is left out)
 * is looked up in C among temp.serial_tied's pairs (serial_tied()): an
 * EXISTS on temp.serial_tied for every hold was 9.84 M of the
 * statement's SQLite VM steps at 1 GiB. */
static const char serial_holds_sql[] =
    "SELECT " LS_SELECT_LIST(shq, SH_COLS) " FROM hold_final h ORDER BY h.hold_id";
/* Each row and transaction that waited for it, once, with the
 * transaction's hold of the row if it has one (a hold is one per
 * transaction and row: docs/store.md), in SH_COLS' places: its
 * transaction counted surely, and once, with its hold. */
#define SW_COLS(X, Q)                 \
    X(Q, row_id, "w.row_id")          \
    X(Q, tx_id, "w.tx")               \
    X(Q, start_ts, "h.start_ts")      \
    X(Q, start_lo, "h.start_lo")      \
    X(Q, start_hi, "h.start_hi")      \
    X(Q, end_ts, "h.end_ts")          \
    X(Q, end_lo, "h.end_lo")          \
    X(Q, end_hi, "h.end_hi")          \
    X(Q, held, "h.hold_id IS NOT NULL")
LS_COLUMNS(swq, SW_COLS);
_Static_assert((int)swq_start_ts == (int)shq_start_ts && (int)swq_end_ts == (int)shq_end_ts,
               "serial_inside reads a waiter's hold in SH_COLS' places");
static const char serial_waits_sql[] =
    "SELECT " LS_SELECT_LIST(swq, SW_COLS)
    " FROM (SELECT w.row_id AS row_id, w.waiter_tx AS tx FROM lock_waits w"
    "  WHERE w.row_id IS NOT NULL AND w.waiter_tx IS NOT NULL"
    /* a quiet row's statements queued below deadlock_timeout (SERIAL_ROWS) */
    "  UNION SELECT rw.row_id, rw.tx_id FROM row_waits rw WHERE rw.kind = 'inferred'"
    "  AND rw.tx_id IS NOT NULL AND rw.row_id IN (SELECT r.row_id FROM rows r WHERE "
    COUNTER_QUIET ")) w"
    " LEFT JOIN hold_final h ON h.tx_id = w.tx AND h.row_id = w.row_id";
#define SERIAL_WANT_PARAMS(X, Q) X(Q, row) X(Q, wanting) X(Q, wanting_hi) X(Q, tied) X(Q, mw)
LS_PARAMS(swp, SERIAL_WANT_PARAMS);
static const char serial_want_sql[] =
    "INSERT INTO temp.serial_want(row_id, wanting, wanting_hi, tied, mw)"
    " VALUES (:row, :wanting, :wanting_hi, :tied, :mw)";
/* The transactions tied up in a deadlock on a row: the waiter of a wait
 * for it that ended in a deadlock, and the holder it waited for. */
static const char serial_tied_sql[] =
    "INSERT OR IGNORE INTO temp.serial_tied(row_id, tx_id)"
    " SELECT w.row_id, w.waiter_tx FROM lock_waits w WHERE w.outcome = 'deadlock'"
    "  AND w.row_id IS NOT NULL AND w.waiter_tx IS NOT NULL"
    " UNION SELECT w.row_id, w.holder_tx FROM lock_waits w WHERE w.outcome = 'deadlock'"
    "  AND w.row_id IS NOT NULL AND w.holder_tx IS NOT NULL";
/* temp.serial_tied's pairs, in its key's order (serial_tied_read). */
static const char serial_tied_read_sql[] =
    "SELECT row_id, tx_id FROM temp.serial_tied ORDER BY row_id, tx_id";
enum { STR_ROW_ID, STR_TX_ID };
#define SERIAL_WANT_TABLE                                                               \
    "CREATE TEMP TABLE IF NOT EXISTS serial_want(row_id INTEGER PRIMARY KEY,"           \
    " wanting INTEGER, wanting_hi INTEGER, tied INTEGER, mw REAL);"                   \
    " DELETE FROM temp.serial_want;"                                                    \
    " CREATE TEMP TABLE IF NOT EXISTS serial_tied(row_id INTEGER, tx_id INTEGER,"       \
    " PRIMARY KEY (row_id, tx_id)) WITHOUT ROWID; DELETE FROM temp.serial_tied;"

typedef struct serial_row {
    int64_t row_id, first_ts, last_ts;
    int first_null, last_null;
    int64_t wanting, wanting_hi; /* transactions surely, possibly inside */
    int64_t tied;                /* those tied up in a deadlock on it, surely inside */
    double sum_ms;               /* of the holds surely inside, in hold order */
    int64_t n_ms;
} serial_row;

/* The (row, transaction) pairs of temp.serial_tied, sorted. */
typedef struct serial_pair {
    int64_t row_id, tx_id;
} serial_pair;
typedef struct serial_pairs {
    serial_pair *v;
    size_t n;
} serial_pairs;

/* Read temp.serial_tied (filled) into *t. 0 or an error code. */
static int serial_tied_read(ls_store *s, serial_pairs *t)
{
    ls_stmt *q = NULL;
    size_t cap = 0;
    int rc;
    if ((rc = ls_store_prepare(s, serial_tied_read_sql, &q)) != 0)
        return rc;
    while ((rc = ls_stmt_step(q)) == 1) {
        if (t->n == cap) {
            serial_pair *g = realloc(t->v, (cap = cap ? cap * 2 : 64) * sizeof(*g));
            if (!g) {
                rc = LS_ENOMEM;
                break;
            }
            t->v = g;
        }
        t->v[t->n].row_id = ls_stmt_int64(q, STR_ROW_ID);
        t->v[t->n].tx_id = ls_stmt_int64(q, STR_TX_ID);
        t->n++;
    }
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

/* Whether the transaction in column tx_col of q is tied up in a deadlock
 * on row row_id (a NULL transaction never is). */
static int serial_tied(const serial_pairs *t, int64_t row_id, ls_stmt *q, int tx_col)
{
    size_t lo = 0, hi = t->n;
    int64_t tx;
    if (t->n == 0 || ls_stmt_isnull(q, tx_col))
        return 0;
    tx = ls_stmt_int64(q, tx_col);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const serial_pair *p = &t->v[mid];
        if (p->row_id == row_id && p->tx_id == tx)
            return 1;
        if (p->row_id < row_id || (p->row_id == row_id && p->tx_id < tx))
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

static serial_row *serial_find(serial_row *rows, size_t n, int64_t row_id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rows[mid].row_id == row_id)
            return &rows[mid];
        if (rows[mid].row_id < row_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* A time of a hold: column col of q, else (NULL) column dflt (the holds
 * view's coalesce(start_lo, start_ts) and the like); *null when both are
 * NULL. */
static int64_t serial_ts(ls_stmt *q, int col, int dflt, int *null)
{
    if (!ls_stmt_isnull(q, col))
        return ls_stmt_int64(q, col);
    if (!ls_stmt_isnull(q, dflt))
        return ls_stmt_int64(q, dflt);
    *null = 1;
    return 0;
}

/* SQL's `start <= w1 AND end >= w0` over a hold's start and end columns
 * of q (their ranges' ends, as the holds view gives them; SH_COLS'
 * places) and row r's window, as true (NULL is not). */
static int serial_inside(ls_stmt *q, int start_col, int end_col, const serial_row *r)
{
    int null = 0;
    int64_t start = serial_ts(q, start_col, shq_start_ts, &null);
    int64_t end = serial_ts(q, end_col, shq_end_ts, &null);
    return !null && !r->first_null && !r->last_null && start <= r->last_ts &&
           end >= r->first_ts;
}

/* Read the rows (serial_rows_sql, bound as the rule) into *rows. */
static int serial_rows_read(ls_store *s, const finding_rule *r, const ls_findings_scope *sc,
                            serial_row **rows, size_t *n)
{
    ls_stmt *q = NULL;
    size_t cap = 0;
    int rc;
    if ((rc = ls_store_prepare_vocab(s, serial_rows_sql, LS_PARAM_NAMES(RULE_PARAMS), &q)) != 0)
        return rc;
    if ((rc = bind_rule(s, q, r, sc)) != 0) {
        ls_stmt_finalize(q);
        return rc;
    }
    while ((rc = ls_stmt_step(q)) == 1) {
        serial_row *x;
        if (*n == cap) {
            serial_row *g = realloc(*rows, (cap = cap ? cap * 2 : 64) * sizeof(*g));
            if (!g) {
                rc = LS_ENOMEM;
                break;
            }
            *rows = g;
        }
        x = &(*rows)[(*n)++];
        memset(x, 0, sizeof(*x));
        x->row_id = ls_stmt_int64(q, srq_row_id);
        x->first_null = ls_stmt_isnull(q, srq_first_ts);
        x->last_null = ls_stmt_isnull(q, srq_last_ts);
        x->first_ts = ls_stmt_int64(q, srq_first_ts);
        x->last_ts = ls_stmt_int64(q, srq_last_ts);
    }
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

/* Count the rows' holds (each transaction's one hold of a row), sum the
 * lengths of those surely inside, then count each waiting transaction
 * its hold did not already count. Memory: the rows alone. */
static int serial_count(ls_store *s, serial_row *rows, size_t nrows)
{
    ls_stmt *q = NULL;
    serial_pairs tied = {NULL, 0};
    int rc;
    if ((rc = serial_tied_read(s, &tied)) != 0 ||
        (rc = ls_store_prepare(s, serial_holds_sql, &q)) != 0) {
        free(tied.v);
        return rc;
    }
    while ((rc = ls_stmt_step(q)) == 1) {
        serial_row *x = serial_find(rows, nrows, ls_stmt_int64(q, shq_row_id));
        int sure;
        if (!x)
            continue;
        sure = serial_inside(q, shq_start_hi, shq_end_lo, x);
        if (serial_tied(&tied, x->row_id, q, shq_tx_id)) { /* in neither the demand nor the mean */
            x->tied += sure;
            continue;
        }
        if (sure && !ls_stmt_isnull(q, shq_start_ts) && !ls_stmt_isnull(q, shq_end_ts)) {
            /* SQL's (end_ts - start_ts) / 1000.0 */
            x->sum_ms +=
                (double)(ls_stmt_int64(q, shq_end_ts) - ls_stmt_int64(q, shq_start_ts)) / 1000.0;
            x->n_ms++;
        }
        if (ls_stmt_isnull(q, shq_tx_id))
            continue;
        x->wanting += sure;
        x->wanting_hi += serial_inside(q, shq_start_lo, shq_end_hi, x);
    }
    ls_stmt_finalize(q);
    q = NULL;
    if (rc < 0 || (rc = ls_store_prepare(s, serial_waits_sql, &q)) != 0) {
        free(tied.v);
        return rc;
    }
    while ((rc = ls_stmt_step(q)) == 1) {
        serial_row *x = serial_find(rows, nrows, ls_stmt_int64(q, swq_row_id));
        int held;
        if (!x)
            continue;
        held = (int)ls_stmt_int64(q, swq_held);
        if (serial_tied(&tied, x->row_id, q, swq_tx_id)) {
            x->tied += !held || !serial_inside(q, swq_start_hi, swq_end_lo, x);
            continue;
        }
        if (!held || !serial_inside(q, swq_start_hi, swq_end_lo, x))
            x->wanting++;
        if (!held || !serial_inside(q, swq_start_lo, swq_end_hi, x))
            x->wanting_hi++;
    }
    ls_stmt_finalize(q);
    free(tied.v);
    return rc < 0 ? rc : 0;
}

/* Each row's counts and mean hold surely inside into temp.serial_want. */
static int serial_want_write(ls_store *s, const serial_row *rows, size_t nrows)
{
    ls_stmt *ins = NULL;
    size_t i;
    int rc;
    if ((rc = ls_store_prepare_params(s, serial_want_sql, LS_PARAM_NAMES(SERIAL_WANT_PARAMS),
                                      &ins)) != 0)
        return rc;
    for (i = 0; rc >= 0 && i < nrows; i++) {
        ls_stmt_reset(ins);
        if ((rc = ls_stmt_bind_int64(ins, LS_PARAM(swp, row), rows[i].row_id)) != 0 ||
            (rc = ls_stmt_bind_int64(ins, LS_PARAM(swp, wanting), rows[i].wanting)) != 0 ||
            (rc = ls_stmt_bind_int64(ins, LS_PARAM(swp, wanting_hi), rows[i].wanting_hi)) != 0 ||
            (rc = ls_stmt_bind_int64(ins, LS_PARAM(swp, tied), rows[i].tied)) != 0 ||
            (rc = rows[i].n_ms > 0 ? ls_stmt_bind_double(ins, LS_PARAM(swp, mw),
                                                         rows[i].sum_ms / (double)rows[i].n_ms)
                                   : ls_stmt_bind_null(ins, LS_PARAM(swp, mw))) != 0)
            break;
        rc = ls_stmt_step(ins);
    }
    ls_stmt_finalize(ins);
    return rc < 0 ? rc : 0;
}

/*
 * serial_capacity: the transactions that wanted each of its rows
 * (SERIAL_ROWS) within the row's window, each once, and the mean length
 * of the holds surely inside it, counted in C into temp.serial_want (one
 * scan of the holds in hold order, then of the distinct waiters with
 * their holds), which the rule's query q joins. The SQL it replaced (a
 * GROUP BY of every hold and wait with two count(DISTINCT)) was 24.3 M
 * SQLite VM steps of the findings pass's 57 M at 1 GiB. A transaction
 * tied up in a deadlock on the row (temp.serial_tied, filled first) is
 * counted apart (tied), in neither the demand nor the mean. Then q's
 * rows as gather_rows reads them.
 */
static int gather_serial(ls_store *s, const ls_findings_scope *sc, const finding_rule *r,
                         const rule_fields *rf, ls_stmt *q, keeper *k)
{
    serial_row *rows = NULL;
    size_t nrows = 0;
    int rc = serial_rows_read(s, r, sc, &rows, &nrows);
    /* no row with the floor of waits (most logs): no scan of the holds */
    if (rc == 0 && nrows > 0)
        rc = ls_store_exec(s, serial_tied_sql);
    if (rc == 0 && nrows > 0)
        rc = serial_count(s, rows, nrows);
    if (rc == 0)
        rc = serial_want_write(s, rows, nrows);
    free(rows);
    return rc != 0 ? rc : gather_rows(s, sc, r, rf, q, k);
}

/*
 * Run rule r over the scope and append the findings it names (its
 * heaviest, r->limit at most, in the order found among equals) to
 * out[*n..], numbering them from *n. 0 or an error.
 */
static int run_rule(ls_store *s, const finding_rule *r, const ls_findings_scope *sc,
                    ls_buf *sql, finding *out, size_t *n)
{
    keeper k;
    rule_fields rf;
    ls_stmt *q = NULL;
    size_t i;
    int rc;

    if (parse_fields(r->fields, &rf) != 0 || r->limit > MAX_KEPT)
        return LS_ERR;
    ls_fnd_expand(sql, r->sql, sc->label_sql);
    if (ls_buf_failed(sql))
        return LS_ENOMEM;
    if ((rc = ls_store_prepare_vocab(s, ls_buf_str(sql), LS_PARAM_NAMES(RULE_PARAMS), &q)) != 0)
        return rc;
    k.n = 0;
    k.limit = r->limit;
    if ((rc = bind_rule(s, q, r, sc)) == 0)
        rc = (r->gather ? r->gather : gather_rows)(s, sc, r, &rf, q, &k);
    ls_stmt_finalize(q);
    for (i = 0; i < k.n; i++) {
        if (rc < 0) {
            ls_fnd_finding_free(&k.kept[i]);
            continue;
        }
        k.kept[i].seq = *n;
        out[(*n)++] = k.kept[i];
    }
    return rc;
}

/* ---- writing ---- */

int ls_fnd_bind_value(ls_stmt *q, int idx, const value *v, char kind)
{
    if (v->null)
        return ls_stmt_bind_null(q, idx);
    if (kind == 's')
        return ls_stmt_bind_text(q, idx, v->s);
    if (kind == 'i')
        return ls_stmt_bind_int64(q, idx, v->i);
    return ls_stmt_bind_double(q, idx, v->d);
}

LS_TABLE_COLUMNS(findings);
LS_TABLE_COLUMNS(finding_fields);

/* Insert finding f (id, its place in the report) with its fields. */
static int write_finding(ls_stmt *ins, ls_stmt *fins, const finding *f, int64_t id,
                         const char *grouping)
{
    int i, rc;
    if ((rc = ls_stmt_bind_int64(ins, LS_PARAM(findings, finding_id), id)) != 0 ||
        (rc = ls_stmt_bind_text(ins, LS_PARAM(findings, grouping), grouping)) != 0 ||
        (rc = ls_stmt_bind_int64(ins, LS_PARAM(findings, seq), id)) != 0 ||
        (rc = ls_stmt_bind_text(ins, LS_PARAM(findings, rule), f->rule->rule)) != 0 ||
        (rc = ls_fnd_bind_value(ins, LS_PARAM(findings, weight_ms), &f->weight, 'm')) != 0 ||
        (rc = ls_fnd_bind_value(ins, LS_PARAM(findings, title), &f->title, 's')) != 0 ||
        (rc = ls_fnd_bind_value(ins, LS_PARAM(findings, evidence), &f->evidence, 's')) != 0 ||
        (rc = ls_stmt_bind_text(ins, LS_PARAM(findings, fix), f->rule->fix)) != 0)
        return rc;
    rc = ls_stmt_step(ins);
    ls_stmt_reset(ins);
    for (i = 0; rc >= 0 && i < f->fields.n; i++) {
        if (f->fields.f[i].kind == 'x')
            continue; /* the decision's alone */
        if ((rc = ls_stmt_bind_int64(fins, LS_PARAM(finding_fields, finding_id), id)) != 0 ||
            (rc = ls_stmt_bind_int64(fins, LS_PARAM(finding_fields, pos), i)) != 0 ||
            (rc = ls_stmt_bind_text(fins, LS_PARAM(finding_fields, name),
                                    f->fields.f[i].name)) != 0 ||
            (rc = ls_stmt_bind_text(fins, LS_PARAM(finding_fields, kind),
                                    (char[]){f->fields.f[i].kind, 0})) != 0 ||
            (rc = ls_fnd_bind_value(fins, LS_PARAM(finding_fields, value), &f->f[i],
                                    f->fields.f[i].kind)) != 0)
            return rc;
        rc = ls_stmt_step(fins);
        ls_stmt_reset(fins);
    }
    return rc < 0 ? rc : 0;
}

#define TEMP_TABLES                                                                     \
    "CREATE TEMP TABLE IF NOT EXISTS findings" LS_FINDINGS_COLS ";"                    \
    " CREATE TEMP TABLE IF NOT EXISTS finding_fields" LS_FINDING_FIELDS_COLS ";"       \
    " DELETE FROM temp.findings; DELETE FROM temp.finding_fields;"

static int write_all(ls_store *s, const ls_findings_scope *sc, const finding *all, size_t n)
{
    ls_stmt *ins = NULL, *fins = NULL;
    size_t i;
    int rc;

    if (sc->temp && (rc = ls_store_exec(s, TEMP_TABLES)) != 0)
        return rc;
    rc = ls_store_prepare(s,
                          sc->temp ? LS_INSERT_INTO_IN("INSERT", "temp.", findings)
                                   : LS_INSERT_INTO_IN("INSERT", "main.", findings),
                          &ins);
    if (rc == 0)
        rc = ls_store_prepare(s,
                              sc->temp ? LS_INSERT_INTO_IN("INSERT", "temp.", finding_fields)
                                       : LS_INSERT_INTO_IN("INSERT", "main.", finding_fields),
                              &fins);
    for (i = 0; rc == 0 && i < n; i++)
        rc = write_finding(ins, fins, &all[i], (int64_t)i + 1, sc->grouping);
    ls_stmt_finalize(ins);
    ls_stmt_finalize(fins);
    return rc;
}

int ls_findings_write(ls_store *s, const ls_findings_scope *sc)
{
    finding all[MAX_FINDINGS];
    ls_buf sql = LS_BUF_INIT(0);
    size_t n = 0, i;
    int rc = 0;

    rc = ls_deadlock_proc_rows(s);
    if (rc == 0)
        rc = ls_store_exec(s, SERIAL_WANT_TABLE); /* gather_serial's */
    for (i = 0; rc == 0 && i < NRULES; i++)
        rc = run_rule(s, &rules[i], sc, &sql, all, &n);
    ls_buf_free(&sql);
    qsort(all, n, sizeof(all[0]), by_report_order);
    if (rc == 0)
        rc = write_all(s, sc, all, n);
    for (i = 0; i < n; i++)
        ls_fnd_finding_free(&all[i]);
    return rc;
}

int ls_correlate_findings(ls_store *s, ls_correlate_stats *stats)
{
    const ls_grouping *g = ls_grouping_default();
    ls_findings_scope sc = {g->name, g->label, LS_TS_NONE, LS_TS_NONE, 0};
    (void)stats;
    return ls_findings_write(s, &sc);
}
