/*
 * spantimes.c — logged statements timed by the spans that sent them, for
 * logs whose times are whole seconds (issue 34, item 1).
 *
 * A %t log with log_statement = 'all' says only in which second a
 * statement arrived: a hold then starts and ends on whole seconds, and a
 * 2 ms hold that crosses a second counts 1,000 ms. The application's
 * database spans time the same statements to the microsecond. Where a
 * trace's database spans are, in start order, consecutive statements of
 * one session with the same texts, each started within the second the log
 * gives it (decide/spantime.h), each such statement takes its span's start
 * (kept inside that second) and its span's end as its duration: the
 * transactions and holds passes then read it as a statement logged with
 * its duration, at microsecond resolution.
 *
 * The offset between the clocks: spans.c measured one, but on whole
 * seconds (a logged wait's times are whole seconds too), so it may be off
 * by most of a second. It is measured again here on statements that have
 * exactly one span of their text (and trace, and pid) within
 * OFFSET_SEARCH_US of spans.c's offset: each puts the offset in a second
 * wide range (decide/clock.h, ls_span_offset_in_log_time()); the ranges
 * of many statements meet in a narrow one.
 *
 * Pairing follows the log: statements are taken in log order (file, line)
 * and each, not yet paired, takes the earliest unused trace whose spans
 * fit it and its session's next statements. The span times are this
 * pass's own, in stmt_span_time (each statement's span, its logged time
 * and the span's start and duration; stmt_rows stays as logged), which
 * the passes after it read through the connection's temp.stmt_rows
 * (store_schema.h, LS_STMT_ROWS_TEMP_DDL) and this pass's reset empties;
 * the holds pass reads the log's resolution from the other statements.
 *
 * Only logs with whole-second times and statements without durations are
 * changed: a log with milliseconds times its statements itself.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "correlate_int.h"
#include "decide/clock.h"
#include "decide/spantime.h"
#include "decide/tolerances.h"
#include "ls_columns.h"
#include "ls_params.h"
#include "ls_sqlcomment.h"
#include "corr_tables.h"

#define SPAN_TIME_SLACK_US 5000     /* a span's start before the server's receipt, the offset's error */
#define OFFSET_SEARCH_US 2000000LL  /* candidate spans around spans.c's offset */
#define MAX_OFFSET_STMTS 2000       /* statements the offset is measured on */

/* Whether the log's statement times are whole seconds and any span has a
 * statement text (else there is nothing to do). */
static const char applies_sql[] =
    "SELECT EXISTS (SELECT 1 FROM spans WHERE db_statement IS NOT NULL)"
    " AND EXISTS (SELECT 1 FROM stmt_rows WHERE verb IS NOT 5)" /* LS_VERB_SPAN */
    " AND NOT EXISTS (SELECT 1 FROM stmt_rows WHERE verb IS NOT 5"
    "  AND (start_ts + coalesce(dur_us, 0)) % " LS_SQL_INT(LS_WHOLE_SECOND_US) " <> 0)";

#define SPAN_COLS(X, Q)              \
    X(Q, span_row, "span_row")       \
    X(Q, trace_id, "trace_id")       \
    X(Q, start_ts, "start_ts")       \
    X(Q, end_ts, "end_ts")           \
    X(Q, pid, "coalesce(db_pid, 0)") \
    X(Q, text, "db_statement")
LS_COLUMNS(sp, SPAN_COLS);
static const char spans_sql[] =
    "SELECT " LS_SELECT_LIST(sp, SPAN_COLS) " FROM spans WHERE db_statement IS NOT NULL"
    " AND start_ts IS NOT NULL AND end_ts IS NOT NULL ORDER BY trace_id, start_ts, span_row";

/* Statements logged without a duration (log_statement lines: statement
 * and execute), by session and log order. */
#define STMT_COLS(X, Q)                       \
    X(Q, stmt_id, "st.stmt_id")               \
    X(Q, session_id, "st.session_id")         \
    X(Q, pid, LS_STMT_PID("st"))              \
    X(Q, file_id, "coalesce(st.file_id, 0)")  \
    X(Q, line, "coalesce(st.line, 0)")        \
    X(Q, start_ts, "st.start_ts")             \
    X(Q, text, "t.text")
LS_COLUMNS(sq, STMT_COLS);
static const char stmts_sql[] =
    "SELECT " LS_SELECT_LIST(sq, STMT_COLS)
    " FROM stmt_rows st JOIN stmt_texts t ON t.text_id = st.text_id"
    " WHERE st.verb IN (0, 3) /* LS_VERB_EXECUTE, LS_VERB_STATEMENT */"
    " AND st.dur_us IS NULL AND st.start_ts IS NOT NULL ORDER BY st.session_id, st.stmt_id";

static const char clock_sql[] = "SELECT offset_us FROM span_clock LIMIT 1";
LS_TABLE_COLUMNS(stmt_span_time);
static const char keep_sql[] = LS_INSERT_INTO("INSERT", stmt_span_time);

typedef struct st_rec {
    int64_t stmt_id, session_id, file_id, line;
    ls_seq_item it;
    int64_t span; /* index + 1 of the span it was paired with, 0: none */
} st_rec;

typedef struct sp_rec {
    int64_t span_row, end;
    ls_seq_item it; /* it.ts: the start, on the database clock once shifted */
} sp_rec;

/* A trace's database spans: sp[first .. first + n). */
typedef struct trace_rec {
    size_t first, n;
    int used;
} trace_rec;

/* A sort key: (a, b, c), and the index of what it is the key of. */
typedef struct ord {
    uint64_t a;
    int64_t b, c;
    size_t idx;
} ord;

typedef struct span_times {
    st_rec *st;
    size_t nst, capst;
    sp_rec *sp;
    size_t nsp, capsp;
    trace_rec *tr;
    size_t ntr, captr, longest; /* longest: the most spans of one trace */
    ord *by_text;   /* spans by (text, start, index) */
    ord *tr_first;  /* traces by their first span's (text, start, index) */
    ord *log_order; /* statements by (file, line, stmt_id) */
    ls_seq_item *run, *spans; /* room for `longest` items each */
} span_times;

static void times_free(span_times *t)
{
    free(t->st);
    free(t->sp);
    free(t->tr);
    free(t->by_text);
    free(t->tr_first);
    free(t->log_order);
    free(t->run);
    free(t->spans);
}

/* Room for one more element of an array of `size`-byte elements. */
static int grow(void **v, size_t n, size_t *cap, size_t size)
{
    void *nv;
    size_t ncap;
    if (n < *cap)
        return 0;
    ncap = *cap ? *cap * 2 : 256;
    if (!(nv = ls_realloc(*v, ncap * size)))
        return LS_ENOMEM;
    *v = nv;
    *cap = ncap;
    return 0;
}

static uint64_t trace_hash(const char *trace_id)
{
    uint64_t h;
    if (!trace_id || !trace_id[0])
        return 0;
    h = ls_fnv1a(trace_id, strlen(trace_id), LS_FNV1A_BASIS);
    return h ? h : 1;
}

/* The database spans, grouped by trace, in start order within each. */
static int load_spans(ls_store *s, span_times *t)
{
    ls_stmt *q = NULL;
    uint64_t prev = 0;
    int rc;

    if ((rc = ls_store_prepare(s, spans_sql, &q)) != 0)
        return rc;
    while ((rc = ls_stmt_step(q)) == 1) {
        sp_rec *r;
        if ((rc = grow((void **)&t->sp, t->nsp, &t->capsp, sizeof(*t->sp))) != 0)
            break;
        r = &t->sp[t->nsp];
        r->span_row = ls_stmt_int64(q, sp_span_row);
        r->end = ls_stmt_int64(q, sp_end_ts);
        r->it.ts = ls_stmt_int64(q, sp_start_ts);
        r->it.text = ls_span_text_hash(ls_stmt_text(q, sp_text));
        r->it.trace = trace_hash(ls_stmt_text(q, sp_trace_id));
        r->it.pid = ls_stmt_int64(q, sp_pid);
        if (!t->ntr || r->it.trace != prev || !r->it.trace) {
            if ((rc = grow((void **)&t->tr, t->ntr, &t->captr, sizeof(*t->tr))) != 0)
                break;
            t->tr[t->ntr].first = t->nsp;
            t->tr[t->ntr].n = 0;
            t->tr[t->ntr++].used = 0;
            prev = r->it.trace;
        }
        if (++t->tr[t->ntr - 1].n > t->longest)
            t->longest = t->tr[t->ntr - 1].n;
        t->nsp++;
    }
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

/* The statements logged without a duration, by session and order. */
static int load_statements(ls_store *s, span_times *t)
{
    ls_stmt *q = NULL;
    int rc;

    if ((rc = ls_store_prepare(s, stmts_sql, &q)) != 0)
        return rc;
    while ((rc = ls_stmt_step(q)) == 1) {
        const char *text = ls_stmt_text(q, sq_text);
        ls_sqltags tags;
        st_rec *r;
        if ((rc = grow((void **)&t->st, t->nst, &t->capst, sizeof(*t->st))) != 0)
            break;
        r = &t->st[t->nst++];
        r->stmt_id = ls_stmt_int64(q, sq_stmt_id);
        r->session_id = ls_stmt_int64(q, sq_session_id);
        r->file_id = ls_stmt_int64(q, sq_file_id);
        r->line = ls_stmt_int64(q, sq_line);
        r->it.ts = ls_stmt_int64(q, sq_start_ts);
        r->it.text = ls_span_text_hash(text ? text : "");
        r->it.pid = ls_stmt_int64(q, sq_pid);
        r->it.trace = text && ls_sqlcomment_parse(text, &tags) > 0 ? trace_hash(tags.trace_id) : 0;
        r->span = 0;
    }
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

static int ord_cmp(const void *a, const void *b)
{
    const ord *x = a, *y = b;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    if (x->b != y->b)
        return x->b < y->b ? -1 : 1;
    return (x->c > y->c) - (x->c < y->c);
}

/* The sorted keys, and room for one trace's pairing. */
static int build_indexes(span_times *t)
{
    size_t i;
    if ((t->nsp && !(t->by_text = ls_calloc(t->nsp, sizeof(ord)))) ||
        (t->ntr && !(t->tr_first = ls_calloc(t->ntr, sizeof(ord)))) ||
        (t->nst && !(t->log_order = ls_calloc(t->nst, sizeof(ord)))) ||
        (t->longest && !(t->run = ls_calloc(t->longest, sizeof(ls_seq_item)))) ||
        (t->longest && !(t->spans = ls_calloc(t->longest, sizeof(ls_seq_item)))))
        return LS_ENOMEM;
    for (i = 0; i < t->nsp; i++) {
        t->by_text[i].a = t->sp[i].it.text;
        t->by_text[i].b = t->sp[i].it.ts;
        t->by_text[i].c = (int64_t)i;
        t->by_text[i].idx = i;
    }
    for (i = 0; i < t->ntr; i++) {
        t->tr_first[i].a = t->sp[t->tr[i].first].it.text;
        t->tr_first[i].b = t->sp[t->tr[i].first].it.ts;
        t->tr_first[i].c = (int64_t)t->tr[i].first;
        t->tr_first[i].idx = i;
    }
    for (i = 0; i < t->nst; i++) {
        t->log_order[i].a = (uint64_t)t->st[i].file_id;
        t->log_order[i].b = t->st[i].line;
        t->log_order[i].c = t->st[i].stmt_id;
        t->log_order[i].idx = i;
    }
    if (t->nsp)
        qsort(t->by_text, t->nsp, sizeof(ord), ord_cmp);
    if (t->ntr)
        qsort(t->tr_first, t->ntr, sizeof(ord), ord_cmp);
    if (t->nst)
        qsort(t->log_order, t->nst, sizeof(ord), ord_cmp);
    return 0;
}

/* The first position in v[0..n) not before (a, b). */
static size_t lower_bound(const ord *v, size_t n, uint64_t a, int64_t b)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].a < a || (v[mid].a == a && v[mid].b < b))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/*
 * The offset (database minus application clock): each statement with
 * exactly one span of its text within OFFSET_SEARCH_US of `guess` gives
 * a range; *offset is the middle of the range most agree on, *half its
 * half width (how far off *offset may be); else `guess`, and *half
 * OFFSET_SEARCH_US.
 */
static int measure_offset(const span_times *t, int64_t res, int64_t guess, int64_t *offset,
                          int64_t *half)
{
    int64_t *lo = ls_calloc(MAX_OFFSET_STMTS, sizeof(*lo));
    int64_t *hi = ls_calloc(MAX_OFFSET_STMTS, sizeof(*hi));
    int n = 0;
    size_t i;

    *offset = guess;
    *half = OFFSET_SEARCH_US;
    if (!lo || !hi) {
        free(lo);
        free(hi);
        return LS_ENOMEM;
    }
    for (i = 0; i < t->nst && n < MAX_OFFSET_STMTS; i++) {
        const ls_seq_item *st = &t->st[i].it;
        size_t k = lower_bound(t->by_text, t->nsp, st->text, st->ts - guess - OFFSET_SEARCH_US);
        const sp_rec *one = NULL;
        int count = 0;
        for (; k < t->nsp; k++) {
            const sp_rec *sp = &t->sp[t->by_text[k].idx];
            if (sp->it.text != st->text || sp->it.ts > st->ts - guess + res + OFFSET_SEARCH_US)
                break;
            if ((sp->it.pid && sp->it.pid != st->pid) || (st->trace && st->trace != sp->it.trace))
                continue;
            one = sp;
            count++;
        }
        if (count == 1) {
            ls_span_offset_in_log_time(st->ts, res, one->it.ts, SPAN_TIME_SLACK_US, &lo[n], &hi[n]);
            n++;
        }
    }
    if (n) {
        int64_t rlo = 0, rhi = 0;
        ls_span_offset_range(lo, hi, n, &rlo, &rhi);
        *offset = rlo + (rhi - rlo) / 2;
        *half = (rhi - rlo) / 2;
    }
    free(lo);
    free(hi);
    return 0;
}

/*
 * The offset again, on every statement paired (spans on the clock of
 * `offset`): each puts its span's start in its second; the middle of the
 * range all of them agree on, by how much it moves the spans, in *shift
 * (0 when they do not all agree: a pairing was wrong, kept as it is).
 */
static int refine_offset(const span_times *t, int64_t res, int64_t *shift)
{
    int64_t *lo = NULL, *hi = NULL, rlo = 0, rhi = 0;
    size_t i;
    int n = 0;

    *shift = 0;
    if (t->nst && (!(lo = ls_calloc(t->nst, sizeof(*lo))) || !(hi = ls_calloc(t->nst, sizeof(*hi))))) {
        free(lo);
        return LS_ENOMEM;
    }
    for (i = 0; i < t->nst; i++)
        if (t->st[i].span) {
            ls_span_offset_in_log_time(t->st[i].it.ts, res, t->sp[t->st[i].span - 1].it.ts,
                                       SPAN_TIME_SLACK_US, &lo[n], &hi[n]);
            n++;
        }
    if (n && ls_span_offset_range(lo, hi, n, &rlo, &rhi) == n)
        *shift = rlo + (rhi - rlo) / 2;
    free(lo);
    free(hi);
    return 0;
}

/* The statements from t->st[k] on in its session, at most `want`. */
static size_t session_run(const span_times *t, size_t k, size_t want)
{
    size_t n = 0;
    while (k + n < t->nst && n < want && t->st[k + n].session_id == t->st[k].session_id &&
           !t->st[k + n].span)
        n++;
    return n;
}

/* Pair statement t->st[k] (and its session's next ones) with the earliest
 * unused trace that fits them. */
static void pair_statement(span_times *t, size_t k, int64_t res, int64_t slack)
{
    const ls_seq_item *st = &t->st[k].it;
    size_t j = lower_bound(t->tr_first, t->ntr, st->text, st->ts - slack);

    for (; j < t->ntr; j++) {
        trace_rec *tr = &t->tr[t->tr_first[j].idx];
        const ls_seq_item *first = &t->sp[tr->first].it;
        size_t n, i;
        if (first->text != st->text || first->ts > st->ts + res + slack)
            break;
        if (tr->used || (n = session_run(t, k, tr->n)) < tr->n)
            continue;
        for (i = 0; i < n; i++) {
            t->run[i] = t->st[k + i].it;
            t->spans[i] = t->sp[tr->first + i].it;
        }
        if (!ls_span_seq_fits(t->run, n, t->spans, tr->n, res, slack))
            continue;
        tr->used = 1;
        for (i = 0; i < n; i++)
            t->st[k + i].span = (int64_t)(tr->first + i) + 1;
        return;
    }
}

/* Store what was paired: each statement's span, its start as logged and
 * the start and duration the span gives it, in stmt_span_time alone
 * (stmt_rows is ingest's: the passes after this one read the times
 * through the connection's temp.stmt_rows, ls_store_stmt_views). */
static int write_pairs(ls_store *s, const span_times *t, int64_t res, int64_t *changed)
{
    ls_stmt *keep = NULL;
    size_t i;
    int rc;

    if ((rc = ls_store_prepare(s, keep_sql, &keep)) != 0)
        goto out;
    for (i = 0; i < t->nst; i++) {
        const st_rec *st = &t->st[i];
        const sp_rec *sp;
        int64_t start, dur;
        if (!st->span)
            continue;
        sp = &t->sp[st->span - 1];
        ls_stmt_time_from_span(st->it.ts, res, sp->it.ts, sp->end, &start, &dur);
        ls_stmt_reset(keep);
        ls_stmt_bind_int64(keep, LS_PARAM(stmt_span_time, stmt_id), st->stmt_id);
        ls_stmt_bind_int64(keep, LS_PARAM(stmt_span_time, span_row), sp->span_row);
        ls_stmt_bind_int64(keep, LS_PARAM(stmt_span_time, log_ts), st->it.ts);
        ls_stmt_bind_int64(keep, LS_PARAM(stmt_span_time, start_ts), start);
        ls_stmt_bind_int64(keep, LS_PARAM(stmt_span_time, dur_us), dur);
        if ((rc = ls_stmt_step(keep)) < 0)
            goto out;
        (*changed)++;
    }
    rc = 0;
out:
    ls_stmt_finalize(keep);
    return rc < 0 ? rc : 0;
}

/* spans.c's offset (span_clock), 0 without one. */
static int first_offset(ls_store *s, int64_t *out)
{
    ls_stmt *q = NULL;
    int rc = ls_store_prepare(s, clock_sql, &q);
    *out = 0;
    if (rc != 0)
        return rc;
    if ((rc = ls_stmt_step(q)) == 1 && !ls_stmt_isnull(q, LS_ONLY_COLUMN))
        *out = ls_stmt_int64(q, LS_ONLY_COLUMN);
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

int ls_correlate_span_times(ls_store *s, ls_correlate_stats *stats)
{
    span_times t;
    ls_stmt *q = NULL;
    int64_t guess = 0, offset = 0, half = 0, shift = 0, res = LS_WHOLE_SECOND_US, changed = 0;
    int rc, applies = 0;
    size_t i;

    memset(&t, 0, sizeof(t));
    if ((rc = ls_store_prepare(s, applies_sql, &q)) != 0)
        return rc;
    if ((rc = ls_stmt_step(q)) == 1)
        applies = (int)ls_stmt_int64(q, LS_ONLY_COLUMN);
    ls_stmt_finalize(q);
    if (rc < 0 || !applies)
        return rc < 0 ? rc : 0;
    if ((rc = first_offset(s, &guess)) != 0 || (rc = load_spans(s, &t)) != 0 ||
        (rc = load_statements(s, &t)) != 0 || (rc = build_indexes(&t)) != 0 ||
        (rc = measure_offset(&t, res, guess, &offset, &half)) != 0)
        goto out;
    /* Spans on the database clock; the keys' order is unchanged. */
    for (i = 0; i < t.nsp; i++) {
        t.sp[i].it.ts += offset;
        t.sp[i].end += offset;
    }
    for (i = 0; i < t.ntr; i++)
        t.tr_first[i].b += offset;
    for (i = 0; i < t.nst; i++) {
        size_t k = t.log_order[i].idx;
        if (!t.st[k].span)
            pair_statement(&t, k, res, SPAN_TIME_SLACK_US + half);
    }
    if ((rc = refine_offset(&t, res, &shift)) != 0)
        goto out;
    for (i = 0; i < t.nsp; i++) {
        t.sp[i].it.ts += shift;
        t.sp[i].end += shift;
    }
    offset += shift;
    rc = write_pairs(s, &t, res, &changed);
    if (rc == 0 && changed)
        stats->clock_offset_us = offset;
out:
    times_free(&t);
    return rc;
}
