/*
 * hidden.c — the row-lock waits the log never shows.
 *
 * log_lock_waits writes a wait only once it passes deadlock_timeout (1 s
 * by default); most queueing on a hot row is shorter. With every hold of
 * a hot row known (transactions.c), each statement that locked the row
 * while another transaction held it waited until that hold — and every
 * hold queued before it — ended: from the statement's start to the moment
 * the row was free (never later than the statement's own end, when the log
 * has it). The hold it waited behind is the one holding the row when it
 * started. Under log_statement = 'all' the statement's end is unknown, so
 * the hold itself starts when the row was free (the hold before it ended),
 * not at the statement's start; and the queue is not in the order the
 * statements started. PostgreSQL's row-lock queue is not FIFO: the first
 * waiter holds the tuple lock and waits for the holder's transaction, but
 * waiters that found the row already updated again follow the update chain
 * and wait for the new holder's transaction without the tuple lock
 * (heapam_tuple_lock), so at each commit they race the tuple-lock holder.
 * The order the holds were released in is known (the COMMITs' starts) and
 * holds of a row do not overlap, so under log_statement = 'all' the holds
 * are queued in the order they ended. That holds of a logged wait's
 * `acquired` line too: it is the transaction lock's, and every waiter of
 * the transaction wakes at its end and races for the row, so such a hold
 * starts no earlier than the hold before it in end order ended, unless
 * both are shared (FOR SHARE: decide/queue.c ls_queue_hold_start()).
 *
 * A logged tuple-lock wait ends when its waiter is next in line; it then
 * waits, below deadlock_timeout, for the holder's transaction: the
 * reconstruction's end stands when it is later.
 *
 * A logged wait of the same transaction and row wins (kind 'logged'): it
 * ends the wait, and its length is the logged part (logged_ms); queueing
 * the reconstruction finds before it (a tuple lock below deadlock_timeout,
 * then the logged transaction wait) is the hidden part. A reconstruction
 * whose end disagrees with the logged one by more than LS_LOGGED_AGREE_MS /
 * LS_LOGGED_AGREE_FRAC is counted.
 *
 * Holds are streamed per row in acquisition order; only the last
 * QUEUE_MEMORY holds are kept to find who held the row when a statement
 * started, so memory does not grow with the log.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corr_tables.h"
#include "correlate_int.h"
#include "decide/failwait.h"
#include "decide/spantx.h"
#include "ls_columns.h"
#include "ls_sqlshape.h"

#define QUEUE_MEMORY 256 /* holds remembered per row */

/*
 * The logged waits of each (transaction, row), one line each: its first
 * wait, and the span of them all — a statement's tuple-lock wait, then its
 * transaction wait, back to back. wait_id is in start order (the episodes
 * pass numbers waits by start, and no pass moves a start), so the first
 * wait is the least wait_id. Built from lock_wait_rows in one grouped scan, so
 * the scan of the holds below joins a table the size of the logged waits
 * instead of probing lock_wait_rows once per hold.
 */
#define LOGGED_TABLE(C0, XMS)                                                                      \
    "DROP TABLE IF EXISTS temp.hidden_logged;"                                                     \
    "CREATE TEMP TABLE hidden_logged(tx_id INTEGER, row_id INTEGER, first_wait INTEGER,"           \
    " l0 INTEGER, l1 INTEGER, ms REAL, tx_wait INTEGER, c0 INTEGER, xms REAL,"                     \
    " PRIMARY KEY(tx_id, row_id)) WITHOUT ROWID;"                                                  \
    "INSERT INTO temp.hidden_logged SELECT waiter_tx, row_id, min(wait_id), min(start_ts),"        \
    " max(coalesce(end_ts, logged_ts)),"                                                           \
    " (max(coalesce(end_ts, logged_ts)) - min(start_ts)) / 1000.0,"                                \
    " max(target_kind IS NOT 'tuple'), " C0 ", " XMS " FROM lock_waits"                            \
    " WHERE waiter_tx IS NOT NULL AND row_id IS NOT NULL GROUP BY waiter_tx, row_id;"
/* c0: the start each closing line implies, its time less its "after"
 * (ls_hidden_logged_start()); with millisecond stamps that function takes
 * the first line's start whatever c0 is: NULL, not computed.
 * xms: with whole-second stamps, the waits' exact length when each gave
 * its own (an "acquired ... after N ms" closed it: outcome acquired, or
 * serialization_failure after it), their sum: the logged part of the
 * statement's wait (logged_span_of()); NULL when any has none (an error
 * ended it: its length is its stamps'), and with millisecond stamps (the
 * stamps' span is the logged part there). */
static const char logged_table_sql[] =
    LOGGED_TABLE("min(CASE WHEN end_ts IS NOT NULL AND waited_ms > 0"
                 "  THEN end_ts - CAST(round(waited_ms * 1000) AS INTEGER) END)",
                 "CASE WHEN count(*) = sum(waited_ms IS NOT NULL"
                 "  AND outcome IN ('acquired', 'serialization_failure')) THEN sum(waited_ms) END");
static const char logged_table_ms_sql[] = LOGGED_TABLE("NULL", "NULL");

/*
 * Holds in (row, acquisition) order — under log_statement = 'all', where
 * acquisitions are what is reconstructed, in the order they ended — sorted
 * (NOT INDEXED): the holds table is in time order, so walking an index on
 * (row_id, start_ts) row by row would read every page of it once per hot
 * row once it no longer fits the page cache. The sort is one scan, and
 * spills to temp files beyond its memory (ls_store_sorting() while it
 * runs). Each hold carries its transaction's logged waits for the row.
 */
#define NO_DURATION_TEXT "start of the locking statement (no duration logged)"
#define NO_DURATION "'" NO_DURATION_TEXT "'"
#define ACQUIRED "'acquired after the locking statement''s logged wait'"
/* A hold's column as the passes before this one left it: the holds
 * waited for pass's (hold_bounds b) over the transactions pass's
 * (hold_rows h), as the view holds gives it; read from the tables so that
 * hold_rows is scanned NOT INDEXED (the view would be read through
 * holds_tx_row, a visit of the table per hold). */
#define BOUND(COL) "CASE WHEN b.hold_id IS NOT NULL THEN b." COL " ELSE h." COL " END"
/* Is the hold's start evidence one of those the parameters B (of
 * bound_evidence) and H (of hold_evidence) name? Their ids, read once
 * before the scan (evidence_ids_sql), compared per hold: the lists were
 * each a subquery's ephemeral table, probed three times a hold with its
 * test for NULL on a miss (issue 38: a fifth of the scan's VM steps).
 * 1, 0, or NULL for a hold with none, or a text no hold has. */
#define START_EVIDENCE_IS(B, H)                                                                    \
    "CASE WHEN b.hold_id IS NOT NULL THEN b.start_evidence IN (" B ")"                             \
    " ELSE h.start_evidence IN (" H ") END"
#define NO_DURATION_IS START_EVIDENCE_IS(":no_duration_b", ":no_duration_h")
/* Holds queued in the order they ended (their acquisition not logged):
 * the log has no end of their locking statement (ls_queue_hold_start()). */
#define QUEUED_BY_END NO_DURATION ", " ACQUIRED
#define QUEUED_BY_END_IS                                                                           \
    START_EVIDENCE_IS(":no_duration_b, :acquired_b", ":no_duration_h, :acquired_h")
/* The hold's start evidence's text, looked up; read only for a hold with
 * no locking statement (ls_hidden_stmt_start_known()), a span's. */
#define START_EVIDENCE                                                                             \
    "CASE WHEN b.hold_id IS NOT NULL THEN (SELECT text FROM bound_evidence"                        \
    " WHERE evidence_id = b.start_evidence) ELSE (SELECT text FROM hold_evidence"                  \
    " WHERE evidence_id = h.start_evidence) END"
/* The locking statement's text, for its lock strength
 * (ls_sql_shared_lock()): read only when :strength is set (strength_sql),
 * a log with holds whose start ls_queue_hold_start() decides. */
#define LOCK_TEXT                                                                                  \
    "CASE WHEN :strength THEN (SELECT t.text FROM stmt_rows p JOIN stmt_texts t"                   \
    " ON t.text_id = p.text_id WHERE p.stmt_id = " BOUND("lock_stmt") ") END"
/* Whether the hold's statement was timed by its span (txspans.c: its
 * start the span's start, the hold from the span's end), read only when
 * :spanres is set: the statement lines are whole seconds and the spans
 * gave some statements finer times (ls_hidden_wait_resolution()). */
#define SPAN_TIMED                                                                                 \
    "CASE WHEN :spanres THEN " START_EVIDENCE_IS(":span_lb, :span_sb, :span_ob",                   \
                                                 ":span_lh, :span_sh, :span_oh") " END"
#define LOG_POS(T) LS_LOG_POS_SQL(T)
#define HOLD_BASE_COLS(X, Q)                                                                       \
    X(Q, hold_id, "h.hold_id")                                                                     \
    X(Q, row_id, "h.row_id")                                                                       \
    X(Q, tx_id, "h.tx_id")                                                                         \
    X(Q, session_id, "h.session_id")                                                               \
    X(Q, pid, "h.pid")                                                                             \
    X(Q, acquired, BOUND("start_ts"))                                                              \
    X(Q, stmt_start, "coalesce(" BOUND("start_lo") ", " BOUND("start_ts") ")")                     \
    X(Q, end_ts, BOUND("end_ts"))                                                                  \
    X(Q, lock_stmt, BOUND("lock_stmt"))                                                            \
    X(Q, no_duration, NO_DURATION_IS)                                                              \
    X(Q, no_end, QUEUED_BY_END_IS)                                                                 \
    X(Q, start_evidence, "CASE WHEN " BOUND("lock_stmt") " IS NULL THEN " START_EVIDENCE " END")   \
    X(Q, logged, "l.first_wait")                                                                   \
    X(Q, l0, "l.l0")                                                                               \
    X(Q, l1, "l.l1")                                                                               \
    X(Q, logged_ms, "l.ms")                                                                        \
    X(Q, tx_wait, "l.tx_wait")                                                                     \
    X(Q, c0, "l.c0")                                                                               \
    X(Q, xms, "l.xms")                                                                             \
    X(Q, span_timed, SPAN_TIMED)                                                                   \
    X(Q, lock_text, LOCK_TEXT)
/* log positions (LOG_POS): its locking statement's line, and its end's,
 * its transaction's COMMIT; only ls_queue_same_second() reads them, and
 * only on a whole-second log with a logged wait (need_positions()):
 * otherwise holds_nopos_sql reads NULL, not two lookups a hold. */
#define HOLD_COLS(X, Q)                                                                            \
    HOLD_BASE_COLS(X, Q)                                                                           \
    X(Q, lock_pos,                                                                                 \
      "(SELECT " LOG_POS("p") " FROM stmt_rows p"                                                  \
                              " WHERE p.stmt_id = " BOUND("lock_stmt") ")")                        \
    X(Q, end_pos,                                                                                  \
      "(SELECT " LOG_POS("p") " FROM transactions t JOIN stmt_rows p"                              \
                              " ON p.stmt_id = t.last_stmt WHERE t.tx_id = h.tx_id"                \
                              " AND t.outcome = 'commit')")
#define HOLD_NOPOS_COLS(X, Q)                                                                      \
    HOLD_BASE_COLS(X, Q)                                                                           \
    X(Q, lock_pos, "NULL")                                                                         \
    X(Q, end_pos, "NULL")
LS_COLUMNS(hq, HOLD_COLS);
#define HOLDS_FROM                                                                                 \
    " FROM temp.hidden_special s CROSS JOIN hold_rows h ON h.hold_id = s.hold_id"                  \
    " LEFT JOIN hold_bounds b ON b.hold_id = h.hold_id"                                            \
    " LEFT JOIN temp.hidden_logged l ON l.tx_id = h.tx_id AND l.row_id = h.row_id"                 \
    " ORDER BY h.row_id, CASE WHEN " QUEUED_BY_END_IS                                              \
    " THEN " BOUND("end_ts") " ELSE " BOUND("start_ts") " END, " BOUND("start_ts") ", h.hold_id"
/* The scan's parameters, in the order the SQL first names them. */
#define HOLDS_PARAMS(X, Q)                                                                         \
    X(Q, no_duration_b)                                                                            \
    X(Q, no_duration_h)                                                                            \
    X(Q, acquired_b)                                                                               \
    X(Q, acquired_h)                                                                               \
    X(Q, spanres)                                                                                  \
    X(Q, span_lb)                                                                                  \
    X(Q, span_sb)                                                                                  \
    X(Q, span_ob)                                                                                  \
    X(Q, span_lh)                                                                                  \
    X(Q, span_sh)                                                                                  \
    X(Q, span_oh)                                                                                  \
    X(Q, strength)
LS_PARAMS(hp, HOLDS_PARAMS);
/* The ids of the evidence texts the scan compares (START_EVIDENCE_IS),
 * in HOLDS_PARAMS' order; NULL for a text its table does not have. */
static const char evidence_ids_sql[] =
    "SELECT (SELECT evidence_id FROM bound_evidence WHERE text = " NO_DURATION "),"
    " (SELECT evidence_id FROM hold_evidence WHERE text = " NO_DURATION "),"
    " (SELECT evidence_id FROM bound_evidence WHERE text = " ACQUIRED "),"
    " (SELECT evidence_id FROM hold_evidence WHERE text = " ACQUIRED "),"
    " (SELECT evidence_id FROM bound_evidence WHERE text = :logged),"
    " (SELECT evidence_id FROM bound_evidence WHERE text = :lock),"
    " (SELECT evidence_id FROM bound_evidence WHERE text = :only),"
    " (SELECT evidence_id FROM hold_evidence WHERE text = :logged),"
    " (SELECT evidence_id FROM hold_evidence WHERE text = :lock),"
    " (SELECT evidence_id FROM hold_evidence WHERE text = :only)";
/* the span evidences' texts (decide/spantx.h), bound: they have quotes */
#define EVIDENCE_IDS_PARAMS(X, Q) X(Q, logged) X(Q, lock) X(Q, only)
LS_PARAMS(eip, EVIDENCE_IDS_PARAMS);
static const char holds_sql[] = "SELECT " LS_SELECT_LIST(hq, HOLD_COLS) HOLDS_FROM;
static const char holds_nopos_sql[] = "SELECT " LS_SELECT_LIST(hq, HOLD_NOPOS_COLS) HOLDS_FROM;

/*
 * The scan reads whole (holds_sql above) only the holds where the passes
 * before it left more than hold_rows has: those the holds waited for pass
 * bounded (hold_bounds) and those whose transaction has a logged wait of
 * the row (hidden_logged), about one per logged wait, listed in
 * temp.hidden_special. Every other hold is read narrow (narrow_sql): its
 * own columns of hold_rows, no join, no CASE over hold_bounds, its flags
 * from its start evidence's id compared in C (held_narrow()); what a
 * row_waits row needs besides (its session, pid, transaction; the tx of
 * the hold it queued behind) is looked up for the holds that queued alone
 * (detail_sql). The two streams, each sorted in the scan's order, are
 * merged in C (hold_before()). Every hold is still read: with durations
 * each hold's statement started before it got the row, and whether it
 * queued is whether the hold before it ended after that. Issue 38: the
 * one sort of every hold with its 23 columns, joins and CASEs was 119
 * SQLite VM steps a hold (50.9 M at the 1 GiB bench log); 30 now.
 */
static const char special_sql[] =
    "DROP TABLE IF EXISTS temp.hidden_special;"
    "CREATE TEMP TABLE hidden_special(hold_id INTEGER PRIMARY KEY);"
    "INSERT INTO temp.hidden_special SELECT hold_id FROM hold_bounds ORDER BY hold_id;"
    /* each logged wait's (tx, row) probed in holds_tx_row, not every hold
     * probed in hidden_logged (the planner's choice: 112 VM steps a
     * logged wait at 1 GiB, 8 with the CROSS JOIN) */
    "INSERT OR IGNORE INTO temp.hidden_special SELECT h.hold_id FROM temp.hidden_logged l"
    " CROSS JOIN hold_rows h ON h.tx_id = l.tx_id AND h.row_id = l.row_id;";
/* A hold's own columns, as HOLD_COLS gives them for a hold with no
 * hold_bounds row and no logged wait (the positions and the locking
 * statement's text as there: read only where the whole scan reads them). */
#define LOCK_TEXT_H                                                                                \
    "(SELECT t.text FROM stmt_rows p JOIN stmt_texts t"                                            \
    " ON t.text_id = p.text_id WHERE p.stmt_id = h.lock_stmt)"
/* The columns after row_id (NARROW_REST), each a column of the table
 * alone: the statement's start is start_lo, or start_ts where that is
 * NULL (held_narrow()); no constant column is read (a column costs a
 * sorter record's field a hold) but those the variants below need. */
#define NARROW_REST(X, Q)                                                                          \
    X(Q, hold_id, "h.hold_id")                                                                     \
    X(Q, acquired, "h.start_ts")                                                                   \
    X(Q, start_lo, "h.start_lo")                                                                   \
    X(Q, end_ts, "h.end_ts")                                                                       \
    X(Q, evidence, "h.start_evidence")                                                             \
    X(Q, lock_stmt, "h.lock_stmt")
#define NARROW_TEXT(X, Q) X(Q, lock_text, LOCK_TEXT_H)
#define NARROW_NO_TEXT(X, Q) X(Q, lock_text, "NULL")
#define NARROW_POS(X, Q)                                                                           \
    X(Q, lock_pos, "(SELECT " LOG_POS("p") " FROM stmt_rows p WHERE p.stmt_id = h.lock_stmt)")     \
    X(Q, end_pos,                                                                                  \
      "(SELECT " LOG_POS("p") " FROM transactions t JOIN stmt_rows p"                              \
                              " ON p.stmt_id = t.last_stmt WHERE t.tx_id = h.tx_id"                \
                              " AND t.outcome = 'commit')")
/* nq_ columns: those of the last variant (the others are its first
 * columns: lock_text only under strength or positions, the positions
 * only where need_positions()) */
#define NARROW_COLS(X, Q)                                                                          \
    X(Q, row_id, "h.row_id") NARROW_REST(X, Q) NARROW_TEXT(X, Q) NARROW_POS(X, Q)
LS_COLUMNS(nq, NARROW_COLS);
#define NARROW_COL_(Q, name, expr) ", " expr
#define NARROW_SELECT(MORE) "SELECT h.row_id" NARROW_REST(NARROW_COL_, nq) MORE(NARROW_COL_, nq)
#define NARROW_NONE(X, Q)
#define NARROW_NO_TEXT_POS(X, Q) NARROW_NO_TEXT(X, Q) NARROW_POS(X, Q)
#define NARROW_TEXT_POS(X, Q) NARROW_TEXT(X, Q) NARROW_POS(X, Q)
#define NARROW_FROM " FROM hold_rows h NOT INDEXED WHERE h.hold_id NOT IN temp.hidden_special"
/* HOLDS_FROM's order for such a hold; where no hold of hold_rows has a
 * start evidence of QUEUED_BY_END (strength_sql: 0), its key is its
 * start. */
#define NARROW_ORDER " ORDER BY h.row_id, h.start_ts, h.hold_id"
#define NARROW_ORDER_BY_END                                                                        \
    " ORDER BY h.row_id, CASE WHEN h.start_evidence IN (:no_duration_h, :acquired_h)"              \
    " THEN h.end_ts ELSE h.start_ts END, h.start_ts, h.hold_id"
#define NARROW_PARAMS(X, Q) X(Q, no_duration_h) X(Q, acquired_h)
LS_PARAMS(np, NARROW_PARAMS);
/* [positions][strength] */
static const char *const narrow_sql[2][2] = {
    {NARROW_SELECT(NARROW_NONE) NARROW_FROM NARROW_ORDER,
     NARROW_SELECT(NARROW_TEXT) NARROW_FROM NARROW_ORDER_BY_END},
    {NARROW_SELECT(NARROW_NO_TEXT_POS) NARROW_FROM NARROW_ORDER,
     NARROW_SELECT(NARROW_TEXT_POS) NARROW_FROM NARROW_ORDER_BY_END}};
/* What a row_waits row of a narrow hold needs besides, and the
 * transaction of a narrow hold another queued behind. */
#define DETAIL_COLS(X, Q) X(Q, tx_id, "tx_id") X(Q, session_id, "session_id") X(Q, pid, "pid")
LS_COLUMNS(dq, DETAIL_COLS);
#define DETAIL_PARAMS(X, Q) X(Q, hold)
LS_PARAMS(dp, DETAIL_PARAMS);
static const char detail_sql[] =
    "SELECT " LS_SELECT_LIST(dq, DETAIL_COLS) " FROM hold_rows WHERE hold_id = :hold";
/* A narrow hold's start evidence's text, read only for one with no
 * locking statement (ls_hidden_stmt_start_known()). */
#define EVIDENCE_TEXT_PARAMS(X, Q) X(Q, id)
LS_PARAMS(etp, EVIDENCE_TEXT_PARAMS);
static const char evidence_text_sql[] = "SELECT text FROM hold_evidence WHERE evidence_id = :id";

/* insert_sql's parameters */
LS_TABLE_COLUMNS(row_waits);
static const char insert_sql[] = LS_INSERT_INTO("INSERT", row_waits);
#define RW(col) LS_PARAM(row_waits, col)

/* Holds whose start moves are noted here and stored after the scan:
 * storing them during it would change what the scan reads (the holds view
 * joins hold_queued). The start moves to when the hold before it ended;
 * start_lo is the statement's start, NULL when the same (the view's
 * start_evidence is then QUEUED_EVIDENCE, final.c). */
static const char moved_table_sql[] =
    "DROP TABLE IF EXISTS temp.moved_holds;"
    "CREATE TEMP TABLE moved_holds(hold_id INTEGER PRIMARY KEY, start_ts INTEGER,"
    " start_lo INTEGER);";
#define MOVE_HOLD_PARAMS(X, Q) X(Q, hold_id) X(Q, start_ts) X(Q, start_lo)
LS_PARAMS(mhp, MOVE_HOLD_PARAMS);
static const char move_hold_sql[] =
    "INSERT INTO temp.moved_holds VALUES (:hold_id, :start_ts, nullif(:start_lo, :start_ts))";
static const char apply_moves_sql[] = "INSERT INTO hold_queued(" LS_COLUMN_NAMES(
    hold_queued) ") SELECT hold_id, start_ts, start_lo"
                 " FROM temp.moved_holds ORDER BY hold_id;"
                 "DELETE FROM temp.moved_holds;";

/*
 * The locks statements failed on (temp.failed_locks, the transactions
 * pass's: 40001 after the holder committed, a lock timeout, a deadlock
 * victim; only where the statement has a line of its own, log_statement,
 * or its bind line before the error, durations: bind_failures()),
 * one per (transaction, row, statement), with the transaction's logged
 * waits for the row. Such a statement acquired nothing on the row, so the
 * scan of the holds never meets it; but it queued for the row from its
 * start until its error (decide/failwait.h): its wait counts, hidden or
 * logged. Its row_waits row has no hold_id: the wait ended in the error
 * (error_links names it by tx_id).
 */
/* log positions (LOG_POS) of the failed statement's line and of its
 * error's (the session's first error of the error's time after that line):
 * only ls_failed_wait_same_second() reads them */
#define FAILED_STMT_POS "(SELECT " LOG_POS("p") " FROM stmt_rows p WHERE p.stmt_id = f.stmt_id)"
#define FAILED_BASE_COLS(X, Q)                                                                     \
    X(Q, row_id, "f.row_id")                                                                       \
    X(Q, tx_id, "f.tx_id")                                                                         \
    X(Q, session_id, "f.session_id")                                                               \
    X(Q, pid, "f.pid")                                                                             \
    X(Q, stmt_id, "f.stmt_id")                                                                     \
    X(Q, start_ts, "f.start_ts")                                                                   \
    X(Q, error_ts, "f.error_ts")                                                                   \
    X(Q, logged, "l.first_wait")                                                                   \
    X(Q, l0, "l.l0")                                                                               \
    X(Q, l1, "l.l1")                                                                               \
    X(Q, logged_ms, "l.ms")                                                                        \
    X(Q, tx_wait, "l.tx_wait")                                                                     \
    X(Q, c0, "l.c0")                                                                               \
    X(Q, xms, "l.xms")                                                                             \
    X(Q, class, "f.class")
#define FAILED_COLS(X, Q)                                                                          \
    FAILED_BASE_COLS(X, Q)                                                                         \
    X(Q, stmt_pos, FAILED_STMT_POS)                                                                \
    X(Q, error_pos,                                                                                \
      "(SELECT min(" LOG_POS("e") ") FROM errors e WHERE e.session_id = f.session_id"              \
                                  " AND e.ts = f.error_ts AND " LOG_POS("e") " > " FAILED_STMT_POS \
                                                                             ")")
/* without need_positions() the positions are NULL, not read */
#define FAILED_NOPOS_COLS(X, Q)                                                                    \
    FAILED_BASE_COLS(X, Q)                                                                         \
    X(Q, stmt_pos, "NULL")                                                                         \
    X(Q, error_pos, "NULL")
LS_COLUMNS(fl, FAILED_COLS);
#define FAILED_LOCKS_FROM                                                                          \
    " FROM temp.failed_locks f"                                                                    \
    " LEFT JOIN temp.hidden_logged l ON l.tx_id = f.tx_id AND l.row_id = f.row_id"                 \
    " WHERE f.error_ts IS NOT NULL"                                                                \
    " GROUP BY f.tx_id, f.row_id, f.stmt_id ORDER BY f.row_id, f.start_ts"
static const char failed_locks_sql[] = "SELECT " LS_SELECT_LIST(fl, FAILED_COLS) FAILED_LOCKS_FROM;
static const char failed_locks_nopos_sql[] =
    "SELECT " LS_SELECT_LIST(fl, FAILED_NOPOS_COLS) FAILED_LOCKS_FROM;
/* The holds of the row (:row) by other transactions (:tx) got by the error
 * (:error_ts, by the hold's first start: holds_row), the latest first: the one
 * that held the row when the statement started is among them. Their starts
 * as the scan above left them (hold_queued). */
#define FAILED_HELD_MAX 64
#define HELD_BASE_COLS(X, Q)                                                                       \
    X(Q, hold_id, "h.hold_id")                                                                     \
    X(Q, tx_id, "h.tx_id")                                                                         \
    X(Q, start_ts, "coalesce(qd.start_ts, " BOUND("start_ts") ")")                                 \
    X(Q, end_ts, BOUND("end_ts"))
/* log positions: read only by ls_failed_wait_same_second(), which finds
 * nothing unless need_positions(); otherwise failed_held_nopos_sql reads
 * NULL, not three lookups a candidate (issue 38: most of the pass's CPU
 * at 100 MiB was these probes, 64 candidates per failed lock). */
#define HELD_COLS(X, Q)                                                                            \
    HELD_BASE_COLS(X, Q)                                                                           \
    X(Q, lock_pos,                                                                                 \
      "(SELECT " LOG_POS("p") " FROM stmt_rows p WHERE p.stmt_id = " BOUND("lock_stmt") ")")       \
    X(Q, end_pos,                                                                                  \
      "(SELECT " LOG_POS(                                                                          \
          "p") " FROM transactions t JOIN stmt_rows p"                                             \
               " ON p.stmt_id = t.last_stmt WHERE t.tx_id = h.tx_id AND t.outcome = 'commit')")
#define HELD_NOPOS_COLS(X, Q)                                                                      \
    HELD_BASE_COLS(X, Q)                                                                           \
    X(Q, lock_pos, "NULL")                                                                         \
    X(Q, end_pos, "NULL")
LS_COLUMNS(fh, HELD_COLS);
#define FAILED_HELD_FROM                                                                           \
    " FROM hold_rows h"                                                                            \
    " LEFT JOIN hold_bounds b ON b.hold_id = h.hold_id"                                            \
    " LEFT JOIN hold_queued qd ON qd.hold_id = h.hold_id"                                          \
    " WHERE h.row_id = :row AND h.tx_id IS NOT :tx AND h.start_ts <= :error_ts"                    \
    " AND " BOUND("end_ts") " IS NOT NULL ORDER BY h.start_ts DESC"                                \
                            " LIMIT " LS_SQL_INT(FAILED_HELD_MAX)
#define FAILED_HELD_PARAMS(X, Q) X(Q, row) X(Q, tx) X(Q, error_ts)
LS_PARAMS(fhp, FAILED_HELD_PARAMS);
static const char failed_held_sql[] = "SELECT " LS_SELECT_LIST(fh, HELD_COLS) FAILED_HELD_FROM;
static const char failed_held_nopos_sql[] =
    "SELECT " LS_SELECT_LIST(fh, HELD_NOPOS_COLS) FAILED_HELD_FROM;

/*
 * The logged waits of statements that failed in them (a lock timeout, a
 * deadlock victim, 40001 after the wait): such a statement acquired
 * nothing on the row, so its transaction has no hold of it and the scan
 * above never meets it, but it queued, and its wait counts (logged).
 * No stmt_id: with durations the statement has no line of its own.
 */
static const char failed_waits_sql[] =
    "INSERT INTO row_waits(row_id, tx_id, session_id, pid, start_ts, end_ts, wait_ms,"
    " behind_hold, behind_tx, kind, logged_wait_id, logged_ms)"
    " SELECT l.row_id, l.tx_id, w.session_id, w.pid, l.l0, l.l1, coalesce(l.xms, l.ms),"
    " (SELECT h.hold_id FROM hold_rows h WHERE h.tx_id = w.holder_tx AND h.row_id = l.row_id"
    "  ORDER BY h.hold_id LIMIT 1), w.holder_tx, 'logged', l.first_wait, coalesce(l.xms, l.ms)"
    " FROM temp.hidden_logged l JOIN lock_waits w ON w.wait_id = l.first_wait"
    " WHERE NOT EXISTS (SELECT 1 FROM hold_rows h WHERE h.tx_id = l.tx_id AND h.row_id = l.row_id)"
    " AND NOT EXISTS (SELECT 1 FROM temp.failed_rows q WHERE q.tx_id = l.tx_id"
    "  AND q.row_id = l.row_id)"
    " AND EXISTS (SELECT 1 FROM lock_waits x WHERE x.waiter_tx = l.tx_id"
    "  AND x.row_id = l.row_id AND x.outcome IS NOT 'acquired');"
    "DROP TABLE temp.failed_rows;";

/*
 * The (transaction, row) of each failed lock's row_waits row (failed_wait),
 * which failed_waits_sql must not count again. Its own table: row_waits is
 * indexed by row only, and a hot row has tens of thousands of waits, so
 * probing it per logged wait grew with the square of the log (issue 38).
 * Any other row_waits row of a (transaction, row) has its hold, which
 * failed_waits_sql's first test already excludes.
 */
static const char failed_rows_table_sql[] =
    "DROP TABLE IF EXISTS temp.failed_rows;"
    "CREATE TEMP TABLE failed_rows(tx_id INTEGER, row_id INTEGER, PRIMARY KEY(tx_id, row_id))"
    " WITHOUT ROWID;";
#define FAILED_ROW_PARAMS(X, Q) X(Q, tx) X(Q, row)
LS_PARAMS(frp, FAILED_ROW_PARAMS);
static const char failed_row_sql[] = "INSERT OR IGNORE INTO temp.failed_rows VALUES (:tx, :row)";

/* Each row's totals, one row_hidden row for every row with a queued
 * statement or a hold (the view rows gives the others' as 0). The spans
 * of temp.row_spans come from the scan of the holds (ls_correlate_hidden),
 * not from another pass over the table. */
static const char spans_table_sql[] =
    "DROP TABLE IF EXISTS temp.row_spans;"
    "CREATE TEMP TABLE row_spans(row_id INTEGER PRIMARY KEY, span_us INTEGER);";
#define SPAN_INSERT_PARAMS(X, Q) X(Q, row_id) X(Q, span_us)
LS_PARAMS(sip, SPAN_INSERT_PARAMS);
static const char span_insert_sql[] = "INSERT INTO temp.row_spans VALUES (:row_id, :span_us)";
static const char stats_sql[] = "INSERT INTO row_hidden(" LS_COLUMN_NAMES(
    row_hidden) ")"
                " SELECT k.row_id,"
                " coalesce((SELECT sum(max(0, wait_ms - logged_ms)) FROM row_waits q"
                "  WHERE q.row_id = k.row_id), 0),"
                " coalesce((SELECT sum(logged_ms) FROM row_waits q WHERE q.row_id = k.row_id), 0),"
                " (SELECT count(*) FROM row_waits q WHERE q.row_id = k.row_id AND q.wait_ms "
                "> " LS_SQL_INT(
                    LS_WAITED_STATEMENT_MS) "),"
                                            /* Utilisation: the share of the row's span (its first
                                             * hold's start to its last hold's end) that it was
                                             * held. */
                                            " (SELECT CASE WHEN sp.span_us > 0 THEN min(1.0, "
                                            "rh.occupied_ms * 1000.0 / sp.span_us) END"
                                            "  FROM temp.row_spans sp LEFT JOIN row_holds rh ON "
                                            "rh.row_id = sp.row_id"
                                            "  WHERE sp.row_id = k.row_id)"
                                            " FROM row_keys k WHERE k.row_id IN (SELECT row_id "
                                            "FROM row_waits"
                                            "  UNION SELECT row_id FROM temp.row_spans) ORDER BY "
                                            "k.row_id;"
                                            "DROP TABLE temp.row_spans;";

/* A row's span so far: its holds' earliest start and latest end. */
typedef struct row_span {
    int64_t row_id, first, last;
    int has_first, has_last;
} row_span;

static void span_add(row_span *sp, int64_t start, int has_end, int64_t end)
{
    if (!sp->has_first || start < sp->first)
        sp->first = start;
    sp->has_first = 1;
    if (has_end && (!sp->has_last || end > sp->last)) {
        sp->last = end;
        sp->has_last = 1;
    }
}

static int span_flush(ls_stmt *u, const row_span *sp)
{
    int rc;
    if (sp->row_id < 0)
        return 0;
    ls_stmt_reset(u);
    if ((rc = ls_stmt_bind_int64(u, LS_PARAM(sip, row_id), sp->row_id)) != 0 ||
        (rc = sp->has_last ? ls_stmt_bind_int64(u, LS_PARAM(sip, span_us), sp->last - sp->first)
                           : ls_stmt_bind_null(u, LS_PARAM(sip, span_us))) != 0)
        return rc;
    rc = ls_stmt_step(u);
    return rc < 0 ? rc : 0;
}

typedef struct ring {
    ls_queued_hold h[QUEUE_MEMORY];
    unsigned char shared[QUEUE_MEMORY]; /* held in a shared mode (ls_sql_shared_lock()) */
    int64_t hold_id[QUEUE_MEMORY], tx_id[QUEUE_MEMORY];    /* tx_id NO_TX: a narrow hold's */
    int64_t lock_pos[QUEUE_MEMORY], end_pos[QUEUE_MEMORY]; /* log positions (LOG_POS) */
    int n, next;
} ring;

#define NO_TX INT64_MIN /* a narrow hold's transaction: not read (detail_sql) */

static void ring_push(ring *r, const ls_queued_hold *h, int shared, int64_t hold_id, int64_t tx_id,
                      int64_t lock_pos, int64_t end_pos)
{
    r->h[r->next] = *h;
    r->shared[r->next] = (unsigned char)shared;
    r->hold_id[r->next] = hold_id;
    r->tx_id[r->next] = tx_id;
    r->lock_pos[r->next] = lock_pos;
    r->end_pos[r->next] = end_pos;
    r->next = (r->next + 1) % QUEUE_MEMORY;
    if (r->n < QUEUE_MEMORY)
        r->n++;
}

/* The evidence ids the scan compares (evidence_ids_sql), in HOLDS_PARAMS'
 * order; has 0: the text is not in its table (no hold has it). */
enum {
    EV_NO_DURATION_B,
    EV_NO_DURATION_H,
    EV_ACQUIRED_B,
    EV_ACQUIRED_H,
    EV_SPAN_LB,
    EV_SPAN_SB,
    EV_SPAN_OB,
    EV_SPAN_LH,
    EV_SPAN_SH,
    EV_SPAN_OH,
    EV__COUNT
};
typedef struct evidence_ids {
    int64_t id[EV__COUNT];
    int has[EV__COUNT];
} evidence_ids;

/* The queries of the scan, and what it knows of the log. */
typedef struct hidden_q {
    ls_stmt *q, *ins, *mv, *ut;
    ls_stmt *nq;                 /* the narrow holds (narrow_sql) */
    ls_stmt *det, *evt;          /* a narrow hold's details (detail_sql), evidence text */
    int64_t resolution;          /* the statements' stamps: a second or a millisecond */
    int64_t lines_resolution;    /* the same of the log's statement lines alone: the
                                    logged waits' lines', and each hold's unless
                                    its span timed it (ls_hidden_wait_resolution()) */
    int64_t max_unlogged;        /* an unlogged wait was shorter (ls_correlate_unlogged_bound()) */
    int spanres;                 /* SPAN_TIMED's :spanres */
    int narrow_text, narrow_pos; /* nq has its lock_text, its positions */
    evidence_ids ev;
} hidden_q;

/* The logged waits of a (transaction, row) from q's columns l0, l1, ms,
 * tx_wait, c0 and xms (hidden_logged's): the start the log's stamps allow
 * (ls_hidden_logged_start()), the length from it, or the waits' own
 * exact length where their messages gave it (xms, whole seconds: the
 * stamps' span is off by up to a second, samples/correlation cut to %t:
 * 1100 ms for "acquired ... after 1420.126 ms"). Whether it is that
 * (ls_hidden_exact_wait_ms()). */
static int logged_span_of(ls_stmt *q, int l0, int l1, int ms, int tx_wait, int c0, int xms,
                          int64_t resolution, ls_logged_span *l)
{
    l->start_ts = ls_hidden_logged_start(ls_stmt_int64(q, l0), !ls_stmt_isnull(q, c0),
                                         ls_stmt_int64(q, c0), resolution);
    l->end_ts = ls_stmt_int64(q, l1);
    l->ms = ls_stmt_double(q, ms);
    if (l->start_ts != ls_stmt_int64(q, l0))
        l->ms = (double)(l->end_ts - l->start_ts) / LS_US_PER_MS;
    l->tx_wait = ls_stmt_int64(q, tx_wait) != 0;
    if (ls_stmt_isnull(q, xms))
        return 0;
    l->ms = ls_stmt_double(q, xms);
    return 1;
}

/* A hold of the scan, from either stream: the whole one (holds_sql, q
 * with hq_ columns) or the narrow one (narrow_sql, nq_ columns). */
typedef struct held {
    ls_stmt *q; /* its stream, at its row */
    int whole;  /* read whole: holds_sql */
    int64_t hold_id, row_id, stmt_start, acquired, end_ts;
    int row_null, acquired_null, end_null;
    int has_lock_stmt;
    int64_t lock_stmt;
    int64_t tx_id;           /* NO_TX for a narrow hold */
    int no_duration, no_end; /* no_end: the log has no end of its statement */
    int span_timed;          /* its statement timed by its span: [stmt_start, acquired] */
    int64_t res;             /* its times' tick (ls_hidden_wait_resolution()) */
    int64_t logged;          /* the first logged wait of its transaction on the row, 0: none */
    const char *lock_text;   /* its locking statement's text, read under :strength */
    int has_lock_pos;
    int64_t lock_pos, end_pos; /* log positions (need_positions()); end_pos 0: none */
} held;

/* Is id (NULL: has_id 0) among the evidence ids ev[k] of which[0..n)? */
static int evidence_is(const evidence_ids *ev, int has_id, int64_t id, const int *which, int n)
{
    int i;
    for (i = 0; has_id && i < n; i++)
        if (ev->has[which[i]] && ev->id[which[i]] == id)
            return 1;
    return 0;
}

/* A hold of the whole stream (hq columns). */
static void held_whole(const hidden_q *hq, ls_stmt *q, held *h)
{
    h->q = q;
    h->whole = 1;
    h->hold_id = ls_stmt_int64(q, hq_hold_id);
    h->row_null = ls_stmt_isnull(q, hq_row_id);
    h->row_id = ls_stmt_int64(q, hq_row_id);
    h->tx_id = ls_stmt_int64(q, hq_tx_id);
    h->stmt_start = ls_stmt_int64(q, hq_stmt_start);
    h->acquired_null = ls_stmt_isnull(q, hq_acquired);
    h->acquired = ls_stmt_int64(q, hq_acquired);
    h->end_null = ls_stmt_isnull(q, hq_end_ts);
    h->end_ts = ls_stmt_int64(q, hq_end_ts);
    h->has_lock_stmt = !ls_stmt_isnull(q, hq_lock_stmt);
    h->lock_stmt = ls_stmt_int64(q, hq_lock_stmt);
    h->no_duration = ls_stmt_int64(q, hq_no_duration) == 1;
    h->no_end = ls_stmt_int64(q, hq_no_end) == 1;
    h->span_timed = ls_stmt_int64(q, hq_span_timed) == 1;
    h->logged = ls_stmt_isnull(q, hq_logged) ? 0 : ls_stmt_int64(q, hq_logged);
    h->lock_text = ls_stmt_text_or_null(q, hq_lock_text);
    h->has_lock_pos = !ls_stmt_isnull(q, hq_lock_pos);
    h->lock_pos = ls_stmt_int64(q, hq_lock_pos);
    h->end_pos = ls_stmt_isnull(q, hq_end_pos) ? 0 : ls_stmt_int64(q, hq_end_pos);
    h->res = ls_hidden_wait_resolution(hq->resolution, hq->lines_resolution, h->span_timed);
}

/* A hold of the narrow stream (nq columns): its flags as HOLD_COLS's
 * NO_DURATION_IS, QUEUED_BY_END_IS and SPAN_TIMED give them for a hold
 * with no hold_bounds row, from its start evidence's id. */
static void held_narrow(const hidden_q *hq, ls_stmt *q, held *h)
{
    static const int no_duration[] = {EV_NO_DURATION_H};
    static const int no_end[] = {EV_NO_DURATION_H, EV_ACQUIRED_H};
    static const int span[] = {EV_SPAN_LH, EV_SPAN_SH, EV_SPAN_OH};
    int has_ev = !ls_stmt_isnull(q, nq_evidence);
    int64_t ev = ls_stmt_int64(q, nq_evidence);

    h->q = q;
    h->whole = 0;
    h->hold_id = ls_stmt_int64(q, nq_hold_id);
    h->row_null = ls_stmt_isnull(q, nq_row_id);
    h->row_id = ls_stmt_int64(q, nq_row_id);
    h->tx_id = NO_TX;
    h->acquired_null = ls_stmt_isnull(q, nq_acquired);
    h->acquired = ls_stmt_int64(q, nq_acquired);
    /* coalesce(start_lo, start_ts), as HOLD_COLS' stmt_start */
    h->stmt_start = ls_stmt_isnull(q, nq_start_lo) ? h->acquired : ls_stmt_int64(q, nq_start_lo);
    h->end_null = ls_stmt_isnull(q, nq_end_ts);
    h->end_ts = ls_stmt_int64(q, nq_end_ts);
    h->has_lock_stmt = !ls_stmt_isnull(q, nq_lock_stmt);
    h->lock_stmt = ls_stmt_int64(q, nq_lock_stmt);
    h->no_duration = evidence_is(&hq->ev, has_ev, ev, no_duration, 1);
    h->no_end = evidence_is(&hq->ev, has_ev, ev, no_end, 2);
    h->span_timed = hq->spanres && evidence_is(&hq->ev, has_ev, ev, span, 3);
    h->logged = 0; /* a hold of a logged wait is hidden_special's */
    /* the variant's columns (narrow_sql) */
    h->lock_text = hq->narrow_text ? ls_stmt_text_or_null(q, nq_lock_text) : NULL;
    h->has_lock_pos = hq->narrow_pos && !ls_stmt_isnull(q, nq_lock_pos);
    h->lock_pos = h->has_lock_pos ? ls_stmt_int64(q, nq_lock_pos) : 0;
    h->end_pos =
        hq->narrow_pos && !ls_stmt_isnull(q, nq_end_pos) ? ls_stmt_int64(q, nq_end_pos) : 0;
    h->res = ls_hidden_wait_resolution(hq->resolution, hq->lines_resolution, h->span_timed);
}

/* Compare two values as ORDER BY does: NULL first. */
static int cmp_nullable(int a_null, int64_t a, int b_null, int64_t b)
{
    if (a_null || b_null)
        return b_null - a_null;
    return a < b ? -1 : a > b;
}

/* Is hold a before hold b in HOLDS_FROM's order (row, its queue key: its
 * end when queued by its end, else its start; its start; hold_id)? */
static int hold_before(const held *a, const held *b)
{
    int c = cmp_nullable(a->row_null, a->row_id, b->row_null, b->row_id);
    if (c == 0) {
        int an = a->no_end ? a->end_null : a->acquired_null;
        int bn = b->no_end ? b->end_null : b->acquired_null;
        c = cmp_nullable(an, a->no_end ? a->end_ts : a->acquired, bn,
                         b->no_end ? b->end_ts : b->acquired);
    }
    if (c == 0)
        c = cmp_nullable(a->acquired_null, a->acquired, b->acquired_null, b->acquired);
    return c < 0 || (c == 0 && a->hold_id < b->hold_id);
}

/* A narrow hold's transaction, session and pid (detail_sql), into tx
 * (and session, pid where not NULL). */
static int hold_details(ls_stmt *det, int64_t hold_id, int64_t *tx, int64_t *session, int64_t *pid)
{
    int rc;
    ls_stmt_reset(det);
    if ((rc = ls_stmt_bind_int64(det, LS_PARAM(dp, hold), hold_id)) != 0)
        return rc;
    if ((rc = ls_stmt_step(det)) < 0)
        return rc;
    *tx = rc == 1 ? ls_stmt_int64(det, dq_tx_id) : 0;
    if (session)
        *session = rc == 1 ? ls_stmt_int64(det, dq_session_id) : 0;
    if (pid)
        *pid = rc == 1 ? ls_stmt_int64(det, dq_pid) : 0;
    ls_stmt_reset(det);
    return 0;
}

/* Its row of row_waits: it queued (rec: the reconstruction, NULL when
 * none), the log has a wait of it (h->logged), or both. */
static int store_row_wait(const hidden_q *hq, const held *h, const ls_queue_result *found,
                          const ring *r, ls_correlate_stats *stats)
{
    ls_stmt *ins = hq->ins, *q = h->q;
    ls_queue_result own, *rec = NULL;
    ls_hidden_wait w;
    int64_t tx_id = h->tx_id, session_id, pid, behind_tx = 0;
    int rc;

    if (h->whole) {
        session_id = ls_stmt_int64(q, hq_session_id);
        pid = ls_stmt_int64(q, hq_pid);
    } else if ((rc = hold_details(hq->det, h->hold_id, &tx_id, &session_id, &pid)) != 0) {
        return rc;
    }
    if (found) {
        own = *found;
        rec = &own;
        behind_tx = r->tx_id[rec->behind];
        if (behind_tx == NO_TX &&
            (rc = hold_details(hq->det, r->hold_id[rec->behind], &behind_tx, NULL, NULL)) != 0)
            return rc;
    }
    if (rec && !h->logged)
        rec->start_ts =
            ls_hidden_unlogged_start(rec->start_ts, rec->end_ts, h->res,
                                     ls_hidden_unlogged_bound(!h->no_duration, hq->max_unlogged));
    w.start_ts = rec ? rec->start_ts : h->stmt_start;
    w.end_ts = rec ? rec->end_ts : h->acquired;
    w.ms = rec ? (double)(rec->end_ts - rec->start_ts) / LS_US_PER_MS : 0;
    ls_stmt_reset(ins);
    ls_stmt_bind_int64(ins, RW(row_id), h->row_id);
    ls_stmt_bind_int64(ins, RW(hold_id), h->hold_id);
    ls_stmt_bind_int64(ins, RW(tx_id), tx_id);
    ls_stmt_bind_int64(ins, RW(session_id), session_id);
    ls_stmt_bind_int64(ins, RW(pid), pid);
    if (h->has_lock_stmt)
        ls_stmt_bind_int64(ins, RW(stmt_id), h->lock_stmt);
    if (h->logged) {
        /* The logged wait wins for its part (decide/hidden.c); only a
         * whole hold has one (hidden_special). */
        if (h->whole && !ls_stmt_isnull(q, hq_l0)) {
            ls_logged_span l;
            /* the logged waits' times are their lines' */
            int exact = logged_span_of(q, hq_l0, hq_l1, hq_logged_ms, hq_tx_wait, hq_c0, hq_xms,
                                       hq->lines_resolution, &l);
            if (h->span_timed && hq->lines_resolution >= LS_WHOLE_SECOND_US) {
                /* whole-second lines, a statement its span timed: the
                 * span's times within the lines' (decide/hidden.c) */
                ls_hidden_span_timed_wait(&l, hq->lines_resolution, h->stmt_start, h->acquired,
                                          exact ? l.ms : 0.0, &w);
            } else {
                /* the statement's end timed: a duration, on a log whose
                 * stamps order the holds' ends (not whole seconds) */
                ls_hidden_logged_wait(
                    rec, &l, !h->no_duration && hq->lines_resolution < LS_WHOLE_SECOND_US, &w);
                /* its times as fine as its wait's end: its end logged (a
                 * duration), and its rebuilt start before the logged one
                 * (else the span is the logged lines' stamps alone) */
                if (exact)
                    w.ms = ls_hidden_exact_wait_ms(
                        w.ms, l.ms, !h->no_end && rec && rec->start_ts < l.start_ts, h->res);
            }
            stats->hidden_disagree += w.disagree;
            ls_stmt_bind_double(ins, RW(logged_ms), l.ms);
        }
        ls_stmt_bind_text(ins, RW(kind), "logged");
        ls_stmt_bind_int64(ins, RW(logged_wait_id), h->logged);
    } else {
        ls_stmt_bind_text(ins, RW(kind), "inferred");
        ls_stmt_bind_double(ins, RW(logged_ms), 0.0);
        stats->hidden_waits++;
    }
    ls_stmt_bind_int64(ins, RW(start_ts), w.start_ts);
    ls_stmt_bind_int64(ins, RW(end_ts), w.end_ts);
    ls_stmt_bind_double(ins, RW(wait_ms), w.ms);
    if (rec) {
        ls_stmt_bind_int64(ins, RW(behind_hold), r->hold_id[rec->behind]);
        ls_stmt_bind_int64(ins, RW(behind_tx), behind_tx);
        ls_stmt_bind_double(ins, RW(inferred_ms),
                            (double)(found->end_ts - found->start_ts) / LS_US_PER_MS);
    }
    rc = ls_stmt_step(ins);
    return rc < 0 ? rc : 0;
}

/* A hold whose statement queued under log_statement = 'all': its start
 * moves to when the hold before it ended (stored after the scan). */
static int move_hold(ls_stmt *mv, const held *h, int64_t start_ts)
{
    int rc;
    ls_stmt_reset(mv);
    if ((rc = ls_stmt_bind_int64(mv, LS_PARAM(mhp, hold_id), h->hold_id)) != 0 ||
        (rc = ls_stmt_bind_int64(mv, LS_PARAM(mhp, start_ts), start_ts)) != 0 ||
        (rc = ls_stmt_bind_int64(mv, LS_PARAM(mhp, start_lo), h->stmt_start)) != 0)
        return rc;
    rc = ls_stmt_step(mv);
    return rc < 0 ? rc : 0;
}

/* Is the start of h's statement known (ls_hidden_stmt_start_known())?
 * 1 or 0, below 0 a store error. A narrow hold's evidence text is read
 * only when it has no locking statement. */
static int stmt_start_known(const hidden_q *hq, const held *h)
{
    int rc, known;
    if (h->has_lock_stmt)
        return ls_hidden_stmt_start_known(1, NULL);
    if (h->whole)
        return ls_hidden_stmt_start_known(0, ls_stmt_text_or_null(h->q, hq_start_evidence));
    if (ls_stmt_isnull(h->q, nq_evidence))
        return ls_hidden_stmt_start_known(0, NULL);
    ls_stmt_reset(hq->evt);
    if ((rc = ls_stmt_bind_int64(hq->evt, LS_PARAM(etp, id), ls_stmt_int64(h->q, nq_evidence))) !=
        0)
        return rc;
    if ((rc = ls_stmt_step(hq->evt)) < 0)
        return rc;
    known = ls_hidden_stmt_start_known(0, rc == 1 ? ls_stmt_text_or_null(hq->evt, LS_ONLY_COLUMN)
                                                  : NULL);
    ls_stmt_reset(hq->evt);
    return known;
}

/* One hold of the scan (h), after the holds before it on its row (r):
 * did its statement queue behind them (decide/queue.c)? Then its
 * row_waits row, its start moved, and its place in the ring and in the
 * row's span. */
static int scan_hold(hidden_q *hq, ring *r, row_span *span, const held *h,
                     ls_correlate_stats *stats)
{
    ls_queued_hold self;
    ls_queue_result res;
    int found, same_second, shared, rc;

    shared = h->lock_text && ls_sql_shared_lock(h->lock_text);
    if (h->end_null) {
        /* a hold with no end: part of the row's span, not of its queue */
        span_add(span, h->acquired, 0, 0);
        return 0;
    }
    self.start_ts = h->acquired;
    self.end_ts = h->end_ts;
    /* The ring is in acquisition order; ls_queue_wait takes any order. */
    /* a tie within the stamps' tick counts only for a wait the log does
     * not show: a logged one tells the wait itself */
    if ((found = stmt_start_known(hq, h)) < 0)
        return found;
    found = found && ls_queue_wait(r->h, r->n, h->stmt_start, h->acquired, !h->no_duration,
                                   h->logged ? 0 : h->res, &res);
    /* whole seconds: a hold that ended in the statement's own second,
     * after its line (log position); its length not known */
    same_second = !found && h->no_duration && !h->logged && h->has_lock_pos &&
                  ls_queue_same_second(r->h, r->lock_pos, r->end_pos, r->n, h->stmt_start,
                                       h->lock_pos, h->res, hq->max_unlogged, &res);
    if (h->no_end) {
        /* Without the statement's end the row was got when the hold
         * before it in end order ended, not when the statement started
         * or its logged wait's lock was acquired (decide/queue.c). */
        int64_t start =
            ls_queue_hold_start(r->h, r->shared, r->n, h->acquired, self.end_ts, shared);
        if (found && h->no_duration) {
            /* its wait ended then */
            res.end_ts = start;
            found = res.end_ts > res.start_ts;
        }
        if (start > h->acquired) {
            self.start_ts = start;
            if ((rc = move_hold(hq->mv, h, start)) != 0)
                return rc;
        }
    }
    found |= same_second;
    if ((found || h->logged) && (rc = store_row_wait(hq, h, found ? &res : NULL, r, stats)) != 0)
        return rc;
    ring_push(r, &self, shared, h->hold_id, h->tx_id, h->has_lock_pos ? h->lock_pos : INT64_MAX,
              h->end_pos);
    span_add(span, self.start_ts, 1, self.end_ts);
    return 0;
}

/* The resolution of the statements' logged times (as holds.c's
 * log_resolution): a whole second when none has sub-second digits. */
static const char resolution_sql[] =
    "SELECT NOT EXISTS (SELECT 1 FROM statements WHERE log_ts % " LS_SQL_INT(
        LS_WHOLE_SECOND_US) " <> 0"
                            " AND stmt_id NOT IN (SELECT stmt_id FROM stmt_span_time))"
                            " AND EXISTS (SELECT 1 FROM statements)";

/* The same of the log's own statement lines alone (file_id set): on a
 * whole-second log with traces, a statement rebuilt from its spans has
 * sub-second times, while the holds' logged ends are whole seconds. */
static const char lines_resolution_sql[] =
    "SELECT NOT EXISTS (SELECT 1 FROM statements WHERE log_ts % " LS_SQL_INT(
        LS_WHOLE_SECOND_US) " <> 0"
                            " AND file_id IS NOT NULL"
                            " AND stmt_id NOT IN (SELECT stmt_id FROM stmt_span_time))"
                            " AND EXISTS (SELECT 1 FROM statements WHERE file_id IS NOT NULL)";

static int log_resolution(ls_store *s, const char *sql, int64_t *out)
{
    ls_stmt *q = NULL;
    int rc = ls_store_prepare(s, sql, &q);
    *out = LS_MILLISECOND_US;
    if (rc != 0)
        return rc;
    if ((rc = ls_stmt_step(q)) == 1 && ls_stmt_int64(q, LS_ONLY_COLUMN))
        *out = LS_WHOLE_SECOND_US;
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

/* What an unlogged wait was shorter than (ls_hidden_unlogged_start()):
 * the shortest time a logged wait had waited when its first line was
 * written, deadlock_timeout and a little (its "after N ms"); 0 when the
 * log has no wait. */
static const char unlogged_sql[] =
    "SELECT min(logged_ts - start_ts) FROM lock_wait_rows"
    " WHERE logged_ts IS NOT NULL AND start_ts IS NOT NULL AND logged_ts > start_ts";

int ls_correlate_unlogged_bound(ls_store *s, int64_t *out)
{
    ls_stmt *q = NULL;
    int rc = ls_store_prepare(s, unlogged_sql, &q);
    *out = 0;
    if (rc != 0)
        return rc;
    if ((rc = ls_stmt_step(q)) == 1 && !ls_stmt_isnull(q, LS_ONLY_COLUMN))
        *out = ls_stmt_int64(q, LS_ONLY_COLUMN);
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

/* The holds that may have held f's row when its statement started
 * (failed_held_sql), into cand/ids; how many. Below 0 a store error. */
static int failed_candidates(ls_stmt *hs, ls_stmt *f, ls_queued_hold *cand, int64_t *hold_id,
                             int64_t *tx_id, int64_t *lock_pos, int64_t *end_pos)
{
    int n = 0, rc = 0;
    ls_stmt_reset(hs);
    if ((rc = ls_stmt_bind_int64(hs, LS_PARAM(fhp, row), ls_stmt_int64(f, fl_row_id))) != 0 ||
        (rc = ls_stmt_bind_int64(hs, LS_PARAM(fhp, tx), ls_stmt_int64(f, fl_tx_id))) != 0 ||
        (rc = ls_stmt_bind_int64(hs, LS_PARAM(fhp, error_ts), ls_stmt_int64(f, fl_error_ts))) != 0)
        return rc;
    while (n < FAILED_HELD_MAX && (rc = ls_stmt_step(hs)) == 1) {
        cand[n].start_ts = ls_stmt_int64(hs, fh_start_ts);
        cand[n].end_ts = ls_stmt_int64(hs, fh_end_ts);
        hold_id[n] = ls_stmt_int64(hs, fh_hold_id);
        tx_id[n] = ls_stmt_isnull(hs, fh_tx_id) ? 0 : ls_stmt_int64(hs, fh_tx_id);
        lock_pos[n] = ls_stmt_isnull(hs, fh_lock_pos) ? INT64_MAX : ls_stmt_int64(hs, fh_lock_pos);
        end_pos[n] = ls_stmt_isnull(hs, fh_end_pos) ? 0 : ls_stmt_int64(hs, fh_end_pos);
        n++;
    }
    ls_stmt_reset(hs);
    return n < FAILED_HELD_MAX && rc < 0 ? rc : n;
}

/* One failed lock (f's row): its wait, when it queued (decide/failwait.c),
 * merged with its logged wait where the log has one (a logged wait with no
 * queueing found is failed_waits_sql's), noted in temp.failed_rows (done). */
static int failed_wait(ls_stmt *f, ls_stmt *hs, ls_stmt *ins, ls_stmt *done, const hidden_q *hq,
                       ls_correlate_stats *stats)
{
    ls_queued_hold cand[FAILED_HELD_MAX];
    int64_t hold_id[FAILED_HELD_MAX], tx_id[FAILED_HELD_MAX];
    int64_t lock_pos[FAILED_HELD_MAX], end_pos[FAILED_HELD_MAX];
    ls_queue_result rec;
    ls_hidden_wait w;
    double inferred_ms;
    int n, rc;

    if ((n = failed_candidates(hs, f, cand, hold_id, tx_id, lock_pos, end_pos)) < 0)
        return n;
    if (!ls_failed_wait(cand, n, ls_stmt_int64(f, fl_start_ts), ls_stmt_int64(f, fl_error_ts),
                        &rec) &&
        /* whole seconds: a 40001 in the statement's own second after the
         * COMMIT of a hold it queued behind (log positions), its wait not
         * logged */
        !(ls_stmt_isnull(f, fl_logged) && !ls_stmt_isnull(f, fl_stmt_pos) &&
          !ls_stmt_isnull(f, fl_error_pos) && !ls_stmt_isnull(f, fl_class) &&
          strcmp(ls_stmt_text(f, fl_class), "serialization_failure") == 0 &&
          ls_failed_wait_same_second(cand, lock_pos, end_pos, n, ls_stmt_int64(f, fl_start_ts),
                                     ls_stmt_int64(f, fl_stmt_pos), ls_stmt_int64(f, fl_error_ts),
                                     ls_stmt_int64(f, fl_error_pos), hq->lines_resolution,
                                     hq->max_unlogged, &rec)))
        return 0;
    inferred_ms = (double)(rec.end_ts - rec.start_ts) / LS_US_PER_MS;
    w.start_ts = rec.start_ts;
    w.end_ts = rec.end_ts;
    w.ms = inferred_ms;
    ls_stmt_reset(ins);
    if (!ls_stmt_isnull(f, fl_logged) && !ls_stmt_isnull(f, fl_l0)) {
        ls_logged_span l;
        int exact = logged_span_of(f, fl_l0, fl_l1, fl_logged_ms, fl_tx_wait, fl_c0, fl_xms,
                                   hq->lines_resolution, &l);
        rec.start_ts = ls_failed_wait_start(rec.start_ts, hq->lines_resolution, l.start_ts);
        ls_hidden_logged_wait(&rec, &l, 0, &w);
        /* its start its line's stamp (ls_hidden_exact_wait_ms()) */
        if (exact)
            w.ms = ls_hidden_exact_wait_ms(w.ms, l.ms, 0, hq->lines_resolution);
        stats->hidden_disagree += w.disagree;
        ls_stmt_bind_text(ins, RW(kind), "logged");
        ls_stmt_bind_int64(ins, RW(logged_wait_id), ls_stmt_int64(f, fl_logged));
        ls_stmt_bind_double(ins, RW(logged_ms), l.ms);
    } else {
        w.start_ts =
            ls_hidden_unlogged_start(w.start_ts, w.end_ts, hq->lines_resolution, hq->max_unlogged);
        w.ms = (double)(w.end_ts - w.start_ts) / LS_US_PER_MS;
        ls_stmt_bind_text(ins, RW(kind), "inferred");
        ls_stmt_bind_double(ins, RW(logged_ms), 0.0);
        stats->hidden_waits++;
    }
    ls_stmt_bind_int64(ins, RW(row_id), ls_stmt_int64(f, fl_row_id));
    ls_stmt_bind_int64(ins, RW(tx_id), ls_stmt_int64(f, fl_tx_id));
    ls_stmt_bind_int64(ins, RW(session_id), ls_stmt_int64(f, fl_session_id));
    ls_stmt_bind_int64(ins, RW(pid), ls_stmt_int64(f, fl_pid));
    ls_stmt_bind_int64(ins, RW(stmt_id), ls_stmt_int64(f, fl_stmt_id));
    ls_stmt_bind_int64(ins, RW(start_ts), w.start_ts);
    ls_stmt_bind_int64(ins, RW(end_ts), w.end_ts);
    ls_stmt_bind_double(ins, RW(wait_ms), w.ms);
    ls_stmt_bind_int64(ins, RW(behind_hold), hold_id[rec.behind]);
    if (tx_id[rec.behind])
        ls_stmt_bind_int64(ins, RW(behind_tx), tx_id[rec.behind]);
    ls_stmt_bind_double(ins, RW(inferred_ms), inferred_ms);
    if ((rc = ls_stmt_step(ins)) < 0)
        return rc;
    ls_stmt_reset(done);
    if ((rc = ls_stmt_bind_int64(done, LS_PARAM(frp, tx), ls_stmt_int64(f, fl_tx_id))) != 0 ||
        (rc = ls_stmt_bind_int64(done, LS_PARAM(frp, row), ls_stmt_int64(f, fl_row_id))) != 0)
        return rc;
    rc = ls_stmt_step(done);
    return rc < 0 ? rc : 0;
}

/* Whether ls_queue_same_second() and ls_failed_wait_same_second() can
 * find anything: a whole-second log with a logged wait to bound the
 * unlogged ones (they return 0 otherwise), so whether the holds scan and
 * the failed locks' read the log positions they need. */
static int need_positions(const hidden_q *hq)
{
    return hq->lines_resolution >= LS_WHOLE_SECOND_US && hq->max_unlogged > 0;
}

/* Every failed lock's wait (failed_locks_sql), into row_waits; their
 * (transaction, row) into temp.failed_rows, which failed_waits_sql reads
 * and drops. */
static int failed_waits(ls_store *s, const hidden_q *hq, ls_correlate_stats *stats)
{
    ls_stmt *f = NULL, *hs = NULL, *done = NULL, *ins = hq->ins;
    int rc;
    if ((rc = ls_store_exec(s, failed_rows_table_sql)) == 0 &&
        (rc = ls_store_prepare(s, need_positions(hq) ? failed_locks_sql : failed_locks_nopos_sql,
                               &f)) == 0 &&
        (rc = ls_store_prepare_params(s,
                                      need_positions(hq) ? failed_held_sql : failed_held_nopos_sql,
                                      LS_PARAM_NAMES(FAILED_HELD_PARAMS), &hs)) == 0 &&
        (rc = ls_store_prepare_params(s, failed_row_sql, LS_PARAM_NAMES(FAILED_ROW_PARAMS),
                                      &done)) == 0)
        while ((rc = ls_stmt_step(f)) == 1 && (rc = failed_wait(f, hs, ins, done, hq, stats)) == 0)
            ;
    ls_stmt_finalize(f);
    ls_stmt_finalize(hs);
    ls_stmt_finalize(done);
    return rc < 0 ? rc : 0;
}

/* Whether any hold's start is ls_queue_hold_start()'s to decide (the log
 * has no end of its locking statement), so whether the holds scan reads
 * the locking statements' text for their lock strength. */
static const char strength_sql[] =
    "SELECT EXISTS (SELECT 1 FROM hold_evidence WHERE text IN (" QUEUED_BY_END "))";

/* Read the evidence ids the scan compares (evidence_ids_sql) into ev,
 * and bind them to the whole stream (scan). */
static int bind_evidence_ids(ls_store *s, ls_stmt *scan, evidence_ids *ev)
{
    static const int param[EV__COUNT] = {LS_PARAM(hp, no_duration_b), LS_PARAM(hp, no_duration_h),
                                         LS_PARAM(hp, acquired_b),    LS_PARAM(hp, acquired_h),
                                         LS_PARAM(hp, span_lb),       LS_PARAM(hp, span_sb),
                                         LS_PARAM(hp, span_ob),       LS_PARAM(hp, span_lh),
                                         LS_PARAM(hp, span_sh),       LS_PARAM(hp, span_oh)};
    ls_stmt *q = NULL;
    int rc = ls_store_prepare_params(s, evidence_ids_sql, LS_PARAM_NAMES(EVIDENCE_IDS_PARAMS), &q);
    int i;
    memset(ev, 0, sizeof(*ev));
    if (rc != 0)
        return rc;
    if ((rc = ls_stmt_bind_text(q, LS_PARAM(eip, logged), LS_SPAN_LOGGED_START)) == 0 &&
        (rc = ls_stmt_bind_text(q, LS_PARAM(eip, lock), LS_SPAN_LOCK_START)) == 0 &&
        (rc = ls_stmt_bind_text(q, LS_PARAM(eip, only), LS_SPAN_ONLY_START)) == 0)
        rc = ls_stmt_step(q);
    if (rc == 1)
        for (i = 0, rc = 0; rc == 0 && i < EV__COUNT; i++)
            if ((ev->has[i] = !ls_stmt_isnull(q, i)) != 0) {
                ev->id[i] = ls_stmt_int64(q, i);
                rc = ls_stmt_bind_int64(scan, param[i], ev->id[i]);
            }
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

/* Prepare the narrow stream (narrow_sql) for hq: with the log positions
 * where need_positions(), by end where strength. */
static int prepare_narrow(ls_store *s, hidden_q *hq, int strength)
{
    const char *sql = narrow_sql[need_positions(hq)][strength != 0];
    int rc;
    hq->narrow_pos = need_positions(hq);
    hq->narrow_text = hq->narrow_pos || strength;
    if (!strength)
        return ls_store_prepare(s, sql, &hq->nq);
    if ((rc = ls_store_prepare_params(s, sql, LS_PARAM_NAMES(NARROW_PARAMS), &hq->nq)) != 0)
        return rc;
    if (hq->ev.has[EV_NO_DURATION_H] &&
        (rc = ls_stmt_bind_int64(hq->nq, LS_PARAM(np, no_duration_h),
                                 hq->ev.id[EV_NO_DURATION_H])) != 0)
        return rc;
    if (hq->ev.has[EV_ACQUIRED_H])
        rc = ls_stmt_bind_int64(hq->nq, LS_PARAM(np, acquired_h), hq->ev.id[EV_ACQUIRED_H]);
    return rc;
}

/* Step stream k of the scan (0 the whole, 1 the narrow) and read its hold
 * into h[k]; live[k] 1 while it has one. Below 0 a store error. */
static int scan_next(const hidden_q *hq, int k, held *h, int *live)
{
    ls_stmt *q = k ? hq->nq : hq->q;
    int rc = ls_stmt_step(q);
    if (rc < 0)
        return rc;
    live[k] = rc == 1;
    if (live[k]) {
        if (k)
            held_narrow(hq, q, &h[k]);
        else
            held_whole(hq, q, &h[k]);
    }
    return 0;
}

int ls_correlate_hidden(ls_store *s, ls_correlate_stats *stats)
{
    hidden_q hq;
    ring *r = ls_calloc(1, sizeof(*r));
    row_span span = {-1, 0, 0, 0, 0};
    held h[2];
    int live[2] = {0, 0};
    int64_t row = -1;
    int rc, sorting = 0, strength = 0;

    memset(&hq, 0, sizeof(hq));
    if (!r)
        return LS_ENOMEM;
    if ((rc = log_resolution(s, resolution_sql, &hq.resolution)) != 0 ||
        (rc = log_resolution(s, lines_resolution_sql, &hq.lines_resolution)) != 0 ||
        /* only whole seconds read it (ls_hidden_unlogged_start(),
         * need_positions()): with milliseconds it stays 0, unread */
        (hq.lines_resolution >= LS_WHOLE_SECOND_US &&
         (rc = ls_correlate_unlogged_bound(s, &hq.max_unlogged)) != 0) ||
        (rc = ls_correlate_flag(s, strength_sql, &strength)) != 0 ||
        (rc = ls_store_exec(s, moved_table_sql)) != 0 ||
        (rc = ls_store_exec(s, spans_table_sql)) != 0 ||
        (rc = ls_store_sorting(s, sorting = 1)) != 0 ||
        /* the logged waits' stamps are their lines' */
        (rc = ls_store_exec(s, hq.lines_resolution >= LS_WHOLE_SECOND_US ? logged_table_sql
                                                                         : logged_table_ms_sql)) !=
            0 ||
        (rc = ls_store_exec(s, special_sql)) != 0 ||
        (rc = ls_store_prepare_params(s, need_positions(&hq) ? holds_sql : holds_nopos_sql,
                                      LS_PARAM_NAMES(HOLDS_PARAMS), &hq.q)) != 0 ||
        (rc = bind_evidence_ids(s, hq.q, &hq.ev)) != 0 ||
        (rc = ls_stmt_bind_int64(hq.q, LS_PARAM(hp, strength), strength)) != 0 ||
        (rc = ls_stmt_bind_int64(hq.q, LS_PARAM(hp, spanres),
                                 hq.spanres = hq.resolution < hq.lines_resolution)) != 0 ||
        (rc = prepare_narrow(s, &hq, strength)) != 0 ||
        (rc = ls_store_prepare_params(s, detail_sql, LS_PARAM_NAMES(DETAIL_PARAMS), &hq.det)) !=
            0 ||
        (rc = ls_store_prepare_params(s, evidence_text_sql, LS_PARAM_NAMES(EVIDENCE_TEXT_PARAMS),
                                      &hq.evt)) != 0 ||
        (rc = ls_store_prepare(s, insert_sql, &hq.ins)) != 0 ||
        (rc = ls_store_prepare_params(s, move_hold_sql, LS_PARAM_NAMES(MOVE_HOLD_PARAMS),
                                      &hq.mv)) != 0 ||
        (rc = ls_store_prepare_params(s, span_insert_sql, LS_PARAM_NAMES(SPAN_INSERT_PARAMS),
                                      &hq.ut)) != 0 ||
        (rc = scan_next(&hq, 0, h, live)) != 0 || (rc = scan_next(&hq, 1, h, live)) != 0)
        goto out;
    /* the two streams merged in HOLDS_FROM's order */
    while (live[0] || live[1]) {
        int k = live[0] && (!live[1] || hold_before(&h[0], &h[1])) ? 0 : 1;
        if (h[k].row_id != row) {
            row = h[k].row_id;
            r->n = r->next = 0;
            if ((rc = span_flush(hq.ut, &span)) != 0)
                goto out;
            memset(&span, 0, sizeof(span));
            span.row_id = row;
        }
        if ((rc = scan_hold(&hq, r, &span, &h[k], stats)) != 0 ||
            (rc = scan_next(&hq, k, h, live)) != 0)
            goto out;
    }
    rc = span_flush(hq.ut, &span);
    ls_stmt_finalize(hq.q);
    ls_stmt_finalize(hq.nq);
    ls_stmt_finalize(hq.mv);
    hq.q = hq.nq = hq.mv = NULL;
    if (rc == 0)
        rc = ls_store_exec(s, "DROP TABLE temp.hidden_special;"
                              "CREATE INDEX IF NOT EXISTS row_waits_row ON row_waits(row_id);");
    if (rc == 0)
        rc = ls_store_sorting(s, sorting = 0);
    if (rc == 0)
        rc = ls_store_exec(s, apply_moves_sql);
    if (rc == 0)
        rc = failed_waits(s, &hq, stats);
    if (rc == 0)
        rc = ls_store_exec(s, failed_waits_sql);
    if (rc == 0)
        rc = ls_store_exec(s, stats_sql);
out:
    if (sorting)
        ls_store_sorting(s, 0);
    ls_stmt_finalize(hq.q);
    ls_stmt_finalize(hq.nq);
    ls_stmt_finalize(hq.det);
    ls_stmt_finalize(hq.evt);
    ls_stmt_finalize(hq.ins);
    ls_stmt_finalize(hq.mv);
    ls_stmt_finalize(hq.ut);
    free(r);
    return rc < 0 ? rc : 0;
}
