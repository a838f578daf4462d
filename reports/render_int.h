/*
 * render_int.h — reading the report model, for the renderers (markdown.c,
 * html.c). A missing or mistyped field reads as NULL / 0, never a crash:
 * the model is trusted in shape but not in completeness.
 */
#ifndef LS_RENDER_INT_H
#define LS_RENDER_INT_H

/* A hold is shown as a range (shortest–longest) only when the log leaves
 * its bounds at least this many ms apart; closer bounds are the clock's
 * millisecond, not doubt. */
#define LS_HOLD_RANGE_MS 25
#define LS_RANGE_KEY_LEN 64 /* a model key with _min(_ms) or _max(_ms) */

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "sections.h"

/* A duration as people write it ("350 ms", "78.1 s", "1 h 02 min") into
 * buf (32 bytes is enough); returns buf. format.c. */
#define LS_DURATION_LEN 32
const char *ls_fmt_duration(char *buf, size_t n, double ms);

/*
 * The range of duration KEY: KEY_min_ms and KEY_max_ms of o for a key
 * ending in "_ms" (total_hold_ms), else KEY_min and KEY_max
 * (waiter_ms_caused), in *lo and *hi. Returns 1 when o has both and they
 * are at least LS_HOLD_RANGE_MS apart (worth showing), else 0.
 */
int ls_fmt_range_of(const cJSON *o, const char *key, double *lo, double *hi);

/*
 * An estimate as shown beside its range [lo, hi]: the estimate itself,
 * or the range's nearer end when it lies outside (a hold's signed idle
 * estimate on a whole-second log, below 0 so that sums stay unbiased, is
 * shown as its range's 0, not as a negative duration).
 */
double ls_fmt_in_range(double v, double lo, double hi);

/*
 * The mark of a figure that is a bound, not a value: "≥ " when the
 * row's wait_bounds says KEY is "at_least", "≤ " for "at_most", else
 * "" (a slow-locker row's waits, total and max wait: hot_rows[].wait_bounds).
 * The same mark in every table cell of both formats. format.c.
 */
const char *ls_fmt_bound_mark(const cJSON *row, const char *key);

/*
 * The one reading of a figure the model left null (JSON null: not known),
 * for every cell and sentence of both formats. A null figure is either
 * unknown, the log cannot tell it (LS_UNKNOWN: a threshold log's idle and
 * commit time, the holds of a path none of which was timed), or there is
 * nothing to tell ("—": a path that held no row has no longest hold).
 * ls_fmt_null_cell() says which for column c of model row `row`: unknown
 * when the column's figure is null only when unknown (LS_CELL_MS_KNOWN),
 * or when the row carries the reason its figures of that kind are null
 * (hold_unknown_reason: code_paths[], hot_rows[]; occupancy_unknown:
 * row_occupancy[]; split_unknown_reason: holds[], a transaction),
 * else "—". ls_fmt_figure() writes a duration, or LS_UNKNOWN for a null.
 * format.c.
 */
#define LS_UNKNOWN "unknown"
const char *ls_fmt_null_cell(const cJSON *row, const ls_column *c);
const char *ls_fmt_figure(char *buf, size_t n, const cJSON *v);

/* TZ set to the report's zone (UTC0 without one) while a report is
 * written, and put back after (ls_tz_leave takes what ls_tz_enter gave):
 * one thread writes the reports, after ingest. format.c. */
char *ls_tz_enter(const char *zone);
void ls_tz_leave(char *saved);

/* A model time (ISO 8601 UTC) in the zone TZ names, as ISO 8601 with its
 * offset ("2026-12-02T07:36:29.822938-05:00"); NULL if it does not parse.
 * LS_LOCAL_ISO_LEN bytes are enough. format.c. */
#define LS_LOCAL_ISO_LEN 48
const char *ls_fmt_local_iso(char *buf, size_t n, const char *iso);

/* The sentence on the database spans (summary.trace_spans) after their
 * count: their clock against the database's, and those without a backend
 * pid, placed or not and why; log text through `esc`, the format's
 * escaping. format.c. */
void ls_fmt_trace_spans(FILE *f, const cJSON *t,
                        void (*esc)(FILE *f, const char *s, size_t max));

/* A holder's state (a hold's head_state) in words: "idle in transaction",
 * "running SQL", "committing"; another state as it is, NULL as "—".
 * format.c. */
const char *ls_fmt_state(const char *state);

/* The state of the holder o (its head_state) in words, and for "in_span"
 * the span it was in (head_span, log text through `esc`): "in HTTP POST
 * payments-api /charge". The one wording of a holder's state in every
 * table and sentence. format.c. */
#define LS_SPAN_NAME_MAX 80
void ls_fmt_state_of(FILE *f, const cJSON *o, void (*esc)(FILE *f, const char *s, size_t max));

static inline const cJSON *m_get(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static inline const char *m_str(const cJSON *o, const char *key)
{
    const cJSON *v = m_get(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static inline double m_num(const cJSON *o, const char *key)
{
    const cJSON *v = m_get(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static inline int m_has_num(const cJSON *o, const char *key)
{
    return cJSON_IsNumber(m_get(o, key));
}

#endif
