/*
 * test_textcache.c — correlate/textcache.c: the transactions pass's
 * statement texts by text_id. A slot holds one id's text; an id of the
 * same slot (LS_TEXT_CACHE_SLOTS apart) is not taken for it, whatever the
 * slot holds (mutation tx38-1: the id not compared, a statement read as
 * another's text, so as locking another row).
 *
 * The texts are statements of the real pgbench log
 * tests/e2e/data/pgbench-bind-victim.log.gz (its UPDATE of branch bid=2,
 * pid 8656, and a teller's UPDATE).
 */
#include <stdlib.h>

#include "ls_common.h"
#include "ls_test.h"
#include "textcache.h"

#define BRANCH_UPDATE "UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = 2;"
#define TELLER_UPDATE "UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2;"

/* A free cache finds nothing; a filled slot finds its own id only. */
static void test_hit_and_miss(ls_text_cache *c)
{
    ls_text_slot *e, *again;

    CHECK_INT(ls_text_cache_find(c, 7, &e), 0);
    CHECK(e != NULL && e->text == NULL);
    CHECK_INT(ls_text_cache_fill(e, 7, BRANCH_UPDATE), 0);
    CHECK_INT(ls_text_cache_find(c, 7, &again), 1);
    CHECK(again == e);
    CHECK_STR(again->text, BRANCH_UPDATE);
    CHECK_INT(again->kind, ls_sql_kind_of(BRANCH_UPDATE));
    /* another slot: still free */
    CHECK_INT(ls_text_cache_find(c, 8, &e), 0);
    CHECK(e != again && e->text == NULL);
}

/* Two ids of one slot: each replaces the other; neither is read as the
 * other's text. */
static void test_collision(ls_text_cache *c)
{
    ls_text_slot *e, *f;
    int64_t other = 7 + LS_TEXT_CACHE_SLOTS;

    CHECK_INT(ls_text_cache_find(c, 7, &e), 1);
    CHECK_INT(ls_text_cache_find(c, other, &f), 0);
    CHECK(f == e);
    CHECK_INT(ls_text_cache_fill(f, other, TELLER_UPDATE), 0);
    CHECK_INT(ls_text_cache_find(c, other, &f), 1);
    CHECK_STR(f->text, TELLER_UPDATE);
    CHECK_INT(ls_text_cache_find(c, 7, &e), 0);
    /* a text_id no text has is read as "" and kept as such */
    CHECK_INT(ls_text_cache_fill(e, 7, ""), 0);
    CHECK_INT(ls_text_cache_find(c, 7, &e), 1);
    CHECK_STR(e->text, "");
    CHECK_INT(ls_text_cache_find(c, other, &f), 0);
    /* negative ids (none are stored, but the mask must stay in range) */
    CHECK_INT(ls_text_cache_find(c, -1, &f), 0);
    CHECK(f == &c->v[LS_TEXT_CACHE_SLOTS - 1]);
}

int main(void)
{
    ls_text_cache *c = calloc(1, sizeof(*c));

    if (!c)
        return 1;
    test_hit_and_miss(c);
    test_collision(c);
    ls_text_cache_free(c);
    CHECK(c->v[7].text == NULL);
    free(c);
    return TEST_REPORT();
}
