/*
 * slowkeys.c — rows a threshold log shows only by their slow lockers
 * (issue 34), a step of the logical-rows pass, after the quiet rows
 * (quiet.c calls it with the same keys it read).
 *
 * A log whose statements are logged only past log_min_duration_statement
 * (decide/logcover.c: THRESHOLD) has no BEGIN/COMMIT and none of the fast
 * statements that held a row: a row enters the store only through a lock
 * message, and a row whose waits all stayed under deadlock_timeout left
 * none (samples/blind-rb: warehouses id=1, 62 waits and 33.1 s in the
 * app's truth, no wait logged, 54 slow FOR UPDATEs by its key). Each
 * logged locking statement's key (tx_keys, ls_keypack.h: ingest keyed it
 * by ls_sql_stmt_key()) and duration are summed per key in one read;
 * decide/slowkey.c says which keys their slow lockers make rows: many on
 * one key, far fewer on the relation's others.
 *
 * Such a row's waiting is what the log gives, never a confident figure:
 * waits 0 (no wait logged), total_wait_ms the slow lockers' durations
 * summed and max_wait_ms the longest, which its evidence
 * (LS_SLOWKEY_EVIDENCE, the rows' `grouped_by`) says are bounds: each
 * duration bounds its statement's wait from above, their sum the row's
 * waiting from below (the waits under the threshold are not in the log).
 * The report says so (reports/model.c). Its holds are the lockers' own,
 * untimed (the log has no transaction ends: occupancy stays unknown).
 */
#include <string.h>

#include "corr_tables.h"
#include "correlate_int.h"
#include "decide/slowkey.h"
#include "ls_columns.h"
#include "ls_keypack.h"
#include "rowmake.h"

#define SK_COLS(X, Q) X(Q, keys, "keys")
LS_COLUMNS(sk, SK_COLS);

/* Each keyed, timed statement of the log (temp.slow_keys), summed per key
 * by SQL: the keys of a large log are not held in memory. */
#define LS_TABLE_slow_keys(F, C, T)                                                                \
    F(T, rel, LS_TEXT)                                                                             \
    C(T, row_key, LS_TEXT)                                                                         \
    C(T, ms, LS_REAL)                                                                              \
    C(T, start_ts, LS_INT)                                                                         \
    C(T, end_ts, LS_INT)
LS_TABLE_COLUMNS(slow_keys);
static const char slow_table_sql[] =
    LS_CREATE_TABLE_IN("temp.", slow_keys) "DELETE FROM temp.slow_keys;";
static const char slow_insert_sql[] = LS_INSERT_INTO_IN("INSERT", "temp.", slow_keys);
/* emptied, not dropped: the caller (quiet.c) may have statements running,
 * and a DROP would find the schema locked */
static const char slow_drop_sql[] = "DELETE FROM temp.slow_keys";

/* One key's slow lockers, with its relation's other keys: the most
 * statements any key of the relation had (top), the second most (second,
 * equal to top when two keys tie) and their sum (total). */
#define SUM_COLS(X, Q)                                                                             \
    X(Q, rel, "rel")                                                                               \
    X(Q, row_key, "row_key")                                                                       \
    X(Q, n, "n")                                                                                   \
    X(Q, ms, "ms")                                                                                 \
    X(Q, max_ms, "max_ms")                                                                         \
    X(Q, first_ts, "first_ts")                                                                     \
    X(Q, last_ts, "last_ts")                                                                       \
    X(Q, total, "sum(n) OVER r")                                                                   \
    X(Q, top, "nth_value(n, 1) OVER r")                                                            \
    X(Q, second, "coalesce(nth_value(n, 2) OVER r, 0)")
LS_COLUMNS(sm, SUM_COLS);
static const char sum_sql[] =
    "WITH k AS (SELECT rel, row_key, count(*) AS n, sum(ms) AS ms, max(ms) AS max_ms,"
    "  min(start_ts) AS first_ts, max(end_ts) AS last_ts"
    "  FROM temp.slow_keys GROUP BY rel, row_key)"
    " SELECT " LS_SELECT_LIST(sm, SUM_COLS) " FROM k"
    " WINDOW r AS (PARTITION BY rel ORDER BY n DESC"
    "  ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)"
    " ORDER BY rel, row_key";

/* One key's slow lockers, as make_row() writes them. */
typedef struct skey {
    const char *rel, *key;
    int64_t first_ts, last_ts;
    double ms, max_ms;
} skey;

/* Adds the timed keyed statements of `keys_sql` (rows of packed keys) to
 * temp.slow_keys, a row each. */
static int gather(ls_store *s, const char *keys_sql, ls_stmt *ins)
{
    ls_stmt *q = NULL;
    int rc;
    if ((rc = ls_store_prepare(s, keys_sql, &q)) != 0)
        return rc;
    while ((rc = ls_stmt_step(q)) == 1) {
        const char *p = ls_stmt_text(q, sk_keys), *end = p + strlen(p);
        ls_keypack_entry e;
        int first = 1;
        for (; p < end; first = 0) {
            if (!(p = ls_keypack_next(p, end, first ? NULL : &e, &e)))
                break; /* malformed: the transactions pass says so */
            if (!e.has_end || !e.start_ts || !e.rel[0] || !e.key[0])
                continue;
            ls_stmt_reset(ins);
            if ((rc = ls_stmt_bind_text(ins, LS_PARAM(slow_keys, rel), e.rel)) != 0 ||
                (rc = ls_stmt_bind_text(ins, LS_PARAM(slow_keys, row_key), e.key)) != 0 ||
                (rc = ls_stmt_bind_double(ins, LS_PARAM(slow_keys, ms),
                                          (double)(e.end_ts - e.start_ts) / 1000.0)) != 0 ||
                (rc = ls_stmt_bind_int64(ins, LS_PARAM(slow_keys, start_ts), e.start_ts)) != 0 ||
                (rc = ls_stmt_bind_int64(ins, LS_PARAM(slow_keys, end_ts), e.end_ts)) != 0 ||
                (rc = ls_stmt_step(ins)) < 0)
                goto out;
        }
    }
out:
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

/* The key's row unless it is one already (a logged wait's, a quiet one):
 * rowmake.h, with the slow lockers' bounds. */
static int make_row(ls_rowmake *rm, const skey *k, ls_correlate_stats *stats)
{
    ls_rowmake_row r = {.rel = k->rel,
                        .key = k->key,
                        .evidence = LS_SLOWKEY_EVIDENCE,
                        .grouped_by = LS_SLOWKEY_EVIDENCE,
                        .bounds = 1,
                        .total_wait_ms = k->ms,
                        .max_wait_ms = k->max_ms,
                        .first_ts = k->first_ts,
                        .last_ts = k->last_ts};
    int made, rc = ls_rowmake_add(rm, &r, &made);
    stats->rows += made;
    return rc;
}

int ls_correlate_slow_key_rows(ls_store *s, ls_correlate_stats *stats, const char *keys_sql)
{
    ls_logcover verdict;
    ls_stmt *add = NULL, *sum = NULL;
    ls_rowmake rows = {NULL, NULL};
    int rc, drc;

    if ((rc = ls_correlate_stmt_logging(s, &verdict)) != 0)
        return rc;
    if (verdict != LS_LOGCOVER_THRESHOLD)
        return 0; /* every statement logged: the quiet rows are better */
    if ((rc = ls_store_exec(s, slow_table_sql)) != 0)
        return rc;
    if ((rc = ls_store_prepare(s, slow_insert_sql, &add)) != 0 ||
        (rc = gather(s, keys_sql, add)) != 0 ||
        (rc = ls_store_prepare(s, sum_sql, &sum)) != 0 ||
        (rc = ls_rowmake_open(s, &rows)) != 0)
        goto out;
    /* each key against its relation's others: the most and the next most,
     * and the sum */
    while ((rc = ls_stmt_step(sum)) == 1) {
        ls_slowkey_in in;
        skey k;
        int64_t n = ls_stmt_int64(sum, sm_n), top = ls_stmt_int64(sum, sm_top);
        in.statements = n;
        in.ms = ls_stmt_double(sum, sm_ms);
        in.next_key = n == top ? ls_stmt_int64(sum, sm_second) : top;
        in.other_keys_sum = ls_stmt_int64(sum, sm_total) - n;
        if (!ls_slowkey_makes_row(&in))
            continue;
        k.rel = ls_stmt_text(sum, sm_rel);
        k.key = ls_stmt_text(sum, sm_row_key);
        k.ms = in.ms;
        k.max_ms = ls_stmt_double(sum, sm_max_ms);
        k.first_ts = ls_stmt_int64(sum, sm_first_ts);
        k.last_ts = ls_stmt_int64(sum, sm_last_ts);
        if ((rc = make_row(&rows, &k, stats)) != 0)
            goto out;
    }
out:
    ls_stmt_finalize(add);
    ls_stmt_finalize(sum);
    ls_rowmake_close(&rows);
    drc = ls_store_exec(s, slow_drop_sql);
    if (rc >= 0 && drc != 0)
        rc = drc;
    return rc < 0 ? rc : 0;
}
