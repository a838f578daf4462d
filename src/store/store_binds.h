/*
 * store_binds.h — a statement's parameters bound by name, every bind
 * checked: the store's writers (store.c) bind a row of a table declared in
 * store_tables.h column by column, `bind_int64(&b, stmt_rows__line, v)`,
 * and the first failed bind's code is kept and returned by binds_step(),
 * which then does not step the statement (as ls_stmt_bind_* keep it for
 * ls_stmt_step, ls_store.h). Included by store.c alone (and its unit
 * test): it names sqlite3 types.
 */
#ifndef LS_STORE_BINDS_H
#define LS_STORE_BINDS_H

#include <stdint.h>
#include <string.h>

#include <sqlite3.h>

#include "ls_common.h" /* ls_ts, LS_TS_NONE */

/*
 * The binds of one statement: column or parameter `col` (t__col of
 * store_tables.h, or a statement's own parameter enum) at parameter
 * base + col + 1, base being the parameters of the rows before (row k of
 * a multi-row INSERT of t at k * t__ncols). The first failed bind's code
 * is kept (sticky, as ls_stmt's bind_rc) and the statement is then not
 * stepped: binds_step() returns it.
 */
typedef struct binds {
    sqlite3_stmt *st;
    int base;
    int rc; /* SQLITE_OK, or the first failed bind's code */
} binds;

static inline binds binds_of(sqlite3_stmt *st)
{
    binds b = {st, 0, SQLITE_OK};
    return b;
}

static inline void keep_rc(binds *b, int rc)
{
    if (b->rc == SQLITE_OK)
        b->rc = rc;
}

static inline void bind_int64(binds *b, int col, int64_t v)
{
    keep_rc(b, sqlite3_bind_int64(b->st, b->base + col + 1, v));
}

static inline void bind_double(binds *b, int col, double v)
{
    keep_rc(b, sqlite3_bind_double(b->st, b->base + col + 1, v));
}

static inline void bind_null(binds *b, int col)
{
    keep_rc(b, sqlite3_bind_null(b->st, b->base + col + 1));
}

/* n bytes of v, which lives until the statement is reset (SQLITE_STATIC). */
static inline void bind_text_n(binds *b, int col, const char *v, size_t n)
{
    keep_rc(b, sqlite3_bind_text64(b->st, b->base + col + 1, v, n, SQLITE_STATIC, SQLITE_UTF8));
}

/* A C string, or NULL; v lives until the statement is reset. */
static inline void bind_text(binds *b, int col, const char *v)
{
    if (v)
        bind_text_n(b, col, v, strlen(v));
    else
        bind_null(b, col);
}

/* A C string copied now (SQLITE_TRANSIENT). */
static inline void bind_text_copy(binds *b, int col, const char *v)
{
    keep_rc(b, sqlite3_bind_text(b->st, b->base + col + 1, v, -1, SQLITE_TRANSIENT));
}

static inline void bind_blob(binds *b, int col, const void *v, size_t n)
{
    keep_rc(b, sqlite3_bind_blob64(b->st, b->base + col + 1, v, n, SQLITE_STATIC));
}

static inline void bind_ts(binds *b, int col, ls_ts v)
{
    if (v == LS_TS_NONE)
        bind_null(b, col);
    else
        bind_int64(b, col, v);
}

static inline void bind_pos(binds *b, int col, int64_t v)
{
    if (v > 0)
        bind_int64(b, col, v);
    else
        bind_null(b, col);
}

/* v when `present`, else NULL. */
static inline void bind_if(binds *b, int col, int present, int64_t v)
{
    if (present)
        bind_int64(b, col, v);
    else
        bind_null(b, col);
}

/* Step the statement of `b` once and reset it, its parameters kept:
 * SQLITE_DONE or SQLITE_ROW, else an error code, a failed bind's without
 * a step. For a write, whose one step is all of it. */
static inline int binds_step(const binds *b)
{
    int rc;
    if (b->rc != SQLITE_OK) {
        sqlite3_reset(b->st);
        return b->rc;
    }
    rc = sqlite3_step(b->st);
    sqlite3_reset(b->st);
    return rc;
}

/* The first step of a query whose parameters `b` bound: SQLITE_ROW,
 * SQLITE_DONE, else an error code (a failed bind's, unstepped). */
static inline int step_binds(const binds *b)
{
    return b->rc != SQLITE_OK ? b->rc : sqlite3_step(b->st);
}

#endif
