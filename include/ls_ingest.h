/*
 * ls_ingest.h — drive the pipeline for a list of input paths:
 * input → framing → format parser → classifier → store.
 */
#ifndef LS_INGEST_H
#define LS_INGEST_H

#include <stdint.h>

#include "ls_store.h"

typedef struct ls_ingest_opts {
    const char *prefix;  /* log_line_prefix for stderr logs, NULL = inferred */
    int progress;        /* print progress on stderr (ls_progress.h) */
    int max_bad_shown;   /* unparsable lines printed per file (rest counted) */
    int quiet;           /* no notes (inferred prefix, spans read, ...); problems still */
    int hold_partial;    /* leave a file's last line without '\n' for the next ingest */
    int jobs;            /* threads in all (-j); 0: one input at a time, stored by a second thread */
    const char *lc_messages; /* the server's language, NULL = recognised (ls_classify.h) */
    const char *encoding; /* the log's codeset (iconv name), NULL = UTF-8 or guessed */
} ls_ingest_opts;

typedef struct ls_ingest_totals {
    uint64_t files, skipped_files, bytes, lines, records, events, bad_lines;
    /* bad lines whose log_line_prefix matched, with a word no message
     * table knows after it (LS_BAD_UNKNOWN_WORD): a catalog problem */
    uint64_t bad_unknown_word;
    /* bad lines the prefix is not to blame for: those, and the parts of a
     * record whose first line is not in the input (LS_BAD_ORPHAN_*) */
    uint64_t bad_prefix_matched;
} ls_ingest_totals;

/*
 * Ingest every path (files as given; expand directories first with
 * ls_paths_expand). Bad lines are reported on stderr with file:line and
 * counted; only I/O, memory and store errors return non-zero.
 */
int ls_ingest_paths(ls_store *store, char *const *paths, const ls_ingest_opts *opts,
                    ls_ingest_totals *totals);

#endif
