/*
 * dlprocs.c — each deadlock process's row and transaction, as its DETAIL
 * names them (temp.dl_procs, for lockorder.h's lock_cycles).
 *
 * A deadlock's DETAIL gives each process's statement ("Process N: UPDATE
 * ... WHERE id = 3"): the row it was waiting for when its edge is a row
 * lock (ls_deadlock_names_row, the logical rows pass made the row). In a
 * cycle of two the survivor was waiting for the row the victim held: the
 * victim locked that row first, whether or not the log shows the victim's
 * earlier statement (behind a pooler with log_min_duration_statement it
 * mostly does not: blind-pool's transfers, 1 of 62 deadlocks read
 * before). The process's transaction is the one running its DETAIL
 * statement when the deadlock was written, found by that statement's
 * logged line in its session (ls_deadlock_stmt_running): on a
 * whole-second log behind a pooler the waits' holder transactions are
 * other clients' of that second as often as not. span_tx: the process's
 * transaction at the deadlock (deadlock_links) when spans.c rebuilt it
 * from the victim's request's spans (its first statement a span's). A
 * temp table: the
 * findings pass and a report's window or grouping (scope.c) read it, the
 * store's schema keeps none of it.
 *
 * temp.dl_self: the deadlocks whose DETAIL alone shows rows locked in
 * inconsistent order (ls_finding_detail_cycle: every process waits for a
 * row lock running one statement that locks rows), with the relation
 * that statement locks and each transaction of the cycle known (a
 * process's DETAIL transaction, the victim's wait's waiter and holder),
 * for lock_cycles to name by their code paths where it read no pair
 * from the rows (samples/blind-rb: a threshold log, none of its 13
 * deadlocks' victims has a transaction); a cycle with none known keeps
 * one row, tx_id NULL (samples/blind-zk's log alone: log_statement =
 * 'mod' logs neither the FOR UPDATE nor a BEGIN).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "correlate_int.h"
#include "decide/finding.h"
#include "decide/rowid.h"
#include "decide/tolerances.h"
#include "decide/victim.h"
#include "findings_int.h"
#include "lockorder.h"
#include "ls_columns.h"
#include "ls_params.h"
#include "ls_sqlshape.h"
#include "rowkey.h"

static const char create_sql[] =
    "CREATE TEMP TABLE IF NOT EXISTS dl_procs(deadlock_id INTEGER, pid INTEGER,"
    " row_id INTEGER, tx_id INTEGER, span_tx INTEGER, PRIMARY KEY(deadlock_id, pid));"
    "DELETE FROM temp.dl_procs;"
    /* the processes lock_cycles reads a side of (lc_v's xv and xs): each
     * deadlock's victim and the holder of the victim's wait lc_d gives it;
     * a longer cycle's other processes are read by no one, and their
     * lookups were 2 in 5 of this pass's on a pgbench log */
    LS_DL_SELF_DDL
    "DELETE FROM temp.dl_self;"
    LS_LOCK_CYCLES_VICTIMS_SQL /* the victims' waits, once for the pass's three readers */
    "DROP TABLE IF EXISTS temp.dl_sides;"
    "CREATE TEMP TABLE dl_sides(deadlock_id INTEGER, pid INTEGER,"
    " PRIMARY KEY(deadlock_id, pid)) WITHOUT ROWID;"
    "WITH " LS_LOCK_CYCLES_WAITS("1") " INSERT OR IGNORE INTO temp.dl_sides"
    " SELECT deadlock_id, pid FROM lc_d WHERE pid IS NOT NULL UNION ALL"
    " SELECT d.deadlock_id, l.holder_pid FROM lc_d d JOIN wait_links l ON l.wait_id = d.wait_id"
    " WHERE l.holder_pid IS NOT NULL;";

/* Each deadlock's processes, the victim first, with its edge's kind and
 * its DETAIL statement (NULL: none read). */
#define SELF_COLS(X, Q)                                                          \
    X(Q, deadlock_id, "d.deadlock_id")                                           \
    X(Q, pid, "p.pid")                                                           \
    X(Q, text_id, "p.text_id")                                                   \
    X(Q, text, "(SELECT t.text FROM stmt_texts t WHERE t.text_id = p.text_id)")  \
    X(Q, edge_kind, "(SELECT e.target_kind FROM deadlock_edges e"                \
                    " WHERE e.deadlock_id = p.deadlock_id AND e.waiter_pid = p.pid" \
                    " ORDER BY e.seq LIMIT 1)")
LS_COLUMNS(slq, SELF_COLS);
static const char self_sql[] =
    "SELECT " LS_SELECT_LIST(slq, SELF_COLS) " FROM deadlocks d JOIN deadlock_procs p"
    " ON p.deadlock_id = d.deadlock_id ORDER BY d.deadlock_id, p.pid IS NOT d.victim_pid, p.rowid";
static const char self_insert_sql[] =
    "INSERT INTO temp.dl_self(deadlock_id, relation) VALUES (:deadlock, :relation)";
static const char self_sides_sql[] =
    "INSERT OR IGNORE INTO temp.dl_sides SELECT deadlock_id, pid FROM deadlock_procs"
    " WHERE deadlock_id IN (SELECT deadlock_id FROM temp.dl_self) AND pid IS NOT NULL";
#define SELF_PARAMS(X, Q) X(Q, deadlock) X(Q, relation)
LS_PARAMS(sfp, SELF_PARAMS);
/* Each cycle's transactions: its processes' (dl_procs, filled after) and,
 * unless the log's times are whole seconds (a pooled backend's wait is
 * then linked to another client's transaction of that second as often as
 * not: lockorder.h), its victim's wait's waiter and holder when the
 * holder is of the cycle (lc_d's wait, as lock_cycles reads it). */
static const char self_tx_sql[] =
    "INSERT INTO temp.dl_self SELECT s.deadlock_id, s.relation, t.tx FROM temp.dl_self s"
    " JOIN (SELECT deadlock_id, tx_id AS tx FROM temp.dl_procs UNION"
    " SELECT deadlock_id, span_tx FROM temp.dl_procs) t ON t.deadlock_id = s.deadlock_id"
    " WHERE s.tx_id IS NULL AND t.tx IS NOT NULL;";
static const char self_wait_tx_sql[] = LS_DL_SELF_WAIT_TX_SQL;
/* A cycle with a known transaction is named by those; one with none keeps
 * its row without (lock_cycles names it by no code path). */
static const char self_done_sql[] =
    "DELETE FROM temp.dl_self WHERE tx_id IS NULL AND deadlock_id IN"
    " (SELECT deadlock_id FROM temp.dl_self WHERE tx_id IS NOT NULL);";

/* One deadlock's processes as self_sql reads them, to decide. */
typedef struct self_acc {
    int64_t deadlock, procs, row_edges, same, text_id;
    char stmt[4096];
} self_acc;

/* Keep acc's deadlock in temp.dl_self when its DETAIL shows one statement
 * locking rows in inconsistent order (ls_finding_detail_cycle). */
static int self_flush(ls_stmt *ins, const self_acc *a)
{
    char rel[256];
    int rc;
    if (!a->procs ||
        !ls_finding_detail_cycle(a->procs, a->row_edges, a->same, a->text_id ? a->stmt : NULL) ||
        !ls_sql_relation(a->stmt, rel, sizeof(rel)))
        return 0;
    ls_stmt_reset(ins);
    if ((rc = ls_stmt_bind_int64(ins, LS_PARAM(sfp, deadlock), a->deadlock)) != 0 ||
        (rc = ls_stmt_bind_text(ins, LS_PARAM(sfp, relation), rel)) != 0)
        return rc;
    rc = ls_stmt_step(ins);
    ls_stmt_reset(ins);
    return rc < 0 ? rc : 0;
}

/* The deadlocks of temp.dl_self, their processes made sides. */
static int self_cycles(ls_store *s)
{
    ls_stmt *q = NULL, *ins = NULL;
    self_acc a;
    int rc;

    memset(&a, 0, sizeof(a));
    if ((rc = ls_store_prepare(s, self_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, self_insert_sql, LS_PARAM_NAMES(SELF_PARAMS), &ins)) !=
            0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        int64_t id = ls_stmt_int64(q, slq_deadlock_id);
        const char *kind = ls_stmt_text_or_null(q, slq_edge_kind);
        if (id != a.deadlock || !a.procs) {
            if ((rc = self_flush(ins, &a)) != 0)
                goto out;
            memset(&a, 0, sizeof(a));
            a.deadlock = id;
            a.text_id = ls_stmt_isnull(q, slq_text_id) ? 0 : ls_stmt_int64(q, slq_text_id);
            if (a.text_id)
                snprintf(a.stmt, sizeof(a.stmt), "%s", ls_stmt_text_or_null(q, slq_text) ?
                         ls_stmt_text_or_null(q, slq_text) : "");
        }
        a.procs++;
        a.row_edges += kind && ls_is_row_lock(kind);
        /* the victim's statement by its text, or its shape (an ORM's
         * values written into the text: ls_finding_same_stmt) */
        a.same += a.text_id && !ls_stmt_isnull(q, slq_text_id) &&
                  (ls_stmt_int64(q, slq_text_id) == a.text_id ||
                   ls_finding_same_stmt(a.stmt, ls_stmt_text_or_null(q, slq_text)));
    }
    if (rc >= 0)
        rc = self_flush(ins, &a);
    if (rc >= 0)
        rc = ls_store_exec(s, self_sides_sql);
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(ins);
    return rc < 0 ? rc : 0;
}

/* Each process with its edge (one: a process waits for one lock), its
 * DETAIL text, the deadlock's time and the process's session. */
#define PROC_COLS(X, Q)                                                     \
    X(Q, deadlock_id, "p.deadlock_id")                                      \
    X(Q, pid, "p.pid")                                                      \
    X(Q, text_id, "p.text_id")                                              \
    X(Q, text, "(SELECT t.text FROM stmt_texts t WHERE t.text_id = p.text_id)") \
    X(Q, edge_kind, "e.target_kind")                                        \
    X(Q, ts, "d.ts")                                                        \
    X(Q, session_id, "l.session_id")                                        \
    X(Q, span_tx, "(SELECT t.tx_id FROM transactions t JOIN stmt_rows f"    \
                  " ON f.stmt_id = t.first_stmt WHERE t.tx_id = l.tx_id AND f.verb IS 5)")
LS_COLUMNS(pq, PROC_COLS);
static const char procs_sql[] =
    "SELECT " LS_SELECT_LIST(pq, PROC_COLS) " FROM deadlock_procs p"
    " JOIN deadlocks d ON d.deadlock_id = p.deadlock_id"
    " JOIN deadlock_edges e ON e.deadlock_id = p.deadlock_id AND e.waiter_pid = p.pid"
    " LEFT JOIN deadlock_links l ON l.deadlock_id = p.deadlock_id AND l.pid = p.pid"
    " WHERE p.text_id IS NOT NULL AND d.ts IS NOT NULL AND EXISTS (SELECT 1"
    " FROM temp.dl_sides n WHERE n.deadlock_id = p.deadlock_id AND n.pid = p.pid)"
    " ORDER BY p.rowid, e.seq";

/* The row of :relation keyed :key. */
static const char find_row_sql[] =
    "SELECT row_id FROM row_keys WHERE relation = :relation AND row_key = :key";
#define FIND_ROW_PARAMS(X, Q) X(Q, relation) X(Q, key)
LS_PARAMS(frp, FIND_ROW_PARAMS);

/* The session's (:session) latest statements begun by :ts + :res (the
 * deadlock's time and the log's resolution; statements_session): the
 * running one is among them. */
#define STMT_COLS(X, Q)                                                      \
    X(Q, stmt_id, "stmt_id")                                                 \
    X(Q, text_id, "text_id")                                                 \
    X(Q, start_ts, "start_ts")                                               \
    X(Q, end_ts, "CASE WHEN dur_us IS NULL THEN -1 ELSE start_ts + dur_us END")
LS_COLUMNS(sq, STMT_COLS);
static const char stmts_sql[] =
    "SELECT " LS_SELECT_LIST(sq, STMT_COLS) " FROM stmt_rows WHERE session_id = :session"
    " AND start_ts <= :ts + :res AND verb IS NOT 2 AND verb IS NOT 5" /* parse, span */
    " ORDER BY start_ts DESC LIMIT " LS_SQL_INT(LS_POS_CANDIDATES_WHOLE);
#define STMTS_PARAMS(X, Q) X(Q, session) X(Q, ts) X(Q, res)
LS_PARAMS(stp, STMTS_PARAMS);
/* The parameters of the one found (issue 38: read with each candidate,
 * a parameter list's reference followed for each, where most processes'
 * statements are not among them, they were a fifth of stmts_sql's 6.5 M
 * SQLite VM steps at 1 GiB). */
#define STMT_ARGS_COLS(X, Q)                                                 \
    X(Q, params, LS_STMT_REF("stmt_rows", "params"))                          \
    X(Q, prepare, "prepare")
LS_COLUMNS(sa, STMT_ARGS_COLS);
static const char stmt_args_sql[] =
    "SELECT " LS_SELECT_LIST(sa, STMT_ARGS_COLS) " FROM stmt_rows WHERE stmt_id = :id";
#define STMT_ARGS_PARAMS(X, Q) X(Q, id)
LS_PARAMS(sap, STMT_ARGS_PARAMS);

/* The session's (:session) transaction holding statement :stmt
 * (transactions_session_stmt), the latest begun by it ... */
static const char tx_of_sql[] =
    "SELECT tx_id FROM transactions WHERE session_id = :session AND first_stmt <= :stmt"
    " ORDER BY first_stmt DESC LIMIT 1";
#define TX_OF_PARAMS(X, Q) X(Q, session) X(Q, stmt)
LS_PARAMS(txo, TX_OF_PARAMS);
/* ... when transaction :tx ran to statement :stmt at least. */
static const char tx_last_sql[] =
    "SELECT last_stmt >= :stmt FROM transactions WHERE tx_id = :tx";
#define TX_LAST_PARAMS(X, Q) X(Q, stmt) X(Q, tx)
LS_PARAMS(txl, TX_LAST_PARAMS);

static const char insert_sql[] =
    "INSERT OR IGNORE INTO temp.dl_procs(deadlock_id, pid, row_id, tx_id, span_tx)"
    " VALUES (:deadlock, :pid, :row, :tx, :span_tx)";
#define INSERT_PARAMS(X, Q) X(Q, deadlock) X(Q, pid) X(Q, row) X(Q, tx) X(Q, span_tx)
LS_PARAMS(dip, INSERT_PARAMS);

typedef struct dp_q {
    ls_stmt *row, *stmts, *args, *tx, *last, *ins;
    int64_t res;
} dp_q;

/* The row process q's DETAIL statement waited for, or 0. The DETAIL's
 * statement has no parameters: those of the process's logged statement
 * running it (params, prepare: NULL when none was found, proc_stmt, or
 * the log's times are whole seconds) key it, as the logical rows pass did
 * (holds.c, deadlock_names). */
static int proc_row(dp_q *c, ls_stmt *q, const char *params, const char *prepare,
                    int64_t *row)
{
    ls_rowkey_evidence ev;
    ls_rowkey k;
    int keyed, rc;

    *row = 0;
    memset(&ev, 0, sizeof(ev));
    memset(&k, 0, sizeof(k));
    ev.statement = ls_stmt_text_or_null(q, pq_text);
    ev.params = params;
    ev.prepare = prepare;
    keyed = ev.statement && ls_rowkey_of(&ev, &k);
    if (!ls_deadlock_names_row(ls_stmt_text_or_null(q, pq_edge_kind), keyed))
        return 0;
    ls_stmt_reset(c->row);
    if ((rc = ls_stmt_bind_text(c->row, LS_PARAM(frp, relation), k.rel)) != 0 ||
        (rc = ls_stmt_bind_text(c->row, LS_PARAM(frp, key), k.key)) != 0)
        return rc;
    if ((rc = ls_stmt_step(c->row)) == 1)
        *row = ls_stmt_int64(c->row, LS_ONLY_COLUMN);
    ls_stmt_reset(c->row);
    return rc < 0 ? rc : 0;
}

/* The logged statement of process q's session running its DETAIL
 * statement when the deadlock was written (*stmt, 0: none); c->stmts is
 * reset by the caller. */
static int proc_stmt(dp_q *c, ls_stmt *q, int64_t *stmt)
{
    int64_t ts = ls_stmt_int64(q, pq_ts), text = ls_stmt_int64(q, pq_text_id);
    int rc;

    *stmt = 0;
    ls_stmt_reset(c->stmts);
    if (ls_stmt_isnull(q, pq_session_id))
        return 0;
    if ((rc = ls_stmt_bind_int64(c->stmts, LS_PARAM(stp, session),
                                 ls_stmt_int64(q, pq_session_id))) != 0 ||
        (rc = ls_stmt_bind_int64(c->stmts, LS_PARAM(stp, ts), ts)) != 0 ||
        (rc = ls_stmt_bind_int64(c->stmts, LS_PARAM(stp, res), c->res)) != 0)
        return rc;
    while ((rc = ls_stmt_step(c->stmts)) == 1)
        if (ls_stmt_int64(c->stmts, sq_text_id) == text &&
            ls_deadlock_stmt_running(ls_stmt_int64(c->stmts, sq_start_ts),
                                     ls_stmt_int64(c->stmts, sq_end_ts), ts, c->res)) {
            *stmt = ls_stmt_int64(c->stmts, sq_stmt_id);
            return 0;
        }
    return rc < 0 ? rc : 0;
}

/* The transaction running process q's DETAIL statement (its logged
 * statement stmt, proc_stmt), or 0. */
static int proc_tx(dp_q *c, ls_stmt *q, int64_t stmt, int64_t *tx)
{
    int64_t session = ls_stmt_int64(q, pq_session_id);
    int rc = 0;

    *tx = 0;
    if (!stmt)
        return 0;
    ls_stmt_reset(c->tx);
    if ((rc = ls_stmt_bind_int64(c->tx, LS_PARAM(txo, session), session)) != 0 ||
        (rc = ls_stmt_bind_int64(c->tx, LS_PARAM(txo, stmt), stmt)) != 0)
        return rc;
    if ((rc = ls_stmt_step(c->tx)) == 1) {
        int64_t id = ls_stmt_int64(c->tx, LS_ONLY_COLUMN);
        ls_stmt_reset(c->last);
        if ((rc = ls_stmt_bind_int64(c->last, LS_PARAM(txl, tx), id)) != 0 ||
            (rc = ls_stmt_bind_int64(c->last, LS_PARAM(txl, stmt), stmt)) != 0)
            return rc;
        if ((rc = ls_stmt_step(c->last)) == 1 && ls_stmt_int64(c->last, LS_ONLY_COLUMN))
            *tx = id;
        ls_stmt_reset(c->last);
    }
    ls_stmt_reset(c->tx);
    return rc < 0 ? rc : 0;
}

int ls_deadlock_proc_rows(ls_store *s)
{
    dp_q c;
    ls_stmt *q = NULL;
    int64_t res = 0;
    int rc;

    memset(&c, 0, sizeof(c));
    if ((rc = ls_store_exec(s, create_sql)) != 0 ||
        (rc = ls_correlate_log_resolution(s, &res)) != 0)
        return rc;
    c.res = res == LS_WHOLE_SECOND_US ? res : 0;
    if ((rc = self_cycles(s)) != 0)
        return rc;
    if ((rc = ls_store_prepare(s, procs_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, find_row_sql, LS_PARAM_NAMES(FIND_ROW_PARAMS), &c.row)) !=
            0 ||
        (rc = ls_store_prepare_params(s, stmts_sql, LS_PARAM_NAMES(STMTS_PARAMS), &c.stmts)) != 0 ||
        (rc = ls_store_prepare_params(s, stmt_args_sql, LS_PARAM_NAMES(STMT_ARGS_PARAMS),
                                      &c.args)) != 0 ||
        (rc = ls_store_prepare_params(s, tx_of_sql, LS_PARAM_NAMES(TX_OF_PARAMS), &c.tx)) != 0 ||
        (rc = ls_store_prepare_params(s, tx_last_sql, LS_PARAM_NAMES(TX_LAST_PARAMS), &c.last)) !=
            0 ||
        (rc = ls_store_prepare_params(s, insert_sql, LS_PARAM_NAMES(INSERT_PARAMS), &c.ins)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        int64_t row, tx, stmt;
        int args = 0;
        if ((rc = proc_stmt(&c, q, &stmt)) != 0)
            goto out;
        ls_stmt_reset(c.stmts);
        if (stmt && !c.res) {
            ls_stmt_reset(c.args);
            if ((rc = ls_stmt_bind_int64(c.args, LS_PARAM(sap, id), stmt)) != 0 ||
                (rc = ls_stmt_step(c.args)) < 0)
                goto out;
            args = rc == 1;
        }
        rc = proc_row(&c, q, args ? ls_stmt_text_or_null(c.args, sa_params) : NULL,
                      args ? ls_stmt_text_or_null(c.args, sa_prepare) : NULL, &row);
        ls_stmt_reset(c.args);
        if (rc != 0)
            goto out;
        if ((rc = proc_tx(&c, q, stmt, &tx)) != 0)
            goto out;
        if (!row && !tx && ls_stmt_isnull(q, pq_span_tx))
            continue;
        ls_stmt_reset(c.ins);
        if ((rc = ls_stmt_bind_int64(c.ins, LS_PARAM(dip, deadlock),
                                     ls_stmt_int64(q, pq_deadlock_id))) != 0 ||
            (rc = ls_stmt_bind_int64(c.ins, LS_PARAM(dip, pid), ls_stmt_int64(q, pq_pid))) != 0 ||
            (rc = row ? ls_stmt_bind_int64(c.ins, LS_PARAM(dip, row), row)
                      : ls_stmt_bind_null(c.ins, LS_PARAM(dip, row))) != 0 ||
            (rc = tx ? ls_stmt_bind_int64(c.ins, LS_PARAM(dip, tx), tx)
                     : ls_stmt_bind_null(c.ins, LS_PARAM(dip, tx))) != 0 ||
            (rc = ls_stmt_isnull(q, pq_span_tx)
                      ? ls_stmt_bind_null(c.ins, LS_PARAM(dip, span_tx))
                      : ls_stmt_bind_int64(c.ins, LS_PARAM(dip, span_tx),
                                           ls_stmt_int64(q, pq_span_tx))) != 0 ||
            (rc = ls_stmt_step(c.ins)) < 0)
            goto out;
    }
    if (rc >= 0)
        rc = ls_store_exec(s, self_tx_sql);
    if (rc >= 0 && !c.res)
        rc = ls_store_exec(s, self_wait_tx_sql);
    if (rc >= 0)
        rc = ls_store_exec(s, self_done_sql);
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(c.row);
    ls_stmt_finalize(c.stmts);
    ls_stmt_finalize(c.args);
    ls_stmt_finalize(c.tx);
    ls_stmt_finalize(c.last);
    ls_stmt_finalize(c.ins);
    return rc < 0 ? rc : 0;
}
