/*
 * test_rotation.c — a record that continues across a rotation boundary.
 *
 * Two files of one format are ingested as one run (ingest.c): the first
 * ends with a record whose rest opens the second file. The record must be
 * stored once, complete, with the file and line where it started, counted
 * in that file's stats, and no line may be counted as bad.
 *
 * The lines are PostgreSQL 15's own (samples/basic), cut at a point the
 * logging collector never cuts (it rotates between whole messages,
 * syslogger.c) but where a server writing stderr without the collector, or
 * a copy cut by hand, can leave them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ls_ingest.h"
#include "ls_input.h"
#include "ls_store.h"
#include "ls_test.h"

#define PREFIX "%m [%p] %q%u@%d/%a %c %l %v %x %e "

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(2);
    }
    fputs(text, f);
    fclose(f);
}

static int64_t query_int(ls_store *s, const char *sql)
{
    ls_stmt *st;
    int64_t v = -1;
    if (ls_store_prepare(s, sql, &st) != 0)
        return -2;
    if (ls_stmt_step(st) == 1)
        v = ls_stmt_int64(st, 0);
    ls_stmt_finalize(st);
    return v;
}

/* The STATEMENT of the store's error (kept in stmt_texts). */
#define ERROR_STATEMENT_SQL "SELECT t.text FROM errors e JOIN stmt_texts t ON t.text_id = e.text_id"

/* The text of the first row's first column, copied into out. */
static const char *query_text(ls_store *s, const char *sql, char *out, size_t n)
{
    ls_stmt *st;
    out[0] = '\0';
    if (ls_store_prepare(s, sql, &st) != 0)
        return out;
    if (ls_stmt_step(st) == 1 && ls_stmt_text(st, 0))
        snprintf(out, n, "%s", ls_stmt_text(st, 0));
    ls_stmt_finalize(st);
    return out;
}

static ls_store *ingest(const char *dir, const char *db, const char *a, const char *b,
                        const char *prefix, ls_ingest_totals *t)
{
    char pa[512], pb[512], err[256];
    char *paths[3];
    ls_ingest_opts o;
    ls_store *s = NULL;

    snprintf(pa, sizeof(pa), "%s/%s", dir, a);
    snprintf(pb, sizeof(pb), "%s/%s", dir, b);
    paths[0] = pa;
    paths[1] = pb;
    paths[2] = NULL;
    memset(&o, 0, sizeof(o));
    o.prefix = prefix;
    o.max_bad_shown = 5;
    unlink(db);
    if (ls_store_open(&s, db, err, sizeof(err)) != 0) {
        fprintf(stderr, "store: %s\n", err);
        return NULL;
    }
    CHECK_INT(ls_ingest_paths(s, paths, &o, t), 0);
    return s;
}

/* stderr: the STATEMENT of an ERROR (and a continuation line of it) opens
 * the next file. */
static void test_stderr_secondary(const char *dir)
{
    char db[512], buf[512];
    ls_ingest_totals t;
    ls_store *s;

    snprintf(db, sizeof(db), "%s/s1.db", dir);
    snprintf(buf, sizeof(buf), "%s/postgresql-Mon.log", dir);
    write_file(buf,
               "2026-12-02 11:45:09.001 UTC [4400] postgres@lockspan/lt 6b1004c5.1130 7 "
               "5/12 0 00000 LOG:  statement: BEGIN\n"
               "2026-12-02 11:45:10.512 UTC [4400] postgres@lockspan/lt 6b1004c5.1130 8 "
               "5/12 0 55P03 ERROR:  canceling statement due to lock timeout\n");
    snprintf(buf, sizeof(buf), "%s/postgresql-Tue.log", dir);
    write_file(buf,
               "2026-12-02 11:45:10.512 UTC [4400] postgres@lockspan/lt 6b1004c5.1130 9 "
               "5/12 0 55P03 STATEMENT:  UPDATE account SET balance = balance + 1\n"
               "\tWHERE id = 1\n"
               "2026-12-02 11:45:10.600 UTC [4401] postgres@lockspan/lt 6b1004c6.1131 1 "
               "6/3 0 00000 LOG:  statement: COMMIT\n");
    s = ingest(dir, db, "postgresql-Mon.log", "postgresql-Tue.log", PREFIX, &t);
    if (!s)
        return;
    CHECK_INT(t.bad_lines, 0);
    CHECK_INT(t.records, 3);
    CHECK_INT(query_int(s, "SELECT count(*) FROM errors"), 1);
    CHECK_STR(query_text(s, ERROR_STATEMENT_SQL, buf, sizeof(buf)),
              "UPDATE account SET balance = balance + 1\nWHERE id = 1");
    /* The error is stored with the file and line it started on. */
    CHECK_STR(query_text(s, "SELECT f.path FROM errors e JOIN files f USING (file_id)", buf,
                         sizeof(buf)) + strlen(dir) + 1,
              "postgresql-Mon.log");
    CHECK_INT(query_int(s, "SELECT line FROM errors"), 2);
    /* Per-file stats: the record counts for the file it started in. */
    CHECK_INT(query_int(s, "SELECT records FROM files WHERE path LIKE '%Mon.log'"), 2);
    CHECK_INT(query_int(s, "SELECT lines FROM files WHERE path LIKE '%Mon.log'"), 2);
    CHECK_INT(query_int(s, "SELECT records FROM files WHERE path LIKE '%Tue.log'"), 1);
    CHECK_INT(query_int(s, "SELECT lines FROM files WHERE path LIKE '%Tue.log'"), 3);
    CHECK_INT(query_int(s, "SELECT sum(bad_lines) FROM files"), 0);
    CHECK_INT(query_int(s, "SELECT count(*) FROM bad_lines"), 0);
    /* The second file's line numbers are its own. */
    CHECK_INT(query_int(s, "SELECT line FROM statements WHERE text = 'COMMIT'"), 3);
    ls_store_close(s);
}

/* csvlog: a quoted field's newline falls at the boundary; the next file's
 * first line is the rest of the record, which no parser recognises alone. */
static void test_csv_quoted_newline(const char *dir)
{
    char db[512], buf[512];
    ls_ingest_totals t;
    ls_store *s;

    snprintf(db, sizeof(db), "%s/s2.db", dir);
    snprintf(buf, sizeof(buf), "%s/postgresql-Mon.csv", dir);
    write_file(buf,
               "2026-12-02 11:45:09.001 UTC,\"postgres\",\"lockspan\",4400,\"127.0.0.1:50000\","
               "6b1004c5.1130,7,\"idle\",2026-12-02 11:45:08 UTC,5/12,0,LOG,00000,"
               "\"statement: BEGIN\",,,,,,,,,\"lt\",\"client backend\",,0\n"
               "2026-12-02 11:45:10.512 UTC,\"postgres\",\"lockspan\",4400,\"127.0.0.1:50000\","
               "6b1004c5.1130,8,\"UPDATE\",2026-12-02 11:45:08 UTC,5/12,0,ERROR,55P03,"
               "\"canceling statement due to lock timeout\",,,,,,\"UPDATE account\n");
    snprintf(buf, sizeof(buf), "%s/postgresql-Tue.csv.gz", dir);
    {
        /* The second file gzip-compressed, as rotated files often are. */
        char cmd[1200], plain[512];
        snprintf(plain, sizeof(plain), "%s/postgresql-Tue.csv", dir);
        write_file(plain,
                   "SET balance = balance + 1 WHERE id = 1\",,,\"lt\",\"client backend\",,0\n"
                   "2026-12-02 11:45:10.600 UTC,\"postgres\",\"lockspan\",4401,"
                   "\"127.0.0.1:50001\",6b1004c6.1131,1,\"idle\",2026-12-02 11:45:09 UTC,6/3,0,"
                   "LOG,00000,\"statement: COMMIT\",,,,,,,,,\"lt\",\"client backend\",,0\n");
        snprintf(cmd, sizeof(cmd), "gzip -f '%s'", plain);
        CHECK_INT(system(cmd), 0);
    }
    s = ingest(dir, db, "postgresql-Mon.csv", "postgresql-Tue.csv.gz", NULL, &t);
    if (!s)
        return;
    CHECK_INT(t.bad_lines, 0);
    CHECK_INT(t.records, 3);
    CHECK_INT(t.files, 2);
    CHECK_INT(query_int(s, "SELECT count(*) FROM errors"), 1);
    CHECK_STR(query_text(s, ERROR_STATEMENT_SQL, buf, sizeof(buf)),
              "UPDATE account\nSET balance = balance + 1 WHERE id = 1");
    CHECK_INT(query_int(s, "SELECT line FROM errors"), 2);
    CHECK_INT(query_int(s, "SELECT e.file_id = f.file_id FROM errors e, files f "
                           "WHERE f.path LIKE '%Mon.csv'"),
              1);
    CHECK_INT(query_int(s, "SELECT records FROM files WHERE path LIKE '%Mon.csv'"), 2);
    CHECK_INT(query_int(s, "SELECT records FROM files WHERE path LIKE '%Tue.csv.gz'"), 1);
    CHECK_INT(query_int(s, "SELECT gzip FROM files WHERE path LIKE '%Tue.csv.gz'"), 1);
    CHECK_INT(query_int(s, "SELECT count(*) FROM files WHERE format = 'csvlog'"), 2);
    CHECK_INT(query_int(s, "SELECT count(*) FROM bad_lines"), 0);
    CHECK_INT(query_int(s, "SELECT line FROM statements WHERE text = 'COMMIT'"), 2);
    ls_store_close(s);
}

/* A directory is read in time order, whatever the names say. */
static void test_time_order(const char *dir)
{
    char sub[512], buf[600], err[256];
    char *arg[1], **out = NULL;

    snprintf(sub, sizeof(sub), "%s/order", dir);
    snprintf(buf, sizeof(buf), "mkdir -p '%s'", sub);
    CHECK_INT(system(buf), 0);
    snprintf(buf, sizeof(buf), "%s/postgresql-Mon.log", sub);
    write_file(buf, "2026-12-07 00:00:01.000 UTC [1] LOG:  b\n");
    snprintf(buf, sizeof(buf), "%s/postgresql-Sun.log", sub);
    write_file(buf, "\tcontinued\n2026-12-06 23:59:59.000 UTC [1] LOG:  a\n");
    snprintf(buf, sizeof(buf), "%s/postgresql-Tue.csv", sub); /* csvlog from Tuesday on */
    write_file(buf, "2026-12-08 00:00:00.000 UTC,,,1,,x,1,,,,0,LOG,00000,\"c\",,,,,,,,,\"\","
                    "\"postmaster\",,0\n");
    snprintf(buf, sizeof(buf), "%s/postgresql-Wed-0100.log", sub); /* dropped: began after csvlog did */
    write_file(buf, "2026-12-09 00:00:00.000 +01 [1] LOG:  d\n");
    snprintf(buf, sizeof(buf), "%s/postgresql-Wed.csv", sub);
    write_file(buf, "2026-12-08 23:00:00.000 UTC,,,1,,x,1,,,,0,LOG,00000,\"d\",,,,,,,,,\"\","
                    "\"postmaster\",,0\n");
    arg[0] = sub;
    CHECK_INT(ls_paths_expand(&out, arg, 1, 0, err, sizeof(err)), 0);
    if (!out)
        return;
    CHECK(out[0] && strstr(out[0], "postgresql-Sun.log"));
    CHECK(out[0] && out[1] && strstr(out[1], "postgresql-Mon.log"));
    CHECK(out[0] && out[1] && out[2] && strstr(out[2], "postgresql-Tue.csv"));
    CHECK(out[0] && out[1] && out[2] && out[3] && strstr(out[3], "postgresql-Wed.csv"));
    CHECK(out[0] && out[1] && out[2] && out[3] && !out[4]);
    ls_paths_free(out);
}

int main(void)
{
    char dir[] = "/tmp/lockspan-rotation.XXXXXX";
    char cmd[600];

    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    test_stderr_secondary(dir);
    test_csv_quoted_newline(dir);
    test_time_order(dir);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    printf("%d passed, %d failed\n", ls_t_passed, ls_t_failed);
    return ls_t_failed ? 1 : 0;
}
