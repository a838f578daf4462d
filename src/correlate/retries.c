/*
 * retries.c — the retries pass: for each lock error (lock_timeout,
 * lock_nowait, statement_timeout, serialization_failure, deadlock) the
 * statement that ran the failed statement again, its transaction and
 * that transaction's outcome. decide/retry.h decides which statement is
 * the retry from the stream of the failed request's statements after it;
 * this file reads that stream from the store and writes the pass's own
 * table, retries (errors_linked.retry_*).
 *
 * The stream is the database spans of the failed statement's trace
 * after the span that failed: the request's own statements, on whatever
 * backend (a client pool or pgbouncer may give the retry another one);
 * the retry is then stored by its span (retry_span; retry_stmt and
 * retry_tx NULL). Without such a span, it is the session's statements after the
 * error line, in log order, where the log shows the error's transaction
 * (its BEGIN was logged, or it is the failed statement itself). Without
 * either (a pooled backend's statements logged only over
 * log_min_duration_statement), no retry is claimed: the session's next
 * logged statement of the shape may be another client's. The pass runs
 * after the code paths, which link transactions to traces.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corr_tables.h"
#include "correlate_int.h"
#include "decide/retry.h"
#include "decide/tolerances.h"
#include "retry_gap.h"
#include "textcache.h"
#include "ls_buf.h"
#include "ls_columns.h"
#include "ls_params.h"
#include "ls_sqlshape.h"
#include "ls_store.h"

/* Statements of one stream read after an error: the rest of the failed
 * transaction and the next one, whose retry statement comes early. A
 * session's are read in the order of its index (start, then id) and put
 * in log order (id) in C: a sort of its whole window in SQL costs a busy
 * session's 30 s per error (66 M VM steps on the 256 MiB bench log). */
#define RETRY_STEPS_MAX 32
/* Statements of a session read at most to find those first RETRY_STEPS_MAX
 * in log order (by_session()). */
#define RETRY_READ_MAX 1024
/* Bytes of a statement's text its shape is computed from (as before). */
#define RETRY_SHAPE_BYTES 4096
/* A row named by key, "relation col=value" (ls_sql_row_key()'s parts). */
#define RETRY_REL_BYTES 128
#define RETRY_KEY_BYTES 256
#define RETRY_ROW_BYTES (RETRY_REL_BYTES + RETRY_KEY_BYTES + 2)

#define LOCK_ERROR_COLS(X, Q)                                                              \
    X(Q, error_id, "e.error_id")                                                          \
    X(Q, session_id, "e.session_id")                                                      \
    X(Q, ts, "e.ts")                                                                      \
    X(Q, file_id, "coalesce(e.file_id, 0)")                                               \
    X(Q, line, "coalesce(e.line, 0)")                                                     \
    X(Q, tx_id, "l.tx_id")                                                                \
    X(Q, explicit, "(SELECT t.explicit FROM transactions t WHERE t.tx_id = l.tx_id)")     \
    X(Q, first_stmt, "(SELECT t.first_stmt FROM transactions t WHERE t.tx_id = l.tx_id)") \
    X(Q, last_stmt, "(SELECT t.last_stmt FROM transactions t WHERE t.tx_id = l.tx_id)")   \
    X(Q, tx_start, "(SELECT t.start_ts FROM transactions t WHERE t.tx_id = l.tx_id)")     \
    X(Q, trace_id, "(SELECT c.trace_id FROM tx_code_rows c WHERE c.tx_id = l.tx_id)")   \
    X(Q, text, LS_TEXT_OF("e.text_id"))                                                  \
    X(Q, text_id, "e.text_id")                                                            \
    X(Q, cls, "e.class")                                                                  \
    X(Q, tx_end, "(SELECT t.end_ts FROM transactions t WHERE t.tx_id = l.tx_id)")         \
    X(Q, end_file, "(SELECT coalesce(r.file_id, 0) FROM transactions t JOIN stmt_rows r"  \
                   " ON r.stmt_id = t.last_stmt WHERE t.tx_id = l.tx_id)")               \
    X(Q, end_line, "(SELECT coalesce(r.line, 0) FROM transactions t JOIN stmt_rows r"     \
                   " ON r.stmt_id = t.last_stmt WHERE t.tx_id = l.tx_id)")
LS_COLUMNS(le, LOCK_ERROR_COLS);
/* The lock errors in log order (time, then line): error ids are given per
 * session, and failed_span_sql gives the first failed span to end to the
 * first error logged (issue 34, samples/blind-zk: taken by id, a later
 * error on another backend took the span of the error logged 10 ms
 * before it, and each walked the other's trace). */
static const char lock_errors_sql[] =
    "SELECT " LS_SELECT_LIST(le, LOCK_ERROR_COLS) " FROM errors e"
    " LEFT JOIN error_links l ON l.error_id = e.error_id"
    " WHERE e.class IN ('lock_timeout', 'lock_nowait', 'statement_timeout',"
    " 'serialization_failure', 'deadlock') AND e.session_id IS NOT NULL"
    " AND e.text_id IS NOT NULL"
    " ORDER BY e.ts, coalesce(e.file_id, 0), coalesce(e.line, 0), e.error_id";

/* The statements of the error's transaction (:session, :first .. :last
 * its first and last statement ids, begun from :tx_start to the error's
 * time :ts, the range of statements_session) up to the error line
 * (:file, :line): is the failed statement among them? */
#define TX_STMTS_PARAMS(X, Q) \
    X(Q, session) X(Q, tx_start) X(Q, ts) X(Q, first) X(Q, last) X(Q, file) X(Q, line)
LS_PARAMS(ts, TX_STMTS_PARAMS);
static const char tx_stmts_sql[] =
    "SELECT st.text FROM statements st WHERE st.session_id = :session"
    " AND st.start_ts BETWEEN :tx_start - " LS_SQL_INT(LS_START_SLACK_US) " AND :ts + "
    LS_SQL_INT(LS_START_SLACK_US) " AND st.stmt_id BETWEEN :first AND :last"
    " AND (coalesce(st.file_id, 0) = 0 AND coalesce(st.line, 0) = 0"
    "  OR (st.file_id, st.line) < (:file, :line))";

/* The parameters of the failed statement: of the :session's statements
 * of the error's :text (its text_id) logged before the error line (:file,
 * :line; its bind line or parse, the execute logs no duration when it
 * fails), begun since its transaction's start (:tx_start, else the window
 * before the error's time :ts), the last logged (a session's ids are in
 * its log order: on a whole-second log start times tie). */
#define FAILED_PARAMS_PARAMS(X, Q) \
    X(Q, session) X(Q, tx_start) X(Q, ts) X(Q, text) X(Q, file) X(Q, line)
LS_PARAMS(fp, FAILED_PARAMS_PARAMS);
static const char failed_params_sql[] =
    "SELECT st.params FROM statements st WHERE st.stmt_id = (SELECT r.stmt_id FROM stmt_rows r"
    " WHERE r.session_id = :session"
    " AND r.start_ts BETWEEN coalesce(:tx_start, :ts - " LS_SQL_INT(LS_RETRY_WINDOW_US) ") - "
    LS_SQL_INT(LS_START_SLACK_US) " AND :ts + " LS_SQL_INT(LS_START_SLACK_US)
    " AND r.text_id = :text"
    " AND (:file = 0 AND :line = 0"
    "  OR (coalesce(r.file_id, 0), coalesce(r.line, 0)) < (:file, :line))"
    " ORDER BY r.stmt_id DESC LIMIT 1)";

/* The :session's statements written after the error line (:file, :line), or of
 * unknown position begun after its time, within the window (from a
 * :resolution before the error's time: a start is its line's time less
 * its duration, and a whole-second line's time is up to a second early;
 * issue 34, samples/busy-row's whole-second copy: a retry's UPDATE that
 * waited 1.1 s started "before" the error it retried), in the order
 * of the index statements_session, which serves the range; by_session()
 * keeps the first RETRY_STEPS_MAX in log order (id) of them, reading on
 * until no later start can be logged before those (issue 34: on a
 * whole-second log the first 32 by start are not the first 32 logged).
 * Parse and bind lines count: a retry that failed again (a
 * deadlock victim has no duration line for its execute) shows only as
 * those. */
#define AFTER_COLS(X, Q)                                                                   \
    X(Q, stmt_id, "st.stmt_id")                                                           \
    X(Q, start_ts, "st.start_ts")                                                         \
    X(Q, dur_us, "st.dur_us")                                                             \
    X(Q, file_id, "st.file_id") /* NULL read as 0 */                                       \
    X(Q, line, "st.line")                                                                 \
    X(Q, text_id, "st.text_id")                                                           \
    X(Q, params, LS_STMT_REF("st", "params"))
LS_COLUMNS(af, AFTER_COLS);
#define AFTER_PARAMS(X, Q) X(Q, session) X(Q, ts) X(Q, resolution) X(Q, file) X(Q, line)
LS_PARAMS(ap, AFTER_PARAMS);
static const char after_sql[] =
    "SELECT " LS_SELECT_LIST(af, AFTER_COLS) RETRY_AFTER_FROM
    " AND st.start_ts >= :ts - :resolution - " LS_SQL_INT(LS_START_SLACK_US)
    " AND st.start_ts <= :ts + " LS_SQL_INT(LS_RETRY_WINDOW_US)
    " AND CASE WHEN coalesce(st.file_id, 0) = 0 AND coalesce(st.line, 0) = 0"
    "  OR :file = 0 AND :line = 0 THEN st.start_ts > :ts"
    "  ELSE (st.file_id, st.line) > (:file, :line) END"
    " ORDER BY st.session_id, st.start_ts, st.stmt_id LIMIT " LS_SQL_INT(RETRY_READ_MAX);

/* The text of a statement's :text (its text_id): after_text(). */
#define TEXT_PARAMS(X, Q) X(Q, text)
LS_PARAMS(tx, TEXT_PARAMS);
static const char text_sql[] = "SELECT text FROM stmt_texts WHERE text_id = :text";

/* Did the error's :session log a statement after the error line (:file,
 * :line; by time, :ts, where either position is unknown), at any time
 * later? None: the session ended after its failure (ended_untold()). */
LS_PARAMS(la, AFTER_PARAMS);
static const char later_sql[] =
    "SELECT EXISTS (SELECT 1 FROM statements st WHERE st.session_id = :session"
    " AND st.start_ts >= :ts - :resolution - " LS_SQL_INT(LS_START_SLACK_US)
    " AND CASE WHEN coalesce(st.file_id, 0) = 0 AND coalesce(st.line, 0) = 0"
    "  OR :file = 0 AND :line = 0 THEN st.start_ts > :ts"
    "  ELSE (st.file_id, st.line) > (:file, :line) END)";

/* Is the error's :session's connection shared by several requests: an
 * explicit transaction of it, begun within the window either side of
 * the error (:ts; stmt ids of statements_session's range), other than
 * the failed one (:tx, statements :first .. :last, and the failed
 * statement's :text, which may log no line of its own), ran statements
 * (inside its BEGIN and its end) none of whose texts the failed
 * transaction ran (samples/blind-otel's pooled connections run
 * payments, checkouts and transfers; samples/correlation's clients run
 * one transaction and its retries)? */
#define SHARED_PARAMS(X, Q) X(Q, session) X(Q, ts) X(Q, tx) X(Q, first) X(Q, last) X(Q, text)
LS_PARAMS(sh, SHARED_PARAMS);

/* The text of the error's :session's statement logged right before the
 * failed transaction's first statement (:first): a SETTING there too
 * (ls_retry_sets_session()) is the client's routine before each
 * transaction (psycopg2's SET default_transaction_isolation TO DEFAULT
 * on a connection whose isolation level it sets: samples/blind-dj). */
static const char set_before_sql[] =
    "SELECT st.text FROM statements st WHERE st.session_id = :session AND st.stmt_id < :first"
    " ORDER BY st.stmt_id DESC LIMIT 1";
#define SET_BEFORE_PARAMS(X, Q) X(Q, session) X(Q, first)
LS_PARAMS(sb, SET_BEFORE_PARAMS);
/* The error's :session's statements of the failed transaction (ids
 * :first .. :last, begun from :tx_start, less the log's :resolution, to
 * the error's time :ts: the range of statements_session, as the ids of
 * all sessions interleave), in log order: its first statement that is
 * not a BEGIN or a SETTING, with its parameters, is what a retry runs
 * first (lead_of()). */
#define LEAD_PARAMS(X, Q) \
    X(Q, session) X(Q, tx_start) X(Q, resolution) X(Q, ts) X(Q, first) X(Q, last)
LS_PARAMS(ld, LEAD_PARAMS);
#define LEAD_COLS(X, Q) X(Q, text, "st.text") X(Q, params, "st.params")
LS_COLUMNS(lc, LEAD_COLS);
static const char lead_sql[] =
    "SELECT " LS_SELECT_LIST(lc, LEAD_COLS) " FROM statements st WHERE st.session_id = :session"
    " AND st.start_ts BETWEEN :tx_start - :resolution - " LS_SQL_INT(LS_START_SLACK_US)
    " AND :ts + " LS_SQL_INT(LS_START_SLACK_US) " AND st.stmt_id BETWEEN :first AND :last"
    " ORDER BY st.stmt_id LIMIT " LS_SQL_INT(RETRY_STEPS_MAX);
static const char shared_sql[] =
    "SELECT EXISTS (SELECT 1 FROM transactions x WHERE x.session_id = :session"
    " AND x.first_stmt BETWEEN (SELECT min(r.stmt_id) FROM stmt_rows r WHERE r.session_id ="
    " :session AND r.start_ts BETWEEN :ts - " LS_SQL_INT(LS_RETRY_WINDOW_US) " AND :ts)"
    " AND (SELECT max(r.stmt_id) FROM stmt_rows r WHERE r.session_id = :session"
    " AND r.start_ts BETWEEN :ts AND :ts + " LS_SQL_INT(LS_RETRY_WINDOW_US) ")"
    " AND x.explicit = 1 AND x.tx_id <> :tx AND x.last_stmt > x.first_stmt + 1"
    " AND NOT EXISTS (SELECT 1 FROM stmt_rows a WHERE a.session_id = :session"
    "  AND a.stmt_id > x.first_stmt AND a.stmt_id < x.last_stmt AND a.text_id IN"
    "  (SELECT b.text_id FROM stmt_rows b WHERE b.session_id = :session"
    "   AND b.stmt_id BETWEEN :first AND :last UNION ALL SELECT :text)))";

/* The texts the error's :session ran around the error (:ts), within
 * LS_RETRY_WINDOW_US either side, outside the failed transaction
 * (statements :first .. :last) and that it never ran, nor the failed
 * statement's (:text): one that writes or locks a row (LS_SQL_WRITE: not
 * a read such as SELECT pg_backend_pid(), not BEGIN, COMMIT, ROLLBACK or
 * a SETTING) is another request's work, on a pool's
 * connection (samples/blind-zk: transfers, orders, page hits and
 * repricings on each of Sequelize's backends); a client's own connection
 * runs its transaction and its retries (samples/correlation).
 * ls_retry_elsewhere_untold() reads it. */
#define POOLED_PARAMS(X, Q) X(Q, session) X(Q, ts) X(Q, first) X(Q, last) X(Q, text)
LS_PARAMS(po, POOLED_PARAMS);
static const char pooled_sql[] =
    "SELECT DISTINCT x.text FROM stmt_rows a JOIN stmt_texts x ON x.text_id = a.text_id"
    " WHERE a.session_id = :session AND a.start_ts BETWEEN :ts - " LS_SQL_INT(LS_RETRY_WINDOW_US)
    " AND :ts + " LS_SQL_INT(LS_RETRY_WINDOW_US) " AND a.verb IS NOT 5" /* LS_VERB_SPAN */
    " AND (a.stmt_id < :first OR a.stmt_id > :last) AND a.text_id NOT IN (SELECT b.text_id"
    "  FROM stmt_rows b WHERE b.session_id = :session AND b.stmt_id BETWEEN :first AND :last"
    "  AND b.text_id IS NOT NULL) AND a.text_id IS NOT :text LIMIT " LS_SQL_INT(RETRY_READ_MAX);

/* The transaction a statement (:stmt) ran in: the last one of its
 * :session that began at or before it (transactions_session_stmt), if it
 * spans it. */
#define RETRY_TX_COLS(X, Q)                                                                \
    X(Q, tx_id, "tx_id")                                                                  \
    X(Q, outcome, "outcome")                                                              \
    X(Q, last_stmt, "last_stmt")
LS_COLUMNS(rt, RETRY_TX_COLS);
#define RETRY_TX_PARAMS(X, Q) X(Q, session) X(Q, stmt)
LS_PARAMS(rp, RETRY_TX_PARAMS);
static const char retry_tx_sql[] =
    "SELECT " LS_SELECT_LIST(rt, RETRY_TX_COLS) " FROM transactions WHERE session_id = :session"
    " AND first_stmt <= :stmt ORDER BY session_id DESC, first_stmt DESC LIMIT 1";

/* The span of the failed statement, for an error whose transaction the log
 * does not show: a span of its :text that ended in an error and was
 * running when the error line was written (:ts, of :resolution: the span
 * began by the end of the line's time and ended after its start; the
 * client hears of the error later, through a pooler: 30-55 ms on
 * blind-pool), on the log's clock (:offset, of error :slack), not claimed
 * by an earlier error, of the :trace the error's transaction is linked
 * to if any;
 * of several, the first to end (errors are taken in log order).
 * spans_text serves the text and a start range. */
#define FAILED_SPAN_COLS(X, Q)                                                             \
    X(Q, span_row, "s.span_row")                                                          \
    X(Q, trace_id, "s.trace_id")                                                          \
    X(Q, start_ts, "s.start_ts")                                                          \
    X(Q, end_ts, "s.end_ts")
LS_COLUMNS(fs, FAILED_SPAN_COLS);
#define FAILED_SPAN_PARAMS(X, Q) \
    X(Q, text) X(Q, ts) X(Q, offset) X(Q, resolution) X(Q, slack) X(Q, trace)
LS_PARAMS(sp, FAILED_SPAN_PARAMS);
static const char failed_span_sql[] =
    "SELECT " LS_SELECT_LIST(fs, FAILED_SPAN_COLS) " FROM spans s"
    " WHERE s.db_statement = :text AND s.error = 1 AND s.trace_id IS NOT NULL"
    " AND s.start_ts BETWEEN :ts - :offset - " LS_SQL_INT(LS_RETRY_WINDOW_US)
    "  AND :ts - :offset + :resolution + :slack"
    " AND s.end_ts + :offset >= :ts - :slack AND (:trace IS NULL OR s.trace_id = :trace)"
    " AND s.span_row NOT IN (SELECT span_row FROM temp.retry_claimed)"
    " ORDER BY s.end_ts, s.span_row LIMIT 1";

/* The failed statement's spans (its :text) of one :trace, the driver's
 * and an ORM's over it, that overlap the chosen one (:start .. :end): one
 * statement, claimed together. */
#define CLAIM_PARAMS(X, Q) X(Q, trace) X(Q, text) X(Q, end) X(Q, start)
LS_PARAMS(cl, CLAIM_PARAMS);
static const char claim_sql[] =
    "INSERT OR IGNORE INTO temp.retry_claimed(span_row) SELECT span_row FROM spans"
    " WHERE trace_id = :trace AND db_statement = :text AND error = 1"
    " AND start_ts <= :end AND end_ts >= :start";

/* A :trace's database spans in the order they started (spans_id). */
#define TRACE_COLS(X, Q)                                                                   \
    X(Q, span_row, "span_row")                                                            \
    X(Q, start_ts, "start_ts")                                                            \
    X(Q, error, "coalesce(error, 0)")                                                     \
    X(Q, text, "db_statement")
LS_COLUMNS(tr, TRACE_COLS);
#define TRACE_PARAMS(X, Q) X(Q, trace)
LS_PARAMS(tp, TRACE_PARAMS);
static const char trace_sql[] =
    "SELECT " LS_SELECT_LIST(tr, TRACE_COLS) " FROM spans WHERE trace_id = :trace"
    " AND db_statement IS NOT NULL ORDER BY start_ts, span_row";

/* Matching by parameters (by_params(), issue 34): each failure's text,
 * parameters and end (its transaction's last statement, the ROLLBACK),
 * indexed by end and by text and parameters (rivals_sql); the
 * transactions begun in some failure's gap (ls_retry_param_gap(), from
 * LS_START_SLACK_US before its end), by start: the only ones by_params()
 * can take, and the only ones read (issue 38: a copy of every statement
 * of the failing texts was most of a pgbench log); the transactions
 * claimed as retries. */
static const char param_tables_sql[] =
    "CREATE TEMP TABLE IF NOT EXISTS retry_failed(error_id INTEGER PRIMARY KEY, text_id INTEGER,"
    " params, end_ts INTEGER, end_file INTEGER, end_line INTEGER);"
    " DELETE FROM temp.retry_failed;"
    " CREATE INDEX IF NOT EXISTS temp.retry_failed_end ON retry_failed(end_ts);"
    " CREATE INDEX IF NOT EXISTS temp.retry_failed_key ON retry_failed(text_id, params, end_ts);"
    " CREATE TEMP TABLE IF NOT EXISTS retry_gap_tx(start_ts INTEGER, tx_id INTEGER,"
    " PRIMARY KEY(start_ts, tx_id)) WITHOUT ROWID;"
    " DELETE FROM temp.retry_gap_tx;"
    " CREATE TEMP TABLE IF NOT EXISTS retry_claimed_tx(tx_id INTEGER PRIMARY KEY);"
    " DELETE FROM temp.retry_claimed_tx;";
/* The transactions begun in the failures' gaps (:gap after each end):
 * retry_gap.h; none read when there is no failure to match. */
#define GAP_TX_PARAMS(X, Q) X(Q, start) X(Q, tx)
LS_PARAMS(gt, GAP_TX_PARAMS);
static const char gap_tx_sql[] =
    "INSERT OR IGNORE INTO temp.retry_gap_tx(start_ts, tx_id) VALUES (:start, :tx)";
#define FAILED_INS_PARAMS(X, Q) \
    X(Q, error) X(Q, text) X(Q, params) X(Q, end_ts) X(Q, end_file) X(Q, end_line)
LS_PARAMS(fi, FAILED_INS_PARAMS);
static const char failed_ins_sql[] =
    "INSERT INTO temp.retry_failed(error_id, text_id, params, end_ts, end_file, end_line)"
    " VALUES (:error, :text, :params, :end_ts, :end_file, :end_line)";
/* Other failures of the text and parameters than :error that ended
 * within the window of :end_ts. */
#define RIVAL_PARAMS(X, Q) X(Q, text) X(Q, params) X(Q, error) X(Q, end_ts)
LS_PARAMS(rv, RIVAL_PARAMS);
#define RIVAL_COLS(X, Q)                                                                   \
    X(Q, end_ts, "end_ts")                                                                \
    X(Q, end_file, "end_file")                                                            \
    X(Q, end_line, "end_line")
LS_COLUMNS(ri, RIVAL_COLS);
static const char rivals_sql[] =
    "SELECT " LS_SELECT_LIST(ri, RIVAL_COLS) " FROM temp.retry_failed WHERE text_id = :text"
    " AND params = :params AND error_id <> :error AND end_ts BETWEEN :end_ts - "
    LS_SQL_INT(LS_RETRY_WINDOW_US) " AND :end_ts + " LS_SQL_INT(LS_RETRY_WINDOW_US);
/* The transactions begun in the gap after the failure's end (:end_ts to
 * :end_ts + :gap, temp.retry_gap_tx) that ran the :text with the :params
 * (a statement of the transaction's own, by id between its first and
 * last, within the window): each with its first statement's start and
 * line, whether it is on the failure's :session, claimed, of another
 * trace than the failure's (:trace, NULL unknown), its outcome, and the
 * statement (RETRY_PARAM_CANDS_FROM: retry_gap.h). */
#define CAND_PARAMS(X, Q) \
    X(Q, session) X(Q, trace) X(Q, end_ts) X(Q, gap) X(Q, text) X(Q, params)
LS_PARAMS(cp, CAND_PARAMS);
/* A candidate transaction t as ls_retry_cand holds it (cand_read()), the
 * first columns of both candidate queries: its first statement's start
 * and line (fs), whether it is on the failure's :session, claimed, of
 * another trace than the failure's :trace. */
#define CAND_COLS(X, Q)                                                                    \
    X(Q, begun_ts, "t.start_ts")                                                          \
    X(Q, file_id, "coalesce(fs.file_id, 0)")                                              \
    X(Q, line, "coalesce(fs.line, 0)")                                                    \
    X(Q, own, "t.session_id = :session")                                                  \
    X(Q, claimed, "t.tx_id IN (SELECT tx_id FROM temp.retry_claimed_tx)")                 \
    X(Q, other_request, "coalesce((SELECT r.trace_id <> :trace FROM tx_code_rows r"        \
                        " WHERE r.tx_id = t.tx_id), 0)")
LS_COLUMNS(cc, CAND_COLS);
#define PARAM_CAND_COLS(X, Q)                                                              \
    CAND_COLS(X, Q)                                                                       \
    X(Q, tx_id, "t.tx_id")                                                                \
    X(Q, outcome, "t.outcome")                                                            \
    X(Q, stmt_id, "c.stmt_id")
LS_COLUMNS(pc, PARAM_CAND_COLS);
static const char param_cands_sql[] =
    "SELECT " LS_SELECT_LIST(pc, PARAM_CAND_COLS) RETRY_PARAM_CANDS_FROM
    " ORDER BY c.start_ts, c.stmt_id LIMIT " LS_SQL_INT(RETRY_STEPS_MAX);
/* The same transactions that ran the :text with any parameters
 * (RETRY_ROW_CANDS_FROM): row_untold() keeps those on the failed
 * statement's row. */
#define ROW_CAND_PARAMS(X, Q) X(Q, session) X(Q, trace) X(Q, end_ts) X(Q, gap) X(Q, text)
LS_PARAMS(rw, ROW_CAND_PARAMS);
#define ROW_CAND_COLS(X, Q) CAND_COLS(X, Q) X(Q, params, "c.params")
LS_COLUMNS(wc, ROW_CAND_COLS);
static const char row_cands_sql[] =
    "SELECT " LS_SELECT_LIST(wc, ROW_CAND_COLS) RETRY_ROW_CANDS_FROM
    " ORDER BY c.start_ts, c.stmt_id LIMIT " LS_SQL_INT(RETRY_STEPS_MAX);
#define CLAIM_TX_PARAMS(X, Q) X(Q, tx)
LS_PARAMS(ct, CLAIM_TX_PARAMS);
static const char claim_tx_sql[] =
    "INSERT OR IGNORE INTO temp.retry_claimed_tx(tx_id) VALUES (:tx)";

/* The retry of an error (one row of the pass's own table). */
LS_TABLE_COLUMNS(retries);
static const char set_retry_sql[] = LS_INSERT_INTO("INSERT", retries);
/* A timeout's retry by repeated parameters made untold (tries_untold()). */
#define UNTELL_PARAMS(X, Q) X(Q, error)
LS_PARAMS(ut, UNTELL_PARAMS);
static const char untell_sql[] =
    "UPDATE retries SET retry_stmt = NULL, retry_span = NULL, retry_tx = NULL,"
    " retry_outcome = '" LS_RETRY_OUTCOME_UNTOLD_TRIES "' WHERE error_id = :error";

/* Statement texts whose shape is kept (a direct-mapped cache: a log's
 * statements are of a few texts, each shaped once, where every step
 * after every error shaped its text again), and the longest text kept. */
#define SHAPE_CACHE_SLOTS 256
#define SHAPE_CACHE_TEXT_MAX RETRY_SHAPE_BYTES

typedef struct shape_slot {
    uint64_t hash;
    char *text, *shape; /* NULL: empty */
} shape_slot;

/* A lock error's place in its session's run of timeouts retried with the
 * same parameters (ls_retry_tries_untold()), kept in lock_errors_sql's
 * order. */
typedef struct err_try {
    int64_t error_id, session, text_id, ts;
    int64_t first_stmt, last_stmt; /* its transaction's, 0 unknown */
    int64_t retry_stmt;            /* its retry told by repeated parameters, 0 none */
    int try_no;                    /* 1 a first failure, 2 its retry's, ... */
    int timeout;                   /* of a class no client retries as a matter of course */
    int walked_none;               /* its session's order told it not retried */
} err_try;

/* The pass's statements and buffers. */
typedef struct retry_pass {
    ls_stmt *errs, *txs, *after, *txq, *fspan, *claim, *trace, *upd, *fparams;
    ls_stmt *failed_ins, *rivals, *cands, *claim_tx, *row_cands, *shared, *later, *pooled;
    ls_stmt *set_before, *lead, *text_q;
    ls_text_cache texts; /* the texts after_text() read, by text_id */
    ls_buf want, got;
    ls_buf params; /* the failed statement's logged parameters, "" unknown */
    ls_buf lead_text, lead_params; /* the failed transaction's first statement
                                    * and its logged parameters ("" none) */
    ls_retry_end rival[RETRY_STEPS_MAX];
    ls_retry_cand cand[RETRY_STEPS_MAX];
    int64_t cand_tx[RETRY_STEPS_MAX], cand_stmt[RETRY_STEPS_MAX];
    char cand_outcome[RETRY_STEPS_MAX][16];
    shape_slot shapes[SHAPE_CACHE_SLOTS];
    ls_retry_step steps[RETRY_STEPS_MAX + 1]; /* + 1: a session's next read */
    ls_retry_params step_params[RETRY_STEPS_MAX + 1]; /* each step's parameters against
                                                       * the failed statement's */
    int64_t ids[RETRY_STEPS_MAX + 1];         /* each step's stmt_id, or span_row */
    int64_t log_ts[RETRY_STEPS_MAX + 1];      /* a session step's log line time */
    char **err_params; /* each lock error's failed statement's parameters (NULL
                        * none), read once, in lock_errors_sql's order */
    size_t n_err, cap_err;
    size_t n_failed; /* failures noted for by_params() (temp.retry_failed) */
    int64_t resolution;           /* the log's times: a whole second or a millisecond */
    int64_t gap;                  /* ls_retry_param_gap(resolution) */
    int64_t offset;               /* the spans' clock onto the log's */
    int64_t slack;                /* that offset's error: LS_REQUEST_SLACK_US, and a
                                   * second more with whole-second times, from which
                                   * the offset itself is estimated (blind-pool's %t
                                   * log: -414 ms, against 0.08 ms measured) */
    char failed_row[RETRY_ROW_BYTES]; /* the failed statement's row, "" unknown */
    err_try *tries;                   /* n_err of them */
    size_t cur;                       /* the current error's index */
    ls_stmt *untell;
    int asks;   /* ls_retry_class_asks_retry() of the current error's class */
    int beyond; /* its failed statement's parameters bind a value beyond
                 * its row's key (ls_retry_params_beyond_key()) */
} retry_pass;

/* The row a statement addresses by key into row ("" when it names none):
 * "relation col=value", its $n bound from params (may be NULL). */
static void row_of(const char *sql, const char *params, char *row, size_t len)
{
    char rel[RETRY_REL_BYTES], key[RETRY_KEY_BYTES];

    row[0] = '\0';
    if (sql && ls_sql_row_key(sql, params, rel, sizeof(rel), key, sizeof(key)) == 1)
        snprintf(row, len, "%s %s", rel, key);
}

static int bind_id(ls_stmt *q, int i, int64_t id);

/* Set the current error's failed statement's parameters (params NULL:
 * none logged) into p->params and the row it addressed into
 * p->failed_row ("" unknown): by its text, its $n bound from those. 0 or
 * LS_ENOMEM. */
static int set_failed(retry_pass *p, const char *params)
{
    const char *text = ls_stmt_text(p->errs, le_text);
    ls_row_ref ref;

    ls_buf_reset(&p->params);
    row_of(text, params, p->failed_row, sizeof(p->failed_row));
    p->asks = ls_retry_class_asks_retry(ls_stmt_text(p->errs, le_cls));
    p->beyond = text && ls_sql_row_ref(text, &ref) == 1 &&
                ls_retry_params_beyond_key(params, ref.kind == LS_REF_PARAM ? ref.param : 0);
    if (params) {
        ls_buf_adds(&p->params, params);
        if (ls_buf_failed(&p->params))
            return LS_ENOMEM;
    }
    return 0;
}

/* The current error's failed statement, the i-th lock error: its
 * parameters as read_failed() kept them (read once: issue 38). */
static int failed_row_at(retry_pass *p, size_t i)
{
    return set_failed(p, i < p->n_err ? p->err_params[i] : NULL);
}

/* The row the current error's failed statement addressed into
 * p->failed_row ("" unknown): by its text, its $n bound from the
 * parameters its own logged line before the error shows (PgJDBC's bind
 * line: a pool's next request on the same connection runs the shape on
 * another row: samples/blind-java); the parameters kept for
 * failed_row_at(). 0 or an error. */
static int read_failed(retry_pass *p)
{
    const char *text = ls_stmt_text(p->errs, le_text);
    const char *params = NULL;
    int rc;

    if (p->n_err == p->cap_err) {
        size_t cap = p->cap_err ? 2 * p->cap_err : 64;
        char **v = realloc(p->err_params, cap * sizeof(*v));
        if (!v)
            return LS_ENOMEM;
        p->err_params = v;
        p->cap_err = cap;
    }
    p->err_params[p->n_err++] = NULL;
    if (!strchr(text, '$')) /* no parameter: the text names its row */
        return set_failed(p, NULL);
    ls_stmt_reset(p->fparams);
    if ((rc = ls_stmt_bind_int64(p->fparams, LS_PARAM(fp, session),
                                 ls_stmt_int64(p->errs, le_session_id))) != 0 ||
        (rc = ls_stmt_isnull(p->errs, le_tx_start)
                  ? ls_stmt_bind_null(p->fparams, LS_PARAM(fp, tx_start))
                  : ls_stmt_bind_int64(p->fparams, LS_PARAM(fp, tx_start),
                                       ls_stmt_int64(p->errs, le_tx_start))) != 0 ||
        (rc = ls_stmt_bind_int64(p->fparams, LS_PARAM(fp, ts), ls_stmt_int64(p->errs, le_ts))) !=
            0 ||
        (rc = ls_stmt_bind_int64(p->fparams, LS_PARAM(fp, text),
                                 ls_stmt_int64(p->errs, le_text_id))) != 0 ||
        (rc = ls_stmt_bind_int64(p->fparams, LS_PARAM(fp, file),
                                 ls_stmt_int64(p->errs, le_file_id))) != 0 ||
        (rc = ls_stmt_bind_int64(p->fparams, LS_PARAM(fp, line),
                                 ls_stmt_int64(p->errs, le_line))) != 0 ||
        (rc = ls_stmt_step(p->fparams)) < 0)
        return rc;
    if (rc == 1 && !ls_stmt_isnull(p->fparams, LS_ONLY_COLUMN)) {
        params = ls_stmt_text(p->fparams, LS_ONLY_COLUMN);
        if (!(p->err_params[p->n_err - 1] = ls_strdup(params)))
            return LS_ENOMEM;
    }
    return set_failed(p, params);
}

/* A statement's kind for the walk. */
static ls_retry_kind step_kind(const char *sql)
{
    switch (ls_sql_kind_of(sql)) {
    case LS_SQL_BEGIN: return LS_RETRY_STEP_BEGIN;
    case LS_SQL_COMMIT: return LS_RETRY_STEP_COMMIT;
    case LS_SQL_ROLLBACK: return LS_RETRY_STEP_ROLLBACK;
    default: return ls_retry_sets_session(sql) ? LS_RETRY_STEP_SETTING : LS_RETRY_STEP_OTHER;
    }
}

/* The shape of statement text sql (ls_sql_shape of its first
 * RETRY_SHAPE_BYTES), from the cache or made (and kept); valid until the
 * next call. NULL when out of memory. */
static const char *shape_of(retry_pass *p, const char *sql)
{
    size_t n = strlen(sql);
    uint64_t h = ls_quick_hash(sql, n);
    shape_slot *sl = &p->shapes[h % SHAPE_CACHE_SLOTS];

    if (sl->text && sl->hash == h && strcmp(sl->text, sql) == 0)
        return sl->shape;
    ls_buf_reset(&p->got);
    ls_sql_shape(&p->got, sql, RETRY_SHAPE_BYTES);
    if (ls_buf_failed(&p->got))
        return NULL;
    if (n <= SHAPE_CACHE_TEXT_MAX) {
        free(sl->text);
        free(sl->shape);
        sl->hash = h;
        sl->text = ls_strdup(sql);
        sl->shape = ls_strdup(ls_buf_str(&p->got));
        if (!sl->text || !sl->shape) { /* not kept: shaped again next time */
            free(sl->text);
            free(sl->shape);
            sl->text = sl->shape = NULL;
        }
    }
    return ls_buf_str(&p->got);
}

/* Fill step *st from a statement's text, its parameters (may be NULL) and
 * start; 0 or LS_ENOMEM. */
static int make_step(retry_pass *p, ls_retry_step *st, const char *sql, const char *params,
                     int64_t ts, int failed)
{
    char row[RETRY_ROW_BYTES];
    const char *shape;
    ls_retry_params *sp = &p->step_params[st - p->steps];

    st->ts = ts;
    st->kind = step_kind(sql ? sql : "");
    st->failed = failed;
    if (!(shape = shape_of(p, sql ? sql : "")))
        return LS_ENOMEM;
    st->shape = strcmp(ls_buf_str(&p->want), shape) == 0;
    st->other_run = 0;
    *sp = LS_RETRY_PARAMS_UNKNOWN;
    if (st->shape) {
        const char *ftext = ls_stmt_text(p->errs, le_text);
        row_of(sql, params, row, sizeof(row));
        st->shape = ls_retry_same_run(1, p->failed_row, row);
        if (params && *params && ls_buf_str(&p->params)[0] != '\0' && sql && ftext &&
            strcmp(sql, ftext) == 0)
            *sp = strcmp(params, ls_buf_str(&p->params)) == 0 ? LS_RETRY_PARAMS_SAME
                                                              : LS_RETRY_PARAMS_OTHER;
        if (st->shape && ls_retry_other_request(p->asks, *sp))
            st->shape = 0; /* a timeout's run with other values: the next request's */
        st->other_run = !st->shape;
    }
    st->again = params && *params && ls_buf_str(&p->lead_params)[0] != '\0' &&
                strcmp(params, ls_buf_str(&p->lead_params)) == 0 && sql &&
                strcmp(sql, ls_buf_str(&p->lead_text)) == 0;
    return 0;
}

/* Bind id to parameter i of q, or NULL where id is 0 (none). */
static int bind_id(ls_stmt *q, int i, int64_t id)
{
    return id != 0 ? ls_stmt_bind_int64(q, i, id) : ls_stmt_bind_null(q, i);
}

/* Store the retry of the current error: its statement (stmt) or, found in
 * its request's trace, its span (span_row), one of them 0; its
 * transaction (tx, 0 none) and outcome (NULL unknown). Both 0 with the
 * outcome LS_RETRY_OUTCOME_UNTOLD: the log cannot tell whether it was
 * retried (ls_retry_session_told()). */
static int store_retry(retry_pass *p, int64_t stmt, int64_t span_row, int64_t tx,
                       const char *outcome, ls_correlate_stats *stats)
{
    int rc;

    ls_stmt_reset(p->upd);
    if ((rc = ls_stmt_bind_int64(p->upd, LS_PARAM(retries, error_id),
                                 ls_stmt_int64(p->errs, le_error_id))) != 0 ||
        (rc = bind_id(p->upd, LS_PARAM(retries, retry_stmt), stmt)) != 0 ||
        (rc = bind_id(p->upd, LS_PARAM(retries, retry_span), span_row)) != 0 ||
        (rc = bind_id(p->upd, LS_PARAM(retries, retry_tx), tx)) != 0 ||
        (rc = ls_stmt_bind_text(p->upd, LS_PARAM(retries, retry_outcome), outcome)) != 0)
        return rc;
    if ((rc = ls_stmt_step(p->upd)) < 0)
        return rc;
    if (stmt != 0 || span_row != 0)
        stats->retries++;
    return 0;
}

/* Does the log show the current error's transaction: one was found for
 * it (error_links), and its BEGIN was logged (every statement is: a
 * failed statement logs no duration line, so it may be the only one
 * missing) or, a statement of its own, it is the failed statement, logged
 * before the error? Not under log_min_duration_statement on a pooled
 * backend: the error's second may give it another client's slow
 * statement. 1 yes, 0 no, < 0 an error. */
static int log_shows_failed(retry_pass *p)
{
    int rc;

    if (ls_stmt_isnull(p->errs, le_tx_id) || ls_stmt_isnull(p->errs, le_first_stmt))
        return 0;
    if (!ls_stmt_isnull(p->errs, le_explicit) && ls_stmt_int64(p->errs, le_explicit) != 0)
        return 1;
    ls_stmt_reset(p->txs);
    if ((rc = ls_stmt_bind_int64(p->txs, LS_PARAM(ts, session),
                                 ls_stmt_int64(p->errs, le_session_id))) != 0 ||
        (rc = ls_stmt_bind_int64(p->txs, LS_PARAM(ts, tx_start),
                                 ls_stmt_int64(p->errs, le_tx_start))) != 0 ||
        (rc = ls_stmt_bind_int64(p->txs, LS_PARAM(ts, ts), ls_stmt_int64(p->errs, le_ts))) != 0 ||
        (rc = ls_stmt_bind_int64(p->txs, LS_PARAM(ts, first),
                                 ls_stmt_int64(p->errs, le_first_stmt))) != 0 ||
        (rc = ls_stmt_bind_int64(p->txs, LS_PARAM(ts, last),
                                 ls_stmt_int64(p->errs, le_last_stmt))) != 0 ||
        (rc = ls_stmt_bind_int64(p->txs, LS_PARAM(ts, file),
                                 ls_stmt_int64(p->errs, le_file_id))) != 0 ||
        (rc = ls_stmt_bind_int64(p->txs, LS_PARAM(ts, line), ls_stmt_int64(p->errs, le_line))) !=
            0)
        return rc;
    while ((rc = ls_stmt_step(p->txs)) == 1) {
        ls_buf_reset(&p->got);
        ls_sql_shape(&p->got, ls_stmt_text(p->txs, LS_ONLY_COLUMN), RETRY_SHAPE_BYTES);
        if (ls_buf_failed(&p->got))
            return LS_ENOMEM;
        if (strcmp(ls_buf_str(&p->want), ls_buf_str(&p->got)) == 0)
            return 1;
    }
    return rc < 0 ? rc : 0;
}

/* Put step n - 1, just read, in log order among the n - 1 before it
 * (their statement ids: a session's are in its log order), which are. */
static void log_insert(retry_pass *p, size_t n)
{
    size_t j = n - 1;
    int64_t id = p->ids[j], log_ts = p->log_ts[j];
    ls_retry_step st = p->steps[j];
    ls_retry_params sp = p->step_params[j];

    for (; j > 0 && p->ids[j - 1] > id; j--) {
        p->ids[j] = p->ids[j - 1];
        p->log_ts[j] = p->log_ts[j - 1];
        p->steps[j] = p->steps[j - 1];
        p->step_params[j] = p->step_params[j - 1];
    }
    p->ids[j] = id;
    p->log_ts[j] = log_ts;
    p->steps[j] = st;
    p->step_params[j] = sp;
}

/* The latest log line time of the n steps kept. */
static int64_t last_logged(const retry_pass *p, size_t n)
{
    int64_t m = INT64_MIN;
    size_t i;

    for (i = 0; i < n; i++)
        if (p->log_ts[i] > m)
            m = p->log_ts[i];
    return m;
}

/* Is the current error's connection shared by several requests
 * (shared_sql)? 1 yes, 0 no (or its transaction unknown), < 0 an error. */
static int conn_shared(retry_pass *p)
{
    int rc;

    if (ls_stmt_isnull(p->errs, le_tx_id) || ls_stmt_isnull(p->errs, le_first_stmt))
        return 0;
    ls_stmt_reset(p->shared);
    if ((rc = ls_stmt_bind_int64(p->shared, LS_PARAM(sh, session),
                                 ls_stmt_int64(p->errs, le_session_id))) != 0 ||
        (rc = ls_stmt_bind_int64(p->shared, LS_PARAM(sh, ts), ls_stmt_int64(p->errs, le_ts))) !=
            0 ||
        (rc = ls_stmt_bind_int64(p->shared, LS_PARAM(sh, tx), ls_stmt_int64(p->errs, le_tx_id))) !=
            0 ||
        (rc = ls_stmt_bind_int64(p->shared, LS_PARAM(sh, first),
                                 ls_stmt_int64(p->errs, le_first_stmt))) != 0 ||
        (rc = ls_stmt_bind_int64(p->shared, LS_PARAM(sh, last),
                                 ls_stmt_int64(p->errs, le_last_stmt))) != 0 ||
        (rc = ls_stmt_bind_int64(p->shared, LS_PARAM(sh, text),
                                 ls_stmt_int64(p->errs, le_text_id))) != 0 ||
        (rc = ls_stmt_step(p->shared)) < 0)
        return rc;
    return rc == 1 && ls_stmt_int64(p->shared, LS_ONLY_COLUMN) != 0;
}

/* Was the failed transaction, too, begun after a SETTING of its session
 * (set_before_sql)? 1 yes, 0 no (or unknown), < 0 an error. */
static int set_routine(retry_pass *p)
{
    int rc;
    const char *text;

    if (ls_stmt_isnull(p->errs, le_first_stmt))
        return 0;
    ls_stmt_reset(p->set_before);
    if ((rc = ls_stmt_bind_int64(p->set_before, LS_PARAM(sb, session),
                                 ls_stmt_int64(p->errs, le_session_id))) != 0 ||
        (rc = ls_stmt_bind_int64(p->set_before, LS_PARAM(sb, first),
                                 ls_stmt_int64(p->errs, le_first_stmt))) != 0 ||
        (rc = ls_stmt_step(p->set_before)) < 0)
        return rc;
    text = rc == 1 ? ls_stmt_text(p->set_before, LS_ONLY_COLUMN) : NULL;
    return text && ls_retry_sets_session(text);
}

/* The current error's failed transaction's first statement (not a BEGIN
 * or a SETTING) and its logged parameters into p->lead_text and
 * p->lead_params ("" where none or unknown). 0 or an error. */
static int lead_of(retry_pass *p)
{
    int rc;

    ls_buf_reset(&p->lead_text);
    ls_buf_reset(&p->lead_params);
    if (ls_stmt_isnull(p->errs, le_first_stmt) || ls_stmt_isnull(p->errs, le_last_stmt) ||
        ls_stmt_isnull(p->errs, le_tx_start))
        return 0;
    ls_stmt_reset(p->lead);
    if ((rc = ls_stmt_bind_int64(p->lead, LS_PARAM(ld, session),
                                 ls_stmt_int64(p->errs, le_session_id))) != 0 ||
        (rc = ls_stmt_bind_int64(p->lead, LS_PARAM(ld, tx_start),
                                 ls_stmt_int64(p->errs, le_tx_start))) != 0 ||
        (rc = ls_stmt_bind_int64(p->lead, LS_PARAM(ld, resolution), p->resolution)) != 0 ||
        (rc = ls_stmt_bind_int64(p->lead, LS_PARAM(ld, ts), ls_stmt_int64(p->errs, le_ts))) !=
            0 ||
        (rc = ls_stmt_bind_int64(p->lead, LS_PARAM(ld, first),
                                 ls_stmt_int64(p->errs, le_first_stmt))) != 0 ||
        (rc = ls_stmt_bind_int64(p->lead, LS_PARAM(ld, last),
                                 ls_stmt_int64(p->errs, le_last_stmt))) != 0)
        return rc;
    while ((rc = ls_stmt_step(p->lead)) == 1) {
        const char *text = ls_stmt_text(p->lead, lc_text);
        if (step_kind(text ? text : "") != LS_RETRY_STEP_OTHER)
            continue;
        ls_buf_adds(&p->lead_text, text);
        if (!ls_stmt_isnull(p->lead, lc_params))
            ls_buf_adds(&p->lead_params, ls_stmt_text(p->lead, lc_params));
        if (ls_buf_failed(&p->lead_text) || ls_buf_failed(&p->lead_params))
            return LS_ENOMEM;
        return 0;
    }
    return rc < 0 ? rc : 0;
}

/* The text of p->after's current statement, in *out: NULL where it has
 * none (as the view statements gives it), else its text_id's, read from
 * stmt_texts once per text_id (p->texts). 0 or an error. */
static int after_text(retry_pass *p, const char **out)
{
    ls_text_slot *e;
    int64_t id;
    int rc;

    *out = NULL;
    if (ls_stmt_isnull(p->after, af_text_id))
        return 0;
    id = ls_stmt_int64(p->after, af_text_id);
    if (!ls_text_cache_find(&p->texts, id, &e)) {
        ls_stmt_reset(p->text_q);
        if ((rc = ls_stmt_bind_int64(p->text_q, LS_PARAM(tx, text), id)) != 0 ||
            (rc = ls_stmt_step(p->text_q)) < 0)
            return rc;
        if (rc == 0) /* a text_id no text has: none, as the view's join */
            return 0;
        rc = ls_text_cache_fill(e, id, ls_stmt_text(p->text_q, LS_ONLY_COLUMN));
        ls_stmt_reset(p->text_q);
        if (rc != 0)
            return rc;
    }
    *out = e->text;
    return 0;
}

/* The retry in the error's session, whose transaction the log shows: the
 * statements after the error line, walked; its transaction's outcome is
 * the transactions pass's (its transaction claimed). 1 stored, 0 none, 2
 * untold (not stored: by_params() may tell), < 0 an error. */
static int by_session(retry_pass *p, ls_correlate_stats *stats)
{
    int64_t session = ls_stmt_int64(p->errs, le_session_id);
    int64_t err_ts = ls_stmt_int64(p->errs, le_ts);
    ls_logpos err = {ls_stmt_int64(p->errs, le_file_id), ls_stmt_int64(p->errs, le_line)};
    size_t n = 0;
    ls_retry_found f;
    const char *text;
    int rc, have_tx, shared, routine, asks, repeats;

    if ((rc = lead_of(p)) != 0)
        return rc;
    ls_stmt_reset(p->after);
    if ((rc = ls_stmt_bind_int64(p->after, LS_PARAM(ap, session), session)) != 0 ||
        (rc = ls_stmt_bind_int64(p->after, LS_PARAM(ap, ts), err_ts)) != 0 ||
        (rc = ls_stmt_bind_int64(p->after, LS_PARAM(ap, file), err.file)) != 0 ||
        (rc = ls_stmt_bind_int64(p->after, LS_PARAM(ap, line), err.line)) != 0 ||
        (rc = ls_stmt_bind_int64(p->after, LS_PARAM(ap, resolution), p->resolution)) != 0)
        return rc;
    /* read in start order, kept in log order: the first RETRY_STEPS_MAX
     * logged, until a statement starts after the last of those was logged
     * (a line's time, within the log's resolution): none after it can be
     * logged before them */
    while ((rc = ls_stmt_step(p->after)) == 1) {
        ls_logpos pos = {ls_stmt_int64(p->after, af_file_id), ls_stmt_int64(p->after, af_line)};
        int64_t ts = ls_stmt_int64(p->after, af_start_ts);
        if (n == RETRY_STEPS_MAX && ts > last_logged(p, n) + p->resolution)
            break;
        if (!ls_retry_after(err, err_ts, pos, ts))
            continue;
        if ((rc = after_text(p, &text)) != 0 ||
            (rc = make_step(p, &p->steps[n], text, ls_stmt_text(p->after, af_params), ts, 0)) !=
                0)
            return rc;
        p->ids[n] = ls_stmt_int64(p->after, af_stmt_id);
        /* the line's time, as the view statements gives log_ts */
        p->log_ts[n] =
            ls_stmt_isnull(p->after, af_dur_us) ? ts : ts + ls_stmt_int64(p->after, af_dur_us);
        log_insert(p, ++n);
        if (n > RETRY_STEPS_MAX)
            n = RETRY_STEPS_MAX; /* the latest logged of them is dropped */
    }
    if (rc < 0)
        return rc;
    f = ls_retry_walk(err_ts, ls_stmt_isnull(p->errs, le_explicit) ||
                                  ls_stmt_int64(p->errs, le_explicit) != 0,
                      p->steps, n);
    if (f.index < 0)
        return 0;
    /* late on a connection kept as it was, or a timeout: is it a pool's? */
    asks = ls_retry_class_asks_retry(ls_stmt_text(p->errs, le_cls));
    if ((shared = ls_retry_kept_late(f, p->resolution) || !asks ? conn_shared(p) : 0) < 0)
        return shared;
    if ((routine = f.set_between ? set_routine(p) : 0) < 0)
        return routine;
    repeats = p->beyond && p->step_params[f.index] == LS_RETRY_PARAMS_SAME;
    if (ls_retry_session_told(f, p->resolution, shared, routine, asks, repeats) == LS_RETRY_UNTOLD)
        return 2;
    if (repeats)
        p->tries[p->cur].retry_stmt = p->ids[f.index];
    ls_stmt_reset(p->txq);
    if ((rc = ls_stmt_bind_int64(p->txq, LS_PARAM(rp, session), session)) != 0 ||
        (rc = ls_stmt_bind_int64(p->txq, LS_PARAM(rp, stmt), p->ids[f.index])) != 0 ||
        (rc = ls_stmt_step(p->txq)) < 0)
        return rc;
    have_tx = rc == 1 && ls_stmt_int64(p->txq, rt_last_stmt) >= p->ids[f.index];
    if (have_tx) {
        ls_stmt_reset(p->claim_tx);
        if ((rc = ls_stmt_bind_int64(p->claim_tx, LS_PARAM(ct, tx),
                                     ls_stmt_int64(p->txq, rt_tx_id))) != 0 ||
            (rc = ls_stmt_step(p->claim_tx)) < 0)
            return rc;
    }
    if ((rc = store_retry(p, p->ids[f.index], 0, have_tx ? ls_stmt_int64(p->txq, rt_tx_id) : 0,
                          have_tx && !ls_stmt_isnull(p->txq, rt_outcome)
                              ? ls_stmt_text(p->txq, rt_outcome)
                              : NULL,
                          stats)) < 0)
        return rc;
    return 1;
}

/* The current error's failed transaction's end, {0} where unknown. */
static ls_retry_end failed_end(const retry_pass *p)
{
    ls_retry_end e = {0, {0, 0}};

    if (!ls_stmt_isnull(p->errs, le_tx_end)) {
        e.ts = ls_stmt_int64(p->errs, le_tx_end);
        e.pos.file = ls_stmt_int64(p->errs, le_end_file);
        e.pos.line = ls_stmt_int64(p->errs, le_end_line);
    }
    return e;
}

/* Note the current error's text, parameters and end for by_params()'s
 * rivals (where the parameters were logged and the end is known). */
static int note_failed(retry_pass *p)
{
    ls_retry_end e = failed_end(p);
    int rc;

    if (e.ts == 0 || ls_buf_str(&p->params)[0] == '\0' ||
        !ls_retry_class_asks_retry(ls_stmt_text(p->errs, le_cls)))
        return 0;
    ls_stmt_reset(p->failed_ins);
    if ((rc = ls_stmt_bind_int64(p->failed_ins, LS_PARAM(fi, error),
                                 ls_stmt_int64(p->errs, le_error_id))) != 0 ||
        (rc = ls_stmt_bind_int64(p->failed_ins, LS_PARAM(fi, text),
                                 ls_stmt_int64(p->errs, le_text_id))) != 0 ||
        (rc = ls_stmt_bind_text(p->failed_ins, LS_PARAM(fi, params),
                                ls_buf_str(&p->params))) != 0 ||
        (rc = ls_stmt_bind_int64(p->failed_ins, LS_PARAM(fi, end_ts), e.ts)) != 0 ||
        (rc = ls_stmt_bind_int64(p->failed_ins, LS_PARAM(fi, end_file), e.pos.file)) != 0 ||
        (rc = ls_stmt_bind_int64(p->failed_ins, LS_PARAM(fi, end_line), e.pos.line)) != 0)
        return rc;
    if ((rc = ls_stmt_step(p->failed_ins)) < 0)
        return rc;
    p->n_failed++;
    return 0;
}

/* The candidate at q's row (CAND_COLS, the first columns of both
 * candidate queries) into *c. */
static void cand_read(ls_stmt *q, ls_retry_cand *c)
{
    c->begun_ts = ls_stmt_int64(q, cc_begun_ts);
    c->pos.file = ls_stmt_int64(q, cc_file_id);
    c->pos.line = ls_stmt_int64(q, cc_line);
    c->own_session = ls_stmt_int64(q, cc_own) != 0;
    c->claimed = ls_stmt_int64(q, cc_claimed) != 0;
    c->other_request = ls_stmt_int64(q, cc_other_request) != 0;
}

/* The retry on any connection told by the failed statement's logged
 * parameters (decide/retry.h ls_retry_by_params(); issue 34): stored by
 * its statement, on another session, with its transaction and outcome.
 * 1 stored, 0 none, < 0 an error. */
static int by_params(retry_pass *p, ls_correlate_stats *stats)
{
    ls_retry_end end = failed_end(p);
    int64_t text_id = ls_stmt_int64(p->errs, le_text_id);
    size_t nr = 0, nc = 0, i;
    int rc, k;

    if (end.ts == 0 || ls_buf_str(&p->params)[0] == '\0' ||
        !ls_retry_class_asks_retry(ls_stmt_text(p->errs, le_cls)))
        return 0; /* no end, no parameters logged, or a timeout: today's answer */
    ls_stmt_reset(p->rivals);
    if ((rc = ls_stmt_bind_int64(p->rivals, LS_PARAM(rv, text), text_id)) != 0 ||
        (rc = ls_stmt_bind_text(p->rivals, LS_PARAM(rv, params), ls_buf_str(&p->params))) != 0 ||
        (rc = ls_stmt_bind_int64(p->rivals, LS_PARAM(rv, error),
                                 ls_stmt_int64(p->errs, le_error_id))) != 0 ||
        (rc = ls_stmt_bind_int64(p->rivals, LS_PARAM(rv, end_ts), end.ts)) != 0)
        return rc;
    while ((rc = ls_stmt_step(p->rivals)) == 1 && nr < RETRY_STEPS_MAX) {
        p->rival[nr].ts = ls_stmt_int64(p->rivals, ri_end_ts);
        p->rival[nr].pos.file = ls_stmt_int64(p->rivals, ri_end_file);
        p->rival[nr].pos.line = ls_stmt_int64(p->rivals, ri_end_line);
        nr++;
    }
    if (rc < 0)
        return rc;
    ls_stmt_reset(p->cands);
    if ((rc = ls_stmt_bind_int64(p->cands, LS_PARAM(cp, text), text_id)) != 0 ||
        (rc = ls_stmt_bind_text(p->cands, LS_PARAM(cp, params), ls_buf_str(&p->params))) != 0 ||
        (rc = ls_stmt_bind_int64(p->cands, LS_PARAM(cp, end_ts), end.ts)) != 0 ||
        (rc = ls_stmt_bind_int64(p->cands, LS_PARAM(cp, gap), p->gap)) != 0 ||
        (rc = ls_stmt_bind_int64(p->cands, LS_PARAM(cp, session),
                                 ls_stmt_int64(p->errs, le_session_id))) != 0 ||
        (rc = ls_stmt_bind_text(p->cands, LS_PARAM(cp, trace),
                                ls_stmt_isnull(p->errs, le_trace_id)
                                    ? NULL
                                    : ls_stmt_text(p->errs, le_trace_id))) != 0)
        return rc;
    while ((rc = ls_stmt_step(p->cands)) == 1) {
        int64_t tx = ls_stmt_int64(p->cands, pc_tx_id);
        for (i = 0; i < nc && p->cand_tx[i] != tx; i++)
            ;
        if (i < nc)
            continue; /* a transaction that ran it twice: one candidate */
        p->cand_tx[nc] = tx;
        p->cand_stmt[nc] = ls_stmt_int64(p->cands, pc_stmt_id);
        snprintf(p->cand_outcome[nc], sizeof(p->cand_outcome[nc]), "%s",
                 ls_stmt_isnull(p->cands, pc_outcome) ? "" : ls_stmt_text(p->cands, pc_outcome));
        cand_read(p->cands, &p->cand[nc++]);
    }
    if (rc < 0)
        return rc;
    if ((k = ls_retry_by_params(end, p->rival, nr, p->cand, nc, p->resolution)) < 0)
        return 0;
    ls_stmt_reset(p->claim_tx);
    if ((rc = ls_stmt_bind_int64(p->claim_tx, LS_PARAM(ct, tx), p->cand_tx[k])) != 0 ||
        (rc = ls_stmt_step(p->claim_tx)) < 0)
        return rc;
    if ((rc = store_retry(p, p->cand_stmt[k], 0, p->cand_tx[k],
                          p->cand_outcome[k][0] ? p->cand_outcome[k] : NULL, stats)) < 0)
        return rc;
    return 1;
}

/* Is the current error's retry, which neither its session's order nor
 * its parameters told, untold rather than none (decide/retry.h
 * ls_retry_row_untold(); issue 34): a transaction on another session ran
 * the failed text on the failed statement's row, with other parameters,
 * in the gap after its end. Where by_params() reads (the parameters
 * logged, the end known, a class retried as a matter of course). 1
 * untold, 0 none, < 0 an error. */
static int row_untold(retry_pass *p)
{
    ls_retry_end end = failed_end(p);
    const char *text = ls_stmt_text(p->errs, le_text);
    char row[RETRY_ROW_BYTES];
    size_t nc = 0;
    int rc;

    if (end.ts == 0 || ls_buf_str(&p->params)[0] == '\0' || p->failed_row[0] == '\0' ||
        !ls_retry_class_asks_retry(ls_stmt_text(p->errs, le_cls)))
        return 0;
    ls_stmt_reset(p->row_cands);
    if ((rc = ls_stmt_bind_int64(p->row_cands, LS_PARAM(rw, text),
                                 ls_stmt_int64(p->errs, le_text_id))) != 0 ||
        (rc = ls_stmt_bind_int64(p->row_cands, LS_PARAM(rw, end_ts), end.ts)) != 0 ||
        (rc = ls_stmt_bind_int64(p->row_cands, LS_PARAM(rw, gap), p->gap)) != 0 ||
        (rc = ls_stmt_bind_int64(p->row_cands, LS_PARAM(rw, session),
                                 ls_stmt_int64(p->errs, le_session_id))) != 0 ||
        (rc = ls_stmt_bind_text(
             p->row_cands, LS_PARAM(rw, trace),
             ls_stmt_isnull(p->errs, le_trace_id) ? NULL : ls_stmt_text(p->errs, le_trace_id))) !=
            0)
        return rc;
    while ((rc = ls_stmt_step(p->row_cands)) == 1) {
        row_of(text,
               ls_stmt_isnull(p->row_cands, wc_params) ? NULL
                                                       : ls_stmt_text(p->row_cands, wc_params),
               row, sizeof(row));
        if (!ls_retry_same_run(1, p->failed_row, row))
            continue; /* another row: another request's */
        cand_read(p->row_cands, &p->cand[nc++]);
    }
    if (rc < 0)
        return rc;
    return ls_retry_row_untold(end, p->cand, nc, p->resolution);
}

/* Is the current error's retry, which nothing matched, untold because a
 * retry on another pooled connection would not show in what was read
 * (decide/retry.h ls_retry_elsewhere_untold(); issue 34, samples/blind-zk)?
 * shows: the log shows the failed transaction (log_shows_failed()). No
 * trace of it was walked (by_trace() found no span). 1 untold, 0 none,
 * < 0 an error. */
static int elsewhere_untold(retry_pass *p, int shows)
{
    int asks = ls_retry_class_asks_retry(ls_stmt_text(p->errs, le_cls));
    int begun = !ls_stmt_isnull(p->errs, le_explicit) && ls_stmt_int64(p->errs, le_explicit) != 0;
    int rc, pooled = 0;

    if (asks && shows && !begun && !ls_stmt_isnull(p->errs, le_first_stmt)) {
        ls_stmt_reset(p->pooled);
        if ((rc = ls_stmt_bind_int64(p->pooled, LS_PARAM(po, session),
                                     ls_stmt_int64(p->errs, le_session_id))) != 0 ||
            (rc = ls_stmt_bind_int64(p->pooled, LS_PARAM(po, ts),
                                     ls_stmt_int64(p->errs, le_ts))) != 0 ||
            (rc = ls_stmt_bind_int64(p->pooled, LS_PARAM(po, first),
                                     ls_stmt_int64(p->errs, le_first_stmt))) != 0 ||
            (rc = ls_stmt_bind_int64(p->pooled, LS_PARAM(po, last),
                                     ls_stmt_int64(p->errs, le_last_stmt))) != 0 ||
            (rc = ls_stmt_bind_int64(p->pooled, LS_PARAM(po, text),
                                     ls_stmt_int64(p->errs, le_text_id))) != 0)
            return rc;
        while (!pooled && (rc = ls_stmt_step(p->pooled)) == 1)
            pooled = ls_sql_kind_of(ls_stmt_text(p->pooled, LS_ONLY_COLUMN)) == LS_SQL_WRITE;
        if (rc < 0)
            return rc;
    }
    return ls_retry_elsewhere_untold(asks, 0, shows, begun, pooled);
}

/* Is the current error's retry, which nothing matched, untold because
 * its session ended after it (decide/retry.h ls_retry_ended_untold();
 * issue 34, samples/blind-rb: ActiveRecord retries on a new backend)? 1
 * untold, 0 none, < 0 an error. */
static int ended_untold(retry_pass *p)
{
    int asks = ls_retry_class_asks_retry(ls_stmt_text(p->errs, le_cls));
    int searched = failed_end(p).ts != 0 && ls_buf_str(&p->params)[0] != '\0';
    int rc;

    if (!asks || searched)
        return 0;
    ls_stmt_reset(p->later);
    if ((rc = ls_stmt_bind_int64(p->later, LS_PARAM(la, session),
                                 ls_stmt_int64(p->errs, le_session_id))) != 0 ||
        (rc = ls_stmt_bind_int64(p->later, LS_PARAM(la, ts), ls_stmt_int64(p->errs, le_ts))) !=
            0 ||
        (rc = ls_stmt_bind_int64(p->later, LS_PARAM(la, file),
                                 ls_stmt_int64(p->errs, le_file_id))) != 0 ||
        (rc = ls_stmt_bind_int64(p->later, LS_PARAM(la, line), ls_stmt_int64(p->errs, le_line))) !=
            0 ||
        (rc = ls_stmt_bind_int64(p->later, LS_PARAM(la, resolution), p->resolution)) != 0 ||
        (rc = ls_stmt_step(p->later)) < 0)
        return rc;
    return ls_retry_ended_untold(asks, rc == 1 && ls_stmt_int64(p->later, LS_ONLY_COLUMN) != 0,
                                 searched);
}

/* The failed statement's span for the current error (claimed, with its
 * repeats), its trace into *trace: 1 found, 0 none, < 0 an error. Where
 * the log shows the failed transaction (shows), of its trace if linked. */
static int failed_span(retry_pass *p, int shows, ls_buf *trace, int64_t *span_row, int64_t *end_ts)
{
    const char *text = ls_stmt_text(p->errs, le_text);
    int rc;

    {
        const char *trace_id = !shows || ls_stmt_isnull(p->errs, le_trace_id)
                                   ? NULL
                                   : ls_stmt_text(p->errs, le_trace_id);
        ls_stmt_reset(p->fspan);
        if ((rc = ls_stmt_bind_text(p->fspan, LS_PARAM(sp, text), text)) != 0 ||
            (rc = ls_stmt_bind_int64(p->fspan, LS_PARAM(sp, ts), ls_stmt_int64(p->errs, le_ts))) !=
                0 ||
            (rc = ls_stmt_bind_int64(p->fspan, LS_PARAM(sp, offset), p->offset)) != 0 ||
            (rc = ls_stmt_bind_int64(p->fspan, LS_PARAM(sp, resolution), p->resolution)) != 0 ||
            (rc = ls_stmt_bind_int64(p->fspan, LS_PARAM(sp, slack), p->slack)) != 0 ||
            /* NULL binds NULL */
            (rc = ls_stmt_bind_text(p->fspan, LS_PARAM(sp, trace), trace_id)) != 0)
            return rc;
    }
    if ((rc = ls_stmt_step(p->fspan)) != 1)
        return rc;
    ls_buf_reset(trace);
    ls_buf_adds(trace, ls_stmt_text(p->fspan, fs_trace_id));
    if (ls_buf_failed(trace))
        return LS_ENOMEM;
    *span_row = ls_stmt_int64(p->fspan, fs_span_row);
    *end_ts = ls_stmt_int64(p->fspan, fs_end_ts);
    ls_stmt_reset(p->claim);
    if ((rc = ls_stmt_bind_text(p->claim, LS_PARAM(cl, trace), ls_buf_str(trace))) != 0 ||
        (rc = ls_stmt_bind_text(p->claim, LS_PARAM(cl, text), text)) != 0 ||
        (rc = ls_stmt_bind_int64(p->claim, LS_PARAM(cl, start),
                                 ls_stmt_int64(p->fspan, fs_start_ts))) != 0 ||
        (rc = ls_stmt_bind_int64(p->claim, LS_PARAM(cl, end), *end_ts)) != 0 ||
        (rc = ls_stmt_step(p->claim)) < 0)
        return rc;
    return 1;
}

/* The retry in the failed statement's trace: the trace's spans after the
 * one that failed, walked from whether that one was inside an explicit
 * transaction (the spans before it say). 1 decided (a retry stored or
 * none), 0 no span of the failed statement, < 0 an error. */
static int by_trace(retry_pass *p, int shows, ls_buf *trace, ls_correlate_stats *stats)
{
    int64_t failed_row = 0, failed_end = 0;
    size_t n = 0;
    int found_failed = 0, in_tx = 0, rc;
    ls_retry_found f;

    if ((rc = failed_span(p, shows, trace, &failed_row, &failed_end)) != 1)
        return rc;
    ls_stmt_reset(p->trace);
    if ((rc = ls_stmt_bind_text(p->trace, LS_PARAM(tp, trace), ls_buf_str(trace))) != 0)
        return rc;
    while ((rc = ls_stmt_step(p->trace)) == 1) {
        int64_t row = ls_stmt_int64(p->trace, tr_span_row);
        int64_t ts = ls_stmt_int64(p->trace, tr_start_ts);
        const char *text = ls_stmt_text(p->trace, tr_text);
        if (row == failed_row) {
            found_failed = 1;
            continue;
        }
        if (!found_failed) {
            /* the spans before it: was its transaction explicit and open? */
            in_tx = ls_retry_open_after(in_tx, step_kind(text));
            continue;
        }
        if (ts < failed_end || n >= RETRY_STEPS_MAX)
            continue; /* began before it failed (its ORM's span), or past the steps */
        if ((rc = make_step(p, &p->steps[n], text, NULL, ts + p->offset,
                            ls_stmt_int64(p->trace, tr_error) != 0)) != 0)
            return rc;
        p->ids[n++] = row;
    }
    if (rc < 0)
        return rc;
    if (!found_failed)
        return 0;
    f = ls_retry_walk(failed_end + p->offset, in_tx, p->steps, n);
    if (f.index >= 0 && (rc = store_retry(p, 0, p->ids[f.index], 0, f.outcome, stats)) < 0)
        return rc;
    return 1;
}

/* Fill temp.retry_gap_tx: the transactions begun in the gap (gap) after
 * the end of a failure noted (note_failed(): nfailed of them; none, no
 * scan). 0 or an error. */
LS_COLUMNS(gs, RETRY_GAP_TX_SCAN_COLS);

static int gap_transactions(ls_store *s, int64_t gap, size_t nfailed)
{
    ls_stmt *q = NULL, *ins = NULL;
    int64_t *ends;
    size_t n = 0;
    int rc;

    if (nfailed == 0)
        return 0;
    if (!(ends = malloc(nfailed * sizeof(*ends))))
        return LS_ENOMEM;
    /* the ends in order, then each transaction against them (retry_gap.h) */
    if ((rc = ls_store_prepare(s, RETRY_FAILED_ENDS_SQL, &q)) == 0) {
        while (n < nfailed && (rc = ls_stmt_step(q)) == 1)
            ends[n++] = ls_stmt_int64(q, LS_ONLY_COLUMN);
        ls_stmt_finalize(q);
        q = NULL;
    }
    if (rc >= 0 && n > 0 &&
        (rc = ls_store_prepare_params(s, gap_tx_sql, LS_PARAM_NAMES(GAP_TX_PARAMS), &ins)) == 0 &&
        (rc = ls_store_prepare(s, RETRY_GAP_TX_SCAN_SQL, &q)) == 0) {
        while ((rc = ls_stmt_step(q)) == 1) {
            int64_t start = ls_stmt_int64(q, gs_start_ts);
            if (!ls_retry_in_gap(ends, n, start, gap))
                continue;
            ls_stmt_reset(ins);
            if ((rc = ls_stmt_bind_int64(ins, LS_PARAM(gt, start), start)) != 0 ||
                (rc = ls_stmt_bind_int64(ins, LS_PARAM(gt, tx), ls_stmt_int64(q, gs_tx_id))) != 0 ||
                (rc = ls_stmt_step(ins)) < 0)
                break;
        }
    }
    ls_stmt_finalize(q);
    ls_stmt_finalize(ins);
    free(ends);
    return rc < 0 ? rc : 0;
}

/* The spans' clock offset onto the log's (span_clock), 0 when none. */
static int span_offset(ls_store *s, int64_t *out)
{
    ls_stmt *q = NULL;
    int rc = ls_store_prepare(s, "SELECT offset_us FROM span_clock LIMIT 1", &q);

    *out = 0;
    if (rc != 0)
        return rc;
    if ((rc = ls_stmt_step(q)) == 1 && !ls_stmt_isnull(q, LS_ONLY_COLUMN))
        *out = ls_stmt_int64(q, LS_ONLY_COLUMN);
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

/* Note the current error (the i-th) in p->tries: its session, text and
 * transaction, and its try: one more than the earlier timeout's on its
 * session whose retry by repeated parameters (by_session()) is a
 * statement of its transaction, within LS_RETRY_WINDOW_US before it. */
static void note_try(retry_pass *p, size_t i)
{
    err_try *t = &p->tries[i];
    size_t j;

    t->error_id = ls_stmt_int64(p->errs, le_error_id);
    t->session = ls_stmt_int64(p->errs, le_session_id);
    t->text_id = ls_stmt_int64(p->errs, le_text_id);
    t->ts = ls_stmt_int64(p->errs, le_ts);
    t->first_stmt =
        ls_stmt_isnull(p->errs, le_first_stmt) ? 0 : ls_stmt_int64(p->errs, le_first_stmt);
    t->last_stmt = ls_stmt_isnull(p->errs, le_last_stmt) ? 0 : ls_stmt_int64(p->errs, le_last_stmt);
    t->timeout = !p->asks;
    t->try_no = 1;
    for (j = i; j-- > 0 && t->ts - p->tries[j].ts <= LS_RETRY_WINDOW_US;) {
        const err_try *e = &p->tries[j];
        if (e->session != t->session || !e->timeout || e->text_id != t->text_id)
            continue;
        if (e->retry_stmt != 0 && t->first_stmt != 0 && e->retry_stmt >= t->first_stmt &&
            e->retry_stmt <= t->last_stmt)
            t->try_no = e->try_no + 1;
        break; /* the session's previous timeout of the text */
    }
}

/* The timeouts' retries told by repeated parameters, made untold where
 * the log shows the client giving up after as many tries of the text
 * (ls_retry_tries_untold()): the fewest tries of a run the session's
 * order told not retried. 0 or an error. */
static int tries_untold(retry_pass *p, ls_correlate_stats *stats)
{
    size_t i, j, nt = 0;
    int rc = 0;
    err_try *give_up = NULL; /* per text: text_id, and the fewest tries in try_no */

    for (i = 0; i < p->n_err; i++) {
        const err_try *e = &p->tries[i];
        if (!e->timeout || !e->walked_none)
            continue;
        if (!give_up && !(give_up = calloc(p->n_err, sizeof(*give_up))))
            return LS_ENOMEM;
        for (j = 0; j < nt && give_up[j].text_id != e->text_id; j++)
            ;
        if (j == nt) {
            give_up[nt].text_id = e->text_id;
            give_up[nt++].try_no = e->try_no;
        } else if (e->try_no < give_up[j].try_no) {
            give_up[j].try_no = e->try_no;
        }
    }
    for (i = 0; i < p->n_err && nt > 0; i++) {
        const err_try *t = &p->tries[i];
        if (!t->timeout || t->retry_stmt == 0)
            continue;
        for (j = 0; j < nt && give_up[j].text_id != t->text_id; j++)
            ;
        if (!ls_retry_tries_untold(t->try_no, j < nt ? give_up[j].try_no : 0))
            continue;
        ls_stmt_reset(p->untell);
        if ((rc = ls_stmt_bind_int64(p->untell, LS_PARAM(ut, error), t->error_id)) != 0 ||
            (rc = ls_stmt_step(p->untell)) < 0)
            break;
        rc = 0;
        if (stats->retries > 0)
            stats->retries--;
    }
    free(give_up);
    return rc;
}

static void retry_pass_free(retry_pass *p)
{
    size_t i;
    ls_buf_free(&p->want);
    ls_buf_free(&p->got);
    ls_buf_free(&p->params);
    ls_buf_free(&p->lead_text);
    ls_buf_free(&p->lead_params);
    for (i = 0; i < p->n_err; i++)
        free(p->err_params[i]);
    free(p->err_params);
    free(p->tries);
    ls_stmt_finalize(p->untell);
    for (i = 0; i < SHAPE_CACHE_SLOTS; i++) {
        free(p->shapes[i].text);
        free(p->shapes[i].shape);
    }
    ls_stmt_finalize(p->errs);
    ls_stmt_finalize(p->txs);
    ls_stmt_finalize(p->after);
    ls_stmt_finalize(p->txq);
    ls_stmt_finalize(p->fspan);
    ls_stmt_finalize(p->claim);
    ls_stmt_finalize(p->trace);
    ls_stmt_finalize(p->upd);
    ls_stmt_finalize(p->fparams);
    ls_stmt_finalize(p->failed_ins);
    ls_stmt_finalize(p->rivals);
    ls_stmt_finalize(p->cands);
    ls_stmt_finalize(p->claim_tx);
    ls_stmt_finalize(p->row_cands);
    ls_stmt_finalize(p->shared);
    ls_stmt_finalize(p->set_before);
    ls_stmt_finalize(p->lead);
    ls_stmt_finalize(p->later);
    ls_stmt_finalize(p->pooled);
    ls_stmt_finalize(p->text_q);
    ls_text_cache_free(&p->texts);
}

/*
 * Per error: the stream after it (one index range of its session's
 * statements, or one trace's spans) walked by ls_retry_walk(), and one
 * index probe for the retry's transaction, so the pass is O(errors log n);
 * where a failure may be matched by its parameters, one scan of the
 * transactions besides (gap_transactions()).
 */
int ls_correlate_retries(ls_store *s, ls_correlate_stats *stats)
{
    retry_pass *p = calloc(1, sizeof(*p));
    ls_buf trace = LS_BUF_INIT(0);
    size_t i;
    int rc, shows;

    if (!p)
        return LS_ENOMEM;
    ls_buf_init(&p->want, 0);
    ls_buf_init(&p->got, 0);
    ls_buf_init(&p->params, 0);
    ls_buf_init(&p->lead_text, 0);
    ls_buf_init(&p->lead_params, 0);
    if ((rc = ls_store_exec_sorting(s, "CREATE INDEX IF NOT EXISTS transactions_session_stmt"
                                       " ON transactions(session_id, first_stmt)")) != 0 ||
        (rc = ls_store_exec(
             s, "CREATE TEMP TABLE IF NOT EXISTS retry_claimed"
                "(span_row INTEGER PRIMARY KEY); DELETE FROM temp.retry_claimed;")) != 0 ||
        (rc = ls_correlate_log_resolution(s, &p->resolution)) != 0 ||
        (rc = span_offset(s, &p->offset)) != 0 ||
        (rc = ls_store_prepare(s, lock_errors_sql, &p->errs)) != 0 ||
        (rc = ls_store_prepare_params(s, tx_stmts_sql, LS_PARAM_NAMES(TX_STMTS_PARAMS), &p->txs)) !=
            0 ||
        (rc = ls_store_prepare_params(s, after_sql, LS_PARAM_NAMES(AFTER_PARAMS), &p->after)) !=
            0 ||
        (rc = ls_store_prepare_params(s, retry_tx_sql, LS_PARAM_NAMES(RETRY_TX_PARAMS), &p->txq)) !=
            0 ||
        (rc = ls_store_prepare_params(s, failed_span_sql, LS_PARAM_NAMES(FAILED_SPAN_PARAMS),
                                      &p->fspan)) != 0 ||
        (rc = ls_store_prepare_params(s, claim_sql, LS_PARAM_NAMES(CLAIM_PARAMS), &p->claim)) !=
            0 ||
        (rc = ls_store_prepare_params(s, trace_sql, LS_PARAM_NAMES(TRACE_PARAMS), &p->trace)) !=
            0 ||
        (rc = ls_store_prepare(s, set_retry_sql, &p->upd)) != 0 ||
        (rc = ls_store_prepare_params(s, untell_sql, LS_PARAM_NAMES(UNTELL_PARAMS), &p->untell)) !=
            0 ||
        (rc = ls_store_prepare_params(s, failed_params_sql, LS_PARAM_NAMES(FAILED_PARAMS_PARAMS),
                                      &p->fparams)) != 0 ||
        (rc = ls_store_exec(s, param_tables_sql)) != 0 ||
        (rc = ls_store_prepare_params(s, failed_ins_sql, LS_PARAM_NAMES(FAILED_INS_PARAMS),
                                      &p->failed_ins)) != 0 ||
        (rc = ls_store_prepare_params(s, rivals_sql, LS_PARAM_NAMES(RIVAL_PARAMS), &p->rivals)) !=
            0 ||
        (rc = ls_store_prepare_params(s, param_cands_sql, LS_PARAM_NAMES(CAND_PARAMS),
                                      &p->cands)) != 0 ||
        (rc = ls_store_prepare_params(s, claim_tx_sql, LS_PARAM_NAMES(CLAIM_TX_PARAMS),
                                      &p->claim_tx)) != 0 ||
        (rc = ls_store_prepare_params(s, row_cands_sql, LS_PARAM_NAMES(ROW_CAND_PARAMS),
                                      &p->row_cands)) != 0 ||
        (rc = ls_store_prepare_params(s, shared_sql, LS_PARAM_NAMES(SHARED_PARAMS), &p->shared)) !=
            0 ||
        (rc = ls_store_prepare_params(s, set_before_sql, LS_PARAM_NAMES(SET_BEFORE_PARAMS),
                                      &p->set_before)) != 0 ||
        (rc = ls_store_prepare_params(s, lead_sql, LS_PARAM_NAMES(LEAD_PARAMS), &p->lead)) != 0 ||
        (rc = ls_store_prepare_params(s, later_sql, LS_PARAM_NAMES(AFTER_PARAMS), &p->later)) !=
            0 ||
        (rc = ls_store_prepare_params(s, pooled_sql, LS_PARAM_NAMES(POOLED_PARAMS), &p->pooled)) !=
            0 ||
        (rc = ls_store_prepare_params(s, text_sql, LS_PARAM_NAMES(TEXT_PARAMS), &p->text_q)) != 0)
        goto out;
    p->slack = LS_REQUEST_SLACK_US;
    if (p->resolution >= LS_WHOLE_SECOND_US)
        p->slack += p->resolution;
    p->gap = ls_retry_param_gap(p->resolution);
    /* first every failure's parameters and end: by_params() sees the
     * failures of the same parameters on either side of each, and the
     * transactions begun in their gaps */
    while ((rc = ls_stmt_step(p->errs)) == 1)
        if ((rc = read_failed(p)) != 0 || (rc = note_failed(p)) != 0)
            goto out;
    if (rc < 0 || (rc = gap_transactions(s, p->gap, p->n_failed)) != 0)
        goto out;
    if (p->n_err && !(p->tries = calloc(p->n_err, sizeof(*p->tries)))) {
        rc = LS_ENOMEM;
        goto out;
    }
    ls_stmt_reset(p->errs);
    for (i = 0; i < p->n_err && (rc = ls_stmt_step(p->errs)) == 1; i++) {
        ls_buf_reset(&p->want);
        ls_buf_reset(&p->lead_text); /* by_session() reads them */
        ls_buf_reset(&p->lead_params);
        ls_sql_shape(&p->want, ls_stmt_text(p->errs, le_text), RETRY_SHAPE_BYTES);
        if ((rc = failed_row_at(p, i)) != 0)
            goto out;
        p->cur = i;
        note_try(p, i);
        if (ls_buf_failed(&p->want)) {
            rc = LS_ENOMEM;
            goto out;
        }
        /* the request's trace first: a client pool's retry may run on
         * another backend; else the session, where the log shows the
         * failed transaction (whose trace, then, is the request's) */
        if ((shows = log_shows_failed(p)) < 0 || (rc = by_trace(p, shows, &trace, stats)) < 0) {
            rc = shows < 0 ? shows : rc;
            goto out;
        }
        if (rc == 0 && shows) {
            /* the session's log order, else the parameters on any
             * connection; untold where neither tells */
            if ((rc = by_session(p, stats)) < 0)
                goto out;
            if (rc != 1) {
                int untold = rc == 2, found, ended = 0, elsewhere = 0;
                if ((rc = found = by_params(p, stats)) < 0)
                    goto out;
                /* the own session says none: another may run it again */
                if (found == 0 && !untold && (rc = untold = row_untold(p)) < 0)
                    goto out;
                /* the session ended after it: not on this connection */
                if (found == 0 && !untold && (rc = ended = ended_untold(p)) < 0)
                    goto out;
                /* a pooled connection: the retry may be on another */
                if (found == 0 && !untold && !ended && (rc = elsewhere = elsewhere_untold(p, 1)) < 0)
                    goto out;
                p->tries[i].walked_none = found == 0 && !untold && !ended && !elsewhere;
                if (found == 0 && (untold || ended || elsewhere) &&
                    (rc = store_retry(p, 0, 0, 0,
                                      untold  ? LS_RETRY_OUTCOME_UNTOLD
                                      : ended ? LS_RETRY_OUTCOME_UNTOLD_ENDED
                                              : LS_RETRY_OUTCOME_UNTOLD_ELSEWHERE,
                                      stats)) < 0)
                    goto out;
            }
        } else if (rc == 0) {
            /* the log does not show the failed transaction (a threshold
             * log, log_statement = 'mod'): untold where the session ended
             * after it, else where the class asks for a retry: nothing
             * of the request was walked */
            int untold, elsewhere = 0;
            if ((rc = untold = ended_untold(p)) < 0)
                goto out;
            if (!untold && (rc = elsewhere = elsewhere_untold(p, 0)) < 0)
                goto out;
            if ((untold || elsewhere) &&
                (rc = store_retry(p, 0, 0, 0,
                                  untold ? LS_RETRY_OUTCOME_UNTOLD_ENDED
                                         : LS_RETRY_OUTCOME_UNTOLD_ELSEWHERE,
                                  stats)) < 0)
                goto out;
        }
    }
    if (rc >= 0)
        rc = tries_untold(p, stats);
out:
    if (ls_buf_failed(&trace))
        rc = LS_ENOMEM;
    ls_buf_free(&trace);
    retry_pass_free(p);
    free(p);
    return rc < 0 ? rc : 0;
}
