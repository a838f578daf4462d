/*
 * findings_schema.h — the tables of the findings the analysis decided,
 * declared once: the store makes them (store_schema.h), and the findings
 * code (src/correlate/findings.c) makes temp tables of the same columns
 * for a report that decides its own (a time window, another grouping).
 */
#ifndef LS_FINDINGS_SCHEMA_H
#define LS_FINDINGS_SCHEMA_H

#include "corr_tables.h" /* the columns, declared once */

/* The findings the analysis decided (correlation's "findings" pass,
 * findings.c), for the default code-path grouping over the whole log, in
 * the report's order (seq); each finding's numbers and names in
 * finding_fields, in its rule's order (kind s text, i integer, m ms).
 * The column lists are shared with the report's temp tables (findings
 * for a --since/--until window or another --group-by). */
#define LS_FINDINGS_COLS LS_TABLE_DEFN(findings)
#define LS_FINDING_FIELDS_COLS LS_TABLE_DEFN_KEYED(finding_fields)
#define LS_FINDINGS_DDL \
    LS_CREATE_TABLE(findings) \
    LS_CREATE_TABLE_KEYED(finding_fields)

#endif
