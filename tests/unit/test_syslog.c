/*
 * test_syslog.c — the syslog parser: rsyslog headers (traditional and
 * RFC 3339), PostgreSQL's [SEQ-PIECE] numbering, pieces cut for length
 * (at a space and inside a word), lines cut at newlines, #011 / #012
 * escapes, interleaved processes, lines that are not syslog, sniffing.
 *
 * Lines are from samples/syslog/postgresql.syslog (rsyslog 8.2302
 * RSYSLOG_TraditionalFileFormat, syslog_sequence_numbers and
 * syslog_split_messages on) and samples/syslog-noseq/postgresql.syslog
 * (RSYSLOG_FileFormat, both off), written by PostgreSQL 15.20 on this
 * project's build machine, 2026-12-02, via samples/syslog.sh with
 * log_line_prefix '%m [%p] %q%u@%d/%a %c %l %v %x %e '. The interleaving
 * case reorders real lines of two processes; the '#123' case edits one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_parser.h"
#include "ls_test.h"

#define PREFIX "%m [%p] %q%u@%d/%a %c %l %v %x %e "
#define MAX_RECS 16

typedef struct got_record {
    int pid;
    uint64_t line;
    ls_ts ts;
    char sqlstate[6];
    char severity[16], message[2048], detail[512], hint[128], context[128], statement[2048],
        app[32];
} got_record;

typedef struct collector {
    got_record recs[MAX_RECS];
    int n;
    uint64_t bad_lines[MAX_RECS];
    int nbad;
} collector;

static void cp(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "(null)");
}

static int on_record(void *ctx, const ls_record *r)
{
    collector *c = ctx;
    got_record *g;
    if (c->n >= MAX_RECS)
        return 0;
    g = &c->recs[c->n++];
    g->pid = r->pid;
    g->line = r->line;
    g->ts = r->ts;
    memcpy(g->sqlstate, r->sqlstate, 6);
    cp(g->severity, sizeof(g->severity), r->severity);
    cp(g->message, sizeof(g->message), r->message);
    cp(g->detail, sizeof(g->detail), r->detail);
    cp(g->hint, sizeof(g->hint), r->hint);
    cp(g->context, sizeof(g->context), r->context);
    cp(g->statement, sizeof(g->statement), r->statement);
    cp(g->app, sizeof(g->app), r->application);
    return 0;
}

static void on_bad(void *ctx, const char *file, uint64_t line, const char *reason, const char *text,
                   size_t len)
{
    collector *c = ctx;
    if (c->nbad < MAX_RECS)
        c->bad_lines[c->nbad++] = line;
}

static void parse_lines_with(collector *c, const char *prefix, const char *const *lines, int n)
{
    ls_sink sink = {.record = on_record, .bad = on_bad, .ctx = c};
    ls_parse_opts o = {.file = "test.syslog", .prefix = prefix};
    void *p = NULL;
    char err[256];
    int i;
    memset(c, 0, sizeof(*c));
    CHECK_INT(ls_syslog_parser.create(&p, &o, &sink, err, sizeof(err)), 0);
    if (!p)
        return;
    for (i = 0; i < n; i++)
        CHECK_INT(ls_syslog_parser.feed(p, lines[i], strlen(lines[i]), (uint64_t)i + 1), 0);
    CHECK_INT(ls_syslog_parser.finish(p), 0);
    ls_syslog_parser.destroy(p);
}

static void parse_lines(collector *c, const char *const *lines, int n)
{
    parse_lines_with(c, PREFIX, lines, n);
}

static const got_record *find_pid(const collector *c, int pid, int nth)
{
    int i;
    for (i = 0; i < c->n; i++)
        if (c->recs[i].pid == pid && nth-- == 0)
            return &c->recs[i];
    return NULL;
}

static const char deadlock_detail[] =
    "Process 24901 waits for ShareLock on transaction 744; blocked by process 24900.\n"
    "Process 24900 waits for ShareLock on transaction 745; blocked by process 24901.\n"
    "Process 24901: UPDATE accounts SET balance = balance + 20 WHERE id = 4\n"
    "Process 24900: UPDATE accounts SET balance = balance + 20 WHERE id = 5";

static void check_deadlock(const got_record *r)
{
    CHECK(r != NULL);
    if (!r)
        return;
    CHECK_STR(r->severity, "ERROR");
    CHECK_STR(r->sqlstate, "40P01");
    CHECK_STR(r->message, "deadlock detected");
    CHECK_STR(r->detail, deadlock_detail);
    CHECK_STR(r->hint, "See server log for query details.");
    CHECK_STR(r->context, "while updating tuple (0,4) in relation \"accounts\"");
    CHECK_STR(r->statement, "UPDATE accounts SET balance = balance + 20 WHERE id = 4");
    CHECK_STR(r->app, "refunds");
    CHECK_INT(r->ts, 1796213638689000LL);
}

/* Traditional header, [12-1]..[12-8], DETAIL continuation lines as #011. */
static void test_pieces_traditional(void)
{
    static const char *const lines[] = {
        "Dec  2 12:13:58 vm postgres[24901]: [12-1] 2026-12-02 12:13:58.689 UTC [24901] postgres@"
        "lockspan/refunds 6b100b86.6145 10 5/12 745 40P01 ERROR:  deadlock detected",
        "Dec  2 12:13:58 vm postgres[24901]: [12-2] 2026-12-02 12:13:58.689 UTC [24901] postgres@"
        "lockspan/refunds 6b100b86.6145 11 5/12 745 40P01 DETAIL:  Process 24901 waits for ShareL"
        "ock on transaction 744; blocked by process 24900.",
        "Dec  2 12:13:58 vm postgres[24901]: [12-3] #011Process 24900 waits for ShareLock on tran"
        "saction 745; blocked by process 24901.",
        "Dec  2 12:13:58 vm postgres[24901]: [12-4] #011Process 24901: UPDATE accounts SET balanc"
        "e = balance + 20 WHERE id = 4",
        "Dec  2 12:13:58 vm postgres[24901]: [12-5] #011Process 24900: UPDATE accounts SET balanc"
        "e = balance + 20 WHERE id = 5",
        "Dec  2 12:13:58 vm postgres[24901]: [12-6] 2026-12-02 12:13:58.689 UTC [24901] postgres@"
        "lockspan/refunds 6b100b86.6145 12 5/12 745 40P01 HINT:  See server log for query details"
        ".",
        "Dec  2 12:13:58 vm postgres[24901]: [12-7] 2026-12-02 12:13:58.689 UTC [24901] postgres@"
        "lockspan/refunds 6b100b86.6145 13 5/12 745 40P01 CONTEXT:  while updating tuple (0,4) in"
        " relation \"accounts\"",
        "Dec  2 12:13:58 vm postgres[24901]: [12-8] 2026-12-02 12:13:58.689 UTC [24901] postgres@"
        "lockspan/refunds 6b100b86.6145 14 5/12 745 40P01 STATEMENT:  UPDATE accounts SET balance"
        " = balance + 20 WHERE id = 4",
    };
    collector c;
    parse_lines(&c, lines, 8);
    CHECK_INT(c.n, 1);
    CHECK_INT(c.nbad, 0);
    CHECK_INT(c.recs[0].pid, 24901);
    CHECK_INT(c.recs[0].line, 1);
    check_deadlock(&c.recs[0]);
}

/* Two processes' pieces interleaved: each TAB line goes to its own pid. */
static void test_interleaved(void)
{
    static const char *const lines[] = {
        "Dec  2 12:13:58 vm postgres[24901]: [12-1] 2026-12-02 12:13:58.689 UTC [24901] postgres@"
        "lockspan/refunds 6b100b86.6145 10 5/12 745 40P01 ERROR:  deadlock detected",
        "Dec  2 12:13:58 vm postgres[24901]: [12-2] 2026-12-02 12:13:58.689 UTC [24901] postgres@"
        "lockspan/refunds 6b100b86.6145 11 5/12 745 40P01 DETAIL:  Process 24901 waits for ShareL"
        "ock on transaction 744; blocked by process 24900.",
        "Dec  2 12:13:58 vm postgres[24900]: [12-1] 2026-12-02 12:13:58.689 UTC [24900] postgres@"
        "lockspan/billing 6b100b86.6144 10 4/12 744 00000 LOG:  process 24900 acquired ShareLock "
        "on transaction 745 after 502.709 ms",
        "Dec  2 12:13:58 vm postgres[24901]: [12-3] #011Process 24900 waits for ShareLock on tran"
        "saction 745; blocked by process 24901.",
        "Dec  2 12:13:58 vm postgres[24900]: [12-2] 2026-12-02 12:13:58.689 UTC [24900] postgres@"
        "lockspan/billing 6b100b86.6144 11 4/12 744 00000 CONTEXT:  while updating tuple (0,5) in"
        " relation \"accounts\"",
        "Dec  2 12:13:58 vm postgres[24901]: [12-4] #011Process 24901: UPDATE accounts SET balanc"
        "e = balance + 20 WHERE id = 4",
        "Dec  2 12:13:58 vm postgres[24901]: [12-5] #011Process 24900: UPDATE accounts SET balanc"
        "e = balance + 20 WHERE id = 5",
        "Dec  2 12:13:58 vm postgres[24900]: [12-3] 2026-12-02 12:13:58.689 UTC [24900] postgres@"
        "lockspan/billing 6b100b86.6144 12 4/12 744 00000 STATEMENT:  UPDATE accounts SET balance"
        " = balance + 20 WHERE id = 5",
        "Dec  2 12:13:58 vm postgres[24901]: [12-6] 2026-12-02 12:13:58.689 UTC [24901] postgres@"
        "lockspan/refunds 6b100b86.6145 12 5/12 745 40P01 HINT:  See server log for query details"
        ".",
        "Dec  2 12:13:58 vm postgres[24901]: [12-7] 2026-12-02 12:13:58.689 UTC [24901] postgres@"
        "lockspan/refunds 6b100b86.6145 13 5/12 745 40P01 CONTEXT:  while updating tuple (0,4) in"
        " relation \"accounts\"",
        "Dec  2 12:13:58 vm postgres[24901]: [12-8] 2026-12-02 12:13:58.689 UTC [24901] postgres@"
        "lockspan/refunds 6b100b86.6145 14 5/12 745 40P01 STATEMENT:  UPDATE accounts SET balance"
        " = balance + 20 WHERE id = 4",
        "Dec  2 12:13:58 vm postgres[24900]: [13-1] 2026-12-02 12:13:58.689 UTC [24900] postgres@"
        "lockspan/billing 6b100b86.6144 13 4/12 744 00000 LOG:  duration: 503.208 ms  statement: "
        "UPDATE accounts SET balance = balance + 20 WHERE id = 5",
    };
    collector c;
    const got_record *r;
    parse_lines(&c, lines, 12);
    CHECK_INT(c.n, 3);
    CHECK_INT(c.nbad, 0);
    check_deadlock(find_pid(&c, 24901, 0));
    r = find_pid(&c, 24900, 0);
    CHECK(r != NULL);
    if (r) {
        CHECK_STR(r->message,
                  "process 24900 acquired ShareLock on transaction 745 after 502.709 ms");
        CHECK_STR(r->detail, "(null)");
        CHECK_STR(r->context, "while updating tuple (0,5) in relation \"accounts\"");
        CHECK_STR(r->statement, "UPDATE accounts SET balance = balance + 20 WHERE id = 5");
    }
    r = find_pid(&c, 24900, 1);
    CHECK(r != NULL);
    if (r)
        CHECK_STR(r->message, "duration: 503.208 ms  statement: UPDATE accounts SET balance = "
                              "balance + 20 WHERE id = 5");
}

/*
 * Statements longer than a 900-byte piece: [8-2] starts with the space the
 * line was cut before; [9-3] was cut inside a word, after a full [9-2];
 * [10-2] is the next line of the message ("\n\t" + the statement's TAB).
 */
static void test_length_split(void)
{
    static const char *const lines[] = {
        "Dec  2 12:14:01 vm postgres[25016]: [8-1] 2026-12-02 12:14:01.818 UTC [25016] postgres@l"
        "ockspan/lockspan-long 6b100b89.61b8 3 3/0 0 00000 LOG:  duration: 0.583 ms  statement: S"
        "ELECT length('lorem001 lorem002 lorem003 lorem004 lorem005 lorem006 lorem007 lorem008 lo"
        "rem009 lorem010 lorem011 lorem012 lorem013 lorem014 lorem015 lorem016 lorem017 lorem018 "
        "lorem019 lorem020 lorem021 lorem022 lorem023 lorem024 lorem025 lorem026 lorem027 lorem02"
        "8 lorem029 lorem030 lorem031 lorem032 lorem033 lorem034 lorem035 lorem036 lorem037 lorem"
        "038 lorem039 lorem040 lorem041 lorem042 lorem043 lorem044 lorem045 lorem046 lorem047 lor"
        "em048 lorem049 lorem050 lorem051 lorem052 lorem053 lorem054 lorem055 lorem056 lorem057 l"
        "orem058 lorem059 lorem060 lorem061 lorem062 lorem063 lorem064 lorem065 lorem066 lorem067"
        " lorem068 lorem069 lorem070 lorem071 lorem072 lorem073 lorem074 lorem075 lorem076 lorem0"
        "77 lorem078 lorem079 lorem080 lorem081 lorem082 lorem083",
        "Dec  2 12:14:01 vm postgres[25016]: [8-2]  lorem084 lorem085 lorem086 lorem087 lorem088 "
        "lorem089 lorem090 lorem091 lorem092 lorem093 lorem094 lorem095 lorem096 lorem097 lorem09"
        "8 lorem099 lorem100 lorem101 lorem102 lorem103 lorem104 lorem105 lorem106 lorem107 lorem"
        "108 lorem109 lorem110 lorem111 lorem112 lorem113 lorem114 lorem115 lorem116 lorem117 lor"
        "em118 lorem119 lorem120 lorem121 lorem122 lorem123 lorem124 lorem125 lorem126 lorem127 l"
        "orem128 lorem129 lorem130 lorem131 lorem132 lorem133 lorem134 lorem135 lorem136 lorem137"
        " lorem138 lorem139 lorem140 lorem141 lorem142 lorem143 lorem144 lorem145 lorem146 lorem1"
        "47 lorem148 lorem149 lorem150 ') AS words;",
        "Dec  2 12:14:01 vm postgres[25016]: [9-1] 2026-12-02 12:14:01.822 UTC [25016] postgres@l"
        "ockspan/lockspan-long 6b100b89.61b8 4 3/0 0 00000 LOG:  duration: 0.143 ms  statement: S"
        "ELECT",
        "Dec  2 12:14:01 vm postgres[25016]: [9-2]  length('xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "Dec  2 12:14:01 vm postgres[25016]: [9-3] xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'"
        ") AS longword;",
        "Dec  2 12:14:01 vm postgres[25016]: [10-1] 2026-12-02 12:14:01.822 UTC [25016] postgres@"
        "lockspan/lockspan-long 6b100b89.61b8 5 3/0 0 00000 LOG:  duration: 0.035 ms  statement: "
        "SELECT 1 AS a,",
        "Dec  2 12:14:01 vm postgres[25016]: [10-2] #011#0112 AS b;",
    };
    char words[2048], xs[2048];
    size_t n = 0;
    int i;
    collector c;

    n += (size_t)snprintf(words, sizeof(words), "duration: 0.583 ms  statement: SELECT length('");
    for (i = 1; i <= 150; i++)
        n += (size_t)snprintf(words + n, sizeof(words) - n, "lorem%03d ", i);
    snprintf(words + n, sizeof(words) - n, "') AS words;");
    n = (size_t)snprintf(xs, sizeof(xs), "duration: 0.143 ms  statement: SELECT length('");
    memset(xs + n, 'x', 1200);
    snprintf(xs + n + 1200, sizeof(xs) - n - 1200, "') AS longword;");

    parse_lines(&c, lines, 7);
    CHECK_INT(c.n, 3);
    CHECK_INT(c.nbad, 0);
    CHECK_STR(c.recs[0].message, words);
    CHECK_INT(c.recs[0].line, 1);
    CHECK_STR(c.recs[1].message, xs);
    CHECK_INT(c.recs[1].line, 3);
    CHECK_STR(c.recs[2].message, "duration: 0.035 ms  statement: SELECT 1 AS a,\n\t2 AS b;");
    CHECK_STR(c.recs[2].app, "lockspan-long");
}

/* RFC 3339 header, no numbers, whole message in one line with #012. */
static void test_unsplit_rfc3339(void)
{
    static const char *const lines[] = {
        "2026-12-02T12:14:10.689771+00:00 vm postgres[25298]: 2026-12-02 12:14:10.689 UTC [25298]"
        " postgres@lockspan/refunds 6b100b92.62d2 10 5/12 745 40P01 ERROR:  deadlock detected#012"
        "2026-12-02 12:14:10.689 UTC [25298] postgres@lockspan/refunds 6b100b92.62d2 11 5/12 745 "
        "40P01 DETAIL:  Process 25298 waits for ShareLock on transaction 744; blocked by process "
        "25297.#012#011Process 25297 waits for ShareLock on transaction 745; blocked by process 2"
        "5298.#012#011Process 25298: UPDATE accounts SET balance = balance + 20 WHERE id = 4#012#"
        "011Process 25297: UPDATE accounts SET balance = balance + 20 WHERE id = 5#0122026-12-02 "
        "12:14:10.689 UTC [25298] postgres@lockspan/refunds 6b100b92.62d2 12 5/12 745 40P01 HINT:"
        "  See server log for query details.#0122026-12-02 12:14:10.689 UTC [25298] postgres@lock"
        "span/refunds 6b100b92.62d2 13 5/12 745 40P01 CONTEXT:  while updating tuple (0,4) in rel"
        "ation \"accounts\"#0122026-12-02 12:14:10.689 UTC [25298] postgres@lockspan/refunds 6b10"
        "0b92.62d2 14 5/12 745 40P01 STATEMENT:  UPDATE accounts SET balance = balance + 20 WHERE"
        " id = 4",
        "2026-12-02T12:14:13.778569+00:00 vm postgres[25388]: 2026-12-02 12:14:13.778 UTC [25388]"
        " postgres@lockspan/lockspan-long 6b100b95.632c 5 3/0 0 00000 LOG:  duration: 0.061 ms  s"
        "tatement: SELECT 1 AS a,#012#011#0112 AS b;",
    };
    collector c;
    parse_lines(&c, lines, 2);
    CHECK_INT(c.n, 2);
    CHECK_INT(c.nbad, 0);
    CHECK_INT(c.recs[0].pid, 25298);
    CHECK_STR(c.recs[0].message, "deadlock detected");
    CHECK(strstr(c.recs[0].detail, "\nProcess 25297: UPDATE accounts SET balance = balance + "
                                   "20 WHERE id = 5") != NULL);
    CHECK_STR(c.recs[0].hint, "See server log for query details.");
    CHECK_STR(c.recs[0].statement, "UPDATE accounts SET balance = balance + 20 WHERE id = 4");
    CHECK_INT(c.recs[0].ts, 1796213650689000LL);
    CHECK_STR(c.recs[1].message, "duration: 0.061 ms  statement: SELECT 1 AS a,\n\t2 AS b;");
}

/* Only control-character escapes are undone; a non-syslog line is bad. */
static void test_escapes_and_bad_lines(void)
{
    static const char *const lines[] = {
        "Dec  2 12:13:58 vm postgres[24901]: [13-1] 2026-12-02 12:13:58.689 UTC [24901] "
        "postgres@lockspan/refunds 6b100b86.6145 15 5/0 0 00000 LOG:  duration: 0.036 ms  "
        "statement: SELECT '#123', '#0119'",
        "2026-12-02 12:13:58.689 UTC [24901] LOG:  a stderr line in a syslog file",
        "",
        "Dec  2 12:13:58 vm",
    };
    collector c;
    parse_lines(&c, lines, 4);
    CHECK_INT(c.n, 1);
    CHECK_STR(c.recs[0].message, "duration: 0.036 ms  statement: SELECT '#123', '\t9'");
    CHECK_INT(c.nbad, 2);
    CHECK_INT(c.bad_lines[0], 2);
    CHECK_INT(c.bad_lines[1], 4);
}

/*
 * Heroku logplex: the header's "app[postgres.PID]", the "[COLOR] " word,
 * then PostgreSQL's "[SEQ-PIECE] " and the prefix ' sql_error_code = %e '
 * (no time, no pid: the header's). Lines quoted in two public documents
 * found on GitHub: a 2017 post on running Dexter on Heroku logs (a
 * statement in four pieces) and 2020 performance notes (a checkpoint).
 */
static void test_heroku(void)
{
    static const char *const lines[] = {
        "2017-06-28T15:10:02+00:00 app[postgres.13761]: [DATABASE] [7-1]  sql_error_code = 00000 "
        "LOG:  duration: 4822.012 ms  statement: BEGIN READ ONLY;",
        "2017-06-28T15:10:02+00:00 app[postgres.13761]: [DATABASE] [7-2]       SELECT column",
        "2017-06-28T15:10:02+00:00 app[postgres.13761]: [DATABASE] [7-3]         FROM table",
        "2017-06-28T15:10:02+00:00 app[postgres.13761]: [DATABASE] [7-4]        WHERE condition",
        "2020-09-24T19:49:50.000000+00:00 app[postgres.135]: [PINK] [18751-1]  sql_error_code = "
        "00000 LOG:  checkpoint complete: wrote 3005 buffers (3.0%); 0 WAL file(s) added, 0 "
        "removed, 9 recycled; write=301.200 s, sync=0.004 s, total=301.224 s; sync files=93, "
        "longest=0.002 s, average=0.000 s; distance=130790 kB, estimate=343227 kB",
    };
    collector c;
    const got_record *r;
    int i;

    for (i = 0; i < 5; i++)
        CHECK(ls_syslog_parser.sniff(lines[i], strlen(lines[i])) >= 80);
    parse_lines_with(&c, " sql_error_code = %e ", lines, 5);
    CHECK_INT(c.nbad, 0);
    CHECK_INT(c.n, 2);
    r = find_pid(&c, 13761, 0);
    CHECK(r != NULL);
    if (r) {
        CHECK_INT(r->ts, 1498662602000000LL);
        CHECK_STR(r->sqlstate, "00000");
        CHECK_STR(r->severity, "LOG");
        CHECK(strncmp(r->message, "duration: 4822.012 ms  statement: BEGIN READ ONLY;", 50) == 0);
        CHECK(strstr(r->message, "SELECT column") && strstr(r->message, "WHERE condition"));
    }
    r = find_pid(&c, 135, 0);
    CHECK(r != NULL && r->ts == 1600976990000000LL);
}

static void test_sniff(void)
{
    static const char *const seq_line[] = {
        "Dec  2 12:13:58 vm postgres[24901]: [12-1] 2026-12-02 12:13:58.689 UTC [24901] postgres@"
        "lockspan/refunds 6b100b86.6145 10 5/12 745 40P01 ERROR:  deadlock detected",
    };
    static const char *const noseq_line[] = {
        "2026-12-02T12:14:13.778569+00:00 vm postgres[25388]: 2026-12-02 12:14:13.778 UTC [25388]"
        " postgres@lockspan/lockspan-long 6b100b95.632c 5 3/0 0 00000 LOG:  duration: 0.061 ms  s"
        "tatement: SELECT 1 AS a,#012#011#0112 AS b;",
    };
    static const char stderr_line[] =
        "2026-12-02 11:45:04.536 UTC [4375] postgres@lockspan/checkout 6b1004c0.1117 5 5/3 735 "
        "00000 LOG:  process 4375 still waiting for ShareLock on transaction 734 after 100.177 ms";
    static const char rds_line[] =
        "2026-12-02 12:10:04 UTC::@:[20241]:LOG:  listening on IPv4 address \"127.0.0.1\", port "
        "54372";
    /* syslog_ident = 'pg-main', header as journalctl or another daemon may write it */
    static const char other_ident[] =
        "vm pg-main[24901]: [12-1] 2026-12-02 12:13:58.689 UTC [24901] LOG:  x";
    static const char other_program[] = "Dec  2 12:13:58 vm CRON[812]: (root) CMD (true)";

    CHECK_INT(ls_syslog_parser.sniff(seq_line[0], strlen(seq_line[0])), 80);
    CHECK_INT(ls_syslog_parser.sniff(noseq_line[0], strlen(noseq_line[0])), 80);
    CHECK(ls_stderr_parser.sniff(seq_line[0], strlen(seq_line[0])) < 80);
    CHECK_INT(ls_syslog_parser.sniff(stderr_line, strlen(stderr_line)), 0);
    CHECK_INT(ls_syslog_parser.sniff(rds_line, strlen(rds_line)), 0);
    CHECK_INT(ls_syslog_parser.sniff(other_ident, strlen(other_ident)), 80);
    CHECK_INT(ls_syslog_parser.sniff(other_program, strlen(other_program)), 0);
    CHECK(ls_parser_find("syslog") == &ls_syslog_parser);
}

/*
 * pgBadger's fixture t/fixtures/logplex.gz (github.com/darold/pgbadger,
 * commit a1ad95a0, PostgreSQL licence), lines 9, 10, 11 and 17-18: a
 * deadlock's ERROR and its DETAIL, HINT and CONTEXT, each a piece of the
 * message whose text starts with the prefix ' sql_error_code = %e ' (a
 * space first, as a piece cut for length at a space does); the DETAIL's
 * own lines are TAB pieces. With the prefix given and inferred.
 */
static void test_logplex_secondary(void)
{
    static const char *const lines[] = {
        "2019-03-14T00:23:00+00:00 app[postgres.4849]: [GREEN] [19-1]  sql_error_code = 40P01 "
        "ERROR:  deadlock detected",
        "2019-03-14T00:23:00+00:00 app[postgres.4849]: [GREEN] [19-2]  sql_error_code = 40P01 "
        "DETAIL:  Process 4849 waits for ShareLock on transaction 259635360; blocked by process "
        "4821.",
        "2019-03-14T00:23:00+00:00 app[postgres.4849]: [GREEN] [19-3] \tProcess 4821 waits for "
        "ShareLock on transaction 259635221; blocked by process 4796.",
        "2019-03-14T00:23:00+00:00 app[postgres.4849]: [GREEN] [19-8]  sql_error_code = 40P01 "
        "HINT:  See server log for query details.",
        "2019-03-14T00:23:00+00:00 app[postgres.4849]: [GREEN] [19-9]  sql_error_code = 40P01 "
        "CONTEXT:  while locking tuple (1320064,42) in relation \"redacted_table_2\"",
    };
    static const char *const prefixes[] = {" sql_error_code = %e ", NULL};
    collector c;
    int k;

    for (k = 0; k < 2; k++) {
        /* [19-8] does not follow [19-3]: a message of its own as far as
         * the numbers go; the HINT still joins the ERROR (the stderr
         * parser's secondary lines), and [19-9] is a piece after it */
        parse_lines_with(&c, prefixes[k], lines, 5);
        CHECK_INT(c.nbad, 0);
        CHECK_INT(c.n, 1);
        if (c.n != 1)
            continue;
        CHECK_STR(c.recs[0].severity, "ERROR");
        CHECK_STR(c.recs[0].message, "deadlock detected");
        CHECK_STR(c.recs[0].detail,
                  "Process 4849 waits for ShareLock on transaction 259635360; blocked by process "
                  "4821.\nProcess 4821 waits for ShareLock on transaction 259635221; blocked by "
                  "process 4796.");
        CHECK_STR(c.recs[0].hint, "See server log for query details.");
        CHECK_STR(c.recs[0].context, "while locking tuple (1320064,42) in relation \"redacted_table_2\"");
    }
}

int main(void)
{
    test_pieces_traditional();
    test_interleaved();
    test_length_split();
    test_unsplit_rfc3339();
    test_escapes_and_bad_lines();
    test_sniff();
    test_heroku();
    test_logplex_secondary();
    return TEST_REPORT();
}
