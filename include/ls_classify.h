/*
 * ls_classify.h — turn a log record's message text into an event.
 *
 * Recognises the lock-wait messages of storage/lmgr/proc.c, deadlock
 * reports of deadlock.c, the errors that matter to lock analysis, statement
 * and duration lines, connections and disconnections (English messages,
 * lc_messages = 'C'). See ls_event.h for what each kind carries.
 */
#ifndef LS_CLASSIFY_H
#define LS_CLASSIFY_H

#include "ls_event.h"

typedef struct ls_classifier ls_classifier;

int ls_classifier_new(ls_classifier **out);

/*
 * Messages in a language other than English (see ls_i18n.h): code is the
 * server's lc_messages ("ru", "de_DE.UTF-8", "C") or NULL to recognise the
 * language from the first records and name it on stderr (unless quiet).
 * Returns -1 for a language PostgreSQL ships no catalog for.
 */
int ls_classifier_set_lang(ls_classifier *c, const char *code, int quiet);

/* The language index (ls_i18n.h) of an lc_messages value, -1 for English
 * (C, POSIX, en, en_US.UTF-8...), -2 for one PostgreSQL ships no catalog
 * for. The CLI refuses that as a usage error. */
int ls_classify_lang(const char *code);

/* Records in a known language that looked like a message lockspan reads
 * but matched none of its forms: counted, the first one kept. */
typedef struct ls_classify_stats {
    uint64_t unclassified;
    char sample[200];
    uint64_t sample_line;
    const char *sample_lang;
    /* With --lc-messages: records found in another language (read all the
     * same, a log may mix languages) and the first such language. */
    uint64_t other_lang;
    const char *other_lang_code;
    /* Lines read by structure alone, no message table matching them (a
     * field label no table knows, an error by its SQLSTATE, a lock-wait
     * message or deadlock DETAIL by its pids, mode names and figures). */
    uint64_t structural;
    /* Lock-wait-like messages (a lock mode name and a pid) that no table
     * matched: read by structure, or not read at all; the first kept. */
    uint64_t lock_structural;
    uint64_t lock_unread;
    char lock_sample[200];
    uint64_t lock_sample_line;
    const char *lock_sample_lang; /* the log's language when known, else NULL */
} ls_classify_stats;

const ls_classify_stats *ls_classifier_stats(const ls_classifier *c);
void ls_classifier_free(ls_classifier *c);

/*
 * Classify `rec` into *ev (ev->rec = rec). Always returns 0 with
 * ev->kind = LS_EV_OTHER when nothing is recognised, or LS_ENOMEM.
 * Strings in *ev point into rec or into c's scratch memory and stay valid
 * until the next call on c.
 */
int ls_classify(ls_classifier *c, const ls_record *rec, ls_event *ev);

/*
 * Parse a lock target as DescribeLockTag() prints it ("transaction 742",
 * "tuple (0,1) of relation 16384 of database 5", ...). `len` bytes of s.
 * Returns 0 and fills *out (text included), -1 if unrecognised
 * (out->kind = LS_TGT_UNKNOWN, text still copied).
 */
int ls_parse_lock_target(ls_lock_target *out, const char *s, size_t len);

#endif
