/*
 * correlate_int.h — the passes of correlation, run in order by
 * ls_correlate() (correlate.c), each on the store inside one transaction.
 */
#ifndef LS_CORRELATE_INT_H
#define LS_CORRELATE_INT_H

#include "ls_correlate.h"
#include "ls_logcover.h"
#include "ls_params.h"
#include "store_sql.h"

/* The decisions, pure functions over plain values (src/correlate/decide/). */
#include "decide/chain.h"
#include "decide/clock.h"
#include "decide/hold.h"
#include "decide/cover.h"
#include "decide/errstmt.h"
#include "decide/link.h"
#include "decide/logpos.h"
#include "decide/hidden.h"
#include "decide/queue.h"
#include "decide/rowid.h"
#include "decide/rows.h"
#include "decide/stmt.h"
#include "decide/tolerances.h"
#include "decide/wait.h"

#include <string.h>

/* A statement text's text_id: texts are kept once, by the FNV-1a hash
 * ingest stores them under (store.c). Prepared with
 * ls_store_prepare_params(s, LS_TEXT_FIND_NAMED_SQL,
 * LS_PARAM_NAMES(LS_TEXT_FIND_PARAMS), &q), bound by LS_PARAM(tfp, hash)
 * and LS_PARAM(tfp, text). */
#define LS_TEXT_FIND_PARAMS(X, Q) X(Q, hash) X(Q, text)
LS_PARAMS(tfp, LS_TEXT_FIND_PARAMS);
#define LS_TEXT_FIND_NAMED_SQL "SELECT text_id FROM stmt_texts WHERE hash = :hash AND text = :text"

/* SQL for the session a pid (an SQL expression) had at time T: the
 * latest that began by then. */
#define SESSION_OF(PID, T)                                                               \
    "(SELECT se.session_id FROM sessions se WHERE se.pid = " PID                        \
    " AND coalesce(se.start_ts, se.first_ts, 0) <= " T                                  \
    " ORDER BY coalesce(se.start_ts, se.first_ts, 0) DESC LIMIT 1)"

static inline int64_t ls_text_hash(const char *text)
{
    return (int64_t)ls_fnv1a(text, strlen(text), LS_FNV1A_BASIS);
}

/* SQL: a line's place in the log, one integer, of a table T with file_id
 * and line: its file, then its line (a statement's stmt_id is not in log
 * order across sessions). NULL where the file is not known. As
 * ls_log_pos() (ls_store.h). */
#define LS_LOG_POS_SQL(T) "(" T ".file_id * 1099511627776 + " T ".line)"

/* SQL: the id of a hold's evidence TEXT (an SQL expression) in
 * hold_evidence, NULL when no hold has it (docs/store.md, hold_rows). */
#define LS_HOLD_EVIDENCE_ID(TEXT) \
    "(SELECT evidence_id FROM hold_evidence WHERE text = " TEXT ")"

/* intern.c: texts many derived rows share, stored once in `table`
 * (`id_col` INTEGER PRIMARY KEY, `text_col` TEXT UNIQUE) and referred to
 * by id. */
#define LS_INTERN_SLOTS 256

typedef struct ls_interner {
    ls_stmt *find, *add; /* text -> id; insert a text, returning its id */
    struct ls_intern_slot {
        char *text;
        int64_t id;
    } slot[LS_INTERN_SLOTS]; /* the texts seen last, by hash */
} ls_interner;

int ls_intern_open(ls_store *s, ls_interner *in, const char *table, const char *id_col,
                   const char *text_col);
void ls_intern_close(ls_interner *in);
/* The id of `text` in *id, stored now if the table did not have it. */
int ls_intern(ls_interner *in, const char *text, int64_t *id);

/* transactions.c: rebuild the transactions of the sessions involved in
 * waits, deadlocks and errors, and link waits, errors and deadlock
 * participants to them. */
int ls_correlate_transactions(ls_store *s, ls_correlate_stats *stats);
/* retries.c: the retry of each lock error (decide/retry.h), into retries. */
int ls_correlate_retries(ls_store *s, ls_correlate_stats *stats);

/* spans.c: statements from the database spans of sessions whose
 * statements the log does not show, on the database's clock. */
int ls_correlate_spans(ls_store *s, ls_correlate_stats *stats);
/* spans.c: TEMP table tx_anchor(tx_id, span_row): for each transaction
 * with a hold others waited for and a linked span, its nearest span,
 * upwards from the span with its code (else the linked span), that is
 * neither a database nor a client span (decide/span.h): the children of
 * that span overlapping a hold explain its time (siblings of the SQL). */
int ls_correlate_span_anchors(ls_store *s);

/* spantimes.c: in a log with whole-second times, the logged statements
 * that a trace's database spans sent take the spans' times (start, and
 * end as a duration); what they were is kept in stmt_span_time. Run after
 * ls_correlate_spans() (its clock offset is the first guess). */
int ls_correlate_span_times(ls_store *s, ls_correlate_stats *stats);

/* holds.c: logical rows (ctids joined by key), hold intervals of the
 * transactions that held them, queue depth over time, row statistics. */
int ls_correlate_rows(ls_store *s, ls_correlate_stats *stats);
/* quiet.c: the keys statements queued for, unlogged, behind another
 * transaction's hold (decide/quiet.h), made rows; after ls_correlate_rows. */
int ls_correlate_quiet_rows(ls_store *s, ls_correlate_stats *stats);
/* spanqueue.c: rows on which locking statements only the spans show
 * queued behind another request's transaction (decide/spanq.h). */
int ls_correlate_span_queue_rows(ls_store *s, ls_correlate_stats *stats);

/* One statement as ingest cut it and keyed it (ls_txcut_stmt, and its
 * tx_keys entry, key NULL when it has none), for ls_tx_each_statement(). */
struct ls_txcut_stmt;
struct ls_keypack_entry;
typedef int (*ls_tx_stmt_fn)(void *ctx, const struct ls_txcut_stmt *st,
                             const struct ls_keypack_entry *key);
/* Every statement of a session that ingest feeds its cut (not a span's,
 * not a parse or bind line), in stmt_id order, read from stmt_rows as the
 * transactions pass reads it (LOCK_STMTS_FROM, the pass's text cache),
 * with the row key ingest would have stored for it in tx_keys, to fn: 0,
 * or fn's or a store error (below 0). For the quiet-rows step when the
 * store has no whole cuts and keys (quiet.c). */
int ls_tx_each_statement(ls_store *s, ls_tx_stmt_fn fn, void *ctx);
int ls_correlate_holds(ls_store *s, ls_correlate_stats *stats);
int ls_correlate_queue(ls_store *s);
/* The one integer of `sql`'s first row, as a truth value, in *out (0 when
 * it has no row): a pass's question to the store ("are the cuts whole?").
 * 0 or a store error. */
int ls_correlate_flag(ls_store *s, const char *sql, int *out);
/* The resolution of the log's statement times, in *out: LS_MILLISECOND_US
 * (%m, csvlog, jsonlog), or LS_WHOLE_SECOND_US (%t) when no time has
 * sub-second digits but those a span gave. */
int ls_correlate_log_resolution(ls_store *s, int64_t *out);

/* traces.c: code paths of transactions (traces, sqlcommenter tags,
 * application names, statement shapes) and hold breakdowns. */
int ls_correlate_traces(ls_store *s, ls_correlate_stats *stats);

/* paths.c: each transaction's code path under every grouping, decided
 * once (decide/pathname.h) and stored interned (tx_code_rows.path_set,
 * path_sets, path_names); part of the code-paths pass, after the links
 * and path_identity. */
int ls_correlate_paths(ls_store *s);
/* paths.c: the path sets of transactions decided one by one as their
 * facts are read (traces.c, when no link can change them): open, the
 * set of each transaction's facts (its id in path_sets, stored now if
 * new), close (NULL is fine). */
typedef struct ls_paths ls_paths;
struct ls_path_facts;
int ls_paths_open(ls_store *s, ls_paths **out);
int ls_paths_set_of(ls_paths *c, const struct ls_path_facts *f, int64_t *set_id);
void ls_paths_close(ls_paths *c);

/* holdparts.c: each hold others waited for, its time split into span
 * children, SQL, COMMIT and idle (hold_parts); part of the code-paths
 * pass, after ls_correlate_span_anchors(). */
int ls_correlate_hold_parts(ls_store *s);

/* The holds waited for pass's sweep of its holds' statements (holds.c),
 * kept for the hold parts (holdparts.c), which read the same ranges by
 * the same rule: temp.waited_swept, each hold paired (its transaction's
 * session and stmt_id range), and temp.waited_stmts, its pairs. The
 * holds pass makes them; holdparts.c reads and drops them. */
#define LS_WAITED_STMTS_DROP                                                               \
    "DROP TABLE IF EXISTS temp.waited_swept; DROP TABLE IF EXISTS temp.waited_stmts;"
#define LS_WAITED_STMTS_DDL                                                                \
    "CREATE TEMP TABLE waited_swept(hold_id INTEGER PRIMARY KEY, session_id INTEGER,"      \
    " first_stmt INTEGER, last_stmt INTEGER);"                                             \
    "CREATE TEMP TABLE waited_stmts(hold_id INTEGER, stmt_id INTEGER,"                     \
    " PRIMARY KEY (hold_id, stmt_id)) WITHOUT ROWID;"

/* holdtimes.c: with whole-second log times, each hold's length as a range
 * and an estimate (hold_range); nothing otherwise. */
int ls_correlate_hold_ranges(ls_store *s);

/* cover.c: which holds of other transactions covered each row wait, and
 * by how much (row_cover); part of the code-paths pass. */
int ls_correlate_cover(ls_store *s);

/* hidden.c: the waits for hot rows the log does not show, reconstructed
 * from the holds (row_waits). */
int ls_correlate_hidden(ls_store *s, ls_correlate_stats *stats);
/* The holder a lock timeout's row had at the error where the log shows no
 * wait of it (causes.c): error_links.cause_tx; run at the end of the
 * transactions pass, whose holds and temp.failed_locks it reads (stamps
 * of resolution µs). */
int ls_correlate_error_causes(ls_store *s, int64_t resolution);

/* final.c: each hold and each row's totals as the passes that decide them
 * left them, one table each (hold_final, row_final) for the readers. */
int ls_correlate_final(ls_store *s, ls_correlate_stats *stats);

/* logging.c: the "statement logging" pass: the counts decide/logcover.c
 * decides on, its verdict and the holds it makes "at least", into the one
 * row of logcover (logcover_schema.h), which the report reads. */
int ls_correlate_logging(ls_store *s, ls_correlate_stats *stats);
/* The statement logging's verdict from the statements alone (logging.c:
 * decide/logcover.c), for the passes before the holds are known. */
int ls_correlate_stmt_logging(ls_store *s, ls_logcover *verdict);
/* slowkeys.c: on a threshold log, the keys that many slow locking
 * statements of `keys_sql` (rows of a packed `keys` column, ls_keypack.h)
 * name, and far fewer the relation's others (decide/slowkey.c), made rows
 * (LS_SLOWKEY_EVIDENCE); the last step of the logical-rows pass. */
int ls_correlate_slow_key_rows(ls_store *s, ls_correlate_stats *stats, const char *keys_sql);
/* The same over a report window's holds (scope.c, after the window's
 * views), into temp.logcover, which the report then reads; the
 * statement counts are the stored row's. ls_correlate_scope_leave() drops it. */
int ls_correlate_logcover_scope(ls_store *s);
/* Whether the log leaves out the transactions' boundaries
 * (ls_logcover_tx_ends_unlogged: log_statement = 'mod'), from the
 * statement counts alone, for the transactions pass's links to holders. */
int ls_correlate_tx_ends_unlogged(ls_store *s, int *unlogged);

/* summary.c: the "report summary" pass: the code-path rankings of the
 * default grouping, every path in the report's order, into path_ranking,
 * path_queueing and path_occupancy, and each row's queue buckets into
 * row_queue_buckets (summary_schema.h), which the report reads as they
 * are. */
int ls_correlate_summary(ls_store *s, ls_correlate_stats *stats);
/* The same for a report's scope (scope.c, after a window's views; a
 * grouping's tx_code columns label_sql and source_sql, aliased c) into
 * temp tables of those names, which the report then reads: the rankings,
 * and with `windowed` the queue buckets; ls_correlate_summary_leave()
 * drops them. 0 or an error code. */
int ls_correlate_summary_scope(ls_store *s, const char *label_sql, const char *source_sql,
                               int windowed);
int ls_correlate_summary_leave(ls_store *s);
/* Where the log's times are whole seconds (ls_log_resolution: its lock
 * messages and statement lines, not what spans timed), the range the log
 * allows of each path's waiting caused, as the blocking ranking sums it
 * (path_ranking's waiter_ms_caused; decide/waitrange.h), into
 * temp.path_caused_range(code_path, lo_ms, hi_ms) for a grouping's
 * tx_code columns label_sql and source_sql; over a window's views when
 * called after them (scope.c). Nothing (and no table) on a log with
 * sub-second times. 0 or an error code; ls_correlate_summary_leave()
 * drops it. */
int ls_correlate_caused_ranges(ls_store *s, const char *label_sql, const char *source_sql);
/* What a wait the log never showed was shorter than (hidden.c): the
 * shortest time a logged wait had waited at its first line, into *out (0:
 * no wait logged). 0 or an error code. */
int ls_correlate_unlogged_bound(ls_store *s, int64_t *out);

/* Whether the log's lock messages carry sub-second times (%m, csvlog) or
 * whole seconds (%t): *subsecond stays 1 when the store has none. */
int ls_log_subsecond(ls_store *s, int *subsecond);

/* The resolution of the log's times (spans.c): LS_WHOLE_SECOND_US when
 * the store has lock messages or logged statements and every one of them
 * is stamped on a whole second (%t; statements spantimes.c re-timed from
 * their spans not counted), else 0 (sub-second, or nothing to tell). */
int ls_log_resolution(ls_store *s, int64_t *res);

/* Transactions of one logged statement that ran inside a BEGIN and a
 * COMMIT (ROLLBACK) of its request's trace end there, and their holds
 * (txspans.c; the transactions pass, before it links waits). *rebuilt:
 * how many. */
/* The hot rows (row_id) a statement of text `text` locks, at most max of
 * them in rows (*n): the transactions pass's reading of a statement. */
typedef int (*ls_text_rows_fn)(void *ctx, const char *text, int64_t *rows, size_t max,
                               size_t *n);
int ls_tx_from_spans(ls_store *s, ls_interner *evidence, ls_text_rows_fn rows_of, void *ctx,
                     int64_t *rebuilt);

/* The evidence of a row the quiet-rows rule made (quiet.c): every wait
 * on it below deadlock_timeout; its bounded variant begins the same. The
 * hot_counter_row rule counts such a row's queued statements as its waits. */
/* span_placement.how of an ORM's span that duplicates its driver's span
 * of the same statement (spans.c places it; every later reader skips it). */
#define LS_HOW_ORM_SPAN "ORM span of a driver span"
#define LS_QUIET_EVIDENCE "statements queued below deadlock_timeout"

/* The holds others waited for, as the breakdowns (holdparts.c's span
 * parts, the anchors in spans.c) and the external-call rule read them
 * (their columns hold_id, row_id, tx_id, start_ts, end_ts, waits,
 * waiter_ms): those with a logged wait behind them (hold_final_waited);
 * and, on a row no logged wait names (every wait on it rebuilt: quiet.c,
 * spanqueue.c, samples/blind-zk's warehouses id=1), those a rebuilt wait
 * of at least LS_HOT_HIDDEN_MIN_US queued behind (hidden.c's row_waits,
 * read from those rows alone). A UNION ALL, not an OR, so the first reads
 * the waited holds' index, not every hold (check_stmt_growth.py). */
#define LS_HOLD_WAITED_COLS "hold_id, row_id, tx_id, start_ts, end_ts, waits, waiter_ms"

/*
 * The two indexes of every hold, one definition each for the transactions
 * pass's working table (hold_rows: holds_row, holds_tx_row) and the final
 * holds and rows pass's (hold_final: hold_final_row, hold_final_tx).
 * SQLite's transfer optimization copies an index of the source whose
 * columns are those of the destination's entry by entry, in order, so the
 * final pass copies them with the holds instead of sorting every hold
 * twice again (issue 38: 9.4 M VM steps at 1 GiB, and most of the pass's
 * CPU). A row's holds in start order, ties by transaction (the order the
 * report and the row cover read them in), with their ends and waits (the
 * rows' totals, holds.c, read them from it alone); a transaction's holds
 * by row (the links' probes of a transaction's hold of a row), with their
 * waits (the findings' serial capacity reads them from it alone).
 */
#define LS_HOLDS_ROW_KEY "(row_id, start_ts, tx_id, end_ts, waits)"
#define LS_HOLDS_TX_KEY "(tx_id, row_id, waits)"
#define LS_HOLDS_WAITED_SQL                                                                        \
    "(SELECT " LS_HOLD_WAITED_COLS " FROM holds WHERE waits > 0"                                   \
    " UNION ALL SELECT " LS_HOLD_WAITED_COLS " FROM holds WHERE waits = 0 AND hold_id IN"          \
    " (SELECT rw.behind_hold FROM row_keys k CROSS JOIN row_waits rw ON rw.row_id = k.row_id"     \
    "  WHERE k.waits = 0 AND rw.kind = 'inferred'"                                                 \
    "  AND rw.wait_ms * 1000 >= " LS_SQL_INT(LS_HOT_HIDDEN_MIN_US) "))"

#endif
