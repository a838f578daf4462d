/*
 * store.c — the SQLite store. The only file that includes sqlite3.h.
 *
 * Writes use statements prepared once and bound per event, inside explicit
 * transactions the caller opens. Sessions are resolved here, because a
 * session is found by key in the store: the key is the PostgreSQL session
 * id (%c) when the log has it, else "pid@connection time".
 *
 * A session's row is built up in a direct-mapped cache keyed by pid (its
 * names from the prefix and "connection authorized", its start and end) and
 * written once, when its slot is reused or at commit, instead of an INSERT
 * and three UPDATEs per connection; session ids are assigned here so that
 * events can point at a session before its row is written.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "ls_buf.h"
#include "ls_store.h"
#include "ls_columns.h"
#include "ls_sqlshape.h"
#include "ls_keypack.h"
#include "ls_txcut.h"
#include "stmtstats.h"
#include "store_schema.h"
#include "store_tables.h"
#include "store_binds.h"
#include "upgrade_steps.h"

#define SESSION_CACHE 1024 /* sessions cached, in sets of SESSION_WAYS by pid */
#define SESSION_WAYS 4
#define KEY_BUCKETS 2048   /* the cached sessions by key (session_by_key) */
#define STMT_ROWS 256 /* statement rows per multi-row INSERT */
#define STMT_CARRY 768 /* rows awaiting their session's next line, at most (flush_statements) */
#define CUT_ROWS 32 /* tx_cuts rows per multi-row INSERT */
/* A tx_keys row is written once its packed keys (ls_keypack.h) reach this
 * many bytes: four such rows fill a 16 KiB page (one of 256 keys, 10 KiB,
 * took a page of its own: tx_keys was 10.2 MB for 6.5 MB of keys). */
#define KEYS_BYTES 3800
/* texts' row references (ls_sql_row_ref()) by text_id, direct-mapped:
 * more than the rows that wait to be written (STMT_ROWS + STMT_CARRY),
 * so that a text met once is still here when its row is */
#define REF_CACHE 2048
#define WORKING_CACHE_KIB "4096" /* page cache of the working tables (LS_WORKING_DDL) */
#define XID_ROWS 64   /* transaction ids per multi-row INSERT */
#define TEXT_CACHE 2048     /* statement texts remembered, direct-mapped by hash */
#define TEXT_CACHE_MAX 4096 /* longer texts are looked up in the store each time */
#define NAME_CACHE 256      /* prepared statement names remembered, by hash */
#define XID_CACHE 4096      /* transaction ids being seen, direct-mapped by xid */
#define REF_MAX 32767       /* stmt_ids back a vxid or params may point (2 bytes) */
#define PARAMS_KEPT 4096    /* longer parameter lists are stored each time */
#define PARAMS_MIN 64       /* the least a session's parameter buffer holds */
#define LOCK_POLL_MS 20     /* how often a bounded wait for the run lock tries again */
#define CLOSE_CHECKPOINT_MS 5000 /* the most ls_store_close waits for readers to flush */
#define NEW_STORE_MODE 0666 /* less the umask, as for any new file */
#define BAD_SAMPLE_MAX 300 /* bytes of a bad line kept (bad_lines.sample) */

typedef struct session_slot {
    int pid;              /* 0: empty */
    int row_pid;          /* sessions.pid of the session (a %c met under another pid) */
    int dirty;            /* holds facts not yet written */
    int64_t session_id;
    char key[64];
    char pg_session[40];
    ls_ts start_ts, end_ts, first_ts, last_ts;
    char user[64], database[64], application[64], remote[64], backend_type[32];
    /* The session's last vxid and params stored as text, and the rows
     * that hold them: a line that repeats them points there. */
    int64_t vxid_at, params_at;
    char vxid[32];
    char *params; /* owned */
    size_t params_cap; /* bytes allocated at params */
    /* The session's latest row while it waits in ls_store.rows (row_gen
     * equals the store's rows_gen): a parse line's row that its bind line
     * joins, a bind line's that its execute line joins (fold_row()). */
    int row_at;
    unsigned row_gen;
    /* What the session's previous event was, for lock_events.after_lock:
     * SLOT_UNSEEN (a slot just loaded: unknown), SLOT_OTHER or SLOT_LOCK. */
    int last_event;
    uint64_t used;  /* ls_store.slot_clock when last used: the oldest way goes */
    /* The slots whose keys hash to one bucket are chained: 1 + index of
     * the next, or 0. */
    unsigned short key_next;
    unsigned short key_bucket;
} session_slot;

enum { SLOT_UNSEEN = 0, SLOT_OTHER, SLOT_LOCK };

enum {
    Q_FILE_INSERT,
    Q_FILE_UPDATE,
    Q_FILE_LOOKUP,
    Q_BAD_LINE,
    Q_SESSION_FIND,
    Q_SESSION_LATEST,
    Q_SESSION_WRITE,
    Q_SESSION_MAX,
    Q_STATEMENT,
    Q_TEXT_FIND,
    Q_TEXT_INSERT,
    Q_NAME_FIND,
    Q_NAME_INSERT,
    Q_STMT_MAX,
    Q_LOCK_EVENT,
    Q_DEADLOCK,
    Q_DEADLOCK_EDGE,
    Q_DEADLOCK_PROC,
    Q_ERROR,
    Q_SERVER,
    Q_SPAN,
    Q_ACTIVITY,
    Q_XID,
    Q_CUT,
    Q_CUT_RELOAD,
    Q_CUT_SPILLED,
    Q_KEY,
    Q_TEXT_OF,
    Q_HAS_STMTS,
    Q_STMT_STATS_ADD,
    Q_STMT_MINUTES_ADD,
    Q__COUNT
};

/* A transaction id seen again (its slot was reused, or an earlier
 * ingest): keep where it was seen first. */
#define XID_UPSERT                                                               \
    " ON CONFLICT(xid) DO UPDATE SET session_id = excluded.session_id,"         \
    " pid = excluded.pid, first_ts = excluded.first_ts"                          \
    " WHERE excluded.first_ts < coalesce(xids.first_ts, excluded.first_ts + 1)"

/* The positions of the columns of the tables written here (store_tables.h):
 * a row is bound by column name, t__col, at parameter t__col + 1. */
LS_TABLE_COLUMNS(meta);
LS_TABLE_COLUMNS(files);
LS_TABLE_COLUMNS(bad_lines);
LS_TABLE_COLUMNS(sessions);
LS_TABLE_COLUMNS(stmt_texts);
LS_TABLE_COLUMNS(tx_cuts);
LS_TABLE_COLUMNS(tx_keys);
LS_TABLE_COLUMNS(stmt_names);
LS_TABLE_COLUMNS(stmt_rows);
LS_TABLE_COLUMNS(lock_event_rows);
LS_TABLE_COLUMNS(deadlocks);
LS_TABLE_COLUMNS(deadlock_edges);
LS_TABLE_COLUMNS(deadlock_procs);
LS_TABLE_COLUMNS(errors);
LS_TABLE_COLUMNS(server_events);
LS_TABLE_COLUMNS(spans);
LS_TABLE_COLUMNS(activity);
LS_TABLE_COLUMNS(xids);
LS_TABLE_COLUMNS(stmt_stats);
LS_TABLE_COLUMNS(stmt_minutes);

/* The parameters of the statements that are not a whole row's INSERT,
 * named (ls_params.h), each list in the order its SQL first uses them:
 * Q__name is the position store_binds.h binds (parameter Q__name + 1). */
#define FILE_UPDATE_PARAMS(X, Q)                                                           \
    X(Q, bytes) X(Q, lines) X(Q, records) X(Q, bad_lines) X(Q, first_ts) X(Q, last_ts)    \
    X(Q, fingerprint) X(Q, text_bytes) X(Q, tail_hash) X(Q, prefix) X(Q, file_id)
LS_PARAMS(fe, FILE_UPDATE_PARAMS);                         /* Q_FILE_UPDATE */
#define FILE_LOOKUP_PARAMS(X, Q) X(Q, fingerprint)
LS_PARAMS(flp, FILE_LOOKUP_PARAMS);                        /* Q_FILE_LOOKUP */
#define SESSION_FIND_PARAMS(X, Q) X(Q, key)
LS_PARAMS(sfp, SESSION_FIND_PARAMS);                       /* Q_SESSION_FIND */
#define SESSION_LATEST_PARAMS(X, Q) X(Q, pid)
LS_PARAMS(slp, SESSION_LATEST_PARAMS);                     /* Q_SESSION_LATEST */
#define TEXT_FIND_PARAMS(X, Q) X(Q, hash) X(Q, text)
LS_PARAMS(tf, TEXT_FIND_PARAMS);                           /* Q_TEXT_FIND */
#define NAME_FIND_PARAMS(X, Q) X(Q, name)
LS_PARAMS(nfp, NAME_FIND_PARAMS);                          /* Q_NAME_FIND */
#define CUT_RELOAD_PARAMS(X, Q) X(Q, session)
LS_PARAMS(crp, CUT_RELOAD_PARAMS);                         /* Q_CUT_RELOAD */
#define TEXT_OF_PARAMS(X, Q) X(Q, text_id)
LS_PARAMS(top, TEXT_OF_PARAMS);                            /* Q_TEXT_OF */
#define META_GET_PARAMS(X, Q) X(Q, key)
LS_PARAMS(mgp, META_GET_PARAMS);                           /* ls_store_meta_get */

/* The columns of the queries read by more than one column (ls_columns.h). */
#define FILE_LOOKUP_COLS(X, Q)                                                   \
    X(Q, file_id, "file_id")                                                     \
    X(Q, format, "format")                                                       \
    X(Q, prefix, "coalesce(used_prefix, prefix, '')")                            \
    X(Q, text_bytes, "text_bytes")                                               \
    X(Q, lines, "lines")                                                         \
    X(Q, tail_hash, "tail_hash")
LS_COLUMNS(fl, FILE_LOOKUP_COLS);
#define SESSION_COLS(X, Q)                                                       \
    X(Q, session_id, "session_id")                                               \
    X(Q, pid, "pid")                                                             \
    X(Q, key, "key")
LS_COLUMNS(sq, SESSION_COLS);

static const char *const query_sql[Q__COUNT] = {
    [Q_FILE_INSERT] = LS_INSERT_INTO("INSERT", files),
    [Q_FILE_UPDATE] = "UPDATE files SET bytes = :bytes, lines = :lines,"
                      " records = coalesce(records, 0) + :records,"
                      " bad_lines = coalesce(bad_lines, 0) + :bad_lines,"
                      " first_ts = min(coalesce(first_ts, :first_ts),"
                      "  coalesce(:first_ts, first_ts)),"
                      " last_ts = max(coalesce(last_ts, :last_ts), coalesce(:last_ts, last_ts)),"
                      " fingerprint = :fingerprint, text_bytes = :text_bytes,"
                      " tail_hash = :tail_hash,"
                      " used_prefix = coalesce(:prefix, used_prefix) WHERE file_id = :file_id",
    [Q_FILE_LOOKUP] = "SELECT " LS_SELECT_LIST(fl, FILE_LOOKUP_COLS)
                      " FROM files WHERE fingerprint = :fingerprint"
                      " AND text_bytes IS NOT NULL ORDER BY text_bytes DESC, file_id",
    [Q_BAD_LINE] = LS_INSERT_INTO("INSERT", bad_lines),
    [Q_SESSION_FIND] =
        "SELECT " LS_SELECT_LIST(sq, SESSION_COLS) " FROM sessions WHERE key = :key",
    [Q_SESSION_LATEST] = "SELECT " LS_SELECT_LIST(sq, SESSION_COLS)
                         " FROM sessions WHERE pid = :pid ORDER BY session_id DESC LIMIT 1",
    [Q_SESSION_WRITE] = LS_INSERT_INTO("INSERT", sessions)
                        " ON CONFLICT(session_id) DO UPDATE SET"
                        " start_ts = coalesce(sessions.start_ts, excluded.start_ts),"
                        " end_ts = coalesce(excluded.end_ts, sessions.end_ts),"
                        " user_name = coalesce(excluded.user_name, sessions.user_name),"
                        " database = coalesce(excluded.database, sessions.database),"
                        " application = coalesce(excluded.application, sessions.application),"
                        " remote = coalesce(sessions.remote, excluded.remote),"
                        " backend_type = coalesce(sessions.backend_type, excluded.backend_type),"
                        " first_ts = min(coalesce(sessions.first_ts, excluded.first_ts),"
                        "                coalesce(excluded.first_ts, sessions.first_ts)),"
                        " last_ts = max(coalesce(sessions.last_ts, excluded.last_ts),"
                        "               coalesce(excluded.last_ts, sessions.last_ts))",
    [Q_SESSION_MAX] = "SELECT coalesce(max(session_id), 0) FROM sessions",
    [Q_STATEMENT] = LS_INSERT_INTO("INSERT", stmt_rows),
    [Q_TEXT_FIND] = "SELECT text_id FROM stmt_texts WHERE hash = :hash AND text = :text",
    [Q_TEXT_INSERT] = LS_INSERT_INTO("INSERT", stmt_texts),
    [Q_NAME_FIND] = "SELECT name_id FROM stmt_names WHERE name = :name",
    [Q_NAME_INSERT] = LS_INSERT_INTO("INSERT", stmt_names),
    [Q_STMT_MAX] = "SELECT coalesce(max(stmt_id), 0) FROM stmt_rows",
    [Q_LOCK_EVENT] = LS_INSERT_INTO("INSERT", lock_event_rows),
    [Q_DEADLOCK] = LS_INSERT_INTO("INSERT", deadlocks),
    [Q_DEADLOCK_EDGE] = LS_INSERT_INTO("INSERT", deadlock_edges),
    [Q_DEADLOCK_PROC] = LS_INSERT_INTO("INSERT", deadlock_procs),
    [Q_ACTIVITY] = LS_INSERT_INTO("INSERT", activity),
    [Q_SPAN] = LS_INSERT_INTO("INSERT OR IGNORE", spans),
    [Q_XID] = LS_INSERT_INTO("INSERT", xids) XID_UPSERT,
    [Q_CUT] = LS_INSERT_INTO("INSERT OR REPLACE", tx_cuts),
    /* the session's unfinished transaction, taken back (tx_cuts_open),
     * its columns as tx_cuts has them (cut_of_row()) */
    [Q_CUT_RELOAD] = "DELETE FROM tx_cuts WHERE session_id = :session AND closed = 0"
                     " RETURNING " LS_COLUMN_NAMES(tx_cuts),
    [Q_CUT_SPILLED] = "SELECT session_id FROM tx_cuts WHERE closed = 0",
    [Q_KEY] = LS_INSERT_INTO("INSERT", tx_keys),
    /* a text whose row reference left the cache (ref_of()) */
    [Q_TEXT_OF] = "SELECT text FROM stmt_texts WHERE text_id = :text_id",
    /* whether the store holds statements of the log (not a trace's) */
    [Q_HAS_STMTS] = "SELECT 1 FROM stmt_rows WHERE verb IS NOT 5 LIMIT 1", /* LS_VERB_SPAN */
    [Q_ERROR] = LS_INSERT_INTO("INSERT", errors),
    [Q_SERVER] = LS_INSERT_INTO("INSERT", server_events),
    /* the rows written since the last commit, added to stmt_stats */
    [Q_STMT_STATS_ADD] = LS_STMT_STATS_ADD_SQL,
    /* the rows written since the last flush, by minute, added to stmt_minutes */
    [Q_STMT_MINUTES_ADD] = LS_STMT_MINUTES_ADD_SQL,
};

/* The parameters each statement takes: a table's columns for a whole
 * row's INSERT, else its own list's count. Checked when the statements are
 * prepared (ls_store_open), so that a statement's text and the names its
 * binds use cannot disagree unseen. */
static const int query_params[Q__COUNT] = {
    [Q_FILE_INSERT] = files__ncols,
    [Q_FILE_UPDATE] = fe__nparams,
    [Q_FILE_LOOKUP] = flp__nparams,
    [Q_BAD_LINE] = bad_lines__ncols,
    [Q_SESSION_FIND] = sfp__nparams,
    [Q_SESSION_LATEST] = slp__nparams,
    [Q_SESSION_WRITE] = sessions__ncols,
    [Q_SESSION_MAX] = 0,
    [Q_STATEMENT] = stmt_rows__ncols,
    [Q_TEXT_FIND] = tf__nparams,
    [Q_TEXT_INSERT] = stmt_texts__ncols,
    [Q_NAME_FIND] = nfp__nparams,
    [Q_NAME_INSERT] = stmt_names__ncols,
    [Q_STMT_MAX] = 0,
    [Q_LOCK_EVENT] = lock_event_rows__ncols,
    [Q_DEADLOCK] = deadlocks__ncols,
    [Q_DEADLOCK_EDGE] = deadlock_edges__ncols,
    [Q_DEADLOCK_PROC] = deadlock_procs__ncols,
    [Q_ERROR] = errors__ncols,
    [Q_SERVER] = server_events__ncols,
    [Q_SPAN] = spans__ncols,
    [Q_ACTIVITY] = activity__ncols,
    [Q_XID] = xids__ncols,
    [Q_CUT] = tx_cuts__ncols,
    [Q_CUT_RELOAD] = crp__nparams,
    [Q_CUT_SPILLED] = 0,
    [Q_KEY] = tx_keys__ncols,
    [Q_TEXT_OF] = top__nparams,
    [Q_HAS_STMTS] = 0,
    [Q_STMT_STATS_ADD] = stmt_stats__ncols,
    [Q_STMT_MINUTES_ADD] = stmt_minutes__ncols,
};

/* The names of a statement's named parameters (LS_PARAM_NAMES), checked
 * as ls_store_prepare_params() checks its query's; NULL: a whole row's
 * INSERT (bound by column, t__col) or a statement without parameters. */
static const char *const query_names[Q__COUNT] = {
    [Q_FILE_UPDATE] = LS_PARAM_NAMES(FILE_UPDATE_PARAMS),
    [Q_FILE_LOOKUP] = LS_PARAM_NAMES(FILE_LOOKUP_PARAMS),
    [Q_SESSION_FIND] = LS_PARAM_NAMES(SESSION_FIND_PARAMS),
    [Q_SESSION_LATEST] = LS_PARAM_NAMES(SESSION_LATEST_PARAMS),
    [Q_TEXT_FIND] = LS_PARAM_NAMES(TEXT_FIND_PARAMS),
    [Q_NAME_FIND] = LS_PARAM_NAMES(NAME_FIND_PARAMS),
    [Q_CUT_RELOAD] = LS_PARAM_NAMES(CUT_RELOAD_PARAMS),
    [Q_TEXT_OF] = LS_PARAM_NAMES(TEXT_OF_PARAMS),
};

static int params_check(ls_store *s, sqlite3_stmt *st, const char *sql, const char *names,
                        int exact);

/*
 * LOCKSPAN_TIMING=sql: the VM steps and the time of each statement, summed
 * by statement text and printed, most steps first, when the store closes.
 * A tool for finding which query of a pass is slow. Steps do not depend on
 * the machine's load; the time is SQLite's, from a statement's first step
 * to its reset, so a statement kept open while its caller works on each
 * row is charged the caller's time too. Each line names its statement by
 * an id, the hash of its pass and whole text, the same from run to run
 * and from log to log (two texts whose first 87 bytes are alike print
 * alike but have two ids). LOCKSPAN_TIMING=sql-all prints every statement,
 * not only those above the floors below (tests/e2e/check_stmt_growth.py
 * compares each statement's steps at two log sizes).
 */
#define PROFILE_SLOTS 4096 /* a whole analyze prepares a few hundred distinct texts */
#define PROFILE_MIN_NS 1000000     /* print a statement that took 1 ms or more, */
#define PROFILE_MIN_STEPS 100000   /* or this many VM steps */
typedef struct sql_profile {
    uint64_t hash, ns, runs, steps;
    const char *who; /* the pass that ran it (ls_store_guard_writes), or NULL */
    char sql[88];
} sql_profile;

struct ls_store {
    sqlite3 *db;
    int lock_fd;          /* the store file, flock()ed for the run; -1: none */
    sql_profile *profile; /* LOCKSPAN_TIMING=sql or sql-all, else NULL */
    int profile_all;      /* sql-all: print every statement, not only the costly */
    int counting_steps;   /* ls_store_vm_steps() has been called */
    int64_t vm_steps;     /* of statements that ended since the last call */
    char err[512];      /* the first error's message, kept past a ROLLBACK */
    /* ls_store_guard_writes(): who writes now and what it owns ("t" or
     * "t.col", space-separated); what it was refused, for the message. */
    const char *guard_who, *guard_owns;
    int guard_learn;
    char guard_refused[128];
    sqlite3_stmt *q[Q__COUNT];
    session_slot cache[SESSION_CACHE];
    unsigned short key_head[KEY_BUCKETS]; /* 1 + index of a slot with the key, or 0 */
    uint64_t slot_clock;
    int64_t last_session_id;
    int sorting; /* ls_store_sorting() depth */
    /* Statement rows wait here to be inserted STMT_ROWS at a time: one
     * multi-row INSERT costs far less than as many single ones. Their
     * strings belong to the caller until ls_store_detach(). */
    sqlite3_stmt *stmt_multi;
    struct stmt_row {
        int64_t stmt_id, session_id, file_id, line, xid, text_id, name_id;
        int64_t vxid_ref, params_ref; /* > 0: stored as this many rows back */
        int pid, pid_of_session, has_duration, verb;
        int kind; /* ls_sql_kind of its text */
        ls_ts start_ts, dur_us;
        ls_ts bind_us, parse_us; /* of the bind and parse lines folded in; -1: none */
        const char *vxid, *params, *prepare;
        char *owned; /* copies of them once the caller's went (ls_store_detach), or NULL */
        session_slot *slot; /* the session's, when the row was made, or NULL */
    } rows[STMT_ROWS + STMT_CARRY];
    int nrows;
    int flush_at; /* nrows at which a group may be full (flush_statements) */
    int detached; /* rows[0, detached) hold copies of their strings */
    unsigned rows_gen; /* bumped when rows[] is flushed */
    int64_t last_stmt_id; /* the stmt_id given last; -1: read it from the store */
    /* The text_id of recent statement texts, so that a text met again
     * costs a hash and a compare instead of a lookup in stmt_texts. */
    struct text_slot {
        uint64_t hash;   /* ls_quick_hash() of the text */
        int64_t text_id; /* 0: empty */
        char *text;      /* owned */
        size_t len;
        int kind;        /* ls_sql_kind of the text */
    } texts[TEXT_CACHE];
    struct name_slot {
        int64_t name_id; /* 0: empty */
        char name[64];
    } names[NAME_CACHE];
    /* xids: where each transaction id (%x) was seen first, gathered here
     * as records go by. A transaction's records are close together in the
     * log, so each id is written about once; an index on stmt_rows(xid)
     * and a GROUP BY over every statement after the load cost more than
     * the whole insert of the statements. */
    struct xid_slot {
        int64_t xid; /* 0: empty */
        int64_t session_id;
        int pid;
        ls_ts first_ts;
    } xids[XID_CACHE];
    /* Those that left the cache, inserted XID_ROWS at a time. */
    struct xid_slot xids_out[XID_ROWS];
    int nxids_out;
    sqlite3_stmt *xid_multi;
    /* Transactions cut as statement rows are written (ls_store_cuts_begin
     * to ls_store_cuts_end; NULL otherwise), and the tx_cuts rows waiting
     * to be inserted CUT_ROWS at a time. */
    ls_txcut *cut;
    int cuts_whole; /* the store's cuts cover every statement stored before */
    ls_txcut_row cuts_out[CUT_ROWS];
    int ncuts_out;
    sqlite3_stmt *cut_multi;
    /* With the cuts, each statement's row key (tx_keys, key_row()) when
     * the store's keys cover every statement stored before, packed
     * KEYS_BYTES to a row; the row reference of each write's text, decided
     * once per text while it stays here. */
    int keys_whole;
    ls_buf keys_out;
    int nkeys_out;
    int64_t keys_first; /* the least stmt_id in keys_out */
    ls_keypack_entry keys_last; /* the last entry in keys_out */
    struct ref_slot {
        int64_t text_id; /* 0: empty */
        int has;         /* ls_sql_row_ref() found one */
        ls_row_ref ref;
    } refs[REF_CACHE];
    /* The statement rows written since the last commit, counted for
     * stmt_stats (stmtstats.h), which the commit adds them to. */
    ls_stmtstats written;
    /* ... and by the minute they began, for stmt_minutes */
    ls_stmtminutes minutes;
};

struct ls_stmt {
    ls_store *store;
    sqlite3_stmt *st;
    int bind_rc; /* the first failed bind's error since the last reset: sticky,
                    returned by the next step (as SQLite's own errors are) */
    int bind_rc_sqlite; /* its SQLite result code */
};

const char *ls_store_errmsg(ls_store *s)
{
    if (!s || !s->db)
        return "no store";
    return s->err[0] ? s->err : sqlite3_errmsg(s->db);
}

/* Map an SQLite failure to an error code, keeping the first message. */
static int store_err(ls_store *s, int rc)
{
    if (s && s->db && !s->err[0]) {
        if ((rc & 0xff) == SQLITE_BUSY)
            snprintf(s->err, sizeof(s->err), "the store is in use by another process "
                     "(an sqlite3 shell writing it, or holding a transaction open); try "
                     "again when it has finished");
        else if ((rc & 0xff) == SQLITE_FULL)
            snprintf(s->err, sizeof(s->err), "%s (no space left for the store or its "
                     "temporary files)", sqlite3_errmsg(s->db));
        else
            snprintf(s->err, sizeof(s->err), "%s", sqlite3_errmsg(s->db));
    }
    if (rc == SQLITE_NOMEM)
        return LS_ENOMEM;
    return LS_ESTORE;
}

int ls_store_exec(ls_store *s, const char *sql)
{
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? 0 : store_err(s, rc);
}

static int user_version(ls_store *s, int *out)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_err(s, rc);
    rc = sqlite3_step(st);
    *out = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : store_err(s, rc);
}

/* head, then `rows` groups of `cols` parameters "(?,...,?)", then tail. */
static int prepare_multi(ls_store *s, const char *head, int rows, int cols, const char *tail,
                         sqlite3_stmt **out)
{
    ls_buf sql = LS_BUF_INIT(0);
    int r, c, rc = 0;

    ls_buf_adds(&sql, head);
    for (r = 0; r < rows; r++) {
        ls_buf_adds(&sql, r ? ",(?" : "(?");
        for (c = 1; c < cols; c++)
            ls_buf_adds(&sql, ",?");
        ls_buf_addc(&sql, ')');
    }
    ls_buf_adds(&sql, tail);
    if (ls_buf_failed(&sql))
        rc = LS_ENOMEM;
    else if (sqlite3_prepare_v3(s->db, ls_buf_str(&sql), -1, SQLITE_PREPARE_PERSISTENT, out,
                                NULL) != SQLITE_OK)
        rc = LS_ESTORE;
    ls_buf_free(&sql);
    return rc;
}

int ls_store_open(ls_store **out, const char *path, char *errbuf, size_t errlen)
{
    return ls_store_open_wait(out, path, LS_STORE_BUSY_MS, errbuf, errlen);
}

static int profile_cb(unsigned type, void *ctx, void *stmt, void *ns)
{
    ls_store *s = ctx;
    const char *sql = sqlite3_sql(stmt);
    uint64_t h, steps = 0;
    int i;

    (void)type;
    if (s->counting_steps || s->profile)
        steps = (uint32_t)sqlite3_stmt_status(stmt, SQLITE_STMTSTATUS_VM_STEP, 1);
    if (s->counting_steps)
        s->vm_steps += (int64_t)steps;
    if (!sql || !s->profile)
        return 0;
    /* summed by pass and text: the same text run by two passes is two lines */
    h = ls_fnv1a(sql, strlen(sql), LS_FNV1A_BASIS);
    if (s->guard_who)
        h = ls_fnv1a(s->guard_who, strlen(s->guard_who), h);
    for (i = 0; i < PROFILE_SLOTS; i++) {
        sql_profile *p = &s->profile[(h + (uint64_t)i) % PROFILE_SLOTS];
        if (p->runs && p->hash != h)
            continue;
        if (!p->runs) {
            char *c;
            p->hash = h;
            p->who = s->guard_who;
            snprintf(p->sql, sizeof(p->sql), "%s", sql);
            for (c = p->sql; *c; c++) /* one line each, whatever the text's layout */
                if (*c == '\n' || *c == '\t' || *c == '\r')
                    *c = ' ';
        }
        p->runs++;
        p->ns += *(sqlite3_uint64 *)ns;
        p->steps += steps;
        break;
    }
    return 0;
}

static int profile_cmp(const void *a, const void *b)
{
    const sql_profile *x = a, *y = b;
    if (x->steps != y->steps)
        return (x->steps < y->steps) - (x->steps > y->steps);
    return (x->ns < y->ns) - (x->ns > y->ns);
}

static void profile_print(ls_store *s)
{
    int i;
    qsort(s->profile, PROFILE_SLOTS, sizeof(*s->profile), profile_cmp);
    /* the statements that cost, most steps first */
    for (i = 0; i < PROFILE_SLOTS && s->profile[i].runs; i++)
        if (s->profile_all || s->profile[i].ns >= PROFILE_MIN_NS ||
            s->profile[i].steps >= PROFILE_MIN_STEPS)
            fprintf(stderr, "lockspan: sql %11llu steps %9.3f s %9llu runs  #%016llx [%s] %s\n",
                    (unsigned long long)s->profile[i].steps, (double)s->profile[i].ns / 1e9,
                    (unsigned long long)s->profile[i].runs,
                    (unsigned long long)s->profile[i].hash,
                    s->profile[i].who ? s->profile[i].who : "-", s->profile[i].sql);
}

/*
 * From schema version 8 + i to 9 + i: what to run. A step may drop views;
 * the last step makes every view of ls_schema_sql that is missing, so
 * that no step makes a view over a table a later step makes (or drops).
 * Rows stored before stay as they were.
 */
static const char *const store_upgrades[] = {
    /* 9: stmt_rows.bind_us and parse_us (the parse and bind lines a row
     * folds in) and the view's bind_ms and parse_ms: a store of version 8,
     * without folded rows, is that store */
    LS_UPGRADE_TO_9,
    /* 10: lock_events.after_lock; NULL (unknown) in rows stored before,
     * where correlation goes by the times alone */
    LS_UPGRADE_TO_10,
    /* 11: lock_events and lock_waits views of lock_event_rows and
     * lock_wait_rows, whose long pid lists are stmt_texts ids. The tables
     * are made anew (a renamed one would keep its TEXT columns, which turn
     * an id into text) and the rows copied as they were, their lists as
     * text, which the views give as they are; correlation runs again and
     * makes the waits' indexes, gone with the old table. */
    LS_UPGRADE_TO_11,
    /* 12: tx_code, lock_order and holds views of tx_code_rows, shapes,
     * lock_orders, hold_rows and hold_evidence. The tables were
     * correlation's own, made again by the next correlation: dropped, not
     * copied. */
    LS_UPGRADE_TO_12,
    /* 13: every table a correlation pass writes is declared here, none made
     * by the pass itself (issue 33's pass table: span_placement, row_cover,
     * span_clock, which holds what meta's span_clock_offset_* keys held);
     * the next correlation fills them. The table rows is the view rows of
     * row_keys and the tables of the passes after logical rows; the view
     * holds joins hold_bounds and hold_queued (made again below). */
    /* the links of waits, errors and deadlock processes in tables of
     * their own (transactions.c), joined in by lock_waits and the new
     * errors_linked; errors' and deadlock_procs' old link columns stay,
     * unread */
    /* the wait passes' side tables (event_waits, wait_chains), joined in
     * by the lock_events and lock_waits views, made again */
    LS_UPGRADE_TO_13,
    /* 14: the final holds and rows pass's hold_final, hold_final_evidence
     * and row_final, which the views holds and rows read (made again
     * below); the next correlation fills them. Transactions cut at ingest
     * (tx_cuts) and each text's kind and written relation
     * (stmt_texts.kind, writes): a store ingested before has no cuts
     * (meta holds no 'tx_cuts' = 'complete'), and the transactions pass
     * reads its statements as before. The server's own work
     * (server_events). */
    /* server_events (checkpoints, autovacuum, temporary files): a store
     * ingested before has none for its files, which meta
     * 'server_events_from_file' (the first file id read with them) tells
     * the context (reports/context.c), so that it does not say the log
     * lacks them */
    LS_UPGRADE_TO_14,
    /* 15: a learned rule's INSERT relation and column (row_rules.target,
     * target_col: decide/rule.h), which carry it to every INSERT into the
     * relation, and the statements each keyed (rule_keyed); the next
     * correlation learns the rules again. Each transaction's shape
     * (tx_code_rows.tx_shape_id, tx_shapes) and what names the paths no
     * span or tag names (path_identity): tx_code_rows is correlation's
     * own, made again (dropped, not altered: the DDL of step 12 has the
     * column now), and the view tx_code with it, which names each
     * transaction's code path under every grouping (function_path,
     * route_path, ...: the report reads them and pastes no SQL of its
     * own); the views relation_lock_rows and relation_queues are made with
     * the others. stmt_span_time (spantimes.c) and hold_range
     * (holdtimes.c), filled by the next correlation. The passes' copies
     * of a hold before hold_final are working tables of the connection
     * (LS_WORKING_DDL), no longer in the store: dropped with their
     * indexes; hold_final keeps every hold. transactions.cut_shape keeps
     * the shape of a transaction's cut for the code paths once the cuts
     * are emptied. */
    LS_UPGRADE_TO_15,
    /* 16: the statement rows counted as ingest writes them (stmt_stats:
     * complete only in a store that holds no statement yet; else the
     * "statement logging" pass counts the rows) and that pass's table
     * logcover, which the report reads (logcover_schema.h); the next
     * correlation fills it.
     * Also: each transaction's code path under every grouping, decided
     * once by the code paths pass and stored interned (path_names,
     * path_sets, tx_code_rows.path_set), which the view tx_code reads by
     * key: tx_code_rows is correlation's own, made again (dropped, not
     * altered: the DDL of steps 12 and 15 has the column now) with the
     * view; the next correlation fills them. row_queue's index by row,
     * which the report reads each hot row's queue by. */
    LS_UPGRADE_TO_16,
    /* 17: the report's summaries (summary_schema.h): the code-path
     * rankings of the "report summary" pass (src/correlate/summary.c),
     * which the next correlation fills, and ingest's statements per
     * minute (stmt_minutes: complete only in a store that holds no
     * statement yet; else the report counts the rows, as before). A
     * retry found in its request's trace is stored by its span
     * (retries.retry_span), which the view errors_linked gives: retries
     * is correlation's own, made again (dropped, not altered: the DDL of
     * step 13 has the column now) with the view. */
    LS_UPGRADE_TO_17,
    /* 18: each statement's row key as ingest decided it (tx_keys), which
     * the transactions pass reads instead of the statements of a text
     * that may lock a row. A store ingested before has none (meta holds
     * no 'tx_keys' = 'complete'), and never gets them: the pass reads
     * its statements as before. */
    LS_UPGRADE_TO_18,
    /* 19: the log position of each transaction's first statement
     * (tx_cuts.first_pos, cut by ingest; transactions.first_pos, which the
     * transactions pass finds a session's transaction at a lock message's
     * line by). A cut ingested before has none (NULL): the pass looks the
     * first statement's line up. */
    LS_UPGRADE_TO_19,
    /* 20: the span times of logged statements in stmt_span_time alone
     * (upgrade_steps.h), read through the view statements. */
    LS_UPGRADE_TO_20,
};
_Static_assert(sizeof(store_upgrades) / sizeof(store_upgrades[0]) == LS_STORE_SCHEMA_VERSION - 8,
               "a step from every version since 8 to the one written");

/* "file:PATH?immutable=1" (PATH's %, ? and # escaped), or NULL: an SQLite
 * URI to read a store that nothing can be written beside. sqlite3_free() it. */
static char *immutable_uri(const char *path)
{
    ls_buf uri = LS_BUF_INIT(0);
    char *out = NULL;
    const char *p;

    ls_buf_adds(&uri, "file:");
    for (p = path; *p; p++) {
        char esc[4];
        if (*p == '%' || *p == '?' || *p == '#') {
            snprintf(esc, sizeof(esc), "%%%02X", (unsigned char)*p);
            ls_buf_adds(&uri, esc);
        } else {
            ls_buf_addc(&uri, *p);
        }
    }
    ls_buf_adds(&uri, "?immutable=1");
    if (!ls_buf_failed(&uri))
        out = sqlite3_mprintf("%s", ls_buf_str(&uri));
    ls_buf_free(&uri);
    return out;
}

/*
 * Open `path` read-write (`create`: made when missing). A store in WAL mode
 * beside which nothing can be written (a read-only directory or file
 * system: no -shm can be made) is opened read-only and immutable instead,
 * so that a correlated store there can still be reported (the run lock
 * keeps other lockspan runs out meanwhile).
 */
static int open_db(const char *path, int create, sqlite3 **out)
{
    sqlite3_stmt *st;
    int rc = sqlite3_open_v2(path, out,
                             SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) |
                                 SQLITE_OPEN_NOMUTEX,
                             NULL);
    if (rc != SQLITE_OK || !path[0] || strcmp(path, ":memory:") == 0)
        return rc;
    rc = sqlite3_prepare_v2(*out, "SELECT count(*) FROM sqlite_master", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        sqlite3_finalize(st);
    }
    if ((rc & 0xff) != SQLITE_CANTOPEN && (rc & 0xff) != SQLITE_READONLY)
        return SQLITE_OK;
    sqlite3_close(*out);
    *out = NULL;
    {
        char *uri = immutable_uri(path);
        if (!uri)
            return SQLITE_NOMEM;
        rc = sqlite3_open_v2(uri, out, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                             NULL);
        sqlite3_free(uri);
        return rc;
    }
}

/* Bytes of a /proc/locks line read: its fields are short. */
#define LOCKS_LINE_MAX 256

/*
 * The pid of the process that holds a flock on the file of `fd`, from
 * Linux's /proc/locks ("1: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF";
 * a waiter's line has "->" after the number), or 0 when it cannot be
 * told (no /proc, another system, the holder gone meanwhile).
 */
static long flock_holder(int fd)
{
    char line[LOCKS_LINE_MAX], kind[16];
    struct stat st;
    unsigned maj, min;
    unsigned long long ino;
    long pid = 0, p;
    FILE *f;

    if (fstat(fd, &st) != 0 || !(f = fopen("/proc/locks", "re")))
        return 0;
    while (!pid && fgets(line, sizeof(line), f))
        if (!strstr(line, "->") &&
            sscanf(line, "%*d: %15s %*s %*s %ld %x:%x:%llu", kind, &p, &maj, &min, &ino) == 5 &&
            strcmp(kind, "FLOCK") == 0 && maj == major(st.st_dev) && min == minor(st.st_dev) &&
            ino == (unsigned long long)st.st_ino && p != (long)getpid())
            pid = p;
    fclose(f);
    return pid;
}

/* Take `fd`'s flock, waiting up to busy_ms (LS_STORE_WAIT_FOREVER: as long
 * as it takes): 0 when held, 1 when the time ran out, negative on error.
 * When another process holds it, `note` (if not NULL) is told once, with
 * that process's pid, before the wait. */
static int flock_wait(int fd, int busy_ms, const char *path, ls_store_wait_note note,
                      void *ctx)
{
    const struct timespec nap = {0, LOCK_POLL_MS * 1000000L};
    int waited = 0, r;

    while ((r = flock(fd, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR)
        ;
    if (r == 0) /* taken at once */
        return 0;
    if (errno != EWOULDBLOCK)
        return -1;
    if (note)
        note(ctx, path, flock_holder(fd), busy_ms);
    if (busy_ms < 0) {
        while (flock(fd, LOCK_EX) != 0)
            if (errno != EINTR)
                return -1;
        return 0;
    }
    for (;;) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            return 0;
        if (errno == EINTR)
            continue;
        if (errno != EWOULDBLOCK)
            return -1;
        if (waited >= busy_ms)
            return 1;
        nanosleep(&nap, NULL);
        waited += LOCK_POLL_MS;
    }
}

int ls_store_lock(const char *path, int busy_ms, int *out, char *errbuf, size_t errlen)
{
    return ls_store_lock_note(path, busy_ms, NULL, NULL, out, errbuf, errlen);
}

int ls_store_lock_note(const char *path, int busy_ms, ls_store_wait_note note, void *ctx,
                       int *out, char *errbuf, size_t errlen)
{
    char shown[LS_SHOWN_MAX]; /* `path` in messages */

    ls_shown(shown, sizeof(shown), path);
    *out = -1;
    for (;;) {
        struct stat held, now;
        int fd = open(path, O_RDONLY | O_CLOEXEC), r;
        if (fd < 0 && errno == ENOENT)
            fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, NEW_STORE_MODE);
        if (fd < 0) {
            snprintf(errbuf, errlen, "%s: cannot open store: %s", shown, strerror(errno));
            return LS_EIO;
        }
        if ((r = flock_wait(fd, busy_ms, path, note, ctx)) != 0) {
            if (r > 0)
                snprintf(errbuf, errlen, "%s: the store is in use by another process (waited "
                         "%d s for it); try again when the other lockspan ingest or report "
                         "has finished", shown, busy_ms / 1000);
            else
                snprintf(errbuf, errlen, "%s: cannot lock store: %s", shown, strerror(errno));
            close(fd);
            return LS_ESTORE;
        }
        /* While this run waited, analyze may have renamed a new store over
         * the name (or a user removed it): lock the file the name now holds.
         * A name that cannot be checked (not ENOENT) keeps the lock taken. */
        if (fstat(fd, &held) == 0 && stat(path, &now) == 0
                ? held.st_dev == now.st_dev && held.st_ino == now.st_ino
                : errno != ENOENT) {
            *out = fd;
            return 0;
        }
        close(fd);
    }
}

void ls_store_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* the flock goes with the last descriptor of the open file */
}

int ls_store_open_wait(ls_store **out, const char *path, int busy_ms, char *errbuf,
                       size_t errlen)
{
    return ls_store_open_note(out, path, busy_ms, NULL, NULL, errbuf, errlen);
}

int ls_store_open_note(ls_store **out, const char *path, int busy_ms, ls_store_wait_note note,
                       void *ctx, char *errbuf, size_t errlen)
{
    ls_store *s;
    int rc, ver = 0, i, tables = 0, empty = 0;
    sqlite3_stmt *st;
    char shown[LS_SHOWN_MAX]; /* `path` in messages */

    ls_shown(shown, sizeof(shown), path);
    *out = NULL;
    /*
     * Memory statistics take a global mutex on every SQLite allocation.
     * This must precede sqlite3_initialize(); once SQLite is initialised
     * the call fails harmlessly.
     */
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    s = ls_calloc(1, sizeof(*s));
    if (!s)
        return LS_ENOMEM;
    s->rows_gen = 1;
    s->flush_at = STMT_ROWS;
    ls_stmtstats_reset(&s->written);
    s->lock_fd = -1;
    /*
     * One lockspan run at a time on a store, for its whole length: an
     * ingest's session and statement ids continue the store's (read once,
     * below), a report correlates what the store holds, and either would
     * be wrong if another run wrote in between its transactions. The
     * others queue on the file's flock (not SQLite's locks, which a reader
     * about to write cannot wait on without a deadlock) as long as busy_ms
     * allows. An sqlite3 shell reads meanwhile (WAL).
     */
    if (path[0] && strcmp(path, ":memory:") != 0 &&
        (rc = ls_store_lock_note(path, busy_ms, note, ctx, &s->lock_fd, errbuf, errlen)) != 0) {
        free(s);
        return rc;
    }
    /* One connection, one thread: SQLite's own mutexes are pure cost here. */
    rc = open_db(path, 1, &s->db);
    if (rc != SQLITE_OK) {
        snprintf(errbuf, errlen, "%s: cannot open store: %s", shown,
                 s->db ? sqlite3_errmsg(s->db) : "out of memory");
        ls_store_close(s);
        return LS_ESTORE;
    }
    sqlite3_extended_result_codes(s->db, 1);
    {
        const char *t = getenv("LOCKSPAN_TIMING");
        s->profile_all = t && strcmp(t, "sql-all") == 0;
        if (t && (strcmp(t, "sql") == 0 || s->profile_all) &&
            (s->profile = calloc(PROFILE_SLOTS, sizeof(*s->profile))) != NULL)
            sqlite3_trace_v2(s->db, SQLITE_TRACE_PROFILE, profile_cb, s);
    }
    /* Another process (an sqlite3 shell) writing the store: wait for it,
     * then say so. */
    sqlite3_busy_timeout(s->db, busy_ms < 0 ? INT_MAX : busy_ms);
    /*
     * Write-ahead log with synchronous = NORMAL: a commit appends to the
     * WAL without a sync, a checkpoint syncs the WAL and then the store;
     * a power loss can lose the last commits but never corrupts the store
     * (the WAL's checksums end it at the last whole commit), and
     * ls_store_close() checkpoints, so a run that finished is on disk. A
     * run killed mid-batch leaves the last batch out. Readers (an sqlite3
     * shell) do not stop a writer. The page cache is capped so memory
     * stays flat whatever the log size. 16 KiB pages: correlation reads
     * the store out of order once it outgrows that cache, and each miss
     * copies a page (64 KiB pages made a 1 GiB pgbench log's analyze take
     * 43 s of CPU instead of 30 s; 4 KiB pages, 40 s).
     */
    /* A file with no page yet (a new store): auto_vacuum = INCREMENTAL,
     * set before the WAL writes its first page (a store made before
     * keeps none; the pragma would write it, and a read-only one cannot
     * be written). Correlation gives back the pages of the indexes it
     * drops at its end (correlate_run) instead of leaving them free. */
    if (sqlite3_prepare_v2(s->db, "PRAGMA page_count", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        empty = sqlite3_column_int64(st, 0) == 0;
    sqlite3_finalize(st); /* an error here is the next statement's too */
    st = NULL;
    rc = 0;
    if (empty)
        rc = ls_store_exec(s, "PRAGMA page_size = 16384; PRAGMA auto_vacuum = INCREMENTAL;");
    if (rc == 0)
        rc = ls_store_exec(s, "PRAGMA page_size = 16384; PRAGMA journal_mode = WAL;"
                              " PRAGMA synchronous = NORMAL;"
                              " " LS_STORE_CACHE_PRAGMA " PRAGMA temp_store = FILE;"
                              " PRAGMA foreign_keys = OFF;");
    if (rc == 0)
        rc = user_version(s, &ver);
    if (rc == 0) {
        int r = sqlite3_prepare_v2(s->db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL);
        if (r == SQLITE_OK && (r = sqlite3_step(st)) == SQLITE_ROW)
            tables = sqlite3_column_int(st, 0);
        else
            rc = store_err(s, r);
        sqlite3_finalize(st);
    }
    if (rc) {
        if ((sqlite3_errcode(s->db) & 0xff) == SQLITE_BUSY)
            snprintf(errbuf, errlen, "%s: the store is in use by another process (waited %d s"
                     " for it: an sqlite3 shell writing it?); try again when it has "
                     "finished", shown, busy_ms < 0 ? INT_MAX / 1000 : busy_ms / 1000);
        else
            snprintf(errbuf, errlen, "%s: not a usable SQLite store: %s", shown,
                     ls_store_errmsg(s));
        ls_store_close(s);
        return rc;
    }
    /* Older stores brought forward one version at a time, each step one
     * transaction (store_upgrades). */
    for (; rc == 0 && ver >= 8 && ver < LS_STORE_SCHEMA_VERSION; ver++) {
        const char *const *ddl;
        char sql[64];
        rc = ls_store_exec(s, "BEGIN IMMEDIATE");
        if (rc == 0)
            rc = ls_store_exec(s, store_upgrades[ver - 8]);
        for (ddl = ls_schema_sql; rc == 0 && ver + 1 == LS_STORE_SCHEMA_VERSION && *ddl; ddl++)
            if (strncmp(*ddl, "CREATE VIEW", 11) == 0)
                rc = ls_store_exec(s, *ddl);
        snprintf(sql, sizeof(sql), "PRAGMA user_version = %d; COMMIT;", ver + 1);
        if (rc == 0)
            rc = ls_store_exec(s, sql);
        if (rc) {
            snprintf(errbuf, errlen, "%s: cannot bring the store from schema version %d to %d: %s",
                     shown, ver, ver + 1, ls_store_errmsg(s));
            sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
            ls_store_close(s);
            return rc;
        }
    }
    if (ver != 0 && ver != LS_STORE_SCHEMA_VERSION) {
        if (ver < LS_STORE_SCHEMA_VERSION)
            snprintf(errbuf, errlen, "%s: store has schema version %d, written by an older "
                     "lockspan; this one writes version %d (statement lines stored "
                     "narrower) and cannot read it: ingest the logs again into a new "
                     "--db file", shown, ver, LS_STORE_SCHEMA_VERSION);
        else
            snprintf(errbuf, errlen, "%s: store has schema version %d, this lockspan writes "
                     "version %d; use a new --db file", shown, ver, LS_STORE_SCHEMA_VERSION);
        ls_store_close(s);
        return LS_ESTORE;
    }
    if (ver == 0 && tables > 0) {
        snprintf(errbuf, errlen, "%s: an SQLite file that is not a lockspan store; "
                 "use a new --db file", shown);
        ls_store_close(s);
        return LS_ESTORE;
    }
    if (ver == 0) {
        /* One transaction: a run killed here leaves an empty file, not a
         * store without its version. */
        char sql[64];
        const char *const *ddl;
        rc = ls_store_exec(s, "BEGIN IMMEDIATE");
        for (ddl = ls_schema_sql; rc == 0 && *ddl; ddl++)
            rc = ls_store_exec(s, *ddl);
        snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", LS_STORE_SCHEMA_VERSION);
        if (rc == 0)
            rc = ls_store_exec(s, sql);
        if (rc == 0)
            rc = ls_store_exec(s, "INSERT OR REPLACE INTO meta VALUES ('created_by', "
                                  "'lockspan " LS_VERSION "'), ('ingest', 'incomplete'),"
                                  " ('stmt_stats', 'complete'), ('stmt_minutes', 'complete')");
        rc = rc ? rc : ls_store_exec(s, "COMMIT");
        if (rc)
            sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    }
    /* Correlation's working tables, in the connection's temp database
     * (a file of its own, gone when the store is closed), its pages as
     * the store's and its page cache capped. */
    if (rc == 0)
        rc = ls_store_exec(s, "PRAGMA temp.page_size = 16384;"
                              " PRAGMA temp.cache_size = -" WORKING_CACHE_KIB ";" LS_WORKING_DDL);
    for (i = 0; rc == 0 && i < Q__COUNT; i++) {
        int r = sqlite3_prepare_v3(s->db, query_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->q[i],
                                   NULL);
        if (r != SQLITE_OK) {
            rc = store_err(s, r);
        } else if (sqlite3_bind_parameter_count(s->q[i]) != query_params[i]) {
            snprintf(s->err, sizeof(s->err), "statement %d of the store takes %d parameters, "
                     "its binds name %d (store.c, query_params)", i,
                     sqlite3_bind_parameter_count(s->q[i]), query_params[i]);
            rc = LS_ESTORE;
        } else if (query_names[i]) {
            rc = params_check(s, s->q[i], query_sql[i], query_names[i], 1);
        }
    }
    if (rc == 0)
        rc = prepare_multi(s, LS_INSERT_HEAD("INSERT OR FAIL", stmt_rows), STMT_ROWS,
                           stmt_rows__ncols, "", &s->stmt_multi);
    if (rc == 0)
        rc = prepare_multi(s, LS_INSERT_HEAD("INSERT", xids), XID_ROWS, xids__ncols, XID_UPSERT,
                           &s->xid_multi);
    if (rc == 0)
        rc = prepare_multi(s, LS_INSERT_HEAD("INSERT OR REPLACE", tx_cuts), CUT_ROWS,
                           tx_cuts__ncols, "", &s->cut_multi);
    if (rc == 0) {
        int r = sqlite3_step(s->q[Q_SESSION_MAX]);
        if (r == SQLITE_ROW)
            s->last_session_id = sqlite3_column_int64(s->q[Q_SESSION_MAX], 0);
        else
            rc = store_err(s, r);
        s->last_stmt_id = -1;
        sqlite3_reset(s->q[Q_SESSION_MAX]);
    }
    if (rc) {
        snprintf(errbuf, errlen, "%s: cannot set up store: %s", shown, ls_store_errmsg(s));
        ls_store_close(s);
        return rc;
    }
    *out = s;
    return 0;
}

void ls_store_close(ls_store *s)
{
    int i;
    if (!s)
        return;
    if (s->profile) {
        profile_print(s);
        free(s->profile);
    }
    for (i = 0; i < Q__COUNT; i++)
        sqlite3_finalize(s->q[i]);
    sqlite3_finalize(s->stmt_multi);
    sqlite3_finalize(s->xid_multi);
    sqlite3_finalize(s->cut_multi);
    ls_buf_free(&s->keys_out);
    ls_txcut_free(s->cut);
    for (i = 0; i < TEXT_CACHE; i++)
        free(s->texts[i].text);
    for (i = 0; i < SESSION_CACHE; i++)
        free(s->cache[i].params);
    for (i = 0; i < s->nrows; i++)
        free(s->rows[i].owned);
    if (s->db) {
        /* synchronous = NORMAL syncs the WAL only at a checkpoint, which
         * sqlite3_close() runs only as the last connection to the store:
         * one here, so that a run that ends has its commits on disk. A
         * reader that holds its snapshot longer than CLOSE_CHECKPOINT_MS
         * leaves the rest to the next checkpoint. */
        if (sqlite3_db_readonly(s->db, "main") == 0) {
            sqlite3_busy_timeout(s->db, CLOSE_CHECKPOINT_MS);
            (void)sqlite3_wal_checkpoint_v2(s->db, "main", SQLITE_CHECKPOINT_FULL, NULL, NULL);
        }
        sqlite3_close(s->db);
    }
    ls_store_unlock(s->lock_fd); /* after SQLite's descriptor: see ls_store_lock() */
    free(s);
}

/* IMMEDIATE: the write lock at once (waiting in the busy handler), not at
 * the first write, when a reader that became a writer could only fail. */
int ls_store_begin(ls_store *s)
{
    /* stmt_stats counts only the rows this transaction writes: what an
     * earlier one rolled back is not added */
    ls_stmtstats_reset(&s->written);
    ls_stmtminutes_reset(&s->minutes);
    return ls_store_exec(s, "BEGIN IMMEDIATE");
}

static int session_flush_all(ls_store *s);
static int flush_statements(ls_store *s, int all);
static int xid_flush_all(ls_store *s);
static int stmt_stats_write(ls_store *s);
static int stmt_minutes_write(ls_store *s);

int ls_store_commit(ls_store *s)
{
    int rc = flush_statements(s, 1);
    if (rc == 0)
        rc = session_flush_all(s);
    if (rc == 0)
        rc = xid_flush_all(s);
    if (rc == 0)
        rc = stmt_stats_write(s);
    if (rc == 0)
        rc = stmt_minutes_write(s);
    s->last_stmt_id = -1; /* correlation may add rows (spans.c) between ingests */
    return rc ? rc : ls_store_exec(s, "COMMIT");
}

/* ---- writing a row (store_binds.h binds it by column name) ---- */

/* Step the write statement of `b` to completion and reset it, its
 * parameters kept (for a statement whose every parameter is bound before
 * each step); a failed bind fails it unstepped (binds_step()). */
static int run_binds(ls_store *s, const binds *b)
{
    int rc = binds_step(b);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : store_err(s, rc);
}

/* run_binds(), then clear the parameters (NULL for the next row's
 * columns that are not bound). */
static int run(ls_store *s, const binds *b)
{
    int rc = run_binds(s, b);
    sqlite3_clear_bindings(b->st);
    return rc;
}

int ls_store_file_begin(ls_store *s, const char *path, const char *format, const char *prefix,
                        int gzip, int64_t *file_id)
{
    binds b = binds_of(s->q[Q_FILE_INSERT]);
    int rc;
    bind_text(&b, files__path, path);
    bind_text(&b, files__format, format);
    bind_text(&b, files__prefix, prefix);
    bind_int64(&b, files__gzip, gzip);
    rc = run(s, &b);
    *file_id = sqlite3_last_insert_rowid(s->db);
    return rc;
}

int ls_store_file_lookup(ls_store *s, uint64_t fingerprint, ls_file_progress *out, int max,
                         int *n)
{
    sqlite3_stmt *st = s->q[Q_FILE_LOOKUP];
    binds b = binds_of(st);
    int rc;
    *n = 0;
    bind_int64(&b, flp__fingerprint, (int64_t)fingerprint);
    for (rc = step_binds(&b); rc == SQLITE_ROW && *n < max; rc = sqlite3_step(st)) {
        ls_file_progress *p = &out[(*n)++];
        const unsigned char *fmt = sqlite3_column_text(st, fl_format);
        const unsigned char *pre = sqlite3_column_text(st, fl_prefix);
        p->file_id = sqlite3_column_int64(st, fl_file_id);
        snprintf(p->format, sizeof(p->format), "%s", fmt ? (const char *)fmt : "");
        snprintf(p->prefix, sizeof(p->prefix), "%s", pre ? (const char *)pre : "");
        p->text_bytes = (uint64_t)sqlite3_column_int64(st, fl_text_bytes);
        p->lines = (uint64_t)sqlite3_column_int64(st, fl_lines);
        p->tail_hash = (uint64_t)sqlite3_column_int64(st, fl_tail_hash);
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        rc = store_err(s, rc);
        sqlite3_reset(st);
        return rc;
    }
    sqlite3_reset(st);
    return 0;
}

int ls_store_file_end(ls_store *s, int64_t file_id, const ls_file_stats *fs)
{
    binds b = binds_of(s->q[Q_FILE_UPDATE]);
    bind_int64(&b, fe__file_id, file_id);
    bind_int64(&b, fe__bytes, (int64_t)fs->bytes);
    bind_int64(&b, fe__lines, (int64_t)fs->lines);
    bind_int64(&b, fe__records, (int64_t)fs->records);
    bind_int64(&b, fe__bad_lines, (int64_t)fs->bad_lines);
    bind_ts(&b, fe__first_ts, fs->first_ts);
    bind_ts(&b, fe__last_ts, fs->last_ts);
    if (fs->fingerprint) {
        bind_int64(&b, fe__fingerprint, (int64_t)fs->fingerprint);
        bind_int64(&b, fe__text_bytes, (int64_t)fs->text_bytes);
        bind_int64(&b, fe__tail_hash, (int64_t)fs->tail_hash);
    }
    bind_text(&b, fe__prefix, fs->prefix && fs->prefix[0] ? fs->prefix : NULL);
    return run(s, &b);
}

int ls_store_bad_line(ls_store *s, int64_t file_id, uint64_t line, const char *reason,
                      const char *text, size_t len)
{
    binds b = binds_of(s->q[Q_BAD_LINE]);
    if (len > BAD_SAMPLE_MAX)
        len = BAD_SAMPLE_MAX;
    bind_int64(&b, bad_lines__file_id, file_id);
    bind_int64(&b, bad_lines__line, (int64_t)line);
    bind_text(&b, bad_lines__reason, reason);
    /* A blob keeps invalid UTF-8 as it was; reports escape it. */
    bind_blob(&b, bad_lines__sample, text, len);
    return run(s, &b);
}

/* ---- sessions ---- */

/* Copy a name into a slot field unless it is empty or a placeholder. */
static int slot_set(char *dst, size_t n, const char *src)
{
    /* "[unknown]" (%u, %d before authentication) and "not initialized"
     * (%b of a backend that has not started) are placeholders. */
    if (!src || !src[0] || strcmp(src, "[unknown]") == 0 ||
        strcmp(src, "not initialized") == 0 || strcmp(dst, src) == 0)
        return 0;
    snprintf(dst, n, "%s", src);
    return 1;
}

/* A slot's name: NULL when empty. */
static void bind_name(binds *b, int col, const char *v)
{
    bind_text(b, col, v[0] ? v : NULL);
}

/* Write a slot's session row if it holds anything new. */
static int session_flush(ls_store *s, session_slot *slot)
{
    binds b = binds_of(s->q[Q_SESSION_WRITE]);
    if (!slot->pid || !slot->dirty)
        return 0;
    slot->dirty = 0;
    bind_int64(&b, sessions__session_id, slot->session_id);
    bind_text(&b, sessions__key, slot->key);
    bind_int64(&b, sessions__pid, slot->pid);
    bind_name(&b, sessions__pg_session, slot->pg_session);
    bind_ts(&b, sessions__start_ts, slot->start_ts);
    bind_ts(&b, sessions__end_ts, slot->end_ts);
    bind_ts(&b, sessions__first_ts, slot->first_ts);
    bind_ts(&b, sessions__last_ts, slot->last_ts);
    bind_name(&b, sessions__user_name, slot->user);
    bind_name(&b, sessions__database, slot->database);
    bind_name(&b, sessions__application, slot->application);
    bind_name(&b, sessions__remote, slot->remote);
    bind_name(&b, sessions__backend_type, slot->backend_type);
    return run(s, &b);
}

static int session_flush_all(ls_store *s)
{
    int i, rc;
    for (i = 0; i < SESSION_CACHE; i++)
        if ((rc = session_flush(s, &s->cache[i])) != 0)
            return rc;
    return 0;
}

static unsigned key_bucket(const char *key)
{
    return (unsigned)(ls_fnv1a(key, strlen(key), LS_FNV1A_BASIS) % KEY_BUCKETS);
}

/* A cached session with this key, whatever its pid, or NULL. */
static session_slot *session_by_key(ls_store *s, const char *key)
{
    unsigned i;
    for (i = s->key_head[key_bucket(key)]; i; i = s->cache[i - 1].key_next)
        if (strcmp(s->cache[i - 1].key, key) == 0)
            return &s->cache[i - 1];
    return NULL;
}

/* Point a slot at a session: one already stored (id > 0) or a new one. */
static int slot_load(ls_store *s, session_slot *slot, int pid, const char *key, int64_t id,
                     int row_pid)
{
    unsigned short self = (unsigned short)(slot - s->cache + 1), *p;
    int rc = session_flush(s, slot);
    if (rc)
        return rc;
    if (slot->pid) { /* out of its key's chain */
        for (p = &s->key_head[slot->key_bucket]; *p && *p != self; p = &s->cache[*p - 1].key_next)
            ;
        if (*p)
            *p = slot->key_next;
    }
    free(slot->params);
    memset(slot, 0, sizeof(*slot));
    slot->pid = pid;
    slot->row_pid = id > 0 ? row_pid : pid;
    slot->start_ts = slot->end_ts = slot->first_ts = slot->last_ts = LS_TS_NONE;
    snprintf(slot->key, sizeof(slot->key), "%s", key);
    slot->key_bucket = (unsigned short)key_bucket(slot->key);
    slot->key_next = s->key_head[slot->key_bucket];
    s->key_head[slot->key_bucket] = self;
    if (id > 0) {
        slot->session_id = id;
    } else {
        slot->session_id = ++s->last_session_id;
        slot->dirty = 1;
    }
    return 0;
}

/* Stored session of this key, or 0, and its pid. */
static int session_find(ls_store *s, const char *key, int64_t *out, int *pid)
{
    sqlite3_stmt *st = s->q[Q_SESSION_FIND];
    binds b = binds_of(st);
    int rc;
    bind_text(&b, sfp__key, key);
    rc = step_binds(&b);
    *out = rc == SQLITE_ROW ? sqlite3_column_int64(st, sq_session_id) : 0;
    *pid = rc == SQLITE_ROW ? sqlite3_column_int(st, sq_pid) : 0;
    sqlite3_reset(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : store_err(s, rc);
}

/*
 * The session cache is set-associative: a pid's set holds SESSION_WAYS
 * sessions, so that sessions whose pids are alike modulo the number of
 * sets (a busy server's live sessions) do not take one
 * place from each other: each retake wrote the session out, read it back
 * and lost the statement its next line was to fold into.
 */
static session_slot *cache_set(ls_store *s, int pid)
{
    return &s->cache[(unsigned)pid % (SESSION_CACHE / SESSION_WAYS) * SESSION_WAYS];
}

/* The way of `set` that holds a session of `pid` (with `key`, unless NULL). */
static session_slot *way_of(session_slot *set, int pid, const char *key)
{
    int i;
    for (i = 0; i < SESSION_WAYS; i++)
        if (set[i].pid == pid && (!key || strcmp(set[i].key, key) == 0))
            return &set[i];
    return NULL;
}

static int slot_awaits(ls_store *s, const session_slot *slot);

/* The way a session not cached goes to: an empty one, else the one used
 * longest ago among those whose latest statement awaits no line (its
 * fold would be lost), else the one used longest ago. */
static session_slot *way_free(ls_store *s, session_slot *set)
{
    session_slot *v = NULL;
    int i, busy, vbusy = 0;
    for (i = 0; i < SESSION_WAYS; i++) {
        if (!set[i].pid)
            return &set[i];
        busy = slot_awaits(s, &set[i]);
        if (!v || busy < vbusy || (busy == vbusy && set[i].used < v->used)) {
            v = &set[i];
            vbusy = busy;
        }
    }
    return v;
}

/*
 * The cache slot of the session a record belongs to, or NULL for records
 * of no process. `new_conn` is set for the first message of a connection,
 * which starts a new session for its pid when the log has no session id.
 */
static int session_of(ls_store *s, const ls_record *r, int new_conn, session_slot **out)
{
    session_slot *set = cache_set(s, r->pid), *slot = NULL;
    char key[64];
    int64_t id = 0;
    int rc, row_pid = r->pid;

    *out = NULL;
    if (r->pid <= 0)
        return 0;
    if (r->session_id && r->session_id[0]) {
        if ((slot = way_of(set, r->pid, r->session_id)) != NULL)
            goto found;
        snprintf(key, sizeof(key), "%s", r->session_id);
        if ((rc = session_find(s, key, &id, &row_pid)) != 0)
            return rc;
    } else {
        /* Without session ids a pid has one session at a time: one way. */
        slot = way_of(set, r->pid, NULL);
        if (!new_conn && slot)
            goto found;
        if (!new_conn) {
            /* Not cached: the newest stored session of this pid, if any. */
            sqlite3_stmt *st = s->q[Q_SESSION_LATEST];
            binds b = binds_of(st);
            bind_int64(&b, slp__pid, r->pid);
            rc = step_binds(&b);
            if (rc == SQLITE_ROW) {
                id = sqlite3_column_int64(st, sq_session_id);
                snprintf(key, sizeof(key), "%s", (const char *)sqlite3_column_text(st, sq_key));
            }
            sqlite3_reset(st);
            if (rc != SQLITE_ROW && rc != SQLITE_DONE)
                return store_err(s, rc);
        }
        if (!id) {
            snprintf(key, sizeof(key), "%d@%lld", r->pid,
                     (long long)(r->ts == LS_TS_NONE ? 0 : r->ts));
            /* The same connection logged twice (a duplicated line), or a
             * session begun in an earlier run: one session, not a second
             * row with its key. */
            if (slot && strcmp(slot->key, key) == 0)
                goto found;
            if ((rc = session_find(s, key, &id, &row_pid)) != 0)
                return rc;
        }
    }
    if (!id) {
        /* Not stored yet, but maybe waiting in the cache: the same %c under
         * another pid (a log read with a wrong prefix), or a key cut to the
         * slot's size. One row per key (a second was a UNIQUE error). */
        session_slot *other = session_by_key(s, key);
        if (other) {
            if ((rc = session_flush(s, other)) != 0)
                return rc;
            id = other->session_id;
            row_pid = other->row_pid;
        }
    }
    if (!slot)
        slot = way_free(s, set);
    if ((rc = slot_load(s, slot, r->pid, key, id, row_pid)) != 0)
        return rc;
    if (r->session_id)
        snprintf(slot->pg_session, sizeof(slot->pg_session), "%s", r->session_id);
found:
    slot->used = ++s->slot_clock;
    if (r->ts != LS_TS_NONE) {
        if (slot->first_ts == LS_TS_NONE || r->ts < slot->first_ts)
            slot->first_ts = r->ts;
        if (slot->last_ts == LS_TS_NONE || r->ts > slot->last_ts)
            slot->last_ts = r->ts;
        slot->dirty = 1;
    }
    /* Names the prefix carries fill what is still unknown. */
    if (!slot->user[0])
        slot->dirty |= slot_set(slot->user, sizeof(slot->user), r->user);
    if (!slot->database[0])
        slot->dirty |= slot_set(slot->database, sizeof(slot->database), r->database);
    if (!slot->application[0])
        slot->dirty |= slot_set(slot->application, sizeof(slot->application), r->application);
    if (!slot->remote[0])
        slot->dirty |= slot_set(slot->remote, sizeof(slot->remote), r->remote);
    if (!slot->backend_type[0])
        slot->dirty |= slot_set(slot->backend_type, sizeof(slot->backend_type), r->backend_type);
    if (slot->start_ts == LS_TS_NONE && r->session_start != LS_TS_NONE) {
        slot->start_ts = r->session_start;
        slot->dirty = 1;
    }
    *out = slot;
    return 0;
}

/* ---- transaction ids ---- */

/* Bind xids row `x` (at b's base). */
static void bind_xid(binds *b, const struct xid_slot *x)
{
    bind_int64(b, xids__xid, x->xid);
    bind_pos(b, xids__session_id, x->session_id);
    bind_int64(b, xids__pid, x->pid);
    bind_ts(b, xids__first_ts, x->first_ts);
}

/* Insert the ids that left the cache: XID_ROWS in one statement, fewer
 * (at a commit) one by one. */
static int xid_write(ls_store *s)
{
    int i, rc = 0, n = s->nxids_out;
    s->nxids_out = 0;
    if (n == XID_ROWS) {
        binds b = binds_of(s->xid_multi);
        for (i = 0; i < n; i++, b.base += xids__ncols)
            bind_xid(&b, &s->xids_out[i]);
        return run_binds(s, &b);
    }
    for (i = 0; i < n && rc == 0; i++) {
        binds b = binds_of(s->q[Q_XID]);
        bind_xid(&b, &s->xids_out[i]);
        rc = run_binds(s, &b);
    }
    return rc;
}

/* Slot x leaves the cache. */
static int xid_flush(ls_store *s, struct xid_slot *x)
{
    if (!x->xid)
        return 0;
    s->xids_out[s->nxids_out++] = *x;
    x->xid = 0;
    return s->nxids_out == XID_ROWS ? xid_write(s) : 0;
}

static int xid_flush_all(ls_store *s)
{
    int i, rc;
    for (i = 0; i < XID_CACHE; i++)
        if ((rc = xid_flush(s, &s->xids[i])) != 0)
            return rc;
    return xid_write(s);
}

/* A record of transaction `xid` (0: none) at `ts`: the earliest one
 * names the xid's session and pid (ties: the first in log order). */
static int xid_seen(ls_store *s, int64_t xid, int64_t sess, int pid, ls_ts ts)
{
    struct xid_slot *x;
    int rc;
    if (xid <= 0)
        return 0;
    x = &s->xids[(uint64_t)xid % XID_CACHE];
    if (x->xid == xid) {
        if (ts == LS_TS_NONE || (x->first_ts != LS_TS_NONE && x->first_ts <= ts))
            return 0;
    } else if ((rc = xid_flush(s, x)) != 0) {
        return rc;
    }
    x->xid = xid;
    x->session_id = sess;
    x->pid = pid;
    x->first_ts = ts;
    return 0;
}

/* ---- events ---- */

static void pids_text(char *out, size_t outlen, const int *pids, int n)
{
    size_t used = 0;
    int i;
    out[0] = '\0';
    for (i = 0; i < n && used + 12 < outlen; i++)
        used += (size_t)snprintf(out + used, outlen - used, i ? ",%d" : "%d", pids[i]);
}

/* Bind statement row `w` (at b's base): every column of stmt_rows. */
static void bind_statement_row(binds *b, const struct stmt_row *w)
{
    bind_int64(b, stmt_rows__stmt_id, w->stmt_id);
    bind_pos(b, stmt_rows__session_id, w->session_id);
    bind_if(b, stmt_rows__pid, !w->pid_of_session, w->pid);
    bind_int64(b, stmt_rows__file_id, w->file_id);
    bind_int64(b, stmt_rows__line, w->line);
    bind_ts(b, stmt_rows__start_ts, w->start_ts);
    bind_if(b, stmt_rows__dur_us, w->has_duration, w->dur_us);
    bind_if(b, stmt_rows__verb, w->verb >= 0, w->verb);
    bind_pos(b, stmt_rows__name_id, w->name_id);
    bind_pos(b, stmt_rows__xid, w->xid);
    if (w->vxid_ref > 0)
        bind_int64(b, stmt_rows__vxid, w->vxid_ref);
    else
        bind_text(b, stmt_rows__vxid, w->vxid);
    bind_pos(b, stmt_rows__text_id, w->text_id);
    if (w->params_ref > 0)
        bind_int64(b, stmt_rows__params, w->params_ref);
    else
        bind_text(b, stmt_rows__params, w->params);
    bind_text(b, stmt_rows__prepare, w->prepare);
    bind_if(b, stmt_rows__bind_us, w->bind_us >= 0, w->bind_us);
    bind_if(b, stmt_rows__parse_us, w->parse_us >= 0, w->parse_us);
}

/* Bind stmt_texts' kind and writes of `text` (a C string); its kind in
 * *kind. writes is the relation of the row the statement addresses by
 * key, as correlation reads it (ls_sql_row_ref(), what rowkey.c matches
 * against the hot rows), else the relation it writes. */
static void bind_text_kind(binds *b, const char *text, int *kind)
{
    ls_row_ref ref;
    *kind = (int)ls_sql_kind_of(text);
    bind_int64(b, stmt_texts__kind, *kind);
    if (*kind == LS_SQL_WRITE && ls_sql_row_ref(text, &ref) && ref.rel[0])
        bind_text_copy(b, stmt_texts__writes, ref.rel);
    else if (*kind == LS_SQL_WRITE && ls_sql_relation(text, ref.rel, sizeof(ref.rel)))
        bind_text_copy(b, stmt_texts__writes, ref.rel);
    else
        bind_null(b, stmt_texts__writes);
}

/* Text `text_id`'s row reference decided (ls_sql_row_ref()), into its
 * slot of the cache; the slot. */
static struct ref_slot *ref_fill(ls_store *s, int64_t text_id, const char *text)
{
    struct ref_slot *r = &s->refs[(uint64_t)text_id % REF_CACHE];
    if (r->text_id != text_id) {
        r->text_id = text_id;
        r->has = ls_sql_row_ref(text, &r->ref);
    }
    return r;
}

/*
 * The text_id of `text` (n bytes, ls_quick_hash qh, a C string) in
 * stmt_texts, added when new, and its ls_sql_kind in *kind (kind may be
 * NULL): decided once while the text stays in the cache, not once per
 * statement.
 */
static int text_id_hashed(ls_store *s, const char *text, size_t n, uint64_t qh, int64_t *out,
                          int *kind)
{
    struct text_slot *slot;
    binds b;
    uint64_t h;
    int rc, unused;

    *out = 0;
    if (!kind)
        kind = &unused;
    slot = &s->texts[qh % TEXT_CACHE];
    if (slot->text_id && slot->hash == qh && slot->len == n && memcmp(slot->text, text, n) == 0) {
        *out = slot->text_id;
        *kind = slot->kind;
        return 0;
    }
    /* Not in the cache: the store's own hash (FNV-1a) finds it there. */
    h = ls_fnv1a(text, n, LS_FNV1A_BASIS);
    b = binds_of(s->q[Q_TEXT_FIND]);
    bind_int64(&b, tf__hash, (int64_t)h);
    bind_text_n(&b, tf__text, text, n);
    rc = step_binds(&b);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(b.st, 0);
    sqlite3_reset(b.st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_err(s, rc);
    if (!*out) {
        b = binds_of(s->q[Q_TEXT_INSERT]);
        bind_int64(&b, stmt_texts__hash, (int64_t)h);
        bind_text_n(&b, stmt_texts__text, text, n);
        bind_text_kind(&b, text, kind);
        if ((rc = run(s, &b)) != 0)
            return rc;
        *out = sqlite3_last_insert_rowid(s->db);
    } else {
        *kind = (int)ls_sql_kind_of(text);
    }
    if (s->keys_whole && *kind == LS_SQL_WRITE)
        ref_fill(s, *out, text);
    if (n <= TEXT_CACHE_MAX) {
        char *copy = ls_malloc(n + 1);
        if (copy) { /* no copy: the text is looked up again next time */
            memcpy(copy, text, n + 1);
            free(slot->text);
            slot->text = copy;
            slot->hash = qh;
            slot->len = n;
            slot->text_id = *out;
            slot->kind = *kind;
        }
    }
    return 0;
}

/* The text_id of `text` in stmt_texts, added when new; 0 for NULL. Its
 * ls_sql_kind in *kind when kind is not NULL. */
static int text_id(ls_store *s, const char *text, int64_t *out, int *kind)
{
    size_t n;

    *out = 0;
    if (kind)
        *kind = LS_SQL_OTHER; /* the kind of no text (ls_sql_kind_of(NULL)) */
    if (!text)
        return 0;
    n = strlen(text);
    return text_id_hashed(s, text, n, ls_quick_hash(text, n), out, kind);
}

/*
 * A pid list of a lock message (holders, queue) at parameter `i`: as text
 * when short, else the text_id of the list in stmt_texts, which the
 * lock_events view reads back (LS_PIDS_OF). With a hundred sessions queued
 * for a row, each waiter's "still waiting" repeats a list of 600 bytes or
 * more, a few lists over and over.
 */
#define PIDS_INLINE_MAX 24 /* bytes: four 5-digit pids stay inline, five do not */

static int bind_pids(ls_store *s, binds *b, int col, const char *pids)
{
    int64_t id;
    int rc;

    if (strlen(pids) <= PIDS_INLINE_MAX) {
        bind_text(b, col, pids);
        return 0;
    }
    if ((rc = text_id(s, pids, &id, NULL)) != 0)
        return rc;
    bind_int64(b, col, id);
    return 0;
}

/* The name_id of a prepared statement's name in stmt_names, added when
 * new; 0 for none. */
static int name_id(ls_store *s, const char *name, int64_t *out)
{
    size_t n;
    struct name_slot *slot;
    binds b;
    int rc;

    *out = 0;
    if (!name || !name[0])
        return 0;
    n = strlen(name);
    slot = &s->names[ls_fnv1a(name, n, LS_FNV1A_BASIS) % NAME_CACHE];
    if (slot->name_id && strcmp(slot->name, name) == 0) {
        *out = slot->name_id;
        return 0;
    }
    b = binds_of(s->q[Q_NAME_FIND]);
    bind_text_n(&b, nfp__name, name, n);
    rc = step_binds(&b);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(b.st, 0);
    sqlite3_reset(b.st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_err(s, rc);
    if (!*out) {
        b = binds_of(s->q[Q_NAME_INSERT]);
        bind_text_n(&b, stmt_names__name, name, n);
        if ((rc = run(s, &b)) != 0)
            return rc;
        *out = sqlite3_last_insert_rowid(s->db);
    }
    if (n < sizeof(slot->name)) { /* a longer name is looked up each time */
        memcpy(slot->name, name, n + 1);
        slot->name_id = *out;
    }
    return 0;
}

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

/* The verb of a line that may fold into row w (fold_row): a bind line
 * into a parse line's row, an execute line into a bind line's, a bare
 * duration (LS_VERB_NONE) into a statement or execute row without one;
 * or -1. */
static int folds_next(const struct stmt_row *w)
{
    /* log_statement = 'all' with log_duration = on: the statement's line
     * when it starts, a bare "duration: X ms" line when it ends
     * (postgres.c, check_log_duration() 1). */
    if (!w->has_duration)
        return w->verb == LS_VERB_STATEMENT || w->verb == LS_VERB_EXECUTE ? LS_VERB_NONE : -1;
    if (w->verb == LS_VERB_PARSE && w->parse_us < 0)
        return LS_VERB_BIND;
    if (w->verb == LS_VERB_BIND && w->bind_us < 0)
        return LS_VERB_EXECUTE;
    return -1;
}

/* Whether row i, of rows generation `gen`, may still take its session's
 * next line in: the session's latest row, and one a line may fold into. */
static int fold_awaited(const ls_store *s, int i, unsigned gen)
{
    const struct stmt_row *w = &s->rows[i];
    return w->slot && w->slot->row_gen == gen && w->slot->row_at == i && folds_next(w) >= 0;
}

/* The session's latest statement row while it waits in rows[], or NULL. */
static struct stmt_row *latest_row(ls_store *s, const session_slot *slot)
{
    return slot && slot->row_gen == s->rows_gen && slot->row_at < s->nrows
               ? &s->rows[slot->row_at]
               : NULL;
}

/* Whether a cached session's latest statement row still waits for its
 * next line. */
static int slot_awaits(ls_store *s, const session_slot *slot)
{
    const struct stmt_row *w = latest_row(s, slot);
    return w && folds_next(w) >= 0;
}

/* ---- transactions cut as statements are written (txcut.c) ---- */

/* Bind tx_cuts row `r` (at b's base). */
static void bind_cut(binds *b, const ls_txcut_row *r)
{
    bind_int64(b, tx_cuts__first_stmt, r->first_stmt);
    bind_int64(b, tx_cuts__last_stmt, r->last_stmt);
    bind_int64(b, tx_cuts__session_id, r->session_id);
    bind_int64(b, tx_cuts__pid, r->pid);
    bind_pos(b, tx_cuts__xid, r->xid);
    bind_text(b, tx_cuts__vxid, r->vxid[0] ? r->vxid : NULL);
    bind_int64(b, tx_cuts__explicit, r->explicit_tx);
    bind_int64(b, tx_cuts__closed, r->closed);
    bind_int64(b, tx_cuts__end_kind, (int64_t)r->end);
    bind_int64(b, tx_cuts__start_ts, r->start_ts);
    bind_int64(b, tx_cuts__end_ts, r->end_ts);
    bind_int64(b, tx_cuts__statements, r->statements);
    if (r->durations) {
        bind_double(b, tx_cuts__sql_ms, r->sql_ms);
        bind_double(b, tx_cuts__idle_ms, r->idle_ms);
        bind_double(b, tx_cuts__max_idle_ms, r->max_idle_ms);
        bind_double(b, tx_cuts__commit_ms, r->commit_ms);
    } else {
        bind_null(b, tx_cuts__sql_ms);
        bind_null(b, tx_cuts__idle_ms);
        bind_null(b, tx_cuts__max_idle_ms);
        bind_null(b, tx_cuts__commit_ms);
    }
    bind_int64(b, tx_cuts__shape, (int64_t)r->shape);
    bind_pos(b, tx_cuts__first_pos, r->first_pos);
}

/* The tx_cuts row that statement `st` is at, its columns tx_cuts' own in
 * their order (LS_COLUMN_NAMES(tx_cuts)), as bind_cut() wrote it. */
static void cut_of_row(sqlite3_stmt *st, ls_txcut_row *r)
{
    const unsigned char *v = sqlite3_column_text(st, tx_cuts__vxid);
    memset(r, 0, sizeof(*r));
    r->first_stmt = sqlite3_column_int64(st, tx_cuts__first_stmt);
    r->last_stmt = sqlite3_column_int64(st, tx_cuts__last_stmt);
    r->session_id = sqlite3_column_int64(st, tx_cuts__session_id);
    r->pid = sqlite3_column_int64(st, tx_cuts__pid);
    r->xid = sqlite3_column_int64(st, tx_cuts__xid);
    if (v)
        snprintf(r->vxid, sizeof(r->vxid), "%s", (const char *)v);
    r->explicit_tx = sqlite3_column_int(st, tx_cuts__explicit);
    r->closed = sqlite3_column_int(st, tx_cuts__closed);
    r->end = (ls_txcut_end)sqlite3_column_int(st, tx_cuts__end_kind);
    r->start_ts = sqlite3_column_int64(st, tx_cuts__start_ts);
    r->end_ts = sqlite3_column_int64(st, tx_cuts__end_ts);
    r->prev_end = r->end_ts; /* the last statement's end, as tx_add() keeps it */
    r->statements = sqlite3_column_int64(st, tx_cuts__statements);
    r->durations = sqlite3_column_type(st, tx_cuts__sql_ms) != SQLITE_NULL;
    r->sql_ms = sqlite3_column_double(st, tx_cuts__sql_ms);
    r->idle_ms = sqlite3_column_double(st, tx_cuts__idle_ms);
    r->max_idle_ms = sqlite3_column_double(st, tx_cuts__max_idle_ms);
    r->commit_ms = sqlite3_column_double(st, tx_cuts__commit_ms);
    r->shape = (uint64_t)sqlite3_column_int64(st, tx_cuts__shape);
    r->first_pos = sqlite3_column_int64(st, tx_cuts__first_pos); /* NULL: 0 */
}

/* Insert the waiting tx_cuts rows. */
static int cuts_write(ls_store *s)
{
    int i = 0, k, rc = 0;
    for (; i + CUT_ROWS <= s->ncuts_out && rc == 0; i += CUT_ROWS) {
        binds b = binds_of(s->cut_multi);
        for (k = 0; k < CUT_ROWS; k++, b.base += tx_cuts__ncols)
            bind_cut(&b, &s->cuts_out[i + k]);
        rc = run_binds(s, &b);
    }
    for (; i < s->ncuts_out && rc == 0; i++) {
        binds b = binds_of(s->q[Q_CUT]);
        bind_cut(&b, &s->cuts_out[i]);
        rc = run_binds(s, &b);
    }
    s->ncuts_out = 0;
    return rc;
}

/* ls_txcut_emit_fn: a transaction cut, to tx_cuts CUT_ROWS at a time. */
static int cut_emit(void *ctx, const ls_txcut_row *row)
{
    ls_store *s = ctx;
    s->cuts_out[s->ncuts_out++] = *row;
    return s->ncuts_out == CUT_ROWS ? cuts_write(s) : 0;
}

/* ls_txcut_reload_fn: the session's unfinished transaction, still waiting
 * here or in tx_cuts, taken out. */
static int cut_reload(void *ctx, int64_t session, ls_txcut_row *out, int *found)
{
    ls_store *s = ctx;
    sqlite3_stmt *st = s->q[Q_CUT_RELOAD];
    binds b = binds_of(st);
    int i, rc;

    *found = 0;
    for (i = 0; i < s->ncuts_out; i++)
        if (!s->cuts_out[i].closed && s->cuts_out[i].session_id == session) {
            *out = s->cuts_out[i];
            memmove(&s->cuts_out[i], &s->cuts_out[i + 1],
                    (size_t)(s->ncuts_out - i - 1) * sizeof(s->cuts_out[0]));
            s->ncuts_out--;
            *found = 1;
            return 0;
        }
    bind_int64(&b, crp__session, session);
    for (rc = step_binds(&b); rc == SQLITE_ROW; rc = sqlite3_step(st)) { /* one at most */
        cut_of_row(st, out);
        *found = 1;
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : store_err(s, rc);
}

/* ---- each statement's row key, as the transactions pass reads it ---- */

/* Insert the waiting row keys (one tx_keys row). */
static int keys_write(ls_store *s)
{
    binds b;
    int rc;
    if (!s->nkeys_out)
        return 0;
    if (ls_buf_failed(&s->keys_out))
        return LS_ENOMEM;
    b = binds_of(s->q[Q_KEY]);
    bind_int64(&b, tx_keys__first_stmt, s->keys_first);
    bind_int64(&b, tx_keys__n, s->nkeys_out);
    bind_text_n(&b, tx_keys__keys, s->keys_out.ptr, s->keys_out.len);
    rc = run_binds(s, &b);
    ls_buf_reset(&s->keys_out);
    s->nkeys_out = 0;
    return rc;
}

/* The row key of statement row `w` (ls_sql_stmt_key(): what the
 * transactions pass read of the statement before schema 18) into *k; 1
 * when it has one, 0 when not, below 0 a store error. A write's text is
 * parsed once while its row reference stays in the cache (ref_fill());
 * a PREPAREd statement's text is read back (EXECUTE: rare). */
static int key_of_row(ls_store *s, const struct stmt_row *w, ls_keypack_entry *k)
{
    struct ref_slot *r = &s->refs[(uint64_t)w->text_id % REF_CACHE];
    sqlite3_stmt *st;
    binds b;
    int rc, found = 0;

    if (w->kind == LS_SQL_BEGIN || w->kind == LS_SQL_COMMIT || w->kind == LS_SQL_ROLLBACK ||
        w->text_id <= 0 || (w->kind != LS_SQL_WRITE && !w->prepare))
        return 0;
    if (!w->prepare && r->text_id == w->text_id)
        return ls_sql_stmt_key(NULL, r->has ? &r->ref : NULL, w->params, NULL, k->rel,
                               sizeof(k->rel), k->key, sizeof(k->key));
    st = s->q[Q_TEXT_OF];
    b = binds_of(st);
    bind_int64(&b, top__text_id, w->text_id);
    rc = step_binds(&b);
    if (rc == SQLITE_ROW) {
        const char *text = (const char *)sqlite3_column_text(st, 0);
        if (w->prepare)
            found = ls_sql_stmt_key(text, NULL, w->params, w->prepare, k->rel, sizeof(k->rel),
                                    k->key, sizeof(k->key));
        else
            found = ls_sql_stmt_key(NULL,
                                    ref_fill(s, w->text_id, text ? text : "")->has ? &r->ref
                                                                                    : NULL,
                                    w->params, NULL, k->rel, sizeof(k->rel), k->key,
                                    sizeof(k->key));
    }
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_err(s, rc);
    return found;
}

/* Statement row `w`'s row key, when it has one, to tx_keys. */
static int key_row(ls_store *s, const struct stmt_row *w)
{
    ls_keypack_entry e;
    int rc = key_of_row(s, w, &e);
    if (rc <= 0 || !e.rel[0]) /* a key has its relation (ls_sql_row_ref()) */
        return rc;
    e.stmt_id = w->stmt_id;
    e.session_id = w->session_id;
    /* as the pass read the statement row: a NULL start as 0, the end
     * start_ts + dur_us */
    e.start_ts = w->start_ts == LS_TS_NONE ? 0 : w->start_ts;
    e.has_end = w->has_duration && w->start_ts != LS_TS_NONE;
    e.end_ts = e.has_end ? w->start_ts + w->dur_us : 0;
    e.file_id = w->file_id;
    e.line = w->line;
    if (!s->nkeys_out || w->stmt_id < s->keys_first)
        s->keys_first = w->stmt_id;
    if ((rc = ls_keypack_add(&s->keys_out, s->nkeys_out ? &s->keys_last : NULL, &e)) != 0)
        return rc;
    s->keys_last = e;
    s->nkeys_out++;
    return s->keys_out.len >= KEYS_BYTES ? keys_write(s) : 0;
}

/* Feed the cut with statement row `w`, final: a parse or bind line that
 * stayed a row of its own is a step of the statement its execute line
 * ran, not a statement (the transactions pass skips them too). */
static int cut_row(ls_store *s, const struct stmt_row *w)
{
    ls_txcut_stmt st;
    if (w->session_id <= 0 || w->verb == LS_VERB_PARSE || w->verb == LS_VERB_BIND)
        return 0;
    st.stmt_id = w->stmt_id;
    st.session_id = w->session_id;
    st.pid = w->pid;
    st.xid = w->xid > 0 ? w->xid : 0;
    st.start_ts = w->start_ts == LS_TS_NONE ? 0 : w->start_ts; /* the pass read NULL as 0 */
    st.has_dur = w->has_duration;
    st.dur_us = w->dur_us;
    st.vxid = w->vxid;
    st.kind = w->kind;
    st.text_id = w->text_id;
    st.pos = ls_log_pos(w->file_id, w->line);
    if (s->keys_whole) {
        int rc = key_row(s, w);
        if (rc != 0)
            return rc;
    }
    return ls_txcut_feed(s->cut, &st);
}

int ls_store_cuts_begin(ls_store *s)
{
    char state[32];
    sqlite3_stmt *st;
    int rc, has_stmts;

    if (s->cut)
        return 0;
    if ((rc = ls_store_meta_get(s, "tx_cuts", state, sizeof(state))) != 0)
        return rc;
    st = s->q[Q_HAS_STMTS];
    rc = sqlite3_step(st);
    has_stmts = rc == SQLITE_ROW;
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_err(s, rc);
    /* Statements stored without cuts (an older lockspan, --retention):
     * the cuts would miss their transactions' beginnings, so none are
     * made; the transactions pass reads the statements. */
    s->cuts_whole = !has_stmts || strcmp(state, "complete") == 0;
    if ((rc = ls_store_meta_set(s, "tx_cuts", "incomplete")) != 0)
        return rc;
    /* The same for the row keys (tx_keys): a store ingested before
     * schema 18 has cuts but none of them, and never gets them. */
    if ((rc = ls_store_meta_get(s, "tx_keys", state, sizeof(state))) != 0)
        return rc;
    s->keys_whole = s->cuts_whole && (!has_stmts || strcmp(state, "complete") == 0);
    if ((rc = ls_store_meta_set(s, "tx_keys", "incomplete")) != 0 || !s->cuts_whole)
        return rc;
    if (!(s->cut = ls_txcut_new(cut_emit, cut_reload, s)))
        return LS_ENOMEM;
    st = s->q[Q_CUT_SPILLED];
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        ls_txcut_spilled(s->cut, sqlite3_column_int64(st, 0));
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : store_err(s, rc);
}

int ls_store_cuts_end(ls_store *s)
{
    int rc;
    if (!s->cut)
        return 0;
    if ((rc = flush_statements(s, 1)) == 0 && (rc = ls_txcut_flush(s->cut)) == 0 &&
        (rc = cuts_write(s)) == 0 && (rc = keys_write(s)) == 0)
        rc = ls_store_meta_set(s, "tx_cuts", "complete");
    if (rc == 0 && s->keys_whole)
        rc = ls_store_meta_set(s, "tx_keys", "complete");
    ls_txcut_free(s->cut);
    s->cut = NULL;
    s->keys_whole = 0;
    return rc;
}

int ls_store_cuts_consumed(ls_store *s)
{
    char state[32];
    int rc;
    /* a store without the key (ingested before it had cuts) stays so */
    if ((rc = ls_store_meta_get(s, "tx_cuts", state, sizeof(state))) != 0 || !state[0])
        return rc;
    return ls_store_meta_set(s, "tx_cuts", "consumed");
}

/* The statement rows counted since the last commit added to stmt_stats,
 * in the transaction that wrote them (a run killed before its commit
 * loses both). */
static int stmt_stats_write(ls_store *s)
{
    const ls_stmtstats *d = &s->written;
    binds b = binds_of(s->q[Q_STMT_STATS_ADD]);
    int rc;

    if (!ls_stmtstats_pending(d))
        return 0;
    bind_int64(&b, stmt_stats__id, 0); /* the one row */
    bind_int64(&b, stmt_stats__statements, d->statements);
    bind_int64(&b, stmt_stats__timed, d->timed);
    bind_if(&b, stmt_stats__min_dur_us, d->timed > 0, d->min_dur_us);
    bind_int64(&b, stmt_stats__tx_control, d->tx_control);
    rc = run(s, &b);
    ls_stmtstats_reset(&s->written);
    return rc;
}

/* The statement rows counted by minute since the last write added to
 * stmt_minutes, in the transaction that wrote them; then none is. */
static int stmt_minutes_write(ls_store *s)
{
    ls_stmtminutes *m = &s->minutes;
    int i, rc = 0;

    for (i = 0; i < m->n && rc == 0; i++) {
        binds b = binds_of(s->q[Q_STMT_MINUTES_ADD]);
        bind_int64(&b, stmt_minutes__minute, m->minute[i]);
        bind_int64(&b, stmt_minutes__statements, m->statements[i]);
        rc = run(s, &b);
    }
    ls_stmtminutes_reset(m);
    return rc;
}

/* qsort() order of statement rows: by stmt_id */
static int by_stmt_id(const void *a, const void *b)
{
    int64_t x = (*(struct stmt_row *const *)a)->stmt_id, y = (*(struct stmt_row *const *)b)->stmt_id;
    return (x > y) - (x < y);
}

/*
 * Insert waiting statement rows: all of them (`all`), or one group of the
 * STMT_ROWS oldest that no later line can join. The rows that await their
 * session's next line (fold_awaited) stay, as long as there is room for
 * them: a parse line's row is still here when its bind line comes,
 * however many lines of other sessions and other files (-j) come between,
 * as when a statement waited for a lock between its bind and its execute.
 * Which lines fold does not depend on where a group ends.
 */
static int flush_statements(ls_store *s, int all)
{
    int i, k, rc = 0, n = s->nrows, nout = 0, nkeep = 0, free_rows = 0, detached = 0;
    unsigned gen = s->rows_gen;
    struct stmt_row *out[STMT_ROWS + STMT_CARRY];
    unsigned char stays[STMT_ROWS + STMT_CARRY]; /* 0 free, 1 awaited, 2 in the group */

    for (i = 0; i < n; i++) {
        stays[i] = !all && fold_awaited(s, i, gen);
        free_rows += !stays[i];
    }
    if (!all && free_rows < STMT_ROWS && n < STMT_ROWS + STMT_CARRY) {
        /* not a group yet: try again when there can be one */
        s->flush_at = min_int(n + STMT_ROWS - free_rows, STMT_ROWS + STMT_CARRY);
        return 0;
    }
    /* the group: the oldest free rows, and the oldest awaited ones when the
     * buffer is full of them */
    for (i = 0; i < n; i++)
        if (all || (!stays[i] && nout < STMT_ROWS))
            out[nout++] = &s->rows[i], stays[i] = 2;
    for (i = 0; i < n && nout < STMT_ROWS && !all; i++)
        if (stays[i] == 1)
            out[nout++] = &s->rows[i], stays[i] = 2;
    /* In stmt_id order: a row folded into took a later id than rows after
     * it here, and the table's b-tree appends (its last page filled and
     * a new one begun) where it would otherwise split pages. */
    qsort(out, (size_t)nout, sizeof(out[0]), by_stmt_id);
    /* bind_statement_row() binds every column */
    for (i = 0; i + STMT_ROWS <= nout && rc == 0; i += STMT_ROWS) {
        binds b = binds_of(s->stmt_multi);
        for (k = 0; k < STMT_ROWS; k++, b.base += stmt_rows__ncols)
            bind_statement_row(&b, out[i + k]);
        rc = run_binds(s, &b);
    }
    for (; i < nout && rc == 0; i++) {
        binds b = binds_of(s->q[Q_STATEMENT]);
        bind_statement_row(&b, out[i]);
        rc = run_binds(s, &b);
    }
    /* Counted once, as written (stmt_stats, added to at the commit). */
    for (i = 0; i < nout && rc == 0; i++) {
        ls_stmtstats_add(&s->written, out[i]->verb, out[i]->has_duration, out[i]->dur_us,
                         out[i]->kind);
        if (ls_stmtminutes_add(&s->minutes, out[i]->start_ts))
            rc = stmt_minutes_write(s);
    }
    /* Final now (no line folds into them any more), in stmt_id order:
     * each session's in log order, as the cut needs them. */
    for (i = 0; i < nout && rc == 0 && s->cut; i++)
        rc = cut_row(s, out[i]);
    for (i = 0; i < nout; i++) {
        free(out[i]->owned);
        out[i]->owned = NULL;
    }
    /* The rows that stay move to the front, in their order, their sessions
     * pointing at them where they did; the others' no longer wait here. */
    if (++s->rows_gen == 0)
        s->rows_gen = 1; /* 0 is a new slot's: never current */
    free_rows = 0;
    for (i = 0; i < n; i++) {
        struct stmt_row *w = &s->rows[i];
        if (stays[i] == 2)
            continue;
        if (w->slot && w->slot->row_gen == gen && w->slot->row_at == i) {
            w->slot->row_gen = s->rows_gen;
            w->slot->row_at = nkeep;
        }
        free_rows += !stays[i];
        detached += i < s->detached;
        if (nkeep != i)
            s->rows[nkeep] = *w;
        nkeep++;
    }
    s->nrows = nkeep;
    s->detached = detached;
    s->flush_at = min_int(nkeep + STMT_ROWS - free_rows, STMT_ROWS + STMT_CARRY);
    return rc;
}

/* Row w's strings copied into a block of its own: 0, or LS_ENOMEM. */
static int detach_row(struct stmt_row *w)
{
    const char **f[3] = {&w->vxid, &w->params, &w->prepare};
    size_t len[3], total = 0;
    char *block, *p;
    int k;

    for (k = 0; k < 3; k++)
        total += len[k] = *f[k] ? strlen(*f[k]) + 1 : 0;
    if (total == 0) {
        free(w->owned);
        w->owned = NULL;
        return 0;
    }
    if (!(block = ls_malloc(total)))
        return LS_ENOMEM;
    for (p = block, k = 0; k < 3; k++)
        if (len[k]) {
            memcpy(p, *f[k], len[k]);
            *f[k] = p;
            p += len[k];
        }
    free(w->owned); /* after the copy: it may have been the source */
    w->owned = block;
    return 0;
}

/*
 * The caller's memory behind the waiting rows' strings is about to go:
 * each row takes a copy of its own (one block), and the rows wait on for a
 * group of STMT_ROWS. A line then joins the row of the line before it
 * (fold_row) wherever the caller's batches end, and the store does not
 * depend on them. Rows copied at an earlier call are not copied again
 * (a caller may detach after every event). Without memory for a copy, the
 * rows are written now.
 */
int ls_store_detach(ls_store *s)
{
    int i;

    for (i = s->detached; i < s->nrows; i++)
        if (detach_row(&s->rows[i]) != 0)
            return flush_statements(s, 1);
    s->detached = s->nrows;
    return 0;
}

static int verb_code(const char *verb)
{
    switch (verb[0]) { /* one compare a statement line */
    case 'e': return strcmp(verb, "execute") == 0 ? LS_VERB_EXECUTE : -1;
    case 'b': return strcmp(verb, "bind") == 0 ? LS_VERB_BIND : -1;
    case 'p': return strcmp(verb, "parse") == 0 ? LS_VERB_PARSE : -1;
    case 's': return strcmp(verb, "statement") == 0 ? LS_VERB_STATEMENT : -1;
    case '\0': return LS_VERB_NONE;
    default: return -1; /* stored as NULL */
    }
}

/*
 * vxid and params: the number of rows back to the session's row that holds
 * the same text, or 0 when this row stores it (and holds it for the next
 * ones). A reference costs one or two bytes.
 */
static int64_t vxid_ref(session_slot *slot, int64_t stmt_id, const char *v)
{
    size_t n;
    if (!v)
        return 0;
    n = strlen(v);
    if (slot->vxid_at && stmt_id - slot->vxid_at <= REF_MAX && n > 2 &&
        strcmp(slot->vxid, v) == 0)
        return stmt_id - slot->vxid_at;
    slot->vxid_at = 0;
    if (n < sizeof(slot->vxid)) {
        memcpy(slot->vxid, v, n + 1);
        slot->vxid_at = stmt_id;
    }
    return 0;
}

static int64_t params_ref(session_slot *slot, int64_t stmt_id, const char *p)
{
    size_t n;
    if (!p)
        return 0;
    n = strlen(p);
    if (slot->params_at && stmt_id - slot->params_at <= REF_MAX && n > 2 &&
        strcmp(slot->params, p) == 0)
        return stmt_id - slot->params_at;
    /* not kept (too long, or no memory): the next line stores its own.
     * The buffer is reused: nearly every line has other parameters. */
    slot->params_at = 0;
    if (n > PARAMS_KEPT)
        return 0;
    if (n + 1 > slot->params_cap) {
        size_t cap = n + 1 > PARAMS_MIN ? n + 1 : PARAMS_MIN;
        char *q = ls_malloc(cap);
        if (!q)
            return 0;
        free(slot->params);
        slot->params = q;
        slot->params_cap = cap;
    }
    memcpy(slot->params, p, n + 1);
    slot->params_at = stmt_id;
    return 0;
}

static int same_text(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/*
 * With extended-protocol statements logged by duration, a statement is
 * two or three lines in a row of its session: "parse S: text" (when it is
 * prepared), "bind S: text" with its parameters, "execute S: text" with
 * the same. The later line joins the row of the earlier one while that
 * row still waits in ls_store.rows: the row becomes the later line's (its
 * stmt_id, line, times, verb and xid) and keeps the earlier line's
 * duration in parse_us or bind_us. Of the earlier line only its own line
 * number and time are lost: it has the same session, process, file,
 * statement name and text, vxid, parameters (none on a parse line) and no
 * other xid. The execute line of a statement that ended its transaction
 * (COMMIT, END, ROLLBACK) is logged after the end: no xid and vxid "B/0"
 * where its bind line showed the transaction's "B/n" and xid; it joins too,
 * and the row keeps the transaction's xid and vxid (tx_ended()). A line
 * that does not join (a bind whose execute failed, lines split by a flush)
 * is a row of its own. Returns the row joined, or NULL.
 */
/* Whether vxid `after` ("B/0") is the end of the transaction `before`
 * ("B/n", n not 0) of the same backend B. */
static int tx_ended(const char *before, const char *after)
{
    const char *slash = before ? strchr(before, '/') : NULL;
    size_t n = slash ? (size_t)(slash - before) + 1 : 0;

    return slash && after && strncmp(before, after, n) == 0 && strcmp(after + n, "0") == 0 &&
           strcmp(slash + 1, "0") != 0;
}

static struct stmt_row *fold_row(ls_store *s, session_slot *slot, int64_t file_id,
                                 const ls_record *r, const ls_statement_ev *m, int verb,
                                 int64_t text_id, int64_t name_id, const char *vxid,
                                 const char *prepare, int *ended)
{
    struct stmt_row *w;
    int same_vxid;

    *ended = 0;
    if ((w = latest_row(s, slot)) == NULL || verb < 0 || folds_next(w) != verb)
        return NULL;
    if (verb == LS_VERB_NONE) {
        /* A bare duration: its statement's row, of the same process, file
         * and session, logged before it. */
        if ((m->text && m->text[0]) || (m->name && m->name[0]) ||
            w->session_id != slot->session_id || w->file_id != file_id || w->pid != r->pid ||
            (int64_t)r->line <= w->line)
            return NULL;
        return w;
    }
    same_vxid = same_text(w->vxid, vxid);
    *ended = !same_vxid && verb == LS_VERB_EXECUTE && r->xid == 0 && tx_ended(w->vxid, vxid);
    if (w->session_id != slot->session_id || w->file_id != file_id ||
        w->pid != r->pid || w->text_id != text_id || w->name_id != name_id || w->prepare ||
        prepare || (w->xid > 0 && w->xid != r->xid && !*ended) || (int64_t)r->line <= w->line ||
        !(same_vxid || *ended))
        return NULL;
    if (verb == LS_VERB_EXECUTE ? !same_text(w->params, m->params) : w->params != NULL)
        return NULL;
    return w;
}

static int store_statement(ls_store *s, int64_t file_id, session_slot *slot,
                           const ls_event *ev)
{
    const ls_record *r = ev->rec;
    const ls_statement_ev *m = &ev->u.stmt;
    struct stmt_row *w;
    int64_t sess = slot ? slot->session_id : 0, text, name;
    const char *vxid = r->vxid && r->vxid[0] ? r->vxid : NULL, *prepare;
    int rc, verb = verb_code(m->verb), has_duration = ev->kind == LS_EV_DURATION, ended;
    int kind;

    /* The parsing thread hashed the text (handoff.c); a caller that did
     * not hand the event over left text_hash 0. */
    if ((rc = m->text && m->text_hash ? text_id_hashed(s, m->text, m->text_len, m->text_hash,
                                                       &text, &kind)
                                      : text_id(s, m->text, &text, &kind)) != 0 ||
        (rc = name_id(s, m->name, &name)) != 0 ||
        (rc = xid_seen(s, r->xid, sess, r->pid, r->ts)) != 0)
        return rc;
    /* EXECUTE of an SQL-level prepared statement: DETAIL "prepare: PREPARE
     * name(...) AS ..." carries the text the key is read from. */
    prepare = r->detail && strncmp(r->detail, "prepare: ", 9) == 0 ? r->detail + 9 : NULL;
    if (has_duration &&
        (w = fold_row(s, slot, file_id, r, m, verb, text, name, vxid, prepare, &ended)) != NULL) {
        /* The row takes the new line's place in log order, its stmt_id:
         * references from it reach as far back again, and the session's
         * next lines refer to it where they referred to its old id. No
         * other row refers to that id: it was the session's latest. */
        int64_t old = w->stmt_id, id = ++s->last_stmt_id;
        w->stmt_id = id;
        if (w->vxid_ref > 0 && (w->vxid_ref += id - old) > REF_MAX)
            w->vxid_ref = vxid_ref(slot, id, w->vxid); /* too far: the text again */
        else if (w->vxid_ref == 0 && slot->vxid_at == old)
            slot->vxid_at = id;
        if (w->params_ref > 0 && (w->params_ref += id - old) > REF_MAX)
            w->params_ref = params_ref(slot, id, w->params);
        else if (w->params_ref == 0 && w->params && slot->params_at == old)
            slot->params_at = id;
        if (verb == LS_VERB_NONE) {
            /* The row becomes what "duration: X ms  statement: ..." would
             * have been: written at the end, with the statement's verb,
             * vxid and parameters, and the xid the statement took. */
            w->has_duration = 1;
            verb = w->verb;
            if (r->xid > 0)
                w->xid = r->xid;
            ended = 1;
        } else if (verb == LS_VERB_EXECUTE) {
            w->bind_us = w->dur_us;
        } else {
            w->parse_us = w->dur_us;
            /* The parse line had no parameters; the bind line's go in the
             * row as any line's would. */
            w->params = m->params;
            w->params_ref = params_ref(slot, id, w->params);
        }
        w->verb = verb;
        w->line = (int64_t)r->line;
        if (!ended)
            w->xid = r->xid;
        w->dur_us = (ls_ts)(m->duration_ms * 1000.0 + 0.5);
        w->start_ts = r->ts == LS_TS_NONE ? LS_TS_NONE : r->ts - w->dur_us;
        /* A row that holds copies took the caller's parameters: copy them
         * now (the caller's memory is good until this returns). */
        if (verb == LS_VERB_BIND && slot->row_at < s->detached && detach_row(w) != 0)
            return flush_statements(s, 1);
        return 0;
    }
    if (s->last_stmt_id < 0) {
        /* stmt_ids are given here, so that a row can point back at another */
        sqlite3_stmt *st = s->q[Q_STMT_MAX];
        rc = sqlite3_step(st);
        s->last_stmt_id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
        sqlite3_reset(st);
        if (rc != SQLITE_ROW)
            return store_err(s, rc);
    }
    w = &s->rows[s->nrows];
    w->owned = NULL; /* flush_statements() freed it */
    w->slot = slot;
    if (slot) {
        slot->row_at = s->nrows;
        slot->row_gen = s->rows_gen;
    }
    s->nrows++;
    w->text_id = text;
    w->kind = kind;
    w->name_id = name;
    w->stmt_id = ++s->last_stmt_id;
    w->session_id = sess;
    /* The pid is its session's (the statements view looks it up) unless
     * the line's differs. */
    w->pid = r->pid;
    w->pid_of_session = slot && slot->row_pid == r->pid;
    w->file_id = file_id;
    w->line = (int64_t)r->line;
    w->has_duration = has_duration;
    if (w->has_duration) {
        /* Duration lines are written when the statement ends. */
        w->dur_us = (ls_ts)(m->duration_ms * 1000.0 + 0.5);
        w->start_ts = r->ts == LS_TS_NONE ? LS_TS_NONE : r->ts - w->dur_us;
    } else {
        /* log_statement lines are written when it starts. */
        w->start_ts = r->ts;
    }
    w->bind_us = w->parse_us = -1;
    w->verb = verb;
    w->xid = r->xid;
    w->vxid = vxid;
    w->params = m->params;
    w->vxid_ref = slot ? vxid_ref(slot, w->stmt_id, w->vxid) : 0;
    w->params_ref = slot ? params_ref(slot, w->stmt_id, w->params) : 0;
    w->prepare = prepare;
    return s->nrows >= s->flush_at ? flush_statements(s, 0) : 0;
}

static int store_lock_event(ls_store *s, int64_t file_id, session_slot *slot, const ls_event *ev)
{
    int64_t sess = slot ? slot->session_id : 0;
    const ls_record *r = ev->rec;
    const ls_lock_wait *w = &ev->u.lock;
    binds b = binds_of(s->q[Q_LOCK_EVENT]);
    char holders[LS_MAX_PIDS * 12], queue[LS_MAX_PIDS * 12];
    int64_t stmt_text, context_text;
    int rc = xid_seen(s, r->xid, sess, w->pid, r->ts);

    /* The statement and CONTEXT texts repeat: stored once, in stmt_texts. */
    if (rc || (rc = text_id(s, r->statement, &stmt_text, NULL)) != 0 ||
        (rc = text_id(s, r->context, &context_text, NULL)) != 0)
        return rc;
    bind_pos(&b, lock_event_rows__session_id, sess);
    bind_int64(&b, lock_event_rows__pid, w->pid);
    bind_int64(&b, lock_event_rows__file_id, file_id);
    bind_int64(&b, lock_event_rows__line, (int64_t)r->line);
    bind_ts(&b, lock_event_rows__ts, r->ts);
    bind_text(&b, lock_event_rows__phase, ls_lock_phase_name(w->phase));
    bind_text(&b, lock_event_rows__mode, w->mode);
    bind_text(&b, lock_event_rows__target_kind, ls_target_kind_name(w->target.kind));
    bind_text(&b, lock_event_rows__target, w->target.text);
    if (w->target.kind == LS_TGT_TRANSACTION || w->target.kind == LS_TGT_SPECTOKEN)
        bind_int64(&b, lock_event_rows__target_xid, w->target.xid);
    if (w->target.kind == LS_TGT_RELATION || w->target.kind == LS_TGT_EXTEND ||
        w->target.kind == LS_TGT_PAGE || w->target.kind == LS_TGT_TUPLE) {
        bind_int64(&b, lock_event_rows__rel_oid, w->target.rel_oid);
        bind_int64(&b, lock_event_rows__db_oid, w->target.db_oid);
    }
    if (w->target.kind == LS_TGT_PAGE || w->target.kind == LS_TGT_TUPLE)
        bind_int64(&b, lock_event_rows__page, w->target.page);
    if (w->target.kind == LS_TGT_TUPLE)
        bind_int64(&b, lock_event_rows__tuple_offset, w->target.offset);
    bind_double(&b, lock_event_rows__waited_ms, w->waited_ms);
    if (w->phase != LS_LOCK_ACQUIRED) {
        pids_text(holders, sizeof(holders), w->holders, w->nholders);
        pids_text(queue, sizeof(queue), w->queue, w->nqueue);
        if ((rc = bind_pids(s, &b, lock_event_rows__holders, holders)) != 0 ||
            (rc = bind_pids(s, &b, lock_event_rows__queue, queue)) != 0) {
            sqlite3_clear_bindings(b.st);
            return rc;
        }
    }
    if (w->ctx_relation[0] || w->have_ctx_tuple) {
        bind_text(&b, lock_event_rows__ctx_action, w->ctx_action);
        bind_text(&b, lock_event_rows__ctx_relation, w->ctx_relation);
        if (w->have_ctx_tuple) {
            bind_int64(&b, lock_event_rows__ctx_page, w->ctx_page);
            bind_int64(&b, lock_event_rows__ctx_offset, w->ctx_offset);
        }
    }
    bind_pos(&b, lock_event_rows__text_id, stmt_text);
    bind_pos(&b, lock_event_rows__xid, r->xid);
    bind_text(&b, lock_event_rows__vxid, r->vxid && r->vxid[0] ? r->vxid : NULL);
    bind_pos(&b, lock_event_rows__context_id, context_text);
    /* A process sleeping on a lock logs nothing but that wait's messages:
     * one that follows another lock message of its session directly goes
     * on with that wait, whatever the times say (correlate.c). */
    if (slot && slot->last_event != SLOT_UNSEEN)
        bind_int64(&b, lock_event_rows__after_lock, slot->last_event == SLOT_LOCK);
    return run(s, &b);
}

static int store_error(ls_store *s, int64_t file_id, int64_t sess, const ls_event *ev,
                       const char *cls, const char *sqlstate)
{
    const ls_record *r = ev->rec;
    binds b = binds_of(s->q[Q_ERROR]);
    int64_t stmt_text;
    int rc = xid_seen(s, r->xid, sess, r->pid, r->ts);

    if (rc || (rc = text_id(s, r->statement, &stmt_text, NULL)) != 0)
        return rc;
    bind_pos(&b, errors__session_id, sess);
    bind_int64(&b, errors__pid, r->pid);
    bind_int64(&b, errors__file_id, file_id);
    bind_int64(&b, errors__line, (int64_t)r->line);
    bind_ts(&b, errors__ts, r->ts);
    bind_text(&b, errors__severity, r->severity);
    bind_text(&b, errors__sqlstate, sqlstate && sqlstate[0] ? sqlstate : NULL);
    bind_text(&b, errors__class, cls);
    bind_text(&b, errors__message, r->message);
    /* A deadlock's DETAIL is its deadlocks row's: not stored twice. */
    if (strcmp(cls, "deadlock") != 0)
        bind_text(&b, errors__detail, r->detail);
    bind_pos(&b, errors__text_id, stmt_text);
    bind_pos(&b, errors__xid, r->xid);
    bind_text(&b, errors__vxid, r->vxid && r->vxid[0] ? r->vxid : NULL);
    return run(s, &b);
}

/* A line of the server's own work (LS_EV_SERVER) into server_events: no
 * session (the checkpointer and autovacuum workers are not clients). */
static int store_server(ls_store *s, int64_t file_id, const ls_event *ev)
{
    const ls_server_ev *sv = &ev->u.server;
    binds b = binds_of(s->q[Q_SERVER]);

    bind_ts(&b, server_events__ts, ev->rec->ts);
    bind_text(&b, server_events__kind, ls_server_kind_name(sv->kind));
    bind_pos(&b, server_events__pid, ev->rec->pid);
    bind_int64(&b, server_events__file_id, file_id);
    bind_pos(&b, server_events__line, (int64_t)ev->rec->line);
    bind_text(&b, server_events__relation, sv->relation[0] ? sv->relation : NULL);
    bind_if(&b, server_events__bytes, sv->bytes >= 0, sv->bytes);
    if (sv->duration_ms >= 0)
        bind_double(&b, server_events__duration_ms, sv->duration_ms);
    else
        bind_null(&b, server_events__duration_ms);
    return run(s, &b);
}

static int store_deadlock(ls_store *s, int64_t file_id, int64_t sess, const ls_event *ev)
{
    const ls_record *r = ev->rec;
    const ls_deadlock *d = &ev->u.deadlock;
    binds b = binds_of(s->q[Q_DEADLOCK]);
    int64_t id;
    int i, rc;

    bind_int64(&b, deadlocks__file_id, file_id);
    bind_int64(&b, deadlocks__line, (int64_t)r->line);
    bind_ts(&b, deadlocks__ts, r->ts);
    bind_int64(&b, deadlocks__victim_pid, r->pid);
    bind_pos(&b, deadlocks__victim_session, sess);
    bind_text(&b, deadlocks__detail, r->detail);
    if ((rc = run(s, &b)) != 0)
        return rc;
    id = sqlite3_last_insert_rowid(s->db);
    for (i = 0; i < d->nedges; i++) {
        const ls_deadlock_edge *e = &d->edges[i];
        b = binds_of(s->q[Q_DEADLOCK_EDGE]);
        bind_int64(&b, deadlock_edges__deadlock_id, id);
        bind_int64(&b, deadlock_edges__seq, i + 1);
        bind_int64(&b, deadlock_edges__waiter_pid, e->waiter_pid);
        bind_text(&b, deadlock_edges__mode, e->mode);
        bind_text(&b, deadlock_edges__target_kind, ls_target_kind_name(e->target.kind));
        bind_text(&b, deadlock_edges__target, e->target.text);
        bind_int64(&b, deadlock_edges__blocker_pid, e->blocker_pid);
        if ((rc = run(s, &b)) != 0)
            return rc;
    }
    for (i = 0; i < d->nprocs; i++) {
        int64_t query;
        if ((rc = text_id(s, d->procs[i].query, &query, NULL)) != 0)
            return rc;
        b = binds_of(s->q[Q_DEADLOCK_PROC]);
        bind_int64(&b, deadlock_procs__deadlock_id, id);
        bind_int64(&b, deadlock_procs__pid, d->procs[i].pid);
        bind_pos(&b, deadlock_procs__text_id, query);
        if ((rc = run(s, &b)) != 0)
            return rc;
    }
    /* The deadlock is also an error of the victim, counted with the others. */
    return store_error(s, file_id, sess, ev, "deadlock",
                       r->sqlstate[0] ? r->sqlstate : "40P01");
}

static void store_connection(session_slot *slot, const ls_event *ev)
{
    const ls_conn_ev *c = &ev->u.conn;
    if (ev->kind == LS_EV_DISCONNECT) {
        slot->end_ts = ev->rec->ts;
        slot->dirty = 1;
        return;
    }
    if (c->host) {
        if (slot->start_ts == LS_TS_NONE)
            slot->start_ts = ev->rec->ts;
        slot->dirty |= slot_set(slot->remote, sizeof(slot->remote), c->host);
    }
    /* "connection authorized" names the session, whatever the prefix said. */
    slot->dirty |= slot_set(slot->user, sizeof(slot->user), c->user);
    slot->dirty |= slot_set(slot->database, sizeof(slot->database), c->database);
    slot->dirty |= slot_set(slot->application, sizeof(slot->application), c->application);
}

int ls_store_event(ls_store *s, int64_t file_id, const ls_event *ev)
{
    session_slot *slot;
    struct stmt_row *w;
    int64_t sess;
    int rc;
    int new_conn = ev->kind == LS_EV_CONNECT && ev->u.conn.host != NULL;

    if (ev->kind == LS_EV_OTHER)
        return 0;
    if (ev->kind == LS_EV_SERVER)
        return store_server(s, file_id, ev);
    if ((rc = session_of(s, ev->rec, new_conn, &slot)) != 0)
        return rc;
    sess = slot ? slot->session_id : 0;
    if (slot && ev->kind != LS_EV_LOCK_WAIT)
        slot->last_event = SLOT_OTHER;
    /* A statement that failed logs no duration: a bare duration line next
     * is the session's next statement's (the parse or bind of an execute). */
    if ((ev->kind == LS_EV_ERROR || ev->kind == LS_EV_DEADLOCK) && slot &&
        (w = latest_row(s, slot)) != NULL && !w->has_duration && w->pid == ev->rec->pid)
        slot->row_gen = 0;
    switch (ev->kind) {
    case LS_EV_STATEMENT:
    case LS_EV_DURATION:
        return store_statement(s, file_id, slot, ev);
    case LS_EV_LOCK_WAIT:
        rc = store_lock_event(s, file_id, slot, ev);
        if (slot)
            slot->last_event = SLOT_LOCK;
        return rc;
    case LS_EV_DEADLOCK:
        return store_deadlock(s, file_id, sess, ev);
    case LS_EV_ERROR:
        return store_error(s, file_id, sess, ev, ls_error_class_name(ev->u.error.cls),
                           ev->u.error.sqlstate);
    case LS_EV_CONNECT:
    case LS_EV_DISCONNECT:
        if (slot)
            store_connection(slot, ev);
        return 0;
    case LS_EV_SERVER:
    case LS_EV_OTHER:
        break;
    }
    return 0;
}

int ls_store_span(ls_store *s, int64_t file_id, const ls_span *sp)
{
    binds b = binds_of(s->q[Q_SPAN]);
    bind_int64(&b, spans__file_id, file_id);
    bind_pos(&b, spans__line, (int64_t)sp->line);
    bind_text(&b, spans__format, sp->format);
    bind_text(&b, spans__trace_id, sp->trace_id[0] ? sp->trace_id : NULL);
    bind_text(&b, spans__span_id, sp->span_id[0] ? sp->span_id : NULL);
    bind_text(&b, spans__parent_id, sp->parent_id[0] ? sp->parent_id : NULL);
    bind_text(&b, spans__name, sp->name);
    bind_int64(&b, spans__kind, (int64_t)sp->kind);
    bind_text(&b, spans__service, sp->service);
    bind_ts(&b, spans__start_ts, sp->start);
    bind_ts(&b, spans__end_ts, sp->end);
    bind_int64(&b, spans__error, sp->error);
    bind_text(&b, spans__db_system, sp->db_system);
    bind_text(&b, spans__db_statement, sp->db_statement);
    bind_text(&b, spans__db_name, sp->db_name);
    bind_text(&b, spans__db_operation, sp->db_operation);
    bind_text(&b, spans__code_function, sp->code_function);
    bind_text(&b, spans__code_namespace, sp->code_namespace);
    bind_text(&b, spans__code_filepath, sp->code_filepath);
    bind_pos(&b, spans__code_lineno, sp->code_lineno);
    bind_text(&b, spans__http_route, sp->http_route);
    bind_text(&b, spans__http_method, sp->http_method);
    bind_text(&b, spans__http_url, sp->http_url);
    bind_text(&b, spans__peer_service, sp->peer_service);
    bind_pos(&b, spans__db_pid, sp->db_pid);
    bind_text(&b, spans__attributes, sp->attributes);
    return run(s, &b);
}

int ls_store_activity(ls_store *s, int64_t file_id, const ls_activity *a)
{
    binds b = binds_of(s->q[Q_ACTIVITY]);
    bind_int64(&b, activity__file_id, file_id);
    bind_int64(&b, activity__line, (int64_t)a->line);
    bind_ts(&b, activity__ts, a->ts);
    bind_int64(&b, activity__pid, a->pid);
    bind_text(&b, activity__state, a->state && a->state[0] ? a->state : NULL);
    bind_text(&b, activity__wait_event_type, a->wait_event_type);
    bind_text(&b, activity__wait_event, a->wait_event);
    bind_ts(&b, activity__xact_start, a->xact_start);
    bind_ts(&b, activity__query_start, a->query_start);
    bind_ts(&b, activity__backend_start, a->backend_start);
    bind_text(&b, activity__blocking_pids, a->blocking_pids);
    bind_text(&b, activity__query, a->query);
    return run(s, &b);
}

int ls_store_index(ls_store *s)
{
    return ls_store_exec_sorting(s, ls_index_sql);
}

int ls_store_sorting(ls_store *s, int on)
{
    if (on ? s->sorting++ > 0 : s->sorting == 0 || --s->sorting > 0)
        return 0;
    return ls_store_exec(s, on ? "PRAGMA cache_size = -" LS_STORE_SORT_CACHE_KIB
                               : LS_STORE_CACHE_PRAGMA);
}

int ls_store_exec_sorting(ls_store *s, const char *sql)
{
    int rc = ls_store_sorting(s, 1), rc2;
    if (rc == 0)
        rc = ls_store_exec(s, sql);
    rc2 = ls_store_sorting(s, 0);
    return rc ? rc : rc2;
}

int64_t ls_store_cache_misses(ls_store *s)
{
    int cur = 0, hi = 0;
    sqlite3_db_status(s->db, SQLITE_DBSTATUS_CACHE_MISS, &cur, &hi, 1);
    return cur;
}

int64_t ls_store_vm_steps(ls_store *s)
{
    sqlite3_stmt *st = NULL;
    int64_t n;

    if (!s->counting_steps) {
        /* Statements report their steps as they end (the profile callback,
         * shared with LOCKSPAN_TIMING=sql); none is counted before this. */
        s->counting_steps = 1;
        sqlite3_trace_v2(s->db, SQLITE_TRACE_PROFILE, profile_cb, s);
        while ((st = sqlite3_next_stmt(s->db, st)) != NULL)
            sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 1);
        s->vm_steps = 0;
        return 0;
    }
    /* ... and those still open (kept prepared, or stepping) report theirs here. */
    while ((st = sqlite3_next_stmt(s->db, st)) != NULL)
        s->vm_steps += (uint32_t)sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 1);
    n = s->vm_steps;
    s->vm_steps = 0;
    return n;
}

int ls_store_meta_set(ls_store *s, const char *key, const char *value)
{
    sqlite3_stmt *st;
    binds b;
    int rc = sqlite3_prepare_v2(s->db, LS_INSERT_INTO("INSERT OR REPLACE", meta), -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_err(s, rc);
    b = binds_of(st);
    bind_text(&b, meta__key, key);
    bind_text(&b, meta__value, value);
    rc = step_binds(&b);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : store_err(s, rc);
}

int ls_store_meta_get(ls_store *s, const char *key, char *buf, size_t len)
{
    sqlite3_stmt *st;
    binds b;
    static const char sql[] = "SELECT value FROM meta WHERE key = :key";
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    buf[0] = '\0';
    if (rc != SQLITE_OK)
        return store_err(s, rc);
    if ((rc = params_check(s, st, sql, LS_PARAM_NAMES(META_GET_PARAMS), 1)) != 0) {
        sqlite3_finalize(st);
        return rc;
    }
    b = binds_of(st);
    bind_text(&b, mgp__key, key);
    rc = step_binds(&b);
    if (rc == SQLITE_ROW && sqlite3_column_text(st, 0))
        snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : store_err(s, rc);
}

int ls_store_check(ls_store *s, char *errbuf, size_t errlen)
{
    sqlite3_stmt *st;
    const char *what;
    int rc = sqlite3_prepare_v2(s->db, "PRAGMA quick_check(1)", -1, &st, NULL);

    if (rc != SQLITE_OK) {
        snprintf(errbuf, errlen, "%s", sqlite3_errmsg(s->db));
        return store_err(s, rc);
    }
    rc = sqlite3_step(st);
    what = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
    if (rc == SQLITE_ROW && what && strcmp(what, "ok") == 0) {
        sqlite3_finalize(st);
        return 0;
    }
    snprintf(errbuf, errlen, "%s", what ? what : sqlite3_errmsg(s->db));
    rc = rc == SQLITE_ROW ? SQLITE_CORRUPT : rc;
    sqlite3_finalize(st);
    return rc == SQLITE_NOMEM ? LS_ENOMEM : LS_ESTORE;
}

int ls_store_probe(const char *path, char *errbuf, size_t errlen)
{
    static const char magic[16] = "SQLite format 3";
    char head[16];
    size_t n;
    sqlite3 *db = NULL;
    sqlite3_stmt *st;
    char shown[LS_SHOWN_MAX]; /* `path` in messages */
    int found = 0;
    FILE *f;

    ls_shown(shown, sizeof(shown), path);
    if (!(f = fopen(path, "rb"))) {
        snprintf(errbuf, errlen, "%s: cannot read: %s", shown, strerror(errno));
        return LS_EIO;
    }
    n = fread(head, 1, sizeof(head), f);
    fclose(f);
    if (n < sizeof(head) || memcmp(head, magic, sizeof(head)) != 0)
        return 0;
    /*
     * Opened for writing (never created) only so that a journal left by a
     * killed run is rolled back, as any SQLite client would: read-only, such
     * a store could not be read at all.
     */
    if (open_db(path, 0, &db) != SQLITE_OK) {
        snprintf(errbuf, errlen, "%s: cannot open: %s", shown,
                 db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return LS_ESTORE;
    }
    sqlite3_busy_timeout(db, 5000);
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL) ==
        SQLITE_OK) {
        int rc = sqlite3_step(st), tables = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
        if (rc == SQLITE_ROW && tables == 0) {
            found = 1; /* an SQLite file with nothing in it (a run killed at creation) */
        } else if (rc == SQLITE_ROW &&
                   sqlite3_prepare_v2(db, "SELECT 1 FROM meta WHERE key = 'created_by'"
                                          " AND value LIKE 'lockspan %'", -1, &st, NULL) ==
                       SQLITE_OK) {
            int r = sqlite3_step(st);
            found = r == SQLITE_ROW ? 1 : r == SQLITE_DONE ? 0 : LS_ESTORE;
            sqlite3_finalize(st);
        } else if (rc != SQLITE_ROW) {
            found = LS_ESTORE;
        }
    } else {
        found = (sqlite3_errcode(db) & 0xff) == SQLITE_NOTADB ? 0 : LS_ESTORE;
    }
    if (found == LS_ESTORE)
        snprintf(errbuf, errlen, "%s: %s", shown,
                 (sqlite3_errcode(db) & 0xff) == SQLITE_BUSY
                     ? "in use by another process; try again when it has finished"
                     : sqlite3_errmsg(db));
    sqlite3_close(db);
    return found;
}

/* ---- statement API ---- */

/* Prepare sql into *out, its parameters unchecked. */
static int prepare_stmt(ls_store *s, const char *sql, ls_stmt **out)
{
    ls_stmt *st = ls_calloc(1, sizeof(*st));
    int rc;
    *out = NULL;
    if (!st)
        return LS_ENOMEM;
    st->store = s;
    s->guard_refused[0] = '\0';
    rc = sqlite3_prepare_v2(s->db, sql, -1, &st->st, NULL);
    if (rc != SQLITE_OK) {
        if (s->guard_refused[0])
            fprintf(stderr, "lockspan: %s writes %s, which it does not own\n", s->guard_who,
                    s->guard_refused);
        else
            fprintf(stderr, "lockspan: store query failed to prepare: %s\n",
                    sqlite3_errmsg(s->db));
        free(st);
        return store_err(s, rc);
    }
    *out = st;
    return 0;
}

/* Whether st has a named parameter (:name, @name, $name). */
static int has_named_param(ls_stmt *st)
{
    int n = sqlite3_bind_parameter_count(st->st), i;
    for (i = 1; i <= n; i++) {
        const char *name = sqlite3_bind_parameter_name(st->st, i);
        if (name && (name[0] == ':' || name[0] == '@' || name[0] == '$'))
            return 1;
    }
    return 0;
}

/* A query of named parameters is prepared with its list (ls_params.h),
 * never unchecked. */
int ls_store_prepare(ls_store *s, const char *sql, ls_stmt **out)
{
    int rc = prepare_stmt(s, sql, out);
    if (rc == 0 && has_named_param(*out)) {
        char msg[512];
        snprintf(msg, sizeof(msg), "a query of named parameters prepared without their list"
                 " (ls_store_prepare_params or _vocab, ls_params.h): %.200s", sql);
        if (!s->err[0])
            snprintf(s->err, sizeof(s->err), "%s", msg);
        fprintf(stderr, "lockspan: %s\n", msg);
        ls_stmt_finalize(*out);
        *out = NULL;
        return LS_ESTORE;
    }
    return rc;
}

/* Word `i` (from 0) of the space-separated `names` into *w, *len; 0 when
 * there are fewer. */
static int param_word(const char *names, int i, const char **w, size_t *len)
{
    const char *p = names;
    for (;;) {
        while (*p == ' ')
            p++;
        if (!*p)
            return 0;
        *w = p;
        while (*p && *p != ' ')
            p++;
        *len = (size_t)(p - *w);
        if (i-- == 0)
            return 1;
    }
}

/* Whether SQLite's parameter name `got` (":tx", "?3", NULL for "?") is
 * ':' and the word w. */
static int param_is(const char *got, const char *w, size_t len)
{
    return got && got[0] == ':' && strncmp(got + 1, w, len) == 0 && got[1 + len] == '\0';
}

/* Whether sql has a '?' (a numbered or anonymous parameter) outside its
 * quoted strings and names: ?1 after :a is :a's index, which SQLite's
 * parameter names do not show. */
static int sql_has_qmark(const char *sql)
{
    char quote = 0;
    for (; *sql; sql++) {
        if (quote)
            quote = *sql == quote ? 0 : quote;
        else if (*sql == '\'' || *sql == '"')
            quote = *sql;
        else if (*sql == '?')
            return 1;
    }
    return 0;
}

/* Whether SQLite's parameter `got` is one of the words of `names`. */
static int param_among(const char *names, const char *got)
{
    const char *w;
    size_t len;
    int k;
    for (k = 0; param_word(names, k, &w, &len); k++)
        if (param_is(got, w, len))
            return 1;
    return 0;
}

/*
 * Check st's parameters against `names` (ls_params.h): with exact, the
 * SQL's parameters are the names in their order, no more, no fewer;
 * without, each is one of the names. A mismatch is a bug of the query:
 * LS_ESTORE, its message naming the parameter and the SQL.
 */
static int params_check(ls_store *s, sqlite3_stmt *st, const char *sql, const char *names,
                        int exact)
{
    int n = sqlite3_bind_parameter_count(st), i;
    const char *got = NULL, *w;
    size_t len;
    char fault[160], msg[512];

    for (i = 1; i <= n; i++) {
        got = sqlite3_bind_parameter_name(st, i);
        if (exact ? !param_word(names, i - 1, &w, &len) || !param_is(got, w, len)
                  : !param_among(names, got))
            break;
    }
    if (i <= n && exact && param_word(names, i - 1, &w, &len))
        snprintf(fault, sizeof(fault), "parameter %d is %s where the list has :%.*s", i,
                 got ? got : "?", (int)(len < 60 ? len : 60), w);
    else if (i <= n)
        snprintf(fault, sizeof(fault), "parameter %d, %s, is not in the list (%.80s )", i,
                 got ? got : "?", names);
    else if (exact && param_word(names, n, &w, &len))
        snprintf(fault, sizeof(fault), "the list has :%.*s, the SQL not", (int)(len < 60 ? len : 60),
                 w);
    else if (sql_has_qmark(sql))
        snprintf(fault, sizeof(fault), "a numbered or anonymous parameter (?) beside named ones");
    else
        return 0;
    snprintf(msg, sizeof(msg), "a query's parameters differ from their list (ls_params.h: named,"
             " listed in the order the SQL first uses them): %s: %.200s", fault, sql);
    if (!s->err[0])
        snprintf(s->err, sizeof(s->err), "%s", msg);
    fprintf(stderr, "lockspan: %s\n", msg);
    return LS_ESTORE;
}

/* prepare_stmt() and params_check(). */
static int prepare_named(ls_store *s, const char *sql, const char *names, int exact,
                         ls_stmt **out)
{
    int rc = prepare_stmt(s, sql, out);
    if (rc == 0 && (rc = params_check(s, (*out)->st, sql, names, exact)) != 0) {
        ls_stmt_finalize(*out);
        *out = NULL;
    }
    return rc;
}

int ls_store_prepare_params(ls_store *s, const char *sql, const char *names, ls_stmt **out)
{
    return prepare_named(s, sql, names, 1, out);
}

int ls_store_prepare_vocab(ls_store *s, const char *sql, const char *names, ls_stmt **out)
{
    return prepare_named(s, sql, names, 0, out);
}

int ls_stmt_param(ls_stmt *st, const char *name)
{
    char key[64];
    if (snprintf(key, sizeof(key), ":%s", name) >= (int)sizeof(key))
        return 0;
    return sqlite3_bind_parameter_index(st->st, key);
}

/* Is `name` (a table, or "table.column") among the space-separated words
 * of `owns`, where a word "table" owns all its columns and a word
 * "table+" its rows but none of its columns: it may INSERT and DELETE
 * rows (its own, the rest of the table another's) but UPDATE none
 * (`column` is NULL for an INSERT or DELETE)? */
static int guard_owns(const char *owns, const char *table, const char *column)
{
    size_t tlen = strlen(table);
    const char *w = owns;

    while (*w) {
        size_t n = strcspn(w, " ");
        if (n == tlen && strncmp(w, table, tlen) == 0)
            return 1;
        if (!column && n == tlen + 1 && w[tlen] == '+' && strncmp(w, table, tlen) == 0)
            return 1;
        if (column && n > tlen && w[tlen] == '.' && strncmp(w, table, tlen) == 0 &&
            strlen(column) == n - tlen - 1 && strncmp(w + tlen + 1, column, n - tlen - 1) == 0)
            return 1;
        w += n;
        w += strspn(w, " ");
    }
    return 0;
}

/* Correlation's working tables (LS_WORKING_DDL), which passes own as
 * they own the store's tables. */
static const char *const working_tables[] = {"hold_rows", "hold_evidence", "hold_bounds",
                                             "bound_evidence", "hold_queued", NULL};

/* Is temp table `table` one of correlation's working tables? */
static int is_working(const char *table)
{
    for (int i = 0; working_tables[i]; i++)
        if (strcmp(working_tables[i], table) == 0)
            return 1;
    return 0;
}

/* SQLite's authorizer while a guard is on: writes to the main database's
 * tables and to the working tables must be the guard's own; other temp
 * tables (a pass's scratch) and SQLite's own are anybody's, and so are
 * indexes (a way to read, not data). Called when a statement is prepared,
 * not per row. LOCKSPAN_GUARD=learn prints what is written and refuses
 * nothing: a tool for writing a pass's entry. */
static int guard_authorize(void *arg, int action, const char *a1, const char *a2,
                           const char *db, const char *trigger)
{
    ls_store *s = arg;
    const char *table, *column = NULL;

    (void)trigger;
    switch (action) {
    case SQLITE_INSERT:
    case SQLITE_DELETE:
        table = a1;
        break;
    case SQLITE_UPDATE:
        table = a1;
        column = a2;
        break;
    default: /* reads, and indexes: a way to read, not data */
        return SQLITE_OK;
    }
    /* temp.stmt_rows (ls_store_stmt_views) guarded as the table it copies */
    if (!table || !db || strncmp(table, "sqlite_", 7) == 0 ||
        (strcmp(db, "main") != 0 &&
         !(strcmp(db, "temp") == 0 && (is_working(table) || strcmp(table, "stmt_rows") == 0))) ||
        guard_owns(s->guard_owns, table, column))
        return SQLITE_OK;
    if (s->guard_learn) {
        fprintf(stderr, "lockspan: guard: %s writes %s%s%s\n", s->guard_who, table,
                column ? "." : "", column ? column : "");
        return SQLITE_OK;
    }
    snprintf(s->guard_refused, sizeof(s->guard_refused), "%s%s%s", table, column ? "." : "",
             column ? column : "");
    return SQLITE_DENY;
}

int ls_store_guard_writes(ls_store *s, const char *who, const char *owns)
{
    int rc;

    const char *mode = getenv("LOCKSPAN_GUARD");

    s->guard_who = who;
    s->guard_owns = owns;
    s->guard_learn = mode && strcmp(mode, "learn") == 0;
    rc = owns ? sqlite3_set_authorizer(s->db, guard_authorize, s)
              : sqlite3_set_authorizer(s->db, NULL, NULL);
    return rc == SQLITE_OK ? 0 : store_err(s, rc);
}

int ls_store_stmt_views(ls_store *s, int on)
{
    ls_stmt *q = NULL;
    int rc, timed = 0;

    if ((rc = ls_store_exec(s, "DROP VIEW IF EXISTS temp.statements;"
                               " DROP TABLE IF EXISTS temp.stmt_rows;")) != 0 ||
        !on)
        return rc;
    if ((rc = ls_store_prepare(s, "SELECT EXISTS (SELECT 1 FROM main.stmt_span_time)", &q)) != 0)
        return rc;
    if ((rc = ls_stmt_step(q)) == 1)
        timed = ls_stmt_int64(q, LS_ONLY_COLUMN) != 0;
    ls_stmt_finalize(q);
    if (rc < 0)
        return rc;
    if (timed && (rc = ls_store_exec(s, LS_STMT_ROWS_TEMP_DDL)) != 0)
        return rc;
    return ls_store_exec(s, LS_STATEMENTS_TEMP_DDL);
}

int ls_stmt_step(ls_stmt *st)
{
    int rc;

    if (st->bind_rc) {
        fprintf(stderr, "lockspan: store query parameter failed: %s: %.200s\n",
                sqlite3_errstr(st->bind_rc_sqlite), sqlite3_sql(st->st));
        return st->bind_rc;
    }
    rc = sqlite3_step(st->st);
    if (rc == SQLITE_ROW)
        return 1;
    if (rc == SQLITE_DONE)
        return 0;
    fprintf(stderr, "lockspan: store query failed: %s\n", sqlite3_errmsg(st->store->db));
    return store_err(st->store, rc);
}

int64_t ls_stmt_last_rowid(const ls_stmt *st)
{
    return sqlite3_last_insert_rowid(st->store->db);
}

int ls_stmt_reset(ls_stmt *st)
{
    sqlite3_reset(st->st);
    sqlite3_clear_bindings(st->st);
    st->bind_rc = st->bind_rc_sqlite = 0;
    return 0;
}

/* A bind's SQLite result code, kept when it is the first failure. */
static int bind_result(ls_stmt *st, int rc)
{
    if (rc == SQLITE_OK)
        return 0;
    if (!st->bind_rc) {
        st->bind_rc_sqlite = rc;
        st->bind_rc = store_err(st->store, rc);
    }
    return st->bind_rc;
}

void ls_stmt_finalize(ls_stmt *st)
{
    if (!st)
        return;
    sqlite3_finalize(st->st);
    free(st);
}

int ls_stmt_bind_int64(ls_stmt *st, int idx, int64_t v)
{
    return bind_result(st, sqlite3_bind_int64(st->st, idx, v));
}

int ls_stmt_bind_double(ls_stmt *st, int idx, double v)
{
    return bind_result(st, sqlite3_bind_double(st->st, idx, v));
}

int ls_stmt_bind_text(ls_stmt *st, int idx, const char *v)
{
    return bind_result(st, v ? sqlite3_bind_text(st->st, idx, v, -1, SQLITE_TRANSIENT)
                             : sqlite3_bind_null(st->st, idx));
}

int ls_stmt_bind_null(ls_stmt *st, int idx)
{
    return bind_result(st, sqlite3_bind_null(st->st, idx));
}

int ls_stmt_params(ls_stmt *st)
{
    return sqlite3_bind_parameter_count(st->st);
}

int ls_stmt_isnull(ls_stmt *st, int col)
{
    return sqlite3_column_type(st->st, col) == SQLITE_NULL;
}

int64_t ls_stmt_int64(ls_stmt *st, int col)
{
    return sqlite3_column_int64(st->st, col);
}

double ls_stmt_double(ls_stmt *st, int col)
{
    return sqlite3_column_double(st->st, col);
}

const char *ls_stmt_text(ls_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st->st, col);
    return t ? (const char *)t : "";
}

const char *ls_stmt_text_or_null(ls_stmt *st, int col)
{
    return (const char *)sqlite3_column_text(st->st, col);
}
