#!/usr/bin/env python3
"""End-to-end check: analyze a bundled sample set and compare the JSON
report with the truth the generator recorded client-side (samples/*/truth.json).

Usage: check_report.py LOCKSPAN SAMPLE_DIR

The log analyzed is the first of LOG_FILES in SAMPLE_DIR; a set with none
of them (samples/rotation: rotated files) is analyzed as a directory,
without --prefix, so that the tool infers it. A prefix with %t
rather than %m has whole seconds only, so times get TIME_SLACK more leeway.

Checks, for every wait the generator knows PostgreSQL logged: exactly one
reported wait of that pid, its direct blocker, root blocker, relation, lock
mode, outcome and timing; the grouping of waits into hot rows; deadlock
victims and cycles; error counts. Prints "N passed, N failed".
"""
import datetime
import json
import os
import subprocess
import sys
import tempfile

from lscheck import check, report

# A hold's start_evidence when its locking statement was found (not a bound).
LOCKING_STATEMENT = ("end of the locking statement",
                     "acquired after the locking statement's logged wait",
                     "start of the locking statement (no duration logged)",
                     "statement with the row's key")

LOG_FILES = ["postgresql.log", "postgresql.syslog"]
TIME_SLACK = 1.1

def ts(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def main():
    lockspan, sample = sys.argv[1], sys.argv[2]
    truth = json.load(open(os.path.join(sample, "truth.json")))
    prefix = open(os.path.join(sample, "prefix.txt")).read().rstrip("\n")
    log = next((os.path.join(sample, f) for f in LOG_FILES
                if os.path.exists(os.path.join(sample, f))), sample)
    slack = TIME_SLACK if "%t" in prefix and "%m" not in prefix else 0.0
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "report.json")
        given = ["--prefix", prefix] if log != sample else []
        subprocess.run([lockspan, "analyze", "-q", "--db", os.path.join(tmp, "s.db")] + given +
                       ["--format", "json", "--top", "1000", "-o", out, log], check=True)
        rep = json.load(open(out))

    check(rep["schema"] == "lockspan-report" and rep["version"] == 2, "report schema/version")
    waits = rep["waits"]
    by_pid = {}
    for w in waits:
        by_pid.setdefault(w["pid"], []).append(w)
    check(len(waits) == len(truth["waits"]),
          f"number of waits: report {len(waits)}, truth {len(truth['waits'])}")
    check(rep["summary"]["waits"] == len(truth["waits"]), "summary.waits")

    outcome_map = {"acquired": "acquired", "deadlock": "deadlock",
                   "lock_timeout": "lock_timeout",
                   "serialization_failure": "serialization_failure"}
    for t in truth["waits"]:
        pid = t["waiter_pid"]
        got = by_pid.get(pid, [])
        tag = f"{t['scenario']} waiter {pid}"
        check(len(got) == 1, f"{tag}: one reported wait (got {len(got)})")
        if len(got) != 1:
            continue
        w = got[0]
        check(w["blocker_pid"] == t["direct_blocker_pid"],
              f"{tag}: direct blocker {w['blocker_pid']}, truth {t['direct_blocker_pid']}")
        check(w["root_pid"] == t["root_blocker_pid"],
              f"{tag}: root blocker {w['root_pid']}, truth {t['root_blocker_pid']}")
        check(w["relation"] == t["relation"],
              f"{tag}: relation {w['relation']!r}, truth {t['relation']!r}")
        check(w["mode"] == t["mode_expected"], f"{tag}: mode {w['mode']}, truth {t['mode_expected']}")
        check(w["outcome"] == outcome_map[t["outcome"]],
              f"{tag}: outcome {w['outcome']}, truth {t['outcome']}")
        # The server measures the wait from inside; the client brackets it.
        # Allow the log's millisecond resolution plus client/server skew.
        check(abs(ts(w["start"]) - ts(t["wait_start"])) < 0.08 + slack,
              f"{tag}: start {w['start']} vs truth {t['wait_start']}")
        if w["end"]:
            check(abs(ts(w["end"]) - ts(t["wait_end"])) < 0.08 + slack,
                  f"{tag}: end {w['end']} vs truth {t['wait_end']}")
        else:
            check(False, f"{tag}: wait has no end")

    # Hot rows: one logical row per truth row, with the same waiters, keyed
    # by the statement's key (id=N), and the totals agree.
    truth_rows = {}
    for t in truth["waits"]:
        truth_rows.setdefault((t["relation"], t["row_id"]), set()).add(t["waiter_pid"])
    rep_rows = {}
    for w in waits:
        rep_rows.setdefault(w["row_id"], set()).add(w["pid"])
    check(sorted(map(sorted, truth_rows.values())) == sorted(map(sorted, rep_rows.values())),
          f"waits grouped by row: report {rep_rows}, truth {truth_rows}")
    hot = {h["row_id"]: h for h in rep["hot_rows"]}
    row_of_truth = {}
    for (rel, row), pids in truth_rows.items():
        h = next((hot[r] for r, p in rep_rows.items() if p == pids and r in hot), None)
        check(h is not None and h["waits"] == len(pids), f"hot row {rel} {row}: waits")
        if h is None:
            continue
        row_of_truth[(rel, row)] = h
        check(h["relation"] == rel and h["row_key"] == f"id={row}",
              f"hot row {rel} {row}: reported as {h['relation']} {h['row_key']}")
        check(h["timeline"]["queue"] and
              max(p["depth"] for p in h["timeline"]["queue"]) == h["max_queue_depth"],
              f"hot row {rel} {row}: queue depth series")
    busiest = max(truth_rows.items(), key=lambda kv: len(kv[1]))
    top = rep["hot_rows"][0]
    check(top["relation"] == busiest[0][0] and top["waits"] == len(busiest[1]) and
          top["max_queue_depth"] == len(busiest[1]),
          f"top hot row {top['relation']} {top['row_key']} with {top['waits']} waits")

    # Holds: each recorded hold (transaction holding a row others waited
    # for) is found on its row, from the locking statement to COMMIT.
    for th in truth.get("holds", []):
        h = row_of_truth.get((th["relation"], th["row_id"]))
        tag = f"hold of {th['relation']} {th['row_id']} by {th['pid']}"
        # A holder may hold the row in several transactions: take the one
        # that started nearest the recorded hold.
        got = sorted((x for x in (h["timeline"]["holds"] if h else []) if x["pid"] == th["pid"]),
                     key=lambda x: abs(ts(x["start"]) - ts(th["start"])))[:1]
        check(len(got) == 1, f"{tag}: found")
        if len(got) != 1:
            continue
        check(abs(ts(got[0]["start"]) - ts(th["start"])) < 0.08 + slack,
              f"{tag}: start {got[0]['start']} vs truth {th['start']}")
        check(abs(ts(got[0]["end"]) - ts(th["end"])) < 0.08 + slack,
              f"{tag}: end {got[0]['end']} vs truth {th['end']}")
        check(got[0]["start_evidence"] in LOCKING_STATEMENT,
              f"{tag}: locking statement found ({got[0]['start_evidence']})")

    # Root blockers (one entry per root transaction): every truth root
    # appears, with the waits it caused.
    roots = {}
    for r in rep["root_blockers"]:
        roots.setdefault(r["pid"], []).append(r)
    for pid in {t["root_blocker_pid"] for t in truth["waits"]}:
        caused = sum(1 for t in truth["waits"] if t["root_blocker_pid"] == pid)
        got = sum(r["waits_caused"] for r in roots.get(pid, []))
        check(got == caused, f"root blocker {pid} causing {caused} waits (got {got})")
    # Each root's rows: those of the waits it caused (all listed here),
    # each once, in the order they were first waited for.
    for r in rep["root_blockers"]:
        first = {}
        for w in sorted(waits, key=lambda w: w["wait_id"]):
            if (w["root_pid"] == r["pid"] and w["root_tx"] == r["tx_id"]
                    and w["relation"] is not None and w["row_key"] is not None):
                first.setdefault(w["relation"] + " " + w["row_key"], w["wait_id"])
        want = ", ".join(sorted(first, key=lambda x: (first[x], x))) or None
        check(r["rows"] == want, f"root blocker {r['pid']}: rows {r['rows']!r}, waits {want!r}")

    # Holds: the root's transaction covers the hold the client measured.
    for h in truth.get("holds", []):
        cands = [r for r in roots.get(h["pid"], [])
                 if r.get("transaction") and r["transaction"].get("end")]
        if not cands:
            continue
        r = min(cands, key=lambda r: abs(ts(r["transaction"]["start"]) - ts(h["start"])))
        tx = r["transaction"]
        # With log_statement = 'all' a transaction's end is only known as the
        # start of its COMMIT: a lower bound, which the hold may outlast.
        # Else the server logs the COMMIT's end before the client, which
        # takes its time once COMMIT has returned, sees it: by a millisecond
        # or two, by more on a loaded machine (10.3 ms in a CI run on
        # 2026-12-04 while other builds ran; 0.03 s of room).
        end_ok = (ts(tx["end"]) >= ts(h["end"]) - 0.03 - slack
                  if tx.get("end_known") != "commit start" else ts(tx["end"]) <= ts(h["end"]))
        check(ts(tx["start"]) <= ts(h["start"]) + 0.01 + slack and end_ok,
              f"root {h['pid']}: transaction {tx['start']}..{tx['end']} covers hold "
              f"{h['start']}..{h['end']}")
        if "%a" in prefix:
            check(r["application"] == h["application_name"], f"root {h['pid']}: application")

    # Deadlocks: victim and the cycle's members.
    check(len(rep["deadlocks"]) == len(truth["deadlocks"]), "number of deadlocks")
    for td, rd in zip(truth["deadlocks"], rep["deadlocks"]):
        check(rd["victim_pid"] == td["victim_pid"], "deadlock victim")
        members = {e["waiter_pid"] for e in rd["edges"]} | {e["blocker_pid"] for e in rd["edges"]}
        check(members == set(td["pids"]), f"deadlock cycle members {members}")
        check(len(rd["processes"]) == len(td["pids"]) and
              all(p["query"] for p in rd["processes"]), "deadlock process queries")

    # Errors by SQLSTATE.
    s = rep["summary"]
    n = lambda st: sum(1 for e in truth["errors"] if e["sqlstate"] == st)
    check(s["deadlocks"] == n("40P01"), "summary.deadlocks")
    check(s["lock_timeouts"] == n("55P03"), "summary.lock_timeouts")
    check(s["serialization_failures"] == n("40001"), "summary.serialization_failures")
    errs = {(e["pid"], e["sqlstate"]) for e in rep["errors"]}
    for e in truth["errors"]:
        check((e["pid"], e["sqlstate"]) in errs, f"error {e['sqlstate']} of pid {e['pid']}")
    check(s["bad_lines"] == 0, "no unparsable lines in a real log")

    return report()


if __name__ == "__main__":
    sys.exit(main())
