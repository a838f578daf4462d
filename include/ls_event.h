/*
 * ls_event.h — what the classifier recognised in a record's message text.
 *
 * The classifier reads an ls_record and fills an ls_event: the kind of
 * event and the facts parsed out of the message, DETAIL and CONTEXT. The
 * store persists events; correlation works on the store. Pointers in an
 * event point into the record or into the event's own scratch buffer and
 * live as long as the record.
 */
#ifndef LS_EVENT_H
#define LS_EVENT_H

#include "ls_common.h"
#include "ls_record.h"

typedef enum ls_event_kind {
    LS_EV_OTHER = 0,    /* nothing the analysis uses */
    LS_EV_LOCK_WAIT,    /* a log_lock_waits message: see ls_lock_phase */
    LS_EV_DEADLOCK,     /* ERROR 40P01 "deadlock detected" with its cycle */
    LS_EV_ERROR,        /* an ERROR/FATAL that matters: timeouts, 40001, ... */
    LS_EV_STATEMENT,    /* "statement: ..." (log_statement, logged at start) */
    LS_EV_DURATION,     /* "duration: X ms  statement|execute ...: ..." (at end) */
    LS_EV_CONNECT,      /* "connection received" / "connection authorized" */
    LS_EV_DISCONNECT,   /* "disconnection: session time: ..." */
    LS_EV_SERVER        /* the server's own work: checkpoint, autovacuum, temp file */
} ls_event_kind;

typedef enum ls_lock_phase {
    LS_LOCK_WAITING = 1, /* process N still waiting for ... */
    LS_LOCK_ACQUIRED,    /* process N acquired ... */
    LS_LOCK_AVOIDED,     /* process N avoided deadlock ... by rearranging queue order */
    LS_LOCK_DEADLOCK,    /* process N detected deadlock while waiting ... */
    LS_LOCK_FAILED       /* process N failed to acquire ... */
} ls_lock_phase;

/* Lock target kinds, after DescribeLockTag() in storage/lmgr/lmgr.c. */
typedef enum ls_target_kind {
    LS_TGT_UNKNOWN = 0,
    LS_TGT_RELATION,     /* relation R of database D */
    LS_TGT_EXTEND,       /* extension of relation R of database D */
    LS_TGT_PAGE,         /* page P of relation R of database D */
    LS_TGT_TUPLE,        /* tuple (B,O) of relation R of database D */
    LS_TGT_TRANSACTION,  /* transaction X */
    LS_TGT_VIRTUALXID,   /* virtual transaction B/L */
    LS_TGT_SPECTOKEN,    /* speculative token T of transaction X */
    LS_TGT_OBJECT,       /* object O of class C of database D */
    LS_TGT_USERLOCK,     /* user lock [a,b,c] */
    LS_TGT_ADVISORY      /* advisory lock [a,b,c,d] */
} ls_target_kind;

const char *ls_lock_phase_name(ls_lock_phase p);
const char *ls_target_kind_name(ls_target_kind k);

#define LS_MAX_PIDS 64 /* holders / queue entries kept per wait message */

typedef struct ls_lock_target {
    ls_target_kind kind;
    char text[160];        /* canonical text as logged, e.g. "transaction 742" */
    uint32_t xid;          /* TRANSACTION, SPECTOKEN */
    uint32_t rel_oid;      /* RELATION, EXTEND, PAGE, TUPLE */
    uint32_t db_oid;       /* RELATION, EXTEND, PAGE, TUPLE, OBJECT */
    uint32_t page;         /* PAGE, TUPLE (block) */
    uint32_t offset;       /* TUPLE (line pointer) */
    uint32_t key[4];       /* ADVISORY/USERLOCK fields, OBJECT (obj, class) */
} ls_lock_target;

typedef struct ls_lock_wait {
    ls_lock_phase phase;
    int pid;               /* the waiting process */
    char mode[32];         /* ShareLock, ExclusiveLock, ... */
    ls_lock_target target;
    double waited_ms;      /* "after X ms": time since the wait began */
    int nholders;
    int holders[LS_MAX_PIDS];
    int nqueue;
    int queue[LS_MAX_PIDS];
    /* From CONTEXT "while updating tuple (0,1) in relation "account"". */
    char ctx_action[48];   /* "updating", "locking", "rechecking updated", ... */
    int have_ctx_tuple;
    uint32_t ctx_page, ctx_offset;
    char ctx_relation[128];
} ls_lock_wait;

#define LS_MAX_EDGES 16

typedef struct ls_deadlock_edge {
    int waiter_pid;
    char mode[32];
    ls_lock_target target;
    int blocker_pid;
} ls_deadlock_edge;

typedef struct ls_deadlock_proc {
    int pid;
    const char *query;     /* points into the event's scratch; NUL-terminated */
} ls_deadlock_proc;

typedef struct ls_deadlock {
    int nedges;
    ls_deadlock_edge edges[LS_MAX_EDGES];
    int nprocs;
    ls_deadlock_proc procs[LS_MAX_EDGES];
} ls_deadlock;

typedef enum ls_error_class {
    LS_ERRC_OTHER = 0,
    LS_ERRC_LOCK_TIMEOUT,          /* 55P03 canceling statement due to lock timeout */
    LS_ERRC_LOCK_NOWAIT,           /* 55P03 could not obtain lock on row ... */
    LS_ERRC_STATEMENT_TIMEOUT,     /* 57014 canceling statement due to statement timeout */
    LS_ERRC_SERIALIZATION,         /* 40001 */
    LS_ERRC_DEADLOCK,              /* 40P01 */
    LS_ERRC_IDLE_TX_TIMEOUT,       /* 25P03 */
    LS_ERRC_CANCELED               /* 57014 canceling statement due to user request */
} ls_error_class;

const char *ls_error_class_name(ls_error_class c);

typedef struct ls_error_ev {
    ls_error_class cls;
    char sqlstate[6];      /* from the record, else implied by the class */
} ls_error_ev;

typedef struct ls_statement_ev {
    double duration_ms;    /* LS_EV_DURATION only; -1 otherwise */
    char verb[16];         /* "statement", "execute", "parse", "bind", "" */
    const char *name;      /* prepared statement name ("<unnamed>", "_pg3_0"); may be "" */
    const char *text;      /* SQL text (may be "" for a duration-only line) */
    const char *params;    /* DETAIL "parameters: ..." or NULL */
    /* ls_quick_hash() of text (the store's cache of texts) and its
     * length, computed by the parsing thread as it hands the event over
     * (handoff.c), so that the store thread, the busier one, does not; 0
     * and 0 until then. */
    uint64_t text_hash;
    size_t text_len;
} ls_statement_ev;

typedef struct ls_conn_ev {
    const char *host;       /* connection received: host=... */
    const char *user;       /* connection authorized: user=... */
    const char *database;
    const char *application;
    double session_seconds; /* disconnection: session time; -1 if unknown */
} ls_conn_ev;

/* What an LS_EV_SERVER line reports (server_events.kind, docs/store.md). */
typedef enum ls_server_kind {
    LS_SRV_CHECKPOINT_START = 1, /* "checkpoint starting: ..." (log_checkpoints) */
    LS_SRV_CHECKPOINT,           /* "checkpoint complete: ..." */
    LS_SRV_AUTOVACUUM,           /* "automatic [aggressive ]vacuum ... of table" */
    LS_SRV_AUTOANALYZE,          /* "automatic analyze of table" */
    LS_SRV_TEMP_FILE             /* "temporary file: path ..., size N" (log_temp_files) */
} ls_server_kind;

const char *ls_server_kind_name(ls_server_kind k);

/* A relation as the server names it: "db.schema.table", three names of
 * at most NAMEDATALEN - 1 (63) bytes, the dots and the NUL. */
#define LS_SERVER_REL_MAX 192

typedef struct ls_server_ev {
    ls_server_kind kind;
    char relation[LS_SERVER_REL_MAX]; /* autovacuum, autoanalyze; "" otherwise */
    int64_t bytes;                    /* temp file size; -1 otherwise */
    double duration_ms;               /* checkpoint total=, autovacuum elapsed:; -1 if none */
} ls_server_ev;

typedef struct ls_event {
    ls_event_kind kind;
    const ls_record *rec;
    union {
        ls_lock_wait lock;
        ls_deadlock deadlock;
        ls_error_ev error;
        ls_statement_ev stmt;
        ls_conn_ev conn;
        ls_server_ev server;
    } u;
} ls_event;

#endif
