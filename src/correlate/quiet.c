/*
 * quiet.c — rows whose every wait was below deadlock_timeout (issue 34),
 * the last step of the logical-rows pass.
 *
 * A logical row is made from a logged wait, a deadlock's DETAIL or a
 * 40001 error; a row on which statements queued only below
 * deadlock_timeout (most queueing in real applications) left none of
 * them. Ingest decided each locking statement's key (tx_keys,
 * ls_keypack.h) and cut the transactions (tx_cuts): a transaction holds
 * the key from its first statement on it to its end, and a statement of
 * another transaction that started while that hold was on and ended
 * after it queued for it (decide/quiet.c). A key some statement queued
 * for at least LS_HOT_HIDDEN_MIN_US is made a row here; the transactions
 * pass gives it holds and the hidden-waits pass its waits, as for any
 * row.
 *
 * One read of tx_keys and tx_cuts, each in its own order, merged: the
 * sessions' current cuts (one a session) and a window of each key's last
 * LS_QUIET_WINDOW holds, keys whose holds all ended a horizon (horizon())
 * before the latest statement end read dropped as the table grows (memory
 * bounded by the keys locked in that horizon, not by the statements).
 *
 * When ingest's keys or cuts are not complete (a store correlated before:
 * they are emptied once the transactions pass has read them; ingested
 * into after a correlation, upgraded, pruned), the same cuts and keys are
 * made again from the statements (fb_build()) and read the same way: the
 * rows do not depend on whether the store had them (check_txcuts.py).
 *
 * On a log whose times are whole seconds a start is the end's second
 * less the duration, up to a second off: the rule above cannot tell 5 ms.
 * There, when every statement has its duration (each line is its
 * statement's end), a key is made a row only when the queueing is proven
 * from the log's order, the stamps and the durations (decide/quiet.h
 * ls_quiet_bounded_us(): each statement line's time bounded by one pass
 * each way over stmt_rows, in log order, into temp.quiet_lo and quiet_hi); its
 * evidence says the queueing is bounded. Nothing is made when statements
 * have no durations (no end: no evidence of queueing).
 */
#include <stdlib.h>
#include <string.h>

#include "corr_tables.h"
#include "correlate_int.h"
#include "decide/quiet.h"
#include "decide/tolerances.h"
#include "ls_columns.h"
#include "ls_keypack.h"
#include "ls_sqlshape.h"
#include "ls_txcut.h"
#include "rowmake.h"

/* How many holds of a key are kept: a statement queues behind the hold
 * that had the row at its start, which is among the last few got. */
#define LS_QUIET_WINDOW 8
/* A key none of whose holds ended within the horizon before the latest
 * end read is dropped: no statement read later can have queued for one
 * of them, since a later one started no earlier than its end less its
 * duration, and ended no earlier than that latest end. Statements are
 * read in stmt_id order, which is the log's only up to the parser's
 * holding of each process's record until its next message (a statement
 * may be read after others logged up to 64 lines after it: blind-java's
 * stmt 2510 at line 3615 after stmt 2506 at line 3665): the latest end
 * is therefore that of the statements read LS_QUIET_READ_LAG reads
 * before (decide/quiet.h ls_quiet_lag_read(), which argues for it), not
 * of the last one. The horizon is twice the longest duration read
 * so far, at least LS_QUIET_MIN_HORIZON_US and at most
 * LS_QUIET_MAX_HORIZON_US (a statement queued longer than 10 min has its
 * wait logged, deadlock_timeout being 1 s by default). */
#define LS_QUIET_MIN_HORIZON_US (10 * 1000000LL)
#define LS_QUIET_MAX_HORIZON_US (600 * 1000000LL)

#define QUIET_EVIDENCE LS_QUIET_EVIDENCE
#define QUIET_BOUNDED_EVIDENCE                                                                     \
    LS_QUIET_EVIDENCE " (bounded from the log's order and durations: whole-second times)"
#define QUIET_EXCESS_EVIDENCE                                                                      \
    LS_QUIET_EVIDENCE " (estimated from durations beyond the statement's fastest and the log's"    \
                      " order: whole-second times)"

/* Whole-second logs: every statement logged with its duration (at its
 * end), so the bounds below hold. */
static const char all_durations_sql[] =
    "SELECT EXISTS (SELECT 1 FROM stmt_rows)"
    " AND NOT EXISTS (SELECT 1 FROM stmt_rows WHERE dur_us IS NULL OR start_ts IS NULL)";
#define QB_COLS(X, Q)                                                                              \
    X(Q, stmt_id, "stmt_id")                                                                       \
    X(Q, session_id, "session_id")                                                                 \
    X(Q, start_ts, "start_ts")                                                                     \
    X(Q, dur_us, "dur_us")
LS_COLUMNS(qb, QB_COLS);
/* Each statement line's place in the log and lower bound, and its upper
 * bound (the backward pass's). */
#define LS_TABLE_quiet_lo(F, C, T)                                                                 \
    F(T, stmt_id, LS_INT " PRIMARY KEY")                                                           \
    C(T, pos, LS_INT)                                                                              \
    C(T, prev_pos, LS_INT)                                                                         \
    C(T, lo, LS_INT)
#define LS_TABLE_quiet_hi(F, C, T)                                                                 \
    F(T, stmt_id, LS_INT " PRIMARY KEY")                                                           \
    C(T, hi, LS_INT)
LS_TABLE_COLUMNS(quiet_lo);
LS_TABLE_COLUMNS(quiet_hi);
/* each text's shortest logged duration (ls_quiet_excess_us()) */
#define FAST_TABLE_SQL                                                                             \
    "CREATE TABLE temp.quiet_fast (text_id INTEGER PRIMARY KEY, fast INTEGER);"                    \
    " INSERT INTO temp.quiet_fast SELECT text_id, min(dur_us) FROM stmt_rows"                      \
    " WHERE text_id IS NOT NULL GROUP BY text_id;"
static const char bounds_table_sql[] =
    "DROP TABLE IF EXISTS temp.quiet_lo; DROP TABLE IF EXISTS temp.quiet_hi;"
    " DROP TABLE IF EXISTS temp.quiet_fast;" LS_CREATE_TABLE_IN("temp.", quiet_lo)
        LS_CREATE_TABLE_IN("temp.", quiet_hi) FAST_TABLE_SQL;
static const char bounds_drop_sql[] = "DROP TABLE IF EXISTS temp.quiet_lo;"
                                      " DROP TABLE IF EXISTS temp.quiet_hi;"
                                      " DROP TABLE IF EXISTS temp.quiet_fast;";
static const char bounds_fwd_sql[] =
    "SELECT " LS_SELECT_LIST(qb, QB_COLS) " FROM stmt_rows ORDER BY file_id, line, stmt_id";
static const char bounds_bwd_sql[] = "SELECT " LS_SELECT_LIST(
    qb, QB_COLS) " FROM stmt_rows ORDER BY file_id DESC, line DESC, stmt_id DESC";
static const char bounds_lo_sql[] = LS_INSERT_INTO_IN("INSERT", "temp.", quiet_lo);
static const char bounds_hi_sql[] = LS_INSERT_INTO_IN("INSERT", "temp.", quiet_hi);
#define QG_COLS(X, Q)                                                                              \
    X(Q, pos, "l.pos")                                                                             \
    X(Q, prev_pos, "l.prev_pos")                                                                   \
    X(Q, lo, "l.lo")                                                                               \
    X(Q, hi, "h.hi")                                                                               \
    X(Q, fast, "f.fast")
LS_COLUMNS(qg, QG_COLS);
static const char bounds_get_sql[] = "SELECT " LS_SELECT_LIST(
    qg, QG_COLS) " FROM temp.quiet_lo l JOIN temp.quiet_hi h USING (stmt_id)"
                 " JOIN stmt_rows r USING (stmt_id)"
                 " LEFT JOIN temp.quiet_fast f ON f.text_id = r.text_id"
                 " WHERE stmt_id = ?";
enum { QG_PARAM_STMT = 1 }; /* its one parameter */

static const char usable_sql[] =
    "SELECT (SELECT value FROM meta WHERE key = 'tx_keys') IS 'complete'"
    " AND (SELECT value FROM meta WHERE key = 'tx_cuts') IS 'complete'";

#define QK_COLS(X, Q) X(Q, keys, "keys")
LS_COLUMNS(qk, QK_COLS);
#define KEYS_FROM(T) "SELECT " LS_SELECT_LIST(qk, QK_COLS) " FROM " T " ORDER BY first_stmt"
static const char keys_sql[] = KEYS_FROM("tx_keys");

#define QC_COLS(X, Q)                                                                              \
    X(Q, first_stmt, "first_stmt")                                                                 \
    X(Q, last_stmt, "last_stmt")                                                                   \
    X(Q, session_id, "session_id")                                                                 \
    X(Q, end_ts, "end_ts")
LS_COLUMNS(qc, QC_COLS);
/* closed: a transaction whose end the log shows */
#define CUTS_FROM(T)                                                                               \
    "SELECT " LS_SELECT_LIST(                                                                      \
        qc, QC_COLS) " FROM " T " WHERE closed AND end_ts IS NOT NULL ORDER BY first_stmt"
static const char cuts_sql[] = CUTS_FROM("tx_cuts");

#define QS_COLS(X, Q)                                                                              \
    X(Q, text, "t.text")                                                                           \
    X(Q, prepare, "r.prepare")
LS_COLUMNS(qs, QS_COLS);
#define TEXT_PARAMS(X, Q) X(Q, stmt_id)
LS_PARAMS(tp, TEXT_PARAMS);
static const char text_sql[] =
    "SELECT " LS_SELECT_LIST(qs, QS_COLS) " FROM stmt_rows r"
                                          " LEFT JOIN stmt_texts t ON t.text_id = r.text_id"
                                          " WHERE r.stmt_id = :stmt_id";

typedef struct cut {
    int64_t session, first, last, end_ts;
} cut;

typedef struct qhold {
    ls_quiet_hold h;
    int64_t stmt_id;
    int64_t a_pos, c_pos, c_lo; /* whole seconds: its lines' places, its end's lo */
} qhold;

typedef struct qkey {
    char *name; /* rel NUL key NUL; NULL: empty slot */
    int64_t last_end;
    int n, next, done;
    int excess; /* whole seconds: queued by excess duration, not proven yet */
    qhold w[LS_QUIET_WINDOW];
} qkey;

typedef struct quiet {
    cut *cuts;
    size_t ncap, nused;
    qkey *keys;
    size_t kcap, kused, kpurge;
    int64_t latest_end, max_dur; /* latest_end: as of LS_QUIET_READ_LAG reads ago */
    ls_quiet_lag lag;
    ls_stmt *text_q;
    ls_rowmake rows; /* the rows it makes */
    ls_stmt *bounds; /* whole seconds: bounds_get_sql; NULL: sub-second */
    ls_buf excess;   /* whole seconds: keys queued for by excess duration ("rel\0key\0" each) */
    int every_statement; /* whole seconds: the statement logging verdict is complete */
    ls_correlate_stats *stats;
} quiet;

static uint64_t hash_bytes(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    while (n--) {
        h ^= (unsigned char)*p++;
        h *= 1099511628211ULL;
    }
    return h;
}

static size_t name_len(const char *name)
{
    size_t a = strlen(name) + 1;
    return a + strlen(name + a) + 1;
}

/* ---- sessions' current cuts ---- */

static int cuts_grow(quiet *m)
{
    size_t cap = m->ncap ? m->ncap * 2 : 256, i;
    cut *v = calloc(cap, sizeof(*v));
    if (!v)
        return LS_ENOMEM;
    for (i = 0; i < m->ncap; i++) {
        size_t j;
        if (!m->cuts[i].session)
            continue;
        for (j = (size_t)m->cuts[i].session * 11400714819323198485ULL % cap; v[j].session;
             j = (j + 1) % cap)
            ;
        v[j] = m->cuts[i];
    }
    free(m->cuts);
    m->cuts = v;
    m->ncap = cap;
    return 0;
}

static cut *cut_slot(quiet *m, int64_t session)
{
    size_t j = (size_t)session * 11400714819323198485ULL % m->ncap;
    while (m->cuts[j].session && m->cuts[j].session != session)
        j = (j + 1) % m->ncap;
    return &m->cuts[j];
}

static int cut_put(quiet *m, const cut *c)
{
    cut *slot;
    int rc;
    if ((m->nused + 1) * 2 > m->ncap && (rc = cuts_grow(m)) != 0)
        return rc;
    slot = cut_slot(m, c->session);
    if (!slot->session)
        m->nused++;
    *slot = *c;
    return 0;
}

/* ---- keys' windows ---- */

/* The slot of key `name` (len bytes: "rel\0key\0"), or the empty slot it
 * goes in. A stored name is compared only when as long (a memcmp of len
 * bytes would read past a shorter one's end). */
static qkey *key_slot(qkey *keys, size_t cap, const char *name, size_t len)
{
    size_t j = hash_bytes(name, len) % cap;
    while (keys[j].name && (name_len(keys[j].name) != len || memcmp(keys[j].name, name, len) != 0))
        j = (j + 1) % cap;
    return &keys[j];
}

static int64_t horizon(const quiet *m)
{
    int64_t h = 2 * m->max_dur;
    return h < LS_QUIET_MIN_HORIZON_US   ? LS_QUIET_MIN_HORIZON_US
           : h > LS_QUIET_MAX_HORIZON_US ? LS_QUIET_MAX_HORIZON_US
                                         : h;
}

/* Rehash into cap slots, dropping keys stale by the horizon when purge. */
static int keys_rehash(quiet *m, size_t cap, int purge)
{
    qkey *v = calloc(cap, sizeof(*v));
    size_t i;
    if (!v)
        return LS_ENOMEM;
    m->kused = 0;
    for (i = 0; i < m->kcap; i++) {
        qkey *k = &m->keys[i];
        if (!k->name)
            continue;
        if (purge && m->latest_end != INT64_MIN && k->last_end < m->latest_end - horizon(m)) {
            free(k->name);
            continue;
        }
        *key_slot(v, cap, k->name, name_len(k->name)) = *k;
        m->kused++;
    }
    free(m->keys);
    m->keys = v;
    m->kcap = cap;
    return 0;
}

static int key_get(quiet *m, const char *rel, const char *key, qkey **out)
{
    char name[sizeof(((ls_keypack_entry *)0)->rel) + sizeof(((ls_keypack_entry *)0)->key)];
    size_t a = strlen(rel) + 1, b = strlen(key) + 1;
    qkey *k;
    int rc;

    memcpy(name, rel, a);
    memcpy(name + a, key, b);
    if ((m->kused + 1) * 2 > m->kcap) {
        /* first drop the stale keys; grow only if that freed too few */
        if (m->kcap && m->kused >= m->kpurge && (rc = keys_rehash(m, m->kcap, 1)) != 0)
            return rc;
        m->kpurge = m->kused * 2 > 1024 ? m->kused * 2 : 1024;
        if ((m->kused + 1) * 2 > m->kcap &&
            (rc = keys_rehash(m, m->kcap ? m->kcap * 2 : 1024, 0)) != 0)
            return rc;
    }
    k = key_slot(m->keys, m->kcap, name, a + b);
    if (!k->name) {
        if (!(k->name = malloc(a + b)))
            return LS_ENOMEM;
        memcpy(k->name, name, a + b);
        m->kused++;
    }
    *out = k;
    return 0;
}

/* Is statement stmt_id's lock shared (FOR SHARE, FOR KEY SHARE)? */
static int stmt_shared(quiet *m, int64_t stmt_id, int *shared)
{
    int rc;
    *shared = 0;
    ls_stmt_reset(m->text_q);
    if ((rc = ls_stmt_bind_int64(m->text_q, LS_PARAM(tp, stmt_id), stmt_id)) == 0 &&
        (rc = ls_stmt_step(m->text_q)) == 1)
        *shared = (!ls_stmt_isnull(m->text_q, qs_text) &&
                   ls_sql_shared_lock(ls_stmt_text(m->text_q, qs_text))) ||
                  (!ls_stmt_isnull(m->text_q, qs_prepare) &&
                   ls_sql_shared_lock(ls_stmt_text(m->text_q, qs_prepare)));
    return rc < 0 ? rc : 0;
}

/* Both shared: no queueing after all. */
static int both_shared(quiet *m, int64_t a, int64_t b, int *out)
{
    int sa, sb, rc;
    *out = 0;
    if ((rc = stmt_shared(m, a, &sa)) != 0 || !sa)
        return rc;
    if ((rc = stmt_shared(m, b, &sb)) != 0)
        return rc;
    *out = sb;
    return 0;
}

/* The row unless it is one already (a logged wait's): rowmake.h. */
static int make_row(quiet *m, const ls_keypack_entry *e, const char *evidence)
{
    ls_rowmake_row r = {
        .rel = e->rel, .key = e->key, .evidence = evidence, .grouped_by = QUIET_EVIDENCE};
    int made, rc = ls_rowmake_add(&m->rows, &r, &made);
    m->stats->rows += made;
    return rc;
}

/* A statement line's place in the log and bounds (temp.quiet_lo, hi);
 * *found 0 when it has none. */
typedef struct bline {
    int64_t pos, prev_pos, lo, hi;
    int64_t fast; /* its text's shortest duration; INT64_MAX: none */
} bline;

static int bounds_of(quiet *m, int64_t stmt_id, bline *b, int *found)
{
    int rc;
    *found = 0;
    ls_stmt_reset(m->bounds);
    if ((rc = ls_stmt_bind_int64(m->bounds, QG_PARAM_STMT, stmt_id)) != 0)
        return rc;
    if ((rc = ls_stmt_step(m->bounds)) == 1 && !ls_stmt_isnull(m->bounds, qg_hi)) {
        b->pos = ls_stmt_int64(m->bounds, qg_pos);
        b->prev_pos = ls_stmt_int64(m->bounds, qg_prev_pos);
        b->lo = ls_stmt_int64(m->bounds, qg_lo);
        b->hi = ls_stmt_int64(m->bounds, qg_hi);
        b->fast =
            ls_stmt_isnull(m->bounds, qg_fast) ? INT64_MAX : ls_stmt_int64(m->bounds, qg_fast);
        *found = 1;
    }
    ls_stmt_reset(m->bounds);
    return rc < 0 ? rc : 0;
}

/* Whole seconds: how long statement e (b at b_pos, hi b_hi) certainly
 * queued behind hold h. */
static int64_t bounded_queued(const qhold *h, const ls_keypack_entry *e, int64_t tx, int64_t b_pos,
                              int64_t b_hi)
{
    ls_quiet_bounded q;
    if (!h->a_pos || !e->has_end)
        return 0;
    q.tx_a = h->h.tx;
    q.tx_b = tx;
    q.both_shared = 0; /* asked of the text once the rest holds */
    q.a_pos = h->a_pos;
    q.c_pos = h->c_pos;
    q.b_pos = b_pos;
    q.c_lo = h->c_lo;
    q.b_hi = b_hi;
    q.b_dur = e->end_ts - e->start_ts;
    return ls_quiet_bounded_us(&q);
}

/* Whole seconds: how long statement e (line b) queued behind hold h by
 * its duration's excess over its text's fastest run. */
static int64_t excess_queued(const qhold *h, const ls_keypack_entry *e, int64_t tx, const bline *b,
                             int every_statement)
{
    ls_quiet_excess q;
    if (!h->a_pos || !e->has_end || b->fast == INT64_MAX)
        return 0;
    q.tx_a = h->h.tx;
    q.tx_b = tx;
    q.both_shared = 0; /* asked of the text once the rest holds */
    q.a_pos = h->a_pos;
    q.c_pos = h->c_pos;
    q.b_pos = b->pos;
    q.b_prev_pos = b->prev_pos;
    q.b_dur = e->end_ts - e->start_ts;
    q.b_fastest = b->fast;
    q.every_statement = every_statement;
    return ls_quiet_excess_us(&q);
}

/* One keyed statement, its transaction c. */
static int entry(quiet *m, const ls_keypack_entry *e, const cut *c, int subsecond)
{
    qkey *k;
    ls_quiet_stmt st;
    int i, rc, has_tx = 0, b_found = 0;
    bline b;

    if (!e->start_ts)
        return 0;
    if ((rc = key_get(m, e->rel, e->key, &k)) != 0)
        return rc;
    if (c->end_ts > k->last_end)
        k->last_end = c->end_ts;
    m->latest_end = ls_quiet_lag_read(&m->lag, e->end_ts, e->has_end);
    if (e->has_end && e->end_ts - e->start_ts > m->max_dur)
        m->max_dur = e->end_ts - e->start_ts;
    st.tx = c->first;
    st.start_ts = e->start_ts;
    st.end_ts = e->end_ts;
    st.shared = 0;
    memset(&b, 0, sizeof(b));
    if (!subsecond && (rc = bounds_of(m, e->stmt_id, &b, &b_found)) != 0)
        return rc;
    for (i = 0; i < k->n; i++) {
        const qhold *h = &k->w[i];
        int made, proven = 0;
        if (h->h.tx == st.tx)
            has_tx = 1;
        if (k->done || !e->has_end)
            continue;
        if (subsecond)
            made = ls_quiet_makes_row(ls_quiet_queued_us(&h->h, &st), 1);
        else {
            proven =
                b_found && ls_quiet_bounded_makes_row(bounded_queued(h, e, st.tx, b.pos, b.hi));
            made = proven || (b_found && ls_quiet_excess_makes_row(
                                             excess_queued(h, e, st.tx, &b, m->every_statement)));
        }
        if (made && !proven && k->excess)
            continue; /* known by excess already: only a proof adds anything */
        if (made) {
            int shared;
            if ((rc = both_shared(m, h->stmt_id, e->stmt_id, &shared)) != 0)
                return rc;
            if (shared)
                continue;
            if (!subsecond && !proven) {
                /* made after the scan, unless a later statement proves
                 * the queueing (the bounded evidence is the stronger) */
                k->excess = 1;
                ls_buf_add(&m->excess, k->name,
                           name_len(k->name)); /* failure: sticky, excess_rows() */
                continue;
            }
            if ((rc = make_row(m, e, subsecond ? QUIET_EVIDENCE : QUIET_BOUNDED_EVIDENCE)) != 0)
                return rc;
            k->done = 1;
        }
    }
    if (!has_tx) {
        qhold *h = &k->w[k->n < LS_QUIET_WINDOW ? k->n++ : k->next];
        if (k->n == LS_QUIET_WINDOW)
            k->next = (k->next + 1) % LS_QUIET_WINDOW;
        h->h.tx = c->first;
        h->h.acquired = e->has_end ? e->end_ts : e->start_ts;
        h->h.end_ts = c->end_ts;
        h->h.shared = 0;
        h->stmt_id = e->stmt_id;
        h->a_pos = h->c_pos = h->c_lo = 0;
        if (!subsecond && b_found) {
            bline cl;
            int found;
            if ((rc = bounds_of(m, c->last, &cl, &found)) != 0)
                return rc;
            if (found) {
                h->a_pos = b.pos;
                h->c_pos = cl.pos;
                h->c_lo = cl.lo;
            }
        }
    }
    return 0;
}

/* Whole seconds, after the scan: the keys queued for by excess duration
 * that no statement proved (make_row() skips a key made already). */
static int excess_rows(quiet *m)
{
    const char *p = m->excess.ptr, *end = p ? p + m->excess.len : NULL;
    ls_keypack_entry e;
    int rc;
    if (ls_buf_failed(&m->excess))
        return LS_ENOMEM;
    memset(&e, 0, sizeof(e));
    while (p && p < end) {
        size_t a = strlen(p) + 1, b = strlen(p + a) + 1;
        if (a > sizeof(e.rel) || b > sizeof(e.key))
            return LS_ERR; /* key_get() took no longer ones */
        memcpy(e.rel, p, a);
        memcpy(e.key, p + a, b);
        if ((rc = make_row(m, &e, QUIET_EXCESS_EVIDENCE)) != 0)
            return rc;
        p += a + b;
    }
    return 0;
}

/* The next cut into the sessions' map: 1, 0 at the end, or an error. */
static int cut_next(quiet *m, ls_stmt *cq, int *more, cut *pending)
{
    int rc;
    if (*more == 1 && pending->session && (rc = cut_put(m, pending)) != 0)
        return rc;
    if ((*more = ls_stmt_step(cq)) == 1) {
        pending->first = ls_stmt_int64(cq, qc_first_stmt);
        pending->last = ls_stmt_int64(cq, qc_last_stmt);
        pending->session = ls_stmt_int64(cq, qc_session_id);
        pending->end_ts = ls_stmt_int64(cq, qc_end_ts);
    }
    return *more < 0 ? *more : 0;
}

static int scan(quiet *m, ls_stmt *kq, ls_stmt *cq, int subsecond)
{
    cut pending;
    int more, rc;

    memset(&pending, 0, sizeof(pending));
    more = ls_stmt_step(cq);
    if (more == 1) {
        pending.first = ls_stmt_int64(cq, qc_first_stmt);
        pending.last = ls_stmt_int64(cq, qc_last_stmt);
        pending.session = ls_stmt_int64(cq, qc_session_id);
        pending.end_ts = ls_stmt_int64(cq, qc_end_ts);
    }
    if (more < 0)
        return more;
    if ((rc = cuts_grow(m)) != 0)
        return rc;
    while ((rc = ls_stmt_step(kq)) == 1) {
        const char *p = ls_stmt_text(kq, qk_keys), *end = p + strlen(p);
        ls_keypack_entry e;
        int first = 1;
        for (; p < end; first = 0) {
            cut *c;
            if (!(p = ls_keypack_next(p, end, first ? NULL : &e, &e)))
                return 0; /* malformed: the transactions pass says so */
            while (more == 1 && pending.first <= e.stmt_id)
                if ((rc = cut_next(m, cq, &more, &pending)) != 0)
                    return rc;
            c = cut_slot(m, e.session_id);
            if (!c->session || e.stmt_id < c->first || e.stmt_id > c->last)
                continue; /* no closed transaction known */
            if ((rc = entry(m, &e, c, subsecond)) != 0)
                return rc;
        }
    }
    return rc < 0 ? rc : 0;
}

/* ---- without ingest's cuts and keys: made again from the statements ---- */

/*
 * A store correlated before (its cuts and keys emptied once read), one
 * ingested into after a correlation, upgraded, or pruned has no whole
 * tx_cuts and tx_keys. The statements are then read once, in log order
 * (ls_tx_each_statement(): what ingest read, keyed as ingest keys them),
 * each fed to the cut ingest uses (ls_txcut, src/store/txcut.c), into temp
 * tables of the same columns: the closed transactions' cuts, and the keys
 * packed as in tx_keys (ls_keypack.h); a session's transaction handed
 * over unfinished (more than LS_TXCUT_OPEN_MAX sessions in one) waits in
 * a third until its session logs again. scan() then reads them as it
 * reads ingest's. Memory: the cut's slots and a row of keys.
 */
#define FB_KEYS_BYTES 4096 /* a temp quiet_keys row once its keys reach it (store.c's) */

/* The working tables, of tx_cuts' and tx_keys' columns that scan() reads,
 * and what the cut needs to go on with a transaction handed over. */
#define LS_TABLE_quiet_cuts(F, C, T)                                                               \
    F(T, first_stmt, LS_INT " PRIMARY KEY")                                                        \
    C(T, last_stmt, LS_INT)                                                                        \
    C(T, session_id, LS_INT)                                                                       \
    C(T, closed, LS_INT)                                                                           \
    C(T, end_ts, LS_INT)
#define LS_TABLE_quiet_keys(F, C, T)                                                               \
    F(T, first_stmt, LS_INT " PRIMARY KEY")                                                        \
    C(T, keys, LS_TEXT)
#define LS_TABLE_quiet_open(F, C, T)                                                               \
    F(T, session_id, LS_INT " PRIMARY KEY")                                                        \
    C(T, first_stmt, LS_INT)                                                                       \
    C(T, last_stmt, LS_INT)                                                                        \
    C(T, statements, LS_INT)                                                                       \
    C(T, start_ts, LS_INT)                                                                         \
    C(T, end_ts, LS_INT)                                                                           \
    C(T, explicit_tx, LS_INT)
LS_TABLE_COLUMNS(quiet_cuts);
LS_TABLE_COLUMNS(quiet_keys);
LS_TABLE_COLUMNS(quiet_open);

static const char fb_tables_sql[] =
    "DROP TABLE IF EXISTS temp.quiet_cuts; DROP TABLE IF EXISTS temp.quiet_keys;"
    " DROP TABLE IF EXISTS temp.quiet_open;" LS_CREATE_TABLE_IN("temp.", quiet_cuts)
        LS_CREATE_TABLE_IN("temp.", quiet_keys) LS_CREATE_TABLE_IN("temp.", quiet_open);
static const char fb_drop_sql[] =
    "DROP TABLE IF EXISTS temp.quiet_cuts; DROP TABLE IF EXISTS temp.quiet_keys;"
    " DROP TABLE IF EXISTS temp.quiet_open;";
static const char fb_keys_sql[] = KEYS_FROM("temp.quiet_keys");
static const char fb_cuts_sql[] = CUTS_FROM("temp.quiet_cuts");
static const char fb_cut_ins_sql[] = LS_INSERT_INTO_IN("INSERT", "temp.", quiet_cuts);
static const char fb_key_ins_sql[] = LS_INSERT_INTO_IN("INSERT", "temp.", quiet_keys);
static const char fb_open_ins_sql[] = LS_INSERT_INTO_IN("INSERT OR REPLACE", "temp.", quiet_open);
#define FO_COLS(X, Q)                                                                              \
    X(Q, first_stmt, "first_stmt")                                                                 \
    X(Q, last_stmt, "last_stmt")                                                                   \
    X(Q, statements, "statements")                                                                 \
    X(Q, start_ts, "start_ts")                                                                     \
    X(Q, end_ts, "end_ts")                                                                         \
    X(Q, explicit_tx, "explicit_tx")
LS_COLUMNS(fo, FO_COLS);
/* the session's row, taken out */
static const char fb_open_del_sql[] =
    "DELETE FROM temp.quiet_open WHERE session_id = ? RETURNING " LS_SELECT_LIST(fo, FO_COLS);
enum { FO_PARAM_SESSION = 1 }; /* its one parameter */

typedef struct fallback {
    ls_txcut *cut;
    ls_stmt *cut_ins, *key_ins, *open_ins, *open_del;
    ls_buf keys;
    ls_keypack_entry last; /* the last entry in keys */
    int64_t nkeys, first;
} fallback;

/* Cut r's row of quiet_cuts (closed) or quiet_open (not) bound to q. */
static int bind_closed_cut(ls_stmt *q, const ls_txcut_row *r)
{
    int rc;
    if ((rc = ls_stmt_bind_int64(q, LS_PARAM(quiet_cuts, first_stmt), r->first_stmt)) != 0 ||
        (rc = ls_stmt_bind_int64(q, LS_PARAM(quiet_cuts, last_stmt), r->last_stmt)) != 0 ||
        (rc = ls_stmt_bind_int64(q, LS_PARAM(quiet_cuts, session_id), r->session_id)) != 0 ||
        (rc = ls_stmt_bind_int64(q, LS_PARAM(quiet_cuts, closed), 1)) != 0)
        return rc;
    return ls_stmt_bind_int64(q, LS_PARAM(quiet_cuts, end_ts), r->end_ts);
}

static int bind_open_cut(ls_stmt *q, const ls_txcut_row *r)
{
    int rc;
    if ((rc = ls_stmt_bind_int64(q, LS_PARAM(quiet_open, session_id), r->session_id)) != 0 ||
        (rc = ls_stmt_bind_int64(q, LS_PARAM(quiet_open, first_stmt), r->first_stmt)) != 0 ||
        (rc = ls_stmt_bind_int64(q, LS_PARAM(quiet_open, last_stmt), r->last_stmt)) != 0 ||
        (rc = ls_stmt_bind_int64(q, LS_PARAM(quiet_open, statements), r->statements)) != 0 ||
        (rc = ls_stmt_bind_int64(q, LS_PARAM(quiet_open, start_ts), r->start_ts)) != 0 ||
        (rc = ls_stmt_bind_int64(q, LS_PARAM(quiet_open, end_ts), r->end_ts)) != 0)
        return rc;
    return ls_stmt_bind_int64(q, LS_PARAM(quiet_open, explicit_tx), r->explicit_tx);
}

/* ls_txcut_emit_fn: a closed transaction to quiet_cuts; one handed over
 * unfinished to quiet_open (at the end of the log: dropped, as scan()
 * reads only closed cuts). */
static int fb_emit(void *ctx, const ls_txcut_row *r)
{
    fallback *f = ctx;
    ls_stmt *q = r->closed ? f->cut_ins : f->open_ins;
    int rc;
    ls_stmt_reset(q);
    rc = r->closed ? bind_closed_cut(q, r) : bind_open_cut(q, r);
    if (rc == 0)
        rc = ls_stmt_step(q);
    ls_stmt_reset(q);
    return rc < 0 ? rc : 0;
}

/* ls_txcut_reload_fn: the session's transaction handed over unfinished,
 * what the cut needs of it to go on (its first and last statements,
 * count and times: what scan() reads of the cut). */
static int fb_reload(void *ctx, int64_t session, ls_txcut_row *out, int *found)
{
    fallback *f = ctx;
    int rc;
    *found = 0;
    ls_stmt_reset(f->open_del);
    ls_stmt_bind_int64(f->open_del, FO_PARAM_SESSION, session);
    if ((rc = ls_stmt_step(f->open_del)) == 1) {
        memset(out, 0, sizeof(*out));
        out->session_id = session;
        out->first_stmt = ls_stmt_int64(f->open_del, fo_first_stmt);
        out->last_stmt = ls_stmt_int64(f->open_del, fo_last_stmt);
        out->statements = ls_stmt_int64(f->open_del, fo_statements);
        out->start_ts = ls_stmt_int64(f->open_del, fo_start_ts);
        out->end_ts = out->prev_end = ls_stmt_int64(f->open_del, fo_end_ts);
        out->explicit_tx = (int)ls_stmt_int64(f->open_del, fo_explicit_tx);
        out->durations = 1;
        *found = 1;
        rc = ls_stmt_step(f->open_del); /* RETURNING: run the DELETE to its end */
    }
    ls_stmt_reset(f->open_del);
    return rc < 0 ? rc : 0;
}

/* The keys gathered so far to one quiet_keys row. */
static int fb_keys_write(fallback *f)
{
    int rc;
    if (!f->nkeys)
        return 0;
    if (ls_buf_failed(&f->keys))
        return LS_ENOMEM;
    ls_stmt_reset(f->key_ins);
    if ((rc = ls_stmt_bind_int64(f->key_ins, LS_PARAM(quiet_keys, first_stmt), f->first)) == 0 &&
        (rc = ls_stmt_bind_text(f->key_ins, LS_PARAM(quiet_keys, keys), ls_buf_str(&f->keys))) == 0)
        rc = ls_stmt_step(f->key_ins);
    ls_stmt_reset(f->key_ins);
    ls_buf_reset(&f->keys);
    f->nkeys = 0;
    return rc < 0 ? rc : 0;
}

/* ls_tx_stmt_fn: one statement, to the cut, and its key. */
static int fb_statement(void *ctx, const ls_txcut_stmt *st, const ls_keypack_entry *e)
{
    fallback *f = ctx;
    int rc;
    if (e) {
        if (!f->nkeys)
            f->first = e->stmt_id;
        if ((rc = ls_keypack_add(&f->keys, f->nkeys ? &f->last : NULL, e)) != 0)
            return rc;
        f->last = *e;
        f->nkeys++;
        if (f->keys.len >= FB_KEYS_BYTES && (rc = fb_keys_write(f)) != 0)
            return rc;
    }
    return ls_txcut_feed(f->cut, st);
}

/* quiet_cuts and quiet_keys from the statements. */
static int fb_build(ls_store *s)
{
    fallback f;
    int rc;
    memset(&f, 0, sizeof(f));
    ls_buf_init(&f.keys, 0);
    if ((rc = ls_store_exec(s, fb_tables_sql)) != 0 ||
        (rc = ls_store_prepare(s, fb_cut_ins_sql, &f.cut_ins)) != 0 ||
        (rc = ls_store_prepare(s, fb_key_ins_sql, &f.key_ins)) != 0 ||
        (rc = ls_store_prepare(s, fb_open_ins_sql, &f.open_ins)) != 0 ||
        (rc = ls_store_prepare(s, fb_open_del_sql, &f.open_del)) != 0)
        goto out;
    if (!(f.cut = ls_txcut_new(fb_emit, fb_reload, &f))) {
        rc = LS_ENOMEM;
        goto out;
    }
    if ((rc = ls_tx_each_statement(s, fb_statement, &f)) == 0)
        rc = fb_keys_write(&f);
out:
    ls_txcut_free(f.cut);
    ls_buf_free(&f.keys);
    ls_stmt_finalize(f.cut_ins);
    ls_stmt_finalize(f.key_ins);
    ls_stmt_finalize(f.open_ins);
    ls_stmt_finalize(f.open_del);
    return rc < 0 ? rc : 0;
}

/* ---- whole seconds: each statement line's time bounded ---- */

/*
 * temp.quiet_lo and quiet_hi from stmt_rows in log order: forward, each line's lo
 * (ls_quiet_line_lo()), the sessions' last lo in the cuts' map (end_ts);
 * backward, each hi (ls_quiet_line_hi()), the sessions' next statement's
 * hi less its duration in the map. The map is emptied after.
 */
static int bounds_build(ls_store *s, quiet *m, int64_t tick)
{
    ls_stmt *q = NULL, *w = NULL;
    int64_t edge = INT64_MIN, pos = 0;
    int rc, pass;

    if ((rc = ls_store_exec(s, bounds_table_sql)) != 0)
        return rc;
    for (pass = 0; pass < 2; pass++) {
        int fwd = pass == 0;
        ls_stmt_finalize(q);
        ls_stmt_finalize(w);
        q = w = NULL;
        free(m->cuts);
        m->cuts = NULL;
        m->ncap = m->nused = 0;
        edge = fwd ? INT64_MIN : INT64_MAX;
        if ((rc = cuts_grow(m)) != 0 ||
            (rc = ls_store_prepare(s, fwd ? bounds_fwd_sql : bounds_bwd_sql, &q)) != 0 ||
            (rc = ls_store_prepare(s, fwd ? bounds_lo_sql : bounds_hi_sql, &w)) != 0)
            goto out;
        while ((rc = ls_stmt_step(q)) == 1) {
            int64_t id = ls_stmt_int64(q, qb_stmt_id), ses = ls_stmt_int64(q, qb_session_id);
            int64_t dur = ls_stmt_int64(q, qb_dur_us);
            int64_t stamp = ls_stmt_int64(q, qb_start_ts) + dur, v;
            cut *c = ses ? cut_slot(m, ses) : NULL, put;
            int known = c && c->session;
            if (fwd)
                v = ls_quiet_line_lo(stamp, edge, known ? c->end_ts : INT64_MIN, dur);
            else
                v = ls_quiet_line_hi(stamp, tick, edge, known ? c->end_ts : INT64_MAX);
            edge = v;
            ls_stmt_reset(w);
            if (fwd && ((rc = ls_stmt_bind_int64(w, LS_PARAM(quiet_lo, stmt_id), id)) != 0 ||
                        (rc = ls_stmt_bind_int64(w, LS_PARAM(quiet_lo, pos), ++pos)) != 0 ||
                        (rc = ls_stmt_bind_int64(w, LS_PARAM(quiet_lo, prev_pos),
                                                 known ? c->first : -1)) != 0 ||
                        (rc = ls_stmt_bind_int64(w, LS_PARAM(quiet_lo, lo), v)) != 0))
                goto out;
            if (!fwd && ((rc = ls_stmt_bind_int64(w, LS_PARAM(quiet_hi, stmt_id), id)) != 0 ||
                         (rc = ls_stmt_bind_int64(w, LS_PARAM(quiet_hi, hi), v)) != 0))
                goto out;
            if ((rc = ls_stmt_step(w)) < 0)
                goto out;
            if (ses) {
                memset(&put, 0, sizeof(put));
                put.session = ses;
                put.first = pos; /* forward: this line's place, the session's previous next time */
                put.end_ts = fwd ? v : v - dur;
                if ((rc = cut_put(m, &put)) != 0)
                    goto out;
            }
        }
        if (rc < 0)
            goto out;
    }
    rc = 0;
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(w);
    free(m->cuts);
    m->cuts = NULL;
    m->ncap = m->nused = 0;
    return rc;
}

int ls_correlate_quiet_rows(ls_store *s, ls_correlate_stats *stats)
{
    quiet m;
    ls_stmt *kq = NULL, *cq = NULL;
    int64_t resolution = LS_MILLISECOND_US;
    int usable, subsecond, durations = 0, bounded = 0, rc;
    ls_logcover verdict;
    size_t i;

    memset(&m, 0, sizeof(m));
    ls_buf_init(&m.excess, 0);
    ls_quiet_lag_init(&m.lag);
    m.latest_end = INT64_MIN;
    m.stats = stats;
    if ((rc = ls_correlate_flag(s, usable_sql, &usable)) != 0)
        return rc;
    if ((rc = ls_correlate_log_resolution(s, &resolution)) != 0)
        return rc;
    subsecond = resolution < LS_WHOLE_SECOND_US;
    /* whole seconds: only queueing the log's order and durations prove,
     * when every statement line is its end */
    if (!subsecond) {
        if ((rc = ls_correlate_flag(s, all_durations_sql, &durations)) != 0)
            return rc;
        if (!durations)
            return 0;
        if ((rc = ls_correlate_stmt_logging(s, &verdict)) != 0)
            return rc;
        m.every_statement = verdict == LS_LOGCOVER_COMPLETE;
        bounded = 1;
        if ((rc = bounds_build(s, &m, resolution)) != 0 ||
            (rc = ls_store_prepare(s, bounds_get_sql, &m.bounds)) != 0)
            goto out;
    }
    /* without ingest's whole cuts and keys, the same from the statements */
    if (!usable && (rc = fb_build(s)) != 0)
        goto out;
    if ((rc = ls_store_prepare(s, usable ? keys_sql : fb_keys_sql, &kq)) != 0 ||
        (rc = ls_store_prepare(s, usable ? cuts_sql : fb_cuts_sql, &cq)) != 0 ||
        (rc = ls_store_prepare_params(s, text_sql, LS_PARAM_NAMES(TEXT_PARAMS), &m.text_q)) != 0 ||
        (rc = ls_rowmake_open(s, &m.rows)) != 0)
        goto out;
    rc = scan(&m, kq, cq, subsecond);
    if (rc == 0)
        rc = excess_rows(&m);
    if (rc == 0)
        rc = ls_correlate_slow_key_rows(s, stats, usable ? keys_sql : fb_keys_sql);
out:
    ls_stmt_finalize(kq);
    ls_stmt_finalize(cq);
    ls_stmt_finalize(m.text_q);
    ls_rowmake_close(&m.rows);
    ls_stmt_finalize(m.bounds);
    ls_buf_free(&m.excess);
    for (i = 0; i < m.kcap; i++)
        free(m.keys[i].name);
    free(m.keys);
    free(m.cuts);
    if (!usable) {
        int drc = ls_store_exec(s, fb_drop_sql);
        if (rc >= 0 && drc != 0)
            rc = drc;
    }
    if (bounded) {
        int drc = ls_store_exec(s, bounds_drop_sql);
        if (rc >= 0 && drc != 0)
            rc = drc;
    }
    return rc < 0 ? rc : 0;
}
