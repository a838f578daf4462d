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

size_t ls_txwin_drop_after(ls_txwin *w, int64_t t, int64_t slack)
{
    while (w->n > 0 && !ls_tx_begun_by(w->tx[w->head].start, t, slack)) {
        w->head = (w->head + 1) % LS_TXWIN_CAP;
        w->n--;
    }
    if (w->n == 0)
        w->head = 0;
    return w->n;
}

int ls_txwin_full(const ls_txwin *w)
{
    return w->n >= LS_TXWIN_CAP;
}

int ls_txwin_push(ls_txwin *w, const ls_txwin_tx *x)
{
    if (ls_txwin_full(w) || (w->n > 0 && !ls_txwin_later(ls_txwin_at(w, w->n - 1), x)))
        return -1;
    w->tx[(w->head + w->n) % LS_TXWIN_CAP] = *x;
    w->n++;
    return 0;
}

const ls_txwin_tx *ls_txwin_at(const ls_txwin *w, size_t i)
{
    return i < w->n ? &w->tx[(w->head + i) % LS_TXWIN_CAP] : NULL;
}
