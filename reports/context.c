/*
 * context.c — the incident's context per minute, from what the store
 * keeps of the log: statements (and per second), lock waits begun, errors,
 * for each minute from 5 minutes before the first logged wait (in the
 * filters) to 5 minutes after the last one ends, at most CONTEXT_MINUTES
 * (pgBadger's per-minute graphs, to see what changed when), and the
 * server's own work ingest keeps in server_events: checkpoints completed,
 * autovacuum runs (vacuum and analyze), temporary files and their bytes.
 * What the log has none of anywhere in the store, context_not_kept names
 * with the setting that would log it.
 */
#include <stdio.h>
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
    {"checkpoints", "coalesce(v.ck, 0)", LS_MC_INT},
    {"autovacuum", "coalesce(v.av, 0)", LS_MC_INT},
    {"temp_files", "coalesce(v.tf, 0)", LS_MC_INT},
    {"temp_bytes", "coalesce(v.tb, 0)", LS_MC_INT},
};
/* The minutes (m), and per minute the statements begun (s), the logged
 * waits begun (w, in the filters), the errors (e) and the server's work
 * (v: checkpoints completed, autovacuum and autoanalyze runs, temporary
 * files and bytes); the window applies to all, the database filter to the
 * first three (the server's work is no session's). */
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
    " AND " IN_DB("er.session_id") " GROUP BY 1),"
    " v(mi, ck, av, tf, tb) AS (SELECT sv.ts / " US_PER_MIN ","
    " sum(sv.kind = 'checkpoint'), sum(sv.kind IN ('autovacuum', 'autoanalyze')),"
    " sum(sv.kind = 'temp_file'), sum(CASE WHEN sv.kind = 'temp_file' THEN sv.bytes END)"
    " FROM server_events sv, b"
    " WHERE sv.ts >= b.lo * " US_PER_MIN " AND sv.ts < (b.hi + 1) * " US_PER_MIN
    " AND (?11 IS NULL OR sv.ts >= ?11) AND (?12 IS NULL OR sv.ts <= ?12) GROUP BY 1)",
    minute_cols,
    "FROM m LEFT JOIN s ON s.mi = m.mi LEFT JOIN w ON w.mi = m.mi LEFT JOIN e ON e.mi = m.mi"
    " LEFT JOIN v ON v.mi = m.mi ORDER BY m.mi");

/* What the strip counts from server_events, the kinds that count, and
 * what the log has none of it: the setting that logs it. */
typedef struct server_kind_need {
    const char *what;
    const char *kinds; /* SQL list of server_events.kind */
    const char *missing;
} server_kind_need;

static const server_kind_need server_needs[] = {
    {"checkpoints", "'checkpoint_start', 'checkpoint'",
     "checkpoints (none read: log_checkpoints = on logs them; only English messages are read)"},
    {"autovacuum", "'autovacuum', 'autoanalyze'",
     "autovacuum (none read: log_autovacuum_min_duration = 0 logs every run; only English messages are read)"},
    {"temporary files", "'temp_file'",
     "temporary files (none read: log_temp_files = 0 logs every one; only English messages are read)"},
};

#define NEED_SQL_MAX 160

static void found_row(model_ctx *m, ls_stmt *q, void *arg)
{
    (void)m;
    (void)q;
    *(int *)arg = 1;
}

/* Files of the store ingested before server_events existed (a store
 * brought to schema 14, store.c): their lines of the server's work were
 * not read. */
static const char older_files_sql[] =
    "SELECT 1 FROM files WHERE file_id < (SELECT CAST(value AS INTEGER) FROM meta"
    " WHERE key = 'server_events_from_file') LIMIT 1";
#define OLDER_FILES_NOTE \
    "the server's work in the files this store held before schema 14 was not read: ingest " \
    "them into a new --db to count it"

/* context_not_kept: for each of server_needs that the store has no line
 * of (anywhere, not only in the strip's minutes), its `missing` text; and
 * first, when the store has files ingested before lockspan read these
 * lines, that note. */
static void add_not_kept(model_ctx *m, cJSON *report)
{
    cJSON *arr = cJSON_AddArrayToObject(report, "context_not_kept");
    int older = 0;
    size_t i;

    ls_model_each_row(m, older_files_sql, -1, found_row, &older);
    if (older)
        cJSON_AddItemToArray(arr, cJSON_CreateString(OLDER_FILES_NOTE));

    for (i = 0; i < sizeof(server_needs) / sizeof(server_needs[0]); i++) {
        char sql[NEED_SQL_MAX];
        int found = 0;
        snprintf(sql, sizeof(sql), "SELECT 1 FROM server_events WHERE kind IN (%s) LIMIT 1",
                 server_needs[i].kinds);
        ls_model_each_row(m, sql, -1, found_row, &found);
        if (!found)
            cJSON_AddItemToArray(arr, cJSON_CreateString(server_needs[i].missing));
    }
}

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
    cJSON *minutes = cJSON_AddArrayToObject(report, "context_per_minute");
    ls_mq_each_row(m, &minutes_q, -1, minute_row, minutes);
    clip_to_log(minutes, report);
    add_not_kept(m, report);
}
