/*
 * codepath.h — the name of a code path, after the OpenTelemetry semantic
 * conventions for code attributes.
 *
 * The new convention's `code.function.name` is already qualified
 * (`shop.orders.pay_order`, `GuzzleHttp\Client::transfer`) and is used as
 * is. The old one splits it: `code.namespace` + `code.function`, joined
 * with '.' — but only when the function is not qualified already, so a
 * `code.function` of `shop.pay_order` under namespace `shop` stays
 * `shop.pay_order` (not `shop.shop.pay_order`). Log-only evidence
 * (sqlcommenter / marginalia `controller` + `action`) is named by the same
 * rule, so a path has one name with traces and without (it was `a.b`
 * from spans and `a#b` from tags).
 *
 * The store keeps the attributes as the inputs gave them (tx_code
 * code_namespace, code_function, tag_controller, tag_action); the reports
 * name paths with this expression.
 */
#ifndef LS_CODEPATH_H
#define LS_CODEPATH_H

/*
 * LS_CODE_NAME_SQL(ns, fn): an SQL expression over two column expressions
 * (string literals) naming function fn in namespace ns: fn NULL or empty
 * -> ns (NULL if that is empty too); ns NULL or empty, or fn qualified
 * (contains '.', "::", '\' or '#') -> fn; else ns || '.' || fn.
 */
#define LS_CODE_NAME_SQL(ns, fn)                                                          \
    "(CASE WHEN coalesce(" fn ", '') = '' THEN nullif(" ns ", '')"                         \
    " WHEN coalesce(" ns ", '') = '' OR instr(" fn ", '.') > 0 OR instr(" fn ", '::') > 0" \
    " OR instr(" fn ", '\\') > 0 OR instr(" fn ", '#') > 0 THEN " fn                       \
    " ELSE " ns " || '.' || " fn " END)"

#endif
