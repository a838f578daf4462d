/*
 * ingest.c — the ingest driver. Two threads share the work:
 *
 *   parsing thread: input → framing → parser → classifier → handoff
 *   calling thread: handoff → store, in batched transactions
 *
 * SQLite takes more than half of the time of a statement-heavy log, so
 * parsing the next batch while the last one is stored nearly halves the
 * wall time on two cores. The handoff (handoff.c) bounds the memory in
 * flight. The store is touched only by the calling thread.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "handoff.h"
#include "ls_classify.h"
#include "ls_ingest.h"
#include "ls_input.h"
#include "ls_parser.h"

#define BATCH_RECORDS 50000
#define BAD_SAMPLES_STORED 100
#define PREFIX_PROBE_LINES 50
#define RUN_PEEK_LINES 64 /* lines looked at for a run's format after a boundary */

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
    uint64_t base;      /* run line number of the file's line 0 */
    ls_file_stats st;
    int probe;          /* stderr: check that its lines match the prefix */
} run_file;

/* The parsing thread's state. */
typedef struct ingest_ctx {
    ls_handoff *handoff;
    ls_classifier *cls;
    const ls_ingest_opts *opts;
    char *const *paths;
    const unsigned char *known; /* per path: already in the store, skip */
    ls_ingest_totals tot;
    const ls_parser_ops *ops;   /* the run's parser, NULL between runs */
    void *parser;
    run_file *files;            /* the run's files, in reading order */
    size_t nfiles, cap;
    uint64_t run_lines;         /* lines fed to the parser in this run */
    uint32_t next_ord;          /* ordinal of the next FILE_BEGIN */
    int rc;                     /* first fatal error seen in a callback */
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

static void on_note(void *vctx, const char *file, const char *msg)
{
    ingest_ctx *c = vctx;
    if (!c->opts->quiet)
        fprintf(stderr, "lockspan: %s: %s\n", file, msg);
}

/* `file` is the name the parser was created with: the run's first file. */
static void on_bad(void *vctx, const char *file, uint64_t line, const char *reason,
                   const char *text, size_t len)
{
    ingest_ctx *c = vctx;
    run_file *f = file_of_line(c, line);
    (void)file;
    line -= f->base;
    f->st.bad_lines++;
    if (f->st.bad_lines <= (uint64_t)c->opts->max_bad_shown) {
        fprintf(stderr, "lockspan: %s:%llu: %s: ", f->path, (unsigned long long)line, reason);
        print_sample(stderr, text, len);
        fputc('\n', stderr);
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

/* 1 when one of the first RUN_PEEK_LINES lines of `path` sniffs as `ops`. */
static int later_line_is(const char *path, const ls_parser_ops *ops)
{
    char errbuf[256];
    ls_input *in;
    const char *line;
    size_t len;
    uint64_t lineno = 0;
    int truncated, found = 0;

    if (strcmp(path, "-") == 0 || ls_input_open(&in, path, errbuf, sizeof(errbuf)) != 0)
        return 0;
    while (!found && lineno < RUN_PEEK_LINES &&
           ls_input_next_line(in, &line, &len, &lineno, &truncated, errbuf, sizeof(errbuf)) ==
               1) {
        int score;
        found = lineno > 1 && sniff_format(line, len, &score) == ops;
    }
    ls_input_close(in);
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
static int continues_run(const ingest_ctx *c, const char *path, const ls_parser_ops *best,
                         int score)
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
           later_line_is(path, c->ops);
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

static void progress(const char *path, ls_input *in, int done)
{
    uint64_t size = ls_input_raw_size(in), off = ls_input_raw_offset(in);
    if (size)
        fprintf(stderr, "\r%s: %3d%% (%llu MB)%s", path, (int)(off * 100 / size),
                (unsigned long long)(off >> 20), done ? "\n" : "");
    else
        fprintf(stderr, "\r%s: %llu MB%s", path, (unsigned long long)(off >> 20),
                done ? "\n" : "");
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
            rc = prefix_mismatch(c, f->path);
        if (rc == 0)
            rc = ls_handoff_file_end(c->handoff, f->ord, &f->st);
        if (rc == 0) {
            tot->files++;
            tot->bytes += f->st.bytes;
            tot->lines += f->st.lines;
            tot->records += f->st.records;
            tot->bad_lines += f->st.bad_lines;
            if (f->st.bad_lines > (uint64_t)c->opts->max_bad_shown)
                fprintf(stderr,
                        "lockspan: %s: %llu lines could not be parsed (first %d shown)\n",
                        f->path, (unsigned long long)f->st.bad_lines, c->opts->max_bad_shown);
        }
        free(f->path);
    }
    if (c->parser)
        c->ops->destroy(c->parser);
    c->parser = NULL;
    c->ops = NULL;
    c->nfiles = 0;
    c->run_lines = 0;
    return rc;
}

/* Start a run of `ops` files, or add `path` to the current run. */
static int run_add_file(ingest_ctx *c, const ls_parser_ops *ops, const char *path, int gzip,
                        char *errbuf, size_t errlen)
{
    run_file *f;
    int rc;

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
    if (!(f->path = ls_strdup(path)))
        return LS_ENOMEM;
    f->ord = c->next_ord++;
    f->base = c->run_lines;
    f->st.first_ts = f->st.last_ts = LS_TS_NONE;
    f->probe = ops == &ls_stderr_parser;
    c->nfiles++;
    if ((rc = ls_handoff_file_begin(c->handoff, f->ord, path, ops->name, gzip)) != 0)
        return rc;
    if (!c->parser) {
        ls_parse_opts popts;
        ls_sink sink = {.record = on_record, .bad = on_bad, .note = on_note, .ctx = c,
                        .span = on_span, .activity = on_activity};
        popts.file = path;
        popts.prefix = c->opts->prefix;
        c->ops = ops;
        if ((rc = ops->create(&c->parser, &popts, &sink, errbuf, errlen)) != 0) {
            fprintf(stderr, "lockspan: %s\n", errbuf[0] ? errbuf : "out of memory");
            return rc;
        }
    }
    return 0;
}

/*
 * Read one input file into the current run, first ending the run when the
 * file is of another format, is skipped, or cannot be read.
 */
static int ingest_one(ingest_ctx *c, const char *path, int known)
{
    char errbuf[512];
    ls_input *in = NULL;
    run_file *f = NULL;
    const char *line;
    size_t len;
    uint64_t lineno = 0;
    int truncated, rc, show = c->opts->progress;

    errbuf[0] = '\0';
    if ((rc = ls_input_open(&in, path, errbuf, sizeof(errbuf))) != 0) {
        fprintf(stderr, "lockspan: %s\n", errbuf[0] ? errbuf : "out of memory");
        return rc;
    }
    if (known) {
        fprintf(stderr, "lockspan: %s: already in the store (same path and size); skipped\n",
                path);
        c->tot.skipped_files++;
        ls_input_close(in);
        return run_end(c, 0);
    }

    while ((rc = ls_input_next_line(in, &line, &len, &lineno, &truncated, errbuf,
                                    sizeof(errbuf))) == 1) {
        if (!f) {
            int score;
            const ls_parser_ops *ops = sniff_format(line, len, &score);
            if (!continues_run(c, path, ops, score)) {
                if ((rc = run_end(c, 0)) != 0)
                    break;
                if (!ops) {
                    if (!c->opts->quiet)
                        fprintf(stderr, "lockspan: %s: not recognised as a PostgreSQL log "
                                "or trace export; skipped\n", path);
                    c->tot.skipped_files++;
                    ls_input_close(in);
                    return 0;
                }
            } else {
                ops = c->ops;
            }
            if ((rc = run_add_file(c, ops, path, ls_input_is_gzip(in), errbuf,
                                   sizeof(errbuf))) != 0)
                break;
            f = &c->files[c->nfiles - 1];
        }
        c->run_lines = f->base + lineno;
        if (truncated)
            on_bad(c, path, c->run_lines, "line longer than 8 MiB, cut", line,
                   len > 80 ? 80 : len);
        if ((rc = c->ops->feed(c->parser, line, len, c->run_lines)) != 0 || (rc = c->rc) != 0)
            break;
        if (f->probe && lineno == PREFIX_PROBE_LINES && f->st.bad_lines == lineno) {
            rc = prefix_mismatch(c, path);
            break;
        }
        if (show && (lineno & 0x3ffff) == 0)
            progress(path, in, 0);
    }
    if (rc == LS_EIO && errbuf[0])
        fprintf(stderr, "lockspan: %s\n", errbuf);
    if (show)
        progress(path, in, 1);
    if (f) {
        f->st.lines = lineno;
        f->st.bytes = ls_input_raw_offset(in);
    } else if (rc == 0) {
        c->tot.files++; /* an empty file: nothing to store, the run goes on */
    }
    ls_input_close(in);
    return rc;
}

static void *parsing_thread(void *arg)
{
    ingest_ctx *c = arg;
    int i, rc = 0;
    for (i = 0; c->paths[i] && rc == 0; i++)
        rc = ingest_one(c, c->paths[i], c->known[i]);
    rc = run_end(c, rc);
    free(c->files);
    ls_handoff_close(c->handoff, rc);
    return NULL;
}

/* The calling thread: write every handed-off item to the store. */
static int store_items(ls_store *s, ls_handoff *h, const char *prefix)
{
    ls_batch *b;
    ls_item *it;
    int64_t *file_ids = NULL; /* store file_id by ordinal of FILE_BEGIN */
    size_t nfiles = 0, cap = 0;
    uint64_t since_commit = 0;
    int rc = 0;

    while ((b = ls_handoff_next(h)) != NULL) {
        for (it = ls_batch_first(b); it && rc == 0; it = ls_batch_next(b, it)) {
            if (it->type != LS_ITEM_FILE_BEGIN && it->file >= nfiles) {
                rc = LS_ERR; /* a FILE_BEGIN lost or out of order: a bug */
                break;
            }
            switch (it->type) {
            case LS_ITEM_EVENT:
                rc = ls_store_event(s, file_ids[it->file], it->ev);
                if (rc == 0 && ++since_commit >= BATCH_RECORDS) {
                    since_commit = 0;
                    if ((rc = ls_store_commit(s)) == 0)
                        rc = ls_store_begin(s);
                }
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
                rc = ls_store_file_begin(s, it->text, it->reason, prefix, it->gzip,
                                         &file_ids[nfiles++]);
                break;
            case LS_ITEM_FILE_END:
                rc = ls_store_file_end(s, file_ids[it->file], &it->stats);
                break;
            case LS_ITEM_SPAN:
                rc = ls_store_span(s, file_ids[it->file], it->span);
                break;
            case LS_ITEM_ACTIVITY:
                rc = ls_store_activity(s, file_ids[it->file], it->activity);
                break;
            }
        }
        if (rc == 0)
            rc = ls_store_flush(s); /* rows still point into the batch */
        ls_handoff_release(h, b);
        if (rc)
            ls_handoff_fail(h, rc); /* the parser stops; drain until it closes */
    }
    free(file_ids);
    return rc;
}

/* Mark the paths whose file (same path and size) the store already holds. */
static int find_known(ls_store *s, char *const *paths, unsigned char **out)
{
    size_t n = 0, i;
    struct stat st;
    while (paths[n])
        n++;
    *out = ls_calloc(n + 1, 1);
    if (!*out)
        return LS_ENOMEM;
    for (i = 0; i < n; i++)
        if (strcmp(paths[i], "-") != 0 && stat(paths[i], &st) == 0 && st.st_size > 0 &&
            ls_store_file_known(s, paths[i], (uint64_t)st.st_size))
            (*out)[i] = 1;
    return 0;
}

int ls_ingest_paths(ls_store *store, char *const *paths, const ls_ingest_opts *opts,
                    ls_ingest_totals *totals)
{
    ingest_ctx c;
    unsigned char *known = NULL;
    pthread_t thread;
    int rc, rc2;

    memset(&c, 0, sizeof(c));
    memset(totals, 0, sizeof(*totals));
    c.opts = opts;
    c.paths = paths;
    if ((rc = find_known(store, paths, &known)) != 0)
        return rc;
    c.known = known;
    if ((rc = ls_classifier_new(&c.cls)) != 0 || (rc = ls_handoff_new(&c.handoff)) != 0)
        goto out;
    if ((rc = ls_store_begin(store)) != 0)
        goto out;
    if (pthread_create(&thread, NULL, parsing_thread, &c) != 0) {
        ls_store_exec(store, "ROLLBACK");
        rc = LS_ENOMEM;
        goto out;
    }
    rc = store_items(store, c.handoff, opts->prefix);
    pthread_join(thread, NULL);
    if (rc == 0)
        rc = ls_handoff_producer_rc(c.handoff);
    *totals = c.tot;
    rc2 = rc == 0 ? ls_store_commit(store) : ls_store_exec(store, "ROLLBACK");
    if (rc == 0)
        rc = rc2;
    if (rc == 0)
        rc = ls_store_index(store);
out:
    ls_handoff_free(c.handoff);
    ls_classifier_free(c.cls);
    free(known);
    return rc;
}
