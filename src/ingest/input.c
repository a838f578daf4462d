/*
 * input.c — pipeline stages 1 and 2: bytes in (plain file, gzip, stdin, a
 * pipe or FIFO: every byte read once, nothing sought) and framing into
 * lines. A peek looks at the lines ahead and leaves them to be read.
 *
 * One read buffer per input, grown only while a single line needs it and
 * never past LS_LINE_MAX. Compression (gzip, bzip2, xz, lzma, zstd, zip:
 * decompress.c) is detected by its magic bytes and decoded in a thread of
 * its own (gz_pipe, named after its first format), a few large blocks
 * ahead of the framing: on two cores decoding and parsing overlap instead
 * of taking turns. Multi-member files (rotated logs concatenated with cat)
 * are read member after member, as gzip -dc does.
 */
#include <pthread.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ls_common.h"
#include "ls_decompress.h"
#include "ls_input.h"
#include "ls_logname.h"

#define READ_CHUNK (256u * 1024u)
#define GZ_BLOCK (1024u * 1024u) /* inflated bytes handed over at a time */
#define GZ_BLOCKS 4              /* blocks in flight between the threads */

/*
 * The inflating thread and what it hands over: a ring of GZ_BLOCKS blocks,
 * `count` of them full from `head` on. The framing thread owns the head
 * block until it releases it; the inflater owns the free ones. An error
 * comes after the good bytes before it, so every line before a damaged
 * spot is read.
 */
typedef struct gz_pipe {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int fd;
    unsigned char *blk[GZ_BLOCKS];
    size_t len[GZ_BLOCKS];
    uint64_t raw_at[GZ_BLOCKS]; /* compressed bytes consumed once the block was full */
    int head, count, started;   /* started: the thread runs */
    size_t pos;                 /* bytes of the head block already taken */
    int stop, done;             /* stop: asked by the reader; done: no more blocks */
    int err;                    /* 0, GZ_EDATA, GZ_ETRUNC, GZ_EREAD */
    char errmsg[200];
    uint64_t err_at;            /* compressed offset of the error */
    ls_codec_kind kind;         /* the compression, from the magic bytes */
    unsigned char pre[LS_CODEC_SNIFF_MAX]; /* the bytes the sniffing read off the file */
    size_t npre;
} gz_pipe;

enum { GZ_EDATA = 1, GZ_ETRUNC, GZ_EREAD };

/* ls_input.peeking */
enum {
    PEEK_NONE = 0,
    PEEK_ON,   /* lines are delivered from the mark on, and kept */
    PEEK_EMPTY /* begun in the skipped tail of an over-long line: no line to show */
};

struct ls_input {
    int fd;
    int owns_fd;
    gz_pipe *gz;          /* non-NULL for compressed input (any ls_codec_kind) */
    char *path;
    char *buf;
    size_t cap;           /* allocated bytes of buf */
    size_t start, end;    /* unread bytes are buf[start, end) */
    size_t scan;          /* buf[start, scan) holds no '\n' */
    int eof;
    int skipping;         /* discarding the tail of an over-long line */
    int pieces;           /* over-long lines are delivered in pieces (ls_input_set_pieces) */
    int piece;            /* the last delivery was a piece: the line goes on */
    int unterminated;     /* the last line delivered had no '\n' (end of input) */
    uint64_t nuls, nul_line; /* NUL bytes replaced, and the line of the first */
    uint64_t lineno;
    uint64_t raw_off, text_off, raw_size;
    unsigned char head[LS_CODEC_SNIFF_MAX];
    size_t nhead;         /* magic bytes read ahead from a plain stream */
    ls_codec_kind codec;  /* the compression its magic bytes say */
    int stream;           /* stdin, a pipe, a FIFO, a device: read once, never sought */
    uint64_t line_bytes;  /* bytes of the line being skipped (over LS_LINE_MAX) */
    /* A peek (ls_input_peek_begin): where reading resumes at its end. The
     * buffer keeps every byte from mark.start on while it lasts. */
    int peeking;          /* PEEK_* */
    struct {
        size_t start, scan;
        uint64_t lineno, text_off;
        int unterminated;
    } mark;
};

/*
 * Decode stream after stream into the free blocks until the input ends,
 * an error, or the reader stops. Runs in its own thread.
 */
static void *gz_inflater(void *arg)
{
    gz_pipe *g = arg;
    ls_codec *codec = NULL;
    unsigned char *inbuf = ls_malloc(READ_CHUNK);
    const unsigned char *next_in = inbuf;
    size_t avail_in = 0;
    uint64_t consumed = 0; /* compressed bytes read from the file */
    int err = 0, ended = 0, in_eof = 0;
    char msg[sizeof(g->errmsg)] = "";

    if (!inbuf || ls_codec_new(&codec, g->kind) != LS_OK) {
        err = GZ_EDATA;
        snprintf(msg, sizeof(msg), "out of memory");
    } else {
        /* The input is read once: the magic bytes come first. */
        memcpy(inbuf, g->pre, g->npre);
        avail_in = g->npre;
        consumed = g->npre;
    }
    while (!err && !ended) {
        int slot, rc;
        unsigned char *next_out;
        size_t avail_out = GZ_BLOCK, have;

        pthread_mutex_lock(&g->mu);
        while (g->count == GZ_BLOCKS && !g->stop)
            pthread_cond_wait(&g->cv, &g->mu);
        slot = (g->head + g->count) % GZ_BLOCKS;
        ended = g->stop;
        pthread_mutex_unlock(&g->mu);
        if (ended)
            break;
        next_out = g->blk[slot];
        while (avail_out > 0 && !err && !ended) {
            if (avail_in == 0 && !in_eof) {
                ssize_t n;
                do {
                    n = read(g->fd, inbuf, READ_CHUNK);
                } while (n < 0 && errno == EINTR);
                if (n < 0) {
                    err = GZ_EREAD;
                    snprintf(msg, sizeof(msg), "%s", strerror(errno));
                    break;
                }
                in_eof = n == 0;
                next_in = inbuf;
                avail_in = (size_t)n;
                consumed += (uint64_t)n;
            }
            if (avail_in == 0 && in_eof && ls_codec_complete(codec)) {
                ended = 1;
                break;
            }
            have = avail_out;
            /* At the end of input, a call without input lets a decoder
             * flush what it holds; only when it gives nothing is the
             * stream cut. */
            rc = ls_codec_run(codec, &next_in, &avail_in, &next_out, &avail_out, msg, sizeof(msg));
            if (rc == LS_CODEC_OK && avail_in == 0 && in_eof && avail_out == have &&
                !ls_codec_complete(codec)) {
                err = GZ_ETRUNC;
                break;
            }
            if (rc == LS_CODEC_END)
                ended = 1; /* bytes after the last stream are ignored, as by gzip -dc */
            else if (rc != LS_CODEC_OK)
                err = GZ_EDATA;
        }
        have = GZ_BLOCK - avail_out;
        pthread_mutex_lock(&g->mu);
        if (have > 0) {
            g->len[slot] = have;
            g->raw_at[slot] = consumed - avail_in;
            g->count++;
        }
        pthread_cond_broadcast(&g->cv);
        pthread_mutex_unlock(&g->mu);
    }
    pthread_mutex_lock(&g->mu);
    g->err = err;
    g->err_at = consumed - avail_in;
    memcpy(g->errmsg, msg, sizeof(msg));
    g->done = 1;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
    ls_codec_free(codec);
    free(inbuf);
    return NULL;
}

static void gz_pipe_free(gz_pipe *g)
{
    int i;
    if (!g)
        return;
    if (g->started) { /* the thread runs: stop it */
        pthread_mutex_lock(&g->mu);
        g->stop = 1;
        pthread_cond_broadcast(&g->cv);
        pthread_mutex_unlock(&g->mu);
        pthread_join(g->thread, NULL);
    }
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
    for (i = 0; i < GZ_BLOCKS; i++)
        free(g->blk[i]);
    free(g);
}

/* A pipe for `fd` compressed as `kind`, whose first `npre` bytes (the
 * magic) were read already into `pre`: nothing is read twice, nothing seeks, so a pipe or a
 * FIFO inflates like a file. The thread starts at the first read, so an
 * input opened only to peek costs nothing. */
static gz_pipe *gz_pipe_new(int fd, ls_codec_kind kind, const unsigned char *pre, size_t npre)
{
    gz_pipe *g = ls_calloc(1, sizeof(*g));
    int i;
    if (!g)
        return NULL;
    g->fd = fd;
    g->kind = kind;
    memcpy(g->pre, pre, npre);
    g->npre = npre;
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    for (i = 0; i < GZ_BLOCKS; i++)
        if (!(g->blk[i] = ls_malloc(GZ_BLOCK))) {
            gz_pipe_free(g);
            return NULL;
        }
    return g;
}

/* Up to `room` inflated bytes into in->buf[end..]; sets eof at the end. */
static int gz_take(ls_input *in, size_t room, char *errbuf, size_t errlen)
{
    gz_pipe *g = in->gz;
    size_t n;
    int count;

    if (!g->started) {
        if (pthread_create(&g->thread, NULL, gz_inflater, g) != 0)
            return LS_ENOMEM;
        g->started = 1;
    }
    pthread_mutex_lock(&g->mu);
    while (g->count == 0 && !g->done)
        pthread_cond_wait(&g->cv, &g->mu);
    count = g->count;
    pthread_mutex_unlock(&g->mu);
    if (count == 0) {
        /* Where it broke: the compressed offset, and the text (inflated
         * bytes, lines) delivered before it. */
        unsigned long long at = (unsigned long long)g->err_at;
        unsigned long long text = (unsigned long long)(in->text_off + (in->end - in->start));
        in->raw_off = g->err_at;
        switch (g->err) {
        case 0:
            in->eof = 1;
            return 0;
        case GZ_ETRUNC:
            snprintf(errbuf, errlen, "%s: %s stream is truncated at compressed byte %llu "
                     "(after %llu bytes of text, line %llu)", in->path, ls_codec_name(g->kind),
                     at, text, (unsigned long long)in->lineno);
            return LS_EIO;
        case GZ_EREAD:
            snprintf(errbuf, errlen, "%s: read error: %s", in->path, g->errmsg);
            return LS_EIO;
        default:
            snprintf(errbuf, errlen, "%s: %s data error near compressed byte %llu (after "
                     "%llu bytes of text, line %llu): %s; the file is damaged from there on",
                     in->path, ls_codec_name(g->kind), at, text,
                     (unsigned long long)in->lineno, g->errmsg);
            return LS_EIO;
        }
    }
    /* The head block is this thread's until released. */
    n = g->len[g->head] - g->pos;
    if (n > room)
        n = room;
    memcpy(in->buf + in->end, g->blk[g->head] + g->pos, n);
    in->end += n;
    g->pos += n;
    in->raw_off = g->raw_at[g->head];
    if (g->pos == g->len[g->head]) {
        pthread_mutex_lock(&g->mu);
        g->head = (g->head + 1) % GZ_BLOCKS;
        g->count--;
        g->pos = 0;
        pthread_cond_broadcast(&g->cv);
        pthread_mutex_unlock(&g->mu);
    }
    return 0;
}

int ls_input_open(ls_input **out, const char *path, char *errbuf, size_t errlen)
{
    ls_input *in;
    struct stat st;
    ssize_t n;

    *out = NULL;
    in = ls_calloc(1, sizeof(*in));
    if (!in)
        return LS_ENOMEM;
    in->path = ls_shown_dup(path); /* for messages only */
    in->cap = 2 * READ_CHUNK;
    in->buf = ls_malloc(in->cap);
    if (!in->path || !in->buf) {
        ls_input_close(in);
        return LS_ENOMEM;
    }
    in->stream = 1; /* until fstat says it is a regular file */
    if (strcmp(path, "-") == 0) {
        in->fd = STDIN_FILENO;
    } else {
        in->fd = open(path, O_RDONLY);
        if (in->fd < 0) {
            snprintf(errbuf, errlen, "%s: cannot open: %s", in->path, strerror(errno));
            ls_input_close(in);
            return LS_EIO;
        }
        in->owns_fd = 1;
        if (fstat(in->fd, &st) == 0) {
            if (S_ISDIR(st.st_mode)) {
                snprintf(errbuf, errlen, "%s: is a directory", in->path);
                ls_input_close(in);
                return LS_EIO;
            }
            if (S_ISREG(st.st_mode)) {
                in->raw_size = (uint64_t)st.st_size;
                in->stream = 0;
            }
        }
    }

    /* Sniff the compression's magic; a pipe cannot seek, so keep what was
     * read. */
    do {
        n = read(in->fd, in->head + in->nhead, sizeof(in->head) - in->nhead);
        if (n > 0)
            in->nhead += (size_t)n;
    } while ((n > 0 && in->nhead < sizeof(in->head)) || (n < 0 && errno == EINTR));
    if (n < 0) {
        snprintf(errbuf, errlen, "%s: read error: %s", in->path, strerror(errno));
        ls_input_close(in);
        return LS_EIO;
    }
    in->codec = ls_codec_sniff(in->head, in->nhead);
    if (in->codec != LS_CODEC_PLAIN) {
        if (!(in->gz = gz_pipe_new(in->fd, in->codec, in->head, in->nhead))) {
            ls_input_close(in);
            return LS_ENOMEM;
        }
        in->nhead = 0;
    } else {
        memcpy(in->buf, in->head, in->nhead);
        in->end = in->nhead;
        in->raw_off = in->nhead;
    }
    *out = in;
    return LS_OK;
}

void ls_input_close(ls_input *in)
{
    if (!in)
        return;
    gz_pipe_free(in->gz);
    if (in->owns_fd && in->fd >= 0)
        close(in->fd);
    free(in->buf);
    free(in->path);
    free(in);
}

/* Read more bytes after buf[end]; 0 on success (eof may be set), LS_EIO. */
static int input_fill(ls_input *in, char *errbuf, size_t errlen)
{
    size_t room = in->cap - in->end;
    if (room > READ_CHUNK)
        room = READ_CHUNK;
    if (in->gz) {
        int rc = gz_take(in, room, errbuf, errlen);
        if (rc)
            return rc;
    } else {
        ssize_t n;
        do {
            n = read(in->fd, in->buf + in->end, room);
        } while (n < 0 && errno == EINTR);
        if (n < 0) {
            snprintf(errbuf, errlen, "%s: read error: %s", in->path, strerror(errno));
            return LS_EIO;
        }
        if (n == 0)
            in->eof = 1;
        in->end += (size_t)n;
        in->raw_off += (uint64_t)n;
    }
    return 0;
}

/*
 * A NUL byte would end every C string made of the line (a message cut
 * short, silently): it becomes '?', and is counted with its first line.
 * Call after in->lineno counts the line.
 */
static void replace_nuls(ls_input *in, char *line, size_t len)
{
    char *p = memchr(line, '\0', len);
    if (!p)
        return;
    if (!in->nuls)
        in->nul_line = in->lineno;
    for (; p; p = memchr(p, '\0', len - (size_t)(p - line))) {
        *p = '?';
        in->nuls++;
    }
}

uint64_t ls_input_nuls(const ls_input *in, uint64_t *first_line)
{
    *first_line = in->nul_line;
    return in->nuls;
}

/* Move the bytes still needed (from the start of the unread ones, or of a
 * peek's mark) to the front of the buffer. */
static void compact(ls_input *in)
{
    size_t from = in->peeking ? in->mark.start : in->start;
    if (from == 0)
        return;
    memmove(in->buf, in->buf + from, in->end - from);
    in->end -= from;
    in->scan -= from;
    in->start -= from;
    if (in->peeking) {
        in->mark.start -= from;
        in->mark.scan -= from;
    }
}

void ls_input_peek_begin(ls_input *in)
{
    in->mark.start = in->start;
    in->mark.scan = in->scan;
    in->mark.lineno = in->lineno;
    in->mark.text_off = in->text_off;
    in->mark.unterminated = in->unterminated;
    /* The tail of an over-long line is being skipped: nothing to look at. */
    in->peeking = in->skipping ? PEEK_EMPTY : PEEK_ON;
}

void ls_input_peek_end(ls_input *in)
{
    if (in->peeking == PEEK_NONE)
        return;
    in->start = in->mark.start;
    in->scan = in->mark.scan;
    in->lineno = in->mark.lineno;
    in->text_off = in->mark.text_off;
    in->unterminated = in->mark.unterminated;
    in->peeking = PEEK_NONE;
}

/* The first n bytes, less an incomplete UTF-8 sequence at their end: a
 * piece of a line ends between characters. */
static size_t utf8_whole(const char *b, size_t n)
{
    size_t k = 0, need;
    unsigned char lead;
    while (k < 3 && k < n && ((unsigned char)b[n - 1 - k] & 0xc0) == 0x80)
        k++;
    if (k == n)
        return n;
    lead = (unsigned char)b[n - 1 - k];
    if (lead < 0xc0)
        return n;
    need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
    return need > k + 1 ? n - 1 - k : n;
}

void ls_input_set_pieces(ls_input *in)
{
    in->pieces = 1;
    if (in->skipping) {
        /* The head of an over-long line was delivered: its rest follows. */
        in->skipping = 0;
        in->piece = 1;
    }
}

int ls_input_next_line(ls_input *in, const char **line, size_t *len, uint64_t *lineno,
                       int *truncated, char *errbuf, size_t errlen)
{
    if (in->peeking == PEEK_EMPTY)
        return 0;
    for (;;) {
        char *nl = NULL;
        if (in->scan < in->end)
            nl = memchr(in->buf + in->scan, '\n', in->end - in->scan);
        if (nl) {
            size_t s = in->start, n = (size_t)(nl - (in->buf + s));
            in->start = in->scan = (size_t)(nl - in->buf) + 1;
            in->text_off += n + 1;
            if (in->skipping) {
                in->skipping = 0;
                continue;
            }
            *line = in->buf + s;
            /* CRLF line endings (a log copied through Windows, some
             * collectors): the '\r' is not part of the message. */
            *len = n > 0 && in->buf[s + n - 1] == '\r' ? n - 1 : n;
            *lineno = in->piece ? in->lineno : ++in->lineno;
            in->piece = 0;
            *truncated = 0;
            if (!in->peeking)
                replace_nuls(in, in->buf + s, *len);
            return 1;
        }
        in->scan = in->end;
        if (in->eof) {
            if (in->start < in->end && !in->skipping) {
                in->unterminated = 1;
                *line = in->buf + in->start;
                *len = in->end - in->start;
                in->text_off += *len;
                if (in->buf[in->end - 1] == '\r')
                    (*len)--;
                if (!in->peeking)
                    replace_nuls(in, in->buf + in->start, *len);
                in->start = in->scan = in->end;
                *lineno = in->piece ? in->lineno : ++in->lineno;
                in->piece = 0;
                *truncated = 0;
                return 1;
            }
            return 0;
        }
        /* No newline in the buffer: make room at the end (a peek keeps
         * the bytes from its mark on). */
        compact(in);
        if (in->peeking && in->end == in->cap &&
            (in->cap >= LS_LINE_MAX || in->end - in->mark.start >= LS_PEEK_MAX))
            return 0; /* the peek ends here: a line too long to look at */
        if (in->skipping) {
            in->text_off += in->end;
            in->line_bytes += in->end;
            in->end = in->scan = 0;
            if (in->stream && in->line_bytes >= LS_STREAM_NO_BREAK_MAX) {
                snprintf(errbuf, errlen, "%s: no line break in %u MiB (line %llu): not a text "
                         "log, or a stream that never ends a line; read up to there",
                         in->path, LS_STREAM_NO_BREAK_MAX >> 20,
                         (unsigned long long)in->lineno);
                return LS_EIO;
            }
        } else if (in->end == in->cap) {
            if (in->cap >= LS_LINE_MAX && in->pieces) {
                /* Deliver the over-long line so far; the rest follows. */
                size_t n = utf8_whole(in->buf, in->end);
                *line = in->buf;
                *len = n;
                in->text_off += n;
                in->start = n;
                in->scan = in->end;
                *lineno = in->piece ? in->lineno : ++in->lineno;
                in->piece = 1;
                *truncated = 1;
                if (!in->peeking)
                    replace_nuls(in, in->buf, n);
                return 1;
            } else if (in->cap >= LS_LINE_MAX) {
                /* Deliver the head of the over-long line, drop the rest. */
                *line = in->buf;
                *len = in->end;
                in->text_off += in->end;
                in->start = in->end = in->scan = 0;
                in->skipping = 1;
                in->line_bytes = *len;
                *lineno = ++in->lineno;
                *truncated = 1;
                replace_nuls(in, in->buf, *len);
                /* The caller sees the data before the next fill reuses it. */
                return 1;
            } else {
                size_t ncap = in->cap * 2 > LS_LINE_MAX ? LS_LINE_MAX : in->cap * 2;
                char *nb = ls_realloc(in->buf, ncap);
                if (!nb)
                    return LS_ENOMEM;
                in->buf = nb;
                in->cap = ncap;
            }
        }
        {
            int rc = input_fill(in, errbuf, errlen);
            if (rc)
                return rc;
        }
    }
}

uint64_t ls_input_raw_offset(const ls_input *in)
{
    return in->raw_off;
}

uint64_t ls_input_text_offset(const ls_input *in)
{
    return in->text_off;
}

int ls_input_unterminated(const ls_input *in)
{
    return in->unterminated;
}

uint64_t ls_input_raw_size(const ls_input *in)
{
    return in->raw_size;
}

int ls_input_is_gzip(const ls_input *in)
{
    return in->codec == LS_CODEC_GZIP;
}

const char *ls_input_compression(const ls_input *in)
{
    return in->codec == LS_CODEC_PLAIN ? NULL : ls_codec_name(in->codec);
}

uint64_t ls_input_lines(const ls_input *in)
{
    return in->lineno;
}

int ls_input_is_stream(const ls_input *in)
{
    return in->stream;
}

int ls_path_is_stream(const char *path)
{
    struct stat st;
    if (strcmp(path, "-") == 0)
        return 1;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* ---- command-line paths ---- */

static int looks_like_log(const char *name)
{
    if (name[0] == '.')
        return 0;
    return strstr(name, ".log") || strstr(name, ".csv") || strstr(name, ".json") ||
           strstr(name, ".gz") || strstr(name, ".bz2") || strstr(name, ".xz") ||
           strstr(name, ".lzma") || strstr(name, ".zst") || strstr(name, ".zip") ||
           strstr(name, ".syslog");
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct path_list {
    char **v;
    size_t n, cap;
} path_list;

static int path_list_add(path_list *l, char *p)
{
    if (!p)
        return LS_ENOMEM;
    if (l->n + 2 > l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 16;
        char **nv = ls_realloc(l->v, ncap * sizeof(*nv));
        if (!nv) {
            free(p);
            return LS_ENOMEM;
        }
        l->v = nv;
        l->cap = ncap;
    }
    l->v[l->n++] = p;
    l->v[l->n] = NULL;
    return 0;
}

/* Order by stem (ls_logname.h: one log in several formats), richest format
 * first: within one directory such a log is read once, in its richest. */
static int cmp_stem(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    int rx, ry, c;
    size_t nx = ls_log_stem(x, &rx), ny = ls_log_stem(y, &ry);
    c = memcmp(x, y, nx < ny ? nx : ny);
    if (c)
        return c;
    if (nx != ny)
        return nx < ny ? -1 : 1;
    if (rx != ry)
        return ry - rx;
    return strcmp(x, y);
}

/*
 * Drop v[0..*n) entries (one directory's files) that another entry holds
 * in a richer format under the same name; say so on stderr unless quiet.
 * Leaves the rest sorted by name.
 */
static void drop_same_log(char **v, size_t *n, int quiet)
{
    const char *lead = NULL; /* the richest file of the current stem */
    size_t i, kept = 0, lead_stem = 0, stem;
    int lead_rank = 0, rank;

    qsort(v, *n, sizeof(char *), cmp_stem);
    for (i = 0; i < *n; i++) {
        stem = ls_log_stem(v[i], &rank);
        if (lead && stem == lead_stem && memcmp(v[i], lead, stem) == 0) {
            if (rank < lead_rank) {
                char a[LS_SHOWN_MAX], b[LS_SHOWN_MAX];
                if (!quiet)
                    fprintf(stderr,
                            "lockspan: %s: skipped: the same log as %s, which is read "
                            "instead (log_destination writes each event to every format; "
                            "name the file to read it)\n",
                            ls_shown(a, sizeof(a), v[i]), ls_shown(b, sizeof(b), lead));
                free(v[i]);
                continue;
            }
        } else {
            lead = v[i];
            lead_stem = stem;
            lead_rank = rank;
        }
        v[kept++] = v[i];
    }
    *n = kept;
    v[kept] = NULL;
    qsort(v, *n, sizeof(char *), cmp_str);
}

/* ---- a directory's files in the order they were written ---- */

#define PEEK_BYTES 8192u

typedef struct dir_file {
    char *path;
    int rank;   /* 1 stderr, 2 csvlog, 3 jsonlog, by name (log_stem) */
    int has_ts; /* ts is the first record's time, not the mtime */
    int drop;   /* a poorer format of events another file holds */
    ls_ts ts;   /* sort key: first record's time, else mtime */
} dir_file;

/* Length of a PostgreSQL timestamp at s[0..n), 0 if none: the date and
 * time, fraction, and a zone that ls_ts_parse accepts (tried longest
 * first: "UTC", "+05:30"; in "%t:%r" the zone ends at the ':'). */
static size_t ts_at(const char *s, size_t n, ls_ts *out)
{
    static const char shape[] = "dddd-dd-dd dd:dd:dd";
    size_t i, k, z, cut;

    if (n < sizeof(shape) - 1)
        return 0;
    for (i = 0; i < sizeof(shape) - 1; i++)
        if (shape[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != shape[i])
            return 0;
    if (i < n && s[i] == '.')
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            ;
    if (i + 1 < n && s[i] == ' ') {
        for (z = i + 1, k = z; k < n && k - z < 16 &&
                               ((s[k] >= 'A' && s[k] <= 'Z') || (s[k] >= 'a' && s[k] <= 'z') ||
                                (s[k] >= '0' && s[k] <= '9') || s[k] == '+' || s[k] == '-' ||
                                s[k] == ':');
             k++)
            ;
        if (k > z && ls_ts_parse(out, s, k) == 0)
            return k;
        for (cut = z; cut < k && s[cut] != ':'; cut++)
            ;
        if (cut < k && cut > z && ls_ts_parse(out, s, cut) == 0)
            return cut;
    }
    return ls_ts_parse(out, s, i) == 0 ? i : 0;
}

/*
 * The time of the first record of a log file, from one read of its first
 * PEEK_BYTES (through its decoder when compressed, whatever the format):
 * the first timestamp found in it. stderr prefixes with %m/%t/%s, csvlog
 * and jsonlog all begin a record with one; a prefix without a time gives
 * none (0 is returned, also when the file cannot be read).
 */
static int first_record_ts(const char *path, ls_ts *out)
{
    char buf[PEEK_BYTES], errbuf[256];
    ls_input *in = NULL;
    const char *line;
    size_t n = 0, len, i;
    uint64_t lineno;
    int truncated, found = 0;

    if (ls_input_open(&in, path, errbuf, sizeof(errbuf)) != LS_OK)
        return 0;
    while (n < sizeof(buf) &&
           ls_input_next_line(in, &line, &len, &lineno, &truncated, errbuf, sizeof(errbuf)) == 1) {
        if (len > sizeof(buf) - n)
            len = sizeof(buf) - n;
        memcpy(buf + n, line, len);
        n += len;
        if (n < sizeof(buf))
            buf[n++] = '\n';
    }
    ls_input_close(in);
    for (i = 0; i < n && !found; i++)
        if (buf[i] >= '0' && buf[i] <= '9' && (i == 0 || buf[i - 1] < '0' || buf[i - 1] > '9'))
            found = ts_at(buf + i, n - i, out) > 0;
    return found;
}

static int cmp_dir_file(const void *a, const void *b)
{
    const dir_file *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return strcmp(x->path, y->path);
}

/* The leading word of a file's name ("postgresql" in postgresql-Mon.log):
 * the fixed head of its log_filename pattern. */
static size_t name_family(const char *path, const char **start)
{
    const char *b = strrchr(path, '/'), *e;
    b = b ? b + 1 : path;
    for (e = b; (*e >= 'a' && *e <= 'z') || (*e >= 'A' && *e <= 'Z') || *e == '_'; e++)
        ;
    *start = b;
    return (size_t)(e - b);
}

static int same_family(const char *x, const char *y)
{
    const char *bx, *by;
    size_t nx = name_family(x, &bx), ny = name_family(y, &by);
    return nx == ny && memcmp(bx, by, nx) == 0;
}

/*
 * Order v[0..*n) (one directory's files, already free of same-name
 * duplicates) by the time each file's writing began: its first record's
 * timestamp, else its mtime, then its name. Names do not do:
 * log_filename = 'postgresql-%a.log' (weekdays) or '-%H.log' does not sort
 * by time, nor does a pattern that puts seconds before minutes.
 *
 * log_destination = 'stderr,csvlog' rotates each format's file on its own
 * (when that file passes log_rotation_size), so the names of the formats
 * do not pair up. Among files whose names share their leading word, a
 * file of a poorer format that began after that name's first file of the
 * richest format holds events that format holds too: it is dropped (said
 * once on stderr unless quiet). One that began earlier (csvlog turned on
 * later) is kept, and so is a file of another name: another log.
 */
static int order_by_time(char **v, size_t *n, const char *dir, int quiet)
{
    dir_file *f = ls_calloc(*n ? *n : 1, sizeof(*f));
    size_t i, j, kept = 0, dropped = 0;
    int top_dropped = 0;
    struct stat st;

    if (!f)
        return LS_ENOMEM;
    for (i = 0; i < *n; i++) {
        f[i].path = v[i];
        ls_log_stem(v[i], &f[i].rank);
        f[i].has_ts = first_record_ts(v[i], &f[i].ts);
        if (!f[i].has_ts)
            f[i].ts = stat(v[i], &st) == 0 ? (ls_ts)st.st_mtime * 1000000 : 0;
    }
    qsort(f, *n, sizeof(*f), cmp_dir_file);
    for (i = 0; i < *n; i++) {
        /* The richest format of this name, and when its first file began.
         * Only a file with a timestamp counts: truth.json is no log. */
        int top = 0;
        ls_ts top_start = LS_TS_NONE;
        for (j = 0; j < *n; j++)
            if (f[j].has_ts && same_family(f[i].path, f[j].path) &&
                (f[j].rank > top || (f[j].rank == top && f[j].ts < top_start))) {
                top = f[j].rank;
                top_start = f[j].ts;
            }
        if (f[i].rank < top && f[i].ts >= top_start) {
            dropped++;
            if (top > top_dropped)
                top_dropped = top;
            f[i].drop = 1;
        }
    }
    for (i = 0; i < *n; i++) {
        if (f[i].drop)
            free(f[i].path);
        else
            v[kept++] = f[i].path;
    }
    if (dropped && !quiet) {
        char shown[LS_SHOWN_MAX];
        fprintf(stderr,
                "lockspan: %s: %zu file%s of a poorer format skipped: written while the %s "
                "files were, %s the same events (log_destination writes each event to every "
                "format; name a file to read it)\n",
                ls_shown(shown, sizeof(shown), dir), dropped, dropped == 1 ? "" : "s",
                top_dropped == 3 ? "jsonlog" : "csvlog", dropped == 1 ? "it holds" : "they hold");
    }
    *n = kept;
    v[kept] = NULL;
    free(f);
    return 0;
}

/*
 * Files named on the command line are all read, even one log in two
 * formats (a shell's postgresql-* names both); say so, since each of its
 * events then counts twice.
 */
static void warn_same_log(char *const *named, size_t n)
{
    const char **v = ls_calloc(n + 1, sizeof(*v));
    size_t i;

    if (!v)
        return;
    memcpy(v, named, n * sizeof(*v));
    qsort(v, n, sizeof(*v), cmp_stem);
    for (i = 1; i < n; i++)
        if (ls_paths_same_log(v[i - 1], v[i])) {
            char a[LS_SHOWN_MAX], b[LS_SHOWN_MAX];
            fprintf(stderr,
                    "lockspan: %s and %s are the same log in two formats (log_destination "
                    "writes each event to every format): both are read, so its events count "
                    "twice; name one of them, or their directory\n",
                    ls_shown(a, sizeof(a), v[i - 1]), ls_shown(b, sizeof(b), v[i]));
        }
    free(v);
}

int ls_paths_expand(char ***out, char *const *paths, int npaths, int quiet, char *errbuf,
                    size_t errlen)
{
    path_list l = {NULL, 0, 0};
    char **named = ls_calloc((size_t)npaths + 1, sizeof(*named)); /* the files named */
    size_t nnamed = 0;
    int i, rc = named ? 0 : LS_ENOMEM;

    *out = NULL;
    for (i = 0; i < npaths && rc == 0; i++) {
        struct stat st;
        const char *p = paths[i];
        if (strcmp(p, "-") == 0) {
            rc = path_list_add(&l, ls_strdup(p));
            continue;
        }
        if (stat(p, &st) != 0) {
            char shown[LS_SHOWN_MAX];
            int e = errno;
            snprintf(errbuf, errlen, "%s: %s", ls_shown(shown, sizeof(shown), p), strerror(e));
            rc = LS_EIO;
            break;
        }
        if (S_ISDIR(st.st_mode)) {
            DIR *d = opendir(p);
            struct dirent *de;
            size_t first = l.n;
            if (!d) {
                char shown[LS_SHOWN_MAX];
                int e = errno;
                snprintf(errbuf, errlen, "%s: cannot open directory: %s",
                         ls_shown(shown, sizeof(shown), p), strerror(e));
                rc = LS_EIO;
                break;
            }
            while (rc == 0 && (de = readdir(d)) != NULL) {
                size_t need;
                char *full;
                if (!looks_like_log(de->d_name))
                    continue;
                need = strlen(p) + strlen(de->d_name) + 2;
                full = ls_malloc(need);
                if (!full) {
                    rc = LS_ENOMEM;
                    break;
                }
                snprintf(full, need, "%s/%s", p, de->d_name);
                /* An entry that cannot be stat'ed (gone since readdir, a
                 * dangling link) is kept: opening it fails, and the ingest
                 * records it as an input not read, never a silent skip. */
                if (stat(full, &st) == 0 && !S_ISREG(st.st_mode)) {
                    free(full);
                    continue;
                }
                rc = path_list_add(&l, full);
            }
            closedir(d);
            if (l.n > first) {
                size_t n = l.n - first;
                drop_same_log(l.v + first, &n, quiet);
                rc = order_by_time(l.v + first, &n, p, quiet);
                l.n = first + n;
            } else if (rc == 0) {
                char shown[LS_SHOWN_MAX];
                snprintf(errbuf, errlen, "%s: directory holds no log files (*.log, *.csv, "
                         "*.json, *.gz, *.bz2, *.xz, *.zst, *.zip)",
                         ls_shown(shown, sizeof(shown), p));
                rc = LS_EIO;
            }
        } else {
            rc = path_list_add(&l, ls_strdup(p));
            named[nnamed++] = (char *)p;
        }
    }
    if (rc == 0)
        warn_same_log(named, nnamed);
    free(named);
    if (rc) {
        if (rc == LS_ENOMEM)
            snprintf(errbuf, errlen, "out of memory");
        ls_paths_free(l.v);
        return rc;
    }
    if (!l.v)
        l.v = ls_calloc(1, sizeof(char *));
    *out = l.v;
    return l.v ? 0 : LS_ENOMEM;
}

void ls_paths_free(char **paths)
{
    char **p;
    if (!paths)
        return;
    for (p = paths; *p; p++)
        free(*p);
    free(paths);
}
