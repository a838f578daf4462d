/*
 * traces.c — code paths of transactions: from application traces when
 * there are any, from the log alone otherwise.
 *
 * Every rebuilt transaction gets a tx_code row holding what names its
 * code path: sqlcommenter / marginalia tags of its statements, its
 * session's application_name, the shape of its first write, and, when a
 * span links to it, the nearest enclosing span with code attributes
 * (function, namespace, file, line), the route of its server span and its
 * service. Reports group by any of these. (tx_code is a view: the rows are
 * tx_code_rows, the shape and the order of relations written are stored
 * once per distinct text, the application name is the session's.)
 *
 * A database span links to a transaction by the strongest evidence there
 * is, recorded in tx_code.link:
 *   sqlcommenter  a traceparent in a logged statement names the span;
 *   pid           the span's backend-pid attribute equals the session's
 *                 pid and the span falls inside the transaction;
 *   statement     the span's statement text equals (else has the shape
 *                 of) a logged statement of the transaction, within a
 *                 tolerance around the clock offset.
 * The offset between application and database clocks is the median of
 * (statement start - span start) over the sqlcommenter links. Whatever
 * the evidence, a transaction stays linked only when it lies inside the
 * trace's request, its root span (ls_link_in_request(): no pair of a
 * statement with a span outside it, unlink_outside_requests()).
 *
 * Hold breakdown (holdparts.c): over each hold interval, time in SQL and
 * in COMMIT comes from the statement log; time in each non-database child
 * span of the code span comes from the trace; the rest is idle in
 * transaction that no span explains.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "corr_tables.h"
#include "correlate_int.h"
#include "decide/finding.h"
#include "decide/pathname.h"
#include "decide/pathid.h"
#include "decide/vote.h"
#include "ls_buf.h"
#include "ls_columns.h"
#include "ls_params.h"
#include "ls_sqlcomment.h"
#include "ls_sqlshape.h"
#include "rowkey.h"

#define MATCH_TOLERANCE_US 500000 /* statement vs span start, after the offset */
#define PID_TOLERANCE_US 20000     /* a pid-tagged span lies inside its transaction */
#define MAX_PARENT_HOPS 32
#define MAX_OFFSET_LINKS 256 /* sqlcommenter links the clock offset is the median of */


/*
 * A transaction's statements are a stmt_id range of stmt_rows read with the
 * session as a filter (+session_id: no index on (session_id, stmt_id)).
 * CROSS JOIN keeps the transaction outermost: the other way round, SQLite
 * reads every statement and, per statement, every earlier transaction of
 * its session.
 */
/*
 * The transactions, each with the shape hash of its cut at ingest
 * (tx_cuts.shape, which the transactions pass keeps in cut_shape before
 * it empties the cuts) when its statements are exactly the cut's; and a
 * transaction's statements, a stmt_id range of stmt_rows read with the
 * session as a filter (+session_id: no index on (session_id, stmt_id)).
 */
#define TX_COLS(X, Q)                \
    X(Q, tx_id, "t.tx_id")           \
    X(Q, session_id, "t.session_id") \
    X(Q, first_stmt, "t.first_stmt") \
    X(Q, last_stmt, "t.last_stmt")   \
    X(Q, cut_shape, "t.cut_shape")   \
    X(Q, application, "nullif(se.application, '')")
LS_COLUMNS(tx, TX_COLS);
static const char transactions_sql[] =
    "SELECT " LS_SELECT_LIST(tx, TX_COLS)
    " FROM transactions t LEFT JOIN sessions se ON se.session_id = t.session_id"
    " ORDER BY t.tx_id";
#define TX_STMT_COLS(X, Q)      \
    X(Q, stmt_id, "st.stmt_id")   \
    X(Q, text_id, "st.text_id")   \
    X(Q, verb, "st.verb")         \
    X(Q, text, "x.text")          \
    X(Q, prepare, "st.prepare")
LS_COLUMNS(ts, TX_STMT_COLS);
static const char tx_statements_sql[] =
    "SELECT " LS_SELECT_LIST(ts, TX_STMT_COLS)
    " FROM stmt_rows st LEFT JOIN stmt_texts x ON x.text_id = st.text_id"
    " WHERE st.stmt_id BETWEEN :first AND :last AND +st.session_id = :session"
    " ORDER BY st.stmt_id";
#define TX_STATEMENTS_PARAMS(X, Q) X(Q, first) X(Q, last) X(Q, session)
LS_PARAMS(tsp, TX_STATEMENTS_PARAMS);

/* Can a transaction's facts be taken from another of its cut's shape?
 * The cuts cover every statement (meta tx_cuts) and no statement came
 * from a span (spans.c adds them after ingest, uncut): as the
 * transactions pass asks (transactions.c). */
static const char cuts_usable_sql[] =
    "SELECT (SELECT value FROM meta WHERE key = 'tx_cuts') IS 'complete'"
    " AND NOT EXISTS (SELECT 1 FROM spans)";

LS_TABLE_COLUMNS(tx_code_rows);
static const char insert_code_sql[] = LS_INSERT_INTO("INSERT", tx_code_rows);
LS_TABLE_COLUMNS(stmt_tags);

static const char set_sequence_sql[] =
    "UPDATE tx_shapes SET sequence = :sequence WHERE tx_shape_id = :id";
#define SET_SEQUENCE_PARAMS(X, Q) X(Q, sequence) X(Q, id)
LS_PARAMS(ssp, SET_SEQUENCE_PARAMS);

#define TEXT_CACHE_SLOTS 1024   /* statement texts whose step and shape are kept */
#define SHAPE_CACHE_SLOTS 4096  /* cut shapes whose transactions' facts are kept */
#define STEP_SHAPE_MAX 1024     /* bytes of one statement's normalized text in a sequence */
#define SEQUENCE_MAX 8192       /* bytes of a transaction's sequence before it is cut */

/* A statement text's step (decide/pathid.h) and normalized text, by
 * text_id: a direct-mapped cache, so that a text shared by thousands of
 * transactions is looked at once and memory stays bounded when every
 * text differs (literals inlined). */
typedef struct text_slot {
    int64_t text_id; /* 0: empty */
    int has_step;
    char step[LS_TXSHAPE_STEP_MAX];
    char *shape;
} text_slot;

/* What a transaction's statements give, as stored: ids of its first
 * write's shape, its order of relations and its transaction shape (0:
 * none). */
typedef struct facts_ids {
    int64_t shape_id, order_id, tx_shape_id;
} facts_ids;

/* The texts of a transaction's facts that name its path (NULL: none):
 * its first write's shape and its transaction shape's label, as the
 * shapes and tx_shapes rows of its ids hold them. */
typedef struct facts_texts {
    char *shape, *label;
} facts_texts;

/* The ids of the transactions of one cut shape (tx_cuts.shape: a hash of
 * the sequence of their texts), for those whose texts carry no tag:
 * equal texts give equal facts, so one transaction of a shape is read and
 * the others are not. Direct-mapped by hash: bounded, however many. */
typedef struct shape_slot {
    int64_t hash;
    int used;
    facts_ids ids;
    facts_texts texts; /* kept when the paths are decided here */
    char *app;         /* with texts: the application the set was decided for */
    int64_t set_id;    /* its path set; 0: none decided */
} shape_slot;

typedef struct tx_facts {
    int64_t tx_id;
    char trace_id[33], span_id[17];
    char route[256], controller[128], action[128], application[128];
    int tagged;       /* a statement carried sqlcommenter / marginalia tags */
    int executes;     /* a statement EXECUTEd a prepared one: its step is not its text's */
    ls_buf shape;
    int nrel;
    char rels[8][64];
    ls_txshape steps; /* its shape's steps, for the label */
    ls_buf sequence;  /* its statements, normalized, one a line, each ending in ';' */
    char label[LS_TXSHAPE_LABEL_MAX + 64]; /* its shape's label, once interned */
} tx_facts;

/* What the pass keeps across transactions. */
typedef struct facts_ctx {
    ls_stmt *ins, *set_seq, *stmts, *tag;
    ls_paths *paths;      /* NULL: the paths are decided after the links */
    int by_shape;         /* with paths: path_identity's choice (decide/pathid.h) */
    int named;            /* with paths: a transaction has a name from a tag */
    ls_interner shapes, orders, tx_shapes;
    int64_t max_tx_shape; /* the largest tx_shape_id so far: a larger one is new */
    text_slot *cache;     /* TEXT_CACHE_SLOTS */
    shape_slot *by_shape_slots; /* SHAPE_CACHE_SLOTS; NULL when the cuts cannot be used */
} facts_ctx;

/* The cache slot of text `text_id`, filled from `text` when it held
 * another; NULL when out of memory. */
static text_slot *text_step(facts_ctx *c, int64_t text_id, const char *text)
{
    text_slot *sl = &c->cache[(uint64_t)text_id % TEXT_CACHE_SLOTS];
    ls_buf b = LS_BUF_INIT(0);

    if (sl->text_id == text_id && sl->shape)
        return sl;
    free(sl->shape);
    sl->shape = NULL;
    sl->text_id = text_id;
    sl->has_step = ls_txshape_step(text, sl->step, sizeof(sl->step));
    if (ls_sql_shape(&b, text ? text : "", STEP_SHAPE_MAX) == 0 && !ls_buf_failed(&b) &&
        (sl->shape = ls_strdup(ls_buf_str(&b))) != NULL) {
        size_t n = strlen(sl->shape); /* the sequence puts its own ';' */
        while (n && (sl->shape[n - 1] == ';' || sl->shape[n - 1] == ' '))
            sl->shape[--n] = '\0';
    }
    ls_buf_free(&b);
    return sl->shape ? sl : NULL;
}

/* Add a statement of the transaction to its shape: the step to the
 * label, the normalized text to the sequence, a line of its own (cut
 * past SEQUENCE_MAX). */
static int add_to_shape(tx_facts *f, const text_slot *sl)
{
    if (sl->has_step)
        ls_txshape_add(&f->steps, sl->step);
    if (f->sequence.len >= SEQUENCE_MAX || !sl->shape[0]) /* a duration line without text */
        return 0;
    if (f->sequence.len)
        ls_buf_adds(&f->sequence, "\n");
    ls_buf_adds(&f->sequence, sl->shape);
    ls_buf_adds(&f->sequence, ";");
    if (f->sequence.len >= SEQUENCE_MAX)
        ls_buf_adds(&f->sequence, "\n...");
    return ls_buf_failed(&f->sequence) ? LS_ENOMEM : 0;
}

/* The id of the transaction's shape, its sequence stored with it when
 * the label is new (the first transaction seen with a label gives it). */
static int intern_tx_shape(facts_ctx *c, tx_facts *f, int64_t *id)
{
    char *label = f->label;
    int rc;

    ls_txshape_label(&f->steps, label, sizeof(f->label));
    if ((rc = ls_intern(&c->tx_shapes, label, id)) != 0)
        return rc;
    if (*id <= c->max_tx_shape)
        return 0;
    c->max_tx_shape = *id;
    ls_stmt_reset(c->set_seq);
    if ((rc = ls_stmt_bind_int64(c->set_seq, LS_PARAM(ssp, id), *id)) != 0 ||
        (rc = ls_stmt_bind_text(c->set_seq, LS_PARAM(ssp, sequence), ls_buf_str(&f->sequence))) !=
            0)
        return rc;
    rc = ls_stmt_step(c->set_seq);
    return rc < 0 ? rc : 0;
}

static void copy_tag(char *dst, size_t n, const ls_sqltags *t, const char *key)
{
    const char *v = ls_sqltags_get(t, key);
    if (v && !dst[0])
        snprintf(dst, n, "%s", v);
}

/* The relations in the order written, as a JSON array of names. */
static char *order_json(const tx_facts *f)
{
    cJSON *a = cJSON_CreateArray();
    char *out = NULL;
    int i;
    for (i = 0; a && i < f->nrel; i++)
        if (!cJSON_AddItemToArray(a, cJSON_CreateString(f->rels[i])))
            break;
    if (a && i == f->nrel)
        out = cJSON_PrintUnformatted(a);
    cJSON_Delete(a);
    return out;
}

/* The ids of what f's statements gave, stored now where new. */
static int intern_facts(facts_ctx *c, tx_facts *f, facts_ids *ids)
{
    int rc;
    memset(ids, 0, sizeof(*ids));
    if (f->shape.len && (rc = ls_intern(&c->shapes, ls_buf_str(&f->shape), &ids->shape_id)) != 0)
        return rc;
    if ((rc = intern_tx_shape(c, f, &ids->tx_shape_id)) != 0)
        return rc;
    if (f->nrel) {
        char *json = order_json(f);
        if (!json)
            return LS_ENOMEM;
        rc = ls_intern(&c->orders, json, &ids->order_id);
        cJSON_free(json);
        if (rc)
            return rc;
    }
    return 0;
}

/* id into parameter col, NULL for 0; the bind's result. */
static int bind_id(ls_stmt *st, int col, int64_t id)
{
    return id ? ls_stmt_bind_int64(st, col, id) : ls_stmt_bind_null(st, col);
}

static const char *text_or_null(const char *s)
{
    return s[0] ? s : NULL;
}

/* The path set of f's transaction (its tags, application `app`, its
 * shape's texts t) in *set_id, as ls_correlate_paths() would decide it
 * from the row: no span names it (nothing links without spans). */
static int path_set_of(facts_ctx *c, const tx_facts *f, const char *app,
                       const facts_texts *t, int64_t *set_id)
{
    ls_path_facts pf;

    memset(&pf, 0, sizeof(pf));
    pf.tag_controller = text_or_null(f->controller);
    pf.tag_action = text_or_null(f->action);
    pf.tag_route = text_or_null(f->route);
    pf.tag_application = text_or_null(f->application);
    pf.application = app;
    pf.shape = t->shape;
    pf.tx_shape = t->label;
    pf.by_shape = c->by_shape;
    if (pf.tag_controller || pf.tag_route) /* names_sql's "named" */
        c->named = 1;
    return ls_paths_set_of(c->paths, &pf, set_id);
}

/* The tx_code_rows row of f (its tags; f->tx_id set) with ids and path
 * set set_id (0: none decided yet). */
static int insert_code(facts_ctx *c, const tx_facts *f, const facts_ids *ids, int64_t set_id)
{
    ls_stmt *ins = c->ins;
    int rc;

    ls_stmt_reset(ins);
    if ((rc = ls_stmt_bind_int64(ins, LS_PARAM(tx_code_rows, tx_id), f->tx_id)) != 0 ||
        (rc = ls_stmt_bind_text(ins, LS_PARAM(tx_code_rows, trace_id),
                                text_or_null(f->trace_id))) != 0 ||
        (rc = ls_stmt_bind_text(ins, LS_PARAM(tx_code_rows, tag_route), text_or_null(f->route))) !=
            0 ||
        (rc = ls_stmt_bind_text(ins, LS_PARAM(tx_code_rows, tag_controller),
                                text_or_null(f->controller))) != 0 ||
        (rc = ls_stmt_bind_text(ins, LS_PARAM(tx_code_rows, tag_action),
                                text_or_null(f->action))) != 0 ||
        (rc = ls_stmt_bind_text(ins, LS_PARAM(tx_code_rows, tag_application),
                                text_or_null(f->application))) != 0 ||
        (rc = bind_id(ins, LS_PARAM(tx_code_rows, shape_id), ids->shape_id)) != 0 ||
        (rc = ls_stmt_bind_text(ins, LS_PARAM(tx_code_rows, comment_span),
                                text_or_null(f->span_id))) != 0 ||
        (rc = bind_id(ins, LS_PARAM(tx_code_rows, order_id), ids->order_id)) != 0 ||
        (rc = bind_id(ins, LS_PARAM(tx_code_rows, tx_shape_id), ids->tx_shape_id)) != 0 ||
        (rc = bind_id(ins, LS_PARAM(tx_code_rows, path_set), set_id)) != 0)
        return rc;
    rc = ls_stmt_step(ins);
    return rc < 0 ? rc : 0;
}

/* Empty f for transaction tx_id, keeping its buffers' memory. */
static void facts_start(tx_facts *f, int64_t tx_id)
{
    ls_buf shape = f->shape, sequence = f->sequence;
    ls_buf_reset(&shape);
    ls_buf_reset(&sequence);
    memset(f, 0, sizeof(*f));
    f->shape = shape;
    f->sequence = sequence;
    ls_txshape_init(&f->steps);
    f->tx_id = tx_id;
}

/* Add statement q (text `text`), an EXECUTE, to f's shape: its step is
 * that of the body its session prepared the name as (the DETAIL
 * "prepare:" logged with it, read as row keys read it), not the text's,
 * which the text cache keeps; the text still goes to the sequence. */
static int add_executed(facts_ctx *c, tx_facts *f, ls_stmt *q, const char *text)
{
    const char *prepare = ls_stmt_isnull(q, ts_prepare) ? NULL : ls_stmt_text(q, ts_prepare);
    const char *sql, *params;
    char pbuf[LS_TXSHAPE_STEP_MAX];
    text_slot one;
    const text_slot *sl;

    f->executes = 1;
    if ((sl = text_step(c, ls_stmt_int64(q, ts_text_id), text)) == NULL)
        return LS_ENOMEM;
    one = *sl;
    ls_rowkey_effective(text, NULL, prepare, &sql, &params, pbuf, sizeof(pbuf));
    one.has_step = ls_txshape_step_executed(text, sql != text ? sql : NULL, one.step,
                                            sizeof(one.step));
    return add_to_shape(f, &one);
}

/* What one statement (stmt_id, its text and verb) says of f's path: its
 * step and normalized text, its tags (stored per statement), its write. */
static int statement_fact(facts_ctx *c, tx_facts *f, ls_stmt *q)
{
    const char *text = ls_stmt_isnull(q, ts_text) ? "" : ls_stmt_text(q, ts_text);
    int64_t verb = ls_stmt_int64(q, ts_verb);
    const text_slot *sl;
    ls_sqltags tags;
    char rel[64];
    int rc, i;

    /* a parse row alone is no step; a bind row alone is a failed
     * statement's, a step of what the code sent (ls_txshape_row_is_step()) */
    if (ls_txshape_row_is_step(verb == LS_VERB_PARSE  ? LS_TXROW_PARSE
                               : verb == LS_VERB_BIND ? LS_TXROW_BIND
                                                      : LS_TXROW_STATEMENT)) {
        if (ls_txshape_executes(text))
            rc = add_executed(c, f, q, text);
        else if ((sl = text_step(c, ls_stmt_int64(q, ts_text_id), text)) == NULL)
            rc = LS_ENOMEM;
        else
            rc = add_to_shape(f, sl);
        if (rc != 0)
            return rc;
    }
    if (ls_sqlcomment_parse(text, &tags) > 0) {
        f->tagged = 1;
        for (i = 0; i < tags.n; i++) {
            ls_stmt_reset(c->tag);
            if ((rc = ls_stmt_bind_int64(c->tag, LS_PARAM(stmt_tags, stmt_id),
                                         ls_stmt_int64(q, ts_stmt_id))) != 0 ||
                (rc = ls_stmt_bind_text(c->tag, LS_PARAM(stmt_tags, key), tags.tag[i].key)) != 0 ||
                (rc = ls_stmt_bind_text(c->tag, LS_PARAM(stmt_tags, value), tags.tag[i].value)) !=
                    0 ||
                (rc = ls_stmt_step(c->tag)) < 0)
                return rc;
        }
        if (!f->trace_id[0] && tags.trace_id[0]) {
            memcpy(f->trace_id, tags.trace_id, sizeof(f->trace_id));
            memcpy(f->span_id, tags.span_id, sizeof(f->span_id));
        }
        copy_tag(f->route, sizeof(f->route), &tags, "route");
        copy_tag(f->controller, sizeof(f->controller), &tags, "controller");
        copy_tag(f->action, sizeof(f->action), &tags, "action");
        copy_tag(f->application, sizeof(f->application), &tags, "application");
    }
    if (ls_sql_kind_of(text) == LS_SQL_WRITE) {
        if (!f->shape.len)
            ls_sql_shape(&f->shape, text, 200);
        /* The order in which the transaction first writes each relation. */
        if (ls_sql_relation(text, rel, sizeof(rel)) && f->nrel < 8) {
            for (i = 0; i < f->nrel && strcmp(f->rels[i], rel) != 0; i++)
                ;
            if (i == f->nrel)
                snprintf(f->rels[f->nrel++], sizeof(f->rels[0]), "%s", rel);
        }
    }
    return ls_buf_failed(&f->shape) == LS_ENOMEM ? LS_ENOMEM : 0;
}

static void texts_free(facts_texts *t)
{
    free(t->shape);
    free(t->label);
    memset(t, 0, sizeof(*t));
}

static int same_text(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* The path set of f, a transaction of slot sl's shape (no tag: it came
 * from the slot) with application app: the slot's when decided for the
 * same application, else decided (path_set_of()) and kept there. */
static int slot_path_set(facts_ctx *c, const tx_facts *f, shape_slot *sl, const char *app,
                         int64_t *set_id)
{
    int rc;

    if (sl->set_id && same_text(sl->app, app)) {
        *set_id = sl->set_id;
        return 0;
    }
    if ((rc = path_set_of(c, f, app, &sl->texts, set_id)) != 0)
        return rc;
    free(sl->app);
    sl->app = NULL;
    sl->set_id = 0;
    if (app && !(sl->app = ls_strdup(app)))
        return LS_ENOMEM;
    sl->set_id = *set_id;
    return 0;
}

/* Keep the facts (ids, and with paths their texts t) of cut shape hash h
 * in slot sl, in place of the shape it held. */
static int slot_keep(facts_ctx *c, shape_slot *sl, int64_t h, const facts_ids *ids,
                     const facts_texts *t)
{
    texts_free(&sl->texts);
    free(sl->app);
    sl->app = NULL;
    sl->set_id = 0;
    sl->used = 0;
    if (c->paths && ((t->shape && !(sl->texts.shape = ls_strdup(t->shape))) ||
                     (t->label && !(sl->texts.label = ls_strdup(t->label))))) {
        texts_free(&sl->texts);
        return LS_ENOMEM;
    }
    sl->used = 1;
    sl->hash = h;
    sl->ids = *ids;
    return 0;
}

/* The code facts of the transaction at q's row (transactions_sql): from
 * another transaction of its cut's shape when one without tags was read,
 * else from its statements. */
static int transaction_facts(facts_ctx *c, tx_facts *f, ls_stmt *q)
{
    shape_slot *sl = NULL;
    const char *app = ls_stmt_text_or_null(q, tx_application);
    int64_t set_id = 0;
    facts_ids ids;
    facts_texts t;
    int rc;

    facts_start(f, ls_stmt_int64(q, tx_tx_id));
    if (c->by_shape_slots && !ls_stmt_isnull(q, tx_cut_shape)) {
        int64_t h = ls_stmt_int64(q, tx_cut_shape);
        sl = &c->by_shape_slots[(uint64_t)h % SHAPE_CACHE_SLOTS];
        if (sl->used && sl->hash == h) {
            if (c->paths && (rc = slot_path_set(c, f, sl, app, &set_id)) != 0)
                return rc;
            return insert_code(c, f, &sl->ids, set_id);
        }
    }
    ls_stmt_reset(c->stmts);
    if ((rc = ls_stmt_bind_int64(c->stmts, LS_PARAM(tsp, session),
                                 ls_stmt_int64(q, tx_session_id))) != 0 ||
        (rc = ls_stmt_bind_int64(c->stmts, LS_PARAM(tsp, first),
                                 ls_stmt_int64(q, tx_first_stmt))) != 0 ||
        (rc = ls_stmt_bind_int64(c->stmts, LS_PARAM(tsp, last),
                                 ls_stmt_int64(q, tx_last_stmt))) != 0)
        return rc;
    while ((rc = ls_stmt_step(c->stmts)) == 1)
        if ((rc = statement_fact(c, f, c->stmts)) != 0)
            return rc;
    if (rc < 0 || (rc = intern_facts(c, f, &ids)) != 0)
        return rc;
    t.shape = ids.shape_id ? (char *)ls_buf_str(&f->shape) : NULL;
    t.label = ids.tx_shape_id ? f->label : NULL;
    /* Not from a transaction with an EXECUTE: its steps are its session's
     * PREPAREs', which another session's same texts need not share. */
    if (sl && !f->tagged && !f->executes) {
        if ((rc = slot_keep(c, sl, ls_stmt_int64(q, tx_cut_shape), &ids, &t)) != 0)
            return rc;
    }
    if (c->paths && (rc = path_set_of(c, f, app, &t, &set_id)) != 0)
        return rc;
    return insert_code(c, f, &ids, set_id);
}

static void facts_close(facts_ctx *c)
{
    int i;
    for (i = 0; c->cache && i < TEXT_CACHE_SLOTS; i++)
        free(c->cache[i].shape);
    for (i = 0; c->by_shape_slots && i < SHAPE_CACHE_SLOTS; i++) {
        texts_free(&c->by_shape_slots[i].texts);
        free(c->by_shape_slots[i].app);
    }
    free(c->cache);
    free(c->by_shape_slots);
    ls_stmt_finalize(c->ins);
    ls_stmt_finalize(c->set_seq);
    ls_stmt_finalize(c->stmts);
    ls_stmt_finalize(c->tag);
    ls_intern_close(&c->shapes);
    ls_intern_close(&c->orders);
    ls_intern_close(&c->tx_shapes);
}

/* Pass 1: what the statements say of each transaction's code path. A
 * transaction whose cut at ingest has the shape of one read before (the
 * same texts in the same order, none with tags) takes that one's facts:
 * on a pgbench-like log nearly no statement is read. With paths (not
 * NULL), each row is INSERTed with its path set decided with by_shape
 * (path_set_of()); *named: a transaction had a name from a tag. */
static int statement_facts(ls_store *s, ls_paths *paths, int by_shape, int *named)
{
    ls_stmt *q = NULL;
    facts_ctx c;
    tx_facts *f;
    int rc, usable;

    memset(&c, 0, sizeof(c));
    c.paths = paths;
    c.by_shape = by_shape;
    if ((rc = ls_correlate_flag(s, cuts_usable_sql, &usable)) != 0)
        return rc;
    if ((f = ls_calloc(1, sizeof(*f))) == NULL ||
        (c.cache = ls_calloc(TEXT_CACHE_SLOTS, sizeof(*c.cache))) == NULL ||
        (usable && (c.by_shape_slots = ls_calloc(SHAPE_CACHE_SLOTS,
                                                 sizeof(*c.by_shape_slots))) == NULL)) {
        free(f);
        facts_close(&c);
        return LS_ENOMEM;
    }
    ls_buf_init(&f->shape, 0);
    ls_buf_init(&f->sequence, 0);
    if ((rc = ls_store_prepare(s, transactions_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, tx_statements_sql, LS_PARAM_NAMES(TX_STATEMENTS_PARAMS),
                                      &c.stmts)) != 0 ||
        (rc = ls_store_prepare(s, insert_code_sql, &c.ins)) != 0 ||
        (rc = ls_store_prepare_params(s, set_sequence_sql, LS_PARAM_NAMES(SET_SEQUENCE_PARAMS),
                                      &c.set_seq)) != 0 ||
        (rc = ls_store_prepare(s, LS_INSERT_INTO("INSERT", stmt_tags), &c.tag)) != 0 ||
        (rc = ls_intern_open(s, &c.shapes, "shapes", "shape_id", "shape")) != 0 ||
        (rc = ls_intern_open(s, &c.orders, "lock_orders", "order_id", "relations")) != 0 ||
        (rc = ls_intern_open(s, &c.tx_shapes, "tx_shapes", "tx_shape_id", "label")) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1)
        if ((rc = transaction_facts(&c, f, q)) != 0)
            goto out;
out:
    *named = c.named;
    ls_buf_free(&f->shape);
    ls_buf_free(&f->sequence);
    free(f);
    ls_stmt_finalize(q);
    facts_close(&c);
    return rc < 0 ? rc : 0;
}

/* ---- links ---- */

static int64_t median(int64_t *v, int n)
{
    int i, j;
    for (i = 1; i < n; i++) /* insertion sort: n is small */
        for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
            int64_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n ? v[n / 2] : 0;
}

/* sqlcommenter links and the clock offset they give. */
#define COMMENT_LINK_COLS(X, Q)                                                   \
    X(Q, tx_id, "c.tx_id")                                                        \
    X(Q, span_row, "sp.span_row")                                                 \
    X(Q, span_start, "sp.start_ts")                                               \
    X(Q, stmt_start, "(SELECT min(st.start_ts)"                                   \
      "  FROM transactions t CROSS JOIN statements st ON +st.session_id = t.session_id" \
      "  AND st.stmt_id BETWEEN t.first_stmt AND t.last_stmt"                      \
      "  WHERE t.tx_id = c.tx_id AND st.text LIKE '%' || c.comment_span || '%')")
LS_COLUMNS(cl, COMMENT_LINK_COLS);
static const char comment_links_sql[] =
    "SELECT " LS_SELECT_LIST(cl, COMMENT_LINK_COLS)
    " FROM tx_code c JOIN spans sp ON sp.span_id = c.comment_span AND sp.trace_id = c.trace_id"
    " WHERE c.comment_span IS NOT NULL";
/* Transaction :tx linked to span :span_row by its sqlcommenter comment. */
static const char comment_link_sql[] =
    "UPDATE tx_code_rows SET span_row = :span_row, link = 'sqlcommenter' WHERE tx_id = :tx";
#define COMMENT_LINK_PARAMS(X, Q) X(Q, span_row) X(Q, tx)
LS_PARAMS(clp, COMMENT_LINK_PARAMS);

static int link_by_comment(ls_store *s, int64_t *offset)
{
    ls_stmt *q = NULL, *upd = NULL;
    int64_t diffs[MAX_OFFSET_LINKS];
    int n = 0, rc;

    if ((rc = ls_store_prepare(s, comment_links_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, comment_link_sql, LS_PARAM_NAMES(COMMENT_LINK_PARAMS),
                                      &upd)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        ls_stmt_reset(upd);
        if ((rc = ls_stmt_bind_int64(upd, LS_PARAM(clp, tx), ls_stmt_int64(q, cl_tx_id))) != 0 ||
            (rc = ls_stmt_bind_int64(upd, LS_PARAM(clp, span_row),
                                     ls_stmt_int64(q, cl_span_row))) != 0 ||
            (rc = ls_stmt_step(upd)) < 0)
            goto out;
        if (!ls_stmt_isnull(q, cl_stmt_start) && n < MAX_OFFSET_LINKS)
            diffs[n++] = ls_stmt_int64(q, cl_stmt_start) - ls_stmt_int64(q, cl_span_start);
    }
    if (n) /* else the offset spans.c measured, or none */
        *offset = median(diffs, n);
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(upd);
    return rc < 0 ? rc : 0;
}

/* Database spans carrying the backend pid, inside the transaction (less
 * :offset, the database clock less the application's, within :tolerance).
 * The span's time is compared as a range on spans_pid (db_pid, start_ts),
 * so each transaction costs one index probe, not a scan of the spans. */
static const char pid_links_sql[] =
    "UPDATE tx_code_rows SET link = 'pid', span_row = (SELECT sp.span_row FROM spans sp"
    "  JOIN transactions t ON t.tx_id = tx_code_rows.tx_id"
    "  WHERE sp.db_pid = t.pid AND sp.start_ts BETWEEN t.start_ts - :tolerance - :offset"
    "  AND coalesce(t.end_ts, t.start_ts) + :tolerance - :offset"
    "  ORDER BY abs(sp.start_ts + :offset - t.start_ts) LIMIT 1)"
    " WHERE span_row IS NULL AND EXISTS (SELECT 1 FROM spans sp"
    "  JOIN transactions t ON t.tx_id = tx_code_rows.tx_id"
    "  WHERE sp.db_pid = t.pid AND sp.start_ts BETWEEN t.start_ts - :tolerance - :offset"
    "  AND coalesce(t.end_ts, t.start_ts) + :tolerance - :offset)";
#define PID_LINKS_PARAMS(X, Q) X(Q, tolerance) X(Q, offset)
LS_PARAMS(plp, PID_LINKS_PARAMS);

/* Is there a span with a backend pid (a pid link is possible)? */
static const char pid_spans_sql[] =
    "SELECT EXISTS (SELECT 1 FROM spans WHERE db_pid IS NOT NULL)";

/* The pid links (pid_links_sql), offset the database clock less the
 * application's. Without a span that has a pid there is none: the
 * UPDATE's scan of every transaction is not run (1.1 M VM steps at
 * 256 MiB for nothing). */
static int link_by_pid(ls_store *s, int64_t offset)
{
    ls_stmt *st = NULL;
    int rc;

    if ((rc = ls_store_prepare(s, pid_spans_sql, &st)) != 0)
        return rc;
    rc = ls_stmt_step(st);
    if (rc == 1 && ls_stmt_int64(st, LS_ONLY_COLUMN) == 0)
        rc = 0;
    else if (rc == 1)
        rc = 2; /* a pid span: link */
    ls_stmt_finalize(st);
    if (rc != 2)
        return rc < 0 ? rc : rc == 0 ? 0 : LS_ESTORE;
    if ((rc = ls_store_exec_sorting(s, "CREATE INDEX IF NOT EXISTS spans_pid ON"
                                       " spans(db_pid, start_ts)"
                                       " WHERE db_pid IS NOT NULL")) != 0 ||
        (rc = ls_store_prepare_params(s, pid_links_sql, LS_PARAM_NAMES(PID_LINKS_PARAMS), &st)) !=
            0)
        return rc;
    if ((rc = ls_stmt_bind_int64(st, LS_PARAM(plp, offset), offset)) == 0 &&
        (rc = ls_stmt_bind_int64(st, LS_PARAM(plp, tolerance), PID_TOLERANCE_US)) == 0)
        rc = ls_stmt_step(st);
    ls_stmt_finalize(st);
    return rc < 0 ? rc : 0;
}

/*
 * A trace's request in the application's clock (ls_request): its root
 * spans' extent, NULL without one, and all its spans' extent. Read on the
 * spans_id index for the few spans and links that are tested, never kept
 * for every trace (memory follows the matches, issue 37).
 */
#define REQUEST_COLS(X, Q)                                                              \
    X(Q, root_start, "min(CASE WHEN coalesce(parent_id, '') = '' THEN start_ts END)")  \
    X(Q, root_end, "max(CASE WHEN coalesce(parent_id, '') = ''"                        \
                   " THEN coalesce(end_ts, start_ts) END)")                            \
    X(Q, span_start, "min(start_ts)")                                                  \
    X(Q, span_end, "max(coalesce(end_ts, start_ts))")
LS_COLUMNS(rq, REQUEST_COLS);
static const char request_sql[] =
    "SELECT " LS_SELECT_LIST(rq, REQUEST_COLS) " FROM spans"
    " WHERE trace_id = :trace AND start_ts IS NOT NULL";
#define REQUEST_PARAMS(X, Q) X(Q, trace)
LS_PARAMS(rqp, REQUEST_PARAMS);

/* *rq: the request of trace `trace` (q: request_sql prepared). */
static int read_request(ls_stmt *q, const char *trace, ls_request *rq)
{
    int rc;

    memset(rq, 0, sizeof(*rq));
    ls_stmt_reset(q);
    if ((rc = ls_stmt_bind_text(q, LS_PARAM(rqp, trace), trace)) != 0)
        return rc;
    if ((rc = ls_stmt_step(q)) != 1)
        return rc < 0 ? rc : 0;
    rq->has_root = !ls_stmt_isnull(q, rq_root_start);
    rq->root_start = ls_stmt_int64(q, rq_root_start);
    rq->root_end = ls_stmt_int64(q, rq_root_end);
    rq->span_start = ls_stmt_int64(q, rq_span_start);
    rq->span_end = ls_stmt_int64(q, rq_span_end);
    return 0;
}

/*
 * Statement links. Concurrent transactions of one code path send the same
 * text, so a span is not simply given to the nearest matching statement:
 * every (span, statement) pair of equal shape within the tolerance is a
 * candidate, pairs are taken best first (same literals, then nearest in
 * time) with each span and each statement used once, and a transaction
 * joins the trace most of its matched statements came from
 * (ls_vote_span()). Spans and statements are read in start order, merged,
 * and only those with a candidate are kept (gather_candidates()).
 */
#define DB_SPAN_COLS(X, Q)                  \
    X(Q, span_row, "sp.span_row")             \
    X(Q, start_ts, "sp.start_ts")             \
    X(Q, dur_us, "sp.end_ts - sp.start_ts")   \
    X(Q, text, "sp.db_statement")             \
    X(Q, trace_id, "sp.trace_id")
LS_COLUMNS(ds, DB_SPAN_COLS);
static const char db_spans_sql[] =
    "SELECT " LS_SELECT_LIST(ds, DB_SPAN_COLS) " FROM spans sp"
    " WHERE sp.db_statement IS NOT NULL ORDER BY sp.start_ts";
#define UNLINKED_COLS(X, Q)                          \
    X(Q, tx_id, "c.tx_id")                           \
    X(Q, start_ts, "st.start_ts + CASE WHEN st.verb = 'span' THEN 0 ELSE :half END") \
    X(Q, dur_us, "st.end_ts - st.start_ts")          \
    X(Q, exact, "st.verb = 'span'")                  \
    X(Q, text, "st.text")                            \
    X(Q, tx_start, "t.start_ts")                     \
    X(Q, tx_end, "coalesce(t.end_ts, t.start_ts)")
LS_COLUMNS(us, UNLINKED_COLS);
static const char unlinked_statements_sql[] =
    "SELECT " LS_SELECT_LIST(us, UNLINKED_COLS) " FROM tx_code c"
    " CROSS JOIN transactions t ON t.tx_id = c.tx_id"
    " CROSS JOIN statements st ON +st.session_id = t.session_id"
    "  AND st.stmt_id BETWEEN t.first_stmt AND t.last_stmt"
    " WHERE c.span_row IS NULL ORDER BY 2"; /* :half: see gather_candidates() */
#define UNLINKED_PARAMS(X, Q) X(Q, half)
LS_PARAMS(unp, UNLINKED_PARAMS);

/* A database span or a logged statement, as the matching holds it. */
typedef struct mitem {
    int64_t id;    /* the span's span_row, the statement's tx_id */
    int64_t start; /* on the database clock */
    int64_t dur;   /* its duration, -1 unknown (a statement logged without one) */
    int exact;     /* a statement timed by its span (verb 'span'), not by the log */
    ls_request rq; /* a span's trace's request (read once kept) */
    int64_t lo, hi; /* a statement's transaction */
    char *text, *shape, trace[33]; /* trace: the span's */
    int taken, near; /* paired; has one of the other kind near (a candidate) */
} mitem;

typedef struct mlist {
    mitem *v;
    size_t n, cap;
} mlist;

typedef struct mpair {
    int64_t d;
    int exact;
    size_t span, stmt;
} mpair;

static int pair_cmp(const void *a, const void *b)
{
    const mpair *x = a, *y = b;
    if (x->exact != y->exact)
        return y->exact - x->exact;
    return x->d < y->d ? -1 : x->d > y->d;
}

/* Text without its trailing comment, for the same-literals test. */
static size_t bare_len(const char *t)
{
    const char *c = strstr(t, "/*");
    size_t n = c ? (size_t)(c - t) : strlen(t);
    while (n && (t[n - 1] == ' ' || t[n - 1] == '\n' || t[n - 1] == ';'))
        n--;
    return n;
}

static char *shape_of(const char *text)
{
    ls_buf b = LS_BUF_INIT(0);
    char *out;
    ls_sql_shape(&b, text, 4096);
    out = ls_strdup(ls_buf_str(&b));
    ls_buf_free(&b);
    return out;
}

/*
 * How far apart a statement and a span are, for taking the nearest pairs
 * first: their starts; on a whole-second log (res > 0), where a
 * statement's start is only known to its second and concurrent requests
 * send the same text within it, the difference of their durations when
 * the log gave one (a duration line's is exact to the microsecond, and the
 * span that sent the statement lasted as long, plus the round trip);
 * not for a statement a span timed (spans.c), whose start is exact.
 */
static int64_t pair_distance(const mitem *st, const mitem *sp, int64_t res)
{
    int64_t d = st->start - sp->start;

    if (res > 0 && !st->exact && st->dur >= 0 && sp->dur >= 0)
        d = sp->dur - st->dur;
    return d < 0 ? -d : d;
}

#define MAX_PAIRS_PER_SPAN 16

/* A vote (ls_span_vote) of the transaction tx_id, the seq-th pair taken. */
typedef struct tx_vote {
    int64_t tx_id;
    size_t seq;
    ls_span_vote v;
} tx_vote;

/* By transaction, each trace's votes together, in the order taken. */
static int tx_vote_cmp(const void *a, const void *b)
{
    const tx_vote *x = a, *y = b;
    int c;
    if (x->tx_id != y->tx_id)
        return x->tx_id < y->tx_id ? -1 : 1;
    if ((c = strcmp(x->v.trace_id, y->v.trace_id)) != 0)
        return c;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const char link_statement_sql[] =
    "UPDATE tx_code_rows SET link = 'statement', span_row = :span_row"
    " WHERE tx_id = :tx AND span_row IS NULL";
#define LINK_STATEMENT_PARAMS(X, Q) X(Q, span_row) X(Q, tx)
LS_PARAMS(lsp, LINK_STATEMENT_PARAMS);

/* Link each transaction with votes to the span ls_vote_span() picks. */
static int link_votes(ls_store *s, tx_vote *tv, ls_span_vote *v, size_t nv)
{
    ls_stmt *upd = NULL;
    size_t i, k;
    int rc;

    if (nv)
        qsort(tv, nv, sizeof(*tv), tx_vote_cmp);
    for (i = 0; i < nv; i++)
        v[i] = tv[i].v;
    if ((rc = ls_store_prepare_params(s, link_statement_sql, LS_PARAM_NAMES(LINK_STATEMENT_PARAMS),
                                      &upd)) != 0)
        return rc;
    for (i = 0; i < nv; i = k) {
        for (k = i; k < nv && tv[k].tx_id == tv[i].tx_id; k++)
            ;
        ls_stmt_reset(upd);
        if ((rc = ls_stmt_bind_int64(upd, LS_PARAM(lsp, tx), tv[i].tx_id)) != 0 ||
            (rc = ls_stmt_bind_int64(upd, LS_PARAM(lsp, span_row),
                                     v[i + ls_vote_span(v + i, k - i)].span_row)) != 0 ||
            (rc = ls_stmt_step(upd)) < 0)
            break;
    }
    ls_stmt_finalize(upd);
    return rc < 0 ? rc : 0;
}

/* Take the pairs best first, each span and statement once (pairs sorted
 * by pair_cmp), and link the transactions by the votes they make. */
static int link_by_votes(ls_store *s, const mpair *pairs, size_t np, mitem *st, mitem *sp)
{
    tx_vote *tv = NULL;
    ls_span_vote *v = NULL;
    size_t i, nv = 0;
    int rc;

    if (np && (!(tv = ls_realloc(NULL, np * sizeof(*tv))) ||
               !(v = ls_realloc(NULL, np * sizeof(*v))))) {
        free(tv);
        return LS_ENOMEM;
    }
    for (i = 0; i < np; i++) {
        const mpair *p = &pairs[i];
        if (sp[p->span].taken || st[p->stmt].taken)
            continue;
        sp[p->span].taken = st[p->stmt].taken = 1;
        tv[nv].tx_id = st[p->stmt].id;
        tv[nv].seq = nv;
        tv[nv].v.trace_id = sp[p->span].trace;
        tv[nv].v.span_row = sp[p->span].id;
        tv[nv].v.d = p->d;
        nv++;
    }
    rc = link_votes(s, tv, v, nv);
    free(tv);
    free(v);
    return rc;
}

static void mitem_free(mitem *it)
{
    free(it->text);
    free(it->shape);
}

static void mlist_free(mlist *l)
{
    size_t i;
    for (i = 0; i < l->n; i++)
        mitem_free(&l->v[i]);
    free(l->v);
    memset(l, 0, sizeof(*l));
}

/* Append *it to l (which then owns its texts). */
static int mlist_push(mlist *l, const mitem *it)
{
    if (l->n == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 256;
        mitem *nv = ls_realloc(l->v, ncap * sizeof(*nv));
        if (!nv)
            return LS_ENOMEM;
        l->v = nv;
        l->cap = ncap;
    }
    l->v[l->n++] = *it;
    return 0;
}

/* One cursor of the merge: the query, its last step, the row's start. */
typedef struct mcursor {
    ls_stmt *q;
    int rc;
    int64_t start;
} mcursor;

static void mcursor_step(mcursor *c, int start_col, int64_t offset)
{
    if ((c->rc = ls_stmt_step(c->q)) == 1)
        c->start = ls_stmt_int64(c->q, start_col) + offset;
}

/* The cursor's row as an item (kind 0 a span, 1 a statement). */
static int mitem_read(mitem *it, const mcursor *c, int kind)
{
    memset(it, 0, sizeof(*it));
    it->start = c->start;
    it->dur = -1;
    if (kind == 0) {
        if (!ls_stmt_isnull(c->q, ds_dur_us))
            it->dur = ls_stmt_int64(c->q, ds_dur_us);
        it->id = ls_stmt_int64(c->q, ds_span_row);
        it->text = ls_strdup(ls_stmt_text(c->q, ds_text));
        snprintf(it->trace, sizeof(it->trace), "%s", ls_stmt_text(c->q, ds_trace_id));
    } else {
        if (!ls_stmt_isnull(c->q, us_dur_us))
            it->dur = ls_stmt_int64(c->q, us_dur_us);
        it->exact = (int)ls_stmt_int64(c->q, us_exact);
        it->id = ls_stmt_int64(c->q, us_tx_id);
        it->text = ls_strdup(ls_stmt_text(c->q, us_text));
        it->lo = ls_stmt_int64(c->q, us_tx_start);
        it->hi = ls_stmt_int64(c->q, us_tx_end);
    }
    if (it->text && (it->shape = shape_of(it->text)) != NULL)
        return 0;
    free(it->text);
    return LS_ENOMEM;
}

/*
 * Where the items of one kind have one of the other kind near: for each
 * bucket of shapes (a hash of the shape, NEAR_BUCKETS of them, and one
 * more, NEAR_ANY, for every shape), the times within MATCH_TOLERANCE_US
 * of an item of the other kind, as disjoint intervals in time order. Two
 * shapes of one bucket only make an item a candidate that pairs with
 * nothing (the pairs compare shapes): never one fewer.
 *
 * An interval, 2 * MATCH_TOLERANCE_US long, is added when the leading
 * cursors read the other kind's item, at most MATCH_TOLERANCE_US after
 * the trailing cursors' time, and dropped once that time is past its
 * end. Those left after a drop all hold the trailing time, so they
 * overlap and were joined into one: with the one added, two at most;
 * NEAR_SPANS hold them with room to spare (past it the last would be
 * extended: more candidates, never fewer).
 */
#define NEAR_BUCKETS 1024
#define NEAR_ANY NEAR_BUCKETS
#define NEAR_SPANS 4

typedef struct near_span {
    int64_t lo, hi;
} near_span;

typedef struct near_set {
    near_span v[NEAR_BUCKETS + 1][NEAR_SPANS];
    unsigned char n[NEAR_BUCKETS + 1];
} near_set;

/* Drop bucket b's intervals that end before t. */
static void near_drop(near_set *ns, int b, int64_t t)
{
    int i = 0;
    while (i < ns->n[b] && ns->v[b][i].hi < t)
        i++;
    if (i > 0) {
        memmove(ns->v[b], ns->v[b] + i, (size_t)(ns->n[b] - i) * sizeof(ns->v[b][0]));
        ns->n[b] = (unsigned char)(ns->n[b] - i);
    }
}

/* Add [lo, hi] to bucket b (lo never below the last one's); now: the
 * trailing cursors' time, before which no interval is asked again. */
static void near_add(near_set *ns, int b, int64_t lo, int64_t hi, int64_t now)
{
    near_span *last;
    near_drop(ns, b, now);
    last = ns->n[b] ? &ns->v[b][ns->n[b] - 1] : NULL;
    if (last && (lo <= last->hi || ns->n[b] == NEAR_SPANS)) {
        if (hi > last->hi)
            last->hi = hi;
        return;
    }
    ns->v[b][ns->n[b]].lo = lo;
    ns->v[b][ns->n[b]++].hi = hi;
}

/* Does an interval of bucket b hold t (no later t was asked before)? */
static int near_has(near_set *ns, int b, int64_t t)
{
    near_drop(ns, b, t);
    return ns->n[b] > 0 && ns->v[b][0].lo <= t;
}

/* The bucket of the shape of text; -1 when out of memory. */
static int near_bucket(const char *text)
{
    char *shape = shape_of(text);
    int b;
    if (!shape)
        return -1;
    b = (int)(ls_quick_hash(shape, strlen(shape)) % NEAR_BUCKETS);
    free(shape);
    return b;
}

/*
 * The database spans and the unlinked transactions' statements that have
 * one of the other kind, of their shape, within MATCH_TOLERANCE_US: the
 * only ones a pair can take (kept[0] the spans, kept[1] the statements,
 * each by start). Both are read in start order twice, merged: the
 * leading cursors MATCH_TOLERANCE_US ahead mark where each kind has one
 * of the other near (near_set), and the trailing ones keep an item that
 * lies there. Nothing is held but the candidates, whatever the number of
 * spans in a tolerance (issue 38: a window of every item read within it
 * held 83 k spans, their texts and shapes, at 10 M spans over a minute:
 * 25 MiB), and no more than a small page cache (ls_store_sorting: the
 * statements are sorted twice at once).
 */
static int gather_candidates(ls_store *s, int64_t offset, int64_t res, mlist kept[2])
{
    mcursor lead[2] = {{NULL, 0, 0}, {NULL, 0, 0}}, trail[2] = {{NULL, 0, 0}, {NULL, 0, 0}};
    const char *sql[2] = {db_spans_sql, unlinked_statements_sql};
    const char *names[2] = {"", LS_PARAM_NAMES(UNLINKED_PARAMS)};
    const int start_col[2] = {ds_start_ts, us_start_ts};
    const int text_col[2] = {ds_text, us_text};
    /* a whole-second statement time at the middle of its second (in
     * unlinked_statements_sql: not a statement a span timed) */
    const int64_t shift[2] = {offset, 0};
    near_set *ns = ls_calloc(2, sizeof(*ns)); /* ns[k]: where kind k has the other near */
    int rc, rc2, k;

    if (!ns)
        return LS_ENOMEM;
    if ((rc = ls_store_sorting(s, 1)) != 0) {
        free(ns);
        return rc;
    }
    for (k = 0; k < 2 && rc == 0; k++)
        if ((rc = ls_store_prepare_params(s, sql[k], names[k], &lead[k].q)) == 0)
            rc = ls_store_prepare_params(s, sql[k], names[k], &trail[k].q);
    if (rc == 0 && (rc = ls_stmt_bind_int64(lead[1].q, LS_PARAM(unp, half), res / 2)) == 0)
        rc = ls_stmt_bind_int64(trail[1].q, LS_PARAM(unp, half), res / 2);
    if (rc != 0)
        goto out;
    /* Without a database span, the statements are not even sorted. */
    mcursor_step(&trail[0], start_col[0], shift[0]);
    if (trail[0].rc != 1)
        goto out;
    mcursor_step(&lead[0], start_col[0], shift[0]);
    mcursor_step(&trail[1], start_col[1], shift[1]);
    mcursor_step(&lead[1], start_col[1], shift[1]);
    for (;;) {
        int64_t t;
        int b, live[2];
        mitem it;
        /* A kind is over when its rows are, or when the other's are and
         * none of them is near what is left of it. */
        for (k = 0; k < 2; k++)
            live[k] = trail[k].rc == 1 &&
                      (lead[1 - k].rc == 1 || near_has(&ns[k], NEAR_ANY, trail[k].start));
        if (!live[0] && !live[1])
            break;
        /* the earlier row next (a span first on a tie) */
        k = !live[0] ? 1 : !live[1] ? 0 : trail[1].start < trail[0].start;
        t = trail[k].start;
        /* The leading cursors read up to MATCH_TOLERANCE_US past it. */
        for (;;) {
            int o = lead[0].rc == 1 && lead[0].start <= t + MATCH_TOLERANCE_US   ? 0
                    : lead[1].rc == 1 && lead[1].start <= t + MATCH_TOLERANCE_US ? 1
                                                                                 : -1;
            int64_t at;
            if (o < 0)
                break;
            at = lead[o].start;
            if ((b = near_bucket(ls_stmt_text(lead[o].q, text_col[o]))) < 0) {
                rc = LS_ENOMEM;
                goto out;
            }
            near_add(&ns[1 - o], b, at - MATCH_TOLERANCE_US, at + MATCH_TOLERANCE_US, t);
            near_add(&ns[1 - o], NEAR_ANY, at - MATCH_TOLERANCE_US, at + MATCH_TOLERANCE_US, t);
            mcursor_step(&lead[o], start_col[o], shift[o]);
        }
        if (lead[0].rc < 0 || lead[1].rc < 0)
            break;
        /* None of the other kind within the tolerance: not even read. */
        if (near_has(&ns[k], NEAR_ANY, t)) {
            if ((b = near_bucket(ls_stmt_text(trail[k].q, text_col[k]))) < 0) {
                rc = LS_ENOMEM;
                goto out;
            }
            if (near_has(&ns[k], b, t)) {
                if ((rc = mitem_read(&it, &trail[k], k)) != 0)
                    goto out;
                it.near = 1;
                if ((rc = mlist_push(&kept[k], &it)) != 0) {
                    mitem_free(&it);
                    goto out;
                }
            }
        }
        mcursor_step(&trail[k], start_col[k], shift[k]);
    }
    for (k = 0; k < 2 && rc == 0; k++)
        if (lead[k].rc < 0 || trail[k].rc < 0)
            rc = lead[k].rc < 0 ? lead[k].rc : trail[k].rc;
out:
    for (k = 0; k < 2; k++) {
        ls_stmt_finalize(lead[k].q);
        ls_stmt_finalize(trail[k].q);
    }
    free(ns);
    rc2 = ls_store_sorting(s, 0);
    rc = rc < 0 ? rc : 0;
    return rc ? rc : rc2;
}

/* The request of each kept span, read once per run of one trace. */
static int kept_requests(ls_store *s, mitem *sp, size_t nsp)
{
    ls_stmt *q = NULL;
    size_t i;
    int rc;

    if ((rc = ls_store_prepare_params(s, request_sql, LS_PARAM_NAMES(REQUEST_PARAMS), &q)) != 0)
        return rc;
    for (i = 0; i < nsp && rc == 0; i++) {
        if (i > 0 && strcmp(sp[i].trace, sp[i - 1].trace) == 0)
            sp[i].rq = sp[i - 1].rq;
        else
            rc = read_request(q, sp[i].trace, &sp[i].rq);
    }
    ls_stmt_finalize(q);
    return rc;
}

/* offset: the database clock less the application's; res: the
 * resolution of the log's times (0, or LS_WHOLE_SECOND_US for %t: a
 * statement then ran up to a second after the time the log gives it, and
 * is compared at the middle of its second); slack: how far a transaction
 * may lie outside a span's request and pair with it (ls_link_in_request()). */
static int link_by_statement(ls_store *s, int64_t offset, int64_t res, int64_t slack)
{
    mlist kept[2];
    mitem *st, *sp;
    mpair *pairs = NULL;
    size_t nst, nsp, np = 0, cp = 0, i, j, lo = 0;
    int rc;

    memset(kept, 0, sizeof(kept));
    if ((rc = gather_candidates(s, offset, res, kept)) != 0 || kept[0].n == 0)
        goto out;
    sp = kept[0].v;
    nsp = kept[0].n;
    if ((rc = kept_requests(s, sp, nsp)) != 0)
        goto out;
    st = kept[1].v;
    nst = kept[1].n;
    /* Candidate pairs: both lists are sorted by start, so slide a window. */
    for (i = 0; i < nsp; i++) {
        int taken = 0;
        while (lo < nst && st[lo].start < sp[i].start - MATCH_TOLERANCE_US)
            lo++;
        for (j = lo; j < nst && st[j].start <= sp[i].start + MATCH_TOLERANCE_US &&
                     taken < MAX_PAIRS_PER_SPAN * 4;
             j++) {
            size_t a, b;
            if (strcmp(st[j].shape, sp[i].shape) != 0 ||
                !ls_link_in_request(st[j].lo, st[j].hi, &sp[i].rq, offset, slack))
                continue;
            if (np == cp) {
                mpair *n = ls_realloc(pairs, (cp = cp ? cp * 2 : 1024) * sizeof(*pairs));
                if (!n) {
                    rc = LS_ENOMEM;
                    goto out;
                }
                pairs = n;
            }
            a = bare_len(st[j].text);
            b = bare_len(sp[i].text);
            pairs[np].exact = a == b && memcmp(st[j].text, sp[i].text, a) == 0;
            pairs[np].d = pair_distance(&st[j], &sp[i], res);
            pairs[np].span = i;
            pairs[np].stmt = j;
            np++;
            taken++;
        }
    }
    if (np)
        qsort(pairs, np, sizeof(*pairs), pair_cmp);
    /* Best pairs first, each span and statement once; then vote per
     * transaction: the trace with the most matched statements wins. */
    rc = link_by_votes(s, pairs, np, st, sp);
out:
    mlist_free(&kept[0]);
    mlist_free(&kept[1]);
    free(pairs);
    return rc < 0 ? rc : 0;
}

/*
 * Links that lie outside their request. A transaction links to a trace
 * only when it lies inside the trace's request (ls_link_in_request()):
 * its root span, else, with no root span, the extent of its spans. Two
 * sessions' transactions may send a request's statements, or its pid, at
 * the moment; the one that outlives the request is another's (issue 34
 * item 7: it gave the request a wait longer than the request itself).
 * An open transaction is taken at its start.
 */
#define LINKED_TX_COLS(X, Q)                       \
    X(Q, tx_id, "c.tx_id")                         \
    X(Q, tx_start, "t.start_ts")                   \
    X(Q, tx_end, "coalesce(t.end_ts, t.start_ts)") \
    X(Q, trace_id, "sp.trace_id")
LS_COLUMNS(lt, LINKED_TX_COLS);
static const char linked_tx_sql[] =
    "SELECT " LS_SELECT_LIST(lt, LINKED_TX_COLS) " FROM tx_code_rows c"
    " JOIN transactions t ON t.tx_id = c.tx_id"
    " JOIN spans sp ON sp.span_row = c.span_row"
    " WHERE c.span_row IS NOT NULL AND sp.trace_id IS NOT NULL";
static const char unlink_sql[] =
    "UPDATE tx_code_rows SET link = NULL, span_row = NULL WHERE tx_id = :tx";
#define UNLINK_PARAMS(X, Q) X(Q, tx)
LS_PARAMS(ulp, UNLINK_PARAMS);

/* Unlink each linked transaction that lies outside its trace's request
 * (offset: the database clock less the application's; slack as
 * ls_link_in_request() takes it). */
static int unlink_outside_requests(ls_store *s, int64_t offset, int64_t slack)
{
    ls_stmt *q = NULL, *upd = NULL, *req = NULL;
    int rc;

    if ((rc = ls_store_prepare(s, linked_tx_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, unlink_sql, LS_PARAM_NAMES(UNLINK_PARAMS), &upd)) != 0 ||
        (rc = ls_store_prepare_params(s, request_sql, LS_PARAM_NAMES(REQUEST_PARAMS), &req)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        ls_request rq;
        if ((rc = read_request(req, ls_stmt_text(q, lt_trace_id), &rq)) != 0)
            goto out;
        if (ls_link_in_request(ls_stmt_int64(q, lt_tx_start), ls_stmt_int64(q, lt_tx_end), &rq,
                               offset, slack))
            continue;
        ls_stmt_reset(upd);
        if ((rc = ls_stmt_bind_int64(upd, LS_PARAM(ulp, tx), ls_stmt_int64(q, lt_tx_id))) != 0 ||
            (rc = ls_stmt_step(upd)) < 0)
            goto out;
    }
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(upd);
    ls_stmt_finalize(req);
    return rc < 0 ? rc : 0;
}

/* ---- code paths from the linked span ---- */

/* A span (aliased sp) as the walk up reads it. */
#define WALK_SPAN_COLS(X, Q)                  \
    X(Q, parent_id, "sp.parent_id")           \
    X(Q, code_function, "sp.code_function")   \
    X(Q, span_row, "sp.span_row")             \
    X(Q, kind, "sp.kind")                     \
    X(Q, http_route, "sp.http_route")         \
    X(Q, url_path, "CASE WHEN sp.http_route IS NULL THEN coalesce("         \
                   "json_extract(sp.attributes, '$.\"url.path\"'),"         \
                   " json_extract(sp.attributes, '$.\"http.target\"'),"     \
                   " json_extract(sp.attributes, '$.\"http.path\"')) END") \
    X(Q, service, "sp.service")               \
    X(Q, name, "sp.name")
#define LINKED_COLS(X, Q)    \
    X(Q, tx_id, "c.tx_id")   \
    X(Q, trace_id, "sp.trace_id") \
    WALK_SPAN_COLS(X, Q)
LS_COLUMNS(lk, LINKED_COLS);
LS_COLUMNS(pa, WALK_SPAN_COLS);
static const char linked_sql[] =
    "SELECT " LS_SELECT_LIST(lk, LINKED_COLS)
    " FROM tx_code c JOIN spans sp ON sp.span_row = c.span_row";
static const char parent_sql[] =
    "SELECT " LS_SELECT_LIST(pa, WALK_SPAN_COLS)
    " FROM spans sp WHERE sp.trace_id = :trace AND sp.span_id = :span LIMIT 1";
#define PARENT_PARAMS(X, Q) X(Q, trace) X(Q, span)
LS_PARAMS(pap, PARENT_PARAMS);
static const char set_code_sql[] =
    "UPDATE tx_code_rows SET trace_id = :trace, code_span_row = :code_span, route = :route,"
    " service = :service, root_name = :root,"
    " code_function = (SELECT code_function FROM spans WHERE span_row = :code_span),"
    " code_namespace = (SELECT code_namespace FROM spans WHERE span_row = :code_span),"
    " code_filepath = (SELECT code_filepath FROM spans WHERE span_row = :code_span),"
    " code_lineno = (SELECT code_lineno FROM spans WHERE span_row = :code_span),"
    " offset_us = :offset WHERE tx_id = :tx";
#define SET_CODE_PARAMS(X, Q) \
    X(Q, trace) X(Q, code_span) X(Q, route) X(Q, service) X(Q, root) X(Q, offset) X(Q, tx)
LS_PARAMS(scp, SET_CODE_PARAMS);

/* The logged parameters of transaction :tx's statements, joined. */
static const char tx_params_sql[] =
    "SELECT group_concat(st.params, ', ')"
    " FROM transactions t CROSS JOIN statements st ON +st.session_id = t.session_id"
    "  AND st.stmt_id BETWEEN t.first_stmt AND t.last_stmt"
    " WHERE t.tx_id = :tx AND st.params IS NOT NULL";
#define TX_PARAMS_PARAMS(X, Q) X(Q, tx)
LS_PARAMS(txpp, TX_PARAMS_PARAMS);

/*
 * The route of the span a walk is at: its http.route, else its URL path
 * with the ids in it, and the values transaction tx bound to its
 * statements, as one template ("/bookings/{id}", "/pages/{id}/hit", what
 * http.route would say: ls_path_url_route), so that an instrumentation
 * that knows no route (Node's http without a web framework) still names
 * the request's path and not one path per id or slug. "" when it has
 * neither. Returns 0 or a negative store error.
 */
static int span_route(ls_stmt *par, ls_stmt *txp, int64_t tx, char *route, size_t n)
{
    const char *path, *params;
    int rc;

    if (!ls_stmt_isnull(par, pa_http_route)) {
        snprintf(route, n, "%s", ls_stmt_text(par, pa_http_route));
    } else if (!ls_stmt_isnull(par, pa_url_path) &&
               (path = ls_stmt_text(par, pa_url_path))[0] == '/') {
        ls_stmt_reset(txp);
        if ((rc = ls_stmt_bind_int64(txp, LS_PARAM(txpp, tx), tx)) != 0 ||
            (rc = ls_stmt_step(txp)) < 0)
            return rc;
        params = rc == 1 && !ls_stmt_isnull(txp, LS_ONLY_COLUMN) ? ls_stmt_text(txp, LS_ONLY_COLUMN)
                                                                 : NULL;
        ls_path_url_route(path, params, route, n);
    }
    return 0;
}

/*
 * Walk up from the linked span: the first span with code attributes is
 * the code path; the first server span (or the local root) gives the
 * route and the operation name.
 */
static int resolve_code(ls_store *s, int64_t offset)
{
    ls_stmt *q = NULL, *par = NULL, *upd = NULL, *txp = NULL;
    int rc;

    if ((rc = ls_store_prepare(s, linked_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, parent_sql, LS_PARAM_NAMES(PARENT_PARAMS), &par)) != 0 ||
        (rc = ls_store_prepare_params(s, tx_params_sql, LS_PARAM_NAMES(TX_PARAMS_PARAMS), &txp)) !=
            0 ||
        (rc = ls_store_prepare_params(s, set_code_sql, LS_PARAM_NAMES(SET_CODE_PARAMS), &upd)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        char trace[64], parent[32], route[256] = "", service[128] = "", root[256] = "";
        int64_t code_span = 0;
        int hops = 0, have_server = 0;

        snprintf(trace, sizeof(trace), "%s", ls_stmt_text(q, lk_trace_id));
        snprintf(parent, sizeof(parent), "%s", ls_stmt_text(q, lk_parent_id));
        snprintf(service, sizeof(service), "%s", ls_stmt_text(q, lk_service));
        snprintf(root, sizeof(root), "%s", ls_stmt_text(q, lk_name));
        if (!ls_stmt_isnull(q, lk_code_function))
            code_span = ls_stmt_int64(q, lk_span_row);
        while (parent[0] && hops++ < MAX_PARENT_HOPS) {
            ls_stmt_reset(par);
            if ((rc = ls_stmt_bind_text(par, LS_PARAM(pap, trace), trace)) != 0 ||
                (rc = ls_stmt_bind_text(par, LS_PARAM(pap, span), parent)) != 0 ||
                (rc = ls_stmt_step(par)) < 0)
                goto out;
            if (rc == 0)
                break; /* the parent is in another service's export */
            if (!code_span && !ls_stmt_isnull(par, pa_code_function))
                code_span = ls_stmt_int64(par, pa_span_row);
            if (!have_server) {
                snprintf(root, sizeof(root), "%s", ls_stmt_text(par, pa_name));
                snprintf(service, sizeof(service), "%s", ls_stmt_text(par, pa_service));
                rc = span_route(par, txp, ls_stmt_int64(q, lk_tx_id), route, sizeof(route));
                if (rc < 0)
                    goto out;
                have_server = ls_stmt_int64(par, pa_kind) == LS_SPAN_SERVER;
            }
            snprintf(parent, sizeof(parent), "%s", ls_stmt_text(par, pa_parent_id));
        }
        ls_stmt_reset(upd);
        if ((rc = ls_stmt_bind_int64(upd, LS_PARAM(scp, tx), ls_stmt_int64(q, lk_tx_id))) != 0 ||
            (rc = ls_stmt_bind_text(upd, LS_PARAM(scp, trace), trace)) != 0 ||
            (rc = code_span ? ls_stmt_bind_int64(upd, LS_PARAM(scp, code_span), code_span)
                            : ls_stmt_bind_null(upd, LS_PARAM(scp, code_span))) != 0 ||
            (rc = ls_stmt_bind_text(upd, LS_PARAM(scp, route), route[0] ? route : NULL)) != 0 ||
            (rc = ls_stmt_bind_text(upd, LS_PARAM(scp, service), service[0] ? service : NULL)) !=
                0 ||
            (rc = ls_stmt_bind_text(upd, LS_PARAM(scp, root), root[0] ? root : NULL)) != 0 ||
            (rc = ls_stmt_bind_int64(upd, LS_PARAM(scp, offset), offset)) != 0 ||
            (rc = ls_stmt_step(upd)) < 0)
            goto out;
    }
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(par);
    ls_stmt_finalize(txp);
    ls_stmt_finalize(upd);
    return rc < 0 ? rc : 0;
}

/* ---- what names the paths nothing else names ---- */

/* The holds by whether a span or a tag names their transaction (as
 * the function grouping does before it comes to the application:
 * decide/pathname.c)
 * and by application_name (the tx_code view's, its session's: read by
 * joins here, not by the view's subqueries, 80 VM steps a hold). The
 * holds are counted by session first and each session's application
 * looked up once (6.5 M to 4.4 M SQLite VM steps at 1 GiB): the same
 * counts, in the same order. */
#define HOLD_APPLICATION "nullif(se.application, '')"
#define HOLD_NAMED                                                                          \
    "(c.code_function IS NOT NULL OR c.tag_controller IS NOT NULL"                          \
    " OR c.route IS NOT NULL OR c.tag_route IS NOT NULL OR c.root_name IS NOT NULL)"
#define NAMES_COLS(X, Q)                    \
    X(Q, named, "x.named")                  \
    X(Q, blank, HOLD_APPLICATION " IS NULL") \
    X(Q, holds, "sum(x.n)")
LS_COLUMNS(nm, NAMES_COLS);
static const char names_sql[] =
    "SELECT " LS_SELECT_LIST(nm, NAMES_COLS)
    " FROM (SELECT " HOLD_NAMED " AS named, t.session_id AS session_id, count(*) AS n"
    "  FROM hold_final h LEFT JOIN tx_code_rows c ON c.tx_id = h.tx_id"
    "  LEFT JOIN transactions t ON t.tx_id = c.tx_id GROUP BY 1, 2) x"
    " LEFT JOIN sessions se ON se.session_id = x.session_id"
    " GROUP BY 1, " HOLD_APPLICATION;
/* The same counts before any tx_code row, when nothing can name a path
 * but a tag (no spans) and no tag is assumed to: every hold unnamed, by
 * its transaction's session's application_name (the columns of
 * NAMES_COLS). statement_facts() then tells whether a tag named one. */
static const char unnamed_sql[] =
    "SELECT 0, " HOLD_APPLICATION " IS NULL, sum(x.n)"
    " FROM (SELECT t.session_id AS session_id, count(*) AS n"
    "  FROM hold_final h LEFT JOIN transactions t ON t.tx_id = h.tx_id GROUP BY 1) x"
    " LEFT JOIN sessions se ON se.session_id = x.session_id"
    " GROUP BY " HOLD_APPLICATION;
LS_TABLE_COLUMNS(path_identity);
static const char set_identity_sql[] = LS_INSERT_INTO("INSERT", path_identity);

/* The holds counted by name (names_sql or unnamed_sql) in *n. */
static int count_names(ls_store *s, const char *sql, ls_path_names *n)
{
    ls_stmt *q = NULL;
    int rc;

    memset(n, 0, sizeof(*n));
    if ((rc = ls_store_prepare(s, sql, &q)) != 0)
        return rc;
    while ((rc = ls_stmt_step(q)) == 1) {
        int64_t holds = ls_stmt_int64(q, nm_holds);
        n->holds += holds;
        if (ls_stmt_int64(q, nm_named)) {
            n->named += holds;
            continue;
        }
        n->groups++;
        if (holds > n->top) {
            n->top = holds;
            n->top_blank = (int)ls_stmt_int64(q, nm_blank);
        }
    }
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

/* Decide (decide/pathid.c) from the counts n whether application_name or
 * the transaction's shape names the paths that no span or tag names, and
 * store it for the groupings (ls_grouping.h) and the report; *by_shape: the
 * shape. */
static int store_identity(ls_store *s, const ls_path_names *n, int *by_shape)
{
    ls_stmt *ins = NULL;
    ls_path_reason why;
    ls_path_identity id = ls_path_identity_of(n, &why);
    int rc;

    *by_shape = id == LS_PATH_BY_SHAPE;
    if ((rc = ls_store_prepare(s, set_identity_sql, &ins)) != 0)
        return rc;
    if ((rc = ls_stmt_bind_text(ins, LS_PARAM(path_identity, identity),
                                *by_shape ? "shape" : "application")) == 0 &&
        (rc = ls_stmt_bind_text(ins, LS_PARAM(path_identity, reason), ls_path_reason_text(why))) ==
            0 &&
        (rc = ls_stmt_bind_int64(ins, LS_PARAM(path_identity, holds), n->holds)) == 0 &&
        (rc = ls_stmt_bind_int64(ins, LS_PARAM(path_identity, named), n->named)) == 0 &&
        (rc = ls_stmt_bind_int64(ins, LS_PARAM(path_identity, names), n->groups)) == 0 &&
        (rc = ls_stmt_bind_int64(ins, LS_PARAM(path_identity, top_holds), n->top)) == 0)
        rc = ls_stmt_step(ins);
    ls_stmt_finalize(ins);
    return rc < 0 ? rc : 0;
}

/* The identity from the rows of tx_code (names_sql), stored. */
static int decide_identity(ls_store *s, int *by_shape)
{
    ls_path_names n;
    int rc;

    if ((rc = count_names(s, names_sql, &n)) != 0)
        return rc;
    return store_identity(s, &n, by_shape);
}

#define SPAN_LINK_COLS(X, Q) X(Q, links, "count(*)")
LS_COLUMNS(sl, SPAN_LINK_COLS);
static const char span_links_sql[] =
    "SELECT " LS_SELECT_LIST(sl, SPAN_LINK_COLS) " FROM tx_code WHERE span_row IS NOT NULL";

/* Is there any span (else no transaction can be linked)? */
static const char has_spans_sql[] = "SELECT EXISTS (SELECT 1 FROM spans)";

static int read_has_spans(ls_store *s, int *has)
{
    ls_stmt *q = NULL;
    int rc;

    if ((rc = ls_store_prepare(s, has_spans_sql, &q)) != 0)
        return rc;
    if ((rc = ls_stmt_step(q)) == 1)
        *has = ls_stmt_int64(q, LS_ONLY_COLUMN) != 0;
    ls_stmt_finalize(q);
    return rc == 1 ? 0 : rc < 0 ? rc : LS_ESTORE;
}

/* The links of transactions to spans, each transaction's code from its
 * span (offset: in and out, the database clock less the application's),
 * then the identity and the paths, which the links decide; the number
 * of links in stats. */
/* A transaction of spans only (txspans.c spans_only(): no statement of it
 * logged) is its request's: linked to its first statement's span. */
static const char link_spans_only_sql[] =
    "CREATE TEMP TABLE IF NOT EXISTS txspan_only(tx_id INTEGER PRIMARY KEY, span_row INTEGER);"
    "UPDATE tx_code_rows SET link = 'spans only', span_row = (SELECT o.span_row FROM"
    " temp.txspan_only o WHERE o.tx_id = tx_code_rows.tx_id)"
    " WHERE tx_id IN (SELECT tx_id FROM temp.txspan_only) AND span_row IS NULL;";

static int link_spans(ls_store *s, int64_t *offset, ls_correlate_stats *stats)
{
    ls_stmt *st = NULL;
    int64_t slack, res = 0;
    int rc, subsecond, by_shape;

    if ((rc = link_by_comment(s, offset)) != 0 || (rc = link_by_pid(s, *offset)) != 0 ||
        (rc = ls_log_subsecond(s, &subsecond)) != 0)
        return rc;
    /* A link outside its request is undone before the statement links,
     * which may then find the transaction's own trace (and pair no
     * statement with a span whose request it lies outside). */
    slack = LS_REQUEST_SLACK_US + (subsecond ? 0 : LS_WHOLE_SECOND_US);
    if ((rc = unlink_outside_requests(s, *offset, slack)) != 0)
        return rc;
    /* The database spans in start order for the statement links: read on
     * an index, not sorted at each run (issue 37: memory whatever the
     * number of spans). */
    if ((rc = ls_store_exec_sorting(s, "CREATE INDEX IF NOT EXISTS spans_start ON"
                                       " spans(start_ts) WHERE db_statement IS NOT NULL")) != 0 ||
        (rc = ls_log_resolution(s, &res)) != 0 ||
        (rc = link_by_statement(s, *offset, res, slack)) != 0 ||
        (rc = ls_store_exec(s, link_spans_only_sql)) != 0 ||
        (rc = resolve_code(s, *offset)) != 0 ||
        (rc = decide_identity(s, &by_shape)) != 0 ||
        (rc = ls_correlate_paths(s)) != 0)
        return rc;
    if ((rc = ls_store_prepare(s, span_links_sql, &st)) != 0)
        return rc;
    if ((rc = ls_stmt_step(st)) == 1)
        stats->span_links = ls_stmt_int64(st, sl_links);
    ls_stmt_finalize(st);
    return rc < 0 ? rc : 0;
}

/* Sets decided with another identity than path_identity's: forgotten, so
 * that ls_correlate_paths() interns them again from the first id, as if
 * none had been decided. */
static const char forget_paths_sql[] = "DELETE FROM path_sets; DELETE FROM path_names;";

/*
 * Without spans no transaction links, so the paths are decided as the
 * rows are INSERTed, with the identity counted before (unnamed_sql:
 * every hold unnamed, no tag assumed). When a tag did name one, the
 * identity is counted again from the rows (names_sql), and only if it
 * chose otherwise are the paths decided again from the rows.
 */
static int paths_without_spans(ls_store *s)
{
    ls_path_names n;
    ls_paths *paths = NULL;
    int rc, by_shape, final_shape, named = 0;

    if ((rc = count_names(s, unnamed_sql, &n)) != 0)
        return rc;
    by_shape = ls_path_identity_of(&n, NULL) == LS_PATH_BY_SHAPE;
    if ((rc = ls_paths_open(s, &paths)) == 0)
        rc = statement_facts(s, paths, by_shape, &named);
    ls_paths_close(paths);
    if (rc != 0)
        return rc;
    if (!named)
        return store_identity(s, &n, &final_shape);
    if ((rc = decide_identity(s, &final_shape)) != 0 || final_shape == by_shape ||
        (rc = ls_store_exec(s, forget_paths_sql)) != 0)
        return rc;
    return ls_correlate_paths(s);
}

int ls_correlate_traces(ls_store *s, ls_correlate_stats *stats)
{
    int64_t offset = stats->clock_offset_us;
    int rc, has_spans = 0, named;

    if ((rc = read_has_spans(s, &has_spans)) != 0)
        return rc;
    if (!has_spans) {
        if ((rc = paths_without_spans(s)) != 0)
            return rc;
        stats->span_links = 0;
    } else if ((rc = statement_facts(s, NULL, 0, &named)) != 0 ||
               (rc = link_spans(s, &offset, stats)) != 0)
        return rc;
    stats->clock_offset_us = offset;
    if ((rc = ls_correlate_span_anchors(s)) != 0 || (rc = ls_correlate_hold_parts(s)) != 0)
        return rc;
    return ls_correlate_cover(s);
}
