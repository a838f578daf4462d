-- A counter on a few hot branch rows (bid 1..3): short transactions that
-- queue behind each other and behind the holder of hold_hot.sql.
\set bid random(1, 3)
\set aid random(1, 100000 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (1, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
