#!/usr/bin/python3
"""Sanity-check a generated sample: does the server log agree with truth.json?

Usage: samples/check_truth.py SAMPLEDIR     (exit status 0 = all checks pass)

Reads SAMPLEDIR/postgresql.log (stderr format, prefix from prefix.txt, which
must be '%m [%p] %q%u@%d/%a %c %l %v %x %e '), postgresql.csv,
postgresql.json and truth.json.  Standard library only.
"""

import collections
import csv
import datetime
import json
import os
import re
import sys

EXPECTED_PREFIX = "%m [%p] %q%u@%d/%a %c %l %v %x %e "
SEVERITIES = ("LOG|ERROR|FATAL|PANIC|WARNING|NOTICE|INFO|DEBUG[1-5]?|DETAIL|"
              "HINT|QUERY|CONTEXT|LOCATION|STATEMENT")
LINE_RE = re.compile(
    r"^(?P<ts>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) (?P<tz>\S+) \[(?P<pid>\d+)\] "
    r"(?:(?P<user>[^@ ]*)@(?P<db>[^/ ]*)/(?P<app>\S*) (?P<sid>[0-9a-f]+\.[0-9a-f]+) "
    r"(?P<lno>\d+) (?P<vxid>\S*) (?P<xid>\d+) (?P<state>[0-9A-Z]{5}) )?"
    r"(?P<sev>" + SEVERITIES + r"):  (?P<msg>.*)$")
WAIT_RE = re.compile(
    r"^process (\d+) (still waiting for|acquired|detected deadlock while waiting for|"
    r"avoided deadlock for|failed to acquire) (\w+) on (.+) after (\d+\.\d{3}) ms")
HOLDER_RE = re.compile(r"^Process(?:es)? holding the lock: ([0-9, ]+)\. Wait queue: ([0-9, ]*)\.")
NEEDLES = ["still waiting for", "acquired", "deadlock detected",
           "canceling statement due to lock timeout", "could not serialize access"]

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def parse_stderr(path):
    """Return a list of records; continuation lines (TAB) join the previous one."""
    recs = []
    with open(path, "rb") as f:
        for raw in f:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if line.startswith("\t") and recs:
                recs[-1]["msg"] += "\n" + line[1:]
                continue
            m = LINE_RE.match(line)
            if not m:
                check(False, "unparsable log line: %r" % line[:120])
                continue
            d = m.groupdict()
            d["pid"] = int(d["pid"])
            d["time"] = datetime.datetime.strptime(
                d["ts"], "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc)
            recs.append(d)
    return recs


def iso(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    with open(os.path.join(d, "truth.json")) as f:
        truth = json.load(f)
    with open(os.path.join(d, "prefix.txt")) as f:
        prefix = f.read()
    check(prefix == EXPECTED_PREFIX, "prefix.txt is %r" % prefix)
    check(truth["prefix"] == prefix, "truth.json prefix differs from prefix.txt")

    text = open(os.path.join(d, "postgresql.log"), "rb").read().decode("utf-8", "replace")
    for n in NEEDLES:
        check(n in text, "postgresql.log lacks %r" % n)

    recs = parse_stderr(os.path.join(d, "postgresql.log"))
    by_pid = collections.defaultdict(list)
    for r in recs:
        by_pid[r["pid"]].append(r)

    # Every logged wait start ("still waiting" / "detected deadlock while
    # waiting") must belong to a truth wait, and vice versa.
    logged_waits = collections.Counter()
    for r in recs:
        if r["sev"] == "LOG":
            m = WAIT_RE.match(r["msg"])
            if m and m.group(2) in ("still waiting for",
                                    "detected deadlock while waiting for"):
                logged_waits[r["pid"]] += 1
    truth_waits = collections.Counter(w["waiter_pid"] for w in truth["waits"])
    check(logged_waits == truth_waits,
          "logged wait starts %r != truth waits %r" % (dict(logged_waits), dict(truth_waits)))

    for w in truth["waits"]:
        pid = w["waiter_pid"]
        tag = "%s waiter %d" % (w["scenario"], pid)
        t0, t1 = iso(w["wait_start"]), iso(w["wait_end"])
        check(t1 > t0, "%s: wait_end <= wait_start" % tag)
        check((t1 - t0).total_seconds() > 0.1, "%s: client wait <= deadlock_timeout" % tag)
        rs = by_pid[pid]
        start = None
        for i, r in enumerate(rs):
            m = WAIT_RE.match(r["msg"]) if r["sev"] == "LOG" else None
            if m and int(m.group(1)) == pid and m.group(2) != "acquired" \
                    and m.group(2) != "avoided deadlock for":
                start = (i, m)
                break
        if not check(start is not None, "%s: no 'still waiting' line" % tag):
            continue
        i, m = start
        kind = m.group(2)
        check(m.group(3) == w["mode_expected"], "%s: mode %s != expected %s"
              % (tag, m.group(3), w["mode_expected"]))
        check(("deadlock" in kind) == (w["outcome"] == "deadlock"),
              "%s: '%s' vs outcome %s" % (tag, kind, w["outcome"]))
        logged_at = rs[i]["time"]
        check(t0 - datetime.timedelta(milliseconds=5) <= logged_at
              <= t1 + datetime.timedelta(milliseconds=5),
              "%s: wait line at %s outside client window" % (tag, logged_at))
        detail = rs[i + 1] if i + 1 < len(rs) else None
        if not check(detail is not None and detail["sev"] == "DETAIL",
                     "%s: no DETAIL after wait line" % tag):
            continue
        hm = HOLDER_RE.match(detail["msg"])
        if not check(hm is not None, "%s: odd DETAIL %r" % (tag, detail["msg"])):
            continue
        holders = [int(x) for x in hm.group(1).split(", ")]
        check(holders == [w["direct_blocker_pid"]],
              "%s: DETAIL holder %r != direct_blocker_pid %d"
              % (tag, holders, w["direct_blocker_pid"]))
        if m.group(4).startswith("transaction "):
            ctx = rs[i + 2]["msg"] if i + 2 < len(rs) else ""
            check(('in relation "%s"' % w["relation"]) in ctx,
                  "%s: CONTEXT %r does not name %s" % (tag, ctx, w["relation"]))
        else:
            check(m.group(4).startswith("tuple "), "%s: unexpected target %s" % (tag, m.group(4)))
        rest = [r for r in rs[i + 1:]]
        acquired = [r for r in rest if r["sev"] == "LOG" and re.match(
            r"process %d acquired %s " % (pid, w["mode_expected"]), r["msg"])]
        errors = [r["state"] for r in rest if r["sev"] == "ERROR"]
        want = {"acquired": (True, None), "deadlock": (False, "40P01"),
                "lock_timeout": (False, "55P03"),
                "serialization_failure": (True, "40001")}[w["outcome"]]
        check(bool(acquired) == want[0], "%s: acquired line present=%s, outcome %s"
              % (tag, bool(acquired), w["outcome"]))
        check((errors[0] if errors else None) == want[1],
              "%s: first ERROR %r, outcome %s" % (tag, errors[:1], w["outcome"]))
        if acquired:
            ms = float(WAIT_RE.match(acquired[0]["msg"]).group(5))
            client_ms = (t1 - t0).total_seconds() * 1000
            check(ms <= client_ms + 5, "%s: server wait %.1f ms > client %.1f ms"
                  % (tag, ms, client_ms))

    # root_blocker_pid = end of the direct-blocker chain within the scenario
    direct = {(w["scenario"], w["waiter_pid"]): w["direct_blocker_pid"]
              for w in truth["waits"]}
    for w in truth["waits"]:
        if w["outcome"] == "deadlock" or w["scenario"] == "deadlock":
            continue  # cycles have no root
        p, seen = w["direct_blocker_pid"], set()
        while (w["scenario"], p) in direct and p not in seen:
            seen.add(p)
            p = direct[(w["scenario"], p)]
        check(p == w["root_blocker_pid"], "%s waiter %d: root %d, chain ends at %d"
              % (w["scenario"], w["waiter_pid"], w["root_blocker_pid"], p))

    for e in truth["errors"]:
        states = [r["state"] for r in by_pid[e["pid"]] if r["sev"] == "ERROR"]
        check(e["sqlstate"] in states, "error %r not in log (got %r)" % (e, states))
    logged_errors = sum(1 for r in recs if r["sev"] == "ERROR")
    check(logged_errors == len(truth["errors"]),
          "%d ERROR lines in log, %d errors in truth" % (logged_errors, len(truth["errors"])))

    for dl in truth["deadlocks"]:
        v = dl["victim_pid"]
        errs = [r for r in by_pid[v] if r["sev"] == "ERROR" and r["state"] == "40P01"]
        if check(errs, "deadlock victim %d has no 40P01" % v):
            det = by_pid[v][by_pid[v].index(errs[0]) + 1]
            for p in dl["pids"]:
                check("Process %d waits for" % p in det["msg"],
                      "deadlock DETAIL lacks process %d" % p)

    for s in truth["sessions"]:
        apps = {r["app"] for r in by_pid[s["pid"]] if r["app"] not in (None, "[unknown]")}
        check(apps == {s["application_name"]}, "session %d: apps %r != %r"
              % (s["pid"], apps, s["application_name"]))

    for h in truth["holds"]:
        check(iso(h["end"]) > iso(h["start"]), "hold %r: end <= start" % h)
        check(any(s["pid"] == h["pid"] for s in truth["sessions"]),
              "hold pid %d not a session" % h["pid"])

    # csvlog and jsonlog must carry the same lock-wait messages as stderr.
    def sig(pid, msg):
        return (int(pid), msg)
    want = sorted(sig(r["pid"], r["msg"]) for r in recs
                  if r["sev"] == "LOG" and WAIT_RE.match(r["msg"]))
    with open(os.path.join(d, "postgresql.csv"), newline="", encoding="utf-8",
              errors="replace") as f:
        rows = list(csv.reader(f))
    check(all(len(r) == 26 for r in rows), "csvlog rows without 26 columns")
    got_csv = sorted(sig(r[3], r[13]) for r in rows
                     if len(r) == 26 and r[11] == "LOG" and WAIT_RE.match(r[13]))
    check(got_csv == want, "csvlog lock-wait messages differ from stderr")
    got_json = []
    with open(os.path.join(d, "postgresql.json"), encoding="utf-8", errors="replace") as f:
        for line in f:
            o = json.loads(line)
            if o.get("error_severity") == "LOG" and WAIT_RE.match(o.get("message", "")):
                got_json.append(sig(o["pid"], o["message"]))
    check(sorted(got_json) == want, "jsonlog lock-wait messages differ from stderr")

    size = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
    check(size < 1024 * 1024, "sample is %d bytes" % size)

    print("check_truth: %d waits, %d holds, %d deadlocks, %d errors, %d sessions, "
          "%d log records, %d bytes" % (len(truth["waits"]), len(truth["holds"]),
                                        len(truth["deadlocks"]), len(truth["errors"]),
                                        len(truth["sessions"]), len(recs), size))
    for f in failures:
        print("FAIL:", f)
    print("check_truth: %s" % ("OK" if not failures else "%d FAILURES" % len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
