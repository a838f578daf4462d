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
#include <stdint.h>
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
static const char spans_sql[] =
    "SELECT x.sid, x.pid, x.t0, x.dur, x.text"
    " FROM (SELECT " SESSION_OF("sp.db_pid", "sp.start_ts + ?1") " AS sid,"
    "  sp.db_pid AS pid, sp.start_ts + ?1 AS t0, sp.end_ts - sp.start_ts AS dur,"
    "  sp.db_statement AS text FROM spans sp"
    "  WHERE sp.db_pid IS NOT NULL AND sp.db_statement IS NOT NULL) x"
    " WHERE x.sid IS NOT NULL AND NOT EXISTS (SELECT 1 FROM stmt_rows st"
    "  WHERE st.session_id = x.sid AND st.verb IS NOT 'span')"
    " ORDER BY x.sid, x.t0";

/* Texts are kept once, by the FNV-1a hash ingest uses (store.c); the ones
 * added here stay for the next run to find. */
static const char text_find_sql[] = "SELECT text_id FROM stmt_texts WHERE hash = ?1 AND text = ?2";
static const char text_insert_sql[] = "INSERT INTO stmt_texts(hash, text) VALUES (?1, ?2)"
                                      " RETURNING text_id";
static const char insert_sql[] =
    "INSERT INTO stmt_rows(session_id, pid, start_ts, dur_us, verb, text_id)"
    " VALUES (?1, ?2, ?3, ?4, 'span', ?5)";

static int64_t text_hash(const char *t)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *t; t++)
        h = (h ^ (unsigned char)*t) * 0x100000001b3ULL;
    return (int64_t)h;
}

/* The text_id of text, added when new. */
static int text_id(ls_stmt *find, ls_stmt *add, const char *text, int64_t *out)
{
    int64_t h = text_hash(text);
    int rc;
    ls_stmt_reset(find);
    ls_stmt_bind_int64(find, 1, h);
    ls_stmt_bind_text(find, 2, text);
    if ((rc = ls_stmt_step(find)) < 0)
        return rc;
    if (rc == 0) {
        ls_stmt_reset(add);
        ls_stmt_bind_int64(add, 1, h);
        ls_stmt_bind_text(add, 2, text);
        if ((rc = ls_stmt_step(add)) != 1)
            return rc < 0 ? rc : LS_ESTORE;
        *out = ls_stmt_int64(add, 0);
        ls_stmt_reset(add);
        return 0;
    }
    *out = ls_stmt_int64(find, 0);
    return 0;
}

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
    ls_stmt *q = NULL, *find = NULL, *add = NULL, *ins = NULL;
    int64_t offset, depth, n = 0;
    int rc;

    if ((rc = ls_store_exec_sorting(s, "CREATE INDEX IF NOT EXISTS spans_pid ON"
                                       " spans(db_pid, start_ts)"
                                       " WHERE db_pid IS NOT NULL")) != 0 ||
        (rc = measure_offset(s, &offset, &depth)) != 0 ||
        (rc = ls_store_prepare(s, spans_sql, &q)) != 0 ||
        (rc = ls_store_prepare(s, text_find_sql, &find)) != 0 ||
        (rc = ls_store_prepare(s, text_insert_sql, &add)) != 0 ||
        (rc = ls_store_prepare(s, insert_sql, &ins)) != 0)
        goto out;
    ls_stmt_bind_int64(q, 1, offset);
    while ((rc = ls_stmt_step(q)) == 1) {
        int64_t tid;
        if ((rc = text_id(find, add, ls_stmt_text(q, 4), &tid)) != 0)
            goto out;
        ls_stmt_reset(ins);
        ls_stmt_bind_int64(ins, 1, ls_stmt_int64(q, 0));
        ls_stmt_bind_int64(ins, 2, ls_stmt_int64(q, 1));
        ls_stmt_bind_int64(ins, 3, ls_stmt_int64(q, 2));
        ls_stmt_bind_int64(ins, 4, ls_stmt_int64(q, 3));
        ls_stmt_bind_int64(ins, 5, tid);
        if ((rc = ls_stmt_step(ins)) < 0)
            goto out;
        n++;
    }
    /* The code-paths pass links spans with the same offset, unless
     * sqlcommenter links measure it there. */
    stats->span_statements = n;
    if (n)
        stats->clock_offset_us = offset;
    (void)depth;
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(find);
    ls_stmt_finalize(add);
    ls_stmt_finalize(ins);
    return rc < 0 ? rc : 0;
}
