/*
 * decompress.c — compression by content: the magic bytes decide, and one
 * streaming decoder per format (gzip, bzip2, xz, lzma, zstd, zip) behind
 * ls_codec_run. See ls_decompress.h for the contract.
 *
 * Every decoder keeps `between`: it has ended a stream and not begun the
 * next. There an end of input is a clean end (ls_codec_complete), and the
 * next byte decides whether another stream follows (it begins like one)
 * or the rest is trailing garbage to ignore (LS_CODEC_END).
 */
#include <bzlib.h>
#include <limits.h>
#include <lzma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "ls_common.h"
#include "ls_decompress.h"

/* The most memory an xz/lzma stream may ask for: xz -9e needs 65 MiB to
 * decompress; a header that asks for more is damage (or a bomb). */
#define XZ_MEMLIMIT (256u * 1024u * 1024u)
/* The largest zstd window accepted: 2^27 = 128 MiB, zstd's own default
 * without --long. */
#define ZSTD_WINDOWLOG_MAX 27
/* Each library takes at most this many bytes per call (unsigned int). */
#define CALL_MAX ((size_t)UINT_MAX)

#define ZIP_LOCAL_SIG 0x04034b50u  /* PK\3\4: a member follows */
#define ZIP_CENTRAL_SIG 0x02014b50u /* PK\1\2: the central directory */
#define ZIP_END_SIG 0x06054b50u     /* PK\5\6: end of central directory */
#define ZIP64_END_SIG 0x06064b50u   /* PK\6\6: zip64 end record */
#define ZIP_DESC_SIG 0x08074b50u    /* PK\7\8: optional data descriptor signature */
#define ZIP_LOCAL_LEN 30u           /* fixed part of a local file header */
#define ZIP_DESC_LEN 12u            /* crc, sizes (32-bit) of a data descriptor */
#define ZIP_DESC64_LEN 20u          /* crc, sizes (64-bit, zip64) */
#define ZIP_FLAG_ENCRYPTED 0x0001u
#define ZIP_FLAG_DESCRIPTOR 0x0008u /* sizes and crc follow the data */
#define ZIP_STORED 0
#define ZIP64_SIZE 0xFFFFFFFFu /* the size is in the zip64 extra field */
#define ZIP_DEFLATED 8

typedef enum zip_state {
    ZIP_SIG,   /* reading a 4-byte signature */
    ZIP_HDR,   /* reading the rest of a local header */
    ZIP_SKIP,  /* skipping the name and extra field */
    ZIP_DATA,  /* a member's data */
    ZIP_DESC,  /* a member's data descriptor */
    ZIP_DONE   /* central directory reached: the archive's members are read */
} zip_state;

struct ls_codec {
    ls_codec_kind kind;
    int between; /* see the file comment */
    z_stream z;
    int z_init;
    bz_stream bz;
    int bz_init;
    lzma_stream xz;
    ZSTD_DStream *zs;
    struct {
        zip_state state;
        unsigned char hdr[ZIP_LOCAL_LEN + ZIP_DESC64_LEN];
        size_t have, need;  /* bytes of hdr held, and wanted */
        uint64_t skip;      /* ZIP_SKIP: bytes left; ZIP_DATA stored: bytes left */
        unsigned flags, method;
        uint32_t crc, want_crc;
        uint64_t in_bytes, out_bytes; /* of the member being read */
    } zip;
};

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint64_t le64(const unsigned char *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/*
 * An lzma "alone" header (xz --format=lzma): properties byte lc/lp/pb
 * (at most 224; xz writes 0x5D), a dictionary size that is 2^n or
 * 2^n + 2^(n-1) as xz's own detection requires, then the size, unknown
 * (all ones) or below 2^48. No text begins like this.
 */
static int lzma_alone_header(const unsigned char *p, size_t n)
{
    uint32_t dict;
    uint64_t size;
    if (n < LS_CODEC_SNIFF_MAX || p[0] > 224)
        return 0;
    dict = le32(p + 1);
    if (dict == 0) /* zeros (/dev/zero, a sparse file) are no lzma header */
        return 0;
    if ((dict & (dict - 1)) != 0) {
        uint32_t low = dict & (~dict + 1u); /* lowest bit set */
        if (dict != low * 3u)
            return 0;
    }
    size = le64(p + 5);
    return size == UINT64_MAX || size < ((uint64_t)1 << 48);
}

ls_codec_kind ls_codec_sniff(const unsigned char *p, size_t n)
{
    static const unsigned char xz[] = {0xFD, '7', 'z', 'X', 'Z', 0x00};
    static const unsigned char zstd[] = {0x28, 0xB5, 0x2F, 0xFD};

    if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
        return LS_CODEC_GZIP;
    /* "BZh" and a block size digit 1-9 */
    if (n >= 4 && p[0] == 'B' && p[1] == 'Z' && p[2] == 'h' && p[3] >= '1' && p[3] <= '9')
        return LS_CODEC_BZIP2;
    if (n >= sizeof(xz) && memcmp(p, xz, sizeof(xz)) == 0)
        return LS_CODEC_XZ;
    if (n >= sizeof(zstd) && memcmp(p, zstd, sizeof(zstd)) == 0)
        return LS_CODEC_ZSTD;
    if (n >= 4 && (le32(p) == ZIP_LOCAL_SIG || le32(p) == ZIP_END_SIG))
        return LS_CODEC_ZIP;
    if (lzma_alone_header(p, n))
        return LS_CODEC_LZMA;
    return LS_CODEC_PLAIN;
}

const char *ls_codec_name(ls_codec_kind kind)
{
    switch (kind) {
    case LS_CODEC_GZIP: return "gzip";
    case LS_CODEC_BZIP2: return "bzip2";
    case LS_CODEC_XZ: return "xz";
    case LS_CODEC_LZMA: return "lzma";
    case LS_CODEC_ZSTD: return "zstd";
    case LS_CODEC_ZIP: return "zip";
    case LS_CODEC_PLAIN: break;
    }
    return "plain";
}

static int xz_start(ls_codec *c)
{
    lzma_stream init = LZMA_STREAM_INIT;
    lzma_ret r;
    c->xz = init;
    r = c->kind == LS_CODEC_XZ ? lzma_stream_decoder(&c->xz, XZ_MEMLIMIT, 0)
                               : lzma_alone_decoder(&c->xz, XZ_MEMLIMIT);
    return r == LZMA_OK ? LS_OK : LS_ENOMEM;
}

int ls_codec_new(ls_codec **out, ls_codec_kind kind)
{
    ls_codec *c = ls_calloc(1, sizeof(*c));
    int ok = 0;

    *out = NULL;
    if (!c)
        return LS_ENOMEM;
    c->kind = kind;
    switch (kind) {
    case LS_CODEC_GZIP:
    case LS_CODEC_ZIP:
        /* gzip: 15 + 16 reads the gzip wrapper; zip: -15 is raw deflate */
        ok = inflateInit2(&c->z, kind == LS_CODEC_GZIP ? 15 + 16 : -15) == Z_OK;
        c->z_init = ok;
        c->zip.state = ZIP_SIG;
        c->zip.need = 4;
        break;
    case LS_CODEC_BZIP2:
        ok = BZ2_bzDecompressInit(&c->bz, 0, 0) == BZ_OK;
        c->bz_init = ok;
        break;
    case LS_CODEC_XZ:
    case LS_CODEC_LZMA:
        ok = xz_start(c) == LS_OK;
        break;
    case LS_CODEC_ZSTD:
        c->zs = ZSTD_createDStream();
        ok = c->zs && !ZSTD_isError(ZSTD_initDStream(c->zs)) &&
             !ZSTD_isError(ZSTD_DCtx_setParameter(c->zs, ZSTD_d_windowLogMax, ZSTD_WINDOWLOG_MAX));
        break;
    case LS_CODEC_PLAIN:
        break;
    }
    if (!ok) {
        ls_codec_free(c);
        return LS_ENOMEM;
    }
    *out = c;
    return LS_OK;
}

void ls_codec_free(ls_codec *c)
{
    if (!c)
        return;
    if (c->z_init)
        inflateEnd(&c->z);
    if (c->bz_init)
        BZ2_bzDecompressEnd(&c->bz);
    if (c->kind == LS_CODEC_XZ || c->kind == LS_CODEC_LZMA)
        lzma_end(&c->xz);
    ZSTD_freeDStream(c->zs);
    free(c);
}

int ls_codec_complete(const ls_codec *c)
{
    if (c->kind == LS_CODEC_ZIP)
        return c->zip.state == ZIP_DONE;
    return c->between;
}

/*
 * Between two streams: whether the next byte begins another stream of the
 * same format (1), or the input is over and the rest is ignored (0).
 */
static int next_stream(const ls_codec *c, unsigned char b)
{
    switch (c->kind) {
    case LS_CODEC_GZIP: return b == 0x1f;
    case LS_CODEC_BZIP2: return b == 'B';
    case LS_CODEC_XZ: return b == 0xFD;
    case LS_CODEC_ZSTD: return b == 0x28 || (b & 0xF0) == 0x50; /* a frame, a skippable frame */
    default: return 0; /* lzma alone has one stream */
    }
}

static size_t call_len(size_t n)
{
    return n < CALL_MAX ? n : CALL_MAX;
}

/* One inflate call on c->z; *ended set at the end of a deflate stream. */
static int z_step(ls_codec *c, const unsigned char **in, size_t *inlen, unsigned char **out,
                  size_t *outlen, int *ended, char *msg, size_t msglen)
{
    size_t ain = call_len(*inlen), aout = call_len(*outlen);
    int r;

    c->z.next_in = (Bytef *)(uintptr_t)*in;
    c->z.avail_in = (uInt)ain;
    c->z.next_out = *out;
    c->z.avail_out = (uInt)aout;
    r = inflate(&c->z, Z_NO_FLUSH);
    *inlen -= ain - c->z.avail_in;
    *outlen -= aout - c->z.avail_out;
    *in = c->z.next_in;
    *out = c->z.next_out;
    *ended = r == Z_STREAM_END;
    if (r == Z_OK || r == Z_STREAM_END || r == Z_BUF_ERROR)
        return LS_CODEC_OK;
    snprintf(msg, msglen, "%s", c->z.msg ? c->z.msg : zError(r));
    return r == Z_MEM_ERROR ? LS_CODEC_ENOMEM : LS_CODEC_EDATA;
}

static int gzip_run(ls_codec *c, const unsigned char **in, size_t *inlen, unsigned char **out,
                    size_t *outlen, char *msg, size_t msglen)
{
    int ended = 0, rc;
    if (c->between) {
        if (!next_stream(c, **in))
            return LS_CODEC_END;
        inflateReset(&c->z);
        c->between = 0;
    }
    rc = z_step(c, in, inlen, out, outlen, &ended, msg, msglen);
    c->between = ended;
    return rc;
}

static int bzip2_run(ls_codec *c, const unsigned char **in, size_t *inlen, unsigned char **out,
                     size_t *outlen, char *msg, size_t msglen)
{
    size_t ain = call_len(*inlen), aout = call_len(*outlen);
    int r;

    if (c->between) {
        if (!next_stream(c, **in))
            return LS_CODEC_END;
        BZ2_bzDecompressEnd(&c->bz);
        memset(&c->bz, 0, sizeof(c->bz));
        c->bz_init = BZ2_bzDecompressInit(&c->bz, 0, 0) == BZ_OK;
        if (!c->bz_init)
            return LS_CODEC_ENOMEM;
        c->between = 0;
    }
    c->bz.next_in = (char *)(uintptr_t)*in;
    c->bz.avail_in = (unsigned)ain;
    c->bz.next_out = (char *)*out;
    c->bz.avail_out = (unsigned)aout;
    r = BZ2_bzDecompress(&c->bz);
    *inlen -= ain - c->bz.avail_in;
    *outlen -= aout - c->bz.avail_out;
    *in = (const unsigned char *)c->bz.next_in;
    *out = (unsigned char *)c->bz.next_out;
    if (r == BZ_OK)
        return LS_CODEC_OK;
    if (r == BZ_STREAM_END) {
        c->between = 1;
        return LS_CODEC_OK;
    }
    if (r == BZ_MEM_ERROR)
        return LS_CODEC_ENOMEM;
    snprintf(msg, msglen, "%s", r == BZ_DATA_ERROR_MAGIC ? "not bzip2 data" : "data integrity error");
    return LS_CODEC_EDATA;
}

static const char *xz_error(lzma_ret r)
{
    switch (r) {
    case LZMA_FORMAT_ERROR: return "not xz/lzma data";
    case LZMA_OPTIONS_ERROR: return "unsupported compression options";
    case LZMA_DATA_ERROR: return "compressed data is corrupt";
    case LZMA_MEMLIMIT_ERROR: return "the stream asks for more than 256 MiB of memory";
    default: return "decoder error";
    }
}

static int xz_run(ls_codec *c, const unsigned char **in, size_t *inlen, unsigned char **out,
                  size_t *outlen, char *msg, size_t msglen)
{
    size_t ain = *inlen, aout = *outlen;
    lzma_ret r;

    if (c->between) {
        if (!next_stream(c, **in))
            return LS_CODEC_END;
        lzma_end(&c->xz);
        if (xz_start(c) != LS_OK)
            return LS_CODEC_ENOMEM;
        c->between = 0;
    }
    c->xz.next_in = *in;
    c->xz.avail_in = ain;
    c->xz.next_out = *out;
    c->xz.avail_out = aout;
    r = lzma_code(&c->xz, LZMA_RUN);
    *inlen -= ain - c->xz.avail_in;
    *outlen -= aout - c->xz.avail_out;
    *in = c->xz.next_in;
    *out = c->xz.next_out;
    if (r == LZMA_OK || r == LZMA_BUF_ERROR)
        return LS_CODEC_OK;
    if (r == LZMA_STREAM_END) {
        c->between = 1;
        return LS_CODEC_OK;
    }
    if (r == LZMA_MEM_ERROR)
        return LS_CODEC_ENOMEM;
    snprintf(msg, msglen, "%s", xz_error(r));
    return LS_CODEC_EDATA;
}

static int zstd_run(ls_codec *c, const unsigned char **in, size_t *inlen, unsigned char **out,
                    size_t *outlen, char *msg, size_t msglen)
{
    ZSTD_inBuffer zin = {*in, *inlen, 0};
    ZSTD_outBuffer zout = {*out, *outlen, 0};
    size_t r;

    if (c->between) {
        if (!next_stream(c, **in))
            return LS_CODEC_END;
        c->between = 0; /* the decoder begins the next frame by itself */
    }
    r = ZSTD_decompressStream(c->zs, &zout, &zin);
    *in += zin.pos;
    *inlen -= zin.pos;
    *out += zout.pos;
    *outlen -= zout.pos;
    if (ZSTD_isError(r)) {
        snprintf(msg, msglen, "%s", ZSTD_getErrorName(r));
        return LS_CODEC_EDATA;
    }
    c->between = r == 0; /* a frame decoded and flushed */
    return LS_CODEC_OK;
}

/* ---- zip: local headers in order, deflate or stored members ---- */

/* Move bytes from *in into zip.hdr until `need` are held; 1 when they are. */
static int zip_gather(ls_codec *c, const unsigned char **in, size_t *inlen)
{
    size_t take = c->zip.need - c->zip.have;
    if (take > *inlen)
        take = *inlen;
    memcpy(c->zip.hdr + c->zip.have, *in, take);
    c->zip.have += take;
    *in += take;
    *inlen -= take;
    return c->zip.have == c->zip.need;
}

static void zip_want(ls_codec *c, zip_state state, size_t need)
{
    c->zip.state = state;
    c->zip.have = 0;
    c->zip.need = need;
}

/* A signature read: a member's header, or the end of the members. */
static int zip_on_sig(ls_codec *c, char *msg, size_t msglen)
{
    uint32_t sig = le32(c->zip.hdr);
    if (sig == ZIP_LOCAL_SIG) {
        c->zip.state = ZIP_HDR;
        c->zip.need = ZIP_LOCAL_LEN;
        return LS_CODEC_OK;
    }
    if (sig == ZIP_CENTRAL_SIG || sig == ZIP_END_SIG || sig == ZIP64_END_SIG) {
        c->zip.state = ZIP_DONE;
        return LS_CODEC_END;
    }
    snprintf(msg, msglen, "no zip header where one should begin (signature 0x%08x)", sig);
    return LS_CODEC_EDATA;
}

/* A local header read: check what can be read, then skip name and extra. */
static int zip_on_header(ls_codec *c, char *msg, size_t msglen)
{
    const unsigned char *h = c->zip.hdr;
    c->zip.flags = le16(h + 6);
    c->zip.method = le16(h + 8);
    c->zip.want_crc = le32(h + 14);
    if (c->zip.flags & ZIP_FLAG_ENCRYPTED) {
        snprintf(msg, msglen, "an encrypted zip member cannot be read");
        return LS_CODEC_EDATA;
    }
    if (c->zip.method != ZIP_DEFLATED && c->zip.method != ZIP_STORED) {
        snprintf(msg, msglen, "zip compression method %u is not supported (only 0, stored, "
                 "and 8, deflate)", c->zip.method);
        return LS_CODEC_EDATA;
    }
    if (c->zip.method == ZIP_STORED &&
        ((c->zip.flags & ZIP_FLAG_DESCRIPTOR) || le32(h + 18) == ZIP64_SIZE)) {
        snprintf(msg, msglen, "a stored zip member of unknown or zip64 size cannot be read");
        return LS_CODEC_EDATA;
    }
    c->zip.crc = (uint32_t)crc32(0L, Z_NULL, 0);
    c->zip.in_bytes = c->zip.out_bytes = 0;
    c->zip.skip = (uint64_t)le16(h + 26) + le16(h + 28);
    c->zip.state = ZIP_SKIP;
    if (c->zip.method == ZIP_DEFLATED && inflateReset(&c->z) != Z_OK) {
        snprintf(msg, msglen, "inflateReset failed");
        return LS_CODEC_EDATA;
    }
    return LS_CODEC_OK;
}

/* Start the data of the member whose name and extra were skipped. */
static void zip_begin_data(ls_codec *c)
{
    c->zip.state = ZIP_DATA;
    if (c->zip.method == ZIP_STORED)
        c->zip.skip = le32(c->zip.hdr + 18); /* compressed size = size */
}

/* The member's data ended: check its crc now or after its descriptor. */
static int zip_end_data(ls_codec *c, char *msg, size_t msglen)
{
    if (c->zip.flags & ZIP_FLAG_DESCRIPTOR) {
        zip_want(c, ZIP_DESC, 4);
        return LS_CODEC_OK;
    }
    if (c->zip.crc != c->zip.want_crc) {
        snprintf(msg, msglen, "zip member's CRC-32 does not match its data");
        return LS_CODEC_EDATA;
    }
    zip_want(c, ZIP_SIG, 4);
    return LS_CODEC_OK;
}

/*
 * A data descriptor: an optional signature, the crc, then the sizes in 4
 * bytes each, or 8 in a zip64 archive. The sizes the member really had
 * tell which.
 */
static int zip_on_desc(ls_codec *c, char *msg, size_t msglen)
{
    const unsigned char *d = c->zip.hdr;
    if (c->zip.need == 4 && le32(d) == ZIP_DESC_SIG) {
        zip_want(c, ZIP_DESC, ZIP_DESC_LEN);
        return LS_CODEC_OK;
    }
    if (c->zip.need < ZIP_DESC_LEN) { /* those 4 bytes were the crc */
        c->zip.need = ZIP_DESC_LEN;
        return LS_CODEC_OK;
    }
    if (c->zip.need == ZIP_DESC_LEN && (le32(d + 4) != (uint32_t)c->zip.in_bytes ||
                                        le32(d + 8) != (uint32_t)c->zip.out_bytes)) {
        c->zip.need = ZIP_DESC64_LEN;
        return LS_CODEC_OK;
    }
    if (c->zip.need == ZIP_DESC64_LEN &&
        (le64(d + 4) != c->zip.in_bytes || le64(d + 12) != c->zip.out_bytes)) {
        snprintf(msg, msglen, "zip data descriptor does not match the member's sizes");
        return LS_CODEC_EDATA;
    }
    if (le32(d) != c->zip.crc) {
        snprintf(msg, msglen, "zip member's CRC-32 does not match its data");
        return LS_CODEC_EDATA;
    }
    zip_want(c, ZIP_SIG, 4);
    return LS_CODEC_OK;
}

/* Some of a member's data: inflated or copied, counted and summed. */
static int zip_data(ls_codec *c, const unsigned char **in, size_t *inlen, unsigned char **out,
                    size_t *outlen, char *msg, size_t msglen)
{
    unsigned char *o = *out;
    size_t in0 = *inlen, n;
    int ended = 0, rc = LS_CODEC_OK;

    if (c->zip.method == ZIP_STORED) {
        n = *inlen < *outlen ? *inlen : *outlen;
        if (n > c->zip.skip)
            n = (size_t)c->zip.skip;
        memcpy(*out, *in, n);
        *in += n;
        *inlen -= n;
        *out += n;
        *outlen -= n;
        c->zip.skip -= n;
        ended = c->zip.skip == 0;
    } else {
        rc = z_step(c, in, inlen, out, outlen, &ended, msg, msglen);
    }
    c->zip.in_bytes += in0 - *inlen;
    c->zip.out_bytes += (uint64_t)(*out - o);
    for (n = (size_t)(*out - o); n > 0;) { /* crc32 takes an unsigned int */
        size_t step = call_len(n);
        c->zip.crc = (uint32_t)crc32(c->zip.crc, o, (uInt)step);
        o += step;
        n -= step;
    }
    if (rc == LS_CODEC_OK && ended)
        rc = zip_end_data(c, msg, msglen);
    return rc;
}

static int zip_run(ls_codec *c, const unsigned char **in, size_t *inlen, unsigned char **out,
                   size_t *outlen, char *msg, size_t msglen)
{
    size_t n;
    switch (c->zip.state) {
    case ZIP_SIG:
        return zip_gather(c, in, inlen) ? zip_on_sig(c, msg, msglen) : LS_CODEC_OK;
    case ZIP_HDR:
        return zip_gather(c, in, inlen) ? zip_on_header(c, msg, msglen) : LS_CODEC_OK;
    case ZIP_SKIP:
        n = *inlen < c->zip.skip ? *inlen : (size_t)c->zip.skip;
        *in += n;
        *inlen -= n;
        c->zip.skip -= n;
        if (c->zip.skip == 0) {
            zip_begin_data(c);
            if (c->zip.method == ZIP_STORED && c->zip.skip == 0)
                return zip_end_data(c, msg, msglen); /* an empty member, a directory */
        }
        return LS_CODEC_OK;
    case ZIP_DATA:
        return zip_data(c, in, inlen, out, outlen, msg, msglen);
    case ZIP_DESC:
        return zip_gather(c, in, inlen) ? zip_on_desc(c, msg, msglen) : LS_CODEC_OK;
    case ZIP_DONE:
        break;
    }
    return LS_CODEC_END;
}

int ls_codec_run(ls_codec *c, const unsigned char **in, size_t *inlen, unsigned char **out,
                 size_t *outlen, char *msg, size_t msglen)
{
    if (*inlen == 0 && (c->between || c->kind == LS_CODEC_ZIP))
        return LS_CODEC_OK; /* nothing to decide on yet */
    switch (c->kind) {
    case LS_CODEC_GZIP: return gzip_run(c, in, inlen, out, outlen, msg, msglen);
    case LS_CODEC_BZIP2: return bzip2_run(c, in, inlen, out, outlen, msg, msglen);
    case LS_CODEC_XZ:
    case LS_CODEC_LZMA: return xz_run(c, in, inlen, out, outlen, msg, msglen);
    case LS_CODEC_ZSTD: return zstd_run(c, in, inlen, out, outlen, msg, msglen);
    case LS_CODEC_ZIP: return zip_run(c, in, inlen, out, outlen, msg, msglen);
    case LS_CODEC_PLAIN: break;
    }
    snprintf(msg, msglen, "no decoder");
    return LS_CODEC_EDATA;
}
