/*
 * rows.h — which waits are on one logical row: a wait known only by its
 * ctid joins the keyed wait on the same row version nearest in time
 * (holds.c).
 */
#ifndef LS_DECIDE_ROWS_H
#define LS_DECIDE_ROWS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Ctid chains: in a run of waits on one row version sorted by time ts[],
 * each wait with keyed[i] = 0 takes the nearest keyed one within `window`
 * µs (on a tie the earlier): near[i] = its index, or -1 (also for the
 * keyed ones). Linear in n.
 */
void ls_ctid_nearest(const int64_t *ts, const int *keyed, size_t n, int64_t window, long *near);

#endif
