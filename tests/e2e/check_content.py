#!/usr/bin/env python3
"""The report's content beside every pid, against the application's truth
(samples/app*: each request's pid, code path, trace and its waits as the
client measured them) and the store.

Usage: check_content.py LOCKSPAN SAMPLE_DIR

Analyzes the log with the OTLP export into JSON and Markdown, and checks:
- each reported wait names the waiter's and the root blocker's code path
  the truth recorded for that pid at that time, with the request's trace id;
- every JSON tx_id / trace_id beside a pid is the store's (lock_waits,
  holds, tx_code);
- the lock tree at the worst moment lists a pid once: a backend waits for
  one lock at a time, and the truth has each listed pid waiting then;
- every pid of the Markdown's waits, holds, lock tree and root blockers
  shows the code path the JSON gives it.
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

SLACK = 0.5  # s: the application's clock is up to 300 ms off in app-skew


def ts(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def md_text(s):
    """A Markdown cell's text as a reader sees it (backslash escapes undone)."""
    return re.sub(r"\\([\\`*_{}\[\]()#+\-.!|<>~&$])", r"\1", s)


def truth_request(truth, pid, t):
    """The request of backend `pid` whose transaction spans time t (the
    nearest, within SLACK: a pid serves one request after another)."""
    best, dist = None, SLACK
    for r in truth["requests"]:
        tx = r.get("transaction") or {}
        if r.get("pid") != pid or not tx.get("start"):
            continue
        d = max(0.0, ts(tx["start"]) - t, t - ts(tx["end"]))
        if d <= dist:
            best, dist = r, d
    return best


def main():
    lockspan, sample = sys.argv[1], sys.argv[2]
    truth = json.load(open(os.path.join(sample, "truth.json")))
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "s.db")
        js, md = os.path.join(tmp, "r.json"), os.path.join(tmp, "r.md")
        r = subprocess.run([lockspan, "analyze", "-q", "--db", db, "-o", js, "-o", md,
                            os.path.join(sample, "postgresql.log"),
                            os.path.join(sample, "traces.otlp.jsonl")])
        check(r.returncode == 0, "analyze")
        rep = json.load(open(js))
        text = open(md).read()
        con = sqlite3.connect(db)

        # Waits: code paths and traces against the truth.
        for w in rep["waits"]:
            t = ts(w["start"])
            req = truth_request(truth, w["pid"], t)
            if not req:
                continue
            check(w["code_path"] == req["function"],
                  f"wait of {w['pid']}: code path {w['code_path']} (truth {req['function']})")
            check(w["trace_id"] == req["trace_id"], f"wait of {w['pid']}: trace id")
            root = truth_request(truth, w["root_pid"], t) if w["root_pid"] else None
            if root:
                check(w["root_code_path"] == root["function"],
                      f"wait of {w['pid']}: root {w['root_pid']} code path "
                      f"{w['root_code_path']} (truth {root['function']})")

        # JSON against the store.
        for w in rep["waits"]:
            tx = con.execute("SELECT waiter_tx, holder_tx, root_tx FROM lock_waits"
                             " WHERE wait_id = ?", (w["wait_id"],)).fetchone()
            check((w["tx_id"], w["holder_tx_id"], w["root_tx_id"]) == tx,
                  f"wait {w['wait_id']}: tx ids are the store's")
            trace = con.execute("SELECT trace_id FROM tx_code WHERE tx_id = ?",
                                (w["tx_id"],)).fetchone()
            check(w["trace_id"] == (trace[0] if trace else None),
                  f"wait {w['wait_id']}: trace id is the store's")
        for h in rep["holds"]:
            n = con.execute("SELECT count(*) FROM holds WHERE tx_id = ? AND pid = ?",
                            (h["tx_id"], h["pid"])).fetchone()[0]
            check(n >= 1, f"hold of {h['pid']}: tx {h['tx_id']} is the store's")
            check(h["code_path"] is not None, f"hold of {h['pid']}: a code path")
        for rb in rep["root_blockers"]:
            check(rb["code_path"] is not None and
                  rb["tx_id"] == (rb["transaction"] or {}).get("tx_id"),
                  f"root blocker {rb['pid']}: code path and tx")

        # The lock tree at the worst moment.
        wm = rep["worst_moment"]
        check(wm is not None, "a worst moment")
        if wm:
            t = ts(wm["time"])
            pids = [x["pid"] for x in wm["waits"]]
            check(len(pids) == len(set(pids)), f"worst moment: each pid once {sorted(pids)}")
            for p in pids:
                check(any(x["waiter_pid"] == p and ts(x["wait_start"]) - SLACK <= t <=
                          ts(x["wait_end"]) + SLACK for x in truth["waits"]),
                      f"worst moment: pid {p} was waiting then")

        # Markdown: the code path beside each pid.
        def section(title):
            return text.split("## " + title)[1].split("\n## ")[0]

        rows = [l for l in section("Lock waits").split("\n") if re.match(r"^\| 20\d\d-", l)]
        for w, row in zip(rep["waits"], rows):
            cells = [md_text(c.strip()) for c in re.split(r"(?<!\\)\|", row.strip()[1:-1])]
            want = f"{w['pid']} · {w['code_path']}" if w["code_path"] else str(w["pid"])
            check(cells[1] == want, f"markdown wait: {cells[1]!r} (want {want!r})")
            want = f"{w['root_pid']} · {w['root_code_path']}" if w["root_code_path"] \
                else str(w["root_pid"])
            check(cells[8] == want, f"markdown wait root: {cells[8]!r} (want {want!r})")
        rows = [l for l in section("Lock tree at the worst moment").split("\n")
                if re.match(r"^\| \d", l)]
        check(len(rows) == len(wm["waits"]) if wm else True, "markdown tree rows")
        for x, row in zip(wm["waits"] if wm else [], rows):
            cells = [md_text(c.strip()) for c in re.split(r"(?<!\\)\|", row.strip()[1:-1])]
            check(cells[1] == f"{x['pid']} · {x['code_path']}",
                  f"markdown tree: {cells[1]!r}")
        for rb in rep["root_blockers"]:
            head = f"### pid {rb['pid']} · {rb['code_path']}"
            check(any(md_text(l).startswith(head) for l in section("Root blockers").split("\n")),
                  f"markdown root blocker: {head}")
    return report()


if __name__ == "__main__":
    sys.exit(main())
