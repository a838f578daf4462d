/*
 * model_int.h — helpers shared by the files that build the report model
 * (model.c, codepaths.c): reading store rows into cJSON objects.
 */
#ifndef LS_MODEL_INT_H
#define LS_MODEL_INT_H

#include "ls_report.h"

typedef struct model_ctx {
    ls_store *store;
    const ls_report_opts *opts;
    int rc; /* first store error; the model is dropped when set */
    ls_stmt *code_q; /* a transaction's code path (ls_model_add_code), kept prepared */
} model_ctx;

/* Add a string cleaned to valid UTF-8 (NULL adds a JSON null). */
void ls_model_add_str(cJSON *o, const char *key, const char *v);
/* Add column `col` of the current row as a time, integer, milliseconds
 * (rounded to the microsecond) or string; NULL columns add a JSON null. */
void ls_model_col_ts(cJSON *o, const char *key, ls_stmt *q, int col);
void ls_model_col_int(cJSON *o, const char *key, ls_stmt *q, int col);
void ls_model_col_ms(cJSON *o, const char *key, ls_stmt *q, int col);
void ls_model_col_str(cJSON *o, const char *key, ls_stmt *q, int col);
/* Run `sql` (binding ?1 = arg1 when arg1 >= 0) and call row() per row. */
int ls_model_each_row(model_ctx *m, const char *sql, int64_t arg1,
                      void (*row)(model_ctx *, ls_stmt *, void *), void *arg);
/* A transaction with its statements (max_stmts at most) under `key`. */
void ls_model_add_tx(model_ctx *m, cJSON *parent, const char *key, int64_t tx_id,
                     int max_stmts);

/* A transaction's code path beside a pid: adds `<prefix>tx_id`,
 * `<prefix>code_path`, `<prefix>code_path_source` (what named it) and
 * `<prefix>trace_id`, JSON null where the store does not know them. */
void ls_model_add_code(model_ctx *m, cJSON *o, const char *prefix, ls_stmt *q, int tx_col);

/* codepaths.c: the code-path ranking and lock-order section. */
void ls_model_code_paths(model_ctx *m, cJSON *report, int top);
/* The SQL expressions naming a transaction's code path, and what named
 * it, over tx_code c. */
const char *ls_model_code_path_label(const char *group_by);
const char *ls_model_code_path_source(const char *group_by);
/* A WITH clause's tables for the lock-order checks: `o` (label, r1, r2),
 * each code path (the label, an expression over tx_code c, in place of
 * the format's first %s) writing relation r1 before r2. A distinct order
 * of relations is paired once, not once per transaction. */
#define LOCK_ORDER_PAIRS_SQL                                                              \
    "t AS (SELECT DISTINCT %s AS label, c.order_id FROM tx_code c"                        \
    "  WHERE c.order_id IS NOT NULL),"                                                    \
    " o AS (SELECT DISTINCT t.label, a.value AS r1, b.value AS r2 FROM t"                 \
    "  JOIN lock_orders lo ON lo.order_id = t.order_id, json_each(lo.relations) a,"       \
    "  json_each(lo.relations) b WHERE b.key > a.key)"

/* requests.c: the slowest traced requests and their row-lock queueing. */
void ls_model_requests(model_ctx *m, cJSON *report, int top);
/* The database spans' clock offset and where the spans without a backend
 * pid went (summary.trace_spans; nothing without database spans). */
void ls_model_trace_spans(model_ctx *m, cJSON *summary);

/* findings.c: plain-language findings with evidence and a suggested fix,
 * from the sections already in the report. */
void ls_model_findings(model_ctx *m, cJSON *report);

#endif
