/*
 * logname.c — a log file's stem and format, from its name (ls_logname.h).
 */
#include <string.h>

#include "ls_logname.h"

size_t ls_log_stem(const char *path, int *rank)
{
    static const struct {
        const char *ext;
        int rank;
    } exts[] = {{".json", 3}, {".csv", 2}, {".log", 1}};
    static const char *const packed[] = {".gz", ".bz2", ".xz", ".lzma", ".zst"};
    size_t n = strlen(path), i, e;

    for (i = 0; i < sizeof(packed) / sizeof(packed[0]); i++) {
        e = strlen(packed[i]);
        if (n > e && strcmp(path + n - e, packed[i]) == 0) {
            n -= e; /* postgresql.csv.xz is the csvlog of postgresql.log */
            break;
        }
    }
    for (i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
        e = strlen(exts[i].ext);
        if (n > e && strncmp(path + n - e, exts[i].ext, e) == 0) {
            *rank = exts[i].rank;
            return n - e;
        }
    }
    *rank = 1; /* a stderr file whose log_filename does not end in .log */
    return n;
}

int ls_paths_same_log(const char *a, const char *b)
{
    int ra, rb;
    size_t na = ls_log_stem(a, &ra), nb = ls_log_stem(b, &rb);
    return na == nb && ra != rb && memcmp(a, b, na) == 0;
}
