/*
 * test_decide_rule.c — decide/rule.c: whether a learned statement-shape
 * rule names the row a statement locks (issue 34 item 3). Boundaries:
 * the same text from another code path; the same verb and relation with
 * another key column; a shape that taught nothing; two shapes mapping to
 * the same row; a multi-row INSERT; an unbound parameter.
 *
 * The INSERT texts are those of samples/trigger-paths (a real PostgreSQL
 * 15 log: the checkout path's extended-protocol INSERT and the import
 * path's literal one, whose payments trigger updates merchant_totals).
 */
#include <string.h>

#include "decide/rule.h"
#include "ls_test.h"

#define CHECKOUT_SQL                                                                       \
    "INSERT INTO payments (merchant_id, amount) VALUES ($1, $2)"                           \
    " RETURNING extract(epoch FROM clock_timestamp())"
#define IMPORT_SQL                                                                         \
    "INSERT INTO payments (source, amount, merchant_id) VALUES ('import', 120, 1)"         \
    " RETURNING extract(epoch FROM clock_timestamp())"

/* The rule the checkout path's logged wait taught: its second argument
 * ($1, merchant_id) keys merchant_totals. */
static ls_shape_rule checkout_rule(void)
{
    ls_shape_rule r;
    memset(&r, 0, sizeof(r));
    snprintf(r.shape, sizeof(r.shape), "%s",
             "insert into payments (merchant_id, amount) values (?) returning extract(epoch"
             " from clock_timestamp())");
    snprintf(r.rel, sizeof(r.rel), "merchant_totals");
    snprintf(r.col, sizeof(r.col), "merchant_id");
    r.arg = 0;
    snprintf(r.target, sizeof(r.target), "payments");
    snprintf(r.target_col, sizeof(r.target_col), "merchant_id");
    return r;
}

static ls_rule_match match(const ls_shape_rule *r, const char *shape, const char *into,
                           const char *sql, const char *params, int *arg, ls_sql_args *a)
{
    ls_rule_stmt s;
    ls_sql_args_of(sql, params, a);
    s.shape = shape;
    s.insert_into = into;
    s.args = a;
    return ls_rule_match_stmt(r, &s, arg);
}

/* The same text from another code path (another session, application,
 * sqlcommenter tag): the rule has no path in it, it applies. */
static void test_same_text_other_path(void)
{
    ls_shape_rule r = checkout_rule();
    ls_sql_args a;
    int arg;
    CHECK_INT(match(&r, r.shape, "payments", CHECKOUT_SQL " /*route='import'*/",
                    "$1 = '1', $2 = '77'", &arg, &a),
              LS_RULE_SHAPE);
    CHECK_INT(arg, 0);
    CHECK_STR(a.v[arg].value, "1");
    /* Its shape, but the key's parameter not logged: nothing to say. */
    CHECK_INT(match(&r, r.shape, "payments", CHECKOUT_SQL, NULL, &arg, &a), LS_RULE_NONE);
    CHECK_INT(arg, -1);
}

/* Two shapes map to the same row: the import path's INSERT (literals,
 * other column order, another column) sets merchant_id too. */
static void test_two_shapes_one_row(void)
{
    ls_shape_rule r = checkout_rule();
    ls_sql_args a;
    int arg;
    CHECK_INT(match(&r, "insert into payments (source, amount, merchant_id) values (?)"
                        " returning extract(epoch from clock_timestamp())",
                    "payments", IMPORT_SQL, NULL, &arg, &a),
              LS_RULE_INSERT_COL);
    CHECK_INT(arg, 2);
    CHECK_STR(a.v[arg].value, "1");
    /* Unquoted names fold to lower case, as PostgreSQL folds them; a
     * quoted name keeps its case, and "Merchant_Id" is another column. */
    CHECK_INT(match(&r, "x", "payments", "INSERT INTO payments (MERCHANT_ID) VALUES (4)", NULL,
                    &arg, &a),
              LS_RULE_INSERT_COL);
    CHECK_STR(a.v[arg].value, "4");
    CHECK_INT(match(&r, "x", "payments", "INSERT INTO payments (\"merchant_id\") VALUES (5)",
                    NULL, &arg, &a),
              LS_RULE_INSERT_COL);
    CHECK_INT(match(&r, "x", "payments", "INSERT INTO payments (\"Merchant_Id\") VALUES (6)",
                    NULL, &arg, &a),
              LS_RULE_NONE);
}

/* The same verb and relation, another key column: an INSERT into
 * payments that does not set merchant_id says nothing; nor does an
 * INSERT into another relation that sets a merchant_id, nor an UPDATE of
 * payments (a trigger's NEW there is the whole row, not the statement's). */
static void test_other_key_column(void)
{
    ls_shape_rule r = checkout_rule();
    ls_sql_args a;
    int arg;
    CHECK_INT(match(&r, "insert into payments (customer_id, amount) values (?)", "payments",
                    "INSERT INTO payments (customer_id, amount) VALUES (1, 5)", NULL, &arg, &a),
              LS_RULE_NONE);
    CHECK_INT(match(&r, "insert into refunds (merchant_id, amount) values (?)", "refunds",
                    "INSERT INTO refunds (merchant_id, amount) VALUES (1, 5)", NULL, &arg, &a),
              LS_RULE_NONE);
    CHECK_INT(match(&r, "update payments set merchant_id = ? where id = ?", "",
                    "UPDATE payments SET merchant_id = 1 WHERE id = 9", NULL, &arg, &a),
              LS_RULE_NONE);
    /* A rule keyed by another column of the same INSERT (a second trigger
     * on payments keyed by customer_id) reads that column. */
    snprintf(r.rel, sizeof(r.rel), "customer_totals");
    snprintf(r.col, sizeof(r.col), "customer_id");
    snprintf(r.target_col, sizeof(r.target_col), "customer_id");
    CHECK_INT(match(&r, "y", "payments",
                    "INSERT INTO payments (merchant_id, customer_id) VALUES (1, 42)", NULL, &arg,
                    &a),
              LS_RULE_INSERT_COL);
    CHECK_STR(a.v[arg].value, "42");
}

/* A shape that taught nothing: a rule with no INSERT column (a function
 * call's) applies to its own shape only. */
static void test_shape_taught_nothing(void)
{
    ls_shape_rule r;
    ls_sql_args a;
    int arg;
    memset(&r, 0, sizeof(r));
    snprintf(r.shape, sizeof(r.shape), "select * from withdraw(?, ?)");
    snprintf(r.rel, sizeof(r.rel), "accounts");
    snprintf(r.col, sizeof(r.col), "id");
    r.arg = 0;
    CHECK_INT(match(&r, "select * from deposit(?, ?)", "", "SELECT * FROM deposit(7, 5)", NULL,
                    &arg, &a),
              LS_RULE_NONE);
    CHECK_INT(match(&r, "insert into payments (id) values (?)", "payments",
                    "INSERT INTO payments (id) VALUES (7)", NULL, &arg, &a),
              LS_RULE_NONE);
    CHECK_INT(match(&r, r.shape, "", "SELECT * FROM withdraw(7, 5)", NULL, &arg, &a),
              LS_RULE_SHAPE);
    CHECK_STR(a.v[arg].value, "7");
    /* A rule whose argument is past the statement's: no key. */
    r.arg = 5;
    CHECK_INT(match(&r, r.shape, "", "SELECT * FROM withdraw(7, 5)", NULL, &arg, &a),
              LS_RULE_NONE);
}

/* A multi-row INSERT sets the column to several values: it locks several
 * rows, no one key; the same value twice is one row. */
static void test_multi_row_insert(void)
{
    ls_shape_rule r = checkout_rule();
    ls_sql_args a;
    int arg;
    CHECK_INT(match(&r, "z", "payments",
                    "INSERT INTO payments (merchant_id, amount) VALUES (1, 5), (2, 6)", NULL,
                    &arg, &a),
              LS_RULE_NONE);
    CHECK_INT(match(&r, "z", "payments",
                    "INSERT INTO payments (merchant_id, amount) VALUES (1, 5), (1, 6)", NULL,
                    &arg, &a),
              LS_RULE_INSERT_COL);
    CHECK_STR(a.v[arg].value, "1");
    /* An unbound $n for the column: no key. */
    CHECK_INT(match(&r, "z", "payments",
                    "INSERT INTO payments (amount, merchant_id) VALUES ($1, $2)", "$1 = '5'",
                    &arg, &a),
              LS_RULE_NONE);
}

/* What a teaching statement carries to the other INSERTs. */
static void test_set_insert_col(void)
{
    ls_shape_rule r = checkout_rule();
    ls_sql_args a;
    ls_sql_args_of(CHECKOUT_SQL, "$1 = '1', $2 = '77'", &a);
    CHECK_INT(ls_rule_set_insert_col(&r, "payments", &a), 1);
    CHECK_STR(r.target, "payments");
    CHECK_STR(r.target_col, "merchant_id");
    /* Not an INSERT: nothing to carry. */
    CHECK_INT(ls_rule_set_insert_col(&r, "", &a), 0);
    CHECK_STR(r.target, "");
    CHECK_STR(r.target_col, "");
    /* A function call's argument has no column. */
    ls_sql_args_of("SELECT * FROM withdraw(7, 5)", NULL, &a);
    r.arg = 0;
    CHECK_INT(ls_rule_set_insert_col(&r, "accounts", &a), 0);
    /* The key's column set twice to other values (two rows): not carried. */
    ls_sql_args_of("INSERT INTO payments (merchant_id, amount) VALUES (1, 5), (2, 6)", NULL, &a);
    CHECK_INT(ls_rule_set_insert_col(&r, "payments", &a), 0);
}

int main(void)
{
    test_same_text_other_path();
    test_two_shapes_one_row();
    test_other_key_column();
    test_shape_taught_nothing();
    test_multi_row_insert();
    test_set_insert_col();
    return TEST_REPORT();
}
