/*
 * rule.c — learned statement-shape rules (rule.h).
 */
#include "rule.h"

#include <stdio.h>
#include <string.h>

/* The one bound value of column `col` among an INSERT's arguments: its
 * index, or -1 when the INSERT does not set it, leaves it unbound, or
 * sets it to different values (several rows). */
static int insert_col_arg(const ls_sql_args *args, const char *col)
{
    int i, at = -1;
    for (i = 0; i < args->n; i++) {
        const ls_sql_arg *a = &args->v[i];
        if (strcmp(a->col, col) != 0) /* unquoted names come folded, as PostgreSQL folds them */
            continue;
        if (!a->bound)
            return -1;
        if (at >= 0 && strcmp(args->v[at].value, a->value) != 0)
            return -1;
        if (at < 0)
            at = i;
    }
    return at;
}

ls_rule_match ls_rule_match_stmt(const ls_shape_rule *r, const ls_rule_stmt *s, int *arg)
{
    *arg = -1;
    if (strcmp(r->shape, s->shape) == 0) {
        if (r->arg < 0 || r->arg >= s->args->n || !s->args->v[r->arg].bound)
            return LS_RULE_NONE;
        *arg = r->arg;
        return LS_RULE_SHAPE;
    }
    if (!r->target[0] || !r->target_col[0] || !s->insert_into[0] ||
        strcmp(r->target, s->insert_into) != 0)
        return LS_RULE_NONE;
    if ((*arg = insert_col_arg(s->args, r->target_col)) < 0)
        return LS_RULE_NONE;
    return LS_RULE_INSERT_COL;
}

int ls_rule_set_insert_col(ls_shape_rule *r, const char *insert_into, const ls_sql_args *args)
{
    r->target[0] = r->target_col[0] = '\0';
    if (!insert_into || !insert_into[0] || r->arg < 0 || r->arg >= args->n ||
        !args->v[r->arg].col[0])
        return 0;
    /* The column must carry the key value alone: it is what the next
     * INSERT is read by. */
    if (insert_col_arg(args, args->v[r->arg].col) != r->arg)
        return 0;
    snprintf(r->target, sizeof(r->target), "%s", insert_into);
    snprintf(r->target_col, sizeof(r->target_col), "%s", args->v[r->arg].col);
    return 1;
}
