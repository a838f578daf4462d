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
 * The first range of greatest depth of the intervals [lo[i], hi[i]], in
 * *rlo..*rhi (ls_span_offset()'s offset is its middle). Returns that
 * depth (0 when n is 0, *rlo and *rhi untouched).
 */
int ls_span_offset_range(const int64_t *lo, const int64_t *hi, int n, int64_t *rlo, int64_t *rhi);

/*
 * The offsets (database minus application clock) that put what the
 * database saw from db0 to db1 (a logged wait, a logged statement) inside
 * a span the application timed from app0 to app1, in *lo..*hi; -1 when the
 * span is too short to hold it.
 */
int ls_span_offset_interval(int64_t db0, int64_t db1, int64_t app0, int64_t app1, int64_t *lo,
                            int64_t *hi);

/*
 * The offsets (database minus application clock) that put the start of a
 * span the application timed from app0 inside the time the log gives a
 * statement's receipt, [db0, db0 + res) (res: the log's resolution, a
 * whole second for %t), give or take `slack` (the span starts before the
 * server receives the statement), in *lo..*hi.
 */
void ls_span_offset_in_log_time(int64_t db0, int64_t res, int64_t app0, int64_t slack,
                                int64_t *lo, int64_t *hi);

#endif
