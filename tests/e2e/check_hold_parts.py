#!/usr/bin/env python3
"""hold_parts' SQL, COMMIT and idle parts of every hold others waited for
are what the holder's statements say (issue 38, branch cp38: the code
paths pass finds a hold's statements by one sweep of the waited holds'
stmt_id ranges, src/correlate/holdparts.c). Recomputed here from the
store by the definition, in Python, over samples/busy-row (a real
bench/pgbench_log.sh run, samples/README.md) cut to its first CUT lines,
and samples/basic:

  a hold's statements: its transaction's session's rows with stmt_id from
  first_stmt to last_stmt and an end; each counts
  max(0, min(hold end, its end) - max(hold start, its start - bind - parse))
  to 'commit' when its text, blanks off and in capitals, begins COMMIT,
  END, ROLLBACK or ABORT, else to 'sql'; 'idle' is the hold's length less
  every other part, at least 0, when its transaction has durations.

Usage: check_hold_parts.py LOCKSPAN PROJECT_DIR
Prints one FAIL line per wrong fact, then "N passed, N failed".
"""
import lzma
import os
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

CUT = 25000          # lines of busy-row read
TOLERANCE_MS = 1e-6  # float sums in another order
END_WORDS = ("COMMIT", "END", "ROLLBACK", "ABORT")


def expected(con):
    """{(hold_id, part): ms} by the definition above, and the holds."""
    out = {}
    holds = con.execute(
        "SELECT h.hold_id, h.start_ts, h.end_ts, t.session_id, t.first_stmt, t.last_stmt,"
        " t.sql_ms IS NOT NULL FROM holds h JOIN transactions t ON t.tx_id = h.tx_id"
        " WHERE h.waits > 0").fetchall()
    for hid, hs, he, sid, first, last, durations in holds:
        if first is None or last is None:
            continue
        rows = con.execute(
            "SELECT start_ts, end_ts, bind_ms, parse_ms, text FROM statements"
            " WHERE session_id = ? AND stmt_id BETWEEN ? AND ? AND end_ts IS NOT NULL",
            (sid, first, last)).fetchall()
        for ss, se, bind, parse, text in rows:
            start = ss - (bind or 0) * 1000 - (parse or 0) * 1000
            v = max(0, min(he, se) - max(hs, start))
            word = (text or "").lstrip(" ").upper()
            part = "commit" if word.startswith(END_WORDS) else "sql"
            out[(hid, part)] = out.get((hid, part), 0) + v / 1000.0
    spans = {}
    for hid, ms in con.execute("SELECT hold_id, sum(ms) FROM hold_parts WHERE part = 'span'"
                               " GROUP BY hold_id"):
        spans[hid] = ms
    for hid, hs, he, sid, first, last, durations in holds:
        if not durations:
            continue
        other = spans.get(hid, 0) + sum(v for (h, _), v in out.items() if h == hid)
        out[(hid, "idle")] = max(0, (he - hs) / 1000.0 - other)
    return out, len(holds)


def one(lockspan, name, log, prefix, tmp):
    db = os.path.join(tmp, name + ".db")
    args = [lockspan, "analyze", "-q", "--db", db, "-o", os.path.join(tmp, name + ".json")]
    if prefix:
        args += ["--prefix", prefix]
    p = subprocess.run(args + [log], capture_output=True, text=True)
    check(p.returncode == 0, f"{name}: analyze exit {p.returncode}: {p.stderr[-300:]}")
    if p.returncode != 0:
        return
    con = sqlite3.connect(db)
    want, nholds = expected(con)
    got = {(h, part): ms for h, part, ms in
           con.execute("SELECT hold_id, part, ms FROM hold_parts WHERE part <> 'span'")}
    con.close()
    commits = sum(1 for (_, part) in want if part == "commit")
    print(f"{name}: {nholds} holds waited for, {len(want)} parts ({commits} COMMIT)")
    check(nholds > 0 and commits > 0, f"{name}: holds waited for with a COMMIT part")
    check(set(got) == set(want),
          f"{name}: parts stored but not expected {sorted(set(got) - set(want))[:5]},"
          f" expected but not stored {sorted(set(want) - set(got))[:5]}")
    bad = [(k, got[k], want[k]) for k in set(got) & set(want)
           if abs(got[k] - want[k]) > TOLERANCE_MS]
    check(not bad, f"{name}: {len(bad)} parts differ, e.g. {sorted(bad)[:3]}")


def main():
    lockspan, root = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        d = os.path.join(root, "samples", "busy-row")
        lines = lzma.open(os.path.join(d, "postgresql.log.xz"), "rt", encoding="utf-8",
                          newline="").readlines()[:CUT]
        log = os.path.join(tmp, "busy.log")
        with open(log, "w", encoding="utf-8", newline="") as f:
            f.writelines(lines)
        one(lockspan, "busy-row", log, open(os.path.join(d, "prefix.txt")).read(), tmp)
        d = os.path.join(root, "samples", "basic")
        one(lockspan, "basic", os.path.join(d, "postgresql.log"),
            open(os.path.join(d, "prefix.txt")).read(), tmp)
    return report()


if __name__ == "__main__":
    sys.exit(main())
