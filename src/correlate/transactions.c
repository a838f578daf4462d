/*
 * transactions.c — transactions rebuilt from each session's statements.
 *
 * A session's statements, in log order, are cut into transactions:
 * BEGIN/START TRANSACTION opens one, COMMIT/END/ROLLBACK/ABORT closes it,
 * and a statement outside any is a transaction of its own. Duration lines
 * give each statement's start and end; with log_statement = 'all' only
 * starts are known, so a transaction's end is the start of its COMMIT or
 * ROLLBACK ("commit start", "rollback start") and its idle time is
 * unknown. A transaction still open when its session disconnects ends
 * there.
 *
 * Every session's statements are read once, in log order per session.
 * A transaction is stored when its session took part in a wait, a
 * deadlock or a lock error (the report is about them), or when it locked
 * a hot row: a logical row that some logged wait was for (holds.c). Each
 * such lock becomes a hold, one per (transaction, row), from the moment
 * the row was locked (the end of the locking statement, which includes
 * any wait of its own) to the end of the transaction. A log can hold
 * millions of unrelated autocommit statements: they are read, not stored.
 *
 * The pass then links each wait, lock error and deadlock process to
 * transactions. It owns what it writes (docs/design.md, "Passes and what
 * they own"): the links go into tables of its own keyed by the row they
 * are about (wait_links, error_links, deadlock_links; the retries pass,
 * retries.c, writes retries), which the views lock_waits and errors_linked join in;
 * the waits and the raw rows of ingest stay as they were written.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "corr_tables.h"
#include "between_waits.h"
#include "bind_errors.h"
#include "pos_tx.h"
#include "correlate_int.h"
#include "ls_buf.h"
#include "ls_columns.h"
#include "ls_keypack.h"
#include "ls_params.h"
#include "ls_sqlshape.h"
#include "ls_store.h"
#include "decide/txwindow.h"
#include "decide/victim.h"
#include "decide/waittx.h"
#include "ls_txcut.h"
#include "rowkey.h"
#include "textcache.h"

/* The sessions of interest: those of the lock errors and deadlock
 * victims here, those of the waits (waiter, blocker, root) by
 * interest_waits(). */
static const char interest_sql[] =
    "DROP TABLE IF EXISTS temp.interest;"
    "CREATE TEMP TABLE interest(session_id INTEGER PRIMARY KEY);"
    "INSERT OR IGNORE INTO interest"
    " SELECT session_id FROM errors WHERE class NOT IN ('other') AND session_id IS NOT NULL"
    " UNION SELECT victim_session FROM deadlocks WHERE victim_session IS NOT NULL;";
/* Each wait's sessions, read once (issue 38: a UNION of three scans of the
 * view, one a column, was 2.2 M VM steps on the 1 GiB bench store). */
#define INTEREST_COLS(X, Q)                                                                \
    X(Q, session_id, "session_id")                                                        \
    X(Q, blocker_session, "blocker_session")                                              \
    X(Q, root_session, "root_session")
LS_COLUMNS(iw, INTEREST_COLS);
static const char interest_waits_sql[] =
    "SELECT " LS_SELECT_LIST(iw, INTEREST_COLS) " FROM lock_waits";
static const char interest_add_sql[] = "INSERT OR IGNORE INTO temp.interest VALUES (:session)";
#define INTEREST_ADD_PARAMS(X, Q) X(Q, session)
LS_PARAMS(iap, INTEREST_ADD_PARAMS);
#define INTEREST_SEEN 256 /* sessions added lately, direct-mapped: most waits repeat them */

/* temp.interest: interest_sql, then each wait's sessions (a session
 * added lately is not added again; INSERT OR IGNORE keeps the rest). */
static int interest_waits(ls_store *s)
{
    static const int cols[] = {iw_session_id, iw_blocker_session, iw_root_session};
    int64_t seen[INTEREST_SEEN];
    ls_stmt *q = NULL, *add = NULL;
    size_t i;
    int rc;

    for (i = 0; i < INTEREST_SEEN; i++)
        seen[i] = INT64_MIN; /* none */
    if ((rc = ls_store_exec(s, interest_sql)) != 0 ||
        (rc = ls_store_prepare(s, interest_waits_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, interest_add_sql, LS_PARAM_NAMES(INTEREST_ADD_PARAMS),
                                      &add)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1)
        for (i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
            int64_t id;
            size_t slot;
            if (ls_stmt_isnull(q, cols[i]))
                continue;
            id = ls_stmt_int64(q, cols[i]);
            slot = (size_t)((uint64_t)id % INTEREST_SEEN);
            if (seen[slot] == id)
                continue;
            ls_stmt_reset(add);
            if ((rc = ls_stmt_bind_int64(add, LS_PARAM(iap, session), id)) != 0 ||
                (rc = ls_stmt_step(add)) < 0)
                goto out;
            seen[slot] = id;
        }
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(add);
    return rc < 0 ? rc : 0;
}

/* Every statement once, in log order (the table's own order: no sort);
 * each session's state is kept while it has a transaction open. */
#define STMT_COLS(X, Q)                                                                    \
    X(Q, session_id, "session_id")                                                        \
    X(Q, stmt_id, "stmt_id")                                                              \
    X(Q, pid, "pid")                                                                      \
    X(Q, start_ts, "start_ts")                                                            \
    X(Q, end_ts, "end_ts")                                                                \
    X(Q, duration_ms, "duration_ms")                                                      \
    X(Q, text, "text")                                                                    \
    X(Q, xid, "xid")                                                                      \
    X(Q, vxid, "vxid")                                                                    \
    X(Q, params, "params")                                                                \
    X(Q, prepare, "prepare")                                                              \
    X(Q, file_id, "file_id")                                                              \
    X(Q, line, "line")                                                                    \
    /* NULL where the row has its text; else the text is read by this id */               \
    X(Q, text_id, "text_id")                                                              \
    /* the view's verb name in cut_statements(), stmt_rows' number in read_cuts() */       \
    X(Q, verb, "verb")
LS_COLUMNS(sq, STMT_COLS);
static const char statements_sql[] =
    "SELECT " LS_SELECT_LIST(sq, STMT_COLS) " FROM (SELECT *, NULL AS text_id FROM statements)"
    " WHERE session_id IS NOT NULL"
    /* Extended protocol: parse and bind lines are steps of the statement
     * its execute line ran; only that one counts. */
    " AND (verb IS NULL OR verb NOT IN ('parse', 'bind')) ORDER BY stmt_id";

#define SESSION_COLS(X, Q)                                                                 \
    X(Q, end_ts, "end_ts")                                                                \
    X(Q, interest, "EXISTS (SELECT 1 FROM interest i WHERE i.session_id = :session)")
LS_COLUMNS(se, SESSION_COLS);
static const char session_sql[] =
    "SELECT " LS_SELECT_LIST(se, SESSION_COLS) " FROM sessions WHERE session_id = :session";
#define SESSION_PARAMS(X, Q) X(Q, session)
LS_PARAMS(sep, SESSION_PARAMS);

/* Hot rows: logical rows with a key that some logged wait was for. */
#define HOT_COLS(X, Q)                                                                     \
    X(Q, row_id, "row_id")                                                                \
    X(Q, relation, "relation")                                                            \
    X(Q, row_key, "row_key")
LS_COLUMNS(hr, HOT_COLS);
static const char hot_rows_sql[] =
    "SELECT " LS_SELECT_LIST(hr, HOT_COLS) " FROM rows WHERE row_key NOT LIKE 'ctid %'"
    " AND evidence <> 'lock target' ORDER BY relation, row_key";
#define RULE_COLS(X, Q)                                                                    \
    X(Q, shape, "shape")                                                                  \
    X(Q, relation, "relation")                                                            \
    X(Q, col, "col")                                                                      \
    X(Q, arg, "arg")                                                                      \
    X(Q, target, "coalesce(target, '')")                                                  \
    X(Q, target_col, "coalesce(target_col, '')")                                          \
    X(Q, rule_id, "rowid")
LS_COLUMNS(ru, RULE_COLS);
static const char rules_sql[] = "SELECT " LS_SELECT_LIST(ru, RULE_COLS) " FROM row_rules";
/* How many statements each rule keyed to a hot row (the report's evidence). */
LS_TABLE_COLUMNS(rule_keyed);
static const char rule_keyed_sql[] = LS_INSERT_INTO("INSERT", rule_keyed);
/* The session's (:session) waits that ended with the lock acquired in
 * [:from, :until]: where
 * the log has no durations they say when a locking statement got its row
 * (ls_hold_acquired() picks). Not a tuple lock's: its waiter was next in
 * line then, and waits on for the holder's transaction (heap_update). One
 * range of a partial index (acquired_index_sql), at most ACQUIRED_MAX
 * waits of one statement held at a time. */
#define ACQUIRED_WHERE                                                                     \
    "outcome = 'acquired' AND target_kind IS NOT 'tuple' AND end_ts IS NOT NULL"
static const char acquired_index_sql[] =
    "CREATE INDEX IF NOT EXISTS lock_waits_acquired ON lock_wait_rows(session_id, end_ts)"
    " WHERE " ACQUIRED_WHERE;
#define ACQUIRED_MAX 64
#define ACQUIRED_COLS(X, Q)                                                                \
    X(Q, end_ts, "end_ts")                                                                 \
    X(Q, row_id, "coalesce(row_id, 0)")
LS_COLUMNS(aq, ACQUIRED_COLS);
/* Where the next statement's time ties an acquisition's (whole-second
 * %t times), the log position (:until_file, :until_line: the next
 * statement's line, NULL: none) decides: an acquisition logged before it was this statement's. */
static const char acquired_sql[] =
    "SELECT " LS_SELECT_LIST(aq, ACQUIRED_COLS) " FROM lock_waits WHERE session_id = :session"
    " AND end_ts >= :from AND end_ts <= :until AND (end_ts < :until OR (:until_file IS NOT NULL"
    "  AND (end_file < :until_file OR (end_file = :until_file AND end_line < :until_line))))"
    " AND " ACQUIRED_WHERE " ORDER BY end_ts, end_file, end_line LIMIT " LS_SQL_INT(ACQUIRED_MAX);
#define ACQUIRED_PARAMS(X, Q)                                                              \
    X(Q, session) X(Q, from) X(Q, until) X(Q, until_file) X(Q, until_line)
LS_PARAMS(aqp, ACQUIRED_PARAMS);

/* stmt_rows.verb of lines that are no statement of their own: parse,
 * bind, a span's (enum values do not stringify) */
#define VERBS_NOT_STATEMENT_SQL "1, 2, 5"
_Static_assert(LS_VERB_BIND == 1 && LS_VERB_PARSE == 2 && LS_VERB_SPAN == 5,
               "VERBS_NOT_STATEMENT_SQL");
/* How a statement logged at its start (log_statement) ended: the first
 * error of its session (:session) after its line (:file, :line; at or
 * after its start, :start) and before the next statement's (:next_file,
 * :next_line; NULL: none logged yet), and the row of the statement's
 * (:stmt) own wait that did not end acquired (the one it failed on).
 * A statement logged with its duration ran to its end: not asked. */
#define FAILURE_COLS(X, Q)                                                                 \
    X(Q, class, "e.class")                                                                \
    X(Q, failed_row, "(SELECT w.row_id FROM lock_waits w WHERE w.waiter_stmt = :stmt"     \
                     "  AND w.outcome IS NOT 'acquired' AND w.row_id IS NOT NULL"         \
                     "  ORDER BY w.start_ts DESC LIMIT 1)")                                \
    X(Q, error_ts, "e.ts")
LS_COLUMNS(fq, FAILURE_COLS);
static const char failure_sql[] =
    "SELECT " LS_SELECT_LIST(fq, FAILURE_COLS)
    " FROM errors e WHERE e.session_id = :session AND e.ts >= :start"
    " AND (e.file_id > :file OR (e.file_id = :file AND e.line > :line))"
    " AND (:next_file IS NULL OR e.file_id < :next_file"
    "  OR (e.file_id = :next_file AND e.line < :next_line))"
    /* nor after any other statement of the session (an autocommit
     * statement's transaction ends with it, so no next statement of its
     * own bounds it: under log_statement = 'mod' the session's next write,
     * of another request, is logged before a later 40001 of its own) */
    " AND NOT EXISTS (SELECT 1 FROM stmt_rows n WHERE n.session_id = :session"
    "  AND n.start_ts BETWEEN :start AND e.ts AND n.stmt_id <> :stmt"
    "  AND coalesce(n.verb, 0) NOT IN (" VERBS_NOT_STATEMENT_SQL ")"
    "  AND (n.file_id > :file OR (n.file_id = :file AND n.line > :line))"
    "  AND (n.file_id < e.file_id OR (n.file_id = e.file_id AND n.line < e.line)))"
    " ORDER BY e.file_id, e.line LIMIT 1";
#define FAILURE_PARAMS(X, Q)                                                               \
    X(Q, stmt) X(Q, session) X(Q, start) X(Q, file) X(Q, line) X(Q, next_file) X(Q, next_line)
LS_PARAMS(fp, FAILURE_PARAMS);
/* The locks a statement failed on (lock_taken() said no): the
 * hidden-waits pass (hidden.c) rebuilds the wait each queued in before its
 * error. A working table of the connection, as hold_rows. */
static const char failed_table_sql[] =
    "DROP TABLE IF EXISTS temp.failed_locks;"
    "CREATE TEMP TABLE failed_locks(row_id INTEGER, tx_id INTEGER, session_id INTEGER,"
    " pid INTEGER, stmt_id INTEGER, start_ts INTEGER, error_ts INTEGER, class TEXT);";
static const char failed_insert_sql[] =
    "INSERT INTO temp.failed_locks VALUES (:row, :tx, :session, :pid, :stmt, :start, :error_ts,"
    " :class)";
#define FAILED_PARAMS(X, Q)                                                                \
    X(Q, row) X(Q, tx) X(Q, session) X(Q, pid) X(Q, stmt) X(Q, start) X(Q, error_ts) X(Q, class)
LS_PARAMS(flp, FAILED_PARAMS);
static const char failure_index_sql[] =
    "CREATE INDEX IF NOT EXISTS errors_session ON errors(session_id, ts);";

/* Statements that waited for a hot row and got it: they hold it, whether
 * or not their own text names it (no parameters logged, a function). Read
 * beside the statements, both in stmt_id order (a merge). */
#define WAITED_COLS(X, Q)                                                                  \
    X(Q, stmt_id, "w.waiter_stmt")                                                        \
    X(Q, row_id, "w.row_id")
LS_COLUMNS(wq, WAITED_COLS);
static const char waited_sql[] =
    "SELECT DISTINCT " LS_SELECT_LIST(wq, WAITED_COLS) " FROM lock_waits w"
    " JOIN rows r ON r.row_id = w.row_id"
    " WHERE w.waiter_stmt IS NOT NULL AND w.outcome = 'acquired'"
    " AND r.row_key NOT LIKE 'ctid %' AND r.evidence <> 'lock target' ORDER BY 1, 2";

/* The evidence columns: hold_evidence ids; a bound equal to its time is
 * NULL (bind_unless_same), end_lo and end_hi too; waits and waiter_ms 0. */
LS_TABLE_COLUMNS(hold_rows);
static const char insert_hold_sql[] = LS_INSERT_INTO("INSERT", hold_rows);
#define HR(col) LS_PARAM(hold_rows, col)

/* Holds of rows others waited for whose locking statement the log does
 * not show (a fragment, a function no rule resolves): bounded by the
 * transaction's start and the first wait. Not for a transaction whose own
 * wait for the row ended in an error: the statement that was to lock it
 * failed, and a transaction does not wait for a row it holds. Not for a
 * relation's extension or a page, locks let go as soon as the page is
 * added or read, not at the transaction's end. */
#define TX_BOUNDED "'bounded by transaction start and first wait'"
static const char wait_holds_sql[] =
    /* a transaction's own waits for a row: one probe (wait_links_waiter_tx),
     * not the row's waits */
    "INSERT OR IGNORE INTO hold_evidence(text) SELECT DISTINCT end_known FROM transactions"
    " WHERE end_known IS NOT NULL UNION ALL SELECT " TX_BOUNDED ";"
    "INSERT INTO hold_rows(row_id, tx_id, session_id, pid, start_ts, start_lo, start_hi,"
    " start_evidence, end_ts, end_lo, end_hi, end_evidence, waits, waiter_ms)"
    " SELECT w.row_id, w.holder_tx, t.session_id, t.pid, t.start_ts, NULL,"
    "  nullif(min(w.start_ts), t.start_ts),"
    "  " LS_HOLD_EVIDENCE_ID(TX_BOUNDED) ", t.end_ts,"
    "  NULL, NULL, " LS_HOLD_EVIDENCE_ID("t.end_known") ", 0, 0"
    " FROM lock_waits w JOIN transactions t ON t.tx_id = w.holder_tx"
    " WHERE w.row_id IS NOT NULL AND coalesce(w.target_kind, '') NOT IN ('extend', 'page')"
    " AND NOT EXISTS (SELECT 1 FROM hold_rows h"
    "  WHERE h.tx_id = w.holder_tx AND h.row_id = w.row_id)"
    " AND NOT EXISTS (SELECT 1 FROM lock_waits own WHERE own.waiter_tx = w.holder_tx"
    "  AND own.row_id = w.row_id AND own.outcome NOT IN ('acquired', 'unknown'))"
    " GROUP BY w.holder_tx, w.row_id;";

LS_TABLE_COLUMNS(transactions);
/* its tx_id by ls_stmt_last_rowid(), not a RETURNING clause (10 VM steps
 * more a transaction, and a result table made and freed each time) */
static const char insert_tx_sql[] = LS_INSERT_INTO("INSERT", transactions);
#define TX(col) LS_PARAM(transactions, col)

/*
 * The transaction of session SESS open at time T: of the latest ones that
 * began by T + SLACK, the latest that had not ended before T. Taking the
 * latest few first (an index probe) and then testing their ends keeps each
 * lookup O(log n); a filter on the end inside the scan would walk every
 * earlier transaction of a long-lived session. A few, not one: a start is
 * the log time (to the millisecond) minus the statement's duration (to
 * the microsecond), so a transaction that began right after a short one
 * can come out a microsecond earlier (BEGIN logged 0.002 ms at .317 after
 * an END at .317), and the short one, ended, would hide it.
 */
#define OPEN_TX(SESS, T, SLACK)                                                            \
    "(SELECT x.tx_id FROM (SELECT tx_id, start_ts, end_ts FROM transactions"              \
    " WHERE session_id = " SESS " AND start_ts <= " T " + " SLACK                         \
    " ORDER BY start_ts DESC LIMIT " LS_SQL_INT(LS_OPEN_TX_CANDIDATES) ") x"                                                   \
    " WHERE x.end_ts IS NULL OR x.end_ts >= " T " - " SLACK " ORDER BY x.start_ts DESC LIMIT 1)"

/* POS_TX: pos_tx.h. */

/* The first statement's position of the transactions stored without one
 * (their cut was ingested before schema 19). */
static const char first_pos_sql[] =
    "UPDATE transactions SET first_pos = (SELECT " LS_LOG_POS_SQL("r") " FROM stmt_rows r"
    " WHERE r.stmt_id = transactions.first_stmt)"
    " WHERE first_pos IS NULL AND session_id IS NOT NULL;";

/* Indexes the links below probe (holds_row: a tuple wait's row holder;
 * later passes use it too). */
static const char link_index_sql[] =
    "CREATE INDEX IF NOT EXISTS transactions_session ON transactions(session_id, start_ts);"
    "CREATE INDEX IF NOT EXISTS transactions_xid ON transactions(xid) WHERE xid IS NOT NULL;"
    "CREATE INDEX IF NOT EXISTS errors_session ON errors(session_id, ts);"
    "CREATE INDEX IF NOT EXISTS holds_tx_row ON hold_rows" LS_HOLDS_TX_KEY ";"
    "CREATE INDEX IF NOT EXISTS transactions_session_stmt ON transactions(session_id, first_stmt);"
    POS_TX_INDEX_SQL
    /* a whole-second deadlock wait's deadlock (relink_whole_waiters()) */
    "CREATE INDEX IF NOT EXISTS deadlocks_victim ON deadlocks(victim_pid, file_id, line);"
    /* end_ts and waits: it covers the walk of each row's holds (holds.c);
     * hold_final's too (correlate_int.h) */
    "CREATE INDEX IF NOT EXISTS holds_row ON hold_rows" LS_HOLDS_ROW_KEY ";";

/* Those of link_index_sql that only this pass reads (OPEN_TX, POS_TX, the
 * links by xid; no later pass or report query searches a transaction by its
 * session's time or by its xid), dropped once the links are made: their
 * pages are the ones the passes after it write into (issue 38). */
static const char link_index_drop_sql[] =
    "DROP INDEX IF EXISTS transactions_session; DROP INDEX IF EXISTS transactions_xid;"
    "DROP INDEX IF EXISTS deadlocks_victim; DROP INDEX IF EXISTS transactions_session_pos;";

/*
 * Who holds the row a wait is for (holder_pid, holder_tx): each step below
 * fills what the ones before it left open, in this order.
 *   link_sql         a transaction lock: the process DETAIL names, the
 *                    transaction by the awaited xid
 *   link_heads()     a tuple lock: the transaction the queue head's
 *                    overlapping wait awaited (ls_head_wait_on())
 *   link_holder_sql  1. the holder's transaction by xid, else by the
 *                       message's log position, else by its time
 *                    2. a tuple wait still naming the queue head: the
 *                       transaction whose hold of the row spans the moment
 *   link_next_sql    3. else, the queue head between two of its own waits:
 *                       the transaction its next wait awaited
 *   link_pooled_holders()  4. where that transaction is not by xid and was
 *                       not open at the message: the one whose hold of
 *                       the row covered it, of the holder's pid or of spans
 *                       only (a pooled backend; sub-second logs)
 * link_blocker_sql then names the direct blocker's, link_roots() the
 * root's. Where a step reads the order of a process's waits, whole-second
 * times (%t) have a variant (_sec_) that reads log positions instead.
 *
 * Every link is a column of wait_links, this pass's own table: link_sql
 * writes each wait's row, the steps after it fill in its columns. They
 * read the waits through the lock_waits view, which joins wait_links in,
 * so that each step sees what the ones before it linked.
 */

/* Links from waits to transactions: each wait's row of wait_links. */
static const char link_sql[] =
    /* An index for the probes of a transaction's own waits (wait_holds_sql,
     * hidden.c). */
    "CREATE INDEX IF NOT EXISTS wait_links_waiter_tx ON wait_links(waiter_tx);"
    /* The transaction that ran the waiter's own statement (found by log
     * position: exact where whole-second %t times put a BEGIN after the
     * wait's derived start), else the one open at the wait's start (1 ms
     * slack for start times derived from millisecond timestamps). */
    "INSERT INTO wait_links(wait_id, waiter_tx, waiter_stmt, holder_pid)"
    " SELECT w.wait_id, coalesce((SELECT x.tx_id FROM (SELECT tx_id, last_stmt"
    "  FROM transactions t WHERE t.session_id = w.session_id"
    "  AND t.first_stmt <= w.waiter_stmt ORDER BY t.first_stmt DESC LIMIT 1) x"
    "  WHERE x.last_stmt >= w.waiter_stmt),"
    "  " OPEN_TX("w.session_id", "w.start_ts", LS_SQL_INT(LS_START_SLACK_US)) "),"
    /* The statement the logical-rows pass found for the wait, else the
     * session's statement running at the wait's start. */
    " coalesce(w.waiter_stmt, (SELECT x.stmt_id FROM (SELECT stmt_id, end_ts"
    "  FROM statements st WHERE st.session_id = w.session_id"
    "  AND st.start_ts <= w.start_ts + " LS_SQL_INT(LS_START_SLACK_US)
    "  AND (st.verb IS NULL OR st.verb NOT IN ('parse', 'bind'))"
    "  ORDER BY st.start_ts DESC, st.stmt_id DESC LIMIT 1) x"
    "  WHERE x.end_ts IS NULL OR x.end_ts >= w.start_ts)),"
    /* The row lock's holder: the awaited transaction for a transaction
     * lock (its transaction by xid: link_holder_sql). For a tuple lock the
     * queue head holds the tuple lock and waits for the row's holder
     * itself, one hop further (link_heads()). A blocker ahead in the
     * lock's queue (the episodes pass's queue_blockers()) holds nothing:
     * the holder is the first the DETAIL names. */
    " CASE WHEN (',' || w.queue || ',') LIKE '%,' || w.blocker_pid || ',%'"
    "  AND (',' || w.holders || ',') NOT LIKE '%,' || w.blocker_pid || ',%'"
    "  THEN CAST(w.holders AS INTEGER) ELSE w.blocker_pid END FROM lock_waits w;";

/* A tuple wait and the queue head's latest wait by then (a process waits
 * for one lock at a time) when that wait is for a transaction: whether it
 * was still on (ls_head_wait_on()) says whether the head was waiting for
 * the row's holder, and the holder is then the transaction that wait was
 * for, by its xid. Under a crowd a queue head woken by a commit may find
 * the row taken by a newcomer and wait again: in the instant between its
 * waits the message names it, holding no row. */
#define HEAD_COLS(X, Q)                                                                   \
    X(Q, wait_id, "f.wait_id")                                                            \
    X(Q, start_ts, "f.start_ts")                                                          \
    X(Q, logged_ts, "f.logged_ts")                                                        \
    X(Q, file_id, "f.file_id")                                                            \
    X(Q, line, "f.line")                                                                  \
    X(Q, head_pid, "h.blocker_pid")                                                       \
    X(Q, head_end_ts, "h.end_ts")                                                         \
    X(Q, head_end_file, "h.end_file")                                                     \
    X(Q, head_end_line, "h.end_line")                                                     \
    X(Q, head_tx, "(SELECT t.tx_id FROM transactions t WHERE t.xid = h.target_xid"       \
                  " AND t.pid = h.blocker_pid)")
LS_COLUMNS(hd, HEAD_COLS);
#define HEAD_SQL(HEAD_WAIT)                                                                \
    "SELECT " LS_SELECT_LIST(hd, HEAD_COLS)                                               \
    " FROM (SELECT w.wait_id, w.start_ts, w.logged_ts, w.file_id, w.line,"               \
    "  " HEAD_WAIT " AS head_wait FROM lock_waits w WHERE w.target_kind = 'tuple') f"      \
    " JOIN lock_waits h ON h.wait_id = f.head_wait WHERE h.target_kind = 'transaction'"   \
    /* every wait has its first message's time and line: never NULL */                   \
    " AND f.start_ts IS NOT NULL AND f.logged_ts IS NOT NULL AND f.file_id IS NOT NULL"   \
    " AND f.line IS NOT NULL ORDER BY f.wait_id"

static const char head_sql[] = HEAD_SQL(
    "(SELECT h2.wait_id FROM lock_waits h2 WHERE h2.pid = w.blocker_pid"
    " AND h2.start_ts <= w.logged_ts ORDER BY h2.start_ts DESC LIMIT 1)");

/* Whether log position (PF, PL) (file_id, line) comes before (QF, QL). */
#define POS_BEFORE(PF, PL, QF, QL) "(" PF " < " QF " OR (" PF " = " QF " AND " PL " < " QL "))"

/* Whole seconds: the head's waits that may have begun by the message tie
 * in time (a busy head waits again and again in one second), and the one
 * on at the message is told by log positions, as the chain walk does
 * (ls_wait_open_at): the latest logged by then, or begun a second before. */
static const char head_sec_sql[] = HEAD_SQL(
    "(SELECT x.wait_id FROM (SELECT wait_id, file_id, line, start_ts FROM lock_waits h2"
    "  WHERE h2.pid = w.blocker_pid AND h2.start_ts <= w.logged_ts + " LS_SQL_INT(LS_WHOLE_SECOND_US)
    "  ORDER BY h2.start_ts DESC LIMIT " LS_SQL_INT(LS_POS_CANDIDATES_WHOLE) ") x"
    " WHERE NOT " POS_BEFORE("w.file_id", "w.line", "x.file_id", "x.line")
    "  OR x.start_ts + " LS_SQL_INT(LS_WHOLE_SECOND_US) " <= w.logged_ts"
    " ORDER BY x.file_id DESC, x.line DESC LIMIT 1)");

static const char set_head_sql[] =
    "UPDATE wait_links SET holder_pid = :pid, holder_tx = :tx WHERE wait_id = :wait";
#define SET_HEAD_PARAMS(X, Q) X(Q, pid) X(Q, tx) X(Q, wait)
LS_PARAMS(sh, SET_HEAD_PARAMS);

/* The session of wait W's direct blocker when the message was logged. */
#define BLOCKER_SESSION(W)                                                                 \
    "coalesce(" W ".blocker_session, " SESSION_OF(W ".blocker_pid", W ".logged_ts") ")"

/* Links from tuple waits to their rows' holders, and every wait's
 * holder's transaction, once link_sql has found the holders it can. */
static const char link_holder_sql[] =
    /* The holder's transaction where link_sql found none: the awaited
     * one; else the one open at the message's log position; else the one
     * open when the wait was logged; else the one open when it began (a
     * tuple lock's row holder named by the queue head's wait may have
     * ended its transaction, in its own line, a few ms before the
     * waiter's line was stamped). */
    "UPDATE wait_links SET holder_tx = f.tx FROM (SELECT w.wait_id, coalesce("
    "  (SELECT t.tx_id FROM transactions t WHERE t.xid = (CASE WHEN w.holder_pid ="
    "     w.blocker_pid THEN w.blocker_xid END)"
    "   AND t.pid = w.holder_pid),"
    "  " POS_TX(SESSION_OF("w.holder_pid", "w.logged_ts"), "w") ","
    "  " OPEN_TX(SESSION_OF("w.holder_pid", "w.logged_ts"), "w.logged_ts", "0") ","
    "  " OPEN_TX(SESSION_OF("w.holder_pid", "w.start_ts"), "w.start_ts", "0") ") AS tx"
    "  FROM lock_waits w WHERE w.holder_tx IS NULL) f WHERE wait_links.wait_id = f.wait_id;"
    /* A queue head whose own wait for the row's transaction was not logged
     * (shorter than deadlock_timeout, or ended by a deadlock it found)
     * holds no row yet: the holder is the transaction whose hold of the
     * row spans the moment, when the statements show one (the queue head
     * otherwise). Holds of a row follow one another: the latest of another
     * transaction that began before then is the only candidate (one that
     * began in the same millisecond or second may have begun after the
     * message: the queue head's own, as it got the row). The pass's own
     * hold_rows, not the holds view: the passes that move a hold's bounds
     * run later, and the view's computed start_ts would not walk the
     * index on (row_id, start_ts). */
    "UPDATE wait_links SET holder_pid = c.pid, holder_tx = c.tx_id"
    " FROM (SELECT w.wait_id, w.logged_ts, w.holder_tx, (SELECT h.hold_id FROM hold_rows h"
    "   WHERE h.row_id = w.row_id AND h.start_ts < w.logged_ts"
    "   AND h.tx_id IS NOT w.waiter_tx"
    "   ORDER BY h.start_ts DESC LIMIT 1) AS hold_id FROM lock_waits w"
    "  WHERE w.target_kind = 'tuple' AND w.holder_pid = w.blocker_pid"
    "  AND w.row_id IS NOT NULL) f JOIN hold_rows c ON c.hold_id = f.hold_id"
    " WHERE wait_links.wait_id = f.wait_id AND c.end_ts > f.logged_ts"
    " AND c.tx_id IS NOT f.holder_tx;";

/* Still the queue head, with no hold of the row the statements show
 * spanning the moment, and the queue head between two of its waits for
 * the row in one transaction: the row went, as it woke, to the
 * transaction its next wait is for (that wait's holder, linked above),
 * when that one had begun by the message. */
#define LINK_NEXT_SQL(NEXT_WAIT, SAME_TX)                                                   \
    "UPDATE wait_links SET holder_pid = n.blocker_pid, holder_tx = t.tx_id"                 \
    " FROM (SELECT w.wait_id, w.row_id, w.start_ts, w.logged_ts, w.file_id, w.line,"        \
    "  w.blocker_pid, w.blocker_session, " NEXT_WAIT " AS next_wait"                        \
    "  FROM lock_waits w WHERE w.target_kind = 'tuple' AND w.holder_pid = w.blocker_pid) f" \
    " JOIN lock_waits n ON n.wait_id = f.next_wait"                                         \
    " JOIN transactions t ON t.tx_id = n.holder_tx"                                         \
    " WHERE wait_links.wait_id = f.wait_id AND n.target_kind = 'transaction'"               \
    "  AND n.row_id = f.row_id AND t.start_ts <= f.logged_ts"                               \
    "  AND " SAME_TX ";"

/* BETWEEN_WAITS: between_waits.h. */

static const char link_next_sql[] = LINK_NEXT_SQL(
    "(SELECT n2.wait_id FROM lock_waits n2 WHERE n2.pid = w.blocker_pid"
    " AND n2.start_ts > w.logged_ts ORDER BY n2.start_ts LIMIT 1)", BETWEEN_WAITS);

/* Whole seconds: the next wait is the head's first logged after the
 * message (its derived start may be a second before it), and a wait
 * logged after the message may have begun before it: the head's wait
 * not logged yet, which the chain walk cannot see either. That wait's
 * holder held the row when the head was in the transaction that waited
 * for it: the head's transaction open at the message's log position. */
static const char link_next_sec_sql[] = LINK_NEXT_SQL(
    "(SELECT x.wait_id FROM (SELECT wait_id, file_id, line FROM lock_waits n2"
    "  WHERE n2.pid = w.blocker_pid AND n2.start_ts >= w.logged_ts - " LS_SQL_INT(LS_WHOLE_SECOND_US)
    "  ORDER BY n2.start_ts LIMIT " LS_SQL_INT(LS_POS_CANDIDATES_WHOLE) ") x"
    " WHERE " POS_BEFORE("w.file_id", "w.line", "x.file_id", "x.line")
    " ORDER BY x.file_id, x.line LIMIT 1)",
    "(" BETWEEN_WAITS " OR n.waiter_tx = " POS_TX(BLOCKER_SESSION("f"), "f") ")");

/*
 * A pooled holder (issue 34, samples/blind-pool): the pid the DETAIL names
 * ran many requests' transactions one after another, and the one that
 * held the row may be rebuilt from its request's spans alone (txspans.c
 * "spans only": no pid, no session), which the steps above, by the pid's
 * session, cannot find. Each wait with a row and a holder pid, with what
 * they linked; ls_holder_tx() (decide/link.c) keeps that where it is by
 * xid or was open when the DETAIL named the pid (the wait's first
 * message, logged_ts), else takes the transaction whose hold of the row
 * covered that moment (holder_holds_sql). Sub-second logs only: on whole
 * seconds the moment is known within a second, which no hold's bounds
 * decide.
 */
#define HOLDER_COLS(X, Q)                                                                  \
    X(Q, wait_id, "w.wait_id")                                                            \
    X(Q, row_id, "w.row_id")                                                              \
    X(Q, logged_ts, "w.logged_ts")                                                        \
    X(Q, holder_pid, "w.holder_pid")                                                      \
    X(Q, waiter_tx, "w.waiter_tx")                                                        \
    X(Q, holder_tx, "w.holder_tx")                                                        \
    X(Q, by_xid, "coalesce(t.xid IS NOT NULL AND t.xid = w.blocker_xid, 0)")              \
    X(Q, tx_start, "t.start_ts")                                                          \
    X(Q, tx_end, "t.end_ts")                                                              \
    X(Q, locks_relation, "coalesce((SELECT 1 FROM hold_rows h JOIN rows hr"               \
                         " ON hr.row_id = h.row_id JOIN rows wr ON wr.row_id = w.row_id"  \
                         " WHERE h.tx_id = w.holder_tx AND hr.relation = wr.relation"     \
                         " LIMIT 1), 0)")                                                 \
    X(Q, relation, "(SELECT wr.relation FROM rows wr WHERE wr.row_id = w.row_id)")      \
    X(Q, tx_session, "t.session_id")                                                      \
    X(Q, tx_first, "t.first_stmt")                                                        \
    X(Q, tx_last, "t.last_stmt")                                                          \
    X(Q, start_ts, "w.start_ts")
LS_COLUMNS(hw, HOLDER_COLS);
/* The texts of a transaction's logged statements (its session's, from
 * its first to its last), for the relation each writes or locks
 * (ls_sql_relation). */
#define TX_TEXT_COLS(X, Q) X(Q, text, "st.text")
LS_COLUMNS(ttx, TX_TEXT_COLS);
static const char tx_texts_sql[] =
    "SELECT " LS_SELECT_LIST(ttx, TX_TEXT_COLS)
    " FROM stmt_rows r JOIN stmt_texts st ON st.text_id = r.text_id"
    " WHERE r.session_id = :sess AND r.stmt_id BETWEEN :first AND :last";
#define TX_TEXTS_PARAMS(X, Q) X(Q, sess) X(Q, first) X(Q, last)
LS_PARAMS(ttp, TX_TEXTS_PARAMS);

/* Whether a statement of the holder's linked transaction (the row of q,
 * holder_waits_sql) writes or locks the waited row's relation: 1, 0, or
 * an error code. */
static int linked_names_relation(ls_stmt *q, ls_stmt *tq)
{
    const char *want = ls_stmt_text_or_null(q, hw_relation);
    char rel[128];
    int rc;

    if (!want || ls_stmt_isnull(q, hw_tx_session) || ls_stmt_isnull(q, hw_tx_first) ||
        ls_stmt_isnull(q, hw_tx_last))
        return 0;
    ls_stmt_reset(tq);
    if ((rc = ls_stmt_bind_int64(tq, LS_PARAM(ttp, sess), ls_stmt_int64(q, hw_tx_session))) != 0 ||
        (rc = ls_stmt_bind_int64(tq, LS_PARAM(ttp, first), ls_stmt_int64(q, hw_tx_first))) != 0 ||
        (rc = ls_stmt_bind_int64(tq, LS_PARAM(ttp, last), ls_stmt_int64(q, hw_tx_last))) != 0)
        return rc;
    while ((rc = ls_stmt_step(tq)) == 1) {
        const char *sql = ls_stmt_text_or_null(tq, ttx_text);
        if (sql && ls_sql_relation(sql, rel, sizeof(rel)) && strcasecmp(rel, want) == 0) {
            rc = 1;
            break;
        }
    }
    ls_stmt_reset(tq);
    return rc;
}
static const char holder_waits_sql[] =
    "SELECT " LS_SELECT_LIST(hw, HOLDER_COLS) " FROM lock_waits w"
    " LEFT JOIN transactions t ON t.tx_id = w.holder_tx"
    " WHERE w.row_id IS NOT NULL AND w.holder_pid IS NOT NULL AND w.logged_ts IS NOT NULL"
    " ORDER BY w.wait_id";
/* The row's (:row) latest holds begun by the moment (:at) plus
 * LS_HOLDER_HOLD_AFTER_US, whose locking statement (or span) began before
 * it (the rest cover no part of it, and on a busy row they would
 * crowd the covering one out of the LIMIT): one probe of holds_row. */
#define HOLDER_HOLD_COLS(X, Q)                                                             \
    X(Q, tx_id, "h.tx_id")                                                                \
    X(Q, pid, "coalesce(h.pid, 0)")                                                       \
    X(Q, start_lo, "coalesce(h.start_lo, h.start_ts)")                                    \
    X(Q, start_ts, "h.start_ts")                                                          \
    X(Q, end_ts, "h.end_ts")
LS_COLUMNS(hh, HOLDER_HOLD_COLS);
static const char holder_holds_sql[] =
    "SELECT " LS_SELECT_LIST(hh, HOLDER_HOLD_COLS) " FROM hold_rows h WHERE h.row_id = :row"
    " AND h.start_ts <= :at + " LS_SQL_INT(LS_HOLDER_HOLD_AFTER_US)
    " AND coalesce(h.start_lo, h.start_ts) < :at"
    " AND h.tx_id IS NOT NULL ORDER BY h.start_ts DESC"
    " LIMIT " LS_SQL_INT(LS_HOLDER_HOLD_CANDIDATES);
#define HOLDER_HOLD_PARAMS(X, Q) X(Q, row) X(Q, at)
LS_PARAMS(hhp, HOLDER_HOLD_PARAMS);
static const char set_holder_tx_sql[] =
    "UPDATE wait_links SET holder_tx = :tx WHERE wait_id = :wait";
#define SET_HOLDER_PARAMS(X, Q) X(Q, tx) X(Q, wait)
LS_PARAMS(shp, SET_HOLDER_PARAMS);

/* Each wait's holder transaction by its hold of the row (ls_holder_tx()).
 * Updates only holder_tx, which the scan's filter does not read. */
static int link_pooled_holders(ls_store *s, int ends_unlogged)
{
    ls_holder_hold c[LS_HOLDER_HOLD_CANDIDATES];
    ls_stmt *q = NULL, *hq = NULL, *u = NULL, *tq = NULL;
    int64_t tick = 0;
    int rc;

    if ((rc = ls_log_resolution(s, &tick)) != 0 ||
        (rc = ls_store_prepare(s, holder_waits_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, tx_texts_sql, LS_PARAM_NAMES(TX_TEXTS_PARAMS),
                                      &tq)) != 0 ||
        (rc = ls_store_prepare_params(s, holder_holds_sql, LS_PARAM_NAMES(HOLDER_HOLD_PARAMS),
                                      &hq)) != 0 ||
        (rc = ls_store_prepare_params(s, set_holder_tx_sql, LS_PARAM_NAMES(SET_HOLDER_PARAMS),
                                      &u)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        ls_holder_wait w;
        size_t n = 0;
        int64_t tx;

        memset(&w, 0, sizeof(w));
        w.at = ls_stmt_int64(q, hw_logged_ts);
        w.holder_pid = ls_stmt_int64(q, hw_holder_pid);
        w.waiter_tx = ls_stmt_int64(q, hw_waiter_tx);
        w.linked_tx = ls_stmt_int64(q, hw_holder_tx);
        w.by_xid = (int)ls_stmt_int64(q, hw_by_xid);
        w.has_linked_span = w.linked_tx && !ls_stmt_isnull(q, hw_tx_start);
        w.linked_start = ls_stmt_int64(q, hw_tx_start);
        w.linked_end = ls_stmt_isnull(q, hw_tx_end) ? INT64_MAX : ls_stmt_int64(q, hw_tx_end);
        w.ends_unlogged = ends_unlogged;
        w.linked_locks_relation = (int)ls_stmt_int64(q, hw_locks_relation);
        w.start = ls_stmt_isnull(q, hw_start_ts) ? w.at : ls_stmt_int64(q, hw_start_ts);
        w.tick = tick;
        if (ls_holder_linked_kept(&w))
            continue; /* no probe */
        if (ends_unlogged == LS_ENDS_UNLOGGED_THRESHOLD && w.linked_tx &&
            !w.linked_locks_relation) {
            if ((rc = linked_names_relation(q, tq)) < 0)
                goto out;
            w.linked_locks_relation = rc;
        }
        ls_stmt_reset(hq);
        ls_stmt_bind_int64(hq, LS_PARAM(hhp, row), ls_stmt_int64(q, hw_row_id));
        ls_stmt_bind_int64(hq, LS_PARAM(hhp, at), w.at);
        while (n < LS_HOLDER_HOLD_CANDIDATES && (rc = ls_stmt_step(hq)) == 1) {
            c[n].tx = ls_stmt_int64(hq, hh_tx_id);
            c[n].pid = ls_stmt_int64(hq, hh_pid);
            c[n].start_lo = ls_stmt_int64(hq, hh_start_lo);
            c[n].start = ls_stmt_int64(hq, hh_start_ts);
            c[n].end = ls_stmt_isnull(hq, hh_end_ts) ? INT64_MAX : ls_stmt_int64(hq, hh_end_ts);
            n++;
        }
        ls_stmt_reset(hq);
        if (rc < 0)
            goto out;
        tx = ls_holder_tx(&w, c, n);
        if (tx == w.linked_tx)
            continue;
        ls_stmt_reset(u);
        ls_stmt_bind_int64(u, LS_PARAM(shp, wait), ls_stmt_int64(q, hw_wait_id));
        if (tx)
            ls_stmt_bind_int64(u, LS_PARAM(shp, tx), tx);
        else
            ls_stmt_bind_null(u, LS_PARAM(shp, tx)); /* unknown (ends_unlogged) */
        if ((rc = ls_stmt_step(u)) < 0)
            goto out;
    }
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(hq);
    ls_stmt_finalize(u);
    ls_stmt_finalize(tq);
    return rc < 0 ? rc : 0;
}

/* Links from waits to their blockers' and roots' transactions, once the
 * holders' are known. */
static const char link_blocker_sql[] =
    /* The direct blocker's transaction: the holder's when it holds the row;
     * else (a waiter ahead in a tuple lock's queue, which holds no row yet)
     * the one its own wait open then is linked to, so that both name the
     * same transaction, else the one its session had open when the wait
     * was logged. */
    "UPDATE wait_links SET blocker_tx = f.tx FROM (SELECT w.wait_id,"
    "  CASE WHEN w.blocker_pid = w.holder_pid THEN w.holder_tx ELSE"
    "  coalesce((SELECT x.waiter_tx FROM (SELECT b.waiter_tx, b.end_ts FROM lock_waits b"
    "   WHERE b.pid = w.blocker_pid AND b.start_ts <= w.logged_ts"
    "   ORDER BY b.start_ts DESC LIMIT 1) x"
    "   WHERE x.end_ts IS NULL OR x.end_ts >= w.logged_ts),"
    "  " OPEN_TX(BLOCKER_SESSION("w"), "w.logged_ts", "0") ") END AS tx"
    " FROM lock_waits w WHERE w.blocker_pid IS NOT NULL) f"
    " WHERE wait_links.wait_id = f.wait_id;";

/* Whole seconds: a waiter ahead in the queue's own wait is not told by
 * time from its waits just before and after; its transaction open at the
 * message's log position is. */
static const char link_blocker_sec_sql[] =
    "UPDATE wait_links SET blocker_tx = coalesce(f.tx, wait_links.blocker_tx)"
    " FROM (SELECT w.wait_id, " POS_TX(BLOCKER_SESSION("w"), "w") " AS tx FROM lock_waits w"
    "  WHERE w.blocker_pid IS NOT NULL AND w.blocker_pid IS NOT w.holder_pid) f"
    " WHERE wait_links.wait_id = f.wait_id;";

/* The root's transaction: what the links above found for each wait with a
 * root, for ls_root_tx() (decide/link.c) to choose from; where they say
 * nothing, it asks root_rest_sql for the transactions open at the
 * message's log position and time. */
#define ROOT_COLS(X, Q)                                                                    \
    X(Q, wait_id, "w.wait_id")                                                            \
    X(Q, root_pid, "w.root_pid")                                                          \
    X(Q, by_xid_tx, "(SELECT t.tx_id FROM transactions t WHERE t.xid = w.root_xid"       \
                    " AND t.pid = w.root_pid)")                                           \
    X(Q, holder_pid, "w.holder_pid")                                                      \
    X(Q, holder_tx, "w.holder_tx")                                                        \
    X(Q, blocker_pid, "w.blocker_pid")                                                    \
    X(Q, blocker_tx, "w.blocker_tx")
LS_COLUMNS(rl, ROOT_COLS);
static const char root_links_sql[] =
    "SELECT " LS_SELECT_LIST(rl, ROOT_COLS) " FROM lock_waits w WHERE w.root_pid IS NOT NULL"
    " ORDER BY w.wait_id";
#define ROOT_REST_COLS(X, Q)                                                               \
    X(Q, by_pos_tx, POS_TX("w.root_session", "w"))                                        \
    X(Q, by_time_tx, OPEN_TX("w.root_session", "w.logged_ts", "0"))
LS_COLUMNS(rr, ROOT_REST_COLS);
static const char root_rest_sql[] =
    "SELECT " LS_SELECT_LIST(rr, ROOT_REST_COLS) " FROM lock_waits w WHERE w.wait_id = :wait";
#define ROOT_REST_PARAMS(X, Q) X(Q, wait)
LS_PARAMS(rrp, ROOT_REST_PARAMS);
static const char set_root_tx_sql[] =
    "UPDATE wait_links SET root_tx = :tx WHERE wait_id = :wait";
#define SET_ROOT_PARAMS(X, Q) X(Q, tx) X(Q, wait)
LS_PARAMS(srp, SET_ROOT_PARAMS);

/* A chain that ended at the head of a tuple lock's queue, not logged as
 * waiting, goes on to the row's holder: the head holds the tuple lock only
 * while it waits for the row's transaction. wait_links' root_* replace the
 * chain walk's (view lock_waits). */
static const char root_holder_sql[] =
    "UPDATE wait_links SET root_pid = f.holder_pid, root_tx = f.holder_tx,"
    " root_session = t.session_id, root_xid = t.xid, chain_depth = f.chain_depth + 1"
    " FROM lock_waits f JOIN transactions t ON t.tx_id = f.holder_tx"
    " WHERE f.wait_id = wait_links.wait_id"
    " AND f.target_kind = 'tuple' AND f.root_pid = f.blocker_pid"
    " AND f.holder_pid <> f.blocker_pid;";

/* One xid, one transaction: every wait whose chain ends at a root pid's
 * xid is behind the same transaction, whatever each wait's own links chose
 * (on a log that cuts no transaction, a pid's statements are apart; the
 * waits after the xid's first statement ended were given the pid's next:
 * samples/blind-rb's pid 22163, xid 1432, one root listed twice). The
 * transaction is the one the waits that name the xid themselves (blocker
 * = root) were linked to, when they agree; else each wait keeps its own. */
static const char root_one_tx_sql[] =
    "DROP TABLE IF EXISTS temp.root_xid_tx;"
    "CREATE TEMP TABLE root_xid_tx AS SELECT w.root_pid AS pid, w.root_xid AS xid,"
    " min(w.root_tx) AS tx FROM lock_waits w WHERE w.root_xid IS NOT NULL"
    " AND w.root_tx IS NOT NULL AND w.blocker_pid = w.root_pid AND w.blocker_xid = w.root_xid"
    " GROUP BY w.root_pid, w.root_xid HAVING count(DISTINCT w.root_tx) = 1;"
    "UPDATE wait_links SET root_tx = d.tx FROM lock_waits w JOIN temp.root_xid_tx d"
    " ON d.pid = w.root_pid AND d.xid = w.root_xid"
    " WHERE wait_links.wait_id = w.wait_id AND wait_links.root_tx IS NOT d.tx;"
    "DROP TABLE temp.root_xid_tx;";

/* Each tuple wait's holder from the queue head's wait (head_sql): the
 * transaction that wait was for when it was still on at the tuple wait
 * (ls_head_wait_on()). */
static int link_heads(ls_store *s, int subsecond)
{
    ls_stmt *q = NULL, *u = NULL;
    int rc;

    if ((rc = ls_store_prepare(s, subsecond ? head_sql : head_sec_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, set_head_sql, LS_PARAM_NAMES(SET_HEAD_PARAMS), &u)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        ls_head_wait h; /* a NULL reads as 0: no end, no line (has_end*) */
        h.tuple_start = ls_stmt_int64(q, hd_start_ts);
        h.tuple_logged = ls_stmt_int64(q, hd_logged_ts);
        h.tuple_pos.file = ls_stmt_int64(q, hd_file_id);
        h.tuple_pos.line = ls_stmt_int64(q, hd_line);
        h.has_end = !ls_stmt_isnull(q, hd_head_end_ts);
        h.end_ts = ls_stmt_int64(q, hd_head_end_ts);
        h.end_pos.file = ls_stmt_int64(q, hd_head_end_file);
        h.end_pos.line = ls_stmt_int64(q, hd_head_end_line);
        h.has_end_line = !ls_stmt_isnull(q, hd_head_end_line);
        if (!ls_head_wait_on(&h, !subsecond))
            continue;
        ls_stmt_reset(u);
        ls_stmt_bind_int64(u, LS_PARAM(sh, wait), ls_stmt_int64(q, hd_wait_id));
        if (!ls_stmt_isnull(q, hd_head_pid))
            ls_stmt_bind_int64(u, LS_PARAM(sh, pid), ls_stmt_int64(q, hd_head_pid));
        if (!ls_stmt_isnull(q, hd_head_tx))
            ls_stmt_bind_int64(u, LS_PARAM(sh, tx), ls_stmt_int64(q, hd_head_tx));
        if ((rc = ls_stmt_step(u)) < 0)
            goto out;
    }
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(u);
    return rc < 0 ? rc : 0;
}

/* Each wait's root's transaction (ls_root_tx(): root_links_sql, then
 * root_rest_sql where the links say nothing). Updates only root_tx, which
 * the scan does not read. */
static int link_roots(ls_store *s, int ends_unlogged)
{
    ls_stmt *q = NULL, *rest = NULL, *u = NULL;
    int rc;

    if ((rc = ls_store_prepare(s, root_links_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, root_rest_sql, LS_PARAM_NAMES(ROOT_REST_PARAMS),
                                      &rest)) != 0 ||
        (rc = ls_store_prepare_params(s, set_root_tx_sql, LS_PARAM_NAMES(SET_ROOT_PARAMS),
                                      &u)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        ls_root_link l;
        int64_t tx;
        memset(&l, 0, sizeof(l));
        l.ends_unlogged = ends_unlogged;
        l.root_pid = ls_stmt_int64(q, rl_root_pid);
        l.by_xid_tx = ls_stmt_int64(q, rl_by_xid_tx);
        l.holder_pid = ls_stmt_int64(q, rl_holder_pid);
        l.holder_tx = ls_stmt_int64(q, rl_holder_tx);
        l.blocker_pid = ls_stmt_int64(q, rl_blocker_pid);
        l.blocker_tx = ls_stmt_int64(q, rl_blocker_tx);
        if (!ls_root_tx_linked(&l)) {
            /* The links say nothing: look by log position and by time. */
            ls_stmt_reset(rest);
            ls_stmt_bind_int64(rest, LS_PARAM(rrp, wait), ls_stmt_int64(q, rl_wait_id));
            if ((rc = ls_stmt_step(rest)) < 0)
                goto out;
            if (rc == 1) {
                l.by_pos_tx = ls_stmt_int64(rest, rr_by_pos_tx);
                l.by_time_tx = ls_stmt_int64(rest, rr_by_time_tx);
            }
            ls_stmt_reset(rest);
        }
        if (!(tx = ls_root_tx(&l)))
            continue;
        ls_stmt_reset(u);
        ls_stmt_bind_int64(u, LS_PARAM(srp, wait), ls_stmt_int64(q, rl_wait_id));
        ls_stmt_bind_int64(u, LS_PARAM(srp, tx), tx);
        if ((rc = ls_stmt_step(u)) < 0)
            goto out;
    }
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(rest);
    ls_stmt_finalize(u);
    return rc < 0 ? rc : 0;
}

/* Links from errors and deadlock participants to transactions (error_links,
 * deadlock_links: the raw rows stay as ingest wrote them). Their tx_id is
 * relink_txs()'s, for every row of a session (none without one): no pick
 * by time here (issue 38: OPEN_TX for each of them, which relink_txs()
 * then overwrote, was 3 M VM steps at 1 GiB). */
static const char link_errors_sql[] =
    "INSERT INTO error_links(error_id, tx_id, wait_id) SELECT e.error_id, NULL,"
    /* The wait the error ended: the process's latest wait by then. */
    " (SELECT x.wait_id FROM (SELECT wait_id, end_ts, outcome FROM lock_waits w"
    "  WHERE w.pid = e.pid AND w.start_ts <= e.ts ORDER BY w.start_ts DESC LIMIT 1) x"
    "  WHERE x.end_ts BETWEEN e.ts - " LS_SQL_INT(LS_ERROR_ENDS_WAIT_US) " AND e.ts"
    "   AND (x.outcome = e.class"
    /* PostgreSQL 18's log_lock_failures: "could not obtain" names the NOWAIT error's holder */
    "   OR (x.outcome = 'failed' AND e.class = 'lock_nowait')))"
    " FROM errors e WHERE e.class <> 'other';"
    "UPDATE error_links SET cause_tx = (SELECT w.holder_tx FROM lock_waits w"
    "  WHERE w.wait_id = error_links.wait_id) WHERE wait_id IS NOT NULL;"
    /* A transaction that logged an error before its ROLLBACK was aborted. */
    "UPDATE transactions SET outcome = 'aborted' WHERE outcome = 'rollback' AND EXISTS"
    " (SELECT 1 FROM errors e WHERE e.session_id = transactions.session_id"
    "  AND e.ts BETWEEN transactions.start_ts AND transactions.end_ts);";

/* Each deadlock's processes and their sessions, before the waits are
 * linked (relink_whole_waiters() reads the victims' transactions). A
 * process listed twice in one deadlock is one process. */
static const char deadlock_links_sql[] =
    "INSERT OR IGNORE INTO deadlock_links(deadlock_id, pid, session_id)"
    " SELECT p.deadlock_id, p.pid, " SESSION_OF("p.pid",
        "(SELECT d.ts FROM deadlocks d WHERE d.deadlock_id = p.deadlock_id)")
    " FROM deadlock_procs p ORDER BY p.rowid;";

/*
 * An error belongs to the transaction running in its session when it was
 * written, by log position (decide/errstmt.h, ls_error_tx()): OPEN_TX's
 * pick by time would take, on a whole-second log, the session's next
 * transaction begun in the error's second. relink_txs() picks for each
 * error link and each deadlock participant: the rows to relink
 * (RELINK_COLS: a key of two columns, the session, the moment and its
 * line; in time order), the session's candidates (the
 * LS_POS_CANDIDATES_WHOLE latest begun by the moment, decide/txwindow.h),
 * and the row's update (:tx, tx_id or NULL; :k1 :k2, its key:
 * RELINK_SET_PARAMS).
 */
#define RELINK_COLS(X, Q)                                                                  \
    X(Q, key1, "k1")                                                                      \
    X(Q, key2, "k2")                                                                      \
    X(Q, session_id, "session_id")                                                        \
    X(Q, ts, "ts")                                                                        \
    X(Q, file_id, "file_id")                                                              \
    X(Q, line, "line")                                                                    \
    X(Q, victim, "victim")
LS_COLUMNS(rl2, RELINK_COLS);
/* victim: the row may be linked to a deadlock victim's transaction that
 * spans.c rebuilt from its request's spans in a session that logged
 * statements (write_victims): a deadlock's participant or its ERROR; not
 * another error (a 40001 of the same pooled backend in that second). */
static const char relink_errors_sql[] =
    "SELECT l.error_id AS k1, 0 AS k2, e.session_id, e.ts, e.file_id, e.line,"
    " e.class = 'deadlock' AS victim"
    " FROM error_links l JOIN errors e ON e.error_id = l.error_id"
    " WHERE e.session_id IS NOT NULL ORDER BY e.ts";
static const char set_error_tx_sql[] =
    "UPDATE error_links SET tx_id = :tx WHERE error_id = :k1 AND :k2 = 0";
#define RELINK_SET_PARAMS(X, Q) X(Q, tx) X(Q, k1) X(Q, k2)
LS_PARAMS(rsp, RELINK_SET_PARAMS);
static const char relink_deadlocks_sql[] =
    "SELECT l.deadlock_id AS k1, l.pid AS k2, l.session_id, d.ts, d.file_id, d.line,"
    " 1 AS victim"
    " FROM deadlock_links l JOIN deadlocks d ON d.deadlock_id = l.deadlock_id"
    " WHERE l.session_id IS NOT NULL ORDER BY d.ts";
static const char set_deadlock_tx_sql[] =
    "UPDATE deadlock_links SET tx_id = :tx WHERE deadlock_id = :k1 AND pid = :k2";

/* The session's (:session) transactions begun by :by and after the latest
 * its window keeps (begun at :latest_start, tx_id :latest_tx), latest
 * first, at most
 * LS_POS_CANDIDATES_WHOLE, each with its first statement's line (0 0
 * where the statement or its line is not stored) and whether that is a
 * span's (verb 5, LS_VERB_SPAN). The rows come in time order and each
 * session's window keeps what the row before read, so that a transaction
 * is read once, not once for each row it is a candidate of (issue 38,
 * tx38d: on the 1 GiB bench log 23,510 rows took 752,320 candidates, 32
 * each, and 253,801 probes of their first statements); in time order, so
 * that the pages of transactions and stmt_rows the rows read are those
 * the rows before read (a walk session by session read each page once
 * per session). transactions_session serves it in its order (start_ts,
 * then tx_id: the index's rowid): no sort. */
#define TX_CAND_COLS(X, Q)                                                                 \
    X(Q, tx_id, "t.tx_id")                                                                \
    X(Q, start_ts, "t.start_ts")                                                          \
    X(Q, has_end, "t.end_ts IS NOT NULL")                                                 \
    X(Q, end_ts, "coalesce(t.end_ts, 0)")                                                 \
    X(Q, file_id, "coalesce(f.file_id, 0)")                                               \
    X(Q, line, "coalesce(f.line, 0)")                                                     \
    X(Q, span, "f.verb IS 5")
LS_COLUMNS(tc, TX_CAND_COLS);
static const char tx_candidates_sql[] =
    "SELECT " LS_SELECT_LIST(tc, TX_CAND_COLS) " FROM transactions t"
    " LEFT JOIN stmt_rows f ON f.stmt_id = t.first_stmt"
    " WHERE t.session_id = :session AND t.start_ts <= :by AND t.start_ts >= :latest_start"
    " AND (t.start_ts > :latest_start OR t.tx_id > :latest_tx)"
    " ORDER BY t.start_ts DESC, t.tx_id DESC LIMIT " LS_SQL_INT(LS_POS_CANDIDATES_WHOLE);
#define TX_CAND_PARAMS(X, Q) X(Q, session) X(Q, by) X(Q, latest_start) X(Q, latest_tx)
LS_PARAMS(tcp, TX_CAND_PARAMS);
/* Whether the session (:session) logged a statement that is not a span's: a
 * candidate begun by a span's statement is open only in a session that
 * logged none, unless the row is a victim's (RELINK_COLS' victim). */
static const char session_logged_sql[] =
    "SELECT EXISTS (SELECT 1 FROM stmt_rows x WHERE x.session_id = :session AND x.verb IS NOT 5)";
#define SESSION_LOGGED_PARAMS(X, Q) X(Q, session)
LS_PARAMS(slp, SESSION_LOGGED_PARAMS);

typedef struct relink_q {
    ls_stmt *cand, *logged, *u;
    int64_t slack;          /* as OPEN_TX's */
    int64_t logged_session; /* the session `has_logged` is of, 0: none yet */
    int has_logged;
    ls_txwin_slots wins; /* each session's window by its row before */
} relink_q;

/* Whether session `session` logged a statement that is not a span's. */
static int relink_logged(relink_q *r, int64_t session, int *out)
{
    int rc;
    if (r->logged_session != session || session == 0) {
        ls_stmt_reset(r->logged);
        if ((rc = ls_stmt_bind_int64(r->logged, LS_PARAM(slp, session), session)) != 0 ||
            (rc = ls_stmt_step(r->logged)) < 0)
            return rc;
        r->has_logged = rc == 1 && ls_stmt_int64(r->logged, LS_ONLY_COLUMN);
        ls_stmt_reset(r->logged);
        r->logged_session = session;
    }
    *out = r->has_logged;
    return 0;
}

/* The window of `session` for moment ts (rows in time order): what it
 * kept by the session's row before, with the transactions begun since
 * (tx_candidates_sql). */
static int relink_window(relink_q *r, int64_t session, int64_t ts, const ls_txwin **out)
{
    ls_txwin *w = ls_txwin_of(&r->wins, session);
    const ls_txwin_tx *latest;
    ls_txwin_tx batch[LS_TXWIN_CAP];
    size_t nb = 0;
    int rc;

    latest = ls_txwin_at(w, 0);
    ls_stmt_reset(r->cand);
    if ((rc = ls_stmt_bind_int64(r->cand, LS_PARAM(tcp, session), session)) != 0 ||
        (rc = ls_stmt_bind_int64(r->cand, LS_PARAM(tcp, by), ts + r->slack)) != 0 ||
        (rc = ls_stmt_bind_int64(r->cand, LS_PARAM(tcp, latest_start),
                                 latest ? latest->start : INT64_MIN)) != 0 ||
        (rc = ls_stmt_bind_int64(r->cand, LS_PARAM(tcp, latest_tx),
                                 latest ? latest->tx_id : INT64_MIN)) != 0)
        return rc;
    while (nb < LS_TXWIN_CAP && (rc = ls_stmt_step(r->cand)) == 1) {
        ls_txwin_tx *x = &batch[nb++];
        x->tx_id = ls_stmt_int64(r->cand, tc_tx_id);
        x->start = ls_stmt_int64(r->cand, tc_start_ts);
        x->has_end = (int)ls_stmt_int64(r->cand, tc_has_end);
        x->end = ls_stmt_int64(r->cand, tc_end_ts);
        x->first.file = ls_stmt_int64(r->cand, tc_file_id);
        x->first.line = ls_stmt_int64(r->cand, tc_line);
        x->span = (int)ls_stmt_int64(r->cand, tc_span);
    }
    ls_stmt_reset(r->cand);
    if (rc < 0)
        return rc;
    while (nb > 0)
        if (ls_txwin_add(w, &batch[--nb]) != 0)
            return LS_ESTORE; /* not in the order it asked for */
    *out = w;
    return 0;
}

/* One row of a relink query: its transaction by ls_error_tx(), stored. */
static int relink_one(ls_stmt *q, relink_q *r)
{
    ls_stmt *u = r->u;
    ls_tx_candidate c[LS_TXWIN_CAP];
    ls_logpos err = {ls_stmt_int64(q, rl2_file_id), ls_stmt_int64(q, rl2_line)};
    int64_t session = ls_stmt_int64(q, rl2_session_id), ts = ls_stmt_int64(q, rl2_ts);
    int victim = ls_stmt_int64(q, rl2_victim) != 0;
    const ls_txwin *win = NULL;
    const ls_txwin_tx *x;
    size_t n = 0;
    int rc, pick;

    /* no time: no transaction begun by it */
    if (!ls_stmt_isnull(q, rl2_ts) && (rc = relink_window(r, session, ts, &win)) != 0)
        return rc;
    for (; win && (x = ls_txwin_at(win, n)) != NULL; n++) {
        int logged;
        c[n].first = x->first;
        c[n].open = ls_tx_open_by_time(x->has_end, x->end, ts, r->slack);
        if (c[n].open && !victim && x->span) {
            if ((rc = relink_logged(r, session, &logged)) != 0)
                return rc;
            c[n].open = !logged;
        }
    }
    pick = ls_error_tx(c, n, err);
    ls_stmt_reset(u);
    if ((rc = pick >= 0 ? ls_stmt_bind_int64(u, LS_PARAM(rsp, tx),
                                             ls_txwin_at(win, (size_t)pick)->tx_id)
                        : ls_stmt_bind_text(u, LS_PARAM(rsp, tx), NULL)) != 0 ||
        (rc = ls_stmt_bind_int64(u, LS_PARAM(rsp, k1), ls_stmt_int64(q, rl2_key1))) != 0 ||
        (rc = ls_stmt_bind_int64(u, LS_PARAM(rsp, k2), ls_stmt_int64(q, rl2_key2))) != 0)
        return rc;
    rc = ls_stmt_step(u);
    return rc < 0 ? rc : 0;
}

/* Each row of select_sql relinked (update_sql), slack as OPEN_TX's. The
 * update sets tx_id, a column the scan does not read (as link_roots()). */
static int relink_txs(ls_store *s, const char *select_sql, const char *update_sql, int64_t slack)
{
    ls_stmt *q = NULL;
    relink_q *r = calloc(1, sizeof(*r));
    int rc;

    if (!r)
        return LS_ENOMEM;
    r->slack = slack;
    ls_txwin_slots_reset(&r->wins);
    if ((rc = ls_store_prepare(s, select_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, tx_candidates_sql, LS_PARAM_NAMES(TX_CAND_PARAMS),
                                      &r->cand)) != 0 ||
        (rc = ls_store_prepare_params(s, session_logged_sql,
                                      LS_PARAM_NAMES(SESSION_LOGGED_PARAMS), &r->logged)) != 0 ||
        (rc = ls_store_prepare_params(s, update_sql, LS_PARAM_NAMES(RELINK_SET_PARAMS),
                                      &r->u)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1)
        if ((rc = relink_one(q, r)) != 0)
            break;
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(r->cand);
    ls_stmt_finalize(r->logged);
    ls_stmt_finalize(r->u);
    free(r);
    return rc < 0 ? rc : 0;
}

/*
 * Whole seconds: a deadlock victim on a pooled backend whose transaction
 * spans.c rebuilt from its request's spans (write_victims) is linked to
 * it (decide/victim.h, ls_victim_tx()): the position rule above takes
 * another client's logged transaction of that second. The victims
 * (VICTIM_LINK_COLS), the session's transactions begun by the end of the
 * deadlock's second (:ts + :res), latest first, whether each began with a
 * span's statement (verb 5, LS_VERB_SPAN).
 */
#define VICTIM_LINK_COLS(X, Q)                \
    X(Q, deadlock_id, "l.deadlock_id")        \
    X(Q, pid, "l.pid")                        \
    X(Q, session_id, "l.session_id")          \
    X(Q, ts, "d.ts")
LS_COLUMNS(vl, VICTIM_LINK_COLS);
static const char victim_links_sql[] =
    "SELECT " LS_SELECT_LIST(vl, VICTIM_LINK_COLS) " FROM deadlock_links l"
    " JOIN deadlocks d ON d.deadlock_id = l.deadlock_id AND d.victim_pid = l.pid"
    " WHERE l.session_id IS NOT NULL AND d.ts IS NOT NULL"
    " ORDER BY d.ts, d.file_id, d.line, l.deadlock_id"; /* the log's order */
#define VICTIM_TX_USED 256 /* transactions linked to the latest victims, kept */
#define VICTIM_CAND_COLS(X, Q)                          \
    X(Q, tx_id, "t.tx_id")                              \
    X(Q, start_ts, "t.start_ts")                        \
    X(Q, end_ts, "coalesce(t.end_ts, 0)")               \
    X(Q, from_spans, "f.verb IS 5")
LS_COLUMNS(vc, VICTIM_CAND_COLS);
static const char victim_cands_sql[] =
    "SELECT " LS_SELECT_LIST(vc, VICTIM_CAND_COLS) " FROM transactions t"
    " LEFT JOIN stmt_rows f ON f.stmt_id = t.first_stmt"
    " WHERE t.session_id = :session AND t.start_ts <= :ts + :res"
    " ORDER BY t.start_ts DESC, t.tx_id DESC LIMIT " LS_SQL_INT(LS_POS_CANDIDATES_WHOLE);
#define VICTIM_CAND_PARAMS(X, Q) X(Q, session) X(Q, ts) X(Q, res)
LS_PARAMS(vcp, VICTIM_CAND_PARAMS);

static int relink_victim(ls_stmt *q, ls_stmt *cand, ls_stmt *u, int64_t res, int64_t *used,
                         size_t *nused)
{
    size_t j, kept = *nused < VICTIM_TX_USED ? *nused : VICTIM_TX_USED;
    ls_victim_tx_cand c[LS_POS_CANDIDATES_WHOLE];
    int64_t ids[LS_POS_CANDIDATES_WHOLE], ts = ls_stmt_int64(q, vl_ts);
    size_t n = 0;
    int rc, pick;

    ls_stmt_reset(cand);
    if ((rc = ls_stmt_bind_int64(cand, LS_PARAM(vcp, session),
                                 ls_stmt_int64(q, vl_session_id))) != 0 ||
        (rc = ls_stmt_bind_int64(cand, LS_PARAM(vcp, ts), ts)) != 0 ||
        (rc = ls_stmt_bind_int64(cand, LS_PARAM(vcp, res), res)) != 0)
        return rc;
    while (n < LS_POS_CANDIDATES_WHOLE && (rc = ls_stmt_step(cand)) == 1) {
        ids[n] = ls_stmt_int64(cand, vc_tx_id);
        c[n].start = ls_stmt_int64(cand, vc_start_ts);
        c[n].end = ls_stmt_int64(cand, vc_end_ts);
        c[n].from_spans = (int)ls_stmt_int64(cand, vc_from_spans);
        c[n].victim_before = 0;
        for (j = 0; j < kept; j++)
            if (used[j] == ids[n])
                c[n].victim_before = 1;
        n++;
    }
    ls_stmt_reset(cand);
    if (rc < 0)
        return rc;
    if ((pick = ls_victim_tx(c, n, ts, res)) < 0)
        return 0;
    used[(*nused)++ % VICTIM_TX_USED] = ids[pick];
    ls_stmt_reset(u);
    if ((rc = ls_stmt_bind_int64(u, LS_PARAM(rsp, tx), ids[pick])) != 0 ||
        (rc = ls_stmt_bind_int64(u, LS_PARAM(rsp, k1), ls_stmt_int64(q, vl_deadlock_id))) != 0 ||
        (rc = ls_stmt_bind_int64(u, LS_PARAM(rsp, k2), ls_stmt_int64(q, vl_pid))) != 0)
        return rc;
    rc = ls_stmt_step(u);
    return rc < 0 ? rc : 0;
}

/* Each victim of a whole-second log relinked by relink_victim(). */
static int relink_victims(ls_store *s)
{
    ls_stmt *q = NULL, *cand = NULL, *u = NULL;
    int64_t res = 0, used[VICTIM_TX_USED];
    size_t nused = 0;
    int rc;

    if ((rc = ls_log_resolution(s, &res)) != 0 || res == 0)
        return rc;
    if ((rc = ls_store_prepare(s, victim_links_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, victim_cands_sql, LS_PARAM_NAMES(VICTIM_CAND_PARAMS),
                                      &cand)) != 0 ||
        (rc = ls_store_prepare_params(s, set_deadlock_tx_sql, LS_PARAM_NAMES(RELINK_SET_PARAMS),
                                      &u)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1)
        if ((rc = relink_victim(q, cand, u, res, used, &nused)) != 0)
            break;
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(cand);
    ls_stmt_finalize(u);
    return rc < 0 ? rc : 0;
}

/*
 * Whole seconds: a deadlock wait's waiter transaction (decide/waittx.h).
 * link_sql took the session's transaction open at the wait's derived
 * start, the first instant of the second it may have begun in: behind a
 * pooler that is another client's transaction, or none (blind-pool: 38
 * of 62 deadlock waits' traces were not the victim's). Each deadlock
 * wait is read against the transactions whose span times fit the whole
 * interval; the wait's own deadlock (the victim's first deadlock after
 * the wait's line) names its transaction where relink_victims() found
 * one. Where nothing or several fit the wait is not linked.
 */
#define WHOLE_BEGIN_SEEN_US 60000000
#define WHOLE_WAIT_COLS(X, Q)                                                             \
    X(Q, wait_id, "w.wait_id")                                                            \
    X(Q, session_id, "w.session_id")                                                      \
    X(Q, start_ts, "w.start_ts")                                                          \
    X(Q, end_ts, "w.end_ts")                                                              \
    X(Q, waited_us, "CAST(round(coalesce(w.waited_ms, 0) * 1000) AS INTEGER)")           \
    X(Q, linked_tx, "coalesce(w.waiter_tx, 0)")                                          \
    X(Q, by_pos, "coalesce((SELECT w.waiter_stmt BETWEEN t.first_stmt AND t.last_stmt"    \
                 " FROM transactions t WHERE t.tx_id = w.waiter_tx), 0)")                 \
    /* the session logged a BEGIN line in the minute before the wait or in  \
     * its second (:res, the resolution): its transactions' ends are in the   \
     * log (WHOLE_NO_END is an autocommit) */                               \
    X(Q, logs_begin, "EXISTS (SELECT 1 FROM transactions b JOIN stmt_rows f"             \
                     " ON f.stmt_id = b.first_stmt WHERE b.session_id = w.session_id"    \
                     " AND b.start_ts BETWEEN w.start_ts - " LS_SQL_INT(WHOLE_BEGIN_SEEN_US) \
                     " AND w.start_ts + :res AND b.explicit = 1 AND f.verb IS NOT 5)")     \
    X(Q, victim_tx, "coalesce((SELECT l.tx_id FROM deadlocks d LEFT JOIN deadlock_links l" \
                    " ON l.deadlock_id = d.deadlock_id AND l.pid = d.victim_pid"          \
                    " WHERE d.victim_pid = w.pid AND "                                   \
                    POS_BEFORE("w.file_id", "w.line", "d.file_id", "d.line")             \
                    " ORDER BY d.file_id, d.line LIMIT 1), 0)")
LS_COLUMNS(ww, WHOLE_WAIT_COLS);
static const char whole_waits_sql[] =
    "SELECT " LS_SELECT_LIST(ww, WHOLE_WAIT_COLS) " FROM lock_waits w"
    " WHERE w.outcome = 'deadlock' AND w.session_id IS NOT NULL AND w.start_ts IS NOT NULL"
    " AND w.end_ts IS NOT NULL AND w.file_id IS NOT NULL AND w.line IS NOT NULL"
    " ORDER BY w.file_id, w.line, w.wait_id"; /* the log's order */
#define WHOLE_WAITS_PARAMS(X, Q) X(Q, res)
LS_PARAMS(wwp, WHOLE_WAITS_PARAMS);
#define WHOLE_TX_TAKEN 256 /* transactions the latest deadlock waits took, kept */
/* A transaction's end is a span's (to the microsecond) when its evidence
 * names a span (txspans.c) or its last statement is one (spans.c
 * write_victims), else the log's line's: within the second after it. One
 * that ends at its last logged statement has no known end (under
 * log_min_duration_statement its COMMIT or ROLLBACK, or its failed
 * statement, logs no line): it may have run on and been aborted
 * (end_open), unless its session logs BEGIN lines (then it is an
 * autocommit statement: samples/deadlock-holds). */
#define WHOLE_NO_END "t.end_known IN ('statement', 'statement start', 'last statement')"
#define WHOLE_CAND_COLS(X, Q)                                                              \
    X(Q, tx_id, "t.tx_id")                                                                \
    X(Q, start_ts, "t.start_ts")                                                          \
    X(Q, end_ts, "coalesce(t.end_ts, 0)")                                                 \
    X(Q, end_res, "CASE WHEN t.end_known LIKE '%span%' OR (SELECT l.verb FROM stmt_rows l" \
                  " WHERE l.stmt_id = t.last_stmt) IS 5 THEN 0 ELSE :res END")             \
    X(Q, end_open, WHOLE_NO_END " AND t.end_ts IS NOT NULL")                               \
    X(Q, aborted, "t.outcome IN ('aborted', 'rollback')")
LS_COLUMNS(wc, WHOLE_CAND_COLS);
static const char whole_cands_sql[] =
    "SELECT " LS_SELECT_LIST(wc, WHOLE_CAND_COLS) " FROM transactions t"
    " WHERE t.session_id = :session AND t.start_ts < :before"
    " ORDER BY t.start_ts DESC, t.tx_id DESC LIMIT " LS_SQL_INT(LS_POS_CANDIDATES_WHOLE);
/* :res first: the SELECT list (end_res) uses it before the WHERE */
#define WHOLE_CANDS_PARAMS(X, Q) X(Q, res) X(Q, session) X(Q, before)
LS_PARAMS(wcp, WHOLE_CANDS_PARAMS);
/* The statement the wait was read with stays only if it is the
 * transaction's. */
static const char set_whole_waiter_sql[] =
    "UPDATE wait_links SET waiter_tx = :tx, waiter_stmt = (SELECT CASE WHEN :tx IS NULL"
    "  OR wait_links.waiter_stmt BETWEEN t.first_stmt AND t.last_stmt"
    "  THEN wait_links.waiter_stmt END FROM (SELECT 1) LEFT JOIN transactions t ON t.tx_id = :tx)"
    " WHERE wait_id = :wait";
#define SET_WAITER_PARAMS(X, Q) X(Q, tx) X(Q, wait)
LS_PARAMS(swp, SET_WAITER_PARAMS);

static int relink_whole_waiter(ls_stmt *q, ls_stmt *cand, ls_stmt *u, int64_t res,
                               int64_t *taken, size_t *ntaken)
{
    size_t j, kept = *ntaken < WHOLE_TX_TAKEN ? *ntaken : WHOLE_TX_TAKEN;
    ls_wait_tx_cand c[LS_POS_CANDIDATES_WHOLE];
    int64_t ids[LS_POS_CANDIDATES_WHOLE], victim = ls_stmt_int64(q, ww_victim_tx);
    int64_t linked = ls_stmt_int64(q, ww_linked_tx);
    int logs_begin = (int)ls_stmt_int64(q, ww_logs_begin);
    int by_pos = (int)ls_stmt_int64(q, ww_by_pos);
    ls_wait_tx_wait w;
    size_t n = 0;
    int rc, pick;

    w.start_lo = ls_stmt_int64(q, ww_start_ts);
    w.end_lo = ls_stmt_int64(q, ww_end_ts);
    w.waited = ls_stmt_int64(q, ww_waited_us);
    w.res = res;
    w.slack = LS_VICTIM_CLOCK_SLACK_US;
    w.deadlock = 1;
    ls_stmt_reset(cand);
    if ((rc = ls_stmt_bind_int64(cand, LS_PARAM(wcp, session), ls_stmt_int64(q, ww_session_id))) !=
            0 ||
        (rc = ls_stmt_bind_int64(cand, LS_PARAM(wcp, before), w.start_lo + res + w.slack)) != 0 ||
        (rc = ls_stmt_bind_int64(cand, LS_PARAM(wcp, res), res)) != 0)
        return rc;
    while (n < LS_POS_CANDIDATES_WHOLE && (rc = ls_stmt_step(cand)) == 1) {
        ids[n] = ls_stmt_int64(cand, wc_tx_id);
        c[n].start = ls_stmt_int64(cand, wc_start_ts);
        c[n].end = ls_stmt_int64(cand, wc_end_ts);
        c[n].end_res = ls_stmt_int64(cand, wc_end_res);
        c[n].end_open = !logs_begin && ls_stmt_int64(cand, wc_end_open);
        c[n].aborted = (int)ls_stmt_int64(cand, wc_aborted);
        c[n].victim = victim != 0 && ids[n] == victim;
        c[n].linked = linked != 0 && ids[n] == linked;
        c[n].by_pos = c[n].linked && by_pos;
        c[n].taken = 0;
        for (j = 0; j < kept; j++)
            if (taken[j] == ids[n])
                c[n].taken = 1;
        n++;
    }
    ls_stmt_reset(cand);
    if (rc < 0)
        return rc;
    pick = ls_wait_tx_pick(c, n, &w);
    if (pick >= 0)
        taken[(*ntaken)++ % WHOLE_TX_TAKEN] = ids[pick];
    ls_stmt_reset(u);
    if ((rc = ls_stmt_bind_int64(u, LS_PARAM(swp, wait), ls_stmt_int64(q, ww_wait_id))) != 0 ||
        (rc = pick >= 0 ? ls_stmt_bind_int64(u, LS_PARAM(swp, tx), ids[pick])
                        : ls_stmt_bind_null(u, LS_PARAM(swp, tx))) != 0)
        return rc;
    rc = ls_stmt_step(u);
    return rc < 0 ? rc : 0;
}

/* Each deadlock wait of a whole-second log relinked by
 * relink_whole_waiter(), once relink_victims() has linked the deadlocks. */
static int relink_whole_waiters(ls_store *s)
{
    ls_stmt *q = NULL, *cand = NULL, *u = NULL;
    int64_t res = 0, taken[WHOLE_TX_TAKEN];
    size_t ntaken = 0;
    int rc;

    if ((rc = ls_log_resolution(s, &res)) != 0 || res == 0)
        return rc;
    if ((rc = relink_victims(s)) != 0)
        return rc;
    if ((rc = ls_store_prepare_params(s, whole_waits_sql, LS_PARAM_NAMES(WHOLE_WAITS_PARAMS),
                                      &q)) != 0 ||
        (rc = ls_store_prepare_params(s, whole_cands_sql, LS_PARAM_NAMES(WHOLE_CANDS_PARAMS),
                                      &cand)) != 0 ||
        (rc = ls_store_prepare_params(s, set_whole_waiter_sql, LS_PARAM_NAMES(SET_WAITER_PARAMS),
                                      &u)) != 0 ||
        (rc = ls_stmt_bind_int64(q, LS_PARAM(wwp, res), res)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1)
        if ((rc = relink_whole_waiter(q, cand, u, res, taken, &ntaken)) != 0)
            break;
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(cand);
    ls_stmt_finalize(u);
    return rc < 0 ? rc : 0;
}

/*
 * Whole seconds: a deadlock wait's holder transaction
 * (ls_wait_holder_stmt_pick()): the one running the holder process's
 * DETAIL statement at the deadlock that ended the wait, where the
 * holder's transaction is not the awaited xid's. blind-pool's %t log:
 * the holder's trace held the row for 25 of the 62 deadlock waits.
 */
#define DL_HOLDER_COLS(X, Q)                                                              \
    X(Q, wait_id, "f.wait_id")                                                            \
    X(Q, session_id, SESSION_OF("f.holder_pid", "d.ts"))                                  \
    X(Q, ts, "d.ts")                                                                      \
    X(Q, text_id, "(SELECT p.text_id FROM deadlock_procs p WHERE p.deadlock_id ="       \
                  " d.deadlock_id AND p.pid = f.holder_pid AND p.text_id IS NOT NULL"      \
                  " ORDER BY p.rowid LIMIT 1)")
LS_COLUMNS(dh, DL_HOLDER_COLS);
static const char dl_holders_sql[] =
    "SELECT " LS_SELECT_LIST(dh, DL_HOLDER_COLS) " FROM (SELECT w.wait_id, w.holder_pid,"
    "  (SELECT d2.deadlock_id FROM deadlocks d2 WHERE d2.victim_pid = w.pid AND "
    POS_BEFORE("w.file_id", "w.line", "d2.file_id", "d2.line")
    "   ORDER BY d2.file_id, d2.line LIMIT 1) AS deadlock_id FROM lock_waits w"
    "  WHERE w.outcome = 'deadlock' AND w.holder_pid IS NOT NULL AND w.file_id IS NOT NULL"
    "  AND w.line IS NOT NULL AND NOT EXISTS (SELECT 1 FROM transactions t"
    "   WHERE t.tx_id = w.holder_tx AND t.xid IS NOT NULL AND t.xid = w.blocker_xid)) f"
    " JOIN deadlocks d ON d.deadlock_id = f.deadlock_id WHERE d.ts IS NOT NULL"
    " ORDER BY f.wait_id";
#define DL_STMT_CANDIDATES 4
#define DL_STMT_COLS(X, Q)                      \
    X(Q, stmt_id, "st.stmt_id")                 \
    X(Q, start_ts, "st.start_ts")               \
    X(Q, end_ts, "CASE WHEN st.dur_us IS NULL THEN -1 ELSE st.start_ts + st.dur_us END")
LS_COLUMNS(ds, DL_STMT_COLS);
static const char dl_stmts_sql[] =
    "SELECT " LS_SELECT_LIST(ds, DL_STMT_COLS) " FROM stmt_rows st"
    " WHERE st.session_id = :session AND st.start_ts <= :ts + :res AND st.text_id = :text"
    " ORDER BY st.start_ts DESC, st.stmt_id DESC LIMIT " LS_SQL_INT(DL_STMT_CANDIDATES);
#define DL_STMTS_PARAMS(X, Q) X(Q, session) X(Q, ts) X(Q, res) X(Q, text)
LS_PARAMS(dsp, DL_STMTS_PARAMS);
/* The transaction of that statement, when its request's spans gave its
 * BEGIN or its end (txspans.c): a transaction the log alone cut at the
 * statement (log_min_duration_statement) is not the one that held the row
 * before it, and its hold would be moved back to the wait's start. */
static const char dl_stmt_tx_sql[] =
    "SELECT x.tx_id FROM (SELECT tx_id, last_stmt, start_known, end_known FROM transactions"
    " WHERE session_id = :session AND first_stmt <= :stmt ORDER BY first_stmt DESC LIMIT 1) x"
    " WHERE x.last_stmt >= :stmt AND (x.start_known LIKE '%span%' OR x.end_known LIKE '%span%')";
#define DL_STMT_TX_PARAMS(X, Q) X(Q, session) X(Q, stmt)
LS_PARAMS(dtp, DL_STMT_TX_PARAMS);

static int relink_whole_holder(ls_stmt *q, ls_stmt *sq, ls_stmt *txq, ls_stmt *u, int64_t res)
{
    ls_wait_holder_stmt c[DL_STMT_CANDIDATES];
    int64_t ids[DL_STMT_CANDIDATES], ts = ls_stmt_int64(q, dh_ts);
    int64_t session = ls_stmt_int64(q, dh_session_id);
    size_t n = 0;
    int rc, pick;

    if (ls_stmt_isnull(q, dh_session_id) || ls_stmt_isnull(q, dh_text_id))
        return 0;
    ls_stmt_reset(sq);
    if ((rc = ls_stmt_bind_int64(sq, LS_PARAM(dsp, session), session)) != 0 ||
        (rc = ls_stmt_bind_int64(sq, LS_PARAM(dsp, text), ls_stmt_int64(q, dh_text_id))) != 0 ||
        (rc = ls_stmt_bind_int64(sq, LS_PARAM(dsp, ts), ts)) != 0 ||
        (rc = ls_stmt_bind_int64(sq, LS_PARAM(dsp, res), res)) != 0)
        return rc;
    while (n < DL_STMT_CANDIDATES && (rc = ls_stmt_step(sq)) == 1) {
        ids[n] = ls_stmt_int64(sq, ds_stmt_id);
        c[n].start = ls_stmt_int64(sq, ds_start_ts);
        c[n].end = ls_stmt_int64(sq, ds_end_ts);
        n++;
    }
    ls_stmt_reset(sq);
    if (rc < 0)
        return rc;
    if ((pick = ls_wait_holder_stmt_pick(c, n, ts, res)) < 0)
        return 0;
    ls_stmt_reset(txq);
    if ((rc = ls_stmt_bind_int64(txq, LS_PARAM(dtp, session), session)) != 0 ||
        (rc = ls_stmt_bind_int64(txq, LS_PARAM(dtp, stmt), ids[pick])) != 0)
        return rc;
    if ((rc = ls_stmt_step(txq)) == 1) {
        int64_t tx = ls_stmt_int64(txq, LS_ONLY_COLUMN);
        ls_stmt_reset(u);
        if ((rc = ls_stmt_bind_int64(u, LS_PARAM(shp, wait), ls_stmt_int64(q, dh_wait_id))) != 0 ||
            (rc = ls_stmt_bind_int64(u, LS_PARAM(shp, tx), tx)) != 0)
            return rc;
        rc = ls_stmt_step(u);
    }
    ls_stmt_reset(txq);
    return rc < 0 ? rc : 0;
}

/* Each deadlock wait of a whole-second log's holder relinked by
 * relink_whole_holder(). */
static int relink_whole_holders(ls_store *s)
{
    ls_stmt *q = NULL, *sq = NULL, *txq = NULL, *u = NULL;
    int64_t res = 0;
    int rc;

    if ((rc = ls_log_resolution(s, &res)) != 0 || res == 0)
        return rc;
    if ((rc = ls_store_prepare(s, dl_holders_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, dl_stmts_sql, LS_PARAM_NAMES(DL_STMTS_PARAMS), &sq)) !=
            0 ||
        (rc = ls_store_prepare_params(s, dl_stmt_tx_sql, LS_PARAM_NAMES(DL_STMT_TX_PARAMS),
                                      &txq)) != 0 ||
        (rc = ls_store_prepare_params(s, set_holder_tx_sql, LS_PARAM_NAMES(SET_HOLDER_PARAMS),
                                      &u)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1)
        if ((rc = relink_whole_holder(q, sq, txq, u, res)) != 0)
            break;
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(sq);
    ls_stmt_finalize(txq);
    ls_stmt_finalize(u);
    return rc < 0 ? rc : 0;
}

#define MAX_TX_LOCKS 16 /* hot rows one transaction locks (more are not held apart) */

/* One hot row a transaction locked, and when. */
typedef struct tx_lock {
    int64_t row_id, stmt_id;
    int64_t lo, hi;      /* the statement's start and end (hi = lo without a duration) */
    int64_t next_start;  /* the next statement's start in the transaction, 0 if none yet */
    int64_t file_id, line;           /* the statement's line; file_id 0: a span's */
    int64_t next_file, next_line;    /* the next statement's line, next_file 0: none */
    int has_end;
    int acquired; /* its own logged wait for the row ended with the lock acquired */
} tx_lock;

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
    int interest;  /* its session took part in a wait, deadlock or lock error */
    int64_t until; /* read_cuts(): stored once the statements pass it */
    int has_cut_shape; /* read_cuts(), a closed cut: its statements are the cut's */
    int64_t cut_shape; /* then tx_cuts.shape, for the code paths (traces.c) */
    int64_t first_pos; /* its first statement's line (ls_log_pos()); 0: not known */
    int nlocks;
    tx_lock locks[MAX_TX_LOCKS];
} tx_state;

typedef struct hot_row {
    int64_t row_id;
    char *rel, *key;
} hot_row;

/* A learned rule, and the statements it keyed to a hot row in this pass. */
typedef struct tx_rule {
    ls_shape_rule r;
    int64_t id;    /* row_rules.rowid */
    int64_t keyed; /* statements whose hot row it named */
} tx_rule;

/*
 * The texts of the statements the pass reads by text_id (read_cuts()),
 * each read from stmt_texts and its kind decided once while it stays in
 * its slot: direct-mapped by text_id, so the pass's memory is bounded
 * whatever the number of distinct texts (a log of literal SQL has one per
 * statement, and then reads each once anyway).
 */
static const char text_by_id_sql[] = "SELECT text FROM stmt_texts WHERE text_id = :text";
#define TEXT_BY_ID_PARAMS(X, Q) X(Q, text)
LS_PARAMS(tbi, TEXT_BY_ID_PARAMS);
enum { TEXT_BY_ID_TEXT }; /* its one column */

typedef struct text_cache {
    ls_stmt *q; /* text_by_id_sql */
    ls_text_cache c;
} text_cache;

/* A statement's text as statement_locks() reads it, and its kind. */
typedef struct stmt_text {
    const char *text;
    ls_sql_kind kind;
} stmt_text;

/* What the pass reads once and consults per statement. */
typedef struct tx_pass {
    ls_stmt *ins, *hold;
    ls_interner evidence; /* hold_evidence */
    hot_row *hot;
    size_t nhot;
    tx_rule *rules;
    size_t nrules;
    ls_stmt *acquired; /* acquired_sql */
    ls_stmt *waited;   /* waited_sql, positioned at the next statement's rows */
    ls_stmt *failure;  /* failure_sql */
    ls_stmt *failed;   /* failed_insert_sql */
    int waited_more;   /* 1 while `waited` is on a row */
    int64_t holds;
    int64_t tx_no_pos; /* transactions of a session stored without first_pos */
    text_cache texts;  /* read_cuts()'s texts by text_id */
} tx_pass;

/* The text of statement row q (STMT_COLS) and its kind into *out: the
 * row's own text, else its text_id's, read once while in its cache slot
 * (valid until the next call). 0, or below 0 a store error. */
static int stmt_text_of(tx_pass *p, ls_stmt *q, stmt_text *out)
{
    ls_text_slot *e;
    int64_t id;
    int rc;
    if (ls_stmt_isnull(q, sq_text_id)) {
        out->text = ls_stmt_text(q, sq_text);
        out->kind = ls_sql_kind_of(out->text);
        return 0;
    }
    id = ls_stmt_int64(q, sq_text_id);
    if (!ls_text_cache_find(&p->texts.c, id, &e)) {
        ls_stmt_reset(p->texts.q);
        ls_stmt_bind_int64(p->texts.q, LS_PARAM(tbi, text), id);
        if ((rc = ls_stmt_step(p->texts.q)) < 0)
            return rc;
        /* a text_id no text has (not in a store this program wrote) is "" */
        rc = ls_text_cache_fill(e, id, rc == 1 ? ls_stmt_text(p->texts.q, TEXT_BY_ID_TEXT) : "");
        ls_stmt_reset(p->texts.q);
        if (rc != 0)
            return rc;
    }
    out->text = e->text;
    out->kind = e->kind;
    return 0;
}

static int cmp_hot(const char *rel, const char *key, const hot_row *h)
{
    int c = strcmp(rel, h->rel);
    return c ? c : strcmp(key, h->key);
}

/* The hot row (rel, key), or 0. */
static int64_t hot_lookup(const tx_pass *p, const char *rel, const char *key)
{
    size_t lo = 0, hi = p->nhot;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_hot(rel, key, &p->hot[mid]);
        if (c == 0)
            return p->hot[mid].row_id;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return 0;
}

/* The acquisition (ls_hold_acquired()) of the session at or after `from`
 * and before `until` (0: no bound) or, at `until` itself, logged before
 * line (until_file, until_line) (until_file 0: none), or 0; below 0, a
 * store error. */
static int64_t acquired_between(const tx_pass *p, int64_t session, int64_t from, int64_t until,
                                int64_t until_file, int64_t until_line, int64_t row_id)
{
    ls_acquisition acq[ACQUIRED_MAX];
    size_t n = 0;
    int rc = 0;
    ls_stmt_reset(p->acquired);
    ls_stmt_bind_int64(p->acquired, LS_PARAM(aqp, session), session);
    ls_stmt_bind_int64(p->acquired, LS_PARAM(aqp, from), from);
    ls_stmt_bind_int64(p->acquired, LS_PARAM(aqp, until), until ? until : INT64_MAX);
    if (until && until_file) {
        ls_stmt_bind_int64(p->acquired, LS_PARAM(aqp, until_file), until_file);
        ls_stmt_bind_int64(p->acquired, LS_PARAM(aqp, until_line), until_line);
    } else {
        ls_stmt_bind_null(p->acquired, LS_PARAM(aqp, until_file));
        ls_stmt_bind_null(p->acquired, LS_PARAM(aqp, until_line));
    }
    while (n < ACQUIRED_MAX && (rc = ls_stmt_step(p->acquired)) == 1) {
        acq[n].end_ts = ls_stmt_int64(p->acquired, aq_end_ts);
        acq[n].row_id = ls_stmt_int64(p->acquired, aq_row_id);
        n++;
    }
    ls_stmt_reset(p->acquired);
    if (n < ACQUIRED_MAX && rc < 0)
        return rc;
    return ls_hold_acquired(acq, n, row_id);
}

/* What a lock keeps of the statement that took it: a statement row's
 * (STMT_COLS, stmt_at_of()) or a tx_keys entry's (ls_keypack_entry). */
typedef struct stmt_at {
    int64_t stmt_id, start_ts, end_ts, file_id, line;
    int has_end, has_line;
} stmt_at;

/* Of statement row q (STMT_COLS). */
static void stmt_at_of(ls_stmt *q, stmt_at *a)
{
    a->stmt_id = ls_stmt_int64(q, sq_stmt_id);
    a->start_ts = ls_stmt_int64(q, sq_start_ts);
    a->has_end = !ls_stmt_isnull(q, sq_end_ts);
    a->end_ts = a->has_end ? ls_stmt_int64(q, sq_end_ts) : 0;
    a->has_line = !ls_stmt_isnull(q, sq_file_id) && !ls_stmt_isnull(q, sq_line);
    a->file_id = a->has_line ? ls_stmt_int64(q, sq_file_id) : 0;
    a->line = a->has_line ? ls_stmt_int64(q, sq_line) : 0;
}

/* Add the row the current statement `a` locks (`acquired`: its own logged
 * wait for it got the lock) to the transaction's locks. */
static void tx_add_lock(tx_state *t, int64_t row_id, const stmt_at *a, int acquired)
{
    int i;
    tx_lock *l;
    for (i = 0; i < t->nlocks; i++)
        if (t->locks[i].row_id == row_id) {
            if (t->locks[i].stmt_id == a->stmt_id && acquired)
                t->locks[i].acquired = 1;
            return; /* held since its first lock: one hold per (transaction, row) */
        }
    if (t->nlocks == MAX_TX_LOCKS)
        return;
    l = &t->locks[t->nlocks++];
    memset(l, 0, sizeof(*l));
    l->row_id = row_id;
    l->stmt_id = a->stmt_id;
    l->lo = a->start_ts;
    l->has_end = a->has_end;
    l->hi = l->has_end ? a->end_ts : l->lo;
    l->acquired = acquired;
    if (a->has_line) {
        l->file_id = a->file_id;
        l->line = a->line;
    }
}

/* The rows a statement waited for and got: `waited` moves forward with
 * the statements (both in stmt_id order). */
static int waited_locks(tx_pass *p, tx_state *t, const stmt_at *a)
{
    int64_t id = a->stmt_id;
    while (p->waited_more && ls_stmt_int64(p->waited, wq_stmt_id) <= id) {
        if (ls_stmt_int64(p->waited, wq_stmt_id) == id)
            tx_add_lock(t, ls_stmt_int64(p->waited, wq_row_id), a, 1);
        if ((p->waited_more = ls_stmt_step(p->waited)) < 0)
            return p->waited_more;
    }
    return 0;
}

/* The hot rows the current statement locks: the row its text, bound
 * parameters or PREPARE text address, and the rows learned rules say its
 * shape locks (a function's, a trigger's). */
static int statement_locks(tx_pass *p, tx_state *t, ls_stmt *q, const stmt_text *st)
{
    const char *text = st->text;
    ls_sql_kind kind = st->kind;
    const char *params = ls_stmt_isnull(q, sq_params) ? NULL : ls_stmt_text(q, sq_params);
    const char *prepare = ls_stmt_isnull(q, sq_prepare) ? NULL : ls_stmt_text(q, sq_prepare);
    ls_rowkey_evidence ev = {text, params, prepare, NULL, NULL};
    ls_rowkey k;
    stmt_at a;
    int64_t row;
    size_t i;
    int rc;

    if (!p->nhot || kind == LS_SQL_BEGIN || kind == LS_SQL_COMMIT || kind == LS_SQL_ROLLBACK)
        return 0;
    stmt_at_of(q, &a);
    if ((rc = waited_locks(p, t, &a)) != 0)
        return rc;
    if ((kind == LS_SQL_WRITE || prepare) && ls_rowkey_of(&ev, &k) &&
        (row = hot_lookup(p, k.rel, k.key)) != 0)
        tx_add_lock(t, row, &a, 0);
    if (p->nrules) {
        const char *sql, *pp;
        char pbuf[1024], shape[512];
        ls_rowkey_effective(text, params, prepare, &sql, &pp, pbuf, sizeof(pbuf));
        ls_rowkey_shape(sql, shape, sizeof(shape));
        for (i = 0; i < p->nrules; i++)
            if (ls_rowkey_apply(&p->rules[i].r, shape, sql, pp, &k) &&
                (row = hot_lookup(p, k.rel, k.key)) != 0) {
                tx_add_lock(t, row, &a, 0);
                p->rules[i].keyed++;
            }
    }
    return 0;
}

/* The hot rows a database span's text locks (ls_text_rows_fn, for
 * txspans.c): as statement_locks() reads a statement without parameters
 * (an ORM's driver span has its values inline, else none is found). */
static int span_rows(void *ctx, const char *text, int64_t *rows, size_t max, size_t *n)
{
    tx_pass *p = ctx;
    ls_rowkey_evidence ev = {text, NULL, NULL, NULL, NULL};
    ls_rowkey k;
    int64_t row;
    size_t i, j;

    *n = 0;
    if (!p->nhot || ls_sql_kind_of(text) != LS_SQL_WRITE)
        return 0;
    if (ls_rowkey_of(&ev, &k) && (row = hot_lookup(p, k.rel, k.key)) != 0 && *n < max)
        rows[(*n)++] = row;
    if (p->nrules) {
        const char *sql, *pp;
        char pbuf[1024], shape[512];
        ls_rowkey_effective(text, NULL, NULL, &sql, &pp, pbuf, sizeof(pbuf));
        ls_rowkey_shape(sql, shape, sizeof(shape));
        for (i = 0; i < p->nrules && *n < max; i++)
            if (ls_rowkey_apply(&p->rules[i].r, shape, sql, pp, &k) &&
                (row = hot_lookup(p, k.rel, k.key)) != 0) {
                for (j = 0; j < *n && rows[j] != row; j++)
                    ;
                if (j == *n)
                    rows[(*n)++] = row;
            }
    }
    return 0;
}

/* How a statement that failed on its row ended: the error's time and class. */
typedef struct tx_failure {
    int64_t ts;
    char cls[32];
} tx_failure;

/* Whether error class cls is a lock's (40001, 40P01, 55P03, NOWAIT). */
static int lock_error_class(const char *cls)
{
    return strcmp(cls, "serialization_failure") == 0 || strcmp(cls, "deadlock") == 0 ||
           strcmp(cls, "lock_timeout") == 0 || strcmp(cls, "lock_nowait") == 0;
}

/* Whether lock `l` of transaction `t` was taken: 1 yes, 0 no (its
 * statement, logged at its start, failed on the row: ls_locked_row_held();
 * *f the error), below 0 a store error. */
static int lock_taken(const tx_pass *p, const tx_state *t, const tx_lock *l, tx_failure *f)
{
    ls_locked_row sl;
    const char *cls;
    int rc;
    if (l->has_end || !l->file_id)
        return 1; /* a duration line (or a span's end): it ran to its end */
    memset(&sl, 0, sizeof(sl));
    sl.row_id = l->row_id;
    sl.acquired = l->acquired;
    ls_stmt_reset(p->failure);
    ls_stmt_bind_int64(p->failure, LS_PARAM(fp, session), t->session_id);
    ls_stmt_bind_int64(p->failure, LS_PARAM(fp, file), l->file_id);
    ls_stmt_bind_int64(p->failure, LS_PARAM(fp, line), l->line);
    ls_stmt_bind_int64(p->failure, LS_PARAM(fp, start), l->lo);
    if (l->next_file) {
        ls_stmt_bind_int64(p->failure, LS_PARAM(fp, next_file), l->next_file);
        ls_stmt_bind_int64(p->failure, LS_PARAM(fp, next_line), l->next_line);
    }
    ls_stmt_bind_int64(p->failure, LS_PARAM(fp, stmt), l->stmt_id);
    if ((rc = ls_stmt_step(p->failure)) < 0)
        return rc;
    if (rc == 1) {
        cls = ls_stmt_isnull(p->failure, fq_class) ? "other" : ls_stmt_text(p->failure, fq_class);
        sl.failed = 1;
        sl.lock_error = lock_error_class(cls);
        sl.failed_row =
            ls_stmt_isnull(p->failure, fq_failed_row) ? 0 : ls_stmt_int64(p->failure, fq_failed_row);
        f->ts = ls_stmt_int64(p->failure, fq_error_ts);
        snprintf(f->cls, sizeof(f->cls), "%s", cls);
    }
    ls_stmt_reset(p->failure);
    return ls_locked_row_held(&sl);
}

/* What a failed lock notes of its statement (temp.failed_locks). */
typedef struct failed_at {
    int64_t row_id, tx_id, session_id, pid, stmt_id, start_ts;
} failed_at;

/* Note the lock of `a`, which its statement failed on (f), for the
 * hidden-waits pass. */
static int failed_note(tx_pass *p, const failed_at *a, const tx_failure *f)
{
    int rc;
    ls_stmt_reset(p->failed);
    ls_stmt_bind_int64(p->failed, LS_PARAM(flp, row), a->row_id);
    ls_stmt_bind_int64(p->failed, LS_PARAM(flp, tx), a->tx_id);
    ls_stmt_bind_int64(p->failed, LS_PARAM(flp, session), a->session_id);
    ls_stmt_bind_int64(p->failed, LS_PARAM(flp, pid), a->pid);
    ls_stmt_bind_int64(p->failed, LS_PARAM(flp, stmt), a->stmt_id);
    ls_stmt_bind_int64(p->failed, LS_PARAM(flp, start), a->start_ts);
    ls_stmt_bind_int64(p->failed, LS_PARAM(flp, error_ts), f->ts);
    ls_stmt_bind_text(p->failed, LS_PARAM(flp, class), f->cls);
    rc = ls_stmt_step(p->failed);
    return rc < 0 ? rc : 0;
}

/* Note lock `l`, which its statement failed on (f), for the hidden-waits
 * pass. */
static int failed_lock(tx_pass *p, const tx_state *t, const tx_lock *l, int64_t tx_id,
                       const tx_failure *f)
{
    failed_at a = {l->row_id, tx_id, t->session_id, t->pid, l->stmt_id, l->lo};
    return failed_note(p, &a, f);
}

/* Bind v as parameter i of st, NULL when it equals same (as nullif(v, same)). */
static void bind_unless_same(ls_stmt *st, int i, int64_t v, int64_t same)
{
    if (v == same)
        ls_stmt_bind_null(st, i);
    else
        ls_stmt_bind_int64(st, i, v);
}
/* The holds of a stored transaction: when each row was locked, to the
 * transaction's end; none of a row its statement failed on. */
static int tx_holds(tx_pass *p, const tx_state *t, int64_t tx_id)
{
    int64_t end_id = 0; /* the end's evidence: the transaction's, for all its holds */
    int i, rc;
    if (t->nlocks && t->end_known && (rc = ls_intern(&p->evidence, t->end_known, &end_id)) != 0)
        return rc;
    for (i = 0; i < t->nlocks; i++) {
        const tx_lock *l = &t->locks[i];
        int64_t ts = l->hi, hi = l->hi, acq, ev_id;
        const char *ev = "end of the locking statement";
        tx_failure fail;
        if ((rc = lock_taken(p, t, l, &fail)) < 0)
            return rc;
        if (!rc) {
            /* it queued for the row and failed: its wait is a wait */
            if ((rc = failed_lock(p, t, l, tx_id, &fail)) != 0)
                return rc;
            continue;
        }
        if (!l->has_end) {
            /* log_statement = 'all': the statement's start; a logged wait
             * of its own ended when the row was got. */
            /* Bounded by the next statement of the transaction, else by
             * its end: never an acquisition of a later transaction. */
            int64_t until = l->next_start ? l->next_start
                            : t->has_end && t->end_ts > l->lo ? t->end_ts
                                                              : l->lo + 1;
            if ((acq = acquired_between(p, t->session_id, l->lo, until,
                                        l->next_start ? l->next_file : 0, l->next_line,
                                        l->row_id)) < 0)
                return (int)acq;
            if (acq) {
                ts = hi = acq;
                ev = "acquired after the locking statement's logged wait";
            } else {
                ts = l->lo;
                hi = l->next_start ? l->next_start : l->lo;
                ev = "start of the locking statement (no duration logged)";
            }
        }
        if (t->has_end && ts > t->end_ts)
            ts = t->end_ts;
        ls_stmt_reset(p->hold);
        ls_stmt_bind_int64(p->hold, HR(row_id), l->row_id);
        ls_stmt_bind_int64(p->hold, HR(tx_id), tx_id);
        ls_stmt_bind_int64(p->hold, HR(session_id), t->session_id);
        ls_stmt_bind_int64(p->hold, HR(pid), t->pid);
        ls_stmt_bind_int64(p->hold, HR(start_ts), ts);
        bind_unless_same(p->hold, HR(start_lo), l->lo, ts);
        bind_unless_same(p->hold, HR(start_hi), hi, ts);
        ls_stmt_bind_int64(p->hold, HR(waits), 0);
        ls_stmt_bind_int64(p->hold, HR(waiter_ms), 0);
        if ((rc = ls_intern(&p->evidence, ev, &ev_id)) != 0)
            return rc;
        ls_stmt_bind_int64(p->hold, HR(start_evidence), ev_id);
        if (t->has_end)
            ls_stmt_bind_int64(p->hold, HR(end_ts), t->end_ts);
        if (t->end_known)
            ls_stmt_bind_int64(p->hold, HR(end_evidence), end_id);
        ls_stmt_bind_int64(p->hold, HR(lock_stmt), l->stmt_id);
        if ((rc = ls_stmt_step(p->hold)) < 0)
            return rc;
        p->holds++;
    }
    return 0;
}

static int tx_insert(tx_pass *p, tx_state *t, ls_correlate_stats *stats)
{
    ls_stmt *ins = p->ins;
    int rc;
    if (!t->open)
        return 0;
    t->open = 0;
    if (!t->interest && !t->nlocks)
        return 0; /* read, not stored: nobody waited and it locked no hot row */
    ls_stmt_reset(ins);
    ls_stmt_bind_int64(ins, TX(session_id), t->session_id);
    ls_stmt_bind_int64(ins, TX(pid), t->pid);
    if (t->xid)
        ls_stmt_bind_int64(ins, TX(xid), t->xid);
    ls_stmt_bind_text(ins, TX(vxid), t->vxid[0] ? t->vxid : NULL);
    ls_stmt_bind_int64(ins, TX(explicit), t->explicit_tx);
    ls_stmt_bind_int64(ins, TX(start_ts), t->start_ts);
    ls_stmt_bind_text(ins, TX(start_known), t->start_known);
    if (t->has_end)
        ls_stmt_bind_int64(ins, TX(end_ts), t->end_ts);
    ls_stmt_bind_text(ins, TX(end_known), t->end_known);
    ls_stmt_bind_text(ins, TX(outcome), t->outcome);
    ls_stmt_bind_int64(ins, TX(first_stmt), t->first_stmt);
    ls_stmt_bind_int64(ins, TX(last_stmt), t->last_stmt);
    ls_stmt_bind_int64(ins, TX(statements), t->statements);
    if (t->durations) {
        ls_stmt_bind_double(ins, TX(sql_ms), t->sql_ms);
        ls_stmt_bind_double(ins, TX(idle_ms), t->idle_ms);
        ls_stmt_bind_double(ins, TX(max_idle_ms), t->max_idle_ms);
        ls_stmt_bind_double(ins, TX(commit_ms), t->commit_ms);
    }
    if (t->has_cut_shape)
        ls_stmt_bind_int64(ins, TX(cut_shape), t->cut_shape);
    if (t->first_pos > 0)
        ls_stmt_bind_int64(ins, TX(first_pos), t->first_pos);
    else if (t->session_id)
        p->tx_no_pos++; /* a cut of schema 18: first_pos_sql looks it up */
    rc = ls_stmt_step(ins);
    if (rc < 0)
        return rc;
    stats->transactions++;
    if (rc != 0)
        return LS_ESTORE;
    return tx_holds(p, t, ls_stmt_last_rowid(ins));
}

static void tx_open(tx_state *t, ls_stmt *q, int explicit_tx, int interest)
{
    memset(t, 0, offsetof(tx_state, locks));
    t->open = 1;
    t->explicit_tx = explicit_tx;
    t->session_id = ls_stmt_int64(q, sq_session_id);
    t->pid = ls_stmt_int64(q, sq_pid);
    t->start_ts = ls_stmt_int64(q, sq_start_ts);
    t->start_known = explicit_tx ? "BEGIN" : "statement";
    t->durations = 1;
    t->interest = interest;
}

/* Add the current statement to the open transaction. */
static void tx_add(tx_state *t, ls_stmt *q, int is_commit)
{
    int64_t start = ls_stmt_int64(q, sq_start_ts);
    int has_end = !ls_stmt_isnull(q, sq_end_ts);
    int64_t end = has_end ? ls_stmt_int64(q, sq_end_ts) : start;
    const char *vxid = ls_stmt_text(q, sq_vxid);
    int i;

    if (!t->statements) {
        t->first_stmt = ls_stmt_int64(q, sq_stmt_id);
        if (!ls_stmt_isnull(q, sq_file_id) && !ls_stmt_isnull(q, sq_line))
            t->first_pos = ls_log_pos(ls_stmt_int64(q, sq_file_id), ls_stmt_int64(q, sq_line));
    }
    for (i = 0; i < t->nlocks; i++)
        if (!t->locks[i].next_start && t->locks[i].stmt_id != ls_stmt_int64(q, sq_stmt_id)) {
            t->locks[i].next_start = start;
            if (!ls_stmt_isnull(q, sq_file_id) && !ls_stmt_isnull(q, sq_line)) {
                t->locks[i].next_file = ls_stmt_int64(q, sq_file_id);
                t->locks[i].next_line = ls_stmt_int64(q, sq_line);
            }
        }
    t->last_stmt = ls_stmt_int64(q, sq_stmt_id);
    t->statements++;
    if (!t->xid && !ls_stmt_isnull(q, sq_xid))
        t->xid = ls_stmt_int64(q, sq_xid);
    /* A COMMIT's own line shows vxid N/0: keep the transaction's. */
    if (!t->vxid[0] && vxid[0] && !strstr(vxid, "/0"))
        snprintf(t->vxid, sizeof(t->vxid), "%s", vxid);
    if (!has_end || ls_stmt_isnull(q, sq_duration_ms)) {
        t->durations = 0;
    } else if (is_commit) {
        t->commit_ms += ls_stmt_double(q, sq_duration_ms);
    } else {
        t->sql_ms += ls_stmt_double(q, sq_duration_ms);
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
static int tx_close_session(tx_pass *p, tx_state *t, int64_t session_end, int have_end,
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
    return tx_insert(p, t, stats);
}

/* Load hot rows and learned rules into the pass; open its lookups of waits. */
static int tx_pass_load(ls_store *s, tx_pass *p)
{
    ls_stmt *q = NULL;
    int rc;

    if ((rc = ls_store_prepare(s, hot_rows_sql, &q)) != 0)
        return rc;
    while ((rc = ls_stmt_step(q)) == 1) {
        hot_row *nh = realloc(p->hot, (p->nhot + 1) * sizeof(*p->hot));
        if (!nh) {
            rc = LS_ENOMEM;
            break;
        }
        p->hot = nh;
        nh[p->nhot].row_id = ls_stmt_int64(q, hr_row_id);
        nh[p->nhot].rel = ls_strdup(ls_stmt_text(q, hr_relation));
        nh[p->nhot].key = ls_strdup(ls_stmt_text(q, hr_row_key));
        if (!nh[p->nhot].rel || !nh[p->nhot].key) {
            free(nh[p->nhot].rel);
            free(nh[p->nhot].key);
            rc = LS_ENOMEM;
            break;
        }
        p->nhot++;
    }
    ls_stmt_finalize(q);
    q = NULL;
    if (rc < 0 || (rc = ls_store_prepare(s, rules_sql, &q)) != 0)
        return rc;
    while ((rc = ls_stmt_step(q)) == 1) {
        tx_rule *nr = realloc(p->rules, (p->nrules + 1) * sizeof(*p->rules));
        ls_shape_rule *r;
        if (!nr) {
            rc = LS_ENOMEM;
            break;
        }
        p->rules = nr;
        memset(&nr[p->nrules], 0, sizeof(*nr));
        nr[p->nrules].id = ls_stmt_int64(q, ru_rule_id);
        r = &nr[p->nrules].r;
        snprintf(r->shape, sizeof(r->shape), "%s", ls_stmt_text(q, ru_shape));
        snprintf(r->rel, sizeof(r->rel), "%s", ls_stmt_text(q, ru_relation));
        snprintf(r->col, sizeof(r->col), "%s", ls_stmt_text(q, ru_col));
        r->arg = (int)ls_stmt_int64(q, ru_arg);
        snprintf(r->target, sizeof(r->target), "%s", ls_stmt_text(q, ru_target));
        snprintf(r->target_col, sizeof(r->target_col), "%s", ls_stmt_text(q, ru_target_col));
        p->nrules++;
    }
    ls_stmt_finalize(q);
    q = NULL;
    if (rc < 0 || (rc = ls_store_exec_sorting(s, acquired_index_sql)) != 0 ||
        (rc = ls_store_prepare_params(s, acquired_sql, LS_PARAM_NAMES(ACQUIRED_PARAMS),
                                      &p->acquired)) != 0 ||
        (rc = ls_store_prepare(s, waited_sql, &p->waited)) != 0 ||
        (rc = ls_store_exec_sorting(s, failure_index_sql)) != 0 ||
        (rc = ls_store_prepare_params(s, failure_sql, LS_PARAM_NAMES(FAILURE_PARAMS),
                                      &p->failure)) != 0 ||
        (rc = ls_store_exec(s, failed_table_sql)) != 0 ||
        (rc = ls_store_prepare_params(s, failed_insert_sql, LS_PARAM_NAMES(FAILED_PARAMS),
                                      &p->failed)) != 0 ||
        (rc = ls_store_prepare_params(s, text_by_id_sql, LS_PARAM_NAMES(TEXT_BY_ID_PARAMS),
                                      &p->texts.q)) != 0)
        return rc;
    p->waited_more = ls_stmt_step(p->waited);
    return p->waited_more < 0 ? p->waited_more : 0;
}

/* Store how many statements each rule keyed (rule_keyed). */
static int rules_keyed(ls_store *s, const tx_pass *p)
{
    ls_stmt *u = NULL;
    size_t i;
    int rc;
    if (!p->nrules)
        return 0;
    if ((rc = ls_store_prepare(s, rule_keyed_sql, &u)) != 0)
        return rc;
    for (i = 0; i < p->nrules && rc >= 0; i++) {
        ls_stmt_reset(u);
        ls_stmt_bind_int64(u, LS_PARAM(rule_keyed, rule_id), p->rules[i].id);
        ls_stmt_bind_int64(u, LS_PARAM(rule_keyed, statements), p->rules[i].keyed);
        rc = ls_stmt_step(u);
    }
    ls_stmt_finalize(u);
    return rc < 0 ? rc : 0;
}

static void tx_pass_free(tx_pass *p)
{
    size_t i;
    for (i = 0; i < p->nhot; i++) {
        free(p->hot[i].rel);
        free(p->hot[i].key);
    }
    free(p->hot);
    free(p->rules);
    ls_stmt_finalize(p->acquired);
    ls_stmt_finalize(p->waited);
    ls_stmt_finalize(p->failure);
    ls_stmt_finalize(p->failed);
    ls_stmt_finalize(p->ins);
    ls_stmt_finalize(p->hold);
    ls_intern_close(&p->evidence);
    ls_text_cache_free(&p->texts.c);
    ls_stmt_finalize(p->texts.q);
}

/* Sessions by id (open addressing): what the pass knows of each, and its
 * open transaction. */
typedef struct sess_slot {
    int64_t id; /* 0: free */
    int64_t end_ts;
    int has_end, interest;
    tx_state *tx; /* NULL unless a transaction is open */
} sess_slot;

typedef struct sess_map {
    sess_slot *slots;
    size_t cap, used;
} sess_map;

/*
 * The slot of session `id`, created when new. When the table fills, the
 * sessions with no transaction open are dropped (a session seen again is
 * looked up again): the table holds the sessions in a transaction at one
 * moment, not every session of the log, so a day of short connections
 * does not grow it. It doubles only when those alone fill a quarter.
 */
static sess_slot *sess_find(sess_map *m, int64_t id, int *created)
{
    size_t i;
    *created = 0;
    if ((m->used + 1) * 2 > m->cap) {
        size_t ncap = m->cap ? m->cap : 256, k, open = 0;
        sess_slot *ns;
        for (k = 0; k < m->cap; k++)
            open += m->slots[k].id && m->slots[k].tx;
        if ((open + 1) * 4 > ncap)
            ncap *= 2;
        if (!(ns = ls_calloc(ncap, sizeof(*ns))))
            return NULL;
        m->used = 0;
        for (k = 0; k < m->cap; k++) {
            if (!m->slots[k].id || !m->slots[k].tx)
                continue;
            for (i = (size_t)m->slots[k].id & (ncap - 1); ns[i].id; i = (i + 1) & (ncap - 1))
                ;
            ns[i] = m->slots[k];
            m->used++;
        }
        free(m->slots);
        m->slots = ns;
        m->cap = ncap;
    }
    for (i = (size_t)id & (m->cap - 1); m->slots[i].id; i = (i + 1) & (m->cap - 1))
        if (m->slots[i].id == id)
            return &m->slots[i];
    m->slots[i].id = id;
    m->used++;
    *created = 1;
    return &m->slots[i];
}

/* Cut one statement into its session's transactions. */
static int tx_statement(tx_pass *p, sess_slot *ss, ls_stmt *q, ls_correlate_stats *stats)
{
    stmt_text st;
    ls_sql_kind kind;
    tx_state *t = ss->tx;
    int rc = 0;

    if ((rc = stmt_text_of(p, q, &st)) != 0)
        return rc;
    kind = st.kind;
    if (!t && !(t = ss->tx = ls_calloc(1, sizeof(*t))))
        return LS_ENOMEM;
    switch (kind) {
    case LS_SQL_BEGIN:
        if (t->open) { /* BEGIN inside a transaction: PostgreSQL warns, nothing ends */
            tx_add(t, q, 0);
            break;
        }
        tx_open(t, q, 1, ss->interest);
        tx_add(t, q, 0);
        break;
    case LS_SQL_COMMIT:
    case LS_SQL_ROLLBACK:
        if (!t->open) /* its BEGIN was not logged: a transaction of its own */
            tx_open(t, q, 0, ss->interest);
        tx_add(t, q, 1);
        if (kind == LS_SQL_COMMIT)
            t->end_known = ls_stmt_isnull(q, sq_end_ts) ? "commit start" : "commit";
        else
            t->end_known = ls_stmt_isnull(q, sq_end_ts) ? "rollback start" : "rollback";
        t->outcome = kind == LS_SQL_COMMIT ? "commit" : "rollback";
        rc = tx_insert(p, t, stats);
        break;
    default:
        if (t->open && t->explicit_tx) {
            tx_add(t, q, 0);
            rc = statement_locks(p, t, q, &st);
        } else {
            tx_open(t, q, 0, ss->interest);
            tx_add(t, q, 0);
            if ((rc = statement_locks(p, t, q, &st)) != 0)
                return rc;
            t->end_known = ls_stmt_isnull(q, sq_end_ts) ? "statement start" : "statement";
            t->outcome = "commit";
            rc = tx_insert(p, t, stats);
        }
        break;
    }
    if (!t->open) {
        free(t);
        ss->tx = NULL;
    }
    return rc;
}

/* The slot of session `id`, its end and interest read when it is new
 * (sq: session_sql); NULL in *out without memory. */
static int sess_slot_of(sess_map *map, ls_stmt *sq, int64_t id, sess_slot **out)
{
    int created, rc;
    sess_slot *ss = sess_find(map, id, &created);
    *out = ss;
    if (!ss)
        return LS_ENOMEM;
    if (!created)
        return 0;
    ls_stmt_reset(sq);
    ls_stmt_bind_int64(sq, LS_PARAM(sep, session), ss->id);
    if ((rc = ls_stmt_step(sq)) < 0)
        return rc;
    if (rc == 1) {
        ss->has_end = !ls_stmt_isnull(sq, se_end_ts);
        ss->end_ts = ls_stmt_int64(sq, se_end_ts);
        ss->interest = (int)ls_stmt_int64(sq, se_interest);
    }
    ls_stmt_reset(sq);
    return 0;
}

/* qsort() order of session slots: by session id */
static int by_session(const void *a, const void *b)
{
    int64_t x = (*(sess_slot *const *)a)->id, y = (*(sess_slot *const *)b)->id;
    return (x > y) - (x < y);
}

/*
 * Store the transactions still open when the log ends, by session id
 * (their tx_ids do not depend on where a hash table put them): at
 * disconnection, else where they were last seen.
 */
static int close_open_sessions(tx_pass *p, sess_map *map, ls_correlate_stats *stats)
{
    sess_slot **open;
    size_t i, n = 0;
    int rc = 0;

    if (!(open = ls_calloc(map->cap ? map->cap : 1, sizeof(*open))))
        return LS_ENOMEM;
    for (i = 0; i < map->cap; i++)
        if (map->slots[i].tx)
            open[n++] = &map->slots[i];
    qsort(open, n, sizeof(*open), by_session);
    for (i = 0; rc == 0 && i < n; i++)
        rc = tx_close_session(p, open[i]->tx, open[i]->end_ts, open[i]->has_end, stats);
    free(open);
    return rc;
}

/* ---- transactions from tx_cuts (issue 38, docs/streaming.md) ---- */

/*
 * Ingest cut the transactions as it wrote the statements (tx_cuts,
 * src/store/txcut.c, by tx_statement()'s rules). The pass then stores
 * them from their cuts and reads only the statements that may lock a hot
 * row: those whose text writes a hot row's relation (stmt_texts.kind and
 * writes, decided once per text), those of a PREPAREd text, and those
 * that waited for a hot row and got it. Usable when the cuts cover every
 * statement (meta tx_cuts), no statement came from a span (spans.c adds
 * them after ingest, uncut) and no learned rule makes a statement of any
 * text lock a row (a function call's).
 */
/* stmt_texts.kind of a write, and stmt_rows.verb of parse and bind lines,
 * as SQL (enum values do not stringify). */
#define KIND_WRITE_SQL "4"
#define VERBS_STEP_SQL "1, 2"
_Static_assert(LS_SQL_WRITE == 4, "KIND_WRITE_SQL");
_Static_assert(LS_VERB_BIND == 1 && LS_VERB_PARSE == 2, "VERBS_STEP_SQL");

static const char cuts_usable_sql[] =
    "SELECT (SELECT value FROM meta WHERE key = 'tx_cuts') IS 'complete'"
    " AND NOT EXISTS (SELECT 1 FROM spans)";

/* The texts of statements that may lock a hot row (kind NULL: a text
 * correlation added before ingest met it, not decided). */
static const char lock_texts_sql[] =
    "DROP TABLE IF EXISTS temp.lock_texts;"
    "CREATE TEMP TABLE lock_texts(text_id INTEGER PRIMARY KEY);"
    "INSERT INTO lock_texts SELECT text_id FROM stmt_texts WHERE kind IS NULL"
    " OR (kind = " KIND_WRITE_SQL " AND (writes IS NULL OR writes IN"
    "  (SELECT relation FROM rows WHERE row_key NOT LIKE 'ctid %'"
    "   AND evidence <> 'lock target')));";

/*
 * Those statements, in log order (the rest are never read again), read
 * from stmt_rows itself: the statements view computes for every row what
 * statement_locks() does not read (issue 38: the view and an IN list of
 * every candidate's id were half the pass's VM steps). The columns are
 * STMT_COLS, those of the view that cut_statement() reads (session_id,
 * stmt_id, start_ts, end_ts, params, prepare, file_id, line) as the
 * view computes them; pid, duration_ms, xid and vxid, which it does not
 * read (tx_add() does, in cut_statements() only), are NULL. The text is
 * NULL too: its text_id is read, and the text once per text_id
 * (text_cache: issue 38, a subquery per statement was 13 % of the read's
 * VM steps, and the kind was decided again for every statement). Rows
 * that are not statements of a session (parse and bind lines, a row of no
 * session) are passed over by lock_row_ours(), not by the scan: SQLite
 * tests such terms before a subquery's (the IN), on every row of
 * stmt_rows, 1.1 M VM steps of the 256 MiB bench log's 6.0 M.
 */
#define LOCK_STMTS_FROM(WHERE)                                                             \
    "SELECT " LS_SELECT_LIST(sq, STMT_COLS) " FROM (SELECT r.session_id, r.stmt_id,"       \
    " NULL AS pid, r.start_ts, r.start_ts + r.dur_us AS end_ts,"                           \
    " NULL AS duration_ms, NULL AS text, NULL AS xid,"                                     \
    " NULL AS vxid, " LS_STMT_REF("r", "params") " AS params, r.prepare, r.file_id, r.line,"  \
    " r.text_id, r.verb FROM stmt_rows r WHERE " WHERE ") ORDER BY stmt_id"
/* One scan of stmt_rows in its own order (no sort, no list of ids): the
 * statements of a text that may lock a hot row, or of a PREPAREd text. */
static const char lock_stmts_sql[] =
    LOCK_STMTS_FROM("r.text_id IN temp.lock_texts OR r.prepare IS NOT NULL");
/* And those that waited for a hot row and got it (waited_sql, a second
 * cursor), whatever their text: each read by its id, merged in. */
static const char lock_stmt_sql[] = LOCK_STMTS_FROM("r.stmt_id = :stmt");
#define LOCK_STMT_PARAMS(X, Q) X(Q, stmt)
LS_PARAMS(lsp, LOCK_STMT_PARAMS);

/*
 * Schema 18 (issue 38): ingest decided each statement's row key as it
 * wrote the statement (tx_keys: ls_rowkey_stmt(), what statement_locks()
 * decides of the statement's text, parameters and PREPARE text) when meta
 * 'tx_keys' is 'complete'. The pass then reads those instead of scanning
 * stmt_rows for the statements of a text that may lock a hot row: a row
 * of tx_keys holds many (ls_keypack.h), each what a lock keeps of its
 * statement (stmt_at) and its key, looked up among the hot rows here
 * (key_locks()). The waited statements are merged in as before.
 */
static const char keys_usable_sql[] =
    "SELECT (SELECT value FROM meta WHERE key = 'tx_keys') IS 'complete'";
#define KEY_COLS(X, Q)                                                                     \
    X(Q, first_stmt, "first_stmt")                                                        \
    X(Q, keys, "keys")
LS_COLUMNS(kq, KEY_COLS);
/* One row at a time, each deleted once read: the pages it took are those
 * the pass writes its transactions into (consume_cuts_sql empties the
 * table whole at the end, as it does tx_cuts, but the passes after this
 * one do not write enough to take back both). */
static const char lock_keys_sql[] =
    "SELECT " LS_SELECT_LIST(kq, KEY_COLS) " FROM tx_keys WHERE first_stmt > :after"
    " ORDER BY first_stmt LIMIT 1";
#define LOCK_KEYS_PARAMS(X, Q) X(Q, after)
LS_PARAMS(lkp, LOCK_KEYS_PARAMS);
static const char lock_keys_del_sql[] = "DELETE FROM tx_keys WHERE first_stmt = :first";
#define LOCK_KEYS_DEL_PARAMS(X, Q) X(Q, first)
LS_PARAMS(lkd, LOCK_KEYS_DEL_PARAMS);

/* Every cut, in the order of its first statement (the table's own). */
#define CUT_COLS(X, Q)                                                                     \
    X(Q, first_stmt, "first_stmt")                                                        \
    X(Q, last_stmt, "last_stmt")                                                          \
    X(Q, session_id, "session_id")                                                        \
    X(Q, pid, "pid")                                                                      \
    X(Q, xid, "xid")                                                                      \
    X(Q, vxid, "vxid")                                                                    \
    X(Q, explicit_tx, "explicit")                                                         \
    X(Q, closed, "closed")                                                                \
    X(Q, end_kind, "end_kind")                                                            \
    X(Q, start_ts, "start_ts")                                                            \
    X(Q, end_ts, "end_ts")                                                                \
    X(Q, statements, "statements")                                                        \
    X(Q, sql_ms, "sql_ms")                                                                \
    X(Q, idle_ms, "idle_ms")                                                              \
    X(Q, max_idle_ms, "max_idle_ms")                                                      \
    X(Q, commit_ms, "commit_ms")                                                          \
    X(Q, shape, "shape")                                                                  \
    X(Q, first_pos, "first_pos")
LS_COLUMNS(cu, CUT_COLS);
static const char cuts_sql[] =
    "SELECT " LS_SELECT_LIST(cu, CUT_COLS) " FROM tx_cuts ORDER BY first_stmt";

/* The statements of session :session after statement :after, to :last:
 * what follows a locking statement in its transaction (tx_add() reads it
 * there). */
#define NEXT_COLS(X, Q)                                                                    \
    X(Q, start_ts, "start_ts")                                                            \
    X(Q, file_id, "file_id")                                                              \
    X(Q, line, "line")
LS_COLUMNS(nx, NEXT_COLS);
static const char next_sql[] =
    "SELECT " LS_SELECT_LIST(nx, NEXT_COLS) " FROM stmt_rows WHERE stmt_id > :after"
    /* the rowid range, not the session's index: a session may have
     * logged millions of statements, its transaction a few */
    " AND stmt_id <= :last AND +session_id = :session AND (verb IS NULL OR verb NOT IN ("
    VERBS_STEP_SQL ")) ORDER BY stmt_id";
#define NEXT_PARAMS(X, Q) X(Q, after) X(Q, last) X(Q, session)
LS_PARAMS(nxp, NEXT_PARAMS);

/*
 * Once the transactions are stored, ingest's cuts have served: emptied,
 * so that a transaction is stored once (issue 38: tx_cuts was 7 % of the
 * 1 GiB bench log's store beside transactions), and the pages they took
 * are those the passes after this one write into, not new ones. What the
 * code paths need of a cut, its shape, is kept in transactions.cut_shape.
 * One statement without a WHERE: SQLite frees the table's pages whole,
 * not row by row. The correlation marks them consumed afterwards
 * (ls_store_cuts_consumed()): a later ingest into the store cuts no more,
 * and the next correlation reads the statements (cut_statements()).
 */
static const char consume_cuts_sql[] = "DELETE FROM tx_cuts; DELETE FROM tx_keys;";

/* read_cuts(): tx_cuts does not hold the statements read (a bug, or a
 * store edited by hand): the pass starts again from the statements. */
#define CUTS_MISFIT 2

/* Whether the pass can read tx_cuts (*cuts) and, with them, tx_keys
 * (*keys): 1 or 0 each. */
static int cuts_usable(ls_store *s, const tx_pass *p, int *cuts, int *keys)
{
    int rc;
    *cuts = *keys = 0;
    if (p->nrules)
        return 0; /* a learned rule may make a statement of any text lock a row */
    if ((rc = ls_correlate_flag(s, cuts_usable_sql, cuts)) != 0 || !*cuts)
        return rc;
    return ls_correlate_flag(s, keys_usable_sql, keys);
}

/* The pending transactions, a binary heap by last statement: each is
 * stored once the statements read have passed its end, in the order
 * tx_statement() would have stored it. */
typedef struct cut_heap {
    tx_state **v;
    size_t n, cap;
} cut_heap;

static int heap_push(cut_heap *h, tx_state *t)
{
    size_t i;
    if (h->n == h->cap) {
        size_t ncap = h->cap ? 2 * h->cap : 64;
        tx_state **nv = realloc(h->v, ncap * sizeof(*nv));
        if (!nv)
            return LS_ENOMEM;
        h->v = nv;
        h->cap = ncap;
    }
    for (i = h->n++; i > 0 && h->v[(i - 1) / 2]->until > t->until; i = (i - 1) / 2)
        h->v[i] = h->v[(i - 1) / 2];
    h->v[i] = t;
    return 0;
}

static tx_state *heap_pop(cut_heap *h)
{
    tx_state *top = h->v[0], *last = h->v[--h->n];
    size_t i = 0, c;
    while ((c = 2 * i + 1) < h->n) {
        if (c + 1 < h->n && h->v[c + 1]->until < h->v[c]->until)
            c++;
        if (h->v[c]->until >= last->until)
            break;
        h->v[i] = h->v[c];
        i = c;
    }
    if (h->n)
        h->v[i] = last;
    return top;
}

/* What the pass needs beside tx_pass while it reads the cuts. */
typedef struct cut_read {
    tx_pass *p;
    sess_map *map;
    ls_stmt *sq, *cuts, *next;
    int cuts_more; /* 1 while `cuts` is on a row */
    cut_heap heap;
    ls_correlate_stats *stats;
} cut_read;

/* Each lock's next statement in its transaction (tx_add() does it as the
 * statements come: the first after the locking one with a start). Only
 * a lock taken by a statement logged at its start reads it (tx_holds(),
 * lock_taken()): one with a duration line is not looked up. */
static int locks_next(cut_read *r, tx_state *t)
{
    int i, rc = 0;
    for (i = 0; i < t->nlocks && rc >= 0; i++) {
        tx_lock *l = &t->locks[i];
        if (l->has_end)
            continue;
        ls_stmt_reset(r->next);
        ls_stmt_bind_int64(r->next, LS_PARAM(nxp, after), l->stmt_id);
        ls_stmt_bind_int64(r->next, LS_PARAM(nxp, last), t->last_stmt);
        ls_stmt_bind_int64(r->next, LS_PARAM(nxp, session), t->session_id);
        while (!l->next_start && (rc = ls_stmt_step(r->next)) == 1) {
            l->next_start = ls_stmt_int64(r->next, nx_start_ts);
            if (!ls_stmt_isnull(r->next, nx_file_id) && !ls_stmt_isnull(r->next, nx_line)) {
                l->next_file = ls_stmt_int64(r->next, nx_file_id);
                l->next_line = ls_stmt_int64(r->next, nx_line);
            }
        }
        ls_stmt_reset(r->next);
    }
    return rc < 0 ? rc : 0;
}

/* Store pending transaction t (when of interest or it locked a hot row)
 * and let its session's slot go. */
static int cut_store(cut_read *r, tx_state *t)
{
    int created, rc;
    sess_slot *ss = sess_find(r->map, t->session_id, &created);
    if (!ss)
        return LS_ENOMEM;
    if (ss->tx == t)
        ss->tx = NULL;
    if ((rc = locks_next(r, t)) == 0)
        rc = tx_insert(r->p, t, r->stats);
    free(t);
    return rc;
}

/* Store the pending transactions that ended before statement `upto`. */
static int cut_store_before(cut_read *r, int64_t upto)
{
    int rc;
    while (r->heap.n && r->heap.v[0]->until < upto)
        if ((rc = cut_store(r, heap_pop(&r->heap))) != 0)
            return rc;
    return 0;
}

/* The cut `cuts` is on, as tx_statement() would have it before its end
 * (its own end in end_known and outcome; an unfinished one has none). */
static void cut_state(ls_stmt *c, tx_state *t, int interest)
{
    int64_t end_kind = ls_stmt_int64(c, cu_end_kind);
    memset(t, 0, sizeof(*t));
    t->open = 1;
    t->session_id = ls_stmt_int64(c, cu_session_id);
    t->pid = ls_stmt_int64(c, cu_pid);
    t->xid = ls_stmt_int64(c, cu_xid);
    if (!ls_stmt_isnull(c, cu_vxid))
        snprintf(t->vxid, sizeof(t->vxid), "%s", ls_stmt_text(c, cu_vxid));
    t->explicit_tx = (int)ls_stmt_int64(c, cu_explicit_tx);
    t->start_ts = ls_stmt_int64(c, cu_start_ts);
    t->start_known = t->explicit_tx ? "BEGIN" : "statement";
    t->end_ts = ls_stmt_int64(c, cu_end_ts);
    t->has_end = 1;
    t->end_known = ls_txcut_end_name((ls_txcut_end)end_kind);
    t->outcome = end_kind == LS_TXCUT_END_ROLLBACK || end_kind == LS_TXCUT_END_ROLLBACK_START
                     ? "rollback"
                     : "commit";
    t->first_stmt = ls_stmt_int64(c, cu_first_stmt);
    t->first_pos = ls_stmt_int64(c, cu_first_pos); /* NULL (schema 18's cut): 0 */
    t->last_stmt = ls_stmt_int64(c, cu_last_stmt);
    t->statements = ls_stmt_int64(c, cu_statements);
    t->durations = !ls_stmt_isnull(c, cu_sql_ms);
    t->sql_ms = ls_stmt_double(c, cu_sql_ms);
    t->idle_ms = ls_stmt_double(c, cu_idle_ms);
    t->max_idle_ms = ls_stmt_double(c, cu_max_idle_ms);
    t->commit_ms = ls_stmt_double(c, cu_commit_ms);
    t->interest = interest;
    t->until = t->last_stmt;
    if (!ls_stmt_int64(c, cu_closed)) {
        t->end_known = NULL; /* tx_close_session() decides */
        t->until = INT64_MAX; /* pending to the end of the log */
    } else {
        t->has_cut_shape = 1;
        t->cut_shape = ls_stmt_int64(c, cu_shape);
    }
}

/* Take in the cuts that begin by statement `upto`: each pending until the
 * statements read pass its end. */
static int cut_admit(cut_read *r, int64_t upto)
{
    int rc;
    while (r->cuts_more && ls_stmt_int64(r->cuts, cu_first_stmt) <= upto) {
        sess_slot *ss;
        tx_state *t;
        if ((rc = cut_store_before(r, ls_stmt_int64(r->cuts, cu_first_stmt))) != 0 ||
            (rc = sess_slot_of(r->map, r->sq, ls_stmt_int64(r->cuts, cu_session_id), &ss)) != 0)
            return rc;
        if (ss->tx)
            return CUTS_MISFIT; /* two cuts of one session overlap */
        if (!(t = ls_malloc(sizeof(*t))))
            return LS_ENOMEM;
        cut_state(r->cuts, t, ss->interest);
        if ((rc = heap_push(&r->heap, t)) != 0) {
            free(t);
            return rc;
        }
        ss->tx = t;
        if ((r->cuts_more = ls_stmt_step(r->cuts)) < 0)
            return r->cuts_more;
    }
    return 0;
}

/* The hot rows the statement of tx_keys entry e locks: those it waited
 * for and got, then the one of its key (statement_locks() for its text). */
static int key_locks(tx_pass *p, tx_state *t, const ls_keypack_entry *e)
{
    stmt_at a;
    int64_t row;
    int rc;
    if (!p->nhot)
        return 0;
    a.stmt_id = e->stmt_id;
    a.start_ts = e->start_ts;
    a.has_end = e->has_end;
    a.end_ts = e->end_ts;
    a.has_line = 1; /* stmt_rows.file_id and line are never NULL */
    a.file_id = e->file_id;
    a.line = e->line;
    if ((rc = waited_locks(p, t, &a)) != 0)
        return rc;
    if ((row = hot_lookup(p, e->rel, e->key)) != 0)
        tx_add_lock(t, row, &a, 0);
    return 0;
}

/* One statement that may lock a hot row, in its transaction: statement
 * row q read with its text, else (q NULL) tx_keys entry e. */
static int cut_statement(cut_read *r, ls_stmt *q, const ls_keypack_entry *e)
{
    int64_t id = q ? ls_stmt_int64(q, sq_stmt_id) : e->stmt_id;
    int created, rc;
    sess_slot *ss;
    stmt_text st;
    if ((rc = cut_admit(r, id)) != 0 || (rc = cut_store_before(r, id)) != 0)
        return rc;
    ss = sess_find(r->map, q ? ls_stmt_int64(q, sq_session_id) : e->session_id, &created);
    if (!ss)
        return LS_ENOMEM;
    if (!ss->tx || ss->tx->first_stmt > id)
        return CUTS_MISFIT; /* a statement no cut holds */
    if (!q)
        return key_locks(r->p, ss->tx, e);
    if ((rc = stmt_text_of(r->p, q, &st)) != 0)
        return rc;
    return statement_locks(r->p, ss->tx, q, &st);
}

/* The entries of tx_keys in stmt_id order: its rows in the order of
 * their least stmt_id, each row's entries into a min-heap, from which an
 * entry is taken once no row left to read can hold a lesser one (rows
 * overlap: a statement row waits for the lines that fold into it while
 * later ones are written). */
/* The heap holds each entry's stmt_id and its slot in `pool` (an entry is
 * 376 bytes: moved once in and once out, not at each step of the heap's
 * sifts; issue 38: the sifts' copies were a tenth of the lock statements'
 * reading at 1 GiB). Slots given back are reused (`spare`). */
typedef struct key_ref {
    int64_t stmt_id;
    size_t slot;
} key_ref;

typedef struct key_read {
    ls_stmt *rows; /* lock_keys_sql */
    ls_stmt *del;  /* lock_keys_del_sql */
    int more;      /* 1 while `rows` is on a row not yet read into the heap */
    key_ref *v;    /* the heap, least stmt_id first */
    size_t n, cap;
    ls_keypack_entry *pool; /* cap slots */
    size_t *spare;          /* slots not in the heap: nspare of them */
    size_t nspare, used;    /* used: slots handed out so far */
} key_read;

static int key_less(const key_ref *a, const key_ref *b)
{
    return a->stmt_id < b->stmt_id;
}

static int key_push(key_read *k, const ls_keypack_entry *e)
{
    key_ref r;
    size_t i;
    if (k->n == k->cap) {
        size_t ncap = k->cap ? 2 * k->cap : 256;
        key_ref *nv = realloc(k->v, ncap * sizeof(*nv));
        ls_keypack_entry *np;
        size_t *ns;
        if (nv)
            k->v = nv;
        np = nv ? realloc(k->pool, ncap * sizeof(*np)) : NULL;
        if (np)
            k->pool = np;
        ns = np ? realloc(k->spare, ncap * sizeof(*ns)) : NULL;
        if (!ns)
            return LS_ENOMEM;
        k->spare = ns;
        k->cap = ncap;
    }
    r.slot = k->nspare ? k->spare[--k->nspare] : k->used++;
    r.stmt_id = e->stmt_id;
    k->pool[r.slot] = *e;
    for (i = k->n++; i > 0 && key_less(&r, &k->v[(i - 1) / 2]); i = (i - 1) / 2)
        k->v[i] = k->v[(i - 1) / 2];
    k->v[i] = r;
    return 0;
}

/* The least entry taken out into *out. */
static void key_pop(key_read *k, ls_keypack_entry *out)
{
    size_t i = 0, c;
    *out = k->pool[k->v[0].slot];
    k->spare[k->nspare++] = k->v[0].slot;
    if (--k->n == 0)
        return;
    while ((c = 2 * i + 1) < k->n) {
        if (c + 1 < k->n && key_less(&k->v[c + 1], &k->v[c]))
            c++;
        if (!key_less(&k->v[c], &k->v[k->n]))
            break;
        k->v[i] = k->v[c];
        i = c;
    }
    k->v[i] = k->v[k->n];
}

/* The row after the one whose first_stmt is `after` (0: the first). */
static int key_row_after(key_read *k, int64_t after)
{
    ls_stmt_reset(k->rows);
    ls_stmt_bind_int64(k->rows, LS_PARAM(lkp, after), after);
    return k->more = ls_stmt_step(k->rows);
}

/* Read rows into the heap until its least entry is the least of all:
 * 0, CUTS_MISFIT (a row that is not entries), below 0 a store error. */
static int key_fill(key_read *k)
{
    int rc;
    while (k->more == 1 && (!k->n || k->v[0].stmt_id >= ls_stmt_int64(k->rows, kq_first_stmt))) {
        int64_t row = ls_stmt_int64(k->rows, kq_first_stmt);
        const char *p = ls_stmt_text(k->rows, kq_keys), *end = p + strlen(p);
        ls_keypack_entry e;
        int first = 1;
        for (; p < end; first = 0) {
            if (!(p = ls_keypack_next(p, end, first ? NULL : &e, &e)))
                return CUTS_MISFIT;
            if ((rc = key_push(k, &e)) != 0)
                return rc;
        }
        ls_stmt_reset(k->rows);
        ls_stmt_reset(k->del);
        ls_stmt_bind_int64(k->del, LS_PARAM(lkd, first), row);
        if ((rc = ls_stmt_step(k->del)) < 0 || (rc = key_row_after(k, row)) < 0)
            return rc;
    }
    return 0;
}

/* The statements that may lock a hot row, in log order: lock_stmts_sql's
 * scan merged with the waited statements (the pass's own waited_sql
 * cursor, which statement_locks() then reads at the statement handed
 * out), each of those the scan does not hold read by its id
 * (lock_stmt_sql). */
typedef struct lock_read {
    tx_pass *p;          /* p->waited: the waited statements */
    ls_stmt *scan, *one;
    int keys;            /* tx_keys' entries (`k`) instead of the scan */
    key_read k;
    ls_keypack_entry cur; /* the entry handed out last */
    int scan_more;       /* 1 while the scan is on a row */
    int scan_taken;      /* the scan's row was handed out: step it first */
    int64_t last;        /* the last statement handed out */
} lock_read;

/* Whether row q of LOCK_STMTS_FROM is a statement the pass reads: of a
 * session, not a parse or bind line (the steps of the statement its
 * execute line ran: only that one counts). */
static int lock_row_ours(ls_stmt *q)
{
    int64_t verb;
    if (ls_stmt_isnull(q, sq_session_id))
        return 0;
    verb = ls_stmt_isnull(q, sq_verb) ? -1 : ls_stmt_int64(q, sq_verb);
    return verb != LS_VERB_BIND && verb != LS_VERB_PARSE;
}

/* The next statement, in *row (valid until the next call), or *row NULL
 * and the tx_keys entry in lr->cur: 1, 0 at the end, CUTS_MISFIT or
 * below 0 a store error. */
static int lock_next(lock_read *lr, ls_stmt **row)
{
    tx_pass *p = lr->p;
    int rc;
    if (lr->keys) {
        if ((rc = key_fill(&lr->k)) != 0)
            return rc;
        lr->scan_more = lr->k.n > 0;
    } else if (lr->scan_taken) {
        lr->scan_taken = 0;
        if ((lr->scan_more = ls_stmt_step(lr->scan)) < 0)
            return lr->scan_more;
    }
    for (;;) {
        int64_t scan_id, wait_id;
        while (!lr->keys && lr->scan_more == 1 && !lock_row_ours(lr->scan))
            if ((lr->scan_more = ls_stmt_step(lr->scan)) < 0)
                return lr->scan_more;
        /* the waited rows of statements handed out that statement_locks()
         * did not read (a COMMIT's), or not read (not the pass's) */
        while (p->waited_more == 1 && ls_stmt_int64(p->waited, wq_stmt_id) <= lr->last)
            if ((p->waited_more = ls_stmt_step(p->waited)) < 0)
                return p->waited_more;
        if (!lr->scan_more && !p->waited_more)
            return 0;
        scan_id = !lr->scan_more ? INT64_MAX
                  : lr->keys     ? lr->k.v[0].stmt_id
                                 : ls_stmt_int64(lr->scan, sq_stmt_id);
        wait_id = p->waited_more ? ls_stmt_int64(p->waited, wq_stmt_id) : INT64_MAX;
        if (wait_id < scan_id) {
            lr->last = wait_id;
            ls_stmt_reset(lr->one);
            ls_stmt_bind_int64(lr->one, LS_PARAM(lsp, stmt), wait_id);
            if ((rc = ls_stmt_step(lr->one)) < 0)
                return rc;
            if (rc == 1 && lock_row_ours(lr->one)) {
                *row = lr->one;
                return 1;
            }
            continue; /* not a statement the pass reads (a parse or bind line) */
        }
        lr->last = scan_id;
        if (lr->keys) {
            key_pop(&lr->k, &lr->cur);
            *row = NULL;
            return 1;
        }
        *row = lr->scan;
        lr->scan_taken = 1;
        return 1;
    }
}

/* Open the reader (no statement may lock one when there is no hot row). */
static int lock_open(ls_store *s, tx_pass *p, lock_read *lr, int keys)
{
    int rc;
    memset(lr, 0, sizeof(*lr));
    lr->p = p;
    lr->keys = keys;
    if (!p->nhot) {
        p->waited_more = 0; /* nothing to merge */
        return 0;
    }
    if ((rc = ls_store_prepare_params(s, lock_stmt_sql, LS_PARAM_NAMES(LOCK_STMT_PARAMS),
                                      &lr->one)) != 0)
        return rc;
    if (keys) {
        if ((rc = ls_store_prepare_params(s, lock_keys_sql, LS_PARAM_NAMES(LOCK_KEYS_PARAMS),
                                          &lr->k.rows)) != 0 ||
            (rc = ls_store_prepare_params(s, lock_keys_del_sql,
                                          LS_PARAM_NAMES(LOCK_KEYS_DEL_PARAMS), &lr->k.del)) != 0 ||
            (rc = key_row_after(&lr->k, INT64_MIN)) < 0)
            return rc;
        return 0;
    }
    if ((rc = ls_store_exec(s, lock_texts_sql)) != 0 ||
        (rc = ls_store_prepare(s, lock_stmts_sql, &lr->scan)) != 0 ||
        (rc = lr->scan_more = ls_stmt_step(lr->scan)) < 0)
        return rc;
    return 0;
}

static void lock_close(lock_read *lr)
{
    ls_stmt_finalize(lr->scan);
    ls_stmt_finalize(lr->one);
    ls_stmt_finalize(lr->k.rows);
    ls_stmt_finalize(lr->k.del);
    free(lr->k.v);
    free(lr->k.pool);
    free(lr->k.spare);
}

/* The transactions from tx_cuts, their hot rows from the statements that
 * may lock one; those still open at the end last, as cut_statements(). */
static int read_cuts(ls_store *s, tx_pass *p, sess_map *map, ls_stmt *sq,
                     ls_correlate_stats *stats, int keys)
{
    cut_read r;
    lock_read lr;
    ls_stmt *q = NULL;
    size_t i;
    int rc;

    memset(&lr, 0, sizeof(lr));
    memset(&r, 0, sizeof(r));
    r.p = p;
    r.map = map;
    r.sq = sq;
    r.stats = stats;
    if ((rc = ls_store_prepare(s, cuts_sql, &r.cuts)) != 0 ||
        (rc = ls_store_prepare_params(s, next_sql, LS_PARAM_NAMES(NEXT_PARAMS), &r.next)) != 0 ||
        (rc = r.cuts_more = ls_stmt_step(r.cuts)) < 0)
        goto out;
    if ((rc = lock_open(s, p, &lr, keys)) != 0)
        goto out;
    while ((rc = lock_next(&lr, &q)) == 1)
        if ((rc = cut_statement(&r, q, &lr.cur)) != 0)
            goto out;
    if (rc < 0 || (rc = cut_admit(&r, INT64_MAX)) != 0 ||
        (rc = cut_store_before(&r, INT64_MAX)) != 0)
        goto out;
    /* What is left was open when the log ended: in the slots (which own
     * it now), stored by session as cut_statements() stores them. */
    for (i = 0; i < r.heap.n && rc == 0; i++)
        rc = locks_next(&r, r.heap.v[i]);
    if (rc != 0)
        goto out;
    r.heap.n = 0;
    rc = close_open_sessions(p, map, stats);
out:
    for (i = 0; i < r.heap.n; i++) {
        sess_slot *ss;
        int created;
        if ((ss = sess_find(map, r.heap.v[i]->session_id, &created)) && ss->tx == r.heap.v[i])
            ss->tx = NULL;
        free(r.heap.v[i]);
    }
    free(r.heap.v);
    lock_close(&lr);
    ls_stmt_finalize(r.cuts);
    ls_stmt_finalize(r.next);
    return rc < 0 || rc == CUTS_MISFIT ? rc : 0;
}

/* After CUTS_MISFIT: what read_cuts() stored and kept dropped, the waits'
 * cursor back at its start, for cut_statements(). */
static int cuts_forget(ls_store *s, tx_pass *p, sess_map *map, int64_t transactions,
                       ls_correlate_stats *stats)
{
    size_t i;
    int rc;
    fprintf(stderr, "lockspan: the store's tx_cuts do not match its statements;"
                    " reading the statements instead\n");
    for (i = 0; i < map->cap; i++) {
        free(map->slots[i].tx);
        map->slots[i].tx = NULL;
    }
    stats->transactions = transactions;
    p->holds = 0;
    ls_intern_close(&p->evidence);
    if ((rc = ls_store_exec(s, "DELETE FROM hold_rows; DELETE FROM transactions;"
                               " DELETE FROM hold_evidence;")) != 0 ||
        (rc = ls_intern_open(s, &p->evidence, "hold_evidence", "evidence_id", "text")) != 0)
        return rc;
    ls_stmt_reset(p->waited);
    p->waited_more = ls_stmt_step(p->waited);
    return p->waited_more < 0 ? p->waited_more : 0;
}

/* Every statement read once, in log order, cut into transactions here. */
static int cut_statements(ls_store *s, tx_pass *p, sess_map *map, ls_stmt *sq,
                          ls_correlate_stats *stats)
{
    ls_stmt *q = NULL;
    int rc;

    if ((rc = ls_store_prepare(s, statements_sql, &q)) != 0)
        return rc;
    while ((rc = ls_stmt_step(q)) == 1) {
        sess_slot *ss;
        if ((rc = sess_slot_of(map, sq, ls_stmt_int64(q, sq_session_id), &ss)) != 0 ||
            (rc = tx_statement(p, ss, q, stats)) != 0)
            break;
    }
    ls_stmt_finalize(q);
    return rc < 0 ? rc : close_open_sessions(p, map, stats);
}

/* ---- every statement as ingest cut and keyed it (quiet.c) ---- */

/* Every statement row but a span's (spans.c adds them after ingest, which
 * cut and keyed the others), in log order. */
#define VERB_SPAN_SQL "5"
_Static_assert(LS_VERB_SPAN == 5, "VERB_SPAN_SQL");
static const char each_stmt_sql[] = LOCK_STMTS_FROM("r.verb IS NOT " VERB_SPAN_SQL);

/* What ingest feeds the cut of statement row q (store.c cut_row()) and
 * the row key it stores (key_row(): ls_sql_stmt_key() of the text's row
 * reference, or of its PREPARE body), *keyed 1 when it has one. */
static void each_stmt_of(ls_stmt *q, const stmt_text *st, ls_txcut_stmt *c, ls_keypack_entry *e,
                         int *keyed)
{
    const char *params = ls_stmt_isnull(q, sq_params) ? NULL : ls_stmt_text(q, sq_params);
    const char *prepare = ls_stmt_isnull(q, sq_prepare) ? NULL : ls_stmt_text(q, sq_prepare);
    int64_t text_id = ls_stmt_isnull(q, sq_text_id) ? 0 : ls_stmt_int64(q, sq_text_id);
    stmt_at a;
    ls_rowkey k;

    stmt_at_of(q, &a);
    memset(c, 0, sizeof(*c));
    c->stmt_id = a.stmt_id;
    c->session_id = ls_stmt_int64(q, sq_session_id);
    c->start_ts = a.start_ts;
    c->has_dur = a.has_end;
    c->dur_us = a.has_end ? a.end_ts - a.start_ts : 0;
    c->kind = (int)st->kind;
    c->text_id = text_id;
    c->pos = a.has_line ? ls_log_pos(a.file_id, a.line) : 0;
    *keyed = 0;
    if (st->kind == LS_SQL_BEGIN || st->kind == LS_SQL_COMMIT || st->kind == LS_SQL_ROLLBACK ||
        text_id <= 0 || (st->kind != LS_SQL_WRITE && !prepare))
        return;
    if (prepare) {
        *keyed = ls_rowkey_stmt(st->text, NULL, params, prepare, &k);
    } else {
        ls_row_ref ref;
        int has = ls_sql_row_ref(st->text, &ref);
        *keyed = ls_rowkey_stmt(NULL, has ? &ref : NULL, params, NULL, &k);
    }
    if (!*keyed || !k.rel[0]) { /* a key has its relation (ls_sql_row_ref()) */
        *keyed = 0;
        return;
    }
    memset(e, 0, sizeof(*e));
    e->stmt_id = a.stmt_id;
    e->session_id = c->session_id;
    e->start_ts = a.start_ts;
    e->has_end = a.has_end && a.start_ts;
    e->end_ts = e->has_end ? a.end_ts : 0;
    e->file_id = a.file_id;
    e->line = a.line;
    snprintf(e->rel, sizeof(e->rel), "%s", k.rel);
    snprintf(e->key, sizeof(e->key), "%s", k.key);
}

int ls_tx_each_statement(ls_store *s, ls_tx_stmt_fn fn, void *ctx)
{
    tx_pass p;
    ls_stmt *q = NULL;
    int rc;

    memset(&p, 0, sizeof(p));
    if ((rc = ls_store_prepare_params(s, text_by_id_sql, LS_PARAM_NAMES(TEXT_BY_ID_PARAMS),
                                      &p.texts.q)) != 0 ||
        (rc = ls_store_prepare(s, each_stmt_sql, &q)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        stmt_text st;
        ls_txcut_stmt c;
        ls_keypack_entry e;
        int keyed;
        if (!lock_row_ours(q))
            continue;
        if ((rc = stmt_text_of(&p, q, &st)) != 0)
            break;
        each_stmt_of(q, &st, &c, &e, &keyed);
        if ((rc = fn(ctx, &c, keyed ? &e : NULL)) != 0)
            break;
    }
out:
    ls_stmt_finalize(q);
    ls_text_cache_free(&p.texts.c);
    ls_stmt_finalize(p.texts.q);
    return rc < 0 ? rc : 0;
}

/* ---- statements known only from their bind line (issue 34) ---- */

/*
 * With durations logged, an extended-protocol statement whose execute
 * failed has its bind line (text, parameters) and then the error: no
 * execute line, so neither the cuts nor the statements read above make
 * it a statement, and the row it failed on and its queueing for it would
 * be lost. Each error of a session, with its transaction (error_links,
 * linked above) and the session's statement row logged last before it
 * (BIND_ERRORS_SQL, bind_errors.h);
 * the first error after that row decides (ls_error_ended_bind()).
 */
#define BIND_ERR_COLS(X, Q)                                                                \
    X(Q, error_ts, "e.ts")                                                                \
    X(Q, class, "e.class")                                                                \
    X(Q, tx_id, "l.tx_id")                                                                \
    X(Q, session_id, "e.session_id")                                                      \
    X(Q, pid, "t.pid")                                                                    \
    X(Q, wait_row, "(SELECT w.row_id FROM lock_waits w WHERE w.wait_id = l.wait_id)")     \
    X(Q, last, "e.last")
LS_COLUMNS(be, BIND_ERR_COLS);
static const char bind_errors_sql[] = BIND_ERRORS_SQL(LS_SELECT_LIST(be, BIND_ERR_COLS));
#define BIND_ERR_PARAMS(X, Q) X(Q, window)
LS_PARAMS(bep, BIND_ERR_PARAMS);
static const char bind_row_sql[] = LOCK_STMTS_FROM("r.stmt_id = :stmt");
#define BIND_ROW_PARAMS(X, Q) X(Q, stmt)
LS_PARAMS(brp, BIND_ROW_PARAMS);
static const char tx_holds_row_sql[] =
    "SELECT 1 FROM hold_rows WHERE tx_id = :tx AND row_id = :row";
#define TX_HOLDS_ROW_PARAMS(X, Q) X(Q, tx) X(Q, row)
LS_PARAMS(thp, TX_HOLDS_ROW_PARAMS);

/* The hot rows statement row q (STMT_COLS, its text st) locks, as
 * statement_locks() finds them (its text's key with its parameters, the
 * learned rules), into rows (at most max): their number. */
static size_t bind_rows_of(const tx_pass *p, ls_stmt *q, const stmt_text *st, int64_t *rows,
                           size_t max)
{
    const char *params = ls_stmt_isnull(q, sq_params) ? NULL : ls_stmt_text(q, sq_params);
    const char *prepare = ls_stmt_isnull(q, sq_prepare) ? NULL : ls_stmt_text(q, sq_prepare);
    ls_rowkey_evidence ev = {st->text, params, prepare, NULL, NULL};
    ls_rowkey k;
    int64_t row;
    size_t i, j, n = 0;

    if ((st->kind == LS_SQL_WRITE || prepare) && ls_rowkey_of(&ev, &k) &&
        (row = hot_lookup(p, k.rel, k.key)) != 0)
        rows[n++] = row;
    if (p->nrules) {
        const char *sql, *pp;
        char pbuf[1024], shape[512];
        ls_rowkey_effective(st->text, params, prepare, &sql, &pp, pbuf, sizeof(pbuf));
        ls_rowkey_shape(sql, shape, sizeof(shape));
        for (i = 0; i < p->nrules && n < max; i++)
            if (ls_rowkey_apply(&p->rules[i].r, shape, sql, pp, &k) &&
                (row = hot_lookup(p, k.rel, k.key)) != 0) {
                for (j = 0; j < n && rows[j] != row; j++)
                    ;
                if (j == n)
                    rows[n++] = row;
            }
    }
    return n;
}

/* Error e (bind_errors_sql) ended the statement of bind row q: each hot
 * row it failed on (ls_locked_row_held() says it acquired nothing there)
 * and its transaction does not hold already, to temp.failed_locks, where
 * the hidden-waits pass rebuilds its queueing from the bind line to the
 * error. */
static int bind_failed_locks(tx_pass *p, ls_stmt *e, ls_stmt *q, ls_stmt *held,
                             const stmt_text *st, int64_t bind_ts)
{
    int64_t rows[MAX_TX_LOCKS];
    size_t i, n = bind_rows_of(p, q, st, rows, MAX_TX_LOCKS);
    const char *cls = ls_stmt_text(e, be_class);
    int64_t tx_id = ls_stmt_int64(e, be_tx_id);
    failed_at a = {0, tx_id, ls_stmt_int64(e, be_session_id), ls_stmt_int64(e, be_pid),
                   ls_stmt_int64(q, sq_stmt_id), bind_ts};
    tx_failure f;
    int rc;

    f.ts = ls_stmt_int64(e, be_error_ts);
    snprintf(f.cls, sizeof(f.cls), "%s", cls);
    for (i = 0; i < n; i++) {
        ls_locked_row sl;
        memset(&sl, 0, sizeof(sl));
        sl.failed = 1;
        sl.lock_error = lock_error_class(cls);
        sl.row_id = rows[i];
        sl.failed_row = ls_stmt_isnull(e, be_wait_row) ? 0 : ls_stmt_int64(e, be_wait_row);
        if (ls_locked_row_held(&sl))
            continue; /* taken before it failed: not a wait (and no hold is rebuilt) */
        ls_stmt_reset(held);
        ls_stmt_bind_int64(held, LS_PARAM(thp, tx), tx_id);
        ls_stmt_bind_int64(held, LS_PARAM(thp, row), rows[i]);
        rc = ls_stmt_step(held);
        ls_stmt_reset(held);
        if (rc < 0)
            return rc;
        if (rc == 1)
            continue; /* a transaction does not queue for a row it holds */
        a.row_id = rows[i];
        if ((rc = failed_note(p, &a, &f)) != 0)
            return rc;
    }
    return 0;
}

/* Every statement known only from its bind line that an error ended
 * (ls_error_ended_bind()): the locks it failed on, as tx_holds() notes
 * those of a statement logged at its start. */
static int bind_failures(ls_store *s, tx_pass *p)
{
    ls_stmt *e = NULL, *q = NULL, *held = NULL;
    int64_t prev = 0;
    int rc, subsecond;

    if (!p->nhot)
        return 0;
    if ((rc = ls_log_subsecond(s, &subsecond)) != 0 ||
        (rc = ls_store_prepare_params(s, bind_errors_sql, LS_PARAM_NAMES(BIND_ERR_PARAMS), &e)) !=
            0 ||
        (rc = ls_stmt_bind_int64(e, LS_PARAM(bep, window),
                                 2 * (subsecond ? LS_MILLISECOND_US : LS_WHOLE_SECOND_US))) != 0 ||
        (rc = ls_store_prepare_params(s, bind_row_sql, LS_PARAM_NAMES(BIND_ROW_PARAMS), &q)) != 0 ||
        (rc = ls_store_prepare_params(s, tx_holds_row_sql, LS_PARAM_NAMES(TX_HOLDS_ROW_PARAMS),
                                      &held)) != 0)
        goto out;
    while ((rc = ls_stmt_step(e)) == 1) {
        int64_t last, verb, bind_ts;
        int first;
        ls_last_line kind;
        stmt_text st;
        if (ls_stmt_isnull(e, be_last))
            continue; /* no statement row of its session before it */
        last = ls_stmt_int64(e, be_last);
        first = last != prev;
        prev = last;
        if (!first)
            continue; /* a later error after the same row: the first ended it */
        ls_stmt_reset(q);
        ls_stmt_bind_int64(q, LS_PARAM(brp, stmt), last);
        if ((rc = ls_stmt_step(q)) < 0)
            break;
        if (rc == 0 || ls_stmt_isnull(q, sq_session_id))
            continue;
        verb = ls_stmt_isnull(q, sq_verb) ? -1 : ls_stmt_int64(q, sq_verb);
        kind = verb == LS_VERB_BIND    ? LS_LAST_BIND
               : verb == LS_VERB_PARSE ? LS_LAST_PARSE
                                       : LS_LAST_STATEMENT;
        /* the bind line is written when the bind is done: its end */
        bind_ts = ls_stmt_isnull(q, sq_end_ts) ? ls_stmt_int64(q, sq_start_ts)
                                                : ls_stmt_int64(q, sq_end_ts);
        if (!ls_error_ended_bind(kind, first, bind_ts, ls_stmt_int64(e, be_error_ts)) ||
            ls_stmt_isnull(e, be_tx_id) || ls_stmt_isnull(e, be_pid))
            continue;
        if ((rc = stmt_text_of(p, q, &st)) != 0 ||
            (rc = bind_failed_locks(p, e, q, held, &st, bind_ts)) != 0)
            break;
    }
out:
    ls_stmt_finalize(e);
    ls_stmt_finalize(q);
    ls_stmt_finalize(held);
    return rc < 0 ? rc : 0;
}

int ls_correlate_transactions(ls_store *s, ls_correlate_stats *stats)
{
    ls_stmt *sq = NULL;
    tx_pass p;
    sess_map map = {NULL, 0, 0};
    size_t i;
    int64_t rebuilt = 0;
    int rc, subsecond, cuts, keys, ends_unlogged = 0;

    memset(&p, 0, sizeof(p));
    if ((rc = interest_waits(s)) != 0 || (rc = tx_pass_load(s, &p)) != 0 ||
        (rc = ls_store_prepare_params(s, session_sql, LS_PARAM_NAMES(SESSION_PARAMS), &sq)) != 0 ||
        (rc = ls_store_prepare(s, insert_tx_sql, &p.ins)) != 0 ||
        (rc = ls_store_prepare(s, insert_hold_sql, &p.hold)) != 0 ||
        (rc = ls_intern_open(s, &p.evidence, "hold_evidence", "evidence_id", "text")) != 0 ||
        (rc = cuts_usable(s, &p, &cuts, &keys)) != 0)
        goto out;
    {
        int64_t transactions = stats->transactions;
        rc = cuts ? read_cuts(s, &p, &map, sq, stats, keys)
                  : cut_statements(s, &p, &map, sq, stats);
        if (rc == CUTS_MISFIT && (rc = cuts_forget(s, &p, &map, transactions, stats)) == 0)
            rc = cut_statements(s, &p, &map, sq, stats);
    }
    if (rc == 0)
        rc = rules_keyed(s, &p);
    /* before the links: a transaction the log saw as one statement may
     * end at its request's COMMIT span (txspans.c) */
    if (rc == 0)
        rc = ls_tx_from_spans(s, &p.evidence, span_rows, &p, &rebuilt);
    if (rc == 0)
        rc = ls_store_exec(s, consume_cuts_sql);
    if (rc == 0 && p.tx_no_pos)
        rc = ls_store_exec(s, first_pos_sql);
    if (rc == 0)
        rc = ls_store_exec_sorting(s, link_index_sql);
    if (rc == 0)
        rc = ls_store_exec(s, link_sql);
    if (rc == 0)
        rc = ls_store_exec(s, deadlock_links_sql);
    if (rc == 0)
        rc = relink_whole_waiters(s);
    if (rc == 0)
        rc = ls_log_subsecond(s, &subsecond);
    if (rc == 0)
        rc = link_heads(s, subsecond);
    if (rc == 0)
        rc = ls_store_exec(s, link_holder_sql);
    if (rc == 0)
        rc = relink_whole_holders(s);
    if (rc == 0)
        rc = ls_store_exec(s, subsecond ? link_next_sql : link_next_sec_sql);
    /* A log without transaction control (log_statement = 'mod', issue
     * 34): the links by the pid's last logged statement are checked
     * against the holds there as on a pooled backend, and left unknown
     * where none covers the moment. */
    if (rc == 0)
        rc = ls_correlate_tx_ends_unlogged(s, &ends_unlogged);
    if (rc == 0 && (subsecond || ends_unlogged))
        rc = link_pooled_holders(s, ends_unlogged);
    if (rc == 0)
        rc = ls_store_exec(s, link_blocker_sql);
    if (rc == 0 && !subsecond)
        rc = ls_store_exec(s, link_blocker_sec_sql);
    if (rc == 0)
        rc = link_roots(s, ends_unlogged);
    if (rc == 0)
        rc = ls_store_exec(s, root_holder_sql);
    if (rc == 0)
        rc = ls_store_exec(s, root_one_tx_sql);
    if (rc == 0)
        rc = ls_store_exec(s, link_errors_sql);
    if (rc == 0)
        rc = relink_txs(s, relink_errors_sql, set_error_tx_sql, 0);
    if (rc == 0)
        rc = relink_txs(s, relink_deadlocks_sql, set_deadlock_tx_sql, LS_START_SLACK_US);
    if (rc == 0)
        rc = relink_victims(s);
    if (rc == 0)
        rc = bind_failures(s, &p);
    if (rc == 0)
        rc = ls_store_exec(s, wait_holds_sql);
    /* every hold and failed lock known: a lock timeout's holder (causes.c) */
    if (rc == 0)
        rc = ls_correlate_error_causes(s, subsecond ? LS_MILLISECOND_US : LS_WHOLE_SECOND_US);
out:
    stats->holds = p.holds;
    ls_stmt_finalize(sq);
    tx_pass_free(&p);
    for (i = 0; i < map.cap; i++)
        free(map.slots[i].tx);
    free(map.slots);
    /* once the pass's statements are finalized: an index that one of them
     * still reads cannot be dropped (SQLITE_LOCKED) */
    if (rc == 0)
        rc = ls_store_exec(s, link_index_drop_sql);
    return rc < 0 ? rc : 0;
}
