/*
 * ls_outfile.h — replacing a file whole: a store that analyze builds, a
 * report.
 *
 * The new content goes to a temporary file beside the file it replaces,
 * "NAME.lockspan-PID-RANDOM.tmp", created with O_EXCL under a name nobody
 * can guess; once complete it is flushed to disk (fsync), given the mode,
 * owner and group of the file it replaces (the owner and group where the
 * system allows), renamed over it, and the directory is flushed too, so
 * that a crash or a power loss leaves either the old file or the new one.
 * A new file follows the umask. A name that is a symbolic link is written
 * through: its target is replaced and the link stays. An existing file that
 * is not a regular one (/dev/stdout, a FIFO, /dev/full) is written in place.
 */
#ifndef LS_OUTFILE_H
#define LS_OUTFILE_H

#include <stdio.h>
#include <sys/types.h>

#define LS_OUTFILE_PATH_MAX 4096

typedef struct ls_outfile {
    char target[LS_OUTFILE_PATH_MAX]; /* the file replaced (a symlink's target) */
    char tmp[LS_OUTFILE_PATH_MAX + 64]; /* the temporary file's name, or "" */
    int fd;                          /* -1 once closed */
    FILE *stream;                    /* ls_outfile_stream()'s, or NULL; owns fd */
    int in_place;                    /* `target` written directly (stdout, not a file) */
    int unnamed;                     /* O_TMPFILE: no name until ls_outfile_commit() */
    int had_target;                  /* target existed: its mode, uid, gid are kept */
    mode_t mode;
    uid_t uid;
    gid_t gid;
} ls_outfile;

/*
 * Begin replacing `path` ("-" is standard output, written in place). With
 * `named` (another program must open it: SQLite) the temporary file exists,
 * empty, named o->tmp; without, where the system allows, it has no name
 * (O_TMPFILE) until ls_outfile_commit() links it, so that a killed run
 * leaves nothing. On failure errbuf says why, naming the file and the
 * system's reason, nothing is left behind and the return is negative.
 * Temporary files of ours that a killed process left beside the target are
 * removed first.
 */
int ls_outfile_open(ls_outfile *o, const char *path, int named, char *errbuf, size_t errlen);

/* The file as a stdio stream (owned by `o`), or NULL when out of memory. */
FILE *ls_outfile_stream(ls_outfile *o);

/*
 * Make the new content the file: flush, fsync, close, keep the old file's
 * mode, owner and group, rename over it, fsync the directory. `write_errno`
 * is the errno of a write that failed before (0: none): then nothing is
 * renamed, errbuf gives that reason and the old file stays. Negative on
 * failure, with the temporary file removed.
 */
int ls_outfile_commit(ls_outfile *o, int write_errno, char *errbuf, size_t errlen);

/* Give up: close and remove the temporary file (the old file stays). */
void ls_outfile_abort(ls_outfile *o);

/*
 * Remove the temporary files of ours beside `path` (NAME.lockspan-PID-*.tmp
 * and SQLite's -journal, -wal, -shm beside them) whose process no longer
 * runs: what a killed run left.
 */
void ls_outfile_remove_stale(const char *path);

/* fsync the directory that holds `path`: 0, or negative with errno set. */
int ls_outfile_sync_dir(const char *path);

#endif
