#!/usr/bin/env python3
"""Deadlock participants' holds (issue 34 item 5), against a real server's
truth (samples/deadlock-holds and samples/deadlock-holds-stmtall, made by
samples/scenarios_deadlock.py). Two code paths deadlock round after round;
the survivor's wait for the victim's row stays below deadlock_timeout, so
only the deadlock's DETAIL says that row was held and waited for.

Per code path, on the hot rows the truth names (accounts id=1..4): the
hold count equals the truth's and the total hold time is within
max(25 ms, 5 %) of it; every hold of the truth is matched by exactly one
hold of lockspan (same session and row, start and end within the
tolerance) and no hold of lockspan is matched twice or left unmatched; a
deadlock victim's holds end at its error (PostgreSQL aborts the
transaction and releases its locks there, not at the ROLLBACK); and the
statement that failed with 40P01 acquired nothing on the row it failed
on.

Usage: check_deadlock_holds.py LOCKSPAN SAMPLE_DIR [LOG_FILE]
LOG_FILE: postgresql.log (default, read with prefix.txt) or postgresql.csv.
"""
import datetime
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

TOL_MS = 25.0      # max(25 ms, 5 %): the tolerance
TOL_FRAC = 0.05


def us(s):
    t = datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))
    return int(round(t.timestamp() * 1_000_000))


def tol_us(ms):
    return max(TOL_MS, TOL_FRAC * ms) * 1000


def main():
    lockspan, sample = sys.argv[1], sys.argv[2]
    log = sys.argv[3] if len(sys.argv) > 3 else "postgresql.log"
    truth = json.load(open(os.path.join(sample, "truth.json")))
    prefix = open(os.path.join(sample, "prefix.txt")).read().rstrip("\n")
    hot = set(truth["hot_rows"])
    with tempfile.TemporaryDirectory() as tmp:
        db_path = os.path.join(tmp, "s.db")
        cmd = [lockspan, "analyze", "-q", "--db", db_path, "--format", "json",
               "-o", os.path.join(tmp, "r.json")]
        if log.endswith(".log"):
            cmd += ["--prefix", prefix]
        subprocess.run(cmd + [os.path.join(sample, log)], check=True)
        db = sqlite3.connect(db_path)
        got = db.execute(
            "SELECT h.hold_id, s.pg_session, s.application, r.relation || ' ' || r.row_key,"
            " h.start_ts, h.end_ts FROM holds h JOIN sessions s ON s.session_id = h.session_id"
            " JOIN rows r ON r.row_id = h.row_id").fetchall()
        got = [g for g in got if g[3] in hot]

        want = [h for h in truth["holds"] if f"{h['relation']} {h['row_key']}" in hot]
        check(len(truth["failed"]) >= 4, f"the sample has deadlocks ({len(truth['failed'])})")

        # Per code path: count and total time.
        for path, t in sorted(truth["per_code_path"].items()):
            mine = [g for g in got if g[2] == path]
            n = len(mine)
            total = sum((g[5] - g[4]) for g in mine if g[5] is not None) / 1000.0
            check(n == t["holds"], f"{log} {path}: {n} holds of the hot rows, truth {t['holds']}")
            check(abs(total - t["hold_ms"]) <= tol_us(t["hold_ms"]) / 1000,
                  f"{log} {path}: total hold {total:.1f} ms, truth {t['hold_ms']:.1f} ms")

        # One to one: each true hold by one hold of lockspan, none twice.
        used = {}
        for h in want:
            key = f"{h['relation']} {h['row_key']}"
            s0, s1 = us(h["start"]), us(h["end"])
            tol = tol_us(h["ms"])
            match = [g for g in got if g[1] == h["session_id"] and g[3] == key
                     and g[5] is not None and abs(g[4] - s0) <= tol and abs(g[5] - s1) <= tol]
            tag = f"{log} {h['code_path']} {key} {h['start']} ({h['ms']} ms, {h['ended_by']})"
            if len(match) == 1:
                check(True, tag)
                used[match[0][0]] = used.get(match[0][0], 0) + 1
            else:
                near = [(g[0], g[4] - s0, (g[5] or 0) - s1) for g in got
                        if g[1] == h["session_id"] and g[3] == key
                        and g[4] < s1 + 1_000_000 and (g[5] or 0) > s0 - 1_000_000]
                check(False, f"{tag}: {len(match)} holds match (near: hold, start/end off us {near})")
        twice = [k for k, v in used.items() if v > 1]
        check(twice == [], f"{log}: no hold paired twice ({twice})")
        extra = [g for g in got if g[0] not in used]
        check(extra == [], f"{log}: no hold beyond the truth's ({extra})")

        # No phantom: the statement that failed with 40P01 took nothing on
        # its row (no hold of that session on the row starting within it).
        for f in truth["failed"]:
            key = f"{f['relation']} {f['row_key']}"
            ph = [g for g in got if g[1] == f["session_id"] and g[3] == key
                  and us(f["tx_start"]) - 80_000 <= g[4] <= us(f["tx_end"]) + 80_000]
            check(ph == [], f"{log} {f['code_path']} {key} at {f['statement_start']}:"
                            f" no hold of the failed statement's row ({ph})")
    return report()


if __name__ == "__main__":
    sys.exit(main())
