#!/usr/bin/env python3
"""Each finding rule against what each sample's code deserves (issue 34:
"each finding rule with a test that it fires on the sample that deserves
it and stays silent on one that does not").

Usage: check_findings_matrix.py LOCKSPAN PROJECT_DIR
       check_findings_matrix.py --table PROJECT_DIR   (prints the table of
                                                       docs/findings-matrix.md)

The truth: a sample's truth file (truth.json; pgbench-shapes:
truth-shapes.json) has a "findings" object written from the code of the
scenario that drove the server ("from" names it), never from lockspan's
output:
  expected   [{rule, match?, traces?, why}]  a finding of `rule` whose
             fields equal `match` must be in the report;
  forbidden  [{rule, match?, traces?, why}]  no finding of `rule` whose
             fields equal `match` (any, without match) may be;
  `traces` true / false limits an entry to the runs with / without the
  sample's traces; `match` key "paths" is the unordered pair
  {code_path, other_code_path} (inconsistent_lock_order).
Each sample is analyzed in every log format it has, with and without its
traces (RUNS); each entry is one check per run, its text starting with
"SAMPLE [FORMAT, TRACES]:" (tools/sample_matrix.py sorts them into the
cells of docs/sample-matrix.md by that label).

Known wrong answers (KNOWN_WRONG, as check_blind_py.py's MUST_HOLD: every
other check must hold): printed as "XFAIL ..." while lockspan gets them
wrong, "XPASS ... (now right: take it off KNOWN_WRONG)" once it gets them
right; neither is counted as a pass nor fails the run.

Also checked: every rule of src/correlate/findings.c has a sample that
must get it and one that must not (here or in OTHER_CHECKS, the checks of
check_findings.py and check_ddl_queue.py), and docs/findings-matrix.md
holds the table --table prints (so it stays true to the truths).
Prints one FAIL line per wrong fact, then "N passed, N failed".
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import lscheck
from lscheck import report

DIRF = "stderr+csvlog+jsonlog (dir)"
# (sample, truth file, log format, traces, inputs, with traces?)
APP_TRACES = (("OTLP JSONL", "traces.otlp.jsonl"), ("OTLP JSONL .gz", "traces.otlp.jsonl.gz"),
              ("Jaeger", "traces.jaeger.json"), ("Zipkin", "traces.zipkin.json"))
RUNS = [
    (app, "truth.json", "stderr %m", name, ["postgresql.log", f], True)
    for app in ("app", "app-skew") for name, f in APP_TRACES] + [
    (app, "truth.json", "stderr %m", "none", ["postgresql.log"], False)
    for app in ("app", "app-skew")] + [
    ("blind-otel", "truth.json", "stderr %m", "OTLP",
     ["postgresql.log", "traces.otlp.jsonl.gz"], True),
    ("blind-otel", "truth.json", "stderr %m", "none", ["postgresql.log"], False),
    ("blind-otel", "truth.json", "csvlog", "OTLP", ["postgresql.csv", "traces.otlp.jsonl.gz"],
     True),
    ("blind-otel", "truth.json", "csvlog", "none", ["postgresql.csv"], False),
    ("app-seconds", "truth.json", "stderr %t", "OTLP",
     ["postgresql.log", "traces.otlp.jsonl.gz"], True),
    ("app-seconds", "truth.json", "stderr %t", "none", ["postgresql.log"], False),
    ("app-seconds", "truth.json", "csvlog", "OTLP",
     ["postgresql.csv", "traces.otlp.jsonl.gz"], True),
    ("app-seconds", "truth.json", "csvlog", "none", ["postgresql.csv"], False),
    ("trigger-paths", "truth.json", "stderr %m", "none", ["postgresql.log"], False),
    ("trigger-paths", "truth.json", "csvlog", "none", ["postgresql.csv"], False),
    ("deadlock-holds", "truth.json", "stderr %m", "none", ["postgresql.log"], False),
    ("deadlock-holds", "truth.json", "csvlog", "none", ["postgresql.csv"], False),
    ("deadlock-holds-stmtall", "truth.json", "stderr %m", "none", ["postgresql.log"], False),
    ("deadlock-holds-stmtall", "truth.json", "csvlog", "none", ["postgresql.csv"], False),
    ("pgbench-shapes", "truth-shapes.json", "stderr %m (.gz)", "none",
     ["postgresql.log.gz"], False),
    ("realistic", "truth.json", "stderr %t", "none", ["postgresql.log"], False),
    ("realistic", "truth.json", "csvlog", "none", ["postgresql.csv"], False),
    ("correlation", "truth.json", DIRF, "none (+ pg_stat_activity)", ["."], False),
    ("correlation", "truth.json", "stderr %m", "none", ["postgresql.log"], False),
    ("correlation", "truth.json", "csvlog", "none", ["postgresql.csv"], False),
    ("correlation", "truth.json", "jsonlog", "none", ["postgresql.json"], False),
    ("correlation-stmtall", "truth.json", DIRF, "none (+ pg_stat_activity)", ["."], False),
    ("correlation-stmtall", "truth.json", "stderr %m", "none", ["postgresql.log"], False),
    ("correlation-stmtall", "truth.json", "csvlog", "none", ["postgresql.csv"], False),
    ("correlation-stmtall", "truth.json", "jsonlog", "none", ["postgresql.json"], False),
    ("basic", "truth.json", "stderr %m", "none", ["postgresql.log"], False),
]

# Answers lockspan gets wrong today: (sample, rule, expected|forbidden,
# a regular expression over "FORMAT, TRACES") -> why. Found by this
# checker on main 4542f6e; listed for the lead (issue 34).
KNOWN_WRONG = {
    # none left: app-seconds (%t and csvlog, no traces) and
    # correlation-stmtall (stderr %m, csvlog, jsonlog) were missing
    # idle_in_transaction_head under log_statement = 'all' without
    # durations, until a head is called idle from the session's silence
    # (decide/idlegap.h, branch idle34)
}

# The checks of other checkers that the table names too: (rule, fires |
# silent, where, checker). They assert against their samples' truths.
OTHER_CHECKS = [
    ("external_call_in_transaction", "fires", "app + OTLP (checkout's HTTP call, "
     "the truth's span)", "check_findings.py"),
    ("external_call_in_transaction", "silent", "app, log alone", "check_findings.py"),
    ("idle_in_transaction_head", "fires", "app, log alone (checkout)", "check_findings.py"),
    ("idle_in_transaction_head", "silent", "app + OTLP (checkout: the call explains it)",
     "check_findings.py"),
    ("inconsistent_lock_order", "fires", "tests/e2e/data/lock-order.log (order-service / "
     "stock-sync, made by lock-order.sh)", "check_findings.py"),
    ("hot_counter_row", "silent", "hidden (accounts id=1, a balance)", "check_findings.py"),
    ("hot_counter_row", "silent", "blind-php (warehouses id=1, 4, 2: restock's increments held "
     "them 0 ms, reserve_stock's reservation across an HTTP call the rest)",
     "check_blind_php.py"),
    ("hidden_waiting", "fires", "hidden (both rows, the truth's hidden waiting within 10 %)",
     "check_findings.py"),
    ("serial_capacity", "fires", "app (the truth's hot row)", "check_findings.py"),
    ("serial_capacity", "silent", "hidden-traces (fewer than 3 logged waits a row)",
     "check_findings.py"),
    ("serial_capacity", "fires", "blind-php (warehouses id=1: no logged wait, windowed by its "
     "statements queued below deadlock_timeout)", "check_blind_php.py"),
    ("lock_queue_behind_ddl", "silent", "realistic (no DDL)", "check_ddl_queue.py --absent"),
    # blind-java: a whole-second log with durations, most waits below
    # deadlock_timeout (issue 34, branch java34e)
    ("idle_in_transaction_head", "fires", "blind-java (reserveShipment, waited for below "
     "deadlock_timeout: idle within 25 % of its carrier calls)", "check_blind_java.py"),
    ("idle_in_transaction_head", "silent", "blind-java (placeOrder, repriceProduct: nothing "
     "after their row lock; transferCredit's deadlock victims waited, not idle)",
     "check_blind_java.py"),
    ("inconsistent_lock_order", "fires", "blind-java (transferCredit against itself: all 7 "
     "deadlocks, 2 through a third transaction)", "check_blind_java.py"),
    ("serial_capacity", "fires", "blind-java (warehouses id=1; each finding's transactions "
     "within the truth's busiest window)", "check_blind_java.py"),
    ("serial_capacity", "silent", "blind-java (accounts: its long holds are its deadlocks', "
     "whose transactions count neither in demand nor in the mean hold)", "check_blind_java.py"),
    # blind-rb: a threshold log, the order read from the deadlocks' DETAIL
    # alone (issue 34 item 7, branch rbself34)
    ("inconsistent_lock_order", "fires", "blind-rb (transfer against itself on accounts, read "
     "from the DETAIL: 11 of 13 deadlocks, 2 without a known transaction)",
     "check_blind_rb.py"),
]


def rules_of(root):
    """The rule ids of src/correlate/findings.c's rules[], in order."""
    with open(os.path.join(root, "src", "correlate", "findings.c"), encoding="utf-8") as f:
        text = f.read()
    table = text[text.index("static const finding_rule rules[]"):]
    return re.findall(r'^\s*\{"([a-z_]+)",\s*$', table, re.M)


def truth_of(root, sample, name):
    with open(os.path.join(root, "samples", sample, name), encoding="utf-8") as f:
        truth = json.load(f)
    if "findings" in truth:
        truth["findings"]["forbidden"] += idle_forbidden(truth)
    return truth


def idle_forbidden(truth):
    """Forbidden idle_in_transaction_head entries derived from the truth's
    holds where it records each holder's state (samples/correlation*:
    head_state, read by the scenario from pg_stat_activity): an
    application none of whose holds was idle in transaction at the head
    (running a pg_sleep, waiting itself, committing) must not be called
    idle there."""
    states = {}
    for h in truth.get("holds", []):
        if h.get("head_state") and h.get("application_name"):
            states.setdefault(h["application_name"], set()).add(h["head_state"])
    return [{"rule": "idle_in_transaction_head", "match": {"code_path": app},
             "why": "the truth's holds of %s were %s at the head, never idle in transaction"
                    % (app, ", ".join(sorted(st)))}
            for app, st in sorted(states.items()) if "idle_in_transaction" not in st]


def applies(entry, traces):
    return entry.get("traces") is None or entry["traces"] == traces


def matches(f, match):
    for k, v in (match or {}).items():
        if k == "paths":
            if sorted([str(f.get("code_path")), str(f.get("other_code_path"))]) != sorted(v):
                return False
        elif f.get(k) != v:
            return False
    return True


def describe(entry):
    m = entry.get("match")
    return entry["rule"] + (" (" + ", ".join(f"{k} {v}" for k, v in m.items()) + ")" if m else "")


def known(sample, rule, kind, where):
    for (s, r, k, rx), why in KNOWN_WRONG.items():
        if s == sample and r == rule and k == kind and re.search(rx, where):
            return why
    return None


def verdict(ok, text, why):
    """A must-hold check through lscheck, or a known wrong one printed."""
    if why is None:
        lscheck.check(ok, text)
    elif ok:
        print(f"XPASS {text} (now right: take it off KNOWN_WRONG)")
    else:
        print(f"XFAIL {text}")
        print(f"    known wrong: {why}")


def prefix_of(d):
    """The sample's log_line_prefix: prefix.txt, else settings.txt's
    "log_line_prefix: " line (blind-otel), else None."""
    path = os.path.join(d, "prefix.txt")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            return f.read().rstrip("\n")
    path = os.path.join(d, "settings.txt")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("log_line_prefix: "):
                    return line[len("log_line_prefix: "):].rstrip("\n")
    return None


def analyze(ls, root, tmp, sample, inputs):
    d = os.path.join(root, "samples", sample)
    out = os.path.join(tmp, "r.json")
    args = [ls, "analyze", "-q", "--db", os.path.join(tmp, "r.db"), "--format", "json",
            "--top", "1000", "-o", out]
    prefix = prefix_of(d)
    if prefix is not None:
        args += ["--prefix", prefix]
    for p in ("r.db", "r.json"):
        if os.path.exists(os.path.join(tmp, p)):
            os.remove(os.path.join(tmp, p))
    p = subprocess.run(args + [os.path.normpath(os.path.join(d, i)) for i in inputs],
                       capture_output=True, text=True)
    if p.returncode != 0 or not os.path.exists(out):
        return None, p.stderr.strip()[-300:]
    with open(out, encoding="utf-8") as f:
        return json.load(f), None


def check_run(ls, root, tmp, run):
    sample, tname, fmt, traces, inputs, with_traces = run
    where = f"{fmt}, {traces}"
    label = f"{sample} [{where}]"
    spec = truth_of(root, sample, tname)["findings"]
    rep, err = analyze(ls, root, tmp, sample, inputs)
    lscheck.check(rep is not None, f"{label}: analyze failed: {err}")
    if rep is None:
        return
    got = rep["findings"]
    for kind in ("expected", "forbidden"):
        for e in spec[kind]:
            if not applies(e, with_traces):
                continue
            hits = [f for f in got if f["rule"] == e["rule"] and matches(f, e.get("match"))]
            if kind == "expected":
                ok, says = bool(hits), "fires"
            else:
                ok, says = not hits, "stays silent"
            names = sorted({describe({"rule": f["rule"], "match": {
                k: f[k] for k in ("code_path", "other_code_path", "relation", "row",
                                  "span", "deadlocks", "failures") if k in f}})
                for f in got if f["rule"] == e["rule"]})
            verdict(ok, f"{label}: finding \"{describe(e)}\" {says} "
                        f"[lockspan's of the rule: {'; '.join(names) or 'none'}]",
                    known(sample, e["rule"], kind, where))


def cell(entries):
    return "<br>".join(entries) if entries else "-"


def table(root):
    """The Markdown table of docs/findings-matrix.md, from the truths."""
    fires, silent, wrong = {}, {}, {}
    seen = []
    for sample, tname, fmt, traces, _, _ in RUNS:
        if sample in seen:
            continue
        seen.append(sample)
        spec = truth_of(root, sample, tname)["findings"]
        for kind, into in (("expected", fires), ("forbidden", silent)):
            for e in spec[kind]:
                tr = {True: ", with traces", False: ", without traces"}.get(e.get("traces"), "")
                m = e.get("match")
                what = " (" + ", ".join(f"{k} {v}" if k != "paths" else " / ".join(v)
                                         for k, v in m.items()) + ")" if m else ""
                into.setdefault(e["rule"], []).append(f"{sample}{tr}{what}")
    ddl = truth_of(root, "ddl-queue", "truth.json")
    for r in ddl["findings_expected"]:
        fires.setdefault(r, []).append("ddl-queue (check_ddl_queue.py)")
    for r in ddl["findings_forbidden"]:
        silent.setdefault(r, []).append("ddl-queue (check_ddl_queue.py)")
    for rule, kind, where, checker in OTHER_CHECKS:
        (fires if kind == "fires" else silent).setdefault(rule, []).append(
            f"{where} ({checker})")
    for (s, r, k, rx), why in KNOWN_WRONG.items():
        runs = "; ".join(f"{x[2]}, {x[3]}" for x in RUNS
                         if x[0] == s and re.search(rx, f"{x[2]}, {x[3]}"))
        wrong.setdefault(r, []).append(f"{s} {'misses it' if k == 'expected' else 'gets it'}"
                                       f" ({runs}): {why}")
    lines = ["| rule | must fire on | must stay silent on | known wrong today |",
             "|---|---|---|---|"]
    for rule in rules_of(root):
        lines.append(f"| `{rule}` | {cell(fires.get(rule))} | {cell(silent.get(rule))} "
                     f"| {cell(wrong.get(rule))} |")
    return "\n".join(lines) + "\n", fires, silent


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--table":
        sys.stdout.write(table(sys.argv[2])[0])
        return 0
    ls, root = sys.argv[1], sys.argv[2]
    text, fires, silent = table(root)
    for rule in rules_of(root):
        lscheck.check(fires.get(rule) and silent.get(rule),
                      f"rule {rule}: a sample that must get it ({fires.get(rule)}) and one "
                      f"that must not ({silent.get(rule)})")
    doc = os.path.join(root, "docs", "findings-matrix.md")
    with open(doc, encoding="utf-8") as f:
        lscheck.check(text in f.read(), "docs/findings-matrix.md holds the table that "
                      "check_findings_matrix.py --table prints (regenerate it)")
    with tempfile.TemporaryDirectory() as tmp:
        for run in RUNS:
            check_run(ls, root, tmp, run)
    return report()


if __name__ == "__main__":
    sys.exit(main())
