/*
 * counter.h — hot_counter_row's decision over one row's writers: is the
 * row a counter (bumped by many transactions), and which writer does the
 * finding name (the one that held it longest)? Pure functions: the
 * findings pass (findings_sum.c) sums the writers from the store and asks
 * these; the thresholds are in tolerances.h.
 */
#ifndef LS_DECIDE_COUNTER_H
#define LS_DECIDE_COUNTER_H

#include <stddef.h>
#include <stdint.h>

/* One writer of a row: the transactions that took it (or waited for it)
 * with one statement shape, or, within a shape, from one code path. */
typedef struct ls_counter_writer {
    int64_t holds;      /* transactions that took the row with it, or waited for it with it */
    int64_t moved;      /* of those, the ones that wrote another row of the row's relation
                         * too (a hold of it, or a statement of their request's trace that
                         * names it): an amount moved between rows */
    double held_ms;     /* their holds' length in all */
    int increments;     /* its text increments a column (ls_finding_is_increment) */
    int other_relation; /* it writes another relation than the row's: a trigger bumps the row */
} ls_counter_writer;

/* How the named writer was chosen among the row's bumping writers. */
typedef enum ls_counter_how {
    LS_COUNTER_HOW_NONE = 0, /* no bumping writer: nothing named */
    LS_COUNTER_HOW_ONLY,     /* the only one */
    LS_COUNTER_HOW_HELD,     /* it held the row longest */
    LS_COUNTER_HOW_HOLDS,    /* of equal hold time, more transactions took it */
    LS_COUNTER_HOW_FIRST     /* equal on both: the first in the caller's order */
} ls_counter_how;

/* The decision over a row's writers. */
typedef struct ls_counter_verdict {
    int is_counter;     /* the row is a counter: the finding fires (given its waits) */
    long top;           /* the named writer's index, -1 when none */
    ls_counter_how how; /* how it was chosen */
    int64_t bump_holds; /* transactions of the bumping writers */
    int64_t all_holds;  /* transactions of every writer */
    int64_t moved;      /* transactions of the increments and triggers not counted: they
                         * moved an amount to another row */
    double bump_held_ms; /* the bumping writers' holds of the row, in all */
    double all_held_ms;  /* every writer's holds of the row, in all */
    int held_by_others;  /* a counter by its writers, but its hold time is not the bumping
                          * writers' (ls_counter_held_by_bumps): no finding */
    int untimed;         /* all the writers' holds come to less than the log's tick: none
                          * was timed, the hold times are unknown */
} ls_counter_verdict;

/*
 * Does writer w bump the row as a counter's writers do: its text
 * increments a column or it writes another relation (a trigger the log
 * does not show bumps the row; a decrement, as of stock, is a
 * reservation), and fewer than half of its transactions moved an amount
 * to another row of the relation (a transfer debits one row and credits
 * another: a balance, whose problem is lock order; splitting it is no
 * cure)?
 */
int ls_counter_bumps(const ls_counter_writer *w);

/*
 * Of two writers, did a hold the row longer (held_ms), and of equal hold
 * time, did more transactions take it with a (holds)? Orders a row's
 * shapes and a shape's code paths alike. 0 when equal on both.
 */
int ls_counter_longer(const ls_counter_writer *a, const ls_counter_writer *b);

/* The index of the writer of w[0..n) (n > 0) that held the row longest
 * (ls_counter_longer; of equals the first): a named shape's code path. */
size_t ls_counter_longest(const ls_counter_writer *w, size_t n);

/*
 * Is a row's hold time the counter update's: did its bumping writers
 * hold it (bump_held_ms) for LS_FINDING_COUNTER_HELD_SHARE or more of
 * the time all its writers did (all_held_ms), and the named one
 * (top_held_ms) for more than 0? A queue behind holders doing something
 * else (samples/blind-php's warehouses id=1: restock's "stock = stock +
 * ?" held it 0.0 ms in all, reserve_stock's reservation across an HTTP
 * call all the rest; samples/basic's accounts id=1: four "+ 1" of 0 ms
 * behind one "- 10" held 802 ms across a sleep) is not a counter's: the
 * finding would name a statement that held nothing and prescribe
 * splitting a counter that is not what anyone waits for (issue 34).
 * Where all the writers' holds come to less than the log's tick
 * (tick_ms: 1000 on a whole-second log) none was timed, and the times
 * say nothing: 1, the writers' counts decide (the whole-second copies of
 * the pgbench excerpts, whose pgbench_branches row is a counter).
 */
int ls_counter_held_by_bumps(double top_held_ms, double bump_held_ms, double all_held_ms,
                             double tick_ms);

/*
 * The decision over a row's n writers (one per statement shape): the
 * named writer is the bumping one (ls_counter_bumps) that held the row
 * longest (ls_counter_longer; equal on both, the first); the row is a
 * counter when that writer took it from LS_FINDING_COUNTER_MIN_HOLDS
 * transactions or more and the bumping writers are at least half of all
 * the row's writing transactions (samples/basic's accounts id=1: four
 * "+ 1" and one "- 10" is a counter by its writers, named by its "+ 1";
 * as many "+ $1" as "- $1" writers, as pgbench scripts and the
 * correlation sample's ledger have, still is one), and its hold time is
 * the bumping writers' (ls_counter_held_by_bumps; else held_by_others).
 * Writes *v; returns v->is_counter.
 */
int ls_counter_decide(const ls_counter_writer *w, size_t n, double tick_ms, ls_counter_verdict *v);

#endif
