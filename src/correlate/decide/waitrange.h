/*
 * waitrange.h — how long a wait lasted when the log's times are whole
 * seconds (%t): the range the log allows of each wait a code path's holds
 * caused, which the blocking ranking sums per path (summary.c,
 * ls_correlate_caused_ranges) as the occupancy ranking sums its holds'
 * ranges (holdrange.h): the estimate ranks, the ranges say where two
 * paths' order is uncertain (ls_range.h).
 */
#ifndef LS_DECIDE_WAITRANGE_H
#define LS_DECIDE_WAITRANGE_H

#include <stddef.h>
#include <stdint.h>

/* A length the log allows: lo..hi (µs, both included). */
typedef struct ls_wait_range {
    int64_t lo, hi;
} ls_wait_range;

/*
 * A logged wait (lock_waits): waited_us, what the report counts (the
 * largest "after N ms" of its messages, or its stamps' difference when an
 * error ended it); start_ts, its first message's time less its "after",
 * end_ts, the time of the line that ended it, each true to within res
 * (the stamps' tick: a whole second, or 0). exact: the closing line gave
 * its own "after" ("acquired ... after N ms", "detected deadlock ...
 * after N ms"): the length is N, whatever the stamps. Otherwise (a lock
 * timeout, a cancel: the error line has no "after") waited_us is the
 * larger of its last "after" and its times' difference d
 * (ls_wait_ms_until): it lasted at least the "after" (at_least_us, its
 * first message's: the error is a later line), and its two ends each lay
 * within res of their times, so from d less res (when d is the larger)
 * to d plus res; the range holds waited_us (the figure ranked).
 * res 0: exactly waited_us.
 */
void ls_logged_wait_range(int exact, int64_t waited_us, int64_t start_ts, int64_t end_ts,
                          int64_t at_least_us, int64_t res, ls_wait_range *out);

/*
 * The part of a wait the log does not show (row_waits: the queueing
 * rebuilt from the statements' and holds' times, before or instead of a
 * logged wait), est_us as rebuilt. Its ends are rebuilt from stamps of
 * tick res, so it lay within res of the estimate either way, never below
 * 0; and a wait the log never showed was shorter than deadlock_timeout
 * (max_unlogged_us, the shortest "still waiting ... after" of the log; 0
 * unknown): it is at most that longer than rebuilt when that is under
 * res. res 0: exactly est_us.
 */
void ls_hidden_wait_range(int64_t est_us, int64_t res, int64_t max_unlogged_us, ls_wait_range *out);

/*
 * The least waiting caused (ms) for which the blocking ranking lists a
 * path that no logged wait queued behind (its waiting all rebuilt, or
 * shares of others' waits), on a log whose times have tick res_us. Where
 * they have milliseconds (%m, csvlog, jsonlog), a millisecond, the tick:
 * a figure below it was rebuilt from stamps that cannot tell it from
 * none (samples/trigger-paths: ledger-import's 0.6 ms, shares of waits
 * its holds barely covered), so the path is not said to have made others
 * wait (the queueing ranking still shows it). Where they are whole
 * seconds, 0: any waiting it was given is listed, with its range
 * (ls_hidden_wait_range: from 0 up), which leaves it in no certain order
 * against a path whose range it meets (samples/blind-java cut to %t:
 * 0.1 ms, 0 to 4.0 s).
 */
double ls_caused_listed_min_ms(int64_t res_us);

/* Is a path no logged wait queued behind, given caused_ms of waiting, in
 * the blocking ranking? Some waiting (> 0), at least the floor above
 * (a path at exactly the floor is listed). */
int ls_caused_listed(double caused_ms, int64_t res_us);

/* The same test in SQL, over the SQL expression `caused` (ms), for the
 * ranking's query (correlate/summary.c): "(caused) > 0 AND (caused) >=
 * 1.000" into buf (n bytes, NUL-terminated); returns what snprintf does.
 * tests/unit/test_decide_waitrange.c runs it in SQLite against
 * ls_caused_listed() at the floor and beside it. */
int ls_caused_listed_sql(char *buf, size_t n, const char *caused, int64_t res_us);

#endif
