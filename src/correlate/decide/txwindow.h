/*
 * txwindow.h — a session's transactions around a moment, read as one
 * in time order, each once, instead of a lookup of the latest few per
 * moment (issue 38, tx38d).
 *
 * The rule: the candidates for a moment t (with a slack) are the session's
 * LS_TXWIN_CAP latest transactions begun by t + slack (by start, then
 * tx_id, latest first), and each is open by time when it had not ended
 * before t - slack. The caller reads the moments in time order and keeps
 * a window per session: the LS_TXWIN_CAP latest begun by the session's
 * moment before; for the next moment it reads only the transactions begun
 * after the latest kept and by the moment (latest first, at most
 * LS_TXWIN_CAP) and adds them (ls_txwin_add(), earliest first): the
 * window is then the next moment's candidates.
 * Pure: no store, no I/O.
 */
#ifndef LS_DECIDE_TXWINDOW_H
#define LS_DECIDE_TXWINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "logpos.h"
#include "tolerances.h"

#define LS_TXWIN_CAP LS_POS_CANDIDATES_WHOLE

/* One transaction of the stream. */
typedef struct ls_txwin_tx {
    int64_t tx_id;
    int64_t start;
    int has_end; /* 0: still open at the log's end */
    int64_t end;
    ls_logpos first; /* its first statement's line (0 0: unknown) */
    int span;        /* its first statement is a span's */
} ls_txwin_tx;

/* The window: tx[(head + i) % CAP] is the i-th latest of those kept. */
typedef struct ls_txwin {
    ls_txwin_tx tx[LS_TXWIN_CAP];
    size_t head, n;
} ls_txwin;

/* Whether a transaction begun at `start` is begun by moment t (slack:
 * start <= t + slack; at that very moment: begun). */
int ls_tx_begun_by(int64_t start, int64_t t, int64_t slack);

/* Whether by time it was still open at t: no end, or an end not before
 * t - slack (ended at that very moment: open). */
int ls_tx_open_by_time(int has_end, int64_t end, int64_t t, int64_t slack);

/* Whether a comes after b in the stream's order (start, then tx_id). */
int ls_txwin_later(const ls_txwin_tx *a, const ls_txwin_tx *b);

void ls_txwin_reset(ls_txwin *w);

/*
 * Adds x, later than every kept one (ls_txwin_later()), as the latest;
 * when LS_TXWIN_CAP are kept the earliest falls out. Returns 0, or -1
 * (not kept) when x is not later than the latest kept (not in order).
 */
int ls_txwin_add(ls_txwin *w, const ls_txwin_tx *x);

/* The windows of the sessions a pass reads, direct-mapped by session: a
 * session whose slot another session took starts again from an empty
 * window (its reader then reads its LS_TXWIN_CAP candidates again). */
#define LS_TXWIN_SLOTS 256
typedef struct ls_txwin_slots {
    struct {
        int64_t session; /* 0: none yet */
        ls_txwin win;
    } slot[LS_TXWIN_SLOTS];
} ls_txwin_slots;

/* Empties every slot. */
void ls_txwin_slots_reset(ls_txwin_slots *t);

/* Session `session`'s window: as it was left, or empty when its slot
 * held another session (or none). */
ls_txwin *ls_txwin_of(ls_txwin_slots *t, int64_t session);

/* The i-th latest kept (0: the latest), NULL past the last. */
const ls_txwin_tx *ls_txwin_at(const ls_txwin *w, size_t i);

#endif
