/*
 * findings_sum.c — the finding rules that gather finer rows than their
 * findings and sum them in C (findings.c runs them): the idle-in-
 * transaction head, per hold (which holds count: ls_finding_idle_add),
 * and the counter row, per waiter's statement (which increment:
 * ls_finding_is_increment). Their sentences are written by SQLite's
 * printf from the sums, as the other rules' are by their queries.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "findings_int.h"

/* The idle rule's title and evidence from its sums (?1 code path, ?2
 * holds, ?3 unexplained idle, ?4 waiting caused, ?5 longest hold), in
 * SQLite's printf as every other rule's. */
#define IDLE_WORDS_SQL                                                                             \
    "SELECT ?1 || ' sits idle in transaction at the head of the queue',"                           \
    " printf('%%d hold%%s of a hot row with the holder idle in transaction while others "          \
    "waited: " DUR " idle that no trace span explains, " DUR " of waiting caused; longest "        \
    "hold " DUR ".', ?2, CASE WHEN ?2 > 1 THEN 's' ELSE '' END, ?3, ?4, ?5)"
/* A words statement's columns (IDLE_WORDS_SQL, COUNTER_WORDS_SQL). */
enum { WORDS_TITLE, WORDS_EVIDENCE };

/* The counter rule's title and evidence (?1 relation, ?2 row, ?3 waits,
 * ?4 total wait, ?5 the statement). */
#define COUNTER_WORDS_SQL                                                                          \
    "SELECT 'Counter row ' || ?1 || ' ' || ?2 || ' is a bottleneck',"                              \
    " printf('%%d waits (" DUR ") to increment one row: every writer updates it with "             \
    "''%%s''.', ?3, ?4, ?5)"

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

/*
 * idle_in_transaction_head: the holds idle at the head, in code path
 * order; each code path's holds that count (ls_finding_idle_add) summed,
 * and the path named when any did.
 */
int ls_fnd_gather_idle(ls_store *s, const finding_rule *r, const rule_fields *rf, ls_stmt *q,
                       keeper *k)
{
    ls_stmt *words = NULL;
    char *label = NULL;
    ls_idle_heads p;
    int rc = words_prepare(s, IDLE_WORDS_SQL, &words);

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
        ls_finding_idle_add(&p, num_or_nan(q, iq_waiter_ms), num_or_nan(q, iq_unexplained_ms),
                            num_or_nan(q, iq_hold_ms));
    }
    if (rc == 0 && label)
        rc = idle_offer(words, r, rf, label, &p, k);
    free(label);
    ls_stmt_finalize(words);
    return rc < 0 ? rc : 0;
}

/* A row's candidate for hot_counter_row: its numbers and names, and the
 * least (in byte order) of its waiters' statements that increment. */
typedef struct counter_row {
    int64_t row_id;
    value relation, row_key, waits, total_ms;
    char *statement; /* NULL: none increments */
} counter_row;

static void counter_free(counter_row *c)
{
    ls_fnd_value_free(&c->relation);
    ls_fnd_value_free(&c->row_key);
    free(c->statement);
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

/* Offer row c to the keeper when a waiter's statement increments and it
 * has waits enough (ls_finding_counter_fires). */
static int counter_offer(ls_stmt *words, const finding_rule *r, const rule_fields *rf,
                         const counter_row *c, keeper *k)
{
    value stmt = {0, 0, 0, c->statement};
    finding f;
    size_t slot;
    int rc;

    if (!c->statement || c->waits.null || !ls_finding_counter_fires(c->waits.i))
        return 0;
    if ((slot = ls_fnd_keeper_slot(k, c->total_ms.null ? 0.0 : c->total_ms.d)) >= k->limit)
        return 0;
    memset(&f, 0, sizeof(f));
    f.rule = r;
    f.fields = *rf;
    f.weight = c->total_ms;
    ls_fnd_bind_value(words, 1, &c->relation, 's');
    ls_fnd_bind_value(words, 2, &c->row_key, 's');
    ls_fnd_bind_value(words, 3, &c->waits, 'i');
    ls_fnd_bind_value(words, 4, &c->total_ms, 'm');
    ls_stmt_bind_text(words, 5, c->statement);
    rc = words_read(words, &f);
    if (rc == 0 &&
        (set_value(&f, "relation", &c->relation) | set_value(&f, "row", &c->row_key) |
         set_value(&f, "waits", &c->waits) | set_value(&f, "total_wait_ms", &c->total_ms) |
         set_value(&f, "statement", &stmt)))
        rc = LS_ENOMEM;
    if (rc < 0) {
        ls_fnd_finding_free(&f);
        return rc;
    }
    ls_fnd_keeper_put(k, slot, &f);
    return 0;
}

/*
 * hot_counter_row: the waiters' statements of each row, in row order; a
 * row is a counter when one of them increments (ls_finding_is_increment),
 * named with the least such text.
 */
int ls_fnd_gather_counter(ls_store *s, const finding_rule *r, const rule_fields *rf, ls_stmt *q,
                          keeper *k)
{
    counter_row c;
    ls_stmt *words = NULL;
    int rc = words_prepare(s, COUNTER_WORDS_SQL, &words), started = 0;

    memset(&c, 0, sizeof(c));
    while (rc == 0 && (rc = ls_stmt_step(q)) == 1) {
        const char *text = ls_stmt_text(q, cq_text);
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
        if (ls_finding_is_increment(text) && (!c.statement || strcmp(text, c.statement) < 0)) {
            free(c.statement);
            if (!(c.statement = strdup(text)))
                rc = LS_ENOMEM;
        }
    }
    if (rc == 0 && started)
        rc = counter_offer(words, r, rf, &c, k);
    counter_free(&c);
    ls_stmt_finalize(words);
    return rc < 0 ? rc : 0;
}
