/*
 * rows.c — which waits are on one logical row (rows.h).
 */
#include "rows.h"

/*
 * The keyed neighbour of each unkeyed wait in a run of waits on one row
 * version, in time order: the nearest keyed one (not keyed through a ctid
 * itself) within LS_CTID_CHAIN_US; on a tie the earlier. Two sweeps, so a
 * long run (a ctid reused all day) stays linear. near[i] = its index, or -1.
 */
void ls_ctid_nearest(const int64_t *ts, const int *keyed, size_t n, int64_t window, long *near)
{
    size_t i;
    long prev = -1, next = -1;
    for (i = 0; i < n; i++) {
        near[i] = -1;
        if (keyed[i]) {
            /* of keyed waits at one time, the first in order */
            if (prev < 0 || ts[prev] != ts[i])
                prev = (long)i;
        } else if (prev >= 0 && ts[i] - ts[prev] <= window) {
            near[i] = prev;
        }
    }
    for (i = n; i-- > 0;) {
        if (keyed[i]) {
            next = (long)i;
        } else if (next >= 0 && ts[next] - ts[i] <= window &&
                   (near[i] < 0 || ts[next] - ts[i] < ts[i] - ts[near[i]])) {
            near[i] = next;
        }
    }
}
