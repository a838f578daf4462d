/*
 * counter.c — hot_counter_row's decision over one row's writers (see
 * counter.h).
 */
#include "counter.h"
#include "tolerances.h"

int ls_counter_bumps(const ls_counter_writer *w)
{
    return (w->increments || w->other_relation) && 2 * w->moved < w->holds;
}

int ls_counter_longer(const ls_counter_writer *a, const ls_counter_writer *b)
{
    if (a->held_ms != b->held_ms)
        return a->held_ms > b->held_ms;
    return a->holds > b->holds;
}

size_t ls_counter_longest(const ls_counter_writer *w, size_t n)
{
    size_t i, top = 0;
    for (i = 1; i < n; i++)
        if (ls_counter_longer(&w[i], &w[top]))
            top = i;
    return top;
}

/* How w[top] was chosen over the other bumping writers of w[0..n). */
static ls_counter_how how_chosen(const ls_counter_writer *w, size_t n, size_t top)
{
    ls_counter_how how = LS_COUNTER_HOW_ONLY;
    size_t i;
    for (i = 0; i < n; i++) {
        ls_counter_how by;
        if (i == top || !ls_counter_bumps(&w[i]))
            continue;
        if (w[top].held_ms != w[i].held_ms)
            by = LS_COUNTER_HOW_HELD;
        else if (w[top].holds != w[i].holds)
            by = LS_COUNTER_HOW_HOLDS;
        else
            by = LS_COUNTER_HOW_FIRST;
        if (how == LS_COUNTER_HOW_ONLY || by > how)
            how = by;
    }
    return how;
}

int ls_counter_held_by_bumps(double top_held_ms, double bump_held_ms, double all_held_ms,
                             double tick_ms)
{
    if (all_held_ms < tick_ms)
        return 1; /* no hold was timed: the times cannot say who held it */
    return top_held_ms > 0.0 && bump_held_ms >= LS_FINDING_COUNTER_HELD_SHARE * all_held_ms;
}

int ls_counter_decide(const ls_counter_writer *w, size_t n, double tick_ms, ls_counter_verdict *v)
{
    size_t i;

    v->is_counter = 0;
    v->top = -1;
    v->how = LS_COUNTER_HOW_NONE;
    v->bump_holds = v->all_holds = v->moved = 0;
    v->bump_held_ms = v->all_held_ms = 0.0;
    v->held_by_others = v->untimed = 0;
    for (i = 0; i < n; i++) {
        v->all_holds += w[i].holds;
        v->all_held_ms += w[i].held_ms;
        if (!ls_counter_bumps(&w[i])) {
            if (w[i].increments || w[i].other_relation)
                v->moved += w[i].holds;
            continue;
        }
        v->bump_holds += w[i].holds;
        v->bump_held_ms += w[i].held_ms;
        if (v->top < 0 || ls_counter_longer(&w[i], &w[v->top]))
            v->top = (long)i;
    }
    if (v->top < 0)
        return 0;
    v->how = how_chosen(w, n, (size_t)v->top);
    v->untimed = v->all_held_ms < tick_ms;
    v->is_counter =
        w[v->top].holds >= LS_FINDING_COUNTER_MIN_HOLDS && 2 * v->bump_holds >= v->all_holds;
    if (v->is_counter &&
        !ls_counter_held_by_bumps(w[v->top].held_ms, v->bump_held_ms, v->all_held_ms, tick_ms)) {
        v->is_counter = 0;
        v->held_by_others = 1;
    }
    return v->is_counter;
}
