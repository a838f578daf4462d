#!/usr/bin/env python3
"""Reports that agree with their filter, sort their findings and read as
people write (issue 36, items 2 and 4), on real samples (samples/README.md).

Usage: check_report_window.py LOCKSPAN PROJECT_DIR

On samples/realistic (a deadlock at 17:59:43.382, a lock_timeout) and
samples/app (traced; its heaviest finding is not its first rule's), each
analyzed once into a store and reported from it:
  - JSON findings are sorted by weight_ms, largest first (unfiltered, and
    in every window below);
  - a window after the log's end: no finding, every summary count 0
    (sessions, statements, waits, deadlocks, errors, hidden waits), and
    the JSON, Markdown and HTML each state the window; the Markdown says
    no rule found anything in it;
  - a window from after the deadlock to the end, and one that ends before
    it: no deadlock in the summary or the findings, no finding time and no
    count of deadlocks or failures beyond the summary's;
  - the window that holds the whole log gives the unfiltered findings;
  - Markdown (the default and --full): no line over 200 characters outside
    tables and code blocks; no table header in "ms" and no duration cell a
    bare number (durations read "11.5 s", "648 ms" as in the HTML);
    the summary's durations too.
Prints one FAIL line per wrong fact, then "N passed, N failed".
"""
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile

from lscheck import check, report

MAX_LINE = 200
DURATION = re.compile(r"^(—|\d+(\.\d)? (ms|s)|\d+ min \d\d s|\d+ h \d\d min)"
                      r"(–(\d+(\.\d)? (ms|s)|\d+ min \d\d s|\d+ h \d\d min))?$")
BARE_NUMBER = re.compile(r"^\d+\.\d+$")
# Markdown table columns that are numbers with a decimal by nature, not
# durations (a share, a rate).
DECIMAL_HEADS = ("%", "/s")
SUMMARY_COUNTS = ("sessions", "statements", "waits", "waits_linked", "deadlocks",
                  "lock_timeouts",
                  "lock_nowait_failures", "statement_timeouts",
                  "serialization_failures", "idle_in_transaction_timeouts")


def run(lockspan, args):
    p = subprocess.run([lockspan] + args, capture_output=True, text=True)
    check(p.returncode == 0, f"lockspan {' '.join(args)}: exit {p.returncode}: "
                             f"{p.stderr.strip()[-300:]}")
    return p


def iso(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))


def report_of(lockspan, db, tmp, fmt, extra, name):
    out = os.path.join(tmp, f"{name}.{fmt}")
    run(lockspan, ["report", "-q", "--db", db, "--format", fmt, "-o", out] + extra)
    with open(out, encoding="utf-8") as f:
        return json.load(f) if fmt == "json" else f.read()


def check_sorted(r, what):
    w = [f["weight_ms"] for f in r["findings"]]
    check(w == sorted(w, reverse=True),
          f"{what}: findings not sorted by weight_ms: {w}")


def check_window(r, since, until, what):
    """No finding or summary figure from outside [since, until]."""
    s = r["summary"]
    check(s.get("filter") is not None, f"{what}: summary has no filter")
    for f in r["findings"]:
        if f.get("first_time"):
            t = iso(f["first_time"])
            check((since is None or t >= since) and (until is None or t <= until),
                  f"{what}: finding {f['rule']} at {f['first_time']} is outside the window")
        if "deadlocks" in f:
            check(f["deadlocks"] <= s["deadlocks"],
                  f"{what}: finding {f['rule']} counts {f['deadlocks']} deadlocks, "
                  f"the summary {s['deadlocks']}")
        if f["rule"] == "deadlocks":
            check(s["deadlocks"] > 0, f"{what}: a deadlocks finding, summary deadlocks 0")
        if f["rule"] == "retries_after_serialization_failure":
            check(f["failures"] <= s["serialization_failures"],
                  f"{what}: {f['failures']} serialization failures found, summary "
                  f"{s['serialization_failures']}")


def md_tables_and_lines(md, what):
    """Line length outside tables/code; durations in tables."""
    fenced = False
    head = None
    long_lines = []
    for n, line in enumerate(md.split("\n"), 1):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        if not line.startswith("|"):
            head = None
            if len(line) > MAX_LINE:
                long_lines.append((n, len(line)))
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if head is None:
            head = cells
            for h in head:
                check(not h.endswith(" ms") and " ms " not in h,
                      f"{what}: line {n}: table header '{h}' in ms")
            continue
        if all(set(c) <= set("-:") for c in cells):
            continue
        for h, c in zip(head, cells):
            if h.endswith(DECIMAL_HEADS):
                continue
            check(not BARE_NUMBER.match(c),
                  f"{what}: line {n}: column '{h}' holds a bare number '{c}'")
    check(not long_lines, f"{what}: lines over {MAX_LINE} characters outside tables "
                          f"and code: {long_lines[:5]}")
    m = re.search(r"^\| Total wait \| (.*) \|$", md, re.M)
    check(m and DURATION.match(m.group(1)), f"{what}: summary total wait not human: "
                                            f"{m.group(1) if m else None}")
    m = re.search(r"^\| Hidden waits \(below deadlock_timeout\) \| (.*) over", md, re.M)
    check(not m or DURATION.match(m.group(1)),
          f"{what}: summary hidden waits not human: {m.group(1) if m else None}")


def one_sample(lockspan, tmp, name, inputs, prefix):
    db = os.path.join(tmp, f"{name}.db")
    args = ["analyze", "-q", "--db", db, "--format", "json",
            "-o", os.path.join(tmp, f"{name}-analyze.json")]
    if prefix:
        args += ["--prefix", prefix]
    run(lockspan, args + inputs)
    full = report_of(lockspan, db, tmp, "json", [], f"{name}-all")
    check(len(full["findings"]) > 0, f"{name}: no findings to check")
    check_sorted(full, name)
    start = iso(full["summary"]["time_range"]["start"])
    end = iso(full["summary"]["time_range"]["end"])
    fmt = "%Y-%m-%dT%H:%M:%S.%fZ"

    # The whole log's window: the same findings.
    whole = ["--since", (start - datetime.timedelta(seconds=1)).strftime(fmt),
             "--until", (end + datetime.timedelta(seconds=1)).strftime(fmt)]
    r = report_of(lockspan, db, tmp, "json", whole, f"{name}-whole")
    check([f["title"] for f in r["findings"]] == [f["title"] for f in full["findings"]],
          f"{name}: a window over the whole log changes the findings")

    # After the log's end: nothing, and every format says so.
    after = end + datetime.timedelta(minutes=30)
    win = ["--since", after.strftime(fmt)]
    r = report_of(lockspan, db, tmp, "json", win, f"{name}-after")
    check(r["findings"] == [], f"{name}: window after the log's end lists "
                               f"{len(r['findings'])} findings")
    for k in SUMMARY_COUNTS:
        check(r["summary"][k] == 0, f"{name}: after the end, summary {k} = {r['summary'][k]}")
    hw = r["summary"].get("hidden_waits", {})
    for k in ("hidden_wait_ms", "logged_wait_ms", "statements_waited_unlogged"):
        check(hw.get(k, 0) == 0, f"{name}: after the end, hidden_waits.{k} = {hw.get(k)}")
    check_window(r, after, None, f"{name} after")
    md = report_of(lockspan, db, tmp, "md", win, f"{name}-after")
    # Each format writes times its own way: the date and time either side
    # of a "T" or a space.
    stamp = after.strftime("%Y-%m-%d[T ]%H:%M:%S")
    check(re.search(r"^> Filtered: since \S*" + stamp, md, re.M),
          f"{name}: Markdown does not state the window (since {stamp})")
    check("No rule found anything to say in this time window." in md,
          f"{name}: Markdown does not say the window has no findings")
    html = report_of(lockspan, db, tmp, "html", win, f"{name}-after")
    check(re.search(r'<p class="filter">Filtered: since <[a-z]+>' + stamp, html),
          f"{name}: HTML does not state the window")
    return db, full


def main():
    lockspan, root = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        real = os.path.join(root, "samples/realistic")
        db, full = one_sample(lockspan, tmp, "realistic",
                              [os.path.join(real, "postgresql.csv")], None)
        dl = [f for f in full["findings"] if f["rule"] == "deadlocks"]
        check(len(dl) == 1 and full["summary"]["deadlocks"] >= 1,
              "realistic: the unfiltered report has no deadlocks finding")
        if dl:
            t = iso(dl[0]["first_time"])
            fmt = "%Y-%m-%dT%H:%M:%S.%fZ"
            for name, since, until in (
                    ("after the deadlock", t + datetime.timedelta(seconds=1), None),
                    ("before the deadlock", None, t - datetime.timedelta(seconds=1))):
                args = (["--since", since.strftime(fmt)] if since else []) + \
                       (["--until", until.strftime(fmt)] if until else [])
                r = report_of(lockspan, db, tmp, "json", args, "realistic-" + name[:5])
                check(r["summary"]["deadlocks"] == 0,
                      f"realistic {name}: summary deadlocks {r['summary']['deadlocks']}")
                check(not [f for f in r["findings"] if f["rule"] == "deadlocks"],
                      f"realistic {name}: a deadlocks finding outside the window")
                check_window(r, since, until, f"realistic {name}")
                check_sorted(r, f"realistic {name}")
        for extra, what in (([], "md"), (["--full"], "md --full")):
            md = report_of(lockspan, db, tmp, "md", extra, "realistic-" + str(len(extra)))
            md_tables_and_lines(md, "realistic " + what)

        app = os.path.join(root, "samples/app")
        with open(os.path.join(app, "prefix.txt"), encoding="utf-8") as f:
            prefix = f.read().rstrip("\n")
        db, full = one_sample(lockspan, tmp, "app",
                              [os.path.join(app, "postgresql.log"),
                               os.path.join(app, "traces.otlp.jsonl")], prefix)
        md = report_of(lockspan, db, tmp, "md", [], "app")
        md_tables_and_lines(md, "app md")
    return report()


if __name__ == "__main__":
    sys.exit(main())
