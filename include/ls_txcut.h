/*
 * ls_txcut.h — transactions cut while the log streams (docs/streaming.md).
 *
 * The store's writer feeds each statement row, once it is final (after
 * the parse and bind lines of an extended-protocol statement folded into
 * it), to a per-session state machine, in stmt_id order within each
 * session. The machine cuts each session's statements into transactions
 * exactly as the "transactions and holds" pass cut them from the
 * statements view (src/correlate/transactions.c):
 *
 *   BEGIN / START TRANSACTION  opens one (inside one: PostgreSQL warns,
 *                              nothing ends; the statement joins it)
 *   COMMIT / END / ROLLBACK / ABORT (COMMIT PREPARED too) closes it; with
 *                              none open it is a transaction of its own
 *   any other statement        joins the open one, else is its own
 *                              (savepoints, PREPARE TRANSACTION, a failed
 *                              statement: errors do not cut)
 *
 * Each transaction becomes one ls_txcut_row, handed to the `emit`
 * callback when it ends. One still open when its session's slot must go
 * (the table is full, or the ingest ends) is handed over unfinished
 * (`closed` 0) and taken back through `reload` when the session logs
 * again, in this run or a later one; one never taken back ends where the
 * pass decides (at the session's disconnection, else its last statement).
 * Memory: a slot per session with a transaction open, at most
 * LS_TXCUT_OPEN_MAX, whatever the log.
 */
#ifndef LS_TXCUT_H
#define LS_TXCUT_H

#include <stddef.h>
#include <stdint.h>

/* Sessions with a transaction open held at one time; more are handed over
 * unfinished, the longest idle first. */
#define LS_TXCUT_OPEN_MAX 1024
/* Counters of the filter of sessions handed over unfinished, by a hash of
 * the session (a power of 2): a session whose counter is 0 has none. */
#define LS_TXCUT_SPILL_SLOTS 65536
#define LS_TXCUT_VXID_MAX 24 /* bytes kept of a vxid, NUL included */

/* One statement row as the cut sees it (the statements view's values). */
typedef struct ls_txcut_stmt {
    int64_t stmt_id, session_id, pid;
    int64_t xid;      /* 0: none */
    int64_t start_ts; /* 0: not known (the view's NULL, read as 0) */
    int64_t dur_us;
    int has_dur;      /* a duration line: dur_us holds it */
    const char *vxid; /* NULL: none */
    int kind;         /* ls_sql_kind of its text */
    int64_t text_id;  /* its text (the shape hash), 0: none */
    int64_t pos;      /* its line's place in the log (ls_log_pos()) */
} ls_txcut_stmt;

/* How a transaction's end is known (transactions.end_known). */
typedef enum ls_txcut_end {
    LS_TXCUT_END_NONE = 0,        /* not ended (closed 0) */
    LS_TXCUT_END_STATEMENT,       /* "statement": an autocommit statement's end */
    LS_TXCUT_END_STATEMENT_START, /* "statement start": no duration logged */
    LS_TXCUT_END_COMMIT,          /* "commit" */
    LS_TXCUT_END_COMMIT_START,    /* "commit start" */
    LS_TXCUT_END_ROLLBACK,        /* "rollback" */
    LS_TXCUT_END_ROLLBACK_START   /* "rollback start" */
} ls_txcut_end;

/* One transaction (a tx_cuts row). */
typedef struct ls_txcut_row {
    int64_t session_id, pid;      /* pid: its first statement's */
    int64_t xid;                  /* the first xid logged in it, 0: none */
    char vxid[LS_TXCUT_VXID_MAX]; /* the first not ending in "/0", "": none */
    int explicit_tx;              /* opened by BEGIN */
    int closed;                   /* ended by COMMIT/ROLLBACK, or a statement of its own */
    int durations;                /* every statement had a duration */
    ls_txcut_end end;
    int64_t start_ts, end_ts;     /* end_ts: the last statement's end, else its start */
    int64_t prev_end;             /* the last statement's end (idle gaps): end_ts, not stored */
    int64_t first_stmt, last_stmt, statements;
    int64_t first_pos;            /* the first statement's pos; 0: not known (a cut
                                     reloaded from a store of schema 18) */
    double sql_ms, idle_ms, max_idle_ms, commit_ms; /* meaningful when durations */
    uint64_t shape;               /* FNV-1a of its statements' text ids, in order */
} ls_txcut_row;

/* A finished or unfinished transaction handed over: 0, or below 0 to stop. */
typedef int (*ls_txcut_emit_fn)(void *ctx, const ls_txcut_row *row);
/* The unfinished transaction of `session` handed over before, removed
 * from where it was kept: *found 1 and *out filled, or *found 0. 0, or
 * below 0 to stop. */
typedef int (*ls_txcut_reload_fn)(void *ctx, int64_t session, ls_txcut_row *out, int *found);

typedef struct ls_txcut ls_txcut;

/* A new cutter (NULL: no memory). Neither callback may be NULL. */
ls_txcut *ls_txcut_new(ls_txcut_emit_fn emit, ls_txcut_reload_fn reload, void *ctx);
void ls_txcut_free(ls_txcut *c);

/* Mark `session` as having an unfinished transaction kept elsewhere (a
 * previous run's): its next statement asks `reload` for it. */
void ls_txcut_spilled(ls_txcut *c, int64_t session);

/* Cut one statement into its session's transactions (session_id 0: not
 * a session's, ignored). 0, LS_ENOMEM, or a callback's code. */
int ls_txcut_feed(ls_txcut *c, const ls_txcut_stmt *st);

/* Hand over every transaction still open, unfinished (the ingest ends). */
int ls_txcut_flush(ls_txcut *c);

/* transactions.end_known of `end`, NULL for LS_TXCUT_END_NONE. */
const char *ls_txcut_end_name(ls_txcut_end end);

/* The 64-bit shape hash after `text_id` joins shape `h` (0 starts one). */
uint64_t ls_txcut_shape_add(uint64_t h, int64_t text_id);

#endif
