/*
 * ls_buf.h — growable byte buffer with a hard maximum (curl's dynbuf idea)
 * and a sticky error, in the style of SQLite's StrAccum: append freely,
 * check ls_buf_failed() once at the end.
 */
#ifndef LS_BUF_H
#define LS_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

typedef struct ls_buf {
    char *ptr;     /* NUL-terminated contents, owned; NULL before first append */
    size_t len;    /* bytes used, excluding the NUL */
    size_t cap;    /* bytes allocated */
    size_t max;    /* appends that would pass this fail (0 = no limit) */
    int err;       /* sticky: LS_ENOMEM or LS_ERR (too big) after a failure */
} ls_buf;

#define LS_BUF_INIT(maxbytes) {NULL, 0, 0, (maxbytes), 0}

void ls_buf_init(ls_buf *b, size_t max);
void ls_buf_free(ls_buf *b);
/* Empty the buffer, keep its memory, clear the error. */
void ls_buf_reset(ls_buf *b);
int ls_buf_add(ls_buf *b, const void *p, size_t n);
int ls_buf_adds(ls_buf *b, const char *s);
int ls_buf_addc(ls_buf *b, char c);
int ls_buf_addz_grow(ls_buf *b, const void *p, size_t n);

/*
 * Append n bytes and a NUL that is part of the contents: one string of a
 * list of NUL-separated ones (a record's fields). Inline where the room is
 * there: parsers add a few of them per log line.
 */
static inline int ls_buf_addz(ls_buf *b, const void *p, size_t n)
{
    if (b->err || b->len + n + 2 > b->cap)
        return ls_buf_addz_grow(b, p, n);
    if (n)
        memcpy(b->ptr + b->len, p, n);
    b->len += n + 1;
    b->ptr[b->len - 1] = '\0';
    b->ptr[b->len] = '\0';
    return 0;
}
int ls_buf_printf(ls_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int ls_buf_vprintf(ls_buf *b, const char *fmt, va_list ap);
/* Contents as a C string ("" when empty); never NULL. */
const char *ls_buf_str(const ls_buf *b);
int ls_buf_failed(const ls_buf *b);

#endif
