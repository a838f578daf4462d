#!/usr/bin/env python3
"""Retried or not, from the log alone (issue 34, retrygap34).

Usage: check_retry_log_only.py LOCKSPAN SAMPLE_DIR

Runs `lockspan analyze` on SAMPLE_DIR/postgresql.log only (no traces:
samples/blind-otel's ctest, check_blind_otel.py, reads them, and its
retries are then told by the request's spans) and compares each
deadlock's and serialization failure's errors[].retried with truth.json,
which the application recorded on the client side: a failed transaction
was retried when a later transaction of its trace (its HTTP request) ran.

MUST_HOLD:
- no error the truth never retried is marked retried (true);
- no error the truth retried is marked not retried (false);
- the retries on the failed transaction's own connection that ran right
  after its ROLLBACK (within 100 ms, LS_RETRY_GAP_US) are found (true).
An error the log cannot tell is untold (retried null, retry_untold true):
allowed, counted and printed. Exit 1 on any failure.
"""
import datetime
import json
import os
import subprocess
import sys
import tempfile

EDGE_MS = 5.0          # an error line's time (ms) against the client's interval
SAME_CONN_GAP_MS = 100.0  # LS_RETRY_GAP_US


def ms(iso):
    return datetime.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000.0


def truth_failures(truth):
    """Each failed transaction (40P01, 40001): pid, its statement's
    [stmt_start, failed_at], whether its request ran a later transaction
    (retried), and whether that retry began on the same pid within
    SAME_CONN_GAP_MS of the ROLLBACK."""
    by_trace = {}
    for t in truth["transactions"]:
        by_trace.setdefault(t["trace_id"], []).append(t)
    out = []
    for t in truth["transactions"]:
        fl = t.get("failed_lock")
        if not fl or fl["sqlstate"] not in ("40P01", "40001"):
            continue
        later = sorted((x for x in by_trace.get(t["trace_id"], []) if x["start"] > t["start"]),
                       key=lambda x: x["start"])
        nxt = later[0] if later else None
        out.append({"tx": t["tx"], "pid": t["pid"], "sqlstate": fl["sqlstate"],
                    "lo": fl["stmt_start"], "hi": fl["failed_at"], "retried": nxt is not None,
                    "same_conn_quick": nxt is not None and nxt["pid"] == t["pid"]
                    and nxt["start"] - t["end_start"] <= SAME_CONN_GAP_MS})
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    lockspan, sample = sys.argv[1], sys.argv[2]
    with open(os.path.join(sample, "truth.json"), encoding="utf-8") as f:
        truth = json.load(f)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "report.json")
        subprocess.run([lockspan, "analyze", "-q", "--generated-at", "fixed", "-o", out,
                        os.path.join(sample, "postgresql.log")], check=True)
        with open(out, encoding="utf-8") as f:
            rep = json.load(f)
    failures = truth_failures(truth)
    failed = untold = 0
    errs = [e for e in rep["errors"] if e["sqlstate"] in ("40P01", "40001")]
    if len(errs) != len(failures):
        print("FAIL  %d deadlock/40001 errors in the report, %d in the truth"
              % (len(errs), len(failures)))
        failed += 1
    for i, e in enumerate(errs, 1):
        t0 = ms(e["time"])
        match = [f for f in failures if f["pid"] == e["pid"] and f["sqlstate"] == e["sqlstate"]
                 and f["lo"] - EDGE_MS <= t0 <= f["hi"] + EDGE_MS]
        what = "error %d (%s, pid %d, %s)" % (i, e["sqlstate"], e["pid"], e["time"])
        if len(match) != 1:
            print("FAIL  %s: %d truth failures match" % (what, len(match)))
            failed += 1
            continue
        f = match[0]
        got = e["retried"]
        if got is None:
            untold += 1
            ok = not f["same_conn_quick"]
            print("%s  %s: untold (truth: %s%s)" % ("PASS" if ok else "FAIL", what,
                  "retried" if f["retried"] else "not retried",
                  ", on its connection within 100 ms" if f["same_conn_quick"] else ""))
        else:
            ok = got == f["retried"]
            print("%s  %s: retried %s (truth: %s, tx %d)"
                  % ("PASS" if ok else "FAIL", what, got, f["retried"], f["tx"]))
        failed += 0 if ok else 1
    print("%d errors, %d untold, %d failed" % (len(errs), untold, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
