/*
 * grouping.h — the default grouping of transactions into code paths
 * (--group-by function), as an SQL expression over tx_code aliased c,
 * and the fallback that names transactions nothing else names.
 *
 * The report's code-path sections name paths with it (reports/codepaths.c,
 * which holds the other groupings), and so does the findings pass
 * (findings.c), which decides the findings of the default grouping when
 * the store is correlated: one expression, so a finding names a path as
 * the ranking does.
 */
#ifndef LS_GROUPING_H
#define LS_GROUPING_H

#include "codepath.h"

#define LS_GROUPING_DEFAULT "function"

/* Does the transaction's shape name the paths that no span or tag names
 * (path_identity, decided by the code-paths pass: decide/pathid.c)?
 * Else application_name does. */
#define LS_PATH_BY_SHAPE_SQL "coalesce((SELECT identity = 'shape' FROM path_identity), 0)"

/* The application_name, or the transaction's shape where the name does
 * not tell paths apart. */
#define LS_GROUPING_FALLBACK_SQL \
    "CASE WHEN " LS_PATH_BY_SHAPE_SQL " THEN c.tx_shape ELSE c.application END"

/* Span code attributes, and controller + action from the SQL, are named
 * by one rule (codepath.h), so a path has one name with traces and
 * without; then the route, the span name, the application or the
 * transaction's shape, the first write's shape. */
#define LS_GROUPING_FUNCTION_LABEL_SQL                                                      \
    "coalesce(CASE WHEN c.code_function IS NOT NULL THEN "                                  \
    LS_CODE_NAME_SQL("c.code_namespace", "c.code_function") " END,"                          \
    " CASE WHEN c.tag_controller IS NOT NULL THEN "                                         \
    LS_CODE_NAME_SQL("c.tag_controller", "c.tag_action") " END, c.route, c.tag_route,"     \
    " c.root_name, " LS_GROUPING_FALLBACK_SQL ", c.shape, 'unknown')"

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
