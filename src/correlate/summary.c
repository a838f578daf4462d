/*
 * summary.c — the "report summary" pass: the code-path rankings the
 * report shows (reports/codepaths.c), summed once over every hold, wait
 * and hidden wait of the log into the small tables path_ranking,
 * path_queueing and path_occupancy (summary_schema.h), every path in the
 * report's order, which the report reads as they are and cuts to --top.
 *
 * The pass sums them for the default grouping (ls_grouping.h) over the whole
 * log. A report window (--since/--until) or another --group-by has them
 * summed again by the same code (scope.c, ls_correlate_summary_scope())
 * into temp tables of the same names, over the window's views, which the
 * report then reads in their place: the report itself sums nothing.
 *
 * - path_ranking: holds others waited for (hot rows, not a relation's
 *   lock) per path: count, waits and waiting caused, total / max / p95
 *   hold (nearest rank), and the waits the path's own statements suffered.
 * - path_queueing: queueing for hot rows per path, logged and hidden
 *   (row_waits), each wait shared among the holds that covered it
 *   (row_cover, cover.c) as reports/codepaths.c tells.
 * - path_occupancy: every hold of a hot row per path, summed in C (a log
 *   has hundreds of thousands of holds: a log-scale histogram gives the
 *   p95, 1 % apart), with the range the log allows where its times are
 *   whole seconds, the sum over all paths (their shares), and the row it
 *   held longest (the story of the top path, reports/story.c).
 * - row_queue_buckets: each row's queue-depth changes (row_queue) summed
 *   into at most QUEUE_BUCKETS buckets of equal time over the row's whole
 *   queue, each with its first and last change, its deepest queue and the
 *   depth it ended at: one stream of row_queue in (row, time) order, where
 *   the report sorted each hot row's queue with a window function.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "correlate_int.h"
#include "ls_columns.h"
#include "ls_grouping.h"
#include "ls_params.h"
#include "summary_schema.h"
#include "summary_sql.h"
#include "decide/holdrange.h"
#include "decide/slowkey.h"
#include "decide/waitrange.h"

/* A row that is no whole relation's lock (store_schema.h's
 * relation_lock_rows), as the report's NOT_A_RELATION_LOCK. */
#define NOT_A_RELATION_LOCK(row_id) " " row_id " NOT IN (SELECT row_id FROM relation_lock_rows) "

/* Statements queued behind a path count when they waited over this (ms). */
#define QUEUED_OVER_MS 20.0

/* The SQL texts are long: the labels are long expressions of tx_code. */
#define SUMMARY_SQL_MAX 16384

/*
 * Each path set's label and source under the grouping summed (path_sets,
 * paths.c): a transaction's path under any grouping is its set's, so the
 * rankings join each hold's or wait's transaction (tx_code_rows, by key)
 * to this small table of a few dozen sets, where the tx_code view looked
 * the names up again for every row (the occupancy scan, the queueing and
 * the blocking ranking: 5 M SQLite VM steps at 1 GiB). %1$s the label,
 * %2$s the source: expressions of the columns c.G_path and c.G_source
 * of tx_code (ls_grouping.h), here of one set's names.
 */
#define SET_NAMES(G)                                                                        \
    ", (SELECT n.name FROM path_names n WHERE n.name_id = s." G "_id) AS " G "_path,"        \
    " (SELECT n.name FROM path_names n WHERE n.name_id = s." G "_src) AS " G "_source"
static const char set_paths_fmt[] =
    "DROP TABLE IF EXISTS temp.summary_paths;"
    " CREATE TEMP TABLE summary_paths(set_id INTEGER PRIMARY KEY, label TEXT, source TEXT);"
    " INSERT INTO temp.summary_paths SELECT c.path_set, %s, %s FROM (SELECT s.set_id AS path_set"
    SET_NAMES("function") SET_NAMES("route") SET_NAMES("service") SET_NAMES("application")
    SET_NAMES("statement") SET_NAMES("shape") " FROM path_sets s) c;";
static const char set_paths_drop_sql[] = "DROP TABLE IF EXISTS temp.summary_paths;";
/* The path (p.label, p.source) of transaction TX, NULL when it has none. */
#define PATH_OF(TX)                                                                         \
    " LEFT JOIN tx_code_rows c ON c.tx_id = " TX                                            \
    " LEFT JOIN temp.summary_paths p ON p.set_id = c.path_set"

/*
 * The blocking ranking. %s the schema written (main, temp), three times.
 * It follows the queueing ranking (written first): the waiting a path
 * caused is the logged waiting behind its holds and the hidden waiting the
 * queueing ranking shares to it (below deadlock_timeout, or a statement
 * queued behind several holders in turn: samples/blind-java's
 * reserveShipment, 3.0 s logged and about 160 s hidden), so that the
 * Blocking and Queueing tables of a report give a path the same waiting
 * caused. Episodes, waits and holds stay those of the holds a logged wait
 * queued behind. A path none of whose holds a logged wait queued behind,
 * but that the queueing ranking gives waiting (hidden, or failed waits'
 * shares), is listed too: no episodes, no hold time (max and p95 NULL),
 * the queueing ranking's waiting caused (samples/hidden-failed's dl_a,
 * 4.7 s hidden; samples/hidden's checkout), when that waiting reaches
 * the log's tick (ls_caused_listed_min_ms: a millisecond where the times
 * have them; the test is decide/waitrange.c's ls_caused_listed_sql, %s).
 * On a threshold log, a row found only by its slow lockers (slowkeys.c)
 * whose lockers are all of one path gives that path its waiting, at least
 * the row's total_wait_ms (temp.slowkey_caused, slowkey_credit(); listed
 * if not already: samples/blind-rb's reserve_stock shape, 32.6 s). The order is the waiting
 * caused, then the hold time, then the name: whose holds made others wait
 * the most (issue 34; on every sample with a truth the truth's order,
 * docs/correlation.md).
 */
#define QUEUED_CAUSED \
    "coalesce(q.hidden_wait_ms_caused, 0) + coalesce(q.logged_wait_ms_caused, 0)"
static const char ranking_fmt[] =
    "INSERT INTO %s.path_ranking(code_path, named_by, blocking_episodes, waits_caused,"
    " total_hold_ms, max_hold_ms, p95_hold_ms, waiter_ms_caused, waits_suffered,"
    " waited_ms_suffered)"
    " WITH labeled AS (SELECT h.hold_id, h.waits, h.waiter_ms,"
    "  (h.end_ts - h.start_ts) / 1000.0 AS hold_ms, p.label AS label, p.source AS source"
    "  FROM holds h" PATH_OF("h.tx_id") " WHERE h.waits > 0"
    "  AND" NOT_A_RELATION_LOCK("h.row_id") "),"
    " ranked AS (SELECT *, row_number() OVER (PARTITION BY label ORDER BY hold_ms) AS rn,"
    "  count(*) OVER (PARTITION BY label) AS n FROM labeled),"
    " suffered AS (SELECT p.label AS label, count(*) AS waits, sum(w.waited_ms) AS ms"
    /* %s: SUFFERED_WAITS_MAIN (summary_sql.h) or lock_waits */
    "  FROM %s w" PATH_OF("w.waiter_tx") " GROUP BY 1),"
    " logged AS (SELECT r.label AS label, min(r.source) AS source, count(*) AS episodes,"
    "  sum(r.waits) AS waits, sum(r.hold_ms) AS total, max(r.hold_ms) AS mx,"
    "  max(CASE WHEN r.rn = (95 * r.n + 99) / 100 THEN r.hold_ms END) AS p95,"
    "  sum(r.waiter_ms) + coalesce(max(q.hidden_wait_ms_caused), 0) AS caused"
    "  FROM ranked r LEFT JOIN %s.path_queueing q ON q.code_path = r.label GROUP BY r.label),"
    " queued AS (SELECT q.code_path AS label,"
    "  (SELECT min(sp.source) FROM temp.summary_paths sp WHERE sp.label = q.code_path) AS source,"
    "  0 AS episodes, 0 AS waits, 0.0 AS total, NULL AS mx, NULL AS p95,"
    "  " QUEUED_CAUSED " AS caused"
    "  FROM %s.path_queueing q WHERE q.code_path IS NOT NULL"
    "  AND %s" /* ls_caused_listed_sql(QUEUED_CAUSED) */
    "  AND q.code_path NOT IN (SELECT label FROM logged WHERE label IS NOT NULL)),"
    " slow AS (SELECT label, sum(ms) AS ms FROM temp.slowkey_caused GROUP BY label),"
    " listed0 AS (SELECT * FROM logged UNION ALL SELECT * FROM queued),"
    " listed AS (SELECT l.label, l.source, l.episodes, l.waits, l.total, l.mx, l.p95,"
    "  l.caused + coalesce(k.ms, 0) AS caused FROM listed0 l LEFT JOIN slow k ON k.label = l.label"
    "  UNION ALL SELECT k.label,"
    "  (SELECT min(sp.source) FROM temp.summary_paths sp WHERE sp.label = k.label),"
    "  0, 0, 0.0, NULL, NULL, k.ms FROM slow k"
    "  WHERE k.label NOT IN (SELECT label FROM listed0 WHERE label IS NOT NULL))"
    " SELECT l.label, l.source, l.episodes, l.waits, l.total, l.mx, l.p95, l.caused,"
    " coalesce(s.waits, 0), coalesce(s.ms, 0)"
    " FROM listed l LEFT JOIN suffered s ON s.label = l.label"
    " ORDER BY l.caused DESC, l.total DESC, l.label";

/*
 * Queueing for hot rows (queueing_write() sums it in C). Each row wait
 * (row_waits) is shared out among the transactions of the holds that
 * covered it (row_cover), each by the part of the covers' total it
 * covered, or, when nothing covered it, given whole to the transaction
 * it queued behind (behind_tx); the shares are summed by path (the
 * transaction's set's label, temp.summary_paths) and the path with the
 * largest share (then the first label, NULL first) has the wait
 * "queued behind" it when it waited over QUEUED_OVER_MS. A path's
 * hidden and logged waiting caused are its shares of each wait's
 * max(0, wait - logged) and logged time; the waits suffered are those of
 * its own transactions. Ranked by hidden, then logged waiting caused,
 * then label; a path with no label is left out.
 */
/*
 * The occupancy ranking's holds, as occupancy() sums them, with their
 * path (PATH_OF). A hold's length: where the log's times are whole
 * seconds, the estimate and the range the log allows (hold_range,
 * holdtimes.c), else its end minus its start (no range). Its evidence
 * texts are read once each and matched in C (occ_bounded): three LIKEs
 * over the holds view looked each up again (9 M of the scan's 24 M
 * SQLite VM steps at 1 GiB).
 */
enum {
    OC_LABEL, OC_SOURCE, OC_HOLD_ID, OC_WAITED, OC_ROW_ID, OC_HOLD_US, OC_START_EV, OC_END_EV,
    OC_LO_MS, OC_HI_MS, OC_SPAN_LO, OC_SPAN_HI
};
static const char occupancy_sql[] =
    "SELECT p.label, p.source, h.hold_id, h.waits > 0, h.row_id,"
    " coalesce(r.est_us, h.end_ts - h.start_ts), h.start_evidence, h.end_evidence,"
    " r.lo_us / 1000.0, r.hi_us / 1000.0,"
    " coalesce(r.start_lo, h.start_ts), coalesce(r.end_hi, h.end_ts)"
    " FROM holds h" PATH_OF("h.tx_id")
    " LEFT JOIN hold_range r ON r.hold_id = h.hold_id WHERE h.end_ts IS NOT NULL"
    " AND" NOT_A_RELATION_LOCK("h.row_id");
/* %s the schema written. */
LS_TABLE_COLUMNS(path_occupancy);
static const char occupancy_insert_fmt[] = LS_INSERT_INTO_IN("INSERT", "%s.", path_occupancy);
#define OI(col) LS_PARAM(path_occupancy, col)

#define OCC_PER_DECADE 200 /* histogram buckets per factor of ten */
#define OCC_MIN_LOG10 (-3) /* 1 µs */
#define OCC_BUCKETS (11 * OCC_PER_DECADE) /* up to 10^8 ms */
#define OCC_P95_PCT 95 /* the percentile, nearest rank */
#define PCT 100

typedef struct occ_row {
    int64_t row_id, us;
    int timed; /* has a hold with both times (else its sum is NULL in SQL) */
    double lo, hi; /* its holds' lengths' range, summed (ms) */
} occ_row;

/* A row over every path: the span its holds lay in (µs) and their
 * lengths' lo summed (ms), for ls_hold_row_cap(). */
typedef struct occ_span {
    int64_t row_id, first, last;
    double lo;
} occ_span;

typedef struct occ_path {
    char *label, *source;
    int64_t n, waited, bounded, ranged; /* ranged: holds with a range (whole seconds) */
    double total, max, total_lo, total_hi; /* total_lo..total_hi: what the log allows */
    uint32_t hist[OCC_BUCKETS];
    occ_row *rows; /* its time on each row (a few hundred hot rows at most) */
    size_t nrows, last_row;
} occ_path;

/* Every path the scan met, and the sum of all their holds (ms). */
typedef struct occ_set {
    occ_path **paths;
    size_t n;
    double all;
    occ_span *rows; /* every row's span (a few hundred hot rows at most) */
    size_t nrows, last_row;
} occ_set;

/* Add a hold of `us` (timed: not NULL), its length within lo..hi ms, to
 * path o's time on row `row_id`; LS_ENOMEM when out of memory. */
static int occ_add_row(occ_path *o, int64_t row_id, int64_t us, int timed, double lo, double hi)
{
    size_t i;
    if (o->last_row < o->nrows && o->rows[o->last_row].row_id == row_id) {
        o->rows[o->last_row].us += us;
        o->rows[o->last_row].timed |= timed;
        o->rows[o->last_row].lo += lo;
        o->rows[o->last_row].hi += hi;
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
        o->rows[o->nrows].lo = o->rows[o->nrows].hi = 0;
        o->rows[o->nrows++].us = 0;
    }
    o->rows[i].us += us;
    o->rows[i].timed |= timed;
    o->rows[i].lo += lo;
    o->rows[i].hi += hi;
    o->last_row = i;
    return 0;
}

/* Row row_id's span in set, made when new; NULL when out of memory. */
static occ_span *occ_span_of(occ_set *set, int64_t row_id)
{
    size_t i;
    if (set->last_row < set->nrows && set->rows[set->last_row].row_id == row_id)
        return &set->rows[set->last_row];
    for (i = 0; i < set->nrows; i++)
        if (set->rows[i].row_id == row_id)
            break;
    if (i == set->nrows) {
        occ_span *nr = realloc(set->rows, (set->nrows + 1) * sizeof(*nr));
        if (!nr)
            return NULL;
        set->rows = nr;
        nr[i].row_id = row_id;
        nr[i].first = INT64_MAX;
        nr[i].last = INT64_MIN;
        nr[i].lo = 0;
        set->nrows++;
    }
    set->last_row = i;
    return &set->rows[i];
}

/* The span of row row_id in set (NULL: none). */
static const occ_span *occ_span_find(const occ_set *set, int64_t row_id)
{
    size_t i;
    for (i = 0; i < set->nrows; i++)
        if (set->rows[i].row_id == row_id)
            return &set->rows[i];
    return NULL;
}

/* Path o's total_hi cut, row by row, to what the rows' spans leave it
 * (ls_hold_row_cap): a row's holds do not overlap. Only where the log
 * gave ranges (whole seconds): elsewhere lo = hi = the hold. */
static void occ_cap_rows(const occ_set *set, occ_path *o)
{
    size_t i;
    if (!o->ranged)
        return;
    for (i = 0; i < o->nrows; i++) {
        const occ_span *sp = occ_span_find(set, o->rows[i].row_id);
        double cap;
        if (!sp || sp->last < sp->first)
            continue;
        cap = (double)ls_hold_row_cap(llround(o->rows[i].lo * 1000.0),
                                      llround(o->rows[i].hi * 1000.0), llround(sp->lo * 1000.0),
                                      sp->last - sp->first) / 1000.0;
        if (cap < o->rows[i].hi)
            o->total_hi -= o->rows[i].hi - cap;
    }
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

/* The row path o held longest (ties: the smaller row_id), or NULL. */
static const occ_row *occ_best_row(const occ_path *o)
{
    const occ_row *best = NULL;
    size_t i;
    for (i = 0; i < o->nrows; i++)
        if (!best || occ_row_before(&o->rows[i], best))
            best = &o->rows[i];
    return best;
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
    int64_t want = (OCC_P95_PCT * o->n + PCT - 1) / PCT, seen = 0;
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

/* qsort() order of paths: the larger total first, then by label. */
static int occ_by_total(const void *a, const void *b)
{
    const occ_path *x = *(occ_path *const *)a, *y = *(occ_path *const *)b;
    if (x->total != y->total)
        return x->total < y->total ? 1 : -1;
    return strcmp(x->label, y->label);
}

/* Does text e begin with `prefix`, ASCII letters in either case, as SQL's
 * `e LIKE 'prefix%'` (no wildcard in prefix)? 0 for NULL. */
static int occ_like_prefix(const char *e, const char *prefix)
{
    size_t i;
    if (!e)
        return 0;
    for (i = 0; prefix[i]; i++) {
        unsigned char x = (unsigned char)e[i], y = (unsigned char)prefix[i];
        if (x >= 'A' && x <= 'Z')
            x = (unsigned char)(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z')
            y = (unsigned char)(y - 'A' + 'a');
        if (x != y) /* a shorter e stops at its NUL */
            return 0;
    }
    return 1;
}

/* Was the hold of row q (occupancy_sql) bounded by another's time: its
 * start or end "bounded by ...", or its end where its first waiter
 * acquired the lock? */
static int occ_bounded(ls_stmt *q)
{
    const char *start = ls_stmt_text_or_null(q, OC_START_EV);
    const char *end = ls_stmt_text_or_null(q, OC_END_EV);
    return occ_like_prefix(start, "bounded by") || occ_like_prefix(end, "bounded by") ||
           occ_like_prefix(end, "first waiter acquired");
}

/* The path labelled `label` of set (named by `source`, that of the first
 * hold met), made when new; NULL when out of memory (*rc set). Paths are
 * few (functions, routes, applications): a linear search, most recent
 * first. */
static occ_path *occ_path_of(occ_set *set, const char *label, const char *source, int *rc)
{
    occ_path **np, *o;
    size_t i;

    for (i = set->n; i-- > 0;)
        if (strcmp(set->paths[i]->label, label) == 0)
            return set->paths[i];
    if (!(np = realloc(set->paths, (set->n + 1) * sizeof(*np)))) {
        *rc = LS_ENOMEM;
        return NULL;
    }
    set->paths = np;
    if (!(o = ls_calloc(1, sizeof(*o)))) {
        *rc = LS_ENOMEM;
        return NULL;
    }
    set->paths[set->n++] = o;
    if (!(o->label = ls_strdup(label)) || (source && !(o->source = ls_strdup(source)))) {
        *rc = LS_ENOMEM;
        return NULL;
    }
    return o;
}

/* What the occupancy ranking sums of a hold: its length (µs; us_null
 * when SQL's is NULL), whether it was waited for, its row, its length's
 * range (ms; ranged when both are known) and the span it lies in. */
typedef struct occ_hold {
    int64_t us, row_id, span_lo, span_hi;
    int us_null, waited, row_null, ranged, lo_null, hi_null;
    double lo_ms, hi_ms;
} occ_hold;

/* The hold of row q (occupancy_sql, or occupancy_main_sql: the columns
 * from OC_HOLD_ID on alike). */
static occ_hold occ_hold_of(ls_stmt *q)
{
    occ_hold h;
    h.us = ls_stmt_int64(q, OC_HOLD_US);
    h.us_null = ls_stmt_isnull(q, OC_HOLD_US);
    h.waited = (int)ls_stmt_int64(q, OC_WAITED);
    h.row_id = ls_stmt_int64(q, OC_ROW_ID);
    h.row_null = ls_stmt_isnull(q, OC_ROW_ID);
    h.ranged = !ls_stmt_isnull(q, OC_LO_MS) && !ls_stmt_isnull(q, OC_HI_MS);
    h.lo_ms = h.ranged ? ls_stmt_double(q, OC_LO_MS) : 0;
    h.hi_ms = h.ranged ? ls_stmt_double(q, OC_HI_MS) : 0;
    h.span_lo = ls_stmt_int64(q, OC_SPAN_LO);
    h.lo_null = ls_stmt_isnull(q, OC_SPAN_LO);
    h.span_hi = ls_stmt_int64(q, OC_SPAN_HI);
    h.hi_null = ls_stmt_isnull(q, OC_SPAN_HI);
    return h;
}

/* Adds hold h, bounded by another's time or not (occ_bounded), to path
 * o. 0 or LS_ENOMEM. */
static int occ_add_hold(occ_set *set, occ_path *o, const occ_hold *h, int bounded)
{
    double ms = (double)h->us / 1000.0, lo, hi;
    occ_span *sp;
    o->n++;
    o->total += ms;
    set->all += ms;
    if (ms > o->max)
        o->max = ms;
    o->waited += h->waited;
    o->bounded += bounded;
    if (h->ranged) {
        o->ranged++;
        o->total_lo += h->lo_ms;
        o->total_hi += h->hi_ms;
    } else {
        o->total_lo += ms;
        o->total_hi += ms;
    }
    o->hist[occ_bucket(ms)]++;
    if (h->row_null)
        return 0;
    lo = h->ranged ? h->lo_ms : ms;
    hi = h->ranged ? h->hi_ms : ms;
    if (!(sp = occ_span_of(set, h->row_id)))
        return LS_ENOMEM;
    sp->lo += lo;
    if (!h->lo_null && h->span_lo < sp->first)
        sp->first = h->span_lo;
    if (!h->hi_null && h->span_hi > sp->last)
        sp->last = h->span_hi;
    return occ_add_row(o, h->row_id, h->us, !h->us_null, lo, hi);
}

/*
 * The same scan over the store's own tables, for the pass (no window's
 * views): hold_final with its evidence and path set ids, each id's text
 * or names read once (occ_ids) where the holds view and PATH_OF looked
 * them up for every hold (18.2 M to 11.9 M SQLite VM steps at 1 GiB).
 * The rows that are a relation's lock are read once (occ_rel_sql) and
 * left out in C, as NOT_A_RELATION_LOCK leaves them: the NOT IN cost 10
 * VM steps a hold even when no row is one (4.5 M at 1 GiB). A store
 * without hold_range rows (a log with sub-second times) is read by
 * occ_scan_exact (OCC_HOLDS_EXACT_SQL, summary_sql.h).
 */
#define OCC_MAIN_COLS(est, lo, hi, start, end)                                          \
    "SELECT c.path_set, NULL, h.hold_id, h.waits > 0, h.row_id,"                        \
    " coalesce(" est ", h.end_ts - h.start_ts), h.start_evidence, h.end_evidence,"      \
    " " lo " / 1000.0, " hi " / 1000.0,"                                                \
    " coalesce(" start ", h.start_ts), coalesce(" end ", h.end_ts)"                     \
    " FROM hold_final h LEFT JOIN tx_code_rows c ON c.tx_id = h.tx_id"
static const char occupancy_main_sql[] =
    OCC_MAIN_COLS("r.est_us", "r.lo_us", "r.hi_us", "r.start_lo", "r.end_hi")
    " LEFT JOIN hold_range r ON r.hold_id = h.hold_id WHERE h.end_ts IS NOT NULL";
/* The columns of OCC_HOLDS_EXACT_SQL and of OCC_TX_SETS_SQL. */
enum { OX_TX_ID, OX_WAITS, OX_ROW_ID, OX_START, OX_END, OX_START_EV, OX_END_EV };
enum { OT_TX_ID, OT_SET };
#define OCC_TX_PARAMS(X, Q) X(Q, tx)
LS_PARAMS(otx, OCC_TX_PARAMS);
static const char occ_ranged_sql[] = "SELECT hold_id, NULL, NULL FROM hold_range LIMIT 1";
static const char occ_rel_sql[] =
    "SELECT row_id, NULL, NULL FROM relation_lock_rows ORDER BY row_id";
/* Id, then what the scan needs of it; in id order (the key's). */
static const char occ_evidence_sql[] =
    "SELECT evidence_id, text, NULL FROM hold_final_evidence ORDER BY evidence_id";
static const char occ_sets_sql[] =
    "SELECT set_id, label, source FROM temp.summary_paths ORDER BY set_id";

/* The columns of occ_evidence_sql and occ_sets_sql. */
enum { OI_ID, OI_A, OI_B };

/* A small table read whole: an id and two texts (NULL kept as NULL). */
typedef struct occ_id {
    int64_t id;
    char *a, *b;
} occ_id;
typedef struct occ_ids {
    occ_id *v;
    size_t n;
} occ_ids;

static void occ_ids_free(occ_ids *t)
{
    size_t i;
    for (i = 0; i < t->n; i++) {
        free(t->v[i].a);
        free(t->v[i].b);
    }
    free(t->v);
    t->v = NULL;
    t->n = 0;
}

/* Read sql's rows (id, a, b; in id order) into t. 0 or an error code. */
static int occ_ids_read(ls_store *s, const char *sql, occ_ids *t)
{
    ls_stmt *q = NULL;
    size_t cap = 0;
    int rc;

    if ((rc = ls_store_prepare(s, sql, &q)) != 0)
        return rc;
    while ((rc = ls_stmt_step(q)) == 1) {
        occ_id *e;
        const char *a = ls_stmt_text_or_null(q, OI_A), *b = ls_stmt_text_or_null(q, OI_B);
        if (t->n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            occ_id *nv = realloc(t->v, ncap * sizeof(*nv));
            if (!nv) {
                rc = LS_ENOMEM;
                break;
            }
            t->v = nv;
            cap = ncap;
        }
        e = &t->v[t->n++];
        e->id = ls_stmt_int64(q, OI_ID);
        e->a = a ? ls_strdup(a) : NULL;
        e->b = b ? ls_strdup(b) : NULL;
        if ((a && !e->a) || (b && !e->b)) {
            rc = LS_ENOMEM;
            break;
        }
    }
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

/* The entry of column col's id in t, or NULL (a NULL id, none such). */
static const occ_id *occ_ids_find(const occ_ids *t, ls_stmt *q, int col)
{
    int64_t id;
    size_t lo = 0, hi = t->n;
    if (ls_stmt_isnull(q, col))
        return NULL;
    id = ls_stmt_int64(q, col);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->v[mid].id == id)
            return &t->v[mid];
        if (t->v[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* occ_bounded for a row of occupancy_main_sql (its evidence ids in
 * columns start_col and end_col), the ids' texts in ev. */
static int occ_bounded_ids(const occ_ids *ev, ls_stmt *q, int start_col, int end_col)
{
    const occ_id *start = occ_ids_find(ev, q, start_col), *end = occ_ids_find(ev, q, end_col);
    return occ_like_prefix(start ? start->a : NULL, "bounded by") ||
           occ_like_prefix(end ? end->a : NULL, "bounded by") ||
           occ_like_prefix(end ? end->a : NULL, "first waiter acquired");
}

/* The path set of transaction tx (OCC_TX_SETS_SQL walked by cursor q
 * from where the last call left it, sought again from tx when tx is
 * below the last one asked): *found 0 when tx_code_rows has no row for
 * it, else *set (NULL: *set_null). 0 or an error code. */
typedef struct occ_tx_walk {
    ls_stmt *q;
    int at;       /* 1: q is on a row, 0: past the last, -1: not sought yet */
    int64_t last; /* the last tx asked */
} occ_tx_walk;

/* Rows occ_tx_set() steps over before it seeks instead: a hold's tx_id
 * that goes far ahead (transactions with no hold between) costs a seek,
 * not a walk of every transaction between (tests/e2e stmt_growth). */
#define OCC_TX_WALK_MAX 8

/* Seek w to the first row from tx on. 0 or an error code. */
static int occ_tx_seek(occ_tx_walk *w, int64_t tx)
{
    int rc;
    if ((rc = ls_stmt_reset(w->q)) != 0 ||
        (rc = ls_stmt_bind_int64(w->q, LS_PARAM(otx, tx), tx)) != 0)
        return rc;
    w->at = ls_stmt_step(w->q);
    return w->at < 0 ? w->at : 0;
}

static int occ_tx_set(occ_tx_walk *w, int64_t tx, int *found, int64_t *set, int *set_null)
{
    int rc = 0, n;
    *found = 0;
    if (w->at < 0 || tx < w->last)
        rc = occ_tx_seek(w, tx);
    else
        for (n = 0; rc == 0 && w->at == 1 && ls_stmt_int64(w->q, OT_TX_ID) < tx; n++) {
            if (n == OCC_TX_WALK_MAX) {
                rc = occ_tx_seek(w, tx);
                break;
            }
            if ((w->at = ls_stmt_step(w->q)) < 0)
                rc = w->at;
        }
    if (rc != 0)
        return rc;
    w->last = tx;
    if (w->at == 1 && ls_stmt_int64(w->q, OT_TX_ID) == tx) {
        *found = 1;
        *set = ls_stmt_int64(w->q, OT_SET);
        *set_null = ls_stmt_isnull(w->q, OT_SET);
    }
    return 0;
}

/* occ_scan's holds on a store without hold_range rows: OCC_HOLDS_EXACT_SQL,
 * its path set read alongside (occ_tx_set), the rest computed in C as
 * the SQL of occupancy_main_sql's columns did (a join of tx_code_rows
 * and the expressions per hold were 32 SQLite VM steps a hold, 13.67 M
 * at 1 GiB). 0 or an error code. */
static int occ_scan_exact(ls_store *s, occ_set *set, const occ_ids *ev, const occ_ids *sets,
                          const occ_ids *rel)
{
    ls_stmt *q = NULL;
    occ_tx_walk w = {NULL, -1, 0};
    int rc;

    if ((rc = ls_store_prepare(s, OCC_HOLDS_EXACT_SQL, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, OCC_TX_SETS_SQL, LS_PARAM_NAMES(OCC_TX_PARAMS), &w.q)) !=
            0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        const occ_id *p = NULL;
        occ_path *o;
        occ_hold h;
        size_t lo = 0, hi = sets->n;
        int found = 0, set_null = 1;
        int64_t set_id = 0;
        int start_null = ls_stmt_isnull(q, OX_START);

        rc = 0;
        h.row_null = ls_stmt_isnull(q, OX_ROW_ID);
        h.row_id = ls_stmt_int64(q, OX_ROW_ID);
        /* NOT_A_RELATION_LOCK: a NULL row is not in the list, nor out of it */
        if (rel->n && (h.row_null || occ_ids_find(rel, q, OX_ROW_ID)))
            continue;
        if (!ls_stmt_isnull(q, OX_TX_ID) &&
            (rc = occ_tx_set(&w, ls_stmt_int64(q, OX_TX_ID), &found, &set_id, &set_null)) != 0)
            break;
        while (found && !set_null && lo < hi) { /* occ_ids_find's, by value */
            size_t mid = lo + (hi - lo) / 2;
            if (sets->v[mid].id == set_id) {
                p = &sets->v[mid];
                break;
            }
            if (sets->v[mid].id < set_id)
                lo = mid + 1;
            else
                hi = mid;
        }
        /* SQL's end_ts - start_ts (end_ts is not NULL), waits > 0 */
        h.us_null = start_null;
        h.us = start_null ? 0 : ls_stmt_int64(q, OX_END) - ls_stmt_int64(q, OX_START);
        h.waited = !ls_stmt_isnull(q, OX_WAITS) && ls_stmt_int64(q, OX_WAITS) > 0;
        h.ranged = 0;
        h.lo_ms = h.hi_ms = 0;
        h.span_lo = ls_stmt_int64(q, OX_START);
        h.lo_null = start_null;
        h.span_hi = ls_stmt_int64(q, OX_END);
        h.hi_null = 0;
        if (!(o = occ_path_of(set, p && p->a ? p->a : "unknown", p ? p->b : NULL, &rc)) ||
            (rc = occ_add_hold(set, o, &h, occ_bounded_ids(ev, q, OX_START_EV, OX_END_EV))) != 0)
            break;
    }
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(w.q);
    return rc < 0 ? rc : 0;
}

/* Every hold of a hot row summed into set's paths (temp.summary_paths),
 * then sorted by total: through the window's views (occupancy_sql), or
 * the store's tables when `stored` (occupancy_main_sql). 0 or an error code. */
static int occ_scan(ls_store *s, occ_set *set, int stored)
{
    occ_ids ev = {NULL, 0}, sets = {NULL, 0}, rel = {NULL, 0}, ranged = {NULL, 0};
    ls_stmt *q = NULL;
    size_t i;
    int rc = 0;

    if (stored && ((rc = occ_ids_read(s, occ_evidence_sql, &ev)) != 0 ||
                   (rc = occ_ids_read(s, occ_sets_sql, &sets)) != 0 ||
                   (rc = occ_ids_read(s, occ_rel_sql, &rel)) != 0 ||
                   (rc = occ_ids_read(s, occ_ranged_sql, &ranged)) != 0))
        goto out;
    if (stored && !ranged.n) {
        rc = occ_scan_exact(s, set, &ev, &sets, &rel);
        goto out;
    }
    if ((rc = ls_store_prepare(s, !stored ? occupancy_sql : occupancy_main_sql, &q)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        const char *label, *source;
        occ_path *o;
        occ_hold h = occ_hold_of(q);
        /* NOT_A_RELATION_LOCK: a NULL row is not in the list, nor out of it */
        if (stored && rel.n && (ls_stmt_isnull(q, OC_ROW_ID) || occ_ids_find(&rel, q, OC_ROW_ID)))
            continue;
        if (stored) {
            const occ_id *p = occ_ids_find(&sets, q, OC_LABEL);
            label = p && p->a ? p->a : "unknown";
            source = p ? p->b : NULL;
        } else {
            label = ls_stmt_isnull(q, OC_LABEL) ? "unknown" : ls_stmt_text(q, OC_LABEL);
            source = ls_stmt_text_or_null(q, OC_SOURCE);
        }
        if (!(o = occ_path_of(set, label, source, &rc)) ||
            (rc = occ_add_hold(set, o, &h,
                               stored ? occ_bounded_ids(&ev, q, OC_START_EV, OC_END_EV)
                                      : occ_bounded(q))) != 0)
            break;
    }
out:
    ls_stmt_finalize(q);
    occ_ids_free(&ev);
    occ_ids_free(&sets);
    occ_ids_free(&rel);
    occ_ids_free(&ranged);
    if (rc < 0)
        return rc;
    for (i = 0; i < set->n; i++)
        occ_cap_rows(set, set->paths[i]);
    if (set->n)
        qsort(set->paths, set->n, sizeof(*set->paths), occ_by_total);
    return 0;
}

static void occ_free(occ_set *set)
{
    size_t i;
    for (i = 0; i < set->n; i++) {
        free(set->paths[i]->label);
        free(set->paths[i]->source);
        free(set->paths[i]->rows);
        free(set->paths[i]);
    }
    free(set->paths);
    free(set->rows);
}

/* Binds path o, the ord-th of set, to ins (occupancy_insert_fmt). */
static int occ_bind(ls_stmt *ins, const occ_set *set, const occ_path *o, int64_t ord)
{
    const occ_row *best = occ_best_row(o);
    int rc = ls_stmt_bind_int64(ins, OI(ord), ord);
    rc = rc ? rc : ls_stmt_bind_text(ins, OI(code_path), o->label);
    rc = rc ? rc : ls_stmt_bind_text(ins, OI(named_by), o->source);
    rc = rc ? rc : ls_stmt_bind_int64(ins, OI(holds), o->n);
    rc = rc ? rc : ls_stmt_bind_int64(ins, OI(waited), o->waited);
    rc = rc ? rc : ls_stmt_bind_int64(ins, OI(bounded), o->bounded);
    rc = rc ? rc : ls_stmt_bind_int64(ins, OI(ranged), o->ranged);
    rc = rc ? rc : ls_stmt_bind_double(ins, OI(total_ms), o->total);
    rc = rc ? rc : ls_stmt_bind_double(ins, OI(max_ms), o->max);
    rc = rc ? rc : ls_stmt_bind_double(ins, OI(p95_ms), occ_p95(o));
    rc = rc ? rc : ls_stmt_bind_double(ins, OI(all_ms), set->all);
    rc = rc ? rc : ls_stmt_bind_double(ins, OI(total_lo_ms), o->total_lo);
    rc = rc ? rc : ls_stmt_bind_double(ins, OI(total_hi_ms), o->total_hi);
    if (best) {
        rc = rc ? rc : ls_stmt_bind_int64(ins, OI(row_id), best->row_id);
        rc = rc ? rc : ls_stmt_bind_int64(ins, OI(row_us), best->us);
        rc = rc ? rc : ls_stmt_bind_int64(ins, OI(row_timed), best->timed);
    } else {
        rc = rc ? rc : ls_stmt_bind_null(ins, OI(row_id));
        rc = rc ? rc : ls_stmt_bind_null(ins, OI(row_us));
        rc = rc ? rc : ls_stmt_bind_null(ins, OI(row_timed));
    }
    return rc;
}

/* The occupancy ranking into schema's path_occupancy. 0 or an error code. */
static int occupancy_write(ls_store *s, const char *schema)
{
    char sql[sizeof(occupancy_insert_fmt) + 16];
    occ_set set = {NULL, 0, 0, NULL, 0, 0};
    ls_stmt *ins = NULL;
    size_t i;
    int rc;

    snprintf(sql, sizeof(sql), occupancy_insert_fmt, schema);
    if ((rc = occ_scan(s, &set, strcmp(schema, "main") == 0)) == 0 &&
        (rc = ls_store_prepare(s, sql, &ins)) == 0)
        for (i = 0; rc == 0 && i < set.n; i++) {
            if ((rc = ls_stmt_reset(ins)) == 0 &&
                (rc = occ_bind(ins, &set, set.paths[i], (int64_t)i + 1)) == 0 &&
                (rc = ls_stmt_step(ins)) > 0)
                rc = 0;
        }
    ls_stmt_finalize(ins);
    occ_free(&set);
    return rc < 0 ? rc : 0;
}

/*
 * On a threshold log, each row found only by its slow lockers (slowkeys.c,
 * grouped_by LS_SLOWKEY_EVIDENCE): its holds (its lockers' transactions)
 * counted by path; when they are all of one path
 * (ls_slowkey_one_holder_path) that path is credited the row's waiting,
 * the slow lockers' durations summed (a lower bound), into
 * temp.slowkey_caused (created always, for ranking_fmt; left empty over a
 * window, whose rows' figures are the whole log's). 0 or an error code.
 */
static const char slow_table_sql[] = "DROP TABLE IF EXISTS temp.slowkey_caused;"
                                     " CREATE TEMP TABLE slowkey_caused(label TEXT, ms REAL);";
static const char slow_drop_sql[] = "DROP TABLE IF EXISTS temp.slowkey_caused;";
enum { SK_MS, SK_HOLDS, SK_PATHS, SK_UNNAMED, SK_LABEL };
static const char slow_rows_sql[] =
    "SELECT k.total_wait_ms, count(*), count(DISTINCT p.label),"
    " sum(p.label IS NULL), min(p.label)"
    " FROM row_keys k JOIN holds h ON h.row_id = k.row_id" PATH_OF("h.tx_id")
    " WHERE k.grouped_by = '" LS_SLOWKEY_EVIDENCE "' AND k.total_wait_ms IS NOT NULL"
    " GROUP BY k.row_id";
#define SLOW_INSERT_PARAMS(X, Q) X(Q, label) X(Q, ms)
LS_PARAMS(ski, SLOW_INSERT_PARAMS);
static const char slow_insert_sql[] = "INSERT INTO temp.slowkey_caused VALUES (:label, :ms)";

static int slowkey_credit(ls_store *s, int windowed)
{
    ls_stmt *q = NULL, *ins = NULL;
    int rc;

    if ((rc = ls_store_exec(s, slow_table_sql)) != 0 || windowed)
        return rc;
    if ((rc = ls_store_prepare(s, slow_rows_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, slow_insert_sql, LS_PARAM_NAMES(SLOW_INSERT_PARAMS),
                                      &ins)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        if (!ls_slowkey_one_holder_path(ls_stmt_int64(q, SK_HOLDS), ls_stmt_int64(q, SK_PATHS),
                                        ls_stmt_int64(q, SK_UNNAMED)))
            continue;
        if ((rc = ls_stmt_reset(ins)) != 0 ||
            (rc = ls_stmt_bind_text(ins, LS_PARAM(ski, label), ls_stmt_text(q, SK_LABEL))) != 0 ||
            (rc = ls_stmt_bind_double(ins, LS_PARAM(ski, ms), ls_stmt_double(q, SK_MS))) != 0 ||
            (rc = ls_stmt_step(ins)) < 0)
            break;
    }
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(ins);
    return rc < 0 ? rc : 0;
}

/* The blocking ranking into schema's path_ranking. */
static int ranking_write(ls_store *s, const char *schema)
{
    char sql[SUMMARY_SQL_MAX], listed[256];
    int64_t res = 0;
    int rc = ls_log_resolution(s, &res);
    if (rc != 0)
        return rc;
    ls_caused_listed_sql(listed, sizeof(listed), QUEUED_CAUSED, res);
    snprintf(sql, sizeof(sql), ranking_fmt, schema,
             strcmp(schema, "main") == 0 ? SUFFERED_WAITS_MAIN : "lock_waits", schema, schema,
             listed);
    return ls_store_exec(s, sql);
}

/*
 * The queueing ranking summed in C, as queueing_fmt says in SQL (which
 * sorted six times: 18 M SQLite VM steps at 1 GiB): one scan of the row
 * waits in rw_id order merged with the covers sorted by rw_id (then by
 * rowid, the order SQL read them in), each wait's parts shared out and
 * ranked among their paths there and then. SQL's NULLs are kept: a wait
 * without wait_ms is over nothing and hides nothing, a label without a
 * counted statement is NULL where sum() gives NULL.
 */
static const char qw_waits_sql[] =
    "SELECT rw_id, tx_id, behind_tx, wait_ms, logged_ms FROM row_waits ORDER BY rw_id";
enum { QW_RW_ID, QW_TX_ID, QW_BEHIND_TX, QW_WAIT_MS, QW_LOGGED_MS };
static const char qw_covers_sql[] =
    "SELECT rw_id, tx_id, us FROM row_cover ORDER BY rw_id, rowid";
enum { QC_RW_ID, QC_TX_ID, QC_US };
/* A transaction's path set (tx_code_rows), no row when it has none. */
static const char qw_set_sql[] = "SELECT path_set FROM tx_code_rows WHERE tx_id = :tx";
#define QW_SET_PARAMS(X, Q) X(Q, tx)
LS_PARAMS(qws, QW_SET_PARAMS);
LS_TABLE_COLUMNS(path_queueing);
static const char queueing_insert_fmt[] = LS_INSERT_INTO_IN("INSERT", "%s.", path_queueing);
#define QI(col) LS_PARAM(path_queueing, col)

/* A path's sums (a row of path_queueing); the *_set: sum() is not NULL. */
typedef struct qw_sum {
    const char *label;
    int64_t behind, waited;
    int behind_set, waited_set;
    double hid_caused, lgd_caused, hid_suffered, lgd_suffered;
    int seen;
    /* whole seconds (ls_correlate_caused_ranges): the ranges the log
     * allows of hid_caused and lgd_caused, and of the waiting caused its
     * logged waits (lock_waits) give the blocking ranking (has_log: any) */
    double hid_lo, hid_hi, lgd_lo, lgd_hi, log_lo, log_hi;
    int has_log;
} qw_sum;

/* One path's share of a wait (caused in the SQL). */
typedef struct qw_part {
    int label; /* index in the labels, -1: none (NULL) */
    double f, us;
    int us_null;
} qw_part;

typedef struct qw_ctx {
    occ_ids sets;   /* summary_paths: set_id, label, source */
    int *set_label; /* each set's label index, -1: NULL */
    qw_sum *sums;   /* one per distinct label, in the labels' first-met order */
    size_t nsums;
    ls_stmt *set_q;
    int64_t last_tx;
    int last_label, have_last;
    qw_part *parts;
    size_t nparts, capparts;
    int64_t *cov_us; /* the wait's covers: their time, */
    int *cov_label;  /* ... and path */
    size_t capcov;
    int64_t res;          /* the stamps' tick when ranges are summed, else 0 */
    int64_t max_unlogged; /* ls_correlate_unlogged_bound() */
} qw_ctx;

/* The label index of transaction column col of q (-1: NULL). */
static int qw_label_of(qw_ctx *x, ls_stmt *q, int col, int *rc)
{
    int64_t tx;
    const occ_id *e;
    int label = -1;
    *rc = 0;
    if (ls_stmt_isnull(q, col))
        return -1;
    tx = ls_stmt_int64(q, col);
    if (x->have_last && x->last_tx == tx)
        return x->last_label;
    ls_stmt_reset(x->set_q);
    ls_stmt_bind_int64(x->set_q, LS_PARAM(qws, tx), tx);
    if ((*rc = ls_stmt_step(x->set_q)) < 0)
        return -1;
    if (*rc == 1 && (e = occ_ids_find(&x->sets, x->set_q, LS_ONLY_COLUMN)) != NULL)
        label = x->set_label[e - x->sets.v];
    *rc = 0;
    ls_stmt_reset(x->set_q);
    x->have_last = 1;
    x->last_tx = tx;
    x->last_label = label;
    return label;
}

/* Each set's label index, the labels deduplicated (paths are few). */
static int qw_labels(qw_ctx *x)
{
    size_t i, j;
    if (x->sets.n && (!(x->set_label = calloc(x->sets.n, sizeof(*x->set_label))) ||
                      !(x->sums = calloc(x->sets.n, sizeof(*x->sums)))))
        return LS_ENOMEM;
    for (i = 0; i < x->sets.n; i++) {
        x->set_label[i] = -1;
        if (!x->sets.v[i].a)
            continue;
        for (j = 0; j < x->nsums; j++)
            if (strcmp(x->sums[j].label, x->sets.v[i].a) == 0)
                break;
        if (j == x->nsums)
            x->sums[x->nsums++].label = x->sets.v[i].a;
        x->set_label[i] = (int)j;
    }
    return 0;
}

/* Add a part of path `label` (f, us) to the wait's, summed by path. */
static int qw_part_add(qw_ctx *x, int label, double f, double us, int us_null)
{
    size_t i;
    for (i = 0; i < x->nparts; i++)
        if (x->parts[i].label == label)
            break;
    if (i == x->nparts) {
        if (x->nparts == x->capparts) {
            size_t ncap = x->capparts ? x->capparts * 2 : 8;
            qw_part *np = realloc(x->parts, ncap * sizeof(*np));
            if (!np)
                return LS_ENOMEM;
            x->parts = np;
            x->capparts = ncap;
        }
        x->parts[i].label = label;
        x->parts[i].f = 0.0;
        x->parts[i].us = 0.0;
        x->parts[i].us_null = 1;
        x->nparts++;
    }
    x->parts[i].f += f;
    if (!us_null) {
        x->parts[i].us += us;
        x->parts[i].us_null = 0;
    }
    return 0;
}

/* Does part a rank before part b: by us, the larger first (NULL last),
 * then by label (NULL first), as the SQL's row_number()? */
static int qw_part_before(const qw_ctx *x, const qw_part *a, const qw_part *b)
{
    if (a->us_null != b->us_null)
        return b->us_null;
    if (!a->us_null && a->us != b->us)
        return a->us > b->us;
    if (a->label < 0 || b->label < 0)
        return a->label < 0 && b->label >= 0;
    return strcmp(x->sums[a->label].label, x->sums[b->label].label) < 0;
}

/* The wait of row w summed into the paths: its parts (caused), then the
 * waiter's own path (suffered). */
static int qw_wait_add(qw_ctx *x, ls_stmt *w)
{
    int ms_null = ls_stmt_isnull(w, QW_WAIT_MS), rc = 0, label;
    double ms = ls_stmt_double(w, QW_WAIT_MS);
    double lg = ls_stmt_isnull(w, QW_LOGGED_MS) ? 0.0 : ls_stmt_double(w, QW_LOGGED_MS);
    double hid = ms - lg > 0 ? ms - lg : 0.0;
    ls_wait_range hr = {0, 0}, lr = {0, 0};
    size_t i, first = 0;

    if (x->res > 0) {
        ls_hidden_wait_range(llround(hid * LS_US_PER_MS), x->res, x->max_unlogged, &hr);
        /* the logged part as the hidden-waits pass timed it, by stamps */
        ls_hidden_wait_range(llround(lg * LS_US_PER_MS), x->res, 0, &lr);
    }

    for (i = 1; i < x->nparts; i++)
        if (qw_part_before(x, &x->parts[i], &x->parts[first]))
            first = i;
    for (i = 0; i < x->nparts; i++) {
        qw_sum *su;
        if (x->parts[i].label < 0)
            continue;
        su = &x->sums[x->parts[i].label];
        su->seen = 1;
        su->waited_set = 1; /* NOT caused AND over: 0 */
        if (i != first || !ms_null) {
            su->behind += i == first && ms > QUEUED_OVER_MS;
            su->behind_set = 1;
        }
        if (!ms_null) {
            su->hid_caused += x->parts[i].f * hid;
            su->hid_lo += x->parts[i].f * (double)hr.lo / LS_US_PER_MS;
            su->hid_hi += x->parts[i].f * (double)hr.hi / LS_US_PER_MS;
        }
        su->lgd_caused += x->parts[i].f * lg;
        su->lgd_lo += x->parts[i].f * (double)lr.lo / LS_US_PER_MS;
        su->lgd_hi += x->parts[i].f * (double)lr.hi / LS_US_PER_MS;
    }
    x->nparts = 0;
    if ((label = qw_label_of(x, w, QW_TX_ID, &rc)) >= 0) {
        qw_sum *su = &x->sums[label];
        su->seen = 1;
        su->behind_set = 1;
        if (!ms_null) {
            su->waited += ms > QUEUED_OVER_MS;
            su->waited_set = 1;
            su->hid_suffered += hid;
        }
        su->lgd_suffered += lg;
    }
    return rc;
}

/* qsort() order of the sums: hidden, then logged waiting caused, the
 * most first, then by label. */
static int qw_by_caused(const void *a, const void *b)
{
    const qw_sum *x = a, *y = b;
    if (x->hid_caused != y->hid_caused)
        return x->hid_caused < y->hid_caused ? 1 : -1;
    if (x->lgd_caused != y->lgd_caused)
        return x->lgd_caused < y->lgd_caused ? 1 : -1;
    return strcmp(x->label, y->label);
}

/* The paths' sums into schema's path_queueing, in the ranking's order. */
static int qw_write(ls_store *s, const char *schema, qw_ctx *x)
{
    char sql[sizeof(queueing_insert_fmt) + 16];
    ls_stmt *ins = NULL;
    size_t i, n = 0;
    int rc;

    for (i = 0; i < x->nsums; i++)
        if (x->sums[i].seen)
            x->sums[n++] = x->sums[i];
    if (n > 1)
        qsort(x->sums, n, sizeof(*x->sums), qw_by_caused);
    snprintf(sql, sizeof(sql), queueing_insert_fmt, schema);
    if ((rc = ls_store_prepare(s, sql, &ins)) != 0)
        return rc;
    for (i = 0; rc == 0 && i < n; i++) {
        const qw_sum *su = &x->sums[i];
        rc = ls_stmt_reset(ins);
        rc = rc ? rc : ls_stmt_bind_int64(ins, QI(ord), (int64_t)i + 1);
        rc = rc ? rc : ls_stmt_bind_text(ins, QI(code_path), su->label);
        rc = rc ? rc
                : su->behind_set ? ls_stmt_bind_int64(ins, QI(statements_queued_behind), su->behind)
                                 : ls_stmt_bind_null(ins, QI(statements_queued_behind));
        rc = rc ? rc : ls_stmt_bind_double(ins, QI(hidden_wait_ms_caused), su->hid_caused);
        rc = rc ? rc : ls_stmt_bind_double(ins, QI(logged_wait_ms_caused), su->lgd_caused);
        rc = rc ? rc
                : su->waited_set ? ls_stmt_bind_int64(ins, QI(statements_waited), su->waited)
                                 : ls_stmt_bind_null(ins, QI(statements_waited));
        rc = rc ? rc : ls_stmt_bind_double(ins, QI(hidden_wait_ms_suffered), su->hid_suffered);
        rc = rc ? rc : ls_stmt_bind_double(ins, QI(logged_wait_ms_suffered), su->lgd_suffered);
        if (rc == 0 && (rc = ls_stmt_step(ins)) > 0)
            rc = 0;
    }
    ls_stmt_finalize(ins);
    return rc < 0 ? rc : 0;
}

static void qw_free(qw_ctx *x)
{
    ls_stmt_finalize(x->set_q);
    free(x->parts);
    free(x->cov_us);
    free(x->cov_label);
    free(x->set_label);
    free(x->sums);
    occ_ids_free(&x->sets);
}

/* Every row wait shared out among its covers' paths (x, set up by the
 * caller: res and max_unlogged) into x's sums. 0 or an error code. */
static int qw_scan(ls_store *s, qw_ctx *x)
{
    ls_stmt *w = NULL, *c = NULL;
    int rc, crc = 0;

    if ((rc = occ_ids_read(s, occ_sets_sql, &x->sets)) != 0 || (rc = qw_labels(x)) != 0 ||
        (rc = ls_store_prepare_params(s, qw_set_sql, LS_PARAM_NAMES(QW_SET_PARAMS), &x->set_q)) !=
            0 ||
        (rc = ls_store_prepare(s, qw_waits_sql, &w)) != 0 ||
        (rc = ls_store_prepare(s, qw_covers_sql, &c)) != 0)
        goto out;
    crc = ls_stmt_step(c);
    while ((rc = ls_stmt_step(w)) == 1) {
        int64_t rw_id = ls_stmt_int64(w, QW_RW_ID), tot = 0;
        int ncov = 0, i;
        rc = 0;
        /* The covers of waits before this one (none in a window) are skipped. */
        while (crc == 1 && ls_stmt_int64(c, QC_RW_ID) < rw_id)
            crc = ls_stmt_step(c);
        x->nparts = 0;
        /* Each cover's share of the wait, when they covered any of it:
         * the covers' total first (a wait has a few). */
        for (; crc == 1 && ls_stmt_int64(c, QC_RW_ID) == rw_id; crc = ls_stmt_step(c)) {
            if ((size_t)ncov == x->capcov) {
                size_t ncap = x->capcov ? x->capcov * 2 : 8;
                int64_t *nu = realloc(x->cov_us, ncap * sizeof(*nu));
                int *nl = nu ? realloc(x->cov_label, ncap * sizeof(*nl)) : NULL;
                if (nu)
                    x->cov_us = nu;
                if (!nl) {
                    rc = LS_ENOMEM;
                    break;
                }
                x->cov_label = nl;
                x->capcov = ncap;
            }
            x->cov_us[ncov] = ls_stmt_int64(c, QC_US);
            x->cov_label[ncov] = qw_label_of(x, c, QC_TX_ID, &rc);
            if (rc != 0)
                break;
            tot += x->cov_us[ncov++];
        }
        if (rc != 0 || crc < 0)
            break;
        for (i = 0; rc == 0 && tot > 0 && i < ncov; i++)
            rc = qw_part_add(x, x->cov_label[i], (double)x->cov_us[i] * 1.0 / (double)tot,
                             (double)x->cov_us[i], 0);
        if (rc != 0)
            break;
        /* Else the whole wait behind the hold it queued behind. */
        if (ncov == 0 || tot <= 0) {
            int label = qw_label_of(x, w, QW_BEHIND_TX, &rc);
            int ms_null = ls_stmt_isnull(w, QW_WAIT_MS);
            if (rc != 0 || (rc = qw_part_add(x, label, 1.0, ls_stmt_double(w, QW_WAIT_MS) * 1000,
                                             ms_null)) != 0)
                break;
        }
        if ((rc = qw_wait_add(x, w)) != 0)
            break;
    }
    if (rc == 0 && crc < 0)
        rc = crc;
out:
    ls_stmt_finalize(w);
    ls_stmt_finalize(c);
    return rc < 0 ? rc : 0;
}

/* The queueing ranking into schema's path_queueing. */
static int queueing_write(ls_store *s, const char *schema)
{
    qw_ctx x;
    int rc;

    memset(&x, 0, sizeof(x));
    if ((rc = qw_scan(s, &x)) == 0)
        rc = qw_write(s, schema, &x);
    qw_free(&x);
    return rc;
}

/*
 * The blocking ranking's waiting caused as ranges, where the log's times
 * are whole seconds (ls_correlate_caused_ranges). A path's waiting caused
 * is what path_ranking sums (ranking_fmt): its logged waits (lock_waits
 * queued behind its holds others waited for) and its shares of the
 * hidden queueing (row_waits, shared as the queueing ranking shares it:
 * qw_scan); a path no logged wait queued behind has its shares of the
 * logged queueing instead. Each logged wait's range is
 * ls_logged_wait_range() (exact: its closing message gave its own "after",
 * caused_exact_sql), each rebuilt part's ls_hidden_wait_range(); a path's
 * range is the sum of its parts' (the shares taken as they are).
 */
static const char caused_table_sql[] =
    "DROP TABLE IF EXISTS temp.path_caused_range;"
    " CREATE TEMP TABLE path_caused_range(code_path TEXT PRIMARY KEY, lo_ms REAL, hi_ms REAL);"
    " DROP TABLE IF EXISTS temp.caused_exact;"
    " CREATE TEMP TABLE caused_exact(wait_id INTEGER PRIMARY KEY);";
/* The waits a message with its own "after" closed ("acquired", "detected
 * deadlock": correlate.c's episode_add), one scan of the messages. */
static const char caused_exact_sql[] =
    "INSERT OR IGNORE INTO temp.caused_exact SELECT ew.wait_id FROM event_waits ew"
    " JOIN lock_event_rows e ON e.event_id = ew.event_id"
    " WHERE e.phase IN ('acquired', 'deadlock') AND e.waited_ms IS NOT NULL;";
static const char caused_drop_sql[] = "DROP TABLE IF EXISTS temp.caused_exact;";
enum { CL_LABEL, CL_WAITED_MS, CL_START, CL_END, CL_EXACT, CL_AFTER };
/* its first message's "after" (whole seconds: its start is that
 * message's time less it, correlate.c's episode_add) */
static const char caused_logged_sql[] =
    "SELECT p.label, w.waited_ms, w.start_ts, coalesce(w.end_ts, w.logged_ts),"
    " x.wait_id IS NOT NULL, coalesce(w.logged_ts - w.start_ts, 0)"
    " FROM holds h JOIN lock_waits w ON w.holder_tx = h.tx_id AND w.row_id = h.row_id" PATH_OF(
        "h.tx_id") " LEFT JOIN temp.caused_exact x ON x.wait_id = w.wait_id"
                   " WHERE h.waits > 0 AND w.waited_ms IS NOT NULL AND w.start_ts IS NOT NULL "
                   "AND" NOT_A_RELATION_LOCK("h.row_id");
#define CAUSED_INSERT_PARAMS(X, Q) X(Q, code_path) X(Q, lo_ms) X(Q, hi_ms)
LS_PARAMS(cip, CAUSED_INSERT_PARAMS);
static const char caused_insert_sql[] = "INSERT OR REPLACE INTO temp.path_caused_range"
                                        " VALUES (:code_path, :lo_ms, :hi_ms)";

/* The logged waits' ranges summed into x's paths by label. */
static int caused_logged(ls_store *s, qw_ctx *x)
{
    ls_stmt *q = NULL;
    int rc;

    if ((rc = ls_store_exec(s, caused_exact_sql)) != 0 ||
        (rc = ls_store_prepare(s, caused_logged_sql, &q)) != 0)
        return rc;
    while ((rc = ls_stmt_step(q)) == 1) {
        const char *label = ls_stmt_text_or_null(q, CL_LABEL);
        ls_wait_range r;
        size_t j;
        if (!label)
            continue;
        for (j = 0; j < x->nsums && strcmp(x->sums[j].label, label) != 0; j++)
            ;
        if (j == x->nsums)
            continue; /* every path is a set's label (summary_paths) */
        ls_logged_wait_range(ls_stmt_int64(q, CL_EXACT) != 0,
                             llround(ls_stmt_double(q, CL_WAITED_MS) * LS_US_PER_MS),
                             ls_stmt_int64(q, CL_START), ls_stmt_int64(q, CL_END),
                             ls_stmt_int64(q, CL_AFTER), x->res, &r);
        x->sums[j].has_log = 1;
        x->sums[j].log_lo += (double)r.lo / LS_US_PER_MS;
        x->sums[j].log_hi += (double)r.hi / LS_US_PER_MS;
    }
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

/* Each path's range into temp.path_caused_range. */
static int caused_write(ls_store *s, const qw_ctx *x)
{
    ls_stmt *ins = NULL;
    size_t i;
    int rc;

    if ((rc = ls_store_prepare_params(s, caused_insert_sql, LS_PARAM_NAMES(CAUSED_INSERT_PARAMS),
                                      &ins)) != 0)
        return rc;
    for (i = 0; rc == 0 && i < x->nsums; i++) {
        const qw_sum *su = &x->sums[i];
        double lo = su->hid_lo + (su->has_log ? su->log_lo : su->lgd_lo);
        double hi = su->hid_hi + (su->has_log ? su->log_hi : su->lgd_hi);
        if (!su->seen && !su->has_log)
            continue;
        rc = ls_stmt_reset(ins);
        rc = rc ? rc : ls_stmt_bind_text(ins, LS_PARAM(cip, code_path), su->label);
        rc = rc ? rc : ls_stmt_bind_double(ins, LS_PARAM(cip, lo_ms), lo);
        rc = rc ? rc : ls_stmt_bind_double(ins, LS_PARAM(cip, hi_ms), hi);
        if (rc == 0 && (rc = ls_stmt_step(ins)) > 0)
            rc = 0;
    }
    ls_stmt_finalize(ins);
    return rc < 0 ? rc : 0;
}

/*
 * A threshold log (ls_logcover_caused_unbounded), and one with a row
 * found only by its slow lockers (slowkeys.c makes them only where
 * statements are logged past a duration threshold):
 * the blocking ranking credits such a row's waiting to its lockers' path
 * (slowkey_credit), the slow lockers' durations summed, and every path's
 * waiting caused there is at least its figure (waits under the threshold
 * and deadlock_timeout are not in the log) with no upper bound the log
 * gives: each path's range is its figure (or the whole-second range's
 * least) up, hi_ms NULL, which leaves the paths in no certain order
 * (reports/codepaths.c).
 */
static const char slow_any_sql[] =
    "SELECT 1 FROM row_keys WHERE grouped_by = '" LS_SLOWKEY_EVIDENCE "' LIMIT 1";
static const char spans_any_sql[] = "SELECT 1 FROM spans LIMIT 1";
static const char caused_at_least_sql[] =
    "CREATE TEMP TABLE IF NOT EXISTS path_caused_range(code_path TEXT PRIMARY KEY, lo_ms REAL,"
    " hi_ms REAL);"
    " INSERT OR IGNORE INTO temp.path_caused_range SELECT code_path, waiter_ms_caused, NULL"
    " FROM path_ranking WHERE code_path IS NOT NULL;"
    " UPDATE temp.path_caused_range SET hi_ms = NULL;";

static int caused_at_least(ls_store *s)
{
    ls_logcover verdict;
    ls_stmt *q = NULL;
    int rc;

    int slow, spans;

    if ((rc = ls_correlate_stmt_logging(s, &verdict)) != 0 ||
        (rc = ls_store_prepare(s, slow_any_sql, &q)) != 0)
        return rc;
    slow = ls_stmt_step(q);
    ls_stmt_finalize(q);
    if (slow < 0)
        return slow;
    if ((rc = ls_store_prepare(s, spans_any_sql, &q)) != 0)
        return rc;
    spans = ls_stmt_step(q);
    ls_stmt_finalize(q);
    if (spans < 0)
        return spans;
    if (!ls_logcover_caused_unbounded(verdict, slow, spans))
        return 0;
    return ls_store_exec(s, caused_at_least_sql);
}

/* The whole-second ranges (a log with milliseconds: none). */
static int caused_seconds(ls_store *s, const char *label_sql, const char *source_sql)
{
    char sql[SUMMARY_SQL_MAX];
    qw_ctx x;
    int rc, rc2;

    memset(&x, 0, sizeof(x));
    if ((rc = ls_log_resolution(s, &x.res)) != 0 || x.res < LS_WHOLE_SECOND_US)
        return rc;
    snprintf(sql, sizeof(sql), set_paths_fmt, label_sql, source_sql);
    if ((rc = ls_correlate_unlogged_bound(s, &x.max_unlogged)) == 0 &&
        (rc = ls_store_exec(s, caused_table_sql)) == 0 && (rc = ls_store_exec(s, sql)) == 0 &&
        (rc = qw_scan(s, &x)) == 0 && (rc = caused_logged(s, &x)) == 0)
        rc = caused_write(s, &x);
    qw_free(&x);
    rc2 = ls_store_exec(s, set_paths_drop_sql);
    if (rc == 0)
        rc = rc2;
    rc2 = ls_store_exec(s, caused_drop_sql);
    return rc ? rc : rc2;
}

int ls_correlate_caused_ranges(ls_store *s, const char *label_sql, const char *source_sql)
{
    int rc = caused_seconds(s, label_sql, source_sql);
    return rc ? rc : caused_at_least(s);
}

/* Buckets over a row's time: at 1,100 SVG units a bucket is under 3. */
#define QUEUE_BUCKETS 400

/* Each row's queue, in time order (ties: insertion order); a row's first
 * and last change. */
enum { RQ_ROW_ID, RQ_TS, RQ_DEPTH };
static const char queue_sql[] =
    "SELECT row_id, ts, depth FROM row_queue WHERE row_id IS NOT NULL ORDER BY row_id, ts, rowid";
#define QUEUE_SPAN_COLS(X, Q)                  \
    X(Q, t0, "min(ts)")                        \
    X(Q, span, "max(ts) - min(ts) + 1")
LS_COLUMNS(qs, QUEUE_SPAN_COLS);
static const char queue_span_sql[] =
    "SELECT " LS_SELECT_LIST(qs, QUEUE_SPAN_COLS) " FROM row_queue WHERE row_id = :row";
#define QUEUE_SPAN_PARAMS(X, Q) X(Q, row)
LS_PARAMS(qsp, QUEUE_SPAN_PARAMS);
/* %s the schema written. */
LS_TABLE_COLUMNS(row_queue_buckets);
static const char bucket_insert_fmt[] = LS_INSERT_INTO_IN("INSERT", "%s.", row_queue_buckets);

/* The bucket being summed. */
typedef struct queue_bucket {
    int64_t row_id, b, first_ts, last_ts, depth, end_depth;
    int open; /* holds a change */
} queue_bucket;

/* Bucket qb written (ins) when it holds a change. 0 or an error code. */
static int bucket_flush(ls_stmt *ins, queue_bucket *qb)
{
    int rc;
    if (!qb->open)
        return 0;
    qb->open = 0;
    if ((rc = ls_stmt_reset(ins)) != 0 ||
        (rc = ls_stmt_bind_int64(ins, LS_PARAM(row_queue_buckets, row_id), qb->row_id)) ||
        (rc = ls_stmt_bind_int64(ins, LS_PARAM(row_queue_buckets, b), qb->b)) ||
        (rc = ls_stmt_bind_int64(ins, LS_PARAM(row_queue_buckets, first_ts), qb->first_ts)) ||
        (rc = ls_stmt_bind_int64(ins, LS_PARAM(row_queue_buckets, last_ts), qb->last_ts)) ||
        (rc = ls_stmt_bind_int64(ins, LS_PARAM(row_queue_buckets, depth), qb->depth)) ||
        (rc = ls_stmt_bind_int64(ins, LS_PARAM(row_queue_buckets, end_depth), qb->end_depth)))
        return rc;
    rc = ls_stmt_step(ins);
    return rc < 0 ? rc : 0;
}

/* Row row_id's first change (*t0) and its queue's span in µs plus one
 * (*span), from `span_q` (queue_span_sql). 0 or an error code. */
static int queue_span(ls_stmt *span_q, int64_t row_id, int64_t *t0, int64_t *span)
{
    int rc;
    if ((rc = ls_stmt_reset(span_q)) != 0 ||
        (rc = ls_stmt_bind_int64(span_q, LS_PARAM(qsp, row), row_id)) != 0)
        return rc;
    if ((rc = ls_stmt_step(span_q)) < 0)
        return rc;
    *t0 = ls_stmt_int64(span_q, qs_t0);
    *span = ls_stmt_int64(span_q, qs_span);
    return 0;
}

/* The bucket of a change at `d` µs after its row's first, of `span`
 * (> d): d * QUEUE_BUCKETS / span, without the product's overflow when
 * a log's times are centuries apart (a fuzzed year; UBSan found it). */
static int64_t queue_bucket_of(int64_t d, int64_t span)
{
    int64_t b;
    if (d <= INT64_MAX / QUEUE_BUCKETS)
        return d * QUEUE_BUCKETS / span;
    b = d / (span / QUEUE_BUCKETS);
    return b < QUEUE_BUCKETS ? b : QUEUE_BUCKETS - 1;
}

/* Adds change (ts, depth) of the row in qb to its bucket b. */
static void bucket_add(queue_bucket *qb, int64_t b, int64_t ts, int64_t depth)
{
    if (!qb->open) {
        qb->open = 1;
        qb->b = b;
        qb->first_ts = ts;
        qb->depth = depth;
    }
    if (depth > qb->depth)
        qb->depth = depth;
    qb->last_ts = ts;
    qb->end_depth = depth;
}

/* Every row's queue buckets into schema's row_queue_buckets. */
static int queue_buckets_write(ls_store *s, const char *schema)
{
    char sql[sizeof(bucket_insert_fmt) + 16];
    ls_stmt *q = NULL, *span_q = NULL, *ins = NULL;
    queue_bucket qb = {0, 0, 0, 0, 0, 0, 0};
    int64_t t0 = 0, span = 1;
    int rc, have_row = 0;

    snprintf(sql, sizeof(sql), bucket_insert_fmt, schema);
    if ((rc = ls_store_prepare(s, queue_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, queue_span_sql, LS_PARAM_NAMES(QUEUE_SPAN_PARAMS),
                                      &span_q)) != 0 ||
        (rc = ls_store_prepare(s, sql, &ins)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        int64_t row_id = ls_stmt_int64(q, RQ_ROW_ID), ts = ls_stmt_int64(q, RQ_TS), b;
        if (!have_row || row_id != qb.row_id) {
            if ((rc = bucket_flush(ins, &qb)) != 0 ||
                (rc = queue_span(span_q, row_id, &t0, &span)) != 0)
                break;
            have_row = 1;
            qb.row_id = row_id;
        }
        b = queue_bucket_of(ts - t0, span);
        if (qb.open && b != qb.b && (rc = bucket_flush(ins, &qb)) != 0)
            break;
        bucket_add(&qb, b, ts, ls_stmt_int64(q, RQ_DEPTH));
    }
    if (rc >= 0)
        rc = bucket_flush(ins, &qb);
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(span_q);
    ls_stmt_finalize(ins);
    return rc < 0 ? rc : 0;
}

/* The three rankings of grouping label_sql/source_sql into schema's
 * tables (emptied first). */
static int summary_write(ls_store *s, const char *schema, const char *label_sql,
                         const char *source_sql, int windowed)
{
    char sql[SUMMARY_SQL_MAX];
    int rc;

    snprintf(sql, sizeof(sql), "DELETE FROM %s.path_ranking; DELETE FROM %s.path_queueing;"
             " DELETE FROM %s.path_occupancy;", schema, schema, schema);
    if ((rc = ls_store_exec(s, sql)) != 0)
        return rc;
    snprintf(sql, sizeof(sql), set_paths_fmt, label_sql, source_sql);
    if ((rc = ls_store_exec(s, sql)) == 0 && (rc = queueing_write(s, schema)) == 0 &&
        (rc = slowkey_credit(s, windowed)) == 0 && (rc = ranking_write(s, schema)) == 0)
        rc = occupancy_write(s, schema);
    {
        int rc2 = ls_store_exec(s, set_paths_drop_sql);
        int rc3 = ls_store_exec(s, slow_drop_sql);
        return rc ? rc : rc2 ? rc2 : rc3;
    }
}

/* The queue buckets into schema's row_queue_buckets (emptied first). */
static int buckets_write(ls_store *s, const char *schema)
{
    char sql[64];
    int rc;
    snprintf(sql, sizeof(sql), "DELETE FROM %s.row_queue_buckets;", schema);
    if ((rc = ls_store_exec(s, sql)) != 0)
        return rc;
    return queue_buckets_write(s, schema);
}

int ls_correlate_summary(ls_store *s, ls_correlate_stats *stats)
{
    int rc;
    (void)stats;
    if ((rc = summary_write(s, "main", ls_grouping_default()->label, ls_grouping_default()->source,
                            0)) != 0)
        return rc;
    return buckets_write(s, "main");
}

static const char scope_enter_sql[] =
    "CREATE TEMP TABLE IF NOT EXISTS path_ranking" LS_PATH_RANKING_COLS ";"
    " CREATE TEMP TABLE IF NOT EXISTS path_queueing" LS_PATH_QUEUEING_COLS ";"
    " CREATE TEMP TABLE IF NOT EXISTS path_occupancy" LS_PATH_OCCUPANCY_COLS ";";
static const char scope_window_sql[] =
    "CREATE TEMP TABLE IF NOT EXISTS row_queue_buckets" LS_ROW_QUEUE_BUCKETS_COLS ";";

int ls_correlate_summary_scope(ls_store *s, const char *label_sql, const char *source_sql,
                               int windowed)
{
    int rc = ls_store_exec(s, scope_enter_sql);
    if (rc == 0)
        rc = summary_write(s, "temp", label_sql, source_sql, windowed);
    /* the buckets know no grouping: summed again only over a window's queue */
    if (rc == 0 && windowed && (rc = ls_store_exec(s, scope_window_sql)) == 0)
        rc = buckets_write(s, "temp");
    return rc;
}

int ls_correlate_summary_leave(ls_store *s)
{
    return ls_store_exec(s, "DROP TABLE IF EXISTS temp.path_ranking;"
                            " DROP TABLE IF EXISTS temp.path_queueing;"
                            " DROP TABLE IF EXISTS temp.path_occupancy;"
                            " DROP TABLE IF EXISTS temp.path_caused_range;"
                            " DROP TABLE IF EXISTS temp.row_queue_buckets;");
}
