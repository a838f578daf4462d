/*
 * test_decide_chain.c — decide/chain.c: the walk from a waiter to its root
 * blocker, step by step. Boundary cases first: a wait logged at the
 * moment's own line, a cycle back to the waiter, the lock the root was
 * named a holder of, a chain of exactly LS_CHAIN_MAX.
 */
#include <stdio.h>

#include "decide/chain.h"
#include "ls_test.h"

#define S LS_WHOLE_SECOND_US
#define T (100 * S) /* the moment of the walk: the wait's first message */

static const ls_logpos AT = {1, 100}; /* ... and its log position */

/* A wait of the root that began at start, first logged at `line`, not
 * ended, blocked by `blocker` (0: none), for `target`. */
static ls_chain_wait wait_of(int64_t start, int64_t line, int64_t blocker, int64_t xid,
                             const char *target)
{
    ls_chain_wait w;
    w.span.start_ts = start;
    w.span.end_ts = 0;
    w.span.has_end = 0;
    w.span.first.file = 1;
    w.span.first.line = line;
    w.span.end.file = 0;
    w.span.end.line = 0;
    w.has_blocker = blocker != 0;
    w.blocker = blocker;
    w.awaited_xid = xid;
    w.target = target;
    w.blocker_queued = 0;
    return w;
}

static void test_start(void)
{
    ls_chain c;
    ls_chain_start(&c, 10, 20, 777, "transaction 777");
    CHECK_INT(c.root, 20);
    CHECK_INT(c.root_xid, 777);
    CHECK_INT(c.depth, 1);
    CHECK_STR(c.target, "transaction 777");
    ls_chain_start(&c, 10, 20, 0, NULL);
    CHECK_STR(c.target, "");
}

/* A wait not on at the moment is skipped: the walk looks at the next. */
static void test_skip(void)
{
    ls_chain c;
    ls_chain_wait w;
    ls_chain_start(&c, 10, 20, 0, "tuple (0,1) of relation 1 of database 1");
    /* logged after the moment, begun after it */
    w = wait_of(T + 1, 101, 30, 0, "transaction 5");
    CHECK_INT(ls_chain_step(&c, &w, T, AT, 1), LS_CHAIN_SKIP);
    /* ended by a line logged before the moment */
    w = wait_of(T - S, 90, 30, 0, "transaction 5");
    w.span.has_end = 1;
    w.span.end_ts = T - 1;
    w.span.end.file = 1;
    w.span.end.line = 99;
    CHECK_INT(ls_chain_step(&c, &w, T, AT, 1), LS_CHAIN_SKIP);
    CHECK_INT(c.root, 20);
    CHECK_INT(c.depth, 1);
}

/* 10 waits for 20, 20 for 30 (transaction 5), 30 waits for nothing. */
static void test_chain(void)
{
    ls_chain c;
    ls_chain_wait w;
    ls_chain_start(&c, 10, 20, 0, "tuple (0,1) of relation 1 of database 1");
    /* 20's wait logged at the moment's own line: on (<=) */
    w = wait_of(T - S, 100, 30, 5, "transaction 5");
    CHECK_INT(ls_chain_step(&c, &w, T, AT, 1), LS_CHAIN_ON);
    CHECK_INT(c.root, 30);
    CHECK_INT(c.root_xid, 5);
    CHECK_INT(c.depth, 2);
    CHECK_STR(c.target, "transaction 5");
    /* 30's wait has no blocker: 30 is the root. */
    w = wait_of(T - S, 80, 0, 0, "transaction 9");
    CHECK_INT(ls_chain_step(&c, &w, T, AT, 1), LS_CHAIN_STOP);
    CHECK_INT(c.root, 30);
    CHECK_INT(c.root_xid, 5);
    CHECK_INT(c.depth, 2);
}

/* Deadlock cycles: back to the waiter, or to a blocker seen before. */
static void test_cycle(void)
{
    ls_chain c;
    ls_chain_wait w;
    ls_chain_start(&c, 10, 20, 0, "");
    w = wait_of(T - S, 50, 10, 0, "transaction 1");
    CHECK_INT(ls_chain_step(&c, &w, T, AT, 1), LS_CHAIN_STOP);
    CHECK_INT(c.root, 20);
    CHECK_INT(c.depth, 1);

    ls_chain_start(&c, 10, 20, 0, "");
    w = wait_of(T - S, 50, 30, 3, "transaction 3");
    CHECK_INT(ls_chain_step(&c, &w, T, AT, 1), LS_CHAIN_ON);
    w = wait_of(T - S, 60, 20, 2, "transaction 2");
    CHECK_INT(ls_chain_step(&c, &w, T, AT, 1), LS_CHAIN_STOP);
    CHECK_INT(c.root, 30); /* the last distinct blocker */
    CHECK_INT(c.root_xid, 3);
    CHECK_INT(c.depth, 2);
}

/* The server named the root a holder of the lock the last link waits for:
 * its own wait for that lock is over; the root stands. */
static void test_named_holder(void)
{
    ls_chain c;
    ls_chain_wait w;
    const char *tuple = "tuple (5,155) of relation 16400 of database 16384";
    ls_chain_start(&c, 10, 20, 0, tuple);
    w = wait_of(T - S, 90, 30, 0, tuple);
    CHECK_INT(ls_chain_step(&c, &w, T, AT, 1), LS_CHAIN_STOP);
    CHECK_INT(c.root, 20);
    CHECK_INT(c.depth, 1);
    /* The same lock, but the chain's last link was logged after the
     * moment: its holders were not known then, so no such stop. */
    ls_chain_start(&c, 10, 20, 0, "");
    w = wait_of(T - S / 2, 101, 30, 0, tuple); /* logged after, began before */
    CHECK_INT(ls_chain_step(&c, &w, T, AT, 1), LS_CHAIN_ON);
    CHECK_STR(c.target, "");
    w = wait_of(T - S, 90, 40, 0, tuple);
    CHECK_INT(ls_chain_step(&c, &w, T, AT, 1), LS_CHAIN_ON);
    CHECK_INT(c.root, 40);
    CHECK_INT(c.depth, 3);
}

/* A chain longer than LS_CHAIN_MAX stops when the seen list is full: the
 * waiter and LS_CHAIN_MAX - 1 blockers. */
static void test_max(void)
{
    ls_chain c;
    int64_t pid;
    int verdict = LS_CHAIN_ON;
    ls_chain_start(&c, 1, 2, 0, "");
    for (pid = 3; pid < 3 + 2 * LS_CHAIN_MAX && verdict == LS_CHAIN_ON; pid++) {
        char target[32];
        ls_chain_wait w;
        snprintf(target, sizeof(target), "transaction %lld", (long long)pid);
        w = wait_of(T - S, 50, pid, 0, target);
        verdict = ls_chain_step(&c, &w, T, AT, 1);
    }
    CHECK_INT(verdict, LS_CHAIN_STOP);
    CHECK_INT(c.nseen, LS_CHAIN_MAX);
    CHECK_INT(c.depth, LS_CHAIN_MAX - 1);
    CHECK_INT(c.root, LS_CHAIN_MAX);
}

/* A relation lock's queue (samples/ddl-queue): SELECT 13 waits behind
 * ALTER 12 (ahead in the queue, named a waiter), which waits behind ALTER
 * 11 (also ahead), which waits for reader 10, the holder. The walk passes
 * the waiters ahead on the same lock and stops at the holder. */
static void test_queue_of_one_lock(void)
{
    const char *rel = "relation 16385 of database 16384";
    ls_chain c;
    ls_chain_wait w;

    ls_chain_start(&c, 13, 12, 0, NULL);
    w = wait_of(T - S, 90, 11, 0, rel);
    w.blocker_queued = 1;
    CHECK_INT(ls_chain_step(&c, &w, T, AT, 1), LS_CHAIN_ON);
    CHECK_STR(c.target, "");
    w = wait_of(T - 2 * S, 80, 10, 0, rel);
    CHECK_INT(ls_chain_step(&c, &w, T, AT, 1), LS_CHAIN_ON);
    CHECK_INT(c.root, 10);
    CHECK_INT(c.depth, 3);
    CHECK_STR(c.target, rel);
    /* Had the server named 11 a holder of the lock, its wait for it would
     * be over: the walk stops there (the step before, without the flag). */
    ls_chain_start(&c, 13, 12, 0, NULL);
    w = wait_of(T - S, 90, 11, 0, rel);
    CHECK_INT(ls_chain_step(&c, &w, T, AT, 1), LS_CHAIN_ON);
    w = wait_of(T - 2 * S, 80, 10, 0, rel);
    CHECK_INT(ls_chain_step(&c, &w, T, AT, 1), LS_CHAIN_STOP);
    CHECK_INT(c.root, 11);
}

int main(void)
{
    test_start();
    test_skip();
    test_chain();
    test_cycle();
    test_named_holder();
    test_max();
    test_queue_of_one_lock();
    return TEST_REPORT();
}
