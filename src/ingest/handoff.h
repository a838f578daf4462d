/*
 * handoff.h — moving classified events from the parsing threads to the
 * store.
 *
 * A parsing thread copies each event, with every string it points to but
 * its record's `file` (NULL in the copy: the item's ordinal names the
 * input), into a batch: one fixed block of memory, so pointers into it
 * stay valid.
 * A record whose parser builds its strings in one buffer (ls_record.strings:
 * stderr, csvlog) has that buffer copied in one piece, not field by field.
 * Full batches go through a bounded queue and are written to the store by
 * one thread at a time, in queue order: a thread with nothing (left) to
 * parse, or a parsing thread that finds the queue full and nobody writing.
 * So one thread can do everything (-j 1), a parsing thread and a writing
 * thread make a pipeline, and threads that all parse share the writing.
 * Memory is bounded by twice HANDOFF_QUEUE batches queued, one being
 * filled per producer and as many kept for reuse as can be queued,
 * whatever the size of the log: a batch is faulted in once.
 */
#ifndef LS_HANDOFF_H
#define LS_HANDOFF_H

#include <stddef.h>
#include <stdint.h>

#include "ls_event.h"
#include "ls_activity.h"
#include "ls_span.h"
#include "ls_store.h"

typedef enum ls_item_type {
    LS_ITEM_EVENT = 1,  /* a classified record: ls_item_event() */
    LS_ITEM_BAD,        /* an unparsable line: line, reason, text */
    LS_ITEM_FILE_BEGIN, /* a new input file: text = path, reason = format name */
    LS_ITEM_FILE_END,   /* stats of input file `file` */
    LS_ITEM_SPAN,       /* a span of an application trace: item->span */
    LS_ITEM_ACTIVITY,   /* a pg_stat_activity snapshot row: item->activity */
    LS_ITEM_CHECKPOINT  /* the files before it are whole: a point to commit at */
} ls_item_type;

/*
 * Every item names its input file by `file`: the ordinal of that file's
 * FILE_BEGIN item (0, 1, ...). A parser may finish a record of one file
 * while it reads the next (a record continued across a rotation), so
 * events and bad lines carry the file they started in rather than relying
 * on the order of FILE_BEGIN items.
 */
typedef struct ls_item {
    ls_item_type type;
    uint32_t size;          /* bytes from this item to the next */
    uint32_t file;          /* ordinal of the item's input file */
    union {
        ls_event *ev;           /* LS_ITEM_EVENT */
        ls_span *span;          /* LS_ITEM_SPAN */
        ls_activity *activity;  /* LS_ITEM_ACTIVITY */
    };
    /* An event's, span's or activity's item ends here (LS_ITEM_HEAD): the
     * fields below are the other items'. */
    uint64_t line;          /* LS_ITEM_BAD; FILE_BEGIN: stored file_id read on, or 0 */
    const char *reason;     /* LS_ITEM_BAD: a copy in the item; FILE_BEGIN: format */
    const char *text;       /* LS_ITEM_BAD, LS_ITEM_FILE_BEGIN; FILE_END: the prefix
                               used, or NULL; NUL-terminated */
    size_t len;             /* bytes of text */
    int gzip;               /* LS_ITEM_FILE_BEGIN */
    uint32_t same_file;     /* LS_ITEM_FILE_BEGIN: 1 + ordinal of an earlier FILE_BEGIN
                               of the same file in this ingest (read on), or 0 */
    ls_file_stats *stats;   /* LS_ITEM_FILE_END: in the batch, after the item (an
                               event's item stays small) */
} ls_item;

#define LS_ITEM_HEAD offsetof(ls_item, line)

typedef struct ls_handoff ls_handoff;
typedef struct ls_batch ls_batch;

/* The first producer, and the queue its batches go through. */
int ls_handoff_new(ls_handoff **out);
/* Another producer (a parsing thread of its own) on `first`'s queue; its
 * batches carry its number (ls_handoff_src), its FILE_BEGIN ordinals count
 * from 0 on their own. Free every producer before `first`. */
int ls_handoff_add_producer(ls_handoff *first, ls_handoff **out);
void ls_handoff_free(ls_handoff *h);
/* The input bytes producer `h` is to read: with several producers, the
 * one furthest through its input takes the writing (see handoff.c). */
void ls_handoff_plan(ls_handoff *h, uint64_t bytes);
/* How many of them it has read so far. */
void ls_handoff_read(ls_handoff *h, uint64_t bytes);

/* ---- parsing thread ---- */

/* Copy an event (and its record) of input file `file` into the current batch. */
int ls_handoff_event(ls_handoff *h, uint32_t file, const ls_event *ev);
/* Copy a span, with its strings, into the current batch. */
int ls_handoff_span(ls_handoff *h, uint32_t file, const ls_span *sp);
int ls_handoff_activity(ls_handoff *h, uint32_t file, const ls_activity *a);
int ls_handoff_bad(ls_handoff *h, uint32_t file, uint64_t line, const char *reason,
                   const char *text, size_t len);
/* `file` is the next ordinal: 0 for the first FILE_BEGIN, then 1, ...;
 * `resume_id` the stored file this one goes on with, or 0 for a new one. */
int ls_handoff_file_begin(ls_handoff *h, uint32_t file, const char *path, const char *format,
                          int gzip, int64_t resume_id, uint32_t same_file);
/* The stats, with st->prefix copied. */
int ls_handoff_file_end(ls_handoff *h, uint32_t file, const ls_file_stats *st);
/* Every file begun so far has ended: the store may commit here. */
int ls_handoff_checkpoint(ls_handoff *h);
/* No more items from this producer (its last batch is queued, or
 * written). `rc` is the parsing side's result, passed on (the first
 * failure of any producer). */
void ls_handoff_close(ls_handoff *h, int rc);

/* ---- writing ---- */

/* Writes one batch to the store: 0, or an error that stops the ingest.
 * Called by one thread at a time, in queue order; the batch's memory is
 * reused once it returns. */
typedef int (*ls_handoff_writer)(void *ctx, ls_batch *b);
/* The writer of `h`'s queue; set before any producer starts. */
void ls_handoff_set_writer(ls_handoff *h, ls_handoff_writer write, void *ctx);
/* One thread parses and writes, and nothing else writes (-j 1): events go
 * to the writer as they are handed over, in a batch of their own that
 * points at the caller's memory, instead of being copied. Call it after
 * ls_handoff_set_writer(), before the producer starts. */
void ls_handoff_direct(ls_handoff *h);
/* Time each batch's write (CPU seconds of the thread that writes it):
 * LOCKSPAN_TIMING. Call it before the producers start. */
void ls_handoff_time_writes(ls_handoff *h);
/* The CPU seconds written batches took so far, and how many there were. */
double ls_handoff_write_cpu(ls_handoff *h, uint64_t *batches);
/* Write batches as they come until every producer has closed and all is
 * written; any thread may call it. Returns the first write error. */
int ls_handoff_drain(ls_handoff *h);
/* The producer that filled `b`: 0 for the first. */
int ls_handoff_src(const ls_batch *b);
/* An LS_ITEM_EVENT's event, with its record made in `rec` (the batch
 * holds it packed); valid while `rec` and the batch are. */
ls_event *ls_item_event(ls_item *it, ls_record *rec);
/* Items of a batch: first, then next until NULL. */
ls_item *ls_batch_first(ls_batch *b);
ls_item *ls_batch_next(ls_batch *b, ls_item *it);
/* Stop the ingest: producers see it at their next handoff, queued batches
 * are dropped. */
void ls_handoff_fail(ls_handoff *h, int rc);
/* The result the producers passed to ls_handoff_close(). */
int ls_handoff_producer_rc(ls_handoff *h);

#endif
