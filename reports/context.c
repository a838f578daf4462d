/*
 * context.c — the incident's context per minute, from what the store
 * keeps of the log: statements (and per second), lock waits begun, errors,
 * for each minute from 5 minutes before the first logged wait (in the
 * filters) to 5 minutes after the last one ends, at most CONTEXT_MINUTES
 * (pgBadger's per-minute graphs, to see what changed when). Checkpoints,
 * autovacuum runs and temporary files are not kept by ingest, so the
 * strip cannot show them and says so (context_not_kept).
 */
#include <string.h>

#include "ls_common.h"
#include "model_int.h"

#define US_PER_MIN "60000000"
#define CONTEXT_PAD "5"       /* minutes before the first wait and after the last */
#define CONTEXT_MINUTES "120" /* minutes at most, from the first */

static const ls_mcol minute_cols[] = {
    {"minute", "m.mi * " US_PER_MIN, LS_MC_TS},
    {"statements", "coalesce(s.n, 0)", LS_MC_INT},
    {"statements_per_s", "round(coalesce(s.n, 0) / 60.0, 1)", LS_MC_MS},
    {"waits", "coalesce(w.n, 0)", LS_MC_INT},
    {"errors", "coalesce(e.n, 0)", LS_MC_INT},
};
/* The minutes (m), and per minute the statements begun (s), the logged
 * waits begun (w, in the filters) and the errors (e); the window and the
 * database filter apply to all three. */
static const ls_mquery minutes_q = LS_MQUERY(
    "WITH RECURSIVE b(lo, hi) AS (SELECT min(lw.start_ts) / " US_PER_MIN " - " CONTEXT_PAD ","
    " min(max(coalesce(lw.end_ts, lw.logged_ts, lw.start_ts)) / " US_PER_MIN " + " CONTEXT_PAD
    ", min(lw.start_ts) / " US_PER_MIN " - " CONTEXT_PAD " + " CONTEXT_MINUTES " - 1)"
    " FROM lock_waits lw WHERE" WAIT_FILTER("lw") "),"
    " m(mi) AS (SELECT lo FROM b WHERE lo IS NOT NULL UNION ALL"
    " SELECT mi + 1 FROM m, b WHERE mi < b.hi),"
    " s(mi, n) AS (SELECT st.start_ts / " US_PER_MIN ", count(*) FROM stmt_rows st, b"
    " WHERE st.start_ts >= b.lo * " US_PER_MIN " AND st.start_ts < (b.hi + 1) * " US_PER_MIN
    " AND (?11 IS NULL OR st.start_ts >= ?11) AND (?12 IS NULL OR st.start_ts <= ?12)"
    " AND " IN_DB("st.session_id") " GROUP BY 1),"
    " w(mi, n) AS (SELECT lw.start_ts / " US_PER_MIN ", count(*) FROM lock_waits lw, b"
    " WHERE lw.start_ts >= b.lo * " US_PER_MIN " AND lw.start_ts < (b.hi + 1) * " US_PER_MIN
    " AND" WAIT_FILTER("lw") "GROUP BY 1),"
    " e(mi, n) AS (SELECT er.ts / " US_PER_MIN ", count(*) FROM errors er, b"
    " WHERE er.ts >= b.lo * " US_PER_MIN " AND er.ts < (b.hi + 1) * " US_PER_MIN
    " AND (?11 IS NULL OR er.ts >= ?11) AND (?12 IS NULL OR er.ts <= ?12)"
    " AND " IN_DB("er.session_id") " GROUP BY 1)",
    minute_cols,
    "FROM m LEFT JOIN s ON s.mi = m.mi LEFT JOIN w ON w.mi = m.mi LEFT JOIN e ON e.mi = m.mi"
    " ORDER BY m.mi");

static void minute_row(model_ctx *m, ls_stmt *q, void *arg)
{
    cJSON *o = cJSON_CreateObject();
    ls_mq_add_row(m, o, &minutes_q, q, NULL, NULL);
    cJSON_AddItemToArray(arg, o);
}

/* ISO 8601 down to the minute: "2026-12-02T12:36". */
#define ISO_MINUTE 16

/* Drop the minutes outside the log's time range (summary.time_range): a
 * minute before the log began is not a minute of no statements. */
static void clip_to_log(cJSON *minutes, const cJSON *report)
{
    const cJSON *range = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(report, "summary"), "time_range");
    const char *start = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(range, "start"));
    const char *end = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(range, "end"));
    cJSON *o = minutes ? minutes->child : NULL;
    while (o) {
        cJSON *next = o->next;
        const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "minute"));
        if (t && ((start && strncmp(t, start, ISO_MINUTE) < 0) ||
                  (end && strncmp(t, end, ISO_MINUTE) > 0)))
            cJSON_Delete(cJSON_DetachItemViaPointer(minutes, o));
        o = next;
    }
}

void ls_model_context(model_ctx *m, cJSON *report)
{
    static const char *const not_kept[] = {"checkpoints", "autovacuum", "temporary files"};
    cJSON *minutes = cJSON_AddArrayToObject(report, "context_per_minute");
    ls_mq_each_row(m, &minutes_q, -1, minute_row, minutes);
    clip_to_log(minutes, report);
    cJSON_AddItemToObject(report, "context_not_kept",
                          cJSON_CreateStringArray(not_kept, sizeof(not_kept) / sizeof(not_kept[0])));
}
