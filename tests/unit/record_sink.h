/*
 * record_sink.h — a parser sink for tests that copies every ls_record out
 * of its callback (NULL stays NULL) and notes bad lines, so that a test can
 * assert on them after the parser is done. Shared by the log parser tests.
 */
#ifndef LS_RECORD_SINK_H
#define LS_RECORD_SINK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_parser.h"

#define MAXREC 16

/* String fields of a record, in snap.s[]. */
enum {
    S_SESSION,
    S_USER,
    S_DB,
    S_APP,
    S_REMOTE,
    S_BTYPE,
    S_TAG,
    S_VXID,
    S_SEVERITY,
    S_MESSAGE,
    S_DETAIL,
    S_HINT,
    S_QUERY,
    S_CONTEXT,
    S_STATEMENT,
    S_LOCATION,
    S__COUNT
};

/* An ls_record copied out of the callback. */
typedef struct snap {
    uint64_t line;
    ls_ts ts, session_start;
    int pid;
    int64_t session_line;
    uint32_t xid;
    char sqlstate[6];
    char *s[S__COUNT];
    size_t msg_len; /* the message's length as the parser gave it */
} snap;

typedef struct collector {
    snap recs[MAXREC];
    int n;
    uint64_t bad_lines[MAXREC];
    char bad_reason[MAXREC][96];
    int nbad;
} collector;

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static int on_record(void *ctx, const ls_record *r)
{
    collector *c = ctx;
    snap *g;
    const char *const s[S__COUNT] = {r->session_id, r->user,         r->database,    r->application,
                                     r->remote,     r->backend_type, r->command_tag, r->vxid,
                                     r->severity,   r->message,      r->detail,      r->hint,
                                     r->query,      r->context,      r->statement,   r->location};
    int i;
    if (c->n >= MAXREC)
        return 0;
    g = &c->recs[c->n++];
    g->line = r->line;
    g->ts = r->ts;
    g->session_start = r->session_start;
    g->pid = r->pid;
    g->session_line = r->session_line;
    g->xid = r->xid;
    memcpy(g->sqlstate, r->sqlstate, 6);
    g->msg_len = r->message ? strlen(r->message) : 0;
    for (i = 0; i < S__COUNT; i++)
        g->s[i] = dup_or_null(s[i]);
    return 0;
}

static void on_bad(void *ctx, const char *file, uint64_t line, const char *reason, const char *text,
                   size_t len)
{
    collector *c = ctx;
    (void)file, (void)text, (void)len;
    if (c->nbad < MAXREC) {
        c->bad_lines[c->nbad] = line;
        snprintf(c->bad_reason[c->nbad], sizeof(c->bad_reason[0]), "%s", reason);
        c->nbad++;
    }
}

static void collector_free(collector *c)
{
    int i, k;
    for (i = 0; i < c->n; i++)
        for (k = 0; k < S__COUNT; k++)
            free(c->recs[i].s[k]);
    memset(c, 0, sizeof(*c));
}

#endif
