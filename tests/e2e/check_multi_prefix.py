#!/usr/bin/env python3
"""Several stderr logs with different log_line_prefixes on one command line
(issue 10): each file's prefix is inferred from its own lines. The logs are
samples/prefixes/<n>.log, written by a real PostgreSQL server; <n>.prefix is
the log_line_prefix it had. The truth for each file is that file ingested
alone with its true prefix given (--prefix): one ingest of all of them
without --prefix must give every file the same lines, records and no
unparsable line, and remember the true prefix for each. A file grown by a
few lines is then ingested again with the others: it is read on with the
prefix stored for it (a few lines are too few to infer one), and the store
equals a clean ingest of the grown files.

Usage: check_multi_prefix.py LOCKSPAN SAMPLES_DIR
"""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

# Prefixes that differ from one another: timestamp forms, %q, %Q, [%l-1].
LOGS = ["1", "3", "8", "10", "13", "5"]


def ingest(ls, db, paths, prefix=None):
    args = [ls, "ingest", "--db", db]
    if prefix is not None:
        args += ["--prefix", prefix]
    return subprocess.run(args + paths, capture_output=True, text=True,
                          env=dict(os.environ, TZ="UTC"))


def files(db):
    con = sqlite3.connect(db)
    rows = con.execute("SELECT path, lines, records, bad_lines, used_prefix FROM files "
                       "ORDER BY file_id").fetchall()
    con.close()
    return {os.path.basename(r[0]): r[1:] for r in rows}


def counts(db):
    con = sqlite3.connect(db)
    out = {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
           for t in ("statements", "lock_events", "errors", "sessions")}
    con.close()
    return out


def main():
    ls, samples = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="lockspan-multi.")
    try:
        truth = {}
        paths = []
        for n in LOGS:
            log = os.path.join(samples, "prefixes", n + ".log")
            prefix = open(os.path.join(samples, "prefixes", n + ".prefix")).read().rstrip("\n")
            db = os.path.join(tmp, f"alone-{n}.db")
            r = ingest(ls, db, [log], prefix)
            check(r.returncode == 0, f"{n}.log alone with --prefix: {r.stderr[-300:]}")
            truth[n + ".log"] = files(db)[n + ".log"][:3] + (prefix,)
            paths.append(log)
        check(len(set(t[3] for t in truth.values())) == len(LOGS), "the prefixes all differ")

        db = os.path.join(tmp, "all.db")
        r = ingest(ls, db, paths)
        check(r.returncode == 0, "one ingest of all: " + r.stderr[-300:])
        got = files(db)
        for name, want in truth.items():
            check(got.get(name) == want, f"{name}: lines, records, bad lines, prefix {got.get(name)} "
                  f"!= {want} (alone, true prefix)")
            check(f"{name}: inferred log_line_prefix '{want[3]}'" in r.stderr,
                  f"{name}: the note names the file and its prefix")

        # Grown files: all but the last few lines (cut before a record, not
        # inside one), then those appended, ingested with the others each
        # time. A few lines are too few to infer a prefix from.
        grown = []
        for n in LOGS:
            text = open(os.path.join(samples, "prefixes", n + ".log")).read().splitlines(True)
            cut = len(text) - 3
            while cut > 0 and text[cut].startswith("\t"):
                cut -= 1
            p = os.path.join(tmp, n + ".log")
            with open(p, "w") as f:
                f.writelines(text[:cut])
            grown.append((p, text[cut:]))
        db = os.path.join(tmp, "grown.db")
        r1 = ingest(ls, db, [p for p, _ in grown])
        for p, rest in grown:
            with open(p, "a") as f:
                f.writelines(rest)
        r2 = ingest(ls, db, [p for p, _ in grown])
        check(r1.returncode == 0 and r2.returncode == 0,
              "grown: both ingests succeed: " + r1.stderr[-200:] + r2.stderr[-300:])
        clean = os.path.join(tmp, "clean.db")
        r3 = ingest(ls, clean, [p for p, _ in grown])
        check(r3.returncode == 0, "clean ingest of the grown files")
        got, want = files(db), files(clean)
        for n in LOGS:
            name = n + ".log"
            check(got.get(name) == want.get(name) and got.get(name, ())[3:] == truth[name][3:],
                  f"grown {name}: {got.get(name)} == clean {want.get(name)}, "
                  f"prefix {truth[name][3]}")
        check(counts(db) == counts(clean), f"grown store {counts(db)} == clean {counts(clean)}")
    finally:
        shutil.rmtree(tmp)
    return report()


if __name__ == "__main__":
    sys.exit(main())
