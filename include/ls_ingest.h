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
    unsigned char *state; /* OUT, or NULL: what became of each path (LS_INPUT_*) */
} ls_ingest_opts;

/* What became of one input path (ls_ingest_opts.state). */
enum {
    LS_INPUT_READ = 0,    /* read to its end (or already in the store) */
    LS_INPUT_NOTHING = 1, /* empty, or not a log or trace: nothing read */
    LS_INPUT_PARTIAL = 2  /* broke before its end (read error, cut or damaged data) */
};

/* How the store's bad_lines row of an input that broke begins (its
 * `reason`; docs/store.md). */
#define LS_INPUT_BROKE_REASON "input not fully read"

typedef struct ls_ingest_totals {
    uint64_t files, skipped_files, bytes, lines, records, events, bad_lines;
    uint64_t partial_files; /* inputs that broke before their end */
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
 * counted. An input that breaks (a read error, a cut or damaged .gz, a
 * stream without line breaks) is said on stderr, recorded in the store as
 * a bad_lines row at the line where it broke, and counted; what was read
 * of it stays and the other inputs are read. Only an input that cannot be
 * opened, memory and store errors return non-zero.
 */
int ls_ingest_paths(ls_store *store, char *const *paths, const ls_ingest_opts *opts,
                    ls_ingest_totals *totals);

#endif
