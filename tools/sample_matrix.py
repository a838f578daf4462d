#!/usr/bin/env python3
"""The sample x log format x traces table of issue 34's "Done when".

Usage: tools/sample_matrix.py LOCKSPAN [REPO]        (prints Markdown)
       tools/sample_matrix.py --run CHECKER ARGS...  (internal, see below)

For each sample with a truth of holds or rankings, it runs the existing
end-to-end checker(s) of tests/e2e that ctest runs on it (the same
arguments as tests/CMakeLists.txt) and sorts their checks into cells: one
row per (sample, log format, traces). It judges nothing itself: every
yes/no comes from a check the checker made.

Seeing each check: the lscheck-based checkers print only their FAIL lines
and a total, so the checker is run through `--run`, which imports
tests/e2e/lscheck.py, wraps its check() to print "PASS: what" as well as
the "FAIL: what" it prints, and runs the checker unchanged (runpy). The
blind checkers print their own PASS / ok / FAIL / XFAIL / EXPECTED FAILURE
lines and are read as they are.

Cells: a checker that analyzes several formats in one run names the
format in each check's text; CELLS gives, per cell, its sources: each a
run and a regular expression over the check text that selects that
cell's checks (a check with no such label belongs to no cell; they are
counted in the "unassigned" note under the table). check_findings_matrix.py
(the findings each sample's code deserves) and check_rankings.py (the
rankings no other checker compares) label every check "SAMPLE [FORMAT,
TRACES]:" and add to the cells of many samples. A cell with no source is
printed as "not checked" in every column.

Columns, by keyword in the selected checks' own words (lower case, the
values they quote taken out: see claim()):
  ranking right   "ranking", "top path", "top code path", "busiest",
                  the word "order" (not "lock order"), "occupancy",
                  "occupies", "longest", "code path holding",
                  "code-path table"
  holds within    the words "hold", "holds", "held", "locked" (not
  tolerance       "holder": a blocker check); a check may count in two
                  columns (a ranking's hold count)
  findings right  "finding", "bottleneck", "called a counter", "lock
                  order conflict", "inconsistent lock order", "serial
                  capacity", "retried", "retries", "idle" (the rules'
                  subjects; not "counter": a table of the hidden sets
                  is "counters")
  yes = at least one such check and all passed; no = one failed (FAIL)
  or is a known wrong answer (XFAIL / EXPECTED FAILURE: "no (known)");
  not checked = no check of the cell has the keyword.
  A checker that exits non-zero without any FAIL line (it broke: a
  traceback, a missing file) makes its cells "unknown", never "yes".
"""
import json
import os
import re
import runpy
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_TIMEOUT_S = 600

# Runs: id -> (checker, arguments after LOCKSPAN; "{S}" is REPO/samples,
# "{R}" the repository), as tests/CMakeLists.txt registers them.
RUNS = {
    "app": ("check_app.py", ["{S}/app"]),
    "app-skew": ("check_app.py", ["{S}/app-skew"]),
    "seconds": ("check_seconds.py", ["{S}/app-seconds"]),
    "realistic": ("check_realistic.py", ["{S}/realistic"]),
    "blind-otel": ("check_blind_otel.py", ["{S}/blind-otel"]),
    "blind-py": ("check_blind_py.py", ["{R}"]),
    "blind-pool": ("check_blind_pool.py", ["{S}/blind-pool"]),
    "blind-ts": ("check_blind_ts.py", ["{S}/blind-ts"]),
    "blind-java": ("check_blind_java.py", ["{S}/blind-java"]),
    "blind-rb": ("check_blind_rb.py", ["{S}/blind-rb"]),
    "blind-zk": ("check_blind_zk.py", ["{S}/blind-zk"]),
    "blind-dj": ("check_blind_dj.py", ["{S}/blind-dj"]),
    "blind-php": ("check_blind_php.py", ["{S}/blind-php"]),
    "blind-pl": ("check_blind_pl.py", ["{S}/blind-pl"]),
    "blind-go": ("check_blind_go.py", ["{S}/blind-go"]),
    "hidden": ("check_hidden.py", ["{S}/hidden"]),
    "hidden-stmtall": ("check_hidden.py", ["{S}/hidden-stmtall"]),
    "hidden-traces": ("check_hidden.py", ["{S}/hidden-traces"]),
    "hidden-traces-skew": ("check_hidden.py", ["{S}/hidden-traces", "--app-skew-ms", "300"]),
    "hidden-log-only": ("check_hidden.py", ["{S}/hidden-traces", "--log-only"]),
    "correlation": ("check_correlation.py", ["{S}/correlation"]),
    "correlation-stmtall": ("check_correlation.py", ["{S}/correlation-stmtall"]),
    "correlation-stmtall-nosnap": ("check_correlation.py",
                                   ["{S}/correlation-stmtall", "--no-snapshots"]),
    "trigger-paths": ("check_trigger_paths.py", ["{S}/trigger-paths"]),
    "deadlock-holds-log": ("check_deadlock_holds.py", ["{S}/deadlock-holds", "postgresql.log"]),
    "deadlock-holds-csv": ("check_deadlock_holds.py", ["{S}/deadlock-holds", "postgresql.csv"]),
    "deadlock-holds-stmtall-log": ("check_deadlock_holds.py",
                                   ["{S}/deadlock-holds-stmtall", "postgresql.log"]),
    "deadlock-holds-stmtall-csv": ("check_deadlock_holds.py",
                                   ["{S}/deadlock-holds-stmtall", "postgresql.csv"]),
    "pgbench-shapes": ("check_pgbench_shapes.py", ["{S}/pgbench-shapes"]),
    "ddl-queue": ("check_ddl_queue.py", ["{S}/ddl-queue"]),
    "ddl-queue-pg17": ("check_ddl_queue.py", ["{S}/ddl-queue-pg17"]),
    "ddl-queue-pg18": ("check_ddl_queue.py", ["{S}/ddl-queue-pg18"]),
    "busy-row": ("check_busy_row.py", ["{R}"]),
    "findings-matrix": ("check_findings_matrix.py", ["{R}"]),
    "rankings": ("check_rankings.py", ["{R}"]),
}


def run_wrapped(argv):
    """--run CHECKER ARGS: run a tests/e2e checker with lscheck.check()
    printing its passes too; exits with the checker's status."""
    e2e = os.path.dirname(os.path.abspath(argv[0]))
    sys.path.insert(0, e2e)
    import lscheck
    real = lscheck.check

    def check(cond, what):
        if cond:
            print("PASS:", what)
        real(cond, what)
    lscheck.check = check
    sys.argv = argv
    runpy.run_path(argv[0], run_name="__main__")


# Cells: (sample, log format, traces, [(run id, selector regex or None)]).
# Selector None: every check of that run is the cell's (the run analyzes
# that one input). An empty list: no checker covers the cell. FM and RK
# are the runs of check_findings_matrix.py and check_rankings.py, whose
# checks are labelled "SAMPLE [FORMAT, TRACES]:" (fm() and rk() build the
# selector).
DIRF = "stderr+csvlog+jsonlog (dir)"
SNAP = "none (+ pg_stat_activity)"


def fm(sample, fmt, traces):
    return ("findings-matrix", "^" + re.escape(f"{sample} [{fmt}, {traces}]:"))


def rk(sample, fmt, traces):
    return ("rankings", "^" + re.escape(f"{sample} [{fmt}, {traces}]:"))


CELLS = [
    ("app", "stderr %m", "OTLP JSONL", [("app", r"^traces\.otlp\.jsonl:"),
                                          fm("app", "stderr %m", "OTLP JSONL")]),
    ("app", "stderr %m", "OTLP JSONL .gz", [("app", r"^traces\.otlp\.jsonl\.gz:"),
                                              fm("app", "stderr %m", "OTLP JSONL .gz")]),
    ("app", "stderr %m", "Jaeger", [("app", r"^traces\.jaeger\.json:"),
                                      fm("app", "stderr %m", "Jaeger")]),
    ("app", "stderr %m", "Zipkin", [("app", r"^traces\.zipkin\.json:"),
                                      fm("app", "stderr %m", "Zipkin")]),
    ("app", "stderr %m", "none", [("app", r"^log only:"),
                                    fm("app", "stderr %m", "none")]),
    ("app-skew", "stderr %m", "OTLP JSONL", [("app-skew", r"^traces\.otlp\.jsonl:"),
                                               fm("app-skew", "stderr %m", "OTLP JSONL")]),
    ("app-skew", "stderr %m", "OTLP JSONL .gz", [("app-skew", r"^traces\.otlp\.jsonl\.gz:"),
                                                   fm("app-skew", "stderr %m", "OTLP JSONL .gz")]),
    ("app-skew", "stderr %m", "Jaeger", [("app-skew", r"^traces\.jaeger\.json:"),
                                           fm("app-skew", "stderr %m", "Jaeger")]),
    ("app-skew", "stderr %m", "Zipkin", [("app-skew", r"^traces\.zipkin\.json:"),
                                           fm("app-skew", "stderr %m", "Zipkin")]),
    ("app-skew", "stderr %m", "none", [("app-skew", r"^log only:"),
                                         fm("app-skew", "stderr %m", "none")]),
    ("app-seconds", "stderr %t", "OTLP", [("seconds", r"^%t \+ traces:"),
                                          fm("app-seconds", "stderr %t", "OTLP")]),
    ("app-seconds", "stderr %t", "none", [("seconds", r"^%t alone:"),
                                          fm("app-seconds", "stderr %t", "none")]),
    ("app-seconds", "csvlog", "OTLP", [("seconds", r"^csvlog \+ traces:"),
                                       fm("app-seconds", "csvlog", "OTLP")]),
    ("app-seconds", "csvlog", "none", [("seconds", r"^csvlog alone:"),
                                       fm("app-seconds", "csvlog", "none"),
                                       rk("app-seconds", "csvlog", "none")]),
    ("realistic", "stderr %t", "none", [("realistic", r"^\[%t stderr\]"),
                                        fm("realistic", "stderr %t", "none")]),
    ("realistic", "csvlog", "none", [("realistic", r"^\[csvlog\]"),
                                     fm("realistic", "csvlog", "none")]),
    ("blind-otel", "stderr %m", "OTLP", [("blind-otel", None),
                                         fm("blind-otel", "stderr %m", "OTLP"),
                                         rk("blind-otel", "stderr %m", "OTLP")]),
    ("blind-otel", "stderr %m", "none", [fm("blind-otel", "stderr %m", "none"),
                                         rk("blind-otel", "stderr %m", "none")]),
    ("blind-otel", "csvlog", "OTLP", [fm("blind-otel", "csvlog", "OTLP"),
                                      rk("blind-otel", "csvlog", "OTLP")]),
    ("blind-otel", "csvlog", "none", [fm("blind-otel", "csvlog", "none"),
                                      rk("blind-otel", "csvlog", "none")]),
    ("blind-py", "stderr %t", "none", [("blind-py", None)]),
    ("blind-pool", "jsonlog (pgbouncer)", "OTLP",
     [("blind-pool", r"^(?!whole-second log alone:|%t \+ traces:)")]),
    ("blind-pool", "stderr %t (pgbouncer)", "OTLP", [("blind-pool", r"^%t \+ traces:")]),
    ("blind-pool", "stderr %t (pgbouncer)", "none",
     [("blind-pool", r"^whole-second log alone:")]),
    ("blind-ts", "csvlog (German)", "OTLP", [("blind-ts", r"^(?!csvlog alone:)")]),
    ("blind-ts", "csvlog (German)", "none", [("blind-ts", r"^csvlog alone:")]),
    ("blind-java", "stderr %t (pgBadger prefix, JDBC)", "none", [("blind-java", None)]),
    ("blind-rb", "stderr %m, slow statements only (ActiveRecord)", "none", [("blind-rb", None)]),
    ("blind-zk", "stderr %m, log_statement = 'mod' (Sequelize)", "Zipkin",
     [("blind-zk", r"^(?!log:)")]),
    ("blind-zk", "stderr %m, log_statement = 'mod' (Sequelize)", "none", [("blind-zk", r"^log:")]),
    ("blind-dj", "jsonlog (Spanish), log_statement = 'all' + log_duration (Django)", "none",
     [("blind-dj", None)]),
    ("blind-php", "stderr %t (French, pgBadger settings, PG 13; PHP PDO)", "none",
     [("blind-php", None)]),
    ("blind-pl", "stderr %m, default logging + log_lock_waits (PG 18; Perl DBI)", "none",
     [("blind-pl", None)]),
    ("blind-go", "syslog (rsyslog, whole seconds), slow statements only (Go pgx pool)", "none",
     [("blind-go", None)]),
    ("basic", "stderr %m", "none", [fm("basic", "stderr %m", "none")]),
    ("hidden", "stderr %m", "none", [("hidden", None)]),
    ("hidden-stmtall", "stderr %m", "none", [("hidden-stmtall", None)]),
    ("hidden-traces", "stderr %m", "OTLP", [("hidden-traces", None)]),
    ("hidden-traces", "stderr %m", "OTLP, app clock +300 ms", [("hidden-traces-skew", None)]),
    ("hidden-traces", "stderr %m", "none", [("hidden-log-only", None)]),
    ("correlation", DIRF, SNAP, [("correlation", None), fm("correlation", DIRF, SNAP),
                                 rk("correlation", DIRF, SNAP)]),
] + [("correlation", f, "none", [fm("correlation", f, "none"), rk("correlation", f, "none")])
     for f in ("stderr %m", "csvlog", "jsonlog")] + [
    ("correlation-stmtall", DIRF, SNAP, [("correlation-stmtall", None),
                                         fm("correlation-stmtall", DIRF, SNAP),
                                         rk("correlation-stmtall", DIRF, SNAP)]),
    ("correlation-stmtall", DIRF, "none", [("correlation-stmtall-nosnap", None)]),
] + [("correlation-stmtall", f, "none", [fm("correlation-stmtall", f, "none"),
                                         rk("correlation-stmtall", f, "none")])
     for f in ("stderr %m", "csvlog", "jsonlog")] + [
    ("trigger-paths", "stderr %m", "none", [("trigger-paths", r"^stderr:"),
                                            fm("trigger-paths", "stderr %m", "none")]),
    ("trigger-paths", "csvlog", "none", [("trigger-paths", r"^csvlog:"),
                                         fm("trigger-paths", "csvlog", "none")]),
] + [(s, f, "none", [(f"{s}-{'log' if f == 'stderr %m' else 'csv'}", None), fm(s, f, "none"),
                     rk(s, f, "none")])
     for s in ("deadlock-holds", "deadlock-holds-stmtall") for f in ("stderr %m", "csvlog")] + [
    ("pgbench-shapes", "stderr %m (.gz)", "none", [("pgbench-shapes", None),
                                                   fm("pgbench-shapes", "stderr %m (.gz)",
                                                      "none")]),
    ("ddl-queue", "stderr %m", "none", [("ddl-queue", r"^stderr(?! %t)[: ]"),
                                        rk("ddl-queue", "stderr %m", "none")]),
    ("ddl-queue", "stderr %t (copy)", "none", [("ddl-queue", r"^stderr %t[: ]"),
                                               rk("ddl-queue", "stderr %t (copy)", "none")]),
    ("ddl-queue", "csvlog", "none", [("ddl-queue", r"^csvlog[: ]"),
                                     rk("ddl-queue", "csvlog", "none")]),
    ("ddl-queue", "jsonlog", "none", [("ddl-queue", r"^jsonlog[: ]"),
                                      rk("ddl-queue", "jsonlog", "none")]),
    ("ddl-queue-pg17", "stderr %m (.gz)", "none", [("ddl-queue-pg17", r"^stderr(?! %t)[: ]")]),
    ("ddl-queue-pg17", "stderr %t (copy)", "none", [("ddl-queue-pg17", r"^stderr %t[: ]")]),
    ("ddl-queue-pg17", "csvlog (.gz)", "none", [("ddl-queue-pg17", r"^csvlog[: ]")]),
    ("ddl-queue-pg17", "jsonlog (.gz)", "none", [("ddl-queue-pg17", r"^jsonlog[: ]")]),
    ("ddl-queue-pg18", "stderr %m (.gz)", "none", [("ddl-queue-pg18", r"^stderr(?! %t)[: ]")]),
    ("ddl-queue-pg18", "stderr %t (copy)", "none", [("ddl-queue-pg18", r"^stderr %t[: ]")]),
    ("ddl-queue-pg18", "csvlog (.gz)", "none", [("ddl-queue-pg18", r"^csvlog[: ]")]),
    ("ddl-queue-pg18", "jsonlog (.gz)", "none", [("ddl-queue-pg18", r"^jsonlog[: ]")]),
    ("busy-row", "stderr %m (.xz)", "none", [("busy-row", None)]),
]

# Keywords per column (on the lower-cased check text); see the docstring.
RANKING = re.compile(r"ranking|top path|top code path|busiest|(?<!lock-)(?<!lock )\border\b|"
                     r"occupancy|occupies|longest|code path holding|code-path table")
HOLDS = re.compile(r"\bholds?\b|\bheld\b|\blocked\b")
FINDINGS = re.compile(r"finding|bottleneck|called a counter|lock.order conflict|"
                      r"inconsistent lock order|serial capacity|\bretried\b|\bretries\b|idle")
# What a check says, without the values it quotes (they may hold any word:
# a table named "orders", a cut note's text, a sample named deadlock-holds):
# the "SAMPLE [FORMAT, TRACES]:" label of check_findings_matrix.py and
# check_rankings.py, the blind checkers' ": lockspan X, truth Y" tail,
# double-quoted strings, and (...), [...], {...}.
QUOTED = (re.compile(r"^[\w.-]+ \[[^\[\]]*\]:"), re.compile(r": lockspan .*$"),
          re.compile(r'"[^"]*"'),
          re.compile(r"\([^()]*\)"), re.compile(r"\[[^\[\]]*\]"),
          re.compile(r"\{[^{}]*\}"))


def claim(text):
    """The check's own words, lower case, its quoted values taken out."""
    t = text.lower()
    while True:
        u = t
        for rx in QUOTED:
            u = rx.sub("", u)
        if u == t:
            return t
        t = u
# A check line of any checker: (verdict, text).
LINE = re.compile(r"^(PASS:|FAIL:|PASS |FAIL |ok |XFAIL |XPASS |EXPECTED FAILURE |"
                  r"NOW RIGHT \(update the checker\) )\s*(.*)$")
VERDICT = {"PASS:": "pass", "PASS": "pass", "ok": "pass", "XPASS": "pass",
           "NOW RIGHT (update the checker)": "pass", "FAIL:": "fail",
           "FAIL": "fail", "XFAIL": "known", "EXPECTED FAILURE": "known"}


def run_checker(lockspan, repo, rid):
    """Runs RUNS[rid]; returns (exit status, [(verdict, text)], seconds)."""
    checker, args = RUNS[rid]
    args = [a.replace("{S}", os.path.join(repo, "samples")).replace("{R}", repo)
            for a in args]
    path = os.path.join(repo, "tests", "e2e", checker)
    env = dict(os.environ, TZ="UTC")
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--run", path,
                        lockspan] + args, capture_output=True, text=True,
                       env=env, timeout=RUN_TIMEOUT_S)
    checks = []
    for line in p.stdout.splitlines():
        m = LINE.match(line)
        if m:
            checks.append((VERDICT[m.group(1).strip()], m.group(2)))
    return p.returncode, checks, time.monotonic() - t0


def column(checks, rx):
    """yes / no / no (known) / not checked for the checks matching rx."""
    hit = [v for v, t in checks if rx.search(claim(t))]
    if not hit:
        return "not checked"
    if "fail" in hit:
        return "no (%d of %d failed)" % (hit.count("fail"), len(hit))
    if "known" in hit:
        return "no (known: %d of %d XFAIL)" % (hit.count("known"), len(hit))
    return "yes (%d)" % len(hit)


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: sample_matrix.py LOCKSPAN [REPO]")
    lockspan = os.path.abspath(sys.argv[1])
    repo = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else
                           os.path.join(HERE, ".."))
    runs = {}
    for rid in dict.fromkeys(rid for c in CELLS for rid, _ in c[3]):
        runs[rid] = run_checker(lockspan, repo, rid)
    used = {rid: set() for rid in runs}
    print("| sample | log format | traces | checker | passed / failed (known) "
          "| ranking right | holds within tolerance | findings right |")
    print("|---|---|---|---|---|---|---|---|")
    for sample, fmt, traces, sources in CELLS:
        if not sources:
            print(f"| {sample} | {fmt} | {traces} | none | not checked "
                  "| not checked | not checked | not checked |")
            continue
        mine, names, broke = [], [], []
        for rid, sel in sources:
            rc, checks, _ = runs[rid]
            idx = [i for i, (_, t) in enumerate(checks)
                   if sel is None or re.search(sel, t)]
            used[rid].update(idx)
            mine += [checks[i] for i in idx]
            names.append(RUNS[rid][0] + "".join(" " + a for a in RUNS[rid][1][1:])
                         + f" (exit {rc})")
            if rc != 0 and not any(v == "fail" for v, _ in checks):
                # Exited non-zero with no FAIL line: it broke (a traceback),
                # so what it did not get to check is unknown, not "yes".
                broke.append(rc)
        name = " + ".join(names)
        if broke:
            bad = f"unknown (checker broke, exit {broke[0]})"
            print(f"| {sample} | {fmt} | {traces} | {name} "
                  f"| {len(mine)} / 0, then broke | {bad} | {bad} | {bad} |")
            continue
        npass = sum(1 for v, _ in mine if v == "pass")
        nfail = sum(1 for v, _ in mine if v == "fail")
        nknown = sum(1 for v, _ in mine if v == "known")
        cell = f"{npass} / {nfail}" + (f" ({nknown})" if nknown else "")
        if not mine:
            cell = "no check selected"
        print(f"| {sample} | {fmt} | {traces} | {name} | {cell} "
              f"| {column(mine, RANKING)} | {column(mine, HOLDS)} "
              f"| {column(mine, FINDINGS)} |")
    print()
    for rid, (rc, checks, secs) in runs.items():
        left = len(checks) - len(used[rid])
        print(f"- {rid}: {RUNS[rid][0]} exit {rc}, {len(checks)} checks, "
              f"{left} in no cell (checks of the sample or of several "
              f"formats at once), {secs:.1f} s")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--run":
        run_wrapped(sys.argv[2:])
    else:
        sys.exit(main())
