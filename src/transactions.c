/*
 * transactions.c — transactions rebuilt from each session's statements.
 *
 * A session's statements, in log order, are cut into transactions:
 * BEGIN/START TRANSACTION opens one, COMMIT/END/ROLLBACK/ABORT closes it,
 * and a statement outside any is a transaction of its own. Duration lines
 * give each statement's start and end; with log_statement = 'all' only
 * starts are known, so a transaction's end is the start of its COMMIT
 * ("commit start") and its idle time is unknown. A transaction still open
 * when its session disconnects ends there.
 *
 * Only sessions that took part in a wait, a deadlock or a lock error are
 * rebuilt: the report is about them, and a log can hold millions of
 * unrelated autocommit statements.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "correlate_int.h"
#include "ls_buf.h"
#include "ls_sqlshape.h"

static const char interest_sql[] =
    "DROP TABLE IF EXISTS temp.interest;"
    "CREATE TEMP TABLE interest(session_id INTEGER PRIMARY KEY);"
    "INSERT OR IGNORE INTO interest SELECT session_id FROM lock_waits WHERE session_id IS NOT NULL"
    " UNION SELECT blocker_session FROM lock_waits WHERE blocker_session IS NOT NULL"
    " UNION SELECT root_session FROM lock_waits WHERE root_session IS NOT NULL"
    " UNION SELECT session_id FROM errors WHERE class NOT IN ('other') AND session_id IS NOT NULL"
    " UNION SELECT victim_session FROM deadlocks WHERE victim_session IS NOT NULL;";

static const char statements_sql[] =
    "SELECT st.session_id, st.stmt_id, st.pid, st.start_ts, st.end_ts, st.duration_ms,"
    " st.text, st.xid, st.vxid, se.end_ts"
    " FROM statements st JOIN interest i ON i.session_id = st.session_id"
    " JOIN sessions se ON se.session_id = st.session_id"
    " ORDER BY st.session_id, st.stmt_id";

static const char insert_tx_sql[] =
    "INSERT INTO transactions(session_id, pid, xid, vxid, explicit, start_ts, start_known,"
    " end_ts, end_known, outcome, first_stmt, last_stmt, statements, sql_ms, idle_ms,"
    " max_idle_ms, commit_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,"
    " ?13, ?14, ?15, ?16, ?17)";

/* Links from waits, errors and deadlock participants to transactions. */
static const char link_sql[] =
    "CREATE INDEX IF NOT EXISTS transactions_session ON transactions(session_id, start_ts);"
    "CREATE INDEX IF NOT EXISTS transactions_xid ON transactions(xid) WHERE xid IS NOT NULL;"
    "CREATE INDEX IF NOT EXISTS errors_session ON errors(session_id, ts);"
    /* The transaction of a session that was open at time t (1 ms slack for
     * start times derived from millisecond timestamps). */
    "UPDATE lock_waits SET waiter_tx = (SELECT t.tx_id FROM transactions t"
    "  WHERE t.session_id = lock_waits.session_id AND t.start_ts <= lock_waits.start_ts + 1000"
    "  AND (t.end_ts IS NULL OR t.end_ts >= lock_waits.start_ts)"
    "  ORDER BY t.start_ts DESC LIMIT 1),"
    " waiter_stmt = (SELECT st.stmt_id FROM statements st"
    "  WHERE st.session_id = lock_waits.session_id AND st.start_ts <= lock_waits.start_ts + 1000"
    "  AND (st.end_ts IS NULL OR st.end_ts >= lock_waits.start_ts)"
    "  ORDER BY st.start_ts DESC, st.stmt_id DESC LIMIT 1);"
    /* The row lock's holder: the awaited transaction for a transaction
     * lock; for a tuple lock the queue head holds the tuple lock and waits
     * for the row's holder itself, one hop further. */
    "UPDATE lock_waits SET holder_pid = CASE WHEN target_kind = 'tuple' THEN coalesce("
    "  (SELECT h.blocker_pid FROM lock_waits h WHERE h.pid = lock_waits.blocker_pid"
    "   AND h.target_kind = 'transaction' AND h.start_ts <= lock_waits.logged_ts"
    "   AND (h.end_ts IS NULL OR h.end_ts >= lock_waits.logged_ts)"
    "   ORDER BY h.start_ts DESC LIMIT 1), blocker_pid) ELSE blocker_pid END;"
    "UPDATE lock_waits SET holder_tx = coalesce("
    "  (SELECT t.tx_id FROM transactions t WHERE t.xid = (CASE WHEN lock_waits.holder_pid ="
    "     lock_waits.blocker_pid THEN lock_waits.blocker_xid END) AND t.pid = lock_waits.holder_pid),"
    "  (SELECT t.tx_id FROM transactions t JOIN sessions se ON se.session_id = t.session_id"
    "   WHERE se.pid = lock_waits.holder_pid AND t.start_ts <= lock_waits.logged_ts"
    "   AND (t.end_ts IS NULL OR t.end_ts >= lock_waits.logged_ts)"
    "   ORDER BY t.start_ts DESC LIMIT 1));"
    "UPDATE lock_waits SET root_tx = coalesce("
    "  (SELECT t.tx_id FROM transactions t WHERE t.xid = lock_waits.root_xid"
    "   AND t.pid = lock_waits.root_pid),"
    "  (SELECT t.tx_id FROM transactions t WHERE t.session_id = lock_waits.root_session"
    "   AND t.start_ts <= lock_waits.logged_ts"
    "   AND (t.end_ts IS NULL OR t.end_ts >= lock_waits.logged_ts)"
    "   ORDER BY t.start_ts DESC LIMIT 1));"
    "UPDATE errors SET tx_id = (SELECT t.tx_id FROM transactions t"
    "  WHERE t.session_id = errors.session_id AND t.start_ts <= errors.ts"
    "  AND (t.end_ts IS NULL OR t.end_ts >= errors.ts) ORDER BY t.start_ts DESC LIMIT 1),"
    " wait_id = (SELECT w.wait_id FROM lock_waits w WHERE w.pid = errors.pid"
    "  AND w.end_ts BETWEEN errors.ts - 1000000 AND errors.ts"
    "  AND w.outcome = errors.class ORDER BY w.end_ts DESC LIMIT 1)"
    " WHERE class <> 'other';"
    "UPDATE errors SET cause_tx = (SELECT w.holder_tx FROM lock_waits w"
    "  WHERE w.wait_id = errors.wait_id) WHERE wait_id IS NOT NULL;"
    /* A transaction that logged an error before its ROLLBACK was aborted. */
    "UPDATE transactions SET outcome = 'aborted' WHERE outcome = 'rollback' AND EXISTS"
    " (SELECT 1 FROM errors e WHERE e.session_id = transactions.session_id"
    "  AND e.ts BETWEEN transactions.start_ts AND transactions.end_ts);"
    "UPDATE deadlock_procs SET session_id = (SELECT se.session_id FROM sessions se"
    "  JOIN deadlocks d ON d.deadlock_id = deadlock_procs.deadlock_id"
    "  WHERE se.pid = deadlock_procs.pid AND coalesce(se.start_ts, se.first_ts, 0) <= d.ts"
    "  ORDER BY coalesce(se.start_ts, se.first_ts, 0) DESC LIMIT 1);"
    "UPDATE deadlock_procs SET tx_id = (SELECT t.tx_id FROM transactions t"
    "  JOIN deadlocks d ON d.deadlock_id = deadlock_procs.deadlock_id"
    "  WHERE t.session_id = deadlock_procs.session_id AND t.start_ts <= d.ts"
    "  AND (t.end_ts IS NULL OR t.end_ts >= d.ts - 1000) ORDER BY t.start_ts DESC LIMIT 1);";

typedef struct tx_state {
    int open;
    int64_t session_id, pid, xid, first_stmt, last_stmt, statements;
    char vxid[24];
    int explicit_tx;
    int64_t start_ts, end_ts, prev_end;
    int has_end;
    const char *start_known, *end_known, *outcome;
    double sql_ms, idle_ms, max_idle_ms, commit_ms;
    int durations; /* every statement had a duration */
} tx_state;

static int tx_insert(ls_stmt *ins, tx_state *t, ls_correlate_stats *stats)
{
    int rc;
    if (!t->open)
        return 0;
    t->open = 0;
    ls_stmt_reset(ins);
    ls_stmt_bind_int64(ins, 1, t->session_id);
    ls_stmt_bind_int64(ins, 2, t->pid);
    if (t->xid)
        ls_stmt_bind_int64(ins, 3, t->xid);
    ls_stmt_bind_text(ins, 4, t->vxid[0] ? t->vxid : NULL);
    ls_stmt_bind_int64(ins, 5, t->explicit_tx);
    ls_stmt_bind_int64(ins, 6, t->start_ts);
    ls_stmt_bind_text(ins, 7, t->start_known);
    if (t->has_end)
        ls_stmt_bind_int64(ins, 8, t->end_ts);
    ls_stmt_bind_text(ins, 9, t->end_known);
    ls_stmt_bind_text(ins, 10, t->outcome);
    ls_stmt_bind_int64(ins, 11, t->first_stmt);
    ls_stmt_bind_int64(ins, 12, t->last_stmt);
    ls_stmt_bind_int64(ins, 13, t->statements);
    if (t->durations) {
        ls_stmt_bind_double(ins, 14, t->sql_ms);
        ls_stmt_bind_double(ins, 15, t->idle_ms);
        ls_stmt_bind_double(ins, 16, t->max_idle_ms);
        ls_stmt_bind_double(ins, 17, t->commit_ms);
    }
    rc = ls_stmt_step(ins);
    stats->transactions++;
    return rc < 0 ? rc : 0;
}

static void tx_open(tx_state *t, ls_stmt *q, int explicit_tx)
{
    memset(t, 0, sizeof(*t));
    t->open = 1;
    t->explicit_tx = explicit_tx;
    t->session_id = ls_stmt_int64(q, 0);
    t->pid = ls_stmt_int64(q, 2);
    t->start_ts = ls_stmt_int64(q, 3);
    t->start_known = explicit_tx ? "BEGIN" : "statement";
    t->durations = 1;
}

/* Add the current statement to the open transaction. */
static void tx_add(tx_state *t, ls_stmt *q, int is_commit)
{
    int64_t start = ls_stmt_int64(q, 3);
    int has_end = !ls_stmt_isnull(q, 4);
    int64_t end = has_end ? ls_stmt_int64(q, 4) : start;
    const char *vxid = ls_stmt_text(q, 8);

    if (!t->statements)
        t->first_stmt = ls_stmt_int64(q, 1);
    t->last_stmt = ls_stmt_int64(q, 1);
    t->statements++;
    if (!t->xid && !ls_stmt_isnull(q, 7))
        t->xid = ls_stmt_int64(q, 7);
    /* A COMMIT's own line shows vxid N/0: keep the transaction's. */
    if (!t->vxid[0] && vxid[0] && !strstr(vxid, "/0"))
        snprintf(t->vxid, sizeof(t->vxid), "%s", vxid);
    if (!has_end || ls_stmt_isnull(q, 5)) {
        t->durations = 0;
    } else if (is_commit) {
        t->commit_ms += ls_stmt_double(q, 5);
    } else {
        t->sql_ms += ls_stmt_double(q, 5);
    }
    if (t->prev_end && start > t->prev_end) {
        double gap = (double)(start - t->prev_end) / 1000.0;
        t->idle_ms += gap;
        if (gap > t->max_idle_ms)
            t->max_idle_ms = gap;
    }
    t->prev_end = end;
    t->end_ts = end;
    t->has_end = 1;
}

/* End a session's open transaction: at disconnection, else where it was
 * last seen. */
static int tx_close_session(ls_stmt *ins, tx_state *t, int64_t session_end, int have_end,
                            ls_correlate_stats *stats)
{
    if (!t->open)
        return 0;
    if (t->explicit_tx) {
        if (have_end) {
            t->end_ts = session_end;
            t->end_known = "disconnection";
            t->outcome = "rollback";
        } else {
            t->end_known = "last statement";
            t->outcome = "open";
        }
    }
    return tx_insert(ins, t, stats);
}

int ls_correlate_transactions(ls_store *s, ls_correlate_stats *stats)
{
    ls_stmt *q = NULL, *ins = NULL;
    tx_state t;
    int64_t session = -1, session_end = 0;
    int rc, have_session_end = 0;

    memset(&t, 0, sizeof(t));
    if ((rc = ls_store_exec(s, interest_sql)) != 0 ||
        (rc = ls_store_prepare(s, statements_sql, &q)) != 0 ||
        (rc = ls_store_prepare(s, insert_tx_sql, &ins)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        ls_sql_kind kind = ls_sql_kind_of(ls_stmt_text(q, 6));
        if (ls_stmt_int64(q, 0) != session) {
            if ((rc = tx_close_session(ins, &t, session_end, have_session_end, stats)) != 0)
                goto out;
            session = ls_stmt_int64(q, 0);
            have_session_end = !ls_stmt_isnull(q, 9);
            session_end = ls_stmt_int64(q, 9);
        }
        switch (kind) {
        case LS_SQL_BEGIN:
            if (t.open) { /* BEGIN inside a transaction: PostgreSQL warns, nothing ends */
                tx_add(&t, q, 0);
                break;
            }
            tx_open(&t, q, 1);
            tx_add(&t, q, 0);
            break;
        case LS_SQL_COMMIT:
        case LS_SQL_ROLLBACK:
            if (!t.open) /* its BEGIN was not logged: a transaction of its own */
                tx_open(&t, q, 0);
            tx_add(&t, q, 1);
            t.end_known = ls_stmt_isnull(q, 4) ? "commit start" : "commit";
            t.outcome = kind == LS_SQL_COMMIT ? "commit" : "rollback";
            if ((rc = tx_insert(ins, &t, stats)) != 0)
                goto out;
            break;
        default:
            if (t.open && t.explicit_tx) {
                tx_add(&t, q, 0);
            } else {
                tx_open(&t, q, 0);
                tx_add(&t, q, 0);
                t.end_known = ls_stmt_isnull(q, 4) ? "statement start" : "statement";
                t.outcome = "commit";
                if ((rc = tx_insert(ins, &t, stats)) != 0)
                    goto out;
            }
            break;
        }
    }
    if (rc == 0)
        rc = tx_close_session(ins, &t, session_end, have_session_end, stats);
    if (rc == 0)
        rc = ls_store_exec(s, link_sql);
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(ins);
    return rc < 0 ? rc : 0;
}

/* ---- retries ---- */

static const char lock_errors_sql[] =
    "SELECT error_id, session_id, ts, statement FROM errors"
    " WHERE class IN ('lock_timeout', 'lock_nowait', 'statement_timeout',"
    " 'serialization_failure', 'deadlock') AND session_id IS NOT NULL"
    " AND statement IS NOT NULL ORDER BY error_id";

static const char after_sql[] =
    "SELECT st.stmt_id, st.text, (SELECT t.tx_id FROM transactions t"
    "   WHERE t.session_id = st.session_id AND st.stmt_id BETWEEN t.first_stmt AND t.last_stmt),"
    " (SELECT t.outcome FROM transactions t"
    "   WHERE t.session_id = st.session_id AND st.stmt_id BETWEEN t.first_stmt AND t.last_stmt)"
    " FROM statements st WHERE st.session_id = ?1 AND st.start_ts > ?2"
    " AND st.start_ts <= ?2 + 30000000 ORDER BY st.stmt_id LIMIT 200";

static const char set_retry_sql[] =
    "UPDATE errors SET retry_stmt = ?2, retry_tx = ?3, retry_outcome = ?4 WHERE error_id = ?1";

/*
 * A retry is the same statement shape run again by the same session within
 * 30 s of the error; its transaction's outcome says whether it succeeded.
 */
int ls_correlate_retries(ls_store *s, ls_correlate_stats *stats)
{
    ls_stmt *errs = NULL, *after = NULL, *upd = NULL;
    ls_buf want = LS_BUF_INIT(0), got = LS_BUF_INIT(0);
    int rc;

    if ((rc = ls_store_prepare(s, lock_errors_sql, &errs)) != 0 ||
        (rc = ls_store_prepare(s, after_sql, &after)) != 0 ||
        (rc = ls_store_prepare(s, set_retry_sql, &upd)) != 0)
        goto out;
    while ((rc = ls_stmt_step(errs)) == 1) {
        ls_buf_reset(&want);
        ls_sql_shape(&want, ls_stmt_text(errs, 3), 4096);
        ls_stmt_reset(after);
        ls_stmt_bind_int64(after, 1, ls_stmt_int64(errs, 1));
        ls_stmt_bind_int64(after, 2, ls_stmt_int64(errs, 2));
        while ((rc = ls_stmt_step(after)) == 1) {
            ls_buf_reset(&got);
            ls_sql_shape(&got, ls_stmt_text(after, 1), 4096);
            if (strcmp(ls_buf_str(&want), ls_buf_str(&got)) != 0)
                continue;
            ls_stmt_reset(upd);
            ls_stmt_bind_int64(upd, 1, ls_stmt_int64(errs, 0));
            ls_stmt_bind_int64(upd, 2, ls_stmt_int64(after, 0));
            if (!ls_stmt_isnull(after, 2))
                ls_stmt_bind_int64(upd, 3, ls_stmt_int64(after, 2));
            ls_stmt_bind_text(upd, 4, ls_stmt_isnull(after, 3) ? NULL : ls_stmt_text(after, 3));
            if ((rc = ls_stmt_step(upd)) < 0)
                goto out;
            stats->retries++;
            break;
        }
        if (rc < 0)
            goto out;
    }
out:
    if (ls_buf_failed(&want) || ls_buf_failed(&got))
        rc = LS_ENOMEM;
    ls_buf_free(&want);
    ls_buf_free(&got);
    ls_stmt_finalize(errs);
    ls_stmt_finalize(after);
    ls_stmt_finalize(upd);
    return rc < 0 ? rc : 0;
}
