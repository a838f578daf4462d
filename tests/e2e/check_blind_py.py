#!/usr/bin/env python3
"""Blind check of lockspan on samples/blind-py (a real Python app's poor log:
whole-second %t prefix, log_statement = 'all', no durations).

  check_blind_py.py LOCKSPAN [REPO]

Runs `lockspan analyze` on the sample's log, compares the JSON report with
the app's client-side truth (samples/blind-py/app/judge.py, written blind
from the docs) and
  - asserts the facts lockspan gets right today (MUST_HOLD): a regression
    fails the run (exit 1);
  - prints what it gets wrong as expected failures (XFAIL), not counted
    as passes; one that starts to pass is printed as XPASS so it can be
    moved to MUST_HOLD.
Exit 0 when every MUST_HOLD check passes.
"""
import json
import os
import subprocess
import sys
import tempfile

# The checks of judge.py that lockspan answers right on this sample
# (samples/blind-py/JUDGEMENT.md). Every other check is an expected failure.
MUST_HOLD = [
    "top code path by row occupancy",
    # since a statement's hold starts at its last acquisition of the row,
    # not its first (issue 34 item 4): 2.0 s against 1.38 s (10.0 s before)
    "top path max hot-row hold, s",
    "hot rows, top 3 by logged wait",
    "rows with a logged wait",
    "stock 1 holds (occupancy)",
    "stock 1 mean hold, ms",
    "stock 1 occupied, s",
    "stock 1 wait, logged + hidden, s",
    # not since a statement's hold starts at its last acquisition of the
    # row (issue 34 item 4): 84 of 94 (the judge allows 10 %), 87 before;
    # the same figure of the other two rows was wrong already
    "merchant_totals 1 holds (occupancy)",
    "merchant_totals 1 mean hold, ms",
    "merchant_totals 1 occupied, s",
    "stock 2 holds (occupancy)",
    "stock 2 mean hold, ms",
    "stock 2 occupied, s",
    "stock 2 wait, logged + hidden, s",
    "truth holds of hot rows found by lockspan",
    "phantom holds for statements that failed",
    "logged waits matched to a truth wait",
    "logged waits whose holder_pid held the row during the wait",
    "logged waits whose root_pid held the row during the wait",
    "deadlocks",
    "deadlock victims (pid, second)",
    "serialization failures (40001)",
    # since an acquisition stamped with the next statement's second counts
    # for the statement logged before it (log position; issue 34 items 1
    # and 4): 99.9 s against 80.6 s (153.0 s before), 22.2 s against 21.9 s
    # (17.5 s before), no two holds of a row overlapping by over 1 s
    "top path total hot-row hold, s",
    "merchant_totals 1 wait, logged + hidden, s",
    "pairs of holds of one row overlapping by > 1 s (impossible)",
    # since an EXECUTE's step in a transaction shape is its PREPARE body's
    # (issue 34 item 6): the transfer path is 'UPDATE accounts x2', not
    # 'EXECUTE x2'
    "deadlock code paths",
    # right since the shape fallback (before this branch): a guard
    "code paths told apart",
    # since lock order is read from the deadlocks' edges and the rows each
    # side locked (issue 34 item 7): 1 (0 before, from relations alone)
    "lock-order conflict found (transfer vs itself)",
]


def lock_order_checks(truth, report):
    """What the judge's count does not see: the conflict is the transfer
    path against itself, on the rows of the truth's first deadlock (the
    victim's first row and its partner's), with every deadlock of the
    truth (all are transfer's), and the finding says the same. (name,
    ok, lockspan, truth) tuples."""
    txs = {t["id"]: t for t in truth["transactions"]}
    dls = sorted(truth["deadlocks"], key=lambda d: d["at"])
    first = dls[0]
    victim = txs[first["victim_tx"]]
    partner = txs[first["waited_for"][0]["tx"]]
    rows = {"%s id=%s" % (lk["table"], lk["key"]) for lk in
            (victim["locks"][0], partner["locks"][0])}
    want = ("transfer", "transfer", sorted(rows), len(dls))
    out = []
    for what, items in (("report.lock_order_conflicts", report["lock_order_conflicts"]),
                        ("finding inconsistent_lock_order",
                         [f for f in report["findings"]
                          if f["rule"] == "inconsistent_lock_order"])):
        got = [(x["code_path"] == x["other_code_path"], sorted((x["first_row"], x["then_row"])),
                x["deadlocks"]) for x in items]
        out.append(("lock order (%s): one path against itself, the first deadlock's rows, "
                    "every deadlock" % what,
                    got == [(True, want[2], want[3])], got,
                    [(True, want[2], want[3])]))
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: check_blind_py.py LOCKSPAN [REPO]")
    lockspan = os.path.abspath(sys.argv[1])
    repo = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..")
    sample = os.path.join(repo, "samples", "blind-py")
    sys.path.insert(0, os.path.join(sample, "app"))
    import judge                                    # noqa: E402

    log = os.path.join(sample, "postgresql.log")
    if not os.path.exists(log):
        log += ".gz"
    with tempfile.TemporaryDirectory(prefix="check_blind_py.") as tmp:
        out = os.path.join(tmp, "report.json")
        run = subprocess.run([lockspan, "analyze", "-q", "-o", out, log],
                             capture_output=True, text=True)
        if run.returncode != 0:
            print(run.stderr, file=sys.stderr)
            sys.exit("FAIL: lockspan analyze exited %d" % run.returncode)
        with open(out) as f:
            report = json.load(f)
    truth = judge.load(os.path.join(sample, "truth.json"))
    results = {r["name"]: r for r in judge.Judge(truth, report).run()}

    failed = passed = xfail = xpass = 0
    for name, ok, got, want in lock_order_checks(truth, report):
        line = "%s: lockspan %s, truth %s" % (name, got, want)
        print(("ok    " if ok else "FAIL  ") + line)
        passed += ok
        failed += not ok
    missing = [name for name in MUST_HOLD if name not in results]
    for name in missing:
        print("FAIL  %s: the judge made no such check" % name)
        failed += 1
    for name, r in results.items():
        line = "%s: lockspan %s, truth %s" % (name, r["lockspan"], r["truth"])
        if name in MUST_HOLD:
            if r["ok"]:
                passed += 1
                print("ok    " + line)
            else:
                failed += 1
                print("FAIL  " + line)
        elif r["ok"]:
            xpass += 1
            print("XPASS " + line + " (now right: move it to MUST_HOLD)")
        else:
            xfail += 1
            print("XFAIL " + line)
    print("check_blind_py: %d passed, %d failed; %d known wrong (XFAIL, not "
          "counted), %d XPASS" % (passed, failed, xfail, xpass))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
