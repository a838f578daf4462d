/*
 * stmtstats.h — the statement rows counted as the store writer writes
 * them (table stmt_stats, logcover_schema.h): one pass over each row, in
 * C, so that no reader counts millions of rows again. Private to the
 * store (store.c holds one ls_stmtstats and writes it at each commit).
 */
#ifndef LS_STMTSTATS_H
#define LS_STMTSTATS_H

#include <stdint.h>

/* What was written since the last ls_stmtstats_reset(). */
typedef struct ls_stmtstats {
    int64_t statements; /* logged statement rows (verb not NULL, not a span) */
    int64_t timed;      /* of them with a duration */
    int64_t min_dur_us; /* the shortest of those durations (when timed > 0) */
    int64_t tx_control; /* of them BEGIN, COMMIT or ROLLBACK */
} ls_stmtstats;

/* Adds the sums of `d` to the one row of stmt_stats: ?1 statements,
 * ?2 timed, ?3 min_dur_us (NULL: none), ?4 tx_control. */
#define LS_STMT_STATS_ADD_SQL                                                          \
    "INSERT INTO stmt_stats(id, statements, timed, min_dur_us, tx_control)"            \
    " VALUES (0, ?1, ?2, ?3, ?4) ON CONFLICT(id) DO UPDATE SET"                        \
    " statements = statements + excluded.statements, timed = timed + excluded.timed,"  \
    " min_dur_us = coalesce(min(min_dur_us, excluded.min_dur_us), min_dur_us,"         \
    " excluded.min_dur_us), tx_control = tx_control + excluded.tx_control"

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

#endif
