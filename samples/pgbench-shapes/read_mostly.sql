-- pgbench-shapes: reads two accounts and the branch, then touches the hot
-- branch row last, just before its commit.
\set aid random(1, 100000 * :scale)
\set aid2 random(1, 100000 * :scale)
BEGIN;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid2;
SELECT bbalance FROM pgbench_branches WHERE bid = 1;
UPDATE pgbench_branches SET bbalance = bbalance + 1 WHERE bid = 1;
END;
