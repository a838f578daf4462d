/*
 * fuzz_parser.c — a libFuzzer target for one format parser, chosen at
 * compile time: LS_FUZZ_PARSER is the parser's registry name ("stderr",
 * "csvlog", ...). With LS_FUZZ_PREFIX_LINE the input's first line is the
 * log_line_prefix given to the parser (as --prefix would be) and the rest
 * is the log; without it the parser gets no prefix (stderr and syslog then
 * infer it).
 *
 * The input is framed into lines as src/ingest/input.c does for the parsers
 * (split at '\n', the '\n' removed, no NUL after the line; each line in a
 * buffer of its own, freed after feed), the first line is offered to every
 * parser's sniff, every line is fed (a trace parser gets every second line
 * in pieces, as the input layer hands it a line over LS_LINE_MAX), then
 * finish and destroy. Each record is
 * run through the classifier as ingest does, and every string the parser
 * hands over (records, spans, snapshot rows) is read to its NUL, so that
 * ASan sees a dangling or unterminated one.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ls_classify.h"
#include "ls_parser.h"
#include "ls_prefix.h"

#ifndef LS_FUZZ_PARSER
#error "define LS_FUZZ_PARSER to a parser name"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fuzz_ctx {
    ls_classifier *cls;
    size_t sum; /* string lengths, so that the reads are not optimised away */
} fuzz_ctx;

static void touch(fuzz_ctx *c, const char *s)
{
    if (s)
        c->sum += strlen(s);
}

static int on_record(void *vctx, const ls_record *r)
{
    fuzz_ctx *c = vctx;
    ls_event ev;
    int rc;
    touch(c, r->file);
    touch(c, r->session_id);
    touch(c, r->user);
    touch(c, r->database);
    touch(c, r->application);
    touch(c, r->remote);
    touch(c, r->backend_type);
    touch(c, r->command_tag);
    touch(c, r->vxid);
    touch(c, r->severity);
    touch(c, r->message);
    touch(c, r->detail);
    touch(c, r->hint);
    touch(c, r->query);
    touch(c, r->context);
    touch(c, r->statement);
    touch(c, r->location);
    c->sum += strnlen(r->sqlstate, sizeof(r->sqlstate));
    rc = ls_classify(c->cls, r, &ev);
    if (rc == LS_ENOMEM)
        abort(); /* libFuzzer's -rss_limit_mb catches real exhaustion first */
    return 0;
}

static void on_bad(void *vctx, const char *file, uint64_t line, const char *reason,
                   const char *text, size_t len)
{
    fuzz_ctx *c = vctx;
    size_t i;
    touch(c, file);
    touch(c, reason);
    for (i = 0; i < len; i++)
        c->sum += (unsigned char)text[i];
}

static void on_note(void *vctx, const char *file, uint64_t line, const char *msg)
{
    fuzz_ctx *c = vctx;
    (void)line;
    touch(c, file);
    touch(c, msg);
}

static int on_span(void *vctx, const ls_span *sp)
{
    fuzz_ctx *c = vctx;
    touch(c, sp->file);
    touch(c, sp->format);
    c->sum += strnlen(sp->trace_id, sizeof(sp->trace_id)) +
              strnlen(sp->span_id, sizeof(sp->span_id)) +
              strnlen(sp->parent_id, sizeof(sp->parent_id));
    touch(c, sp->name);
    touch(c, sp->service);
    touch(c, sp->db_system);
    touch(c, sp->db_statement);
    touch(c, sp->db_name);
    touch(c, sp->db_operation);
    touch(c, sp->code_function);
    touch(c, sp->code_namespace);
    touch(c, sp->code_filepath);
    touch(c, sp->http_route);
    touch(c, sp->http_method);
    touch(c, sp->http_url);
    touch(c, sp->peer_service);
    touch(c, sp->attributes);
    return 0;
}

static int on_activity(void *vctx, const ls_activity *a)
{
    fuzz_ctx *c = vctx;
    touch(c, a->file);
    touch(c, a->state);
    touch(c, a->wait_event_type);
    touch(c, a->wait_event);
    touch(c, a->blocking_pids);
    touch(c, a->query);
    return 0;
}

#ifdef LS_FUZZ_PREFIX_LINE
/*
 * The prefix's fast matcher (which backtracks as PCRE2 would) against PCRE2
 * alone on every line: the same answer, message offset and field slices,
 * or abort.
 */
typedef struct matchers {
    ls_prefix *fast, *pcre;
} matchers;

static void match_same(const ls_prefix_match *a, const ls_prefix_match *b)
{
    int k;

    if (a->msg_off != b->msg_off || a->sev_off != b->sev_off)
        abort();
    for (k = 0; k < LS_PF__COUNT; k++)
        if (a->f[k].ptr != b->f[k].ptr || (a->f[k].ptr && a->f[k].len != b->f[k].len))
            abort();
}

/* ... and the line's other readings (ls_prefix_other_readings) too. */
static void matchers_compare(matchers *mm, const char *line, size_t len)
{
    ls_prefix_match a, b, alt_a[4], alt_b[4];
    int ra, rb, k;

    if (!mm->fast)
        return;
    ra = ls_prefix_match_line(mm->fast, line, len, &a);
    rb = ls_prefix_match_line(mm->pcre, line, len, &b);
    if (ra != rb)
        abort();
    if (ra != 1)
        return;
    match_same(&a, &b);
    ra = ls_prefix_other_readings(mm->fast, line, len, &a, alt_a, 4);
    rb = ls_prefix_other_readings(mm->pcre, line, len, &b, alt_b, 4);
    if (ra != rb)
        abort();
    for (k = 0; k < ra; k++)
        match_same(&alt_a[k], &alt_b[k]);
}
#endif

/*
 * A line as the input layer hands an over-long one to a parser that takes
 * pieces (the trace parsers): pieces of 1 to PIECE_SIZES bytes, the size
 * chosen by the line's number and length, each in a buffer of its own
 * freed after the call.
 */
#define PIECE_SIZES 13
static int feed_pieces(ls_feed_part_fn feed_part, void *state, const char *line, size_t len,
                       uint64_t lineno)
{
    size_t step = 1 + (size_t)(lineno + len) % PIECE_SIZES, k = 0;
    int rc;
    do {
        size_t n = len - k < step ? len - k : step;
        char *piece = malloc(n ? n : 1);
        if (!piece)
            abort();
        memcpy(piece, line + k, n);
        rc = feed_part(state, piece, n, lineno, k + n < len);
        free(piece);
        k += n;
    } while (rc == 0 && k < len);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const ls_parser_ops *ops = ls_parser_find(LS_FUZZ_PARSER);
    const char *p = (const char *)data, *end = p + size, *nl;
    fuzz_ctx ctx = {NULL, 0};
    ls_sink sink = {on_record, on_bad, on_note, &ctx, on_span, on_activity};
    ls_parse_opts opts = {.file = "fuzz.log", .prefix = NULL};
    char prefix[257], errbuf[512];
    void *state = NULL;
    uint64_t lineno = 0;
    char *line;
    int i, rc;
#ifdef LS_FUZZ_PREFIX_LINE
    matchers mm = {NULL, NULL};
#endif
    ls_feed_part_fn feed_part = ops ? ls_parser_feed_part(ops) : NULL;

    if (!ops)
        abort();
#ifdef LS_FUZZ_PREFIX_LINE
    {
        size_t n;
        nl = memchr(p, '\n', size);
        n = nl ? (size_t)(nl - p) : size;
        if (n >= sizeof(prefix))
            return 0;
        memcpy(prefix, p, n);
        prefix[n] = '\0';
        if (memchr(prefix, '\0', n))
            return 0; /* postgresql.conf cannot hold a NUL */
        opts.prefix = prefix;
        p = nl ? nl + 1 : end;
    }
    if (ls_prefix_compile(&mm.fast, prefix, errbuf, sizeof(errbuf)) == 0 &&
        ls_prefix_compile_lazy(&mm.pcre, prefix, errbuf, sizeof(errbuf)) == 0) {
        ls_prefix_pcre_only(mm.pcre);
    } else {
        ls_prefix_free(mm.fast);
        mm.fast = NULL;
    }
#else
    (void)prefix;
#endif
    {
        size_t len;
        nl = memchr(p, '\n', (size_t)(end - p));
        len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        line = malloc(len ? len : 1);
        if (!line)
            abort();
        memcpy(line, p, len);
        for (i = 0; ls_parsers[i]; i++)
            ctx.sum += (size_t)ls_parsers[i]->sniff(line, len);
        free(line);
    }

    if (ls_classifier_new(&ctx.cls) != 0)
        abort();
    if (ops->create(&state, &opts, &sink, errbuf, sizeof(errbuf)) != 0) {
        ls_classifier_free(ctx.cls);
#ifdef LS_FUZZ_PREFIX_LINE
        ls_prefix_free(mm.fast);
        ls_prefix_free(mm.pcre);
#endif
        return 0; /* a prefix that does not compile: refused, fine */
    }
    while (p < end) {
        size_t len;
        nl = memchr(p, '\n', (size_t)(end - p));
        len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        /* Each line in a buffer of its own, freed after feed: the input's
         * buffer is not NUL-terminated and moves between lines, so a read
         * past `len` or a pointer kept into the line is an ASan report. */
        line = malloc(len ? len : 1);
        if (!line)
            abort();
        memcpy(line, p, len);
#ifdef LS_FUZZ_PREFIX_LINE
        matchers_compare(&mm, line, len);
#endif
        ++lineno;
        if (feed_part && (lineno & 1) == 0)
            rc = feed_pieces(feed_part, state, line, len, lineno);
        else
            rc = ops->feed(state, line, len, lineno);
        free(line);
        if (rc == LS_ENOMEM)
            break;
        p = nl ? nl + 1 : end;
    }
    ops->finish(state);
    ops->destroy(state);
    ls_classifier_free(ctx.cls);
#ifdef LS_FUZZ_PREFIX_LINE
    ls_prefix_free(mm.fast);
    ls_prefix_free(mm.pcre);
#endif
    return ctx.sum == (size_t)-1; /* never: keeps the reads */
}
