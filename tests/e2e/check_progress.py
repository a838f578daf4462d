#!/usr/bin/env python3
"""Progress notes on stderr: shown for every step (ingest with bytes and
lines, each correlation pass, building the report) when stderr is a
terminal (a pty here) or with --progress; absent otherwise; -q leaves
stderr empty on success. Byte and line counts are checked against the file
as the test reads it, the passes against the ones LOCKSPAN_TIMING times, and
updates are rate-limited (at most 4 a second on a terminal).

Usage: check_progress.py LOCKSPAN SAMPLE_DIR
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from lscheck import check, report, run_pty


def run(*args, env=None):
    return subprocess.run(list(args), capture_output=True, text=True, env=env)



def main():
    ls, sample = sys.argv[1], sys.argv[2]
    log = os.path.join(sample, "postgresql.log")
    prefix = open(os.path.join(sample, "prefix.txt")).read().rstrip("\n")
    tmp = tempfile.mkdtemp(prefix="lockspan-progress.")
    try:
        data = open(log, "rb").read()
        nlines = data.count(b"\n")
        size_kb = len(data) // 1000
        out = os.path.join(tmp, "r.md")
        base = ["analyze", "--prefix", prefix, "-o", out]

        # Not a terminal, no --progress: no progress notes.
        r = run(ls, *base, log)
        check(r.returncode == 0, f"analyze: {r.stderr}")
        check(not re.search(r"ingest .*lines|correlate \d+/\d+|report: building", r.stderr),
              "no progress when stderr is not a terminal")

        # --progress into a pipe: a line per step.
        env = dict(os.environ, LOCKSPAN_TIMING="1")
        r = run(ls, *base, "--progress", log, env=env)
        check(r.returncode == 0, f"analyze --progress: {r.stderr}")
        m = re.findall(r"ingest \S+postgresql\.log: 100%, (\d+) kB of (\d+) kB, (\d+) lines\n",
                       r.stderr)
        check(m == [(str(size_kb), str(size_kb), str(nlines))],
              f"ingest note: {len(data)} bytes, {nlines} lines: {m}")
        passes = re.findall(r"correlate \d+/(\d+): (.+)\n", r.stderr)
        timed = re.findall(r"correlate-cpu: (.+?)\s+[\d.]+ s\n", r.stderr)
        check(len(passes) == len(timed) > 0 and all(int(n) == len(timed) for n, _ in passes)
              and [p for _, p in passes] == timed,
              f"a note per correlation pass: {passes} vs timed {timed}")
        check("report: building" in r.stderr, "a note for building the report")
        check("\r" not in r.stderr and "\033" not in r.stderr,
              "no terminal controls when stderr is not a terminal")

        # -q wins: nothing on stderr at all on success.
        r = run(ls, *base, "-q", "--progress", log)
        check(r.returncode == 0 and r.stderr == "", f"-q --progress: stderr {r.stderr!r}")

        # A terminal: progress without asking, one line rewritten in place.
        rc, err, _ = run_pty(ls, *base, log)
        check(rc == 0, f"analyze on a pty: {err}")
        check(re.search(r"\rlockspan: ingest \S+: 100%", err) and
              re.search(r"\rlockspan: correlate 1/\d+", err) and "report: building" in err,
              "progress on a terminal")

        # Rate: a 300-copy log read at full speed gives a few updates a second,
        # not one per 4096 lines.
        big = os.path.join(tmp, "big.log")
        with open(big, "wb") as f:
            for _ in range(300):
                f.write(data)
        rc, err, secs = run_pty(ls, "ingest", "--db", os.path.join(tmp, "big.db"),
                                "--prefix", prefix, big)
        updates = len(re.findall(r"ingest \S+big\.log: ", err))
        check(rc == 0 and re.search(rf"100%.*, {300 * nlines} lines", err),
              f"big ingest on a pty: {err[-300:]!r}")
        check(1 <= updates <= 2 + 4 * secs,
              f"{updates} updates in {secs:.2f} s (at most 4 a second, {300 * nlines // 4096} "
              "checks)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report()


if __name__ == "__main__":
    sys.exit(main())
