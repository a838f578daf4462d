/*
 * wait.c — decisions about one lock wait episode (wait.h).
 */
#include "wait.h"

#include <stdio.h>
#include <string.h>

#include "tolerances.h"

int ls_wait_open_at(const ls_wait_span *w, int64_t t, ls_logpos pos, int subsecond)
{
    /* A closing message logged before the moment ended it before then;
     * one logged after, after: the log's order is exact where whole-second
     * timestamps tie. */
    if (w->has_end) {
        if (ls_logpos_known(w->end)) {
            if (ls_logpos_cmp(w->end, pos) < 0)
                return 0;
        } else if (w->end_ts < t) {
            return 0;
        }
    }
    /* Its first message logged before the moment: it had begun. */
    if (ls_logpos_cmp(w->first, pos) <= 0)
        return 1;
    /* Logged later, it began "after X ms" before its message: with
     * whole-second times only a start in an earlier second is sure. */
    return subsecond ? w->start_ts <= t : w->start_ts + LS_WHOLE_SECOND_US <= t;
}

int64_t ls_wait_after_us(double after_ms)
{
    return (int64_t)(after_ms * (double)LS_US_PER_MS + 0.5);
}

int ls_wait_goes_on(int after_lock, int64_t implied_start, int64_t last_ts, int subsecond)
{
    if (after_lock >= 0)
        return after_lock;
    return implied_start <=
           last_ts + (subsecond ? LS_EPISODE_SLACK_US : LS_EPISODE_SLACK_WHOLE_US);
}

int64_t ls_wait_start_with(int64_t start, int64_t ts, int64_t after_us, int subsecond)
{
    if (subsecond && after_us > 0 && ts - after_us < start)
        return ts - after_us;
    return start;
}

int64_t ls_wait_end_at(int64_t start, int64_t ts, int64_t after_us, int subsecond)
{
    return subsecond && after_us > 0 && start + after_us < ts ? start + after_us : ts;
}

int ls_error_closes_wait(int64_t logged_ts, int64_t error_ts, int has_next_lock,
                         int64_t next_lock_ts)
{
    if (error_ts < logged_ts)
        return 0;
    return !has_next_lock || next_lock_ts <= logged_ts || next_lock_ts >= error_ts;
}

int ls_serialization_ended(int64_t end_ts, int64_t error_ts)
{
    return error_ts >= end_ts && error_ts <= end_ts + LS_SERIALIZATION_WINDOW_US;
}

double ls_wait_ms_until(double waited_ms, int64_t start_ts, int64_t end_ts)
{
    double ms = (double)(end_ts - start_ts) / (double)LS_US_PER_MS;
    return ms > waited_ms ? ms : waited_ms;
}

int ls_pid_listed(const char *list, int64_t pid)
{
    while (list && *list) {
        int64_t v = 0;
        int digits = 0;
        for (; *list >= '0' && *list <= '9'; list++, digits++)
            v = v * 10 + (*list - '0');
        if (digits > 0 && (*list == ',' || *list == '\0') && v == pid)
            return 1;
        list = strchr(list, ',');
        if (list)
            list++;
    }
    return 0;
}

/* The first pid of a list, or 0. */
static int64_t first_listed(const char *list)
{
    int64_t v = 0;
    if (!list)
        return 0;
    for (; *list >= '0' && *list <= '9'; list++)
        v = v * 10 + (*list - '0');
    return v;
}

int64_t ls_wait_blocker(const char *holders, const ls_xid_owner *owner, int64_t logged_ts)
{
    int64_t first = first_listed(holders);
    if (!owner || !owner->known || owner->first_ts > logged_ts || !holders)
        return first;
    if (strchr(holders, ',') || ls_pid_listed(holders, owner->pid))
        return owner->pid;
    return first;
}

long ls_holder_wait_at(const int64_t *starts, size_t n, int64_t logged_ts)
{
    for (size_t i = 0; i < n; i++)
        if (starts[i] <= logged_ts)
            return (long)i;
    return -1;
}

int ls_holder_wait_names(const char *relation, const char *holder_ctid, const char *ctid,
                         int has_end, int64_t end_ts, int64_t logged_ts)
{
    if (!relation || !holder_ctid || !ctid || strcmp(holder_ctid, ctid) != 0)
        return 0;
    return !has_end || end_ts >= logged_ts;
}

/* The lock modes in PostgreSQL's order (lockdefs.h: 1 AccessShareLock
 * ... 8 AccessExclusiveLock), and each one's conflicts as a bit mask of
 * those numbers (lock.c, LockConflicts). */
static const char *const lock_modes[] = {
    NULL,           "AccessShareLock",       "RowShareLock",  "RowExclusiveLock",
    "ShareUpdateExclusiveLock", "ShareLock", "ShareRowExclusiveLock", "ExclusiveLock",
    "AccessExclusiveLock",
};
#define LOCK_MODES ((int)(sizeof(lock_modes) / sizeof(lock_modes[0])))
#define MODE_BIT(m) (1u << (m))
static const unsigned lock_conflicts[] = {
    0,
    MODE_BIT(8),
    MODE_BIT(7) | MODE_BIT(8),
    MODE_BIT(5) | MODE_BIT(6) | MODE_BIT(7) | MODE_BIT(8),
    MODE_BIT(4) | MODE_BIT(5) | MODE_BIT(6) | MODE_BIT(7) | MODE_BIT(8),
    MODE_BIT(3) | MODE_BIT(4) | MODE_BIT(6) | MODE_BIT(7) | MODE_BIT(8),
    MODE_BIT(3) | MODE_BIT(4) | MODE_BIT(5) | MODE_BIT(6) | MODE_BIT(7) | MODE_BIT(8),
    MODE_BIT(2) | MODE_BIT(3) | MODE_BIT(4) | MODE_BIT(5) | MODE_BIT(6) | MODE_BIT(7) |
        MODE_BIT(8),
    MODE_BIT(1) | MODE_BIT(2) | MODE_BIT(3) | MODE_BIT(4) | MODE_BIT(5) | MODE_BIT(6) |
        MODE_BIT(7) | MODE_BIT(8),
};

/* A mode's number, 0 when the name is none. */
static int lock_mode_num(const char *name)
{
    int m;
    for (m = 1; name && m < LOCK_MODES; m++)
        if (strcmp(name, lock_modes[m]) == 0)
            return m;
    return 0;
}

int ls_lock_modes_conflict(const char *a, const char *b)
{
    int x = lock_mode_num(a), y = lock_mode_num(b);
    if (!x || !y)
        return -1;
    return (lock_conflicts[x] & MODE_BIT(y)) != 0;
}

int ls_queue_ahead(const char *queue, int64_t self, int64_t *out, int max)
{
    int n = 0;
    while (queue && *queue) {
        int64_t v = 0;
        int digits = 0;
        while (*queue == ' ')
            queue++;
        for (; *queue >= '0' && *queue <= '9'; queue++, digits++)
            v = v * 10 + (*queue - '0');
        if (digits > 0 && v == self)
            return n;
        if (digits > 0 && n < max)
            out[n++] = v;
        queue = strchr(queue, ',');
        if (queue)
            queue++;
    }
    return 0; /* self not listed */
}

int64_t ls_queue_blocker(const char *target_kind, const char *mode, const ls_queued *ahead,
                         int n)
{
    int i;
    if (!target_kind || strcmp(target_kind, "tuple") == 0 ||
        strcmp(target_kind, "transaction") == 0)
        return 0;
    for (i = n - 1; i >= 0; i--)
        if (ls_lock_modes_conflict(mode, ahead[i].mode) == 1)
            return ahead[i].pid;
    return 0;
}

int ls_relation_name_vote(char *agreed, size_t n, int *conflict, const char *name)
{
    if (name && name[0]) {
        if (!agreed[0])
            snprintf(agreed, n, "%s", name);
        else if (strcmp(agreed, name) != 0)
            *conflict = 1;
    }
    return agreed[0] && !*conflict;
}
