/*
 * requests.c — the slowest requests of the traces, and how much of each
 * was queueing for row locks: logged waits and the hidden ones rebuilt
 * from the holds (row_waits), behind which code path and row; and the
 * same view, wait by wait, for each request named with --trace-id.
 *
 * A request is a trace's root span (no parent in the export); its
 * transactions are those linked to the trace (tx_code.trace_id).
 */
#include <stdio.h>

#include "model_int.h"

/*
 * Whom the waits of q waited behind: each hold of the row by another
 * transaction, for the part of the wait it covered (holds of a row do not
 * overlap). A wait queued behind several holds waited mostly behind the
 * one that covered most of it, not the one that had the row when it
 * started (row_waits.behind_tx: on samples/hidden-traces that names the
 * wrong code path for 7 of the 77 requests that waited 100 ms or more,
 * this none); a wait no known hold covers counts whole for behind_tx.
 */
/* The holds that may cover a wait start at most its row's longest hold
 * before it (holds of a row do not overlap): with mh, the index range
 * reads a few holds per wait, not every earlier one of a row held a
 * million times. Follows the CTE q. */
#define MH                                                                                 \
    " mh AS (SELECT row_id, max(end_ts - start_ts) AS m FROM holds"                        \
    "  WHERE row_id IN (SELECT row_id FROM q) GROUP BY row_id),"
#define MAX_HOLD(W) "(SELECT m FROM mh WHERE mh.row_id = " W ".row_id)"

#define COVER                                                                              \
    " cover AS (SELECT q.trace_id,"                                                         \
    "  (SELECT %s FROM tx_code c WHERE c.tx_id = h.tx_id) AS behind,"                       \
    "  min(h.end_ts, q.end_ts) - max(h.start_ts, q.start_ts) AS us"                         \
    "  FROM q JOIN holds h ON h.row_id = q.row_id AND h.tx_id IS NOT q.tx_id"              \
    "  AND h.start_ts BETWEEN q.start_ts - " MAX_HOLD("q") " AND q.end_ts"                  \
    "  AND h.start_ts < q.end_ts AND h.end_ts > q.start_ts"                                 \
    " UNION ALL SELECT q.trace_id, (SELECT %s FROM tx_code c WHERE c.tx_id = q.behind_tx)," \
    "  q.wait_ms * 1000 FROM q WHERE NOT EXISTS (SELECT 1 FROM holds h"                     \
    "  WHERE h.row_id = q.row_id AND h.tx_id IS NOT q.tx_id"                                \
    "  AND h.start_ts BETWEEN q.start_ts - " MAX_HOLD("q") " AND q.end_ts"                  \
    "  AND h.start_ts < q.end_ts AND h.end_ts > q.start_ts))"

static const char requests_fmt[] =
    "WITH roots AS (SELECT trace_id, name, service, start_ts,"
    "  (end_ts - start_ts) / 1000.0 AS ms FROM spans"
    "  WHERE (parent_id IS NULL OR parent_id = '') AND end_ts > start_ts"
    "  ORDER BY ms DESC, trace_id LIMIT ?1),"
    " q AS (SELECT c.trace_id, w.wait_ms, coalesce(w.logged_ms, 0) AS lg, w.row_id,"
    "  w.start_ts, w.end_ts, w.tx_id, w.behind_tx"
    "  FROM row_waits w JOIN tx_code c ON c.tx_id = w.tx_id"
    "  WHERE c.trace_id IN (SELECT trace_id FROM roots)),"
    MH COVER
    " SELECT r.trace_id, r.name, r.service, r.start_ts, r.ms,"
    "  (SELECT sum(wait_ms) FROM q WHERE q.trace_id = r.trace_id),"
    "  (SELECT sum(lg) FROM q WHERE q.trace_id = r.trace_id),"
    "  (SELECT behind FROM cover WHERE cover.trace_id = r.trace_id GROUP BY behind"
    "   ORDER BY sum(us) DESC LIMIT 1),"
    "  (SELECT x.relation || ' ' || x.row_key FROM q JOIN rows x ON x.row_id = q.row_id"
    "   WHERE q.trace_id = r.trace_id GROUP BY q.row_id ORDER BY sum(q.wait_ms) DESC LIMIT 1)"
    " FROM roots r ORDER BY r.ms DESC, r.trace_id";

/*
 * One named trace (?1): its extent (the longest root span, else the
 * spans' own when the export lacks the root), how many spans and linked
 * transactions it has, and its row-lock queueing as requests_fmt sums it.
 */
static const char trace_fmt[] =
    "WITH sp AS (SELECT name, service, start_ts, end_ts, parent_id FROM spans"
    "  WHERE trace_id = ?1),"
    " root AS (SELECT * FROM sp WHERE parent_id IS NULL OR parent_id = ''"
    "  ORDER BY end_ts - start_ts DESC LIMIT 1),"
    " q AS (SELECT c.trace_id, w.wait_ms, coalesce(w.logged_ms, 0) AS lg, w.row_id,"
    "  w.start_ts, w.end_ts, w.tx_id, w.behind_tx"
    "  FROM row_waits w JOIN tx_code c ON c.tx_id = w.tx_id WHERE c.trace_id = ?1),"
    MH COVER
    " SELECT (SELECT count(*) FROM sp), (SELECT count(*) FROM root),"
    "  coalesce((SELECT name FROM root), (SELECT name FROM sp ORDER BY start_ts LIMIT 1)),"
    "  coalesce((SELECT service FROM root), (SELECT service FROM sp ORDER BY start_ts LIMIT 1)),"
    "  coalesce((SELECT start_ts FROM root), (SELECT min(start_ts) FROM sp)),"
    "  coalesce((SELECT end_ts FROM root), (SELECT max(end_ts) FROM sp)),"
    "  (SELECT count(*) FROM tx_code WHERE trace_id = ?1),"
    "  (SELECT coalesce(sum(wait_ms), 0) FROM q), (SELECT coalesce(sum(lg), 0) FROM q),"
    "  (SELECT behind FROM cover GROUP BY behind ORDER BY sum(us) DESC LIMIT 1),"
    "  (SELECT x.relation || ' ' || x.row_key FROM q JOIN rows x ON x.row_id = q.row_id"
    "   GROUP BY q.row_id ORDER BY sum(q.wait_ms) DESC LIMIT 1)";

/* The named trace's waits for hot rows, in time order (database clock),
 * each with the hold that covered most of it (as COVER; SQLite takes the
 * bare hold_id from the row of the max()). */
static const char trace_waits_fmt[] =
    "WITH q AS (SELECT w.* FROM row_waits w JOIN tx_code k ON k.tx_id = w.tx_id"
    "  WHERE k.trace_id = ?1)," MH
    " ww AS (SELECT w.*, coalesce((SELECT id FROM (SELECT o.hold_id AS id,"
    "  max(min(o.end_ts, w.end_ts) - max(o.start_ts, w.start_ts)) FROM holds o"
    "  WHERE o.row_id = w.row_id AND o.tx_id IS NOT w.tx_id AND o.start_ts < w.end_ts"
    "  AND o.start_ts >= w.start_ts - " MAX_HOLD("w") " AND o.end_ts > w.start_ts)),"
    "  w.behind_hold) AS cover_hold FROM q w)"
    " SELECT w.start_ts, w.end_ts, w.wait_ms, coalesce(w.logged_ms, 0), w.kind,"
    "  r.relation || ' ' || r.row_key, w.pid,"
    "  (SELECT %s FROM tx_code c WHERE c.tx_id = h.tx_id), h.pid,"
    "  (SELECT t.text FROM stmt_rows st JOIN stmt_texts t ON t.text_id = st.text_id"
    "   WHERE st.stmt_id = w.stmt_id), h.tx_id, w.tx_id"
    " FROM ww w LEFT JOIN rows r ON r.row_id = w.row_id"
    " LEFT JOIN holds h ON h.hold_id = w.cover_hold ORDER BY w.start_ts, w.rw_id";

#define TRACE_WAITS_MAX 100 /* a request's waits listed; the totals stay exact */

static void request_row(model_ctx *m, ls_stmt *q, void *arg)
{
    cJSON *o = cJSON_CreateObject();
    ls_model_col_str(o, "trace_id", q, 0);
    ls_model_col_str(o, "name", q, 1);
    ls_model_col_str(o, "service", q, 2);
    ls_model_col_ts(o, "start", q, 3);
    ls_model_col_ms(o, "duration_ms", q, 4);
    ls_model_col_ms(o, "lock_wait_ms", q, 5);
    ls_model_col_ms(o, "logged_lock_wait_ms", q, 6);
    ls_model_col_str(o, "waited_behind_code_path", q, 7);
    ls_model_col_str(o, "waited_for_row", q, 8);
    cJSON_AddItemToArray(arg, o);
    (void)m;
}

/* Run trace_fmt (waits: trace_waits_fmt) with ?1 = the trace id; 1 when a
 * row is ready, 0 none, < 0 error. */
static int prepare_trace(model_ctx *m, int waits, const char *trace_id, ls_stmt **q)
{
    const char *label = ls_model_code_path_label(m->opts->group_by);
    char sql[8192];
    int rc;

    if (waits)
        snprintf(sql, sizeof(sql), trace_waits_fmt, label);
    else
        snprintf(sql, sizeof(sql), trace_fmt, label, label);
    if ((rc = ls_store_prepare(m->store, sql, q)) != 0)
        return m->rc = rc;
    ls_stmt_bind_text(*q, 1, trace_id);
    if ((rc = ls_stmt_step(*q)) < 0)
        m->rc = rc;
    return rc;
}

/* Milliseconds to the microsecond, as ls_model_col_ms writes them. */
static double ms_us(double ms)
{
    return (double)(int64_t)(ms * 1000.0 + 0.5) / 1000.0;
}

static void trace_waits(model_ctx *m, cJSON *o, const char *trace_id)
{
    cJSON *list = cJSON_AddArrayToObject(o, "waits");
    ls_stmt *q = NULL;
    int rc, n = 0;

    for (rc = prepare_trace(m, 1, trace_id, &q); rc == 1; rc = ls_stmt_step(q)) {
        cJSON *w;
        if (n++ >= TRACE_WAITS_MAX)
            continue;
        w = cJSON_CreateObject();
        ls_model_col_ts(w, "start", q, 0);
        ls_model_col_ts(w, "end", q, 1);
        ls_model_col_ms(w, "wait_ms", q, 2);
        ls_model_col_ms(w, "logged_ms", q, 3);
        ls_model_col_str(w, "kind", q, 4);
        ls_model_col_str(w, "row", q, 5);
        ls_model_col_int(w, "pid", q, 6);
        ls_model_add_code(m, w, "", q, 11);
        ls_model_col_int(w, "behind_pid", q, 8);
        /* the four code path fields of the hold it queued behind (column 7
         * is the same path, from the same tx_code row) */
        ls_model_add_code(m, w, "behind_", q, 10);
        ls_model_col_str(w, "statement", q, 9);
        cJSON_AddItemToArray(list, w);
    }
    if (rc < 0)
        m->rc = rc;
    if (n > TRACE_WAITS_MAX)
        cJSON_AddNumberToObject(o, "waits_not_listed", n - TRACE_WAITS_MAX);
    ls_stmt_finalize(q);
}

/*
 * One request named with --trace-id. An id no span carries is reported,
 * not refused: the report is still written, and this entry says so
 * (found false) — the store may hold other days' traces, and a run that
 * ingested a gigabyte should not end in a usage error.
 */
static void trace_request(model_ctx *m, cJSON *list, const char *trace_id)
{
    cJSON *o = cJSON_CreateObject();
    ls_stmt *q = NULL;
    int64_t nspans, ntx;
    double dur_ms, wait_ms;

    cJSON_AddItemToArray(list, o);
    ls_model_add_str(o, "trace_id", trace_id);
    if (prepare_trace(m, 0, trace_id, &q) != 1)
        goto out;
    nspans = ls_stmt_int64(q, 0);
    cJSON_AddBoolToObject(o, "found", nspans > 0);
    if (nspans == 0) {
        cJSON_AddStringToObject(o, "note", "not in the traces read: no span has this trace id");
        goto out;
    }
    ls_model_col_str(o, "name", q, 2);
    ls_model_col_str(o, "service", q, 3);
    ls_model_col_ts(o, "start", q, 4);
    ls_model_col_ts(o, "end", q, 5);
    dur_ms = (double)(ls_stmt_int64(q, 5) - ls_stmt_int64(q, 4)) / 1000.0;
    cJSON_AddNumberToObject(o, "duration_ms", dur_ms);
    cJSON_AddNumberToObject(o, "spans", (double)nspans);
    ntx = ls_stmt_int64(q, 6);
    cJSON_AddNumberToObject(o, "transactions", (double)ntx);
    ls_model_col_ms(o, "lock_wait_ms", q, 7);
    ls_model_col_ms(o, "logged_lock_wait_ms", q, 8);
    wait_ms = ls_stmt_double(q, 7);
    cJSON_AddNumberToObject(o, "hidden_lock_wait_ms", ms_us(wait_ms - ls_stmt_double(q, 8)));
    /* The request's clock and the database's differ by an offset, not a
     * rate: the waits' length compares with the request's. */
    cJSON_AddNumberToObject(o, "lock_wait_share",
                            dur_ms > 0 ? (double)(int64_t)(wait_ms / dur_ms * 1000.0 + 0.5) / 1000.0
                                       : 0);
    ls_model_col_str(o, "waited_behind_code_path", q, 9);
    ls_model_col_str(o, "waited_for_row", q, 10);
    if (ls_stmt_int64(q, 1) == 0)
        cJSON_AddStringToObject(o, "note", "the export has no root span of this trace: its "
                                           "extent is that of the spans it has");
    else if (ntx == 0)
        cJSON_AddStringToObject(o, "note", "no transaction of the log was linked to this trace "
                                           "(no sqlcommenter traceparent, backend pid or "
                                           "matching statement)");
    ls_stmt_finalize(q);
    q = NULL;
    trace_waits(m, o, trace_id);
out:
    ls_stmt_finalize(q);
}

void ls_model_requests(model_ctx *m, cJSON *report, int top)
{
    const char *label = ls_model_code_path_label(m->opts->group_by);
    char sql[8192];
    int i;

    snprintf(sql, sizeof(sql), requests_fmt, label, label);
    ls_model_each_row(m, sql, top, request_row, cJSON_AddArrayToObject(report, "slow_requests"));
    if (m->opts->ntrace_ids > 0) {
        cJSON *list = cJSON_AddArrayToObject(report, "trace_requests");
        for (i = 0; i < m->opts->ntrace_ids && !m->rc; i++)
            trace_request(m, list, m->opts->trace_ids[i]);
    }
}

/* ---- the database spans: their clock, and the ones without a pid ---- */

static const char trace_spans_sql[] =
    "SELECT (SELECT count(*) FROM spans WHERE db_statement IS NOT NULL),"
    " (SELECT CAST(value AS INTEGER) / 1000.0 FROM meta WHERE key = 'span_clock_offset_us'),"
    " (SELECT value FROM meta WHERE key = 'span_clock_offset_from'),"
    " (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'span_clock_offset_votes'),"
    " (SELECT count(*) FROM span_placement),"
    " (SELECT count(*) FROM span_placement WHERE how = 'trace'),"
    " (SELECT count(*) FROM span_placement WHERE how = 'logged statement'),"
    " (SELECT count(*) FROM span_placement WHERE how IS NULL)";

static void why_row(model_ctx *m, ls_stmt *q, void *arg)
{
    cJSON *o = cJSON_CreateObject();
    ls_model_col_str(o, "why", q, 0);
    ls_model_col_int(o, "spans", q, 1);
    cJSON_AddItemToArray(arg, o);
    (void)m;
}

static void trace_spans_row(model_ctx *m, ls_stmt *q, void *arg)
{
    cJSON *o;
    if (ls_stmt_int64(q, 0) == 0)
        return; /* no database span: nothing to say */
    o = cJSON_AddObjectToObject(arg, "trace_spans");
    ls_model_col_int(o, "database_spans", q, 0);
    ls_model_col_ms(o, "clock_offset_ms", q, 1);
    ls_model_col_str(o, "clock_offset_from", q, 2);
    ls_model_col_int(o, "clock_offset_agreeing", q, 3);
    ls_model_col_int(o, "without_pid", q, 4);
    ls_model_col_int(o, "placed_by_trace", q, 5);
    ls_model_col_int(o, "matched_logged_statement", q, 6);
    ls_model_col_int(o, "not_placed", q, 7);
    ls_model_each_row(m,
                      "SELECT why, count(*) FROM span_placement WHERE how IS NULL"
                      " GROUP BY why ORDER BY 2 DESC, 1",
                      -1, why_row, cJSON_AddArrayToObject(o, "not_placed_why"));
}

void ls_model_trace_spans(model_ctx *m, cJSON *summary)
{
    ls_model_each_row(m, trace_spans_sql, -1, trace_spans_row, summary);
}
