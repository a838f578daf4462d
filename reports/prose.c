/*
 * prose.c — the report's sentences for HTML and Markdown (prose.h): what
 * is said is written here once; how (escaping, markup, times, tables) is
 * the renderer's ls_writer.
 */
#include <stdio.h>
#include <string.h>

#include "ls_logcover.h"
#include "prose.h"
#include "render_int.h"

/* Each tag in HTML and in Markdown. */
static const struct {
    const char *html, *md;
} tags[LS_TAG_COUNT] = {
    [LS_TAG_STRONG] = {"<strong>", ""},
    [LS_TAG_STRONG_END] = {"</strong>", ""},
    [LS_TAG_CODE] = {"<code>", ""},
    [LS_TAG_CODE_END] = {"</code>", ""},
    [LS_TAG_H3] = {"<h3>", "### "},
    [LS_TAG_H3_END] = {"</h3>\n<p>", "\n\n"},
    [LS_TAG_P] = {"<p>", ""},
    [LS_TAG_P_END] = {"</p>\n", "\n\n"},
    [LS_TAG_NOTE] = {"<p class=\"note\">", "_"},
    [LS_TAG_NOTE_END] = {"</p>\n", "_\n\n"},
    [LS_TAG_LIST] = {"<ul class=\"findings\">\n", ""},
    [LS_TAG_LIST_END] = {"</ul>\n", "\n"},
    [LS_TAG_TITLE_END] = {"</b> — ", "** — "},
    [LS_TAG_FIX] = {" <span class=\"fix\"><b>Fix:</b> ", "<br>_Fix:_ "},
    [LS_TAG_ITEM_END] = {"</span></li>\n", "\n"},
    [LS_TAG_BULLET] = {"<li>", "- "},
    [LS_TAG_BULLET_END] = {"</li>\n", "\n"},
    [LS_TAG_FILTER] = {"<p class=\"filter\">", "> "},
    [LS_TAG_FILTER_END] = {"</p>\n", "\n\n"},
    [LS_TAG_ANSWER] = {"<p class=\"answer\">", ""},
    [LS_TAG_ANSWER_END] = {"</p>\n", "\n\n"},
    [LS_TAG_B] = {"<b>", "**"},
    [LS_TAG_B_END] = {"</b>", "**"},
};

static void tag(const ls_writer *w, ls_tag t)
{
    fputs(w->in == LS_IN_HTML ? tags[t].html : tags[t].md, w->f);
}

void ls_write_duration(const ls_writer *w, double ms)
{
    char buf[LS_DURATION_LEN];
    fputs(ls_fmt_duration(buf, sizeof(buf), ms), w->f);
}

void ls_write_pid_path(FILE *f, double pid, const cJSON *o, const char *prefix,
                       void (*esc)(FILE *f, const char *s, size_t max), size_t max)
{
    char key[64];
    snprintf(key, sizeof(key), "%scode_path", prefix);
    /* no backend pid is 0: a transaction rebuilt from its spans alone
     * behind a pooler has none (pid null), and none is made up */
    if (pid > 0)
        fprintf(f, "pid %.0f", pid);
    else
        fputs("pid unknown", f);
    if (m_str(o, key)) {
        fputs(" · ", f);
        esc(f, m_str(o, key), max);
    }
}

int ls_write_opt(FILE *f, const char *label, const char *s,
                 void (*esc)(FILE *f, const char *s, size_t max), size_t max)
{
    if (!s)
        return 0;
    fputs(label, f);
    esc(f, s, max);
    return 1;
}

void ls_write_bullet(const ls_writer *w, const char *label, const char *s, size_t max)
{
    tag(w, LS_TAG_BULLET);
    fputs(label, w->f);
    w->esc(w->f, s, max);
    tag(w, LS_TAG_BULLET_END);
}

void ls_write_root_tx_unknown(const ls_writer *w, const cJSON *root)
{
    const cJSON *tx = cJSON_GetObjectItemCaseSensitive(root, "transaction");
    const char *rows = m_str(root, "rows");
    if (m_has_num(root, "xid") || (tx && !cJSON_IsNull(tx)) || !rows || !strstr(rows, ", "))
        return;
    tag(w, LS_TAG_BULLET);
    fputs("Transactions unknown: the log names none of this pid's, so these rows may have been "
          "held by different transactions of it",
          w->f);
    tag(w, LS_TAG_BULLET_END);
}

void ls_write_trace_spans(const ls_writer *w, const cJSON *t, const char *lead, const char *label,
                          const char *end)
{
    if (!t)
        return;
    fprintf(w->f, "%s%.0f%s", lead, m_num(t, "database_spans"), label);
    ls_fmt_trace_spans(w->f, t, w->esc);
    fputs(end, w->f);
}

void ls_write_unmatched_locks(const ls_writer *w, const cJSON *u)
{
    const int html = w->in == LS_IN_HTML;
    const char *lang;

    if (!u)
        return;
    lang = m_str(u, "language");
    fprintf(w->f, "%s %.0f lock-wait messages matched no message of lockspan's tables for ",
            html ? "<p class=\"note\">Warning:" : "**Warning:**", m_num(u, "count"));
    if (lang && lang[0]) {
        fputs("language ", w->f);
        w->esc(w->f, lang, 40);
    } else {
        fputs("the log's language", w->f);
    }
    fprintf(w->f, " (the server's message catalog is a translation or revision lockspan does not "
                  "know): %.0f read by structure, %.0f not read. E.g. %s",
            m_num(u, "count") - m_num(u, "unread"), m_num(u, "unread"), html ? "<code>" : "");
    w->esc(w->f, m_str(u, "sample"), 200);
    fputs(html ? "</code>. Set <code>lc_messages = 'C'</code> on the server for logs lockspan "
                 "reads whole.</p>\n"
               : ". Set `lc_messages = 'C'` on the server for logs lockspan reads whole.\n\n",
          w->f);
}

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Is x's {pid, code_path} pair already in list before x? */
static int seen_before(const cJSON *list, const cJSON *x)
{
    const cJSON *y;
    for (y = list->child; y != x; y = y->next)
        if (m_num(y, "pid") == m_num(x, "pid") &&
            same_str(m_str(y, "code_path"), m_str(x, "code_path")))
            return 1;
    return 0;
}

int ls_write_pids(FILE *f, const cJSON *list, void (*one)(FILE *f, const cJSON *x))
{
    const cJSON *x;
    int n = 0, more = 0;
    cJSON_ArrayForEach(x, list) {
        if (seen_before(list, x))
            continue;
        if (n == LS_PIDS_SHOWN) {
            more++;
            continue;
        }
        if (n++)
            fputs(", ", f);
        one(f, x);
    }
    if (more)
        fprintf(f, " and %d more", more);
    return n;
}

/* "8.7 s of this 9.0 s request (97 %) was queueing behind PATH on ROW
 * (3 waits; 1.2 s of it logged, ...)." n: the request's waits. */
static void request_sentence(const ls_writer *w, const cJSON *r, int n)
{
    const char *path = m_str(r, "waited_behind_code_path"), *row = m_str(r, "waited_for_row");
    FILE *f = w->f;

    if (n == 0) {
        fputs("No row-lock queueing was found in this ", f);
        ls_write_duration(w, m_num(r, "duration_ms"));
        fputs(" request.", f);
        return;
    }
    tag(w, LS_TAG_STRONG);
    ls_write_duration(w, m_num(r, "lock_wait_ms"));
    tag(w, LS_TAG_STRONG_END);
    fputs(" of this ", f);
    ls_write_duration(w, m_num(r, "duration_ms"));
    fprintf(f, " request (%.0f %%) was queueing for row locks",
            100.0 * m_num(r, "lock_wait_share"));
    if (path) {
        fputs(", mostly behind ", f);
        tag(w, LS_TAG_STRONG);
        w->esc(w->f, path, 120);
        tag(w, LS_TAG_STRONG_END);
    }
    if (row) {
        fputs(" on ", f);
        w->esc(w->f, row, 120);
    }
    fprintf(f, " (%d wait%s; ", n, n == 1 ? "" : "s");
    ls_write_duration(w, m_num(r, "logged_lock_wait_ms"));
    fputs(" of it logged, the rest below deadlock_timeout).", f);
}

void ls_write_request(const ls_writer *w, const cJSON *r)
{
    FILE *f = w->f;
    int n = cJSON_GetArraySize(m_get(r, "waits")) + (int)m_num(r, "waits_not_listed");

    tag(w, LS_TAG_H3);
    if (m_str(r, "name")) {
        w->esc(w->f, m_str(r, "name"), 120);
        fputs(" · ", f);
    }
    fputs("trace ", f);
    tag(w, LS_TAG_CODE);
    w->esc(w->f, m_str(r, "trace_id"), 40);
    tag(w, LS_TAG_CODE_END);
    tag(w, LS_TAG_H3_END);
    if (cJSON_IsFalse(m_get(r, "found"))) {
        fputs("Not in this report: ", f);
        w->esc(w->f, m_str(r, "note"), 200);
        fputs(".", f);
        tag(w, LS_TAG_P_END);
        return;
    }
    request_sentence(w, r, n);
    fputs(" Started ", f);
    w->time(w, m_str(r, "start"));
    fprintf(f, " (application clock); %.0f span%s, %.0f transaction%s linked.", m_num(r, "spans"),
            m_num(r, "spans") == 1 ? "" : "s", m_num(r, "transactions"),
            m_num(r, "transactions") == 1 ? "" : "s");
    tag(w, LS_TAG_P_END);
    if (m_str(r, "note")) {
        tag(w, LS_TAG_NOTE);
        w->esc(w->f, m_str(r, "note"), 200);
        fputs(".", f);
        tag(w, LS_TAG_NOTE_END);
    }
    /* waits_not_listed counts past a full list: no list, nothing past it */
    if (cJSON_GetArraySize(m_get(r, "waits")) == 0)
        return;
    w->table(w, &ls_tab_trace_waits, m_get(r, "waits"));
    if (m_num(r, "waits_not_listed") > 0) {
        tag(w, LS_TAG_NOTE);
        fprintf(f, "%.0f more waits of this request not listed (the totals count them).",
                m_num(r, "waits_not_listed"));
        tag(w, LS_TAG_NOTE_END);
    }
}

/* Does the filter flt bound the report's time? */
static int has_window(const cJSON *flt)
{
    return m_str(flt, "since") || m_str(flt, "until");
}

void ls_write_filter(const ls_writer *w, const cJSON *flt)
{
    static const struct {
        const char *key, *label;
        int is_time;
    } keys[] = {{"since", "since", 1},           {"until", "until", 1},
                {"relation", "relation", 0},     {"database", "database", 0},
                {"code_path", "code path", 0}};
    size_t i;
    if (!cJSON_IsObject(flt))
        return;
    tag(w, LS_TAG_FILTER);
    fputs("Filtered: ", w->f);
    for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        const char *v = m_str(flt, keys[i].key);
        if (!v)
            continue;
        fprintf(w->f, "%s ", keys[i].label);
        tag(w, LS_TAG_STRONG);
        if (keys[i].is_time)
            w->time(w, v);
        else
            w->esc(w->f, v, 80);
        tag(w, LS_TAG_STRONG_END);
        fputs("; ", w->f);
    }
    fputs("waits, errors and deadlocks outside the filter are left out, and so are the "
          "counts below",
          w->f);
    if (has_window(flt))
        fputs(" and the findings (a finding over a row's whole history only when that history "
              "is inside the window)",
              w->f);
    fputs(".", w->f);
    tag(w, LS_TAG_FILTER_END);
}

void ls_write_findings(const ls_writer *w, const cJSON *list, const cJSON *flt)
{
    const cJSON *x;
    int n = 0;
    if (cJSON_GetArraySize(list) == 0) {
        tag(w, LS_TAG_P);
        fputs(has_window(flt) ? "No rule found anything to say in this time window."
                              : "No rule found anything to say.",
              w->f);
        tag(w, LS_TAG_P_END);
        return;
    }
    tag(w, LS_TAG_LIST);
    cJSON_ArrayForEach(x, list) {
        w->item(w, ++n);
        w->esc(w->f, m_str(x, "title"), 200);
        tag(w, LS_TAG_TITLE_END);
        w->esc(w->f, m_str(x, "evidence"), 400);
        tag(w, LS_TAG_FIX);
        w->esc(w->f, m_str(x, "fix"), 400);
        tag(w, LS_TAG_ITEM_END);
    }
    tag(w, LS_TAG_LIST_END);
}

/* " While others waited, it was mostly in the span HTTP POST payments-api
 * /charge (3.5 s of 3.8 s)." */
static void story_doing(const ls_writer *w, const cJSON *d, const char *unknown)
{
    const char *part = m_str(d, "part");
    if (!part && unknown) {
        /* its idle and commit time not in the log (story.c) */
        fputs(" Where its hold time went while others waited is unknown: the log shows none of "
              "those holds' ends, so their idle in transaction and commit time are not in it.",
              w->f);
        return;
    }
    if (!part) {
        fputs(" None of its holds was waited for long enough to be logged, so lockspan has no "
              "split of their time (it splits the holds others waited for).",
              w->f);
        return;
    }
    fputs(" While others waited for it, it was mostly ", w->f);
    if (strcmp(part, "span") == 0)
        fputs("in the span ", w->f);
    else if (strcmp(part, "sql") == 0)
        fputs("running ", w->f);
    else if (strcmp(part, "commit") == 0)
        fputs("in ", w->f);
    tag(w, LS_TAG_B);
    w->esc(w->f, m_str(d, "name"), LS_SPAN_NAME_MAX);
    tag(w, LS_TAG_B_END);
    fputs(" (", w->f);
    ls_write_duration(w, m_num(d, "ms"));
    fputs(" of ", w->f);
    ls_write_duration(w, m_num(d, "of_ms"));
    fputs(").", w->f);
}

void ls_write_story(const ls_writer *w, const cJSON *story)
{
    const cJSON *row = m_get(story, "row"), *ev = m_get(story, "evidence");
    if (!cJSON_IsObject(story))
        return;
    if (m_str(story, "occupancy_unknown")) {
        tag(w, LS_TAG_ANSWER);
        fputs("Which code path holds the hot rows longest is not knowable from this log: ", w->f);
        w->esc(w->f, m_str(story, "occupancy_unknown"), 400);
        tag(w, LS_TAG_ANSWER_END);
        return;
    }
    tag(w, LS_TAG_ANSWER);
    tag(w, LS_TAG_B);
    w->esc(w->f, m_str(story, "code_path"), 120);
    tag(w, LS_TAG_B_END);
    fputs(" holds the hot rows longest: ", w->f);
    if (cJSON_IsTrue(m_get(story, "hold_at_least"))) {
        /* lower bounds (story.c): no share of the time stated as a fact */
        fputs("at least ", w->f);
        ls_write_duration(w, m_num(story, "hold_ms"));
        fprintf(w->f, " (hold times are lower bounds, the log has no transaction boundaries: "
                      "%.1f %% of the hold time it times, not of the time hot rows were held; "
                      "%.0f holds; %.0f with a wait the log shows)",
                m_num(story, "share_pct"), m_num(story, "holds"),
                m_num(story, "holds_waited_for"));
    } else {
        ls_write_duration(w, m_num(story, "hold_ms"));
        fprintf(w->f,
                ", %.1f %% of the time hot rows were held (%.0f holds; %.0f with a wait the log "
                "shows)",
                m_num(story, "share_pct"), m_num(story, "holds"), m_num(story, "holds_waited_for"));
    }
    if (cJSON_IsObject(row)) {
        fputs(", most of it on ", w->f);
        w->esc(w->f, m_str(row, "relation"), 64);
        fputs(" ", w->f);
        w->esc(w->f, m_str(row, "row_key") ? m_str(row, "row_key") : m_str(row, "ctid"), 64);
    }
    fputs(".", w->f);
    story_doing(w, m_get(story, "doing"), m_str(story, "doing_unknown_reason"));
    if (m_str(story, "fix")) {
        fputs(" ", w->f);
        tag(w, LS_TAG_B);
        fputs("Fix", w->f);
        tag(w, LS_TAG_B_END);
        fprintf(w->f, " (finding %.0f, ", m_num(story, "finding_number"));
        w->esc(w->f, m_str(story, "finding"), 200);
        fputs("): ", w->f);
        w->esc(w->f, m_str(story, "fix"), 400);
    }
    tag(w, LS_TAG_ANSWER_END);
    tag(w, LS_TAG_NOTE);
    fputs("How sure: the code path is named by ", w->f);
    w->esc(w->f, m_str(story, "named_by") ? m_str(story, "named_by") : "nothing", 40);
    fprintf(w->f, "; %.0f of its %.0f holds have a start or end the log only bounds.",
            m_num(ev, "holds_bounded"), m_num(ev, "holds"));
    if (m_str(ev, "logging") && strcmp(m_str(ev, "logging"), "complete") != 0)
        fputs(" Statements were logged only in part: hold times are lower bounds from the"
              " logged statements (see Input).", w->f);
    if (m_num(story, "ranked_paths") > cJSON_GetArraySize(m_get(story, "ranking")))
        fprintf(w->f, " The first %d of %.0f code paths; the whole ranking is under \"%s\".",
                cJSON_GetArraySize(m_get(story, "ranking")), m_num(story, "ranked_paths"),
                ls_sections[LS_SEC_CODE_PATHS].title);
    tag(w, LS_TAG_NOTE_END);
    w->table(w, &ls_tab_story, m_get(story, "ranking"));
}

void ls_write_wait_bounds(const ls_writer *w, const cJSON *rows)
{
    const cJSON *h;
    cJSON_ArrayForEach(h, rows) {
        const cJSON *wb = cJSON_GetObjectItemCaseSensitive(h, "wait_bounds");
        if (!wb)
            continue;
        tag(w, LS_TAG_NOTE);
        w->esc(w->f, m_str(h, "relation"), 64);
        fputs(" ", w->f);
        w->esc(w->f, m_str(h, "row_key"), 64);
        fputs(": total wait at least ", w->f);
        ls_write_duration(w, m_num(h, "total_wait_ms"));
        fputs(", each wait at most ", w->f);
        ls_write_duration(w, m_num(h, "max_wait_ms"));
        fputs(". ", w->f);
        w->esc(w->f, m_str(wb, "reason"), 600);
        tag(w, LS_TAG_NOTE_END);
    }
}

static int may_be_version(const cJSON *h)
{
    const char *ev = m_str(h, "grouped_by");
    return ev && strstr(ev, LS_ROW_MAY_BE_VERSION) != NULL;
}

int ls_hot_rows_may_join(const cJSON *rows)
{
    const cJSON *h;
    cJSON_ArrayForEach(h, rows) {
        if (may_be_version(h))
            return 1;
    }
    return 0;
}

/* A listed row known only by a ctid that may be a version of another
 * listed row of relation `rel`. */
static int version_of(const cJSON *h, const char *rel)
{
    return may_be_version(h) && m_str(h, "relation") && strcmp(m_str(h, "relation"), rel) == 0;
}

void ls_write_ctid_versions(const ls_writer *w, const cJSON *rows)
{
    int i, n = cJSON_GetArraySize(rows);
    for (i = 0; i < n; i++) {
        const cJSON *h = cJSON_GetArrayItem(rows, i), *g;
        const char *rel = m_str(h, "relation");
        int j, same = 0, k = 0, seen = 0;
        if (!rel || !may_be_version(h))
            continue;
        /* the relation's first such row speaks for them all */
        for (j = 0; j < i && !seen; j++)
            seen = version_of(cJSON_GetArrayItem(rows, j), rel);
        if (seen)
            continue;
        cJSON_ArrayForEach(g, rows) same += version_of(g, rel);
        if (same < 2)
            continue;
        tag(w, LS_TAG_NOTE);
        w->esc(w->f, rel, 64);
        fputs(": ", w->f);
        cJSON_ArrayForEach(g, rows) {
            if (!version_of(g, rel))
                continue;
            fputs(k == 0 ? "" : k == same - 1 ? " and " : ", ", w->f);
            w->esc(w->f, m_str(g, "row_key"), 64);
            k++;
        }
        fputs(" are rows known only by their ctids, and may be versions of one row: an UPDATE "
              "gives a row a new ctid, and the log names no key that tells them apart.",
              w->f);
        tag(w, LS_TAG_NOTE_END);
    }
}

const char *ls_hidden_unknown_why(const cJSON *model)
{
    const char *verdict = m_str(m_get(m_get(model, "input"), "logging"), "verdict");
    if (verdict && strcmp(verdict, "statement_classes") == 0)
        return "only some statement classes logged: log_statement = 'mod'";
    if (verdict && (strcmp(verdict, "none") == 0 || strcmp(verdict, "no_statements") == 0))
        return "no statement logged: log_statement = 'none'";
    return "statements logged only past a duration threshold";
}

/* input.logging, when its verdict is not "complete". */
static void write_logging(const ls_writer *w, const cJSON *lg)
{
    const char *verdict = m_str(lg, "verdict");
    if (!verdict || strcmp(verdict, "complete") == 0)
        return;
    tag(w, LS_TAG_P);
    tag(w, LS_TAG_B);
    if (strcmp(verdict, "none") == 0) {
        /* No statement at all: nothing to bound a hold with (blind-pl). */
        fputs("Hold times cannot be read from this log.", w->f);
        tag(w, LS_TAG_B_END);
        fputs(" The log shows no statement (log_statement = 'none', no"
              " log_min_duration_statement): only lock waits past deadlock_timeout,"
              " deadlocks and errors. No transaction's start or end is in it, so no hold"
              " is timed, the waits shorter than deadlock_timeout are missing, and which"
              " code path held a row is not known. To time holds, ",
              w->f);
        w->esc(w->f, m_str(lg, "advice"), 200);
        fputs(".", w->f);
        tag(w, LS_TAG_P_END);
        return;
    }
    fputs("Hold times are lower bounds.", w->f);
    tag(w, LS_TAG_B_END);
    if (strcmp(verdict, "threshold") == 0)
        fprintf(w->f, " The log shows statements only past a duration threshold (%.0f statements,"
                      " the shortest %.1f ms; %.0f BEGIN, COMMIT or ROLLBACK): the rest, and"
                      " the transactions' ends, are not in it.",
                m_num(lg, "statements"), m_num(lg, "shortest_ms"),
                m_num(lg, "transaction_control"));
    else if (strcmp(verdict, "statement_classes") == 0)
        fprintf(w->f, " The log shows only some classes of statement (log_statement = 'mod':"
                      " %.0f statements, none a read, %.0f BEGIN, COMMIT or ROLLBACK, %.0f with"
                      " a duration): the SELECT ... FOR UPDATE that takes a row, the"
                      " transactions' starts and ends are not in it.",
                m_num(lg, "statements"), m_num(lg, "transaction_control"),
                m_num(lg, "statements_timed"));
    else
        fputs(" The log shows no statement, only locks.", w->f);
    fprintf(w->f, " %.0f of %.0f holds have no evidence for their end: they read \"at least\","
                  " from the logged statements only. To time them, ",
            m_num(lg, "holds_at_least"), m_num(lg, "holds"));
    w->esc(w->f, m_str(lg, "advice"), 200);
    fputs(".", w->f);
    tag(w, LS_TAG_P_END);
}

/* input.pooled_backends (coverage.c), when present: one pid, many requests. */
static void write_pooled(const ls_writer *w, const cJSON *p)
{
    if (!p)
        return;
    tag(w, LS_TAG_P);
    tag(w, LS_TAG_B);
    fputs("Pooled connections:", w->f);
    tag(w, LS_TAG_B_END);
    fprintf(w->f, " %.0f backend pids ran the transactions of %.0f requests (%.0f transactions"
                  " linked to a trace; up to %.0f requests on one pid), one after another: a"
                  " connection pool (the application's, or a pooler such as pgbouncer in"
                  " transaction mode) served them. A pid is not one client here: each"
                  " transaction is linked to its own request.",
            m_num(p, "pids"), m_num(p, "requests"), m_num(p, "transactions"),
            m_num(p, "most_requests_one_pid"));
    tag(w, LS_TAG_P_END);
}

void ls_write_input_notes(const ls_writer *w, const cJSON *input)
{
    const cJSON *pair;
    write_logging(w, m_get(input, "logging"));
    write_pooled(w, m_get(input, "pooled_backends"));
    cJSON_ArrayForEach(pair, m_get(input, "same_log_twice")) {
        tag(w, LS_TAG_P);
        tag(w, LS_TAG_B);
        fputs("Read twice:", w->f);
        tag(w, LS_TAG_B_END);
        fputs(" ", w->f);
        w->esc(w->f, m_str(pair, "file"), 120);
        fputs(" and ", w->f);
        w->esc(w->f, m_str(pair, "other"), 120);
        fputs(" are the same log in two formats (log_destination writes each event to every"
              " format): both were read, so each of its events counts twice in this report. Name one of"
              " them, or their directory.", w->f);
        tag(w, LS_TAG_P_END);
    }
}

void ls_write_queue_answer(const ls_writer *w, const cJSON *story, const cJSON *queues)
{
    const cJSON *q = cJSON_GetArrayItem(queues, 0);
    int n = cJSON_GetArraySize(queues);
    if (cJSON_IsObject(story) || !cJSON_IsObject(q))
        return;
    tag(w, LS_TAG_ANSWER);
    fputs("The waiting was in a relation's lock queue, not on a hot row: ", w->f);
    tag(w, LS_TAG_B);
    w->esc(w->f, m_str(q, "statement"), 200);
    tag(w, LS_TAG_B_END);
    fputs(" waited ", w->f);
    ls_write_duration(w, m_num(q, "waited_ms"));
    fputs(" for ", w->f);
    w->esc(w->f, m_str(q, "mode"), 40);
    fputs(" on ", w->f);
    w->esc(w->f, m_str(q, "relation"), 64);
    fprintf(w->f, " behind pid %.0f", m_num(q, "holder_pid"));
    if (m_str(q, "holder_code_path")) {
        fputs(" (", w->f);
        w->esc(w->f, m_str(q, "holder_code_path"), 120);
        fputs(")", w->f);
    }
    fprintf(w->f, ", and %.0f statement%s queued behind it for ", m_num(q, "queued"),
            m_num(q, "queued") == 1 ? "" : "s");
    ls_write_duration(w, m_num(q, "queued_wait_ms"));
    fprintf(w->f, " in all (%d queue%s under \"%s\").", n, n == 1 ? "" : "s",
            ls_sections[LS_SEC_RELATION_QUEUES].title);
    tag(w, LS_TAG_ANSWER_END);
}

void ls_write_holder_state(const ls_writer *w, const cJSON *o)
{
    if (!m_str(o, "head_state"))
        return;
    tag(w, LS_TAG_BULLET);
    if (strcmp(m_str(o, "head_state"), "unknown") == 0) {
        /* its time not split (no durations, or its end not in the log) */
        fputs("What it was mostly doing while others waited is " LS_UNKNOWN
              ": the log does not show where its time went",
              w->f);
        tag(w, LS_TAG_BULLET_END);
        return;
    }
    fputs("While others waited for it, it was mostly ", w->f);
    ls_fmt_state_of(w->f, o, w->esc);
    tag(w, LS_TAG_BULLET_END);
}

void ls_write_by_statement(const ls_writer *w, const cJSON *model)
{
    static const ls_table *const tabs[] = {&ls_tab_by_lock, &ls_tab_waiting_stmts,
                                           &ls_tab_blocking_stmts, &ls_tab_rules,
                                           &ls_tab_context};
    size_t i;
    for (i = 0; i < sizeof(tabs) / sizeof(tabs[0]); i++) {
        const cJSON *rows = m_get(model, tabs[i]->path);
        if (tabs[i] == &ls_tab_rules && cJSON_GetArraySize(rows) == 0)
            continue; /* most logs teach none: no section that says so */
        tag(w, LS_TAG_H3);
        fputs(tabs[i]->title, w->f);
        tag(w, LS_TAG_H3_END);
        fputs(tabs[i]->intro, w->f);
        tag(w, LS_TAG_P_END);
        if (cJSON_GetArraySize(rows) == 0) {
            tag(w, LS_TAG_P);
            fputs("None.", w->f);
            tag(w, LS_TAG_P_END);
            continue;
        }
        w->table(w, tabs[i], rows);
    }
}

/* The length of the reason shown for naming paths by their shape. */
#define SHAPE_REASON_MAX 300

void ls_write_shape_reason(const ls_writer *w, const cJSON *model)
{
    const cJSON *id = m_get(model, "code_path_identity");
    const char *fallback = m_str(id, "fallback");
    if (!fallback || strcmp(fallback, "transaction shape") != 0)
        return;
    tag(w, LS_TAG_P);
    fputs("Transactions are named by their shape (the verb and relation of each "
          "statement) where nothing else names them: ", w->f);
    w->esc(w->f, m_str(id, "reason"), SHAPE_REASON_MAX);
    fputs(".", w->f);
    tag(w, LS_TAG_P_END);
}

/* The code-path label length shown in the uncertain-order note. */
#define UNCERTAIN_LABEL_MAX 120

/* Is `label` a path before index i of the list (its pair said already)? */
static int listed_before(const cJSON *list, int i, const char *label)
{
    int j;
    for (j = 0; j < i; j++) {
        const char *p = m_str(cJSON_GetArrayItem(list, j), "code_path");
        if (p && strcmp(p, label) == 0)
            return 1;
    }
    return 0;
}

void ls_write_order_uncertain(const ls_writer *w, const cJSON *list, ls_ranking_kind kind)
{
    const cJSON *o, *x;
    int i = 0, n = 0;

    cJSON_ArrayForEach(o, list) {
        const char *a = m_str(o, "code_path");
        cJSON_ArrayForEach(x, m_get(o, "order_uncertain_with")) {
            if (!a || !cJSON_IsString(x) || listed_before(list, i, x->valuestring))
                continue;
            if (n++ == 0) {
                tag(w, LS_TAG_NOTE);
                fputs(kind == LS_RANKING_BLOCKING && m_get(o, "waiter_ms_caused_max") &&
                              cJSON_IsNull(m_get(o, "waiter_ms_caused_max"))
                          ? "Order uncertain: statements were logged only past a duration "
                            "threshold, so the waiting these paths' holds caused is at least the "
                            "figure shown (the shorter waits are not in the log) with no upper "
                            "bound the log gives, and it cannot tell which made others wait "
                            "longer: "
                      : kind == LS_RANKING_BLOCKING
                          ? "Order uncertain: the log's times are whole seconds, and the waiting "
                            "these paths' holds caused can each lie anywhere in the range shown, "
                            "so the log cannot tell which made others wait longer: "
                          : "Order uncertain: the log's times are whole seconds, and the totals "
                            "these paths held the hot rows can each lie anywhere in the range "
                            "shown, so the log cannot tell which held them longer: ",
                      w->f);
            } else {
                fputs("; ", w->f);
            }
            w->esc(w->f, a, UNCERTAIN_LABEL_MAX);
            fputs(" and ", w->f);
            w->esc(w->f, x->valuestring, UNCERTAIN_LABEL_MAX);
        }
        i++;
    }
    if (n) {
        fputs(".", w->f);
        tag(w, LS_TAG_NOTE_END);
    }
}

void ls_write_order_unknown(const ls_writer *w, const cJSON *list)
{
    const cJSON *o;
    int n = 0;
    cJSON_ArrayForEach(o, list) n += cJSON_IsTrue(m_get(o, "order_unknown"));
    if (!n)
        return;
    tag(w, LS_TAG_NOTE);
    fputs(n > 1 ? "Order unknown: no hold of these paths was timed, so their totals are unknown "
                  "and their places in this list are not a ranking: "
                : "Order unknown: no hold of this path was timed, so its total is unknown and "
                  "its place in this list is not a ranking: ",
          w->f);
    n = 0;
    cJSON_ArrayForEach(o, list) {
        if (!cJSON_IsTrue(m_get(o, "order_unknown")))
            continue;
        if (n++)
            fputs(", ", w->f);
        w->esc(w->f, m_str(o, "code_path"), UNCERTAIN_LABEL_MAX);
    }
    fputs(".", w->f);
    tag(w, LS_TAG_NOTE_END);
}

void ls_write_no_code_paths(const ls_writer *w, const cJSON *model)
{
    const char *verdict = m_str(m_get(m_get(model, "input"), "logging"), "verdict");
    int blockers = cJSON_GetArraySize(m_get(model, "root_blockers"));
    tag(w, LS_TAG_P);
    switch (ls_logcover_no_paths(blockers, !verdict || strcmp(verdict, "complete") == 0)) {
    case LS_NOPATHS_UNLOGGED:
        fputs("Transactions held rows others waited for (see Root blockers: the logged waits"
              " name their pids), but the log does not show which code path held them: none"
              " of their statements is logged (see Input), so no hold is timed and no path is"
              " ranked.",
              w->f);
        break;
    case LS_NOPATHS_UNNAMED:
        fputs("Transactions held rows others waited for (see Root blockers), but no code path"
              " could be named for them, so none is ranked.",
              w->f);
        break;
    case LS_NOPATHS_NONE_HELD:
        fputs("No transaction held a row others waited for.", w->f);
        break;
    }
    tag(w, LS_TAG_P_END);
}

const char *ls_no_hot_rows(const cJSON *model)
{
    if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(model, "relation_queues")) > 0)
        return "No row lock waits were logged: the waits were in relation lock queues "
               "(Relation lock queues).";
    return "No lock waits were logged.";
}

void ls_write_cut_note(const ls_writer *w, int top, int64_t shown, int64_t listed, int64_t total,
                       const char *what, const char *lift)
{
    int elsewhere = shown == LS_CUT_ELSEWHERE, here = !elsewhere && shown < listed;
    tag(w, LS_TAG_NOTE);
    fprintf(w->f, "%s%lld of %lld %s %s (", top ? "Top " : "",
            (long long)(here ? shown : listed), (long long)total, what,
            elsewhere ? "listed in the HTML and JSON reports"
            : here    ? "shown here"
                      : "shown");
    if (here) {
        tag(w, LS_TAG_CODE);
        fputs("--full", w->f);
        tag(w, LS_TAG_CODE_END);
        fprintf(w->f, " shows the %lld the report lists; ", (long long)listed);
    }
    if (lift) {
        tag(w, LS_TAG_CODE);
        w->esc(w->f, lift, 40);
        tag(w, LS_TAG_CODE_END);
        fputs(" to list more).", w->f);
    } else {
        fputs("no option lists more).", w->f);
    }
    tag(w, LS_TAG_NOTE_END);
}

void ls_write_cuts(const ls_writer *w, const cJSON *model, int section)
{
    const cJSON *cut = m_get(model, "cut"), *c;
    const ls_cut_list *l;
    for (l = ls_cut_lists; l->path; l++) {
        int64_t listed, shown;
        if (l->section != section || !cJSON_IsObject(c = m_get(cut, l->path)))
            continue;
        listed = (int64_t)m_num(c, "listed");
        shown = w->shown ? w->shown(w, model, l->path, listed) : listed;
        if (shown == LS_CUT_SAID)
            continue;
        ls_write_cut_note(w, cJSON_IsTrue(m_get(c, "top")), shown, listed,
                          (int64_t)m_num(c, "total"), l->what, m_str(c, "lift"));
    }
}
