#!/usr/bin/env python3
"""Statements that failed did wait first (issue 34 item 2), against a real
server's truth (samples/hidden-failed, made by samples/hidden.sh failed:
scenarios_hidden_failed.py, log_statement = 'all', deadlock_timeout 1 s).

For every statement the client saw fail after queueing (truth.json
`failed_waits`: 40001 when the holder committed, 55P03 lock_timeout, a
40P01 deadlock victim), the store has exactly one wait of its session on
its row (row_waits):
  - its start and end within max(25 ms, 5 %) of the client's;
  - behind the right transaction (the blocker's pid and xid);
  - ended in the error: no hold of it (hold_id NULL), and its
    transaction's linked error has the truth's SQLSTATE;
  - `logged` only where it outlasted deadlock_timeout (the victims),
    `inferred` (rebuilt, never in the log) otherwise.
The waits that got the row (truth `waits`) are checked the same way,
ended acquired (a hold of theirs), so that the failed ones are told apart.

Usage: check_hidden_failed.py LOCKSPAN SAMPLE_DIR
"""
import datetime
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

TOL_MS = 25.0      # the tolerance: max(25 ms, 5 %)
TOL_FRAC = 0.05


def us(s):
    t = datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))
    return int(round(t.timestamp() * 1_000_000))


def tol_us(w):
    return 1000 * max(TOL_MS, TOL_FRAC * w["ms"])


def main():
    lockspan, sample = sys.argv[1], sys.argv[2]
    truth = json.load(open(os.path.join(sample, "truth.json")))
    prefix = open(os.path.join(sample, "prefix.txt")).read().rstrip("\n")
    with tempfile.TemporaryDirectory() as tmp:
        db_path = os.path.join(tmp, "s.db")
        subprocess.run([lockspan, "analyze", "-q", "--db", db_path, "--format", "json",
                        "--prefix", prefix, "-o", os.path.join(tmp, "r.json"),
                        os.path.join(sample, "postgresql.log")], check=True)
        db = sqlite3.connect(db_path)
        q = lambda sql, *a: db.execute(sql, a).fetchall()

        states = sorted({w["sqlstate"] for w in truth["failed_waits"]})
        check(states == ["40001", "40P01", "55P03"],
              f"the sample has failed statements of every kind ({states})")
        check(any(not w["logged"] for w in truth["failed_waits"]),
              "some failed statements queued below deadlock_timeout")
        for kind, failed in (("failed_waits", True), ("waits", False)):
            for w in truth[kind]:
                t0, t1, tol = us(w["start"]), us(w["end"]), tol_us(w)
                tag = (f"{w['sqlstate'] or 'acquired'} pid {w['pid']} {w['row_key']}"
                       f" at {w['start']} ({w['ms']:.0f} ms)")
                got = q("SELECT q.start_ts, q.end_ts, q.kind, q.hold_id, q.tx_id,"
                        " t.pid, t.xid FROM row_waits q"
                        " JOIN sessions s ON s.session_id = q.session_id"
                        " JOIN rows r ON r.row_id = q.row_id"
                        " LEFT JOIN transactions t ON t.tx_id = q.behind_tx"
                        " WHERE s.pid = ? AND r.relation = ? AND r.row_key = ?"
                        " AND q.start_ts < ? AND q.end_ts > ? ORDER BY abs(q.start_ts - ?)",
                        w["pid"], w["relation"], w["row_key"], t1, t0, t0)
                # a session's next statement may wait right after this one
                # ended: the one closest to its start, the others counted
                check(len(got) >= 1, f"{tag}: a wait of it (got none)")
                if not got:
                    continue
                check(len(got) == 1 or abs(got[1][0] - t0) > tol,
                      f"{tag}: one wait of it (got {len(got)})")
                start, end, wkind, hold_id, tx_id, bpid, bxid = got[0]
                check(abs(start - t0) <= tol,
                      f"{tag}: starts {(start - t0) / 1000:+.1f} ms off (tolerance "
                      f"{tol / 1000:.0f})")
                check(abs(end - t1) <= tol,
                      f"{tag}: ends {(end - t1) / 1000:+.1f} ms off (tolerance {tol / 1000:.0f})")
                check(bpid == w["blocker_pid"] and bxid == w["blocker_xid"],
                      f"{tag}: behind pid {bpid} xid {bxid}, truth pid {w['blocker_pid']}"
                      f" xid {w['blocker_xid']}")
                check(wkind == ("logged" if w["logged"] else "inferred"),
                      f"{tag}: kind {wkind}, logged in truth: {w['logged']}")
                if failed:
                    err = q("SELECT e.sqlstate FROM error_links l"
                            " JOIN errors e ON e.error_id = l.error_id WHERE l.tx_id = ?", tx_id)
                    check(hold_id is None and [e[0] for e in err] == [w["sqlstate"]],
                          f"{tag}: ended in its error (hold {hold_id}, errors {err})")
                else:
                    check(hold_id is not None, f"{tag}: ended acquired (a hold of it)")
        whole_seconds(lockspan, sample, prefix, truth, tmp)
    return report()


SECOND_US = 1_000_000


def whole_seconds(lockspan, sample, prefix, truth, tmp):
    """The same log with its milliseconds cut off, read with %t (as
    tools/compare_reports.sh's -t cases): each 40001 the client saw after
    queueing below deadlock_timeout has one wait of its session on its row
    that ended in the error (no hold), behind the blocker's pid, inside the
    seconds of the truth's wait, and the log has no other such wait of
    that session. Three of the six start and fail in one second: log
    positions tell them (the holder's COMMIT line between the UPDATE and
    the error, decide/failwait.c ls_failed_wait_same_second(); issue 34
    item 2, branch py34b); by time alone they were not found."""
    log = os.path.join(tmp, "t.log")
    with open(os.path.join(sample, "postgresql.log")) as src, open(log, "w") as dst:
        for line in src:
            dst.write(re.sub(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\.\d{3}", r"\1", line))
    db_path = os.path.join(tmp, "t.db")
    subprocess.run([lockspan, "analyze", "-q", "--db", db_path, "--format", "json",
                    "--prefix", prefix.replace("%m", "%t"), "-o", os.path.join(tmp, "t.json"),
                    log], check=True)
    db = sqlite3.connect(db_path)
    want = [w for w in truth["failed_waits"] if w["sqlstate"] == "40001" and not w["logged"]]
    check(len(want) >= 3 and any(us(w["start"]) // SECOND_US == us(w["end"]) // SECOND_US
                                 for w in want),
          "whole seconds: 40001s below deadlock_timeout, some in one second")
    pids = sorted({w["pid"] for w in want})
    for pid in pids:
        mine = [w for w in want if w["pid"] == pid]
        got = db.execute("SELECT q.start_ts, q.end_ts, q.kind, t.pid, r.relation, r.row_key"
                         " FROM row_waits q JOIN sessions s ON s.session_id = q.session_id"
                         " JOIN rows r ON r.row_id = q.row_id"
                         " LEFT JOIN transactions t ON t.tx_id = q.behind_tx"
                         " WHERE s.pid = ? AND q.hold_id IS NULL ORDER BY q.start_ts",
                         (pid,)).fetchall()
        check(len(got) == len(mine),
              f"whole seconds: pid {pid} has {len(got)} waits that ended in an error, "
              f"truth {len(mine)}")
        for w in mine:
            lo = us(w["start"]) // SECOND_US * SECOND_US
            hi = (us(w["end"]) // SECOND_US + 1) * SECOND_US
            tag = f"whole seconds: 40001 pid {pid} {w['row_key']} at {w['start']}"
            hit = [g for g in got if lo <= g[0] and g[1] <= hi and g[0] < g[1]
                   and (g[4], g[5]) == (w["relation"], w["row_key"])]
            check(len(hit) == 1, f"{tag}: one wait of it inside its seconds (got {len(hit)})")
            if hit:
                check(hit[0][3] == w["blocker_pid"] and hit[0][2] == "inferred",
                      f"{tag}: behind pid {hit[0][3]} ({hit[0][2]}), truth pid "
                      f"{w['blocker_pid']} (inferred)")


if __name__ == "__main__":
    sys.exit(main())
