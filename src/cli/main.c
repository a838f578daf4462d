/*
 * main.c — command-line handling only: parse arguments, call the
 * pipeline stages, map failures to exit codes (the exits table below: 0 ok,
 * 1 failure, 2 usage or a --db that is not a lockspan store, 3 too many
 * unparsable lines, 4 an input not fully read, 5 an input with nothing to
 * read).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <iconv.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ls_classify.h"
#include "ls_columns.h"
#include "ls_common.h"
#include "ls_correlate.h"
#include "ls_ingest.h"
#include "ls_input.h"
#include "ls_outfile.h"
#include "ls_params.h"
#include "ls_report.h"
#include "ls_store.h"

#include "cli.h"

#define EXIT_USAGE 2
#define EXIT_BAD_LINES 3
#define EXIT_PARTIAL 4 /* an input broke before its end; the rest is read and reported */
#define EXIT_NOTHING 5 /* an input gave nothing to read (empty, not a log) */
/* --max-bad-lines P%: fewer unparsable lines than this never fail a run,
 * whatever their share (one odd line in a log of five is no wrong prefix). */
#define BAD_LINES_FLOOR 10

enum {
    OPT_DB = 256, OPT_PREFIX, OPT_FORMAT, OPT_TITLE, OPT_TOP, OPT_MAX_WAITS, OPT_FULL, OPT_GENERATED,
    OPT_MAX_DEADLOCKS, OPT_MAX_ERRORS, OPT_TZ, OPT_GROUP_BY,
    OPT_SINCE, OPT_UNTIL, OPT_RELATION, OPT_DATABASE, OPT_CODE_PATH, OPT_BUSY,
    OPT_MAX_BAD, OPT_RETENTION, OPT_PROGRESS, OPT_LC_MESSAGES, OPT_ENCODING, OPT_TRACE_ID,
    OPT_ALLOW_EMPTY, OPT_PER_DAY
};

/*
 * Every option, once. getopt's table, each command's --help, the man page
 * lockspan(1) and the shell completions are all made from these rows
 * (usage.c), and ctest checks that they name the same options. To add an
 * option: an OPT_ value above, a row here (in the order --help lists them)
 * and a case in apply_option(). `help` is wrapped when printed; `man` is
 * the man page's longer text, if any.
 */
static const cli_option options[] = {
    {OPT_DB, "db", 0, "FILE", NULL, CMD_ALL,
     "the store, an SQLite file (required by ingest and report). analyze builds "
     "it in FILE.lockspan-PID-RANDOM.tmp renamed to FILE at the end; without --db it "
     "uses a temporary store removed at exit",
     "The store: an SQLite file that keeps what was ingested and what correlation "
     "derived (tables in docs/store.md). Required by ingest and report. Any number of "
     "ingest, report and analyze runs may be started on one store: they take it one "
     "at a time, each waiting for the one before and saying so on stderr (see "
     "--busy-timeout). ingest first "
     "checks the store (PRAGMA quick_check) and stops at once on a damaged one. "
     "analyze builds a new store in FILE.lockspan-PID-RANDOM.tmp beside FILE and "
     "renames it over FILE at the end, so the old store stays whole until then; the new "
     "one keeps the old one's mode, owner and group where allowed, a new one follows "
     "the umask, and a FILE that is a symbolic link is replaced at its target. Without "
     "--db it uses a temporary store the system removes even when the process is "
     "killed. An existing FILE that is not a lockspan store, or is one of the inputs, "
     "is refused (exit 2) and left as it is."},
    {OPT_PREFIX, "prefix", 0, "PREFIX", NULL, CMD_ANALYZE | CMD_INGEST,
     "log_line_prefix exactly as in postgresql.conf (SHOW log_line_prefix). Default: "
     "inferred from each stderr log's first 200 lines and named on stderr",
     "log_line_prefix exactly as in postgresql.conf (SHOW log_line_prefix); all escapes "
     "are understood, with padding (%-10u) and %q. Without it the prefix of each stderr "
     "log is inferred from its first 200 lines and named on stderr; when no guess "
     "matches 95% of them the file fails with a message that asks for --prefix. "
     "csvlog, jsonlog and trace files need none."},
    {OPT_ENCODING, "encoding", 0, "CODESET", NULL, CMD_ANALYZE | CMD_INGEST,
     "the logs' codeset when not UTF-8 (WINDOWS-1251, KOI8-R, GBK, EUC-JP, SHIFT_JIS, "
     "any iconv name). Default: UTF-8, or guessed from the first line that is not",
     "The codeset of the logs when it is not UTF-8: a server whose lc_messages or "
     "database encoding is WIN1251, KOI8-R, GBK, EUC-CN, EUC-JP, SJIS... writes its "
     "messages in it. Lines are converted to UTF-8 with iconv. Without it, the first "
     "line that is not valid UTF-8 is tried in the usual codesets and the one that "
     "shows a translated severity word (in a jsonlog, a known translated message) is "
     "used and named on stderr. A codeset iconv does "
     "not know is refused (exit 2)."},
    {OPT_LC_MESSAGES, "lc-messages", 0, "LANG", "C de es fr it ja ka ko ru sv uk zh_CN zh_TW",
     CMD_ANALYZE | CMD_INGEST,
     "the server's lc_messages (de, ru_RU.UTF-8, C, ...). Default: recognised from "
     "the severity words and messages of the first records and named on stderr",
     "The language the server wrote its messages in (its lc_messages: C, de, es, fr, "
     "id, it, ja, ka, ko, pl, pt_BR, ru, sv, tr, uk, zh_CN, zh_TW, with or without a "
     "territory and codeset). Messages are read from PostgreSQL's own translations, "
     "those of every release 13 to 18 Debian ships. Without it the "
     "language is recognised from the first records and named on stderr; a log that "
     "mixes languages is read line by line either way, and records found in another "
     "language than the one given are counted on stderr. A language PostgreSQL ships no "
     "catalog for is refused (exit 2)."},
    {OPT_FORMAT, "format", 0, "FMT", "md json html", CMD_ANALYZE | CMD_REPORT,
     "report format, md, json or html (default: from -o's extension, else md)", NULL},
    {'o', "output", 'o', "FILE", NULL, CMD_ANALYZE | CMD_REPORT,
     "report file, - for stdout (analyze: lockspan-report.md, .json or .html; "
     "report: stdout). Repeat it for several formats from one correlation, each "
     "from its extension (.md, .json, .html)",
     "Report file, - for standard output. Default for analyze: lockspan-report.md "
     "(.json, .html with --format) in the current directory; for report: standard "
     "output. Repeat it (-o r.html -o r.json -o r.md) to write several reports from "
     "one correlation, each in the format its extension names. A report is written "
     "to a temporary file renamed over FILE, so a full disk or a kill leaves the "
     "previous report, never a cut one."},
    {OPT_TITLE, "title", 0, "TEXT", NULL, CMD_ANALYZE | CMD_REPORT, "report title", NULL},
    {OPT_PER_DAY, "per-day", 0, "DIR", NULL, CMD_REPORT,
     "one HTML report per day into DIR (DIR/YYYY-MM-DD.html) and DIR/index.html linking "
     "them; not with -o",
     "Write one HTML report per day of the store's events into DIR (made if missing), "
     "DIR/YYYY-MM-DD.html, each filtered to its day (midnight to midnight in --tz, else "
     "UTC) as --since and --until filter a report, and DIR/index.html: every day from the "
     "first event's to the last's with its waits, total and longest wait, deadlocks, "
     "statements and the code path holding hot rows longest, linking the days that had "
     "any (pgBadger's calendar). The other filters apply to every day. Not with -o."},
    {OPT_TOP, "top", 0, "N", NULL, CMD_ANALYZE | CMD_REPORT,
     "rows in ranked sections (default 10)", NULL},
    {OPT_MAX_WAITS, "max-waits", 0, "N", NULL, CMD_ANALYZE | CMD_REPORT,
     "waits listed one by one (default 1000; totals stay exact)", NULL},
    {OPT_MAX_DEADLOCKS, "max-deadlocks", 0, "N", NULL, CMD_ANALYZE | CMD_REPORT,
     "deadlocks listed (default 100; the report says when it lists fewer)", NULL},
    {OPT_MAX_ERRORS, "max-errors", 0, "N", NULL, CMD_ANALYZE | CMD_REPORT,
     "errors listed (default 200; the report says when it lists fewer)", NULL},
    {OPT_FULL, "full", 0, NULL, NULL, CMD_ANALYZE | CMD_REPORT,
     "Markdown: every list in full (by default cut to fit a GitHub comment)",
     "Markdown: list everything the report holds. By default the Markdown is cut to fit "
     "a GitHub issue or comment (65,536 characters): the waits table shows the longest "
     "waits, and each cut list says how many it left out."},
    {OPT_GENERATED, "generated-at", 0, "TEXT", NULL, CMD_ANALYZE | CMD_REPORT,
     "fixed 'generated at' text for reproducible reports", NULL},
    {OPT_TZ, "tz", 0, "ZONE", NULL, CMD_ANALYZE | CMD_REPORT,
     "times of the HTML and Markdown reports in ZONE (Europe/Paris; default UTC)",
     "Write the HTML and Markdown reports' times in ZONE, a tz database name (Europe/Paris, "
     "America/New_York) with its daylight saving rules, instead of UTC; each report names the "
     "zone, the Markdown gives each time's offset. JSON times stay UTC; the JSON names the "
     "zone (time_zone)."},
    {OPT_GROUP_BY, "group-by", 0, "WHAT", "function route service application statement shape",
     CMD_ANALYZE | CMD_REPORT,
     "name code paths by function (default), route, service, application, statement or shape",
     "Name code paths by the enclosing span's code.namespace/code.function (function, "
     "the default), the server span's route, the service, the application_name, the "
     "shape of the transaction's first write (statement) or the transaction's shape: "
     "the sequence of its statements, as verb and relation (shape). Where that is missing "
     "the report falls back to sqlcommenter/marginalia tags in the SQL, then "
     "application_name; where no span or tag names a transaction and one "
     "application_name covers 99 % or more of the holds (pgbench, an application "
     "behind one pool user), the transaction's shape; and says which it used and why."},
    {OPT_SINCE, "since", 0, "TIME", NULL, CMD_ANALYZE | CMD_REPORT,
     "only waits overlapping, and errors and deadlocks at or after, TIME (ISO 8601, UTC "
     "unless a zone is given: 2026-12-02T11:45:00Z, '2026-12-02 11:45')", NULL},
    {OPT_UNTIL, "until", 0, "TIME", NULL, CMD_ANALYZE | CMD_REPORT,
     "only waits overlapping, and errors and deadlocks at or before, TIME (as --since)",
     NULL},
    {OPT_RELATION, "relation", 0, "NAME", NULL, CMD_ANALYZE | CMD_REPORT,
     "only waits for rows of this relation (name or OID), and the errors and deadlocks "
     "that ended them", NULL},
    {OPT_DATABASE, "database", 0, "NAME", NULL, CMD_ANALYZE | CMD_REPORT,
     "only sessions of this database", NULL},
    {OPT_CODE_PATH, "code-path", 0, "NAME", NULL, CMD_ANALYZE | CMD_REPORT,
     "only waits whose waiter or holder runs this code path (a function, route, "
     "service or application name, or a transaction shape)", NULL},
    {OPT_TRACE_ID, "trace-id", 0, "ID", NULL, CMD_ANALYZE | CMD_REPORT,
     "show this traced request's row-lock queueing wait by wait (logged and hidden, "
     "behind which code path and row); repeatable; an id no span carries is named on "
     "stderr and in the report",
     "Show the request of this trace (a trace id of 1 to 32 hex digits, or a W3C "
     "traceparent) wait by wait, beside the slow requests: its duration, how much of it "
     "was queueing for row locks (logged and hidden), behind which code path and row, "
     "each wait with the statement that waited. Repeat it for several requests; the "
     "filters do not apply to them. An id that no span in the store carries does not "
     "stop the run: the report is written and says so, and stderr names the id. An "
     "argument that is not a trace id is a usage error (exit 2)."},
    {OPT_BUSY, "busy-timeout", 0, "SEC", NULL, CMD_INGEST | CMD_REPORT,
     "wait at most this long for a store another lockspan run uses, then stop (default: "
     "as long as that run takes)",
     "Runs on one store queue for it: each waits for the one before to end, however "
     "long that takes, and says on stderr that it waits and for which pid (unless -q). "
     "With --busy-timeout a run stops (exit 1, saying the store is in "
     "use) when it has waited SEC seconds."},
    {OPT_MAX_BAD, "max-bad-lines", 0, "N|P%", NULL, CMD_ANALYZE | CMD_INGEST,
     "fail (exit 3) when more lines than this could not be parsed: a count, or a share "
     "of the lines read once at least 10 could not be (default 10%)",
     "Fail with exit 3 when more input lines than this could not be parsed (a wrong "
     "--prefix, a format not recognised): a count (0: any), or a share of all lines "
     "read, applied whatever the number of lines once at least 10 could not be parsed "
     "(default 10%). ingest keeps what it read; analyze writes no report, which would "
     "say too little."},
    {OPT_ALLOW_EMPTY, "allow-empty", 0, NULL, NULL, CMD_ANALYZE | CMD_INGEST,
     "an input with nothing to read (an empty file, a quiet day's log) is no error: "
     "exit 0 instead of 5",
     "An input that gives nothing to read (an empty file or stream, a directory of "
     "empty logs, a file that is no log or trace) is no error: without this option "
     "it fails the run with exit 5 (the other inputs are still read and, by analyze, "
     "reported). For nightly jobs whose log may be empty on a quiet day."},
    {'j', "jobs", 'j', "N", NULL, CMD_ANALYZE | CMD_INGEST,
     "use N threads: parse up to N independent inputs at once (default: one input at "
     "a time, stored by a second thread)",
     "Run on N threads in all. -j 1 parses and stores on one thread (one CPU). With "
     "more, up to N inputs are parsed at once into the one store, each by a thread of "
     "its own; SQLite is written by one thread at a time, the one furthest through its "
     "inputs, or a thread left over (one input and -j 2: one parses, one stores). The "
     "files of one directory whose names begin with the same word (postgresql-*.log) "
     "are one server's rotated log and are read in order by one thread; other files "
     "are independent, and are stored in the order they are read. Without -j, inputs "
     "are read one at a time in command-line order and stored by a second thread when "
     "there is a second CPU. When several inputs are parsed at once the ingest is one "
     "transaction: killed, it leaves nothing of its own behind."},
    {OPT_RETENTION, "retention", 0, "DAYS", NULL, CMD_INGEST,
     "after ingesting, drop what is older than DAYS days before the newest record in "
     "the store (a nightly store that does not grow without end)",
     "After ingesting, drop from the store the events, statements, errors, deadlocks, "
     "spans, snapshots and sessions older than DAYS days before the newest record it "
     "holds (measured from the data, not the clock, so a replayed log is pruned the "
     "same way). Files stay known, so an old file given again adds nothing. See "
     "docs/store.md."},
    {OPT_PROGRESS, "progress", 0, NULL, NULL, CMD_ALL,
     "progress of every step on stderr (bytes and lines read, each correlation pass, "
     "each report written) even when stderr is not a terminal; on a terminal it is "
     "shown without this",
     "Progress of every step on stderr: bytes and lines read from each input, each "
     "correlation pass as it starts, the report being built and each output written. "
     "Shown on its own when stderr is a terminal (one line rewritten in place, at most "
     "4 updates a second); with --progress also into a file or pipe, a line per update "
     "and at most one a second."},
    {'q', "quiet", 'q', NULL, NULL, CMD_ALL,
     "no notes, progress or summary on stderr, only errors (wins over --progress)",
     NULL},
    {'h', "help", 'h', NULL, NULL, CMD_ALL, "show this help and exit", NULL},
};

static const cli_command commands[] = {
    {"analyze", CMD_ANALYZE, "[options] PATH...",
     "ingest, correlate and write a report in one go",
     "Ingest the inputs into a fresh store, link every lock wait to the transaction "
     "that blocked it and write a report."},
    {"ingest", CMD_INGEST, "--db FILE [options] PATH...",
     "add inputs to a store (for nightly jobs)",
     "Add inputs to a store, creating it if needed; run 'lockspan report' on it later. "
     "Incremental and idempotent: a file already in the store (known by its content, "
     "whatever its name or compression) is read on from where the store ends, nothing "
     "is added twice. A last line without its newline is left for the next ingest."},
    {"report", CMD_REPORT, "--db FILE [options]",
     "correlate a store and write a report",
     "Link waits to blockers in a store and write a report (default: stdout). A store "
     "correlated after its last ingest is not correlated again."},
};

static const cli_text exits[] = {
    {"0", "success: every input was read to its end"},
    {"1", "failure: a PATH given that does not exist, a store error (SQLite's message), out "
          "of memory, a report that could not be written, a store whose last ingest did "
          "not finish. Unparsable lines are counted and named, and do not fail a run"},
    {"2", "usage error, or a --db that exists and is not a lockspan store (left as it is)"},
    {"3", "more unparsable lines than --max-bad-lines allows (default: over 10% of the "
          "lines, and at least 10); ingest keeps what it read, analyze writes no report"},
    {"4", "partial: an input broke before its end (a cut or damaged .gz, .bz2, .xz, .zst or .zip, a read error, a "
          "stream without line breaks or, of a PostgreSQL log, ending in the middle of a "
          "line), or could not be read at all (it cannot be opened: permission denied, a "
          "directory entry gone; a compressed header cut). What was read of it and the "
          "other inputs are "
          "stored and reported; stderr and the report's input section say where it broke. "
          "An ingest of the same file later reads on if it has grown or been replaced. "
          "report exits 4 too (after writing the report) while its store holds such an "
          "input"},
    {"5", "nothing to read: an input named (a file, a stream, a whole directory) was "
          "empty or is no log or trace; the other inputs are stored and reported. "
          "--allow-empty makes this exit 0. With 4, 4 is returned"},
};

static const cli_text examples[] = {
    {"lockspan analyze -o incident.html /var/log/postgresql/ traces.otlp.jsonl.gz",
     "One go: ingest a log directory and a trace export, correlate, write an HTML report."},
    {"lockspan analyze --prefix '%m [%p] %q%u@%d ' -o r.md -o r.json postgresql.log",
     "A stderr log with its log_line_prefix; Markdown and JSON from one correlation."},
    {"lockspan ingest --db nightly.db postgresql-2026-12-01.log.gz\n"
     "lockspan report --db nightly.db -o nightly.json -o nightly.html",
     "Nightly job: add logs to a store, report from it."},
    {"lockspan report --db nightly.db --since '2026-12-02 11:45' --relation accounts",
     "A window of the store, for one relation, as Markdown on stdout."},
    {"lockspan report --db nightly.db --per-day reports/",
     "A calendar: one HTML report per day and reports/index.html linking them."},
};

static const cli_text file_texts[] = {
    {"lockspan-report.md", "analyze's default report (lockspan-report.json, "
                           "lockspan-report.html with --format)"},
    {"FILE.lockspan-PID-RANDOM.tmp", "a store being built by analyze, or a report once "
                                     "written (until then it has no name where the file "
                                     "system allows), renamed over FILE when whole (after "
                                     "an fsync; the directory is synced after); one left by "
                                     "a killed run is removed by the next"},
    {"FILE-wal, FILE-shm", "the store's write-ahead log and its index, while a run uses "
                           "the store (SQLite's WAL mode)"},
};

static const cli_text environment[] = {
    {"LOCKSPAN_TIMING", "set: print on stderr the wall and CPU time of ingest's load (and "
                        "the CPU time its batches took to write, the part one thread at a "
                        "time does) and of its end, and the wall and CPU time, pages read, "
                        "peak memory and SQLite steps of each correlation pass, and the wall and "
                        "CPU time of each section of the report; 'sql': also "
                        "the SQLite steps and time of each statement, most steps first, "
                        "each named by an id (#hash of its pass and text); 'sql-all': of "
                        "every statement, not only those of 1 ms or 100,000 steps"},
    {"TZ", "the zone of RFC 3164 syslog times, which carry none"},
};

static const cli_spec spec = {
    commands, (int)(sizeof(commands) / sizeof(commands[0])),
    options, (int)(sizeof(options) / sizeof(options[0])),
    "Who held the lock, and why so long? lockspan reads PostgreSQL server logs, "
    "application traces and pg_stat_activity snapshots, links every lock wait to the "
    "transaction that blocked it, and reports hot rows, root blockers, deadlocks and "
    "timeouts in Markdown, JSON or HTML.",
    "PATH is a file (plain or gzip, told by its content), a directory or - for standard "
    "input; a pipe, a FIFO or a process substitution (<(zcat x.gz)) is read once, like a "
    "file, gzip included. Each file's kind is told by its content: PostgreSQL stderr, syslog, csvlog "
    "or jsonlog logs, OTLP/JSON, Jaeger or Zipkin trace exports, pg_stat_activity "
    "snapshots. A directory gives its files whose names contain .log, .csv, .json, "
    ".syslog or .gz, in the order they were written (by each file's first timestamp, not "
    "by name, so postgresql-%a.log rotation works); a log written in several formats is "
    "read once, in the richest.",
    exits, examples, file_texts, environment,
    (int)(sizeof(exits) / sizeof(exits[0])), (int)(sizeof(examples) / sizeof(examples[0])),
    (int)(sizeof(file_texts) / sizeof(file_texts[0])), (int)(sizeof(environment) / sizeof(environment[0])),
    LS_VERSION,
};

#define MAX_OUTPUTS 8
#define MAX_TRACE_IDS 1000

typedef struct cli {
    const char *command;
    const cli_command *cmd;
    const char *db;
    char db_shown[LS_SHOWN_MAX]; /* --db as messages show it (ls_shown) */
    const char *prefix;
    const char *lc_messages;
    const char *encoding;
    const char *format;
    int format_given; /* --format was given: -o's extension does not decide */
    int md_full;      /* --full: the Markdown uncut */
    const char *outputs[MAX_OUTPUTS]; /* -o, in order: one correlation writes them all */
    int noutputs;
    int quiet;
    int jobs;
    int progress; /* --progress: even when stderr is not a terminal */
    int busy_ms;
    int retention_days; /* --retention; 0 = keep everything */
    int allow_empty;  /* --allow-empty: an input with nothing to read is no error */
    long max_bad;     /* --max-bad-lines as a count, or -1 */
    int max_bad_pct;  /* --max-bad-lines as a percentage (when max_bad is -1) */
    ls_report_opts report;
    const char *per_day; /* --per-day DIR: a report per day and an index */
    char trace_ids[MAX_TRACE_IDS][33]; /* --trace-id, as the store keeps them */
    const char *trace_id_ptrs[MAX_TRACE_IDS];
    char **paths;
    int npaths;
} cli;

/* --max-bad-lines: "N" (a count, 0 allowed) or "P%" (0-100). */
static int parse_max_bad(cli *c, const char *s)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (end == s || errno || v < 0 || (*end && strcmp(end, "%") != 0) ||
        (*end == '%' && v > 100)) {
        fprintf(stderr, "lockspan: --max-bad-lines must be a count or a percentage (10%%), "
                        "not '%s'\n", s);
        return -1;
    }
    c->max_bad = *end == '%' ? -1 : v;
    c->max_bad_pct = *end == '%' ? (int)v : 0;
    return 0;
}

/* A zone the C library will apply: UTC, or a file of the tz database
 * (glibc silently takes an unknown name as UTC, so it is looked up). */
static int tz_known(const char *zone)
{
    char path[512];
    const char *dir = getenv("TZDIR");
    struct stat st;
    if (strcmp(zone, "UTC") == 0)
        return 1;
    if (!*zone || zone[0] == '/' || strstr(zone, ".."))
        return 0;
    snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo", zone);
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

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

/*
 * --trace-id: 1 to 32 hex digits (Jaeger and Zipkin write 16 of a 64-bit
 * id), or a W3C traceparent (00-TRACEID-SPANID-FLAGS, as sqlcommenter
 * puts it in the SQL); kept as the store keeps trace ids: 32 lowercase
 * digits, zero-padded on the left.
 */
static int parse_trace_id(cli *c, const char *s)
{
    char *out = c->trace_ids[c->report.ntrace_ids];
    size_t n = strlen(s), i;

    if (c->report.ntrace_ids == MAX_TRACE_IDS) {
        fprintf(stderr, "lockspan: at most %d --trace-id\n", MAX_TRACE_IDS);
        return -1;
    }
    if (n == 55 && s[2] == '-' && s[35] == '-' && s[52] == '-') {
        s += 3; /* the traceparent's trace id */
        n = 32;
    }
    for (i = 0; i < n && strchr("0123456789abcdefABCDEF", s[i]) && s[i]; i++)
        ;
    if (n == 0 || n > 32 || i != n) {
        fprintf(stderr, "lockspan: --trace-id takes a trace id of 1 to 32 hex digits or a "
                        "traceparent, not '%s'\n", s);
        return -1;
    }
    memset(out, '0', 32 - n);
    for (i = 0; i < n; i++)
        out[32 - n + i] = (char)(s[i] >= 'A' && s[i] <= 'F' ? s[i] - 'A' + 'a' : s[i]);
    out[32] = '\0';
    c->trace_id_ptrs[c->report.ntrace_ids++] = out;
    c->report.trace_ids = c->trace_id_ptrs;
    return 0;
}

/* --trace-id of no span in the store: the report says so too. */
static void unknown_trace_ids(const cJSON *model)
{
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(model, "trace_requests")) {
        if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(t, "found")))
            fprintf(stderr, "lockspan: --trace-id %s: no span in the traces read has this "
                            "trace id (the report says so)\n",
                    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "trace_id")));
    }
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

static const cli_command *find_command(const char *name)
{
    size_t i;
    for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static const cli_option *find_option(int id)
{
    size_t i;
    for (i = 0; i < sizeof(options) / sizeof(options[0]); i++)
        if (options[i].id == id)
            return &options[i];
    return NULL;
}

/* One option's effect: 0, or EXIT_USAGE for a bad argument. */
static int apply_option(cli *c, int id, const char *arg)
{
    switch (id) {
    case OPT_DB: c->db = arg; break;
    case OPT_PREFIX: c->prefix = arg; break;
    case OPT_LC_MESSAGES:
        if (ls_classify_lang(arg) == -2) {
            fprintf(stderr, "lockspan: --lc-messages %s: PostgreSQL ships no such language "
                            "(C, de, es, fr, it, ja, ka, ko, ru, sv, uk, zh_CN, zh_TW, with or "
                            "without a territory and codeset: ru_RU.UTF-8)\n", arg);
            return EXIT_USAGE;
        }
        c->lc_messages = arg;
        break;
    case OPT_ENCODING: {
        iconv_t cd = iconv_open("UTF-8", arg);
        if (cd == (iconv_t)-1) {
            fprintf(stderr, "lockspan: --encoding %s: not a codeset iconv knows (WINDOWS-1251, "
                            "KOI8-R, GBK, EUC-JP, SHIFT_JIS...; iconv -l lists them)\n", arg);
            return EXIT_USAGE;
        }
        iconv_close(cd);
        c->encoding = arg;
        break;
    }
    case OPT_FORMAT:
        if (strcmp(arg, "md") && strcmp(arg, "markdown") && strcmp(arg, "json") &&
            strcmp(arg, "html")) {
            fprintf(stderr, "lockspan: --format must be md, json or html, not '%s'\n", arg);
            return EXIT_USAGE;
        }
        c->format_given = 1;
        c->format = strcmp(arg, "json") == 0 ? "json" : strcmp(arg, "html") == 0 ? "html" : "md";
        break;
    case 'o':
        if (c->noutputs == MAX_OUTPUTS) {
            fprintf(stderr, "lockspan: at most %d -o outputs\n", MAX_OUTPUTS);
            return EXIT_USAGE;
        }
        c->outputs[c->noutputs++] = arg;
        break;
    case OPT_TITLE: c->report.title = arg; break;
    case OPT_PER_DAY: c->per_day = arg; break;
    case OPT_TOP: return parse_count(arg, "--top", &c->report.top) ? EXIT_USAGE : 0;
    case OPT_FULL: c->md_full = 1; break;
    case OPT_MAX_WAITS:
        return parse_count(arg, "--max-waits", &c->report.max_waits) ? EXIT_USAGE : 0;
    case OPT_MAX_DEADLOCKS:
        return parse_count(arg, "--max-deadlocks", &c->report.max_deadlocks) ? EXIT_USAGE : 0;
    case OPT_MAX_ERRORS:
        return parse_count(arg, "--max-errors", &c->report.max_errors) ? EXIT_USAGE : 0;
    case OPT_GENERATED: c->report.generated_at = arg; break;
    case OPT_TZ:
        if (!tz_known(arg)) {
            fprintf(stderr, "lockspan: --tz: unknown time zone '%s' (a tz database name "
                            "such as Europe/Paris, or UTC)\n", arg);
            return EXIT_USAGE;
        }
        c->report.tz = arg;
        break;
    case OPT_GROUP_BY:
        if (strcmp(arg, "function") && strcmp(arg, "route") && strcmp(arg, "service") &&
            strcmp(arg, "application") && strcmp(arg, "statement") && strcmp(arg, "shape")) {
            fprintf(stderr, "lockspan: --group-by must be function, route, service, "
                            "application, statement or shape, not '%s'\n", arg);
            return EXIT_USAGE;
        }
        c->report.group_by = arg;
        break;
    case OPT_SINCE: return parse_time(arg, "--since", &c->report.since) ? EXIT_USAGE : 0;
    case OPT_UNTIL: return parse_time(arg, "--until", &c->report.until) ? EXIT_USAGE : 0;
    case OPT_RELATION: c->report.relation = arg; break;
    case OPT_DATABASE: c->report.database = arg; break;
    case OPT_CODE_PATH: c->report.code_path = arg; break;
    case OPT_TRACE_ID: return parse_trace_id(c, arg) ? EXIT_USAGE : 0;
    case OPT_BUSY: {
        int sec;
        if (strcmp(arg, "0") == 0)
            sec = 0;
        else if (parse_count(arg, "--busy-timeout", &sec))
            return EXIT_USAGE;
        c->busy_ms = sec * 1000;
        break;
    }
    case OPT_MAX_BAD: return parse_max_bad(c, arg) ? EXIT_USAGE : 0;
    case OPT_RETENTION:
        return parse_count(arg, "--retention", &c->retention_days) ? EXIT_USAGE : 0;
    case 'j': return parse_count(arg, "-j", &c->jobs) ? EXIT_USAGE : 0;
    case OPT_PROGRESS: c->progress = 1; break;
    case OPT_ALLOW_EMPTY: c->allow_empty = 1; break;
    case 'q': c->quiet = 1; break;
    }
    return 0;
}

/* Returns 0 to go on, 1 when help was printed, EXIT_USAGE on bad arguments. */
static int parse_args(cli *c, int argc, char **argv)
{
    enum { NOPT = sizeof(options) / sizeof(options[0]) };
    struct option longopts[NOPT + 1];
    char shortopts[2 * NOPT + 1];
    size_t i, ns = 0;
    int opt, rc;

    /* getopt's tables from the option table */
    memset(longopts, 0, sizeof(longopts));
    for (i = 0; i < NOPT; i++) {
        longopts[i].name = options[i].name;
        longopts[i].has_arg = options[i].arg ? required_argument : no_argument;
        longopts[i].val = options[i].id;
        if (options[i].letter) {
            shortopts[ns++] = options[i].letter;
            if (options[i].arg)
                shortopts[ns++] = ':';
        }
    }
    shortopts[ns] = '\0';

    optind = 1;
    while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        const cli_option *o = find_option(opt);
        if (!o) {
            fprintf(stderr, "Run 'lockspan %s --help' for usage.\n", c->command);
            return EXIT_USAGE;
        }
        if (!(o->commands & c->cmd->bit)) {
            fprintf(stderr, "lockspan %s: --%s is not an option of %s (see 'lockspan %s "
                            "--help')\n", c->command, o->name, c->command, c->command);
            return EXIT_USAGE;
        }
        if (opt == 'h') {
            cli_print_help(stdout, &spec, c->cmd);
            return 1;
        }
        if ((rc = apply_option(c, opt, optarg)) != 0)
            return rc;
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

/*
 * More unparsable lines than --max-bad-lines allows? Said loudly, even with
 * -q: a report from a log read with the wrong prefix says "no lock waits".
 * When most of them matched the prefix, the prefix is not blamed: a word
 * after it that no message table knows is a catalog problem, lines of a
 * record begun before the input are a cut log.
 */
static const char *bad_lines_why(const ls_ingest_totals *t)
{
    /* a damaged .gz inflates to garbage before zlib finds the damage */
    if (t->partial_files && t->bad_prefix_matched * 2 <= t->bad_lines)
        return "an input that broke (said above) may have given garbage before it broke; "
               "else, is the log_line_prefix (--prefix) right?";
    if (t->bad_prefix_matched * 2 <= t->bad_lines)
        return "is the log_line_prefix (--prefix) right?";
    if (t->bad_unknown_word)
        return "most have the log_line_prefix, some a severity or field word no message "
               "table knows: the server's message catalog (lc_messages) is a translation or "
               "revision lockspan does not know; set lc_messages = 'C' on the server.";
    return "most have the log_line_prefix and belong to records whose first line is not in "
           "the input (a log cut in mid-record?).";
}

static int too_many_bad(const cli *c, const ls_ingest_totals *t)
{
    if (c->max_bad >= 0 ? t->bad_lines <= (uint64_t)c->max_bad
                        : t->bad_lines < BAD_LINES_FLOOR ||
                              t->bad_lines * 100 <= t->lines * (uint64_t)c->max_bad_pct)
        return 0;
    fprintf(stderr,
            "lockspan: %s: %llu of %llu lines (%.1f%%) could not be parsed, more than "
            "--max-bad-lines %ld%s allows: %s %s\n",
            c->command, (unsigned long long)t->bad_lines, (unsigned long long)t->lines,
            t->lines ? 100.0 * (double)t->bad_lines / (double)t->lines : 0.0,
            c->max_bad >= 0 ? c->max_bad : (long)c->max_bad_pct, c->max_bad >= 0 ? "" : "%",
            bad_lines_why(t),
            strcmp(c->command, "ingest") == 0 ? "The lines read are in the store (exit 3)."
                                              : "No report written (exit 3).");
    return 1;
}

/* Progress notes: on a terminal, or forced by --progress; never with -q. */
static int show_progress(const cli *c)
{
    return !c->quiet && (c->progress || isatty(STDERR_FILENO));
}

/* 1 when `file` (from ls_paths_expand) comes from the command-line `arg`:
 * the file itself, or a file of the directory `arg`. */
static int file_of_arg(const char *file, const char *arg)
{
    size_t n = strlen(arg);
    return strcmp(file, arg) == 0 || (strncmp(file, arg, n) == 0 && file[n] == '/');
}

/*
 * What the inputs' states (per expanded file) make of the run: EXIT_PARTIAL
 * when one broke, else EXIT_NOTHING when a PATH named on the command line
 * gave nothing to read (a directory: none of its files did) and
 * --allow-empty was not given, else 0. Said on stderr, even with -q.
 */
static int input_outcome(const cli *c, char *const *files, const unsigned char *state)
{
    char shown[LS_SHOWN_MAX];
    int i, partial = 0, nothing = 0;
    size_t k;

    for (k = 0; files[k]; k++)
        partial += state[k] == LS_INPUT_PARTIAL;
    for (i = 0; i < c->npaths; i++) {
        int read = 0;
        for (k = 0; files[k]; k++)
            if (state[k] != LS_INPUT_NOTHING && file_of_arg(files[k], c->paths[i]))
                read = 1;
        if (read)
            continue;
        nothing++;
        if (!c->allow_empty)
            fprintf(stderr, "lockspan: %s: nothing to read (empty, or no log or trace)\n",
                    ls_shown(shown, sizeof(shown), c->paths[i]));
    }
    if (partial)
        fprintf(stderr, "lockspan: %d input%s not fully read (said above): what was read is "
                "%s (exit %d)\n", partial, partial == 1 ? "" : "s",
                strcmp(c->command, "ingest") == 0 ? "in the store" : "in the report",
                EXIT_PARTIAL);
    if (partial)
        return EXIT_PARTIAL;
    if (nothing && !c->allow_empty) {
        fprintf(stderr, "lockspan: %d input%s gave nothing to read (exit %d); pass "
                "--allow-empty when that is expected\n", nothing, nothing == 1 ? "" : "s",
                EXIT_NOTHING);
        return EXIT_NOTHING;
    }
    return 0;
}

/*
 * Ingest the inputs. Returns 0 or an exit code that stops the command (1,
 * EXIT_BAD_LINES); *outcome is what the inputs make of an otherwise
 * successful run (input_outcome), to be returned once the report is out.
 */
static int do_ingest(cli *c, ls_store *s, int *outcome)
{
    char errbuf[512] = "";
    char **files = NULL;
    unsigned char *state = NULL;
    /* ingest keeps adding to its store: a line still being written waits
     * for the next run; analyze reads everything there is. */
    ls_ingest_opts io = {c->prefix, show_progress(c), 10, c->quiet,
                         strcmp(c->command, "ingest") == 0, c->jobs, c->lc_messages,
                         c->encoding, NULL};
    ls_ingest_totals t;
    size_t n = 0;
    int rc;

    *outcome = 0;
    if ((rc = ls_paths_expand(&files, c->paths, c->npaths, c->quiet, errbuf,
                               sizeof(errbuf))) != 0) {
        fprintf(stderr, "lockspan: %s\n", errbuf);
        return 1;
    }
    while (files[n])
        n++;
    if (!(state = ls_calloc(n + 1, 1))) {
        ls_paths_free(files);
        return fail("ingest", LS_ENOMEM, s);
    }
    io.state = state;
    rc = ls_ingest_paths(s, files, &io, &t);
    if (rc == 0)
        *outcome = input_outcome(c, files, state);
    ls_paths_free(files);
    free(state);
    if (rc)
        return rc == LS_EIO || rc == LS_EFORMAT ? 1 : fail("ingest", rc, s);
    if (!c->quiet)
        fprintf(stderr,
                "lockspan: ingested %llu files, %llu lines, %llu records (%llu events), "
                "%llu unparsable lines%s\n",
                (unsigned long long)t.files, (unsigned long long)t.lines,
                (unsigned long long)t.records, (unsigned long long)t.events,
                (unsigned long long)t.bad_lines, t.partial_files ? ", inputs not fully read" : "");
    return too_many_bad(c, &t) ? EXIT_BAD_LINES : 0;
}

/*
 * Open every report file before any analysis (ls_outfile: a temporary file
 * beside each, renamed over it when whole), so that an -o that cannot be
 * written fails at once, not after the analysis. *out holds
 * c->noutputs files, or one for default_out.
 */
static int open_outputs(const cli *c, const char *default_out, ls_outfile **out)
{
    char errbuf[LS_OUTFILE_PATH_MAX + 256];
    int i, n = c->noutputs ? c->noutputs : 1;
    ls_outfile *o = ls_calloc((size_t)n, sizeof(*o));

    *out = NULL;
    if (!o) {
        fprintf(stderr, "lockspan: out of memory\n");
        return 1;
    }
    for (i = 0; i < n; i++) {
        const char *path = c->noutputs ? c->outputs[i] : default_out;
        if (ls_outfile_open(&o[i], path, 0, errbuf, sizeof(errbuf)) != 0) {
            fprintf(stderr, "lockspan: cannot write report: %s (nothing analysed)\n", errbuf);
            while (i-- > 0)
                ls_outfile_abort(&o[i]);
            free(o);
            return 1;
        }
    }
    *out = o;
    return 0;
}

/* Remove the report files not written (their temporary files). */
static void close_outputs(const cli *c, ls_outfile *o)
{
    int i, n = c->noutputs ? c->noutputs : 1;
    if (!o)
        return;
    for (i = 0; i < n; i++)
        ls_outfile_abort(&o[i]);
    free(o);
}

/*
 * Write the report to `o` and put it in place (ls_outfile_commit): a full
 * disk or a kill never leaves a cut report, nor destroys the previous one,
 * and a failure says the system's reason.
 */
static int write_report(const char *format, cJSON *model, ls_outfile *o, int md_full)
{
    char errbuf[LS_OUTFILE_PATH_MAX + 256];
    FILE *f = ls_outfile_stream(o);
    int rc, werr = 0;

    if (!f) {
        fprintf(stderr, "lockspan: cannot write report: %s: %s\n", o->target, strerror(errno));
        ls_outfile_abort(o);
        return 1;
    }
    errno = 0;
    rc = strcmp(format, "json") == 0   ? ls_report_write_json(model, f)
         : strcmp(format, "html") == 0 ? ls_report_write_html(model, f)
         : md_full                     ? ls_report_write_markdown_full(model, f)
                                          : ls_report_write_markdown(model, f);
    if (rc != 0)
        werr = errno ? errno : EIO; /* the failed write's reason, before anything else runs */
    if (ls_outfile_commit(o, werr, errbuf, sizeof(errbuf)) != 0) {
        fprintf(stderr, "lockspan: cannot write report: %s\n", errbuf);
        return 1;
    }
    return 0;
}

#define MS_PER_S 1000.0
#define ANSWER_MAX 512 /* the answer line's text before the report names */

/* A duration as the reports write it: "850 ms", "10.1 s". */
static void answer_duration(char *buf, size_t n, double ms)
{
    if (ms < MS_PER_S)
        snprintf(buf, n, "%.0f ms", ms);
    else
        snprintf(buf, n, "%.1f s", ms / MS_PER_S);
}

/* Append s to buf (size n, holding len bytes) with every byte below 0x20
 * or 0x7f as '?': code path and row names come from logs and traces, and
 * must not drive the terminal. Returns the new length (capped at n - 1). */
static size_t answer_put_safe(char *buf, size_t n, size_t len, const char *s)
{
    for (; s && *s && len + 1 < n; s++)
        buf[len++] = ((unsigned char)*s < 0x20 || *s == 0x7f) ? '?' : *s;
    buf[len] = '\0';
    return len;
}

static size_t answer_put(char *buf, size_t n, size_t len, const char *s)
{
    int w = snprintf(buf + len, n - len, "%s", s);
    return w < 0 || (size_t)w >= n - len ? n - 1 : len + (size_t)w;
}

/*
 * The answer in one line, from the report model: the occupancy ranking's
 * top (the code path holding hot rows longest, its hold time of all
 * hot-row hold time) and the busiest hot row; or that there is no hot row.
 * Writes "top: ..." into buf (size n).
 */
static void answer_text(const cJSON *model, char *buf, size_t n)
{
    const cJSON *top = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(model, "row_occupancy"), 0);
    const cJSON *row = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(model, "hot_rows"), 0);
    char held[32], all[32];
    double ms, share;
    size_t len = 0;

    buf[0] = '\0';
    if (!row) {
        answer_put(buf, n, 0, "top: no hot row (no lock wait on a row in what was read)");
        return;
    }
    len = answer_put(buf, n, len, "top: ");
    if (top && cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                   cJSON_GetObjectItemCaseSensitive(model, "story"), "occupancy_unknown"))) {
        /* no hold timed: the story says the ranking is unknown (story.c) */
        len = answer_put(buf, n, len, "code paths not rankable by hold time from this log; ");
    } else if (top) {
        ms = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(top, "total_hold_ms"));
        share = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(top, "share_pct"));
        answer_duration(held, sizeof(held), ms);
        answer_duration(all, sizeof(all), share > 0 ? ms * 100.0 / share : ms);
        len = answer_put_safe(buf, n, len, cJSON_GetStringValue(
                  cJSON_GetObjectItemCaseSensitive(top, "code_path")));
        len = answer_put(buf, n, len, " holds hot rows longest (");
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(model, "story"), "hold_at_least"))) {
            /* lower bounds (reports/story.c): no "of" a total */
            len = answer_put(buf, n, len, "at least ");
            len = answer_put(buf, n, len, held);
            len = answer_put(buf, n, len, ", hold times lower bounds); ");
        } else {
            len = answer_put(buf, n, len, held);
            len = answer_put(buf, n, len, " of ");
            len = answer_put(buf, n, len, all);
            len = answer_put(buf, n, len, "); ");
        }
    } else {
        len = answer_put(buf, n, len, "no code path ranked by hold time; ");
    }
    len = answer_put(buf, n, len, "busiest row ");
    len = answer_put_safe(buf, n, len, cJSON_GetStringValue(
              cJSON_GetObjectItemCaseSensitive(row, "relation")));
    len = answer_put(buf, n, len, " ");
    answer_put_safe(buf, n, len, cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(row, "row_key")));
}

/*
 * The last line on stderr: the answer (answer_text) and where each report
 * went. `outs` names the outputs written ("-": stdout).
 */
static void print_answer(const cJSON *model, const char *const *outs, int n)
{
    char text[ANSWER_MAX], shown[LS_SHOWN_MAX];
    int i;
    answer_text(model, text, sizeof(text));
    fprintf(stderr, "lockspan: %s, report written to ", text);
    for (i = 0; i < n; i++)
        fprintf(stderr, "%s%s", i ? ", " : "",
                strcmp(outs[i], "-") == 0 ? "stdout" : ls_shown(shown, sizeof(shown), outs[i]));
    fputc('\n', stderr);
}

/*
 * Correlate (unless the store already is, with nothing ingested since),
 * build the report once and write each output from it; without -o, to
 * default_out.
 */
static int do_report(cli *c, ls_store *s, const char *default_out, ls_outfile *outs)
{
    ls_correlate_stats cs;
    ls_progress progress;
    cJSON *model = NULL;
    int rc, ran, i, n = c->noutputs ? c->noutputs : 1;

    ls_progress_init(&progress, show_progress(c));
    if ((rc = ls_correlate_current(s, &cs, &progress, &ran)) != 0)
        return fail("correlate", rc, s);
    if (!c->quiet)
        fprintf(stderr, "lockspan: %lld waits, %lld linked to a blocker, %lld through a chain%s\n",
                (long long)cs.waits, (long long)cs.linked, (long long)cs.chained,
                ran ? "" : " (the store was correlated after its last ingest: reused)");
    ls_progress_note(&progress, !progress.tty, "report: building");
    rc = ls_report_build(s, &c->report, &model);
    ls_progress_end(&progress);
    if (rc != 0)
        return fail("report", rc, s);
    if (!c->quiet)
        unknown_trace_ids(model);
    for (i = 0; i < n && rc == 0; i++) {
        const char *out = c->noutputs ? c->outputs[i] : default_out;
        /* On a terminal only: elsewhere the answer line follows. stdout
         * may be this terminal, so the note is gone before the report. */
        if (progress.tty) {
            ls_progress_note(&progress, 0, "report: writing %s (%s)",
                             strcmp(out, "-") == 0 ? "stdout" : out, output_format(c, out));
            ls_progress_end(&progress);
        }
        rc = write_report(output_format(c, out), model, &outs[i], c->md_full);
    }
    if (rc == 0 && !c->quiet)
        print_answer(model, c->noutputs ? (const char *const *)c->outputs : &default_out, n);
    cJSON_Delete(model);
    return rc;
}

/*
 * --per-day DIR: correlate as do_report does, then a report per day and
 * the index (ls_report_write_days); the last stderr line says where.
 */
static int do_per_day(cli *c, ls_store *s)
{
    ls_correlate_stats cs;
    ls_progress progress;
    char errbuf[LS_OUTFILE_PATH_MAX + 256], shown[LS_SHOWN_MAX];
    int rc, ran, days = 0;

    ls_progress_init(&progress, show_progress(c));
    if ((rc = ls_correlate_current(s, &cs, &progress, &ran)) != 0)
        return fail("correlate", rc, s);
    ls_progress_note(&progress, !progress.tty, "report: one per day");
    rc = ls_report_write_days(s, &c->report, c->per_day, &days, errbuf, sizeof(errbuf));
    ls_progress_end(&progress);
    if (rc != 0 && errbuf[0]) {
        fprintf(stderr, "lockspan report: --per-day: %s\n", errbuf);
        return rc == LS_EUSAGE ? EXIT_USAGE : 1;
    }
    if (rc != 0)
        return fail("report", rc, s);
    if (!c->quiet)
        fprintf(stderr, "lockspan: %d day report%s and the index written to %s/index.html\n",
                days, days == 1 ? "" : "s", ls_shown(shown, sizeof(shown), c->per_day));
    return 0;
}

/*
 * Say on stderr when inputs of the store were not fully read (an ingest
 * that exited 4): the report is of what was read, and its input section
 * names them. Sets *broken to their number (report then exits
 * EXIT_PARTIAL, as the ingest did). Returns 0 or LS_ESTORE.
 */
#define BROKEN_PARAMS(X, Q) X(Q, reason)
LS_PARAMS(bp, BROKEN_PARAMS);

static int note_broken_inputs(const cli *c, ls_store *s, int64_t *broken)
{
    static const char sql[] = "SELECT count(DISTINCT file_id) FROM bad_lines"
                              " WHERE substr(reason, 1, length(:reason)) = :reason";
    ls_stmt *st;
    int64_t n = 0;
    int rc;

    if ((rc = ls_store_prepare_params(s, sql, LS_PARAM_NAMES(BROKEN_PARAMS), &st)) != 0)
        return rc;
    if ((rc = ls_stmt_bind_text(st, LS_PARAM(bp, reason), LS_INPUT_BROKE_REASON)) == 0 &&
        (rc = ls_stmt_step(st)) == 1) {
        n = ls_stmt_int64(st, LS_ONLY_COLUMN);
        rc = 0;
    }
    ls_stmt_finalize(st);
    *broken = n;
    if (rc == 0 && n > 0 && !c->quiet)
        fprintf(stderr, "lockspan report: %s: %lld input%s of this store %s not fully read "
                "(cut or damaged): the report is of what was read, its input section says "
                "where %s\n", c->db_shown, (long long)n, n == 1 ? "" : "s", n == 1 ? "was" : "were",
                n == 1 ? "it broke" : "they broke");
    return rc;
}

/*
 * An existing, non-empty --db must be a lockspan store: anything else (a
 * log, another database) is refused with EXIT_USAGE and never touched.
 */
static int check_store_path(const char *path)
{
    char errbuf[512] = "", shown[LS_SHOWN_MAX];
    struct stat st;
    int r;
    if (stat(path, &st) != 0)
        return 0;
    if (!S_ISREG(st.st_mode)) {
        fprintf(stderr, "lockspan: --db %s: not a regular file; give a lockspan store or a "
                        "new file name\n", ls_shown(shown, sizeof(shown), path));
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
                        "as it is: give a new file name\n", ls_shown(shown, sizeof(shown), path));
        return EXIT_USAGE;
    }
    return 0;
}

/* A damaged store stops ingest before it writes (exit 1). */
static int check_store(const cli *c, ls_store *s)
{
    char errbuf[512] = "";
    int rc = ls_store_check(s, errbuf, sizeof(errbuf));
    if (rc == 0)
        return 0;
    if (rc == LS_ENOMEM)
        fprintf(stderr, "lockspan: %s: out of memory\n", c->command);
    else
        fprintf(stderr, "lockspan: --db %s: the store is damaged (%s); nothing was ingested. "
                        "Keep a copy for inspection, then ingest the logs into a new --db "
                        "file (the sqlite3 shell's .recover may save what it holds)\n",
                c->db_shown, errbuf);
    return 1;
}

/*
 * Another run holds the store (ls_store_wait_note): said before the wait
 * (unless -q), so that a run queued behind a long ingest is not silent.
 */
static void store_wait_note(void *ctx, const char *path, long holder, int busy_ms)
{
    const cli *c = ctx;
    char shown[LS_SHOWN_MAX], who[32] = "another process", until[64];

    if (c->quiet)
        return;
    if (holder > 0)
        snprintf(who, sizeof(who), "pid %ld", holder);
    if (busy_ms >= 0)
        snprintf(until, sizeof(until), "up to %d s (--busy-timeout)", busy_ms / 1000);
    else if (c->cmd->bit & (CMD_INGEST | CMD_REPORT))
        snprintf(until, sizeof(until), "as long as it takes (--busy-timeout SEC to give up)");
    else
        snprintf(until, sizeof(until), "as long as it takes");
    fprintf(stderr, "lockspan: %s: waiting for the store lock held by %s (another lockspan "
            "ingest, report or analyze of this store), %s\n",
            ls_shown(shown, sizeof(shown), path), who, until);
}

static int open_store(cli *c, const char *path, ls_store **s)
{
    char errbuf[512] = "";
    if (ls_store_open_note(s, path, c->busy_ms, store_wait_note, c, errbuf, sizeof(errbuf)) !=
        0) {
        fprintf(stderr, "lockspan: %s\n", errbuf[0] ? errbuf : "out of memory");
        return 1;
    }
    return 0;
}

/* Remove what SQLite keeps beside a store: its WAL, WAL index and
 * rollback journal (not the store). */
static void remove_store_sidecars(const char *path)
{
    static const char *const suffix[] = {"-wal", "-shm", "-journal"};
    char buf[LS_OUTFILE_PATH_MAX + 16];
    size_t i;
    for (i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
        snprintf(buf, sizeof(buf), "%s%s", path, suffix[i]);
        unlink(buf);
    }
}

/*
 * Put analyze's new store (the temporary file of `dbout`) in place of the
 * store it replaces, once no other lockspan run uses that one (its run
 * lock): the old store's WAL and journal must not be applied to the new
 * one. 0, or 1 with a message.
 */
static int replace_store(cli *c, ls_outfile *dbout)
{
    char errbuf[LS_OUTFILE_PATH_MAX + 256];
    int fd, rc = 0;

    if (ls_store_lock_note(dbout->target, c->busy_ms, store_wait_note, c, &fd, errbuf,
                           sizeof(errbuf)) != 0) {
        fprintf(stderr, "lockspan analyze: %s\n", errbuf);
        ls_outfile_abort(dbout);
        return 1;
    }
    remove_store_sidecars(dbout->target);
    if (ls_outfile_commit(dbout, 0, errbuf, sizeof(errbuf)) != 0) {
        fprintf(stderr, "lockspan analyze: cannot put the store in place: %s\n", errbuf);
        rc = 1;
    }
    ls_store_unlock(fd);
    return rc;
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
    char errbuf[LS_OUTFILE_PATH_MAX + 256];
    const char *db = c->db;
    const char *default_out = strcmp(c->format, "json") == 0   ? "lockspan-report.json"
                              : strcmp(c->format, "html") == 0 ? "lockspan-report.html"
                                                               : "lockspan-report.md";
    ls_outfile dbout, *outs = NULL;
    ls_store *s = NULL;
    int rc, outcome = 0;

    if (c->npaths == 0) {
        fprintf(stderr, "lockspan analyze: no input; give log files or directories "
                        "(see 'lockspan analyze --help')\n");
        return EXIT_USAGE;
    }
    if (db) {
        if (is_input(c, db)) {
            fprintf(stderr, "lockspan analyze: --db %s is one of the inputs; give a new file "
                            "name for the store\n", c->db_shown);
            return EXIT_USAGE;
        }
        if ((rc = check_store_path(db)) != 0)
            return rc;
    }
    if ((rc = open_outputs(c, default_out, &outs)) != 0)
        return rc;
    if (db) {
        /* Built beside the target (ls_outfile) and renamed over it at the
         * end: the old store stays whole until then, and a killed run
         * leaves a temporary file that the next run removes. */
        if (ls_outfile_open(&dbout, db, 1, errbuf, sizeof(errbuf)) != 0) {
            fprintf(stderr, "lockspan analyze: --db %s\n", errbuf);
            close_outputs(c, outs);
            return 1;
        }
        rc = open_store(c, dbout.tmp, &s);
    } else {
        /* SQLite's own temporary file, unlinked as soon as it is open */
        rc = open_store(c, "", &s);
    }
    if (rc == 0)
        rc = do_ingest(c, s, &outcome);
    if (rc == 0)
        rc = do_report(c, s, default_out, outs);
    ls_store_close(s); /* before dbout's descriptor closes: see ls_store_lock() */
    close_outputs(c, outs);
    if (db) {
        /* What SQLite left beside the temporary store (nothing, when it
         * closed cleanly): named after it, so removed while it has a name. */
        remove_store_sidecars(dbout.tmp);
        if (rc == 0)
            rc = replace_store(c, &dbout);
        else
            ls_outfile_abort(&dbout);
    }
    return rc ? rc : outcome;
}

/*
 * --retention: drop what ingest stored before the newest record's time less
 * DAYS, in one transaction. Correlation derives its tables again from what
 * is left (ingest has already cleared the 'correlated' mark).
 */
static int prune_store(cli *c, ls_store *s)
{
    static const char *const deletes[] = {
        "DELETE FROM lock_event_rows WHERE ts < (SELECT cut FROM temp.prune)",
        "DELETE FROM stmt_tags WHERE stmt_id IN (SELECT stmt_id FROM stmt_rows "
        "WHERE start_ts < (SELECT cut FROM temp.prune))",
        /* A row kept may point at a row dropped for its vxid or params
         * (stmt_rows): it takes the text first. */
        "UPDATE stmt_rows SET vxid = (SELECT v.vxid FROM stmt_rows v WHERE v.stmt_id ="
        " stmt_rows.stmt_id - stmt_rows.vxid) WHERE typeof(vxid) = 'integer' AND (SELECT"
        " v.start_ts FROM stmt_rows v WHERE v.stmt_id = stmt_rows.stmt_id - stmt_rows.vxid)"
        " < (SELECT cut FROM temp.prune)",
        "UPDATE stmt_rows SET params = (SELECT p.params FROM stmt_rows p WHERE p.stmt_id ="
        " stmt_rows.stmt_id - stmt_rows.params) WHERE typeof(params) = 'integer' AND (SELECT"
        " p.start_ts FROM stmt_rows p WHERE p.stmt_id = stmt_rows.stmt_id - stmt_rows.params)"
        " < (SELECT cut FROM temp.prune)",
        "DELETE FROM stmt_rows WHERE start_ts < (SELECT cut FROM temp.prune)",
        "DELETE FROM errors WHERE ts < (SELECT cut FROM temp.prune)",
        "DELETE FROM server_events WHERE ts < (SELECT cut FROM temp.prune)",
        "DELETE FROM deadlock_edges WHERE deadlock_id IN (SELECT deadlock_id FROM deadlocks "
        "WHERE ts < (SELECT cut FROM temp.prune))",
        "DELETE FROM deadlock_procs WHERE deadlock_id IN (SELECT deadlock_id FROM deadlocks "
        "WHERE ts < (SELECT cut FROM temp.prune))",
        "DELETE FROM deadlocks WHERE ts < (SELECT cut FROM temp.prune)",
        /* Texts no kept row refers to (statements, and the statement,
         * CONTEXT, pid list and query texts of lock messages, errors,
         * deadlocks). */
        "DELETE FROM stmt_texts WHERE text_id NOT IN (SELECT text_id FROM stmt_rows"
        " WHERE text_id IS NOT NULL UNION SELECT text_id FROM lock_event_rows"
        " WHERE text_id IS NOT NULL UNION SELECT context_id FROM lock_event_rows"
        " WHERE context_id IS NOT NULL UNION SELECT holders FROM lock_event_rows"
        " WHERE typeof(holders) = 'integer' UNION SELECT queue FROM lock_event_rows"
        " WHERE typeof(queue) = 'integer' UNION SELECT text_id FROM errors"
        " WHERE text_id IS NOT NULL UNION SELECT text_id FROM deadlock_procs"
        " WHERE text_id IS NOT NULL)",
        "DELETE FROM spans WHERE start_ts < (SELECT cut FROM temp.prune)",
        "DELETE FROM activity WHERE ts < (SELECT cut FROM temp.prune)",
        "DELETE FROM xids WHERE first_ts < (SELECT cut FROM temp.prune)",
        "DELETE FROM sessions WHERE coalesce(last_ts, first_ts) < (SELECT cut FROM temp.prune)",
        "DELETE FROM meta WHERE key = 'correlated'",
        /* The cuts would miss the beginnings of what is left: correlation
         * reads the statements (ls_store_cuts_begin()). */
        "DELETE FROM tx_cuts WHERE start_ts < (SELECT cut FROM temp.prune)",
        "UPDATE meta SET value = 'incomplete' WHERE key = 'tx_cuts'",
        "DELETE FROM tx_keys",
        "UPDATE meta SET value = 'incomplete' WHERE key = 'tx_keys'",
        /* ingest's statement counts no longer the rows': correlation
         * counts the rows (src/correlate/logging.c) */
        "DELETE FROM meta WHERE key = 'stmt_stats'",
        /* ... nor its statements per minute: the report counts the rows
         * (reports/context.c) */
        "DELETE FROM meta WHERE key = 'stmt_minutes'",
        "DROP TABLE temp.prune",
    };
    char sql[256];
    size_t i;
    int rc;

    snprintf(sql, sizeof(sql),
             "CREATE TEMP TABLE prune AS SELECT max(last_ts) - %d * 86400000000 AS cut FROM files",
             c->retention_days);
    if ((rc = ls_store_begin(s)) != 0 || (rc = ls_store_exec(s, sql)) != 0)
        return fail("--retention", rc, s);
    for (i = 0; i < sizeof(deletes) / sizeof(deletes[0]); i++)
        if ((rc = ls_store_exec(s, deletes[i])) != 0)
            return fail("--retention", rc, s);
    if ((rc = ls_store_commit(s)) != 0)
        return fail("--retention", rc, s);
    if (!c->quiet)
        fprintf(stderr, "lockspan: --retention %d: dropped what is older than %d days before "
                        "the newest record\n", c->retention_days, c->retention_days);
    return 0;
}

static int cmd_ingest(cli *c)
{
    ls_store *s = NULL;
    int rc, outcome = 0;
    if (!c->db) {
        fprintf(stderr, "lockspan ingest: --db FILE is required\n");
        return EXIT_USAGE;
    }
    if (c->npaths == 0) {
        fprintf(stderr, "lockspan ingest: no input; give log files or directories\n");
        return EXIT_USAGE;
    }
    if (is_input(c, c->db)) {
        fprintf(stderr, "lockspan ingest: --db %s is one of the inputs\n", c->db_shown);
        return EXIT_USAGE;
    }
    if ((rc = check_store_path(c->db)) != 0)
        return rc;
    if ((rc = open_store(c, c->db, &s)) != 0)
        return rc;
    if ((rc = check_store(c, s)) != 0) {
        ls_store_close(s);
        return rc;
    }
    rc = do_ingest(c, s, &outcome);
    if ((rc == 0 || rc == EXIT_BAD_LINES) && c->retention_days > 0) {
        int prc = prune_store(c, s);
        rc = prc ? prc : rc;
    }
    ls_store_close(s);
    return rc ? rc : outcome;
}

static int cmd_report(cli *c)
{
    char state[32];
    ls_outfile *outs = NULL;
    ls_store *s = NULL;
    int64_t broken = 0;
    int rc;
    if (!c->db) {
        fprintf(stderr, "lockspan report: --db FILE is required\n");
        return EXIT_USAGE;
    }
    if (c->npaths > 0) {
        char shown[LS_SHOWN_MAX];
        fprintf(stderr, "lockspan report: unexpected argument '%s'; ingest files with "
                        "'lockspan ingest'\n", ls_shown(shown, sizeof(shown), c->paths[0]));
        return EXIT_USAGE;
    }
    if (access(c->db, R_OK) != 0) {
        int e = errno;
        fprintf(stderr, "lockspan report: %s: %s\n", c->db_shown, strerror(e));
        return 1;
    }
    if ((rc = check_store_path(c->db)) != 0)
        return rc;
    if (c->per_day && c->noutputs > 0) {
        fprintf(stderr, "lockspan report: --per-day writes its own files: no -o with it\n");
        return EXIT_USAGE;
    }
    if (!c->per_day && (rc = open_outputs(c, "-", &outs)) != 0)
        return rc;
    if ((rc = open_store(c, c->db, &s)) != 0) {
        close_outputs(c, outs);
        return rc;
    }
    if (ls_store_meta_get(s, "ingest", state, sizeof(state)) != 0) {
        rc = fail("report", LS_ESTORE, s);
    } else if (strcmp(state, "complete") != 0) {
        fprintf(stderr, "lockspan report: %s: the last ingest into this store did not finish "
                        "(killed, or stopped by an error); run the same 'lockspan ingest' "
                        "again: it goes on from where the store ends\n", c->db_shown);
        rc = 1;
    } else if ((rc = note_broken_inputs(c, s, &broken)) != 0) {
        rc = fail("report", rc, s);
    } else {
        rc = c->per_day ? do_per_day(c, s) : do_report(c, s, "-", outs);
        if (rc == 0 && broken > 0)
            rc = EXIT_PARTIAL; /* the report is written, of a store that lacks some */
    }
    ls_store_close(s);
    close_outputs(c, outs);
    return rc;
}

int main(int argc, char **argv)
{
    cli c;
    int rc;

    memset(&c, 0, sizeof(c));
    c.format = "md";
    c.busy_ms = LS_STORE_BUSY_MS;
    c.max_bad = -1;
    c.max_bad_pct = 10;
    /* A report's window and grouping are analysed before it is read. */
    c.report.scope_enter = ls_correlate_scope_enter;
    c.report.scope_leave = ls_correlate_scope_leave;
    if (argc < 2) {
        cli_print_help(stderr, &spec, NULL);
        return EXIT_USAGE;
    }
    c.command = argv[1];
    if (strcmp(c.command, "--help") == 0 || strcmp(c.command, "-h") == 0 ||
        strcmp(c.command, "help") == 0) {
        const cli_command *cmd = argc > 2 ? find_command(argv[2]) : NULL;
        if (argc > 2 && !cmd) {
            fprintf(stderr, "lockspan: unknown command '%s'\n\n", argv[2]);
            cli_print_help(stderr, &spec, NULL);
            return EXIT_USAGE;
        }
        cli_print_help(stdout, &spec, cmd);
        return 0;
    }
    /* The build writes the man page and completions with these. */
    if (strcmp(c.command, "--help-man") == 0) {
        cli_print_man(stdout, &spec);
        return 0;
    }
    if (strcmp(c.command, "--help-completion") == 0) {
        if (argc == 3 && cli_print_completion(stdout, &spec, argv[2]) == 0)
            return 0;
        fprintf(stderr, "lockspan: --help-completion takes bash or zsh\n");
        return EXIT_USAGE;
    }
    if (strcmp(c.command, "version") == 0 || strcmp(c.command, "--version") == 0) {
        printf("lockspan %s\n", LS_VERSION);
        return 0;
    }
    if (!(c.cmd = find_command(c.command))) {
        fprintf(stderr, "lockspan: unknown command '%s'\n\n", c.command);
        cli_print_help(stderr, &spec, NULL);
        return EXIT_USAGE;
    }
    rc = parse_args(&c, argc - 1, argv + 1);
    if (rc)
        return rc == 1 ? 0 : rc;
    if (c.db)
        ls_shown(c.db_shown, sizeof(c.db_shown), c.db);
    if (!c.format_given && c.noutputs == 1 && format_of_path(c.outputs[0]))
        c.format = format_of_path(c.outputs[0]);
    if (c.cmd->bit == CMD_ANALYZE)
        return cmd_analyze(&c);
    if (c.cmd->bit == CMD_INGEST)
        return cmd_ingest(&c);
    return cmd_report(&c);
}
