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

#define EXISTS_PARAMS(X, Q) X(Q, relation) X(Q, row_key)
LS_PARAMS(ep, EXISTS_PARAMS);
static const char exists_sql[] =
    "SELECT 1 FROM row_keys WHERE relation = :relation AND row_key = :row_key";
LS_TABLE_COLUMNS(row_keys);
static const char insert_sql[] = LS_INSERT_INTO("INSERT OR IGNORE", row_keys);

/* A transaction's first locking span on a key. */
typedef struct sq_entry {
    char *key; /* "relation\x1fcol=value", owned */
    ls_spanq_lock l;
    int unlogged; /* its text is in no log line: it may be a waiter */
} sq_entry;

typedef struct sq_ctx {
    ls_stmt *logged, *exists, *ins;
    sq_entry *e;
    size_t n, cap;
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

static int entry_add(sq_ctx *c, const char *rel, const char *key, const ls_spanq_lock *l,
                     int unlogged)
{
    size_t nr = strlen(rel), nk = strlen(key);
    char *k;
    if (c->n == c->cap) {
        size_t nc = c->cap ? 2 * c->cap : 256;
        sq_entry *p = realloc(c->e, nc * sizeof(*p));
        if (!p)
            return LS_ENOMEM;
        c->e = p;
        c->cap = nc;
    }
    if (!(k = malloc(nr + nk + 2)))
        return LS_ENOMEM;
    memcpy(k, rel, nr);
    k[nr] = '\x1f';
    memcpy(k + nr + 1, key, nk + 1);
    c->e[c->n].key = k;
    c->e[c->n].l = *l;
    c->e[c->n].unlogged = unlogged;
    c->n++;
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

static int by_key_then_got(const void *a, const void *b)
{
    const sq_entry *x = a, *y = b;
    int d = strcmp(x->key, y->key);
    if (d)
        return d;
    if (x->l.lock_end != y->l.lock_end)
        return x->l.lock_end < y->l.lock_end ? -1 : 1;
    return x->l.tx < y->l.tx ? -1 : x->l.tx > y->l.tx;
}

static int make_row(sq_ctx *c, const char *name)
{
    const char *sep = strchr(name, '\x1f');
    char rel[128];
    size_t nr = (size_t)(sep - name);
    int rc;

    if (nr >= sizeof(rel))
        return 0;
    memcpy(rel, name, nr);
    rel[nr] = '\0';
    ls_stmt_reset(c->exists);
    if ((rc = ls_stmt_bind_text(c->exists, LS_PARAM(ep, relation), rel)) != 0 ||
        (rc = ls_stmt_bind_text(c->exists, LS_PARAM(ep, row_key), sep + 1)) != 0)
        return rc;
    if ((rc = ls_stmt_step(c->exists)) != 0)
        return rc < 0 ? rc : 0; /* a row already */
    ls_stmt_reset(c->ins);
    if ((rc = ls_stmt_bind_text(c->ins, LS_PARAM(row_keys, relation), rel)) != 0 ||
        (rc = ls_stmt_bind_text(c->ins, LS_PARAM(row_keys, row_key), sep + 1)) != 0 ||
        (rc = ls_stmt_bind_text(c->ins, LS_PARAM(row_keys, evidence), SPANQ_EVIDENCE)) != 0 ||
        (rc = ls_stmt_bind_text(c->ins, LS_PARAM(row_keys, grouped_by), LS_GROUPED_STATEMENT)) !=
            0 ||
        (rc = ls_stmt_bind_int64(c->ins, LS_PARAM(row_keys, waits), 0)) != 0 ||
        (rc = ls_stmt_step(c->ins)) < 0)
        return rc;
    c->rows++;
    return 0;
}

/* The end of e[a, b)'s entries that got the row by t: the first index
 * whose lock_end is after t (e[a, b) in lock_end order). */
static size_t got_by(const sq_entry *e, size_t a, size_t b, int64_t t)
{
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (e[m].l.lock_end <= t)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

/* Per key (entries sorted by key, then when the row was got): whether
 * some unlogged locking span queued long enough behind another's hold. */
static int decide_keys(sq_ctx *c)
{
    size_t a = 0, b, i, j;
    int rc;

    qsort(c->e, c->n, sizeof(*c->e), by_key_then_got);
    for (; a < c->n; a = b) {
        int make = 0;
        for (b = a + 1; b < c->n && strcmp(c->e[b].key, c->e[a].key) == 0; b++)
            ;
        for (i = a; i < b && !make; i++) {
            size_t tried = 0;
            if (!c->e[i].unlogged)
                continue;
            /* the holds got by its start: the last SPANQ_WINDOW of them
             * (the key's entries are in lock_end order: found by
             * bisection, not by a walk back over every later one, which
             * made a hot key's pass quadratic in its spans) */
            for (j = got_by(c->e, a, b, c->e[i].l.lock_start);
                 j-- > a && tried < SPANQ_WINDOW && !make;) {
                tried++;
                make = ls_quiet_makes_row(ls_spanq_queued_us(&c->e[j].l, &c->e[i].l), 1);
            }
        }
        if (make && (rc = make_row(c, c->e[a].key)) != 0)
            return rc;
    }
    return 0;
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
    if ((rc = ls_store_exec(s, logged_table_sql)) != 0 ||
        (rc = ls_store_prepare(s, spans_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, logged_sql, LS_PARAM_NAMES(LOGGED_PARAMS), &c.logged)) !=
            0 ||
        (rc = ls_store_prepare_params(s, exists_sql, LS_PARAM_NAMES(EXISTS_PARAMS), &c.exists)) !=
            0 ||
        (rc = ls_store_prepare(s, insert_sql, &c.ins)) != 0)
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
    rc = decide_keys(&c);
    stats->rows += c.rows;
out:
    for (i = 0; i < n; i++)
        free(sp[i].text);
    for (i = 0; i < c.n; i++)
        free(c.e[i].key);
    free(c.e);
    ls_stmt_finalize(q);
    ls_stmt_finalize(c.logged);
    ls_stmt_finalize(c.exists);
    ls_stmt_finalize(c.ins);
    if (rc >= 0) {
        int drc = ls_store_exec(s, logged_drop_sql);
        if (drc != 0)
            rc = drc;
    }
    return rc < 0 ? rc : 0;
}
