/*
 * test_input.c — input.c on inputs that can be read only once: a pipe
 * (plain and gzip, fed by a thread), a peek at the lines ahead that are
 * then delivered again, and a stream without line breaks that ends with an
 * error instead of running forever; bzip2, xz, lzma and zstd sniffed by
 * their magic bytes and read through a pipe, whole and cut; every decoder
 * fed one byte at a time.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bzlib.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include "ls_common.h"
#include "ls_decompress.h"
#include "ls_input.h"
#include "ls_test.h"

/* Bytes written to a pipe by a thread, then the write end closed. */
typedef struct feeder {
    pthread_t thread;
    int fd;
    const unsigned char *data;
    size_t len;
    size_t zeros; /* then this many NUL bytes (no line break) */
} feeder;

static void *feed(void *arg)
{
    feeder *f = arg;
    static const unsigned char zero[65536];
    size_t off = 0, left = f->zeros;
    while (off < f->len) {
        ssize_t n = write(f->fd, f->data + off, f->len - off);
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    while (left > 0) {
        ssize_t n = write(f->fd, zero, left < sizeof(zero) ? left : sizeof(zero));
        if (n <= 0)
            break; /* the reader stopped: what it read decides the test */
        left -= (size_t)n;
    }
    close(f->fd);
    return NULL;
}

/* Open the read end of a pipe fed with data (+ zeros) as "/dev/fd/N". */
static ls_input *open_pipe(feeder *f, const void *data, size_t len, size_t zeros, int *rfd)
{
    int fds[2];
    char path[64], err[256];
    ls_input *in = NULL;

    if (pipe(fds) != 0)
        return NULL;
    f->fd = fds[1];
    f->data = data;
    f->len = len;
    f->zeros = zeros;
    if (pthread_create(&f->thread, NULL, feed, f) != 0)
        return NULL;
    snprintf(path, sizeof(path), "/dev/fd/%d", fds[0]);
    CHECK_INT(ls_input_open(&in, path, err, sizeof(err)), 0);
    *rfd = fds[0];
    return in;
}

static void close_pipe(feeder *f, ls_input *in, int rfd)
{
    ls_input_close(in);
    close(rfd); /* the feeder's writes fail from here, and it ends */
    pthread_join(f->thread, NULL);
}

/* gzip of `src` in a malloc'ed buffer. */
static unsigned char *gzip_of(const char *src, size_t len, size_t *out_len)
{
    z_stream z;
    size_t cap = compressBound((uLong)len) + 64;
    unsigned char *out = malloc(cap);
    memset(&z, 0, sizeof(z));
    if (!out || deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(out);
        return NULL;
    }
    z.next_in = (Bytef *)src;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    deflate(&z, Z_FINISH);
    *out_len = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

static const char log_text[] =
    "2026-12-02 12:00:00.000 UTC [10] LOG:  one\n"
    "2026-12-02 12:00:01.000 UTC [10] LOG:  two\n"
    "2026-12-02 12:00:02.000 UTC [10] LOG:  three\n";
static const char *const log_lines[] = {"2026-12-02 12:00:00.000 UTC [10] LOG:  one",
                                        "2026-12-02 12:00:01.000 UTC [10] LOG:  two",
                                        "2026-12-02 12:00:02.000 UTC [10] LOG:  three"};

/* Every line of a pipe, in order, gzip or not; a peek shows lines 2 and 3
 * after line 1, and they are delivered again after it. */
static void test_pipe(int gz)
{
    feeder f;
    size_t zlen = 0;
    unsigned char *z = gz ? gzip_of(log_text, sizeof(log_text) - 1, &zlen) : NULL;
    const void *data = gz ? (const void *)z : (const void *)log_text;
    int rfd = -1, rc, n = 0;
    ls_input *in = open_pipe(&f, data, gz ? zlen : sizeof(log_text) - 1, 0, &rfd);
    const char *line;
    size_t len;
    uint64_t no;
    int tr;
    char err[256];

    CHECK(in != NULL);
    if (!in)
        return;
    CHECK_INT(ls_input_is_stream(in), 1);
    CHECK_INT(ls_input_is_gzip(in), gz);
    CHECK_INT(ls_input_next_line(in, &line, &len, &no, &tr, err, sizeof(err)), 1);
    CHECK(len == strlen(log_lines[0]) && memcmp(line, log_lines[0], len) == 0);
    ls_input_peek_begin(in);
    CHECK_INT(ls_input_next_line(in, &line, &len, &no, &tr, err, sizeof(err)), 1);
    CHECK(len == strlen(log_lines[1]) && memcmp(line, log_lines[1], len) == 0);
    CHECK_INT(no, 2);
    CHECK_INT(ls_input_next_line(in, &line, &len, &no, &tr, err, sizeof(err)), 1);
    CHECK_INT(ls_input_next_line(in, &line, &len, &no, &tr, err, sizeof(err)), 0);
    ls_input_peek_end(in);
    CHECK_INT(ls_input_lines(in), 1);
    CHECK_INT(ls_input_text_offset(in), strlen(log_lines[0]) + 1);
    while ((rc = ls_input_next_line(in, &line, &len, &no, &tr, err, sizeof(err))) == 1) {
        n++;
        CHECK(n < 3 && len == strlen(log_lines[n]) && memcmp(line, log_lines[n], len) == 0);
        CHECK_INT(no, n + 1);
    }
    CHECK_INT(rc, 0);
    CHECK_INT(n, 2);
    CHECK_INT(ls_input_text_offset(in), sizeof(log_text) - 1);
    close_pipe(&f, in, rfd);
    free(z);
}

/* A peek leaves NUL bytes as they are; they are replaced, and counted
 * once, when the line is delivered after it. */
static void test_peek_nuls(void)
{
    static const char data[] = "first\nse\0ond\nthird\n";
    feeder f;
    int rfd = -1;
    ls_input *in = open_pipe(&f, data, sizeof(data) - 1, 0, &rfd);
    const char *line;
    size_t len;
    uint64_t no, first = 0;
    int tr;
    char err[256];

    CHECK(in != NULL);
    if (!in)
        return;
    CHECK_INT(ls_input_next_line(in, &line, &len, &no, &tr, err, sizeof(err)), 1);
    ls_input_peek_begin(in);
    CHECK_INT(ls_input_next_line(in, &line, &len, &no, &tr, err, sizeof(err)), 1);
    CHECK_INT(ls_input_nuls(in, &first), 0);
    ls_input_peek_end(in);
    CHECK_INT(ls_input_next_line(in, &line, &len, &no, &tr, err, sizeof(err)), 1);
    CHECK(len == 6 && memcmp(line, "se?ond", 6) == 0);
    CHECK_INT(ls_input_nuls(in, &first), 1);
    CHECK_INT(first, 2);
    close_pipe(&f, in, rfd);
}

/* A peek stops at a line longer than LS_PEEK_MAX; reading after it is as
 * if there had been no peek. */
static void test_peek_long(void)
{
    size_t big = LS_PEEK_MAX * 2;
    char *data = malloc(big + 32), err[256];
    feeder f;
    int rfd = -1;
    ls_input *in;
    const char *line;
    size_t len;
    uint64_t no;
    int tr;

    CHECK(data != NULL);
    if (!data)
        return;
    memcpy(data, "a\n", 2);
    memset(data + 2, 'x', big);
    memcpy(data + 2 + big, "\nlast\n", 6);
    in = open_pipe(&f, data, big + 8, 0, &rfd);
    CHECK(in != NULL);
    if (in) {
        CHECK_INT(ls_input_next_line(in, &line, &len, &no, &tr, err, sizeof(err)), 1);
        ls_input_peek_begin(in);
        CHECK_INT(ls_input_next_line(in, &line, &len, &no, &tr, err, sizeof(err)), 0);
        ls_input_peek_end(in);
        CHECK_INT(ls_input_next_line(in, &line, &len, &no, &tr, err, sizeof(err)), 1);
        CHECK_INT(len, big);
        CHECK_INT(ls_input_next_line(in, &line, &len, &no, &tr, err, sizeof(err)), 1);
        CHECK(len == 4 && memcmp(line, "last", 4) == 0);
        CHECK_INT(ls_input_next_line(in, &line, &len, &no, &tr, err, sizeof(err)), 0);
        close_pipe(&f, in, rfd);
    }
    free(data);
}

/* A stream that stops breaking lines ends with an error after
 * LS_STREAM_NO_BREAK_MAX bytes, its lines before delivered. */
static void test_no_break(void)
{
    feeder f;
    int rfd = -1, rc, n = 0;
    ls_input *in = open_pipe(&f, log_text, sizeof(log_text) - 1,
                             (size_t)LS_STREAM_NO_BREAK_MAX * 2, &rfd);
    const char *line;
    size_t len;
    uint64_t no;
    int tr;
    char err[256] = "";

    CHECK(in != NULL);
    if (!in)
        return;
    while ((rc = ls_input_next_line(in, &line, &len, &no, &tr, err, sizeof(err))) == 1)
        n++;
    CHECK_INT(rc, LS_EIO);
    CHECK_INT(n, 4); /* three lines, then the head of the endless one, cut */
    CHECK(strstr(err, "no line break") != NULL);
    close_pipe(&f, in, rfd);
}

/* `src` compressed as `kind` (bzip2, xz, lzma, zstd) in a malloc'ed
 * buffer, by the libraries themselves. NULL on failure. */
static unsigned char *compress_as(ls_codec_kind kind, const char *src, size_t len,
                                  size_t *out_len)
{
    size_t cap = len * 2 + 1024;
    unsigned char *out = malloc(cap);
    int ok = 0;

    if (!out)
        return NULL;
    if (kind == LS_CODEC_BZIP2) {
        unsigned n = (unsigned)cap;
        ok = BZ2_bzBuffToBuffCompress((char *)out, &n, (char *)(uintptr_t)src, (unsigned)len,
                                      1, 0, 0) == BZ_OK;
        *out_len = n;
    } else if (kind == LS_CODEC_XZ) {
        *out_len = 0;
        ok = lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, (const uint8_t *)src, len, out,
                                     out_len, cap) == LZMA_OK;
    } else if (kind == LS_CODEC_LZMA) {
        lzma_stream z = LZMA_STREAM_INIT;
        lzma_options_lzma opt;
        ok = lzma_lzma_preset(&opt, 6) == 0 && lzma_alone_encoder(&z, &opt) == LZMA_OK;
        z.next_in = (const uint8_t *)src;
        z.avail_in = len;
        z.next_out = out;
        z.avail_out = cap;
        ok = ok && lzma_code(&z, LZMA_FINISH) == LZMA_STREAM_END;
        *out_len = cap - z.avail_out;
        lzma_end(&z);
    } else if (kind == LS_CODEC_ZSTD) {
        *out_len = ZSTD_compress(out, cap, src, len, 3);
        ok = !ZSTD_isError(*out_len);
    }
    if (!ok) {
        free(out);
        return NULL;
    }
    return out;
}

static const ls_codec_kind stream_kinds[] = {LS_CODEC_BZIP2, LS_CODEC_XZ, LS_CODEC_LZMA,
                                             LS_CODEC_ZSTD};

/* Each compression through a pipe: sniffed by content, every line read;
 * the same stream cut short ends with a "truncated" error naming it. */
static void test_pipe_compressed(void)
{
    size_t k;
    for (k = 0; k < sizeof(stream_kinds) / sizeof(stream_kinds[0]); k++) {
        size_t zlen = 0, len;
        unsigned char *z = compress_as(stream_kinds[k], log_text, sizeof(log_text) - 1, &zlen);
        const char *name = ls_codec_name(stream_kinds[k]), *line;
        int rfd = -1, rc, n = 0, cut, tr;
        uint64_t no;
        char err[256] = "";
        feeder f;
        ls_input *in;

        CHECK(z != NULL);
        if (!z)
            continue;
        CHECK_INT(ls_codec_sniff(z, zlen < LS_CODEC_SNIFF_MAX ? zlen : LS_CODEC_SNIFF_MAX),
                  stream_kinds[k]);
        for (cut = 0; cut < 2; cut++) {
            in = open_pipe(&f, z, cut ? zlen - 6 : zlen, 0, &rfd);
            CHECK(in != NULL);
            if (!in)
                break;
            CHECK(ls_input_compression(in) && strcmp(ls_input_compression(in), name) == 0);
            CHECK_INT(ls_input_is_gzip(in), 0);
            n = 0;
            while ((rc = ls_input_next_line(in, &line, &len, &no, &tr, err, sizeof(err))) == 1) {
                CHECK(n < 3 && len == strlen(log_lines[n]) && memcmp(line, log_lines[n], len) == 0);
                n++;
            }
            if (cut) {
                CHECK_INT(rc, LS_EIO);
                CHECK(strstr(err, name) != NULL && strstr(err, "truncated") != NULL);
            } else {
                CHECK_INT(rc, 0);
                CHECK_INT(n, 3);
            }
            close_pipe(&f, in, rfd);
        }
        free(z);
    }
}

/* Every decoder given one byte at a time and one byte of room gives the
 * text back; a plain log is not sniffed as compressed. */
static void test_codec_bytewise(void)
{
    static const ls_codec_kind kinds[] = {LS_CODEC_GZIP, LS_CODEC_BZIP2, LS_CODEC_XZ,
                                          LS_CODEC_LZMA, LS_CODEC_ZSTD};
    char text[sizeof(log_text)];
    size_t k;

    static const unsigned char zeros[LS_CODEC_SNIFF_MAX];
    CHECK_INT(ls_codec_sniff((const unsigned char *)log_text, LS_CODEC_SNIFF_MAX),
              LS_CODEC_PLAIN);
    CHECK_INT(ls_codec_sniff(zeros, sizeof(zeros)), LS_CODEC_PLAIN); /* /dev/zero */
    for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        size_t zlen = 0, pos = 0, got = 0;
        unsigned char *z = kinds[k] == LS_CODEC_GZIP
                               ? gzip_of(log_text, sizeof(log_text) - 1, &zlen)
                               : compress_as(kinds[k], log_text, sizeof(log_text) - 1, &zlen);
        ls_codec *c = NULL;
        char msg[128];
        int rc = LS_CODEC_OK, spins = 0;

        CHECK(z != NULL && ls_codec_new(&c, kinds[k]) == LS_OK);
        while (z && c && rc == LS_CODEC_OK && got < sizeof(text) && spins++ < 1000000) {
            const unsigned char *in = z + pos;
            unsigned char *out = (unsigned char *)text + got;
            size_t inlen = pos < zlen ? 1 : 0, room = 1;
            if (inlen == 0 && ls_codec_complete(c))
                break;
            rc = ls_codec_run(c, &in, &inlen, &out, &room, msg, sizeof(msg));
            pos = (size_t)(in - z);
            got = (size_t)(out - (unsigned char *)text);
        }
        CHECK_INT(rc, LS_CODEC_OK);
        CHECK(c && ls_codec_complete(c));
        CHECK(got == sizeof(log_text) - 1 && memcmp(text, log_text, got) == 0);
        ls_codec_free(c);
        free(z);
    }
}

/* File names as messages show them (ls_shown): table of name -> shown. */
static void test_shown_names(void)
{
    static const struct {
        const char *name, *shown;
    } cases[] = {
        {"/var/log/postgresql/postgresql-15-main.log", "/var/log/postgresql/postgresql-15-main.log"},
        {"журнал.log", "журнал.log"},             /* UTF-8 names as they are */
        {"a\\b.log", "a\\b.log"},                /* a backslash alone needs nothing */
        {"evil\nlockspan: x.log", "evil\\nlockspan: x.log"},
        {"t\tab\r.log", "t\\tab\\r.log"},
        {"esc\x1b[31m.log", "esc\\x1b[31m.log"},
        {"del\x7f.log", "del\\x7f.log"},
        {"bidi\xe2\x80\xae.log", "bidi\\u{202E}.log"}, /* U+202E RIGHT-TO-LEFT OVERRIDE */
        {"ls\xe2\x80\xa8.log", "ls\\u{2028}.log"},     /* LINE SEPARATOR */
        {"c1\xc2\x85.log", "c1\\u{0085}.log"},          /* NEL */
        {"bad\xff\xc3.log", "bad\\xff\\xc3.log"},       /* not UTF-8 */
        {"mix\\\n", "mix\\\\\\n"},                    /* escaped: backslashes doubled */
        {"", ""},
    };
    char buf[64], small[8];
    size_t i;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *dup = ls_shown_dup(cases[i].name);
        CHECK_STR(ls_shown(buf, sizeof(buf), cases[i].name), cases[i].shown);
        CHECK_STR(dup, cases[i].shown);
        free(dup);
    }
    /* Cut short between pieces, never inside an escape, always terminated. */
    CHECK_STR(ls_shown(small, sizeof(small), "ab\ncdefg"), "ab\\ncde");
    CHECK_STR(ls_shown(small, sizeof(small), "abcdef\ng"), "abcdef");
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN); /* a feeder whose reader stopped gets EPIPE */
    test_pipe(0);
    test_pipe(1);
    test_pipe_compressed();
    test_codec_bytewise();
    test_peek_nuls();
    test_peek_long();
    test_no_break();
    test_shown_names();
    printf("%d passed, %d failed\n", ls_t_passed, ls_t_failed);
    return ls_t_failed ? 1 : 0;
}
