#!/usr/bin/env python3
"""A store that spans days gets one timeline per contention episode.

samples/app and samples/app-skew are two runs of the same application on a
real server, on 2026-12-02 at 12:36 and on 2026-12-03 at 06:06 UTC, both
contending for the row inventory id=1. One store holds both days' logs (a
nightly store), and the HTML report must draw that row in two episodes,
each zoomed to its own run (seconds, not the 17 hours between them), each
holding the waits its run's client recorded (truth.json, on the
application's clock: app-skew's runs 300 ms ahead, hence the slack).

Usage: check_episodes.py LOCKSPAN SAMPLES_DIR
"""
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile

from lscheck import check, report

SLACK = 0.5  # s: app-skew's clock is 300 ms ahead of the server's


def ts(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def page_ts(s):
    return datetime.datetime.strptime(s, "%Y-%m-%d %H:%M:%S.%f").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def main():
    lockspan, samples = sys.argv[1], sys.argv[2]
    runs = ["app", "app-skew"]
    truths = [json.load(open(os.path.join(samples, r, "truth.json"))) for r in runs]
    waits = [[(ts(w["wait_start"]), ts(w["wait_end"])) for w in t["waits"]] for t in truths]
    check(min(w[0] for w in waits[1]) - max(w[1] for w in waits[0]) > 12 * 3600,
          "the two runs are more than 12 hours apart")
    with tempfile.TemporaryDirectory() as tmp:
        page, js = os.path.join(tmp, "r.html"), os.path.join(tmp, "r.json")
        r = subprocess.run([lockspan, "analyze", "-q", "-o", page, "-o", js] +
                           [os.path.join(samples, x, "postgresql.log") for x in runs])
        check(r.returncode == 0, "analyze both days' logs")
        rep = json.load(open(js))
        raw = open(page, encoding="utf-8").read()

    hot = rep["hot_rows"][0] if rep["hot_rows"] else {}
    check((hot.get("relation"), hot.get("row_key")) == ("inventory", "id=1"),
          "the hot row is inventory id=1")
    check(ts(hot["last_wait_end"]) - ts(hot["first_wait"]) > 12 * 3600,
          "its waits span both days")
    fig = raw.split("<figure", 1)[1].split("</figure>", 1)[0] if "<figure" in raw else ""
    eps = re.findall(r"Episode (\d+): (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) to "
                     r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3})", fig)
    svgs = fig.count('<svg class="tl"')
    check(len(eps) == 2 and svgs == 2,
          f"the row's figure: two episodes, a timeline each ({len(eps)} episodes, {svgs} svgs)")
    check("in 2 episodes" in fig, "the figure says the row was contended in 2 episodes")
    for (n, a, b), mine, other in zip(eps, waits, reversed(waits)):
        lo, hi = page_ts(a), page_ts(b)
        check(hi - lo < 60, f"episode {n} is zoomed to its run: {a} to {b}")
        inside = [w for w in mine if lo - SLACK <= w[0] and w[1] <= hi + SLACK]
        check(len(inside) == len(mine),
              f"episode {n} holds its run's {len(mine)} waits ({len(inside)})")
        check(not [w for w in other if lo - SLACK <= w[0] <= hi + SLACK],
              f"episode {n} holds none of the other day's waits")
    return report()


if __name__ == "__main__":
    sys.exit(main())
