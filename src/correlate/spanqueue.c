/*
 * spanqueue.c — rows on which statements only the spans show queued
 * (issue 34, samples/blind-zk), the last step of the logical-rows pass.
 *
 * A logical row is made from a logged wait, a deadlock's DETAIL, a 40001
 * error, or statements of the log that queued below deadlock_timeout
 * (quiet.c, which needs their durations). Under log_statement = 'mod' the
 * SELECT ... FOR UPDATE that takes a row, BEGIN and COMMIT are in no log
 * line and nothing has a duration; a FOR UPDATE queued behind holders
 * that UPDATE the row waits once per row version, each wait below
 * deadlock_timeout, so the busiest row of blind-zk (warehouses id=1, 88
 * waits up to 4.9 s) left no trace in the log. The requests' spans have
 * it: each request's transaction (BEGIN..COMMIT or ROLLBACK spans,
 * ls_span_tx_of()), the key its locking statements name (an ORM inlines
 * it: `"Warehouse"."id" = 1`), on one clock. A locking span whose text the
 * log never has, of one request, that queued behind another request's
 * transaction holding its key (decide/spanq.h ls_spanq_queued_us()) for
 * at least LS_HOT_HIDDEN_MIN_US makes the key a row (evidence
 * LS_SPANQ_EVIDENCE); the transactions pass then gives it holds (txspans.c
 * rebuilds the transactions of the log's statements from their spans).
 *
 * Reads the database spans of traced requests once, in trace order
 * (each request's up to SPANQ_REQ_MAX spans at a time), keeps each
 * locking span's key and times (one entry per transaction and key), then
 * per key walks them in order of when the row was got.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corr_tables.h"
#include "correlate_int.h"
#include "decide/quiet.h"
#include "decide/spanq.h"
#include "decide/spantx.h"
#include "decide/tolerances.h"
#include "ls_buf.h"
#include "rowmake.h"
#include "ls_columns.h"
#include "ls_params.h"
#include "ls_sqlshape.h"
#include "rowkey.h"

#define SPANQ_REQ_MAX 64 /* database spans of a request read */
/* How many holds of a key before a locking span's start are tried: it
 * queues behind the one that had the row at its start, among the last
 * few got (quiet.c's window). */
#define SPANQ_WINDOW 8
#define SPANQ_EVIDENCE "locking statements queued in the spans (not logged)"

/* Every database span of a traced request (not an ORM's span of a driver
 * span), by request and start; app clock. */
#define SQ_COLS(X, Q)                                                                              \
    X(Q, span_row, "sp.span_row")                                                                  \
    X(Q, trace_id, "sp.trace_id")                                                                  \
    X(Q, start_ts, "sp.start_ts")                                                                  \
    X(Q, end_ts, "sp.end_ts")                                                                      \
    X(Q, error, "coalesce(sp.error, 0)")                                                           \
    X(Q, text, "sp.db_statement")
LS_COLUMNS(sq, SQ_COLS);
static const char spans_sql[] = "SELECT " LS_SELECT_LIST(
    sq, SQ_COLS) " FROM spans sp"
                 " WHERE sp.db_statement IS NOT NULL AND sp.trace_id IS NOT NULL"
                 " AND sp.start_ts IS NOT NULL AND sp.end_ts IS NOT NULL"
                 " AND NOT EXISTS (SELECT 1 FROM span_placement p WHERE p.span_row = sp.span_row"
                 "  AND p.how = '" LS_HOW_ORM_SPAN "')"
                 " ORDER BY sp.trace_id, sp.start_ts, sp.span_row";

/* The texts the log has a statement of (not one the spans pass added). */
static const char logged_table_sql[] =
    "CREATE TEMP TABLE IF NOT EXISTS spanq_logged(text_id INTEGER PRIMARY KEY);"
    "DELETE FROM temp.spanq_logged;"
    "INSERT OR IGNORE INTO temp.spanq_logged(text_id)"
    " SELECT text_id FROM stmt_rows WHERE verb IS NOT 5 /* LS_VERB_SPAN */"
    " AND text_id IS NOT NULL;";
static const char logged_drop_sql[] = "DROP TABLE IF EXISTS temp.spanq_logged";
static const char logged_sql[] =
    "SELECT EXISTS (SELECT 1 FROM stmt_texts t JOIN temp.spanq_logged l ON l.text_id = t.text_id"
    " WHERE t.hash = :hash AND t.text = :text)";
#define LOGGED_PARAMS(X, Q) X(Q, hash) X(Q, text)
LS_PARAMS(lgp, LOGGED_PARAMS);

/* Each transaction's first locking span on a key (rel, key "col=value";
 * unlogged: its text is in no log line, it may be a waiter), in
 * a temp table read back by key and when the row was got: memory stays
 * flat however many spans lock keys. */
#define LS_TABLE_spanq_locks(F, C, T)                                                              \
    F(T, rel, LS_TEXT " NOT NULL")                                                                 \
    C(T, key, LS_TEXT " NOT NULL")                                                                 \
    C(T, tx, LS_INT)                                                                               \
    C(T, lock_start, LS_INT)                                                                       \
    C(T, lock_end, LS_INT)                                                                         \
    C(T, end_start, LS_INT)                                                                        \
    C(T, end_end, LS_INT)                                                                          \
    C(T, shared, LS_INT)                                                                           \
    C(T, unlogged, LS_INT)
LS_TABLE_COLUMNS(spanq_locks);
/* Keyed by how decide_keys reads it, so that the read needs no sort; the
 * columns made from LS_TABLE_spanq_locks, as its INSERT is. */
#define LS_KEY_spanq_locks "PRIMARY KEY(rel, key, lock_end, tx)"
static const char locks_table_sql[] =
    "DROP TABLE IF EXISTS temp.spanq_locks;"
    "CREATE TABLE temp.spanq_locks" LS_TABLE_DEFN_KEYED(spanq_locks) " WITHOUT ROWID;";
static const char locks_drop_sql[] = "DROP TABLE IF EXISTS temp.spanq_locks";
static const char locks_insert_sql[] = LS_INSERT_INTO_IN("INSERT OR IGNORE", "temp.", spanq_locks);
#define SL_COLS(X, Q)                                                                              \
    X(Q, rel, "rel")                                                                               \
    X(Q, key, "key")                                                                               \
    X(Q, tx, "tx")                                                                                 \
    X(Q, lock_start, "lock_start")                                                                 \
    X(Q, lock_end, "lock_end")                                                                     \
    X(Q, end_start, "end_start")                                                                   \
    X(Q, end_end, "end_end")                                                                       \
    X(Q, shared, "shared")                                                                         \
    X(Q, unlogged, "unlogged")
LS_COLUMNS(sl, SL_COLS);
static const char locks_sql[] =
    "SELECT " LS_SELECT_LIST(sl, SL_COLS) " FROM temp.spanq_locks ORDER BY rel, key, lock_end, tx";

/* A key's last SPANQ_RING locking spans, in when the row was got: an
 * unlogged span's candidates are the last SPANQ_WINDOW of them that got
 * the row by its start; more than SPANQ_RING - SPANQ_WINDOW got after its
 * start and before its end (a queue that deep while it waited) would
 * hide some, which can only leave a row unmade. */
#define SPANQ_RING 1024

typedef struct sq_ctx {
    ls_stmt *logged, *add;
    ls_rowmake maker;    /* the rows it makes */
    ls_spanq_lock *ring; /* SPANQ_RING, a circular buffer */
    int64_t rows;
} sq_ctx;

/* A request's span as read. */
typedef struct sq_span {
    int64_t row;
    int error;
    char *text;
} sq_span;

static int text_logged(sq_ctx *c, const char *text, int *out)
{
    int rc;
    ls_stmt_reset(c->logged);
    if ((rc = ls_stmt_bind_int64(c->logged, LS_PARAM(lgp, hash), ls_text_hash(text))) != 0 ||
        (rc = ls_stmt_bind_text(c->logged, LS_PARAM(lgp, text), text)) != 0 ||
        (rc = ls_stmt_step(c->logged)) < 0)
        return rc;
    *out = rc == 1 && ls_stmt_int64(c->logged, LS_ONLY_COLUMN) != 0;
    ls_stmt_reset(c->logged);
    return 0;
}

/* Add a transaction's first locking span l on rel's key to the table. */
static int entry_add(sq_ctx *c, const char *rel, const char *key, const ls_spanq_lock *l,
                     int unlogged)
{
    int rc;

    ls_stmt_reset(c->add);
    if ((rc = ls_stmt_bind_text(c->add, LS_PARAM(spanq_locks, rel), rel)) != 0 ||
        (rc = ls_stmt_bind_text(c->add, LS_PARAM(spanq_locks, key), key)) != 0 ||
        (rc = ls_stmt_bind_int64(c->add, LS_PARAM(spanq_locks, tx), l->tx)) != 0 ||
        (rc = ls_stmt_bind_int64(c->add, LS_PARAM(spanq_locks, lock_start), l->lock_start)) != 0 ||
        (rc = ls_stmt_bind_int64(c->add, LS_PARAM(spanq_locks, lock_end), l->lock_end)) != 0 ||
        (rc = ls_stmt_bind_int64(c->add, LS_PARAM(spanq_locks, end_start), l->end_start)) != 0 ||
        (rc = ls_stmt_bind_int64(c->add, LS_PARAM(spanq_locks, end_end), l->end_end)) != 0 ||
        (rc = ls_stmt_bind_int64(c->add, LS_PARAM(spanq_locks, shared), l->shared)) != 0 ||
        (rc = ls_stmt_bind_int64(c->add, LS_PARAM(spanq_locks, unlogged), unlogged)) != 0 ||
        (rc = ls_stmt_step(c->add)) < 0)
        return rc;
    return 0;
}

/* One request's spans v[0..n): each transaction's first locking span on
 * each key it names. */
static int request(sq_ctx *c, const ls_tx_span *v, const sq_span *sp, size_t n)
{
    size_t k, first, last, j;
    int rc;

    for (k = 0; k < n; k++) {
        ls_rowkey_evidence ev = {sp[k].text, NULL, NULL, NULL, NULL};
        ls_rowkey key;
        ls_spanq_lock l;
        int seen = 0, logged = 0;

        if (v[k].kind != LS_SQL_WRITE || sp[k].error || !ls_span_tx_of(v, n, k, &first, &last))
            continue;
        if (!ls_rowkey_of(&ev, &key))
            continue;
        /* an earlier span of the transaction on the key got it first */
        for (j = first + 1; j < k && !seen; j++) {
            ls_rowkey_evidence e2 = {sp[j].text, NULL, NULL, NULL, NULL};
            ls_rowkey k2;
            seen = v[j].kind == LS_SQL_WRITE && !sp[j].error && ls_rowkey_of(&e2, &k2) &&
                   strcmp(k2.rel, key.rel) == 0 && strcmp(k2.key, key.key) == 0;
        }
        if (seen)
            continue;
        if ((rc = text_logged(c, sp[k].text, &logged)) != 0)
            return rc;
        l.tx = sp[first].row;
        l.lock_start = v[k].start;
        l.lock_end = v[k].end;
        l.end_start = v[last].start;
        l.end_end = v[last].end;
        l.shared = ls_sql_shared_lock(sp[k].text);
        if ((rc = entry_add(c, key.rel, key.key, &l, !logged)) != 0)
            return rc;
    }
    return 0;
}

/* The key's row unless it is one already: rowmake.h. */
static int make_row(sq_ctx *c, const char *rel, const char *key)
{
    ls_rowmake_row r = {
        .rel = rel, .key = key, .evidence = SPANQ_EVIDENCE, .grouped_by = LS_GROUPED_STATEMENT};
    int made, rc = ls_rowmake_add(&c->maker, &r, &made);
    c->rows += made;
    return rc;
}

/* The ring's entry at logical index i (0 the oldest of n kept). */
#define RING_AT(c, first, i) ((c)->ring[((first) + (i)) % SPANQ_RING])

/* How many of the ring's n entries (from first, in lock_end order) got
 * the row by t: the first logical index whose lock_end is after t. */
static size_t got_by(const sq_ctx *c, size_t first, size_t n, int64_t t)
{
    size_t a = 0, b = n;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (RING_AT(c, first, m).lock_end <= t)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

/* Per key (the locks read in key order, then when the row was got):
 * whether some unlogged locking span queued long enough behind another's
 * hold (ls_spanq_queued_us) among the last SPANQ_WINDOW holds got by its
 * start (found by bisection of the key's ring). A span's lock_end is not
 * before its lock_start, so every hold got by its start has been read
 * when it is. */
static int decide_keys(ls_store *s, sq_ctx *c)
{
    ls_stmt *q = NULL;
    ls_buf rel = LS_BUF_INIT(0), key = LS_BUF_INIT(0);
    size_t first = 0, n = 0;
    int rc, made = 0, have_key = 0;

    if ((rc = ls_store_prepare(s, locks_sql, &q)) != 0)
        return rc;
    while ((rc = ls_stmt_step(q)) == 1) {
        ls_spanq_lock l;
        const char *r = ls_stmt_text(q, sl_rel), *k = ls_stmt_text(q, sl_key);

        if (!have_key || strcmp(k, ls_buf_str(&key)) != 0 || strcmp(r, ls_buf_str(&rel)) != 0) {
            ls_buf_reset(&rel);
            ls_buf_reset(&key);
            ls_buf_adds(&rel, r);
            ls_buf_adds(&key, k);
            if (ls_buf_failed(&rel) || ls_buf_failed(&key)) {
                rc = LS_ENOMEM;
                break;
            }
            have_key = 1;
            first = n = 0;
            made = 0;
        }
        if (made)
            continue;
        l.tx = ls_stmt_int64(q, sl_tx);
        l.lock_start = ls_stmt_int64(q, sl_lock_start);
        l.lock_end = ls_stmt_int64(q, sl_lock_end);
        l.end_start = ls_stmt_int64(q, sl_end_start);
        l.end_end = ls_stmt_int64(q, sl_end_end);
        l.shared = (int)ls_stmt_int64(q, sl_shared);
        if (ls_stmt_int64(q, sl_unlogged)) {
            size_t j = got_by(c, first, n, l.lock_start), tried = 0;
            while (j-- > 0 && tried < SPANQ_WINDOW && !made) {
                tried++;
                made = ls_quiet_makes_row(ls_spanq_queued_us(&RING_AT(c, first, j), &l), 1);
            }
            if (made) {
                if ((rc = make_row(c, ls_buf_str(&rel), ls_buf_str(&key))) != 0)
                    break;
                continue;
            }
        }
        if (n < SPANQ_RING)
            RING_AT(c, first, n++) = l;
        else {
            c->ring[first] = l;
            first = (first + 1) % SPANQ_RING;
        }
    }
    ls_stmt_finalize(q);
    ls_buf_free(&rel);
    ls_buf_free(&key);
    return rc < 0 ? rc : 0;
}

int ls_correlate_span_queue_rows(ls_store *s, ls_correlate_stats *stats)
{
    sq_ctx c;
    ls_stmt *q = NULL;
    ls_tx_span v[SPANQ_REQ_MAX];
    sq_span sp[SPANQ_REQ_MAX];
    char trace[64] = "";
    size_t n = 0, i;
    int rc, more, have = 0;

    memset(&c, 0, sizeof(c));
    if ((rc = ls_correlate_flag(s,
                                "SELECT EXISTS (SELECT 1 FROM spans WHERE db_statement IS"
                                " NOT NULL AND trace_id IS NOT NULL)",
                                &have)) != 0 ||
        !have)
        return rc;
    if (!(c.ring = malloc(SPANQ_RING * sizeof(*c.ring))))
        return LS_ENOMEM;
    if ((rc = ls_store_exec(s, logged_table_sql)) != 0 ||
        (rc = ls_store_exec(s, locks_table_sql)) != 0 ||
        (rc = ls_store_prepare(s, locks_insert_sql, &c.add)) != 0 ||
        (rc = ls_store_prepare(s, spans_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, logged_sql, LS_PARAM_NAMES(LOGGED_PARAMS), &c.logged)) !=
            0 ||
        (rc = ls_rowmake_open(s, &c.maker)) != 0)
        goto out;
    do {
        more = ls_stmt_step(q);
        if (more < 0) {
            rc = more;
            goto out;
        }
        /* a request's spans end: read its transactions */
        if (n && (!more || strcmp(trace, ls_stmt_text(q, sq_trace_id)) != 0)) {
            rc = request(&c, v, sp, n);
            for (i = 0; i < n; i++)
                free(sp[i].text);
            n = 0;
            if (rc != 0)
                goto out;
        }
        if (!more)
            break;
        if (n == 0)
            snprintf(trace, sizeof(trace), "%s", ls_stmt_text(q, sq_trace_id));
        if (n == SPANQ_REQ_MAX) /* a request's first spans only */
            continue;
        v[n].kind = ls_sql_kind_of(ls_stmt_text(q, sq_text));
        v[n].text = 0;
        v[n].start = ls_stmt_int64(q, sq_start_ts);
        v[n].end = ls_stmt_int64(q, sq_end_ts);
        sp[n].row = ls_stmt_int64(q, sq_span_row);
        sp[n].error = (int)ls_stmt_int64(q, sq_error);
        if (!(sp[n].text = ls_strdup(ls_stmt_text(q, sq_text)))) {
            rc = LS_ENOMEM;
            goto out;
        }
        n++;
    } while (more);
    rc = decide_keys(s, &c);
    stats->rows += c.rows;
out:
    for (i = 0; i < n; i++)
        free(sp[i].text);
    free(c.ring);
    ls_stmt_finalize(q);
    ls_stmt_finalize(c.add);
    ls_stmt_finalize(c.logged);
    ls_rowmake_close(&c.maker);
    if (rc >= 0) {
        int drc = ls_store_exec(s, logged_drop_sql);
        if (drc == 0)
            drc = ls_store_exec(s, locks_drop_sql);
        if (drc != 0)
            rc = drc;
    }
    return rc < 0 ? rc : 0;
}
