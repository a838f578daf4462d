/*
 * correlate.c — wait episodes and blocker chains.
 *
 * 1. Episodes: log_lock_waits writes "still waiting" once a wait passes
 *    deadlock_timeout and a closing message ("acquired", "detected
 *    deadlock", "failed to acquire") when it ends; a wait cut short by an
 *    error (lock_timeout, statement_timeout, cancel) has no closing message,
 *    so the next such error of the same process closes it. An episode
 *    starts "after X ms" before its messages (the earliest they imply).
 * 2. Direct blocker: the first pid of "Process(es) holding the lock" at
 *    the moment the wait was logged. For later waiters of a tuple-lock
 *    queue that is the first waiter, which holds the tuple lock.
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

#define MAX_EPISODE_EVENTS 16 /* messages of one wait (waiting, avoided..., acquired) */

static const char episodes_sql[] =
    "SELECT event_id, session_id, pid, ts, phase, mode, target_kind, target, target_xid,"
    " rel_oid, db_oid, page, tuple_offset, waited_ms,"
    " " LS_PIDS_OF("lock_event_rows", "holders") ", queue,"
    " ctx_relation, ctx_page, ctx_offset, file_id, line, after_lock,"
    /* The queue as stored, not read back: lock_wait_rows keeps the same
     * id (22), or the same text (15) when it has none. */
    " CASE WHEN typeof(queue) = 'integer' THEN queue END"
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
#define WAIT_COLS(E)                                                                         \
    E "session_id, " E "pid, " E "mode, " E "target_kind, " E "target, " E "target_xid, " E   \
    "rel_oid, " E "db_oid, " E "relation, " E "ctid, " E "start_ts, " E "logged_ts, " E       \
    "end_ts, " E "waited_ms, " E "outcome, " E "holders, " E "queue, " E "blocker_pid, " E    \
    "first_event, " E "file_id, " E "line, " E "end_file, " E "end_line"

static const char episode_tables_sql[] =
    "DROP TABLE IF EXISTS temp.episodes;"
    "DROP TABLE IF EXISTS temp.event_waits;"
    "CREATE TEMP TABLE episodes(id INTEGER PRIMARY KEY, " WAIT_COLS("") ");"
    "CREATE TEMP TABLE event_waits(event_id INTEGER PRIMARY KEY, episode INTEGER);";

static const char store_episodes_sql[] =
    "DROP TABLE IF EXISTS temp.episode_order;"
    "CREATE TEMP TABLE episode_order(wait_id INTEGER PRIMARY KEY, id INTEGER UNIQUE);"
    "INSERT INTO temp.episode_order(wait_id, id)"
    " SELECT row_number() OVER (ORDER BY start_ts, pid, id), id FROM temp.episodes;"
    /* In wait_id order (CROSS JOIN: episode_order is the outer loop), so
     * the statement, the first event's, is read near the one before: the
     * events are in log order, and so, nearly, are the waits. */
    "INSERT INTO lock_wait_rows(wait_id, " WAIT_COLS("") ", statement)"
    " SELECT o.wait_id, " WAIT_COLS("e.") ", " LS_TEXT_OF("le.text_id") " FROM temp.episode_order o"
    " CROSS JOIN temp.episodes e ON e.id = o.id"
    " LEFT JOIN lock_events le ON le.event_id = e.first_event ORDER BY o.wait_id;"
    /* In table order (NOT INDEXED: not through lock_events(pid, ts), which
     * would visit the rows once per process). */
    "UPDATE lock_event_rows NOT INDEXED SET wait_id = o.wait_id FROM temp.event_waits ew"
    " JOIN temp.episode_order o ON o.id = ew.episode"
    " WHERE lock_event_rows.event_id = ew.event_id;"
    "DROP TABLE temp.episodes; DROP TABLE temp.event_waits; DROP TABLE temp.episode_order;";

static const char insert_wait_sql[] =
    /* ?16 was the statement, now joined from the first event; ?25 the
     * episode's number in build order (no RETURNING: a row per episode) */
    "INSERT INTO temp.episodes(id, " WAIT_COLS("") ")"
    " VALUES (?25, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?17, ?18,"
    " ?19, ?20, ?21, ?22, ?23, ?24)";

/*
 * Waits the log shows no end of (no closing lock message): each with its
 * process's first error at or after its first message, and the process's
 * first lock message after that one. ls_error_closes_wait() decides
 * whether the error ended the wait.
 */
enum { OPEN_WAIT_ID, OPEN_WAIT_LOGGED, OPEN_WAIT_START, OPEN_WAIT_MS, OPEN_ERR_TS,
       OPEN_ERR_CLASS, OPEN_ERR_FILE, OPEN_ERR_LINE, OPEN_NEXT_LOCK };
static const char unclosed_sql[] =
    "SELECT w.wait_id, w.logged_ts, w.start_ts, w.waited_ms, e.ts, e.class, e.file_id, e.line,"
    " (SELECT min(l.ts) FROM lock_events l WHERE l.pid = w.pid AND l.ts > w.logged_ts)"
    " FROM lock_wait_rows w JOIN errors e ON e.error_id = (SELECT e2.error_id FROM errors e2"
    "  WHERE e2.pid = w.pid AND e2.ts >= w.logged_ts ORDER BY e2.ts, e2.error_id LIMIT 1)"
    " WHERE w.outcome IS NULL ORDER BY w.wait_id";

/* The wait lasted until the error: "after X ms" was only when it was
 * first logged. */
static const char close_wait_sql[] =
    "UPDATE lock_wait_rows SET outcome = ?2, end_ts = ?3, end_file = ?4, end_line = ?5,"
    " waited_ms = ?6 WHERE wait_id = ?1";

static const char unknown_outcome_sql[] =
    "UPDATE lock_wait_rows SET outcome = 'unknown' WHERE outcome IS NULL;";

/* Acquired waits whose process then failed with 40001: each with the
 * first such error at or after its end; ls_serialization_ended() decides
 * whether it was the wait's outcome. */
enum { SF_WAIT, SF_END, SF_ERR_TS };
static const char acquired_40001_sql[] =
    "SELECT wait_id, end_ts, err FROM (SELECT w.wait_id, w.end_ts, (SELECT min(e.ts) FROM errors e"
    "  WHERE e.pid = w.pid AND e.class = 'serialization_failure' AND e.ts >= w.end_ts) AS err"
    " FROM lock_wait_rows w WHERE w.outcome = 'acquired') WHERE err IS NOT NULL ORDER BY wait_id";

static const char relations_sql[] =
    /* Transaction waits carry the relation name and ctid in CONTEXT. */
    "INSERT OR IGNORE INTO relations(db_oid, rel_oid, name, evidence)"
    " SELECT DISTINCT t.db_oid, t.rel_oid, h.relation, 'context of the holder''s wait'"
    /* The holder's wait then: its latest that began by then (one at a time). */
    " FROM lock_wait_rows t JOIN lock_wait_rows h ON h.wait_id = (SELECT h2.wait_id FROM lock_wait_rows h2"
    "  WHERE h2.pid = t.blocker_pid AND h2.start_ts <= t.logged_ts"
    "  ORDER BY h2.start_ts DESC LIMIT 1)"
    " WHERE t.target_kind = 'tuple' AND (h.end_ts IS NULL OR h.end_ts >= t.logged_ts)"
    "  AND h.relation IS NOT NULL AND h.ctid = t.ctid;"
    "UPDATE lock_wait_rows SET relation = (SELECT r.name FROM relations r"
    "  WHERE r.db_oid = lock_wait_rows.db_oid AND r.rel_oid = lock_wait_rows.rel_oid)"
    " WHERE relation IS NULL AND rel_oid IS NOT NULL;";

/* The waits of `pid` around time ?2 (?3: the timestamps' resolution),
 * with their log positions; ls_wait_open_at() decides. */
enum { OW_ID, OW_BLOCKER, OW_KIND, OW_XID, OW_START, OW_END, OW_FILE, OW_LINE, OW_END_FILE,
       OW_END_LINE, OW_TARGET };
static const char open_wait_sql[] =
    "SELECT wait_id, blocker_pid, target_kind, target_xid, start_ts, end_ts, file_id, line,"
    " end_file, end_line, target FROM lock_wait_rows"
    " WHERE pid = ?1 AND start_ts <= ?2 + ?3"
    /* A process waits for one lock at a time: its waits follow one another,
     * so the latest few that began by then are the only candidates (?4:
     * LS_OPEN_WAIT_CANDIDATES; _WHOLE with whole-second times, a process under a crowd may begin a
     * dozen in the second after the moment, unordered by their derived
     * starts, and each is judged by its log position). */
    " ORDER BY start_ts DESC, wait_id DESC LIMIT ?4";

/* Do the log's timestamps have sub-second digits (%m, csvlog), or whole
 * seconds (%t)? */
static const char subsecond_sql[] =
    "SELECT EXISTS (SELECT 1 FROM lock_events WHERE ts % " LS_SQL_INT(LS_WHOLE_SECOND_US) " <> 0)";

int ls_log_subsecond(ls_store *s, int *subsecond)
{
    ls_stmt *q = NULL;
    int rc;

    *subsecond = 1;
    if ((rc = ls_store_prepare(s, subsecond_sql, &q)) != 0)
        return rc;
    if ((rc = ls_stmt_step(q)) == 1)
        *subsecond = (int)ls_stmt_int64(q, 0);
    ls_stmt_finalize(q);
    return rc < 0 ? rc : 0;
}

/* The session a pid belonged to at time t. */
static const char session_at_sql[] =
    "SELECT session_id FROM sessions WHERE pid = ?1"
    " AND coalesce(start_ts, first_ts, 0) <= ?2"
    " ORDER BY coalesce(start_ts, first_ts, 0) DESC LIMIT 1";

static const char xid_session_sql[] = "SELECT session_id, pid FROM xids WHERE xid = ?1";

/*
 * A lock on a transaction has one holder, the transaction's own process,
 * except for an instant after it ends: the waiters its end woke are each
 * granted the lock they waited for and let it go at once. A message
 * stamped in that instant lists them, and the owner, gone, no longer:
 * "Processes holding the lock: 23411, 23426, 24448, ..." for a
 * transaction of 24425 (a log of 160 pgbench clients). The awaited xid
 * names its owner (xids, when %x is in the prefix): with more than one
 * holder listed, or the owner among them, it is the blocker. The owner's
 * xid was seen by then (xids of another server's log in the same store
 * may coincide).
 */
static const char xid_owner_sql[] =
    "UPDATE lock_wait_rows SET blocker_pid = x.pid FROM xids x"
    " WHERE x.xid = lock_wait_rows.target_xid AND lock_wait_rows.target_kind = 'transaction'"
    " AND x.pid IS NOT lock_wait_rows.blocker_pid AND x.first_ts <= lock_wait_rows.logged_ts"
    " AND (instr(" LS_PIDS_OF("lock_wait_rows", "holders") ", ',') > 0"
    "  OR ',' || " LS_PIDS_OF("lock_wait_rows", "holders") " || ',' LIKE '%,' || x.pid || ',%')";

static const char update_wait_sql[] =
    "UPDATE lock_wait_rows SET blocker_session = ?2, blocker_xid = ?3, root_pid = ?4,"
    " root_session = ?5, root_xid = ?6, chain_depth = ?7 WHERE wait_id = ?1";

enum { WK_ID, WK_BLOCKER, WK_LOGGED, WK_KIND, WK_XID, WK_PID, WK_FILE, WK_LINE, WK_TARGET };
static const char walk_sql[] =
    "SELECT wait_id, blocker_pid, logged_ts, target_kind, target_xid, pid, file_id, line, target"
    " FROM lock_wait_rows"
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

static int first_pid(const char *list)
{
    int v = 0;
    if (!list || !*list)
        return 0;
    for (; *list >= '0' && *list <= '9'; list++)
        v = v * 10 + (*list - '0');
    return v;
}

/* Keep the first error of a run of binds in *rc (SQLite's sticky error):
 * the run is checked once, before its step. */
static void keep_first(int *rc, int r)
{
    if (*rc == 0)
        *rc = r;
}

static int flush_episode(ls_stmt *ins, ls_stmt *link, episode *e, int64_t *next_id,
                         ls_correlate_stats *stats)
{
    int rc, brc = 0, bp, i;
    int64_t ep_id;
    if (!e->open)
        return 0;
    e->open = 0;
    ep_id = ++*next_id;
    ls_stmt_reset(ins);
    keep_first(&brc, ls_stmt_bind_int64(ins, 25, ep_id));
    if (e->session_id)
        keep_first(&brc, ls_stmt_bind_int64(ins, 1, e->session_id));
    keep_first(&brc, ls_stmt_bind_int64(ins, 2, e->pid));
    keep_first(&brc, ls_stmt_bind_text(ins, 3, e->mode));
    keep_first(&brc, ls_stmt_bind_text(ins, 4, e->target_kind));
    keep_first(&brc, ls_stmt_bind_text(ins, 5, e->target));
    if (e->has_target_xid)
        keep_first(&brc, ls_stmt_bind_int64(ins, 6, e->target_xid));
    if (e->has_rel) {
        keep_first(&brc, ls_stmt_bind_int64(ins, 7, e->rel_oid));
        keep_first(&brc, ls_stmt_bind_int64(ins, 8, e->db_oid));
    }
    keep_first(&brc, ls_stmt_bind_text(ins, 9, e->relation[0] ? e->relation : NULL));
    keep_first(&brc, ls_stmt_bind_text(ins, 10, e->ctid[0] ? e->ctid : NULL));
    keep_first(&brc, ls_stmt_bind_int64(ins, 11, e->start_ts));
    keep_first(&brc, ls_stmt_bind_int64(ins, 12, e->logged_ts));
    if (e->has_end)
        keep_first(&brc, ls_stmt_bind_int64(ins, 13, e->end_ts));
    if (e->has_end) {
        keep_first(&brc, ls_stmt_bind_int64(ins, 23, e->end_file));
        keep_first(&brc, ls_stmt_bind_int64(ins, 24, e->end_line));
    }
    keep_first(&brc, ls_stmt_bind_double(ins, 14, e->waited_ms));
    keep_first(&brc, ls_stmt_bind_text(ins, 15, e->outcome[0] ? e->outcome : NULL));
    keep_first(&brc, ls_stmt_bind_text(ins, 17, e->holders));
    if (e->queue_id)
        keep_first(&brc, ls_stmt_bind_int64(ins, 18, e->queue_id));
    else
        keep_first(&brc, ls_stmt_bind_text(ins, 18, e->queue));
    bp = first_pid(e->holders);
    if (bp)
        keep_first(&brc, ls_stmt_bind_int64(ins, 19, bp));
    keep_first(&brc, ls_stmt_bind_int64(ins, 20, e->first_event));
    keep_first(&brc, ls_stmt_bind_int64(ins, 21, e->file_id));
    keep_first(&brc, ls_stmt_bind_int64(ins, 22, e->line));
    if (brc != 0)
        return brc;
    if ((rc = ls_stmt_step(ins)) < 0)
        return rc;
    for (i = 0; i < e->nevents; i++) {
        ls_stmt_reset(link);
        keep_first(&brc, ls_stmt_bind_int64(link, 1, ep_id));
        keep_first(&brc, ls_stmt_bind_int64(link, 2, e->events[i]));
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
    copy(ep->holders, sizeof(ep->holders), ls_stmt_text(q, 14));
    ep->queue_id = ls_stmt_isnull(q, 22) ? 0 : ls_stmt_int64(q, 22);
    copy(ep->queue, sizeof(ep->queue), ep->queue_id ? "" : ls_stmt_text(q, 15));
}

/* Start episode `ep` at the current event of q (an episodes_sql row). */
static void episode_open(episode *ep, ls_stmt *q, int64_t implied_start)
{
    memset(ep, 0, sizeof(*ep));
    ep->open = 1;
    ep->first_event = ls_stmt_int64(q, 0);
    ep->session_id = ls_stmt_int64(q, 1);
    ep->pid = ls_stmt_int64(q, 2);
    ep->file_id = ls_stmt_int64(q, 19);
    ep->line = ls_stmt_int64(q, 20);
    copy(ep->target, sizeof(ep->target), ls_stmt_text(q, 7));
    copy(ep->mode, sizeof(ep->mode), ls_stmt_text(q, 5));
    copy(ep->target_kind, sizeof(ep->target_kind), ls_stmt_text(q, 6));
    if (!ls_stmt_isnull(q, 8)) {
        ep->has_target_xid = 1;
        ep->target_xid = ls_stmt_int64(q, 8);
    }
    if (!ls_stmt_isnull(q, 9)) {
        ep->has_rel = 1;
        ep->rel_oid = ls_stmt_int64(q, 9);
        ep->db_oid = ls_stmt_int64(q, 10);
    }
    if (!ls_stmt_isnull(q, 12))
        snprintf(ep->ctid, sizeof(ep->ctid), "(%lld,%lld)", (long long)ls_stmt_int64(q, 11),
                 (long long)ls_stmt_int64(q, 12));
    ep->start_ts = implied_start;
    ep->logged_ts = ls_stmt_int64(q, 3);
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
    int64_t ts = ls_stmt_int64(q, 3);
    const char *phase = ls_stmt_text(q, 4);
    double ms = ls_stmt_double(q, 13);
    int64_t after = ls_wait_after_us(ms);

    ep->start_ts = ls_wait_start_with(ep->start_ts, ts, after, subsecond);

    if (!ls_stmt_isnull(q, 16) && !ep->relation[0]) {
        copy(ep->relation, sizeof(ep->relation), ls_stmt_text(q, 16));
        if (!ls_stmt_isnull(q, 17) && !ep->ctid[0])
            snprintf(ep->ctid, sizeof(ep->ctid), "(%lld,%lld)", (long long)ls_stmt_int64(q, 17),
                     (long long)ls_stmt_int64(q, 18));
    }
    ep->last_ts = ts;
    if (ep->nevents < MAX_EPISODE_EVENTS)
        ep->events[ep->nevents++] = ls_stmt_int64(q, 0);
    if (ms > ep->waited_ms)
        ep->waited_ms = ms;
    if (strcmp(phase, "acquired") == 0 || strcmp(phase, "deadlock") == 0 ||
        strcmp(phase, "failed") == 0) {
        ep->has_end = 1;
        ep->end_ts = ls_wait_end_at(ep->start_ts, ts, after, subsecond);
        ep->end_file = ls_stmt_int64(q, 19);
        ep->end_line = ls_stmt_int64(q, 20);
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
 * Pass 1: group lock_events into episodes. The messages are read in log
 * order (the table's), not sorted by process: each process's messages are
 * in its own order there, and an open episode per process is all the state
 * it takes. (A sort by pid and target was the pass's main cost, and grew
 * faster than the log: 0.45 s of 1.2 s on the 96,049 messages of the 1 GiB
 * pgbench log.)
 */
static int build_episodes(ls_store *s, ls_correlate_stats *stats)
{
    ls_stmt *q = NULL, *ins = NULL, *link = NULL;
    episode_map map = {NULL, 0, 0};
    episode *spare = NULL;
    int64_t next_id = 0;
    size_t i;
    int rc, subsecond;

    if ((rc = ls_log_subsecond(s, &subsecond)) != 0)
        return rc;
    if ((rc = ls_store_exec(s, episode_tables_sql)) != 0 ||
        (rc = ls_store_prepare(s, episodes_sql, &q)) != 0 ||
        (rc = ls_store_prepare(s, insert_wait_sql, &ins)) != 0 ||
        (rc = ls_store_prepare(s, "INSERT INTO temp.event_waits(episode, event_id)"
                                  " VALUES (?1, ?2)", &link)) != 0)
        goto out;
    while ((rc = ls_stmt_step(q)) == 1) {
        int64_t pid = ls_stmt_int64(q, 2), ts = ls_stmt_int64(q, 3);
        double ms = ls_stmt_double(q, 13);
        int64_t implied_start = ts - ls_wait_after_us(ms);
        episode **slot = map_slot(&map, pid), *ep;
        int after_lock = ls_stmt_isnull(q, 21) ? -1 : (int)ls_stmt_int64(q, 21);

        if (!slot) {
            rc = LS_ENOMEM;
            goto out;
        }
        ep = *slot;
        if (ep && !continues_episode(ep, pid, ls_stmt_text(q, 7), implied_start, after_lock,
                                     subsecond)) {
            if ((rc = flush_episode(ins, link, ep, &next_id, stats)) != 0)
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
            if ((rc = flush_episode(ins, link, ep, &next_id, stats)) != 0)
                goto out;
            map_remove(&map, slot);
            free(spare);
            spare = ep;
        }
    }
    /* Waits the log never showed the end of, in slot order (deterministic). */
    for (i = 0; rc == 0 && i < map.cap; i++)
        if (map.slot[i])
            rc = flush_episode(ins, link, map.slot[i], &next_id, stats);
out:
    ls_stmt_finalize(q);
    ls_stmt_finalize(ins);
    ls_stmt_finalize(link);
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
    if ((rc = ls_stmt_bind_int64(q, 1, pid)) != 0 || (rc = ls_stmt_bind_int64(q, 2, ts)) != 0)
        return rc;
    rc = ls_stmt_step(q);
    if (rc == 1)
        *out = ls_stmt_int64(q, 0);
    return rc < 0 ? rc : 0;
}

/* One wait of the root around the moment (an open_wait_sql row), as the
 * chain walk sees it; target points into q's row (valid until its next
 * step). */
static void read_root_wait(ls_stmt *q, ls_chain_wait *w)
{
    w->span.start_ts = ls_stmt_int64(q, OW_START);
    w->span.has_end = !ls_stmt_isnull(q, OW_END);
    w->span.end_ts = ls_stmt_int64(q, OW_END);
    w->span.first.file = ls_stmt_int64(q, OW_FILE);
    w->span.first.line = ls_stmt_int64(q, OW_LINE);
    w->span.end.file = ls_stmt_int64(q, OW_END_FILE);
    w->span.end.line = ls_stmt_int64(q, OW_END_LINE);
    w->has_blocker = !ls_stmt_isnull(q, OW_BLOCKER);
    w->blocker = ls_stmt_int64(q, OW_BLOCKER);
    w->awaited_xid = strcmp(ls_stmt_text(q, OW_KIND), "transaction") == 0
                         ? ls_stmt_int64(q, OW_XID)
                         : 0;
    w->target = ls_stmt_text(q, OW_TARGET);
}

/* One step of the walk: the root's waits around time t, latest first,
 * until ls_chain_step() decides. Returns LS_CHAIN_ON or LS_CHAIN_STOP, or
 * a negative error. */
static int walk_step(ls_stmt *openq, ls_chain *ch, int64_t t, ls_logpos pos, int subsecond)
{
    int rc, verdict = LS_CHAIN_STOP;

    ls_stmt_reset(openq);
    if ((rc = ls_stmt_bind_int64(openq, 1, ch->root)) != 0 ||
        (rc = ls_stmt_bind_int64(openq, 2, t)) != 0 ||
        (rc = ls_stmt_bind_int64(openq, 3, subsecond ? 0 : LS_WHOLE_SECOND_US)) != 0 ||
        (rc = ls_stmt_bind_int64(openq, 4, subsecond ? LS_OPEN_WAIT_CANDIDATES
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
        if ((rc = ls_stmt_bind_int64(xidq, 1, ch->root_xid)) != 0 ||
            (rc = ls_stmt_step(xidq)) < 0)
            return rc;
        if (rc == 1 && ls_stmt_int64(xidq, 1) == ch->root && !ls_stmt_isnull(xidq, 0)) {
            *root_sess = ls_stmt_int64(xidq, 0);
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
    int64_t blocker = ls_stmt_int64(q, WK_BLOCKER), t = ls_stmt_int64(q, WK_LOGGED);
    int64_t blocker_xid = 0, root_sess = 0, blocker_sess = 0;
    ls_logpos pos;
    ls_chain ch;
    int rc;

    pos.file = ls_stmt_int64(q, WK_FILE);
    pos.line = ls_stmt_int64(q, WK_LINE);
    if (strcmp(ls_stmt_text(q, WK_KIND), "transaction") == 0)
        blocker_xid = ls_stmt_int64(q, WK_XID);
    ls_chain_start(&ch, ls_stmt_int64(q, WK_PID), blocker, blocker_xid,
                   ls_stmt_text(q, WK_TARGET));
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
    if ((rc = ls_stmt_bind_int64(u, 1, ls_stmt_int64(q, WK_ID))) != 0 ||
        (blocker_sess && (rc = ls_stmt_bind_int64(u, 2, blocker_sess)) != 0) ||
        (blocker_xid && (rc = ls_stmt_bind_int64(u, 3, blocker_xid)) != 0) ||
        (rc = ls_stmt_bind_int64(u, 4, ch.root)) != 0 ||
        (root_sess && (rc = ls_stmt_bind_int64(u, 5, root_sess)) != 0) ||
        (ch.root_xid && (rc = ls_stmt_bind_int64(u, 6, ch.root_xid)) != 0) ||
        (rc = ls_stmt_bind_int64(u, 7, ch.depth)) != 0)
        return rc;
    rc = ls_stmt_step(u);
    return rc < 0 ? rc : 0;
}

/* Pass 2: follow each wait's blockers to the root (decide/chain.c). */
static int walk_chains(ls_store *s, ls_correlate_stats *stats)
{
    walk_q wq = {NULL, NULL, NULL, NULL, NULL};
    int rc, subsecond;

    if ((rc = ls_log_subsecond(s, &subsecond)) != 0 ||
        (rc = ls_store_exec(s, xid_owner_sql)) != 0 ||
        (rc = ls_store_prepare(s, walk_sql, &wq.walk)) != 0 ||
        (rc = ls_store_prepare(s, open_wait_sql, &wq.openq)) != 0 ||
        (rc = ls_store_prepare(s, session_at_sql, &wq.sessq)) != 0 ||
        (rc = ls_store_prepare(s, xid_session_sql, &wq.xidq)) != 0 ||
        (rc = ls_store_prepare(s, update_wait_sql, &wq.upd)) != 0)
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

    if ((rc = ls_store_prepare(s, close_wait_sql, &u)) != 0)
        return rc;
    for (i = 0; i < n; i++) {
        ls_stmt_reset(u);
        if ((rc = ls_stmt_bind_int64(u, 1, c[i].wait_id)) != 0 ||
            (rc = ls_stmt_bind_text(u, 2, c[i].has_outcome ? c[i].outcome : NULL)) != 0 ||
            (rc = ls_stmt_bind_int64(u, 3, c[i].end_ts)) != 0 ||
            (rc = ls_stmt_bind_int64(u, 4, c[i].file)) != 0 ||
            (rc = ls_stmt_bind_int64(u, 5, c[i].line)) != 0 ||
            (rc = ls_stmt_bind_double(u, 6, c[i].waited_ms)) != 0 || (rc = ls_stmt_step(u)) < 0)
            break;
        rc = 0;
    }
    ls_stmt_finalize(u);
    return rc < 0 ? rc : 0;
}

/* A wait on a transaction that then fails with 40001 was acquired only to
 * find the row changed: the serialization failure is its real outcome.
 * The waits are read, then changed (the scan reads the column it sets). */
static int serialization_step(ls_store *s)
{
    ls_stmt *q = NULL, *u = NULL;
    int64_t *ids = NULL;
    size_t n = 0, cap = 0, i;
    int rc;

    if ((rc = ls_store_prepare(s, acquired_40001_sql, &q)) != 0)
        return rc;
    while ((rc = ls_stmt_step(q)) == 1) {
        if (!ls_serialization_ended(ls_stmt_int64(q, SF_END), ls_stmt_int64(q, SF_ERR_TS)))
            continue;
        if (n == cap) {
            int64_t *g = realloc(ids, (cap = cap ? 2 * cap : 64) * sizeof(*ids));
            if (!g) {
                rc = LS_ENOMEM;
                break;
            }
            ids = g;
        }
        ids[n++] = ls_stmt_int64(q, SF_WAIT);
    }
    ls_stmt_finalize(q);
    if (rc >= 0 && n > 0)
        rc = ls_store_prepare(s, "UPDATE lock_wait_rows SET outcome = 'serialization_failure'"
                                 " WHERE wait_id = ?1", &u);
    for (i = 0; rc >= 0 && i < n; i++) {
        ls_stmt_reset(u);
        if ((rc = ls_stmt_bind_int64(u, 1, ids[i])) == 0)
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
        int64_t logged = ls_stmt_int64(q, OPEN_WAIT_LOGGED), err = ls_stmt_int64(q, OPEN_ERR_TS);
        if (!ls_error_closes_wait(logged, err, !ls_stmt_isnull(q, OPEN_NEXT_LOCK),
                                  ls_stmt_int64(q, OPEN_NEXT_LOCK)))
            continue;
        if (n == cap) {
            wait_close *g = realloc(c, (cap = cap ? 2 * cap : 64) * sizeof(*c));
            if (!g) {
                rc = LS_ENOMEM;
                break;
            }
            c = g;
        }
        c[n].wait_id = ls_stmt_int64(q, OPEN_WAIT_ID);
        c[n].end_ts = err;
        c[n].file = ls_stmt_int64(q, OPEN_ERR_FILE);
        c[n].line = ls_stmt_int64(q, OPEN_ERR_LINE);
        c[n].waited_ms = ls_wait_ms_until(ls_stmt_double(q, OPEN_WAIT_MS),
                                          ls_stmt_int64(q, OPEN_WAIT_START), err);
        c[n].has_outcome = !ls_stmt_isnull(q, OPEN_ERR_CLASS);
        snprintf(c[n].outcome, sizeof(c[n].outcome), "%s",
                 c[n].has_outcome ? ls_stmt_text(q, OPEN_ERR_CLASS) : "");
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

static int exec_step(ls_store *s, ls_correlate_stats *stats, const char *sql)
{
    (void)stats;
    return ls_store_exec(s, sql);
}

static int index_step(ls_store *s, ls_correlate_stats *stats)
{
    (void)stats;
    /* sessions_pid_start: "the session a pid had at time t" (the chain walk,
     * the transaction links) in one probe, however often the server reused
     * the pid (a busy server without a pooler reuses each one many times a
     * day). */
    return ls_store_exec_sorting(s, "CREATE INDEX IF NOT EXISTS lock_waits_pid ON"
                                    " lock_wait_rows(pid, start_ts);"
                                    "CREATE INDEX IF NOT EXISTS sessions_pid_start ON"
                                    " sessions(pid, coalesce(start_ts, first_ts, 0));");
}

static int relations_step(ls_store *s, ls_correlate_stats *stats)
{
    return exec_step(s, stats, relations_sql);
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
 * line links its NOWAIT error (transactions.c). */
#define CORRELATION_REV "13"
#define CORRELATED_MARK "lockspan " LS_VERSION " correlation " CORRELATION_REV

/*
 * The passes, in order; each sees what the ones before it wrote.
 *
 * `owns` is what the pass may write: tables ("rows") and, where a pass
 * still fills in columns of a table another pass or ingest wrote, those
 * columns ("errors.tx_id"). Each pass runs under a store guard
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
static const ls_correlate_pass passes[] = {
    {"wait episodes", build_episodes, "lock_wait_rows lock_event_rows.wait_id",
     "DROP INDEX IF EXISTS lock_waits_pid; DROP INDEX IF EXISTS lock_waits_row;"
     " DROP INDEX IF EXISTS lock_waits_waiter_tx; DROP INDEX IF EXISTS lock_waits_acquired;"
     " DELETE FROM lock_wait_rows; UPDATE lock_event_rows SET wait_id = NULL;"},
    {"index", index_step, "", NULL},
    {"waits ended by errors", close_step,
     "lock_wait_rows.outcome lock_wait_rows.end_ts lock_wait_rows.end_file"
     " lock_wait_rows.end_line lock_wait_rows.waited_ms",
     NULL},
    {"blocker chains", walk_chains,
     "lock_wait_rows.blocker_pid lock_wait_rows.blocker_session lock_wait_rows.blocker_xid"
     " lock_wait_rows.root_pid lock_wait_rows.root_session lock_wait_rows.root_xid"
     " lock_wait_rows.chain_depth",
     NULL},
    {"relation names", relations_step, "relations lock_wait_rows.relation",
     "DELETE FROM relations;"},
    {"statements from spans", ls_correlate_spans, "span_placement stmt_rows stmt_texts meta",
     "DELETE FROM stmt_rows WHERE verb = 5;" /* LS_VERB_SPAN */
     " DELETE FROM span_placement;"},
    {"logical rows", ls_correlate_rows,
     "rows row_rules lock_wait_rows.row_id lock_wait_rows.waiter_stmt"
     " lock_wait_rows.row_evidence",
     "DELETE FROM rows; DELETE FROM row_rules;"},
    {"transactions and holds", ls_correlate_transactions,
     "transactions hold_rows hold_evidence lock_wait_rows.waiter_tx lock_wait_rows.holder_pid"
     " lock_wait_rows.holder_tx lock_wait_rows.blocker_tx lock_wait_rows.root_tx lock_wait_rows.waiter_stmt"
     " lock_wait_rows.root_pid lock_wait_rows.root_session lock_wait_rows.root_xid"
     " lock_wait_rows.chain_depth errors.tx_id errors.wait_id errors.cause_tx"
     " deadlock_procs.session_id deadlock_procs.tx_id",
     "DROP INDEX IF EXISTS holds_tx_row; DROP INDEX IF EXISTS holds_row;"
     " DROP INDEX IF EXISTS holds_row_start; DROP INDEX IF EXISTS transactions_session;"
     " DROP INDEX IF EXISTS transactions_xid; DROP INDEX IF EXISTS transactions_session_stmt;"
     " DELETE FROM transactions; DELETE FROM hold_rows; DELETE FROM hold_evidence;"
     " UPDATE errors SET tx_id = NULL, wait_id = NULL, cause_tx = NULL;"
     " UPDATE deadlock_procs SET tx_id = NULL;"},
    {"holds waited for", ls_correlate_holds, "hold_rows rows hold_evidence", NULL},
    {"hidden waits", ls_correlate_hidden, "row_waits hold_rows hold_evidence rows",
     "DROP INDEX IF EXISTS row_waits_row; DELETE FROM row_waits;"},
    {"queue depth", queue_step, "row_queue rows.max_queue rows.max_queue_ts",
     "DELETE FROM row_queue;"},
    {"retries", ls_correlate_retries, "errors.retry_stmt errors.retry_tx errors.retry_outcome",
     "UPDATE errors SET retry_stmt = NULL, retry_tx = NULL, retry_outcome = NULL;"},
    {"code paths", ls_correlate_traces, "tx_code_rows stmt_tags hold_parts shapes lock_orders",
     "DROP INDEX IF EXISTS hold_parts_hold;"
     " DELETE FROM tx_code_rows; DELETE FROM stmt_tags; DELETE FROM hold_parts;"
     " DELETE FROM shapes; DELETE FROM lock_orders;"},
    {"findings", ls_correlate_findings, "findings finding_fields",
     "DELETE FROM findings; DELETE FROM finding_fields;"},
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
    for (i = 0; rc == 0 && i < NPASSES; i++)
        if (passes[i].clear && (rc = ls_store_guard_writes(s, passes[i].name,
                                                           passes[i].owns)) == 0)
            rc = ls_store_exec(s, passes[i].clear);
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

int ls_correlate_current(ls_store *s, ls_correlate_stats *stats, ls_progress *progress,
                         int *ran)
{
    char mark[64];
    ls_stmt *q = NULL;
    int rc;

    *ran = 0;
    if ((rc = ls_store_meta_get(s, "correlated", mark, sizeof(mark))) != 0)
        return rc;
    if (strcmp(mark, CORRELATED_MARK) != 0) {
        *ran = 1;
        rc = correlate_run(s, stats, progress);
        if (progress)
            ls_progress_end(progress);
        return rc;
    }
    memset(stats, 0, sizeof(*stats));
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
