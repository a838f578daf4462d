/*
 * span.h — what a trace's span tree says about a transaction. The
 * statements-from-spans pass (spans.c) asks which database spans are one
 * statement (an ORM's span and its driver's); the code-paths pass asks
 * which span's children explain the time of a hold (the transaction's
 * nearest non-database ancestor: siblings of the SQL count).
 */
#ifndef LS_DECIDE_SPAN_H
#define LS_DECIDE_SPAN_H

#include <stddef.h>
#include <stdint.h>

/*
 * Can a span be the anchor whose children explain a transaction's time?
 * Not a database span (is_db: it has a statement or a database system;
 * an ORM's span and a connect span are database spans too) and not a
 * client span (kind LS_SPAN_CLIENT: a call out, whose time its caller's
 * siblings count; a database call that appears under it is a context
 * the instrumentation leaked, not work the call did). Any other kind
 * (server, internal, producer, consumer, unspecified) can.
 */
int ls_span_is_anchor(int kind, int is_db);

/*
 * Are two database statement texts one statement, written by an ORM and
 * by the driver it called? Equal, or equal once each placeholder of one
 * style is read as one of the other's: "?" (knex, Sequelize, JDBC), "$n"
 * (PostgreSQL's numbered parameters) and ":name" (TypeORM's
 * ":orm_param_0"; a cast's "::type" is none), any against any other;
 * within one style the text counts ("$1" is not "$2"). NULL or empty
 * texts are never one statement. Case and spacing count (an ORM passes
 * its text to the driver unchanged but for the placeholders).
 */
int ls_span_same_statement(const char *a, const char *b);

/*
 * Is a database span whose "statement" is no SQL but the ORM's record of
 * its call, a JSON object or array (the npm TypeORM instrumentation's
 * increment, decrement and insert: {"entityClass":"PageCounter",
 * "conditions":{"slug":"home"},...}), the ORM's span of its one child's
 * statement? Its text is JSON (outer_text, NULL: none) and exactly one
 * database span with a statement is its child (db_children). The parent
 * is, whatever the times say, as for ls_span_is_orm_of: the JS SDK's
 * TypeORM span can end before its pg.query child begins (blind-ts,
 * trace c91cb2a2...: increment ends at .699787, its UPDATE runs .701 to
 * .707). Texts that are SQL are one statement only as
 * ls_span_same_statement says.
 */
int ls_span_orm_call_of(const char *outer_text, int db_children);

/*
 * Of two database spans of one trace that are one statement, is `outer`
 * the ORM's span that wraps the driver's `inner`? Its interval contains
 * inner's, each end within LS_SPAN_NEST_SLACK_US (the two instrumentations
 * read the clock at different moments). Equal intervals nest both ways:
 * the caller breaks the tie.
 */
int ls_span_wraps(int64_t outer_start, int64_t outer_end, int64_t inner_start,
                  int64_t inner_end);

/* Two database spans a and b of one trace, one statement (as
 * ls_span_same_statement says): whether a is the parent of b, b the
 * parent of a, their intervals, and whether a is later in the store. */
typedef struct ls_span_pair {
    int a_parent_of_b, b_parent_of_a;
    int64_t a_start, a_end, b_start, b_end;
    int a_later;
} ls_span_pair;

/*
 * Is a the ORM's span around b, the driver's? The parent is, whatever
 * the times say (the JS SDK gives starts to the millisecond, and knex's
 * span can end before pg's); with neither the other's parent, a is when
 * it wraps b (ls_span_wraps) and b does not wrap a, or both wrap each
 * other and a is the later one. So of two spans of one statement at most
 * one is the ORM's.
 */
int ls_span_is_orm_of(const ls_span_pair *p);

/*
 * A trace's database spans that logged statements of several sessions
 * match (each its text within the match window of its start) are on one
 * backend when one pid fits them all: a request's calls run on one
 * connection, as placing a span by its trace's other spans assumes. Of
 * the pids v[0..n) that fit some of the trace's k such spans (fits: how
 * many), the one that fits all k when it is the only one; of several
 * that do, the one whose statements all lie inside their spans within
 * LS_SPAN_FIT_SLACK_US (worst_us: the most one of its statements lies
 * outside its span, the nearest of its statements to each span counted)
 * when it is the only one and k is at least LS_SPAN_FIT_MIN_SPANS; 0 when none or several do (then no span of it
 * is placed). samples/blind-ts: a /pages/hit request's START, UPDATE,
 * SELECT and COMMIT each match 2-4 of the 12 clients' sessions, and one
 * session all four; 66 of its requests have 2 or 3 sessions that fit
 * all four within the match window, of which one inside the spans.
 */
typedef struct ls_pid_fit {
    int64_t pid, fits;
    int64_t worst_us;
} ls_pid_fit;
int64_t ls_span_trace_pid(const ls_pid_fit *v, size_t n, int64_t k);

#endif
