/*
 * pos_tx.h — the transactions pass's transaction of a session at a lock
 * message's line (transactions.c), here so that a unit test can check its
 * query plan (test_pass_table.c).
 */
#ifndef LS_POS_TX_H
#define LS_POS_TX_H

#include "correlate_int.h" /* LS_LOG_POS_SQL */

/*
 * The transaction of session SESS open at the log position of wait W's
 * first message: the one that ran the session's last statement logged
 * before that line. Exact where times tie: a holder whose transaction
 * ended and the next began in the second the message was stamped in. An
 * awaited transaction's first line is always before the message (its xid
 * came with its first write) and its end after (the waiter is still
 * waiting).
 * The latest transaction of the session to begin before the line
 * (transactions.first_pos, the log position of its first statement: one
 * probe of POS_TX_INDEX_SQL's index), when its last statement is logged
 * after the line: the session's statements before it are then its own.
 * Else (it ended before the line: the session may have gone on with a
 * statement of no transaction stored, such as the bind line of an
 * execute that waits) POS_TX_SCAN as before schema 19.
 */
#define POS_TX(SESS, W)                                                                    \
    "(SELECT CASE WHEN " LS_LOG_POS_SQL("r") " > " LS_LOG_POS_SQL(W) " THEN x.tx_id"     \
    " ELSE " POS_TX_SCAN(SESS, W) " END FROM (SELECT t.tx_id, t.last_stmt FROM transactions t" \
    "  WHERE t.session_id = " SESS " AND t.first_pos < " LS_LOG_POS_SQL(W)                \
    "  ORDER BY t.first_pos DESC LIMIT 1) x JOIN stmt_rows r ON r.stmt_id = x.last_stmt)"

/*
 * The session's last statement before the line (of the session's last
 * statements by W's time, a second of slack for whole-second %t times;
 * those logged after the line are passed over, as a busy session may log
 * dozens in that second, each a row lookup for its line: about 3,000 VM
 * steps a call on the bench log), and its transaction, if that had not
 * ended before it.
 */
#define POS_TX_SCAN(SESS, W)                                                               \
    "(SELECT x.tx_id FROM (SELECT p.last, (SELECT tx_id FROM transactions t"              \
    "  WHERE t.session_id = " SESS " AND t.first_stmt <= p.last"                          \
    "  ORDER BY t.first_stmt DESC LIMIT 1) AS tx_id FROM (SELECT max(s.stmt_id) AS last"  \
    "  FROM (SELECT stmt_id FROM stmt_rows WHERE session_id = " SESS                      \
    "   AND start_ts <= " W ".logged_ts + " LS_SQL_INT(LS_WHOLE_SECOND_US) " AND (file_id < " W ".file_id" \
    "   OR (file_id = " W ".file_id AND line < " W ".line))"                                 \
    "   ORDER BY start_ts DESC LIMIT " LS_SQL_INT(LS_POS_CANDIDATES_WHOLE) ") s) p) x" \
    " JOIN transactions t2 ON t2.tx_id = x.tx_id WHERE t2.last_stmt >= x.last)"

/* The index POS_TX probes, made by the pass with the others it reads
 * (link_index_sql) and dropped after the links. */
#define POS_TX_INDEX_SQL                                                                   \
    "CREATE INDEX IF NOT EXISTS transactions_session_pos ON transactions(session_id, first_pos);"

#endif
