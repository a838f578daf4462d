/*
 * test_decide_txwindow.c — decide/txwindow.c: a session's candidate
 * transactions for a moment from their transactions read in time order,
 * each once, the same as the per-moment lookup it replaces (transactions.c, tx_candidates_sql:
 * the LS_POS_CANDIDATES_WHOLE latest begun by t + slack, start_ts DESC,
 * tx_id DESC; open when end_ts IS NULL OR end_ts >= t - slack).
 * Boundaries: a moment exactly at a start or an end, equal start times,
 * no candidate, a window that wraps, moments far apart.
 */
#include "decide/errstmt.h"
#include "decide/txwindow.h"
#include "ls_test.h"

static ls_txwin_tx tx(int64_t id, int64_t start, int64_t end)
{
    ls_txwin_tx x = {0};
    x.tx_id = id;
    x.start = start;
    x.has_end = end >= 0;
    x.end = end;
    return x;
}

static void test_boundaries(void)
{
    /* begun by: a start at t + slack is begun, a microsecond later not */
    CHECK_INT(ls_tx_begun_by(1000, 1000, 0), 1);
    CHECK_INT(ls_tx_begun_by(1001, 1000, 0), 0);
    CHECK_INT(ls_tx_begun_by(2000, 1000, 1000), 1);
    CHECK_INT(ls_tx_begun_by(2001, 1000, 1000), 0);
    /* open: ended at the very moment (t - slack) is open, before it not */
    CHECK_INT(ls_tx_open_by_time(1, 1000, 1000, 0), 1);
    CHECK_INT(ls_tx_open_by_time(1, 999, 1000, 0), 0);
    CHECK_INT(ls_tx_open_by_time(1, 0, 1000, 1000), 1);
    CHECK_INT(ls_tx_open_by_time(1, -1, 1000, 1000), 0);
    CHECK_INT(ls_tx_open_by_time(0, 0, 1000, 0), 1);
    /* the stream's order: start, then tx_id */
    {
        ls_txwin_tx a = tx(5, 100, -1), b = tx(4, 100, -1), c = tx(9, 99, -1);
        CHECK_INT(ls_txwin_later(&a, &b), 1);
        CHECK_INT(ls_txwin_later(&b, &a), 0);
        CHECK_INT(ls_txwin_later(&b, &c), 1);
        CHECK_INT(ls_txwin_later(&a, &a), 0);
    }
}

static void test_window(void)
{
    ls_txwin w;
    ls_txwin_tx a = tx(1, 100, 200), b = tx(2, 300, 300), c = tx(3, 300, 400);
    int i;
    ls_txwin_reset(&w);
    /* no candidate: an empty window */
    CHECK(ls_txwin_at(&w, 0) == NULL);
    CHECK_INT(ls_txwin_add(&w, &a), 0);
    CHECK_INT(ls_txwin_add(&w, &b), 0);
    /* equal start times: the higher tx_id is the later */
    CHECK_INT(ls_txwin_add(&w, &c), 0);
    /* out of order (not later than the latest kept): refused */
    CHECK_INT(ls_txwin_add(&w, &b), -1);
    CHECK_INT(ls_txwin_add(&w, &c), -1);
    CHECK_INT((int)ls_txwin_at(&w, 0)->tx_id, 3);
    CHECK_INT((int)ls_txwin_at(&w, 1)->tx_id, 2);
    CHECK_INT((int)ls_txwin_at(&w, 2)->tx_id, 1);
    CHECK(ls_txwin_at(&w, 3) == NULL);
    /* full: the earliest falls out, the ring wraps */
    for (i = 0; i < LS_TXWIN_CAP; i++) {
        ls_txwin_tx x = tx(10 + i, 1000 + i, -1);
        CHECK_INT(ls_txwin_add(&w, &x), 0);
    }
    CHECK_INT((int)ls_txwin_at(&w, 0)->tx_id, 10 + LS_TXWIN_CAP - 1);
    CHECK_INT((int)ls_txwin_at(&w, LS_TXWIN_CAP - 1)->tx_id, 10);
    CHECK(ls_txwin_at(&w, LS_TXWIN_CAP) == NULL);
    ls_txwin_reset(&w);
    CHECK(ls_txwin_at(&w, 0) == NULL);
}

/* The per-moment lookup the stream replaces, over txs sorted by (start,
 * tx_id) ascending: the ids of the latest LS_TXWIN_CAP begun by t + slack,
 * latest first. */
static size_t lookup(const ls_txwin_tx *txs, size_t n, int64_t t, int64_t slack, int64_t *ids)
{
    size_t k = 0, i = n;
    while (i-- > 0 && k < LS_TXWIN_CAP)
        if (ls_tx_begun_by(txs[i].start, t, slack))
            ids[k++] = txs[i].tx_id;
    return k;
}

/* The caller's walk (transactions.c, relink_window()): moments in time
 * order; for each, the transactions begun after the latest kept and by
 * the moment, latest first, at most LS_TXWIN_CAP (one read), added
 * earliest first. */
static void test_stream_matches_lookup(void)
{
    enum { N = 300, M = 120 };
    ls_txwin_tx txs[N];
    int64_t moments[M];
    size_t i, j;
    int64_t slack = 3;
    ls_txwin w;
    int mismatches = 0, read = 0;

    /* starts that tie in pairs (whole-second times) */
    for (i = 0; i < N; i++)
        txs[i] = tx((int64_t)i + 1, (int64_t)(i / 3) * 10 + (i % 3 == 2 ? 5 : 0), -1);
    /* moments in time order: the first ones before every start, some
     * equal (j % 7), two jumps past more than a window */
    for (j = 0; j < M; j++)
        moments[j] = -100 + (int64_t)j * 9 - (j % 7 == 1 ? 9 : 0) + (j >= 40 ? 200 : 0) +
                     (j >= 80 ? 200 : 0);
    ls_txwin_reset(&w);
    for (j = 0; j < M; j++) {
        int64_t t = moments[j], want[LS_TXWIN_CAP];
        size_t k = lookup(txs, N, t, slack, want), nb = 0;
        const ls_txwin_tx *latest = ls_txwin_at(&w, 0), *batch[LS_TXWIN_CAP];
        /* the read: latest first, begun by t + slack, after `latest` */
        for (i = N; i-- > 0 && nb < LS_TXWIN_CAP;)
            if (ls_tx_begun_by(txs[i].start, t, slack) &&
                (!latest || ls_txwin_later(&txs[i], latest)))
                batch[nb++] = &txs[i];
        read += (int)nb;
        while (nb > 0)
            CHECK_INT(ls_txwin_add(&w, batch[--nb]), 0);
        for (i = 0; i < k || ls_txwin_at(&w, i); i++)
            if (i >= k || !ls_txwin_at(&w, i) || ls_txwin_at(&w, i)->tx_id != want[i])
                mismatches++;
    }
    CHECK_INT(mismatches, 0);
    /* each transaction read at most once */
    CHECK(read <= N);
}

/* The window's candidates as relink_one() hands them to ls_error_tx(): an
 * error stamped in the very second (whole-second times, slack 0) two
 * transactions began in, one before its line and one after. */
static void test_error_at_start(void)
{
    ls_txwin w;
    ls_txwin_tx a = tx(1, 100, 200), b = tx(2, 200, 200), c = tx(3, 200, -1);
    ls_tx_candidate cand[LS_TXWIN_CAP];
    size_t n;
    a.first = (ls_logpos){1, 10};
    b.first = (ls_logpos){1, 20};
    c.first = (ls_logpos){1, 30};
    ls_txwin_reset(&w);
    CHECK_INT(ls_txwin_add(&w, &a), 0);
    CHECK_INT(ls_txwin_add(&w, &b), 0);
    CHECK_INT(ls_txwin_add(&w, &c), 0);
    for (n = 0; ls_txwin_at(&w, n); n++) {
        cand[n].first = ls_txwin_at(&w, n)->first;
        cand[n].open =
            ls_tx_open_by_time(ls_txwin_at(&w, n)->has_end, ls_txwin_at(&w, n)->end, 200, 0);
    }
    CHECK_INT((int)n, 3);
    /* b ended at the error's moment: open; its first line is the last
     * before the error's (25): b, not c begun in the same second */
    CHECK_INT(ls_error_tx(cand, n, (ls_logpos){1, 25}), 1);
    /* after c's first line: c */
    CHECK_INT(ls_error_tx(cand, n, (ls_logpos){1, 31}), 0);
    /* before every first line: none */
    CHECK_INT(ls_error_tx(cand, n, (ls_logpos){1, 5}), -1);
    /* no candidate */
    CHECK_INT(ls_error_tx(cand, 0, (ls_logpos){1, 25}), -1);
}

/* Each session's window, direct-mapped: one whose slot another session
 * took starts again empty, never with the other's transactions. */
static void test_slots(void)
{
    static ls_txwin_slots t;
    ls_txwin_tx a = tx(1, 100, -1), b = tx(2, 200, -1);
    ls_txwin *w;
    ls_txwin_slots_reset(&t);
    w = ls_txwin_of(&t, 7);
    CHECK(ls_txwin_at(w, 0) == NULL);
    CHECK_INT(ls_txwin_add(w, &a), 0);
    /* another session in another slot: 7's window kept */
    CHECK_INT(ls_txwin_add(ls_txwin_of(&t, 8), &b), 0);
    w = ls_txwin_of(&t, 7);
    CHECK(ls_txwin_at(w, 0) != NULL && ls_txwin_at(w, 0)->tx_id == 1);
    CHECK(ls_txwin_at(w, 1) == NULL);
    /* a session in 7's slot: an empty window, not 7's */
    w = ls_txwin_of(&t, 7 + LS_TXWIN_SLOTS);
    CHECK(ls_txwin_at(w, 0) == NULL);
    CHECK_INT(ls_txwin_add(w, &b), 0);
    /* and 7 again: empty too (its candidates read again) */
    w = ls_txwin_of(&t, 7);
    CHECK(ls_txwin_at(w, 0) == NULL);
    /* 8 kept throughout */
    w = ls_txwin_of(&t, 8);
    CHECK(ls_txwin_at(w, 0) != NULL && ls_txwin_at(w, 0)->tx_id == 2);
}

int main(void)
{
    test_slots();
    test_error_at_start();
    test_boundaries();
    test_window();
    test_stream_matches_lookup();
    return TEST_REPORT();
}
