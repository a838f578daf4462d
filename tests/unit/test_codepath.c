/* Code-path names after the OpenTelemetry semantic conventions: the SQL
 * expression of src/store/codepath.h that the view names code_name with,
 * and the same rule in C (decide/pathname.h) that names the paths the
 * code paths pass stores. */
#include <sqlite3.h>
#include <string.h>

#include "codepath.h"
#include "decide/pathname.h"
#include "ls_test.h"

static const struct {
    const char *ns, *fn, *want;
} cases[] = {
    /* new convention: code.function.name is qualified, used as is */
    {NULL, "shop.orders.pay_order", "shop.orders.pay_order"},
    {"", "shop.orders.pay_order", "shop.orders.pay_order"},
    /* old convention: namespace + function joined with '.' */
    {"checkout", "reserve_and_charge", "checkout.reserve_and_charge"},
    {"shop.orders", "pay_order", "shop.orders.pay_order"},
    /* ... but not when the function is qualified already (was shop.shop.pay_order) */
    {"shop", "shop.pay_order", "shop.pay_order"},
    {"GuzzleHttp", "GuzzleHttp\\Client::transfer", "GuzzleHttp\\Client::transfer"},
    {"Orders", "Orders::pay", "Orders::pay"},
    {"app", "OrdersController#pay", "OrdersController#pay"},
    /* a bare function, a namespace alone (sqlcommenter controller, no action) */
    {NULL, "fopen", "fopen"},
    {"checkout", NULL, "checkout"},
    {"checkout", "", "checkout"},
    /* sqlcommenter controller + action: the same form as span attributes */
    {"orders", "pay", "orders.pay"},
};

static void check_sql(sqlite3 *db, const char *ns, const char *fn, const char *want)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT " LS_CODE_NAME_SQL("?1", "?2"), -1, &st, NULL);
    CHECK(rc == SQLITE_OK);
    if (ns)
        sqlite3_bind_text(st, 1, ns, -1, SQLITE_STATIC);
    if (fn)
        sqlite3_bind_text(st, 2, fn, -1, SQLITE_STATIC);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK_STR((const char *)sqlite3_column_text(st, 0), want);
    sqlite3_finalize(st);
}

static void check_c(const char *ns, const char *fn, const char *want)
{
    char buf[256];
    ls_path_name n = ls_code_name(ns, fn);
    CHECK(n.head != NULL);
    if (n.tail)
        snprintf(buf, sizeof(buf), "%s.%s", n.head, n.tail);
    else
        snprintf(buf, sizeof(buf), "%s", n.head ? n.head : "");
    CHECK_STR(buf, want);
}

int main(void)
{
    sqlite3 *db = NULL;
    size_t i;
    sqlite3_stmt *st = NULL;

    CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        check_sql(db, cases[i].ns, cases[i].fn, cases[i].want);
        check_c(cases[i].ns, cases[i].fn, cases[i].want);
    }
    /* nothing to name, in C */
    CHECK(ls_code_name(NULL, NULL).head == NULL);
    CHECK(ls_code_name("", "").head == NULL);
    CHECK(ls_code_name("", NULL).head == NULL);
    /* nothing to name */
    CHECK(sqlite3_prepare_v2(db, "SELECT " LS_CODE_NAME_SQL("NULL", "NULL") " IS NULL, "
                             LS_CODE_NAME_SQL("''", "''") " IS NULL", -1, &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK_INT(sqlite3_column_int(st, 0), 1);
    CHECK_INT(sqlite3_column_int(st, 1), 1);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return TEST_REPORT();
}
