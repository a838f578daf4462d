/*
 * fuzz_e2e.c — a libFuzzer target for the whole pipeline, as `lockspan
 * analyze` runs it: the input's bytes become up to LS_FUZZ_MAX_FILES files
 * (split at lines reading exactly FILE_SEP, so that a log, a snapshot and a
 * trace export can be analyzed together), which are ingested into an
 * in-memory store with the format of each recognised from its content and
 * the log_line_prefix inferred; the store is correlated and the report
 * model rendered as JSON, Markdown and HTML.
 *
 * Checks beyond the sanitizers: the JSON report must parse back as JSON.
 * LOCKSPAN_FUZZ_DEBUG=1 prints what each input gave (records, waits, links).
 * Ingest errors that the CLI reports and exits on (a prefix that cannot be
 * inferred, a corrupt gzip) end the run for that input, as they end the CLI.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "ls_correlate.h"
#include "ls_ingest.h"
#include "ls_report.h"
#include "ls_store.h"

#define LS_FUZZ_MAX_FILES 4
#define FILE_SEP "#lockspan-fuzz-next-file"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Stop on a failed check, saying why on stdout: tests/fuzz/run.sh closes the
 * target's stderr (-close_fd_mask=2, lockspan's warnings), and a bare abort()
 * leaves only libFuzzer's "deadly signal" in the log. */
static void die(const char *what, int rc, const char *detail)
{
    printf("fuzz_e2e: %s (rc %d): %s\n", what, rc, detail ? detail : "");
    fflush(stdout);
    abort();
}

/* A store error that is the machine's, not the input's: the disk this
 * machine shares with others filled (SQLite's temporary files; the store
 * says "no space left" for SQLITE_FULL) or failed under it. */
static int machine_failed(ls_store *store)
{
    const char *m = ls_store_errmsg(store);
    return m && (strstr(m, "no space left") || strstr(m, "disk I/O error"));
}

/* Write `n` bytes to a new temporary file; its name goes to `name` (caller
 * unlinks). -1 with errno set when it cannot. */
static int write_temp(char name[64], const char *p, size_t n)
{
    const char *dir = getenv("TMPDIR");
    int fd;
    size_t off = 0;

    snprintf(name, 64, "%.40s/lsfuzz-XXXXXX", dir && dir[0] && strlen(dir) < 40 ? dir : "/tmp");
    fd = mkstemp(name);
    if (fd < 0)
        return -1;
    while (off < n) {
        ssize_t w = write(fd, p + off, n - off);
        if (w <= 0) {
            int e = w < 0 ? errno : EIO;
            close(fd);
            unlink(name);
            errno = e;
            return -1;
        }
        off += (size_t)w;
    }
    close(fd);
    return 0;
}

/* Render with `fn` into memory; the text (or NULL) is returned for the caller to free. */
static char *render(int (*fn)(const cJSON *, FILE *), const cJSON *model)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        die("open_memstream", 0, NULL);
    if (fn(model, f) != 0) {
        fclose(f);
        free(buf);
        return NULL;
    }
    fclose(f);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char names[LS_FUZZ_MAX_FILES][64];
    char *paths[LS_FUZZ_MAX_FILES + 1];
    const char *p = (const char *)data, *end = p + size;
    const size_t seplen = strlen(FILE_SEP);
    ls_ingest_opts io;
    ls_ingest_totals tot;
    ls_correlate_stats cs;
    ls_report_opts ro;
    ls_store *store = NULL;
    cJSON *model = NULL;
    char errbuf[512];
    int nfiles = 0, i, rc;

    memset(&io, 0, sizeof(io)); /* no prefix (inferred), no progress, no bad lines shown */
    io.quiet = 1;
    /* Cut the input into files at separator lines. */
    while (p < end && nfiles < LS_FUZZ_MAX_FILES) {
        const char *q = p, *cut = end, *next = end;
        while (q < end) {
            const char *nl = memchr(q, '\n', (size_t)(end - q));
            const char *le = nl ? nl : end;
            if ((size_t)(le - q) == seplen && memcmp(q, FILE_SEP, seplen) == 0 &&
                nfiles + 1 < LS_FUZZ_MAX_FILES) {
                cut = q;
                next = nl ? nl + 1 : end;
                break;
            }
            q = nl ? nl + 1 : end;
        }
        if (write_temp(names[nfiles], p, (size_t)(cut - p)) != 0) {
            int e = errno;
            if (e != ENOSPC && e != EDQUOT)
                die("cannot write a temporary file", e, strerror(e));
            /* The shared disk is full: no input of lockspan's to blame. */
            printf("fuzz_e2e: input skipped: %s\n", strerror(e));
            for (i = 0; i < nfiles; i++)
                unlink(names[i]);
            return 0;
        }
        paths[nfiles] = names[nfiles];
        nfiles++;
        p = next;
    }
    paths[nfiles] = NULL;
    if (nfiles == 0)
        return 0;

    if (ls_store_open(&store, ":memory:", errbuf, sizeof(errbuf)) != 0)
        die("store open", 0, errbuf);

    rc = ls_ingest_paths(store, paths, &io, &tot);
    if ((rc == LS_ESTORE || rc == LS_ENOMEM) && !machine_failed(store)) {
        /* The CLI's "store error": a bug unless SQLite ran out of something. */
        die("ingest: store error", rc, ls_store_errmsg(store));
    }
    if (rc == 0 && (rc = ls_correlate(store, &cs)) != 0 && !machine_failed(store))
        die("correlate", rc, ls_store_errmsg(store));
    if (rc == 0 && getenv("LOCKSPAN_FUZZ_DEBUG"))
        fprintf(stderr,
                "fuzz_e2e: %d files, %llu records, %llu events; %lld waits, "
                "%lld linked, %lld transactions, %lld holds, %lld span links\n",
                nfiles, (unsigned long long)tot.records, (unsigned long long)tot.events,
                (long long)cs.waits, (long long)cs.linked, (long long)cs.transactions,
                (long long)cs.holds, (long long)cs.span_links);
    if (rc == 0) {
        memset(&ro, 0, sizeof(ro));
        ro.generated_at = "fuzz";
        if ((rc = ls_report_build(store, &ro, &model)) != 0 && !machine_failed(store))
            die("report", rc, ls_store_errmsg(store));
    }
    if (rc == 0) {
        char *json = render(ls_report_write_json, model);
        char *md = render(ls_report_write_markdown, model);
        char *html = render(ls_report_write_html, model);
        cJSON *back;

        if (!json || !md || !html)
            die("a renderer failed", 0, !json ? "json" : !md ? "markdown" : "html");
        if (!(back = cJSON_Parse(json)))
            die("the JSON report does not parse", 0, NULL);
        cJSON_Delete(back);
        free(json);
        free(md);
        free(html);
        cJSON_Delete(model);
    } else if (machine_failed(store)) {
        printf("fuzz_e2e: input skipped: %s\n", ls_store_errmsg(store));
    }
    ls_store_close(store);
    for (i = 0; i < nfiles; i++)
        unlink(names[i]);
    return 0;
}
