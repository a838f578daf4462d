/*
 * bind_errors.h — the transactions pass's errors with the session's
 * statement row logged last before each (transactions.c,
 * bind_failures()), here so that a unit test can check its query plan
 * (test_pass_table.c).
 */
#ifndef LS_BIND_ERRORS_H
#define LS_BIND_ERRORS_H

#include "decide/tolerances.h" /* LS_POS_CANDIDATES_WHOLE, LS_SQL_INT */

/* Whether statement row r's line comes before error x's. */
#define BIND_ERR_BEFORE "(r.file_id < x.file_id OR (r.file_id = x.file_id AND r.line < x.line))"

/*
 * SELECT COLS (of e, an error with its `last` row; l, its error_links
 * row; t, its transaction) for every error of a session with a line, in
 * the order of `last`, then the error's line. `last` is the session's
 * statement row logged last before the error (by log position; of the
 * latest few by start, and those begun within two ticks, :window, of the
 * log's stamps before it), NULL where none is: the reader passes those
 * over. Not a WHERE on it: `e` is flattened into the query, so each
 * mention of e.last is its subquery again, and a WHERE evaluated it a
 * second time for every error (issue 38: 9.3 M of the pass's 92.2 M VM
 * steps on the 1 GiB bench store, half of them that second time).
 */
#define BIND_ERRORS_SQL(COLS)                                                              \
    "SELECT " COLS " FROM (SELECT x.*,"                                                   \
    " (SELECT max(c.stmt_id) FROM (SELECT * FROM (SELECT r.stmt_id FROM stmt_rows r"      \
    "  WHERE r.session_id = x.session_id AND r.start_ts <= x.ts"                          \
    "  AND " BIND_ERR_BEFORE                                                              \
    "  ORDER BY r.start_ts DESC LIMIT " LS_SQL_INT(LS_POS_CANDIDATES_WHOLE) ")"           \
    /* and every row that began within two ticks (:window) before it: a start            \
     * derived as its stamp less its duration puts a bind line of 81 us                   \
     * behind 32 lines of 1 us stamped in the same second                                 \
     * (samples/blind-java, line 3397 before the error at 3669) */                        \
    "  UNION ALL SELECT r.stmt_id FROM stmt_rows r"                                       \
    "  WHERE r.session_id = x.session_id AND r.start_ts <= x.ts AND r.start_ts >= x.ts - :window" \
    "  AND " BIND_ERR_BEFORE ") c) AS last"                                               \
    " FROM errors x WHERE x.session_id IS NOT NULL AND x.file_id IS NOT NULL"            \
    " AND x.line IS NOT NULL) e"                                                          \
    /* every error counts for which came first; only one in a                             \
     * transaction notes a lock */                                                        \
    " LEFT JOIN error_links l ON l.error_id = e.error_id"                                 \
    " LEFT JOIN transactions t ON t.tx_id = l.tx_id"                                      \
    " ORDER BY e.last, e.file_id, e.line"

#endif
