/*
 * ls_parser.h — the interface every log format parser implements.
 *
 * Input is framed into lines before it reaches a parser (ls_input.h); the
 * parser assembles lines into ls_records and passes each to the sink.
 * Parsers know nothing of SQLite. A line the parser cannot use is reported
 * to sink->bad() and counted, never fatal.
 */
#ifndef LS_PARSER_H
#define LS_PARSER_H

#include <stdint.h>

#include "ls_activity.h"
#include "ls_record.h"
#include "ls_span.h"

/*
 * The reason a stderr line is bad when its log_line_prefix matched and the
 * word after it is no severity or field label lockspan knows, with no
 * record of its process open to take it as a label: a message catalog
 * lockspan has no table for, not a wrong prefix (ingest counts these).
 */
#define LS_BAD_UNKNOWN_WORD                                                                        \
    "after the log_line_prefix, a severity or field word no message table knows (the server's "    \
    "message catalog is one lockspan does not know: lc_messages = 'C' on the server)"

/* Bad stderr lines of a record whose first line is not in the input (a
 * log cut mid-record): the prefix is right for them too. */
#define LS_BAD_ORPHAN_CONTINUATION "continuation line without a record before it"
#define LS_BAD_ORPHAN_FIELD "secondary line with no message of its process before it"

typedef struct ls_sink {
    /* A complete record. Return 0, or a negative code to stop the run. */
    int (*record)(void *ctx, const ls_record *rec);
    /* A line that could not be parsed; `text` is len bytes of it. */
    void (*bad)(void *ctx, const char *file, uint64_t line, const char *reason,
                const char *text, size_t len);
    /* Something the user should know about the file (e.g. an inferred
     * log_line_prefix): about `line` (as fed to the parser), or about the
     * file as a whole (0). May be NULL. */
    void (*note)(void *ctx, const char *file, uint64_t line, const char *msg);
    void *ctx;
    /* A span of an application trace (trace parsers only); may be NULL,
     * then trace parsers drop their spans. Return 0 or a negative code.
     * Last, so that initialisers without it leave it NULL. */
    int (*span)(void *ctx, const ls_span *sp);
    /* A row of a pg_stat_activity snapshot (activity parser only); may be
     * NULL. Return 0 or a negative code. */
    int (*activity)(void *ctx, const ls_activity *a);
} ls_sink;

typedef struct ls_parse_opts {
    const char *file;   /* name used in messages and records */
    const char *prefix; /* log_line_prefix for stderr logs; NULL = default */
    /* prefix was inferred from an earlier part of the file (a file read
     * on): a line it does not match is inferred again, as after a change
     * in mid-file, instead of being unparsable. A server started just
     * before the first part logged only lines of processes without a
     * session, which %q cuts short. */
    int prefix_inferred;
} ls_parse_opts;

typedef struct ls_parser_ops {
    const char *name; /* "stderr", "csvlog", "jsonlog", ... */
    /*
     * How sure the parser is, from 0 (not this format) to 100, that a file
     * whose first line is `line` (len bytes, no '\n') is in its format. The
     * ingest driver picks the most confident parser; all 0 = not a log.
     */
    int (*sniff)(const char *line, size_t len);
    int (*create)(void **out, const ls_parse_opts *opts, const ls_sink *sink,
                  char *errbuf, size_t errlen);
    /* One line without its '\n'; lineno counts from 1. */
    int (*feed)(void *state, const char *line, size_t len, uint64_t lineno);
    /* End of input: flush whatever is pending. */
    int (*finish)(void *state);
    void (*destroy)(void *state);
} ls_parser_ops;

extern const ls_parser_ops ls_stderr_parser;
/*
 * Feed the stderr parser a line taken out of a syslog message: `pid` and
 * `ts` (0 and LS_TS_NONE when unknown) come from the syslog header and
 * stand in for %p and the time when the log_line_prefix has none.
 */
int ls_stderr_feed_headed(void *state, const char *line, size_t len, uint64_t lineno, int pid,
                          ls_ts ts);
/* Before the first line: infer a prefix that may lack %p and a time. */
void ls_stderr_set_headed(void *state);
/*
 * The lines that follow come from another file of the same run: without
 * --prefix its prefix is inferred from its own first lines (the one in
 * force stays when that fails), or `stored_prefix` (not NULL or "") is
 * used, the one the store keeps for a file read on.
 */
int ls_stderr_next_file(void *state, const char *stored_prefix);
extern const ls_parser_ops ls_activity_parser;
extern const ls_parser_ops ls_syslog_parser;
extern const ls_parser_ops ls_csvlog_parser;
extern const ls_parser_ops ls_jsonlog_parser;
extern const ls_parser_ops ls_otlp_parser;
extern const ls_parser_ops ls_jaeger_parser;
extern const ls_parser_ops ls_zipkin_parser;

/*
 * Feeding a line in pieces, for parsers that read lines of any length (the
 * trace parsers: an export may be one JSON document on one line): `more` =
 * 1 when the line goes on in the next call, with the same lineno. The
 * function for `ops`, or NULL when it takes whole lines only (feed).
 */
typedef int (*ls_feed_part_fn)(void *state, const char *part, size_t len, uint64_t lineno,
                               int more);
ls_feed_part_fn ls_parser_feed_part(const ls_parser_ops *ops);

/* Every parser, for format detection; NULL-terminated (parsers/registry.c). */
extern const ls_parser_ops *const ls_parsers[];

/* The parser named `name`, or NULL. */
const ls_parser_ops *ls_parser_find(const char *name);

#endif
