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
#include <stdlib.h>
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

/* The statement texts, whose kind (ls_sql_kind_of) says which are the
 * transaction control (stmt_texts.kind is NULL in stores of schema
 * before 14, so it is decided from the text here): a few distinct texts,
 * kept in a temporary table so that one scan of the statements counts
 * them with everything else. */
#define SPAN_VERB "5" /* LS_VERB_SPAN (ls_store.h): made from a trace span */
static const char texts_sql[] = "SELECT text_id, text FROM stmt_texts";
static const char txc_make_sql[] =
    "DROP TABLE IF EXISTS temp.logcover_txc;"
    "CREATE TEMP TABLE logcover_txc(text_id INTEGER PRIMARY KEY)";
static const char txc_add_sql[] = "INSERT OR IGNORE INTO temp.logcover_txc VALUES (?1)";
static const char txc_drop_sql[] = "DROP TABLE IF EXISTS temp.logcover_txc";
/* Statement lines (spans' statements apart) and what they say of the
 * logging, in one scan of the statements. */
static const char stmt_sql[] =
    "SELECT count(*), count(st.dur_us), coalesce(min(st.dur_us), 0) / 1000.0,"
    " (SELECT count(*) FROM stmt_rows sp WHERE sp.verb = " SPAN_VERB "),"
    " coalesce(sum(st.text_id IN (SELECT text_id FROM temp.logcover_txc)), 0)"
    " FROM stmt_rows st WHERE st.verb <> " SPAN_VERB;
static const char holds_sql[] = "SELECT end_evidence, count(*) FROM holds GROUP BY 1";

enum { ST_N, ST_TIMED, ST_SHORTEST, ST_SPANS, ST_TXC };
enum { TX_ID, TX_TEXT };
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
    c->in.tx_control = ls_stmt_int64(q, ST_TXC);
}

/* The holds by their end's evidence, a handful of kinds: summed once,
 * and counted "at least" once the verdict is known. */
#define END_KINDS_MAX 64

typedef struct end_kinds {
    char *evidence[END_KINDS_MAX]; /* NULL: no evidence */
    int64_t holds[END_KINDS_MAX];
    size_t n;
    int64_t other; /* holds of kinds past END_KINDS_MAX: never "at least" */
} end_kinds;

static void end_kind_row(model_ctx *m, ls_stmt *q, void *arg)
{
    end_kinds *k = arg;
    int64_t n = ls_stmt_int64(q, H_N);
    char *ev = NULL;

    if (k->n == END_KINDS_MAX) {
        k->other += n;
        return;
    }
    if (!ls_stmt_isnull(q, H_EVIDENCE) && !(ev = ls_strdup(ls_stmt_text(q, H_EVIDENCE)))) {
        if (m->rc == 0)
            m->rc = LS_ENOMEM;
        return;
    }
    k->evidence[k->n] = ev;
    k->holds[k->n++] = n;
}

/* temp.logcover_txc: the ids of the texts that are BEGIN, COMMIT or
 * ROLLBACK. Sets m->rc on a store error. */
static void txc_table(model_ctx *m)
{
    ls_stmt *q = NULL, *ins = NULL;
    int rc;

    if ((rc = ls_store_exec(m->store, txc_make_sql)) != 0 ||
        (rc = ls_store_prepare(m->store, texts_sql, &q)) != 0 ||
        (rc = ls_store_prepare(m->store, txc_add_sql, &ins)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        ls_sql_kind k = ls_sql_kind_of(ls_stmt_text(q, TX_TEXT));
        if (k != LS_SQL_BEGIN && k != LS_SQL_COMMIT && k != LS_SQL_ROLLBACK)
            continue;
        ls_stmt_reset(ins);
        ls_stmt_bind_int64(ins, 1, ls_stmt_int64(q, TX_ID));
        if ((rc = ls_stmt_step(ins)) < 0)
            break;
    }
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(ins);
    if (rc < 0 && m->rc == 0)
        m->rc = rc;
}

void ls_model_logcover(model_ctx *m)
{
    cover_count c;
    end_kinds k;
    size_t i;

    memset(&c, 0, sizeof(c));
    memset(&k, 0, sizeof(k));
    txc_table(m);
    ls_model_each_row(m, stmt_sql, -1, stmt_row, &c);
    if (ls_store_exec(m->store, txc_drop_sql) != 0 && m->rc == 0)
        m->rc = LS_ERR;
    ls_model_each_row(m, holds_sql, -1, end_kind_row, &k);
    c.in.holds = k.other;
    for (i = 0; i < k.n; i++)
        c.in.holds += k.holds[i];
    m->logcover_in = c.in;
    m->logcover = (int)ls_logcover_decide(&c.in);
    m->logcover_open = 0;
    for (i = 0; i < k.n; i++) {
        if (ls_logcover_open_end((ls_logcover)m->logcover, k.evidence[i]))
            m->logcover_open += k.holds[i];
        free(k.evidence[i]);
    }
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

void ls_model_input_notes(model_ctx *m, cJSON *input)
{
    add_logging(m, input);
    add_same_log(input);
}
