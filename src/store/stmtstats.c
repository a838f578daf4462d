/*
 * stmtstats.c — the statement rows counted as they are written
 * and by the minute they began (stmtstats.h).
 */
#include "stmtstats.h"

#include "ls_common.h"

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

void ls_stmtminutes_reset(ls_stmtminutes *m)
{
    m->n = 0;
}

int ls_stmtminutes_add(ls_stmtminutes *m, int64_t start_ts)
{
    int64_t minute;
    int i;

    if (start_ts == LS_TS_NONE)
        return m->n == LS_STMT_MINUTES_SLOTS;
    minute = start_ts / LS_STMT_MINUTE_US;
    /* a run of statements shares its minute: the last slot first */
    for (i = m->n; i-- > 0;)
        if (m->minute[i] == minute) {
            m->statements[i]++;
            return m->n == LS_STMT_MINUTES_SLOTS;
        }
    m->minute[m->n] = minute;
    m->statements[m->n++] = 1;
    return m->n == LS_STMT_MINUTES_SLOTS;
}
