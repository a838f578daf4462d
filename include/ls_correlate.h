/*
 * ls_correlate.h — correlation: from logged lock-wait messages to wait
 * episodes linked to their direct and root blockers.
 *
 * Runs on a store after ingest (ls_store_index done). Rebuilds the derived
 * tables (lock_waits, relations) from the raw ones, so it can run again
 * after more files are ingested.
 */
#ifndef LS_CORRELATE_H
#define LS_CORRELATE_H

#include "ls_progress.h"
#include "ls_store.h"

typedef struct ls_correlate_stats {
    int64_t waits;          /* wait episodes built */
    int64_t linked;         /* with a direct blocker */
    int64_t chained;        /* whose root differs from the direct blocker */
    int64_t root_by_xid;    /* root session found through the awaited xid */
    int64_t transactions;   /* transactions stored (sessions involved, or locking a hot row) */
    int64_t rows;           /* logical rows waited on */
    int64_t holds;          /* (transaction, row) hold intervals */
    int64_t retries;        /* lock errors followed by a retry */
    int64_t hidden_waits;   /* queueing for a hot row the log did not show as a wait */
    int64_t hidden_disagree; /* logged waits their reconstruction got wrong */
    int64_t span_links;     /* transactions linked to a trace span */
    int64_t clock_offset_us; /* database minus application clock, from sqlcommenter links
                              * or the spans of logged waits (spans.c) */
    int64_t span_statements; /* statements taken from database spans (no statement log) */
} ls_correlate_stats;

int ls_correlate(ls_store *store, ls_correlate_stats *stats);

/*
 * The analysis of one report's scope (scope.c), run before the report is
 * built: with a time window (since, until; 0 or LS_TS_NONE: open), TEMP
 * views that show only what overlaps it under the names of the store's
 * views; with a window or a code-path grouping other than the default
 * (group_by NULL: "function"; else route, service, application or
 * statement), that scope's findings decided into temp tables, which the
 * report reads in place of the stored ones. 0, LS_EUSAGE for an unknown
 * grouping, or a store error (then nothing is left behind).
 * ls_correlate_scope_leave() drops them all (0 or a store error).
 */
int ls_correlate_scope_enter(ls_store *store, const char *group_by, int64_t since,
                             int64_t until);
int ls_correlate_scope_leave(ls_store *store);

/*
 * Correlate unless the store already is: the last correlation (by this
 * version of lockspan) came after the last ingest. *ran says which; when
 * the store was reused, stats has only waits, linked and chained, read
 * back from the store. progress (NULL for none) names each pass as it starts.
 */
int ls_correlate_current(ls_store *store, ls_correlate_stats *stats, ls_progress *progress,
                         int *ran);

/*
 * The pass table (correlate.c): each pass in order, what it may write
 * (`owns`: space-separated tables, or "table.column" where it fills in a
 * column of a table it does not own; the store refuses any other write
 * while it runs) and the SQL that clears what it derives (NULL: nothing).
 */
typedef struct ls_correlate_pass {
    const char *name;
    int (*run)(ls_store *, ls_correlate_stats *);
    const char *owns;
    const char *clear;
} ls_correlate_pass;

const ls_correlate_pass *ls_correlate_passes(size_t *n);

#endif
