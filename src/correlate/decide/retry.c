/*
 * retry.c — which statement retried a lock error (retry.h).
 */
#include "retry.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "tolerances.h"

int ls_retry_after(ls_logpos err, int64_t err_ts, ls_logpos pos, int64_t ts)
{
    if (ls_logpos_known(err) && ls_logpos_known(pos))
        return ls_logpos_cmp(pos, err) > 0;
    return ts > err_ts;
}

int ls_retry_same_run(int same_shape, const char *failed_row, const char *row)
{
    if (!same_shape)
        return 0;
    if (!failed_row || !*failed_row || !row || !*row)
        return 1;
    return strcmp(failed_row, row) == 0;
}

/* Does p begin with the word w (case ignored, a word boundary after)? */
static int word_is(const char *p, const char *w)
{
    size_t n = strlen(w);
    return strncasecmp(p, w, n) == 0 && !isalnum((unsigned char)p[n]) && p[n] != '_';
}

int ls_retry_sets_session(const char *sql)
{
    const char *p = sql ? sql : "";
    while (isspace((unsigned char)*p))
        p++;
    return word_is(p, "set") || word_is(p, "reset") || word_is(p, "show");
}

int ls_retry_open_after(int open, ls_retry_kind kind)
{
    if (kind == LS_RETRY_STEP_BEGIN)
        return 1;
    if (kind == LS_RETRY_STEP_COMMIT || kind == LS_RETRY_STEP_ROLLBACK)
        return 0;
    return open;
}

/* Where the walk is: in the failed transaction, between it and the next
 * one, in the next (explicit) one. */
enum walk_state { IN_FAILED, BETWEEN, IN_NEXT };

/* The outcome of a next transaction that ended with `end`, the retry
 * having failed (retry_failed) or not. */
static const char *outcome_of(ls_retry_kind end, int retry_failed)
{
    if (retry_failed)
        return "aborted";
    return end == LS_RETRY_STEP_COMMIT ? "commit" : "rollback";
}

/* The next transaction that never ran the failed statement's shape, and
 * ended in a ROLLBACK or with the stream, as the retry by its first
 * statement (lead, -1 none; other: it ran the shape on another row): the
 * lead's index, or -1 (ls_retry_walk()). */
static int retry_by_lead(const ls_retry_step *steps, int lead, int other, int64_t err_ts)
{
    if (lead < 0 || other || !steps[lead].again || steps[lead].ts - err_ts > LS_RETRY_WINDOW_US)
        return -1;
    return lead;
}

ls_retry_found ls_retry_walk(int64_t err_ts, int in_tx, const ls_retry_step *steps, size_t n)
{
    ls_retry_found none = {-1, NULL, 0, 0, 0}, found = {-1, NULL, err_ts, 0, 0};
    enum walk_state st = in_tx ? IN_FAILED : BETWEEN;
    int lead = -1, other = 0; /* the next transaction's first statement; a
                               * run of the shape on another row in it */
    size_t i;

    for (i = 0; i < n; i++) {
        const ls_retry_step *s = &steps[i];
        int is_end = s->kind == LS_RETRY_STEP_COMMIT || s->kind == LS_RETRY_STEP_ROLLBACK;

        if (st == IN_FAILED) {
            /* the aborted transaction's own statements, up to its end */
            if (is_end) {
                st = BETWEEN;
                found.ended_ts = s->ts;
            } else if (s->kind == LS_RETRY_STEP_BEGIN) {
                st = IN_NEXT;
                found.next_ts = s->ts;
            }
            continue;
        }
        if (st == BETWEEN) {
            if (s->kind == LS_RETRY_STEP_SETTING) {
                found.set_between = 1; /* the session set up for the next one */
                continue;
            }
            if (is_end)
                continue; /* a repeat of the failed transaction's end */
            found.next_ts = s->ts;
            if (s->kind == LS_RETRY_STEP_BEGIN) {
                st = IN_NEXT;
                continue;
            }
            /* a statement of its own: the next transaction, whole */
            if (!s->shape || s->ts - err_ts > LS_RETRY_WINDOW_US)
                return none;
            found.index = (int)i;
            found.outcome = s->failed ? "aborted" : "commit";
            return found;
        }
        /* IN_NEXT: an explicit transaction, up to its end */
        if (is_end) {
            if (found.index < 0 && s->kind == LS_RETRY_STEP_ROLLBACK)
                found.index = retry_by_lead(steps, lead, other, err_ts);
            if (found.index >= 0)
                found.outcome = outcome_of(s->kind, steps[found.index].failed);
            return found;
        }
        if (s->kind != LS_RETRY_STEP_OTHER)
            continue;
        if (lead < 0)
            lead = (int)i;
        other |= s->other_run;
        if (found.index < 0 && s->shape) {
            if (s->ts - err_ts > LS_RETRY_WINDOW_US)
                return none;
            found.index = (int)i;
        }
    }
    if (found.index < 0 && st == IN_NEXT)
        found.index = retry_by_lead(steps, lead, other, err_ts);
    if (found.index >= 0) /* the stream ends inside the retry's transaction */
        found.outcome = NULL;
    return found;
}

int ls_retry_kept_late(ls_retry_found f, int64_t resolution)
{
    return !f.set_between && f.next_ts - f.ended_ts > ls_retry_param_gap(resolution);
}

ls_retry_told ls_retry_session_told(ls_retry_found f, int64_t resolution, int shared,
                                    int set_routine, int asks_retry, int repeats)
{
    int64_t gap = f.next_ts - f.ended_ts;

    if (shared && !asks_retry && !repeats) /* a timeout, given up: the pool's next request */
        return LS_RETRY_UNTOLD;
    if (!f.set_between) /* the connection kept: a pool's, and late, untold */
        return shared && ls_retry_kept_late(f, resolution) ? LS_RETRY_UNTOLD : LS_RETRY_TOLD;
    if (set_routine) /* set up before every transaction: the next request's too */
        return LS_RETRY_UNTOLD;
    if (resolution >= LS_WHOLE_SECOND_US)
        return LS_RETRY_UNTOLD; /* a gap below a second is not measured */
    return gap <= LS_RETRY_GAP_US ? LS_RETRY_TOLD : LS_RETRY_UNTOLD;
}

int64_t ls_retry_param_gap(int64_t resolution)
{
    return LS_RETRY_PARAM_GAP_US + (resolution >= LS_WHOLE_SECOND_US ? resolution : 0);
}

int ls_retry_param_in_gap(ls_retry_end end, int64_t ts, ls_logpos pos, int64_t resolution)
{
    int64_t gap = ls_retry_param_gap(resolution);

    if (ls_logpos_known(end.pos) && ls_logpos_known(pos)) {
        if (ls_logpos_cmp(pos, end.pos) <= 0)
            return 0;
    } else if (ts < end.ts) {
        return 0;
    }
    return ts - end.ts <= gap;
}

int ls_retry_by_params(ls_retry_end end, const ls_retry_end *rivals, size_t nr,
                       const ls_retry_cand *c, size_t nc, int64_t resolution)
{
    int found = -1;
    size_t i;

    for (i = 0; i < nc; i++) {
        if (c[i].other_request || !ls_retry_param_in_gap(end, c[i].begun_ts, c[i].pos, resolution))
            continue;
        if (found >= 0)
            return -1; /* two candidates: either may be the retry */
        found = (int)i;
    }
    if (found < 0 || c[found].own_session || c[found].claimed)
        return -1;
    for (i = 0; i < nr; i++)
        if (ls_retry_param_in_gap(rivals[i], c[found].begun_ts, c[found].pos, resolution))
            return -1; /* another failure's retry as well */
    return found;
}

int ls_retry_row_untold(ls_retry_end end, const ls_retry_cand *c, size_t nc, int64_t resolution)
{
    size_t i;

    for (i = 0; i < nc; i++)
        if (!c[i].own_session && !c[i].claimed && !c[i].other_request &&
            ls_retry_param_in_gap(end, c[i].begun_ts, c[i].pos, resolution))
            return 1;
    return 0;
}

int ls_retry_other_request(int asks_retry, ls_retry_params params)
{
    return !asks_retry && params == LS_RETRY_PARAMS_OTHER;
}

int ls_retry_tries_untold(int try_no, int give_up)
{
    return give_up > 0 && try_no >= give_up;
}

int ls_retry_params_beyond_key(const char *params, int key_param)
{
    const char *p = params;

    if (!p)
        return 0;
    while (*p) {
        int n = 0;
        if (*p++ != '$' || !isdigit((unsigned char)*p))
            return 0;
        while (isdigit((unsigned char)*p) && n < 100000)
            n = n * 10 + (*p++ - '0');
        if (strncmp(p, " = ", 3) != 0)
            return 0;
        if (n != key_param)
            return 1;
        p += 3;
        if (*p == '\'') { /* a quoted value, '' inside it */
            for (p++; *p && !(p[0] == '\'' && p[1] != '\''); p += p[0] == '\'' ? 2 : 1)
                ;
            if (!*p++)
                return 0;
        } else {
            while (*p && *p != ',')
                p++;
        }
        if (!*p)
            return 0;
        if (strncmp(p, ", ", 2) != 0)
            return 0;
        p += 2;
    }
    return 0;
}

int ls_retry_class_asks_retry(const char *cls)
{
    return cls && (strcmp(cls, "serialization_failure") == 0 || strcmp(cls, "deadlock") == 0);
}

int ls_retry_ended_untold(int asks_retry, int later_stmt, int by_params)
{
    return asks_retry && !later_stmt && !by_params;
}

int ls_retry_elsewhere_untold(int asks_retry, int trace_walked, int log_shows, int begun,
                              int pooled)
{
    if (!asks_retry || trace_walked)
        return 0;
    return !log_shows || (!begun && pooled);
}
