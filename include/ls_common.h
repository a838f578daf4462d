/*
 * ls_common.h — error codes, small helpers and the time type shared by
 * every stage of the pipeline.
 */
#ifndef LS_COMMON_H
#define LS_COMMON_H

#include <stddef.h>
#include <stdint.h>

#define LS_VERSION "0.1.0"

/* Return codes: 0 on success, negative on failure (libgit2 style). */
enum {
    LS_OK = 0,
    LS_ERR = -1,       /* generic failure, message already reported */
    LS_ENOMEM = -2,    /* memory exhaustion: stops the run */
    LS_EIO = -3,       /* I/O error on an input or output file: stops the run */
    LS_ESTORE = -4,    /* SQLite error: stops the run */
    LS_EUSAGE = -5,    /* unusable command-line arguments */
    LS_EFORMAT = -6    /* input not understood (e.g. prefix cannot be matched) */
};

/*
 * Timestamps travel as microseconds since the Unix epoch, UTC.
 * LS_TS_NONE marks "not known".
 */
typedef int64_t ls_ts;
#define LS_TS_NONE INT64_MIN

/*
 * Parse a PostgreSQL timestamp as %t / %m / %s / csvlog / jsonlog print it:
 * "YYYY-MM-DD HH:MM:SS[.fff] ZONE" where ZONE is an abbreviation (UTC, CET,
 * MSK, ...), a numeric offset ("+03", "-0330", "+05:30") or absent (UTC is
 * assumed). Returns 0 and sets *out, or -1 when the text is not a timestamp
 * or the zone is unknown. `len` bytes of `s` are read; no NUL is needed.
 */
int ls_ts_parse(ls_ts *out, const char *s, size_t len);

/*
 * ls_ts_parse with the last result remembered: the lines of a log share
 * their date, hour, minute, second and zone with the line before nearly
 * always, and then only the fraction is read. The same result as
 * ls_ts_parse in every case. Zero-initialise; one per parser.
 */
typedef struct ls_ts_cache {
    char key[48];  /* the text without its fraction ("." and digits) */
    size_t keylen; /* 0: nothing remembered */
    ls_ts base;    /* its time with a fraction of 0 */
} ls_ts_cache;
int ls_ts_parse_cached(ls_ts_cache *c, ls_ts *out, const char *s, size_t len);

/* Format as "YYYY-MM-DD HH:MM:SS.ffffff" UTC (27 bytes with the NUL). */
void ls_ts_format(char out[32], ls_ts ts);

/* Allocation helpers that report LS_ENOMEM through a NULL return only. */
void *ls_malloc(size_t n);
void *ls_calloc(size_t count, size_t n);
void *ls_realloc(void *p, size_t n);
char *ls_strndup(const char *s, size_t n);
char *ls_strdup(const char *s);

/*
 * A file name as messages show it: a name may hold any byte but '/' and
 * NUL, and one with a newline, a tab or a terminal escape must not forge
 * a line on stderr or recolour the terminal. Control bytes become \n,
 * \t, \r or \xHH, bytes that are not UTF-8 \xHH, and C1 controls,
 * bidi and other invisible format characters (U+200B-U+200F,
 * U+2028-U+202E, U+2060-U+206F, U+061C, U+FEFF) \u{XXXX}; a name that
 * needed any of these has its backslashes doubled too, so that it reads
 * back unambiguously. A name that needs none is shown as it is (UTF-8
 * names too). ls_shown_dup returns a copy to free(), NULL when out of
 * memory; ls_shown writes into out[0..n) (cut short if need be, always
 * NUL-terminated when n > 0) and returns out.
 */
char *ls_shown_dup(const char *name);
/* A buffer for ls_shown that holds any name up to PATH_MAX unescaped. */
#define LS_SHOWN_MAX 4096
const char *ls_shown(char *out, size_t n, const char *name);

/* FNV-1a, 64 bits, of [p, p+n) continuing from h (LS_FNV1A_BASIS to start):
 * identities and hash tables, not security. */
#define LS_FNV1A_BASIS 0xcbf29ce484222325ULL
uint64_t ls_fnv1a(const void *p, size_t n, uint64_t h);
/* A hash of [p, p+n) eight bytes a step, never 0: for in-memory tables
 * only (it may change between versions; ls_fnv1a is the stored one). */
uint64_t ls_quick_hash(const void *p, size_t n);

/* Seconds from clock reading a to b (LOCKSPAN_TIMING's lines). */
struct timespec;
double ls_secs_between(const struct timespec *a, const struct timespec *b);

#endif
