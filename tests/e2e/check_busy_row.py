#!/usr/bin/env python3
"""A busy row's timeline covers its whole episode (issue 36, item 3), on
samples/busy-row: the first 100,000 lines of a real bench/pgbench_log.sh
run (samples/README.md), whose branch row bid=1 has over 500 logged waits.

Usage: check_busy_row.py LOCKSPAN PROJECT_DIR

Analyzed with the default bounds (the timeline lists 200 of the row's
waits and 400 of its queue points, timeline.cut says so):
  - JSON: the top row has at least 500 waits, its timeline is cut, and
    timeline.queue_buckets covers the row's queue to timeline.last_wait_end
    (its last bucket ends there, at depth 0);
  - HTML: the cut note says the queue depth is drawn to the end;
  - HTML: the row's timeline axis reaches the last wait, and its queue
    depth is drawn to it: the depth path's last change of level is at the
    x of the last wait's end (within 1 unit), not where the listed points
    stop (on the code before this test: +5.6 s of a 12.4 s episode).
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

MIN_WAITS = 500


def ts(iso):
    return datetime.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def depth_path(fig):
    d = re.search(r'<path class="depth" d="([^"]*)"', fig)
    return [(float(x), float(y)) for x, y in re.findall(r"[ML]([\d.]+) ([\d.]+)", d.group(1))] if d else []


def main():
    lockspan, root = sys.argv[1], sys.argv[2]
    d = os.path.join(root, "samples", "busy-row")
    with tempfile.TemporaryDirectory() as tmp:
        js, page = os.path.join(tmp, "r.json"), os.path.join(tmp, "r.html")
        p = subprocess.run([lockspan, "analyze", "-q", "--prefix",
                            open(os.path.join(d, "prefix.txt")).read(), "-o", js, "-o", page,
                            os.path.join(d, "postgresql.log.xz")], capture_output=True, text=True)
        check(p.returncode == 0, f"analyze exit {p.returncode}: {p.stderr[-300:]}")
        if p.returncode != 0:
            return report()
        row = json.load(open(js))["hot_rows"][0]
        s = open(page, encoding="utf-8").read()
    tl = row["timeline"]
    check(row["waits"] >= MIN_WAITS, f"the top row has {row['waits']} waits (>= {MIN_WAITS})")
    check(tl.get("truncated") and tl["cut"]["waits"]["listed"] < row["waits"],
          f"its timeline lists part of its waits: {tl.get('cut')}")
    last = tl["last_wait_end"]
    b = tl.get("queue_buckets") or []
    check(b and b[-1]["end"] == last and b[-1]["end_depth"] == 0,
          f"queue_buckets end at the last wait's end {last}, queue empty: {b[-1:] }")
    check(b and ts(b[0]["time"]) <= ts(tl["queue"][0]["time"]), "queue_buckets start with the queue")

    m = re.search(r'<figure class="timeline" id="timeline-1">(.*?)</figure>', s, re.S)
    check(m is not None, "the top row's timeline is drawn")
    if not m:
        return report()
    fig = m.group(1)
    ep = re.search(r"Episode 1: (\S+ \S+) to (\S+ \S+) \(", fig)
    ticks = [(float(x), 0.0 if v == "0" else float(v[1:-2]))
             for x, v in re.findall(r'<text class="tick" x="([\d.]+)" y="\d+">([^<]*)</text>', fig)
             if v == "0" or re.fullmatch(r"\+[\d.]+ s", v)]
    check(ep and len(ticks) >= 2 and ticks[0][1] == 0, f"axis from the episode's start: {ticks[:3]}")
    if not (ep and len(ticks) >= 2):
        return report()
    (x0, _), (x1, s1) = ticks[0], ticks[-1]
    per_s = (x1 - x0) / s1
    start = ts(ep.group(1).replace(" ", "T") + "+00:00")
    x_last = x0 + per_s * (ts(last) - start)
    axis_end = max(x for x, _ in depth_path(fig)) if depth_path(fig) else 0
    check(axis_end >= x_last - 1, f"the axis (to x={axis_end:.1f}) reaches the last wait (x={x_last:.1f})")
    pts = depth_path(fig)[1:-2]  # without the start at the base and the close
    changes = [x2 for (x, y), (x2, y2) in zip(pts, pts[1:]) if y != y2]
    lastx = max(changes) if changes else 0
    check(abs(lastx - x_last) <= 1,
          f"queue depth drawn to the last wait: last change at x={lastx:.1f}, last wait at "
          f"x={x_last:.1f} (+{(ts(last) - start):.1f} s)")
    note = re.search(r'<p class="note cut">(.*?)</p>', s, re.S)
    t = re.sub(r"<[^>]+>", "", note.group(1)) if note else ""
    check("queue depth, drawn to the end" in t and "queue-depth points" not in t,
          f"the cut note says the queue depth is drawn whole: {t[:300]!r}")
    return report()


if __name__ == "__main__":
    sys.exit(main())
