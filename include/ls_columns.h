/*
 * ls_columns.h — a query's result columns declared once, by name.
 *
 * A query that is read column by column declares its SELECT list as an
 * X-macro: each entry a name and the SQL expression. From it come the
 * SELECT list's text and an enum of the columns' positions, so that the
 * code reads `ls_stmt_int64(q, hq_start_ts)`, never a literal position,
 * and a column added or moved in the list moves its reader with it:
 *
 *     #define HOLD_COLS(X, Q)              \
 *         X(Q, tx_id, "h.tx_id")           \
 *         X(Q, start_ts, "h.start_ts")
 *     LS_COLUMNS(hq, HOLD_COLS);
 *     static const char holds_sql[] =
 *         "SELECT " LS_SELECT_LIST(hq, HOLD_COLS) " FROM holds h ORDER BY 2";
 *
 * declares hq_tx_id = 0, hq_start_ts = 1 and hq__ncols = 2, and selects
 * "h.tx_id, h.start_ts, NULL": the list ends with a NULL column of its own
 * (position hq__ncols) so that every entry can end with a comma; the
 * positions of the declared columns are those of the list, so ORDER BY n
 * and GROUP BY n count as in the text.
 *
 * A query of one column (a count, an id, a flag) needs no list: its
 * readers read LS_ONLY_COLUMN, never a literal position
 * (tests/e2e/check_layers.py fails on `ls_stmt_int64(q, 0)`).
 *
 * The same list can be selected under other queries' conditions (reuse
 * the macro with another Q), and an entry's expression may hold bound
 * parameters (?N).
 */
#ifndef LS_COLUMNS_H
#define LS_COLUMNS_H

/* The position of the one column of a query of one column. */
#define LS_ONLY_COLUMN 0

#define LS_COLUMN_ENUM_(Q, name, expr) Q##_##name,
#define LS_COLUMN_SQL_(Q, name, expr) expr ", "

/* enum { Q_name..., Q__ncols }: the position of each column of LIST. */
#define LS_COLUMNS(Q, LIST) enum { LIST(LS_COLUMN_ENUM_, Q) Q##__ncols }

/* "expr, expr, ..., NULL": LIST's SELECT list (Q as given to LS_COLUMNS). */
#define LS_SELECT_LIST(Q, LIST) LIST(LS_COLUMN_SQL_, Q) "NULL"

#endif
