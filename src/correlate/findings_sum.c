/*
 * findings_sum.c — the finding rules that gather finer rows than their
 * findings and sum them in C (findings.c runs them): the external call,
 * per span name (one finding per call-site template:
 * ls_finding_call_template), the idle-in-transaction head, per hold
 * (which holds count: ls_finding_idle_add),
 * and the counter row, per statement shape that took its holds (the one
 * that held it longest: ls_finding_is_counter). Their sentences are written by SQLite's
 * printf from the sums, as the other rules' are by their queries.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "correlate_int.h"
#include "decide/idlegap.h"
#include "findings_int.h"
#include "ls_sqlshape.h"

/* A time of the store (microseconds) as the findings write it, UTC. */
#define UTC_TIME(t) "strftime('%%Y-%%m-%%d %%H:%%M:%%f', " t " / 1e6, 'unixepoch')"

/* The idle rule's title and evidence from its sums (?1 code path, ?2
 * holds, ?3 unexplained idle, ?4 waiting caused, ?5 longest hold), in
 * SQLite's printf as every other rule's; where some holds are known idle
 * from the session's silence in a log without durations (?6 of them), how
 * it knows, from the longest (?7 its length, ?8 and ?9 the logged starts
 * of the statement that took the row and of the session's next, ?10 the
 * hold's waits). */
#define IDLE_WORDS_SQL                                                                             \
    "SELECT ?1 || ' sits idle in transaction at the head of the queue',"                           \
    " printf('%%d hold%%s of a hot row with the holder idle in transaction while others "          \
    "waited: " DUR " idle that no trace span explains, " DUR " of waiting caused; longest "        \
    "hold " DUR ".', ?2, CASE WHEN ?2 > 1 THEN 's' ELSE '' END, ?3, ?4, ?5)"                       \
    " || CASE WHEN ?6 > 0 THEN printf(' No durations in the log: idle known from the "             \
    "session''s silence for %%d of the %%d hold%%s; the longest, the session logged nothing for "  \
    "at least " DUR " between the statement that took the row (logged at %%s UTC) and its next "   \
    "statement (%%s UTC) while %%d wait%%s queued behind it.', ?6, ?2,"                            \
    " CASE WHEN ?2 > 1 THEN 's' ELSE '' END, ?7, " UTC_TIME("?8") ", " UTC_TIME("?9") ", ?10,"     \
    " CASE WHEN ?10 > 1 THEN 's' ELSE '' END) ELSE '' END"
/* A words statement's columns (IDLE_WORDS_SQL, COUNTER_WORDS_SQL). */
enum { WORDS_TITLE, WORDS_EVIDENCE };

/* The counter rule's title and evidence (?1 relation, ?2 row, ?3 waits,
 * ?4 total wait, ?5 the row's dominant statement shape, ?6 its
 * holds, ?7 their length, ?8 1 when it increments, 0 when it writes
 * another relation: a trigger bumps the row). */
#define COUNTER_WORDS_SQL                                                                          \
    "SELECT 'Counter row ' || ?1 || ' ' || ?2 || ' is a bottleneck',"                              \
    " printf('%%d waits (" DUR ") on one row that %%d transactions %%s with the same statement "   \
    "(holding it " DUR " in all): ''%%s''.', ?3, ?4, ?6, CASE ?8 WHEN 1 THEN "         \
    "'increment' ELSE 'bump (through a trigger or rule: the statement writes another relation)'" \
    " END, ?7, ?5)"

/* Column col of q, NaN when NULL (unknown). */
static double num_or_nan(ls_stmt *q, int col)
{
    return ls_stmt_isnull(q, col) ? NAN : ls_stmt_double(q, col);
}

/* Field `name` of f (a rule without it: a bug, left alone). */
static value *field_of(finding *f, const char *name)
{
    int col = ls_fnd_field_col(&f->fields, name);
    return col < 0 ? NULL : &f->f[col - COL_FIELDS];
}

static void set_num(finding *f, const char *name, double v)
{
    value *x = field_of(f, name);
    if (x) {
        x->null = isnan(v);
        x->d = isnan(v) ? 0 : v;
    }
}

/* Prepare a rule's words statement (its SQL with %% for %) into *out. */
static int words_prepare(ls_store *s, const char *sql, ls_stmt **out)
{
    ls_buf text = LS_BUF_INIT(0);
    int rc;
    ls_fnd_expand(&text, sql, "");
    rc = ls_buf_failed(&text) ? LS_ENOMEM : ls_store_prepare(s, ls_buf_str(&text), out);
    ls_buf_free(&text);
    return rc;
}

/* Step the bound words statement into f's title and evidence. */
static int words_read(ls_stmt *words, finding *f)
{
    int rc = ls_stmt_step(words);
    if (rc == 1) {
        rc = ls_fnd_value_read(&f->title, words, WORDS_TITLE, 's');
        rc |= ls_fnd_value_read(&f->evidence, words, WORDS_EVIDENCE, 's');
        rc = rc ? LS_ENOMEM : 0;
    } else if (rc == 0) {
        rc = LS_ERR; /* a SELECT of values gives a row */
    }
    ls_stmt_reset(words);
    return rc;
}

/* The idle heads of code path `label` (sums p) offered to the keeper when
 * they fire, titled and worded by `words` (IDLE_WORDS_SQL). */
static int idle_offer(ls_stmt *words, const finding_rule *r, const rule_fields *rf,
                      const char *label, const ls_idle_heads *p, keeper *k)
{
    finding f;
    value *v;
    size_t slot;
    int rc;

    if (!ls_finding_count_fires(p->holds))
        return 0;
    if ((slot = ls_fnd_keeper_slot(k, p->waiter_ms)) >= k->limit)
        return 0;
    memset(&f, 0, sizeof(f));
    f.rule = r;
    f.fields = *rf;
    f.weight.d = p->waiter_ms;
    ls_stmt_bind_text(words, 1, label);
    ls_stmt_bind_int64(words, 2, p->holds);
    ls_stmt_bind_double(words, 3, p->unexplained_ms);
    ls_stmt_bind_double(words, 4, p->waiter_ms);
    if (isnan(p->max_hold_ms))
        ls_stmt_bind_null(words, 5);
    else
        ls_stmt_bind_double(words, 5, p->max_hold_ms);
    ls_stmt_bind_int64(words, 6, p->gap_holds);
    ls_stmt_bind_double(words, 7, p->gap_ms);
    ls_stmt_bind_int64(words, 8, p->gap_from);
    ls_stmt_bind_int64(words, 9, p->gap_to);
    ls_stmt_bind_int64(words, 10, p->gap_waits);
    rc = words_read(words, &f);
    if (rc == 0 && (v = field_of(&f, "code_path")) != NULL && !(v->s = strdup(label)))
        rc = LS_ENOMEM;
    if (rc == 0 && (v = field_of(&f, "holds")) != NULL)
        v->i = p->holds;
    set_num(&f, "idle_ms", p->unexplained_ms);
    set_num(&f, "waiter_ms", p->waiter_ms);
    set_num(&f, "max_hold_ms", p->max_hold_ms);
    if (rc < 0) {
        ls_fnd_finding_free(&f);
        return rc;
    }
    ls_fnd_keeper_put(k, slot, &f);
    return 0;
}

/* One hold of the idle rule's query q added to p: idle at the head by its
 * durations (ls_finding_idle_add), or, its state unknown (no durations),
 * by the session's silence (decide/idlegap.h). */
static void idle_hold_add(ls_idle_heads *p, ls_stmt *q, int64_t resolution)
{
    ls_idle_gap_in in;

    if (!ls_stmt_int64(q, iq_unknown)) {
        ls_finding_idle_add(p, num_or_nan(q, iq_waiter_ms), num_or_nan(q, iq_unexplained_ms),
                            num_or_nan(q, iq_hold_ms));
        return;
    }
    if (ls_stmt_isnull(q, iq_lock_ts) || ls_stmt_isnull(q, iq_next_ts))
        return; /* no statement after the one that took the row */
    in.lock_ts = ls_stmt_int64(q, iq_lock_ts);
    in.next_ts = ls_stmt_int64(q, iq_next_ts);
    in.has_tx_wait = !ls_stmt_isnull(q, iq_tx_wait_ts);
    in.tx_wait_ts = ls_stmt_int64(q, iq_tx_wait_ts);
    in.logged_wait_ms = num_or_nan(q, iq_logged_wait_ms);
    in.own_wait = ls_stmt_int64(q, iq_own_wait) != 0;
    in.resolution = resolution;
    ls_idle_gap_add(p, num_or_nan(q, iq_waiter_ms), ls_idle_gap_silence_us(&in),
                    num_or_nan(q, iq_span_idle_ms), num_or_nan(q, iq_hold_ms), in.lock_ts,
                    in.next_ts, ls_stmt_int64(q, iq_waits));
}

/*
 * idle_in_transaction_head: the holds idle at the head, in code path
 * order; each code path's holds that count (idle_hold_add) summed, and
 * the path named when any did.
 */
int ls_fnd_gather_idle(ls_store *s, const finding_rule *r, const rule_fields *rf, ls_stmt *q,
                       keeper *k)
{
    ls_stmt *words = NULL;
    char *label = NULL;
    ls_idle_heads p;
    int64_t resolution;
    int rc = ls_correlate_log_resolution(s, &resolution);

    if (rc == 0)
        rc = words_prepare(s, IDLE_WORDS_SQL, &words);

    while (rc == 0 && (rc = ls_stmt_step(q)) == 1) {
        const char *l = ls_stmt_text(q, iq_label);
        rc = 0;
        if (!label || strcmp(label, l) != 0) {
            if (label && (rc = idle_offer(words, r, rf, label, &p, k)) != 0)
                break;
            free(label);
            if (!(label = strdup(l))) {
                rc = LS_ENOMEM;
                break;
            }
            ls_finding_idle_start(&p);
        }
        idle_hold_add(&p, q, resolution);
    }
    if (rc == 0 && label)
        rc = idle_offer(words, r, rf, label, &p, k);
    free(label);
    ls_stmt_finalize(words);
    return rc < 0 ? rc : 0;
}

/* ---- external_call_in_transaction: one finding per call-site template ---- */

/* The call rule's title and evidence (?1 code path, ?2 the call-site
 * template, ?3 its time, ?4 its holds, ?5 the waiting they caused, ?6 the
 * path's time in all its holds of hot rows, ?7 how many span names the
 * template stands for, ?8 the heaviest of them). */
#define CALL_WORDS_SQL                                                                             \
    "SELECT ?1 || ' calls ' || ?2 || ' while holding a hot row',"                                  \
    " printf('" DUR " of its " DUR " of holds on rows others waited for were spent in the span "   \
    "''%%s''%%s (%%d holds, " DUR " of waiting caused).', ?3, ?6, ?2, CASE WHEN ?7 > 1 THEN "      \
    "printf(' (%%d URLs, the longest in all ''%%s'')', ?7, ?8) ELSE '' END, ?4, ?5)"

/* The longest span name or template the call rule compares (a longer one
 * is compared on its first bytes). */
#define CALL_NAME_MAX 512

/* One span name of a code path, or the sum of a template's names. */
typedef struct call_site {
    char tmpl[CALL_NAME_MAX];
    char *name;      /* the heaviest name of the template */
    double ms, name_ms, waiter_ms;
    int64_t holds, names;
} call_site;

/* A code path's call sites, as read. */
typedef struct call_path {
    char *label;
    double path_ms;
    call_site *sites;
    size_t n, cap;
} call_path;

static void call_path_free(call_path *p)
{
    size_t i;
    for (i = 0; i < p->n; i++)
        free(p->sites[i].name);
    free(p->sites);
    free(p->label);
    memset(p, 0, sizeof(*p));
}

/* Add the current row of q (a name of p's path) to p; -1 on no memory. */
static int call_add(call_path *p, ls_stmt *q)
{
    call_site *c;
    const char *name = ls_stmt_isnull(q, kq_name) ? "" : ls_stmt_text(q, kq_name);
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 16;
        call_site *grown = realloc(p->sites, cap * sizeof(*grown));
        if (!grown)
            return LS_ENOMEM;
        p->sites = grown;
        p->cap = cap;
    }
    c = &p->sites[p->n];
    memset(c, 0, sizeof(*c));
    if (!(c->name = strdup(name)))
        return LS_ENOMEM;
    p->n++;
    ls_finding_call_template(name, c->tmpl, sizeof(c->tmpl));
    c->ms = c->name_ms = ls_stmt_isnull(q, kq_ms) ? 0 : ls_stmt_double(q, kq_ms);
    c->waiter_ms = ls_stmt_isnull(q, kq_waiter_ms) ? 0 : ls_stmt_double(q, kq_waiter_ms);
    c->holds = ls_stmt_int64(q, kq_holds);
    c->names = 1;
    return 0;
}

static int by_template(const void *a, const void *b)
{
    return strcmp(((const call_site *)a)->tmpl, ((const call_site *)b)->tmpl);
}

/* Sum the sites of one template into the first of them (stable: the
 * sites come sorted by name, qsort's order among equals is not kept, so
 * the heaviest name is chosen by time, then by name). */
static void call_merge(call_path *p)
{
    size_t i, out = 0;
    qsort(p->sites, p->n, sizeof(p->sites[0]), by_template);
    for (i = 0; i < p->n; i++) {
        call_site *c = &p->sites[i], *m = out ? &p->sites[out - 1] : NULL;
        if (m && strcmp(m->tmpl, c->tmpl) == 0) {
            m->ms += c->ms;
            m->waiter_ms += c->waiter_ms;
            m->holds += c->holds;
            m->names++;
            if (c->name_ms > m->name_ms ||
                (c->name_ms == m->name_ms && strcmp(c->name, m->name) < 0)) {
                free(m->name);
                m->name = c->name;
                m->name_ms = c->name_ms;
            } else {
                free(c->name);
            }
            c->name = NULL;
            continue;
        }
        if (i != out) {
            p->sites[out] = *c;
            c->name = NULL;
        }
        out++;
    }
    p->n = out;
}

/* Offer the keeper each call site of p that fires, worded by `words`. */
static int call_offer(ls_stmt *words, const finding_rule *r, const rule_fields *rf,
                      call_path *p, keeper *k)
{
    size_t i;
    int rc = 0;

    call_merge(p);
    for (i = 0; rc == 0 && i < p->n; i++) {
        const call_site *c = &p->sites[i];
        finding f;
        value *v;
        size_t slot;

        if (!ls_finding_call_fires(c->ms) || (slot = ls_fnd_keeper_slot(k, c->ms)) >= k->limit)
            continue;
        memset(&f, 0, sizeof(f));
        f.rule = r;
        f.fields = *rf;
        f.weight.d = c->ms;
        ls_stmt_bind_text(words, 1, p->label);
        ls_stmt_bind_text(words, 2, c->tmpl);
        ls_stmt_bind_double(words, 3, c->ms);
        ls_stmt_bind_int64(words, 4, c->holds);
        ls_stmt_bind_double(words, 5, c->waiter_ms);
        ls_stmt_bind_double(words, 6, p->path_ms);
        ls_stmt_bind_int64(words, 7, c->names);
        ls_stmt_bind_text(words, 8, c->name);
        rc = words_read(words, &f);
        if (rc == 0 && (v = field_of(&f, "code_path")) != NULL && !(v->s = strdup(p->label)))
            rc = LS_ENOMEM;
        if (rc == 0 && (v = field_of(&f, "span")) != NULL && !(v->s = strdup(c->tmpl)))
            rc = LS_ENOMEM;
        if (rc == 0 && (v = field_of(&f, "holds")) != NULL)
            v->i = c->holds;
        set_num(&f, "span_ms", c->ms);
        set_num(&f, "waiter_ms", c->waiter_ms);
        if (rc < 0) {
            ls_fnd_finding_free(&f);
            break;
        }
        ls_fnd_keeper_put(k, slot, &f);
    }
    return rc;
}

/*
 * external_call_in_transaction: each code path's span parts by name, in
 * code path order; the names of one call-site template
 * (ls_finding_call_template: "/v1/customers/17/status" and ".../42/..."
 * are one call) summed into one finding, the instances its evidence.
 */
int ls_fnd_gather_call(ls_store *s, const finding_rule *r, const rule_fields *rf, ls_stmt *q,
                       keeper *k)
{
    ls_stmt *words = NULL;
    call_path p;
    int rc = words_prepare(s, CALL_WORDS_SQL, &words);

    memset(&p, 0, sizeof(p));
    while (rc == 0 && (rc = ls_stmt_step(q)) == 1) {
        const char *l = ls_stmt_isnull(q, kq_label) ? "" : ls_stmt_text(q, kq_label);
        rc = 0;
        if (!p.label || strcmp(p.label, l) != 0) {
            if (p.label && (rc = call_offer(words, r, rf, &p, k)) != 0)
                break;
            call_path_free(&p);
            if (!(p.label = strdup(l))) {
                rc = LS_ENOMEM;
                break;
            }
            p.path_ms = ls_stmt_isnull(q, kq_path_ms) ? 0 : ls_stmt_double(q, kq_path_ms);
        }
        rc = call_add(&p, q);
    }
    if (rc == 0 && p.label)
        rc = call_offer(words, r, rf, &p, k);
    call_path_free(&p);
    ls_stmt_finalize(words);
    return rc < 0 ? rc : 0;
}

/* The longest text of a statement shape the counter rule compares (a
 * longer one is compared on its first bytes). */
#define COUNTER_SHAPE_MAX 1000

/* One statement shape's holds of a candidate row. */
typedef struct counter_shape {
    char *shape;
    ls_counter_shape n;
} counter_shape;

/* A row's candidate for hot_counter_row: its numbers and names, and its
 * holds by the shape of the statement that took them. */
typedef struct counter_row {
    int64_t row_id;
    value relation, row_key, waits, total_ms;
    counter_shape *shapes;
    size_t nshapes, cap;
} counter_row;

static void counter_free(counter_row *c)
{
    size_t i;
    ls_fnd_value_free(&c->relation);
    ls_fnd_value_free(&c->row_key);
    for (i = 0; i < c->nshapes; i++)
        free(c->shapes[i].shape);
    free(c->shapes);
    memset(c, 0, sizeof(*c));
}

/* Start row c from the current row of q; -1 on no memory. */
static int counter_start(counter_row *c, ls_stmt *q)
{
    int rc;
    counter_free(c);
    c->row_id = ls_stmt_int64(q, cq_row_id);
    rc = ls_fnd_value_read(&c->relation, q, cq_relation, 's');
    rc |= ls_fnd_value_read(&c->row_key, q, cq_row_key, 's');
    rc |= ls_fnd_value_read(&c->waits, q, cq_waits, 'i');
    rc |= ls_fnd_value_read(&c->total_ms, q, cq_total_wait_ms, 'm');
    return rc;
}

/* The entry of c for `shape` (of statement `text`), added when new with
 * what the shape alone says (does it increment, does it write another
 * relation than the row's); NULL on no memory. */
static counter_shape *shape_entry(counter_row *c, const char *shape, const char *text)
{
    counter_shape *e;
    char rel[128];
    size_t i;
    for (i = 0; i < c->nshapes; i++)
        if (strcmp(c->shapes[i].shape, shape) == 0)
            return &c->shapes[i];
    if (c->nshapes == c->cap) {
        size_t ncap = c->cap ? c->cap * 2 : 8;
        counter_shape *n = ls_realloc(c->shapes, ncap * sizeof(*n));
        if (!n)
            return NULL;
        c->shapes = n;
        c->cap = ncap;
    }
    e = &c->shapes[c->nshapes];
    memset(e, 0, sizeof(*e));
    if (!(e->shape = strdup(shape)))
        return NULL;
    e->n.increments = ls_finding_is_increment(e->shape);
    e->n.other_relation = ls_sql_relation(text, rel, sizeof(rel)) && c->relation.s &&
                          strcmp(rel, c->relation.s) != 0;
    c->nshapes++;
    return e;
}

/* Add the current row of q (one statement text's holds of row c) to the
 * sums of its shape; 0 or LS_ENOMEM. */
static int counter_add(counter_row *c, ls_stmt *q, ls_buf *shape)
{
    const char *text = ls_stmt_text(q, cq_text);
    counter_shape *e;

    ls_buf_reset(shape);
    if (ls_sql_shape(shape, text, COUNTER_SHAPE_MAX) != 0 || ls_buf_failed(shape))
        return LS_ENOMEM;
    if (!(e = shape_entry(c, ls_buf_str(shape), text)))
        return LS_ENOMEM;
    e->n.holds += ls_stmt_int64(q, cq_holds);
    e->n.transfers += ls_stmt_int64(q, cq_transfers);
    e->n.held_ms += ls_stmt_double(q, cq_held_ms);
    return 0;
}

/* The shape of c that is the row's dominant writer
 * (ls_finding_counter_longer), NULL when it has none. */
static const counter_shape *counter_top(const counter_row *c)
{
    const counter_shape *top = NULL;
    size_t i;
    for (i = 0; i < c->nshapes; i++)
        if (!top || ls_finding_counter_longer(&c->shapes[i].n, &top->n))
            top = &c->shapes[i];
    return top;
}

/* Copy v (of kind) into field `name` of f; -1 on no memory. */
static int set_value(finding *f, const char *name, const value *v)
{
    value *x = field_of(f, name);
    if (!x)
        return 0;
    *x = *v;
    x->s = NULL;
    return v->s && !(x->s = strdup(v->s)) ? -1 : 0;
}

/* Offer row c to the keeper when it has waits enough
 * (ls_finding_counter_fires) and its dominant shape makes it a counter
 * (ls_finding_is_counter). */
static int counter_offer(ls_stmt *words, const finding_rule *r, const rule_fields *rf,
                         const counter_row *c, keeper *k)
{
    const counter_shape *top = counter_top(c);
    value stmt = {0, 0, 0, NULL}, holds = {0, 0, 0, NULL}, held = {0, 0, 0, NULL};
    finding f;
    size_t slot;
    int rc;

    if (!top || c->waits.null || !ls_finding_counter_fires(c->waits.i) ||
        !ls_finding_is_counter(&top->n))
        return 0;
    if ((slot = ls_fnd_keeper_slot(k, c->total_ms.null ? 0.0 : c->total_ms.d)) >= k->limit)
        return 0;
    memset(&f, 0, sizeof(f));
    f.rule = r;
    f.fields = *rf;
    f.weight = c->total_ms;
    stmt.s = top->shape;
    holds.i = top->n.holds;
    held.d = top->n.held_ms;
    ls_fnd_bind_value(words, 1, &c->relation, 's');
    ls_fnd_bind_value(words, 2, &c->row_key, 's');
    ls_fnd_bind_value(words, 3, &c->waits, 'i');
    ls_fnd_bind_value(words, 4, &c->total_ms, 'm');
    ls_stmt_bind_text(words, 5, top->shape);
    ls_stmt_bind_int64(words, 6, top->n.holds);
    ls_stmt_bind_double(words, 7, top->n.held_ms);
    ls_stmt_bind_int64(words, 8, top->n.increments);
    rc = words_read(words, &f);
    if (rc == 0 &&
        (set_value(&f, "relation", &c->relation) | set_value(&f, "row", &c->row_key) |
         set_value(&f, "waits", &c->waits) | set_value(&f, "total_wait_ms", &c->total_ms) |
         set_value(&f, "statement", &stmt) | set_value(&f, "transactions", &holds) |
         set_value(&f, "held_ms", &held)))
        rc = LS_ENOMEM;
    if (rc < 0) {
        ls_fnd_finding_free(&f);
        return rc;
    }
    ls_fnd_keeper_put(k, slot, &f);
    return 0;
}

/*
 * hot_counter_row: each row's writers by the text of their statement
 * (the one that took the row, or waited for it), in row order; summed per
 * statement shape, and the row named when its dominant shape (the most
 * transactions) makes it a counter.
 */
int ls_fnd_gather_counter(ls_store *s, const finding_rule *r, const rule_fields *rf, ls_stmt *q,
                          keeper *k)
{
    counter_row c;
    ls_stmt *words = NULL;
    ls_buf shape = LS_BUF_INIT(0);
    int rc = words_prepare(s, COUNTER_WORDS_SQL, &words), started = 0;

    memset(&c, 0, sizeof(c));
    while (rc == 0 && (rc = ls_stmt_step(q)) == 1) {
        rc = 0;
        if (!started || ls_stmt_int64(q, cq_row_id) != c.row_id) {
            if (started && (rc = counter_offer(words, r, rf, &c, k)) != 0)
                break;
            if (counter_start(&c, q) != 0) {
                rc = LS_ENOMEM;
                break;
            }
            started = 1;
        }
        rc = counter_add(&c, q, &shape);
    }
    if (rc == 0 && started)
        rc = counter_offer(words, r, rf, &c, k);
    counter_free(&c);
    ls_buf_free(&shape);
    ls_stmt_finalize(words);
    return rc < 0 ? rc : 0;
}
