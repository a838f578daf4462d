/*
 * test_decide_errstmt.c — decide/errstmt.c: an error belongs to the
 * statement running in its session when it was written (log position).
 * Boundaries: a line at either end, equal positions, unknown positions,
 * a later file.
 *
 * The positions are those of one backend (pid 10475) in the real log
 * samples/blind-py/postgresql.log (PostgreSQL 15, '%t [%p-%l] ', all in
 * the whole second 08:12:19 or 08:12:20):
 *   4407 [10475-407] acquired ShareLock on transaction 975   (stock sku=1)
 *   4413 [10475-410] statement: INSERT INTO orders ...
 *   4466 [10475-411] statement: COMMIT
 *   4474 [10475-412] statement: BEGIN
 *   4475 [10475-413] statement: SET TRANSACTION ISOLATION LEVEL ...
 *   4476 [10475-414] statement: SELECT sum(qty), count(*) FROM stock
 *   4502 [10475-415] statement: UPDATE stock SET qty = qty + 0 WHERE sku = 2
 *   4503 [10475-416] ERROR: could not serialize access (40001)
 *   4649 [10475-427] acquired ShareLock on transaction 984   (stock sku=2)
 *   4652 [10475-430] ERROR: could not serialize access (40001)
 *   4654 [10475-432] statement: ROLLBACK
 *   4702 [10475-436] statement: UPDATE stock SET qty = qty + 0 WHERE sku = 2
 *   4748 [10475-441] acquired ShareLock on transaction 1001  (stock sku=2)
 *   4751 [10475-444] ERROR: could not serialize access (40001)
 */
#include "decide/errstmt.h"
#include "ls_test.h"

#define POS(l) ((ls_logpos){1, (l)})
#define LINE(l) {1, (l)}

static const ls_logpos session_lines[] = {LINE(4413), LINE(4466), LINE(4474), LINE(4475),
                                          LINE(4476), LINE(4502), LINE(4654), LINE(4702)};
#define N_LINES (sizeof(session_lines) / sizeof(session_lines[0]))

static void test_sample(void)
{
    /* The stock sku=1 wait acquired at 4407: its statement went on (the
     * INSERT, COMMIT, a new transaction); the 40001 at 4503, 96 lines
     * later in the same second, is the later UPDATE's. */
    CHECK_INT(ls_error_ended_wait_stmt(POS(4407), POS(4503), session_lines, N_LINES), 0);
    /* The wait acquired at 4649 ended in the 40001 at 4652: nothing of
     * the session between them. */
    CHECK_INT(ls_error_ended_wait_stmt(POS(4649), POS(4652), session_lines, N_LINES), 1);
    /* The wait acquired at 4748: the first 40001 at or after its second
     * (4652) was written before it, the previous statement's; 4751 is its
     * own. */
    CHECK_INT(ls_error_ended_wait_stmt(POS(4748), POS(4652), session_lines, N_LINES), 0);
    CHECK_INT(ls_error_ended_wait_stmt(POS(4748), POS(4751), session_lines, N_LINES), 1);
    /* Without the lines of the session, position alone. */
    CHECK_INT(ls_error_ended_wait_stmt(POS(4407), POS(4503), NULL, 0), 1);
}

static void test_boundaries(void)
{
    ls_logpos a = POS(100), e = POS(110);
    /* a line exactly at either end is not between (the wait's own line,
     * the error's own line) */
    CHECK_INT(ls_line_separates(a, e, POS(100)), 0);
    CHECK_INT(ls_line_separates(a, e, POS(110)), 0);
    CHECK_INT(ls_line_separates(a, e, POS(101)), 1);
    CHECK_INT(ls_line_separates(a, e, POS(109)), 1);
    CHECK_INT(ls_line_separates(a, e, POS(99)), 0);
    CHECK_INT(ls_line_separates(a, e, POS(111)), 0);
    /* a span's statement has no log position: it separates nothing */
    CHECK_INT(ls_line_separates(a, e, (ls_logpos){0, 0}), 0);
    /* the error at the wait's own position, or before it: not its outcome */
    CHECK_INT(ls_error_ended_wait_stmt(a, a, NULL, 0), 0);
    CHECK_INT(ls_error_ended_wait_stmt(a, POS(99), NULL, 0), 0);
    CHECK_INT(ls_error_ended_wait_stmt(a, POS(101), NULL, 0), 1);
    /* the error in the next file (rotation): after, whatever its line;
     * a statement at the start of that file separates them */
    {
        ls_logpos next = {2, 3}, first = {2, 1}, last = {1, 500};
        CHECK_INT(ls_error_ended_wait_stmt(a, next, NULL, 0), 1);
        CHECK_INT(ls_error_ended_wait_stmt(a, next, &first, 1), 0);
        CHECK_INT(ls_error_ended_wait_stmt(a, next, &last, 1), 0);
        CHECK_INT(ls_error_ended_wait_stmt(next, a, NULL, 0), 0);
    }
    /* an unknown position: the caller decides */
    CHECK_INT(ls_error_ended_wait_stmt((ls_logpos){0, 0}, e, NULL, 0), -1);
    CHECK_INT(ls_error_ended_wait_stmt(a, (ls_logpos){0, 0}, NULL, 0), -1);
}

/*
 * The deadlock of backend 10479 in samples/blind-py/postgresql.log:
 *   2024 08:12:05 [10479-185] statement: BEGIN           (the victim's)
 *   2030 08:12:05 [10479-188] statement: EXECUTE move_money(39, 3)
 *   2074 08:12:06 [10479-194] ERROR:  deadlock detected
 *   2083 08:12:06 [10479-199] statement: ROLLBACK
 *   2087 08:12:06 [10479-200] statement: BEGIN           (its retry)
 *   2092 08:12:06 [10479-205] statement: COMMIT
 *   2093 08:12:06 [10479-206] statement: BEGIN
 *   2095 08:12:06 [10479-208] statement: COMMIT
 *   2100 08:12:06 [10479-209] statement: BEGIN
 * By time all four had begun by 08:12:06 and none had ended before it;
 * the latest begun (2100) is not the error's: the victim's (2024) is.
 */
static void test_error_tx(void)
{
    ls_tx_candidate c[] = {{{1, 2100}, 1}, {{1, 2093}, 1}, {{1, 2087}, 1}, {{1, 2024}, 1}};
    ls_tx_candidate shut[] = {{{1, 2100}, 1}, {{1, 2024}, 0}};
    ls_tx_candidate nopos[] = {{{0, 0}, 1}, {{0, 0}, 1}};
    ls_tx_candidate mixed[] = {{{1, 2100}, 1}, {{0, 0}, 1}};

    CHECK_INT(ls_error_tx(c, 4, POS(2074)), 3);
    /* the candidates in any order: the last begun before the error */
    {
        ls_tx_candidate r[] = {{{1, 2024}, 1}, {{1, 2087}, 1}, {{1, 2100}, 1}};
        CHECK_INT(ls_error_tx(r, 3, POS(2074)), 0);
        CHECK_INT(ls_error_tx(r, 3, POS(2088)), 1);
        /* a transaction's first line is before its own error */
        CHECK_INT(ls_error_tx(r, 3, POS(2087)), 1);
    }
    /* the one begun before the error had ended by then: none */
    CHECK_INT(ls_error_tx(shut, 2, POS(2074)), -1);
    /* every candidate begun after the error: none */
    CHECK_INT(ls_error_tx(c, 3, POS(2074)), -1);
    CHECK_INT(ls_error_tx(c, 0, POS(2074)), -1);
    /* no positions: the latest begun, as by time alone */
    CHECK_INT(ls_error_tx(nopos, 2, POS(2074)), 0);
    CHECK_INT(ls_error_tx(c, 4, (ls_logpos){0, 0}), 0);
    /* a span's transaction (no line) where the one with a line began
     * after the error */
    CHECK_INT(ls_error_tx(mixed, 2, POS(2074)), 1);
    /* samples/blind-pool/postgresql.json, pid 21502 behind pgbouncer:
     * line 55 logged the victim's first UPDATE (159 ms, 05.049-05.209),
     * a transaction of its own that had ended by the deadlock's ERROR of
     * line 71 (05.479); the victim's transaction rebuilt from its
     * request's BEGIN and ROLLBACK spans (spans.c, no line: 05.048 to
     * 05.490) was open then, begun a little earlier */
    {
        ls_tx_candidate pooled[] = {{{1, 55}, 0}, {{0, 0}, 1}};
        ls_tx_candidate pooled_shut[] = {{{1, 55}, 0}, {{0, 0}, 0}};
        CHECK_INT(ls_error_tx(pooled, 2, POS(71)), 1);
        CHECK_INT(ls_error_tx(pooled_shut, 2, POS(71)), -1);
    }
}

/* samples/blind-otel/postgresql.log lines 7115-7118, pid 8312 (/reprice,
 * REPEATABLE READ): "bind <unnamed>: update "products" set "price" = $1
 * where "sku" = $2 ..." at 05:52:15.292 (DETAIL $1 = '121', $2 =
 * 'SKU-1'), then "ERROR:  could not serialize access due to concurrent
 * update" at 05:52:15.292, no execute line between them. */
static void test_error_ended_bind(void)
{
    int64_t bind = 1796536335292000, err = 1796536335292000;
    CHECK_INT(ls_error_ended_bind(LS_LAST_BIND, 1, bind, err), 1);
    /* lines 1068-1075, pid 8302: bind at 02.870, error at 02.871 */
    CHECK_INT(ls_error_ended_bind(LS_LAST_BIND, 1, bind, err + 1000), 1);
    /* a second error after the same bind: the first one ended it */
    CHECK_INT(ls_error_ended_bind(LS_LAST_BIND, 0, bind, err + 1000), 0);
    /* an error stamped before the bind line: not its */
    CHECK_INT(ls_error_ended_bind(LS_LAST_BIND, 1, bind, bind - 1), 0);
    /* a parse line alone: the bind failed, nothing ran */
    CHECK_INT(ls_error_ended_bind(LS_LAST_PARSE, 1, bind, err), 0);
    /* an execute (or statement) line: it ended well */
    CHECK_INT(ls_error_ended_bind(LS_LAST_STATEMENT, 1, bind, err), 0);
}

int main(void)
{
    test_sample();
    test_boundaries();
    test_error_tx();
    test_error_ended_bind();
    return TEST_REPORT();
}
