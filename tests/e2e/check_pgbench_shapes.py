#!/usr/bin/env python3
"""Code paths from transaction shapes (issue 34 item 6), against a real
pgbench run's truth (samples/pgbench-shapes, made by
samples/pgbench-shapes.sh): no traces, no sqlcommenter tag, every session
named "pgbench"; three scripts whose transactions differ in shape, each
transaction holding the hot branch row once.

Checked, from the client side's truth (truth-shapes.json: pgbench's
per-transaction log, per script):
  - by default, the occupancy ranking has one path per script, each
    named by its transaction shape, labelled with the verb and relation of
    each of the script's statements (BEGIN and END left out, a run of one
    step as "STEP xN"; the label is built here from the script's SQL);
  - the paths' order by total hold equals the truth's order (committed
    transactions x the client work each does while it holds the row);
  - each path's holds equal the script's committed transactions within
    max(2, 2 %) (a transaction cut by the run's end may or may not be
    logged);
  - the report says why the shape names the paths, and gives each path's
    full statements (JSON "statements", Markdown and HTML);
  - --code-path LABEL keeps the waits whose waiter or holder has that
    shape;
  - --group-by shape gives the same paths; --group-by application the one
    path "pgbench" (the other choice still works).

Usage: check_pgbench_shapes.py LOCKSPAN SAMPLE_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile

from lscheck import check, report

HOLD_TOLERANCE = 0.02  # of a script's committed transactions
HOLD_SLACK = 2         # at least this many holds


def step(sql):
    """The step lockspan's label shows for a statement of a script."""
    verb = sql.split()[0].upper().rstrip(";")
    if verb in ("BEGIN", "END", "COMMIT", "ROLLBACK"):
        return None
    m = (re.match(r"UPDATE\s+(\w+)", sql, re.I) or re.match(r"INSERT\s+INTO\s+(\w+)", sql, re.I)
         or re.search(r"\bFROM\s+(\w+)", sql, re.I))
    return verb + (" " + m.group(1) if m else "")


def label(statements):
    runs = []
    for s in statements:
        st = step(s)
        if st is None:
            continue
        if runs and runs[-1][0] == st:
            runs[-1][1] += 1
        else:
            runs.append([st, 1])
    return "; ".join(s if n == 1 else f"{s} x{n}" for s, n in runs)


def analyze(lockspan, sample, out, *extra):
    prefix = open(os.path.join(sample, "prefix.txt")).read()
    r = subprocess.run([lockspan, "analyze", "-q", "--prefix", prefix, "-o", out, *extra,
                        os.path.join(sample, "postgresql.log.gz")],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"analyze {' '.join(extra)} exits 0 ({r.returncode}: {r.stderr[-300:]})")
    return out if r.returncode == 0 else None


def load(path):
    return json.load(open(path)) if path else {}


def read(path):
    return open(path).read() if path else ""


def main():
    lockspan, sample = sys.argv[1], sys.argv[2]
    truth = json.load(open(os.path.join(sample, "truth-shapes.json")))
    want = {label(s["statements"]): s for s in truth["scripts"]}
    check(len(want) == len(truth["scripts"]) == 3, "the truth's three scripts have three shapes")
    with tempfile.TemporaryDirectory() as tmp:
        js = load(analyze(lockspan, sample, os.path.join(tmp, "r.json"), "--format", "json"))
        occ = js.get("row_occupancy", [])
        got = {p["code_path"]: p for p in occ}
        check(set(got) == set(want),
              f"one occupancy path per script shape: {sorted(got)} == {sorted(want)}")
        for p in occ:
            check(p.get("named_by") == "transaction shape",
                  f"{p['code_path']!r} named by the transaction shape ({p.get('named_by')})")
            check("update pgbench_branches set bbalance" in p.get("statements", ""),
                  f"{p['code_path']!r} has its full statements")
        order = [want[p["code_path"]]["script"] for p in occ if p["code_path"] in want]
        check(order == truth["occupancy_order"],
              f"occupancy order {order} == truth {truth['occupancy_order']}")
        for lab, s in want.items():
            if lab not in got:
                continue
            holds, committed = got[lab]["holds"], s["committed"]
            tol = max(HOLD_SLACK, HOLD_TOLERANCE * committed)
            check(abs(holds - committed) <= tol,
                  f"{s['script']}: {holds} holds, truth {committed} transactions (+-{tol:.0f})")
        ident = js.get("code_path_identity", {})
        check(ident.get("fallback") == "transaction shape"
              and "application_name" in ident.get("reason", ""),
              f"the report says why the shape names the paths ({ident})")
        md = read(analyze(lockspan, sample, os.path.join(tmp, "r.md")))
        html = read(analyze(lockspan, sample, os.path.join(tmp, "r.html")))
        for lab in want:
            check(lab.replace("_", "\\_") in md, f"the Markdown names {lab!r}")
            check(lab in html, f"the HTML names {lab!r}")
        check(md.count("update pgbench_branches set bbalance") >= 3,
              "the Markdown gives each shape's statements")
        check(html.count('<details class="shape">') == 3, "the HTML folds each shape's statements")
        # --code-path LABEL keeps the waits whose waiter or holder runs it
        kept = 0
        for lab in want:
            f = load(analyze(lockspan, sample, os.path.join(tmp, "f.json"), "--format", "json",
                             "--code-path", lab))
            exp = sorted((w["pid"], w["start"]) for w in js.get("waits", [])
                         if lab in (w.get("code_path"), w.get("holder_code_path")))
            got_w = sorted((w["pid"], w["start"]) for w in f.get("waits", []))
            check(got_w == exp, f"--code-path {lab!r}: {len(got_w)} waits, want {len(exp)}")
            kept += len(got_w)
        check(kept > 0, f"--code-path by shape keeps some wait ({kept})")
        sh = load(analyze(lockspan, sample, os.path.join(tmp, "s.json"), "--format", "json",
                          "--group-by", "shape"))
        check(occ == sh.get("row_occupancy") and sh.get("code_path_grouping") == "shape",
              "--group-by shape ranks the same paths")
        app = load(analyze(lockspan, sample, os.path.join(tmp, "a.json"), "--format", "json",
                           "--group-by", "application"))
        check([p["code_path"] for p in app.get("row_occupancy", [])] == ["pgbench"],
              "--group-by application: the one path pgbench")
    return report()


if __name__ == "__main__":
    sys.exit(main())
