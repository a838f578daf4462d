#!/usr/bin/env python3
"""Errors on the store and on -o say so at once, with their reason
(issue 37, 8):

- `ingest` onto a damaged store (a page in its middle overwritten) exits
  non-zero at once, says the store is damaged, and leaves the file as it
  was;
- a report that cannot be written (-o /dev/full) gives the system's reason
  ("No space left on device");
- `analyze -o` into a directory that cannot be written (missing, or a
  read-only file system) fails before the analysis: no "ingested" line,
  no store made;
- a correlated store on a read-only file system is still reported (a WAL
  store needs its -shm beside it: it is then opened immutable), and ingest
  into it says it is read-only.

Before issue 37: ingest onto the damaged store exited 0 (the error showed at
the next report), /dev/full gave "cannot write report" without a reason, and
the -o failures came after the whole analysis.

Usage: check_store_errors.py LOCKSPAN SAMPLES_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile

from lscheck import check, report

PAGE = 16384  # the store's page size (store.c)


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True)


def main():
    ls, samples = sys.argv[1], sys.argv[2]
    log_a = os.path.join(samples, "correlation", "postgresql.log")
    log_b = os.path.join(samples, "basic", "postgresql.log")
    tmp = tempfile.mkdtemp(prefix="lockspan-errors.")
    mounted = None
    bound = []
    try:
        # --- a damaged store stops ingest at once ---
        db = os.path.join(tmp, "s.db")
        r = run(ls, "ingest", "-q", "--db", db, log_a)
        check(r.returncode == 0, f"store made (got {r.returncode}: {r.stderr})")
        with open(db, "r+b") as f:
            pages = os.path.getsize(db) // PAGE
            f.seek((pages // 2) * PAGE)
            f.write(b"\xff" * PAGE)
        before = open(db, "rb").read()
        r = run(ls, "ingest", "-q", "--db", db, log_b)
        check(r.returncode != 0 and "damaged" in r.stderr and db in r.stderr,
              f"ingest onto a damaged store ({pages} pages, page {pages // 2} overwritten): "
              f"non-zero, says so (got {r.returncode}: {r.stderr.strip()})")
        check(open(db, "rb").read() == before, "the damaged store is left as it was")

        # --- a write error keeps its reason ---
        good = os.path.join(tmp, "good.db")
        r = run(ls, "ingest", "-q", "--db", good, log_b)
        check(r.returncode == 0, "a sound store")
        if os.path.exists("/dev/full"):
            r = run(ls, "report", "-q", "--db", good, "-o", "/dev/full")
            check(r.returncode == 1 and "No space left on device" in r.stderr,
                  f"-o /dev/full: exit 1 with the system's reason (got {r.returncode}: "
                  f"{r.stderr.strip()})")
        else:
            print("NOT CHECKED: no /dev/full")

        # --- -o that cannot be written: before the analysis ---
        new = os.path.join(tmp, "new.db")
        r = run(ls, "analyze", "--db", new, "-o", os.path.join(tmp, "missing", "r.md"), log_b)
        check(r.returncode == 1 and "cannot write report" in r.stderr
              and "No such file or directory" in r.stderr and "ingested" not in r.stderr
              and not os.path.exists(new),
              f"-o into a missing directory: fails before the analysis (got {r.returncode}: "
              f"{r.stderr.strip()})")
        ro = os.path.join(tmp, "ro")
        os.mkdir(ro)
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", ro],
                          capture_output=True).returncode == 0:
            mounted = ro
            r = run(ls, "analyze", "-o", os.path.join(ro, "r.md"), log_b)
            check(r.returncode == 1 and "Read-only file system" in r.stderr
                  and "ingested" not in r.stderr,
                  f"-o on a read-only file system: fails before the analysis (got "
                  f"{r.returncode}: {r.stderr.strip()})")
            r = run(ls, "report", "--db", good, "-o", os.path.join(tmp, "r.json"), "-o",
                    os.path.join(ro, "r.md"))
            check(r.returncode == 1 and "waits" not in r.stderr,
                  f"report -o on a read-only file system: fails before correlating (got "
                  f"{r.returncode}: {r.stderr.strip()})")
        else:
            print("NOT CHECKED: a read-only directory needs a tmpfs mount (root)")

        # --- a correlated store on a read-only file system is still reported ---
        ros = os.path.join(tmp, "rostore")
        os.mkdir(ros)
        rdb = os.path.join(ros, "s.db")
        shutil.copy(good, rdb)
        r = run(ls, "report", "-q", "--db", rdb, "-o", os.path.join(tmp, "before.md"))
        check(r.returncode == 0, f"report correlates the store (got {r.returncode}: {r.stderr})")
        if (subprocess.run(["mount", "--bind", ros, ros], capture_output=True).returncode == 0):
            bound.append(ros)
            if subprocess.run(["mount", "-o", "remount,bind,ro", ros],
                              capture_output=True).returncode == 0:
                r = run(ls, "report", "-q", "--db", rdb, "-o", os.path.join(tmp, "after.md"))
                check(r.returncode == 0 and open(os.path.join(tmp, "after.md")).read() ==
                      open(os.path.join(tmp, "before.md")).read(),
                      f"a correlated store on a read-only file system: reported as before "
                      f"(got {r.returncode}: {r.stderr.strip()})")
                r = run(ls, "ingest", "-q", "--db", rdb, log_a)
                check(r.returncode == 1 and "readonly" in r.stderr,
                      f"ingest into it: exit 1, says it is read-only (got {r.returncode}: "
                      f"{r.stderr.strip()})")
            else:
                print("NOT CHECKED: read-only bind mount")
        else:
            print("NOT CHECKED: a read-only store needs a bind mount (root)")
    finally:
        for b in bound:
            subprocess.run(["umount", b])
        if mounted:
            subprocess.run(["umount", mounted])
        shutil.rmtree(tmp, ignore_errors=True)
    return report()


if __name__ == "__main__":
    sys.exit(main())
