-- Keeps hot branch row 1 locked for about 250 ms (think: an external call
-- inside the transaction); everything that touches branch 1 meanwhile waits.
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = 1;
SELECT pg_sleep(0.25);
END;
