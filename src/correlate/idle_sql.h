/*
 * idle_sql.h — the evidence of a lower bound of a hold's idle from
 * the waits on its transaction (issue 34), as SQL over the store's views,
 * for the idle rule (src/correlate/findings_sum.c); the bound itself is
 * decided by src/correlate/decide/idlegap.c ls_idle_at_least_waited.
 *
 * LS_IDLE_WAITED_SQL(h): the longest time a wait queued on hold h's
 * transaction for its row had waited at a line logged before the line of
 * h's transaction's last statement (its "still waiting ... after", or
 * when that came first its closing line's "acquired" or "detected
 * deadlock ... after": an error's end, a lock timeout's, gives no
 * `after`, its wait on a whole-second log is from stamps); NULL when
 * none. LS_IDLE_BUSY_SQL(h): the whole durations (bind and parse
 * included) of h's statements from the one that took the row to its
 * last; NULL when one has none or failed, or the session logged an error
 * between them (a statement that failed, a deadlock victim's, waited,
 * and its time is not known), when the statement that took the row is
 * not logged, or when the log may miss statements (logcover's verdict
 * not complete: under log_min_duration_statement the holder's short
 * statements are not logged, and its last logged statement may be one
 * that waited itself, samples/blind-rb's SELECT FOR UPDATE accounts, a
 * deadlock, read 1.0 s idle where %m reads it running). h: the alias of
 * a row of holds.
 */
#ifndef LS_CORRELATE_IDLE_SQL_H
#define LS_CORRELATE_IDLE_SQL_H

#define LS_IDLE_LINE_POS(t) "((coalesce(" t ".file_id, 0) << 32) + " t ".line)"
#define LS_IDLE_END_POS(t) "((coalesce(" t ".end_file, 0) << 32) + " t ".end_line)"

/* The waits' part, for every (holder transaction, row) at once: one pass
 * over the waits (wait_links has no index by holder: a lookup per hold
 * read them all, stmt_growth), into temp.idle_waited; filled on a
 * whole-second log only (:whole; findings_sum.c makes the table either
 * way). */
#define LS_IDLE_WAITED_FILL_SQL                                                          \
    "INSERT INTO temp.idle_waited(holder_tx, row_id, ms)"                                 \
    " SELECT k.holder_tx, wr.row_id, max(CASE WHEN w.end_line IS NOT NULL"                 \
    " AND w.outcome IN ('acquired', 'deadlock') AND " LS_IDLE_END_POS("w") " < "           \
    LS_IDLE_LINE_POS("s") " THEN w.waited_ms WHEN " LS_IDLE_LINE_POS("w") " < "            \
    LS_IDLE_LINE_POS("s") " THEN (w.logged_ts - w.start_ts) / 1000.0 END)"                 \
    " FROM wait_links k JOIN wait_rows wr ON wr.wait_id = k.wait_id"                      \
    " JOIN lock_wait_rows w ON w.wait_id = k.wait_id"                                     \
    " JOIN transactions t ON t.tx_id = k.holder_tx"                                       \
    " JOIN stmt_rows s ON s.stmt_id = t.last_stmt"                                        \
    " WHERE :whole AND w.target_kind = 'transaction' AND wr.row_id IS NOT NULL"           \
    " GROUP BY k.holder_tx, wr.row_id"
/* LS_IDLE_WAITED_SQL(h): hold h's, from temp.idle_waited. */
#define LS_IDLE_WAITED_SQL(h)                                                            \
    "(SELECT iw.ms FROM temp.idle_waited iw WHERE iw.holder_tx = " h ".tx_id"              \
    " AND iw.row_id = " h ".row_id)"

/* The idle head rule's (findings.c) waits on its 'unknown' heads (g:
 * hold_id, tx_id, row_id), read only when g has a row (g1, a loop of one
 * row or none outside the others: CROSS JOIN keeps it there). Without
 * it every wait was read (about 13 SQLite VM steps a wait) even when no
 * hold's head is unknown, as in most logs; with a head, the plan is as
 * before (the waits scanned, g by an automatic index). */
#define LS_IDLE_HEAD_WAITS_FROM                                                                    \
    " FROM (SELECT 1 FROM g LIMIT 1) AS g1 CROSS JOIN g"                                           \
    " JOIN wait_links k ON k.holder_tx = g.tx_id"                                                  \
    " JOIN wait_rows wr ON wr.wait_id = k.wait_id AND wr.row_id = g.row_id"                        \
    " JOIN lock_wait_rows w ON w.wait_id = k.wait_id WHERE w.target_kind = 'transaction'"

#define LS_IDLE_BUSY_SQL(h)                                                              \
    "(SELECT CASE WHEN " h ".lock_stmt IS NOT NULL"                                       \
    " AND NOT EXISTS (SELECT 1 FROM logcover WHERE verdict <> 0)"                           \
    " AND count(x.duration_ms) = count(*) AND total(x.verb IS 'bind') = 0"                 \
    " AND NOT EXISTS (SELECT 1 FROM errors e JOIN statements l ON l.stmt_id = " h          \
    ".lock_stmt JOIN statements c ON c.stmt_id = t.last_stmt"                             \
    " WHERE e.session_id = " h ".session_id AND " LS_IDLE_LINE_POS("e") " > "              \
    LS_IDLE_LINE_POS("l") " AND " LS_IDLE_LINE_POS("e") " <= " LS_IDLE_LINE_POS("c") ")"  \
    " THEN total(x.duration_ms + coalesce(x.bind_ms, 0) + coalesce(x.parse_ms, 0)) END"   \
    " FROM transactions t JOIN statements x ON +x.session_id = " h ".session_id"          \
    " AND x.stmt_id >= " h ".lock_stmt AND x.stmt_id <= t.last_stmt"                      \
    " AND (x.verb IS NULL OR x.verb <> 'parse') WHERE t.tx_id = " h ".tx_id)"

#endif
