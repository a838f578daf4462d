#!/usr/bin/env python3
"""The store and the report are never destroyed or left half-written
(issue 10):

- `analyze --db FILE` refuses (exit 2, FILE untouched) a FILE that is not a
  lockspan store (text, another SQLite database) or that is an input;
  replaces a lockspan store; leaves no temporary file; a killed analyze
  leaves the old store intact and its temporary file is removed by the next
  run; a killed analyze without --db leaves nothing in TMPDIR.
- A report that cannot be written whole (full disk: a small tmpfs) leaves
  the previous report as it was and no temporary file.
- A store held by another process: ingest waits --busy-timeout, then says
  the store is in use (not SQLite's bare `database is locked`).
- A store on a full disk: the error names the full disk, not
  `not an error` (SQLite's message is kept before the ROLLBACK).
- A damaged .gz: the message names the file and the compressed offset.

Usage: check_store_safety.py LOCKSPAN SAMPLES_DIR
"""
import glob
import gzip
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

from lscheck import check, report


def run(*args, **kw):
    return subprocess.run(list(args), capture_output=True, text=True, **kw)


def is_lockspan_store(path):
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        v = con.execute("SELECT value FROM meta WHERE key = 'created_by'").fetchone()
        con.close()
        return bool(v) and v[0].startswith("lockspan")
    except sqlite3.Error:
        return False


def temps(d):
    return glob.glob(os.path.join(d, "*.lockspan-*.tmp*"))


def kill_when(proc, cond, timeout=20):
    """SIGKILL `proc` as soon as cond() holds; True when it was killed running."""
    end = time.time() + timeout
    while time.time() < end and proc.poll() is None:
        if cond():
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            return True
        time.sleep(0.002)
    proc.wait()
    return False


def try_mount_tmpfs(path, size):
    os.makedirs(path, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", path],
                       capture_output=True)
    return r.returncode == 0


def main():
    ls, samples = sys.argv[1], sys.argv[2]
    corr = os.path.join(samples, "correlation")
    log = os.path.join(corr, "postgresql.log")
    tmp = tempfile.mkdtemp(prefix="lockspan-safety.")
    mounts = []
    try:
        # --- analyze --db refuses what is not a lockspan store ---
        text = os.path.join(tmp, "notes.txt")
        open(text, "w").write("my notes\n")
        r = run(ls, "analyze", "-q", "--db", text, "-o", os.path.join(tmp, "r.md"), log)
        check(r.returncode == 2 and "not a lockspan store" in r.stderr,
              f"--db on a text file: exit 2 with a message (got {r.returncode}: {r.stderr})")
        check(open(text, "rb").read() == b"my notes\n", "--db on a text file: file untouched")

        other = os.path.join(tmp, "other.sqlite")
        con = sqlite3.connect(other)
        con.execute("CREATE TABLE t(x)")
        con.execute("INSERT INTO t VALUES (42)")
        con.commit()
        con.close()
        before = open(other, "rb").read()
        r = run(ls, "analyze", "-q", "--db", other, "-o", os.path.join(tmp, "r.md"), log)
        check(r.returncode == 2, f"--db on another SQLite database: exit 2 (got {r.returncode})")
        check(open(other, "rb").read() == before, "--db on another SQLite database: untouched")
        r = run(ls, "ingest", "-q", "--db", other, log)
        check(r.returncode == 2 and open(other, "rb").read() == before,
              f"ingest --db on another SQLite database: exit 2, untouched (got {r.returncode})")

        inp = os.path.join(tmp, "input.log")
        shutil.copy(log, inp)
        r = run(ls, "analyze", "-q", "--db", inp, "-o", os.path.join(tmp, "r.md"), inp)
        check(r.returncode == 2 and open(inp, "rb").read() == open(log, "rb").read(),
              f"--db naming the input: exit 2, input untouched (got {r.returncode})")

        # --- a store of an older schema version: refused, with what to do ---
        old = os.path.join(tmp, "old.db")
        r = run(ls, "ingest", "-q", "--db", old, log)
        check(r.returncode == 0, f"ingest into a new store (got {r.returncode}: {r.stderr})")
        con = sqlite3.connect(old)
        con.execute("PRAGMA user_version = 6")
        con.commit()
        con.close()
        before = open(old, "rb").read()
        r = run(ls, "ingest", "-q", "--db", old, log)
        check(r.returncode != 0 and "schema version 6" in r.stderr and "older lockspan" in r.stderr
              and "new --db file" in r.stderr and open(old, "rb").read() == before,
              f"ingest into a version 6 store: refused, says why and what to do, untouched "
              f"(got {r.returncode}: {r.stderr})")

        # --- analyze --db replaces a lockspan store, through a temporary file ---
        db = os.path.join(tmp, "s.db")
        for n in (1, 2):
            r = run(ls, "analyze", "-q", "--db", db, "-o", os.path.join(tmp, "r.md"), log)
            check(r.returncode == 0 and is_lockspan_store(db),
                  f"analyze --db run {n}: exit 0, a lockspan store (got {r.returncode}: {r.stderr})")
            check(temps(tmp) == [], f"analyze --db run {n}: no temporary file left: {temps(tmp)}")

        # A bigger input so that a run can be killed midway.
        big = os.path.join(tmp, "big.log")
        data = open(log, "rb").read()
        with open(big, "wb") as f:
            for _ in range(150):
                f.write(data)
        old_store = open(db, "rb").read()
        p = subprocess.Popen([ls, "analyze", "-q", "--db", db, "-o",
                              os.path.join(tmp, "big.md"), big],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        killed = kill_when(p, lambda: any(os.path.getsize(t) > 0 for t in temps(tmp)
                                          if os.path.exists(t)))
        check(killed, "analyze --db killed while building its temporary store")
        check(open(db, "rb").read() == old_store and is_lockspan_store(db),
              "killed analyze: the old store is intact")
        left = temps(tmp)
        check(len(left) >= 1, f"killed analyze left its temporary file (the setup works): {left}")
        r = run(ls, "analyze", "-q", "--db", db, "-o", os.path.join(tmp, "r.md"), log)
        check(r.returncode == 0 and temps(tmp) == [],
              f"next analyze removes the killed run's temporary files: {temps(tmp)}")

        # Without --db: SQLite's temporary store is unlinked at once.
        tdir = os.path.join(tmp, "tmpdir")
        os.mkdir(tdir)
        env = dict(os.environ, TMPDIR=tdir, SQLITE_TMPDIR=tdir)
        start = time.time()
        # Four times the input, killed early: analyze must still be running
        # however fast the machine (correlation got much faster).
        bigger = os.path.join(tmp, "bigger.log")
        with open(bigger, "wb") as f:
            for _ in range(4):
                f.write(open(big, "rb").read())
        start = time.time()
        p = subprocess.Popen([ls, "analyze", "-q", "-o", os.path.join(tmp, "big2.md"), bigger],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        killed = kill_when(p, lambda: time.time() - start > 0.2)
        check(killed, "analyze without --db killed midway")
        check(os.listdir(tdir) == [], f"killed analyze leaves nothing in TMPDIR: {os.listdir(tdir)}")

        # --- a report that does not fit leaves the old one ---
        full = os.path.join(tmp, "full")
        if try_mount_tmpfs(full, "64k"):
            mounts.append(full)
            out = os.path.join(full, "r.html")
            open(out, "w").write("previous report\n")
            r = run(ls, "analyze", "-q", "--format", "html", "-o", out, corr)
            check(r.returncode == 1 and "cannot write report" in r.stderr,
                  f"report on a full disk: exit 1 with a message (got {r.returncode}: {r.stderr})")
            check(open(out).read() == "previous report\n",
                  "report on a full disk: the previous report is intact")
            check(temps(full) == [], f"report on a full disk: no temporary file: {temps(full)}")
            # A store on a full disk: SQLite's own message, not "not an error".
            fdb = os.path.join(full, "f.db")
            os.unlink(out)
            r = run(ls, "ingest", "-q", "--db", fdb, big)
            check(r.returncode == 1 and "full" in r.stderr and "not an error" not in r.stderr,
                  f"store on a full disk: says it is full (got {r.returncode}: {r.stderr})")
        else:
            print("NOT CHECKED: full-disk cases need a tmpfs mount (root)")

        # --- a store in use: wait, then say so ---
        busy = os.path.join(tmp, "busy.db")
        r = run(ls, "ingest", "-q", "--db", busy, log)
        check(r.returncode == 0, "busy: store created")
        holder = sqlite3.connect(busy, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        t0 = time.time()
        r = run(ls, "ingest", "-q", "--busy-timeout", "1", "--db", busy, log)
        waited = time.time() - t0
        holder.execute("ROLLBACK")
        holder.close()
        check(r.returncode == 1 and "in use by another process" in r.stderr,
              f"busy store: exit 1, 'in use by another process' (got {r.returncode}: {r.stderr})")
        check(waited >= 0.9, f"busy store: waited the timeout ({waited:.2f} s)")
        r = run(ls, "ingest", "-q", "--db", busy, log)
        check(r.returncode == 0, f"busy store: usable once released (got {r.stderr})")

        # --- a damaged .gz names file and offset ---
        gz = os.path.join(tmp, "bad.log.gz")
        comp = bytearray(gzip.compress(data * 20))
        mid = len(comp) // 2
        for i in range(mid, mid + 64):
            comp[i] ^= 0x5A
        open(gz, "wb").write(bytes(comp))
        # What inflates before zlib finds the damage is garbage lines: more
        # unparsable lines than allowed (exit 3) outranks partial (exit 4).
        r = run(ls, "ingest", "-q", "--db", os.path.join(tmp, "gz.db"), gz)
        check(r.returncode == 3 and gz in r.stderr and "compressed byte" in r.stderr and
              "not fully read" in r.stderr,
              f"damaged .gz: exit 3 naming the file and offset, not fully read (got "
              f"{r.returncode}: {r.stderr})")
        r = run(ls, "ingest", "-q", "--max-bad-lines", "100%", "--db",
                os.path.join(tmp, "gz2.db"), gz)
        check(r.returncode == 4 and gz in r.stderr and "compressed byte" in r.stderr,
              f"damaged .gz, bad lines allowed: exit 4, partial (got {r.returncode}: {r.stderr})")
    finally:
        for m in mounts:
            subprocess.run(["umount", m])
        shutil.rmtree(tmp, ignore_errors=True)
    return report()


if __name__ == "__main__":
    sys.exit(main())
