/*
 * ls_input.h — the first two pipeline stages: reading bytes (plain files,
 * compressed ones whatever their name: gzip, bzip2, xz, lzma, zstd, zip
 * (ls_decompress.h); stdin, pipes, FIFOs, devices: each read once, in
 * order, never sought) and framing them into lines.
 *
 * Lines are split on '\n' only: a bare '\r' inside a statement is data;
 * a '\r' just before the '\n' (CRLF endings) is dropped.
 * A line longer than LS_LINE_MAX is cut there; the rest of it is skipped
 * and the line is flagged as truncated, or, for a parser that takes lines
 * in pieces (the trace parsers), delivered in pieces. Memory stays bounded
 * by the read buffer plus LS_LINE_MAX.
 */
#ifndef LS_INPUT_H
#define LS_INPUT_H

#include <stddef.h>
#include <stdint.h>

#define LS_LINE_MAX (8u * 1024u * 1024u)
/*
 * A stream (stdin, a pipe, a FIFO, a device) that yields this many bytes
 * without a line break is no log: /dev/zero, a binary piped in. Reading it
 * stops there with an error (the lines before it are read). A regular file
 * ends, so its over-long lines are only cut.
 */
#define LS_STREAM_NO_BREAK_MAX (4u * LS_LINE_MAX)
/* The most bytes a peek (ls_input_peek_begin) holds to look ahead. */
#define LS_PEEK_MAX (1024u * 1024u)

typedef struct ls_input ls_input;

/*
 * Open `path` ("-" = stdin). Compressed data (gzip, bzip2, xz, lzma,
 * zstd, a zip archive) is detected by its magic bytes, whatever the file
 * is called, from the first LS_CODEC_SNIFF_MAX bytes read. Every byte is
 * read once, in order, and nothing seeks: a pipe, a FIFO, a process
 * substitution or a device reads like a file (compressed included). A
 * damaged or cut compressed stream is an LS_EIO of ls_input_next_line
 * after every line before the damage. Returns LS_EIO with a message in errbuf
 * when the file cannot be opened.
 */
int ls_input_open(ls_input **out, const char *path, char *errbuf, size_t errlen);
void ls_input_close(ls_input *in);

/*
 * Next line: sets *line / *len (without the '\n'; valid until the next
 * call) and *lineno. Returns 1 for a line, 0 at end of input, LS_EIO on a
 * read or decompression error (message in errbuf). *truncated is set when
 * the line was longer than LS_LINE_MAX: its head is delivered, the rest
 * dropped; with ls_input_set_pieces it means the line goes on in the next
 * call, with the same *lineno.
 */
int ls_input_next_line(ls_input *in, const char **line, size_t *len, uint64_t *lineno,
                       int *truncated, char *errbuf, size_t errlen);
/*
 * From now on deliver a line longer than LS_LINE_MAX in pieces of at most
 * LS_LINE_MAX bytes, each ending between UTF-8 characters, for a parser
 * that reads lines of any length (a JSON trace export on one line). Called
 * just after an over-long line's head was delivered, the rest of that line
 * follows as pieces.
 */
void ls_input_set_pieces(ls_input *in);

/*
 * NUL bytes in the lines delivered so far, each replaced by '?' (a NUL
 * would cut every string made of its line); *first_line is the line of the
 * first.
 */
uint64_t ls_input_nuls(const ls_input *in, uint64_t *first_line);
/* Bytes consumed so far from the underlying file (compressed size when compressed). */
uint64_t ls_input_raw_offset(const ls_input *in);
/* Bytes of decompressed text delivered so far. */
uint64_t ls_input_text_offset(const ls_input *in);
/*
 * 1 when the last line delivered ended the input without a '\n' (a file
 * cut mid-line, or still being written): its bytes count in the text
 * offset, but a later, longer copy of the file will not end there.
 */
int ls_input_unterminated(const ls_input *in);
/* Total size of the file when known (regular files), else 0. */
uint64_t ls_input_raw_size(const ls_input *in);
/* 1 for gzip input (the store's files.gzip). */
int ls_input_is_gzip(const ls_input *in);
/* The compression its first bytes say ("gzip", "bzip2", "xz", "lzma",
 * "zstd", "zip"), or NULL for plain text. */
const char *ls_input_compression(const ls_input *in);
/* Lines delivered so far. */
uint64_t ls_input_lines(const ls_input *in);
/* 1 for stdin and anything but a regular file: it can be read only once. */
int ls_input_is_stream(const ls_input *in);
/* The same for a path, from stat() ("-" is stdin): 0 for a regular file,
 * a directory, or a path that cannot be stat'ed. */
int ls_path_is_stream(const char *path);

/*
 * Look ahead without consuming: after ls_input_peek_begin, ls_input_next_line
 * delivers the lines that follow as usual (NUL bytes left as they are),
 * until ls_input_peek_end puts reading back where the peek began; the same
 * lines are then delivered again. A peek ends early (next_line returns 0)
 * at a line that would take the buffer past LS_PEEK_MAX bytes. The line
 * delivered before the peek may move: copy it first if it is still needed.
 * A read error during a peek is returned, and met again after it.
 */
void ls_input_peek_begin(ls_input *in);
void ls_input_peek_end(ls_input *in);

/*
 * Expand command-line PATHs into files, in the order given: a directory
 * gives its log files (names containing ".log", ".csv", ".json", or a
 * compression's ".gz", ".bz2", ".xz", ".lzma", ".zst", ".zip") in the
 * order they were written, by the timestamp of each file's first record
 * (one read of its first 8 KiB of text, through its decoder), else its
 * mtime, then its name; an entry that is not a regular file is left out,
 * but one that cannot be stat'ed (gone since it was listed, a dangling
 * link) is kept, for opening it to fail loudly. A directory holding the same events in
 * several formats gives the richest (jsonlog, csvlog, stderr): a file of a
 * poorer format is dropped when a richer file has its name, or when it
 * began after the richest format's first file; each file dropped is named
 * on stderr unless quiet (-q). *out is a NULL-terminated array owned by
 * the caller: ls_paths_free().
 */
int ls_paths_expand(char ***out, char *const *paths, int npaths, int quiet, char *errbuf,
                    size_t errlen);
void ls_paths_free(char **paths);

#endif
