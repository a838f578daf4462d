/*
 * rowmake.h — a logical row made where no lock message made one: the
 * quiet rows (quiet.c), a threshold log's slow-locker rows (slowkeys.c)
 * and the rows of unlogged locking spans (spanqueue.c) each add a row
 * (relation, key) to row_keys unless it is there already (a logged
 * wait's, or one an earlier step made). One check and one INSERT for
 * the three (issue 33), prepared once per step.
 */
#ifndef LS_ROWMAKE_H
#define LS_ROWMAKE_H

#include <stdint.h>

#include "ls_store.h"

typedef struct ls_rowmake {
    ls_stmt *exists, *ins;
} ls_rowmake;

/* The row to make. Its waits are 0 (no wait logged); only a slow-locker
 * row has wait figures (bounds 1: total_wait_ms to last_ts, slowkeys.c),
 * the others leave them NULL. */
typedef struct ls_rowmake_row {
    const char *rel, *key;  /* row_keys.relation, row_key */
    const char *evidence;   /* row_keys.evidence */
    const char *grouped_by; /* row_keys.grouped_by */
    int bounds;
    double total_wait_ms, max_wait_ms;
    int64_t first_ts, last_ts;
} ls_rowmake_row;

/* Prepares the two statements on s; ls_rowmake_close() frees them (also
 * after a failure here). */
int ls_rowmake_open(ls_store *s, ls_rowmake *rm);

/* Adds r unless row_keys has (r->rel, r->key) already; *made 1 when it
 * added it, else 0. Negative code on a failure. */
int ls_rowmake_add(ls_rowmake *rm, const ls_rowmake_row *r, int *made);

void ls_rowmake_close(ls_rowmake *rm);

#endif
