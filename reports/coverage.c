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
 * whose ids go into the statements' scan as a list, so that one scan
 * counts them with everything else and the report writes nothing. Past
 * TXC_IDS_MAX such texts (a log whose BEGINs carry comments) the list
 * would grow with the log: they are counted by a second, grouped scan. */
#define SPAN_VERB "5" /* LS_VERB_SPAN (ls_store.h): made from a trace span */
#define TXC_IDS_MAX 1024
static const char texts_sql[] = "SELECT text_id, text FROM stmt_texts";
/* Statement lines (spans' statements apart) and what they say of the
 * logging, in one scan of the statements; %s: the list of ids. */
static const char stmt_fmt[] =
    "SELECT count(*), count(st.dur_us), coalesce(min(st.dur_us), 0) / 1000.0,"
    " (SELECT count(*) FROM stmt_rows sp WHERE sp.verb = " SPAN_VERB "),"
    " coalesce(sum(st.text_id IN (%s)), 0)"
    " FROM stmt_rows st WHERE st.verb <> " SPAN_VERB;
/* Too many texts for a list: each text's statements, counted by text. */
static const char texts_grouped_sql[] =
    "SELECT t.text_id, t.text, n.n FROM (SELECT text_id, count(*) AS n FROM stmt_rows"
    " WHERE verb <> " SPAN_VERB " GROUP BY 1) n JOIN stmt_texts t USING (text_id)";
static const char holds_sql[] = "SELECT end_evidence, count(*) FROM holds GROUP BY 1";

enum { ST_N, ST_TIMED, ST_SHORTEST, ST_SPANS, ST_TXC };
enum { TX_ID, TX_TEXT, TX_N };
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
    c->in.tx_control += ls_stmt_int64(q, ST_TXC);
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

static int is_tx_control(const char *text)
{
    ls_sql_kind k = ls_sql_kind_of(text);
    return k == LS_SQL_BEGIN || k == LS_SQL_COMMIT || k == LS_SQL_ROLLBACK;
}

/* ids: the ids of the texts that are BEGIN, COMMIT or ROLLBACK, "a,b,c"
 * ("NULL" for none); 1 when there are more than TXC_IDS_MAX of them
 * (ids then unused), 0, or a store error. */
static int txc_ids(model_ctx *m, ls_buf *ids)
{
    ls_stmt *q = NULL;
    size_t n = 0;
    int rc;

    if ((rc = ls_store_prepare(m->store, texts_sql, &q)) != 0)
        return rc;
    while ((rc = ls_stmt_step(q)) == 1) {
        char id[24];
        if (!is_tx_control(ls_stmt_text(q, TX_TEXT)))
            continue;
        if (++n > TXC_IDS_MAX) {
            rc = 1;
            break;
        }
        snprintf(id, sizeof(id), "%s%lld", n > 1 ? "," : "", (long long)ls_stmt_int64(q, TX_ID));
        ls_buf_adds(ids, id);
    }
    ls_stmt_finalize(q);
    if (rc < 0)
        return rc;
    if (n == 0)
        ls_buf_adds(ids, "NULL");
    if (ls_buf_failed(ids))
        return LS_ENOMEM;
    return rc == 1 ? 1 : 0;
}

static void txc_grouped_row(model_ctx *m, ls_stmt *q, void *arg)
{
    (void)m;
    if (is_tx_control(ls_stmt_text(q, TX_TEXT)))
        ((cover_count *)arg)->in.tx_control += ls_stmt_int64(q, TX_N);
}

/* c's statement counts: one scan with the list of transaction-control
 * texts, or (too many of them) that scan and a grouped one. */
static void count_statements(model_ctx *m, cover_count *c)
{
    ls_buf ids = LS_BUF_INIT(0), sql = LS_BUF_INIT(0);
    int many = txc_ids(m, &ids);

    if (many < 0) {
        if (m->rc == 0)
            m->rc = many;
    } else {
        ls_buf_printf(&sql, stmt_fmt, many ? "NULL" : ls_buf_str(&ids));
        if (ls_buf_failed(&sql)) {
            if (m->rc == 0)
                m->rc = LS_ENOMEM;
        } else {
            ls_model_each_row(m, ls_buf_str(&sql), -1, stmt_row, c);
            if (many)
                ls_model_each_row(m, texts_grouped_sql, -1, txc_grouped_row, c);
        }
    }
    ls_buf_free(&ids);
    ls_buf_free(&sql);
}

void ls_model_logcover(model_ctx *m)
{
    cover_count c;
    end_kinds k;
    size_t i;

    memset(&c, 0, sizeof(c));
    memset(&k, 0, sizeof(k));
    count_statements(m, &c);
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
