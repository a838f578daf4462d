.mode list
.separator ' | '
CREATE TEMP TABLE waited_rows AS SELECT DISTINCT row_id FROM wait_rows WHERE row_id IS NOT NULL;
CREATE TEMP TABLE k(tx_id INTEGER, why TEXT);
INSERT INTO k SELECT DISTINCT tx_id, 'hold' FROM hold_final;
INSERT INTO k SELECT DISTINCT tx_id, 'hold_waited_row' FROM hold_final WHERE row_id IN waited_rows;
INSERT INTO k SELECT DISTINCT tx_id, 'hold_waited' FROM hold_final WHERE waits > 0;
INSERT INTO k SELECT x, 'wait' FROM (SELECT waiter_tx x FROM wait_links UNION SELECT holder_tx FROM wait_links UNION SELECT blocker_tx FROM wait_links UNION SELECT root_tx FROM wait_links) WHERE x IS NOT NULL;
INSERT INTO k SELECT x, 'error' FROM (SELECT tx_id x FROM error_links UNION SELECT cause_tx FROM error_links UNION SELECT retry_tx FROM retries UNION SELECT tx_id FROM deadlock_links) WHERE x IS NOT NULL;
INSERT INTO k SELECT tx_id, 'span' FROM tx_code_rows WHERE span_row IS NOT NULL OR trace_id IS NOT NULL;
CREATE INDEX k_w ON k(why, tx_id);
SELECT 'all', count(*), sum(statements) FROM transactions;
SELECT 'stmt_rows', count(*) FROM stmt_rows;
SELECT 'tx_cuts', count(*), sum(statements) FROM tx_cuts;
SELECT why, count(*), sum(t.statements) FROM k JOIN transactions t USING(tx_id) GROUP BY why;
SELECT 'wait|error|span', count(*), sum(statements) FROM transactions WHERE tx_id IN (SELECT tx_id FROM k WHERE why IN ('wait','error','span'));
SELECT 'waited-hold|wait|error|span', count(*), sum(statements) FROM transactions WHERE tx_id IN (SELECT tx_id FROM k WHERE why IN ('hold_waited','wait','error','span'));
SELECT 'any (hold|wait|error|span)', count(*), sum(statements) FROM transactions WHERE tx_id IN (SELECT tx_id FROM k);
SELECT 'dbstat', name, sum(pgsize), sum(payload) FROM dbstat WHERE name IN ('stmt_rows','transactions','hold_final','tx_cuts','tx_keys','stmt_texts','statements_session','stmt_rows_text') OR name LIKE 'stmt_rows%' OR name LIKE '%transactions%' GROUP BY name;
SELECT 'file', page_count*page_size FROM pragma_page_count, pragma_page_size;
