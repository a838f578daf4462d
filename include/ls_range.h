/*
 * ls_range.h — closed ranges of microseconds.
 *
 * Where the log's times are whole seconds, a total is known only as a
 * range (decide/holdrange.c); the analysis and the report ask the same
 * question of two such ranges, so it is answered here, once.
 */
#ifndef LS_RANGE_H
#define LS_RANGE_H

#include <stdint.h>

/* Whether the ranges [alo, ahi] and [blo, bhi] meet (touching counts):
 * the log cannot tell which total is larger. */
static inline int ls_ranges_overlap(int64_t alo, int64_t ahi, int64_t blo, int64_t bhi)
{
    return alo <= bhi && blo <= ahi;
}

#endif
