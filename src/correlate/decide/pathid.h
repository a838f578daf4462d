/*
 * pathid.h — what names a code path when nothing in the application does,
 * and the transaction shape that names it then.
 *
 * A code path is named by a span's code attributes, a server span's
 * route or name, or sqlcommenter / marginalia tags (traces.c). Without
 * any of those the session's application_name stood in; but on a pgbench
 * log, or an application behind one pool user, every session has the
 * same name and the whole ranking is one row. The name is kept only when
 * it partitions the holds (ls_path_identity_of()); otherwise a
 * transaction is named by its shape: the sequence of its statements, as
 * "UPDATE pgbench_accounts; SELECT pgbench_accounts; UPDATE
 * pgbench_branches" (ls_txshape_*()).
 */
#ifndef LS_DECIDE_PATHID_H
#define LS_DECIDE_PATHID_H

#include <stddef.h>
#include <stdint.h>

/* The largest application name's share of the unnamed holds, in percent,
 * from which the name no longer tells paths apart: one name that covers
 * 99 % of the holds ranks them as one path (pgbench beside an admin's
 * psql). Below it a second name is a code path of its own: in
 * samples/trigger-paths `ledger-import` has 9 % of the counter row's
 * holds and is a real path (at 90 % it was merged into the checkout's shape). */
#define LS_PATH_DOMINANT_PCT 99

typedef enum ls_path_identity {
    LS_PATH_BY_APPLICATION = 0, /* application_name, then the first write's shape */
    LS_PATH_BY_SHAPE            /* the transaction's shape */
} ls_path_identity;

typedef enum ls_path_reason {
    LS_PATH_NO_HOLDS = 0,   /* nothing to rank */
    LS_PATH_NAMED,          /* spans or tags name paths: the rest keep their name */
    LS_PATH_PARTITION,      /* the names split the holds, none dominant */
    LS_PATH_NO_NAME,        /* no session has a name */
    LS_PATH_ONE_NAME,       /* one name covers every unnamed hold */
    LS_PATH_DOMINANT        /* one name covers LS_PATH_DOMINANT_PCT % or more */
} ls_path_reason;

/* The holds of hot rows, by what names their transactions. */
typedef struct ls_path_names {
    int64_t holds;     /* every hold */
    int64_t named;     /* holds of transactions a span or a tag names */
    int64_t groups;    /* distinct application names among the others (no name is one) */
    int64_t top;       /* the others' holds under the most common of those */
    int top_blank;     /* that most common one is "no name" */
} ls_path_names;

/*
 * Whether application_name names the paths that spans and tags do not,
 * and why (*why, may be NULL). The name is kept when there is nothing to
 * rank, when spans or tags name some holds (the rest keep the names the
 * ranking had), or when two or more names share the unnamed holds with
 * none covering LS_PATH_DOMINANT_PCT % of them; else the shape names them.
 */
ls_path_identity ls_path_identity_of(const ls_path_names *n, ls_path_reason *why);

/* The reason as a phrase for the report ("one application_name covers
 * every hold"). */
const char *ls_path_reason_text(ls_path_reason r);

/* ---- transaction shapes ---- */

#define LS_TXSHAPE_STEP_MAX 96  /* bytes of one step: verb and relation */
#define LS_TXSHAPE_STEPS 64     /* steps (runs of one) kept per transaction */
#define LS_TXSHAPE_LABEL_MAX 160 /* bytes of a label before it is cut */

/* A transaction's steps so far: runs of equal steps, collapsed. */
typedef struct ls_txshape {
    struct ls_txshape_run {
        char step[LS_TXSHAPE_STEP_MAX];
        int n;
    } run[LS_TXSHAPE_STEPS];
    int nrun;
    int64_t dropped; /* steps past LS_TXSHAPE_STEPS runs */
} ls_txshape;

/*
 * The step of statement `sql` in out (at most n bytes, n > 0): its verb,
 * upper case, and the relation it writes or reads when it names one
 * ("UPDATE pgbench_branches", "SELECT pgbench_accounts", "SELECT").
 * Returns 0 for what frames a transaction (BEGIN, COMMIT, ROLLBACK),
 * which is no step, or for an empty text; 1 otherwise.
 */
int ls_txshape_step(const char *sql, char *out, size_t n);

/*
 * The step of statement `sql` as ls_txshape_step() gives it, but for an
 * SQL-level "EXECUTE name(args)": its step is the step of the statement
 * the name was prepared as, `prepared` (the body after AS of the session's
 * "PREPARE name(...) AS ...", as the server logged it with the EXECUTE,
 * ls_rowkey_effective()), so that two paths executing different bodies of
 * one name keep apart. With no prepared body known (NULL or empty) the
 * step is "EXECUTE name": the name at least. Anything else, DEALLOCATE
 * and PREPARE included, is its own step. Returns as ls_txshape_step().
 */
int ls_txshape_step_executed(const char *sql, const char *prepared, char *out, size_t n);

/* What a statement row is, for ls_txshape_row_is_step() (the callers map
 * stmt_rows.verb to it: pure, no store header here). */
typedef enum ls_txrow {
    LS_TXROW_STATEMENT = 0, /* an execute, a simple statement, a span's */
    LS_TXROW_BIND,          /* a bind line no execute joined */
    LS_TXROW_PARSE          /* a parse line alone */
} ls_txrow;

/*
 * Is a statement row of kind `row` a step of its transaction's shape
 * (issue 34)? A shape is what the code sent, not only what succeeded.
 * With durations logged, an extended-protocol statement writes parse,
 * bind and execute lines, and ingest joins them into the execute's row;
 * an execute that fails writes no line, so a bind row that no execute
 * joined is a statement that ran and ended in the ERROR after it (its
 * STATEMENT line has the same text), or one whose execute was too quick
 * to be logged: a step either way. A parse row alone ran nothing (its
 * bind failed, or a named statement is prepared for executes whose rows
 * are the steps): no step. Returns 1 or 0.
 */
int ls_txshape_row_is_step(ls_txrow row);

/* Whether `sql` runs a prepared statement (begins with the word EXECUTE):
 * its step then depends on its session's PREPARE, not on its text alone. */
int ls_txshape_executes(const char *sql);

/* Start an empty shape. */
void ls_txshape_init(ls_txshape *t);

/* Add step `step` (from ls_txshape_step()): a run of the previous step
 * grows, else a new run begins. */
void ls_txshape_add(ls_txshape *t, const char *step);

/*
 * The label of shape t in out (n bytes, at least LS_TXSHAPE_LABEL_MAX +
 * 32): the runs joined by "; ", a run of k > 1 as "STEP x k". A label
 * longer than LS_TXSHAPE_LABEL_MAX keeps the runs that fit and ends with
 * "; ... (+m more) #h", h the hex hash of the whole label, so that two
 * shapes cut alike keep apart. An empty shape is "(no statement)".
 * Returns the label's length.
 */
size_t ls_txshape_label(const ls_txshape *t, char *out, size_t n);

#endif
