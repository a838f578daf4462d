/*
 * txcut.c — each session's statements cut into transactions as the store
 * writes them (ls_txcut.h, docs/streaming.md).
 *
 * The rules are those of the "transactions and holds" pass
 * (src/correlate/transactions.c, tx_statement()), kept to the letter so
 * that the pass can store what is cut here instead of reading every
 * statement back: what is a BEGIN, a COMMIT or a ROLLBACK is the
 * statement text's ls_sql_kind, decided once per distinct text by the
 * store. Only sessions inside an explicit transaction hold a slot here;
 * a statement outside one is cut and handed over at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_common.h"
#include "ls_sqlshape.h"
#include "ls_txcut.h"

#define OPEN_CAP (2 * LS_TXCUT_OPEN_MAX) /* hash slots: at most half used */
#define MS_PER_US 1000.0
#define BYTE_BITS 8
#define BYTE_MASK 0xff
#define SPILL_COUNT_MAX 255 /* a filter counter that reached it stays there */

typedef struct open_slot {
    int64_t session_id; /* 0: free */
    uint64_t used;      /* the cutter's clock when last fed */
    ls_txcut_row row;
} open_slot;

struct ls_txcut {
    ls_txcut_emit_fn emit;
    ls_txcut_reload_fn reload;
    void *ctx;
    uint64_t clock;
    size_t nopen;
    open_slot open[OPEN_CAP];
    unsigned char spilled[LS_TXCUT_SPILL_SLOTS]; /* unfinished rows handed over, by hash */
};

static size_t slot_of(int64_t session)
{
    return (size_t)((uint64_t)session * 0x9e3779b97f4a7c15ULL >> 40) & (OPEN_CAP - 1);
}

static size_t spill_of(int64_t session)
{
    return (size_t)((uint64_t)session * 0xff51afd7ed558ccdULL >> 40) &
           (LS_TXCUT_SPILL_SLOTS - 1);
}

ls_txcut *ls_txcut_new(ls_txcut_emit_fn emit, ls_txcut_reload_fn reload, void *ctx)
{
    ls_txcut *c = ls_calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->emit = emit;
    c->reload = reload;
    c->ctx = ctx;
    return c;
}

void ls_txcut_free(ls_txcut *c)
{
    free(c);
}

const char *ls_txcut_end_name(ls_txcut_end end)
{
    switch (end) {
    case LS_TXCUT_END_STATEMENT: return "statement";
    case LS_TXCUT_END_STATEMENT_START: return "statement start";
    case LS_TXCUT_END_COMMIT: return "commit";
    case LS_TXCUT_END_COMMIT_START: return "commit start";
    case LS_TXCUT_END_ROLLBACK: return "rollback";
    case LS_TXCUT_END_ROLLBACK_START: return "rollback start";
    case LS_TXCUT_END_NONE: break;
    }
    return NULL;
}

uint64_t ls_txcut_shape_add(uint64_t h, int64_t text_id)
{
    unsigned char b[sizeof(uint64_t)];
    uint64_t v = (uint64_t)text_id;
    size_t i;
    for (i = 0; i < sizeof(b); i++) /* little-endian whatever the machine: it is stored */
        b[i] = (unsigned char)((v >> (BYTE_BITS * i)) & BYTE_MASK);
    return ls_fnv1a(b, sizeof(b), h ? h : LS_FNV1A_BASIS);
}

/* The open slot of `session`, or NULL. */
static open_slot *find_open(ls_txcut *c, int64_t session)
{
    size_t i;
    for (i = slot_of(session); c->open[i].session_id; i = (i + 1) & (OPEN_CAP - 1))
        if (c->open[i].session_id == session)
            return &c->open[i];
    return NULL;
}

/* Free slot `o`, moving back the slots after it whose probe passed it
 * (linear probing without tombstones). */
static void drop_open(ls_txcut *c, open_slot *o)
{
    size_t hole = (size_t)(o - c->open), i = (hole + 1) & (OPEN_CAP - 1);
    c->open[hole].session_id = 0;
    for (; c->open[i].session_id; i = (i + 1) & (OPEN_CAP - 1)) {
        size_t home = slot_of(c->open[i].session_id);
        /* slot i may move to the hole when its home is not in (hole, i] */
        int stays = hole <= i ? home > hole && home <= i : home > hole || home <= i;
        if (stays)
            continue;
        c->open[hole] = c->open[i];
        c->open[i].session_id = 0;
        hole = i;
    }
    c->nopen--;
}

/* Hand over the open transaction of slot `o` unfinished, and free it. */
static int spill(ls_txcut *c, open_slot *o)
{
    unsigned char *n = &c->spilled[spill_of(o->session_id)];
    int rc = c->emit(c->ctx, &o->row);
    if (rc < 0)
        return rc;
    if (*n < SPILL_COUNT_MAX)
        (*n)++;
    drop_open(c, o);
    return 0;
}

/* A slot for `session`'s open transaction (not there yet), the longest
 * idle one handed over first when all are taken: 0, or a callback's code. */
static int take_open(ls_txcut *c, int64_t session, open_slot **out)
{
    size_t i;
    *out = NULL;
    if (c->nopen >= LS_TXCUT_OPEN_MAX) {
        open_slot *idle = NULL;
        int rc;
        for (i = 0; i < OPEN_CAP; i++)
            if (c->open[i].session_id && (!idle || c->open[i].used < idle->used))
                idle = &c->open[i];
        if (idle && (rc = spill(c, idle)) < 0)
            return rc;
    }
    for (i = slot_of(session); c->open[i].session_id; i = (i + 1) & (OPEN_CAP - 1))
        ;
    c->open[i].session_id = session;
    c->nopen++;
    *out = &c->open[i];
    return 0;
}

void ls_txcut_spilled(ls_txcut *c, int64_t session)
{
    unsigned char *n = &c->spilled[spill_of(session)];
    if (*n < SPILL_COUNT_MAX)
        (*n)++;
}

/* Begin transaction `t` at statement `st`. */
static void tx_open(ls_txcut_row *t, const ls_txcut_stmt *st, int explicit_tx)
{
    memset(t, 0, sizeof(*t));
    t->session_id = st->session_id;
    t->pid = st->pid;
    t->start_ts = st->start_ts;
    t->explicit_tx = explicit_tx;
    t->durations = 1;
}

/* Add statement `st` to transaction `t` (`is_end`: its COMMIT or
 * ROLLBACK, whose time is commit time). */
static void tx_add(ls_txcut_row *t, const ls_txcut_stmt *st, int is_end)
{
    int64_t start = st->start_ts;
    int has_end = st->has_dur && st->start_ts; /* the view's end_ts is NULL without both */
    int64_t end = has_end ? start + st->dur_us : start;

    if (!t->statements) {
        t->first_stmt = st->stmt_id;
        t->first_pos = st->pos;
    }
    t->last_stmt = st->stmt_id;
    t->statements++;
    t->shape = ls_txcut_shape_add(t->shape, st->text_id);
    if (!t->xid && st->xid > 0)
        t->xid = st->xid;
    /* A COMMIT's own line shows vxid N/0: keep the transaction's. */
    if (!t->vxid[0] && st->vxid && st->vxid[0] && !strstr(st->vxid, "/0"))
        snprintf(t->vxid, sizeof(t->vxid), "%s", st->vxid);
    if (!has_end)
        t->durations = 0;
    else if (is_end)
        t->commit_ms += (double)st->dur_us / MS_PER_US;
    else
        t->sql_ms += (double)st->dur_us / MS_PER_US;
    if (t->prev_end && start > t->prev_end) {
        double gap = (double)(start - t->prev_end) / MS_PER_US;
        t->idle_ms += gap;
        if (gap > t->max_idle_ms)
            t->max_idle_ms = gap;
    }
    t->prev_end = end;
    t->end_ts = end;
}

/* End transaction `t` at its last statement `st` of kind `kind`. */
static void tx_end(ls_txcut_row *t, const ls_txcut_stmt *st, int kind)
{
    int timed = st->has_dur && st->start_ts;
    t->closed = 1;
    if (kind == LS_SQL_COMMIT)
        t->end = timed ? LS_TXCUT_END_COMMIT : LS_TXCUT_END_COMMIT_START;
    else if (kind == LS_SQL_ROLLBACK)
        t->end = timed ? LS_TXCUT_END_ROLLBACK : LS_TXCUT_END_ROLLBACK_START;
    else
        t->end = timed ? LS_TXCUT_END_STATEMENT : LS_TXCUT_END_STATEMENT_START;
}

/* The open slot of `session`, taken back from `reload` when it was handed
 * over unfinished; NULL in *out when it has none. */
static int open_of(ls_txcut *c, int64_t session, open_slot **out)
{
    unsigned char *n;
    ls_txcut_row row;
    int found = 0, rc;

    if ((*out = find_open(c, session)) != NULL)
        return 0;
    n = &c->spilled[spill_of(session)];
    if (!*n)
        return 0;
    if ((rc = c->reload(c->ctx, session, &row, &found)) < 0)
        return rc;
    if (!found)
        return 0;
    if (*n < SPILL_COUNT_MAX)
        (*n)--;
    if ((rc = take_open(c, session, out)) < 0)
        return rc;
    (*out)->row = row;
    (*out)->row.closed = 0;
    return 0;
}

int ls_txcut_feed(ls_txcut *c, const ls_txcut_stmt *st)
{
    open_slot *o;
    ls_txcut_row one;
    int rc;

    if (!st->session_id)
        return 0;
    if ((rc = open_of(c, st->session_id, &o)) < 0)
        return rc;
    if (o) { /* inside a transaction opened by BEGIN */
        int is_end = st->kind == LS_SQL_COMMIT || st->kind == LS_SQL_ROLLBACK;
        o->used = ++c->clock;
        /* BEGIN inside one: PostgreSQL warns, nothing ends */
        tx_add(&o->row, st, is_end);
        if (!is_end)
            return 0;
        tx_end(&o->row, st, st->kind);
        if ((rc = c->emit(c->ctx, &o->row)) < 0)
            return rc;
        drop_open(c, o);
        return 0;
    }
    if (st->kind == LS_SQL_BEGIN) {
        if ((rc = take_open(c, st->session_id, &o)) < 0)
            return rc;
        o->used = ++c->clock;
        tx_open(&o->row, st, 1);
        tx_add(&o->row, st, 0);
        return 0;
    }
    /* A statement outside a transaction, or a COMMIT or ROLLBACK whose
     * BEGIN was not logged: a transaction of its own. */
    tx_open(&one, st, 0);
    tx_add(&one, st, st->kind == LS_SQL_COMMIT || st->kind == LS_SQL_ROLLBACK);
    tx_end(&one, st, st->kind);
    return c->emit(c->ctx, &one);
}

int ls_txcut_flush(ls_txcut *c)
{
    size_t i;
    int rc;
    for (i = 0; i < OPEN_CAP; i++)
        while (c->open[i].session_id) /* a later slot may move into i */
            if ((rc = spill(c, &c->open[i])) < 0)
                return rc;
    return 0;
}
