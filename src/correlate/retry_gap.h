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

#include "decide/tolerances.h"

#define RETRY_GAP_TX_WHERE                                                                         \
    " FROM transactions t WHERE t.session_id IS NOT NULL AND EXISTS (SELECT 1"                     \
    " FROM temp.retry_failed f WHERE f.end_ts BETWEEN t.start_ts - :gap AND t.start_ts + "         \
    LS_SQL_INT(LS_START_SLACK_US) ")"

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
