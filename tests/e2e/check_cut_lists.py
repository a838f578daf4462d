#!/usr/bin/env python3
"""Every cut list says it was cut (mission rule "a bound that cut data says
so"; issue 33), on samples/blind-rb (a real Rails run: 247 errors, 234
serialization failures and 13 deadlocks, 17 waits).

Usage: check_cut_lists.py LOCKSPAN PROJECT_DIR

Analyzed once into a store, then reported four ways:
  - default: errors[] lists 200 and cut.errors is {listed 200, total 247,
    lift --max-errors}, the total equal to the summary's error counts
    (serialization failures + deadlocks) and to the list --max-errors
    lifts; the Markdown and HTML say "200 of 247 errors shown" and name
    --max-errors; no other list is cut (cut has errors alone);
  - --max-deadlocks 5: deadlocks[] lists 5, cut.deadlocks {5, 13 =
    summary.deadlocks, --max-deadlocks}, "5 of 13 deadlocks shown";
  - --top 1: the rankings say "Top 1 of M" with M the length of the list
    a large --top gives (hot_rows, root_blockers, holds);
  - --max-errors 1000 --top 1000: nothing cut: no cut object, no note;
    the exit status stays 0 whenever every input was read.
Each cut entry of the JSON (whatever its list) has its note in the
Markdown and the HTML. Prints one FAIL line per wrong fact, then
"N passed, N failed".
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from lscheck import check, report


def run(args):
    p = subprocess.run(args, capture_output=True, text=True)
    check(p.returncode == 0, f"{' '.join(args[1:3])}: exit {p.returncode}: {p.stderr[-300:]}")
    return p.returncode == 0


def notes(text):
    """The cut notes of a Markdown or HTML report, tags dropped."""
    text = re.sub(r"<[^>]+>", "", text)
    return re.findall(r"(?:Top )?\d+ of \d+ [a-z ]+ shown \(--[a-z-]+ to list more\)", text)


def main():
    lockspan, root = sys.argv[1], sys.argv[2]
    d = os.path.join(root, "samples", "blind-rb")
    tmp = tempfile.mkdtemp(prefix="lockspan-cutlists.")
    try:
        db = os.path.join(tmp, "rb.db")
        if not run([lockspan, "ingest", "-q", "--db", db, "--prefix",
                    open(os.path.join(d, "prefix.txt")).read().strip(),
                    os.path.join(d, "postgresql.log")]):
            return report()
        ways = {
            "default": [],
            "dl5": ["--max-deadlocks", "5"],
            "top1": ["--top", "1"],
            "all": ["--max-errors", "1000", "--top", "1000"],
        }
        m, md, html = {}, {}, {}
        for k, extra in ways.items():
            out = {f: os.path.join(tmp, f"{k}.{f}") for f in ("json", "md", "html")}
            if not run([lockspan, "report", "-q", "--db", db, *extra,
                        "-o", out["json"], "-o", out["md"], "-o", out["html"]]):
                m[k] = {"summary": {}}
                md[k] = html[k] = ""
                continue
            m[k] = json.load(open(out["json"]))
            md[k] = open(out["md"], encoding="utf-8").read()
            html[k] = open(out["html"], encoding="utf-8").read()

        if "errors" not in m["all"]:
            m["all"] = {"errors": [], "hot_rows": [], "root_blockers": [], "holds": []}
        s = m["default"]["summary"]
        cut = m["default"].get("cut", {})
        errors_total = s["serialization_failures"] + s["deadlocks"] + s["lock_timeouts"] + \
            s["lock_nowait_failures"] + s["statement_timeouts"] + s["idle_in_transaction_timeouts"]
        check(errors_total == 247, f"blind-rb's summary counts 247 errors ({errors_total})")
        check(len(m["default"]["errors"]) == 200, f"errors[] lists 200 ({len(m['default']['errors'])})")
        check(cut.get("errors") == {"listed": 200, "total": errors_total, "lift": "--max-errors"},
              f"cut.errors {cut.get('errors')}")
        check(len(m["all"]["errors"]) == errors_total,
              f"--max-errors 1000 lists all {errors_total} ({len(m['all']['errors'])})")
        check(set(cut) == {"errors"}, f"only errors is cut by default ({sorted(cut)})")
        for name, text in (("Markdown", md["default"]), ("HTML", html["default"])):
            check("200 of 247 errors shown (--max-errors to list more)" in notes(text),
                  f"the {name} says 200 of 247 errors shown: {notes(text)}")

        dl = m["dl5"]
        check(len(dl.get("deadlocks", [])) == 5, f"--max-deadlocks 5 lists 5 ({len(dl.get('deadlocks', []))})")
        check(dl.get("cut", {}).get("deadlocks") ==
              {"listed": 5, "total": dl["summary"].get("deadlocks"), "lift": "--max-deadlocks"}
              and dl["summary"].get("deadlocks") == 13,
              f"cut.deadlocks {dl.get('cut', {}).get('deadlocks')} (summary "
              f"{dl['summary'].get('deadlocks')})")
        for name, text in (("Markdown", md["dl5"]), ("HTML", html["dl5"])):
            check("5 of 13 deadlocks shown (--max-deadlocks to list more)" in notes(text),
                  f"the {name} says 5 of 13 deadlocks shown: {notes(text)}")
        check("deadlocks" not in m["default"].get("cut", {}),
              "the 13 deadlocks are whole under the default 100")

        t1, full = m["top1"], m["all"]
        for k, what in (("hot_rows", "hot rows"), ("root_blockers", "root blockers"),
                        ("holds", "holds")):
            total = len(full[k])
            c = t1.get("cut", {}).get(k)
            if total > 1:
                check(c == {"listed": 1, "total": total, "lift": "--top", "top": True},
                      f"--top 1: cut.{k} {c} (the whole list has {total})")
                for name, text in (("Markdown", md["top1"]), ("HTML", html["top1"])):
                    check(f"Top 1 of {total} {what} shown (--top to list more)" in notes(text),
                          f"the {name} says top 1 of {total} {what}: {notes(text)}")
        check(len(full["hot_rows"]) > 1 and len(full["root_blockers"]) > 1,
              "blind-rb has more than one hot row and root blocker")

        check("cut" not in full, f"--max-errors 1000 --top 1000: no cut ({full.get('cut')})")
        check(notes(md["all"]) == [] and notes(html["all"]) == [],
              "nothing cut: no note in the Markdown or the HTML")

        # Whatever the list, each cut entry has its note in both formats.
        for k in ways:
            for path, c in m[k].get("cut", {}).items():
                if path == "lift":
                    continue
                want = f"{c['listed']} of {c['total']} "
                for name, text in (("Markdown", md[k]), ("HTML", html[k])):
                    check(any(n.startswith(want) or n.startswith("Top " + want)
                              for n in notes(text)),
                          f"{k}: cut.{path} has its note in the {name}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report()


if __name__ == "__main__":
    sys.exit(main())
