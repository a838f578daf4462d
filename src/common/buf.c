/*
 * buf.c — growable buffer with a maximum size and a sticky error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_buf.h"
#include "ls_common.h"

void ls_buf_init(ls_buf *b, size_t max)
{
    b->ptr = NULL;
    b->len = b->cap = 0;
    b->max = max;
    b->err = 0;
}

void ls_buf_free(ls_buf *b)
{
    free(b->ptr);
    ls_buf_init(b, b->max);
}

void ls_buf_reset(ls_buf *b)
{
    b->len = 0;
    b->err = 0;
    if (b->ptr)
        b->ptr[0] = '\0';
}

static int buf_grow(ls_buf *b, size_t need)
{
    size_t cap;
    char *p;

    if (b->err)
        return b->err;
    if (need + 1 <= b->cap)
        return 0;
    if (b->max && need > b->max)
        return b->err = LS_ERR;
    cap = b->cap ? b->cap : 256;
    while (cap < need + 1)
        cap *= 2;
    if (b->max && cap > b->max + 1)
        cap = b->max + 1;
    p = realloc(b->ptr, cap);
    if (!p)
        return b->err = LS_ENOMEM;
    b->ptr = p;
    b->cap = cap;
    return 0;
}

int ls_buf_add(ls_buf *b, const void *p, size_t n)
{
    int rc;
    if ((b->err || b->len + n + 1 > b->cap) && (rc = buf_grow(b, b->len + n)) != 0)
        return rc;
    if (n)
        memcpy(b->ptr + b->len, p, n);
    b->len += n;
    b->ptr[b->len] = '\0';
    return 0;
}

int ls_buf_adds(ls_buf *b, const char *s)
{
    return ls_buf_add(b, s, strlen(s));
}

int ls_buf_addz_grow(ls_buf *b, const void *p, size_t n)
{
    int rc = ls_buf_add(b, p, n);
    return rc ? rc : ls_buf_add(b, "", 1);
}

int ls_buf_addc(ls_buf *b, char c)
{
    if (b->err || b->len + 2 > b->cap)
        return ls_buf_add(b, &c, 1);
    b->ptr[b->len++] = c; /* the room is there: a byte per call is common */
    b->ptr[b->len] = '\0';
    return 0;
}

int ls_buf_vprintf(ls_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    int n, rc;

    if (b->err)
        return b->err;
    va_copy(ap2, ap);
    n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return b->err = LS_ERR;
    if ((rc = buf_grow(b, b->len + (size_t)n)) != 0)
        return rc;
    vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return 0;
}

int ls_buf_printf(ls_buf *b, const char *fmt, ...)
{
    va_list ap;
    int rc;
    va_start(ap, fmt);
    rc = ls_buf_vprintf(b, fmt, ap);
    va_end(ap);
    return rc;
}

const char *ls_buf_str(const ls_buf *b)
{
    return b->ptr ? b->ptr : "";
}

int ls_buf_failed(const ls_buf *b)
{
    return b->err;
}
