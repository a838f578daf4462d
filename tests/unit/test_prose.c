/*
 * test_prose.c — reports/prose.c's sentences that say what the log cannot
 * tell (issue 34, samples/blind-pl): a root blocker known by its pid
 * alone, and hot rows known only by ctids that may be one row's versions.
 * Written as Markdown into memory from a model built here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../reports/prose.h"
#include "ls_logcover.h"
#include "ls_test.h"

static void plain(FILE *f, const char *s, size_t max)
{
    fprintf(f, "%.*s", (int)max, s ? s : "");
}

/* What `fn` writes for `o`, as Markdown (owned). */
static char *written(void (*fn)(const ls_writer *, const cJSON *), const cJSON *o)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ls_writer w;
    memset(&w, 0, sizeof(w));
    w.f = f;
    w.esc = plain;
    w.in = LS_IN_MD;
    fn(&w, o);
    fclose(f);
    return buf;
}

static cJSON *root(double xid, int tx, const char *rows)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddNumberToObject(r, "pid", 9132);
    if (xid > 0)
        cJSON_AddNumberToObject(r, "xid", xid);
    else
        cJSON_AddNullToObject(r, "xid");
    if (tx)
        cJSON_AddObjectToObject(r, "transaction");
    else
        cJSON_AddNullToObject(r, "transaction");
    cJSON_AddStringToObject(r, "rows", rows);
    return r;
}

static void test_root_tx_unknown(void)
{
    struct {
        double xid;
        int tx;
        const char *rows;
        int said;
    } c[] = {
        /* pid alone, several rows: they may be several transactions' */
        {0, 0, "accounts ctid (0,31), warehouses ctid (0,78)", 1},
        /* one row: nothing to say */
        {0, 0, "warehouses ctid (0,78)", 0},
        /* an xid named: one transaction (ls_root_apart_xid) */
        {1094, 0, "accounts ctid (0,31), warehouses ctid (0,78)", 0},
        /* its transaction known */
        {0, 1, "accounts id=1, accounts id=2", 0},
    };
    size_t i;
    for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        cJSON *r = root(c[i].xid, c[i].tx, c[i].rows);
        char *s = written(ls_write_root_tx_unknown, r);
        CHECK_INT(strstr(s, "Transactions unknown") != NULL, c[i].said);
        free(s);
        cJSON_Delete(r);
    }
}

static void add_row(cJSON *rows, const char *rel, const char *key, const char *grouped_by)
{
    cJSON *h = cJSON_CreateObject();
    cJSON_AddStringToObject(h, "relation", rel);
    cJSON_AddStringToObject(h, "row_key", key);
    cJSON_AddStringToObject(h, "grouped_by", grouped_by);
    cJSON_AddItemToArray(rows, h);
}

static void test_ctid_versions(void)
{
    const char *maybe = "ctid only: bind parameters not logged; " LS_ROW_MAY_BE_VERSION;
    cJSON *rows = cJSON_CreateArray();
    char *s;
    /* samples/blind-pl's hot rows: warehouses' three ctids, one keyed row
     * of another relation between, and one accounts ctid alone */
    add_row(rows, "warehouses", "ctid (0,13)", maybe);
    add_row(rows, "pages", "id=1", "bind parameter");
    add_row(rows, "warehouses", "ctid (0,15)", maybe);
    add_row(rows, "warehouses", "ctid (0,78)", maybe);
    add_row(rows, "accounts", "ctid (0,31)", maybe);
    CHECK_INT(ls_hot_rows_may_join(rows), 1);
    s = written(ls_write_ctid_versions, rows);
    CHECK(strstr(s, "warehouses: ctid (0,13), ctid (0,15) and ctid (0,78) are rows known only by "
                    "their ctids, and may be versions of one row") != NULL);
    /* once a relation, and not for a relation with one such row listed */
    CHECK(strstr(strstr(s, "warehouses:") + 1, "warehouses:") == NULL);
    CHECK(strstr(s, "accounts") == NULL);
    free(s);
    cJSON_Delete(rows);

    /* keyed rows, or ctid rows without the note: nothing */
    rows = cJSON_CreateArray();
    add_row(rows, "warehouses", "id=1", "bind parameter");
    add_row(rows, "warehouses", "ctid (0,2)", "ctid only: bind parameters not logged");
    CHECK_INT(ls_hot_rows_may_join(rows), 0);
    s = written(ls_write_ctid_versions, rows);
    CHECK_STR(s, "");
    free(s);
    cJSON_Delete(rows);
}

int main(void)
{
    test_root_tx_unknown();
    test_ctid_versions();
    return TEST_REPORT();
}
