-- Locks hot branch rows 2 then 3; lock_ba.sql takes them in the opposite
-- order, so the two deadlock now and then (40P01, retried by pgbench).
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = 2;
SELECT pg_sleep(0.01);
UPDATE pgbench_branches SET bbalance = bbalance - :delta WHERE bid = 3;
END;
