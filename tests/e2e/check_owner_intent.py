#!/usr/bin/env python3
"""Files keep their owner's intent (issue 37, 4):

- a store (`analyze --db`) or report (`-o`) that replaces a file keeps its
  mode, owner and group;
- new ones follow the umask (0077: 0600; 0002: 0664);
- a `--db` or `-o` that is a symbolic link is written through: the link
  stays, its target is the new file;
- the temporary store has an unpredictable name, NAME.lockspan-PID-RANDOM.tmp
  (16 hex digits), seen while analyze runs;
- an ingest into a store keeps its mode (SQLite's -wal and -shm beside it
  take it too, and are gone at the end).

Before issue 37: a 0600 store or report became 0644 after analyze, a new
store ignored a umask that grants more than 0644, a symlinked --db became a
regular file (its target stale), and the temporary store was
NAME.lockspan-PID.tmp.

Usage: check_owner_intent.py LOCKSPAN SAMPLES_DIR
"""
import glob
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

from lscheck import check, report

OTHER_ID = 4242  # an owner and group to give files (the test runs as root)


def run(*args, umask=None):
    pre = (lambda: os.umask(umask)) if umask is not None else None
    return subprocess.run(list(args), capture_output=True, text=True, preexec_fn=pre)


def logs_in(db):
    # read-write: a read-only connection to a WAL store leaves its -wal, -shm
    con = sqlite3.connect(db)
    try:
        return sorted(os.path.basename(os.path.dirname(p))
                      for (p,) in con.execute("SELECT path FROM files"))
    finally:
        con.close()


def mode(p):
    return os.stat(p).st_mode & 0o7777


def main():
    ls, samples = sys.argv[1], sys.argv[2]
    log_a = os.path.join(samples, "basic", "postgresql.log")
    log_b = os.path.join(samples, "correlation", "postgresql.log")
    tmp = tempfile.mkdtemp(prefix="lockspan-owner.")
    os.chmod(tmp, 0o755)
    root = os.geteuid() == 0
    try:
        db, rep = os.path.join(tmp, "s.db"), os.path.join(tmp, "r.md")
        r = run(ls, "analyze", "-q", "--db", db, "-o", rep, log_a)
        check(r.returncode == 0, f"first analyze (got {r.returncode}: {r.stderr})")

        # --- replaced files keep mode (and owner, group) ---
        os.chmod(db, 0o600)
        os.chmod(rep, 0o640)
        if root:
            os.chown(db, OTHER_ID, OTHER_ID)
            os.chown(rep, 0, OTHER_ID)
        r = run(ls, "analyze", "-q", "--db", db, "-o", rep, log_b)
        check(r.returncode == 0 and logs_in(db) == ["correlation"],
              f"analyze over them: the new store (got {r.returncode}: {r.stderr})")
        check(mode(db) == 0o600, f"a 0600 store replaced by analyze stays 0600 (got {mode(db):o})")
        check(mode(rep) == 0o640, f"a 0640 report replaced stays 0640 (got {mode(rep):o})")
        if root:
            st_db, st_rep = os.stat(db), os.stat(rep)
            check((st_db.st_uid, st_db.st_gid) == (OTHER_ID, OTHER_ID),
                  f"the store keeps its owner and group (got {st_db.st_uid}:{st_db.st_gid})")
            check(st_rep.st_gid == OTHER_ID, f"the report keeps its group (got {st_rep.st_gid})")
        else:
            print("NOT CHECKED: owner and group (needs root to give files away)")

        # ingest into a 0600 store: still 0600, nothing left beside it
        r = run(ls, "ingest", "-q", "--db", db, log_a)
        check(r.returncode == 0 and mode(db) == 0o600 and logs_in(db) == ["basic", "correlation"],
              f"ingest into a 0600 store keeps it 0600 (got {r.returncode}, {mode(db):o})")
        check(glob.glob(db + "-*") == [], f"no -wal or -shm left: {glob.glob(db + '-*')}")

        # --- new files follow the umask ---
        for umask, want in ((0o077, 0o600), (0o002, 0o664)):
            d = os.path.join(tmp, f"umask{umask:o}")
            os.mkdir(d)
            ndb, nrep = os.path.join(d, "n.db"), os.path.join(d, "n.md")
            r = run(ls, "analyze", "-q", "--db", ndb, "-o", nrep, log_a, umask=umask)
            check(r.returncode == 0, f"analyze with umask {umask:03o} (got {r.stderr})")
            check(mode(ndb) == want and mode(nrep) == want,
                  f"umask {umask:03o}: new store and report are {want:o} "
                  f"(got {mode(ndb):o}, {mode(nrep):o})")
            idb = os.path.join(d, "i.db")
            r = run(ls, "ingest", "-q", "--db", idb, log_a, umask=umask)
            check(r.returncode == 0 and mode(idb) == want,
                  f"umask {umask:03o}: a store ingest creates is {want:o} (got {mode(idb):o})")

        # --- symbolic links are written through ---
        real = os.path.join(tmp, "real")
        os.mkdir(real)
        tdb, trep = os.path.join(real, "t.db"), os.path.join(real, "t.md")
        r = run(ls, "analyze", "-q", "--db", tdb, "-o", trep, log_a)
        check(r.returncode == 0, "store behind a link")
        old_report = open(trep).read()
        ldb, lrep = os.path.join(tmp, "link.db"), os.path.join(tmp, "link.md")
        os.symlink(os.path.relpath(tdb, tmp), ldb)
        os.symlink(trep, lrep)
        r = run(ls, "analyze", "-q", "--db", ldb, "-o", lrep, log_b)
        check(r.returncode == 0, f"analyze through links (got {r.returncode}: {r.stderr})")
        check(os.path.islink(ldb) and os.path.islink(lrep),
              "--db and -o given as symbolic links stay links")
        check(logs_in(tdb) == ["correlation"] and open(trep).read() != old_report,
              f"the links' targets are the new store and report (store holds {logs_in(tdb)})")
        check(sorted(os.listdir(real)) == ["t.db", "t.md"],
              f"nothing else beside the targets: {os.listdir(real)}")
        r = run(ls, "ingest", "-q", "--db", ldb, log_a)
        check(r.returncode == 0 and os.path.islink(ldb)
              and logs_in(tdb) == ["basic", "correlation"]
              and sorted(os.listdir(real)) == ["t.db", "t.md"],
              f"ingest through a link writes the target (got {r.returncode}: {r.stderr}, "
              f"{os.listdir(real)})")
        dangling = os.path.join(tmp, "dangling.db")
        os.symlink(os.path.join(tmp, "nowhere", "x.db"), dangling)
        r = run(ls, "analyze", "-q", "--db", dangling, "-o", os.path.join(tmp, "d.md"), log_a)
        check(r.returncode != 0 and "dangling.db" in r.stderr and os.path.islink(dangling),
              f"a --db link to a missing directory: refused with a message naming it "
              f"(got {r.returncode}: {r.stderr})")

        # --- the temporary store's name cannot be guessed ---
        big = os.path.join(tmp, "big.log")
        with open(big, "wb") as f:
            data = open(log_b, "rb").read()
            for _ in range(100):
                f.write(data)
        p = subprocess.Popen([ls, "analyze", "-q", "--db", db, "-o", rep, big],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        names = set()
        end = time.time() + 60
        while p.poll() is None and time.time() < end:
            names |= {os.path.basename(t) for t in glob.glob(os.path.join(tmp, "s.db.lockspan-*"))}
            time.sleep(0.005)
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
        p.wait()
        pat = re.compile(r"^s\.db\.lockspan-%d-[0-9a-f]{16}\.tmp(-wal|-shm|-journal)?$" % p.pid)
        check(names and all(pat.match(n) for n in names),
              f"the temporary store is NAME.lockspan-PID-RANDOM.tmp (seen {sorted(names)})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report()


if __name__ == "__main__":
    sys.exit(main())
