/*
 * slowkey.h — on a threshold log, is a key a contended row from its slow
 * locking statements alone (issue 34, the logical-rows pass: slowkeys.c).
 *
 * A log that shows statements only past log_min_duration_statement has
 * no BEGIN/COMMIT and none of the fast statements that held a row: no
 * hold can be timed, and a wait shorter than deadlock_timeout leaves no
 * line. What it does show is each locking statement by key (FOR
 * UPDATE/SHARE, UPDATE/DELETE WHERE key = ...) that took longer than the
 * threshold. A statement that locks one row by its key does little work
 * of its own; when many such slow statements name the same key and the
 * relation's other keys far fewer, the time went in queueing for that
 * row (a cost of the statement itself, a big scan or a slow trigger,
 * would slow the lockers of every key alike). The floors are in
 * tolerances.h (LS_SLOWKEY_*).
 */
#ifndef LS_DECIDE_SLOWKEY_H
#define LS_DECIDE_SLOWKEY_H

#include <stdint.h>

/* One key's slow lockers and its relation's others. */
typedef struct ls_slowkey_in {
    int64_t statements;     /* logged locking statements naming the key */
    double ms;              /* their durations summed */
    int64_t next_key;       /* the most any other key of the relation had */
    int64_t other_keys_sum; /* all other keys of the relation together */
} ls_slowkey_in;

/*
 * 1 when the key is a contended row: at least LS_SLOWKEY_MIN_STATEMENTS
 * statements and LS_SLOWKEY_MIN_MS ms (both floors included), at least
 * LS_SLOWKEY_DOMINANCE times as many as the next key (a key alone in its
 * relation qualifies; tied keys do not), and more than all the other
 * keys together. Else 0. Only on a threshold log (the caller asks
 * decide/logcover.c): where every statement is logged, the queueing is
 * rebuilt from the holds instead (decide/quiet.c).
 */
int ls_slowkey_makes_row(const ls_slowkey_in *in);

/*
 * Whose holds made such a row's lockers wait (the blocking ranking,
 * summary.c). Its lockers' waits are not in the log, nor who held it
 * when they queued; but every transaction that locks a key is one of its
 * lockers (a hold of the row is a locking statement naming its key), so
 * when all of them are of one code path (`lockers` holds of the row,
 * `paths` distinct names among them, `unnamed` holds with no path), that
 * path held the row whenever one of them waited for it: the waiting, at
 * least the row's total_wait_ms, is its own (samples/blind-rb: 54 slow
 * FOR UPDATEs of warehouses id=1, all of reserve_stock's shape). 1 then;
 * 0 when the lockers are of several paths or some of none (the holder
 * is not knowable: no path is credited), or there are none.
 */
int ls_slowkey_one_holder_path(int64_t lockers, int64_t paths, int64_t unnamed);

#endif
