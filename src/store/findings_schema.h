/*
 * findings_schema.h — the tables of the findings the analysis decided,
 * declared once: the store makes them (store_schema.h), and the findings
 * code (src/correlate/findings.c) makes temp tables of the same columns
 * for a report that decides its own (a time window, another grouping).
 */
#ifndef LS_FINDINGS_SCHEMA_H
#define LS_FINDINGS_SCHEMA_H

/* The findings the analysis decided (correlation's "findings" pass,
 * findings.c), for the default code-path grouping over the whole log, in
 * the report's order (seq); each finding's numbers and names in
 * finding_fields, in its rule's order (kind s text, i integer, m ms).
 * The column lists are shared with the report's temp tables (findings
 * for a --since/--until window or another --group-by). */
#define LS_FINDINGS_COLS \
    "(finding_id INTEGER PRIMARY KEY, grouping TEXT, seq INTEGER, rule TEXT,\n" \
    "  weight_ms REAL, title TEXT, evidence TEXT, fix TEXT)"
#define LS_FINDING_FIELDS_COLS \
    "(finding_id INTEGER, pos INTEGER, name TEXT, kind TEXT, value,\n" \
    "  PRIMARY KEY (finding_id, pos))"
#define LS_FINDINGS_DDL \
    "CREATE TABLE IF NOT EXISTS findings" LS_FINDINGS_COLS ";\n" \
    "CREATE TABLE IF NOT EXISTS finding_fields" LS_FINDING_FIELDS_COLS ";\n"

#endif
