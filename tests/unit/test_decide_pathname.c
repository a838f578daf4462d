/*
 * test_decide_pathname.c — decide/pathname.c: a transaction's code path
 * under each grouping and the evidence that named it. Boundaries first:
 * no fact at all, an empty text (evidence, unlike a missing one), a code
 * attribute that names nothing, the shape chosen with no shape to name.
 * Then every combination of present and missing facts against the SQL
 * the tx_code view computed the paths with up to schema 15 (copied below
 * as it was), so that the decision moved into C gives the same answers.
 */
#include <sqlite3.h>
#include <string.h>

#include "codepath.h"
#include "decide/pathname.h"
#include "ls_test.h"

static ls_path_facts none(void)
{
    ls_path_facts f;
    memset(&f, 0, sizeof(f));
    return f;
}

/* The label's name as one text in buf. */
static const char *name_of(ls_path_label l, char *buf, size_t n)
{
    if (!l.name.head)
        return NULL;
    if (l.name.tail)
        snprintf(buf, n, "%s.%s", l.name.head, l.name.tail);
    else
        snprintf(buf, n, "%s", l.name.head);
    return buf;
}

static void check_label(const ls_path_facts *f, ls_grouping g, const char *name,
                        const char *source)
{
    char buf[256];
    ls_path_label l = ls_path_label_of(f, g);
    CHECK_STR(name_of(l, buf, sizeof(buf)), name);
    CHECK_STR(l.source, source);
}

static void test_boundaries(void)
{
    ls_path_facts f = none();
    int g;

    /* Nothing names it: "unknown", evidence "none", under every grouping. */
    for (g = 0; g < LS_GROUPINGS; g++)
        check_label(&f, (ls_grouping)g, "unknown", "none");
    /* A code attribute naming nothing (empty function and namespace) is
     * still the evidence; the name comes from the next fact. */
    f.code_function = "";
    f.code_namespace = "";
    f.route = "/pay";
    check_label(&f, LS_GROUP_FUNCTION, "/pay", "span code attributes");
    check_label(&f, LS_GROUP_ROUTE, "/pay", "span route");
    /* Code attributes: namespace joined, unless qualified. */
    f.code_function = "pay";
    f.code_namespace = "shop";
    check_label(&f, LS_GROUP_FUNCTION, "shop.pay", "span code attributes");
    f.code_function = "Orders::pay";
    check_label(&f, LS_GROUP_FUNCTION, "Orders::pay", "span code attributes");
    /* An empty route is a route: evidence, and the name it gives. */
    f = none();
    f.route = "";
    f.application = "app";
    check_label(&f, LS_GROUP_FUNCTION, "", "span route");
    check_label(&f, LS_GROUP_ROUTE, "", "span route");
    check_label(&f, LS_GROUP_SERVICE, "app", "application_name");
    /* Tags: controller + action by the same rule as code attributes. */
    f = none();
    f.tag_controller = "orders";
    f.tag_action = "pay";
    f.tag_route = "/orders";
    check_label(&f, LS_GROUP_FUNCTION, "orders.pay", "sqlcommenter tags");
    check_label(&f, LS_GROUP_ROUTE, "/orders", "sqlcommenter tags");
    /* The shape chosen over application_name ... */
    f = none();
    f.application = "pgbench";
    f.shape = "UPDATE a";
    f.tx_shape = "UPDATE a; SELECT b";
    f.by_shape = 1;
    check_label(&f, LS_GROUP_FUNCTION, "UPDATE a; SELECT b", "transaction shape");
    check_label(&f, LS_GROUP_APPLICATION, "pgbench", "application_name");
    check_label(&f, LS_GROUP_STATEMENT, "UPDATE a", "statement shape");
    check_label(&f, LS_GROUP_SHAPE, "UPDATE a; SELECT b", "transaction shape");
    /* ... with no transaction shape: the first write's shape names it,
     * while the evidence is the application_name (as in schema 15). */
    f.tx_shape = NULL;
    check_label(&f, LS_GROUP_FUNCTION, "UPDATE a", "application_name");
    /* Not chosen: the application_name. */
    f.tx_shape = "UPDATE a; SELECT b";
    f.by_shape = 0;
    check_label(&f, LS_GROUP_FUNCTION, "pgbench", "application_name");
    /* Service: the span's, then the tag's, then the session's. */
    f.tag_application = "shop";
    check_label(&f, LS_GROUP_SERVICE, "shop", "sqlcommenter tags");
    f.service = "checkout";
    check_label(&f, LS_GROUP_SERVICE, "checkout", "span service");
    CHECK(ls_grouping_name(LS_GROUP_SHAPE) != NULL);
    CHECK_STR(ls_grouping_name(LS_GROUP_FUNCTION), "function");
    CHECK(ls_grouping_name(LS_GROUPINGS) == NULL);
}

/* ---- the same answers as schema 15's SQL ---- */

/* The tx_code view's expressions of schema 15 (store_schema.h at
 * abf0931), over columns of a one-row table c and by_shape ?1. */
#define OLD_BY_SHAPE "?1"
#define OLD_FUNCTION_PATH                                                                   \
    "coalesce(CASE WHEN c.code_function IS NOT NULL THEN "                                  \
    LS_CODE_NAME_SQL("c.code_namespace", "c.code_function") " END,"                          \
    " CASE WHEN c.tag_controller IS NOT NULL THEN "                                         \
    LS_CODE_NAME_SQL("c.tag_controller", "c.tag_action") " END, c.route, c.tag_route,"     \
    " c.root_name, CASE WHEN " OLD_BY_SHAPE " THEN c.tx_shape ELSE c.application END,"      \
    " c.shape, 'unknown')"
#define OLD_ROUTE_SOURCE_TAIL                                                                \
    " WHEN c.route IS NOT NULL THEN 'span route' WHEN c.tag_route IS NOT NULL"              \
    " THEN 'sqlcommenter tags' WHEN c.root_name IS NOT NULL THEN 'span name'"              \
    " WHEN c.application IS NOT NULL THEN 'application_name'"                              \
    " WHEN c.shape IS NOT NULL THEN 'statement shape' ELSE 'none' END"
#define OLD_FUNCTION_SOURCE                                                                  \
    "CASE WHEN c.code_function IS NOT NULL THEN 'span code attributes'"                     \
    " WHEN c.tag_controller IS NOT NULL THEN 'sqlcommenter tags'"                           \
    " WHEN c.route IS NOT NULL THEN 'span route' WHEN c.tag_route IS NOT NULL"              \
    " THEN 'sqlcommenter tags' WHEN c.root_name IS NOT NULL THEN 'span name'"              \
    " WHEN " OLD_BY_SHAPE " AND c.tx_shape IS NOT NULL THEN 'transaction shape'"            \
    " WHEN c.application IS NOT NULL THEN 'application_name'"                              \
    " WHEN c.shape IS NOT NULL THEN 'statement shape' ELSE 'none' END"
#define OLD_ROUTE_PATH                                                                       \
    "coalesce(c.route, c.tag_route, c.root_name, c.application, c.shape, 'unknown')"
#define OLD_ROUTE_SOURCE "CASE" OLD_ROUTE_SOURCE_TAIL
#define OLD_SERVICE_PATH "coalesce(c.service, c.tag_application, c.application, 'unknown')"
#define OLD_SERVICE_SOURCE                                                                   \
    "CASE WHEN c.service IS NOT NULL THEN 'span service'"                                   \
    " WHEN c.tag_application IS NOT NULL THEN 'sqlcommenter tags'"                          \
    " WHEN c.application IS NOT NULL THEN 'application_name' ELSE 'none' END"
static const char old_sql[] =
    "SELECT " OLD_FUNCTION_PATH ", " OLD_FUNCTION_SOURCE ", " OLD_ROUTE_PATH ", "
    OLD_ROUTE_SOURCE ", " OLD_SERVICE_PATH ", " OLD_SERVICE_SOURCE ","
    " coalesce(c.application, 'unknown'),"
    " CASE WHEN c.application IS NOT NULL THEN 'application_name' ELSE 'none' END,"
    " coalesce(c.shape, 'unknown'),"
    " CASE WHEN c.shape IS NOT NULL THEN 'statement shape' ELSE 'none' END,"
    " coalesce(c.tx_shape, 'unknown'),"
    " CASE WHEN c.tx_shape IS NOT NULL THEN 'transaction shape' ELSE 'none' END FROM c";

/* The facts in the order of table c's columns. */
enum { NFACTS = 12 };
static const char *const fact_cols[NFACTS] = {
    "code_function", "code_namespace", "tag_controller", "tag_action", "route",
    "tag_route",     "root_name",      "service",        "tag_application",
    "application",   "shape",          "tx_shape"};

static const char **fact_slot(ls_path_facts *f, int i)
{
    const char **slots[NFACTS] = {&f->code_function, &f->code_namespace, &f->tag_controller,
                                  &f->tag_action,    &f->route,          &f->tag_route,
                                  &f->root_name,     &f->service,        &f->tag_application,
                                  &f->application,   &f->shape,          &f->tx_shape};
    return slots[i];
}

/* Facts of combination k: bit i of k present, with a value; an empty
 * text where bit i of `empty` is set as well. */
static ls_path_facts combination(unsigned k, unsigned empty, int by_shape)
{
    static const char *const values[NFACTS] = {
        "pay", "shop", "orders", "create", "/pay", "/orders", "POST /pay", "checkout",
        "shopapp", "pgbench", "UPDATE a", "UPDATE a; SELECT b"};
    ls_path_facts f = none();
    int i;
    for (i = 0; i < NFACTS; i++)
        if (k & (1u << i))
            *fact_slot(&f, i) = (empty & (1u << i)) ? "" : values[i];
    f.by_shape = by_shape;
    return f;
}

/* Does C decide combination f as the old SQL did? Returns the checks failed. */
static int same_as_sql(sqlite3 *db, sqlite3_stmt *ins, sqlite3_stmt *q, const ls_path_facts *f)
{
    ls_path_facts copy = *f;
    int i, bad = 0;

    sqlite3_exec(db, "DELETE FROM c", NULL, NULL, NULL);
    sqlite3_reset(ins);
    for (i = 0; i < NFACTS; i++) {
        const char *v = *fact_slot(&copy, i);
        if (v)
            sqlite3_bind_text(ins, i + 1, v, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(ins, i + 1);
    }
    if (sqlite3_step(ins) != SQLITE_DONE)
        return 1;
    sqlite3_reset(q);
    sqlite3_bind_int(q, 1, f->by_shape);
    if (sqlite3_step(q) != SQLITE_ROW)
        return 1;
    for (i = 0; i < LS_GROUPINGS; i++) {
        char buf[256];
        ls_path_label l = ls_path_label_of(f, (ls_grouping)i);
        const char *name = name_of(l, buf, sizeof(buf));
        const char *want = (const char *)sqlite3_column_text(q, 2 * i);
        const char *want_src = (const char *)sqlite3_column_text(q, 2 * i + 1);
        if (!name || !want || strcmp(name, want) != 0 || strcmp(l.source, want_src) != 0) {
            fprintf(stderr, "grouping %d: C %s/%s, SQL %s/%s\n", i, name ? name : "(null)",
                    l.source, want ? want : "(null)", want_src);
            bad++;
        }
    }
    return bad;
}

static void test_same_as_sql(void)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *ins = NULL, *q = NULL;
    char ddl[512] = "CREATE TABLE c(";
    unsigned k, n = 1u << NFACTS;
    int i, bad = 0, by_shape;

    for (i = 0; i < NFACTS; i++) {
        strcat(ddl, fact_cols[i]);
        strcat(ddl, i + 1 < NFACTS ? " TEXT, " : " TEXT)");
    }
    CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, ddl, NULL, NULL, NULL) == SQLITE_OK);
    CHECK(sqlite3_prepare_v2(db, "INSERT INTO c VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,"
                             " ?10, ?11, ?12)", -1, &ins, NULL) == SQLITE_OK);
    CHECK(sqlite3_prepare_v2(db, old_sql, -1, &q, NULL) == SQLITE_OK);
    /* every fact present or missing, the shape chosen or not */
    for (by_shape = 0; by_shape <= 1; by_shape++)
        for (k = 0; k < n && bad < 10; k++) {
            ls_path_facts f = combination(k, 0, by_shape);
            bad += same_as_sql(db, ins, q, &f);
        }
    /* every fact present, each subset of them empty texts (no
     * application: the view made an empty one NULL) */
    for (k = 0; k < n && bad < 10; k++) {
        unsigned present = (n - 1) & ~(1u << 9);
        ls_path_facts f = combination(present, k, (int)(k & 1u));
        bad += same_as_sql(db, ins, q, &f);
    }
    CHECK_INT(bad, 0);
    sqlite3_finalize(ins);
    sqlite3_finalize(q);
    sqlite3_close(db);
}

/* A URL path's route (ls_path_url_route): a segment the transaction bound
 * as a parameter is the route's variable, matched whole, quoted or not;
 * the parameters are as csvlog's DETAIL logged them (samples/blind-ts:
 * "$1 = 'home'" of TypeORM's increment on POST /pages/home/hit). */
static void check_route(const char *path, const char *params, const char *want, int replaced)
{
    char out[128];
    CHECK_INT(ls_path_url_route(path, params, out, sizeof(out)), replaced);
    CHECK_STR(out, want);
}

static void test_url_route(void)
{
    char small[8];

    /* no parameters: the id rule alone (digits, UUID), the query dropped */
    check_route("/pages/home/hit", NULL, "/pages/home/hit", 0);
    check_route("/pages/home/hit", "", "/pages/home/hit", 0);
    check_route("/bookings/17?x=1", NULL, "/bookings/{id}", 1);
    /* a bound value is the route's variable; several statements' joined */
    check_route("/pages/home/hit", "$1 = 'home'", "/pages/{id}/hit", 1);
    check_route("/pages/events/hit", "$1 = 'home', $1 = 'events'", "/pages/{id}/hit", 1);
    check_route("/pages/home/hit?ref=x", "$2 = '3', $1 = 'home'", "/pages/{id}/hit", 1);
    /* matched whole: a prefix, a longer value, a different case do not */
    check_route("/pages/home/hit", "$1 = 'hom'", "/pages/home/hit", 0);
    check_route("/pages/home/hit", "$1 = 'homes'", "/pages/home/hit", 0);
    check_route("/pages/home/hit", "$1 = 'Home'", "/pages/home/hit", 0);
    /* unquoted values (numbers) match too; NULL and '' match nothing */
    check_route("/v/x7/a", "$1 = x7", "/v/{id}/a", 1);
    check_route("/v/NULL/a", "$1 = NULL", "/v/NULL/a", 0);
    check_route("/v//a", "$1 = ''", "/v//a", 0);
    /* a doubled quote is one quote */
    check_route("/v/it's/a", "$1 = 'it''s'", "/v/{id}/a", 1);
    /* both rules: a bound slug and a numeric id */
    check_route("/pages/home/hit/42", "$1 = 'home'", "/pages/{id}/hit/{id}", 2);
    /* not a parameter list: no '$n = ' */
    check_route("/pages/home/hit", "home", "/pages/home/hit", 0);
    /* cut to fit, always terminated */
    ls_path_url_route("/pages/home/hit", "$1 = 'home'", small, sizeof(small));
    CHECK_STR(small, "/pages/");
}

int main(void)
{
    test_boundaries();
    test_url_route();
    test_same_as_sql();
    return TEST_REPORT();
}
