/*
 * errstmt.c — which statement an error line belongs to (errstmt.h).
 */
#include "errstmt.h"

int ls_line_separates(ls_logpos wait_end, ls_logpos err, ls_logpos line)
{
    if (!ls_logpos_known(line))
        return 0;
    return ls_logpos_cmp(wait_end, line) < 0 && ls_logpos_cmp(line, err) < 0;
}

int ls_error_ended_wait_stmt(ls_logpos wait_end, ls_logpos err, const ls_logpos *lines, size_t n)
{
    size_t i;

    if (!ls_logpos_known(wait_end) || !ls_logpos_known(err))
        return -1;
    if (ls_logpos_cmp(wait_end, err) >= 0)
        return 0;
    for (i = 0; i < n; i++)
        if (ls_line_separates(wait_end, err, lines[i]))
            return 0;
    return 1;
}

int ls_error_tx(const ls_tx_candidate *c, size_t n, ls_logpos err)
{
    size_t i;
    int best = -1;

    if (n == 0)
        return -1;
    if (ls_logpos_known(err))
        for (i = 0; i < n; i++) {
            if (!ls_logpos_known(c[i].first) || ls_logpos_cmp(c[i].first, err) > 0)
                continue;
            if (best < 0 || ls_logpos_cmp(c[i].first, c[best].first) > 0)
                best = (int)i;
        }
    if (best < 0) {
        /* no position to go by: the latest begun whose position is
         * unknown (one known to begin after the error is not its) */
        for (i = 0; i < n; i++)
            if (!ls_logpos_known(err) || !ls_logpos_known(c[i].first))
                break;
        if (i == n)
            return -1;
        best = (int)i;
    }
    if (!c[best].open) {
        /* A transaction rebuilt from trace spans has no line: one open
         * then is the error's (a pooled backend's deadlock victim whose
         * statements the log does not have, spans.c), the first in c. */
        for (i = 0; i < n; i++)
            if (!ls_logpos_known(c[i].first) && c[i].open)
                return (int)i;
        return -1;
    }
    return best;
}

int ls_error_ended_bind(ls_last_line last, int first, int64_t bind_ts, int64_t error_ts)
{
    return last == LS_LAST_BIND && first && bind_ts <= error_ts;
}
