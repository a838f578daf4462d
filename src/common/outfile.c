/*
 * outfile.c — replacing a file whole, keeping its owner's intent
 * (ls_outfile.h). Used for reports and for the store analyze builds.
 */
#define _GNU_SOURCE /* O_TMPFILE (Linux); elsewhere named temporary files only */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ls_common.h"
#include "ls_outfile.h"

#define TMP_MARK ".lockspan-"   /* NAME.lockspan-PID-RANDOM.tmp */
#define TMP_RANDOM_BYTES 8      /* 64 unpredictable bits in each name */
#define TMP_TRIES 16            /* names tried before giving up (EEXIST) */
#define NEW_FILE_MODE 0666      /* less the umask, as for any new file */
#define KEPT_FILE_CREATE_MODE 0600 /* until the old file's mode is given back */

/* errbuf = "PATH: WHAT" (then ": " and strerror(err) when err is not 0),
 * with PATH as messages show a name (ls_shown). */
static void path_error(char *errbuf, size_t errlen, const char *path, const char *what, int err)
{
    char shown[LS_SHOWN_MAX];
    snprintf(errbuf, errlen, "%s: %s%s%s", ls_shown(shown, sizeof(shown), path), what,
             err ? ": " : "", err ? strerror(err) : "");
}

/* 0 with `out` the file `path` names (through symbolic links), else
 * negative with errbuf saying why. A dangling link is refused: its target's
 * directory may not exist, and a new file would not be where the link
 * points if the link is relative to another directory. */
static int resolve_target(char *out, size_t n, const char *path, char *errbuf, size_t errlen)
{
    struct stat st;
    char *real;

    if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode)) {
        if (snprintf(out, n, "%s", path) >= (int)n) {
            path_error(errbuf, errlen, path, "name too long", 0);
            return LS_EUSAGE;
        }
        return 0;
    }
    if ((real = realpath(path, NULL)) == NULL) {
        path_error(errbuf, errlen, path, "a symbolic link whose target cannot be reached",
                   errno);
        return LS_EIO;
    }
    if (snprintf(out, n, "%s", real) >= (int)n) {
        path_error(errbuf, errlen, real, "name too long", 0);
        free(real);
        return LS_EUSAGE;
    }
    free(real);
    return 0;
}

/* A fresh random name beside o->target; 0, or -1 when the name does not fit. */
static int tmp_name(ls_outfile *o)
{
    unsigned char r[TMP_RANDOM_BYTES];
    char hex[2 * TMP_RANDOM_BYTES + 1];
    size_t i, got = 0;
    int len;

    while (got < sizeof(r)) {
        ssize_t k = getrandom(r + got, sizeof(r) - got, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        got += (size_t)k;
    }
    for (i = 0; i < sizeof(r); i++)
        snprintf(hex + 2 * i, 3, "%02x", r[i]);
    len = snprintf(o->tmp, sizeof(o->tmp), "%s" TMP_MARK "%ld-%s.tmp", o->target,
                   (long)getpid(), hex);
    return len < 0 || (size_t)len >= sizeof(o->tmp) ? -1 : 0;
}

/* The directory of o->target, for O_TMPFILE: "." when it has no slash. */
static void target_dir(const ls_outfile *o, char *out, size_t n)
{
    const char *slash = strrchr(o->target, '/');
    if (!slash)
        snprintf(out, n, ".");
    else
        snprintf(out, n, "%.*s", slash == o->target ? 1 : (int)(slash - o->target), o->target);
}

/* A file with no name yet in the target's directory (O_TMPFILE): a run
 * killed before ls_outfile_commit() leaves nothing. 0, or -1 where the
 * system or file system has no such files. */
static int open_unnamed(ls_outfile *o)
{
#ifdef O_TMPFILE
    char dir[LS_OUTFILE_PATH_MAX];
    target_dir(o, dir, sizeof(dir));
    o->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC,
                 o->had_target ? KEPT_FILE_CREATE_MODE : NEW_FILE_MODE);
    if (o->fd >= 0) {
        o->unnamed = 1;
        return 0;
    }
#else
    (void)o;
#endif
    return -1;
}

/* A temporary file beside the target under a fresh random name, O_EXCL. */
static int open_named(ls_outfile *o, const char *path, char *errbuf, size_t errlen)
{
    int i;
    for (i = 0; i < TMP_TRIES && o->fd < 0; i++) {
        if (tmp_name(o) != 0) {
            path_error(errbuf, errlen, path, "name too long for a temporary file beside it", 0);
            o->tmp[0] = '\0';
            return LS_EUSAGE;
        }
        o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                     o->had_target ? KEPT_FILE_CREATE_MODE : NEW_FILE_MODE);
        if (o->fd < 0 && errno != EEXIST) {
            path_error(errbuf, errlen, path, "cannot create a file in its directory", errno);
            o->tmp[0] = '\0';
            return LS_EIO;
        }
    }
    if (o->fd < 0) {
        path_error(errbuf, errlen, path, "cannot create a temporary file beside it", EEXIST);
        o->tmp[0] = '\0';
        return LS_EIO;
    }
    return 0;
}

int ls_outfile_open(ls_outfile *o, const char *path, int named, char *errbuf, size_t errlen)
{
    struct stat st;
    int rc;

    memset(o, 0, sizeof(*o));
    o->fd = -1;
    if (strcmp(path, "-") == 0) {
        snprintf(o->target, sizeof(o->target), "-");
        o->fd = STDOUT_FILENO;
        o->in_place = 1;
        return 0;
    }
    if ((rc = resolve_target(o->target, sizeof(o->target), path, errbuf, errlen)) != 0)
        return rc;
    if (stat(o->target, &st) == 0) {
        if (!S_ISREG(st.st_mode)) { /* /dev/stdout, a FIFO, /dev/full: in place */
            if ((o->fd = open(o->target, O_WRONLY | O_CLOEXEC)) < 0) {
                path_error(errbuf, errlen, path, "cannot open for writing", errno);
                return LS_EIO;
            }
            o->in_place = 1;
            return 0;
        }
        o->had_target = 1;
        o->mode = st.st_mode & 07777;
        o->uid = st.st_uid;
        o->gid = st.st_gid;
    }
    ls_outfile_remove_stale(o->target);
    if (!named && open_unnamed(o) == 0)
        return 0;
    return open_named(o, path, errbuf, errlen);
}

FILE *ls_outfile_stream(ls_outfile *o)
{
    if (!o->stream && o->fd >= 0) {
        if (o->fd == STDOUT_FILENO && o->in_place)
            o->stream = stdout;
        else
            o->stream = fdopen(o->fd, "w");
    }
    return o->stream;
}

/* Flush o's stream and, unless written in place, its data to disk: 0, or
 * the errno of the failure. */
static int flush_and_sync(ls_outfile *o)
{
    if (o->stream && (fflush(o->stream) != 0 || ferror(o->stream)))
        return errno ? errno : EIO;
    if (!o->in_place && o->fd >= 0 && fsync(o->fd) != 0)
        return errno;
    return 0;
}

/* Give the unnamed file its temporary name (linkat: fails rather than
 * replace a file, like O_EXCL). 0, or the errno of the failure. */
static int name_unnamed(ls_outfile *o)
{
    char proc[64];
    int i;

    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
    for (i = 0; i < TMP_TRIES; i++) {
        if (tmp_name(o) != 0)
            return ENAMETOOLONG;
        if (linkat(AT_FDCWD, proc, AT_FDCWD, o->tmp, AT_SYMLINK_FOLLOW) == 0) {
            o->unnamed = 0;
            return 0;
        }
        if (errno != EEXIST)
            break;
    }
    o->tmp[0] = '\0';
    return errno;
}

/* Close o's file: 0, or the errno of the failure. */
static int close_file(ls_outfile *o)
{
    int err = 0;
    if (o->stream == stdout) {
        if (fflush(stdout) != 0)
            err = errno;
    } else if (o->stream) {
        if (fclose(o->stream) != 0)
            err = errno;
    } else if (o->fd >= 0 && o->fd != STDOUT_FILENO) {
        if (close(o->fd) != 0)
            err = errno;
    }
    o->stream = NULL;
    o->fd = -1;
    return err;
}

/* The old file's owner, group and mode on the temporary file, where allowed:
 * a user who is not root cannot give a file away, and may set only a group
 * of theirs. */
static int keep_owner_and_mode(const ls_outfile *o)
{
    if (!o->had_target)
        return 0;
    if (chown(o->tmp, o->uid, o->gid) != 0 && chown(o->tmp, (uid_t)-1, o->gid) != 0 &&
        errno != EPERM)
        return -1;
    return chmod(o->tmp, o->mode);
}

int ls_outfile_sync_dir(const char *path)
{
    char dir[LS_OUTFILE_PATH_MAX];
    const char *slash = strrchr(path, '/');
    int fd, rc = 0;

    if (!slash)
        snprintf(dir, sizeof(dir), ".");
    else
        snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
    if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return -1;
    /* Some file systems cannot sync a directory (EINVAL): nothing to do there. */
    if (fsync(fd) != 0 && errno != EINVAL)
        rc = -1;
    if (close(fd) != 0)
        rc = -1;
    return rc;
}

int ls_outfile_commit(ls_outfile *o, int write_errno, char *errbuf, size_t errlen)
{
    const char *step = "cannot write";
    int err = write_errno, cerr;

    if (!err)
        err = flush_and_sync(o);
    if (!err && o->unnamed)
        err = name_unnamed(o);
    cerr = close_file(o);
    err = err ? err : cerr;
    if (!err && !o->in_place) {
        step = "cannot put in place";
        if (keep_owner_and_mode(o) != 0 || rename(o->tmp, o->target) != 0)
            err = errno;
        else if (ls_outfile_sync_dir(o->target) != 0)
            err = errno; /* renamed, but not known to be on disk */
        else
            o->tmp[0] = '\0';
    }
    if (!err)
        return 0;
    {
        char shown[LS_SHOWN_MAX];
        snprintf(errbuf, errlen, "%s: %s: %s%s", ls_shown(shown, sizeof(shown), o->target), step,
                 strerror(err), o->in_place ? "" : " (nothing written; an older file there is kept)");
    }
    if (o->tmp[0])
        unlink(o->tmp);
    o->tmp[0] = '\0';
    return LS_EIO;
}

void ls_outfile_abort(ls_outfile *o)
{
    (void)close_file(o);
    if (o->tmp[0])
        unlink(o->tmp);
    o->tmp[0] = '\0';
}

/* 1 when `name` is "BASE.lockspan-PID-...tmp" (or SQLite's files beside
 * such a name) of a process that no longer runs. */
static int stale_temp(const char *name, const char *base, size_t blen)
{
    static const char *const suffix[] = {".tmp", ".tmp-journal", ".tmp-wal", ".tmp-shm"};
    const char *p, *tail;
    char *end;
    size_t i;
    long pid;

    if (strncmp(name, base, blen) != 0 || strncmp(name + blen, TMP_MARK, strlen(TMP_MARK)) != 0)
        return 0;
    p = name + blen + strlen(TMP_MARK);
    errno = 0;
    pid = strtol(p, &end, 10);
    if (end == p || pid <= 0 || errno)
        return 0;
    /* "-RANDOM.tmp" (this version), or ".tmp" (PID only: older versions) */
    tail = *end == '-' ? strchr(end, '.') : end;
    for (i = 0; tail && i < sizeof(suffix) / sizeof(suffix[0]); i++)
        if (strcmp(tail, suffix[i]) == 0)
            break;
    if (!tail || i == sizeof(suffix) / sizeof(suffix[0]))
        return 0;
    if (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
        return 0;
    return 1;
}

void ls_outfile_remove_stale(const char *path)
{
    char dir[LS_OUTFILE_PATH_MAX], full[LS_OUTFILE_PATH_MAX + NAME_MAX + 2];
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    size_t blen = strlen(base);
    struct dirent *e;
    DIR *d;

    snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + 1 : 2, slash ? path : "./");
    if (!(d = opendir(dir)))
        return;
    while ((e = readdir(d)) != NULL) {
        if (!stale_temp(e->d_name, base, blen))
            continue;
        snprintf(full, sizeof(full), "%s%s", dir, e->d_name);
        unlink(full);
    }
    closedir(d);
}
