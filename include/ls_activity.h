/*
 * ls_activity.h — one row of a pg_stat_activity snapshot saved during an
 * incident (see README "Snapshots of pg_stat_activity" for the query).
 *
 * The activity parser hands each row to the sink's activity() callback;
 * strings are owned by the parser and valid during the callback only.
 */
#ifndef LS_ACTIVITY_H
#define LS_ACTIVITY_H

#include "ls_common.h"

typedef struct ls_activity {
    const char *file;
    uint64_t line;
    ls_ts ts;                    /* now() of the snapshot */
    int pid;
    const char *state;           /* active, idle, idle in transaction, ... */
    const char *wait_event_type; /* Lock, Client, IO, IPC, ... or NULL */
    const char *wait_event;      /* transactionid, tuple, ClientRead, WalSync, ... */
    ls_ts xact_start, query_start, backend_start;
    const char *blocking_pids;   /* pg_blocking_pids() as "1,2" ("" when none) */
    const char *query;
} ls_activity;

#endif
