/*
 * ls_sqlshape.h — what correlation needs to know about a SQL statement's
 * text, without parsing SQL: its kind (BEGIN, COMMIT, a write, ...), its
 * shape (literals replaced, for grouping and retry detection) and the row
 * it addresses by key (`UPDATE accounts ... WHERE id = 1` → accounts,
 * id=1; `$1` resolved from the logged bind parameters).
 */
#ifndef LS_SQLSHAPE_H
#define LS_SQLSHAPE_H

#include <stddef.h>

#include "ls_buf.h"

typedef enum ls_sql_kind {
    LS_SQL_OTHER = 0,
    LS_SQL_BEGIN,     /* BEGIN, START TRANSACTION */
    LS_SQL_COMMIT,    /* COMMIT, END, COMMIT PREPARED */
    LS_SQL_ROLLBACK,  /* ROLLBACK, ABORT (not ROLLBACK TO SAVEPOINT) */
    LS_SQL_WRITE,     /* INSERT, UPDATE, DELETE, MERGE, SELECT ... FOR UPDATE/SHARE, LOCK */
    LS_SQL_READ       /* SELECT, WITH ... without a locking clause */
} ls_sql_kind;

const char *ls_sql_kind_name(ls_sql_kind k);

/* The statement's kind from its text (comments and case ignored). */
ls_sql_kind ls_sql_kind_of(const char *sql);

/*
 * Append the statement's shape to `out`: comments dropped, literals
 * (numbers, strings, $n, TRUE/FALSE/NULL kept) replaced by ?, IN lists of
 * literals folded to (?), whitespace folded, keywords and identifiers
 * lower-cased outside quotes, at most `max` bytes.
 */
int ls_sql_shape(ls_buf *out, const char *sql, size_t max);

/*
 * The row a single-row statement addresses: relation (last name component,
 * unquoted) and "column=value" of the first equality in its WHERE clause
 * whose right side is a literal or a $n parameter resolved from `params`
 * (a DETAIL "parameters: $1 = '1', ..." text, may be NULL). Returns 1 when
 * both were found, 0 otherwise (outputs are then empty strings).
 */
int ls_sql_row_key(const char *sql, const char *params, char *rel, size_t rellen, char *key,
                   size_t keylen);

/* How a statement names the row it addresses, before any value is bound. */
typedef enum ls_ref_kind {
    LS_REF_NONE = 0,
    LS_REF_LITERAL, /* WHERE id = 7: value holds "7" */
    LS_REF_PARAM,   /* WHERE id = $2: param holds 2 */
    LS_REF_FIELD,   /* WHERE id = NEW.account_id (a trigger): value holds the column */
    LS_REF_NAME     /* WHERE id = p_id (a PL/pgSQL variable): value holds the name */
} ls_ref_kind;

typedef struct ls_row_ref {
    char rel[128];      /* relation, last name component */
    char col[64];       /* key column */
    ls_ref_kind kind;
    char value[128];
    int param;
} ls_row_ref;

/*
 * The row a single-row statement addresses, with its value unresolved:
 * the same rule as ls_sql_row_key(). Returns 1 when found (out filled),
 * 0 otherwise (out zeroed).
 */
int ls_sql_row_ref(const char *sql, ls_row_ref *out);

/*
 * The "col=value" key of a reference: a literal as is, a $n from `params`
 * (a DETAIL "parameters: ..." body, may be NULL). Returns 1 when bound.
 */
int ls_sql_ref_key(const ls_row_ref *ref, const char *params, char *key, size_t keylen);

/*
 * The statement whose row an EXECUTE locks: with its PREPARE text
 * (`prepare`, DETAIL "prepare: PREPARE name(...) AS body"), the body, its
 * $n the EXECUTE's arguments (written into params_buf); any other
 * statement is itself, with its own params.
 */
void ls_sql_effective(const char *statement, const char *params, const char *prepare,
                      const char **out_sql, const char **out_params, char *params_buf,
                      size_t params_len);

/*
 * The (relation, "col=value") key a statement of the log names its row
 * by (issue 38: ingest decides it for tx_keys as it writes the
 * statement): its effective statement's ls_sql_row_ref() and
 * ls_sql_ref_key(), as correlation reads a statement with no CONTEXT.
 * Without prepare, `ref` is the statement's reference, decided once per
 * text (NULL: it has none) and `statement` is not read; with prepare, the
 * PREPARE body is parsed here and ref is not read. Returns 1 when keyed;
 * rel and key are then filled, truncated to their lengths.
 */
int ls_sql_stmt_key(const char *statement, const ls_row_ref *ref, const char *params,
                    const char *prepare, char *rel, size_t rellen, char *key, size_t keylen);

#define LS_SQL_MAX_ARGS 32

typedef struct ls_sql_arg {
    char value[64]; /* literal text, quotes removed; "" for an unbound $n */
    char col[64];   /* the column it is assigned or compared to, if known */
    int bound;
} ls_sql_arg;

typedef struct ls_sql_args {
    int n;
    ls_sql_arg v[LS_SQL_MAX_ARGS];
} ls_sql_args;

/*
 * The literal arguments of a statement in text order ($n resolved from
 * `params`): a function call's arguments, an INSERT's values (with their
 * columns), SET and WHERE values (with the column before '='). At most
 * LS_SQL_MAX_ARGS. Returns out->n.
 */
int ls_sql_args_of(const char *sql, const char *params, ls_sql_args *out);

/*
 * The relation a writing statement writes (UPDATE t, INSERT INTO t,
 * DELETE FROM t, SELECT ... FROM t ... FOR UPDATE, LOCK t): last name
 * component, unquoted. Returns 1 when found.
 */
int ls_sql_relation(const char *sql, char *rel, size_t rellen);

/*
 * The one table a statement locks as a whole, to name a relation lock's
 * OID by: what ls_sql_relation() gives, ALTER TABLE t, CREATE INDEX ... ON
 * t, TRUNCATE t, DROP TABLE t, VACUUM/ANALYZE/CLUSTER t, REINDEX TABLE t,
 * and a SELECT ... FROM t that reads no other relation (no JOIN, no second
 * FROM item, no subquery). Last name component, unquoted. Returns 1 when
 * found, 0 for a statement of another kind or one that names several.
 */
int ls_sql_table_of(const char *sql, char *rel, size_t rellen);

/*
 * The one table whose row locks a statement's tuple-lock wait can be on,
 * to name a tuple lock's OID by: a SELECT ... FROM t ... FOR UPDATE/SHARE
 * that reads no other relation (ls_sql_table_of()). It fires no trigger,
 * so its tuple locks are t's; UPDATE and DELETE are left out (a trigger
 * may lock another table's rows). Last name component, unquoted. Returns
 * 1 when found.
 */
int ls_sql_row_lock_table(const char *sql, char *rel, size_t rellen);

/*
 * Does the statement increment a column, as "UPDATE t SET n = n + 1"
 * does? An assignment of its SET list (to WHERE, FROM or RETURNING,
 * outside parentheses and quotes) has a '+' in its expression, and
 * assigns a column other than an ORM's row version ("version",
 * "lock_version", ...: TypeORM's `"version" = "version" + 1` beside the
 * columns an update sets counts nothing). 1 or 0.
 */
int ls_sql_increments(const char *sql);

/*
 * Does the statement lock its rows in a shared mode only: a SELECT (WITH,
 * TABLE, VALUES) whose locking clauses are all FOR SHARE or FOR KEY SHARE
 * (outside quotes and comments)? Two such holds of a row may overlap in
 * time; an UPDATE, a DELETE, FOR UPDATE, FOR NO KEY UPDATE and any other
 * statement are taken as exclusive. 1 or 0.
 */
int ls_sql_shared_lock(const char *sql);

#endif
