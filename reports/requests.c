/*
 * requests.c — the slowest requests of the traces, and how much of each
 * was queueing for row locks: logged waits and the hidden ones rebuilt
 * from the holds (row_waits), behind which code path and row.
 *
 * A request is a trace's root span (no parent in the export); its
 * transactions are those linked to the trace (tx_code.trace_id).
 */
#include <stdio.h>

#include "model_int.h"

static const char requests_fmt[] =
    "WITH roots AS (SELECT trace_id, name, service, start_ts,"
    "  (end_ts - start_ts) / 1000.0 AS ms FROM spans"
    "  WHERE (parent_id IS NULL OR parent_id = '') AND end_ts > start_ts"
    "  ORDER BY ms DESC, trace_id LIMIT ?1),"
    " q AS (SELECT c.trace_id, w.wait_ms, coalesce(w.logged_ms, 0) AS lg, w.row_id,"
    "  (SELECT %s FROM tx_code c WHERE c.tx_id = w.behind_tx) AS behind"
    "  FROM row_waits w JOIN tx_code c ON c.tx_id = w.tx_id"
    "  WHERE c.trace_id IN (SELECT trace_id FROM roots))"
    " SELECT r.trace_id, r.name, r.service, r.start_ts, r.ms,"
    "  (SELECT sum(wait_ms) FROM q WHERE q.trace_id = r.trace_id),"
    "  (SELECT sum(lg) FROM q WHERE q.trace_id = r.trace_id),"
    "  (SELECT behind FROM q WHERE q.trace_id = r.trace_id GROUP BY behind"
    "   ORDER BY sum(wait_ms) DESC LIMIT 1),"
    "  (SELECT x.relation || ' ' || x.row_key FROM q JOIN rows x ON x.row_id = q.row_id"
    "   WHERE q.trace_id = r.trace_id GROUP BY q.row_id ORDER BY sum(q.wait_ms) DESC LIMIT 1)"
    " FROM roots r ORDER BY r.ms DESC, r.trace_id";

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

void ls_model_requests(model_ctx *m, cJSON *report, int top)
{
    char sql[4096];
    snprintf(sql, sizeof(sql), requests_fmt, ls_model_code_path_label(m->opts->group_by));
    ls_model_each_row(m, sql, top, request_row, cJSON_AddArrayToObject(report, "slow_requests"));
}
