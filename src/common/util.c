/*
 * util.c — allocation wrappers and small name tables shared by the stages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ls_common.h"
#include "ls_event.h"

/* Bytes that the UTF-8 character at s[0..] takes (its code point in *cp),
 * or 0 when s begins with no valid UTF-8 character. */
static size_t utf8_char(const unsigned char *s, uint32_t *cp)
{
    size_t n, i;
    uint32_t c;
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        n = 2, c = s[0] & 0x1fu;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        n = 3, c = s[0] & 0x0fu;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        n = 4, c = s[0] & 0x07u;
    else
        return 0;
    for (i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = (c << 6) | (s[i] & 0x3fu);
    }
    /* overlong forms, surrogates, past U+10FFFF */
    if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
        (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return n;
}

/* A code point a name may not show as it is: C1 controls and invisible
 * format characters (bidi overrides, zero-width ones, line separators). */
static int hidden_char(uint32_t c)
{
    return (c >= 0x80 && c <= 0x9f) || c == 0x61c || (c >= 0x200b && c <= 0x200f) ||
           (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x206f) || c == 0xfeff;
}

/*
 * Write the shown form of `name` into out[0..n) when out is not NULL;
 * returns its length (without the NUL) in full, whatever n is.
 */
static size_t shown_form(char *out, size_t n, const char *name)
{
    const unsigned char *s = (const unsigned char *)name;
    size_t len = 0, k, i;
    int escape = 0;
    char piece[16];

    for (i = 0; s[i] && !escape;) { /* does it need any? */
        uint32_t cp;
        size_t w = utf8_char(s + i, &cp);
        escape = w == 0 || cp < 0x20 || cp == 0x7f || hidden_char(cp);
        i += w ? w : 1;
    }
    for (i = 0; s[i];) {
        uint32_t cp = 0;
        size_t w = utf8_char(s + i, &cp);
        const char *p = piece;
        if (!escape || (w > 0 && cp >= 0x20 && cp != 0x7f && cp != '\\' && !hidden_char(cp))) {
            p = (const char *)s + i;
            k = w ? w : 1;
        } else if (w == 0) {
            k = (size_t)snprintf(piece, sizeof(piece), "\\x%02x", s[i]);
            w = 1;
        } else if (cp == '\n' || cp == '\t' || cp == '\r' || cp == '\\') {
            piece[0] = '\\';
            piece[1] = cp == '\n' ? 'n' : cp == '\t' ? 't' : cp == '\r' ? 'r' : '\\';
            k = 2;
        } else if (cp < 0x80) {
            k = (size_t)snprintf(piece, sizeof(piece), "\\x%02x", (unsigned)cp);
        } else {
            k = (size_t)snprintf(piece, sizeof(piece), "\\u{%04X}", (unsigned)cp);
        }
        if (out && len + k < n)
            memcpy(out + len, p, k);
        else if (out && len < n)
            n = len + 1; /* cut here, never inside a piece */
        len += k;
        i += w ? w : 1;
    }
    if (out && n > 0)
        out[len < n ? len : n - 1] = '\0';
    return len;
}

char *ls_shown_dup(const char *name)
{
    size_t len = shown_form(NULL, 0, name);
    char *out = ls_malloc(len + 1);
    if (out)
        shown_form(out, len + 1, name);
    return out;
}

const char *ls_shown(char *out, size_t n, const char *name)
{
    shown_form(out, n, name);
    return out;
}

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

const char *ls_server_kind_name(ls_server_kind k)
{
    static const char *const names[] = {"other",      "checkpoint_start", "checkpoint",
                                        "autovacuum", "autoanalyze",      "temp_file"};
    if ((unsigned)k < sizeof(names) / sizeof(names[0]))
        return names[k];
    return "other";
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
