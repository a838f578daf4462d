/*
 * handoff.c — events from the parsing threads to the store, in batches of
 * copied memory through one bounded queue (see handoff.h).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "handoff.h"
#include "ls_common.h"

#define BATCH_BYTES (1u << 18)
#define HANDOFF_QUEUE 4  /* full batches queued before somebody must write */
#define FREE_BATCHES (2 * HANDOFF_QUEUE + 2) /* empty batches kept for reuse: as many
                                              as can be queued, so that a batch is
                                              mapped and faulted in once */
#define HANDOFF_MAX_PRODUCERS 16
#define ALIGN(n) (((n) + 15u) & ~(size_t)15u)

struct ls_batch {
    ls_batch *next;
    size_t cap, used;
    size_t prefetched;     /* bytes asked into the producer's cache (prefetch_ahead) */
    int src;               /* the producer that filled it */
    unsigned char *data;
};

/*
 * The queue every producer of one ingest pushes to. Batches are written by
 * whichever thread takes the writer's turn (one at a time, in queue order):
 * a thread with nothing to parse (ls_handoff_drain), or a producer that
 * finds the queue full and nobody writing. With one thread in all, parsing
 * and writing take turns on it; with a parsing thread and a thread of
 * nothing else, that one writes as batches come; with every thread
 * parsing, the writing is shared among them.
 */
typedef struct handoff_queue {
    pthread_mutex_t mu;
    pthread_cond_t can_push, can_pop;
    ls_batch *head, *tail; /* full batches, oldest first */
    int queued;
    ls_batch *spare;       /* empty batches for reuse */
    int nspare;
    int producers, closed; /* producers made, and closed so far */
    int writing;           /* a thread has the writer's turn */
    int draining;          /* a thread waits in ls_handoff_drain() to write */
    int direct;            /* one thread parses and writes: events are not
                              copied (ls_handoff_direct) */
    int last_writer;       /* the producer that took the last turn, or -1 */
    /* Each producer's share of its input read so far, as of its latest
     * batch, and whether it is still parsing: the one furthest ahead
     * writes, so that all finish together. */
    double done[HANDOFF_MAX_PRODUCERS];
    unsigned char parsing[HANDOFF_MAX_PRODUCERS];
    int failed, producer_rc, write_rc;
    int timed;             /* ls_handoff_time_writes() */
    double write_cpu;      /* CPU seconds of the batches' writes, when timed */
    uint64_t batches;      /* batches written, when timed */
    ls_handoff_writer write;
    void *write_ctx;
} handoff_queue;

struct ls_handoff {
    handoff_queue *q;      /* shared; owned by the first producer */
    int src;               /* 0 for the first producer, then 1, 2, ... */
    ls_batch *cur;         /* the batch this producer fills */
    uint64_t planned;      /* input bytes it is to read (ls_handoff_plan), or 0 */
    uint64_t read;         /* input bytes it has read (ls_handoff_read) */
};

/* Record fields that hold strings, copied with the record. Not `file`,
 * the input's path: the item says which input by its ordinal, and the
 * path would be a tenth of the bytes handed over. */
#define RECORD_STRINGS(X) \
    X(message) X(detail) X(session_id) X(user) X(database) X(application) X(remote) \
    X(backend_type) X(command_tag) X(vxid) X(severity) X(hint) X(query) X(context) \
    X(statement) X(location)
#define STRING_OFFSET(name) offsetof(ls_record, name),
static const size_t record_strings[] = {RECORD_STRINGS(STRING_OFFSET)};
#define NREC_STRINGS (sizeof(record_strings) / sizeof(record_strings[0]))

#define FIELD(base, off) ((const char **)((char *)(base) + (off)))

/*
 * A record as it is handed over, before its event: its scalars, and its
 * strings as 1 + their offset in the strings after the event (0: NULL):
 * 120 bytes where an ls_record has 208, of which 17 pointers of 8 bytes,
 * since every byte handed over is written on one core and read on
 * another. The writer unpacks it into an ls_record of its own
 * (ls_item_event). Every field of ls_record but `file` (see
 * record_strings) has its place here.
 */
#define RECORD_SCALARS(X) \
    X(uint64_t, line) X(ls_ts, ts) X(ls_ts, session_start) X(int64_t, session_line) \
    X(int, pid) X(uint32_t, xid)
#define DECLARE(type, name) type name;
#define PACK(type, name) pk->name = r->name;
#define UNPACK(type, name) rec->name = pk->name;

typedef struct packed_record {
    RECORD_SCALARS(DECLARE)
    uint32_t strings_len; /* a record is at most RECORD_MAX (32 MiB) */
    uint32_t str[NREC_STRINGS];
    char sqlstate[6];
} packed_record;

/* Bytes of an ls_event that hold its kind's payload: an event is copied
 * only that far, since the union is sized by its largest member (a
 * deadlock), a hundred times a statement's size. */
static size_t event_size(ls_event_kind k)
{
    size_t head = offsetof(ls_event, u);
    switch (k) {
    case LS_EV_LOCK_WAIT: return head + sizeof(ls_lock_wait);
    case LS_EV_DEADLOCK: return head + sizeof(ls_deadlock);
    case LS_EV_ERROR: return head + sizeof(ls_error_ev);
    case LS_EV_STATEMENT:
    case LS_EV_DURATION: return head + sizeof(ls_statement_ev);
    case LS_EV_CONNECT:
    case LS_EV_DISCONNECT: return head + sizeof(ls_conn_ev);
    case LS_EV_SERVER: return head + sizeof(ls_server_ev);
    case LS_EV_OTHER: break;
    }
    return head;
}

/* The string pointers an event holds besides its record's; returns count. */
static int event_strings(ls_event *ev, const char ***out)
{
    int n = 0, i;
    switch (ev->kind) {
    case LS_EV_STATEMENT:
    case LS_EV_DURATION:
        out[n++] = &ev->u.stmt.name;
        out[n++] = &ev->u.stmt.text;
        out[n++] = &ev->u.stmt.params;
        break;
    case LS_EV_CONNECT:
    case LS_EV_DISCONNECT:
        out[n++] = &ev->u.conn.host;
        out[n++] = &ev->u.conn.user;
        out[n++] = &ev->u.conn.database;
        out[n++] = &ev->u.conn.application;
        break;
    case LS_EV_DEADLOCK:
        for (i = 0; i < ev->u.deadlock.nprocs && i < LS_MAX_EDGES; i++)
            out[n++] = &ev->u.deadlock.procs[i].query;
        break;
    default: break;
    }
    return n;
}

int ls_handoff_new(ls_handoff **out)
{
    ls_handoff *h;
    handoff_queue *q;
    *out = NULL;
    h = ls_calloc(1, sizeof(*h));
    q = ls_calloc(1, sizeof(*q));
    if (!h || !q) {
        free(h);
        free(q);
        return LS_ENOMEM;
    }
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->can_push, NULL);
    pthread_cond_init(&q->can_pop, NULL);
    q->producers = 1;
    q->parsing[0] = 1;
    q->last_writer = -1;
    h->q = q;
    *out = h;
    return 0;
}

int ls_handoff_add_producer(ls_handoff *first, ls_handoff **out)
{
    ls_handoff *h = ls_calloc(1, sizeof(*h));
    *out = NULL;
    if (!h)
        return LS_ENOMEM;
    h->q = first->q;
    pthread_mutex_lock(&h->q->mu);
    if (h->q->producers >= HANDOFF_MAX_PRODUCERS) {
        pthread_mutex_unlock(&h->q->mu);
        free(h);
        return LS_ERR;
    }
    h->src = h->q->producers++;
    h->q->parsing[h->src] = 1;
    pthread_mutex_unlock(&h->q->mu);
    *out = h;
    return 0;
}

int ls_handoff_src(const ls_batch *b)
{
    return b->src;
}

static void batch_list_free(ls_batch *b)
{
    while (b) {
        ls_batch *next = b->next;
        free(b);
        b = next;
    }
}

void ls_handoff_free(ls_handoff *h)
{
    if (!h)
        return;
    free(h->cur);
    if (h->src == 0) {
        handoff_queue *q = h->q;
        batch_list_free(q->head);
        batch_list_free(q->spare);
        pthread_mutex_destroy(&q->mu);
        pthread_cond_destroy(&q->can_push);
        pthread_cond_destroy(&q->can_pop);
        free(q);
    }
    free(h);
}

static ls_batch *batch_new(size_t cap)
{
    ls_batch *b = ls_malloc(ALIGN(sizeof(ls_batch)) + cap);
    if (!b)
        return NULL;
    b->next = NULL;
    b->cap = cap;
    b->used = 0;
    b->data = (unsigned char *)b + ALIGN(sizeof(ls_batch));
    return b;
}

/* Keep a written batch for reuse, or free it. Called with q->mu held. */
static void recycle(handoff_queue *q, ls_batch *b)
{
    if (b->cap == BATCH_BYTES && q->nspare < FREE_BATCHES) {
        b->next = q->spare;
        q->spare = b;
        q->nspare++;
    } else {
        free(b);
    }
}

/*
 * The writer's turn: write the queued batches, oldest first, until none is
 * left. Called with q->mu held and nobody writing; the lock is let go
 * while a batch is written, so that producers go on pushing. After a
 * failure batches are dropped unwritten.
 */
static void write_turn(handoff_queue *q)
{
    ls_batch *b;
    q->writing = 1;
    while ((b = q->head) != NULL) {
        q->head = b->next;
        if (!q->head)
            q->tail = NULL;
        q->queued--;
        pthread_cond_broadcast(&q->can_push); /* room for a producer waiting */
        if (!q->failed) {
            struct timespec c0, c1;
            int rc;
            pthread_mutex_unlock(&q->mu);
            if (q->timed)
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
            rc = q->write(q->write_ctx, b);
            if (q->timed)
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
            pthread_mutex_lock(&q->mu);
            if (q->timed) {
                q->write_cpu += ls_secs_between(&c0, &c1);
                q->batches++;
            }
            if (rc && !q->failed)
                q->failed = q->write_rc = rc;
        }
        recycle(q, b);
    }
    q->writing = 0;
    pthread_cond_broadcast(&q->can_push);
    pthread_cond_broadcast(&q->can_pop);
}

/*
 * Whether producer `src` is the one to write: the one furthest through its
 * input among those still parsing. The producer that wrote last keeps the
 * turn until another is AHEAD_MARGIN further than it: writing moves
 * SQLite's working set (page cache, cursors) to the writer's core, and two
 * producers neck and neck would pass it to and fro.
 */
#define AHEAD_MARGIN 0.02
static int ahead(const handoff_queue *q, int src)
{
    double margin = src == q->last_writer ? AHEAD_MARGIN : 0.0;
    int i;
    for (i = 0; i < q->producers; i++)
        if (i != src && q->parsing[i] && q->done[i] > q->done[src] + margin)
            return 0;
    return 1;
}

/* Queue the current batch. When that fills the queue and nobody is
 * writing, the producer furthest ahead writes it; when somebody is writing
 * and the queue is twice full, the producer waits for room. */
static int push_current(ls_handoff *h)
{
    handoff_queue *q = h->q;
    ls_batch *b = h->cur;
    int rc;
    if (!b || b->used == 0)
        return 0;
    h->cur = NULL;
    b->src = h->src;
    b->next = NULL;
    pthread_mutex_lock(&q->mu);
    while (q->queued >= 2 * HANDOFF_QUEUE && q->writing && !q->failed)
        pthread_cond_wait(&q->can_push, &q->mu);
    rc = q->failed;
    if (!rc) {
        if (q->tail)
            q->tail->next = b;
        else
            q->head = b;
        q->tail = b;
        q->queued++;
        b = NULL;
        if (h->planned)
            q->done[h->src] = (double)h->read / (double)h->planned;
        pthread_cond_signal(&q->can_pop);
        /* A full queue is written by the producer furthest ahead; the
         * others go on parsing until it is twice full. A producer alone,
         * with no thread draining, writes each batch as it fills (-j 1):
         * nothing to wait for, and the batch is still in its cache. */
        if (q->queued >= (q->producers > 1 || q->draining ? HANDOFF_QUEUE : 1) &&
            !q->writing && (q->queued >= 2 * HANDOFF_QUEUE || ahead(q, h->src))) {
            q->last_writer = h->src;
            write_turn(q);
        }
        rc = q->failed;
    }
    pthread_mutex_unlock(&q->mu);
    free(b); /* not queued: the ingest has failed */
    return rc;
}

/*
 * A batch is reused: the thread that wrote it to the store last read its
 * bytes, so each line the producer now writes is first taken from the
 * other core's cache. Asked for PREFETCH_AHEAD bytes ahead of the items,
 * the lines are on their way while the items before them are filled;
 * asked for at the first write, the producer waited for each.
 */
#define PREFETCH_AHEAD 8192
#if defined(__x86_64__) && defined(__GNUC__)
/* PREFETCHW: the line in an owned state (a plain prefetch brings it shared,
 * and the write still waits); a no-op on the x86-64 CPUs without it */
#define PREFETCH_FOR_WRITE(p) __asm__ volatile("prefetchw %0" : : "m"(*(const char *)(p)))
#else
#define PREFETCH_FOR_WRITE(p) __builtin_prefetch((p), 1, 3)
#endif
static void prefetch_ahead(ls_batch *b)
{
    size_t to = b->used + PREFETCH_AHEAD < b->cap ? b->used + PREFETCH_AHEAD : b->cap;
    if (b->prefetched < b->used)
        b->prefetched = b->used;
    for (; b->prefetched < to; b->prefetched += 64)
        PREFETCH_FOR_WRITE(b->data + b->prefetched);
}

/* `n` bytes for one item, contiguous in one batch. */
static void *reserve(ls_handoff *h, size_t n, int *rc)
{
    void *p;
    n = ALIGN(n);
    if (!h->cur || h->cur->used + n > h->cur->cap) {
        if ((*rc = push_current(h)) != 0)
            return NULL;
        if (n <= BATCH_BYTES) {
            handoff_queue *q = h->q;
            pthread_mutex_lock(&q->mu);
            h->cur = q->spare;
            if (h->cur) {
                q->spare = h->cur->next;
                q->nspare--;
            }
            pthread_mutex_unlock(&q->mu);
        }
        if (!h->cur && (h->cur = batch_new(n > BATCH_BYTES ? n : BATCH_BYTES)) == NULL) {
            *rc = LS_ENOMEM;
            return NULL;
        }
        h->cur->used = 0;
        h->cur->prefetched = 0;
        h->cur->next = NULL;
    }
    p = h->cur->data + h->cur->used;
    h->cur->used += n;
    prefetch_ahead(h->cur);
    *rc = 0;
    return p;
}

static char *put(char **tail, const char *s, size_t n)
{
    char *d = *tail;
    memcpy(d, s, n);
    *tail += n;
    return d;
}

/*
 * One thread alone (ls_handoff_direct): the event is written at once, from
 * the parser's memory, which stays valid until the writer returns; the
 * store copies what it keeps, and hashes a statement's text itself (no
 * text_hash: on this one thread there is no parsing thread to do it
 * ahead). Items batched before it (a file's beginning, bad lines) are
 * written first, so the order is the one handed over.
 */
static int write_direct(ls_handoff *h, uint32_t file, const ls_event *ev)
{
    handoff_queue *q = h->q;
    ls_item it;
    ls_batch b;
    int rc;

    if ((rc = push_current(h)) != 0 || (rc = q->failed) != 0)
        return rc;
    memset(&it, 0, sizeof(it));
    it.type = LS_ITEM_EVENT;
    it.size = (uint32_t)sizeof(it);
    it.file = file;
    it.ev = (ls_event *)ev;
    b.next = NULL;
    b.cap = b.used = it.size;
    b.src = h->src;
    b.data = (unsigned char *)&it;
    if ((rc = q->write(q->write_ctx, &b)) != 0 && !q->failed)
        q->failed = q->write_rc = rc;
    return rc;
}

/* Where an event string lies: in the record's one buffer of strings, in
 * the record string apart[n] of ls_handoff_event, or in neither. */
#define OWNER_BLOCK -2
#define OWNER_NONE -1

int ls_handoff_event(ls_handoff *h, uint32_t file, const ls_event *ev)
{
    const ls_record *r = ev->rec;
    /* The record's buffer of strings, when its parser has one: copied at
     * once, and only the strings outside it one by one (a field the
     * classifier put in English): "apart". The copy's strings are the
     * buffer, then those, then the event's own (a statement's name). */
    const char *blk = r->strings_len ? r->strings : NULL;
    size_t blen = blk ? r->strings_len : 0;
    size_t evsize = event_size(ev->kind), need, strs_len = blen, i;
    uint32_t str[NREC_STRINGS];            /* packed_record.str */
    size_t apart[NREC_STRINGS], alen[NREC_STRINGS];
    const char **slots[LS_MAX_EDGES + 4];
    size_t extra[LS_MAX_EDGES + 4];
    int owner[LS_MAX_EDGES + 4];
    int napart = 0, nslots, j, k, rc;
    size_t text_len = 0;
    uint64_t text_hash = 0; /* ls_quick_hash() is never 0 */
    ls_item *it;
    packed_record *pk;
    ls_event *copy;
    char *strs, *tail;

#define IN_BLK(s) ((uintptr_t)(s) - (uintptr_t)blk < blen)
    if (h->q->direct)
        return write_direct(h, file, ev);
    for (i = 0; i < NREC_STRINGS; i++) {
        const char *s = *FIELD(r, record_strings[i]);
        if (!s) {
            str[i] = 0;
        } else if (IN_BLK(s)) {
            str[i] = (uint32_t)(s - blk) + 1;
        } else {
            apart[napart] = i;
            alen[napart++] = strlen(s) + 1;
            str[i] = (uint32_t)strs_len + 1;
            strs_len += alen[napart - 1];
        }
    }
    /* Event strings that point into neither are copied after them. */
    nslots = event_strings((ls_event *)ev, slots);
    for (k = 0; k < nslots; k++) {
        const char *p = *slots[k];
        extra[k] = 0;
        owner[k] = OWNER_NONE;
        if (!p)
            continue;
        /* A statement's text is measured and hashed here, on the parsing
         * thread, for the store thread (ls_statement_ev.text_hash). */
        if (slots[k] == &ev->u.stmt.text &&
            (ev->kind == LS_EV_STATEMENT || ev->kind == LS_EV_DURATION)) {
            text_len = strlen(p);
            text_hash = ls_quick_hash(p, text_len);
        }
        if (IN_BLK(p)) {
            owner[k] = OWNER_BLOCK;
            continue;
        }
        for (j = 0; j < napart; j++) {
            const char *s = *FIELD(r, record_strings[apart[j]]);
            if (p >= s && p < s + alen[j])
                break;
        }
        if (j < napart) {
            owner[k] = j;
        } else {
            extra[k] = strlen(p) + 1;
            strs_len += extra[k];
        }
    }

    need = ALIGN(LS_ITEM_HEAD) + ALIGN(sizeof(packed_record)) + ALIGN(evsize) + strs_len;
    it = reserve(h, need, &rc);
    if (!it)
        return rc;
    pk = (packed_record *)((char *)it + ALIGN(LS_ITEM_HEAD));
    copy = (ls_event *)((char *)pk + ALIGN(sizeof(packed_record)));
    strs = tail = (char *)copy + ALIGN(evsize);
    memset(it, 0, LS_ITEM_HEAD);
    it->type = LS_ITEM_EVENT;
    it->size = (uint32_t)ALIGN(need);
    it->file = file;
    it->ev = copy;
    memcpy(copy, ev, evsize);
    copy->rec = NULL; /* packed: see ls_item_event */
    RECORD_SCALARS(PACK)
    memcpy(pk->sqlstate, r->sqlstate, sizeof(pk->sqlstate));
    pk->strings_len = (uint32_t)blen;
    memcpy(pk->str, str, sizeof(pk->str));
    if (blen)
        put(&tail, blk, blen);
    for (j = 0; j < napart; j++)
        put(&tail, *FIELD(r, record_strings[apart[j]]), alen[j]);
    /* Point the copy's event strings at the copied text. */
    nslots = event_strings(copy, slots);
    for (k = 0; k < nslots; k++) {
        const char *p = *slots[k];
        if (!p)
            continue;
        if (extra[k]) {
            *slots[k] = put(&tail, p, extra[k]);
        } else if (owner[k] == OWNER_BLOCK) {
            *slots[k] = strs + (p - blk);
        } else {
            size_t a = apart[owner[k]];
            *slots[k] = strs + str[a] - 1 + (p - *FIELD(r, record_strings[a]));
        }
    }
    if (text_hash) {
        copy->u.stmt.text_len = text_len;
        copy->u.stmt.text_hash = text_hash;
    }
    return 0;
#undef IN_BLK
}

/* The string fields of a span, copied with it. */
static const size_t span_strings[] = {
    offsetof(ls_span, file),          offsetof(ls_span, format),
    offsetof(ls_span, name),          offsetof(ls_span, service),
    offsetof(ls_span, db_system),     offsetof(ls_span, db_statement),
    offsetof(ls_span, db_name),       offsetof(ls_span, db_operation),
    offsetof(ls_span, code_function), offsetof(ls_span, code_namespace),
    offsetof(ls_span, code_filepath), offsetof(ls_span, http_route),
    offsetof(ls_span, http_method),   offsetof(ls_span, http_url),
    offsetof(ls_span, peer_service),  offsetof(ls_span, attributes),
};
#define NSPAN_STRINGS (sizeof(span_strings) / sizeof(span_strings[0]))

int ls_handoff_span(ls_handoff *h, uint32_t file, const ls_span *sp)
{
    size_t lens[NSPAN_STRINGS], need = ALIGN(LS_ITEM_HEAD) + ALIGN(sizeof(ls_span)), i;
    ls_item *it;
    ls_span *copy;
    char *tail;
    int rc;

    for (i = 0; i < NSPAN_STRINGS; i++) {
        const char *str = *FIELD(sp, span_strings[i]);
        lens[i] = str ? strlen(str) + 1 : 0;
        need += lens[i];
    }
    if (!(it = reserve(h, need, &rc)))
        return rc;
    copy = (ls_span *)((char *)it + ALIGN(LS_ITEM_HEAD));
    tail = (char *)copy + ALIGN(sizeof(ls_span));
    memset(it, 0, LS_ITEM_HEAD);
    it->type = LS_ITEM_SPAN;
    it->size = (uint32_t)ALIGN(need);
    it->file = file;
    it->span = copy;
    *copy = *sp;
    for (i = 0; i < NSPAN_STRINGS; i++)
        if (lens[i])
            *FIELD(copy, span_strings[i]) = put(&tail, *FIELD(sp, span_strings[i]), lens[i]);
    return 0;
}

static const size_t activity_strings[] = {
    offsetof(ls_activity, file),       offsetof(ls_activity, state),
    offsetof(ls_activity, wait_event_type), offsetof(ls_activity, wait_event),
    offsetof(ls_activity, blocking_pids), offsetof(ls_activity, query),
};
#define NACT_STRINGS (sizeof(activity_strings) / sizeof(activity_strings[0]))

int ls_handoff_activity(ls_handoff *h, uint32_t file, const ls_activity *a)
{
    size_t lens[NACT_STRINGS], need = ALIGN(LS_ITEM_HEAD) + ALIGN(sizeof(ls_activity)), i;
    ls_item *it;
    ls_activity *copy;
    char *tail;
    int rc;

    for (i = 0; i < NACT_STRINGS; i++) {
        const char *str = *FIELD(a, activity_strings[i]);
        lens[i] = str ? strlen(str) + 1 : 0;
        need += lens[i];
    }
    if (!(it = reserve(h, need, &rc)))
        return rc;
    copy = (ls_activity *)((char *)it + ALIGN(LS_ITEM_HEAD));
    tail = (char *)copy + ALIGN(sizeof(ls_activity));
    memset(it, 0, LS_ITEM_HEAD);
    it->type = LS_ITEM_ACTIVITY;
    it->size = (uint32_t)ALIGN(need);
    it->file = file;
    it->activity = copy;
    *copy = *a;
    for (i = 0; i < NACT_STRINGS; i++)
        if (lens[i])
            *FIELD(copy, activity_strings[i]) =
                put(&tail, *FIELD(a, activity_strings[i]), lens[i]);
    return 0;
}

static int simple_item(ls_handoff *h, ls_item_type type, uint32_t file, const char *reason,
                       const char *text, size_t len, uint64_t line, int gzip,
                       const ls_file_stats *st, uint32_t same_file)
{
    /* A bad line's reason may be composed by the parser (a byte offset in
     * it): copied, like the text. */
    size_t rlen = type == LS_ITEM_BAD && reason ? strlen(reason) + 1 : 0;
    size_t need = ALIGN(sizeof(ls_item)) + (st ? ALIGN(sizeof(*st)) : 0) + (text ? len + 1 : 0) +
                  rlen;
    char *tail;
    int rc;
    ls_item *it = reserve(h, need, &rc);
    if (!it)
        return rc;
    tail = (char *)it + ALIGN(sizeof(ls_item));
    memset(it, 0, sizeof(*it));
    it->type = type;
    it->size = (uint32_t)ALIGN(need);
    it->file = file;
    it->reason = reason;
    it->line = line;
    it->gzip = gzip;
    it->same_file = same_file;
    if (st) {
        it->stats = (ls_file_stats *)tail;
        *it->stats = *st;
        tail += ALIGN(sizeof(*st));
    }
    if (text) {
        char *t = tail;
        memcpy(t, text, len);
        t[len] = '\0';
        it->text = t;
        it->len = len;
        tail += len + 1;
    }
    if (rlen) {
        memcpy(tail, reason, rlen);
        it->reason = tail;
    }
    return 0;
}

int ls_handoff_bad(ls_handoff *h, uint32_t file, uint64_t line, const char *reason,
                   const char *text, size_t len)
{
    return simple_item(h, LS_ITEM_BAD, file, reason, text, len, line, 0, NULL, 0);
}

int ls_handoff_file_begin(ls_handoff *h, uint32_t file, const char *path, const char *format,
                          int gzip, int64_t resume_id, uint32_t same_file)
{
    return simple_item(h, LS_ITEM_FILE_BEGIN, file, format, path, strlen(path),
                       resume_id > 0 ? (uint64_t)resume_id : 0, gzip, NULL, same_file);
}

int ls_handoff_file_end(ls_handoff *h, uint32_t file, const ls_file_stats *st)
{
    return simple_item(h, LS_ITEM_FILE_END, file, NULL, st->prefix,
                       st->prefix ? strlen(st->prefix) : 0, 0, 0, st, 0);
}

int ls_handoff_checkpoint(ls_handoff *h)
{
    return simple_item(h, LS_ITEM_CHECKPOINT, 0, NULL, NULL, 0, 0, 0, NULL, 0);
}

void ls_handoff_close(ls_handoff *h, int rc)
{
    handoff_queue *q = h->q;
    if (rc == 0)
        rc = push_current(h);
    pthread_mutex_lock(&q->mu);
    q->closed++;
    q->parsing[h->src] = 0;
    if (!q->producer_rc)
        q->producer_rc = rc;
    pthread_cond_broadcast(&q->can_pop);
    pthread_mutex_unlock(&q->mu);
}

void ls_handoff_plan(ls_handoff *h, uint64_t bytes)
{
    h->planned = bytes;
}

void ls_handoff_read(ls_handoff *h, uint64_t bytes)
{
    h->read = bytes;
}

void ls_handoff_set_writer(ls_handoff *h, ls_handoff_writer write, void *ctx)
{
    h->q->write = write;
    h->q->write_ctx = ctx;
}

void ls_handoff_time_writes(ls_handoff *h)
{
    h->q->timed = 1;
}

double ls_handoff_write_cpu(ls_handoff *h, uint64_t *batches)
{
    double cpu;
    pthread_mutex_lock(&h->q->mu);
    cpu = h->q->write_cpu;
    *batches = h->q->batches;
    pthread_mutex_unlock(&h->q->mu);
    return cpu;
}

void ls_handoff_direct(ls_handoff *h)
{
    h->q->direct = h->q->producers == 1;
}

int ls_handoff_drain(ls_handoff *h)
{
    handoff_queue *q = h->q;
    int rc;
    pthread_mutex_lock(&q->mu);
    q->draining = 1;
    for (;;) {
        if (q->head && !q->writing)
            write_turn(q);
        else if (!q->head && !q->writing && q->closed >= q->producers)
            break;
        else
            pthread_cond_wait(&q->can_pop, &q->mu);
    }
    rc = q->write_rc;
    pthread_mutex_unlock(&q->mu);
    return rc;
}

ls_event *ls_item_event(ls_item *it, ls_record *rec)
{
    const packed_record *pk;
    const char *strs;
    size_t i;

    if (it->ev->rec) /* written at once (ls_handoff_direct): not packed */
        return it->ev;
    pk = (const packed_record *)((char *)it + ALIGN(LS_ITEM_HEAD));
    strs = (const char *)it->ev + ALIGN(event_size(it->ev->kind));
    memset(rec, 0, sizeof(*rec));
    RECORD_SCALARS(UNPACK)
    memcpy(rec->sqlstate, pk->sqlstate, sizeof(rec->sqlstate));
    /* spelt out field by field (the compiler's stores, not a table's) */
#define UNPACK_STRING(name) \
    rec->name = pk->str[i] ? strs + pk->str[i] - 1 : NULL; \
    i++;
    i = 0;
    RECORD_STRINGS(UNPACK_STRING)
#undef UNPACK_STRING
    rec->strings = pk->strings_len ? strs : NULL;
    rec->strings_len = pk->strings_len;
    it->ev->rec = rec;
    return it->ev;
}

ls_item *ls_batch_first(ls_batch *b)
{
    return b->used ? (ls_item *)b->data : NULL;
}

ls_item *ls_batch_next(ls_batch *b, ls_item *it)
{
    unsigned char *next = (unsigned char *)it + it->size;
    return next < b->data + b->used ? (ls_item *)next : NULL;
}

void ls_handoff_fail(ls_handoff *h, int rc)
{
    handoff_queue *q = h->q;
    pthread_mutex_lock(&q->mu);
    if (!q->failed)
        q->failed = rc ? rc : LS_ERR;
    pthread_cond_broadcast(&q->can_push);
    pthread_cond_broadcast(&q->can_pop);
    pthread_mutex_unlock(&q->mu);
}

int ls_handoff_producer_rc(ls_handoff *h)
{
    int rc;
    pthread_mutex_lock(&h->q->mu);
    rc = h->q->producer_rc;
    pthread_mutex_unlock(&h->q->mu);
    return rc;
}
