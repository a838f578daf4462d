/*
 * main.c — command-line handling only: parse arguments, call the
 * pipeline stages, map failures to exit codes (0 ok, 1 failure, 2 usage or
 * a --db that is not a lockspan store).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ls_common.h"
#include "ls_correlate.h"
#include "ls_ingest.h"
#include "ls_input.h"
#include "ls_report.h"
#include "ls_store.h"

#define EXIT_USAGE 2

static const char usage_main[] =
    "usage: lockspan <command> [options] ...\n"
    "\n"
    "Who held the lock, and why so long? lockspan reads PostgreSQL server logs,\n"
    "links every lock wait to the transaction that blocked it, and reports hot\n"
    "rows, root blockers, deadlocks and timeouts.\n"
    "\n"
    "commands:\n"
    "  analyze [options] PATH...   ingest, correlate and write a report in one go\n"
    "  ingest --db FILE PATH...    add logs to a store (for nightly jobs)\n"
    "  report --db FILE            correlate a store and write a report\n"
    "  help [command]              show help for a command\n"
    "  version                     print the version\n"
    "\n"
    "PATH is a log file (plain or .gz), a directory (its *.log/*.csv/*.json[.gz]\n"
    "files in name order) or - for standard input.\n"
    "Run 'lockspan <command> --help' for the options of a command.\n";

static const char usage_analyze[] =
    "usage: lockspan analyze [options] PATH...\n"
    "\n"
    "Ingest the logs into a fresh store, link waits to blockers and write a report.\n"
    "\n"
    "options:\n"
    "  --db FILE            store to build, in FILE.lockspan-PID.tmp renamed to FILE\n"
    "                       at the end; an existing FILE must be a lockspan store\n"
    "                       (else exit 2). Default: a temporary store removed at exit\n"
    "  --prefix PREFIX      log_line_prefix exactly as in postgresql.conf\n"
    "                       (default '%m [%p] ', PostgreSQL's own default)\n"
    "  --format md|json|html  report format (default: from -o's extension, else md)\n"
    "  -o, --output FILE    report file, - for stdout; repeat it for several formats\n"
    "                       from one correlation (each from its extension)\n"
    "                       (default lockspan-report.md / .json / .html)\n"
    "  --title TEXT         report title\n"
    "  --top N              rows in ranked sections (default 10)\n"
    "  --max-waits N        waits listed one by one (default 1000; totals stay exact)\n"
    "  --generated-at TEXT  fixed 'generated at' text for reproducible reports\n"
    "  --group-by WHAT      name code paths by function (default), route, service,\n"
    "                       application or statement\n"
    "  --since TIME         only waits, errors and deadlocks at or after TIME\n"
    "  --until TIME         ... and at or before TIME (ISO 8601, UTC unless a zone\n"
    "                       is given: 2026-12-02T11:45:00Z, '2026-12-02 11:45')\n"
    "  --relation NAME      only waits for rows of this relation\n"
    "  --database NAME      only sessions of this database\n"
    "  --code-path NAME     only waits whose waiter or holder runs this code path\n"
    "                       (a function, route, service or application name)\n"
    "  -q, --quiet          no progress or summary on stderr\n";

static const char usage_ingest[] =
    "usage: lockspan ingest --db FILE [--prefix PREFIX] PATH...\n"
    "\n"
    "Add logs to a store, creating it if needed. Run 'lockspan report' on it later.\n"
    "\n"
    "options:\n"
    "  --db FILE            the store (required)\n"
    "  --prefix PREFIX      log_line_prefix exactly as in postgresql.conf\n"
    "  --busy-timeout SEC   wait this long for a store another process uses (default 60)\n"
    "  -q, --quiet          no progress or summary on stderr\n"
    "\n"
    "A file already in the store (found by its content, whatever its name or\n"
    "compression) is read on from where the store ends; nothing is added twice.\n";

static const char usage_report[] =
    "usage: lockspan report --db FILE [--format md|json|html] [-o FILE]\n"
    "\n"
    "Link waits to blockers in a store and write a report (default: stdout).\n"
    "\n"
    "options:\n"
    "  --db FILE            the store (required)\n"
    "  --format md|json|html  report format (default: from -o's extension, else md)\n"
    "  -o, --output FILE    report file (default -, stdout); repeat it for several\n"
    "                       formats (each from its extension)\n"
    "  --title TEXT, --top N, --max-waits N, --generated-at TEXT, --group-by WHAT\n"
    "                       as for analyze\n"
    "  --since TIME, --until TIME, --relation NAME, --database NAME, --code-path NAME\n"
    "                       as for analyze\n"
    "  --busy-timeout SEC   wait this long for a store another process uses (default 60)\n";

#define MAX_OUTPUTS 8

typedef struct cli {
    const char *command;
    const char *db;
    const char *prefix;
    const char *format;
    int format_given; /* --format was given: -o's extension does not decide */
    const char *outputs[MAX_OUTPUTS]; /* -o, in order: one correlation writes them all */
    int noutputs;
    int quiet;
    int busy_ms;
    ls_report_opts report;
    char **paths;
    int npaths;
} cli;

enum {
    OPT_DB = 256, OPT_PREFIX, OPT_FORMAT, OPT_TITLE, OPT_TOP, OPT_MAX_WAITS, OPT_GENERATED, OPT_GROUP_BY,
    OPT_SINCE, OPT_UNTIL, OPT_RELATION, OPT_DATABASE, OPT_CODE_PATH, OPT_BUSY
};

static const struct option long_opts[] = {
    {"db", required_argument, NULL, OPT_DB},
    {"prefix", required_argument, NULL, OPT_PREFIX},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"output", required_argument, NULL, 'o'},
    {"title", required_argument, NULL, OPT_TITLE},
    {"top", required_argument, NULL, OPT_TOP},
    {"max-waits", required_argument, NULL, OPT_MAX_WAITS},
    {"generated-at", required_argument, NULL, OPT_GENERATED},
    {"group-by", required_argument, NULL, OPT_GROUP_BY},
    {"since", required_argument, NULL, OPT_SINCE},
    {"until", required_argument, NULL, OPT_UNTIL},
    {"relation", required_argument, NULL, OPT_RELATION},
    {"database", required_argument, NULL, OPT_DATABASE},
    {"code-path", required_argument, NULL, OPT_CODE_PATH},
    {"busy-timeout", required_argument, NULL, OPT_BUSY},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int parse_count(const char *s, const char *opt, int *out)
{
    char *end;
    long v;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || *end || v < 1 || v > 1000000) {
        fprintf(stderr, "lockspan: %s takes a whole number from 1 to 1000000, not '%s'\n", opt,
                s);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* ISO time ("2026-12-02T11:45:00Z", "2026-12-02 11:45:00+03", a date
 * alone); UTC unless a zone is given. */
static int parse_time(const char *s, const char *opt, int64_t *out)
{
    char buf[64];
    ls_ts t;
    size_t n = strlen(s);
    if (n == 10 && n + 9 < sizeof(buf)) {
        snprintf(buf, sizeof(buf), "%s 00:00:00", s);
        s = buf;
        n = strlen(buf);
    } else if (n == 16 && n + 3 < sizeof(buf)) {
        snprintf(buf, sizeof(buf), "%s:00", s);
        s = buf;
        n = strlen(buf);
    }
    if (ls_ts_parse(&t, s, n) != 0) {
        fprintf(stderr, "lockspan: %s takes an ISO time such as 2026-12-02T11:45:00Z, not '%s'\n",
                opt, s);
        return -1;
    }
    *out = t;
    return 0;
}

/* The format a path's extension names, or NULL. */
static const char *format_of_path(const char *path)
{
    size_t n = strlen(path);
    if (n >= 5 && strcmp(path + n - 5, ".html") == 0)
        return "html";
    if (n >= 4 && strcmp(path + n - 4, ".htm") == 0)
        return "html";
    if (n >= 5 && strcmp(path + n - 5, ".json") == 0)
        return "json";
    if ((n >= 3 && strcmp(path + n - 3, ".md") == 0) ||
        (n >= 9 && strcmp(path + n - 9, ".markdown") == 0))
        return "md";
    return NULL;
}

/*
 * An output's format: --format with a single -o; else the output's
 * extension (-o a.html -o a.json writes both from one correlation), else
 * --format, else Markdown.
 */
static const char *output_format(const cli *c, const char *path)
{
    const char *ext = format_of_path(path);
    if (c->format_given && (c->noutputs <= 1 || !ext))
        return c->format;
    return ext ? ext : "md";
}

static const char *usage_for(const char *cmd)
{
    if (!cmd)
        return usage_main;
    if (strcmp(cmd, "analyze") == 0)
        return usage_analyze;
    if (strcmp(cmd, "ingest") == 0)
        return usage_ingest;
    if (strcmp(cmd, "report") == 0)
        return usage_report;
    return NULL;
}

/* Returns 0 to go on, 1 when help was printed, EXIT_USAGE on bad arguments. */
static int parse_args(cli *c, int argc, char **argv)
{
    int opt;
    const char *usage = usage_for(c->command);

    optind = 1;
    while ((opt = getopt_long(argc, argv, "o:qh", long_opts, NULL)) != -1) {
        switch (opt) {
        case OPT_DB: c->db = optarg; break;
        case OPT_PREFIX: c->prefix = optarg; break;
        case OPT_FORMAT:
            if (strcmp(optarg, "md") && strcmp(optarg, "markdown") && strcmp(optarg, "json") &&
                strcmp(optarg, "html")) {
                fprintf(stderr, "lockspan: --format must be md, json or html, not '%s'\n",
                        optarg);
                return EXIT_USAGE;
            }
            c->format_given = 1;
            c->format = strcmp(optarg, "json") == 0   ? "json"
                        : strcmp(optarg, "html") == 0 ? "html"
                                                      : "md";
            break;
        case 'o':
            if (c->noutputs == MAX_OUTPUTS) {
                fprintf(stderr, "lockspan: at most %d -o outputs\n", MAX_OUTPUTS);
                return EXIT_USAGE;
            }
            c->outputs[c->noutputs++] = optarg;
            break;
        case OPT_TITLE: c->report.title = optarg; break;
        case OPT_TOP:
            if (parse_count(optarg, "--top", &c->report.top))
                return EXIT_USAGE;
            break;
        case OPT_MAX_WAITS:
            if (parse_count(optarg, "--max-waits", &c->report.max_waits))
                return EXIT_USAGE;
            break;
        case OPT_GENERATED: c->report.generated_at = optarg; break;
        case OPT_GROUP_BY:
            if (strcmp(optarg, "function") && strcmp(optarg, "route") && strcmp(optarg, "service") &&
                strcmp(optarg, "application") && strcmp(optarg, "statement")) {
                fprintf(stderr, "lockspan: --group-by must be function, route, service, "
                                "application or statement, not '%s'\n", optarg);
                return EXIT_USAGE;
            }
            c->report.group_by = optarg;
            break;
        case OPT_SINCE:
            if (parse_time(optarg, "--since", &c->report.since))
                return EXIT_USAGE;
            break;
        case OPT_UNTIL:
            if (parse_time(optarg, "--until", &c->report.until))
                return EXIT_USAGE;
            break;
        case OPT_RELATION: c->report.relation = optarg; break;
        case OPT_DATABASE: c->report.database = optarg; break;
        case OPT_CODE_PATH: c->report.code_path = optarg; break;
        case OPT_BUSY: {
            int sec;
            if (strcmp(optarg, "0") == 0)
                sec = 0;
            else if (parse_count(optarg, "--busy-timeout", &sec))
                return EXIT_USAGE;
            c->busy_ms = sec * 1000;
            break;
        }
        case 'q': c->quiet = 1; break;
        case 'h': fputs(usage, stdout); return 1;
        default:
            fprintf(stderr, "Run 'lockspan %s --help' for usage.\n", c->command);
            return EXIT_USAGE;
        }
    }
    c->paths = argv + optind;
    c->npaths = argc - optind;
    return 0;
}

static int fail(const char *what, int rc, ls_store *s)
{
    if (rc == LS_ESTORE)
        fprintf(stderr, "lockspan: %s: store error: %s\n", what, ls_store_errmsg(s));
    else if (rc == LS_ENOMEM)
        fprintf(stderr, "lockspan: %s: out of memory\n", what);
    return 1;
}

static int do_ingest(cli *c, ls_store *s)
{
    char errbuf[512] = "";
    char **files = NULL;
    /* ingest keeps adding to its store: a line still being written waits
     * for the next run; analyze reads everything there is. */
    ls_ingest_opts io = {c->prefix, !c->quiet && isatty(STDERR_FILENO), 10, c->quiet,
                         strcmp(c->command, "ingest") == 0};
    ls_ingest_totals t;
    int rc;

    if ((rc = ls_paths_expand(&files, c->paths, c->npaths, errbuf, sizeof(errbuf))) != 0) {
        fprintf(stderr, "lockspan: %s\n", errbuf);
        return 1;
    }
    rc = ls_ingest_paths(s, files, &io, &t);
    ls_paths_free(files);
    if (rc)
        return rc == LS_EIO || rc == LS_EFORMAT ? 1 : fail("ingest", rc, s);
    if (!c->quiet)
        fprintf(stderr,
                "lockspan: ingested %llu files, %llu lines, %llu records (%llu events), "
                "%llu unparsable lines\n",
                (unsigned long long)t.files, (unsigned long long)t.lines,
                (unsigned long long)t.records, (unsigned long long)t.events,
                (unsigned long long)t.bad_lines);
    return 0;
}

/* "<path>.lockspan-<pid>.tmp": a file of ours beside `path`, renamed over it when whole. */
static int temp_name(char *buf, size_t n, const char *path)
{
    int len = snprintf(buf, n, "%s.lockspan-%ld.tmp", path, (long)getpid());
    return len < 0 || (size_t)len >= n ? -1 : 0;
}

/*
 * Remove the temporary files of ours beside `path` (a store or report being
 * built, its journal) that a process left when it was killed: their names
 * carry the pid, and that process no longer runs.
 */
static void remove_stale_temps(const char *path)
{
    char dir[4096], full[4096 + 256];
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    size_t blen = strlen(base);
    struct dirent *e;
    DIR *d;

    snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + 1 : 2, slash ? path : "./");
    if (!(d = opendir(dir)))
        return;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name, *p;
        char *end;
        long pid;
        if (strncmp(n, base, blen) != 0 || strncmp(n + blen, ".lockspan-", 10) != 0)
            continue;
        p = n + blen + 10;
        errno = 0;
        pid = strtol(p, &end, 10);
        if (end == p || pid <= 0 || errno ||
            (strcmp(end, ".tmp") != 0 && strcmp(end, ".tmp-journal") != 0))
            continue;
        if (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        snprintf(full, sizeof(full), "%s%s", dir, n);
        unlink(full);
    }
    closedir(d);
}

/*
 * Write the report to `out`: to a temporary file beside it, renamed over it
 * once complete, so that a full disk or a kill never leaves a cut report
 * (or destroys the previous one). Special files (/dev/stdout, a pipe) are
 * written directly.
 */
static int write_report(const char *format, cJSON *model, const char *out)
{
    char tmp[4096 + 64] = "";
    struct stat st;
    FILE *f;
    int rc;

    if (strcmp(out, "-") == 0) {
        f = stdout;
    } else if (stat(out, &st) == 0 && !S_ISREG(st.st_mode)) {
        f = fopen(out, "w");
    } else {
        int fd = -1;
        remove_stale_temps(out);
        if (temp_name(tmp, sizeof(tmp), out) == 0) {
            unlink(tmp);
            fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        }
        f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!f && fd >= 0)
            close(fd);
    }
    if (!f) {
        fprintf(stderr, "lockspan: %s: cannot write report: %s\n", out, strerror(errno));
        if (tmp[0])
            unlink(tmp);
        return 1;
    }
    rc = strcmp(format, "json") == 0   ? ls_report_write_json(model, f)
         : strcmp(format, "html") == 0 ? ls_report_write_html(model, f)
                                          : ls_report_write_markdown(model, f);
    errno = 0;
    if (f != stdout) {
        if (fflush(f) != 0 || ferror(f))
            rc = LS_EIO;
        if (fclose(f) != 0)
            rc = LS_EIO;
    } else if (fflush(f) != 0) {
        rc = LS_EIO;
    }
    if (rc == 0 && tmp[0] && rename(tmp, out) != 0)
        rc = LS_EIO;
    if (rc) {
        fprintf(stderr, "lockspan: %s: cannot write report%s%s%s\n", out,
                errno ? ": " : "", errno ? strerror(errno) : "",
                tmp[0] ? " (nothing written; an older report there is kept)" : "");
        if (tmp[0])
            unlink(tmp);
        return 1;
    }
    return 0;
}

/*
 * Correlate (unless the store already is, with nothing ingested since),
 * build the report once and write each output from it; without -o, to
 * default_out.
 */
static int do_report(cli *c, ls_store *s, const char *default_out)
{
    ls_correlate_stats cs;
    cJSON *model = NULL;
    int rc, ran, i, n = c->noutputs ? c->noutputs : 1;

    if ((rc = ls_correlate_current(s, &cs, &ran)) != 0)
        return fail("correlate", rc, s);
    if (!c->quiet)
        fprintf(stderr, "lockspan: %lld waits, %lld linked to a blocker, %lld through a chain%s\n",
                (long long)cs.waits, (long long)cs.linked, (long long)cs.chained,
                ran ? "" : " (the store was correlated after its last ingest: reused)");
    if ((rc = ls_report_build(s, &c->report, &model)) != 0)
        return fail("report", rc, s);
    for (i = 0; i < n && rc == 0; i++) {
        const char *out = c->noutputs ? c->outputs[i] : default_out;
        rc = write_report(output_format(c, out), model, out);
        if (rc == 0 && !c->quiet && strcmp(out, "-") != 0)
            fprintf(stderr, "lockspan: report written to %s\n", out);
    }
    cJSON_Delete(model);
    return rc;
}

/*
 * An existing, non-empty --db must be a lockspan store: anything else (a
 * log, another database) is refused with EXIT_USAGE and never touched.
 */
static int check_store_path(const char *path)
{
    char errbuf[512] = "";
    struct stat st;
    int r;
    if (stat(path, &st) != 0)
        return 0;
    if (!S_ISREG(st.st_mode)) {
        fprintf(stderr, "lockspan: --db %s: not a regular file; give a lockspan store or a "
                        "new file name\n", path);
        return EXIT_USAGE;
    }
    if (st.st_size == 0)
        return 0;
    r = ls_store_probe(path, errbuf, sizeof(errbuf));
    if (r < 0) {
        fprintf(stderr, "lockspan: --db %s\n", errbuf);
        return 1;
    }
    if (r == 0) {
        fprintf(stderr, "lockspan: --db %s: exists and is not a lockspan store; it is left "
                        "as it is: give a new file name\n", path);
        return EXIT_USAGE;
    }
    return 0;
}

static int open_store(cli *c, const char *path, ls_store **s)
{
    char errbuf[512] = "";
    if (ls_store_open_wait(s, path, c->busy_ms, errbuf, sizeof(errbuf)) != 0) {
        fprintf(stderr, "lockspan: %s\n", errbuf[0] ? errbuf : "out of memory");
        return 1;
    }
    return 0;
}

static void remove_store(const char *path)
{
    static const char *const suffix[] = {"", "-journal"};
    char buf[4096 + 16];
    size_t i;
    for (i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
        snprintf(buf, sizeof(buf), "%s%s", path, suffix[i]);
        unlink(buf);
    }
}

/* 1 when `db` is one of the inputs named on the command line. */
static int is_input(const cli *c, const char *db)
{
    struct stat a, b;
    int i;
    if (stat(db, &a) != 0)
        return 0;
    for (i = 0; i < c->npaths; i++)
        if (stat(c->paths[i], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
            return 1;
    return 0;
}

static int cmd_analyze(cli *c)
{
    char tmpdb[4096 + 64], journal[4096 + 16];
    const char *db = c->db;
    ls_store *s = NULL;
    int rc;

    if (c->npaths == 0) {
        fprintf(stderr, "lockspan analyze: no input; give log files or directories "
                        "(see 'lockspan analyze --help')\n");
        return EXIT_USAGE;
    }
    if (db) {
        if (is_input(c, db)) {
            fprintf(stderr, "lockspan analyze: --db %s is one of the inputs; give a new file "
                            "name for the store\n", db);
            return EXIT_USAGE;
        }
        if ((rc = check_store_path(db)) != 0)
            return rc;
        /* Built beside the target and renamed over it at the end: the old
         * store stays whole until then, and a killed run leaves a temporary
         * file that the next run removes. */
        remove_stale_temps(db);
        if (temp_name(tmpdb, sizeof(tmpdb), db) != 0) {
            fprintf(stderr, "lockspan analyze: --db %s: name too long\n", db);
            return EXIT_USAGE;
        }
        remove_store(tmpdb);
    } else {
        tmpdb[0] = '\0'; /* SQLite's own temporary file, unlinked as soon as it is open */
    }
    if ((rc = open_store(c, tmpdb, &s)) != 0)
        return rc;
    rc = do_ingest(c, s);
    if (rc == 0)
        rc = do_report(c, s, strcmp(c->format, "json") == 0   ? "lockspan-report.json"
                             : strcmp(c->format, "html") == 0 ? "lockspan-report.html"
                                                              : "lockspan-report.md");
    ls_store_close(s);
    if (db) {
        snprintf(journal, sizeof(journal), "%s-journal", db);
        if (rc == 0) {
            /* The old store's journal must not be applied to the new one. */
            unlink(journal);
            if (rename(tmpdb, db) != 0) {
                fprintf(stderr, "lockspan analyze: cannot put the store in place as %s: %s\n",
                        db, strerror(errno));
                rc = 1;
            }
        }
        remove_store(tmpdb); /* the journal; the store too when it failed */
    }
    return rc;
}

static int cmd_ingest(cli *c)
{
    ls_store *s = NULL;
    int rc;
    if (!c->db) {
        fprintf(stderr, "lockspan ingest: --db FILE is required\n");
        return EXIT_USAGE;
    }
    if (c->npaths == 0) {
        fprintf(stderr, "lockspan ingest: no input; give log files or directories\n");
        return EXIT_USAGE;
    }
    if (is_input(c, c->db)) {
        fprintf(stderr, "lockspan ingest: --db %s is one of the inputs\n", c->db);
        return EXIT_USAGE;
    }
    if ((rc = check_store_path(c->db)) != 0)
        return rc;
    if ((rc = open_store(c, c->db, &s)) != 0)
        return rc;
    rc = do_ingest(c, s);
    ls_store_close(s);
    return rc;
}

static int cmd_report(cli *c)
{
    char state[32];
    ls_store *s = NULL;
    int rc;
    if (!c->db) {
        fprintf(stderr, "lockspan report: --db FILE is required\n");
        return EXIT_USAGE;
    }
    if (c->npaths > 0) {
        fprintf(stderr, "lockspan report: unexpected argument '%s'; ingest files with "
                        "'lockspan ingest'\n", c->paths[0]);
        return EXIT_USAGE;
    }
    if (access(c->db, R_OK) != 0) {
        fprintf(stderr, "lockspan report: %s: %s\n", c->db, strerror(errno));
        return 1;
    }
    if ((rc = check_store_path(c->db)) != 0)
        return rc;
    if ((rc = open_store(c, c->db, &s)) != 0)
        return rc;
    if (ls_store_meta_get(s, "ingest", state, sizeof(state)) != 0) {
        rc = fail("report", LS_ESTORE, s);
    } else if (strcmp(state, "complete") != 0) {
        fprintf(stderr, "lockspan report: %s: the last ingest into this store did not finish "
                        "(killed, or stopped by an error); run the same 'lockspan ingest' "
                        "again: it goes on from where the store ends\n", c->db);
        rc = 1;
    } else {
        rc = do_report(c, s, "-");
    }
    ls_store_close(s);
    return rc;
}

int main(int argc, char **argv)
{
    cli c;
    int rc;

    memset(&c, 0, sizeof(c));
    c.format = "md";
    c.busy_ms = LS_STORE_BUSY_MS;
    if (argc < 2) {
        fputs(usage_main, stderr);
        return EXIT_USAGE;
    }
    c.command = argv[1];
    if (strcmp(c.command, "--help") == 0 || strcmp(c.command, "-h") == 0 ||
        strcmp(c.command, "help") == 0) {
        const char *u = usage_for(argc > 2 ? argv[2] : NULL);
        fputs(u ? u : usage_main, stdout);
        return u ? 0 : EXIT_USAGE;
    }
    if (strcmp(c.command, "version") == 0 || strcmp(c.command, "--version") == 0) {
        printf("lockspan %s\n", LS_VERSION);
        return 0;
    }
    if (!usage_for(c.command)) {
        fprintf(stderr, "lockspan: unknown command '%s'\n\n%s", c.command, usage_main);
        return EXIT_USAGE;
    }
    rc = parse_args(&c, argc - 1, argv + 1);
    if (rc)
        return rc == 1 ? 0 : rc;
    if (!c.format_given && c.noutputs == 1 && format_of_path(c.outputs[0]))
        c.format = format_of_path(c.outputs[0]);
    if (strcmp(c.command, "analyze") == 0)
        return cmd_analyze(&c);
    if (strcmp(c.command, "ingest") == 0)
        return cmd_ingest(&c);
    return cmd_report(&c);
}
