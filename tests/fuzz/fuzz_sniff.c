/*
 * fuzz_sniff.c — a libFuzzer target for what is decided from an input's
 * buffered first bytes, in one process with no thread (fuzz_input runs
 * the same sniff through a pipe and the reading thread, at a few
 * executions a second): the compression by its magic (ls_codec_sniff),
 * and the log format by every parser's confidence in the first line and
 * the lines after it (as ingest.c's sniff_format and later_line_is ask
 * them). The log_line_prefix inferred from the first lines is
 * fuzz_stderr_infer's (through the parser; about 100 executions a second
 * under the sanitizers, PCRE2 without JIT compiling its candidates).
 *
 * Checks beyond the sanitizers: the compression is one of the kinds and
 * has a name; a parser's confidence is within 0..100; each answer is the
 * same when asked again (no hidden state).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_common.h"
#include "ls_decompress.h"
#include "ls_parser.h"

#define FUZZ_LINES_MAX 64 /* lines a run's format is looked for in (ingest.c's RUN_PEEK_LINES) */
#define FUZZ_SCORE_MAX 100

static void fuzz_fail(const char *what)
{
    fprintf(stderr, "fuzz_sniff: %s\n", what);
    abort();
}

/* The data's first lines, without their '\n' (a last line without one
 * counts); returns how many, at most FUZZ_LINES_MAX. */
static int split_lines(const char *p, size_t n, const char **lines, size_t *lens)
{
    int k = 0;
    while (n > 0 && k < FUZZ_LINES_MAX) {
        const char *nl = memchr(p, '\n', n);
        size_t len = nl ? (size_t)(nl - p) : n;
        lines[k] = p;
        lens[k++] = len;
        if (!nl)
            break;
        p = nl + 1;
        n -= len + 1;
    }
    return k;
}

/* Every parser's confidence in a line, checked to be a score and
 * the same twice. */
static void sniff_formats(const char *line, size_t len)
{
    for (int i = 0; ls_parsers[i]; i++) {
        int sc = ls_parsers[i]->sniff(line, len);
        if (sc < 0 || sc > FUZZ_SCORE_MAX)
            fuzz_fail("a parser's confidence outside 0..100");
        if (ls_parsers[i]->sniff(line, len) != sc)
            fuzz_fail("a parser's confidence changed when asked again");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *lines[FUZZ_LINES_MAX];
    size_t lens[FUZZ_LINES_MAX];
    size_t head = size < LS_CODEC_SNIFF_MAX ? size : LS_CODEC_SNIFF_MAX;
    ls_codec_kind kind = ls_codec_sniff(data, head);
    int n;

    if (kind < LS_CODEC_PLAIN || kind > LS_CODEC_ZIP || !ls_codec_name(kind))
        fuzz_fail("an unknown compression kind");
    if (ls_codec_sniff(data, head) != kind)
        fuzz_fail("the compression sniff changed when asked again");
    if (kind != LS_CODEC_PLAIN)
        return 0; /* the decoders are fuzz_decompress's */

    n = split_lines((const char *)data, size, lines, lens);
    for (int i = 0; i < n; i++) /* the first line, and later ones (later_line_is) */
        sniff_formats(lines[i], lens[i]);
    return 0;
}
