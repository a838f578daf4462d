/*
 * test_decide_link.c — decide/link.c: the root blocker's transaction from
 * the links found before, and whether a tuple lock's queue head was still
 * waiting for the row's holder. {root, by xid, holder, holder tx, blocker,
 * blocker tx, by position, by time}; 0 is "none".
 */
#include "decide/link.h"
#include "ls_test.h"

static void test_root_tx(void)
{
    /* Nothing known: 0 (the caller looks by log position, then time). */
    ls_root_link none = {30, 0, 0, 0, 0, 0, 0, 0, 0};
    /* The awaited xid's transaction wins over the rest. */
    ls_root_link xid = {20, 7, 20, 8, 20, 8, 5, 6, 0};
    /* The root is the direct blocker, which holds the row: one transaction. */
    ls_root_link same = {20, 0, 20, 8, 20, 8, 0, 0, 0};
    /* A tuple lock's queue: the holder (30, tx 9) is not the direct blocker
     * (20, the queue head, tx 8). A root that is the holder has the
     * holder's transaction; one that is the blocker, the blocker's. */
    ls_root_link holder = {30, 0, 30, 9, 20, 8, 0, 0, 0};
    ls_root_link blocker = {20, 0, 30, 9, 20, 8, 0, 0, 0};
    /* The root is the holder whose transaction is unknown: not the
     * blocker's, even when the blocker is the same process. */
    ls_root_link unknown = {20, 0, 20, 0, 20, 8, 0, 0, 0};
    /* The root is neither. */
    ls_root_link other = {40, 0, 30, 9, 20, 8, 0, 0, 0};

    CHECK_INT(ls_root_tx_linked(&none), 0);
    CHECK_INT(ls_root_tx_linked(&xid), 7);
    CHECK_INT(ls_root_tx_linked(&same), 8);
    CHECK_INT(ls_root_tx_linked(&holder), 9);
    CHECK_INT(ls_root_tx_linked(&blocker), 8);
    CHECK_INT(ls_root_tx_linked(&unknown), 0);
    CHECK_INT(ls_root_tx_linked(&other), 0);
    CHECK_INT(ls_root_tx(&xid), 7);
    CHECK_INT(ls_root_tx(&none), 0);
    CHECK_INT(ls_root_tx(&unknown), 0);
}

/* Where the links say nothing: by log position, then by time. */
static void test_root_tx_rest(void)
{
    /* Whole seconds: the root's transaction 11 ended and 12 began in the
     * second the message was stamped in. Its log position says 11 (the
     * message came before 11's COMMIT line); its time says 12. Position
     * wins. */
    ls_root_link tie = {40, 0, 30, 9, 20, 8, 11, 12, 0};
    /* No transaction at the position (the root's statements not logged
     * before the message): by time. */
    ls_root_link by_time = {40, 0, 30, 9, 20, 8, 0, 12, 0};
    /* The links say: neither is asked for. */
    ls_root_link linked = {30, 0, 30, 9, 20, 8, 11, 12, 0};
    /* The root is the holder, its transaction unknown: by position (not
     * the blocker's 8). */
    ls_root_link holder_unknown = {20, 0, 20, 0, 20, 8, 11, 12, 0};

    CHECK_INT(ls_root_tx(&tie), 11);
    CHECK_INT(ls_root_tx(&by_time), 12);
    CHECK_INT(ls_root_tx(&linked), 9);
    CHECK_INT(ls_root_tx(&holder_unknown), 11);
}

/* A tuple wait begun at 1000 us, logged at 2000 us at file 1 line 50. */
static ls_head_wait head(int has_end, int64_t end_ts, int has_end_line, int64_t end_line)
{
    ls_head_wait h;
    h.tuple_start = 1000;
    h.tuple_logged = 2000;
    h.tuple_pos.file = 1;
    h.tuple_pos.line = 50;
    h.has_end = has_end;
    h.end_ts = end_ts;
    h.has_end_line = has_end_line;
    h.end_pos.file = has_end_line ? 1 : 0;
    h.end_pos.line = end_line;
    return h;
}

static void test_head_wait_on(void)
{
    ls_head_wait open = head(0, 0, 0, 0);
    ls_head_wait at_start = head(1, 1000, 1, 40);   /* ended at the very microsecond */
    ls_head_wait before = head(1, 999, 1, 40);      /* one microsecond before */
    ls_head_wait after = head(1, 1001, 1, 40);
    ls_head_wait at_logged = head(1, 2000, 0, 0);   /* no end line: by time */
    ls_head_wait before_logged = head(1, 1999, 0, 0);
    ls_head_wait same_line = head(1, 1000, 1, 50);  /* ended by the message's own line */
    ls_head_wait line_after = head(1, 1000, 1, 51);
    ls_head_wait other_file = head(1, 3000, 1, 10);

    /* Sub-second times: on unless it ended before the tuple wait began. */
    CHECK(ls_head_wait_on(&open, 0));
    CHECK(ls_head_wait_on(&at_start, 0)); /* S4: >= turned > fails here */
    CHECK(!ls_head_wait_on(&before, 0));
    CHECK(ls_head_wait_on(&after, 0));
    /* Whole seconds: by log position where a line ended it. */
    CHECK(ls_head_wait_on(&open, 1));
    CHECK(!ls_head_wait_on(&at_start, 1)); /* line 40, before the message's 50 */
    CHECK(ls_head_wait_on(&same_line, 1));
    CHECK(ls_head_wait_on(&line_after, 1));
    other_file.end_pos.file = 2;
    CHECK(ls_head_wait_on(&other_file, 1)); /* a later file, a smaller line */
    other_file.end_pos.file = 0;
    CHECK(!ls_head_wait_on(&other_file, 1));
    /* Whole seconds, no line ended it: by time at the message. */
    CHECK(ls_head_wait_on(&at_logged, 1));
    CHECK(!ls_head_wait_on(&before_logged, 1));
}

/*
 * A pooled holder's transaction (issue 34, samples/blind-pool): pid 21504
 * ran one request's transaction after another. A wait for a row is
 * logged, its DETAIL naming the pid, at 5000 us; the pid's logged
 * transaction 1 ran 1000..4000 (ended before), so it is not kept. Holds: {tx, pid (0: spans only),
 * start_lo, start, end}.
 */
static ls_holder_wait pooled(int64_t linked, int64_t lstart, int64_t lend)
{
    ls_holder_wait w;
    w.at = 5000;
    w.holder_pid = 21504;
    w.waiter_tx = 99;
    w.linked_tx = linked;
    w.by_xid = 0;
    w.has_linked_span = linked != 0;
    w.linked_start = lstart;
    w.linked_end = lend;
    w.ends_unlogged = 0;
    w.linked_locks_relation = 0;
    w.start = 0;
    w.tick = 1000;
    return w;
}

static void test_holder_kept(void)
{
    ls_holder_wait ended = pooled(1, 1000, 4000);
    ls_holder_wait open = pooled(1, 1000, 6000);
    ls_holder_wait at_start = pooled(1, 1000, 5000); /* ended at the message */
    ls_holder_wait began = pooled(1, 5000, 6000);    /* began at it */
    ls_holder_wait xid = pooled(1, 1000, 4000);
    ls_holder_wait still = pooled(1, 1000, INT64_MAX); /* open at the log's end */
    ls_holder_wait none = pooled(0, 0, 0);
    ls_holder_hold spans = {7, 0, 4500, 4800, 9000};

    xid.by_xid = 1;
    CHECK(!ls_holder_linked_kept(&ended));
    CHECK(ls_holder_linked_kept(&open));
    CHECK(!ls_holder_linked_kept(&at_start));
    CHECK(ls_holder_linked_kept(&began));
    CHECK(ls_holder_linked_kept(&xid));
    CHECK(ls_holder_linked_kept(&still));
    CHECK(!ls_holder_linked_kept(&none));
    /* a kept link stands even against a hold that covers the wait */
    CHECK_INT(ls_holder_tx(&open, &spans, 1), 1);
    CHECK_INT(ls_holder_tx(&xid, &spans, 1), 1);
    /* samples/busy-row, tuple wait 424 (pgbench_branches bid=3, holder
     * pid 12104): begun at .422629, logged at .473; the pid's transaction
     * 2061 held the row until its error at .462, its next one 2065 from
     * .461997. At the message it was 2065: kept, though 2061's hold covered
     * the wait's start (the moment is the message's, not the start's). */
    {
        ls_holder_wait busy = pooled(2065, 461997, 527000);
        ls_holder_hold h2061 = {2061, 12104, 284236, 359000, 462000};
        busy.at = 473000;
        busy.holder_pid = 12104;
        CHECK_INT(ls_holder_tx(&busy, &h2061, 1), 2065);
        busy.at = 422629; /* had it been judged at the wait's start */
        CHECK_INT(ls_holder_tx(&busy, &h2061, 1), 2061);
    }
    /* not kept: the spans-only hold */
    CHECK_INT(ls_holder_tx(&ended, &spans, 1), 7);
    CHECK_INT(ls_holder_tx(&none, &spans, 1), 7);
}

static void test_holder_covers(void)
{
    ls_holder_wait w = pooled(1, 1000, 4000);
    /* ends exactly at the message: it had let the row go */
    ls_holder_hold ended_at = {7, 0, 3000, 3500, 5000};
    ls_holder_hold ended_after = {7, 0, 3000, 3500, 5001};
    /* its locking span sent at that moment: locked the row after */
    ls_holder_hold sent_at = {7, 0, 5000, 5200, 9000};
    ls_holder_hold sent_before = {7, 0, 4999, 5200, 9000};
    ls_holder_hold set[2] = {{7, 0, 3000, 3500, 5000}, {8, 0, 4999, 5200, 9000}};

    CHECK(!ls_holder_hold_covers(&ended_at, 5000));
    CHECK(ls_holder_hold_covers(&ended_after, 5000));
    CHECK(!ls_holder_hold_covers(&sent_at, 5000));
    CHECK(ls_holder_hold_covers(&sent_before, 5000));
    /* none covers: the link stands */
    CHECK_INT(ls_holder_tx(&w, &ended_at, 1), 1);
    CHECK_INT(ls_holder_tx(&w, &sent_at, 1), 1);
    CHECK_INT(ls_holder_tx(&w, &ended_after, 1), 7);
    /* the hold ending at the moment is the previous holder; the next one's */
    CHECK_INT(ls_holder_tx(&w, set, 2), 8);
}

static void test_holder_candidates(void)
{
    ls_holder_wait w = pooled(1, 1000, 4000);
    /* two of the holder's pid: the one that surely held the row by the
     * message (locked by 4200) over one whose span was still running
     * (sent 4900, row locked by 5300 at the latest) */
    ls_holder_hold two_own[2] = {{3, 21504, 4000, 4200, 9000}, {4, 21504, 4900, 5300, 9500}};
    /* both surely held it by then (bounds that overlap): not told apart */
    ls_holder_hold two_sure[2] = {{3, 21504, 4000, 4200, 9000}, {4, 21504, 4100, 4300, 9500}};
    /* a spans-only one and a logged one of the pid: the pid's (the log
     * says whose it is), even when the spans-only one surely held it */
    ls_holder_hold mixed[2] = {{7, 0, 3000, 3500, 9000}, {4, 21504, 4900, 5300, 9500}};
    /* of another pid: never; the waiter's own: never */
    ls_holder_hold other[2] = {{5, 21510, 3000, 3500, 9000}, {99, 0, 3000, 3500, 9000}};
    /* two spans-only: the sure one, else none */
    ls_holder_hold two_spans[2] = {{7, 0, 3000, 3500, 9000}, {8, 0, 4900, 5100, 9500}};
    ls_holder_hold two_spans_unsure[2] = {{7, 0, 4800, 5100, 9000}, {8, 0, 4900, 5100, 9500}};
    /* the pid's two not told apart: not a spans-only one either */
    ls_holder_hold own_tie_and_spans[3] = {
        {3, 21504, 4000, 4200, 9000}, {4, 21504, 4100, 4300, 9500}, {7, 0, 3000, 3500, 9000}};

    CHECK_INT(ls_holder_tx(&w, two_own, 2), 3);
    CHECK_INT(ls_holder_tx(&w, two_sure, 2), 1);
    CHECK_INT(ls_holder_tx(&w, mixed, 2), 4);
    CHECK_INT(ls_holder_tx(&w, other, 2), 1);
    CHECK_INT(ls_holder_tx(&w, two_spans, 2), 7);
    CHECK_INT(ls_holder_tx(&w, two_spans_unsure, 2), 1);
    CHECK_INT(ls_holder_tx(&w, own_tie_and_spans, 3), 1);
    CHECK_INT(ls_holder_tx(&w, NULL, 0), 1);
}

/*
 * Issue 34, samples/blind-zk (log_statement = 'mod': no BEGIN/COMMIT, no
 * SELECT ... FOR UPDATE in the log). Deadlock victim 30373 waited for
 * accounts id=4 from 15:25:44.369823, logged at 45.370000, DETAIL naming
 * pid 30377, whose last logged statement was INSERT orders at 44.346
 * (its own transaction, 44.346..44.346, a committed place_order): the
 * transfer that held the row took it by an unlogged FOR UPDATE at .357.
 * Times in µs from 15:25:44.
 */
static void test_ends_unlogged(void)
{
    ls_holder_wait w = pooled(743, 346000, 346000);
    ls_holder_hold spans = {900, 0, 357000, 359000, 1375000}; /* the transfer's spans */
    ls_holder_hold insert = {743, 30377, 346000, 346000, 346000};
    ls_root_link root = {30377, 0, 30377, 0, 30377, 0, 743, 0, 1};

    w.at = 1370000;
    w.start = 369823;
    w.holder_pid = 30377;
    w.waiter_tx = 0;
    /* a complete log: the link stands, as before */
    CHECK_INT(ls_holder_tx(&w, NULL, 0), 743);
    CHECK_INT(ls_holder_tx(&w, &insert, 1), 743);
    /* no transaction control: unknown, unless a hold covers the moment */
    w.ends_unlogged = 1;
    CHECK_INT(ls_holder_tx(&w, NULL, 0), 0);
    CHECK_INT(ls_holder_tx(&w, &insert, 1), 0);
    CHECK_INT(ls_holder_tx(&w, &spans, 1), 900);
    /* by xid, or open at the message: kept */
    w.by_xid = 1;
    CHECK_INT(ls_holder_tx(&w, NULL, 0), 743);
    w.by_xid = 0;
    w.linked_end = 1370001;
    CHECK_INT(ls_holder_tx(&w, NULL, 0), 743);
    /* the root (the holder, its transaction unknown): not the session's
     * last logged statement's by position; by time only (none open) */
    CHECK_INT(ls_root_tx(&root), 0);
    root.by_time_tx = 744;
    CHECK_INT(ls_root_tx(&root), 744);
    root.by_time_tx = 0;
    root.ends_unlogged = 0;
    CHECK_INT(ls_root_tx(&root), 743);
}

/* A root blocker whose transaction is unknown is set apart by the xid its
 * waiters named: samples/blind-pl's pid 9132 (no statement logged) was
 * awaited as transaction 856 at 19:32:49 ("ShareLock on transaction 856",
 * a transfer's deadlock), 1011 at 19:33:03 and 1094 at 19:33:09 (while
 * locking tuple (0,78) in relation "warehouses"): three roots, not one. */
static void test_root_apart_xid(void)
{
    CHECK_INT(ls_root_apart_xid(0, 856), 856);
    CHECK_INT(ls_root_apart_xid(0, 1094), 1094);
    /* the transaction known: it alone sets the root apart (one
     * transaction, one xid) */
    CHECK_INT(ls_root_apart_xid(7, 1094), 0);
    /* no xid named (a chain ending at a tuple lock's queue head): the pid's
     * waits stay one root, its transactions unknown */
    CHECK_INT(ls_root_apart_xid(0, 0), 0);
    CHECK_INT(ls_root_apart_xid(7, 0), 0);
}

/*
 * samples/blind-go (issue 34: a Go pgx pool, PostgreSQL 15 through
 * rsyslog, log_min_duration_statement = 250ms, no BEGIN or COMMIT logged):
 *   21:54:08 postgres[10173]: LOG:  duration: 5658.012 ms  execute
 *            lrupsc_4_0: SELECT sku, on_hand, reserved FROM inventory
 *            WHERE sku = $1 FOR UPDATE
 *   21:54:12 postgres[10166]: DETAIL:  Process holding the lock: 10173.
 *            CONTEXT:  while locking tuple (0,89) in relation "accounts"
 * Pid 10173's last logged statement's transaction (tx 18, 02.342..08.000)
 * locked inventory only; the accounts row was its next, unlogged
 * transaction's (a transferCredit). Times in µs from 21:54:00.
 */
static void test_threshold_other_relation(void)
{
    ls_holder_wait w = pooled(18, 2342000, 8000000);

    w.at = 12000000;
    w.start = 11000000; /* logged at 12 after 1000 ms */
    w.tick = 1000000;   /* whole seconds */
    w.holder_pid = 10173;
    w.waiter_tx = 0;
    w.ends_unlogged = LS_ENDS_UNLOGGED_THRESHOLD;
    /* its own statements locked no accounts row, and it had ended 3 s
     * before the wait began: unknown */
    CHECK_INT(ls_holder_tx(&w, NULL, 0), 0);
    /* ended within a tick of the wait's start (samples/blind-pool: a
     * booking's INSERT logged, its UPDATE events before it unlogged):
     * the log cannot say it had ended; kept */
    w.start = 8900000;
    CHECK_INT(ls_holder_tx(&w, NULL, 0), 18);
    w.start = 9000001;
    CHECK_INT(ls_holder_tx(&w, NULL, 0), 0);
    w.start = 11000000;
    /* a transaction that locked a row of the relation itself may have
     * gone on, unlogged, to lock this one: kept */
    w.linked_locks_relation = 1;
    CHECK_INT(ls_holder_tx(&w, NULL, 0), 18);
    /* a complete log: kept either way, as before */
    w.ends_unlogged = 0;
    w.linked_locks_relation = 0;
    CHECK_INT(ls_holder_tx(&w, NULL, 0), 18);
    /* a classes log (log_statement = 'mod'): unknown either way */
    w.ends_unlogged = LS_ENDS_UNLOGGED_CLASSES;
    w.linked_locks_relation = 1;
    w.start = 8900000;
    CHECK_INT(ls_holder_tx(&w, NULL, 0), 0);
    /* open at the message: kept */
    w.linked_end = 12000001;
    CHECK_INT(ls_holder_tx(&w, NULL, 0), 18);
}

int main(void)
{
    test_root_apart_xid();
    test_threshold_other_relation();
    test_ends_unlogged();
    test_root_tx();
    test_root_tx_rest();
    test_head_wait_on();
    test_holder_kept();
    test_holder_covers();
    test_holder_candidates();
    return TEST_REPORT();
}
