/*
 * model_int.h — helpers shared by the files that build the report model
 * (model.c, codepaths.c): reading store rows into cJSON objects.
 */
#ifndef LS_MODEL_INT_H
#define LS_MODEL_INT_H

#include "ls_logcover.h"
#include "ls_report.h"

#include "ls_params.h"

/*
 * The report's query parameters (ls_params.h), a vocabulary: each model
 * query uses those it needs, by name, and ls_model_each_row() and
 * ls_mq_each_row() bind those it has (ls_stmt_param, once per query):
 * its argument arg1 (a LIMIT, a row, a deadlock, a time: whichever of
 * :limit, :row_id, :deadlock_id, :at the query has), the filters, NULL
 * when not given, and :waits_listed, :holds_listed, the bounds of a hot
 * row's timeline lists; :trace_id the requests' own (requests.c). A
 * query with another parameter fails to prepare.
 */
#define MODEL_PARAMS(X, Q)                                                                   \
    X(Q, limit) X(Q, row_id) X(Q, deadlock_id) X(Q, at) X(Q, trace_id) X(Q, since) X(Q, until) \
    X(Q, relation) X(Q, database) X(Q, code_path) X(Q, waits_listed) X(Q, holds_listed)

/*
 * Filters (--since, --until, --relation, --database, --code-path; model.c,
 * dba.c, context.c) are bound as :since, :until, :relation, :database,
 * :code_path
 * (NULL when not given) into the WHERE clauses below, written with the
 * table's alias: a wait is kept when it overlaps the time window, is for a
 * row of the relation (name or OID) and its session is in the database; an
 * error or a deadlock when its time is in the window, its session in the
 * database, and (for --relation) it ended a wait on that relation.
 */
#define IN_REL(a) ":relation IN (" a ".relation, CAST(" a ".rel_oid AS TEXT))"
#define IN_DB(col) \
    "(:database IS NULL OR " col " IN (SELECT session_id FROM sessions WHERE database = :database))"
/* --code-path NAME: the waiter's or the holder's transaction has that code
 * path under any of its names (function, route, service, application,
  * controller.action, as the tx_code view names them, its transaction
 * shape). */
#define IN_CODE(a)                                                                        \
    "(:code_path IS NULL OR EXISTS (SELECT 1 FROM tx_code cf WHERE cf.tx_id IN (" a ".waiter_tx, " \
    a ".holder_tx) AND :code_path IN (cf.code_name, cf.code_function, cf.route, cf.tag_route,"   \
    " cf.service, cf.application, cf.tag_controller, cf.tag_name, cf.tx_shape)))"
/* A row (an SQL expression of its row_id) that is no whole relation's
 * lock: the hot-row sections and rankings leave relation locks to the
 * relation lock queues (relation_queues). */
#define NOT_A_RELATION_LOCK(row_id) " " row_id " NOT IN (SELECT row_id FROM relation_lock_rows) "
/*
 * The lock_waits view's own columns (lock_wait_rows', its relation's
 * name, and the link columns IN_CODE reads, each a lookup made only when
 * --code-path asks for it), for reads of the waits in WAIT_FILTER that
 * need no chain or link column: the view's LEFT JOINs of wait_chains,
 * wait_links and wait_rows stay in an aggregate's plan (SQLite leaves out
 * an unused LEFT JOIN only where the query is no aggregate), about half
 * of a wait's SQLite VM steps. lock_wait_rows is read whole: a report
 * window's lock_waits (scope.c) keeps the waits WAIT_FILTER keeps, its
 * :since and :until being the window's.
 */
#define LOCK_WAITS_BASE_COLS                                                                       \
    "x.wait_id AS wait_id, x.session_id AS session_id, x.pid AS pid, x.mode AS mode,"              \
    " x.target_kind AS target_kind, x.rel_oid AS rel_oid, x.start_ts AS start_ts,"                 \
    " x.logged_ts AS logged_ts, x.end_ts AS end_ts, x.waited_ms AS waited_ms,"                     \
    " x.outcome AS outcome, x.statement AS statement, x.blocker_pid AS blocker_pid,"               \
    " coalesce(x.relation, (SELECT r.name FROM relations r WHERE r.db_oid = x.db_oid"              \
    " AND r.rel_oid = x.rel_oid)) AS relation"
#define LOCK_WAITS_OWN_COLS                                                                        \
    LOCK_WAITS_BASE_COLS                                                                           \
    ", (SELECT l.waiter_tx FROM wait_links l WHERE l.wait_id = x.wait_id) AS waiter_tx,"           \
    " (SELECT l.holder_tx FROM wait_links l WHERE l.wait_id = x.wait_id) AS holder_tx"
#define LOCK_WAITS_OWN "(SELECT " LOCK_WAITS_OWN_COLS " FROM lock_wait_rows x)"
/* The same with the wait's row (wait_rows: the logical rows pass's). */
#define LOCK_WAITS_OWN_ROW                                                                         \
    "(SELECT " LOCK_WAITS_OWN_COLS ", wr.row_id AS row_id FROM lock_wait_rows x"                   \
    " LEFT JOIN wait_rows wr ON wr.wait_id = x.wait_id)"
/* The same with the links the transactions pass set (wait_links, joined
 * once), for reads of a wait's holder or root transaction but not its
 * chain (wait_chains) or row (wait_rows): dba's blocking shapes. */
#define LOCK_WAITS_LINKED                                                                          \
    "(SELECT " LOCK_WAITS_BASE_COLS ", l.waiter_tx AS waiter_tx, l.holder_tx AS holder_tx,"        \
    " l.root_tx AS root_tx FROM lock_wait_rows x LEFT JOIN wait_links l ON l.wait_id = x.wait_id)"
#define WAIT_FILTER(a)                                                                   \
    " (:since IS NULL OR coalesce(" a ".end_ts, " a ".logged_ts, " a ".start_ts) >= :since)" \
    " AND (:until IS NULL OR " a ".start_ts <= :until)"                                  \
    " AND (:relation IS NULL OR " IN_REL(a) ")"                                          \
    " AND " IN_DB(a ".session_id") " AND " IN_CODE(a) " "

/* What the occupancy ranking's one scan of the holds found for its top
 * code path, which the story tells (codepaths.c, story.c): its holds, how
 * many the log bounds rather than times, and the row it held longest. */
typedef struct model_story_path {
    int known;       /* the ranking filled it in */
    int64_t holds, bounded;
    int64_t row_id;  /* 0: none */
    int64_t row_us;  /* its holds' summed length on that row, */
    int row_timed;   /* ... NULL when none of them has both times */
} model_story_path;

/* Why a figure summed or averaged over holds is null: none of its holds
 * was timed on a log that is not complete (ls_logcover_holds_unknown). */
#define HOLDS_UNKNOWN_REASON                                                                   \
    "No hold behind this figure was timed: the log does not have these transactions' ends "    \
    "(statements logged only past a duration threshold, only some statement classes logged, " \
    "or no statements), so the time is not knowable from this log, not 0 ms."

/* Why a hold's or a transaction's idle and commit time (and its state,
 * where that time mostly went) are null: the log does not show its end
 * (ls_logcover_split_unknown). */
#define SPLIT_UNKNOWN_REASON                                                                       \
    "The log does not show this transaction's end (statements logged only past a duration "        \
    "threshold, only some statement classes logged, or no statements): what it did after its "     \
    "last logged statement, and between two logged ones, is not in the log, so its idle and "      \
    "commit time are not knowable from this log, not 0 ms."

typedef struct model_ctx {
    ls_store *store;
    const ls_report_opts *opts;
    int rc; /* first store error; the model is dropped when set */
    ls_stmt *code_q; /* a transaction's code path (ls_model_add_code), kept prepared */
    model_story_path story; /* the top of row_occupancy, for the story */
    int logcover; /* ls_logcover (ls_logcover.h): set by ls_model_logcover() */
    ls_logcover_in logcover_in; /* ... and the counts it was decided on */
    int64_t logcover_open;      /* ... and the holds it makes "at least" */
    cJSON *report; /* the model being built (its cut: ls_model_cut_add) */
} model_ctx;

/*
 * A query's columns, by name. Each model section declares its SELECT list
 * as a table of columns: the JSON key the value becomes (also the name the
 * row function reads it by), the SQL expression, and how it enters the
 * model. The SELECT is built from the table, so no code writes a column's
 * position: ls_mq_*() find it by name. The JSON keys come out in the
 * table's order; LS_MC_HOOK entries mark where the row function adds what
 * a column cannot (a nested list, a computed value).
 */
typedef enum ls_mc_kind {
    LS_MC_INT,  /* integer */
    LS_MC_MS,   /* milliseconds, rounded to the microsecond */
    LS_MC_TS,   /* store time, as ISO 8601 UTC */
    LS_MC_STR,  /* text, cleaned to valid UTF-8 */
    LS_MC_NAME, /* a file name: valid UTF-8, control characters kept */
    LS_MC_BOOL, /* nonzero: true */
    LS_MC_BOOLN, /* nonzero: true, 0 false, NULL: null (unknown) */
    LS_MC_PIDS, /* "1,2,3": [1,2,3] */
    LS_MC_READ, /* selected for the row function to read; not added */
    LS_MC_CODE, /* not selected: the code path of the transaction in column
                   `expr` (a key of this table), keys prefixed with `key` */
    LS_MC_HOOK  /* not selected: the row function's hook adds `key` here */
} ls_mc_kind;

typedef struct ls_mcol {
    const char *key;
    const char *expr;
    ls_mc_kind kind;
} ls_mcol;

typedef struct ls_mquery {
    const char *with;  /* a WITH clause before the SELECT, or NULL */
    const ls_mcol *cols;
    size_t ncols;
    const char *from;  /* the statement after the select list */
    const char *params; /* its own parameters (LS_PARAM_NAMES), bound by
                           LS_PARAM; NULL: MODEL_PARAMS' */
} ls_mquery;

#define LS_MQUERY(with, cols, from) {with, cols, sizeof(cols) / sizeof(cols[0]), from, NULL}
/* A query of its own parameters, LS_PARAM_NAMES(LIST) (ls_params.h). */
#define LS_MQUERY_P(with, cols, from, params)                                                  \
    {with, cols, sizeof(cols) / sizeof(cols[0]), from, params}

/* The value of column `name` of the current row of q (a query built from
 * mq): its position is looked up by name; an unknown name is a bug, and
 * reads as NULL. */
int ls_mq_isnull(const ls_mquery *mq, ls_stmt *q, const char *name);
int64_t ls_mq_int64(const ls_mquery *mq, ls_stmt *q, const char *name);
double ls_mq_double(const ls_mquery *mq, ls_stmt *q, const char *name);
const char *ls_mq_text(const ls_mquery *mq, ls_stmt *q, const char *name);

typedef void (*ls_mq_hook)(model_ctx *m, cJSON *o, ls_stmt *q, const char *key, void *arg);
/* Add every column of the current row to o in the table's order; at an
 * LS_MC_HOOK entry call hook(m, o, q, key, arg). */
void ls_mq_add_row(model_ctx *m, cJSON *o, const ls_mquery *mq, ls_stmt *q, ls_mq_hook hook,
                   void *arg);
/* Prepare mq's statement into *out (the caller finalizes it; its
 * parameters checked against mq->params or MODEL_PARAMS); 0 or a store
 * error. */
int ls_mq_prepare(model_ctx *m, const ls_mquery *mq, ls_stmt **out);
/* Run mq (binding its argument to arg1 when arg1 >= 0, and the filters:
 * MODEL_PARAMS) and call row() per row. */
int ls_mq_each_row(model_ctx *m, const ls_mquery *mq, int64_t arg1,
                   void (*row)(model_ctx *, ls_stmt *, void *), void *arg);

/* A list that holds `listed` of `total` entries: its entry in the
 * report's "cut" under `path` ({listed, total, lift, top}); nothing when
 * total <= listed (model.c). */
void ls_model_cut(cJSON *report, const char *path, int64_t listed, int64_t total,
                  const char *lift, int top);
/* The same for a list inside each entry of another (a root blocker's
 * transaction's statements): `listed` of `total` added to the entry under
 * `path`, made when this is the first of them cut; lift NULL when no option
 * lists more (JSON null). Nothing when total <= listed. */
void ls_model_cut_add(cJSON *report, const char *path, int64_t listed, int64_t total,
                      const char *lift);
/* How many rows mq gives with :limit and :waits_listed unbounded (its
 * other parameters bound as ls_mq_each_row binds them); -1 on error.
 * bare: without its columns (their subqueries not run), for a statement
 * whose ORDER BY and GROUP BY name no column of its select list. */
int64_t ls_mq_count(model_ctx *m, const ls_mquery *mq, int64_t arg1, int bare);
/* The one value of `sql` (a count, MODEL_PARAMS bound as
 * ls_model_each_row binds them, no argument), or -1. */
int64_t ls_model_count(model_ctx *m, const char *sql);
/* ls_model_list's flags: a ranking cut at --top ("top N of M"); counted
 * bare (ls_mq_count). */
#define LS_LIST_TOP 1
#define LS_LIST_BARE 2
/* A list of the report, its cut recorded: at most `limit` rows of mq
 * (arg1 bound as ls_mq_each_row binds it, -1: `limit`) as the array `key`
 * of `parent`; when it is full, its total (`total` when >= 0, else the
 * one value of count_sql, MODEL_PARAMS bound, when given, else mq
 * counted by ls_mq_count, bare with LS_LIST_BARE) and, when more,
 * ls_model_cut(report, path, ..., lift, flags & LS_LIST_TOP). Returns the
 * array. */
cJSON *ls_model_list(model_ctx *m, cJSON *report, cJSON *parent, const char *key,
                     const char *path, const ls_mquery *mq, int64_t arg1, int64_t limit,
                     void (*row)(model_ctx *, ls_stmt *, void *), int64_t total,
                     const char *lift, int flags, const char *count_sql);

/* Add a string cleaned to valid UTF-8 (NULL adds a JSON null). */
void ls_model_add_str(cJSON *o, const char *key, const char *v);
/* Add column `col` of the current row as a time, integer, milliseconds
 * (rounded to the microsecond) or string; NULL columns add a JSON null. */
void ls_model_col_ts(cJSON *o, const char *key, ls_stmt *q, int col);
void ls_model_col_int(cJSON *o, const char *key, ls_stmt *q, int col);
void ls_model_col_ms(cJSON *o, const char *key, ls_stmt *q, int col);
void ls_model_col_str(cJSON *o, const char *key, ls_stmt *q, int col);
/* Run `sql` (of MODEL_PARAMS: its argument bound to arg1 when arg1 >= 0,
 * and the filters) and call row() per row. */
int ls_model_each_row(model_ctx *m, const char *sql, int64_t arg1,
                      void (*row)(model_ctx *, ls_stmt *, void *), void *arg);
/* A transaction with its statements (max_stmts at most) under `key`;
 * when it has more, their cut added under cut_path (ls_model_cut_add; no
 * option lists more), NULL: not recorded. */
void ls_model_add_tx(model_ctx *m, cJSON *parent, const char *key, int64_t tx_id,
                     int max_stmts, const char *cut_path);

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

/* requests.c: the slowest traced requests and their row-lock queueing. */
void ls_model_requests(model_ctx *m, cJSON *report, int top);
/* The database spans' clock offset and where the spans without a backend
 * pid went (summary.trace_spans; nothing without database spans). */
void ls_model_trace_spans(model_ctx *m, cJSON *summary);

/* findings.c: plain-language findings with evidence and a suggested fix,
 * from the sections already in the report. */
void ls_model_findings(model_ctx *m, cJSON *report);
/* story.c: the answer told first (the model's "story"), from the
 * sections already in the report: the top of the occupancy ranking, the
 * row it held longest, what it did while holding, the fix a finding gives
 * for it, and the evidence. */
void ls_model_story(model_ctx *m, cJSON *report);
/* dba.c: waits_by_lock, waiting_statements (by fingerprint) and
 * blocking_statements (by the blocking transaction's first write), at
 * most `top` each. */
void ls_model_dba(model_ctx *m, cJSON *report, int top);

/* context.c: context_per_minute, the incident's minutes (from 5 before
 * the first logged wait to 5 after the last, at most 120) with the
 * statements, statements per second, waits and errors of each; and
 * context_not_kept, what the store cannot count (checkpoints ...). */
void ls_model_context(model_ctx *m, cJSON *report);

/* coverage.c: what the log cannot tell. ls_model_logcover() decides, from
 * the store's statements and holds, whether statement logging bounds the
 * holds (m->logcover), before any hold is added; ls_model_hold_at_least()
 * is 1 when a hold with that end evidence is only a lower bound;
 * ls_model_input_notes() adds input.logging and input.same_log_twice
 * (after input.files). */
void ls_model_logcover(model_ctx *m);
int ls_model_hold_at_least(const model_ctx *m, const char *end_evidence);
/* m->logcover's name: "complete", "threshold" or "no_statements". */
const char *ls_model_logging_name(const model_ctx *m);
void ls_model_input_notes(model_ctx *m, cJSON *input);

/* queue.c: when the hot row's timeline tl lists only part of its queue
 * (tl.cut.queue), tl.queue_buckets: the row's queue depth over its whole
 * time in buckets, {time, end, depth (deepest), end_depth}. */
void ls_model_queue_buckets(model_ctx *m, int64_t row_id, cJSON *tl);

#endif
