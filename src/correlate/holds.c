/*
 * holds.c — logical hot rows, and what the holds others waited for were.
 *
 * Logical rows (ls_correlate_rows): a row's ctid changes with every
 * update, so each wait is keyed to (relation, "col=value") from every piece
 * of evidence the log gives (rowkey.c; docs/correlation.md lists them):
 * the CONTEXT statement of a function or trigger, the waiter's own logged
 * statement with its parameters or PREPARE text, ctid chains, the holder's
 * statements, and statement-shape rules learned from the waits and kept in
 * row_rules for the transactions pass. How each wait was keyed is kept in
 * lock_wait_rows.row_evidence and rows.grouped_by; a wait with no key stays a
 * ctid fragment that says why. The steps stream the waits through a temp
 * table (temp.wrows): the pass's memory does not grow with the log.
 *
 * Holds waited for (ls_correlate_holds): the transactions pass made one
 * hold per (transaction, hot row); here the waits on each add their count
 * and waiting, the end is bounded by the first waiter's acquisition, and
 * the holder's time while others waited is split into SQL, COMMIT and idle
 * in transaction. Where the log lacks the locking statement, the bounds say
 * what is known: the lock was taken after the transaction began and before
 * the first wait began.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corr_tables.h"
#include "correlate_int.h"
#include "ls_columns.h"
#include "ls_sqlshape.h"
#include "decide/idlegap.h"
#include "decide/rowid.h"
#include "ls_logcover.h"
#include "decide/victim.h"
#include "rowkey.h"
#include "rowstats_sql.h"

/* Each row's waits (rowstats_sql.h). */
static const char row_stats_sql[] = LS_ROW_STATS_SQL LS_ROW_CTIDS_SQL LS_ROW_NO_WAITS_SQL;

/* ---- logical rows ---- */

#define WAIT_COLS(X, Q)                                                                \
    X(Q, wait_id, "w.wait_id")                                                         \
    X(Q, session_id, "w.session_id")                                                   \
    X(Q, start_ts, "w.start_ts")                                                       \
    X(Q, relation, "w.relation")                                                       \
    X(Q, ctid, "w.ctid")                                                               \
    X(Q, target_kind, "w.target_kind")                                                 \
    X(Q, target, "w.target")                                                           \
    X(Q, statement, "w.statement")                                                     \
    X(Q, context, LS_TEXT_OF("le.context_id"))                                         \
    X(Q, file_id, "w.file_id")                                                         \
    X(Q, line, "w.line")                                                               \
    X(Q, blocker_session, "w.blocker_session")                                         \
    /* the statement failed in the wait: it logged no line at its end */              \
    X(Q, failed, "w.outcome IN ('deadlock', 'failed', 'lock_timeout',"                 \
                 " 'statement_timeout', 'canceled')")                                  \
    X(Q, waited_ms, "w.waited_ms")
LS_COLUMNS(wq, WAIT_COLS);
#define WAITS_FROM                                                                                 \
    "SELECT " LS_SELECT_LIST(wq,                                                                   \
                             WAIT_COLS) " FROM lock_waits w"                                       \
                                        " LEFT JOIN lock_events le ON le.event_id = w.first_event"
/* wait_id is time order (build_episodes): each wait's statements are read
 * near the ones read just before. */
static const char waits_sql[] = WAITS_FROM " ORDER BY w.wait_id";

/* Of the session's last statements that started before the wait did
 * (sequential in a session: the waiter's is among them), those with the
 * lock message's text (:text_id; NULL: any); :resolution is the timestamps'
 * resolution. The text is read only for those. */
/* A candidate's columns, as read_candidate() reads them, of statement row
 * r whose parameters are PARAMS. */
#define CANDIDATE_LIST(X, Q, PARAMS)                                                   \
    X(Q, stmt_id, "r.stmt_id")                                                         \
    X(Q, file_id, "r.file_id")                                                         \
    X(Q, line, "r.line")                                                               \
    X(Q, has_duration, "r.dur_us IS NOT NULL")                                         \
    /* NULL when :text_id names the text: every candidate has that one */              \
    X(Q, text, "CASE WHEN :text_id IS NULL THEN"                                       \
               " (SELECT t.text FROM stmt_texts t WHERE t.text_id = r.text_id) END")   \
    X(Q, params, PARAMS)                                                               \
    X(Q, prepare, "r.prepare")                                                         \
    X(Q, bind, "r.verb IS 1 /* LS_VERB_BIND */")                                       \
    X(Q, dur_us, "r.dur_us")
#define CANDIDATE_ROW(X, Q) CANDIDATE_LIST(X, Q, "r.params")
LS_COLUMNS(cq, CANDIDATE_ROW);
#define CANDIDATE_REF(X, Q) CANDIDATE_LIST(X, Q, LS_STMT_REF("r", "params"))
#define CANDIDATE_COLS(LIST) "SELECT " LS_SELECT_LIST(cq, LIST)
/* The last 32 yield only their ids and texts' ids; the other columns are
 * read, by id, of those with the text (issue 38: every column of all 32,
 * a parameter list's reference followed for each, was 870 VM steps a
 * wait, most of the logical rows pass). */
#define WAITER_STMTS_PARAMS(X, Q) X(Q, text_id) X(Q, session) X(Q, at) X(Q, resolution)
LS_PARAMS(wsp, WAITER_STMTS_PARAMS);
static const char waiter_stmts_sql[] =
    CANDIDATE_COLS(CANDIDATE_REF) " FROM (SELECT stmt_id, text_id FROM stmt_rows"
    "  WHERE session_id = :session AND start_ts <= :at + :resolution"
    "  AND verb IS NOT 2 /* LS_VERB_PARSE */ ORDER BY start_ts DESC, stmt_id DESC LIMIT 32) x"
    " JOIN stmt_rows r ON r.stmt_id = x.stmt_id WHERE :text_id IS NULL OR x.text_id = :text_id";
/*
 * Whole seconds: a busy session runs the same statement a hundred times in
 * the second of the wait, and start times derived from the second do not
 * order them, so no "last 32 by start" is sure to hold the waiter's. Log
 * positions do: the session's statements begun within a second of the
 * wait and the 32 last before (:before; 256 when the statement found is too
 * short to have waited as long as the wait did), their ids read from the
 * index alone (a session's ids are in its log order), a binary search
 * for the first logged after the wait's message, and the few on each
 * side of it, each read by id.
 */
enum { NEAR_ID = 0 };      /* near_ids_sql's one column */
enum { TEXT_FIND_ID = 0 }; /* LS_TEXT_FIND_NAMED_SQL's */
enum { POS_FILE, POS_LINE }; /* near_pos_sql's */
#define NEAR_IDS_PARAMS(X, Q) X(Q, session) X(Q, at) X(Q, before)
LS_PARAMS(nip, NEAR_IDS_PARAMS);
static const char near_ids_sql[] =
    "SELECT stmt_id FROM stmt_rows WHERE session_id = :session"
    " AND start_ts BETWEEN :at - " LS_SQL_INT(LS_WHOLE_SECOND_US) " AND :at + " LS_SQL_INT(LS_WHOLE_SECOND_US)
    /* and the last before: a statement that ran long before it waited
     * (it may wait several times) began earlier, and so did the ones just
     * before it, but it may be a second out of order among them, and a
     * busy session logs a couple of hundred in a second */
    " UNION ALL SELECT * FROM (SELECT stmt_id FROM stmt_rows WHERE session_id = :session"
    "  AND start_ts < :at - " LS_SQL_INT(LS_WHOLE_SECOND_US) " ORDER BY start_ts DESC LIMIT :before)"
    " ORDER BY 1";
#define NEAR_POS_PARAMS(X, Q) X(Q, id)
LS_PARAMS(npp, NEAR_POS_PARAMS);
static const char near_pos_sql[] = "SELECT file_id, line FROM stmt_rows WHERE stmt_id = :id";
/* (its text first: CANDIDATE_REF's :text_id) */
#define NEAR_ONE_PARAMS(X, Q) X(Q, text_id) X(Q, id)
LS_PARAMS(nop, NEAR_ONE_PARAMS);
static const char near_one_sql[] =
    CANDIDATE_COLS(CANDIDATE_REF)
    " FROM stmt_rows r WHERE r.stmt_id = :id AND r.verb IS NOT 2 /* LS_VERB_PARSE */"
    " AND (:text_id IS NULL OR r.text_id = :text_id)";
#define NEAR_SIDE 16 /* statements read on each side of the wait's message */

/*
 * Millisecond logs: waiter_stmts_sql asked once per wait read a busy
 * session's statements over and over (issue 38: a wait per 30 statements
 * at 1 GiB, the 32 before each read, copied, and joined again by id:
 * 600 VM steps a wait, most of the pass). Instead each session with waits
 * keeps a forward scan of its statements in the query's order (the
 * index's: start_ts, then stmt_id) and a ring of the last 32 begun by its
 * latest wait's bound; a wait takes those with the message's text, by id
 * (near_one_sql), newest first as the query gave them. The scans advance
 * with the waits, in time order, so they read the same pages at the same
 * time. A scan starts (and starts again, when the session's next wait is
 * far ahead or earlier) with waiter_stmts_sql's own inner query. Whether
 * the next wait is far ahead, more than STREAM_AHEAD statements, is
 * counted first from the index alone (stream_gap_sql, parse lines too):
 * a scan read forward up to 33 rows of the session, then started again
 * at 32 more, for each such wait (issue 38: two thirds of the rows the
 * streams read, 1.12 M at 1 GiB).
 */
#define STREAM_LAST 32  /* waiter_stmts_sql's LIMIT */
#define STREAM_SLOTS 64 /* sessions scanned at once (a session's slot: its id modulo) */
#define STREAM_AHEAD 32 /* statements a scan reads forward before it starts again */
enum { SS_ID, SS_TS, SS_TEXT, SS_FILE, SS_LINE, SS_DUR, SS_BIND };
/* What ls_pick_waiter_line() weighs of each (read_candidate's); the
 * texts are read of the one it picks only. */
#define STREAM_COLS                                                                                \
    "SELECT stmt_id, start_ts, text_id, file_id, line, dur_us, verb IS 1 /* LS_VERB_BIND */"
#define STREAM_PARAMS(X, Q) X(Q, session) X(Q, bound) /* stream_last_sql's, stream_next_sql's */
LS_PARAMS(ssp, STREAM_PARAMS);
static const char stream_last_sql[] =
    STREAM_COLS " FROM stmt_rows WHERE session_id = :session"
    " AND start_ts <= :bound AND verb IS NOT 2 /* LS_VERB_PARSE */"
    " ORDER BY start_ts DESC, stmt_id DESC LIMIT " LS_SQL_INT(STREAM_LAST);
static const char stream_next_sql[] =
    STREAM_COLS " FROM stmt_rows WHERE session_id = :session"
    " AND start_ts > :bound AND verb IS NOT 2 /* LS_VERB_PARSE */ ORDER BY start_ts, stmt_id";
/* The session's statements begun after the ring's bound, by the next
 * one, up to one more than STREAM_AHEAD (statements_session covers it). */
#define STREAM_GAP_PARAMS(X, Q) X(Q, session) X(Q, at) X(Q, bound)
LS_PARAMS(gap, STREAM_GAP_PARAMS);
static const char stream_gap_sql[] =
    "SELECT count(*) FROM (SELECT 1 FROM stmt_rows WHERE session_id = :session"
    " AND start_ts > :at AND start_ts <= :bound LIMIT " LS_SQL_INT(STREAM_AHEAD + 1) ")";

typedef struct stream_ent {
    int64_t id, ts, text_id; /* text_id: -2 for NULL (a lock text not found is -1) */
    ls_logpos pos;
    int64_t dur_us;
    int has_duration, bind;
} stream_ent;

typedef struct stream_slot {
    ls_stmt *next_q;     /* stream_next_sql of this session, or NULL */
    int64_t session, at; /* its session; the bound the ring is at */
    int started, has_next, done;
    stream_ent next;              /* the scan's row not yet in the ring */
    stream_ent ring[STREAM_LAST]; /* ring[(head - 1 - i) mod LAST], i < n: newest first */
    int head, n;
} stream_slot;

typedef struct stmt_stream {
    ls_store *s;
    ls_stmt *last_q, *one, *gap; /* stream_last_sql, near_one_sql, stream_gap_sql */
    stream_slot *slot;           /* STREAM_SLOTS of them */
} stmt_stream;

/* The holder's statements before the wait (its session: the blocker's),
 * latest first in log order (whole-second start times do not order them). */
#define HOLDER_STMT_COLS(X, Q)                                                         \
    X(Q, text, "text")                                                                 \
    X(Q, params, "params")                                                             \
    X(Q, prepare, "prepare")                                                           \
    X(Q, file_id, "file_id")                                                           \
    X(Q, line, "line")
LS_COLUMNS(hs, HOLDER_STMT_COLS);
/* A session's statements from spans count only where the log has none
 * of its own: spans.c adds a pooled deadlock victim's BEGIN and ROLLBACK
 * to a session that logged statements, after them in stmt_id order. */
#define HOLDER_STMTS_PARAMS(X, Q) X(Q, session) X(Q, at) X(Q, resolution)
LS_PARAMS(hsp, HOLDER_STMTS_PARAMS);
static const char holder_stmts_sql[] =
    "SELECT " LS_SELECT_LIST(hs, HOLDER_STMT_COLS) " FROM (SELECT * FROM statements"
    " WHERE session_id = :session AND start_ts <= :at + :resolution AND verb IS NOT 'parse'"
    " AND (verb IS NOT 'span' OR NOT EXISTS (SELECT 1 FROM stmt_rows x"
    "  WHERE x.session_id = :session AND x.verb IS NOT 5))" /* LS_VERB_SPAN */
    " ORDER BY start_ts DESC, stmt_id DESC LIMIT 24) ORDER BY stmt_id DESC";

enum { FIND_ROW_ID = 0 }; /* find_row_sql's one column */
#define FIND_ROW_PARAMS(X, Q) X(Q, relation) X(Q, row_key)
LS_PARAMS(frp, FIND_ROW_PARAMS);
static const char find_row_sql[] =
    "SELECT row_id FROM row_keys WHERE relation = :relation AND row_key = :row_key";
/* A new row: grouped_by is its evidence (bound to both). */
LS_TABLE_COLUMNS(row_keys);
static const char insert_row_sql[] = LS_INSERT_INTO("INSERT", row_keys);
LS_TABLE_COLUMNS(wait_rows);
static const char set_row_sql[] = LS_INSERT_INTO("INSERT", wait_rows);
/* A rule's target and target_col: NULL for none (empty). */
LS_TABLE_COLUMNS(row_rules);
static const char insert_rule_sql[] = LS_INSERT_INTO("INSERT", row_rules);

/* Bind text v as parameter i of st, NULL when empty (as nullif(v, '')). */
static void bind_text_or_null(ls_stmt *st, int i, const char *v)
{
    if (v && !*v)
        ls_stmt_bind_null(st, i);
    else
        ls_stmt_bind_text(st, i, v);
}

/* Bind v as parameter i of st, NULL when it equals same (as nullif(v, same)). */
static void bind_unless_same(ls_stmt *st, int i, int64_t v, int64_t same)
{
    if (v == same)
        ls_stmt_bind_null(st, i);
    else
        ls_stmt_bind_int64(st, i, v);
}

/*
 * One wait while its own evidence is read (step 1 of ls_correlate_rows);
 * the pass keeps no more of them in memory: each is then a row of
 * temp.wrows, and the later steps stream that table.
 */
typedef struct wait_row {
    int64_t wait_id, session_id, start_ts, stmt_id;
    const char *rel, *ctid; /* "" when unknown, never NULL */
    const char *col;        /* the key column a function's statement names, or "" */
    char *sql, *params, *prepare; /* the waiter's statement as the server ran it (owned) */
    int64_t holder_session, file, line; /* file, line: the wait's first message */
} wait_row;

static char *dup_or_null(const char *s)
{
    return s ? ls_strdup(s) : NULL;
}

#define MAX_CANDIDATES 32

typedef struct candidate {
    ls_stmt_candidate c;
    ls_logpos pos;
    int64_t id;
    char *text, *params, *prepare;
} candidate;

static int by_position(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    return ls_logpos_cmp(x->pos, y->pos);
}

/* A candidate from a row of waiter_stmts_sql or near_one_sql, placed
 * against the wait's message at `msg`; its text is `text` (the lock
 * message's, whose text_id the query was given as :text_id) when the row has
 * none (issue 38: the text read by the text_id of each candidate). */
static void read_candidate(candidate *c, ls_stmt *q, ls_logpos msg, const char *text)
{
    if (!text || !ls_stmt_isnull(q, cq_text))
        text = ls_stmt_text(q, cq_text); /* "" for none, as ever */
    c->id = ls_stmt_int64(q, cq_stmt_id);
    c->pos.file = ls_stmt_int64(q, cq_file_id);
    c->pos.line = ls_stmt_int64(q, cq_line);
    c->c.after = ls_logpos_cmp(c->pos, msg) > 0;
    c->c.has_duration = (int)ls_stmt_int64(q, cq_has_duration);
    c->c.bind = (int)ls_stmt_int64(q, cq_bind);
    c->c.dur_us = ls_stmt_int64(q, cq_dur_us);
    c->text = dup_or_null(text);
    c->params = ls_stmt_isnull(q, cq_params) ? NULL : dup_or_null(ls_stmt_text(q, cq_params));
    c->prepare = ls_stmt_isnull(q, cq_prepare) ? NULL : dup_or_null(ls_stmt_text(q, cq_prepare));
}

/* The waiter's statement among n candidates, sorted into log order here:
 * ls_pick_waiter_line() decides (decide/stmt.c). Returns its index, or -1. */
static int pick_candidate(candidate *c, int n, int failed)
{
    ls_stmt_candidate pc[MAX_CANDIDATES];
    int i;

    qsort(c, (size_t)n, sizeof(c[0]), by_position);
    for (i = 0; i < n; i++)
        pc[i] = c[i].c;
    return ls_pick_waiter_line(pc, n, failed);
}

/* Keep candidate `pick` in w (none when -1) and free the others. */
static void keep_candidate(wait_row *w, candidate *c, int n, int pick)
{
    int i;
    for (i = 0; i < n; i++) {
        if (i == pick) {
            w->stmt_id = c[i].id;
            w->sql = c[i].text;
            w->params = c[i].params;
            w->prepare = c[i].prepare;
        } else {
            free(c[i].text);
            free(c[i].params);
            free(c[i].prepare);
        }
    }
}

/* The queries of near_candidates() and the ids they read. */
typedef struct near_q {
    ls_stmt *ids, *pos, *one;
    int64_t *v;
    size_t cap;
} near_q;

/* 1: statement `id` was logged after `msg`, 0: not, < 0: error. */
static int logged_after(ls_stmt *pos, int64_t id, ls_logpos msg)
{
    ls_logpos at;
    int rc;
    ls_stmt_reset(pos);
    if ((rc = ls_stmt_bind_int64(pos, LS_PARAM(npp, id), id)) != 0 || (rc = ls_stmt_step(pos)) != 1)
        return rc;
    at.file = ls_stmt_int64(pos, POS_FILE);
    at.line = ls_stmt_int64(pos, POS_LINE);
    return ls_logpos_cmp(at, msg) > 0;
}

/* The candidates of whole-second logs (near_ids_sql): *n of them in c;
 * those of text_id only, whose text is `text`, unless `text` is NULL. */
static int near_candidates(near_q *nq, const wait_row *w, int64_t before, const char *text,
                           int64_t text_id, ls_logpos msg, candidate *c, int *n)
{
    size_t count = 0, lo, hi, i;
    int rc;

    *n = 0;
    ls_stmt_reset(nq->ids);
    if ((rc = ls_stmt_bind_int64(nq->ids, LS_PARAM(nip, session), w->session_id)) != 0 ||
        (rc = ls_stmt_bind_int64(nq->ids, LS_PARAM(nip, at), w->start_ts)) != 0 ||
        (rc = ls_stmt_bind_int64(nq->ids, LS_PARAM(nip, before), before)) != 0)
        return rc;
    while ((rc = ls_stmt_step(nq->ids)) == 1) {
        if (count == nq->cap) {
            size_t cap = nq->cap ? 2 * nq->cap : 256;
            int64_t *v = realloc(nq->v, cap * sizeof(*v));
            if (!v)
                return LS_ENOMEM;
            nq->v = v;
            nq->cap = cap;
        }
        nq->v[count++] = ls_stmt_int64(nq->ids, NEAR_ID);
    }
    if (rc < 0)
        return rc;
    /* lo: the first logged after the message */
    for (lo = 0, hi = count; lo < hi;) {
        size_t mid = lo + (hi - lo) / 2;
        if ((rc = logged_after(nq->pos, nq->v[mid], msg)) < 0)
            return rc;
        if (rc)
            hi = mid;
        else
            lo = mid + 1;
    }
    for (i = lo > NEAR_SIDE ? lo - NEAR_SIDE : 0; i < count && i < lo + NEAR_SIDE; i++) {
        ls_stmt_reset(nq->one); /* and its bindings */
        if ((rc = ls_stmt_bind_int64(nq->one, LS_PARAM(nop, id), nq->v[i])) != 0 ||
            (text && (rc = ls_stmt_bind_int64(nq->one, LS_PARAM(nop, text_id), text_id)) != 0) ||
            (rc = ls_stmt_step(nq->one)) < 0)
            return rc;
        if (rc == 1 && *n < MAX_CANDIDATES)
            read_candidate(&c[(*n)++], nq->one, msg, text);
    }
    return 0;
}

/* Statement e is the session's latest in the ring. */
static void stream_push(stream_slot *sl, const stream_ent *e)
{
    sl->ring[sl->head] = *e;
    sl->head = (sl->head + 1) % STREAM_LAST;
    if (sl->n < STREAM_LAST)
        sl->n++;
}

static void stream_ent_of(ls_stmt *q, stream_ent *e)
{
    e->id = ls_stmt_int64(q, SS_ID);
    e->ts = ls_stmt_int64(q, SS_TS);
    e->text_id = ls_stmt_isnull(q, SS_TEXT) ? -2 : ls_stmt_int64(q, SS_TEXT);
    e->pos.file = ls_stmt_int64(q, SS_FILE);
    e->pos.line = ls_stmt_int64(q, SS_LINE);
    e->has_duration = !ls_stmt_isnull(q, SS_DUR);
    e->dur_us = ls_stmt_int64(q, SS_DUR);
    e->bind = (int)ls_stmt_int64(q, SS_BIND);
}

/* (Re)start slot sl at session's statements begun by `bound`: the last
 * STREAM_LAST of them into the ring, the scan from after them. */
static int stream_start(stmt_stream *ss, stream_slot *sl, int64_t session, int64_t bound)
{
    stream_ent got[STREAM_LAST];
    int n = 0, rc = 0;

    ls_stmt_reset(ss->last_q);
    if ((rc = ls_stmt_bind_int64(ss->last_q, LS_PARAM(ssp, session), session)) != 0 ||
        (rc = ls_stmt_bind_int64(ss->last_q, LS_PARAM(ssp, bound), bound)) != 0)
        return rc;
    while (n < STREAM_LAST && (rc = ls_stmt_step(ss->last_q)) == 1)
        stream_ent_of(ss->last_q, &got[n++]);
    ls_stmt_reset(ss->last_q);
    if (n < STREAM_LAST && rc < 0)
        return rc;
    sl->head = sl->n = 0;
    while (n > 0)
        stream_push(sl, &got[--n]); /* oldest first */
    if (!sl->next_q && (rc = ls_store_prepare_params(ss->s, stream_next_sql, LS_PARAM_NAMES(STREAM_PARAMS), &sl->next_q)) != 0)
        return rc;
    ls_stmt_reset(sl->next_q);
    if ((rc = ls_stmt_bind_int64(sl->next_q, LS_PARAM(ssp, session), session)) != 0 ||
        (rc = ls_stmt_bind_int64(sl->next_q, LS_PARAM(ssp, bound), bound)) != 0)
        return rc;
    sl->session = session;
    sl->at = bound;
    sl->started = 1;
    sl->has_next = sl->done = 0;
    return 0;
}

/* Session's slot with its ring at `bound`: the last STREAM_LAST of the
 * session's statements begun by then. Bounds grow from one wait of a
 * session to its next (wait_id is start order); one that does not starts
 * the slot again. */
static int stream_to(stmt_stream *ss, int64_t session, int64_t bound, stream_slot **out)
{
    stream_slot *sl = &ss->slot[(uint64_t)session % STREAM_SLOTS];
    int rc, read = 0;

    *out = sl;
    if (!sl->started || sl->session != session || bound < sl->at)
        return stream_start(ss, sl, session, bound);
    if (bound > sl->at && !sl->done && !(sl->has_next && sl->next.ts > bound)) {
        /* far ahead: seek there, not read the statements between (not
         * asked when the scan's next row is past the bound already) */
        ls_stmt_reset(ss->gap);
        ls_stmt_bind_int64(ss->gap, LS_PARAM(gap, session), session);
        ls_stmt_bind_int64(ss->gap, LS_PARAM(gap, at), sl->at);
        ls_stmt_bind_int64(ss->gap, LS_PARAM(gap, bound), bound);
        if ((rc = ls_stmt_step(ss->gap)) != 1)
            return rc < 0 ? rc : LS_ESTORE;
        if (ls_stmt_int64(ss->gap, LS_ONLY_COLUMN) > STREAM_AHEAD)
            return stream_start(ss, sl, session, bound);
    }
    for (;;) {
        if (!sl->has_next && !sl->done) {
            if ((rc = ls_stmt_step(sl->next_q)) < 0)
                return rc;
            if (rc == 1) {
                stream_ent_of(sl->next_q, &sl->next);
                sl->has_next = 1;
            } else {
                sl->done = 1;
            }
        }
        if (!sl->has_next || sl->next.ts > bound)
            break;
        if (++read > STREAM_AHEAD)
            return stream_start(ss, sl, session, bound); /* far ahead: seek there */
        stream_push(sl, &sl->next);
        sl->has_next = 0;
    }
    sl->at = bound;
    return 0;
}

/* The candidates of a millisecond log from the stream: those of the last
 * 32 with text_id (all when `text` is NULL), newest first, as
 * read_candidate() makes them but for their texts (stream_texts() reads
 * the picked one's); *n of them in c. */
static int stream_candidates(stmt_stream *ss, const wait_row *w, int64_t bound, const char *text,
                             int64_t text_id, ls_logpos msg, candidate *c, int *n)
{
    stream_slot *sl;
    int i, rc;

    *n = 0;
    if ((rc = stream_to(ss, w->session_id, bound, &sl)) != 0)
        return rc;
    for (i = 0; i < sl->n; i++) {
        const stream_ent *e = &sl->ring[(sl->head - 1 - i + 2 * STREAM_LAST) % STREAM_LAST];
        candidate *k;
        if ((text && e->text_id != text_id) || *n >= MAX_CANDIDATES)
            continue;
        k = &c[(*n)++];
        memset(k, 0, sizeof(*k));
        k->id = e->id;
        k->pos = e->pos;
        k->c.after = ls_logpos_cmp(k->pos, msg) > 0;
        k->c.has_duration = e->has_duration;
        k->c.bind = e->bind;
        k->c.dur_us = e->dur_us;
    }
    return 0;
}

/* The texts of candidate k, picked: its row read by id (near_one_sql),
 * as read_candidate() reads it. */
static int stream_texts(stmt_stream *ss, candidate *k, ls_logpos msg, const char *text,
                        int64_t text_id)
{
    int rc;
    ls_stmt_reset(ss->one); /* and its bindings */
    if ((rc = ls_stmt_bind_int64(ss->one, LS_PARAM(nop, id), k->id)) == 0 &&
        (!text || (rc = ls_stmt_bind_int64(ss->one, LS_PARAM(nop, text_id), text_id)) == 0) &&
        (rc = ls_stmt_step(ss->one)) == 1)
        read_candidate(k, ss->one, msg, text);
    return rc < 0 ? rc : 0;
}

/* Whether the near candidates may have missed the waiter's statement
 * (ls_waiter_stmt_missed() decides). */
static int missed_waiter(const candidate *c, int pick, int failed, double waited_ms)
{
    return ls_waiter_stmt_missed(pick >= 0 ? &c[pick].c : NULL, failed, waited_ms);
}

/* Fill w->sql, params, prepare and stmt_id: the session's statement with
 * the lock message's text, by ls_pick_waiter_stmt() over log positions;
 * a statement that failed in its wait (a deadlock victim, a timeout) has
 * no execute line, but its bind line, logged before, has the parameters.
 * With whole-second times (nq) the statements around the message's
 * position first (32 before those begun around the wait, 256 when that
 * missed it); the last by start time when none of them is. */
static int waiter_statement(ls_stmt *q, near_q *nq, stmt_stream *ss, ls_stmt *tq, wait_row *w,
                            const char *lock_stmt, ls_logpos msg, int64_t resolution, int failed,
                            double waited_ms)
{
    candidate c[MAX_CANDIDATES];
    int n = 0, rc, has_text = 0, pick;
    int64_t text_id = -1; /* a text no statement has: no candidate */

    if (lock_stmt) {
        ls_stmt_reset(tq);
        if ((rc = ls_stmt_bind_int64(tq, LS_PARAM(tfp, hash), ls_text_hash(lock_stmt))) != 0 ||
            (rc = ls_stmt_bind_text(tq, LS_PARAM(tfp, text), lock_stmt)) != 0 ||
            (rc = ls_stmt_step(tq)) < 0)
            return rc;
        has_text = 1;
        if (rc == 1)
            text_id = ls_stmt_int64(tq, TEXT_FIND_ID);
    }
    if (nq) {
        rc = near_candidates(nq, w, 32, has_text ? lock_stmt : NULL, text_id, msg, c, &n);
        pick = rc < 0 ? -1 : pick_candidate(c, n, failed);
        if (rc == 0 && missed_waiter(c, pick, failed, waited_ms)) {
            keep_candidate(w, c, n, -1);
            rc = near_candidates(nq, w, 256, has_text ? lock_stmt : NULL, text_id, msg, c, &n);
            pick = rc < 0 ? -1 : pick_candidate(c, n, failed);
        }
        keep_candidate(w, c, n, pick);
        if (rc < 0 || pick >= 0)
            return rc < 0 ? rc : 0;
        n = 0;
    }
    if (ss) {
        rc = stream_candidates(ss, w, w->start_ts + resolution, has_text ? lock_stmt : NULL,
                               text_id, msg, c, &n);
        pick = rc < 0 ? -1 : pick_candidate(c, n, failed);
        if (pick >= 0)
            rc = stream_texts(ss, &c[pick], msg, has_text ? lock_stmt : NULL, text_id);
        keep_candidate(w, c, n, rc < 0 ? -1 : pick);
        return rc < 0 ? rc : 0;
    }
    ls_stmt_reset(q);
    if ((rc = ls_stmt_bind_int64(q, LS_PARAM(wsp, session), w->session_id)) != 0 ||
        (rc = ls_stmt_bind_int64(q, LS_PARAM(wsp, at), w->start_ts)) != 0 ||
        (rc = ls_stmt_bind_int64(q, LS_PARAM(wsp, resolution), resolution)) != 0 ||
        (has_text && (rc = ls_stmt_bind_int64(q, LS_PARAM(wsp, text_id), text_id)) != 0))
        return rc;
    while ((rc = ls_stmt_step(q)) == 1 && n < MAX_CANDIDATES)
        read_candidate(&c[n++], q, msg, has_text ? lock_stmt : NULL);
    keep_candidate(w, c, n, rc < 0 ? -1 : pick_candidate(c, n, failed));
    return rc < 0 ? rc : 0;
}

/*
 * The waits of this pass, one row each, streamed by every step below (in
 * wait_id order, or sorted by the query): memory does not grow with the
 * log. rel, ctid, key and col are '' when unknown; sql, params and
 * prepare are kept only while they may still key a wait or teach a rule.
 */
static const char wrows_sql[] =
    "DROP TABLE IF EXISTS temp.wrows;"
    "DROP TABLE IF EXISTS temp.wkeys;"
    "CREATE TEMP TABLE wrows(wait_id INTEGER PRIMARY KEY, session_id INTEGER,"
    " start_ts INTEGER, stmt_id INTEGER, rel TEXT, ctid TEXT, key TEXT, col TEXT,"
    " grouped_by TEXT, sql TEXT, params TEXT, prepare TEXT, keyed INTEGER, via_ctid INTEGER,"
    " holder_session INTEGER, file INTEGER, line INTEGER);"
    /* Keys a step found, applied when its scan is over. */
    "CREATE TEMP TABLE wkeys(wait_id INTEGER PRIMARY KEY, rel TEXT, key TEXT,"
    " grouped_by TEXT);";

#define WROW_PARAMS(X, Q)                                                                          \
    X(Q, wait_id) X(Q, session_id) X(Q, start_ts) X(Q, stmt_id) X(Q, rel) X(Q, ctid) X(Q, key)     \
    X(Q, col) X(Q, grouped_by) X(Q, sql) X(Q, params) X(Q, prepare) X(Q, keyed)                    \
    X(Q, holder_session) X(Q, file) X(Q, line)
LS_PARAMS(wr, WROW_PARAMS);
static const char wrow_insert_sql[] =
    "INSERT INTO temp.wrows(wait_id, session_id, start_ts, stmt_id, rel, ctid, key, col,"
    " grouped_by, sql, params, prepare, keyed, via_ctid, holder_session, file, line)"
    " VALUES (:wait_id, :session_id, :start_ts, :stmt_id, :rel, :ctid, :key, :col, :grouped_by,"
    " :sql, :params, :prepare, :keyed, 0, :holder_session, :file, :line)";

#define WKEY_PARAMS(X, Q) X(Q, wait_id) X(Q, rel) X(Q, key) X(Q, grouped_by)
LS_PARAMS(wk, WKEY_PARAMS);
static const char wkey_insert_sql[] =
    "INSERT OR REPLACE INTO temp.wkeys(wait_id, rel, key, grouped_by)"
    " VALUES (:wait_id, :rel, :key, :grouped_by)";

/* A key found without its ctid's help names others by ctid; one found by
 * a ctid names no others. */
static const char wkeys_apply_sql[] =
    "UPDATE temp.wrows SET keyed = 1, key = k.key, grouped_by = k.grouped_by,"
    " rel = CASE WHEN wrows.rel = '' THEN k.rel ELSE wrows.rel END,"
    " via_ctid = k.grouped_by = '" LS_GROUPED_CTID "'"
    " FROM temp.wkeys k WHERE wrows.wait_id = k.wait_id;"
    "DELETE FROM temp.wkeys;";

/* A step's scan is over: close it, then apply the keys it found. */
static int apply_found_keys(ls_store *s, ls_stmt **scan)
{
    ls_stmt_finalize(*scan);
    *scan = NULL;
    return ls_store_exec(s, wkeys_apply_sql);
}

static int wkey_add(ls_stmt *add, int64_t wait_id, const char *rel, const char *key,
                    const char *grouped_by)
{
    int rc;
    ls_stmt_reset(add);
    if ((rc = ls_stmt_bind_int64(add, LS_PARAM(wk, wait_id), wait_id)) != 0 ||
        (rc = ls_stmt_bind_text(add, LS_PARAM(wk, rel), rel)) != 0 ||
        (rc = ls_stmt_bind_text(add, LS_PARAM(wk, key), key)) != 0 ||
        (rc = ls_stmt_bind_text(add, LS_PARAM(wk, grouped_by), grouped_by)) != 0)
        return rc;
    rc = ls_stmt_step(add);
    return rc < 0 ? rc : 0;
}

/* The key column each relation's keyed waits use (the first such wait's),
 * for the holder step; relations are few. */
typedef struct rel_col {
    char rel[128], col[64];
} rel_col;

typedef struct rel_cols {
    rel_col *v;
    size_t n;
} rel_cols;

static const char *rel_col_find(const rel_cols *m, const char *rel)
{
    size_t i;
    for (i = 0; i < m->n; i++)
        if (strcmp(m->v[i].rel, rel) == 0)
            return m->v[i].col;
    return NULL;
}

static int rel_col_add(rel_cols *m, const char *rel, const char *key)
{
    const char *eq = strchr(key, '=');
    rel_col *nv;
    if (!eq || rel_col_find(m, rel))
        return 0;
    if (!(nv = realloc(m->v, (m->n + 1) * sizeof(*nv))))
        return LS_ENOMEM;
    m->v = nv;
    snprintf(nv[m->n].rel, sizeof(nv[m->n].rel), "%s", rel);
    snprintf(nv[m->n].col, sizeof(nv[m->n].col), "%.*s", (int)(eq - key), key);
    m->n++;
    return 0;
}

/*
 * The holder's statements say which row it holds: its own writes to the
 * relation (a key in the text, bound parameters, or a learned rule for a
 * function it called) naming exactly one key; else the most recent of its
 * statements that shares exactly one argument value with the waiter's
 * statement (both called functions that lock the row: the shared value is
 * the key). Read back from the wait to the holder's BEGIN. Returns 1 with
 * key set, 0 when the holder does not tell, or an error.
 */
static int key_from_holder(ls_stmt *hq, const wait_row *w, int64_t resolution, const char *col,
                           const ls_shape_rule *rules, size_t nrules, char *key, size_t keylen)
{
    const char *wsql, *wparams;
    char wpbuf[1024], found[192] = "", via_call[192] = "";
    int rc, writes = 0, conflict = 0;

    if (!w->sql)
        return 0;
    ls_rowkey_effective(w->sql, w->params, w->prepare, &wsql, &wparams, wpbuf, sizeof(wpbuf));
    ls_stmt_reset(hq);
    if ((rc = ls_stmt_bind_int64(hq, LS_PARAM(hsp, session), w->holder_session)) != 0 ||
        (rc = ls_stmt_bind_int64(hq, LS_PARAM(hsp, at), w->start_ts)) != 0 ||
        (rc = ls_stmt_bind_int64(hq, LS_PARAM(hsp, resolution), resolution)) != 0)
        return rc;
    while ((rc = ls_stmt_step(hq)) == 1) {
        const char *text = ls_stmt_text(hq, hs_text), *hsql, *hparams;
        const char *params = ls_stmt_isnull(hq, hs_params) ? NULL : ls_stmt_text(hq, hs_params);
        const char *prepare = ls_stmt_isnull(hq, hs_prepare) ? NULL : ls_stmt_text(hq, hs_prepare);
        char hpbuf[1024], shape[512];
        ls_rowkey_evidence ev = {text, params, prepare, NULL, w->rel};
        ls_rowkey k;
        int keyed = 0;
        size_t r;

        int64_t f = ls_stmt_int64(hq, hs_file_id), l = ls_stmt_int64(hq, hs_line);
        if (f > w->file || (f == w->file && l > w->line))
            continue; /* logged after the wait's message (whole-second times) */
        if (ls_sql_kind_of(text) == LS_SQL_BEGIN)
            break;
        ls_rowkey_effective(text, params, prepare, &hsql, &hparams, hpbuf, sizeof(hpbuf));
        keyed = ls_rowkey_of(&ev, &k) && strcmp(k.rel, w->rel) == 0;
        if (!keyed && nrules) {
            ls_rowkey_shape(hsql, shape, sizeof(shape));
            for (r = 0; r < nrules && !keyed; r++)
                keyed = strcmp(rules[r].rel, w->rel) == 0 &&
                        ls_rowkey_apply(&rules[r], shape, hsql, hparams, &k);
        }
        if (keyed) {
            if (writes && strcmp(found, k.key) != 0)
                conflict = 1;
            snprintf(found, sizeof(found), "%s", k.key);
            writes++;
            continue;
        }
        if (!via_call[0])
            ls_rowkey_shared_arg(wsql, wparams, hsql, hparams, col, via_call, sizeof(via_call));
    }
    if (rc < 0)
        return rc;
    if (writes && !conflict)
        snprintf(key, keylen, "%s", found);
    else if (via_call[0] && !writes)
        snprintf(key, keylen, "%s", via_call);
    else
        return 0;
    return 1;
}

/* An unkeyed wait's columns as the holder and rule steps read them. */
#define WROW_LIST(X, Q)                                                                \
    X(Q, wait_id, "wait_id")                                                           \
    X(Q, session_id, "session_id")                                                     \
    X(Q, start_ts, "start_ts")                                                         \
    X(Q, rel, "rel")                                                                   \
    X(Q, col, "col")                                                                   \
    X(Q, sql, "sql")                                                                   \
    X(Q, params, "params")                                                             \
    X(Q, prepare, "prepare")                                                           \
    X(Q, holder_session, "holder_session")                                             \
    X(Q, file, "file")                                                                 \
    X(Q, line, "line")
LS_COLUMNS(wr, WROW_LIST);
#define WROW_COLS LS_SELECT_LIST(wr, WROW_LIST)

static void wrow_of(ls_stmt *q, wait_row *w)
{
    memset(w, 0, sizeof(*w));
    w->wait_id = ls_stmt_int64(q, wr_wait_id);
    w->session_id = ls_stmt_int64(q, wr_session_id);
    w->start_ts = ls_stmt_int64(q, wr_start_ts);
    w->rel = ls_stmt_text(q, wr_rel);
    w->col = ls_stmt_text(q, wr_col);
    /* Borrowed from the row: const only in spirit, never freed here. */
    w->sql = ls_stmt_isnull(q, wr_sql) ? NULL : (char *)ls_stmt_text(q, wr_sql);
    w->params = ls_stmt_isnull(q, wr_params) ? NULL : (char *)ls_stmt_text(q, wr_params);
    w->prepare = ls_stmt_isnull(q, wr_prepare) ? NULL : (char *)ls_stmt_text(q, wr_prepare);
    w->holder_session = ls_stmt_int64(q, wr_holder_session);
    w->file = ls_stmt_int64(q, wr_file);
    w->line = ls_stmt_int64(q, wr_line);
}

/* Each relation's first key (key_waits_from_holders). */
#define REL_KEY_COLS(X, Q)                                                             \
    X(Q, rel, "rel")                                                                   \
    X(Q, key, "key")                                                                   \
    X(Q, first_wait, "min(wait_id)")
LS_COLUMNS(rk, REL_KEY_COLS);

/* *keyed: how many waits it keyed. */
static int key_waits_from_holders(ls_store *s, ls_stmt *hq, int64_t resolution,
                                  const ls_shape_rule *rules, size_t nrules, size_t *keyed)
{
    ls_stmt *q = NULL, *add = NULL;
    rel_cols cols = {NULL, 0};
    int rc;

    /* Each relation's key column, from its first wait keyed on its own
     * evidence; a relation with none takes it from the first wait this step
     * keys. */
    if ((rc = ls_store_prepare(s, "SELECT " LS_SELECT_LIST(rk, REL_KEY_COLS) " FROM temp.wrows"
                                  " WHERE keyed AND NOT via_ctid AND instr(key, '=') > 0"
                                  " GROUP BY rel", &q)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1)
        if ((rc = rel_col_add(&cols, ls_stmt_text(q, rk_rel), ls_stmt_text(q, rk_key))) != 0)
            goto out;
    ls_stmt_finalize(q);
    q = NULL;
    if (rc < 0 ||
        (rc = ls_store_prepare(s, "SELECT " WROW_COLS " FROM temp.wrows WHERE NOT keyed"
                                  " AND rel <> '' AND holder_session AND sql IS NOT NULL"
                                  " ORDER BY wait_id", &q)) != 0 ||
        (rc = ls_store_prepare_params(s, wkey_insert_sql, LS_PARAM_NAMES(WKEY_PARAMS), &add)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        wait_row w;
        char key[192];
        const char *col;
        int found;
        wrow_of(q, &w);
        col = w.col[0] ? w.col : rel_col_find(&cols, w.rel);
        if ((found = key_from_holder(hq, &w, resolution, col, rules, nrules, key,
                                     sizeof(key))) < 0) {
            rc = found;
            goto out;
        }
        if (found && ((rc = wkey_add(add, w.wait_id, w.rel, key, LS_GROUPED_HOLDER)) != 0 ||
                      (rc = rel_col_add(&cols, w.rel, key)) != 0))
            goto out;
        *keyed += found != 0;
    }
    if (rc == 0)
        rc = apply_found_keys(s, &q);
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(add);
    free(cols.v);
    return rc < 0 ? rc : 0;
}

/* The resolution of the log's statement times: 1 ms (%m, csvlog,
 * jsonlog), or a whole second (%t) when no time has sub-second digits
 * (but those a span gave, stmt_span_time). */
int ls_correlate_log_resolution(ls_store *s, int64_t *out)
{
    ls_stmt *q = NULL;
    enum { SUBSECOND, ANY };
    int rc = ls_store_prepare(s, "SELECT EXISTS (SELECT 1 FROM statements"
                                 " WHERE log_ts % " LS_SQL_INT(LS_WHOLE_SECOND_US) " <> 0"
                                 " AND verb IS NOT 'span'"
                                 " AND stmt_id NOT IN (SELECT stmt_id FROM stmt_span_time)),"
                                 " EXISTS (SELECT 1 FROM statements WHERE verb IS NOT 'span')",
                              &q);
    *out = LS_MILLISECOND_US;
    if (rc != 0)
        return rc;
    if ((rc = ls_stmt_step(q)) == 1 && ls_stmt_int64(q, SUBSECOND) == 0 && ls_stmt_int64(q, ANY))
        *out = LS_WHOLE_SECOND_US;
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

static int row_for(ls_stmt *find, ls_stmt *ins, const char *rel, const char *key,
                   const char *evidence, int64_t *out, ls_correlate_stats *stats)
{
    int rc;
    ls_stmt_reset(find);
    if ((rc = ls_stmt_bind_text(find, LS_PARAM(frp, relation), rel)) != 0 ||
        (rc = ls_stmt_bind_text(find, LS_PARAM(frp, row_key), key)) != 0 ||
        (rc = ls_stmt_step(find)) < 0)
        return rc;
    if (rc == 1) {
        *out = ls_stmt_int64(find, FIND_ROW_ID);
        return 0;
    }
    ls_stmt_reset(ins);
    if ((rc = ls_stmt_bind_text(ins, LS_PARAM(row_keys, relation), rel)) != 0 ||
        (rc = ls_stmt_bind_text(ins, LS_PARAM(row_keys, row_key), key)) != 0 ||
        (rc = ls_stmt_bind_text(ins, LS_PARAM(row_keys, evidence), evidence)) != 0 ||
        (rc = ls_stmt_bind_text(ins, LS_PARAM(row_keys, grouped_by), evidence)) != 0 ||
        (rc = ls_stmt_step(ins)) < 0)
        return rc;
    stats->rows++;
    /* The new row is the one find now sees. */
    ls_stmt_reset(find);
    if ((rc = ls_stmt_bind_text(find, LS_PARAM(frp, relation), rel)) != 0 ||
        (rc = ls_stmt_bind_text(find, LS_PARAM(frp, row_key), key)) != 0 ||
        (rc = ls_stmt_step(find)) != 1)
        return rc < 0 ? rc : LS_ESTORE;
    *out = ls_stmt_int64(find, FIND_ROW_ID);
    return 0;
}

/* One wait of a ctid run. */
typedef struct ctid_wait {
    int64_t wait_id, ts;
    int keyed, via_ctid;
    char *key; /* keyed (not via a ctid): its key (owned) */
} ctid_wait;

static int flush_ctid_run(ls_stmt *add, ctid_wait *run, size_t n, const char *rel, int64_t **tsb,
                          int **kb, long **nb, size_t *cap)
{
    size_t i;
    int rc;
    if (n > *cap) {
        int64_t *t = realloc(*tsb, n * sizeof(**tsb));
        int *k = t ? realloc(*kb, n * sizeof(**kb)) : NULL;
        long *nr = k ? realloc(*nb, n * sizeof(**nb)) : NULL;
        if (t)
            *tsb = t;
        if (k)
            *kb = k;
        if (!nr)
            return LS_ENOMEM;
        *nb = nr;
        *cap = n;
    }
    for (i = 0; i < n; i++) {
        (*tsb)[i] = run[i].ts;
        (*kb)[i] = run[i].keyed && !run[i].via_ctid;
    }
    ls_ctid_nearest(*tsb, *kb, n, LS_CTID_CHAIN_US, *nb);
    for (i = 0; i < n; i++)
        if (!run[i].keyed && (*nb)[i] >= 0 &&
            (rc = wkey_add(add, run[i].wait_id, rel, run[(*nb)[i]].key, LS_GROUPED_CTID)) != 0)
            return rc;
    return 0;
}

/*
 * Ctid chains: a wait with no key of its own on a row version (relation,
 * ctid) that a keyed wait names within LS_CTID_CHAIN_US is on that row. The
 * waits are read sorted by (relation, ctid, time); one run at a time is
 * held.
 */
#define CTID_WAIT_COLS(X, Q)                                                           \
    X(Q, wait_id, "wait_id")                                                           \
    X(Q, rel, "rel")                                                                   \
    X(Q, ctid, "ctid")                                                                 \
    X(Q, start_ts, "start_ts")                                                         \
    X(Q, keyed, "keyed")                                                               \
    X(Q, via_ctid, "via_ctid")                                                         \
    X(Q, key, "key")
LS_COLUMNS(cw, CTID_WAIT_COLS);

static int key_by_ctid(ls_store *s)
{
    ls_stmt *q = NULL, *add = NULL;
    ctid_wait *run = NULL;
    int64_t *tsb = NULL;
    int *kb = NULL;
    long *nb = NULL;
    size_t n = 0, cap = 0, bcap = 0, i;
    char rel[128] = "", ctid[32] = "";
    int rc;

    if ((rc = ls_store_prepare(s, "SELECT " LS_SELECT_LIST(cw, CTID_WAIT_COLS)
                                  " FROM temp.wrows WHERE ctid <> '' AND rel <> ''"
                                  " ORDER BY rel, ctid, start_ts, wait_id", &q)) != 0 ||
        (rc = ls_store_prepare_params(s, wkey_insert_sql, LS_PARAM_NAMES(WKEY_PARAMS), &add)) != 0)
        goto out;
    for (;;) {
        int more = (rc = ls_stmt_step(q)) == 1;
        ctid_wait *c;
        if (rc < 0)
            goto out;
        if (n && (!more || strcmp(rel, ls_stmt_text(q, cw_rel)) != 0 ||
                  strcmp(ctid, ls_stmt_text(q, cw_ctid)) != 0)) {
            if ((rc = flush_ctid_run(add, run, n, rel, &tsb, &kb, &nb, &bcap)) != 0)
                goto out;
            for (i = 0; i < n; i++)
                free(run[i].key);
            n = 0;
        }
        if (!more)
            break;
        if (n == cap) {
            ctid_wait *nr = realloc(run, (cap ? cap * 2 : 64) * sizeof(*run));
            if (!nr) {
                rc = LS_ENOMEM;
                goto out;
            }
            run = nr;
            cap = cap ? cap * 2 : 64;
        }
        if (!n) {
            snprintf(rel, sizeof(rel), "%s", ls_stmt_text(q, cw_rel));
            snprintf(ctid, sizeof(ctid), "%s", ls_stmt_text(q, cw_ctid));
        }
        c = &run[n++];
        c->wait_id = ls_stmt_int64(q, cw_wait_id);
        c->ts = ls_stmt_int64(q, cw_start_ts);
        c->keyed = (int)ls_stmt_int64(q, cw_keyed);
        c->via_ctid = (int)ls_stmt_int64(q, cw_via_ctid);
        c->key = NULL;
        if (c->keyed && !c->via_ctid && !(c->key = ls_strdup(ls_stmt_text(q, cw_key)))) {
            rc = LS_ENOMEM;
            goto out;
        }
    }
    rc = apply_found_keys(s, &q);
out:
    for (i = 0; i < n; i++)
        free(run[i].key);
    free(run);
    free(tsb);
    free(kb);
    free(nb);
    ls_stmt_finalize(q);
    ls_stmt_finalize(add);
    return rc < 0 ? rc : 0;
}

/* Step 1: each wait's own evidence (its statement, parameters, PREPARE
 * text, the CONTEXT of its first message), one row of temp.wrows each. */
static int read_waits(ls_store *s, int64_t resolution)
{
    ls_stmt *q = NULL, *cand = NULL, *tq = NULL, *ins = NULL;
    near_q near = {NULL, NULL, NULL, NULL, 0};
    stmt_stream stream;
    int whole = resolution == LS_WHOLE_SECOND_US;
    wait_row r;
    int rc;

    memset(&r, 0, sizeof(r));
    memset(&stream, 0, sizeof(stream));
    stream.s = s;
    if ((rc = ls_store_prepare(s, waits_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, waiter_stmts_sql, LS_PARAM_NAMES(WAITER_STMTS_PARAMS), &cand)) != 0 ||
        (!whole &&
         ((rc = (stream.slot = ls_calloc(STREAM_SLOTS, sizeof(*stream.slot))) ? 0 : LS_ENOMEM) !=
              0 ||
          (rc = ls_store_prepare_params(s, stream_last_sql, LS_PARAM_NAMES(STREAM_PARAMS), &stream.last_q)) != 0 ||
          (rc = ls_store_prepare_params(s, near_one_sql, LS_PARAM_NAMES(NEAR_ONE_PARAMS), &stream.one)) != 0 ||
          (rc = ls_store_prepare_params(s, stream_gap_sql, LS_PARAM_NAMES(STREAM_GAP_PARAMS),
                                        &stream.gap)) != 0)) ||
        (rc = ls_store_prepare_params(s, LS_TEXT_FIND_NAMED_SQL, LS_PARAM_NAMES(LS_TEXT_FIND_PARAMS), &tq)) != 0 ||
        (rc = ls_store_prepare_params(s, wrow_insert_sql, LS_PARAM_NAMES(WROW_PARAMS), &ins)) != 0 ||
        (whole && ((rc = ls_store_prepare_params(s, near_ids_sql, LS_PARAM_NAMES(NEAR_IDS_PARAMS), &near.ids)) != 0 ||
                   (rc = ls_store_prepare_params(s, near_pos_sql, LS_PARAM_NAMES(NEAR_POS_PARAMS), &near.pos)) != 0 ||
                   (rc = ls_store_prepare_params(s, near_one_sql, LS_PARAM_NAMES(NEAR_ONE_PARAMS), &near.one)) != 0)))
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        ls_rowkey k;
        ls_rowkey_evidence ev;
        const char *lock_stmt = ls_stmt_isnull(q, wq_statement) ? NULL : ls_stmt_text(q, wq_statement);
        const char *rel;
        int keyed, keep, row_lock;

        memset(&r, 0, sizeof(r));
        r.wait_id = ls_stmt_int64(q, wq_wait_id);
        r.session_id = ls_stmt_int64(q, wq_session_id);
        r.start_ts = ls_stmt_int64(q, wq_start_ts);
        r.rel = ls_stmt_text(q, wq_relation);
        r.ctid = ls_stmt_text(q, wq_ctid);
        if (!ls_stmt_isnull(q, wq_session_id) &&
            (rc = waiter_statement(
                 cand, whole ? &near : NULL, whole ? NULL : &stream, tq, &r, lock_stmt,
                 (ls_logpos){ls_stmt_int64(q, wq_file_id), ls_stmt_int64(q, wq_line)}, resolution,
                 (int)ls_stmt_int64(q, wq_failed), ls_stmt_double(q, wq_waited_ms))) != 0)
            goto out;
        if (!r.sql && lock_stmt && !(r.sql = ls_strdup(lock_stmt))) {
            rc = LS_ENOMEM;
            goto out;
        }
        ev.statement = r.sql;
        ev.params = r.params;
        ev.prepare = r.prepare;
        ev.context = ls_stmt_isnull(q, wq_context) ? NULL : ls_stmt_text(q, wq_context);
        ev.relation = r.rel[0] ? r.rel : NULL;
        memset(&k, 0, sizeof(k));
        /* Only a row lock is for the row its statement names: a wait to
         * extend the relation (under a crowd of updates, for the new row
         * versions' pages), for a page, a table or an advisory lock is for
         * its target, whatever the statement (write_rows). */
        row_lock = ls_is_row_lock(ls_stmt_isnull(q, wq_target_kind)
                                      ? NULL
                                      : ls_stmt_text(q, wq_target_kind));
        keyed = row_lock && ls_rowkey_of(&ev, &k);
        rel = keyed && !r.rel[0] ? k.rel : r.rel;
        /* Keyed by its own statement: nothing to learn from it later. */
        keep = row_lock && (!keyed || strcmp(k.grouped_by, LS_GROUPED_CONTEXT) == 0);
        ls_stmt_reset(ins);
        if ((rc = ls_stmt_bind_int64(ins, LS_PARAM(wr, wait_id), r.wait_id)) != 0 ||
            (!ls_stmt_isnull(q, wq_session_id) &&
             (rc = ls_stmt_bind_int64(ins, LS_PARAM(wr, session_id), r.session_id)) != 0) ||
            (rc = ls_stmt_bind_int64(ins, LS_PARAM(wr, start_ts), r.start_ts)) != 0 ||
            (r.stmt_id && (rc = ls_stmt_bind_int64(ins, LS_PARAM(wr, stmt_id), r.stmt_id)) != 0) ||
            (rc = ls_stmt_bind_text(ins, LS_PARAM(wr, rel), rel)) != 0 ||
            (rc = ls_stmt_bind_text(ins, LS_PARAM(wr, ctid), r.ctid)) != 0 ||
            (rc = ls_stmt_bind_text(ins, LS_PARAM(wr, key), keyed ? k.key : "")) != 0 ||
            (rc = ls_stmt_bind_text(ins, LS_PARAM(wr, col), k.col)) != 0 ||
            (rc = ls_stmt_bind_text(ins, LS_PARAM(wr, grouped_by), k.grouped_by)) != 0 ||
            (rc = ls_stmt_bind_text(ins, LS_PARAM(wr, sql), keep ? r.sql : NULL)) != 0 ||
            (rc = ls_stmt_bind_text(ins, LS_PARAM(wr, params), keep ? r.params : NULL)) != 0 ||
            (rc = ls_stmt_bind_text(ins, LS_PARAM(wr, prepare), keep ? r.prepare : NULL)) != 0 ||
            (rc = ls_stmt_bind_int64(ins, LS_PARAM(wr, keyed), keyed)) != 0 ||
            (rc = ls_stmt_bind_int64(ins, LS_PARAM(wr, holder_session),
                                     ls_stmt_isnull(q, wq_blocker_session)
                                         ? 0
                                         : ls_stmt_int64(q, wq_blocker_session))) != 0 ||
            (rc = ls_stmt_bind_int64(ins, LS_PARAM(wr, file), ls_stmt_int64(q, wq_file_id))) != 0 ||
            (rc = ls_stmt_bind_int64(ins, LS_PARAM(wr, line), ls_stmt_int64(q, wq_line))) != 0)
            goto out;
        free(r.sql);
        free(r.params);
        free(r.prepare);
        r.sql = r.params = r.prepare = NULL;
        if ((rc = ls_stmt_step(ins)) < 0)
            goto out;
    }
out:
    free(r.sql);
    free(r.params);
    free(r.prepare);
    ls_stmt_finalize(q);
    ls_stmt_finalize(cand);
    ls_stmt_finalize(near.ids);
    ls_stmt_finalize(near.pos);
    ls_stmt_finalize(near.one);
    if (stream.slot) {
        int i;
        for (i = 0; i < STREAM_SLOTS; i++)
            ls_stmt_finalize(stream.slot[i].next_q);
        free(stream.slot);
    }
    ls_stmt_finalize(stream.last_q);
    ls_stmt_finalize(stream.one);
    ls_stmt_finalize(stream.gap);
    free(near.v);
    ls_stmt_finalize(tq);
    ls_stmt_finalize(ins);
    return rc < 0 ? rc : 0;
}

/*
 * Step 3, rules: a statement that locked a row it does not name (a
 * function call, an INSERT whose trigger updates a total) shows which
 * argument is the key; learned from the keyed waits (each new one kept in
 * row_rules), applied to the unkeyed ones. *rules grows; rules are few
 * (one per statement shape and relation).
 */
#define LEARN_COLS(X, Q)                                                               \
    X(Q, wait_id, "wait_id")                                                           \
    X(Q, rel, "rel")                                                                   \
    X(Q, key, "key")                                                                   \
    X(Q, sql, "sql")                                                                   \
    X(Q, params, "params")                                                             \
    X(Q, prepare, "prepare")
LS_COLUMNS(lq, LEARN_COLS);
#define APPLY_COLS(X, Q)                                                               \
    X(Q, wait_id, "wait_id")                                                           \
    X(Q, rel, "rel")                                                                   \
    X(Q, sql, "sql")                                                                   \
    X(Q, params, "params")                                                             \
    X(Q, prepare, "prepare")
LS_COLUMNS(aq, APPLY_COLS);

static int learn_and_apply_rules(ls_store *s, ls_shape_rule **rules, size_t *nrules)
{
    ls_stmt *q = NULL, *rule = NULL, *add = NULL;
    size_t j;
    int rc;

    if ((rc = ls_store_prepare(s, "SELECT " LS_SELECT_LIST(lq, LEARN_COLS)
                                  " FROM temp.wrows WHERE keyed AND sql IS NOT NULL"
                                  " ORDER BY wait_id", &q)) != 0 ||
        (rc = ls_store_prepare(s, insert_rule_sql, &rule)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        const char *sql, *params, *rel = ls_stmt_text(q, lq_rel);
        char pbuf[1024];
        ls_row_ref ref;
        ls_shape_rule r;
        int dup = 0;
        ls_rowkey_effective(ls_stmt_text(q, lq_sql),
                            ls_stmt_isnull(q, lq_params) ? NULL : ls_stmt_text(q, lq_params),
                            ls_stmt_isnull(q, lq_prepare) ? NULL : ls_stmt_text(q, lq_prepare),
                            &sql, &params, pbuf, sizeof(pbuf));
        if (ls_sql_row_ref(sql, &ref) && strcmp(ref.rel, rel) == 0)
            continue; /* the statement names the row itself (bound or not): nothing to learn */
        if (!ls_rowkey_learn(sql, params, rel, ls_stmt_text(q, lq_key), &r))
            continue;
        for (j = 0; j < *nrules; j++)
            if (strcmp((*rules)[j].shape, r.shape) == 0 && strcmp((*rules)[j].rel, r.rel) == 0)
                dup = 1;
        if (dup)
            continue;
        {
            ls_shape_rule *nr = realloc(*rules, (*nrules + 1) * sizeof(**rules));
            if (!nr) {
                rc = LS_ENOMEM;
                goto out;
            }
            *rules = nr;
            (*rules)[(*nrules)++] = r;
        }
        ls_stmt_reset(rule);
        ls_stmt_bind_text(rule, LS_PARAM(row_rules, shape), r.shape);
        ls_stmt_bind_text(rule, LS_PARAM(row_rules, relation), r.rel);
        ls_stmt_bind_text(rule, LS_PARAM(row_rules, col), r.col);
        ls_stmt_bind_int64(rule, LS_PARAM(row_rules, arg), r.arg);
        ls_stmt_bind_int64(rule, LS_PARAM(row_rules, learned_from), ls_stmt_int64(q, lq_wait_id));
        bind_text_or_null(rule, LS_PARAM(row_rules, target), r.target);
        bind_text_or_null(rule, LS_PARAM(row_rules, target_col), r.target_col);
        if ((rc = ls_stmt_step(rule)) < 0)
            goto out;
    }
    ls_stmt_finalize(q);
    q = NULL;
    if (rc < 0 || !*nrules)
        goto out;
    if ((rc = ls_store_prepare(s, "SELECT " LS_SELECT_LIST(aq, APPLY_COLS) " FROM temp.wrows"
                                  " WHERE NOT keyed AND sql IS NOT NULL ORDER BY wait_id",
                               &q)) != 0 ||
        (rc = ls_store_prepare_params(s, wkey_insert_sql, LS_PARAM_NAMES(WKEY_PARAMS), &add)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        char shape[512], pbuf[1024];
        const char *sql, *params, *rel = ls_stmt_text(q, aq_rel);
        ls_rowkey_effective(ls_stmt_text(q, aq_sql),
                            ls_stmt_isnull(q, aq_params) ? NULL : ls_stmt_text(q, aq_params),
                            ls_stmt_isnull(q, aq_prepare) ? NULL : ls_stmt_text(q, aq_prepare),
                            &sql, &params, pbuf, sizeof(pbuf));
        ls_rowkey_shape(sql, shape, sizeof(shape));
        for (j = 0; j < *nrules; j++) {
            ls_rowkey k;
            if ((!rel[0] || strcmp((*rules)[j].rel, rel) == 0) &&
                ls_rowkey_apply(&(*rules)[j], shape, sql, params, &k)) {
                if ((rc = wkey_add(add, ls_stmt_int64(q, aq_wait_id), k.rel, k.key, LS_GROUPED_SHAPE)) != 0)
                    goto out;
                break;
            }
        }
    }
    if (rc == 0)
        rc = apply_found_keys(s, &q);
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(rule);
    ls_stmt_finalize(add);
    return rc < 0 ? rc : 0;
}

/* Step 4: rows, and each wait's row; what stays unkeyed is a fragment that
 * says why. */
#define OUT_COLS(X, Q)                                                                 \
    X(Q, wait_id, "r.wait_id")                                                         \
    X(Q, rel, "r.rel")                                                                 \
    X(Q, ctid, "r.ctid")                                                               \
    X(Q, key, "r.key")                                                                 \
    X(Q, grouped_by, "r.grouped_by")                                                   \
    X(Q, keyed, "r.keyed")                                                             \
    X(Q, stmt_id, "r.stmt_id")                                                         \
    X(Q, target_kind, "w.target_kind")                                                 \
    X(Q, target, "w.target")
LS_COLUMNS(oq, OUT_COLS);

static int write_rows(ls_store *s, ls_correlate_stats *stats)
{
    ls_stmt *q = NULL, *find = NULL, *ins = NULL, *set = NULL;
    int rc;

    if ((rc = ls_store_prepare(s, "SELECT " LS_SELECT_LIST(oq, OUT_COLS)
                                  " FROM temp.wrows r JOIN lock_wait_rows w ON w.wait_id = r.wait_id"
                                  " ORDER BY r.wait_id", &q)) != 0 ||
        (rc = ls_store_prepare_params(s, find_row_sql, LS_PARAM_NAMES(FIND_ROW_PARAMS), &find)) != 0 ||
        (rc = ls_store_prepare(s, insert_row_sql, &ins)) != 0 ||
        (rc = ls_store_prepare(s, set_row_sql, &set)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        ls_row_wait w;
        const char *evidence;
        char relb[128], keyb[192], why[160];
        int64_t row_id;

        w.keyed = ls_stmt_int64(q, oq_keyed) != 0;
        w.rel = ls_stmt_text(q, oq_rel);
        w.key = ls_stmt_text(q, oq_key);
        w.ctid = ls_stmt_text(q, oq_ctid);
        w.evidence = ls_stmt_isnull(q, oq_grouped_by) ? NULL : ls_stmt_text(q, oq_grouped_by);
        w.target_kind = ls_stmt_text(q, oq_target_kind);
        w.target = ls_stmt_text(q, oq_target);
        evidence = ls_row_of_wait(&w, relb, sizeof(relb), keyb, sizeof(keyb), why, sizeof(why));
        if ((rc = row_for(find, ins, relb, keyb, evidence, &row_id, stats)) != 0)
            goto out;
        ls_stmt_reset(set);
        ls_stmt_bind_int64(set, LS_PARAM(wait_rows, wait_id), ls_stmt_int64(q, oq_wait_id));
        ls_stmt_bind_int64(set, LS_PARAM(wait_rows, row_id), row_id);
        if (!ls_stmt_isnull(q, oq_stmt_id))
            ls_stmt_bind_int64(set, LS_PARAM(wait_rows, waiter_stmt), ls_stmt_int64(q, oq_stmt_id));
        ls_stmt_bind_text(set, LS_PARAM(wait_rows, row_evidence), evidence);
        if ((rc = ls_stmt_step(set)) < 0)
            goto out;
    }
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(find);
    ls_stmt_finalize(ins);
    ls_stmt_finalize(set);
    return rc < 0 ? rc : 0;
}

/*
 * Step 5: rows a deadlock's DETAIL names. Each process of a cycle waited
 * for the lock its edge names, and its statement ("Process N: ...") names
 * the row; a process whose wait stayed below deadlock_timeout (the
 * survivor, which got the row when the victim's error released it) logged
 * no wait, so without this its row is not hot and no hold of it is
 * counted (issue 34 item 5). Such a row has no waits of its own.
 */
#define DL_PROC_COLS(X, Q)                                                             \
    X(Q, text, "(SELECT t.text FROM stmt_texts t WHERE t.text_id = p.text_id)")          \
    X(Q, edge_kind, "e.target_kind")                                                   \
    /* the process's latest statement of that text that started by the      \
     * deadlock (ls_deadlock_stmt_running() decides whether it ran then) */ \
    X(Q, ts, "d.ts")                                                                   \
    X(Q, run_start, "x.start_ts")                                                      \
    X(Q, run_end, "CASE WHEN x.dur_us IS NULL THEN -1 ELSE x.start_ts + x.dur_us END")  \
    X(Q, params, LS_STMT_REF("x", "params"))                                           \
    X(Q, prepare, "x.prepare")
LS_COLUMNS(dq, DL_PROC_COLS);
/* A join, not a lookup per process, on the index step's
 * deadlock_edges_waiter (before that index, a lookup per process read
 * every edge: 35 M VM steps for a log of 911 deadlocks). A process waits
 * for one lock: one edge. */
static const char deadlock_procs_sql[] =
    "SELECT " LS_SELECT_LIST(dq, DL_PROC_COLS) " FROM deadlock_procs p"
    " JOIN deadlock_edges e ON e.deadlock_id = p.deadlock_id AND e.waiter_pid = p.pid"
    " JOIN deadlocks d ON d.deadlock_id = p.deadlock_id"
    /* its session: the pid's latest to start by the deadlock (:tick: 0, or
     * a second on a whole-second log; ls_deadlock_stmt_running) (the
     * transactions pass links none yet); not a parse line or a span's */
    " LEFT JOIN stmt_rows x ON x.stmt_id = (SELECT r.stmt_id FROM stmt_rows r"
    "  WHERE r.session_id = (SELECT s.session_id FROM sessions s WHERE s.pid = p.pid"
    "   AND coalesce(s.start_ts, s.first_ts, 0) <= d.ts"
    "   ORDER BY coalesce(s.start_ts, s.first_ts, 0) DESC LIMIT 1)"
    "  AND r.start_ts <= d.ts + :tick AND r.text_id = p.text_id"
    "  AND r.verb IS NOT 2 AND r.verb IS NOT 5 ORDER BY r.start_ts DESC LIMIT 1)"
    " WHERE p.text_id IS NOT NULL ORDER BY p.rowid, e.seq";

/* Does the statement row q of a step's query name a row (its key in *k)?
 * Filled from q's columns by each step: the decision is the step's own;
 * resolution is the log's (ls_correlate_log_resolution). */
typedef int (*named_row_fn)(ls_stmt *q, int64_t resolution, ls_rowkey *k);
/* The parameters a step's query may have: :tick, the log's (0, or a
 * second on a whole-second log). */
#define NAMED_ROWS_VOCAB(X, Q) X(Q, tick)

/* Run sql and make a row (with `evidence`) of each row named() finds in
 * its rows: steps 5 and 6. */
static int named_rows(ls_store *s, const char *sql, named_row_fn named, const char *evidence,
                      int64_t resolution, ls_correlate_stats *stats)
{
    ls_stmt *q = NULL, *find = NULL, *ins = NULL;
    int rc, tick;

    if ((rc = ls_store_prepare_vocab(s, sql, LS_PARAM_NAMES(NAMED_ROWS_VOCAB), &q)) != 0 ||
        (rc = ls_store_prepare_params(s, find_row_sql, LS_PARAM_NAMES(FIND_ROW_PARAMS), &find)) != 0 ||
        (rc = ls_store_prepare(s, insert_row_sql, &ins)) != 0)
        goto out;
    /* a step's query may ask for the log's tick (deadlock_procs_sql) */
    if ((tick = ls_stmt_param(q, "tick")) != 0 &&
        (rc = ls_stmt_bind_int64(q, tick, resolution == LS_WHOLE_SECOND_US ? resolution : 0)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        ls_rowkey k;
        int64_t row_id;

        memset(&k, 0, sizeof(k));
        if (!named(q, resolution, &k))
            continue;
        if ((rc = row_for(find, ins, k.rel, k.key, evidence, &row_id, stats)) != 0)
            goto out;
    }
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(find);
    ls_stmt_finalize(ins);
    return rc < 0 ? rc : 0;
}

/* A deadlock process's statement names a row when its DETAIL edge says it
 * waited for one (ls_deadlock_names_row). The DETAIL's statement has no
 * parameters: where the process's statement of that text was running at
 * the deadlock (ls_deadlock_stmt_running: the survivor's, whose duration
 * line is written once the victim's error let it have the row), its bound
 * parameters key it (samples/blind-ts: 30770's seats id=3, which the
 * victim held; issue 34 item 5). Only with sub-second times: on a
 * whole-second log the running one is not sure among a second's runs of
 * the text (tests/e2e's pgbench-tuple-queue-t: 13 deadlocks in a second,
 * a row bid=11 no wait was for). */
static int deadlock_names(ls_stmt *q, int64_t resolution, ls_rowkey *k)
{
    ls_rowkey_evidence ev;
    int keyed;

    memset(&ev, 0, sizeof(ev));
    ev.statement = ls_stmt_text_or_null(q, dq_text);
    /* not on a whole-second log: a process may run its text several
     * times in the deadlock's second (pgbench), whose parameters differ */
    if (resolution != LS_WHOLE_SECOND_US && !ls_stmt_isnull(q, dq_run_start) &&
        !ls_stmt_isnull(q, dq_run_end) &&
        ls_deadlock_stmt_running(ls_stmt_int64(q, dq_run_start), ls_stmt_int64(q, dq_run_end),
                                 ls_stmt_int64(q, dq_ts), 0)) {
        ev.params = ls_stmt_text_or_null(q, dq_params);
        ev.prepare = ls_stmt_text_or_null(q, dq_prepare);
    }
    keyed = ev.statement && ls_rowkey_of(&ev, k);
    return ls_deadlock_names_row(ls_stmt_text_or_null(q, dq_edge_kind), keyed);
}

/*
 * Step 6: rows a serialization failure's statement names (issue 34 item
 * 7, blind-otel's /reprice): a REPEATABLE READ update that found its row
 * updated by a concurrent transaction (ls_serialization_names_row) often
 * queued for it below deadlock_timeout, and logged no wait: without this
 * a row whose only contention ends in 40001 is not hot, and no hold of
 * it is counted. The statement is the error's (its STATEMENT text) with
 * the parameters of the session's last logged row of that text before it
 * (its bind). Such a row has no waits of its own.
 */
#define SF_COLS(X, Q)                                                                  \
    X(Q, message, "e.message")                                                         \
    X(Q, text, "(SELECT t.text FROM stmt_texts t WHERE t.text_id = e.text_id)")          \
    X(Q, params, "(SELECT " LS_STMT_REF("r", "params") " FROM stmt_rows r"              \
                 " WHERE r.session_id = e.session_id AND r.text_id = e.text_id"           \
                 " AND r.start_ts <= e.ts AND r.verb IS NOT 2 /* LS_VERB_PARSE */"         \
                 " ORDER BY r.stmt_id DESC LIMIT 1)")                                    \
    X(Q, prepare, "(SELECT r.prepare FROM stmt_rows r WHERE r.session_id = e.session_id" \
                  " AND r.text_id = e.text_id AND r.start_ts <= e.ts"                     \
                  " AND r.verb IS NOT 2 ORDER BY r.stmt_id DESC LIMIT 1)")
LS_COLUMNS(sq, SF_COLS);
static const char serialization_sql[] =
    "SELECT " LS_SELECT_LIST(sq, SF_COLS) " FROM errors e"
    " WHERE e.class = 'serialization_failure' AND e.text_id IS NOT NULL ORDER BY e.error_id";

/* A serialization failure's statement, with its bind, names a row when
 * the message says the row was updated concurrently
 * (ls_serialization_names_row). */
/* Whether an error's statement (with its bind's parameters and its
 * PREPARE) names a row key, *k. */
static int error_keyed(const char *statement, const char *params, const char *prepare, ls_rowkey *k)
{
    ls_rowkey_evidence ev;

    memset(&ev, 0, sizeof(ev));
    ev.statement = statement;
    ev.params = params;
    ev.prepare = prepare;
    return statement && ls_rowkey_of(&ev, k);
}

static int serialization_names(ls_stmt *q, int64_t resolution, ls_rowkey *k)
{
    int keyed = error_keyed(ls_stmt_text_or_null(q, sq_text), ls_stmt_text_or_null(q, sq_params),
                            ls_stmt_text_or_null(q, sq_prepare), k);
    (void)resolution;
    return ls_serialization_names_row(ls_stmt_text_or_null(q, sq_message), keyed);
}

/*
 * Step 7: rows a lock timeout's (or NOWAIT's) statement names
 * (ls_lock_error_names_row): a statement that gave up on lock_timeout
 * below deadlock_timeout logged no wait, so a row whose only contention
 * ends so was not hot, no hold of it was counted, and the error's holder
 * could not be read (causes.c; samples/blind-java's recountShelf on
 * warehouses id=3, held by reserveShipment). Its statement is the
 * error's, with the parameters of the session's last row of that text
 * logged before the error (LE_LAST_BEFORE). Such a row has no waits of
 * its own.
 */
/* The session's last row of the error's text logged before the error's
 * line: on a whole-second log a statement logged after the error may
 * have a start (its line's second less its duration) before the error's
 * stamp (samples/blind-java's 14696 at 06:18:46: the bind of id=1 before
 * the error, the next request's id=3 after it). */
#define LE_LAST_BEFORE(COL)                                                                  \
    "(SELECT " COL " FROM stmt_rows r WHERE r.session_id = e.session_id"                      \
    " AND r.text_id = e.text_id AND r.start_ts <= e.ts AND r.verb IS NOT 2 /* parse */"       \
    " AND r.file_id IS NOT NULL AND r.line IS NOT NULL"                                       \
    " AND " LS_LOG_POS_SQL("r") " < " LS_LOG_POS_SQL("e")                                     \
    " ORDER BY r.start_ts DESC, " LS_LOG_POS_SQL("r") " DESC LIMIT 1)"
#define LE_COLS(X, Q)                                                                        \
    X(Q, message, "e.message")                                                               \
    X(Q, text, "(SELECT t.text FROM stmt_texts t WHERE t.text_id = e.text_id)")                \
    X(Q, params, LE_LAST_BEFORE(LS_STMT_REF("r", "params")))                                 \
    X(Q, prepare, LE_LAST_BEFORE("r.prepare"))
LS_COLUMNS(leq, LE_COLS);
static const char lock_error_sql[] =
    "SELECT " LS_SELECT_LIST(leq, LE_COLS) " FROM errors e"
    " WHERE e.class IN ('lock_timeout', 'lock_nowait') AND e.text_id IS NOT NULL"
    " AND e.file_id IS NOT NULL AND e.line IS NOT NULL ORDER BY e.error_id";

static int lock_error_names(ls_stmt *q, int64_t resolution, ls_rowkey *k)
{
    const char *statement = ls_stmt_text_or_null(q, leq_text);
    int keyed = error_keyed(statement, ls_stmt_text_or_null(q, leq_params),
                            ls_stmt_text_or_null(q, leq_prepare), k);
    (void)resolution;
    return ls_lock_error_names_row(ls_stmt_text_or_null(q, leq_message), statement, keyed);
}

/*
 * Step 8: a row known only by its ctid whose relation has other rows may
 * be a version of one of them (ls_ctid_row_may_be_other): its evidence
 * says so, and the reports with it (samples/blind-pl's warehouses id=1,
 * three ctid rows). Each relation's rows counted once (lock targets left
 * out); at most one note a row, however often correlation runs.
 */
#define CTID_RELS_COLS(X, Q)                                                           \
    X(Q, relation, "relation")                                                         \
    X(Q, rows, "count(*)")                                                             \
    X(Q, ctid_rows, "sum(substr(evidence, 1, 11) = 'ctid only: ')")
LS_COLUMNS(crq, CTID_RELS_COLS);
static const char ctid_rels_sql[] =
    "SELECT " LS_SELECT_LIST(crq, CTID_RELS_COLS) " FROM row_keys"
    " WHERE evidence IS NOT '" LS_ROW_LOCK_TARGET "' AND relation IS NOT NULL"
    " GROUP BY relation HAVING sum(substr(evidence, 1, 11) = 'ctid only: ') > 0";
#define CTID_NOTE_PARAMS(X, Q) X(Q, note) X(Q, rel)
LS_PARAMS(cnp, CTID_NOTE_PARAMS);
static const char ctid_note_sql[] =
    "UPDATE row_keys SET evidence = evidence || '; ' || :note,"
    " grouped_by = grouped_by || '; ' || :note"
    " WHERE relation = :rel AND substr(evidence, 1, 11) = 'ctid only: '"
    " AND instr(evidence, :note) = 0";

static int note_ctid_versions(ls_store *s)
{
    ls_stmt *q = NULL, *up = NULL;
    int rc;

    if ((rc = ls_store_prepare(s, ctid_rels_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, ctid_note_sql, LS_PARAM_NAMES(CTID_NOTE_PARAMS), &up)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        const char *rel = ls_stmt_text(q, crq_relation);
        if (!ls_ctid_row_may_be_other(1, strcmp(rel, "?") != 0, (long)ls_stmt_int64(q, crq_rows)))
            continue;
        ls_stmt_reset(up);
        if ((rc = ls_stmt_bind_text(up, LS_PARAM(cnp, note), LS_ROW_MAY_BE_VERSION)) != 0 ||
            (rc = ls_stmt_bind_text(up, LS_PARAM(cnp, rel), rel)) != 0 ||
            (rc = ls_stmt_step(up)) < 0)
            goto out;
    }
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(up);
    return rc < 0 ? rc : 0;
}

int ls_correlate_rows(ls_store *s, ls_correlate_stats *stats)
{
    ls_stmt *hq = NULL;
    ls_shape_rule *rules = NULL;
    size_t nrules = 0, keyed = 0;
    int64_t resolution = LS_MILLISECOND_US; /* %m, csvlog, jsonlog: milliseconds */
    int rc;

    if ((rc = ls_store_exec(s, "CREATE UNIQUE INDEX IF NOT EXISTS rows_key ON row_keys(relation,"
                               " row_key)")) != 0 ||
        (rc = ls_store_exec(s, wrows_sql)) != 0 ||
        (rc = ls_correlate_log_resolution(s, &resolution)) != 0 ||
        (rc = ls_store_prepare_params(s, holder_stmts_sql, LS_PARAM_NAMES(HOLDER_STMTS_PARAMS), &hq)) != 0)
        goto out;

    /* 1. Each wait's own evidence. 2. Row versions: unkeyed waits on a
     * ctid a keyed wait names. 2b. The holder's statements: its keyed
     * write to the relation, or a call sharing the key with the waiter's;
     * then ctids again. */
    if ((rc = read_waits(s, resolution)) != 0 || (rc = key_by_ctid(s)) != 0 ||
        (rc = key_waits_from_holders(s, hq, resolution, NULL, 0, &keyed)) != 0 ||
        /* with no new key the ctids name what they named (issue 38) */
        (keyed && (rc = key_by_ctid(s)) != 0))
        goto out;
    /* 3. Rules; a rule can key a wait (or its holder's statement) whose
     * ctid then keys others. */
    if ((rc = learn_and_apply_rules(s, &rules, &nrules)) != 0)
        goto out;
    if (nrules && ((rc = key_waits_from_holders(s, hq, resolution, rules, nrules, &keyed)) != 0 ||
                   (rc = key_by_ctid(s)) != 0))
        goto out;
    /* 4. Write rows. 5. Rows only a deadlock's DETAIL names. 6. Rows
     * only a serialization failure's statement names. 7. Rows only a
     * lock timeout's statement names. 8. Ctid rows that may be versions
     * of their relation's other rows. */
    if ((rc = write_rows(s, stats)) != 0 ||
        (rc = named_rows(s, deadlock_procs_sql, deadlock_names, LS_ROW_DEADLOCK_DETAIL,
                         resolution, stats)) != 0 ||
        (rc = named_rows(s, serialization_sql, serialization_names, LS_ROW_SERIALIZATION,
                         resolution, stats)) != 0 ||
        (rc = named_rows(s, lock_error_sql, lock_error_names, LS_ROW_LOCK_ERROR, resolution,
                         stats)) != 0 ||
        (rc = note_ctid_versions(s)) != 0)
        goto out;
    rc = ls_store_exec_sorting(s, "CREATE INDEX IF NOT EXISTS lock_waits_row ON"
                                  " wait_rows(row_id);");
    if (rc == 0)
        rc = ls_store_exec(s, row_stats_sql);
out:
    ls_stmt_finalize(hq);
    free(rules);
    if (rc == 0)
        rc = ls_store_exec(s, "DROP TABLE temp.wrows; DROP TABLE temp.wkeys;");
    return rc < 0 ? rc : 0;
}

/* ---- holds ---- */

/* SQL: when an error aborted transaction T (its first error, outcome
 * 'aborted': rolled back after an error, transactions.c), NULL if none.
 * Not an error that error_links gives to another transaction: the one
 * before T, rolled back by a deadlock error stamped in the millisecond T's
 * BEGIN was derived to start in (samples/busy-row: 12104's error at
 * 11:01:44.163, its next BEGIN from .162998). */
#define ABORTED_AT(T)                                                                  \
    "(CASE WHEN " T ".outcome = 'aborted' THEN (SELECT min(e.ts) FROM errors e"          \
    " WHERE e.session_id = " T ".session_id AND e.ts BETWEEN " T ".start_ts AND "        \
    T ".end_ts AND NOT EXISTS (SELECT 1 FROM error_links k WHERE k.error_id ="         \
    " e.error_id AND k.tx_id IS NOT " T ".tx_id)) END)"
/* SQL: did a statement of T other than its last (the ROLLBACK) start after
 * its first error (a ROLLBACK TO SAVEPOINT, and what ran after it)? Its
 * statements are a stmt_id range of its session. */
#define RAN_AFTER(T)                                                                   \
    "(CASE WHEN " T ".outcome = 'aborted' THEN EXISTS (SELECT 1 FROM statements x"       \
    " WHERE +x.session_id = " T ".session_id AND x.stmt_id > " T ".first_stmt"          \
    " AND x.stmt_id < " T ".last_stmt AND x.start_ts > " ABORTED_AT(T) ") ELSE 0 END)"

/* Holds others waited for: each (holder transaction, row) with its waits,
 * and its hold as the transactions pass left it (hold_rows: this pass
 * decides its bounds; the view holds is written after it). */
#define GROUP_COLS(X, Q)                                                               \
    X(Q, tx_id, "h.tx_id")                                                             \
    X(Q, first_wait, "a.first_wait")                                                   \
    X(Q, waits, "a.n")                                                                 \
    X(Q, waiter_ms, "a.ms")                                                            \
    X(Q, first_acq, "a.first_acq")                                                     \
    X(Q, session_id, "t.session_id")                                                   \
    X(Q, tx_end, "t.end_ts")                                                           \
    X(Q, first_stmt, "t.first_stmt")                                                   \
    X(Q, last_stmt, "t.last_stmt")                                                     \
    X(Q, tx_end_known, "t.end_known")                                                  \
    X(Q, relation, "r.relation")                                                       \
    X(Q, row_key, "r.row_key")                                                         \
    X(Q, last_wait_end, "a.last_end")                                                  \
    X(Q, has_durations, "t.sql_ms IS NOT NULL")                                        \
    X(Q, hold_id, "h.hold_id")                                                         \
    X(Q, lock_stmt, "h.lock_stmt")                                                     \
    X(Q, start_ts, "h.start_ts")                                                       \
    X(Q, start_lo, "coalesce(h.start_lo, h.start_ts)")                                 \
    X(Q, start_hi, "coalesce(h.start_hi, h.start_ts)")                                 \
    X(Q, start_evidence, "(SELECT e.text FROM hold_evidence e"                         \
                         " WHERE e.evidence_id = h.start_evidence)")                   \
    X(Q, first_tx_wait, "a.first_tx_wait")                                             \
    X(Q, aborted_at, ABORTED_AT("t"))                                                  \
    X(Q, ran_after, RAN_AFTER("t"))
LS_COLUMNS(gq, GROUP_COLS);
static const char groups_sql[] =
    "SELECT " LS_SELECT_LIST(gq, GROUP_COLS)
    " FROM (SELECT holder_tx, row_id, min(start_ts) AS first_wait, count(*) AS n,"
    "   sum(waited_ms) AS ms, min(CASE WHEN outcome IN ('acquired', 'serialization_failure')"
    "   THEN end_ts END) AS first_acq, max(coalesce(end_ts, logged_ts)) AS last_end,"
    "   min(CASE WHEN target_kind = 'transaction' THEN start_ts END) AS first_tx_wait"
    "   FROM lock_waits WHERE holder_tx IS NOT NULL AND row_id IS NOT NULL"
    "   GROUP BY holder_tx, row_id) a"
    " JOIN hold_rows h ON h.tx_id = a.holder_tx AND h.row_id = a.row_id"
    " JOIN transactions t ON t.tx_id = h.tx_id JOIN row_keys r ON r.row_id = h.row_id"
    /* In the order of their transactions' first statements: the sweep
     * (holds_sweep) reads the statements once, in id order. */
    " ORDER BY t.first_stmt, h.hold_id";

/*
 * A transaction's statements are its session's within its stmt_id range
 * (first_stmt to last_stmt); ids are log order, so the range holds every
 * other session's statements logged meanwhile, a thousand and more for a
 * transaction that waited. Reading each hold's range cost 4,000 VM steps
 * a hold at 256 MiB (issue 38: 9.2 M of the pass's 14.8 M), and
 * overlapping ranges were read again for each hold. The sweep reads the
 * ids and sessions of the union of the ranges once, in id order
 * (sweep_ids_sql), and the whole statement (tx_statement_sql) only of a
 * session whose hold is open there.
 */
enum { SW_STMT_ID, SW_SESSION };
#define SWEEP_IDS_PARAMS(X, Q) X(Q, lo) X(Q, hi)
LS_PARAMS(swp, SWEEP_IDS_PARAMS);
static const char sweep_ids_sql[] =
    "SELECT stmt_id, session_id FROM stmt_rows WHERE stmt_id BETWEEN :lo AND :hi ORDER BY stmt_id";
/* The sweep's (hold, statement) pairs, every statement of the hold's
 * session in its transaction's range (read or not), and the holds it
 * paired (a transaction with both ends): the code paths' hold parts
 * (holdparts.c) pair the holds waited for by the same rule, and take
 * these instead of sweeping the same ranges again (issue 38: 8.95 M
 * SQLite VM steps at 1 GiB) when its holds are among them with the same
 * session and range. Temp tables of this connection: holdparts.c drops
 * them. */
static const char waited_tables_sql[] = LS_WAITED_STMTS_DROP LS_WAITED_STMTS_DDL;
static const char waited_swept_sql[] =
    "INSERT OR IGNORE INTO temp.waited_swept(hold_id, session_id, first_stmt, last_stmt)"
    " VALUES (:hold, :session, :first, :last)";
#define WAITED_SWEPT_PARAMS(X, Q) X(Q, hold) X(Q, session) X(Q, first) X(Q, last)
LS_PARAMS(wswp, WAITED_SWEPT_PARAMS);
static const char waited_pair_sql[] =
    "INSERT OR IGNORE INTO temp.waited_stmts(hold_id, stmt_id) VALUES (:hold, :stmt)";
#define WAITED_PAIR_PARAMS(X, Q) X(Q, hold) X(Q, stmt)
LS_PARAMS(wprp, WAITED_PAIR_PARAMS);
/* A bind row alone is a statement whose execute failed (issue 34): its
 * time runs to the session's first error after its line
 * (ls_hold_failed_end()); it counts as the statement's, not idle. */
#define TX_STMT_COLS(X, Q)                                                             \
    X(Q, stmt_id, "s.stmt_id")                                                         \
    X(Q, start_ts, "s.start_ts")                                                       \
    X(Q, end_ts, "s.end_ts")                                                           \
    X(Q, text, "s.text")                                                               \
    X(Q, params, "s.params")                                                           \
    X(Q, bind, "s.verb IS 'bind'")                                                     \
    X(Q, error_ts, "CASE WHEN s.verb IS 'bind' THEN (SELECT e.ts FROM errors e"         \
                   " WHERE e.session_id = s.session_id AND e.ts >= s.start_ts"        \
                   " AND ((coalesce(e.file_id, 0) << 32) + e.line)"                  \
                   "  > ((coalesce(s.file_id, 0) << 32) + s.line)"                   \
                   " ORDER BY e.ts, e.file_id, e.line LIMIT 1) END")
LS_COLUMNS(tq, TX_STMT_COLS);
#define TX_STMT_PARAMS(X, Q) X(Q, id)
LS_PARAMS(tsp, TX_STMT_PARAMS);
static const char tx_statement_sql[] =
    "SELECT " LS_SELECT_LIST(tq, TX_STMT_COLS) " FROM statements s"
    " WHERE s.stmt_id = :id AND (s.verb IS NULL OR s.verb IS NOT 'parse')";

/* A bound equal to its time is NULL (bind_unless_same); observed_state
 * and observed_samples are not this pass's (NULL). */
LS_TABLE_COLUMNS(hold_bounds);
static const char update_hold_sql[] = LS_INSERT_INTO("INSERT", hold_bounds);
#define HB(col) LS_PARAM(hold_bounds, col)

#define SNAPSHOT_STATE                                                                     \
    "CASE WHEN a.state = 'idle in transaction' OR a.state LIKE 'idle in transaction%' THEN"   \
    " 'idle_in_transaction' WHEN a.state = 'active' AND upper(ltrim(coalesce(a.query, '')))" \
    " GLOB 'COMMIT*' THEN 'committing' WHEN a.state = 'active' AND a.wait_event IN"          \
    " ('WalSync', 'WalWrite', 'SyncRep') THEN 'committing' WHEN a.state = 'active' AND"      \
    " a.wait_event_type = 'Lock' THEN 'waiting' WHEN a.state = 'active' THEN"                \
    " 'running' ELSE a.state END"

/* A holder running a statement that is itself waiting for a lock (the
 * middle of a chain) is "waiting", not running. */
static const char waiting_sql[] =
    "UPDATE hold_bounds SET head_state = 'waiting' WHERE head_state IN ('running', 'unknown') AND"
    " (SELECT sum(max(0, min(hold_bounds.end_ts, coalesce(w.end_ts, w.logged_ts))"
    "   - max(hold_bounds.end_ts - CAST(hold_bounds.contended_ms * 1000 AS INTEGER), w.start_ts)))"
    /* Its waits while it held the row began after it got the row: an index
     * range, not every wait of a long-lived process. */
    "  FROM lock_wait_rows w WHERE w.pid = (SELECT h.pid FROM hold_rows h"
    "   WHERE h.hold_id = hold_bounds.hold_id)"
    "  AND w.start_ts BETWEEN hold_bounds.start_ts AND hold_bounds.end_ts)"
    "  >= hold_bounds.contended_ms * 500 AND waits > 0;";

#define HOLD_PID "(SELECT h.pid FROM hold_rows h WHERE h.hold_id = hold_bounds.hold_id)"
static const char observed_sql[] =
    "UPDATE hold_bounds SET"
    " observed_state = (SELECT " SNAPSHOT_STATE " FROM activity a WHERE a.pid = " HOLD_PID
    "  AND a.ts BETWEEN hold_bounds.end_ts - CAST(hold_bounds.contended_ms * 1000 AS INTEGER)"
    "  AND hold_bounds.end_ts GROUP BY 1 ORDER BY count(*) DESC LIMIT 1),"
    " observed_samples = (SELECT count(*) FROM activity a WHERE a.pid = " HOLD_PID
    "  AND a.ts BETWEEN hold_bounds.end_ts - CAST(hold_bounds.contended_ms * 1000 AS INTEGER)"
    "  AND hold_bounds.end_ts) WHERE hold_bounds.waits > 0;"
    "UPDATE hold_bounds SET head_state = observed_state WHERE observed_state IS NOT NULL"
    " AND (SELECT t.sql_ms IS NULL FROM transactions t JOIN hold_rows h ON h.tx_id = t.tx_id"
    "  WHERE h.hold_id = hold_bounds.hold_id);";

/* Every hold of a row, in start order, its bounds as this pass left
 * them, as two streams merged in C (row_totals): the holds this pass
 * left as they were, in the order of the transactions pass's index
 * holds_row (row_id, start_ts, end_ts, waits: it covers them, no sort),
 * and the few it bounded (hold_bounds), sorted. One sort of every hold
 * joined to hold_bounds was 34 SQLite VM steps a hold (14.5 M at 1 GiB,
 * issue 38). Holds of one row and start may come in either order: the
 * union of intervals taken in start order does not depend on it. A row
 * with no hold has no row_holds row: the final holds and rows pass
 * gives its counts as 0. */
#define ROW_HOLD_COLS(X, Q)                                                            \
    X(Q, row_id, "h.row_id")                                                           \
    X(Q, waited, "coalesce(b.waits, h.waits) > 0")                                     \
    X(Q, start_ts, "coalesce(b.start_ts, h.start_ts)")                                 \
    X(Q, end_ts, "coalesce(b.end_ts, h.end_ts)")
LS_COLUMNS(rhq, ROW_HOLD_COLS);
static const char row_bounded_sql[] =
    "SELECT " LS_SELECT_LIST(rhq, ROW_HOLD_COLS)
    " FROM hold_bounds b JOIN hold_rows h ON h.hold_id = b.hold_id"
    " WHERE h.row_id IS NOT NULL ORDER BY h.row_id, 3";
static const char row_unbounded_sql[] =
    "SELECT h.row_id, h.waits > 0, h.start_ts, h.end_ts, NULL FROM hold_rows h"
    " WHERE h.row_id IS NOT NULL"
    " AND NOT EXISTS (SELECT 1 FROM hold_bounds b WHERE b.hold_id = h.hold_id)"
    " ORDER BY h.row_id, h.start_ts";
/* capacity_per_s: 1000 / mean_hold_ms, NULL when that is not > 0. */
LS_TABLE_COLUMNS(row_holds);
LS_TABLE_COLUMNS(row_queue);
LS_TABLE_COLUMNS(row_queue_peaks);
static const char row_update_sql[] = LS_INSERT_INTO("INSERT", row_holds);

typedef struct row_total {
    int64_t row_id, holds, waited;
    int64_t timed, us, held_to; /* holds with both bounds; their union; its end so far */
} row_total;

static int row_total_store(ls_stmt *upd, const row_total *t)
{
    int rc;
    ls_stmt_reset(upd);
    ls_stmt_bind_int64(upd, LS_PARAM(row_holds, row_id), t->row_id);
    ls_stmt_bind_int64(upd, LS_PARAM(row_holds, holds), t->waited);
    ls_stmt_bind_int64(upd, LS_PARAM(row_holds, occupancy_holds), t->holds);
    if (t->timed) {
        double mean = (double)t->us / (double)t->timed / LS_US_PER_MS;
        ls_stmt_bind_double(upd, LS_PARAM(row_holds, occupied_ms), (double)t->us / LS_US_PER_MS);
        ls_stmt_bind_double(upd, LS_PARAM(row_holds, mean_hold_ms), mean);
        if (mean > 0)
            ls_stmt_bind_double(upd, LS_PARAM(row_holds, capacity_per_s), 1000.0 / mean);
    }
    rc = ls_stmt_step(upd);
    return rc < 0 ? rc : 0;
}

/* Is stream a's hold (at a row) before stream b's (or b done)? By row,
 * then start, a NULL start first (as ORDER BY puts it). */
static int row_hold_before(ls_stmt *a, ls_stmt *b, int b_done)
{
    int64_t ra, rb;
    int na, nb;

    if (b_done)
        return 1;
    ra = ls_stmt_int64(a, rhq_row_id);
    rb = ls_stmt_int64(b, rhq_row_id);
    if (ra != rb)
        return ra < rb;
    na = ls_stmt_isnull(a, rhq_start_ts);
    nb = ls_stmt_isnull(b, rhq_start_ts);
    if (na || nb)
        return na;
    return ls_stmt_int64(a, rhq_start_ts) <= ls_stmt_int64(b, rhq_start_ts);
}

/*
 * Each row's totals: its holds, those others waited for, and the time it
 * was held (occupied_ms) — the union of its holds, not their sum: one
 * transaction holds a row at a time, and where holds overlap (whole-second
 * times, where a statement's end and the next commit share their second;
 * a hold bounded only by its transaction's start) the overlap is held
 * once. mean_hold_ms is that time over the holds with both bounds, so that
 * the row's serial capacity (1000 / mean_hold_ms) never claims the row was
 * held longer than it existed. One walk of the holds in row and start
 * order (row_unbounded_sql and row_bounded_sql merged).
 */
static int row_totals(ls_store *s)
{
    ls_stmt *qs[2] = {NULL, NULL}, *upd = NULL;
    int live[2] = {0, 0};
    row_total t;
    int rc, i;

    memset(&t, 0, sizeof(t));
    if ((rc = ls_store_prepare(s, row_unbounded_sql, &qs[0])) != 0 ||
        (rc = ls_store_prepare(s, row_bounded_sql, &qs[1])) != 0 ||
        (rc = ls_store_prepare(s, row_update_sql, &upd)) != 0)
        goto out;
    for (i = 0; i < 2; i++)
        if ((rc = live[i] = ls_stmt_step(qs[i])) < 0)
            goto out;
    while (live[0] == 1 || live[1] == 1) {
        int k = live[0] == 1 && row_hold_before(qs[0], qs[1], live[1] != 1) ? 0 : 1;
        ls_stmt *q = qs[k];
        int64_t id = ls_stmt_int64(q, rhq_row_id), a, b;
        if (id != t.row_id) {
            if (t.holds && (rc = row_total_store(upd, &t)) != 0)
                goto out;
            memset(&t, 0, sizeof(t));
            t.row_id = id;
            t.held_to = INT64_MIN;
        }
        t.holds++;
        t.waited += ls_stmt_int64(q, rhq_waited) != 0;
        if (!ls_stmt_isnull(q, rhq_start_ts) && !ls_stmt_isnull(q, rhq_end_ts)) {
            a = ls_stmt_int64(q, rhq_start_ts);
            b = ls_stmt_int64(q, rhq_end_ts);
            t.timed++;
            if (a < t.held_to)
                a = t.held_to;
            if (b > a)
                t.us += b - a;
            if (b > t.held_to)
                t.held_to = b;
        }
        if ((rc = live[k] = ls_stmt_step(q)) < 0)
            goto out;
    }
    rc = 0;
    if (t.holds)
        rc = row_total_store(upd, &t);
out:
    ls_stmt_finalize(qs[0]);
    ls_stmt_finalize(qs[1]);
    ls_stmt_finalize(upd);
    return rc < 0 ? rc : 0;
}

/*
 * A hold of groups_sql whose transaction's statements the sweep is
 * reading: what deciding it needs of its group (the texts owned: the
 * group's row is gone by then) and its walk (decide/hold.c).
 */
typedef struct open_hold {
    int64_t hold_id, session_id, last_stmt, waits, first_tx_wait;
    int has_tx_wait, has_durations;
    int paired; /* its (hold, statement) pairs kept for the code paths */
    double waiter_ms;
    char *relation, *row_key, *tx_end_known, *start_evidence;
    ls_hold_bound end; /* its evidence is tx_end_known or a constant */
    ls_hold_walk w;    /* w.start.evidence: start_evidence or a constant */
} open_hold;

static void open_hold_free(open_hold *h)
{
    free(h->relation);
    free(h->row_key);
    free(h->tx_end_known);
    free(h->start_evidence);
}

/* The queries, the evidence texts and the open holds of the holds pass.
 * The sweep has read every statement below `next`. */
typedef struct holds_q {
    ls_stmt *g, *ids, *sts, *upd, *swept, *pair;
    ls_interner evidence; /* bound_evidence */
    int64_t resolution;
    open_hold *open;
    size_t nopen, cap;
    int64_t next;
} holds_q;

/* Hold h's walk takes statement row sts of its transaction. */
static void walk_statement(open_hold *h, ls_stmt *sts)
{
    ls_hold_walk *w = &h->w;
    const char *text = ls_stmt_text(sts, tq_text);
    ls_sql_kind kind = ls_sql_kind_of(text);
    ls_hold_stmt st;
    char rel[128], key[192];

    memset(&st, 0, sizeof(st));
    st.id = ls_stmt_int64(sts, tq_stmt_id);
    st.start = ls_stmt_int64(sts, tq_start_ts);
    st.has_end = !ls_stmt_isnull(sts, tq_end_ts);
    st.end = ls_stmt_int64(sts, tq_end_ts);
    if (ls_stmt_int64(sts, tq_bind)) {
        /* a failed statement: its time is its own (waiting, most often),
         * not idle; it wrote nothing, so it takes no row */
        if (st.has_end)
            st.end = ls_hold_failed_end(st.end, !ls_stmt_isnull(sts, tq_error_ts),
                                        ls_stmt_int64(sts, tq_error_ts));
        ls_hold_walk_stmt(w, &st);
        return;
    }
    st.is_write = kind == LS_SQL_WRITE;
    st.is_end = kind == LS_SQL_COMMIT || kind == LS_SQL_ROLLBACK;
    /* What only a write the walk may still take needs is read. */
    st.names_row = !w->lock_stmt && st.is_write &&
                   ls_sql_row_key(text,
                                  ls_stmt_isnull(sts, tq_params) ? NULL
                                                                 : ls_stmt_text(sts, tq_params),
                                  rel, sizeof(rel), key, sizeof(key)) &&
                   strcmp(rel, h->relation) == 0 && strcmp(key, h->row_key) == 0;
    st.names_rel = !w->first_write && st.is_write && strstr(text, h->relation) != NULL;
    ls_hold_walk_stmt(w, &st);
}

/* The group at g opens a hold: its end decided (ls_hold_end), its walk
 * begun. The texts are copied; LS_ENOMEM when they cannot be. */
static int hold_open(holds_q *hq)
{
    ls_stmt *g = hq->g;
    ls_hold_end_in ein;
    ls_hold_bound start;
    open_hold *h;

    if (hq->nopen == hq->cap) {
        size_t cap = hq->cap ? 2 * hq->cap : 16;
        open_hold *v = realloc(hq->open, cap * sizeof(*v));
        if (!v)
            return LS_ENOMEM;
        hq->open = v;
        hq->cap = cap;
    }
    h = &hq->open[hq->nopen];
    memset(h, 0, sizeof(*h));
    h->relation = ls_strdup(ls_stmt_text(g, gq_relation));
    h->row_key = ls_strdup(ls_stmt_text(g, gq_row_key));
    h->tx_end_known = ls_strdup(ls_stmt_text(g, gq_tx_end_known));
    h->start_evidence = ls_strdup(ls_stmt_text(g, gq_start_evidence));
    if (!h->relation || !h->row_key || !h->tx_end_known || !h->start_evidence) {
        open_hold_free(h);
        return LS_ENOMEM;
    }
    hq->nopen++;
    h->hold_id = ls_stmt_int64(g, gq_hold_id);
    h->session_id = ls_stmt_int64(g, gq_session_id);
    h->last_stmt = ls_stmt_int64(g, gq_last_stmt);
    h->waits = ls_stmt_int64(g, gq_waits);
    h->waiter_ms = ls_stmt_double(g, gq_waiter_ms);
    h->has_tx_wait = !ls_stmt_isnull(g, gq_first_tx_wait);
    h->first_tx_wait = ls_stmt_int64(g, gq_first_tx_wait);
    h->has_durations = (int)ls_stmt_int64(g, gq_has_durations);
    if (!ls_stmt_isnull(g, gq_first_stmt) && !ls_stmt_isnull(g, gq_last_stmt)) {
        int rc;
        ls_stmt_reset(hq->swept);
        if ((rc = ls_stmt_bind_int64(hq->swept, LS_PARAM(wswp, hold), h->hold_id)) != 0 ||
            (rc = ls_stmt_bind_int64(hq->swept, LS_PARAM(wswp, session), h->session_id)) != 0 ||
            (rc = ls_stmt_bind_int64(hq->swept, LS_PARAM(wswp, first),
                                     ls_stmt_int64(g, gq_first_stmt))) != 0 ||
            (rc = ls_stmt_bind_int64(hq->swept, LS_PARAM(wswp, last), h->last_stmt)) != 0 ||
            (rc = ls_stmt_step(hq->swept)) < 0)
            return rc < 0 ? rc : LS_ESTORE;
        h->paired = 1;
    }

    ein.tx_has_end = !ls_stmt_isnull(g, gq_tx_end);
    ein.tx_end = ls_stmt_int64(g, gq_tx_end);
    ein.tx_end_known = h->tx_end_known;
    ein.first_acq_known = !ls_stmt_isnull(g, gq_first_acq);
    ein.first_acq = ls_stmt_int64(g, gq_first_acq);
    ein.last_wait_end = ls_stmt_int64(g, gq_last_wait_end);
    ein.aborted_at = ls_stmt_int64(g, gq_aborted_at);
    ein.aborted = ls_hold_aborted(1, !ls_stmt_isnull(g, gq_aborted_at), ein.aborted_at,
                                  ls_stmt_int64(g, gq_ran_after) != 0,
                                  ls_stmt_int64(g, gq_start_ts));
    ls_hold_end(&ein, &h->end);

    start.ts = ls_stmt_int64(g, gq_start_ts);
    start.lo = ls_stmt_int64(g, gq_start_lo);
    start.hi = ls_stmt_int64(g, gq_start_hi);
    start.evidence = h->start_evidence;
    ls_hold_walk_begin(&h->w, ls_stmt_int64(g, gq_first_wait), h->end.ts, &start,
                       ls_stmt_isnull(g, gq_lock_stmt) ? 0 : ls_stmt_int64(g, gq_lock_stmt));
    return 0;
}

/* Hold h has seen its transaction's statements: decided, its row of
 * hold_bounds. */
static int hold_close(holds_q *hq, open_hold *h)
{
    ls_stmt *upd = hq->upd;
    ls_hold_walk *w = &h->w;
    int64_t start_ev_id, end_ev_id, idle;
    ls_idle_span ib;
    const char *state;
    int rc;

    ls_hold_walk_end(w, h->has_tx_wait, h->first_tx_wait, hq->resolution);
    state = ls_hold_state(w->c_end - w->first_wait, w->sql_us, w->commit_us, h->has_durations,
                          &idle);
    /* the idle stored at the log's resolution: on a whole-second log the
     * estimate as it is, its range the report's (decide/idlegap.h) */
    ls_idle_window(w->c_end - w->first_wait, w->sql_us + w->commit_us, hq->resolution, &ib);
    idle = ls_idle_stored_us(&ib);
    if ((rc = ls_intern(&hq->evidence, w->start.evidence, &start_ev_id)) != 0 ||
        (rc = ls_intern(&hq->evidence, h->end.evidence, &end_ev_id)) != 0)
        return rc;
    ls_stmt_reset(upd);
    ls_stmt_bind_int64(upd, HB(hold_id), h->hold_id);
    ls_stmt_bind_int64(upd, HB(start_ts), w->start.ts);
    bind_unless_same(upd, HB(start_lo), w->start.lo, w->start.ts);
    bind_unless_same(upd, HB(start_hi), w->start.hi, w->start.ts);
    ls_stmt_bind_int64(upd, HB(start_evidence), start_ev_id);
    ls_stmt_bind_int64(upd, HB(end_ts), h->end.ts);
    bind_unless_same(upd, HB(end_lo), h->end.lo, h->end.ts);
    bind_unless_same(upd, HB(end_hi), h->end.hi, h->end.ts);
    ls_stmt_bind_int64(upd, HB(end_evidence), end_ev_id);
    if (w->lock_stmt)
        ls_stmt_bind_int64(upd, HB(lock_stmt), w->lock_stmt);
    else
        ls_stmt_bind_null(upd, HB(lock_stmt));
    ls_stmt_bind_int64(upd, HB(waits), h->waits);
    ls_stmt_bind_double(upd, HB(waiter_ms), h->waiter_ms);
    ls_stmt_bind_double(upd, HB(contended_ms), (double)(w->c_end - w->first_wait) / LS_US_PER_MS);
    ls_stmt_bind_double(upd, HB(sql_ms), (double)w->sql_us / LS_US_PER_MS);
    ls_stmt_bind_double(upd, HB(idle_ms), (double)idle / LS_US_PER_MS);
    ls_stmt_bind_double(upd, HB(commit_ms), (double)w->commit_us / LS_US_PER_MS);
    ls_stmt_bind_text(upd, HB(head_state), state);
    rc = ls_stmt_step(upd);
    return rc < 0 ? rc : 0;
}

/* Statement `id` of session `session`, to every open hold of the session
 * whose range holds it (the sweep opened each at its first statement):
 * read whole once, and only when some hold takes it. */
static int sweep_statement(holds_q *hq, int64_t id, int64_t session)
{
    size_t i;
    int rc, read = 0;

    for (i = 0; i < hq->nopen; i++) {
        open_hold *h = &hq->open[i];
        if (h->session_id != session || id > h->last_stmt)
            continue;
        if (h->paired) {
            ls_stmt_reset(hq->pair);
            if ((rc = ls_stmt_bind_int64(hq->pair, LS_PARAM(wprp, hold), h->hold_id)) != 0 ||
                (rc = ls_stmt_bind_int64(hq->pair, LS_PARAM(wprp, stmt), id)) != 0 ||
                (rc = ls_stmt_step(hq->pair)) < 0)
                return rc < 0 ? rc : LS_ESTORE;
        }
        if (!read) {
            ls_stmt_reset(hq->sts);
            if ((rc = ls_stmt_bind_int64(hq->sts, LS_PARAM(tsp, id), id)) != 0 ||
                (rc = ls_stmt_step(hq->sts)) != 1)
                return rc < 0 ? rc : 0; /* a parse line: no hold's */
            read = 1;
        }
        walk_statement(h, hq->sts);
    }
    return 0;
}

/* Close (decide) every open hold whose last statement is below the
 * sweep's `next`. */
static int sweep_close(holds_q *hq)
{
    size_t i = 0;
    int rc;

    while (i < hq->nopen) {
        open_hold *h = &hq->open[i];
        if (h->last_stmt >= hq->next) {
            i++;
            continue;
        }
        rc = hold_close(hq, h);
        open_hold_free(h);
        hq->open[i] = hq->open[--hq->nopen];
        if (rc != 0)
            return rc;
    }
    return 0;
}

/*
 * Read the statements from `next` to `limit` (INT64_MAX: to the last of
 * the open holds) into the open holds, closing each once its last is
 * read; with no hold open, nothing is read and `next` moves past limit.
 * Each statement is read at most once by the whole sweep.
 */
static int sweep_to(holds_q *hq, int64_t limit)
{
    int rc = 0;

    while (hq->nopen && hq->next <= limit) {
        int64_t hi = limit;
        size_t i;
        for (i = 0; i < hq->nopen; i++)
            if (hq->open[i].last_stmt < hi)
                hi = hq->open[i].last_stmt;
        ls_stmt_reset(hq->ids);
        if ((rc = ls_stmt_bind_int64(hq->ids, LS_PARAM(swp, lo), hq->next)) != 0 ||
            (rc = ls_stmt_bind_int64(hq->ids, LS_PARAM(swp, hi), hi)) != 0)
            return rc;
        while ((rc = ls_stmt_step(hq->ids)) == 1)
            if ((rc = sweep_statement(hq, ls_stmt_int64(hq->ids, SW_STMT_ID),
                                      ls_stmt_int64(hq->ids, SW_SESSION))) != 0)
                return rc;
        if (rc < 0)
            return rc;
        ls_stmt_reset(hq->ids);
        hq->next = hi + 1;
        if ((rc = sweep_close(hq)) != 0)
            return rc;
    }
    if (!hq->nopen && hq->next <= limit)
        hq->next = limit == INT64_MAX ? limit : limit + 1;
    return rc < 0 ? rc : 0;
}

/* Every group of groups_sql decided: opened at its transaction's first
 * statement, closed after its last. */
static int holds_sweep(holds_q *hq)
{
    int rc;

    hq->next = 0;
    while ((rc = ls_stmt_step(hq->g)) == 1) {
        int64_t first = ls_stmt_int64(hq->g, gq_first_stmt);
        if ((first > 0 && (rc = sweep_to(hq, first - 1)) != 0) || (rc = hold_open(hq)) != 0)
            return rc;
    }
    if (rc < 0)
        return rc;
    return sweep_to(hq, INT64_MAX);
}

/*
 * Holds of an aborted transaction that nobody's logged wait was for (the
 * groups above decided the others): as the transactions pass left them,
 * their end the error's (ls_hold_end) when it released them before the
 * ROLLBACK. Few: one per row an aborted transaction held.
 */
#define ABORTED_COLS(X, Q)                                                             \
    X(Q, hold_id, "h.hold_id")                                                         \
    X(Q, start_ts, "h.start_ts")                                                       \
    X(Q, start_lo, "coalesce(h.start_lo, h.start_ts)")                                 \
    X(Q, start_hi, "coalesce(h.start_hi, h.start_ts)")                                 \
    X(Q, start_evidence, "(SELECT e.text FROM hold_evidence e"                         \
                         " WHERE e.evidence_id = h.start_evidence)")                   \
    X(Q, lock_stmt, "h.lock_stmt")                                                     \
    X(Q, waits, "h.waits")                                                             \
    X(Q, waiter_ms, "h.waiter_ms")                                                     \
    X(Q, contended_ms, "h.contended_ms")                                               \
    X(Q, sql_ms, "h.sql_ms")                                                           \
    X(Q, idle_ms, "h.idle_ms")                                                         \
    X(Q, commit_ms, "h.commit_ms")                                                     \
    X(Q, head_state, "h.head_state")                                                   \
    X(Q, tx_end, "t.end_ts")                                                           \
    X(Q, tx_end_known, "t.end_known")                                                  \
    X(Q, aborted_at, ABORTED_AT("t"))                                                  \
    X(Q, ran_after, RAN_AFTER("t"))
LS_COLUMNS(abq, ABORTED_COLS);
static const char aborted_holds_sql[] = "SELECT " LS_SELECT_LIST(abq, ABORTED_COLS)
    /* The aborted transactions, then their holds (holds_tx_row): not every
     * hold, each with a lookup of its transaction (issue 38: 5.6 M VM
     * steps at 1 GiB for 5,348 aborted transactions of 225,395). */
    " FROM transactions t CROSS JOIN hold_rows h ON h.tx_id = t.tx_id"
    " WHERE t.outcome = 'aborted' AND NOT EXISTS (SELECT 1 FROM hold_bounds b"
    "  WHERE b.hold_id = h.hold_id) ORDER BY h.hold_id";

/* Bind column COL of q (NULL stays NULL) as parameter I of upd. */
static void copy_int(ls_stmt *upd, int i, ls_stmt *q, int col)
{
    if (ls_stmt_isnull(q, col))
        ls_stmt_bind_null(upd, i);
    else
        ls_stmt_bind_int64(upd, i, ls_stmt_int64(q, col));
}

static void copy_double(ls_stmt *upd, int i, ls_stmt *q, int col)
{
    if (ls_stmt_isnull(q, col))
        ls_stmt_bind_null(upd, i);
    else
        ls_stmt_bind_double(upd, i, ls_stmt_double(q, col));
}

/* One hold of aborted_holds_sql (q): its row of hold_bounds when the
 * error released it before its transaction's end. */
static int decide_aborted_hold(holds_q *hq, ls_stmt *q)
{
    ls_stmt *upd = hq->upd;
    ls_hold_end_in ein;
    ls_hold_bound end;
    int64_t start_ev_id, end_ev_id;
    int rc;

    memset(&ein, 0, sizeof(ein));
    ein.tx_has_end = !ls_stmt_isnull(q, abq_tx_end);
    ein.tx_end = ls_stmt_int64(q, abq_tx_end);
    ein.tx_end_known = ls_stmt_isnull(q, abq_tx_end_known) ? "" : ls_stmt_text(q, abq_tx_end_known);
    ein.aborted_at = ls_stmt_int64(q, abq_aborted_at);
    ein.aborted = ls_hold_aborted(1, !ls_stmt_isnull(q, abq_aborted_at), ein.aborted_at,
                                  ls_stmt_int64(q, abq_ran_after) != 0,
                                  ls_stmt_int64(q, abq_start_ts));
    if (!ein.aborted || ls_stmt_isnull(q, abq_start_ts))
        return 0;
    ls_hold_end(&ein, &end);
    if (strcmp(end.evidence, LS_HOLD_ABORTED) != 0)
        return 0; /* the transaction's own end stands */
    if ((rc = ls_intern(&hq->evidence, ls_stmt_isnull(q, abq_start_evidence)
                                           ? ""
                                           : ls_stmt_text(q, abq_start_evidence),
                        &start_ev_id)) != 0 ||
        (rc = ls_intern(&hq->evidence, end.evidence, &end_ev_id)) != 0)
        return rc;
    ls_stmt_reset(upd);
    ls_stmt_bind_int64(upd, HB(hold_id), ls_stmt_int64(q, abq_hold_id));
    ls_stmt_bind_int64(upd, HB(start_ts), ls_stmt_int64(q, abq_start_ts));
    bind_unless_same(upd, HB(start_lo), ls_stmt_int64(q, abq_start_lo),
                     ls_stmt_int64(q, abq_start_ts));
    bind_unless_same(upd, HB(start_hi), ls_stmt_int64(q, abq_start_hi),
                     ls_stmt_int64(q, abq_start_ts));
    ls_stmt_bind_int64(upd, HB(start_evidence), start_ev_id);
    ls_stmt_bind_int64(upd, HB(end_ts), end.ts);
    bind_unless_same(upd, HB(end_lo), end.lo, end.ts);
    bind_unless_same(upd, HB(end_hi), end.hi, end.ts);
    ls_stmt_bind_int64(upd, HB(end_evidence), end_ev_id);
    copy_int(upd, HB(lock_stmt), q, abq_lock_stmt);
    copy_int(upd, HB(waits), q, abq_waits);
    copy_double(upd, HB(waiter_ms), q, abq_waiter_ms);
    copy_double(upd, HB(contended_ms), q, abq_contended_ms);
    copy_double(upd, HB(sql_ms), q, abq_sql_ms);
    copy_double(upd, HB(idle_ms), q, abq_idle_ms);
    copy_double(upd, HB(commit_ms), q, abq_commit_ms);
    if (ls_stmt_isnull(q, abq_head_state))
        ls_stmt_bind_null(upd, HB(head_state));
    else
        ls_stmt_bind_text(upd, HB(head_state), ls_stmt_text(q, abq_head_state));
    rc = ls_stmt_step(upd);
    return rc < 0 ? rc : 0;
}

/* Every hold of aborted_holds_sql, decided. */
static int aborted_holds(ls_store *s, holds_q *hq)
{
    ls_stmt *q = NULL;
    int rc;

    if ((rc = ls_store_prepare(s, aborted_holds_sql, &q)) != 0)
        return rc;
    while ((rc = ls_stmt_step(q)) == 1)
        if ((rc = decide_aborted_hold(hq, q)) != 0)
            break;
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

/*
 * The start and end of each hold others waited for, with bounds
 * (decide/hold.c), and what its holder did meanwhile: a row of
 * hold_bounds each, which the holds view prefers over the transactions
 * pass's hold_rows. Then pg_stat_activity snapshots, and each row's hold
 * totals (row_holds).
 */
int ls_correlate_holds(ls_store *s, ls_correlate_stats *stats)
{
    holds_q hq;
    int rc, sorting = 0;

    (void)stats;
    /* The groups are sorted (the waits grouped, then in their
     * transactions' order) with a quarter of the page cache for the
     * sorter; the sweep that follows reads the statements in id order,
     * which that cache serves. */
    memset(&hq, 0, sizeof(hq));
    if ((rc = ls_correlate_log_resolution(s, &hq.resolution)) != 0 ||
        (rc = ls_intern_open(s, &hq.evidence, "bound_evidence", "evidence_id", "text")) != 0 ||
        (rc = ls_store_sorting(s, sorting = 1)) != 0 ||
        (rc = ls_store_prepare(s, groups_sql, &hq.g)) != 0 ||
        (rc = ls_store_prepare_params(s, sweep_ids_sql, LS_PARAM_NAMES(SWEEP_IDS_PARAMS), &hq.ids)) != 0 ||
        (rc = ls_store_prepare_params(s, tx_statement_sql, LS_PARAM_NAMES(TX_STMT_PARAMS), &hq.sts)) != 0 ||
        (rc = ls_store_prepare(s, update_hold_sql, &hq.upd)) != 0 ||
        (rc = ls_store_exec(s, waited_tables_sql)) != 0 ||
        (rc = ls_store_prepare_params(s, waited_swept_sql, LS_PARAM_NAMES(WAITED_SWEPT_PARAMS),
                                      &hq.swept)) != 0 ||
        (rc = ls_store_prepare_params(s, waited_pair_sql, LS_PARAM_NAMES(WAITED_PAIR_PARAMS),
                                      &hq.pair)) != 0 ||
        (rc = holds_sweep(&hq)) != 0)
        goto out;
    /* pg_stat_activity snapshots taken while others waited say what the
     * holder was doing; where the log has no durations they decide. */
    if (rc == 0)
        rc = ls_store_exec(s, waiting_sql);
    if (rc == 0)
        rc = ls_store_exec(s, "CREATE INDEX IF NOT EXISTS activity_pid ON activity(pid, ts);");
    ls_stmt_finalize(hq.g);
    hq.g = NULL;
    if (rc == 0)
        rc = aborted_holds(s, &hq);
    if (rc == 0)
        rc = ls_store_sorting(s, sorting = 0);
    if (rc == 0)
        rc = ls_store_exec(s, observed_sql);
    if (rc == 0)
        rc = row_totals(s);
out:
    if (sorting)
        ls_store_sorting(s, 0);
    ls_stmt_finalize(hq.g);
    ls_stmt_finalize(hq.ids);
    ls_stmt_finalize(hq.sts);
    ls_stmt_finalize(hq.upd);
    ls_stmt_finalize(hq.swept);
    ls_stmt_finalize(hq.pair);
    while (hq.nopen)
        open_hold_free(&hq.open[--hq.nopen]);
    free(hq.open);
    ls_intern_close(&hq.evidence);
    return rc < 0 ? rc : 0;
}

/* ---- queue depth over time ---- */

/* Each wait's start (+1) and end (-1), by row and time, an end before a
 * start at the same time. */
#define EDGE_COLS(X, Q)                                                                \
    X(Q, row_id, "row_id")                                                             \
    X(Q, ts, "start_ts")                                                               \
    X(Q, step, "1")
LS_COLUMNS(eq, EDGE_COLS);
#define EDGE_END_COLS(X, Q)                                                            \
    X(Q, row_id, "row_id")                                                             \
    X(Q, ts, "coalesce(end_ts, logged_ts)")                                            \
    X(Q, step, "-1")
static const char edges_sql[] =
    "SELECT " LS_SELECT_LIST(eq, EDGE_COLS) " FROM lock_waits WHERE row_id IS NOT NULL"
    " UNION ALL SELECT " LS_SELECT_LIST(eq, EDGE_END_COLS) " FROM lock_waits"
    " WHERE row_id IS NOT NULL ORDER BY 1, 2, 3";

/* Sweep each row's wait starts and ends into (time, depth) points. */
int ls_correlate_queue(ls_store *s)
{
    ls_stmt *q = NULL, *ins = NULL, *upd = NULL;
    int64_t row = -1, max_ts = 0;
    int depth = 0, max_depth = 0, rc;

    if ((rc = ls_store_prepare(s, edges_sql, &q)) != 0 ||
        (rc = ls_store_prepare(s, LS_INSERT_INTO("INSERT", row_queue), &ins)) != 0 ||
        (rc = ls_store_prepare(s, LS_INSERT_INTO("INSERT", row_queue_peaks), &upd)) != 0)
        goto out;
    for (;;) {
        int more = rc = ls_stmt_step(q);
        if (rc < 0)
            goto out;
        if (row >= 0 && (!more || ls_stmt_int64(q, eq_row_id) != row)) {
            ls_stmt_reset(upd);
            ls_stmt_bind_int64(upd, LS_PARAM(row_queue_peaks, row_id), row);
            ls_stmt_bind_int64(upd, LS_PARAM(row_queue_peaks, max_queue), max_depth);
            ls_stmt_bind_int64(upd, LS_PARAM(row_queue_peaks, max_queue_ts), max_ts);
            if ((rc = ls_stmt_step(upd)) < 0)
                goto out;
            depth = max_depth = 0;
        }
        if (!more)
            break;
        row = ls_stmt_int64(q, eq_row_id);
        depth += (int)ls_stmt_int64(q, eq_step);
        if (depth > max_depth) {
            max_depth = depth;
            max_ts = ls_stmt_int64(q, eq_ts);
        }
        ls_stmt_reset(ins);
        ls_stmt_bind_int64(ins, LS_PARAM(row_queue, row_id), row);
        ls_stmt_bind_int64(ins, LS_PARAM(row_queue, ts), ls_stmt_int64(q, eq_ts));
        ls_stmt_bind_int64(ins, LS_PARAM(row_queue, depth), depth);
        if ((rc = ls_stmt_step(ins)) < 0)
            goto out;
    }
    rc = 0;
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(ins);
    ls_stmt_finalize(upd);
    return rc < 0 ? rc : 0;
}
