/*
 * ls_store.h — the SQLite store: the only module that speaks SQLite.
 *
 * Ingest writes events through ls_store_event() inside explicit
 * transactions with prepared statements. Correlation and reports read and
 * derive through the small statement API below (ls_stmt), which keeps
 * sqlite3.h out of every other file. The schema is documented in
 * docs/store.md and versioned with PRAGMA user_version.
 */
#ifndef LS_STORE_H
#define LS_STORE_H

#include <stdint.h>

#include "ls_event.h"
#include "ls_activity.h"
#include "ls_span.h"

#define LS_STORE_SCHEMA_VERSION 20

/* A line's place in the log as one integer: its file, then its line
 * (tx_cuts.first_pos, transactions.first_pos; correlate_int.h's
 * LS_LOG_POS_SQL computes the same in SQL). Never 0: file ids begin at 1. */
static inline int64_t ls_log_pos(int64_t file_id, int64_t line)
{
    return file_id * ((int64_t)1 << 40) + line;
}

/* stmt_rows.verb: the statement line's verb as stored (the statements view
 * gives the text). Execute and bind, the commonest, cost no byte. */
enum {
    LS_VERB_EXECUTE = 0,
    LS_VERB_BIND = 1,
    LS_VERB_PARSE = 2,
    LS_VERB_STATEMENT = 3,
    LS_VERB_NONE = 4, /* a duration line without a statement: verb '' */
    LS_VERB_SPAN = 5  /* made from a trace span by correlation (spans.c) */
};

/* The page cache, in KiB (PRAGMA cache_size = -N): memory stays flat
 * whatever the log size. SQLite's sorter (ORDER BY, GROUP BY, CREATE
 * INDEX) may hold as much memory as the page cache before it spills to
 * temp files, so around a big sort the cache is lowered to
 * LS_STORE_SORT_CACHE_KIB: ls_store_sorting(), ls_store_exec_sorting().
 * Ingest's bulk load runs with the lowered cache too: appending, it keeps
 * only each table's last pages hot. */
#define LS_STORE_CACHE_KIB "16384"
#define LS_STORE_SORT_CACHE_KIB "4096"
#define LS_STORE_CACHE_PRAGMA "PRAGMA cache_size = -" LS_STORE_CACHE_KIB ";"

typedef struct ls_store ls_store;
typedef struct ls_stmt ls_stmt;

typedef struct ls_file_stats {
    uint64_t bytes;     /* raw bytes read (compressed size for .gz) */
    uint64_t lines;     /* the file's lines so far (a resumed file: all of them) */
    uint64_t records;   /* records read in this run (added to the stored count) */
    uint64_t bad_lines; /* likewise */
    ls_ts first_ts, last_ts;
    /* Resume point: decompressed bytes of whole lines ingested, the hash of
     * the last of those lines, and the hash of the first line (the file's
     * identity). 0 = none (stdin). */
    uint64_t text_bytes, tail_hash, fingerprint;
    const char *prefix; /* log_line_prefix the parser used (given or inferred), or NULL */
} ls_file_stats;

/* A stored file whose first line has a given fingerprint: where it ended. */
typedef struct ls_file_progress {
    int64_t file_id;
    char format[16];
    char prefix[256];   /* "" when none was used */
    uint64_t text_bytes, lines, tail_hash;
} ls_file_progress;

/*
 * Open (creating if needed) the store at `path`. A store written by another
 * schema version is refused with a message. On failure *out is NULL and
 * errbuf says why.
 */
int ls_store_open(ls_store **out, const char *path, char *errbuf, size_t errlen);
/*
 * The same, waiting up to `busy_ms` milliseconds while another process
 * holds the store (ls_store_open waits LS_STORE_BUSY_MS;
 * LS_STORE_WAIT_FOREVER waits as long as the other run needs). One
 * lockspan run holds a store at a time, from open to close: the others
 * queue (ls_store_lock). When it is still busy, LS_ESTORE with errbuf
 * saying the store is in use. A new store follows the umask. `path` "" is
 * a private store in the temporary directory, deleted by the system as
 * soon as it is closed or the process dies.
 */
#define LS_STORE_WAIT_FOREVER (-1)
#define LS_STORE_BUSY_MS LS_STORE_WAIT_FOREVER
int ls_store_open_wait(ls_store **out, const char *path, int busy_ms, char *errbuf,
                       size_t errlen);
/*
 * Told once, before waiting, that another process holds the store at
 * `path`: `holder` is its pid (0 when the system does not say), busy_ms
 * how long the wait may last (LS_STORE_WAIT_FOREVER: as long as it takes),
 * so that a run queued behind another says so instead of nothing.
 */
typedef void (*ls_store_wait_note)(void *ctx, const char *path, long holder, int busy_ms);
/* ls_store_open_wait, telling `note` (with `ctx`) when it has to wait. */
int ls_store_open_note(ls_store **out, const char *path, int busy_ms, ls_store_wait_note note,
                       void *ctx, char *errbuf, size_t errlen);
/* Checkpoints what this connection committed to disk, then closes. */
void ls_store_close(ls_store *s);
/*
 * The run lock of the store at `path` (created empty when missing): an
 * exclusive flock() on the file, waited for as ls_store_open_wait() says.
 * *out is the descriptor that holds it, for ls_store_unlock(); it must
 * stay open while this process has the store open in SQLite (closing any
 * descriptor of a file drops the process's POSIX locks on it, SQLite's).
 * A file renamed over `path` while this run waited is locked instead. Used
 * by ls_store_open_wait(), and by analyze to put a new store in place of
 * one an ingest or report may be using.
 */
int ls_store_lock(const char *path, int busy_ms, int *out, char *errbuf, size_t errlen);
/* ls_store_lock, telling `note` (with `ctx`) when it has to wait. */
int ls_store_lock_note(const char *path, int busy_ms, ls_store_wait_note note, void *ctx,
                       int *out, char *errbuf, size_t errlen);
void ls_store_unlock(int fd);
/*
 * PRAGMA quick_check of the whole store: 0 when sound, else LS_ESTORE with
 * errbuf giving SQLite's first complaint. Ingest runs it before writing,
 * so that a damaged store stops the run at once instead of taking rows
 * that no report can read.
 */
int ls_store_check(ls_store *s, char *errbuf, size_t errlen);
/*
 * The first SQLite error met since the store was opened (kept when it
 * happened, so a later ROLLBACK does not replace it), else SQLite's last
 * message.
 */
const char *ls_store_errmsg(ls_store *s);

/*
 * 1 when `path` is a lockspan store (an SQLite file with lockspan's meta
 * table, any schema version) or an SQLite file with no tables yet (a run
 * killed while creating it), 0 when it is something else, negative when it
 * cannot be read (errbuf says why). A journal a killed run left is rolled
 * back, as any SQLite client would.
 */
int ls_store_probe(const char *path, char *errbuf, size_t errlen);

/* meta table: set a key (inside or outside a transaction), read one ("" when absent). */
/* Pages read from the file since the last call (SQLite's cache misses):
 * LOCKSPAN_TIMING prints them per correlation pass, a measure of I/O that
 * the machine's load does not blur. */
int64_t ls_store_cache_misses(ls_store *s);
/* SQLite virtual machine instructions run since the last call (the first
 * call starts the count and returns 0). LOCKSPAN_TIMING prints them per
 * correlation pass: unlike time, the count is the same on every run, so
 * its growth per MB of log tells whether a pass scales linearly. */
int64_t ls_store_vm_steps(ls_store *s);
int ls_store_meta_set(ls_store *s, const char *key, const char *value);
int ls_store_meta_get(ls_store *s, const char *key, char *buf, size_t len);

/* Explicit write transactions around a unit of ingest. */
int ls_store_begin(ls_store *s);
int ls_store_commit(ls_store *s);

/*
 * Transactions cut while statements are written (tx_cuts, ls_txcut.h):
 * an ingest calls ls_store_cuts_begin() in its first transaction and
 * ls_store_cuts_end() in its last, before ls_store_commit(). meta's
 * 'tx_cuts' is 'complete' only after an end whose cuts cover every
 * statement of the log the store holds (not a store that held statements
 * before it had cuts); until then the transactions pass reads the
 * statements themselves. The transactions pass empties tx_cuts once it
 * has read them (a transaction is stored once, in transactions), and the
 * correlation then calls ls_store_cuts_consumed(): meta's 'tx_cuts' is
 * 'consumed', and a later ingest into the store cuts nothing, as for a
 * store ingested before it had cuts (the next correlation reads the
 * statements).
 */
int ls_store_cuts_begin(ls_store *s);
int ls_store_cuts_end(ls_store *s);
int ls_store_cuts_consumed(ls_store *s);

/*
 * Stored files whose first line hashes to `fingerprint` (the same file,
 * whatever its name or compression, or another one beginning alike), up to
 * `max`, largest resume point first; *n is how many.
 */
int ls_store_file_lookup(ls_store *s, uint64_t fingerprint, ls_file_progress *out, int max,
                         int *n);

/* Register an input file; *file_id identifies it in later calls. */
int ls_store_file_begin(ls_store *s, const char *path, const char *format, const char *prefix,
                        int gzip, int64_t *file_id);
/*
 * A file's stats at the end of a run over it: lines, resume point and
 * prefix replace the stored ones, records and bad lines add to them, the
 * time range widens. Written in the transaction of the run's rows, so the
 * resume point is exactly what the store holds.
 */
int ls_store_file_end(ls_store *s, int64_t file_id, const ls_file_stats *st);
/* Keep a sample of an unparsable line (callers cap how many per file). */
int ls_store_bad_line(ls_store *s, int64_t file_id, uint64_t line, const char *reason,
                      const char *text, size_t len);

/*
 * Persist one classified event. Statement rows are buffered and inserted
 * in groups: the event's strings must stay valid until the next
 * ls_store_detach() or ls_store_commit().
 */
int ls_store_event(ls_store *s, int64_t file_id, const ls_event *ev);
/* Persist one row of a pg_stat_activity snapshot. */
int ls_store_activity(ls_store *s, int64_t file_id, const ls_activity *a);

/* Persist one span of an application trace. */
int ls_store_span(ls_store *s, int64_t file_id, const ls_span *sp);

/* The memory behind the events' strings is about to go: the rows still
 * buffered take copies of theirs (written now if there is no memory);
 * what an earlier call copied is not copied again. */
int ls_store_detach(ls_store *s);

/* Build the indexes the analysis needs (after ingest, before correlation;
 * or before a load that other threads' parsing overlaps). */
int ls_store_index(ls_store *s);

/* ---- Statement API for correlation and reports ---- */

/* Run SQL with no result rows (may hold several statements). */
int ls_store_exec(ls_store *s, const char *sql);
/*
 * Sorting ahead (on = 1) or done (on = 0): the page cache is lowered for
 * the sorter while at least one sort is on (calls nest), and set back
 * after the last. Ingest's bulk load counts as one.
 */
int ls_store_sorting(ls_store *s, int on);
/* ls_store_exec() of SQL that sorts much (CREATE INDEX, a big ORDER BY). */
int ls_store_exec_sorting(ls_store *s, const char *sql);
/* Prepare sql into *out: a query of numbered parameters (?N) or none; one
 * of named parameters (:name) fails: it is prepared with its list, below. */
int ls_store_prepare(ls_store *s, const char *sql, ls_stmt **out);
/*
 * Prepare a query whose parameters are named and declared (ls_params.h):
 * `names` is LS_PARAM_NAMES(LIST). _params: the SQL's parameters are
 * exactly the list's, in its order, so that LS_PARAM(Q, name) is each
 * one's index; _vocab: each is one of the list's names, found with
 * ls_stmt_param(). A statement that differs fails to prepare (LS_ESTORE,
 * its message naming the parameter): a bug of the query, found by the
 * first run of it.
 */
int ls_store_prepare_params(ls_store *s, const char *sql, const char *names, ls_stmt **out);
int ls_store_prepare_vocab(ls_store *s, const char *sql, const char *names, ls_stmt **out);
/*
 * From now on, statements prepared (ls_store_prepare, ls_store_exec) may
 * write only what `owns` names: space-separated tables ("rows") and
 * columns ("errors.tx_id") of the main database; temp tables are free.
 * A statement that writes anything else fails to prepare, with a message
 * naming `who` and what it wrote. NULL owns: no guard. Correlation runs
 * each pass under the tables its pass table entry owns. `who` (a string
 * that outlives the store) also names the pass of each statement that
 * LOCKSPAN_TIMING=sql prints.
 */
int ls_store_guard_writes(ls_store *s, const char *who, const char *owns);

/* The connection's statements (store_schema.h, LS_STMT_ROWS_TEMP_DDL):
 * on, made anew for what stmt_span_time holds now (temp.stmt_rows, a
 * copy with the span times, in front of the table when it holds a row,
 * and temp.statements); off, dropped, so that stmt_rows is the table
 * again (ingest writes it).
 * Correlation makes them after the pass that writes stmt_span_time, the
 * report for its queries. */
int ls_store_stmt_views(ls_store *s, int on);
/* 1 = a row is ready, 0 = done, negative = store error. */
int ls_stmt_step(ls_stmt *st);
/* The rowid of the row the last INSERT run on st's store added
 * (sqlite3_last_insert_rowid): an INSERT's rowid without a RETURNING
 * clause, whose buffering of its result cost a statement a third more
 * VM steps. */
int64_t ls_stmt_last_rowid(const ls_stmt *st);
int ls_stmt_reset(ls_stmt *st);
void ls_stmt_finalize(ls_stmt *st);
/*
 * Binds return 0 or a store error, and the first failure is also kept in
 * the statement until ls_stmt_reset(): ls_stmt_step() returns it without
 * running the statement. So a bind's result may be left to the step, as
 * SQLite leaves an error to sqlite3_errcode(); no failed bind runs a query.
 */
int ls_stmt_bind_int64(ls_stmt *st, int idx, int64_t v);
int ls_stmt_bind_double(ls_stmt *st, int idx, double v);
int ls_stmt_bind_text(ls_stmt *st, int idx, const char *v); /* NULL binds NULL */
int ls_stmt_bind_null(ls_stmt *st, int idx);
/* The largest parameter index the statement has (?N), 0 for none. */
int ls_stmt_params(ls_stmt *st);
/* The index of the statement's parameter :name (name without the ':'),
 * 0 when it has none: look it up once per prepared statement. */
int ls_stmt_param(ls_stmt *st, const char *name);
int ls_stmt_isnull(ls_stmt *st, int col);
int64_t ls_stmt_int64(ls_stmt *st, int col);
double ls_stmt_double(ls_stmt *st, int col);
/* Column text, "" for NULL; valid until the next step/reset. */
const char *ls_stmt_text(ls_stmt *st, int col);
/* Column text, NULL for NULL; valid until the next step/reset. */
const char *ls_stmt_text_or_null(ls_stmt *st, int col);

#endif
