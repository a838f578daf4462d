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
#include <string.h>

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

/* The slowest root spans (those overlapping the report's time window,
 * :since..:until), their queueing summed (the WITH clause's two %s: the code
 * path's label). */
static const char requests_with_fmt[] =
    "WITH roots AS (SELECT trace_id, name, service, start_ts,"
    "  (end_ts - start_ts) / 1000.0 AS ms FROM spans"
    "  WHERE (parent_id IS NULL OR parent_id = '') AND end_ts > start_ts"
    "  AND (:since IS NULL OR end_ts >= :since) AND (:until IS NULL OR start_ts <= :until)"
    "  ORDER BY ms DESC, trace_id LIMIT :limit),"
    " q AS (SELECT c.trace_id, w.wait_ms, coalesce(w.logged_ms, 0) AS lg, w.row_id,"
    "  w.start_ts, w.end_ts, w.tx_id, w.behind_tx"
    "  FROM row_waits w JOIN tx_code c ON c.tx_id = w.tx_id"
    "  WHERE c.trace_id IN (SELECT trace_id FROM roots)),"
    MH COVER;
static const ls_mcol request_cols[] = {
    {"trace_id", "r.trace_id", LS_MC_STR},
    {"name", "r.name", LS_MC_STR},
    {"service", "r.service", LS_MC_STR},
    {"start", "r.start_ts", LS_MC_TS},
    {"duration_ms", "r.ms", LS_MC_MS},
    {"lock_wait_ms", "(SELECT sum(wait_ms) FROM q WHERE q.trace_id = r.trace_id)", LS_MC_MS},
    {"logged_lock_wait_ms", "(SELECT sum(lg) FROM q WHERE q.trace_id = r.trace_id)", LS_MC_MS},
    {"waited_behind_code_path",
     "(SELECT behind FROM cover WHERE cover.trace_id = r.trace_id GROUP BY behind"
     "   ORDER BY sum(us) DESC LIMIT 1)",
     LS_MC_STR},
    {"waited_for_row",
     "(SELECT x.relation || ' ' || x.row_key FROM q JOIN rows x ON x.row_id = q.row_id"
     "   WHERE q.trace_id = r.trace_id GROUP BY q.row_id ORDER BY sum(q.wait_ms) DESC LIMIT 1)",
     LS_MC_STR},
};
/* Its WITH clause is set at run time (requests_with_fmt). */
static const ls_mquery requests_q =
    LS_MQUERY(NULL, request_cols, "FROM roots r ORDER BY r.ms DESC, r.trace_id");

/*
 * One named trace (:trace_id): its extent (the longest root span, else the
 * spans' own when the export lacks the root), how many spans and linked
 * transactions it has, and its row-lock queueing as requests_q sums it.
 */
static const char trace_with_fmt[] =
    "WITH sp AS (SELECT name, service, start_ts, end_ts, parent_id FROM spans"
    "  WHERE trace_id = :trace_id),"
    " root AS (SELECT * FROM sp WHERE parent_id IS NULL OR parent_id = ''"
    "  ORDER BY end_ts - start_ts DESC LIMIT 1),"
    " q AS (SELECT c.trace_id, w.wait_ms, coalesce(w.logged_ms, 0) AS lg, w.row_id,"
    "  w.start_ts, w.end_ts, w.tx_id, w.behind_tx"
    "  FROM row_waits w JOIN tx_code c ON c.tx_id = w.tx_id WHERE c.trace_id = :trace_id),"
    MH COVER;
static const ls_mcol trace_cols[] = {
    {"name", "coalesce((SELECT name FROM root), (SELECT name FROM sp ORDER BY start_ts LIMIT 1))",
     LS_MC_STR},
    {"service",
     "coalesce((SELECT service FROM root), (SELECT service FROM sp ORDER BY start_ts LIMIT 1))",
     LS_MC_STR},
    {"start", "coalesce((SELECT start_ts FROM root), (SELECT min(start_ts) FROM sp))", LS_MC_TS},
    {"end", "coalesce((SELECT end_ts FROM root), (SELECT max(end_ts) FROM sp))", LS_MC_TS},
    {"duration_ms", NULL, LS_MC_HOOK},
    {"spans", "(SELECT count(*) FROM sp)", LS_MC_INT},
    {"transactions", "(SELECT count(*) FROM tx_code WHERE trace_id = :trace_id)", LS_MC_INT},
    {"lock_wait_ms", "(SELECT coalesce(sum(wait_ms), 0) FROM q)", LS_MC_MS},
    {"logged_lock_wait_ms", "(SELECT coalesce(sum(lg), 0) FROM q)", LS_MC_MS},
    {"hidden_lock_wait_ms", NULL, LS_MC_HOOK},
    {"lock_wait_share", NULL, LS_MC_HOOK},
    {"waited_behind_code_path",
     "(SELECT behind FROM cover GROUP BY behind ORDER BY sum(us) DESC LIMIT 1)", LS_MC_STR},
    {"waited_for_row",
     "(SELECT x.relation || ' ' || x.row_key FROM q JOIN rows x ON x.row_id = q.row_id"
     "   GROUP BY q.row_id ORDER BY sum(q.wait_ms) DESC LIMIT 1)",
     LS_MC_STR},
    {"root_spans", "(SELECT count(*) FROM root)", LS_MC_READ},
    {"start_ts", "coalesce((SELECT start_ts FROM root), (SELECT min(start_ts) FROM sp))",
     LS_MC_READ},
    {"end_ts", "coalesce((SELECT end_ts FROM root), (SELECT max(end_ts) FROM sp))", LS_MC_READ},
    {"wait_ms", "(SELECT coalesce(sum(wait_ms), 0) FROM q)", LS_MC_READ},
    {"logged_ms", "(SELECT coalesce(sum(lg), 0) FROM q)", LS_MC_READ},
};
/* Its WITH clause is set at run time (trace_with_fmt). */
static const ls_mquery trace_q = LS_MQUERY(NULL, trace_cols, "");

/* The named trace's waits for hot rows, in time order (database clock),
 * each with the hold that covered most of it (as COVER; SQLite takes the
 * bare hold_id from the row of the max()). */
static const ls_mcol trace_wait_cols[] = {
    {"start", "w.start_ts", LS_MC_TS},
    {"end", "w.end_ts", LS_MC_TS},
    {"wait_ms", "w.wait_ms", LS_MC_MS},
    {"logged_ms", "coalesce(w.logged_ms, 0)", LS_MC_MS},
    {"kind", "w.kind", LS_MC_STR},
    {"row", "r.relation || ' ' || r.row_key", LS_MC_STR},
    {"pid", "w.pid", LS_MC_INT},
    {"", "tx_id", LS_MC_CODE},
    {"behind_pid", "h.pid", LS_MC_INT},
    /* the four code path fields of the hold it queued behind */
    {"behind_", "behind_tx", LS_MC_CODE},
    {"statement",
     "(SELECT t.text FROM stmt_rows st JOIN stmt_texts t ON t.text_id = st.text_id"
     "   WHERE st.stmt_id = w.stmt_id)",
     LS_MC_STR},
    {"tx_id", "w.tx_id", LS_MC_READ},
    {"behind_tx", "h.tx_id", LS_MC_READ},
};
static const ls_mquery trace_waits_q = LS_MQUERY(
    "WITH q AS (SELECT w.* FROM row_waits w JOIN tx_code k ON k.tx_id = w.tx_id"
    "  WHERE k.trace_id = :trace_id)," MH
    " ww AS (SELECT w.*, coalesce((SELECT id FROM (SELECT o.hold_id AS id,"
    "  max(min(o.end_ts, w.end_ts) - max(o.start_ts, w.start_ts)) FROM holds o"
    "  WHERE o.row_id = w.row_id AND o.tx_id IS NOT w.tx_id AND o.start_ts < w.end_ts"
    "  AND o.start_ts >= w.start_ts - " MAX_HOLD("w") " AND o.end_ts > w.start_ts)),"
    "  w.behind_hold) AS cover_hold FROM q w)",
    trace_wait_cols,
    "FROM ww w LEFT JOIN rows r ON r.row_id = w.row_id"
    " LEFT JOIN holds h ON h.hold_id = w.cover_hold ORDER BY w.start_ts, w.rw_id");

#define TRACE_WAITS_MAX 100 /* a request's waits listed; the totals stay exact */

/* Room for a WITH clause with the code path's label in its two %s. */
#define WITH_MAX 8192

static void request_row(model_ctx *m, ls_stmt *q, void *arg)
{
    cJSON *o = cJSON_CreateObject();
    ls_mq_add_row(m, o, &requests_q, q, NULL, NULL);
    cJSON_AddItemToArray(arg, o);
}

/* Run mq with :trace_id = trace_id; 1 when a row is ready, 0 none, < 0
 * error. */
static int prepare_trace(model_ctx *m, const ls_mquery *mq, const char *trace_id, ls_stmt **q)
{
    int rc;
    if ((rc = ls_mq_prepare(m, mq, q)) != 0)
        return m->rc = rc;
    ls_stmt_bind_text(*q, ls_stmt_param(*q, "trace_id"), trace_id);
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

    for (rc = prepare_trace(m, &trace_waits_q, trace_id, &q); rc == 1; rc = ls_stmt_step(q)) {
        cJSON *w;
        if (n++ >= TRACE_WAITS_MAX)
            continue;
        w = cJSON_CreateObject();
        ls_mq_add_row(m, w, &trace_waits_q, q, NULL, NULL);
        cJSON_AddItemToArray(list, w);
    }
    if (rc < 0)
        m->rc = rc;
    if (n > TRACE_WAITS_MAX)
        cJSON_AddNumberToObject(o, "waits_not_listed", n - TRACE_WAITS_MAX);
    ls_stmt_finalize(q);
}

/* The request's length, and the share of it spent queueing: the
 * request's clock and the database's differ by an offset, not a rate, so
 * the waits' length compares with the request's. */
static void trace_hook(model_ctx *m, cJSON *o, ls_stmt *q, const char *key, void *arg)
{
    double dur_ms = (double)(ls_mq_int64(&trace_q, q, "end_ts") -
                             ls_mq_int64(&trace_q, q, "start_ts")) /
                    1000.0;
    double wait_ms = ls_mq_double(&trace_q, q, "wait_ms");
    (void)m;
    (void)arg;
    if (strcmp(key, "duration_ms") == 0)
        cJSON_AddNumberToObject(o, key, dur_ms);
    else if (strcmp(key, "hidden_lock_wait_ms") == 0)
        cJSON_AddNumberToObject(o, key, ms_us(wait_ms - ls_mq_double(&trace_q, q, "logged_ms")));
    else
        cJSON_AddNumberToObject(o, key,
                                dur_ms > 0 ? (double)(int64_t)(wait_ms / dur_ms * 1000.0 + 0.5) /
                                                 1000.0
                                           : 0);
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
    ls_mquery mq = trace_q;
    char with[WITH_MAX];
    int64_t nspans;

    cJSON_AddItemToArray(list, o);
    ls_model_add_str(o, "trace_id", trace_id);
    snprintf(with, sizeof(with), trace_with_fmt, ls_model_code_path_label(m->opts->group_by),
             ls_model_code_path_label(m->opts->group_by));
    mq.with = with;
    if (prepare_trace(m, &mq, trace_id, &q) != 1)
        goto out;
    nspans = ls_mq_int64(&trace_q, q, "spans");
    cJSON_AddBoolToObject(o, "found", nspans > 0);
    if (nspans == 0) {
        cJSON_AddStringToObject(o, "note", "not in the traces read: no span has this trace id");
        goto out;
    }
    ls_mq_add_row(m, o, &trace_q, q, trace_hook, NULL);
    if (ls_mq_int64(&trace_q, q, "root_spans") == 0)
        cJSON_AddStringToObject(o, "note", "the export has no root span of this trace: its "
                                           "extent is that of the spans it has");
    else if (ls_mq_int64(&trace_q, q, "transactions") == 0)
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
    ls_mquery mq = requests_q;
    char with[WITH_MAX];
    int i;

    snprintf(with, sizeof(with), requests_with_fmt, ls_model_code_path_label(m->opts->group_by),
             ls_model_code_path_label(m->opts->group_by));
    mq.with = with;
    ls_model_list(m, report, report, "slow_requests", "slow_requests", &mq, -1, top, request_row,
                  -1, "--top", LS_LIST_TOP, NULL);
    if (m->opts->ntrace_ids > 0) {
        cJSON *list = cJSON_AddArrayToObject(report, "trace_requests");
        for (i = 0; i < m->opts->ntrace_ids && !m->rc; i++)
            trace_request(m, list, m->opts->trace_ids[i]);
    }
}

/* ---- the database spans: their clock, and the ones without a pid ---- */

static const ls_mcol trace_spans_cols[] = {
    {"database_spans", "(SELECT count(*) FROM spans WHERE db_statement IS NOT NULL)", LS_MC_INT},
    {"clock_offset_ms", "(SELECT offset_us / 1000.0 FROM span_clock)", LS_MC_MS},
    {"clock_offset_from", "(SELECT offset_from FROM span_clock)", LS_MC_STR},
    {"clock_offset_agreeing", "(SELECT votes FROM span_clock)", LS_MC_INT},
    {"without_pid", "(SELECT count(*) FROM span_placement)", LS_MC_INT},
    {"placed_by_trace", "(SELECT count(*) FROM span_placement WHERE how = 'trace')", LS_MC_INT},
    {"matched_logged_statement",
     "(SELECT count(*) FROM span_placement WHERE how = 'logged statement')", LS_MC_INT},
    {"orm_of_driver_span",
     "(SELECT count(*) FROM span_placement WHERE how = 'ORM span of a driver span')", LS_MC_INT},
    {"not_placed", "(SELECT count(*) FROM span_placement WHERE how IS NULL)", LS_MC_INT},
    {"not_placed_why", NULL, LS_MC_HOOK},
};
static const ls_mquery trace_spans_q = LS_MQUERY(NULL, trace_spans_cols, "");

static const ls_mcol why_cols[] = {
    {"why", "why", LS_MC_STR},
    {"spans", "count(*)", LS_MC_INT},
};
static const ls_mquery why_q =
    LS_MQUERY(NULL, why_cols,
              "FROM span_placement WHERE how IS NULL GROUP BY why ORDER BY 2 DESC, 1");

static void why_row(model_ctx *m, ls_stmt *q, void *arg)
{
    cJSON *o = cJSON_CreateObject();
    ls_mq_add_row(m, o, &why_q, q, NULL, NULL);
    cJSON_AddItemToArray(arg, o);
}

static void why_hook(model_ctx *m, cJSON *o, ls_stmt *q, const char *key, void *arg)
{
    (void)q;
    (void)arg;
    ls_mq_each_row(m, &why_q, -1, why_row, cJSON_AddArrayToObject(o, key));
}

static void trace_spans_row(model_ctx *m, ls_stmt *q, void *arg)
{
    if (ls_mq_int64(&trace_spans_q, q, "database_spans") == 0)
        return; /* no database span: nothing to say */
    ls_mq_add_row(m, cJSON_AddObjectToObject(arg, "trace_spans"), &trace_spans_q, q, why_hook,
                  NULL);
}

void ls_model_trace_spans(model_ctx *m, cJSON *summary)
{
    ls_mq_each_row(m, &trace_spans_q, -1, trace_spans_row, summary);
}
