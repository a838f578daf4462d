/*
 * test_keypack.c — row keys packed into one tx_keys value
 * (src/store/keypack.c, ls_keypack.h): what the store packs the
 * transactions pass unpacks, entry for entry. The keys and times are of
 * bench/pgbench_log.sh's log (pgbench -M extended, PostgreSQL 15).
 */
#include <string.h>

#include "ls_keypack.h"
#include "ls_test.h"

static ls_keypack_entry entry(int64_t stmt_id, int64_t session_id, int64_t start_ts, int has_end,
                              int64_t end_ts, int64_t file_id, int64_t line, const char *rel,
                              const char *key)
{
    ls_keypack_entry e;
    memset(&e, 0, sizeof(e));
    e.stmt_id = stmt_id;
    e.session_id = session_id;
    e.start_ts = start_ts;
    e.has_end = has_end;
    e.end_ts = end_ts;
    e.file_id = file_id;
    e.line = line;
    strcpy(e.rel, rel);
    strcpy(e.key, key);
    return e;
}

static void check_same(const ls_keypack_entry *a, const ls_keypack_entry *b)
{
    CHECK_INT(a->stmt_id, b->stmt_id);
    CHECK_INT(a->session_id, b->session_id);
    CHECK_INT(a->start_ts, b->start_ts);
    CHECK_INT(a->has_end, b->has_end);
    if (a->has_end)
        CHECK_INT(a->end_ts, b->end_ts);
    CHECK_INT(a->file_id, b->file_id);
    CHECK_INT(a->line, b->line);
    CHECK_STR(a->rel, b->rel);
    CHECK_STR(a->key, b->key);
}

static void test_roundtrip(void)
{
    ls_keypack_entry in[] = {
        entry(287, 4, 1796612608245631, 1, 1796612608246000, 1, 317, "pgbench_accounts",
              "aid=3350092"),
        /* the same relation (packed once), a later line */
        entry(290, 5, 1796612608245774, 1, 1796612608246000, 1, 315, "pgbench_accounts",
              "aid=18859"),
        /* out of stmt_id order (a row that waited for a line to fold in),
         * no end (log_statement = 'all'), another file, time going back */
        entry(285, 7, 1796612608100000, 0, 0, 2, 12, "pgbench_tellers", "tid=7"),
        /* no start logged (0), a key with spaces, digits and a quote */
        entry(300, 8, 0, 0, 0, 2, 13, "pgbench_branches", "bid=1 2 '3"),
        /* a relation name of the longest kind a key keeps */
        entry(301, 8, 5, 1, 4, 2, 14, "t", "id=-42"),
    };
    ls_buf b = LS_BUF_INIT(0);
    ls_keypack_entry out;
    const char *p, *end;
    size_t i, n = sizeof(in) / sizeof(in[0]);

    for (i = 0; i < n; i++)
        CHECK_INT(ls_keypack_add(&b, i ? &in[i - 1] : NULL, &in[i]), 0);
    p = ls_buf_str(&b);
    end = p + b.len;
    /* the relation written once for two entries in a row */
    CHECK_INT(strstr(strstr(p, "pgbench_accounts") + 1, "pgbench_accounts") == NULL, 1);
    for (i = 0; i < n; i++) {
        p = ls_keypack_next(p, end, i ? &out : NULL, &out);
        CHECK_INT(p != NULL, 1);
        if (!p)
            break;
        check_same(&out, &in[i]);
    }
    CHECK_INT(p == end, 1);
    CHECK_INT(ls_keypack_next(end, end, &out, &out) == NULL, 1);
    ls_buf_free(&b);
}

static void test_malformed(void)
{
    ls_keypack_entry e;
    static const char *bad[] = {
        "",                                  /* nothing */
        "1 2 3 4 5 6 7 ",                    /* cut short */
        "1 2 3 4 - 1 0 5 aid=1",             /* "the rel before" with no entry before */
        "1 2 3 4 - 1 3 50 rel",              /* a key longer than the value */
        "1 2 3 4 x 1 3 1 relk",              /* not a number */
        "1 2 3 4 - 1 999 1 relk",            /* a relation longer than a key keeps */
    };
    size_t i;
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK_INT(ls_keypack_next(bad[i], bad[i] + strlen(bad[i]), NULL, &e) == NULL, 1);
    /* and a whole one */
    {
        const char *ok = "1 2 3 4 - 1 3 5 relaid=1";
        CHECK_INT(ls_keypack_next(ok, ok + strlen(ok), NULL, &e) == ok + strlen(ok), 1);
        CHECK_STR(e.rel, "rel");
        CHECK_STR(e.key, "aid=1");
        CHECK_INT(e.has_end, 0);
        CHECK_INT(e.line, 3);
    }
}

int main(void)
{
    test_roundtrip();
    test_malformed();
    return TEST_REPORT();
}
