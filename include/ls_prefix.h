/*
 * ls_prefix.h — log_line_prefix compiled into one PCRE2 pattern (and a
 * faster matcher for the lines that take the pattern's first path).
 *
 * The pattern matches a whole stderr line head: the prefix as configured,
 * then "SEVERITY:" (optionally followed by a verbose-mode SQLSTATE "XXXXX:")
 * and the two spaces PostgreSQL writes before the message. Matching yields
 * byte slices into the caller's line; nothing is copied.
 *
 * Escapes: %a %u %d %r %h %b %p %P %t %m %n %i %e %c %l %s %v %x %q %Q %%,
 * with optional padding (%-10u, %5p). Text after %q is optional, because
 * non-session processes (checkpointer, autovacuum launcher, ...) stop there.
 */
#ifndef LS_PREFIX_H
#define LS_PREFIX_H

#include <stddef.h>

typedef enum ls_prefix_field {
    LS_PF_APP = 0,     /* %a */
    LS_PF_USER,        /* %u */
    LS_PF_DB,          /* %d */
    LS_PF_REMOTE,      /* %r: host(port) */
    LS_PF_HOST,        /* %h */
    LS_PF_BTYPE,       /* %b */
    LS_PF_PID,         /* %p */
    LS_PF_LEADER,      /* %P */
    LS_PF_TIME,        /* %t: seconds */
    LS_PF_TIME_MS,     /* %m: milliseconds */
    LS_PF_EPOCH,       /* %n: epoch seconds.millis */
    LS_PF_TAG,         /* %i */
    LS_PF_SQLSTATE,    /* %e */
    LS_PF_SESSION,     /* %c */
    LS_PF_LINE,        /* %l */
    LS_PF_SESS_START,  /* %s */
    LS_PF_VXID,        /* %v */
    LS_PF_XID,         /* %x */
    LS_PF_QUERYID,     /* %Q */
    LS_PF_SEVERITY,    /* the severity word after the prefix (LOG, DETAIL, ...) */
    LS_PF_VSQLSTATE,   /* verbose-mode SQLSTATE after the severity */
    LS_PF__COUNT
} ls_prefix_field;

typedef struct ls_slice {
    const char *ptr; /* NULL when the field is not in the prefix or did not match */
    size_t len;
} ls_slice;

typedef struct ls_prefix_match {
    ls_slice f[LS_PF__COUNT]; /* padding spaces already trimmed */
    size_t msg_off;           /* offset of the message text in the line */
    size_t sev_off;           /* offset of the severity word in the line */
} ls_prefix_match;

typedef struct ls_prefix ls_prefix;

/*
 * Compile `spec` (the log_line_prefix value exactly as in postgresql.conf,
 * without the surrounding quotes). On failure returns LS_EFORMAT and writes
 * a message into errbuf. *out is owned by the caller: ls_prefix_free().
 */
int ls_prefix_compile(ls_prefix **out, const char *spec, char *errbuf, size_t errlen);
/*
 * The same, with the same matches, for a prefix matched on a few lines
 * (prefix inference's candidates): PCRE2 compiles the pattern only when a
 * line first needs it (most never do, see ls_prefix_pcre_only), and without
 * its JIT, whose machine code costs more to make than it saves there.
 */
int ls_prefix_compile_lazy(ls_prefix **out, const char *spec, char *errbuf, size_t errlen);
void ls_prefix_free(ls_prefix *p);

/*
 * Match every line with PCRE2, without the fast matcher that otherwise
 * walks each line through the prefix's steps, backtracking as PCRE2 would
 * (and hands PCRE2 only the lines of padded prefixes and those that would
 * take it too many steps): for tests that compare the two.
 */
void ls_prefix_pcre_only(ls_prefix *p);

/* The prefix as given to ls_prefix_compile (owned by p). */
const char *ls_prefix_spec(const ls_prefix *p);

/*
 * Match one line (len bytes, no trailing newline needed). Returns 1 and
 * fills *out when the line starts with the prefix and a severity, 0 when
 * it does not, negative on internal error. Not thread-safe per ls_prefix.
 */
int ls_prefix_match_line(ls_prefix *p, const char *line, size_t len, ls_prefix_match *out);

/*
 * The same, for a match whose severity starts at byte sev_off of the line
 * and nowhere else: 1 with *out filled, 0 when there is none.
 */
int ls_prefix_match_at(ls_prefix *p, const char *line, size_t len, size_t sev_off,
                       ls_prefix_match *out);

/* 1 when the prefix has a free-text escape (%a %u %d %r %h %b %i): only
 * then can a line read more than one way. */
int ls_prefix_free_text(const ls_prefix *p);

/*
 * Could PostgreSQL have printed reading m? It stops a prefix at %q for a
 * process without a client, and then prints nothing for %a %u %d %r %h
 * before it either: a reading without the part after %q but with such a
 * value set is not one it prints. 1 when possible (or when the prefix has
 * no %q with such values before it and fields after it), else 0.
 */
int ls_prefix_session_possible(const ls_prefix *p, const ls_prefix_match *m);

/*
 * The other readings of a line that ls_prefix_match_line() read as *m:
 * matches of the prefix with the severity elsewhere in the line, because a
 * free-text value (an application_name, a user or database name) may hold
 * text that looks like the rest of the prefix and a severity ("x ERROR:  y"),
 * and the message may too. PostgreSQL escapes neither, so the line alone
 * cannot say which reading it wrote. Fills alts[0..max) in the order of
 * their severity's place in the line (of the colons after it); returns how
 * many (0: the line reads one way), negative on internal error.
 */
int ls_prefix_other_readings(ls_prefix *p, const char *line, size_t len, const ls_prefix_match *m,
                             ls_prefix_match *alts, int max);

/*
 * Infer the log_line_prefix of a stderr log from its first lines
 * (parsers/prefix_infer.c). lines[i] is lens[i] bytes without '\n'; lines
 * without a severity ("LOG:  ", "ERROR:  ", ...) and continuation lines are
 * ignored. Returns 0 with the spec (as in postgresql.conf, NUL-terminated)
 * in out and how sure it is in why; LS_EFORMAT when no candidate matches
 * at least 95% of the lines with a severity (all of them when there are
 * fewer than 5), with the reason in why; LS_ENOMEM. Does not keep
 * pointers into lines. why may be NULL.
 */
int ls_prefix_infer(char *out,             /* OUT: inferred spec */
                    size_t outlen,
                    const char *const *lines,
                    const size_t *lens,
                    int n,
                    char *why,             /* OUT: reason, for the user */
                    size_t whylen);

/*
 * The same for lines whose time and pid come from an outer header (syslog):
 * a prefix of free text only ('user=%u,db=%d ') or an empty one may fit.
 */
int ls_prefix_infer_headed(char *out, size_t outlen, const char *const *lines,
                           const size_t *lens, int n, char *why, size_t whylen);

/*
 * A line as it can be shown in a message: at most 120 bytes, control and
 * non-ASCII bytes and quotes as \xNN, "..." when cut. out is NUL-terminated.
 */
void ls_prefix_sample_line(char *out, size_t outlen, const char *line, size_t len);

#endif
