/*
 * html.c — the HTML report: one self-contained file rendered from the
 * report model. Inline CSS and inline SVG only: no script, no external
 * resource, no URL built from log text, so it opens from disk, prints,
 * and has nothing that could run.
 *
 * Every string taken from the model goes through ls_html_escape() (text,
 * attribute values, SVG <text> and <title> alike). What we print ourselves
 * is numbers, coordinates, section ids and class names from the static
 * tables below; log text never reaches a style, a class, an id or a URL.
 *
 * The report is a list of panels (a static table, as GoAccess does it):
 * a new section of the model adds one row and one render function.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ls_common.h"
#include "ls_report.h"
#include "render_int.h"
#include "prose.h"
#include "sections.h"

/* Lanes per timeline and timelines per report: a large incident stays a
 * file of reasonable size; what is left out is counted and said. */
#define TL_MAX_LANES 30
#define TL_MAX_TIMELINES 10
#define DL_MAX_NODES 12
/* Table rows shown open, and written at all (the rest folded, then counted). */
#define TABLE_OPEN 10
#define TABLE_CAP 100
/* Deadlocks and root blockers shown open; the rest folded. */
#define FOLD_ARTICLES 5
/* A statement longer than CODE_FOLD characters is folded under its first
 * CODE_HEAD characters and its length; a list cell (LS_CELL_LIST) of more
 * than one item under its count. The page stays short; print unfolds. */
#define CODE_FOLD 160
#define CODE_HEAD 100
/* Longest piece of text put_words() copies to escape it (bytes). */
#define LS_PIECE 2048
/* Words of up to LONG_WORD characters are never broken inside; a cell with
 * a longer one may break it anywhere (AccessExclusiveLock is 19). */
#define LONG_WORD 24

/* ---- model access ---- */

/* Parse a model time ("2026-12-02T11:45:04.435823Z"); 0 on success. */
static int time_of(const cJSON *o, const char *key, int64_t *out)
{
    const char *s = m_str(o, key);
    ls_ts t;
    if (!s || ls_ts_parse(&t, s, strlen(s)) != 0)
        return -1;
    *out = t;
    return 0;
}

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Escaped text, or an em dash for a missing value. */
static void text(FILE *f, const char *s, size_t max)
{
    if (s)
        ls_html_escape(f, s, max);
    else
        fputs("—", f);
}

/* Characters (UTF-8 code points) in the first n bytes of s, as
 * ls_html_escape counts them. */
static size_t chars_of_n(const char *s, size_t n)
{
    size_t i, k = 0;
    for (i = 0; s && i < n && s[i]; i++)
        k += ((unsigned char)s[i] & 0xC0) != 0x80;
    return k;
}

/* ---- outcomes: a class per known outcome, never the log's own text ---- */

static const struct outcome_style {
    const char *name;
    const char *cls;
    const char *label;
} outcomes[] = {
    {"acquired", "o-acq", "acquired"},
    {"deadlock", "o-dl", "deadlock victim"},
    {"lock_timeout", "o-lto", "lock timeout"},
    {"statement_timeout", "o-sto", "statement timeout"},
    {"serialization_failure", "o-ser", "serialization failure"},
    {"canceled", "o-can", "canceled"},
    {"failed", "o-can", "failed"},
    {NULL, "o-unk", "unknown"},
};

static const struct outcome_style *outcome_of(const char *name)
{
    size_t i;
    for (i = 0; outcomes[i].name; i++)
        if (name && strcmp(name, outcomes[i].name) == 0)
            return &outcomes[i];
    return &outcomes[i];
}

/* ---- tables: the columns are in sections.c, shared with markdown.c ---- */

/*
 * The one timestamp format of the report: "2026-12-02 11:45:04.435", to
 * the millisecond a reader compares, in the zone the page header names
 * once: UTC, or --tz ZONE. ls_report_write_html() sets TZ to that zone
 * for the time it writes, so localtime_r() applies the zone's own rules
 * (daylight saving included) to each time.
 * A model time that does not parse is shown escaped as it is.
 */
static void put_ts(FILE *f, ls_ts t)
{
    int64_t ms = t / 1000 - (t % 1000 < 0 ? 1 : 0);
    time_t sec = (time_t)(ms / 1000 - (ms % 1000 < 0 ? 1 : 0));
    struct tm tm;
    char buf[32];
    if (!localtime_r(&sec, &tm) || strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm) == 0) {
        fputs("—", f);
        return;
    }
    fprintf(f, "%s.%03d", buf, (int)(((ms % 1000) + 1000) % 1000));
}

static void put_time(FILE *f, const char *s)
{
    ls_ts t;
    if (s && ls_ts_parse(&t, s, strlen(s)) == 0)
        put_ts(f, t);
    else
        text(f, s, 40);
}

/* A duration as people write it ("78.1 s"), or an em dash. */
static void put_ms(FILE *f, double ms)
{
    char buf[LS_DURATION_LEN];
    fputs(ls_fmt_duration(buf, sizeof(buf), ms), f);
}

/* Is a part of word (n bytes) between dots longer than LONG_WORD
 * characters? */
static int has_long_part(const char *word, size_t n)
{
    size_t i, run = 0;
    for (i = 0; i < n; i++) {
        if (word[i] == '.')
            run = 0;
        else if (((unsigned char)word[i] & 0xC0) != 0x80 && ++run > LONG_WORD)
            return 1;
    }
    return 0;
}

/* The n bytes at s escaped, within *left characters; 0 when the budget
 * ran out (the rest cut with "…" by ls_html_escape) or the piece is too
 * long to copy (the rest of s written as one piece): stop there. */
static int put_piece(FILE *f, const char *s, size_t n, size_t *left)
{
    char buf[LS_PIECE];
    size_t k = chars_of_n(s, n);
    if (n >= sizeof(buf) || k >= *left) {
        ls_html_escape(f, s, *left == SIZE_MAX ? 0 : *left);
        return 0;
    }
    memcpy(buf, s, n);
    buf[n] = '\0';
    ls_html_escape(f, buf, 0);
    *left -= k;
    return 1;
}

/* One word (n bytes, no space): a dotted name gets a line-break
 * opportunity (<wbr>) after each inner '.', "checkout.<wbr>reserve", so it
 * wraps between its parts; a word with a part longer than LONG_WORD (a
 * hostile name, a traceparent) is marked "lw" and may break anywhere. */
static int put_word(FILE *f, const char *w, size_t n, size_t *left)
{
    int lw = has_long_part(w, n), ok = 1;
    const char *end = w + n, *dot;

    if (lw) {
        fputs("<span class=\"lw\">", f);
        ok = put_piece(f, w, n, left);
        fputs("</span>", f);
        return ok;
    }
    while (ok && (dot = memchr(w, '.', (size_t)(end - w))) != NULL && dot + 1 < end) {
        ok = put_piece(f, w, (size_t)(dot + 1 - w), left);
        if (ok)
            fputs("<wbr>", f);
        w = dot + 1;
    }
    return ok && put_piece(f, w, (size_t)(end - w), left);
}

/*
 * Text from the model (a name, a statement) escaped, at most max
 * characters (0: all), so that its words stay whole where it wraps, on
 * screen and in print ("Relati" / "on" reads as two words): see
 * put_word(). The same signature as ls_html_escape.
 */
static void put_words(FILE *f, const char *s, size_t max)
{
    size_t left = max ? max : SIZE_MAX;
    if (!s) {
        fputs("—", f);
        return;
    }
    while (*s) {
        size_t sp = strspn(s, " \t\n"), n = strcspn(s + sp, " \t\n");
        if ((sp && !put_piece(f, s, sp, &left)) || (n && !put_word(f, s + sp, n, &left)))
            return;
        s += sp + n;
    }
}

/* A pid with its transaction's code path beside it, "10550 · path", where
 * the store knows it: o's pid_key ("pid", "blocker_pid", ...) with "pid"
 * replaced by "code_path" names it. */
static void put_pid(FILE *f, double pid, const cJSON *o, const char *pid_key)
{
    char key[64];
    size_t n = strlen(pid_key);
    /* The model's convention: blocker_pid's code path is blocker_code_path. */
    if (n >= 3 && strcmp(pid_key + n - 3, "pid") == 0)
        n -= 3;
    snprintf(key, sizeof(key), "%.*scode_path", (int)n, pid_key);
    fprintf(f, "%.0f", pid);
    if (m_str(o, key)) {
        fputs(" <span class=\"path\">· ", f);
        put_words(f, m_str(o, key), 120);
        fputs("</span>", f);
    }
}

/* The same as text only, for an SVG <title> (a tooltip has no markup). */
/* A timeline lane's pid: "pid unknown" for 0 (no backend pid known). */
static void lane_pid(FILE *f, double pid)
{
    if (pid > 0)
        fprintf(f, "pid %.0f", pid);
    else
        fputs("pid unknown", f);
}

static void title_pid(FILE *f, double pid, const cJSON *o, const char *prefix)
{
    ls_write_pid_path(f, pid, o, prefix, ls_html_escape, 120);
}

static void put_pid_of(FILE *f, const cJSON *x)
{
    put_pid(f, m_num(x, "pid"), x, "pid");
}

/* A list of {pid, code_path} (a row's root blockers, one per transaction)
 * as "10550 · path, 10551 · path", each pair once; returns how many. */
static int put_pids(FILE *f, const cJSON *list)
{
    return ls_write_pids(f, list, put_pid_of);
}

/* A numeric cell's content: durations as people write them. */
static void number_cell(FILE *f, const cJSON *o, const ls_column *c)
{
    const cJSON *v = m_get(o, c->key);
    double lo = 0, hi = 0;
    if (!cJSON_IsNumber(v)) { /* "unknown", or "—": nothing to show */
        fputs(ls_fmt_null_cell(o, c), f);
        return;
    }
    /* a figure that is a bound has its mark: "≥ 32.6 s" */
    if (c->kind == LS_CELL_INT || c->kind == LS_CELL_MS)
        fputs(ls_fmt_bound_mark(o, c->key), f);
    if (c->kind == LS_CELL_RANGE && cJSON_IsNumber(v) && ls_fmt_range_of(o, c->key, &lo, &hi)) {
        put_ms(f, ls_fmt_in_range(v->valuedouble, lo, hi));
        fputs(" (", f);
        put_ms(f, lo);
        fputs("–", f);
        put_ms(f, hi);
        fputs(")", f);
    } else if (c->kind == LS_CELL_HOLD && cJSON_IsTrue(m_get(o, "hold_at_least"))) {
        /* the log does not show its end: a lower bound, not a time */
        fputs("at least ", f);
        put_ms(f, m_has_num(o, "hold_min_ms") ? m_num(o, "hold_min_ms") : m_num(o, "hold_ms"));
    } else if (c->kind == LS_CELL_HOLD && m_has_num(o, "hold_min_ms") && m_has_num(o, "hold_max_ms") &&
        m_num(o, "hold_max_ms") - m_num(o, "hold_min_ms") >= LS_HOLD_RANGE_MS) {
        put_ms(f, m_num(o, "hold_min_ms"));
        fputs("–", f);
        put_ms(f, m_num(o, "hold_max_ms"));
    } else if (c->kind == LS_CELL_MS || c->kind == LS_CELL_MS0 || c->kind == LS_CELL_HOLD ||
               c->kind == LS_CELL_RANGE || c->kind == LS_CELL_MS_KNOWN) {
        put_ms(f, v->valuedouble);
    } else if (c->kind == LS_CELL_NUM1) {
        fprintf(f, "%.1f", v->valuedouble);
    } else {
        fprintf(f, "%.0f", v->valuedouble);
    }
}

/* Where a row is: relation and `sub` (ctid or row key), else the lock
 * target. */
static void where_cell(FILE *f, const cJSON *o, const char *sub, size_t sub_max)
{
    if (!m_str(o, "relation")) {
        put_words(f, m_str(o, "target"), 80);
        return;
    }
    put_words(f, m_str(o, "relation"), 64);
    ls_write_opt(f, " ", m_str(o, sub), put_words, sub_max);
}

/* A hold breakdown's parts by name, "sql 12 ms, idle 3.0 s". */
static void parts_cell(FILE *f, const cJSON *parts)
{
    const cJSON *p;
    int n = 0;
    cJSON_ArrayForEach(p, parts) {
        if (n++)
            fputs(", ", f);
        text(f, m_str(p, "name"), 120);
        fputs(" ", f);
        if (m_has_num(p, "ms"))
            put_ms(f, m_num(p, "ms"));
        else
            fputs(LS_UNKNOWN, f); /* none of its holds timed */
    }
    if (!n)
        fputs("—", f);
}

/* A statement in <code>, at most max characters (0: all); past CODE_FOLD
 * it is folded: its head and length in the <summary>, the whole inside. */
static void code_cell(FILE *f, const char *s, size_t max)
{
    size_t n = s ? chars_of_n(s, strlen(s)) : 0;
    if (!s || n <= CODE_FOLD || (max && max <= CODE_FOLD)) {
        fputs("<code>", f);
        put_words(f, s, max);
        fputs("</code>", f);
        return;
    }
    fputs("<details class=\"long\"><summary><code>", f);
    put_words(f, s, CODE_HEAD);
    fprintf(f, "</code> <span class=\"count\">(%zu characters)</span></summary><code>", n);
    put_words(f, s, max);
    fputs("</code></details>", f);
}

/* A space-separated list (ctids): one item as it is; more folded under
 * "N <what>" (the column's header names the items). */
static void list_cell(FILE *f, const char *s, size_t max, const char *what)
{
    size_t items = 0;
    const char *p;
    for (p = s; p && *p; p++)
        items += *p != ' ' && (p == s || p[-1] == ' ');
    if (items <= 1) {
        put_words(f, s, max);
        return;
    }
    fprintf(f, "<details class=\"list\"><summary>%zu %s</summary>", items, what);
    put_words(f, s, max);
    fputs("</details>", f);
}

/* A cell's content (inside its <td>) for the kinds that are not numbers. */
static void text_cell(FILE *f, const cJSON *o, const ls_column *c)
{
    const cJSON *v = m_get(o, c->key);
    switch (c->kind) {
    case LS_CELL_PID:
        if (cJSON_IsNumber(v))
            put_pid(f, v->valuedouble, o, c->key);
        else
            fputs("—", f);
        break;
    case LS_CELL_PIDS:
        if (put_pids(f, v) == 0)
            fputs("—", f);
        break;
    case LS_CELL_BOOL: fputs(cJSON_IsTrue(v) ? "yes" : "no", f); break;
    case LS_CELL_OUTCOME:
        fprintf(f, "<span class=\"chip %s\">", outcome_of(m_str(o, c->key))->cls);
        text(f, m_str(o, c->key), 40);
        fputs("</span>", f);
        break;
    case LS_CELL_ROW: where_cell(f, o, "ctid", 24); break;
    case LS_CELL_ROWKEY: where_cell(f, o, "row_key", 64); break;
    case LS_CELL_SOURCE:
        text(f, m_str(o, "file"), 80);
        if (m_has_num(o, "line"))
            fprintf(f, ":%.0f", m_num(o, "line"));
        break;
    case LS_CELL_CODE: code_cell(f, m_str(o, c->key), c->max); break;
    case LS_CELL_LIST: list_cell(f, m_str(o, c->key), c->max, c->head); break;
    case LS_CELL_TIME: put_time(f, m_str(o, c->key)); break;
    case LS_CELL_STATE: ls_fmt_state_of(f, o, ls_html_escape); break;
    case LS_CELL_PARTS: parts_cell(f, v); break;
    default: put_words(f, m_str(o, c->key), c->max); break;
    }
}

static void cell(FILE *f, const cJSON *o, const ls_column *c)
{
    if (ls_column_numeric(c, LS_IN_HTML)) {
        fputs("<td class=\"n\">", f);
        number_cell(f, o, c);
    } else {
        fputs(c->kind == LS_CELL_SOURCE ? "<td class=\"src\">"
              : c->kind == LS_CELL_TIME ? "<td class=\"t\">"
                                        : "<td>",
              f);
        text_cell(f, o, c);
    }
    fputs("</td>", f);
}

static void table_head(FILE *f, const ls_table *t)
{
    size_t i;
    fputs("<div class=\"scroll\"><table>\n<thead><tr>", f);
    for (i = 0; i < t->ncols; i++)
        if (t->cols[i].in & LS_IN_HTML)
            fprintf(f, "<th%s>%s</th>",
                    ls_column_numeric(&t->cols[i], LS_IN_HTML) ? " class=\"n\"" : "",
                    t->cols[i].head);
    fputs("</tr></thead>\n<tbody>\n", f);
}

/*
 * A table read top-down: the first TABLE_OPEN rows (the model lists the
 * worst first) stay open; the next ones, up to TABLE_CAP, are folded in a
 * <details> whose summary counts them, so the page stays short and prints
 * the summary line; rows past the cap are counted and pointed to the JSON.
 */
static void table(FILE *f, const ls_table *t, const cJSON *rows)
{
    const cJSON *r;
    int n = cJSON_GetArraySize(rows), k = 0;
    size_t i;

    table_head(f, t);
    cJSON_ArrayForEach(r, rows) {
        if (k == TABLE_OPEN) {
            fputs("</tbody></table></div>\n", f);
            fprintf(f, "<details class=\"more\"><summary>%d more row%s</summary>\n",
                    (n < TABLE_CAP ? n : TABLE_CAP) - TABLE_OPEN,
                    (n < TABLE_CAP ? n : TABLE_CAP) - TABLE_OPEN == 1 ? "" : "s");
            table_head(f, t);
        }
        if (k == TABLE_CAP)
            break;
        fputs("<tr>", f);
        for (i = 0; i < t->ncols; i++)
            if (t->cols[i].in & LS_IN_HTML)
                cell(f, r, &t->cols[i]);
        fputs("</tr>\n", f);
        k++;
    }
    fputs("</tbody></table></div>\n", f);
    if (k > TABLE_OPEN)
        fputs("</details>\n", f);
    if (n > k)
        fprintf(f, "<p class=\"note\">%d more row%s not shown here; the JSON report "
                   "(<code>-o report.json</code>) has them all.</p>\n",
                n - k, n - k == 1 ? " is" : "s are");
}

/* A table's own heading and sentence inside its section, if it has them
 * (static text from sections.c, not log text). */
static void sub_heading(FILE *f, const ls_table *t)
{
    if (t->title)
        fprintf(f, "<h3>%s</h3>\n", t->title);
    if (t->intro)
        fprintf(f, "<p>%s</p>\n", t->intro);
}

/* ---- prose (prose.c) in HTML ---- */

static void w_time(const ls_writer *w, const char *iso)
{
    put_time(w->f, iso);
}

static void w_table(const ls_writer *w, const ls_table *t, const cJSON *rows)
{
    table(w->f, t, rows);
}

static void w_item(const ls_writer *w, int n)
{
    (void)n;
    fputs("<li><b>", w->f);
}

static ls_writer html_writer(FILE *f)
{
    ls_writer w = {f, text, w_time, w_table, w_item, LS_IN_HTML, NULL, NULL};
    return w;
}

/* Articles (deadlocks, root blockers) past the first `open` are folded
 * like table rows: call before the k-th one, then fold_end(). */
static void fold_at(FILE *f, int k, int total, int open, const char *what)
{
    if (k == open && total > open)
        fprintf(f, "<details class=\"more\"><summary>%d more %s</summary>\n", total - open,
                what);
}

static void fold_end(FILE *f, int total, int open)
{
    if (total > open)
        fputs("</details>\n", f);
}

#define TABLE(f, tab, rows) table(f, &(tab), rows)

/* ---- summary ---- */

/* The root blocker entry behind `pid` for a hot row: the one whose waits
 * overlap the row's. */
static const cJSON *find_root(const cJSON *model, double pid, const cJSON *hot)
{
    const cJSON *r, *any = NULL;
    int64_t h0 = 0, h1 = 0, r0 = 0, r1 = 0;
    int have_h = hot && time_of(hot, "first_wait", &h0) == 0 &&
                 time_of(hot, "last_wait_end", &h1) == 0;
    cJSON_ArrayForEach(r, m_get(model, "root_blockers")) {
        if (m_num(r, "pid") != pid)
            continue;
        if (!any)
            any = r;
        if (have_h && time_of(r, "first_wait", &r0) == 0 && time_of(r, "last_wait_end", &r1) == 0 &&
            r0 <= h1 && r1 >= h0)
            return r;
    }
    return any;
}

/*
 * The transaction with the longest queue behind it. It is one
 * transaction, not a code path's total, so it names the story's path when
 * it is another (the answer above ranks paths by all their holds), and it
 * says what the holder was doing from the same span-aware state as every
 * table: the idle gap before a statement is blamed on the application
 * only when no span accounts for it.
 */
static void headline_root(FILE *f, const cJSON *r, const cJSON *story)
{
    const cJSON *tx = m_get(r, "transaction"), *st, *gap = NULL;
    const char *state = m_str(r, "head_state");

    fputs("<li><b>Longest queue behind one transaction: pid ", f);
    put_pid(f, m_num(r, "pid"), r, "pid");
    fputs("</b>", f);
    if (m_str(r, "application")) {
        fputs(" (", f);
        ls_html_escape(f, m_str(r, "application"), 64);
        fputs(")", f);
    }
    fprintf(f, " was at the head of the queue for %.0f waits, ", m_num(r, "waits_caused"));
    put_ms(f, m_num(r, "waiter_ms"));
    fputs(" of waiting in total", f);
    if (state) {
        fputs("; while they waited it was mostly ", f);
        ls_fmt_state_of(f, r, ls_html_escape);
    }
    fputs(".", f);
    cJSON_ArrayForEach(st, m_get(tx, "statements")) {
        if (m_num(st, "idle_before_ms") > 0 && (!gap || m_num(st, "idle_before_ms") >
                                                          m_num(gap, "idle_before_ms")))
            gap = st;
    }
    if (gap && same_str(state, "idle_in_transaction")) {
        fputs(" The longest gap, ", f);
        put_ms(f, m_num(gap, "idle_before_ms"));
        fputs(", came before <code>", f);
        ls_html_escape(f, m_str(gap, "text"), 120);
        fputs("</code>: the application did something else between statements, in no span "
              "the traces show.",
              f);
    }
    if (m_str(story, "code_path") && m_str(r, "code_path") &&
        !same_str(m_str(story, "code_path"), m_str(r, "code_path"))) {
        fputs(" One transaction: over all its holds, its code path holds hot rows no longer than ", f);
        ls_html_escape(f, m_str(story, "code_path"), 120);
        fputs(" (the answer above).", f);
    }
    fputs("</li>\n", f);
}

static void headlines(FILE *f, const cJSON *model)
{
    const cJSON *s = m_get(model, "summary");
    const cJSON *hot = cJSON_GetArrayItem(m_get(model, "hot_rows"), 0);
    const cJSON *root = cJSON_GetArrayItem(m_get(model, "root_blockers"), 0);
    const cJSON *dl = cJSON_GetArrayItem(m_get(model, "deadlocks"), 0);

    fputs("<h3>Headline findings</h3>\n<ul class=\"findings\">\n", f);
    if (!hot)
        fprintf(f, "<li>%s</li>\n", ls_no_hot_rows(model));
    if (hot) {
        fputs("<li><b>Hottest row: ", f);
        text(f, m_str(hot, "relation"), 64);
        if (m_str(hot, "row_key") || m_str(hot, "ctid")) {
            fputs(" ", f);
            ls_html_escape(f, m_str(hot, "row_key") ? m_str(hot, "row_key") : m_str(hot, "ctid"), 64);
        }
        fprintf(f, "</b> — %.0f waits by %.0f sessions, ", m_num(hot, "waits"),
                m_num(hot, "waiting_sessions"));
        put_ms(f, m_num(hot, "total_wait_ms"));
        fputs(" of waiting in total, the longest ", f);
        put_ms(f, m_num(hot, "max_wait_ms"));
        fputs("; root blocker pid ", f);
        fputs(put_pids(f, m_get(hot, "root_blockers")) ? ".</li>\n" : "unknown.</li>\n", f);
    }
    if (root)
        headline_root(f, root, m_get(model, "story"));
    if (dl) {
        fprintf(f, "<li><b>%.0f deadlock%s</b>; the first at ", m_num(s, "deadlocks"),
                m_num(s, "deadlocks") == 1 ? "" : "s");
        put_time(f, m_str(dl, "time"));
        fputs(", victim pid ", f);
        put_pid(f, m_num(dl, "victim_pid"), dl, "victim_pid");
        if (m_str(dl, "victim_application")) {
            fputs(" (", f);
            ls_html_escape(f, m_str(dl, "victim_application"), 64);
            fputs(")", f);
        }
        fputs(".</li>\n", f);
    }
    if (m_num(s, "lock_timeouts") + m_num(s, "statement_timeouts") +
            m_num(s, "serialization_failures") + m_num(s, "lock_nowait_failures") >
        0)
        fprintf(f,
                "<li><b>Failed waits:</b> %.0f lock timeouts, %.0f NOWAIT failures, %.0f "
                "statement timeouts, %.0f serialization failures.</li>\n",
                m_num(s, "lock_timeouts"), m_num(s, "lock_nowait_failures"),
                m_num(s, "statement_timeouts"), m_num(s, "serialization_failures"));
    fputs("</ul>\n", f);
}

static void outcome_bar(FILE *f, const cJSON *by)
{
    const cJSON *o;
    double total = 0, x = 0;
    cJSON_ArrayForEach(o, by) total += cJSON_IsNumber(o) ? o->valuedouble : 0;
    if (total <= 0)
        return;
    fputs("<svg class=\"outcomes\" viewBox=\"0 0 600 22\" width=\"600\" height=\"22\" "
          "role=\"img\" aria-label=\"waits by outcome\">",
          f);
    cJSON_ArrayForEach(o, by) {
        double w = cJSON_IsNumber(o) ? o->valuedouble / total * 600 : 0;
        fprintf(f, "<rect class=\"%s\" x=\"%.1f\" y=\"2\" width=\"%.1f\" height=\"18\"><title>",
                outcome_of(o->string)->cls, x, w);
        ls_html_escape(f, o->string, 40);
        fprintf(f, ": %.0f</title></rect>", o->valuedouble);
        x += w;
    }
    fputs("</svg>\n<p class=\"legend\">", f);
    cJSON_ArrayForEach(o, by) {
        fprintf(f, "<span class=\"chip %s\">", outcome_of(o->string)->cls);
        ls_html_escape(f, o->string, 40);
        fprintf(f, " %.0f</span> ", o->valuedouble);
    }
    fputs("</p>\n", f);
}

/* The database spans' clock, and those without a backend pid that could
 * not be placed in a session, and why. */
static void trace_spans(FILE *f, const cJSON *t)
{
    ls_writer w = html_writer(f);
    ls_write_trace_spans(&w, t, "<p class=\"note\">", " database spans, ", ".</p>\n");
}

static void panel_summary(FILE *f, const cJSON *model)
{
    const cJSON *s = m_get(model, "summary"), *range = m_get(s, "time_range");
    ls_writer w = html_writer(f);

    ls_write_filter(&w, m_get(s, "filter"));
    ls_write_story(&w, m_get(model, "story"));
    ls_write_queue_answer(&w, m_get(model, "story"), m_get(model, "relation_queues"));
    headlines(f, model);
    fputs("<div class=\"cards\">\n", f);
    fprintf(f, "<div><b>%.0f</b>lock waits (%.0f linked to a blocker)</div>\n", m_num(s, "waits"),
            m_num(s, "waits_linked"));
    fputs("<div><b>", f);
    put_ms(f, m_num(s, "total_wait_ms"));
    fputs("</b>total wait</div>\n<div><b>", f);
    put_ms(f, m_num(s, "max_wait_ms"));
    fputs("</b>longest wait</div>\n", f);
    if (cJSON_IsTrue(m_get(m_get(s, "hidden_waits"), "reconstructed")) &&
        cJSON_IsNull(m_get(m_get(s, "hidden_waits"), "hidden_wait_ms"))) {
        fputs("<div><b>unknown</b>hidden waits (below deadlock_timeout): not knowable "
              "from this log (", f);
        text(f, ls_hidden_unknown_why(model), 0);
        fputs(")</div>\n", f);
    } else if (cJSON_IsTrue(m_get(m_get(s, "hidden_waits"), "reconstructed"))) {
        fputs("<div><b>", f);
        if (cJSON_IsTrue(m_get(m_get(s, "hidden_waits"), "at_least")))
            fputs("≥ ", f);
        put_ms(f, m_num(m_get(s, "hidden_waits"), "hidden_wait_ms"));
        fputs("</b>hidden waits (below deadlock_timeout, never logged)</div>\n", f);
    }
    fprintf(f, "<div><b>%.0f</b>deadlocks</div>\n", m_num(s, "deadlocks"));
    fprintf(f, "<div><b>%.0f</b>lock timeouts (55P03)</div>\n", m_num(s, "lock_timeouts"));
    fprintf(f, "<div><b>%.0f</b>statement timeouts (57014)</div>\n",
            m_num(s, "statement_timeouts"));
    fprintf(f, "<div><b>%.0f</b>serialization failures (40001)</div>\n",
            m_num(s, "serialization_failures"));
    fprintf(f, "<div><b>%.0f / %.0f</b>sessions / statements</div>\n", m_num(s, "sessions"),
            m_num(s, "statements"));
    fputs("</div>\n<table class=\"kv\"><tbody>\n<tr><th>Time range</th><td>", f);
    put_time(f, m_str(range, "start"));
    fputs(" → ", f);
    put_time(f, m_str(range, "end"));
    fprintf(f, "</td></tr>\n<tr><th>NOWAIT failures (55P03)</th><td>%.0f</td></tr>\n"
               "<tr><th>Idle-in-transaction timeouts (25P03)</th><td>%.0f</td></tr>\n"
               "<tr><th>Input</th><td>%.0f files, %.0f lines, %.0f records, %.0f unparsable "
               "lines, read by structure: %.0f lines</td></tr>\n</tbody></table>\n",
            m_num(s, "lock_nowait_failures"), m_num(s, "idle_in_transaction_timeouts"),
            m_num(s, "files"), m_num(s, "lines"), m_num(s, "records"), m_num(s, "bad_lines"),
            m_num(s, "structural_lines"));
    ls_write_unmatched_locks(&w, m_get(s, "unmatched_lock_messages"));
    if (m_str(m_get(s, "hidden_waits"), "note")) {
        fputs("<p class=\"note\">", f);
        text(f, m_str(m_get(s, "hidden_waits"), "note"), 400);
        fputs("</p>\n", f);
    }
    trace_spans(f, m_get(s, "trace_spans"));
    outcome_bar(f, m_get(s, "waits_by_outcome"));
}

static void panel_hot_rows(FILE *f, const cJSON *model)
{
    const cJSON *rows = m_get(model, "hot_rows");
    if (cJSON_GetArraySize(rows) == 0) {
        fprintf(f, "<p>%s</p>\n", ls_no_hot_rows(model));
        return;
    }
    TABLE(f, ls_tab_hot_rows, rows);
    {
        ls_writer w = html_writer(f);
        ls_write_wait_bounds(&w, rows);
        ls_write_ctid_versions(&w, rows);
    }
}

/* The relation lock queues (only shown when there is one). */
static int has_relation_queues(const cJSON *model)
{
    return cJSON_GetArraySize(m_get(model, "relation_queues")) > 0;
}

static void panel_relation_queues(FILE *f, const cJSON *model)
{
    sub_heading(f, &ls_tab_relation_queues);
    TABLE(f, ls_tab_relation_queues, m_get(model, "relation_queues"));
}

/* ---- timelines ---- */

/*
 * A timeline is drawn per contention episode: the row's waits (logged and
 * inferred) cut where the row was quiet for TL_EPISODE_GAP, so a store that
 * spans days shows each incident at its own scale instead of a sliver of
 * one long axis. Lanes are grouped under the code path of the holder they
 * queued behind; each lane has one label, in the left gutter, where no bar
 * is drawn.
 */
#define TL_EPISODE_GAP (300 * INT64_C(1000000)) /* 5 min without a wait */
#define TL_MAX_EPISODES 4                        /* per row; later ones counted */
#define TL_MAX_ARROWS 40 /* beyond this, waiter-to-blocker arrows are a tangle */

typedef struct tl_lane {
    double pid;
    int holder;        /* holds the row (or heads its queue) */
    int group;         /* index in timeline.groups */
    int row;           /* display row */
    const cJSON *root; /* its root blocker entry (statements), or NULL */
    const char *path;  /* a holder's code path (or application), or NULL */
} tl_lane;

typedef struct tl_wait {
    const cJSON *w;
    int lane;
    int inferred; /* rebuilt from the holds (row_waits), never logged */
    int64_t t0, t1;
} tl_wait;

typedef struct tl_point {
    int64_t t;
    int d; /* queue depth from t on (a sweep event: +1 or -1 while sorting) */
} tl_point;

typedef struct timeline {
    const cJSON *hot;
    const cJSON *holds; /* the row's hold intervals when the model has them */
    tl_lane lanes[TL_MAX_LANES];
    int nlanes;
    const char *groups[TL_MAX_LANES + 1]; /* group titles: a holder's code path */
    int group_row[TL_MAX_LANES + 1];
    int ngroups, nrows;
    tl_wait *waits; /* the episode's waits that are drawn */
    int nwaits, nlogged;
    int waits_found;   /* the row's waits in the model */
    int waits_omitted; /* of those, in sessions beyond the lane cap */
    double omitted_pids[256];
    int nomitted_pids;
    int no_statements; /* holder lanes whose statements the model lacks */
    int64_t w0, w1;    /* the episode: only what overlaps it is drawn */
    int64_t t0, t1;    /* the axis */
} timeline;

/* Plot geometry (SVG user units). */
enum { TL_W = 1100, TL_X0 = 230, TL_X1 = 1060, TL_TOP = 30, TL_LANE = 24, TL_BAR = 14,
       TL_DEPTH = 56, TL_LEGEND = 34 };

/* x of a time, clamped to the axis: a hold that began before the episode
 * starts at its left edge. */
static double tl_x(const timeline *t, int64_t ts)
{
    double span = (double)(t->t1 - t->t0);
    if (span <= 0 || ts <= t->t0)
        return TL_X0;
    if (ts >= t->t1)
        return TL_X1;
    return TL_X0 + (double)(ts - t->t0) / span * (TL_X1 - TL_X0);
}

static double tl_y(const timeline *t, int lane)
{
    return TL_TOP + t->lanes[lane].row * TL_LANE + TL_LANE / 2.0;
}

static int lane_find(const timeline *t, double pid)
{
    int i;
    for (i = 0; i < t->nlanes; i++)
        if (t->lanes[i].pid == pid)
            return i;
    return -1;
}

static void note_omitted(timeline *t, double pid)
{
    int i;
    for (i = 0; i < t->nomitted_pids; i++)
        if (t->omitted_pids[i] == pid)
            return;
    if (t->nomitted_pids < (int)(sizeof(t->omitted_pids) / sizeof(t->omitted_pids[0])))
        t->omitted_pids[t->nomitted_pids++] = pid;
}

/* The lane of `pid`, added if there is room; -1 (and counted) if not. */
static int lane_of(timeline *t, double pid)
{
    int i = lane_find(t, pid);
    if (i >= 0)
        return i;
    if (t->nlanes >= TL_MAX_LANES) {
        note_omitted(t, pid);
        return -1;
    }
    memset(&t->lanes[t->nlanes], 0, sizeof(t->lanes[0]));
    t->lanes[t->nlanes].pid = pid;
    t->lanes[t->nlanes].group = -1;
    return t->nlanes++;
}

static int overlaps(const timeline *t, int64_t a, int64_t b)
{
    return b >= t->w0 && a <= t->w1;
}

static void widen(timeline *t, int64_t a, int64_t b)
{
    if (t->t0 == 0 || a < t->t0)
        t->t0 = a;
    if (t->t1 == 0 || b > t->t1)
        t->t1 = b;
}

/* The row's waits: its own list when the model has one, else the report's
 * wait list (matched by relation and ctid by the caller). */
static const cJSON *tl_wait_source(const cJSON *model, const cJSON *hot, int *own)
{
    const cJSON *src = m_get(m_get(hot, "timeline"), "waits");
    *own = cJSON_IsArray(src);
    return *own ? src : m_get(model, "waits");
}

static int on_row(const cJSON *w, const cJSON *hot, int own)
{
    return own || (same_str(m_str(w, "relation"), m_str(hot, "relation")) &&
                   same_str(m_str(w, "ctid"), m_str(hot, "ctid")));
}

static int wait_span(const cJSON *w, int64_t *a, int64_t *b)
{
    if (time_of(w, "start", a) != 0)
        return -1;
    if (time_of(w, "end", b) != 0)
        *b = *a + (int64_t)(m_num(w, "waited_ms") * 1000.0);
    return 0;
}

static int is_inferred(const cJSON *w)
{
    return same_str(m_str(w, "kind"), "inferred");
}

static int span_cmp(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/*
 * The row's contention episodes: its waits, logged and inferred, merged
 * where less than TL_EPISODE_GAP apart. ep[2k], ep[2k+1] bound episode k;
 * returns their number (all of them; at most `max` are stored).
 */
static int tl_episodes(const cJSON *model, const cJSON *hot, int64_t *ep, int max)
{
    const cJSON *w, *src;
    int own, n = 0, cap = 0, i, k = 0;
    int64_t *sp = NULL, a, b, last = 0, end = 0;

    src = tl_wait_source(model, hot, &own);
    cap = cJSON_GetArraySize(src) + cJSON_GetArraySize(m_get(m_get(hot, "timeline"),
                                                             "hidden_waits"));
    if (cap == 0 || !(sp = ls_malloc(sizeof(*sp) * 2 * (size_t)cap)))
        return 0;
    cJSON_ArrayForEach(w, src) {
        if (on_row(w, hot, own) && wait_span(w, &a, &b) == 0) {
            sp[2 * n] = a;
            sp[2 * n++ + 1] = b;
        }
    }
    cJSON_ArrayForEach(w, m_get(m_get(hot, "timeline"), "hidden_waits")) {
        if (is_inferred(w) && wait_span(w, &a, &b) == 0) {
            sp[2 * n] = a;
            sp[2 * n++ + 1] = b;
        }
    }
    qsort(sp, (size_t)n, 2 * sizeof(*sp), span_cmp);
    for (i = 0; i < n; i++) {
        if (k > 0 && k <= max && sp[2 * i] - ep[2 * (k - 1) + 1] < TL_EPISODE_GAP) {
            if (sp[2 * i + 1] > ep[2 * (k - 1) + 1])
                ep[2 * (k - 1) + 1] = sp[2 * i + 1];
            continue;
        }
        if (k >= max) { /* past `max`: counted, not stored */
            end = sp[2 * i + 1] > end ? sp[2 * i + 1] : end;
            if (sp[2 * i] - last >= TL_EPISODE_GAP)
                k++;
            last = end;
            continue;
        }
        ep[2 * k] = sp[2 * i];
        ep[2 * k++ + 1] = sp[2 * i + 1];
        last = end = sp[2 * i + 1];
    }
    free(sp);
    return k;
}

/* The code path a hold names: its own, else its application. */
static const char *hold_path(const cJSON *h)
{
    return m_str(h, "code_path") ? m_str(h, "code_path") : m_str(h, "application");
}

/*
 * Group the lanes under the holders they queued behind: each holder's code
 * path is a group (first seen first), its holders then its waiters below
 * it; waiters whose holder has no lane last. Rows are then numbered, a
 * title row before each group.
 */
static void tl_group(timeline *t)
{
    int i, g, k, row = 0;

    for (i = 0; i < t->nlanes; i++) {
        if (!t->lanes[i].holder)
            continue;
        for (g = 0; g < t->ngroups; g++)
            if (same_str(t->groups[g], t->lanes[i].path))
                break;
        if (g == t->ngroups)
            t->groups[t->ngroups++] = t->lanes[i].path;
        t->lanes[i].group = g;
    }
    /* A waiter joins the group of the first holder lane it waited for. */
    for (k = 0; k < t->nwaits; k++) {
        const cJSON *w = t->waits[k].w;
        tl_lane *ln = &t->lanes[t->waits[k].lane];
        int h = -1;
        if (ln->group >= 0)
            continue;
        if (m_has_num(w, "holder_pid"))
            h = lane_find(t, m_num(w, "holder_pid"));
        if ((h < 0 || !t->lanes[h].holder) && m_has_num(w, "blocker_pid"))
            h = lane_find(t, m_num(w, "blocker_pid"));
        if ((h < 0 || !t->lanes[h].holder) && m_has_num(w, "behind_pid"))
            h = lane_find(t, m_num(w, "behind_pid"));
        if (h >= 0 && t->lanes[h].holder)
            ln->group = t->lanes[h].group;
    }
    for (i = 0; i < t->nlanes; i++)
        if (t->lanes[i].group < 0)
            t->lanes[i].group = t->ngroups;
    for (g = 0; g <= t->ngroups; g++) {
        int any = 0;
        for (k = 1; k >= 0; k--) /* holders, then waiters */
            for (i = 0; i < t->nlanes; i++)
                if (t->lanes[i].group == g && t->lanes[i].holder == k) {
                    if (!any++)
                        t->group_row[g] = row++;
                    t->lanes[i].row = row++;
                }
        if (!any)
            t->group_row[g] = -1;
    }
    t->nrows = row;
}

static int tl_add_wait(timeline *t, const cJSON *w, int inferred)
{
    int64_t a, b;
    int l;
    if (wait_span(w, &a, &b) != 0 || !overlaps(t, a, b))
        return 0;
    if (!inferred)
        t->waits_found++;
    if ((l = lane_of(t, m_num(w, "pid"))) < 0) {
        t->waits_omitted += !inferred;
        return 0;
    }
    t->waits[t->nwaits].w = w;
    t->waits[t->nwaits].lane = l;
    t->waits[t->nwaits].inferred = inferred;
    t->waits[t->nwaits].t0 = a;
    t->waits[t->nwaits].t1 = b;
    t->nwaits++;
    t->nlogged += !inferred;
    widen(t, a, b);
    return 1;
}

/*
 * Collect lanes and bars of one hot row in the episode [w0, w1]: from the
 * row's own timeline (holds, waits, inferred waits) when the model has one,
 * else from the root blocker pids and the report's wait list matched by
 * relation and ctid. The axis covers the episode's waits and the holds
 * they queued behind, and at most a fifth more on each side.
 */
static int tl_build(timeline *t, const cJSON *model, const cJSON *hot, int64_t w0, int64_t w1)
{
    const cJSON *p, *w, *src, *hidden = m_get(m_get(hot, "timeline"), "hidden_waits");
    int own, n, l;
    int64_t pad, lo, hi;

    memset(t, 0, sizeof(*t));
    t->hot = hot;
    t->w0 = w0;
    t->w1 = w1;
    src = tl_wait_source(model, hot, &own);
    n = cJSON_GetArraySize(src) + cJSON_GetArraySize(hidden);
    t->waits = ls_malloc(sizeof(*t->waits) * (size_t)(n > 0 ? n : 1));
    if (!t->waits)
        return LS_ENOMEM;
    /* Holders first: the lanes every queue starts from. */
    if (cJSON_GetArraySize(m_get(m_get(hot, "timeline"), "holds")) > 0) {
        t->holds = m_get(m_get(hot, "timeline"), "holds");
        cJSON_ArrayForEach(p, t->holds) {
            int64_t a, b;
            if (time_of(p, "start", &a) != 0)
                continue;
            if (time_of(p, "end", &b) != 0)
                b = a;
            if (!overlaps(t, a, b) || (l = lane_of(t, m_num(p, "pid"))) < 0)
                continue;
            t->lanes[l].holder = 1;
            if (!t->lanes[l].path)
                t->lanes[l].path = hold_path(p);
        }
    } else {
        cJSON_ArrayForEach(p, m_get(hot, "root_blocker_pids")) {
            if ((l = lane_of(t, p->valuedouble)) >= 0)
                t->lanes[l].holder = 1;
        }
    }
    for (l = 0; l < t->nlanes; l++) {
        t->lanes[l].root = find_root(model, t->lanes[l].pid, hot);
        if (!t->lanes[l].path && t->lanes[l].root)
            t->lanes[l].path = m_str(t->lanes[l].root, "code_path")
                                   ? m_str(t->lanes[l].root, "code_path")
                                   : m_str(t->lanes[l].root, "application");
    }
    cJSON_ArrayForEach(w, src) {
        if (on_row(w, hot, own))
            tl_add_wait(t, w, 0);
    }
    cJSON_ArrayForEach(w, hidden) {
        if (is_inferred(w))
            tl_add_wait(t, w, 1);
    }
    if (t->t0 == 0) { /* no wait in the model's lists: the episode as given */
        t->t0 = w0;
        t->t1 = w1;
    }
    pad = (t->t1 - t->t0) / 5 > 500000 ? (t->t1 - t->t0) / 5 : 500000;
    lo = t->t0 - pad;
    hi = t->t1 + pad;
    cJSON_ArrayForEach(p, t->holds) {
        int64_t a, b;
        if (time_of(p, "start", &a) == 0 && lane_find(t, m_num(p, "pid")) >= 0 &&
            overlaps(t, a, time_of(p, "end", &b) == 0 ? b : a))
            widen(t, a > lo ? a : lo, time_of(p, "end", &b) == 0 && b < hi ? b : hi);
    }
    for (l = 0; l < t->nlanes; l++) {
        const cJSON *tx = m_get(t->lanes[l].root, "transaction");
        int64_t a, b;
        if (t->lanes[l].holder && tx && time_of(tx, "start", &a) == 0) {
            if (time_of(tx, "end", &b) != 0)
                b = t->t1;
            if (b >= lo && a <= hi)
                widen(t, a > lo ? a : lo, b < hi ? b : hi);
        }
    }
    if (t->t1 <= t->t0)
        t->t1 = t->t0 + 1000;
    tl_group(t);
    return 0;
}

/* Tick step in microseconds: 1, 2 or 5 × 10^k ms giving at most 10 ticks. */
static int64_t tick_step(int64_t span)
{
    static const int64_t mult[] = {1, 2, 5};
    int64_t base = 1000;
    for (;;) {
        size_t i;
        for (i = 0; i < 3; i++)
            if (span / (base * mult[i]) <= 10)
                return base * mult[i];
        base *= 10;
    }
}

static void tl_axis(FILE *f, const timeline *t, int height)
{
    int64_t step = tick_step(t->t1 - t->t0), v;
    for (v = 0; t->t0 + v <= t->t1; v += step) {
        double x = tl_x(t, t->t0 + v);
        fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", x,
                TL_TOP - 6, x, height);
        fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%d\">", x, TL_TOP - 10);
        if (v == 0) {
            fputs("0", f);
        } else {
            fputs("+", f);
            put_ms(f, (double)v / 1000.0);
        }
        fputs("</text>\n", f);
    }
}

/* A hold (or the transaction h) of pid; `who` carries its code path. */
static void tl_hold_bar(FILE *f, const timeline *t, const cJSON *h, const cJSON *who, double pid,
                        int64_t a, int64_t b, double y)
{
    fprintf(f, "<rect class=\"hold\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\">"
               "<title>",
            tl_x(t, a), y - TL_BAR / 2.0, tl_x(t, b) - tl_x(t, a) + 0.5, TL_BAR);
    title_pid(f, pid, who, "");
    fputs(" holds the lock from ", f);
    put_time(f, m_str(h, "start"));
    fputs(" to ", f);
    put_time(f, m_str(h, "end"));
    if (m_has_num(h, "hold_ms") || m_has_num(h, "duration_ms")) {
        fputs(" (", f);
        put_ms(f, m_num(h, m_has_num(h, "hold_ms") ? "hold_ms" : "duration_ms"));
        fputs(")", f);
    }
    ls_write_opt(f, "\nstart: ", m_str(h, "start_evidence"), ls_html_escape, 80);
    ls_write_opt(f, "; end: ", m_str(h, "end_evidence"), ls_html_escape, 80);
    if (m_str(h, "head_state")) {
        fputs("; mostly ", f);
        ls_fmt_state_of(f, h, ls_html_escape);
    }
    fputs("</title></rect>\n", f);
}

/* A holder's lane: its hold bars, then its transaction's idle gaps and
 * statements on top. */
static void tl_holder_lane(FILE *f, timeline *t, const tl_lane *ln, double y)
{
    const cJSON *tx = m_get(ln->root, "transaction"), *st, *h;
    int64_t a, b;
    int drawn = 0;

    cJSON_ArrayForEach(h, t->holds) {
        if (m_num(h, "pid") != ln->pid || time_of(h, "start", &a) != 0)
            continue;
        if (time_of(h, "end", &b) != 0)
            b = t->t1;
        if (b < t->t0 || a > t->t1)
            continue;
        tl_hold_bar(f, t, h, h, ln->pid, a, b, y);
        drawn++;
    }
    if (!drawn && tx && time_of(tx, "start", &a) == 0) {
        if (time_of(tx, "end", &b) != 0)
            b = t->t1;
        tl_hold_bar(f, t, tx, ln->root, ln->pid, a, b, y);
        drawn++;
    }
    if (!tx) {
        t->no_statements++;
        return;
    }
    cJSON_ArrayForEach(st, m_get(tx, "statements")) {
        int64_t s0;
        double idle = m_num(st, "idle_before_ms");
        if (time_of(st, "start", &s0) != 0 || s0 < t->t0 || s0 > t->t1)
            continue;
        if (idle > 0) {
            double x0 = tl_x(t, s0 - (int64_t)(idle * 1000.0));
            fprintf(f, "<rect class=\"idle\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\">"
                       "<title>idle in transaction ",
                    x0, y - TL_BAR / 2.0, tl_x(t, s0) - x0, TL_BAR);
            put_ms(f, idle);
            fputs(", holding its locks, before: ", f);
            ls_html_escape(f, m_str(st, "text"), 300);
            fputs("</title></rect>\n", f);
        }
        fprintf(f, "<rect class=\"stmt\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\">"
                   "<title>",
                tl_x(t, s0), y - TL_BAR / 2.0 - 3,
                tl_x(t, s0 + (int64_t)(m_num(st, "duration_ms") * 1000.0)) - tl_x(t, s0) + 1,
                TL_BAR + 6);
        put_time(f, m_str(st, "start"));
        fputs(", ", f);
        put_ms(f, m_num(st, "duration_ms"));
        fputs(": ", f);
        ls_html_escape(f, m_str(st, "text"), 300);
        fputs("</title></rect>\n", f);
    }
}

static void tl_wait_bar(FILE *f, const timeline *t, const tl_wait *tw, int id)
{
    const cJSON *w = tw->w;
    double y = tl_y(t, tw->lane);
    double x0 = tl_x(t, tw->t0), x1 = tl_x(t, tw->t1);
    int bl = m_has_num(w, "blocker_pid") ? lane_find(t, m_num(w, "blocker_pid")) : -1;

    if (!tw->inferred && t->nlogged <= TL_MAX_ARROWS && bl >= 0 && bl != tw->lane) {
        double by = tl_y(t, bl);
        fprintf(f, "<line class=\"link\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                   "marker-end=\"url(#arrow%d)\"/>",
                x0, y, x0, by + (by < y ? TL_BAR / 2.0 + 1 : -TL_BAR / 2.0 - 1), id);
    }
    if (tw->inferred) {
        fprintf(f, "<rect class=\"wait hidden\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                   "height=\"%d\"><title>",
                x0, y - TL_BAR / 2.0 + 2, x1 - x0 + 0.5, TL_BAR - 4);
        title_pid(f, m_num(w, "pid"), w, "");
        fputs(" queued about ", f);
        put_ms(f, m_num(w, "waited_ms"));
        fputs(" (inferred from the holds, below deadlock_timeout, never logged)", f);
        if (m_has_num(w, "behind_pid")) {
            fputs(" behind ", f);
            title_pid(f, m_num(w, "behind_pid"), w, "behind_");
        }
        fputs("</title></rect>\n", f);
        return;
    }
    fprintf(f, "<rect class=\"wait %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\">"
               "<title>",
            outcome_of(m_str(w, "outcome"))->cls, x0, y - TL_BAR / 2.0, x1 - x0 + 0.5, TL_BAR);
    title_pid(f, m_num(w, "pid"), w, "");
    fputs(" waited ", f);
    put_ms(f, m_num(w, "waited_ms"));
    ls_write_opt(f, " for ", m_str(w, "mode"), ls_html_escape, 40);
    ls_write_opt(f, " on ", m_str(w, "target"), ls_html_escape, 80);
    fputs(", ", f);
    text(f, m_str(w, "outcome"), 40);
    if (m_has_num(w, "blocker_pid")) {
        fputs("; blocked by ", f);
        title_pid(f, m_num(w, "blocker_pid"), w, "blocker_");
    }
    if (m_has_num(w, "root_pid")) {
        fputs(", root ", f);
        title_pid(f, m_num(w, "root_pid"), w, "root_");
    }
    ls_write_opt(f, "\n", m_str(w, "statement"), ls_html_escape, 300);
    fputs("</title></rect>\n", f);
}

static int point_cmp(const void *a, const void *b)
{
    const tl_point *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->d - y->d; /* ends before starts at the same instant */
}

/*
 * Queue depth over time as a filled step area under the lanes: the
 * model's per-row queue when it has one, else a sweep over the drawn
 * logged waits. Its label sits in the gutter, left of the area.
 */
/*
 * After the listed queue points of a cut timeline, the row's queue over
 * the rest of its time from timeline.queue_buckets: each bucket that ends
 * after the last listed point is drawn at its deepest queue from its first
 * change and at the depth it ended at from its last. pt has room for two
 * points per bucket after its n; returns the new n.
 */
static int tl_add_buckets(const cJSON *buckets, tl_point *pt, int n)
{
    const cJSON *b;
    int64_t last = n > 0 ? pt[n - 1].t : INT64_MIN, a, e;
    cJSON_ArrayForEach(b, buckets) {
        if (time_of(b, "time", &a) != 0 || time_of(b, "end", &e) != 0 || e <= last)
            continue;
        pt[n].t = a > last ? a : last;
        pt[n++].d = (int)m_num(b, "depth");
        pt[n].t = e;
        pt[n++].d = (int)m_num(b, "end_depth");
    }
    return n;
}

static int tl_depth(FILE *f, const timeline *t, int top)
{
    const cJSON *q = m_get(m_get(t->hot, "timeline"), "queue"), *p;
    const cJSON *buckets = m_get(m_get(t->hot, "timeline"), "queue_buckets");
    int n = cJSON_GetArraySize(q), i, depth = 0, max = 0;
    int room = n > 0 ? n + 2 * cJSON_GetArraySize(buckets) : t->nwaits * 2;
    double base = top + TL_DEPTH - 4, scale;
    tl_point *pt;

    if (n == 0 && t->nlogged == 0)
        return 0;
    pt = ls_malloc(sizeof(*pt) * (size_t)(room > 0 ? room : 1));
    if (!pt)
        return LS_ENOMEM;
    if (n > 0) {
        n = 0;
        cJSON_ArrayForEach(p, q) {
            if (time_of(p, "time", &pt[n].t) == 0)
                pt[n++].d = (int)m_num(p, "depth");
        }
        n = tl_add_buckets(buckets, pt, n);
    } else {
        for (i = 0; i < t->nwaits; i++) {
            if (t->waits[i].inferred)
                continue;
            pt[n].t = t->waits[i].t0;
            pt[n++].d = 1;
            pt[n].t = t->waits[i].t1;
            pt[n++].d = -1;
        }
        qsort(pt, (size_t)n, sizeof(*pt), point_cmp);
        for (i = 0; i < n; i++)
            pt[i].d = depth += pt[i].d;
    }
    for (i = 0; i < n; i++)
        if (pt[i].d > max && pt[i].t <= t->t1 && (i + 1 == n || pt[i + 1].t >= t->t0))
            max = pt[i].d;
    scale = max ? (TL_DEPTH - 16.0) / max : 0;
    fprintf(f, "<text class=\"lane\" x=\"%d\" y=\"%d\">queue depth (max %d)</text>\n"
               "<path class=\"depth\" d=\"M%.1f %.1f",
            TL_X0 - 8, top + TL_DEPTH / 2, max, tl_x(t, t->t0), base);
    depth = 0;
    for (i = 0; i < n; i++) {
        double x = tl_x(t, pt[i].t);
        int d = pt[i].d > max ? max : pt[i].d;
        fprintf(f, " L%.1f %.1f L%.1f %.1f", x, base - depth * scale, x, base - d * scale);
        depth = d;
    }
    fprintf(f, " L%.1f %.1f L%.1f %.1f Z\"/>\n", tl_x(t, t->t1), base - depth * scale,
            tl_x(t, t->t1), base);
    free(pt);
    return 0;
}

/* The legend, in rows that wrap at the figure's width (two at most). */
static void tl_legend(FILE *f, int y)
{
    static const struct {
        const char *cls, *label;
    } keys[] = {{"hold", "holding the lock"},
                {"idle", "idle in transaction"},
                {"stmt", "statement"},
                {"wait o-acq", "logged wait, acquired"},
                {"wait o-dl", "deadlock"},
                {"wait o-lto", "lock timeout"},
                {"wait o-ser", "serialization failure"},
                {"wait o-unk", "other outcome"},
                {"wait hidden", "hidden wait (inferred, never logged)"},
                {"depth", "queue depth"}};
    size_t i;
    int x = 10;
    for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        int w = 30 + (int)strlen(keys[i].label) * 6;
        if (x + w > TL_W) {
            x = 10;
            y += 16;
        }
        fprintf(f, "<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"14\" height=\"10\"/>"
                   "<text class=\"key\" x=\"%d\" y=\"%d\">%s</text>",
                keys[i].cls, x, y, x + 18, y + 9, keys[i].label);
        x += w;
    }
    fputs("\n", f);
}

/* One label per lane, right-aligned in the gutter left of TL_X0 and cut
 * to fit it; the whole name is in its tooltip. */
static void tl_lane_label(FILE *f, const timeline *t, int i)
{
    const tl_lane *ln = &t->lanes[i];
    const char *app = ln->root ? m_str(ln->root, "application") : NULL;
    const char *path = ln->root ? m_str(ln->root, "code_path") : NULL;
    const cJSON *h;
    int k;

    /* The session's own code path (its holds', else its waits'), else
     * its application. */
    cJSON_ArrayForEach(h, t->holds) if (m_num(h, "pid") == ln->pid) {
        if (!app)
            app = m_str(h, "application");
        if (!path)
            path = m_str(h, "code_path");
    }
    for (k = 0; k < t->nwaits; k++)
        if (t->waits[k].lane == i) {
            if (!app)
                app = m_str(t->waits[k].w, "application");
            if (!path)
                path = m_str(t->waits[k].w, "code_path");
        }
    /* pid 0: the holds no backend pid is known for (transactions of
     * spans only behind a pooler), one lane, none made up */
    fprintf(f, "<text class=\"lane%s\" x=\"%d\" y=\"%.1f\"><title>",
            ln->holder ? " holder" : "", TL_X0 - 8, tl_y(t, i) + 4);
    lane_pid(f, ln->pid);
    if (path) {
        fputs(" · ", f);
        ls_html_escape(f, path, 200);
    }
    if (app && !same_str(app, path)) {
        fputs(" (", f);
        ls_html_escape(f, app, 200);
        fputs(")", f);
    }
    fprintf(f, "%s</title>", ln->holder ? ", holding the row" : "");
    lane_pid(f, ln->pid);
    if (path || app) {
        fputs(" · ", f);
        ls_html_escape(f, path ? path : app, 20);
    }
    fputs("</text>\n", f);
}

/* A group's title row: the holder's code path, from the left edge, in a
 * row of its own that has no bars. */
static void tl_group_label(FILE *f, const timeline *t, int g)
{
    double y = TL_TOP + t->group_row[g] * TL_LANE + TL_LANE / 2.0 + 4;
    fprintf(f, "<text class=\"group\" x=\"6\" y=\"%.1f\">", y);
    if (g == t->ngroups) {
        fputs("waiting behind a holder without a lane", f);
    } else {
        fputs("held by ", f);
        text(f, t->groups[g], 150);
    }
    fputs("</text>\n", f);
}

/* Where a cut timeline's row really stops waiting (timeline.last_wait_end),
 * or 0 when nothing of the row's timeline was cut. */
static int64_t tl_cut_until(const cJSON *hot)
{
    const cJSON *tl = m_get(hot, "timeline");
    int64_t t;
    if (!cJSON_IsTrue(m_get(tl, "truncated")) || time_of(tl, "last_wait_end", &t) != 0)
        return 0;
    return t;
}

/* The part of a cut timeline's axis nothing is drawn in: shaded and outlined, so the
 * chart does not look as if the contention ended where its bars do. */
static void tl_cut_band(FILE *f, const timeline *t, int64_t from)
{
    const cJSON *cut = m_get(m_get(t->hot, "timeline"), "cut");
    fprintf(f, "<rect class=\"cut\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\">"
               "<title>not drawn: the row's waits go on to ",
            tl_x(t, from), TL_TOP, tl_x(t, t->t1) - tl_x(t, from), t->nrows * TL_LANE);
    put_ts(f, t->t1);
    fprintf(f, " (%.0f of its %.0f waits and %.0f of its %.0f holds are drawn)</title></rect>\n",
            m_num(m_get(cut, "waits"), "listed"), m_num(m_get(cut, "waits"), "total"),
            m_num(m_get(cut, "holds"), "listed"), m_num(m_get(cut, "holds"), "total"));
}

static int timeline_svg(FILE *f, const cJSON *model, const cJSON *hot, int id, int ep,
                        int64_t w0, int64_t w1, int last)
{
    timeline t;
    int i, rc, height, depth_top, arrow = id * 16 + ep;
    int64_t cut_from = 0, until = last ? tl_cut_until(hot) : 0;

    if ((rc = tl_build(&t, model, hot, w0, w1)) != 0)
        return rc;
    if (until > t.t1) { /* the axis runs on to where the row's waits end */
        cut_from = t.t1;
        t.t1 = until;
    }
    depth_top = TL_TOP + t.nrows * TL_LANE + 8;
    height = depth_top + TL_DEPTH + TL_LEGEND;
    fprintf(f, "<p class=\"episode\">Episode %d: ", ep + 1);
    put_ts(f, t.t0);
    fputs(" to ", f);
    put_ts(f, t.t1);
    fputs(" (", f);
    put_ms(f, (double)(t.t1 - t.t0) / 1000.0);
    fprintf(f, "), %d logged waits drawn", t.nlogged);
    if (t.nwaits > t.nlogged)
        fprintf(f, ", %d hidden", t.nwaits - t.nlogged);
    fputs("</p>\n", f);
    fprintf(f, "<svg class=\"tl\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
               "aria-label=\"timeline of the row\">\n"
               "<defs><marker id=\"arrow%d\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" "
               "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">"
               "<path d=\"M0 0 L10 5 L0 10 z\" class=\"arrowhead\"/></marker></defs>\n",
            TL_W, height, TL_W, height, arrow);
    for (i = 0; i < t.nrows; i++)
        fprintf(f, "<rect class=\"band%d\" x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\"/>", i % 2,
                TL_TOP + i * TL_LANE, TL_W, TL_LANE);
    if (cut_from)
        tl_cut_band(f, &t, cut_from);
    tl_axis(f, &t, depth_top + TL_DEPTH - 4);
    for (i = 0; i <= t.ngroups; i++)
        if (t.group_row[i] >= 0)
            tl_group_label(f, &t, i);
    for (i = 0; i < t.nlanes; i++) {
        tl_lane_label(f, &t, i);
        if (t.lanes[i].holder)
            tl_holder_lane(f, &t, &t.lanes[i], tl_y(&t, i));
    }
    for (i = 0; i < t.nwaits; i++)
        tl_wait_bar(f, &t, &t.waits[i], arrow);
    rc = tl_depth(f, &t, depth_top);
    tl_legend(f, height - TL_LEGEND + 4);
    fputs("</svg>\n", f);
    if (t.waits_omitted || t.nomitted_pids)
        fprintf(f, "<p class=\"note\">%d more sessions%s (%d of their logged waits) are not "
                   "drawn: at most %d lanes per timeline.</p>\n",
                t.nomitted_pids,
                t.nomitted_pids == (int)(sizeof(t.omitted_pids) / sizeof(t.omitted_pids[0]))
                    ? " or more"
                    : "",
                t.waits_omitted, TL_MAX_LANES);
    if (t.nlogged > TL_MAX_ARROWS)
        fprintf(f, "<p class=\"note\">Arrows to the blocker are left out above %d waits; "
                   "each bar's tooltip names it.</p>\n",
                TL_MAX_ARROWS);
    if (t.no_statements)
        fprintf(f, "<p class=\"note\">%d holder%s without statements here: only the top root "
                   "blockers' statements are in the report.</p>\n",
                t.no_statements, t.no_statements == 1 ? "" : "s");
    free(t.waits);
    return rc;
}

/* What a cut timeline leaves out, list by list, and how to see it all:
 * "Cut: 5 of the row's 27 waits are drawn, 5 of its 24 holds, ...". */
static void tl_cut_note(FILE *f, const cJSON *hot)
{
    static const struct {
        const char *list, *what;
    } lists[] = {{"waits", "waits"},
                 {"holds", "holds"},
                 {"hidden_waits", "hidden waits"},
                 {"queue", "queue-depth points"}};
    const cJSON *cut = m_get(m_get(hot, "timeline"), "cut"), *c;
    int buckets = cJSON_GetArraySize(m_get(m_get(hot, "timeline"), "queue_buckets"));
    double most = 0;
    size_t i;
    int n = 0;

    fputs("<p class=\"note cut\"><b>Cut:</b> this timeline draws ", f);
    for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
        if (!(c = m_get(cut, lists[i].list)))
            continue;
        /* The queue is drawn whole, past its listed points by bucket. */
        if (strcmp(lists[i].list, "queue") == 0 && buckets > 0)
            continue;
        fprintf(f, "%s%.0f of the row's %.0f %s", n++ ? ", " : "", m_num(c, "listed"),
                m_num(c, "total"), lists[i].what);
        if (strcmp(lists[i].list, "queue") != 0 && m_num(c, "total") > most)
            most = m_num(c, "total");
    }
    fputs(" (the first in time; the longest hidden waits). The row's waits go on to ", f);
    put_time(f, m_str(m_get(hot, "timeline"), "last_wait_end"));
    fputs(": the shaded part of the axis, outlined, has what is not drawn", f);
    if (buckets > 0)
        fprintf(f, " but the queue depth, drawn to the end from the row's whole queue (its "
                   "deepest in each of %d steps)",
                buckets);
    fprintf(f, ". <code>--max-waits %.0f</code> draws it all.</p>\n", most);
}

/* A hot row's figure: one timeline per contention episode. */
static int timeline_figure(FILE *f, const cJSON *model, const cJSON *hot, int id)
{
    int64_t ep[2 * TL_MAX_EPISODES];
    int n = tl_episodes(model, hot, ep, TL_MAX_EPISODES), i, rc = 0, found = 0;
    const cJSON *w, *src;
    int own;

    fprintf(f, "<figure class=\"timeline\" id=\"timeline-%d\">\n<figcaption>", id);
    text(f, m_str(hot, "relation"), 64);
    ls_write_opt(f, " ", m_str(hot, "row_key"), ls_html_escape, 64);
    ls_write_opt(f, " ", m_str(hot, "ctid"), ls_html_escape, 40);
    fprintf(f, " — %.0f waits", m_num(hot, "waits"));
    if (n > 1)
        fprintf(f, " in %d episodes (quiet gaps of 5 min or more between them)", n);
    fputs("</figcaption>\n", f);
    /* No wait of the row in the model to place an episode by: an axis
     * over all time would be ±146,000 years long (and overflow). */
    if (n == 0)
        fputs("<p class=\"note\">None of this row's waits is in the report to draw.</p>\n", f);
    for (i = 0; i < n && i < TL_MAX_EPISODES && rc == 0; i++)
        rc = timeline_svg(f, model, hot, id, i, ep[2 * i], ep[2 * i + 1],
                          i == n - 1 || i == TL_MAX_EPISODES - 1);
    if (n > TL_MAX_EPISODES)
        fprintf(f, "<p class=\"note\">%d later episodes are not drawn.</p>\n",
                n - TL_MAX_EPISODES);
    src = tl_wait_source(model, hot, &own);
    cJSON_ArrayForEach(w, src) found += on_row(w, hot, own);
    if (cJSON_IsTrue(m_get(m_get(hot, "timeline"), "truncated")))
        tl_cut_note(f, hot);
    else if (found < (int)m_num(hot, "waits"))
        fprintf(f, "<p class=\"note\">%d of the row's %.0f waits are in the report (the wait "
                   "list is bounded; see --max-waits).</p>\n",
                found, m_num(hot, "waits"));
    fputs("</figure>\n", f);
    return rc;
}

static void panel_timelines(FILE *f, const cJSON *model)
{
    const cJSON *hot;
    int n = 0;
    if (cJSON_GetArraySize(m_get(model, "hot_rows")) == 0) {
        fprintf(f, "<p>%s</p>\n", ls_no_hot_rows(model));
        return;
    }
    fputs("<p>A lane per session, grouped under the code path of the transaction holding "
          "the row. A holder's transaction is a hold bar, with its statements as ticks and "
          "the idle gaps between them shaded; each logged wait is a bar coloured by outcome "
          "(with an arrow to the session it waited for when there are few); hidden waits, "
          "rebuilt from the holds and too short to be logged, are dashed. The window is "
          "the contention episode.<span class=\"hover\"> Hover a bar for details.</span></p>\n",
          f);
    cJSON_ArrayForEach(hot, m_get(model, "hot_rows")) {
        if (n >= TL_MAX_TIMELINES)
            break;
        if (timeline_figure(f, model, hot, ++n) != 0) {
            fputs("<p class=\"note\">out of memory drawing this timeline</p>\n", f);
            break;
        }
    }
    if (cJSON_GetArraySize(m_get(model, "hot_rows")) > n)
        fprintf(f, "<p class=\"note\">Timelines of %d more rows are not drawn.</p>\n",
                cJSON_GetArraySize(m_get(model, "hot_rows")) - n);
}

/* ---- root blockers ---- */

/* A root blocker's statements, folded under their count: what it held and
 * why stays in sight above, the statement by statement detail one click
 * (or the print) away. */
static void statements_folded(FILE *f, const cJSON *statements)
{
    int n = cJSON_GetArraySize(statements);
    if (n == 0)
        return;
    fprintf(f, "<details class=\"more\"><summary>%d statement%s of its transaction</summary>\n",
            n, n == 1 ? "" : "s");
    TABLE(f, ls_tab_statements, statements);
    fputs("</details>\n", f);
}

static void panel_roots(FILE *f, const cJSON *model)
{
    ls_writer w = html_writer(f);
    const cJSON *r;
    int k = 0, total = cJSON_GetArraySize(m_get(model, "root_blockers"));
    if (cJSON_GetArraySize(m_get(model, "root_blockers")) == 0) {
        fputs("<p>None.</p>\n", f);
        return;
    }
    fputs("<div class=\"roots\">\n", f);
    cJSON_ArrayForEach(r, m_get(model, "root_blockers")) {
        const cJSON *tx = m_get(r, "transaction"), *st;
        double idle = 0;
        if (k == FOLD_ARTICLES)
            fputs("</div>\n", f);
        fold_at(f, k, total, FOLD_ARTICLES, "root blockers");
        if (k++ == FOLD_ARTICLES)
            fputs("<div class=\"roots\">\n", f);
        cJSON_ArrayForEach(st, m_get(tx, "statements")) idle += m_num(st, "idle_before_ms");
        fputs("<article class=\"root\">\n<h3>pid ", f);
        put_pid(f, m_num(r, "pid"), r, "pid");
        ls_write_opt(f, " — ", m_str(r, "application"), ls_html_escape, 80);
        fprintf(f, "</h3>\n<ul>\n<li>Caused %.0f waits, ", m_num(r, "waits_caused"));
        put_ms(f, m_num(r, "waiter_ms"));
        fputs(" of waiting in total</li>\n", f);
        if (m_has_num(r, "xid"))
            fprintf(f, "<li>Transaction id %.0f</li>\n", m_num(r, "xid"));
        fputs("<li>User ", f);
        text(f, m_str(r, "user"), 64);
        fputs(", database ", f);
        text(f, m_str(r, "database"), 64);
        fputs("</li>\n", f);
        ls_write_bullet(&w, "Rows: ", m_str(r, "rows"), 200);
        ls_write_root_tx_unknown(&w, r);
        ls_write_holder_state(&w, r);
        if (m_has_num(tx, "duration_ms") && m_str(tx, "split_unknown_reason")) {
            /* its end not in the log: a lower bound, its idle unknown */
            fputs("<li>Transaction lasted at least ", f);
            put_ms(f, m_num(tx, "duration_ms"));
            fputs(", its idle time between statements " LS_UNKNOWN ": ", f);
            text(f, m_str(tx, "split_unknown_reason"), 0);
            fputs("</li>\n", f);
        } else if (m_has_num(tx, "duration_ms")) {
            fputs("<li>Transaction lasted ", f);
            put_ms(f, m_num(tx, "duration_ms"));
            fputs(", ", f);
            put_ms(f, idle);
            fputs(" of it idle between statements</li>\n", f);
        }
        fputs("</ul>\n", f);
        statements_folded(f, m_get(tx, "statements"));
        fputs("</article>\n", f);
    }
    fputs("</div>\n", f);
    fold_end(f, total, FOLD_ARTICLES);
}

/* Findings: what the evidence says, and the fix each suggests. */
static void panel_findings(FILE *f, const cJSON *model)
{
    ls_writer w = html_writer(f);
    ls_write_findings(&w, m_get(model, "findings"), m_get(m_get(model, "summary"), "filter"));
}

/* The class of a hold-breakdown part kind; never the log's own text. */
static const char *part_class(const char *part)
{
    static const char *const known[] = {"sql", "commit", "span", "idle"};
    static const char *const cls[] = {"p-sql", "p-commit", "p-span", "p-idle"};
    size_t i;
    for (i = 0; part && i < sizeof(known) / sizeof(known[0]); i++)
        if (strcmp(part, known[i]) == 0)
            return cls[i];
    return "p-other";
}

/* A stacked bar of where the hold time went, coloured by part kind, with
 * a legend naming each kind drawn; the names are in the table below. */
static void breakdown_bar(FILE *f, const cJSON *parts)
{
    static const struct {
        const char *cls, *label;
    } keys[] = {{"p-sql", "running SQL"},
                {"p-idle", "idle in transaction"},
                {"p-span", "application span (traces)"},
                {"p-commit", "commit"},
                {"p-other", "other"}};
    const cJSON *p;
    double total = 0, x = 0;
    size_t i;
    cJSON_ArrayForEach(p, parts) total += m_num(p, "ms");
    if (total <= 0)
        return;
    fputs("<svg class=\"bar\" viewBox=\"0 0 600 18\" width=\"600\" height=\"18\" "
          "role=\"img\" aria-label=\"where the hold time went\">",
          f);
    cJSON_ArrayForEach(p, parts) {
        double w = 600.0 * m_num(p, "ms") / total;
        fprintf(f, "<rect class=\"%s\" x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"18\">",
                part_class(m_str(p, "part")), x, w);
        fputs("<title>", f);
        text(f, m_str(p, "name"), 120);
        fputs(": ", f);
        put_ms(f, m_num(p, "ms"));
        fputs("</title></rect>", f);
        x += w;
    }
    fputs("</svg>\n<p class=\"legend\">", f);
    for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        double ms = 0;
        int seen = 0;
        cJSON_ArrayForEach(p, parts) {
            if (strcmp(part_class(m_str(p, "part")), keys[i].cls) == 0) {
                ms += m_num(p, "ms");
                seen = 1;
            }
        }
        if (!seen)
            continue;
        fprintf(f, "<span class=\"chip %s\">%s ", keys[i].cls, keys[i].label);
        put_ms(f, ms);
        fputs("</span> ", f);
    }
    fputs("</p>\n", f);
}

/*
 * The lock tree when the busiest row's queue was longest. A waiter waits
 * for one lock at a time, so a pid is listed once: at its first (shallowest)
 * entry in the model's list; repeats under other blockers are counted.
 */
static void panel_worst(FILE *f, const cJSON *model)
{
    const cJSON *wm = m_get(model, "worst_moment"), *w, *x;
    cJSON *uniq;
    int repeats = 0;
    if (!cJSON_IsObject(wm) || cJSON_GetArraySize(m_get(wm, "waits")) == 0) {
        fputs("<p>No lock waits were logged.</p>\n", f);
        return;
    }
    uniq = cJSON_CreateArray();
    cJSON_ArrayForEach(w, m_get(wm, "waits")) {
        int dup = 0;
        cJSON_ArrayForEach(x, uniq) dup |= m_num(x, "pid") == m_num(w, "pid");
        if (dup)
            repeats++;
        else if (uniq)
            cJSON_AddItemReferenceToArray(uniq, (cJSON *)w);
    }
    fputs("<p>Every wait open at ", f);
    put_time(f, m_str(wm, "time"));
    fputs(", when the busiest row's queue was longest.</p>\n", f);
    TABLE(f, ls_tab_tree, uniq);
    if (repeats)
        fprintf(f, "<p class=\"note\">%d more entr%s for a pid already listed (the log "
                   "named several blockers for one wait) left out.</p>\n",
                repeats, repeats == 1 ? "y" : "ies");
    cJSON_Delete(uniq);
}

/* The slowest traced requests and their row-lock queueing; then the
 * requests named with --trace-id. */
static void panel_requests(FILE *f, const cJSON *model)
{
    if (cJSON_GetArraySize(m_get(model, "slow_requests")) == 0)
        fputs("<p>No traces were given: pass an OTLP, Jaeger or Zipkin export to see which "
              "requests queued for row locks.</p>\n", f);
    else
        TABLE(f, ls_tab_requests, m_get(model, "slow_requests"));
}

/* The requests named with --trace-id, one by one. */
static void panel_trace_requests(FILE *f, const cJSON *model)
{
    const cJSON *r;
    ls_writer w = html_writer(f);
    cJSON_ArrayForEach(r, m_get(model, "trace_requests")) ls_write_request(&w, r);
}

/* Is the --trace-id section in this report? */
static int has_trace_requests(const cJSON *model)
{
    return cJSON_IsArray(m_get(model, "trace_requests"));
}

/* Each transaction shape's full statements in a fold under its label. */
static void shapes(FILE *f, const cJSON *model)
{
    const cJSON *o;
    cJSON_ArrayForEach(o, m_get(model, "row_occupancy")) {
        if (!m_str(o, "statements"))
            continue;
        fputs("<details class=\"shape\"><summary>", f);
        text(f, m_str(o, "code_path"), 400);
        fputs("</summary><pre><code>", f);
        text(f, m_str(o, "statements"), 0);
        fputs("</code></pre></details>\n", f);
    }
}

/* The headline ranking, with each path's hold-time breakdown. */
static void panel_code_paths(FILE *f, const cJSON *model)
{
    const cJSON *c;
    if (cJSON_GetArraySize(m_get(model, "row_occupancy")) > 0) {
        ls_writer w = html_writer(f);
        sub_heading(f, &ls_tab_occupancy);
        TABLE(f, ls_tab_occupancy, m_get(model, "row_occupancy"));
        ls_write_shape_reason(&w, model);
        shapes(f, model);
        ls_write_order_uncertain(&w, m_get(model, "row_occupancy"), LS_RANKING_OCCUPANCY);
        ls_write_order_unknown(&w, m_get(model, "row_occupancy"));
    }
    if (cJSON_GetArraySize(m_get(model, "row_queueing")) > 0) {
        sub_heading(f, &ls_tab_queueing);
        TABLE(f, ls_tab_queueing, m_get(model, "row_queueing"));
    }
    sub_heading(f, &ls_tab_code_paths);
    if (cJSON_GetArraySize(m_get(model, "code_paths")) == 0) {
        ls_writer w = html_writer(f);
        ls_write_no_code_paths(&w, model);
        return;
    }
    TABLE(f, ls_tab_code_paths, m_get(model, "code_paths"));
    {
        ls_writer w = html_writer(f);
        ls_write_order_uncertain(&w, m_get(model, "code_paths"), LS_RANKING_BLOCKING);
    }
    cJSON_ArrayForEach(c, m_get(model, "code_paths")) {
        if (cJSON_GetArraySize(m_get(c, "hold_breakdown")) == 0)
            continue;
        fputs("<h3>", f);
        text(f, m_str(c, "code_path"), 120);
        fputs("</h3>\n", f);
        breakdown_bar(f, m_get(c, "hold_breakdown"));
        TABLE(f, ls_tab_parts, m_get(c, "hold_breakdown"));
        if (m_str(c, "hold_breakdown_unknown_reason")) {
            fputs("<p class=\"note\">", f);
            text(f, m_str(c, "hold_breakdown_unknown_reason"), 0);
            fputs("</p>\n", f);
        }
    }
    if (cJSON_GetArraySize(m_get(model, "lock_order_conflicts")) > 0) {
        sub_heading(f, &ls_tab_conflicts);
        TABLE(f, ls_tab_conflicts, m_get(model, "lock_order_conflicts"));
    }
}

static void panel_by_statement(FILE *f, const cJSON *model)
{
    ls_writer w = html_writer(f);
    ls_write_by_statement(&w, model);
}

static void panel_holds(FILE *f, const cJSON *model)
{
    if (cJSON_GetArraySize(m_get(model, "holds")) == 0) {
        fputs("<p>None.</p>\n", f);
        return;
    }
    TABLE(f, ls_tab_holds, m_get(model, "holds"));
}

static void panel_waits(FILE *f, const cJSON *model)
{
    const cJSON *ws = m_get(model, "waits");
    if (cJSON_GetArraySize(ws) == 0) {
        fputs("<p>None.</p>\n", f);
        return;
    }
    TABLE(f, ls_tab_waits, ws);
}

/* ---- deadlocks ---- */

static int node_of(double *pids, int *n, double pid)
{
    int i;
    for (i = 0; i < *n; i++)
        if (pids[i] == pid)
            return i;
    if (*n >= DL_MAX_NODES)
        return -1;
    pids[*n] = pid;
    return (*n)++;
}

static const char *proc_app(const cJSON *model, double pid)
{
    const cJSON *w;
    cJSON_ArrayForEach(w, m_get(model, "waits")) if (m_num(w, "pid") == pid && m_str(w, "application"))
        return m_str(w, "application");
    return NULL;
}

/* cos and sin by Taylor series (no libm for one diagram). */
static void unit_circle(double a, double *c, double *s)
{
    const double pi = 3.14159265358979323846;
    double term_c = 1, term_s, x2;
    int k;
    while (a > pi)
        a -= 2 * pi;
    while (a < -pi)
        a += 2 * pi;
    term_s = a;
    x2 = a * a;
    *c = 0;
    *s = 0;
    for (k = 0; k < 12; k++) {
        *c += term_c;
        *s += term_s;
        term_c *= -x2 / ((2 * k + 1) * (2 * k + 2));
        term_s *= -x2 / ((2 * k + 2) * (2 * k + 3));
    }
}

static double root2(double v)
{
    double r = v > 1 ? v : 1;
    int i;
    if (v <= 0)
        return 0;
    for (i = 0; i < 40; i++)
        r = 0.5 * (r + v / r);
    return r;
}

static void deadlock_svg(FILE *f, const cJSON *model, const cJSON *d, int id)
{
    enum { W = 640, CX = 320, RX = 200, NODE = 34 };
    double pids[DL_MAX_NODES], px[DL_MAX_NODES], py[DL_MAX_NODES];
    int n = 0, i, skipped = 0, H, CY, RY;
    const cJSON *e, *p;

    cJSON_ArrayForEach(e, m_get(d, "edges")) {
        if (node_of(pids, &n, m_num(e, "waiter_pid")) < 0 ||
            node_of(pids, &n, m_num(e, "blocker_pid")) < 0)
            skipped++;
    }
    if (n == 0)
        return;
    /* Two processes sit side by side: no need for the full circle's height. */
    RY = n <= 2 ? 0 : 105;
    CY = n <= 2 ? 80 : 160;
    H = n <= 2 ? 160 : 330;
    for (i = 0; i < n; i++) {
        double c, s;
        unit_circle(3.14159265358979323846 * (1 + 2.0 * i / n), &c, &s);
        px[i] = CX + RX * c;
        py[i] = CY + RY * s;
    }
    fprintf(f, "<svg class=\"dl\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
               "aria-label=\"deadlock cycle\">\n"
               "<defs><marker id=\"dlarrow%d\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" "
               "markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\">"
               "<path d=\"M0 0 L10 5 L0 10 z\" class=\"arrowhead\"/></marker></defs>\n",
            W, H, W, H, id);
    cJSON_ArrayForEach(e, m_get(d, "edges")) {
        int a = node_of(pids, &n, m_num(e, "waiter_pid"));
        int b = node_of(pids, &n, m_num(e, "blocker_pid"));
        double dx, dy, len, cx, cy, ax, ay, bx, by, l;
        if (a < 0 || b < 0 || a == b)
            continue;
        dx = px[b] - px[a];
        dy = py[b] - py[a];
        len = root2(dx * dx + dy * dy);
        /* Bend each arrow to its left, so A→B and B→A stay apart. */
        cx = (px[a] + px[b]) / 2 + dy / len * 60;
        cy = (py[a] + py[b]) / 2 - dx / len * 60;
        l = root2((cx - px[a]) * (cx - px[a]) + (cy - py[a]) * (cy - py[a]));
        ax = px[a] + (cx - px[a]) / l * NODE;
        ay = py[a] + (cy - py[a]) / l * NODE;
        l = root2((cx - px[b]) * (cx - px[b]) + (cy - py[b]) * (cy - py[b]));
        bx = px[b] + (cx - px[b]) / l * (NODE + 2);
        by = py[b] + (cy - py[b]) / l * (NODE + 2);
        fprintf(f, "<path class=\"edge\" d=\"M%.1f %.1f Q%.1f %.1f %.1f %.1f\" "
                   "marker-end=\"url(#dlarrow%d)\"><title>",
                ax, ay, cx, cy, bx, by, id);
        title_pid(f, m_num(e, "waiter_pid"), e, "waiter_");
        fputs(" waits for ", f);
        text(f, m_str(e, "mode"), 40);
        fputs(" on ", f);
        text(f, m_str(e, "target"), 120);
        fputs(", held by ", f);
        title_pid(f, m_num(e, "blocker_pid"), e, "blocker_");
        fputs("</title></path>\n", f);
        fprintf(f, "<text class=\"elabel\" x=\"%.1f\" y=\"%.1f\">", 0.25 * ax + 0.5 * cx + 0.25 * bx,
                0.25 * ay + 0.5 * cy + 0.25 * by + 4);
        text(f, m_str(e, "mode"), 24); /* the lock is in the tooltip and the table */
        fputs("</text>\n", f);
    }
    for (i = 0; i < n; i++) {
        int victim = pids[i] == m_num(d, "victim_pid");
        const char *app = victim ? m_str(d, "victim_application") : NULL, *path = NULL;
        if (!app)
            app = proc_app(model, pids[i]);
        cJSON_ArrayForEach(p, m_get(d, "processes")) if (!path && m_num(p, "pid") == pids[i])
            path = m_str(p, "code_path");
        cJSON_ArrayForEach(e, m_get(d, "edges")) {
            if (!path && m_num(e, "waiter_pid") == pids[i])
                path = m_str(e, "waiter_code_path");
            if (!path && m_num(e, "blocker_pid") == pids[i])
                path = m_str(e, "blocker_code_path");
        }
        fprintf(f, "<g class=\"node%s\"><title>pid %.0f", victim ? " victim" : "", pids[i]);
        if (path) {
            fputs(" · ", f);
            ls_html_escape(f, path, 120);
        }
        if (app) {
            fputs(" — ", f);
            ls_html_escape(f, app, 120);
        }
        cJSON_ArrayForEach(p, m_get(d, "processes")) {
            if (m_num(p, "pid") == pids[i]) {
                fputs("\n", f);
                ls_html_escape(f, m_str(p, "query"), 300);
            }
        }
        fprintf(f, "</title><circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\">pid %.0f</text>",
                px[i], py[i], NODE, px[i], py[i] + (victim ? -2 : 4), pids[i]);
        if (victim)
            fprintf(f, "<text class=\"sub\" x=\"%.1f\" y=\"%.1f\">victim</text>", px[i],
                    py[i] + 12);
        /* The code path under the node, cut to the node's spacing. */
        if (path) {
            fprintf(f, "<text class=\"sub\" x=\"%.1f\" y=\"%.1f\">· ", px[i],
                    py[i] + NODE + 14);
            ls_html_escape(f, path, 28);
            fputs("</text>", f);
        }
        fputs("</g>\n", f);
    }
    fputs("</svg>\n", f);
    if (skipped)
        fprintf(f, "<p class=\"note\">%d edges left out (at most %d processes drawn).</p>\n",
                skipped, DL_MAX_NODES);
}

static void panel_deadlocks(FILE *f, const cJSON *model)
{
    const cJSON *d;
    int n = 0, total = cJSON_GetArraySize(m_get(model, "deadlocks"));
    if (cJSON_GetArraySize(m_get(model, "deadlocks")) == 0) {
        fputs("<p>None.</p>\n", f);
        return;
    }
    cJSON_ArrayForEach(d, m_get(model, "deadlocks")) {
        fold_at(f, n, total, FOLD_ARTICLES, "deadlocks");
        fprintf(f, "<article class=\"deadlock\" id=\"deadlock-%d\">\n<h3>Deadlock %d — ", n + 1,
                n + 1);
        put_time(f, m_str(d, "time"));
        fputs(", victim pid ", f);
        put_pid(f, m_num(d, "victim_pid"), d, "victim_pid");
        if (m_str(d, "victim_application")) {
            fputs(" (", f);
            ls_html_escape(f, m_str(d, "victim_application"), 64);
            fputs(")", f);
        }
        fputs("</h3>\n<p class=\"src\">Logged at ", f);
        text(f, m_str(d, "file"), 200);
        fprintf(f, ":%.0f. An arrow reads \"waits for\".</p>\n", m_num(d, "line"));
        deadlock_svg(f, model, d, ++n);
        TABLE(f, ls_tab_edges, m_get(d, "edges"));
        TABLE(f, ls_tab_processes, m_get(d, "processes"));
        fputs("</article>\n", f);
    }
    fold_end(f, total, FOLD_ARTICLES);
}

static void panel_errors(FILE *f, const cJSON *model)
{
    if (cJSON_GetArraySize(m_get(model, "errors")) == 0) {
        fputs("<p>None.</p>\n", f);
        return;
    }
    TABLE(f, ls_tab_errors, m_get(model, "errors"));
}

static void panel_input(FILE *f, const cJSON *model)
{
    const cJSON *in = m_get(model, "input");
    ls_writer w = html_writer(f);
    ls_write_input_notes(&w, in);
    TABLE(f, ls_tab_files, m_get(in, "files"));
    if (cJSON_GetArraySize(m_get(in, "bad_line_samples")) > 0) {
        fputs("<h3>Unparsable lines (first of each file)</h3>\n", f);
        TABLE(f, ls_tab_bad_lines, m_get(in, "bad_line_samples"));
    }
}

/* ---- the page ---- */

typedef void (*panel_fn)(FILE *f, const cJSON *model);

/* The report's sections, in order. Each id is also the nav anchor. */
static const struct panel {
    int section;       /* its anchor and title: ls_sections[section] */
    const char *intro; /* one line under the heading, or NULL */
    panel_fn render;
    int (*shown)(const cJSON *model); /* NULL: always; else in the page and the
                                         contents only when it says so */
} panels[] = {
    {LS_SEC_SUMMARY, NULL, panel_summary, NULL},
    {LS_SEC_FINDINGS, "What the evidence points to, and the fix each finding suggests.",
     panel_findings, NULL},
    {LS_SEC_CODE_PATHS,
     "Transactions grouped by code path (from trace spans, sqlcommenter tags, "
     "application_name or statement shape), ranked by how long they held rows others "
     "waited for.",
     panel_code_paths, NULL},
    {LS_SEC_HOT_ROWS,
     "Logical rows (one row however many ctids its updates gave it) ranked by the total time "
     "others waited for them; serial capacity is 1 / mean hold.",
     panel_hot_rows, NULL},
    {LS_SEC_RELATION_QUEUES, NULL, panel_relation_queues, has_relation_queues},
    {LS_SEC_TIMELINES, NULL, panel_timelines, NULL},
    {LS_SEC_SLOW_REQUESTS,
     "The slowest requests in the traces and how much of each was queueing for row locks "
     "(logged waits and the shorter ones the log never shows), behind which code path.",
     panel_requests, NULL},
    {LS_SEC_TRACE_REQUESTS, "Each request named with --trace-id, wait by wait.",
     panel_trace_requests, has_trace_requests},
    {LS_SEC_ROOT_BLOCKERS,
     "The transactions at the head of the queues: what they held, and what they ran "
     "meanwhile. Idle time before a statement is time the lock was held while the "
     "application did something else.",
     panel_roots, NULL},
    {LS_SEC_HOLDS,
     "Each time a transaction held a hot row, ranked by the waiting it caused, with where "
     "its time went: running SQL, idle in transaction, committing.",
     panel_holds, NULL},
    {LS_SEC_BY_STATEMENT,
     "What a DBA reads first, from the log alone (no traces needed): where the waits were, "
     "and which statements waited and blocked.",
     panel_by_statement, NULL},
    {LS_SEC_WORST_MOMENT, NULL, panel_worst, NULL},
    {LS_SEC_WAITS, NULL, panel_waits, NULL},
    {LS_SEC_DEADLOCKS, NULL, panel_deadlocks, NULL},
    {LS_SEC_ERRORS, NULL, panel_errors, NULL},
    {LS_SEC_INPUT, NULL, panel_input, NULL},
};

/* Under the 4095 characters ISO C asks compilers to support per string. */
static const char *const css[] = {
    ":root{color-scheme:light dark;--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--bg:#fff;"
    "--bg2:#f6f8fa;--bg3:#fbfcfd;--link:#0969da;--fix:#1a5e20;--warn:#fff8c5;--acq:#3b7dd8;"
    "--dl:#cf222e;--lto:#e16f24;--sto:#bc4c00;--ser:#8250df;--can:#6e7781;--hold:#2da44e;"
    "--idle:#f2cc60;--stmt:#1a7f37;--grid:#e4e8ec;--ink:#444;--hid:#0550ae;--sql:#2e7d32;"
    "--commit:#6a1b9a;--span:#1565c0;--other:#757575}\n"
    "@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9da7b3;--line:#30363d;"
    "--bg:#0d1117;--bg2:#161b22;--bg3:#11161d;--link:#58a6ff;--fix:#7ee787;--warn:#3b2e00;"
    "--grid:#262c34;--ink:#c9d1d9;--hid:#79c0ff;--stmt:#3fb950}}\n"
    "*{box-sizing:border-box}\n"
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:var(--fg);"
    "background:var(--bg);margin:0 auto;max-width:1800px;padding:0 16px 48px}\n"
    "header{border-bottom:1px solid var(--line);margin-bottom:8px}\n"
    "h1{font-size:24px;margin:20px 0 4px}h2{font-size:19px;margin:28px 0 8px;"
    "border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:15px;margin:16px 0 6px}\n"
    ".meta,.note,.src,.legend{color:var(--muted);font-size:12px}\n"
    "nav a{margin-right:12px;color:var(--link);text-decoration:none}\n"
    "table{border-collapse:collapse;margin:6px 0 12px;font-size:13px}\n"
    "th,td{border:1px solid var(--line);padding:3px 7px;text-align:left;vertical-align:top;"
    "overflow-wrap:break-word}\n"
    "th{background:var(--bg2)}tbody tr:nth-child(even){background:var(--bg3)}\n"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}td.n{white-space:nowrap}\n"
    "td.src,.lw{overflow-wrap:anywhere}\n"
    "td.t{font-variant-numeric:tabular-nums;min-width:7em}\n"
    "code{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;"
    "white-space:pre-wrap;word-break:break-word}\n"
    ".scroll{overflow-x:auto}td code{display:block;min-width:12em;max-width:60em}\n"
    "details.more{margin:-6px 0 12px}details.more summary,details.list summary{cursor:pointer;"
    "color:var(--link);font-size:12px}\n"
    "details.long summary{cursor:pointer}td summary code{display:inline}"
    ".count{color:var(--muted);font-size:11px;white-space:nowrap}\n"
    ".roots{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,620px),1fr));"
    "column-gap:28px}\n"
    ".cards{display:flex;flex-wrap:wrap;gap:8px;margin:10px 0}\n"
    ".cards div{border:1px solid var(--line);border-radius:6px;padding:6px 10px;min-width:150px;"
    "color:var(--muted);font-size:12px}.cards b{display:block;font-size:18px;color:var(--fg)}\n"
    "table.kv th{font-weight:normal;color:var(--muted)}\n"
    ".findings li{margin:4px 0}.fix{display:block;color:var(--fix)}"
    ".filter{background:var(--warn);padding:4px 8px;border-radius:4px}\n"
    ".answer{font-size:15px;border-left:4px solid var(--link);padding:6px 10px;"
    "background:var(--bg2)}\n"
    ".chip{display:inline-block;padding:0 6px;border-radius:8px;color:#fff;font-size:12px}\n"
    ".o-acq{background:var(--acq);fill:var(--acq)}.o-dl{background:var(--dl);fill:var(--dl)}"
    ".o-lto{background:var(--lto);fill:var(--lto)}.o-sto{background:var(--sto);fill:var(--sto)}"
    ".o-ser{background:var(--ser);fill:var(--ser)}.o-can,.o-unk{background:var(--can);"
    "fill:var(--can)}\n"
    "figure{margin:12px 0 20px}figcaption{font-weight:600;margin-bottom:4px}\n"
    /* A phone: the timeline keeps a readable size (11 px text at 900
     * units wide) and scrolls sideways inside its figure. */
    "@media screen and (max-width:700px){figure.timeline{overflow-x:auto}"
    "figure.timeline svg.tl{max-width:none;width:900px}}\n",
    ".p-sql{background:var(--sql);fill:var(--sql)}.p-commit{background:var(--commit);"
    "fill:var(--commit)}.p-span{background:var(--span);fill:var(--span)}.p-idle{background:"
    "var(--idle);fill:var(--idle);color:#000}.p-other{background:var(--other);fill:var(--other)}\n"
    "svg{max-width:100%;height:auto;font:11px system-ui,sans-serif}\n"
    "svg .band0{fill:var(--bg)}svg .band1{fill:var(--bg2)}svg .grid{stroke:var(--grid)}\n"
    "svg .tick{fill:var(--muted);text-anchor:middle}"
    "svg .lane{fill:var(--fg);text-anchor:end}svg .group{fill:var(--muted);font-weight:600}\n"
    "svg .hold{fill:var(--hold);fill-opacity:.35;stroke:var(--hold)}"
    "svg .idle{fill:var(--idle);fill-opacity:.8;stroke:#bf8700;stroke-dasharray:3 2}"
    "svg .stmt{fill:var(--stmt)}\n"
    "svg .wait{stroke:#0003}svg .link{stroke:var(--ink);stroke-width:1.2}"
    "svg .arrowhead{fill:var(--ink)}\n"
    "svg .wait.hidden{fill:var(--hid);fill-opacity:.18;stroke:var(--hid);stroke-width:1.2;"
    "stroke-dasharray:4 2}\n"
    "svg .depth{fill:#8c959f;fill-opacity:.35;stroke:var(--muted)}svg .key{fill:var(--fg)}\n"
    "svg .cut{fill:var(--muted);fill-opacity:.12;stroke:var(--muted);stroke-dasharray:2 3}\n"
    "svg.dl .edge{fill:none;stroke:var(--ink);stroke-width:1.6}"
    "svg.dl .elabel{text-anchor:middle;paint-order:stroke;stroke:var(--bg);stroke-width:3px;"
    "fill:var(--fg)}\n"
    "svg.dl circle{fill:#ddf4ff;stroke:#0969da;stroke-width:2}"
    "svg.dl .victim circle{fill:#ffebe9;stroke:var(--dl)}"
    "svg.dl text{text-anchor:middle;font-weight:600;fill:#1b1f24}svg.dl .sub{font-weight:normal;"
    "fill:var(--dl)}\n"
    "article{margin-bottom:18px}\n",
    /* Print: A4 or Letter portrait (landscape for the widest tables),
     * light colours, every table inside the page width (cells wrap at
     * spaces, statements shrink), folded rows printed. */
    "@page{size:auto;margin:12mm}@page wide{size:landscape}\n"
    "@media print{:root{color-scheme:light;--fg:#000;--muted:#444;--line:#bbb;--bg:#fff;"
    "--bg2:#f2f2f2;--bg3:#fff;--link:#000;--fix:#1a5e20;--grid:#ddd;--ink:#333;--hid:#0550ae;"
    "--stmt:#1a7f37}nav{display:none}body{max-width:none;padding:0;font-size:10px}"
    "h1{font-size:18px}h2{font-size:14px;margin-top:14px}"
    "figure,article,tr,.cards div{break-inside:avoid}h2,h3,figcaption{break-after:avoid}"
    "*{-webkit-print-color-adjust:exact;print-color-adjust:exact}.scroll{overflow:visible}"
    /* Headings, cells and statements keep their words whole (a break
     * inside "Relation" reads as two words); only a log's file name or a
     * word longer than LONG_WORD (marked .lw) may break anywhere, where
     * the page is too narrow for it. Hover hints go. */
    "table{width:100%;font-size:8.5px;table-layout:auto}th,td{padding:1px 3px}"
    "th,td,td code{overflow-wrap:break-word;word-break:normal}.lw,td.src{overflow-wrap:anywhere}"
    "td code{min-width:0;max-width:none;font-size:8px}td.t{min-width:0}"
    "td.n,th.n{white-space:normal}details.more summary,details.list summary{color:#444}"
    /* The tables of a dozen columns print across the page. */
    "#worst-moment,#waits,#deadlocks,#errors{page:wide}"
    ".hover{display:none}a{color:inherit}.roots{display:block}"
    /* Folded rows and statements are printed unfolded where the browser
     * can (::details-content); elsewhere each fold says it was not. */
    "@supports selector(::details-content){details::details-content{content-visibility:visible;"
    "display:contents}details.long>summary{display:none}details>summary{list-style:none}}"
    "@supports not selector(::details-content){details:not([open]) summary::after{"
    "content:\" (not printed: open the HTML report, or see the JSON report)\"}}}\n",
};

/* Header words for the zone: "UTC", or "Europe/Paris (CET, UTC+01:00 at
 * the first wait)". */
static void zone_note(FILE *f, const cJSON *model)
{
    const char *zone = m_str(model, "time_zone");
    ls_ts t;
    time_t sec;
    struct tm tm;
    char abbr[16];
    long off;

    if (!zone) {
        fputs("UTC", f);
        return;
    }
    ls_html_escape(f, zone, 64);
    if (time_of(m_get(m_get(model, "summary"), "time_range"), "start", &t) != 0)
        return;
    sec = (time_t)(t / 1000000);
    if (!localtime_r(&sec, &tm) || strftime(abbr, sizeof(abbr), "%Z", &tm) == 0)
        return;
    off = tm.tm_gmtoff / 60;
    fputs(" (", f);
    ls_html_escape(f, abbr, 16);
    fprintf(f, ", UTC%c%02ld:%02ld at the start)", off < 0 ? '-' : '+', labs(off) / 60,
            labs(off) % 60);
}

int ls_report_write_html(const cJSON *model, FILE *f)
{
    size_t i;
    char *saved_tz = ls_tz_enter(m_str(model, "time_zone"));

    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          /* Belt and braces: even if something slipped through, nothing loads or runs. */
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; img-src data:\">\n<title>",
          f);
    text(f, m_str(model, "title"), 200);
    fputs("</title>\n<style>\n", f);
    for (i = 0; i < sizeof(css) / sizeof(css[0]); i++)
        fputs(css[i], f);
    fputs("</style>\n</head>\n<body>\n<header>\n<h1>", f);
    text(f, m_str(model, "title"), 200);
    fputs("</h1>\n<p class=\"meta\">", f);
    text(f, m_str(model, "generator"), 60);
    ls_write_opt(f, ", generated ", m_str(model, "generated_at"), ls_html_escape, 60);
    fputs(". All times ", f);
    zone_note(f, model);
    fputs(".", f);
    fputs("</p>\n<nav>", f);
    for (i = 0; i < sizeof(panels) / sizeof(panels[0]); i++)
        if (!panels[i].shown || panels[i].shown(model))
            fprintf(f, "<a href=\"#%s\">%s</a>", ls_sections[panels[i].section].id,
                    ls_sections[panels[i].section].title);
    fputs("</nav>\n</header>\n<main>\n", f);
    for (i = 0; i < sizeof(panels) / sizeof(panels[0]); i++) {
        if (panels[i].shown && !panels[i].shown(model))
            continue;
        fprintf(f, "<section id=\"%s\">\n<h2>%s</h2>\n", ls_sections[panels[i].section].id,
                ls_sections[panels[i].section].title);
        if (panels[i].intro)
            fprintf(f, "<p>%s</p>\n", panels[i].intro);
        panels[i].render(f, model);
        {
            ls_writer w = html_writer(f);
            ls_write_cuts(&w, model, panels[i].section);
        }
        fputs("</section>\n", f);
    }
    fputs("</main>\n</body>\n</html>\n", f);
    ls_tz_leave(saved_tz);
    return ferror(f) ? LS_EIO : 0;
}
