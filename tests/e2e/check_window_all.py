#!/usr/bin/env python3
"""--since/--until filter everything computed from events (issue 36, item
3): the rankings, root blockers, timelines and per-row tables as well as
the summary and findings (check_report_window.py), on real samples.

Usage: check_window_all.py LOCKSPAN PROJECT_DIR

samples/app (traced; contention on inventory id=1 from 12:36:29.6 to
12:36:33.8) and samples/realistic, each analyzed once into a store and
reported as JSON for windows inside the contention. For each window, no
figure in the JSON comes from outside it:
  - every object with a start and an end (waits, holds, timeline bars,
    hidden waits, slow requests, root blockers' transactions) overlaps the
    window; a pair first_wait/last_wait_end too; an instant (a deadlock's
    or an error's time, the worst moment, a row's longest queue) is inside;
  - holds (holds[], timeline.holds[]) are clipped to it: start and end
    inside, hold_ms at most the window's length;
  - the rankings are time inside it: each row's holds do not overlap, so
    no code path's total hold (row_occupancy, code_paths) exceeds the
    window's length times the hot rows;
  - each hot row's wait count and total are its waits listed in the window.
Left out, by design: summary.time_range (the log's own range),
trace_requests (--trace-id shows a request whatever the filters) and the
statements of a root blocker's transaction (the transaction overlaps the
window; its statements are listed whole).
Prints one FAIL line per wrong fact, then "N passed, N failed".
"""
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from lscheck import check, report

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")
SKIP = (".summary.time_range", ".summary.filter", ".trace_requests",
        ".root_blockers[].transaction.statements")
INSTANTS = ("time", "max_queue_time", "first_time")
# (sample, windows): inside each sample's contention.
WINDOWS = {
    "app": [("2026-12-02T12:36:31Z", "2026-12-02T12:36:32Z"),
            ("2026-12-02T12:36:30.2Z", "2026-12-02T12:36:30.7Z")],
    "realistic": None,  # the middle third of its waits, found below
}


def ts(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))


def walk(o, path=""):
    """(path, object) for every object in the model."""
    if isinstance(o, dict):
        yield path, o
        for k, v in o.items():
            yield from walk(v, f"{path}.{k}")
    elif isinstance(o, list):
        for v in o:
            yield from walk(v, f"{path}[]")


def overlaps(a, b, lo, hi):
    return a <= hi and b >= lo


def check_model(name, m, lo, hi):
    span_ms = (hi - lo).total_seconds() * 1000
    what = f"{name} {lo.time()}..{hi.time()}"
    n_obj = 0
    for path, o in walk(m):
        if path.startswith(SKIP):
            continue
        a, b = o.get("start"), o.get("end")
        if isinstance(a, str) and ISO.match(a):
            end = ts(b) if isinstance(b, str) and ISO.match(b) else (
                ts(a) + datetime.timedelta(milliseconds=o["duration_ms"])
                if isinstance(o.get("duration_ms"), (int, float)) else ts(a))
            n_obj += 1
            check(overlaps(ts(a), end, lo, hi), f"{what}: {path} {a}..{b} outside the window")
        fw, lw = o.get("first_wait"), o.get("last_wait_end")
        if isinstance(fw, str) and isinstance(lw, str):
            check(overlaps(ts(fw), ts(lw), lo, hi), f"{what}: {path} waits {fw}..{lw} outside")
        for k in INSTANTS:
            if isinstance(o.get(k), str) and ISO.match(o[k]):
                check(lo <= ts(o[k]) <= hi, f"{what}: {path}.{k} {o[k]} outside")
    check(n_obj > 0, f"{what}: timed objects in the model")
    holds = list(m["holds"]) + [h for r in m["hot_rows"] for h in r["timeline"]["holds"]]
    check(holds, f"{what}: holds in the window")
    for h in holds:
        check(lo <= ts(h["start"]) and ts(h["end"]) <= hi,
              f"{what}: hold {h['start']}..{h['end']} clipped to the window")
        check(h["hold_ms"] <= span_ms + 1, f"{what}: hold {h['hold_ms']} ms within the window")
    rows = len(m["hot_rows"])
    for key in ("row_occupancy", "code_paths"):
        for r in m[key]:
            check(r["total_hold_ms"] <= span_ms * rows + 1,
                  f"{what}: {key} {r['code_path']} {r['total_hold_ms']} ms within "
                  f"{rows} x {span_ms:.0f} ms")
    for r in m["hot_rows"]:
        mine = [w for w in m["waits"] if w.get("row_id") == r["row_id"]]
        check(r["waits"] == len(mine), f"{what}: row {r['row_key']}: {r['waits']} waits, "
                                       f"{len(mine)} listed in the window")
        check(abs(r["total_wait_ms"] - sum(w["waited_ms"] or 0 for w in mine)) < 1,
              f"{what}: row {r['row_key']}: total wait of its waits in the window")


def main():
    lockspan, root = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="lockspan-window.")
    try:
        for name, windows in WINDOWS.items():
            d = os.path.join(root, "samples", name)
            db = os.path.join(tmp, name + ".db")
            full = os.path.join(tmp, name + ".json")
            ins = [os.path.join(d, "postgresql.log")]
            if os.path.exists(os.path.join(d, "traces.otlp.jsonl")):
                ins.append(os.path.join(d, "traces.otlp.jsonl"))
            p = subprocess.run([lockspan, "analyze", "-q", "--db", db, "--prefix",
                                open(os.path.join(d, "prefix.txt")).read(), "-o", full] + ins,
                               capture_output=True, text=True)
            check(p.returncode == 0, f"{name}: analyze exit {p.returncode}: {p.stderr[-300:]}")
            if p.returncode:
                continue
            if windows is None:
                starts = sorted(w["start"] for w in json.load(open(full))["waits"])
                third = len(starts) // 3
                windows = [(starts[third], starts[2 * third])]
            for lo, hi in windows:
                out = os.path.join(tmp, f"{name}.w.json")
                p = subprocess.run([lockspan, "report", "-q", "--db", db, "--since", lo,
                                    "--until", hi, "-o", out], capture_output=True, text=True)
                check(p.returncode == 0, f"{name}: report exit {p.returncode}: {p.stderr[-300:]}")
                if p.returncode == 0:
                    check_model(name, json.load(open(out)), ts(lo), ts(hi))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report()


if __name__ == "__main__":
    sys.exit(main())
