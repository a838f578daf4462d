/*
 * fuzz_decompress.c — a libFuzzer target for the decoders of decompress.c
 * (gzip, bzip2, xz, lzma, zstd, zip) and their sniffing.
 *
 * The first byte picks the decoder: 0 lets ls_codec_sniff decide from the
 * bytes after it (plain text is then only sniffed), 1..6 force one, so
 * that mutations of a valid stream's magic still reach its decoder. The
 * rest is fed in pieces whose sizes vary (1 byte to all), into an output
 * window whose size varies too, as a pipe and a short read would feed it.
 *
 * Checks beyond the sanitizers: ls_codec_run never claims more input or
 * output than it was given, makes progress or ends when it has both, and
 * after LS_CODEC_EDATA leaves a message. Decoding stops at FUZZ_OUT_MAX
 * bytes out.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_common.h"
#include "ls_decompress.h"

#define FUZZ_OUT_MAX (256u * 1024u) /* decoded bytes before giving up: a run
                                        stays fast, a bomb is no finding */
#define FUZZ_OUT_WINDOW 4096u             /* the largest output window */
#define FUZZ_KINDS 7                      /* sniff + the six decoders */

static void fuzz_fail(const char *what)
{
    fprintf(stderr, "fuzz_decompress: %s\n", what);
    abort();
}

/*
 * One ls_codec_run on in[0, inlen) into out[0, room), its invariants
 * checked; returns the bytes consumed in the low 32 bits and the bytes
 * produced in the high 32 (0: no progress).
 */
static uint64_t fuzz_call(ls_codec *c, const unsigned char *in0, size_t inlen0,
                          unsigned char *out0, size_t room0, int *rc)
{
    const unsigned char *in = in0;
    unsigned char *o = out0;
    size_t inlen = inlen0, room = room0;
    char msg[256] = "";

    *rc = ls_codec_run(c, &in, &inlen, &o, &room, msg, sizeof(msg));
    if (inlen > inlen0 || room > room0 || in != in0 + (inlen0 - inlen) ||
        o != out0 + (room0 - room))
        fuzz_fail("the pointers and lengths disagree");
    if (*rc == LS_CODEC_EDATA && msg[0] == '\0')
        fuzz_fail("a data error without a message");
    return (uint64_t)(inlen0 - inlen) | (uint64_t)(room0 - room) << 32;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static unsigned char out[FUZZ_OUT_WINDOW];
    ls_codec_kind kind;
    ls_codec *c = NULL;
    size_t pos = 0, total = 0, step = 1;
    int rc = LS_CODEC_OK;

    if (size < 1)
        return 0;
    kind = (ls_codec_kind)(data[0] % FUZZ_KINDS);
    data++;
    size--;
    if (kind == LS_CODEC_PLAIN)
        kind = ls_codec_sniff(data, size < LS_CODEC_SNIFF_MAX ? size : LS_CODEC_SNIFF_MAX);
    if (strcmp(ls_codec_name(kind), "") == 0)
        fuzz_fail("a codec without a name");
    if (kind == LS_CODEC_PLAIN)
        return 0;
    if (ls_codec_new(&c, kind) != LS_OK)
        return 0;
    while (rc == LS_CODEC_OK && pos < size && total < FUZZ_OUT_MAX) {
        size_t inlen = size - pos < step ? size - pos : step;
        /* Piece sizes and windows from the data itself: 1, 3, 7, ... bytes. */
        size_t room = 1 + (data[pos] * step) % FUZZ_OUT_WINDOW;
        uint64_t got = fuzz_call(c, data + pos, inlen, out, room, &rc);

        if (rc == LS_CODEC_OK && got == 0)
            /* No progress: only while more room would not help (a state
             * change without bytes), which one retry with a large window
             * shows. */
            got = fuzz_call(c, data + pos, inlen, out, FUZZ_OUT_WINDOW, &rc);
        if (rc == LS_CODEC_OK && got == 0)
            fuzz_fail("no progress with input and room");
        pos += (size_t)(got & 0xFFFFFFFFu);
        total += (size_t)(got >> 32);
        step = step * 2 + 1;
        if (step > size)
            step = 1;
    }
    (void)ls_codec_complete(c);
    ls_codec_free(c);
    return 0;
}
