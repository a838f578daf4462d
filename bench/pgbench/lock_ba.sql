-- Locks hot branch rows 3 then 2: the opposite order of lock_ab.sql.
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = 3;
SELECT pg_sleep(0.01);
UPDATE pgbench_branches SET bbalance = bbalance - :delta WHERE bid = 2;
END;
