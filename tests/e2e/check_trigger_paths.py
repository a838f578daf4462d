#!/usr/bin/env python3
"""Learned shapes carry over between code paths (issue 34 item 3), against
a real server's truth (samples/trigger-paths, made by
samples/scenarios_trigger_paths.py): two code paths INSERT INTO payments,
whose trigger updates merchant_totals merchant_id=1; only the checkout
path ever waited long enough to be logged, so only its waits show (in
CONTEXT) what the INSERT locks. The rule learned from them must name the
row of the import path's INSERTs too (another text: literals, its own
column order and columns).

For the stderr log (with prefix.txt) and the csvlog of the same run:
- each path's hold count on the counter row equals the truth's, and its
  total is within max(25 ms, 5 %) of the truth's (each lock from the
  trigger's acquisition, RETURNING clock_timestamp(), to its COMMIT, sent
  or returned);
- every true hold is found: a hold of its backend starting within 25 ms
  of the acquisition;
- the JSON report's occupancy ranking has each path with the truth's
  holds and total (both merchants' rows: each was waited for);
- the rule says which logged wait taught it: row_rules.learned_from is a
  wait of the checkout path on the counter row, and the JSON report's
  learned_rules names its pid, application, time, row, file and line, and
  that it carries to every INSERT into payments setting merchant_id.

Usage: check_trigger_paths.py LOCKSPAN SAMPLE_DIR
"""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

TOL_MS = 25.0
TOL_FRAC = 0.05


def tolerance(ms):
    return max(TOL_MS, TOL_FRAC * ms)


def analyze(lockspan, sample, tmp, fmt):
    db_path = os.path.join(tmp, f"{fmt}.db")
    out = os.path.join(tmp, f"{fmt}.json")
    cmd = [lockspan, "analyze", "-q", "--db", db_path, "-o", out]
    if fmt == "stderr":
        prefix = open(os.path.join(sample, "prefix.txt")).read().rstrip("\n")
        cmd += ["--prefix", prefix, os.path.join(sample, "postgresql.log")]
    else:
        cmd += [os.path.join(sample, "postgresql.csv")]
    subprocess.run(cmd, check=True)
    return sqlite3.connect(db_path), json.load(open(out))


def check_format(lockspan, sample, truth, tmp, fmt):
    db, rep = analyze(lockspan, sample, tmp, fmt)
    rel, key = truth["hot_row"]["relation"], truth["hot_row"]["key"]
    holds = db.execute(
        "SELECT s.application, h.pid, h.start_ts, h.end_ts FROM holds h"
        " JOIN rows r ON r.row_id = h.row_id JOIN sessions s ON s.session_id = h.session_id"
        " WHERE r.relation = ? AND r.row_key = ?", (rel, key)).fetchall()
    for path, t in truth["paths"].items():
        mine = [h for h in holds if h[0] == t["application"]]
        total = sum((h[3] - h[2]) / 1000.0 for h in mine if h[3] is not None)
        lo, hi = t["hot_total_lo_ms"], t["hot_total_ms"]
        check(len(mine) == t["hot_holds"],
              f"{fmt}: {path}: {len(mine)} holds of {rel} {key}, truth {t['hot_holds']}")
        check(lo - tolerance(lo) <= total <= hi + tolerance(hi),
              f"{fmt}: {path}: held {total:.1f} ms in all, truth {lo:.1f}..{hi:.1f} ms")
    # The report's occupancy ranking (every hold of a hot row: both
    # merchants' rows were waited for) has each path with the truth's
    # holds and total.
    occ = {o["code_path"]: o for o in rep.get("row_occupancy", [])}
    for path, t in truth["paths"].items():
        txs = [x for x in truth["transactions"] if x["path"] == path]
        lo = sum((x["released_lo"] - x["locked_at"]) * 1000 for x in txs)
        hi = sum((x["released"] - x["locked_at"]) * 1000 for x in txs)
        o = occ.get(t["application"], {})
        check(o.get("holds") == len(txs),
              f"{fmt}: occupancy ranking: {path} {o.get('holds')} holds, truth {len(txs)}")
        check(lo - tolerance(lo) <= (o.get("total_hold_ms") or 0) <= hi + tolerance(hi),
              f"{fmt}: occupancy ranking: {path} {o.get('total_hold_ms')} ms,"
              f" truth {lo:.1f}..{hi:.1f} ms")
    # Every true hold is found, at its acquisition.
    missed = []
    for t in truth["transactions"]:
        if t["merchant_id"] != 1:
            continue
        at = t["locked_at"] * 1e6
        if not any(h[1] == t["pid"] and abs(h[2] - at) <= TOL_MS * 1000 for h in holds):
            missed.append((t["path"], t["pid"], round(t["locked_at"], 3)))
    check(not missed, f"{fmt}: every true hold found at its acquisition (missed {missed[:5]},"
                      f" {len(missed)} in all)")
    # Which instance taught the rule: a logged wait of the checkout path
    # on the counter row, named in the JSON report.
    taught = db.execute(
        "SELECT s.application, w.pid, r.row_key FROM row_rules u"
        " JOIN lock_waits w ON w.wait_id = u.learned_from"
        " JOIN sessions s ON s.session_id = w.session_id"
        " JOIN rows r ON r.row_id = w.row_id WHERE u.relation = ?", (rel,)).fetchall()
    check(len(taught) >= 1 and all(a == truth["paths"]["checkout"]["application"] and k == key
                                   for a, _, k in taught),
          f"{fmt}: the rule was taught by a checkout wait on {key} ({taught})")
    check_json_rules(truth, rep, taught, fmt)


def check_json_rules(truth, rep, taught, fmt):
    """The JSON report lists the rule with the wait that taught it."""
    rel = truth["hot_row"]["relation"]
    rules = [r for r in rep.get("learned_rules", []) if r.get("relation") == rel]
    check(len(rules) >= 1, f"{fmt}: the JSON report lists the learned rule of {rel}")
    for r in rules:
        tb = {k: r.get(k) for k in ("taught_by_pid", "taught_by_application", "taught_at",
                                    "taught_row_key", "file", "line")}
        check(tb["taught_by_pid"] in {p for _, p, _ in taught} and (tb["line"] or 0) > 0
              and bool(tb["taught_at"]) and bool(tb["file"])
              and tb["taught_by_application"] == truth["paths"]["checkout"]["application"]
              and tb["taught_row_key"] == truth["hot_row"]["key"],
              f"{fmt}: the JSON rule names the wait that taught it ({tb})")
        check(r.get("insert_into") == "payments" and r.get("insert_column") == "merchant_id",
              f"{fmt}: the rule carries to every INSERT into payments setting merchant_id"
              f" ({r.get('insert_into')}, {r.get('insert_column')})")
        check(r.get("statements_keyed", 0) >= truth["paths"]["import"]["transactions"],
              f"{fmt}: the JSON rule counts the statements it keyed ({r.get('statements_keyed')})")


def main():
    lockspan, sample = sys.argv[1], sys.argv[2]
    truth = json.load(open(os.path.join(sample, "truth.json")))
    check(truth["paths"]["import"]["waited_over_100ms"] == 0 and
          truth["paths"]["checkout"]["waited_over_100ms"] > 0,
          "the sample: only the checkout path ever waited long enough to be logged")
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in ("stderr", "csvlog"):
            check_format(lockspan, sample, truth, tmp, fmt)
    return report()


if __name__ == "__main__":
    sys.exit(main())
