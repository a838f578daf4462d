/*
 * findings_int.h — what the findings pass's two files share (findings.c:
 * the rule table, the generic gathering, ordering and writing;
 * findings_sum.c: the rules that gather finer rows and sum them in C).
 */
#ifndef LS_FINDINGS_INT_H
#define LS_FINDINGS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "correlate_int.h"
#include "decide/finding.h"
#include "decide/rowid.h"
#include "decide/tolerances.h"
#include "findings.h"
#include "ls_buf.h"
#include "ls_columns.h"
#include "ls_params.h"
#include "ls_store.h"

/*
 * A duration in an evidence's printf, in ms: written between two control
 * bytes and turned into words ("1.3 s", "648 ms") by the report. Control
 * bytes cannot come from a log: every model string is cleaned of them.
 */
#define DUR "\001%%.3f\002"

/* Every gathering query's first columns; the rule's fields follow. */
enum { COL_WEIGHT, COL_TITLE, COL_EVIDENCE, COL_FIELDS };

/* The most fields a rule has, and the longest field name. */
#define MAX_FIELDS 11
#define FIELD_NAME_MAX 48
/* The most findings a rule keeps (its limit). */
#define MAX_KEPT LS_FINDING_MAX_PER_PATH

/* A rule's fields as its spec names them ("name:t,..."): t is s (text),
 * i (integer), m (ms) for the report, x for the decision alone. */
typedef struct rule_fields {
    struct {
        char name[FIELD_NAME_MAX];
        char kind;
    } f[MAX_FIELDS];
    int n;
} rule_fields;

/* Does the gathered row q (fields rf) deserve a finding? */
typedef int (*fires_fn)(ls_stmt *q, const rule_fields *rf);

struct finding_rule;
struct keeper;
/* Step the rule's query q (prepared and bound) over scope sc and offer
 * the keeper each finding that fires; 0 or an error. */
typedef int (*gather_fn)(ls_store *s, const ls_findings_scope *sc, const struct finding_rule *r,
                         const rule_fields *rf, ls_stmt *q, struct keeper *k);

typedef struct finding_rule {
    const char *rule;
    const char *fix;
    /* SQL: `%s` is the code path label over tx_code c. For gather_rows,
     * one row per candidate, columns (weight ms, title, evidence, then
     * the fields); a rule with a gather of its own reads its own. */
    const char *sql;
    const char *fields;
    fires_fn fires;            /* gather_rows' decision */
    gather_fn gather;          /* NULL: gather_rows */
    size_t limit;              /* the most findings it names */
    double min_waits;          /* bound to :min_waits where the SQL has it (0: not) */
} finding_rule;

/* A finding's value, as read from the store. */
typedef struct value {
    int null;
    int64_t i;
    double d;
    char *s;
} value;

typedef struct finding {
    const finding_rule *rule;
    rule_fields fields;
    size_t seq; /* order found: rule, then rank in its rule */
    value weight, title, evidence;
    value f[MAX_FIELDS];
} finding;

/* The findings a rule keeps: its heaviest, `limit` at most, heaviest
 * first, the first found first among equals (ls_finding_slot). */
typedef struct keeper {
    finding kept[MAX_KEPT];
    double weights[MAX_KEPT];
    size_t n, limit;
} keeper;

/* A line's place in the log as one number, file first (ls_logpos's
 * order): t's file_id and line, or its end_file and end_line. */
#define LOG_POS(t) "((coalesce(" t ".file_id, 0) << 32) + " t ".line)"
#define LOG_END_POS(t) "((coalesce(" t ".end_file, 0) << 32) + " t ".end_line)"

/* The idle rule's query: each hold idle in transaction at the head of a
 * queue, by code path (ls_fnd_gather_idle); a head whose state the holds
 * pass could not name (no durations: "unknown") with its silence's
 * evidence (decide/idlegap.h): the statement that took the row (L) and
 * the session's next (N), the waits on the holder's transaction (the
 * first one's start and log position; the longest time one waited at a
 * line between L's and N's), and whether the holder logged a wait of its
 * own between them that had not ended before the first of those was
 * logged. */
#define IDLE_COLS(X, Q)                                                                    \
    X(Q, label, "hi.label")                                                                \
    X(Q, waiter_ms, "hi.waiter_ms")                                                        \
    X(Q, unexplained_ms, "coalesce(hi.span_idle, hi.idle_ms)")                             \
    X(Q, hold_id, "hi.hold_id")                                                            \
    X(Q, hold_ms, "(hi.end_ts - hi.start_ts) / 1000.0")                                    \
    X(Q, unknown, "hi.head_state = 'unknown'")                                             \
    X(Q, span_idle_ms, "hi.span_idle")                                                     \
    X(Q, waits, "hi.waits")                                                                \
    X(Q, lock_ts, "g.l_ts")                                                                \
    X(Q, next_ts, "g.n_ts")                                                                \
    X(Q, tx_wait_ts, "tw.t_ts")                                                            \
    X(Q, logged_wait_ms, "tw.logged_ms")                                                   \
    X(Q, covered, "hi.head_state IS NULL")                                              \
    X(Q, cover_ms, "hi.cover_ms")                                                          \
    X(Q, lock_end, "sp.l_end")                                                             \
    X(Q, last_start, "sp.c_start")                                                         \
    X(Q, busy_ms, "sp.busy_ms")                                                            \
    X(Q, own_wait, "EXISTS (SELECT 1 FROM lock_wait_rows o WHERE o.pid = g.pid"            \
                   " AND o.start_ts BETWEEN g.l_ts - " LS_SQL_INT(LS_WHOLE_SECOND_US)      \
                   " AND g.n_ts + " LS_SQL_INT(LS_WHOLE_SECOND_US)                         \
                   " AND o.session_id = g.session_id AND " LOG_POS("o") " > g.l_pos"       \
                   " AND " LOG_POS("o") " < g.n_pos AND (o.end_line IS NULL"               \
                   " OR " LOG_END_POS("o") " > tw.t_pos))")
LS_COLUMNS(iq, IDLE_COLS);

/* The external call rule's query: a code path's span parts of one name
 * inside its holds of hot rows, by code path and name (ls_fnd_gather_call
 * sums the names of one call-site template): their time, how many, the
 * waiting their holds caused, and the path's time in all those holds. */
#define CALL_COLS(X, Q)                      \
    X(Q, label, "hl.label")                  \
    X(Q, name, "p.name")                     \
    X(Q, ms, "sum(p.ms)")                    \
    X(Q, holds, "count(*)")                  \
    X(Q, waiter_ms, "sum(hl.caused_ms)")     \
    X(Q, path_ms, "(SELECT sum((x.end_ts - x.start_ts) / 1000.0) FROM hl x" \
                  " WHERE x.label = hl.label)")
LS_COLUMNS(kq, CALL_COLS);

/* The counter rule's query: its candidate rows, in row order (the rows
 * with the floor of waits, ls_fnd_gather_counter reads each one's
 * writers). */
/* hot_counter_row's waits of a row: its logged waits and their time;
 * for a row the quiet-rows rule made (every wait below deadlock_timeout,
 * none logged), its statements that queued for it (rows.waited_statements,
 * rebuilt from the durations) and their time (samples/blind-dj's pages
 * id=1: 21 statements, 1.3 s), or that a lock timeout's statement named
 * before the quiet-rows rule could (LS_ROW_LOCK_ERROR, no wait logged
 * either: samples/blind-php's warehouses id=1, 163 statements queued).
 * Not a row named by a deadlock's DETAIL alone: its unlogged waits are
 * the deadlocks' (samples/deadlock-holds). */
#define COUNTER_QUIET                                                                       \
    "(coalesce(r.waits, 0) = 0 AND (instr(r.grouped_by, '" LS_QUIET_EVIDENCE "') = 1"           \
    " OR r.grouped_by = '" LS_ROW_LOCK_ERROR "'))"
#define COUNTER_WAITS "CASE WHEN " COUNTER_QUIET " THEN r.waited_statements ELSE r.waits END"
#define COUNTER_WAIT_MS                                                                     \
    "CASE WHEN " COUNTER_QUIET " THEN r.hidden_wait_ms ELSE r.total_wait_ms END"
#define COUNTER_COLS(X, Q)                   \
    X(Q, row_id, "r.row_id")                 \
    X(Q, relation, "r.relation")             \
    X(Q, row_key, "r.row_key")               \
    X(Q, waits, COUNTER_WAITS)               \
    X(Q, total_wait_ms, COUNTER_WAIT_MS)
LS_COLUMNS(cq, COUNTER_COLS);

/* Whether transaction tx held a row of relation rel (an SQL value) other
 * than row_id (a transfer between rows, not a counter's bump). */
#define OTHER_ROW_OF_RELATION(tx, row_id, rel)                                              \
    "EXISTS (SELECT 1 FROM holds o_ JOIN row_keys ro_ ON ro_.row_id = o_.row_id"            \
    " WHERE o_.tx_id = " tx " AND +o_.row_id <> " row_id " AND ro_.relation = " rel ")"

/* A writer of the counter rule's candidate row (:row, of relation :rel): a
 * transaction that held it, with the statement that took it (its
 * stmt_texts id), or one that waited for it without a hold of it (its
 * statement's text; a wait in no known transaction as -wait_id); how
 * long it held the row (NULL for a wait), whether it held another row of
 * the relation too, its code paths' set (tx_code's path_set: the scope's
 * label is read once per set, COUNTER_LABEL_SQL) and the trace of its
 * request. A wait in no known transaction (a statement under
 * log_min_duration_statement, behind a pooler) has the trace of the one
 * request whose span of the same text overlaps it (the spans' clock
 * moved onto the log's). A waiter's hold of the row is probed on
 * hold_final_tx: the row's holds (hold_final_row) are thousands on a hot
 * row (161 M VM steps for the pass on the 256 MiB bench log). Read one
 * row at a time, each writer once: no sort of every hold by its text
 * (ls_fnd_gather_counter orders a row's writers in C). The columns are
 * the holds' (WRITER_COLS); the waits' follow in the same order. */
#define WRITER_COLS(X, Q)                                                   \
    X(Q, tx, "h.tx_id")                                                     \
    X(Q, text_id, "st.text_id")                                             \
    X(Q, text, "NULL")                                                      \
    X(Q, ms, "(h.end_ts - h.start_ts) / 1000.0")                            \
    X(Q, transfer, OTHER_ROW_OF_RELATION("h.tx_id", "h.row_id", ":rel"))    \
    X(Q, path_set, "c.path_set")                                            \
    X(Q, trace_id, "c.trace_id")
LS_COLUMNS(wq, WRITER_COLS);

#define SPAN_CLOCK_US "coalesce((SELECT offset_us FROM span_clock), 0)"
#define COUNTER_WRITERS_SQL                                                                 \
    "SELECT " LS_SELECT_LIST(wq, WRITER_COLS)                                               \
    " FROM holds h JOIN stmt_rows st ON st.stmt_id = h.lock_stmt"                           \
    " LEFT JOIN tx_code_rows c ON c.tx_id = h.tx_id"                                        \
    " WHERE h.row_id = :row AND h.tx_id IS NOT NULL AND st.text_id IS NOT NULL"             \
    " UNION ALL SELECT coalesce(w.waiter_tx, -w.wait_id), NULL, w.statement, NULL,"         \
    " " OTHER_ROW_OF_RELATION("w.waiter_tx", "w.row_id", ":rel") ", c.path_set,"           \
    " CASE WHEN w.waiter_tx IS NULL THEN (SELECT CASE WHEN count(DISTINCT s.trace_id) = 1"  \
    "  THEN min(s.trace_id) END FROM spans s WHERE s.db_statement = w.statement"            \
    "  AND s.start_ts + " SPAN_CLOCK_US " <= coalesce(w.end_ts, w.start_ts)"                 \
    "  AND s.end_ts + " SPAN_CLOCK_US " >= w.start_ts) ELSE c.trace_id END, NULL"            \
    " FROM lock_waits w LEFT JOIN tx_code_rows c ON c.tx_id = w.waiter_tx"                  \
    " WHERE w.row_id = :row AND w.statement IS NOT NULL"                                    \
    " AND NOT EXISTS (SELECT 1 FROM holds h WHERE h.tx_id = w.waiter_tx"                    \
    "  AND +h.row_id = w.row_id)"
/* :rel first: the SELECT list (transfer) uses it before the WHERE */
#define COUNTER_WRITERS_PARAMS(X, Q) X(Q, rel) X(Q, row)
LS_PARAMS(cwr, COUNTER_WRITERS_PARAMS);
/* The scope's code path label (%s over tx_code c) of transaction :tx:
 * read for one transaction of each path_set, the labels of a grouping
 * being names of the set (tx_code's G_path). */
#define COUNTER_LABEL_SQL "SELECT %s FROM tx_code c WHERE c.tx_id = :tx"
#define COUNTER_LABEL_PARAMS(X, Q) X(Q, tx)
LS_PARAMS(clp, COUNTER_LABEL_PARAMS);
/* The text of a statement of the counter rule's writers (:text its id). */
#define COUNTER_TEXT_SQL "SELECT text FROM stmt_texts WHERE text_id = :text"
#define COUNTER_TEXT_PARAMS(X, Q) X(Q, text)
LS_PARAMS(ctp, COUNTER_TEXT_PARAMS);

/* The column of field `name` in a gathering row, or -1 (a rule without
 * it: a bug). */
int ls_fnd_field_col(const rule_fields *rf, const char *name);
/* Column col of q as kind (s, i, m; x is read as m) into v; -1 on no
 * memory. */
int ls_fnd_value_read(value *v, ls_stmt *q, int col, char kind);
void ls_fnd_value_free(value *v);
void ls_fnd_finding_free(finding *f);
/* Bind v (of kind s, i or m) to ?idx of q; NULL stays NULL. */
int ls_fnd_bind_value(ls_stmt *q, int idx, const value *v, char kind);
/* A finding's weight for ordering: NULL as 0. */
double ls_fnd_weight_of(const finding *f);
/* Where a finding of weight w goes among those k keeps, or k->limit when
 * it is not kept (ls_finding_slot). */
size_t ls_fnd_keeper_slot(const keeper *k, double w);
/* Put f at slot (from ls_fnd_keeper_slot, < limit), dropping the lightest
 * when full; the keeper owns f from here. */
void ls_fnd_keeper_put(keeper *k, size_t slot, finding *f);
/* SQL text with %s replaced by `label` and %% by %. */
void ls_fnd_expand(ls_buf *out, const char *sql, const char *label);

/* findings_sum.c: the idle head rule, per hold; the counter row rule,
 * per waiter's statement (gather_fn). */
int ls_fnd_gather_call(ls_store *s, const ls_findings_scope *sc, const finding_rule *r,
                       const rule_fields *rf, ls_stmt *q, keeper *k);
int ls_fnd_gather_idle(ls_store *s, const ls_findings_scope *sc, const finding_rule *r,
                       const rule_fields *rf, ls_stmt *q, keeper *k);
int ls_fnd_gather_counter(ls_store *s, const ls_findings_scope *sc, const finding_rule *r,
                       const rule_fields *rf, ls_stmt *q, keeper *k);

/* Each deadlock process's row and transaction as its DETAIL names them,
 * in temp.dl_procs (dlprocs.c), for lockorder.h's lock_cycles. */
int ls_deadlock_proc_rows(ls_store *s);

#endif
