/*
 * txspans.c — a logged statement's transaction rebuilt from its
 * request's trace (issue 34, blind-pool; decide/spantx.h argues for it).
 *
 * Behind pgbouncer with log_statement = 'none' and
 * log_min_duration_statement the log has a statement that ran over the
 * threshold (or waited for a lock) and nothing of its transaction: no
 * BEGIN, no COMMIT. The transactions pass reads it as a transaction of
 * one statement, and a row it locked as held to its own end (0 ms). Its
 * request's trace has the transaction: the BEGIN span before the
 * statement's span and the COMMIT or ROLLBACK span after it, to the
 * microsecond on the database clock once the offset is measured. Run by
 * the transactions pass after it stored the transactions and their holds
 * and before it links waits to them: such a transaction ends at its
 * request's COMMIT (ROLLBACK) span, and so do its holds, whose end
 * evidence says so. Only on unique evidence: the one database span of
 * the statement's text (not an ORM's span of a driver span) that ended
 * with it, inside a BEGIN and a COMMIT of its request, with no other
 * statement the session logged in that time but the transaction's own.
 * Only on logs with sub-second times, as the deadlock victims'
 * (spans.c write_victims).
 *
 * Then, where that found some (the log hides transactions), a request
 * whose transaction the store has no statement of at all is one of its
 * own from its spans alone (spans_only(): no session, no pid; its holds'
 * evidence begins "spans only").
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corr_tables.h"
#include "correlate_int.h"
#include "decide/spantime.h"
#include "decide/spantx.h"
#include "decide/tolerances.h"
#include "ls_columns.h"
#include "ls_params.h"

#define TX_SPANS_MAX 64          /* database spans of a request read */
#define TX_QUEUE_MAX_US 60000000 /* a span's start before its statement's (pooler queue) */
/* A span's end after its statement's: the reply through the pooler and
 * the application's event loop (blind-pool: up to 51 ms after a
 * statement that waited for a lock; 16 of events id=1's 92 logged
 * statements were more than 5 ms). A wider window finds more spans, and
 * the span must still be the one there. */
#define TX_END_SLACK_US (60 * 1000)
#define TX_SPAN_SLACK_US LS_SPAN_LOG_SLACK_US
/* On whole seconds the offset is measured less well (blind-pool's %t log:
 * -15.3 ms, truth +0.08 ms): the windows' slack. */
#define TX_WHOLE_SLACK_US (50 * 1000)

/* The offset the statements-from-spans pass measured (none: no row). */
static const char offset_sql[] = "SELECT offset_us FROM span_clock WHERE votes > 0 LIMIT 1";

/* Transactions of one logged statement that the log began and ended
 * with it (no BEGIN logged), with that statement. */
#define ALONE_COLS(X, Q)                     \
    X(Q, tx_id, "t.tx_id")                   \
    X(Q, stmt_id, "t.first_stmt")            \
    X(Q, session_id, "t.session_id")         \
    X(Q, start_ts, "st.start_ts")            \
    X(Q, end_ts, "st.start_ts + coalesce(st.dur_us, 0)") \
    X(Q, dur_us, "st.dur_us")                \
    X(Q, text, "x.text")                     \
    X(Q, text_id, "st.text_id")
LS_COLUMNS(al, ALONE_COLS);
static const char alone_sql[] =
    "SELECT " LS_SELECT_LIST(al, ALONE_COLS) " FROM transactions t"
    " JOIN stmt_rows st ON st.stmt_id = t.first_stmt"
    " JOIN stmt_texts x ON x.text_id = st.text_id"
    " WHERE t.explicit = 0 AND t.first_stmt = t.last_stmt"
    " AND st.verb IS NOT 5" /* LS_VERB_SPAN */
    " AND st.start_ts IS NOT NULL ORDER BY t.tx_id";

/* The database spans of that text (:text) that may have sent it: started
 * at most TX_QUEUE_MAX_US before it (:start_lo..:start_hi), ended with it
 * (:end_lo..:end_hi) and lasted :dur_lo..:dur_hi, on the application's
 * clock; not an ORM's span of a driver span. */
#define SENT_COLS(X, Q)               \
    X(Q, span_row, "sp.span_row")     \
    X(Q, trace_id, "sp.trace_id")     \
    X(Q, error, "coalesce(sp.error, 0)")
LS_COLUMNS(sn, SENT_COLS);
static const char sent_sql[] =
    "SELECT " LS_SELECT_LIST(sn, SENT_COLS) " FROM spans sp"
    " WHERE sp.db_statement = :text AND sp.start_ts BETWEEN :start_lo AND :start_hi"
    " AND sp.end_ts BETWEEN :end_lo AND :end_hi"
    " AND sp.end_ts - sp.start_ts BETWEEN :dur_lo AND :dur_hi AND sp.trace_id IS NOT NULL"
    " AND NOT EXISTS (SELECT 1 FROM span_placement p WHERE p.span_row = sp.span_row"
    "  AND p.how = '" LS_HOW_ORM_SPAN "') ORDER BY sp.end_ts, sp.span_row"
    " LIMIT " LS_SQL_INT(TX_SPANS_MAX);
#define SENT_PARAMS(X, Q)                                                                     \
    X(Q, text) X(Q, start_lo) X(Q, start_hi) X(Q, end_lo) X(Q, end_hi) X(Q, dur_lo) X(Q, dur_hi)
LS_PARAMS(snp, SENT_PARAMS);

/*
 * On a whole-second log, the statements of one text stamped in one second,
 * in the log's order (file, line), each with its rank: read once
 * (txspan_rank), then a group at a time (:text its text_id, :stamp).
 */
static const char rank_table_sql[] =
    "CREATE TEMP TABLE IF NOT EXISTS txspan_rank(stmt_id INTEGER PRIMARY KEY, text_id INTEGER,"
    " stamp INTEGER, rank INTEGER, dur_us INTEGER); DELETE FROM temp.txspan_rank;"
    "INSERT INTO temp.txspan_rank(stmt_id, text_id, stamp, rank, dur_us)"
    " SELECT stmt_id, text_id, start_ts + dur_us, row_number() OVER (PARTITION BY text_id,"
    "  start_ts + dur_us ORDER BY file_id, line, stmt_id) - 1, dur_us FROM stmt_rows"
    " WHERE verb IS NOT 5 AND dur_us IS NOT NULL AND start_ts IS NOT NULL;"
    "CREATE INDEX IF NOT EXISTS temp.txspan_rank_group ON txspan_rank(text_id, stamp, rank);";
#define GROUP_COLS(X, Q)              \
    X(Q, stmt_id, "r.stmt_id")        \
    X(Q, dur_us, "r.dur_us")
LS_COLUMNS(gr, GROUP_COLS);
static const char group_sql[] =
    "SELECT " LS_SELECT_LIST(gr, GROUP_COLS) " FROM temp.txspan_rank r"
    " WHERE r.text_id = :text AND r.stamp = :stamp ORDER BY r.rank LIMIT " LS_SQL_INT(TX_SPANS_MAX);
#define GROUP_PARAMS(X, Q) X(Q, text) X(Q, stamp)
LS_PARAMS(grp, GROUP_PARAMS);
/* The spans of that text (:text) that ended in the second (:end_lo..:hi)
 * and began from :start_lo, by end. */
#define SAME_COLS(X, Q)                       \
    X(Q, span_row, "sp.span_row")             \
    X(Q, trace_id, "sp.trace_id")             \
    X(Q, dur_us, "sp.end_ts - sp.start_ts")   \
    X(Q, error, "coalesce(sp.error, 0)")
LS_COLUMNS(sm, SAME_COLS);
static const char same_sql[] =
    "SELECT " LS_SELECT_LIST(sm, SAME_COLS) " FROM spans sp"
    " WHERE sp.db_statement = :text AND sp.start_ts BETWEEN :start_lo AND :hi"
    " AND sp.end_ts BETWEEN :end_lo AND :hi"
    " AND sp.trace_id IS NOT NULL"
    " AND NOT EXISTS (SELECT 1 FROM span_placement p WHERE p.span_row = sp.span_row"
    "  AND p.how = '" LS_HOW_ORM_SPAN "') ORDER BY sp.end_ts, sp.span_row"
    " LIMIT " LS_SQL_INT(TX_SPANS_MAX);
#define SAME_PARAMS(X, Q) X(Q, text) X(Q, start_lo) X(Q, hi) X(Q, end_lo)
LS_PARAMS(smp, SAME_PARAMS);

/* Request :trace's database spans (not an ORM's), by start, on the
 * database clock (:offset). */
#define REQ_COLS(X, Q)                      \
    X(Q, span_row, "sp.span_row")           \
    X(Q, start_ts, "sp.start_ts + :offset") \
    X(Q, end_ts, "sp.end_ts + :offset")     \
    X(Q, text, "sp.db_statement")           \
    X(Q, error, "coalesce(sp.error, 0)")
LS_COLUMNS(rq, REQ_COLS);
static const char req_sql[] =
    "SELECT " LS_SELECT_LIST(rq, REQ_COLS) " FROM spans sp"
    " WHERE sp.trace_id = :trace AND sp.db_statement IS NOT NULL AND sp.start_ts IS NOT NULL"
    " AND sp.end_ts IS NOT NULL AND NOT EXISTS (SELECT 1 FROM span_placement p"
    "  WHERE p.span_row = sp.span_row AND p.how = '" LS_HOW_ORM_SPAN "')"
    " ORDER BY sp.start_ts, sp.span_row LIMIT " LS_SQL_INT(TX_SPANS_MAX);
#define REQ_PARAMS(X, Q) X(Q, offset) X(Q, trace)
LS_PARAMS(rqp, REQ_PARAMS);

/* The session's (:session) logged statements that overlap :lo..:hi. */
#define LOGGED_COLS(X, Q)                                   \
    X(Q, start_ts, "st.start_ts")                           \
    X(Q, end_ts, "st.start_ts + coalesce(st.dur_us, 0)")    \
    X(Q, text, "x.text")
LS_COLUMNS(lg, LOGGED_COLS);
static const char logged_sql[] =
    "SELECT " LS_SELECT_LIST(lg, LOGGED_COLS) " FROM stmt_rows st"
    " JOIN stmt_texts x ON x.text_id = st.text_id"
    " WHERE st.session_id = :session AND st.start_ts BETWEEN :lo - " LS_SQL_INT(TX_QUEUE_MAX_US)
    " AND :hi AND st.start_ts + coalesce(st.dur_us, 0) > :lo AND st.verb IS NOT 5"
    " LIMIT " LS_SQL_INT(TX_SPANS_MAX);
#define LOGGED_PARAMS(X, Q) X(Q, session) X(Q, lo) X(Q, hi)
LS_PARAMS(lgp, LOGGED_PARAMS);

static const char tx_update_sql[] =
    "UPDATE transactions SET start_ts = min(start_ts, :start), start_known = :start_known,"
    " end_ts = :end, end_known = :end_known, outcome = :outcome WHERE tx_id = :tx";
#define TX_UPDATE_PARAMS(X, Q)                                                                \
    X(Q, start) X(Q, start_known) X(Q, end) X(Q, end_known) X(Q, outcome) X(Q, tx)
LS_PARAMS(txu, TX_UPDATE_PARAMS);
static const char hold_update_sql[] = "UPDATE hold_rows SET end_ts = :end, end_lo = nullif(:end_lo,"
                                      " :end), end_hi = NULL, end_evidence = :evidence"
                                      " WHERE tx_id = :tx";
#define HOLD_UPDATE_PARAMS(X, Q) X(Q, end) X(Q, end_lo) X(Q, evidence) X(Q, tx)
LS_PARAMS(hup, HOLD_UPDATE_PARAMS);

/* Each transaction rebuilt, with its request's BEGIN span. */
static const char note_table_sql[] =
    "CREATE TEMP TABLE IF NOT EXISTS txspan_tx(tx_id INTEGER PRIMARY KEY, session_id INTEGER,"
    " begin_row INTEGER); DELETE FROM temp.txspan_tx;"
    "CREATE INDEX IF NOT EXISTS temp.txspan_tx_begin ON txspan_tx(begin_row, session_id);";
/* The lookups of a rebuilt transaction's holds (hold_update_sql), of a
 * session's transactions (siblings_sql) and of the merged ones by the
 * transaction kept (merge_sql): a log whose every statement lacks its
 * duration has one rebuild a statement (samples/blind-zk: 1687; the pass
 * 51.6 M VM steps without these indexes, 7.2 M with them, 0.96 M on
 * 014e695 that rebuilt none). The first two
 * are the links' own indexes (transactions.c link_index_sql), made here
 * first. */
static const char rebuild_index_sql[] =
    "CREATE INDEX IF NOT EXISTS holds_tx_row ON hold_rows" LS_HOLDS_TX_KEY ";"
    "CREATE INDEX IF NOT EXISTS transactions_session_stmt ON transactions(session_id, first_stmt);";
/* The rows a rebuilt transaction's statements the log does not have
 * locked, from their spans: each its span's start and end (the lock was
 * taken within it), and the transaction's end. */
static const char locks_table_sql[] =
    "CREATE TEMP TABLE IF NOT EXISTS txspan_locks(tx_id INTEGER, row_id INTEGER, start_ts INTEGER,"
    " start_lo INTEGER, end_ts INTEGER, end_lo INTEGER); DELETE FROM temp.txspan_locks;";
static const char lock_add_sql[] =
    "INSERT INTO temp.txspan_locks(tx_id, row_id, start_ts, start_lo, end_ts, end_lo)"
    " VALUES (:tx, :row, :start, :start_lo, :end, :end_lo)";
#define LOCK_ADD_PARAMS(X, Q) X(Q, tx) X(Q, row) X(Q, start) X(Q, start_lo) X(Q, end) X(Q, end_lo)
LS_PARAMS(lap, LOCK_ADD_PARAMS);
static const char note_sql[] = "INSERT OR REPLACE INTO temp.txspan_tx(tx_id, session_id, begin_row)"
                               " VALUES (:tx, :session, :begin_row)";
#define NOTE_PARAMS(X, Q) X(Q, tx) X(Q, session) X(Q, begin_row)
LS_PARAMS(ntp, NOTE_PARAMS);

/*
 * Statements the session logged of one transaction (a booking's UPDATE
 * that waited and its INSERT that ran over the threshold) were each a
 * transaction of one statement; rebuilt, they share their request's
 * BEGIN span: one transaction, the first, from its first statement to
 * the last (a transaction's statements are its session's in its stmt_id
 * range; ls_span_tx_fits() let no other statement of the session run
 * in it), its SQL time theirs. A row both locked is held from the first
 * hold (the other's dropped); the others' holds move to it.
 */
static const char merge_sql[] =
    "CREATE TEMP TABLE IF NOT EXISTS txspan_merge(tx_id INTEGER PRIMARY KEY, keep INTEGER);"
    "DELETE FROM temp.txspan_merge;"
    "CREATE INDEX IF NOT EXISTS temp.txspan_merge_keep ON txspan_merge(keep);"
    "INSERT INTO temp.txspan_merge(tx_id, keep)"
    " SELECT x.tx_id, (SELECT y.tx_id FROM temp.txspan_tx y JOIN transactions ty"
    "  ON ty.tx_id = y.tx_id WHERE y.session_id = x.session_id AND y.begin_row = x.begin_row"
    "  ORDER BY ty.first_stmt, y.tx_id LIMIT 1) FROM temp.txspan_tx x;"
    "DELETE FROM temp.txspan_merge WHERE tx_id = keep;"
    "UPDATE transactions SET"
    " last_stmt = max(last_stmt, (SELECT max(t.last_stmt) FROM temp.txspan_merge m"
    "  JOIN transactions t ON t.tx_id = m.tx_id WHERE m.keep = transactions.tx_id)),"
    " statements = statements + (SELECT sum(t.statements) FROM temp.txspan_merge m"
    "  JOIN transactions t ON t.tx_id = m.tx_id WHERE m.keep = transactions.tx_id),"
    " sql_ms = sql_ms + (SELECT sum(t.sql_ms) FROM temp.txspan_merge m"
    "  JOIN transactions t ON t.tx_id = m.tx_id WHERE m.keep = transactions.tx_id)"
    " WHERE tx_id IN (SELECT keep FROM temp.txspan_merge);"
    "DELETE FROM hold_rows WHERE tx_id IN (SELECT tx_id FROM temp.txspan_merge)"
    " AND row_id IN (SELECT k.row_id FROM hold_rows k JOIN temp.txspan_merge m"
    "  ON k.tx_id = m.keep WHERE m.tx_id = hold_rows.tx_id);"
    "UPDATE hold_rows SET tx_id = (SELECT m.keep FROM temp.txspan_merge m"
    "  WHERE m.tx_id = hold_rows.tx_id) WHERE tx_id IN (SELECT tx_id FROM temp.txspan_merge);"
    "DELETE FROM transactions WHERE tx_id IN (SELECT tx_id FROM temp.txspan_merge);";
static const char clear_sql[] =
    "DELETE FROM temp.txspan_merge; DELETE FROM temp.txspan_tx; DELETE FROM temp.txspan_locks;";

/*
 * The holds of the rows the rebuilt transactions' unlogged statements
 * locked (txspan_locks, their transactions as merged; the transaction,
 * kept by merge_sql, is still found by txspan_merge): a row the
 * transaction holds already is held from then. :evidence the start's
 * evidence.
 */
static const char span_holds_sql[] =
    "INSERT INTO hold_rows(row_id, tx_id, session_id, pid, start_ts, start_lo, start_hi,"
    " start_evidence, end_ts, end_lo, end_hi, end_evidence, lock_stmt, waits, waiter_ms)"
    " SELECT l.row_id, l.keep, t.session_id, t.pid, min(l.start_ts), nullif(min(l.start_lo),"
    "  min(l.start_ts)), NULL, :evidence, max(l.end_ts), nullif(max(l.end_lo), max(l.end_ts)),"
    "  NULL,"
    "  " LS_HOLD_EVIDENCE_ID("t.end_known") ", NULL, 0, 0"
    " FROM (SELECT x.*, coalesce((SELECT m.keep FROM temp.txspan_merge m WHERE m.tx_id = x.tx_id),"
    "  x.tx_id) AS keep FROM temp.txspan_locks x) l JOIN transactions t ON t.tx_id = l.keep"
    " WHERE NOT EXISTS (SELECT 1 FROM hold_rows h WHERE h.tx_id = l.keep AND h.row_id = l.row_id)"
    " GROUP BY l.keep, l.row_id";
#define SPAN_HOLDS_PARAMS(X, Q) X(Q, evidence)
LS_PARAMS(shp, SPAN_HOLDS_PARAMS);
/* And a row the transaction holds already from a logged statement that
 * ran after such a span (blind-zk: the logged UPDATE after the SELECT ...
 * FOR UPDATE only the spans show) is held from the span's end: the row
 * was locked then. */
static const char span_holds_earlier_sql[] =
    "UPDATE hold_rows SET start_ts = l.start_ts, start_lo = nullif(l.start_lo, l.start_ts),"
    " start_hi = NULL, start_evidence = :evidence"
    " FROM (SELECT coalesce((SELECT m.keep FROM temp.txspan_merge m WHERE m.tx_id = x.tx_id),"
    "  x.tx_id) AS keep, x.row_id, min(x.start_ts) AS start_ts, min(x.start_lo) AS start_lo"
    "  FROM temp.txspan_locks x GROUP BY 1, 2) l"
    " WHERE hold_rows.tx_id = l.keep AND hold_rows.row_id = l.row_id"
    " AND hold_rows.start_ts > l.start_ts";

/* On whole seconds the locking statement's end is its stamp, up to a
 * second early: a hold (of transaction :tx, statement :stmt, its start's
 * evidence :was) that began there begins at the end of its span (:start,
 * evidence :evidence), its statement at the span's start (:start_lo;
 * ls_span_hold_start()). */
static const char hold_start_sql[] =
    "UPDATE hold_rows SET start_ts = :start, start_lo = nullif(:start_lo, :start),"
    " start_hi = NULL, start_evidence = :evidence"
    " WHERE tx_id = :tx AND lock_stmt = :stmt AND start_evidence = :was AND start_ts <= :start";
#define HOLD_START_PARAMS(X, Q)                                                               \
    X(Q, start) X(Q, start_lo) X(Q, evidence) X(Q, tx) X(Q, stmt) X(Q, was)
LS_PARAMS(hsp, HOLD_START_PARAMS);

/* The session's (:session) other transactions (not :tx) of one logged
 * statement that ran between :lo and :hi at any of its possible times (up
 * to :res, the log's resolution, later than logged). */
#define SIBLING_COLS(X, Q)             \
    X(Q, tx_id, "t.tx_id")             \
    X(Q, stmt_id, "t.first_stmt")      \
    X(Q, text, "x.text")
LS_COLUMNS(sb, SIBLING_COLS);
static const char siblings_sql[] =
    "SELECT " LS_SELECT_LIST(sb, SIBLING_COLS) " FROM transactions t"
    " JOIN stmt_rows st ON st.stmt_id = t.first_stmt JOIN stmt_texts x ON x.text_id = st.text_id"
    " WHERE t.session_id = :session AND st.session_id = :session AND t.tx_id <> :tx"
    " AND t.explicit = 0 AND t.first_stmt = t.last_stmt AND st.verb IS NOT 5"
    " AND st.start_ts BETWEEN :lo AND :hi"
    " AND st.start_ts + coalesce(st.dur_us, 0) + :res <= :hi"
    /* not one already rebuilt from another request's spans: a statement
     * logged at its start (no duration) in the millisecond its request's
     * COMMIT and the next request's BEGIN share (a pooled connection,
     * blind-zk) lies in both windows; its own span said whose it is */
    " AND NOT EXISTS (SELECT 1 FROM temp.txspan_tx n WHERE n.tx_id = t.tx_id"
    "  AND n.begin_row <> :begin_row)";
#define SIBLINGS_PARAMS(X, Q) X(Q, session) X(Q, tx) X(Q, lo) X(Q, hi) X(Q, res) X(Q, begin_row)
LS_PARAMS(sbp, SIBLINGS_PARAMS);

/*
 * Transactions of requests the log has no statement of (spans_only()):
 * every statement the store has (logged, or added from a span), by start,
 * and the requests with database spans.
 */
#define ALL_COLS(X, Q)                                      \
    X(Q, start_ts, "st.start_ts")                           \
    X(Q, end_ts, "st.start_ts + coalesce(st.dur_us, 0)")    \
    X(Q, text, "x.text")
LS_COLUMNS(all, ALL_COLS);
static const char all_stmts_sql[] =
    "SELECT " LS_SELECT_LIST(all, ALL_COLS) " FROM stmt_rows st"
    " JOIN stmt_texts x ON x.text_id = st.text_id WHERE st.start_ts IS NOT NULL"
    " ORDER BY st.start_ts";
/* The requests by their first database span (app clock), so that the
 * statements before a request's window can be let go (only_window()). */
#define TRACE_COLS(X, Q)          \
    X(Q, trace_id, "trace_id")    \
    X(Q, first_ts, "min(start_ts)")
LS_COLUMNS(tr, TRACE_COLS);
static const char traces_sql[] =
    "SELECT " LS_SELECT_LIST(tr, TRACE_COLS) " FROM spans WHERE db_statement IS NOT NULL"
    " AND trace_id IS NOT NULL AND start_ts IS NOT NULL GROUP BY trace_id ORDER BY 2, 1";
/* Whether a transaction rebuilt from a logged statement has BEGIN span :begin_row. */
static const char rebuilt_begin_sql[] =
    "SELECT 1 FROM temp.txspan_tx WHERE begin_row = :begin_row LIMIT 1";
#define REBUILT_BEGIN_PARAMS(X, Q) X(Q, begin_row)
LS_PARAMS(rbp, REBUILT_BEGIN_PARAMS);
/* A transaction of spans only: no session, no pid (the pooler hid the
 * backend), no statement of the log. */
static const char only_tx_sql[] = LS_INSERT_INTO("INSERT", transactions) " RETURNING tx_id";
LS_TABLE_COLUMNS(transactions);
#define OT(col) LS_PARAM(transactions, col)
static const char only_hold_sql[] = LS_INSERT_INTO("INSERT", hold_rows);
LS_TABLE_COLUMNS(hold_rows);
#define OH(col) LS_PARAM(hold_rows, col)
/* Each, with its first statement's span: its trace's link (traces.c). */
static const char only_table_sql[] =
    "CREATE TEMP TABLE IF NOT EXISTS txspan_only(tx_id INTEGER PRIMARY KEY, span_row INTEGER);"
    " DELETE FROM temp.txspan_only;";
static const char only_note_sql[] =
    "INSERT INTO temp.txspan_only(tx_id, span_row) VALUES (:tx, :span_row)";
#define ONLY_NOTE_PARAMS(X, Q) X(Q, tx) X(Q, span_row)
LS_PARAMS(onp, ONLY_NOTE_PARAMS);

#define ONLY_START LS_SPAN_ONLY_START
#define ONLY_COMMIT "spans only: COMMIT span of its request (no statement of its transaction logged)"
#define ONLY_ROLLBACK                                                                          \
    "spans only: ROLLBACK span of its request (no statement of its transaction logged)"

#define BEGIN_KNOWN "BEGIN span of its request (not logged)"
#define COMMIT_KNOWN "COMMIT span of its request (not logged)"
#define ROLLBACK_KNOWN "ROLLBACK span of its request (not logged)"
#define LOCKING_END "end of the locking statement"
#define SPAN_LOCK_START LS_SPAN_LOCK_START
#define LOCKING_SPAN_END LS_SPAN_LOGGED_START

/* The hot rows a span's text locks. */
#define TX_SPAN_ROWS_MAX 4
typedef struct span_locks {
    int64_t row[TX_SPAN_ROWS_MAX];
    size_t n;
} span_locks;

typedef struct txs_ctx {
    ls_stmt *alone, *sent, *req, *logged, *tx_up, *hold_up, *note, *start_up, *lock_add, *sib;
    ls_stmt *group, *same; /* whole seconds: same-text statements of a second */
    ls_interner *evidence;
    ls_text_rows_fn rows_of;
    void *rows_ctx;
    int64_t offset, res, slack; /* res: the log's resolution (0 or a second) */
    int64_t rebuilt;
} txs_ctx;

/*
 * On a whole-second log, the span of the statement at c->alone among the
 * spans of its text that ended in its second, by the log's order of the
 * statements of that text stamped then (ls_span_pick_in_order()): *row,
 * trace (0: the order does not decide).
 */
static int pick_in_order(txs_ctx *c, int64_t *row, char *trace, size_t tn)
{
    int64_t d[TX_SPANS_MAX], e[TX_SPANS_MAX], rows[TX_SPANS_MAX];
    char traces[TX_SPANS_MAX][64];
    int64_t me = ls_stmt_int64(c->alone, al_stmt_id);
    int64_t s1 = ls_stmt_int64(c->alone, al_end_ts) - c->offset;
    size_t nl = 0, ns = 0, rank = TX_SPANS_MAX;
    long k;
    int rc;

    *row = 0;
    ls_stmt_reset(c->group);
    if ((rc = ls_stmt_bind_int64(c->group, LS_PARAM(grp, text),
                                 ls_stmt_int64(c->alone, al_text_id))) != 0 ||
        (rc = ls_stmt_bind_int64(c->group, LS_PARAM(grp, stamp),
                                 ls_stmt_int64(c->alone, al_end_ts))) != 0) {
        ls_stmt_reset(c->group);
        return rc;
    }
    while (nl < TX_SPANS_MAX && (rc = ls_stmt_step(c->group)) == 1) {
        if (ls_stmt_int64(c->group, gr_stmt_id) == me)
            rank = nl;
        d[nl++] = ls_stmt_int64(c->group, gr_dur_us);
    }
    ls_stmt_reset(c->group);
    if (rc < 0 || rank == TX_SPANS_MAX)
        return rc < 0 ? rc : 0;
    ls_stmt_reset(c->same);
    if ((rc = ls_stmt_bind_text(c->same, LS_PARAM(smp, text), ls_stmt_text(c->alone, al_text))) !=
            0 ||
        (rc = ls_stmt_bind_int64(c->same, LS_PARAM(smp, end_lo), s1 - c->slack)) != 0 ||
        (rc = ls_stmt_bind_int64(c->same, LS_PARAM(smp, hi), s1 + c->res + TX_END_SLACK_US)) !=
            0 ||
        (rc = ls_stmt_bind_int64(c->same, LS_PARAM(smp, start_lo), s1 - TX_QUEUE_MAX_US)) != 0) {
        ls_stmt_reset(c->same);
        return rc;
    }
    while (ns < TX_SPANS_MAX && (rc = ls_stmt_step(c->same)) == 1) {
        if (!ls_span_may_be_logged(ls_stmt_int64(c->same, sm_error)))
            continue;
        rows[ns] = ls_stmt_int64(c->same, sm_span_row);
        snprintf(traces[ns], sizeof(traces[ns]), "%s", ls_stmt_text(c->same, sm_trace_id));
        e[ns++] = ls_stmt_int64(c->same, sm_dur_us);
    }
    ls_stmt_reset(c->same);
    if (rc < 0)
        return rc;
    if (nl == TX_SPANS_MAX || ns == TX_SPANS_MAX) /* more may follow */
        return 0;
    /* a span holds its statement: no shorter than it (its start on
     * the application's clock in ms: LS_SPAN_LOG_SLACK_US) */
    k = ls_span_pick_in_order(d, nl, e, ns, rank, LS_SPAN_LOG_SLACK_US, TX_END_SLACK_US);
    if (k >= 0) {
        *row = rows[k];
        snprintf(trace, tn, "%s", traces[k]);
    }
    return 0;
}

/* The one span that sent the statement at c->alone: *row, trace (0: none
 * or several). */
static int sent_span(txs_ctx *c, int64_t *row, char *trace, size_t tn)
{
    int64_t s0 = ls_stmt_int64(c->alone, al_start_ts) - c->offset;
    int64_t s1 = ls_stmt_int64(c->alone, al_end_ts) - c->offset;
    int64_t dur_lo = INT64_MIN, dur_hi = INT64_MAX;
    int rc, n = 0;

    *row = 0;
    /* On whole seconds the windows are a second wide: the span also lasted
     * as long as the logged duration (and the reply), which ms logs' windows
     * imply. */
    if (c->res) {
        int64_t dur = ls_stmt_int64(c->alone, al_dur_us);
        dur_lo = dur - c->slack;
        dur_hi = dur + TX_END_SLACK_US;
    }
    ls_stmt_reset(c->sent);
    if ((rc = ls_stmt_bind_text(c->sent, LS_PARAM(snp, text), ls_stmt_text(c->alone, al_text))) !=
            0 ||
        (rc = ls_stmt_bind_int64(c->sent, LS_PARAM(snp, start_lo), s0 - TX_QUEUE_MAX_US)) != 0 ||
        (rc = ls_stmt_bind_int64(c->sent, LS_PARAM(snp, start_hi), s0 + c->res + c->slack)) != 0 ||
        (rc = ls_stmt_bind_int64(c->sent, LS_PARAM(snp, end_lo), s1 - c->slack)) != 0 ||
        (rc = ls_stmt_bind_int64(c->sent, LS_PARAM(snp, end_hi), s1 + c->res + TX_END_SLACK_US)) !=
            0 ||
        (rc = ls_stmt_bind_int64(c->sent, LS_PARAM(snp, dur_lo), dur_lo)) != 0 ||
        (rc = ls_stmt_bind_int64(c->sent, LS_PARAM(snp, dur_hi), dur_hi)) != 0) {
        ls_stmt_reset(c->sent);
        return rc;
    }
    while ((rc = ls_stmt_step(c->sent)) == 1)
        if (ls_span_may_be_logged(ls_stmt_int64(c->sent, sn_error)) && n++ == 0) {
            *row = ls_stmt_int64(c->sent, sn_span_row);
            snprintf(trace, tn, "%s", ls_stmt_text(c->sent, sn_trace_id));
        }
    ls_stmt_reset(c->sent);
    if (n != 1)
        *row = 0;
    if (rc >= 0 && n > 1 && c->res)
        return pick_in_order(c, row, trace, tn);
    return rc < 0 ? rc : 0;
}

/* The request's spans into v (*n), *k the sent span's index (n: not among them). */
static int read_req(txs_ctx *c, const char *trace, int64_t row, ls_tx_span *v, int64_t *rows,
                    span_locks *locks, size_t *n, size_t *k)
{
    int rc = 0;

    *n = 0;
    *k = TX_SPANS_MAX;
    ls_stmt_reset(c->req);
    if ((rc = ls_stmt_bind_text(c->req, LS_PARAM(rqp, trace), trace)) != 0 ||
        (rc = ls_stmt_bind_int64(c->req, LS_PARAM(rqp, offset), c->offset)) != 0) {
        ls_stmt_reset(c->req);
        return rc;
    }
    while (*n < TX_SPANS_MAX && (rc = ls_stmt_step(c->req)) == 1) {
        const char *text = ls_stmt_text(c->req, rq_text);
        ls_tx_span *x = &v[*n];
        x->kind = ls_sql_kind_of(text);
        x->text = ls_span_text_hash(text);
        x->start = ls_stmt_int64(c->req, rq_start_ts);
        x->end = ls_stmt_int64(c->req, rq_end_ts);
        if (c->rows_of && (rc = c->rows_of(c->rows_ctx, text, locks[*n].row,
                                           TX_SPAN_ROWS_MAX, &locks[*n].n)) != 0)
            break;
        /* a statement that failed (a deadlock victim's) locked nothing */
        if (ls_stmt_int64(c->req, rq_error))
            locks[*n].n = 0;
        rows[*n] = ls_stmt_int64(c->req, rq_span_row);
        if (rows[*n] == row)
            *k = *n;
        (*n)++;
    }
    ls_stmt_reset(c->req);
    if (*k > *n)
        *k = *n;
    return rc < 0 ? rc : 0;
}

/* Whether the session's logged statements let v[first..last] be its. */
static int session_fits(txs_ctx *c, const ls_tx_span *v, size_t first, size_t last, int *fits)
{
    ls_tx_logged st[TX_SPANS_MAX];
    size_t n = 0;
    int rc;

    ls_stmt_reset(c->logged);
    if ((rc = ls_stmt_bind_int64(c->logged, LS_PARAM(lgp, session),
                                 ls_stmt_int64(c->alone, al_session_id))) != 0 ||
        (rc = ls_stmt_bind_int64(c->logged, LS_PARAM(lgp, lo), v[first].end - c->res)) != 0 ||
        (rc = ls_stmt_bind_int64(c->logged, LS_PARAM(lgp, hi), v[last].start)) != 0) {
        ls_stmt_reset(c->logged);
        return rc;
    }
    while (n < TX_SPANS_MAX && (rc = ls_stmt_step(c->logged)) == 1) {
        st[n].text = ls_span_text_hash(ls_stmt_text(c->logged, lg_text));
        st[n].start = ls_stmt_int64(c->logged, lg_start_ts);
        st[n].end = ls_stmt_int64(c->logged, lg_end_ts);
        n++;
    }
    ls_stmt_reset(c->logged);
    if (rc < 0)
        return rc;
    /* as many as the limit: more may follow, not known to fit */
    *fits = n < TX_SPANS_MAX && ls_span_tx_fits(v, first, last, st, n, c->res, c->slack);
    return 0;
}

/* The hold of transaction tx that began at the end of its locking
 * statement stmt (its stamp, on a whole-second log) begins at its span's
 * end. */
static int hold_start(txs_ctx *c, int64_t tx, int64_t stmt, const ls_tx_span *sp)
{
    int64_t from, ev, acquired, stmt_start;
    int rc;

    /* the hold's stamp is at most its span's end (the UPDATE's test) */
    if (!ls_span_hold_start(sp, INT64_MIN, &acquired, &stmt_start))
        return 0;
    if ((rc = ls_intern(c->evidence, LOCKING_END, &from)) != 0 ||
        (rc = ls_intern(c->evidence, LOCKING_SPAN_END, &ev)) != 0)
        return rc;
    ls_stmt_reset(c->start_up);
    if ((rc = ls_stmt_bind_int64(c->start_up, LS_PARAM(hsp, tx), tx)) == 0 &&
        (rc = ls_stmt_bind_int64(c->start_up, LS_PARAM(hsp, stmt), stmt)) == 0 &&
        (rc = ls_stmt_bind_int64(c->start_up, LS_PARAM(hsp, start), acquired)) == 0 &&
        (rc = ls_stmt_bind_int64(c->start_up, LS_PARAM(hsp, evidence), ev)) == 0 &&
        (rc = ls_stmt_bind_int64(c->start_up, LS_PARAM(hsp, was), from)) == 0 &&
        (rc = ls_stmt_bind_int64(c->start_up, LS_PARAM(hsp, start_lo), stmt_start)) == 0)
        rc = ls_stmt_step(c->start_up);
    return rc < 0 ? rc : 0;
}

/* Transaction tx's statement of span sp locked `row`, held to the end of
 * span end (its COMMIT or ROLLBACK): noted in txspan_locks. */
static int lock_note(txs_ctx *c, int64_t tx, int64_t row, const ls_tx_span *sp,
                     const ls_tx_span *end)
{
    int rc;
    ls_stmt_reset(c->lock_add);
    if ((rc = ls_stmt_bind_int64(c->lock_add, LS_PARAM(lap, tx), tx)) == 0 &&
        (rc = ls_stmt_bind_int64(c->lock_add, LS_PARAM(lap, row), row)) == 0 &&
        (rc = ls_stmt_bind_int64(c->lock_add, LS_PARAM(lap, start), sp->end)) == 0 &&
        (rc = ls_stmt_bind_int64(c->lock_add, LS_PARAM(lap, start_lo), sp->start)) == 0 &&
        (rc = ls_stmt_bind_int64(c->lock_add, LS_PARAM(lap, end), end->end)) == 0 &&
        (rc = ls_stmt_bind_int64(c->lock_add, LS_PARAM(lap, end_lo), end->start)) == 0)
        rc = ls_stmt_step(c->lock_add);
    return rc < 0 ? rc : 0;
}

/* The rows the transaction's other statements locked (their text names a
 * hot row; their spans say when): noted for holds after the merge. */
static int span_holds(txs_ctx *c, const ls_tx_span *v, const span_locks *locks, size_t first,
                      size_t last, size_t k)
{
    size_t j, i;
    int rc;

    for (j = first + 1; j < last; j++) {
        if (j == k)
            continue;
        for (i = 0; i < locks[j].n; i++)
            if ((rc = lock_note(c, ls_stmt_int64(c->alone, al_tx_id), locks[j].row[i], &v[j],
                                &v[last])) != 0)
                return rc;
    }
    return 0;
}

/* Transaction tx (of the session at c->alone) ends at v[last], and so do
 * its holds (ev: the end's evidence); noted with its BEGIN span. */
static int tx_ends(txs_ctx *c, int64_t tx, const ls_tx_span *v, size_t first, size_t last,
                   int64_t ev, int64_t begin_row)
{
    int commit = v[last].kind == LS_SQL_COMMIT;
    int rc;

    ls_stmt_reset(c->tx_up);
    if ((rc = ls_stmt_bind_int64(c->tx_up, LS_PARAM(txu, tx), tx)) != 0 ||
        /* the pooler queued the BEGIN */
        (rc = ls_stmt_bind_int64(c->tx_up, LS_PARAM(txu, start), v[first].end)) != 0 ||
        (rc = ls_stmt_bind_text(c->tx_up, LS_PARAM(txu, start_known), BEGIN_KNOWN)) != 0 ||
        (rc = ls_stmt_bind_int64(c->tx_up, LS_PARAM(txu, end), v[last].end)) != 0 ||
        (rc = ls_stmt_bind_text(c->tx_up, LS_PARAM(txu, end_known),
                                commit ? COMMIT_KNOWN : ROLLBACK_KNOWN)) != 0 ||
        (rc = ls_stmt_bind_text(c->tx_up, LS_PARAM(txu, outcome),
                                commit ? "commit" : "aborted")) != 0 ||
        (rc = ls_stmt_step(c->tx_up)) < 0)
        return rc;
    ls_stmt_reset(c->hold_up);
    if ((rc = ls_stmt_bind_int64(c->hold_up, LS_PARAM(hup, tx), tx)) != 0 ||
        (rc = ls_stmt_bind_int64(c->hold_up, LS_PARAM(hup, end), v[last].end)) != 0 ||
        (rc = ls_stmt_bind_int64(c->hold_up, LS_PARAM(hup, end_lo), v[last].start)) != 0 ||
        (rc = ls_stmt_bind_int64(c->hold_up, LS_PARAM(hup, evidence), ev)) != 0 ||
        (rc = ls_stmt_step(c->hold_up)) < 0)
        return rc;
    ls_stmt_reset(c->note);
    if ((rc = ls_stmt_bind_int64(c->note, LS_PARAM(ntp, tx), tx)) == 0 &&
        (rc = ls_stmt_bind_int64(c->note, LS_PARAM(ntp, session),
                                 ls_stmt_int64(c->alone, al_session_id))) == 0 &&
        (rc = ls_stmt_bind_int64(c->note, LS_PARAM(ntp, begin_row), begin_row)) == 0)
        rc = ls_stmt_step(c->note);
    return rc < 0 ? rc : 0;
}

static int rebuild_one(txs_ctx *c)
{
    ls_tx_span v[TX_SPANS_MAX];
    int64_t rows[TX_SPANS_MAX];
    span_locks locks[TX_SPANS_MAX];
    char trace[64];
    int64_t row, ev;
    size_t n, k, first, last;
    struct {
        int64_t tx, stmt;
        size_t span; /* 0: none found */
    } sib[TX_SPANS_MAX];
    size_t nsib = 0, i;
    int rc, fits = 0, commit;
    const char *end_known;

    /* A statement logged at its start without a duration (log_statement,
     * issue 34: blind-zk's log_statement = 'mod'): its end is not known,
     * so its span is the one of its text that began by then and ended
     * within TX_END_SLACK_US of that start; only on sub-second logs, where
     * the start is the line's time. */
    if (ls_stmt_isnull(c->alone, al_dur_us) && c->res)
        return 0;
    if ((rc = sent_span(c, &row, trace, sizeof(trace))) != 0 || !row)
        return rc;
    if ((rc = read_req(c, trace, row, v, rows, locks, &n, &k)) != 0)
        return rc;
    if (!ls_span_tx_of(v, n, k, &first, &last))
        return 0;
    if ((rc = session_fits(c, v, first, last, &fits)) != 0 || !fits)
        return rc;
    commit = v[last].kind == LS_SQL_COMMIT;
    end_known = commit ? COMMIT_KNOWN : ROLLBACK_KNOWN;
    if ((rc = ls_intern(c->evidence, end_known, &ev)) != 0)
        return rc;
    if ((rc = tx_ends(c, ls_stmt_int64(c->alone, al_tx_id), v, first, last, ev, rows[first])) != 0)
        return rc;
    /* the session's other transactions of one logged statement inside it
     * (ls_span_tx_fits() found them its own): the same transaction */
    ls_stmt_reset(c->sib);
    if ((rc = ls_stmt_bind_int64(c->sib, LS_PARAM(sbp, session),
                                 ls_stmt_int64(c->alone, al_session_id))) != 0 ||
        (rc = ls_stmt_bind_int64(c->sib, LS_PARAM(sbp, lo), v[first].end - c->slack)) != 0 ||
        (rc = ls_stmt_bind_int64(c->sib, LS_PARAM(sbp, hi), v[last].start + c->slack)) != 0 ||
        (rc = ls_stmt_bind_int64(c->sib, LS_PARAM(sbp, res), c->res)) != 0 ||
        (rc = ls_stmt_bind_int64(c->sib, LS_PARAM(sbp, tx), ls_stmt_int64(c->alone, al_tx_id))) !=
            0 ||
        (rc = ls_stmt_bind_int64(c->sib, LS_PARAM(sbp, begin_row), rows[first])) != 0) {
        ls_stmt_reset(c->sib);
        return rc;
    }
    while (nsib < TX_SPANS_MAX && (rc = ls_stmt_step(c->sib)) == 1) {
        uint64_t h = ls_span_text_hash(ls_stmt_text(c->sib, sb_text));
        size_t j;
        sib[nsib].tx = ls_stmt_int64(c->sib, sb_tx_id);
        sib[nsib].stmt = ls_stmt_int64(c->sib, sb_stmt_id);
        /* its span: the first of its text in the transaction */
        for (j = first + 1; j < last && v[j].text != h; j++)
            ;
        sib[nsib++].span = j < last ? j : 0;
    }
    ls_stmt_reset(c->sib);
    if (rc < 0)
        return rc;
    for (i = 0; i < nsib; i++) {
        if ((rc = tx_ends(c, sib[i].tx, v, first, last, ev, rows[first])) != 0)
            return rc;
        if (c->res && sib[i].span &&
            (rc = hold_start(c, sib[i].tx, sib[i].stmt, &v[sib[i].span])) != 0)
            return rc;
    }
    if (c->res && (rc = hold_start(c, ls_stmt_int64(c->alone, al_tx_id),
                                   ls_stmt_int64(c->alone, al_stmt_id), &v[k])) != 0)
        return rc;
    if ((rc = span_holds(c, v, locks, first, last, k)) != 0)
        return rc;
    c->rebuilt++;
    return 0;
}

/* What spans_only() reads and writes. */
typedef struct only_ctx {
    txs_ctx *c;
    ls_store *s;
    ls_stmt *ins, *hold, *note, *begun;
    ls_stmt *all;     /* every statement by start (all_stmts_sql), read as requests need */
    int all_done;     /* ... to its end */
    ls_tx_logged *st; /* the window of them: st[head..nst), by start */
    size_t head, nst, cap;
    int64_t ev_start, ev_commit, ev_rollback;
    int64_t added, holds;
} only_ctx;

/*
 * The window of statements a request's spans may be (o->st[head..nst)):
 * the statements that began before `keep` are let go, and the next ones
 * read while the last read began at or before `upto`. Requests come by
 * their first span, so `keep` only grows: memory is the statements of a
 * request's span of time, not the log's (issue 38's bound).
 */
static int only_window(only_ctx *o, int64_t keep, int64_t upto)
{
    int rc;

    while (o->head < o->nst && o->st[o->head].start < keep)
        o->head++;
    if (o->head > 0 && o->head >= o->nst / 2) {
        memmove(o->st, o->st + o->head, (o->nst - o->head) * sizeof(*o->st));
        o->nst -= o->head;
        o->head = 0;
    }
    while (!o->all_done && (o->nst == o->head || o->st[o->nst - 1].start <= upto)) {
        if ((rc = ls_stmt_step(o->all)) != 1) {
            o->all_done = 1;
            return rc < 0 ? rc : 0;
        }
        if (o->nst == o->cap) {
            size_t nc = o->cap ? 2 * o->cap : 1024;
            ls_tx_logged *p = realloc(o->st, nc * sizeof(*p));
            if (!p)
                return LS_ENOMEM;
            o->st = p;
            o->cap = nc;
        }
        o->st[o->nst].text = ls_span_text_hash(ls_stmt_text(o->all, all_text));
        o->st[o->nst].start = ls_stmt_int64(o->all, all_start_ts);
        o->st[o->nst].end = ls_stmt_int64(o->all, all_end_ts);
        o->nst++;
    }
    return 0;
}

/* The transaction v[first..last] of a request, of spans only: one of its
 * own with holds of the hot rows its statements name, from each one's
 * span's end to the COMMIT's (ROLLBACK's). */
static int only_one(only_ctx *o, const ls_tx_span *v, const int64_t *rows,
                    const span_locks *locks, size_t first, size_t last)
{
    int commit = v[last].kind == LS_SQL_COMMIT;
    int64_t tx, seen[TX_SPANS_MAX * TX_SPAN_ROWS_MAX];
    size_t nseen = 0, j, i, m, named = 0;
    double sql_ms = 0;
    int rc;

    for (j = first + 1; j < last; j++)
        named += locks[j].n;
    if (!named)
        return 0;
    ls_stmt_reset(o->begun);
    if ((rc = ls_stmt_bind_int64(o->begun, LS_PARAM(rbp, begin_row), rows[first])) != 0 ||
        (rc = ls_stmt_step(o->begun)) != 0)
        return rc < 0 ? rc : 0; /* rebuilt from a logged statement */
    if (ls_span_tx_logged(v, first, last, o->st + o->head, o->nst - o->head, o->c->res,
                          o->c->slack))
        return 0;
    for (j = first; j <= last; j++)
        sql_ms += (double)(v[j].end - v[j].start) / 1000.0;
    /* no session, no pid: the pooler hid the backend */
    ls_stmt_reset(o->ins);
    if ((rc = ls_stmt_bind_int64(o->ins, OT(explicit), 1)) != 0 ||
        (rc = ls_stmt_bind_int64(o->ins, OT(start_ts), v[first].end)) != 0 ||
        (rc = ls_stmt_bind_text(o->ins, OT(start_known), BEGIN_KNOWN)) != 0 ||
        (rc = ls_stmt_bind_int64(o->ins, OT(end_ts), v[last].end)) != 0 ||
        (rc = ls_stmt_bind_text(o->ins, OT(end_known), commit ? COMMIT_KNOWN : ROLLBACK_KNOWN)) !=
            0 ||
        (rc = ls_stmt_bind_text(o->ins, OT(outcome), commit ? "commit" : "aborted")) != 0 ||
        (rc = ls_stmt_bind_int64(o->ins, OT(statements), (int64_t)(last - first + 1))) != 0 ||
        (rc = ls_stmt_bind_double(o->ins, OT(sql_ms), sql_ms)) != 0 ||
        (rc = ls_stmt_step(o->ins)) != 1)
        return rc < 0 ? rc : LS_ESTORE;
    tx = ls_stmt_int64(o->ins, LS_ONLY_COLUMN);
    ls_stmt_reset(o->ins);
    for (j = first + 1; j < last; j++)
        for (i = 0; i < locks[j].n; i++) {
            for (m = 0; m < nseen && seen[m] != locks[j].row[i]; m++)
                ;
            if (m < nseen) /* held since an earlier statement */
                continue;
            seen[nseen++] = locks[j].row[i];
            ls_stmt_reset(o->hold);
            if ((rc = ls_stmt_bind_int64(o->hold, OH(row_id), locks[j].row[i])) != 0 ||
                (rc = ls_stmt_bind_int64(o->hold, OH(tx_id), tx)) != 0 ||
                (rc = ls_stmt_bind_int64(o->hold, OH(start_ts), v[j].end)) != 0 ||
                (rc = ls_stmt_bind_int64(o->hold, OH(start_lo), v[j].start)) != 0 ||
                (rc = ls_stmt_bind_int64(o->hold, OH(start_evidence), o->ev_start)) != 0 ||
                (rc = ls_stmt_bind_int64(o->hold, OH(end_ts), v[last].end)) != 0 ||
                (rc = ls_stmt_bind_int64(o->hold, OH(end_lo), v[last].start)) != 0 ||
                (rc = ls_stmt_bind_int64(o->hold, OH(end_evidence),
                                         commit ? o->ev_commit : o->ev_rollback)) != 0 ||
                (rc = ls_stmt_bind_int64(o->hold, OH(waits), 0)) != 0 ||
                (rc = ls_stmt_bind_double(o->hold, OH(waiter_ms), 0)) != 0 ||
                (rc = ls_stmt_step(o->hold)) < 0)
                return rc;
            o->holds++;
        }
    ls_stmt_reset(o->note);
    if ((rc = ls_stmt_bind_int64(o->note, LS_PARAM(onp, tx), tx)) != 0 ||
        (rc = ls_stmt_bind_int64(o->note, LS_PARAM(onp, span_row), rows[first + 1])) != 0 ||
        (rc = ls_stmt_step(o->note)) < 0)
        return rc;
    o->added++;
    return 0;
}

/* Each request's transactions (BEGIN..COMMIT or ROLLBACK spans) that
 * name a hot row and of which the store has no statement. */
static int only_request(only_ctx *o, const char *trace, int64_t first_ts)
{
    ls_tx_span v[TX_SPANS_MAX];
    int64_t rows[TX_SPANS_MAX], upto = INT64_MIN;
    span_locks locks[TX_SPANS_MAX];
    size_t n, k, i, first, last;
    int rc;

    if ((rc = read_req(o->c, trace, 0, v, rows, locks, &n, &k)) != 0)
        return rc;
    for (i = 0; i < n; i++)
        if (v[i].end > upto)
            upto = v[i].end;
    /* the statements ls_span_tx_logged() may take for these spans: from
     * the request's first span (less the slack and the log's resolution)
     * to its last span's end (plus the slack) */
    if (n > 0 && (rc = only_window(o, first_ts + o->c->offset - o->c->slack - o->c->res,
                                   upto + o->c->slack)) != 0)
        return rc;
    for (i = 0; i + 1 < n; i++) {
        if (v[i].kind != LS_SQL_BEGIN || !ls_span_tx_of(v, n, i + 1, &first, &last) ||
            first != i)
            continue;
        if ((rc = only_one(o, v, rows, locks, first, last)) != 0)
            return rc;
        i = last;
    }
    return 0;
}

/*
 * Transactions of spans only (issue 34, blind-pool): behind a pooler with
 * log_min_duration_statement, a request whose statements all ran under the
 * threshold without a logged wait left nothing in the log, but its spans
 * show its transaction (BEGIN..COMMIT) and the hot rows its statements
 * name. Looked for only where the log hides transactions (some logged
 * statement's was rebuilt from its spans above): one of its own, no
 * session, no pid; its holds' evidence says "spans only".
 */
static int spans_only(ls_store *s, txs_ctx *c, ls_interner *evidence, int64_t *added)
{
    only_ctx o;
    ls_stmt *tq = NULL;
    int rc;

    memset(&o, 0, sizeof(o));
    o.c = c;
    o.s = s;
    *added = 0;
    if ((rc = ls_store_exec(s, only_table_sql)) != 0 || c->rebuilt == 0 || !c->rows_of)
        return rc;
    if ((rc = ls_intern(evidence, ONLY_START, &o.ev_start)) != 0 ||
        (rc = ls_intern(evidence, ONLY_COMMIT, &o.ev_commit)) != 0 ||
        (rc = ls_intern(evidence, ONLY_ROLLBACK, &o.ev_rollback)) != 0 ||
        (rc = ls_store_prepare(s, all_stmts_sql, &o.all)) != 0 ||
        (rc = ls_store_prepare(s, only_tx_sql, &o.ins)) != 0 ||
        (rc = ls_store_prepare(s, only_hold_sql, &o.hold)) != 0 ||
        (rc = ls_store_prepare_params(s, only_note_sql, LS_PARAM_NAMES(ONLY_NOTE_PARAMS),
                                      &o.note)) != 0 ||
        (rc = ls_store_prepare_params(s, rebuilt_begin_sql, LS_PARAM_NAMES(REBUILT_BEGIN_PARAMS),
                                      &o.begun)) != 0 ||
        (rc = ls_store_prepare(s, traces_sql, &tq)) != 0)
        goto out;
    while ((rc = ls_stmt_step(tq)) == 1)
        if ((rc = only_request(&o, ls_stmt_text(tq, tr_trace_id),
                               ls_stmt_int64(tq, tr_first_ts))) != 0)
            break;
out:
    ls_stmt_finalize(tq);
    ls_stmt_finalize(o.all);
    ls_stmt_finalize(o.ins);
    ls_stmt_finalize(o.hold);
    ls_stmt_finalize(o.note);
    ls_stmt_finalize(o.begun);
    free(o.st);
    *added = o.added;
    return rc < 0 ? rc : 0;
}

/*
 * Deadlock victims' transactions that spans.c (write_victim) rebuilt from
 * their request's BEGIN and ROLLBACK spans: two statements of verb span,
 * the BEGIN written at its span's end.
 */
#define VICTIM_COLS(X, Q)            \
    X(Q, tx_id, "t.tx_id")           \
    X(Q, session_id, "t.session_id") \
    X(Q, begin_ts, "s.start_ts")     \
    X(Q, text, "x.text")
LS_COLUMNS(vt, VICTIM_COLS);
static const char victims_sql[] =
    "SELECT " LS_SELECT_LIST(vt, VICTIM_COLS) " FROM transactions t"
    " JOIN stmt_rows s ON s.stmt_id = t.first_stmt JOIN stmt_texts x ON x.text_id = s.text_id"
    " JOIN stmt_rows e ON e.stmt_id = t.last_stmt"
    " WHERE t.session_id IS NOT NULL AND t.statements = 2 AND s.verb = 5 AND e.verb = 5"
    " AND t.outcome IS NOT 'commit' ORDER BY t.tx_id";
/* Its BEGIN span: of its text (:text), ended at :end on the
 * application's clock; two: not one. */
#define VBEGIN_COLS(X, Q)            \
    X(Q, span_row, "sp.span_row")    \
    X(Q, trace_id, "sp.trace_id")
LS_COLUMNS(vb, VBEGIN_COLS);
static const char victim_begin_sql[] =
    "SELECT " LS_SELECT_LIST(vb, VBEGIN_COLS) " FROM spans sp"
    " WHERE sp.db_statement = :text AND sp.end_ts = :end AND sp.trace_id IS NOT NULL LIMIT 2";
#define VICTIM_BEGIN_PARAMS(X, Q) X(Q, text) X(Q, end)
LS_PARAMS(vbp, VICTIM_BEGIN_PARAMS);

/* Whether the session logged the statement of span sp (its text, ended
 * within it): that statement is a transaction of its own the log has,
 * with its hold (spans.c write_victim). */
static int victim_logged(txs_ctx *c, int64_t session, const ls_tx_span *sp, int *logged)
{
    int rc;

    *logged = 0;
    ls_stmt_reset(c->logged);
    if ((rc = ls_stmt_bind_int64(c->logged, LS_PARAM(lgp, session), session)) != 0 ||
        (rc = ls_stmt_bind_int64(c->logged, LS_PARAM(lgp, lo), sp->start - c->slack)) != 0 ||
        (rc = ls_stmt_bind_int64(c->logged, LS_PARAM(lgp, hi), sp->end + c->slack)) != 0) {
        ls_stmt_reset(c->logged);
        return rc;
    }
    while (!*logged && (rc = ls_stmt_step(c->logged)) == 1)
        *logged = ls_span_text_hash(ls_stmt_text(c->logged, lg_text)) == sp->text &&
                  ls_stmt_int64(c->logged, lg_end_ts) <= sp->end + c->slack;
    ls_stmt_reset(c->logged);
    return rc < 0 ? rc : 0;
}

/*
 * A deadlock victim's statements before the one that failed (a transfer's
 * first UPDATE, under log_min_duration_statement) are in no log line, so
 * its hold of the row it locked first (the row the other side waited for)
 * was missing: blind-pool's accounts id=3 lacked 9 victims' holds, 2.2 s.
 * The request's spans between its BEGIN and the failed span lock the hot
 * rows their text names (read_req: a failed span locks nothing), from
 * each span's end to the transaction's end, as the unlogged statements of
 * a rebuilt transaction (span_holds()); the holds pass ends them at the
 * error that aborted the transaction. Not a span whose statement the
 * session logged (victim_logged()), and only where the BEGIN span is the
 * one of its text that ended at the BEGIN's time.
 */
static int victim_holds(ls_store *s, txs_ctx *c)
{
    ls_tx_span v[TX_SPANS_MAX];
    int64_t rows[TX_SPANS_MAX];
    span_locks locks[TX_SPANS_MAX];
    ls_stmt *q = NULL, *b = NULL;
    int rc;

    if (!c->rows_of)
        return 0;
    if ((rc = ls_store_prepare(s, victims_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, victim_begin_sql, LS_PARAM_NAMES(VICTIM_BEGIN_PARAMS),
                                      &b)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        char trace[64];
        int64_t begin = 0, tx = ls_stmt_int64(q, vt_tx_id);
        size_t n, k, last, j, i;
        int found = 0;

        ls_stmt_reset(b);
        if ((rc = ls_stmt_bind_text(b, LS_PARAM(vbp, text), ls_stmt_text(q, vt_text))) != 0 ||
            (rc = ls_stmt_bind_int64(b, LS_PARAM(vbp, end),
                                     ls_stmt_int64(q, vt_begin_ts) - c->offset)) != 0)
            goto out;
        while ((rc = ls_stmt_step(b)) == 1) {
            found++;
            begin = ls_stmt_int64(b, vb_span_row);
            snprintf(trace, sizeof(trace), "%s", ls_stmt_text(b, vb_trace_id));
        }
        ls_stmt_reset(b);
        if (rc < 0)
            goto out;
        if (found != 1)
            continue;
        if ((rc = read_req(c, trace, begin, v, rows, locks, &n, &k)) != 0)
            goto out;
        if (!ls_span_victim_tx(v, n, k, &last))
            continue;
        for (j = k + 1; j < last; j++) {
            int logged = 0;
            if (locks[j].n &&
                (rc = victim_logged(c, ls_stmt_int64(q, vt_session_id), &v[j], &logged)) != 0)
                goto out;
            for (i = 0; i < locks[j].n && !logged; i++)
                if ((rc = lock_note(c, tx, locks[j].row[i], &v[j], &v[last])) != 0)
                    goto out;
        }
    }
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(b);
    return rc < 0 ? rc : 0;
}

/* The holds of txspan_locks (span_holds_sql). */
static int span_holds_add(ls_store *s, ls_interner *evidence)
{
    ls_stmt *q = NULL;
    int64_t ev;
    int rc;

    if ((rc = ls_intern(evidence, SPAN_LOCK_START, &ev)) != 0 ||
        (rc = ls_store_prepare_params(s, span_holds_earlier_sql, LS_PARAM_NAMES(SPAN_HOLDS_PARAMS),
                                      &q)) != 0)
        return rc;
    if ((rc = ls_stmt_bind_int64(q, LS_PARAM(shp, evidence), ev)) == 0)
        rc = ls_stmt_step(q);
    ls_stmt_finalize(q);
    q = NULL;
    if (rc < 0 ||
        (rc = ls_store_prepare_params(s, span_holds_sql, LS_PARAM_NAMES(SPAN_HOLDS_PARAMS), &q)) !=
            0)
        return rc;
    if ((rc = ls_stmt_bind_int64(q, LS_PARAM(shp, evidence), ev)) == 0)
        rc = ls_stmt_step(q);
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

int ls_tx_from_spans(ls_store *s, ls_interner *evidence, ls_text_rows_fn rows_of, void *ctx,
                     int64_t *rebuilt)
{
    txs_ctx c;
    ls_stmt *q = NULL;
    int64_t res = 0;
    int rc, have = 0;

    memset(&c, 0, sizeof(c));
    c.evidence = evidence;
    c.rows_of = rows_of;
    c.rows_ctx = ctx;
    *rebuilt = 0;
    if ((rc = ls_log_resolution(s, &res)) != 0)
        return rc;
    c.res = res;
    c.slack = res ? TX_WHOLE_SLACK_US : TX_SPAN_SLACK_US;
    if ((rc = ls_store_prepare(s, offset_sql, &q)) != 0)
        return rc;
    if ((rc = ls_stmt_step(q)) == 1) {
        have = 1;
        c.offset = ls_stmt_int64(q, LS_ONLY_COLUMN);
    }
    ls_stmt_finalize(q);
    if (rc < 0 || !have)
        return rc < 0 ? rc : 0;
    if ((rc = ls_store_exec(s, "CREATE INDEX IF NOT EXISTS spans_text ON"
                               " spans(db_statement, start_ts) WHERE db_statement IS NOT NULL")) !=
            0 ||
        (rc = ls_store_exec(s, rebuild_index_sql)) != 0 ||
        (rc = ls_store_prepare(s, alone_sql, &c.alone)) != 0 ||
        (rc = ls_store_prepare_params(s, sent_sql, LS_PARAM_NAMES(SENT_PARAMS), &c.sent)) != 0 ||
        (rc = ls_store_prepare_params(s, req_sql, LS_PARAM_NAMES(REQ_PARAMS), &c.req)) != 0 ||
        (rc = ls_store_prepare_params(s, logged_sql, LS_PARAM_NAMES(LOGGED_PARAMS), &c.logged)) !=
            0 ||
        (rc = ls_store_prepare_params(s, tx_update_sql, LS_PARAM_NAMES(TX_UPDATE_PARAMS),
                                      &c.tx_up)) != 0 ||
        (rc = ls_store_prepare_params(s, hold_update_sql, LS_PARAM_NAMES(HOLD_UPDATE_PARAMS),
                                      &c.hold_up)) != 0 ||
        (rc = ls_store_exec(s, note_table_sql)) != 0 ||
        (rc = ls_store_prepare_params(s, note_sql, LS_PARAM_NAMES(NOTE_PARAMS), &c.note)) != 0 ||
        (rc = ls_store_prepare_params(s, hold_start_sql, LS_PARAM_NAMES(HOLD_START_PARAMS),
                                      &c.start_up)) != 0 ||
        (rc = ls_store_exec(s, locks_table_sql)) != 0 ||
        (rc = ls_store_prepare_params(s, lock_add_sql, LS_PARAM_NAMES(LOCK_ADD_PARAMS),
                                      &c.lock_add)) != 0 ||
        (rc = ls_store_prepare_params(s, siblings_sql, LS_PARAM_NAMES(SIBLINGS_PARAMS), &c.sib)) !=
            0)
        goto out;
    if (res &&
        ((rc = ls_store_exec(s, rank_table_sql)) != 0 ||
         (rc = ls_store_prepare_params(s, group_sql, LS_PARAM_NAMES(GROUP_PARAMS), &c.group)) !=
             0 ||
         (rc = ls_store_prepare_params(s, same_sql, LS_PARAM_NAMES(SAME_PARAMS), &c.same)) != 0))
        goto out;
    while ((rc = ls_stmt_step(c.alone)) == 1)
        if ((rc = rebuild_one(&c)) != 0)
            goto out;
    if (rc == 0) {
        ls_stmt_reset(c.alone);
        rc = ls_store_exec(s, merge_sql);
    }
    if (rc == 0 && !res)
        rc = victim_holds(s, &c);
    if (rc == 0)
        rc = span_holds_add(s, evidence);
    if (rc == 0) {
        int64_t added = 0;
        rc = spans_only(s, &c, evidence, &added);
        c.rebuilt += added;
    }
    if (rc == 0)
        rc = ls_store_exec(s, clear_sql);
    if (rc == 0 && res)
        rc = ls_store_exec(s, "DELETE FROM temp.txspan_rank");
out:
    ls_stmt_finalize(c.alone);
    ls_stmt_finalize(c.sent);
    ls_stmt_finalize(c.req);
    ls_stmt_finalize(c.logged);
    ls_stmt_finalize(c.tx_up);
    ls_stmt_finalize(c.hold_up);
    ls_stmt_finalize(c.note);
    ls_stmt_finalize(c.start_up);
    ls_stmt_finalize(c.lock_add);
    ls_stmt_finalize(c.sib);
    ls_stmt_finalize(c.group);
    ls_stmt_finalize(c.same);
    *rebuilt = c.rebuilt;
    return rc < 0 ? rc : 0;
}
