/*
 * correlate.c — wait episodes and blocker chains, and the pass table.
 *
 * Each of its passes writes tables of its own (passes[] below): the
 * episodes lock_wait_rows and event_waits (each message's wait), the
 * chain walk wait_chains, the relation names relations; readers see them
 * joined in the lock_waits and lock_events views. What is decided is
 * decided in decide/wait.c and decide/chain.c.
 *
 * 1. Episodes: log_lock_waits writes "still waiting" once a wait passes
 *    deadlock_timeout and a closing message ("acquired", "detected
 *    deadlock", "failed to acquire") when it ends; a wait cut short by an
 *    error (lock_timeout, statement_timeout, cancel) has no closing message,
 *    so the next such error of the same process closes it. An episode
 *    starts "after X ms" before its messages (the earliest they imply).
 * 2. Direct blocker: the first pid of "Process(es) holding the lock" at
 *    the moment the wait was logged (or the awaited transaction's owner,
 *    when the message lists the waiters its end woke). For later waiters
 *    of a tuple-lock queue that is the first waiter, which holds the
 *    tuple lock.
 * 3. Root blocker: follow direct blockers while the blocker is itself in
 *    an open wait episode at that moment (not one for the lock the message
 *    names it a holder of: that wait is over); stop at a process that is not
 *    waiting (the head) or on a repeat (a deadlock cycle). The root's
 *    transaction is the one the last waiter of the chain awaited
 *    ("transaction N"), linked to its session through %x when logged.
 * 4. Relation names: tuple-lock waits name the relation by OID only; the
 *    CONTEXT of the transaction wait of their holder (the queue's first
 *    waiter) names the same tuple and the relation.
 */
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "correlate_int.h"
#include "findings.h"
#include "ls_columns.h"
#include "ls_sqlshape.h"
#include "corr_tables.h"

#define MAX_EPISODE_EVENTS 16 /* messages of one wait (waiting, avoided..., acquired) */

/* The lock messages, as build_episodes() reads them. */
#define EPISODE_EVENT_COLS(X, Q)                                                            \
    X(Q, event_id, "event_id")                                                              \
    X(Q, session_id, "session_id")                                                          \
    X(Q, pid, "pid")                                                                        \
    X(Q, ts, "ts")                                                                          \
    X(Q, phase, "phase")                                                                    \
    X(Q, mode, "mode")                                                                      \
    X(Q, target_kind, "target_kind")                                                        \
    X(Q, target, "target")                                                                  \
    X(Q, target_xid, "target_xid")                                                          \
    X(Q, rel_oid, "rel_oid")                                                                \
    X(Q, db_oid, "db_oid")                                                                  \
    X(Q, page, "page")                                                                      \
    X(Q, tuple_offset, "tuple_offset")                                                      \
    X(Q, waited_ms, "waited_ms")                                                            \
    X(Q, holders, LS_PIDS_OF("lock_event_rows", "holders"))                                 \
    X(Q, queue, "queue")                                                                    \
    X(Q, ctx_relation, "ctx_relation")                                                      \
    X(Q, ctx_page, "ctx_page")                                                              \
    X(Q, ctx_offset, "ctx_offset")                                                          \
    X(Q, file_id, "file_id")                                                                \
    X(Q, line, "line")                                                                      \
    X(Q, after_lock, "after_lock")                                                          \
    /* The queue as stored, not read back: lock_wait_rows keeps the same   \
     * id (queue_id), or the same text (queue) when it has none. */        \
    X(Q, queue_id, "CASE WHEN typeof(queue) = 'integer' THEN queue END")
LS_COLUMNS(ev, EPISODE_EVENT_COLS);

static const char episodes_sql[] =
    "SELECT " LS_SELECT_LIST(ev, EPISODE_EVENT_COLS)
    /* In the table's (log) order, not through lock_events(pid, ts): that
     * walk reads the time-ordered table once per process once it outgrows
     * the page cache. Without the statement, which only the first event
     * gives and the copy into lock_wait_rows joins. */
    " FROM lock_event_rows NOT INDEXED ORDER BY event_id";

/*
 * Episodes are built as they end (the scan's order) but stored in time
 * order: every later pass walks or probes the waits around a moment, and
 * with wait_id in time order those reads stay near one another instead of
 * jumping across the table. So the scan writes each episode, and each
 * event's link to it, to temp tables; then the waits are numbered by
 * (start, pid, build order) and copied, and the events linked.
 */
#define WAIT_COLS(X, P)                                                                     \
    X(P, session_id) X(P, pid) X(P, mode) X(P, target_kind) X(P, target) X(P, target_xid)    \
    X(P, rel_oid) X(P, db_oid) X(P, relation) X(P, ctid) X(P, start_ts) X(P, logged_ts)       \
    X(P, end_ts) X(P, waited_ms) X(P, outcome) X(P, holders) X(P, queue) X(P, blocker_pid)    \
    X(P, first_event) X(P, file_id) X(P, line) X(P, end_file) X(P, end_line)
/* "P.name, " for each column (P a string, "" for none), a "?, " for each,
 * and the position of each: its parameter is wc_name + 1. */
#define WAIT_COL_NAME_(P, name) P #name ", "
#define WAIT_COL_PARAM_(P, name) "?, "
#define WAIT_COL_ENUM_(P, name) wc_##name,
enum { WAIT_COLS(WAIT_COL_ENUM_, ) wc__ncols };
#define WAIT_PARAM(name) (wc_##name + 1)
#define WAIT_COLUMNS(P) WAIT_COLS(WAIT_COL_NAME_, P)

static const char episode_tables_sql[] =
    "DROP TABLE IF EXISTS temp.episodes;"
    "DROP TABLE IF EXISTS temp.episode_events;"
    "CREATE TEMP TABLE episodes(" WAIT_COLUMNS("") "id INTEGER PRIMARY KEY);"
    "CREATE TEMP TABLE episode_events(event_id INTEGER PRIMARY KEY, episode INTEGER);";

static const char store_episodes_sql[] =
    "DROP TABLE IF EXISTS temp.episode_order;"
    "CREATE TEMP TABLE episode_order(wait_id INTEGER PRIMARY KEY, id INTEGER UNIQUE);"
    "INSERT INTO temp.episode_order(wait_id, id)"
    " SELECT row_number() OVER (ORDER BY start_ts, pid, id), id FROM temp.episodes;"
    /* In wait_id order (CROSS JOIN: episode_order is the outer loop), so
     * the statement, the first event's, is read near the one before: the
     * events are in log order, and so, nearly, are the waits. */
    "INSERT INTO lock_wait_rows(" WAIT_COLUMNS("") "wait_id, statement)"
    " SELECT " WAIT_COLUMNS("e.") "o.wait_id, " LS_TEXT_OF("le.text_id")
    " FROM temp.episode_order o"
    " CROSS JOIN temp.episodes e ON e.id = o.id"
    " LEFT JOIN lock_events le ON le.event_id = e.first_event ORDER BY o.wait_id;"
    /* Each event's wait, in event order (episode_events' own). */
    "INSERT INTO event_waits(" LS_COLUMN_NAMES(event_waits) ") SELECT ee.event_id, o.wait_id"
    " FROM temp.episode_events ee JOIN temp.episode_order o ON o.id = ee.episode"
    " ORDER BY ee.event_id;"
    "DROP TABLE temp.episodes; DROP TABLE temp.episode_events; DROP TABLE temp.episode_order;";

/* An episode; its id (the last parameter, EPISODE_ID_PARAM) is its
 * number in build order (no RETURNING: a row per episode). The statement is
 * joined from the first event when the episodes are stored. */
#define EPISODE_ID_PARAM (wc__ncols + 1)
static const char insert_wait_sql[] =
    "INSERT INTO temp.episodes(" WAIT_COLUMNS("") "id)"
    " VALUES (" WAIT_COLS(WAIT_COL_PARAM_, ) "?)";

/*
 * Waits the log shows no end of (no closing lock message): each with its
 * process's first error at or after its first message, and the process's
 * first lock message after that one. ls_error_closes_wait() decides
 * whether the error ended the wait.
 */
#define UNCLOSED_COLS(X, Q)                                                                 \
    X(Q, wait_id, "w.wait_id")                                                              \
    X(Q, logged_ts, "w.logged_ts")                                                          \
    X(Q, start_ts, "w.start_ts")                                                            \
    X(Q, waited_ms, "w.waited_ms")                                                          \
    X(Q, err_ts, "e.ts")                                                                    \
    X(Q, err_class, "e.class")                                                              \
    X(Q, err_file, "e.file_id")                                                             \
    X(Q, err_line, "e.line")                                                                \
    X(Q, next_lock, "(SELECT min(l.ts) FROM lock_events l WHERE l.pid = w.pid"               \
                    " AND l.ts > w.logged_ts)")
LS_COLUMNS(uc, UNCLOSED_COLS);
static const char unclosed_sql[] =
    "SELECT " LS_SELECT_LIST(uc, UNCLOSED_COLS)
    " FROM lock_wait_rows w JOIN errors e ON e.error_id = (SELECT e2.error_id FROM errors e2"
    "  WHERE e2.pid = w.pid AND e2.ts >= w.logged_ts ORDER BY e2.ts, e2.error_id LIMIT 1)"
    " WHERE w.outcome IS NULL ORDER BY w.wait_id";

/* The wait lasted until the error: "after X ms" was only when it was
 * first logged. */
static const char close_wait_sql[] =
    "UPDATE lock_wait_rows SET outcome = :outcome, end_ts = :end_ts, end_file = :end_file,"
    " end_line = :end_line, waited_ms = :waited_ms WHERE wait_id = :wait_id";
#define CLOSE_WAIT_PARAMS(X, Q) \
    X(Q, outcome) X(Q, end_ts) X(Q, end_file) X(Q, end_line) X(Q, waited_ms) X(Q, wait_id)
LS_PARAMS(cwp, CLOSE_WAIT_PARAMS);

static const char unknown_outcome_sql[] =
    "UPDATE lock_wait_rows SET outcome = 'unknown' WHERE outcome IS NULL;";

/* Acquired waits whose process failed with 40001 within
 * LS_SERIALIZATION_WINDOW_US of their end (the probe of the small index
 * errors_serialization keeps the scan to waits near a failure): each is
 * then asked for the first error of its session after its end
 * (first_error_sql) and serialization_of_wait() decides. */
#define ACQUIRED_40001_COLS(X, Q)                                                           \
    X(Q, wait_id, "w.wait_id")                                                              \
    X(Q, pid, "w.pid")                                                                      \
    X(Q, session_id, "w.session_id")                                                        \
    X(Q, start_ts, "w.start_ts")                                                            \
    X(Q, end_ts, "w.end_ts")                                                                \
    X(Q, end_file, "w.end_file")                                                            \
    X(Q, end_line, "w.end_line")
LS_COLUMNS(sf, ACQUIRED_40001_COLS);
static const char acquired_40001_sql[] =
    "SELECT " LS_SELECT_LIST(sf, ACQUIRED_40001_COLS) " FROM lock_wait_rows w"
    " WHERE w.outcome = 'acquired' AND EXISTS (SELECT 1 FROM errors f WHERE f.pid = w.pid"
    "  AND f.class = 'serialization_failure' AND f.ts >= w.end_ts"
    "  AND f.ts <= w.end_ts + " LS_SQL_INT(LS_SERIALIZATION_WINDOW_US) ")"
    " ORDER BY w.wait_id";

/* The first error of process :pid, session :session, written after a
 * wait's end (:ts its time, :file :line its file and line; positions
 * unknown: the first by time) within LS_SERIALIZATION_WINDOW_US: the statement that raised it
 * was running when the wait ended or came after. errors_pid serves it;
 * the window bounds the range. */
#define FIRST_ERROR_COLS(X, Q)                                                              \
    X(Q, ts, "ts")                                                                          \
    X(Q, file_id, "file_id")                                                                \
    X(Q, line, "line")                                                                      \
    X(Q, class, "class")
LS_COLUMNS(fe, FIRST_ERROR_COLS);
static const char first_error_sql[] =
    "SELECT " LS_SELECT_LIST(fe, FIRST_ERROR_COLS) " FROM errors WHERE pid = :pid"
    " AND ts >= :ts AND ts <= :ts + " LS_SQL_INT(LS_SERIALIZATION_WINDOW_US)
    " AND session_id IS :session"
    " AND (:file = 0 OR file_id IS NULL OR file_id > :file OR (file_id = :file AND line > :line))"
    " ORDER BY ts, file_id, line LIMIT 1";
#define FIRST_ERROR_PARAMS(X, Q) X(Q, pid) X(Q, ts) X(Q, session) X(Q, file) X(Q, line)
LS_PARAMS(fep, FIRST_ERROR_PARAMS);

/* The session's (:session) statement lines that may lie between a wait's
 * end and an error: those that started from LS_LINE_START_SLACK_US before
 * the wait's end (:end_ts) to the error (:err_ts), and the statement that
 * started last by the wait's start (:start_ts): the waiting statement itself, whose duration
 * line, if it ended well, comes after the wait. A span's statement has
 * no line (file_id 0). The index statements_session serves both. */
#define STMT_LINE_COLS(X, Q)                                                                \
    X(Q, file_id, "file_id")                                                                \
    X(Q, line, "line")
LS_COLUMNS(sl, STMT_LINE_COLS);
static const char stmt_lines_sql[] =
    "SELECT " LS_SELECT_LIST(sl, STMT_LINE_COLS) " FROM stmt_rows WHERE session_id = :session"
    " AND start_ts >= :end_ts - " LS_SQL_INT(LS_LINE_START_SLACK_US) " AND start_ts <= :err_ts"
    " AND file_id > 0"
    " UNION ALL SELECT * FROM (SELECT " LS_SELECT_LIST(sl, STMT_LINE_COLS) " FROM stmt_rows"
    "  WHERE session_id = :session AND start_ts <= :start_ts AND file_id > 0"
    "  ORDER BY start_ts DESC, stmt_id DESC LIMIT 1)";
#define STMT_LINES_PARAMS(X, Q) X(Q, session) X(Q, end_ts) X(Q, err_ts) X(Q, start_ts)
LS_PARAMS(slp, STMT_LINES_PARAMS);
/* The query above probes a process's serialization failures only: with
 * the (pid, ts) index of all errors it stepped over every later error of
 * the process (a deadlock-heavy log's) for each acquired wait, time that
 * grew with the square of the log (1 GiB pgbench log: 27.8 k steps per MB
 * in this pass against 14.1 k at 100 MiB). This index is as small as the
 * failures are few. */
static const char serialization_index_sql[] =
    "CREATE INDEX IF NOT EXISTS errors_serialization ON errors(pid, ts)"
    " WHERE class = 'serialization_failure';";

/* Tuple waits, each with its holder's (blocker_pid) waits begun by then:
 * ls_holder_wait_at() picks the latest begun by the tuple wait's message
 * (one at a time), ls_holder_wait_names() decides whether that wait's
 * CONTEXT names the tuple wait's relation. */
#define TUPLE_WAIT_COLS(X, Q)                                                               \
    X(Q, db_oid, "db_oid")                                                                  \
    X(Q, rel_oid, "rel_oid")                                                                \
    X(Q, logged_ts, "logged_ts")                                                            \
    X(Q, ctid, "ctid")                                                                      \
    X(Q, blocker_pid, "blocker_pid")
LS_COLUMNS(tw, TUPLE_WAIT_COLS);
static const char tuple_waits_sql[] =
    "SELECT " LS_SELECT_LIST(tw, TUPLE_WAIT_COLS) " FROM lock_wait_rows"
    " WHERE target_kind = 'tuple' AND rel_oid IS NOT NULL AND db_oid IS NOT NULL"
    " ORDER BY wait_id";

/* The holder's (:pid) waits latest first, from a look-ahead window past
 * the tuple wait's message (:ts + :lookahead: LS_HOLDER_WAIT_LOOKAHEAD_US),
 * at most :n (LS_HOLDER_WAIT_CANDIDATES): the boundary is decided in C, the window
 * only bounds the read. */
#define HOLDER_WAIT_COLS(X, Q)                                                              \
    X(Q, start_ts, "start_ts")                                                              \
    X(Q, relation, "relation")                                                              \
    X(Q, ctid, "ctid")                                                                      \
    X(Q, end_ts, "end_ts")
LS_COLUMNS(hw, HOLDER_WAIT_COLS);
static const char holder_waits_sql[] =
    "SELECT " LS_SELECT_LIST(hw, HOLDER_WAIT_COLS) " FROM lock_wait_rows"
    " WHERE pid = :pid AND start_ts <= :ts + :lookahead ORDER BY start_ts DESC, wait_id DESC"
    " LIMIT :n";
#define HOLDER_WAITS_PARAMS(X, Q) X(Q, pid) X(Q, ts) X(Q, lookahead) X(Q, n)
LS_PARAMS(hwp, HOLDER_WAITS_PARAMS);

/* The first name found for a relation stands: the holder's wait's
 * CONTEXT, the strongest evidence, is looked at first. */
LS_TABLE_COLUMNS(relations);
static const char insert_relation_sql[] = LS_INSERT_INTO("INSERT OR IGNORE", relations);
#define HOLDER_WAIT_EVIDENCE "context of the holder's wait"

/* A DETAIL list (holders, queue) of a lock_wait_rows row, read only for
 * the locks whose blocker can be a waiter ahead in the queue
 * (queue_blockers()): NULL for tuple and transaction locks, most of the
 * waits, which spares the chain walk reading a list each. */
#define QUEUED_LIST(col)                                                                    \
    "CASE WHEN target_kind IN ('tuple', 'transaction') THEN NULL ELSE "                     \
    LS_PIDS_OF("lock_wait_rows", col) " END"

/* The waits of :pid around time :ts (:res: the timestamps' resolution),
 * with their log positions; ls_wait_open_at() decides. */
#define OPEN_WAIT_COLS(X, Q)                                                                \
    X(Q, blocker_pid, "blocker_pid")                                                        \
    X(Q, target_kind, "target_kind")                                                        \
    X(Q, target_xid, "target_xid")                                                          \
    X(Q, start_ts, "start_ts")                                                              \
    X(Q, end_ts, "end_ts")                                                                  \
    X(Q, file_id, "file_id")                                                                \
    X(Q, line, "line")                                                                      \
    X(Q, end_file, "end_file")                                                              \
    X(Q, end_line, "end_line")                                                              \
    X(Q, target, "target")                                                                  \
    X(Q, holders, QUEUED_LIST("holders"))                                                   \
    X(Q, queue, QUEUED_LIST("queue"))
LS_COLUMNS(ow, OPEN_WAIT_COLS);
static const char open_wait_sql[] =
    "SELECT " LS_SELECT_LIST(ow, OPEN_WAIT_COLS) " FROM lock_wait_rows"
    " WHERE pid = :pid AND start_ts <= :ts + :res"
    /* A process waits for one lock at a time: its waits follow one another,
     * so the latest few that began by then are the only candidates (:n:
     * LS_OPEN_WAIT_CANDIDATES; _WHOLE with whole-second times, a process under a crowd may begin a
     * dozen in the second after the moment, unordered by their derived
     * starts, and each is judged by its log position). */
    " ORDER BY start_ts DESC, wait_id DESC LIMIT :n";
#define OPEN_WAIT_PARAMS(X, Q) X(Q, pid) X(Q, ts) X(Q, res) X(Q, n)
LS_PARAMS(owp, OPEN_WAIT_PARAMS);

/* Do the log's timestamps have sub-second digits (%m, csvlog), or whole
 * seconds (%t)? */
#define SUBSECOND_COLS(X, Q)                                                                \
    X(Q, subsecond, "EXISTS (SELECT 1 FROM lock_events WHERE ts % "                         \
                    LS_SQL_INT(LS_WHOLE_SECOND_US) " <> 0)")
LS_COLUMNS(ss, SUBSECOND_COLS);
static const char subsecond_sql[] = "SELECT " LS_SELECT_LIST(ss, SUBSECOND_COLS);

int ls_log_subsecond(ls_store *s, int *subsecond)
{
    ls_stmt *q = NULL;
    int rc;

    *subsecond = 1;
    if ((rc = ls_store_prepare(s, subsecond_sql, &q)) != 0)
        return rc;
    if ((rc = ls_stmt_step(q)) == 1)
        *subsecond = (int)ls_stmt_int64(q, ss_subsecond);
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

/* The session pid :pid belonged to at time :ts. */
#define SESSION_AT_COLS(X, Q) X(Q, session_id, "session_id")
LS_COLUMNS(sa, SESSION_AT_COLS);
static const char session_at_sql[] =
    "SELECT " LS_SELECT_LIST(sa, SESSION_AT_COLS) " FROM sessions WHERE pid = :pid"
    " AND coalesce(start_ts, first_ts, 0) <= :ts"
    " ORDER BY coalesce(start_ts, first_ts, 0) DESC LIMIT 1";
#define SESSION_AT_PARAMS(X, Q) X(Q, pid) X(Q, ts)
LS_PARAMS(sap, SESSION_AT_PARAMS);

/* Who ran transaction :xid: the session and pid %x logged it with. */
#define XID_SESSION_COLS(X, Q)                                                              \
    X(Q, session_id, "session_id")                                                          \
    X(Q, pid, "pid")
LS_COLUMNS(xs, XID_SESSION_COLS);
static const char xid_session_sql[] =
    "SELECT " LS_SELECT_LIST(xs, XID_SESSION_COLS) " FROM xids WHERE xid = :xid";
#define XID_SESSION_PARAMS(X, Q) X(Q, xid)
LS_PARAMS(xsp, XID_SESSION_PARAMS);

/* The owner of transaction :xid (ls_wait_blocker()): the xid's first
 * logged process (xids of another server's log in the same store may
 * coincide: the time tells). */
#define XID_OWNER_COLS(X, Q)                                                                \
    X(Q, pid, "pid")                                                                        \
    X(Q, first_ts, "first_ts")
LS_COLUMNS(xo, XID_OWNER_COLS);
static const char xid_owner_sql[] =
    "SELECT " LS_SELECT_LIST(xo, XID_OWNER_COLS) " FROM xids WHERE xid = :xid";
#define XID_OWNER_PARAMS(X, Q) X(Q, xid)
LS_PARAMS(xop, XID_OWNER_PARAMS);

/* A wait's chain, as walk_one() found it (blocker chains' own table). */
LS_TABLE_COLUMNS(wait_chains);
static const char insert_chain_sql[] = LS_INSERT_INTO("INSERT", wait_chains);

#define WALK_COLS(X, Q)                                                                     \
    X(Q, wait_id, "wait_id")                                                                \
    X(Q, blocker_pid, "blocker_pid")                                                        \
    X(Q, logged_ts, "logged_ts")                                                            \
    X(Q, target_kind, "target_kind")                                                        \
    X(Q, target_xid, "target_xid")                                                          \
    X(Q, pid, "pid")                                                                        \
    X(Q, file_id, "file_id")                                                                \
    X(Q, line, "line")                                                                      \
    X(Q, target, "target")                                                                  \
    X(Q, holders, QUEUED_LIST("holders"))                                                   \
    X(Q, queue, QUEUED_LIST("queue"))
LS_COLUMNS(wk, WALK_COLS);
static const char walk_sql[] =
    "SELECT " LS_SELECT_LIST(wk, WALK_COLS) " FROM lock_wait_rows"
    /* wait_id is time order (build_episodes): the probes for each blocker's
     * waits at a moment stay near the ones before. */
    " WHERE blocker_pid IS NOT NULL ORDER BY wait_id";

typedef struct episode {
    int open;
    int64_t first_event, session_id, pid, file_id, line;
    char target[160], mode[32], target_kind[16];
    int64_t target_xid, rel_oid, db_oid, page, offset;
    int has_target_xid, has_rel, has_tuple;
    int64_t start_ts, logged_ts, last_ts, end_ts, end_file, end_line;
    double waited_ms;
    char outcome[24];
    char holders[1024], queue[1024];
    int64_t queue_id; /* queue's stmt_texts id as lock_event_rows has it, or 0 */
    char relation[128], ctid[32];
    int has_end;
    int nevents;
    int64_t events[MAX_EPISODE_EVENTS]; /* its lock_events, to point them at it */
} episode;

static void copy(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src);
}

/* Keep the first error of a run of binds in *rc (SQLite's sticky error):
 * the run is checked once, before its step. */
static void keep_first(int *rc, int r)
{
    if (*rc == 0)
        *rc = r;
}

/* An episode's lock event (temp.episode_events). */
static const char episode_event_sql[] =
    "INSERT INTO temp.episode_events(episode, event_id) VALUES (:episode, :event)";
#define EPISODE_EVENT_PARAMS(X, Q) X(Q, episode) X(Q, event)
LS_PARAMS(eep, EPISODE_EVENT_PARAMS);

/* The statements of build_episodes(), prepared once. */
typedef struct episode_q {
    ls_stmt *events, *ins, *link, *owner;
} episode_q;

/* The owner of the transaction a wait awaited (xids), for
 * ls_wait_blocker(); none for a wait on anything else. */
static int awaited_owner(ls_stmt *owner_q, const episode *e, ls_xid_owner *o)
{
    int rc;

    memset(o, 0, sizeof(*o));
    if (!e->has_target_xid || strcmp(e->target_kind, "transaction") != 0)
        return 0;
    ls_stmt_reset(owner_q);
    if ((rc = ls_stmt_bind_int64(owner_q, LS_PARAM(xop, xid), e->target_xid)) != 0 ||
        (rc = ls_stmt_step(owner_q)) < 0)
        return rc;
    if (rc == 1 && !ls_stmt_isnull(owner_q, xo_pid) && !ls_stmt_isnull(owner_q, xo_first_ts)) {
        o->known = 1;
        o->pid = ls_stmt_int64(owner_q, xo_pid);
        o->first_ts = ls_stmt_int64(owner_q, xo_first_ts);
    }
    return 0;
}

static int flush_episode(const episode_q *eq, episode *e, int64_t *next_id,
                         ls_correlate_stats *stats)
{
    ls_stmt *ins = eq->ins, *link = eq->link;
    int rc, brc = 0, i;
    int64_t ep_id, bp;
    ls_xid_owner owner;
    if (!e->open)
        return 0;
    e->open = 0;
    ep_id = ++*next_id;
    if ((rc = awaited_owner(eq->owner, e, &owner)) != 0)
        return rc;
    ls_stmt_reset(ins);
    keep_first(&brc, ls_stmt_bind_int64(ins, EPISODE_ID_PARAM, ep_id));
    if (e->session_id)
        keep_first(&brc, ls_stmt_bind_int64(ins, WAIT_PARAM(session_id), e->session_id));
    keep_first(&brc, ls_stmt_bind_int64(ins, WAIT_PARAM(pid), e->pid));
    keep_first(&brc, ls_stmt_bind_text(ins, WAIT_PARAM(mode), e->mode));
    keep_first(&brc, ls_stmt_bind_text(ins, WAIT_PARAM(target_kind), e->target_kind));
    keep_first(&brc, ls_stmt_bind_text(ins, WAIT_PARAM(target), e->target));
    if (e->has_target_xid)
        keep_first(&brc, ls_stmt_bind_int64(ins, WAIT_PARAM(target_xid), e->target_xid));
    if (e->has_rel) {
        keep_first(&brc, ls_stmt_bind_int64(ins, WAIT_PARAM(rel_oid), e->rel_oid));
        keep_first(&brc, ls_stmt_bind_int64(ins, WAIT_PARAM(db_oid), e->db_oid));
    }
    keep_first(&brc, ls_stmt_bind_text(ins, WAIT_PARAM(relation),
                                       e->relation[0] ? e->relation : NULL));
    keep_first(&brc, ls_stmt_bind_text(ins, WAIT_PARAM(ctid), e->ctid[0] ? e->ctid : NULL));
    keep_first(&brc, ls_stmt_bind_int64(ins, WAIT_PARAM(start_ts), e->start_ts));
    keep_first(&brc, ls_stmt_bind_int64(ins, WAIT_PARAM(logged_ts), e->logged_ts));
    if (e->has_end) {
        keep_first(&brc, ls_stmt_bind_int64(ins, WAIT_PARAM(end_ts), e->end_ts));
        keep_first(&brc, ls_stmt_bind_int64(ins, WAIT_PARAM(end_file), e->end_file));
        keep_first(&brc, ls_stmt_bind_int64(ins, WAIT_PARAM(end_line), e->end_line));
    }
    keep_first(&brc, ls_stmt_bind_double(ins, WAIT_PARAM(waited_ms), e->waited_ms));
    keep_first(&brc, ls_stmt_bind_text(ins, WAIT_PARAM(outcome),
                                       e->outcome[0] ? e->outcome : NULL));
    keep_first(&brc, ls_stmt_bind_text(ins, WAIT_PARAM(holders), e->holders));
    if (e->queue_id)
        keep_first(&brc, ls_stmt_bind_int64(ins, WAIT_PARAM(queue), e->queue_id));
    else
        keep_first(&brc, ls_stmt_bind_text(ins, WAIT_PARAM(queue), e->queue));
    bp = ls_wait_blocker(e->holders, &owner, e->logged_ts);
    if (bp)
        keep_first(&brc, ls_stmt_bind_int64(ins, WAIT_PARAM(blocker_pid), bp));
    keep_first(&brc, ls_stmt_bind_int64(ins, WAIT_PARAM(first_event), e->first_event));
    keep_first(&brc, ls_stmt_bind_int64(ins, WAIT_PARAM(file_id), e->file_id));
    keep_first(&brc, ls_stmt_bind_int64(ins, WAIT_PARAM(line), e->line));
    if (brc != 0)
        return brc;
    if ((rc = ls_stmt_step(ins)) < 0)
        return rc;
    for (i = 0; i < e->nevents; i++) {
        ls_stmt_reset(link);
        keep_first(&brc, ls_stmt_bind_int64(link, LS_PARAM(eep, episode), ep_id));
        keep_first(&brc, ls_stmt_bind_int64(link, LS_PARAM(eep, event), e->events[i]));
        if (brc != 0)
            return brc;
        if ((rc = ls_stmt_step(link)) < 0)
            return rc;
    }
    stats->waits++;
    if (bp)
        stats->linked++;
    return 0;
}

/*
 * Does a lock message of the same process and target continue the open
 * episode? A process asleep on a lock logs nothing but that wait's
 * messages, so the store marks each message that follows another lock
 * message of its session directly (lock_events.after_lock): 1 goes on
 * with the wait, 0 begins another (an error, a statement or a duration
 * line came between: the wait had ended). A message after the episode's
 * end ("acquired", "detected deadlock", "failed") always begins another
 * wait. A process that detects a deadlock logs "detected deadlock" instead
 * of "still waiting", so that wait's first message is its end: without
 * this it joined the process's previous wait on the same tuple, ended 13
 * minutes earlier, and made it a 13-minute wait (the second pgbench log
 * of bench/README.md).
 *
 * When the store cannot tell (after_lock NULL: no session in the prefix,
 * or the session's earlier lines in an earlier run), times decide: every
 * message of one wait says "after X ms" from the wait's start, so the
 * start it implies (its time less X) falls before the episode's latest
 * message was logged; a later wait begins after it. Times alone once split
 * a wait in two on a loaded machine: the "acquired" line was stamped 50 ms
 * after its "after X ms" was read, so its implied start fell after the
 * "still waiting" line of deadlock_timeout = 50 ms.
 */
static int continues_episode(const episode *ep, int64_t pid, const char *target,
                             int64_t implied_start, int after_lock, int subsecond)
{
    if (!ep->open || ep->has_end || ep->pid != pid || strcmp(ep->target, target) != 0)
        return 0;
    return ls_wait_goes_on(after_lock, implied_start, ep->last_ts, subsecond);
}

/* The DETAIL lists of the current event of q: the holders as text (the
 * first is the blocker), the queue as lock_event_rows has it, to be stored
 * so in lock_wait_rows. */
static void take_lists(episode *ep, ls_stmt *q)
{
    copy(ep->holders, sizeof(ep->holders), ls_stmt_text(q, ev_holders));
    ep->queue_id = ls_stmt_isnull(q, ev_queue_id) ? 0 : ls_stmt_int64(q, ev_queue_id);
    copy(ep->queue, sizeof(ep->queue), ep->queue_id ? "" : ls_stmt_text(q, ev_queue));
}

/* Start episode `ep` at the current event of q (an episodes_sql row). */
static void episode_open(episode *ep, ls_stmt *q, int64_t implied_start)
{
    memset(ep, 0, sizeof(*ep));
    ep->open = 1;
    ep->first_event = ls_stmt_int64(q, ev_event_id);
    ep->session_id = ls_stmt_int64(q, ev_session_id);
    ep->pid = ls_stmt_int64(q, ev_pid);
    ep->file_id = ls_stmt_int64(q, ev_file_id);
    ep->line = ls_stmt_int64(q, ev_line);
    copy(ep->target, sizeof(ep->target), ls_stmt_text(q, ev_target));
    copy(ep->mode, sizeof(ep->mode), ls_stmt_text(q, ev_mode));
    copy(ep->target_kind, sizeof(ep->target_kind), ls_stmt_text(q, ev_target_kind));
    if (!ls_stmt_isnull(q, ev_target_xid)) {
        ep->has_target_xid = 1;
        ep->target_xid = ls_stmt_int64(q, ev_target_xid);
    }
    if (!ls_stmt_isnull(q, ev_rel_oid)) {
        ep->has_rel = 1;
        ep->rel_oid = ls_stmt_int64(q, ev_rel_oid);
        ep->db_oid = ls_stmt_int64(q, ev_db_oid);
    }
    if (!ls_stmt_isnull(q, ev_tuple_offset))
        snprintf(ep->ctid, sizeof(ep->ctid), "(%lld,%lld)", (long long)ls_stmt_int64(q, ev_page),
                 (long long)ls_stmt_int64(q, ev_tuple_offset));
    ep->start_ts = implied_start;
    ep->logged_ts = ls_stmt_int64(q, ev_ts);
    take_lists(ep, q);
}

/*
 * Add the current event of q to its episode. Each message says "after X
 * ms" from the wait's start, read from the clock a moment before the line
 * was stamped (later still when the backend was descheduled in between,
 * on a loaded machine): the start each message implies (its time less X)
 * is the true start or later, so the episode starts at the earliest, and
 * a wait that ends ("acquired", "detected deadlock") lasted its own X,
 * however late its line. With whole-second times the messages' own times
 * are the coarser figure: the first message's start and the closing line's
 * time stand.
 */
static void episode_add(episode *ep, ls_stmt *q, int subsecond)
{
    int64_t ts = ls_stmt_int64(q, ev_ts);
    const char *phase = ls_stmt_text(q, ev_phase);
    double ms = ls_stmt_double(q, ev_waited_ms);
    int64_t after = ls_wait_after_us(ms);

    ep->start_ts = ls_wait_start_with(ep->start_ts, ts, after, subsecond);

    if (!ls_stmt_isnull(q, ev_ctx_relation) && !ep->relation[0]) {
        copy(ep->relation, sizeof(ep->relation), ls_stmt_text(q, ev_ctx_relation));
        if (!ls_stmt_isnull(q, ev_ctx_page) && !ep->ctid[0])
            snprintf(ep->ctid, sizeof(ep->ctid), "(%lld,%lld)",
                     (long long)ls_stmt_int64(q, ev_ctx_page),
                     (long long)ls_stmt_int64(q, ev_ctx_offset));
    }
    ep->last_ts = ts;
    if (ep->nevents < MAX_EPISODE_EVENTS)
        ep->events[ep->nevents++] = ls_stmt_int64(q, ev_event_id);
    if (ms > ep->waited_ms)
        ep->waited_ms = ms;
    if (strcmp(phase, "acquired") == 0 || strcmp(phase, "deadlock") == 0 ||
        strcmp(phase, "failed") == 0) {
        ep->has_end = 1;
        ep->end_ts = ls_wait_end_at(ep->start_ts, ts, after, subsecond);
        ep->end_file = ls_stmt_int64(q, ev_file_id);
        ep->end_line = ls_stmt_int64(q, ev_line);
        copy(ep->outcome, sizeof(ep->outcome), phase);
    } else if (!ep->holders[0]) {
        take_lists(ep, q);
    }
}

/*
 * The open episodes, one per process at most (a process waits for one lock
 * at a time): open addressing on the pid. An episode leaves when it ends,
 * or when its process's next message begins another wait; what is left at
 * the end of the log is flushed then. Episodes are ~2 KiB: only waits
 * whose end the log has not shown yet are held.
 */
typedef struct episode_map {
    episode **slot;
    size_t cap, n;
} episode_map;

static episode **map_find(episode_map *m, int64_t pid)
{
    size_t i = ((uint64_t)pid * UINT64_C(0x9E3779B97F4A7C15) >> 20) & (m->cap - 1);
    while (m->slot[i] && m->slot[i]->pid != pid)
        i = (i + 1) & (m->cap - 1);
    return &m->slot[i];
}

/* The slot for `pid` (NULL inside when it has no open episode); NULL when out of memory. */
static episode **map_slot(episode_map *m, int64_t pid)
{
    if ((m->n + 1) * 2 > m->cap) {
        episode_map g = {ls_calloc(m->cap ? m->cap * 2 : 64, sizeof(episode *)),
                         m->cap ? m->cap * 2 : 64, 0};
        size_t i;
        if (!g.slot)
            return NULL;
        for (i = 0; i < m->cap; i++)
            if (m->slot[i]) {
                *map_find(&g, m->slot[i]->pid) = m->slot[i];
                g.n++;
            }
        free(m->slot);
        *m = g;
    }
    return map_find(m, pid);
}

/* Remove the episode at `*slot` (linear probing: re-place the run after it). */
static void map_remove(episode_map *m, episode **slot)
{
    size_t i = (size_t)(slot - m->slot), j = i;
    *slot = NULL;
    m->n--;
    for (;;) {
        episode *e;
        j = (j + 1) & (m->cap - 1);
        if (!(e = m->slot[j]))
            return;
        m->slot[j] = NULL;
        *map_find(m, e->pid) = e;
    }
}

/*
 * Wait episodes: group lock_events into episodes. The messages are read in log
 * order (the table's), not sorted by process: each process's messages are
 * in its own order there, and an open episode per process is all the state
 * it takes. (A sort by pid and target was the pass's main cost, and grew
 * faster than the log: 0.45 s of 1.2 s on the 96,049 messages of the 1 GiB
 * pgbench log.)
 */
static int build_episodes(ls_store *s, ls_correlate_stats *stats)
{
    episode_q eq = {NULL, NULL, NULL, NULL};
    ls_stmt *q;
    episode_map map = {NULL, 0, 0};
    episode *spare = NULL;
    int64_t next_id = 0;
    size_t i;
    int rc, subsecond;

    if ((rc = ls_log_subsecond(s, &subsecond)) != 0)
        return rc;
    if ((rc = ls_store_exec(s, episode_tables_sql)) != 0 ||
        (rc = ls_store_prepare(s, episodes_sql, &eq.events)) != 0 ||
        (rc = ls_store_prepare(s, insert_wait_sql, &eq.ins)) != 0 ||
        (rc = ls_store_prepare_params(s, episode_event_sql, LS_PARAM_NAMES(EPISODE_EVENT_PARAMS),
                                      &eq.link)) != 0 ||
        (rc = ls_store_prepare_params(s, xid_owner_sql, LS_PARAM_NAMES(XID_OWNER_PARAMS),
                                      &eq.owner)) != 0)
        goto out;
    q = eq.events;
    while ((rc = ls_stmt_step(q)) == 1) {
        int64_t pid = ls_stmt_int64(q, ev_pid), ts = ls_stmt_int64(q, ev_ts);
        double ms = ls_stmt_double(q, ev_waited_ms);
        int64_t implied_start = ts - ls_wait_after_us(ms);
        episode **slot = map_slot(&map, pid), *ep;
        int after_lock =
            ls_stmt_isnull(q, ev_after_lock) ? -1 : (int)ls_stmt_int64(q, ev_after_lock);

        if (!slot) {
            rc = LS_ENOMEM;
            goto out;
        }
        ep = *slot;
        if (ep && !continues_episode(ep, pid, ls_stmt_text(q, ev_target), implied_start,
                                     after_lock, subsecond)) {
            if ((rc = flush_episode(&eq, ep, &next_id, stats)) != 0)
                goto out;
            episode_open(ep, q, implied_start);
        } else if (!ep) {
            if (spare) {
                ep = spare;
                spare = NULL;
            } else if (!(ep = ls_malloc(sizeof(*ep)))) {
                rc = LS_ENOMEM;
                goto out;
            }
            episode_open(ep, q, implied_start);
            *slot = ep;
            map.n++;
        }
        episode_add(ep, q, subsecond);
        if (ep->has_end) {
            /* nothing continues an ended wait */
            if ((rc = flush_episode(&eq, ep, &next_id, stats)) != 0)
                goto out;
            map_remove(&map, slot);
            free(spare);
            spare = ep;
        }
    }
    /* Waits the log never showed the end of, in slot order (deterministic). */
    for (i = 0; rc == 0 && i < map.cap; i++)
        if (map.slot[i])
            rc = flush_episode(&eq, map.slot[i], &next_id, stats);
out:
    ls_stmt_finalize(eq.events);
    ls_stmt_finalize(eq.ins);
    ls_stmt_finalize(eq.link);
    ls_stmt_finalize(eq.owner);
    for (i = 0; i < map.cap; i++)
        free(map.slot[i]);
    free(map.slot);
    free(spare);
    /* The copy in time order reads by rowid: the whole page cache serves it. */
    if (rc == 0)
        rc = ls_store_exec(s, store_episodes_sql);
    return rc;
}

static int lookup_session(ls_stmt *q, int64_t pid, int64_t ts, int64_t *out)
{
    int rc;
    *out = 0;
    ls_stmt_reset(q);
    if ((rc = ls_stmt_bind_int64(q, LS_PARAM(sap, pid), pid)) != 0 ||
        (rc = ls_stmt_bind_int64(q, LS_PARAM(sap, ts), ts)) != 0)
        return rc;
    rc = ls_stmt_step(q);
    if (rc == 1)
        *out = ls_stmt_int64(q, sa_session_id);
    return rc < 0 ? rc : 0;
}

/* Is a wait's blocker a waiter ahead in its lock's queue
 * (queue_blockers()) rather than a holder the server named? */
static int blocker_queued(const char *holders, const char *queue, int64_t blocker)
{
    return ls_pid_listed(queue, blocker) && !ls_pid_listed(holders, blocker);
}

/* One wait of the root around the moment (an open_wait_sql row), as the
 * chain walk sees it; target points into q's row (valid until its next
 * step). */
static void read_root_wait(ls_stmt *q, ls_chain_wait *w)
{
    w->span.start_ts = ls_stmt_int64(q, ow_start_ts);
    w->span.has_end = !ls_stmt_isnull(q, ow_end_ts);
    w->span.end_ts = ls_stmt_int64(q, ow_end_ts);
    w->span.first.file = ls_stmt_int64(q, ow_file_id);
    w->span.first.line = ls_stmt_int64(q, ow_line);
    w->span.end.file = ls_stmt_int64(q, ow_end_file);
    w->span.end.line = ls_stmt_int64(q, ow_end_line);
    w->has_blocker = !ls_stmt_isnull(q, ow_blocker_pid);
    w->blocker = ls_stmt_int64(q, ow_blocker_pid);
    w->awaited_xid = strcmp(ls_stmt_text(q, ow_target_kind), "transaction") == 0
                         ? ls_stmt_int64(q, ow_target_xid)
                         : 0;
    w->target = ls_stmt_text(q, ow_target);
    w->blocker_queued = blocker_queued(ls_stmt_text(q, ow_holders), ls_stmt_text(q, ow_queue),
                                       w->blocker);
}

/* One step of the walk: the root's waits around time t, latest first,
 * until ls_chain_step() decides. Returns LS_CHAIN_ON or LS_CHAIN_STOP, or
 * a negative error. */
static int walk_step(ls_stmt *openq, ls_chain *ch, int64_t t, ls_logpos pos, int subsecond)
{
    int rc, verdict = LS_CHAIN_STOP;

    ls_stmt_reset(openq);
    if ((rc = ls_stmt_bind_int64(openq, LS_PARAM(owp, pid), ch->root)) != 0 ||
        (rc = ls_stmt_bind_int64(openq, LS_PARAM(owp, ts), t)) != 0 ||
        (rc = ls_stmt_bind_int64(openq, LS_PARAM(owp, res), subsecond ? 0 : LS_WHOLE_SECOND_US)) !=
            0 ||
        (rc = ls_stmt_bind_int64(openq, LS_PARAM(owp, n),
                                 subsecond ? LS_OPEN_WAIT_CANDIDATES
                                           : LS_OPEN_WAIT_CANDIDATES_WHOLE)) != 0)
        return rc;
    while ((rc = ls_stmt_step(openq)) == 1) {
        ls_chain_wait w;
        read_root_wait(openq, &w);
        if ((verdict = ls_chain_step(ch, &w, t, pos, subsecond)) != LS_CHAIN_SKIP)
            break;
        verdict = LS_CHAIN_STOP; /* no wait on at the moment: the root stands */
    }
    return rc < 0 ? rc : verdict;
}

/* The sessions of the wait's direct blocker and root at time t: the
 * root's by the xid the chain's last link awaited, when %x logged it. */
static int chain_sessions(ls_stmt *sessq, ls_stmt *xidq, const ls_chain *ch, int64_t blocker,
                          int64_t t, int64_t *blocker_sess, int64_t *root_sess,
                          ls_correlate_stats *stats)
{
    int rc;

    *root_sess = 0;
    if ((rc = lookup_session(sessq, blocker, t, blocker_sess)) != 0)
        return rc;
    if (ch->root_xid) {
        ls_stmt_reset(xidq);
        if ((rc = ls_stmt_bind_int64(xidq, LS_PARAM(xsp, xid), ch->root_xid)) != 0 ||
            (rc = ls_stmt_step(xidq)) < 0)
            return rc;
        if (rc == 1 && ls_stmt_int64(xidq, xs_pid) == ch->root &&
            !ls_stmt_isnull(xidq, xs_session_id)) {
            *root_sess = ls_stmt_int64(xidq, xs_session_id);
            stats->root_by_xid++;
        }
    }
    if (!*root_sess)
        return lookup_session(sessq, ch->root, t, root_sess);
    return 0;
}

/* The statements of walk_chains(), prepared once. */
typedef struct walk_q {
    ls_stmt *walk, *openq, *sessq, *xidq, *upd;
} walk_q;

/* Walk the chain of the current row of wq->walk and store its root. */
static int walk_one(walk_q *wq, int subsecond, ls_correlate_stats *stats)
{
    ls_stmt *q = wq->walk, *u = wq->upd;
    int64_t blocker = ls_stmt_int64(q, wk_blocker_pid), t = ls_stmt_int64(q, wk_logged_ts);
    int64_t blocker_xid = 0, root_sess = 0, blocker_sess = 0;
    ls_logpos pos;
    ls_chain ch;
    int rc;

    pos.file = ls_stmt_int64(q, wk_file_id);
    pos.line = ls_stmt_int64(q, wk_line);
    if (strcmp(ls_stmt_text(q, wk_target_kind), "transaction") == 0)
        blocker_xid = ls_stmt_int64(q, wk_target_xid);
    /* A blocker ahead in the lock's queue (queue_blockers()) was named a
     * waiter, not a holder, of the lock: its own wait for it is the next
     * link. */
    ls_chain_start(&ch, ls_stmt_int64(q, wk_pid), blocker, blocker_xid,
                   blocker_queued(ls_stmt_text(q, wk_holders), ls_stmt_text(q, wk_queue), blocker)
                       ? NULL
                       : ls_stmt_text(q, wk_target));
    while ((rc = walk_step(wq->openq, &ch, t, pos, subsecond)) == LS_CHAIN_ON)
        ;
    if (rc < 0)
        return rc;
    if ((rc = chain_sessions(wq->sessq, wq->xidq, &ch, blocker, t, &blocker_sess, &root_sess,
                             stats)) != 0)
        return rc;
    if (ch.root != blocker)
        stats->chained++;
    ls_stmt_reset(u);
    if ((rc = ls_stmt_bind_int64(u, LS_PARAM(wait_chains, wait_id),
                                 ls_stmt_int64(q, wk_wait_id))) != 0 ||
        (blocker_sess &&
         (rc = ls_stmt_bind_int64(u, LS_PARAM(wait_chains, blocker_session), blocker_sess)) != 0) ||
        (blocker_xid &&
         (rc = ls_stmt_bind_int64(u, LS_PARAM(wait_chains, blocker_xid), blocker_xid)) != 0) ||
        (rc = ls_stmt_bind_int64(u, LS_PARAM(wait_chains, root_pid), ch.root)) != 0 ||
        (root_sess &&
         (rc = ls_stmt_bind_int64(u, LS_PARAM(wait_chains, root_session), root_sess)) != 0) ||
        (ch.root_xid &&
         (rc = ls_stmt_bind_int64(u, LS_PARAM(wait_chains, root_xid), ch.root_xid)) != 0) ||
        (rc = ls_stmt_bind_int64(u, LS_PARAM(wait_chains, chain_depth), ch.depth)) != 0)
        return rc;
    rc = ls_stmt_step(u);
    return rc < 0 ? rc : 0;
}

/* Blocker chains: follow each wait's blockers to the root
 * (decide/chain.c), one wait_chains row per wait with a blocker. */
static int walk_chains(ls_store *s, ls_correlate_stats *stats)
{
    walk_q wq = {NULL, NULL, NULL, NULL, NULL};
    int rc, subsecond;

    if ((rc = ls_log_subsecond(s, &subsecond)) != 0 ||
        (rc = ls_store_prepare(s, walk_sql, &wq.walk)) != 0 ||
        (rc = ls_store_prepare_params(s, open_wait_sql, LS_PARAM_NAMES(OPEN_WAIT_PARAMS),
                                      &wq.openq)) != 0 ||
        (rc = ls_store_prepare_params(s, session_at_sql, LS_PARAM_NAMES(SESSION_AT_PARAMS),
                                      &wq.sessq)) != 0 ||
        (rc = ls_store_prepare_params(s, xid_session_sql, LS_PARAM_NAMES(XID_SESSION_PARAMS),
                                      &wq.xidq)) != 0 ||
        (rc = ls_store_prepare(s, insert_chain_sql, &wq.upd)) != 0)
        goto out;
    while ((rc = ls_stmt_step(wq.walk)) == 1)
        if ((rc = walk_one(&wq, subsecond, stats)) != 0)
            break;
out:
    ls_stmt_finalize(wq.walk);
    ls_stmt_finalize(wq.openq);
    ls_stmt_finalize(wq.sessq);
    ls_stmt_finalize(wq.xidq);
    ls_stmt_finalize(wq.upd);
    return rc < 0 ? rc : 0;
}

/* Close the waits that ended in an error rather than a lock message (a
 * lock_timeout, statement_timeout, a cancel): the SQL gathers, and
 * ls_error_closes_wait() decides. The decisions are kept, then written:
 * the scan reads the rows it would change. */
typedef struct wait_close {
    int64_t wait_id, end_ts, file, line;
    double waited_ms;
    int has_outcome;
    char outcome[48]; /* the error's class ("idle_in_transaction_timeout") */
} wait_close;

static int close_store(ls_store *s, const wait_close *c, size_t n)
{
    ls_stmt *u = NULL;
    size_t i;
    int rc;

    if ((rc = ls_store_prepare_params(s, close_wait_sql, LS_PARAM_NAMES(CLOSE_WAIT_PARAMS), &u)) !=
        0)
        return rc;
    for (i = 0; i < n; i++) {
        ls_stmt_reset(u);
        if ((rc = ls_stmt_bind_int64(u, LS_PARAM(cwp, wait_id), c[i].wait_id)) != 0 ||
            (rc = ls_stmt_bind_text(u, LS_PARAM(cwp, outcome),
                                    c[i].has_outcome ? c[i].outcome : NULL)) != 0 ||
            (rc = ls_stmt_bind_int64(u, LS_PARAM(cwp, end_ts), c[i].end_ts)) != 0 ||
            (rc = ls_stmt_bind_int64(u, LS_PARAM(cwp, end_file), c[i].file)) != 0 ||
            (rc = ls_stmt_bind_int64(u, LS_PARAM(cwp, end_line), c[i].line)) != 0 ||
            (rc = ls_stmt_bind_double(u, LS_PARAM(cwp, waited_ms), c[i].waited_ms)) != 0 ||
            (rc = ls_stmt_step(u)) < 0)
            break;
        rc = 0;
    }
    ls_stmt_finalize(u);
    return rc < 0 ? rc : 0;
}

/*
 * Was a serialization failure the outcome of the wait of row q
 * (acquired_40001_sql)'s own statement? The first error of its session
 * after its end (first, first_error_sql) must be one; then by log
 * position where both are known: no statement line of the session
 * between the wait's end and the error (lines: stmt_lines_sql); else by
 * time. 1 yes, 0 no, < 0 an error of the store.
 */
static int serialization_of_wait(ls_stmt *q, ls_stmt *first, ls_stmt *lines)
{
    ls_logpos end = {ls_stmt_int64(q, sf_end_file), ls_stmt_int64(q, sf_end_line)};
    ls_logpos err;
    int64_t err_ts;
    int ended, rc;

    ls_stmt_reset(first);
    if ((rc = ls_stmt_bind_int64(first, LS_PARAM(fep, pid), ls_stmt_int64(q, sf_pid))) != 0 ||
        (rc = ls_stmt_bind_int64(first, LS_PARAM(fep, session), ls_stmt_int64(q, sf_session_id))) !=
            0 ||
        (rc = ls_stmt_bind_int64(first, LS_PARAM(fep, ts), ls_stmt_int64(q, sf_end_ts))) != 0 ||
        (rc = ls_stmt_bind_int64(first, LS_PARAM(fep, file), end.file)) != 0 ||
        (rc = ls_stmt_bind_int64(first, LS_PARAM(fep, line), end.line)) != 0)
        return rc;
    if ((rc = ls_stmt_step(first)) != 1)
        return rc;
    if (ls_stmt_isnull(first, fe_class) ||
        strcmp(ls_stmt_text(first, fe_class), "serialization_failure") != 0)
        return 0;
    err.file = ls_stmt_int64(first, fe_file_id);
    err.line = ls_stmt_int64(first, fe_line);
    err_ts = ls_stmt_int64(first, fe_ts);
    ended = ls_error_ended_wait_stmt(end, err, NULL, 0);
    if (ended < 0)
        return ls_serialization_ended(ls_stmt_int64(q, sf_end_ts), err_ts);
    if (ended == 0)
        return 0;
    ls_stmt_reset(lines);
    if ((rc = ls_stmt_bind_int64(lines, LS_PARAM(slp, session), ls_stmt_int64(q, sf_session_id))) !=
            0 ||
        (rc = ls_stmt_bind_int64(lines, LS_PARAM(slp, end_ts), ls_stmt_int64(q, sf_end_ts))) != 0 ||
        (rc = ls_stmt_bind_int64(lines, LS_PARAM(slp, err_ts), err_ts)) != 0 ||
        (rc = ls_stmt_bind_int64(lines, LS_PARAM(slp, start_ts), ls_stmt_int64(q, sf_start_ts))) !=
            0)
        return rc;
    while ((rc = ls_stmt_step(lines)) == 1) {
        ls_logpos at = {ls_stmt_int64(lines, sl_file_id), ls_stmt_int64(lines, sl_line)};
        if (ls_line_separates(end, err, at)) {
            ended = 0;
            break;
        }
    }
    ls_stmt_reset(lines);
    return rc < 0 ? rc : ended;
}

/* Wait :wait_id's outcome a serialization failure (serialization_step). */
static const char serialization_outcome_sql[] =
    "UPDATE lock_wait_rows SET outcome = 'serialization_failure' WHERE wait_id = :wait_id";
#define SERIALIZATION_OUTCOME_PARAMS(X, Q) X(Q, wait_id)
LS_PARAMS(sop, SERIALIZATION_OUTCOME_PARAMS);

/* A wait on a transaction that then fails with 40001 was acquired only to
 * find the row changed: the serialization failure is its real outcome,
 * where its own statement raised it (serialization_of_wait). The waits
 * are read, then changed (the scan reads the column it sets). */
static int serialization_step(ls_store *s)
{
    ls_stmt *q = NULL, *first = NULL, *lines = NULL, *u = NULL;
    int64_t *ids = NULL;
    size_t n = 0, cap = 0, i;
    int rc;

    if ((rc = ls_store_exec(s, serialization_index_sql)) != 0 ||
        (rc = ls_store_prepare_params(s, first_error_sql, LS_PARAM_NAMES(FIRST_ERROR_PARAMS),
                                      &first)) != 0 ||
        (rc = ls_store_prepare_params(s, stmt_lines_sql, LS_PARAM_NAMES(STMT_LINES_PARAMS),
                                      &lines)) != 0 ||
        (rc = ls_store_prepare(s, acquired_40001_sql, &q)) != 0) {
        ls_stmt_finalize(first);
        ls_stmt_finalize(lines);
        return rc;
    }
    while ((rc = ls_stmt_step(q)) == 1) {
        int own = serialization_of_wait(q, first, lines);
        if (own < 0) {
            rc = own;
            break;
        }
        if (!own)
            continue;
        if (n == cap) {
            int64_t *g = realloc(ids, (cap = cap ? 2 * cap : 64) * sizeof(*ids));
            if (!g) {
                rc = LS_ENOMEM;
                break;
            }
            ids = g;
        }
        ids[n++] = ls_stmt_int64(q, sf_wait_id);
    }
    ls_stmt_finalize(q);
    ls_stmt_finalize(first);
    ls_stmt_finalize(lines);
    if (rc >= 0 && n > 0)
        rc = ls_store_prepare_params(s, serialization_outcome_sql,
                                     LS_PARAM_NAMES(SERIALIZATION_OUTCOME_PARAMS), &u);
    for (i = 0; rc >= 0 && i < n; i++) {
        ls_stmt_reset(u);
        if ((rc = ls_stmt_bind_int64(u, LS_PARAM(sop, wait_id), ids[i])) == 0)
            rc = ls_stmt_step(u);
    }
    ls_stmt_finalize(u);
    free(ids);
    return rc < 0 ? rc : 0;
}

static int close_step(ls_store *s, ls_correlate_stats *stats)
{
    ls_stmt *q = NULL;
    wait_close *c = NULL;
    size_t n = 0, cap = 0;
    int rc;

    (void)stats;
    if ((rc = ls_store_prepare(s, unclosed_sql, &q)) != 0)
        return rc;
    while ((rc = ls_stmt_step(q)) == 1) {
        int64_t logged = ls_stmt_int64(q, uc_logged_ts), err = ls_stmt_int64(q, uc_err_ts);
        if (!ls_error_closes_wait(logged, err, !ls_stmt_isnull(q, uc_next_lock),
                                  ls_stmt_int64(q, uc_next_lock)))
            continue;
        if (n == cap) {
            wait_close *g = realloc(c, (cap = cap ? 2 * cap : 64) * sizeof(*c));
            if (!g) {
                rc = LS_ENOMEM;
                break;
            }
            c = g;
        }
        c[n].wait_id = ls_stmt_int64(q, uc_wait_id);
        c[n].end_ts = err;
        c[n].file = ls_stmt_int64(q, uc_err_file);
        c[n].line = ls_stmt_int64(q, uc_err_line);
        c[n].waited_ms = ls_wait_ms_until(ls_stmt_double(q, uc_waited_ms),
                                          ls_stmt_int64(q, uc_start_ts), err);
        c[n].has_outcome = !ls_stmt_isnull(q, uc_err_class);
        snprintf(c[n].outcome, sizeof(c[n].outcome), "%s",
                 c[n].has_outcome ? ls_stmt_text(q, uc_err_class) : "");
        n++;
    }
    ls_stmt_finalize(q);
    if (rc >= 0)
        rc = close_store(s, c, n);
    free(c);
    if (rc == 0)
        rc = ls_store_exec(s, unknown_outcome_sql);
    if (rc == 0)
        rc = serialization_step(s);
    return rc < 0 ? rc : 0;
}

/* Two of ingest's indexes (store_schema.h), which the passes probe and
 * no report reads: a session's statements by start (the errors' and
 * deadlocks' statements, retries), a process's lock messages by time
 * (the waits). Correlation makes them if a run before dropped them and
 * drops them at its end (correlate_run). */
#define PASS_ONLY_INDEX_SQL                                                                        \
    "CREATE INDEX IF NOT EXISTS statements_session ON stmt_rows(session_id, start_ts);"            \
    "CREATE INDEX IF NOT EXISTS lock_events_pid ON lock_event_rows(pid, ts);"

/* A process's waits by start: the chain walk's and the queue's probes. */
#define LOCK_WAITS_PID_INDEX_SQL \
    "CREATE INDEX IF NOT EXISTS lock_waits_pid ON lock_wait_rows(pid, start_ts);"

static int index_step(ls_store *s, ls_correlate_stats *stats)
{
    (void)stats;
    /* sessions_pid_start: "the session a pid had at time t" (the chain walk,
     * the transaction links) in one probe, however often the server reused
     * the pid (a busy server without a pooler reuses each one many times a
     * day). */
    return ls_store_exec_sorting(s, LOCK_WAITS_PID_INDEX_SQL
                                    "CREATE INDEX IF NOT EXISTS sessions_pid_start ON"
                                    " sessions(pid, coalesce(start_ts, first_ts, 0));"
                                    /* a deadlock's edges by waiter: the lock
                                     * order's probes (lockorder.h) */
                                    "CREATE INDEX IF NOT EXISTS deadlock_edges_waiter ON"
                                    " deadlock_edges(deadlock_id, waiter_pid);"
                                    /* a deadlock's processes: the report's
                                     * deadlocks section (model.c procs_q),
                                     * where a scan of every process per
                                     * deadlock listed was 5.5 M VM steps at
                                     * 1 GiB; kept in the store, as ingest's */
                                    "CREATE INDEX IF NOT EXISTS deadlock_procs_deadlock ON"
                                    " deadlock_procs(deadlock_id);");
}

/*
 * Waits whose DETAIL lists others in the lock's wait queue before them,
 * for the locks whose queue order decides who blocks whom
 * (ls_queue_blocker(): not tuple or transaction locks), each with the
 * queue as text.
 */
#define QUEUED_COLS(X, Q)                                                                   \
    X(Q, wait_id, "wait_id")                                                                \
    X(Q, pid, "pid")                                                                        \
    X(Q, mode, "mode")                                                                      \
    X(Q, target_kind, "target_kind")                                                        \
    X(Q, target, "target")                                                                  \
    X(Q, logged_ts, "logged_ts")                                                            \
    X(Q, file_id, "file_id")                                                                \
    X(Q, line, "line")                                                                      \
    X(Q, queue, LS_PIDS_OF("lock_wait_rows", "queue"))
LS_COLUMNS(qw, QUEUED_COLS);
static const char queued_waits_sql[] =
    "SELECT " LS_SELECT_LIST(qw, QUEUED_COLS) " FROM lock_wait_rows"
    " WHERE target_kind NOT IN ('tuple', 'transaction')"
    " AND " LS_PIDS_OF("lock_wait_rows", "queue") " LIKE '%,%' ORDER BY wait_id";

/* The wait of pid :pid for lock :target that began last by time :ts
 * (:res: the timestamps' resolution): a process waits for one lock at a time, and
 * ls_wait_open_at() decides whether it was on. */
#define AHEAD_WAIT_COLS(X, Q)                                                               \
    X(Q, mode, "mode")                                                                      \
    X(Q, start_ts, "start_ts")                                                              \
    X(Q, end_ts, "end_ts")                                                                  \
    X(Q, file_id, "file_id")                                                                \
    X(Q, line, "line")                                                                      \
    X(Q, end_file, "end_file")                                                              \
    X(Q, end_line, "end_line")
LS_COLUMNS(aw, AHEAD_WAIT_COLS);
static const char ahead_wait_sql[] =
    "SELECT " LS_SELECT_LIST(aw, AHEAD_WAIT_COLS) " FROM lock_wait_rows"
    " WHERE pid = :pid AND target = :target AND start_ts <= :ts + :res"
    " ORDER BY start_ts DESC, wait_id DESC LIMIT 1";
#define AHEAD_WAIT_PARAMS(X, Q) X(Q, pid) X(Q, target) X(Q, ts) X(Q, res)
LS_PARAMS(awp, AHEAD_WAIT_PARAMS);

static const char queue_blocker_sql[] =
    "UPDATE lock_wait_rows SET blocker_pid = :blocker WHERE wait_id = :wait_id";
#define QUEUE_BLOCKER_PARAMS(X, Q) X(Q, blocker) X(Q, wait_id)
LS_PARAMS(qbp, QUEUE_BLOCKER_PARAMS);

#define QUEUE_AHEAD_MAX 64 /* waiters ahead looked at: the nearest ones */

/* The mode the waiter ahead `pid` requested in its wait for the lock of
 * the current row of q, when that wait was on at the row's moment; NULL
 * otherwise. The text lives in modebuf. */
static int ahead_mode(ls_stmt *aq, ls_stmt *q, int64_t pid, int subsecond, char *modebuf,
                      size_t n, const char **out)
{
    int64_t t = ls_stmt_int64(q, qw_logged_ts);
    ls_logpos pos;
    ls_wait_span w;
    int rc;

    *out = NULL;
    pos.file = ls_stmt_int64(q, qw_file_id);
    pos.line = ls_stmt_int64(q, qw_line);
    ls_stmt_reset(aq);
    if ((rc = ls_stmt_bind_int64(aq, LS_PARAM(awp, pid), pid)) != 0 ||
        (rc = ls_stmt_bind_text(aq, LS_PARAM(awp, target), ls_stmt_text(q, qw_target))) != 0 ||
        (rc = ls_stmt_bind_int64(aq, LS_PARAM(awp, ts), t)) != 0 ||
        (rc = ls_stmt_bind_int64(aq, LS_PARAM(awp, res), subsecond ? 0 : LS_WHOLE_SECOND_US)) != 0)
        return rc;
    if ((rc = ls_stmt_step(aq)) != 1)
        return rc < 0 ? rc : 0;
    w.start_ts = ls_stmt_int64(aq, aw_start_ts);
    w.has_end = !ls_stmt_isnull(aq, aw_end_ts);
    w.end_ts = ls_stmt_int64(aq, aw_end_ts);
    w.first.file = ls_stmt_int64(aq, aw_file_id);
    w.first.line = ls_stmt_int64(aq, aw_line);
    w.end.file = ls_stmt_int64(aq, aw_end_file);
    w.end.line = ls_stmt_int64(aq, aw_end_line);
    if (ls_wait_open_at(&w, t, pos, subsecond)) {
        copy(modebuf, n, ls_stmt_text(aq, aw_mode));
        *out = modebuf;
    }
    return 0;
}

/*
 * Lock queues as PostgreSQL keeps them: a wait whose requested mode
 * conflicts with that of a waiter ahead of it in the DETAIL's wait queue
 * is blocked by that waiter (ls_queue_blocker()), not by the holder the
 * message names: the SELECTs queued behind an ALTER TABLE that waits for
 * a reader are the ALTER's. The chain walk then goes on from the waiter
 * ahead to the holder.
 */
static int queue_blockers(ls_store *s)
{
    ls_stmt *q = NULL, *aq = NULL, *u = NULL;
    int rc, subsecond;

    if ((rc = ls_log_subsecond(s, &subsecond)) != 0 ||
        (rc = ls_store_prepare(s, queued_waits_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, ahead_wait_sql, LS_PARAM_NAMES(AHEAD_WAIT_PARAMS), &aq)) !=
            0 ||
        (rc = ls_store_prepare_params(s, queue_blocker_sql, LS_PARAM_NAMES(QUEUE_BLOCKER_PARAMS),
                                      &u)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        int64_t pids[QUEUE_AHEAD_MAX], bp;
        ls_queued ahead[QUEUE_AHEAD_MAX];
        char modes[QUEUE_AHEAD_MAX][32];
        int n = ls_queue_ahead(ls_stmt_text(q, qw_queue), ls_stmt_int64(q, qw_pid), pids,
                               QUEUE_AHEAD_MAX), i;
        for (i = 0; i < n; i++) {
            ahead[i].pid = pids[i];
            if ((rc = ahead_mode(aq, q, pids[i], subsecond, modes[i], sizeof(modes[i]),
                                 &ahead[i].mode)) != 0)
                goto out;
        }
        bp = ls_queue_blocker(ls_stmt_text(q, qw_target_kind), ls_stmt_text(q, qw_mode), ahead,
                              n);
        if (!bp)
            continue;
        ls_stmt_reset(u);
        if ((rc = ls_stmt_bind_int64(u, LS_PARAM(qbp, wait_id), ls_stmt_int64(q, qw_wait_id))) !=
                0 ||
            (rc = ls_stmt_bind_int64(u, LS_PARAM(qbp, blocker), bp)) != 0 ||
            (rc = ls_stmt_step(u)) < 0)
            goto out;
    }
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(aq);
    ls_stmt_finalize(u);
    return rc < 0 ? rc : 0;
}

/* Pass 1: the wait episodes (build_episodes), then those the log shows
 * no end of closed by the errors that ended them (close_step), then the
 * blockers ahead in a lock's queue (queue_blockers): one decision, what
 * each wait was, and one writer of lock_wait_rows. */
static int episodes_pass(ls_store *s, ls_correlate_stats *stats)
{
    int rc = build_episodes(s, stats);
    if (rc == 0)
        rc = close_step(s, stats);
    /* queue_blockers() probes each waiter ahead's waits by (pid, start). */
    if (rc == 0)
        rc = ls_store_exec_sorting(s, LOCK_WAITS_PID_INDEX_SQL);
    return rc == 0 ? queue_blockers(s) : rc;
}

/* Does the holder's wait that tuple wait q (tw_ columns) was logged in
 * name its relation? hq reads the holder's candidate waits; on 1 it is
 * left on the chosen one (its relation). Returns 1, 0, or < 0 on a store
 * error. */
static int holder_wait_names(ls_stmt *q, ls_stmt *hq)
{
    int64_t logged = ls_stmt_int64(q, tw_logged_ts);
    int rc;

    ls_stmt_reset(hq);
    if ((rc = ls_stmt_bind_int64(hq, LS_PARAM(hwp, pid), ls_stmt_int64(q, tw_blocker_pid))) != 0 ||
        (rc = ls_stmt_bind_int64(hq, LS_PARAM(hwp, ts), logged)) != 0 ||
        (rc = ls_stmt_bind_int64(hq, LS_PARAM(hwp, lookahead), LS_HOLDER_WAIT_LOOKAHEAD_US)) != 0 ||
        (rc = ls_stmt_bind_int64(hq, LS_PARAM(hwp, n), LS_HOLDER_WAIT_CANDIDATES)) != 0)
        return rc;
    /* latest first: stop at the one ls_holder_wait_at() takes, which
     * leaves hq on it */
    while ((rc = ls_stmt_step(hq)) == 1) {
        int64_t start = ls_stmt_int64(hq, hw_start_ts);
        if (ls_holder_wait_at(&start, 1, logged) == 0)
            return ls_holder_wait_names(ls_stmt_text_or_null(hq, hw_relation),
                                        ls_stmt_text_or_null(hq, hw_ctid),
                                        ls_stmt_text_or_null(q, tw_ctid),
                                        !ls_stmt_isnull(hq, hw_end_ts),
                                        ls_stmt_int64(hq, hw_end_ts), logged);
    }
    return rc < 0 ? rc : 0;
}

/* A relation name found for (db_oid, rel_oid) with its evidence, unless
 * one was found before. */
static int insert_relation(ls_stmt *ins, int64_t db_oid, int64_t rel_oid, const char *name,
                           const char *evidence)
{
    int rc = 0;
    ls_stmt_reset(ins);
    keep_first(&rc, ls_stmt_bind_int64(ins, LS_PARAM(relations, db_oid), db_oid));
    keep_first(&rc, ls_stmt_bind_int64(ins, LS_PARAM(relations, rel_oid), rel_oid));
    keep_first(&rc, ls_stmt_bind_text(ins, LS_PARAM(relations, name), name));
    keep_first(&rc, ls_stmt_bind_text(ins, LS_PARAM(relations, evidence), evidence));
    if (rc == 0 && (rc = ls_stmt_step(ins)) > 0)
        rc = 0;
    return rc;
}

/* The waits for relation locks (they name the relation by OID only), by
 * relation, with each waiter's statement. */
#define REL_WAIT_COLS(X, Q)                                                                 \
    X(Q, db_oid, "db_oid")                                                                  \
    X(Q, rel_oid, "rel_oid")                                                                \
    X(Q, statement, "statement")
LS_COLUMNS(rw, REL_WAIT_COLS);
static const char relation_waits_sql[] =
    "SELECT " LS_SELECT_LIST(rw, REL_WAIT_COLS) " FROM lock_wait_rows"
    " WHERE target_kind = 'relation' AND rel_oid IS NOT NULL AND db_oid IS NOT NULL"
    " ORDER BY db_oid, rel_oid, wait_id";
/* The same for tuple locks: the waits of the OIDs no holder's CONTEXT
 * named (relations_step() runs that rule first). */
static const char row_lock_waits_sql[] =
    "SELECT " LS_SELECT_LIST(rw, REL_WAIT_COLS) " FROM lock_wait_rows"
    " WHERE target_kind = 'tuple' AND rel_oid IS NOT NULL AND db_oid IS NOT NULL"
    " AND NOT EXISTS (SELECT 1 FROM relations r"
    " WHERE r.db_oid = lock_wait_rows.db_oid AND r.rel_oid = lock_wait_rows.rel_oid)"
    " ORDER BY db_oid, rel_oid, wait_id";

#define WAITER_STATEMENTS_EVIDENCE "the waiters' statements"
#define WAITER_ROW_LOCKS_EVIDENCE "the waiters' SELECT ... FOR UPDATE/SHARE"

/* The name of a relation lock's OID where every waiter's statement that
 * names one table as a whole names the same (ls_sql_table_of(),
 * ls_relation_name_vote()): "ALTER TABLE orders ..." and "SELECT ... FROM
 * orders" waiting on relation 16385. */
static int relations_from_statements(ls_store *s, ls_stmt *ins, const char *sql,
                                     int (*table_of)(const char *, char *, size_t),
                                     const char *evidence)
{
    ls_stmt *q = NULL;
    int64_t db = 0, rel = 0;
    char agreed[128] = "", table[128];
    int rc, conflict = 0, have = 0;

    if ((rc = ls_store_prepare(s, sql, &q)) != 0)
        return rc;
    while ((rc = ls_stmt_step(q)) == 1) {
        int64_t d = ls_stmt_int64(q, rw_db_oid), r = ls_stmt_int64(q, rw_rel_oid);
        if (have && (d != db || r != rel)) {
            if (ls_relation_name_vote(agreed, sizeof(agreed), &conflict, NULL) &&
                (rc = insert_relation(ins, db, rel, agreed, evidence)) != 0)
                break;
            agreed[0] = '\0';
            conflict = 0;
        }
        db = d;
        rel = r;
        have = 1;
        ls_relation_name_vote(agreed, sizeof(agreed), &conflict,
                              table_of(ls_stmt_text(q, rw_statement), table, sizeof(table)) ? table
                                                                                            : NULL);
    }
    if (rc == 0 && have && ls_relation_name_vote(agreed, sizeof(agreed), &conflict, NULL))
        rc = insert_relation(ins, db, rel, agreed, evidence);
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

/* Relation names: lock messages name a relation by OID only. A tuple
 * wait's is named by the CONTEXT of its holder's transaction wait, else
 * by its waiters' row-locking SELECTs of one table (samples/blind-dj's
 * accounts wait, whose holder waited on the tuple itself); a relation
 * lock's by its waiters' statements (readers join the name in: the
 * lock_waits view). */
static int relations_step(ls_store *s, ls_correlate_stats *stats)
{
    ls_stmt *q = NULL, *hq = NULL, *ins = NULL;
    int rc, names;

    (void)stats;
    if ((rc = ls_store_prepare(s, tuple_waits_sql, &q)) != 0 ||
        (rc = ls_store_prepare_params(s, holder_waits_sql, LS_PARAM_NAMES(HOLDER_WAITS_PARAMS),
                                      &hq)) != 0 ||
        (rc = ls_store_prepare(s, insert_relation_sql, &ins)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        if ((names = holder_wait_names(q, hq)) < 0) {
            rc = names;
            break;
        }
        if (!names)
            continue;
        if ((rc = insert_relation(ins, ls_stmt_int64(q, tw_db_oid), ls_stmt_int64(q, tw_rel_oid),
                                  ls_stmt_text(hq, hw_relation), HOLDER_WAIT_EVIDENCE)) != 0)
            break;
    }
    if (rc >= 0)
        rc = relations_from_statements(s, ins, relation_waits_sql, ls_sql_table_of,
                                       WAITER_STATEMENTS_EVIDENCE);
    if (rc >= 0)
        rc = relations_from_statements(s, ins, row_lock_waits_sql, ls_sql_row_lock_table,
                                       WAITER_ROW_LOCKS_EVIDENCE);
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(hq);
    ls_stmt_finalize(ins);
    return rc < 0 ? rc : 0;
}

static int queue_step(ls_store *s, ls_correlate_stats *stats)
{
    (void)stats;
    return ls_correlate_queue(s);
}

/* The meta mark of a store correlated by this version after its last
 * ingest (another version may derive differently). CORRELATION_REV counts
 * changes to what the passes derive within a version: bump it with any
 * such change, so that a store correlated before it is correlated again
 * rather than reported with the old figures. 2: wait episodes split at a
 * message that begins another wait; holds not moved by tuple-lock waits;
 * tuple waits for the row's holder. 3: the code paths' SQL part counts the
 * parse and bind time a statement row holds (schema 9). 4: a lock message
 * goes on with its process's open wait when nothing else of the session
 * was logged between them, whatever the times (schema 10). 5: a chain does
 * not go on through a wait for the lock the server has just named its
 * process a holder of, and one that ends at a tuple lock's queue head goes
 * on to the row's holder (transactions.c). 6: a wait starts at the earliest start its
 * messages imply and ends its closing message's "after X ms" after it.
 * 7: a hold moved back to the first wait for its transaction says so in
 * its start_evidence (holds.c). 8: a transaction wait's blocker is the
 * xid's owner when the message lists the waiters its end woke; a tuple
 * wait's holder is the one its queue head's wait overlapping it was for,
 * by xid; no hold bounded by the first wait for a transaction whose own
 * wait for the row ended in an error, nor for an extension or page lock
 * (transactions.c); only a row lock's wait is keyed by its statement's row
 * (holds.c). 9: a tuple wait logged while its queue head was between two
 * of its own waits for the row is for the transaction its next wait was
 * for; without the xid, a holder's transaction is the one open at the
 * message's log position before the one open at its time (transactions.c).
 * 10: a transaction ended by ROLLBACK ends at "rollback" ("rollback
 * start"), not "commit". 11: a row's occupied time is the union of its
 * holds, and its mean hold that time over the holds (holds.c). 12: with
 * whole-second times, a queue head's wait on at a message, its next
 * wait (also one not logged yet), a blocker's transaction and the
 * waiter's statement are found by log position among all that tie in the
 * second (transactions.c, holds.c, the chain walk); a root that is the
 * holder or the blocker has its transaction, else the one open at the
 * message's position. 13: a statement that failed acquired nothing on the
 * row it failed on (decide/stmt.c), a logged wait ended by an error counts
 * as a logged wait of its row (hidden.c), PostgreSQL 18's lock-failure
 * line links its NOWAIT error (transactions.c). 14: the code-paths pass
 * stores which holds covered each row wait (row_cover, cover.c), which
 * the report swept for itself before. 15: a statement logged at its start
 * holds its row from its last acquisition of it, not its first (it queues
 * again for each holder while rechecking an updated tuple; decide/hold.c).
 * 16: a wait whose mode conflicts with a waiter ahead of it in a table
 * lock's queue is blocked by that waiter (queue_blockers()); relation
 * locks named from their waiters' statements; the lock_queue_behind_ddl
 * finding, and no hot-row finding on a relation lock.
 * 17: a learned row rule keys every INSERT into its teaching INSERT's
 * relation that sets its column, whatever its text (decide/rule.c); code
 * paths that no span, tag or distinguishing application_name names are
 * named by the transaction's shape (decide/pathid.c, traces.c); with
 * whole-second times, logged statements a trace's spans sent take the
 * spans' times (spantimes.c); each hold's length a range and an estimate
 * (hold_range, holdtimes.c); an acquisition stamped with the second of
 * the next statement is the locking statement's when logged before it
 * (log position); a hold's span parts are the children of the
 * transaction's nearest non-database, non-client span (spans.c,
 * tx_anchor); an ORM's span around its driver's of one statement is not
 * placed, and spans are placed by the pid their trace's placed spans
 * have; the counter row is decided on the row's dominant statement shape,
 * never a balance moved between rows; no idle_in_transaction_head
 * finding on a relation lock (its queue is no hot row's); a row a
 * deadlock's DETAIL names for one of its processes is a hot row
 * (holds.c); a transaction an error aborted holds its rows until that
 * error, not its ROLLBACK (decide/hold.c). 18: a transaction shape
 * names an EXECUTE by the body its session prepared (decide/pathid.c); a
 * transaction links to a trace only inside the trace's request
 * (decide/vote.c, traces.c). 19 (this round's changes of answers, one
 * mark): the lock_queue_behind_ddl finding reads the relation_queues view
 * and fires only on a queue whose head asks for a DDL-strength mode
 * (decide/finding.c), not on an UPDATE heading one; a statement that
 * failed on a hot row (40001, 55P03, 40P01) waited from its start until
 * its error, behind the hold that had the row then (decide/failwait.c,
 * hidden.c); with whole-second times, where each hold's start and end
 * truly lay (hold_range's bounds, which the report shows): an end within
 * the second of its stamp or before the session's next line, the holds of
 * a row one after another (decide/holdrange.c, holdtimes.c); hold_range
 * made again where it lacks those columns; inconsistent_lock_order is
 * read from the deadlocks and the rows each side locked, one code path
 * against itself included, each deadlock counted for its own pair
 * (lockorder.h); a row a serialization failure's statement names is a
 * row (holds.c). 20: a head whose state a log without durations leaves
 * unknown is idle in transaction for idle_in_transaction_head by its
 * session's silence after the statement that took the row
 * (decide/idlegap.c, findings.c). 21: behind a pooler, a deadlock
 * victim's transaction from its request's BEGIN and ROLLBACK spans; on a
 * whole-second log the clock offset widened by the second and statement
 * links paired by duration (spans.c, traces.c); a lock error's retry is
 * the transaction right after the failed one, by the session's log order
 * or, where the log does not show the failed transaction, by its
 * request's trace (decide/retry.c, retries.c). 22: a pooled
 * request's transaction rebuilt from its trace where the log has its
 * statements alone (txspans.c, decide/spantx.c); whole-second queueing
 * and hidden waits (decide/queue.c, decide/hidden.c); pooled deadlock
 * victims on whole-second logs too, paired with their failed spans in
 * the log's order, and to the millisecond only a span that failed by the
 * time the client heard of it (decide/victim.c, spans.c, transactions.c);
 * the log's resolution read without the spans' statements (holds.c). 23:
 * a FROM or WHERE inside parentheses is not the statement's own when its
 * row is read (src/common/sqlshape.c); a failed statement known only from
 * its bind line queued for the row it names (decide/errstmt.c,
 * transactions.c bind_failures); a pooled request's transaction the log
 * has no statement of is one of its own from its BEGIN..COMMIT spans, no
 * session, holding the hot rows its spans name ("spans only": txspans.c,
 * decide/spantx.c). 24: a statement timed only by its span queued from
 * the span's start, and a whole-second hold keeps its span's start
 * (decide/spantx.c, decide/hidden.c); a pooled deadlock victim's
 * unlogged statements before the failed one hold the rows their spans
 * name (txspans.c victim_holds); a hold whose locking statement's end the log
 * does not give (log_statement = 'all': its start, or its logged wait's
 * acquired line) starts no earlier than the end of the row's hold before
 * it in end order, unless both are shared (decide/queue.c
 * ls_queue_hold_start, hidden.c); an error the error links give to
 * another transaction does not abort a transaction's holds (holds.c
 * ABORTED_AT); a deadlock DETAIL's statement is keyed with the parameters of
 * its process's logged statement of that text running at the deadlock,
 * on sub-second logs (holds.c, dlprocs.c); an ORM's span is one
 * statement with its driver's child span whatever the placeholder style,
 * and a span several sessions match is placed on the pid that ran inside
 * every such span of its trace (decide/span.c). 25: an unlogged wait of a
 * statement whose duration is logged is not cut to deadlock_timeout on a
 * whole-second log (decide/hidden.c ls_hidden_unlogged_bound); a path's
 * holds of a row are capped at the row's span less the other paths'
 * least holds of it (decide/holdrange.c ls_hold_row_cap); a path's
 * waiting caused counts the hidden waiting behind it (summary.c); a
 * failed statement known by its bind line alone is a step of its
 * transaction's shape (decide/pathid.c ls_txshape_row_is_step), and the
 * time it waited until its error is not idle (decide/hold.c
 * ls_hold_failed_end). 26: a key no logged wait names is a row when a
 * statement of it, its duration known, queued at least 5 ms behind another
 * transaction's hold of it, on sub-second logs (decide/quiet.c, quiet.c).
 * 27: behind a pooler, a logged wait's holder is the transaction of the
 * holder pid (or of no pid: spans only) whose hold of the row covered the
 * wait's first message (decide/link.c ls_holder_tx, transactions.c
 * link_pooled_holders). 28: a lock error's retry by the session's order
 * passes over a SET between the transactions, and is "untold" where a SET
 * (a pool's hand-over) came between and the next transaction did not
 * begin within LS_RETRY_GAP_US of the ROLLBACK on a log that can tell
 * (decide/retry.c ls_retry_session_told, retries.c); the statements after
 * an error read in log order, and its row with its parameters. 29: on a
 * whole-second log, a 40001 in its statement's own second queued behind a
 * hold whose COMMIT was logged between the statement and the error (log
 * positions; decide/failwait.c ls_failed_wait_same_second). 30: a
 * lock timeout (55P03) with no logged wait is caused by the transaction
 * whose hold of the failed statement's row the log's order of lines shows
 * got before the error and freed after it, when it is the only hold of
 * the row that may have had it then (decide/failwait.c ls_error_holder,
 * causes.c); else its cause stays null and the report says why. 31: a
 * code path's route takes a URL segment its transaction bound as a
 * parameter as a variable (decide/pathname.c ls_path_url_route); of
 * several sessions that fit a trace, the one whose statements all lie
 * inside its spans (decide/span.c ls_span_trace_pid). 32: the
 * idle head counts a hold waited for below deadlock_timeout alone (the
 * hidden waits that covered it) with its idle from the durations, the
 * sum of the estimates within the sum of their bounds (decide/idlegap.c
 * ls_idle_span_*); serial capacity counts the transactions and the mean
 * hold inside the window of the row's logged waits; a deadlock through a
 * third transaction is counted for the victim's pair when the holder
 * waited for a row of the victim's first row's relation (lockorder.h). 33: on a
 * whole-second log a wait that ended in a deadlock is its deadlock's
 * victim's transaction where that fits the wait's second, else the one
 * transaction of its session that alone fits, else none (decide/waittx.c,
 * transactions.c relink_whole_waiters); its holder is the transaction
 * running the holder's DETAIL statement at the deadlock, where that one is
 * rebuilt from its request's spans (ls_wait_holder_stmt_pick,
 * relink_whole_holders). 34: the
 * blocking ranking (path_ranking) is ordered by the waiting caused and
 * lists the paths with only hidden or failed waiting (summary.c). 35: on
 * a whole-second log where every statement has its duration, a key no
 * logged wait names is a row when a statement of it certainly queued 5 ms+
 * behind another transaction's hold: each line's time bounded from the
 * stamps, the log's order and the sessions' durations (decide/quiet.c
 * ls_quiet_bounded_us, quiet.c bounds_build). 36: with
 * durations on a log of sub-second stamps, a logged transaction wait's
 * statement that lost the race when its holder ended waits on, unlogged,
 * until the end of the hold before it (decide/hidden.c
 * ls_hidden_logged_wait's stmt_end_logged; hidden.c lines_resolution). 37: a
 * serialization failure's or deadlock victim's retry on another session:
 * the one transaction that ran the failed statement's text with the same
 * logged parameters within LS_RETRY_PARAM_GAP_US after the ROLLBACK, no
 * other failure sharing them (decide/retry.c ls_retry_by_params). 38:
 * serial capacity leaves out the transactions tied up in a deadlock on
 * the row: a wait for it that ended in a deadlock, and the holder it
 * waited for (findings.c). 39: the blocking ranking lists a path no
 * logged wait queued behind only when its waiting caused reaches the
 * log's tick (decide/waitrange.c ls_caused_listed_min_ms); on
 * whole-second logs each path's waiting caused has its range
 * (ls_correlate_caused_ranges, scope.c). 40: a failure kept on a
 * connection that serves other requests, whose session's next
 * transaction began later than the retry gap, or whose row another
 * session ran the failed text on with other parameters in the gap, is
 * untold, not retried or not (decide/retry.c ls_retry_session_told,
 * ls_retry_row_untold). 41: on whole-second logs
 * a logged wait's part of its statement's wait is its own exact length
 * (the "acquired ... after N ms" it gave), the hidden part only what the
 * statement waited beyond it, and where the statement's start is only
 * its line's stamp, beyond it by more than a second (hidden.c,
 * decide/hidden.c ls_hidden_exact_wait_ms). 42: a serialization failure's or deadlock
 * victim's retry that nothing matched is untold, not "not retried", when
 * its session logged no statement after the error and its parameters
 * were not logged (ActiveRecord retries on a new backend: samples/blind-rb;
 * decide/retry.c ls_retry_ended_untold). 43: the idle-in-transaction head's idle from
 * durations is each hold's unclipped estimate, counted on its upper
 * bound and summed signed, the path kept when the sum clears the stamps'
 * rounding; on whole-second logs every head with durations is read,
 * whatever the state its rounded times gave it, and the evidence states
 * the idle's range (decide/idlegap.c ls_idle_known_add, ls_idle_range). 44: on
 * a whole-second log read with traces a hold's hidden wait is timed at its own
 * evidence's tick (spans or lines), a span-timed logged wait from its span
 * kept inside the acquired line's second (decide/hidden.c
 * ls_hidden_wait_resolution, ls_hidden_span_timed_wait). 45: on a log whose
 * statements are logged only past log_min_duration_statement, a key whose slow
 * locking statements dominate its relation is a row, its waiting a bound
 * (decide/slowkey.c ls_slowkey_makes_row, slowkeys.c). 46: a log of only some
 * statement classes (log_statement = 'mod', no durations, no transaction
 * control: verdict statement_classes) reads its holds as at least and its
 * hidden waiting as unknown, and a wait's holder linked only by its pid's last
 * logged statement is kept only when that transaction was open or a hold of
 * the row covers the moment (decide/logcover.c, decide/link.c). 47: on a
 * whole-second log a hold's idle (holds.idle_ms) is its estimate as the stamps
 * give it, below 0 too (decide/idlegap.c ls_idle_window, one definition with
 * the idle rule's), and the idle rule's known heads are raised by the waits on
 * their transactions logged before their ends (ls_idle_known_add_waited,
 * idle_sql.h): a path proved idle counts. 48: a deadlock no lock-order pair
 * was read from whose DETAIL has every process wait for a row lock running one
 * statement that locks rows names its known transactions' paths in
 * inconsistent_lock_order (dlprocs.c temp.dl_self, decide/finding.c
 * ls_finding_detail_cycle; samples/blind-rb). 49: a serialization failure's or
 * deadlock victim's retry that no trace walked is untold, not "not retried",
 * where the log does not show its transaction or its session ran other
 * requests' work around it (a pool: the retry may run on another connection;
 * samples/blind-zk; decide/retry.c ls_retry_elsewhere_untold). 50: a row a
 * threshold log shows only by its slow lockers gives its waiting to the
 * blocking ranking, credited to its lockers' path when they are all of one
 * (decide/slowkey.c ls_slowkey_one_holder_path, summary.c slowkey_credit).
 * 51: a bare "duration: X ms" record (log_duration = on) is folded into its
 * session's statement at ingest, and a retry after a SET the driver sends
 * before every transaction (psycopg2) is untold, never "not retried"
 * (decide/retry.c ls_retry_session_told's set_routine; samples/blind-dj).
 * 52: a tuple wait's relation no holder's CONTEXT names is named by its
 * waiters' SELECT ... FOR UPDATE/SHARE of one table (ls_sql_row_lock_table),
 * and a row the quiet-rows rule made (no logged wait) can be a hot counter
 * row by its queued statements (findings.c, LS_QUIET_EVIDENCE).
 * 53: a logged statement is one of a span's only if the span lasted as
 * long, less each end's millisecond (decide/spantx.c is_span_of): on a
 * whole-second log more requests are transactions of spans only; a span
 * that ended in an error is no statement logged with a duration
 * (decide/spantx.c ls_span_may_be_logged, txspans.c sent_span and
 * pick_in_order).
 * 54: a counter row's finding needs its bumping writers to have held it at
 * least half the time all its writers did, and the named one more than 0
 * (decide/counter.c ls_counter_held_by_bumps; samples/blind-php, basic);
 * a row with no logged wait counts its statements queued below
 * deadlock_timeout as its waits for serial capacity; where no hold of the
 * row was timed (all under the log's tick) the writers' counts decide and
 * the finding says the hold time is unknown.
 * 55: a retry that failed before it reached the failed statement is told
 * by its first statement (ls_retry_walk's step.again), the session's
 * statements are read from a whole second before a whole-second error,
 * lock errors are taken in log order (retries.c), and a timeout's next
 * run on a shared connection is untold (ls_retry_session_told's
 * asks_retry; issue 34, retry34n).
 * 56: a key on which a locking statement only the spans show queued behind
 * another request's transaction is a row (spanqueue.c, decide/spanq.c); a
 * logged statement without a duration is rebuilt into its request's
 * BEGIN..COMMIT spans (txspans.c), its hold taken from its request's
 * earlier locking span; a statement logged at its start failed only by an
 * error before the session's next statement (transactions.c failure_sql);
 * samples/blind-zk.
 * 57: a deadlock DETAIL's processes run one statement when their texts have one
 * shape (values written into the text: decide/finding.c
 * ls_finding_same_stmt; samples/blind-zk), and a DETAIL cycle none of whose
 * transactions is known is named by no code path (lockorder.h lc_e), and the
 * victim's wait's waiter or holder is one of its transactions only when the
 * log does not show it ended before the deadlock (LS_DL_SELF_TX_OPEN); a lock
 * timeout's (or NOWAIT's) statement names its row (holds.c step 7,
 * decide/rowid.c ls_lock_error_names_row), so its holds are counted and
 * causes.c can read the error's holder (samples/blind-java).
 * 58: a log that logs no statement (none from spans, no hold) has the
 * logging verdict none (decide/logcover.c), its hidden waiting unknown,
 * and its untold retries' reason says the log has no statement
 * (samples/blind-pl).
 * 59: a timeout's next run on its session that binds the failed
 * statement's parameters, one beyond the row's key, is its retry even on
 * a shared connection, one that binds other parameters another request's
 * (ls_retry_other_request); untold ('untold_tries') from as many tries as
 * the log shows the client giving up after (ls_retry_tries_untold);
 * issue 34, samples/blind-php.
 * 60: on a whole-second log that logs every statement, a statement that ran
 * 5 ms or more past its text's fastest run across another transaction's end
 * line of its key is taken to have queued that excess, and its key becomes a
 * row (quiet.c excess_rows, decide/quiet.c ls_quiet_excess_us; samples/
 * blind-php's products id=1, blind-java's warehouses id=4 and id=5).
 * 61: a ctid row beside other rows of its relation may be a version of one
 * of them, and its evidence says so (holds.c step 8, decide/rowid.c
 * ls_ctid_row_may_be_other; samples/blind-pl).
 * 62: on a threshold log with no BEGIN or COMMIT a wait's holder is the pid's
 * linked transaction only when that transaction held a row of the waited
 * row's relation or its last statement ended within a tick of the wait;
 * otherwise the pid alone (decide/link.c ls_holder_tx, decide/logcover.c
 * ls_logcover_tx_ends_unlogged; samples/blind-go).
 * 63: one xid, one transaction: the waits behind a root pid's xid all take
 * the transaction the waits naming that xid were linked to, when they agree
 * (transactions.c root_one_tx_sql; samples/blind-rb's pid 22163).
 * 64: a row none of whose holds the log timed has no share of the time
 * held (the hidden_waiting rule's utilisation null: findings.c HELD_SHARE,
 * ls_logcover_holds_unknown; samples/blind-go's inventory SKU-1). */
#define CORRELATION_REV "64"
#define CORRELATED_MARK "lockspan " LS_VERSION " correlation " CORRELATION_REV

/*
 * The passes, in order; each sees what the ones before it wrote.
 *
 * `owns` is what the pass may write: tables ("rows") and, where a pass
 * still fills in columns of a table another pass or ingest wrote, those
 * columns ("rows.max_queue"), or adds rows of its own to one ("stmt_rows+":
 * INSERT and DELETE, no UPDATE). Each pass runs under a store guard
 * (ls_store_guard_writes) that refuses to prepare a statement writing
 * anything else, so this table is what the passes do, not a comment.
 * Issue 33's goal is one writer per table: tests/unit/test_pass_table.c
 * lists the columns still written by a pass that does not own their
 * table, and fails on any new one.
 *
 * `clear` empties what the pass derives before any pass runs (the
 * indexes built on derived tables are dropped, so a rerun fills them as
 * the first run did, without maintaining indexes row by row), so a rerun
 * over a grown store starts from the log's facts alone.
 */
/* Statements from spans (spans.c), then logged statements timed by their
 * spans (spantimes.c, stmt_span_time): one pass. The passes after it
 * read the statements with those times through the connection's views
 * (ls_store_stmt_views): stmt_rows itself is as ingest wrote it but for
 * the span-made statements (verb 5), which this pass still adds to it. */
static int spans_step(ls_store *s, ls_correlate_stats *stats)
{
    int rc = ls_correlate_spans(s, stats);
    rc = rc ? rc : ls_correlate_span_times(s, stats);
    return rc ? rc : ls_store_stmt_views(s, 1);
}

/* Code paths (traces.c), then the holds' lengths where the log gives
 * whole seconds (holdtimes.c), which the occupancy ranking sums. */
static int code_paths_step(ls_store *s, ls_correlate_stats *stats)
{
    int rc = ls_correlate_traces(s, stats);
    return rc ? rc : ls_correlate_hold_ranges(s);
}

int ls_correlate_flag(ls_store *s, const char *sql, int *out)
{
    ls_stmt *q = NULL;
    int rc;
    *out = 0;
    if ((rc = ls_store_prepare(s, sql, &q)) != 0)
        return rc;
    if ((rc = ls_stmt_step(q)) == 1)
        *out = ls_stmt_int64(q, LS_ONLY_COLUMN) != 0;
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

/* The logical rows: from the waits and errors, then the keys statements
 * queued for below deadlock_timeout (quiet.c), then those locking
 * statements only the spans show queued for (spanqueue.c). */
static int rows_step(ls_store *s, ls_correlate_stats *stats)
{
    int rc = ls_correlate_rows(s, stats);
    if (rc == 0)
        rc = ls_correlate_quiet_rows(s, stats);
    return rc ? rc : ls_correlate_span_queue_rows(s, stats);
}

static const ls_correlate_pass passes[] = {
    {"wait episodes", episodes_pass, "lock_wait_rows event_waits",
     "DROP INDEX IF EXISTS lock_waits_pid;"
     " DROP INDEX IF EXISTS lock_waits_waiter_tx; DROP INDEX IF EXISTS lock_waits_acquired;"
     " DELETE FROM lock_wait_rows; DELETE FROM event_waits;"},
    {"index", index_step, "", NULL},
    {"blocker chains", walk_chains, "wait_chains", "DELETE FROM wait_chains;"},
    {"relation names", relations_step, "relations", "DELETE FROM relations;"},
    {"statements from spans", spans_step,
     "span_placement span_clock stmt_rows+ stmt_texts stmt_span_time",
     "DELETE FROM stmt_rows WHERE verb = 5;" /* LS_VERB_SPAN */
     " DELETE FROM stmt_span_time;"
     " DELETE FROM span_placement; DELETE FROM span_clock;"},
    {"logical rows", rows_step,
     "row_keys row_rules wait_rows",
     /* lock_waits_row is on wait_rows (holds.c), made again by this pass */
     "DROP INDEX IF EXISTS lock_waits_row;"
     " DELETE FROM row_keys; DELETE FROM row_rules; DELETE FROM wait_rows;"},
    {"transactions and holds", ls_correlate_transactions,
     /* tx_cuts, tx_keys: ingest's cuts and row keys, emptied once read */
     "transactions hold_rows hold_evidence wait_links error_links deadlock_links rule_keyed"
     " tx_cuts tx_keys",
     "DROP INDEX IF EXISTS holds_tx_row; DROP INDEX IF EXISTS holds_row;"
     " DROP INDEX IF EXISTS holds_row_start; DROP INDEX IF EXISTS transactions_session;"
     " DROP INDEX IF EXISTS transactions_xid; DROP INDEX IF EXISTS transactions_session_stmt;"
     " DROP INDEX IF EXISTS wait_links_waiter_tx;"
     " DELETE FROM transactions; DELETE FROM hold_rows; DELETE FROM hold_evidence;"
     " DELETE FROM wait_links; DELETE FROM error_links; DELETE FROM deadlock_links;"
     " DELETE FROM rule_keyed;"},
    {"holds waited for", ls_correlate_holds, "hold_bounds bound_evidence row_holds",
     "DELETE FROM hold_bounds; DELETE FROM bound_evidence; DELETE FROM row_holds;"},
    {"hidden waits", ls_correlate_hidden, "row_waits hold_queued row_hidden",
     "DROP INDEX IF EXISTS row_waits_row; DELETE FROM row_waits; DELETE FROM hold_queued;"
     " DELETE FROM row_hidden;"},
    {"queue depth", queue_step, "row_queue row_queue_peaks",
     "DELETE FROM row_queue; DELETE FROM row_queue_peaks;"},
    {"final holds and rows", ls_correlate_final, "hold_final hold_final_evidence row_final",
     "DROP INDEX IF EXISTS hold_final_row; DROP INDEX IF EXISTS hold_final_tx;"
     " DROP INDEX IF EXISTS hold_final_head; DROP INDEX IF EXISTS hold_final_waited;"
     " DELETE FROM hold_final; DELETE FROM hold_final_evidence; DELETE FROM row_final;"},
    {"code paths", code_paths_step,
     "tx_code_rows stmt_tags hold_parts shapes lock_orders row_cover tx_shapes path_identity"
     " hold_range path_names path_sets",
     "DROP INDEX IF EXISTS hold_parts_hold;"
     " DELETE FROM tx_code_rows; DELETE FROM stmt_tags; DELETE FROM hold_parts;"
     " DELETE FROM shapes; DELETE FROM lock_orders; DELETE FROM row_cover;"
     " DELETE FROM tx_shapes; DELETE FROM path_identity; DELETE FROM hold_range;"
     " DELETE FROM path_names; DELETE FROM path_sets;"},
    /* after the code paths: a transaction's trace (tx_code_rows) */
    {"retries", ls_correlate_retries, "retries", "DELETE FROM retries;"},
    {"findings", ls_correlate_findings, "findings finding_fields",
     "DELETE FROM findings; DELETE FROM finding_fields;"},
    /* reads ingest's stmt_stats (or the statements) and the final holds */
    {"statement logging", ls_correlate_logging, "logcover", "DELETE FROM logcover;"},
    /* reads the final holds, the code paths, the covers and the waits */
    {"report summary", ls_correlate_summary,
     "path_ranking path_queueing path_occupancy row_queue_buckets",
     "DELETE FROM path_ranking; DELETE FROM path_queueing; DELETE FROM path_occupancy;"
     " DELETE FROM row_queue_buckets;"},
};

#define NPASSES (sizeof(passes) / sizeof(passes[0]))

const ls_correlate_pass *ls_correlate_passes(size_t *n)
{
    *n = NPASSES;
    return passes;
}

/* Linux: reset the process's peak resident size (VmHWM), so that the
 * peak read after a pass is that pass's own. A tuning aid; elsewhere a
 * no-op. */
static void peak_rss_reset(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
}

/* The peak resident size since the last reset, in KiB (0: unknown). */
static long peak_rss_kib(void)
{
    char line[128];
    long kib = 0;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
            break;
    fclose(f);
    return kib;
}

/* Every pass, in order; progress (may be NULL) names each as it starts. */
static int correlate_run(ls_store *s, ls_correlate_stats *stats, ls_progress *progress)
{
    /* LOCKSPAN_TIMING=1 prints each pass's time: a tool for tuning. */
    int timing = getenv("LOCKSPAN_TIMING") != NULL;
    size_t i;
    int rc;

    memset(stats, 0, sizeof(*stats));
    if ((rc = ls_store_begin(s)) != 0)
        return rc;
    /* dropped at the end of a run before (below): a rerun (after an
     * upgrade, a new revision or another ingest) sorts them anew */
    rc = ls_store_exec_sorting(s, PASS_ONLY_INDEX_SQL);
    /* the resets empty the store's tables, not the connection's views */
    if (rc == 0)
        rc = ls_store_stmt_views(s, 0);
    for (i = 0; rc == 0 && i < NPASSES; i++)
        if (passes[i].clear && (rc = ls_store_guard_writes(s, passes[i].name,
                                                           passes[i].owns)) == 0)
            rc = ls_store_exec(s, passes[i].clear);
    /* the statements as logged until the spans pass times them */
    if (rc == 0)
        rc = ls_store_stmt_views(s, 1);
    ls_store_cache_misses(s); /* count from here */
    if (timing)
        ls_store_vm_steps(s);
    for (i = 0; rc == 0 && i < NPASSES; i++) {
        struct timespec t0, t1, c0, c1;
        if (progress)
            ls_progress_note(progress, !progress->tty, "correlate %zu/%zu: %s", i + 1, NPASSES,
                             passes[i].name);
        if ((rc = ls_store_guard_writes(s, passes[i].name, passes[i].owns)) != 0)
            break;
        if (timing)
            peak_rss_reset();
        clock_gettime(CLOCK_MONOTONIC, &t0);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
        rc = passes[i].run(s, stats);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
        /* Wall and CPU time: on a shared machine the CPU time is the one
         * that tells whether a pass scales. */
        if (timing) {
            if (progress)
                ls_progress_end(progress);
            fprintf(stderr, "lockspan: correlate: %-24s %8.3f s\n", passes[i].name,
                    ls_secs_between(&t0, &t1));
            fprintf(stderr, "lockspan: correlate-cpu: %-24s %8.3f s\n", passes[i].name,
                    ls_secs_between(&c0, &c1));
            fprintf(stderr, "lockspan: correlate-pages: %-24s %8lld pages read\n",
                    passes[i].name, (long long)ls_store_cache_misses(s));
            fprintf(stderr, "lockspan: correlate-peak: %-24s %8ld KiB resident\n",
                    passes[i].name, peak_rss_kib());
            fprintf(stderr, "lockspan: correlate-steps: %-24s %12lld SQLite VM steps\n",
                    passes[i].name, (long long)ls_store_vm_steps(s));
        }
    }
    if (rc == 0)
        rc = ls_store_guard_writes(s, NULL, NULL);
    /* stmt_rows the table again for whatever writes it next (ingest):
     * the report makes the views again for its own queries */
    if (rc == 0)
        rc = ls_store_stmt_views(s, 0);
    /* The transactions pass emptied ingest's cuts once it had read them. */
    if (rc == 0)
        rc = ls_store_cuts_consumed(s);
    /* The indexes only the passes read, dropped: the report reads a
     * transaction's statements as a range of stmt_id (`+session_id`),
     * transactions by tx_id and no lock message. 0.035 bytes per log
     * byte (issue 38, docs/streaming.md "Stored once"), given back to the
     * file system where the store has auto_vacuum (every store made
     * since, store.c); a store made before keeps the pages free for its
     * next ingest. */
    if (rc == 0)
        rc = ls_store_exec(s, "DROP INDEX IF EXISTS statements_session;"
                              " DROP INDEX IF EXISTS lock_events_pid;"
                              " DROP INDEX IF EXISTS transactions_session_stmt;"
                              " PRAGMA incremental_vacuum;");
    /* Ingest clears this mark (ls_ingest_paths): the derived tables are
     * current until then. */
    if (rc == 0)
        rc = ls_store_meta_set(s, "correlated", CORRELATED_MARK);
    if (rc == 0)
        return ls_store_commit(s);
    ls_store_guard_writes(s, NULL, NULL);
    ls_store_exec(s, "ROLLBACK");
    return rc;
}

int ls_correlate(ls_store *s, ls_correlate_stats *stats)
{
    return correlate_run(s, stats, NULL);
}

/* What a correlated store says of its waits (ls_correlate_current). */
#define COUNT_COLS(X, Q)                                                      \
    X(Q, waits, "count(*)")                                                   \
    X(Q, linked, "count(blocker_pid)")                                        \
    X(Q, chained, "count(CASE WHEN root_pid <> blocker_pid THEN 1 END)")
LS_COLUMNS(cq, COUNT_COLS);

/* waits, linked and chained of stats as the correlated store has them
 * (the transactions pass may move a wait's root after the chain walk
 * counted it, so the walk's own count is not the answer). */
static int stored_counts(ls_store *s, ls_correlate_stats *stats)
{
    ls_stmt *q = NULL;
    int rc;
    if ((rc = ls_store_prepare(s, "SELECT " LS_SELECT_LIST(cq, COUNT_COLS)
                                  " FROM lock_waits", &q)) != 0)
        return rc;
    if ((rc = ls_stmt_step(q)) == 1) {
        stats->waits = ls_stmt_int64(q, cq_waits);
        stats->linked = ls_stmt_int64(q, cq_linked);
        stats->chained = ls_stmt_int64(q, cq_chained);
    }
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

int ls_correlate_current(ls_store *s, ls_correlate_stats *stats, ls_progress *progress,
                         int *ran)
{
    char mark[64];
    int rc;

    *ran = 0;
    if ((rc = ls_store_meta_get(s, "correlated", mark, sizeof(mark))) != 0)
        return rc;
    if (strcmp(mark, CORRELATED_MARK) != 0) {
        *ran = 1;
        rc = correlate_run(s, stats, progress);
        if (progress)
            ls_progress_end(progress);
        /* the line printed of a fresh run counts as that of a reused one */
        return rc != 0 ? rc : stored_counts(s, stats);
    }
    memset(stats, 0, sizeof(*stats));
    return stored_counts(s, stats);
}
