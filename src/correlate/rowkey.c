/*
 * rowkey.c — which logical row a lock or a statement is about.
 *
 * A row's ctid changes with every update, so a hot row is known by its
 * key (relation, "col=value"). Real applications rarely write the key as
 * a literal in the statement that waits: drivers bind it ($n, DETAIL
 * "parameters:"), SQL-level prepared statements hide it behind EXECUTE
 * (DETAIL "prepare:"), functions and triggers lock rows the client's
 * statement never names (only the wait's CONTEXT shows the inner
 * statement). These functions read each kind of evidence; rules learned
 * from waits whose row is known (ls_rowkey_learn) name the row of the
 * instances that did not wait long enough to be logged.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "ls_buf.h"
#include "rowkey.h"

void ls_rowkey_effective(const char *statement, const char *params, const char *prepare,
                         const char **out_sql, const char **out_params, char *params_buf,
                         size_t params_len)
{
    ls_sql_effective(statement, params, prepare, out_sql, out_params, params_buf, params_len);
}

/* Copy the innermost statement of `SQL statement "..."` in a CONTEXT
 * (rowkey.h). */
int ls_rowkey_context_statement(const char *context, char *dst, size_t n)
{
    const char *p = context ? strstr(context, "SQL statement \"") : NULL, *e;
    size_t len;
    if (!p)
        return 0;
    p += strlen("SQL statement \"");
    /* PostgreSQL does not escape quotes inside: the statement ends at the
     * quote that ends its line. */
    e = strstr(p, "\"\n");
    if (!e)
        e = strrchr(p, '"');
    if (!e || e < p)
        return 0;
    len = (size_t)(e - p);
    if (len + 1 > n)
        len = n - 1;
    memcpy(dst, p, len);
    dst[len] = '\0';
    return 1;
}

static int same_relation(const char *named, const char *rel)
{
    return !named || !named[0] || strcmp(named, rel) == 0;
}

int ls_rowkey_of(const ls_rowkey_evidence *ev, ls_rowkey *out)
{
    const char *sql, *params;
    char pbuf[1024], inner[4096], key[192];
    ls_row_ref ref;

    memset(out, 0, sizeof(*out));
    ls_rowkey_effective(ev->statement, ev->params, ev->prepare, &sql, &params, pbuf,
                        sizeof(pbuf));

    /* The CONTEXT's statement is the one that locked. */
    if (ls_rowkey_context_statement(ev->context, inner, sizeof(inner)) &&
        ls_sql_row_ref(inner, &ref) && same_relation(ev->relation, ref.rel)) {
        ls_sql_args args;
        const char *val = NULL;
        int i;

        ls_sql_args_of(sql, params, &args);
        if (ref.kind == LS_REF_LITERAL) {
            val = ref.value;
        } else if (ref.kind == LS_REF_PARAM && ref.param >= 1 && ref.param <= args.n &&
                   args.v[ref.param - 1].bound) {
            val = args.v[ref.param - 1].value; /* $n of a function: its n-th argument */
        } else if (ref.kind == LS_REF_FIELD) {
            for (i = 0; i < args.n && !val; i++) /* NEW.col: the row the trigger fired for */
                if (args.v[i].bound && strcmp(args.v[i].col, ref.value) == 0)
                    val = args.v[i].value;
        }
        if (val) {
            snprintf(out->rel, sizeof(out->rel), "%s", ref.rel);
            snprintf(out->key, sizeof(out->key), "%s=%s", ref.col, val);
            out->grouped_by = LS_GROUPED_CONTEXT;
            return 1;
        }
        snprintf(out->rel, sizeof(out->rel), "%s", ref.rel);
        snprintf(out->col, sizeof(out->col), "%s", ref.col);
        snprintf(out->name, sizeof(out->name), "%s", ref.value);
        out->grouped_by = "function variable not resolved";
        return 0;
    }
    /* The statement itself, read once. */
    if (!ls_sql_row_ref(sql, &ref)) {
        out->grouped_by = !sql || !sql[0] ? "no statement logged" : "no key in statement";
        return 0;
    }
    if (!ls_sql_ref_key(&ref, params, key, sizeof(key))) {
        out->grouped_by = ref.kind == LS_REF_PARAM ? "bind parameters not logged"
                                                   : "no key in statement";
        return 0;
    }
    if (!same_relation(ev->relation, ref.rel)) {
        out->grouped_by = "statement addresses another relation";
        return 0;
    }
    snprintf(out->rel, sizeof(out->rel), "%s", ref.rel);
    snprintf(out->key, sizeof(out->key), "%s", key);
    out->grouped_by = sql != ev->statement ? LS_GROUPED_PREPARE
                      : ref.kind == LS_REF_PARAM ? LS_GROUPED_PARAM
                                                 : LS_GROUPED_STATEMENT;
    return 1;
}

int ls_rowkey_stmt(const char *statement, const ls_row_ref *ref, const char *params,
                   const char *prepare, ls_rowkey *out)
{
    out->col[0] = out->name[0] = '\0';
    out->grouped_by = NULL;
    return ls_sql_stmt_key(statement, ref, params, prepare, out->rel, sizeof(out->rel), out->key,
                           sizeof(out->key));
}

static void shape_of(const char *sql, char *dst, size_t n)
{
    ls_buf b = LS_BUF_INIT(0);
    ls_sql_shape(&b, sql, n - 1);
    snprintf(dst, n, "%s", ls_buf_failed(&b) ? "" : ls_buf_str(&b));
    ls_buf_free(&b);
}

/* The relation an INSERT inserts into, from its shape ("" for any other
 * statement: a row trigger fires for the INSERTs into its relation). */
static void insert_into(const char *shape, char *dst, size_t n)
{
    static const char insert_kw[] = "insert ";
    dst[0] = '\0';
    if (strncmp(shape, insert_kw, sizeof(insert_kw) - 1) == 0 && !ls_sql_relation(shape, dst, n))
        dst[0] = '\0';
}

int ls_rowkey_learn(const char *statement, const char *params, const char *rel,
                    const char *key, ls_shape_rule *out)
{
    const char *eq = strchr(key, '=');
    ls_sql_args args;
    int i, found = -1;

    memset(out, 0, sizeof(*out));
    if (!eq || !statement)
        return 0;
    ls_sql_args_of(statement, params, &args);
    for (i = 0; i < args.n; i++) {
        if (args.v[i].bound && strcmp(args.v[i].value, eq + 1) == 0) {
            if (found >= 0)
                return 0; /* two arguments carry the value: which one is unknown */
            found = i;
        }
    }
    if (found < 0)
        return 0;
    shape_of(statement, out->shape, sizeof(out->shape));
    if (!out->shape[0])
        return 0;
    snprintf(out->rel, sizeof(out->rel), "%s", rel);
    snprintf(out->col, sizeof(out->col), "%.*s", (int)(eq - key), key);
    out->arg = found;
    {
        char into[128];
        insert_into(out->shape, into, sizeof(into));
        ls_rule_set_insert_col(out, into, &args);
    }
    return 1;
}

int ls_rowkey_apply(const ls_shape_rule *rule, const char *shape, const char *statement,
                    const char *params, ls_rowkey *out)
{
    ls_sql_args args;
    ls_rule_stmt st;
    char into[128];
    int arg;

    memset(out, 0, sizeof(*out));
    if (strcmp(rule->shape, shape) != 0 && !rule->target[0])
        return 0; /* neither its shape nor an INSERT rule: not worth reading */
    insert_into(shape, into, sizeof(into));
    if (strcmp(rule->shape, shape) != 0 && strcmp(rule->target, into) != 0)
        return 0;
    ls_sql_args_of(statement, params, &args);
    st.shape = shape;
    st.insert_into = into;
    st.args = &args;
    if (ls_rule_match_stmt(rule, &st, &arg) == LS_RULE_NONE)
        return 0;
    snprintf(out->rel, sizeof(out->rel), "%s", rule->rel);
    snprintf(out->key, sizeof(out->key), "%s=%s", rule->col, args.v[arg].value);
    out->grouped_by = LS_GROUPED_SHAPE;
    return 1;
}

/* The statement's shape as rules store it (for ls_rowkey_apply). */
void ls_rowkey_shape(const char *statement, char *dst, size_t n)
{
    shape_of(statement, dst, n);
}

int ls_rowkey_shared_arg(const char *waiter_sql, const char *waiter_params,
                         const char *holder_sql, const char *holder_params, const char *col,
                         char *key, size_t keylen)
{
    ls_sql_args w, h;
    int i, j, shared = 0, at = -1;

    if (!col || !col[0])
        return 0;
    ls_sql_args_of(waiter_sql, waiter_params, &w);
    ls_sql_args_of(holder_sql, holder_params, &h);
    for (i = 0; i < w.n; i++) {
        int hit = 0;
        if (!w.v[i].bound)
            continue;
        for (j = 0; j < h.n && !hit; j++)
            hit = h.v[j].bound && strcmp(w.v[i].value, h.v[j].value) == 0;
        if (hit && (at < 0 || strcmp(w.v[at].value, w.v[i].value) != 0)) {
            shared++;
            at = i;
        }
    }
    if (shared != 1)
        return 0;
    snprintf(key, keylen, "%s=%s", col, w.v[at].value);
    return 1;
}
