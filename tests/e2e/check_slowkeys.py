#!/usr/bin/env python3
"""Rows a threshold log shows only by their slow lockers (issue 34,
src/correlate/slowkeys.c, decide/slowkey.c): on a log whose statements
are logged only past log_min_duration_statement, a key many slow locking
statements named, and its relation's other keys far fewer, is a row
(evidence "slow locking statements on one key (threshold log)"), its
waiting said as bounds (hot_rows[].wait_bounds), never as a time.

For real logs of samples/ (made by the scripts beside them against a real
PostgreSQL server):
  - samples/hidden logs every statement with its duration (no wait
    logged): the rule does not fire there (the quiet rows are made);
  - its copies as log_min_duration_statement = 20 and 100 ms and
    log_lock_waits = off would have written them (each "duration: N ms"
    entry under the threshold and each "still waiting"/"acquired" entry
    dropped, with its DETAIL/CONTEXT/STATEMENT/HINT lines: no row is made
    from a wait then) make rows by the rule,
    each a row of the sample's truth, and the report lists each with its
    bounds (none at 08d73b5: no row at all there);
  - samples/correlation and busy-row, copied so at 20 and 100 ms: every row the
    rule makes is one a truth wait was for (busy-row has no truth: a hot
    row of its whole log), no false rows;
  - samples/blind-pool's jsonlog (log_min_duration_statement = 50):
    likewise;
  - samples/blind-rb (100 ms): exactly warehouses id=1.

Usage: check_slowkeys.py LOCKSPAN SAMPLES_DIR
"""
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

from check_quiet_seconds import WAIT, read, truth_rows
from lscheck import check, report

SLOW = "slow locking statements on one key (threshold log)"
LEVEL = re.compile(r"(LOG|ERROR|FATAL|WARNING|PANIC):  ")
ENTRY = re.compile(r"(LOG|ERROR|FATAL|WARNING|PANIC|STATEMENT|DETAIL|CONTEXT|HINT):  ")
DURATION = re.compile(r"LOG:  duration: ([0-9.]+) ms  ")


def threshold_copy(src, dst, ms):
    """src as log_min_duration_statement = ms and log_lock_waits = off
    would have written it."""
    skip = False
    with read(src) as f, open(dst, "w", encoding="utf-8", errors="surrogateescape") as out:
        for line in f:
            if ENTRY.search(line) and LEVEL.search(line):
                d = DURATION.search(line)
                skip = bool(d and float(d.group(1)) < ms) or bool(WAIT.search(line))
            if not skip:
                out.write(line)


def analyse(lockspan, tmp, tag, log, prefix=None):
    db = os.path.join(tmp, tag + ".db")
    js = os.path.join(tmp, tag + ".json")
    cmd = [lockspan, "analyze", "-q", "--db", db, "--format", "json", "-o", js, log]
    if prefix:
        cmd[2:2] = ["--prefix", prefix]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    con = sqlite3.connect(db)
    slow = {(r, k) for r, k in con.execute(
        "SELECT relation, row_key FROM row_keys WHERE evidence = ?", (SLOW,))}
    con.close()
    with open(js) as f:
        rep = json.load(f)
    return slow, rep


def listed_with_bounds(rep, slow):
    """Each slow row is a hot row whose figures are said to be bounds."""
    hot = {(h["relation"], h["row_key"]): h for h in rep["hot_rows"]}
    return all(k in hot and hot[k]["waits"] == 0 and hot[k]["grouped_by"] == SLOW
               and (hot[k].get("wait_bounds") or {}).get("total_wait_ms") == "at_least"
               for k in slow)


def main():
    lockspan, samples = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        d = os.path.join(samples, "hidden")
        with open(os.path.join(d, "prefix.txt")) as f:
            prefix = f.read().rstrip("\n")
        tr = truth_rows(os.path.join(d, "truth.json"))
        slow, _ = analyse(lockspan, tmp, "hidden", os.path.join(d, "postgresql.log"), prefix)
        print("hidden (every statement): %d slow-locker rows" % len(slow))
        check(not slow, "hidden: slow-locker rows on a log of every statement: %s" % sorted(slow))
        for ms in (20, 100):
            log = os.path.join(tmp, "hidden-%d.log" % ms)
            threshold_copy(os.path.join(d, "postgresql.log"), log, ms)
            slow, rep = analyse(lockspan, tmp, "hidden-%d" % ms, log, prefix)
            print("hidden at %d ms: verdict %s, slow-locker rows %s"
                  % (ms, rep["input"]["logging"]["verdict"], sorted(slow)))
            check(rep["input"]["logging"]["verdict"] == "threshold",
                  "hidden at %d ms: not judged a threshold log" % ms)
            check(slow and all(k in tr for k in slow),
                  "hidden at %d ms: slow-locker rows %s, truth rows %s" % (ms, sorted(slow), sorted(tr)))
            check(listed_with_bounds(rep, slow),
                  "hidden at %d ms: a slow-locker row not listed with its bounds" % ms)
        for name, logname in (("correlation", "postgresql.log"), ("busy-row", "postgresql.log.xz")):
            d = os.path.join(samples, name)
            with open(os.path.join(d, "prefix.txt")) as f:
                prefix = f.read().rstrip("\n")
            truth = os.path.join(d, "truth.json")
            if os.path.exists(truth):
                tr = truth_rows(truth)
            else:  # busy-row has none: the rows its whole log makes (waits, quiet)
                _, rep = analyse(lockspan, tmp, name, os.path.join(d, logname), prefix)
                tr = {(h["relation"], h["row_key"]) for h in rep["hot_rows"]}
            for ms in (20, 100):
                log = os.path.join(tmp, "%s-%d.log" % (name, ms))
                threshold_copy(os.path.join(d, logname), log, ms)
                slow, rep = analyse(lockspan, tmp, "%s-%d" % (name, ms), log, prefix)
                print("%s at %d ms: verdict %s, slow-locker rows %s"
                      % (name, ms, rep["input"]["logging"]["verdict"], sorted(slow)))
                check(all(k in tr for k in slow),
                      "%s at %d ms: slow-locker rows no truth wait was for: %s"
                      % (name, ms, sorted(k for k in slow if k not in tr)))
        d = os.path.join(samples, "blind-pool")
        with open(os.path.join(d, "truth.json")) as f:
            pool = {tuple(k.split(":", 1)) for k in json.load(f)["hot_rows"]}
        pool = {(r, "id=" + k) for r, k in pool}
        slow, rep = analyse(lockspan, tmp, "blind-pool", os.path.join(d, "postgresql.json"))
        print("blind-pool json: verdict %s, slow-locker rows %s"
              % (rep["input"]["logging"]["verdict"], sorted(slow)))
        check(all(k in pool for k in slow),
              "blind-pool: slow-locker rows not truth hot rows: %s"
              % sorted(k for k in slow if k not in pool))
        d = os.path.join(samples, "blind-rb")
        slow, rep = analyse(lockspan, tmp, "blind-rb", os.path.join(d, "postgresql.log"))
        print("blind-rb: slow-locker rows %s" % sorted(slow))
        check(slow == {("warehouses", "id=1")}, "blind-rb: slow-locker rows %s" % sorted(slow))
        check(listed_with_bounds(rep, slow), "blind-rb: warehouses id=1 not listed with its bounds")
    return report()


if __name__ == "__main__":
    sys.exit(main())
