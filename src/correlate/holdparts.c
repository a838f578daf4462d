/*
 * holdparts.c — each hold others waited for, its time split into parts
 * (hold_parts; part of the code paths pass, after the span anchors):
 * time in the non-database children of the transaction's anchor span,
 * in SQL and in COMMIT from the statement log, and the rest, idle in
 * transaction that no span explains.
 *
 * A transaction's statements are its session's within its stmt_id range
 * (first_stmt to last_stmt); ids are log order, so the range holds every
 * other session's statements logged meanwhile, a thousand and more for a
 * transaction that waited. Reading each hold's range through the
 * statements view cost 44.6 M VM steps at 1 GiB (issue 38), overlapping
 * ranges read again for each hold. The sweep reads the ids and sessions
 * of the union of the ranges once, in id order, and notes each statement
 * of an open hold's session as a (hold, statement) pair in a TEMP table;
 * the sums are then taken by SQL over the pairs alone, the same
 * expressions over the same rows in the same order as before.
 */
#include <stdlib.h>
#include <string.h>

#include "corr_tables.h"
#include "correlate_int.h"
#include "ls_columns.h"
#include "ls_params.h"
#include "tx_end.h"

/* Non-database children of the transaction's anchor (spans.c: the
 * nearest non-database, non-client span up from its code span or linked
 * span), overlapping the hold. Only for holds others waited for: the
 * breakdowns and findings read those (a log has hundreds of thousands of
 * holds nobody waited for); on a row whose every wait was rebuilt, those
 * a rebuilt wait queued behind (LS_HOLDS_WAITED_SQL: the external-call
 * rule reads their spans, samples/blind-zk). Their SQL, COMMIT and idle
 * parts below stay those of holds with a logged wait: the idle rule
 * reckons the others' idle time from the log (decide/idlegap.h). */
static const char span_parts_sql[] =
    "INSERT INTO hold_parts(" LS_COLUMN_NAMES(hold_parts) ")"
    " SELECT h.hold_id, 'span', ch.name, sum(max(0, min(h.end_ts, ch.end_ts + c.offset_us)"
    "   - max(h.start_ts, ch.start_ts + c.offset_us))) / 1000.0"
    " FROM " LS_HOLDS_WAITED_SQL " h JOIN tx_code c ON c.tx_id = h.tx_id"
    " JOIN tx_anchor a ON a.tx_id = h.tx_id JOIN spans cs ON cs.span_row = a.span_row"
    " JOIN spans ch ON ch.trace_id = cs.trace_id AND ch.parent_id = cs.span_id"
    " WHERE ch.db_statement IS NULL AND ch.db_system IS NULL"
    "  AND ch.end_ts + c.offset_us > h.start_ts AND ch.start_ts + c.offset_us < h.end_ts"
    " GROUP BY h.hold_id, ch.name;"
    "CREATE TEMP TABLE IF NOT EXISTS hold_stmts(hold_id INTEGER, stmt_id INTEGER,"
    " PRIMARY KEY (hold_id, stmt_id)) WITHOUT ROWID; DELETE FROM temp.hold_stmts;";

/* The holds others waited for, by their transactions' first statements
 * (the sweep reads the statements once, in id order). */
#define WAITED_COLS(X, Q)                \
    X(Q, hold_id, "h.hold_id")           \
    X(Q, session_id, "t.session_id")     \
    X(Q, first_stmt, "t.first_stmt")     \
    X(Q, last_stmt, "t.last_stmt")
LS_COLUMNS(wh, WAITED_COLS);
static const char waited_sql[] =
    "SELECT " LS_SELECT_LIST(wh, WAITED_COLS)
    " FROM holds h CROSS JOIN transactions t ON t.tx_id = h.tx_id"
    " WHERE h.waits > 0 AND t.first_stmt IS NOT NULL AND t.last_stmt IS NOT NULL"
    " ORDER BY t.first_stmt, h.hold_id";
enum { SW_STMT_ID, SW_SESSION };
static const char sweep_ids_sql[] =
    "SELECT stmt_id, session_id FROM stmt_rows WHERE stmt_id BETWEEN :lo AND :hi ORDER BY stmt_id";
#define SWEEP_IDS_PARAMS(X, Q) X(Q, lo) X(Q, hi)
LS_PARAMS(swp, SWEEP_IDS_PARAMS);
static const char pair_sql[] =
    "INSERT INTO temp.hold_stmts(hold_id, stmt_id) VALUES (:hold, :stmt)";
#define PAIR_PARAMS(X, Q) X(Q, hold) X(Q, stmt)
LS_PARAMS(pp, PAIR_PARAMS);

/* The holder's statements overlapping the hold, SQL and COMMIT (a row's
 * parse and bind lines, folded into it, ran just before it); then what
 * remains, idle in transaction that no span explains. The pairs are read
 * in (hold, statement) order, as the statements were by each hold; the
 * subquery (a co-routine: LIMIT keeps it from being flattened) reads each
 * statement's text once, where the two tests of the text read it up to
 * eight times (142 VM steps a pair). The pairs from `pairs`: the
 * sweep's temp.hold_stmts, or the holds pass's temp.waited_stmts when
 * they are every pair (read where they are, not copied: 0.25 M VM steps
 * at 1 GiB). */
#define STMT_PARTS_SQL(pairs)                                                              \
    "INSERT INTO hold_parts(" LS_COLUMN_NAMES(hold_parts) ")"                              \
    " SELECT hold_id, CASE WHEN " LS_TX_END("u") " THEN 'commit' ELSE 'sql' END,"          \
    "  CASE WHEN " LS_TX_END("u") " THEN 'COMMIT' ELSE 'SQL' END, sum(v) / 1000.0"         \
    " FROM (SELECT h.hold_id AS hold_id, upper(ltrim(st.text)) AS u,"                      \
    "  max(0, min(h.end_ts, st.end_ts) - max(h.start_ts, st.start_ts"                      \
    "   - coalesce(st.bind_ms, 0) * 1000 - coalesce(st.parse_ms, 0) * 1000)) AS v"         \
    "  FROM " pairs " p CROSS JOIN holds h ON h.hold_id = p.hold_id"                       \
    "  CROSS JOIN statements st ON st.stmt_id = p.stmt_id AND st.end_ts IS NOT NULL"       \
    "  LIMIT -1)"                                                                          \
    " GROUP BY hold_id, 2;"                                                                \
    "DELETE FROM " pairs ";"                                                               \
    "CREATE INDEX IF NOT EXISTS hold_parts_hold ON hold_parts(hold_id);"                   \
    "INSERT INTO hold_parts(" LS_COLUMN_NAMES(hold_parts) ")"                              \
    " SELECT h.hold_id, 'idle', 'idle in transaction, no span',"                           \
    "  max(0, (h.end_ts - h.start_ts) / 1000.0"                                            \
    "  - coalesce((SELECT sum(ms) FROM hold_parts p WHERE p.hold_id = h.hold_id), 0))"     \
    " FROM hold_final h INDEXED BY hold_final_waited JOIN transactions t ON t.tx_id = h.tx_id" \
    " WHERE t.sql_ms IS NOT NULL AND h.waits > 0;"
static const char stmt_parts_sql[] = STMT_PARTS_SQL("temp.hold_stmts");
static const char stmt_parts_kept_sql[] = STMT_PARTS_SQL("temp.waited_stmts");

/* A waited hold whose transaction's range the sweep is in. */
typedef struct part_hold {
    int64_t hold_id, session_id, last_stmt;
} part_hold;

/* The sweep: its queries, its open holds; it has read every statement
 * below `next`. */
typedef struct part_sweep {
    ls_stmt *ids, *pair;
    part_hold *open;
    size_t nopen, cap;
    int64_t next;
} part_sweep;

/* Open a hold (q at a row of waited_sql); LS_ENOMEM when it cannot be. */
static int sweep_open(part_sweep *sw, ls_stmt *q)
{
    part_hold *h;

    if (sw->nopen == sw->cap) {
        size_t cap = sw->cap ? 2 * sw->cap : 16;
        part_hold *v = ls_realloc(sw->open, cap * sizeof(*v));
        if (!v)
            return LS_ENOMEM;
        sw->open = v;
        sw->cap = cap;
    }
    h = &sw->open[sw->nopen++];
    h->hold_id = ls_stmt_int64(q, wh_hold_id);
    h->session_id = ls_stmt_int64(q, wh_session_id);
    h->last_stmt = ls_stmt_int64(q, wh_last_stmt);
    return 0;
}

/* Statement `id` of session `session`: a pair with every open hold of the
 * session whose range holds it. */
static int sweep_statement(part_sweep *sw, int64_t id, int64_t session)
{
    size_t i;
    int rc;

    for (i = 0; i < sw->nopen; i++) {
        const part_hold *h = &sw->open[i];
        if (h->session_id != session || id > h->last_stmt)
            continue;
        ls_stmt_reset(sw->pair);
        if ((rc = ls_stmt_bind_int64(sw->pair, LS_PARAM(pp, hold), h->hold_id)) != 0 ||
            (rc = ls_stmt_bind_int64(sw->pair, LS_PARAM(pp, stmt), id)) != 0 ||
            (rc = ls_stmt_step(sw->pair)) < 0)
            return rc < 0 ? rc : LS_ESTORE;
    }
    return 0;
}

/* Drop every open hold whose last statement is below `next`. */
static void sweep_close(part_sweep *sw)
{
    size_t i = 0;
    while (i < sw->nopen) {
        if (sw->open[i].last_stmt >= sw->next)
            i++;
        else
            sw->open[i] = sw->open[--sw->nopen];
    }
}

/*
 * Read the statements from `next` to `limit` (INT64_MAX: to the last of
 * the open holds) into the open holds, dropping each once its last is
 * read; with no hold open, nothing is read and `next` moves past limit.
 * Each statement is read at most once by the whole sweep.
 */
static int sweep_to(part_sweep *sw, int64_t limit)
{
    int rc = 0;

    while (sw->nopen && sw->next <= limit) {
        int64_t hi = limit;
        size_t i;
        for (i = 0; i < sw->nopen; i++)
            if (sw->open[i].last_stmt < hi)
                hi = sw->open[i].last_stmt;
        ls_stmt_reset(sw->ids);
        if ((rc = ls_stmt_bind_int64(sw->ids, LS_PARAM(swp, lo), sw->next)) != 0 ||
            (rc = ls_stmt_bind_int64(sw->ids, LS_PARAM(swp, hi), hi)) != 0)
            return rc;
        while ((rc = ls_stmt_step(sw->ids)) == 1)
            if ((rc = sweep_statement(sw, ls_stmt_int64(sw->ids, SW_STMT_ID),
                                      ls_stmt_int64(sw->ids, SW_SESSION))) != 0)
                return rc;
        if (rc < 0)
            return rc;
        ls_stmt_reset(sw->ids);
        sw->next = hi + 1;
        sweep_close(sw);
    }
    if (!sw->nopen && sw->next <= limit)
        sw->next = limit == INT64_MAX ? limit : limit + 1;
    return 0;
}

/* Every waited hold's statements as pairs in temp.hold_stmts: each hold
 * opened at its transaction's first statement, dropped after its last. */
static int sweep_pairs(ls_store *s)
{
    part_sweep sw;
    ls_stmt *q = NULL;
    int rc;

    memset(&sw, 0, sizeof(sw));
    if ((rc = ls_store_prepare(s, waited_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, sweep_ids_sql, LS_PARAM_NAMES(SWEEP_IDS_PARAMS),
                                      &sw.ids)) != 0 ||
        (rc = ls_store_prepare_params(s, pair_sql, LS_PARAM_NAMES(PAIR_PARAMS), &sw.pair)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        int64_t first = ls_stmt_int64(q, wh_first_stmt);
        if ((first > 0 && (rc = sweep_to(&sw, first - 1)) != 0) ||
            (rc = sweep_open(&sw, q)) != 0)
            goto out;
    }
    if (rc == 0)
        rc = sweep_to(&sw, INT64_MAX);
out:
    free(sw.open);
    ls_stmt_finalize(q);
    ls_stmt_finalize(sw.ids);
    ls_stmt_finalize(sw.pair);
    return rc < 0 ? rc : 0;
}

/* The holds waited for pass's pairs (LS_WAITED_STMTS_DDL), when they are
 * there and every hold of waited_sql is among its holds with the same
 * session and range: a hold's pairs are every statement of its session
 * in its range, whatever other holds the sweep had open, so they are
 * this sweep's. Counted in one scan of the holds waited for: the holds,
 * those the pass paired alike, and the holds it paired. */
static const char waited_kept_sql[] =
    "SELECT count(*) = 2 FROM temp.sqlite_master WHERE type = 'table'"
    " AND name IN ('waited_swept', 'waited_stmts')";
/* waited_sql's holds (hold_id, tx_id and waits are hold_final's own
 * columns in the view holds), by the index of the holds waited for: with
 * no ORDER BY the planner scanned hold_final_tx, every hold (1.5 M VM
 * steps at 1 GiB). */
#define WAITED_HOLDS                                                                       \
    " FROM hold_final h INDEXED BY hold_final_waited"                                      \
    " CROSS JOIN transactions t ON t.tx_id = h.tx_id"                                      \
    " WHERE h.waits > 0 AND t.first_stmt IS NOT NULL AND t.last_stmt IS NOT NULL"
#define WAITED_HOLDS_SWEPT                                                                 \
    " FROM hold_final h INDEXED BY hold_final_waited"                                      \
    " CROSS JOIN transactions t ON t.tx_id = h.tx_id"                                      \
    " LEFT JOIN temp.waited_swept w ON w.hold_id = h.hold_id"                              \
    " WHERE h.waits > 0 AND t.first_stmt IS NOT NULL AND t.last_stmt IS NOT NULL"
enum { WS_HOLDS, WS_ALIKE, WS_PAIRED };
static const char waited_same_sql[] =
    "SELECT count(*), total(w.session_id = coalesce(t.session_id, 0)"
    " AND w.first_stmt = t.first_stmt AND w.last_stmt = t.last_stmt),"
    " (SELECT count(*) FROM temp.waited_swept)" WAITED_HOLDS_SWEPT;
/* The same holds: every pair, read where it is (stmt_parts_kept_sql);
 * more: those of waited_sql's holds. */
static const char waited_pairs_sql[] =
    "INSERT INTO temp.hold_stmts(hold_id, stmt_id) SELECT p.hold_id, p.stmt_id"
    " FROM temp.waited_stmts p WHERE p.hold_id IN (SELECT h.hold_id" WAITED_HOLDS ")";
static const char waited_drop_sql[] = LS_WAITED_STMTS_DROP;

/* Every waited hold's statements as pairs: the holds pass's when they
 * serve (waited_same_sql), else swept into temp.hold_stmts; *parts_sql
 * is the hold parts' SQL that reads them. */
static int hold_pairs(ls_store *s, const char **parts_sql)
{
    int64_t holds = 0, alike = -1, paired = 0;
    ls_stmt *q = NULL;
    int kept = 0, rc;

    *parts_sql = stmt_parts_sql;
    if ((rc = ls_correlate_flag(s, waited_kept_sql, &kept)) != 0)
        return rc;
    if (kept) {
        if ((rc = ls_store_prepare(s, waited_same_sql, &q)) != 0)
            return rc;
        if ((rc = ls_stmt_step(q)) == 1) {
            holds = ls_stmt_int64(q, WS_HOLDS);
            alike = (int64_t)ls_stmt_double(q, WS_ALIKE);
            paired = ls_stmt_int64(q, WS_PAIRED);
        }
        ls_stmt_finalize(q);
        if (rc < 0)
            return rc;
    }
    if (alike == holds && paired == holds) {
        *parts_sql = stmt_parts_kept_sql;
        return 0;
    }
    if (alike == holds)
        return ls_store_exec(s, waited_pairs_sql);
    return sweep_pairs(s);
}

int ls_correlate_hold_parts(ls_store *s)
{
    const char *parts_sql = NULL;
    int rc;

    if ((rc = ls_store_exec(s, span_parts_sql)) != 0 || (rc = hold_pairs(s, &parts_sql)) != 0 ||
        (rc = ls_store_exec(s, parts_sql)) != 0)
        return rc;
    return ls_store_exec(s, waited_drop_sql);
}
