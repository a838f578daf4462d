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
 * measured on what the log shows running inside a span: a logged wait of
 * pid P from S to E (database clock) lies inside the span of P that ran
 * the waiting statement, so span.start + offset <= S and span.end + offset
 * >= E; so does a logged statement inside the span that sent it (same
 * text, and same pid when the span has one; a duration line gives its
 * start and end, a log_statement line its start alone). Each candidate
 * span gives an interval of offsets; the offset is the middle of the range
 * most of them agree on (a wrong span gives an interval a statement's
 * length away, which others do not share). Logged waits are used first;
 * without any, logged statements; with neither, the clocks are taken as
 * equal. The offset, what measured it and how many agreed are kept in
 * span_clock.
 *
 * A span without a backend pid is placed in a session only on unique
 * evidence: the other database spans of its trace name one pid (a
 * request's calls run on one connection), else one session logged a
 * statement of its text within MATCH_US of its start (then the log already
 * has the statement), else the spans of its trace placed so far name one
 * pid, else, where several sessions' statements matched, one pid's logged
 * statements ran inside every such span of its trace still not placed
 * (place_by_trace_fit, ls_span_trace_pid). An ORM's span that wraps its driver's span of the same statement
 * (knex's "?" text around pg's "$1", TypeORM's ":orm_param_0"), or whose
 * text is the ORM's JSON record of its call over its one database child
 * (TypeORM's increment), is that statement, not another: it is kept as
 * such and never placed. Each such span and where it went, or
 * why it could not be placed, is kept in span_placement for the report.
 *
 * Also here, for the code-paths pass: each transaction's anchor in its
 * trace (ls_correlate_span_anchors), the span whose children explain the
 * time of its holds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corr_tables.h"
#include "correlate_int.h"
#include "decide/span.h"
#include "decide/tolerances.h"
#include "decide/victim.h"
#include "ls_columns.h"
#include "ls_params.h"
#include "ls_span.h"
#include "ls_sqlshape.h"

#define MAX_SKEW_US 60000000LL /* clock offsets searched: +-60 s */
#define MAX_OFFSET_STMTS 2000   /* logged statements the offset is measured on */
#define MATCH_US 20000          /* a span's start and its logged statement's, after the offset */

/* Logged waits, with the waiting statement's text when the log has it. */
#define WAIT_COLS(X, Q)                           \
    X(Q, pid, "pid")                              \
    X(Q, start_ts, "start_ts")                    \
    X(Q, end_ts, "coalesce(end_ts, logged_ts)")   \
    X(Q, statement, "statement")
LS_COLUMNS(wq, WAIT_COLS);
static const char waits_sql[] =
    "SELECT " LS_SELECT_LIST(wq, WAIT_COLS) " FROM lock_wait_rows"
    " WHERE pid IS NOT NULL AND start_ts IS NOT NULL ORDER BY wait_id";

/* Without logged waits: the first :limit logged statements whose text a
 * database span has. */
#define STMT_COLS(X, Q)                                          \
    X(Q, pid, LS_STMT_PID("st"))                                 \
    X(Q, start_ts, "st.start_ts")                                \
    X(Q, end_ts, "st.start_ts + coalesce(st.dur_us, 0)")         \
    X(Q, text, "t.text")
LS_COLUMNS(sq, STMT_COLS);
static const char stmts_sql[] =
    "SELECT " LS_SELECT_LIST(sq, STMT_COLS)
    " FROM stmt_rows st JOIN stmt_texts t ON t.text_id = st.text_id"
    " WHERE st.verb IS NOT 5 /* LS_VERB_SPAN */ AND st.start_ts IS NOT NULL AND EXISTS"
    "  (SELECT 1 FROM spans WHERE db_statement = t.text)" /* on spans_text */
    " ORDER BY st.stmt_id LIMIT :limit";
#define STMTS_PARAMS(X, Q) X(Q, limit)
LS_PARAMS(stp, STMTS_PARAMS);

/* The spans of that text (:text; of :pid, or of none) long enough to
 * hold it (:min_dur), near it (starting from :lo to :hi). */
#define CANDIDATE_COLS(X, Q)   \
    X(Q, start_ts, "start_ts") \
    X(Q, end_ts, "end_ts")
LS_COLUMNS(cq, CANDIDATE_COLS);
static const char stmt_candidates_sql[] =
    "SELECT " LS_SELECT_LIST(cq, CANDIDATE_COLS) " FROM spans WHERE db_statement = :text"
    " AND start_ts BETWEEN :lo AND :hi AND end_ts - start_ts >= :min_dur"
    " AND (db_pid IS NULL OR db_pid = :pid) ORDER BY start_ts LIMIT 64";
#define STMT_CANDIDATES_PARAMS(X, Q) X(Q, text) X(Q, lo) X(Q, hi) X(Q, min_dur) X(Q, pid)
LS_PARAMS(scp, STMT_CANDIDATES_PARAMS);

/* The spans of the pid long enough to hold the wait, near it (of its
 * statement's text, when the log has it: :text NULL, any). */
static const char candidates_sql[] =
    "SELECT " LS_SELECT_LIST(cq, CANDIDATE_COLS)
    " FROM spans WHERE db_pid = :pid AND start_ts BETWEEN :lo AND :hi"
    " AND end_ts - start_ts >= :min_dur AND (:text IS NULL OR db_statement = :text)"
    " ORDER BY start_ts LIMIT 64";
#define CANDIDATES_PARAMS(X, Q) X(Q, pid) X(Q, lo) X(Q, hi) X(Q, min_dur) X(Q, text)
LS_PARAMS(wcp, CANDIDATES_PARAMS);

/*
 * The sessions the log has no statements of, in session_id order (the
 * transactions pass reads a session's statements in stmt_id order), each
 * with the time its pid was next given to another session: the spans of
 * the pid from its start to then are its (SESSION_OF's choice).
 */
#define BLIND_SESSION_COLS(X, Q)                                          \
    X(Q, session_id, "se.session_id")                                     \
    X(Q, pid, "se.pid")                                                   \
    X(Q, t0, "coalesce(se.start_ts, se.first_ts, 0)")                     \
    X(Q, t1, "(SELECT min(coalesce(n.start_ts, n.first_ts, 0)) FROM sessions n" \
      " WHERE n.pid = se.pid AND coalesce(n.start_ts, n.first_ts, 0)"     \
      "  > coalesce(se.start_ts, se.first_ts, 0))")
LS_COLUMNS(bs, BLIND_SESSION_COLS);
static const char blind_sessions_sql[] =
    "SELECT " LS_SELECT_LIST(bs, BLIND_SESSION_COLS) " FROM sessions se"
    " WHERE se.pid IS NOT NULL AND NOT EXISTS (SELECT 1 FROM stmt_rows st"
    "  WHERE st.session_id = se.session_id AND st.verb IS NOT 5)" /* LS_VERB_SPAN */
    /* of two sessions of one pid and start, one takes the spans */
    " AND NOT EXISTS (SELECT 1 FROM sessions d WHERE d.pid = se.pid"
    "  AND coalesce(d.start_ts, d.first_ts, 0) = coalesce(se.start_ts, se.first_ts, 0)"
    "  AND d.session_id > se.session_id)"
    " ORDER BY se.session_id";

/* A session's spans, by start, on the database clock (:offset the
 * offset): those with its pid (:pid) walk spans_pid from its start
 * (:since) to the next session of the pid (:until, NULL: none), so no
 * span is sorted and a pid no session had is never read; those placed on
 * it (span_placement) are the spans without a pid, few, sorted here. */
#define SESSION_SPAN_COLS(X, Q)                \
    X(Q, start_ts, "sp.start_ts + :offset")    \
    X(Q, dur_us, "sp.end_ts - sp.start_ts")    \
    X(Q, text, "sp.db_statement")
LS_COLUMNS(ss, SESSION_SPAN_COLS);
static const char pid_spans_sql[] =
    "SELECT " LS_SELECT_LIST(ss, SESSION_SPAN_COLS) " FROM spans sp"
    " WHERE sp.db_pid = :pid AND sp.start_ts >= :since - :offset"
    " AND (:until IS NULL OR sp.start_ts < :until - :offset)"
    " AND sp.db_statement IS NOT NULL ORDER BY sp.start_ts";
static const char placed_spans_sql[] =
    "SELECT " LS_SELECT_LIST(ss, SESSION_SPAN_COLS)
    /* CROSS JOIN: the placed spans of the pid first (span_placement_pid),
     * not every span after :since on spans_start */
    " FROM span_placement p CROSS JOIN spans sp ON sp.span_row = p.span_row"
    " WHERE p.pid = :pid AND sp.start_ts >= :since - :offset"
    " AND (:until IS NULL OR sp.start_ts < :until - :offset)"
    " AND sp.db_statement IS NOT NULL ORDER BY sp.start_ts";
/* both session cursors' parameters */
#define SESSION_SPAN_PARAMS(X, Q) X(Q, offset) X(Q, pid) X(Q, since) X(Q, until)
LS_PARAMS(ssp, SESSION_SPAN_PARAMS);

/* span_placement: each database span without a backend pid; `pid` and
 * `how` (trace, logged statement) where it was placed, else `why` not. */
static const char placement_sql[] =
    "INSERT INTO span_placement(" LS_COLUMN_NAMES(span_placement) ")"
    " SELECT span_row, CASE WHEN n = 1 THEN pid END, CASE WHEN n = 1 THEN 'trace' END,"
    "  CASE WHEN n > 1 THEN 'the spans of its trace name several backend pids' END"
    " FROM (SELECT sp.span_row,"
    /* the other spans of its trace, on spans_id (trace_id, span_id): no
     * grouping of every span for the few without a pid */
    "  (SELECT count(DISTINCT o.db_pid) FROM spans o WHERE o.trace_id = sp.trace_id) AS n,"
    "  (SELECT min(o.db_pid) FROM spans o WHERE o.trace_id = sp.trace_id) AS pid"
    "  FROM spans sp NOT INDEXED" /* in table order: spans_text would read them at random */
    "  WHERE sp.db_pid IS NULL AND sp.db_statement IS NOT NULL);";

/* The ones no span of their trace placed, for the logged statements;
 * their times on the database clock (:offset). */
#define UNPLACED_COLS(X, Q)                 \
    X(Q, span_row, "p.span_row")            \
    X(Q, text, "sp.db_statement")           \
    X(Q, start_ts, "sp.start_ts + :offset") \
    X(Q, trace_id, "sp.trace_id")           \
    X(Q, end_ts, "sp.end_ts + :offset")
LS_COLUMNS(uq, UNPLACED_COLS);
static const char unplaced_sql[] =
    "SELECT " LS_SELECT_LIST(uq, UNPLACED_COLS) " FROM span_placement p"
    " JOIN spans sp ON sp.span_row = p.span_row WHERE p.how IS NULL AND p.why IS NULL";
#define UNPLACED_PARAMS(X, Q) X(Q, offset)
LS_PARAMS(upp, UNPLACED_PARAMS);

/* The sessions that logged a statement of that text (:text) then (:lo to :hi). */
#define LOGGED_MATCH_COLS(X, Q)                             \
    X(Q, sessions, "count(DISTINCT session_id)")            \
    X(Q, pid, "min(" LS_STMT_PID("stmt_rows") ")")
LS_COLUMNS(lm, LOGGED_MATCH_COLS);
static const char logged_match_sql[] =
    "SELECT " LS_SELECT_LIST(lm, LOGGED_MATCH_COLS) " FROM stmt_rows"
    " WHERE text_id = :text AND verb IS NOT 5 /* LS_VERB_SPAN */ AND start_ts BETWEEN :lo AND :hi";
#define LOGGED_MATCH_PARAMS(X, Q) X(Q, text) X(Q, lo) X(Q, hi)
LS_PARAMS(lmp, LOGGED_MATCH_PARAMS);

static const char place_sql[] =
    "UPDATE span_placement SET pid = :pid, how = :how, why = :why WHERE span_row = :span_row";
#define PLACE_PARAMS(X, Q) X(Q, pid) X(Q, how) X(Q, why) X(Q, span_row)
LS_PARAMS(plp, PLACE_PARAMS);

/* Why a span matched by several sessions was not placed (yet). */
#define WHY_SEVERAL "logged statements of several sessions match its text and time"
/* The pids whose sessions logged a statement of that text (:text) then
 * (:lo to :hi), for span :span_row of trace :trace: the candidates of one
 * matched by several, those whose statement ran inside the span (:lo is
 * its start less MATCH_US, :end its end; each bound widened by the
 * clock offset's own error): the span is the client's wait for the
 * statement, which a wait of its own lengthens (blind-ts: an UPDATE span
 * of 40.8 ms fits the session that waited, not its neighbour that ran the
 * text 7 ms before it). `outside`:
 * how far (µs) the pid's statement nearest to lying inside the span lies
 * outside it (before its start plus after its end; 0 inside), for
 * ls_span_trace_pid to tell several pids that fit a trace apart. */
static const char cands_sql[] =
    "DROP TABLE IF EXISTS temp.span_cands;"
    "CREATE TEMP TABLE span_cands(trace_id TEXT, pid INTEGER, span_row INTEGER,"
    " outside INTEGER, PRIMARY KEY(trace_id, pid, span_row)) WITHOUT ROWID;";
static const char cand_insert_sql[] =
    "INSERT INTO temp.span_cands(trace_id, pid, span_row, outside)"
    " SELECT :trace, " LS_STMT_PID("stmt_rows") ", :span_row,"
    "  max(0, :lo + " LS_SQL_INT(MATCH_US) " - start_ts)"
    "  + max(0, start_ts + coalesce(dur_us, 0) - :end) FROM stmt_rows"
    " WHERE text_id = :text AND verb IS NOT 5 /* LS_VERB_SPAN */ AND start_ts BETWEEN :lo AND :hi"
    " AND start_ts >= :lo + " LS_SQL_INT(MATCH_US) " - " LS_SQL_INT(LS_REQUEST_SLACK_US)
    " AND start_ts + coalesce(dur_us, 0) <= :end + " LS_SQL_INT(LS_REQUEST_SLACK_US)
    " AND " LS_STMT_PID("stmt_rows") " IS NOT NULL"
    " ON CONFLICT(trace_id, pid, span_row) DO UPDATE SET outside = min(outside, excluded.outside)";
#define CAND_INSERT_PARAMS(X, Q) X(Q, trace) X(Q, span_row) X(Q, lo) X(Q, end) X(Q, text) X(Q, hi)
LS_PARAMS(cip, CAND_INSERT_PARAMS);
/* Per trace with such spans: each candidate pid, the spans it fits, and
 * how many such spans the trace has (ls_span_trace_pid decides). */
#define TRACE_FIT_COLS(X, Q)               \
    X(Q, trace_id, "c.trace_id")           \
    X(Q, pid, "c.pid")                     \
    X(Q, fits, "count(*)")                 \
    X(Q, worst, "max(c.outside)")          \
    X(Q, k, "(SELECT count(*) FROM span_placement p JOIN spans sp ON sp.span_row = p.span_row" \
            " WHERE sp.trace_id = c.trace_id AND p.why = '" WHY_SEVERAL "')")
LS_COLUMNS(tf, TRACE_FIT_COLS);
static const char trace_fit_sql[] =
    "SELECT " LS_SELECT_LIST(tf, TRACE_FIT_COLS) " FROM temp.span_cands c"
    " JOIN span_placement u ON u.span_row = c.span_row AND u.why = '" WHY_SEVERAL "'"
    " GROUP BY c.trace_id, c.pid ORDER BY c.trace_id, c.pid";
/* Trace :trace's spans to pid :pid. */
static const char trace_place_sql[] =
    "UPDATE span_placement SET pid = :pid, how = 'logged statement', why = NULL"
    " WHERE why = '" WHY_SEVERAL "' AND span_row IN (SELECT span_row FROM temp.span_cands"
    " WHERE trace_id = :trace AND pid = :pid)";
#define TRACE_PLACE_PARAMS(X, Q) X(Q, pid) X(Q, trace)
LS_PARAMS(tpp, TRACE_PLACE_PARAMS);

/* Place the spans of each trace whose several-session matches one pid
 * fits all (ls_span_trace_pid). */
static int place_by_trace_fit(ls_store *s)
{
    ls_stmt *q = NULL, *up = NULL;
    ls_pid_fit *v = NULL;
    size_t n = 0, cap = 0;
    char *trace = NULL; /* the trace whose rows v holds */
    int64_t k = 0;
    int rc, more;

    if ((rc = ls_store_prepare(s, trace_fit_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, trace_place_sql, LS_PARAM_NAMES(TRACE_PLACE_PARAMS),
                                      &up)) != 0)
        goto out;
    do {
        more = ls_stmt_step(q);
        if (more < 0) {
            rc = more;
            goto out;
        }
        /* a trace's rows end: decide it */
        if (n && (!more || strcmp(trace, ls_stmt_text(q, tf_trace_id)) != 0)) {
            int64_t pid = ls_span_trace_pid(v, n, k);
            if (pid) {
                ls_stmt_reset(up);
                if ((rc = ls_stmt_bind_text(up, LS_PARAM(tpp, trace), trace)) != 0 ||
                    (rc = ls_stmt_bind_int64(up, LS_PARAM(tpp, pid), pid)) != 0 ||
                    (rc = ls_stmt_step(up)) < 0)
                    goto out;
            }
            n = 0;
        }
        if (!more)
            break;
        if (n == cap) {
            size_t ncap = cap ? 2 * cap : 16;
            ls_pid_fit *nv = realloc(v, ncap * sizeof(*nv));
            if (!nv) {
                rc = LS_ENOMEM;
                goto out;
            }
            v = nv;
            cap = ncap;
        }
        if (!n) {
            free(trace);
            if (!(trace = strdup(ls_stmt_text(q, tf_trace_id)))) {
                rc = LS_ENOMEM;
                goto out;
            }
        }
        v[n].pid = ls_stmt_int64(q, tf_pid);
        v[n].fits = ls_stmt_int64(q, tf_fits);
        v[n].worst_us = ls_stmt_int64(q, tf_worst);
        k = ls_stmt_int64(q, tf_k);
        n++;
    } while (more);
    rc = 0;
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(up);
    free(v);
    free(trace);
    return rc < 0 ? rc : 0;
}

/* How span_placement says a span is its driver's statement. */
#define HOW_ORM LS_HOW_ORM_SPAN

/* Each span to place, and the other database spans of its trace that
 * start near it (on spans_id: a trace has a few). */
#define TO_PLACE_COLS(X, Q)               \
    X(Q, span_row, "p.span_row")          \
    X(Q, trace_id, "sp.trace_id")         \
    X(Q, span_id, "sp.span_id")           \
    X(Q, parent_id, "sp.parent_id")       \
    X(Q, start_ts, "sp.start_ts")         \
    X(Q, end_ts, "sp.end_ts")             \
    X(Q, text, "sp.db_statement")
LS_COLUMNS(tp, TO_PLACE_COLS);
static const char to_place_sql[] =
    "SELECT " LS_SELECT_LIST(tp, TO_PLACE_COLS) " FROM span_placement p"
    " JOIN spans sp ON sp.span_row = p.span_row ORDER BY p.span_row";
#define NESTED_COLS(X, Q)             \
    X(Q, span_row, "o.span_row")      \
    X(Q, span_id, "o.span_id")        \
    X(Q, parent_id, "o.parent_id")    \
    X(Q, start_ts, "o.start_ts")      \
    X(Q, end_ts, "o.end_ts")          \
    X(Q, text, "o.db_statement")
LS_COLUMNS(nq, NESTED_COLS);
/* (the other spans of trace :trace than :span_row that start from its
 * :start to its :end, each widened by :slack) */
static const char nested_sql[] =
    "SELECT " LS_SELECT_LIST(nq, NESTED_COLS) " FROM spans o WHERE o.trace_id = :trace"
    " AND o.span_row <> :span_row AND o.db_statement IS NOT NULL"
    " AND o.start_ts BETWEEN :start - :slack AND :end + :slack";
#define NESTED_PARAMS(X, Q) X(Q, trace) X(Q, span_row) X(Q, start) X(Q, slack) X(Q, end)
LS_PARAMS(nsp, NESTED_PARAMS);
/* The database spans (with a statement) whose parent is span :parent of trace :trace. */
static const char children_sql[] = "SELECT count(*) FROM spans c WHERE c.trace_id = :trace"
                                   " AND c.parent_id = :parent AND c.db_statement IS NOT NULL";
#define CHILDREN_PARAMS(X, Q) X(Q, trace) X(Q, parent)
LS_PARAMS(chp, CHILDREN_PARAMS);
static const char orm_sql[] = "UPDATE span_placement SET pid = NULL, how = '" HOW_ORM
                              "', why = NULL WHERE span_row = :span_row";
#define ORM_PARAMS(X, Q) X(Q, span_row)
LS_PARAMS(omp, ORM_PARAMS);

/* The spans still not placed whose trace's placed spans name one pid. */
static const char by_placed_trace_sql[] =
    "UPDATE span_placement AS p SET pid = t.pid, how = 'trace', why = NULL"
    " FROM (SELECT u.span_row, count(DISTINCT q.pid) AS n, min(q.pid) AS pid"
    "  FROM span_placement u JOIN spans sp ON sp.span_row = u.span_row"
    "  JOIN spans o ON o.trace_id = sp.trace_id"
    "  JOIN span_placement q ON q.span_row = o.span_row AND q.pid IS NOT NULL"
    "  WHERE u.how IS NULL GROUP BY u.span_row) t"
    " WHERE p.span_row = t.span_row AND t.n = 1";

/* Texts added here (LS_TEXT_FIND_NAMED_SQL finds the others) stay for
 * the next run to find. */
LS_TABLE_COLUMNS(stmt_texts);
static const char text_insert_sql[] = LS_INSERT_INTO("INSERT", stmt_texts) " RETURNING text_id";
/* The one column of LS_TEXT_FIND_NAMED_SQL and of text_insert_sql. */
enum { TEXT_ID_COL };
LS_TABLE_COLUMNS(stmt_rows);
static const char insert_sql[] = LS_INSERT_INTO("INSERT", stmt_rows); /* verb LS_VERB_SPAN */

/* The text_id of text, added when new. */
static int text_id(ls_stmt *find, ls_stmt *add, const char *text, int64_t *out)
{
    int64_t h = ls_text_hash(text);
    int rc;
    ls_stmt_reset(find);
    if ((rc = ls_stmt_bind_int64(find, LS_PARAM(tfp, hash), h)) != 0 ||
        (rc = ls_stmt_bind_text(find, LS_PARAM(tfp, text), text)) != 0 ||
        (rc = ls_stmt_step(find)) < 0)
        return rc;
    if (rc == 0) {
        ls_stmt_reset(add);
        if ((rc = ls_stmt_bind_int64(add, LS_PARAM(stmt_texts, hash), h)) != 0 ||
            (rc = ls_stmt_bind_text(add, LS_PARAM(stmt_texts, text), text)) != 0)
            return rc;
        if ((rc = ls_stmt_step(add)) != 1)
            return rc < 0 ? rc : LS_ESTORE;
        *out = ls_stmt_int64(add, TEXT_ID_COL);
        ls_stmt_reset(add);
        return 0;
    }
    *out = ls_stmt_int64(find, TEXT_ID_COL);
    return 0;
}

/* The offset intervals, and the resolution of the log's times they come
 * from (res: 0 for millisecond times, LS_WHOLE_SECOND_US for %t). */
typedef struct intervals {
    int64_t *lo, *hi;
    size_t n, cap;
    int64_t res;
} intervals;

/*
 * The offsets that put what the database saw from db0 to db1 inside the
 * span app0..app1 (ls_span_offset_interval()). A whole-second log time is
 * its second's start: what it times happened up to `res` later, both ends
 * by the same amount, so the interval's upper end moves up by res (the
 * offset was measured 0.4 s low on a %t log behind pgbouncer, issue 34:
 * every span then paired with a statement half a second off).
 */
static int add_interval(intervals *v, int64_t db0, int64_t db1, int64_t app0, int64_t app1)
{
    int64_t lo, hi;
    if (ls_span_offset_interval(db0, db1, app0, app1, &lo, &hi) != 0)
        return 0;
    hi += v->res;
    if (v->n == v->cap) {
        size_t ncap = v->cap ? v->cap * 2 : 256;
        int64_t *nl = ls_realloc(v->lo, ncap * sizeof(*nl)), *nh;
        if (!nl)
            return LS_ENOMEM;
        v->lo = nl;
        if (!(nh = ls_realloc(v->hi, ncap * sizeof(*nh))))
            return LS_ENOMEM;
        v->hi = nh;
        v->cap = ncap;
    }
    v->lo[v->n] = lo;
    v->hi[v->n++] = hi;
    return 0;
}

/* Intervals from each logged wait and the spans of its pid that could have run it. */
static int wait_intervals(ls_store *s, intervals *v)
{
    ls_stmt *w = NULL, *c = NULL;
    int rc;

    if ((rc = ls_store_prepare(s, waits_sql, &w)) != 0 ||
        (rc = ls_store_prepare_params(s, candidates_sql, LS_PARAM_NAMES(CANDIDATES_PARAMS), &c)) !=
            0)
        goto out;
    while ((rc = ls_stmt_step(w)) == 1) {
        int64_t ws = ls_stmt_int64(w, wq_start_ts), we = ls_stmt_int64(w, wq_end_ts);
        ls_stmt_reset(c);
        if ((rc = ls_stmt_bind_int64(c, LS_PARAM(wcp, pid), ls_stmt_int64(w, wq_pid))) != 0 ||
            (rc = ls_stmt_bind_int64(c, LS_PARAM(wcp, lo), ws - MAX_SKEW_US)) != 0 ||
            (rc = ls_stmt_bind_int64(c, LS_PARAM(wcp, hi), ws + MAX_SKEW_US)) != 0 ||
            (rc = ls_stmt_bind_int64(c, LS_PARAM(wcp, min_dur),
                                     we - ws - 2 * LS_SPAN_LOG_SLACK_US)) != 0 ||
            (rc = ls_stmt_bind_text(c, LS_PARAM(wcp, text),
                                    ls_stmt_text_or_null(w, wq_statement))) != 0)
            goto out;
        while ((rc = ls_stmt_step(c)) == 1)
            if ((rc = add_interval(v, ws, we, ls_stmt_int64(c, cq_start_ts),
                                   ls_stmt_int64(c, cq_end_ts))) != 0)
                goto out;
        if (rc < 0)
            goto out;
    }
out:
    ls_stmt_finalize(w);
    ls_stmt_finalize(c);
    return rc < 0 ? rc : 0;
}

/* Intervals from the first logged statements and the spans of their text
 * (and pid, when the span has one) that could have sent them. */
static int statement_intervals(ls_store *s, intervals *v)
{
    ls_stmt *q = NULL, *c = NULL;
    int rc;

    if ((rc = ls_store_exec(s, "CREATE INDEX IF NOT EXISTS spans_text ON"
                               " spans(db_statement, start_ts) WHERE db_statement IS NOT NULL")) != 0 ||
        (rc = ls_store_prepare_params(s, stmts_sql, LS_PARAM_NAMES(STMTS_PARAMS), &q)) != 0 ||
        (rc = ls_store_prepare_params(s, stmt_candidates_sql,
                                      LS_PARAM_NAMES(STMT_CANDIDATES_PARAMS), &c)) != 0 ||
        (rc = ls_stmt_bind_int64(q, LS_PARAM(stp, limit), MAX_OFFSET_STMTS)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        int64_t s0 = ls_stmt_int64(q, sq_start_ts), s1 = ls_stmt_int64(q, sq_end_ts);
        ls_stmt_reset(c);
        if ((rc = ls_stmt_bind_text(c, LS_PARAM(scp, text), ls_stmt_text(q, sq_text))) != 0 ||
            (rc = ls_stmt_bind_int64(c, LS_PARAM(scp, lo), s0 - MAX_SKEW_US)) != 0 ||
            (rc = ls_stmt_bind_int64(c, LS_PARAM(scp, hi), s0 + MAX_SKEW_US)) != 0 ||
            (rc = ls_stmt_bind_int64(c, LS_PARAM(scp, min_dur),
                                     s1 - s0 - 2 * LS_SPAN_LOG_SLACK_US)) != 0 ||
            (rc = ls_stmt_bind_int64(c, LS_PARAM(scp, pid), ls_stmt_int64(q, sq_pid))) != 0)
            goto out;
        while ((rc = ls_stmt_step(c)) == 1)
            if ((rc = add_interval(v, s0, s1, ls_stmt_int64(c, cq_start_ts),
                                   ls_stmt_int64(c, cq_end_ts))) != 0)
                goto out;
        if (rc < 0)
            goto out;
    }
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(c);
    return rc < 0 ? rc : 0;
}

#define ANY_DB_SPAN_COLS(X, Q) \
    X(Q, any, "EXISTS (SELECT 1 FROM spans WHERE db_statement IS NOT NULL)")
LS_COLUMNS(ad, ANY_DB_SPAN_COLS);
static const char any_db_span_sql[] = "SELECT " LS_SELECT_LIST(ad, ANY_DB_SPAN_COLS);

LS_TABLE_COLUMNS(span_clock);
static const char span_clock_sql[] = LS_INSERT_INTO("INSERT", span_clock);

#define RESOLUTION_COLS(X, Q)                                                          \
    X(Q, whole, "(EXISTS (SELECT 1 FROM lock_events)"                                  \
                " OR EXISTS (SELECT 1 FROM stmt_rows WHERE verb IS NOT 5))"             \
                " AND NOT EXISTS (SELECT 1 FROM lock_events WHERE ts % "                \
                LS_SQL_INT(LS_WHOLE_SECOND_US) " <> 0)"                                 \
                " AND NOT EXISTS (SELECT 1 FROM stmt_rows WHERE verb IS NOT 5"          \
                " AND (start_ts + coalesce(dur_us, 0)) % " LS_SQL_INT(LS_WHOLE_SECOND_US) \
                " <> 0 AND stmt_id NOT IN (SELECT stmt_id FROM stmt_span_time))")
LS_COLUMNS(lr, RESOLUTION_COLS);
static const char resolution_sql[] = "SELECT " LS_SELECT_LIST(lr, RESOLUTION_COLS);

int ls_log_resolution(ls_store *s, int64_t *res)
{
    ls_stmt *q = NULL;
    int rc;

    *res = 0;
    if ((rc = ls_store_prepare(s, resolution_sql, &q)) != 0)
        return rc;
    if ((rc = ls_stmt_step(q)) == 1 && ls_stmt_int64(q, lr_whole))
        *res = LS_WHOLE_SECOND_US;
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

/* Measure the application's clock offset: on the logged waits, else on
 * the logged statements; kept in span_clock with what measured it. */
static int measure_offset(ls_store *s, int64_t *offset, int64_t *depth)
{
    intervals v = {0};
    const char *from = "none";
    ls_stmt *q = NULL;
    int rc, spans = 0;

    *offset = 0;
    *depth = 0;
    if ((rc = ls_log_resolution(s, &v.res)) != 0)
        return rc;
    /* No database span, nothing to measure: not a probe per logged wait
     * and a scan of every statement for nothing. */
    if ((rc = ls_store_prepare(s, any_db_span_sql, &q)) != 0)
        return rc;
    if ((rc = ls_stmt_step(q)) == 1)
        spans = (int)ls_stmt_int64(q, ad_any);
    ls_stmt_finalize(q);
    if (rc < 0)
        return rc;
    rc = 0;
    if (spans && (rc = wait_intervals(s, &v)) == 0 && v.n)
        from = "logged lock waits";
    else if (spans && rc == 0 && (rc = statement_intervals(s, &v)) == 0 && v.n)
        from = "logged statements";
    if (rc == 0 && v.n)
        *depth = ls_span_offset(v.lo, v.hi, (int)v.n, offset);
    if (rc == 0 && (rc = ls_store_prepare(s, span_clock_sql, &q)) == 0) {
        if ((rc = ls_stmt_bind_int64(q, LS_PARAM(span_clock, offset_us), *offset)) == 0 &&
            (rc = ls_stmt_bind_text(q, LS_PARAM(span_clock, offset_from),
                                    *depth ? from : "none")) == 0 &&
            (rc = ls_stmt_bind_int64(q, LS_PARAM(span_clock, votes), *depth)) == 0)
            rc = ls_stmt_step(q);
        ls_stmt_finalize(q);
        rc = rc < 0 ? rc : 0;
    }
    free(v.lo);
    free(v.hi);
    return rc;
}

#define UNPLACED_COUNT_COLS(X, Q) X(Q, unplaced, "count(*)")
LS_COLUMNS(uc, UNPLACED_COUNT_COLS);
static const char unplaced_count_sql[] =
    "SELECT " LS_SELECT_LIST(uc, UNPLACED_COUNT_COLS)
    " FROM span_placement WHERE how IS NULL AND why IS NULL";

/* Whether two texts (NULL: none) are the same. */
static int same_text(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/*
 * Is the span at q (to_place_sql) an ORM's span around a driver span of
 * the same statement (nested_sql bound to it: the database spans of its
 * trace that start near it)? ls_span_is_orm_of decides each pair; a span
 * whose text is the ORM's record of its call, not SQL, is its one
 * database child's (ls_span_orm_call_of).
 */
static int wraps_driver(ls_stmt *q, ls_stmt *o, ls_stmt *kids, int *out)
{
    ls_span_pair p;
    int rc;

    *out = 0;
    p.a_start = ls_stmt_int64(q, tp_start_ts);
    p.a_end = ls_stmt_int64(q, tp_end_ts);
    while (!*out && (rc = ls_stmt_step(o)) == 1) {
        if (!ls_span_same_statement(ls_stmt_text(q, tp_text), ls_stmt_text(o, nq_text)))
            continue;
        p.a_parent_of_b = same_text(ls_stmt_text(o, nq_parent_id), ls_stmt_text(q, tp_span_id));
        p.b_parent_of_a = same_text(ls_stmt_text(q, tp_parent_id), ls_stmt_text(o, nq_span_id));
        p.b_start = ls_stmt_int64(o, nq_start_ts);
        p.b_end = ls_stmt_int64(o, nq_end_ts);
        p.a_later = ls_stmt_int64(q, tp_span_row) > ls_stmt_int64(o, nq_span_row);
        *out = ls_span_is_orm_of(&p);
    }
    if (rc < 0 || *out || !ls_span_orm_call_of(ls_stmt_text_or_null(q, tp_text), 1))
        return rc < 0 ? rc : 0;
    /* the ORM's record of its call: its database children, whenever they ran */
    ls_stmt_reset(kids);
    if ((rc = ls_stmt_bind_text(kids, LS_PARAM(chp, trace), ls_stmt_text(q, tp_trace_id))) != 0 ||
        (rc = ls_stmt_bind_text(kids, LS_PARAM(chp, parent), ls_stmt_text(q, tp_span_id))) != 0)
        return rc;
    if ((rc = ls_stmt_step(kids)) == 1)
        *out = ls_span_orm_call_of(ls_stmt_text_or_null(q, tp_text),
                                   (int)ls_stmt_int64(kids, LS_ONLY_COLUMN));
    ls_stmt_reset(kids);
    return rc < 0 ? rc : 0;
}

/* Mark the ORM's spans of a driver's span: one statement, not placed. */
static int mark_orm_spans(ls_store *s)
{
    ls_stmt *q = NULL, *o = NULL, *up = NULL, *kids = NULL;
    int rc, orm;

    if ((rc = ls_store_prepare(s, to_place_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, nested_sql, LS_PARAM_NAMES(NESTED_PARAMS), &o)) != 0 ||
        (rc = ls_store_prepare_params(s, children_sql, LS_PARAM_NAMES(CHILDREN_PARAMS), &kids)) !=
            0 ||
        (rc = ls_store_prepare_params(s, orm_sql, LS_PARAM_NAMES(ORM_PARAMS), &up)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        ls_stmt_reset(o);
        if ((rc = ls_stmt_bind_text(o, LS_PARAM(nsp, trace), ls_stmt_text(q, tp_trace_id))) != 0 ||
            (rc = ls_stmt_bind_int64(o, LS_PARAM(nsp, span_row), ls_stmt_int64(q, tp_span_row))) !=
                0 ||
            (rc = ls_stmt_bind_int64(o, LS_PARAM(nsp, start), ls_stmt_int64(q, tp_start_ts))) !=
                0 ||
            (rc = ls_stmt_bind_int64(o, LS_PARAM(nsp, end), ls_stmt_int64(q, tp_end_ts))) != 0 ||
            (rc = ls_stmt_bind_int64(o, LS_PARAM(nsp, slack), LS_SPAN_NEST_SLACK_US)) != 0 ||
            (rc = wraps_driver(q, o, kids, &orm)) != 0)
            goto out;
        if (!orm)
            continue;
        ls_stmt_reset(up);
        if ((rc = ls_stmt_bind_int64(up, LS_PARAM(omp, span_row), ls_stmt_int64(q, tp_span_row))) !=
                0 ||
            (rc = ls_stmt_step(up)) < 0)
            goto out;
    }
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(o);
    ls_stmt_finalize(up);
    ls_stmt_finalize(kids);
    return rc < 0 ? rc : 0;
}

/*
 * Place the database spans without a backend pid: by the pid the other
 * spans of their trace name (placement_sql), else by the one session that
 * logged a statement of their text at their time (database clock), else
 * by the one pid the spans of their trace placed so far have. An ORM's
 * span of a driver span is not placed (mark_orm_spans).
 */
static int place_pidless(ls_store *s, int64_t offset, ls_stmt *find)
{
    ls_stmt *q = NULL, *m = NULL, *up = NULL, *ci = NULL;
    int rc;

    if ((rc = ls_store_exec(s, placement_sql)) != 0 || (rc = mark_orm_spans(s)) != 0 ||
        (rc = ls_store_prepare(s, unplaced_count_sql, &q)) != 0 ||
        (rc = ls_stmt_step(q)) < 0)
        goto out;
    if (ls_stmt_int64(q, uc_unplaced) == 0)
        goto out; /* none left to match: no index over every statement for nothing */
    ls_stmt_finalize(q);
    q = NULL;
    if ((rc = ls_store_exec(s, "CREATE INDEX IF NOT EXISTS stmt_rows_text ON"
                               " stmt_rows(text_id, start_ts)")) != 0 ||
        (rc = ls_store_prepare_params(s, unplaced_sql, LS_PARAM_NAMES(UNPLACED_PARAMS), &q)) !=
            0 ||
        (rc = ls_store_prepare_params(s, logged_match_sql, LS_PARAM_NAMES(LOGGED_MATCH_PARAMS),
                                      &m)) != 0 ||
        (rc = ls_store_prepare_params(s, place_sql, LS_PARAM_NAMES(PLACE_PARAMS), &up)) != 0 ||
        (rc = ls_store_exec(s, cands_sql)) != 0 ||
        (rc = ls_store_prepare_params(s, cand_insert_sql, LS_PARAM_NAMES(CAND_INSERT_PARAMS),
                                      &ci)) != 0 ||
        (rc = ls_stmt_bind_int64(q, LS_PARAM(upp, offset), offset)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        const char *text = ls_stmt_text(q, uq_text), *why = NULL;
        int64_t t0 = ls_stmt_int64(q, uq_start_ts), n = 0;

        ls_stmt_reset(find);
        if ((rc = ls_stmt_bind_int64(find, LS_PARAM(tfp, hash), ls_text_hash(text))) != 0 ||
            (rc = ls_stmt_bind_text(find, LS_PARAM(tfp, text), text)) != 0 ||
            (rc = ls_stmt_step(find)) < 0)
            goto out;
        if (rc == 1) {
            ls_stmt_reset(m);
            if ((rc = ls_stmt_bind_int64(m, LS_PARAM(lmp, text),
                                         ls_stmt_int64(find, TEXT_ID_COL))) != 0 ||
                (rc = ls_stmt_bind_int64(m, LS_PARAM(lmp, lo), t0 - MATCH_US)) != 0 ||
                (rc = ls_stmt_bind_int64(m, LS_PARAM(lmp, hi), t0 + MATCH_US)) != 0 ||
                (rc = ls_stmt_step(m)) < 0)
                goto out;
            n = ls_stmt_int64(m, lm_sessions);
        }
        /* placed by its one session's pid, else why not (pid and how NULL) */
        if (n != 1)
            why = n ? WHY_SEVERAL
                    : "no backend pid in its trace, and no logged statement of its text at "
                      "its time";
        ls_stmt_reset(up);
        if ((rc = ls_stmt_bind_int64(up, LS_PARAM(plp, span_row), ls_stmt_int64(q, uq_span_row))) !=
                0 ||
            (rc = n == 1 ? ls_stmt_bind_int64(up, LS_PARAM(plp, pid), ls_stmt_int64(m, lm_pid))
                         : ls_stmt_bind_null(up, LS_PARAM(plp, pid))) != 0 ||
            (rc = ls_stmt_bind_text(up, LS_PARAM(plp, how), n == 1 ? "logged statement" : NULL)) !=
                0 ||
            (rc = ls_stmt_bind_text(up, LS_PARAM(plp, why), why)) != 0)
            goto out;
        if (n > 1) { /* its candidates, for place_by_trace_fit */
            ls_stmt_reset(ci);
            if ((rc = ls_stmt_bind_int64(ci, LS_PARAM(cip, text),
                                         ls_stmt_int64(find, TEXT_ID_COL))) != 0 ||
                (rc = ls_stmt_bind_int64(ci, LS_PARAM(cip, lo), t0 - MATCH_US)) != 0 ||
                (rc = ls_stmt_bind_int64(ci, LS_PARAM(cip, hi), t0 + MATCH_US)) != 0 ||
                (rc = ls_stmt_bind_int64(ci, LS_PARAM(cip, span_row),
                                         ls_stmt_int64(q, uq_span_row))) != 0 ||
                (rc = ls_stmt_bind_text(ci, LS_PARAM(cip, trace),
                                        ls_stmt_text(q, uq_trace_id))) != 0 ||
                (rc = ls_stmt_bind_int64(ci, LS_PARAM(cip, end), ls_stmt_int64(q, uq_end_ts))) !=
                    0 ||
                (rc = ls_stmt_step(ci)) < 0)
                goto out;
        }
        if ((rc = ls_stmt_step(up)) < 0)
            goto out;
    }
    ls_stmt_finalize(q);
    q = NULL;
    ls_stmt_reset(find);
    ls_stmt_reset(m);
    ls_stmt_reset(ci);
    /* Ingest would keep it up to date for nothing until the next such run. */
    if (rc == 0)
        rc = ls_store_exec(s, "DROP INDEX IF EXISTS stmt_rows_text");
    /* the trace's placed spans first; then, in a trace they do not
     * settle, the one pid that fits all its spans still not placed */
    if (rc == 0)
        rc = ls_store_exec(s, by_placed_trace_sql);
    if (rc == 0)
        rc = place_by_trace_fit(s);
    if (rc == 0)
        rc = ls_store_exec(s, "DROP TABLE IF EXISTS temp.span_cands");
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(m);
    ls_stmt_finalize(up);
    ls_stmt_finalize(ci);
    return rc < 0 ? rc : 0;
}

/* The statements of a session: its spans (both cursors bound and in
 * start order) merged by start, each added to stmt_rows as a statement
 * of the session; *n counts them. */
typedef struct span_writer {
    ls_stmt *find, *add, *ins;
    int64_t session_id, pid, n;
} span_writer;

/* A statement of w's session: text, start (database clock), duration. */
static int write_span_at(span_writer *w, const char *text, int64_t start, int64_t dur)
{
    int64_t tid;
    int rc;
    if ((rc = text_id(w->find, w->add, text, &tid)) != 0)
        return rc;
    ls_stmt_reset(w->ins);
    if ((rc = ls_stmt_bind_int64(w->ins, LS_PARAM(stmt_rows, session_id), w->session_id)) != 0 ||
        (rc = ls_stmt_bind_int64(w->ins, LS_PARAM(stmt_rows, pid), w->pid)) != 0 ||
        (rc = ls_stmt_bind_int64(w->ins, LS_PARAM(stmt_rows, start_ts), start)) != 0 ||
        (rc = ls_stmt_bind_int64(w->ins, LS_PARAM(stmt_rows, dur_us), dur)) != 0 ||
        (rc = ls_stmt_bind_int64(w->ins, LS_PARAM(stmt_rows, verb), LS_VERB_SPAN)) != 0 ||
        (rc = ls_stmt_bind_int64(w->ins, LS_PARAM(stmt_rows, text_id), tid)) != 0 ||
        (rc = ls_stmt_step(w->ins)) < 0)
        return rc;
    w->n++;
    return 0;
}

static int write_span(span_writer *w, ls_stmt *q)
{
    return write_span_at(w, ls_stmt_text(q, ss_text), ls_stmt_int64(q, ss_start_ts),
                         ls_stmt_int64(q, ss_dur_us));
}

static int write_session(span_writer *w, ls_stmt *bypid, ls_stmt *placed)
{
    int a = ls_stmt_step(bypid), b = ls_stmt_step(placed), rc;
    while (a == 1 || b == 1) {
        /* the earlier first, a span with the pid on a tie */
        int first = a == 1 && (b != 1 || ls_stmt_int64(bypid, ss_start_ts) <=
                                             ls_stmt_int64(placed, ss_start_ts));
        ls_stmt *q = first ? bypid : placed;
        if ((rc = write_span(w, q)) != 0)
            return rc;
        if (first)
            a = ls_stmt_step(bypid);
        else
            b = ls_stmt_step(placed);
    }
    return a < 0 ? a : b < 0 ? b : 0;
}

/* Bind a session's cursor (SESSION_SPAN_PARAMS): the offset, the pid,
 * its start, the pid's next session's start (NULL: none). */
static int bind_session(ls_stmt *c, int64_t offset, ls_stmt *se)
{
    int rc;

    ls_stmt_reset(c);
    if ((rc = ls_stmt_bind_int64(c, LS_PARAM(ssp, offset), offset)) != 0 ||
        (rc = ls_stmt_bind_int64(c, LS_PARAM(ssp, pid), ls_stmt_int64(se, bs_pid))) != 0 ||
        (rc = ls_stmt_bind_int64(c, LS_PARAM(ssp, since), ls_stmt_int64(se, bs_t0))) != 0)
        return rc;
    return ls_stmt_isnull(se, bs_t1)
               ? ls_stmt_bind_null(c, LS_PARAM(ssp, until))
               : ls_stmt_bind_int64(c, LS_PARAM(ssp, until), ls_stmt_int64(se, bs_t1));
}

/* ---- deadlock victims of pooled backends: their transaction from spans ---- */

#define VICTIM_TX_MAX_US 60000000 /* how long before the deadlock its transaction began */
#define VICTIM_MAX_SPANS 64          /* database spans of the victim's request read */
#define VICTIM_MAX_FAILED 16         /* failed spans of the victim's text read */
#define VICTIM_USED 256              /* failed spans paired lately, kept (whole seconds) */

/*
 * The deadlock victims in sessions that logged statements (a session the
 * log shows none of has all its spans as statements already), with the
 * statement the DETAIL gives them, oldest first.
 */
#define VICTIM_COLS(X, Q)                    \
    X(Q, session_id, "d.victim_session")     \
    X(Q, pid, "d.victim_pid")                \
    X(Q, ts, "d.ts")                         \
    X(Q, text, "t.text")
LS_COLUMNS(vq, VICTIM_COLS);
static const char victims_sql[] =
    "SELECT " LS_SELECT_LIST(vq, VICTIM_COLS) " FROM deadlocks d"
    " JOIN deadlock_procs p ON p.deadlock_id = d.deadlock_id AND p.pid = d.victim_pid"
    " JOIN stmt_texts t ON t.text_id = p.text_id"
    " WHERE d.victim_session IS NOT NULL AND d.ts IS NOT NULL"
    " AND EXISTS (SELECT 1 FROM stmt_rows st WHERE st.session_id = d.victim_session"
    "  AND st.verb IS NOT 5)" /* LS_VERB_SPAN */
    " ORDER BY d.ts, d.file_id, d.line, d.deadlock_id"; /* the log's order */

/* The database spans of that text (:text) that ended in an error and
 * ran at the deadlock's time (:lo..:hi: their start, :end_from: their end
 * no earlier), on the application's clock; not an ORM's span of a driver
 * span. */
#define FAILED_SPAN_COLS(X, Q)        \
    X(Q, span_row, "sp.span_row")     \
    X(Q, trace_id, "sp.trace_id")     \
    X(Q, end_ts, "sp.end_ts")
LS_COLUMNS(fq, FAILED_SPAN_COLS);
static const char failed_spans_sql[] =
    "SELECT " LS_SELECT_LIST(fq, FAILED_SPAN_COLS) " FROM spans sp"
    " WHERE sp.db_statement = :text AND sp.start_ts BETWEEN :lo AND :hi AND sp.end_ts >= :end_from"
    " AND sp.error = 1 AND sp.trace_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM"
    "  span_placement p WHERE p.span_row = sp.span_row AND p.how = '" HOW_ORM "')"
    " ORDER BY sp.end_ts, sp.span_row LIMIT " LS_SQL_INT(VICTIM_MAX_FAILED);
#define FAILED_SPANS_PARAMS(X, Q) X(Q, text) X(Q, lo) X(Q, hi) X(Q, end_from)
LS_PARAMS(fsp, FAILED_SPANS_PARAMS);

/* Request :trace's database spans (not an ORM's of a driver span), by
 * start, on the database clock (:offset the offset). */
#define REQUEST_SPAN_COLS(X, Q)               \
    X(Q, span_row, "sp.span_row")             \
    X(Q, start_ts, "sp.start_ts + :offset")   \
    X(Q, dur_us, "sp.end_ts - sp.start_ts")   \
    X(Q, text, "sp.db_statement")
LS_COLUMNS(rs, REQUEST_SPAN_COLS);
static const char request_spans_sql[] =
    "SELECT " LS_SELECT_LIST(rs, REQUEST_SPAN_COLS) " FROM spans sp"
    " WHERE sp.trace_id = :trace AND sp.db_statement IS NOT NULL AND sp.start_ts IS NOT NULL"
    " AND sp.end_ts IS NOT NULL AND NOT EXISTS (SELECT 1 FROM span_placement p"
    "  WHERE p.span_row = sp.span_row AND p.how = '" HOW_ORM "')"
    " ORDER BY sp.start_ts, sp.span_row LIMIT " LS_SQL_INT(VICTIM_MAX_SPANS);
#define REQUEST_SPANS_PARAMS(X, Q) X(Q, offset) X(Q, trace)
LS_PARAMS(rsp, REQUEST_SPANS_PARAMS);

/* Whether the session (:session) logged a statement from the failed
 * statement's start (:failed_start, database clock) to the transaction's
 * end (:tx_end): one logged without a duration that began then (:res the
 * log's resolution: a whole-second time is up to a second early), or one that
 * ended then. Then the log has the failed statement or the transaction's
 * end (log_statement = 'all'), and so the transaction, not to be added
 * again. A statement that ended before (one that ran past
 * log_min_duration_statement) is not its end. */
static const char logged_then_sql[] =
    "SELECT EXISTS (SELECT 1 FROM stmt_rows WHERE session_id = :session"
    " AND start_ts BETWEEN :failed_start - :res - " LS_SQL_INT(VICTIM_TX_MAX_US) " AND :tx_end"
    " AND verb IS NOT 5" /* LS_VERB_SPAN */
    " AND ((dur_us IS NULL AND start_ts >= :failed_start - :res)"
    "  OR (dur_us IS NOT NULL AND start_ts + dur_us >= :failed_start)))";
#define LOGGED_THEN_PARAMS(X, Q) X(Q, session) X(Q, failed_start) X(Q, res) X(Q, tx_end)
LS_PARAMS(ltp, LOGGED_THEN_PARAMS);

/*
 * The same on a whole-second log, where any statement another client ran
 * on the pooled backend in the deadlock's second or the next looks as if
 * it ended after the failed statement began: the session's statements
 * (:session; not spans) from the failed statement's start less a second
 * (:lo) to a second after the deadlock's second (:hi), read in C
 * (logged_then_whole): the failed statement logged without a duration
 * (its text, :text), or a COMMIT or ROLLBACK that ended from the
 * deadlock's second (:deadlock) on.
 */
#define LOGGED_WHOLE_COLS(X, Q)                        \
    X(Q, no_duration, "r.dur_us IS NULL")              \
    X(Q, end_ts, "r.start_ts + coalesce(r.dur_us, 0)") \
    X(Q, same_text, "t.text = :text")                  \
    X(Q, text, "t.text")
LS_COLUMNS(lw, LOGGED_WHOLE_COLS);
static const char logged_whole_sql[] =
    "SELECT " LS_SELECT_LIST(lw, LOGGED_WHOLE_COLS) " FROM stmt_rows r"
    " JOIN stmt_texts t ON t.text_id = r.text_id WHERE r.session_id = :session"
    " AND r.start_ts BETWEEN :lo AND :hi AND r.verb IS NOT 5 /* LS_VERB_SPAN */"
    " AND r.start_ts + coalesce(r.dur_us, 0) >= :deadlock - " LS_SQL_INT(VICTIM_TX_MAX_US);
#define LOGGED_WHOLE_PARAMS(X, Q) X(Q, text) X(Q, session) X(Q, lo) X(Q, hi) X(Q, deadlock)
LS_PARAMS(lwp, LOGGED_WHOLE_PARAMS);

/* One database span of the victim's request, as read. */
typedef struct req_span {
    int64_t span_row, start, dur;
    ls_sql_kind kind;
    char *text;
} req_span;

/*
 * The victim's transaction within its request's spans v[0..n): from the
 * last BEGIN at or before the failed span `k` (else `k`) to the first
 * COMMIT or ROLLBACK after it (else `k`), in *first..*last.
 */
static void victim_tx_bounds(const req_span *v, size_t n, size_t k, size_t *first, size_t *last)
{
    size_t i;

    *first = *last = k;
    for (i = k + 1; i-- > 0;)
        if (v[i].kind == LS_SQL_BEGIN) {
            *first = i;
            break;
        }
    for (i = k + 1; i < n; i++)
        if (v[i].kind == LS_SQL_COMMIT || v[i].kind == LS_SQL_ROLLBACK) {
            *last = i;
            break;
        }
}

/* The statements a victim's transaction ran, for write_victim(). */
typedef struct victim_ctx {
    ls_stmt *failed, *req, *logged, *whole;
    int64_t offset, res;
    int64_t used[VICTIM_USED]; /* the failed spans paired last (a ring) */
    size_t nused;
} victim_ctx;

static int victim_used(const victim_ctx *c, int64_t row)
{
    size_t i, n = c->nused < VICTIM_USED ? c->nused : VICTIM_USED;

    for (i = 0; i < n; i++)
        if (c->used[i] == row)
            return 1;
    return 0;
}

/* The failed span of the victim at q (victims_sql) that ls_victim_span()
 * pairs it with, else *row 0. The window: begun up to VICTIM_TX_MAX_US
 * before the deadlock and by its time (its second's end, whole seconds),
 * not ended before it; on whole seconds, ended by the time the client
 * heard of it. */
static int victim_span(victim_ctx *c, ls_stmt *q, int64_t *row, char *trace, size_t tn)
{
    int64_t ts = ls_stmt_int64(q, vq_ts) - c->offset;
    int64_t slack = c->res > 0 ? LS_VICTIM_CLOCK_SLACK_US : LS_SPAN_LOG_SLACK_US;
    int64_t rows[VICTIM_MAX_FAILED];
    char traces[VICTIM_MAX_FAILED][64];
    ls_failed_span f[VICTIM_MAX_FAILED];
    size_t n = 0;
    int rc, pick;

    *row = 0;
    ls_stmt_reset(c->failed);
    if ((rc = ls_stmt_bind_text(c->failed, LS_PARAM(fsp, text), ls_stmt_text(q, vq_text))) != 0 ||
        (rc = ls_stmt_bind_int64(c->failed, LS_PARAM(fsp, lo), ts - VICTIM_TX_MAX_US)) != 0 ||
        (rc = ls_stmt_bind_int64(c->failed, LS_PARAM(fsp, hi),
                                 ts + c->res + LS_SPAN_LOG_SLACK_US)) != 0 ||
        (rc = ls_stmt_bind_int64(c->failed, LS_PARAM(fsp, end_from), ts - slack)) != 0) {
        ls_stmt_reset(c->failed);
        return rc;
    }
    while (n < VICTIM_MAX_FAILED && (rc = ls_stmt_step(c->failed)) == 1) {
        rows[n] = ls_stmt_int64(c->failed, fq_span_row);
        snprintf(traces[n], sizeof(traces[n]), "%s", ls_stmt_text(c->failed, fq_trace_id));
        f[n].end = ls_stmt_int64(c->failed, fq_end_ts);
        f[n].used = victim_used(c, rows[n]);
        n++;
    }
    ls_stmt_reset(c->failed);
    if (rc < 0)
        return rc;
    if ((pick = ls_victim_span(f, n, ts, c->res, slack)) < 0)
        return 0;
    *row = rows[pick];
    snprintf(trace, tn, "%s", traces[pick]);
    c->used[c->nused++ % VICTIM_USED] = *row;
    return 0;
}

/* Read the request's spans into v (at most VICTIM_MAX_SPANS); *k the
 * failed span's index (n when it is not among them). */
static int read_request_spans(victim_ctx *c, const char *trace, int64_t failed, req_span *v,
                              size_t *n, size_t *k)
{
    int rc = 0;

    *n = 0;
    *k = VICTIM_MAX_SPANS;
    ls_stmt_reset(c->req);
    if ((rc = ls_stmt_bind_text(c->req, LS_PARAM(rsp, trace), trace)) != 0 ||
        (rc = ls_stmt_bind_int64(c->req, LS_PARAM(rsp, offset), c->offset)) != 0) {
        ls_stmt_reset(c->req);
        return rc;
    }
    while (*n < VICTIM_MAX_SPANS && (rc = ls_stmt_step(c->req)) == 1) {
        req_span *r = &v[*n];
        r->span_row = ls_stmt_int64(c->req, rs_span_row);
        r->start = ls_stmt_int64(c->req, rs_start_ts);
        r->dur = ls_stmt_int64(c->req, rs_dur_us);
        r->kind = ls_sql_kind_of(ls_stmt_text(c->req, rs_text));
        if (!(r->text = ls_strdup(ls_stmt_text(c->req, rs_text)))) {
            ls_stmt_reset(c->req);
            return LS_ENOMEM;
        }
        if (r->span_row == failed)
            *k = *n;
        (*n)++;
    }
    ls_stmt_reset(c->req);
    return rc < 0 ? rc : 0;
}

/* Whether a whole-second log has the victim at q's failed statement or
 * its transaction's end (logged_whole_sql); failed_start: the failed
 * span's start, database clock. */
static int logged_then_whole(victim_ctx *c, ls_stmt *q, int64_t failed_start, int *logged)
{
    int64_t ts = ls_stmt_int64(q, vq_ts);
    int rc;

    *logged = 0;
    ls_stmt_reset(c->whole);
    if ((rc = ls_stmt_bind_int64(c->whole, LS_PARAM(lwp, session),
                                 ls_stmt_int64(q, vq_session_id))) != 0 ||
        (rc = ls_stmt_bind_int64(c->whole, LS_PARAM(lwp, lo), failed_start - c->res)) != 0 ||
        (rc = ls_stmt_bind_int64(c->whole, LS_PARAM(lwp, hi), ts + 2 * c->res)) != 0 ||
        (rc = ls_stmt_bind_text(c->whole, LS_PARAM(lwp, text), ls_stmt_text(q, vq_text))) != 0 ||
        (rc = ls_stmt_bind_int64(c->whole, LS_PARAM(lwp, deadlock), ts)) != 0) {
        ls_stmt_reset(c->whole);
        return rc;
    }
    while (!*logged && (rc = ls_stmt_step(c->whole)) == 1) {
        ls_sql_kind k = ls_sql_kind_of(ls_stmt_text(c->whole, lw_text));
        if (ls_stmt_int64(c->whole, lw_no_duration) && ls_stmt_int64(c->whole, lw_same_text))
            *logged = 1;
        else if ((k == LS_SQL_COMMIT || k == LS_SQL_ROLLBACK) &&
                 ls_stmt_int64(c->whole, lw_end_ts) >= ts)
            *logged = 1;
    }
    ls_stmt_reset(c->whole);
    return rc < 0 ? rc : 0;
}

/*
 * A deadlock victim on a pooled backend (issue 34, blind-pool): its
 * failed statement is in the log only as the ERROR's statement, and its
 * BEGIN and ROLLBACK ran too fast for log_min_duration_statement, so no
 * transaction open at the deadlock can be rebuilt from the log and none
 * links it to its request. The request's trace has them: the one
 * database span of the victim's text that ended in an error at the
 * deadlock's time is its failed statement (unique evidence, as a span
 * without a pid is placed), and the BEGIN before it and the ROLLBACK
 * after it in its trace bound the transaction. Those two (only: a
 * statement added to a session that logged statements comes after them
 * in stmt_id order, not in the log's order, and a write there would be
 * read as the session's latest) become statements (verb 'span') of the
 * victim's session, so the transactions pass has the victim's
 * transaction open at the deadlock and the code-paths pass links it to
 * the request; unless the log has the failed statement or the end
 * (logged_then_sql). The statements the victim ran before are the log's
 * when it logged them (a transaction of their own, cut short), else the
 * transactions pass holds the rows their spans name (txspans.c
 * victim_holds).
 */
static int write_victim(victim_ctx *c, span_writer *w, ls_stmt *q)
{
    req_span v[VICTIM_MAX_SPANS];
    char trace[64];
    int64_t failed;
    size_t n, k, first, last, i;
    int rc;

    if ((rc = victim_span(c, q, &failed, trace, sizeof(trace))) != 0 || !failed)
        return rc;
    n = 0;
    if ((rc = read_request_spans(c, trace, failed, v, &n, &k)) != 0 || k >= n)
        goto out;
    victim_tx_bounds(v, n, k, &first, &last);
    if (c->res > 0) {
        int logged = 0;
        if ((rc = logged_then_whole(c, q, v[k].start, &logged)) != 0 || logged)
            goto out;
    } else {
        ls_stmt_reset(c->logged);
        if ((rc = ls_stmt_bind_int64(c->logged, LS_PARAM(ltp, session),
                                     ls_stmt_int64(q, vq_session_id))) != 0 ||
            (rc = ls_stmt_bind_int64(c->logged, LS_PARAM(ltp, failed_start),
                                     v[k].start - LS_SPAN_LOG_SLACK_US)) != 0 ||
            (rc = ls_stmt_bind_int64(c->logged, LS_PARAM(ltp, tx_end),
                                     v[last].start + v[last].dur + c->res)) != 0 ||
            (rc = ls_stmt_bind_int64(c->logged, LS_PARAM(ltp, res), c->res)) != 0 ||
            (rc = ls_stmt_step(c->logged)) < 0 || ls_stmt_int64(c->logged, LS_ONLY_COLUMN))
            goto out;
    }
    w->session_id = ls_stmt_int64(q, vq_session_id);
    w->pid = ls_stmt_int64(q, vq_pid);
    for (i = first; i <= last && rc >= 0; i++) {
        /* A pooler queues a transaction's first statement until a server
         * connection is free: the backend began it at its span's end. */
        if (v[i].kind == LS_SQL_BEGIN)
            rc = write_span_at(w, v[i].text, v[i].start + v[i].dur, 0);
        else if (v[i].kind == LS_SQL_COMMIT || v[i].kind == LS_SQL_ROLLBACK)
            rc = write_span_at(w, v[i].text, v[i].start, v[i].dur);
    }
out:
    ls_stmt_reset(c->logged);
    for (i = 0; i < n; i++)
        free(v[i].text);
    return rc < 0 ? rc : 0;
}

/* Every deadlock victim's transaction that write_victim() can rebuild. */
static int write_victims(ls_store *s, span_writer *w, int64_t offset, int64_t res)
{
    victim_ctx c;
    ls_stmt *q = NULL;
    int rc;

    memset(&c, 0, sizeof(c));
    c.offset = offset;
    c.res = res;
    if ((rc = ls_store_exec(s, "CREATE INDEX IF NOT EXISTS spans_text ON"
                               " spans(db_statement, start_ts) WHERE db_statement IS NOT NULL")) != 0 ||
        (rc = ls_store_prepare(s, victims_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, failed_spans_sql, LS_PARAM_NAMES(FAILED_SPANS_PARAMS),
                                      &c.failed)) != 0 ||
        (rc = ls_store_prepare_params(s, request_spans_sql, LS_PARAM_NAMES(REQUEST_SPANS_PARAMS),
                                      &c.req)) != 0 ||
        (rc = ls_store_prepare_params(s, logged_then_sql, LS_PARAM_NAMES(LOGGED_THEN_PARAMS),
                                      &c.logged)) != 0 ||
        (rc = ls_store_prepare_params(s, logged_whole_sql, LS_PARAM_NAMES(LOGGED_WHOLE_PARAMS),
                                      &c.whole)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1)
        if ((rc = write_victim(&c, w, q)) != 0)
            goto out;
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(c.failed);
    ls_stmt_finalize(c.req);
    ls_stmt_finalize(c.logged);
    ls_stmt_finalize(c.whole);
    return rc < 0 ? rc : 0;
}

/*
 * Each database span of a session the log has no statements of becomes a
 * statement of that session, session by session, in start order. Spans
 * are read in spans_pid order, never all held nor sorted; the pass runs
 * on the small page cache (ls_store_sorting()): it reads the spans once,
 * in index order, and its index builds sort with the cache's memory.
 */
int ls_correlate_spans(ls_store *s, ls_correlate_stats *stats)
{
    ls_stmt *se = NULL, *bypid = NULL, *placed = NULL;
    span_writer w;
    int64_t offset, depth, res = 0;
    int rc, rc2;

    memset(&w, 0, sizeof(w));
    if ((rc = ls_store_sorting(s, 1)) != 0)
        return rc;
    if ((rc = ls_store_exec(s, "CREATE INDEX IF NOT EXISTS spans_pid ON spans(db_pid, start_ts)"
                               " WHERE db_pid IS NOT NULL")) != 0 ||
        (rc = measure_offset(s, &offset, &depth)) != 0 ||
        (rc = ls_store_prepare_params(s, LS_TEXT_FIND_NAMED_SQL,
                                      LS_PARAM_NAMES(LS_TEXT_FIND_PARAMS), &w.find)) != 0 ||
        (rc = place_pidless(s, offset, w.find)) != 0 ||
        (rc = ls_store_exec(s, "CREATE INDEX IF NOT EXISTS span_placement_pid ON"
                               " span_placement(pid, span_row) WHERE pid IS NOT NULL")) != 0 ||
        (rc = ls_store_prepare(s, blind_sessions_sql, &se)) != 0 ||
        (rc = ls_store_prepare_params(s, pid_spans_sql, LS_PARAM_NAMES(SESSION_SPAN_PARAMS),
                                      &bypid)) != 0 ||
        (rc = ls_store_prepare_params(s, placed_spans_sql, LS_PARAM_NAMES(SESSION_SPAN_PARAMS),
                                      &placed)) != 0 ||
        (rc = ls_store_prepare(s, text_insert_sql, &w.add)) != 0 ||
        (rc = ls_store_prepare(s, insert_sql, &w.ins)) != 0)
        goto out;
    while ((rc = ls_stmt_step(se)) == 1) {
        w.session_id = ls_stmt_int64(se, bs_session_id);
        w.pid = ls_stmt_int64(se, bs_pid);
        if ((rc = bind_session(bypid, offset, se)) != 0 ||
            (rc = bind_session(placed, offset, se)) != 0 ||
            (rc = write_session(&w, bypid, placed)) != 0)
            goto out;
    }
    /* Whole-second logs too: the victims of one second are paired with
     * their failed spans in the log's order (decide/victim.h), and the
     * transactions pass links each to its transaction (relink_victims);
     * the statements logging pass and the others read the log's
     * resolution without these statements (holds.c). */
    if (rc < 0 || (rc = ls_log_resolution(s, &res)) != 0 ||
        (rc = write_victims(s, &w, offset, res)) != 0)
        goto out;
    /* The code-paths pass links spans with the same offset, unless
     * sqlcommenter links measure it there. */
    stats->span_statements = w.n;
    if (w.n || depth)
        stats->clock_offset_us = offset;
out:
    ls_stmt_finalize(se);
    ls_stmt_finalize(bypid);
    ls_stmt_finalize(placed);
    ls_stmt_finalize(w.find);
    ls_stmt_finalize(w.add);
    ls_stmt_finalize(w.ins);
    /* Rebuilt with span_placement by the next run: ingest need not keep it. */
    if (rc >= 0 && (rc2 = ls_store_exec(s, "DROP INDEX IF EXISTS span_placement_pid")) != 0)
        rc = rc2;
    rc2 = ls_store_sorting(s, 0);
    if (rc >= 0 && rc2 != 0)
        rc = rc2;
    return rc < 0 ? rc : 0;
}

/* ---- each transaction's anchor in its trace (for the code-paths pass) ---- */

/* The most parents walked up from a transaction's linked span. */
#define MAX_ANCHOR_HOPS 32

/* A span as the walk up reads it: its row, its parent and whether it can
 * anchor (kind, and whether it is a database span). */
#define ANCHOR_SPAN_COLS(X, Q)                                                 \
    X(Q, span_row, "sp.span_row")                                              \
    X(Q, trace_id, "sp.trace_id")                                              \
    X(Q, parent_id, "sp.parent_id")                                            \
    X(Q, kind, "sp.kind")                                                      \
    X(Q, is_db, "sp.db_statement IS NOT NULL OR sp.db_system IS NOT NULL")
LS_COLUMNS(an, ANCHOR_SPAN_COLS);
#define ANCHORED_TX_COLS(X, Q) \
    X(Q, tx_id, "c.tx_id")     \
    ANCHOR_SPAN_COLS(X, Q)
LS_COLUMNS(at, ANCHORED_TX_COLS);
/* The transactions with a hold others waited for (those the breakdowns
 * read), from the span that names their code (with code attributes),
 * else the span they were linked to. */
static const char anchored_tx_sql[] =
    "SELECT " LS_SELECT_LIST(at, ANCHORED_TX_COLS) " FROM tx_code c"
    " JOIN spans sp ON sp.span_row = coalesce(c.code_span_row, c.span_row)"
    " WHERE c.tx_id IN (SELECT h.tx_id FROM " LS_HOLDS_WAITED_SQL " h)";
/* Span :span of trace :trace. */
static const char anchor_parent_sql[] =
    "SELECT " LS_SELECT_LIST(an, ANCHOR_SPAN_COLS)
    " FROM spans sp WHERE sp.trace_id = :trace AND sp.span_id = :span LIMIT 1";
#define ANCHOR_PARENT_PARAMS(X, Q) X(Q, trace) X(Q, span)
LS_PARAMS(app, ANCHOR_PARENT_PARAMS);
static const char anchor_table_sql[] =
    "CREATE TEMP TABLE IF NOT EXISTS tx_anchor(tx_id INTEGER PRIMARY KEY, span_row INTEGER);"
    " DELETE FROM tx_anchor;";
static const char anchor_insert_sql[] =
    "INSERT INTO tx_anchor(tx_id, span_row) VALUES (:tx, :span_row)";
#define ANCHOR_INSERT_PARAMS(X, Q) X(Q, tx) X(Q, span_row)
LS_PARAMS(aip, ANCHOR_INSERT_PARAMS);

/* Walk up from the transaction's span at q (anchored_tx_sql) to the first
 * span that can anchor (ls_span_is_anchor), itself included: *row is that
 * span, 0 when none (the walk left the export, or the root is a database
 * or client span). */
static int find_anchor(ls_stmt *q, ls_stmt *par, int64_t *row)
{
    char trace[64], parent[32];
    int hops = 0, rc;

    *row = 0;
    if (ls_span_is_anchor((int)ls_stmt_int64(q, at_kind), (int)ls_stmt_int64(q, at_is_db))) {
        *row = ls_stmt_int64(q, at_span_row);
        return 0;
    }
    snprintf(trace, sizeof(trace), "%s", ls_stmt_text(q, at_trace_id));
    snprintf(parent, sizeof(parent), "%s", ls_stmt_text(q, at_parent_id));
    while (parent[0] && hops++ < MAX_ANCHOR_HOPS) {
        ls_stmt_reset(par);
        if ((rc = ls_stmt_bind_text(par, LS_PARAM(app, trace), trace)) != 0 ||
            (rc = ls_stmt_bind_text(par, LS_PARAM(app, span), parent)) != 0 ||
            (rc = ls_stmt_step(par)) <= 0)
            return rc; /* 0: the parent is in another service's export */
        if (ls_span_is_anchor((int)ls_stmt_int64(par, an_kind),
                              (int)ls_stmt_int64(par, an_is_db))) {
            *row = ls_stmt_int64(par, an_span_row);
            return 0;
        }
        snprintf(parent, sizeof(parent), "%s", ls_stmt_text(par, an_parent_id));
    }
    return 0;
}

int ls_correlate_span_anchors(ls_store *s)
{
    ls_stmt *q = NULL, *par = NULL, *ins = NULL;
    int64_t row;
    int rc;

    if ((rc = ls_store_exec(s, anchor_table_sql)) != 0 ||
        (rc = ls_store_prepare(s, anchored_tx_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, anchor_parent_sql, LS_PARAM_NAMES(ANCHOR_PARENT_PARAMS),
                                      &par)) != 0 ||
        (rc = ls_store_prepare_params(s, anchor_insert_sql, LS_PARAM_NAMES(ANCHOR_INSERT_PARAMS),
                                      &ins)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        if ((rc = find_anchor(q, par, &row)) != 0)
            goto out;
        if (!row)
            continue;
        ls_stmt_reset(ins);
        if ((rc = ls_stmt_bind_int64(ins, LS_PARAM(aip, tx), ls_stmt_int64(q, at_tx_id))) != 0 ||
            (rc = ls_stmt_bind_int64(ins, LS_PARAM(aip, span_row), row)) != 0 ||
            (rc = ls_stmt_step(ins)) < 0)
            goto out;
    }
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(par);
    ls_stmt_finalize(ins);
    return rc < 0 ? rc : 0;
}
