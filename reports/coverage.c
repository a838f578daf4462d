/*
 * coverage.c — what the log cannot tell, said in the report's input
 * section (input.logging, input.same_log_twice) and by each hold
 * (hold_at_least):
 *
 * - statement logging past a duration threshold leaves out BEGIN, COMMIT
 *   and the fast statements, so a hold that ends at its transaction's
 *   last logged statement is a lower bound (ls_logcover.h decides);
 * - one log named twice, in two of its formats (log_destination writes
 *   each event to every format), counts every event twice (ingest says
 *   so on stderr too, input.c).
 */
#include <stdio.h>
#include <string.h>

#include "ls_common.h"
#include "ls_input.h"
#include "ls_logcover.h"
#include "ls_sqlshape.h"
#include "model_int.h"

/* What to set for the incident window so that holds end where they end. */
#define LOGCOVER_ADVICE                                                                  \
    "set log_min_duration_statement = 0 (or log_statement = 'all') for the incident "   \
    "window: then every BEGIN, COMMIT and statement is logged and holds are times"

/* Statement lines (spans' statements apart) and what they say of the
 * logging; then their distinct texts, whose kind (ls_sql_kind_of) counts
 * the transaction control (stmt_texts.kind is NULL in stores of schema
 * before 14, so it is decided from the text here). */
#define SPAN_VERB "5" /* LS_VERB_SPAN (ls_store.h): made from a trace span */
static const char stmt_sql[] =
    "SELECT count(*), count(st.dur_us), coalesce(min(st.dur_us), 0) / 1000.0,"
    " (SELECT count(*) FROM stmt_rows sp WHERE sp.verb = " SPAN_VERB ")"
    " FROM stmt_rows st WHERE st.verb <> " SPAN_VERB;
static const char texts_sql[] =
    "SELECT t.text, n.n FROM (SELECT text_id, count(*) AS n FROM stmt_rows"
    " WHERE verb <> " SPAN_VERB " GROUP BY 1) n JOIN stmt_texts t USING (text_id)";
static const char holds_sql[] = "SELECT end_evidence, count(*) FROM holds GROUP BY 1";

enum { ST_N, ST_TIMED, ST_SHORTEST, ST_SPANS };
enum { TX_TEXT, TX_N };
enum { H_EVIDENCE, H_N };

typedef struct cover_count {
    ls_logcover_in in;
    int64_t open; /* holds whose end is only "at least" (after the verdict) */
    ls_logcover verdict;
} cover_count;

static void stmt_row(model_ctx *m, ls_stmt *q, void *arg)
{
    cover_count *c = arg;
    (void)m;
    c->in.statements = ls_stmt_int64(q, ST_N);
    c->in.timed = ls_stmt_int64(q, ST_TIMED);
    c->in.shortest_ms = ls_stmt_double(q, ST_SHORTEST);
    c->in.from_spans = ls_stmt_int64(q, ST_SPANS);
}

static void text_row(model_ctx *m, ls_stmt *q, void *arg)
{
    ls_sql_kind k = ls_sql_kind_of(ls_stmt_text(q, TX_TEXT));
    (void)m;
    if (k == LS_SQL_BEGIN || k == LS_SQL_COMMIT || k == LS_SQL_ROLLBACK)
        ((cover_count *)arg)->in.tx_control += ls_stmt_int64(q, TX_N);
}

static void holds_total_row(model_ctx *m, ls_stmt *q, void *arg)
{
    (void)m;
    ((cover_count *)arg)->in.holds += ls_stmt_int64(q, H_N);
}

static void holds_open_row(model_ctx *m, ls_stmt *q, void *arg)
{
    cover_count *c = arg;
    const char *ev = ls_stmt_isnull(q, H_EVIDENCE) ? NULL : ls_stmt_text(q, H_EVIDENCE);
    (void)m;
    if (ls_logcover_open_end(c->verdict, ev))
        c->open += ls_stmt_int64(q, H_N);
}

void ls_model_logcover(model_ctx *m)
{
    cover_count c;
    memset(&c, 0, sizeof(c));
    ls_model_each_row(m, stmt_sql, -1, stmt_row, &c);
    ls_model_each_row(m, texts_sql, -1, text_row, &c);
    ls_model_each_row(m, holds_sql, -1, holds_total_row, &c);
    m->logcover = (int)ls_logcover_decide(&c.in);
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
    ls_model_each_row(m, stmt_sql, -1, stmt_row, &c);
    ls_model_each_row(m, texts_sql, -1, text_row, &c);
    c.verdict = (ls_logcover)m->logcover;
    ls_model_each_row(m, holds_sql, -1, holds_total_row, &c);
    ls_model_each_row(m, holds_sql, -1, holds_open_row, &c);
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

void ls_model_input_notes(model_ctx *m, cJSON *input)
{
    add_logging(m, input);
    add_same_log(input);
}
