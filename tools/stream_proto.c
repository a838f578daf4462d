/*
 * stream_proto.c — a measuring prototype of issue 38's streaming design
 * (docs/streaming.md, "The streaming design, measured"). Not wired into
 * analyze and not a pass: it only reads a correlated store.
 *
 *   ls_stream_proto STORE
 *
 * One read of stmt_rows in stmt_id order (as ingest would see the
 * statements, each session's in order) through the per-session state
 * machine ingest already runs (ls_txcut), each statement's row key
 * decided once per text as ingest decides it (ls_sql_stmt_key); a hold
 * is a transaction that keyed a hot row (row_keys, the logical rows
 * pass's rows, read first), from its first keyed statement's end (its
 * start without a duration) to the transaction's end, counted per (row,
 * cut shape) in memory. What is kept while streaming: the statements
 * keyed to hot rows of each session's open transaction (none once it
 * ends), and the (row, shape) counts. Prints transactions, holds, (row,
 * shape) pairs, CPU and peak RSS; with LS_STREAM_PROTO_PAIRS set, each
 * pair's holds and milliseconds; with LS_STREAM_PROTO_HOLDS, each hold's
 * row and first keyed statement.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "ls_sqlshape.h"
#include "ls_store.h"
#include "ls_txcut.h"

typedef struct text_info {
    int kind;
    ls_row_ref *ref; /* NULL: the text names no row */
    char *text;      /* kept for an EXECUTE's PREPARE (ls_sql_stmt_key) */
} text_info;

typedef struct hot_row {
    char *rel, *key; /* NULL rel: empty slot */
    int64_t row_id;
} hot_row;

typedef struct pend {
    int64_t stmt_id, row_id, start_ts;
} pend;

typedef struct sess {
    int64_t session_id; /* 0: empty slot */
    pend *p;
    size_t n, cap;
} sess;

typedef struct pair {
    int64_t row_id; /* 0: empty slot */
    uint64_t shape;
    int64_t holds;
    double ms;
} pair;

typedef struct proto {
    text_info *texts;
    int64_t ntexts;
    hot_row *rows;
    size_t nrows_cap;
    sess *sess;
    size_t sess_cap, nsess;
    pair *pairs;
    size_t pairs_cap, npairs;
    int64_t tx, holds, keyed, unfinished, stmts;
    size_t pend_peak, pend_now;
    int dump_holds; /* LS_STREAM_PROTO_HOLDS set */
    sqlite3_stmt *params_of;
    int64_t params_refs;
} proto;

static uint64_t hash_str(const char *a, const char *b)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *a; a++)
        h = (h ^ (unsigned char)*a) * 1099511628211ULL;
    h = (h ^ 0xff) * 1099511628211ULL;
    for (; *b; b++)
        h = (h ^ (unsigned char)*b) * 1099511628211ULL;
    return h;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

static int64_t hot_find(const proto *p, const char *rel, const char *key)
{
    size_t i = hash_str(rel, key) & (p->nrows_cap - 1);
    for (; p->rows[i].rel; i = (i + 1) & (p->nrows_cap - 1))
        if (!strcmp(p->rows[i].rel, rel) && !strcmp(p->rows[i].key, key))
            return p->rows[i].row_id;
    return 0;
}

static sess *sess_get(proto *p, int64_t id, int create)
{
    size_t i;
    if (create && (p->nsess + 1) * 2 > p->sess_cap) {
        size_t cap = p->sess_cap ? p->sess_cap * 2 : 1024, j;
        sess *n = calloc(cap, sizeof *n);
        if (!n)
            return NULL;
        for (j = 0; j < p->sess_cap; j++)
            if (p->sess[j].session_id) {
                size_t k = mix((uint64_t)p->sess[j].session_id) & (cap - 1);
                while (n[k].session_id)
                    k = (k + 1) & (cap - 1);
                n[k] = p->sess[j];
            }
        free(p->sess);
        p->sess = n;
        p->sess_cap = cap;
    }
    if (!p->sess_cap)
        return NULL;
    i = mix((uint64_t)id) & (p->sess_cap - 1);
    for (; p->sess[i].session_id; i = (i + 1) & (p->sess_cap - 1))
        if (p->sess[i].session_id == id)
            return &p->sess[i];
    if (!create)
        return NULL;
    p->sess[i].session_id = id;
    p->nsess++;
    return &p->sess[i];
}

static int pair_add(proto *p, int64_t row_id, uint64_t shape, double ms)
{
    size_t i;
    if ((p->npairs + 1) * 2 > p->pairs_cap) {
        size_t cap = p->pairs_cap ? p->pairs_cap * 2 : 1024, j;
        pair *n = calloc(cap, sizeof *n);
        if (!n)
            return -1;
        for (j = 0; j < p->pairs_cap; j++)
            if (p->pairs[j].row_id) {
                size_t k = mix((uint64_t)p->pairs[j].row_id * 31 + p->pairs[j].shape) & (cap - 1);
                while (n[k].row_id)
                    k = (k + 1) & (cap - 1);
                n[k] = p->pairs[j];
            }
        free(p->pairs);
        p->pairs = n;
        p->pairs_cap = cap;
    }
    i = mix((uint64_t)row_id * 31 + shape) & (p->pairs_cap - 1);
    for (; p->pairs[i].row_id; i = (i + 1) & (p->pairs_cap - 1))
        if (p->pairs[i].row_id == row_id && p->pairs[i].shape == shape)
            break;
    if (!p->pairs[i].row_id) {
        p->pairs[i].row_id = row_id;
        p->pairs[i].shape = shape;
        p->npairs++;
    }
    p->pairs[i].holds++;
    p->pairs[i].ms += ms;
    return 0;
}

/* A transaction ended (or was handed over unfinished): its session's
 * keyed statements in [first, last] are its holds, one per row. */
static int on_tx(void *ctx, const ls_txcut_row *r)
{
    proto *p = ctx;
    sess *s = sess_get(p, r->session_id, 0);
    size_t i, j, k = 0;
    p->tx++;
    if (!r->closed)
        p->unfinished++;
    if (!s)
        return 0;
    for (i = 0; i < s->n; i++) {
        pend *e = &s->p[i];
        int dup = 0;
        if (e->stmt_id < r->first_stmt || e->stmt_id > r->last_stmt) {
            s->p[k++] = *e;
            continue;
        }
        for (j = 0; j < i && !dup; j++)
            dup = s->p[j].row_id == e->row_id && s->p[j].stmt_id >= r->first_stmt &&
                  s->p[j].stmt_id <= r->last_stmt;
        if (!dup) {
            if (p->dump_holds) /* the hold's row and first keyed statement */
                printf("hold %lld %lld\n", (long long)e->row_id, (long long)e->stmt_id);
            p->holds++;
            if (pair_add(p, e->row_id, r->shape,
                         (double)(r->end_ts > e->start_ts ? r->end_ts - e->start_ts : 0) /
                             1000.0) != 0)
                return -1;
        }
    }
    p->pend_now -= s->n - k;
    s->n = k;
    return 0;
}

static int on_reload(void *ctx, int64_t session, ls_txcut_row *out, int *found)
{
    (void)ctx;
    (void)session;
    (void)out;
    *found = 0;
    return 0;
}

static int load(proto *p, sqlite3 *db)
{
    sqlite3_stmt *st;
    int rc;
    size_t n = 0;
    if (sqlite3_prepare_v2(db, "SELECT max(text_id) FROM stmt_texts", -1, &st, NULL) != SQLITE_OK)
        return -1;
    rc = sqlite3_step(st);
    p->ntexts = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) + 1 : 1;
    sqlite3_finalize(st);
    if (!(p->texts = calloc((size_t)p->ntexts, sizeof *p->texts)))
        return -1;
    if (sqlite3_prepare_v2(db, "SELECT text_id, kind, text FROM stmt_texts", -1, &st, NULL) !=
        SQLITE_OK)
        return -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        const char *t = (const char *)sqlite3_column_text(st, 2);
        ls_row_ref ref;
        text_info *ti = &p->texts[id];
        ti->kind = sqlite3_column_type(st, 1) == SQLITE_NULL ? (int)ls_sql_kind_of(t ? t : "")
                                                             : sqlite3_column_int(st, 1);
        if (t && !(ti->text = strdup(t)))
            return -1;
        if (ti->kind == LS_SQL_WRITE && t && ls_sql_row_ref(t, &ref) == 1) {
            if (!(ti->ref = malloc(sizeof ref)))
                return -1;
            *ti->ref = ref;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return -1;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM row_keys", -1, &st, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_step(st) == SQLITE_ROW)
        n = (size_t)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    for (p->nrows_cap = 16; p->nrows_cap < n * 2 + 2; p->nrows_cap *= 2)
        ;
    if (!(p->rows = calloc(p->nrows_cap, sizeof *p->rows)))
        return -1;
    if (sqlite3_prepare_v2(db, "SELECT row_id, relation, row_key FROM row_keys", -1, &st, NULL) !=
        SQLITE_OK)
        return -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *rel = (const char *)sqlite3_column_text(st, 1);
        const char *key = (const char *)sqlite3_column_text(st, 2);
        size_t i;
        if (!rel || !key)
            continue;
        i = hash_str(rel, key) & (p->nrows_cap - 1);
        while (p->rows[i].rel)
            i = (i + 1) & (p->nrows_cap - 1);
        p->rows[i].rel = strdup(rel);
        p->rows[i].key = strdup(key);
        p->rows[i].row_id = sqlite3_column_int64(st, 0);
        if (!p->rows[i].rel || !p->rows[i].key)
            return -1;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int keyed_as(proto *p, const text_info *ti, const char *params, const char *prepare,
                    int64_t stmt_id, int64_t session, int64_t start_ts)
{
    char rel[128], key[192];
    int64_t row;
    sess *s;
    if (prepare) {
        if (ls_sql_stmt_key(ti->text ? ti->text : "", NULL, params, prepare, rel, sizeof rel, key,
                            sizeof key) != 1)
            return 0;
    } else if (!ti->ref ||
               ls_sql_stmt_key(NULL, ti->ref, params, NULL, rel, sizeof rel, key, sizeof key) != 1)
        return 0;
    p->keyed++;
    if (!(row = hot_find(p, rel, key)))
        return 0;
    if (!(s = sess_get(p, session, 1)))
        return -1;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4;
        pend *n = realloc(s->p, cap * sizeof *n);
        if (!n)
            return -1;
        s->p = n;
        s->cap = cap;
    }
    s->p[s->n].stmt_id = stmt_id;
    s->p[s->n].row_id = row;
    s->p[s->n].start_ts = start_ts;
    s->n++;
    if (++p->pend_now > p->pend_peak)
        p->pend_peak = p->pend_now;
    return 0;
}

static int keyed(proto *p, sqlite3_stmt *st, int64_t text_id, int64_t stmt_id, int64_t session,
                 int64_t start_ts)
{
    const char *params = (const char *)sqlite3_column_text(st, 9);
    const char *prepare = (const char *)sqlite3_column_text(st, 10);
    char *ref_params = NULL;
    int rc;
    if (sqlite3_column_type(st, 9) == SQLITE_INTEGER) {
        /* the params of an earlier row, stmt_id - params (LS_STMT_REF):
         * ingest has them in hand, the prototype looks them up */
        int64_t at = stmt_id - sqlite3_column_int64(st, 9);
        p->params_refs++;
        for (;;) {
            sqlite3_bind_int64(p->params_of, 1, at);
            rc = sqlite3_step(p->params_of);
            if (rc != SQLITE_ROW || sqlite3_column_type(p->params_of, 0) != SQLITE_INTEGER)
                break;
            at -= sqlite3_column_int64(p->params_of, 0);
            sqlite3_reset(p->params_of);
        }
        if (rc == SQLITE_ROW && sqlite3_column_type(p->params_of, 0) == SQLITE_TEXT &&
            !(ref_params = strdup((const char *)sqlite3_column_text(p->params_of, 0))))
            rc = SQLITE_NOMEM;
        sqlite3_reset(p->params_of);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            return -1;
        params = ref_params;
    }
    rc = keyed_as(p, &p->texts[text_id], params, prepare, stmt_id, session, start_ts);
    free(ref_params);
    return rc;
}

int main(int argc, char **argv)
{
    proto p;
    sqlite3 *db;
    sqlite3_stmt *st;
    ls_txcut *cut;
    struct rusage ru0, ru1;
    int rc;
    if (argc != 2) {
        fprintf(stderr, "usage: ls_stream_proto STORE (a correlated copy)\n");
        return 2;
    }
    memset(&p, 0, sizeof p);
    p.dump_holds = getenv("LS_STREAM_PROTO_HOLDS") != NULL;
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        fprintf(stderr, "ls_stream_proto: %s\n", sqlite3_errmsg(db));
        return 1;
    }
    getrusage(RUSAGE_SELF, &ru0);
    if (load(&p, db) != 0 || !(cut = ls_txcut_new(on_tx, on_reload, &p))) {
        fprintf(stderr, "ls_stream_proto: load: %s\n", sqlite3_errmsg(db));
        return 1;
    }
    if (sqlite3_prepare_v2(db, "SELECT params FROM stmt_rows WHERE stmt_id = ?", -1, &p.params_of,
                           NULL) != SQLITE_OK) {
        fprintf(stderr, "ls_stream_proto: %s\n", sqlite3_errmsg(db));
        return 1;
    }
    if (sqlite3_prepare_v2(db,
                           "SELECT stmt_id, session_id, pid, xid, start_ts, dur_us, verb, "
                           "text_id, vxid, params, prepare FROM stmt_rows ORDER BY stmt_id",
                           -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "ls_stream_proto: %s\n", sqlite3_errmsg(db));
        return 1;
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        ls_txcut_stmt s;
        int verb = sqlite3_column_int(st, 6);
        int64_t text_id = sqlite3_column_int64(st, 7);
        s.session_id = sqlite3_column_int64(st, 1);
        if (s.session_id <= 0 || verb == LS_VERB_PARSE || verb == LS_VERB_BIND)
            continue;
        p.stmts++;
        s.stmt_id = sqlite3_column_int64(st, 0);
        s.pid = sqlite3_column_int64(st, 2);
        s.xid = sqlite3_column_int64(st, 3) > 0 ? sqlite3_column_int64(st, 3) : 0;
        s.start_ts = sqlite3_column_int64(st, 4);
        s.has_dur = sqlite3_column_type(st, 5) != SQLITE_NULL;
        s.dur_us = sqlite3_column_int64(st, 5);
        s.vxid = (const char *)sqlite3_column_text(st, 8);
        s.text_id = text_id;
        s.kind = text_id > 0 && text_id < p.ntexts ? p.texts[text_id].kind : LS_SQL_OTHER;
        s.pos = 0;
        if (text_id > 0 && text_id < p.ntexts && s.kind != LS_SQL_BEGIN &&
            s.kind != LS_SQL_COMMIT && s.kind != LS_SQL_ROLLBACK &&
            keyed(&p, st, text_id, s.stmt_id, s.session_id,
                  s.start_ts + (s.has_dur ? s.dur_us : 0)) != 0)
            return 1;
        if (ls_txcut_feed(cut, &s) != 0)
            return 1;
    }
    if (rc != SQLITE_DONE || ls_txcut_flush(cut) != 0) {
        fprintf(stderr, "ls_stream_proto: %s\n", sqlite3_errmsg(db));
        return 1;
    }
    getrusage(RUSAGE_SELF, &ru1);
    printf("stream's SQLite VM steps %d, params looked up %lld (%d steps)\n",
           sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 0), (long long)p.params_refs,
           sqlite3_stmt_status(p.params_of, SQLITE_STMTSTATUS_VM_STEP, 0));
    printf("statements %lld\ntransactions %lld (unfinished %lld)\nkeyed statements %lld\n"
           "holds on hot rows %lld\n(row, shape) pairs %zu\nsessions seen with a hot key %zu\n"
           "keyed statements held at once (peak) %zu\n",
           (long long)p.stmts, (long long)p.tx, (long long)p.unfinished, (long long)p.keyed,
           (long long)p.holds, p.npairs, p.nsess, p.pend_peak);
    printf("cpu %.3f s (user %.3f, sys %.3f)\npeak rss %ld KiB\n",
           (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec + ru1.ru_stime.tv_sec -
                    ru0.ru_stime.tv_sec) +
               (double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec + ru1.ru_stime.tv_usec -
                        ru0.ru_stime.tv_usec) /
                   1e6,
           (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) +
               (double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e6,
           (double)(ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
               (double)(ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6,
           ru1.ru_maxrss);
    if (getenv("LS_STREAM_PROTO_PAIRS")) /* each (row, shape): holds, ms */
        for (size_t i = 0; i < p.pairs_cap; i++)
            if (p.pairs[i].row_id)
                printf("pair %lld %016llx %lld %.3f\n", (long long)p.pairs[i].row_id,
                       (unsigned long long)p.pairs[i].shape, (long long)p.pairs[i].holds,
                       p.pairs[i].ms);
    sqlite3_finalize(st);
    sqlite3_finalize(p.params_of);
    ls_txcut_free(cut);
    sqlite3_close(db);
    return 0;
}
