/*
 * scope.c — the analysis of one report's scope: a time window (--since,
 * --until) over everything the report reads from events, and the
 * findings of the window or of another code-path grouping (--group-by).
 * The CLI has it run before the report is built (ls_report_opts'
 * scope_enter and scope_leave), so that the report only reads.
 *
 * With a window, TEMP views stand over the store's event tables under
 * the same names (SQLite looks a name up in the temp schema first):
 * holds, lock_waits, row_waits, hold_parts, row_queue and rows. So every
 * query of the report, the rankings and findings included (their files
 * never name the window), sees only what overlaps the window:
 *   - waits, hidden waits and holds that overlap it, a hold's start and
 *     end clipped to it (its evidence then says so), so hold times and
 *     shares are time inside the window;
 *   - a hold's parts only for the holds kept (the parts themselves are the
 *     whole hold's: the store keeps no time for them);
 *   - queue-depth points inside it;
 *   - each row's figures recomputed from those: waits, total and max wait,
 *     first and last wait, holds, occupied time (the sum of its clipped
 *     holds, which do not overlap), mean hold, serial capacity, longest
 *     queue and chain, hidden and logged queueing, utilisation; a row a
 *     threshold log shows only by its slow lockers (no wait logged) is
 *     kept when some of their statements lie inside the window, its waiting
 *     theirs (their durations: slowkeys.c).
 * The views over row_queue and hold_parts carry the table's rowid (their
 * order of insertion, which the report sorts ties by).
 * A figure the store keeps per hold (waits, waiting caused, the SQL, idle
 * and commit split) is the whole hold's.
 *
 * With a window, the statement logging's verdict over the window's holds
 * goes to temp.logcover (logging.c), which the report reads in place of
 * the stored row.
 *
 * Then, when the findings the "findings" pass stored (the default
 * grouping over the whole log) do not answer the scope, the same rules
 * decide the scope's own into temp.findings and temp.finding_fields
 * (findings.c), which the report reads instead. So are the code-path
 * rankings the "report summary" pass stored (the default grouping over
 * the whole log): summed again into temp.path_ranking, temp.path_queueing
 * and temp.path_occupancy (summary.c) for a window or another grouping,
 * and each row's queue buckets (temp.row_queue_buckets) for a window.
 * ls_correlate_scope_leave() drops the views and those tables; nothing is
 * written to the store itself.
 */
#include <string.h>

#include "correlate_int.h"
#include "findings.h"
#include "ls_grouping.h"
#include "ls_logcover.h"
#include "ls_params.h"

static const char window_sql[] =
    "DROP TABLE IF EXISTS temp.report_window;"
    "CREATE TEMP TABLE report_window(since INTEGER, until INTEGER);";

/* The window's bounds (NULL: open). */
static const char window_row_sql[] = "INSERT INTO temp.report_window VALUES (:since, :until)";
#define WINDOW_PARAMS(X, Q) X(Q, since) X(Q, until)
LS_PARAMS(wp, WINDOW_PARAMS);

#define W_SINCE "(SELECT since FROM temp.report_window)"
#define W_UNTIL "(SELECT until FROM temp.report_window)"
/* Something from s to e (e NULL: still open, or an instant at s) that
 * overlaps the window. */
#define W_OVERLAPS(s, e)                                                                   \
    "(" W_SINCE " IS NULL OR coalesce(" e ", " s ") >= " W_SINCE ") AND (" W_UNTIL          \
    " IS NULL OR " s " <= " W_UNTIL ")"
/* A time no earlier than the window's start / no later than its end. */
#define W_LATEST(x) "max(" x ", coalesce(" W_SINCE ", " x "))"
#define W_EARLIEST(x) "min(" x ", coalesce(" W_UNTIL ", " x "))"

/* Run in order (each under the 4095 characters ISO C asks compilers to
 * support per string). */
static const char *const views_sql[] = {
    "DROP VIEW IF EXISTS temp.holds; DROP VIEW IF EXISTS temp.lock_waits;"
    "DROP VIEW IF EXISTS temp.row_waits; DROP VIEW IF EXISTS temp.hold_parts;"
    "DROP VIEW IF EXISTS temp.row_queue; DROP VIEW IF EXISTS temp.rows;"
    "CREATE TEMP VIEW lock_waits AS SELECT * FROM main.lock_waits w"
    " WHERE " W_OVERLAPS("w.start_ts", "coalesce(w.end_ts, w.logged_ts)") ";"
    "CREATE TEMP VIEW row_waits AS SELECT * FROM main.row_waits q"
    " WHERE " W_OVERLAPS("q.start_ts", "q.end_ts") ";"
    "CREATE TEMP VIEW row_queue AS SELECT p.rowid AS rowid, p.* FROM main.row_queue p"
    " WHERE " W_OVERLAPS("p.ts", "NULL") ";"
    "CREATE TEMP VIEW holds AS SELECT hold_id, row_id, tx_id, session_id, pid,"
    " " W_LATEST("h.start_ts") " AS start_ts, " W_LATEST("h.start_lo") " AS start_lo,"
    " " W_LATEST("h.start_hi") " AS start_hi,"
    " CASE WHEN h.start_ts < " W_SINCE " THEN 'the report window''s start (--since)'"
    "  ELSE h.start_evidence END AS start_evidence,"
    " " W_EARLIEST("h.end_ts") " AS end_ts, " W_EARLIEST("h.end_lo") " AS end_lo,"
    " " W_EARLIEST("h.end_hi") " AS end_hi,"
    " CASE WHEN h.end_ts > " W_UNTIL " THEN 'the report window''s end (--until)'"
    "  ELSE h.end_evidence END AS end_evidence,"
    " lock_stmt, waits, waiter_ms, max_queue, contended_ms, sql_ms, idle_ms, commit_ms,"
    " head_state, observed_state, observed_samples FROM main.holds h"
    " WHERE " W_OVERLAPS("h.start_ts", "h.end_ts") ";"
    "CREATE TEMP VIEW hold_parts AS SELECT p.rowid AS rowid, p.* FROM main.hold_parts p"
    " WHERE p.hold_id IN (SELECT hold_id FROM temp.holds);",
    "CREATE TEMP VIEW rows AS SELECT r.row_id, r.relation, r.row_key, r.evidence,"
    " r.grouped_by, r.ctids, coalesce(w.waits, 0) AS waits,"
    " coalesce(w.total_wait_ms, k.total_wait_ms) AS total_wait_ms,"
    " coalesce(w.max_wait_ms, k.max_wait_ms) AS max_wait_ms,"
    " h.holds, h.mean_hold_ms, CASE WHEN h.mean_hold_ms > 0 THEN 1000.0 / h.mean_hold_ms END"
    "  AS capacity_per_s,"
    " (SELECT max(depth) FROM temp.row_queue p WHERE p.row_id = r.row_id) AS max_queue,"
    " (SELECT p.ts FROM temp.row_queue p WHERE p.row_id = r.row_id ORDER BY p.depth DESC, p.ts"
    "  LIMIT 1) AS max_queue_ts,"
    " w.longest_chain, coalesce(w.first_ts, k.first_ts) AS first_ts,"
    " coalesce(w.last_ts, k.last_ts) AS last_ts, h.occupancy_holds, h.occupied_ms,"
    " q.hidden_wait_ms, q.logged_wait_ms, q.waited_statements,"
    " CASE WHEN h.last > h.first THEN min(1.0, h.occupied_ms * 1000.0 / (h.last - h.first))"
    "  END AS utilisation"
    " FROM main.rows r"
    " LEFT JOIN (SELECT row_id, count(*) AS waits, coalesce(sum(waited_ms), 0) AS total_wait_ms,"
    "  coalesce(max(waited_ms), 0) AS max_wait_ms, max(chain_depth) AS longest_chain,"
    "  min(start_ts) AS first_ts, max(coalesce(end_ts, logged_ts, start_ts)) AS last_ts"
    "  FROM temp.lock_waits GROUP BY row_id) w ON w.row_id = r.row_id"
    /* A row a threshold log shows only by its slow lockers (slowkeys.c:
     * no wait logged) is the window's when some of its lockers' statements
     * lie inside it; its figures are theirs, as the pass's are the whole
     * log's: their durations summed (a lower bound) and the longest (each
     * an upper bound). Its holds are those lockers' (their lock_stmt). */
    " LEFT JOIN (SELECT r2.row_id AS row_id, sum(s.duration_ms) AS total_wait_ms,"
    "  max(s.duration_ms) AS max_wait_ms, min(s.start_ts) AS first_ts, max(s.end_ts) AS last_ts"
    "  FROM main.rows r2 JOIN main.holds h2 ON h2.row_id = r2.row_id"
    "  JOIN main.statements s ON s.stmt_id = h2.lock_stmt"
    "  WHERE r2.grouped_by = '" LS_SLOWKEY_EVIDENCE "' AND s.end_ts IS NOT NULL"
    "  AND (" W_SINCE " IS NULL OR s.start_ts >= " W_SINCE ")"
    "  AND (" W_UNTIL " IS NULL OR s.end_ts <= " W_UNTIL ")"
    "  GROUP BY r2.row_id) k ON k.row_id = r.row_id"
    " LEFT JOIN (SELECT row_id, sum(waits > 0) AS holds, count(*) AS occupancy_holds,"
    "  sum(end_ts - start_ts) / 1000.0 AS occupied_ms,"
    "  sum(end_ts - start_ts) / 1000.0 / count(*) AS mean_hold_ms,"
    "  min(start_ts) AS first, max(end_ts) AS last"
    "  FROM temp.holds WHERE end_ts IS NOT NULL GROUP BY row_id) h ON h.row_id = r.row_id"
    " LEFT JOIN (SELECT row_id, coalesce(sum(max(0, wait_ms - logged_ms)), 0) AS hidden_wait_ms,"
    "  coalesce(sum(logged_ms), 0) AS logged_wait_ms, sum(wait_ms > 20) AS waited_statements"
    "  FROM temp.row_waits GROUP BY row_id) q ON q.row_id = r.row_id"
    " WHERE w.row_id IS NOT NULL OR k.row_id IS NOT NULL;",
};

static const char leave_sql[] =
    "DROP VIEW IF EXISTS temp.holds; DROP VIEW IF EXISTS temp.lock_waits;"
    "DROP VIEW IF EXISTS temp.row_waits; DROP VIEW IF EXISTS temp.hold_parts;"
    "DROP VIEW IF EXISTS temp.row_queue; DROP VIEW IF EXISTS temp.rows;"
    "DROP TABLE IF EXISTS temp.report_window; DROP TABLE IF EXISTS temp.logcover;";

/* The scope's own findings, dropped on leave. */
static const char drop_findings_sql[] =
    "DROP TABLE IF EXISTS temp.findings; DROP TABLE IF EXISTS temp.finding_fields;";

/* The label (col 1) or source (col 2) column of tx_code of grouping
 * group_by (ls_grouping.h), or NULL for a name that is none. */
static const char *grouping_col(const char *group_by, int col)
{
    const ls_grouping *g = ls_grouping_find(group_by);
    return !g ? NULL : col == 1 ? g->label : g->source;
}

static const char *label_of(const char *group_by)
{
    return grouping_col(group_by, 1);
}

static int window_set(int64_t t)
{
    return t != 0 && t != LS_TS_NONE;
}

/* The window's views; 0 or a store error (then nothing is left behind). */
static int window_enter(ls_store *s, int64_t since, int64_t until)
{
    ls_stmt *q = NULL;
    size_t i;
    int rc;

    if ((rc = ls_store_exec(s, window_sql)) != 0 ||
        (rc = ls_store_prepare_params(s, window_row_sql, LS_PARAM_NAMES(WINDOW_PARAMS), &q)) != 0)
        return rc;
    rc = window_set(since) ? ls_stmt_bind_int64(q, LS_PARAM(wp, since), since)
                           : ls_stmt_bind_null(q, LS_PARAM(wp, since));
    if (!rc)
        rc = window_set(until) ? ls_stmt_bind_int64(q, LS_PARAM(wp, until), until)
                               : ls_stmt_bind_null(q, LS_PARAM(wp, until));
    if (!rc && ls_stmt_step(q) < 0)
        rc = LS_ESTORE;
    ls_stmt_finalize(q);
    for (i = 0; !rc && i < sizeof(views_sql) / sizeof(views_sql[0]); i++)
        rc = ls_store_exec(s, views_sql[i]);
    return rc;
}

/* Does the store hold the findings the pass decided (a table made by
 * schema 13's findings)? 1, 0, or a store error. */
static int findings_stored(ls_store *s)
{
    ls_stmt *q = NULL;
    int rc = ls_store_prepare(s,
                              "SELECT 1 FROM main.sqlite_master"
                              " WHERE type = 'table' AND name = 'findings'",
                              &q);
    if (rc == 0)
        rc = ls_stmt_step(q);
    ls_stmt_finalize(q);
    return rc;
}

int ls_correlate_scope_enter(ls_store *s, const char *group_by, int64_t since, int64_t until)
{
    const char *name = group_by ? group_by : ls_grouping_default()->name;
    ls_findings_scope sc = {name, label_of(name), since, until, 1};
    int windowed = window_set(since) || window_set(until), own, rc = 0;

    if (!sc.label_sql)
        return LS_EUSAGE;
    /* The window's holds' logging verdict (logging.c) over its views. */
    if (windowed && ((rc = window_enter(s, since, until)) != 0 ||
                     (rc = ls_correlate_logcover_scope(s)) != 0)) {
        ls_correlate_scope_leave(s);
        return rc;
    }
    /* Decided here only what the pass did not: a window, another
     * grouping's labels, a store without the table. */
    own = windowed || strcmp(name, ls_grouping_default()->name) != 0;
    if (!own && (rc = findings_stored(s)) >= 0)
        own = rc == 0;
    if (rc >= 0 && own)
        rc = ls_findings_write(s, &sc);
    /* The code-path rankings likewise (summary.c): the stored ones are
     * the default grouping's over the whole log. */
    if (rc >= 0 && (windowed || strcmp(name, ls_grouping_default()->name) != 0))
        rc = ls_correlate_summary_scope(s, sc.label_sql, grouping_col(name, 2), windowed);
    /* The blocking ranking's ranges, where the log's times are whole
     * seconds: summed for every report, as the store has no column for
     * them (schema 18; summary.c). */
    if (rc >= 0)
        rc = ls_correlate_caused_ranges(s, sc.label_sql, grouping_col(name, 2));
    if (rc < 0) {
        ls_correlate_scope_leave(s);
        return rc;
    }
    return 0;
}

int ls_correlate_scope_leave(ls_store *s)
{
    int rc = ls_store_exec(s, leave_sql);
    int rc2 = ls_store_exec(s, drop_findings_sql);
    int rc3 = ls_correlate_summary_leave(s);
    return rc ? rc : rc2 ? rc2 : rc3;
}
