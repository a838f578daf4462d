#!/usr/bin/python3
"""Sanity-check a generated sample: does the server log agree with truth.json?

Usage: samples/check_truth.py SAMPLEDIR     (exit status 0 = all checks pass)

Reads SAMPLEDIR/postgresql.log (stderr format, prefix from prefix.txt, which
must be '%m [%p] %q%u@%d/%a %c %l %v %x %e '), postgresql.csv,
postgresql.json and truth.json.  Standard library only.

A correlation set (truth "set": "correlation", samples/correlation*) has
session ids in its truth: sessions, waits and errors are then matched by the
%c session id, not the pid (the set reuses a pid), and check_correlation()
also checks ctids, xids, statements, transactions, retries, chains, pid
reuse and the pg_stat_activity snapshots.
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


STMT_RE = re.compile(r"^(?:duration: \d+\.\d{3} ms  )?(?:statement|execute [^:]+): (.*)$", re.S)
TX_TARGET_RE = re.compile(r"^transaction (\d+)$")
HEAD_STATES = ("running", "idle_in_transaction", "committing", "waiting")


def logged_statements(rs, stmtall):
    """The statements a session's log records show, in order: (record, text,
    parameters DETAIL or None).  Durations: the duration line (parse and
    bind lines skipped), or for a failed statement its ERROR's STATEMENT.
    log_statement = 'all': the `statement:` / `execute` line (at start)."""
    out = []
    for i, r in enumerate(rs):
        if r["sev"] == "LOG":
            m = STMT_RE.match(r["msg"])
            if not m or (not stmtall) != r["msg"].startswith("duration: "):
                continue
            det = rs[i + 1]["msg"] if i + 1 < len(rs) and rs[i + 1]["sev"] == "DETAIL" \
                and rs[i + 1]["msg"].startswith("parameters: ") else None
            out.append((r, m.group(1), det))
        elif r["sev"] == "ERROR" and not stmtall:
            st = [x for x in rs[i + 1:i + 6] if x["sev"] == "STATEMENT"]
            if st:
                out.append((r, st[0]["msg"], None))
    return out


def check_correlation(d, truth, recs, by_sid):
    stmtall = truth.get("log_statement") == "all"
    sessions = {s["session_id"]: s for s in truth["sessions"]}
    for sid, s in sessions.items():
        pid_hex = sid.split(".")[1]
        check(int(pid_hex, 16) == s["pid"], "session %s: pid %d" % (sid, s["pid"]))
        check("%x" % int(iso(s["backend_start"]).timestamp()) == sid.split(".")[0],
              "session %s: backend_start %s" % (sid, s["backend_start"]))
        check(by_sid[sid], "session %s not in the log" % sid)
    # Only truth sessions log statements (monitor and snapshot are quiet).
    for sid, rs in by_sid.items():
        if sid not in sessions and rs and rs[0]["app"] != "[unknown]":
            stm = [r for r in rs if r["sev"] == "LOG" and STMT_RE.match(r["msg"])]
            apps = {r["app"] for r in rs} - {"[unknown]"}
            check(not stm or apps == {"createdb"},
                  "session %s (%s) logs statements but is not in truth" % (sid, apps))

    # waits: the awaited xid and the ctid the log names
    for w in truth["waits"]:
        rs = by_sid[w["waiter_session_id"]]
        tag = "%s waiter %s" % (w["scenario"], w["waiter_session_id"])
        line = next((r for r in rs if r["sev"] == "LOG" and WAIT_RE.match(r["msg"])
                     and WAIT_RE.match(r["msg"]).group(2) == "still waiting for"), None)
        if not check(line is not None, "%s: no wait line" % tag):
            continue
        target = WAIT_RE.match(line["msg"]).group(4)
        if w["mode_expected"] == "ShareLock":
            check(target == "transaction %d" % w["awaited_xid"],
                  "%s: target %r, awaited xid %r" % (tag, target, w["awaited_xid"]))
            i = rs.index(line)
            ctx = next((r["msg"] for r in rs[i + 1:i + 4] if r["sev"] == "CONTEXT"), "")
            check(("tuple %s in relation" % w["ctid"]) in ctx,
                  "%s: CONTEXT %r lacks ctid %s" % (tag, ctx, w["ctid"]))
        else:
            check(target.startswith("tuple %s of relation " % w["ctid"]),
                  "%s: target %r, ctid %s" % (tag, target, w["ctid"]))
        check(w["waiter_session_id"] in sessions and w["root_session_id"] in sessions
              and w["direct_blocker_session_id"] in sessions,
              "%s: unknown session ids" % tag)
        check(sessions[w["root_session_id"]]["backend_start"] == w["root_backend_start"],
              "%s: root_backend_start" % tag)
        check(sessions[w["waiter_session_id"]]["backend_start"] == w["waiter_backend_start"],
              "%s: waiter_backend_start" % tag)

    # holds: the holder's xid shows in its %x; head states
    for h in truth["holds"]:
        tag = "hold %s %s/%s" % (h["session_id"], h["relation"], h["row_id"])
        check(h["head_state"] in HEAD_STATES, "%s: head_state %r" % (tag, h["head_state"]))
        check(any(r["xid"] == str(h["xid"]) for r in by_sid[h["session_id"]]),
              "%s: xid %s never in %%x" % (tag, h["xid"]))
        check(iso(h["end"]) > iso(h["start"]), "%s: end <= start" % tag)
        blocked = [w for w in truth["waits"]
                   if w["direct_blocker_session_id"] == h["session_id"]
                   and (w["relation"], w["row_id"]) == (h["relation"], h["row_id"])
                   and w.get("awaited_xid", h["xid"]) == h["xid"]]
        check(blocked or h["head_state"] == "waiting", "%s blocks nobody" % tag)
        for w in blocked:
            if w["mode_expected"] == "ShareLock" and w["outcome"] == "acquired":
                check(iso(w["wait_end"]) >= iso(h["end"]) - datetime.timedelta(milliseconds=5),
                      "%s: waiter %s done before the hold ended" % (tag, w["waiter_session_id"]))

    # transactions: every statement, in order, with its time and parameters
    per_sid = collections.defaultdict(list)
    for t in truth["transactions"]:
        per_sid[t["session_id"]].extend(t["statements"])
        check(t["outcome"] in ("committed", "rolled_back", "failed"),
              "transaction outcome %r" % t["outcome"])
    tol = datetime.timedelta(milliseconds=6)
    nstmt = 0
    for sid, stmts in per_sid.items():
        stmts.sort(key=lambda x: x["start"])
        got = logged_statements(by_sid[sid], stmtall)
        if not check(len(got) == len(stmts), "session %s: %d statements logged, %d in truth"
                     % (sid, len(got), len(stmts))):
            continue
        for st, (r, text, det) in zip(stmts, got):
            nstmt += 1
            check(text == st["sql"], "session %s: logged %r, truth %r" % (sid, text, st["sql"]))
            check(iso(st["start"]) - tol <= r["time"] <= iso(st["end"]) + tol,
                  "session %s: %r logged at %s outside [%s, %s]"
                  % (sid, text[:40], r["time"], st["start"], st["end"]))
            if st.get("params"):
                want = ", ".join("$%d = '%s'" % (i + 1, v) for i, v in enumerate(st["params"]))
                check(det == "parameters: " + want, "session %s: %r vs params %r"
                      % (sid, det, want))
    check(nstmt > 0, "no statements checked")
    check(set(per_sid) == set(sessions), "sessions without transactions")

    # retries: failure then the same statement succeeding later, same session
    for rt in truth["retries"]:
        rs = by_sid[rt["session_id"]]
        errs = [i for i, r in enumerate(rs) if r["sev"] == "ERROR" and r["state"] == rt["sqlstate"]]
        if not check(errs, "retry %s: no %s" % (rt["session_id"], rt["sqlstate"])):
            continue
        later = [t for r, t, _ in logged_statements(rs[errs[0] + 1:], stmtall)]
        check(rt["statement"] in later, "retry %s: statement not repeated" % rt["session_id"])
        check(iso(rt["failed"]["tx_end"]) < iso(rt["retry"]["tx_start"]),
              "retry %s: retry before the failure ended" % rt["session_id"])
        check(rt["caused_by_session_id"] in sessions, "retry: unknown cause")

    # chains: leaf -> ... -> root through the waits
    direct = {w["waiter_session_id"]: w["direct_blocker_session_id"] for w in truth["waits"]}
    for c in truth["chains"]:
        path = [c["leaf_session_id"]]
        while path[-1] in direct and len(path) < 20:
            path.append(direct[path[-1]])
        want = [m["session_id"] for m in reversed(c["members"])]
        check(path == want, "chain %s: walk %r != members %r" % (c["scenario"], path, want))
        check(c["depth"] == len(want) - 1 == 3, "chain depth %r" % c["depth"])

    # ctids: one logical row, several ctids; each wait's ctid belongs to its row
    rows = {(r["relation"], r["row_id"]): r["ctids"] for r in truth["ctids"]}
    for w in truth["waits"]:
        check(w["ctid"] in rows.get((w["relation"], w["row_id"]), []),
              "wait %s: ctid %s not among its row's" % (w["waiter_session_id"], w["ctid"]))
    check(max(len(v) for v in rows.values()) >= 5, "no row with 5 or more ctids")

    # pid reuse: two sessions, one pid, both in lock waits
    pr = truth.get("pid_reuse")
    if pr is not None:
        ss = pr["sessions"]
        check(len(ss) == 2 and ss[0]["pid"] == ss[1]["pid"] == pr["pid"]
              and ss[0]["session_id"] != ss[1]["session_id"], "pid_reuse sessions %r" % ss)
        for x in ss:
            involved = [w for w in truth["waits"]
                        if x["session_id"] in (w["waiter_session_id"], w["direct_blocker_session_id"])]
            check(involved, "pid_reuse session %s in no wait" % x["session_id"])
            check(by_sid[x["session_id"]], "pid_reuse session %s not in the log" % x["session_id"])

    # pg_stat_activity snapshots
    snap = truth.get("snapshots")
    path = os.path.join(d, "pg_stat_activity.csv")
    if check(snap is not None and os.path.exists(path), "no pg_stat_activity.csv"):
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        check(rows[0] == ["now", "pid", "state", "wait_event_type", "wait_event",
                          "xact_start", "query_start", "backend_start",
                          "pg_blocking_pids", "query"], "snapshot header %r" % rows[0])
        check(all(len(r) == 10 for r in rows), "snapshot rows without 10 columns")
        check(sum(1 for r in rows[1:] if r[0] == "now") == 0, "header repeated")
        nows = {r[0] for r in rows[1:]}
        check(len(nows) <= snap["count"] and len(nows) > snap["count"] // 2,
              "%d snapshot times, %d snapshots" % (len(nows), snap["count"]))
        blocked = {int(r[1]) for r in rows[1:] if r[8] not in ("{}", "")}
        waiters = {w["waiter_pid"] for w in truth["waits"]}
        check(len(blocked & waiters) >= len(waiters) // 2,
              "snapshots show %d of %d waiters blocked" % (len(blocked & waiters), len(waiters)))
        states = {r[2] for r in rows[1:]}
        check("idle in transaction" in states and "active" in states, "snapshot states %r" % states)

    print("check_truth: correlation: %d statements, %d transactions, %d retries, "
          "%d chains, %d rows with ctids, pid_reuse %s"
          % (nstmt, len(truth["transactions"]), len(truth["retries"]),
             len(truth["chains"]), len(truth["ctids"]),
             pr["pid"] if pr else "not obtained"))


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
        if n == "deadlock detected" and not truth["deadlocks"]:
            continue
        check(n in text, "postgresql.log lacks %r" % n)

    recs = parse_stderr(os.path.join(d, "postgresql.log"))
    by_pid = collections.defaultdict(list)
    by_sid = collections.defaultdict(list)
    for r in recs:
        by_pid[r["pid"]].append(r)
        if r["sid"]:
            by_sid[r["sid"]].append(r)
    # Correlation sets name sessions by %c (pids are reused there).
    use_sid = all("session_id" in s for s in truth["sessions"])

    def recs_of(pid, sid):
        return by_sid[sid] if use_sid else by_pid[pid]

    # Every logged wait start ("still waiting" / "detected deadlock while
    # waiting") must belong to a truth wait, and vice versa.
    logged_waits = collections.Counter()
    for r in recs:
        if r["sev"] == "LOG":
            m = WAIT_RE.match(r["msg"])
            if m and m.group(2) in ("still waiting for",
                                    "detected deadlock while waiting for"):
                logged_waits[r["sid"] if use_sid else r["pid"]] += 1
    truth_waits = collections.Counter(w["waiter_session_id" if use_sid else "waiter_pid"]
                                      for w in truth["waits"])
    check(logged_waits == truth_waits,
          "logged wait starts %r != truth waits %r" % (dict(logged_waits), dict(truth_waits)))

    for w in truth["waits"]:
        pid = w["waiter_pid"]
        tag = "%s waiter %d" % (w["scenario"], pid)
        t0, t1 = iso(w["wait_start"]), iso(w["wait_end"])
        check(t1 > t0, "%s: wait_end <= wait_start" % tag)
        check((t1 - t0).total_seconds() > 0.1, "%s: client wait <= deadlock_timeout" % tag)
        rs = recs_of(pid, w.get("waiter_session_id"))
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
    if use_sid:  # the same chain walk over session ids
        direct = {w["waiter_session_id"]: w["direct_blocker_session_id"]
                  for w in truth["waits"]}
    else:
        direct = {(w["scenario"], w["waiter_pid"]): w["direct_blocker_pid"]
                  for w in truth["waits"]}
    for w in truth["waits"]:
        if w["outcome"] == "deadlock" or w["scenario"] == "deadlock":
            continue  # cycles have no root
        if use_sid:
            p, seen = w["direct_blocker_session_id"], set()
            while p in direct and p not in seen:
                seen.add(p)
                p = direct[p]
            check(p == w["root_session_id"], "%s waiter %s: root %s, chain ends at %s"
                  % (w["scenario"], w["waiter_session_id"], w["root_session_id"], p))
            check(int(p.split(".")[1], 16) == w["root_blocker_pid"],
                  "%s waiter %s: root session %s is not pid %d"
                  % (w["scenario"], w["waiter_session_id"], p, w["root_blocker_pid"]))
            continue
        p, seen = w["direct_blocker_pid"], set()
        while (w["scenario"], p) in direct and p not in seen:
            seen.add(p)
            p = direct[(w["scenario"], p)]
        check(p == w["root_blocker_pid"], "%s waiter %d: root %d, chain ends at %d"
              % (w["scenario"], w["waiter_pid"], w["root_blocker_pid"], p))

    for e in truth["errors"]:
        states = [r["state"] for r in recs_of(e["pid"], e.get("session_id"))
                  if r["sev"] == "ERROR"]
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
        apps = {r["app"] for r in recs_of(s["pid"], s.get("session_id"))
                if r["app"] not in (None, "[unknown]")}
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
    if truth.get("set") == "correlation":
        check(size < 500 * 1024, "correlation sample is %d bytes" % size)
        check_correlation(d, truth, recs, by_sid)

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
