/*
 * final.c — the final holds and rows pass: each hold and each row's
 * totals as the last pass that decided them left them, written once into
 * a table of this pass's own (hold_final, row_final; store_schema.h).
 *
 * A hold is decided by three passes, each in its own table keyed by
 * hold_id (one writer per table, issue 33): transactions and holds
 * (hold_rows), holds waited for (hold_bounds: bounds and totals of a hold
 * others waited for) and hidden waits (hold_queued: a start moved to when
 * the hold before it ended). A row's totals come from holds waited for
 * (row_holds), hidden waits (row_hidden) and queue depth
 * (row_queue_peaks). Readers saw them through views that looked each
 * column up in each table: a column computed so cannot walk an index, and
 * the code paths, findings and report read the holds many times over.
 * This pass runs after the last of those passes: it copies every hold
 * whole once, then writes again, joined, the few a later pass decided
 * about (most holds no later pass touches); the views holds and rows
 * read its tables.
 *
 * What it decides is only which pass wins for a column, as the views did:
 * the hidden waits pass's start, else the holds waited for pass's value
 * (never NULL where hold_rows' is not), else the transactions pass's. A
 * bound stored NULL is equal to its time, here as in hold_rows (a hold
 * has four, and a store hundreds of thousands of holds).
 */
#include "corr_tables.h"
#include "correlate_int.h"

/* The start evidence of a hold in hold_queued (the hidden waits pass). */
#define QUEUED_EVIDENCE "'the hold before it ended (statement queued)'"

/* SQL: the id in hold_final_evidence of the queued start.
 * hold_final_evidence keeps hold_evidence's ids (most holds are as the
 * transactions pass left them: theirs is taken as it is); the few texts
 * only the later passes give are added after them. A bound_evidence id's
 * is looked up in temp.final_bound_evidence (copy_holds_sql: each of the
 * pass's few texts matched once, not a text compare and two lookups for
 * each bound of each hold a later pass decided: 230 VM steps a hold at
 * both sizes, 2.16 M at 1 GiB). */
#define FINAL_QUEUED \
    "(SELECT e.evidence_id FROM hold_final_evidence e WHERE e.text = " QUEUED_EVIDENCE ")"

/* SQL: hold h's column COL: hold_bounds b's when it has one, else
 * hold_rows h's. */
#define BOUND(COL) "coalesce(b." COL ", h." COL ")"

/* SQL: a bound COL (start_lo, ...) of hold h as a time: hold_bounds b's,
 * else hold_rows h's, a NULL bound being its time TS. */
#define BOUND_TS(COL, TS) "coalesce(b." COL ", b." TS ", h." COL ", h." TS ")"

/* SQL: hold h's start: the hidden waits pass's, else as BOUND. */
#define START_TS "coalesce(q.start_ts, " BOUND("start_ts") ")"

/*
 * Every hold as the transactions pass left it, copied whole: hold_final
 * has hold_rows' columns in hold_rows' order (store_schema.h), its
 * evidence ids are hold_final_evidence's, and both store a bound equal to
 * its time as NULL, so SQLite copies each record as it is (the transfer
 * optimization of INSERT INTO ... SELECT *: no column is decoded; issue
 * 38, where joining every hold to the two later passes' tables cost 146
 * VM steps a hold). hold_final is empty here (the pass's clear), and
 * its two indexes on every hold are made empty first with the columns of
 * hold_rows' holds_row and holds_tx_row (LS_HOLDS_ROW_KEY,
 * LS_HOLDS_TX_KEY): the transfer then copies their entries too, in
 * order, not a sort of every hold for each after the copy (9.4 M of the
 * pass's 16.4 M VM steps at 1 GiB, and most of its CPU). Were hold_rows
 * without them, SQLite would insert each hold and its entries one by
 * one: the same table, slower. The partial indexes are made after
 * (final_hold_index_sql): the transfer takes none unless it can take all.
 */
static const char copy_holds_sql[] =
    /* Every evidence text a hold may have, once. */
    "INSERT INTO hold_final_evidence(" LS_COLUMN_NAMES(hold_final_evidence) ")"
    " SELECT evidence_id, text"
    " FROM hold_evidence ORDER BY evidence_id;"
    "INSERT OR IGNORE INTO hold_final_evidence(text) SELECT text FROM bound_evidence"
    " UNION SELECT " QUEUED_EVIDENCE ";"
    /* copied with the holds from hold_rows' holds_row and holds_tx_row */
    "CREATE INDEX IF NOT EXISTS hold_final_row ON hold_final" LS_HOLDS_ROW_KEY ";"
    "CREATE INDEX IF NOT EXISTS hold_final_tx ON hold_final" LS_HOLDS_TX_KEY ";"
    "INSERT INTO hold_final SELECT * FROM temp.hold_rows;"
    /* Each bound_evidence id's hold_final_evidence id (final_holds_sql). */
    "CREATE TEMP TABLE IF NOT EXISTS final_bound_evidence(bound_id INTEGER PRIMARY KEY,"
    " final_id INTEGER); DELETE FROM temp.final_bound_evidence;"
    "INSERT INTO temp.final_bound_evidence(bound_id, final_id) SELECT b.evidence_id,"
    " e.evidence_id FROM bound_evidence b JOIN hold_final_evidence e ON e.text = b.text;";

/* SQL: the holds a later pass decided about (the few others waited for,
 * and those whose start the hidden waits pass moved). */
#define DECIDED_LATER "SELECT hold_id FROM hold_bounds UNION SELECT hold_id FROM hold_queued"

/* The holds a later pass decided about, written again over their copy. */
static const char final_holds_sql[] =
    "INSERT OR REPLACE INTO hold_final(" LS_COLUMN_NAMES(hold_final) ")"
    " SELECT h.hold_id, h.row_id, h.tx_id, h.session_id, h.pid,"
    "  " START_TS ", nullif(coalesce(q.start_lo, q.start_ts, " BOUND_TS("start_lo", "start_ts")
    "), " START_TS "),"
    "  nullif(coalesce(q.start_ts, " BOUND_TS("start_hi", "start_ts") "), " START_TS "),"
    "  CASE WHEN q.hold_id IS NOT NULL THEN " FINAL_QUEUED
    "   WHEN b.start_evidence IS NOT NULL THEN sv.final_id"
    "   ELSE h.start_evidence END,"
    "  " BOUND("end_ts") ", nullif(" BOUND_TS("end_lo", "end_ts") ", " BOUND("end_ts") "),"
    "  nullif(" BOUND_TS("end_hi", "end_ts") ", " BOUND("end_ts") "),"
    "  CASE WHEN b.end_evidence IS NOT NULL THEN ev.final_id"
    "   ELSE h.end_evidence END,"
    "  " BOUND("lock_stmt") ", " BOUND("waits") ", " BOUND("waiter_ms") ", h.max_queue,"
    "  " BOUND("contended_ms") ", " BOUND("sql_ms") ", " BOUND("idle_ms") ","
    "  " BOUND("commit_ms") ", " BOUND("head_state") ", " BOUND("observed_state") ","
    "  " BOUND("observed_samples")
    " FROM hold_rows h LEFT JOIN hold_bounds b ON b.hold_id = h.hold_id"
    " LEFT JOIN hold_queued q ON q.hold_id = h.hold_id"
    " LEFT JOIN temp.final_bound_evidence sv ON sv.bound_id = b.start_evidence"
    " LEFT JOIN temp.final_bound_evidence ev ON ev.bound_id = b.end_evidence"
    " WHERE h.hold_id IN (" DECIDED_LATER ") ORDER BY h.hold_id;";

/* What the readers search by: a row's holds in time order (the report's
 * timelines, requests, row totals) and their transactions (the findings'
 * serial capacity: the index covers it, where a visit of the table per
 * hold took most of the findings pass at 1 GiB) and ends (the code paths'
 * row cover, cover.c: read in the index's order, where a sort of every
 * hold was 11.1 M of the pass's 52 M VM steps at 1 GiB), hold_final_row,
 * and a transaction's holds (root blockers, the lock orders, the counter
 * rule's probe of a waiter's hold), hold_final_tx, both copied with the
 * holds (copy_holds_sql); here the holds with a head state (the findings'
 * idle-in-transaction and commit heads: 2 % of the holds at 1 GiB, where a
 * scan of every hold was 3.4 M and 1.3 M VM steps; the partial index
 * costs 1.4 M to make), the holds waited for in hold order (the code
 * paths' hold parts, the findings' external calls, the report's: the
 * same 2 %, read in the order a scan of the table gave them; with their
 * rows and waits, it alone covers the report's count of them, where
 * hold_final_row, which covers them too since it has waits, was a scan
 * of every hold: 1.26 M VM steps at 1 GiB). Made after the holds a
 * later pass decided are written. */
static const char final_hold_index_sql[] =
    "CREATE INDEX IF NOT EXISTS hold_final_head ON hold_final(head_state)"
    " WHERE head_state IS NOT NULL;"
    "CREATE INDEX IF NOT EXISTS hold_final_waited ON hold_final(hold_id, row_id, waits)"
    " WHERE waits > 0;";

/* Every logical row, its totals 0 where no pass had any (as the view rows
 * gave them before this pass). */
static const char final_rows_sql[] =
    "INSERT INTO row_final(" LS_COLUMN_NAMES(row_final) ")"
    " SELECT k.row_id, coalesce(rh.holds, 0), rh.mean_hold_ms, rh.capacity_per_s,"
    "  p.max_queue, p.max_queue_ts, coalesce(rh.occupancy_holds, 0), rh.occupied_ms,"
    "  coalesce(x.hidden_wait_ms, 0.0), coalesce(x.logged_wait_ms, 0.0),"
    "  coalesce(x.waited_statements, 0), x.utilisation"
    " FROM row_keys k LEFT JOIN row_holds rh ON rh.row_id = k.row_id"
    " LEFT JOIN row_queue_peaks p ON p.row_id = k.row_id"
    " LEFT JOIN row_hidden x ON x.row_id = k.row_id ORDER BY k.row_id;";

int ls_correlate_final(ls_store *s, ls_correlate_stats *stats)
{
    int rc;

    (void)stats;
    if ((rc = ls_store_exec(s, copy_holds_sql)) != 0 ||
        (rc = ls_store_exec(s, final_holds_sql)) != 0 ||
        (rc = ls_store_exec_sorting(s, final_hold_index_sql)) != 0)
        return rc;
    return ls_store_exec(s, final_rows_sql);
}
