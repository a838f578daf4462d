/*
 * rule.h — learned statement-shape rules: which row a statement locks
 * that its text does not name (a function's UPDATE, an INSERT's trigger).
 * A rule is learned from one statement whose locked row another piece of
 * evidence gave (rowkey.c, ls_rowkey_learn) and applies to every statement
 * of its shape, whatever code path, session or application sent it: what
 * a statement locks depends on its verb, relation and values, not on who
 * sent it (issue 34 item 3). Pure: the logical rows pass (holds.c) and the
 * transactions pass (transactions.c) feed it statements.
 */
#ifndef LS_DECIDE_RULE_H
#define LS_DECIDE_RULE_H

#include "ls_sqlshape.h"

/*
 * Statements of `shape` lock row rel.col = the value of their argument
 * number `arg` (0-based, ls_sql_args_of order). When the teaching
 * statement was an INSERT whose key value came from one of its columns,
 * `target` is the relation it inserts into and `target_col` that column:
 * a row trigger (or a foreign key) fires for every INSERT into the
 * relation, so any INSERT INTO target that sets target_col locks the same
 * row, however its text is written (column order, other columns, literals
 * or parameters, another RETURNING). Both "" otherwise.
 */
typedef struct ls_shape_rule {
    char shape[512];
    char rel[128];
    char col[64];
    int arg;
    char target[128];
    char target_col[64];
} ls_shape_rule;

/* A statement as rules read it. */
typedef struct ls_rule_stmt {
    const char *shape;       /* its shape (ls_rowkey_shape), never NULL */
    const char *insert_into; /* the relation it INSERTs into; "" when not an INSERT */
    const ls_sql_args *args; /* its arguments, $n bound from its parameters */
} ls_rule_stmt;

/* How a rule matched a statement. */
typedef enum ls_rule_match {
    LS_RULE_NONE = 0,   /* the rule says nothing of this statement */
    LS_RULE_SHAPE,      /* the statement has the rule's shape */
    LS_RULE_INSERT_COL  /* an INSERT into the rule's relation that sets its column */
} ls_rule_match;

/*
 * Whether rule `r` says which row statement `s` locks. Returns how it
 * matched, with *arg the index of the argument (in s->args) whose value
 * is the key; LS_RULE_NONE (and *arg -1) when the statement has neither
 * the shape nor an INSERT's column of the rule, when that argument is not
 * bound, or when the INSERT sets the column to several values (a
 * multi-row INSERT locks several rows: no one key).
 */
ls_rule_match ls_rule_match_stmt(const ls_shape_rule *r, const ls_rule_stmt *s, int *arg);

/*
 * The INSERT column a rule is keyed by, from its teaching statement: when
 * `shape` (the teaching statement's) is an INSERT's, `insert_into` its
 * relation and the key argument has a column, copy both into r->target
 * and r->target_col; else leave them "". Returns 1 when set.
 */
int ls_rule_set_insert_col(ls_shape_rule *r, const char *insert_into, const ls_sql_args *args);

#endif
