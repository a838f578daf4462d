/*
 * ingest.c — the ingest driver: for each input file, pick the parser for
 * its format, frame lines, classify each record and write events to the
 * store in batched transactions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ls_classify.h"
#include "ls_ingest.h"
#include "ls_input.h"
#include "ls_parser.h"

#define BATCH_RECORDS 50000
#define BAD_SAMPLES_STORED 100
#define PREFIX_PROBE_LINES 50

typedef struct ingest_ctx {
    ls_store *store;
    ls_classifier *cls;
    const ls_ingest_opts *opts;
    int64_t file_id;
    ls_file_stats st;
    uint64_t events;
    uint64_t since_commit;
    int rc; /* first fatal error seen in a callback */
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
    c->events++;
    if ((rc = ls_store_event(c->store, c->file_id, &ev)) != 0)
        return c->rc = rc;
    if (++c->since_commit >= BATCH_RECORDS) {
        c->since_commit = 0;
        if ((rc = ls_store_commit(c->store)) != 0 || (rc = ls_store_begin(c->store)) != 0)
            return c->rc = rc;
    }
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
        int rc = ls_store_bad_line(c->store, c->file_id, line, reason, text, len);
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
            "lockspan: %s: no line matches log_line_prefix '%s'; pass the server's value "
            "with --prefix (SHOW log_line_prefix), e.g. --prefix '%%m [%%p] %%q%%u@%%d '\n",
            path, c->opts->prefix ? c->opts->prefix : "%m [%p] ");
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

static int ingest_one(ingest_ctx *c, const char *path, ls_ingest_totals *tot)
{
    char errbuf[512];
    ls_input *in = NULL;
    void *parser = NULL;
    const ls_parser_ops *ops = NULL;
    ls_parse_opts popts;
    ls_sink sink = {on_record, on_bad, on_note, c};
    const char *line, *format = NULL;
    size_t len;
    uint64_t lineno = 0;
    int truncated, rc, show = c->opts->progress;

    errbuf[0] = '\0';
    if ((rc = ls_input_open(&in, path, errbuf, sizeof(errbuf))) != 0) {
        fprintf(stderr, "lockspan: %s\n", errbuf[0] ? errbuf : "out of memory");
        return rc;
    }
    if (strcmp(path, "-") != 0 && ls_input_raw_size(in) > 0 &&
        ls_store_file_known(c->store, path, ls_input_raw_size(in))) {
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
            if ((rc = ls_store_file_begin(c->store, path, format, c->opts->prefix,
                                          ls_input_is_gzip(in), &c->file_id)) != 0)
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
        if (lineno == PREFIX_PROBE_LINES && c->st.bad_lines == lineno) {
            rc = prefix_mismatch(c, path);
            break;
        }
        if (show && (lineno & 0x3ffff) == 0)
            progress(path, in, 0);
    }
    if (rc == 0 && parser)
        rc = ops->finish(parser);
    if (rc == 0 && lineno > 0 && lineno < PREFIX_PROBE_LINES && c->st.bad_lines == lineno)
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
        rc = ls_store_file_end(c->store, c->file_id, &c->st);
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

int ls_ingest_paths(ls_store *store, char *const *paths, const ls_ingest_opts *opts,
                    ls_ingest_totals *totals)
{
    ingest_ctx c;
    int rc, rc2;

    memset(&c, 0, sizeof(c));
    memset(totals, 0, sizeof(*totals));
    c.store = store;
    c.opts = opts;
    if ((rc = ls_classifier_new(&c.cls)) != 0)
        return rc;
    if ((rc = ls_store_begin(store)) != 0) {
        ls_classifier_free(c.cls);
        return rc;
    }
    for (; *paths && rc == 0; paths++)
        rc = ingest_one(&c, *paths, totals);
    totals->events = c.events;
    rc2 = rc == 0 ? ls_store_commit(store) : ls_store_exec(store, "ROLLBACK");
    if (rc == 0)
        rc = rc2;
    if (rc == 0)
        rc = ls_store_index(store);
    ls_classifier_free(c.cls);
    return rc;
}
