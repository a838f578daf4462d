/*
 * clock.h — the offset of the application's clock from the database's
 * (spans.c): each logged wait or statement a span timed gives the range
 * of offsets that put it inside the span; the offset is the one most of
 * those ranges agree on.
 */
#ifndef LS_DECIDE_CLOCK_H
#define LS_DECIDE_CLOCK_H

#include <stdint.h>

/*
 * The offset contained in most of the intervals [lo[i], hi[i]]: the middle
 * of the first range of greatest depth, in *offset. Returns that depth
 * (0 when n is 0).
 */
int ls_span_offset(const int64_t *lo, const int64_t *hi, int n, int64_t *offset);

/*
 * The offsets (database minus application clock) that put what the
 * database saw from db0 to db1 (a logged wait, a logged statement) inside
 * a span the application timed from app0 to app1, in *lo..*hi; -1 when the
 * span is too short to hold it.
 */
int ls_span_offset_interval(int64_t db0, int64_t db1, int64_t app0, int64_t app1, int64_t *lo,
                            int64_t *hi);

#endif
