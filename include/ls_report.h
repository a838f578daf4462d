/*
 * ls_report.h — reports. The report model is a cJSON tree built from the
 * store by ls_report_build() (reports/model.c); each output format renders
 * that one model, so every format carries the same facts. The JSON output
 * is the model itself; its shape is documented in docs/report-json.md.
 * The HTML and Markdown tables are declared once, as columns of the model,
 * in reports/sections.c.
 */
#ifndef LS_REPORT_H
#define LS_REPORT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "ls_store.h"

#define LS_REPORT_SCHEMA "lockspan-report"
#define LS_REPORT_VERSION 2

typedef struct ls_report_opts {
    const char *title;   /* NULL = "Lock contention report" */
    int top;             /* rows per ranked section (hot rows, root blockers) */
    int max_waits;       /* waits listed one by one; totals stay exact */
    int max_deadlocks;   /* deadlocks listed (0 = 100); model.c's cut says when cut */
    int max_errors;      /* errors listed (0 = 200) */
    const char *generated_at; /* fixed text for reproducible output, or NULL */
    const char *tz;       /* zone of the HTML report's times (tz database name), NULL = UTC */
    const char *group_by; /* code paths by: function (default), route, service,
                             application, statement, shape */
    /* Filters (issue 6 item 5); unset = no filter. They narrow the waits,
     * errors and deadlocks the model holds, and the summary names them. */
    int64_t since;        /* LS_TS_NONE or 0 = open; waits ending before it go */
    int64_t until;        /* LS_TS_NONE or 0 = open; waits starting after it go */
    const char *relation; /* relation name of the waited-for row */
    const char *database; /* database of the waiting (or erring) session */
    const char *code_path; /* waits whose waiter's or holder's code path has this name */
    /* --trace-id: requests to show one by one (trace_requests), whatever
     * the filters; each 32 lowercase hex digits, as the store keeps them. */
    const char *const *trace_ids;
    int ntrace_ids;
    /* The analysis of the report's scope (window and grouping), run by
     * ls_report_build() before it reads anything and left after: the CLI
     * passes ls_correlate_scope_enter and _leave. NULL: none, and the
     * report reads the store as correlated (the whole log's findings,
     * code-path rankings and queue buckets of the default grouping). */
    int (*scope_enter)(ls_store *s, const char *group_by, int64_t since, int64_t until);
    int (*scope_leave)(ls_store *s);
} ls_report_opts;

/* Build the model. *out is owned by the caller: cJSON_Delete(). */
int ls_report_build(ls_store *s, const ls_report_opts *opts, cJSON **out);

int ls_report_write_json(const cJSON *model, FILE *f);
/* Markdown cut to fit a GitHub comment (65,536 characters), each cut list
 * saying what it left out; _full: everything the model holds (--full). */
int ls_report_write_markdown(const cJSON *model, FILE *f);
int ls_report_write_markdown_full(const cJSON *model, FILE *f);
/* One self-contained HTML file: inline CSS and SVG, no script, no network. */
int ls_report_write_html(const cJSON *model, FILE *f);

/*
 * --per-day DIR (calendar.c): one HTML report per day of the store's
 * events (midnight to midnight in opts->tz, else UTC), each built with
 * opts narrowed to its day as --since/--until narrow a report, into
 * DIR/YYYY-MM-DD.html (DIR made if missing), and DIR/index.html listing
 * every day from the first event's to the last's with its figures,
 * linking those that had any. *written: the day reports written. On
 * failure errbuf says why (or is empty when the store's error was
 * reported).
 */
int ls_report_write_days(ls_store *s, const ls_report_opts *opts, const char *dir, int *written,
                         char *errbuf, size_t errlen);

/* ---- escaping (reports/escape.c): every log-derived string passes here ---- */

/*
 * Copy `s` as valid UTF-8: invalid sequences become U+FFFD, control
 * characters other than \n and \t become U+FFFD too. Returns a malloc'ed
 * string or NULL on memory exhaustion.
 */
char *ls_utf8_clean(const char *s);
/* The same for a file name: control characters are kept (the JSON report
 * writes them as \u escapes, the others show them escaped), only invalid
 * sequences become U+FFFD. */
char *ls_utf8_clean_name(const char *s);

/* Markdown table cell: inert text on one line, at most `max` characters. */
void ls_md_cell(FILE *f, const char *s, size_t max);
/* Markdown text of a file name: as ls_md_cell, but each control character
 * (a newline too) is shown as a code escape (`\n`, `\x1b`), not folded. */
void ls_md_name(FILE *f, const char *s, size_t max);
/* Markdown fenced code block that no content can close early. */
void ls_md_code_block(FILE *f, const char *lang, const char *s);

/*
 * HTML text or a double- or single-quoted attribute value (the one routine
 * for both, SVG <text> and <title> included): & < > " ' become entities,
 * control characters other than \n and \t and invalid UTF-8 become U+FFFD.
 * At most `max` characters (0 = no limit), then "…".
 */
void ls_html_escape(FILE *f, const char *s, size_t max);

/*
 * A mermaid label, to be written between double quotes by the caller (or
 * as a gantt task name): ASCII letters, digits, space and . , _ - + / = ?
 * @ pass; every other character becomes a #NNN; entity code (mermaid
 * decodes them to text), whitespace runs become one space, control
 * characters are dropped, and the word "click" has its c encoded so no
 * text reads as a directive. At most `max` characters, then "...".
 */
void ls_mermaid_label(FILE *f, const char *s, size_t max);

#endif
