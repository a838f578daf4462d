#!/usr/bin/env python3
"""Differential check: the same server events logged as stderr, csvlog and
jsonlog (log_destination = 'stderr,csvlog,jsonlog', samples/generate.sh)
must reach the store identically, whatever format lockspan read.

Usage: check_formats.py LOCKSPAN SAMPLE_DIR

Ingests SAMPLE_DIR/postgresql.log (with --prefix from prefix.txt),
postgresql.csv and postgresql.json each into its own store and compares,
with Python's sqlite3: lock_waits, deadlocks with their edges and
processes, errors, statements and sessions. Only columns that all three
formats can fill are compared (see docs/store.md: remote, backend_type and
session start times depend on what the stderr prefix logs). Then analyzes
the directory itself, which holds the same log three times: it must be read
once. Prints "N passed, N failed".
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

FORMATS = (("stderr", "postgresql.log"), ("csvlog", "postgresql.csv"),
           ("jsonlog", "postgresql.json"))

# Each query gives rows that must be the same multiset in every store. Row
# ids (wait_id, deadlock_id, session_id) depend on insertion order and are
# left out; ORDER BY makes the lists comparable.
QUERIES = {
    "lock_waits": """
        SELECT pid, mode, target, relation, ctid, start_ts, end_ts, outcome,
               blocker_pid, root_pid, root_xid, chain_depth
          FROM lock_waits ORDER BY start_ts, pid, target""",
    "deadlocks": """
        SELECT ts, victim_pid, detail FROM deadlocks ORDER BY ts, victim_pid""",
    "deadlock_edges": """
        SELECT d.ts, d.victim_pid, e.seq, e.waiter_pid, e.mode, e.target_kind, e.target,
               e.blocker_pid
          FROM deadlock_edges e JOIN deadlocks d USING (deadlock_id)
         ORDER BY d.ts, d.victim_pid, e.seq""",
    "deadlock_procs": """
        SELECT d.ts, d.victim_pid, p.pid,
               (SELECT x.text FROM stmt_texts x WHERE x.text_id = p.text_id) AS query
          FROM deadlock_procs p JOIN deadlocks d USING (deadlock_id)
         ORDER BY d.ts, d.victim_pid, p.pid, query""",
    "errors": """
        SELECT pid, ts, sqlstate, class, message FROM errors
         ORDER BY ts, pid, message""",
    "statements": """
        SELECT pid, log_ts, duration_ms, text, xid FROM statements
         ORDER BY log_ts, pid, text""",
    "sessions": """
        SELECT pid, pg_session, user_name, database, application FROM sessions
         ORDER BY pg_session, pid""",
}


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True)


def analyze(lockspan, db, out, paths, prefix, quiet=True):
    return run(lockspan, "analyze", *(["-q"] if quiet else []), "--db", db, "--prefix", prefix,
               "--format", "json", "-o", out, *paths)


def main():
    lockspan, sample = sys.argv[1], sys.argv[2]
    truth = json.load(open(os.path.join(sample, "truth.json")))
    prefix = open(os.path.join(sample, "prefix.txt")).read().rstrip("\n")
    tmp = tempfile.mkdtemp(prefix="lockspan-formats.")
    try:
        rows = {}
        for fmt, name in FORMATS:
            db = os.path.join(tmp, fmt + ".db")
            r = analyze(lockspan, db, os.path.join(tmp, fmt + ".json"),
                        [os.path.join(sample, name)], prefix)
            check(r.returncode == 0, f"{name}: analyze exits 0 ({r.stderr.strip()})")
            con = sqlite3.connect(db)
            files = con.execute("SELECT format, bad_lines, records FROM files").fetchall()
            check(len(files) == 1 and files[0][0] == fmt, f"{name}: files.format {files}")
            check(files and files[0][1] == 0, f"{name}: no unparsable lines")
            rows[fmt] = {"records": files[0][2] if files else None}
            for table, sql in QUERIES.items():
                rows[fmt][table] = con.execute(sql).fetchall()
            con.close()

        check(len(rows["stderr"]["lock_waits"]) == len(truth["waits"]),
              f"stderr: {len(rows['stderr']['lock_waits'])} waits, truth {len(truth['waits'])}")
        check(rows["stderr"]["records"] == rows["csvlog"]["records"] ==
              rows["jsonlog"]["records"], "same number of records in each format")
        for table in QUERIES:
            base = rows["stderr"][table]
            check(len(base) > 0, f"{table}: the sample has rows")
            for fmt in ("csvlog", "jsonlog"):
                got = rows[fmt][table]
                if got == base:
                    check(True, "")
                    continue
                diff = [(a, b) for a, b in zip(base, got) if a != b][:3]
                check(False, f"{table}: {fmt} differs from stderr ({len(got)} vs {len(base)} "
                      f"rows; first differences {diff})")

        # A directory holding the same log in three formats is read once,
        # in its richest format, and says which files it skipped (a note:
        # not with -q, check_first_contact.py).
        db = os.path.join(tmp, "dir.db")
        out = os.path.join(tmp, "dir.json")
        r = analyze(lockspan, db, out, [sample], prefix, quiet=False)
        check(r.returncode == 0, f"directory: analyze exits 0 ({r.stderr.strip()})")
        rep = json.load(open(out)) if r.returncode == 0 else {"waits": []}
        check(len(rep["waits"]) == len(truth["waits"]),
              f"directory: {len(rep['waits'])} waits, truth {len(truth['waits'])}")
        con = sqlite3.connect(db)
        files = con.execute("SELECT path, format FROM files").fetchall()
        con.close()
        check([f for _, f in files] == ["jsonlog"], f"directory: read only the jsonlog {files}")
        for name in ("postgresql.log", "postgresql.csv"):
            check(any(name in l and "skipped" in l and "postgresql.json" in l
                      for l in r.stderr.splitlines()),
                  f"directory: says {name} was skipped for postgresql.json")

        # Without the jsonlog file, csvlog is the richest; other stems stay.
        d = os.path.join(tmp, "logs")
        os.mkdir(d)
        for name in ("postgresql.log", "postgresql.csv"):
            shutil.copy(os.path.join(sample, name), d)
        shutil.copy(os.path.join(sample, "postgresql.log"), os.path.join(d, "other.log"))
        r = analyze(lockspan, os.path.join(tmp, "two.db"), out, [d], prefix)
        check(r.returncode == 0, f"two formats: analyze exits 0 ({r.stderr.strip()})")
        con = sqlite3.connect(os.path.join(tmp, "two.db"))
        files = sorted((os.path.basename(p), f)
                       for p, f in con.execute("SELECT path, format FROM files"))
        con.close()
        check(files == [("other.log", "stderr"), ("postgresql.csv", "csvlog")],
              f"two formats: csvlog read, the other stem kept {files}")

        # Naming the files explicitly reads each of them: no guessing then.
        r = analyze(lockspan, os.path.join(tmp, "explicit.db"), out,
                    [os.path.join(d, "postgresql.log"), os.path.join(d, "postgresql.csv")],
                    prefix)
        con = sqlite3.connect(os.path.join(tmp, "explicit.db"))
        n = con.execute("SELECT count(*) FROM files").fetchone()[0]
        con.close()
        check(r.returncode == 0 and n == 2, "files named on the command line are all read")
        # ... and lockspan says that such files are one log twice (a shell's
        # postgresql-* names both), since its events then count twice.
        check(any("postgresql.log" in l and "postgresql.csv" in l and
                  "are the same log in two formats" in l for l in r.stderr.splitlines()),
              f"named files that are one log in two formats are named on stderr ({r.stderr})")
        check("overlap in time" not in r.stderr,
              f"... once, not again as files that overlap in time ({r.stderr})")
        r = analyze(lockspan, os.path.join(tmp, "other.db"), out,
                    [os.path.join(d, "other.log"), os.path.join(d, "postgresql.csv")], prefix)
        check(r.returncode == 0 and "same log" not in r.stderr,
              f"files of other names are not said to be one log ({r.stderr})")
        check("overlap in time" in r.stderr,
              f"two logs of one time (a copy under another name) are said to overlap"
              f" ({r.stderr})")

        # Logs of one time in other directories (two servers' logs, whose pids
        # would meet in one store): said on stderr; one log in two formats
        # only once, as such (above).
        d2 = os.path.join(tmp, "server2")
        os.mkdir(d2)
        shutil.copy(os.path.join(sample, "postgresql.json"), os.path.join(d2, "node2.json"))
        r = analyze(lockspan, os.path.join(tmp, "servers.db"), out,
                    [os.path.join(d, "postgresql.log"), os.path.join(d2, "node2.json")], prefix)
        check(r.returncode == 0 and any(
            "node2.json overlap in time" in l
            for l in r.stderr.splitlines()),
            f"logs of one time in two directories are said to be two servers' ({r.stderr})")
    finally:
        shutil.rmtree(tmp)
    return report()


if __name__ == "__main__":
    sys.exit(main())
