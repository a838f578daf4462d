/*
 * textcache.h — statement texts by text_id, kept for the transactions
 * pass (transactions.c stmt_text_of): a direct-mapped cache of
 * LS_TEXT_CACHE_SLOTS slots, a text_id's slot its low bits. A slot holds
 * one text_id's text at a time; another id of the same slot replaces it.
 * Pure: the caller reads a missing text from the store and fills the
 * slot. No store, no I/O.
 */
#ifndef LS_TEXT_CACHE_H
#define LS_TEXT_CACHE_H

#include <stdint.h>

#include "ls_sqlshape.h"

#define LS_TEXT_CACHE_SLOTS 256 /* a power of two */

typedef struct ls_text_slot {
    int64_t text_id;
    char *text; /* NULL: a free slot */
    ls_sql_kind kind;
} ls_text_slot;

typedef struct ls_text_cache {
    ls_text_slot v[LS_TEXT_CACHE_SLOTS];
} ls_text_cache;

/*
 * The slot of text_id `id` in c, in *slot. Returns 1 when it holds id's
 * text (read it there), 0 when it is free or holds another id's (the
 * caller reads id's text and ls_text_cache_fill()s the slot).
 */
int ls_text_cache_find(ls_text_cache *c, int64_t id, ls_text_slot **slot);

/*
 * Put a copy of id's text (and its kind, ls_sql_kind_of) in slot e, in
 * place of what it held. 0, or LS_ENOMEM (e unchanged).
 */
int ls_text_cache_fill(ls_text_slot *e, int64_t id, const char *text);

/* Free every text of c (its slots are then free). */
void ls_text_cache_free(ls_text_cache *c);

#endif
