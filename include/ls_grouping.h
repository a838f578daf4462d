/*
 * ls_grouping.h — the groupings of transactions into code paths
 * (--group-by), each a pair of columns of the tx_code view aliased c:
 * the path's label and what named it (store_schema.h). The findings and
 * report summary passes use the default one; correlation sums a report
 * window's rankings by any (src/correlate/scope.c) and the report names
 * paths by them (reports/codepaths.c): one table.
 */
#ifndef LS_GROUPING_H_PUBLIC
#define LS_GROUPING_H_PUBLIC

typedef struct ls_grouping {
    const char *name;   /* as --group-by names it */
    const char *label;  /* the column of the path's label */
    const char *source; /* the column of what named it */
} ls_grouping;

/* The grouping called name, or NULL for a name that is none (or NULL). */
const ls_grouping *ls_grouping_find(const char *name);

/* The default grouping (function). */
const ls_grouping *ls_grouping_default(void);

#endif
