/*
 * classify.c — recognise the messages of a PostgreSQL log record that lock
 * analysis needs and turn them into an ls_event (see ls_classify.h).
 *
 * Parsing is hand-written over a cursor (curl strparse style): every helper
 * returns 0 and advances on success, or returns non-zero and leaves the
 * cursor where it was, so steps chain with ||. Record text is arbitrary
 * bytes: nothing here assumes valid UTF-8 or stops at anything but the end
 * of the slice.
 *
 * Message formats follow PostgreSQL 15 (English, lc_messages = 'C'):
 * storage/lmgr/proc.c ProcSleep, storage/lmgr/lmgr.c DescribeLockTag and
 * XactLockTableWaitErrorCb, storage/lmgr/deadlock.c DeadLockReport,
 * tcop/postgres.c, utils/init/postinit.c.
 *
 * Strings the event needs that are not NUL-terminated in the record (names,
 * hosts, deadlock queries) are copied into a scratch arena owned by the
 * classifier and reset at each ls_classify() call. Its blocks never move, so
 * pointers handed out stay valid until the next call. Define
 * LS_ARENA_MALLOC to give every copy its own malloc block so sanitizers see
 * each allocation separately.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_classify.h"
#include "ls_i18n.h"

/*
 * A message is never measured whole: SQL text can be hundreds of KB and is
 * handed out as a pointer into the record. MSG_DISPATCH bytes cover every
 * fixed header up to the SQL of a duration/statement line (the common case
 * costs one short strnlen and a few memcmp's); the rarer messages widen the
 * window to MSG_HEAD_MAX, which holds every field parsed out of a message.
 */
#define MSG_DISPATCH 128
#define MSG_HEAD_MAX 4096

/* ------------------------------------------------------------------ */
/* Scratch arena                                                        */

typedef struct arena_block {
    struct arena_block *next;
    size_t cap;
    size_t used;
    char data[];
} arena_block;

/* A growable buffer for a field written back in English. */
typedef struct en_buf {
    char *p;
    size_t cap;
} en_buf;

struct ls_classifier {
    arena_block *blocks; /* newest first; the newest survives a reset */
    /* Translated messages (see ls_i18n.h): */
    int lang;            /* language of the log, -1 English or not known yet */
    int forced;          /* lang set by --lc-messages: no detection */
    int quiet;           /* do not name the detected language */
    uint64_t seen;       /* records classified */
    int understood;      /* classify_en() read the record and dropped it on purpose */
    ls_record en;        /* the record in English, handed on as ev->rec */
    en_buf msg, detail, context;
    en_buf cut; /* a message without its errposition (errposition_en) */
    ls_classify_stats st;
};

#define ARENA_BLOCK_MIN 4096

static void arena_reset(ls_classifier *c)
{
    arena_block *b, *next;

    if (!c->blocks)
        return;
#ifdef LS_ARENA_MALLOC
    b = c->blocks;
    c->blocks = NULL;
#else
    b = c->blocks->next;
    c->blocks->next = NULL;
    c->blocks->used = 0;
#endif
    for (; b; b = next) {
        next = b->next;
        free(b);
    }
}

/* Copy n bytes of p into the arena and NUL-terminate; NULL on ENOMEM. */
static char *arena_strndup(ls_classifier *c, const char *p, size_t n)
{
    arena_block *b = c->blocks;
    char *out;

#ifdef LS_ARENA_MALLOC
    b = NULL;
#endif
    if (!b || b->cap - b->used < n + 1) {
        size_t cap = n + 1;
#ifndef LS_ARENA_MALLOC
        if (cap < ARENA_BLOCK_MIN)
            cap = ARENA_BLOCK_MIN;
#endif
        b = ls_malloc(sizeof(*b) + cap);
        if (!b)
            return NULL;
        b->cap = cap;
        b->used = 0;
        b->next = c->blocks;
        c->blocks = b;
    }
    out = b->data + b->used;
    if (n)
        memcpy(out, p, n);
    out[n] = '\0';
    b->used += n + 1;
    return out;
}

int ls_classifier_new(ls_classifier **out)
{
    ls_classifier *c = ls_calloc(1, sizeof(*c));
    *out = c;
    if (c)
        c->lang = -1;
    return c ? LS_OK : LS_ENOMEM;
}

void ls_classifier_free(ls_classifier *c)
{
    if (!c)
        return;
    free(c->msg.p);
    free(c->detail.p);
    free(c->context.p);
    free(c->cut.p);
    arena_reset(c);
    free(c->blocks);
    free(c);
}

/* ------------------------------------------------------------------ */
/* Cursor helpers: 0 = matched and advanced, 1 = no match (unchanged).  */

typedef struct cur {
    const char *p; /* next byte */
    const char *e; /* one past the last byte */
} cur;

static cur cur_of(const char *s, size_t len)
{
    cur c;
    c.p = s;
    c.e = s + len;
    return c;
}

static size_t cur_left(const cur *c)
{
    return (size_t)(c->e - c->p);
}

static int is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

/* Literal s (n bytes). */
static int lit(cur *c, const char *s, size_t n)
{
    if (cur_left(c) < n || memcmp(c->p, s, n) != 0)
        return 1;
    c->p += n;
    return 0;
}
#define LIT(c, s) lit((c), (s), sizeof(s) - 1)

/* Does the slice start with literal s? Does not advance. */
#define HAS(c, s) (cur_left(c) >= sizeof(s) - 1 && memcmp((c)->p, (s), sizeof(s) - 1) == 0)

/* Unsigned decimal up to max; no sign, at least one digit. */
static int num_u64(cur *c, uint64_t max, uint64_t *out)
{
    const char *p = c->p;
    uint64_t v = 0;

    if (p == c->e || !is_digit(*p))
        return 1;
    for (; p < c->e && is_digit(*p); p++) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (max - d) / 10)
            return 1;
        v = v * 10 + d;
    }
    c->p = p;
    *out = v;
    return 0;
}

static int num_u32(cur *c, uint32_t *out)
{
    uint64_t v;
    if (num_u64(c, UINT32_MAX, &v))
        return 1;
    *out = (uint32_t)v;
    return 0;
}

/* A process id: positive decimal that fits an int. */
static int num_pid(cur *c, int *out)
{
    uint64_t v;
    if (num_u64(c, 2147483647u, &v))
        return 1;
    *out = (int)v;
    return 0;
}

/* "123" or "123.456": the %ld.%03d and %.3f forms PostgreSQL prints. */
static int num_decimal(cur *c, double *out)
{
    cur t = *c;
    uint64_t whole, frac = 0;
    double scale = 1.0;

    if (num_u64(&t, UINT64_MAX / 2, &whole))
        return 1;
    if (t.p < t.e && *t.p == '.') {
        t.p++;
        if (t.p == t.e || !is_digit(*t.p))
            return 1;
        for (; t.p < t.e && is_digit(*t.p); t.p++) {
            if (scale < 1e15) {
                frac = frac * 10 + (uint64_t)(*t.p - '0');
                scale *= 10.0;
            }
        }
    }
    *out = (double)whole + (double)frac / scale;
    *c = t;
    return 0;
}

/* Find needle (n bytes) in the rest of c; on success *at points at it. */
static int find(const cur *c, const char *needle, size_t n, const char **at)
{
    const char *p = c->p;

    if (n == 0 || cur_left(c) < n)
        return 1;
    for (;;) {
        const char *hit = memchr(p, needle[0], (size_t)(c->e - p) - n + 1);
        if (!hit)
            return 1;
        if (memcmp(hit, needle, n) == 0) {
            *at = hit;
            return 0;
        }
        p = hit + 1;
        if ((size_t)(c->e - p) < n)
            return 1;
    }
}

/* Take bytes up to (not including) needle into [*s,*s+*n), then skip needle. */
static int upto(cur *c, const char *needle, size_t nlen, const char **s, size_t *n)
{
    const char *at;
    if (find(c, needle, nlen, &at))
        return 1;
    *s = c->p;
    *n = (size_t)(at - c->p);
    c->p = at + nlen;
    return 0;
}
#define UPTO(c, s, ps, pn) upto((c), (s), sizeof(s) - 1, (ps), (pn))

/* The end of the line starting at p (the '\n' or e). */
static const char *line_end(const char *p, const char *e)
{
    const char *nl = memchr(p, '\n', (size_t)(e - p));
    return nl ? nl : e;
}

/* Copy a slice into a fixed char array, truncating, always NUL-terminated. */
static void copy_fixed(char *dst, size_t cap, const char *s, size_t n)
{
    if (n >= cap)
        n = cap - 1;
    if (n)
        memcpy(dst, s, n);
    dst[n] = '\0';
}
#define COPY_FIXED(dst, s, n) copy_fixed((dst), sizeof(dst), (s), (n))

static size_t head_len(const char *s)
{
    return strnlen(s, MSG_HEAD_MAX);
}

/* Widen a cursor over a NUL-terminated string to MSG_HEAD_MAX bytes. */
static void widen(cur *c, const char *s)
{
    c->e = s + head_len(s);
}

/* ": " in NUL-terminated s within MSG_HEAD_MAX bytes, or NULL. */
static const char *find_colon_sp(const char *s)
{
    const char *q;
    for (q = s; *q && (size_t)(q - s) < MSG_HEAD_MAX; q++)
        if (q[0] == ':' && q[1] == ' ')
            return q;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Lock targets (lmgr.c DescribeLockTag)                                */

/* " of relation R of database D" */
static int rel_db(cur *c, ls_lock_target *t)
{
    return LIT(c, " of relation ") || num_u32(c, &t->rel_oid) || LIT(c, " of database ") ||
           num_u32(c, &t->db_oid);
}

/* "[a,b,c]" or "[a,b,c,d]" */
static int key_list(cur *c, ls_lock_target *t, int nkeys)
{
    int i;
    if (LIT(c, "["))
        return 1;
    for (i = 0; i < nkeys; i++) {
        if ((i && LIT(c, ",")) || num_u32(c, &t->key[i]))
            return 1;
    }
    return LIT(c, "]");
}

static ls_target_kind target_parse(cur *c, ls_lock_target *t)
{
    uint32_t v;

    switch (c->p < c->e ? *c->p : 0) {
    case 'r':
        if (!LIT(c, "relation ") && !num_u32(c, &t->rel_oid) && !LIT(c, " of database ") &&
            !num_u32(c, &t->db_oid))
            return LS_TGT_RELATION;
        break;
    case 'e':
        if (!LIT(c, "extension of relation ") && !num_u32(c, &t->rel_oid) &&
            !LIT(c, " of database ") && !num_u32(c, &t->db_oid))
            return LS_TGT_EXTEND;
        break;
    case 'p':
        if (!LIT(c, "page ") && !num_u32(c, &t->page) && !rel_db(c, t))
            return LS_TGT_PAGE;
        if (!LIT(c, "pg_database.datfrozenxid of database ") && !num_u32(c, &t->db_oid))
            return LS_TGT_UNKNOWN; /* PG15 LOCKTAG_DATABASE_FROZEN_IDS: no kind yet */
        break;
    case 't':
        if (!LIT(c, "tuple (") && !num_u32(c, &t->page) && !LIT(c, ",") &&
            !num_u32(c, &t->offset) && !LIT(c, ")") && !rel_db(c, t))
            return LS_TGT_TUPLE;
        if (!LIT(c, "transaction ") && !num_u32(c, &t->xid))
            return LS_TGT_TRANSACTION;
        break;
    case 'v':
        /* "%d/%u": the backend id is never negative for a live vxid. */
        if (!LIT(c, "virtual transaction ") && !num_u32(c, &t->key[0]) && !LIT(c, "/") &&
            !num_u32(c, &t->key[1]))
            return LS_TGT_VIRTUALXID;
        break;
    case 's':
        if (!LIT(c, "speculative token ") && !num_u32(c, &v) && !LIT(c, " of transaction ") &&
            !num_u32(c, &t->xid)) {
            t->key[0] = v;
            return LS_TGT_SPECTOKEN;
        }
        break;
    case 'o':
        if (!LIT(c, "object ") && !num_u32(c, &t->key[0]) && !LIT(c, " of class ") &&
            !num_u32(c, &t->key[1]) && !LIT(c, " of database ") && !num_u32(c, &t->db_oid))
            return LS_TGT_OBJECT;
        break;
    case 'u':
        if (!LIT(c, "user lock ") && !key_list(c, t, 3))
            return LS_TGT_USERLOCK;
        break;
    case 'a':
        if (!LIT(c, "advisory lock ") && !key_list(c, t, 4)) {
            t->db_oid = t->key[0]; /* field1 is MyDatabaseId */
            return LS_TGT_ADVISORY;
        }
        break;
    default:
        break;
    }
    return LS_TGT_UNKNOWN;
}

int ls_parse_lock_target(ls_lock_target *out, const char *s, size_t len)
{
    cur c = cur_of(s, len);
    ls_lock_target t;
    ls_target_kind k;

    memset(&t, 0, sizeof(t));
    k = target_parse(&c, &t);
    memset(out, 0, sizeof(*out));
    COPY_FIXED(out->text, s, len);
    if (c.p != c.e || k == LS_TGT_UNKNOWN) {
        /* DescribeLockTag() translates even when the message around it is
         * not (the Georgian catalog): read the English form. */
        char en[sizeof(out->text)];
        int near;
        if (len < sizeof(en) && ls_i18n_translate(s, len, -1, en, sizeof(en), &near) >= 0 &&
            strcmp(en, out->text) != 0)
            return ls_parse_lock_target(out, en, strlen(en));
    }
    if (c.p != c.e)
        return -1;
    if (k == LS_TGT_UNKNOWN) {
        out->db_oid = t.db_oid; /* datfrozenxid lock: only the database is known */
        return -1;
    }
    t.kind = k;
    memcpy(t.text, out->text, sizeof(t.text));
    *out = t;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Lock waits (proc.c ProcSleep)                                        */

/* "a, b, c" (possibly empty) into pids[], keeping at most LS_MAX_PIDS. */
static void pid_list(cur *c, int *pids, int *n)
{
    int pid;

    *n = 0;
    while (!num_pid(c, &pid)) {
        if (*n < LS_MAX_PIDS)
            pids[(*n)++] = pid;
        if (LIT(c, ", "))
            break;
    }
}

/* DETAIL "Process(es) holding the lock: 1, 2. Wait queue: 3, 4." */
static void wait_detail(ls_lock_wait *w, const char *detail)
{
    cur c;

    if (!detail)
        return;
    c = cur_of(detail, head_len(detail));
    if (LIT(&c, "Process holding the lock: ") && LIT(&c, "Processes holding the lock: "))
        return;
    pid_list(&c, w->holders, &w->nholders);
    /* PostgreSQL 18's log_lock_failures DETAIL has a comma there. */
    if (LIT(&c, ". Wait queue: ") && LIT(&c, ", Wait queue: "))
        return;
    pid_list(&c, w->queue, &w->nqueue);
}

/* CONTEXT forms of XactLockTableWaitErrorCb, after "while ". */
static const struct {
    const char *prefix; /* up to and including "(" */
    size_t len;
    const char *action;
    int updated_version; /* "(b,o) of tuple in relation" instead of "(b,o) in relation" */
} ctx_forms[] = {
#define F(p, a, u)                                                                                 \
    {                                                                                              \
        p, sizeof(p) - 1, a, u                                                                     \
    }
    F("updating tuple (", "updating", 0),
    F("deleting tuple (", "deleting", 0),
    F("locking tuple (", "locking", 0),
    F("locking updated version (", "locking updated version", 1),
    F("inserting index tuple (", "inserting index", 0),
    F("checking uniqueness of tuple (", "checking uniqueness", 0),
    F("rechecking updated tuple (", "rechecking updated", 0),
    F("checking exclusion constraint on tuple (", "checking exclusion constraint", 0),
#undef F
};

/* One CONTEXT line [p,e): "while <action> (b,o) in relation "name"". */
static int ctx_line(ls_lock_wait *w, const char *p, const char *e)
{
    cur c = cur_of(p, (size_t)(e - p));
    const char *q;
    size_t i;

    if (c.p < c.e && *c.p == '\t')
        c.p++;
    if (LIT(&c, "while "))
        return 1;
    for (i = 0; i < sizeof(ctx_forms) / sizeof(ctx_forms[0]); i++) {
        uint32_t b, o;
        cur t = c;
        if (lit(&t, ctx_forms[i].prefix, ctx_forms[i].len) || num_u32(&t, &b) || LIT(&t, ",") ||
            num_u32(&t, &o) || LIT(&t, ")") ||
            (ctx_forms[i].updated_version ? LIT(&t, " of tuple in relation \"")
                                          : LIT(&t, " in relation \"")))
            continue;
        /* relname is printed raw: it may itself hold quotes, so the name
         * runs to the last quote of the line. */
        for (q = t.e; q > t.p && q[-1] != '"'; q--)
            ;
        if (q == t.p)
            return 1;
        copy_fixed(w->ctx_action, sizeof(w->ctx_action), ctx_forms[i].action,
                   strlen(ctx_forms[i].action));
        COPY_FIXED(w->ctx_relation, t.p, (size_t)(q - 1 - t.p));
        w->ctx_page = b;
        w->ctx_offset = o;
        w->have_ctx_tuple = 1;
        return 0;
    }
    return 1;
}

static void wait_context(ls_lock_wait *w, const char *ctx)
{
    const char *p, *e, *le;

    if (!ctx)
        return;
    e = ctx + strlen(ctx);
    for (p = ctx; p < e; p = le + 1) {
        le = line_end(p, e);
        if (!ctx_line(w, p, le))
            return;
        if (le == e)
            break;
    }
}

static const struct {
    const char *text; /* after "process N " */
    size_t len;
    ls_lock_phase phase;
    int no_wait; /* the lock was never waited for: no " after X ms" */
} wait_phases[] = {
#define P(t, ph, nw)                                                                               \
    {                                                                                              \
        t, sizeof(t) - 1, ph, nw                                                                   \
    }
    P("still waiting for ", LS_LOCK_WAITING, 0),
    P("acquired ", LS_LOCK_ACQUIRED, 0),
    P("avoided deadlock for ", LS_LOCK_AVOIDED, 0),
    P("detected deadlock while waiting for ", LS_LOCK_DEADLOCK, 0),
    P("failed to acquire ", LS_LOCK_FAILED, 0),
    /* PostgreSQL 18 log_lock_failures: a NOWAIT (or SKIP LOCKED) that
     * found the lock taken. */
    P("could not obtain ", LS_LOCK_FAILED, 1),
#undef P
};

/*
 * The target of "process N could not obtain MODE on TARGET": the rest of
 * the message, less a trailing " at character N" (errposition). The lock
 * was never waited for: waited_ms is 0.
 */
static void lock_failure_target(ls_lock_wait *w, cur *c)
{
    const char *at;
    cur t = *c;

    if (!find(&t, " at character ", sizeof(" at character ") - 1, &at))
        t.e = at;
    ls_parse_lock_target(&w->target, t.p, cur_left(&t));
    w->waited_ms = 0;
}

/* "process N <phase> MODE on TARGET after X ms"; c is after "process ". */
static int lock_wait(ls_lock_wait *w, cur *c, const ls_record *rec)
{
    const char *s;
    size_t n, i;

    if (num_pid(c, &w->pid) || LIT(c, " "))
        return 1;
    for (i = 0; i < sizeof(wait_phases) / sizeof(wait_phases[0]); i++)
        if (!lit(c, wait_phases[i].text, wait_phases[i].len))
            break;
    if (i == sizeof(wait_phases) / sizeof(wait_phases[0]))
        return 1;
    w->phase = wait_phases[i].phase;
    if (UPTO(c, " on ", &s, &n) || n == 0 || memchr(s, ' ', n))
        return 1;
    COPY_FIXED(w->mode, s, n);
    if (wait_phases[i].no_wait) {
        lock_failure_target(w, c);
    } else {
        if (w->phase == LS_LOCK_AVOIDED ? UPTO(c, " by rearranging queue order after ", &s, &n)
                                        : UPTO(c, " after ", &s, &n))
            return 1;
        ls_parse_lock_target(&w->target, s, n);
        /* A trailing " at character N" (errposition) may follow " ms". */
        if (num_decimal(c, &w->waited_ms) || LIT(c, " ms"))
            w->waited_ms = -1;
    }
    wait_detail(w, rec->detail);
    wait_context(w, rec->context);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Deadlocks (deadlock.c DeadLockReport)                                */

/*
 * The query of process pid in a deadlock DETAIL, [start, end), copied into
 * d (a cycle of more than LS_MAX_EDGES processes keeps the first ones).
 * 0, or LS_ENOMEM.
 */
static int deadlock_add_proc(ls_classifier *cl, ls_deadlock *d, int pid, const char *start,
                             const char *end)
{
    char *q;
    if (d->nprocs >= LS_MAX_EDGES)
        return 0;
    if (!(q = arena_strndup(cl, start, (size_t)(end - start))))
        return LS_ENOMEM;
    d->procs[d->nprocs].pid = pid;
    d->procs[d->nprocs++].query = q;
    return 0;
}

/* At a line start: "Process N waits for " or "Process N: ". 1 = edge, 2 = proc. */
static int deadlock_line_kind(const char *p, const char *e, int *pid, cur *rest)
{
    cur c = cur_of(p, (size_t)(e - p));

    if (c.p < c.e && *c.p == '\t')
        c.p++;
    if (LIT(&c, "Process ") || num_pid(&c, pid))
        return 0;
    *rest = c;
    if (!LIT(rest, " waits for "))
        return 1;
    if (!LIT(rest, ": "))
        return 2;
    return 0;
}

static int deadlock(ls_classifier *cl, ls_deadlock *d, const char *detail)
{
    const char *p, *e, *le;
    const char *qstart = NULL;
    int qpid = 0, in_queries = 0;

    if (!detail)
        return 0;
    e = detail + strlen(detail);
    for (p = detail;; p = le + 1) {
        int pid = 0, kind;
        cur rest;

        le = line_end(p, e);
        kind = deadlock_line_kind(p, le, &pid, &rest);
        /*
         * DeadLockReport writes every edge, then one "Process N: query" per
         * process of the cycle. Once the queries begin, a line that looks
         * like an edge, or like the query of a process in no edge or whose
         * query came already, is query text (forged or not): never evidence.
         */
        if (kind == 1 && in_queries)
            kind = 0;
        if (kind == 2) {
            int i, known = 0;
            for (i = 0; i < d->nedges && !known; i++)
                known = d->edges[i].waiter_pid == pid || d->edges[i].blocker_pid == pid;
            for (i = 0; i < d->nprocs && known; i++)
                known = d->procs[i].pid != pid;
            if (known && qstart && qpid == pid)
                known = 0;
            if (!known && d->nedges > 0)
                kind = 0;
            else
                in_queries = 1;
        }
        if (kind && qstart) {
            /* The previous process's query ends before this line. */
            if (deadlock_add_proc(cl, d, qpid, qstart, p > qstart ? p - 1 : qstart) != 0)
                return LS_ENOMEM;
            qstart = NULL;
        }
        if (kind == 1 && d->nedges < LS_MAX_EDGES) {
            /* rest: "MODE on TARGET; blocked by process N." */
            ls_deadlock_edge *ed = &d->edges[d->nedges];
            const char *ms, *ts;
            size_t mn, tn;
            if (!UPTO(&rest, " on ", &ms, &mn) && mn && !memchr(ms, ' ', mn) &&
                !UPTO(&rest, "; blocked by process ", &ts, &tn) &&
                !num_pid(&rest, &ed->blocker_pid)) {
                ed->waiter_pid = pid;
                COPY_FIXED(ed->mode, ms, mn);
                ls_parse_lock_target(&ed->target, ts, tn);
                d->nedges++;
            }
        } else if (kind == 2) {
            qpid = pid;
            qstart = rest.p;
        }
        if (le == e)
            break;
    }
    if (qstart && deadlock_add_proc(cl, d, qpid, qstart, e) != 0)
        return LS_ENOMEM;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Errors                                                               */

static const struct {
    const char *prefix;
    size_t len;
    ls_error_class cls;
    const char *sqlstate;
} error_forms[] = {
#define E(p, c, s)                                                                                 \
    {                                                                                              \
        p, sizeof(p) - 1, c, s                                                                     \
    }
    E("canceling statement due to lock timeout", LS_ERRC_LOCK_TIMEOUT, "55P03"),
    E("could not obtain lock on row in relation ", LS_ERRC_LOCK_NOWAIT, "55P03"),
    E("could not obtain lock on relation ", LS_ERRC_LOCK_NOWAIT, "55P03"),
    E("canceling statement due to statement timeout", LS_ERRC_STATEMENT_TIMEOUT, "57014"),
    E("canceling statement due to user request", LS_ERRC_CANCELED, "57014"),
    E("could not serialize access due to ", LS_ERRC_SERIALIZATION, "40001"),
    E("terminating connection due to idle-in-transaction timeout", LS_ERRC_IDLE_TX_TIMEOUT,
      "25P03"),
#undef E
};

static int is_error_severity(const char *sev)
{
    return sev &&
           (strcmp(sev, "ERROR") == 0 || strcmp(sev, "FATAL") == 0 || strcmp(sev, "PANIC") == 0);
}

/* Returns 1 and fills e when the record is an error worth an event. */
static int error_event(ls_error_ev *ev, const ls_record *rec, cur *c)
{
    size_t i;
    const char *implied = "";

    ev->cls = LS_ERRC_OTHER;
    for (i = 0; i < sizeof(error_forms) / sizeof(error_forms[0]); i++) {
        if (cur_left(c) >= error_forms[i].len &&
            memcmp(c->p, error_forms[i].prefix, error_forms[i].len) == 0) {
            ev->cls = error_forms[i].cls;
            implied = error_forms[i].sqlstate;
            break;
        }
    }
    if (ev->cls == LS_ERRC_OTHER && !is_error_severity(rec->severity))
        return 0;
    if (rec->sqlstate[0])
        COPY_FIXED(ev->sqlstate, rec->sqlstate, strnlen(rec->sqlstate, sizeof(rec->sqlstate)));
    else
        COPY_FIXED(ev->sqlstate, implied, strlen(implied));
    return 1;
}

/* ------------------------------------------------------------------ */
/* Statements and durations (tcop/postgres.c)                           */

static const struct {
    const char *text;
    size_t len;
    const char *verb;
    int named;
} stmt_verbs[] = {
#define V(t, v, n)                                                                                 \
    {                                                                                              \
        t, sizeof(t) - 1, v, n                                                                     \
    }
    V("statement: ", "statement", 0),
    V("execute fetch from ", "execute", 1),
    V("execute ", "execute", 1),
    V("parse ", "parse", 1),
    V("bind ", "bind", 1),
#undef V
};

/*
 * "<verb>[ <name>]: <text>" at c, the tail of the NUL-terminated message.
 * Returns 0 (recognised), 1 (not recognised) or LS_ENOMEM.
 */
static int stmt_tail(ls_classifier *cl, ls_statement_ev *st, cur *c, int allow_parse_bind)
{
    size_t i;

    for (i = 0; i < sizeof(stmt_verbs) / sizeof(stmt_verbs[0]); i++) {
        cur t = *c;

        if (!allow_parse_bind && stmt_verbs[i].verb[0] != 's' && stmt_verbs[i].verb[0] != 'e')
            continue;
        if (lit(&t, stmt_verbs[i].text, stmt_verbs[i].len))
            continue;
        if (stmt_verbs[i].named) {
            /* t.e may cut the name short: search the string itself. */
            const char *colon = find_colon_sp(t.p);
            char *name;
            if (!colon)
                return 1;
            if (!(name = arena_strndup(cl, t.p, (size_t)(colon - t.p))))
                return LS_ENOMEM;
            st->name = name;
            t.p = colon + 2;
        } else {
            st->name = "";
        }
        COPY_FIXED(st->verb, stmt_verbs[i].verb, strlen(stmt_verbs[i].verb));
        st->text = t.p; /* NUL-terminated: the rest of the message */
        return 0;
    }
    return 1;
}

/* The DETAIL of a statement's bind parameters (tcop/postgres.c
 * errdetail_params): "parameters: $1 = ..." in older releases (15: the other samples),
 * "Parameters: $1 = ..." in newer ones (17.12: samples/blind-pool). */
static const char *stmt_params(const ls_record *rec)
{
    if (rec->detail && (strncmp(rec->detail, "parameters: ", 12) == 0 ||
                        strncmp(rec->detail, "Parameters: ", 12) == 0))
        return rec->detail + 12;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Connections (postmaster.c, postinit.c, postgres.c log_disconnections) */

static int conn_dup(ls_classifier *cl, const char **out, const char *s, size_t n)
{
    char *p = arena_strndup(cl, s, n);
    if (!p)
        return LS_ENOMEM;
    *out = p;
    return 0;
}

/* Value of key= up to the first of the given markers or the end. */
static void value_upto(cur *c, const char *const *ends, const char **s, size_t *n)
{
    const char *stop = c->e, *at;
    for (; *ends; ends++)
        if (!find(c, *ends, strlen(*ends), &at) && at < stop)
            stop = at;
    *s = c->p;
    *n = (size_t)(stop - c->p);
    c->p = stop;
}

static const char *const auth_tail_ends[] = {" SSL enabled (", " GSS (", NULL};
static const char *const auth_db_ends[] = {" application_name=", " SSL enabled (", " GSS (", NULL};
static const char *const disc_host_ends[] = {" port=", NULL};

static int connect_received(ls_classifier *cl, ls_conn_ev *ce, cur *c)
{
    const char *s;
    size_t n;

    if (LIT(c, "host="))
        return 1;
    if (UPTO(c, " port=", &s, &n)) {
        s = c->p;
        n = cur_left(c);
    }
    return conn_dup(cl, &ce->host, s, n) ? LS_ENOMEM : 0;
}

static int connect_authorized(ls_classifier *cl, ls_conn_ev *ce, cur *c)
{
    const char *s;
    size_t n;

    if (LIT(c, "user=") || UPTO(c, " database=", &s, &n))
        return 1;
    if (conn_dup(cl, &ce->user, s, n))
        return LS_ENOMEM;
    value_upto(c, auth_db_ends, &s, &n);
    if (conn_dup(cl, &ce->database, s, n))
        return LS_ENOMEM;
    if (!LIT(c, " application_name=")) {
        value_upto(c, auth_tail_ends, &s, &n);
        if (conn_dup(cl, &ce->application, s, n))
            return LS_ENOMEM;
    }
    return 0;
}

/* "session time: H:MM:SS.mmm user=U database=D host=H[ port=P]" */
static int disconnection(ls_classifier *cl, ls_conn_ev *ce, cur *c)
{
    uint64_t h, m;
    double sec;
    const char *s;
    size_t n;

    if (LIT(c, "session time: ") || num_u64(c, 1u << 30, &h) || LIT(c, ":") || num_u64(c, 59, &m) ||
        LIT(c, ":") || num_decimal(c, &sec))
        return 1;
    ce->session_seconds = (double)h * 3600.0 + (double)m * 60.0 + sec;
    if (LIT(c, " user=") || UPTO(c, " database=", &s, &n))
        return 0;
    if (conn_dup(cl, &ce->user, s, n))
        return LS_ENOMEM;
    if (UPTO(c, " host=", &s, &n))
        return 0;
    if (conn_dup(cl, &ce->database, s, n))
        return LS_ENOMEM;
    value_upto(c, disc_host_ends, &s, &n);
    if (conn_dup(cl, &ce->host, s, n))
        return LS_ENOMEM;
    return 0;
}

/* ------------------------------------------------------------------ */

static int is_log_severity(const char *sev)
{
    return !sev || strcmp(sev, "LOG") == 0;
}

/* ------------------------------------------------------------------ */
/* The server's own work: checkpoints, autovacuum, temporary files      */

/*
 * The texts of PostgreSQL 15's xlog.c (LogCheckpointStart/End), vacuumlazy.c
 * and analyze.c (log_autovacuum_min_duration) and fd.c
 * (ReportTemporaryFileUsage), English catalog only. A checkpoint's duration
 * is its "total=", an autovacuum's or autoanalyze's its "elapsed:" (the
 * rusage line at the end of the message), a temporary file's size in bytes.
 */
#define SRV_MS_PER_S 1000.0

/* The seconds after needle ("total=", "elapsed: ") as ms, or -1. */
static double srv_seconds_after(const cur *all, const char *needle, size_t n)
{
    cur c = *all;
    const char *at;
    double sec;

    if (find(&c, needle, n, &at))
        return -1;
    c.p = at + n;
    if (num_decimal(&c, &sec) || LIT(&c, " s"))
        return -1;
    return sec * SRV_MS_PER_S;
}
#define SRV_SECONDS_AFTER(c, s) srv_seconds_after((c), (s), sizeof(s) - 1)

/* "checkpoint|restartpoint starting|complete: ..." */
static int srv_checkpoint(cur *c, ls_server_ev *sv)
{
    if (LIT(c, "checkpoint ") && LIT(c, "restartpoint "))
        return 0;
    if (LIT(c, "starting: ") == 0) {
        sv->kind = LS_SRV_CHECKPOINT_START;
        return 1;
    }
    if (LIT(c, "complete: ") == 0) {
        sv->kind = LS_SRV_CHECKPOINT;
        sv->duration_ms = SRV_SECONDS_AFTER(c, "total=");
        return 1;
    }
    return 0;
}

/* "automatic [aggressive ]vacuum [to prevent wraparound ]of table \"R\": ..."
 * or "automatic analyze of table \"R\"". */
static int srv_autovacuum(cur *c, ls_server_ev *sv)
{
    const char *rel;
    size_t n;

    if (LIT(c, "automatic "))
        return 0;
    if (HAS(c, "analyze of table \""))
        sv->kind = LS_SRV_AUTOANALYZE;
    else if (HAS(c, "vacuum ") || HAS(c, "aggressive vacuum "))
        sv->kind = LS_SRV_AUTOVACUUM;
    else
        return 0;
    if (UPTO(c, "of table \"", &rel, &n) || UPTO(c, "\"", &rel, &n) ||
        memchr(rel, '\n', n))
        return 0;
    COPY_FIXED(sv->relation, rel, n);
    sv->duration_ms = SRV_SECONDS_AFTER(c, "elapsed: ");
    return 1;
}

/* "temporary file: path \"P\", size N" */
static int srv_temp_file(cur *c, ls_server_ev *sv)
{
    const char *path;
    size_t n;
    uint64_t size;

    if (LIT(c, "temporary file: path \"") || UPTO(c, "\", size ", &path, &n) ||
        num_u64(c, INT64_MAX, &size))
        return 0;
    sv->kind = LS_SRV_TEMP_FILE;
    sv->bytes = (int64_t)size;
    return 1;
}

/*
 * A LOG line of the server's own work into ev (LS_EV_SERVER). Returns 1
 * when msg is one, 0 when not (ev untouched but for ev->u.server).
 */
static int server_event(const ls_record *rec, const char *msg, ls_event *ev)
{
    ls_server_ev *sv = &ev->u.server;
    cur c;
    int got;

    /* first byte, then severity: a statement's message is not measured */
    if ((msg[0] != 'c' && msg[0] != 'r' && msg[0] != 'a' && msg[0] != 't') ||
        !is_log_severity(rec->severity))
        return 0;
    c = cur_of(msg, strlen(msg));
    sv->relation[0] = '\0';
    sv->bytes = -1;
    sv->duration_ms = -1;
    switch (msg[0]) {
    case 'c':
    case 'r': got = srv_checkpoint(&c, sv); break;
    case 'a': got = srv_autovacuum(&c, sv); break;
    default: got = srv_temp_file(&c, sv); break;
    }
    if (got)
        ev->kind = LS_EV_SERVER;
    return got;
}

/* ------------------------------------------------------------------ */
/* Classification                                                       */

static int classify_en(ls_classifier *cl, const ls_record *rec, ls_event *ev)
{
    const char *msg = rec->message;
    cur c;
    int rc;

    ev->kind = LS_EV_OTHER;
    ev->rec = rec;
    cl->understood = 0;
    arena_reset(cl);
    if (!msg || !msg[0])
        return 0;
    c = cur_of(msg, strnlen(msg, MSG_DISPATCH));
    if (server_event(rec, msg, ev))
        return 0;

    switch (msg[0]) {
    case 'd':
        if (LIT(&c, "duration: ") == 0) {
            ls_statement_ev *st = &ev->u.stmt;
            if (!is_log_severity(rec->severity) || num_decimal(&c, &st->duration_ms) ||
                LIT(&c, " ms"))
                return 0;
            st->verb[0] = '\0';
            st->name = "";
            st->text = "";
            st->params = NULL;
            st->text_hash = 0;
            st->text_len = 0;
            if (c.p < c.e) {
                if (LIT(&c, "  ") == 0 && (rc = stmt_tail(cl, st, &c, 1)) < 0)
                    return rc;
                st->params = stmt_params(rec);
            }
            ev->kind = LS_EV_DURATION;
            return 0;
        }
        if (HAS(&c, "deadlock detected") && cur_left(&c) == sizeof("deadlock detected") - 1 &&
            (is_error_severity(rec->severity) || !rec->severity)) {
            ev->u.deadlock.nedges = 0;
            ev->u.deadlock.nprocs = 0;
            if ((rc = deadlock(cl, &ev->u.deadlock, rec->detail)) < 0)
                return rc;
            ev->kind = LS_EV_DEADLOCK;
            return 0;
        }
        if (LIT(&c, "disconnection: ") == 0 && is_log_severity(rec->severity)) {
            ls_conn_ev *ce = &ev->u.conn;
            memset(ce, 0, sizeof(*ce));
            ce->session_seconds = -1;
            widen(&c, msg);
            if ((rc = disconnection(cl, ce, &c)) < 0)
                return rc;
            if (rc == 0)
                ev->kind = LS_EV_DISCONNECT;
            return 0;
        }
        break;
    case 'p':
        if (LIT(&c, "process ") == 0 && is_log_severity(rec->severity)) {
            ls_lock_wait *w = &ev->u.lock;
            memset(w, 0, sizeof(*w));
            widen(&c, msg);
            if (lock_wait(w, &c, rec) == 0)
                ev->kind = LS_EV_LOCK_WAIT;
            return 0;
        }
        break;
    case 's':
    case 'e':
        if (is_log_severity(rec->severity)) {
            ls_statement_ev *st = &ev->u.stmt;
            st->duration_ms = -1;
            st->verb[0] = '\0';
            st->text_hash = 0;
            st->text_len = 0;
            if ((rc = stmt_tail(cl, st, &c, 0)) < 0)
                return rc;
            if (rc == 0) {
                st->params = stmt_params(rec);
                ev->kind = LS_EV_STATEMENT;
            }
            return 0;
        }
        break;
    case 'c':
        if (LIT(&c, "connection ") == 0) {
            ls_conn_ev *ce = &ev->u.conn;
            if (!is_log_severity(rec->severity))
                return 0;
            memset(ce, 0, sizeof(*ce));
            ce->session_seconds = -1;
            widen(&c, msg);
            if (LIT(&c, "received: ") == 0)
                rc = connect_received(cl, ce, &c);
            else if (LIT(&c, "authorized: ") == 0)
                rc = connect_authorized(cl, ce, &c);
            else {
                /* PostgreSQL 18 log_connections = 'all' ("authenticated",
                 * "ready"): read, and nothing the analysis uses. */
                cl->understood = HAS(&c, "authenticated: ") || HAS(&c, "ready: ");
                return 0;
            }
            if (rc < 0)
                return rc;
            if (rc == 0)
                ev->kind = LS_EV_CONNECT;
            return 0;
        }
        break;
    default:
        break;
    }

    if (is_error_severity(rec->severity) || !rec->severity) {
        if (error_event(&ev->u.error, rec, &c))
            ev->kind = LS_EV_ERROR;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Translated messages (lc_messages other than C)                       */

/*
 * While no language is known, the first records of a log are all offered
 * to the translated patterns (Spanish and Japanese servers write English
 * severity words); after that only records whose severity word or bytes
 * say they are not English, so that an English log costs one check.
 */
#define DETECT_RECORDS 5000

int ls_classify_lang(const char *code)
{
    int i;
    if (strcmp(code, "C") == 0 || strcmp(code, "POSIX") == 0 ||
        strncmp(code, "C.", 2) == 0 ||
        (strncmp(code, "en", 2) == 0 && strchr("_.@", code[2]) != NULL))
        return -1; /* strchr finds the terminating NUL too: "en" */
    return (i = ls_i18n_lang_index(code)) < 0 ? -2 : i;
}

int ls_classifier_set_lang(ls_classifier *c, const char *code, int quiet)
{
    int lang;
    c->quiet = quiet;
    if (!code)
        return 0;
    if ((lang = ls_classify_lang(code)) == -2)
        return -1;
    c->lang = lang;
    c->forced = 1;
    return 0;
}

const ls_classify_stats *ls_classifier_stats(const ls_classifier *c)
{
    return &c->st;
}

static int has_high_byte(const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n && s[i]; i++)
        if ((unsigned char)s[i] >= 0x80)
            return 1;
    return 0;
}

static void note_lang(ls_classifier *cl, int lang)
{
    if (lang < 0 || cl->lang == lang || cl->forced)
        return;
    if (cl->lang < 0 && !cl->quiet)
        fprintf(stderr, "lockspan: server messages in %s (%s)\n", ls_i18n_langs[lang].code,
                ls_i18n_langs[lang].name);
    if (cl->lang < 0)
        cl->lang = lang;
}

static int buf_fit(en_buf *b, size_t n)
{
    char *p;
    if (b->cap >= n)
        return 0;
    if (!(p = realloc(b->p, n)))
        return LS_ENOMEM;
    b->p = p;
    b->cap = n;
    return 0;
}

/*
 * Field text written back in English into b, line by line (a deadlock's
 * DETAIL, a CONTEXT stack); lines no pattern knows are kept. Sets *out to
 * b's text when a line was translated; *near counts lines that began like
 * a known message without matching.
 */
static int field_en(ls_classifier *cl, en_buf *b, const char *text, const char **out, int *lang,
                    int *near)
{
    size_t n = strlen(text), used = 0;
    const char *p = text, *e = text + n;
    int any = 0;

    if (buf_fit(b, 2 * n + 4096))
        return LS_ENOMEM;
    /* A message of several lines ("...en attente de\n%s sur %s..."). */
    if (memchr(text, '\n', n) && n < 4096) {
        int nr = 0, l = ls_i18n_translate(text, n, *lang >= 0 ? *lang : cl->lang, b->p, b->cap,
                                          &nr);
        if (l >= 0) {
            *lang = l;
            *out = b->p;
            return 0;
        }
    }
    for (;;) {
        const char *le = memchr(p, '\n', (size_t)(e - p));
        size_t ln;
        int l, nr = 0, tab;

        if (!le)
            le = e;
        tab = p < le && *p == '\t';
        ln = (size_t)(le - p) - (size_t)tab;
        if (tab)
            b->p[used++] = '\t';
        l = ls_i18n_translate(p + tab, ln, *lang >= 0 ? *lang : cl->lang, b->p + used,
                              b->cap - used, &nr);
        /* -2 (no room) cannot happen: cap covers twice the text plus a template. */
        if (l >= 0) {
            used += strlen(b->p + used);
            any = 1;
            *lang = l;
        } else {
            memcpy(b->p + used, p + tab, ln);
            used += ln;
            *near += nr;
        }
        if (le == e)
            break;
        b->p[used++] = '\n';
        p = le + 1;
    }
    b->p[used] = '\0';
    if (any)
        *out = b->p;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Structural fallbacks: what no translation changes                    */

/*
 * When no message of the table matched (a catalog revision lockspan does
 * not know, a language it has no table for), a record is read by the parts
 * every catalog leaves alone: the SQLSTATE, the pids and OIDs, PostgreSQL's
 * lock mode names, the "%ld.%03d" milliseconds, and the English DETAIL
 * "Process holding the lock: ..." that no catalog translates. What is read
 * this way is counted (ls_classify_stats.structural).
 */

/* Lock mode names (lock.c lock_mode_names): never translated. */
static const char *const lock_modes[] = {
    "AccessShareLock", "RowShareLock",          "RowExclusiveLock", "ShareUpdateExclusiveLock",
    "ShareLock",       "ShareRowExclusiveLock", "ExclusiveLock",    "AccessExclusiveLock",
};

/* A structural read looks at lines this long at most: wait messages and
 * deadlock edge lines are short; longer text is a statement's. */
#define STRUCT_LINE_MAX 512
#define STRUCT_MAX_NUMS 8

static int is_ascii_alpha(char ch)
{
    return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z');
}

/*
 * The first lock mode name in [p,e) standing as a word of ASCII letters
 * ("ShareLock-Sperre" and "上的ShareLock" count; "AccessShareLock" is not
 * "ShareLock"). Returns its index in lock_modes and sets *at, or -1.
 */
static int find_lock_mode(const char *p, const char *e, const char **at)
{
    const char *best = NULL;
    int i, which = -1;

    for (i = 0; i < (int)(sizeof(lock_modes) / sizeof(lock_modes[0])); i++) {
        cur c = cur_of(p, (size_t)(e - p));
        size_t n = strlen(lock_modes[i]);
        const char *hit;
        while (!find(&c, lock_modes[i], n, &hit)) {
            if ((hit == p || !is_ascii_alpha(hit[-1])) &&
                (hit + n == e || !is_ascii_alpha(hit[n]))) {
                if (!best || hit < best) {
                    best = hit;
                    which = i;
                }
                break;
            }
            c.p = hit + 1;
        }
    }
    *at = best;
    return which;
}

/* The numbers of a message, in order, sorted by form. */
typedef struct struct_nums {
    uint32_t ints[STRUCT_MAX_NUMS]; /* plain integers (pids, OIDs, xids) */
    const char *int_at[STRUCT_MAX_NUMS];
    int nints;
    int have_ms; /* one "%ld.%03d" figure */
    double ms;
    const char *ms_at;
    int have_pair; /* "(b,o)": a tuple */
    uint32_t pair[2];
    int have_vxid; /* "b/l": a virtual transaction */
    uint32_t vxid[2];
    int nkeys; /* "[a,b,c(,d)]": user/advisory lock keys */
    uint32_t keys[4];
} struct_nums;

/* "%ld.%03d": digits, '.' (',' in catalogs that write a decimal comma),
 * exactly three digits, then no digit. */
static int struct_ms(cur *c, double *out)
{
    cur t = *c;
    uint64_t whole;
    const char *f;

    if (num_u64(&t, UINT64_MAX / 2, &whole) || (LIT(&t, ".") && LIT(&t, ",")))
        return 1;
    f = t.p;
    if (cur_left(&t) < 3 || !is_digit(f[0]) || !is_digit(f[1]) || !is_digit(f[2]) ||
        (cur_left(&t) > 3 && is_digit(f[3])))
        return 1;
    *out = (double)whole + (double)((f[0] - '0') * 100 + (f[1] - '0') * 10 + (f[2] - '0')) / 1000.0;
    c->p = f + 3;
    return 0;
}

/* "(b,o)" */
static int struct_pair(cur *c, uint32_t *b, uint32_t *o)
{
    cur t = *c;
    if (LIT(&t, "(") || num_u32(&t, b) || LIT(&t, ",") || num_u32(&t, o) || LIT(&t, ")"))
        return 1;
    *c = t;
    return 0;
}

/* "[a,b,c]" or "[a,b,c,d]" */
static int struct_keys(cur *c, uint32_t *keys, int *n)
{
    cur t = *c;
    int k = 0;
    if (LIT(&t, "["))
        return 1;
    do {
        if (k == 4 || num_u32(&t, &keys[k++]))
            return 1;
    } while (!LIT(&t, ","));
    if (LIT(&t, "]") || k < 3)
        return 1;
    *n = k;
    *c = t;
    return 0;
}

/*
 * Sort the numbers of [p,e) into *nums. A digit run glued to an ASCII
 * letter or '_' (an identifier's) is not a number. Returns 1 when there are
 * too many, or a second figure of a kind that comes once.
 */
static int struct_scan(const char *p, const char *e, struct_nums *nums)
{
    cur c = cur_of(p, (size_t)(e - p));

    memset(nums, 0, sizeof(*nums));
    while (c.p < c.e) {
        uint32_t a, b;
        char prev = c.p > p ? c.p[-1] : ' ';
        const char *start;
        double ms;

        if (is_ascii_alpha(prev) || prev == '_' || is_digit(prev) ||
            (!is_digit(*c.p) && *c.p != '(' && *c.p != '[')) {
            c.p++;
            continue;
        }
        if (*c.p == '(') {
            if (!struct_pair(&c, &a, &b)) {
                if (nums->have_pair++)
                    return 1;
                nums->pair[0] = a;
                nums->pair[1] = b;
            } else {
                c.p++;
            }
        } else if (*c.p == '[') {
            if (!struct_keys(&c, nums->keys, &nums->nkeys)) {
                if (nums->have_vxid || nums->nkeys == 0)
                    return 1;
            } else {
                c.p++;
            }
        } else if ((start = c.p, !struct_ms(&c, &ms))) {
            if (nums->have_ms++)
                return 1;
            nums->ms = ms;
            nums->ms_at = start;
        } else if (num_u32(&c, &a)) {
            return 1; /* too big for an OID or a pid */
        } else if (!LIT(&c, "/")) {
            if (num_u32(&c, &b) || nums->have_vxid++)
                return 1;
            nums->vxid[0] = a;
            nums->vxid[1] = b;
        } else {
            if (nums->nints == STRUCT_MAX_NUMS)
                return 1;
            nums->int_at[nums->nints] = start;
            nums->ints[nums->nints++] = a;
        }
    }
    return 0;
}

/*
 * The lock target from the numbers ints[from, to) and the pair/keys/vxid
 * of nums, written as DescribeLockTag() writes it in English. A
 * translation may name the database before the relation ("数据库 16384 的关系
 * 16385"): a relation is created in a database that exists, so its OID is
 * taken to be the larger of the two. Returns 0, or 1 when the numbers fit
 * no target.
 */
static int struct_target(ls_lock_target *t, const struct_nums *nums, int from, int to)
{
    int n = to - from;
    uint32_t lo = 0, hi = 0;
    char text[sizeof(t->text)];

    memset(t, 0, sizeof(*t));
    if (n == 2) {
        lo = nums->ints[from] < nums->ints[from + 1] ? nums->ints[from] : nums->ints[from + 1];
        hi = nums->ints[from] < nums->ints[from + 1] ? nums->ints[from + 1] : nums->ints[from];
    }
    if (nums->have_pair + nums->have_vxid + (nums->nkeys > 0) > 1)
        return 1;
    if (nums->have_pair && n == 2)
        snprintf(text, sizeof(text), "tuple (%u,%u) of relation %u of database %u", nums->pair[0],
                 nums->pair[1], hi, lo);
    else if (nums->have_vxid && n == 0)
        snprintf(text, sizeof(text), "virtual transaction %u/%u", nums->vxid[0], nums->vxid[1]);
    else if (nums->nkeys == 4 && n == 0)
        snprintf(text, sizeof(text), "advisory lock [%u,%u,%u,%u]", nums->keys[0], nums->keys[1],
                 nums->keys[2], nums->keys[3]);
    else if (nums->nkeys == 3 && n == 0)
        snprintf(text, sizeof(text), "user lock [%u,%u,%u]", nums->keys[0], nums->keys[1],
                 nums->keys[2]);
    else if (nums->have_pair || nums->have_vxid || nums->nkeys)
        return 1;
    else if (n == 1)
        snprintf(text, sizeof(text), "transaction %u", nums->ints[from]);
    else if (n == 2)
        snprintf(text, sizeof(text), "relation %u of database %u", hi, lo);
    else
        return 1;
    return ls_parse_lock_target(t, text, strlen(text)) == 0 ? 0 : 1;
}

/*
 * 1 when the last integer of a wait message is its errposition (" at
 * character 22", " bei Zeichen 22", " 第 22 个字符处"), which every catalog
 * puts after the message proper: it stands after both the mode name and
 * the milliseconds, and is a position in the record's statement.
 */
static int errposition(const struct_nums *nums, const char *mode_at, const ls_record *rec)
{
    const char *at;

    if (nums->nints < 2 || !nums->have_ms || !rec->statement)
        return 0;
    at = nums->int_at[nums->nints - 1];
    return at > mode_at && at > nums->ms_at &&
           nums->ints[nums->nints - 1] <= strnlen(rec->statement, MSG_HEAD_MAX);
}

/* PostgreSQL 18's lock-failure DETAIL: "Process holding the lock: N, Wait queue: ..." */
static int failure_detail(const char *detail)
{
    cur c;
    int pid;

    if (!detail)
        return 0;
    c = cur_of(detail, head_len(detail));
    if (LIT(&c, "Process holding the lock: ") && LIT(&c, "Processes holding the lock: "))
        return 0;
    while (!num_pid(&c, &pid) && !LIT(&c, ", "))
        ;
    return HAS(&c, "Wait queue: ");
}

/*
 * A lock-wait message in words lockspan has no table for: one lock mode
 * name, the waiting pid first, the target's numbers, and (but for 18's
 * lock failures) one "%ld.%03d" figure; nothing a statement would hold
 * (a second line, two spaces in a row). The phase is what the structure
 * tells: a DETAIL naming holders is a wait still going on (the one of a
 * deadlock's victim too), none is "acquired", 18's comma DETAIL a failure.
 * Returns 1 when *w was filled, 0 when not lock-like, -1 when lock-like
 * (a mode name and a pid) but not readable.
 */
static int struct_lock_wait(ls_lock_wait *w, const ls_record *rec)
{
    const char *msg = rec->message, *e, *mode_at;
    struct_nums nums;
    size_t n;
    int mode;

    n = strnlen(msg, STRUCT_LINE_MAX + 1);
    if (n > STRUCT_LINE_MAX || memchr(msg, '\n', n))
        return 0;
    e = msg + n;
    if ((mode = find_lock_mode(msg, e, &mode_at)) < 0)
        return 0;
    {
        /* "  " or ": " before the mode name: a statement or duration line's
         * head ("执行时间: 0.512 ms 语句: ..."), the name in its SQL. */
        cur c = cur_of(msg, n);
        const char *at;
        if (!find(&c, "  ", 2, &at) || (!find(&c, ": ", 2, &at) && at < mode_at))
            return 0;
    }
    if (struct_scan(msg, e, &nums) || nums.nints < 1)
        return nums.nints ? -1 : 0;
    memset(w, 0, sizeof(*w));
    w->pid = (int)nums.ints[0];
    if (w->pid <= 0 ||
        struct_target(&w->target, &nums, 1, nums.nints - errposition(&nums, mode_at, rec)))
        return -1;
    COPY_FIXED(w->mode, lock_modes[mode], strlen(lock_modes[mode]));
    if (failure_detail(rec->detail) && !nums.have_ms) {
        w->phase = LS_LOCK_FAILED;
        w->waited_ms = 0;
    } else if (nums.have_ms) {
        w->phase = rec->detail ? LS_LOCK_WAITING : LS_LOCK_ACQUIRED;
        w->waited_ms = nums.ms;
    } else {
        return -1;
    }
    wait_detail(w, rec->detail);
    if (w->phase == LS_LOCK_WAITING && w->nholders == 0)
        return -1;
    wait_context(w, rec->context);
    return 1;
}

/*
 * One deadlock DETAIL line read by structure: "<waiter> ... MODE ...
 * <target numbers> ... <blocker>" with or without a final period (it 13.x
 * writes none). Returns 0 and fills *ed, or 1.
 */
static int struct_edge(ls_deadlock_edge *ed, const char *p, const char *e)
{
    struct_nums nums;
    const char *mode_at;
    int mode;

    if ((size_t)(e - p) > STRUCT_LINE_MAX || (mode = find_lock_mode(p, e, &mode_at)) < 0 ||
        struct_scan(p, e, &nums) || nums.have_ms || nums.nints < 3)
        return 1;
    memset(ed, 0, sizeof(*ed));
    ed->waiter_pid = (int)nums.ints[0];
    ed->blocker_pid = (int)nums.ints[nums.nints - 1];
    if (ed->waiter_pid <= 0 || ed->blocker_pid <= 0 ||
        struct_target(&ed->target, &nums, 1, nums.nints - 1))
        return 1;
    COPY_FIXED(ed->mode, lock_modes[mode], strlen(lock_modes[mode]));
    return 0;
}

/* "<word(s)> N: query": a deadlock DETAIL's process line, any language.
 * Sets *pid and *query (after ": "). */
static int struct_proc_line(const char *p, const char *e, int *pid, const char **query)
{
    cur c = cur_of(p, (size_t)(e - p));
    const char *q;

    for (q = c.p; q < c.e && !is_digit(*q) && *q != ':' && q - c.p < 64; q++)
        ;
    if (q == c.e || !is_digit(*q) || (q > c.p && (is_ascii_alpha(q[-1]) || q[-1] == '_')))
        return 1;
    c.p = q;
    if (num_pid(&c, pid) || LIT(&c, ": "))
        return 1;
    *query = c.p;
    return 0;
}

/*
 * A deadlock DETAIL read by structure into d: edge lines, then one
 * "Process N: query" line per process (whatever the word for "Process").
 * Returns the number of edges, or LS_ENOMEM.
 */
static int struct_deadlock(ls_classifier *cl, ls_deadlock *d, const char *detail)
{
    const char *p, *e, *le, *qstart = NULL;
    int qpid = 0;

    d->nedges = 0;
    d->nprocs = 0;
    if (!detail)
        return 0;
    e = detail + strlen(detail);
    for (p = detail;; p = le + 1) {
        const char *lp, *query;
        int pid;

        le = line_end(p, e);
        lp = p < le && *p == '\t' ? p + 1 : p;
        if (d->nprocs == 0 && !qstart && d->nedges < LS_MAX_EDGES &&
            !struct_edge(&d->edges[d->nedges], lp, le)) {
            d->nedges++;
        } else if (d->nedges > 0 && !struct_proc_line(lp, le, &pid, &query)) {
            if (qstart && deadlock_add_proc(cl, d, qpid, qstart, p - 1) != 0)
                return LS_ENOMEM;
            qpid = pid;
            qstart = query;
        } else if (!qstart) {
            break; /* neither an edge nor a process line: not this DETAIL's form */
        }
        if (le == e)
            break;
    }
    if (qstart && deadlock_add_proc(cl, d, qpid, qstart, e) != 0)
        return LS_ENOMEM;
    return d->nedges;
}

/* The error classes SQLSTATE alone gives (errcodes.txt). */
static const struct {
    const char *sqlstate;
    ls_error_class cls;
} sqlstate_classes[] = {
    {"40P01", LS_ERRC_DEADLOCK},
    {"40001", LS_ERRC_SERIALIZATION},
    {"55P03", LS_ERRC_LOCK_TIMEOUT}, /* or LS_ERRC_LOCK_NOWAIT: see sqlstate_class() */
    /* statement timeout and cancel request share 57014: a message no table
     * knows is counted as a statement timeout, the commoner of the two
     * under lock contention. */
    {"57014", LS_ERRC_STATEMENT_TIMEOUT},
    {"25P03", LS_ERRC_IDLE_TX_TIMEOUT},
};

/* Quotes PostgreSQL's catalogs put around a relation name ("%s", «%s», „%s“, 「%s」). */
static int has_quote(const char *msg)
{
    static const char *const quotes[] = {"\"", "\xc2\xab", "\xe2\x80\x9e", "\xe2\x80\x9c",
                                         "\xe3\x80\x8c"};
    size_t i;
    for (i = 0; i < sizeof(quotes) / sizeof(quotes[0]); i++)
        if (strstr(msg, quotes[i]))
            return 1;
    return 0;
}

/*
 * The class of an error by its SQLSTATE, LS_ERRC_OTHER when it is none of
 * sqlstate_classes. 55P03 is a lock timeout, or a NOWAIT failure when the
 * message names a relation (in quotes, whatever the language).
 */
static ls_error_class sqlstate_class(const ls_record *rec)
{
    size_t i;
    for (i = 0; i < sizeof(sqlstate_classes) / sizeof(sqlstate_classes[0]); i++) {
        if (strcmp(rec->sqlstate, sqlstate_classes[i].sqlstate) != 0)
            continue;
        if (sqlstate_classes[i].cls == LS_ERRC_LOCK_TIMEOUT && rec->message &&
            has_quote(rec->message))
            return LS_ERRC_LOCK_NOWAIT;
        return sqlstate_classes[i].cls;
    }
    return LS_ERRC_OTHER;
}

/*
 * A severity that is known and not LOG: an English word, or a translated
 * one the table knows ("ОШИБКА"). An unknown word (a catalog lockspan has
 * no table for) may be LOG.
 */
static int known_non_log(const char *sev)
{
    static const char *const words[] = {"ERROR",  "FATAL", "PANIC", "WARNING",
                                        "NOTICE", "INFO",  "DEBUG"};
    const ls_i18n_sev *t;
    size_t i;

    if (!sev)
        return 0;
    if ((t = ls_i18n_severity_word(sev, strlen(sev))) != NULL)
        sev = t->english;
    for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (strncmp(sev, words[i], strlen(words[i])) == 0)
            return 1;
    return 0;
}

static void keep_struct_sample(ls_classifier *cl, const ls_record *rec, int read)
{
    if (read)
        cl->st.lock_structural++;
    else
        cl->st.lock_unread++;
    if (!cl->st.lock_sample[0] && rec->message) {
        snprintf(cl->st.lock_sample, sizeof(cl->st.lock_sample), "%s", rec->message);
        cl->st.lock_sample_line = rec->line;
        cl->st.lock_sample_lang = cl->lang >= 0 ? ls_i18n_langs[cl->lang].code : NULL;
    }
}

/*
 * The structural fallbacks for a record nothing else recognised (ev is
 * LS_EV_OTHER or an LS_ERRC_OTHER error): by SQLSTATE, then a deadlock
 * DETAIL, then a lock-wait message. Returns 0 or LS_ENOMEM.
 */
static int classify_structure(ls_classifier *cl, const ls_record *rec, ls_event *ev)
{
    ls_error_class cls = sqlstate_class(rec);
    int rc;

    if (cls == LS_ERRC_DEADLOCK || (cls == LS_ERRC_OTHER && !rec->sqlstate[0] && rec->detail &&
                                    !(rec->severity && strcmp(rec->severity, "LOG") == 0))) {
        /* 40P01, or (no SQLSTATE in this log) a DETAIL of two or more edges */
        ls_deadlock d;
        if ((rc = struct_deadlock(cl, &d, rec->detail)) < 0)
            return rc;
        if (cls == LS_ERRC_DEADLOCK || rc >= 2) {
            ev->kind = LS_EV_DEADLOCK;
            ev->rec = rec;
            ev->u.deadlock = d;
            cl->st.structural++;
            return 0;
        }
    }
    if (cls != LS_ERRC_OTHER) {
        ev->kind = LS_EV_ERROR;
        ev->rec = rec;
        ev->u.error.cls = cls;
        COPY_FIXED(ev->u.error.sqlstate, rec->sqlstate, strlen(rec->sqlstate));
        cl->st.structural++;
        return 0;
    }
    if (rec->message && !known_non_log(rec->severity) &&
        (!rec->sqlstate[0] || strcmp(rec->sqlstate, "00000") == 0)) {
        ls_lock_wait w;
        int got = struct_lock_wait(&w, rec);
        if (got == 1) {
            ev->kind = LS_EV_LOCK_WAIT;
            ev->rec = rec;
            ev->u.lock = w;
            cl->st.structural++;
        }
        if (got != 0)
            keep_struct_sample(cl, rec, got == 1);
    }
    return 0;
}

/* A deadlock whose DETAIL no table could read: its edges by structure. */
static int deadlock_structure(ls_classifier *cl, const ls_record *rec, ls_event *ev)
{
    ls_deadlock d;
    int rc;

    if (ev->kind != LS_EV_DEADLOCK || ev->u.deadlock.nedges > 0 || !rec->detail)
        return 0;
    if ((rc = struct_deadlock(cl, &d, rec->detail)) <= 0)
        return rc;
    ev->u.deadlock = d;
    cl->st.structural++;
    return 0;
}

/*
 * errposition: a message with a cursor position ends in " at character N",
 * which catalogs translate too (" bei Zeichen 15", " 第 22 个字符处", and
 * with no space before it, "(22文字目)" in ja 17.12): classify_en() reads
 * a lock wait past the English one. For a lock wait (a message naming a
 * lock mode) that no pattern read, try the line without its last words,
 * cut at a space or an opening parenthesis no more than ERRPOS_MAX bytes
 * from the end with a digit after it, until it reads as a lock wait (into
 * *ev, with cl->en.message set). Returns 1 then, 0, or LS_ENOMEM.
 */
#define ERRPOS_MAX 48

static int errposition_en(ls_classifier *cl, const char *msg, int *lang, ls_event *ev)
{
    size_t n = strnlen(msg, MSG_HEAD_MAX), cut, digit = 0;
    const char *mode_at, *was = cl->en.message;
    ls_event keep;
    int rc;

    if (n == 0 || n == MSG_HEAD_MAX || memchr(msg, '\n', n) ||
        find_lock_mode(msg, msg + n, &mode_at) < 0)
        return 0;
    if (buf_fit(&cl->cut, 2 * n + 4096))
        return LS_ENOMEM;
    keep = *ev;
    for (cut = n - 1; cut > 0 && n - cut <= ERRPOS_MAX; cut--) {
        int nr = 0, l;
        if (is_digit(msg[cut]))
            digit = 1;
        if ((msg[cut] != ' ' && msg[cut] != '(') || !digit || msg + cut < mode_at)
            continue;
        l = ls_i18n_translate(msg, cut, *lang >= 0 ? *lang : cl->lang, cl->cut.p, cl->cut.cap, &nr);
        if (l < 0)
            continue;
        cl->en.message = cl->cut.p;
        if ((rc = classify_en(cl, &cl->en, ev)) != 0)
            return rc;
        if (ev->kind == LS_EV_LOCK_WAIT) {
            *lang = l;
            return 1;
        }
    }
    cl->en.message = was;
    *ev = keep;
    return 0;
}

/* Nothing, or only "an error": a translated message may say more. */
static int unrecognised(const ls_event *ev)
{
    return ev->kind == LS_EV_OTHER || (ev->kind == LS_EV_ERROR && ev->u.error.cls == LS_ERRC_OTHER);
}

/*
 * An English message whose DETAIL or CONTEXT the server translated anyway
 * (the Georgian catalog translates those, not the wait message itself).
 */
static int half_read(const ls_event *ev, const ls_record *rec)
{
    switch (ev->kind) {
    case LS_EV_LOCK_WAIT:
        return rec->context && !ev->u.lock.ctx_action[0] && has_high_byte(rec->context, 256);
    case LS_EV_DEADLOCK:
        return rec->detail && ev->u.deadlock.nedges == 0;
    case LS_EV_STATEMENT:
    case LS_EV_DURATION:
        return rec->detail && !ev->u.stmt.params && has_high_byte(rec->detail, 64);
    default:
        return 0;
    }
}

static void keep_sample(ls_classifier *cl, const ls_record *rec, int lang)
{
    cl->st.unclassified++;
    if (!cl->st.sample[0]) {
        snprintf(cl->st.sample, sizeof(cl->st.sample), "%s", rec->message);
        cl->st.sample_line = rec->line;
        cl->st.sample_lang = lang >= 0 ? ls_i18n_langs[lang].code : "?";
    }
}

/* The message tables: English, then the translated patterns. */
static int classify_table(ls_classifier *cl, const ls_record *rec, ls_event *ev)
{
    const ls_i18n_sev *sev = NULL;
    const char *msg = rec->message;
    int rc, lang = -1, near = 0, translated = 0;

    cl->seen++;
    if (rec->severity && (unsigned char)rec->severity[0] >= 'A' &&
        (unsigned char)rec->severity[0] <= 'Z' && !has_high_byte(rec->severity, 32)) {
        if ((rc = classify_en(cl, rec, ev)) != 0 || (!unrecognised(ev) && !half_read(ev, rec)) ||
            cl->understood)
            return rc;
        /* Nothing recognised: a translated word ("FEHLER") or message? */
        sev = ls_i18n_severity_word(rec->severity, strlen(rec->severity));
        if (!sev && cl->lang < 0 && (cl->forced || cl->seen > DETECT_RECORDS) &&
            !(msg && has_high_byte(msg, 64)))
            return 0;
    } else if (rec->severity) {
        sev = ls_i18n_severity_word(rec->severity, strlen(rec->severity));
    } else if ((rc = classify_en(cl, rec, ev)) != 0 || !unrecognised(ev) || cl->understood) {
        return rc;
    }

    cl->en = *rec;
    if (sev) {
        cl->en.severity = sev->english;
        lang = sev->lang;
    }
    if (msg && msg[0]) {
        /* The message head only: a statement's text is copied, never matched. */
        if ((rc = field_en(cl, &cl->msg, msg, &cl->en.message, &lang, &near)) != 0)
            return rc;
        translated |= cl->en.message != msg;
    }
    if (rec->detail && (rc = field_en(cl, &cl->detail, rec->detail, &cl->en.detail, &lang,
                                      &near)) != 0)
        return rc;
    if (rec->context && (rc = field_en(cl, &cl->context, rec->context, &cl->en.context, &lang,
                                       &near)) != 0)
        return rc;
    if (translated || sev)
        note_lang(cl, lang);
    if (cl->forced && (translated || sev) && lang >= 0 && lang != cl->lang &&
        !cl->st.other_lang++)
        cl->st.other_lang_code = ls_i18n_langs[lang].code;
    if ((rc = classify_en(cl, &cl->en, ev)) != 0)
        return rc;
    /* Not matched, or matched with the errposition taken into the last
     * capture (a lock mode "AccessShareLock 第 22 个字符处"). */
    if (msg && unrecognised(ev) && (rc = errposition_en(cl, msg, &lang, ev)) != 0) {
        if (rc < 0)
            return rc;
        translated = 1;
    }
    if (unrecognised(ev) && !translated && near)
        keep_sample(cl, rec, lang >= 0 ? lang : cl->lang);
    return 0;
}

int ls_classify(ls_classifier *cl, const ls_record *rec, ls_event *ev)
{
    int rc;

    cl->st.structural += rec->structural_lines;
    if ((rc = classify_table(cl, rec, ev)) != 0 || cl->understood)
        return rc;
    if (cl->st.lock_sample[0] && !cl->st.lock_sample_lang && cl->lang >= 0)
        cl->st.lock_sample_lang = ls_i18n_langs[cl->lang].code;
    if (unrecognised(ev))
        return classify_structure(cl, rec, ev);
    return deadlock_structure(cl, rec, ev);
}
