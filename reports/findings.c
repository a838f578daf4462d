/*
 * findings.c — the report's findings: read, in the order stored, from the
 * findings the analysis decided (src/correlate/findings.c, the "findings"
 * pass). Each has its rule, a title, the evidence (durations marked for
 * words), the suggested fix, a weight and its rule's fields.
 *
 * The pass decides those of the default code-path grouping over the whole
 * log. For a report over a time window (--since, --until) or another
 * grouping (--group-by), the analysis of its scope (ls_report_opts'
 * scope_enter, src/correlate/scope.c) has the same rules decide its own
 * into temp tables before the report is built; the report reads those
 * when they are there, the same way. The report's lock_order_conflicts
 * list is the inconsistent_lock_order findings' pairs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_buf.h"
#include "ls_columns.h"
#include "model_int.h"
#include "render_int.h"

/* The findings of one schema (main or temp), in the report's order. */
#define FINDING_COLS(X, Q)                                                                         \
    X(Q, finding_id, "finding_id")                                                                 \
    X(Q, rule, "rule")                                                                             \
    X(Q, title, "title")                                                                           \
    X(Q, evidence, "evidence")                                                                     \
    X(Q, fix, "fix")                                                                               \
    X(Q, weight_ms, "weight_ms")
LS_COLUMNS(fq, FINDING_COLS);
#define FINDINGS_FROM " FROM %s.findings ORDER BY seq"

/* A finding's fields, in its rule's order. */
#define FIELD_COLS(X, Q)                                                                           \
    X(Q, name, "name")                                                                             \
    X(Q, kind, "kind")                                                                             \
    X(Q, value, "value")
LS_COLUMNS(ff, FIELD_COLS);
#define FIELDS_FROM " FROM %s.finding_fields WHERE finding_id = :finding ORDER BY pos"
#define FIELDS_PARAMS(X, Q) X(Q, finding)
LS_PARAMS(ffp, FIELDS_PARAMS);

/* Longest of the two statements above, with the schema's name. */
#define FINDINGS_SQL_MAX 256

/* The evidence into out (reset first) with each marked duration (ms
 * between \001 and \002) in words. */
static void humanize(ls_buf *out, const char *evidence)
{
    const char *p = evidence;
    ls_buf_reset(out);
    while (*p) {
        const char *end = p[0] == '\001' ? strchr(p, '\002') : NULL;
        if (end) {
            char d[LS_DURATION_LEN];
            ls_buf_adds(out, ls_fmt_duration(d, sizeof(d), strtod(p + 1, NULL)));
            p = end + 1;
        } else {
            ls_buf_addc(out, *p++);
        }
    }
}

/* Add finding `id`'s fields to o as their kinds say. */
static int add_fields(ls_stmt *fq, cJSON *o, int64_t id)
{
    int rc;
    ls_stmt_bind_int64(fq, LS_PARAM(ffp, finding), id);
    while ((rc = ls_stmt_step(fq)) == 1) {
        const char *name = ls_stmt_text(fq, ff_name);
        char kind = ls_stmt_text(fq, ff_kind)[0];
        if (kind == 's')
            ls_model_col_str(o, name, fq, ff_value);
        else if (kind == 'i')
            ls_model_col_int(o, name, fq, ff_value);
        else
            ls_model_col_ms(o, name, fq, ff_value);
    }
    ls_stmt_reset(fq);
    return rc < 0 ? rc : 0;
}

/* One finding: the current row of q, its fields from fq. */
static int add_finding(ls_stmt *q, ls_stmt *fq, cJSON *list, ls_buf *words)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return LS_ENOMEM;
    cJSON_AddItemToArray(list, o);
    ls_model_col_str(o, "rule", q, fq_rule);
    ls_model_col_str(o, "title", q, fq_title);
    if (!ls_stmt_isnull(q, fq_evidence)) {
        humanize(words, ls_stmt_text(q, fq_evidence));
        if (ls_buf_failed(words))
            return LS_ENOMEM;
        ls_model_add_str(o, "evidence", ls_buf_str(words));
    } else {
        cJSON_AddNullToObject(o, "evidence");
    }
    ls_model_col_str(o, "fix", q, fq_fix);
    ls_model_col_ms(o, "weight_ms", q, fq_weight_ms);
    return add_fields(fq, o, ls_stmt_int64(q, fq_finding_id));
}

/* Read the findings of `schema` into list. */
static int read_findings(model_ctx *m, const char *schema, cJSON *list)
{
    char sql[FINDINGS_SQL_MAX], fsql[FINDINGS_SQL_MAX];
    ls_buf words = LS_BUF_INIT(0);
    ls_stmt *q = NULL, *fq = NULL;
    int rc;

    snprintf(sql, sizeof(sql), "SELECT " LS_SELECT_LIST(fq, FINDING_COLS) FINDINGS_FROM, schema);
    snprintf(fsql, sizeof(fsql), "SELECT " LS_SELECT_LIST(ff, FIELD_COLS) FIELDS_FROM, schema);
    if ((rc = ls_store_prepare(m->store, sql, &q)) == 0 &&
        (rc = ls_store_prepare_params(m->store, fsql, LS_PARAM_NAMES(FIELDS_PARAMS), &fq)) == 0)
        while ((rc = ls_stmt_step(q)) == 1)
            if ((rc = add_finding(q, fq, list, &words)) != 0)
                break;
    ls_stmt_finalize(q);
    ls_stmt_finalize(fq);
    ls_buf_free(&words);
    return rc < 0 ? rc : 0;
}

/* Did the scope's analysis decide findings of its own (temp.findings)?
 * 1, 0, or a store error. */
static int scoped(model_ctx *m)
{
    ls_stmt *q = NULL;
    int rc = ls_store_prepare(m->store,
                              "SELECT 1 FROM temp.sqlite_master"
                              " WHERE type = 'table' AND name = 'findings'",
                              &q);
    if (rc == 0)
        rc = ls_stmt_step(q);
    ls_stmt_finalize(q);
    return rc;
}

/* The fields of a lock-order finding that lock_order_conflicts lists. */
static const char *const conflict_keys[] = {"code_path", "first", "then", "other_code_path",
                                            "first_row", "then_row", "deadlocks"};

/* report's lock_order_conflicts (its place set by the code paths,
 * codepaths.c): the pairs of the inconsistent_lock_order findings of
 * `list`, in their order. */
static int add_conflicts(cJSON *report, const cJSON *list)
{
    cJSON *out = cJSON_GetObjectItemCaseSensitive(report, "lock_order_conflicts");
    const cJSON *f;
    size_t i;

    if (!out)
        return 0;
    cJSON_ArrayForEach(f, list) {
        const cJSON *rule = cJSON_GetObjectItemCaseSensitive(f, "rule");
        cJSON *o;
        if (!cJSON_IsString(rule) || strcmp(rule->valuestring, "inconsistent_lock_order") != 0)
            continue;
        if (!(o = cJSON_CreateObject()) || !cJSON_AddItemToArray(out, o)) {
            cJSON_Delete(o);
            return LS_ENOMEM;
        }
        for (i = 0; i < sizeof(conflict_keys) / sizeof(conflict_keys[0]); i++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, conflict_keys[i]);
            cJSON *copy = v ? cJSON_Duplicate(v, 0) : cJSON_CreateNull();
            if (!copy || !cJSON_AddItemToObject(o, conflict_keys[i], copy)) {
                cJSON_Delete(copy);
                return LS_ENOMEM;
            }
        }
    }
    return 0;
}

void ls_model_findings(model_ctx *m, cJSON *report)
{
    cJSON *list = cJSON_AddArrayToObject(report, "findings");
    int rc = scoped(m);

    if (rc >= 0)
        rc = read_findings(m, rc == 1 ? "temp" : "main", list);
    if (rc >= 0)
        rc = add_conflicts(report, list);
    if (rc < 0)
        m->rc = rc;
}
