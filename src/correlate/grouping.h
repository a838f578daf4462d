/*
 * grouping.h — the default grouping of transactions into code paths
 * (--group-by function), as a column of tx_code aliased c (the view
 * names the transactions nothing else names by application_name or by
 * the transaction's shape: path_identity, decide/pathid.c).
 *
 * The report's code-path sections name paths by the same view's columns
 * (reports/codepaths.c), and so does the findings pass (findings.c),
 * which decides the findings of the default grouping when the store is
 * correlated: one expression, so a finding names a path as the ranking
 * does.
 */
#ifndef LS_GROUPING_H
#define LS_GROUPING_H

#define LS_GROUPING_DEFAULT "function"

/* The default grouping's label: a column of the tx_code view, which
 * names a transaction's path under each grouping (store_schema.h). */
#define LS_GROUPING_FUNCTION_LABEL_SQL "c.function_path"

/* A WITH clause's tables for the lock-order checks: `o` (label, r1, r2),
 * each code path (the label, an expression over tx_code c, in place of
 * the format's first %s) writing relation r1 before r2. A distinct order
 * of relations is paired once, not once per transaction; only the
 * transactions for which SQL `cond` (over tx_code c) holds. */
#define LOCK_ORDER_PAIRS_WHERE(cond)                                                      \
    "t AS (SELECT DISTINCT %s AS label, c.order_id FROM tx_code c"                        \
    "  WHERE c.order_id IS NOT NULL AND " cond "),"                                       \
    " o AS (SELECT DISTINCT t.label, a.value AS r1, b.value AS r2 FROM t"                 \
    "  JOIN lock_orders lo ON lo.order_id = t.order_id, json_each(lo.relations) a,"       \
    "  json_each(lo.relations) b WHERE b.key > a.key)"

#endif
