/*
 * pos_tx.h — the transactions pass's transaction of a session at a lock
 * message's line (transactions.c), here so that a unit test can check its
 * query plan (test_pass_table.c).
 */
#ifndef LS_POS_TX_H
#define LS_POS_TX_H

#include "correlate_int.h" /* LS_LOG_POS_SQL */

/*
 * The transaction of session SESS at the log position of wait W's first
 * message: the latest of the session's to begin before that line
 * (transactions.first_pos, the log position of its first statement; one
 * probe of POS_TX_INDEX_SQL's index), the one that ran the session's last
 * statement logged before the message (a session's statements are in its
 * transactions, one after another). Exact where times tie: a
 * holder whose transaction ended and the next began in the second the
 * message was stamped in. An awaited transaction's first line is always
 * before the message (its xid came with its first write) and its end
 * after (the waiter is still waiting).
 * Until schema 19 this found that last statement by reading the
 * session's statements back from a second after the message, each a row
 * lookup for its line (issue 38: about 3,000 VM steps a call on the
 * bench log, where a session logs hundreds of statements a second).
 */
#define POS_TX(SESS, W)                                                                    \
    "(SELECT t.tx_id FROM transactions t WHERE t.session_id = " SESS                      \
    " AND t.first_pos < " LS_LOG_POS_SQL(W) " ORDER BY t.first_pos DESC LIMIT 1)"

/* The index POS_TX probes, made by the pass with the others it reads
 * (link_index_sql) and dropped after the links. */
#define POS_TX_INDEX_SQL                                                                   \
    "CREATE INDEX IF NOT EXISTS transactions_session_pos ON transactions(session_id, first_pos);"

#endif
