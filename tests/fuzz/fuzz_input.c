/*
 * fuzz_input.c — a libFuzzer target for the stream sniffer and the peek of
 * input.c: the bytes after a two-byte header are opened with
 * ls_input_open as a pipe (a stream, read once) or as a regular file
 * (a memfd), so compression is sniffed from them and decoded by the
 * reading thread; lines are then read with peeks between them.
 *
 * Header: byte 0 bit 0 picks pipe (1) or file (0), bit 1 turns on pieces
 * (ls_input_set_pieces) at the first cut line; byte 1 says how many lines
 * each peek looks ahead (0..15) and, in its high bits, how many lines are
 * read between two peeks.
 *
 * Checks beyond the sanitizers: the lines a peek showed are the lines
 * read after it (same bytes, same line numbers); line numbers never go
 * down; an error met in a peek is met again after it.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ls_common.h"
#include "ls_input.h"

#define FUZZ_PIPE_MAX 60000u /* what a pipe holds before its reader reads */
#define FUZZ_PEEK_LINES 16u
#define FUZZ_LINES_MAX 100000u

static void fuzz_fail(const char *what)
{
    fprintf(stderr, "fuzz_input: %s\n", what);
    abort();
}

/* FNV-1a of a line, to compare what a peek showed with what follows. */
static uint64_t hash_of(const char *p, size_t n)
{
    uint64_t h = 14695981039346656037ull;
    while (n--)
        h = (h ^ (unsigned char)*p++) * 1099511628211ull;
    return h;
}

/* A descriptor holding data: a pipe's read end, or a memfd. -1 if none. */
static int fd_of(const uint8_t *data, size_t size, int pipe_it)
{
    int fds[2];
    if (!pipe_it) {
        int fd = memfd_create("fuzz_input", 0);
        if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
            if (fd >= 0)
                close(fd);
            return -1;
        }
        return fd;
    }
    if (pipe(fds) != 0)
        return -1;
    if (size > 0 && write(fds[1], data, size) != (ssize_t)size) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    close(fds[1]);
    return fds[0];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64], errbuf[512];
    ls_input *in = NULL;
    uint64_t seen[FUZZ_PEEK_LINES], seen_no[FUZZ_PEEK_LINES], lineno, last = 0;
    unsigned ahead, between, n, k, read_lines = 0;
    int fd, rc, pieces, truncated;
    const char *line;
    size_t len;

    if (size < 2 || size - 2 > FUZZ_PIPE_MAX)
        return 0;
    pieces = (data[0] & 2) != 0;
    ahead = data[1] % FUZZ_PEEK_LINES;
    between = 1u + (data[1] >> 4);
    if ((fd = fd_of(data + 2, size - 2, data[0] & 1)) < 0)
        return 0;
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    if (ls_input_open(&in, path, errbuf, sizeof(errbuf)) != LS_OK) {
        close(fd);
        return 0;
    }
    for (;;) {
        int peek_rc = 1;
        /* A peek: up to `ahead` lines, kept to compare. */
        ls_input_peek_begin(in);
        for (n = 0; n < ahead; n++) {
            peek_rc = ls_input_next_line(in, &line, &len, &lineno, &truncated, errbuf,
                                         sizeof(errbuf));
            if (peek_rc != 1)
                break;
            seen[n] = hash_of(line, len);
            seen_no[n] = lineno;
        }
        ls_input_peek_end(in);
        /* The lines after it: the peeked ones first, the same. */
        for (k = 0; k < between || k < n; k++) {
            rc = ls_input_next_line(in, &line, &len, &lineno, &truncated, errbuf,
                                    sizeof(errbuf));
            if (rc != 1) {
                if (k < n)
                    fuzz_fail("a line a peek showed is not read after it");
                if (peek_rc < 0 && n == k && rc != peek_rc)
                    fuzz_fail("an error met in a peek is not met after it");
                goto done;
            }
            if (k < n && lineno != seen_no[k])
                fuzz_fail("a line read has another number than its peek showed");
            if (k < n && hash_of(line, len) != seen[k] && !memchr(line, '?', len))
                fuzz_fail("a line read differs from the one its peek showed"); /* a NUL a
                                                    peek showed is read as '?' */
            if (lineno < last)
                fuzz_fail("line numbers went down");
            last = lineno;
            if (truncated && pieces)
                ls_input_set_pieces(in);
            if (++read_lines > FUZZ_LINES_MAX)
                goto done;
        }
    }
done:
    (void)ls_input_text_offset(in);
    (void)ls_input_raw_offset(in);
    ls_input_close(in);
    close(fd);
    return 0;
}
