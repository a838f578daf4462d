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

#define LS_STORE_SCHEMA_VERSION 3

typedef struct ls_store ls_store;
typedef struct ls_stmt ls_stmt;

typedef struct ls_file_stats {
    uint64_t bytes;     /* raw bytes read (compressed size for .gz) */
    uint64_t lines;
    uint64_t records;
    uint64_t bad_lines;
    ls_ts first_ts, last_ts;
} ls_file_stats;

/*
 * Open (creating if needed) the store at `path`. A store written by another
 * schema version is refused with a message. On failure *out is NULL and
 * errbuf says why.
 */
int ls_store_open(ls_store **out, const char *path, char *errbuf, size_t errlen);
void ls_store_close(ls_store *s);
/* Last SQLite error message of this store. */
const char *ls_store_errmsg(ls_store *s);

/* Explicit write transactions around a unit of ingest. */
int ls_store_begin(ls_store *s);
int ls_store_commit(ls_store *s);

/*
 * 1 when a file of this path and size was already ingested into the store
 * (a nightly job that sees the same rotated file twice), 0 when not.
 */
int ls_store_file_known(ls_store *s, const char *path, uint64_t bytes);

/* Register an input file; *file_id identifies it in later calls. */
int ls_store_file_begin(ls_store *s, const char *path, const char *format, const char *prefix,
                        int gzip, int64_t *file_id);
int ls_store_file_end(ls_store *s, int64_t file_id, const ls_file_stats *st);
/* Keep a sample of an unparsable line (callers cap how many per file). */
int ls_store_bad_line(ls_store *s, int64_t file_id, uint64_t line, const char *reason,
                      const char *text, size_t len);

/*
 * Persist one classified event. Statement rows are buffered and inserted
 * in groups: the event's strings must stay valid until the next
 * ls_store_flush() or ls_store_commit().
 */
int ls_store_event(ls_store *s, int64_t file_id, const ls_event *ev);
/* Persist one row of a pg_stat_activity snapshot. */
int ls_store_activity(ls_store *s, int64_t file_id, const ls_activity *a);

/* Persist one span of an application trace. */
int ls_store_span(ls_store *s, int64_t file_id, const ls_span *sp);

/* Write buffered rows now (before the memory behind their strings goes). */
int ls_store_flush(ls_store *s);

/* Build the indexes the analysis needs (after ingest, before correlation). */
int ls_store_index(ls_store *s);

/* ---- Statement API for correlation and reports ---- */

/* Run SQL with no result rows (may hold several statements). */
int ls_store_exec(ls_store *s, const char *sql);
int ls_store_prepare(ls_store *s, const char *sql, ls_stmt **out);
/* 1 = a row is ready, 0 = done, negative = store error. */
int ls_stmt_step(ls_stmt *st);
int ls_stmt_reset(ls_stmt *st);
void ls_stmt_finalize(ls_stmt *st);
int ls_stmt_bind_int64(ls_stmt *st, int idx, int64_t v);
int ls_stmt_bind_double(ls_stmt *st, int idx, double v);
int ls_stmt_bind_text(ls_stmt *st, int idx, const char *v); /* NULL binds NULL */
int ls_stmt_bind_null(ls_stmt *st, int idx);
int ls_stmt_isnull(ls_stmt *st, int col);
int64_t ls_stmt_int64(ls_stmt *st, int col);
double ls_stmt_double(ls_stmt *st, int col);
/* Column text, "" for NULL; valid until the next step/reset. */
const char *ls_stmt_text(ls_stmt *st, int col);

#endif
