/*
 * cover.h — how much of a row wait a hold of another transaction covered.
 * The code-paths pass (cover.c) sweeps each hot row's waits and holds and
 * asks this of every pair that may overlap; the report shares each wait
 * out among the code paths of the holds that covered it (row_cover).
 */
#ifndef LS_DECIDE_COVER_H
#define LS_DECIDE_COVER_H

#include <stdint.h>

/* A wait or a hold of a row: its interval and its transaction (has_tx 0:
 * the transaction is not known). */
typedef struct ls_cover_span {
    int64_t start_ts, end_ts;
    int64_t tx_id;
    int has_tx;
} ls_cover_span;

/*
 * The microseconds of `wait` that `hold` covered, or 0 when it is no
 * share: the hold began at or after the wait ended, their overlap is
 * under LS_COVER_MIN_US (exactly the minimum counts), or the hold is the
 * waiter's own transaction (both unknown counts as the same). A hold that
 * ended at or before the wait began overlaps it by nothing.
 */
int64_t ls_cover_us(const ls_cover_span *wait, const ls_cover_span *hold);

#endif
