-- pgbench-shapes: a TPC-B-like transfer that updates the hot branch row
-- late, then works 2 ms (client side) before its commit.
\set aid random(1, 100000 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = 1;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (1, 1, :aid, :delta, CURRENT_TIMESTAMP);
\sleep 2 ms
END;
