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

#endif
