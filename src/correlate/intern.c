/*
 * intern.c — texts that many derived rows share (a statement shape, an
 * order of relations, how a hold's bounds were found), stored once in a
 * table of their own and referred to by id.
 *
 * The texts seen last are kept here by hash and compared in full, so that
 * most rows cost no lookup in the store; a text not kept is looked up, and
 * stored when the table does not have it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "correlate_int.h"
#include "ls_columns.h"
#include "ls_params.h"

/* Both statements take the text, :text. */
#define INTERN_PARAMS(X, Q) X(Q, text)
LS_PARAMS(inp, INTERN_PARAMS);

int ls_intern_open(ls_store *s, ls_interner *in, const char *table, const char *id_col,
                   const char *text_col)
{
    char sql[160];
    int rc;
    memset(in, 0, sizeof(*in));
    snprintf(sql, sizeof(sql), "SELECT %s FROM %s WHERE %s = :text", id_col, table, text_col);
    if ((rc = ls_store_prepare_params(s, sql, LS_PARAM_NAMES(INTERN_PARAMS), &in->find)) != 0)
        return rc;
    snprintf(sql, sizeof(sql), "INSERT INTO %s(%s) VALUES (:text) RETURNING %s", table, text_col,
             id_col);
    return ls_store_prepare_params(s, sql, LS_PARAM_NAMES(INTERN_PARAMS), &in->add);
}

void ls_intern_close(ls_interner *in)
{
    int i;
    for (i = 0; i < LS_INTERN_SLOTS; i++)
        free(in->slot[i].text);
    ls_stmt_finalize(in->find);
    ls_stmt_finalize(in->add);
    memset(in, 0, sizeof(*in));
}

int ls_intern(ls_interner *in, const char *text, int64_t *id)
{
    struct ls_intern_slot *sl = &in->slot[ls_quick_hash(text, strlen(text)) % LS_INTERN_SLOTS];
    ls_stmt *st = in->find;
    int rc;

    if (sl->text && strcmp(sl->text, text) == 0) {
        *id = sl->id;
        return 0;
    }
    ls_stmt_reset(st);
    ls_stmt_bind_text(st, LS_PARAM(inp, text), text);
    if ((rc = ls_stmt_step(st)) == 0) { /* a new text */
        st = in->add;
        ls_stmt_reset(st);
        ls_stmt_bind_text(st, LS_PARAM(inp, text), text);
        rc = ls_stmt_step(st);
    }
    if (rc != 1)
        return rc < 0 ? rc : LS_ESTORE;
    *id = ls_stmt_int64(st, LS_ONLY_COLUMN);
    ls_stmt_reset(st);
    free(sl->text);
    if ((sl->text = ls_strdup(text)) == NULL)
        return LS_ENOMEM;
    sl->id = *id;
    return 0;
}
