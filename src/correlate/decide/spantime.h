/*
 * spantime.h — a logged statement's time from the span that sent it
 * (spantimes.c). A log with whole-second times (%t) says in which second
 * the server received a statement; the application's database span says
 * to the microsecond when it was sent and when its answer came back. Where
 * a trace's database spans are, in order, consecutive statements of one
 * session, each statement takes its span's start and end (on the database
 * clock), kept inside the second the log gives.
 */
#ifndef LS_DECIDE_SPANTIME_H
#define LS_DECIDE_SPANTIME_H

#include <stddef.h>
#include <stdint.h>

/*
 * A logged statement or a database span, as the match compares them: its
 * start (a statement's log time, a span's start on the database clock),
 * its text's hash (ls_span_text_hash()), a backend pid (0: a span that
 * names none) and a trace's hash (0: a statement whose text names no
 * trace).
 */
typedef struct ls_seq_item {
    int64_t ts;
    uint64_t text, trace;
    int64_t pid;
} ls_seq_item;

/* The hash of a statement's text without its trailing comment (a
 * sqlcommenter tag that the span's db.statement may lack), trailing
 * blanks and semicolons. Never 0. */
uint64_t ls_span_text_hash(const char *text);

/*
 * Whether database span sp may be logged statement st: the same text,
 * the same backend pid (when the span names one), the same trace (when
 * the statement's comment names one), and the span started within the
 * log's time of the statement: in [st.ts - slack, st.ts + res + slack]
 * (res: the log's time resolution, slack: the span's start before the
 * server's receipt and what the offset may be off by).
 */
int ls_span_is_stmt(const ls_seq_item *st, const ls_seq_item *sp, int64_t res, int64_t slack);

/*
 * Whether a trace's database spans sp[0..m) (in start order) are, one by
 * one, the statements st[0..n) (consecutive statements of one session, in
 * log order): m <= n and ls_span_is_stmt() for each pair. m = 0 is no
 * match.
 */
int ls_span_seq_fits(const ls_seq_item *st, size_t n, const ls_seq_item *sp, size_t m,
                     int64_t res, int64_t slack);

/*
 * A statement's start and duration from its span (both on the database
 * clock): the span's start, moved into the second the log gives
 * ([log_ts, log_ts + res - 1]: the server received the statement then),
 * and the time to the span's end (never below 0).
 */
void ls_stmt_time_from_span(int64_t log_ts, int64_t res, int64_t span_start, int64_t span_end,
                            int64_t *start, int64_t *dur);

#endif
