/*
 * codepaths.c — the report's headline: which code paths hold locks
 * longest and what they did meanwhile (which lock the same rows in
 * opposite orders: the findings, reports/findings.c).
 *
 * A code path names a transaction by the best evidence correlation found
 * (tx_code): span code attributes, the route of its server span, its
 * service, sqlcommenter or marginalia tags, application_name (or, where
 * that name does not tell paths apart, the transaction's shape: the
 * sequence of its statements), or the shape of its first write. The
 * --group-by option picks the first choice; the others stand in when it
 * is missing, and the model says which was used.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_range.h"
#include "ls_columns.h"
#include "model_int.h"

/* Each grouping's label and source: columns of the tx_code view (aliased
 * c), which names a transaction's code path under every grouping. The
 * first is the default. */
static const struct {
    const char *name;
    const char *label;
    const char *source;
} groupings[] = {
    {"function", "c.function_path", "c.function_source"},
    {"route", "c.route_path", "c.route_source"},
    {"service", "c.service_path", "c.service_source"},
    {"application", "c.application_path", "c.application_source"},
    {"statement", "c.statement_path", "c.statement_source"},
    {"shape", "c.shape_path", "c.shape_source"},
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

const char *ls_model_code_path_source(const char *group_by)
{
    return groupings[grouping_of(group_by)].source;
}

/*
 * Blocking ranking, per code path: holds others waited for (blocking episodes) on hot rows, total / max / p95
 * hold, the waiting caused to others, and the waits it suffered itself.
 * The p95 is the nearest-rank value over the path's holds.
 */
#define RANKING_COLS(X, Q)                                                       \
    X(Q, code_path, "r.label")                                                   \
    X(Q, named_by, "min(r.source)")                                              \
    X(Q, blocking_episodes, "count(*)")                                          \
    X(Q, waits_caused, "sum(r.waits)")                                           \
    X(Q, total_hold_ms, "sum(r.hold_ms)")                                        \
    X(Q, max_hold_ms, "max(r.hold_ms)")                                          \
    X(Q, p95_hold_ms, "max(CASE WHEN r.rn = (95 * r.n + 99) / 100 THEN r.hold_ms END)") \
    X(Q, waiter_ms_caused, "sum(r.waiter_ms)")                                   \
    X(Q, waits_suffered, "coalesce(s.waits, 0)")                                 \
    X(Q, waited_ms_suffered, "coalesce(s.ms, 0)")
LS_COLUMNS(rk, RANKING_COLS);
static const char ranking_fmt[] =
    "WITH labeled AS (SELECT h.hold_id, h.waits, h.waiter_ms,"
    "  (h.end_ts - h.start_ts) / 1000.0 AS hold_ms, %s AS label, %s AS source"
    "  FROM holds h LEFT JOIN tx_code c ON c.tx_id = h.tx_id WHERE h.waits > 0"
    "  AND" NOT_A_RELATION_LOCK("h.row_id") "),"
    " ranked AS (SELECT *, row_number() OVER (PARTITION BY label ORDER BY hold_ms) AS rn,"
    "  count(*) OVER (PARTITION BY label) AS n FROM labeled),"
    " suffered AS (SELECT %s AS label, count(*) AS waits, sum(w.waited_ms) AS ms"
    "  FROM lock_waits w LEFT JOIN tx_code c ON c.tx_id = w.waiter_tx GROUP BY 1)"
    " SELECT " LS_SELECT_LIST(rk, RANKING_COLS)
    " FROM ranked r LEFT JOIN suffered s ON s.label = r.label"
    " GROUP BY r.label ORDER BY sum(r.hold_ms) DESC, r.label LIMIT ?1";

/*
 * Occupancy ranking, per code path: every hold of a hot row, whether or not
 * anyone waited long enough to be logged (rebuilt from statement logging):
 * how long the path keeps the rows others need, and its share of the time
 * the hot rows were held. The holds are streamed and summed here, the p95
 * from a log-scale histogram (1 % apart): a log has hundreds of thousands
 * of holds, and sorting them all in SQLite took tens of MB. The same scan
 * gathers what the story tells of the top path (model_story_path): each
 * path's holds the log bounds and its time on each row, which two scans
 * of every hold per path gave before.
 */
/* A hold's length: where the log's times are whole seconds, the estimate
 * and the range the log allows (hold_range, holdtimes.c), else its end
 * minus its start (no range). */
#define OCCUPANCY_COLS(X, Q)                       \
    X(Q, label, "%s")                              \
    X(Q, hold_id, "h.hold_id")                     \
    X(Q, waited, "h.waits > 0")                    \
    X(Q, row_id, "h.row_id")                       \
    X(Q, hold_us, "coalesce(r.est_us, h.end_ts - h.start_ts)") \
    X(Q, bounded, "coalesce(h.start_evidence LIKE 'bounded by%%'" \
                  " OR h.end_evidence LIKE 'bounded by%%'"       \
                  " OR h.end_evidence LIKE 'first waiter acquired%%', 0)") \
    X(Q, lo_ms, "r.lo_us / 1000.0")                \
    X(Q, hi_ms, "r.hi_us / 1000.0")
LS_COLUMNS(oc, OCCUPANCY_COLS);
static const char occupancy_fmt[] =
    "SELECT " LS_SELECT_LIST(oc, OCCUPANCY_COLS)
    " FROM holds h LEFT JOIN tx_code c ON c.tx_id = h.tx_id"
    " LEFT JOIN hold_range r ON r.hold_id = h.hold_id WHERE h.end_ts IS NOT NULL"
    " AND" NOT_A_RELATION_LOCK("h.row_id");
/* What named a path (the %s): of the hold that was its first in
 * occupancy_fmt's order, asked once per path, not for every hold (the
 * source's SQL looks up the transaction's names again: 2.5 M of the
 * query's 10 M SQLite VM steps on the 256 MiB bench log). */
static const char occupancy_source_fmt[] =
    "SELECT %s FROM holds h LEFT JOIN tx_code c ON c.tx_id = h.tx_id WHERE h.hold_id = ?1";

#define OCC_PER_DECADE 200 /* histogram buckets per factor of ten */
#define OCC_MIN_LOG10 (-3) /* 1 µs */
#define OCC_BUCKETS (11 * OCC_PER_DECADE) /* up to 10^8 ms */

typedef struct occ_row {
    int64_t row_id, us;
    int timed; /* has a hold with both times (else its sum is NULL in SQL) */
} occ_row;

typedef struct occ_path {
    char *label, *source;
    int64_t n, waited, bounded, ranged; /* ranged: holds with a range (whole seconds) */
    double total, max, total_lo, total_hi; /* total_lo..total_hi: what the log allows */
    uint32_t hist[OCC_BUCKETS];
    occ_row *rows; /* its time on each row (a few hundred hot rows at most) */
    size_t nrows, last_row;
} occ_path;

/* Add `us` (timed: not NULL) to path o's time on row `row_id`; LS_ENOMEM
 * when out of memory. */
static int occ_add_row(occ_path *o, int64_t row_id, int64_t us, int timed)
{
    size_t i;
    if (o->last_row < o->nrows && o->rows[o->last_row].row_id == row_id) {
        o->rows[o->last_row].us += us;
        o->rows[o->last_row].timed |= timed;
        return 0;
    }
    for (i = 0; i < o->nrows; i++)
        if (o->rows[i].row_id == row_id)
            break;
    if (i == o->nrows) {
        occ_row *nr = realloc(o->rows, (o->nrows + 1) * sizeof(*nr));
        if (!nr)
            return LS_ENOMEM;
        o->rows = nr;
        o->rows[o->nrows].row_id = row_id;
        o->rows[o->nrows].timed = 0;
        o->rows[o->nrows++].us = 0;
    }
    o->rows[i].us += us;
    o->rows[i].timed |= timed;
    o->last_row = i;
    return 0;
}

/* Does row a come before row b in SQL's ORDER BY sum DESC, row_id (a NULL
 * sum last)? */
static int occ_row_before(const occ_row *a, const occ_row *b)
{
    if (a->timed != b->timed)
        return a->timed;
    if (a->timed && a->us != b->us)
        return a->us > b->us;
    return a->row_id < b->row_id;
}

/* The story's figures of path o (the top one): the row it held longest
 * (ties: the smaller row_id), as story.c asked the store before. */
static void occ_story(model_ctx *m, const occ_path *o)
{
    const occ_row *best = NULL;
    size_t i;
    memset(&m->story, 0, sizeof(m->story));
    m->story.known = 1;
    m->story.holds = o->n;
    m->story.bounded = o->bounded;
    for (i = 0; i < o->nrows; i++)
        if (!best || occ_row_before(&o->rows[i], best))
            best = &o->rows[i];
    if (best) {
        m->story.row_id = best->row_id;
        m->story.row_us = best->us;
        m->story.row_timed = best->timed;
    }
}

static int occ_bucket(double ms)
{
    double b;
    if (ms <= 0)
        return 0;
    b = (log10(ms) - OCC_MIN_LOG10) * OCC_PER_DECADE;
    return b < 0 ? 0 : b >= OCC_BUCKETS ? OCC_BUCKETS - 1 : (int)b;
}

/* The nearest-rank p95, as the upper edge of its bucket (never above the max). */
static double occ_p95(const occ_path *o)
{
    int64_t want = (95 * o->n + 99) / 100, seen = 0;
    int b;
    for (b = 0; b < OCC_BUCKETS; b++) {
        seen += o->hist[b];
        if (seen >= want) {
            double up = pow(10.0, (double)(b + 1) / OCC_PER_DECADE + OCC_MIN_LOG10);
            return up < o->max ? up : o->max;
        }
    }
    return o->max;
}

static int occ_by_total(const void *a, const void *b)
{
    const occ_path *x = *(occ_path *const *)a, *y = *(occ_path *const *)b;
    if (x->total != y->total)
        return x->total < y->total ? 1 : -1;
    return strcmp(x->label, y->label);
}

static int64_t us_of(double ms)
{
    return (int64_t)llround(ms * 1000.0);
}

/*
 * Where the log's times are whole seconds: path i's total as the range
 * the log allows (total_hold_min_ms..total_hold_max_ms), and the paths
 * listed (of the first `top`) whose ranges meet its own, whose order
 * against it the log cannot tell (order_uncertain, order_uncertain_with).
 */
static void occ_ranges(cJSON *o, occ_path *const *paths, size_t n, size_t i, int top)
{
    cJSON *with = cJSON_CreateArray();
    size_t j;

    cJSON_AddNumberToObject(o, "total_hold_min_ms", round(paths[i]->total_lo * 1000.0) / 1000.0);
    cJSON_AddNumberToObject(o, "total_hold_max_ms", round(paths[i]->total_hi * 1000.0) / 1000.0);
    for (j = 0; with && j < n && (top < 0 || j < (size_t)top); j++)
        if (j != i && ls_ranges_overlap(us_of(paths[i]->total_lo), us_of(paths[i]->total_hi),
                                        us_of(paths[j]->total_lo), us_of(paths[j]->total_hi)))
            cJSON_AddItemToArray(with, cJSON_CreateString(paths[j]->label));
    cJSON_AddBoolToObject(o, "order_uncertain", cJSON_GetArraySize(with) > 0);
    if (with)
        cJSON_AddItemToObject(o, "order_uncertain_with", with);
}

/* Path o's source: that of hold hold_id (occupancy_source_fmt, `src`).
 * 0 or an error code. */
static int occ_source(ls_stmt *src, int64_t hold_id, occ_path *o)
{
    int rc;
    ls_stmt_reset(src);
    ls_stmt_bind_int64(src, 1, hold_id);
    if ((rc = ls_stmt_step(src)) < 0)
        return rc;
    if (rc == 1 && !ls_stmt_isnull(src, 0) && !(o->source = ls_strdup(ls_stmt_text(src, 0))))
        return LS_ENOMEM;
    return 0;
}

static void occupancy(model_ctx *m, cJSON *list, const char *sql, const char *source_sql,
                      int top)
{
    occ_path **paths = NULL;
    size_t n = 0, i;
    int ranged = 0;
    double all = 0;
    ls_stmt *q = NULL, *src = NULL;
    int rc;

    if ((rc = ls_store_prepare(m->store, sql, &q)) != 0 ||
        (rc = ls_store_prepare(m->store, source_sql, &src)) != 0) {
        ls_stmt_finalize(q);
        m->rc = rc;
        return;
    }
    while ((rc = ls_stmt_step(q)) == 1) {
        const char *label = ls_stmt_isnull(q, oc_label) ? "unknown" : ls_stmt_text(q, oc_label);
        double ms = (double)ls_stmt_int64(q, oc_hold_us) / 1000.0;
        occ_path *o = NULL;
        /* Paths are few (functions, routes, applications): a linear search,
         * most recent first. */
        for (i = n; i-- > 0;)
            if (strcmp(paths[i]->label, label) == 0) {
                o = paths[i];
                break;
            }
        if (!o) {
            occ_path **np = realloc(paths, (n + 1) * sizeof(*paths));
            if (!np || !(o = ls_calloc(1, sizeof(*o)))) {
                free(np ? np : paths);
                paths = NULL;
                n = 0;
                rc = LS_ENOMEM;
                break;
            }
            paths = np;
            paths[n++] = o;
            o->label = ls_strdup(label);
            if (!o->label) {
                rc = LS_ENOMEM;
                break;
            }
            if ((rc = occ_source(src, ls_stmt_int64(q, oc_hold_id), o)) != 0)
                break;
        }
        o->n++;
        o->total += ms;
        all += ms;
        if (ms > o->max)
            o->max = ms;
        o->waited += ls_stmt_int64(q, oc_waited);
        o->bounded += ls_stmt_int64(q, oc_bounded);
        if (!ls_stmt_isnull(q, oc_lo_ms) && !ls_stmt_isnull(q, oc_hi_ms)) {
            o->ranged++;
            o->total_lo += ls_stmt_double(q, oc_lo_ms);
            o->total_hi += ls_stmt_double(q, oc_hi_ms);
        } else {
            o->total_lo += ms;
            o->total_hi += ms;
        }
        o->hist[occ_bucket(ms)]++;
        if (!ls_stmt_isnull(q, oc_row_id) &&
            (rc = occ_add_row(o, ls_stmt_int64(q, oc_row_id), ls_stmt_int64(q, oc_hold_us),
                              !ls_stmt_isnull(q, oc_hold_us))) != 0)
            break;
    }
    ls_stmt_finalize(q);
    ls_stmt_finalize(src);
    if (rc < 0)
        m->rc = rc;
    else if (n) {
        qsort(paths, n, sizeof(*paths), occ_by_total);
        occ_story(m, paths[0]);
    }
    for (i = 0; i < n; i++)
        ranged |= paths[i]->ranged > 0;
    for (i = 0; rc >= 0 && i < n && (top < 0 || i < (size_t)top); i++) {
        cJSON *o = cJSON_CreateObject();
        ls_model_add_str(o, "code_path", paths[i]->label);
        ls_model_add_str(o, "named_by", paths[i]->source);
        cJSON_AddNumberToObject(o, "holds", (double)paths[i]->n);
        cJSON_AddNumberToObject(o, "total_hold_ms", round(paths[i]->total * 1000.0) / 1000.0);
        cJSON_AddNumberToObject(o, "max_hold_ms", round(paths[i]->max * 1000.0) / 1000.0);
        cJSON_AddNumberToObject(o, "p95_hold_ms", round(occ_p95(paths[i]) * 1000.0) / 1000.0);
        cJSON_AddNumberToObject(o, "holds_waited_for", (double)paths[i]->waited);
        cJSON_AddNumberToObject(o, "share_pct",
                                all > 0 ? round(paths[i]->total * 100000.0 / all) / 1000.0 : 0);
        if (ranged)
            occ_ranges(o, paths, n, i, top);
        cJSON_AddItemToArray(list, o);
    }
    for (i = 0; i < n; i++) {
        free(paths[i]->label);
        free(paths[i]->source);
        free(paths[i]->rows);
        free(paths[i]);
    }
    free(paths);
}

/*
 * Queueing for hot rows per code path, logged and hidden (row_waits): the
 * waiting a path's holds caused (the statements queued behind them) and
 * the waiting its own statements suffered. A wait queued behind several
 * holds (holds of a row do not overlap) is shared among them by the part
 * of it each covered, its hidden and logged parts alike; a statement that
 * waited over 20 ms counts as queued behind the path that covered most of
 * it (as a request's "waited behind", requests.c); a wait no
 * known hold covers goes whole to the hold that had the row when it
 * started (behind_tx). An overlap under COVER_MIN_US is not a share: both
 * holds' bounds and the wait's come from millisecond log times, and
 * separate runs of one workload would name a path there one time and not
 * the next. Which holds covered which wait, and by how much, correlation
 * found (row_cover, src/correlate/cover.c). A path listed that caused (or
 * suffered) none has 0 ms there.
 */
#define QUEUEING_COLS(X, Q)                                                       \
    X(Q, code_path, "label")                                                      \
    X(Q, statements_queued_behind, "sum(caused AND over)")                        \
    X(Q, hidden_wait_ms_caused, "total(CASE WHEN caused THEN hid END)")           \
    X(Q, logged_wait_ms_caused, "total(CASE WHEN caused THEN lgd END)")           \
    X(Q, statements_waited, "sum(NOT caused AND over)")                           \
    X(Q, hidden_wait_ms_suffered, "total(CASE WHEN NOT caused THEN hid END)")     \
    X(Q, logged_wait_ms_suffered, "total(CASE WHEN NOT caused THEN lgd END)")
LS_COLUMNS(qu, QUEUEING_COLS);
/* Each %s is the grouping's label over tx_code c, which each wait's and
 * each covering hold's transaction is looked up in by its key (a WITH
 * table of the labels, even MATERIALIZED, is scanned once per row: 800 M
 * SQLite VM steps on the 256 MiB bench log). */
static const char queueing_fmt[] =
    "WITH cov AS (SELECT rw_id, tx_id, us FROM row_cover),"
    " tot AS (SELECT rw_id, sum(us) AS us FROM cov GROUP BY rw_id),"
    " part AS (SELECT c.rw_id, c.tx_id, c.us * 1.0 / t.us AS f, c.us FROM cov c"
    "  JOIN tot t ON t.rw_id = c.rw_id WHERE t.us > 0"
    "  UNION ALL SELECT w.rw_id, w.behind_tx, 1.0, w.wait_ms * 1000 FROM row_waits w"
    "  WHERE w.rw_id NOT IN (SELECT rw_id FROM tot WHERE us > 0)),"
    " q AS (SELECT w.wait_ms AS ms, coalesce(w.logged_ms, 0) AS lg, %s AS waiter"
    "  FROM row_waits w LEFT JOIN tx_code c ON c.tx_id = w.tx_id),"
    " caused AS (SELECT %s AS label,"
    "  w.rw_id, sum(p.f) AS f, sum(p.us) AS us, w.wait_ms AS ms, coalesce(w.logged_ms, 0) AS lg"
    "  FROM part p JOIN row_waits w ON w.rw_id = p.rw_id"
    "  LEFT JOIN tx_code c ON c.tx_id = p.tx_id"
    "  GROUP BY 1, 2),"
    " ranked AS (SELECT *, row_number() OVER (PARTITION BY rw_id ORDER BY us DESC, label)"
    "  AS rn FROM caused),"
    " s AS (SELECT label, 1 AS caused, rn = 1 AND ms > 20 AS over, f * max(0, ms - lg) AS hid,"
    "  f * lg AS lgd FROM ranked"
    "  UNION ALL SELECT waiter, 0, ms > 20, max(0, ms - lg), lg FROM q)"
    " SELECT " LS_SELECT_LIST(qu, QUEUEING_COLS)
    " FROM s WHERE label IS NOT NULL GROUP BY label ORDER BY 3 DESC, 4 DESC, label LIMIT ?1";

static void queueing_row(model_ctx *m, ls_stmt *q, void *arg)
{
    cJSON *o = cJSON_CreateObject();
    ls_model_col_str(o, "code_path", q, qu_code_path);
    ls_model_col_int(o, "statements_queued_behind", q, qu_statements_queued_behind);
    ls_model_col_ms(o, "hidden_wait_ms_caused", q, qu_hidden_wait_ms_caused);
    ls_model_col_ms(o, "logged_wait_ms_caused", q, qu_logged_wait_ms_caused);
    ls_model_col_int(o, "statements_waited", q, qu_statements_waited);
    ls_model_col_ms(o, "hidden_wait_ms_suffered", q, qu_hidden_wait_ms_suffered);
    ls_model_col_ms(o, "logged_wait_ms_suffered", q, qu_logged_wait_ms_suffered);
    cJSON_AddItemToArray(arg, o);
    (void)m;
}

/* Where the path's hold time went: the parts summed over its holds. */
#define PARTS_COLS(X, Q)    \
    X(Q, part, "p.part")    \
    X(Q, name, "p.name")    \
    X(Q, ms, "sum(p.ms)")
LS_COLUMNS(pa, PARTS_COLS);
static const char parts_fmt[] =
    "SELECT " LS_SELECT_LIST(pa, PARTS_COLS)
    " FROM hold_parts p JOIN holds h ON h.hold_id = p.hold_id"
    " LEFT JOIN tx_code c ON c.tx_id = h.tx_id WHERE h.waits > 0 AND %s = ?1"
    " AND" NOT_A_RELATION_LOCK("h.row_id")
    " GROUP BY p.part, p.name ORDER BY sum(p.ms) DESC LIMIT 20";

typedef struct parts_ctx {
    cJSON *list;
} parts_ctx;

static void part_row(model_ctx *m, ls_stmt *q, void *arg)
{
    cJSON *o = cJSON_CreateObject();
    ls_model_col_str(o, "part", q, pa_part);
    ls_model_col_str(o, "name", q, pa_name);
    ls_model_col_ms(o, "ms", q, pa_ms);
    cJSON_AddItemToArray(((parts_ctx *)arg)->list, o);
    (void)m;
}

/* Each path of `list` named by its transaction's shape gets the full
 * sequence of normalized statements behind its label ("statements"): the
 * label keeps verbs and relations, cut to a sane length. */
static int add_sequences(model_ctx *m, cJSON *list)
{
    ls_stmt *q = NULL;
    cJSON *o;
    int rc;

    if ((rc = ls_store_prepare(m->store, "SELECT sequence FROM tx_shapes WHERE label = ?1",
                               &q)) != 0)
        return rc;
    cJSON_ArrayForEach(o, list) {
        const cJSON *by = cJSON_GetObjectItemCaseSensitive(o, "named_by");
        const cJSON *label = cJSON_GetObjectItemCaseSensitive(o, "code_path");
        if (!cJSON_IsString(by) || strcmp(by->valuestring, "transaction shape") != 0 ||
            !cJSON_IsString(label))
            continue;
        ls_stmt_reset(q);
        ls_stmt_bind_text(q, 1, label->valuestring);
        if ((rc = ls_stmt_step(q)) < 0)
            break;
        if (rc == 1 && !ls_stmt_isnull(q, 0))
            ls_model_add_str(o, "statements", ls_stmt_text(q, 0));
        rc = 0;
    }
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

/* The one row of path_identity, by name. */
#define IDENTITY_COLS(X, Q)                                                    \
    X(Q, identity, "identity")                                                 \
    X(Q, reason, "reason")                                                     \
    X(Q, holds, "holds")                                                       \
    X(Q, named, "named")                                                       \
    X(Q, names, "names")                                                       \
    X(Q, top_holds, "top_holds")
LS_COLUMNS(iq, IDENTITY_COLS);

/* What named the paths that no span or tag names, and why, when it was
 * the transaction's shape (code_path_identity; the key is absent when
 * application_name named them, as before it existed). */
static int add_identity(model_ctx *m, cJSON *report, int by_shape)
{
    static const char sql[] =
        "SELECT " LS_SELECT_LIST(iq, IDENTITY_COLS) " FROM path_identity LIMIT 1";
    ls_stmt *q = NULL;
    int rc;

    if ((rc = ls_store_prepare(m->store, sql, &q)) != 0)
        return rc;
    if ((rc = ls_stmt_step(q)) == 1 &&
        (by_shape || strcmp(ls_stmt_text(q, iq_identity), "shape") == 0)) {
        cJSON *o = cJSON_AddObjectToObject(report, "code_path_identity");
        ls_model_add_str(o, "fallback", strcmp(ls_stmt_text(q, iq_identity), "shape") == 0
                                            ? "transaction shape"
                                            : "application_name");
        ls_model_add_str(o, "reason", ls_stmt_text(q, iq_reason));
        cJSON_AddNumberToObject(o, "holds", (double)ls_stmt_int64(q, iq_holds));
        cJSON_AddNumberToObject(o, "holds_named_by_spans_or_tags",
                                (double)ls_stmt_int64(q, iq_named));
        cJSON_AddNumberToObject(o, "application_names", (double)ls_stmt_int64(q, iq_names));
        cJSON_AddNumberToObject(o, "holds_of_the_commonest_name",
                                (double)ls_stmt_int64(q, iq_top_holds));
    }
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

void ls_model_code_paths(model_ctx *m, cJSON *report, int top)
{
    int g = grouping_of(m->opts->group_by);
    char sql[16384], parts_sql[8192]; /* the labels are long SQL */
    char source_sql[8192];
    cJSON *list, *occ;
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
        ls_model_col_str(o, "code_path", q, rk_code_path);
        ls_model_col_str(o, "named_by", q, rk_named_by);
        ls_model_col_int(o, "blocking_episodes", q, rk_blocking_episodes);
        ls_model_col_int(o, "waits_caused", q, rk_waits_caused);
        ls_model_col_ms(o, "total_hold_ms", q, rk_total_hold_ms);
        ls_model_col_ms(o, "max_hold_ms", q, rk_max_hold_ms);
        ls_model_col_ms(o, "p95_hold_ms", q, rk_p95_hold_ms);
        ls_model_col_ms(o, "waiter_ms_caused", q, rk_waiter_ms_caused);
        ls_model_col_int(o, "waits_suffered", q, rk_waits_suffered);
        ls_model_col_ms(o, "waited_ms_suffered", q, rk_waited_ms_suffered);
        pl = cJSON_AddArrayToObject(o, "hold_breakdown");
        pc.list = pl;
        ls_stmt_reset(parts);
        ls_stmt_bind_text(parts, 1, ls_stmt_text(q, rk_code_path));
        while ((rc = ls_stmt_step(parts)) == 1)
            part_row(m, parts, &pc);
        if (rc < 0)
            goto out;
        cJSON_AddItemToArray(list, o);
    }
    if (rc < 0)
        goto out;
    snprintf(sql, sizeof(sql), queueing_fmt, groupings[g].label, groupings[g].label);
    ls_model_each_row(m, sql, top, queueing_row, cJSON_AddArrayToObject(report, "row_queueing"));
    snprintf(sql, sizeof(sql), occupancy_fmt, groupings[g].label);
    snprintf(source_sql, sizeof(source_sql), occupancy_source_fmt, groupings[g].source);
    occupancy(m, occ = cJSON_AddArrayToObject(report, "row_occupancy"), sql, source_sql, top);
    if ((rc = add_sequences(m, list)) != 0 || (rc = add_sequences(m, occ)) != 0 ||
        (rc = add_identity(m, report, strcmp(groupings[g].name, "shape") == 0)) != 0)
        goto out;
    /* In its place; the findings fill it (ls_model_findings: the pairs of
     * the inconsistent_lock_order findings, decided under this grouping). */
    cJSON_AddArrayToObject(report, "lock_order_conflicts");
out:
    if (rc < 0)
        m->rc = rc;
    ls_stmt_finalize(q);
    ls_stmt_finalize(parts);
}
