/*
 * ls_progress.h — progress notes on stderr (ingest, each correlation pass,
 * rendering). On a terminal one line is rewritten in place; otherwise
 * (--progress into a file or a pipe) each update is a line of its own.
 * Updates are rate-limited so that asking for one costs a clock read.
 */
#ifndef LS_PROGRESS_H
#define LS_PROGRESS_H

#include <stdint.h>

typedef struct ls_progress {
    int on;          /* print anything at all */
    int tty;         /* stderr is a terminal: rewrite one line */
    int shown;       /* a line is on screen without its newline */
    int64_t next_ns; /* monotonic time before which due() says no */
} ls_progress;

/* on: 0 off, 1 on. Whether stderr is a terminal is looked up here. */
void ls_progress_init(ls_progress *p, int on);

/* 1 when an update may be printed now: at most 4 a second on a terminal,
 * 1 a second elsewhere. */
int ls_progress_due(ls_progress *p);

/* Print an update (printf format); final ends its line for good. */
void ls_progress_note(ls_progress *p, int final, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* End a line left in place, before other output goes to stderr. */
void ls_progress_end(ls_progress *p);

/* Before a warning on stderr, with stderr locked (flockfile) by the caller:
 * on a terminal, wipe any progress line in place (this one's or another
 * thread's), so that the warning starts a line of its own; the next update
 * draws the progress line again below it. Does nothing elsewhere. */
void ls_progress_clear(const ls_progress *p);

#endif
