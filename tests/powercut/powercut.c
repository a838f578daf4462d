/*
 * powercut.c — an LD_PRELOAD shim that shows what a power cut would leave
 * of a directory, without a VM (tests/e2e/check_powercut.py).
 *
 * The model is the one POSIX promises and no more: a file's data is on
 * disk as of the last fsync() or fdatasync() of that file; a directory's
 * names (files created, renamed, removed) as of the last fsync() of the
 * directory (or fdatasync(), as SQLite does). Everything else is lost
 * when the power goes. The shim keeps
 * that durable state beside the test, in LS_POWERCUT_STATE:
 *
 *   manifest     "NAME\tINODE\n" per regular file of the directory, as of
 *                its last fsync (the test writes the first one);
 *   data/INODE   a file's content as of its last fsync or fdatasync.
 *
 * After the run, the test rebuilds the directory from them: what a reboot
 * would find. Only syncs of LS_POWERCUT_DIR (the directory, or a file in
 * it) are recorded and counted. With LS_POWERCUT_AT=N, the Nth of them
 * cuts the power: the process ends at once (_exit(LS_POWERCUT_EXIT)),
 * without syncing. LS_POWERCUT_LOG names a file that gets a line per sync
 * ("N fsync|fdatasync NAME").
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LS_POWERCUT_EXIT 99
#define COPY_CHUNK 65536

int fsync(int fd);
int fdatasync(int fd);

typedef int (*sync_fn)(int);

typedef struct powercut {
    char dir[PATH_MAX];   /* the watched directory, resolved; "" = inactive */
    char state[PATH_MAX]; /* where the durable state is kept */
    char log[PATH_MAX];   /* "" = no log */
    long cut_at;          /* 0 = never */
    long count;           /* watched syncs so far */
    sync_fn real_fsync, real_fdatasync;
    pthread_mutex_t mu;
} powercut;

static powercut pc = {.mu = PTHREAD_MUTEX_INITIALIZER}; /* the shim's one state: per process */
static pthread_once_t pc_once = PTHREAD_ONCE_INIT;

/* The next definition of `name` (libc's): dlsym gives an object pointer. */
static sync_fn next_sync(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    sync_fn f;
    memcpy(&f, &p, sizeof(f));
    return f;
}

static void pc_init(void)
{
    const char *d = getenv("LS_POWERCUT_DIR"), *s = getenv("LS_POWERCUT_STATE");
    const char *at = getenv("LS_POWERCUT_AT"), *log = getenv("LS_POWERCUT_LOG");

    pc.real_fsync = next_sync("fsync");
    pc.real_fdatasync = next_sync("fdatasync");
    if (!d || !s || !realpath(d, pc.dir) || snprintf(pc.state, sizeof(pc.state), "%s", s) < 0)
        pc.dir[0] = '\0';
    pc.cut_at = at ? strtol(at, NULL, 10) : 0;
    if (log)
        snprintf(pc.log, sizeof(pc.log), "%s", log);
}

/* The path `fd` is open on (readlink of /proc/self/fd/N), or "" */
static void fd_path(int fd, char *out, size_t n)
{
    char link[64];
    ssize_t k;
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    k = readlink(link, out, n - 1);
    out[k > 0 ? k : 0] = '\0';
}

/* 0 when `src` was copied whole to `dst` (through dst.tmp, renamed). */
static int copy_fd_to(int src, const char *dst)
{
    char tmp[PATH_MAX + 8], buf[COPY_CHUNK];
    ssize_t k;
    off_t off = 0;
    int out, rc = 0;

    snprintf(tmp, sizeof(tmp), "%s.tmp", dst);
    if ((out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0)
        return -1;
    while ((k = pread(src, buf, sizeof(buf), off)) > 0) {
        if (write(out, buf, (size_t)k) != k) {
            rc = -1;
            break;
        }
        off += k;
    }
    if (k < 0)
        rc = -1;
    if (close(out) != 0)
        rc = -1;
    return rc == 0 ? rename(tmp, dst) : rc;
}

/* The durable content of the file open on `fd`: data/INODE. */
static void record_data(int fd, ino_t ino)
{
    char proc[64], dst[PATH_MAX + 64];
    int rd;
    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
    snprintf(dst, sizeof(dst), "%s/data/%llu", pc.state, (unsigned long long)ino);
    if ((rd = open(proc, O_RDONLY | O_CLOEXEC)) < 0)
        return;
    if (copy_fd_to(rd, dst) != 0)
        fprintf(stderr, "powercut: cannot record %s\n", dst);
    close(rd);
}

/* The durable names of the directory: manifest. */
static void record_manifest(void)
{
    char path[PATH_MAX + 64], tmp[PATH_MAX + 64];
    struct dirent *e;
    struct stat st;
    FILE *f;
    DIR *d = opendir(pc.dir);

    if (!d)
        return;
    snprintf(tmp, sizeof(tmp), "%s/manifest.tmp", pc.state);
    if (!(f = fopen(tmp, "w"))) {
        closedir(d);
        return;
    }
    while ((e = readdir(d)) != NULL) {
        snprintf(path, sizeof(path), "%s/%s", pc.dir, e->d_name);
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
            fprintf(f, "%s\t%llu\n", e->d_name, (unsigned long long)st.st_ino);
    }
    closedir(d);
    if (fclose(f) == 0) {
        snprintf(path, sizeof(path), "%s/manifest", pc.state);
        rename(tmp, path);
    }
}

static void log_sync(const char *which, const char *path)
{
    FILE *f;
    if (!pc.log[0] || !(f = fopen(pc.log, "a")))
        return;
    fprintf(f, "%ld %s %s\n", pc.count, which, path);
    fclose(f);
}

static int on_sync(int fd, const char *which, int data_only)
{
    char path[PATH_MAX];
    size_t dlen;
    struct stat st;
    int rc, is_dir;
    sync_fn real;

    pthread_once(&pc_once, pc_init);
    real = data_only ? pc.real_fdatasync : pc.real_fsync;
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    dlen = strlen(pc.dir);
    fd_path(fd, path, sizeof(path));
    if (!dlen || fstat(fd, &st) != 0 || strncmp(path, pc.dir, dlen) != 0 ||
        (path[dlen] != '\0' && (path[dlen] != '/' || strchr(path + dlen + 1, '/'))))
        return real(fd);
    is_dir = S_ISDIR(st.st_mode);
    pthread_mutex_lock(&pc.mu);
    pc.count++;
    if (pc.cut_at && pc.count == pc.cut_at) {
        log_sync("cut", path);
        _exit(LS_POWERCUT_EXIT);
    }
    rc = real(fd);
    if (rc == 0 && is_dir) /* Linux syncs a directory's names either way */
        record_manifest();
    else if (rc == 0 && S_ISREG(st.st_mode))
        record_data(fd, st.st_ino);
    log_sync(which, path);
    pthread_mutex_unlock(&pc.mu);
    return rc;
}

int fsync(int fd)
{
    return on_sync(fd, "fsync", 0);
}

int fdatasync(int fd)
{
    return on_sync(fd, "fdatasync", 1);
}
