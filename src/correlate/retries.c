/*
 * retries.c — the retries pass: for each lock error (lock_timeout,
 * lock_nowait, statement_timeout, serialization_failure, deadlock) the
 * statement that ran the failed statement again, its transaction and
 * that transaction's outcome. decide/retry.h decides which statement is
 * the retry; this file reads the candidates from the store and writes
 * the pass's own table, retries (errors_linked.retry_*).
 */
#include <stddef.h>
#include <string.h>

#include "correlate_int.h"
#include "decide/retry.h"
#include "decide/tolerances.h"
#include "ls_buf.h"
#include "ls_columns.h"
#include "ls_sqlshape.h"
#include "ls_store.h"

#define LOCK_ERROR_COLS(X, Q)                                                              \
    X(Q, error_id, "error_id")                                                            \
    X(Q, session_id, "session_id")                                                        \
    X(Q, ts, "ts")                                                                        \
    X(Q, text, LS_TEXT_OF("errors.text_id"))
LS_COLUMNS(le, LOCK_ERROR_COLS);
static const char lock_errors_sql[] =
    "SELECT " LS_SELECT_LIST(le, LOCK_ERROR_COLS) " FROM errors"
    " WHERE class IN ('lock_timeout', 'lock_nowait', 'statement_timeout',"
    " 'serialization_failure', 'deadlock') AND session_id IS NOT NULL"
    " AND text_id IS NOT NULL ORDER BY error_id";

/* The session's statements after the error, in the order they started:
 * the index statements_session (session_id, start_ts, then stmt_id) serves
 * the range and the order, so the scan stops at the first match. Parse and
 * bind lines count: a retry that failed again (a deadlock victim has no
 * duration line for its execute) shows only as those. */
#define AFTER_COLS(X, Q)                                                                   \
    X(Q, stmt_id, "st.stmt_id")                                                           \
    X(Q, start_ts, "st.start_ts")                                                         \
    X(Q, text, "st.text")
LS_COLUMNS(af, AFTER_COLS);
static const char after_sql[] =
    "SELECT " LS_SELECT_LIST(af, AFTER_COLS) " FROM statements st WHERE st.session_id = ?1"
    " AND st.start_ts > ?2 AND st.start_ts <= ?2 + " LS_SQL_INT(LS_RETRY_WINDOW_US)
    " ORDER BY st.session_id, st.start_ts, st.stmt_id LIMIT 200";

/* The transaction a statement ran in: the last one of its session that
 * began at or before it (transactions_session_stmt), if it spans it. */
#define RETRY_TX_COLS(X, Q)                                                                \
    X(Q, tx_id, "tx_id")                                                                  \
    X(Q, outcome, "outcome")                                                              \
    X(Q, last_stmt, "last_stmt")
LS_COLUMNS(rt, RETRY_TX_COLS);
static const char retry_tx_sql[] =
    "SELECT " LS_SELECT_LIST(rt, RETRY_TX_COLS) " FROM transactions WHERE session_id = ?1"
    " AND first_stmt <= ?2 ORDER BY session_id DESC, first_stmt DESC LIMIT 1";

/* The retry of an error (one row of the pass's own table). */
static const char set_retry_sql[] =
    "INSERT INTO retries(error_id, retry_stmt, retry_tx, retry_outcome) VALUES (?1, ?2, ?3, ?4)";

/*
 * A retry is the same statement shape run again by the same session within
 * 30 s of the error; its transaction's outcome says whether it succeeded.
 */
int ls_correlate_retries(ls_store *s, ls_correlate_stats *stats)
{
    ls_stmt *errs = NULL, *after = NULL, *txq = NULL, *upd = NULL;
    ls_buf want = LS_BUF_INIT(0), got = LS_BUF_INIT(0);
    int rc;

    /* Per error: one index range of its session's statements and one index
     * probe for the retry's transaction, so the pass is O(errors log n). */
    if ((rc = ls_store_exec_sorting(s, "CREATE INDEX IF NOT EXISTS transactions_session_stmt"
                               " ON transactions(session_id, first_stmt)")) != 0 ||
        (rc = ls_store_prepare(s, lock_errors_sql, &errs)) != 0 ||
        (rc = ls_store_prepare(s, after_sql, &after)) != 0 ||
        (rc = ls_store_prepare(s, retry_tx_sql, &txq)) != 0 ||
        (rc = ls_store_prepare(s, set_retry_sql, &upd)) != 0)
        goto out;
    while ((rc = ls_stmt_step(errs)) == 1) {
        int64_t session = ls_stmt_int64(errs, le_session_id);
        ls_buf_reset(&want);
        ls_sql_shape(&want, ls_stmt_text(errs, le_text), 4096);
        ls_stmt_reset(after);
        ls_stmt_bind_int64(after, 1, session);
        ls_stmt_bind_int64(after, 2, ls_stmt_int64(errs, le_ts));
        while ((rc = ls_stmt_step(after)) == 1) {
            int64_t stmt = ls_stmt_int64(after, af_stmt_id);
            int have_tx;
            ls_buf_reset(&got);
            ls_sql_shape(&got, ls_stmt_text(after, af_text), 4096);
            if (!ls_retry_is(ls_stmt_int64(errs, le_ts), ls_stmt_int64(after, af_start_ts),
                             strcmp(ls_buf_str(&want), ls_buf_str(&got)) == 0))
                continue;
            ls_stmt_reset(txq);
            ls_stmt_bind_int64(txq, 1, session);
            ls_stmt_bind_int64(txq, 2, stmt);
            if ((rc = ls_stmt_step(txq)) < 0)
                goto out;
            have_tx = rc == 1 && ls_stmt_int64(txq, rt_last_stmt) >= stmt;
            ls_stmt_reset(upd);
            ls_stmt_bind_int64(upd, 1, ls_stmt_int64(errs, le_error_id));
            ls_stmt_bind_int64(upd, 2, stmt);
            if (have_tx)
                ls_stmt_bind_int64(upd, 3, ls_stmt_int64(txq, rt_tx_id));
            ls_stmt_bind_text(upd, 4, have_tx && !ls_stmt_isnull(txq, rt_outcome)
                                          ? ls_stmt_text(txq, rt_outcome)
                                          : NULL);
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
    ls_stmt_finalize(txq);
    ls_stmt_finalize(upd);
    return rc < 0 ? rc : 0;
}
