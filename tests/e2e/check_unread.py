#!/usr/bin/env python3
"""Inputs that break before their first line are never a silent skip (issue 37).

A real log (samples/basic/postgresql.log, written by samples/generate.sh
from a real PostgreSQL server) is read beside an input of which not one
line can be read:

- a .gz cut inside its 10-byte header (its first 5 bytes, as `head -c 5`
  leaves it);
- a file its reader may not open (mode 000, read by an unprivileged user:
  `setpriv` to nobody when the test runs as root);
- a read error at the first read (/proc/self/mem: read() at offset 0 is
  EIO);
- a directory entry that cannot be opened (a dangling symbolic link, as a
  file removed between the listing and the open leaves it).

Each time: exit 4 (partial), stderr names the input and says nothing was
read from it, the good log's waits are all there, the store has the input
as a file with no line and a row "input not fully read" at line 1, the
JSON and Markdown reports' input sections name it, and `report` on that
store exits 4. Once the file reads, the next ingest forgets that row and
`report` exits 0.

Usage: check_unread.py LOCKSPAN SAMPLES_DIR
"""
import gzip
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

EXIT_PARTIAL = 4
BROKE = "input not fully read"


def run(args, user=None):
    """CompletedProcess of args, as `user` (nobody) when given and root."""
    if user and os.geteuid() == 0:
        args = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + args
    return subprocess.run(args, capture_output=True, env=dict(os.environ, TZ="UTC"),
                          timeout=120)


def err(r):
    return r.stderr.decode("utf-8", "replace")


def waits_of(rep):
    return sorted((w.get("pid"), w.get("blocker_pid")) for w in rep.get("waits", []))


def input_says_broken(rep, path):
    """The JSON report's input section lists `path` with no line read and
    a not-fully-read row at line 1."""
    inp = rep.get("input", {})
    files = [f for f in inp.get("files", []) if f.get("path") == path]
    rows = [b for b in inp.get("bad_line_samples", [])
            if b.get("file") == path and b.get("reason", "").startswith(BROKE)]
    return (len(files) == 1 and files[0].get("lines") == 0 and files[0].get("format") is None
            and len(rows) == 1 and rows[0].get("line") == 1)


def stored_unread(db, path):
    """Rows of the store for `path` read as nothing: (files, broken rows)."""
    con = sqlite3.connect(db)
    try:
        nf = con.execute("SELECT count(*) FROM files WHERE path = ? AND format IS NULL"
                         " AND lines = 0", (path,)).fetchone()[0]
        nb = con.execute("SELECT count(*) FROM bad_lines JOIN files USING (file_id)"
                         " WHERE path = ? AND reason LIKE ?", (path, BROKE + "%")).fetchone()[0]
    finally:
        con.close()
    return nf, nb


def check_case(ls, tmp, name, bad, good, control, user=None, ingest=True):
    """analyze (and ingest + report) of `bad` beside `good`: partial, named,
    stored, reported."""
    out = os.path.join(tmp, name + ".json")
    r = run([ls, "analyze", "-o", out, "-o", out[:-5] + ".md", bad, good], user)
    rep = json.load(open(out)) if os.path.exists(out) else {}
    check(r.returncode == EXIT_PARTIAL, f"{name}: analyze exits {EXIT_PARTIAL} (exit "
          f"{r.returncode}): {err(r)[-400:]}")
    check(f"{bad}" in err(r) and "nothing read from it" in err(r),
          f"{name}: stderr names the input and says nothing was read: {err(r)[-400:]}")
    check(waits_of(rep) == control and control,
          f"{name}: the good log's waits are all in the report ({len(waits_of(rep))} of "
          f"{len(control)})")
    check(input_says_broken(rep, bad),
          f"{name}: the JSON report's input section names it, no line read, broken at line 1: "
          f"{rep.get('input')}")
    md = open(out[:-5] + ".md", encoding="utf-8").read() if os.path.exists(out[:-5] + ".md") \
        else ""
    check("**Not fully read:**" in md and os.path.basename(bad) in md,
          f"{name}: the Markdown report's input section says it was not fully read")
    if not ingest:
        return
    db = os.path.join(tmp, name + ".db")
    r = run([ls, "ingest", "--db", db, bad, good], user)
    check(r.returncode == EXIT_PARTIAL, f"{name}: ingest exits {EXIT_PARTIAL} (exit "
          f"{r.returncode}): {err(r)[-400:]}")
    check(os.path.exists(db) and stored_unread(db, bad) == (1, 1),
          f"{name}: the store holds it as a file with nothing read and one broken row "
          f"({stored_unread(db, bad) if os.path.exists(db) else 'no store'})")
    r = run([ls, "report", "--db", db, "-o", out], user)
    check(r.returncode == EXIT_PARTIAL and "not fully read" in err(r),
          f"{name}: report on that store exits {EXIT_PARTIAL} and says so (exit "
          f"{r.returncode}): {err(r)[-400:]}")
    r = run([ls, "ingest", "--db", db, bad], user)
    check(r.returncode == EXIT_PARTIAL and stored_unread(db, bad) == (1, 1),
          f"{name}: the same input again: exit {EXIT_PARTIAL}, still one row of it, not two "
          f"(exit {r.returncode}, {stored_unread(db, bad)})")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    ls, samples = os.path.abspath(sys.argv[1]), sys.argv[2]
    log = os.path.join(samples, "basic", "postgresql.log")
    tmp = tempfile.mkdtemp(prefix="lockspan-unread-")
    os.chmod(tmp, 0o777)  # for the unprivileged runs
    try:
        good = os.path.join(tmp, "good.log")
        shutil.copyfile(log, good)
        os.chmod(good, 0o644)
        out = os.path.join(tmp, "control.json")
        r = run([ls, "analyze", "-q", "-o", out, good])
        control = waits_of(json.load(open(out))) if r.returncode == 0 else []
        check(r.returncode == 0 and len(control) > 0,
              f"control: the log alone exits 0 with waits ({r.returncode}, {len(control)})")

        # A .gz cut inside its header.
        whole = gzip.compress(open(log, "rb").read())
        cut = os.path.join(tmp, "cut.log.gz")
        with open(cut, "wb") as f:
            f.write(whole[:5])
        check_case(ls, tmp, "cut-header", cut, good, control)
        # ... and once the whole .gz replaces it, the store forgets the break
        # (its content is in the store already: nothing new, exit 0).
        db = os.path.join(tmp, "cut-header.db")
        with open(cut, "wb") as f:
            f.write(whole)
        r = run([ls, "ingest", "--db", db, cut])
        check(r.returncode == 0 and stored_unread(db, cut) == (0, 0),
              f"cut header replaced by the whole .gz: ingest exits 0 and the broken row is "
              f"gone (exit {r.returncode}, {stored_unread(db, cut)}): {err(r)[-300:]}")
        r = run([ls, "report", "--db", db, "-o", os.path.join(tmp, "fixed.json")])
        check(r.returncode == 0, f"... then report exits 0 (exit {r.returncode}): "
              f"{err(r)[-300:]}")

        # Permission denied on open.
        secret = os.path.join(tmp, "secret.log")
        shutil.copyfile(log, secret)
        os.chmod(secret, 0)
        if os.geteuid() != 0 or shutil.which("setpriv"):
            check_case(ls, tmp, "eacces", secret, good, control, user="nobody")
        else:
            check(False, "permission case: running as root without setpriv")

        # A read error at the first read (Linux: /proc/self/mem at offset 0).
        if os.path.exists("/proc/self/mem"):
            check_case(ls, tmp, "eio", "/proc/self/mem", good, control, ingest=False)

        # A directory entry that cannot be opened.
        d = os.path.join(tmp, "dir")
        os.mkdir(d)
        shutil.copyfile(log, os.path.join(d, "a.log"))
        os.symlink(os.path.join(tmp, "gone.log"), os.path.join(d, "b.log"))
        out = os.path.join(tmp, "dir.json")
        r = run([ls, "analyze", "-o", out, d])
        rep = json.load(open(out)) if os.path.exists(out) else {}
        check(r.returncode == EXIT_PARTIAL and "b.log" in err(r),
              f"a directory entry that cannot be opened: exit {EXIT_PARTIAL}, named (exit "
              f"{r.returncode}): {err(r)[-400:]}")
        check(input_says_broken(rep, os.path.join(d, "b.log")) and waits_of(rep) == control,
              f"... the report names it and has every wait of the rest: {rep.get('input')}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report()


if __name__ == "__main__":
    sys.exit(main())
