/*
 * test_sections.c — the section table (reports/sections.c) drives the HTML
 * and Markdown tables: for every table, a model holding one row at the
 * table's path is rendered in both formats, and each format must show
 * exactly the table's columns for it, in the table's order, with the row's
 * log text escaped. A column added to the table appears in every format
 * that declares it; one the renderers ignored, reordered or renamed fails
 * here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_report.h"
#include "ls_test.h"
#include "../reports/sections.h"

/* Log text with markup and table syntax in it: must come out inert. */
#define HOSTILE "<b>x</b>|y"
#define NUMBER 1234

static int is_number_kind(ls_cell k)
{
    return k == LS_CELL_INT || k == LS_CELL_MS || k == LS_CELL_MS0 || k == LS_CELL_NUM1 ||
           k == LS_CELL_BYTES || k == LS_CELL_PID || k == LS_CELL_HOLD;
}

/* One row with a value for every column of t. */
static cJSON *row_for(const ls_table *t)
{
    cJSON *o = cJSON_CreateObject(), *a, *x;
    size_t i;
    for (i = 0; i < t->ncols; i++) {
        const ls_column *c = &t->cols[i];
        char key[96];
        size_t n = strlen(c->key);
        if (cJSON_GetObjectItemCaseSensitive(o, c->key))
            continue;
        if (is_number_kind(c->kind)) {
            cJSON_AddNumberToObject(o, c->key, NUMBER);
        } else if (c->kind == LS_CELL_BOOL) {
            cJSON_AddTrueToObject(o, c->key);
        } else if (c->kind == LS_CELL_TIME) {
            cJSON_AddStringToObject(o, c->key, "2026-12-02T11:45:04.435823Z");
        } else if (c->kind == LS_CELL_PIDS || c->kind == LS_CELL_PARTS) {
            a = cJSON_AddArrayToObject(o, c->key);
            x = cJSON_CreateObject();
            cJSON_AddNumberToObject(x, "pid", NUMBER);
            cJSON_AddNumberToObject(x, "ms", NUMBER);
            cJSON_AddStringToObject(x, "code_path", HOSTILE);
            cJSON_AddStringToObject(x, "name", HOSTILE);
            cJSON_AddItemToArray(a, x);
        } else {
            cJSON_AddStringToObject(o, c->key, HOSTILE);
        }
        if (c->kind == LS_CELL_PID && n >= 3) {
            snprintf(key, sizeof(key), "%.*scode_path", (int)(n - 3), c->key);
            cJSON_AddStringToObject(o, key, HOSTILE);
        }
    }
    return o;
}

/* A model with `row` at `path` ("a[].b.c": arrays of one object where
 * "[]" says so; the last step is an array holding the row). */
static cJSON *model_with(const char *path, cJSON *row)
{
    cJSON *m = cJSON_CreateObject(), *at = m;
    char buf[128], *step, *save = NULL;
    snprintf(buf, sizeof(buf), "%s", path);
    cJSON_AddStringToObject(m, "title", "t");
    cJSON_AddStringToObject(m, "generator", "g");
    for (step = strtok_r(buf, ".", &save); step; step = strtok_r(NULL, ".", &save)) {
        size_t n = strlen(step);
        int last = save == NULL || *save == '\0';
        if (last) {
            cJSON_AddItemToArray(cJSON_AddArrayToObject(at, step), row);
        } else if (n > 2 && strcmp(step + n - 2, "[]") == 0) {
            cJSON *el = cJSON_CreateObject();
            step[n - 2] = '\0';
            cJSON_AddItemToArray(cJSON_AddArrayToObject(at, step), el);
            at = el;
        } else {
            at = cJSON_AddObjectToObject(at, step);
        }
    }
    /* the lock-order table stands under the code-path ranking */
    if (!cJSON_GetObjectItemCaseSensitive(m, "code_paths")) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "code_path", "p");
        cJSON_AddItemToArray(cJSON_AddArrayToObject(m, "code_paths"), p);
    }
    return m;
}

static char *render(const cJSON *m, int (*write)(const cJSON *, FILE *))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    write(m, f);
    fclose(f);
    return buf;
}

/* The header row each format must write for t (Markdown: up to the
 * start of its alignment line). */
static void expected_heads(const ls_table *t, char *html, char *md, size_t size)
{
    size_t i, h = 0, k = 0;
    h += (size_t)snprintf(html + h, size - h, "<tr>");
    k += (size_t)snprintf(md + k, size - k, "|");
    for (i = 0; i < t->ncols; i++) {
        const ls_column *c = &t->cols[i];
        if (c->in & LS_IN_HTML)
            h += (size_t)snprintf(html + h, size - h, "<th%s>%s</th>",
                                  ls_column_numeric(c, LS_IN_HTML) ? " class=\"n\"" : "",
                                  c->head);
        if (c->in & LS_IN_MD)
            k += (size_t)snprintf(md + k, size - k, " %s |", c->head);
    }
    snprintf(html + h, size - h, "</tr>");
    snprintf(md + k, size - k, "\n|---");
}

/* Cells in the first row after the header at `head`: "<td" up to
 * "</tr>" in HTML; in Markdown, the unescaped "|" of the line after the
 * alignment line, less one. */
static int html_cells(const char *head)
{
    const char *row = head ? strstr(head, "<tr><td") : NULL, *end, *p;
    int n = 0;
    if (!row || !(end = strstr(row, "</tr>")))
        return -1;
    for (p = row; (p = strstr(p, "<td")) && p < end; p++)
        n++;
    return n;
}

static int md_cells(const char *head)
{
    const char *p = head ? strchr(head, '\n') : NULL;
    int n = -1;
    if (!p || !(p = strchr(p + 1, '\n')))
        return -1;
    for (p++; *p && *p != '\n'; p++)
        n += *p == '|' && p[-1] != '\\';
    return n;
}

static size_t count_in(const ls_table *t, unsigned in)
{
    size_t i, n = 0;
    for (i = 0; i < t->ncols; i++)
        n += (t->cols[i].in & in) != 0;
    return n;
}

static int has_md_columns(const ls_table *t)
{
    size_t i;
    for (i = 0; i < t->ncols; i++)
        if (t->cols[i].in & LS_IN_MD)
            return 1;
    return 0;
}

static void test_table_shapes(void)
{
    size_t n = 0;
    const ls_table *const *t;
    for (t = ls_tables; *t; t++, n++) {
        size_t i;
        CHECK((*t)->name && (*t)->name[0]);
        CHECK((*t)->path && (*t)->path[0]);
        CHECK((*t)->ncols > 0);
        for (i = 0; i < (*t)->ncols; i++) {
            const ls_column *c = &(*t)->cols[i];
            CHECK(c->head && c->head[0]);
            CHECK(c->key && c->key[0]);
            CHECK(c->in != 0 && (c->in & ~LS_IN_ALL) == 0);
        }
    }
    CHECK_INT(n, 23);
}

/* Every table in both formats: its header row exactly, its text escaped. */
static void test_tables_render(void)
{
    const ls_table *const *t;
    for (t = ls_tables; *t; t++) {
        char want_html[4096], want_md[4096];
        cJSON *m = model_with((*t)->path, row_for(*t));
        char *html = render(m, ls_report_write_html);
        char *md = render(m, ls_report_write_markdown_full);
        expected_heads(*t, want_html, want_md, sizeof(want_html));
        if (!html || !strstr(html, want_html))
            fprintf(stderr, "%s: HTML has no header row %s\n", (*t)->name, want_html);
        CHECK(html && strstr(html, want_html));
        CHECK_INT(html_cells(html ? strstr(html, want_html) : NULL), count_in(*t, LS_IN_HTML));
        if (has_md_columns(*t)) {
            if (!md || !strstr(md, want_md))
                fprintf(stderr, "%s: Markdown has no header row %s\n", (*t)->name, want_md);
            CHECK(md && strstr(md, want_md));
            CHECK_INT(md_cells(md ? strstr(md, want_md) : NULL), count_in(*t, LS_IN_MD));
        }
        /* the hostile text is in the model; no format lets it through */
        CHECK(html && !strstr(html, "<b>x"));
        /* (a table the Markdown does not show may be there as a fenced
         * code block, where raw text is inert) */
        CHECK(md && (!has_md_columns(*t) || (!strstr(md, "<b>x") && !strstr(md, "x</b>|y"))));
        free(html);
        free(md);
        cJSON_Delete(m);
    }
}

/* Markdown alignment follows the kind: numbers and pids to the right. */
static void test_md_alignment(void)
{
    cJSON *m = model_with(ls_tab_errors.path, row_for(&ls_tab_errors));
    char *md = render(m, ls_report_write_markdown_full);
    CHECK(md && strstr(md, "\n|---|---:|---|---|---|---|---|---:|\n"));
    free(md);
    cJSON_Delete(m);
}

/* A hot row none of whose waits is in the model (the model is trusted
 * in shape, not in completeness): its timeline says so. It drew an axis
 * from year -144169 to 148108, its tick arithmetic overflowing int64. */
static void test_timeline_without_waits(void)
{
    cJSON *m = model_with("hot_rows", row_for(&ls_tab_hot_rows));
    char *html = render(m, ls_report_write_html);
    CHECK(html && strstr(html, "None of this row's waits is in the report to draw."));
    CHECK(html && !strstr(html, "-144169"));
    free(html);
    cJSON_Delete(m);
}

int main(void)
{
    test_table_shapes();
    test_tables_render();
    test_md_alignment();
    test_timeline_without_waits();
    printf("%d passed, %d failed\n", ls_t_passed, ls_t_failed);
    return ls_t_failed != 0;
}
