/*
 * coverage.c — what the log cannot tell, said in the report's input
 * section (input.logging, input.same_log_twice, input.pooled_backends)
 * and by each hold
 * (hold_at_least):
 *
 * - statement logging past a duration threshold leaves out BEGIN, COMMIT
 *   and the fast statements, so a hold that ends at its transaction's
 *   last logged statement is a lower bound (ls_logcover.h decides, in
 *   correlation's "statement logging" pass, src/correlate/logging.c,
 *   which stores the counts and the verdict in logcover: read here);
 * - one log named twice, in two of its formats (log_destination writes
 *   each event to every format), counts every event twice (ingest says
 *   so on stderr too, input.c);
 * - behind a connection pool one backend pid runs many clients'
 *   transactions, one after another: the pid is not one client.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_columns.h"
#include "ls_common.h"
#include "ls_logname.h"
#include "ls_logcover.h"
#include "model_int.h"

/* What to set for the incident window so that holds end where they end. */
#define LOGCOVER_ADVICE                                                                  \
    "set log_min_duration_statement = 0 (or log_statement = 'all') for the incident "   \
    "window: then every BEGIN, COMMIT and statement is logged and holds are times"

/* The "statement logging" pass's row (src/correlate/logging.c: the
 * counts, the verdict decide/logcover.c gave, the holds it makes "at
 * least"); under a report window, scope.c's over the window's holds
 * (temp.logcover, which the name finds first). */
#define LOGCOVER_COLS(X, Q)                     \
    X(Q, statements, "statements")              \
    X(Q, from_spans, "from_spans")              \
    X(Q, timed, "timed")                        \
    X(Q, shortest_ms, "shortest_ms")            \
    X(Q, tx_control, "tx_control")              \
    X(Q, holds, "holds")                        \
    X(Q, holds_at_least, "holds_at_least")      \
    X(Q, verdict, "verdict")
LS_COLUMNS(lc, LOGCOVER_COLS);
static const char logcover_sql[] = "SELECT " LS_SELECT_LIST(lc, LOGCOVER_COLS) " FROM logcover";

typedef struct cover_count {
    ls_logcover_in in;
    int64_t open; /* holds whose end is only "at least" (after the verdict) */
    ls_logcover verdict;
    int found;
} cover_count;

static void logcover_row(model_ctx *m, ls_stmt *q, void *arg)
{
    cover_count *c = arg;
    int64_t v = ls_stmt_int64(q, lc_verdict);
    (void)m;
    c->in.statements = ls_stmt_int64(q, lc_statements);
    c->in.from_spans = ls_stmt_int64(q, lc_from_spans);
    c->in.timed = ls_stmt_int64(q, lc_timed);
    c->in.shortest_ms = ls_stmt_double(q, lc_shortest_ms);
    c->in.tx_control = ls_stmt_int64(q, lc_tx_control);
    c->in.holds = ls_stmt_int64(q, lc_holds);
    c->open = ls_stmt_int64(q, lc_holds_at_least);
    c->verdict = v == LS_LOGCOVER_THRESHOLD       ? LS_LOGCOVER_THRESHOLD
                 : v == LS_LOGCOVER_NO_STATEMENTS ? LS_LOGCOVER_NO_STATEMENTS
                 : v == LS_LOGCOVER_CLASSES       ? LS_LOGCOVER_CLASSES
                 : v == LS_LOGCOVER_NONE          ? LS_LOGCOVER_NONE
                                                  : LS_LOGCOVER_COMPLETE;
    c->found = 1;
}

void ls_model_logcover(model_ctx *m)
{
    cover_count c;

    memset(&c, 0, sizeof(c));
    ls_model_each_row(m, logcover_sql, -1, logcover_row, &c);
    if (!c.found && m->rc == 0) {
        /* every correlation writes the row: a store not correlated */
        fprintf(stderr, "lockspan: report: the store has no statement-logging row (logcover):"
                        " correlate it again\n");
        m->rc = LS_ESTORE;
    }
    m->logcover_in = c.in;
    m->logcover = (int)c.verdict;
    m->logcover_open = c.open;
}

const char *ls_model_logging_name(const model_ctx *m)
{
    return ls_logcover_name((ls_logcover)m->logcover);
}

int ls_model_hold_at_least(const model_ctx *m, const char *end_evidence)
{
    return ls_logcover_open_end((ls_logcover)m->logcover, end_evidence);
}

/* input.logging: the counts the verdict rests on, the verdict, how many
 * holds have no evidence for their end, and (unless complete) the
 * setting that would give it. */
static void add_logging(model_ctx *m, cJSON *input)
{
    cJSON *o = cJSON_AddObjectToObject(input, "logging");
    cover_count c;

    memset(&c, 0, sizeof(c));
    c.in = m->logcover_in; /* counted once, by ls_model_logcover() */
    c.verdict = (ls_logcover)m->logcover;
    c.open = m->logcover_open;
    cJSON_AddStringToObject(o, "verdict", ls_logcover_name(c.verdict));
    cJSON_AddNumberToObject(o, "statements", (double)c.in.statements);
    cJSON_AddNumberToObject(o, "statements_timed", (double)c.in.timed);
    if (c.in.timed > 0)
        cJSON_AddNumberToObject(o, "shortest_ms", c.in.shortest_ms);
    else
        cJSON_AddNullToObject(o, "shortest_ms");
    cJSON_AddNumberToObject(o, "transaction_control", (double)c.in.tx_control);
    cJSON_AddNumberToObject(o, "holds", (double)c.in.holds);
    cJSON_AddNumberToObject(o, "holds_at_least", (double)c.open);
    if (c.verdict != LS_LOGCOVER_COMPLETE)
        cJSON_AddStringToObject(o, "advice", LOGCOVER_ADVICE);
    else
        cJSON_AddNullToObject(o, "advice");
}

/* input.same_log_twice: pairs of files that are one log in two formats
 * (ls_paths_same_log), in path order. */
static void add_same_log(cJSON *input)
{
    cJSON *pairs = cJSON_AddArrayToObject(input, "same_log_twice");
    const cJSON *files = cJSON_GetObjectItemCaseSensitive(input, "files");
    const cJSON *a, *b;

    cJSON_ArrayForEach(a, files) {
        const char *pa = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(a, "path"));
        for (b = a->next; pa && b; b = b->next) {
            const char *pb = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "path"));
            cJSON *pair;
            if (!pb || !ls_paths_same_log(pa, pb))
                continue;
            pair = cJSON_CreateObject();
            cJSON_AddStringToObject(pair, "file", pa);
            cJSON_AddStringToObject(pair, "other", pb);
            cJSON_AddItemToArray(pairs, pair);
        }
    }
}

/* A backend pid whose transactions were linked to at least this many
 * requests (traces) served pooled connections. */
#define POOLED_MIN_REQUESTS 2
#define SQL_INT_(x) #x
#define SQL_INT(x) SQL_INT_(x)

/* The backend pids that ran transactions of several requests (traces),
 * their requests and transactions, and the most requests one pid ran. */
static const ls_mcol pooled_cols[] = {
    {"pids", "count(*)", LS_MC_INT},
    {"requests", "coalesce(sum(traces), 0)", LS_MC_INT},
    {"transactions", "coalesce(sum(txs), 0)", LS_MC_INT},
    {"most_requests_one_pid", "coalesce(max(traces), 0)", LS_MC_INT},
};
static const ls_mquery pooled_q = LS_MQUERY(
    NULL, pooled_cols,
    "FROM (SELECT t.pid, count(DISTINCT c.trace_id) AS traces, count(*) AS txs"
    " FROM tx_code_rows c JOIN transactions t ON t.tx_id = c.tx_id"
    " WHERE c.trace_id IS NOT NULL AND t.pid IS NOT NULL GROUP BY t.pid"
    " HAVING count(DISTINCT c.trace_id) >= " SQL_INT(POOLED_MIN_REQUESTS) ")");

static void pooled_row(model_ctx *m, ls_stmt *q, void *arg)
{
    if (ls_mq_int64(&pooled_q, q, "pids") == 0)
        return; /* every pid ran one request at most: nothing to say */
    ls_mq_add_row(m, cJSON_AddObjectToObject(arg, "pooled_backends"), &pooled_q, q, NULL, NULL);
}

/*
 * input.pooled_backends: one backend pid ran the transactions of several
 * requests (traces), one after another: its connection was pooled, by
 * the application's pool or by a pooler such as pgbouncer in transaction
 * mode (issue 34, blind-pool: 8 pids, 1,110 transactions). A pid is then
 * not one client: its transactions are linked to their requests one by
 * one (traces.c). Absent when no pid ran more than one linked request.
 */
static void add_pooled(model_ctx *m, cJSON *input)
{
    ls_mq_each_row(m, &pooled_q, -1, pooled_row, input);
}

void ls_model_input_notes(model_ctx *m, cJSON *input)
{
    add_logging(m, input);
    add_same_log(input);
    add_pooled(m, input);
}
