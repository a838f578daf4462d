/*
 * rowid.c — the row a wait is counted on (rowid.h).
 */
#include "rowid.h"

#include <stdio.h>
#include <string.h>

#include "finding.h"

int ls_is_row_lock(const char *target_kind)
{
    return !target_kind || strcmp(target_kind, "transaction") == 0 ||
           strcmp(target_kind, "tuple") == 0 || strcmp(target_kind, "spectoken") == 0;
}

int ls_deadlock_names_row(const char *edge_kind, int keyed)
{
    return keyed && edge_kind && ls_is_row_lock(edge_kind);
}

int ls_serialization_names_row(const char *message, int keyed)
{
    return keyed && message &&
           (strstr(message, "due to concurrent update") != NULL ||
            strstr(message, "due to concurrent delete") != NULL);
}

/* NOWAIT's message for a row lock, to its relation's name. */
#define NOWAIT_ROW "could not obtain lock on row "

int ls_lock_error_names_row(const char *message, const char *sql, int keyed)
{
    return keyed && message &&
           (strcmp(message, "canceling statement due to lock timeout") == 0 ||
            strncmp(message, NOWAIT_ROW, sizeof(NOWAIT_ROW) - 1) == 0) &&
           ls_finding_locks_rows(sql);
}

const char *ls_row_of_wait(const ls_row_wait *w, char *rel, size_t rel_len, char *key,
                           size_t key_len, char *why, size_t why_len)
{
    if (w->keyed) {
        snprintf(rel, rel_len, "%s", w->rel);
        snprintf(key, key_len, "%s", w->key);
        return w->evidence;
    }
    if (w->ctid[0]) {
        snprintf(rel, rel_len, "%s", w->rel[0] ? w->rel : "?");
        snprintf(key, key_len, "ctid %s", w->ctid);
        snprintf(why, why_len, "ctid only: %s", w->evidence ? w->evidence : "no statement");
        return why;
    }
    /* Not a row: a relation, advisory or other lock, by its target. */
    snprintf(rel, rel_len, "%s", w->rel[0] ? w->rel : w->target_kind);
    snprintf(key, key_len, "%s", w->target);
    return LS_ROW_LOCK_TARGET;
}

int ls_ctid_row_may_be_other(int ctid_only, int relation_known, long rows_of_relation)
{
    return ctid_only && relation_known && rows_of_relation >= 2;
}
