/*
 * test_prefix_infer.c — ls_prefix_infer() on real logs and hand-written
 * cases, and the time zones of real logs against client-side UTC.
 *
 * Real logs: samples/prefixes/<n>.log and samples/timezones/<n>.log, written
 * by a PostgreSQL 15.18 server that samples/prefixes.sh drove (see there),
 * and samples/forged/<n>.log (samples/forged.sh: a client's application_name
 * looks like a prefix and a severity);
 * <n>.prefix is the log_line_prefix the server really had. The samples
 * directory is found from this file's path (CMake compiles it by absolute
 * path) or given as argv[1].
 *
 * An inferred prefix passes when it equals the true one, or when it is
 * equivalent: both compile, and every line of the log matches both or
 * neither, with the same message offset and the same field slices.
 *
 * Time zones: <n>.utc lists "<mark> <UTC>" where <UTC> is now() AT TIME ZONE
 * 'UTC' that the client got from the statement carrying <mark>; the
 * statement's "duration:" line is logged after now() was taken, so the
 * parsed log time must lie in [UTC truncated to the log's resolution,
 * UTC + 1 s].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_common.h"
#include "ls_prefix.h"
#include "ls_test.h"

#define MAX_LINES 200

typedef struct log_file {
    char *text;
    const char *lines[4096];
    size_t lens[4096];
    int n;
} log_file;

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
        !(buf = malloc((size_t)n + 1))) {
        fclose(f);
        return NULL;
    }
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        fclose(f);
        return NULL;
    }
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static int log_load(log_file *lf, const char *path)
{
    char *p, *nl;

    memset(lf, 0, sizeof(*lf));
    if (!(lf->text = read_all(path)))
        return -1;
    for (p = lf->text; *p && lf->n < 4096; p = nl + 1) {
        nl = strchr(p, '\n');
        if (!nl)
            nl = p + strlen(p);
        lf->lines[lf->n] = p;
        lf->lens[lf->n++] = (size_t)(nl - p);
        if (!*nl)
            break;
    }
    return 0;
}

/* Both specs read every line of lf the same way. */
static int equivalent(const log_file *lf, const char *a, const char *b)
{
    ls_prefix *pa = NULL, *pb = NULL;
    char err[256];
    int i, k, same = 1;

    if (ls_prefix_compile(&pa, a, err, sizeof(err)) || ls_prefix_compile(&pb, b, err, sizeof(err)))
        same = 0;
    for (i = 0; same && i < lf->n; i++) {
        ls_prefix_match ma, mb;
        int ra = ls_prefix_match_line(pa, lf->lines[i], lf->lens[i], &ma);
        int rb = ls_prefix_match_line(pb, lf->lines[i], lf->lens[i], &mb);

        if (ra != rb) {
            fprintf(stderr, "  line %d: matches %d with '%s', %d with '%s'\n", i + 1, ra, a, rb, b);
            same = 0;
        }
        if (ra != 1 || !same)
            continue;
        same = ma.msg_off == mb.msg_off;
        for (k = 0; k < LS_PF__COUNT && same; k++)
            same = ma.f[k].len == mb.f[k].len && ma.f[k].ptr == mb.f[k].ptr;
        if (!same)
            fprintf(stderr, "  line %d: fields differ ('%s' vs '%s')\n", i + 1, a, b);
    }
    ls_prefix_free(pa);
    ls_prefix_free(pb);
    return same;
}

/* Infer the prefix of dir/<n>.log and compare with dir/<n>.prefix. */
static void check_real(const char *dir, int n, int *exact)
{
    char path[1200], got[512], why[512];
    char *want;
    log_file *lf = calloc(1, sizeof(*lf));
    int rc;

    snprintf(path, sizeof(path), "%s/%d.prefix", dir, n);
    want = read_all(path);
    snprintf(path, sizeof(path), "%s/%d.log", dir, n);
    CHECK(want != NULL && lf && log_load(lf, path) == 0);
    if (!want || !lf || !lf->text) {
        free(want);
        free(lf);
        return;
    }
    rc = ls_prefix_infer(got, sizeof(got), lf->lines, lf->lens,
                         lf->n < MAX_LINES ? lf->n : MAX_LINES, why, sizeof(why));
    CHECK_INT(rc, 0);
    if (rc == 0) {
        int eq = strcmp(got, want) == 0;
        printf("%s: true '%s', inferred '%s' (%s)\n", path, want, got,
               eq ? "equal" : "not equal");
        *exact += eq;
        CHECK(eq || equivalent(lf, got, want));
    } else {
        fprintf(stderr, "%s: %s\n", path, why);
    }
    free(lf->text);
    free(lf);
    free(want);
}

static int contains(const char *s, size_t n, const char *w)
{
    size_t k, m = strlen(w);

    for (k = 0; k + m <= n; k++)
        if (memcmp(s + k, w, m) == 0)
            return 1;
    return 0;
}

/* log time of the line carrying `mark`, via the true prefix. */
static int mark_time(const log_file *lf, ls_prefix *p, const char *mark, ls_ts *out,
                     ls_ts *resolution)
{
    int i;

    for (i = 0; i < lf->n; i++) {
        ls_prefix_match m;
        ls_slice t;

        if (!contains(lf->lines[i], lf->lens[i], mark) ||
            !contains(lf->lines[i], lf->lens[i], "duration:") ||
            ls_prefix_match_line(p, lf->lines[i], lf->lens[i], &m) != 1)
            continue;
        t = m.f[LS_PF_TIME_MS].ptr ? m.f[LS_PF_TIME_MS] : m.f[LS_PF_TIME];
        *resolution = m.f[LS_PF_TIME_MS].ptr ? 1000 : 1000000;
        return t.ptr ? ls_ts_parse(out, t.ptr, t.len) : -1;
    }
    return -1;
}

static void check_zone(const char *dir, int n)
{
    char path[1200], *spec, *zone, *utc, *line, *save = NULL;
    log_file *lf = calloc(1, sizeof(*lf));
    ls_prefix *p = NULL;
    char err[256];
    int marks = 0;

    snprintf(path, sizeof(path), "%s/%d.prefix", dir, n);
    spec = read_all(path);
    snprintf(path, sizeof(path), "%s/%d.zone", dir, n);
    zone = read_all(path);
    snprintf(path, sizeof(path), "%s/%d.utc", dir, n);
    utc = read_all(path);
    snprintf(path, sizeof(path), "%s/%d.log", dir, n);
    CHECK(spec && zone && utc && lf && log_load(lf, path) == 0);
    if (!spec || !zone || !utc || !lf || !lf->text ||
        ls_prefix_compile(&p, spec, err, sizeof(err)) != 0)
        goto out;
    for (line = strtok_r(utc, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *sp = strchr(line, ' ');
        ls_ts truth, got = 0, res = 0;
        char quoted[128];

        if (!sp)
            continue;
        *sp = '\0';
        CHECK(ls_ts_parse(&truth, sp + 1, strlen(sp + 1)) == 0);
        snprintf(quoted, sizeof(quoted), "'%s'", line);
        CHECK(mark_time(lf, p, quoted, &got, &res) == 0);
        CHECK(got >= truth - truth % res && got <= truth + 1000000);
        if (!(got >= truth - truth % res && got <= truth + 1000000))
            fprintf(stderr, "%s (%s) %s: log %lld, true %lld\n", path, zone, line,
                    (long long)got, (long long)truth);
        marks++;
    }
    CHECK(marks == 2);
    printf("%s: log_timezone %s, %d marks checked\n", path, zone, marks);
out:
    ls_prefix_free(p);
    if (lf)
        free(lf->text);
    free(lf);
    free(spec);
    free(zone);
    free(utc);
}

/* Hand-written: shapes the real logs do not have, and refusals. */
typedef struct synth_case {
    const char *want; /* NULL = must fail */
    const char *lines[9];
} synth_case;

static const synth_case synth[] = {
    /* synthetic: %h alone, %e before the severity */
    {"%m %h [%p] %e ",
     {"2024-01-02 03:04:05.123 UTC 10.0.0.7 [42] 00000 LOG:  a",
      "2024-01-02 03:04:05.124 UTC 10.0.0.7 [42] 22012 ERROR:  division by zero",
      "2024-01-02 03:04:05.125 UTC 10.0.0.8 [43] 00000 LOG:  b", NULL}},
    /* synthetic: a two-line file still infers when every line matches */
    {"%m [%p] ",
     {"2024-01-02 03:04:05.123 UTC [42] LOG:  a", "\tcontinued",
      "2024-01-02 03:04:05.124 UTC [42] DETAIL:  b", NULL}},
    /*
     * Real: 7 lines of pgBadger's fixture t/fixtures/light.postgres.log.bz2
     * (github.com/darold/pgbadger, commit a1ad95a0, PostgreSQL licence), a
     * log with most lines left out: %l rises on every line of a process but
     * not by one. It once came out as '[%x-1]'.
     */
    {"%t [%p]: [%l-1] user=%u,db=%d,app=%a,client=%h ",
     {"2017-09-06 08:41:41 UTC [36]: [121-1] user=postgres,db=postgres,app=pgbench,"
      "client=172.23.0.1 LOG:  duration: 2.280 ms  statement: END;",
      "2017-09-06 08:41:53 UTC [40]: [1671-1] user=postgres,db=postgres,app=pgbench,"
      "client=172.23.0.1 LOG:  duration: 0.552 ms  statement: SELECT abalance FROM "
      "pgbench_accounts WHERE aid = 56632;",
      "2017-09-06 08:42:23 UTC [40]: [5463-1] user=postgres,db=postgres,app=pgbench,"
      "client=172.23.0.1 LOG:  duration: 0.043 ms  statement: BEGIN;",
      "2017-09-06 08:42:25 UTC [30]: [5598-1] user=postgres,db=postgres,app=pgbench,"
      "client=172.23.0.1 LOG:  duration: 0.100 ms  statement: SELECT abalance FROM "
      "pgbench_accounts WHERE aid = 23606;",
      "2017-09-06 08:42:57 UTC [36]: [9548-1] user=postgres,db=postgres,app=pgbench,"
      "client=172.23.0.1 LOG:  duration: 2.213 ms  statement: END;",
      "2017-09-06 08:43:02 UTC [36]: [10174-1] user=postgres,db=postgres,app=pgbench,"
      "client=172.23.0.1 LOG:  duration: 0.128 ms  statement: SELECT abalance FROM "
      "pgbench_accounts WHERE aid = 36174;",
      "2017-09-06 08:43:04 UTC [30]: [10314-1] user=postgres,db=postgres,app=pgbench,"
      "client=172.23.0.1 LOG:  duration: 0.022 ms  statement: BEGIN;",
      NULL}},
    /* no severity anywhere */
    {NULL, {"hello", "world", NULL}},
    /* prefixes of different shapes: no candidate covers 95% */
    {NULL,
     {"abc LOG:  x", "12 xyz 9 ERROR:  y", "[q] (z) LOG:  z",
      "2024-01-02 03:04:05.124 UTC [42] LOG:  b", "1 LOG:  c", "x-y-z LOG:  d", NULL}},
};

static void check_synthetic(void)
{
    size_t i;

    for (i = 0; i < sizeof(synth) / sizeof(synth[0]); i++) {
        size_t lens[9];
        char got[256], why[256];
        int n, rc;

        for (n = 0; synth[i].lines[n]; n++)
            lens[n] = strlen(synth[i].lines[n]);
        rc = ls_prefix_infer(got, sizeof(got), synth[i].lines, lens, n, why, sizeof(why));
        if (synth[i].want) {
            CHECK_INT(rc, 0);
            CHECK_STR(got, synth[i].want);
        } else {
            CHECK_INT(rc, LS_EFORMAT);
            CHECK(why[0] != '\0');
        }
    }
}

int main(int argc, char **argv)
{
    char samples[1024], dir[1100];
    int n, exact = 0;

    if (argc > 1) {
        snprintf(samples, sizeof(samples), "%s", argv[1]);
    } else {
        /* __FILE__ = .../tests/unit/test_prefix_infer.c */
        const char *f = __FILE__;
        const char *cut = strstr(f, "tests/unit/");
        snprintf(samples, sizeof(samples), "%.*ssamples", cut ? (int)(cut - f) : 0, f);
    }
    check_synthetic();
    snprintf(dir, sizeof(dir), "%s/prefixes", samples);
    for (n = 1; n <= 9; n++)
        check_real(dir, n, &exact);
    snprintf(dir, sizeof(dir), "%s/timezones", samples);
    for (n = 1; n <= 6; n++) {
        check_real(dir, n, &exact);
        check_zone(dir, n);
    }
    /* samples/forged: application_names that look like a prefix and a severity */
    snprintf(dir, sizeof(dir), "%s/forged", samples);
    for (n = 1; n <= 3; n++)
        check_real(dir, n, &exact);
    printf("%d of 18 real prefixes inferred exactly\n", exact);
    printf("%d passed, %d failed\n", ls_t_passed, ls_t_failed);
    return ls_t_failed ? 1 : 0;
}
