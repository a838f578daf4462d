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
#include <stdlib.h>
#include <string.h>

#include "ls_buf.h"
#include "ls_columns.h"
#include "ls_common.h"
#include "model_int.h"

#define US_PER_MIN_N 60000000 /* µs */
#define US_PER_MIN SQL_NUMBER(US_PER_MIN_N)
#define CONTEXT_PAD "5"       /* minutes before the first wait and after the last */
#define CONTEXT_MINUTES_MAX 120 /* minutes at most, from the first */
#define SQL_NUMBER_(n) #n
#define SQL_NUMBER(n) SQL_NUMBER_(n)
#define CONTEXT_MINUTES SQL_NUMBER(CONTEXT_MINUTES_MAX)
#define CONTEXT_SQL_MAX (64 * 1024) /* the minutes query, its VALUES list included */

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
/* The strip's bounds in minutes (b: lo to hi, from the logged waits in
 * the filters) and its minutes (m). */
#define STRIP_BOUNDS_CTE                                                                   \
    "b(lo, hi) AS (SELECT min(lw.start_ts) / " US_PER_MIN " - " CONTEXT_PAD ","            \
    " min(max(coalesce(lw.end_ts, lw.logged_ts, lw.start_ts)) / " US_PER_MIN " + "         \
    CONTEXT_PAD ", min(lw.start_ts) / " US_PER_MIN " - " CONTEXT_PAD " + " CONTEXT_MINUTES \
    " - 1) FROM " LOCK_WAITS_OWN " lw WHERE" WAIT_FILTER("lw") ")"
#define STRIP_MINUTES_CTE                                      \
    " m(mi) AS (SELECT lo FROM b WHERE lo IS NOT NULL UNION ALL" \
    " SELECT mi + 1 FROM m, b WHERE mi < b.hi)"

/* The strip's first and last minutes (NULL: no logged wait in the
 * filters, no strip). */
#define STRIP_BOUNDS_COLS(X, Q) X(Q, lo, "lo") X(Q, hi, "hi")
LS_COLUMNS(sb, STRIP_BOUNDS_COLS);
static const char strip_bounds_sql[] =
    "WITH " STRIP_BOUNDS_CTE " SELECT " LS_SELECT_LIST(sb, STRIP_BOUNDS_COLS) " FROM b";

/* The minute of each statement begun in the strip (in the window and
 * the database filter), its bounds in µs in place of the %lld: counted in
 * C (count_statements), where a GROUP BY sorted every statement of the
 * log (8 M of the report's 50 M SQLite VM steps on the 256 MiB bench log;
 * a stream of them is 3.5 M, the bounds bound as numbers, not read from
 * b at each row). */
static const char stmt_minutes_fmt[] =
    "SELECT st.start_ts / " US_PER_MIN " FROM stmt_rows st"
    " WHERE st.start_ts >= %lld AND st.start_ts < %lld"
    " AND (:since IS NULL OR st.start_ts >= :since) AND (:until IS NULL OR st.start_ts <= :until)"
    " AND " IN_DB("st.session_id");
#define STMT_MINUTES_SQL_MAX (sizeof(stmt_minutes_fmt) + 64)

/* Are the statements per minute ingest counted (stmt_minutes,
 * src/store/stmtstats.c) the rows' own? When they count every statement
 * row (meta 'stmt_minutes' = 'complete': not cut by --retention, not an
 * upgraded store's), no span made or moved a statement (the spans pass
 * adds statements and moves a timed one's start: a store without spans
 * has neither), and neither the window nor the database filter narrows
 * them. */
static const char minutes_counted_sql[] =
    "SELECT :since IS NULL AND :until IS NULL AND :database IS NULL"
    " AND (SELECT value FROM meta WHERE key = 'stmt_minutes') IS 'complete'"
    " AND NOT EXISTS (SELECT 1 FROM spans)";
/* The minutes of the strip ingest counted, its first and last in place
 * of the %lld. */
#define COUNTED_MINUTES_COLS(X, Q) X(Q, minute, "minute") X(Q, statements, "statements")
LS_COLUMNS(cm, COUNTED_MINUTES_COLS);
static const char counted_minutes_fmt[] =
    "SELECT " LS_SELECT_LIST(cm, COUNTED_MINUTES_COLS)
    " FROM stmt_minutes WHERE minute >= %lld AND minute <= %lld";
#define COUNTED_MINUTES_SQL_MAX (sizeof(counted_minutes_fmt) + 64)

/* The minutes (m) from the strip's bounds (b: strip_bounds_sql's, as
 * numbers in place of the first %s, not that scan of every logged wait
 * again: 3.9 -> 2.4 M VM steps at 1 GiB; after m, so that the text's
 * start, which names the statement in LOCKSPAN_TIMING=sql and
 * tests/e2e/check_stmt_growth.py, is the same on every log), and per
 * minute the statements
 * begun (s, the counts of count_statements as a VALUES list in place of
 * the second %s), the logged
 * waits begun (w, in the filters), the errors (e) and the server's work
 * (v: checkpoints completed, autovacuum and autoanalyze runs, temporary
 * files and bytes); the window applies to all, the database filter to the
 * first three (the server's work is no session's). */
static const char minutes_with_fmt[] =
    "WITH RECURSIVE" STRIP_MINUTES_CTE ", b(lo, hi) AS (%s),"
    " s(mi, n) AS (%s),"
    " w(mi, n) AS (SELECT lw.start_ts / " US_PER_MIN ", count(*) FROM " LOCK_WAITS_OWN " lw, b"
    " WHERE lw.start_ts >= b.lo * " US_PER_MIN " AND lw.start_ts < (b.hi + 1) * " US_PER_MIN
    " AND" WAIT_FILTER("lw") "GROUP BY 1),"
    " e(mi, n) AS (SELECT er.ts / " US_PER_MIN ", count(*) FROM errors er, b"
    " WHERE er.ts >= b.lo * " US_PER_MIN " AND er.ts < (b.hi + 1) * " US_PER_MIN
    " AND (:since IS NULL OR er.ts >= :since) AND (:until IS NULL OR er.ts <= :until)"
    " AND " IN_DB("er.session_id") " GROUP BY 1),"
    " v(mi, ck, av, tf, tb) AS (SELECT sv.ts / " US_PER_MIN ","
    " sum(sv.kind = 'checkpoint'), sum(sv.kind IN ('autovacuum', 'autoanalyze')),"
    " sum(sv.kind = 'temp_file'), sum(CASE WHEN sv.kind = 'temp_file' THEN sv.bytes END)"
    " FROM server_events sv, b"
    " WHERE sv.ts >= b.lo * " US_PER_MIN " AND sv.ts < (b.hi + 1) * " US_PER_MIN
    " AND (:since IS NULL OR sv.ts >= :since) AND (:until IS NULL OR sv.ts <= :until) GROUP BY 1)";
static const char minutes_from[] =
    "FROM m LEFT JOIN s ON s.mi = m.mi LEFT JOIN w ON w.mi = m.mi LEFT JOIN e ON e.mi = m.mi"
    " LEFT JOIN v ON v.mi = m.mi ORDER BY m.mi";
/* s when no statement began in the strip. */
#define NO_STATEMENTS "SELECT NULL, NULL WHERE 0"
/* The strip's last minute uncapped, and the log's last (in minutes): the
 * minutes CONTEXT_MINUTES_MAX left out, up to where the log ends, are the
 * strip's cut (cut.context_per_minute; no option lists more). */
#define STRIP_END_COLS(X, Q) X(Q, full_hi, "full_hi") X(Q, log_hi, "log_hi")
LS_COLUMNS(se, STRIP_END_COLS);
static const char strip_end_sql[] =
    "SELECT max(coalesce(lw.end_ts, lw.logged_ts, lw.start_ts)) / " US_PER_MIN " + " CONTEXT_PAD
    " AS full_hi, (SELECT max(last_ts) FROM files) / " US_PER_MIN " AS log_hi"
    " FROM lock_waits lw WHERE" WAIT_FILTER("lw");

/* b when no logged wait is in the filters: no minute. */
#define NO_BOUNDS "SELECT NULL, NULL"
#define BOUNDS_SQL_MAX 64

/* The strip's statements per minute (count_statements). */
typedef struct stmt_minutes {
    int64_t lo, hi;                      /* b: the strip's first and last minutes */
    int64_t left_out;                    /* minutes past hi the cap left out (strip_end_sql) */
    int known;                           /* b has them (a logged wait in the filters) */
    int64_t n[CONTEXT_MINUTES_MAX];      /* statements begun in minute lo + i */
} stmt_minutes;

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

typedef struct minutes_ctx {
    const ls_mquery *q;
    cJSON *list;
} minutes_ctx;

static void minute_row(model_ctx *m, ls_stmt *q, void *arg)
{
    minutes_ctx *c = arg;
    cJSON *o = cJSON_CreateObject();
    ls_mq_add_row(m, o, c->q, q, NULL, NULL);
    cJSON_AddItemToArray(c->list, o);
}

/* The strip's bounds (a row of strip_bounds_sql). */
static void strip_bounds(model_ctx *m, ls_stmt *q, void *arg)
{
    stmt_minutes *sm = arg;
    (void)m;
    sm->known = !ls_stmt_isnull(q, sb_lo) && !ls_stmt_isnull(q, sb_hi);
    sm->lo = ls_stmt_int64(q, sb_lo);
    sm->hi = ls_stmt_int64(q, sb_hi);
}

/* The minutes past the strip's capped end, to the uncapped end or the
 * log's, whichever is first (a row of strip_end_sql). */
static void strip_end(model_ctx *m, ls_stmt *q, void *arg)
{
    stmt_minutes *sm = arg;
    int64_t end;
    (void)m;
    if (ls_stmt_isnull(q, se_full_hi))
        return;
    end = ls_stmt_int64(q, se_full_hi);
    if (!ls_stmt_isnull(q, se_log_hi) && ls_stmt_int64(q, se_log_hi) < end)
        end = ls_stmt_int64(q, se_log_hi);
    sm->left_out = end > sm->hi ? end - sm->hi : 0;
}

/* Whether ingest's counts answer (a row of minutes_counted_sql). */
static void minutes_counted(model_ctx *m, ls_stmt *q, void *arg)
{
    (void)m;
    *(int *)arg = ls_stmt_int64(q, LS_ONLY_COLUMN) != 0;
}

/* Take one minute of the strip that ingest counted (a row of
 * counted_minutes_fmt). */
static void counted_minute(model_ctx *m, ls_stmt *q, void *arg)
{
    stmt_minutes *sm = arg;
    int64_t i = ls_stmt_int64(q, cm_minute) - sm->lo;
    (void)m;
    if (i >= 0 && i < CONTEXT_MINUTES_MAX) /* always, by the strip's bounds */
        sm->n[i] = ls_stmt_int64(q, cm_statements);
}

/* Count one statement of the strip (a row of stmt_minutes_fmt). */
static void statement_minute(model_ctx *m, ls_stmt *q, void *arg)
{
    stmt_minutes *sm = arg;
    int64_t i = ls_stmt_int64(q, LS_ONLY_COLUMN) - sm->lo;
    (void)m;
    if (i >= 0 && i < CONTEXT_MINUTES_MAX) /* always, by the strip's bounds */
        sm->n[i]++;
}

/* The statements begun in each minute of the strip, as the rows of a
 * VALUES list (mi, n) for s, the minutes with none left out as the GROUP
 * BY left them; NO_STATEMENTS when there are none. Ingest's counts
 * (stmt_minutes) when they answer (minutes_counted_sql), else the rows
 * counted here; the strip's bounds as b's SELECT in `bounds`. Returns 0
 * or an error code (m->rc set). */
static int count_statements(model_ctx *m, ls_buf *values, char bounds[BOUNDS_SQL_MAX],
                            int64_t *left_out)
{
    stmt_minutes *sm = ls_calloc(1, sizeof(*sm));
    char sql[STMT_MINUTES_SQL_MAX > COUNTED_MINUTES_SQL_MAX ? STMT_MINUTES_SQL_MAX
                                                            : COUNTED_MINUTES_SQL_MAX];
    int i, rc, counted = 0;

    if (!sm)
        return m->rc = LS_ENOMEM;
    rc = ls_model_each_row(m, strip_bounds_sql, -1, strip_bounds, sm);
    if (sm->known)
        snprintf(bounds, BOUNDS_SQL_MAX, "SELECT %lld, %lld", (long long)sm->lo,
                 (long long)sm->hi);
    else
        snprintf(bounds, BOUNDS_SQL_MAX, "%s", NO_BOUNDS);
    if (rc == 0 && sm->known && (rc = ls_model_each_row(m, strip_end_sql, -1, strip_end, sm)) == 0)
        *left_out = sm->left_out;
    if (rc == 0 && sm->known)
        rc = ls_model_each_row(m, minutes_counted_sql, -1, minutes_counted, &counted);
    if (rc == 0 && sm->known && counted) {
        snprintf(sql, sizeof(sql), counted_minutes_fmt, (long long)sm->lo, (long long)sm->hi);
        rc = ls_model_each_row(m, sql, -1, counted_minute, sm);
    } else if (rc == 0 && sm->known) {
        snprintf(sql, sizeof(sql), stmt_minutes_fmt, (long long)sm->lo * US_PER_MIN_N,
                 (long long)(sm->hi + 1) * US_PER_MIN_N);
        rc = ls_model_each_row(m, sql, -1, statement_minute, sm);
    }
    for (i = 0; rc == 0 && i < CONTEXT_MINUTES_MAX; i++)
        if (sm->n[i])
            ls_buf_printf(values, "%s(%lld, %lld)", ls_buf_str(values)[0] ? ", " : "VALUES ",
                          (long long)(sm->lo + i), (long long)sm->n[i]);
    if (rc == 0 && !ls_buf_str(values)[0])
        ls_buf_adds(values, NO_STATEMENTS);
    free(sm);
    if (rc == 0 && ls_buf_failed(values))
        rc = m->rc = LS_ENOMEM;
    return rc;
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
    ls_buf values, with;
    ls_mquery q = LS_MQUERY(NULL, minute_cols, minutes_from);
    minutes_ctx c;
    char bounds[BOUNDS_SQL_MAX];
    int64_t left_out = 0;

    ls_buf_init(&values, CONTEXT_SQL_MAX);
    ls_buf_init(&with, CONTEXT_SQL_MAX);
    if (count_statements(m, &values, bounds, &left_out) == 0) {
        ls_buf_printf(&with, minutes_with_fmt, bounds, ls_buf_str(&values));
        if (ls_buf_failed(&with)) {
            m->rc = LS_ENOMEM;
        } else {
            q.with = ls_buf_str(&with);
            c.q = &q;
            c.list = minutes;
            ls_mq_each_row(m, &q, -1, minute_row, &c);
        }
    }
    ls_buf_free(&values);
    ls_buf_free(&with);
    clip_to_log(minutes, report);
    if (left_out > 0)
        ls_model_cut(report, "context_per_minute", cJSON_GetArraySize(minutes),
                     cJSON_GetArraySize(minutes) + left_out, NULL, 0);
    add_not_kept(m, report);
}
