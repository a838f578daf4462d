/*
 * ls_keypack.h — the row keys of a run of statements, packed into one
 * value (issue 38: tx_keys, a row per few thousand bytes of keys, not one per
 * statement: a row of its own each cost ingest about 10 % of its CPU on the
 * pgbench bench log).
 *
 * Each entry is its numbers in decimal, each followed by a space, then
 * rel's and key's bytes (any byte but NUL may be in them). The numbers:
 * stmt_id, start_ts and line less those of the entry before in the same
 * value (none for the first), session_id, end_ts - start_ts or '-' (no
 * end), file_id, the length of rel (0: the entry before's rel) and of
 * key. A pgbench key is about 41 bytes an entry so, 81 in full.
 * Written by the store (store.c key_row()), read by the transactions pass
 * (transactions.c).
 */
#ifndef LS_KEYPACK_H
#define LS_KEYPACK_H

#include <stdint.h>

#include "ls_buf.h"

typedef struct ls_keypack_entry {
    int64_t stmt_id, session_id;
    int64_t start_ts; /* 0 when the statement has none (as the pass read NULL) */
    int64_t end_ts;   /* when has_end */
    int has_end;
    int64_t file_id, line;
    char rel[128], key[192]; /* as ls_rowkey's */
} ls_keypack_entry;

/* Append e to b, after entry `prev` (NULL: e is the value's first): 0,
 * or b's error (LS_ENOMEM). */
int ls_keypack_add(ls_buf *b, const ls_keypack_entry *prev, const ls_keypack_entry *e);

/* The entry at p (before end), after entry `prev` (NULL: the value's
 * first; may be e itself), into *e; the next entry's start, or NULL when
 * p holds no whole entry (end: p == end; else malformed). */
const char *ls_keypack_next(const char *p, const char *end, const ls_keypack_entry *prev,
                            ls_keypack_entry *e);

#endif
