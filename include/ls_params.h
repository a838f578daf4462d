/*
 * ls_params.h — a query's parameters declared once, by name.
 *
 * The SQL names its parameters (`:tx`, never `?3`), and the query
 * declares them once as an X-macro, in the order the SQL first uses
 * them (SQLite numbers named parameters so, sqlite3_bind_parameter_index).
 * From the list come an enum of their positions and the names' text:
 *
 *     #define TX_STMTS_PARAMS(X, Q) X(Q, session) X(Q, first) X(Q, last)
 *     LS_PARAMS(txs, TX_STMTS_PARAMS);
 *     static const char sql[] = "SELECT ... WHERE session_id = :session"
 *                               " AND stmt_id BETWEEN :first AND :last";
 *     rc = ls_store_prepare_params(s, sql, LS_PARAM_NAMES(TX_STMTS_PARAMS), &q);
 *     ls_stmt_bind_int64(q, LS_PARAM(txs, first), v);
 *
 * declares txs__session = 0, txs__first = 1, txs__last = 2 and
 * txs__nparams = 3; LS_PARAM(txs, first) is the parameter's index (2), a
 * constant, so a bind costs what a numbered one did. ls_store_prepare_params
 * checks once, as it prepares, that the statement's parameters are the
 * list's names in the list's order, no more and no fewer, and fails naming
 * the first that differs: a parameter renamed, added or moved in the SQL
 * without its list (or the other way) fails at its first run, in every
 * test that runs the query. A parameter the SQL uses twice is one index.
 *
 * Parameters that many queries share, each using some of them (the
 * report's filters), are a vocabulary: the same X-macro, prepared with
 * ls_store_prepare_vocab(), which checks that every parameter of the
 * statement is one of the list's names; the binder finds a name's index
 * once per prepared statement with ls_stmt_param(q, "since") (0 when the
 * query has no such parameter), never once per row.
 *
 * The same LS_PARAM(t, col) binds a column of a declared table's INSERT
 * (store_tables.h: LS_TABLE_COLUMNS makes t__col there).
 */
#ifndef LS_PARAMS_H
#define LS_PARAMS_H

#define LS_PARAM_ENUM_(Q, name) Q##__##name,
#define LS_PARAM_NAME_(Q, name) " " #name

/* enum { Q__name..., Q__nparams }: each parameter's position in LIST. */
#define LS_PARAMS(Q, LIST) enum { LIST(LS_PARAM_ENUM_, Q) Q##__nparams }

/* " name1 name2 ...": LIST's names, for ls_store_prepare_params(). */
#define LS_PARAM_NAMES(LIST) LIST(LS_PARAM_NAME_, _)

/* The index (from 1) of parameter `name` of Q, for ls_stmt_bind_*. */
#define LS_PARAM(Q, name) (Q##__##name + 1)

#endif
