/*
 * ls_sqlcomment.h — sqlcommenter tags in a SQL statement's text.
 *
 * Per the sqlcommenter spec the tags are in the statement's last block
 * comment as key='value' pairs separated by commas, keys and values
 * URL-encoded and a ' in a value escaped with a backslash. Rails'
 * marginalia writes key:value pairs (controller:users,action:show), which
 * are read too.
 */
#ifndef LS_SQLCOMMENT_H
#define LS_SQLCOMMENT_H

#include <stddef.h>

#define LS_SQLCOMMENT_MAX_TAGS 16

typedef struct ls_sqltag {
    char key[64];
    char value[256];
} ls_sqltag;

typedef struct ls_sqltags {
    int n;
    ls_sqltag tag[LS_SQLCOMMENT_MAX_TAGS];
    /* From a traceparent tag "00-<32 hex>-<16 hex>-<2 hex>"; "" if none. */
    char trace_id[33];
    char span_id[17];
} ls_sqltags;

/* Parse the tags of `sql`'s last comment. Returns the number of tags. */
int ls_sqlcomment_parse(const char *sql, ls_sqltags *out);

/* The value of `key`, or NULL. */
const char *ls_sqltags_get(const ls_sqltags *t, const char *key);

#endif
