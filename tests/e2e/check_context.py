#!/usr/bin/env python3
"""The incident's context per minute (issue 36, item 5), on real samples
(samples/realistic: csvlog, a deadlock and errors; samples/app: traced).

Usage: check_context.py LOCKSPAN PROJECT_DIR

Each analyzed into a store, reported as JSON, Markdown and HTML:
  - JSON context_per_minute: consecutive minutes, each inside the log's
    time range; its waits add up to summary.waits (every wait is in the
    strip, which runs from 5 minutes before the first to 5 after the last),
    its statements to summary.statements, its errors to the store's errors
    (read from the store with sqlite3); statements_per_s is statements / 60;
    context_not_kept names what of checkpoints, autovacuum and temporary
    files the store has no line of (server_events);
  - the Markdown and the HTML show the strip ("Context per minute") with
    the first minute's figures and say what is not counted;
  - a --since after the log's end: no minute.
Prints one FAIL line per wrong fact, then "N passed, N failed".
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


def iso(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))


def one(lockspan, tmp, name, inputs):
    db = os.path.join(tmp, name + ".db")
    out = {f: os.path.join(tmp, f"{name}.{f}") for f in ("json", "md", "html")}
    p = subprocess.run([lockspan, "analyze", "-q", "--db", db, "-o", out["json"], "-o", out["md"],
                        "-o", out["html"]] + inputs, capture_output=True, text=True)
    check(p.returncode == 0, f"{name}: analyze exit {p.returncode}: {p.stderr[-300:]}")
    if p.returncode != 0:
        return
    m = json.load(open(out["json"]))
    c, s = m.get("context_per_minute") or [], m["summary"]
    check(c, f"{name}: context_per_minute has minutes")
    if not c:
        return
    t = [iso(x["minute"]) for x in c]
    check(all(b - a == datetime.timedelta(minutes=1) for a, b in zip(t, t[1:])),
          f"{name}: consecutive minutes")
    lo, hi = iso(s["time_range"]["start"]), iso(s["time_range"]["end"])
    check(t[0] <= lo < t[0] + datetime.timedelta(minutes=1) or t[0] > lo,
          f"{name}: the first minute {t[0]} is in the log (from {lo})")
    check(t[-1] <= hi, f"{name}: the last minute {t[-1]} is in the log (to {hi})")
    check(sum(x["waits"] for x in c) == s["waits"],
          f"{name}: waits per minute add up to {s['waits']}: {sum(x['waits'] for x in c)}")
    check(sum(x["statements"] for x in c) == s["statements"],
          f"{name}: statements per minute add up to {s['statements']}")
    errs = sqlite3.connect(db).execute("SELECT count(*) FROM errors").fetchone()[0]
    check(sum(x["errors"] for x in c) == errs, f"{name}: errors per minute add up to {errs}")
    check(all(abs(x["statements_per_s"] - x["statements"] / 60) < 0.051 for x in c),
          f"{name}: statements_per_s is statements / 60")
    kinds = {k for (k,) in sqlite3.connect(db).execute("SELECT DISTINCT kind FROM server_events")}
    want = [w for w, have in (("checkpoints", {"checkpoint", "checkpoint_start"}),
                              ("autovacuum", {"autovacuum", "autoanalyze"}),
                              ("temporary files", {"temp_file"})) if not kinds & have]
    nk = m.get("context_not_kept") or []
    check(len(nk) == len(want) and all(n.startswith(w + " (none read: ") for w, n in zip(want, nk)),
          f"{name}: context_not_kept: {nk}, the store lacks {want}")
    busy = max(c, key=lambda x: x["waits"])
    md = open(out["md"], encoding="utf-8").read()
    part = md.split("### Context per minute", 1)
    check(len(part) == 2 and "context_not_kept" in part[1].split("|", 1)[0],
          f"{name}: Markdown has the strip and says what it does not count")
    if len(part) == 2:
        row = f"| {busy['minute']} | {busy['statements']} | {busy['statements_per_s']:.1f} | " \
              f"{busy['waits']} | {busy['errors']} |"
        check(row in part[1], f"{name}: Markdown row {row}")
    page = open(out["html"], encoding="utf-8").read()
    check("<h3>Context per minute</h3>" in page, f"{name}: HTML has the strip")
    hm = busy["minute"][:10] + " " + busy["minute"][11:16]
    check(re.search(r'<td class="t">' + re.escape(hm) + r':00\.000</td><td class="n">' +
                    str(busy["statements"]) + "</td>", page),
          f"{name}: HTML row of minute {hm}")
    after = (hi + datetime.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    p = subprocess.run([lockspan, "report", "-q", "--db", db, "--format", "json", "--since", after],
                       capture_output=True, text=True)
    check(p.returncode == 0 and json.loads(p.stdout)["context_per_minute"] == [],
          f"{name}: no minute after the log's end")


def main():
    lockspan, root = sys.argv[1], sys.argv[2]
    s = os.path.join(root, "samples")
    with tempfile.TemporaryDirectory() as tmp:
        one(lockspan, tmp, "realistic", [os.path.join(s, "realistic", "postgresql.csv")])
        one(lockspan, tmp, "app", ["--prefix", open(os.path.join(s, "app", "prefix.txt")).read(),
                                   os.path.join(s, "app", "postgresql.log"),
                                   os.path.join(s, "app", "traces.otlp.jsonl")])
    return report()


if __name__ == "__main__":
    sys.exit(main())
