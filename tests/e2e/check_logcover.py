#!/usr/bin/env python3
"""What the log cannot tell, said in the report (samples/blind-pool
JUDGEMENT.md items 2, 9, 10; reports/coverage.c, decide/logcover.c).

- blind-pool's jsonlog (log_min_duration_statement = 50, log_statement =
  'none'): input.logging says "threshold" with the shortest logged
  statement at 50 ms or more, every hold whose end is a statement is
  hold_at_least with no hold_max_ms, and the Markdown and HTML say that
  hold times are lower bounds, how many holds, and what to set.
- samples that log every statement (app, blind-otel, realistic,
  pgbench-shapes): "complete", no hold_at_least, no such text.
- blind-pool's two formats named together: input.same_log_twice names
  them and both texts say "Read twice"; one of them alone, or the
  directory (read once), does not.

usage: check_logcover.py LOCKSPAN SAMPLES_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

LOWER = "Hold times are lower bounds."
TWICE = "Read twice:"
ADVICE = "log_min_duration_statement = 0"
COMPLETE_SAMPLES = ["app", "blind-otel", "realistic", "pgbench-shapes"]

failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def analyze(lockspan, tmp, name, inputs):
    outs = [os.path.join(tmp, name + ext) for ext in (".json", ".md", ".html")]
    args = [lockspan, "analyze", "-q"]
    for o in outs:
        args += ["-o", o]
    run = subprocess.run(args + inputs, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("FAIL: lockspan analyze %s exited %d: %s"
                 % (" ".join(inputs), run.returncode, run.stderr))
    with open(outs[0]) as f:
        rep = json.load(f)
    texts = []
    for o in outs[1:]:
        with open(o, encoding="utf-8") as f:
            texts.append(f.read().replace("\\_", "_"))  # Markdown escapes _
    return rep, texts


def holds_of(o):
    """Every hold object in the report (has hold_ms and end_evidence)."""
    if isinstance(o, dict):
        if "hold_ms" in o and "end_evidence" in o:
            yield o
        for v in o.values():
            yield from holds_of(v)
    elif isinstance(o, list):
        for v in o:
            yield from holds_of(v)


def check_threshold(lockspan, samples, tmp):
    rep, texts = analyze(lockspan, tmp, "pool", [os.path.join(samples, "blind-pool",
                                                              "postgresql.json")])
    lg = rep["input"]["logging"]
    check(lg["verdict"] == "threshold", "blind-pool: verdict threshold (%s)" % lg["verdict"])
    check(lg["statements"] > 0 and lg["statements_timed"] == lg["statements"],
          "blind-pool: every logged statement has a duration (%d of %d)"
          % (lg["statements_timed"], lg["statements"]))
    check(lg["shortest_ms"] >= 50, "blind-pool: shortest logged statement >= 50 ms (%s)"
          % lg["shortest_ms"])
    check(lg["transaction_control"] == 0, "blind-pool: no BEGIN/COMMIT logged")
    check(lg["holds"] > 0 and lg["holds_at_least"] > lg["holds"] // 2,
          "blind-pool: most holds have no end evidence (%d of %d)"
          % (lg["holds_at_least"], lg["holds"]))
    check(ADVICE in (lg["advice"] or ""), "blind-pool: advice names log_min_duration_statement = 0")
    holds = list(holds_of(rep))
    ends = [h for h in holds if h["end_evidence"] in ("statement", "statement start")]
    check(len(ends) > 0 and all(h.get("hold_at_least") is True for h in ends),
          "blind-pool: each of %d holds ending at a statement is hold_at_least" % len(ends))
    check(all("hold_max_ms" not in h for h in holds if h.get("hold_at_least")),
          "blind-pool: no hold_at_least has a hold_max_ms")
    check(rep["story"]["evidence"]["logging"] == "threshold", "blind-pool: story.evidence.logging")
    for kind, t in zip(("Markdown", "HTML"), texts):
        check(LOWER in t and ADVICE in t,
              "blind-pool %s: says hold times are lower bounds and what to set" % kind)
        check("%d of %d holds have no evidence for their end" % (lg["holds_at_least"], lg["holds"])
              in t, "blind-pool %s: says how many holds have no end" % kind)
        check("at least " in t, "blind-pool %s: a hold reads \"at least\"" % kind)


def check_complete(lockspan, samples, tmp):
    for s in COMPLETE_SAMPLES:
        rep, texts = analyze(lockspan, tmp, s, [os.path.join(samples, s)])
        lg = rep["input"]["logging"]
        check(lg["verdict"] == "complete", "%s: verdict complete (%s)" % (s, lg["verdict"]))
        check(lg["holds"] > 0 and lg["holds_at_least"] == 0,
              "%s: no hold without end evidence (%d holds)" % (s, lg["holds"]))
        check(not any(h.get("hold_at_least") for h in holds_of(rep)),
              "%s: no hold_at_least" % s)
        check(all(LOWER not in t and TWICE not in t for t in texts),
              "%s: no lower-bound or read-twice text" % s)
        check(rep["input"]["same_log_twice"] == [], "%s: same_log_twice empty" % s)


def check_twice(lockspan, samples, tmp):
    pool = os.path.join(samples, "blind-pool")
    rep, texts = analyze(lockspan, tmp, "twice", [os.path.join(pool, "postgresql.json"),
                                                  os.path.join(pool, "postgresql.log")])
    pairs = rep["input"]["same_log_twice"]
    check(len(pairs) == 1 and {os.path.basename(pairs[0]["file"]),
                               os.path.basename(pairs[0]["other"])}
          == {"postgresql.json", "postgresql.log"},
          "two formats: same_log_twice names both (%s)" % pairs)
    for kind, t in zip(("Markdown", "HTML"), texts):
        check(TWICE in t and "counts twice" in t, "two formats %s: says read twice" % kind)
    for name, inputs in (("one", [os.path.join(pool, "postgresql.log")]),
                         ("dir", [pool])):
        rep, texts = analyze(lockspan, tmp, name, inputs)
        check(rep["input"]["same_log_twice"] == [] and all(TWICE not in t for t in texts),
              "%s: not read twice, not said" % name)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    lockspan = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="check_logcover.") as tmp:
        check_threshold(lockspan, sys.argv[2], tmp)
        check_complete(lockspan, sys.argv[2], tmp)
        check_twice(lockspan, sys.argv[2], tmp)
    print("check_logcover: %d failed" % len(failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
