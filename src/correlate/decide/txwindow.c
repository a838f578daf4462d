/*
 * txwindow.c — a session's transactions around a moment (txwindow.h).
 */
#include "txwindow.h"

int ls_tx_begun_by(int64_t start, int64_t t, int64_t slack)
{
    return start <= t + slack;
}

int ls_tx_open_by_time(int has_end, int64_t end, int64_t t, int64_t slack)
{
    return !has_end || end >= t - slack;
}

int ls_txwin_later(const ls_txwin_tx *a, const ls_txwin_tx *b)
{
    return a->start > b->start || (a->start == b->start && a->tx_id > b->tx_id);
}

void ls_txwin_reset(ls_txwin *w)
{
    w->head = 0;
    w->n = 0;
}

int ls_txwin_add(ls_txwin *w, const ls_txwin_tx *x)
{
    if (w->n > 0 && !ls_txwin_later(x, &w->tx[w->head]))
        return -1;
    w->head = (w->head + LS_TXWIN_CAP - 1) % LS_TXWIN_CAP;
    w->tx[w->head] = *x;
    if (w->n < LS_TXWIN_CAP)
        w->n++;
    return 0;
}

const ls_txwin_tx *ls_txwin_at(const ls_txwin *w, size_t i)
{
    return i < w->n ? &w->tx[(w->head + i) % LS_TXWIN_CAP] : NULL;
}

void ls_txwin_slots_reset(ls_txwin_slots *t)
{
    size_t i;
    for (i = 0; i < LS_TXWIN_SLOTS; i++) {
        t->slot[i].session = 0;
        ls_txwin_reset(&t->slot[i].win);
    }
}

ls_txwin *ls_txwin_of(ls_txwin_slots *t, int64_t session)
{
    size_t i = (size_t)((uint64_t)session % LS_TXWIN_SLOTS);
    if (t->slot[i].session != session || session == 0) {
        t->slot[i].session = session;
        ls_txwin_reset(&t->slot[i].win);
    }
    return &t->slot[i].win;
}
