/*
 * dba.c — the views a DBA without traces reads first (pgBadger's): lock
 * waits summed by lock type and object, waiting statements ranked by their
 * normalized fingerprint (literals replaced, ls_sql_shape), and the
 * blocking transactions ranked by the shape of their first write (the
 * store's tx_code.shape). All from the log alone; the filters apply. And
 * the statement shapes correlation learned the rows of (row_rules), each
 * with the logged wait that taught it: the evidence for the holds of
 * statements that never name the row they lock (issue 34 item 3).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ls_buf.h"
#include "ls_common.h"
#include "ls_sqlshape.h"
#include "model_int.h"

/* A fingerprint is at most this long (longer statements are cut there). */
#define FINGERPRINT_MAX 2000

static const ls_mcol by_lock_cols[] = {
    {"mode", "w.mode", LS_MC_STR},
    {"target_kind", "w.target_kind", LS_MC_STR},
    {"object",
     "coalesce(w.relation, CASE WHEN w.rel_oid IS NOT NULL THEN 'relation ' || w.rel_oid END,"
     " w.target_kind)",
     LS_MC_STR},
    {"waits", "count(*)", LS_MC_INT},
    {"total_wait_ms", "coalesce(sum(w.waited_ms), 0)", LS_MC_MS},
    {"max_wait_ms", "coalesce(max(w.waited_ms), 0)", LS_MC_MS},
    {"sessions", "count(DISTINCT w.pid)", LS_MC_INT},
};
static const ls_mquery by_lock_q =
    LS_MQUERY(NULL, by_lock_cols,
              "FROM " LOCK_WAITS_OWN " w WHERE" WAIT_FILTER("w") "GROUP BY 1, 2, 3"
              " ORDER BY 5 DESC, 4 DESC, 1, 2, 3 LIMIT :limit");

/* Blocking transactions by the shape of their first write: the root of
 * each wait's chain, else the holder the log named. The shape joined from
 * tx_code_rows and shapes, not the tx_code view's subquery, which the
 * grouping evaluated three times a wait (4.4 -> 3.0 M VM steps at 1 GiB);
 * the waits with their links alone (LOCK_WAITS_LINKED), not the view's
 * joins of their chains and rows too (3.04 -> 2.52 M). */
static const ls_mcol by_blocker_cols[] = {
    {"fingerprint", "coalesce(sh.shape, '(no write logged)')", LS_MC_STR},
    {"waits", "count(*)", LS_MC_INT},
    {"total_wait_ms", "coalesce(sum(w.waited_ms), 0)", LS_MC_MS},
    {"max_wait_ms", "coalesce(max(w.waited_ms), 0)", LS_MC_MS},
    {"transactions", "count(DISTINCT coalesce(w.root_tx, w.holder_tx))", LS_MC_INT},
};
static const ls_mquery by_blocker_q =
    LS_MQUERY(NULL, by_blocker_cols,
              "FROM " LOCK_WAITS_LINKED " w LEFT JOIN tx_code_rows c ON c.tx_id = coalesce(w.root_tx, w.holder_tx)"
              " LEFT JOIN shapes sh ON sh.shape_id = c.shape_id WHERE" WAIT_FILTER("w") "GROUP BY 1 ORDER BY 3 DESC, 2 DESC, 1 LIMIT :limit");

/* The waits' statements, to be fingerprinted here. */
static const ls_mcol waiting_cols[] = {
    {"statement", "w.statement", LS_MC_READ},
    {"waited_ms", "coalesce(w.waited_ms, 0)", LS_MC_READ},
};
static const ls_mquery waiting_q =
    LS_MQUERY(NULL, waiting_cols, "FROM " LOCK_WAITS_OWN " w WHERE" WAIT_FILTER("w"));

typedef struct fp_sum {
    char *fp;
    int64_t waits;
    double total, max;
} fp_sum;

typedef struct fp_acc {
    fp_sum *v;
    size_t n, cap;
    ls_buf buf;
    int rc;
} fp_acc;

static fp_sum *fp_find(fp_acc *a, const char *fp)
{
    size_t i;
    for (i = 0; i < a->n; i++)
        if (strcmp(a->v[i].fp, fp) == 0)
            return &a->v[i];
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 64;
        fp_sum *v = realloc(a->v, cap * sizeof(*v));
        if (!v)
            return NULL;
        a->v = v;
        a->cap = cap;
    }
    memset(&a->v[a->n], 0, sizeof(a->v[0]));
    if (!(a->v[a->n].fp = ls_strdup(fp)))
        return NULL;
    return &a->v[a->n++];
}

static void waiting_row(model_ctx *m, ls_stmt *q, void *arg)
{
    fp_acc *a = arg;
    const char *sql = ls_mq_text(&waiting_q, q, "statement");
    double ms = ls_mq_double(&waiting_q, q, "waited_ms");
    fp_sum *s;
    (void)m;
    if (a->rc)
        return;
    ls_buf_reset(&a->buf);
    if (!sql || ls_sql_shape(&a->buf, sql, FINGERPRINT_MAX) != 0 || !a->buf.ptr)
        sql = NULL;
    s = fp_find(a, sql ? a->buf.ptr : "(statement not logged)");
    if (!s) {
        a->rc = LS_ENOMEM;
        return;
    }
    s->waits++;
    s->total += ms;
    if (ms > s->max)
        s->max = ms;
}

static int fp_by_total(const void *x, const void *y)
{
    const fp_sum *a = x, *b = y;
    if (a->total != b->total)
        return a->total < b->total ? 1 : -1;
    return strcmp(a->fp, b->fp);
}

/* waiting_statements[]: the waits' statements by fingerprint, the most
 * waiting first. A log has few distinct fingerprints; a linear search. */
static void waiting_statements(model_ctx *m, cJSON *report, cJSON *list, int top)
{
    fp_acc a = {0};
    size_t i;
    ls_buf_init(&a.buf, 0);
    ls_mq_each_row(m, &waiting_q, -1, waiting_row, &a);
    if (a.rc && !m->rc)
        m->rc = a.rc;
    if (a.n)
        qsort(a.v, a.n, sizeof(a.v[0]), fp_by_total);
    for (i = 0; i < a.n; i++) {
        if ((int)i < top) {
            cJSON *o = cJSON_CreateObject();
            ls_model_add_str(o, "fingerprint", a.v[i].fp);
            cJSON_AddNumberToObject(o, "waits", (double)a.v[i].waits);
            cJSON_AddNumberToObject(o, "total_wait_ms", round(a.v[i].total * 1000.0) / 1000.0);
            cJSON_AddNumberToObject(o, "max_wait_ms", round(a.v[i].max * 1000.0) / 1000.0);
            cJSON_AddItemToArray(list, o);
        }
        free(a.v[i].fp);
    }
    ls_model_cut(report, "waiting_statements", cJSON_GetArraySize(list), (int64_t)a.n, "--top",
                 1);
    free(a.v);
    ls_buf_free(&a.buf);
}

/* Learned statement shapes: what each keys, how far it carries, and the
 * wait that taught it (its session, time and log line). Not filtered: a
 * rule learned anywhere in the log keys statements everywhere in it. */
static const ls_mcol rule_cols[] = {
    {"relation", "u.relation", LS_MC_STR},
    {"key_column", "u.col", LS_MC_STR},
    {"shape", "u.shape", LS_MC_STR},
    {"insert_into", "u.target", LS_MC_STR},
    {"insert_column", "u.target_col", LS_MC_STR},
    {"statements_keyed", "coalesce(k.statements, 0)", LS_MC_INT},
    {"taught_by_pid", "w.pid", LS_MC_INT},
    {"taught_by_", "taught_tx", LS_MC_CODE},
    {"taught_tx", "w.waiter_tx", LS_MC_READ},
    {"taught_by_application", "se.application", LS_MC_STR},
    {"taught_at", "w.start_ts", LS_MC_TS},
    {"taught_row_key", "r.row_key", LS_MC_STR},
    {"file", "f.path", LS_MC_NAME},
    {"line", "w.line", LS_MC_INT},
};
static const ls_mquery rule_q =
    LS_MQUERY(NULL, rule_cols,
              "FROM row_rules u LEFT JOIN rule_keyed k ON k.rule_id = u.rowid"
              " LEFT JOIN lock_waits w ON w.wait_id = u.learned_from"
              " LEFT JOIN rows r ON r.row_id = w.row_id"
              " LEFT JOIN sessions se ON se.session_id = w.session_id"
              " LEFT JOIN files f ON f.file_id = w.file_id"
              " ORDER BY 6 DESC, 1, 3 LIMIT :limit");

static void add_row(model_ctx *m, ls_stmt *q, void *arg, const ls_mquery *mq)
{
    cJSON *o = cJSON_CreateObject();
    ls_mq_add_row(m, o, mq, q, NULL, NULL);
    cJSON_AddItemToArray(arg, o);
}

static void by_lock_row(model_ctx *m, ls_stmt *q, void *arg)
{
    add_row(m, q, arg, &by_lock_q);
}

static void by_blocker_row(model_ctx *m, ls_stmt *q, void *arg)
{
    add_row(m, q, arg, &by_blocker_q);
}

static void rule_row(model_ctx *m, ls_stmt *q, void *arg)
{
    add_row(m, q, arg, &rule_q);
}

void ls_model_dba(model_ctx *m, cJSON *report, int top)
{
    ls_model_list(m, report, report, "waits_by_lock", "waits_by_lock", &by_lock_q, -1, top,
                  by_lock_row, -1, "--top", LS_LIST_TOP, NULL);
    waiting_statements(m, report, cJSON_AddArrayToObject(report, "waiting_statements"), top);
    ls_model_list(m, report, report, "blocking_statements", "blocking_statements", &by_blocker_q,
                  -1, top, by_blocker_row, -1, "--top", LS_LIST_TOP, NULL);
    ls_model_list(m, report, report, "learned_rules", "learned_rules", &rule_q, -1, top, rule_row,
                  -1, "--top", LS_LIST_TOP, NULL);
}
