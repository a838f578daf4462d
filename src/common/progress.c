/*
 * progress.c — progress notes on stderr, rate-limited (ls_progress.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "ls_progress.h"

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

void ls_progress_init(ls_progress *p, int on)
{
    p->on = on;
    p->tty = on && isatty(STDERR_FILENO);
    p->shown = 0;
    p->next_ns = 0;
}

int ls_progress_due(ls_progress *p)
{
    int64_t t;
    if (!p->on)
        return 0;
    t = now_ns();
    if (t < p->next_ns)
        return 0;
    p->next_ns = t + (p->tty ? 250000000 : 1000000000);
    return 1;
}

void ls_progress_note(ls_progress *p, int final, const char *fmt, ...)
{
    va_list ap;
    if (!p->on)
        return;
    flockfile(stderr); /* parsing threads (-j) each note their own input */
    if (p->tty)
        fputc('\r', stderr);
    fputs("lockspan: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (p->tty && !final) {
        fputs("\033[K", stderr); /* the rest of a longer previous line */
        p->shown = 1;
    } else {
        fputs(p->tty ? "\033[K\n" : "\n", stderr);
        p->shown = 0;
    }
    fflush(stderr);
    funlockfile(stderr);
}

void ls_progress_end(ls_progress *p)
{
    if (p->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        p->shown = 0;
    }
}

void ls_progress_clear(const ls_progress *p)
{
    /* Every other line on stderr ends with its newline, so the cursor is
     * on a progress line (of any thread) or at the start of an empty one:
     * clearing it is always safe. */
    if (p->on && p->tty)
        fputs("\r\033[K", stderr);
}
