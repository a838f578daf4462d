/*
 * spantime.c — a logged statement's time from the span that sent it
 * (spantime.h).
 */
#include "spantime.h"

#include <string.h>

#include "ls_common.h"

uint64_t ls_span_text_hash(const char *text)
{
    const char *c = strstr(text, "/*");
    size_t n = c ? (size_t)(c - text) : strlen(text);
    uint64_t h;

    while (n && (text[n - 1] == ' ' || text[n - 1] == '\n' || text[n - 1] == '\t' ||
                 text[n - 1] == ';'))
        n--;
    h = ls_fnv1a(text, n, LS_FNV1A_BASIS);
    return h ? h : 1;
}

int ls_span_is_stmt(const ls_seq_item *st, const ls_seq_item *sp, int64_t res, int64_t slack)
{
    return st->text == sp->text && (!sp->pid || sp->pid == st->pid) &&
           (!st->trace || st->trace == sp->trace) && sp->ts >= st->ts - slack &&
           sp->ts <= st->ts + res + slack;
}

int ls_span_seq_fits(const ls_seq_item *st, size_t n, const ls_seq_item *sp, size_t m,
                     int64_t res, int64_t slack)
{
    size_t i;

    if (m == 0 || m > n)
        return 0;
    for (i = 0; i < m; i++)
        if (!ls_span_is_stmt(&st[i], &sp[i], res, slack))
            return 0;
    return 1;
}

void ls_stmt_time_from_span(int64_t log_ts, int64_t res, int64_t span_start, int64_t span_end,
                            int64_t *start, int64_t *dur)
{
    int64_t s = span_start;

    if (s < log_ts)
        s = log_ts;
    if (s > log_ts + res - 1)
        s = log_ts + res - 1;
    *start = s;
    *dur = span_end > s ? span_end - s : 0;
}
