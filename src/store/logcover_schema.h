/*
 * logcover_schema.h — the two small tables that say what the log's
 * statement logging was, declared once (store_schema.h makes them, the
 * upgrade to schema 16 adds them, scope.c copies the second's columns for
 * a report window):
 *
 * - stmt_stats, ingest's: the statement rows counted as the store writer
 *   writes each of them once (stmtstats.c), added to by every ingest in
 *   the transaction that writes the rows (a crash loses both or neither).
 *   meta 'stmt_stats' = 'complete' says it counts every statement row the
 *   store holds (a new store, or one upgraded without statements); an
 *   upgraded store with statements, or one --retention cut, has no such
 *   mark and the "statement logging" pass counts the rows instead.
 * - logcover, the "statement logging" pass's (src/correlate/logging.c):
 *   the counts the verdict of decide/logcover.c rests on, the verdict and
 *   the holds it makes "at least", one row, which the report reads
 *   (reports/coverage.c).
 */
#ifndef LS_LOGCOVER_SCHEMA_H
#define LS_LOGCOVER_SCHEMA_H

#include "corr_tables.h" /* the columns, declared once */

/* One row (id 0) of sums over the logged statement rows (verb neither
 * NULL nor LS_VERB_SPAN): rows, rows with a duration, the shortest
 * duration (µs, NULL: none), rows whose text is BEGIN, COMMIT or
 * ROLLBACK (ls_sql_kind_of). */
#define LS_STMT_STATS_DDL LS_CREATE_TABLE(stmt_stats)

/* ls_logcover_in's fields, the verdict (ls_logcover) and the holds whose
 * end is only "at least" (ls_logcover_open_end). */
#define LS_LOGCOVER_COLS LS_TABLE_DEFN(logcover)
#define LS_LOGCOVER_DDL LS_CREATE_TABLE(logcover)

#endif
