/*
 * correlate_int.h — the passes of correlation, run in order by
 * ls_correlate() (correlate.c), each on the store inside one transaction.
 */
#ifndef LS_CORRELATE_INT_H
#define LS_CORRELATE_INT_H

#include "ls_correlate.h"

/* transactions.c: rebuild the transactions of the sessions involved in
 * waits, deadlocks and errors, and link waits, errors and deadlock
 * participants to them; find the retries after lock errors. */
int ls_correlate_transactions(ls_store *s, ls_correlate_stats *stats);
int ls_correlate_retries(ls_store *s, ls_correlate_stats *stats);

/* holds.c: logical rows (ctids joined by key), hold intervals of the
 * transactions that held them, queue depth over time, row statistics. */
int ls_correlate_rows(ls_store *s, ls_correlate_stats *stats);
int ls_correlate_holds(ls_store *s, ls_correlate_stats *stats);
int ls_correlate_queue(ls_store *s);

/* traces.c: code paths of transactions (traces, sqlcommenter tags,
 * application names, statement shapes) and hold breakdowns. */
int ls_correlate_traces(ls_store *s, ls_correlate_stats *stats);

#endif
