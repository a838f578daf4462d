/*
 * util.c — allocation wrappers and small name tables shared by the stages.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ls_common.h"
#include "ls_event.h"

uint64_t ls_fnv1a(const void *p, size_t n, uint64_t h)
{
    const unsigned char *b = p;
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

/* Each 8-byte word folded in with a multiply and a shift (the loop FNV-1a
 * runs per byte, per word here), the tail as one short word, then mixed
 * (MurmurHash3's finaliser). */
uint64_t ls_quick_hash(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)n * 0xff51afd7ed558ccdULL), w;

    for (; n >= 8; b += 8, n -= 8) {
        memcpy(&w, b, 8);
        h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
        h ^= h >> 31;
    }
    if (n) {
        w = 0;
        memcpy(&w, b, n);
        h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h ? h : 1;
}

double ls_secs_between(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

void *ls_malloc(size_t n)
{
    return malloc(n ? n : 1);
}

void *ls_calloc(size_t count, size_t n)
{
    return calloc(count ? count : 1, n ? n : 1);
}

void *ls_realloc(void *p, size_t n)
{
    return realloc(p, n ? n : 1);
}

char *ls_strndup(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

char *ls_strdup(const char *s)
{
    return ls_strndup(s, strlen(s));
}

const char *ls_lock_phase_name(ls_lock_phase p)
{
    switch (p) {
    case LS_LOCK_WAITING: return "waiting";
    case LS_LOCK_ACQUIRED: return "acquired";
    case LS_LOCK_AVOIDED: return "avoided_deadlock";
    case LS_LOCK_DEADLOCK: return "deadlock";
    case LS_LOCK_FAILED: return "failed";
    }
    return "unknown";
}

const char *ls_target_kind_name(ls_target_kind k)
{
    static const char *const names[] = {
        "unknown",     "relation", "extend",   "page",     "tuple",   "transaction",
        "virtualxid",  "spectoken", "object",  "userlock", "advisory"};
    if ((unsigned)k < sizeof(names) / sizeof(names[0]))
        return names[k];
    return "unknown";
}

const char *ls_error_class_name(ls_error_class c)
{
    static const char *const names[] = {"other",         "lock_timeout",     "lock_nowait",
                                        "statement_timeout", "serialization_failure",
                                        "deadlock",      "idle_in_transaction_timeout",
                                        "canceled"};
    if ((unsigned)c < sizeof(names) / sizeof(names[0]))
        return names[c];
    return "other";
}
