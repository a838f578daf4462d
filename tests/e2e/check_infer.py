#!/usr/bin/env python3
"""log_line_prefix inference end to end: analyzing samples/basic without
--prefix says what it inferred and gives the same report as with the true
prefix; every samples/prefixes and samples/timezones log is read without
--prefix, with the server's own log_line_prefix inferred, no unparsable line
and the same report as with its true prefix; a log whose prefix changes in
mid-file is read whole with both prefixes inferred; a file whose prefix cannot be inferred fails with exit 1 and a
message that asks for --prefix and shows a line.

Usage: check_infer.py LOCKSPAN SAMPLES_DIR
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

from lscheck import check, report


def analyze(ls, tmp, log, prefix=None, extra=()):
    db = os.path.join(tmp, "a.db")
    out = os.path.join(tmp, "r.json")
    for f in (db, out):
        if os.path.exists(f):
            os.remove(f)
    args = [ls, "analyze", "--db", db, "--format", "json", "-o", out] + list(extra)
    if prefix is not None:
        args += ["--prefix", prefix]
    logs = [log] if isinstance(log, str) else list(log)
    r = subprocess.run(args + logs, capture_output=True, text=True,
                       env=dict(os.environ, TZ="UTC"))
    rep = open(out).read() if r.returncode == 0 and os.path.exists(out) else None
    return r, rep


def main():
    ls, samples = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="lockspan-infer.")
    try:
        basic = os.path.join(samples, "basic")
        prefix = open(os.path.join(basic, "prefix.txt")).read().rstrip("\n")
        log = os.path.join(basic, "postgresql.log")
        r_with, rep_with = analyze(ls, tmp, log, prefix)
        r_without, rep_without = analyze(ls, tmp, log)
        check(r_with.returncode == 0 and r_without.returncode == 0, "basic: both runs succeed")
        check(f"inferred log_line_prefix '{prefix}'" in r_without.stderr,
              "basic: the inferred prefix is named: " + r_without.stderr[:300])
        check(rep_with is not None and rep_with == rep_without,
              "basic: same report with and without --prefix")

        logs = sorted(glob.glob(os.path.join(samples, "prefixes", "*.log")) +
                      glob.glob(os.path.join(samples, "timezones", "*.log")))
        check(len(logs) >= 15, "real prefix logs present")
        for log in logs:
            true = open(log[:-4] + ".prefix").read()
            r1, rep1 = analyze(ls, tmp, log, true)
            r2, rep2 = analyze(ls, tmp, log)
            name = os.path.relpath(log, samples)
            check(r2.returncode == 0 and f"inferred log_line_prefix '{true}'" in r2.stderr,
                  f"{name}: inferred the server's prefix '{true}': {r2.stderr[:300]}")
            check(" 0 unparsable lines" in r2.stderr, f"{name}: no unparsable line: "
                  + r2.stderr[:300])
            check(rep1 is not None and rep1 == rep2, f"{name}: same report as with --prefix")

        # A syslog log whose prefix has no %m or %p: the header carries them.
        for name in ("syslog", "syslog-noprefix"):
            true = open(os.path.join(samples, name, "prefix.txt")).read()
            r, _ = analyze(ls, tmp, os.path.join(samples, name, "postgresql.syslog"))
            check(r.returncode == 0 and f"inferred log_line_prefix '{true}'" in r.stderr
                  and " 0 unparsable lines" in r.stderr,
                  f"{name}: inferred the server's prefix '{true}': {r.stderr[:300]}")

        # The prefix changes by reload in mid-file (samples/prefix-change):
        # both prefixes are inferred and every line is read.
        change = os.path.join(samples, "prefix-change", "1.log")
        first, second = open(change[:-4] + ".prefixes").read().split("\n")[:2]
        r, _ = analyze(ls, tmp, change)
        check(r.returncode == 0 and f"inferred log_line_prefix '{first}'" in r.stderr
              and f"inferred log_line_prefix '{second}' (it changed here" in r.stderr,
              "prefix change: both prefixes inferred: " + r.stderr[:600])
        check(" 0 unparsable lines" in r.stderr, "prefix change: no unparsable line: "
              + r.stderr[-300:])
        # The note names the line where the second prefix begins: the first
        # in its form (second prefix: "%t [%p]: [%l-1] ..."), in the file
        # itself also when another file came before it in the same run (the
        # parser counts lines through the run).
        lines = open(change).read().split("\n")
        form2 = [i + 1 for i, t in enumerate(lines) if re.match(r"\S+ \S+ \S+ \[\d+\]: \[", t)]
        note = re.compile(r"1\.log:(\d+): inferred log_line_prefix '" + re.escape(second)
                          + r"' \(it changed here")
        m = note.search(r.stderr)
        check(m is not None and form2 and int(m.group(1)) == form2[0],
              f"prefix change: the note names line {form2[:1]} of 1.log: " + r.stderr[:600])
        other = os.path.join(samples, "basic", "postgresql.log")
        r, _ = analyze(ls, tmp, [other, change], extra=["-j", "1"])
        m = note.search(r.stderr)
        check(r.returncode == 0 and m is not None and form2 and int(m.group(1)) == form2[0],
              f"prefix change after another file (-j 1): the note names line {form2[:1]} "
              "of 1.log: " + r.stderr[:900])

        bad = os.path.join(tmp, "odd.log")
        with open(bad, "w") as f:
            f.write("abc LOG:  x\n12 xyz 9 ERROR:  y\n[q] (z) LOG:  z\n"
                    "2024-01-02 03:04:05.124 UTC [42] LOG:  b\n1 LOG:  c\nx-y-z LOG:  d\n")
        r, _ = analyze(ls, tmp, bad)
        check(r.returncode == 1, f"unsure: exit 1 (got {r.returncode})")
        check("--prefix" in r.stderr and "abc LOG:  x" in r.stderr and "odd.log" in r.stderr,
              "unsure: message names the file, asks for --prefix, shows a line: " + r.stderr)
    finally:
        shutil.rmtree(tmp)
    return report()


if __name__ == "__main__":
    sys.exit(main())
