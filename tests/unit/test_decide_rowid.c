/*
 * test_decide_rowid.c — decide/rowid.c: what a wait is counted on.
 * Boundary cases first: empty relation, ctid or target; a keyed wait with
 * a ctid; an unknown lock kind; no evidence.
 */
#include "decide/rowid.h"
#include "ls_test.h"

static ls_row_wait wait_of(int keyed, const char *rel, const char *key, const char *ctid,
                           const char *evidence, const char *kind, const char *target)
{
    ls_row_wait w;
    w.keyed = keyed;
    w.rel = rel;
    w.key = key;
    w.ctid = ctid;
    w.evidence = evidence;
    w.target_kind = kind;
    w.target = target;
    return w;
}

static void test_row_lock(void)
{
    CHECK_INT(ls_is_row_lock("transaction"), 1);
    CHECK_INT(ls_is_row_lock("tuple"), 1);
    CHECK_INT(ls_is_row_lock("spectoken"), 1);
    CHECK_INT(ls_is_row_lock(NULL), 1); /* unknown: taken for a row */
    CHECK_INT(ls_is_row_lock("extend"), 0);
    CHECK_INT(ls_is_row_lock("page"), 0);
    CHECK_INT(ls_is_row_lock("relation"), 0);
    CHECK_INT(ls_is_row_lock("advisory"), 0);
    CHECK_INT(ls_is_row_lock(""), 0);
}

static void test_row_of_wait(void)
{
    char rel[64], key[64], why[64];
    const char *ev;
    ls_row_wait w;

    /* Keyed: its key and evidence, its ctid notwithstanding. */
    w = wait_of(1, "accounts", "id=1", "(0,1)", "bind parameter", "transaction", "transaction 7");
    ev = ls_row_of_wait(&w, rel, sizeof(rel), key, sizeof(key), why, sizeof(why));
    CHECK_STR(rel, "accounts");
    CHECK_STR(key, "id=1");
    CHECK_STR(ev, "bind parameter");
    /* Not keyed, a ctid: a fragment that says why. */
    w = wait_of(0, "accounts", "", "(0,1)", "bind parameters not logged", "tuple", "tuple (0,1)");
    ev = ls_row_of_wait(&w, rel, sizeof(rel), key, sizeof(key), why, sizeof(why));
    CHECK_STR(rel, "accounts");
    CHECK_STR(key, "ctid (0,1)");
    CHECK_STR(ev, "ctid only: bind parameters not logged");
    /* ... with no relation and no statement. */
    w = wait_of(0, "", "", "(0,1)", NULL, "tuple", "tuple (0,1)");
    ev = ls_row_of_wait(&w, rel, sizeof(rel), key, sizeof(key), why, sizeof(why));
    CHECK_STR(rel, "?");
    CHECK_STR(ev, "ctid only: no statement");
    /* No key, no ctid: its lock target, by the relation when known. */
    w = wait_of(0, "accounts", "", "", "x", "extend", "extension of relation 16384");
    ev = ls_row_of_wait(&w, rel, sizeof(rel), key, sizeof(key), why, sizeof(why));
    CHECK_STR(rel, "accounts");
    CHECK_STR(key, "extension of relation 16384");
    CHECK_STR(ev, LS_ROW_LOCK_TARGET);
    w = wait_of(0, "", "", "", NULL, "advisory", "advisory lock [1,2,3,1]");
    ev = ls_row_of_wait(&w, rel, sizeof(rel), key, sizeof(key), why, sizeof(why));
    CHECK_STR(rel, "advisory");
    CHECK_STR(key, "advisory lock [1,2,3,1]");
    CHECK_STR(ev, LS_ROW_LOCK_TARGET);
    /* Truncated to the buffers, never past them. */
    w = wait_of(1, "a_very_long_relation_name", "id=1", "", "k", "tuple", "");
    ls_row_of_wait(&w, rel, 8, key, sizeof(key), why, sizeof(why));
    CHECK_STR(rel, "a_very_");
}

/* A deadlock's DETAIL: a process's statement is a row it waited for only
 * with a row-lock edge and a key. */
static void test_deadlock_names_row(void)
{
    CHECK_INT(ls_deadlock_names_row("transaction", 1), 1);
    CHECK_INT(ls_deadlock_names_row("tuple", 1), 1);
    CHECK_INT(ls_deadlock_names_row("transaction", 0), 0); /* no key in its statement */
    CHECK_INT(ls_deadlock_names_row("relation", 1), 0);    /* a table lock: not the row */
    CHECK_INT(ls_deadlock_names_row("advisory", 1), 0);
    CHECK_INT(ls_deadlock_names_row(NULL, 1), 0);          /* no edge read: no evidence */
}

/* A 40001's statement names the row another transaction held when the
 * message says it was updated (or deleted) concurrently; the English
 * messages as PostgreSQL 15 writes them (the executor's; the SSI one is
 * predicate.c's), and one in other words, as a translation gives. */
static void test_serialization_names_row(void)
{
    CHECK_INT(ls_serialization_names_row(
                  "could not serialize access due to concurrent update", 1), 1);
    CHECK_INT(ls_serialization_names_row(
                  "could not serialize access due to concurrent delete", 1), 1);
    CHECK_INT(ls_serialization_names_row(
                  "could not serialize access due to concurrent update", 0), 0); /* no key */
    CHECK_INT(ls_serialization_names_row("could not serialize access due to read/write "
                                         "dependencies among transactions", 1), 0); /* SSI */
    CHECK_INT(ls_serialization_names_row(NULL, 1), 0);
    /* other words (a translated message): not read */
    CHECK_INT(ls_serialization_names_row("acces impossible a serialiser (mise a jour "
                                         "concurrente)", 1), 0);
}

/* A lock error's statement names its row: PostgreSQL's lock_timeout and
 * NOWAIT-on-a-row messages (samples/blind-java line 2105, recountShelf's
 * UPDATE; NOWAIT's text as lmgr.c/heapam.c write it), a locking statement
 * that names a key; a table's lock, an INSERT, no key or other words: no. */
static void test_lock_error_names_row(void)
{
    static const char upd[] = "UPDATE warehouses SET last_counted = now() WHERE id = $1";
    static const char lt[] = "canceling statement due to lock timeout";

    CHECK_INT(ls_lock_error_names_row(lt, upd, 1), 1);
    CHECK_INT(ls_lock_error_names_row(lt, "SELECT id FROM w WHERE id = 3 FOR UPDATE", 1), 1);
    CHECK_INT(ls_lock_error_names_row(lt, "DELETE FROM w WHERE id = 3", 1), 1);
    CHECK_INT(ls_lock_error_names_row("could not obtain lock on row in relation \"w\"",
                                      "SELECT * FROM w WHERE id = 3 FOR UPDATE NOWAIT", 1), 1);
    CHECK_INT(ls_lock_error_names_row(lt, upd, 0), 0); /* no key */
    CHECK_INT(ls_lock_error_names_row(lt, NULL, 1), 0);
    CHECK_INT(ls_lock_error_names_row(NULL, upd, 1), 0);
    /* a fresh row nobody held; a read takes no row lock */
    CHECK_INT(ls_lock_error_names_row(lt, "INSERT INTO w(id) VALUES (3)", 1), 0);
    CHECK_INT(ls_lock_error_names_row(lt, "SELECT * FROM w WHERE id = 3", 1), 0);
    /* a table's lock (NOWAIT on LOCK TABLE), a statement timeout */
    CHECK_INT(ls_lock_error_names_row("could not obtain lock on relation \"w\"", upd, 1), 0);
    CHECK_INT(ls_lock_error_names_row("canceling statement due to statement timeout", upd, 1), 0);
    /* other words (a translated message): not read */
    CHECK_INT(ls_lock_error_names_row("annulation de la requete a cause du delai d'attente"
                                      " du verrou", upd, 1), 0);
    CHECK_INT(ls_lock_error_names_row("canceling statement due to lock timeout!", upd, 1), 0);
}

/* samples/blind-pl: warehouses id=1 waited for as three ctids, none keyed
 * (log_statement none): each may be a version of the others. */
static void test_ctid_row_may_be_other(void)
{
    CHECK_INT(ls_ctid_row_may_be_other(1, 1, 3), 1);
    CHECK_INT(ls_ctid_row_may_be_other(1, 1, 2), 1);
    /* its relation's one row: nothing to join */
    CHECK_INT(ls_ctid_row_may_be_other(1, 1, 1), 0);
    /* a keyed row is its key's, however many rows its relation has */
    CHECK_INT(ls_ctid_row_may_be_other(0, 1, 3), 0);
    /* relation "?": the ctids may be of several relations */
    CHECK_INT(ls_ctid_row_may_be_other(1, 0, 3), 0);
}

int main(void)
{
    test_ctid_row_may_be_other();
    test_row_lock();
    test_deadlock_names_row();
    test_serialization_names_row();
    test_lock_error_names_row();
    test_row_of_wait();
    return TEST_REPORT();
}
