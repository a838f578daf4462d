/*
 * retry_gap.h — the retries pass's reads for matching by parameters
 * (retries.c, by_params()), here so that a unit test can check their
 * query plans (test_pass_table.c).
 *
 * RETRY_GAP_TX_WHERE: the transactions t begun in the gap (:gap) after
 * some failure's end (temp.retry_failed, by retry_failed_end): one scan
 * of the transactions (no index serves their start: transactions_session
 * is dropped after its pass), never of the statements (issue 38: a copy
 * of every statement of the failing texts was most of a pgbench log).
 *
 * RETRY_PARAM_CANDS_FROM: the statements c of the :text with the
 * :params of each transaction t (g: temp.retry_gap_tx) begun in the gap
 * after one failure's end (:end_ts to :end_ts + :gap), within the window:
 * by id between the transaction's first and last statement. The unary +
 * keeps the planner off statements_session and stmt_rows_text (either
 * reads the window's 30 s) and off an automatic index on the parameters
 * (a scan of every statement, each run).
 *
 * RETRY_ROW_CANDS_FROM: the same statements of the :text, any parameters.
 */
#ifndef LS_RETRY_GAP_H
#define LS_RETRY_GAP_H

#include <stddef.h>
#include <stdint.h>

#include "decide/tolerances.h"
#include "ls_columns.h"

#define RETRY_GAP_TX_WHERE                                                                         \
    " FROM transactions t WHERE t.session_id IS NOT NULL AND EXISTS (SELECT 1"                     \
    " FROM temp.retry_failed f WHERE f.end_ts BETWEEN t.start_ts - :gap AND t.start_ts + "         \
    LS_SQL_INT(LS_START_SLACK_US) ")"

/* RETRY_GAP_TX_WHERE as the pass runs it (issue 38: a probe of
 * retry_failed_end per transaction was 24 VM steps of each, 5.5 M at
 * 1 GiB): the failures' ends once, in order (RETRY_FAILED_ENDS_SQL),
 * then one plain scan of the transactions (RETRY_GAP_TX_SCAN_SQL), each
 * kept where ls_retry_in_gap() finds an end in its range. */
#define RETRY_FAILED_ENDS_SQL                                                                      \
    "SELECT f.end_ts FROM temp.retry_failed f WHERE f.end_ts IS NOT NULL ORDER BY f.end_ts"
#define RETRY_GAP_TX_SCAN_COLS(X, Q)                                                               \
    X(Q, start_ts, "t.start_ts")                                                                   \
    X(Q, tx_id, "t.tx_id")
#define RETRY_GAP_TX_SCAN_SQL                                                                      \
    "SELECT " LS_SELECT_LIST(gs, RETRY_GAP_TX_SCAN_COLS) " FROM transactions t"                   \
    " WHERE t.session_id IS NOT NULL AND t.start_ts IS NOT NULL"

/* Is some end of ends[0 .. n) (ascending) within start - gap .. start +
 * LS_START_SLACK_US (both ends in), as RETRY_GAP_TX_WHERE's EXISTS? */
static inline int ls_retry_in_gap(const int64_t *ends, size_t n, int64_t start, int64_t gap)
{
    size_t lo = 0, hi = n;
    int64_t from = start - gap;

    while (lo < hi) { /* the first end >= from */
        size_t mid = lo + (hi - lo) / 2;
        if (ends[mid] < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && ends[lo] <= start + LS_START_SLACK_US;
}

/* The statements of a :session after an error (retries.c, after_sql's
 * FROM and WHERE): read from stmt_rows by its session index, not through
 * the view statements, whose text and parameters are subqueries of each
 * row read (issue 38: 1,800 VM steps an error, 9.6 M at 1 GiB); the
 * pass looks a text up by its text_id once (after_text()). */
#define RETRY_AFTER_FROM " FROM stmt_rows st WHERE st.session_id = :session"

#define RETRY_CANDS_FROM_(PARAMS)                                                                  \
    " FROM temp.retry_gap_tx g CROSS JOIN transactions t CROSS JOIN stmt_rows c"                   \
    " LEFT JOIN stmt_rows fs ON fs.stmt_id = t.first_stmt"                                         \
    " WHERE g.start_ts BETWEEN :end_ts - " LS_SQL_INT(LS_START_SLACK_US) " AND :end_ts + :gap"     \
    " AND t.tx_id = g.tx_id AND c.stmt_id BETWEEN t.first_stmt AND t.last_stmt"                    \
    " AND +c.session_id = t.session_id AND +c.text_id = :text" PARAMS                              \
    " AND c.start_ts BETWEEN :end_ts - " LS_SQL_INT(LS_START_SLACK_US) " AND :end_ts + "           \
    LS_SQL_INT(LS_RETRY_WINDOW_US)                                                                 \
    " AND t.tx_id = (SELECT x.tx_id FROM transactions x"                                           \
    "  WHERE x.session_id = c.session_id AND x.first_stmt <= c.stmt_id"                            \
    "  ORDER BY x.session_id DESC, x.first_stmt DESC LIMIT 1)"

#define RETRY_PARAM_CANDS_FROM RETRY_CANDS_FROM_(" AND +c.params = :params")

/* RETRY_ROW_CANDS_FROM: the same with any parameters (retries.c,
 * row_untold(): the failed text run again on the failed statement's row,
 * told from the parameters in C). */
#define RETRY_ROW_CANDS_FROM RETRY_CANDS_FROM_("")

#endif
