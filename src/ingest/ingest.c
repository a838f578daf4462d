/*
 * ingest.c — the ingest driver. Threads share the work:
 *
 *   parsing:  input → framing → parser → classifier → handoff
 *   writing:  handoff → store, in batched transactions, one thread at a time
 *
 * SQLite takes nearly half of the time of a statement-heavy log, so by
 * default a second thread writes each batch while the next one is parsed:
 * nearly half the wall time on two cores. The handoff (handoff.c) bounds
 * the memory in flight and decides who writes.
 *
 * -j N runs N threads in all. -j 1 parses and writes on the calling thread.
 * With more, independent inputs are parsed by up to N threads into the one
 * queue, which the thread furthest through its input writes (or a thread
 * left over): the files of one directory whose names share their leading
 * word (postgresql-*.log) are one server's rotated log and stay with one
 * thread, in order; other files (other servers, other names) are spread
 * over the threads by size. Two inputs that begin alike (a file and its
 * copy) are read by one thread, as without -j, so that the copy is found.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <errno.h>
#include <sched.h>
#include <iconv.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "handoff.h"
#include "ls_classify.h"
#include "ls_i18n.h"
#include "ls_ingest.h"
#include "ls_columns.h"
#include "ls_input.h"
#include "ls_logname.h"
#include "ls_params.h"
#include "ls_parser.h"
#include "ls_progress.h"

#define BAD_SAMPLES_STORED 100
#define MAX_CANDIDATES 4  /* stored files compared with one input by content */
#define TAIL_BYTES 256    /* bytes of a file's last line that its resume hash covers */
#define PREFIX_PROBE_LINES 50
#define RUN_PEEK_LINES 64 /* lines looked at for a run's format after a boundary */
/* A first line sniffed at most this sure ("[" alone: some JSON document)
 * names the format only when a later line sniffs surer as it (a field of
 * the format's own: later_line_is). */
#define SNIFF_WEAK 30
#define MAX_JOBS 16

/*
 * A run: consecutive input files of one format read by one parser
 * instance, so that a record a file leaves pending (a DETAIL or STATEMENT
 * line written after a rotation, a csvlog field whose quoted newline falls
 * at the boundary) is completed by the next file's lines. The parser sees
 * one stream whose line numbers go on from file to file; records and bad
 * lines are mapped back to the file and line where they start. A file's
 * stats (records, first/last time, bad lines) count the records that
 * started in it, so they are known only when the run ends: every file of
 * the run gets its FILE_END item then.
 */
typedef struct run_file {
    uint32_t ord;       /* ordinal of its FILE_BEGIN item */
    char *path;
    char *shown;        /* the path as messages show it (ls_shown_dup) */
    uint64_t base;      /* run line number of the file's line 0 */
    ls_file_stats st;
    int probe;          /* stderr: check that its lines match the prefix */
    uint64_t skip_upto; /* records starting at or before this line are in the store */
    char prefix[256];   /* stderr: the log_line_prefix it was read with, "" if none */
    uint64_t old_lines; /* lines the store held of the file before this ingest */
    /* The resume point so far: the end of the last '\n'-terminated line. */
    uint64_t text_end;
    unsigned char tail[TAIL_BYTES];
    size_t tail_len, tail_line_len;
} run_file;

/*
 * What the store already holds of one input path, found before the
 * parsing thread starts (the store belongs to the calling thread): the
 * hash of the file's first line, and the stored files that began with it.
 */
typedef struct file_ident {
    uint64_t fingerprint; /* 0: none (stdin, empty file) */
    int ncand;
    ls_file_progress cand[3 * MAX_CANDIDATES];
    /* per candidate: 1 + ordinal of the FILE_BEGIN that read it in this
     * ingest (its file_id is not known to this thread), else 0 */
    uint32_t ord_ref[3 * MAX_CANDIDATES];
} file_ident;

/* A file read in this ingest, as a candidate for the files after it. */
typedef struct seen_file {
    uint64_t fingerprint;
    ls_file_progress p; /* p.file_id: the stored file it went on with, or 0 */
    uint32_t ord_ref;   /* 1 + ordinal of its first FILE_BEGIN in this ingest */
} seen_file;

/* Hash of a line's last `n` bytes and its length `line_len`; never 0. */
static uint64_t tail_hash(const unsigned char *p, size_t n, size_t line_len)
{
    uint64_t h = ls_fnv1a(p, n, LS_FNV1A_BASIS ^ ((uint64_t)line_len * 0x9e3779b97f4a7c15ULL));
    return h ? h : 1;
}

/* The parsing thread's state. */
typedef struct ingest_ctx {
    ls_handoff *handoff;
    ls_classifier *cls;
    const ls_ingest_opts *opts;
    char *const *paths;
    const file_ident *ident;    /* per path: what the store holds of it */
    ls_ingest_totals tot;
    const ls_parser_ops *ops;   /* the run's parser, NULL between runs */
    void *parser;
    run_file *files;            /* the run's files, in reading order */
    size_t nfiles, cap;
    uint64_t run_lines;         /* lines fed to the parser in this run */
    uint32_t next_ord;          /* ordinal of the next FILE_BEGIN */
    char prefix[256];           /* the run's log_line_prefix as inferred, "" if none */
    seen_file *seen;            /* files read so far, for copies later on the command line */
    size_t nseen, seen_cap;
    int rc;                     /* first fatal error seen in a callback */
    ls_progress progress;       /* opts->progress: bytes and lines read */
    uint64_t raw_base;          /* input bytes of the files read before this one */
    const size_t *index;        /* per path: its index in ls_ingest_paths' paths */
    char *held;                 /* a copy of a file's first line while the lines after it are peeked at */
    size_t held_cap;
} ingest_ctx;

/* The run's file holding run line `line` (the last one by default). */
static run_file *file_of_line(ingest_ctx *c, uint64_t line)
{
    size_t i = c->nfiles;
    while (i > 1 && c->files[i - 1].base >= line)
        i--;
    return &c->files[i - 1];
}

static int on_record(void *vctx, const ls_record *rec)
{
    ingest_ctx *c = vctx;
    run_file *f = file_of_line(c, rec->line);
    ls_record r = *rec;
    ls_event ev;
    int rc;

    r.file = f->path;
    r.line = rec->line - f->base;
    if (r.line <= f->skip_upto)
        return 0; /* read again to rebuild the parser's state; already stored */
    f->st.records++;
    if (r.ts != LS_TS_NONE) {
        if (f->st.first_ts == LS_TS_NONE || r.ts < f->st.first_ts)
            f->st.first_ts = r.ts;
        if (f->st.last_ts == LS_TS_NONE || r.ts > f->st.last_ts)
            f->st.last_ts = r.ts;
    }
    if ((rc = ls_classify(c->cls, &r, &ev)) != 0)
        return c->rc = rc;
    if (ev.kind == LS_EV_OTHER)
        return 0;
    c->tot.events++;
    if ((rc = ls_handoff_event(c->handoff, f->ord, &ev)) != 0)
        return c->rc = rc;
    return 0;
}

static int on_span(void *vctx, const ls_span *sp)
{
    ingest_ctx *c = vctx;
    run_file *f = file_of_line(c, sp->line ? sp->line : c->run_lines);
    ls_span copy = *sp;
    int rc;

    copy.file = f->path;
    copy.line = sp->line ? sp->line - f->base : 0;
    if (copy.line && copy.line <= f->skip_upto)
        return 0; /* already stored (a span without a line is kept once by its id) */
    f->st.records++;
    c->tot.events++;
    if ((rc = ls_handoff_span(c->handoff, f->ord, &copy)) != 0)
        return c->rc = rc;
    return 0;
}

static int on_activity(void *vctx, const ls_activity *a)
{
    ingest_ctx *c = vctx;
    run_file *f = file_of_line(c, a->line);
    ls_activity copy = *a;
    int rc;

    copy.file = f->path;
    copy.line = a->line - f->base;
    if (copy.line <= f->skip_upto)
        return 0;
    f->st.records++;
    if ((rc = ls_handoff_activity(c->handoff, f->ord, &copy)) != 0)
        return c->rc = rc;
    return 0;
}

/* Print a line of input safely: control bytes and non-ASCII as \xNN. */
static void print_sample(FILE *f, const char *text, size_t len)
{
    size_t i;
    if (len > 160)
        len = 160;
    for (i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (ch >= 0x20 && ch < 0x7f)
            fputc(ch, f);
        else
            fprintf(f, "\\x%02x", ch);
    }
}

/* Messages of a known language that lockspan should read but could not, and
 * records in a language other than --lc-messages'. */
static void unclassified_note(const ls_classifier *cls)
{
    const ls_classify_stats *st = ls_classifier_stats(cls);

    if (st->other_lang)
        fprintf(stderr, "lockspan: %llu record%s in %s, not the --lc-messages language (read "
                        "all the same: is --lc-messages right?)\n",
                (unsigned long long)st->other_lang, st->other_lang == 1 ? " was" : "s were",
                st->other_lang_code);
    if (!st->unclassified)
        return;
    fprintf(stderr,
            "lockspan: %llu message%s in %s began like one lockspan reads but matched none "
            "of its forms (unclassified), e.g. line %llu: ",
            (unsigned long long)st->unclassified, st->unclassified == 1 ? "" : "s",
            st->sample_lang, (unsigned long long)st->sample_line);
    print_sample(stderr, st->sample, strlen(st->sample));
    fputc('\n', stderr);
}

/* A count kept in the store's meta table, added to what earlier runs stored. */
static int meta_add(ls_store *store, const char *key, uint64_t n)
{
    char buf[32];
    unsigned long long old = 0;
    int rc;

    if ((rc = ls_store_meta_get(store, key, buf, sizeof(buf))) != 0)
        return rc;
    if (buf[0])
        old = strtoull(buf, NULL, 10);
    snprintf(buf, sizeof(buf), "%llu", old + (unsigned long long)n);
    return ls_store_meta_set(store, key, buf);
}

/*
 * What the classifiers read by structure alone (ls_classify.h), on stderr
 * and in the store for the report's input section: "structural_lines",
 * and the lock-wait messages no table matched ("lock_unmatched",
 * "lock_unread", "lock_sample", "lock_sample_lang"), which say the
 * server's message catalog is one lockspan does not know.
 */
static int structure_note(ls_store *store, ingest_ctx *c, int nthreads, int quiet)
{
    const ls_classify_stats *first = NULL;
    uint64_t structural = 0, lock_read = 0, lock_unread = 0;
    char where[64];
    int t, rc;

    for (t = 0; t < nthreads; t++) {
        const ls_classify_stats *st = ls_classifier_stats(c[t].cls);
        structural += st->structural;
        lock_read += st->lock_structural;
        lock_unread += st->lock_unread;
        if (!first && st->lock_sample[0])
            first = st;
    }
    if (structural && !quiet)
        fprintf(stderr, "lockspan: read by structure: %llu line%s (no message table matched "
                        "them: read by SQLSTATE, field place, pids, lock modes and figures)\n",
                (unsigned long long)structural, structural == 1 ? "" : "s");
    if (first) {
        snprintf(where, sizeof(where), "%s", first->lock_sample_lang ? first->lock_sample_lang
                                                                     : "");
        fprintf(stderr,
                "lockspan: warning: %llu lock-wait message%s matched no message of lockspan's "
                "tables for %s%s (the server's message catalog is a translation or revision "
                "lockspan does not know): %llu read by structure, %llu not read; e.g. line %llu: ",
                (unsigned long long)(lock_read + lock_unread), lock_read + lock_unread == 1 ? "" : "s",
                where[0] ? "language " : "the log's language", where,
                (unsigned long long)lock_read, (unsigned long long)lock_unread,
                (unsigned long long)first->lock_sample_line);
        print_sample(stderr, first->lock_sample, strlen(first->lock_sample));
        fputs("\nlockspan: hint: set lc_messages = 'C' on the server for logs lockspan reads "
              "whole\n",
              stderr);
    }
    if ((rc = meta_add(store, "structural_lines", structural)) != 0 ||
        (rc = meta_add(store, "lock_unmatched", lock_read + lock_unread)) != 0 ||
        (rc = meta_add(store, "lock_unread", lock_unread)) != 0)
        return rc;
    if (first && (rc = ls_store_meta_set(store, "lock_sample", first->lock_sample)) == 0)
        rc = ls_store_meta_set(store, "lock_sample_lang", where);
    return rc;
}

static void on_note(void *vctx, const char *file, uint64_t line, const char *msg)
{
    ingest_ctx *c = vctx;
    static const char inferred[] = "inferred log_line_prefix '";
    char where[32] = "";
    /* Kept with the file, so that its next part is read with the same
     * prefix even when too few lines were appended to infer it again. */
    /* The parser's `file` is the run's first; its notes are about the file
     * being read, the last one added (see ls_stderr_next_file), and its
     * lines count through the run (on_record). */
    if (c->nfiles > 0) {
        run_file *f = line ? file_of_line(c, line) : &c->files[c->nfiles - 1];
        file = f->shown;
        if (line)
            snprintf(where, sizeof(where), ":%llu", (unsigned long long)(line - f->base));
    }
    if (strncmp(msg, inferred, sizeof(inferred) - 1) == 0) {
        const char *p = msg + sizeof(inferred) - 1, *e = strstr(p, "' (");
        if (e && (size_t)(e - p) < sizeof(c->prefix)) {
            snprintf(c->prefix, sizeof(c->prefix), "%.*s", (int)(e - p), p);
            if (c->nfiles > 0)
                snprintf(c->files[c->nfiles - 1].prefix, sizeof(c->prefix), "%s", c->prefix);
        }
    }
    if (!c->opts->quiet) {
        flockfile(stderr);
        ls_progress_clear(&c->progress);
        fprintf(stderr, "lockspan: %s%s: %s\n", file, where, msg);
        funlockfile(stderr);
    }
}

/* `file` is the name the parser was created with: the run's first file. */
static void on_bad(void *vctx, const char *file, uint64_t line, const char *reason,
                   const char *text, size_t len)
{
    ingest_ctx *c = vctx;
    run_file *f = file_of_line(c, line);
    (void)file;
    line -= f->base;
    if (line <= f->skip_upto)
        return;
    f->st.bad_lines++;
    if (strcmp(reason, LS_BAD_UNKNOWN_WORD) == 0)
        c->tot.bad_unknown_word++;
    if (strcmp(reason, LS_BAD_UNKNOWN_WORD) == 0 || strcmp(reason, LS_BAD_ORPHAN_FIELD) == 0 ||
        strcmp(reason, LS_BAD_ORPHAN_CONTINUATION) == 0)
        c->tot.bad_prefix_matched++;
    if (f->st.bad_lines <= (uint64_t)c->opts->max_bad_shown) {
        flockfile(stderr); /* one line, not cut by another thread's */
        ls_progress_clear(&c->progress);
        fprintf(stderr, "lockspan: %s:%llu: %s: ", f->shown, (unsigned long long)line, reason);
        print_sample(stderr, text, len);
        fputc('\n', stderr);
        funlockfile(stderr);
    }
    if (f->st.bad_lines <= BAD_SAMPLES_STORED && c->rc == 0) {
        int rc = ls_handoff_bad(c->handoff, f->ord, line, reason, text, len > 300 ? 300 : len);
        if (rc)
            c->rc = rc;
    }
}

/* The parser most confident about a file's first line, or NULL; its score. */
static const ls_parser_ops *sniff_format(const char *line, size_t len,
                                         int *score /* OUT: 0..100 */)
{
    const ls_parser_ops *best = NULL;
    int i, sc, best_score = 0;
    for (i = 0; ls_parsers[i]; i++) {
        sc = ls_parsers[i]->sniff(line, len);
        if (sc > best_score) {
            best = ls_parsers[i];
            best_score = sc;
        }
    }
    *score = best_score;
    return best;
}

/* ".log", ".csv", ".json" (before any ".gz"), or "" for other names. */
static size_t name_ext(const char *path, const char **ext)
{
    size_t n = strlen(path), e = n;
    if (n > 3 && strcmp(path + n - 3, ".gz") == 0)
        n -= 3;
    e = n;
    while (e > 0 && path[e - 1] != '.' && path[e - 1] != '/')
        e--;
    if (e == 0 || path[e - 1] != '.') {
        *ext = "";
        return 0;
    }
    *ext = path + e - 1;
    return n - (e - 1);
}

/* 1 when one of the RUN_PEEK_LINES lines after the first of `in` sniffs as
 * `ops` more than weakly (SNIFF_WEAK): as its best parser, or, with `own`,
 * by `ops` itself whatever another parser says. Looked at in a peek, so
 * that the lines are read again after it: `in` may be a pipe. */
static int later_line_is(ls_input *in, const ls_parser_ops *ops, int own)
{
    char errbuf[256];
    const char *line;
    size_t len;
    uint64_t lineno = 0, seen;
    int truncated, found = 0;

    ls_input_peek_begin(in);
    for (seen = 1; !found && seen < RUN_PEEK_LINES &&
                   ls_input_next_line(in, &line, &len, &lineno, &truncated, errbuf,
                                      sizeof(errbuf)) == 1;
         seen++) {
        int score;
        if (own)
            found = ops->sniff(line, len) > SNIFF_WEAK;
        else
            found = sniff_format(line, len, &score) == ops && score > SNIFF_WEAK;
    }
    ls_input_peek_end(in);
    return found;
}

/*
 * Whether a file whose first line sniffs as `best` (with `score`) goes on
 * the current run. A file that starts inside a record of the previous one
 * (a csvlog field's quoted newline, a stderr continuation line) may not
 * look like its format on its first line. It is taken as the run's format
 * when its name has the same extension as the previous file, no parser is
 * sure of another format (stderr's tail match is a weak 50), and one of
 * its next lines does look like the run's format: a truth.json beside
 * postgresql-*.json logs is not one.
 */
static int continues_run(const ingest_ctx *c, const char *path, ls_input *in,
                         const ls_parser_ops *best, int score)
{
    const char *e1, *e2;
    size_t n1, n2;
    if (!c->ops)
        return 0;
    if (best == c->ops)
        return 1;
    n1 = name_ext(path, &e1);
    n2 = name_ext(c->files[c->nfiles - 1].path, &e2);
    return score < 60 && n1 > 0 && n1 == n2 && memcmp(e1, e2, n1) == 0 &&
           later_line_is(in, c->ops, 0);
}

/* Every one of the first lines failed: the prefix is wrong, not the log. */
static int prefix_mismatch(ingest_ctx *c, const char *path)
{
    fprintf(stderr,
            "lockspan: %s: no line matches %s log_line_prefix%s%s%s; pass the server's value "
            "with --prefix (SHOW log_line_prefix), e.g. --prefix '%%m [%%p] %%q%%u@%%d '\n",
            path, c->opts->prefix ? "the" : "the inferred", c->opts->prefix ? " '" : "",
            c->opts->prefix ? c->opts->prefix : "", c->opts->prefix ? "'" : "");
    return LS_EFORMAT;
}

/* "850 kB", "12.3 MB", "1.20 GB": a size as a progress note shows it. */
static const char *size_text(char *buf, size_t n, uint64_t bytes)
{
    if (bytes < 1000000)
        snprintf(buf, n, "%llu kB", (unsigned long long)(bytes / 1000));
    else if (bytes < 1000000000)
        snprintf(buf, n, "%.1f MB", (double)bytes / 1e6);
    else
        snprintf(buf, n, "%.2f GB", (double)bytes / 1e9);
    return buf;
}

static void progress(ingest_ctx *c, const char *path, ls_input *in, uint64_t lines, int done)
{
    uint64_t size = ls_input_raw_size(in), off = ls_input_raw_offset(in);
    char a[32], b[32];
    if (size)
        ls_progress_note(&c->progress, done, "ingest %s: %3d%%, %s of %s, %llu lines", path,
                         (int)(off * 100 / size), size_text(a, sizeof(a), off),
                         size_text(b, sizeof(b), size), (unsigned long long)lines);
    else
        ls_progress_note(&c->progress, done, "ingest %s: %s, %llu lines", path,
                         size_text(a, sizeof(a), off), (unsigned long long)lines);
}

/*
 * End the current run: flush the parser, check the prefix of short stderr
 * files, and hand over every file's stats. Safe when no run is open.
 */
static int run_end(ingest_ctx *c, int rc)
{
    ls_ingest_totals *tot = &c->tot;
    size_t i;

    if (rc == 0 && c->parser)
        rc = c->ops->finish(c->parser);
    if (rc == 0)
        rc = c->rc;
    for (i = 0; i < c->nfiles; i++) {
        run_file *f = &c->files[i];
        if (rc == 0 && f->probe && f->st.lines > 0 && f->st.lines < PREFIX_PROBE_LINES &&
            f->st.bad_lines == f->st.lines)
            rc = prefix_mismatch(c, f->shown);
        if (f->st.fingerprint) {
            f->st.text_bytes = f->text_end;
            f->st.tail_hash = tail_hash(f->tail, f->tail_len, f->tail_line_len);
        }
        f->st.prefix = c->opts->prefix ? c->opts->prefix : f->prefix[0] ? f->prefix : NULL;
        if (rc == 0)
            rc = ls_handoff_file_end(c->handoff, f->ord, &f->st);
        if (rc == 0) {
            tot->files++;
            tot->bytes += f->st.bytes;
            tot->lines += f->st.lines - f->old_lines;
            tot->records += f->st.records;
            tot->bad_lines += f->st.bad_lines;
            if (f->st.bad_lines > (uint64_t)c->opts->max_bad_shown)
                fprintf(stderr,
                        "lockspan: %s: %llu lines could not be parsed (first %d shown)\n",
                        f->shown, (unsigned long long)f->st.bad_lines, c->opts->max_bad_shown);
        }
        free(f->path);
        free(f->shown);
    }
    /* The run's rows and its files' resume points go in one transaction. */
    if (rc == 0 && c->nfiles > 0)
        rc = ls_handoff_checkpoint(c->handoff);
    if (c->parser)
        c->ops->destroy(c->parser);
    c->parser = NULL;
    c->ops = NULL;
    c->nfiles = 0;
    c->run_lines = 0;
    c->prefix[0] = '\0';
    return rc;
}

/*
 * Start a run of `ops` files, or add `path` to the current run. A file the
 * store holds part of goes on under its stored `resume_id`, one read
 * earlier in this ingest under that file's `same_ord` (1 + ordinal), else
 * it is new; it is read with the stored `prefix` unless --prefix was given.
 */
static int run_add_file(ingest_ctx *c, const ls_parser_ops *ops, const char *path, int gzip,
                        uint64_t fingerprint, int64_t resume_id, uint32_t same_ord,
                        const char *prefix, char *errbuf, size_t errlen)
{
    run_file *f;
    int rc;

    /* Another file in a stderr run: its own prefix (the last file's
     * held lines are read first, as that file's). */
    if (c->parser && ops == &ls_stderr_parser && !c->opts->prefix) {
        if ((rc = ls_stderr_next_file(c->parser, prefix)) != 0)
            return rc;
        if (prefix && prefix[0])
            snprintf(c->prefix, sizeof(c->prefix), "%s", prefix);
    }
    if (c->nfiles == c->cap) {
        size_t ncap = c->cap ? c->cap * 2 : 8;
        run_file *nf = ls_realloc(c->files, ncap * sizeof(*nf));
        if (!nf)
            return LS_ENOMEM;
        c->files = nf;
        c->cap = ncap;
    }
    f = &c->files[c->nfiles];
    memset(f, 0, sizeof(*f));
    if (!(f->path = ls_strdup(path)) || !(f->shown = ls_shown_dup(path))) {
        free(f->path);
        return LS_ENOMEM;
    }
    f->ord = c->next_ord++;
    f->base = c->run_lines;
    f->st.first_ts = f->st.last_ts = LS_TS_NONE;
    f->st.fingerprint = fingerprint;
    f->probe = ops == &ls_stderr_parser && !resume_id && !same_ord;
    c->nfiles++;
    if ((rc = ls_handoff_file_begin(c->handoff, f->ord, path, ops->name, gzip, resume_id,
                                    same_ord)) != 0)
        return rc;
    if (!c->parser) {
        ls_parse_opts popts = {0};
        ls_sink sink = {.record = on_record, .bad = on_bad, .note = on_note, .ctx = c,
                        .span = on_span, .activity = on_activity};
        popts.file = f->shown; /* the parser's messages name it */
        popts.prefix = c->opts->prefix ? c->opts->prefix : prefix && prefix[0] ? prefix : NULL;
        if (!c->opts->prefix && popts.prefix) {
            snprintf(c->prefix, sizeof(c->prefix), "%s", popts.prefix);
            popts.prefix_inferred = 1;
        }
        c->ops = ops;
        if ((rc = ops->create(&c->parser, &popts, &sink, errbuf, errlen)) != 0) {
            fprintf(stderr, "lockspan: %s\n", errbuf[0] ? errbuf : "out of memory");
            return rc;
        }
    }
    snprintf(f->prefix, sizeof(f->prefix), "%s", c->prefix);
    return 0;
}

/* Formats whose files can be read on from a line boundary: one record is
 * one or more whole lines that need nothing read before them. A trace
 * export or a snapshot file (a CSV header) is read again from its start
 * and the records already stored are dropped. */
static int resumable_by_seek(const char *format)
{
    return strcmp(format, "stderr") == 0 || strcmp(format, "csvlog") == 0 ||
           strcmp(format, "jsonlog") == 0 || strcmp(format, "syslog") == 0;
}

/*
 * The candidates for one path: the stored files that began alike, where a
 * file read earlier in this ingest replaces what the store said of it (the
 * store is written behind this thread), and that file's other copies.
 * Largest resume point first.
 */
static void merge_candidates(const ingest_ctx *c, const file_ident *stored, file_ident *out)
{
    size_t i;
    int k, j;
    *out = *stored;
    memset(out->ord_ref, 0, sizeof(out->ord_ref));
    for (i = 0; i < c->nseen && out->fingerprint; i++) {
        const seen_file *sf = &c->seen[i];
        if (sf->fingerprint != out->fingerprint)
            continue;
        for (k = 0; k < out->ncand; k++)
            if (sf->p.file_id > 0 && out->cand[k].file_id == sf->p.file_id)
                break;
        if (k == out->ncand) {
            if (k == 3 * MAX_CANDIDATES)
                continue;
            out->ncand++;
        }
        out->cand[k] = sf->p;
        out->ord_ref[k] = sf->p.file_id > 0 ? 0 : sf->ord_ref;
    }
    for (k = 1; k < out->ncand; k++) /* insertion sort, text_bytes descending */
        for (j = k; j > 0 && out->cand[j].text_bytes > out->cand[j - 1].text_bytes; j--) {
            ls_file_progress t = out->cand[j];
            uint32_t o = out->ord_ref[j];
            out->cand[j] = out->cand[j - 1];
            out->ord_ref[j] = out->ord_ref[j - 1];
            out->cand[j - 1] = t;
            out->ord_ref[j - 1] = o;
        }
}

/* Note where file `f` (identity: `stored_id`, else `ord_ref`) now ends. */
static int remember(ingest_ctx *c, uint64_t fingerprint, const run_file *f, int64_t stored_id,
                    uint32_t ord_ref)
{
    seen_file *sf = NULL;
    size_t i;
    for (i = 0; i < c->nseen && !sf; i++)
        if (c->seen[i].fingerprint == fingerprint &&
            (stored_id > 0 ? c->seen[i].p.file_id == stored_id : c->seen[i].ord_ref == ord_ref))
            sf = &c->seen[i];
    if (!sf) {
        if (c->nseen == c->seen_cap) {
            size_t ncap = c->seen_cap ? c->seen_cap * 2 : 16;
            seen_file *nv = ls_realloc(c->seen, ncap * sizeof(*nv));
            if (!nv)
                return LS_ENOMEM;
            c->seen = nv;
            c->seen_cap = ncap;
        }
        sf = &c->seen[c->nseen++];
        memset(sf, 0, sizeof(*sf));
    }
    sf->fingerprint = fingerprint;
    sf->ord_ref = ord_ref;
    sf->p.file_id = stored_id;
    snprintf(sf->p.format, sizeof(sf->p.format), "%s", c->ops ? c->ops->name : "");
    snprintf(sf->p.prefix, sizeof(sf->p.prefix), "%s",
             c->opts->prefix ? c->opts->prefix : f->prefix);
    sf->p.text_bytes = f->text_end;
    sf->p.lines = f->st.lines;
    sf->p.tail_hash = tail_hash(f->tail, f->tail_len, f->tail_line_len);
    return 0;
}

typedef enum { FOUND_NONE, FOUND_RESUME, FOUND_CONTAINED } found_kind;

/*
 * Read `in` from its start looking for where the store left this file: a
 * candidate is this file when a line of it ends exactly at the candidate's
 * resume offset and has its tail hash. Stops there (FOUND_RESUME, *which =
 * the candidate, `in` positioned after that line), or at the end of a file
 * shorter than a candidate (FOUND_CONTAINED: its content is in the store
 * already), else FOUND_NONE. *passed is set when lines were read beyond the
 * point returned.
 */
static int find_resume(ls_input *in, const file_ident *id, found_kind *kind, int *which,
                       int *passed, char *errbuf, size_t errlen)
{
    const char *line;
    size_t len;
    uint64_t lineno = 0, off = 0, maxoff = id->cand[0].text_bytes;
    int truncated, rc, k;

    *kind = FOUND_NONE;
    *which = -1;
    *passed = 0;
    for (k = 0; k < id->ncand; k++)
        if (id->cand[k].text_bytes == 0 && id->cand[k].tail_hash == tail_hash(NULL, 0, 0)) {
            *kind = FOUND_RESUME;
            *which = k;
        }
    while (off < maxoff) {
        rc = ls_input_next_line(in, &line, &len, &lineno, &truncated, errbuf, errlen);
        if (rc < 0)
            return rc;
        if (rc == 0) {
            if (*kind == FOUND_NONE) {
                *kind = FOUND_CONTAINED;
                *which = 0;
            }
            return 0;
        }
        off = ls_input_text_offset(in);
        if (*which >= 0)
            *passed = 1;
        if (ls_input_unterminated(in))
            continue;
        for (k = 0; k < id->ncand; k++) {
            const ls_file_progress *p = &id->cand[k];
            size_t n = len > TAIL_BYTES ? TAIL_BYTES : len;
            if (p->text_bytes == off &&
                p->tail_hash == tail_hash((const unsigned char *)line + len - n, n, len)) {
                *kind = FOUND_RESUME;
                *which = k;
                *passed = 0;
            }
        }
    }
    return 0;
}

/* Read lines of a freshly opened `in` until `off` bytes of text are read. */
static int skip_to(ls_input *in, const char *path, uint64_t off, char *errbuf, size_t errlen)
{
    const char *line;
    size_t len;
    uint64_t lineno;
    int truncated, rc = 1;
    while (ls_input_text_offset(in) < off &&
           (rc = ls_input_next_line(in, &line, &len, &lineno, &truncated, errbuf, errlen)) == 1)
        ;
    if (rc >= 0 && ls_input_text_offset(in) != off) {
        snprintf(errbuf, errlen, "%s: changed while it was read (no line ends at byte %llu)",
                 path, (unsigned long long)off);
        return LS_EIO;
    }
    return rc < 0 ? rc : 0;
}

/*
 * A log in a legacy codeset (the server's lc_messages codeset or the
 * database encoding: WIN1251 or KOI8-R for Russian, GBK/EUC-CN, EUC-JP or
 * SJIS...): its lines are converted to UTF-8 before the parser sees them.
 * The codeset is --encoding, or guessed at the first line that is not
 * UTF-8: the first candidate whose conversion shows a translated severity
 * word ("СООБЩЕНИЕ:  ", ",СООБЩЕНИЕ,") or, in a jsonlog, whose severity
 * stays English, a known translated message. Until then lines go through as they are, and so do
 * valid UTF-8 lines after: the server writes a backend's messages in its
 * database's encoding, so one log can hold both.
 */
typedef struct codeset {
    iconv_t cd;        /* (iconv_t)-1 until known */
    const char *name;
    int tries;         /* lines guessed at */
    char *buf;
    size_t cap;
    int last_utf8;     /* the last line with high bytes was read as UTF-8 */
} codeset;

#define CODESET_TRIES 1000

static const char *const codeset_guesses[] = {"WINDOWS-1251", "KOI8-R", "GB18030", "EUC-JP",
                                              "SHIFT_JIS", "EUC-KR", "BIG5", "KOI8-U",
                                              "WINDOWS-1252"};

static int valid_utf8(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char ch;
        uint64_t w;
        /* ASCII, nearly every byte of a log: 32 at a time, then 8 */
        while (n - i >= 32) {
            uint64_t a, b, c, d;
            memcpy(&a, s + i, 8);
            memcpy(&b, s + i + 8, 8);
            memcpy(&c, s + i + 16, 8);
            memcpy(&d, s + i + 24, 8);
            if (((a | b | c | d) & UINT64_C(0x8080808080808080)) != 0)
                break;
            i += 32;
        }
        while (n - i >= 8 && (memcpy(&w, s + i, 8), (w & UINT64_C(0x8080808080808080)) == 0))
            i += 8;
        if (i == n)
            break;
        ch = s[i];
        size_t k, len = ch < 0x80 ? 1 : (ch >> 5) == 6 ? 2 : (ch >> 4) == 14 ? 3 : (ch >> 3) == 30 ? 4 : 0;
        if (!len || i + len > n)
            return 0;
        for (k = 1; k < len; k++)
            if ((s[i + k] & 0xc0) != 0x80)
                return 0;
        i += len;
    }
    return 1;
}

/* Convert [line,len) with cd into cs->buf; NULL when out of memory. */
static const char *codeset_convert(codeset *cs, iconv_t cd, const char *line, size_t *len)
{
    char *in = (char *)line, *out;
    size_t inleft = *len, outleft;

    if (cs->cap < 4 * *len + 16) {
        char *b = realloc(cs->buf, 4 * *len + 16);
        if (!b)
            return NULL;
        cs->buf = b;
        cs->cap = 4 * *len + 16;
    }
    out = cs->buf;
    outleft = cs->cap;
    iconv(cd, NULL, NULL, NULL, NULL);
    while (inleft > 0) {
        if (iconv(cd, &in, &inleft, &out, &outleft) != (size_t)-1)
            break;
        if (errno == E2BIG || outleft == 0)
            break;
        *out++ = '?'; /* a byte the codeset has no character for */
        outleft--;
        in++;
        inleft--;
    }
    *len = (size_t)(out - cs->buf);
    return cs->buf;
}

/* jsonlog's fields: the key and the value's opening quote. PostgreSQL
 * writes them with no space around the colon (jsonlog.c). */
static const char JSON_SEVERITY_KEY[] = "\"error_severity\":\"";
static const char JSON_MESSAGE_KEY[] = "\"message\":\"";
#define JSON_KEY_LEN(k) (sizeof(k) - 1)

/* Room for a jsonlog message's English form when guessing a codeset; a
 * longer one still counts as read (ls_i18n_translate returns -2). */
#define CODESET_ENGLISH_MAX 4096

/*
 * The value of the JSON string field `key` (keylen bytes) in [s,n): *value
 * and its length up to the first unescaped quote, escapes left as they are;
 * 0 when the line has no such field with a closing quote.
 */
static size_t json_field_value(const char *s, size_t n, const char *key, size_t keylen,
                               const char **value)
{
    size_t k, e;
    for (k = 0; k + keylen < n; k++) {
        if (s[k] != '"' || memcmp(s + k, key, keylen) != 0)
            continue;
        for (e = k + keylen; e < n && s[e] != '"'; e++)
            if (s[e] == '\\')
                e++;
        if (e >= n)
            return 0;
        *value = s + k + keylen;
        return e - (k + keylen);
    }
    return 0;
}

/*
 * A jsonlog line whose message, with non-ASCII bytes, is one of a known
 * language's translated messages. jsonlog writes error_severity in English
 * whatever lc_messages is (jsonlog.c: error_severity(), not _()), so in a
 * jsonlog the message is what shows the codeset.
 */
static int has_translated_message(const char *s, size_t n)
{
    char out[CODESET_ENGLISH_MAX];
    const char *m;
    size_t mlen = json_field_value(s, n, JSON_MESSAGE_KEY, JSON_KEY_LEN(JSON_MESSAGE_KEY), &m);
    size_t i;
    int near = 0, lang;

    for (i = 0; i < mlen && (unsigned char)m[i] < 0x80; i++)
        ;
    if (i == mlen)
        return 0;
    lang = ls_i18n_translate(m, mlen, -1, out, sizeof(out), &near);
    return lang >= 0 || lang == -2;
}

/* A translated severity word where the prefix ends ("СООБЩЕНИЕ:  ") or in a
 * csvlog field (",СООБЩЕНИЕ,"). A jsonlog's stays English: see
 * has_translated_message. */
static int has_severity_word(const char *s, size_t n)
{
    size_t k;
    for (k = 1; k < n; k++) {
        const ls_i18n_sev *v;
        const char *comma;
        /* csvlog: ",СООБЩЕНИЕ," */
        if (s[k - 1] == ',' && (unsigned char)s[k] >= 0x80 &&
            (comma = memchr(s + k, ',', n - k)) != NULL &&
            ls_i18n_severity_word(s + k, (size_t)(comma - (s + k))))
            return 1;
        if (s[k - 1] == ' ' && (unsigned char)s[k] >= 0x80 &&
            (v = ls_i18n_severity_at(s + k, n - k)) != NULL && k + (size_t)v->len + 2 < n &&
            s[k + v->len + 1] == ' ')
            return 1;
    }
    return 0;
}

/* An English severity word where the prefix ends (" LOG:  "), in a
 * csvlog field (",LOG,") or as a jsonlog line's error_severity
 * ("error_severity":"LOG"): the same bytes in every codeset. */
static int has_english_severity(const char *s, size_t n)
{
    static const char *const words[] = {"LOG", "ERROR", "FATAL", "PANIC", "WARNING",
                                        "NOTICE", "INFO", "DEBUG", "DETAIL", "HINT",
                                        "QUERY", "CONTEXT", "LOCATION", "STATEMENT"};
    size_t k, i;
    const char *jw;
    if ((k = json_field_value(s, n, JSON_SEVERITY_KEY, JSON_KEY_LEN(JSON_SEVERITY_KEY), &jw)) > 0)
        for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
            if (strlen(words[i]) == k && memcmp(jw, words[i], k) == 0)
                return 1;
    for (k = 1; k < n; k++) {
        if (s[k - 1] != ' ' && s[k - 1] != ',')
            continue;
        for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
            size_t w = strlen(words[i]);
            if (k + w + 1 < n && memcmp(s + k, words[i], w) == 0 &&
                (s[k - 1] == ',' ? s[k + w] == ',' : s[k + w] == ':' && s[k + w + 1] == ' '))
                return 1;
        }
    }
    return 0;
}

/*
 * The line as UTF-8: itself, or converted. Returns 0, LS_ENOMEM, or
 * LS_EFORMAT for an --encoding iconv does not know (said on stderr).
 */
static int codeset_line(codeset *cs, const ls_ingest_opts *opts, const char *path,
                        const char **line, size_t *len)
{
    size_t i;

    if (cs->cd == (iconv_t)-1) {
        if (opts->encoding) {
            if (cs->tries++)
                return 0;
            if ((cs->cd = iconv_open("UTF-8", opts->encoding)) == (iconv_t)-1) {
                fprintf(stderr, "lockspan: --encoding %s: not a codeset iconv knows\n",
                        opts->encoding);
                return LS_EFORMAT;
            }
            cs->name = opts->encoding;
        } else {
            if (cs->tries >= CODESET_TRIES || valid_utf8((const unsigned char *)*line, *len))
                return 0;
            cs->tries++;
            for (i = 0; i < sizeof(codeset_guesses) / sizeof(codeset_guesses[0]); i++) {
                iconv_t cd = iconv_open("UTF-8", codeset_guesses[i]);
                size_t n = *len;
                const char *u;
                if (cd == (iconv_t)-1)
                    continue;
                if ((u = codeset_convert(cs, cd, *line, &n)) != NULL &&
                    (has_severity_word(u, n) || has_translated_message(u, n))) {
                    cs->cd = cd;
                    cs->name = codeset_guesses[i];
                    break;
                }
                iconv_close(cd);
            }
            if (cs->cd == (iconv_t)-1)
                return 0;
            if (!opts->quiet)
                fprintf(stderr, "lockspan: %s: not UTF-8; read as %s (pass --encoding to "
                        "override)\n", path, cs->name);
        }
    }
    /*
     * Lines of backends connected to a UTF8 database stay UTF-8. But a short
     * legacy sequence can be valid UTF-8 too (EUC-JP's "文", the STATEMENT
     * word, is the bytes of "ʸ"): such a line is converted when only its
     * conversion shows a translated severity word. One with an English word
     * (" LOG:  ", a Japanese server's) stays UTF-8: text in a legacy
     * codeset is hardly ever valid UTF-8 beyond a word or two. One with no
     * severity word (a DETAIL's continuation line) is read like the line
     * before.
     */
    if (valid_utf8((const unsigned char *)*line, *len)) {
        const char *u;
        size_t n = *len;
        for (i = 0; i < *len && (unsigned char)(*line)[i] < 0x80; i++)
            ;
        if (i == *len)
            return 0;
        if (has_severity_word(*line, *len) || has_translated_message(*line, *len)) {
            cs->last_utf8 = 1;
            return 0;
        }
        if (!(u = codeset_convert(cs, cs->cd, *line, &n)))
            return LS_ENOMEM;
        if (has_severity_word(u, n) || has_translated_message(u, n)) {
            cs->last_utf8 = 0;
        } else if (has_english_severity(*line, *len)) {
            cs->last_utf8 = 1;
            return 0;
        } else if (cs->last_utf8) {
            return 0;
        }
        *line = u;
        *len = n;
        return 0;
    }
    cs->last_utf8 = 0;
    if (!(*line = codeset_convert(cs, cs->cd, *line, len)))
        return LS_ENOMEM;
    return 0;
}

static void codeset_close(codeset *cs)
{
    if (cs->cd != (iconv_t)-1)
        iconv_close(cs->cd);
    free(cs->buf);
}

/*
 * Copy the line just read (`*line`, and `*text`, its UTF-8 form, which may
 * be the same bytes) into c->held and point both there: a peek at the
 * lines after it may move the input's buffer.
 */
static int hold_line(ingest_ctx *c, const char **line, size_t len, const char **text,
                     size_t tlen)
{
    int same = *text == *line;
    size_t need = len + (same ? 0 : tlen) + 1;
    if (need > c->held_cap) {
        char *nb = ls_realloc(c->held, need);
        if (!nb)
            return LS_ENOMEM;
        c->held = nb;
        c->held_cap = need;
    }
    memcpy(c->held, *line, len);
    if (!same)
        memcpy(c->held + len, *text, tlen);
    *line = c->held;
    *text = same ? c->held : c->held + len;
    return 0;
}

/* ls_input_next_line, and *broke set when the input breaks (LS_EIO): a
 * read error, cut or damaged data, a stream without line breaks. */
static int read_line(ls_input *in, const char **line, size_t *len, uint64_t *lineno,
                     int *truncated, int *broke, char *errbuf, size_t errlen)
{
    int rc = ls_input_next_line(in, line, len, lineno, truncated, errbuf, errlen);
    if (rc == LS_EIO)
        *broke = 1;
    return rc;
}

/* The store's row for an input not fully read: at the line where it broke. */
static const char not_fully_read[] = LS_INPUT_BROKE_REASON ": it breaks here (cut or "
                                     "damaged data, or a read error); the lines before are read";

/*
 * The input broke at line `at` (errbuf says how): said on stderr, recorded
 * with the file (`f`) and counted; what was read before stays, and the
 * caller ends the run with it, so that the next file does not continue a
 * record it cut. With no file begun (`f` NULL: no line of `path` was
 * read), see input_unread.
 */
static int input_unread(ingest_ctx *c, const char *path, uint64_t at, uint64_t bytes,
                        const char *errbuf);

static int input_broke(ingest_ctx *c, run_file *f, const char *path, uint64_t at,
                       uint64_t bytes, const char *errbuf)
{
    int rc = 0;
    if (!f)
        return input_unread(c, path, at, bytes, errbuf);
    fprintf(stderr, "lockspan: %s; what came before is read, the other inputs go on\n",
            errbuf);
    c->tot.partial_files++;
    if (c->rc == 0)
        rc = ls_handoff_bad(c->handoff, f->ord, at, not_fully_read, errbuf,
                            strlen(errbuf) > 300 ? 300 : strlen(errbuf));
    return rc;
}

/*
 * An input that broke before any line of it was read (it cannot be
 * opened, its compressed header is cut, a read error at once, a file
 * listed from its directory gone before it was opened): said on stderr and
 * counted as an input not fully read, like one that breaks later, and
 * stored as such once the run before it is ended: a file with no format,
 * `bytes` read, no line, and its `not_fully_read` row at line `at`, which
 * the report's input section shows and `report` exits EXIT_PARTIAL for.
 * The store forgets the row when the path is stored again (forget_unread).
 */
static int input_unread(ingest_ctx *c, const char *path, uint64_t at, uint64_t bytes,
                        const char *errbuf)
{
    ls_file_stats st;
    uint32_t ord;
    size_t n = strlen(errbuf);
    int rc;

    fprintf(stderr, "lockspan: %s; nothing read from it, the other inputs go on\n", errbuf);
    c->tot.partial_files++;
    if ((rc = run_end(c, 0)) != 0 || (rc = c->rc) != 0)
        return rc;
    memset(&st, 0, sizeof(st));
    st.first_ts = st.last_ts = LS_TS_NONE;
    st.bytes = bytes;
    ord = c->next_ord++;
    if ((rc = ls_handoff_file_begin(c->handoff, ord, path, NULL, 0, 0, 0)) != 0 ||
        (rc = ls_handoff_bad(c->handoff, ord, at, not_fully_read, errbuf,
                             n > 300 ? 300 : n)) != 0 ||
        (rc = ls_handoff_file_end(c->handoff, ord, &st)) != 0)
        return rc;
    c->tot.files++;
    c->tot.bytes += bytes;
    return ls_handoff_checkpoint(c->handoff);
}

/*
 * A stream of a PostgreSQL log (`format`) that ended in the middle of a
 * line was cut short (zcat of a cut .gz, a collector killed): the server
 * ends every line it writes. A file may still be being written, and a
 * trace export need not end with a line break: neither is judged.
 */
static int stream_cut(const ls_input *in, const char *format)
{
    return ls_input_is_stream(in) && ls_input_unterminated(in) && resumable_by_seek(format);
}

/*
 * Read one input file into the current run, first ending the run when the
 * file is of another format, is skipped, or cannot be read. A file the
 * store holds part of (`id`) goes on from where the store ends, in a run of
 * its own.
 */
static int ingest_one(ingest_ctx *c, const char *path, const file_ident *stored,
                      unsigned char *state /* OUT: LS_INPUT_* */)
{
    char errbuf[512];
    ls_input *in = NULL;
    run_file *f = NULL;
    const char *line;
    size_t len;
    uint64_t lineno = 0;
    int truncated, rc, show = c->opts->progress;
    file_ident merged, *id = &merged;
    uint32_t ord_ref = 0; /* identity of this file in c->seen */
    int64_t stored_id = 0;
    codeset cs = {(iconv_t)-1, NULL, 0, NULL, 0, 0};
    const char *text; /* the line in UTF-8 */
    size_t tlen;
    int broke = 0; /* the input could not be read to its end */
    ls_feed_part_fn feed_part = NULL; /* the parser takes over-long lines in pieces */
    char *shown = ls_shown_dup(path); /* `path` in messages */

    *state = LS_INPUT_READ;
    if (!shown)
        return LS_ENOMEM;
    merge_candidates(c, stored, &merged);
    errbuf[0] = '\0';
    if ((rc = ls_input_open(&in, path, errbuf, sizeof(errbuf))) != 0) {
        if (rc != LS_EIO) {
            fprintf(stderr, "lockspan: %s\n", errbuf[0] ? errbuf : "out of memory");
            free(shown);
            return rc;
        }
        *state = LS_INPUT_PARTIAL; /* cannot be opened: one bad input, the rest goes on */
        rc = input_unread(c, path, 1, 0, errbuf);
        free(shown);
        return rc;
    }
    if (id->ncand > 0) {
        found_kind kind;
        int k, passed;
        const ls_file_progress *p;
        const ls_parser_ops *ops;
        if ((rc = find_resume(in, id, &kind, &k, &passed, errbuf, sizeof(errbuf))) != 0) {
            if (rc == LS_EIO) { /* it breaks before where the store's copy ends */
                *state = LS_INPUT_PARTIAL;
                rc = input_broke(c, NULL, path, ls_input_lines(in) + 1,
                                 ls_input_raw_offset(in), errbuf);
                errbuf[0] = '\0';
            }
            goto out;
        }
        p = k >= 0 ? &id->cand[k] : NULL;
        ops = p ? ls_parser_find(p->format) : NULL;
        if (kind == FOUND_CONTAINED || (kind == FOUND_RESUME && ops)) {
            int seek = kind == FOUND_RESUME && resumable_by_seek(p->format);
            if ((rc = run_end(c, 0)) != 0)
                goto out;
            if (kind == FOUND_RESUME && seek && passed) {
                ls_input_close(in);
                in = NULL;
                if ((rc = ls_input_open(&in, path, errbuf, sizeof(errbuf))) != 0 ||
                    (rc = skip_to(in, shown, p->text_bytes, errbuf, sizeof(errbuf))) != 0)
                    goto out;
            }
            /* Is there more? (A file read again from its start is assumed to
             * have more when its end was not reached.) */
            if (kind == FOUND_RESUME && (seek || !passed))
                rc = ls_input_next_line(in, &line, &len, &lineno, &truncated, errbuf,
                                        sizeof(errbuf));
            else
                rc = 1;
            if (rc == LS_EIO && kind == FOUND_RESUME) {
                /* Cut or damaged right where the store's copy ends: the
                 * same broken bytes as last time, nothing new to read. */
                if (!c->opts->quiet)
                    fprintf(stderr, "lockspan: %s: in the store up to byte %llu, where it "
                            "still breaks (%s); nothing new\n", shown,
                            (unsigned long long)p->text_bytes, errbuf);
                errbuf[0] = '\0';
                c->tot.skipped_files++;
                rc = 0;
                goto out;
            }
            if (kind == FOUND_CONTAINED || rc == 0) {
                if (!c->opts->quiet)
                    fprintf(stderr, "lockspan: %s: already in the store%s; nothing new\n",
                            shown, kind == FOUND_CONTAINED ? " (the start of a longer copy)" : "");
                c->tot.skipped_files++;
                rc = 0;
                goto out;
            }
            if (rc < 0)
                goto out;
            if (!c->opts->quiet)
                fprintf(stderr, "lockspan: %s: already in the store up to byte %llu; "
                        "reading on from there\n", shown, (unsigned long long)p->text_bytes);
            if (!seek) {
                /* Read again from the start; records up to the stored line are dropped. */
                ls_input_close(in);
                in = NULL;
                if ((rc = ls_input_open(&in, path, errbuf, sizeof(errbuf))) != 0)
                    goto out;
            }
            if ((rc = run_add_file(c, ops, path, ls_input_is_gzip(in), id->fingerprint,
                                   p->file_id, id->ord_ref[k], p->prefix, errbuf,
                                   sizeof(errbuf))) != 0)
                goto out;
            f = &c->files[c->nfiles - 1];
            ord_ref = id->ord_ref[k];
            stored_id = p->file_id;
            f->text_end = p->text_bytes;
            f->old_lines = p->lines;
            if (!seek) {
                f->skip_upto = p->lines;
                rc = 1;
                goto read;
            }
            text = line;
            tlen = len;
            if ((rc = codeset_line(&cs, c->opts, shown, &text, &tlen)) != 0)
                goto out;
            goto line; /* the line just read is the first new one */
        }
        /* Another file that begins alike: read it whole, as a new file. */
        ls_input_close(in);
        in = NULL;
        if ((rc = ls_input_open(&in, path, errbuf, sizeof(errbuf))) != 0)
            goto out;
    }

read:
    while ((rc = read_line(in, &line, &len, &lineno, &truncated, &broke, errbuf,
                           sizeof(errbuf))) == 1) {
        text = line;
        tlen = len;
        if ((rc = codeset_line(&cs, c->opts, shown, &text, &tlen)) != 0)
            break;
        if (!f) {
            int score;
            const ls_parser_ops *ops = sniff_format(text, tlen, &score);
            /* The lines after this one are looked at in a peek, which may
             * move this one: it is held apart until fed. */
            if ((ops && score <= SNIFF_WEAK) || (c->ops && ops != c->ops))
                if ((rc = hold_line(c, &line, len, &text, tlen)) != 0)
                    break;
            if (ops && score <= SNIFF_WEAK && !later_line_is(in, ops, 1))
                ops = NULL;
            if (!continues_run(c, path, in, ops, score)) {
                if ((rc = run_end(c, 0)) != 0)
                    break;
                if (!ops) {
                    /* With -q, main.c's note on the PATH given (and the exit
                     * status) tell of it. */
                    if (!c->opts->quiet && truncated)
                        fprintf(stderr, "lockspan: %s: no line break in its first %u MiB: "
                                "not a text log; nothing read from it\n", shown,
                                LS_LINE_MAX >> 20);
                    else if (!c->opts->quiet)
                        fprintf(stderr, "lockspan: %s: not recognised as a PostgreSQL log "
                                "or trace export; nothing read from it\n", shown);
                    c->tot.skipped_files++;
                    *state = LS_INPUT_NOTHING;
                    rc = 0;
                    goto out; /* closes the input and the codeset converter */
                }
            } else {
                ops = c->ops;
            }
            if ((rc = run_add_file(c, ops, path, ls_input_is_gzip(in), id->fingerprint, 0, 0,
                                   NULL, errbuf, sizeof(errbuf))) != 0)
                break;
            f = &c->files[c->nfiles - 1];
            ord_ref = f->ord + 1;
        }
    line:
        /* A trace export may be one line of any length: in pieces. */
        if ((feed_part = ls_parser_feed_part(c->ops)) != NULL)
            ls_input_set_pieces(in);
        if (ls_input_unterminated(in) && c->opts->hold_partial && !ls_input_is_stream(in)) {
            /* A line still being written: stored now, it would be stored
             * again, whole, when the file has grown. */
            fprintf(stderr, "lockspan: %s:%llu: the last line has no newline yet (is the file "
                    "being written?); left for the next ingest\n", shown,
                    (unsigned long long)lineno);
            lineno--;
            rc = 0;
            break;
        }
        c->run_lines = f->base + lineno;
        if (!ls_input_unterminated(in) && !(truncated && feed_part)) {
            /* The resume point: after this line, which a longer copy of the
             * file must also have there. */
            size_t n = len > TAIL_BYTES ? TAIL_BYTES : len;
            memcpy(f->tail, line + len - n, n);
            f->tail_len = n;
            f->tail_line_len = len;
            f->text_end = ls_input_text_offset(in);
        }
        if (truncated && !feed_part)
            on_bad(c, shown, c->run_lines, "line longer than 8 MiB, cut", line,
                   len > 80 ? 80 : len);
        rc = feed_part ? feed_part(c->parser, text, tlen, c->run_lines, truncated)
                       : c->ops->feed(c->parser, text, tlen, c->run_lines);
        if (rc != 0 || (rc = c->rc) != 0)
            break;
        if (f->probe && lineno == PREFIX_PROBE_LINES && f->st.bad_lines == lineno) {
            rc = prefix_mismatch(c, shown);
            break;
        }
        /* every 4096 lines: how far this producer is (for who writes),
         * and a note at most a few times a second */
        if ((lineno & 0xfff) == 0) {
            ls_handoff_read(c->handoff, c->raw_base + ls_input_raw_offset(in));
            if (show && ls_progress_due(&c->progress))
                progress(c, shown, in, lineno, 0);
        }
    }
    if (show)
        progress(c, shown, in, lineno, 1);
    {
        uint64_t first, nuls = ls_input_nuls(in, &first);
        if (nuls)
            fprintf(stderr, "lockspan: %s:%llu: %llu NUL byte%s replaced by '?' (from this line "
                    "on)\n", shown, (unsigned long long)first, (unsigned long long)nuls,
                    nuls == 1 ? "" : "s");
    }
    if (broke) { /* in the line after the last one read */
        *state = LS_INPUT_PARTIAL;
        rc = input_broke(c, f, path, lineno + 1, ls_input_raw_offset(in), errbuf);
        errbuf[0] = '\0';
    } else if (rc == 0 && f && stream_cut(in, c->ops->name)) { /* in the last line read */
        snprintf(errbuf, sizeof(errbuf), "%s: ends in the middle of line %llu (no line break "
                 "after it): cut short", shown, (unsigned long long)lineno);
        *state = LS_INPUT_PARTIAL;
        broke = 1;
        rc = input_broke(c, f, path, lineno, ls_input_raw_offset(in), errbuf);
        errbuf[0] = '\0';
    }
    if (f) {
        f->st.lines = lineno;
        f->st.bytes = ls_input_raw_offset(in);
        if (rc == 0 && id->fingerprint)
            rc = remember(c, id->fingerprint, f, stored_id, ord_ref);
        if (rc == 0 && broke)
            rc = run_end(c, 0);
    } else if (rc == 0 && !broke) {
        /* an empty file: nothing to store, the run goes on */
        if (!c->opts->quiet)
            fprintf(stderr, "lockspan: %s: empty: no line to read\n", shown);
        *state = LS_INPUT_NOTHING;
        c->tot.files++;
    }
out:
    if (rc == LS_EIO && errbuf[0])
        fprintf(stderr, "lockspan: %s\n", errbuf);
    c->raw_base += ls_input_raw_offset(in);
    codeset_close(&cs);
    ls_input_close(in);
    free(shown);
    return rc;
}

/*
 * A parsing thread: read its inputs, hand their events over, then help
 * write what is queued until every producer is done (a thread that parses
 * writes too: see handoff.h).
 */
static void *parsing_thread(void *arg)
{
    ingest_ctx *c = arg;
    int i, rc = 0;
    for (i = 0; c->paths[i] && rc == 0; i++) {
        unsigned char state = LS_INPUT_READ;
        rc = ingest_one(c, c->paths[i], &c->ident[i], &state);
        if (c->opts->state)
            c->opts->state[c->index[i]] = state;
    }
    rc = run_end(c, rc);
    free(c->files);
    free(c->seen);
    free(c->held);
    c->files = NULL;
    c->seen = NULL;
    c->held = NULL;
    ls_handoff_close(c->handoff, rc);
    ls_handoff_drain(c->handoff);
    return NULL;
}

/*
 * A file `path` stored anew, or read again to where the store has it: an
 * earlier row of the same regular file with
 * nothing read from it (input_unread: no format) is no longer what the
 * store knows of it, and goes with its not_fully_read row. A stream ("-",
 * a pipe) is another input each time, and keeps its rows.
 */
#define FORGET_UNREAD_PARAMS(X, Q) X(Q, path)
LS_PARAMS(fup, FORGET_UNREAD_PARAMS);
static int forget_unread(ls_store *s, const char *path)
{
    static const char *const sql[] = {
        "DELETE FROM bad_lines WHERE file_id IN (SELECT file_id FROM files"
        " WHERE path = :path AND format IS NULL AND coalesce(lines, 0) = 0)",
        "DELETE FROM files WHERE path = :path AND format IS NULL AND coalesce(lines, 0) = 0",
    };
    struct stat sb;
    size_t i;
    int rc = 0;

    if (strcmp(path, "-") == 0 || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return 0;
    for (i = 0; i < sizeof(sql) / sizeof(sql[0]) && rc == 0; i++) {
        ls_stmt *st;
        if ((rc = ls_store_prepare_params(s, sql[i], LS_PARAM_NAMES(FORGET_UNREAD_PARAMS), &st)) !=
            0)
            break;
        if ((rc = ls_stmt_bind_text(st, LS_PARAM(fup, path), path)) == 0 &&
            (rc = ls_stmt_step(st)) > 0)
            rc = 0;
        ls_stmt_finalize(st);
    }
    return rc;
}

/* The writer's state between batches: the stored file_id of every
 * producer's FILE_BEGIN ordinals. */
typedef struct store_writer {
    ls_store *s;
    const char *prefix;
    int nsrc; /* producers */
    int64_t *ids[MAX_JOBS];
    size_t nids[MAX_JOBS], caps[MAX_JOBS];
} store_writer;

/* A stored file read on: where it broke last time (input_broke) is no
 * longer where it ends; if it breaks again, that is recorded anew. */
static int forget_break(ls_store *s, int64_t file_id)
{
    char sql[sizeof(not_fully_read) + 96]; /* the statement's words and an id */
    snprintf(sql, sizeof(sql), "DELETE FROM bad_lines WHERE file_id = %lld AND reason = '%s'",
             (long long)file_id, not_fully_read);
    return ls_store_exec(s, sql);
}

/* Write one batch's items to the store (ls_handoff_writer). */
static int write_batch(void *ctx, ls_batch *b)
{
    store_writer *w = ctx;
    ls_store *s = w->s;
    ls_item *it;
    int src = ls_handoff_src(b), rc = 0;
    int64_t *file_ids = w->ids[src];
    size_t nfiles = w->nids[src], cap = w->caps[src];

    for (it = ls_batch_first(b); it && rc == 0; it = ls_batch_next(b, it)) {
        if (it->type != LS_ITEM_FILE_BEGIN && it->file >= nfiles) {
            rc = LS_ERR; /* a FILE_BEGIN lost or out of order: a bug */
            break;
        }
        switch (it->type) {
        case LS_ITEM_EVENT: {
            ls_record rec;
            rc = ls_store_event(s, file_ids[it->file], ls_item_event(it, &rec));
            break;
        }
        case LS_ITEM_CHECKPOINT:
            /* A run's files are whole, with their resume points: commit,
             * so that a killed ingest goes on from here next time. With
             * several producers the others' runs are half stored at this
             * point: one transaction for the whole ingest. */
            if (w->nsrc == 1 && (rc = ls_store_commit(s)) == 0)
                rc = ls_store_begin(s);
            break;
        case LS_ITEM_BAD:
            rc = ls_store_bad_line(s, file_ids[it->file], it->line, it->reason, it->text,
                                   it->len);
            break;
        case LS_ITEM_FILE_BEGIN:
            if (it->file != nfiles) {
                rc = LS_ERR; /* a FILE_BEGIN lost or out of order: a bug */
                break;
            }
            if (nfiles == cap) {
                size_t ncap = cap ? cap * 2 : 16;
                int64_t *nv = ls_realloc(file_ids, ncap * sizeof(*nv));
                if (!nv) {
                    rc = LS_ENOMEM;
                    break;
                }
                file_ids = nv;
                cap = ncap;
            }
            if (it->line > 0) { /* a file the store holds part of: read on */
                file_ids[nfiles++] = (int64_t)it->line;
                rc = forget_break(s, (int64_t)it->line);
            }
            else if (it->same_file > 0 && it->same_file <= nfiles)
                file_ids[nfiles++] = file_ids[it->same_file - 1];
            else if ((rc = forget_unread(s, it->text)) == 0)
                rc = ls_store_file_begin(s, it->text, it->reason, w->prefix, it->gzip,
                                         &file_ids[nfiles++]);
            break;
        case LS_ITEM_FILE_END:
            it->stats->prefix = it->text; /* copied into the batch */
            rc = ls_store_file_end(s, file_ids[it->file], it->stats);
            break;
        case LS_ITEM_SPAN:
            rc = ls_store_span(s, file_ids[it->file], it->span);
            break;
        case LS_ITEM_ACTIVITY:
            rc = ls_store_activity(s, file_ids[it->file], it->activity);
            break;
        }
    }
    w->ids[src] = file_ids;
    w->nids[src] = nfiles;
    w->caps[src] = cap;
    if (rc == 0)
        rc = ls_store_detach(s); /* rows still point into the batch */
    return rc;
}

/*
 * For every path, the hash of its first lines and the stored files that
 * began with the same lines: a file is known by its content, whatever its
 * name, compression or length now. A stream (stdin, a pipe, a FIFO) is not
 * read ahead, which would consume it: it is always new.
 */
static int identify(ls_store *s, char *const *paths, file_ident **out)
{
    size_t n = 0, i;
    int rc = 0;
    while (paths[n])
        n++;
    *out = ls_calloc(n + 1, sizeof(**out));
    if (!*out)
        return LS_ENOMEM;
    for (i = 0; i < n && rc == 0; i++) {
        file_ident *id = &(*out)[i];
        char errbuf[256];
        ls_input *in;
        const char *line;
        size_t len;
        uint64_t lineno;
        int truncated;
        if (ls_path_is_stream(paths[i]) ||
            ls_input_open(&in, paths[i], errbuf, sizeof(errbuf)))
            continue; /* a stream is read once, later; an unreadable file fails then */
        if (ls_input_next_line(in, &line, &len, &lineno, &truncated, errbuf, sizeof(errbuf)) ==
                1 &&
            !ls_input_unterminated(in)) {
            /* The first line, or the first two when there are two (files that
             * begin with the same header line, like snapshot files, differ by
             * their second); a file stored while it had one line is found
             * by its first. */
            uint64_t one = ls_fnv1a(line, len, LS_FNV1A_BASIS) | 1;
            uint64_t two = 0;
            if (ls_input_next_line(in, &line, &len, &lineno, &truncated, errbuf,
                                   sizeof(errbuf)) == 1 &&
                !ls_input_unterminated(in))
                two = ls_fnv1a(line, len, (one ^ '\n') * 0x100000001b3ULL) | 1;
            id->fingerprint = two ? two : one;
            rc = ls_store_file_lookup(s, id->fingerprint, id->cand, MAX_CANDIDATES, &id->ncand);
            if (rc == 0 && two) {
                int more = 0;
                rc = ls_store_file_lookup(s, one, id->cand + id->ncand, MAX_CANDIDATES, &more);
                id->ncand += more;
            }
        }
        ls_input_close(in);
    }
    return rc;
}

/* The leading word of a file's name ("postgresql" in postgresql-Mon.log). */
static size_t name_word(const char *name)
{
    const char *e = name;
    while ((*e >= 'a' && *e <= 'z') || (*e >= 'A' && *e <= 'Z') || *e == '_')
        e++;
    return (size_t)(e - name);
}

/* Whether two paths are one group: the same directory and the same leading
 * word of their names, the files one server writes as it rotates. */
static int same_group(const char *x, const char *y)
{
    const char *bx = strrchr(x, '/'), *by = strrchr(y, '/');
    size_t dx = bx ? (size_t)(bx - x) + 1 : 0, dy = by ? (size_t)(by - y) + 1 : 0, wx, wy;
    if (strcmp(x, "-") == 0 || strcmp(y, "-") == 0)
        return strcmp(x, y) == 0;
    wx = name_word(x + dx);
    wy = name_word(y + dy);
    return dx == dy && memcmp(x, y, dx) == 0 && wx == wy && memcmp(x + dx, y + dy, wx) == 0;
}

/*
 * Spread the paths over at most `jobs` threads: group[i] is the group of
 * paths[i], thread_of[g] the thread of group g, load[t] the bytes thread t
 * is to read. Returns the threads used (1 when the inputs are one group,
 * or two groups begin alike).
 */
static int plan_threads(char *const *paths, const file_ident *ident, size_t n, int jobs,
                        int *group, int *thread_of, uint64_t *load)
{
    uint64_t *gbytes;
    size_t i, j;
    int ngroups = 0, g, t, used, *order;

    for (i = 0; i < n; i++) {
        for (j = 0; j < i && !same_group(paths[i], paths[j]); j++)
            ;
        group[i] = j < i ? group[j] : ngroups++;
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < i; j++)
            if (group[i] != group[j] && ident[i].fingerprint &&
                ident[i].fingerprint == ident[j].fingerprint)
                return 1;
    used = jobs < ngroups ? jobs : ngroups;
    if (used <= 1)
        return 1;
    gbytes = ls_calloc((size_t)ngroups, sizeof(*gbytes));
    order = ls_calloc((size_t)ngroups, sizeof(*order));
    if (!gbytes || !order) {
        free(gbytes);
        free(order);
        return 1;
    }
    for (i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) == 0)
            gbytes[group[i]] += (uint64_t)st.st_size;
    }
    /* largest group first, each to the least loaded thread */
    for (g = 0; g < ngroups; g++)
        order[g] = g;
    for (g = 1; g < ngroups; g++)
        for (t = g; t > 0 && gbytes[order[t]] > gbytes[order[t - 1]]; t--) {
            int x = order[t];
            order[t] = order[t - 1];
            order[t - 1] = x;
        }
    for (g = 0; g < ngroups; g++) {
        int best = 0;
        for (t = 1; t < used; t++)
            if (load[t] < load[best])
                best = t;
        thread_of[order[g]] = best;
        load[best] += gbytes[order[g]];
    }
    free(gbytes);
    free(order);
    return used;
}

/* Whether this process may run on more than one CPU (taskset, cpusets). */
static int second_cpu(void)
{
#ifdef CPU_COUNT
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        return CPU_COUNT(&set) > 1;
#endif
    return sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

/*
 * A store is correlated as one server's log: waits, blockers and sessions
 * are matched by pid and transaction id across all its inputs. One
 * server's log files follow one another in time; two that overlap by more
 * than a second (a line may be stamped a little before the one above it)
 * are two servers' logs, whose pids would meet, or the same log read
 * twice (one log in two formats has a message of its own: input.c).
 */
static int warn_overlap(ls_store *s)
{
    /* In order of their first record, each against the one that ends
     * last of those before it: one pass, whatever the number of files. */
#define LOG_TIME_COLS(X, Q)                                                      \
    X(Q, path, "path")                                                       \
    X(Q, first_ts, "first_ts")                                               \
    X(Q, last_ts, "last_ts")
    LS_COLUMNS(fq, LOG_TIME_COLS);
    static const char sql[] =
        "SELECT " LS_SELECT_LIST(fq, LOG_TIME_COLS) " FROM files"
        " WHERE format IN ('stderr', 'csvlog', 'jsonlog', 'syslog') AND first_ts IS NOT NULL"
        " AND last_ts IS NOT NULL ORDER BY first_ts, file_id";
    ls_stmt *st;
    char *a = NULL, *b = NULL, *last = NULL; /* last: the path of the latest end */
    int64_t last_end = 0;
    long n = 0;
    int rc;

    if ((rc = ls_store_prepare(s, sql, &st)) != 0)
        return rc;
    while ((rc = ls_stmt_step(st)) == 1) {
        const char *path = ls_stmt_text(st, fq_path);
        int64_t first = ls_stmt_int64(st, fq_first_ts), end = ls_stmt_int64(st, fq_last_ts);
        if (last && first + 1000000 < last_end && !ls_paths_same_log(last, path) && n++ == 0) {
            a = ls_strdup(last);
            b = ls_strdup(path);
        }
        if (!last || end > last_end) {
            free(last);
            last = ls_strdup(path);
            last_end = end;
        }
    }
    ls_stmt_finalize(st);
    if (rc == 0 && n > 0) {
        char sa[LS_SHOWN_MAX], sb[LS_SHOWN_MAX];
        fprintf(stderr,
                "lockspan: %s and %s overlap in time (%ld %s before another of the store"
                " has ended): a store is correlated as one server's log, pids and"
                " transaction ids matched across all its inputs; give two servers' logs a"
                " store each, and read a log once\n",
                a ? ls_shown(sa, sizeof(sa), a) : "?", b ? ls_shown(sb, sizeof(sb), b) : "?", n,
                n == 1 ? "file begins" : "files begin");
    }
    free(a);
    free(b);
    free(last);
    return rc;
}

/*
 * LOCKSPAN_TIMING: the load's wall and CPU time, and of that CPU the
 * writes of batches to the store (the part one thread at a time can do:
 * with -j N the load takes at least that long, and at least its CPU time
 * over N), then the end (commit, indexes). With -j 1 events are written
 * as they are parsed, not in batches: no writing line.
 */
typedef struct ingest_clock {
    struct timespec wall[3], cpu[3];
} ingest_clock;

static void clock_mark(ingest_clock *k, int i)
{
    clock_gettime(CLOCK_MONOTONIC, &k->wall[i]);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &k->cpu[i]);
}

static void clock_print(const ingest_clock *k, ls_handoff *h, int batched)
{
    uint64_t batches = 0;
    double write_cpu = ls_handoff_write_cpu(h, &batches);

    fprintf(stderr, "lockspan: ingest: %-24s %8.3f s\n", "load",
            ls_secs_between(&k->wall[0], &k->wall[1]));
    fprintf(stderr, "lockspan: ingest-cpu: %-24s %8.3f s\n", "load",
            ls_secs_between(&k->cpu[0], &k->cpu[1]));
    if (batched)
        fprintf(stderr, "lockspan: ingest-cpu: %-24s %8.3f s (%llu batches)\n",
                "writing batches", write_cpu, (unsigned long long)batches);
    fprintf(stderr, "lockspan: ingest: %-24s %8.3f s\n", "end (commit, indexes)",
            ls_secs_between(&k->wall[1], &k->wall[2]));
    fprintf(stderr, "lockspan: ingest-cpu: %-24s %8.3f s\n", "end (commit, indexes)",
            ls_secs_between(&k->cpu[1], &k->cpu[2]));
}

/*
 * Threads. opts->jobs = N: N threads in all; independent inputs are spread
 * over up to N parsing producers, and a thread left over writes the store
 * as batches come (one input and -j 2: a pipeline), else the producers
 * share the writing; -j 1 parses and writes on the calling thread alone.
 * opts->jobs = 0 (the default): one input at a time, in command-line order
 * (the store the same from run to run), written by a thread of its own
 * when there is a second CPU. The calling thread is one of them.
 */
int ls_ingest_paths(ls_store *store, char *const *paths, const ls_ingest_opts *opts,
                    ls_ingest_totals *totals)
{
    ingest_ctx c[MAX_JOBS];
    store_writer w;
    file_ident *ident = NULL, *tident = NULL;
    char **tpaths = NULL;
    size_t *tindex = NULL;
    int *group = NULL, *thread_of = NULL;
    pthread_t thread[MAX_JOBS];
    uint64_t load[MAX_JOBS] = {0}; /* input bytes of each parsing thread */
    size_t n = 0, i, k;
    int rc, rc2, t, jobs, nthreads = 1, first, started = 0;
    int timing = getenv("LOCKSPAN_TIMING") != NULL;
    ingest_clock clk;

    memset(c, 0, sizeof(c));
    memset(&w, 0, sizeof(w));
    memset(totals, 0, sizeof(*totals));
    jobs = opts->jobs > MAX_JOBS ? MAX_JOBS : opts->jobs;
    while (paths[n])
        n++;
    if ((rc = identify(store, paths, &ident)) != 0)
        return rc;
    group = ls_calloc(n + 1, sizeof(*group));
    thread_of = ls_calloc(n + 1, sizeof(*thread_of));
    /* each thread's paths and idents, NULL-terminated, in input order */
    tpaths = ls_calloc(n + MAX_JOBS, sizeof(*tpaths));
    tident = ls_calloc(n + MAX_JOBS, sizeof(*tident));
    tindex = ls_calloc(n + MAX_JOBS, sizeof(*tindex));
    if (!group || !thread_of || !tpaths || !tident || !tindex) {
        rc = LS_ENOMEM;
        goto out;
    }
    if (jobs > 1)
        nthreads = plan_threads(paths, ident, n, jobs, group, thread_of, load);
    else if (jobs < 1)
        jobs = second_cpu() ? 2 : 1;
    for (t = 0, k = 0; t < nthreads; t++) {
        c[t].opts = opts;
        ls_progress_init(&c[t].progress, opts->progress);
        c[t].paths = tpaths + k;
        c[t].ident = tident + k;
        c[t].index = tindex + k;
        for (i = 0; i < n; i++)
            if (nthreads == 1 || thread_of[group[i]] == t) {
                tpaths[k] = paths[i];
                tindex[k] = i;
                tident[k++] = ident[i];
            }
        tpaths[k++] = NULL;
        if ((rc = ls_classifier_new(&c[t].cls)) != 0 ||
            (rc = t == 0 ? ls_handoff_new(&c[t].handoff)
                         : ls_handoff_add_producer(c[0].handoff, &c[t].handoff)) != 0)
            goto out;
        ls_handoff_plan(c[t].handoff, load[t]); /* 0 for one thread: it needs none */
        if (ls_classifier_set_lang(c[t].cls, opts->lc_messages, opts->quiet) != 0) {
            fprintf(stderr, "lockspan: --lc-messages %s: PostgreSQL ships no such language\n",
                    opts->lc_messages);
            rc = LS_ERR;
            goto out;
        }
    }
    w.s = store;
    w.prefix = opts->prefix;
    w.nsrc = nthreads;
    ls_handoff_set_writer(c[0].handoff, write_batch, &w);
    if (jobs == 1) /* parsing and writing on this thread alone: no copies */
        ls_handoff_direct(c[0].handoff);
    if (timing)
        ls_handoff_time_writes(c[0].handoff);
    /* Until the end, the store may hold part of this ingest: report refuses
     * it, and the next ingest of the same files completes it. */
    if ((rc = ls_store_meta_set(store, "ingest", "incomplete")) != 0 ||
        /* When the store is written while another thread parses, the
         * indexes grow with the tables, on the writer's turns, which
         * overlap the parsing; a sort of them at the end would run on one
         * core with nothing beside it. One thread alone sorts at the end:
         * fewer instructions than an index kept as rows come. */
        (jobs > 1 && (rc = ls_store_index(store)) != 0) ||
        (rc = ls_store_meta_set(store, "correlated", "")) != 0 ||
        /* The small cache of a sort (ls_store_sorting) while the load
         * appends: a few pages are hot (each table's last leaf and the
         * path to it), the same pages are written, and 12 MiB are spared,
         * with the page faults of filling them. */
        (rc = ls_store_sorting(store, 1)) != 0 ||
        (rc = ls_store_begin(store)) != 0 ||
        /* transactions cut as the statements are written (tx_cuts) */
        (rc = ls_store_cuts_begin(store)) != 0)
        goto out;
    /* A file whose first lines read now is no longer one that could not be
     * read, even when all of it is in the store already. */
    for (i = 0; i < n && rc == 0; i++)
        if (ident[i].fingerprint)
            rc = forget_unread(store, paths[i]);
    if (rc != 0)
        goto out;
    /* With a thread to spare, this one only writes; else it parses too. */
    first = nthreads < jobs ? 0 : 1;
    clock_mark(&clk, 0);
    for (t = first; t < nthreads; t++, started++)
        if (pthread_create(&thread[t], NULL, parsing_thread, &c[t]) != 0)
            break;
    if (first + started < nthreads) {
        /* the threads that run stop at their next handoff; the others
         * never close their producer: close it for them */
        for (t = first + started; t < nthreads; t++)
            ls_handoff_close(c[t].handoff, LS_ENOMEM);
        ls_handoff_fail(c[0].handoff, LS_ENOMEM);
    }
    if (first == 1)
        parsing_thread(&c[0]);
    rc = ls_handoff_drain(c[0].handoff);
    for (t = first; t < first + started; t++)
        pthread_join(thread[t], NULL);
    clock_mark(&clk, 1);
    if (rc == 0)
        rc = ls_handoff_producer_rc(c[0].handoff);
    for (t = 0; t < nthreads; t++) {
        totals->files += c[t].tot.files;
        totals->skipped_files += c[t].tot.skipped_files;
        totals->bytes += c[t].tot.bytes;
        totals->lines += c[t].tot.lines;
        totals->records += c[t].tot.records;
        totals->events += c[t].tot.events;
        totals->bad_lines += c[t].tot.bad_lines;
        totals->partial_files += c[t].tot.partial_files;
        totals->bad_unknown_word += c[t].tot.bad_unknown_word;
        totals->bad_prefix_matched += c[t].tot.bad_prefix_matched;
    }
    if (rc == 0)
        rc = structure_note(store, c, nthreads, opts->quiet);
    if (rc == 0)
        rc = ls_store_cuts_end(store);
    rc2 = rc == 0 ? ls_store_commit(store) : ls_store_exec(store, "ROLLBACK");
    if (rc == 0)
        rc = rc2;
    rc2 = ls_store_sorting(store, 0); /* the whole cache again for correlation's reads */
    if (rc == 0)
        rc = rc2;
    if (rc == 0)
        rc = ls_store_index(store);
    if (rc == 0)
        rc = ls_store_meta_set(store, "ingest", "complete");
    if (rc == 0)
        rc = warn_overlap(store);
    clock_mark(&clk, 2);
    if (rc == 0 && timing)
        clock_print(&clk, c[0].handoff, jobs > 1);
    for (t = 0; t < nthreads; t++)
        unclassified_note(c[t].cls);
out:
    for (t = MAX_JOBS - 1; t >= 0; t--) { /* the first producer owns the queue: last */
        ls_handoff_free(c[t].handoff);
        ls_classifier_free(c[t].cls);
    }
    for (t = 0; t < MAX_JOBS; t++)
        free(w.ids[t]);
    free(ident);
    free(tident);
    free(tindex);
    free(tpaths);
    free(group);
    free(thread_of);
#ifdef __GLIBC__
    /* The parsing threads' malloc arenas keep what they freed: give it
     * back, or analyze's correlation and report start on top of it. */
    malloc_trim(0);
#endif
    return rc;
}
