/*
 * keypack.c — row keys packed into one value (ls_keypack.h).
 */
#include <stdio.h>
#include <string.h>

#include "ls_keypack.h"

/* v in decimal and a space at dst (room for 21 bytes); the bytes. */
static size_t put_num(char *dst, int64_t v)
{
    char tmp[24];
    size_t n = sizeof(tmp), len;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    tmp[--n] = ' ';
    do {
        tmp[--n] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        tmp[--n] = '-';
    len = sizeof(tmp) - n;
    memcpy(dst, tmp + n, len);
    return len;
}

int ls_keypack_add(ls_buf *b, const ls_keypack_entry *prev, const ls_keypack_entry *e)
{
    char buf[8 * 21 + sizeof(e->rel) + sizeof(e->key)];
    size_t rl = strnlen(e->rel, sizeof(e->rel)), kl = strnlen(e->key, sizeof(e->key)), n = 0;
    int same_rel = prev && rl && strcmp(prev->rel, e->rel) == 0;
    n += put_num(buf + n, (int64_t)((uint64_t)e->stmt_id - (uint64_t)(prev ? prev->stmt_id : 0)));
    n += put_num(buf + n,
                 (int64_t)((uint64_t)e->start_ts - (uint64_t)(prev ? prev->start_ts : 0)));
    n += put_num(buf + n, (int64_t)((uint64_t)e->line - (uint64_t)(prev ? prev->line : 0)));
    n += put_num(buf + n, e->session_id);
    if (e->has_end) {
        n += put_num(buf + n, (int64_t)((uint64_t)e->end_ts - (uint64_t)e->start_ts));
    } else {
        buf[n++] = '-';
        buf[n++] = ' ';
    }
    n += put_num(buf + n, e->file_id);
    n += put_num(buf + n, same_rel ? 0 : (int64_t)rl);
    n += put_num(buf + n, (int64_t)kl);
    if (!same_rel) {
        memcpy(buf + n, e->rel, rl);
        n += rl;
    }
    memcpy(buf + n, e->key, kl);
    n += kl;
    return ls_buf_add(b, buf, n);
}

/* The number at *p, up to its space, into *v; 0 when there is none. */
static int get_num(const char **p, const char *end, int64_t *v)
{
    const char *q = *p;
    uint64_t u = 0;
    int neg = 0, digits = 0;
    if (q < end && *q == '-') {
        neg = 1;
        q++;
    }
    for (; q < end && *q >= '0' && *q <= '9' && digits < 19; q++, digits++)
        u = u * 10 + (uint64_t)(*q - '0');
    if (!digits || q >= end || *q != ' ')
        return 0;
    *v = neg ? (int64_t)((uint64_t)0 - u) : (int64_t)u;
    *p = q + 1;
    return 1;
}

const char *ls_keypack_next(const char *p, const char *end, const ls_keypack_entry *prev,
                            ls_keypack_entry *e)
{
    ls_keypack_entry before;
    int64_t stmt_id, start_ts, line, dur, rl, kl;
    if (prev)
        before = *prev; /* prev may be e */
    else
        memset(&before, 0, sizeof(before));
    memset(e, 0, sizeof(*e));
    if (!p || p >= end || !get_num(&p, end, &stmt_id) || !get_num(&p, end, &start_ts) ||
        !get_num(&p, end, &line) || !get_num(&p, end, &e->session_id))
        return NULL;
    e->stmt_id = (int64_t)((uint64_t)before.stmt_id + (uint64_t)stmt_id);
    e->start_ts = (int64_t)((uint64_t)before.start_ts + (uint64_t)start_ts);
    e->line = (int64_t)((uint64_t)before.line + (uint64_t)line);
    if (end - p >= 2 && p[0] == '-' && p[1] == ' ') {
        p += 2;
    } else if (get_num(&p, end, &dur)) {
        e->has_end = 1;
        e->end_ts = (int64_t)((uint64_t)e->start_ts + (uint64_t)dur);
    } else {
        return NULL;
    }
    if (!get_num(&p, end, &e->file_id) || !get_num(&p, end, &rl) || !get_num(&p, end, &kl) ||
        rl < 0 || kl < 0 || rl >= (int64_t)sizeof(e->rel) || kl >= (int64_t)sizeof(e->key) ||
        end - p < rl + kl || (rl == 0 && !prev))
        return NULL;
    if (rl)
        memcpy(e->rel, p, (size_t)rl);
    else
        memcpy(e->rel, before.rel, sizeof(e->rel));
    memcpy(e->key, p + rl, (size_t)kl);
    return p + rl + kl;
}
