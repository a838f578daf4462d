/*
 * ls_decompress.h — part of stage 1 (bytes in): compression recognised by
 * its content, never by a file's name, and one streaming decoder per
 * format behind a single interface, so that the reading thread of
 * input.c does not care which one it drives.
 *
 * Formats: gzip (zlib), bzip2 (libbz2), xz and lzma "alone" (liblzma),
 * zstd (libzstd) and zip archives (local file headers read in order,
 * method 8 through zlib's raw inflate, method 0 stored). A zip archive's
 * members are read as ONE stream, in archive order, as `unzip -p` prints
 * them; directories and empty members add nothing.
 *
 * Concatenated streams (rotated logs joined with cat, pbzip2, pzstd,
 * several xz streams) are read one after the other, as `gzip -dc`,
 * `bzip2 -dc`, `xz -dc` and `zstd -dc` do. Bytes after the last stream
 * that do not begin another one are ignored, as gzip -dc does.
 */
#ifndef LS_DECOMPRESS_H
#define LS_DECOMPRESS_H

#include <stddef.h>

/* Bytes ls_codec_sniff needs to decide (fewer only at the end of input). */
#define LS_CODEC_SNIFF_MAX 13u

typedef enum ls_codec_kind {
    LS_CODEC_PLAIN = 0, /* not compressed (or not a format known here) */
    LS_CODEC_GZIP,
    LS_CODEC_BZIP2,
    LS_CODEC_XZ,
    LS_CODEC_LZMA,
    LS_CODEC_ZSTD,
    LS_CODEC_ZIP
} ls_codec_kind;

/* ls_codec_run's results */
enum {
    LS_CODEC_OK = 0,  /* made progress or needs more input / more room */
    LS_CODEC_END = 1, /* the last stream ended; any bytes left are ignored */
    LS_CODEC_EDATA = -1, /* damaged data: message set, the codec is done */
    LS_CODEC_ENOMEM = -2
};

typedef struct ls_codec ls_codec;

/*
 * The format of the data that begins with p[0, n): its magic bytes. n may
 * be short of LS_CODEC_SNIFF_MAX only when the input is that short.
 */
ls_codec_kind ls_codec_sniff(const unsigned char *p, size_t n);
/* "gzip", "bzip2", "xz", "lzma", "zstd", "zip", or "plain". */
const char *ls_codec_name(ls_codec_kind kind);

/* A decoder for `kind` (not LS_CODEC_PLAIN). Returns LS_OK or LS_ENOMEM. */
int ls_codec_new(ls_codec **out, ls_codec_kind kind);
void ls_codec_free(ls_codec *c);

/*
 * Decode from *in (*inlen bytes) into *out (*outlen bytes of room),
 * advancing both pointers and decreasing both lengths by what was used.
 * Call again with more input when *inlen reached 0, with more room when
 * *outlen did. On LS_CODEC_EDATA msg says what is wrong (the caller adds
 * where). Never reads past *inlen or writes past *outlen.
 */
int ls_codec_run(ls_codec *c, const unsigned char **in, size_t *inlen, unsigned char **out,
                 size_t *outlen, char *msg, size_t msglen);

/*
 * 1 when the input may end here: the decoder is between two streams (or
 * after a zip archive's last member), so an end of input now is no
 * truncation; 0 in the middle of a stream.
 */
int ls_codec_complete(const ls_codec *c);

#endif
