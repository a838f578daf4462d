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

/* The parsing thread's state. */
typedef struct ingest_ctx {
    ls_handoff *handoff;
    ls_classifier *cls;
    const ls_ingest_opts *opts;
    char *const *paths;
    const unsigned char *known; /* per path: already in the store, skip */
    ls_ingest_totals tot;
    ls_file_stats st;           /* of the file being read */
    int rc;                     /* first fatal error seen in a callback */
} ingest_ctx;

static int on_record(void *vctx, const ls_record *rec)
{
    ingest_ctx *c = vctx;
    ls_event ev;
    int rc;

    c->st.records++;
    if (rec->ts != LS_TS_NONE) {
        if (c->st.first_ts == LS_TS_NONE || rec->ts < c->st.first_ts)
            c->st.first_ts = rec->ts;
        if (c->st.last_ts == LS_TS_NONE || rec->ts > c->st.last_ts)
            c->st.last_ts = rec->ts;
    }
    if ((rc = ls_classify(c->cls, rec, &ev)) != 0)
        return c->rc = rc;
    if (ev.kind == LS_EV_OTHER)
        return 0;
    c->tot.events++;
    if ((rc = ls_handoff_event(c->handoff, &ev)) != 0)
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
    (void)vctx;
    fprintf(stderr, "lockspan: %s: %s\n", file, msg);
}

static void on_bad(void *vctx, const char *file, uint64_t line, const char *reason,
                   const char *text, size_t len)
{
    ingest_ctx *c = vctx;
    c->st.bad_lines++;
    if (c->st.bad_lines <= (uint64_t)c->opts->max_bad_shown) {
        fprintf(stderr, "lockspan: %s:%llu: %s: ", file, (unsigned long long)line, reason);
        print_sample(stderr, text, len);
        fputc('\n', stderr);
    }
    if (c->st.bad_lines <= BAD_SAMPLES_STORED && c->rc == 0) {
        int rc = ls_handoff_bad(c->handoff, line, reason, text, len > 300 ? 300 : len);
        if (rc)
            c->rc = rc;
    }
}

/* The parser most confident about a file's first line, or NULL. */
static const ls_parser_ops *sniff_format(const char *line, size_t len)
{
    const ls_parser_ops *best = NULL;
    int i, score, best_score = 0;
    for (i = 0; ls_parsers[i]; i++) {
        score = ls_parsers[i]->sniff(line, len);
        if (score > best_score) {
            best = ls_parsers[i];
            best_score = score;
        }
    }
    return best;
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

static int ingest_one(ingest_ctx *c, const char *path, int known)
{
    ls_ingest_totals *tot = &c->tot;
    char errbuf[512];
    ls_input *in = NULL;
    void *parser = NULL;
    const ls_parser_ops *ops = NULL;
    ls_parse_opts popts;
    ls_sink sink = {on_record, on_bad, on_note, c, NULL};
    const char *line, *format = NULL;
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
        tot->skipped_files++;
        ls_input_close(in);
        return 0;
    }
    memset(&c->st, 0, sizeof(c->st));
    c->st.first_ts = c->st.last_ts = LS_TS_NONE;

    while ((rc = ls_input_next_line(in, &line, &len, &lineno, &truncated, errbuf,
                                    sizeof(errbuf))) == 1) {
        if (!format) {
            ops = sniff_format(line, len);
            if (!ops) {
                fprintf(stderr, "lockspan: %s: not recognised as a PostgreSQL log; "
                        "skipped\n", path);
                tot->skipped_files++;
                ls_input_close(in);
                return 0;
            }
            format = ops->name;
            popts.file = path;
            popts.prefix = c->opts->prefix;
            if ((rc = ls_handoff_file_begin(c->handoff, path, format,
                                            ls_input_is_gzip(in))) != 0)
                break;
            if ((rc = ops->create(&parser, &popts, &sink, errbuf, sizeof(errbuf))) != 0) {
                fprintf(stderr, "lockspan: %s\n", errbuf[0] ? errbuf : "out of memory");
                break;
            }
        }
        if (truncated)
            on_bad(c, path, lineno, "line longer than 8 MiB, cut", line, len > 80 ? 80 : len);
        if ((rc = ops->feed(parser, line, len, lineno)) != 0 || (rc = c->rc) != 0)
            break;
        if (ops == &ls_stderr_parser && lineno == PREFIX_PROBE_LINES &&
            c->st.bad_lines == lineno) {
            rc = prefix_mismatch(c, path);
            break;
        }
        if (show && (lineno & 0x3ffff) == 0)
            progress(path, in, 0);
    }
    if (rc == 0 && parser)
        rc = ops->finish(parser);
    if (rc == 0 && ops == &ls_stderr_parser && lineno > 0 && lineno < PREFIX_PROBE_LINES &&
        c->st.bad_lines == lineno)
        rc = prefix_mismatch(c, path);
    if (rc == 0)
        rc = c->rc;
    if (rc == LS_EIO && errbuf[0])
        fprintf(stderr, "lockspan: %s\n", errbuf);
    if (show)
        progress(path, in, 1);
    c->st.lines = lineno;
    c->st.bytes = ls_input_raw_offset(in);
    if (rc == 0 && format)
        rc = ls_handoff_file_end(c->handoff, &c->st);
    if (rc == 0) {
        tot->files++;
        tot->bytes += c->st.bytes;
        tot->lines += c->st.lines;
        tot->records += c->st.records;
        tot->bad_lines += c->st.bad_lines;
        if (c->st.bad_lines > (uint64_t)c->opts->max_bad_shown)
            fprintf(stderr, "lockspan: %s: %llu lines could not be parsed (first %d shown)\n",
                    path, (unsigned long long)c->st.bad_lines, c->opts->max_bad_shown);
    }
    if (parser)
        ops->destroy(parser);
    ls_input_close(in);
    return rc;
}

static void *parsing_thread(void *arg)
{
    ingest_ctx *c = arg;
    int i, rc = 0;
    for (i = 0; c->paths[i] && rc == 0; i++)
        rc = ingest_one(c, c->paths[i], c->known[i]);
    ls_handoff_close(c->handoff, rc);
    return NULL;
}

/* The calling thread: write every handed-off item to the store. */
static int store_items(ls_store *s, ls_handoff *h, const char *prefix)
{
    ls_batch *b;
    ls_item *it;
    int64_t file_id = 0;
    uint64_t since_commit = 0;
    int rc = 0;

    while ((b = ls_handoff_next(h)) != NULL) {
        for (it = ls_batch_first(b); it && rc == 0; it = ls_batch_next(b, it)) {
            switch (it->type) {
            case LS_ITEM_EVENT:
                rc = ls_store_event(s, file_id, it->ev);
                if (rc == 0 && ++since_commit >= BATCH_RECORDS) {
                    since_commit = 0;
                    if ((rc = ls_store_commit(s)) == 0)
                        rc = ls_store_begin(s);
                }
                break;
            case LS_ITEM_BAD:
                rc = ls_store_bad_line(s, file_id, it->line, it->reason, it->text, it->len);
                break;
            case LS_ITEM_FILE_BEGIN:
                rc = ls_store_file_begin(s, it->text, it->reason, prefix, it->gzip, &file_id);
                break;
            case LS_ITEM_FILE_END:
                rc = ls_store_file_end(s, file_id, &it->stats);
                break;
            }
        }
        if (rc == 0)
            rc = ls_store_flush(s); /* rows still point into the batch */
        ls_handoff_release(h, b);
        if (rc)
            ls_handoff_fail(h, rc); /* the parser stops; drain until it closes */
    }
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
