#!/usr/bin/env python3
"""Retried or not, on logs of pgbench runs that retry (issue 34, retryrow34).

Usage: check_pgbench_retries.py LOCKSPAN SOURCE_ROOT

The bench workload (bench/pgbench_log.sh) runs pgbench with
--max-tries=10 (the check reads the option from the script): pgbench
retries a deadlock victim (40P01) or a serialization failure (40001) on
the same client, so on the same backend, right after its ROLLBACK, with
the same random values (pgbench restores the script's random state for
each try). samples/busy-row and the excerpts pgbench-hot-hold and
pgbench-tuple-queue are cut from such runs. The truth of each failure is
read from the log's own lines: retried when the pid's next transaction
(the next virtual transaction id of the pid, %v) binds the same first
parameters as the failed one (the same delta, aid, tid: a chance match
of pgbench's random(-5000, 5000) delta is 1 in 10,001); not retried
when it binds others; unknown when the cut ends first.

Each log is checked with its millisecond times and as a whole-second
copy (%t: tools/compare_reports.sh's -t cases), both with --top 1000.

MUST_HOLD:
- an error said retried (true) was retried, on its own pid (retry_pid);
- no error pgbench retried is said not retried (false), except the
  KNOWN_WRONG ones below;
- every error the truth tells is in the report.
KNOWN_WRONG (printed; no failure; "now right" when one holds): none
since retry34n; 24 listed on fd48027, 22 said false on 014e695: pgbench's retry failed
again (40P01) before it reached the failed statement, or the cut ends
while it waits, and a failing run logs no duration line: the session
walk (decide/retry.c ls_retry_walk) found no run of the failed
statement's shape in the next transaction and said false; it now takes
a next transaction that re-runs the failed transaction's first
statement with the same parameters and ends in a ROLLBACK (or the log)
for the retry. On the whole-second copy of busy-row, 16 more: a retry's
UPDATE that waited over a second starts, by its whole-second line less
its duration, before the error's second and was not read (retries.c
after_sql now reads from a resolution before).
Untold (retried null) is allowed, counted and printed: the
row rule (ls_retry_row_untold) says it on the whole-second copies and on
busy-row; it is not wrong, a false there would be.
Exit 1 on any MUST_HOLD failure.
"""
import gzip
import json
import lzma
import os
import re
import subprocess
import sys
import tempfile

PREFIX_MS = "%m [%p] %q%u@%d/%a %c %l %v %x %e "
PREFIX_S = "%t [%p] %q%u@%d/%a %c %l %v %x %e "
LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(\.\d{3})? UTC \[(\d+)\] \S+ \S+ \d+ "
                  r"(\d+/\d+) \d+ (\w{5}) (\w+):  (.*)$")

CASES = [  # (name, log relative to the source root)
    ("busy-row", "samples/busy-row/postgresql.log.xz"),
    ("pgbench-hot-hold", "tests/e2e/excerpts/pgbench-hot-hold.log.gz"),
    ("pgbench-tuple-queue", "tests/e2e/data/pgbench-tuple-queue.log.gz"),
]

# (case, whole-second copy, pid, error line's time in the millisecond
# log): pgbench retried it, the report says false (KNOWN_WRONG above).
KNOWN_WRONG = set()


def read_lines(path):
    opener = lzma.open if path.endswith(".xz") else gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        return f.read().splitlines()


def max_tries(root):
    with open(os.path.join(root, "bench/pgbench_log.sh"), encoding="utf-8") as f:
        m = re.search(r"--max-tries=(\d+)", f.read())
    return int(m.group(1)) if m else 1


def truth(lines):
    """Each 40P01/40001 error in log order: (pid, second, sqlstate, retried
    True/False/None), retried from the pid's next transaction's first
    bound parameters against the failed one's."""
    per_pid = {}  # pid -> [vxid in order], and vxid -> first parameters
    first_params = {}
    errors = []
    for ln in lines:
        m = LINE.match(ln)
        if not m:
            continue
        sec, pid, vxid, state, kind, msg = m.group(1) + (m.group(2) or ""), int(m.group(3)), \
            m.group(4), \
            m.group(5), m.group(6), m.group(7)
        if vxid.endswith("/0"):
            continue  # no transaction: the ROLLBACK, a disconnection
        order = per_pid.setdefault(pid, [])
        if not order or order[-1] != vxid:
            order.append(vxid)
        if kind == "DETAIL" and msg.startswith("parameters:") and (pid, vxid) not in first_params:
            first_params[(pid, vxid)] = msg
        if kind == "ERROR" and state in ("40P01", "40001"):
            errors.append((pid, sec, state, vxid))
    out = []
    for pid, sec, state, vxid in errors:
        order = per_pid[pid]
        i = order.index(vxid)
        nxt = order[i + 1] if i + 1 < len(order) else None
        mine, theirs = first_params.get((pid, vxid)), first_params.get((pid, nxt))
        retried = None if mine is None or theirs is None else mine == theirs
        out.append((pid, sec, state, retried))
    return out


def report(lockspan, prefix, path, tmp, name):
    out = os.path.join(tmp, name + ".json")
    db = os.path.join(tmp, name + ".db")
    subprocess.run([lockspan, "analyze", "-q", "--db", db, "--prefix", prefix, "--format", "json",
                    "--top", "1000", "--generated-at", "2026-12-02T00:00:00Z", "-o", out, path],
                   check=True)
    with open(out, encoding="utf-8") as f:
        return json.load(f)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    lockspan, root = sys.argv[1], sys.argv[2]
    failed = untold = wrong_known = told = 0
    tries = max_tries(root)
    if tries <= 1:
        print("FAIL  bench/pgbench_log.sh no longer retries (--max-tries=%d): truth unknown" % tries)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        for name, rel in CASES:
            lines = read_lines(os.path.join(root, rel))
            facts = truth(lines)
            ms_log = os.path.join(tmp, name + ".log")
            s_log = os.path.join(tmp, name + "-t.log")
            with open(ms_log, "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
            with open(s_log, "w", encoding="utf-8") as f:
                f.write("\n".join(re.sub(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\.\d{3}", r"\1", ln)
                                  for ln in lines) + "\n")
            for whole, prefix, log in ((False, PREFIX_MS, ms_log), (True, PREFIX_S, s_log)):
                case = name + ("-t" if whole else "")
                rep = report(lockspan, prefix, log, tmp, case)
                errs = [e for e in rep["errors"] if e["sqlstate"] in ("40P01", "40001")]
                by_pid = {}
                for e in sorted(errs, key=lambda e: (e["time"], e.get("line") or 0)):
                    by_pid.setdefault(e["pid"], []).append(e)
                seen = {}
                for pid, sec, state, retried in facts:
                    k = seen.get(pid, 0)
                    seen[pid] = k + 1
                    lst = by_pid.get(pid, [])
                    if k >= len(lst):
                        print("FAIL  %s: pid %d's %s at %s not in the report" % (case, pid, state, sec))
                        failed += 1
                        continue
                    e = lst[k]
                    said = e["retried"]
                    where = "%s: pid %d %s at %s" % (case, pid, state, sec)
                    if said is True:
                        told += 1
                        if retried is False or e.get("retry_pid") != pid:
                            print("FAIL  %s said retried (pid %s), truth %s on pid %d"
                                  % (where, e.get("retry_pid"), retried, pid))
                            failed += 1
                    elif said is None:
                        untold += 1
                        print("ok    %s untold (truth: retried %s)" % (where, retried))
                    elif retried is True:
                        if (name, whole, pid, sec) in KNOWN_WRONG:
                            wrong_known += 1
                            print("KNOWN_WRONG  %s said not retried; pgbench retried it" % where)
                        else:
                            print("FAIL  %s said not retried; pgbench retried it (same pid, same "
                                  "parameters, next transaction)" % where)
                            failed += 1
                for kw in KNOWN_WRONG:
                    if kw[0] == name and kw[1] == whole:
                        pid, sec = kw[2], kw[3]
                        hit = [e for e in by_pid.get(pid, [])
                               if e["time"].replace("T", " ")[:19 if whole else 23] == sec[:19 if whole else 23] and e["retried"] is False]
                        if not hit:
                            print("now right  %s: pid %d at %s no longer false: move it out of "
                                  "KNOWN_WRONG" % (case, pid, sec))
    print("%d told retried, %d untold, %d known wrong, %d failures" % (told, untold, wrong_known,
                                                                       failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
