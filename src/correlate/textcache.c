/*
 * textcache.c — statement texts by text_id (textcache.h).
 */
#include "textcache.h"

#include <stdlib.h>

#include "ls_common.h"

int ls_text_cache_find(ls_text_cache *c, int64_t id, ls_text_slot **slot)
{
    ls_text_slot *e = &c->v[(uint64_t)id & (LS_TEXT_CACHE_SLOTS - 1)];

    *slot = e;
    return e->text != NULL && e->text_id == id;
}

int ls_text_cache_fill(ls_text_slot *e, int64_t id, const char *text)
{
    char *copy = ls_strdup(text);

    if (!copy)
        return LS_ENOMEM;
    free(e->text);
    e->text = copy;
    e->text_id = id;
    e->kind = ls_sql_kind_of(copy);
    return 0;
}

void ls_text_cache_free(ls_text_cache *c)
{
    size_t i;

    for (i = 0; i < LS_TEXT_CACHE_SLOTS; i++) {
        free(c->v[i].text);
        c->v[i].text = NULL;
    }
}
