/*
 * wait.h — decisions about one lock wait episode: which messages make it,
 * when it began and ended, whether it was on at a moment, and whether an
 * error ended it. Pure functions over plain values: no store, no I/O.
 */
#ifndef LS_DECIDE_WAIT_H
#define LS_DECIDE_WAIT_H

#include <stddef.h>
#include <stdint.h>

#include "logpos.h"

/* A wait episode's times and the log positions of its first and closing
 * messages (end zero when the closing position is unknown). */
typedef struct ls_wait_span {
    int64_t start_ts, end_ts;
    int has_end;
    ls_logpos first, end;
} ls_wait_span;

/*
 * Was the wait open when the message at time t, log position pos, was
 * written? A closing message logged before pos ended it (at pos: still
 * on); without its position, an end before t. Its first message at or
 * before pos: it had begun. Logged later, it began "after X ms" before:
 * with sub-second times a start at or before t; with whole seconds
 * (`subsecond` 0) only a start a whole second or more before t is sure.
 */
int ls_wait_open_at(const ls_wait_span *w, int64_t t, ls_logpos pos, int subsecond);

/* "after X ms" in whole microseconds, rounded to the nearest. */
int64_t ls_wait_after_us(double after_ms);

/*
 * Does a lock message of the process and target of an open episode go on
 * with it? after_lock: 1 the message directly follows another lock message
 * of its session (goes on), 0 something else of the session came between
 * (another wait), -1 unknown: then times decide, the start the message
 * implies (implied_start) at most the timestamps' resolution after the
 * episode's latest message (last_ts).
 */
int ls_wait_goes_on(int after_lock, int64_t implied_start, int64_t last_ts, int subsecond);

/*
 * The episode's start once a message at ts saying "after `after_us`" is
 * added to it (start: the start so far): the earliest start its messages
 * imply, with sub-second times; whole-second times keep the first
 * message's.
 */
int64_t ls_wait_start_with(int64_t start, int64_t ts, int64_t after_us, int subsecond);

/*
 * The end of an episode that began at `start`, closed by a message at ts
 * saying "after `after_us`": the start plus that, when earlier than the
 * line's own time (sub-second times only); else the line's time.
 */
int64_t ls_wait_end_at(int64_t start, int64_t ts, int64_t after_us, int subsecond);

/*
 * Did the process's first error at or after the wait's first message
 * (logged_ts) end a wait the log shows no end of? Not when another lock
 * message of the process (its first after logged_ts, next_lock_ts, when
 * has_next_lock) came strictly between: then the wait had ended and the
 * error is another statement's. Returns 1 or 0.
 */
int ls_error_closes_wait(int64_t logged_ts, int64_t error_ts, int has_next_lock,
                         int64_t next_lock_ts);

/*
 * Was a serialization failure of the process at error_ts the real outcome
 * of its wait that "acquired" the lock at end_ts? The row it waited for
 * had changed: the failure follows the acquisition at once, within
 * LS_SERIALIZATION_WINDOW_US (both ends included).
 */
int ls_serialization_ended(int64_t end_ts, int64_t error_ts);

/* A wait closed at end_ts lasted until then: its waited_ms so far, or the
 * time from its start, whichever is longer. */
double ls_wait_ms_until(double waited_ms, int64_t start_ts, int64_t end_ts);

/* The owner of the transaction a wait awaited, as ingest saw it (xids):
 * its pid and when its xid was first logged. known 0: not seen. */
typedef struct ls_xid_owner {
    int known;
    int64_t pid, first_ts;
} ls_xid_owner;

/* Is `pid` one of the comma-separated pids of `list` ("23411,23426")?
 * Returns 1 or 0 (0 for a NULL or empty list). */
int ls_pid_listed(const char *list, int64_t pid);

/*
 * The direct blocker of a wait: the first pid of its message's "Process
 * holding the lock" (holders, "23411,23426"; 0 when it lists none). A lock
 * on a transaction has one holder, the transaction's own process, but a
 * message stamped in the instant after it ended lists the waiters its end
 * woke instead, each granted the lock for that instant: a wait for a
 * transaction whose owner is known (owner: NULL or not known for other
 * locks) by the time it was logged (owner->first_ts <= logged_ts) is for
 * the owner when the message lists more than one holder or the owner
 * among them.
 */
int64_t ls_wait_blocker(const char *holders, const ls_xid_owner *owner, int64_t logged_ts);

/*
 * Does the holder's wait (its latest begun by the moment a tuple wait was
 * logged, logged_ts) name the tuple wait's relation? A tuple-lock message
 * names its relation by OID only; the holder's transaction wait names it
 * in its CONTEXT ("while updating tuple (0,28) in relation ...":
 * relation, holder_ctid) when it was still on then (no end, or an end at
 * or after logged_ts: end_ts when has_end) and for the same tuple (ctid).
 * NULL texts never match. Returns 1 or 0.
 */
int ls_holder_wait_names(const char *relation, const char *holder_ctid, const char *ctid,
                         int has_end, int64_t end_ts, int64_t logged_ts);

/*
 * Which of a holder's waits was its latest begun by the moment a tuple
 * wait was logged (logged_ts)? A process waits for one lock at a time, so
 * that one is the wait it was in, or had last been in, then; one begun at
 * that very microsecond counts (its message may share the tuple wait's
 * time). starts: the candidates' start times, latest first (the store
 * reads them with a look-ahead window past logged_ts). Returns the index
 * of the first start <= logged_ts, or -1 when every one began later.
 */
long ls_holder_wait_at(const int64_t *starts, size_t n, int64_t logged_ts);

/*
 * Do two heavyweight lock modes conflict (PostgreSQL's conflict table,
 * storage/lmgr/lock.c LockConflicts)? Modes by their logged names
 * ("AccessShareLock" ... "AccessExclusiveLock"). Returns 1 or 0, -1 when
 * either name is not a lock mode (or NULL): unknown is no conflict.
 */
int ls_lock_modes_conflict(const char *a, const char *b);

/* A waiter ahead in a lock's wait queue: its pid and the mode its own
 * wait requested (NULL when no wait of it on that lock was on then). */
typedef struct ls_queued {
    int64_t pid;
    const char *mode;
} ls_queued;

/*
 * The pids of the DETAIL's "Wait queue" (`queue`, "16410,16411,16412")
 * listed before `self`, in order, into out[0..max-1]. Returns how many,
 * 0 when self is not listed (the queue says nothing of its place).
 */
int ls_queue_ahead(const char *queue, int64_t self, int64_t *out, int max);

/*
 * The waiter ahead that blocks a wait for a lock of kind `target_kind`
 * ("relation", "tuple", ...) requested in `mode`: PostgreSQL grants a
 * lock in queue order, so a request that conflicts with an earlier
 * waiter's request waits behind that waiter too, though it may not
 * conflict with any holder (pg_blocking_pids() names the waiter: plain
 * SELECTs queued behind an ALTER TABLE that waits for a reader). ahead:
 * the waiters listed before this one, in queue order (n of them). Returns
 * the nearest whose mode conflicts (the walk to the root goes on through
 * the others), else 0: the holder stays the blocker. Always 0 for a tuple
 * lock, whose queue is the row's (its head holds the tuple lock and the
 * row's holders are linked through it: transactions.c), and for a
 * transaction lock (every waiter asks ShareLock: none conflict).
 */
int64_t ls_queue_blocker(const char *target_kind, const char *mode, const ls_queued *ahead,
                         int n);

/*
 * Add one relation-lock waiter's statement to the vote for the name of
 * the relation its lock message gives by OID only: `name` is the one
 * table the statement locks as a whole (ls_sql_table_of()), NULL when it
 * names none or several. agreed (n bytes, "" at first) keeps the name so
 * far; *conflict becomes 1 when two statements name different tables (a
 * statement waiting on an index's lock, say): then the vote gives no
 * name. Returns 1 while the vote still names agreed (a name and no
 * conflict), 0 otherwise.
 */
int ls_relation_name_vote(char *agreed, size_t n, int *conflict, const char *name);

#endif
