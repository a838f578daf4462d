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

#endif
