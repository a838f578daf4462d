/*
 * rowstats_sql.h — the logical rows pass's totals of each row's waits
 * (holds.c), as row_keys' columns: waits, total_wait_ms, max_wait_ms,
 * longest_chain, first_ts, last_ts and ctids.
 *
 * Each row's waits in one pass over them grouped by row (issue 38: one
 * subquery per column and row read the waits six times); a row no wait
 * is keyed to (a deadlock's) has waits 0 and the rest NULL, as count(*)
 * and the other aggregates of no rows say. The pass made row_keys' rows
 * with these columns NULL.
 *
 * The waits are read by row from wait_rows' index (lock_waits_row, which
 * the pass makes first: each row's waits in wait_id order), their columns
 * from lock_wait_rows and the chain's depth as the lock_waits view gives
 * it (wait_links' where it set a root, else wait_chains'), not through
 * the view, whose GROUP BY sorted every wait; the rows' ctids in one
 * DISTINCT scan of the waits in (row, ctid) order, not a subquery per row
 * that read the row's waits through the view again (issue 38: 4.70 M
 * SQLite VM steps at 1 GiB, 2.6 M now; tests/unit/test_rowstats.c).
 */
#ifndef LS_CORRELATE_ROWSTATS_SQL_H
#define LS_CORRELATE_ROWSTATS_SQL_H

#define LS_ROW_STATS_SQL                                                                           \
    "UPDATE row_keys SET waits = a.n, total_wait_ms = a.total_ms, max_wait_ms = a.max_ms,"         \
    " longest_chain = a.chain, first_ts = a.first_ts, last_ts = a.last_ts, ctids = NULL"           \
    " FROM (SELECT wr.row_id AS row_id, count(*) AS n, sum(w.waited_ms) AS total_ms,"              \
    "  max(w.waited_ms) AS max_ms, max(CASE WHEN l.root_pid IS NULL THEN c.chain_depth"            \
    "  ELSE l.chain_depth END) AS chain, min(w.start_ts) AS first_ts,"                             \
    "  max(coalesce(w.end_ts, w.logged_ts)) AS last_ts FROM wait_rows wr"                          \
    "  JOIN lock_wait_rows w ON w.wait_id = wr.wait_id"                                            \
    "  LEFT JOIN wait_chains c ON c.wait_id = wr.wait_id"                                          \
    "  LEFT JOIN wait_links l ON l.wait_id = wr.wait_id"                                           \
    "  WHERE wr.row_id IS NOT NULL GROUP BY wr.row_id) a WHERE row_keys.row_id = a.row_id;"
/* The distinct ctids of each row's waits, in text order, space-separated. */
#define LS_ROW_CTIDS_SQL                                                                           \
    "UPDATE row_keys SET ctids = g.ctids FROM (SELECT row_id,"                                     \
    " group_concat(ctid, ' ') AS ctids FROM (SELECT DISTINCT wr.row_id AS row_id,"                 \
    "  w.ctid AS ctid FROM wait_rows wr JOIN lock_wait_rows w ON w.wait_id = wr.wait_id"           \
    "  WHERE wr.row_id IS NOT NULL AND w.ctid IS NOT NULL ORDER BY 1, 2) GROUP BY row_id) g"       \
    " WHERE row_keys.row_id = g.row_id;"
#define LS_ROW_NO_WAITS_SQL "UPDATE row_keys SET waits = 0 WHERE waits IS NULL;"

#endif
