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

#include "ls_common.h"
#include "ls_report.h"
#include "render_int.h"

/* Lanes per timeline and timelines per report: a large incident stays a
 * file of reasonable size; what is left out is counted and said. */
#define TL_MAX_LANES 30
#define TL_MAX_TIMELINES 10
#define DL_MAX_NODES 12

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

/* ---- tables driven by column descriptions ---- */

typedef enum {
    COL_TEXT,    /* escaped text */
    COL_CODE,    /* escaped text in <code>, wrapping */
    COL_INT,     /* whole number */
    COL_MS,      /* milliseconds, one decimal */
    COL_BYTES,   /* whole number of bytes */
    COL_PIDS,    /* array of pids */
    COL_TIME,    /* ISO time */
    COL_BOOL,    /* yes / no */
    COL_OUTCOME, /* wait outcome as a coloured chip */
    COL_ROW,     /* relation and ctid, else the lock target */
    COL_SOURCE,  /* file:line of the log */
    COL_HOLD     /* hold ms, or its range where the log leaves the bounds open */
} col_kind;

typedef struct column {
    const char *head;
    const char *key;
    col_kind kind;
    size_t max; /* characters shown, 0 = all */
} column;

/* "2026-12-02T11:45:04.435823Z" as "2026-12-02 11:45:04.435823", which
 * can wrap between date and time; the headers say the times are UTC. */
static void time_cell(FILE *f, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n > 11 && s[10] == 'T' && s[n - 1] == 'Z') {
        char buf[64];
        snprintf(buf, sizeof(buf), "%.10s %.*s", s, (int)(n - 12 < 40 ? n - 12 : 40), s + 11);
        ls_html_escape(f, buf, 60);
    } else {
        text(f, s, 40);
    }
}

static void cell(FILE *f, const cJSON *o, const column *c)
{
    const cJSON *v = m_get(o, c->key), *x;
    int first = 1;

    switch (c->kind) {
    case COL_INT:
    case COL_BYTES:
    case COL_MS:
        fputs("<td class=\"n\">", f);
        if (!cJSON_IsNumber(v))
            fputs("—", f);
        else if (c->kind == COL_MS)
            fprintf(f, "%.1f", v->valuedouble);
        else
            fprintf(f, "%.0f", v->valuedouble);
        break;
    case COL_HOLD:
        fputs("<td class=\"n\">", f);
        if (m_has_num(o, "hold_min_ms") && m_has_num(o, "hold_max_ms") &&
            m_num(o, "hold_max_ms") - m_num(o, "hold_min_ms") >= LS_HOLD_RANGE_MS)
            fprintf(f, "%.0f–%.0f", m_num(o, "hold_min_ms"), m_num(o, "hold_max_ms"));
        else if (cJSON_IsNumber(v))
            fprintf(f, "%.0f", v->valuedouble);
        else
            fputs("—", f);
        break;
    case COL_PIDS:
        fputs("<td>", f);
        cJSON_ArrayForEach(x, v) {
            fprintf(f, "%s%.0f", first ? "" : ", ", x->valuedouble);
            first = 0;
        }
        if (first)
            fputs("—", f);
        break;
    case COL_BOOL: fprintf(f, "<td>%s", cJSON_IsTrue(v) ? "yes" : "no"); break;
    case COL_OUTCOME: {
        const struct outcome_style *os = outcome_of(m_str(o, c->key));
        fprintf(f, "<td><span class=\"chip %s\">", os->cls);
        text(f, m_str(o, c->key), 40);
        fputs("</span>", f);
        break;
    }
    case COL_ROW:
        fputs("<td>", f);
        if (m_str(o, "relation")) {
            ls_html_escape(f, m_str(o, "relation"), 64);
            if (m_str(o, "ctid")) {
                fputs(" ", f);
                ls_html_escape(f, m_str(o, "ctid"), 24);
            }
        } else {
            text(f, m_str(o, "target"), 80);
        }
        break;
    case COL_SOURCE:
        fputs("<td class=\"src\">", f);
        text(f, m_str(o, "file"), 80);
        if (m_has_num(o, "line"))
            fprintf(f, ":%.0f", m_num(o, "line"));
        break;
    case COL_CODE:
        fputs("<td><code>", f);
        text(f, m_str(o, c->key), c->max);
        fputs("</code>", f);
        break;
    case COL_TIME:
        fputs("<td class=\"t\">", f);
        time_cell(f, m_str(o, c->key));
        break;
    case COL_TEXT:
    default:
        fputs("<td>", f);
        text(f, m_str(o, c->key), c->max);
        break;
    }
    fputs("</td>", f);
}

static void table(FILE *f, const column *cols, size_t ncols, const cJSON *rows)
{
    const cJSON *r;
    size_t i;
    fputs("<div class=\"scroll\"><table>\n<thead><tr>", f);
    for (i = 0; i < ncols; i++)
        fprintf(f, "<th%s>%s</th>",
                cols[i].kind == COL_INT || cols[i].kind == COL_MS || cols[i].kind == COL_BYTES ||
                        cols[i].kind == COL_HOLD
                    ? " class=\"n\""
                    : "",
                cols[i].head);
    fputs("</tr></thead>\n<tbody>\n", f);
    cJSON_ArrayForEach(r, rows) {
        fputs("<tr>", f);
        for (i = 0; i < ncols; i++)
            cell(f, r, &cols[i]);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
}

#define TABLE(f, cols, rows) table(f, cols, sizeof(cols) / sizeof(cols[0]), rows)

static const column hot_cols[] = {
    {"Relation", "relation", COL_TEXT, 64},
    {"Row", "row_key", COL_TEXT, 64},
    {"ctids", "ctid", COL_TEXT, 60},
    {"Waits", "waits", COL_INT, 0},
    {"Total wait ms", "total_wait_ms", COL_MS, 0},
    {"Max wait ms", "max_wait_ms", COL_MS, 0},
    {"Waiting sessions", "waiting_sessions", COL_INT, 0},
    {"Max queue", "max_queue_depth", COL_INT, 0},
    {"Holds", "holds", COL_INT, 0},
    {"Mean hold ms", "mean_hold_ms", COL_MS, 0},
    {"Serial capacity /s", "serial_capacity_per_s", COL_MS, 0},
    {"First wait", "first_wait", COL_TIME, 0},
    {"Root blockers", "root_blocker_pids", COL_PIDS, 0},
};

static const column hold_cols[] = {
    {"Holder pid", "pid", COL_INT, 0},
    {"Application", "application", COL_TEXT, 48},
    {"Relation", "relation", COL_TEXT, 64},
    {"Row", "row_key", COL_TEXT, 64},
    {"Start", "start", COL_TIME, 0},
    {"Hold ms", "hold_ms", COL_HOLD, 0},
    {"Waits", "waits", COL_INT, 0},
    {"Waiter ms", "waiter_ms", COL_MS, 0},
    {"SQL ms", "sql_ms", COL_MS, 0},
    {"Idle ms", "idle_ms", COL_MS, 0},
    {"Commit ms", "commit_ms", COL_MS, 0},
    {"Head state", "head_state", COL_TEXT, 40},
    {"End evidence", "end_evidence", COL_TEXT, 60},
};

static const column code_path_cols[] = {
    {"Code path", "code_path", COL_TEXT, 120},
    {"Named by", "named_by", COL_TEXT, 40},
    {"Blocking episodes", "blocking_episodes", COL_INT, 0},
    {"Waits caused", "waits_caused", COL_INT, 0},
    {"Total hold ms", "total_hold_ms", COL_MS, 0},
    {"Max hold ms", "max_hold_ms", COL_MS, 0},
    {"p95 hold ms", "p95_hold_ms", COL_MS, 0},
    {"Waiter ms caused", "waiter_ms_caused", COL_MS, 0},
    {"Waits suffered", "waits_suffered", COL_INT, 0},
};

static const column occupancy_cols[] = {
    {"Code path", "code_path", COL_TEXT, 120},
    {"Named by", "named_by", COL_TEXT, 40},
    {"Holds of hot rows", "holds", COL_INT, 0},
    {"of which waited for", "holds_waited_for", COL_INT, 0},
    {"Total hold ms", "total_hold_ms", COL_MS, 0},
    {"Max hold ms", "max_hold_ms", COL_MS, 0},
    {"p95 hold ms", "p95_hold_ms", COL_MS, 0},
    {"Share of hot-row time %", "share_pct", COL_MS, 0},
};

static const column queueing_cols[] = {
    {"Code path", "code_path", COL_TEXT, 120},
    {"Statements queued behind it", "statements_queued_behind", COL_INT, 0},
    {"Hidden wait ms caused", "hidden_wait_ms_caused", COL_MS, 0},
    {"Logged wait ms caused", "logged_wait_ms_caused", COL_MS, 0},
    {"Its statements that waited", "statements_waited", COL_INT, 0},
    {"Hidden wait ms suffered", "hidden_wait_ms_suffered", COL_MS, 0},
    {"Logged wait ms suffered", "logged_wait_ms_suffered", COL_MS, 0},
};

static const column request_cols[] = {
    {"Request", "name", COL_TEXT, 80},
    {"Service", "service", COL_TEXT, 40},
    {"Trace", "trace_id", COL_TEXT, 32},
    {"Duration ms", "duration_ms", COL_MS, 0},
    {"Row-lock wait ms", "lock_wait_ms", COL_MS, 0},
    {"of which logged", "logged_lock_wait_ms", COL_MS, 0},
    {"Waited behind", "waited_behind_code_path", COL_TEXT, 80},
    {"Row", "waited_for_row", COL_TEXT, 60},
};

static const column part_cols[] = {
    {"Where the hold time went", "name", COL_TEXT, 120},
    {"ms", "ms", COL_MS, 0},
};

static const column conflict_cols[] = {
    {"Code path", "code_path", COL_TEXT, 120},
    {"Writes", "first", COL_TEXT, 64},
    {"then", "then", COL_TEXT, 64},
    {"Other code path (opposite order)", "other_code_path", COL_TEXT, 120},
};

static const column tree_cols[] = {
    {"Depth", "depth", COL_INT, 0},
    {"Waiter pid", "pid", COL_INT, 0},
    {"Application", "application", COL_TEXT, 48},
    {"Waits for pid", "blocker_pid", COL_INT, 0},
    {"Root pid", "root_pid", COL_INT, 0},
    {"Lock", "mode", COL_TEXT, 32},
    {"Relation", "relation", COL_TEXT, 64},
    {"Row", "row_key", COL_TEXT, 64},
    {"Statement", "statement", COL_TEXT, 160},
};

static const column wait_cols[] = {
    {"Start (UTC)", "start", COL_TIME, 0},
    {"Waiter pid", "pid", COL_INT, 0},
    {"Application", "application", COL_TEXT, 48},
    {"Mode", "mode", COL_TEXT, 32},
    {"Row / target", "relation", COL_ROW, 0},
    {"Waited ms", "waited_ms", COL_MS, 0},
    {"Outcome", "outcome", COL_OUTCOME, 0},
    {"Blocker pid", "blocker_pid", COL_INT, 0},
    {"Root pid", "root_pid", COL_INT, 0},
    {"Depth", "chain_depth", COL_INT, 0},
    {"Statement", "statement", COL_CODE, 300},
    {"Log", "file", COL_SOURCE, 0},
};

static const column stmt_cols[] = {
    {"Start", "start", COL_TIME, 0},
    {"Duration ms", "duration_ms", COL_MS, 0},
    {"Idle before ms", "idle_before_ms", COL_INT, 0},
    {"Statement", "text", COL_CODE, 500},
};

static const column edge_cols[] = {
    {"Waiter pid", "waiter_pid", COL_INT, 0},
    {"Waits for", "mode", COL_TEXT, 32},
    {"Lock", "target", COL_TEXT, 80},
    {"Blocked by pid", "blocker_pid", COL_INT, 0},
};

static const column proc_cols[] = {
    {"pid", "pid", COL_INT, 0},
    {"Query", "query", COL_CODE, 1000},
};

static const column error_cols[] = {
    {"Time (UTC)", "time", COL_TIME, 0},
    {"pid", "pid", COL_INT, 0},
    {"Application", "application", COL_TEXT, 48},
    {"SQLSTATE", "sqlstate", COL_TEXT, 8},
    {"Class", "class", COL_TEXT, 32},
    {"Message", "message", COL_TEXT, 200},
    {"Statement", "statement", COL_CODE, 300},
    {"Log", "file", COL_SOURCE, 0},
};

static const column file_cols[] = {
    {"File", "path", COL_TEXT, 200},
    {"Format", "format", COL_TEXT, 16},
    {"gzip", "gzip", COL_BOOL, 0},
    {"Bytes", "bytes", COL_BYTES, 0},
    {"Lines", "lines", COL_INT, 0},
    {"Records", "records", COL_INT, 0},
    {"Unparsable", "bad_lines", COL_INT, 0},
};

static const column bad_cols[] = {
    {"File", "file", COL_TEXT, 200},
    {"Line", "line", COL_INT, 0},
    {"Reason", "reason", COL_TEXT, 200},
};

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

static void headline_root(FILE *f, const cJSON *r)
{
    const cJSON *tx = m_get(r, "transaction"), *st, *gap = NULL;
    double idle = 0;

    fprintf(f, "<li><b>Worst root blocker: pid %.0f", m_num(r, "pid"));
    if (m_str(r, "code_path")) {
        fputs(" · ", f);
        ls_html_escape(f, m_str(r, "code_path"), 120);
    }
    fputs("</b>", f);
    if (m_str(r, "application")) {
        fputs(" (", f);
        ls_html_escape(f, m_str(r, "application"), 64);
        fputs(")", f);
    }
    fprintf(f, " was at the head of the queue for %.0f waits, %.1f ms of waiting in total.",
            m_num(r, "waits_caused"), m_num(r, "waiter_ms"));
    cJSON_ArrayForEach(st, m_get(tx, "statements")) {
        idle += m_num(st, "idle_before_ms");
        if (m_num(st, "idle_before_ms") > 0 && (!gap || m_num(st, "idle_before_ms") >
                                                          m_num(gap, "idle_before_ms")))
            gap = st;
    }
    if (m_has_num(tx, "duration_ms"))
        fprintf(f, " Its transaction lasted %.0f ms", m_num(tx, "duration_ms"));
    if (m_has_num(tx, "duration_ms") && idle > 0)
        fprintf(f, ", %.0f ms of it idle in transaction while holding the lock", idle);
    if (m_has_num(tx, "duration_ms"))
        fputs(".", f);
    if (gap) {
        fprintf(f, " The longest gap, %.0f ms, came before <code>", m_num(gap, "idle_before_ms"));
        ls_html_escape(f, m_str(gap, "text"), 120);
        fputs("</code>: the application did something else between statements.", f);
    }
    fputs("</li>\n", f);
}

static void headlines(FILE *f, const cJSON *model)
{
    const cJSON *s = m_get(model, "summary");
    const cJSON *hot = cJSON_GetArrayItem(m_get(model, "hot_rows"), 0);
    const cJSON *root = cJSON_GetArrayItem(m_get(model, "root_blockers"), 0);
    const cJSON *dl = cJSON_GetArrayItem(m_get(model, "deadlocks"), 0), *p;
    int first = 1;

    fputs("<h3>Headline findings</h3>\n<ul class=\"findings\">\n", f);
    if (!hot)
        fputs("<li>No lock waits were logged.</li>\n", f);
    if (hot) {
        fputs("<li><b>Hottest row: ", f);
        text(f, m_str(hot, "relation"), 64);
        if (m_str(hot, "row_key") || m_str(hot, "ctid")) {
            fputs(" ", f);
            ls_html_escape(f, m_str(hot, "row_key") ? m_str(hot, "row_key") : m_str(hot, "ctid"), 64);
        }
        fprintf(f, "</b> — %.0f waits by %.0f sessions, %.1f ms of waiting in total, the "
                   "longest %.1f ms; root blocker pid ",
                m_num(hot, "waits"), m_num(hot, "waiting_sessions"), m_num(hot, "total_wait_ms"),
                m_num(hot, "max_wait_ms"));
        cJSON_ArrayForEach(p, m_get(hot, "root_blocker_pids")) {
            fprintf(f, "%s%.0f", first ? "" : ", ", p->valuedouble);
            first = 0;
        }
        fputs(first ? "unknown.</li>\n" : ".</li>\n", f);
    }
    if (root)
        headline_root(f, root);
    if (dl) {
        fprintf(f, "<li><b>%.0f deadlock%s</b>; the first at ", m_num(s, "deadlocks"),
                m_num(s, "deadlocks") == 1 ? "" : "s");
        text(f, m_str(dl, "time"), 40);
        fprintf(f, ", victim pid %.0f", m_num(dl, "victim_pid"));
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

static void filter_note(FILE *f, const cJSON *flt)
{
    static const struct {
        const char *key, *label;
    } keys[] = {{"since", "since"}, {"until", "until"}, {"relation", "relation"},
                {"database", "database"}};
    size_t i;
    if (!cJSON_IsObject(flt))
        return;
    fputs("<p class=\"filter\">Filtered: ", f);
    for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        if (!m_str(flt, keys[i].key))
            continue;
        fprintf(f, "%s <b>", keys[i].label);
        ls_html_escape(f, m_str(flt, keys[i].key), 80);
        fputs("</b>; ", f);
    }
    fputs("waits, errors and deadlocks outside the filter are left out, and so are the "
          "counts below.</p>\n",
          f);
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

static void panel_summary(FILE *f, const cJSON *model)
{
    const cJSON *s = m_get(model, "summary"), *range = m_get(s, "time_range");

    filter_note(f, m_get(s, "filter"));
    headlines(f, model);
    fputs("<div class=\"cards\">\n", f);
    fprintf(f, "<div><b>%.0f</b>lock waits (%.0f linked to a blocker)</div>\n", m_num(s, "waits"),
            m_num(s, "waits_linked"));
    fprintf(f, "<div><b>%.1f ms</b>total wait</div>\n", m_num(s, "total_wait_ms"));
    fprintf(f, "<div><b>%.1f ms</b>longest wait</div>\n", m_num(s, "max_wait_ms"));
    if (cJSON_IsTrue(m_get(m_get(s, "hidden_waits"), "reconstructed")))
        fprintf(f, "<div><b>%.1f ms</b>hidden waits (below deadlock_timeout, never logged)</div>\n",
                m_num(m_get(s, "hidden_waits"), "hidden_wait_ms"));
    fprintf(f, "<div><b>%.0f</b>deadlocks</div>\n", m_num(s, "deadlocks"));
    fprintf(f, "<div><b>%.0f</b>lock timeouts (55P03)</div>\n", m_num(s, "lock_timeouts"));
    fprintf(f, "<div><b>%.0f</b>statement timeouts (57014)</div>\n",
            m_num(s, "statement_timeouts"));
    fprintf(f, "<div><b>%.0f</b>serialization failures (40001)</div>\n",
            m_num(s, "serialization_failures"));
    fprintf(f, "<div><b>%.0f / %.0f</b>sessions / statements</div>\n", m_num(s, "sessions"),
            m_num(s, "statements"));
    fputs("</div>\n<table class=\"kv\"><tbody>\n<tr><th>Time range</th><td>", f);
    text(f, m_str(range, "start"), 40);
    fputs(" → ", f);
    text(f, m_str(range, "end"), 40);
    fprintf(f, "</td></tr>\n<tr><th>NOWAIT failures (55P03)</th><td>%.0f</td></tr>\n"
               "<tr><th>Idle-in-transaction timeouts (25P03)</th><td>%.0f</td></tr>\n"
               "<tr><th>Input</th><td>%.0f files, %.0f lines, %.0f records, %.0f unparsable "
               "lines</td></tr>\n</tbody></table>\n",
            m_num(s, "lock_nowait_failures"), m_num(s, "idle_in_transaction_timeouts"),
            m_num(s, "files"), m_num(s, "lines"), m_num(s, "records"), m_num(s, "bad_lines"));
    if (m_str(m_get(s, "hidden_waits"), "note")) {
        fputs("<p class=\"note\">", f);
        text(f, m_str(m_get(s, "hidden_waits"), "note"), 400);
        fputs("</p>\n", f);
    }
    outcome_bar(f, m_get(s, "waits_by_outcome"));
}

static void panel_hot_rows(FILE *f, const cJSON *model)
{
    const cJSON *rows = m_get(model, "hot_rows");
    if (cJSON_GetArraySize(rows) == 0) {
        fputs("<p>No lock waits were logged.</p>\n", f);
        return;
    }
    TABLE(f, hot_cols, rows);
}

/* ---- timelines ---- */

typedef struct tl_lane {
    double pid;
    int holder;        /* holds the row (or heads its queue) */
    const cJSON *root; /* its root blocker entry (statements), or NULL */
} tl_lane;

typedef struct tl_wait {
    const cJSON *w;
    int lane;
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
    tl_wait *waits; /* the row's waits that are drawn */
    int nwaits;
    int waits_found;   /* the row's waits in the model */
    int waits_omitted; /* of those, in sessions beyond the lane cap */
    double omitted_pids[256];
    int nomitted_pids;
    int64_t t0, t1;
} timeline;

/* Plot geometry (SVG user units). */
enum { TL_W = 1100, TL_X0 = 230, TL_X1 = 1060, TL_TOP = 30, TL_LANE = 24, TL_BAR = 14,
       TL_DEPTH = 56 };

static double tl_x(const timeline *t, int64_t ts)
{
    double span = (double)(t->t1 - t->t0);
    if (span <= 0)
        return TL_X0;
    return TL_X0 + (double)(ts - t->t0) / span * (TL_X1 - TL_X0);
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
    return t->nlanes++;
}

static void widen(timeline *t, int64_t a, int64_t b)
{
    if (t->t0 == 0 || a < t->t0)
        t->t0 = a;
    if (t->t1 == 0 || b > t->t1)
        t->t1 = b;
}

/*
 * Collect lanes and bars of one hot row: from the row's own timeline
 * (holds, waits) when the model has one, else from the root blocker pids
 * and the report's wait list matched by relation and ctid.
 */
static int tl_build(timeline *t, const cJSON *model, const cJSON *hot)
{
    const cJSON *tl = m_get(hot, "timeline"), *p, *w, *src = m_get(tl, "waits");
    int own = cJSON_IsArray(src), n, l;

    memset(t, 0, sizeof(*t));
    t->hot = hot;
    if (!own)
        src = m_get(model, "waits");
    n = cJSON_GetArraySize(src);
    t->waits = ls_malloc(sizeof(*t->waits) * (size_t)(n > 0 ? n : 1));
    if (!t->waits)
        return LS_ENOMEM;
    /* Holders first: the lanes every queue starts from. */
    if (cJSON_GetArraySize(m_get(tl, "holds")) > 0) {
        t->holds = m_get(tl, "holds");
        cJSON_ArrayForEach(p, t->holds) {
            int64_t a, b;
            if ((l = lane_of(t, m_num(p, "pid"))) < 0)
                continue;
            t->lanes[l].holder = 1;
            if (time_of(p, "start", &a) == 0)
                widen(t, a, time_of(p, "end", &b) == 0 ? b : a);
        }
    } else {
        cJSON_ArrayForEach(p, m_get(hot, "root_blocker_pids")) {
            if ((l = lane_of(t, p->valuedouble)) >= 0)
                t->lanes[l].holder = 1;
        }
    }
    for (l = 0; l < t->nlanes; l++)
        t->lanes[l].root = find_root(model, t->lanes[l].pid, hot);
    cJSON_ArrayForEach(w, src) {
        int64_t a, b;
        if (!own && (!same_str(m_str(w, "relation"), m_str(hot, "relation")) ||
                     !same_str(m_str(w, "ctid"), m_str(hot, "ctid"))))
            continue;
        if (time_of(w, "start", &a) != 0)
            continue;
        t->waits_found++;
        if (time_of(w, "end", &b) != 0)
            b = a + (int64_t)(m_num(w, "waited_ms") * 1000.0);
        if ((l = lane_of(t, m_num(w, "pid"))) < 0) {
            t->waits_omitted++;
            continue;
        }
        t->waits[t->nwaits].w = w;
        t->waits[t->nwaits].lane = l;
        t->waits[t->nwaits].t0 = a;
        t->waits[t->nwaits].t1 = b;
        t->nwaits++;
        widen(t, a, b);
    }
    for (l = 0; l < t->nlanes; l++) {
        const cJSON *tx = m_get(t->lanes[l].root, "transaction");
        int64_t a, b;
        if (t->lanes[l].holder && tx && time_of(tx, "start", &a) == 0)
            widen(t, a, time_of(tx, "end", &b) == 0 ? b : (t->t1 ? t->t1 : a));
    }
    if (t->t1 <= t->t0)
        t->t1 = t->t0 + 1000;
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
        if (step >= 1000000)
            fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%d\">+%.1f s</text>\n", x, TL_TOP - 10,
                    (double)v / 1e6);
        else
            fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%d\">+%lld ms</text>\n", x,
                    TL_TOP - 10, (long long)(v / 1000));
    }
}

static void tl_hold_bar(FILE *f, const timeline *t, const cJSON *h, double pid, int64_t a,
                        int64_t b, double y)
{
    fprintf(f, "<rect class=\"hold\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\">"
               "<title>pid %.0f holds the lock from ",
            tl_x(t, a), y - TL_BAR / 2.0, tl_x(t, b) - tl_x(t, a) + 0.5, TL_BAR, pid);
    text(f, m_str(h, "start"), 40);
    fputs(" to ", f);
    text(f, m_str(h, "end"), 40);
    if (m_has_num(h, "hold_ms"))
        fprintf(f, " (%.0f ms)", m_num(h, "hold_ms"));
    else if (m_has_num(h, "duration_ms"))
        fprintf(f, " (%.0f ms)", m_num(h, "duration_ms"));
    if (m_str(h, "start_evidence")) {
        fputs("\nstart: ", f);
        ls_html_escape(f, m_str(h, "start_evidence"), 80);
    }
    if (m_str(h, "end_evidence")) {
        fputs("; end: ", f);
        ls_html_escape(f, m_str(h, "end_evidence"), 80);
    }
    if (m_str(h, "head_state")) {
        fputs("; head state: ", f);
        ls_html_escape(f, m_str(h, "head_state"), 40);
    }
    fputs("</title></rect>\n", f);
}

/* A holder's lane: its hold bars, then its transaction's idle gaps and
 * statements on top. */
static void tl_holder_lane(FILE *f, const timeline *t, const tl_lane *ln, double y)
{
    const cJSON *tx = m_get(ln->root, "transaction"), *st, *h;
    int64_t a, b;
    int drawn = 0;

    cJSON_ArrayForEach(h, t->holds) {
        if (m_num(h, "pid") != ln->pid || time_of(h, "start", &a) != 0)
            continue;
        if (time_of(h, "end", &b) != 0)
            b = t->t1;
        tl_hold_bar(f, t, h, ln->pid, a, b, y);
        drawn++;
    }
    if (!drawn && tx && time_of(tx, "start", &a) == 0) {
        if (time_of(tx, "end", &b) != 0)
            b = t->t1;
        tl_hold_bar(f, t, tx, ln->pid, a, b, y);
        drawn++;
    }
    if (!tx) {
        fprintf(f, "<text class=\"note\" x=\"%d\" y=\"%.1f\">(statements: only the top "
                   "root blockers' are in the report)</text>\n",
                TL_X1 - 4, y + 4);
        return;
    }
    cJSON_ArrayForEach(st, m_get(tx, "statements")) {
        int64_t s0;
        double idle = m_num(st, "idle_before_ms");
        if (time_of(st, "start", &s0) != 0)
            continue;
        if (idle > 0) {
            double x0 = tl_x(t, s0 - (int64_t)(idle * 1000.0));
            fprintf(f, "<rect class=\"idle\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\">"
                       "<title>idle in transaction %.0f ms, holding its locks, before: ",
                    x0, y - TL_BAR / 2.0, tl_x(t, s0) - x0, TL_BAR, idle);
            ls_html_escape(f, m_str(st, "text"), 300);
            fputs("</title></rect>\n", f);
        }
        fprintf(f, "<rect class=\"stmt\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\">"
                   "<title>",
                tl_x(t, s0) - 1, y - TL_BAR / 2.0 - 3,
                tl_x(t, s0 + (int64_t)(m_num(st, "duration_ms") * 1000.0)) - tl_x(t, s0) + 2,
                TL_BAR + 6);
        text(f, m_str(st, "start"), 40);
        fprintf(f, ", %.3f ms: ", m_num(st, "duration_ms"));
        ls_html_escape(f, m_str(st, "text"), 300);
        fputs("</title></rect>\n", f);
    }
}

static void tl_wait_bar(FILE *f, const timeline *t, const tl_wait *tw, int id)
{
    const cJSON *w = tw->w;
    double y = TL_TOP + tw->lane * TL_LANE + TL_LANE / 2.0;
    double x0 = tl_x(t, tw->t0), x1 = tl_x(t, tw->t1);
    int bl = m_has_num(w, "blocker_pid") ? lane_find(t, m_num(w, "blocker_pid")) : -1;

    if (bl >= 0 && bl != tw->lane) {
        double by = TL_TOP + bl * TL_LANE + TL_LANE / 2.0;
        fprintf(f, "<line class=\"link\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                   "marker-end=\"url(#arrow%d)\"/>",
                x0, y, x0, by + (by < y ? TL_BAR / 2.0 + 1 : -TL_BAR / 2.0 - 1), id);
    }
    fprintf(f, "<rect class=\"wait %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\">"
               "<title>pid %.0f waited %.1f ms",
            outcome_of(m_str(w, "outcome"))->cls, x0, y - TL_BAR / 2.0, x1 - x0 + 0.5, TL_BAR,
            m_num(w, "pid"), m_num(w, "waited_ms"));
    if (m_str(w, "mode")) {
        fputs(" for ", f);
        ls_html_escape(f, m_str(w, "mode"), 40);
    }
    if (m_str(w, "target")) {
        fputs(" on ", f);
        ls_html_escape(f, m_str(w, "target"), 80);
    }
    fputs(", ", f);
    text(f, m_str(w, "outcome"), 40);
    if (m_has_num(w, "blocker_pid"))
        fprintf(f, "; blocked by pid %.0f", m_num(w, "blocker_pid"));
    if (m_has_num(w, "root_pid"))
        fprintf(f, ", root pid %.0f", m_num(w, "root_pid"));
    if (m_str(w, "statement")) {
        fputs("\n", f);
        ls_html_escape(f, m_str(w, "statement"), 300);
    }
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
 * Queue depth over time as a step area: the model's per-row queue when it
 * has one, else a sweep over the drawn waits.
 */
static int tl_depth(FILE *f, const timeline *t, int top)
{
    const cJSON *q = m_get(m_get(t->hot, "timeline"), "queue"), *p;
    int n = cJSON_GetArraySize(q), i, depth = 0, max = 0;
    double base = top + TL_DEPTH - 4, scale;
    tl_point *pt;

    if (n == 0 && t->nwaits == 0)
        return 0;
    pt = ls_malloc(sizeof(*pt) * (size_t)(n > 0 ? n : t->nwaits * 2));
    if (!pt)
        return LS_ENOMEM;
    if (n > 0) {
        n = 0;
        cJSON_ArrayForEach(p, q) {
            if (time_of(p, "time", &pt[n].t) == 0)
                pt[n++].d = (int)m_num(p, "depth");
        }
    } else {
        n = t->nwaits * 2;
        for (i = 0; i < t->nwaits; i++) {
            pt[2 * i].t = t->waits[i].t0;
            pt[2 * i].d = 1;
            pt[2 * i + 1].t = t->waits[i].t1;
            pt[2 * i + 1].d = -1;
        }
        qsort(pt, (size_t)n, sizeof(*pt), point_cmp);
        for (i = 0; i < n; i++)
            pt[i].d = depth += pt[i].d;
    }
    for (i = 0; i < n; i++)
        if (pt[i].d > max)
            max = pt[i].d;
    scale = max ? (TL_DEPTH - 16.0) / max : 0;
    fprintf(f, "<text class=\"lane\" x=\"%d\" y=\"%d\">queue depth (max %d)</text>\n"
               "<path class=\"depth\" d=\"M%.1f %.1f",
            TL_X0 - 8, top + TL_DEPTH / 2, max, tl_x(t, t->t0), base);
    depth = 0;
    for (i = 0; i < n; i++) {
        double x = tl_x(t, pt[i].t);
        fprintf(f, " L%.1f %.1f L%.1f %.1f", x, base - depth * scale, x, base - pt[i].d * scale);
        depth = pt[i].d;
    }
    fprintf(f, " L%.1f %.1f L%.1f %.1f Z\"/>\n", tl_x(t, t->t1), base - depth * scale,
            tl_x(t, t->t1), base);
    free(pt);
    return 0;
}

static void tl_legend(FILE *f, int y)
{
    static const struct {
        const char *cls, *label;
    } keys[] = {{"hold", "holding the lock"},
                {"idle", "idle in transaction"},
                {"stmt", "statement"},
                {"wait o-acq", "wait, acquired"},
                {"wait o-dl", "wait, deadlock"},
                {"wait o-lto", "wait, lock timeout"},
                {"wait o-ser", "wait, serialization failure"},
                {"wait o-unk", "wait, other"}};
    size_t i;
    int x = 10;
    for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        fprintf(f, "<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"14\" height=\"10\"/>"
                   "<text class=\"key\" x=\"%d\" y=\"%d\">%s</text>",
                keys[i].cls, x, y, x + 18, y + 9, keys[i].label);
        x += 28 + (int)strlen(keys[i].label) * 6;
    }
    fputs("\n", f);
}

static void tl_lane_label(FILE *f, const timeline *t, int i, double y)
{
    const tl_lane *ln = &t->lanes[i];
    const char *app = ln->root ? m_str(ln->root, "application") : NULL;
    const cJSON *h;
    int k;

    cJSON_ArrayForEach(h, t->holds) if (!app && m_num(h, "pid") == ln->pid) app =
        m_str(h, "application");
    for (k = 0; !app && k < t->nwaits; k++)
        if (t->waits[k].lane == i)
            app = m_str(t->waits[k].w, "application");
    fprintf(f, "<text class=\"lane\" x=\"%d\" y=\"%.1f\"><title>pid %.0f", TL_X0 - 8, y + 4,
            ln->pid);
    if (app) {
        fputs(" ", f);
        ls_html_escape(f, app, 200);
    }
    fprintf(f, "</title>%spid %.0f", ln->holder ? "holder " : "", ln->pid);
    if (app) {
        fputs(" · ", f);
        ls_html_escape(f, app, 18);
    }
    fputs("</text>\n", f);
}

static int timeline_svg(FILE *f, const cJSON *model, const cJSON *hot, int id)
{
    timeline t;
    int i, rc, height, depth_top;
    char buf[32];

    if ((rc = tl_build(&t, model, hot)) != 0)
        return rc;
    depth_top = TL_TOP + t.nlanes * TL_LANE + 8;
    height = depth_top + TL_DEPTH + 28;
    fprintf(f, "<figure class=\"timeline\" id=\"timeline-%d\">\n<figcaption>", id);
    text(f, m_str(hot, "relation"), 64);
    if (m_str(hot, "row_key")) {
        fputs(" ", f);
        ls_html_escape(f, m_str(hot, "row_key"), 64);
    }
    if (m_str(hot, "ctid")) {
        fputs(" ", f);
        ls_html_escape(f, m_str(hot, "ctid"), 40);
    }
    ls_ts_format(buf, t.t0);
    fprintf(f, " — %.0f waits, from %s UTC</figcaption>\n", m_num(hot, "waits"), buf);
    fprintf(f, "<svg class=\"tl\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
               "aria-label=\"timeline of the row\">\n"
               "<defs><marker id=\"arrow%d\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" "
               "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">"
               "<path d=\"M0 0 L10 5 L0 10 z\" class=\"arrowhead\"/></marker></defs>\n",
            TL_W, height, TL_W, height, id);
    for (i = 0; i < t.nlanes; i++)
        fprintf(f, "<rect class=\"band%d\" x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\"/>", i % 2,
                TL_TOP + i * TL_LANE, TL_W, TL_LANE);
    tl_axis(f, &t, depth_top + TL_DEPTH - 4);
    for (i = 0; i < t.nlanes; i++) {
        double y = TL_TOP + i * TL_LANE + TL_LANE / 2.0;
        tl_lane_label(f, &t, i, y);
        if (t.lanes[i].holder)
            tl_holder_lane(f, &t, &t.lanes[i], y);
    }
    for (i = 0; i < t.nwaits; i++)
        tl_wait_bar(f, &t, &t.waits[i], id);
    rc = tl_depth(f, &t, depth_top);
    tl_legend(f, height - 16);
    fputs("</svg>\n", f);
    if (t.waits_omitted || t.nomitted_pids)
        fprintf(f, "<p class=\"note\">%d more sessions%s (%d of their waits) are not drawn: at "
                   "most %d lanes per timeline.</p>\n",
                t.nomitted_pids,
                t.nomitted_pids == (int)(sizeof(t.omitted_pids) / sizeof(t.omitted_pids[0]))
                    ? " or more"
                    : "",
                t.waits_omitted, TL_MAX_LANES);
    if (t.waits_found < (int)m_num(hot, "waits"))
        fprintf(f, "<p class=\"note\">%d of the row's %.0f waits are in the report (the wait "
                   "list is bounded; see --max-waits).</p>\n",
                t.waits_found, m_num(hot, "waits"));
    fputs("</figure>\n", f);
    free(t.waits);
    return rc;
}

static void panel_timelines(FILE *f, const cJSON *model)
{
    const cJSON *hot;
    int n = 0;
    if (cJSON_GetArraySize(m_get(model, "hot_rows")) == 0) {
        fputs("<p>No lock waits were logged.</p>\n", f);
        return;
    }
    fputs("<p>A lane per session. The root blocker's transaction is a hold bar from its "
          "start to its end, with its statements as ticks and the idle gaps between them "
          "shaded; each waiter's bar runs from the start of its wait to its end, coloured by "
          "outcome, with an arrow to the session it waited for. Hover a bar for details.</p>\n",
          f);
    cJSON_ArrayForEach(hot, m_get(model, "hot_rows")) {
        if (n >= TL_MAX_TIMELINES)
            break;
        if (timeline_svg(f, model, hot, ++n) != 0) {
            fputs("<p class=\"note\">out of memory drawing this timeline</p>\n", f);
            break;
        }
    }
    if (cJSON_GetArraySize(m_get(model, "hot_rows")) > n)
        fprintf(f, "<p class=\"note\">Timelines of %d more rows are not drawn.</p>\n",
                cJSON_GetArraySize(m_get(model, "hot_rows")) - n);
}

/* ---- root blockers ---- */

static void panel_roots(FILE *f, const cJSON *model)
{
    const cJSON *r;
    if (cJSON_GetArraySize(m_get(model, "root_blockers")) == 0) {
        fputs("<p>None.</p>\n", f);
        return;
    }
    cJSON_ArrayForEach(r, m_get(model, "root_blockers")) {
        const cJSON *tx = m_get(r, "transaction"), *st;
        double idle = 0;
        cJSON_ArrayForEach(st, m_get(tx, "statements")) idle += m_num(st, "idle_before_ms");
        fprintf(f, "<article class=\"root\">\n<h3>pid %.0f", m_num(r, "pid"));
        if (m_str(r, "application")) {
            fputs(" — ", f);
            ls_html_escape(f, m_str(r, "application"), 80);
        }
        fprintf(f, "</h3>\n<ul>\n<li>Caused %.0f waits, %.1f ms of waiting in total</li>\n",
                m_num(r, "waits_caused"), m_num(r, "waiter_ms"));
        if (m_has_num(r, "xid"))
            fprintf(f, "<li>Transaction id %.0f</li>\n", m_num(r, "xid"));
        fputs("<li>User ", f);
        text(f, m_str(r, "user"), 64);
        fputs(", database ", f);
        text(f, m_str(r, "database"), 64);
        fputs("</li>\n<li>Rows: ", f);
        text(f, m_str(r, "rows"), 200);
        fputs("</li>\n", f);
        if (m_has_num(tx, "duration_ms"))
            fprintf(f, "<li>Transaction lasted %.0f ms, %.0f ms of it idle between "
                       "statements</li>\n",
                    m_num(tx, "duration_ms"), idle);
        fputs("</ul>\n", f);
        if (cJSON_GetArraySize(m_get(tx, "statements")) > 0)
            TABLE(f, stmt_cols, m_get(tx, "statements"));
        fputs("</article>\n", f);
    }
}

/* Findings: what the evidence says, and the fix each suggests. */
static void panel_findings(FILE *f, const cJSON *model)
{
    const cJSON *x;
    if (cJSON_GetArraySize(m_get(model, "findings")) == 0) {
        fputs("<p>No rule found anything to say.</p>\n", f);
        return;
    }
    fputs("<ul class=\"findings\">\n", f);
    cJSON_ArrayForEach(x, m_get(model, "findings")) {
        fputs("<li><b>", f);
        text(f, m_str(x, "title"), 200);
        fputs("</b> — ", f);
        text(f, m_str(x, "evidence"), 400);
        fputs(" <span class=\"fix\"><b>Fix:</b> ", f);
        text(f, m_str(x, "fix"), 400);
        fputs("</span></li>\n", f);
    }
    fputs("</ul>\n", f);
}

/* A stacked bar of where the hold time went; colours by part kind only
 * (never by log text), names in the title tooltip and the table below. */
static void breakdown_bar(FILE *f, const cJSON *parts)
{
    static const struct {
        const char *part, *colour;
    } colours[] = {{"sql", "#2e7d32"}, {"commit", "#6a1b9a"}, {"span", "#1565c0"},
                   {"idle", "#f9a825"}};
    const cJSON *p;
    double total = 0, x = 0;
    cJSON_ArrayForEach(p, parts) total += m_num(p, "ms");
    if (total <= 0)
        return;
    fputs("<svg class=\"bar\" width=\"600\" height=\"18\" role=\"img\">", f);
    cJSON_ArrayForEach(p, parts) {
        const char *colour = "#757575";
        double w = 600.0 * m_num(p, "ms") / total;
        size_t i;
        for (i = 0; i < sizeof(colours) / sizeof(colours[0]); i++)
            if (m_str(p, "part") && strcmp(m_str(p, "part"), colours[i].part) == 0)
                colour = colours[i].colour;
        fprintf(f, "<rect x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"18\" fill=\"%s\">", x,
                w, colour);
        fputs("<title>", f);
        text(f, m_str(p, "name"), 120);
        fprintf(f, ": %.0f ms</title></rect>", m_num(p, "ms"));
        x += w;
    }
    fputs("</svg>\n", f);
}

/* The lock tree when the busiest row's queue was longest. */
static void panel_worst(FILE *f, const cJSON *model)
{
    const cJSON *wm = m_get(model, "worst_moment");
    if (!cJSON_IsObject(wm) || cJSON_GetArraySize(m_get(wm, "waits")) == 0) {
        fputs("<p>No lock waits were logged.</p>\n", f);
        return;
    }
    fputs("<p>Every wait open at ", f);
    text(f, m_str(wm, "time"), 40);
    fputs(", when the busiest row's queue was longest.</p>\n", f);
    TABLE(f, tree_cols, m_get(wm, "waits"));
}

/* The slowest traced requests and their row-lock queueing. */
static void panel_requests(FILE *f, const cJSON *model)
{
    if (cJSON_GetArraySize(m_get(model, "slow_requests")) == 0) {
        fputs("<p>No traces were given: pass an OTLP, Jaeger or Zipkin export to see which "
              "requests queued for row locks.</p>\n", f);
        return;
    }
    TABLE(f, request_cols, m_get(model, "slow_requests"));
}

/* The headline ranking, with each path's hold-time breakdown. */
static void panel_code_paths(FILE *f, const cJSON *model)
{
    const cJSON *c;
    if (cJSON_GetArraySize(m_get(model, "row_occupancy")) > 0) {
        fputs("<h3>Row occupancy: every hold of a hot row</h3>\n<p>How long each code path "
              "kept the hot rows locked, whether or not anyone waited long enough to be "
              "logged (from statement logging).</p>\n", f);
        TABLE(f, occupancy_cols, m_get(model, "row_occupancy"));
    }
    if (cJSON_GetArraySize(m_get(model, "row_queueing")) > 0) {
        fputs("<h3>Queueing for hot rows, logged and hidden</h3>\n<p>Waits below "
              "deadlock_timeout are never logged; they are rebuilt from the holds each "
              "statement queued behind.</p>\n", f);
        TABLE(f, queueing_cols, m_get(model, "row_queueing"));
    }
    fputs("<h3>Blocking: holds others waited for</h3>\n", f);
    if (cJSON_GetArraySize(m_get(model, "code_paths")) == 0) {
        fputs("<p>No transaction held a row others waited for.</p>\n", f);
        return;
    }
    TABLE(f, code_path_cols, m_get(model, "code_paths"));
    cJSON_ArrayForEach(c, m_get(model, "code_paths")) {
        if (cJSON_GetArraySize(m_get(c, "hold_breakdown")) == 0)
            continue;
        fputs("<h3>", f);
        text(f, m_str(c, "code_path"), 120);
        fputs("</h3>\n", f);
        breakdown_bar(f, m_get(c, "hold_breakdown"));
        TABLE(f, part_cols, m_get(c, "hold_breakdown"));
    }
    if (cJSON_GetArraySize(m_get(model, "lock_order_conflicts")) > 0) {
        fputs("<h3>Inconsistent lock order</h3>\n", f);
        TABLE(f, conflict_cols, m_get(model, "lock_order_conflicts"));
    }
}

static void panel_holds(FILE *f, const cJSON *model)
{
    if (cJSON_GetArraySize(m_get(model, "holds")) == 0) {
        fputs("<p>None.</p>\n", f);
        return;
    }
    TABLE(f, hold_cols, m_get(model, "holds"));
}

static void panel_waits(FILE *f, const cJSON *model)
{
    const cJSON *ws = m_get(model, "waits");
    double total = m_num(m_get(model, "summary"), "waits");
    if (cJSON_GetArraySize(ws) == 0) {
        fputs("<p>None.</p>\n", f);
        return;
    }
    if (cJSON_GetArraySize(ws) < total)
        fprintf(f, "<p class=\"note\">The first %d of %.0f waits (--max-waits); totals "
                   "elsewhere are exact.</p>\n",
                cJSON_GetArraySize(ws), total);
    TABLE(f, wait_cols, ws);
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
                   "marker-end=\"url(#dlarrow%d)\"><title>pid %.0f waits for ",
                ax, ay, cx, cy, bx, by, id, m_num(e, "waiter_pid"));
        text(f, m_str(e, "mode"), 40);
        fputs(" on ", f);
        text(f, m_str(e, "target"), 120);
        fprintf(f, ", held by pid %.0f</title></path>\n", m_num(e, "blocker_pid"));
        fprintf(f, "<text class=\"elabel\" x=\"%.1f\" y=\"%.1f\">", 0.25 * ax + 0.5 * cx + 0.25 * bx,
                0.25 * ay + 0.5 * cy + 0.25 * by + 4);
        text(f, m_str(e, "mode"), 24);
        fputs(" on ", f);
        text(f, m_str(e, "target"), 36);
        fputs("</text>\n", f);
    }
    for (i = 0; i < n; i++) {
        int victim = pids[i] == m_num(d, "victim_pid");
        const char *app = victim ? m_str(d, "victim_application") : NULL;
        if (!app)
            app = proc_app(model, pids[i]);
        fprintf(f, "<g class=\"node%s\"><title>pid %.0f", victim ? " victim" : "", pids[i]);
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
    int n = 0;
    if (cJSON_GetArraySize(m_get(model, "deadlocks")) == 0) {
        fputs("<p>None.</p>\n", f);
        return;
    }
    cJSON_ArrayForEach(d, m_get(model, "deadlocks")) {
        fprintf(f, "<article class=\"deadlock\" id=\"deadlock-%d\">\n<h3>Deadlock %d — ", n + 1,
                n + 1);
        text(f, m_str(d, "time"), 40);
        fprintf(f, ", victim pid %.0f", m_num(d, "victim_pid"));
        if (m_str(d, "victim_application")) {
            fputs(" (", f);
            ls_html_escape(f, m_str(d, "victim_application"), 64);
            fputs(")", f);
        }
        fputs("</h3>\n<p class=\"src\">Logged at ", f);
        text(f, m_str(d, "file"), 200);
        fprintf(f, ":%.0f. An arrow reads \"waits for\".</p>\n", m_num(d, "line"));
        deadlock_svg(f, model, d, ++n);
        TABLE(f, edge_cols, m_get(d, "edges"));
        TABLE(f, proc_cols, m_get(d, "processes"));
        fputs("</article>\n", f);
    }
}

static void panel_errors(FILE *f, const cJSON *model)
{
    if (cJSON_GetArraySize(m_get(model, "errors")) == 0) {
        fputs("<p>None.</p>\n", f);
        return;
    }
    TABLE(f, error_cols, m_get(model, "errors"));
}

static void panel_input(FILE *f, const cJSON *model)
{
    const cJSON *in = m_get(model, "input");
    TABLE(f, file_cols, m_get(in, "files"));
    if (cJSON_GetArraySize(m_get(in, "bad_line_samples")) > 0) {
        fputs("<h3>Unparsable lines (first of each file)</h3>\n", f);
        TABLE(f, bad_cols, m_get(in, "bad_line_samples"));
    }
}

/* ---- the page ---- */

typedef void (*panel_fn)(FILE *f, const cJSON *model);

/* The report's sections, in order. Each id is also the nav anchor. */
static const struct panel {
    const char *id;
    const char *title;
    const char *intro; /* one line under the heading, or NULL */
    panel_fn render;
} panels[] = {
    {"summary", "Summary", NULL, panel_summary},
    {"findings", "Findings", "What the evidence points to, and the fix each finding suggests.",
     panel_findings},
    {"code-paths", "Code paths holding locks longest",
     "Transactions grouped by code path (from trace spans, sqlcommenter tags, "
     "application_name or statement shape), ranked by how long they held rows others "
     "waited for.",
     panel_code_paths},
    {"slow-requests", "Slow requests",
     "The slowest requests in the traces and how much of each was queueing for row locks "
     "(logged waits and the shorter ones the log never shows), behind which code path.",
     panel_requests},
    {"hot-rows", "Hot rows",
     "Logical rows (one row however many ctids its updates gave it) ranked by the total time "
     "others waited for them; serial capacity is 1 / mean hold.",
     panel_hot_rows},
    {"timelines", "Timelines of the hottest rows", NULL, panel_timelines},
    {"root-blockers", "Root blockers",
     "The transactions at the head of the queues: what they held, and what they ran "
     "meanwhile. Idle time before a statement is time the lock was held while the "
     "application did something else.",
     panel_roots},
    {"holds", "Longest holds",
     "Each time a transaction held a hot row, ranked by the waiting it caused, with where "
     "its time went: running SQL, idle in transaction, committing.",
     panel_holds},
    {"worst-moment", "Lock tree at the worst moment", NULL, panel_worst},
    {"waits", "Lock waits", NULL, panel_waits},
    {"deadlocks", "Deadlocks", NULL, panel_deadlocks},
    {"errors", "Errors and timeouts", NULL, panel_errors},
    {"input", "Input", NULL, panel_input},
};

static const char css[] =
    ":root{--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--bg2:#f6f8fa;--acq:#3b7dd8;"
    "--dl:#cf222e;--lto:#e16f24;--sto:#bc4c00;--ser:#8250df;--can:#6e7781;--hold:#2da44e;"
    "--idle:#f2cc60}\n"
    "*{box-sizing:border-box}\n"
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:var(--fg);"
    "margin:0 auto;max-width:1200px;padding:0 16px 48px}\n"
    "header{border-bottom:1px solid var(--line);margin-bottom:8px}\n"
    "h1{font-size:24px;margin:20px 0 4px}h2{font-size:19px;margin:28px 0 8px;"
    "border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:15px;margin:16px 0 6px}\n"
    ".meta,.note,.src,.legend{color:var(--muted);font-size:12px}\n"
    "nav a{margin-right:12px;color:#0969da;text-decoration:none}\n"
    "table{border-collapse:collapse;margin:6px 0 12px;font-size:13px}\n"
    "th,td{border:1px solid var(--line);padding:3px 7px;text-align:left;vertical-align:top}\n"
    "th{background:var(--bg2)}tbody tr:nth-child(even){background:#fbfcfd}\n"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    "td.t{font-variant-numeric:tabular-nums;min-width:7em}\n"
    "code{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;"
    "white-space:pre-wrap;word-break:break-word}\n"
    ".scroll{overflow-x:auto}td code{display:block;min-width:18em;max-width:60em}\n"
    ".cards{display:flex;flex-wrap:wrap;gap:8px;margin:10px 0}\n"
    ".cards div{border:1px solid var(--line);border-radius:6px;padding:6px 10px;min-width:150px;"
    "color:var(--muted);font-size:12px}.cards b{display:block;font-size:18px;color:var(--fg)}\n"
    "table.kv th{font-weight:normal;color:var(--muted)}\n"
    ".findings li{margin:4px 0}.fix{display:block;color:#1a5e20}.filter{background:#fff8c5;padding:4px 8px;border-radius:4px}\n"
    ".chip{display:inline-block;padding:0 6px;border-radius:8px;color:#fff;font-size:12px}\n"
    ".o-acq{background:var(--acq);fill:var(--acq)}.o-dl{background:var(--dl);fill:var(--dl)}"
    ".o-lto{background:var(--lto);fill:var(--lto)}.o-sto{background:var(--sto);fill:var(--sto)}"
    ".o-ser{background:var(--ser);fill:var(--ser)}.o-can,.o-unk{background:var(--can);"
    "fill:var(--can)}\n"
    "figure{margin:12px 0 20px}figcaption{font-weight:600;margin-bottom:4px}\n"
    "svg{max-width:100%;height:auto;font:11px system-ui,sans-serif}\n"
    "svg .band0{fill:#fff}svg .band1{fill:var(--bg2)}svg .grid{stroke:#e4e8ec}\n"
    "svg .tick{fill:var(--muted);text-anchor:middle}"
    "svg .lane{fill:var(--fg);text-anchor:end}svg .note{fill:var(--fg);text-anchor:end;"
    "paint-order:stroke;stroke:#fff;stroke-width:3px}\n"
    "svg .hold{fill:var(--hold);fill-opacity:.35;stroke:var(--hold)}"
    "svg .idle{fill:var(--idle);fill-opacity:.8;stroke:#bf8700;stroke-dasharray:3 2}"
    "svg .stmt{fill:#1a7f37}\n"
    "svg .wait{stroke:#0003}svg .link{stroke:#444;stroke-width:1.2}"
    "svg .arrowhead{fill:#444}\n"
    "svg .depth{fill:#8c959f;fill-opacity:.35;stroke:#57606a}svg .key{fill:var(--fg)}\n"
    "svg.dl .edge{fill:none;stroke:#444;stroke-width:1.6}"
    "svg.dl .elabel{text-anchor:middle;paint-order:stroke;stroke:#fff;stroke-width:3px;"
    "fill:var(--fg)}\n"
    "svg.dl circle{fill:#ddf4ff;stroke:#0969da;stroke-width:2}"
    "svg.dl .victim circle{fill:#ffebe9;stroke:var(--dl)}"
    "svg.dl text{text-anchor:middle;font-weight:600}svg.dl .sub{font-weight:normal;"
    "fill:var(--dl)}\n"
    "article{margin-bottom:18px}\n"
    "@media print{nav{display:none}body{max-width:none;padding:0;font-size:11px}"
    "section,figure,article{break-inside:avoid-page}h2{break-after:avoid}"
    "*{-webkit-print-color-adjust:exact;print-color-adjust:exact}.scroll{overflow:visible}"
    "a{color:inherit}}\n";

int ls_report_write_html(const cJSON *model, FILE *f)
{
    size_t i;

    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          /* Belt and braces: even if something slipped through, nothing loads or runs. */
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; img-src data:\">\n<title>",
          f);
    text(f, m_str(model, "title"), 200);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<header>\n<h1>", css);
    text(f, m_str(model, "title"), 200);
    fputs("</h1>\n<p class=\"meta\">", f);
    text(f, m_str(model, "generator"), 60);
    if (m_str(model, "generated_at")) {
        fputs(", generated ", f);
        ls_html_escape(f, m_str(model, "generated_at"), 60);
    }
    fputs("</p>\n<nav>", f);
    for (i = 0; i < sizeof(panels) / sizeof(panels[0]); i++)
        fprintf(f, "<a href=\"#%s\">%s</a>", panels[i].id, panels[i].title);
    fputs("</nav>\n</header>\n<main>\n", f);
    for (i = 0; i < sizeof(panels) / sizeof(panels[0]); i++) {
        fprintf(f, "<section id=\"%s\">\n<h2>%s</h2>\n", panels[i].id, panels[i].title);
        if (panels[i].intro)
            fprintf(f, "<p>%s</p>\n", panels[i].intro);
        panels[i].render(f, model);
        fputs("</section>\n", f);
    }
    fputs("</main>\n</body>\n</html>\n", f);
    return ferror(f) ? LS_EIO : 0;
}
