/*
 * stmtstats.h — the statement rows counted as the store writer writes
 * them (table stmt_stats, logcover_schema.h): one pass over each row, in
 * C, so that no reader counts millions of rows again. Private to the
 * store (store.c holds one ls_stmtstats and writes it at each commit).
 */
#ifndef LS_STMTSTATS_H
#define LS_STMTSTATS_H

#include <stdint.h>

#include "corr_tables.h"  /* stmt_stats and stmt_minutes, declared once */
#include "store_tables.h" /* LS_INSERT_INTO */

/* What was written since the last ls_stmtstats_reset(). */
typedef struct ls_stmtstats {
    int64_t statements; /* logged statement rows (verb not NULL, not a span) */
    int64_t timed;      /* of them with a duration */
    int64_t min_dur_us; /* the shortest of those durations (when timed > 0) */
    int64_t tx_control; /* of them BEGIN, COMMIT or ROLLBACK */
} ls_stmtstats;

/* Adds the sums of `d` to the one row of stmt_stats (id 0): a whole
 * row's INSERT made from the table's declaration (corr_tables.h), each
 * column at LS_PARAM(stmt_stats, col), that adds itself to the row there. */
#define LS_STMT_STATS_ADD_SQL                                                                      \
    LS_INSERT_INTO("INSERT", stmt_stats)                                                           \
    " ON CONFLICT(id) DO UPDATE SET"                                                               \
    " statements = statements + excluded.statements, timed = timed + excluded.timed,"              \
    " min_dur_us = coalesce(min(min_dur_us, excluded.min_dur_us), min_dur_us,"                     \
    " excluded.min_dur_us), tx_control = tx_control + excluded.tx_control"

/* The statement rows written since the last flush, by the minute they
 * began (start_ts / LS_STMT_MINUTE_US), for stmt_minutes
 * (summary_schema.h): a few distinct minutes between two commits, kept
 * in LS_STMT_MINUTES_SLOTS slots; the store writes them when the slots
 * are full and at each commit. */
#define LS_STMT_MINUTE_US 60000000 /* µs in a minute */
#define LS_STMT_MINUTES_SLOTS 32
typedef struct ls_stmtminutes {
    int n; /* slots in use */
    int64_t minute[LS_STMT_MINUTES_SLOTS];
    int64_t statements[LS_STMT_MINUTES_SLOTS];
} ls_stmtminutes;

/* Adds a minute's statements to its row of stmt_minutes, as
 * LS_STMT_STATS_ADD_SQL does. */
#define LS_STMT_MINUTES_ADD_SQL                                                                    \
    LS_INSERT_INTO("INSERT", stmt_minutes)                                                         \
    " ON CONFLICT(minute) DO UPDATE SET statements = statements + excluded.statements"

/* Empties d (nothing written). */
void ls_stmtstats_reset(ls_stmtstats *d);

/*
 * Counts one statement row as stored: verb its LS_VERB_* code (< 0: stored
 * NULL, not counted, as no reader of "verb <> LS_VERB_SPAN" counts it),
 * has_duration whether dur_us is stored, kind the ls_sql_kind of its text.
 */
void ls_stmtstats_add(ls_stmtstats *d, int verb, int has_duration, int64_t dur_us, int kind);

/* 1 when d holds a row to add (ls_stmtstats_add was called since the
 * reset), else 0. */
int ls_stmtstats_pending(const ls_stmtstats *d);

/* Empties m. */
void ls_stmtminutes_reset(ls_stmtminutes *m);

/*
 * Counts one statement row as stored, start_ts its start (LS_TS_NONE:
 * stored NULL, not counted: no minute's reader counts it), in the minute
 * SQL's start_ts / LS_STMT_MINUTE_US names (truncated toward zero, as C's
 * division). Every row is counted whatever its verb, as the report's
 * count of stmt_rows by minute (reports/context.c) counts it. Returns 1
 * when m has no free slot left (the store writes and resets it before
 * the next call), else 0.
 */
int ls_stmtminutes_add(ls_stmtminutes *m, int64_t start_ts);

#endif
