#!/usr/bin/env python3
"""--max-bad-lines: a wrong --prefix that leaves most lines of a real log
unparsed (samples/hidden/postgresql.log, 1753 lines, read with '%m [%p] %q%c '
instead of its own prefix: only the lines of processes without a session
match) fails with exit 3 and says so, by default (10 % once 1000 lines were
read) and at a given count or share; ingest keeps what it read, analyze
writes no report; the right prefix passes; a bad value is a usage error.

Usage: check_bad_lines.py LOCKSPAN SAMPLES_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile

from lscheck import check, report

WRONG = "%m [%p] %q%c "


def run(ls, tmp, cmd, *args):
    db = os.path.join(tmp, "s.db")
    if os.path.exists(db):
        os.remove(db)
    extra = ["-o", os.path.join(tmp, "r.md")] if cmd == "analyze" else []
    return subprocess.run([ls, cmd, "--db", db] + extra + list(args), capture_output=True,
                          text=True, env=dict(os.environ, TZ="UTC"))


def main():
    ls, samples = sys.argv[1], sys.argv[2]
    log = os.path.join(samples, "hidden", "postgresql.log")
    true = open(os.path.join(samples, "hidden", "prefix.txt")).read().rstrip("\n")
    lines = sum(1 for _ in open(log, "rb"))
    tmp = tempfile.mkdtemp(prefix="lockspan-badlines.")
    try:
        r = run(ls, tmp, "ingest", "--prefix", WRONG, log)
        check(r.returncode == 3, f"wrong prefix: ingest exits 3 (got {r.returncode})")
        check(f"of {lines} lines" in r.stderr and "--max-bad-lines 10%" in r.stderr
              and "--prefix" in r.stderr, "wrong prefix: says how many and why: " + r.stderr[-400:])
        bad = int(r.stderr.split(" unparsable lines")[0].rsplit(" ", 1)[1])
        check(bad > lines // 2, f"wrong prefix: most lines unparsable ({bad} of {lines})")

        r = run(ls, tmp, "analyze", "--prefix", WRONG, log)
        check(r.returncode == 3, f"wrong prefix: analyze exits 3 (got {r.returncode})")
        check(not os.path.exists(os.path.join(tmp, "r.md")), "wrong prefix: no report written")

        r = run(ls, tmp, "ingest", "-q", "--prefix", WRONG, log)
        check(r.returncode == 3 and "could not be parsed" in r.stderr,
              "wrong prefix: said even with -q: " + r.stderr[-300:])

        r = run(ls, tmp, "ingest", "--max-bad-lines", "100%", "--prefix", WRONG, log)
        check(r.returncode == 0, f"--max-bad-lines 100%: exit 0 (got {r.returncode})")
        r = run(ls, tmp, "ingest", "--max-bad-lines", str(bad), "--prefix", WRONG, log)
        check(r.returncode == 0, f"--max-bad-lines {bad}: exit 0 (got {r.returncode})")
        r = run(ls, tmp, "ingest", "--max-bad-lines", str(bad - 1), "--prefix", WRONG, log)
        check(r.returncode == 3, f"--max-bad-lines {bad - 1}: exit 3 (got {r.returncode})")

        r = run(ls, tmp, "ingest", "--prefix", true, log)
        check(r.returncode == 0 and " 0 unparsable lines" in r.stderr,
              f"right prefix: exit 0 (got {r.returncode}): " + r.stderr[-300:])

        for v in ("150%", "x", "-1"):
            r = run(ls, tmp, "ingest", "--max-bad-lines", v, log)
            check(r.returncode == 2, f"--max-bad-lines {v}: usage error (got {r.returncode})")
    finally:
        shutil.rmtree(tmp)
    return report()


if __name__ == "__main__":
    sys.exit(main())
