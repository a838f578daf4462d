/*
 * stderr.c — parser for PostgreSQL's stderr log format.
 *
 * Each line is either
 *   - a prefixed line: log_line_prefix, "SEVERITY:  text". LOG/ERROR/...
 *     start a record; DETAIL/HINT/QUERY/CONTEXT/LOCATION/STATEMENT add a
 *     secondary field to the pending record of the same pid;
 *   - a continuation: a line starting with TAB continues the field written
 *     by the line before it (elog.c turns "\n" inside a message into
 *     "\n\t");
 *   - anything else, which is counted and reported as unparsable.
 *
 * Records of different processes may interleave (a large message written
 * without the logging collector), so pending records are kept per pid in a
 * small table and flushed when their pid starts a new message, when they
 * have been quiet for FLUSH_AFTER lines, or at the end of input. Memory is
 * bounded by MAX_PENDING records of at most RECORD_MAX bytes.
 *
 * Without a log_line_prefix from the user, the first INFER_LINES lines (at
 * most INFER_BYTES) are held back, the prefix is inferred from them
 * (ls_prefix_infer), the user is told what was inferred through the sink's
 * note(), and the held lines are then fed through the normal path. When the
 * inference is unsure the file fails with LS_EFORMAT and a note that asks
 * for --prefix.
 *
 * Each file of a run (ls_stderr_next_file) starts such a window of its own,
 * so that logs with different prefixes can be read together; a file that
 * the store holds part of is read on with the prefix stored for it.
 *
 * An inferred prefix may change in mid-file (the server restarted with a
 * new log_line_prefix): a line with a severity that the prefix does not
 * match starts another such window, the prefix is inferred again from it
 * and, when that succeeds with another prefix, used from the window's first
 * line on (a note says so), the old one still tried on lines the new one
 * does not match (around a reload, processes take the new value one by
 * one). Otherwise the window is read with the old one.
 *
 * A line that matches no prefix (output of another program on the server's
 * stderr, e.g. a failing archive_command's shell) is reported as bad but
 * does not end the record before it: TAB continuation lines after it still
 * belong to that record.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_buf.h"
#include "ls_common.h"
#include "ls_i18n.h"
#include "ls_parser.h"
#include "ls_prefix.h"

#define MAX_PENDING 32
#define FLUSH_AFTER 64
#define RECORD_MAX (32u * 1024u * 1024u)
#define INFER_LINES 200
#define INFER_BYTES (1024u * 1024u)
#define LS_REINFER 1 /* feed_line(): hold this line, infer the prefix again */

static int stderr_sniff(const char *line, size_t len);

/* String fields a pending record keeps, as offsets into its buffer. */
enum {
    SF_USER,
    SF_DB,
    SF_APP,
    SF_REMOTE,
    SF_BTYPE,
    SF_TAG,
    SF_SESSION,
    SF_VXID,
    SF_SEVERITY,
    SF_MESSAGE,
    SF_DETAIL,
    SF_HINT,
    SF_QUERY,
    SF_CONTEXT,
    SF_STATEMENT,
    SF_LOCATION,
    SF__COUNT
};

typedef struct pending {
    int used;
    int pid;
    uint64_t line;        /* first line of the record */
    uint64_t last_line;   /* last line that added to it */
    ls_record rec;        /* scalar fields; string pointers set at flush */
    ls_buf text;          /* NUL-separated strings */
    size_t off[SF__COUNT];
    int has[SF__COUNT];
    int truncated;        /* some text was dropped to stay under RECORD_MAX */
} pending;

typedef struct stderr_parser {
    char *file;
    ls_sink sink;
    ls_prefix *prefix;
    ls_prefix *prev; /* the prefix before a mid-file change, tried second */
    pending slots[MAX_PENDING];
    pending *current;     /* record the previous line belonged to */
    uint64_t lineno;
    uint64_t quiet_floor; /* no pending record's last line is below this (flush_quiet) */
    ls_ts_cache ts_cache; /* the record times: only the fraction changes, mostly */
    /* Lines held back while the prefix is not known yet (prefix == NULL). */
    int inferring;  /* holding lines for an inference */
    int inferred;   /* the prefix in force was inferred (it may change) */
    int replaying;  /* feeding held lines: a mismatch starts no window */
    int file_window; /* the window is a new file's (ls_stderr_next_file) */
    char spec[512]; /* the inferred prefix in force */
    int headed;     /* ls_stderr_set_headed() */
    ls_buf held;                     /* the held lines, back to back */
    size_t held_off[INFER_LINES];
    size_t held_len[INFER_LINES];
    uint64_t held_lineno[INFER_LINES];
    int held_pid[INFER_LINES];   /* the syslog header's pid and time */
    ls_ts held_ts[INFER_LINES];
    int nheld;
} stderr_parser;

#define WORD(w) w, sizeof(w) - 1
static const struct {
    const char *word;
    size_t len;
    int field;
} secondary_fields[] = {
    {WORD("DETAIL"), SF_DETAIL},   {WORD("HINT"), SF_HINT},
    {WORD("QUERY"), SF_QUERY},     {WORD("CONTEXT"), SF_CONTEXT},
    {WORD("LOCATION"), SF_LOCATION}, {WORD("STATEMENT"), SF_STATEMENT},
};

static int slice_is(ls_slice s, const char *w, size_t n)
{
    return s.ptr && s.len == n && memcmp(s.ptr, w, n) == 0;
}

/* Parse an unsigned decimal slice; returns -1 if not all digits. */
static int64_t slice_uint(ls_slice s)
{
    int64_t v = 0;
    size_t i;
    if (!s.ptr || s.len == 0 || s.len > 18)
        return -1;
    for (i = 0; i < s.len; i++) {
        if (s.ptr[i] < '0' || s.ptr[i] > '9')
            return -1;
        v = v * 10 + (s.ptr[i] - '0');
    }
    return v;
}

/* "%n": epoch seconds with milliseconds, "1733140000.123". */
static ls_ts slice_epoch(ls_slice s)
{
    size_t i = 0;
    int64_t sec = 0, frac = 0, scale = 1000000;
    if (!s.ptr || s.len == 0)
        return LS_TS_NONE;
    for (; i < s.len && s.ptr[i] >= '0' && s.ptr[i] <= '9'; i++) {
        if (i == 12)
            return LS_TS_NONE; /* past year 33000: not a time (and * 1000000 would overflow) */
        sec = sec * 10 + (s.ptr[i] - '0');
    }
    if (i < s.len && s.ptr[i] == '.') {
        for (i++; i < s.len && s.ptr[i] >= '0' && s.ptr[i] <= '9' && scale > 1; i++) {
            scale /= 10;
            frac += (s.ptr[i] - '0') * scale;
        }
    }
    return sec * 1000000 + frac;
}

static void pending_set(pending *p, int field, const char *s, size_t n)
{
    if (ls_buf_failed(&p->text))
        return;
    p->off[field] = p->text.len;
    p->has[field] = 1;
    if (p->text.len + n + 1 > RECORD_MAX) {
        n = 0;
        p->truncated = 1;
    }
    ls_buf_addz(&p->text, s, n);
}

static void pending_set_slice(pending *p, int field, ls_slice s)
{
    if (s.ptr)
        pending_set(p, field, s.ptr, s.len);
}

/* Append a continuation to the last field written (it ends the buffer). */
static void pending_continue(pending *p, const char *s, size_t n)
{
    if (ls_buf_failed(&p->text) || p->text.len == 0)
        return;
    if (p->text.len + n + 2 > RECORD_MAX) {
        p->truncated = 1;
        return;
    }
    p->text.len--; /* drop the field's NUL */
    ls_buf_addc(&p->text, '\n');
    ls_buf_addz(&p->text, s, n);
}

static int pending_flush(stderr_parser *sp, pending *p)
{
    ls_record *r = &p->rec;
    const char *base;
    int rc;

    if (!p->used)
        return 0;
    if (ls_buf_failed(&p->text) == LS_ENOMEM)
        return LS_ENOMEM;
    base = ls_buf_str(&p->text);
#define F(sf) (p->has[sf] ? base + p->off[sf] : NULL)
    r->user = F(SF_USER);
    r->database = F(SF_DB);
    r->application = F(SF_APP);
    r->remote = F(SF_REMOTE);
    r->backend_type = F(SF_BTYPE);
    r->command_tag = F(SF_TAG);
    r->session_id = F(SF_SESSION);
    r->vxid = F(SF_VXID);
    r->severity = F(SF_SEVERITY);
    r->message = F(SF_MESSAGE);
    r->detail = F(SF_DETAIL);
    r->hint = F(SF_HINT);
    r->query = F(SF_QUERY);
    r->context = F(SF_CONTEXT);
    r->statement = F(SF_STATEMENT);
    r->location = F(SF_LOCATION);
#undef F
    r->strings = base;
    r->strings_len = p->text.len;
    r->file = sp->file;
    r->line = p->line;
    if (p->truncated && sp->sink.bad)
        sp->sink.bad(sp->sink.ctx, sp->file, p->line, "record longer than 32 MiB, text cut",
                     "", 0);
    rc = sp->sink.record(sp->sink.ctx, r);
    p->used = 0;
    if (sp->current == p)
        sp->current = NULL;
    return rc;
}

static pending *slot_for_pid(stderr_parser *sp, int pid)
{
    int i;
    for (i = 0; i < MAX_PENDING; i++)
        if (sp->slots[i].used && sp->slots[i].pid == pid)
            return &sp->slots[i];
    return NULL;
}

/* A free slot, flushing the oldest pending record if all are busy. */
static int slot_take(stderr_parser *sp, pending **out)
{
    int i, oldest = 0;
    for (i = 0; i < MAX_PENDING; i++) {
        if (!sp->slots[i].used) {
            *out = &sp->slots[i];
            return 0;
        }
        if (sp->slots[i].last_line < sp->slots[oldest].last_line)
            oldest = i;
    }
    *out = &sp->slots[oldest];
    return pending_flush(sp, &sp->slots[oldest]);
}

/* Flush records nobody has added to for FLUSH_AFTER lines. A pending
 * record's last line only grows, so no slot need be looked at until the
 * line number passes the lowest of them by FLUSH_AFTER (or goes back, as
 * when held lines are replayed). */
static int flush_quiet(stderr_parser *sp)
{
    uint64_t floor = sp->lineno;
    int i, rc;

    if (sp->lineno >= sp->quiet_floor && sp->lineno - sp->quiet_floor <= FLUSH_AFTER)
        return 0;
    for (i = 0; i < MAX_PENDING; i++) {
        pending *p = &sp->slots[i];
        if (p->used && p->last_line + FLUSH_AFTER < sp->lineno)
            if ((rc = pending_flush(sp, p)) != 0)
                return rc;
        if (p->used && p->last_line < floor)
            floor = p->last_line;
    }
    sp->quiet_floor = floor;
    return 0;
}

static int start_record(stderr_parser *sp, const ls_prefix_match *m, const char *line,
                        size_t len, uint64_t lineno, int pid, ls_ts hdr_ts)
{
    pending *p = slot_for_pid(sp, pid);
    ls_record *r;
    int rc;
    ls_slice sev = m->f[LS_PF_SEVERITY], st;

    if (p && (rc = pending_flush(sp, p)) != 0)
        return rc;
    if ((rc = slot_take(sp, &p)) != 0)
        return rc;
    if (!p->text.max)
        ls_buf_init(&p->text, RECORD_MAX + 64);
    ls_buf_reset(&p->text);
    memset(p->has, 0, sizeof(p->has));
    p->used = 1;
    p->truncated = 0;
    p->pid = pid;
    p->line = p->last_line = lineno;
    r = &p->rec;
    memset(r, 0, sizeof(*r));
    r->pid = pid;
    r->ts = LS_TS_NONE;
    r->session_start = LS_TS_NONE;
    r->session_line = -1;

    if (m->f[LS_PF_TIME_MS].ptr)
        ls_ts_parse_cached(&sp->ts_cache, &r->ts, m->f[LS_PF_TIME_MS].ptr,
                           m->f[LS_PF_TIME_MS].len);
    else if (m->f[LS_PF_TIME].ptr)
        ls_ts_parse_cached(&sp->ts_cache, &r->ts, m->f[LS_PF_TIME].ptr, m->f[LS_PF_TIME].len);
    else if (m->f[LS_PF_EPOCH].ptr)
        r->ts = slice_epoch(m->f[LS_PF_EPOCH]);
    if (r->ts == LS_TS_NONE)
        r->ts = hdr_ts;
    if (m->f[LS_PF_SESS_START].ptr)
        ls_ts_parse(&r->session_start, m->f[LS_PF_SESS_START].ptr, m->f[LS_PF_SESS_START].len);
    r->session_line = slice_uint(m->f[LS_PF_LINE]);
    {
        int64_t x = slice_uint(m->f[LS_PF_XID]);
        r->xid = x > 0 && x <= UINT32_MAX ? (uint32_t)x : 0;
    }
    st = m->f[LS_PF_VSQLSTATE].ptr ? m->f[LS_PF_VSQLSTATE] : m->f[LS_PF_SQLSTATE];
    if (st.ptr && st.len == 5) {
        memcpy(r->sqlstate, st.ptr, 5);
        r->sqlstate[5] = '\0';
    }
    pending_set_slice(p, SF_USER, m->f[LS_PF_USER]);
    pending_set_slice(p, SF_DB, m->f[LS_PF_DB]);
    pending_set_slice(p, SF_APP, m->f[LS_PF_APP]);
    pending_set_slice(p, SF_REMOTE, m->f[LS_PF_REMOTE].ptr ? m->f[LS_PF_REMOTE]
                                                            : m->f[LS_PF_HOST]);
    pending_set_slice(p, SF_BTYPE, m->f[LS_PF_BTYPE]);
    pending_set_slice(p, SF_TAG, m->f[LS_PF_TAG]);
    pending_set_slice(p, SF_SESSION, m->f[LS_PF_SESSION]);
    pending_set_slice(p, SF_VXID, m->f[LS_PF_VXID]);
    pending_set(p, SF_SEVERITY, sev.ptr, sev.len);
    /* The message goes last so that continuation lines extend it. */
    pending_set(p, SF_MESSAGE, line + m->msg_off, len - m->msg_off);
    sp->current = p;
    return 0;
}

/*
 * A line "<prefix><word>:  <text>" whose word is no severity lockspan
 * knows (a catalog revision it has no table for: zh_CN's 2019 catalog
 * writes "详细信息" for DETAIL), on a line of a process with a record open:
 * a field label of that record, whatever the word. Found by matching the
 * prefix against the line's head with the word replaced by DETAIL. The
 * text goes to DETAIL when it is the record's first field (elog.c writes
 * DETAIL first), else to LOCATION, which nothing reads, so that it ends
 * nothing and counts as read (structural_lines), not as a bad line.
 * Returns 1 when the line was taken, 2 when the prefix matched but no
 * record of its process is open (a bad line, LS_BAD_UNKNOWN_WORD), 0 when
 * the prefix does not match this way either.
 */
#define LABEL_HEAD_MAX 512
#define LABEL_WORD_MAX 64

static int unknown_label(stderr_parser *sp, const char *line, size_t len, uint64_t lineno,
                         int hdr_pid)
{
    static const char probe[] = "DETAIL:  ";
    char head[LABEL_HEAD_MAX + sizeof(probe)];
    size_t i, scan = len < LABEL_HEAD_MAX ? len : LABEL_HEAD_MAX;

    for (i = 1; i + 2 < scan; i++) {
        ls_prefix_match m;
        size_t w = i;
        int64_t v;
        pending *p;
        int f;

        if (line[i] != ':' || line[i + 1] != ' ' || line[i + 2] != ' ')
            continue;
        while (w > 0 && line[w - 1] != ' ' && line[w - 1] != ']' && i - w < LABEL_WORD_MAX)
            w--;
        if (w == i || i - w >= LABEL_WORD_MAX)
            continue;
        memcpy(head, line, w);
        memcpy(head + w, probe, sizeof(probe) - 1);
        if (ls_prefix_match_line(sp->prefix, head, w + sizeof(probe) - 1, &m) != 1 ||
            m.msg_off != w + sizeof(probe) - 1)
            continue;
        v = slice_uint(m.f[LS_PF_PID]);
        if (!(p = slot_for_pid(sp, v > 0 && v <= INT32_MAX ? (int)v : hdr_pid)))
            return 2;
        for (f = SF_DETAIL; f <= SF_LOCATION && !p->has[f]; f++)
            ;
        f = f > SF_LOCATION ? SF_DETAIL : SF_LOCATION;
        pending_set(p, f, line + i + 3, len - i - 3);
        p->rec.structural_lines++;
        p->last_line = lineno;
        sp->current = p;
        return 1;
    }
    return 0;
}

/*
 * One line through the parser once the prefix is known. hdr_pid and hdr_ts
 * (0 and LS_TS_NONE when unknown) come from a syslog header and stand in
 * for a prefix without %p or a time.
 */
static int feed_line(stderr_parser *sp, const char *line, size_t len, uint64_t lineno,
                     int hdr_pid, ls_ts hdr_ts)
{
    ls_prefix_match m;
    int rc, pid, i;

    sp->lineno = lineno;
    if (len > 0 && line[0] == '\t') {
        if (sp->current) {
            pending_continue(sp->current, line + 1, len - 1);
            sp->current->last_line = lineno;
        } else if (sp->sink.bad) {
            sp->sink.bad(sp->sink.ctx, sp->file, lineno, LS_BAD_ORPHAN_CONTINUATION, line, len);
        }
        return 0;
    }
    if (len == 0 || (len == 1 && line[0] == '\r'))
        return 0;

    rc = ls_prefix_match_line(sp->prefix, line, len, &m);
    /* Around a reload, processes take the new prefix one by one. */
    if (rc == 0 && sp->prev)
        rc = ls_prefix_match_line(sp->prev, line, len, &m);
    if (rc < 0)
        return rc;
    if (rc == 0 && (i = unknown_label(sp, line, len, lineno, hdr_pid)) != 0) {
        if (i == 1)
            return 0;
        if (sp->sink.bad)
            sp->sink.bad(sp->sink.ctx, sp->file, lineno, LS_BAD_UNKNOWN_WORD, line, len);
        return flush_quiet(sp);
    }
    if (rc == 0) {
        /* Perhaps the prefix changed: infer it again from here. */
        if (sp->inferred && !sp->replaying && stderr_sniff(line, len))
            return LS_REINFER;
        if (sp->sink.bad)
            sp->sink.bad(sp->sink.ctx, sp->file, lineno,
                         "line does not start with the log_line_prefix", line, len);
        return flush_quiet(sp);
    }
    {
        int64_t v = slice_uint(m.f[LS_PF_PID]);
        pid = v > 0 && v <= INT32_MAX ? (int)v : hdr_pid;
    }
    for (i = 0; i < (int)(sizeof(secondary_fields) / sizeof(secondary_fields[0])); i++) {
        if (slice_is(m.f[LS_PF_SEVERITY], secondary_fields[i].word, secondary_fields[i].len)) {
            pending *p = slot_for_pid(sp, pid);
            if (!p) {
                sp->current = NULL;
                if (sp->sink.bad)
                    sp->sink.bad(sp->sink.ctx, sp->file, lineno, LS_BAD_ORPHAN_FIELD, line, len);
                return 0;
            }
            pending_set(p, secondary_fields[i].field, line + m.msg_off, len - m.msg_off);
            p->last_line = lineno;
            sp->current = p;
            return 0;
        }
    }
    if ((rc = start_record(sp, &m, line, len, lineno, pid, hdr_ts)) != 0)
        return rc;
    return flush_quiet(sp);
}

static void note(stderr_parser *sp, uint64_t line, const char *msg)
{
    if (sp->sink.note)
        sp->sink.note(sp->sink.ctx, sp->file, line, msg);
}

/*
 * A second inference, in mid-file: switch to `spec` if it is another
 * prefix (rc is the inference's result). The note has the first one's
 * form, so that ingest remembers the prefix in force for the next run.
 */
static int switch_prefix(stderr_parser *sp, int rc, const char *spec, const char *why)
{
    ls_prefix *p = NULL;
    char msg[1400], err[512];

    if (rc != 0 || strcmp(spec, sp->spec) == 0)
        return 0;
    if ((rc = ls_prefix_compile(&p, spec, err, sizeof(err))) != 0)
        return rc == LS_ENOMEM ? rc : 0;
    ls_prefix_free(sp->prev);
    /* Another file's prefix is no fallback for this one. */
    sp->prev = sp->file_window ? NULL : sp->prefix;
    if (sp->file_window)
        ls_prefix_free(sp->prefix);
    sp->prefix = p;
    snprintf(sp->spec, sizeof(sp->spec), "%s", spec);
    snprintf(msg, sizeof(msg), "inferred log_line_prefix '%s' (%s%s; pass --prefix to override)",
             spec, sp->file_window ? "" : "it changed here; ", why);
    /* the caller knows which file and line of it a line fed is */
    note(sp, sp->file_window ? 0 : sp->held_lineno[0], msg);
    return 0;
}

/*
 * Infer the prefix from the held lines plus `extra` (the line that did not
 * fit, or NULL), compile it, say what was inferred, and feed the held
 * lines. The caller feeds `extra` itself. With a prefix already in force
 * this is a mid-file window: see switch_prefix().
 */
static int infer_and_replay(stderr_parser *sp, const char *extra, size_t extra_len)
{
    const char *lines[INFER_LINES + 1];
    size_t lens[INFER_LINES + 1];
    char spec[512], why[512], msg[1400], sample[512], err[512];
    const char *base = sp->held.ptr ? sp->held.ptr : "";
    int i, n = 0, rc;

    sp->inferring = 0;
    if (ls_buf_failed(&sp->held))
        return LS_ENOMEM;
    for (i = 0; i < sp->nheld; i++, n++) {
        lines[n] = base + sp->held_off[i];
        lens[n] = sp->held_len[i];
    }
    if (extra) {
        lines[n] = extra;
        lens[n++] = extra_len;
    }
    rc = sp->headed ? ls_prefix_infer_headed(spec, sizeof(spec), lines, lens, n, why, sizeof(why))
                    : ls_prefix_infer(spec, sizeof(spec), lines, lens, n, why, sizeof(why));
    if (rc == LS_ENOMEM)
        return rc;
    if (sp->prefix) {
        rc = switch_prefix(sp, rc, spec, why);
        sp->file_window = 0;
        if (rc != 0)
            return rc;
        goto replay;
    }
    if (rc == 0)
        rc = ls_prefix_compile(&sp->prefix, spec, err, sizeof(err));
    if (rc != 0) {
        sample[0] = '\0';
        for (i = 0; i < n && !sample[0]; i++)
            if (lens[i] > 0 && lines[i][0] != '\t')
                ls_prefix_sample_line(sample, sizeof(sample), lines[i], lens[i]);
        snprintf(msg, sizeof(msg),
                 "could not infer log_line_prefix from the first %d lines (%s); pass the "
                 "server's value with --prefix (SHOW log_line_prefix), e.g. --prefix "
                 "'%%m [%%p] %%q%%u@%%d '; first line: '%s'",
                 n, rc == LS_EFORMAT && why[0] ? why : "no usable prefix", sample);
        note(sp, 0, msg);
        return rc == LS_ENOMEM ? rc : LS_EFORMAT;
    }
    snprintf(msg, sizeof(msg), "inferred log_line_prefix '%s' (%s; pass --prefix to override)",
             spec, why);
    note(sp, 0, msg);
    sp->inferred = 1;
    snprintf(sp->spec, sizeof(sp->spec), "%s", spec);
replay:
    sp->replaying = 1;
    for (i = 0, rc = 0; i < sp->nheld && rc == 0; i++)
        rc = feed_line(sp, base + sp->held_off[i], sp->held_len[i], sp->held_lineno[i],
                       sp->held_pid[i], sp->held_ts[i]);
    sp->replaying = 0;
    ls_buf_free(&sp->held);
    sp->nheld = 0;
    return rc;
}

/* Hold a line for the inference; 1 when the window is full (not held). */
static int hold_line(stderr_parser *sp, const char *line, size_t len, uint64_t lineno, int pid,
                     ls_ts ts)
{
    if (sp->nheld >= INFER_LINES || sp->held.len + len + 1 > INFER_BYTES)
        return 1;
    sp->held_off[sp->nheld] = sp->held.len;
    sp->held_len[sp->nheld] = len;
    sp->held_pid[sp->nheld] = pid;
    sp->held_ts[sp->nheld] = ts;
    sp->held_lineno[sp->nheld++] = lineno;
    ls_buf_addz(&sp->held, line, len);
    return ls_buf_failed(&sp->held) ? LS_ENOMEM : 0;
}

int ls_stderr_feed_headed(void *state, const char *line, size_t len, uint64_t lineno,
                          int pid, ls_ts ts)
{
    stderr_parser *sp = state;
    int rc;

    if (sp->inferring) {
        if ((rc = hold_line(sp, line, len, lineno, pid, ts)) != 1)
            return rc;
        if ((rc = infer_and_replay(sp, line, len)) != 0)
            return rc;
    }
    if (!sp->prefix)
        return LS_EFORMAT; /* inference failed earlier: the file stays refused */
    if ((rc = feed_line(sp, line, len, lineno, pid, ts)) != LS_REINFER)
        return rc;
    sp->inferring = 1;
    ls_buf_init(&sp->held, INFER_BYTES + 1);
    return hold_line(sp, line, len, lineno, pid, ts);
}

void ls_stderr_set_headed(void *state)
{
    ((stderr_parser *)state)->headed = 1;
}

int ls_stderr_next_file(void *state, const char *stored_prefix)
{
    stderr_parser *sp = state;
    ls_prefix *p = NULL;
    char err[512];
    int rc;

    /* The last file's window is inferred from its own lines only. */
    if (sp->inferring && (rc = infer_and_replay(sp, NULL, 0)) != 0)
        return rc;
    if (!sp->prefix)
        return LS_EFORMAT; /* inference failed earlier: the run stays refused */
    if (!sp->inferred)
        return 0; /* --prefix: one prefix for every file */
    if (stored_prefix && stored_prefix[0]) {
        if (strcmp(stored_prefix, sp->spec) == 0)
            return 0;
        if ((rc = ls_prefix_compile(&p, stored_prefix, err, sizeof(err))) != 0)
            return rc == LS_ENOMEM ? rc : 0;
        ls_prefix_free(sp->prev);
        sp->prev = NULL;
        ls_prefix_free(sp->prefix);
        sp->prefix = p;
        snprintf(sp->spec, sizeof(sp->spec), "%s", stored_prefix);
        return 0;
    }
    /* A window as for a prefix changed in mid-file (see switch_prefix). */
    sp->inferring = 1;
    sp->file_window = 1;
    ls_buf_init(&sp->held, INFER_BYTES + 1);
    return 0;
}

static int stderr_feed(void *state, const char *line, size_t len, uint64_t lineno)
{
    return ls_stderr_feed_headed(state, line, len, lineno, 0, LS_TS_NONE);
}

static int stderr_finish(void *state)
{
    stderr_parser *sp = state;
    int i, rc;

    if (sp->inferring && (rc = infer_and_replay(sp, NULL, 0)) != 0)
        return rc;
    /* Flush in order of first line so records keep their log order. */
    for (;;) {
        pending *first = NULL;
        for (i = 0; i < MAX_PENDING; i++)
            if (sp->slots[i].used && (!first || sp->slots[i].line < first->line))
                first = &sp->slots[i];
        if (!first)
            return 0;
        if ((rc = pending_flush(sp, first)) != 0)
            return rc;
    }
}

static void stderr_destroy(void *state)
{
    stderr_parser *sp = state;
    int i;
    if (!sp)
        return;
    for (i = 0; i < MAX_PENDING; i++)
        ls_buf_free(&sp->slots[i].text);
    ls_prefix_free(sp->prefix);
    ls_prefix_free(sp->prev);
    ls_buf_free(&sp->held);
    free(sp->file);
    free(sp);
}

static int stderr_create(void **out, const ls_parse_opts *opts, const ls_sink *sink,
                         char *errbuf, size_t errlen)
{
    stderr_parser *sp = ls_calloc(1, sizeof(*sp));
    int rc;

    *out = NULL;
    if (!sp)
        return LS_ENOMEM;
    sp->sink = *sink;
    sp->file = ls_strdup(opts->file ? opts->file : "-");
    if (!sp->file) {
        stderr_destroy(sp);
        return LS_ENOMEM;
    }
    if (!opts->prefix) {
        sp->inferring = 1;
        ls_buf_init(&sp->held, INFER_BYTES + 1);
        *out = sp;
        return 0;
    }
    rc = ls_prefix_compile(&sp->prefix, opts->prefix, errbuf, errlen);
    if (rc) {
        stderr_destroy(sp);
        return rc;
    }
    if (opts->prefix_inferred) { /* may change like one inferred here */
        sp->inferred = 1;
        snprintf(sp->spec, sizeof(sp->spec), "%s", opts->prefix);
    }
    *out = sp;
    return 0;
}

/*
 * Any prefix is possible, so recognise the line's tail instead: a severity
 * followed by a colon and two spaces, as elog.c writes it.
 */
static int stderr_sniff(const char *line, size_t len)
{
    static const char *const marks[] = {"LOG:  ",     "ERROR:  ", "FATAL:  ", "WARNING:  ",
                                        "NOTICE:  ",  "INFO:  ",  "PANIC:  ", "DETAIL:  ",
                                        "STATEMENT:  ", "DEBUG"};
    size_t i, n, k;
    for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
        n = strlen(marks[i]);
        for (k = 0; k + n <= len && k < 1024; k++)
            if (line[k] == marks[i][0] && memcmp(line + k, marks[i], n) == 0)
                return 50;
    }
    /* A translated severity word (lc_messages other than C). */
    for (k = 1; k < len && k < 1024; k++) {
        const ls_i18n_sev *v;
        if (line[k - 1] == ' ' && (v = ls_i18n_severity_at(line + k, len - k)) != NULL &&
            len - k >= (size_t)v->len + 3 && memcmp(line + k + v->len, ":  ", 3) == 0)
            return 50;
    }
    return 0;
}

const ls_parser_ops ls_stderr_parser = {
    "stderr", stderr_sniff, stderr_create, stderr_feed, stderr_finish, stderr_destroy,
};
