/*
 * stmtstats.c — the statement rows counted as they are written
 * (stmtstats.h).
 */
#include "stmtstats.h"

#include "ls_sqlshape.h"
#include "ls_store.h"

void ls_stmtstats_reset(ls_stmtstats *d)
{
    d->statements = d->timed = d->tx_control = d->min_dur_us = 0;
}

void ls_stmtstats_add(ls_stmtstats *d, int verb, int has_duration, int64_t dur_us, int kind)
{
    if (verb < 0 || verb == LS_VERB_SPAN)
        return;
    d->statements++;
    if (has_duration) {
        if (d->timed == 0 || dur_us < d->min_dur_us)
            d->min_dur_us = dur_us;
        d->timed++;
    }
    if (kind == LS_SQL_BEGIN || kind == LS_SQL_COMMIT || kind == LS_SQL_ROLLBACK)
        d->tx_control++;
}

int ls_stmtstats_pending(const ls_stmtstats *d)
{
    return d->statements > 0;
}
