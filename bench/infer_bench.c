/*
 * infer_bench.c — prefix inference speed: infer the log_line_prefix of each
 * FILE's first 200 lines (as the stderr parser does, then as the syslog one
 * does), INFER_REPEAT times each, and print what was inferred. Time it with
 * /usr/bin/time (CPU seconds; wall time on a shared machine says little):
 *
 *   cc -O2 -Iinclude bench/infer_bench.c build/liblockspan_core.a \
 *      -lpcre2-8 -lsqlite3 -lz -lcjson -lpthread -lm -o /tmp/infer_bench
 *   INFER_REPEAT=100 /usr/bin/time /tmp/infer_bench samples/basic/postgresql.log
 *
 * It also compares two builds: the printed prefixes and reasons must match.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_prefix.h"

static char buf[1 << 20];

int main(int argc, char **argv)
{
    int rep = getenv("INFER_REPEAT") ? atoi(getenv("INFER_REPEAT")) : 1;
    long total = 0;
    int a, h, r;

    for (a = 1; a < argc; a++) {
        const char *lines[200], *p = buf, *end;
        size_t lens[200], n;
        int nl = 0;
        FILE *f = fopen(argv[a], "rb");

        if (!f) {
            perror(argv[a]);
            return 1;
        }
        n = fread(buf, 1, sizeof(buf), f);
        fclose(f);
        end = buf + n;
        while (p < end && nl < 200) {
            const char *q = memchr(p, '\n', (size_t)(end - p));
            lines[nl] = p;
            lens[nl++] = q ? (size_t)(q - p) : (size_t)(end - p);
            p = q ? q + 1 : end;
        }
        for (h = 0; h < 2; h++) {
            char out[512], why[512];
            int rc = 0;
            for (r = 0; r < rep; r++, total++)
                rc = h ? ls_prefix_infer_headed(out, sizeof(out), lines, lens, nl, why, sizeof(why))
                       : ls_prefix_infer(out, sizeof(out), lines, lens, nl, why, sizeof(why));
            printf("%s\t%s\t%d\t[%s]\t%s\n", argv[a], h ? "headed" : "plain", rc, rc ? "" : out,
                   why);
        }
    }
    fprintf(stderr, "%ld inferences\n", total);
    return 0;
}
