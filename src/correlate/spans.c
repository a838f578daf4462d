/*
 * spans.c — statements from the application's database spans, for the
 * sessions the log shows no statements of.
 *
 * With statement logging off, a trace that records each database call
 * (db.statement or db.query.text, its start and end, the backend pid)
 * knows what the log does not: when each statement of a session ran, so
 * when a transaction locked a hot row and when its COMMIT returned. Each
 * such span becomes a statement (verb 'span') of the session its pid had
 * then, and the passes after this one (transactions, holds, hidden waits)
 * read it as they read a statement logged with its duration.
 *
 * Spans are on the application's clock. The offset to the database's is
 * measured on the logged lock waits: a wait of pid P from S to E (database
 * clock) lies inside the span of P that ran the waiting statement, so
 * span.start + offset <= S and span.end + offset >= E. Each candidate
 * span gives an interval of offsets; the offset is the middle of the
 * range most waits agree on (a wrong span of the same pid gives an
 * interval a statement's length away, which other waits do not share).
 * With no logged wait to measure on, the clocks are taken as equal.
 *
 * A span without a backend pid is not placed in a session (its
 * transaction's other statements could be anyone's): it is left out.
 */
#include <stdlib.h>
#include <string.h>

#include "correlate_int.h"

#define MAX_SKEW_US 60000000LL /* clock offsets searched: +-60 s */
#define LOG_SLACK_US 1000       /* millisecond log times */

/* Logged waits, with the waiting statement's text when the log has it. */
static const char waits_sql[] =
    "SELECT pid, start_ts, coalesce(end_ts, logged_ts), statement FROM lock_waits"
    " WHERE pid IS NOT NULL AND start_ts IS NOT NULL ORDER BY wait_id";

/* The spans of the pid long enough to hold the wait, near it. */
static const char candidates_sql[] =
    "SELECT start_ts, end_ts FROM spans WHERE db_pid = ?1 AND start_ts BETWEEN ?2 AND ?3"
    " AND end_ts - start_ts >= ?4 AND (?5 IS NULL OR db_statement = ?5)"
    " ORDER BY start_ts LIMIT 64";

/* The session a pid had at time T (as transactions.c's SESSION_OF). */
#define SESSION_OF(PID, T)                                                               \
    "(SELECT se.session_id FROM sessions se WHERE se.pid = " PID                        \
    " AND coalesce(se.start_ts, se.first_ts, 0) <= " T                                  \
    " ORDER BY coalesce(se.start_ts, se.first_ts, 0) DESC LIMIT 1)"

/* Each database span with a pid, of a session the log has no statements
 * of, in (session, start) order: the transactions pass reads a session's
 * statements in stmt_id order. */
static const char insert_sql[] =
    "INSERT INTO statements(session_id, pid, log_ts, start_ts, end_ts, duration_ms, verb, text)"
    " SELECT x.sid, x.pid, x.t0, x.t0, x.t1, (x.t1 - x.t0) / 1000.0, 'span', x.text"
    " FROM (SELECT " SESSION_OF("sp.db_pid", "sp.start_ts + ?1") " AS sid,"
    "  sp.db_pid AS pid, sp.start_ts + ?1 AS t0, sp.end_ts + ?1 AS t1,"
    "  sp.db_statement AS text FROM spans sp"
    "  WHERE sp.db_pid IS NOT NULL AND sp.db_statement IS NOT NULL) x"
    " WHERE x.sid IS NOT NULL AND NOT EXISTS (SELECT 1 FROM statements st"
    "  WHERE st.session_id = x.sid AND st.verb IS NOT 'span')"
    " ORDER BY x.sid, x.t0";

typedef struct offset_edge {
    int64_t at;
    int delta; /* +1 an interval opens, -1 it closes */
} offset_edge;

static int by_edge(const void *a, const void *b)
{
    const offset_edge *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    return y->delta - x->delta; /* opens first: touching intervals agree */
}

/*
 * The offset most intervals contain: the middle of the first range of
 * greatest depth. Returns the depth (0: no interval).
 */
int ls_span_offset(const int64_t *lo, const int64_t *hi, int n, int64_t *offset)
{
    offset_edge *e = n ? ls_calloc((size_t)n * 2, sizeof(*e)) : NULL;
    int i, depth = 0, best = 0;
    int64_t best_lo = 0, best_hi = 0;

    if (!e)
        return 0;
    for (i = 0; i < n; i++) {
        e[2 * i].at = lo[i];
        e[2 * i].delta = 1;
        e[2 * i + 1].at = hi[i];
        e[2 * i + 1].delta = -1;
    }
    qsort(e, (size_t)n * 2, sizeof(*e), by_edge);
    for (i = 0; i < 2 * n; i++) {
        depth += e[i].delta;
        if (depth > best) {
            best = depth;
            best_lo = e[i].at;
            best_hi = i + 1 < 2 * n ? e[i + 1].at : e[i].at;
        }
    }
    free(e);
    if (best)
        *offset = best_lo + (best_hi - best_lo) / 2;
    return best;
}

/* Measure the application's clock offset on the logged waits. */
static int measure_offset(ls_store *s, int64_t *offset, int64_t *depth)
{
    ls_stmt *w = NULL, *c = NULL;
    int64_t *lo = NULL, *hi = NULL;
    size_t n = 0, cap = 0;
    int rc;

    *offset = 0;
    *depth = 0;
    if ((rc = ls_store_prepare(s, waits_sql, &w)) != 0 ||
        (rc = ls_store_prepare(s, candidates_sql, &c)) != 0)
        goto out;
    while ((rc = ls_stmt_step(w)) == 1) {
        int64_t ws = ls_stmt_int64(w, 1), we = ls_stmt_int64(w, 2);
        ls_stmt_reset(c);
        ls_stmt_bind_int64(c, 1, ls_stmt_int64(w, 0));
        ls_stmt_bind_int64(c, 2, ws - MAX_SKEW_US);
        ls_stmt_bind_int64(c, 3, ws + MAX_SKEW_US);
        ls_stmt_bind_int64(c, 4, we - ws - 2 * LOG_SLACK_US);
        if (!ls_stmt_isnull(w, 3))
            ls_stmt_bind_text(c, 5, ls_stmt_text(w, 3));
        while ((rc = ls_stmt_step(c)) == 1) {
            if (n == cap) {
                size_t ncap = cap ? cap * 2 : 256;
                int64_t *nl = ls_realloc(lo, ncap * sizeof(*lo)), *nh;
                if (!nl) {
                    rc = LS_ENOMEM;
                    goto out;
                }
                lo = nl;
                if (!(nh = ls_realloc(hi, ncap * sizeof(*hi)))) {
                    rc = LS_ENOMEM;
                    goto out;
                }
                hi = nh;
                cap = ncap;
            }
            /* start + offset <= ws, end + offset >= we */
            lo[n] = we - ls_stmt_int64(c, 1) - LOG_SLACK_US;
            hi[n] = ws - ls_stmt_int64(c, 0) + LOG_SLACK_US;
            if (lo[n] <= hi[n])
                n++;
        }
        if (rc < 0)
            goto out;
    }
    if (rc == 0 && n)
        *depth = ls_span_offset(lo, hi, (int)n, offset);
out:
    free(lo);
    free(hi);
    ls_stmt_finalize(w);
    ls_stmt_finalize(c);
    return rc < 0 ? rc : 0;
}

int ls_correlate_spans(ls_store *s, ls_correlate_stats *stats)
{
    ls_stmt *ins = NULL;
    int64_t offset, depth, n = 0;
    int rc;

    if ((rc = ls_store_exec(s, "CREATE INDEX IF NOT EXISTS spans_pid ON spans(db_pid, start_ts)"
                               " WHERE db_pid IS NOT NULL")) != 0 ||
        (rc = measure_offset(s, &offset, &depth)) != 0 ||
        (rc = ls_store_prepare(s, insert_sql, &ins)) != 0)
        return rc;
    ls_stmt_bind_int64(ins, 1, offset);
    rc = ls_stmt_step(ins);
    ls_stmt_finalize(ins);
    ins = NULL;
    if (rc >= 0 && (rc = ls_store_prepare(s, "SELECT count(*) FROM statements"
                                             " WHERE verb = 'span'", &ins)) == 0 &&
        (rc = ls_stmt_step(ins)) == 1)
        n = ls_stmt_int64(ins, 0);
    ls_stmt_finalize(ins);
    if (rc < 0)
        return rc;
    /* The code-paths pass links spans with the same offset, unless
     * sqlcommenter links measure it there. */
    stats->span_statements = n;
    if (n)
        stats->clock_offset_us = offset;
    (void)depth;
    return 0;
}
