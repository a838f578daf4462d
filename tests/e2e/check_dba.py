#!/usr/bin/env python3
"""What a DBA without traces reads first (issue 36, item 5): waits by lock
type and object, waiting statements by normalized fingerprint, blocking
transactions by the shape of their first write, on real samples without
traces (samples/basic, samples/realistic).

Usage: check_dba.py LOCKSPAN PROJECT_DIR

For each sample, analyzed into JSON, Markdown and HTML:
  - waits_by_lock: each group's waits, total and max are those of the
    JSON's waits[] with that mode, target kind and relation, and the groups
    add up to the summary's waits and total wait;
  - waiting_statements: the fingerprints carry no literal (no "= 1", no
    quoted string), add up to the summary's waits, and each is the shape
    of the statements of waits[] it stands for (same count and total);
  - blocking_statements: add up to the waits that have a root or holder
    transaction, and name a write;
  - the Markdown and the HTML have the section, its three tables, and a
    contents entry (HTML).
Prints one FAIL line per wrong fact, then "N passed, N failed".
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from lscheck import check, report

LITERAL = re.compile(r"(=|<|>|,|\()\s*(\d|'|\$\d)")


def shape(sql):
    """A rough fingerprint for grouping the test's own way: literals out."""
    s = re.sub(r"/\*.*?\*/", "", sql or "", flags=re.S)
    s = re.sub(r"'(?:[^']|'')*'", "?", s)
    s = re.sub(r"\$\d+|\b\d+(\.\d+)?\b", "?", s)
    s = re.sub(r"\(\s*\?(\s*,\s*\?)*\s*\)", "(?)", s)  # a list of literals: one ?
    return re.sub(r"\s+", " ", s).strip().lower()


def main():
    lockspan, root = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="lockspan-dba.")
    try:
        for name in ("basic", "realistic"):
            d = os.path.join(root, "samples", name)
            out = {f: os.path.join(tmp, f"{name}.{f}") for f in ("json", "md", "html")}
            p = subprocess.run([lockspan, "analyze", "-q", "--db", os.path.join(tmp, name + ".db"),
                                "--prefix", open(os.path.join(d, "prefix.txt")).read(),
                                "--top", "50", "--max-waits", "5000",
                                "-o", out["json"], "-o", out["md"], "-o", out["html"],
                                os.path.join(d, "postgresql.log")], capture_output=True, text=True)
            check(p.returncode == 0, f"{name}: analyze exit {p.returncode}: {p.stderr[-300:]}")
            if p.returncode:
                continue
            m = json.load(open(out["json"]))
            s, waits = m["summary"], m["waits"]
            check(len(waits) == s["waits"], f"{name}: every wait listed")
            by_lock = m.get("waits_by_lock") or []
            check(by_lock, f"{name}: waits_by_lock")
            groups = collections.defaultdict(list)
            for w in waits:
                groups[(w["mode"], w["target_kind"], w["relation"])].append(w["waited_ms"] or 0)
            for g in by_lock:
                mine = groups.get((g["mode"], g["target_kind"], g["object"]), [])
                check(g["waits"] == len(mine) and abs(g["total_wait_ms"] - sum(mine)) < 0.01 and
                      abs(g["max_wait_ms"] - max(mine or [0])) < 0.01,
                      f"{name}: {g['mode']} on {g['target_kind']} of {g['object']}: "
                      f"{g['waits']} waits, {len(mine)} in waits[]")
            check(sum(g["waits"] for g in by_lock) == s["waits"] and
                  abs(sum(g["total_wait_ms"] for g in by_lock) - s["total_wait_ms"]) < 0.1,
                  f"{name}: waits_by_lock adds up to the summary")
            stmts = m.get("waiting_statements") or []
            check(stmts, f"{name}: waiting_statements")
            check(sum(x["waits"] for x in stmts) == s["waits"],
                  f"{name}: waiting statements add up to the summary's waits")
            mine = collections.defaultdict(list)
            for w in waits:
                mine[shape(w["statement"])].append(w["waited_ms"] or 0)
            for x in stmts:
                check(not LITERAL.search(x["fingerprint"]),
                      f"{name}: no literal in {x['fingerprint']!r}")
                ws = mine.get(shape(x["fingerprint"]), [])
                check(len(ws) == x["waits"] and abs(sum(ws) - x["total_wait_ms"]) < 0.01,
                      f"{name}: {x['fingerprint']!r}: {x['waits']} waits, {len(ws)} in waits[]")
            blk = m.get("blocking_statements") or []
            check(blk and sum(x["waits"] for x in blk) == s["waits"],
                  f"{name}: blocking statements add up to the waits")
            check(all(re.match(r"(update|insert|delete|select .* for (update|share)|"
                               r"\(no write logged\))", x["fingerprint"]) for x in blk),
                  f"{name}: blocking fingerprints are writes: {[x['fingerprint'] for x in blk]}")
            md = open(out["md"], encoding="utf-8").read()
            page = open(out["html"], encoding="utf-8").read()
            for t in ("Waits by lock type and object", "Waiting statements",
                      "Blocking transactions by statement"):
                check(f"### {t}" in md, f"{name}: Markdown has {t}")
                check(f"<h3>{t}</h3>" in page, f"{name}: HTML has {t}")
            check('<a href="#by-statement">' in page.split("</nav>")[0],
                  f"{name}: the HTML's contents list the section")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report()


if __name__ == "__main__":
    sys.exit(main())
