#!/usr/bin/env python3
"""Holds of one row never overlap (issue 34, item 4, and "no phantom hold,
no hold paired twice"): in the store that `lockspan analyze` writes for a
sample, no two exclusive holds of one logical row share time in their
certain parts, and no transaction has two holds of one row.

A row lock is held by one transaction at a time, unless both hold it in a
shared mode: a hold whose locking statement says FOR SHARE or FOR KEY
SHARE (the statements of the store) may overlap any other (FOR KEY SHARE
does not conflict with an UPDATE that leaves the key alone), so only pairs
of two exclusive holds are asserted. A hold's certain part is from its
latest possible start to its earliest possible end: the holds view's
start_hi .. end_lo, or on a whole-second log the bounds where the hold
truly lay (hold_range's start_hi .. end_lo, decide/holdrange.c). A hold
that ends with its transaction's last statement, logged with its
duration (a COMMIT), was certainly held only until that statement began:
PostgreSQL lets the row go inside the COMMIT, after the WAL flush and
before the duration line is written (samples/pgbench-shapes: pid 15910's
END of 2.153 ms logged at 14:20:34.840, pid 15903's UPDATE on the row
ended at .838). Two certain parts may share the log's precision: a
millisecond (the stamps of two lines written in the same millisecond do
not order them); on a whole-second log the bounds already hold the
stamps' second, so nothing.

Runs: by default (ctest) a representative subset of the cases of
tools/compare_reports.sh, each sample set as a directory and in whole
seconds (default_cases(): 96 of 698); `--all` every case (about 35 s of
CPU, several minutes on a loaded machine); `--case NAME...` the cases
named. An analyze that fails is counted as a failure, but for the cases
compare_reports.sh knows to fail (SKIP).

Known wrong answers are listed in XFAIL (case -> reason), printed and not
counted; a case there that now holds is printed XPASS (move it out).

Usage: check_hold_overlaps.py LOCKSPAN [SAMPLES_DIR] [--all] [--case NAME...]
"""
import gzip
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

MS_US = 1000  # a millisecond log's precision, in store units (us)

# Cases that analyze refuses (compare_reports.sh's known "failed"): name -> why.
# None since compare_reports.sh reads samples/pg17 and pg18 language by
# language (pg17.de-dir, ...) rather than as one folder (pg17-dir).
SKIP = {}


# Single-format cases kept in the default run beside the sets' -dir
# cases: the ones the sweep of issue 34 named.
NAMED = {"app-seconds-csv", "realistic-csv", "blind-pool-json", "blind-pool-log"}


def translated(case):
    """An i18n, pg17 or pg18 set in another language than C: the same
    scenarios through the server's message catalogs (each release's C
    locale is kept)."""
    for where in ("i18n", "pg17", "pg18"):
        where = os.sep + "samples" + os.sep + where + os.sep
        for p in case[2] + [case[3] or ""]:
            i = p.find(where)
            if i >= 0:
                return p[i + len(where):].split(os.sep)[0].split("-")[-1] != "C"
    return False


def default_cases(cases):
    """The default run (ctest): each sample set as a whole directory (its
    richest format, with its traces) and cut to whole seconds (-t), its
    log alone where it has no directory case, the excerpts of real logs
    both ways, and NAMED; not the translated i18n, pg17 and pg18 sets, nor
    the prefixes and timezones logs (the same events in other line
    formats). 96 of the 698 (tools/compare_reports.sh --list), 8 s of CPU,
    39 s on the loaded machine."""
    names = {c[0] for c in cases}
    out = []
    for c in cases:
        n = c[0]
        if translated(c) or n.startswith("prefixes-") or n.startswith("timezones-"):
            continue
        if (n.endswith("-dir") or n.endswith("-t") or n in NAMED
                or any(os.sep + "tests" + os.sep in p for p in c[2] + [c[3] or ""])
                or (n.endswith("-log") and n[:-4] + "-dir" not in names)):
            out.append(c)
    return out


# Known wrong: case -> reason (printed, not counted).
XFAIL = {
    "blind-pool-dir": "the jsonlog with the traces (pgbouncer, threshold logging: no COMMIT"
                      " logged): a hold ends at its request's COMMIT span's end, after the"
                      " server let the row go, and a hold others waited for keeps no earlier"
                      " end (end_lo, the span's start); holds of transactions known from"
                      " spans only (no session) overlap logged ones by up to 118 ms",
}

HOLDS_SQL = """
SELECT h.hold_id, h.row_id, h.tx_id, h.pid,
       coalesce(r.start_hi, h.start_hi),
       coalesce(r.end_lo, CASE WHEN c.end_ts IS NOT NULL AND c.end_ts = h.end_lo
                               THEN c.start_ts ELSE h.end_lo END),
       s.text
  FROM holds h LEFT JOIN hold_range r ON r.hold_id = h.hold_id
  LEFT JOIN statements s ON s.stmt_id = h.lock_stmt
  LEFT JOIN transactions t ON t.tx_id = h.tx_id
  LEFT JOIN statements c ON c.stmt_id = t.last_stmt
 WHERE h.end_ts IS NOT NULL
"""
TWICE_SQL = """
SELECT tx_id, row_id, count(*) FROM holds WHERE tx_id IS NOT NULL
 GROUP BY tx_id, row_id HAVING count(*) > 1
"""
ROW_SQL = "SELECT relation || ' ' || row_key FROM rows WHERE row_id = ?"
WHOLE_SECONDS_SQL = "SELECT EXISTS (SELECT 1 FROM hold_range)"

SHARED = re.compile(r"\bFOR\s+(KEY\s+)?SHARE\b", re.I)


def whole_seconds(src, dst):
    """A copy of a %m log with whole-second times (compare_reports.sh)."""
    op = gzip.open if src.endswith(".gz") else open
    with op(src, "rt", encoding="utf-8", errors="surrogateescape") as f, \
            open(dst, "w", encoding="utf-8", errors="surrogateescape") as g:
        for line in f:
            g.write(re.sub(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\.\d{3}", r"\1", line))


def all_cases(samples):
    """The cases of tools/compare_reports.sh (its --list, the one list):
    (name, prefix or None, inputs, whole-second copy of) tuples, paths
    under the checkout that holds `samples`; a whole-second input is
    written by whole_seconds() from the %m log `cut`, before the others."""
    root = os.path.abspath(os.path.join(samples, ".."))
    r = subprocess.run(["bash", os.path.join(root, "tools", "compare_reports.sh"), "--list"],
                       capture_output=True, text=True, check=True)
    out = []
    for line in r.stdout.splitlines():
        name, prefix, *inputs = line.split("\t")
        cut = [p[2:] for p in inputs if p.startswith("t:")]
        out.append((name, None if prefix == "-" else prefix,
                    [os.path.join(root, p) for p in inputs if not p.startswith("t:")],
                    os.path.join(root, cut[0]) if cut else None))
    return out


def analyze(lockspan, tmp, case):
    name, prefix, inputs, cut = case
    if cut:
        inputs = [os.path.join(tmp, name + ".log")] + inputs
        whole_seconds(cut, inputs[0])
    db = os.path.join(tmp, name + ".db")
    cmd = [lockspan, "analyze", "-q", "--db", db, "--format", "json",
           "-o", os.path.join(tmp, name + ".json")]
    if prefix:
        cmd += ["--prefix", prefix]
    r = subprocess.run(cmd + inputs, capture_output=True, text=True)
    if r.returncode != 0:
        print("%s: analyze exited %d: %s" % (name, r.returncode, r.stderr.strip()[:300]))
        return None
    return db


def overlaps(holds, tol):
    """The pairs of exclusive holds of one row whose certain parts share
    more than tol: (row_id, a, b, us) with a, b (hold_id, tx_id, pid)."""
    rows = {}
    for hold_id, row_id, tx_id, pid, cs, ce, text in holds:
        if cs is None or ce is None or ce <= cs or (text and SHARED.search(text)):
            continue
        rows.setdefault(row_id, []).append((cs, ce, hold_id, tx_id, pid))
    out = []
    for row_id, hs in rows.items():
        hs.sort()
        active = []
        for h in hs:
            active = [a for a in active if a[1] - h[0] > tol]
            for a in active:
                us = min(a[1], h[1]) - h[0]
                if us > tol:
                    out.append((row_id, a[2:], h[2:], us))
            active.append(h)
    return out


def check_case(lockspan, tmp, case):
    """Checks one case; returns (passed, message) without counting."""
    name = case[0]
    db = analyze(lockspan, tmp, case)
    if db is None:
        return [(False, "%s: analyze exits 0" % name)]
    con = sqlite3.connect(db)
    con.text_factory = lambda b: b.decode("utf-8", "replace")  # samples/hostile
    whole = con.execute(WHOLE_SECONDS_SQL).fetchone()[0]
    holds = con.execute(HOLDS_SQL).fetchall()
    twice = con.execute(TWICE_SQL).fetchall()
    bad = overlaps(holds, 0 if whole else MS_US)
    res = [(not twice, "%s: no transaction with two holds of one row (tx, row, holds: %s)"
            % (name, twice[:3]))]
    shown = []
    for row_id, a, b, us in bad[:4]:
        shown.append("%s: holds %d (tx %d, pid %s) and %d (tx %d, pid %s) share %.1f ms" % (
            con.execute(ROW_SQL, (row_id,)).fetchone()[0], a[0], a[1], a[2], b[0], b[1], b[2],
            us / 1000.0))
    res.append((not bad, "%s: %d holds (%s), %d pairs of exclusive holds of one row overlap in"
                " their certain parts%s" % (name, len(holds), "whole seconds" if whole else
                                            "ms", len(bad), "".join("\n    " + s for s in shown))))
    con.close()
    os.unlink(db)
    return res


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not args:
        sys.exit("usage: check_hold_overlaps.py LOCKSPAN [SAMPLES_DIR] [--all] [--case NAME...]")
    lockspan = os.path.abspath(args[0])
    samples = args[1] if len(args) > 1 and os.path.isdir(args[1]) else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples")
    cases = all_cases(samples)
    if "--case" in sys.argv:
        want = set(sys.argv[sys.argv.index("--case") + 1:])
        cases = [c for c in cases if c[0] in want]
    elif "--all" not in sys.argv:
        cases = default_cases(cases)
    skipped = [c[0] for c in cases if c[0] in SKIP]
    cases = [c for c in cases if c[0] not in SKIP]
    xfail = xpass = 0
    with tempfile.TemporaryDirectory(prefix="check_hold_overlaps.") as tmp:
        for case in cases:
            res = check_case(lockspan, tmp, case)
            ok = all(r[0] for r in res)
            if case[0] in XFAIL:
                if ok:
                    xpass += 1
                    print("XPASS %s (now right: remove it from XFAIL)" % case[0])
                else:
                    xfail += 1
                    for r in res:
                        if not r[0]:
                            print("XFAIL %s\n    (%s)" % (r[1], XFAIL[case[0]]))
                continue
            for r in res:
                check(*r)
                if r[0]:
                    print("ok    " + r[1])
    for name in skipped:
        print("SKIP  %s: %s" % (name, SKIP[name]))
    print("%d cases; %d known wrong (XFAIL, not counted), %d XPASS" % (len(cases), xfail, xpass))
    sys.exit(report())


if __name__ == "__main__":
    main()
