#!/usr/bin/env python3
"""The per-wait passes stay linear (issue 38): on samples/busy-row (the
first 100,000 lines of a real bench/pgbench_log.sh run, samples/README.md)
cut to its first QUARTER lines and taken whole, the SQLite VM steps of
each pass (LOCKSPAN_TIMING=1) grow at most MAX_GROWTH times as much as
the things the pass is driven by (its waits or its holds, counted in
each store): a pass that reads every hold, wait or statement once per
hold grows with the square of them, 4 to 6 times as much on these logs.

The code paths pass too, driven by the transactions (every one gets its
tx_code row and path), with two facts of its design on this log without
spans (issue 38, branch cp38): no transaction's row is written twice (its
path set is decided as it is INSERTed, no `UPDATE tx_code_rows SET
path_set`), and the pass costs at most MAX_PATH_STEPS_PER_TX VM steps a
transaction (each waited hold's statements are swept once, not read as a
stmt_id range of every session's statements per hold). Measured on the
whole sample: 391 steps a transaction at a1c8ca7, 160 at cp38.

Branch fin38b (issue 38): the final holds and rows pass copies the
holds' two indexes with them, it does not sort every hold again.

Branch hold38 (issue 38): the statement logging pass does not read the
holds of a log whose logging is complete (its steps flat), the waited
holds' statements are swept by the holds waited for pass alone, and the
rows' hold totals cost at most MAX_ROW_TOTAL_STEPS_PER_HOLD a hold.

Branch hid38b (issue 38): the hidden waits pass reads whole only the
holds bounded or waited for in the log, every other hold narrow (its own
columns, no join), at most MAX_HIDDEN_SCAN_STEPS_PER_HOLD VM steps a hold.

Branch cp38b (issue 38): the hold parts read the waited holds' pairs
where the holds waited for pass left them (temp.waited_stmts), when they
are every hold's: no copy into temp.hold_stmts (0.25 M VM steps at 1 GiB).

Usage: check_pass_growth.py LOCKSPAN PROJECT_DIR

Measured when written: logical rows 4.2x the steps for 4.1x the waits,
holds waited for 5.9x for 6.1x the holds (the cut's holds are fewer than
a quarter), hidden waits 5.7x, final holds and rows 5.5x; findings
(fnd38) 4.4x for 6.1x the holds (a1c8ca7's 4.3x; with the counter rule's
probe of a writer's other rows planted as a scan of every hold, 16.0x).
Prints one FAIL line per wrong fact, then "N passed, N failed".
"""
import lzma
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

QUARTER = 25000     # lines of the small log; the whole sample is 4 times as many
MAX_GROWTH = 1.5    # steps' growth over the driving things' growth

# pass name -> what drives it (a count over the correlated store)
PASSES = {
    "logical rows": "SELECT count(*) FROM lock_waits",
    "holds waited for": "SELECT count(*) FROM hold_final",
    "hidden waits": "SELECT count(*) FROM hold_final",
    "final holds and rows": "SELECT count(*) FROM hold_final",
    "code paths": "SELECT count(*) FROM transactions",
    # hot_counter_row reads each hold of a hot row once (its writers,
    # one row at a time: findings_sum.c), the other rules each hold once
    "findings": "SELECT count(*) FROM hold_final",
}
# The code paths pass's budget a transaction on the whole sample: 2.4x
# cp38's 160, below a1c8ca7's 391 (a per-row UPDATE costs 36, a hold's
# range read through the statements view some 3,000).
MAX_PATH_STEPS_PER_TX = 250
PATH_UPDATE = "UPDATE tx_code_rows SET path_set"
# The statement logging pass on a log whose statement logging is complete
# (this one: every statement with its duration) counts the holds, it does
# not read them by their end's evidence (issue 38, branch hold38: 12 VM
# steps a hold before, 5.1 M at 1 GiB): its steps do not grow with them.
# Measured when written: 6,517 -> 59,365 steps (9.1x for 9.3x the holds)
# at 014e695, 85 -> 85 after.
LOGGING = "statement logging"
MAX_LOGGING_GROWTH = 1.2
# The statements of the holds others waited for are swept once, by the
# holds waited for pass; the code paths' hold parts take its (hold,
# statement) pairs (holds.c, holdparts.c; issue 38, branch hold38: the
# same sweep twice was 8.95 M VM steps each at 1 GiB). On this log at
# 014e695 the sweep ran in both passes (132,850 steps, 230 runs each).
SWEEP = "SELECT stmt_id, session_id FROM stmt_rows WHERE stmt_id BETWEEN"
# The rows' hold totals (row_holds, holds.c row_totals()) read the holds no
# later pass bounded through the transactions pass's covering index in
# row and start order, merged with the few bounded, sorted: no sort of
# every hold joined to hold_bounds. Its reads (the pass's statements that
# begin ROW_TOTALS) at 014e695: 166,828 steps for 4,932 holds (33.8 a
# hold); hold38: 105,965 (21.5).
ROW_TOTALS = "SELECT h.row_id,"
MAX_ROW_TOTAL_STEPS_PER_HOLD = 25
# The hidden waits pass's reads of the holds (hidden.c: the narrow stream,
# SELECT h.row_id, h.hold_id, ..., and the whole one of the holds in
# temp.hidden_special, SELECT h.hold_id, h.row_id, ...): one sort of every
# hold with its 23 columns, hold_bounds joined and each evidence CASE, was
# 119 VM steps a hold at f96521b on this log (586,820 for 4,932 holds;
# 50.9 M at the 1 GiB bench log); hid38b: 151,735 (30.8 a hold).
HIDDEN_SCAN = re.compile(r"sql\s+(\d+) steps .*?\[hidden waits\] "
                         r"SELECT h\.(?:row_id, h\.hold_id|hold_id, h\.row_id),")
MAX_HIDDEN_SCAN_STEPS_PER_HOLD = 45
# The final holds and rows pass copies every hold with its two indexes
# (hold_final_row, hold_final_tx) from the transactions pass's (holds_row,
# holds_tx_row: the same columns, LS_HOLDS_ROW_KEY and LS_HOLDS_TX_KEY),
# by SQLite's transfer optimization, entry by entry in order: no sort of
# every hold again (issue 38, branch fin38b: 9.4 M of the pass's 16.4 M
# VM steps at 1 GiB). The statements that write the holds and those
# indexes (the copy, the indexes' CREATE) at f96521b: 5 + 12 + 10 VM
# steps a hold on the whole sample; fin38b: 11.
FINAL_ROW_INDEX = ("INSERT INTO hold_final SELECT", "CREATE INDEX IF NOT EXISTS hold_final_row",
                   "CREATE INDEX IF NOT EXISTS hold_final_tx")
MAX_FINAL_ROW_INDEX_STEPS_PER_HOLD = 14


def analyze(lockspan, prefix, log, tmp, name):
    """The steps of each pass and the count that drives it, or None."""
    db = os.path.join(tmp, name + ".db")
    env = dict(os.environ, LOCKSPAN_TIMING="sql-all")  # every statement, the cheap too
    p = subprocess.run([lockspan, "analyze", "-q", "--db", db, "--prefix", prefix, "-o",
                        os.path.join(tmp, name + ".json"), log],
                       capture_output=True, text=True, env=env)
    check(p.returncode == 0, f"{name}: analyze exit {p.returncode}: {p.stderr[-300:]}")
    if p.returncode != 0:
        return None
    steps = {m.group(1).strip(): int(m.group(2)) for m in
             re.finditer(r"correlate-steps: (.*?)\s+(\d+) SQLite VM steps", p.stderr)}
    con = sqlite3.connect(db)
    out = {}
    for name_, sql in PASSES.items():
        out[name_] = (steps.get(name_), con.execute(sql).fetchone()[0])
    out["path UPDATE runs"] = p.stderr.count(PATH_UPDATE)
    out["row totals"] = sum(int(m.group(1)) for m in re.finditer(
        r"sql\s+(\d+) steps .*?\[holds waited for\] " + re.escape(ROW_TOTALS), p.stderr))
    out["hidden scan"] = sum(int(m.group(1)) for m in HIDDEN_SCAN.finditer(p.stderr))
    out["final row index"] = sum(int(m.group(1)) for what in FINAL_ROW_INDEX for m in re.finditer(
        r"sql\s+(\d+) steps .*?\[final holds and rows\] " + re.escape(what), p.stderr))
    out["sweeps"] = {m.group(1) for m in re.finditer(r"\[([^\]]+)\] " + re.escape(SWEEP),
                                                      p.stderr)}
    out["pairs copied"] = len(re.findall(r"\[code paths\] INSERT INTO temp\.hold_stmts", p.stderr))
    out[LOGGING] = (steps.get(LOGGING), con.execute("SELECT count(*) FROM hold_final").fetchone()[0])
    con.close()
    return out


def main():
    lockspan, root = sys.argv[1], sys.argv[2]
    d = os.path.join(root, "samples", "busy-row")
    prefix = open(os.path.join(d, "prefix.txt")).read()
    with tempfile.TemporaryDirectory() as tmp:
        lines = lzma.open(os.path.join(d, "postgresql.log.xz"), "rt", encoding="utf-8",
                          newline="").readlines()
        check(len(lines) >= 4 * QUARTER, f"the sample has {len(lines)} lines (>= {4 * QUARTER})")
        small, large = os.path.join(tmp, "small.log"), os.path.join(tmp, "large.log")
        with open(small, "w", encoding="utf-8", newline="") as f:
            f.writelines(lines[:QUARTER])
        with open(large, "w", encoding="utf-8", newline="") as f:
            f.writelines(lines[:4 * QUARTER])
        a = analyze(lockspan, prefix, small, tmp, "small")
        b = analyze(lockspan, prefix, large, tmp, "large")
    if a is None or b is None:
        return report()
    for name in PASSES:
        (s0, n0), (s1, n1) = a[name], b[name]
        check(s0 and s1 and n0 and n1, f"{name}: steps {s0}, {s1} and counts {n0}, {n1} measured")
        if not (s0 and s1 and n0 and n1):
            continue
        things, steps = n1 / n0, s1 / s0
        print(f"{name}: {s0} -> {s1} VM steps ({steps:.2f}x) for {n0} -> {n1} ({things:.2f}x)")
        check(steps <= MAX_GROWTH * things,
              f"{name}: steps grew {steps:.2f}x for {things:.2f}x as many (at most "
              f"{MAX_GROWTH * things:.2f}x)")
    s1, n1 = b["code paths"]
    if s1 and n1:
        print(f"code paths: {s1 / n1:.0f} VM steps a transaction ({n1} transactions)")
        check(s1 <= MAX_PATH_STEPS_PER_TX * n1,
              f"code paths: {s1 / n1:.0f} VM steps a transaction (at most "
              f"{MAX_PATH_STEPS_PER_TX})")
    (s0, n0), (s1, n1) = a[LOGGING], b[LOGGING]
    check(s0 and s1 and n1 > n0, f"{LOGGING}: steps {s0}, {s1} and holds {n0} < {n1} measured")
    if s0 and s1 and n0:
        print(f"{LOGGING}: {s0} -> {s1} VM steps ({s1 / s0:.2f}x) for {n0} -> {n1} holds")
        check(s1 <= MAX_LOGGING_GROWTH * s0,
              f"{LOGGING}: steps grew {s1 / s0:.2f}x for {n1 / n0:.2f}x the holds (at most "
              f"{MAX_LOGGING_GROWTH:.1f}x: a complete log's holds are counted, not read)")
    n1 = b[LOGGING][1]
    if n1:
        print(f"row totals: {b['row totals'] / n1:.1f} VM steps a hold ({n1} holds)")
        check(0 < b["row totals"] <= MAX_ROW_TOTAL_STEPS_PER_HOLD * n1,
              f"row totals: {b['row totals'] / n1:.1f} VM steps a hold (at most "
              f"{MAX_ROW_TOTAL_STEPS_PER_HOLD}: no sort of every hold)")
    if n1:
        print(f"hidden waits' scan: {b['hidden scan'] / n1:.1f} VM steps a hold ({n1} holds)")
        check(0 < b["hidden scan"] <= MAX_HIDDEN_SCAN_STEPS_PER_HOLD * n1,
              f"hidden waits' scan: {b['hidden scan'] / n1:.1f} VM steps a hold (at most "
              f"{MAX_HIDDEN_SCAN_STEPS_PER_HOLD}: only the bounded and logged holds read whole)")
        print(f"final holds copied: {b['final row index'] / n1:.1f} VM steps a hold ({n1} holds)")
        check(0 < b["final row index"] <= MAX_FINAL_ROW_INDEX_STEPS_PER_HOLD * n1,
              f"final holds and rows: the holds and their two indexes cost "
              f"{b['final row index'] / n1:.1f} VM steps a hold (at most "
              f"{MAX_FINAL_ROW_INDEX_STEPS_PER_HOLD}: copied with the holds, not sorted again)")
    check(b["sweeps"] == {"holds waited for"},
          f"large: the waited holds' statements swept by {sorted(b['sweeps'])}, "
          f"not by the holds waited for pass alone")
    for name, r in (("small", a), ("large", b)):
        check(r["pairs copied"] == 0,
              f"{name}: the hold parts copied the waited holds' statements into "
              f"temp.hold_stmts ({r['pairs copied']} INSERTs), not read where they were")
        check(r["path UPDATE runs"] == 0,
              f"{name}: the path sets were written by '{PATH_UPDATE}' on a log without "
              f"spans, not in the INSERT")
    return report()


if __name__ == "__main__":
    sys.exit(main())
