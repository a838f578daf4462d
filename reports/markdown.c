/*
 * markdown.c — the Markdown report (GitHub-flavoured), rendered from the
 * report model. Every string from the model goes through ls_md_cell() or
 * ls_md_code_block(); numbers are printed by us.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_report.h"
#include "render_int.h"
#include "prose.h"
#include "sections.h"

/*
 * How much of the long lists the Markdown shows. A report is pasted into
 * an issue or a postmortem, and GitHub takes at most 65,536 characters in
 * one: by default the lists are cut until the report fits MD_BUDGET, each
 * cut list saying how much it left out and where the rest is. --full
 * shows everything the model holds.
 */
#define MD_BUDGET 60000
typedef struct md_caps {
    int waits;      /* rows of the waits table */
    int statements; /* statements per root blocker */
    int roots;      /* root blockers */
    int rows;       /* rows of the lock tree, errors */
    int charts;     /* gantt charts */
    int deadlocks;    /* deadlocks drawn (the first ones) */
    const char *zone; /* --tz: times in this zone with their offset; NULL: UTC */
    const cJSON *cut; /* the model's cut (set while rendering): its lists' notes */
} md_caps;

static const md_caps md_levels[] = {
    {50, 12, 10, 50, 10, 10, NULL, NULL},
    {20, 6, 5, 20, 5, 5, NULL, NULL},
    {0, 3, 3, 10, 3, 3, NULL, NULL},
    {0, 0, 2, 5, 1, 1, NULL, NULL},
};
static const md_caps md_all = {1 << 30, 1 << 30, 1 << 30, 1 << 30, 10, 1 << 30, NULL, NULL};

/* What a list trimmed to fit says: how many are not shown and how to see
 * them. A list the model cut too says both in its one note instead, after
 * the section (ls_write_cuts with md_shown): nothing here then. */
static void left_out_of(FILE *f, const md_caps *caps, const char *path, int n, const char *what)
{
    if (path && cJSON_GetObjectItemCaseSensitive(caps->cut, path))
        return;
    if (n > 0)
        fprintf(f, "_%d more %s not shown here: `--full` lists them all in the Markdown, and "
                   "the HTML and JSON reports carry them (`--top` and `--max-waits` set how "
                   "many)._\n\n",
                n, what);
}

/* A model key's prefix ("blocker_" of "blocker_pid") fits this. */
#define LS_KEY_PREFIX_LEN 32

static void cell(FILE *f, const char *s)
{
    fputs(" ", f);
    ls_md_cell(f, s ? s : "—", 120);
    fputs(" |", f);
}

/* A model time: as the model has it (ISO 8601 UTC), or with --tz in that
 * zone, still ISO 8601, with the zone's offset ("...T07:36:29.822938-05:00";
 * TZ is the zone while the report is written). */
static void md_time(FILE *f, const md_caps *caps, const char *iso)
{
    char buf[LS_LOCAL_ISO_LEN];
    const char *local = caps->zone ? ls_fmt_local_iso(buf, sizeof(buf), iso) : NULL;
    ls_md_cell(f, local ? local : iso ? iso : "—", 40);
}

static void cell_time(FILE *f, const md_caps *caps, const char *iso)
{
    fputs(" ", f);
    md_time(f, caps, iso);
    fputs(" |", f);
}

static void cell_num(FILE *f, const cJSON *o, const char *key)
{
    if (m_has_num(o, key))
        fprintf(f, " %.0f |", m_num(o, key));
    else
        fputs(" — |", f);
}

/* A number with one decimal (a share, a rate). */
static void cell_num1(FILE *f, const cJSON *o, const char *key)
{
    if (m_has_num(o, key))
        fprintf(f, " %.1f |", m_num(o, key));
    else
        fputs(" — |", f);
}

/* A duration in ms as people write it ("11.5 s", "648 ms"), as the HTML. */
static void cell_ms(FILE *f, const cJSON *o, const char *key)
{
    char d[LS_DURATION_LEN];
    if (m_has_num(o, key))
        fprintf(f, " %s |", ls_fmt_duration(d, sizeof(d), m_num(o, key)));
    else
        fputs(" — |", f);
}

/* A duration and, where the log leaves it open, its range: "4.5 s
 * (2.0 s–7.0 s)". */
static void cell_range(FILE *f, const cJSON *o, const char *key)
{
    char d[LS_DURATION_LEN], lo[LS_DURATION_LEN], hi[LS_DURATION_LEN];
    double a = 0, b = 0;
    if (m_has_num(o, key) && ls_fmt_range_of(o, key, &a, &b))
        fprintf(f, " %s (%s–%s) |",
                ls_fmt_duration(d, sizeof(d), ls_fmt_in_range(m_num(o, key), a, b)),
                ls_fmt_duration(lo, sizeof(lo), a), ls_fmt_duration(hi, sizeof(hi), b));
    else
        cell_ms(f, o, key);
}

/* A hold's length, as a range where the log leaves its bounds open, or
 * "at least" where it does not show the end (hold_at_least). */
static void cell_hold(FILE *f, const cJSON *h)
{
    char lo[LS_DURATION_LEN], hi[LS_DURATION_LEN];
    double a = m_num(h, "hold_min_ms"), b = m_num(h, "hold_max_ms");
    if (cJSON_IsTrue(m_get(h, "hold_at_least"))) /* its end not in the log */
        fprintf(f, " at least %s |",
                ls_fmt_duration(lo, sizeof(lo), m_has_num(h, "hold_min_ms") ? a : m_num(h, "hold_ms")));
    else if (m_has_num(h, "hold_min_ms") && m_has_num(h, "hold_max_ms") && b - a >= LS_HOLD_RANGE_MS)
        fprintf(f, " %s–%s |", ls_fmt_duration(lo, sizeof(lo), a),
                ls_fmt_duration(hi, sizeof(hi), b));
    else
        cell_ms(f, h, "hold_ms");
}

static int same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* A code path as inline text after a pid: " · path" (nothing when the
 * store does not know it). */
static void code_of(FILE *f, const cJSON *o, const char *prefix)
{
    char key[LS_KEY_PREFIX_LEN + sizeof("code_path")];
    const char *path;
    snprintf(key, sizeof(key), "%scode_path", prefix);
    path = m_str(o, key);
    if (!path)
        return;
    fputs(" · ", f);
    ls_md_cell(f, path, 120);
}

/* A pid with its code path beside it: "10550 · shop.orders.pay_order". */
static void cell_pid(FILE *f, const cJSON *o, const char *pid_key, const char *prefix)
{
    if (!m_has_num(o, pid_key)) {
        fputs(" — |", f);
        return;
    }
    fprintf(f, " %.0f", m_num(o, pid_key));
    if (prefix)
        code_of(f, o, prefix);
    fputs(" |", f);
}

static void pid_of(FILE *f, const cJSON *x)
{
    fprintf(f, "%.0f", m_num(x, "pid"));
    code_of(f, x, "");
}

/* A list of {pid, code_path} (a row's root blockers, one per transaction)
 * as "10550 · path, 10551 · path", each pair once. */
static void pid_list(FILE *f, const cJSON *o, const char *key)
{
    int n;
    fputs(" ", f);
    n = ls_write_pids(f, cJSON_GetObjectItemCaseSensitive(o, key), pid_of);
    fputs(n ? " |" : "— |", f);
}

/* ---- tables: the columns are in sections.c, shared with html.c ---- */

/* Where a row is, as one cell: relation and `sub` (ctid or row key),
 * else the lock target; `sep_always` writes the space between them even
 * when `sub` is missing. */
static void where_cell(FILE *f, const cJSON *o, const char *sub, int sep_always)
{
    char row[256];
    const char *rel = m_str(o, "relation"), *x = m_str(o, sub);
    snprintf(row, sizeof(row), "%s%s%s", rel ? rel : "", x || sep_always ? " " : "", x ? x : "");
    cell(f, row[sep_always] ? row : m_str(o, "target"));
}

/* A hold breakdown's parts by name, "sql 12 ms, idle 3.0 s", in one cell. */
static void parts_cell(FILE *f, const cJSON *parts)
{
    const cJSON *p;
    char buf[512], d[LS_DURATION_LEN];
    size_t used = 0;
    buf[0] = '\0';
    cJSON_ArrayForEach(p, parts) {
        if (used + 80 < sizeof(buf))
            used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s %s",
                                     used ? ", " : "", m_str(p, "name") ? m_str(p, "name") : "",
                                     /* null: none of its holds timed */
                                     ls_fmt_figure(d, sizeof(d), m_get(p, "ms")));
    }
    cell(f, buf);
}

/* One cell of column c: " value |". A pid's code path is the key's
 * prefix's ("blocker_pid": "blocker_code_path"); a figure that is a
 * bound has its mark ("≥ 32.6 s": ls_fmt_bound_mark). */
static void md_cell(FILE *f, const md_caps *caps, const cJSON *o, const ls_column *c)
{
    char prefix[LS_KEY_PREFIX_LEN], d[LS_DURATION_LEN];
    size_t n = strlen(c->key);
    const char *mark = ls_fmt_bound_mark(o, c->key);
    if (*mark && m_has_num(o, c->key) && (c->kind == LS_CELL_INT || c->kind == LS_CELL_MS)) {
        if (c->kind == LS_CELL_INT)
            fprintf(f, " %s%.0f |", mark, m_num(o, c->key));
        else
            fprintf(f, " %s%s |", mark, ls_fmt_duration(d, sizeof(d), m_num(o, c->key)));
        return;
    }
    /* a null figure: "unknown", or "—" (nothing to show); the figures
     * numeric in both formats (not a pid) */
    if (ls_column_numeric(c, LS_IN_HTML) && !m_has_num(o, c->key)) {
        fprintf(f, " %s |", ls_fmt_null_cell(o, c));
        return;
    }
    switch (c->kind) {
    case LS_CELL_INT:
    case LS_CELL_BYTES: cell_num(f, o, c->key); break;
    case LS_CELL_MS_KNOWN:
    case LS_CELL_MS0:
    case LS_CELL_MS: cell_ms(f, o, c->key); break;
    case LS_CELL_NUM1: cell_num1(f, o, c->key); break;
    case LS_CELL_HOLD: cell_hold(f, o); break;
    case LS_CELL_RANGE: cell_range(f, o, c->key); break;
    case LS_CELL_PID:
        snprintf(prefix, sizeof(prefix), "%.*s", (int)(n >= 3 ? n - 3 : 0), c->key);
        cell_pid(f, o, c->key, prefix);
        break;
    case LS_CELL_PIDS: pid_list(f, o, c->key); break;
    case LS_CELL_TIME: cell_time(f, caps, m_str(o, c->key)); break;
    case LS_CELL_BOOL: cell(f, cJSON_IsTrue(m_get(o, c->key)) ? "yes" : "no"); break;
    case LS_CELL_ROW: where_cell(f, o, "ctid", 0); break;
    case LS_CELL_ROWKEY: where_cell(f, o, "row_key", 1); break;
    case LS_CELL_STATE:
        fputs(" ", f);
        ls_fmt_state_of(f, o, ls_md_cell);
        fputs(" |", f);
        break;
    case LS_CELL_PARTS: parts_cell(f, m_get(o, c->key)); break;
    case LS_CELL_NAME:
        fputs(" ", f);
        ls_md_name(f, m_str(o, c->key), c->max);
        fputs(" |", f);
        break;
    default: cell(f, m_str(o, c->key)); break;
    }
}

/* A section's heading, as sections.c names it. */
static void md_heading(FILE *f, int section)
{
    fprintf(f, "## %s\n\n", ls_sections[section].title);
}

/* A table's own heading and sentence inside its section, if it has them. */
static void md_sub_heading(FILE *f, const ls_table *t)
{
    if (t->title)
        fprintf(f, "### %s\n\n", t->title);
    if (t->intro)
        fprintf(f, "%s\n\n", t->intro);
}

/* A table's header and alignment lines, its Markdown columns only. */
static void md_table_head(FILE *f, const ls_table *t)
{
    size_t i;
    fputs("|", f);
    for (i = 0; i < t->ncols; i++)
        if (t->cols[i].in & LS_IN_MD)
            fprintf(f, " %s |", t->cols[i].head);
    fputs("\n|", f);
    for (i = 0; i < t->ncols; i++)
        if (t->cols[i].in & LS_IN_MD)
            fputs(ls_column_numeric(&t->cols[i], LS_IN_MD) ? "---:|" : "---|", f);
    fputs("\n", f);
}

static void md_table_row(FILE *f, const md_caps *caps, const ls_table *t, const cJSON *o)
{
    size_t i;
    fputs("|", f);
    for (i = 0; i < t->ncols; i++)
        if (t->cols[i].in & LS_IN_MD)
            md_cell(f, caps, o, &t->cols[i]);
    fputs("\n", f);
}

/* A whole table: the first `max` rows of `rows`; returns how many rows
 * it wrote. */
static int md_table(FILE *f, const md_caps *caps, const ls_table *t, const cJSON *rows, int max)
{
    const cJSON *r;
    int n = 0;
    md_table_head(f, t);
    cJSON_ArrayForEach(r, rows) {
        if (n >= max)
            break;
        md_table_row(f, caps, t, r);
        n++;
    }
    return n;
}

/* ---- prose (prose.c) in Markdown ---- */

static void w_time(const ls_writer *w, const char *iso)
{
    md_time(w->f, w->ctx, iso);
}

static void w_table(const ls_writer *w, const ls_table *t, const cJSON *rows)
{
    md_table(w->f, w->ctx, t, rows, INT_MAX);
    fputs("\n", w->f);
}

static void w_item(const ls_writer *w, int n)
{
    fprintf(w->f, "%d. **", n);
}

/* How many of the model's `listed` entries of cut list `path` this
 * Markdown shows (its caps), LS_CUT_SAID for a root blocker's statements
 * (each transaction's note says it, root_blockers), LS_CUT_ELSEWHERE for
 * the unparsable lines (an HTML table only). */
static int64_t md_shown(const ls_writer *w, const cJSON *model, const char *path, int64_t listed)
{
    const md_caps *caps = w->ctx;
    int64_t cap = listed;
    (void)model;
    if (strcmp(path, "root_blockers[].transaction.statements") == 0)
        return LS_CUT_SAID;
    if (strcmp(path, "waits") == 0)
        cap = caps->waits > 0 ? caps->waits : 0;
    else if (strcmp(path, "root_blockers") == 0)
        cap = caps->roots;
    else if (strcmp(path, "deadlocks") == 0)
        cap = caps->deadlocks;
    else if (strcmp(path, "worst_moment.waits") == 0 || strcmp(path, "errors") == 0)
        cap = caps->rows;
    else if (strcmp(path, "input.bad_line_samples") == 0)
        return LS_CUT_ELSEWHERE; /* the Markdown lists none (sections.c) */
    return cap < listed ? cap : listed;
}

static ls_writer md_writer(FILE *f, const md_caps *caps)
{
    ls_writer w = {f, ls_md_cell, w_time, w_table, w_item, LS_IN_MD, caps, md_shown};
    return w;
}

/* ---- mermaid diagrams (GitHub renders them) ----
 *
 * Every text from the model goes through ls_mermaid_label(); ids are
 * generated (h1, w1, n1), so no log text is ever parsed as mermaid syntax.
 * Diagrams are bounded: MERMAID_MAX_TASKS bars per gantt, DL_MAX nodes.
 */
#define MERMAID_MAX_TASKS 30
#define MERMAID_MAX_CHARTS 10

/* Model time as Unix milliseconds (gantt "dateFormat x"); 0 on success. */
static int ms_of(const cJSON *o, const char *key, long long *out)
{
    const char *s = m_str(o, key);
    ls_ts t;
    if (!s || ls_ts_parse(&t, s, strlen(s)) != 0)
        return -1;
    *out = (long long)(t / 1000);
    return 0;
}

/* "pid N · code path" inside a mermaid label. */
static void mermaid_pid(FILE *f, double pid, const cJSON *o, const char *prefix)
{
    ls_write_pid_path(f, pid, o, prefix, ls_mermaid_label, 40);
}

/* One bar. Its name starts with our own "pid N" so it can never begin
 * with a gantt keyword; the code path, `note` and the application are
 * labels. */
static void gantt_task(FILE *f, const char *tag, const char *id, int n, double pid,
                       const char *what, const char *note, const cJSON *o, long long a,
                       long long b)
{
    fputs("    ", f);
    mermaid_pid(f, pid, o, "");
    fprintf(f, " %s", what);
    if (note) {
        fputs(" ", f);
        ls_mermaid_label(f, note, 30);
    }
    if (m_str(o, "application") && !same(m_str(o, "application"), m_str(o, "code_path"))) {
        fputs(" - ", f);
        ls_mermaid_label(f, m_str(o, "application"), 30);
    }
    /* A bar of under 1 ms would not show. */
    fprintf(f, " :%s%s%d, %lld, %lld\n", tag, id, n, a, b > a ? b : a + 1);
}

/* The hidden waits of a row's timeline: rebuilt from the holds and never
 * logged (kind inferred; a wait the log shows is drawn from the waits). */
static int hidden_count(const cJSON *tl)
{
    const cJSON *o;
    int n = 0;
    cJSON_ArrayForEach(o, m_get(tl, "hidden_waits")) n += same(m_str(o, "kind"), "inferred");
    return n;
}

typedef struct gantt_span {
    long long a, b;
} gantt_span;

/* Whether [a, b] meets one of the n spans. */
static int meets(const gantt_span *w, int n, long long a, long long b)
{
    int i;
    for (i = 0; i < n; i++)
        if (a <= w[i].b && b >= w[i].a)
            return 1;
    return 0;
}

/*
 * A gantt chart of one hot row: the holders' holds, every logged wait and
 * the longest hidden waits, in a section of their own and drawn "done"
 * (grey) where logged waits are plain or "crit" (red), with a legend line
 * under the chart. Of the MERMAID_MAX_TASKS bars, holders take at most half
 * when there are waiters (the chart is about who waited). With hidden
 * waits, holders take a third and are those holding the row during a wait
 * drawn (a row's holds span the whole run; its first ones would be drawn
 * far from the waits), and hidden waits keep a third for themselves.
 */
/*
 * A chart that leaves bars out ends its axis where the row's waits end
 * (timeline.last_wait_end), with one bar from the last wait drawn to
 * there saying it is not drawn: a cut chart must not look as if the
 * contention ended at its last bar.
 */
static void gantt_cut_bar(FILE *f, const cJSON *hot, const gantt_span *drawn, int nw, int cut)
{
    long long end = 0, last;
    int i;
    if (!cut || ms_of(m_get(hot, "timeline"), "last_wait_end", &last) != 0)
        return;
    for (i = 0; i < nw; i++)
        end = drawn[i].b > end ? drawn[i].b : end;
    if (end == 0 || last <= end)
        return;
    fprintf(f, "    section not drawn\n    waits and holds not drawn, to the end of the last wait "
               ":done, cut1, %lld, %lld\n",
            end, last);
}

static void mermaid_gantt(FILE *f, const cJSON *model, const cJSON *hot)
{
    const cJSON *tl = m_get(hot, "timeline"), *o, *src = m_get(tl, "waits");
    int own = cJSON_IsArray(src), n = 0, left = 0, seen = 0, nw = 0;
    int hidden = hidden_count(tl), hidden_drawn = 0;
    int hidden_total = m_has_num(tl, "hidden_waits_total") ? (int)m_num(tl, "hidden_waits_total")
                                                           : hidden;
    int hidden_keep = hidden < MERMAID_MAX_TASKS / 3 ? hidden : MERMAID_MAX_TASKS / 3;
    int hold_cap = hidden ? MERMAID_MAX_TASKS / 3
                   : cJSON_GetArraySize(own ? src : m_get(model, "waits")) > 0
                       ? MERMAID_MAX_TASKS / 2
                       : MERMAID_MAX_TASKS;
    gantt_span drawn[MERMAID_MAX_TASKS];
    long long a, b;
    char what[64];

    if (!own)
        src = m_get(model, "waits");
    /* The waits drawn, first: with hidden waits they choose the holders. */
    cJSON_ArrayForEach(o, src) {
        if (!own && (!same(m_str(o, "relation"), m_str(hot, "relation")) ||
                     !same(m_str(o, "ctid"), m_str(hot, "ctid"))))
            continue;
        if (ms_of(o, "start", &a) != 0)
            continue;
        if (ms_of(o, "end", &b) != 0)
            b = a + (long long)m_num(o, "waited_ms");
        seen++;
        if (nw < MERMAID_MAX_TASKS - hold_cap - hidden_keep)
            drawn[nw++] = (gantt_span){a, b};
    }
    hidden_drawn = nw; /* the hidden ones follow the logged ones in drawn[] */
    cJSON_ArrayForEach(o, m_get(tl, "hidden_waits")) {
        if (same(m_str(o, "kind"), "inferred") && ms_of(o, "start", &a) == 0 &&
            ms_of(o, "end", &b) == 0 && nw < MERMAID_MAX_TASKS - hold_cap)
            drawn[nw++] = (gantt_span){a, b};
    }
    hidden_drawn = nw - hidden_drawn;

    fputs("```mermaid\ngantt\n    title ", f);
    ls_mermaid_label(f, m_str(hot, "relation"), 60);
    ls_write_opt(f, " ", m_str(hot, "row_key"), ls_mermaid_label, 40);
    ls_write_opt(f, " ", m_str(hot, "ctid"), ls_mermaid_label, 40);
    fputs("\n    dateFormat x\n    axisFormat %H:%M:%S.%L\n    section holders\n", f);
    if (cJSON_GetArraySize(m_get(tl, "holds")) > 0) {
        cJSON_ArrayForEach(o, m_get(tl, "holds")) {
            if (ms_of(o, "start", &a) != 0)
                continue;
            if (ms_of(o, "end", &b) != 0)
                b = a;
            if (hidden && !meets(drawn, nw, a, b))
                continue; /* counted in the row's holds, not drawn */
            if (n >= hold_cap) {
                left++;
                continue;
            }
            gantt_task(f, "active, ", "h", ++n, m_num(o, "pid"), "holds the row", NULL, o, a,
                       b);
        }
        if (hidden) /* the holds away from the waits drawn */
            left += cJSON_GetArraySize(m_get(tl, "holds")) - n - left;
    } else {
        cJSON_ArrayForEach(o, m_get(model, "root_blockers")) {
            const cJSON *p, *tx = m_get(o, "transaction");
            int mine = 0;
            cJSON_ArrayForEach(p, m_get(hot, "root_blocker_pids")) mine |=
                p->valuedouble == m_num(o, "pid");
            if (!mine || ms_of(tx, "start", &a) != 0)
                continue;
            if (ms_of(tx, "end", &b) != 0)
                b = a;
            if (n >= hold_cap) {
                left++;
                continue;
            }
            gantt_task(f, "active, ", "h", ++n, m_num(o, "pid"), "transaction", NULL, o, a,
                       b);
        }
    }
    fputs("    section waiters\n", f);
    seen = 0;
    cJSON_ArrayForEach(o, src) {
        const char *out = m_str(o, "outcome");
        if (!own && (!same(m_str(o, "relation"), m_str(hot, "relation")) ||
                     !same(m_str(o, "ctid"), m_str(hot, "ctid"))))
            continue;
        if (ms_of(o, "start", &a) != 0)
            continue;
        if (ms_of(o, "end", &b) != 0)
            b = a + (long long)m_num(o, "waited_ms");
        if (seen++ >= nw - hidden_drawn) {
            left++;
            continue;
        }
        n++;
        snprintf(what, sizeof(what), "waits %.0f ms -", m_num(o, "waited_ms"));
        gantt_task(f, out && strcmp(out, "acquired") != 0 ? "crit, " : "", "w", n,
                   m_num(o, "pid"), what, out ? out : "unknown", o, a, b);
    }
    if (hidden_drawn) {
        int k = 0;
        /* the longest first, as the model lists them */
        fputs("    section hidden waits\n", f);
        cJSON_ArrayForEach(o, m_get(tl, "hidden_waits")) {
            if (!same(m_str(o, "kind"), "inferred") || ms_of(o, "start", &a) != 0 ||
                ms_of(o, "end", &b) != 0 || k++ >= hidden_drawn)
                continue;
            snprintf(what, sizeof(what), "hidden wait %.0f ms", m_num(o, "waited_ms"));
            gantt_task(f, "done, ", "q", ++n, m_num(o, "pid"), what, NULL, o, a, b);
        }
    }
    gantt_cut_bar(f, hot, drawn, nw, left || cJSON_IsTrue(m_get(tl, "truncated")));
    fputs("```\n\n", f);
    if (hidden_total)
        fputs("_Legend: \"holds the row\" bars are holds; \"waits N ms\" bars are waits the "
              "log shows (red: ended without the lock); \"hidden wait N ms\" bars (grey, in "
              "their own section) are hidden waits, rebuilt from the holds: below "
              "`deadlock_timeout`, never logged._\n\n", f);
    /* Waits of the row beyond those the model lists count as not drawn. */
    if (own && m_num(hot, "waits") > seen)
        left += (int)m_num(hot, "waits") - seen;
    if (left)
        fprintf(f, "_Cut: %d of the row's holds and waiters not drawn (at most %d bars per "
                   "chart, the row had %.0f logged waits); the \"not drawn\" bar runs to its "
                   "last wait's end. The HTML report's timeline draws them (up to `--max-waits` "
                   "a row)._\n\n",
                left, MERMAID_MAX_TASKS, m_num(hot, "waits"));
    if (hidden_total > hidden_drawn)
        fprintf(f, "_%d of the row's %d hidden waits not drawn (the longest are; the HTML "
                   "report's timelines draw up to `--max-waits`, by default 200, a row)._\n\n",
                hidden_total - hidden_drawn, hidden_total);
}

static void mermaid_hot_rows(FILE *f, const cJSON *model, const md_caps *caps)
{
    const cJSON *hot;
    int n = 0, max = caps->charts < MERMAID_MAX_CHARTS ? caps->charts : MERMAID_MAX_CHARTS;
    cJSON_ArrayForEach(hot, m_get(model, "hot_rows")) {
        if (n++ >= max)
            break;
        fprintf(f, "### Timeline %d: ", n);
        ls_md_cell(f, m_str(hot, "relation"), 64);
        ls_write_opt(f, " ", m_str(hot, "row_key"), ls_md_cell, 64);
        ls_write_opt(f, " ", m_str(hot, "ctid"), ls_md_cell, 40);
        fputs("\n\n", f);
        mermaid_gantt(f, model, hot);
    }
}

/* A deadlock cycle: nodes are processes, arrows read "waits for". */
static void mermaid_deadlock(FILE *f, const cJSON *d)
{
    enum { DL_MAX = 12 };
    static const char *const side[2] = {"waiter_", "blocker_"};
    double pids[DL_MAX];
    const cJSON *from[DL_MAX]; /* the edge naming the node, for its code path */
    int fside[DL_MAX];
    int n = 0, i, j;
    const cJSON *e;

    fputs("```mermaid\nflowchart LR\n", f);
    cJSON_ArrayForEach(e, m_get(d, "edges")) {
        double two[2] = {m_num(e, "waiter_pid"), m_num(e, "blocker_pid")};
        for (j = 0; j < 2; j++) {
            for (i = 0; i < n && pids[i] != two[j]; i++)
                ;
            if (i == n && n < DL_MAX) {
                from[n] = e;
                fside[n] = j;
                pids[n++] = two[j];
            }
        }
    }
    for (i = 0; i < n; i++) {
        int victim = pids[i] == m_num(d, "victim_pid");
        fprintf(f, "    n%d[\"", i + 1);
        mermaid_pid(f, pids[i], from[i], side[fside[i]]);
        if (victim) {
            char key[64];
            snprintf(key, sizeof(key), "%scode_path", side[fside[i]]);
            fputs(" - victim", f);
            /* the application, unless the code path beside the pid said it */
            if (m_str(d, "victim_application") &&
                !same(m_str(d, "victim_application"), m_str(from[i], key))) {
                fputs(" - ", f);
                ls_mermaid_label(f, m_str(d, "victim_application"), 30);
            }
        }
        fputs("\"]\n", f);
    }
    cJSON_ArrayForEach(e, m_get(d, "edges")) {
        int a = -1, b = -1;
        for (i = 0; i < n; i++) {
            if (pids[i] == m_num(e, "waiter_pid"))
                a = i;
            if (pids[i] == m_num(e, "blocker_pid"))
                b = i;
        }
        if (a < 0 || b < 0)
            continue;
        fprintf(f, "    n%d -->|\"", a + 1);
        ls_mermaid_label(f, m_str(e, "mode"), 24);
        fputs(" on ", f);
        ls_mermaid_label(f, m_str(e, "target"), 40);
        fprintf(f, "\"| n%d\n", b + 1);
    }
    for (i = 0; i < n; i++)
        if (pids[i] == m_num(d, "victim_pid"))
            fprintf(f, "    style n%d stroke-width:3px\n", i + 1);
    fputs("```\n\n", f);
}

/* The database spans' clock, and those without a backend pid that could
 * not be placed in a session, and why. */
static void trace_spans(FILE *f, const cJSON *t, const md_caps *caps)
{
    ls_writer w = md_writer(f, caps);
    ls_write_trace_spans(&w, t, "| Database spans | ", ", ", " |\n");
}

/* ": SQL 1.2 s, idle in transaction 801 ms (longest gap 800 ms), commit
 * 2 ms": where a root blocker's transaction spent its time. */
static void tx_parts(FILE *f, const cJSON *tx)
{
    char sql[LS_DURATION_LEN], idle[LS_DURATION_LEN], gap[LS_DURATION_LEN], commit[LS_DURATION_LEN];
    /* idle and commit null where the log does not show its end: unknown */
    fprintf(f, ": SQL %s, idle in transaction %s (longest gap %s), commit %s",
            ls_fmt_duration(sql, sizeof(sql), m_num(tx, "sql_ms")),
            ls_fmt_figure(idle, sizeof(idle), m_get(tx, "idle_ms")),
            ls_fmt_figure(gap, sizeof(gap), m_get(tx, "max_idle_ms")),
            ls_fmt_figure(commit, sizeof(commit), m_get(tx, "commit_ms")));
}

static void summary(FILE *f, const cJSON *model, const cJSON *s, const cJSON *story,
                    const cJSON *queues, const md_caps *caps)
{
    const cJSON *range = cJSON_GetObjectItemCaseSensitive(s, "time_range");
    char d[LS_DURATION_LEN];
    ls_writer w = md_writer(f, caps);
    md_heading(f, LS_SEC_SUMMARY);
    ls_write_filter(&w, m_get(s, "filter"));
    ls_write_story(&w, story);
    ls_write_queue_answer(&w, story, queues);
    fputs("| | |\n|---|---|\n", f);
    fputs("| Time range |", f);
    fputs(" ", f);
    md_time(f, caps, m_str(range, "start"));
    fputs(" → ", f);
    md_time(f, caps, m_str(range, "end"));
    fputs(" |\n", f);
    fprintf(f, "| Lock waits logged | %.0f (%.0f linked to a blocker) |\n", m_num(s, "waits"),
            m_num(s, "waits_linked"));
    fprintf(f, "| Total wait | %s |\n",
            ls_fmt_duration(d, sizeof(d), m_num(s, "total_wait_ms")));
    fprintf(f, "| Longest wait | %s |\n", ls_fmt_duration(d, sizeof(d), m_num(s, "max_wait_ms")));
    {
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(s, "hidden_waits");
        int rebuilt = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h, "reconstructed"));
        if (rebuilt && cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(h, "hidden_wait_ms")))
            fprintf(f, "| Hidden waits (below deadlock_timeout) | unknown: not knowable from "
                       "this log (%s) |\n",
                    ls_hidden_unknown_why(model));
        else if (rebuilt)
            fprintf(f, "| Hidden waits (below deadlock_timeout) | %s%s over %.0f statements |\n",
                    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h, "at_least")) ? "at least "
                                                                                  : "",
                    ls_fmt_duration(d, sizeof(d), m_num(h, "hidden_wait_ms")),
                    m_num(h, "statements_waited_unlogged"));
        else if (h) {
            fputs("| Hidden waits | not rebuilt: ", f);
            ls_md_cell(f, m_str(h, "note"), 300);
            fputs(" |\n", f);
        }
    }
    trace_spans(f, m_get(s, "trace_spans"), caps);
    fprintf(f, "| Deadlocks | %.0f |\n", m_num(s, "deadlocks"));
    fprintf(f, "| Lock timeouts (55P03) | %.0f |\n", m_num(s, "lock_timeouts"));
    fprintf(f, "| NOWAIT failures (55P03) | %.0f |\n", m_num(s, "lock_nowait_failures"));
    fprintf(f, "| Statement timeouts (57014) | %.0f |\n", m_num(s, "statement_timeouts"));
    fprintf(f, "| Serialization failures (40001) | %.0f |\n", m_num(s, "serialization_failures"));
    fprintf(f, "| Idle-in-transaction timeouts (25P03) | %.0f |\n",
            m_num(s, "idle_in_transaction_timeouts"));
    fprintf(f, "| Sessions / statements | %.0f / %.0f |\n", m_num(s, "sessions"),
            m_num(s, "statements"));
    fprintf(f, "| Input | %.0f files, %.0f lines, %.0f records, %.0f unparsable lines, read by "
               "structure: %.0f lines |\n\n",
            m_num(s, "files"), m_num(s, "lines"), m_num(s, "records"), m_num(s, "bad_lines"),
            m_num(s, "structural_lines"));
    ls_write_unmatched_locks(&w, m_get(s, "unmatched_lock_messages"));
}

/* A section that is one table: heading, a sentence, then the table, or
 * `none` when it has no rows. */
static void md_table_section(FILE *f, const md_caps *caps, int section, const char *intro,
                             const char *none, const ls_table *t, const cJSON *rows)
{
    md_heading(f, section);
    fprintf(f, "%s\n\n", intro);
    if (cJSON_GetArraySize(rows) == 0) {
        fprintf(f, "%s\n\n", none);
        return;
    }
    md_table(f, caps, t, rows, INT_MAX);
    fputs("\n", f);
}

static void hot_rows(FILE *f, const cJSON *m, const md_caps *caps)
{
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(m, "hot_rows");
    md_table_section(f, caps, LS_SEC_HOT_ROWS,
                     ls_hot_rows_may_join(rows)
                         /* some rows known only by ctids that may be one
                          * row's versions: not said to be logical rows */
                         ? "Rows as the log tells them apart (a row known by its key is one row "
                           "however many ctids its updates gave it; rows known only by ctids may "
                           "be versions of one row, see below), ranked by the total time others "
                           "waited for them. Serial capacity is 1 / mean hold: the most "
                           "transactions per second that can take the row one after another."
                         : "Logical rows (one row however many ctids its updates gave it), ranked "
                           "by the total time others waited for them. Serial capacity is 1 / mean "
                           "hold: the most transactions per second that can take the row one "
                           "after another.",
                     ls_no_hot_rows(m), &ls_tab_hot_rows, rows);
    {
        ls_writer w = md_writer(f, caps);
        ls_write_wait_bounds(&w, rows);
        ls_write_ctid_versions(&w, rows);
    }
}

/* The relation lock queues, only when there is one. */
static void relation_queues(FILE *f, const cJSON *queues, const md_caps *caps)
{
    if (cJSON_GetArraySize(queues) == 0)
        return;
    md_heading(f, LS_SEC_RELATION_QUEUES);
    md_sub_heading(f, &ls_tab_relation_queues);
    md_table(f, caps, &ls_tab_relation_queues, queues, INT_MAX);
    fputs("\n", f);
}

static void holds(FILE *f, const cJSON *hs, const md_caps *caps)
{
    md_table_section(f, caps, LS_SEC_HOLDS,
                     "Transactions holding a row while others waited, ranked by the waiting "
                     "they caused, and what the holder did while they waited.",
                     "None.", &ls_tab_holds, hs);
}

static void root_blockers(FILE *f, const cJSON *roots, const md_caps *caps)
{
    ls_writer w = md_writer(f, caps);
    const cJSON *r;
    int nroot = 0;
    md_heading(f, LS_SEC_ROOT_BLOCKERS);
    fputs("The transactions at the head of the queues: what they "
          "held, and what they ran meanwhile.\n\n",
          f);
    if (cJSON_GetArraySize(roots) == 0) {
        fputs("None.\n\n", f);
        return;
    }
    cJSON_ArrayForEach(r, roots) {
        const cJSON *tx = cJSON_GetObjectItemCaseSensitive(r, "transaction");
        const cJSON *sts = cJSON_GetObjectItemCaseSensitive(tx, "statements");
        char d[LS_DURATION_LEN];
        if (nroot++ >= caps->roots) {
            left_out_of(f, caps, "root_blockers", cJSON_GetArraySize(roots) - caps->roots,
                        "root blockers");
            break;
        }
        fprintf(f, "### pid %.0f", m_num(r, "pid"));
        code_of(f, r, "");
        ls_write_opt(f, " — ", m_str(r, "application"), ls_md_cell, 64);
        fputs("\n\n", f);
        fprintf(f, "- Caused %.0f waits, %s of waiting in total\n", m_num(r, "waits_caused"),
                ls_fmt_duration(d, sizeof(d), m_num(r, "waiter_ms")));
        if (m_has_num(r, "xid"))
            fprintf(f, "- Transaction id %.0f\n", m_num(r, "xid"));
        if (m_str(r, "code_path")) {
            fputs("- Code path: ", f);
            ls_md_cell(f, m_str(r, "code_path"), 120);
            fputs(" (named by ", f);
            ls_md_cell(f, m_str(r, "code_path_source"), 40);
            fputs(")", f);
            ls_write_opt(f, ", trace ", m_str(r, "trace_id"), ls_md_cell, 64);
            fputs("\n", f);
        }
        ls_write_bullet(&w, "Rows: ", m_str(r, "rows"), 200);
        ls_write_root_tx_unknown(&w, r);
        ls_write_holder_state(&w, r);
        if (tx && m_has_num(tx, "duration_ms")) {
            /* its end not in the log: a lower bound */
            fprintf(f, "- Transaction lasted %s%s (",
                    m_str(tx, "split_unknown_reason") ? "at least " : "",
                    ls_fmt_duration(d, sizeof(d), m_num(tx, "duration_ms")));
            ls_md_cell(f, m_str(tx, "start_known"), 40);
            fputs(" to ", f);
            ls_md_cell(f, m_str(tx, "end_known"), 40);
            fputs(", ", f);
            ls_md_cell(f, m_str(tx, "outcome"), 40);
            fputs(")", f);
            if (m_has_num(tx, "sql_ms"))
                tx_parts(f, tx);
            fputs("\n", f);
        }
        if (cJSON_GetArraySize(sts) > 0 && caps->statements > 0) {
            fputs("\n", f);
            md_table(f, caps, &ls_tab_statements, sts, caps->statements);
        }
        fputs("\n", f);
        if (m_has_num(tx, "statements_total")) /* the model cut them too: one note */
            ls_write_cut_note(&w, 0,
                              caps->statements < cJSON_GetArraySize(sts)
                                  ? (caps->statements > 0 ? caps->statements : 0)
                                  : cJSON_GetArraySize(sts),
                              cJSON_GetArraySize(sts), (int64_t)m_num(tx, "statements_total"),
                              "statements of this transaction", NULL);
        else if (caps->statements < cJSON_GetArraySize(sts))
            left_out_of(f, caps, NULL,
                        cJSON_GetArraySize(sts) - (caps->statements > 0 ? caps->statements : 0),
                        "statements of this transaction");
    }
}

/* The waited_ms of the n-th longest wait: the waits table shows the
 * longest ones, in time order. */
static double nth_longest(const cJSON *ws, int n)
{
    const cJSON *w;
    double lo = 0, hi = 0;
    int i;
    cJSON_ArrayForEach(w, ws) if (m_num(w, "waited_ms") > hi) hi = m_num(w, "waited_ms");
    /* bisect the threshold: at most n waits at or above it */
    for (i = 0; i < 50; i++) {
        double mid = (lo + hi) / 2;
        int k = 0;
        cJSON_ArrayForEach(w, ws) k += m_num(w, "waited_ms") >= mid;
        if (k > n)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

static void waits(FILE *f, const cJSON *ws, const md_caps *caps)
{
    const cJSON *w;
    int total = cJSON_GetArraySize(ws), shown = 0;
    double min_ms = total > caps->waits ? nth_longest(ws, caps->waits) : -1;
    md_heading(f, LS_SEC_WAITS);
    if (total == 0) {
        fputs("None.\n\n", f);
        return;
    }
    if (caps->waits <= 0) {
        left_out_of(f, caps, "waits", total, "waits");
        return;
    }
    if (min_ms >= 0)
        fprintf(f, "The %d longest of %d, in time order.\n\n", caps->waits, total);
    md_table_head(f, &ls_tab_waits);
    cJSON_ArrayForEach(w, ws) {
        if (m_num(w, "waited_ms") < min_ms || shown >= caps->waits)
            continue;
        shown++;
        md_table_row(f, caps, &ls_tab_waits, w);
    }
    fputs("\n", f);
    left_out_of(f, caps, "waits", total - shown, "waits");
}

static void deadlocks(FILE *f, const cJSON *ds, const md_caps *caps)
{
    const cJSON *d;
    int n = 0;
    md_heading(f, LS_SEC_DEADLOCKS);
    if (cJSON_GetArraySize(ds) == 0) {
        fputs("None.\n\n", f);
        return;
    }
    cJSON_ArrayForEach(d, ds) {
        const cJSON *p;
        if (n >= caps->deadlocks) {
            left_out_of(f, caps, "deadlocks", cJSON_GetArraySize(ds) - n, "deadlocks");
            break;
        }
        fprintf(f, "### Deadlock %d — ", ++n);
        md_time(f, caps, m_str(d, "time"));
        fprintf(f, ", victim pid %.0f", m_num(d, "victim_pid"));
        code_of(f, d, "victim_");
        fputs("\n\n", f);
        md_table(f, caps, &ls_tab_edges, m_get(d, "edges"), INT_MAX);
        fputs("\n", f);
        mermaid_deadlock(f, d);
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(d, "processes")) {
            fprintf(f, "Process %.0f", m_num(p, "pid"));
            code_of(f, p, "");
            fputs(":\n\n", f);
            ls_md_code_block(f, "sql", m_str(p, "query") ? m_str(p, "query") : "");
            fputs("\n", f);
        }
    }
}

static void errors(FILE *f, const cJSON *es, const md_caps *caps)
{
    md_heading(f, LS_SEC_ERRORS);
    if (cJSON_GetArraySize(es) == 0) {
        fputs("None.\n\n", f);
        return;
    }
    md_table(f, caps, &ls_tab_errors, es, caps->rows);
    fputs("\n", f);
    left_out_of(f, caps, "errors", cJSON_GetArraySize(es) - caps->rows, "errors");
}

static void inputs(FILE *f, const cJSON *in, const md_caps *caps)
{
    const cJSON *x;
    ls_writer w = md_writer(f, caps);
    md_heading(f, LS_SEC_INPUT);
    ls_write_input_notes(&w, in);
    md_table(f, caps, &ls_tab_files, m_get(in, "files"), INT_MAX);
    fputs("\n", f);

    /* An input that broke before its end (ingest's row at the line where
     * it broke, docs/store.md): named under the table. */
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(in, "bad_line_samples")) {
        static const char broke[] = "input not fully read";
        const char *reason = m_str(x, "reason");
        if (!reason || strncmp(reason, broke, sizeof(broke) - 1) != 0)
            continue;
        fputs("**Not fully read:** ", f);
        ls_md_name(f, m_str(x, "file"), 120);
        fprintf(f, " breaks at line %.0f; what came before is read.\n\n", m_num(x, "line"));
    }
}

static void findings(FILE *f, const cJSON *m, const md_caps *caps)
{
    ls_writer w = md_writer(f, caps);
    md_heading(f, LS_SEC_FINDINGS);
    ls_write_findings(&w, m_get(m, "findings"), m_get(m_get(m, "summary"), "filter"));
}

/* The full statements behind each transaction shape's label (cut to
 * verbs and relations), for as many shapes as caps->statements (a Markdown cut to fit shows
 * fewer, and says how many it left out). */
static void md_shapes(FILE *f, const cJSON *m, const md_caps *caps)
{
    const cJSON *o;
    int any = 0, more = 0;
    cJSON_ArrayForEach(o, m_get(m, "row_occupancy")) {
        if (!m_str(o, "statements"))
            continue;
        if (any >= caps->statements) {
            more++;
            continue;
        }
        if (!any++)
            fputs("The statements of each transaction shape:\n\n", f);
        fputs("**", f);
        ls_md_cell(f, m_str(o, "code_path"), 400);
        fputs("**\n\n", f);
        ls_md_code_block(f, "sql", m_str(o, "statements"));
        fputs("\n", f);
    }
    left_out_of(f, caps, NULL, more, "transaction shapes' statements");
}

/* The headline: code paths ranked by how long they held hot rows. */
static void code_paths(FILE *f, const cJSON *m, const md_caps *caps)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(m, "code_paths");
    const cJSON *conflicts = cJSON_GetObjectItemCaseSensitive(m, "lock_order_conflicts");
    md_heading(f, LS_SEC_CODE_PATHS);
    if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(m, "row_occupancy")) > 0) {
        md_sub_heading(f, &ls_tab_occupancy);
        md_table(f, caps, &ls_tab_occupancy, m_get(m, "row_occupancy"), INT_MAX);
        fputs("\n", f);
        {
            ls_writer w = md_writer(f, caps);
            ls_write_shape_reason(&w, m);
            md_shapes(f, m, caps);
            ls_write_order_uncertain(&w, m_get(m, "row_occupancy"), LS_RANKING_OCCUPANCY);
            ls_write_order_unknown(&w, m_get(m, "row_occupancy"));
        }
    }
    if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(m, "row_queueing")) > 0) {
        md_sub_heading(f, &ls_tab_queueing);
        md_table(f, caps, &ls_tab_queueing, m_get(m, "row_queueing"), INT_MAX);
        fputs("\n", f);
    }
    md_sub_heading(f, &ls_tab_code_paths);
    if (cJSON_GetArraySize(list) == 0) {
        ls_writer w = md_writer(f, caps);
        ls_write_no_code_paths(&w, m);
        return;
    }
    fputs("Code paths named by ", f);
    ls_md_cell(f, m_str(m, "code_path_grouping"), 20);
    fputs(" (the \"named by\" column says which evidence stood in where that was "
          "missing).\n\n",
          f);
    md_table(f, caps, &ls_tab_code_paths, list, INT_MAX);
    fputs("\n", f);
    {
        ls_writer w = md_writer(f, caps);
        ls_write_order_uncertain(&w, list, LS_RANKING_BLOCKING);
    }
    if (cJSON_GetArraySize(conflicts) > 0) {
        md_sub_heading(f, &ls_tab_conflicts);
        md_table(f, caps, &ls_tab_conflicts, conflicts, INT_MAX);
        fputs("\n", f);
    }
}

/* The slowest traced requests and how much of each was row-lock queueing. */
static void slow_requests(FILE *f, const cJSON *list, const md_caps *caps)
{
    if (cJSON_GetArraySize(list) == 0)
        return;
    md_heading(f, LS_SEC_SLOW_REQUESTS);
    fputs("The slowest requests in the traces and how much of each was "
          "queueing for row locks (logged waits and the shorter ones the log never shows).\n\n",
          f);
    md_table(f, caps, &ls_tab_requests, list, INT_MAX);
    fputs("\n", f);
}

/* Each request named with --trace-id, wait by wait. */
static void trace_requests(FILE *f, const cJSON *list, const md_caps *caps)
{
    const cJSON *r;
    ls_writer w = md_writer(f, caps);
    if (!cJSON_IsArray(list))
        return;
    md_heading(f, LS_SEC_TRACE_REQUESTS);
    cJSON_ArrayForEach(r, list) ls_write_request(&w, r);
}

/* Who waited for whom when the busiest queue was longest. */
/* Waits by lock type and object, waiting and blocking statements. */
static void by_statement(FILE *f, const cJSON *m, const md_caps *caps)
{
    ls_writer w = md_writer(f, caps);
    md_heading(f, LS_SEC_BY_STATEMENT);
    ls_write_by_statement(&w, m);
}

static void worst_moment(FILE *f, const cJSON *wm, const md_caps *caps)
{
    if (!cJSON_IsObject(wm))
        return;
    md_heading(f, LS_SEC_WORST_MOMENT);
    fputs("Every wait open at ", f);
    md_time(f, caps, m_str(wm, "time"));
    fputs(", when the busiest row's queue was longest.\n\n", f);
    md_table(f, caps, &ls_tab_tree, m_get(wm, "waits"), caps->rows);
    fputs("\n", f);
    left_out_of(f, caps, "worst_moment.waits", cJSON_GetArraySize(m_get(wm, "waits")) - caps->rows,
                "waits open then");
}

/* After a section: what the model cut of its lists (prose.c). */
static void cuts(FILE *f, const cJSON *m, const md_caps *caps, int section)
{
    ls_writer w = md_writer(f, caps);
    ls_write_cuts(&w, m, section);
}

static void render(const cJSON *m, FILE *f, const md_caps *levels)
{
    md_caps zoned = *levels;
    const md_caps *caps = &zoned;
    char *saved_tz;

    zoned.zone = m_str(m, "time_zone");
    zoned.cut = m_get(m, "cut");
    saved_tz = ls_tz_enter(zoned.zone);
    fputs("# ", f);
    ls_md_cell(f, m_str(m, "title"), 200);
    fputs("\n\n", f);
    fputs("_", f);
    ls_md_cell(f, m_str(m, "generator"), 40);
    ls_write_opt(f, ", generated ", m_str(m, "generated_at"), ls_md_cell, 40);
    fputs("_\n\n", f);
    if (zoned.zone) {
        fputs("Times are in ", f);
        ls_md_cell(f, zoned.zone, 64);
        fputs(" (`--tz`), each with its UTC offset; the gantt charts' axes are in the "
              "reader's own zone (mermaid draws them).\n\n",
              f);
    }
    summary(f, m, m_get(m, "summary"), m_get(m, "story"), m_get(m, "relation_queues"), caps);
    findings(f, m, caps);
    code_paths(f, m, caps);
    cuts(f, m, caps, LS_SEC_CODE_PATHS);
    slow_requests(f, cJSON_GetObjectItemCaseSensitive(m, "slow_requests"), caps);
    cuts(f, m, caps, LS_SEC_SLOW_REQUESTS);
    trace_requests(f, cJSON_GetObjectItemCaseSensitive(m, "trace_requests"), caps);
    hot_rows(f, m, caps);
    cuts(f, m, caps, LS_SEC_HOT_ROWS);
    mermaid_hot_rows(f, m, caps);
    relation_queues(f, cJSON_GetObjectItemCaseSensitive(m, "relation_queues"), caps);
    cuts(f, m, caps, LS_SEC_RELATION_QUEUES);
    root_blockers(f, cJSON_GetObjectItemCaseSensitive(m, "root_blockers"), caps);
    cuts(f, m, caps, LS_SEC_ROOT_BLOCKERS);
    holds(f, cJSON_GetObjectItemCaseSensitive(m, "holds"), caps);
    cuts(f, m, caps, LS_SEC_HOLDS);
    by_statement(f, m, caps);
    cuts(f, m, caps, LS_SEC_BY_STATEMENT);
    worst_moment(f, cJSON_GetObjectItemCaseSensitive(m, "worst_moment"), caps);
    cuts(f, m, caps, LS_SEC_WORST_MOMENT);
    waits(f, cJSON_GetObjectItemCaseSensitive(m, "waits"), caps);
    cuts(f, m, caps, LS_SEC_WAITS);
    deadlocks(f, cJSON_GetObjectItemCaseSensitive(m, "deadlocks"), caps);
    cuts(f, m, caps, LS_SEC_DEADLOCKS);
    errors(f, cJSON_GetObjectItemCaseSensitive(m, "errors"), caps);
    cuts(f, m, caps, LS_SEC_ERRORS);
    inputs(f, cJSON_GetObjectItemCaseSensitive(m, "input"), caps);
    cuts(f, m, caps, LS_SEC_INPUT);
    ls_tz_leave(saved_tz);
}

/*
 * Lines are kept short for a reader of the raw text (a diff, a terminal):
 * outside tables and code blocks, a line longer than MD_LINE_MAX bytes is
 * cut at a space. A cut only ever replaces a space with a newline before
 * an ASCII letter (not after a digit), and a line that starts with a letter continues the
 * paragraph, list item or quote above it (CommonMark's lazy continuation),
 * so the rendered report is the same; a line with no such space is left
 * as it is.
 */
#define MD_LINE_MAX 200

/* May the line be cut at q (a space, not after a figure: "2.2 s" stays
 * whole, before a letter)? q[-1] and q[1] are in the line. */
static int cut_here(const char *q)
{
    int letter = (q[1] >= 'a' && q[1] <= 'z') || (q[1] >= 'A' && q[1] <= 'Z');
    return q[0] == ' ' && letter && !(q[-1] >= '0' && q[-1] <= '9');
}

/* Write the line [p, eol) to f, cut as above (without its newline). */
static void write_cut_line(FILE *f, const char *p, const char *eol)
{
    while (eol - p > MD_LINE_MAX) {
        const char *q = p + MD_LINE_MAX;
        while (q > p && !cut_here(q))
            q--;
        if (q == p)
            break;
        fwrite(p, 1, (size_t)(q - p), f);
        fputc('\n', f);
        p = q + 1;
    }
    fwrite(p, 1, (size_t)(eol - p), f);
}

/* Write the rendered report buf[0, len) to f with its long lines cut. */
static void write_lines(FILE *f, const char *buf, size_t len)
{
    const char *p = buf, *end = buf + len;
    int fenced = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        if (eol - p >= 3 && memcmp(p, "```", 3) == 0)
            fenced = !fenced;
        if (fenced || *p == '|')
            fwrite(p, 1, (size_t)(eol - p), f);
        else
            write_cut_line(f, p, eol);
        if (nl)
            fputc('\n', f);
        p = eol + (nl != NULL);
    }
}

/* The report rendered at `caps` into *buf (malloc'd, *len bytes). */
static int render_mem(const cJSON *m, const md_caps *caps, char **buf, size_t *len)
{
    FILE *mem = open_memstream(buf, len);
    if (!mem)
        return LS_ENOMEM;
    render(m, mem, caps);
    if (fclose(mem) != 0 || !*buf) {
        free(*buf);
        *buf = NULL;
        return LS_ENOMEM;
    }
    return 0;
}

/* The report at the first level of md_levels that fits MD_BUDGET
 * characters (the last level whatever its length). */
int ls_report_write_markdown(const cJSON *m, FILE *f)
{
    size_t i, n = sizeof(md_levels) / sizeof(md_levels[0]);
    for (i = 0; i < n; i++) {
        char *buf = NULL;
        size_t len = 0;
        int fits;
        if (render_mem(m, &md_levels[i], &buf, &len) != 0)
            return LS_ENOMEM;
        fits = len <= MD_BUDGET || i + 1 == n;
        if (fits)
            write_lines(f, buf, len);
        free(buf);
        if (fits)
            break;
    }
    return ferror(f) ? LS_EIO : 0;
}

int ls_report_write_markdown_full(const cJSON *m, FILE *f)
{
    char *buf = NULL;
    size_t len = 0;
    if (render_mem(m, &md_all, &buf, &len) != 0)
        return LS_ENOMEM;
    write_lines(f, buf, len);
    free(buf);
    return ferror(f) ? LS_EIO : 0;
}
