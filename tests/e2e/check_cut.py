#!/usr/bin/env python3
"""Nothing cut silently (issue 36, item 4), on samples/app (a real traced
run: 27 logged waits on inventory id=1, 24 holds, 12:36:29.8-33.754).

Usage: check_cut.py LOCKSPAN PROJECT_DIR

Analyzed once into a store, then reported with --max-waits 5 (every list
of the row's timeline cut) and --max-waits 100 (nothing cut):
  - cut: JSON hot_rows[0].timeline.truncated, cut.waits {listed 5, total
    27} and cut.holds, cut.lift "--max-waits"; the top-level cut.waits;
  - cut: the HTML says what it cut (5 of the row's 27 waits, the holds)
    and how to see all (--max-waits 27), and the timeline's axis still
    runs to the row's last wait (12:36:33.754), with a shaded band where
    nothing is drawn; the Markdown's mermaid chart ends with a "not drawn"
    bar to that same instant and says it cut;
  - --max-waits lifts the bound: with 100 the timeline lists and draws all
    27 logged waits and all 24 holds, says nothing is cut, has no cut
    field, and no shaded band.
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


def ms(iso):
    t = datetime.datetime.fromisoformat(iso.replace("Z", "+00:00"))
    return int(t.timestamp() * 1000)


def run(args):
    p = subprocess.run(args, capture_output=True, text=True)
    check(p.returncode == 0, f"{' '.join(args[:2])}: exit {p.returncode}: {p.stderr[-300:]}")
    return p.returncode == 0


def main():
    lockspan, root = sys.argv[1], sys.argv[2]
    d = os.path.join(root, "samples", "app")
    tmp = tempfile.mkdtemp(prefix="lockspan-cut.")
    try:
        db = os.path.join(tmp, "app.db")
        if not run([lockspan, "analyze", "-q", "--db", db, "--prefix",
                    open(os.path.join(d, "prefix.txt")).read(), "-o", os.path.join(tmp, "a.json"),
                    os.path.join(d, "postgresql.log"), os.path.join(d, "traces.otlp.jsonl")]):
            return report()
        out = {}
        for n in (5, 100):
            out[n] = {f: os.path.join(tmp, f"r{n}.{f}") for f in ("json", "md", "html")}
            run([lockspan, "report", "-q", "--db", db, "--max-waits", str(n),
                 "-o", out[n]["json"], "-o", out[n]["md"], "-o", out[n]["html"]])
        m = json.load(open(out[5]["json"]))
        row = m["hot_rows"][0]
        tl = row["timeline"]
        check(row["waits"] == 27, f"the row has 27 waits ({row['waits']})")
        check(tl.get("truncated") is True, "cut: timeline.truncated")
        cut = tl.get("cut", {})
        check(cut.get("waits") == {"listed": 5, "total": 27}, f"cut: cut.waits {cut.get('waits')}")
        check(cut.get("holds", {}).get("listed") == 5 and cut.get("holds", {}).get("total", 0) > 5,
              f"cut: cut.holds {cut.get('holds')}")
        check(cut.get("lift") == "--max-waits", "cut: cut.lift")
        check(m.get("cut", {}).get("waits") == {"listed": 5, "total": 27, "lift": "--max-waits"},
              f"cut: the top-level cut.waits {m.get('cut')}")
        check(m.get("cut", {}).get("lift") == "--max-waits", "cut: the top-level cut.lift")
        last = tl.get("last_wait_end")
        check(last == "2026-12-02T12:36:33.754000Z", f"cut: timeline.last_wait_end {last}")
        page = open(out[5]["html"], encoding="utf-8").read()
        note = re.search(r'<p class="note cut">(.*?)</p>', page, re.S)
        check(note is not None, "cut: the HTML says it cut")
        if note:
            t = re.sub(r"<[^>]+>", "", note.group(1))
            check("5 of the row's 27 waits" in t and "of the row's 24 holds" in t,
                  f"cut: the HTML says what: {t[:200]!r}")
            check("--max-waits 27" in t, "cut: the HTML says how to see all")
        ep = re.search(r'<p class="episode">Episode 1: ([^<]*?) to ([^<]*?) \(', page)
        check(ep is not None and ep.group(2) == "2026-12-02 12:36:33.754",
              f"cut: the timeline runs to the last wait ({ep.group(2) if ep else None})")
        check('<rect class="cut"' in page, "cut: a shaded band where nothing is drawn")
        md = open(out[5]["md"], encoding="utf-8").read()
        bar = re.search(r"section not drawn\n.*:done, cut1, (\d+), (\d+)\n", md)
        check(bar is not None and int(bar.group(2)) == ms(last),
              "cut: the mermaid chart runs to the last wait with a 'not drawn' bar")
        check("_Cut: " in md, "cut: the Markdown says it cut")

        m = json.load(open(out[100]["json"]))
        tl = m["hot_rows"][0]["timeline"]
        check(len(tl["waits"]) == 27 and len(tl["holds"]) == 24,
              f"--max-waits 100: all waits and holds listed ({len(tl['waits'])}, {len(tl['holds'])})")
        check(tl.get("truncated") is False and tl.get("cut") == {},
              f"--max-waits 100: nothing cut ({tl.get('cut')})")
        check("waits" not in m.get("cut", {}), "--max-waits 100: waits[] not cut")
        check(all(c.get("lift") == "--top" for c in m.get("cut", {}).values()),
              f"--max-waits 100: no list cut but --top's rankings ({m.get('cut')})")
        page = open(out[100]["html"], encoding="utf-8").read()
        # A bar has its tooltip; the legend's keys have none.
        drawn = len(re.findall(r'<rect class="wait o-[^>]*><title>', page))
        check(drawn == 27, f"--max-waits 100: the HTML draws the 27 logged waits ({drawn})")
        check('class="note cut"' not in page and '<rect class="cut"' not in page,
              "--max-waits 100: no cut note, no band")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report()


if __name__ == "__main__":
    sys.exit(main())
