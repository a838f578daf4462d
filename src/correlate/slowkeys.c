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
#include <stdlib.h>
#include <string.h>

#include "corr_tables.h"
#include "correlate_int.h"
#include "decide/slowkey.h"
#include "ls_columns.h"
#include "ls_keypack.h"

#define SK_COLS(X, Q) X(Q, keys, "keys")
LS_COLUMNS(sk, SK_COLS);

#define SE_PARAMS(X, Q) X(Q, relation) X(Q, row_key)
LS_PARAMS(se, SE_PARAMS);
static const char exists_sql[] =
    "SELECT 1 FROM row_keys WHERE relation = :relation AND row_key = :row_key";
LS_TABLE_COLUMNS(row_keys);
static const char insert_sql[] = LS_INSERT_INTO("INSERT OR IGNORE", row_keys);

/* One key's slow lockers. */
typedef struct skey {
    char *rel, *key; /* one allocation: rel, NUL, key */
    int64_t n, first_ts, last_ts;
    double ms, max_ms;
} skey;

typedef struct slow {
    skey *v;
    size_t n, cap;
    size_t *slot; /* index + 1 into v, 0 empty */
    size_t nslot;
} slow;

static uint64_t hash2(const char *a, const char *b)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *a; a++)
        h = (h ^ (unsigned char)*a) * 1099511628211ULL;
    h = (h ^ 0xff) * 1099511628211ULL;
    for (; *b; b++)
        h = (h ^ (unsigned char)*b) * 1099511628211ULL;
    return h;
}

static int rehash(slow *m, size_t nslot)
{
    size_t *t = calloc(nslot, sizeof(*t)), i;
    if (!t)
        return LS_ENOMEM;
    for (i = 0; i < m->n; i++) {
        size_t j = (size_t)(hash2(m->v[i].rel, m->v[i].key) % nslot);
        while (t[j])
            j = (j + 1) % nslot;
        t[j] = i + 1;
    }
    free(m->slot);
    m->slot = t;
    m->nslot = nslot;
    return 0;
}

/* The key's entry, added when new. */
static int key_get(slow *m, const char *rel, const char *key, skey **out)
{
    size_t j, lr, lk;
    int rc;
    if ((m->n + 1) * 2 > m->nslot && (rc = rehash(m, m->nslot ? m->nslot * 2 : 256)) != 0)
        return rc;
    for (j = (size_t)(hash2(rel, key) % m->nslot); m->slot[j]; j = (j + 1) % m->nslot) {
        skey *k = &m->v[m->slot[j] - 1];
        if (strcmp(k->rel, rel) == 0 && strcmp(k->key, key) == 0) {
            *out = k;
            return 0;
        }
    }
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 128;
        skey *v = realloc(m->v, cap * sizeof(*v));
        if (!v)
            return LS_ENOMEM;
        m->v = v;
        m->cap = cap;
    }
    lr = strlen(rel);
    lk = strlen(key);
    memset(&m->v[m->n], 0, sizeof(m->v[m->n]));
    if (!(m->v[m->n].rel = malloc(lr + lk + 2)))
        return LS_ENOMEM;
    memcpy(m->v[m->n].rel, rel, lr + 1);
    m->v[m->n].key = m->v[m->n].rel + lr + 1;
    memcpy(m->v[m->n].key, key, lk + 1);
    m->slot[j] = ++m->n;
    *out = &m->v[m->n - 1];
    return 0;
}

static int by_rel(const void *a, const void *b)
{
    const skey *x = a, *y = b;
    int c = strcmp(x->rel, y->rel);
    return c ? c : strcmp(x->key, y->key);
}

/* Sums the timed keyed statements of `keys_sql` (rows of packed keys). */
static int gather(ls_store *s, const char *keys_sql, slow *m)
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
            skey *k;
            double ms;
            if (!(p = ls_keypack_next(p, end, first ? NULL : &e, &e)))
                break; /* malformed: the transactions pass says so */
            if (!e.has_end || !e.start_ts || !e.rel[0] || !e.key[0])
                continue;
            if ((rc = key_get(m, e.rel, e.key, &k)) != 0)
                goto out;
            ms = (double)(e.end_ts - e.start_ts) / 1000.0;
            if (k->n == 0 || e.start_ts < k->first_ts)
                k->first_ts = e.start_ts;
            if (k->n == 0 || e.end_ts > k->last_ts)
                k->last_ts = e.end_ts;
            k->n++;
            k->ms += ms;
            if (ms > k->max_ms)
                k->max_ms = ms;
        }
    }
out:
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

static int make_row(ls_stmt *exists, ls_stmt *ins, const skey *k, ls_correlate_stats *stats)
{
    int rc;
    ls_stmt_reset(exists);
    if ((rc = ls_stmt_bind_text(exists, LS_PARAM(se, relation), k->rel)) != 0 ||
        (rc = ls_stmt_bind_text(exists, LS_PARAM(se, row_key), k->key)) != 0)
        return rc;
    if ((rc = ls_stmt_step(exists)) != 0)
        return rc < 0 ? rc : 0; /* a row already (a logged wait's, a quiet one) */
    ls_stmt_reset(ins);
    if ((rc = ls_stmt_bind_text(ins, LS_PARAM(row_keys, relation), k->rel)) != 0 ||
        (rc = ls_stmt_bind_text(ins, LS_PARAM(row_keys, row_key), k->key)) != 0 ||
        (rc = ls_stmt_bind_text(ins, LS_PARAM(row_keys, evidence), LS_SLOWKEY_EVIDENCE)) != 0 ||
        (rc = ls_stmt_bind_text(ins, LS_PARAM(row_keys, grouped_by), LS_SLOWKEY_EVIDENCE)) != 0 ||
        (rc = ls_stmt_bind_int64(ins, LS_PARAM(row_keys, waits), 0)) != 0 ||
        (rc = ls_stmt_bind_double(ins, LS_PARAM(row_keys, total_wait_ms), k->ms)) != 0 ||
        (rc = ls_stmt_bind_double(ins, LS_PARAM(row_keys, max_wait_ms), k->max_ms)) != 0 ||
        (rc = ls_stmt_bind_int64(ins, LS_PARAM(row_keys, first_ts), k->first_ts)) != 0 ||
        (rc = ls_stmt_bind_int64(ins, LS_PARAM(row_keys, last_ts), k->last_ts)) != 0 ||
        (rc = ls_stmt_step(ins)) < 0)
        return rc;
    stats->rows++;
    return 0;
}

int ls_correlate_slow_key_rows(ls_store *s, ls_correlate_stats *stats, const char *keys_sql)
{
    slow m;
    ls_logcover verdict;
    ls_stmt *exists = NULL, *ins = NULL;
    size_t i, j;
    int rc;

    if ((rc = ls_correlate_stmt_logging(s, &verdict)) != 0)
        return rc;
    if (verdict != LS_LOGCOVER_THRESHOLD)
        return 0; /* every statement logged: the quiet rows are better */
    memset(&m, 0, sizeof(m));
    if ((rc = gather(s, keys_sql, &m)) != 0 || m.n == 0)
        goto out;
    qsort(m.v, m.n, sizeof(*m.v), by_rel);
    if ((rc = ls_store_prepare_params(s, exists_sql, LS_PARAM_NAMES(SE_PARAMS), &exists)) != 0 ||
        (rc = ls_store_prepare(s, insert_sql, &ins)) != 0)
        goto out;
    /* each relation's keys: the most and the next most, and the sum */
    for (i = 0; i < m.n; i = j) {
        int64_t top = 0, second = 0, sum = 0;
        size_t t;
        for (j = i; j < m.n && strcmp(m.v[j].rel, m.v[i].rel) == 0; j++) {
            sum += m.v[j].n;
            if (m.v[j].n > top) {
                second = top;
                top = m.v[j].n;
            } else if (m.v[j].n > second)
                second = m.v[j].n;
        }
        for (t = i; t < j; t++) {
            ls_slowkey_in in;
            in.statements = m.v[t].n;
            in.ms = m.v[t].ms;
            in.next_key = m.v[t].n == top ? second : top;
            in.other_keys_sum = sum - m.v[t].n;
            if (ls_slowkey_makes_row(&in) && (rc = make_row(exists, ins, &m.v[t], stats)) != 0)
                goto out;
        }
    }
out:
    ls_stmt_finalize(exists);
    ls_stmt_finalize(ins);
    for (i = 0; i < m.n; i++)
        free(m.v[i].rel);
    free(m.v);
    free(m.slot);
    return rc < 0 ? rc : 0;
}
