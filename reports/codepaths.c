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

#include "ls_grouping.h"
#include "ls_range.h"
#include "ls_columns.h"
#include "model_int.h"

/* The grouping group_by names (ls_grouping.h), else the default. */
static const ls_grouping *grouping_of(const char *group_by)
{
    const ls_grouping *g = ls_grouping_find(group_by);
    return g ? g : ls_grouping_default();
}

const char *ls_model_code_path_label(const char *group_by)
{
    return grouping_of(group_by)->label;
}

const char *ls_model_code_path_source(const char *group_by)
{
    return grouping_of(group_by)->source;
}

/*
 * The rankings per code path, summed by correlation (its "report summary"
 * pass, src/correlate/summary.c; for a --since/--until window or another
 * --group-by, the scope's temp tables of the same names, scope.c), every
 * path in the report's order (ord); the report takes the first --top.
 *
 * Blocking ranking (path_ranking): holds others waited for (blocking
 * episodes) on hot rows, total / max / p95 hold (nearest rank), the
 * waiting caused to others, and the waits it suffered itself.
 */
#define RANKING_COLS(X, Q)                                \
    X(Q, code_path, "code_path")                          \
    X(Q, named_by, "named_by")                            \
    X(Q, blocking_episodes, "blocking_episodes")          \
    X(Q, waits_caused, "waits_caused")                    \
    X(Q, total_hold_ms, "total_hold_ms")                  \
    X(Q, max_hold_ms, "max_hold_ms")                      \
    X(Q, p95_hold_ms, "p95_hold_ms")                      \
    X(Q, waiter_ms_caused, "waiter_ms_caused")            \
    X(Q, waits_suffered, "waits_suffered")                \
    X(Q, waited_ms_suffered, "waited_ms_suffered")
LS_COLUMNS(rk, RANKING_COLS);
#define RANKING_PARAMS(X, Q) X(Q, limit)
LS_PARAMS(rkp, RANKING_PARAMS);
static const char ranking_sql[] =
    "SELECT " LS_SELECT_LIST(rk, RANKING_COLS) " FROM path_ranking ORDER BY ord LIMIT :limit";

/*
 * Occupancy ranking (path_occupancy): every hold of a hot row, whether
 * or not anyone waited long enough to be logged (rebuilt from statement
 * logging): how long the path keeps the rows others need, and its share
 * of the time the hot rows were held; the p95 from a log-scale histogram
 * (1 % apart). Where the log's times are whole seconds, the range the log
 * allows of each path's total. The top path's holds, those the log
 * bounds, and the row it held longest are what the story tells of it
 * (model_story_path).
 */
#define OCCUPANCY_COLS(X, Q)            \
    X(Q, label, "code_path")            \
    X(Q, source, "named_by")            \
    X(Q, holds, "holds")                \
    X(Q, waited, "waited")              \
    X(Q, bounded, "bounded")            \
    X(Q, ranged, "ranged")              \
    X(Q, total_ms, "total_ms")          \
    X(Q, max_ms, "max_ms")              \
    X(Q, p95_ms, "p95_ms")              \
    X(Q, all_ms, "all_ms")              \
    X(Q, total_lo_ms, "total_lo_ms")    \
    X(Q, total_hi_ms, "total_hi_ms")    \
    X(Q, row_id, "row_id")              \
    X(Q, row_us, "row_us")              \
    X(Q, row_timed, "row_timed")
LS_COLUMNS(oc, OCCUPANCY_COLS);
static const char occupancy_sql[] =
    "SELECT " LS_SELECT_LIST(oc, OCCUPANCY_COLS) " FROM path_occupancy ORDER BY ord";

/* A path of path_occupancy, as read. */
typedef struct occ_path {
    char *label, *source;
    int64_t n, waited, bounded, ranged; /* ranged: holds with a range (whole seconds) */
    double total, max, p95, total_lo, total_hi; /* total_lo..total_hi: what the log allows */
    int64_t row_id, row_us; /* the row it held longest (row_id 0: none) */
    int row_timed;
} occ_path;

/* The story's figures of path o (the top one). */
static void occ_story(model_ctx *m, const occ_path *o)
{
    memset(&m->story, 0, sizeof(m->story));
    m->story.known = 1;
    m->story.holds = o->n;
    m->story.bounded = o->bounded;
    m->story.row_id = o->row_id;
    m->story.row_us = o->row_us;
    m->story.row_timed = o->row_timed;
}

/* ms in µs; unbounded (infinite) as the largest. */
static int64_t us_of(double ms)
{
    if (isinf(ms) || ms * 1000.0 >= (double)INT64_MAX)
        return INT64_MAX;
    return (int64_t)llround(ms * 1000.0);
}

/* A path's figure as the range the log allows (whole seconds). */
typedef struct path_range {
    const char *label;
    double lo, hi;
} path_range;

/*
 * Where the log's times are whole seconds: path i's figure as the range
 * the log allows (min_key..max_key), and the paths listed (of the first
 * `top`) whose ranges meet its own, whose order against it the log cannot
 * tell (order_uncertain, order_uncertain_with). Both rankings say it so:
 * the occupancy's total hold (total_hold_min_ms..total_hold_max_ms), the
 * blocking's waiting caused (waiter_ms_caused_min..waiter_ms_caused_max).
 */
static void add_range(cJSON *o, const char *min_key, const char *max_key, const path_range *r,
                      size_t n, size_t i, int top)
{
    cJSON *with = cJSON_CreateArray();
    size_t j;

    cJSON_AddNumberToObject(o, min_key, round(r[i].lo * 1000.0) / 1000.0);
    if (isinf(r[i].hi))
        cJSON_AddNullToObject(o, max_key); /* no upper bound the log gives */
    else
        cJSON_AddNumberToObject(o, max_key, round(r[i].hi * 1000.0) / 1000.0);
    for (j = 0; with && j < n && (top < 0 || j < (size_t)top); j++)
        if (j != i &&
            ls_ranges_overlap(us_of(r[i].lo), us_of(r[i].hi), us_of(r[j].lo), us_of(r[j].hi)))
            cJSON_AddItemToArray(with, cJSON_CreateString(r[j].label));
    cJSON_AddBoolToObject(o, "order_uncertain", cJSON_GetArraySize(with) > 0);
    if (with)
        cJSON_AddItemToObject(o, "order_uncertain_with", with);
}

/* Row q of occupancy_sql into path o (its strings copied). 0 or LS_ENOMEM. */
static int occ_read(ls_stmt *q, occ_path *o, double *all)
{
    memset(o, 0, sizeof(*o));
    o->label = ls_strdup(ls_stmt_text(q, oc_label));
    if (!ls_stmt_isnull(q, oc_source))
        o->source = ls_strdup(ls_stmt_text(q, oc_source));
    o->n = ls_stmt_int64(q, oc_holds);
    o->waited = ls_stmt_int64(q, oc_waited);
    o->bounded = ls_stmt_int64(q, oc_bounded);
    o->ranged = ls_stmt_int64(q, oc_ranged);
    o->total = ls_stmt_double(q, oc_total_ms);
    o->max = ls_stmt_double(q, oc_max_ms);
    o->p95 = ls_stmt_double(q, oc_p95_ms);
    o->total_lo = ls_stmt_double(q, oc_total_lo_ms);
    o->total_hi = ls_stmt_double(q, oc_total_hi_ms);
    o->row_id = ls_stmt_int64(q, oc_row_id);
    o->row_us = ls_stmt_int64(q, oc_row_us);
    o->row_timed = (int)ls_stmt_int64(q, oc_row_timed);
    *all = ls_stmt_double(q, oc_all_ms);
    return !o->label || (!ls_stmt_isnull(q, oc_source) && !o->source) ? LS_ENOMEM : 0;
}

/* Every path of path_occupancy, in its order, into *out (*n of them) and
 * the sum over all of them into *all. 0 or an error code. */
static int occ_load(model_ctx *m, occ_path **out, size_t *n, double *all)
{
    occ_path *paths = NULL;
    ls_stmt *q = NULL;
    int rc;

    *n = 0;
    if ((rc = ls_store_prepare(m->store, occupancy_sql, &q)) != 0)
        return rc;
    while ((rc = ls_stmt_step(q)) == 1) {
        occ_path *np = realloc(paths, (*n + 1) * sizeof(*np));
        if (!np) {
            rc = LS_ENOMEM;
            break;
        }
        paths = np;
        rc = occ_read(q, &paths[(*n)++], all);
        if (rc != 0)
            break;
    }
    ls_stmt_finalize(q);
    *out = paths;
    return rc < 0 ? rc : 0;
}

static void occupancy(model_ctx *m, cJSON *report, cJSON *list, int top)
{
    occ_path *paths = NULL;
    path_range *r = NULL;
    size_t n = 0, i;
    int ranged = 0, rc;
    double all = 0;

    rc = occ_load(m, &paths, &n, &all);
    if (rc < 0)
        m->rc = rc;
    else if (n)
        occ_story(m, &paths[0]);
    for (i = 0; i < n; i++)
        ranged |= paths[i].ranged > 0;
    if (ranged && !(r = calloc(n, sizeof(*r))))
        rc = LS_ENOMEM;
    for (i = 0; r && i < n; i++) {
        r[i].label = paths[i].label;
        r[i].lo = paths[i].total_lo;
        r[i].hi = paths[i].total_hi;
    }
    for (i = 0; rc >= 0 && i < n && (top < 0 || i < (size_t)top); i++) {
        cJSON *o = cJSON_CreateObject();
        ls_model_add_str(o, "code_path", paths[i].label);
        ls_model_add_str(o, "named_by", paths[i].source);
        cJSON_AddNumberToObject(o, "holds", (double)paths[i].n);
        if (ls_logcover_path_occupancy_unknown((ls_logcover)m->logcover, paths[i].n,
                                               paths[i].max)) {
            /* no hold of it timed: its 0 ms is not a figure (issue 34) */
            cJSON_AddNullToObject(o, "total_hold_ms");
            cJSON_AddNullToObject(o, "max_hold_ms");
            cJSON_AddNullToObject(o, "p95_hold_ms");
            cJSON_AddNumberToObject(o, "holds_waited_for", (double)paths[i].waited);
            cJSON_AddNullToObject(o, "share_pct");
            ls_model_add_str(o, "occupancy_unknown",
                             "None of its holds was timed (the log has no transaction "
                             "boundaries for them), so how long it held hot rows is not "
                             "knowable from this log.");
            /* its place in the list is no rank: its total is unknown */
            cJSON_AddTrueToObject(o, "order_unknown");
            if (r)
                add_range(o, "total_hold_min_ms", "total_hold_max_ms", r, n, i, top);
            cJSON_AddItemToArray(list, o);
            continue;
        }
        cJSON_AddNumberToObject(o, "total_hold_ms", round(paths[i].total * 1000.0) / 1000.0);
        cJSON_AddNumberToObject(o, "max_hold_ms", round(paths[i].max * 1000.0) / 1000.0);
        cJSON_AddNumberToObject(o, "p95_hold_ms", round(paths[i].p95 * 1000.0) / 1000.0);
        cJSON_AddNumberToObject(o, "holds_waited_for", (double)paths[i].waited);
        cJSON_AddNumberToObject(o, "share_pct",
                                all > 0 ? round(paths[i].total * 100000.0 / all) / 1000.0 : 0);
        if (r)
            add_range(o, "total_hold_min_ms", "total_hold_max_ms", r, n, i, top);
        cJSON_AddItemToArray(list, o);
    }
    if (rc < 0)
        m->rc = rc;
    else
        ls_model_cut(report, "row_occupancy", cJSON_GetArraySize(list), (int64_t)n, "--top", 1);
    for (i = 0; i < n; i++) {
        free(paths[i].label);
        free(paths[i].source);
    }
    free(paths);
    free(r);
}

#define CAUSED_COLS(X, Q) X(Q, lo_ms, "lo_ms") X(Q, hi_ms, "hi_ms")
LS_COLUMNS(cr, CAUSED_COLS);
#define CAUSED_PARAMS(X, Q) X(Q, code_path)
LS_PARAMS(crp, CAUSED_PARAMS);
static const char caused_sql[] = "SELECT " LS_SELECT_LIST(
    cr, CAUSED_COLS) " FROM temp.path_caused_range WHERE code_path = :code_path";

/* Where the log's times are whole seconds, each listed path of the
 * blocking ranking (list) with its waiting caused as the range the log
 * allows (temp.path_caused_range: ls_correlate_caused_ranges(), summed
 * when the report's scope was entered; no table, no range). The range
 * holds the figure ranked. 0 or an error code. */
static int caused_ranges(model_ctx *m, cJSON *list)
{
    ls_stmt *q = NULL;
    path_range *r = NULL;
    size_t n = (size_t)cJSON_GetArraySize(list), i = 0;
    cJSON *o;
    int rc;

    if ((rc = ls_store_prepare(m->store,
                               "SELECT 1 FROM temp.sqlite_master WHERE name = 'path_caused_range'",
                               &q)) != 0)
        return rc;
    rc = ls_stmt_step(q);
    ls_stmt_finalize(q);
    q = NULL;
    if (rc <= 0 || n == 0)
        return rc < 0 ? rc : 0;
    if (!(r = calloc(n, sizeof(*r))))
        return LS_ENOMEM;
    if ((rc = ls_store_prepare_params(m->store, caused_sql, LS_PARAM_NAMES(CAUSED_PARAMS), &q)) !=
        0)
        goto out;
    cJSON_ArrayForEach(o, list) {
        const cJSON *est = cJSON_GetObjectItemCaseSensitive(o, "waiter_ms_caused");
        double e = cJSON_IsNumber(est) ? est->valuedouble : 0;
        const cJSON *label = cJSON_GetObjectItemCaseSensitive(o, "code_path");
        r[i].label = cJSON_IsString(label) ? label->valuestring : "";
        r[i].lo = r[i].hi = e;
        ls_stmt_reset(q);
        if ((rc = ls_stmt_bind_text(q, LS_PARAM(crp, code_path), r[i].label)) == 0 &&
            (rc = ls_stmt_step(q)) == 1) {
            r[i].lo = fmin(e, ls_stmt_double(q, cr_lo_ms));
            /* NULL: at least the figure, no upper bound (a threshold
             * log's slow-locker rows: summary.c's caused_at_least) */
            r[i].hi = ls_stmt_isnull(q, cr_hi_ms) ? INFINITY : fmax(e, ls_stmt_double(q, cr_hi_ms));
        }
        if (rc < 0)
            goto out;
        i++;
    }
    i = 0;
    cJSON_ArrayForEach(o, list)
        add_range(o, "waiter_ms_caused_min", "waiter_ms_caused_max", r, n, i++, -1);
    rc = 0;
out:
    ls_stmt_finalize(q);
    free(r);
    return rc < 0 ? rc : 0;
}

/*
 * Queueing for hot rows per code path (path_queueing), logged and hidden
 * (row_waits): the waiting a path's holds caused (the statements queued
 * behind them) and the waiting its own statements suffered. A wait queued
 * behind several holds (holds of a row do not overlap) is shared among
 * them by the part of it each covered, its hidden and logged parts alike;
 * a statement that waited over 20 ms counts as queued behind the path
 * that covered most of it (as a request's "waited behind", requests.c); a
 * wait no known hold covers goes whole to the hold that had the row when
 * it started (behind_tx). Which holds covered which wait, and by how
 * much, correlation found (row_cover, src/correlate/cover.c). A path
 * listed that caused (or suffered) none has 0 ms there; on a threshold log
 * (log_min_duration_statement) unknown (null) instead, and a hidden figure
 * above 0 there a lower bound (hidden_at_least), as the summary's.
 */
#define QUEUEING_COLS(X, Q)                                                       \
    X(Q, code_path, "code_path")                                                  \
    X(Q, statements_queued_behind, "statements_queued_behind")                    \
    X(Q, hidden_wait_ms_caused, "hidden_wait_ms_caused")                          \
    X(Q, logged_wait_ms_caused, "logged_wait_ms_caused")                          \
    X(Q, statements_waited, "statements_waited")                                  \
    X(Q, hidden_wait_ms_suffered, "hidden_wait_ms_suffered")                      \
    X(Q, logged_wait_ms_suffered, "logged_wait_ms_suffered")
LS_COLUMNS(qu, QUEUEING_COLS);
static const char queueing_sql[] =
    "SELECT " LS_SELECT_LIST(qu, QUEUEING_COLS) " FROM path_queueing ORDER BY ord LIMIT :limit";

/* A path's hidden waiting (column col) as the log can tell it, as the
 * summary's is (model.c hidden_row, ls_logcover_hidden_decide): on a
 * threshold log none rebuilt is unknown (null), not 0 ms, and some is a
 * lower bound (*at_least). */
static void hidden_ms(model_ctx *m, cJSON *o, const char *key, ls_stmt *q, int col, int *at_least)
{
    ls_logcover_hidden k = ls_logcover_hidden_decide(
        (ls_logcover)m->logcover, ls_stmt_isnull(q, col) ? 0.0 : ls_stmt_double(q, col));
    if (k == LS_HIDDEN_UNKNOWN) {
        cJSON_AddNullToObject(o, key);
        return;
    }
    ls_model_col_ms(o, key, q, col);
    *at_least |= k == LS_HIDDEN_AT_LEAST;
}

static void queueing_row(model_ctx *m, ls_stmt *q, void *arg)
{
    cJSON *o = cJSON_CreateObject();
    int at_least = 0;
    ls_model_col_str(o, "code_path", q, qu_code_path);
    ls_model_col_int(o, "statements_queued_behind", q, qu_statements_queued_behind);
    hidden_ms(m, o, "hidden_wait_ms_caused", q, qu_hidden_wait_ms_caused, &at_least);
    ls_model_col_ms(o, "logged_wait_ms_caused", q, qu_logged_wait_ms_caused);
    ls_model_col_int(o, "statements_waited", q, qu_statements_waited);
    hidden_ms(m, o, "hidden_wait_ms_suffered", q, qu_hidden_wait_ms_suffered, &at_least);
    ls_model_col_ms(o, "logged_wait_ms_suffered", q, qu_logged_wait_ms_suffered);
    if (at_least)
        cJSON_AddTrueToObject(o, "hidden_at_least");
    cJSON_AddItemToArray(arg, o);
}
/* Where the path's hold time went: the parts summed over its holds. */
#define PARTS_COLS(X, Q)    \
    X(Q, part, "p.part")    \
    X(Q, name, "p.name")    \
    X(Q, ms, "sum(p.ms)")
LS_COLUMNS(pa, PARTS_COLS);
#define PARTS_PARAMS(X, Q) X(Q, code_path)
LS_PARAMS(pap, PARTS_PARAMS);
static const char parts_fmt[] =
    "SELECT " LS_SELECT_LIST(pa, PARTS_COLS)
    " FROM hold_parts p JOIN holds h ON h.hold_id = p.hold_id"
    " LEFT JOIN tx_code c ON c.tx_id = h.tx_id WHERE h.waits > 0 AND %s = :code_path"
    " AND" NOT_A_RELATION_LOCK("h.row_id")
    " GROUP BY p.part, p.name ORDER BY sum(p.ms) DESC LIMIT 20";

/* The path's holds behind its breakdown by their end's evidence (whether
 * the log shows each end: ls_logcover_split_unknown). */
#define ENDS_COLS(X, Q)                  \
    X(Q, end_evidence, "h.end_evidence") \
    X(Q, holds, "count(DISTINCT h.hold_id)")
LS_COLUMNS(en, ENDS_COLS);
static const char ends_fmt[] =
    "SELECT " LS_SELECT_LIST(en, ENDS_COLS)
    " FROM hold_parts p JOIN holds h ON h.hold_id = p.hold_id"
    " LEFT JOIN tx_code c ON c.tx_id = h.tx_id WHERE h.waits > 0 AND %s = :code_path"
    " AND" NOT_A_RELATION_LOCK("h.row_id") " GROUP BY h.end_evidence";

#define BREAKDOWN_UNKNOWN_REASON                                                                   \
    "The log shows the end of none of the holds behind this breakdown (statements logged only "    \
    "past a duration threshold, only some statement classes logged, or no statements): their "     \
    "idle in transaction and commit time are not in the log, so they are unknown, not 0 ms, and "  \
    "so is where the hold time mostly went; SQL is the logged statements' time only."

/* Where none of the path's holds behind its breakdown has an end the log
 * shows (ls_logcover_breakdown_unknown), its parts but SQL (idle in
 * transaction, commit) are unknown, not 0 ms, and so is which part is
 * the largest (story.c: no "mostly"). 0 or a store error. */
static int breakdown_split(model_ctx *m, ls_stmt *ends, const char *path, cJSON *o, cJSON *pl)
{
    int64_t holds = 0, known = 0;
    cJSON *p;
    int rc;
    ls_stmt_reset(ends);
    if ((rc = ls_stmt_bind_text(ends, LS_PARAM(pap, code_path), path)) != 0)
        return rc;
    while ((rc = ls_stmt_step(ends)) == 1) {
        int64_t n = ls_stmt_int64(ends, en_holds);
        const char *ev =
            ls_stmt_isnull(ends, en_end_evidence) ? NULL : ls_stmt_text(ends, en_end_evidence);
        holds += n;
        if (!ls_logcover_split_unknown((ls_logcover)m->logcover, ev))
            known += n;
    }
    if (rc < 0)
        return rc;
    if (!ls_logcover_breakdown_unknown(holds, known) ||
        cJSON_GetObjectItemCaseSensitive(o, "hold_breakdown_unknown_reason"))
        return 0;
    cJSON_ArrayForEach(p, pl) {
        const cJSON *part = cJSON_GetObjectItemCaseSensitive(p, "part");
        if (!cJSON_IsString(part) || strcmp(part->valuestring, "sql") != 0)
            cJSON_ReplaceItemInObjectCaseSensitive(p, "ms", cJSON_CreateNull());
    }
    ls_model_add_str(o, "hold_breakdown_unknown_reason", BREAKDOWN_UNKNOWN_REASON);
    return 0;
}

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
#define SEQ_PARAMS(X, Q) X(Q, label)
LS_PARAMS(shp, SEQ_PARAMS);

static int add_sequences(model_ctx *m, cJSON *list)
{
    ls_stmt *q = NULL;
    cJSON *o;
    int rc;

    if ((rc = ls_store_prepare_params(m->store,
                                      "SELECT sequence FROM tx_shapes WHERE label = :label",
                                      LS_PARAM_NAMES(SEQ_PARAMS), &q)) != 0)
        return rc;
    cJSON_ArrayForEach(o, list) {
        const cJSON *by = cJSON_GetObjectItemCaseSensitive(o, "named_by");
        const cJSON *label = cJSON_GetObjectItemCaseSensitive(o, "code_path");
        if (!cJSON_IsString(by) || strcmp(by->valuestring, "transaction shape") != 0 ||
            !cJSON_IsString(label))
            continue;
        ls_stmt_reset(q);
        ls_stmt_bind_text(q, LS_PARAM(shp, label), label->valuestring);
        if ((rc = ls_stmt_step(q)) < 0)
            break;
        if (rc == 1 && !ls_stmt_isnull(q, LS_ONLY_COLUMN))
            ls_model_add_str(o, "statements", ls_stmt_text(q, LS_ONLY_COLUMN));
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

/* The cut of ranking `key` of report when it lists `top` and the table
 * it ranks (count_sql counts it) has more rows. */
static void ranking_cut(model_ctx *m, cJSON *report, const char *key, const char *count_sql,
                        int top)
{
    int64_t total;
    int listed = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(report, key));
    if (m->rc || listed < top || (total = ls_model_count(m, count_sql)) < 0)
        return;
    ls_model_cut(report, key, listed, total, "--top", 1);
}

void ls_model_code_paths(model_ctx *m, cJSON *report, int top)
{
    const ls_grouping *g = grouping_of(m->opts->group_by);
    char parts_sql[8192], ends_sql[8192]; /* the labels are long SQL */
    cJSON *list, *occ;
    ls_stmt *q = NULL, *parts = NULL, *ends = NULL;
    int rc;

    cJSON_AddStringToObject(report, "code_path_grouping", g->name);
    list = cJSON_AddArrayToObject(report, "code_paths");
    snprintf(parts_sql, sizeof(parts_sql), parts_fmt, g->label);
    snprintf(ends_sql, sizeof(ends_sql), ends_fmt, g->label);
    if ((rc = ls_store_prepare_params(m->store, ranking_sql, LS_PARAM_NAMES(RANKING_PARAMS), &q)) !=
            0 ||
        (rc = ls_store_prepare_params(m->store, parts_sql, LS_PARAM_NAMES(PARTS_PARAMS), &parts)) !=
            0 ||
        (rc = ls_store_prepare_params(m->store, ends_sql, LS_PARAM_NAMES(PARTS_PARAMS), &ends)) != 0)
        goto out;
    ls_stmt_bind_int64(q, LS_PARAM(rkp, limit), top);
    while ((rc = ls_stmt_step(q)) == 1) {
        cJSON *o = cJSON_CreateObject(), *pl;
        parts_ctx pc;
        double caused, max_hold;
        int unknown;
        ls_model_col_str(o, "code_path", q, rk_code_path);
        ls_model_col_str(o, "named_by", q, rk_named_by);
        ls_model_col_int(o, "blocking_episodes", q, rk_blocking_episodes);
        ls_model_col_int(o, "waits_caused", q, rk_waits_caused);
        caused = ls_stmt_isnull(q, rk_waiter_ms_caused) ? 0.0
                                                        : ls_stmt_double(q, rk_waiter_ms_caused);
        max_hold = ls_stmt_isnull(q, rk_max_hold_ms) ? 0.0 : ls_stmt_double(q, rk_max_hold_ms);
        unknown = ls_logcover_path_blocking_unknown(
            (ls_logcover)m->logcover, ls_stmt_int64(q, rk_blocking_episodes), caused, max_hold);
        if (unknown) {
            /* no hold of it timed: its 0 ms is not a figure (issue 33);
             * the reason makes each null read "unknown", not "—" (a path
             * that held nothing has no longest hold) */
            cJSON_AddNullToObject(o, "total_hold_ms");
            cJSON_AddNullToObject(o, "max_hold_ms");
            cJSON_AddNullToObject(o, "p95_hold_ms");
            ls_model_add_str(o, "hold_unknown_reason", HOLDS_UNKNOWN_REASON);
        } else {
            ls_model_col_ms(o, "total_hold_ms", q, rk_total_hold_ms);
            ls_model_col_ms(o, "max_hold_ms", q, rk_max_hold_ms);
            ls_model_col_ms(o, "p95_hold_ms", q, rk_p95_hold_ms);
        }
        ls_model_col_ms(o, "waiter_ms_caused", q, rk_waiter_ms_caused);
        ls_model_col_int(o, "waits_suffered", q, rk_waits_suffered);
        ls_model_col_ms(o, "waited_ms_suffered", q, rk_waited_ms_suffered);
        pl = cJSON_AddArrayToObject(o, "hold_breakdown");
        pc.list = pl;
        ls_stmt_reset(parts);
        ls_stmt_bind_text(parts, LS_PARAM(pap, code_path), ls_stmt_text(q, rk_code_path));
        while ((rc = ls_stmt_step(parts)) == 1)
            part_row(m, parts, &pc);
        if (rc < 0)
            goto out;
        if (unknown && cJSON_GetArraySize(pl) > 0) {
            /* its parts are of holds none of which was timed: unknown,
             * not 0 ms (ls_logcover_holds_unknown) */
            cJSON *p;
            cJSON_ArrayForEach(p, pl)
                cJSON_ReplaceItemInObjectCaseSensitive(p, "ms", cJSON_CreateNull());
            ls_model_add_str(o, "hold_breakdown_unknown_reason", HOLDS_UNKNOWN_REASON);
        }
        if ((rc = breakdown_split(m, ends, ls_stmt_text(q, rk_code_path), o, pl)) != 0) {
            cJSON_Delete(o);
            goto out;
        }
        cJSON_AddItemToArray(list, o);
    }
    if (rc < 0)
        goto out;
    if ((rc = caused_ranges(m, list)) != 0)
        goto out;
    ranking_cut(m, report, "code_paths", "SELECT count(*) FROM path_ranking", top);
    ls_model_each_row(m, queueing_sql, top, queueing_row,
                      cJSON_AddArrayToObject(report, "row_queueing"));
    ranking_cut(m, report, "row_queueing", "SELECT count(*) FROM path_queueing", top);
    occupancy(m, report, occ = cJSON_AddArrayToObject(report, "row_occupancy"), top);
    if ((rc = add_sequences(m, list)) != 0 || (rc = add_sequences(m, occ)) != 0 ||
        (rc = add_identity(m, report, strcmp(g->name, "shape") == 0)) != 0)
        goto out;
    /* In its place; the findings fill it (ls_model_findings: the pairs of
     * the inconsistent_lock_order findings, decided under this grouping). */
    cJSON_AddArrayToObject(report, "lock_order_conflicts");
out:
    if (rc < 0)
        m->rc = rc;
    ls_stmt_finalize(q);
    ls_stmt_finalize(parts);
    ls_stmt_finalize(ends);
}
