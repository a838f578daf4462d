/*
 * cover.c — which holds covered each row wait, and by how much (the
 * code-paths pass, traces.c; the table row_cover).
 *
 * The report's row queueing shares each wait, logged or hidden
 * (row_waits), out among the code paths of the holds of other
 * transactions that covered it, by the part each covered
 * (ls_cover_us(): an overlap under LS_COVER_MIN_US is no share). One
 * sweep per row, waits and holds both in start order, keeping only the
 * holds that have begun and not ended by the wait's start: a long hold
 * costs the waits it overlaps, not a scan of every hold within its length
 * before each wait of the row. A row's shares are stored in (wait, hold's
 * transaction) order, so that the table is the same for two runs of one
 * workload whose times differ.
 */
#include <stdlib.h>

#include "correlate_int.h"
#include "ls_columns.h"
#include "corr_tables.h"

/* Each row's waits, in start order. */
#define COVER_WAIT_COLS(X, Q)  \
    X(Q, rw_id, "rw_id")       \
    X(Q, row_id, "row_id")     \
    X(Q, tx_id, "tx_id")       \
    X(Q, start_ts, "start_ts") \
    X(Q, end_ts, "end_ts")
LS_COLUMNS(cw, COVER_WAIT_COLS);
static const char cover_waits_sql[] =
    "SELECT " LS_SELECT_LIST(cw, COVER_WAIT_COLS) " FROM row_waits"
    " WHERE start_ts IS NOT NULL AND end_ts IS NOT NULL ORDER BY row_id, start_ts, rw_id";

/* Each waited-for row's holds, in start order, with their final bounds
 * (the holds view: the holds waited for and hidden waits passes move
 * them): read in the order of the index hold_final_row, which covers
 * them (final.c), a seek per waited row. Sorting every hold here was
 * 11.1 M VM steps at 1 GiB; through the index without end_ts, a visit of
 * hold_final per hold doubled the pages read. The order of holds of one
 * start does not matter: the sweep keeps every hold begun and not ended,
 * and the shares are sorted per row (share_cmp). */
#define COVER_HOLD_COLS(X, Q)  \
    X(Q, row_id, "row_id")     \
    X(Q, tx_id, "tx_id")       \
    X(Q, start_ts, "start_ts") \
    X(Q, end_ts, "end_ts")
LS_COLUMNS(ch, COVER_HOLD_COLS);
static const char cover_holds_sql[] =
    "SELECT " LS_SELECT_LIST(ch, COVER_HOLD_COLS) " FROM holds"
    " WHERE row_id IN (SELECT row_id FROM row_waits) AND start_ts IS NOT NULL"
    " AND end_ts IS NOT NULL ORDER BY row_id, start_ts";

LS_TABLE_COLUMNS(row_cover);
static const char insert_cover_sql[] = LS_INSERT_INTO("INSERT", row_cover);

#define COVER_FIRST_CAP 64

/* A share of a wait, as row_cover stores it. */
typedef struct cover_share {
    int64_t rw_id, tx_id, us;
    int has_tx;
} cover_share;

typedef struct cover_sweep {
    ls_stmt *h;         /* cover_holds_sql, on the next hold not yet read */
    int hrc;            /* its last step's result */
    ls_cover_span *act; /* the row's holds begun, not known to have ended */
    size_t n, cap;
    cover_share *sh;    /* the row's shares found, not stored yet */
    size_t nsh, capsh;
} cover_sweep;

static ls_cover_span cover_span(ls_stmt *q, int tx, int start, int end)
{
    ls_cover_span c;
    c.has_tx = !ls_stmt_isnull(q, tx);
    c.tx_id = ls_stmt_int64(q, tx);
    c.start_ts = ls_stmt_int64(q, start);
    c.end_ts = ls_stmt_int64(q, end);
    return c;
}

/* Read the row's holds that began before `end` into the active set. */
static int read_holds(cover_sweep *sw, int64_t row, int64_t end)
{
    for (; sw->hrc == 1 && ls_stmt_int64(sw->h, ch_row_id) == row &&
           ls_stmt_int64(sw->h, ch_start_ts) < end;
         sw->hrc = ls_stmt_step(sw->h)) {
        if (sw->n == sw->cap) {
            size_t ncap = sw->cap ? sw->cap * 2 : COVER_FIRST_CAP;
            ls_cover_span *na = ls_realloc(sw->act, ncap * sizeof(*na));
            if (!na)
                return LS_ENOMEM;
            sw->act = na;
            sw->cap = ncap;
        }
        sw->act[sw->n++] = cover_span(sw->h, ch_tx_id, ch_start_ts, ch_end_ts);
    }
    return sw->hrc < 0 ? sw->hrc : 0;
}

/* Drop the holds that ended by `start`: they end before every later wait's. */
static void drop_ended(cover_sweep *sw, int64_t start)
{
    size_t i, j;
    for (i = j = 0; i < sw->n; i++)
        if (sw->act[i].end_ts > start)
            sw->act[j++] = sw->act[i];
    sw->n = j;
}

/* Keep a share of wait rw_id for the row's flush. */
static int add_share(cover_sweep *sw, int64_t rw_id, const ls_cover_span *hold, int64_t us)
{
    if (sw->nsh == sw->capsh) {
        size_t ncap = sw->capsh ? sw->capsh * 2 : COVER_FIRST_CAP;
        cover_share *na = ls_realloc(sw->sh, ncap * sizeof(*na));
        if (!na)
            return LS_ENOMEM;
        sw->sh = na;
        sw->capsh = ncap;
    }
    sw->sh[sw->nsh].rw_id = rw_id;
    sw->sh[sw->nsh].has_tx = hold->has_tx;
    sw->sh[sw->nsh].tx_id = hold->tx_id;
    sw->sh[sw->nsh].us = us;
    sw->nsh++;
    return 0;
}

/* By wait, then transaction (unknown first), then share. */
static int share_cmp(const void *a, const void *b)
{
    const cover_share *x = a, *y = b;
    if (x->rw_id != y->rw_id)
        return x->rw_id < y->rw_id ? -1 : 1;
    if (x->has_tx != y->has_tx)
        return x->has_tx - y->has_tx;
    if (x->tx_id != y->tx_id)
        return x->tx_id < y->tx_id ? -1 : 1;
    return x->us < y->us ? -1 : x->us > y->us;
}

/* Store the row's shares, in share_cmp order. */
static int flush_shares(cover_sweep *sw, ls_stmt *ins)
{
    size_t i;
    int rc;
    if (sw->nsh)
        qsort(sw->sh, sw->nsh, sizeof(*sw->sh), share_cmp);
    for (i = 0; i < sw->nsh; i++) {
        ls_stmt_reset(ins);
        ls_stmt_bind_int64(ins, LS_PARAM(row_cover, rw_id), sw->sh[i].rw_id);
        if (sw->sh[i].has_tx)
            ls_stmt_bind_int64(ins, LS_PARAM(row_cover, tx_id), sw->sh[i].tx_id);
        ls_stmt_bind_int64(ins, LS_PARAM(row_cover, us), sw->sh[i].us);
        if ((rc = ls_stmt_step(ins)) < 0)
            return rc;
    }
    sw->nsh = 0;
    return 0;
}

int ls_correlate_cover(ls_store *s)
{
    ls_stmt *w = NULL, *ins = NULL;
    cover_sweep sw = {0};
    int64_t row = -1;
    size_t i;
    int rc;

    if ((rc = ls_store_prepare(s, cover_waits_sql, &w)) != 0 ||
        (rc = ls_store_prepare(s, cover_holds_sql, &sw.h)) != 0 ||
        (rc = ls_store_prepare(s, insert_cover_sql, &ins)) != 0)
        goto out;
    sw.hrc = ls_stmt_step(sw.h);
    while ((rc = ls_stmt_step(w)) == 1) {
        ls_cover_span wait = cover_span(w, cw_tx_id, cw_start_ts, cw_end_ts);
        if (ls_stmt_int64(w, cw_row_id) != row) {
            if ((rc = flush_shares(&sw, ins)) != 0)
                goto out;
            row = ls_stmt_int64(w, cw_row_id);
            sw.n = 0;
            while (sw.hrc == 1 && ls_stmt_int64(sw.h, ch_row_id) < row)
                sw.hrc = ls_stmt_step(sw.h);
        }
        if ((rc = read_holds(&sw, row, wait.end_ts)) != 0)
            goto out;
        drop_ended(&sw, wait.start_ts);
        for (i = 0; i < sw.n; i++) {
            int64_t us = ls_cover_us(&wait, &sw.act[i]);
            if (us && (rc = add_share(&sw, ls_stmt_int64(w, cw_rw_id), &sw.act[i], us)) != 0)
                goto out;
        }
    }
    if (rc == 0)
        rc = flush_shares(&sw, ins);
out:
    free(sw.act);
    free(sw.sh);
    ls_stmt_finalize(w);
    ls_stmt_finalize(sw.h);
    ls_stmt_finalize(ins);
    return rc < 0 ? rc : 0;
}
