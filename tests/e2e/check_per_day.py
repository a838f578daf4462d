#!/usr/bin/env python3
"""A calendar of daily reports (issue 36, item 5): `lockspan report --db
STORE --per-day DIR`, on a store of three real samples of three days
(samples/basic 2026-12-02, app-skew 2026-12-03, blind-py 2026-12-06).

Usage: check_per_day.py LOCKSPAN PROJECT_DIR

  - exit 0; DIR holds index.html and one YYYY-MM-DD.html per day with
    events, no other file; the last stderr line names DIR/index.html;
  - the index lists every day from the first to the last (the 4th and 5th
    "nothing logged", not linked), links each day's report, and its waits
    are each day's own: a JSON report of the store with --since DAY
    --until the next midnight (less 1 µs) counts the same waits, and the
    day's HTML is that window's (it states it, its title names the day);
  - the days' waits add up to the store's (no wait spans a midnight here);
  - --tz moves the days: in Pacific/Kiritimati (UTC+14) the 2026-12-02
    sample's waits fall on 2026-12-03 (the only day of index rows that
    changes);
  - -o with --per-day is a usage error (exit 2), a file as DIR fails.
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

DAYS = ["2026-12-02", "2026-12-03", "2026-12-04", "2026-12-05", "2026-12-06"]
EMPTY = {"2026-12-04", "2026-12-05"}


def run(args):
    return subprocess.run(args, capture_output=True, text=True)


def index_rows(path):
    s = open(path, encoding="utf-8").read()
    body = s.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    rows = {}
    for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)
        m = re.search(r'<a href="([^"]+)">([^<]+)</a>', cells[0])
        day = m.group(2) if m else cells[0]
        rows[day] = {"href": m.group(1) if m else None,
                     "waits": int(cells[1]) if m else None, "cells": cells}
    return rows


def main():
    lockspan, root = sys.argv[1], sys.argv[2]
    s = os.path.join(root, "samples")
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "nightly.db")
        p = run([lockspan, "ingest", "-q", "--db", db, "--prefix",
                 open(os.path.join(s, "basic", "prefix.txt")).read(),
                 os.path.join(s, "basic", "postgresql.log")])
        check(p.returncode == 0, f"ingest basic: {p.stderr[-200:]}")
        p = run([lockspan, "ingest", "-q", "--db", db, os.path.join(s, "app-skew", "postgresql.log"),
                 os.path.join(s, "blind-py", "postgresql.log")])
        check(p.returncode == 0, f"ingest app-skew, blind-py: {p.stderr[-200:]}")
        out = os.path.join(tmp, "days")
        p = run([lockspan, "report", "--db", db, "--per-day", out])
        check(p.returncode == 0, f"report --per-day: exit {p.returncode}: {p.stderr[-300:]}")
        if p.returncode != 0:
            return report()
        last = p.stderr.strip().splitlines()[-1]
        check(last.endswith(f"written to {out}/index.html"), f"last stderr line: {last!r}")
        files = sorted(os.listdir(out))
        want = sorted(["index.html"] + [d + ".html" for d in DAYS if d not in EMPTY])
        check(files == want, f"DIR holds {files}, not {want}")
        rows = index_rows(os.path.join(out, "index.html"))
        check(list(rows) == DAYS, f"the index lists every day in order: {list(rows)}")
        total = run([lockspan, "report", "--db", db, "--format", "json"])
        all_waits = json.loads(total.stdout)["summary"]["waits"]
        summed = 0
        for day in DAYS:
            r = rows.get(day)
            if r is None:
                continue
            if day in EMPTY:
                check(r["href"] is None and "nothing logged" in " ".join(r["cells"]),
                      f"{day}: nothing logged, no link")
                continue
            check(r["href"] == day + ".html", f"{day}: links {r['href']}")
            d0 = datetime.datetime.fromisoformat(day).replace(tzinfo=datetime.timezone.utc)
            d1 = d0 + datetime.timedelta(days=1) - datetime.timedelta(microseconds=1)
            j = run([lockspan, "report", "--db", db, "--format", "json",
                     "--since", d0.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                     "--until", d1.strftime("%Y-%m-%dT%H:%M:%S.%fZ")])
            waits = json.loads(j.stdout)["summary"]["waits"]
            check(r["waits"] == waits and waits > 0,
                  f"{day}: index says {r['waits']} waits, the day's window has {waits}")
            summed += r["waits"]
            page = open(os.path.join(out, day + ".html"), encoding="utf-8").read()
            check(f"<h1>Lock contention report, {day}</h1>" in page, f"{day}: the title names the day")
            check(re.search(r'<p class="filter">Filtered: since <[a-z]+>' + day, page),
                  f"{day}: its report states its window")
        check(summed == all_waits, f"the days' waits {summed} add up to the store's {all_waits}")

        # --tz: days are the zone's.
        out2 = os.path.join(tmp, "days-tz")
        p = run([lockspan, "report", "-q", "--db", db, "--tz", "Pacific/Kiritimati",
                 "--per-day", out2])
        check(p.returncode == 0, f"--tz: exit {p.returncode}: {p.stderr[-200:]}")
        if p.returncode == 0:
            tz = index_rows(os.path.join(out2, "index.html"))
            check("2026-12-02" not in tz or tz["2026-12-02"]["href"] is None,
                  f"--tz UTC+14: nothing left on 2026-12-02: {list(tz)}")
            check(tz.get("2026-12-03", {}).get("waits") ==
                  rows["2026-12-02"]["waits"] + rows["2026-12-03"]["waits"],
                  "--tz UTC+14: 2026-12-02's waits move to 2026-12-03")
        p = run([lockspan, "report", "--db", db, "--per-day", out, "-o", os.path.join(tmp, "r.md")])
        check(p.returncode == 2 and "--per-day" in p.stderr, f"-o with --per-day: exit {p.returncode}")
        p = run([lockspan, "report", "--db", db, "--per-day", db])
        check(p.returncode not in (0, 2) and "--per-day" in p.stderr,
              f"a file as DIR: exit {p.returncode}: {p.stderr[-200:]}")
    return report()


if __name__ == "__main__":
    sys.exit(main())
