/*
 * ls_test.h — a tiny assertion helper (after Redis's testhelp.h).
 * Each check counts; the program prints "N passed, N failed" at the end
 * and exits non-zero when anything failed.
 */
#ifndef LS_TEST_H
#define LS_TEST_H

#include <stdio.h>
#include <string.h>

static int ls_t_passed, ls_t_failed;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (cond) {                                                                    \
            ls_t_passed++;                                                             \
        } else {                                                                       \
            ls_t_failed++;                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
        }                                                                              \
    } while (0)

#define CHECK_INT(got, want)                                                           \
    do {                                                                               \
        long long g_ = (long long)(got), w_ = (long long)(want);                       \
        if (g_ == w_) {                                                                \
            ls_t_passed++;                                                             \
        } else {                                                                       \
            ls_t_failed++;                                                             \
            fprintf(stderr, "%s:%d: %s = %lld, want %lld\n", __FILE__, __LINE__, #got, \
                    g_, w_);                                                           \
        }                                                                              \
    } while (0)

#define CHECK_STR(got, want)                                                           \
    do {                                                                               \
        const char *g_ = (got), *w_ = (want);                                          \
        if (g_ && w_ && strcmp(g_, w_) == 0) {                                         \
            ls_t_passed++;                                                             \
        } else {                                                                       \
            ls_t_failed++;                                                             \
            fprintf(stderr, "%s:%d: %s = \"%s\", want \"%s\"\n", __FILE__, __LINE__,   \
                    #got, g_ ? g_ : "(null)", w_ ? w_ : "(null)");                     \
        }                                                                              \
    } while (0)

/* Compare a slice (ptr,len) with a C string. */
#define CHECK_SLICE(sl, want)                                                          \
    do {                                                                               \
        const char *w_ = (want);                                                       \
        if ((sl).ptr && (sl).len == strlen(w_) && memcmp((sl).ptr, w_, (sl).len) == 0) {\
            ls_t_passed++;                                                             \
        } else {                                                                       \
            ls_t_failed++;                                                             \
            fprintf(stderr, "%s:%d: %s = \"%.*s\", want \"%s\"\n", __FILE__, __LINE__, \
                    #sl, (sl).ptr ? (int)(sl).len : 6, (sl).ptr ? (sl).ptr : "(null)", \
                    w_);                                                               \
        }                                                                              \
    } while (0)

#define TEST_REPORT()                                                                  \
    (printf("%d passed, %d failed\n", ls_t_passed, ls_t_failed), ls_t_failed ? 1 : 0)

#endif
