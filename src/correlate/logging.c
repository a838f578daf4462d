/*
 * logging.c — the "statement logging" pass: whether the log's statement
 * logging can bound a hold (decide/logcover.c decides), from the counts
 * of the statements and the holds by their end's evidence, stored in the
 * one row of logcover (logcover_schema.h) that the report reads
 * (reports/coverage.c): input.logging and each hold's hold_at_least.
 *
 * The statement counts are ingest's (stmt_stats, counted as each row was
 * written) when meta 'stmt_stats' says they cover every row, else one
 * scan of the statements (a store upgraded with statements, or cut by
 * --retention). Either way the statements the spans pass timed
 * (stmt_span_time: temp.stmt_rows gives them the span's dur_us,
 * ls_store_stmt_views) count as timed, as a scan after that pass sees them.
 *
 * A report window (--since/--until) has its own holds: scope.c asks
 * ls_correlate_logcover_scope() for a temp.logcover over them, with the
 * statement counts of the stored row (the window does not narrow them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "correlate_int.h"
#include "ls_common.h"
#include "logcover_schema.h"
#include "ls_buf.h"
#include "ls_columns.h"
#include "ls_logcover.h"
#include "ls_sqlshape.h"

#define SPAN_VERB "5" /* LS_VERB_SPAN (ls_store.h): made from a trace span */

/* Does stmt_stats count every statement row? */
static const char counted_sql[] =
    "SELECT (SELECT value FROM meta WHERE key = 'stmt_stats') IS 'complete'";

#define STATS_COLS(X, Q)                                    \
    X(Q, statements, "coalesce(sum(statements), 0)")        \
    X(Q, timed, "coalesce(sum(timed), 0)")                  \
    X(Q, min_us, "min(min_dur_us)")                         \
    X(Q, tx_control, "coalesce(sum(tx_control), 0)")
LS_COLUMNS(ss, STATS_COLS);
static const char stats_sql[] = "SELECT " LS_SELECT_LIST(ss, STATS_COLS) " FROM stmt_stats";

/* The statements the spans pass timed: no duration at ingest, the span's
 * now. stmt_span_time first (CROSS JOIN): the planner, without
 * statistics, scanned every statement row for its key in stmt_span_time,
 * 7.5 M SQLite VM steps at 1 GiB with the table empty. */
#define SPAN_TIMED_COLS(X, Q)               \
    X(Q, timed, "count(st.dur_us)")         \
    X(Q, min_us, "min(st.dur_us)")
LS_COLUMNS(sp, SPAN_TIMED_COLS);
static const char span_timed_sql[] =
    "SELECT " LS_SELECT_LIST(sp, SPAN_TIMED_COLS) " FROM stmt_span_time x"
    " CROSS JOIN stmt_rows st ON st.stmt_id = x.stmt_id WHERE st.verb <> " SPAN_VERB;

/* Statements taken from spans: counted when no statement was logged, the
 * one case where they decide (ls_logcover_decide). */
static const char from_spans_sql[] =
    "SELECT count(*) FROM stmt_rows WHERE verb = " SPAN_VERB;

/* The scan, for a store whose stmt_stats does not count every row: the
 * statement texts, whose kind (ls_sql_kind_of) says which are the
 * transaction control (stmt_texts.kind is NULL in stores of schema before
 * 14, so it is decided from the text here): a few distinct texts, whose
 * ids go into the statements' scan as a list. Past TXC_IDS_MAX such texts
 * (a log whose BEGINs carry comments) the list would grow with the log:
 * they are counted by a second, grouped scan. */
#define TXC_IDS_MAX 1024
static const char texts_sql[] = "SELECT text_id, text FROM stmt_texts";
#define SCAN_COLS(X, Q)                                                  \
    X(Q, statements, "count(*)")                                         \
    X(Q, timed, "count(st.dur_us)")                                      \
    X(Q, min_us, "min(st.dur_us)")                                       \
    X(Q, tx_control, "coalesce(sum(st.text_id IN (%s)), 0)")
LS_COLUMNS(sc, SCAN_COLS);
/* %s: the list of ids */
static const char scan_fmt[] =
    "SELECT " LS_SELECT_LIST(sc, SCAN_COLS) " FROM stmt_rows st WHERE st.verb <> " SPAN_VERB;
static const char texts_grouped_sql[] =
    "SELECT t.text_id, t.text, n.n FROM (SELECT text_id, count(*) AS n FROM stmt_rows"
    " WHERE verb <> " SPAN_VERB " GROUP BY 1) n JOIN stmt_texts t USING (text_id)";
enum { TX_ID, TX_TEXT, TX_N };

/* The holds by their end's evidence, a handful of kinds: the pass's
 * grouped by the evidence's id in hold_final (what the view holds reads),
 * its text looked up once per kind; a window's from its view holds. Read
 * only when the verdict is not complete (then some ends may be "at
 * least"): a complete verdict needs only how many holds there are
 * (holds_count_sql, window_count_sql; the verdict depends on them only
 * when no statement was logged), and the grouped scan cost 12 SQLite VM
 * steps a hold (5.1 M of the pass's 5.1 M at 1 GiB, issue 38). */
static const char holds_count_sql[] = "SELECT count(*) FROM hold_final";
static const char window_count_sql[] = "SELECT count(*) FROM holds";
static const char holds_sql[] =
    "SELECT (SELECT e.text FROM hold_final_evidence e WHERE e.evidence_id = g.ev), g.n"
    " FROM (SELECT end_evidence AS ev, count(*) AS n FROM hold_final GROUP BY 1) g";
static const char window_holds_sql[] = "SELECT end_evidence, count(*) FROM holds GROUP BY 1";
enum { H_EVIDENCE, H_N };

/* The stored row's statement counts (a window's row takes them). */
#define STORED_COLS(X, Q)                   \
    X(Q, statements, "statements")          \
    X(Q, from_spans, "from_spans")          \
    X(Q, timed, "timed")                    \
    X(Q, shortest_ms, "shortest_ms")        \
    X(Q, tx_control, "tx_control")
LS_COLUMNS(sr, STORED_COLS);
static const char stored_sql[] = "SELECT " LS_SELECT_LIST(sr, STORED_COLS) " FROM main.logcover";

/* %s the database's prefix ("" or "temp."). */
LS_TABLE_COLUMNS(logcover);
#define INSERT_FMT LS_INSERT_INTO_IN("INSERT", "%s", logcover)
#define INSERT_SQL_MAX 256

static const char scope_enter_sql[] =
    "CREATE TEMP TABLE IF NOT EXISTS logcover" LS_LOGCOVER_COLS "; DELETE FROM temp.logcover;";

/* The statements' counts so far, and the shortest duration in µs. */
typedef struct stmt_counts {
    ls_logcover_in in;
    int64_t min_us; /* when in.timed > 0 */
} stmt_counts;

/* Adds `timed` durations, the shortest `min_us`, to c. */
static void add_timed(stmt_counts *c, int64_t timed, int64_t min_us)
{
    if (timed <= 0)
        return;
    if (c->in.timed == 0 || min_us < c->min_us)
        c->min_us = min_us;
    c->in.timed += timed;
}

/* Reads the one row of `sql` through `row`: 0 or an error code. */
static int one_row(ls_store *s, const char *sql, void (*row)(ls_stmt *q, void *arg), void *arg)
{
    ls_stmt *q = NULL;
    int rc;

    if ((rc = ls_store_prepare(s, sql, &q)) != 0)
        return rc;
    if ((rc = ls_stmt_step(q)) == 1)
        row(q, arg);
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

static void stats_row(ls_stmt *q, void *arg)
{
    stmt_counts *c = arg;
    c->in.statements = ls_stmt_int64(q, ss_statements);
    c->in.tx_control = ls_stmt_int64(q, ss_tx_control);
    add_timed(c, ls_stmt_int64(q, ss_timed), ls_stmt_int64(q, ss_min_us));
}

static void span_timed_row(ls_stmt *q, void *arg)
{
    add_timed(arg, ls_stmt_int64(q, sp_timed), ls_stmt_int64(q, sp_min_us));
}

static void scan_row(ls_stmt *q, void *arg)
{
    stmt_counts *c = arg;
    c->in.statements = ls_stmt_int64(q, sc_statements);
    c->in.tx_control += ls_stmt_int64(q, sc_tx_control);
    add_timed(c, ls_stmt_int64(q, sc_timed), ls_stmt_int64(q, sc_min_us));
}

static void int_row(ls_stmt *q, void *arg)
{
    *(int64_t *)arg = ls_stmt_int64(q, LS_ONLY_COLUMN);
}

static int is_tx_control(const char *text)
{
    ls_sql_kind k = ls_sql_kind_of(text);
    return k == LS_SQL_BEGIN || k == LS_SQL_COMMIT || k == LS_SQL_ROLLBACK;
}

static int is_read(const char *text)
{
    return ls_sql_kind_of(text) == LS_SQL_READ;
}

/* ids: the ids of the texts that are BEGIN, COMMIT or ROLLBACK (or
 * whatever `is` says), "a,b,c" ("NULL" for none); 1 when there are more
 * than TXC_IDS_MAX of them (ids then unused), 0, or an error code. */
static int txc_ids(ls_store *s, ls_buf *ids, int (*is)(const char *text))
{
    ls_stmt *q = NULL;
    size_t n = 0;
    int rc;

    if ((rc = ls_store_prepare(s, texts_sql, &q)) != 0)
        return rc;
    while ((rc = ls_stmt_step(q)) == 1) {
        char id[24];
        if (!is(ls_stmt_text(q, TX_TEXT)))
            continue;
        if (++n > TXC_IDS_MAX) {
            rc = 1;
            break;
        }
        snprintf(id, sizeof(id), "%s%lld", n > 1 ? "," : "", (long long)ls_stmt_int64(q, TX_ID));
        ls_buf_adds(ids, id);
    }
    ls_stmt_finalize(q);
    if (rc < 0)
        return rc;
    if (n == 0)
        ls_buf_adds(ids, "NULL");
    if (ls_buf_failed(ids))
        return LS_ENOMEM;
    return rc == 1 ? 1 : 0;
}

/* The transaction control (or what `is` says) counted text by text (too
 * many texts for a list), added to *n. */
static int txc_grouped(ls_store *s, int64_t *n, int (*is)(const char *text))
{
    ls_stmt *q = NULL;
    int rc;

    if ((rc = ls_store_prepare(s, texts_grouped_sql, &q)) != 0)
        return rc;
    while ((rc = ls_stmt_step(q)) == 1)
        if (is(ls_stmt_text(q, TX_TEXT)))
            *n += ls_stmt_int64(q, TX_N);
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

/* c's counts by one scan of the statements (and a grouped one past
 * TXC_IDS_MAX transaction-control texts). */
static int scan_statements(ls_store *s, stmt_counts *c)
{
    ls_buf ids = LS_BUF_INIT(0), sql = LS_BUF_INIT(0);
    int many = txc_ids(s, &ids, is_tx_control), rc = many < 0 ? many : 0;

    if (rc == 0) {
        ls_buf_printf(&sql, scan_fmt, many ? "NULL" : ls_buf_str(&ids));
        rc = ls_buf_failed(&sql) ? LS_ENOMEM : one_row(s, ls_buf_str(&sql), scan_row, c);
    }
    if (rc == 0 && many)
        rc = txc_grouped(s, &c->in.tx_control, is_tx_control);
    ls_buf_free(&ids);
    ls_buf_free(&sql);
    return rc;
}

/* The logged plain reads, when they decide the verdict
 * (ls_logcover_reads_needed: no BEGIN/COMMIT and no duration logged, a
 * rare log; the scan costs nothing on the others): one count over the
 * statements whose text is a read (or a grouped one past TXC_IDS_MAX such
 * texts). A window's row counts them again (not stored). */
static const char reads_fmt[] =
    "SELECT count(*) FROM stmt_rows WHERE verb <> " SPAN_VERB " AND text_id IN (%s)";

static int count_reads(ls_store *s, ls_logcover_in *in)
{
    ls_buf ids = LS_BUF_INIT(0), sql = LS_BUF_INIT(0);
    int many, rc;

    in->reads = 0;
    if (!ls_logcover_reads_needed(in))
        return 0;
    many = txc_ids(s, &ids, is_read);
    rc = many < 0 ? many : 0;
    if (rc == 0 && many)
        rc = txc_grouped(s, &in->reads, is_read);
    else if (rc == 0) {
        ls_buf_printf(&sql, reads_fmt, ls_buf_str(&ids));
        rc = ls_buf_failed(&sql) ? LS_ENOMEM : one_row(s, ls_buf_str(&sql), int_row, &in->reads);
    }
    ls_buf_free(&ids);
    ls_buf_free(&sql);
    return rc;
}

/* The statements' counts: ingest's and the spans pass's timings, or a
 * scan; the statements taken from spans when none was logged. */
static int count_statements(ls_store *s, ls_logcover_in *in)
{
    stmt_counts c;
    int64_t counted = 0;
    int rc;

    memset(&c, 0, sizeof(c));
    if ((rc = one_row(s, counted_sql, int_row, &counted)) != 0)
        return rc;
    if (counted)
        rc = one_row(s, stats_sql, stats_row, &c);
    if (rc == 0 && counted)
        rc = one_row(s, span_timed_sql, span_timed_row, &c);
    if (rc == 0 && !counted)
        rc = scan_statements(s, &c);
    if (rc == 0 && c.in.statements == 0)
        rc = one_row(s, from_spans_sql, int_row, &c.in.from_spans);
    c.in.shortest_ms = c.in.timed > 0 ? (double)c.min_us / 1000.0 : 0;
    *in = c.in;
    return rc;
}

/* The verdict from the statements alone (no holds counted yet: the
 * logical-rows pass asks it before there are any; a log with statements
 * is judged the same either way). */
int ls_correlate_stmt_logging(ls_store *s, ls_logcover *verdict)
{
    ls_logcover_in in;
    int rc;
    *verdict = LS_LOGCOVER_COMPLETE;
    if ((rc = count_statements(s, &in)) != 0)
        return rc;
    in.holds = 0;
    *verdict = ls_logcover_decide(&in);
    return 0;
}

/* The holds (rows of `sql`: an evidence text or NULL, a count) and, once
 * the verdict is known, those whose end is only "at least": in->holds,
 * *verdict and *open. */
static int decide_holds(ls_store *s, const char *sql, ls_logcover_in *in, ls_logcover *verdict,
                        int64_t *open)
{
    /* A handful of evidence kinds: summed first, then each asked. */
    enum { END_KINDS_MAX = 64 };
    char *evidence[END_KINDS_MAX]; /* NULL: no evidence */
    int64_t holds[END_KINDS_MAX], other = 0;
    size_t n = 0, i;
    ls_stmt *q = NULL;
    int rc;

    if ((rc = ls_store_prepare(s, sql, &q)) != 0)
        return rc;
    while ((rc = ls_stmt_step(q)) == 1) {
        int64_t k = ls_stmt_int64(q, H_N);
        char *ev = NULL;
        if (n == END_KINDS_MAX) { /* past it: never "at least" */
            other += k;
            continue;
        }
        if (!ls_stmt_isnull(q, H_EVIDENCE) && !(ev = ls_strdup(ls_stmt_text(q, H_EVIDENCE)))) {
            rc = LS_ENOMEM;
            break;
        }
        evidence[n] = ev;
        holds[n++] = k;
    }
    ls_stmt_finalize(q);
    in->holds = other;
    for (i = 0; i < n; i++)
        in->holds += holds[i];
    *verdict = ls_logcover_decide(in);
    *open = 0;
    for (i = 0; i < n; i++) {
        if (ls_logcover_open_end(*verdict, evidence[i]))
            *open += holds[i];
        free(evidence[i]);
    }
    return rc < 0 ? rc : 0;
}

/* As decide_holds(), the holds counted by `count_sql` first: when that
 * count makes the verdict complete, no hold's end is "at least" and the
 * holds by evidence (`grouped_sql`) are not read. */
static int count_holds(ls_store *s, const char *count_sql, const char *grouped_sql,
                       ls_logcover_in *in, ls_logcover *verdict, int64_t *open)
{
    int rc;

    in->holds = 0;
    if ((rc = one_row(s, count_sql, int_row, &in->holds)) != 0)
        return rc;
    *verdict = ls_logcover_decide(in);
    *open = 0;
    if (*verdict == LS_LOGCOVER_COMPLETE)
        return 0;
    return decide_holds(s, grouped_sql, in, verdict, open);
}

/* Writes in, the verdict and the open holds as the one row of logcover
 * in database `db` ("" or "temp."). */
static int write_row(ls_store *s, const char *db, const ls_logcover_in *in, ls_logcover verdict,
                     int64_t open)
{
    char sql[INSERT_SQL_MAX];
    ls_stmt *q = NULL;
    int rc;

    snprintf(sql, sizeof(sql), INSERT_FMT, db);
    if ((rc = ls_store_prepare(s, sql, &q)) != 0)
        return rc;
    ls_stmt_bind_int64(q, LS_PARAM(logcover, statements), in->statements);
    ls_stmt_bind_int64(q, LS_PARAM(logcover, from_spans), in->from_spans);
    ls_stmt_bind_int64(q, LS_PARAM(logcover, timed), in->timed);
    ls_stmt_bind_double(q, LS_PARAM(logcover, shortest_ms), in->shortest_ms);
    ls_stmt_bind_int64(q, LS_PARAM(logcover, tx_control), in->tx_control);
    ls_stmt_bind_int64(q, LS_PARAM(logcover, holds), in->holds);
    ls_stmt_bind_int64(q, LS_PARAM(logcover, holds_at_least), open);
    ls_stmt_bind_int64(q, LS_PARAM(logcover, verdict), (int64_t)verdict);
    rc = ls_stmt_step(q);
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

int ls_correlate_logging(ls_store *s, ls_correlate_stats *stats)
{
    ls_logcover_in in;
    ls_logcover verdict;
    int64_t open;
    int rc;

    (void)stats;
    memset(&in, 0, sizeof(in));
    if ((rc = count_statements(s, &in)) == 0 && (rc = count_reads(s, &in)) == 0 &&
        (rc = count_holds(s, holds_count_sql, holds_sql, &in, &verdict, &open)) == 0)
        rc = write_row(s, "", &in, verdict, open);
    return rc;
}

static void stored_row(ls_stmt *q, void *arg)
{
    ls_logcover_in *in = arg;
    in->statements = ls_stmt_int64(q, sr_statements);
    in->from_spans = ls_stmt_int64(q, sr_from_spans);
    in->timed = ls_stmt_int64(q, sr_timed);
    in->shortest_ms = ls_stmt_double(q, sr_shortest_ms);
    in->tx_control = ls_stmt_int64(q, sr_tx_control);
}

int ls_correlate_logcover_scope(ls_store *s)
{
    ls_logcover_in in;
    ls_logcover verdict;
    int64_t open;
    int rc;

    memset(&in, 0, sizeof(in));
    if ((rc = ls_store_exec(s, scope_enter_sql)) == 0 &&
        (rc = one_row(s, stored_sql, stored_row, &in)) == 0 && (rc = count_reads(s, &in)) == 0 &&
        (rc = count_holds(s, window_count_sql, window_holds_sql, &in, &verdict, &open)) == 0)
        rc = write_row(s, "temp.", &in, verdict, open);
    return rc;
}

int ls_correlate_tx_ends_unlogged(ls_store *s, int *unlogged)
{
    ls_logcover_in in;
    int rc;

    memset(&in, 0, sizeof(in));
    *unlogged = 0;
    if ((rc = count_statements(s, &in)) == 0 && (rc = count_reads(s, &in)) == 0)
        *unlogged = ls_logcover_tx_ends_unlogged(&in);
    return rc;
}
