#!/usr/bin/env python3
"""A run that waits for another run's store lock says so (issue 37).

This test takes the store's run lock itself (flock, as a lockspan run
does) and starts `lockspan ingest`, `report` and `analyze --db` on that
store, with a real log (samples/basic/postgresql.log, written by
samples/generate.sh from a real PostgreSQL server). Each must say on
stderr, before it waits, that it waits for the store lock and name the
holder's pid (this process's: /proc/locks tells it), then go on once the
lock is released (exit 0). With --busy-timeout 1 the note comes first,
then the run gives up (exit 1); with -q it waits without a word.

Usage: check_lock_wait.py LOCKSPAN SAMPLES_DIR
"""
import fcntl
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

from lscheck import check, report

NOTE = "waiting for the store lock held by"
NOTE_WAIT = 20  # seconds for the note to come: the run starts at once


def start(args):
    return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env=dict(os.environ, TZ="UTC"))


def read_until(p, text, seconds):
    """stderr of `p` until a line holds `text` or `seconds` pass (or p ends)."""
    got = b""
    end = time.monotonic() + seconds
    while time.monotonic() < end and text.encode() not in got:
        r, _, _ = select.select([p.stderr], [], [], 0.2)
        if r:
            chunk = os.read(p.stderr.fileno(), 65536)
            if not chunk:
                break
            got += chunk
        elif p.poll() is not None:
            break
    return got.decode("utf-8", "replace")


def held_run(ls, db, args, what):
    """Start `args` while this process holds db's lock: the note must name
    this pid, and the run must finish with exit 0 once it is released."""
    with open(db, "rb") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        p = start(args)
        err = read_until(p, NOTE, NOTE_WAIT)
        waiting = p.poll() is None
        fcntl.flock(lock, fcntl.LOCK_UN)
    _, rest = p.communicate(timeout=120)
    err += rest.decode("utf-8", "replace")
    check(NOTE in err and f"pid {os.getpid()}" in err and waiting,
          f"{what}: says it waits for the store lock held by pid {os.getpid()}, while it "
          f"waits: {err[-400:]!r}")
    check(p.returncode == 0, f"{what}: goes on once the lock is released (exit "
          f"{p.returncode}): {err[-300:]!r}")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    ls, samples = os.path.abspath(sys.argv[1]), sys.argv[2]
    log = os.path.join(samples, "basic", "postgresql.log")
    tmp = tempfile.mkdtemp(prefix="lockspan-lockwait-")
    try:
        db = os.path.join(tmp, "nightly.db")
        r = subprocess.run([ls, "ingest", "-q", "--db", db, log], capture_output=True)
        check(r.returncode == 0, f"first ingest: exit 0 ({r.returncode})")

        held_run(ls, db, [ls, "ingest", "--db", db, log], "ingest")
        held_run(ls, db, [ls, "report", "--db", db, "-o", os.path.join(tmp, "r.md")], "report")
        held_run(ls, db, [ls, "analyze", "--db", db, "-o", os.path.join(tmp, "a.md"), log],
                 "analyze --db")

        # --busy-timeout 1: the note, then it gives up.
        with open(db, "rb") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            r = subprocess.run([ls, "ingest", "--busy-timeout", "1", "--db", db, log],
                               capture_output=True, timeout=60)
            fcntl.flock(lock, fcntl.LOCK_UN)
        err = r.stderr.decode("utf-8", "replace")
        check(r.returncode == 1 and NOTE in err and "up to 1 s" in err and
              err.index(NOTE) < err.index("in use by another process"),
              f"--busy-timeout 1: says it waits, then gives up (exit {r.returncode}): {err!r}")

        # -q: waits without a word.
        with open(db, "rb") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            p = start([ls, "report", "-q", "--db", db, "-o", os.path.join(tmp, "q.md")])
            time.sleep(1)
            waiting = p.poll() is None
            fcntl.flock(lock, fcntl.LOCK_UN)
        _, err = p.communicate(timeout=120)
        check(waiting and p.returncode == 0 and NOTE not in err.decode("utf-8", "replace"),
              f"-q: waits silently, then runs (exit {p.returncode}): {err!r}")

        # Nothing holds it: no note.
        r = subprocess.run([ls, "report", "--db", db, "-o", os.path.join(tmp, "free.md")],
                           capture_output=True, timeout=120)
        check(r.returncode == 0 and NOTE not in r.stderr.decode("utf-8", "replace"),
              f"a free store: no waiting note (exit {r.returncode})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report()


if __name__ == "__main__":
    sys.exit(main())
