/*
 * ls_report.h — reports. The report model is a cJSON tree built from the
 * store by ls_report_build() (reports/model.c); each output format renders
 * that one model, so every format carries the same facts. The JSON output
 * is the model itself; its shape is documented in docs/report-json.md.
 */
#ifndef LS_REPORT_H
#define LS_REPORT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "ls_store.h"

#define LS_REPORT_SCHEMA "lockspan-report"
#define LS_REPORT_VERSION 1

typedef struct ls_report_opts {
    const char *title;   /* NULL = "Lock contention report" */
    int top;             /* rows per ranked section (hot rows, root blockers) */
    int max_waits;       /* waits listed one by one; totals stay exact */
    const char *generated_at; /* fixed text for reproducible output, or NULL */
} ls_report_opts;

/* Build the model. *out is owned by the caller: cJSON_Delete(). */
int ls_report_build(ls_store *s, const ls_report_opts *opts, cJSON **out);

int ls_report_write_json(const cJSON *model, FILE *f);
int ls_report_write_markdown(const cJSON *model, FILE *f);

/* ---- escaping (reports/escape.c): every log-derived string passes here ---- */

/*
 * Copy `s` as valid UTF-8: invalid sequences become U+FFFD, control
 * characters other than \n and \t become U+FFFD too. Returns a malloc'ed
 * string or NULL on memory exhaustion.
 */
char *ls_utf8_clean(const char *s);

/* Markdown table cell: inert text on one line, at most `max` characters. */
void ls_md_cell(FILE *f, const char *s, size_t max);
/* Markdown fenced code block that no content can close early. */
void ls_md_code_block(FILE *f, const char *lang, const char *s);

#endif
