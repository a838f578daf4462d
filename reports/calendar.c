/*
 * calendar.c — one report per day and an index page linking them
 * (`lockspan report --db nightly.db --per-day DIR`, pgBadger's incremental
 * calendar): the store's days (in the report's zone, --tz, else UTC) from
 * its first event to its last, each reported as --since DAY --until
 * NEXT_DAY would report it, into DIR/YYYY-MM-DD.html; DIR/index.html lists
 * every day with its figures and links the days that had any.
 *
 * Each file is written as any report is (ls_outfile: a temporary file
 * renamed over the old one), so a failure leaves the previous calendar.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "ls_common.h"
#include "ls_columns.h"
#include "ls_outfile.h"
#include "ls_report.h"
#include "render_int.h"

/* A store of more days than this is refused: say --since/--until. */
#define DAYS_MAX 1000
#define DAY_LEN 11 /* "YYYY-MM-DD" */
#define US_PER_S INT64_C(1000000)
#define DIR_MODE 0777 /* less the umask, as mkdir(1) */

typedef struct day {
    char name[DAY_LEN];
    int64_t start, end; /* [start, end) in store time (µs) */
    cJSON *model;       /* NULL: nothing happened that day */
} day;

#define SPAN_COLS(X, Q) X(Q, first, "min(t)") X(Q, last, "max(t)")
LS_COLUMNS(sq, SPAN_COLS);

/* The first and last event of the store (statements, waits, errors), µs;
 * 1 when the store has none. */
static int store_span(ls_store *s, int64_t *first, int64_t *last)
{
    static const char sql[] =
        "SELECT " LS_SELECT_LIST(sq, SPAN_COLS) " FROM (SELECT min(start_ts) AS t FROM stmt_rows"
        " UNION ALL SELECT max(start_ts) FROM stmt_rows"
        " UNION ALL SELECT min(start_ts) FROM lock_wait_rows"
        " UNION ALL SELECT max(coalesce(end_ts, start_ts)) FROM lock_wait_rows"
        " UNION ALL SELECT min(ts) FROM errors UNION ALL SELECT max(ts) FROM errors)";
    ls_stmt *st;
    int rc;
    if ((rc = ls_store_prepare(s, sql, &st)) != 0)
        return rc;
    rc = ls_stmt_step(st);
    if (rc == 1 && !ls_stmt_isnull(st, sq_first)) {
        *first = ls_stmt_int64(st, sq_first);
        *last = ls_stmt_int64(st, sq_last);
        rc = 0;
    } else if (rc >= 0) {
        rc = 1;
    }
    ls_stmt_finalize(st);
    return rc;
}

/* The days from first to last in the zone TZ names (set by the caller):
 * midnight to midnight, whatever the day's length (daylight saving). */
static int list_days(int64_t first, int64_t last, day *days, int *n)
{
    time_t t = (time_t)(first / US_PER_S - (first % US_PER_S < 0));
    struct tm tm;
    *n = 0;
    if (!localtime_r(&t, &tm))
        return LS_ERR;
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    tm.tm_isdst = -1;
    for (;;) {
        struct tm next = tm;
        time_t a = mktime(&tm), b;
        if (a == (time_t)-1 || (int64_t)a * US_PER_S > last)
            break;
        if (*n == DAYS_MAX)
            return LS_EUSAGE;
        next.tm_mday++;
        next.tm_isdst = -1;
        b = mktime(&next);
        if (b == (time_t)-1 || strftime(days[*n].name, DAY_LEN, "%Y-%m-%d", &tm) == 0)
            return LS_ERR;
        days[*n].start = (int64_t)a * US_PER_S;
        days[*n].end = (int64_t)b * US_PER_S;
        days[*n].model = NULL;
        (*n)++;
        tm = next;
    }
    return 0;
}

static double summary_num(const cJSON *model, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(model, "summary"), key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* Did anything the reports count happen in the model's window? */
static int has_events(const cJSON *model)
{
    static const char *const keys[] = {"sessions",       "statements",
                                       "waits",          "deadlocks",
                                       "lock_timeouts",  "statement_timeouts",
                                       "serialization_failures"};
    size_t i;
    for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (summary_num(model, keys[i]) > 0)
            return 1;
    return 0;
}

/* Build the day's model: opts narrowed to the day (and to opts' own window). */
static int build_day(ls_store *s, const ls_report_opts *opts, day *d, char *title, size_t n)
{
    ls_report_opts o = *opts;
    int64_t since = d->start, until = d->end - 1;
    if (opts->since != 0 && opts->since != LS_TS_NONE && opts->since > since)
        since = opts->since;
    if (opts->until != 0 && opts->until != LS_TS_NONE && opts->until < until)
        until = opts->until;
    if (since > until)
        return 0;
    snprintf(title, n, "%s, %s", opts->title ? opts->title : "Lock contention report", d->name);
    o.title = title;
    o.since = since;
    o.until = until;
    return ls_report_build(s, &o, &d->model);
}

/* Write one file DIR/NAME with `write`; errbuf says why not. */
static int write_file(const char *dir, const char *name,
                      int (*write)(const void *arg, FILE *f), const void *arg, char *errbuf,
                      size_t errlen)
{
    char path[LS_OUTFILE_PATH_MAX];
    ls_outfile o;
    FILE *f;
    int rc, werr = 0;
    if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path)) {
        snprintf(errbuf, errlen, "%s/%s: path too long", dir, name);
        return LS_EUSAGE;
    }
    if (ls_outfile_open(&o, path, 1, errbuf, errlen) != 0)
        return LS_EIO;
    if (!(f = ls_outfile_stream(&o))) {
        snprintf(errbuf, errlen, "%s: out of memory", path);
        ls_outfile_abort(&o);
        return LS_ENOMEM;
    }
    errno = 0;
    if ((rc = write(arg, f)) != 0)
        werr = errno ? errno : EIO;
    if (ls_outfile_commit(&o, werr, errbuf, errlen) != 0)
        return LS_EIO;
    return rc;
}

static int write_day(const void *arg, FILE *f)
{
    return ls_report_write_html(arg, f);
}

typedef struct index_arg {
    const day *days;
    int n;
    const ls_report_opts *opts;
} index_arg;

/* One day's line of the index: its link and figures, or that it had none. */
static void index_row(FILE *f, const day *d)
{
    char buf[LS_DURATION_LEN];
    const cJSON *story = cJSON_GetObjectItemCaseSensitive(d->model, "story");
    const char *path = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(story, "code_path"));

    if (!d->model || !has_events(d->model)) {
        fprintf(f, "<tr class=\"none\"><td>%s</td><td colspan=\"6\">nothing logged</td></tr>\n",
                d->name);
        return;
    }
    fprintf(f, "<tr><td><a href=\"%s.html\">%s</a></td><td class=\"n\">%.0f</td>"
               "<td class=\"n\">%s</td>",
            d->name, d->name, summary_num(d->model, "waits"),
            ls_fmt_duration(buf, sizeof(buf), summary_num(d->model, "total_wait_ms")));
    fprintf(f, "<td class=\"n\">%s</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td><td>",
            ls_fmt_duration(buf, sizeof(buf), summary_num(d->model, "max_wait_ms")),
            summary_num(d->model, "deadlocks"), summary_num(d->model, "statements"));
    if (path)
        ls_html_escape(f, path, 120);
    else
        fputs("—", f);
    fputs("</td></tr>\n", f);
}

static int write_index(const void *arg, FILE *f)
{
    const index_arg *a = arg;
    const char *title = a->opts->title ? a->opts->title : "Lock contention report";
    int i;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'\">\n<title>",
          f);
    ls_html_escape(f, title, 200);
    fputs(": days</title>\n<style>\n:root{color-scheme:light dark}body{font:14px/1.45 "
          "system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:0 16px 48px}"
          "table{border-collapse:collapse}th,td{border:1px solid #8884;padding:3px 8px;"
          "text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}"
          "tr.none td{color:#888}\n</style>\n</head>\n<body>\n<h1>",
          f);
    ls_html_escape(f, title, 200);
    fprintf(f, ": %d day%s</h1>\n<p>One report per day", a->n, a->n == 1 ? "" : "s");
    fputs(a->opts->tz ? " (days in " : " (days in UTC", f);
    if (a->opts->tz)
        ls_html_escape(f, a->opts->tz, 64);
    fputs("), each filtered to its day as <code>--since</code> and <code>--until</code> "
          "would: a wait that spans midnight is in both days.</p>\n<table>\n<thead><tr>"
          "<th>Day</th><th>Lock waits</th><th>Total wait</th><th>Longest wait</th>"
          "<th>Deadlocks</th><th>Statements</th><th>Holds hot rows longest</th></tr></thead>\n"
          "<tbody>\n",
          f);
    for (i = 0; i < a->n; i++)
        index_row(f, &a->days[i]);
    fputs("</tbody>\n</table>\n</body>\n</html>\n", f);
    return ferror(f) ? LS_EIO : 0;
}

int ls_report_write_days(ls_store *s, const ls_report_opts *opts, const char *dir, int *written,
                         char *errbuf, size_t errlen)
{
    int64_t first, last;
    day *days = NULL;
    int n = 0, i, rc;
    char *saved, title[256];

    *written = 0;
    errbuf[0] = '\0';
    if (mkdir(dir, DIR_MODE) != 0 && errno != EEXIST) {
        snprintf(errbuf, errlen, "%s: %s", dir, strerror(errno));
        return LS_EIO;
    }
    /* the statements' times as the report reads them (ls_store_stmt_views) */
    if ((rc = ls_store_stmt_views(s, 1)) == 0) {
        rc = store_span(s, &first, &last);
        if (ls_store_stmt_views(s, 0) != 0 && rc == 0)
            rc = LS_ESTORE;
    }
    if (rc != 0) {
        if (rc == 1)
            snprintf(errbuf, errlen, "the store holds no event");
        return rc == 1 ? LS_ERR : rc;
    }
    if (!(days = calloc(DAYS_MAX, sizeof(*days))))
        return LS_ENOMEM;
    saved = ls_tz_enter(opts->tz);
    rc = list_days(first, last, days, &n);
    ls_tz_leave(saved);
    if (rc == LS_EUSAGE)
        snprintf(errbuf, errlen, "the store spans more than %d days: narrow it with --since "
                                 "and --until", DAYS_MAX);
    for (i = 0; i < n && rc == 0; i++) {
        if ((rc = build_day(s, opts, &days[i], title, sizeof(title))) != 0)
            break;
        if (!days[i].model || !has_events(days[i].model))
            continue;
        snprintf(title, sizeof(title), "%s.html", days[i].name);
        if ((rc = write_file(dir, title, write_day, days[i].model, errbuf, errlen)) == 0)
            (*written)++;
    }
    if (rc == 0) {
        index_arg a = {days, n, opts};
        rc = write_file(dir, "index.html", write_index, &a, errbuf, errlen);
    }
    for (i = 0; i < n; i++)
        cJSON_Delete(days[i].model);
    free(days);
    return rc;
}
