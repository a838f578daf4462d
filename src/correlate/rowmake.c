/*
 * rowmake.c — a logical row made where no lock message made one
 * (rowmake.h).
 */
#include <string.h>

#include "corr_tables.h"
#include "ls_params.h"
#include "rowmake.h"
#include "store_sql.h"

#define EXISTS_PARAMS(X, Q) X(Q, relation) X(Q, row_key)
LS_PARAMS(rmx, EXISTS_PARAMS);
static const char exists_sql[] =
    "SELECT 1 FROM row_keys WHERE relation = :relation AND row_key = :row_key";
LS_TABLE_COLUMNS(row_keys);
static const char insert_sql[] = LS_INSERT_INTO("INSERT OR IGNORE", row_keys);

int ls_rowmake_open(ls_store *s, ls_rowmake *rm)
{
    int rc;
    memset(rm, 0, sizeof(*rm));
    if ((rc = ls_store_prepare_params(s, exists_sql, LS_PARAM_NAMES(EXISTS_PARAMS), &rm->exists)) !=
            0 ||
        (rc = ls_store_prepare(s, insert_sql, &rm->ins)) != 0)
        return rc;
    return 0;
}

/* A wait figure of a slow-locker row, else NULL. */
static int bind_real(ls_stmt *st, int idx, int given, double v)
{
    return given ? ls_stmt_bind_double(st, idx, v) : ls_stmt_bind_null(st, idx);
}

static int bind_int(ls_stmt *st, int idx, int given, int64_t v)
{
    return given ? ls_stmt_bind_int64(st, idx, v) : ls_stmt_bind_null(st, idx);
}

int ls_rowmake_add(ls_rowmake *rm, const ls_rowmake_row *r, int *made)
{
    ls_stmt *ins = rm->ins;
    int rc;

    *made = 0;
    ls_stmt_reset(rm->exists);
    if ((rc = ls_stmt_bind_text(rm->exists, LS_PARAM(rmx, relation), r->rel)) != 0 ||
        (rc = ls_stmt_bind_text(rm->exists, LS_PARAM(rmx, row_key), r->key)) != 0)
        return rc;
    rc = ls_stmt_step(rm->exists);
    ls_stmt_reset(rm->exists);
    if (rc != 0)
        return rc < 0 ? rc : 0; /* a row already */
    ls_stmt_reset(ins);
    if ((rc = ls_stmt_bind_text(ins, LS_PARAM(row_keys, relation), r->rel)) != 0 ||
        (rc = ls_stmt_bind_text(ins, LS_PARAM(row_keys, row_key), r->key)) != 0 ||
        (rc = ls_stmt_bind_text(ins, LS_PARAM(row_keys, evidence), r->evidence)) != 0 ||
        (rc = ls_stmt_bind_text(ins, LS_PARAM(row_keys, grouped_by), r->grouped_by)) != 0 ||
        (rc = ls_stmt_bind_int64(ins, LS_PARAM(row_keys, waits), 0)) != 0 ||
        (rc = bind_real(ins, LS_PARAM(row_keys, total_wait_ms), r->bounds, r->total_wait_ms)) !=
            0 ||
        (rc = bind_real(ins, LS_PARAM(row_keys, max_wait_ms), r->bounds, r->max_wait_ms)) != 0 ||
        (rc = bind_int(ins, LS_PARAM(row_keys, first_ts), r->bounds, r->first_ts)) != 0 ||
        (rc = bind_int(ins, LS_PARAM(row_keys, last_ts), r->bounds, r->last_ts)) != 0 ||
        (rc = ls_stmt_step(ins)) < 0)
        return rc;
    *made = 1;
    return 0;
}

void ls_rowmake_close(ls_rowmake *rm)
{
    ls_stmt_finalize(rm->exists);
    ls_stmt_finalize(rm->ins);
    rm->exists = rm->ins = NULL;
}
