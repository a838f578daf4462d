/*
 * logpos.h — a position in the log, and the log's order: where timestamps
 * tie (whole-second %t times, equal milliseconds), the order the server
 * wrote its lines in decides.
 */
#ifndef LS_DECIDE_LOGPOS_H
#define LS_DECIDE_LOGPOS_H

#include <stdint.h>

/* A position in the log: file (in reading order) and line. */
typedef struct ls_logpos {
    int64_t file, line;
} ls_logpos;

/* < 0, 0, > 0: a is before, at, after b in the log (file first, then line). */
static inline int ls_logpos_cmp(ls_logpos a, ls_logpos b)
{
    if (a.file != b.file)
        return a.file < b.file ? -1 : 1;
    return (a.line > b.line) - (a.line < b.line);
}

/* Whether a position is known: file and line zero stand for "unknown". */
static inline int ls_logpos_known(ls_logpos p)
{
    return p.file != 0 || p.line != 0;
}

#endif
