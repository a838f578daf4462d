/*
 * lockorder.h — lock order read from deadlocks (issue 34 item 7): the
 * SQL over the store that the findings pass's rule inconsistent_lock_order
 * (findings.c) gathers its pairs with. The report's lock_order_conflicts
 * list is those findings' pairs (reports/findings.c), so the two never
 * differ.
 *
 * A deadlock's DETAIL says who waited for whom ("Process X waits for
 * ShareLock on transaction T; blocked by process Y", deadlock_edges); the
 * victim's own wait is a logged lock wait ending in `deadlock`, keyed to
 * the row it wanted (b) and to the transaction holding it (the survivor).
 * That holder is in the cycle (a process of the DETAIL's edges) and
 * wanted a row the victim held (a): the victim's row locked before its
 * wait that the holder then held once the victim rolled back, or, where
 * the victim's hold is missing and the DETAIL has the holder wait for the
 * victim itself, the row the holder locked after b (when it waits for
 * another process of a longer cycle, the row it locked next was that
 * process's, not the victim's), or, where the holds do not tell, the
 * row the holder's own DETAIL statement was waiting for
 * (temp.dl_procs, dlprocs.c: behind a pooler with
 * log_min_duration_statement the victim's first UPDATE and the
 * holder's later one are not logged), when both sides' transactions
 * are sure: the holder's the one running its DETAIL statement by that
 * statement's logged line (dlprocs.c), the victim's the one rebuilt
 * from its request's spans that the deadlock is linked to
 * (deadlock_links: spans.c write_victims), or its wait's transaction
 * when that one ran the victim's DETAIL statement too (a pooled
 * backend's wait on a whole-second log without traces is linked to
 * another client's transaction of that second as often as not: no pair
 * is read from the DETAIL there); the holder's side is then its DETAIL
 * transaction. Where the holds tell, the sides are the victim's wait's
 * waiter (or the victim's rebuilt transaction) and holder, as they were
 * read before. So the victim locked a before b and
 * the survivor b before a: two orders, one per side, read from the keys
 * each side locked, never from relations alone (two paths that write one
 * relation in opposite orders may lock different rows, or one may INSERT
 * a fresh row that nobody else can hold: they cannot deadlock). Both
 * sides may be one code path (a transfer locking its two rows in request
 * order deadlocks with itself).
 *
 * A deadlock whose victim waited for a row held by a process that wanted
 * no row of the victim's (a longer cycle, through others' rows) is not
 * read from the rows: the other processes' rows are named only by their
 * statements.
 *
 * A deadlock no pair was read from whose DETAIL alone shows one
 * statement's rows locked in inconsistent order (temp.dl_self, dlprocs.c,
 * ls_finding_detail_cycle: every process waits for a row lock running
 * the one statement) is named by the code paths of its transactions that
 * are known (one: a path against itself; two: the pair; more: not read)
 * on the statement's relation both ways, its rows unknown (detail: a
 * threshold log shows neither side's first lock; samples/blind-rb); a
 * cycle none of whose transactions is known (a log_statement = 'mod' log
 * logs no SELECT ... FOR UPDATE, no BEGIN: samples/blind-zk's log alone)
 * by no code path (label and other NULL): the rows' order is read, whose
 * code it is is not.
 */
#ifndef LS_CORRELATE_LOCKORDER_H
#define LS_CORRELATE_LOCKORDER_H

#include "decide/tolerances.h" /* LS_SQL_INT, LS_WHOLE_SECOND_US */

/*
 * A WITH clause's tables, the last `lock_cycles` (label, r1, r2, other,
 * row1, row2, deadlocks, first_ts): code path `label` locked row1 (of
 * relation r1) before row2 (of r2), code path `other` the other way
 * round, in `deadlocks` deadlocks, the first at first_ts; row1 and row2
 * are the first deadlock's rows ("relation key"). One row per pair of
 * paths and relations, named in a fixed orientation (the smaller of
 * (label, r1, r2) and (other, r2, r1) first). `label` is an expression
 * over tx_code c in place of the text's one %s; only the deadlocks d for
 * which SQL `cond` holds. `detail`: of the deadlocks, those read from the
 * DETAIL alone (no rows); rows_detail: the named rows are none, every
 * deadlock of the pair was.
 *
 * Linear in the deadlocks whatever plan SQLite picks (issue 38: lookups
 * per deadlock made it 195 M VM steps for the 2.2 k deadlocks of a 1 GiB
 * pgbench log): the victim's wait is its process's last deadlock wait at
 * or before the deadlock's line, found by a running count over the
 * process's deadlock waits and deadlocks in line order (lc_k, lc_g,
 * lc_dv, made once per pass into temp.lc_victims), not a probe of all
 * the process's waits; the edges are probed on deadlock_edges_waiter
 * (correlate.c's index pass); `+hs.row_id` keeps the survivor's holds on
 * hold_final_tx (a transaction's few holds), not hold_final_row (all of
 * a hot row's holds); and each side's label is read by tx_code's key
 * (lc_t, lc_l, lc_m), never by a join of two unindexed CTEs.
 * test_lockorder checks the steps grow linearly.
 */
/* Each deadlock's victim's wait (pid, deadlock_id, ts, kind, wait_id): a
 * pid's waits and deadlocks in a file numbered in line order, the wait a
 * deadlock gets the last of its victim's deadlock waits at or before its
 * line (NULL: none). Made once per findings pass into temp.lc_victims
 * (LS_LOCK_CYCLES_VICTIMS_SQL, dlprocs.c), which the lock cycles, the
 * DETAIL cycles' transactions and dl_sides read (issue 38: the window
 * functions over every deadlock wait were 1.75 M SQLite VM steps at
 * 1 GiB, run by each of the three). */
#define LS_LOCK_CYCLES_VICTIMS_WITH                                                          \
    "lc_x AS (SELECT wait_id, pid, file_id, line FROM lock_wait_rows"                        \
    "  WHERE outcome = 'deadlock' AND pid IS NOT NULL AND file_id IS NOT NULL"                \
    "  AND line IS NOT NULL),"                                                                \
    " lc_k AS (SELECT pid, file_id, line, 0 AS kind, wait_id, NULL AS deadlock_id,"           \
    "  NULL AS ts FROM lc_x UNION ALL SELECT d.victim_pid, d.file_id, d.line, 1, NULL,"       \
    "  d.deadlock_id, d.ts FROM deadlocks d),"                                                \
    " lc_g AS (SELECT *, count(wait_id) OVER (PARTITION BY pid, file_id ORDER BY line, kind"  \
    "  ROWS UNBOUNDED PRECEDING) AS grp FROM lc_k),"                                          \
    " lc_dv AS (SELECT * FROM (SELECT pid, deadlock_id, ts, kind, max(wait_id) OVER"          \
    "  (PARTITION BY pid, file_id, grp) AS wait_id FROM lc_g) WHERE kind = 1)"
#define LS_LOCK_CYCLES_VICTIMS_SQL                                                           \
    "DROP TABLE IF EXISTS temp.lc_victims;"                                                  \
    " CREATE TEMP TABLE lc_victims(deadlock_id INTEGER PRIMARY KEY, pid INTEGER,"            \
    "  ts INTEGER, kind INTEGER, wait_id INTEGER);"                                           \
    " WITH " LS_LOCK_CYCLES_VICTIMS_WITH " INSERT INTO temp.lc_victims(deadlock_id, pid, ts,"  \
    "  kind, wait_id) SELECT deadlock_id, pid, ts, kind, wait_id FROM lc_dv;"
/* lc_d (pid, deadlock_id, ts, kind, wait_id): each deadlock d for which
 * cond holds, with its victim's wait (temp.lc_victims: which wait a
 * deadlock gets does not depend on cond); dlprocs.c reads it too. */
#define LS_LOCK_CYCLES_WAITS(cond)                                                          \
    "lc_d AS (SELECT v.pid AS pid, v.deadlock_id AS deadlock_id, v.ts AS ts,"                \
    "  v.kind AS kind, v.wait_id AS wait_id FROM temp.lc_victims v"                          \
    "  JOIN deadlocks d ON d.deadlock_id = v.deadlock_id WHERE " cond ")"
/* LS_LOCK_CYCLES_WHERE(cond) is LS_LOCK_CYCLES_HEAD(cond) "," LS_LOCK_CYCLES_TAIL:
 * two string literals each within the length C11 compilers must take
 * (findings.c joins them at run time, its ls_fnd_expand's %W). */
#define LS_LOCK_CYCLES_WHERE(cond) LS_LOCK_CYCLES_HEAD(cond) "," LS_LOCK_CYCLES_TAIL
#define LS_LOCK_CYCLES_HEAD(cond)                                                           \
    LS_LOCK_CYCLES_WAITS(cond) ","                                                          \
    " lc_v AS (SELECT *, coalesce(vs, vw) AS v, sw AS s,"                                   \
    "  sd IS NOT NULL AND (vs IS NOT NULL OR vd = vw) AS sure FROM (SELECT d.deadlock_id,"    \
    "  d.ts, xv.span_tx AS vs, w.waiter_tx AS vw, xv.tx_id AS vd, xs.tx_id AS sd,"             \
    "  w.holder_tx AS sw, xs.row_id AS sr,"                                                   \
    "  w.row_id AS b, w.waiter_stmt AS vstmt, EXISTS (SELECT 1 FROM deadlock_edges e"        \
    "   WHERE e.deadlock_id = d.deadlock_id AND e.waiter_pid = w.holder_pid"                  \
    "   AND e.blocker_pid = d.pid) AS direct FROM lc_d d JOIN lock_waits w"                   \
    "  ON w.wait_id = d.wait_id LEFT JOIN temp.dl_procs xv ON xv.deadlock_id = d.deadlock_id" \
    "  AND xv.pid = d.pid LEFT JOIN temp.dl_procs xs ON xs.deadlock_id = d.deadlock_id"       \
    "  AND xs.pid = w.holder_pid WHERE w.row_id IS NOT NULL"                                  \
    "  AND EXISTS (SELECT 1 FROM deadlock_edges e WHERE e.deadlock_id = d.deadlock_id"        \
    "   AND e.waiter_pid = w.holder_pid)) ORDER BY deadlock_id),"                             \
    " lc_a AS (SELECT lc_v.*, coalesce("                                                      \
    "  (SELECT hv.row_id FROM holds hv WHERE hv.tx_id = lc_v.v AND hv.row_id <> lc_v.b"       \
    "   AND (lc_v.vstmt IS NULL OR hv.lock_stmt < lc_v.vstmt) AND EXISTS (SELECT 1"           \
    "   FROM holds hs WHERE hs.tx_id = lc_v.s AND +hs.row_id = hv.row_id)"                    \
    "   ORDER BY hv.lock_stmt DESC LIMIT 1),"                                                 \
    "  (SELECT hs.row_id FROM holds hs JOIN holds hb ON hb.tx_id = lc_v.s"                    \
    "   AND hb.row_id = lc_v.b WHERE lc_v.direct AND hs.tx_id = lc_v.s"                       \
    "   AND hs.row_id <> lc_v.b AND hs.lock_stmt > hb.lock_stmt"                              \
    "   ORDER BY hs.lock_stmt LIMIT 1)) AS ah,"                                               \
    "  CASE WHEN direct AND sure AND sr <> b THEN sr END AS ad,"                              \
    "  CASE WHEN NOT direct THEN (SELECT hv.row_id FROM holds hv WHERE hv.tx_id = lc_v.v"     \
    "   AND hv.row_id <> lc_v.b AND (lc_v.vstmt IS NULL OR hv.lock_stmt < lc_v.vstmt)"        \
    "   ORDER BY hv.lock_stmt DESC LIMIT 1) END AS av,"                                       \
    "  CASE WHEN NOT direct THEN coalesce((SELECT wr.row_id FROM wait_links k"                \
    "   JOIN wait_rows wr ON wr.wait_id = k.wait_id JOIN lock_wait_rows w2"                   \
    "   ON w2.wait_id = k.wait_id WHERE k.waiter_tx = lc_v.s AND wr.row_id <> lc_v.b"         \
    "   AND w2.start_ts < lc_v.ts + " LS_SQL_INT(LS_WHOLE_SECOND_US)                          \
    "   AND coalesce(w2.end_ts, w2.logged_ts) + " LS_SQL_INT(LS_WHOLE_SECOND_US) " > lc_v.ts" \
    "   ORDER BY w2.start_ts DESC LIMIT 1),"                                                  \
    "   (SELECT hs.row_id FROM holds hs JOIN holds hb ON hb.tx_id = lc_v.s"                   \
    "   AND hb.row_id = lc_v.b WHERE hs.tx_id = lc_v.s AND hs.row_id <> lc_v.b"               \
    "   AND hs.lock_stmt > hb.lock_stmt ORDER BY hs.lock_stmt LIMIT 1)) END AS cw"            \
    "  FROM lc_v WHERE v IS NOT NULL AND coalesce(s, sd) IS NOT NULL)"
#define LS_LOCK_CYCLES_TAIL                                                                 \
    " lc_c AS (SELECT lc_a.*, CASE WHEN ah IS NULL AND ad IS NULL AND av IS NOT NULL"         \
    "  AND cw IS NOT NULL AND (cw = av OR (SELECT kc.relation FROM row_keys kc"               \
    "  WHERE kc.row_id = cw) = (SELECT kv.relation FROM row_keys kv WHERE kv.row_id = av))"   \
    "  THEN av END AS al FROM lc_a),"                                                         \
    " lc_t AS (SELECT deadlock_id, ts, coalesce(ah, ad, al) AS a, b, 0 AS side, v AS tx,"    \
    "  ah IS NULL AND ad IS NULL AND cw <> al AS longer"                                      \
    "  FROM lc_c UNION ALL SELECT deadlock_id, ts, coalesce(ah, ad, al), b, 1,"               \
    "  CASE WHEN ah IS NULL AND ad IS NOT NULL THEN sd ELSE s END,"                           \
    "  ah IS NULL AND ad IS NULL AND cw <> al FROM lc_c),"                                    \
    " lc_l AS (SELECT t.*, %s AS label FROM lc_t t JOIN tx_code c ON c.tx_id = t.tx),"         \
    " lc_m AS (SELECT deadlock_id, ts, a, b, max(CASE side WHEN 0 THEN label END) AS lv,"     \
    "  max(CASE side WHEN 1 THEN label END) AS ls, max(coalesce(longer, 0)) AS longer"        \
    "  FROM lc_l GROUP BY deadlock_id HAVING count(*) = 2),"                                  \
    " lc_s AS (SELECT m.deadlock_id, m.ts, m.lv, m.ls, m.longer,"                             \
    "  ka.relation AS ra, kb.relation AS rb, ka.relation || ' ' || ka.row_key AS rowa,"       \
    "  kb.relation || ' ' || kb.row_key AS rowb FROM lc_m m"                                  \
    "  JOIN row_keys ka ON ka.row_id = m.a JOIN row_keys kb ON kb.row_id = m.b),"             \
    " lc_e AS (SELECT q.deadlock_id, d.ts, q.relation, %s AS label FROM temp.dl_self q"      \
    "  JOIN lc_d d ON d.deadlock_id = q.deadlock_id LEFT JOIN tx_code c ON c.tx_id = q.tx_id" \
    "  WHERE q.deadlock_id NOT IN (SELECT deadlock_id FROM lc_s)),"                           \
    " lc_f AS (SELECT deadlock_id, ts, relation, min(label) AS lv, max(label) AS ls"          \
    "  FROM lc_e GROUP BY deadlock_id HAVING count(DISTINCT label) <= 2),"                    \
    " lc_o AS (SELECT deadlock_id, ts, lv AS label, ra AS r1, rb AS r2, ls AS other,"         \
    "  rowa AS row1, rowb AS row2, longer, 0 AS detail FROM lc_s"                             \
    "  WHERE (lv, ra, rb) <= (ls, rb, ra) UNION ALL SELECT deadlock_id, ts, ls, rb, ra, lv,"  \
    "  rowb, rowa, longer, 0 FROM lc_s WHERE (lv, ra, rb) > (ls, rb, ra) UNION ALL"           \
    "  SELECT deadlock_id, ts, lv, relation, relation, ls, NULL, NULL, 0, 1 FROM lc_f),"      \
    " lc_r AS (SELECT *, row_number() OVER (PARTITION BY label, r1, r2, other"                \
    "  ORDER BY detail, longer, ts, deadlock_id) AS rk FROM lc_o),"                           \
    " lock_cycles AS (SELECT label, r1, r2, other, max(CASE WHEN rk = 1 THEN row1 END)"       \
    "  AS row1, max(CASE WHEN rk = 1 THEN row2 END) AS row2, count(*) AS deadlocks,"          \
    "  min(ts) AS first_ts, sum(longer) AS longer, max(CASE WHEN rk = 1 THEN longer END)"     \
    "  AS rows_longer, sum(detail) AS detail, max(CASE WHEN rk = 1 THEN detail END)"          \
    "  AS rows_detail FROM lc_r GROUP BY label, r1, r2, other)"

/*
 * A DETAIL cycle's (temp.dl_self, dlprocs.c) victim's wait, as lock_cycles
 * reads it (lc_d): its waiter's and holder's transactions are the
 * cycle's only when that holder is a process of the cycle (a waiter of
 * one of its edges); a victim queued behind a tuple-lock leader outside
 * the cycle waited for that process (tests/unit/test_dlself.c).
 */
#define LS_DL_SELF_WAIT_TX_SQL                                                                     \
    "WITH " LS_LOCK_CYCLES_WAITS("d.deadlock_id IN (SELECT deadlock_id FROM temp.dl_self)") ","    \
    " lc_w AS (SELECT s.deadlock_id, s.relation, d.ts, w.waiter_tx, w.holder_tx FROM lc_d d"       \
    " JOIN lock_waits w ON w.wait_id = d.wait_id JOIN temp.dl_self s"                              \
    " ON s.deadlock_id = d.deadlock_id AND s.tx_id IS NULL WHERE EXISTS (SELECT 1"                 \
    " FROM deadlock_edges e WHERE e.deadlock_id = d.deadlock_id"                                   \
    " AND e.waiter_pid = w.holder_pid))"                                                           \
    " INSERT INTO temp.dl_self SELECT deadlock_id, relation, waiter_tx FROM lc_w"                  \
    " WHERE waiter_tx IS NOT NULL AND " LS_DL_SELF_TX_OPEN("waiter_tx")                            \
    " UNION ALL SELECT deadlock_id, relation, holder_tx FROM lc_w"                                 \
    " WHERE holder_tx IS NOT NULL AND " LS_DL_SELF_TX_OPEN("holder_tx") ";"
/* ... and only a transaction whose end the log does not show before the
 * deadlock (a millisecond's tick: this is not run on whole-second logs):
 * a cycle's transactions were open at it. On a threshold log behind a
 * pooler a wait's holder is the backend's last logged transaction, often
 * a committed one of another client (samples/blind-pool's jsonlog: an
 * `INSERT checkins` committed 46 ms before the victim began to wait, named
 * the other side of a transfer's deadlock once its DETAIL statements were
 * read as one by their shape). */
#define LS_DL_SELF_TX_OPEN(TX)                                                                     \
    "NOT EXISTS (SELECT 1 FROM transactions t WHERE t.tx_id = " TX                                 \
    " AND t.outcome IN ('commit', 'rollback', 'aborted') AND t.end_ts IS NOT NULL"                 \
    " AND t.end_ts < ts - " LS_SQL_INT(LS_MILLISECOND_US) ")"

/* temp.dl_self (dlprocs.c): the deadlocks whose DETAIL alone shows one
 * statement's rows locked in inconsistent order, and their transactions;
 * LS_DL_SELF_WAIT_TX_SQL joins it by deadlock (without the index, a scan
 * of it per deadlock: 3.2 M SQLite VM steps of the findings pass at 1 GiB,
 * tests/unit/test_dlself.c checks the plan). */
#define LS_DL_SELF_DDL                                                                             \
    "CREATE TEMP TABLE IF NOT EXISTS dl_self(deadlock_id INTEGER, relation TEXT,"                  \
    " tx_id INTEGER);"                                                                             \
    " CREATE INDEX IF NOT EXISTS temp.dl_self_deadlock ON dl_self(deadlock_id);"

#endif
