/*
 * format.c — numbers as people write them, shared by the renderers
 * (markdown.c, html.c): "350 ms", "78.1 s", "1 h 02 min".
 */
#include <math.h>
#include <stdio.h>

#include "render_int.h"

/*
 * A duration in milliseconds, rounded to what a reader compares:
 * under 10 ms one decimal, under 1 s whole ms, under 10 min seconds with
 * one decimal ("78.1 s" compares at a glance with "350 ms"), under an hour
 * "M min SS s", above that "H h MM min". Negative or
 * non-finite values (a model hole) print as "—".
 */
const char *ls_fmt_duration(char *buf, size_t n, double ms)
{
    if (!isfinite(ms) || ms < 0) {
        snprintf(buf, n, "—");
    } else if (ms < 10) {
        snprintf(buf, n, "%.1f ms", ms);
    } else if (ms < 999.5) {
        snprintf(buf, n, "%.0f ms", ms);
    } else if (ms < 599950) {
        snprintf(buf, n, "%.1f s", ms / 1000);
    } else if (ms < 3599500) {
        long long s = llround(ms / 1000);
        snprintf(buf, n, "%lld min %02lld s", s / 60, s % 60);
    } else {
        long long m = llround(ms / 60000);
        snprintf(buf, n, "%lld h %02lld min", m / 60, m % 60);
    }
    return buf;
}
