/*
 * format.c — numbers and times as people read them, shared by the
 * renderers (markdown.c, html.c): "350 ms", "78.1 s", "1 h 02 min"; times
 * in the report's zone (--tz).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ls_common.h"
#include "render_int.h"

/*
 * A duration in milliseconds, rounded to what a reader compares:
 * under 10 ms one decimal, under 1 s whole ms, under 10 min seconds with
 * one decimal ("78.1 s" compares at a glance with "350 ms"), under an hour
 * "M min SS s", above that "H h MM min". Negative or
 * non-finite values (a model hole) print as "—".
 */
const char *ls_fmt_duration(char *buf, size_t n, double ms)
{
    if (!isfinite(ms) || ms < 0) {
        snprintf(buf, n, "—");
    } else if (ms < 10) {
        snprintf(buf, n, "%.1f ms", ms);
    } else if (ms < 999.5) {
        snprintf(buf, n, "%.0f ms", ms);
    } else if (ms < 599950) {
        snprintf(buf, n, "%.1f s", ms / 1000);
    } else if (ms < 3599500) {
        long long s = llround(ms / 1000);
        snprintf(buf, n, "%lld min %02lld s", s / 60, s % 60);
    } else {
        long long m = llround(ms / 60000);
        snprintf(buf, n, "%lld h %02lld min", m / 60, m % 60);
    }
    return buf;
}

char *ls_tz_enter(const char *zone)
{
    const char *old = getenv("TZ");
    char *saved = old ? ls_strdup(old) : NULL;
    setenv("TZ", zone ? zone : "UTC0", 1);
    tzset();
    return saved;
}

void ls_tz_leave(char *saved)
{
    if (saved)
        setenv("TZ", saved, 1);
    else
        unsetenv("TZ");
    tzset();
    free(saved);
}

/*
 * A model time (ISO 8601 UTC, microseconds) in the zone TZ names, still
 * ISO 8601 and to the microsecond, with the zone's offset at that instant:
 * "2026-12-02T07:36:29.822938-05:00". NULL when it does not parse.
 */
const char *ls_fmt_local_iso(char *buf, size_t n, const char *iso)
{
    ls_ts t;
    time_t sec;
    struct tm tm;
    long us, off;
    char day[32];

    if (!iso || ls_ts_parse(&t, iso, strlen(iso)) != 0)
        return NULL;
    us = (long)(t % 1000000);
    if (us < 0)
        us += 1000000;
    sec = (time_t)((t - us) / 1000000);
    if (!localtime_r(&sec, &tm) || strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
        return NULL;
    off = tm.tm_gmtoff / 60;
    snprintf(buf, n, "%s.%06ld%c%02ld:%02ld", day, us, off < 0 ? '-' : '+', labs(off) / 60,
             labs(off) % 60);
    return buf;
}

void ls_fmt_trace_spans(FILE *f, const cJSON *t,
                        void (*esc)(FILE *f, const char *s, size_t max))
{
    const cJSON *w;
    int first = 1;
    const char *from = m_str(t, "clock_offset_from");
    if (from && strcmp(from, "none") == 0)
        fputs("their clock taken as the database's (no logged lock wait or statement to "
              "measure it on)", f);
    else {
        /* the offset is database minus application clock */
        fprintf(f, "their clock %.1f ms %s the database's (%.0f ",
                m_num(t, "clock_offset_ms") < 0 ? -m_num(t, "clock_offset_ms")
                                                : m_num(t, "clock_offset_ms"),
                m_num(t, "clock_offset_ms") < 0 ? "ahead of" : "behind",
                m_num(t, "clock_offset_agreeing"));
        esc(f, m_str(t, "clock_offset_from"), 40);
        fputs(" agree)", f);
    }
    if (m_num(t, "without_pid") > 0) {
        fprintf(f, "; %.0f without a backend pid: %.0f placed by their trace's other spans, "
                   "%.0f matched to a logged statement, ",
                m_num(t, "without_pid"), m_num(t, "placed_by_trace"),
                m_num(t, "matched_logged_statement"));
        if (m_num(t, "orm_of_driver_span") > 0)
            fprintf(f, "%.0f an ORM's span around its driver's span of the same statement "
                       "(one statement), ", m_num(t, "orm_of_driver_span"));
        fprintf(f, "%.0f not placed", m_num(t, "not_placed"));
        cJSON_ArrayForEach(w, m_get(t, "not_placed_why")) {
            fprintf(f, "%s%.0f: ", first ? " (" : "; ", m_num(w, "spans"));
            esc(f, m_str(w, "why"), 120);
            first = 0;
        }
        if (!first)
            fputs("); a span not placed adds nothing to the holds and hidden waits", f);
    }
}

const char *ls_fmt_state(const char *state)
{
    if (!state)
        return "—";
    if (strcmp(state, "idle_in_transaction") == 0)
        return "idle in transaction";
    if (strcmp(state, "committing") == 0)
        return "committing";
    if (strcmp(state, "running") == 0)
        return "running SQL";
    if (strcmp(state, "in_span") == 0)
        return "in a trace span";
    return state;
}

void ls_fmt_state_of(FILE *f, const cJSON *o, void (*esc)(FILE *f, const char *s, size_t max))
{
    const char *state = m_str(o, "head_state"), *span = m_str(o, "head_span");
    if (state && span && strcmp(state, "in_span") == 0) {
        fputs("in ", f);
        esc(f, span, LS_SPAN_NAME_MAX);
        return;
    }
    esc(f, ls_fmt_state(state), 40);
}

/* Each reason a model row gives for leaving figures null as unknown, and
 * the figures it covers (the model: reports/model.c, codepaths.c). */
static const struct {
    const char *reason;
    const char *const figures[7];
} unknown_by[] = {
    {"hold_unknown_reason",
     {"total_hold_ms", "max_hold_ms", "p95_hold_ms", "mean_hold_ms", "occupied_ms", "utilisation",
      NULL}},
    {"occupancy_unknown", {"total_hold_ms", "max_hold_ms", "p95_hold_ms", "share_pct", NULL}},
    {"split_unknown_reason", {"idle_ms", "max_idle_ms", "commit_ms", NULL}},
};

const char *ls_fmt_null_cell(const cJSON *row, const ls_column *c)
{
    size_t i, k;
    if (c->kind == LS_CELL_MS_KNOWN)
        return LS_UNKNOWN;
    for (i = 0; i < sizeof(unknown_by) / sizeof(unknown_by[0]); i++) {
        if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(row, unknown_by[i].reason)))
            continue;
        for (k = 0; unknown_by[i].figures[k]; k++)
            if (strcmp(unknown_by[i].figures[k], c->key) == 0)
                return LS_UNKNOWN;
    }
    return "—";
}

const char *ls_fmt_figure(char *buf, size_t n, const cJSON *v)
{
    return cJSON_IsNumber(v) ? ls_fmt_duration(buf, n, v->valuedouble) : LS_UNKNOWN;
}

double ls_fmt_in_range(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

const char *ls_fmt_bound_mark(const cJSON *row, const char *key)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(row, "wait_bounds"), key);
    const char *v = cJSON_GetStringValue(b);
    if (!v)
        return "";
    return strcmp(v, "at_least") == 0 ? "≥ " : strcmp(v, "at_most") == 0 ? "≤ " : "";
}

int ls_fmt_range_of(const cJSON *o, const char *key, double *lo, double *hi)
{
    char kl[LS_RANGE_KEY_LEN], kh[LS_RANGE_KEY_LEN];
    size_t n = strlen(key);
    const cJSON *a, *b;

    /* KEY_ms: KEY_min_ms and KEY_max_ms; any other key (waiter_ms_caused):
     * KEY_min and KEY_max */
    int ms = n >= sizeof("_ms") - 1 && strcmp(key + n - (sizeof("_ms") - 1), "_ms") == 0;

    if (ms)
        n -= sizeof("_ms") - 1;
    if (snprintf(kl, sizeof(kl), "%.*s_min%s", (int)n, key, ms ? "_ms" : "") >= (int)sizeof(kl) ||
        snprintf(kh, sizeof(kh), "%.*s_max%s", (int)n, key, ms ? "_ms" : "") >= (int)sizeof(kh))
        return 0;
    a = cJSON_GetObjectItemCaseSensitive(o, kl);
    b = cJSON_GetObjectItemCaseSensitive(o, kh);
    if (!cJSON_IsNumber(a) || !cJSON_IsNumber(b))
        return 0;
    *lo = a->valuedouble;
    *hi = b->valuedouble;
    return *hi - *lo >= LS_HOLD_RANGE_MS;
}
