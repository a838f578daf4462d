-- pgbench-shapes: updates the hot branch row first, works 8 ms (client
-- side), then updates an account and commits.
\set aid random(1, 100000 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = 1;
\sleep 8 ms
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
END;
