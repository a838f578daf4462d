/*
 * findings.h — findings decided by the analysis: each rule's candidates
 * gathered with SQL over the views, decided by decide/finding.c, and
 * written as rows of `findings` and `finding_fields` (findings_schema.h).
 *
 * The "findings" correlation pass writes those of the default grouping
 * over the whole log into the store; the report reads them. A report
 * over a time window (--since, --until) or another grouping (--group-by)
 * has them written for it into temp tables of the same columns.
 */
#ifndef LS_FINDINGS_H
#define LS_FINDINGS_H

#include <stdint.h>

#include "ls_correlate.h"

/* What the findings are decided over. */
typedef struct ls_findings_scope {
    const char *grouping;  /* its name, stored in findings.grouping */
    const char *label_sql; /* the code path of a transaction over tx_code c */
    int64_t since, until;  /* the window; 0 or LS_TS_NONE: open */
    int temp;              /* 1: temp.findings (made and emptied first); 0: main */
} ls_findings_scope;

/*
 * Decide every rule's findings over the scope and write them, in the
 * report's order, into the findings tables of scope->temp's schema.
 * 0 or a store error (nothing is half written only inside a transaction:
 * the caller's).
 */
int ls_findings_write(ls_store *s, const ls_findings_scope *scope);

/* The correlation pass: the default grouping over the whole log. */
int ls_correlate_findings(ls_store *s, ls_correlate_stats *stats);

#endif
