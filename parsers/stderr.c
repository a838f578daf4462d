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
 *
 * Lines that read more than one way: PostgreSQL prints %a, %u and %d as
 * they are, so an application_name such as "x [123] ERROR:  boom" makes a
 * line match the prefix with its severity in two places (the lazy reading
 * takes "ERROR" and turns every line of that session into an error). When
 * the prefix has free text, each line is asked for its other readings
 * (ls_prefix_other_readings) and, when it has some, the log decides, from
 * what it has shown of the same process (see disambiguate()):
 *   - what PostgreSQL can print: a name (%u %d) of at most 63 bytes
 *     (NAMEDATALEN - 1), an application_name of at most 4 times that (its
 *     non-ASCII bytes escaped), the session values all empty (no client)
 *     or none, %l rising on every line of a process;
 *   - the session values (%a %u %d %r %h %b) of the process's last line
 *     read: the reading that has them;
 *   - else the line is held, with the lines of the process after it, until
 *     one reads one way (its values decide) or two held lines with different
 *     messages share a reading's session values (the longest such: a
 *     session's application_name is the same on all its lines, its messages
 *     are not).
 * A held line the log never decides is reported as ambiguous and read as
 * no record, with its continuation lines: after FLUSH_AFTER quiet lines,
 * when its process's evidence is evicted, or at the end of the file.
 * Before all these, what the log proves of %a itself: a logged SET
 * application_name statement of the process (reading_by_set). A client
 * that sets application_name to "x", then to "x ERROR:  y" for a few
 * lines, then back to "x", makes those lines look like ones of "x" with an
 * error message; the lines around say "x", and only the SET, when the
 * server logs statements ("statement: SET ..." before it runs, "duration:
 * N ms  statement: SET ..." after it ran, under the new name), tells.
 * With no statement logged, a report's own lines prove it: PostgreSQL
 * writes an ERROR's STATEMENT (DETAIL, ...) line right after it with the
 * same prefix text, so a line that reads as such a field, after its
 * process's line with that very prefix text and a report's severity, makes
 * the two one report read so (reading_by_pair). What this does not prove:
 * a switched line that is a report alone (no field line after it, no
 * statement logged); the lines around then say "x". csvlog and jsonlog,
 * whose fields are quoted, have no such lines.
 */
#include <stddef.h>
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
#define FEED_HELD 2  /* disambiguate(): the line is held until the log decides */

/* Lines that read more than one way (see the top of the file). */
#define PROCS_MAX 64             /* processes whose evidence is kept */
#define HOLD_LINES 32            /* lines of one process held, at most */
#define HOLD_BYTES (256u * 1024u) /* and their bytes */
#define READINGS_MAX 8           /* readings of one line looked at */
#define NAME_MAX_BYTES 63        /* NAMEDATALEN - 1: PostgreSQL cuts names there */
#define APP_MAX_BYTES (4 * NAME_MAX_BYTES) /* application_name, "\\xNN" for a byte */
#define IDENT_MAX_BYTES (64u * 1024u) /* session values of a line (6 free-text values) */

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

/* An application_name as a statement sets it: NAMEDATALEN - 1 bytes,
 * with room for a log's escapes of its non-ASCII bytes (4 each). */
#define SET_APP_MAX 256

/* What the log has shown of one process, to read its ambiguous lines by. */
typedef struct proc_ev {
    int used;
    int pid;
    uint64_t last_line;  /* last line of it seen, for eviction */
    int64_t last_l;      /* %l of its last line read, -1 when unknown */
    ls_buf ident;        /* session values of its last line read (ident_put) */
    int has_ident;
    /* lines held until the log decides (prefixed lines and their TAB lines) */
    ls_buf held;
    size_t held_off[HOLD_LINES];
    size_t held_len[HOLD_LINES];
    uint64_t held_lineno[HOLD_LINES];
    int held_hpid[HOLD_LINES]; /* the syslog header's pid and time */
    ls_ts held_ts[HOLD_LINES];
    int nheld;
    /* The application_name its logged SET statement gave the session: what
     * the log proves of %a, whatever the lines around say (set_app_of). */
    char set_app[SET_APP_MAX];
    size_t set_app_len;
    int has_set_app;
    /* Its last record's first line when that line read several ways and
     * was read as a report's first line: a next line of the same report
     * (reading_by_pair) may decide it again. */
    ls_buf pair_line;
    uint64_t pair_lineno;
    ls_ts pair_ts;
    int has_pair;
} proc_ev;

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
    proc_ev procs[PROCS_MAX]; /* lines that read more than one way */
    proc_ev *hold_cur;        /* the process the last line was held for, or NULL */
    int procs_holding;        /* processes with lines held */
    ls_buf ident_tmp;         /* scratch for ident_put */
    ls_buf ident_proof;       /* the session values held lines are read with */
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

static void held_refuse_quiet(stderr_parser *sp, int all);

/* Flush records nobody has added to for FLUSH_AFTER lines. A pending
 * record's last line only grows, so no slot need be looked at until the
 * line number passes the lowest of them by FLUSH_AFTER (or goes back, as
 * when held lines are replayed). */
static int flush_quiet(stderr_parser *sp)
{
    uint64_t floor = sp->lineno;
    int i, rc;

    if (sp->procs_holding > 0)
        held_refuse_quiet(sp, 0);
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

/* ---- lines that read more than one way (see the top of the file) ---- */

/* The session values of a reading: the same for all lines of a session
 * (but %a, which SET application_name changes). */
static const int session_fields[] = {LS_PF_APP, LS_PF_USER, LS_PF_DB,
                                     LS_PF_REMOTE, LS_PF_HOST, LS_PF_BTYPE};
#define NSESSION_FIELDS (sizeof(session_fields) / sizeof(session_fields[0]))

/* Write m's session values into b (reset first), each as a presence byte,
 * its length and its bytes, so that two readings compare with memcmp. */
static void ident_put(ls_buf *b, const ls_prefix_match *m)
{
    size_t i;

    ls_buf_reset(b);
    for (i = 0; i < NSESSION_FIELDS; i++) {
        ls_slice f = m->f[session_fields[i]];
        char head[1 + sizeof(f.len)];

        head[0] = f.ptr ? 1 : 0;
        memcpy(head + 1, &f.len, sizeof(f.len));
        ls_buf_add(b, head, sizeof(head));
        if (f.ptr && f.len)
            ls_buf_add(b, f.ptr, f.len);
    }
}

static int ident_equal(const ls_buf *a, const ls_buf *b)
{
    return !ls_buf_failed(a) && !ls_buf_failed(b) && a->len == b->len &&
           (a->len == 0 || memcmp(a->ptr, b->ptr, a->len) == 0);
}

/*
 * How many of m's session values equal those in `ident` (written by
 * ident_put): the values a process's lines share, however many of them
 * changed since (the names at authentication, %a at SET application_name).
 */
static int ident_score(const ls_buf *ident, const ls_prefix_match *m)
{
    const char *b = ident->ptr, *end = ident->ptr + ident->len;
    int score = 0;
    size_t i, len;

    for (i = 0; i < NSESSION_FIELDS && b && end - b >= (ptrdiff_t)(1 + sizeof(len)); i++) {
        ls_slice f = m->f[session_fields[i]];
        int present = *b++;

        memcpy(&len, b, sizeof(len));
        b += sizeof(len);
        if ((size_t)(end - b) < (present ? len : 0))
            break;
        score += present ? f.ptr && f.len == len && memcmp(f.ptr, b, len) == 0 : !f.ptr;
        if (present)
            b += len;
    }
    return score;
}

/* Bytes of m's session values: the longer reading swallowed more. */
static size_t ident_bytes(const ls_prefix_match *m)
{
    size_t i, n = 0;

    for (i = 0; i < NSESSION_FIELDS; i++)
        n += m->f[session_fields[i]].len;
    return n;
}

/*
 * Could PostgreSQL have printed reading m for a line of process ev (NULL:
 * nothing known of it)? Its names fit NAMEDATALEN, its session values are
 * all empty (a process without a client) or all set (a session prints
 * "[unknown]" for a value it does not have yet), none before a %q whose
 * part it lacks (ls_prefix_session_possible), and its %l rises.
 */
static int reading_possible(const ls_prefix *p, const proc_ev *ev, const ls_prefix_match *m)
{
    int empty = 0, set = 0;
    size_t i;

    if (!ls_prefix_session_possible(p, m) || m->f[LS_PF_USER].len > NAME_MAX_BYTES || m->f[LS_PF_DB].len > NAME_MAX_BYTES ||
        m->f[LS_PF_APP].len > APP_MAX_BYTES)
        return 0;
    for (i = 0; i < 3; i++) /* %a %u %d */
        if (m->f[session_fields[i]].ptr) {
            empty += m->f[session_fields[i]].len == 0;
            set += m->f[session_fields[i]].len > 0;
        }
    if (empty && set)
        return 0;
    if (ev && ev->last_l >= 0 && m->f[LS_PF_LINE].ptr && slice_uint(m->f[LS_PF_LINE]) >= 0 &&
        slice_uint(m->f[LS_PF_LINE]) <= ev->last_l)
        return 0;
    return 1;
}

static void bad_line(stderr_parser *sp, uint64_t lineno, const char *why, const char *line,
                     size_t len)
{
    if (sp->sink.bad)
        sp->sink.bad(sp->sink.ctx, sp->file, lineno, why, line, len);
}

/* Report ev's held lines as ambiguous and drop them. */
static void held_refuse(stderr_parser *sp, proc_ev *ev)
{
    const char *base = ev->held.ptr ? ev->held.ptr : "";
    int i;

    for (i = 0; i < ev->nheld; i++) {
        const char *l = base + ev->held_off[i];
        size_t n = ev->held_len[i];

        bad_line(sp, ev->held_lineno[i],
                 n > 0 && l[0] == '\t'
                     ? "continuation of an ambiguous line"
                     : "ambiguous line: the log_line_prefix matches it with the severity in more "
                       "than one place (an application_name, user or database name that holds "
                       "text like a prefix and a severity) and no other line of its process "
                       "tells which; not read",
                 l, n);
    }
    if (ev->nheld)
        sp->procs_holding--;
    ev->nheld = 0;
    ls_buf_reset(&ev->held);
    if (sp->hold_cur == ev)
        sp->hold_cur = NULL;
}

/* The slot a process's evidence is looked for first (then the next ones). */
static int proc_slot(int pid)
{
    return (int)((unsigned)pid % PROCS_MAX);
}

static proc_ev *proc_find(stderr_parser *sp, int pid)
{
    int i, h = proc_slot(pid);

    for (i = 0; i < PROCS_MAX; i++) {
        proc_ev *ev = &sp->procs[(h + i) % PROCS_MAX];
        if (ev->used && ev->pid == pid)
            return ev;
    }
    return NULL;
}

/* The evidence of process pid, made (from a free or the stalest entry) when new. */
static proc_ev *proc_get(stderr_parser *sp, int pid, uint64_t lineno)
{
    proc_ev *ev = proc_find(sp, pid);
    int i;

    if (!ev) {
        int h = proc_slot(pid);
        ev = &sp->procs[h];
        for (i = 0; i < PROCS_MAX && ev->used; i++) {
            proc_ev *e = &sp->procs[(h + i) % PROCS_MAX];
            if (!e->used || e->last_line < ev->last_line)
                ev = e;
        }
        held_refuse(sp, ev);
        if (!ev->held.max) { /* first use of the entry */
            ls_buf_init(&ev->ident, IDENT_MAX_BYTES);
            ls_buf_init(&ev->held, HOLD_BYTES);
            ls_buf_init(&ev->pair_line, HOLD_BYTES);
        }
        ls_buf_reset(&ev->ident);
        ev->used = 1;
        ev->pid = pid;
        ev->has_ident = 0;
        ev->has_set_app = 0;
        ev->has_pair = 0;
        ev->last_l = -1;
    }
    ev->last_line = lineno;
    return ev;
}

/* Length of a case-insensitive `word` at s[0..n), else 0. */
static size_t word_at(const char *s, size_t n, const char *word)
{
    size_t i, w = strlen(word);
    if (n < w)
        return 0;
    for (i = 0; i < w; i++)
        if ((s[i] >= 'A' && s[i] <= 'Z' ? s[i] | 0x20 : s[i]) != word[i])
            return 0;
    return w;
}

static size_t spaces_at(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n'))
        i++;
    return i;
}

/*
 * Does the statement at s[0..n) set the session's application_name, as a
 * whole statement: "SET [SESSION] application_name {= | TO} 'v'" (or v
 * unquoted, case-folded), an optional ';' after it? 1 with v in out[0..*len),
 * -1 when it sets it to what the log cannot tell (SET LOCAL, DEFAULT,
 * RESET), 0 when it is another statement.
 */
static int set_statement(const char *s, size_t n, char *out, size_t *len)
{
    size_t i = 0, k, o = 0;

    if (!(k = word_at(s, n, "reset")) && !(k = word_at(s, n, "set")))
        return 0;
    if (k == 5) /* RESET application_name */
        return (i = k + spaces_at(s + k, n - k)) > k &&
                       word_at(s + i, n - i, "application_name")
                   ? -1
                   : 0;
    i = k + spaces_at(s + k, n - k);
    if (i == k)
        return 0;
    if ((k = word_at(s + i, n - i, "local")) && spaces_at(s + i + k, n - i - k))
        return word_at(s + i + k + spaces_at(s + i + k, n - i - k),
                       n - i - k - spaces_at(s + i + k, n - i - k), "application_name")
                   ? -1
                   : 0;
    if ((k = word_at(s + i, n - i, "session")) && spaces_at(s + i + k, n - i - k))
        i += k + spaces_at(s + i + k, n - i - k);
    if (!(k = word_at(s + i, n - i, "application_name")))
        return 0;
    i += k;
    i += spaces_at(s + i, n - i);
    if (i < n && s[i] == '=')
        i++;
    else if ((k = word_at(s + i, n - i, "to")) != 0 && i + k < n && s[i + k] != '_')
        i += k;
    else
        return 0;
    i += spaces_at(s + i, n - i);
    if (i < n && s[i] == '\'') {
        for (i++; i < n; i++) {
            if (s[i] == '\'' && i + 1 < n && s[i + 1] == '\'')
                i++;
            else if (s[i] == '\'')
                break;
            if (o == SET_APP_MAX)
                return -1;
            out[o++] = s[i];
        }
        if (i == n)
            return 0; /* no closing quote: cut, or not this statement */
        i++;
    } else {
        for (; i < n && (((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z') ||
                         (s[i] >= '0' && s[i] <= '9') || s[i] == '_');
             i++) {
            if (o == SET_APP_MAX)
                return -1;
            out[o++] = (char)((s[i] >= 'A' && s[i] <= 'Z') ? s[i] | 0x20 : s[i]);
        }
        if (o == 0 || word_at(out, o, "default") == o)
            return o ? -1 : 0;
    }
    i += spaces_at(s + i, n - i);
    if (i < n && s[i] == ';')
        i++;
    i += spaces_at(s + i, n - i);
    if (i != n)
        return 0;
    *len = o;
    return 1;
}

/*
 * The application_name a record's message says its statement set: the
 * message ends with a whole SET application_name statement after a ": "
 * (statement:, execute <name>:, duration: N ms  statement:, in any
 * language). Returns 1 when it was logged after it ran (a "N ms" duration
 * before it: the line's own %a has the new value), 2 when before (the
 * next lines have it), -1 when the value is not known (SET LOCAL, RESET),
 * 0 when the message sets nothing; the value in out[0..*len).
 */
static int set_app_of(const char *msg, size_t n, char *out, size_t *len)
{
    size_t i;
    int r;

    for (i = 0; i + 1 < n; i++) {
        if (msg[i] != ':' || msg[i + 1] != ' ')
            continue;
        r = set_statement(msg + i + 2 + spaces_at(msg + i + 2, n - i - 2),
                          n - i - 2 - spaces_at(msg + i + 2, n - i - 2), out, len);
        if (r == 0)
            continue;
        if (r < 0)
            return -1;
        {
            size_t j;
            for (j = 1; j + 3 < i; j++)
                if (memcmp(msg + j, " ms ", 4) == 0 && msg[j - 1] >= '0' && msg[j - 1] <= '9')
                    return 1;
        }
        return 2;
    }
    return 0;
}

/* Whether m's %a is app[0..len). */
static int app_is(const ls_prefix_match *m, const char *app, size_t len)
{
    ls_slice a = m->f[LS_PF_APP];
    return a.ptr && a.len == len && memcmp(a.ptr, app, len) == 0;
}

/*
 * What the log proves of %a among the possible readings r[0..n) of
 * `line`: the value the process's logged SET application_name gave it, or
 * a reading whose own message is a SET statement logged after it ran
 * (duration: ... statement: SET application_name = 'v') with v as its %a.
 * Neighbours prove nothing here: a client can set "x ERROR:  y" for one
 * line between lines of "x". The reading, or -1 when nothing proves one.
 */
static int reading_by_set(const proc_ev *ev, const ls_prefix_match *r, int n,
                          const int *possible, const char *line, size_t len)
{
    char app[SET_APP_MAX] = "";
    size_t alen = 0;
    int i, k = -1, found = 0;

    if (ev && ev->has_set_app) {
        for (i = 0; i < n; i++)
            if (possible[i] && app_is(&r[i], ev->set_app, ev->set_app_len)) {
                k = i;
                found++;
            }
        if (found == 1)
            return k;
    }
    k = -1;
    found = 0;
    for (i = 0; i < n; i++)
        if (possible[i] &&
            set_app_of(line + r[i].msg_off, len - r[i].msg_off, app, &alen) == 1 &&
            app_is(&r[i], app, alen)) {
            k = i;
            found++;
        }
    return found == 1 ? k : -1;
}

/*
 * After a record of process `pid` was read as m: what its message proves
 * of the session's application_name from now on (set_app_of), and a
 * line before authentication (%a "[unknown]": a new session) forgets it.
 */
static int proc_note_set(stderr_parser *sp, const ls_prefix_match *m, const char *line,
                         size_t len, int pid, uint64_t lineno)
{
    static const char unknown[] = "[unknown]";
    char app[SET_APP_MAX] = "";
    size_t alen = 0;
    int r = set_app_of(line + m->msg_off, len - m->msg_off, app, &alen);
    proc_ev *ev;

    if (r == 0 && !app_is(m, unknown, sizeof(unknown) - 1))
        return 0;
    ev = proc_get(sp, pid, lineno);
    ev->has_set_app = r > 0;
    if (r > 0) {
        memcpy(ev->set_app, app, alen);
        ev->set_app_len = alen;
    }
    return 0;
}

/* Hold a line for ev; 0, or LS_ENOMEM. When full, what was held is refused first. */
static int hold_add(stderr_parser *sp, proc_ev *ev, const char *line, size_t len,
                    uint64_t lineno, int hdr_pid, ls_ts hdr_ts)
{
    if (ev->nheld == HOLD_LINES || ev->held.len + len + 1 > HOLD_BYTES)
        held_refuse(sp, ev);
    if (len + 1 > HOLD_BYTES) {
        bad_line(sp, lineno, "ambiguous line longer than the lines held for a decision; not read",
                 line, len);
        return 0;
    }
    if (ev->nheld == 0)
        sp->procs_holding++;
    ev->held_off[ev->nheld] = ev->held.len;
    ev->held_len[ev->nheld] = len;
    ev->held_lineno[ev->nheld] = lineno;
    ev->held_hpid[ev->nheld] = hdr_pid;
    ev->held_ts[ev->nheld++] = hdr_ts;
    ls_buf_addz(&ev->held, line, len);
    return ls_buf_failed(&ev->held) == LS_ENOMEM ? LS_ENOMEM : 0;
}

/* The readings of a line the prefix p matched as *m: r[0] = *m, then the
 * others; how many, or a negative code. */
static int readings_of(ls_prefix *p, const char *line, size_t len, const ls_prefix_match *m,
                       ls_prefix_match *r)
{
    int n;

    r[0] = *m;
    if ((n = ls_prefix_other_readings(p, line, len, m, r + 1, READINGS_MAX - 1)) < 0)
        return n;
    return n + 1;
}

/* The reading of r[0..n) whose session values are `ident` (not sp->ident_tmp), or -1. */
static int reading_with_ident(stderr_parser *sp, const ls_prefix_match *r, int n,
                              const ls_buf *ident)
{
    int i;

    for (i = 0; i < n; i++) {
        ident_put(&sp->ident_tmp, &r[i]);
        if (ident_equal(&sp->ident_tmp, ident))
            return i;
    }
    return -1;
}

static int read_line(stderr_parser *sp, const ls_prefix_match *m, const char *line, size_t len,
                     uint64_t lineno, int pid, ls_ts hdr_ts);

/* The line's prefix and pid: the prefix in force, else the one before it. */
static int match_any(stderr_parser *sp, const char *line, size_t len, ls_prefix_match *m,
                     ls_prefix **used)
{
    int rc;

    *used = sp->prefix;
    rc = ls_prefix_match_line(sp->prefix, line, len, m);
    /* Around a reload, processes take the new prefix one by one. */
    if (rc == 0 && sp->prev) {
        *used = sp->prev;
        rc = ls_prefix_match_line(sp->prev, line, len, m);
    }
    return rc;
}

static int pid_of(const ls_prefix_match *m, int hdr_pid)
{
    int64_t v = slice_uint(m->f[LS_PF_PID]);
    return v > 0 && v <= INT32_MAX ? (int)v : hdr_pid;
}

/* Held lines taken out of their process's evidence to be read. */
typedef struct held_lines {
    ls_buf text;
    size_t off[HOLD_LINES];
    size_t len[HOLD_LINES];
    uint64_t lineno[HOLD_LINES];
    int hpid[HOLD_LINES];
    ls_ts ts[HOLD_LINES];
    int n;
} held_lines;

/*
 * Read ev's held lines, each with its reading whose session values are
 * `ident` (a line that has none is refused), their TAB lines with them.
 * The lines are taken out first: reading them notes what they show in the
 * evidence, which may then go to another process.
 */
static int held_release(stderr_parser *sp, proc_ev *ev, const ls_buf *ident)
{
    ls_prefix_match r[READINGS_MAX];
    held_lines *h;
    int i, n, k, rc = 0, read = 0;

    if (ev->nheld == 0)
        return 0;
    if (!(h = ls_malloc(sizeof(*h))))
        return LS_ENOMEM;
    h->text = ev->held;
    h->n = ev->nheld;
    memcpy(h->off, ev->held_off, sizeof(h->off));
    memcpy(h->len, ev->held_len, sizeof(h->len));
    memcpy(h->lineno, ev->held_lineno, sizeof(h->lineno));
    memcpy(h->hpid, ev->held_hpid, sizeof(h->hpid));
    memcpy(h->ts, ev->held_ts, sizeof(h->ts));
    ls_buf_init(&ev->held, HOLD_BYTES);
    ev->nheld = 0;
    sp->procs_holding--;
    if (sp->hold_cur == ev)
        sp->hold_cur = NULL;
    for (i = 0; i < h->n && rc == 0; i++) {
        const char *l = h->text.ptr + h->off[i];
        size_t len = h->len[i];
        ls_prefix *p;

        if (len > 0 && l[0] == '\t') {
            if (read && sp->current) {
                pending_continue(sp->current, l + 1, len - 1);
                sp->current->last_line = h->lineno[i];
            } else {
                bad_line(sp, h->lineno[i], "continuation of an ambiguous line", l, len);
            }
            continue;
        }
        read = 0;
        if ((rc = match_any(sp, l, len, &r[0], &p)) <= 0)
            continue; /* 0: the prefix changed since; < 0 ends the loop */
        if ((n = readings_of(p, l, len, &r[0], r)) < 0) {
            rc = n;
            break;
        }
        if ((k = reading_with_ident(sp, r, n, ident)) < 0) {
            rc = 0;
            bad_line(sp, h->lineno[i],
                     "ambiguous line: none of its readings has the session values of the "
                     "lines of its process after it; not read",
                     l, len);
            continue;
        }
        rc = read_line(sp, &r[k], l, len, h->lineno[i], pid_of(&r[k], h->hpid[i]), h->ts[i]);
        read = rc == 0;
    }
    ls_buf_free(&h->text);
    free(h);
    return rc;
}

/*
 * Does every prefixed line held for ev have a reading whose session values
 * are `ident` and whose message differs from `msg` (msglen bytes)? Two
 * lines of a session that share a value over different messages are what
 * a session's lines are; the same text twice proves nothing.
 */
static int held_share(stderr_parser *sp, proc_ev *ev, const ls_buf *ident, const char *msg,
                      size_t msglen)
{
    ls_prefix_match r[READINGS_MAX];
    ls_buf mine = LS_BUF_INIT(0);
    int i, n, k, ok = 1;

    ls_buf_add(&mine, ident->ptr, ident->len); /* ident is sp->ident_tmp, reused below */
    for (i = 0; i < ev->nheld && ok; i++) {
        const char *l = ev->held.ptr + ev->held_off[i];
        size_t len = ev->held_len[i];
        ls_prefix *p;

        if (len > 0 && l[0] == '\t')
            continue;
        ok = 0;
        if (match_any(sp, l, len, &r[0], &p) != 1 || (n = readings_of(p, l, len, &r[0], r)) < 0)
            break;
        for (k = 0; k < n && !ok; k++) {
            ident_put(&sp->ident_tmp, &r[k]);
            ok = ident_equal(&sp->ident_tmp, &mine) &&
                 !(len - r[k].msg_off == msglen && memcmp(l + r[k].msg_off, msg, msglen) == 0);
        }
    }
    ok = ok && !ls_buf_failed(&mine);
    ls_buf_free(&mine);
    return ok;
}

/*
 * Of readings r[0..n) of a line of process ev (NULL: nothing known), the one
 * the log supports without held lines, or -1; possible[] is left marking
 * the readings still in the running.
 */
static int reading_by_evidence(const ls_prefix *p, const proc_ev *ev, const ls_prefix_match *r,
                               int n, int *possible)
{
    int i, k = -1, npossible = 0, best = -1, score;

    for (i = 0; i < n; i++)
        npossible += possible[i] = reading_possible(p, ev, &r[i]);
    if (npossible == 0) /* a reused pid, or a server built with another NAMEDATALEN */
        for (i = 0; i < n; i++)
            npossible += possible[i] = 1;
    if (ev && ev->has_ident) {
        /* the reading most like the process's last line read, if one is */
        for (i = 0; i < n; i++) {
            if (!possible[i])
                continue;
            score = ident_score(&ev->ident, &r[i]);
            if (score > best) {
                best = score;
                k = i;
            } else if (score == best) {
                k = -1;
            }
        }
        if (k >= 0)
            return k;
        for (i = 0, npossible = 0; i < n; i++) /* a tie: the best stay in */
            npossible += possible[i] = possible[i] && ident_score(&ev->ident, &r[i]) == best;
    }
    if (npossible == 1)
        for (k = 0; !possible[k]; k++)
            ;
    return k;
}

/* Of the possible readings r[0..n) of `line`, the longest whose session
 * values all lines held for ev share (held_share), or -1. */
static int reading_by_held(stderr_parser *sp, proc_ev *ev, const ls_prefix_match *r, int n,
                           const int *possible, const char *line, size_t len)
{
    size_t best = 0;
    int i, k = -1;

    for (i = 0; i < n; i++) {
        if (!possible[i] || (k >= 0 && ident_bytes(&r[i]) <= best))
            continue;
        ident_put(&sp->ident_tmp, &r[i]);
        if (held_share(sp, ev, &sp->ident_tmp, line + r[i].msg_off, len - r[i].msg_off)) {
            k = i;
            best = ident_bytes(&r[i]);
        }
    }
    return k;
}

/* Whether a reading's severity is a field of the report before it
 * (DETAIL, STATEMENT, ...), not a report of its own. */
static int secondary_reading(const ls_prefix_match *m)
{
    size_t i;
    for (i = 0; i < sizeof(secondary_fields) / sizeof(secondary_fields[0]); i++)
        if (slice_is(m->f[LS_PF_SEVERITY], secondary_fields[i].word, secondary_fields[i].len))
            return 1;
    return 0;
}

/*
 * What the log proves of two lines together. PostgreSQL writes a
 * report's lines (ERROR, then its DETAIL, STATEMENT, ...) one after the
 * other with the same prefix, to the byte (one %m for the report). When
 * the process's open record has only its first line, that line read
 * several ways (ev->pair_line), and exactly one reading r[i] of this line
 * is a secondary field whose prefix text before the severity is a
 * reading of that first line's, with a report's severity, the two lines
 * are one report read so, whatever the lines around say: a client may set
 * application_name to "x ERROR:  y" for one statement between lines of
 * "x", and then only its report's lines tell. On such a pair the first
 * line's record is read again with its reading (*first) and i returned;
 * else -1.
 */
static int reading_by_pair(stderr_parser *sp, ls_prefix *p, proc_ev *ev, int pid,
                           const ls_prefix_match *r, int n, const int *possible,
                           const char *line, ls_prefix_match *first)
{
    ls_prefix_match ra[READINGS_MAX];
    pending *open = slot_for_pid(sp, pid);
    const char *a;
    size_t alen;
    int i, j, na, k = -1, found = 0;

    if (!ev || !ev->has_pair || !open || open->line != ev->pair_lineno ||
        open->last_line != open->line)
        return -1;
    a = ls_buf_str(&ev->pair_line);
    alen = ev->pair_line.len;
    if (ls_prefix_match_line(p, a, alen, &ra[0]) != 1 ||
        (na = readings_of(p, a, alen, &ra[0], ra)) < 0)
        return -1;
    for (i = 0; i < n; i++) {
        if (!possible[i] || !secondary_reading(&r[i]))
            continue;
        for (j = 0; j < na; j++)
            if (!secondary_reading(&ra[j]) && ra[j].sev_off == r[i].sev_off &&
                memcmp(a, line, r[i].sev_off) == 0) {
                k = i;
                *first = ra[j];
                found++;
            }
    }
    return found == 1 ? k : -1;
}

/* Read the first line of the process's open record again as *first (see
 * reading_by_pair): its record so far is dropped, not sent. */
static int reread_first(stderr_parser *sp, proc_ev *ev, int pid, const ls_prefix_match *first)
{
    pending *open = slot_for_pid(sp, pid);
    const char *a = ls_buf_str(&ev->pair_line);
    uint64_t lineno = sp->lineno;
    int rc;

    if (open) {
        open->used = 0;
        if (sp->current == open)
            sp->current = NULL;
    }
    ev->has_pair = 0;
    rc = read_line(sp, first, a, ev->pair_line.len, ev->pair_lineno, pid, ev->pair_ts);
    sp->lineno = lineno;
    return rc;
}

/* Keep a line that read several ways and was read as a report's first
 * line, for reading_by_pair. */
static int pair_keep(stderr_parser *sp, const ls_prefix_match *m, const char *line, size_t len,
                     uint64_t lineno, int pid, int hdr_pid, ls_ts hdr_ts)
{
    proc_ev *ev;

    if (secondary_reading(m) || len + 1 > HOLD_BYTES)
        return 0;
    ev = proc_get(sp, pid, lineno);
    ls_buf_reset(&ev->pair_line);
    ls_buf_add(&ev->pair_line, line, len);
    ev->pair_lineno = lineno;
    ev->pair_ts = hdr_ts;
    ev->has_pair = 1;
    return ls_buf_failed(&ev->pair_line) == LS_ENOMEM ? LS_ENOMEM : 0;
}

/*
 * Decide how to read a matched line of a prefix with free text: *m becomes
 * the reading the log supports (0), or the line is held (FEED_HELD), or a
 * negative code. See the top of the file.
 */
static int disambiguate(stderr_parser *sp, ls_prefix *p, ls_prefix_match *m, const char *line,
                        size_t len, uint64_t lineno, int pid, int hdr_pid, ls_ts hdr_ts)
{
    ls_prefix_match r[READINGS_MAX];
    int possible[READINGS_MAX], n, k, rc;
    proc_ev *ev;

    if ((n = ls_prefix_other_readings(p, line, len, m, r + 1, READINGS_MAX - 1)) < 0)
        return n;
    if (n == 0 && sp->procs_holding == 0)
        return 0; /* nearly every line */
    ev = proc_find(sp, pid);
    if (n > 0) {
        r[0] = *m;
        n++;
        k = reading_by_evidence(p, ev, r, n, possible);
        {
            int proven = reading_by_set(ev, r, n, possible, line, len);
            ls_prefix_match first;
            if (proven >= 0) {
                k = proven;
            } else if ((proven = reading_by_pair(sp, p, ev, pid, r, n, possible, line,
                                                 &first)) >= 0) {
                if ((rc = reread_first(sp, ev, pid, &first)) != 0)
                    return rc;
                k = proven;
            }
        }
        if (k < 0 && ev && ev->nheld > 0)
            k = reading_by_held(sp, ev, r, n, possible, line, len);
        if (k < 0) {
            ev = proc_get(sp, pid, lineno);
            if ((rc = hold_add(sp, ev, line, len, lineno, hdr_pid, hdr_ts)) != 0)
                return rc;
            sp->hold_cur = ev->nheld ? ev : NULL;
            sp->current = NULL;
            return FEED_HELD;
        }
        *m = r[k];
        if ((rc = pair_keep(sp, m, line, len, lineno, pid, hdr_pid, hdr_ts)) != 0)
            return rc;
        ev = proc_find(sp, pid);
    }
    if (ev && ev->nheld > 0) {
        ident_put(&sp->ident_proof, m);
        if (ls_buf_failed(&sp->ident_proof))
            return LS_ENOMEM;
        return held_release(sp, ev, &sp->ident_proof);
    }
    return 0;
}

/* Remember what line m showed of process pid. */
static int proc_note(stderr_parser *sp, const ls_prefix_match *m, int pid, uint64_t lineno)
{
    proc_ev *ev = proc_get(sp, pid, lineno);
    int64_t l = slice_uint(m->f[LS_PF_LINE]);

    /* mostly the values of the process's line before */
    if (!ev->has_ident || ident_score(&ev->ident, m) != (int)NSESSION_FIELDS)
        ident_put(&ev->ident, m);
    ev->has_ident = 1;
    if (l >= 0)
        ev->last_l = l;
    return ls_buf_failed(&ev->ident) == LS_ENOMEM ? LS_ENOMEM : 0;
}

/* Refuse the held lines of processes quiet for FLUSH_AFTER lines (all: `all`). */
static void held_refuse_quiet(stderr_parser *sp, int all)
{
    int i;

    for (i = 0; i < PROCS_MAX && sp->procs_holding > 0; i++) {
        proc_ev *ev = &sp->procs[i];
        if (ev->used && ev->nheld > 0 &&
            (all || ev->held_lineno[ev->nheld - 1] + FLUSH_AFTER < sp->lineno))
            held_refuse(sp, ev);
    }
}

/* A matched line, read as *m: a secondary field of its process's record, or a new record. */
static int read_line(stderr_parser *sp, const ls_prefix_match *m, const char *line, size_t len,
                     uint64_t lineno, int pid, ls_ts hdr_ts)
{
    int rc, i;

    if (ls_prefix_free_text(sp->prefix) && (rc = proc_note(sp, m, pid, lineno)) != 0)
        return rc;
    for (i = 0; i < (int)(sizeof(secondary_fields) / sizeof(secondary_fields[0])); i++) {
        if (slice_is(m->f[LS_PF_SEVERITY], secondary_fields[i].word, secondary_fields[i].len)) {
            pending *p = slot_for_pid(sp, pid);
            if (!p) {
                sp->current = NULL;
                bad_line(sp, lineno, LS_BAD_ORPHAN_FIELD, line, len);
                return 0;
            }
            pending_set(p, secondary_fields[i].field, line + m->msg_off, len - m->msg_off);
            p->last_line = lineno;
            sp->current = p;
            return 0;
        }
    }
    if (ls_prefix_free_text(sp->prefix) &&
        (rc = proc_note_set(sp, m, line, len, pid, lineno)) != 0)
        return rc;
    if ((rc = start_record(sp, m, line, len, lineno, pid, hdr_ts)) != 0)
        return rc;
    return flush_quiet(sp);
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
    ls_prefix *used;
    int rc, pid, i;

    sp->lineno = lineno;
    if (len > 0 && line[0] == '\t') {
        if (sp->hold_cur) {
            return hold_add(sp, sp->hold_cur, line, len, lineno, hdr_pid, hdr_ts);
        } else if (sp->current) {
            pending_continue(sp->current, line + 1, len - 1);
            sp->current->last_line = lineno;
        } else {
            bad_line(sp, lineno, LS_BAD_ORPHAN_CONTINUATION, line, len);
        }
        return 0;
    }
    if (len == 0 || (len == 1 && line[0] == '\r'))
        return 0;

    if ((rc = match_any(sp, line, len, &m, &used)) < 0)
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
        bad_line(sp, lineno, "line does not start with the log_line_prefix", line, len);
        return flush_quiet(sp);
    }
    sp->hold_cur = NULL;
    pid = pid_of(&m, hdr_pid);
    if (ls_prefix_free_text(used)) {
        rc = disambiguate(sp, used, &m, line, len, lineno, pid, hdr_pid, hdr_ts);
        if (rc == FEED_HELD)
            return flush_quiet(sp);
        if (rc != 0)
            return rc;
        pid = pid_of(&m, hdr_pid); /* the reading chosen may put %p elsewhere */
    }
    return read_line(sp, &m, line, len, lineno, pid, hdr_ts);
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
    held_refuse_quiet(sp, 1); /* the lines of another file decide nothing */
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
    held_refuse_quiet(sp, 1);
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
    for (i = 0; i < PROCS_MAX; i++) {
        ls_buf_free(&sp->procs[i].ident);
        ls_buf_free(&sp->procs[i].held);
        ls_buf_free(&sp->procs[i].pair_line);
    }
    ls_buf_free(&sp->ident_tmp);
    ls_buf_free(&sp->ident_proof);
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
    static const char *const marks[] = {"LOG:  ",     "ERROR:  ",    "FATAL:  ",   "WARNING:  ",
                                        "NOTICE:  ",  "INFO:  ",     "PANIC:  ",   "DETAIL:  ",
                                        "STATEMENT:  ", "HINT:  ",   "CONTEXT:  ", "QUERY:  ",
                                        "LOCATION:  ", "DEBUG"};
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
