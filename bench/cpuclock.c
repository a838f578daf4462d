/* LD_PRELOAD shim for bench/run.sh: clock_gettime(CLOCK_MONOTONIC) returns the
 * calling thread's CPU time, so the per-pass lines of LOCKSPAN_TIMING=1 print
 * CPU seconds of the (single-threaded) correlation, not wall seconds: on a
 * shared machine wall time per pass is mostly other processes' load. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <time.h>
int clock_gettime(clockid_t id, struct timespec *ts)
{
    static int (*real)(clockid_t, struct timespec *);
    if (!real)
        real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    return real(id == CLOCK_MONOTONIC ? CLOCK_THREAD_CPUTIME_ID : id, ts);
}
