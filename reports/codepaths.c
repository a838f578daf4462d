/*
 * codepaths.c — the report's headline: which code paths hold locks
 * longest, what they did meanwhile, and which take relations in opposite
 * orders.
 *
 * A code path names a transaction by the best evidence correlation found
 * (tx_code): span code attributes, the route of its server span, its
 * service, sqlcommenter or marginalia tags, application_name, or the shape
 * of its first write. The --group-by option picks the first choice; the
 * others stand in when it is missing, and the model says which was used.
 */
#include <stdio.h>
#include <string.h>

#include "codepath.h"
#include "model_int.h"

/* Label and source expressions over tx_code aliased c, per grouping. */
static const struct {
    const char *name;
    const char *label;
    const char *source;
} groupings[] = {
    {"function",
     /* span code attributes, and controller + action from the SQL, are
      * named by one rule (codepath.h), so a path has one name with
      * traces and without */
     "coalesce(CASE WHEN c.code_function IS NOT NULL THEN "
     LS_CODE_NAME_SQL("c.code_namespace", "c.code_function") " END,"
     " CASE WHEN c.tag_controller IS NOT NULL THEN "
     LS_CODE_NAME_SQL("c.tag_controller", "c.tag_action") " END, c.route, c.tag_route, c.root_name, c.application,"
     " c.shape, 'unknown')",
     "CASE WHEN c.code_function IS NOT NULL THEN 'span code attributes'"
     " WHEN c.tag_controller IS NOT NULL THEN 'sqlcommenter tags'"
     " WHEN c.route IS NOT NULL THEN 'span route' WHEN c.tag_route IS NOT NULL"
     " THEN 'sqlcommenter tags' WHEN c.root_name IS NOT NULL THEN 'span name'"
     " WHEN c.application IS NOT NULL THEN 'application_name'"
     " WHEN c.shape IS NOT NULL THEN 'statement shape' ELSE 'none' END"},
    {"route",
     "coalesce(c.route, c.tag_route, c.root_name, c.application, c.shape, 'unknown')",
     "CASE WHEN c.route IS NOT NULL THEN 'span route' WHEN c.tag_route IS NOT NULL"
     " THEN 'sqlcommenter tags' WHEN c.root_name IS NOT NULL THEN 'span name'"
     " WHEN c.application IS NOT NULL THEN 'application_name'"
     " WHEN c.shape IS NOT NULL THEN 'statement shape' ELSE 'none' END"},
    {"service",
     "coalesce(c.service, c.tag_application, c.application, 'unknown')",
     "CASE WHEN c.service IS NOT NULL THEN 'span service'"
     " WHEN c.tag_application IS NOT NULL THEN 'sqlcommenter tags'"
     " WHEN c.application IS NOT NULL THEN 'application_name' ELSE 'none' END"},
    {"application", "coalesce(c.application, 'unknown')",
     "CASE WHEN c.application IS NOT NULL THEN 'application_name' ELSE 'none' END"},
    {"statement", "coalesce(c.shape, 'unknown')",
     "CASE WHEN c.shape IS NOT NULL THEN 'statement shape' ELSE 'none' END"},
};

static int grouping_of(const char *name)
{
    size_t i;
    for (i = 0; name && i < sizeof(groupings) / sizeof(groupings[0]); i++)
        if (strcmp(groupings[i].name, name) == 0)
            return (int)i;
    return 0;
}

const char *ls_model_code_path_label(const char *group_by)
{
    return groupings[grouping_of(group_by)].label;
}

/*
 * Blocking ranking, per code path: holds others waited for (blocking episodes) on hot rows, total / max / p95
 * hold, the waiting caused to others, and the waits it suffered itself.
 * The p95 is the nearest-rank value over the path's holds.
 */
static const char ranking_fmt[] =
    "WITH labeled AS (SELECT h.hold_id, h.waits, h.waiter_ms,"
    "  (h.end_ts - h.start_ts) / 1000.0 AS hold_ms, %s AS label, %s AS source"
    "  FROM holds h LEFT JOIN tx_code c ON c.tx_id = h.tx_id WHERE h.waits > 0),"
    " ranked AS (SELECT *, row_number() OVER (PARTITION BY label ORDER BY hold_ms) AS rn,"
    "  count(*) OVER (PARTITION BY label) AS n FROM labeled),"
    " suffered AS (SELECT %s AS label, count(*) AS waits, sum(w.waited_ms) AS ms"
    "  FROM lock_waits w LEFT JOIN tx_code c ON c.tx_id = w.waiter_tx GROUP BY 1)"
    " SELECT r.label, min(r.source), count(*), sum(r.waits), sum(r.hold_ms), max(r.hold_ms),"
    "  max(CASE WHEN r.rn = (95 * r.n + 99) / 100 THEN r.hold_ms END), sum(r.waiter_ms),"
    "  coalesce(s.waits, 0), coalesce(s.ms, 0)"
    " FROM ranked r LEFT JOIN suffered s ON s.label = r.label"
    " GROUP BY r.label ORDER BY sum(r.hold_ms) DESC, r.label LIMIT ?1";

/*
 * Occupancy ranking, per code path: every hold of a hot row, whether or not
 * anyone waited long enough to be logged (rebuilt from statement logging):
 * how long the path keeps the rows others need, and its share of the time
 * the hot rows were held.
 */
static const char occupancy_fmt[] =
    "WITH labeled AS (SELECT (h.end_ts - h.start_ts) / 1000.0 AS hold_ms, h.waits,"
    "  %s AS label, %s AS source FROM holds h LEFT JOIN tx_code c ON c.tx_id = h.tx_id"
    "  WHERE h.end_ts IS NOT NULL),"
    " ranked AS (SELECT *, row_number() OVER (PARTITION BY label ORDER BY hold_ms) AS rn,"
    "  count(*) OVER (PARTITION BY label) AS n FROM labeled)"
    " SELECT label, min(source), count(*), sum(hold_ms), max(hold_ms),"
    "  max(CASE WHEN rn = (95 * n + 99) / 100 THEN hold_ms END),"
    "  sum(CASE WHEN waits > 0 THEN 1 ELSE 0 END),"
    "  sum(hold_ms) * 100.0 / (SELECT sum(hold_ms) FROM labeled)"
    " FROM ranked GROUP BY label ORDER BY sum(hold_ms) DESC, label LIMIT ?1";

/*
 * Queueing for hot rows per code path, logged and hidden (row_waits): the
 * waiting a path's holds caused (the statements queued behind them) and
 * the waiting its own statements suffered.
 */
static const char queueing_fmt[] =
    "WITH q AS (SELECT w.wait_ms AS ms, coalesce(w.logged_ms, 0) AS lg,"
    "  (SELECT %s FROM tx_code c WHERE c.tx_id = w.behind_tx) AS behind,"
    "  (SELECT %s FROM tx_code c WHERE c.tx_id = w.tx_id) AS waiter FROM row_waits w),"
    " s AS (SELECT behind AS label, 1 AS caused, ms, lg FROM q"
    "  UNION ALL SELECT waiter, 0, ms, lg FROM q)"
    " SELECT label, sum(caused AND ms > 20),"
    "  sum(CASE WHEN caused THEN max(0, ms - lg) END), sum(CASE WHEN caused THEN lg END),"
    "  sum(NOT caused AND ms > 20), sum(CASE WHEN NOT caused THEN max(0, ms - lg) END),"
    "  sum(CASE WHEN NOT caused THEN lg END)"
    " FROM s WHERE label IS NOT NULL GROUP BY label ORDER BY 3 DESC, 4 DESC, label LIMIT ?1";

static void queueing_row(model_ctx *m, ls_stmt *q, void *arg)
{
    cJSON *o = cJSON_CreateObject();
    ls_model_col_str(o, "code_path", q, 0);
    ls_model_col_int(o, "statements_queued_behind", q, 1);
    ls_model_col_ms(o, "hidden_wait_ms_caused", q, 2);
    ls_model_col_ms(o, "logged_wait_ms_caused", q, 3);
    ls_model_col_int(o, "statements_waited", q, 4);
    ls_model_col_ms(o, "hidden_wait_ms_suffered", q, 5);
    ls_model_col_ms(o, "logged_wait_ms_suffered", q, 6);
    cJSON_AddItemToArray(arg, o);
    (void)m;
}

static void occupancy_row(model_ctx *m, ls_stmt *q, void *arg)
{
    cJSON *o = cJSON_CreateObject();
    ls_model_col_str(o, "code_path", q, 0);
    ls_model_col_str(o, "named_by", q, 1);
    ls_model_col_int(o, "holds", q, 2);
    ls_model_col_ms(o, "total_hold_ms", q, 3);
    ls_model_col_ms(o, "max_hold_ms", q, 4);
    ls_model_col_ms(o, "p95_hold_ms", q, 5);
    ls_model_col_int(o, "holds_waited_for", q, 6);
    ls_model_col_ms(o, "share_pct", q, 7);
    cJSON_AddItemToArray(arg, o);
    (void)m;
}

/* Where the path's hold time went: the parts summed over its holds. */
static const char parts_fmt[] =
    "SELECT p.part, p.name, sum(p.ms) FROM hold_parts p JOIN holds h ON h.hold_id = p.hold_id"
    " LEFT JOIN tx_code c ON c.tx_id = h.tx_id WHERE h.waits > 0 AND %s = ?1"
    " GROUP BY p.part, p.name ORDER BY sum(p.ms) DESC LIMIT 20";

/* Pairs of code paths that write the same two relations in opposite orders. */
static const char order_fmt[] =
    "WITH o AS (SELECT DISTINCT %s AS label, a.relation AS r1, b.relation AS r2"
    "  FROM lock_order a JOIN lock_order b ON b.tx_id = a.tx_id AND b.seq > a.seq"
    "  LEFT JOIN tx_code c ON c.tx_id = a.tx_id)"
    " SELECT x.label, x.r1, x.r2, y.label FROM o x JOIN o y"
    "  ON y.r1 = x.r2 AND y.r2 = x.r1 AND x.label <= y.label"
    " WHERE NOT (x.label = y.label AND x.r1 > x.r2)"
    " ORDER BY x.label, y.label, x.r1, x.r2 LIMIT 50";

typedef struct parts_ctx {
    cJSON *list;
} parts_ctx;

static void part_row(model_ctx *m, ls_stmt *q, void *arg)
{
    cJSON *o = cJSON_CreateObject();
    ls_model_col_str(o, "part", q, 0);
    ls_model_col_str(o, "name", q, 1);
    ls_model_col_ms(o, "ms", q, 2);
    cJSON_AddItemToArray(((parts_ctx *)arg)->list, o);
    (void)m;
}

static void order_row(model_ctx *m, ls_stmt *q, void *arg)
{
    cJSON *o = cJSON_CreateObject();
    ls_model_col_str(o, "code_path", q, 0);
    ls_model_col_str(o, "first", q, 1);
    ls_model_col_str(o, "then", q, 2);
    ls_model_col_str(o, "other_code_path", q, 3);
    cJSON_AddItemToArray(arg, o);
    (void)m;
}

void ls_model_code_paths(model_ctx *m, cJSON *report, int top)
{
    int g = grouping_of(m->opts->group_by);
    char sql[16384], parts_sql[8192], order_sql[16384]; /* the labels are long SQL */
    cJSON *list;
    ls_stmt *q = NULL, *parts = NULL;
    int rc;

    cJSON_AddStringToObject(report, "code_path_grouping", groupings[g].name);
    list = cJSON_AddArrayToObject(report, "code_paths");
    snprintf(sql, sizeof(sql), ranking_fmt, groupings[g].label, groupings[g].source,
             groupings[g].label);
    snprintf(parts_sql, sizeof(parts_sql), parts_fmt, groupings[g].label);
    if ((rc = ls_store_prepare(m->store, sql, &q)) != 0 ||
        (rc = ls_store_prepare(m->store, parts_sql, &parts)) != 0)
        goto out;
    ls_stmt_bind_int64(q, 1, top);
    while ((rc = ls_stmt_step(q)) == 1) {
        cJSON *o = cJSON_CreateObject(), *pl;
        parts_ctx pc;
        ls_model_col_str(o, "code_path", q, 0);
        ls_model_col_str(o, "named_by", q, 1);
        ls_model_col_int(o, "blocking_episodes", q, 2);
        ls_model_col_int(o, "waits_caused", q, 3);
        ls_model_col_ms(o, "total_hold_ms", q, 4);
        ls_model_col_ms(o, "max_hold_ms", q, 5);
        ls_model_col_ms(o, "p95_hold_ms", q, 6);
        ls_model_col_ms(o, "waiter_ms_caused", q, 7);
        ls_model_col_int(o, "waits_suffered", q, 8);
        ls_model_col_ms(o, "waited_ms_suffered", q, 9);
        pl = cJSON_AddArrayToObject(o, "hold_breakdown");
        pc.list = pl;
        ls_stmt_reset(parts);
        ls_stmt_bind_text(parts, 1, ls_stmt_text(q, 0));
        while ((rc = ls_stmt_step(parts)) == 1)
            part_row(m, parts, &pc);
        if (rc < 0)
            goto out;
        cJSON_AddItemToArray(list, o);
    }
    if (rc < 0)
        goto out;
    snprintf(sql, sizeof(sql), queueing_fmt, groupings[g].label, groupings[g].label);
    ls_model_each_row(m, sql, top, queueing_row,
                      cJSON_AddArrayToObject(report, "row_queueing"));
    snprintf(sql, sizeof(sql), occupancy_fmt, groupings[g].label, groupings[g].source);
    ls_model_each_row(m, sql, top, occupancy_row,
                      cJSON_AddArrayToObject(report, "row_occupancy"));
    snprintf(order_sql, sizeof(order_sql), order_fmt, groupings[g].label);
    ls_model_each_row(m, order_sql, -1, order_row,
                      cJSON_AddArrayToObject(report, "lock_order_conflicts"));
out:
    if (rc < 0)
        m->rc = rc;
    ls_stmt_finalize(q);
    ls_stmt_finalize(parts);
}
