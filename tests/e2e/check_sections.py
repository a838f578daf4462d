#!/usr/bin/env python3
"""The section table against the JSON report (issue 33): every column of
every table in reports/sections.c names a key the model really has, at the
table's path, on the JSON reports of real samples. The JSON report is the
model the HTML and Markdown tables are rendered from, so a column whose key
the model lacks would be an empty column in both; a model key renamed
without its column fails here.

Usage: check_sections.py LOCKSPAN PROJECT_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lscheck import check, report  # noqa: E402

lockspan, root = sys.argv[1], sys.argv[2]
samples = os.path.join(root, "samples")

COLUMN = re.compile(r'\{"(?:[^"\\]|\\.)*",\s*(?:NULL|"(?:[^"\\]|\\.)*"),\s*"(\w+)",\s*(LS_CELL_\w+),')
ARRAY = re.compile(r"static const ls_column (\w+)\[\] = \{(.*?)\n\};", re.S)
TABLE = re.compile(r'const ls_table (ls_tab_\w+) =\s*(?:TABLE|TITLED)\("([^"]*)",\s*"([^"]*)",.*?(\w+_cols)\);', re.S)


def tables():
    """{table name: (path, [(key, kind)])} from sections.c."""
    text = open(os.path.join(root, "reports", "sections.c")).read()
    cols = {name: COLUMN.findall(body) for name, body in ARRAY.findall(text)}
    out = {}
    for _, name, path, arr in TABLE.findall(text):
        out[name] = (path, cols[arr])
    return out


def rows_at(model, path):
    """The rows at a path: "a[].b" is b of every element of a."""
    level = [model]
    steps = path.split(".")
    for i, step in enumerate(steps):
        many = step.endswith("[]")
        key = step[:-2] if many else step
        nxt = []
        for o in level:
            v = o.get(key) if isinstance(o, dict) else None
            if v is None:
                continue
            if many or i == len(steps) - 1:
                nxt.extend(v if isinstance(v, list) else [])
            else:
                nxt.append(v)
        level = nxt
    return [r for r in level if isinstance(r, dict)]


def analyze(tmp, name, inputs, extra=(), prefix=None):
    out = os.path.join(tmp, name + ".json")
    if prefix is None:
        prefix = open(os.path.join(samples, inputs[0].split("/")[0],
                                   "prefix.txt")).read().rstrip("\n")
    run = subprocess.run([lockspan, "analyze", "-q", "--db", os.path.join(tmp, name + ".db"),
                          "--prefix", prefix, "--format", "json", "--top", "1000", "-o", out,
                          *extra] + [os.path.join(samples, i) for i in inputs],
                         stderr=subprocess.PIPE, text=True)
    if run.returncode != 0:
        sys.exit(f"analyze {name} failed ({run.returncode}): {run.stderr[-2000:]}")
    return json.load(open(out))


# No bundled sample has two code paths writing the same relations in
# opposite orders; tests/unit/test_sections.c renders that table.
NO_SAMPLE = {"lock order conflicts"}


def main():
    tabs = tables()
    check(len(tabs) == 24, f"24 tables read from sections.c (read {len(tabs)})")
    # the first requests of hidden-traces, by trace id: some of them waited
    tids = []
    for line in open(os.path.join(samples, "hidden-traces", "traces.otlp.jsonl")):
        for t in re.findall(r'"traceId":"([0-9a-f]{32})"', line):
            if t not in tids and len(tids) < 40:
                tids.append(t)
    with tempfile.TemporaryDirectory() as tmp:
        models = [
            analyze(tmp, "realistic", ["realistic/postgresql.log"]),
            analyze(tmp, "app", ["app/postgresql.log", "app/traces.otlp.jsonl"]),
            analyze(tmp, "hidden", ["hidden-traces/postgresql.log",
                                    "hidden-traces/traces.otlp.jsonl"],
                    [a for t in tids for a in ("--trace-id", t)]),
            analyze(tmp, "hostile", ["hostile/postgresql.log"]),
            # a DDL pile-up: the relation lock queues
            analyze(tmp, "ddl", ["ddl-queue/postgresql.log"]),
            # a wrong prefix on a real log: unparsable lines, sampled
            analyze(tmp, "bad", ["hidden/postgresql.log"], ["--max-bad-lines", "100%"],
                    prefix="%m [%p] %q%c "),
        ]
    unseen = []
    for name, (path, cols) in sorted(tabs.items()):
        rows = [r for m in models for r in rows_at(m, path)]
        if not rows:
            if name not in NO_SAMPLE:
                unseen.append(name)
            continue
        for key, kind in cols:
            missing = sum(1 for r in rows if key not in r)
            check(missing == 0, f"{name} ({path}): {missing} of {len(rows)} rows have no {key!r}")
            if kind == "LS_CELL_PID":
                code = key[:-3] + "code_path"
                check(all(code in r for r in rows), f"{name}: rows have no {code!r} beside {key!r}")
    # Every table is exercised by these samples: a table no sample fills
    # would be checked by nothing.
    check(not unseen, f"tables with no rows in the samples' reports: {unseen}")
    return report()


if __name__ == "__main__":
    sys.exit(main())
