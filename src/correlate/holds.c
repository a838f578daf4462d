/*
 * holds.c — logical hot rows, and what the holds others waited for were.
 *
 * Logical rows (ls_correlate_rows): a row's ctid changes with every
 * update, so each wait is keyed to (relation, "col=value") from every piece
 * of evidence the log gives (rowkey.c; docs/correlation.md lists them):
 * the CONTEXT statement of a function or trigger, the waiter's own logged
 * statement with its parameters or PREPARE text, ctid chains, the holder's
 * statements, and statement-shape rules learned from the waits and kept in
 * row_rules for the transactions pass. How each wait was keyed is kept in
 * lock_waits.row_evidence and rows.grouped_by; a wait with no key stays a
 * ctid fragment that says why.
 *
 * Holds waited for (ls_correlate_holds): the transactions pass made one
 * hold per (transaction, hot row); here the waits on each add their count
 * and waiting, the end is bounded by the first waiter's acquisition, and
 * the holder's time while others waited is split into SQL, COMMIT and idle
 * in transaction. Where the log lacks the locking statement, the bounds say
 * what is known: the lock was taken after the transaction began and before
 * the first wait began.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "correlate_int.h"
#include "ls_sqlshape.h"
#include "rowkey.h"

static const char row_stats_sql[] =
    "UPDATE rows SET"
    " waits = (SELECT count(*) FROM lock_waits w WHERE w.row_id = rows.row_id),"
    " total_wait_ms = (SELECT sum(waited_ms) FROM lock_waits w WHERE w.row_id = rows.row_id),"
    " max_wait_ms = (SELECT max(waited_ms) FROM lock_waits w WHERE w.row_id = rows.row_id),"
    " longest_chain = (SELECT max(chain_depth) FROM lock_waits w WHERE w.row_id = rows.row_id),"
    " first_ts = (SELECT min(start_ts) FROM lock_waits w WHERE w.row_id = rows.row_id),"
    " last_ts = (SELECT max(coalesce(end_ts, logged_ts)) FROM lock_waits w"
    "            WHERE w.row_id = rows.row_id),"
    " ctids = (SELECT group_concat(ctid, ' ') FROM (SELECT DISTINCT ctid FROM lock_waits w"
    "          WHERE w.row_id = rows.row_id AND ctid IS NOT NULL ORDER BY ctid));";

/* ---- logical rows ---- */

/* A ctid names a row version; a wait on the same ctid of the same
 * relation within this window of a keyed one is on the same row (a ctid
 * is reused by another row only after the version is pruned). */
#define CTID_CHAIN_US 10000000
/* Whole-second (%t) times: a statement logged in the wait's second may
 * have started after it by the clock. */
#define WHOLE_SECOND_US 1000000

static const char waits_sql[] =
    "SELECT w.wait_id, w.session_id, w.start_ts, w.relation, w.ctid, w.target_kind, w.target,"
    " w.statement, le.context, w.file_id, w.line, w.blocker_session FROM lock_waits w"
    " LEFT JOIN lock_events le ON le.event_id = w.first_event"
    /* wait_id is time order (build_episodes): each wait's statements are
     * read near the ones read just before. */
    " ORDER BY w.wait_id";

/* The session's statements that started before the wait did (sequential
 * in a session: the waiter's is among the last ones), with the lock
 * message's text; ?3 is the timestamps' resolution. */
static const char waiter_stmts_sql[] =
    "SELECT stmt_id, file_id, line, end_ts IS NOT NULL, text, params, prepare,"
    " verb IS 'bind' FROM statements"
    " WHERE session_id = ?1 AND start_ts <= ?2 + ?3 AND verb IS NOT 'parse'"
    " ORDER BY start_ts DESC, stmt_id DESC LIMIT 32";

/* The holder's statements before the wait (its session: the blocker's),
 * latest first in log order (whole-second start times do not order them). */
static const char holder_stmts_sql[] =
    "SELECT text, params, prepare, file_id, line FROM (SELECT * FROM statements"
    " WHERE session_id = ?1 AND start_ts <= ?2 + ?3 AND verb IS NOT 'parse'"
    " ORDER BY start_ts DESC, stmt_id DESC LIMIT 24) ORDER BY stmt_id DESC";

static const char find_row_sql[] =
    "SELECT row_id FROM rows WHERE relation = ?1 AND row_key = ?2";
static const char insert_row_sql[] =
    "INSERT INTO rows(relation, row_key, evidence, grouped_by) VALUES (?1, ?2, ?3, ?3)";
static const char set_row_sql[] =
    "UPDATE lock_waits SET row_id = ?2, waiter_stmt = ?3, row_evidence = ?4 WHERE wait_id = ?1";
static const char insert_rule_sql[] =
    "INSERT INTO row_rules(shape, relation, col, arg, learned_from) VALUES (?1, ?2, ?3, ?4, ?5)";

/*
 * Kept small: a log has tens of thousands of waits per GB, all held here.
 * Relations, ctids, keys and columns are interned (a string pool: each
 * distinct text once); "" when unknown, never NULL.
 */
typedef struct wait_row {
    int64_t wait_id, session_id, start_ts, stmt_id;
    const char *rel, *ctid, *key;
    const char *col; /* the key column a function's statement names, if known */
    const char *grouped_by;
    char *sql, *params, *prepare; /* the waiter's statement as the server ran it (owned) */
    int keyed;
    int via_ctid; /* keyed by a neighbour on its ctid: names no others */
    int64_t holder_session, file, line; /* file, line: the wait's first message */
} wait_row;

/* Interned strings: open addressing over ls_fnv1a hashes. */
typedef struct strpool {
    char **slot;
    size_t cap, n;
} strpool;

/* Where s's probe sequence starts in a table of cap slots (a power of 2). */
static size_t pool_home(const char *s, size_t cap)
{
    return (size_t)ls_fnv1a(s, strlen(s), LS_FNV1A_BASIS) & (cap - 1);
}

static int pool_grow(strpool *p)
{
    size_t ncap = p->cap ? p->cap * 2 : 1024, i;
    char **ns = calloc(ncap, sizeof(*ns));
    if (!ns)
        return LS_ENOMEM;
    for (i = 0; i < p->cap; i++) {
        size_t j;
        if (!p->slot[i])
            continue;
        for (j = pool_home(p->slot[i], ncap); ns[j]; j = (j + 1) & (ncap - 1))
            ;
        ns[j] = p->slot[i];
    }
    free(p->slot);
    p->slot = ns;
    p->cap = ncap;
    return 0;
}

/* The pooled copy of s ("" for NULL or empty), or NULL when out of memory. */
static const char *pool_str(strpool *p, const char *s)
{
    size_t j;
    if (!s || !*s)
        return "";
    if (p->n * 2 >= p->cap && pool_grow(p) != 0)
        return NULL;
    for (j = pool_home(s, p->cap); p->slot[j]; j = (j + 1) & (p->cap - 1))
        if (strcmp(p->slot[j], s) == 0)
            return p->slot[j];
    if (!(p->slot[j] = ls_strdup(s)))
        return NULL;
    p->n++;
    return p->slot[j];
}

static void pool_free(strpool *p)
{
    size_t i;
    for (i = 0; i < p->cap; i++)
        free(p->slot[i]);
    free(p->slot);
}

static char *dup_or_null(const char *s)
{
    return s ? ls_strdup(s) : NULL;
}

/*
 * The waiter's logged statement among the candidates (in log order, each
 * with its position relative to the wait's message): a duration line is
 * written when the statement ends, so it is the first one after the
 * wait's message; a log_statement line is written when it starts, so the
 * last one before. Returns the index, or -1.
 */
int ls_pick_waiter_stmt(const ls_stmt_candidate *c, int n)
{
    int i, before = -1;
    for (i = 0; i < n; i++) {
        if (c[i].after && c[i].has_duration)
            return i;
        if (!c[i].after && !c[i].has_duration)
            before = i;
    }
    return before;
}

#define MAX_CANDIDATES 32

typedef struct candidate {
    ls_stmt_candidate c;
    int bind; /* a bind line: the parameters of an execute that may not be logged */
    int64_t id, file, line;
    char *text, *params, *prepare;
} candidate;

static int by_position(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

/* Fill w->sql, params, prepare and stmt_id: the session's statement with
 * the lock message's text, by ls_pick_waiter_stmt() over log positions;
 * a statement that failed in its wait (a deadlock victim, a timeout) has
 * no execute line, but its bind line, logged before, has the parameters. */
static int waiter_statement(ls_stmt *q, wait_row *w, const char *lock_stmt, int64_t file_id,
                            int64_t line, int64_t resolution)
{
    candidate c[MAX_CANDIDATES];
    ls_stmt_candidate pc[MAX_CANDIDATES];
    int map[MAX_CANDIDATES];
    int n = 0, np = 0, rc, pick, i, last_bind = -1;

    ls_stmt_reset(q);
    ls_stmt_bind_int64(q, 1, w->session_id);
    ls_stmt_bind_int64(q, 2, w->start_ts);
    ls_stmt_bind_int64(q, 3, resolution);
    while ((rc = ls_stmt_step(q)) == 1 && n < MAX_CANDIDATES) {
        const char *text = ls_stmt_text(q, 4);
        if (lock_stmt && strcmp(text, lock_stmt) != 0)
            continue;
        c[n].id = ls_stmt_int64(q, 0);
        c[n].file = ls_stmt_int64(q, 1);
        c[n].line = ls_stmt_int64(q, 2);
        c[n].c.after = c[n].file > file_id || (c[n].file == file_id && c[n].line > line);
        c[n].c.has_duration = (int)ls_stmt_int64(q, 3);
        c[n].bind = (int)ls_stmt_int64(q, 7);
        c[n].text = dup_or_null(text);
        c[n].params = ls_stmt_isnull(q, 5) ? NULL : dup_or_null(ls_stmt_text(q, 5));
        c[n].prepare = ls_stmt_isnull(q, 6) ? NULL : dup_or_null(ls_stmt_text(q, 6));
        n++;
    }
    qsort(c, (size_t)n, sizeof(c[0]), by_position);
    for (i = 0; i < n; i++) {
        if (!c[i].bind) {
            pc[np] = c[i].c;
            map[np++] = i;
        } else if (!c[i].c.after) {
            last_bind = i;
        }
    }
    pick = rc < 0 ? -1 : ls_pick_waiter_stmt(pc, np);
    pick = pick >= 0 ? map[pick] : last_bind;
    for (i = 0; i < n; i++) {
        if (i == pick) {
            w->stmt_id = c[i].id;
            w->sql = c[i].text;
            w->params = c[i].params;
            w->prepare = c[i].prepare;
        } else {
            free(c[i].text);
            free(c[i].params);
            free(c[i].prepare);
        }
    }
    return rc < 0 ? rc : 0;
}

/* The key column a relation's keyed waits use, or NULL. */
static const char *key_column(const wait_row *w, size_t n, const char *rel, char *buf,
                              size_t len)
{
    size_t i;
    for (i = 0; i < n; i++) {
        const char *eq;
        if (!w[i].keyed || w[i].via_ctid || strcmp(w[i].rel, rel) != 0 ||
            !(eq = strchr(w[i].key, '=')))
            continue;
        snprintf(buf, len, "%.*s", (int)(eq - w[i].key), w[i].key);
        return buf;
    }
    return NULL;
}

/*
 * The holder's statements say which row it holds: its own writes to the
 * relation (a key in the text, bound parameters, or a learned rule for a
 * function it called) naming exactly one key; else the most recent of its
 * statements that shares exactly one argument value with the waiter's
 * statement (both called functions that lock the row: the shared value is
 * the key). Read back from the wait to the holder's BEGIN.
 */
static int key_from_holder(ls_stmt *hq, strpool *pool, wait_row *w, int64_t resolution,
                           const char *col, const ls_shape_rule *rules, size_t nrules)
{
    const char *wsql, *wparams;
    char wpbuf[1024], found[192] = "", via_call[192] = "";
    int rc, writes = 0, conflict = 0;

    if (!w->sql)
        return 0;
    ls_rowkey_effective(w->sql, w->params, w->prepare, &wsql, &wparams, wpbuf, sizeof(wpbuf));
    ls_stmt_reset(hq);
    ls_stmt_bind_int64(hq, 1, w->holder_session);
    ls_stmt_bind_int64(hq, 2, w->start_ts);
    ls_stmt_bind_int64(hq, 3, resolution);
    while ((rc = ls_stmt_step(hq)) == 1) {
        const char *text = ls_stmt_text(hq, 0), *hsql, *hparams;
        const char *params = ls_stmt_isnull(hq, 1) ? NULL : ls_stmt_text(hq, 1);
        const char *prepare = ls_stmt_isnull(hq, 2) ? NULL : ls_stmt_text(hq, 2);
        char hpbuf[1024], shape[512];
        ls_rowkey_evidence ev = {text, params, prepare, NULL, w->rel};
        ls_rowkey k;
        int keyed = 0;
        size_t r;

        int64_t f = ls_stmt_int64(hq, 3), l = ls_stmt_int64(hq, 4);
        if (f > w->file || (f == w->file && l > w->line))
            continue; /* logged after the wait's message (whole-second times) */
        if (ls_sql_kind_of(text) == LS_SQL_BEGIN)
            break;
        ls_rowkey_effective(text, params, prepare, &hsql, &hparams, hpbuf, sizeof(hpbuf));
        keyed = ls_rowkey_of(&ev, &k) && strcmp(k.rel, w->rel) == 0;
        if (!keyed && nrules) {
            ls_rowkey_shape(hsql, shape, sizeof(shape));
            for (r = 0; r < nrules && !keyed; r++)
                keyed = strcmp(rules[r].rel, w->rel) == 0 &&
                        ls_rowkey_apply(&rules[r], shape, hsql, hparams, &k);
        }
        if (keyed) {
            if (writes && strcmp(found, k.key) != 0)
                conflict = 1;
            snprintf(found, sizeof(found), "%s", k.key);
            writes++;
            continue;
        }
        if (!via_call[0])
            ls_rowkey_shared_arg(wsql, wparams, hsql, hparams, col, via_call, sizeof(via_call));
    }
    if (rc < 0)
        return rc;
    if (writes && !conflict)
        w->key = pool_str(pool, found);
    else if (via_call[0] && !writes)
        w->key = pool_str(pool, via_call);
    else
        return 0;
    if (!w->key)
        return LS_ENOMEM;
    w->keyed = 1;
    w->grouped_by = LS_GROUPED_HOLDER;
    return 0;
}

static int key_waits_from_holders(ls_stmt *hq, strpool *pool, wait_row *w, size_t n,
                                  int64_t resolution, const ls_shape_rule *rules, size_t nrules)
{
    size_t i;
    int rc;
    for (i = 0; i < n; i++) {
        char colbuf[64];
        const char *col;
        if (w[i].keyed || !w[i].rel[0] || !w[i].holder_session)
            continue;
        col = w[i].col[0] ? w[i].col : key_column(w, n, w[i].rel, colbuf, sizeof(colbuf));
        if ((rc = key_from_holder(hq, pool, &w[i], resolution, col, rules, nrules)) != 0)
            return rc;
    }
    return 0;
}

/* The resolution of the log's statement times: 1 ms (%m, csvlog,
 * jsonlog), or a whole second (%t) when no time has sub-second digits. */
static int log_resolution(ls_store *s, int64_t *out)
{
    ls_stmt *q = NULL;
    int rc = ls_store_prepare(s, "SELECT EXISTS (SELECT 1 FROM statements"
                                 " WHERE log_ts % 1000000 <> 0), EXISTS (SELECT 1 FROM statements)",
                              &q);
    *out = 1000;
    if (rc != 0)
        return rc;
    if ((rc = ls_stmt_step(q)) == 1 && ls_stmt_int64(q, 0) == 0 && ls_stmt_int64(q, 1))
        *out = WHOLE_SECOND_US;
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

static int row_for(ls_stmt *find, ls_stmt *ins, const char *rel, const char *key,
                   const char *evidence, int64_t *out, ls_correlate_stats *stats)
{
    int rc;
    ls_stmt_reset(find);
    ls_stmt_bind_text(find, 1, rel);
    ls_stmt_bind_text(find, 2, key);
    if ((rc = ls_stmt_step(find)) < 0)
        return rc;
    if (rc == 1) {
        *out = ls_stmt_int64(find, 0);
        return 0;
    }
    ls_stmt_reset(ins);
    ls_stmt_bind_text(ins, 1, rel);
    ls_stmt_bind_text(ins, 2, key);
    ls_stmt_bind_text(ins, 3, evidence);
    if ((rc = ls_stmt_step(ins)) < 0)
        return rc;
    stats->rows++;
    /* The new row is the one find now sees. */
    ls_stmt_reset(find);
    ls_stmt_bind_text(find, 1, rel);
    ls_stmt_bind_text(find, 2, key);
    if ((rc = ls_stmt_step(find)) != 1)
        return rc < 0 ? rc : LS_ESTORE;
    *out = ls_stmt_int64(find, 0);
    return 0;
}

static int by_ctid(const void *a, const void *b)
{
    const wait_row *x = *(wait_row *const *)a, *y = *(wait_row *const *)b;
    int c = strcmp(x->rel, y->rel);
    if (!c)
        c = strcmp(x->ctid, y->ctid);
    return c ? c : (x->start_ts > y->start_ts) - (x->start_ts < y->start_ts);
}

/*
 * Ctid chains: a wait with no key of its own on a row version (relation,
 * ctid) that a keyed wait names within CTID_CHAIN_US is on that row.
 * Waits are sorted by (relation, ctid, time); each unkeyed one takes the
 * nearest keyed neighbour of its run.
 */
static void key_by_ctid(wait_row **v, size_t n)
{
    size_t i, j, run;
    qsort(v, n, sizeof(*v), by_ctid);
    for (i = 0; i < n; i = run) {
        for (run = i + 1; run < n && strcmp(v[run]->rel, v[i]->rel) == 0 &&
                          strcmp(v[run]->ctid, v[i]->ctid) == 0;
             run++)
            ;
        for (j = i; j < run; j++) {
            const wait_row *best = NULL;
            int64_t best_d = CTID_CHAIN_US + 1;
            size_t k;
            if (v[j]->keyed)
                continue;
            for (k = i; k < run; k++) {
                int64_t d = v[k]->start_ts - v[j]->start_ts;
                if (d < 0)
                    d = -d;
                if (v[k]->keyed && !v[k]->via_ctid && d < best_d) {
                    best = v[k];
                    best_d = d;
                }
            }
            if (best) {
                v[j]->key = best->key;
                v[j]->grouped_by = LS_GROUPED_CTID;
                v[j]->keyed = 1;
                v[j]->via_ctid = 1;
            }
        }
    }
}

int ls_correlate_rows(ls_store *s, ls_correlate_stats *stats)
{
    ls_stmt *q = NULL, *cand = NULL, *find = NULL, *ins = NULL, *set = NULL, *rule = NULL;
    ls_stmt *hq = NULL, *tq = NULL;
    wait_row *w = NULL, **byc = NULL;
    ls_shape_rule *rules = NULL;
    strpool pool = {NULL, 0, 0};
    size_t n = 0, cap = 0, nrules = 0, i, j, nc = 0;
    int64_t resolution = 1000; /* %m, csvlog, jsonlog: milliseconds */
    int rc;

    if ((rc = ls_store_exec(s, "CREATE UNIQUE INDEX IF NOT EXISTS rows_key ON rows(relation,"
                               " row_key)")) != 0 ||
        (rc = ls_store_prepare(s, waits_sql, &q)) != 0 ||
        (rc = ls_store_prepare(s, waiter_stmts_sql, &cand)) != 0 ||
        (rc = ls_store_prepare(s, holder_stmts_sql, &hq)) != 0 ||
        (rc = ls_store_prepare(s, "SELECT target_kind, target FROM lock_waits WHERE wait_id = ?1",
                               &tq)) != 0 ||
        (rc = ls_store_prepare(s, find_row_sql, &find)) != 0 ||
        (rc = ls_store_prepare(s, insert_row_sql, &ins)) != 0 ||
        (rc = ls_store_prepare(s, set_row_sql, &set)) != 0)
        goto out;

    if ((rc = log_resolution(s, &resolution)) != 0 ||
        (rc = ls_store_prepare(s, insert_rule_sql, &rule)) != 0)
        goto out;

    /* The waits are held in memory for the steps below: sized once (a
     * doubling realloc would hold both copies at its peak). */
    {
        ls_stmt *cq = NULL;
        if ((rc = ls_store_prepare(s, "SELECT count(*) FROM lock_waits", &cq)) != 0)
            goto out;
        if ((rc = ls_stmt_step(cq)) == 1)
            cap = (size_t)ls_stmt_int64(cq, 0);
        ls_stmt_finalize(cq);
        if (rc < 0)
            goto out;
        if (cap && !(w = malloc(cap * sizeof(*w)))) {
            rc = LS_ENOMEM;
            goto out;
        }
    }

    /* 1. Each wait's own evidence: its statement, parameters, PREPARE
     * text, the CONTEXT of its first message. */
    while ((rc = ls_stmt_step(q)) == 1) {
        wait_row *r;
        ls_rowkey k;
        ls_rowkey_evidence ev;
        const char *lock_stmt = ls_stmt_isnull(q, 7) ? NULL : ls_stmt_text(q, 7);
        if (n == cap)
            break; /* the count above: the table does not change meanwhile */
        r = &w[n];
        memset(r, 0, sizeof(*r));
        n++;
        r->wait_id = ls_stmt_int64(q, 0);
        r->session_id = ls_stmt_int64(q, 1);
        r->start_ts = ls_stmt_int64(q, 2);
        r->rel = pool_str(&pool, ls_stmt_isnull(q, 3) ? NULL : ls_stmt_text(q, 3));
        r->ctid = pool_str(&pool, ls_stmt_isnull(q, 4) ? NULL : ls_stmt_text(q, 4));
        r->key = r->col = "";
        if (!r->rel || !r->ctid) {
            rc = LS_ENOMEM;
            goto out;
        }
        if (!ls_stmt_isnull(q, 1) &&
            (rc = waiter_statement(cand, r, lock_stmt, ls_stmt_int64(q, 9), ls_stmt_int64(q, 10),
                                   resolution)) != 0)
            goto out;
        if (!r->sql && lock_stmt && !(r->sql = ls_strdup(lock_stmt))) {
            rc = LS_ENOMEM;
            goto out;
        }
        ev.statement = r->sql;
        ev.params = r->params;
        ev.prepare = r->prepare;
        ev.context = ls_stmt_isnull(q, 8) ? NULL : ls_stmt_text(q, 8);
        ev.relation = r->rel[0] ? r->rel : NULL;
        r->keyed = ls_rowkey_of(&ev, &k);
        r->grouped_by = k.grouped_by;
        r->holder_session = ls_stmt_isnull(q, 11) ? 0 : ls_stmt_int64(q, 11);
        r->file = ls_stmt_int64(q, 9);
        r->line = ls_stmt_int64(q, 10);
        if (!(r->col = pool_str(&pool, k.col))) {
            rc = LS_ENOMEM;
            goto out;
        }
        if (r->keyed) {
            if (!r->rel[0])
                r->rel = pool_str(&pool, k.rel);
            r->key = pool_str(&pool, k.key);
            if (!r->rel || !r->key) {
                rc = LS_ENOMEM;
                goto out;
            }
            if (strcmp(r->grouped_by, LS_GROUPED_CONTEXT) != 0) {
                /* Keyed by its own statement: nothing to learn from it later. */
                free(r->sql);
                free(r->params);
                free(r->prepare);
                r->sql = r->params = r->prepare = NULL;
            }
        }
    }
    if (rc < 0)
        goto out;

    /* 2. Row versions: unkeyed waits on a ctid a keyed wait names. */
    byc = malloc((n ? n : 1) * sizeof(*byc));
    if (!byc) {
        rc = LS_ENOMEM;
        goto out;
    }
    for (i = 0; i < n; i++)
        if (w[i].ctid[0] && w[i].rel[0])
            byc[nc++] = &w[i];
    key_by_ctid(byc, nc);

    /* 2b. The holder's statements: its keyed write to the relation, or a
     * call sharing the key with the waiter's. */
    if ((rc = key_waits_from_holders(hq, &pool, w, n, resolution, NULL, 0)) != 0)
        goto out;
    key_by_ctid(byc, nc);

    /* 3. Rules: a statement that locked a row it does not name (a function
     * call, an INSERT whose trigger updates a total) shows which argument
     * is the key; the rule keys the instances with no other evidence. */
    for (i = 0; i < n; i++) {
        const char *sql, *params;
        char pbuf[1024];
        ls_row_ref ref;
        ls_shape_rule r;
        int dup = 0;
        if (!w[i].keyed || !w[i].sql)
            continue;
        ls_rowkey_effective(w[i].sql, w[i].params, w[i].prepare, &sql, &params, pbuf,
                            sizeof(pbuf));
        if (ls_sql_row_ref(sql, &ref) && strcmp(ref.rel, w[i].rel) == 0)
            continue; /* the statement names the row itself (bound or not): nothing to learn */
        if (!ls_rowkey_learn(sql, params, w[i].rel, w[i].key, &r))
            continue;
        for (j = 0; j < nrules; j++)
            if (strcmp(rules[j].shape, r.shape) == 0 && strcmp(rules[j].rel, r.rel) == 0)
                dup = 1;
        if (dup)
            continue;
        {
            ls_shape_rule *nr = realloc(rules, (nrules + 1) * sizeof(*rules));
            if (!nr) {
                rc = LS_ENOMEM;
                goto out;
            }
            rules = nr;
            rules[nrules++] = r;
        }
        ls_stmt_reset(rule);
        ls_stmt_bind_text(rule, 1, r.shape);
        ls_stmt_bind_text(rule, 2, r.rel);
        ls_stmt_bind_text(rule, 3, r.col);
        ls_stmt_bind_int64(rule, 4, r.arg);
        ls_stmt_bind_int64(rule, 5, w[i].wait_id);
        if ((rc = ls_stmt_step(rule)) < 0)
            goto out;
    }
    for (i = 0; i < n && nrules; i++) {
        char shape[512], pbuf[1024];
        const char *sql, *params;
        if (w[i].keyed || !w[i].sql)
            continue;
        ls_rowkey_effective(w[i].sql, w[i].params, w[i].prepare, &sql, &params, pbuf,
                            sizeof(pbuf));
        ls_rowkey_shape(sql, shape, sizeof(shape));
        for (j = 0; j < nrules && !w[i].keyed; j++) {
            ls_rowkey k;
            if ((!w[i].rel[0] || strcmp(rules[j].rel, w[i].rel) == 0) &&
                ls_rowkey_apply(&rules[j], shape, sql, params, &k)) {
                w[i].key = pool_str(&pool, k.key);
                if (!w[i].rel[0])
                    w[i].rel = pool_str(&pool, k.rel);
                if (!w[i].key || !w[i].rel) {
                    rc = LS_ENOMEM;
                    goto out;
                }
                w[i].grouped_by = LS_GROUPED_SHAPE;
                w[i].keyed = 1;
            }
        }
    }
    /* A rule can key a wait (or its holder's statement) whose ctid then
     * keys others. */
    if (nrules) {
        if ((rc = key_waits_from_holders(hq, &pool, w, n, resolution, rules, nrules)) != 0)
            goto out;
        key_by_ctid(byc, nc);
    }

    /* 4. Write rows; what stays unkeyed is a fragment that says why. */
    for (i = 0; i < n; i++) {
        char rel[128], key[192], why[160];
        const char *evidence = w[i].grouped_by;
        int64_t row_id;
        if (w[i].keyed) {
            snprintf(rel, sizeof(rel), "%s", w[i].rel);
            snprintf(key, sizeof(key), "%s", w[i].key);
        } else if (w[i].ctid[0]) {
            snprintf(rel, sizeof(rel), "%s", w[i].rel[0] ? w[i].rel : "?");
            snprintf(key, sizeof(key), "ctid %s", w[i].ctid);
            snprintf(why, sizeof(why), "ctid only: %s", evidence ? evidence : "no statement");
            evidence = why;
        } else {
            /* Not a row: a relation, advisory or other lock, by its target. */
            ls_stmt_reset(tq);
            ls_stmt_bind_int64(tq, 1, w[i].wait_id);
            if ((rc = ls_stmt_step(tq)) < 0)
                goto out;
            snprintf(rel, sizeof(rel), "%s",
                     w[i].rel[0] ? w[i].rel : rc == 1 ? ls_stmt_text(tq, 0) : "?");
            snprintf(key, sizeof(key), "%s", rc == 1 ? ls_stmt_text(tq, 1) : "?");
            evidence = "lock target";
        }
        if ((rc = row_for(find, ins, rel, key, evidence, &row_id, stats)) != 0)
            goto out;
        ls_stmt_reset(set);
        ls_stmt_bind_int64(set, 1, w[i].wait_id);
        ls_stmt_bind_int64(set, 2, row_id);
        if (w[i].stmt_id)
            ls_stmt_bind_int64(set, 3, w[i].stmt_id);
        ls_stmt_bind_text(set, 4, evidence);
        if ((rc = ls_stmt_step(set)) < 0)
            goto out;
    }
    rc = ls_store_exec_sorting(s, "CREATE INDEX IF NOT EXISTS lock_waits_row ON"
                                  " lock_waits(row_id);");
    if (rc == 0)
        rc = ls_store_exec(s, row_stats_sql);
out:
    for (i = 0; i < n; i++) {
        free(w[i].sql);
        free(w[i].params);
        free(w[i].prepare);
    }
    free(w);
    free(byc);
    free(rules);
    pool_free(&pool);
    ls_stmt_finalize(q);
    ls_stmt_finalize(cand);
    ls_stmt_finalize(hq);
    ls_stmt_finalize(tq);
    ls_stmt_finalize(find);
    ls_stmt_finalize(ins);
    ls_stmt_finalize(set);
    ls_stmt_finalize(rule);
    return rc < 0 ? rc : 0;
}

/* ---- holds ---- */

/* Holds others waited for: each (holder transaction, row) with its waits. */
static const char groups_sql[] =
    "SELECT h.tx_id, h.row_id, a.first_wait, a.n, a.ms, a.first_acq,"
    " t.session_id, t.pid, t.start_ts, t.end_ts, t.first_stmt, t.last_stmt, t.end_known,"
    " r.relation, r.row_key, a.last_end, t.sql_ms IS NOT NULL, h.hold_id, h.lock_stmt,"
    " h.start_ts, h.start_lo, h.start_hi, h.start_evidence"
    " FROM (SELECT holder_tx, row_id, min(start_ts) AS first_wait, count(*) AS n,"
    "   sum(waited_ms) AS ms, min(CASE WHEN outcome IN ('acquired', 'serialization_failure')"
    "   THEN end_ts END) AS first_acq, max(coalesce(end_ts, logged_ts)) AS last_end"
    "   FROM lock_waits WHERE holder_tx IS NOT NULL AND row_id IS NOT NULL"
    "   GROUP BY holder_tx, row_id) a"
    " JOIN holds h ON h.tx_id = a.holder_tx AND h.row_id = a.row_id"
    " JOIN transactions t ON t.tx_id = h.tx_id JOIN rows r ON r.row_id = h.row_id"
    /* In the holds table's own order: each group is decided alone, and its
     * UPDATE then walks the table once instead of once per hot row (the
     * table is in time order; pages no longer fit the page cache). */
    " ORDER BY h.hold_id";

static const char tx_statements_sql[] =
    "SELECT stmt_id, start_ts, end_ts, text, params FROM statements"
    /* +session_id: read the transaction's stmt_id range, not every
     * statement of a long-lived session through its index. */
    " WHERE +session_id = ?1 AND stmt_id BETWEEN ?2 AND ?3"
    " AND (verb IS NULL OR verb NOT IN ('parse', 'bind'))"
    " ORDER BY stmt_id";

static const char update_hold_sql[] =
    "UPDATE holds SET start_ts = ?2, start_lo = ?3, start_hi = ?4, start_evidence = ?5,"
    " end_ts = ?6, end_lo = ?7, end_hi = ?8, end_evidence = ?9, lock_stmt = ?10, waits = ?11,"
    " waiter_ms = ?12, contended_ms = ?13, sql_ms = ?14, idle_ms = ?15, commit_ms = ?16,"
    " head_state = ?17 WHERE hold_id = ?1";

#define SNAPSHOT_STATE                                                                     \
    "CASE WHEN a.state = 'idle in transaction' OR a.state LIKE 'idle in transaction%' THEN"   \
    " 'idle_in_transaction' WHEN a.state = 'active' AND upper(ltrim(coalesce(a.query, '')))" \
    " GLOB 'COMMIT*' THEN 'committing' WHEN a.state = 'active' AND a.wait_event IN"          \
    " ('WalSync', 'WalWrite', 'SyncRep') THEN 'committing' WHEN a.state = 'active' AND"      \
    " a.wait_event_type = 'Lock' THEN 'waiting' WHEN a.state = 'active' THEN"                \
    " 'running' ELSE a.state END"

/* A holder running a statement that is itself waiting for a lock (the
 * middle of a chain) is "waiting", not running. */
static const char waiting_sql[] =
    "UPDATE holds SET head_state = 'waiting' WHERE head_state IN ('running', 'unknown') AND"
    " (SELECT sum(max(0, min(holds.end_ts, coalesce(w.end_ts, w.logged_ts))"
    "   - max(holds.end_ts - CAST(holds.contended_ms * 1000 AS INTEGER), w.start_ts)))"
    /* Its waits while it held the row began after it got the row: an index
     * range, not every wait of a long-lived process. */
    "  FROM lock_waits w WHERE w.pid = holds.pid AND w.start_ts BETWEEN holds.start_ts"
    "  AND holds.end_ts) >= holds.contended_ms * 500 AND waits > 0;";

static const char observed_sql[] =
    "UPDATE holds SET"
    " observed_state = (SELECT " SNAPSHOT_STATE " FROM activity a WHERE a.pid = holds.pid"
    "  AND a.ts BETWEEN holds.end_ts - CAST(holds.contended_ms * 1000 AS INTEGER)"
    "  AND holds.end_ts GROUP BY 1 ORDER BY count(*) DESC LIMIT 1),"
    " observed_samples = (SELECT count(*) FROM activity a WHERE a.pid = holds.pid"
    "  AND a.ts BETWEEN holds.end_ts - CAST(holds.contended_ms * 1000 AS INTEGER)"
    "  AND holds.end_ts) WHERE holds.waits > 0;"
    "UPDATE holds SET head_state = observed_state WHERE observed_state IS NOT NULL"
    " AND (SELECT t.sql_ms IS NULL FROM transactions t WHERE t.tx_id = holds.tx_id);";

/* Each row's hold totals from one sequential scan of the holds, grouped:
 * a walk of each row's holds through an index would read the whole
 * time-ordered table once per row. */
static const char row_totals_sql[] =
    "UPDATE rows SET holds = 0, occupancy_holds = 0, occupied_ms = NULL, mean_hold_ms = NULL;"
    "UPDATE rows SET holds = h.waited, occupancy_holds = h.n, occupied_ms = h.ms,"
    " mean_hold_ms = h.mean FROM (SELECT row_id, count(*) FILTER (WHERE waits > 0) AS waited,"
    "  count(*) AS n, sum(end_ts - start_ts) / 1000.0 AS ms,"
    "  avg(end_ts - start_ts) / 1000.0 AS mean FROM holds NOT INDEXED GROUP BY row_id) h"
    " WHERE h.row_id = rows.row_id;"
    "UPDATE rows SET capacity_per_s = 1000.0 / mean_hold_ms WHERE mean_hold_ms > 0;";

static int64_t overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
    int64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
    return hi > lo ? hi - lo : 0;
}

/*
 * The start of a hold others waited for. The transaction pass found the
 * locking statement where its text, parameters or a learned rule name
 * the row; otherwise the holder's first write that addresses the row by
 * key, else its first write to the relation, bounds it. A hold never
 * starts after the first wait for it began (second-resolution times).
 */
int ls_correlate_holds(ls_store *s, ls_correlate_stats *stats)
{
    ls_stmt *g = NULL, *sts = NULL, *upd = NULL;
    int64_t resolution;
    int rc, sorting = 0;

    /* The groups are sorted (the waits grouped, then in hold order) with a
     * quarter of the page cache for the sorter; the walk that follows reads
     * in time order, which that cache serves. */
    if ((rc = log_resolution(s, &resolution)) != 0 ||
        (rc = ls_store_sorting(s, sorting = 1)) != 0 ||
        (rc = ls_store_prepare(s, groups_sql, &g)) != 0 ||
        (rc = ls_store_prepare(s, tx_statements_sql, &sts)) != 0 ||
        (rc = ls_store_prepare(s, update_hold_sql, &upd)) != 0)
        goto out;
    while ((rc = ls_stmt_step(g)) == 1) {
        int64_t first_wait = ls_stmt_int64(g, 2);
        int tx_has_end = !ls_stmt_isnull(g, 9), first_acq_known = !ls_stmt_isnull(g, 5);
        int64_t tx_end = ls_stmt_int64(g, 9), first_acq = ls_stmt_int64(g, 5);
        int64_t last_wait_end = ls_stmt_int64(g, 15);
        const char *relation = ls_stmt_text(g, 13), *row_key = ls_stmt_text(g, 14);
        int64_t lock_stmt = ls_stmt_isnull(g, 18) ? 0 : ls_stmt_int64(g, 18);
        int64_t start_ts = ls_stmt_int64(g, 19), start_lo = ls_stmt_int64(g, 20);
        int64_t start_hi = ls_stmt_int64(g, 21), first_write = 0;
        int64_t fw_lo = 0, fw_hi = 0, c_end, sql = 0, commit = 0, contended;
        char start_ev[96];
        const char *end_ev, *state;
        int64_t end_ts, end_lo, end_hi;
        double idle;

        snprintf(start_ev, sizeof(start_ev), "%s", ls_stmt_text(g, 22));
        /* The end: the transaction's, bounded above by the first waiter's
         * acquisition (the lock was free then). */
        if (tx_has_end && first_acq_known && first_acq > tx_end &&
            strcmp(ls_stmt_text(g, 12), "commit start") == 0) {
            /* log_statement = 'all' logs only when COMMIT starts; the first
             * waiter's acquisition says when it had released the row. */
            end_lo = tx_end;
            end_ts = first_acq;
            end_ev = "first waiter acquired (COMMIT started earlier)";
        } else if (tx_has_end) {
            end_ts = end_lo = tx_end;
            end_ev = ls_stmt_text(g, 12);
        } else {
            end_ts = end_lo = first_acq_known ? first_acq : last_wait_end;
            end_ev = first_acq_known ? "bounded by first acquisition" : "bounded by last wait";
        }
        end_hi = first_acq_known && first_acq > end_lo ? first_acq : end_lo;
        c_end = end_ts > first_wait ? end_ts : first_wait;
        contended = c_end - first_wait;

        /* What the holder did while others waited: statements running
         * (SQL, or the COMMIT) versus idle; and, when the transaction
         * pass did not find it, the locking statement. */
        ls_stmt_reset(sts);
        ls_stmt_bind_int64(sts, 1, ls_stmt_int64(g, 6));
        ls_stmt_bind_int64(sts, 2, ls_stmt_int64(g, 10));
        ls_stmt_bind_int64(sts, 3, ls_stmt_int64(g, 11));
        while ((rc = ls_stmt_step(sts)) == 1) {
            int64_t st0 = ls_stmt_int64(sts, 1);
            int64_t st1 = ls_stmt_isnull(sts, 2) ? st0 : ls_stmt_int64(sts, 2);
            const char *text = ls_stmt_text(sts, 3);
            ls_sql_kind kind = ls_sql_kind_of(text);
            char rel[128], key[192];
            /* Without a duration a COMMIT runs until the row is released;
             * other statements' running time is then unknown (counted idle). */
            if (ls_stmt_isnull(sts, 2) && (kind == LS_SQL_COMMIT || kind == LS_SQL_ROLLBACK))
                st1 = end_ts;
            if (!lock_stmt && kind == LS_SQL_WRITE &&
                ls_sql_row_key(text, ls_stmt_isnull(sts, 4) ? NULL : ls_stmt_text(sts, 4), rel,
                               sizeof(rel), key, sizeof(key)) &&
                strcmp(rel, relation) == 0 && strcmp(key, row_key) == 0) {
                lock_stmt = ls_stmt_int64(sts, 0);
                start_lo = st0;
                start_ts = start_hi = st1;
                snprintf(start_ev, sizeof(start_ev), "statement with the row's key");
            }
            if (!first_write && kind == LS_SQL_WRITE && st0 <= first_wait + 1000 &&
                strstr(text, relation)) {
                first_write = ls_stmt_int64(sts, 0);
                fw_lo = st0;
                fw_hi = st1;
            }
            if (kind == LS_SQL_COMMIT || kind == LS_SQL_ROLLBACK)
                commit += overlap(st0, st1, first_wait, c_end);
            else
                sql += overlap(st0, st1, first_wait, c_end);
        }
        if (rc < 0)
            goto out;
        if (!lock_stmt && first_write) {
            lock_stmt = first_write;
            start_lo = fw_lo;
            start_ts = start_hi = fw_hi;
            snprintf(start_ev, sizeof(start_ev), "first write to the relation");
        }
        /* Whole-second times: a start in the wait's second is not after it. */
        if (start_ts > first_wait + resolution)
            start_ts = first_wait;
        if (start_hi > first_wait + resolution)
            start_hi = first_wait;
        if (start_lo > start_ts)
            start_lo = start_ts;
        idle = (double)(contended - sql - commit);
        if (idle < 0)
            idle = 0;
        state = idle >= (double)sql && idle >= (double)commit ? "idle_in_transaction"
                : commit >= sql                              ? "committing"
                                                             : "running";
        /* Without durations (log_statement = 'all') only a COMMIT's running
         * time is known: running and idle cannot be told apart. */
        if (!ls_stmt_int64(g, 16) && strcmp(state, "committing") != 0)
            state = "unknown";

        ls_stmt_reset(upd);
        ls_stmt_bind_int64(upd, 1, ls_stmt_int64(g, 17));
        ls_stmt_bind_int64(upd, 2, start_ts);
        ls_stmt_bind_int64(upd, 3, start_lo);
        ls_stmt_bind_int64(upd, 4, start_hi);
        ls_stmt_bind_text(upd, 5, start_ev);
        ls_stmt_bind_int64(upd, 6, end_ts);
        ls_stmt_bind_int64(upd, 7, end_lo);
        ls_stmt_bind_int64(upd, 8, end_hi);
        ls_stmt_bind_text(upd, 9, end_ev);
        if (lock_stmt)
            ls_stmt_bind_int64(upd, 10, lock_stmt);
        ls_stmt_bind_int64(upd, 11, ls_stmt_int64(g, 3));
        ls_stmt_bind_double(upd, 12, ls_stmt_double(g, 4));
        ls_stmt_bind_double(upd, 13, (double)contended / 1000.0);
        ls_stmt_bind_double(upd, 14, (double)sql / 1000.0);
        ls_stmt_bind_double(upd, 15, idle / 1000.0);
        ls_stmt_bind_double(upd, 16, (double)commit / 1000.0);
        ls_stmt_bind_text(upd, 17, state);
        if ((rc = ls_stmt_step(upd)) < 0)
            goto out;
    }
    /* pg_stat_activity snapshots taken while others waited say what the
     * holder was doing; where the log has no durations they decide. */
    if (rc == 0)
        rc = ls_store_exec(s, waiting_sql);
    if (rc == 0)
        rc = ls_store_exec(s, "CREATE INDEX IF NOT EXISTS activity_pid ON activity(pid, ts);"
                              "CREATE INDEX IF NOT EXISTS holds_row ON holds(row_id);");
    ls_stmt_finalize(g);
    g = NULL;
    if (rc == 0)
        rc = ls_store_sorting(s, sorting = 0);
    if (rc == 0)
        rc = ls_store_exec(s, observed_sql);
    if (rc == 0)
        rc = ls_store_exec(s, row_totals_sql);
out:
    if (sorting)
        ls_store_sorting(s, 0);
    ls_stmt_finalize(g);
    ls_stmt_finalize(sts);
    ls_stmt_finalize(upd);
    return rc < 0 ? rc : 0;
}

/* ---- queue depth over time ---- */

static const char edges_sql[] =
    "SELECT row_id, start_ts AS ts, 1 FROM lock_waits WHERE row_id IS NOT NULL"
    " UNION ALL SELECT row_id, coalesce(end_ts, logged_ts), -1 FROM lock_waits"
    " WHERE row_id IS NOT NULL ORDER BY 1, 2, 3";

/* Sweep each row's wait starts and ends into (time, depth) points. */
int ls_correlate_queue(ls_store *s)
{
    ls_stmt *q = NULL, *ins = NULL, *upd = NULL;
    int64_t row = -1, max_ts = 0;
    int depth = 0, max_depth = 0, rc;

    if ((rc = ls_store_prepare(s, edges_sql, &q)) != 0 ||
        (rc = ls_store_prepare(s, "INSERT INTO row_queue(row_id, ts, depth) VALUES (?1, ?2, ?3)",
                               &ins)) != 0 ||
        (rc = ls_store_prepare(s, "UPDATE rows SET max_queue = ?2, max_queue_ts = ?3"
                                  " WHERE row_id = ?1", &upd)) != 0)
        goto out;
    for (;;) {
        int more = rc = ls_stmt_step(q);
        if (rc < 0)
            goto out;
        if (row >= 0 && (!more || ls_stmt_int64(q, 0) != row)) {
            ls_stmt_reset(upd);
            ls_stmt_bind_int64(upd, 1, row);
            ls_stmt_bind_int64(upd, 2, max_depth);
            ls_stmt_bind_int64(upd, 3, max_ts);
            if ((rc = ls_stmt_step(upd)) < 0)
                goto out;
            depth = max_depth = 0;
        }
        if (!more)
            break;
        row = ls_stmt_int64(q, 0);
        depth += (int)ls_stmt_int64(q, 2);
        if (depth > max_depth) {
            max_depth = depth;
            max_ts = ls_stmt_int64(q, 1);
        }
        ls_stmt_reset(ins);
        ls_stmt_bind_int64(ins, 1, row);
        ls_stmt_bind_int64(ins, 2, ls_stmt_int64(q, 1));
        ls_stmt_bind_int64(ins, 3, depth);
        if ((rc = ls_stmt_step(ins)) < 0)
            goto out;
    }
    rc = 0;
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(ins);
    ls_stmt_finalize(upd);
    return rc < 0 ? rc : 0;
}
