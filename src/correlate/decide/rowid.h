/*
 * rowid.h — what a wait is on: a logical row, a row version known only by
 * its ctid, or a lock target that is not a row. The logical rows pass
 * (ls_correlate_rows, holds.c) keys each wait from its evidence
 * (rowkey.c) and asks this for the row it is counted on.
 */
#ifndef LS_DECIDE_ROWID_H
#define LS_DECIDE_ROWID_H

#include <stddef.h>

/* Is a lock of this target_kind (lock_waits.target_kind; NULL: not
 * known) on a row? A transaction's (xmax, or a conflicting key being
 * inserted), a tuple's place in the queue, an INSERT's speculative token;
 * an unknown kind is taken for a row. A wait to extend a relation, for a
 * page, a table or an advisory lock is for its target, whatever its
 * statement names. */
int ls_is_row_lock(const char *target_kind);

/* A wait as the logical rows pass left it. Strings are never NULL but
 * evidence (how it was keyed, NULL when it was not). */
typedef struct ls_row_wait {
    int keyed;             /* a key was found: rel, key */
    const char *rel, *key; /* "" when unknown */
    const char *ctid;      /* "" when unknown */
    const char *evidence;  /* how it was keyed, or why not; NULL: no statement */
    const char *target_kind, *target;
} ls_row_wait;

#define LS_ROW_LOCK_TARGET "lock target"

/* How row_keys.evidence reads for a row only a deadlock's DETAIL named. */
#define LS_ROW_DEADLOCK_DETAIL "key in a deadlock process's statement"

/* How row_keys.evidence reads for a row only a serialization failure's
 * statement named. */
#define LS_ROW_SERIALIZATION "key in a statement that failed on a concurrent update"

/*
 * Does a serialization failure say that its statement's row was locked
 * by another transaction? PostgreSQL's "could not serialize access due to
 * concurrent update" (or "... delete") is raised by a REPEATABLE READ or
 * SERIALIZABLE statement that found its row updated by a transaction that
 * committed after its snapshot: the row was another's, often while the
 * failing statement queued for it (its wait below deadlock_timeout is
 * then logged nowhere else). The message (message, NULL: unknown) must
 * say so, in English (a translated one is not read: no evidence), and the
 * statement must name a key (keyed). The SSI failure "due to read/write
 * dependencies among transactions" names no row lock.
 */
int ls_serialization_names_row(const char *message, int keyed);

/* How row_keys.evidence reads for a row only a lock timeout's (or a
 * NOWAIT's) statement named. */
#define LS_ROW_LOCK_ERROR "key in a statement that failed on a lock timeout or NOWAIT"

/*
 * Does a lock error (SQLSTATE 55P03) say that its statement waited for
 * the row it names? "canceling statement due to lock timeout" ends a
 * statement that queued for a lock for lock_timeout (below
 * deadlock_timeout it logged no wait: samples/blind-java's recountShelf,
 * 500 ms on warehouses id=3, a row no logged wait names, so no hold of it
 * was counted and the error's holder stayed unknown); NOWAIT's "could
 * not obtain lock on row in relation ..." names a row lock outright. The
 * message must be one of those, in English (message NULL or translated:
 * no evidence; "could not obtain lock on relation" is a table's lock),
 * the statement (sql) must lock rows that exist (UPDATE, DELETE, SELECT
 * ... FOR UPDATE/SHARE: ls_finding_locks_rows; an INSERT's key is a row
 * nobody held) and name a key (keyed).
 */
int ls_lock_error_names_row(const char *message, const char *sql, int keyed);

/*
 * Does a deadlock's process say it waited for the row its statement
 * names? Its DETAIL edge ("Process N waits for ShareLock on transaction
 * X; blocked by process M", edge_kind the target's kind, NULL: no edge
 * read) must be for a row lock (ls_is_row_lock, but an unknown kind is
 * not enough here: no edge, no evidence), and its statement ("Process N:
 * ...") must name a key (keyed). A process whose wait stayed below
 * deadlock_timeout has no wait of its own in the log: this is the only
 * evidence that the row was held and waited for.
 */
int ls_deadlock_names_row(const char *edge_kind, int keyed);

/*
 * The row a wait is counted on, as (relation, key) and the evidence
 * stored with it: a keyed wait's own; a wait with no key but a ctid is
 * the fragment "ctid (b,o)" of its relation ("?" when unknown), its
 * evidence "ctid only: " and why; anything else is its lock target
 * (relation: the wait's, else the target's kind), evidence
 * LS_ROW_LOCK_TARGET. Fills rel, key and why (each of its size), and
 * returns the evidence: w->evidence, why, or a constant.
 */
const char *ls_row_of_wait(const ls_row_wait *w, char *rel, size_t rel_len, char *key,
                           size_t key_len, char *why, size_t why_len);

/* What a row known only by its ctid adds to its evidence when
 * ls_ctid_row_may_be_other() says so: LS_ROW_MAY_BE_VERSION
 * (ls_logcover.h, which the reports read it by). */
/*
 * May a row known only by a ctid (ctid_only: its evidence is "ctid
 * only: ...") be the same logical row as another row the report lists
 * apart? A row's ctid changes with every UPDATE, so without a key, a
 * ctid chain or any other evidence joining them, a ctid row of a relation
 * with other rows (rows_of_relation counts it and them, lock targets
 * left out) may be a version of any of them: samples/blind-pl's
 * warehouses id=1, waited for as ctids (0,13), (0,15) and (0,78), none
 * keyed (log_statement none, no parameters). Not for a relation the log
 * did not name (relation_known 0: "?" may be several relations), nor a
 * relation's one row.
 */
int ls_ctid_row_may_be_other(int ctid_only, int relation_known, long rows_of_relation);

#endif
