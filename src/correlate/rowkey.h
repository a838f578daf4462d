/*
 * rowkey.h — which logical row a lock or a statement is about, from every
 * piece of evidence the log gives (see rowkey.c). Pure functions: no
 * store, no globals; correlation (holds.c, transactions.c) feeds them
 * rows of the store.
 */
#ifndef LS_ROWKEY_H
#define LS_ROWKEY_H

#include "decide/rule.h"
#include "ls_sqlshape.h"

/* What the log says about one wait (or one statement). */
typedef struct ls_rowkey_evidence {
    const char *statement; /* the statement: a lock message's STATEMENT, else the logged text */
    const char *params;    /* its DETAIL "parameters: ..." body, or NULL */
    const char *prepare;   /* "PREPARE name(...) AS ..." when statement is EXECUTE, or NULL */
    const char *context;   /* the wait's CONTEXT (function or trigger statement), or NULL */
    const char *relation;  /* the relation PostgreSQL named, or NULL when unknown */
} ls_rowkey_evidence;

/* How rows.grouped_by reads for each kind of evidence. */
#define LS_GROUPED_STATEMENT "key in statement"
#define LS_GROUPED_PARAM "bind parameter"
#define LS_GROUPED_PREPARE "prepared statement (PREPARE text)"
#define LS_GROUPED_CONTEXT "function or trigger statement in CONTEXT"
#define LS_GROUPED_CTID "ctid chain"
#define LS_GROUPED_SHAPE "learned statement shape"
#define LS_GROUPED_HOLDER "holder's own write"

typedef struct ls_rowkey {
    char rel[128];          /* relation (last name component) */
    char key[192];          /* "col=value" */
    const char *grouped_by; /* LS_GROUPED_*, or why no key (a static string) */
    /* When a function's statement names the row by a variable (WHERE id =
     * p_id), the column and the variable, for a learned rule to resolve. */
    char col[64];
    char name[128];
} ls_rowkey;

/*
 * The row the evidence names. Order: the CONTEXT's inner statement (it
 * is the one that locked: a trigger's or function's UPDATE), with its
 * values resolved from the outer statement ($n: the call's arguments;
 * NEW.col: the INSERT's column); then the statement itself (its PREPARE
 * text for an EXECUTE, $n from the bind parameters). A statement about
 * another relation than the one PostgreSQL named is not evidence.
 * Returns 1 with rel, key and grouped_by set; 0 with grouped_by saying
 * why not (and col/name set when a learned rule could still resolve it).
 */
int ls_rowkey_of(const ls_rowkey_evidence *ev, ls_rowkey *out);

/*
 * The row a statement of the log locks by its own text, as the
 * transactions pass keys it: ls_sql_stmt_key() (ls_sqlshape.h, which
 * ingest calls: src/store/ may call only src/common) into out's rel and
 * key, what ls_rowkey_of() gives for (statement, params, prepare) with no
 * CONTEXT and no relation (tests/unit/test_rowkey.c holds them equal).
 * Returns 1 when keyed.
 */
int ls_rowkey_stmt(const char *statement, const ls_row_ref *ref, const char *params,
                   const char *prepare, ls_rowkey *out);

/*
 * The statement of a CONTEXT's `SQL statement "..."` (a function's or
 * trigger's, the one that locked) into dst (size n, cut to fit, always
 * terminated): 1, or 0 when the CONTEXT has none.
 */
int ls_rowkey_context_statement(const char *context, char *dst, size_t n);

/*
 * The statement the server ran: for "EXECUTE name(args)" with its PREPARE
 * text, the prepared body, and the arguments as a "parameters:" body in
 * params_buf. Otherwise the statement and params unchanged.
 */
void ls_rowkey_effective(const char *statement, const char *params, const char *prepare,
                         const char **out_sql,  /* OUT: text to read */
                         const char **out_params, /* OUT: its parameters */
                         char *params_buf, size_t params_len);

/*
 * Learn a rule (decide/rule.h) from a statement whose locked row (rel,
 * "col=value") is known: exactly one of its arguments must equal the
 * value (else no rule: returns 0). Returns 1 with out filled; for an
 * INSERT whose key value is one of its columns, with the relation and
 * column that carry the rule to the other INSERTs into it.
 */
int ls_rowkey_learn(const char *statement, const char *params, const char *rel,
                    const char *key, ls_shape_rule *out);

/*
 * Apply a rule: 1 with rel and key set when ls_rule_match_stmt() says the
 * rule names the statement's row (shape is the statement's, computed by
 * the caller once): it has the rule's shape, or it is an INSERT into the
 * rule's relation that sets the rule's column; whoever sent it.
 */
int ls_rowkey_apply(const ls_shape_rule *rule, const char *shape, const char *statement,
                    const char *params, ls_rowkey *out);

/* The statement's shape as rules keep it (ls_sql_shape, at most n - 1 bytes). */
void ls_rowkey_shape(const char *statement, char *dst, size_t n);

/*
 * A waiter and the holder of its row both called functions that lock it
 * (withdraw(7, 5) waiting behind deposit(7, 100)): the one argument value
 * the two calls share is the row's key, in column `col`. Returns 1 with
 * key set ("col=value") when exactly one value is shared, else 0.
 */
int ls_rowkey_shared_arg(const char *waiter_sql, const char *waiter_params,
                         const char *holder_sql, const char *holder_params, const char *col,
                         char *key, size_t keylen);

#endif
