/*
 * paths.c — each transaction's code path under every grouping, decided
 * once and stored (part of the code paths pass).
 *
 * Per transaction the decision is plain C (decide/pathname.h), each name
 * and evidence text is interned in path_names, each distinct set of them
 * in path_sets, and the transaction's row points at its set
 * (tx_code_rows.path_set). The texts and sets seen last are kept by hash,
 * so a transaction whose set was seen costs no statement; memory is
 * bounded whatever the number of distinct paths.
 *
 * Without spans nothing links a transaction after its facts are read, so
 * the statement facts (traces.c) decide the set as they INSERT the row
 * (ls_paths_set_of()). With spans the links come after, and one scan of
 * tx_code_rows in tx_id order, with what names a path joined in (the
 * session's application_name, the first write's shape, the transaction's
 * shape), sets each row's path_set (ls_correlate_paths()).
 */
#include <stdlib.h>
#include <string.h>

#include "corr_tables.h"
#include "correlate_int.h"
#include "decide/pathname.h"
#include "ls_buf.h"
#include "ls_columns.h"
#include "ls_params.h"

/* Path sets (ids of names and evidence, per grouping) whose id is kept:
 * SET_SLOTS slots by hash, a set looked for in SET_WAYS of them from its
 * own, so that two sets of one hash slot do not push each other out at
 * every transaction (pgbench at 256 MiB: 17,508 lookups of 14 sets with
 * one slot a set). */
#define SET_SLOTS 1024
#define SET_WAYS 4
/* path_sets' columns: a name and an evidence per grouping. */
#define SET_IDS (2 * LS_GROUPINGS)

#define FACT_COLS(X, Q)                                 \
    X(Q, tx_id, "c.tx_id")                              \
    X(Q, code_function, "c.code_function")              \
    X(Q, code_namespace, "c.code_namespace")            \
    X(Q, tag_controller, "c.tag_controller")            \
    X(Q, tag_action, "c.tag_action")                    \
    X(Q, route, "c.route")                              \
    X(Q, tag_route, "c.tag_route")                      \
    X(Q, root_name, "c.root_name")                      \
    X(Q, service, "c.service")                          \
    X(Q, tag_application, "c.tag_application")          \
    X(Q, application, "nullif(se.application, '')")     \
    X(Q, shape, "sh.shape")                             \
    X(Q, tx_shape, "x.label")
LS_COLUMNS(pf, FACT_COLS);
/* Every transaction's facts, as the tx_code view gives them. */
static const char facts_sql[] =
    "SELECT " LS_SELECT_LIST(pf, FACT_COLS)
    " FROM tx_code_rows c LEFT JOIN transactions t ON t.tx_id = c.tx_id"
    " LEFT JOIN sessions se ON se.session_id = t.session_id"
    " LEFT JOIN shapes sh ON sh.shape_id = c.shape_id"
    " LEFT JOIN tx_shapes x ON x.tx_shape_id = c.tx_shape_id ORDER BY c.tx_id";
/* Did path_identity choose the transaction's shape (decide/pathid.h)? */
static const char by_shape_sql[] =
    "SELECT coalesce((SELECT identity = 'shape' FROM path_identity), 0)";
/* Transaction :tx's path set :set. */
static const char set_path_sql[] = "UPDATE tx_code_rows SET path_set = :set WHERE tx_id = :tx";
#define SET_PATH_PARAMS(X, Q) X(Q, set) X(Q, tx)
LS_PARAMS(spp, SET_PATH_PARAMS);
/* The ids of a set are path_sets' columns after set_id, in their order. */
LS_TABLE_COLUMNS(path_sets);
_Static_assert(path_sets__ncols == 1 + SET_IDS, "a set's ids are path_sets' other columns");
/* A set by its ids, each parameter named as its column. */
static const char find_set_sql[] =
    "SELECT set_id FROM path_sets WHERE function_id = :function_id"
    " AND function_src = :function_src AND route_id = :route_id AND route_src = :route_src"
    " AND service_id = :service_id AND service_src = :service_src"
    " AND application_id = :application_id AND application_src = :application_src"
    " AND statement_id = :statement_id AND statement_src = :statement_src"
    " AND shape_id = :shape_id AND shape_src = :shape_src";
#define FIND_SET_PARAMS(X, Q)                                                               \
    X(Q, function_id) X(Q, function_src) X(Q, route_id) X(Q, route_src) X(Q, service_id)   \
    X(Q, service_src) X(Q, application_id) X(Q, application_src) X(Q, statement_id)        \
    X(Q, statement_src) X(Q, shape_id) X(Q, shape_src)
LS_PARAMS(fsp, FIND_SET_PARAMS);
/* ids[i] is parameter i + 1 of find_set_sql, as column i + 1 of path_sets
 * (intern_set binds them in a loop): the list in the table's order. */
#define SET_PARAM_AT_COLUMN_(Q, name)                                                       \
    _Static_assert(Q##__##name + 1 == path_sets__##name, #name ": path_sets' order");
FIND_SET_PARAMS(SET_PARAM_AT_COLUMN_, fsp)
_Static_assert(fsp__nparams == SET_IDS, "find_set_sql names each id of a set");
static const char add_set_sql[] = LS_INSERT_INTO("INSERT", path_sets) " RETURNING set_id";

typedef struct set_slot {
    int64_t ids[SET_IDS];
    int64_t set_id; /* 0: empty */
} set_slot;

struct ls_paths {
    ls_stmt *find_set, *add_set;
    ls_interner names;
    ls_buf joined; /* a name joined from a namespace and a function */
    set_slot sets[SET_SLOTS];
};

void ls_paths_close(ls_paths *c)
{
    if (!c)
        return;
    ls_stmt_finalize(c->find_set);
    ls_stmt_finalize(c->add_set);
    ls_intern_close(&c->names);
    ls_buf_free(&c->joined);
    free(c);
}

int ls_paths_open(ls_store *s, ls_paths **out)
{
    ls_paths *c = ls_calloc(1, sizeof(*c));
    int rc;

    *out = NULL;
    if (!c)
        return LS_ENOMEM;
    ls_buf_init(&c->joined, 0);
    if ((rc = ls_store_prepare_params(s, find_set_sql, LS_PARAM_NAMES(FIND_SET_PARAMS),
                                      &c->find_set)) != 0 ||
        (rc = ls_store_prepare(s, add_set_sql, &c->add_set)) != 0 ||
        (rc = ls_intern_open(s, &c->names, "path_names", "name_id", "name")) != 0) {
        ls_paths_close(c);
        return rc;
    }
    *out = c;
    return 0;
}

/* The transaction at row q's facts; its texts live until q's next step. */
static void read_facts(ls_stmt *q, int by_shape, ls_path_facts *f)
{
    f->code_function = ls_stmt_text_or_null(q, pf_code_function);
    f->code_namespace = ls_stmt_text_or_null(q, pf_code_namespace);
    f->tag_controller = ls_stmt_text_or_null(q, pf_tag_controller);
    f->tag_action = ls_stmt_text_or_null(q, pf_tag_action);
    f->route = ls_stmt_text_or_null(q, pf_route);
    f->tag_route = ls_stmt_text_or_null(q, pf_tag_route);
    f->root_name = ls_stmt_text_or_null(q, pf_root_name);
    f->service = ls_stmt_text_or_null(q, pf_service);
    f->tag_application = ls_stmt_text_or_null(q, pf_tag_application);
    f->application = ls_stmt_text_or_null(q, pf_application);
    f->shape = ls_stmt_text_or_null(q, pf_shape);
    f->tx_shape = ls_stmt_text_or_null(q, pf_tx_shape);
    f->by_shape = by_shape;
}

/* The ids of label l's name and evidence in path_names, in ids[0..1]. */
static int intern_label(ls_paths *c, const ls_path_label *l, int64_t ids[2])
{
    const char *name = l->name.head;
    int rc;

    if (l->name.tail) {
        ls_buf_reset(&c->joined);
        ls_buf_adds(&c->joined, l->name.head);
        ls_buf_addc(&c->joined, '.');
        ls_buf_adds(&c->joined, l->name.tail);
        if (ls_buf_failed(&c->joined))
            return LS_ENOMEM;
        name = ls_buf_str(&c->joined);
    }
    if ((rc = ls_intern(&c->names, name, &ids[0])) != 0)
        return rc;
    return ls_intern(&c->names, l->source, &ids[1]);
}

/* The id of the set of name and evidence ids `ids` in path_sets, stored
 * now if it is new. */
static int intern_set(ls_paths *c, const int64_t ids[SET_IDS], int64_t *set_id)
{
    uint64_t h = ls_fnv1a(ids, SET_IDS * sizeof(ids[0]), LS_FNV1A_BASIS);
    set_slot *sl = NULL;
    ls_stmt *st = c->find_set;
    int rc = 0, i;

    for (i = 0; i < SET_WAYS; i++) {
        set_slot *w = &c->sets[(h + (uint64_t)i) % SET_SLOTS];
        if (w->set_id != 0 && memcmp(w->ids, ids, sizeof(w->ids)) == 0) {
            *set_id = w->set_id;
            return 0;
        }
        if (!sl && w->set_id == 0)
            sl = w; /* the first free way keeps it */
    }
    if (!sl)
        sl = &c->sets[h % SET_SLOTS];
    ls_stmt_reset(st);
    for (i = 0; i < SET_IDS && rc == 0; i++)
        rc = ls_stmt_bind_int64(st, LS_PARAM(fsp, function_id) + i, ids[i]);
    if (rc == 0 && (rc = ls_stmt_step(st)) == 0) { /* a new set */
        st = c->add_set;
        ls_stmt_reset(st);
        for (i = 0; i < SET_IDS && rc == 0; i++)
            rc = ls_stmt_bind_int64(st, LS_PARAM(path_sets, function_id) + i, ids[i]);
        if (rc == 0)
            rc = ls_stmt_step(st);
    }
    if (rc != 1)
        return rc < 0 ? rc : LS_ESTORE;
    *set_id = ls_stmt_int64(st, LS_ONLY_COLUMN);
    ls_stmt_reset(st);
    memcpy(sl->ids, ids, sizeof(sl->ids));
    sl->set_id = *set_id;
    return 0;
}

int ls_paths_set_of(ls_paths *c, const ls_path_facts *f, int64_t *set_id)
{
    int64_t ids[SET_IDS];
    int rc = 0, g;

    for (g = 0; g < LS_GROUPINGS && rc == 0; g++) {
        ls_path_label l = ls_path_label_of(f, (ls_grouping)g);
        rc = intern_label(c, &l, &ids[2 * g]);
    }
    return rc != 0 ? rc : intern_set(c, ids, set_id);
}

/* Decide and store the paths of the transaction at row q (facts_sql). */
static int store_paths(ls_paths *c, ls_stmt *q, ls_stmt *set_path, int by_shape)
{
    ls_path_facts f;
    int64_t set_id = 0;
    int rc;

    read_facts(q, by_shape, &f);
    if ((rc = ls_paths_set_of(c, &f, &set_id)) != 0)
        return rc;
    ls_stmt_reset(set_path);
    if ((rc = ls_stmt_bind_int64(set_path, LS_PARAM(spp, tx), ls_stmt_int64(q, pf_tx_id))) != 0 ||
        (rc = ls_stmt_bind_int64(set_path, LS_PARAM(spp, set), set_id)) != 0)
        return rc;
    rc = ls_stmt_step(set_path);
    return rc < 0 ? rc : 0;
}

/* Whether path_identity chose the transaction's shape, in *by_shape. */
static int read_by_shape(ls_store *s, int *by_shape)
{
    ls_stmt *q = NULL;
    int rc;
    if ((rc = ls_store_prepare(s, by_shape_sql, &q)) != 0)
        return rc;
    if ((rc = ls_stmt_step(q)) == 1)
        *by_shape = ls_stmt_int64(q, LS_ONLY_COLUMN) != 0;
    ls_stmt_finalize(q);
    return rc == 1 ? 0 : rc < 0 ? rc : LS_ESTORE;
}

int ls_correlate_paths(ls_store *s)
{
    ls_paths *c = NULL;
    ls_stmt *q = NULL, *set_path = NULL;
    int by_shape = 0, rc;

    if ((rc = read_by_shape(s, &by_shape)) != 0)
        return rc;
    if ((rc = ls_paths_open(s, &c)) == 0 && (rc = ls_store_prepare(s, facts_sql, &q)) == 0 &&
        (rc = ls_store_prepare_params(s, set_path_sql, LS_PARAM_NAMES(SET_PATH_PARAMS),
                                      &set_path)) == 0) {
        while ((rc = ls_stmt_step(q)) == 1)
            if ((rc = store_paths(c, q, set_path, by_shape)) != 0)
                break;
    }
    ls_stmt_finalize(q);
    ls_stmt_finalize(set_path);
    ls_paths_close(c);
    return rc < 0 ? rc : 0;
}
