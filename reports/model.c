/*
 * model.c — build the report model (a cJSON tree) from the store.
 *
 * Every section is one query; every string read from the store is cleaned
 * to valid UTF-8 before it enters the model, so the renderers only have to
 * escape for their own syntax. Lists are bounded by opts->top,
 * max_waits, max_deadlocks and max_errors, and a list cut says so (its
 * cut.<path>, ls_model_list); the summary's totals are always exact.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ls_columns.h"
#include "plan_sql.h"
#include "model_int.h"

void ls_model_add_str(cJSON *o, const char *key, const char *v)
{
    char *c;
    if (!v) {
        cJSON_AddNullToObject(o, key);
        return;
    }
    c = ls_utf8_clean(v);
    if (c) {
        cJSON_AddStringToObject(o, key, c);
        free(c);
    }
}

static void iso_time(char out[40], int64_t us)
{
    char tmp[32];
    ls_ts_format(tmp, us);
    /* "YYYY-MM-DD HH:MM:SS.ffffff" → "YYYY-MM-DDTHH:MM:SS.ffffffZ" */
    tmp[10] = 'T';
    snprintf(out, 40, "%sZ", tmp);
}

void ls_model_col_ts(cJSON *o, const char *key, ls_stmt *q, int col)
{
    char buf[40];
    if (ls_stmt_isnull(q, col)) {
        cJSON_AddNullToObject(o, key);
        return;
    }
    iso_time(buf, ls_stmt_int64(q, col));
    cJSON_AddStringToObject(o, key, buf);
}

void ls_model_col_int(cJSON *o, const char *key, ls_stmt *q, int col)
{
    if (ls_stmt_isnull(q, col))
        cJSON_AddNullToObject(o, key);
    else
        cJSON_AddNumberToObject(o, key, (double)ls_stmt_int64(q, col));
}

void ls_model_col_ms(cJSON *o, const char *key, ls_stmt *q, int col)
{
    if (ls_stmt_isnull(q, col)) {
        cJSON_AddNullToObject(o, key);
    } else {
        /* Milliseconds to the microsecond, stable across platforms. */
        double v = (double)(int64_t)(ls_stmt_double(q, col) * 1000.0 + 0.5) / 1000.0;
        cJSON_AddNumberToObject(o, key, v);
    }
}

/* A file name: control characters kept, for the JSON report to escape
 * as \u and the others to show escaped (ls_utf8_clean_name). */
static void add_name(cJSON *o, const char *key, ls_stmt *q, int col)
{
    char *c;
    if (ls_stmt_isnull(q, col)) {
        cJSON_AddNullToObject(o, key);
        return;
    }
    if ((c = ls_utf8_clean_name(ls_stmt_text(q, col))) != NULL) {
        cJSON_AddStringToObject(o, key, c);
        free(c);
    }
}

void ls_model_col_str(cJSON *o, const char *key, ls_stmt *q, int col)
{
    ls_model_add_str(o, key, ls_stmt_isnull(q, col) ? NULL : ls_stmt_text(q, col));
}

/* A transaction's code path, as ls_model_add_code adds it after its
 * tx_id, each key with the caller's prefix: the SQL of the first two is
 * set by --group-by (codepaths.c), over tx_code c. */
enum { CODE_COLS = 3 };
static const char *const code_keys[CODE_COLS] = {"code_path", "code_path_source", "trace_id"};


#define CODE_PARAMS(X, Q) X(Q, tx)
LS_PARAMS(cq, CODE_PARAMS);

/* Prepare m->code_q: SELECT the code_keys' expressions for tx :tx. */
static int code_prepare(model_ctx *m)
{
    const ls_mcol cols[CODE_COLS] = {
        {code_keys[0], ls_model_code_path_label(m->opts->group_by), LS_MC_STR},
        {code_keys[1], ls_model_code_path_source(m->opts->group_by), LS_MC_STR},
        {code_keys[2], "c.trace_id", LS_MC_STR},
    };
    const ls_mquery mq =
        LS_MQUERY_P(NULL, cols, "FROM tx_code c WHERE c.tx_id = :tx", LS_PARAM_NAMES(CODE_PARAMS));
    return ls_mq_prepare(m, &mq, &m->code_q);
}

/*
 * The code path of transaction `tx_col` of row q, beside its pid. One
 * statement, prepared on first use and kept for the whole model: it runs
 * once per wait, hold and process listed.
 */
void ls_model_add_code(model_ctx *m, cJSON *o, const char *prefix, ls_stmt *q, int tx_col)
{
    char key[64];
    int64_t tx = tx_col < 0 || ls_stmt_isnull(q, tx_col) ? 0 : ls_stmt_int64(q, tx_col);
    int rc = 0, i;

    if (!m->code_q && tx > 0 && (rc = code_prepare(m)) != 0) {
        m->rc = rc;
        return;
    }
    if (tx > 0) {
        ls_stmt_reset(m->code_q);
        ls_stmt_bind_int64(m->code_q, LS_PARAM(cq, tx), tx);
        rc = ls_stmt_step(m->code_q);
    }
    snprintf(key, sizeof(key), "%stx_id", prefix);
    if (tx > 0)
        cJSON_AddNumberToObject(o, key, (double)tx);
    else
        cJSON_AddNullToObject(o, key);
    for (i = 0; i < CODE_COLS; i++) {
        snprintf(key, sizeof(key), "%s%s", prefix, code_keys[i]);
        if (rc == 1)
            ls_model_col_str(o, key, m->code_q, i);
        else
            cJSON_AddNullToObject(o, key);
    }
    if (rc < 0)
        m->rc = rc;
}

/* "1,2,3" → [1,2,3] */
static void add_pid_list(cJSON *o, const char *key, const char *list)
{
    cJSON *a = cJSON_AddArrayToObject(o, key);
    const char *p = list;
    while (a && p && *p) {
        long v = 0;
        int digits = 0;
        for (; *p >= '0' && *p <= '9'; p++, digits++)
            v = v * 10 + (*p - '0');
        if (digits)
            cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v));
        while (*p && (*p < '0' || *p > '9'))
            p++;
    }
}

#define ENDED_WAIT(ts) \
    IN_REL("x") " AND " ts " BETWEEN x.start_ts AND coalesce(x.end_ts, x.logged_ts, x.start_ts) + 1000000"
#define ERROR_FILTER(a)                                                               \
    " (:since IS NULL OR " a ".ts >= :since) AND (:until IS NULL OR " a ".ts <= :until)"          \
    " AND (:relation IS NULL OR EXISTS (SELECT 1 FROM lock_waits x"                         \
    " WHERE x.session_id = " a ".session_id AND " ENDED_WAIT(a ".ts") "))"            \
    " AND " IN_DB(a ".session_id") " "
#define DEADLOCK_FILTER(a)                                                            \
    " (:since IS NULL OR " a ".ts >= :since) AND (:until IS NULL OR " a ".ts <= :until)"          \
    " AND (:relation IS NULL OR EXISTS (SELECT 1 FROM deadlock_edges g JOIN lock_waits x"   \
    " ON x.pid = g.waiter_pid WHERE g.deadlock_id = " a ".deadlock_id AND "           \
    ENDED_WAIT(a ".ts") ")) AND " IN_DB(a ".victim_session") " "

/* A hot row's timeline lists at most this many waits (and hidden waits;
 * twice as many queue-depth points) and holds, unless --max-waits gives
 * another bound (then both are that); timeline.cut says what is left out. */
#define ROW_WAITS_LISTED 200
/* The deadlocks and errors the report lists (--max-deadlocks,
 * --max-errors give others); cut says when there are more. */
#define DEADLOCKS_LISTED 100
#define ERRORS_LISTED 200
#define ROW_HOLDS_LISTED 100

static int filter_set(int64_t t)
{
    return t != 0 && t != LS_TS_NONE;
}

/* Bind parameter :name of q, when q has one, to v. */
static void bind_named(ls_stmt *q, const char *name, int64_t v)
{
    int i = ls_stmt_param(q, name);
    if (i > 0)
        ls_stmt_bind_int64(q, i, v);
}

static void bind_named_text(ls_stmt *q, const char *name, const char *v)
{
    int i = ls_stmt_param(q, name);
    if (i > 0)
        ls_stmt_bind_text(q, i, v);
}

/* The parameters of MODEL_PARAMS that q has: its argument (arg1, when
 * >= 0), the filters, and the bounds of a hot row's timeline lists. Each
 * name is looked up once per prepared query; a failed bind is kept by
 * the statement and returned by its first step (ls_store.h). */
static void bind_filters(model_ctx *m, ls_stmt *q, int64_t arg1)
{
    static const char *const args[] = {"limit", "row_id", "deadlock_id", "at"};
    const ls_report_opts *o = m->opts;
    size_t i;
    for (i = 0; arg1 >= 0 && i < sizeof(args) / sizeof(args[0]); i++)
        bind_named(q, args[i], arg1);
    /* A hot row's timeline lists (ROW_WAITS_LISTED, ROW_HOLDS_LISTED). */
    bind_named(q, "waits_listed", o->max_waits > 0 ? o->max_waits : ROW_WAITS_LISTED);
    bind_named(q, "holds_listed", o->max_waits > 0 ? o->max_waits : ROW_HOLDS_LISTED);
    if (filter_set(o->since))
        bind_named(q, "since", o->since);
    if (filter_set(o->until))
        bind_named(q, "until", o->until);
    bind_named_text(q, "relation", o->relation);
    bind_named_text(q, "database", o->database);
    bind_named_text(q, "code_path", o->code_path);
}

/* The filter, as the summary states it; nothing when there is none. */
static void add_filter(model_ctx *m, cJSON *sum)
{
    const ls_report_opts *o = m->opts;
    char buf[40];
    cJSON *f;
    if (!filter_set(o->since) && !filter_set(o->until) && !o->relation && !o->database &&
        !o->code_path)
        return;
    f = cJSON_AddObjectToObject(sum, "filter");
    if (filter_set(o->since))
        iso_time(buf, o->since);
    ls_model_add_str(f, "since", filter_set(o->since) ? buf : NULL);
    if (filter_set(o->until))
        iso_time(buf, o->until);
    ls_model_add_str(f, "until", filter_set(o->until) ? buf : NULL);
    ls_model_add_str(f, "relation", o->relation);
    ls_model_add_str(f, "database", o->database);
    ls_model_add_str(f, "code_path", o->code_path);
    cJSON_AddStringToObject(f, "applies_to", "waits, root blockers, deadlocks, errors and their "
                            "counts; hot rows are those with a wait in the filter; the time "
                            "window also to everything computed from events (rankings, "
                            "timelines, each row's figures, findings, slow requests): waits and "
                            "requests that overlap it, holds clipped to it");
}

/* Run `sql` (of MODEL_PARAMS: its argument, a limit, a row, a deadlock or
 * a time, bound to `limit` when >= 0) and call row() per row. */
int ls_model_each_row(model_ctx *m, const char *sql, int64_t limit,
                    void (*row)(model_ctx *, ls_stmt *, void *), void *arg)
{
    ls_stmt *q;
    int rc = ls_store_prepare_vocab(m->store, sql, LS_PARAM_NAMES(MODEL_PARAMS), &q);
    if (rc)
        return m->rc = rc;
    bind_filters(m, q, limit);
    while ((rc = ls_stmt_step(q)) == 1)
        row(m, q, arg);
    ls_stmt_finalize(q);
    if (rc < 0)
        m->rc = rc;
    return rc < 0 ? rc : 0;
}

/* ---- queries by column name ---- */

static int mc_selected(const ls_mcol *c)
{
    return c->kind != LS_MC_CODE && c->kind != LS_MC_HOOK;
}

/* The position of column `name` in mq's SELECT list, or -1. */
static int mq_col(const ls_mquery *mq, const char *name)
{
    size_t i;
    int pos = 0;
    for (i = 0; i < mq->ncols; i++) {
        if (!mc_selected(&mq->cols[i]))
            continue;
        if (strcmp(mq->cols[i].key, name) == 0)
            return pos;
        pos++;
    }
    return -1;
}

int ls_mq_isnull(const ls_mquery *mq, ls_stmt *q, const char *name)
{
    int col = mq_col(mq, name);
    return col < 0 || ls_stmt_isnull(q, col);
}

int64_t ls_mq_int64(const ls_mquery *mq, ls_stmt *q, const char *name)
{
    int col = mq_col(mq, name);
    return col < 0 ? 0 : ls_stmt_int64(q, col);
}

double ls_mq_double(const ls_mquery *mq, ls_stmt *q, const char *name)
{
    int col = mq_col(mq, name);
    return col < 0 ? 0 : ls_stmt_double(q, col);
}

const char *ls_mq_text(const ls_mquery *mq, ls_stmt *q, const char *name)
{
    int col = mq_col(mq, name);
    return col < 0 ? NULL : ls_stmt_text(q, col);
}

/* Append s at *p (the caller sized the buffer). */
static void put(char **p, const char *s)
{
    size_t n = strlen(s);
    memcpy(*p, s, n);
    *p += n;
}

/* "WITH ... SELECT e1, e2, ... FROM ...": malloc'ed, NULL on memory
 * exhaustion. */
static char *mq_sql(const ls_mquery *mq)
{
    size_t i, len = strlen(mq->from) + sizeof("SELECT  ");
    char *sql, *p;
    int n = 0;
    if (mq->with)
        len += strlen(mq->with) + 1;
    for (i = 0; i < mq->ncols; i++)
        if (mc_selected(&mq->cols[i]))
            len += strlen(mq->cols[i].expr) + 2;
    if (!(sql = malloc(len)))
        return NULL;
    p = sql;
    if (mq->with) {
        put(&p, mq->with);
        put(&p, " ");
    }
    put(&p, "SELECT ");
    for (i = 0; i < mq->ncols; i++) {
        if (!mc_selected(&mq->cols[i]))
            continue;
        if (n++)
            put(&p, ", ");
        put(&p, mq->cols[i].expr);
    }
    put(&p, " ");
    put(&p, mq->from);
    *p = '\0';
    return sql;
}

void ls_mq_add_row(model_ctx *m, cJSON *o, const ls_mquery *mq, ls_stmt *q, ls_mq_hook hook,
                   void *arg)
{
    size_t i;
    int pos = 0;
    for (i = 0; i < mq->ncols; i++) {
        const ls_mcol *c = &mq->cols[i];
        switch (c->kind) {
        case LS_MC_INT: ls_model_col_int(o, c->key, q, pos); break;
        case LS_MC_MS: ls_model_col_ms(o, c->key, q, pos); break;
        case LS_MC_TS: ls_model_col_ts(o, c->key, q, pos); break;
        case LS_MC_STR: ls_model_col_str(o, c->key, q, pos); break;
        case LS_MC_NAME: add_name(o, c->key, q, pos); break;
        case LS_MC_BOOL: cJSON_AddBoolToObject(o, c->key, ls_stmt_int64(q, pos) != 0); break;
        case LS_MC_BOOLN:
            if (ls_stmt_isnull(q, pos))
                cJSON_AddNullToObject(o, c->key);
            else
                cJSON_AddBoolToObject(o, c->key, ls_stmt_int64(q, pos) != 0);
            break;
        case LS_MC_PIDS: add_pid_list(o, c->key, ls_stmt_text(q, pos)); break;
        case LS_MC_READ: break;
        case LS_MC_CODE: ls_model_add_code(m, o, c->key, q, mq_col(mq, c->expr)); break;
        case LS_MC_HOOK:
            if (hook)
                hook(m, o, q, c->key, arg);
            break;
        }
        pos += mc_selected(c);
    }
}

int ls_mq_each_row(model_ctx *m, const ls_mquery *mq, int64_t arg1,
                   void (*row)(model_ctx *, ls_stmt *, void *), void *arg)
{
    char *sql = mq_sql(mq);
    int rc;
    if (!sql)
        return m->rc = LS_ENOMEM;
    rc = ls_model_each_row(m, sql, arg1, row, arg);
    free(sql);
    return rc;
}

/* Figures of o (keys, NULL-ended) made null. */
static void to_null(cJSON *o, const char *const *keys)
{
    for (; *keys; keys++)
        if (cJSON_GetObjectItemCaseSensitive(o, *keys))
            cJSON_ReplaceItemInObjectCaseSensitive(o, *keys, cJSON_CreateNull());
}

/* ---- summary ---- */

/* Something from time s to e (e NULL: s alone) that overlaps the time
 * window :since..:until: with a window, the summary counts only the sessions and
 * statements active in it. */
#define SPAN_IN_WINDOW(s, e) \
    " (:since IS NULL OR coalesce(" e ", " s ") >= :since) AND (:until IS NULL OR " s " <= :until) "

static const ls_mcol summary_cols[] = {
    {"time_range", NULL, LS_MC_HOOK},
    {"start", "(SELECT min(first_ts) FROM files)", LS_MC_READ},
    {"end", "(SELECT max(last_ts) FROM files)", LS_MC_READ},
    {"files", "(SELECT count(*) FROM files)", LS_MC_INT},
    {"lines", "(SELECT coalesce(sum(lines),0) FROM files)", LS_MC_INT},
    {"records", "(SELECT coalesce(sum(records),0) FROM files)", LS_MC_INT},
    {"bad_lines", "(SELECT coalesce(sum(bad_lines),0) FROM files)", LS_MC_INT},
    {"sessions",
     "CASE WHEN :since IS NULL AND :until IS NULL THEN (SELECT count(*) FROM sessions) ELSE"
     " (SELECT count(*) FROM sessions s WHERE" SPAN_IN_WINDOW("coalesce(s.first_ts, s.start_ts)",
                                                             "coalesce(s.last_ts, s.end_ts)") ")"
     " END", LS_MC_INT},
    {"statements",
     "CASE WHEN :since IS NULL AND :until IS NULL THEN (SELECT count(*) FROM statements) ELSE"
     " (SELECT count(*) FROM statements st WHERE" SPAN_IN_WINDOW("st.start_ts", "st.end_ts") ")"
     " END", LS_MC_INT},
    {"waits", "(SELECT count(*) FROM fw)", LS_MC_INT},
    {"waits_linked", "(SELECT count(*) FROM fw WHERE blocker_pid IS NOT NULL)", LS_MC_INT},
    {"total_wait_ms", "(SELECT coalesce(sum(waited_ms),0) FROM fw)", LS_MC_MS},
    {"max_wait_ms", "(SELECT coalesce(max(waited_ms),0) FROM fw)", LS_MC_MS},
    {"deadlocks", "(SELECT count(*) FROM fd)", LS_MC_INT},
    {"lock_timeouts", "(SELECT count(*) FROM fe WHERE class = 'lock_timeout')", LS_MC_INT},
    {"lock_nowait_failures", "(SELECT count(*) FROM fe WHERE class = 'lock_nowait')", LS_MC_INT},
    {"statement_timeouts", "(SELECT count(*) FROM fe WHERE class = 'statement_timeout')",
     LS_MC_INT},
    {"serialization_failures", "(SELECT count(*) FROM fe WHERE class = 'serialization_failure')",
     LS_MC_INT},
    {"idle_in_transaction_timeouts",
     "(SELECT count(*) FROM fe WHERE class = 'idle_in_transaction_timeout')", LS_MC_INT},
    /* Read by structure alone (ls_classify.h), and lock-wait messages no
     * message table matched: the server's catalog is one lockspan lacks. */
    {"structural_lines",
     "coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'structural_lines'), 0)",
     LS_MC_INT},
    {"unmatched_lock_messages", NULL, LS_MC_HOOK},
    {"lock_unmatched",
     "coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'lock_unmatched'), 0)",
     LS_MC_READ},
    {"lock_unread",
     "coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'lock_unread'), 0)",
     LS_MC_READ},
    {"lock_sample", "(SELECT value FROM meta WHERE key = 'lock_sample')", LS_MC_READ},
    {"lock_sample_lang", "(SELECT value FROM meta WHERE key = 'lock_sample_lang')", LS_MC_READ},
};
static const ls_mquery summary_q =
    /* fw, read four times, is materialized: with the two columns read
     * alone, not every column of the lock_waits view (its relation,
     * holders and queue looked up for every wait: 6 M SQLite VM steps at
     * 1 GiB). */
    LS_MQUERY("WITH fw AS (SELECT w.blocker_pid, w.waited_ms FROM " LOCK_WAITS_OWN " w WHERE"
              WAIT_FILTER("w") "),"
              " fe AS (SELECT e.class FROM errors e WHERE" ERROR_FILTER("e") "),"
              " fd AS (SELECT d.deadlock_id FROM deadlocks d WHERE" DEADLOCK_FILTER("d") ")",
              summary_cols, "");

/* Column `name` of q (built from mq) as a time under `key`. */
static void mq_add_ts(cJSON *o, const char *key, const ls_mquery *mq, ls_stmt *q,
                      const char *name)
{
    if (ls_mq_isnull(mq, q, name))
        cJSON_AddNullToObject(o, key);
    else
        ls_model_col_ts(o, key, q, mq_col(mq, name));
}

static void summary_hook(model_ctx *m, cJSON *o, ls_stmt *q, const char *key, void *arg)
{
    if (strcmp(key, "time_range") == 0) {
        cJSON *range = cJSON_AddObjectToObject(o, key);
        mq_add_ts(range, "start", &summary_q, q, "start");
        mq_add_ts(range, "end", &summary_q, q, "end");
    } else if (ls_stmt_int64(q, mq_col(&summary_q, "lock_unmatched")) > 0) {
        cJSON *u = cJSON_AddObjectToObject(o, key);
        ls_model_col_int(u, "count", q, mq_col(&summary_q, "lock_unmatched"));
        ls_model_col_int(u, "unread", q, mq_col(&summary_q, "lock_unread"));
        ls_model_col_str(u, "sample", q, mq_col(&summary_q, "lock_sample"));
        ls_model_col_str(u, "language", q, mq_col(&summary_q, "lock_sample_lang"));
    }
    (void)m;
    (void)arg;
}

static void summary_row(model_ctx *m, ls_stmt *q, void *arg)
{
    ls_mq_add_row(m, arg, &summary_q, q, summary_hook, NULL);
}

/* Queueing the log did not show, and whether it could be rebuilt: that
 * needs statement logging (durations, or log_statement) or traces. */
/* A queued statement of row_waits overlapping the time window (:since, :until);
 * the other filters do not apply to the rebuilt queues. */
#define QUEUED_IN_WINDOW \
    " (:since IS NULL OR coalesce(end_ts, start_ts) >= :since)"                    \
    " AND (:until IS NULL OR start_ts <= :until) "
static const ls_mcol hidden_cols[] = {
    {"reconstructed", "(SELECT count(*) FROM statements) > 0", LS_MC_BOOL},
    {"hidden_wait_ms",
     "(SELECT coalesce(sum(max(0, wait_ms - coalesce(logged_ms, 0))), 0) FROM row_waits"
     " WHERE" QUEUED_IN_WINDOW ")",
     LS_MC_MS},
    {"logged_wait_ms",
     "(SELECT coalesce(sum(logged_ms), 0) FROM row_waits WHERE" QUEUED_IN_WINDOW ")", LS_MC_MS},
    {"statements_waited_unlogged",
     "(SELECT count(*) FROM row_waits WHERE wait_ms > 20 AND kind = 'inferred' AND"
     QUEUED_IN_WINDOW ")", LS_MC_INT},
};
static const ls_mquery hidden_q = LS_MQUERY(NULL, hidden_cols, "");

static void hidden_row(model_ctx *m, ls_stmt *q, void *arg)
{
    cJSON *h = cJSON_AddObjectToObject(arg, "hidden_waits");
    ls_mq_add_row(m, h, &hidden_q, q, NULL, NULL);
    if (ls_mq_int64(&hidden_q, q, "reconstructed")) {
        /* A threshold or classes log (input.logging.verdict): the
         * statements that waited are not in it, or not timed
         * (decide/logcover.c, issue 34). */
        const cJSON *ms = cJSON_GetObjectItemCaseSensitive(h, "hidden_wait_ms");
        ls_logcover_hidden k = ls_logcover_hidden_decide(
            (ls_logcover)m->logcover, cJSON_IsNumber(ms) ? ms->valuedouble : 0.0);
        if (k == LS_HIDDEN_UNKNOWN) {
            /* and how many statements waited unlogged: those are the
             * statements not in the log (its 0 is no count) */
            cJSON_ReplaceItemInObjectCaseSensitive(h, "hidden_wait_ms", cJSON_CreateNull());
            cJSON_ReplaceItemInObjectCaseSensitive(h, "statements_waited_unlogged",
                                                   cJSON_CreateNull());
            ls_model_add_str(h, "unknown_reason",
                             m->logcover == LS_LOGCOVER_CLASSES
                                 ? "Only some statement classes were logged (log_statement = "
                                   "'mod': no reads, no SELECT ... FOR UPDATE, no BEGIN/COMMIT, "
                                   "no durations): a statement that waited less than "
                                   "deadlock_timeout is not in the log or has no duration, so "
                                   "the hidden waiting is not knowable from this log."
                                 : "Statements were logged only past a duration threshold "
                                   "(log_min_duration_statement): a statement that waited less "
                                   "than deadlock_timeout and finished under the threshold is "
                                   "not in the log, so the hidden waiting is not knowable from "
                                   "this log.");
        }
        if (k == LS_HIDDEN_AT_LEAST)
            cJSON_AddTrueToObject(h, "at_least");
    } else {
        /* No statement logged (verdict none or no_statements): nothing to
         * rebuild from, so the 0 the query gives is no answer (samples/
         * blind-pl: 158 s never logged); unknown, with the reason. */
        if (ls_logcover_hidden_decide((ls_logcover)m->logcover, 0.0) == LS_HIDDEN_UNKNOWN) {
            /* nor the share of the rebuilt queueing the log showed, nor
             * how many statements waited unlogged: nothing was rebuilt,
             * so their 0s are no figures either (samples/blind-pl, whose
             * log has 33 waits over 1 s) */
            static const char *const keys[] = {"hidden_wait_ms", "logged_wait_ms",
                                               "statements_waited_unlogged", NULL};
            to_null(h, keys);
            ls_model_add_str(h, "unknown_reason",
                             "No statement was logged (log_statement = 'none', no "
                             "log_min_duration_statement): a statement that waited less than "
                             "deadlock_timeout is not in the log, so the hidden waiting is not "
                             "knowable from this log.");
        }
        ls_model_add_str(h, "note",
                         "The log has no statements, so waits shorter than deadlock_timeout "
                         "cannot be rebuilt: set log_min_duration_statement = 0 (or "
                         "log_statement = 'all'), or pass the application's traces.");
    }
}

static const ls_mcol outcome_cols[] = {
    {"outcome", "outcome", LS_MC_READ},
    {"waits", "count(*)", LS_MC_READ},
};
static const ls_mquery outcome_q =
    LS_MQUERY(NULL, outcome_cols,
              "FROM " LOCK_WAITS_OWN " w WHERE" WAIT_FILTER("w") "GROUP BY outcome ORDER BY outcome");

static void outcome_row(model_ctx *m, ls_stmt *q, void *arg)
{
    cJSON_AddNumberToObject(arg, ls_mq_text(&outcome_q, q, "outcome"),
                            (double)ls_mq_int64(&outcome_q, q, "waits"));
    (void)m;
}

/* ---- transactions ---- */

static const ls_mcol tx_cols[] = {
    {"tx_id", "t.tx_id", LS_MC_INT},
    {"pid", "t.pid", LS_MC_INT},
    {"xid", "t.xid", LS_MC_INT},
    {"explicit", "t.explicit", LS_MC_BOOL},
    {"start", "t.start_ts", LS_MC_TS},
    {"start_known", "t.start_known", LS_MC_STR},
    {"end", "t.end_ts", LS_MC_TS},
    {"end_known", "t.end_known", LS_MC_STR},
    {"outcome", "t.outcome", LS_MC_STR},
    {"duration_ms", NULL, LS_MC_HOOK},
    {"statement_count", "t.statements", LS_MC_INT},
    {"sql_ms", "t.sql_ms", LS_MC_MS},
    {"idle_ms", "t.idle_ms", LS_MC_MS},
    {"max_idle_ms", "t.max_idle_ms", LS_MC_MS},
    {"commit_ms", "t.commit_ms", LS_MC_MS},
    {"session_id", "t.session_id", LS_MC_READ},
    {"first_stmt", "t.first_stmt", LS_MC_READ},
    {"last_stmt", "t.last_stmt", LS_MC_READ},
    {"start_ts", "t.start_ts", LS_MC_READ},
    {"end_ts", "t.end_ts", LS_MC_READ},
};
#define TX_PARAMS(X, Q) X(Q, tx)
LS_PARAMS(txq, TX_PARAMS);
static const ls_mquery tx_q =
    LS_MQUERY_P(NULL, tx_cols, "FROM transactions t WHERE t.tx_id = :tx",
                LS_PARAM_NAMES(TX_PARAMS));

static const ls_mcol tx_stmt_cols[] = {
    {"start", "start_ts", LS_MC_TS},
    {"duration_ms", "duration_ms", LS_MC_MS},
    {"idle_before_ms", NULL, LS_MC_HOOK},
    {"text", "text", LS_MC_STR},
    {"start_ts", "start_ts", LS_MC_READ},
    {"end_ts", "end_ts", LS_MC_READ},
};
#define TX_STMT_PARAMS(X, Q) X(Q, session) X(Q, first) X(Q, last) X(Q, max)
LS_PARAMS(tsq, TX_STMT_PARAMS);
static const ls_mquery tx_stmt_q =
    LS_MQUERY_P(NULL, tx_stmt_cols,
                "FROM statements WHERE +session_id = :session AND stmt_id BETWEEN :first AND :last"
                " AND (verb IS NULL OR verb NOT IN ('parse', 'bind')) ORDER BY stmt_id LIMIT :max",
                LS_PARAM_NAMES(TX_STMT_PARAMS));

/* How many statements tx_stmt_q lists of a transaction unbounded. */
static const char tx_stmt_count_sql[] =
    "SELECT count(*) FROM statements WHERE +session_id = :session AND stmt_id BETWEEN :first AND"
    " :last AND (verb IS NULL OR verb NOT IN ('parse', 'bind'))";
#define TX_COUNT_PARAMS(X, Q) X(Q, session) X(Q, first) X(Q, last)
LS_PARAMS(tcq, TX_COUNT_PARAMS);

/* A transaction's length in whole ms, when its end is known. */
static void tx_hook(model_ctx *m, cJSON *o, ls_stmt *q, const char *key, void *arg)
{
    if (!ls_mq_isnull(&tx_q, q, "end_ts"))
        cJSON_AddNumberToObject(o, key,
                                (double)((ls_mq_int64(&tx_q, q, "end_ts") -
                                          ls_mq_int64(&tx_q, q, "start_ts")) /
                                         1000));
    else
        cJSON_AddNullToObject(o, key);
    (void)m;
    (void)arg;
}

/* The idle gap before a statement: from the previous one's end (*arg, 0
 * for the first) to its start, in whole ms. */
static void idle_hook(model_ctx *m, cJSON *o, ls_stmt *q, const char *key, void *arg)
{
    int64_t prev_end = *(const int64_t *)arg, start = ls_mq_int64(&tx_stmt_q, q, "start_ts");
    cJSON_AddNumberToObject(o, key,
                            prev_end && start > prev_end ? (double)((start - prev_end) / 1000)
                                                         : 0);
    (void)m;
}

int ls_mq_prepare(model_ctx *m, const ls_mquery *mq, ls_stmt **out)
{
    char *sql = mq_sql(mq);
    int rc;
    *out = NULL;
    if (!sql)
        return LS_ENOMEM;
    rc = mq->params ? ls_store_prepare_params(m->store, sql, mq->params, out)
                    : ls_store_prepare_vocab(m->store, sql, LS_PARAM_NAMES(MODEL_PARAMS), out);
    free(sql);
    return rc;
}

/*
 * A transaction as the report shows it: when it started and ended and how
 * that is known, where its time went (SQL, idle in transaction, COMMIT),
 * and its statements in log order with the idle gap before each.
 */
void ls_model_add_tx(model_ctx *m, cJSON *parent, const char *key, int64_t tx_id, int max_stmts,
                     const char *cut_path)
{
    ls_stmt *h = NULL, *q = NULL, *c = NULL;
    cJSON *tx, *list;
    int64_t prev_end = 0;
    int rc, split;

    if (tx_id <= 0) {
        cJSON_AddNullToObject(parent, key);
        return;
    }
    if ((rc = ls_mq_prepare(m, &tx_q, &h)) != 0 || (rc = ls_mq_prepare(m, &tx_stmt_q, &q)) != 0)
        goto out;
    ls_stmt_bind_int64(h, LS_PARAM(txq, tx), tx_id);
    if ((rc = ls_stmt_step(h)) != 1)
        goto out;
    tx = cJSON_AddObjectToObject(parent, key);
    ls_mq_add_row(m, tx, &tx_q, h, tx_hook, NULL);
    /* its end not in the log: nor what it did after its last logged
     * statement or between two (ls_logcover_split_unknown) */
    split = ls_logcover_split_unknown(
        (ls_logcover)m->logcover,
        ls_mq_isnull(&tx_q, h, "end_known") ? NULL : ls_mq_text(&tx_q, h, "end_known"));
    if (split) {
        static const char *const keys[] = {"idle_ms", "max_idle_ms", "commit_ms", NULL};
        to_null(tx, keys);
        ls_model_add_str(tx, "split_unknown_reason", SPLIT_UNKNOWN_REASON);
    }
    list = cJSON_AddArrayToObject(tx, "statements");
    ls_stmt_bind_int64(q, LS_PARAM(tsq, session), ls_mq_int64(&tx_q, h, "session_id"));
    ls_stmt_bind_int64(q, LS_PARAM(tsq, first), ls_mq_int64(&tx_q, h, "first_stmt"));
    ls_stmt_bind_int64(q, LS_PARAM(tsq, last), ls_mq_int64(&tx_q, h, "last_stmt"));
    ls_stmt_bind_int64(q, LS_PARAM(tsq, max), max_stmts);
    while ((rc = ls_stmt_step(q)) == 1) {
        cJSON *st = cJSON_CreateObject();
        int64_t start = ls_mq_int64(&tx_stmt_q, q, "start_ts");
        ls_mq_add_row(m, st, &tx_stmt_q, q, idle_hook, &prev_end);
        if (split)
            cJSON_ReplaceItemInObjectCaseSensitive(st, "idle_before_ms", cJSON_CreateNull());
        cJSON_AddItemToArray(list, st);
        prev_end = ls_mq_isnull(&tx_stmt_q, q, "end_ts") ? start
                                                         : ls_mq_int64(&tx_stmt_q, q, "end_ts");
    }
    /* a full list may be cut: its cut, counted (no option lists more) */
    if (rc == 0 && cut_path && cJSON_GetArraySize(list) >= max_stmts && m->report) {
        if ((rc = ls_store_prepare_params(m->store, tx_stmt_count_sql,
                                          LS_PARAM_NAMES(TX_COUNT_PARAMS), &c)) != 0)
            goto out;
        ls_stmt_bind_int64(c, LS_PARAM(tcq, session), ls_mq_int64(&tx_q, h, "session_id"));
        ls_stmt_bind_int64(c, LS_PARAM(tcq, first), ls_mq_int64(&tx_q, h, "first_stmt"));
        ls_stmt_bind_int64(c, LS_PARAM(tcq, last), ls_mq_int64(&tx_q, h, "last_stmt"));
        if ((rc = ls_stmt_step(c)) == 1) {
            int64_t total = ls_stmt_int64(c, LS_ONLY_COLUMN);
            if (total > cJSON_GetArraySize(list))
                cJSON_AddNumberToObject(tx, "statements_total", (double)total);
            ls_model_cut_add(m->report, cut_path, cJSON_GetArraySize(list), total, NULL);
            rc = 0;
        }
    }
out:
    if (rc < 0)
        m->rc = rc;
    ls_stmt_finalize(h);
    ls_stmt_finalize(q);
    ls_stmt_finalize(c);
}

/* ---- hot rows ---- */

/* Hold evidence that bounds a time rather than observing it (the
 * correlation passes' wording: "bounded by ...", or a waiter's acquisition
 * standing for a COMMIT whose end was not logged). */
static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int is_bound(const char *evidence)
{
    return evidence &&
           (starts_with(evidence, "bounded by") || starts_with(evidence, "first waiter acquired"));
}

/*
 * A hold's state, span-aware: the store's head_state (where the contended
 * time mostly went), except that idle-in-transaction time spent mostly
 * inside one trace span (the hold's largest hold_parts entry is a span: an
 * HTTP call, say) is "in_span", that span named by head_span. Correlation
 * splits the time (hold_parts); the report only reads the split, and every
 * table that shows a holder's state (holds, timelines, root blockers)
 * reads it through these two expressions.
 */
#define HOLD_TOP_PART(h, col)                                                          \
    "(SELECT p." col " FROM hold_parts p WHERE p.hold_id = " h ".hold_id"               \
    " ORDER BY p.ms DESC, p.rowid LIMIT 1)"
#define HEAD_STATE_SQL(h)                                                              \
    "CASE WHEN " h ".head_state = 'idle_in_transaction' AND " HOLD_TOP_PART(h, "part") \
    " = 'span' THEN 'in_span' ELSE " h ".head_state END"
#define HEAD_SPAN_SQL(h)                                                               \
    "CASE WHEN " h ".head_state = 'idle_in_transaction' AND " HOLD_TOP_PART(h, "part") \
    " = 'span' THEN " HOLD_TOP_PART(h, "name") " END"

/* A bound of hold h: where the log's times are whole seconds, where its
 * start or end truly lay (hold_range hr, src/correlate/holdtimes.c: the
 * second of its stamp, narrowed by the log's order), else the evidence's
 * bound. */
#define HOLD_BOUND(col) "coalesce(hr." col ", h." col ")"
#define HOLD_RANGE_JOIN " LEFT JOIN hold_range hr ON hr.hold_id = h.hold_id"

/* A hold's columns, for a row's timeline and for the ranking (the query
 * joins HOLD_RANGE_JOIN). */
#define HOLD_COLS                                                                      \
    {"pid", "h.pid", LS_MC_INT}, {"application", "se.application", LS_MC_STR},         \
        {"", "tx_id", LS_MC_CODE}, {"start", "h.start_ts", LS_MC_TS},                  \
        {"end", "h.end_ts", LS_MC_TS}, {"start_lo", HOLD_BOUND("start_lo"), LS_MC_TS},           \
        {"start_hi", HOLD_BOUND("start_hi"), LS_MC_TS}, {"end_lo", HOLD_BOUND("end_lo"), LS_MC_TS},        \
        {"end_hi", HOLD_BOUND("end_hi"), LS_MC_TS}, {"start_evidence", "h.start_evidence", LS_MC_STR}, \
        {"end_evidence", "h.end_evidence", LS_MC_STR}, {"hold_ms", NULL, LS_MC_HOOK},  \
        {"waits", "h.waits", LS_MC_INT}, {"waiter_ms", "h.waiter_ms", LS_MC_MS},       \
        {"contended_ms", "h.contended_ms", LS_MC_MS}, {"sql_ms", "h.sql_ms", LS_MC_MS}, \
        {"idle_ms", "h.idle_ms", LS_MC_MS}, {"idle_range", NULL, LS_MC_HOOK},           \
        {"idle_est", "h.idle_ms", LS_MC_READ}, {"whole_s", "hr.hold_id IS NOT NULL", LS_MC_READ}, \
        {"commit_ms", "h.commit_ms", LS_MC_MS},                                        \
        {"head_state", HEAD_STATE_SQL("h"), LS_MC_STR},                                \
        {"head_span", HEAD_SPAN_SQL("h"), LS_MC_STR}, {"tx_id", "h.tx_id", LS_MC_READ}, \
        {"start_ts", "h.start_ts", LS_MC_READ}, {"end_ts", "h.end_ts", LS_MC_READ},    \
        {"start_lo_ts", HOLD_BOUND("start_lo"), LS_MC_READ}, {"start_hi_ts", HOLD_BOUND("start_hi"), LS_MC_READ}, \
        {"end_lo_ts", HOLD_BOUND("end_lo"), LS_MC_READ}, {"end_hi_ts", HOLD_BOUND("end_hi"), LS_MC_READ}

static const ls_mcol row_hold_cols[] = {HOLD_COLS};
static const ls_mquery row_holds_q =
    LS_MQUERY(NULL, row_hold_cols,
              "FROM holds h LEFT JOIN sessions se ON se.session_id = h.session_id" HOLD_RANGE_JOIN
              " WHERE h.row_id = :row_id ORDER BY h.start_ts, h.hold_id LIMIT :holds_listed");

static const ls_mcol wait_on_row_cols[] = {
    {"pid", "w.pid", LS_MC_INT},
    {"application", "se.application", LS_MC_STR},
    {"start", "w.start_ts", LS_MC_TS},
    {"end", "w.end_ts", LS_MC_TS},
    {"waited_ms", "w.waited_ms", LS_MC_MS},
    {"outcome", "w.outcome", LS_MC_STR},
    {"blocker_pid", "w.blocker_pid", LS_MC_INT},
    {"holder_pid", "w.holder_pid", LS_MC_INT},
    {"root_pid", "w.root_pid", LS_MC_INT},
    {"chain_depth", "w.chain_depth", LS_MC_INT},
    {"ctid", "w.ctid", LS_MC_STR},
    {"mode", "w.mode", LS_MC_STR},
    {"", "waiter_tx", LS_MC_CODE},
    {"holder_", "holder_tx", LS_MC_CODE},
    {"blocker_", "blocker_tx", LS_MC_CODE},
    {"root_", "root_tx", LS_MC_CODE},
    {"waiter_tx", "w.waiter_tx", LS_MC_READ},
    {"holder_tx", "w.holder_tx", LS_MC_READ},
    {"blocker_tx", "w.blocker_tx", LS_MC_READ},
    {"root_tx", "w.root_tx", LS_MC_READ},
};
/* The row's first waits chosen first, as the waits section's (waits_q). */
static const ls_mquery row_waits_q =
    LS_MQUERY("WITH first_waits AS MATERIALIZED (SELECT w.wait_id FROM lock_waits w"
              " WHERE w.row_id = :row_id AND" WAIT_FILTER("w") "ORDER BY w.start_ts, w.wait_id"
              " LIMIT :waits_listed)",
              wait_on_row_cols,
              "FROM first_waits fw CROSS JOIN lock_waits w ON w.wait_id = fw.wait_id"
              " LEFT JOIN sessions se ON se.session_id = w.session_id"
              " ORDER BY w.start_ts, w.wait_id");

static const ls_mcol queue_cols[] = {
    {"time", "ts", LS_MC_TS},
    {"depth", "depth", LS_MC_INT},
};
static const ls_mquery row_queue_q =
    LS_MQUERY(NULL, queue_cols,
              "FROM row_queue WHERE row_id = :row_id ORDER BY ts, rowid LIMIT 2 * :waits_listed");

/* Reconstructed queueing on the row, longest first (row_waits). */
static const ls_mcol row_hidden_cols[] = {
    {"pid", "q.pid", LS_MC_INT},
    {"start", "q.start_ts", LS_MC_TS},
    {"end", "q.end_ts", LS_MC_TS},
    {"waited_ms", "q.wait_ms", LS_MC_MS},
    {"logged_ms", "q.logged_ms", LS_MC_MS},
    {"kind", "q.kind", LS_MC_STR},
    {"behind_pid", "h.pid", LS_MC_INT},
    {"", "tx_id", LS_MC_CODE},
    {"behind_", "behind_tx", LS_MC_CODE},
    {"tx_id", "q.tx_id", LS_MC_READ},
    {"behind_tx", "q.behind_tx", LS_MC_READ},
};
static const ls_mquery row_hidden_q =
    LS_MQUERY(NULL, row_hidden_cols,
              "FROM row_waits q LEFT JOIN holds h ON h.hold_id = q.behind_hold"
              " WHERE q.row_id = :row_id AND q.wait_ms > 0"
              " ORDER BY q.wait_ms DESC, q.rw_id LIMIT :waits_listed");

/* How many hidden waits the row had (the list above stops at 200). */
static const ls_mcol row_hidden_count_cols[] = {
    {"hidden_waits_total", "count(*)", LS_MC_INT},
};
static const ls_mquery row_hidden_count_q =
    LS_MQUERY(NULL, row_hidden_count_cols,
              "FROM row_waits q WHERE q.row_id = :row_id AND q.wait_ms > 0"
              " AND q.kind = 'inferred'");

/* How many of each the row has (in the filter), against the lists above:
 * timeline.cut. */
static const ls_mcol row_cut_cols[] = {
    {"waits_total", "wc.n", LS_MC_INT},
    {"holds_total", "(SELECT count(*) FROM holds h WHERE h.row_id = :row_id)", LS_MC_INT},
    {"queue_total", "(SELECT count(*) FROM row_queue p WHERE p.row_id = :row_id)", LS_MC_INT},
    {"hidden_total",
     "(SELECT count(*) FROM row_waits q WHERE q.row_id = :row_id AND q.wait_ms > 0)",
     LS_MC_INT},
    {"last_wait_end", "wc.last", LS_MC_TS},
};
/* The row's waits in the filter counted and their last end found in one
 * read of them, not two. */
static const ls_mquery row_cut_q = LS_MQUERY(
    NULL, row_cut_cols,
    "FROM (SELECT count(*) AS n, max(coalesce(w.end_ts, w.logged_ts, w.start_ts)) AS last"
    " FROM " LOCK_WAITS_OWN_ROW " w WHERE w.row_id = :row_id AND" WAIT_FILTER("w") ") wc");

/* The row's root blockers, one per transaction, in the order of their
 * first wait (waits are stored in time order): the columns of
 * ROW_ROOTS_SQL (plan_sql.h), which stops at the 100th. A GROUP BY pid and
 * transaction ordered by min(wait_id) sorted all the row's waits twice:
 * 1.44 M SQLite VM steps for pgbench_branches bid=1 at 1 GiB (34,629
 * waits), 29 k now (issue 38). */
static const ls_mcol row_root_cols[] = {
    {"pid", "root_pid", LS_MC_INT},
    {"", "root_tx", LS_MC_CODE},
    {"root_tx", "root_tx", LS_MC_READ},
};
static const ls_mquery row_roots_q = LS_MQUERY(NULL, row_root_cols, "");

/* Where the log's times are whole seconds (the hold has a hold_range),
 * the range its idle_ms, an estimate from the stamps (below 0 too), may
 * take: a second either way, never below 0 (idle_min_ms, idle_max_ms,
 * to the microsecond). The correlation's definition, which this follows:
 * src/correlate/decide/idlegap.c ls_idle_window (the holds pass stores
 * the estimate, ls_idle_stored_us); tests/e2e/check_idle_seconds.py
 * holds each range to the idle the same run's millisecond log gives. */
#define IDLE_RESOLUTION_MS 1000.0
static void idle_range(cJSON *o, const ls_mquery *mq, ls_stmt *q)
{
    double est, lo, hi;

    if (ls_mq_isnull(mq, q, "idle_est") || !ls_mq_int64(mq, q, "whole_s"))
        return;
    est = (double)llround(ls_mq_double(mq, q, "idle_est") * 1000.0) / 1000.0;
    lo = est - IDLE_RESOLUTION_MS;
    hi = est + IDLE_RESOLUTION_MS;
    /* to the microsecond, as every ms figure of the model */
    cJSON_AddNumberToObject(o, "idle_min_ms", lo > 0 ? (double)llround(lo * 1000.0) / 1000.0 : 0);
    cJSON_AddNumberToObject(o, "idle_max_ms", hi > 0 ? (double)llround(hi * 1000.0) / 1000.0 : 0);
}

/* hold_ms, and where the log is silent on when the lock was taken or let
 * go (the evidence is a bound) the hold as a range: shortest (latest
 * start, earliest end) to longest (earliest start, latest end). When the
 * statement logging cannot show its end (coverage.c) hold_at_least: true,
 * and no longest. arg: the hold's query. */
static void hold_hook(model_ctx *m, cJSON *o, ls_stmt *q, const char *key, void *arg)
{
    const ls_mquery *mq = arg;
    int64_t lo, hi;
    int at_least;
    if (strcmp(key, "idle_range") == 0) {
        idle_range(o, mq, q);
        return;
    }
    if (ls_mq_isnull(mq, q, "end_ts"))
        return;
    cJSON_AddNumberToObject(
        o, key, (double)((ls_mq_int64(mq, q, "end_ts") - ls_mq_int64(mq, q, "start_ts")) / 1000));
    at_least = ls_model_hold_at_least(m, ls_mq_text(mq, q, "end_evidence"));
    if (at_least)
        cJSON_AddTrueToObject(o, "hold_at_least");
    if (!is_bound(ls_mq_text(mq, q, "start_evidence")) &&
        !is_bound(ls_mq_text(mq, q, "end_evidence")))
        return;
    lo = ls_mq_int64(mq, q, "end_lo_ts") - ls_mq_int64(mq, q, "start_hi_ts");
    hi = ls_mq_int64(mq, q, "end_hi_ts") - ls_mq_int64(mq, q, "start_lo_ts");
    cJSON_AddNumberToObject(o, "hold_min_ms", (double)((lo > 0 ? lo : 0) / 1000));
    if (!at_least) /* an end the log does not show has no upper bound */
        cJSON_AddNumberToObject(o, "hold_max_ms", (double)((hi > 0 ? hi : 0) / 1000));
}

/* A hold whose end the log does not show (ls_logcover_split_unknown):
 * where its contended time went after its last logged statement is not
 * in the log, so its idle and commit time are null (the whole-second idle
 * range gone with them) and its state, where that time mostly went,
 * unknown; split_unknown_reason says why. Its SQL time stays: the logged
 * statements' (the hold is "at least"). */
static void hold_split(model_ctx *m, cJSON *o)
{
    static const char *const split[] = {"idle_ms", "commit_ms", "head_span", NULL};
    /* a hold nobody waited for has no split to withdraw (null already) */
    if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "idle_ms")) &&
        !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "commit_ms")))
        return;
    if (!ls_logcover_split_unknown(
            (ls_logcover)m->logcover,
            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "end_evidence"))))
        return;
    to_null(o, split);
    cJSON_DeleteItemFromObjectCaseSensitive(o, "idle_min_ms");
    cJSON_DeleteItemFromObjectCaseSensitive(o, "idle_max_ms");
    if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "head_state")))
        cJSON_ReplaceItemInObjectCaseSensitive(o, "head_state", cJSON_CreateString("unknown"));
    ls_model_add_str(o, "split_unknown_reason", SPLIT_UNKNOWN_REASON);
}

/* A row of mq added to the array arg. */
static void add_to_array(model_ctx *m, ls_stmt *q, void *arg, const ls_mquery *mq,
                         ls_mq_hook hook, void *hook_arg)
{
    cJSON *o = cJSON_CreateObject();
    ls_mq_add_row(m, o, mq, q, hook, hook_arg);
    cJSON_AddItemToArray(arg, o);
}

static void row_hold_row(model_ctx *m, ls_stmt *q, void *arg)
{
    add_to_array(m, q, arg, &row_holds_q, hold_hook, (void *)&row_holds_q);
    hold_split(m, cJSON_GetArrayItem(arg, cJSON_GetArraySize(arg) - 1));
}

static void row_wait_row(model_ctx *m, ls_stmt *q, void *arg)
{
    add_to_array(m, q, arg, &row_waits_q, NULL, NULL);
}

static void queue_point(model_ctx *m, ls_stmt *q, void *arg)
{
    add_to_array(m, q, arg, &row_queue_q, NULL, NULL);
}

static void hidden_wait_row(model_ctx *m, ls_stmt *q, void *arg)
{
    add_to_array(m, q, arg, &row_hidden_q, NULL, NULL);
}

static void count_row(model_ctx *m, ls_stmt *q, void *arg)
{
    ls_mq_add_row(m, arg, &row_hidden_count_q, q, NULL, NULL);
}

/*
 * timeline.cut: each list of the timeline that holds fewer than the row
 * has, {listed, total}, and "lift" (the option that lists more);
 * timeline.truncated says whether any is cut, and timeline.last_wait_end
 * is where the row's waits really end, so a chart drawn from a cut list
 * can show that the contention went on.
 */
static void cut_row(model_ctx *m, ls_stmt *q, void *arg)
{
    static const struct {
        const char *list, *total;
    } lists[] = {{"waits", "waits_total"},
                 {"holds", "holds_total"},
                 {"queue", "queue_total"},
                 {"hidden_waits", "hidden_total"}};
    cJSON *tl = arg, *cut = cJSON_AddObjectToObject(tl, "cut");
    size_t i;
    int any = 0;
    (void)m;
    for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
        int listed = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(tl, lists[i].list));
        int64_t total = ls_mq_int64(&row_cut_q, q, lists[i].total);
        cJSON *o;
        if (total <= listed)
            continue;
        o = cJSON_AddObjectToObject(cut, lists[i].list);
        cJSON_AddNumberToObject(o, "listed", listed);
        cJSON_AddNumberToObject(o, "total", (double)total);
        any = 1;
    }
    if (any)
        cJSON_AddStringToObject(cut, "lift", "--max-waits");
    cJSON_AddBoolToObject(tl, "truncated", any);
    if (!ls_mq_isnull(&row_cut_q, q, "last_wait_end")) {
        char buf[40];
        iso_time(buf, ls_mq_int64(&row_cut_q, q, "last_wait_end"));
        cJSON_AddStringToObject(tl, "last_wait_end", buf);
    }
}

static void row_root(model_ctx *m, ls_stmt *q, void *arg)
{
    add_to_array(m, q, arg, &row_roots_q, NULL, NULL);
}

/* Logical rows (rows table: one per row however many ctids it had). */
static const ls_mcol hot_cols[] = {
    {"row_id", "r.row_id", LS_MC_INT},
    {"relation", "r.relation", LS_MC_STR},
    {"relation_oid", "hw.rel_oid", LS_MC_INT},
    {"row_key", "r.row_key", LS_MC_STR},
    {"grouped_by", "r.evidence", LS_MC_STR},
    {"ctid", "r.ctids", LS_MC_STR},
    {"waits", "r.waits", LS_MC_INT},
    /* 0 for a row whose only waiting is hidden (no logged wait) */
    {"total_wait_ms", "coalesce(r.total_wait_ms, 0)", LS_MC_MS},
    {"max_wait_ms", "r.max_wait_ms", LS_MC_MS},
    {"waiting_sessions", "coalesce(hw.sessions, 0)", LS_MC_INT},
    {"first_wait", "r.first_ts", LS_MC_TS},
    {"last_wait_end", "r.last_ts", LS_MC_TS},
    /* in the order of their first wait (hot_waits) */
    {"root_blocker_pids", "hw.roots", LS_MC_PIDS},
    {"root_blockers", NULL, LS_MC_HOOK},
    {"holds", "r.holds", LS_MC_INT},
    {"mean_hold_ms", "r.mean_hold_ms", LS_MC_MS},
    /* Serial capacity: one holder at a time, each for the mean hold. */
    {"serial_capacity_per_s", "r.capacity_per_s", LS_MC_MS},
    {"max_queue_depth", "r.max_queue", LS_MC_INT},
    {"max_queue_time", "r.max_queue_ts", LS_MC_TS},
    {"longest_chain", "r.longest_chain", LS_MC_INT},
    {"occupancy_holds", "r.occupancy_holds", LS_MC_INT},
    {"occupied_ms", "r.occupied_ms", LS_MC_MS},
    /* Queueing the log did not show (row_waits): below deadlock_timeout. */
    {"hidden_wait_ms", "r.hidden_wait_ms", LS_MC_MS},
    {"logged_wait_ms", "r.logged_wait_ms", LS_MC_MS},
    {"statements_waited", "r.waited_statements", LS_MC_INT},
    {"utilisation", "r.utilisation", LS_MC_MS},
    /* only a row a threshold log shows by its slow lockers: what its
     * figures bound (LS_SLOWKEY_EVIDENCE) */
    {"wait_bounds", NULL, LS_MC_HOOK},
    {"timeline", NULL, LS_MC_HOOK},
};
/*
 * A row is hot when a logged wait in the filter was for it, or when a
 * statement queued for it at least HIDDEN_HOT_MIN_MS below
 * deadlock_timeout (a rebuilt wait, row_waits kind 'inferred': issue 34,
 * samples/blind-otel's products SKU-1, whose 40001s queued 16-17 ms and
 * were never logged). Such a row is one the log named in a lock conflict
 * (the rows table holds no other). Under 5 ms a wait rebuilt from
 * millisecond stamps is within the statement's own work (as the queueing
 * shares and a failed statement's start, LS_COVER_MIN_US and
 * LS_FAILED_QUEUE_MIN_US). The rebuilt wait is filtered as a wait: its
 * transaction the waiter's, the hold it queued behind the holder's.
 * The busiest row first: by all its waiting, logged and hidden (as the
 * queueing ranking counts it; samples/blind-java's warehouses id=1, 3.0 s
 * logged and about 160 s hidden, before accounts id=2's 12.5 s logged),
 * then by its logged waiting. A row no logged wait was for has no
 * total_wait_ms (NULL): it counts as 0 there, not as no waiting at all
 * (samples/blind-php's warehouses id=1, 87.6 s hidden and none logged,
 * was sorted after accounts id=3's 3.0 s logged + 1.9 s hidden, and the
 * CLI's last line named accounts id=3 the busiest row; issue 34).
 */
#define HIDDEN_HOT_MIN_MS "5"
/* With no filter (:since-:code_path NULL) every wait passes WAIT_FILTER: a row is
 * then hot when it has a wait at all, which its row's index answers,
 * where the filtered lists evaluate the filter over every wait of the
 * log (issue 38). */
#define NO_FILTER                                                                      \
    ":since IS NULL AND :until IS NULL AND :relation IS NULL AND :database IS NULL" \
    " AND :code_path IS NULL"
/* The busiest rows chosen first (hot_top), and only their waits read, once
 * for all three figures (HOT_ROW_WAITS, plan_sql.h): each a subquery per
 * candidate row read every candidate's waits three times through the
 * lock_waits view (2.80 M SQLite VM steps at 1 GiB, 1.68 M now; issue 38). */
#define HOT_ROW_ORDER                                                                  \
    " ORDER BY coalesce(r.total_wait_ms, 0) + coalesce(r.hidden_wait_ms, 0) DESC,"   \
    " coalesce(r.total_wait_ms, 0) DESC, r.row_id"
/* The rows that are hot rows (in the filter), as hot_top chooses them. */
#define HOT_TOP_FROM                                                                               \
    " FROM rows r WHERE CASE WHEN " NO_FILTER                                                      \
    " THEN r.evidence = '" LS_SLOWKEY_EVIDENCE "'"                                                 \
    " OR EXISTS (SELECT 1 FROM lock_waits w WHERE w.row_id = r.row_id)"                            \
    " OR EXISTS (SELECT 1 FROM row_waits rw WHERE rw.row_id = r.row_id"                            \
    " AND rw.kind = 'inferred' AND rw.wait_ms >= " HIDDEN_HOT_MIN_MS ")"                           \
    " ELSE ((r.evidence = '" LS_SLOWKEY_EVIDENCE "' AND (:since IS NULL OR r.last_ts >= :since)"   \
    " AND (:until IS NULL OR r.first_ts <= :until)"                                                \
    " AND (:relation IS NULL OR r.relation = :relation)"                                           \
    " AND :database IS NULL AND :code_path IS NULL)"                                               \
    " OR r.row_id IN (SELECT w.row_id FROM lock_waits w WHERE" WAIT_FILTER("w")                    \
    ") OR r.row_id IN (SELECT q.row_id FROM (SELECT rw.row_id, rw.start_ts, rw.end_ts,"            \
    " NULL AS logged_ts, rw.session_id, rw.tx_id AS waiter_tx, rw.behind_tx AS holder_tx,"         \
    " rr.relation, NULL AS rel_oid FROM row_waits rw JOIN rows rr ON rr.row_id = rw.row_id"        \
    " WHERE rw.kind = 'inferred' AND rw.wait_ms >= " HIDDEN_HOT_MIN_MS ") q"                       \
    " WHERE" WAIT_FILTER("q") ")) END AND " NOT_A_RELATION_LOCK("r.row_id")
/* How many rows hot_rows_q ranks: hot_top's unbounded, counted alone
 * (counting hot_rows_q whole read the waits of every candidate row for
 * hot_waits, which the count never reads: 1.81 M SQLite VM steps at
 * 1 GiB). */
#define HOT_ROWS_COUNT "SELECT count(*)" HOT_TOP_FROM
static const ls_mquery hot_rows_q =
    LS_MQUERY("WITH hot_top AS MATERIALIZED (SELECT r.row_id AS row_id" HOT_TOP_FROM HOT_ROW_ORDER
              " LIMIT :limit)" HOT_ROW_WAITS,
              hot_cols,
              "FROM hot_top t CROSS JOIN rows r ON r.row_id = t.row_id"
              " LEFT JOIN hot_waits hw ON hw.row_id = t.row_id" HOT_ROW_ORDER);

/* ---- relation lock queues ---- */

/*
 * Relation-level contention (issue 34 item 8), from the relation_queues
 * view: each wait for a relation lock at the head of its queue (the DDL),
 * the holder it waited for, and the waits queued behind it, whose figures
 * are whole (a window keeps the queues whose head's wait overlaps it).
 */
static const ls_mcol relation_queue_cols[] = {
    {"relation", "rq.relation", LS_MC_STR},
    {"statement", "rq.statement", LS_MC_STR},
    {"mode", "rq.mode", LS_MC_STR},
    {"pid", "rq.pid", LS_MC_INT},
    {"", "waiter_tx", LS_MC_CODE},
    {"start", "rq.start_ts", LS_MC_TS},
    {"waited_ms", "rq.waited_ms", LS_MC_MS},
    {"outcome", "rq.outcome", LS_MC_STR},
    {"holder_pid", "rq.holder_pid", LS_MC_INT},
    {"holder_", "holder_tx", LS_MC_CODE},
    {"queued", "rq.queued", LS_MC_INT},
    {"queued_wait_ms", "rq.queued_wait_ms", LS_MC_MS},
    {"max_queued_wait_ms", "rq.max_queued_wait_ms", LS_MC_MS},
    {"waiter_tx", "rq.waiter_tx", LS_MC_READ},
    {"holder_tx", "rq.holder_tx", LS_MC_READ},
};
static const ls_mquery relation_queues_q =
    LS_MQUERY(NULL, relation_queue_cols,
              "FROM relation_queues rq WHERE" WAIT_FILTER("rq")
              "ORDER BY rq.waited_ms + rq.queued_wait_ms DESC, rq.wait_id LIMIT :limit");

static void relation_queue_row(model_ctx *m, ls_stmt *q, void *arg)
{
    add_to_array(m, q, arg, &relation_queues_q, NULL, NULL);
}

/* A hot row's root blockers and its timeline: holds, waits, queue depth
 * and the waits rebuilt below deadlock_timeout. */
/* Why a slow-locker row's figures are bounds (its wait_bounds). */
#define SLOWKEY_REASON                                                                            \
    "Statements were logged only past a duration threshold (log_min_duration_statement) and no "  \
    "wait for this row was logged: it is a row because many slow locking statements named its "   \
    "key and far fewer the relation's other keys. Its figures are their durations: each bounds "  \
    "its statement's wait from above (max_wait_ms), their sum the row's waiting from below "      \
    "(total_wait_ms; the waits under the threshold are not in the log). No hold of it is timed."
static void hot_hook(model_ctx *m, cJSON *o, ls_stmt *q, const char *key, void *arg)
{
    int64_t row_id = ls_mq_int64(&hot_rows_q, q, "row_id");
    cJSON *tl;
    (void)arg;
    if (strcmp(key, "root_blockers") == 0) {
        ls_model_each_row(m, ROW_ROOTS_SQL, row_id, row_root, cJSON_AddArrayToObject(o, key));
        return;
    }
    if (strcmp(key, "wait_bounds") == 0) {
        const char *ev = ls_mq_text(&hot_rows_q, q, "grouped_by");
        const cJSON *occ = cJSON_GetObjectItemCaseSensitive(o, "occupied_ms");
        cJSON *b;
        /* its holds' mean, union and share of time: none of them timed
         * (occupied 0 ms) on a log that is not complete, unknown */
        if (ls_logcover_holds_unknown((ls_logcover)m->logcover,
                                      ls_mq_int64(&hot_rows_q, q, "occupancy_holds"),
                                      cJSON_IsNumber(occ) && occ->valuedouble > 0.0)) {
            cJSON_ReplaceItemInObjectCaseSensitive(o, "mean_hold_ms", cJSON_CreateNull());
            cJSON_ReplaceItemInObjectCaseSensitive(o, "occupied_ms", cJSON_CreateNull());
            cJSON_ReplaceItemInObjectCaseSensitive(o, "utilisation", cJSON_CreateNull());
            ls_model_add_str(o, "hold_unknown_reason", HOLDS_UNKNOWN_REASON);
        }
        if (!ev || strcmp(ev, LS_SLOWKEY_EVIDENCE) != 0)
            return;
        b = cJSON_AddObjectToObject(o, key);
        ls_model_add_str(b, "waits", "at_least");
        ls_model_add_str(b, "total_wait_ms", "at_least");
        ls_model_add_str(b, "max_wait_ms", "at_most");
        ls_model_add_str(b, "reason", SLOWKEY_REASON);
        return;
    }
    tl = cJSON_AddObjectToObject(o, key);
    ls_mq_each_row(m, &row_holds_q, row_id, row_hold_row, cJSON_AddArrayToObject(tl, "holds"));
    ls_mq_each_row(m, &row_waits_q, row_id, row_wait_row, cJSON_AddArrayToObject(tl, "waits"));
    ls_mq_each_row(m, &row_queue_q, row_id, queue_point, cJSON_AddArrayToObject(tl, "queue"));
    ls_mq_each_row(m, &row_hidden_q, row_id, hidden_wait_row,
                   cJSON_AddArrayToObject(tl, "hidden_waits"));
    ls_mq_each_row(m, &row_hidden_count_q, row_id, count_row, tl);
    ls_mq_each_row(m, &row_cut_q, row_id, cut_row, tl);
    ls_model_queue_buckets(m, row_id, tl);
}

static void hot_row(model_ctx *m, ls_stmt *q, void *arg)
{
    add_to_array(m, q, arg, &hot_rows_q, hot_hook, NULL);
}

/* ---- root blockers ---- */

/* The transactions at the head of the queues, grouped by transaction:
 * the top ones are chosen first (top_roots), and only they get the
 * columns that look up their rows and holds. */
static const ls_mcol root_cols[] = {
    {"pid", "w.root_pid", LS_MC_INT},
    {"session", "w.root_session", LS_MC_INT},
    {"application", "s.application", LS_MC_STR},
    {"user", "s.user_name", LS_MC_STR},
    {"database", "s.database", LS_MC_STR},
    {"xid", "w.xid", LS_MC_INT},
    {"waits_caused", "w.waits", LS_MC_INT},
    {"waiter_ms", "w.waiter_ms", LS_MC_MS},
    {"first_wait", "w.first_wait", LS_MC_TS},
    {"last_wait_end", "w.last_wait_end", LS_MC_TS},
    {"rows",
     /* in the order they were first waited for (wait_id is time order),
      * not the order a plan happens to read them in (root_rows) */
     "(SELECT group_concat(x, ', ') FROM (SELECT rr.x FROM root_rows rr"
     "  WHERE rr.root_pid = w.root_pid AND rr.root_tx IS w.root_tx AND rr.apart IS w.apart"
     "  ORDER BY rr.first, rr.x))",
     LS_MC_STR},
    {"", "root_tx", LS_MC_CODE},
    /* What its hold that caused the most waiting was mostly doing. */
    {"head_state",
     "(SELECT " HEAD_STATE_SQL("hh") " FROM holds hh WHERE hh.tx_id = w.root_tx AND hh.waits > 0"
     " ORDER BY hh.waiter_ms DESC, hh.hold_id LIMIT 1)",
     LS_MC_STR},
    {"head_span",
     "(SELECT " HEAD_SPAN_SQL("hh") " FROM holds hh WHERE hh.tx_id = w.root_tx AND hh.waits > 0"
     " ORDER BY hh.waiter_ms DESC, hh.hold_id LIMIT 1)",
     LS_MC_STR},
    {"transaction", NULL, LS_MC_HOOK},
    {"root_tx", "w.root_tx", LS_MC_READ},
    /* that hold's end evidence: its state unknown where the log does not
     * show the end (ls_logcover_split_unknown) */
    {"head_end",
     "(SELECT hh.end_evidence FROM holds hh WHERE hh.tx_id = w.root_tx AND hh.waits > 0"
     " ORDER BY hh.waiter_ms DESC, hh.hold_id LIMIT 1)",
     LS_MC_READ},
};
static const ls_mquery roots_q =
    LS_MQUERY("WITH top_roots AS (SELECT w.root_pid AS root_pid, w.root_session AS root_session,"
              " w.root_tx AS root_tx," ROOT_APART_XID("w") " AS apart,"
              " max(w.root_xid) AS xid, count(*) AS waits,"
              " sum(w.waited_ms) AS waiter_ms, min(w.start_ts) AS first_wait,"
              " max(coalesce(w.end_ts, w.logged_ts)) AS last_wait_end"
              " FROM lock_waits w WHERE w.root_pid IS NOT NULL AND" WAIT_FILTER("w")
              " GROUP BY w.root_pid, w.root_session, w.root_tx, apart"
              " ORDER BY sum(w.waited_ms) DESC, w.root_pid, apart LIMIT :limit),"
              /* Every root's rows, each with its first wait, from one
               * scan of the waits: a search per root scanned them all
               * (no index has root_pid), 3.2 M SQLite VM steps for 10
               * roots on the 256 MiB bench log, 222 M for --top 1000;
               * 1.8 M and 13 M now. */
              " root_rows AS MATERIALIZED (SELECT w2.root_pid AS root_pid,"
              " w2.root_tx AS root_tx," ROOT_APART_XID("w2") " AS apart,"
              " r.relation || ' ' || r.row_key AS x,"
              " min(w2.wait_id) AS first FROM lock_waits w2 JOIN rows r ON r.row_id = w2.row_id"
              /* the top roots' alone: the others' are never read (the
               * query 7.3 M to 6.7 M SQLite VM steps at 1 GiB) */
              " WHERE" ROOT_ROWS_OF_TOP("w2") " GROUP BY 1, 2, 3, 4)",
              root_cols,
              "FROM top_roots w LEFT JOIN sessions s ON s.session_id = w.root_session"
              " ORDER BY w.waiter_ms DESC, w.root_pid, w.apart");

/* How many roots roots_q ranks (its top_roots unbounded, nothing read
 * for them): the root blockers' cut. */
#define ROOTS_COUNT ROOTS_COUNT_SQL

/* A root blocker's transaction with its first 50 statements (more:
 * cut."root_blockers[].transaction.statements", all root blockers'
 * summed). */
#define ROOT_STATEMENTS_LISTED 50
static void root_hook(model_ctx *m, cJSON *o, ls_stmt *q, const char *key, void *arg)
{
    (void)arg;
    ls_model_add_tx(m, o, key, ls_mq_int64(&roots_q, q, "root_tx"), ROOT_STATEMENTS_LISTED,
                    "root_blockers[].transaction.statements");
}

static void root_row(model_ctx *m, ls_stmt *q, void *arg)
{
    cJSON *o;
    add_to_array(m, q, arg, &roots_q, root_hook, NULL);
    o = cJSON_GetArrayItem(arg, cJSON_GetArraySize(arg) - 1);
    /* its hold's end not in the log: where that hold's time went is not
     * known (as the hold's own head_state, hold_split) */
    if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "head_state")) &&
        ls_logcover_split_unknown((ls_logcover)m->logcover, ls_mq_text(&roots_q, q, "head_end"))) {
        cJSON_ReplaceItemInObjectCaseSensitive(o, "head_state", cJSON_CreateString("unknown"));
        cJSON_ReplaceItemInObjectCaseSensitive(o, "head_span", cJSON_CreateNull());
    } else if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "head_state"))) {
        /* no hold of it was waited for (its waits linked to it by its pid
         * alone): what it was doing is as unknown as its transaction's
         * split, where the log does not show that */
        const cJSON *tx = cJSON_GetObjectItemCaseSensitive(o, "transaction");
        if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(tx, "split_unknown_reason")))
            cJSON_ReplaceItemInObjectCaseSensitive(o, "head_state", cJSON_CreateString("unknown"));
    }
}

/* ---- holds, ranked ---- */

static const ls_mcol ranked_hold_cols[] = {
    HOLD_COLS,
    {"relation", "r.relation", LS_MC_STR},
    {"row_key", "r.row_key", LS_MC_STR},
};
/* The top holds chosen first, then read whole (their head state looks
 * up their parts): 1.34 M to 1.23 M SQLite VM steps at 1 GiB. */
/* How many holds holds_q ranks (top_holds unbounded): the holds' cut. */
#define HOLDS_COUNT                                                                    \
    "SELECT count(*) FROM holds h JOIN rows r ON r.row_id = h.row_id WHERE h.waits > 0" \
    " AND " NOT_A_RELATION_LOCK("h.row_id")
static const ls_mquery holds_q =
    LS_MQUERY("WITH top_holds AS MATERIALIZED (SELECT h.hold_id FROM holds h"
              " JOIN rows r ON r.row_id = h.row_id WHERE h.waits > 0"
              " AND " NOT_A_RELATION_LOCK("h.row_id")
              " ORDER BY h.waiter_ms DESC, h.hold_id LIMIT :limit)",
              ranked_hold_cols,
              "FROM top_holds th CROSS JOIN holds h ON h.hold_id = th.hold_id"
              " JOIN rows r ON r.row_id = h.row_id"
              " LEFT JOIN sessions se ON se.session_id = h.session_id" HOLD_RANGE_JOIN
              " ORDER BY h.waiter_ms DESC, h.hold_id");

static void ranked_hold(model_ctx *m, ls_stmt *q, void *arg)
{
    add_to_array(m, q, arg, &holds_q, hold_hook, (void *)&holds_q);
    hold_split(m, cJSON_GetArrayItem(arg, cJSON_GetArraySize(arg) - 1));
}

/* ---- waits ---- */

/* A wait's relation: its name, else its OID; lock targets without a
 * relation (transactions, advisory locks, ...) by their target. */
#define ROW_KEY                                                                          \
    "coalesce(w.relation, CASE WHEN w.rel_oid IS NOT NULL THEN 'relation ' || w.rel_oid END, " \
    "w.target)"

static const ls_mcol wait_cols[] = {
    {"wait_id", "w.wait_id", LS_MC_INT},
    {"pid", "w.pid", LS_MC_INT},
    {"application", "s.application", LS_MC_STR},
    {"mode", "w.mode", LS_MC_STR},
    {"target_kind", "w.target_kind", LS_MC_STR},
    {"target", "w.target", LS_MC_STR},
    {"relation", ROW_KEY, LS_MC_STR},
    {"ctid", "w.ctid", LS_MC_STR},
    {"start", "w.start_ts", LS_MC_TS},
    {"end", "w.end_ts", LS_MC_TS},
    {"waited_ms", "w.waited_ms", LS_MC_MS},
    {"outcome", "w.outcome", LS_MC_STR},
    {"statement", "w.statement", LS_MC_STR},
    {"blocker_pid", "w.blocker_pid", LS_MC_INT},
    {"blocker_xid", "w.blocker_xid", LS_MC_INT},
    {"root_pid", "w.root_pid", LS_MC_INT},
    {"root_xid", "w.root_xid", LS_MC_INT},
    {"chain_depth", "w.chain_depth", LS_MC_INT},
    {"holders", "w.holders", LS_MC_PIDS},
    {"queue", "w.queue", LS_MC_PIDS},
    {"file", "f.path", LS_MC_NAME},
    {"line", "w.line", LS_MC_INT},
    {"row_id", "w.row_id", LS_MC_INT},
    {"row_key", "r.row_key", LS_MC_STR},
    {"holder_pid", "w.holder_pid", LS_MC_INT},
    {"waiter_tx", "w.waiter_tx", LS_MC_INT},
    {"holder_tx", "w.holder_tx", LS_MC_INT},
    {"root_tx", "w.root_tx", LS_MC_INT},
    {"blocker_tx", "w.blocker_tx", LS_MC_INT},
    {"", "waiter_tx", LS_MC_CODE},
    {"holder_", "holder_tx", LS_MC_CODE},
    {"blocker_", "blocker_tx", LS_MC_CODE},
    {"root_", "root_tx", LS_MC_CODE},
};
/* The first waits are chosen first (the order is total), so that the
 * columns the lock_waits view looks up (relation, holders, queue, root)
 * and the joins are read for them alone, not for every wait of the log
 * (2.4 M to 1.2 M SQLite VM steps at 1 GiB), and in wait_id order, which
 * is time order: the first ones read and the rest not, no sort of every
 * wait (FIRST_WAITS_SQL, plan_sql.h; 1.16 M to 0.14 M steps). */
static const ls_mquery waits_q =
    LS_MQUERY("WITH first_waits AS MATERIALIZED (" FIRST_WAITS_SQL ")",
              wait_cols,
              "FROM first_waits fw CROSS JOIN lock_waits w ON w.wait_id = fw.wait_id"
              " LEFT JOIN sessions s ON s.session_id = w.session_id"
              " LEFT JOIN files f ON f.file_id = w.file_id LEFT JOIN rows r ON r.row_id = w.row_id"
              " ORDER BY w.start_ts, w.wait_id");

static void wait_row(model_ctx *m, ls_stmt *q, void *arg)
{
    add_to_array(m, q, arg, &waits_q, NULL, NULL);
}

/* ---- deadlocks ---- */

static const ls_mcol deadlock_cols[] = {
    {"time", "d.ts", LS_MC_TS},
    {"victim_pid", "d.victim_pid", LS_MC_INT},
    {"victim_application", "s.application", LS_MC_STR},
    {"victim_", "victim_tx", LS_MC_CODE},
    {"file", "f.path", LS_MC_NAME},
    {"line", "d.line", LS_MC_INT},
    {"edges", NULL, LS_MC_HOOK},
    {"processes", NULL, LS_MC_HOOK},
    {"deadlock_id", "d.deadlock_id", LS_MC_READ},
    {"victim_tx",
     "(SELECT p.tx_id FROM deadlock_links p WHERE p.deadlock_id = d.deadlock_id"
     "  AND p.pid = d.victim_pid)",
     LS_MC_READ},
};
static const ls_mquery deadlocks_q =
    LS_MQUERY(NULL, deadlock_cols,
              "FROM deadlocks d LEFT JOIN sessions s ON s.session_id = d.victim_session"
              " LEFT JOIN files f ON f.file_id = d.file_id"
              " WHERE" DEADLOCK_FILTER("d") "ORDER BY d.ts, d.deadlock_id LIMIT :limit");

/* Each edge's processes with their transactions (deadlock_links: the
 * participants the DETAIL listed, linked by pid at the deadlock's time). */
static const ls_mcol edge_cols[] = {
    {"waiter_pid", "e.waiter_pid", LS_MC_INT},
    {"mode", "e.mode", LS_MC_STR},
    {"target", "e.target", LS_MC_STR},
    {"blocker_pid", "e.blocker_pid", LS_MC_INT},
    {"waiter_", "waiter_tx", LS_MC_CODE},
    {"blocker_", "blocker_tx", LS_MC_CODE},
    {"waiter_tx",
     "(SELECT p.tx_id FROM deadlock_links p WHERE p.deadlock_id = e.deadlock_id"
     "  AND p.pid = e.waiter_pid)",
     LS_MC_READ},
    {"blocker_tx",
     "(SELECT p.tx_id FROM deadlock_links p WHERE p.deadlock_id = e.deadlock_id"
     "  AND p.pid = e.blocker_pid)",
     LS_MC_READ},
};
static const ls_mquery edges_q =
    LS_MQUERY(NULL, edge_cols,
              "FROM deadlock_edges e WHERE e.deadlock_id = :deadlock_id ORDER BY e.seq");

/* A deadlock participant: its query as the DETAIL gave it, and its
 * transaction (deadlock_links) with the order in which it took its locks. */
static const ls_mcol proc_cols[] = {
    {"pid", "pid", LS_MC_INT},
    {"query", "dt.text", LS_MC_STR},
    {"", "tx_id", LS_MC_CODE},
    {"transaction", NULL, LS_MC_HOOK},
    /* qualified: a store brought from version 12 keeps deadlock_procs' own tx_id, unread */
    {"tx_id", "deadlock_links.tx_id", LS_MC_READ},
};
static const ls_mquery procs_q =
    LS_MQUERY(NULL, proc_cols, "FROM deadlock_procs LEFT JOIN deadlock_links USING (deadlock_id, pid)"
                               " LEFT JOIN stmt_texts dt ON dt.text_id = deadlock_procs.text_id"
                               " WHERE deadlock_id = :deadlock_id ORDER BY deadlock_procs.rowid");

static void edge_row(model_ctx *m, ls_stmt *q, void *arg)
{
    add_to_array(m, q, arg, &edges_q, NULL, NULL);
}

/* A participant's transaction with its first 30 statements. */
/* A deadlocked process's transaction with its first 30 statements (more:
 * cut."deadlocks[].processes[].transaction.statements", all processes'
 * summed). */
#define PROC_STATEMENTS_LISTED 30
static void proc_hook(model_ctx *m, cJSON *o, ls_stmt *q, const char *key, void *arg)
{
    (void)arg;
    ls_model_add_tx(m, o, key, ls_mq_int64(&procs_q, q, "tx_id"), PROC_STATEMENTS_LISTED,
                    "deadlocks[].processes[].transaction.statements");
}

static void proc_row(model_ctx *m, ls_stmt *q, void *arg)
{
    add_to_array(m, q, arg, &procs_q, proc_hook, NULL);
}

/* A deadlock's edges and processes. */
static void deadlock_hook(model_ctx *m, cJSON *o, ls_stmt *q, const char *key, void *arg)
{
    int64_t id = ls_mq_int64(&deadlocks_q, q, "deadlock_id");
    (void)arg;
    if (strcmp(key, "edges") == 0)
        ls_mq_each_row(m, &edges_q, id, edge_row, cJSON_AddArrayToObject(o, key));
    else
        ls_mq_each_row(m, &procs_q, id, proc_row, cJSON_AddArrayToObject(o, key));
}

static void deadlock_row(model_ctx *m, ls_stmt *q, void *arg)
{
    add_to_array(m, q, arg, &deadlocks_q, deadlock_hook, NULL);
}

/* ---- errors ---- */

static const ls_mcol error_cols[] = {
    {"time", "e.ts", LS_MC_TS},
    {"pid", "e.pid", LS_MC_INT},
    {"application", "s.application", LS_MC_STR},
    {"sqlstate", "e.sqlstate", LS_MC_STR},
    {"class", "e.class", LS_MC_STR},
    {"message", "e.message", LS_MC_STR},
    {"statement", "et.text", LS_MC_STR},
    {"file", "f.path", LS_MC_NAME},
    {"line", "e.line", LS_MC_INT},
    /* What caused it: the transaction that held the lock it waited for. */
    {"cause_pid", "ct.pid", LS_MC_INT},
    {"cause_application", "cs.application", LS_MC_STR},
    {"cause_", "cause_tx", LS_MC_CODE},
    /* why a lock timeout's cause is null (causes.c, decide/failwait.h
     * ls_error_holder()); null otherwise */
    {"cause_untold",
     "CASE WHEN e.cause_tx IS NULL AND e.class IN ('lock_timeout', 'lock_nowait') THEN 'no"
     " wait of it was logged (it gave up below deadlock_timeout) and the log does not"
     " single out the transaction that held its row at the error: the row its statement"
     " locked is not known, or not every hold of it is, or the log''s order of lines"
     " leaves more than one hold that may have had it then' END",
     LS_MC_STR},
    {"", "tx_id", LS_MC_CODE},
    /* null: the log cannot tell (retries.c: retry_outcome 'untold', no
     * statement or span; decide/retry.h ls_retry_session_told(),
     * ls_retry_row_untold()) */
    {"retried",
     "CASE WHEN e.retry_stmt IS NOT NULL OR e.retry_span IS NOT NULL THEN 1"
     " WHEN e.retry_outcome IN ('untold', 'untold_ended', 'untold_elsewhere', 'untold_tries') THEN NULL ELSE 0 END",
     LS_MC_BOOLN},
    {"retry_untold",
     "CASE WHEN e.retry_stmt IS NOT NULL OR e.retry_span IS NOT NULL THEN NULL"
     " WHEN e.retry_outcome = 'untold' THEN 'the failed statement ran again on the same"
     " row, on its session after the connection was set up again, or later than a"
     " retry follows its ROLLBACK (100 ms) on a connection other requests share, or"
     " on another connection with other parameters: a retry or the next request a"
     " pool gave a connection to, which the log cannot tell apart'"
     " WHEN e.retry_outcome = 'untold_ended' AND NOT EXISTS (SELECT 1 FROM statements)"
     " THEN 'the log has no statement of any session (log_statement = ''none'', no"
     " log_min_duration_statement): what the session ran after the failure, a retry on it"
     " or not, is not in the log, nor the failed statement''s parameters to find a retry"
     " on another connection by'"
     /* a threshold log (logcover.verdict LS_LOGCOVER_THRESHOLD): a session
      * that logged nothing after the failure ran nothing slow; whether it
      * kept its connection is not in the log (samples/blind-go: pgx kept
      * it, the retry ran under 250 ms) */
     " WHEN e.retry_outcome = 'untold_ended' AND (SELECT verdict FROM logcover) = "
     LS_LOGCOVER_THRESHOLD_SQL
     " THEN 'the session logged no statement after the failure, and statements are logged"
     " only past a duration threshold: a retry, if any, ran below the threshold on that"
     " connection or on another one, which the log does not show'"
     " WHEN e.retry_outcome = 'untold_ended' THEN 'the session logged no statement after"
     " the failure (the client dropped the connection, as ActiveRecord does after a"
     " 40001 or a deadlock): a retry, if any, ran on another connection, and the failed"
     " statement''s parameters are not in the log to find it by'"
     " WHEN e.retry_outcome = 'untold_elsewhere' THEN 'no trace of the request was found and"
     " its session does not show that the request gave up: the log does not show the failed"
     " transaction, or the session ran other requests'' work around it (a pooled"
     " connection), so a retry, if any, ran on a connection the log cannot tie to it'"
     " WHEN e.retry_outcome = 'untold_tries' THEN 'the session ran the failed statement again"
     " with the same parameters, but after as many failed tries the log shows the client"
     " giving up on this statement: a retry, or the next request binding the same values'"
     " END",
     LS_MC_STR},
    /* a retry found in the request's trace is a span (retries.c: retry_span) */
    {"retry_time", "coalesce(rs.start_ts, (SELECT sp.start_ts + coalesce((SELECT offset_us FROM"
                   " span_clock), 0) FROM spans sp WHERE sp.span_row = e.retry_span))", LS_MC_TS},
    {"retry_outcome",
     "CASE WHEN e.retry_outcome IN ('untold', 'untold_ended', 'untold_elsewhere', 'untold_tries') THEN NULL"
     " ELSE e.retry_outcome END",
     LS_MC_STR},
    /* a retry statement on another session was matched by its
     * parameters (retries.c by_params()) */
    {"retry_matched_by", "CASE WHEN e.retry_stmt IS NOT NULL AND rs.session_id IS NOT"
                         " e.session_id THEN 'parameters'"
                         " WHEN e.retry_stmt IS NOT NULL THEN 'session order'"
                         " WHEN e.retry_span IS NOT NULL THEN 'trace' END", LS_MC_STR},
    /* the backend the retry's statement ran on (null for a span's) */
    {"retry_pid", "rs.pid", LS_MC_INT},
    {"cause_tx", "e.cause_tx", LS_MC_READ},
    {"tx_id", "e.tx_id", LS_MC_READ},
};
/* How many errors errors_q lists unbounded (errors_linked is one row per
 * error: its joins are by error_id): the errors' cut. */
#define ERRORS_COUNT \
    "SELECT count(*) FROM errors e WHERE e.class <> 'other' AND" ERROR_FILTER("e")
static const ls_mquery errors_q =
    LS_MQUERY(NULL, error_cols,
              "FROM errors_linked e LEFT JOIN sessions s ON s.session_id = e.session_id"
              " LEFT JOIN files f ON f.file_id = e.file_id"
              " LEFT JOIN transactions ct ON ct.tx_id = e.cause_tx"
              " LEFT JOIN sessions cs ON cs.session_id = ct.session_id"
              " LEFT JOIN statements rs ON rs.stmt_id = e.retry_stmt"
              " LEFT JOIN stmt_texts et ON et.text_id = e.text_id"
              " WHERE e.class <> 'other' AND" ERROR_FILTER("e")
              "ORDER BY e.ts, e.error_id LIMIT :limit");

static void error_row(model_ctx *m, ls_stmt *q, void *arg)
{
    add_to_array(m, q, arg, &errors_q, NULL, NULL);
}

/* ---- the worst moment ---- */

/*
 * The lock tree when the busiest row's queue was longest: every wait open
 * then, for any row, relation or advisory lock, with its blocker and root.
 * A session waits for one lock at a time: where its waits overlap at that
 * instant (one's end only bounded by the next LOG line, or a wait that
 * ended as the next began) the latest begun is the one it was in, and the
 * session is listed once.
 */
static const ls_mcol worst_cols[] = {
    {"time", "max_queue_ts", LS_MC_TS},
    {"waits", NULL, LS_MC_HOOK},
    {"time_ts", "max_queue_ts", LS_MC_READ},
};
static const ls_mquery worst_q =
    LS_MQUERY(NULL, worst_cols,
              "FROM rows ORDER BY max_queue DESC, total_wait_ms DESC LIMIT 1");

static const ls_mcol tree_cols[] = {
    {"pid", "w.pid", LS_MC_INT},
    {"application", "se.application", LS_MC_STR},
    {"blocker_pid", "w.blocker_pid", LS_MC_INT},
    {"blocker_", "blocker_tx", LS_MC_CODE},
    {"root_pid", "w.root_pid", LS_MC_INT},
    {"depth", "w.chain_depth", LS_MC_INT},
    {"mode", "w.mode", LS_MC_STR},
    {"target", "w.target", LS_MC_STR},
    {"relation", "r.relation", LS_MC_STR},
    {"row_key", "r.row_key", LS_MC_STR},
    {"waiting_since", "w.start_ts", LS_MC_TS},
    {"statement", "w.statement", LS_MC_STR},
    {"", "waiter_tx", LS_MC_CODE},
    {"root_", "root_tx", LS_MC_CODE},
    {"holder_pid", "w.holder_pid", LS_MC_INT},
    {"holder_", "holder_tx", LS_MC_CODE},
    {"waiter_tx", "w.waiter_tx", LS_MC_READ},
    {"root_tx", "w.root_tx", LS_MC_READ},
    {"holder_tx", "w.holder_tx", LS_MC_READ},
    {"blocker_tx", "w.blocker_tx", LS_MC_READ},
};
static const ls_mquery tree_q =
    LS_MQUERY("WITH open AS (SELECT w.*, row_number() OVER (PARTITION BY"
              "  coalesce(w.session_id, -w.pid) ORDER BY w.start_ts DESC, w.wait_id DESC) AS nth"
              "  FROM lock_waits w WHERE w.start_ts <= :at"
              " AND coalesce(w.end_ts, w.logged_ts) >= :at)",
              tree_cols,
              "FROM open w LEFT JOIN rows r ON r.row_id = w.row_id"
              " LEFT JOIN sessions se ON se.session_id = w.session_id WHERE w.nth = 1"
              " ORDER BY w.root_pid, w.chain_depth, w.start_ts LIMIT :waits_listed");

static void tree_row(model_ctx *m, ls_stmt *q, void *arg)
{
    add_to_array(m, q, arg, &tree_q, NULL, NULL);
}

/* The waits open at the worst moment: as many as a hot row's timeline
 * lists (ROW_WAITS_LISTED, or --max-waits), cut as "worst_moment.waits". */
static void worst_hook(model_ctx *m, cJSON *o, ls_stmt *q, const char *key, void *report)
{
    ls_model_list(m, report, o, key, "worst_moment.waits", &tree_q,
                  ls_mq_int64(&worst_q, q, "time_ts"),
                  m->opts->max_waits > 0 ? m->opts->max_waits : ROW_WAITS_LISTED, tree_row, -1,
                  "--max-waits", 0, NULL);
}

/* The worst moment, when the store knows one (a row with a queue). */
static void worst_row(model_ctx *m, ls_stmt *q, void *arg)
{
    if (!ls_mq_isnull(&worst_q, q, "time_ts"))
        ls_mq_add_row(m, cJSON_AddObjectToObject(arg, "worst_moment"), &worst_q, q, worst_hook,
                      arg);
}

static void add_worst_moment(model_ctx *m, cJSON *r)
{
    ls_mq_each_row(m, &worst_q, -1, worst_row, r);
    if (!cJSON_GetObjectItemCaseSensitive(r, "worst_moment"))
        cJSON_AddNullToObject(r, "worst_moment");
}

/* ---- inputs ---- */

static const ls_mcol file_cols[] = {
    {"path", "path", LS_MC_NAME},
    {"format", "format", LS_MC_STR},
    {"gzip", "gzip", LS_MC_BOOL},
    {"bytes", "bytes", LS_MC_INT},
    {"lines", "lines", LS_MC_INT},
    {"records", "records", LS_MC_INT},
    {"bad_lines", "bad_lines", LS_MC_INT},
};
static const ls_mquery files_q =
    LS_MQUERY(NULL, file_cols, "FROM files ORDER BY file_id LIMIT :limit");

static const ls_mcol bad_cols[] = {
    {"file", "f.path", LS_MC_NAME},
    {"line", "b.line", LS_MC_INT},
    {"reason", "b.reason", LS_MC_STR},
};
static const ls_mquery bad_q =
    LS_MQUERY(NULL, bad_cols,
              "FROM bad_lines b JOIN files f USING (file_id)"
              " ORDER BY b.file_id, b.line LIMIT :limit");

/* The input files and unparsable lines listed at most (cut.input.files;
 * cut.input.bad_line_samples of the unparsable lines, summary.bad_lines,
 * or the rows kept where more: a file's break is a row too; the store
 * keeps ingest's first 100 of each file). */
#define FILES_LISTED 1000
#define BAD_LINES_LISTED 50
#define BAD_LINES_COUNT                                                                       \
    "SELECT max((SELECT count(*) FROM bad_lines), (SELECT coalesce(sum(bad_lines), 0) FROM" \
    " files))"

static void file_row(model_ctx *m, ls_stmt *q, void *arg)
{
    add_to_array(m, q, arg, &files_q, NULL, NULL);
}

static void bad_row(model_ctx *m, ls_stmt *q, void *arg)
{
    add_to_array(m, q, arg, &bad_q, NULL, NULL);
}

/*
 * "cut": every list of the report that holds fewer entries than there are
 * (in the filter), one entry per list under its path in the model
 * ("errors", "worst_moment.waits", the sections.c tables' paths):
 * {listed, total, lift (the option that lists more), top (a ranking cut at
 * --top: "top N of M")}. Absent when nothing is cut; the renderers' notes
 * (prose.c ls_write_cut) read it. cut.lift, the waits' option, stays for
 * version 2 readers when waits[] is cut.
 */
void ls_model_cut(cJSON *report, const char *path, int64_t listed, int64_t total,
                  const char *lift, int top)
{
    cJSON *cut, *o;
    if (total <= listed)
        return;
    if (!(cut = cJSON_GetObjectItemCaseSensitive(report, "cut")))
        cut = cJSON_AddObjectToObject(report, "cut");
    o = cJSON_AddObjectToObject(cut, path);
    cJSON_AddNumberToObject(o, "listed", (double)listed);
    cJSON_AddNumberToObject(o, "total", (double)total);
    if (lift)
        cJSON_AddStringToObject(o, "lift", lift);
    else
        cJSON_AddNullToObject(o, "lift"); /* no option lists more */
    if (top)
        cJSON_AddTrueToObject(o, "top");
    if (strcmp(path, "waits") == 0)
        cJSON_AddStringToObject(cut, "lift", lift);
}

void ls_model_cut_add(cJSON *report, const char *path, int64_t listed, int64_t total,
                      const char *lift)
{
    cJSON *o = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(report, "cut"),
                                                path);
    cJSON *l, *t;
    if (total <= listed)
        return;
    if (!o) {
        ls_model_cut(report, path, listed, total, lift, 0);
        return;
    }
    l = cJSON_GetObjectItemCaseSensitive(o, "listed");
    t = cJSON_GetObjectItemCaseSensitive(o, "total");
    if (cJSON_IsNumber(l) && cJSON_IsNumber(t)) {
        cJSON_SetNumberValue(l, l->valuedouble + (double)listed);
        cJSON_SetNumberValue(t, t->valuedouble + (double)total);
    }
}

/* "SELECT count(*) FROM (q)", q mq's statement with its select list
 * (bare: "1", so that no column's subquery runs for the count);
 * malloc'ed, NULL on memory exhaustion. */
static char *mq_count_sql(const ls_mquery *mq, int bare)
{
    static const ls_mcol one[] = {{"n", "1", LS_MC_INT}};
    ls_mquery b = {mq->with, one, 1, mq->from, mq->params};
    char *sql = mq_sql(bare ? &b : mq), *count;
    size_t len;
    if (!sql)
        return NULL;
    len = strlen(sql) + sizeof("SELECT count(*) FROM ()");
    if ((count = malloc(len)) != NULL)
        snprintf(count, len, "SELECT count(*) FROM (%s)", sql);
    free(sql);
    return count;
}

/* How many rows mq gives unbounded: its :limit and :waits_listed bound to
 * -1 (no bound in SQLite), its other parameters as ls_mq_each_row binds
 * them; -1 on a store error (m->rc set). bare: counted without its
 * columns (none of their subqueries run), for a statement whose ORDER BY
 * and GROUP BY name no column of its select list. */
int64_t ls_mq_count(model_ctx *m, const ls_mquery *mq, int64_t arg1, int bare)
{
    ls_stmt *q = NULL;
    int64_t n = -1;
    int rc;
    char *sql = mq_count_sql(mq, bare);
    if (!sql) {
        m->rc = LS_ENOMEM;
        return -1;
    }
    rc = mq->params ? ls_store_prepare_params(m->store, sql, mq->params, &q)
                    : ls_store_prepare_vocab(m->store, sql, LS_PARAM_NAMES(MODEL_PARAMS), &q);
    free(sql);
    if (rc) {
        m->rc = rc;
        return -1;
    }
    bind_filters(m, q, arg1);
    bind_named(q, "limit", -1);
    bind_named(q, "waits_listed", -1);
    if ((rc = ls_stmt_step(q)) == 1)
        n = ls_stmt_int64(q, LS_ONLY_COLUMN);
    else if (rc < 0)
        m->rc = rc;
    ls_stmt_finalize(q);
    return n;
}

static void one_count(model_ctx *m, ls_stmt *q, void *arg)
{
    (void)m;
    *(int64_t *)arg = ls_stmt_int64(q, LS_ONLY_COLUMN);
}

int64_t ls_model_count(model_ctx *m, const char *sql)
{
    int64_t n = -1;
    ls_model_each_row(m, sql, -1, one_count, &n);
    return n;
}

/*
 * A list of the report: at most `limit` rows of mq (arg1 bound as
 * ls_mq_each_row binds it; -1: `limit`) into a new array `key` of
 * `parent`, and its cut under `path` when the list is full and there are
 * more: `total` when the caller knows it (>= 0, a summary count), else
 * count_sql's one value (the filters bound) when given, else mq counted
 * unbounded (flags: LS_LIST_*).
 */
cJSON *ls_model_list(model_ctx *m, cJSON *report, cJSON *parent, const char *key,
                     const char *path, const ls_mquery *mq, int64_t arg1, int64_t limit,
                     void (*row)(model_ctx *, ls_stmt *, void *), int64_t total,
                     const char *lift, int flags, const char *count_sql)
{
    cJSON *arr = cJSON_AddArrayToObject(parent, key);
    int listed;
    ls_mq_each_row(m, mq, arg1 >= 0 ? arg1 : limit, row, arr);
    listed = cJSON_GetArraySize(arr);
    if (m->rc || listed < limit)
        return arr;
    if (total < 0 && count_sql)
        total = ls_model_count(m, count_sql);
    else if (total < 0)
        total = ls_mq_count(m, mq, arg1 >= 0 ? arg1 : limit, (flags & LS_LIST_BARE) != 0);
    if (total >= 0)
        ls_model_cut(report, path, listed, total, lift, (flags & LS_LIST_TOP) != 0);
    return arr;
}

/* A summary count of the report (r.summary.key), or -1. */
static int64_t summary_count(const cJSON *r, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(r, "summary"), key);
    return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : -1;
}

/* LOCKSPAN_TIMING (set): the report's sections' times on stderr, each the
 * wall and CPU time since the last mark (t[0] wall, t[1] CPU), as the
 * correlation passes' (a tool for tuning). */
static void section_mark(int timing, struct timespec t[2], const char *name)
{
    struct timespec now[2];
    if (!timing)
        return;
    clock_gettime(CLOCK_MONOTONIC, &now[0]);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now[1]);
    if (name)
        fprintf(stderr, "lockspan: report-section: %-24s %8.3f s wall %8.3f s cpu\n", name,
                (double)(now[0].tv_sec - t[0].tv_sec) + (double)(now[0].tv_nsec - t[0].tv_nsec) / 1e9,
                (double)(now[1].tv_sec - t[1].tv_sec) + (double)(now[1].tv_nsec - t[1].tv_nsec) / 1e9);
    t[0] = now[0];
    t[1] = now[1];
}

int ls_report_build(ls_store *s, const ls_report_opts *opts, cJSON **out)
{
    int timing = getenv("LOCKSPAN_TIMING") != NULL;
    struct timespec t[2];
    model_ctx m = {s, opts, 0, NULL, {0, 0, 0, 0, 0, 0}, 0, {0, 0, 0, 0.0, 0, 0, 0}, 0, NULL};
    cJSON *r = cJSON_CreateObject(), *sum, *input;
    int top = opts->top > 0 ? opts->top : 10;

    m.report = r;
    *out = NULL;
    if (!r)
        return LS_ENOMEM;
    /* The report's queries sort (rankings over every hold, wait, path): a
     * quarter of the page cache for their sorters keeps the report's peak
     * memory where correlation's was. */
    section_mark(timing, t, NULL);
    if ((m.rc = ls_store_sorting(s, 1)) != 0) {
        cJSON_Delete(r);
        return m.rc;
    }
    /* the statements with the times correlation gave them (stmt_span_time),
     * as the passes read them */
    if ((m.rc = ls_store_stmt_views(s, 1)) != 0 ||
        (opts->scope_enter &&
         (m.rc = opts->scope_enter(s, opts->group_by, opts->since, opts->until)) != 0)) {
        ls_store_stmt_views(s, 0);
        ls_store_sorting(s, 0);
        cJSON_Delete(r);
        return m.rc;
    }
    cJSON_AddStringToObject(r, "schema", LS_REPORT_SCHEMA);
    cJSON_AddNumberToObject(r, "version", LS_REPORT_VERSION);
    ls_model_add_str(r, "title", opts->title ? opts->title : "Lock contention report");
    ls_model_add_str(r, "generated_at", opts->generated_at);
    if (opts->tz) /* the HTML's times; absent = UTC */
        ls_model_add_str(r, "time_zone", opts->tz);
    cJSON_AddStringToObject(r, "generator", "lockspan " LS_VERSION);
    section_mark(timing, t, "scope");
    ls_model_logcover(&m);

    sum = cJSON_AddObjectToObject(r, "summary");
    ls_mq_each_row(&m, &summary_q, -1, summary_row, sum);
    ls_mq_each_row(&m, &hidden_q, -1, hidden_row, sum);
    ls_model_trace_spans(&m, sum);
    ls_mq_each_row(&m, &outcome_q, -1, outcome_row,
                   cJSON_AddObjectToObject(sum, "waits_by_outcome"));
    add_filter(&m, sum);
    section_mark(timing, t, "summary");
    ls_model_list(&m, r, r, "hot_rows", "hot_rows", &hot_rows_q, -1, top, hot_row, -1, "--top",
                  LS_LIST_TOP | LS_LIST_BARE, HOT_ROWS_COUNT);
    section_mark(timing, t, "hot_rows");
    ls_model_list(&m, r, r, "relation_queues", "relation_queues", &relation_queues_q, -1, top,
                  relation_queue_row, -1, "--top", LS_LIST_TOP | LS_LIST_BARE, NULL);
    section_mark(timing, t, "relation_queues");
    ls_model_list(&m, r, r, "root_blockers", "root_blockers", &roots_q, -1, top, root_row, -1,
                  "--top", LS_LIST_TOP, ROOTS_COUNT);
    section_mark(timing, t, "root_blockers");
    ls_model_list(&m, r, r, "holds", "holds", &holds_q, -1, top, ranked_hold, -1, "--top",
                  LS_LIST_TOP, HOLDS_COUNT);
    section_mark(timing, t, "holds");
    ls_model_code_paths(&m, r, top);
    section_mark(timing, t, "code_paths");
    ls_model_requests(&m, r, top);
    section_mark(timing, t, "requests");
    ls_model_dba(&m, r, top);
    section_mark(timing, t, "dba");
    ls_model_context(&m, r);
    section_mark(timing, t, "context");
    ls_model_findings(&m, r);
    section_mark(timing, t, "findings");
    ls_model_story(&m, r);
    section_mark(timing, t, "story");
    add_worst_moment(&m, r);
    section_mark(timing, t, "worst_moment");
    ls_model_list(&m, r, r, "waits", "waits", &waits_q, -1,
                  opts->max_waits > 0 ? opts->max_waits : 1000, wait_row,
                  summary_count(r, "waits"), "--max-waits", 0, NULL);
    {
        /* cut after waits[], where version 2 had it, whichever list made it */
        cJSON *cut = cJSON_DetachItemFromObjectCaseSensitive(r, "cut");
        if (cut)
            cJSON_AddItemToObject(r, "cut", cut);
    }
    section_mark(timing, t, "waits");
    ls_model_list(&m, r, r, "deadlocks", "deadlocks", &deadlocks_q, -1,
                  opts->max_deadlocks > 0 ? opts->max_deadlocks : DEADLOCKS_LISTED,
                  deadlock_row, summary_count(r, "deadlocks"), "--max-deadlocks", 0, NULL);
    section_mark(timing, t, "deadlocks");
    ls_model_list(&m, r, r, "errors", "errors", &errors_q, -1,
                  opts->max_errors > 0 ? opts->max_errors : ERRORS_LISTED, error_row, -1,
                  "--max-errors", 0, ERRORS_COUNT);
    input = cJSON_AddObjectToObject(r, "input");
    /* the files and unparsable lines are the summary's (no option lists
     * more: the store keeps them) */
    ls_model_list(&m, r, input, "files", "input.files", &files_q, -1, FILES_LISTED, file_row,
                  summary_count(r, "files"), NULL, 0, NULL);
    ls_model_list(&m, r, input, "bad_line_samples", "input.bad_line_samples", &bad_q, -1,
                  BAD_LINES_LISTED, bad_row, -1, NULL, 0, BAD_LINES_COUNT);
    ls_model_input_notes(&m, input);
    section_mark(timing, t, "errors_input");
    ls_stmt_finalize(m.code_q);
    if (opts->scope_leave && opts->scope_leave(s) != 0 && !m.rc)
        m.rc = LS_ESTORE;
    if (ls_store_stmt_views(s, 0) != 0 && !m.rc)
        m.rc = LS_ESTORE;
    if (ls_store_sorting(s, 0) != 0 && !m.rc)
        m.rc = LS_ESTORE;
    if (m.rc) {
        cJSON_Delete(r);
        return m.rc;
    }
    *out = r;
    return 0;
}
