#!/usr/bin/python3
"""Sanity-check samples/app (made by samples/app.sh): does the server log
agree with truth.json, and do the three trace files hold the same spans?

Usage: samples/check_app.py [SAMPLEDIR]     (default samples/app; exit 0 = OK)

Standard library only.  Checks:
- every logged `still waiting for` matches one truth wait (waiter pid, lock
  mode, the pid in DETAIL "Process holding the lock" = direct_blocker_pid,
  logged inside the truth's wait window) and every non-marginal truth wait
  is logged; each logged wait is later `acquired`;
- each request's statements are in the log, from the truth's pid, inside
  the request's statement window; sqlcommenter comments (the last /*...*/,
  URL-decoded) appear exactly on the statements of the commented path, with
  the traceparent of that statement's span, and nowhere else;
- traces.otlp.jsonl, its .gz copy, traces.zipkin.json and traces.jaeger.json
  hold the same spans: trace ids, span ids, parents, names, kinds, start and
  end times (to the microsecond), and the truth's spans among them; db spans
  carry db.statement or db.query.text as the truth's db_convention says,
  the report path its backend pid attribute, function spans the code.*
  attributes;
- the truth's holds on the hot row do not overlap (20 ms client jitter) and
  its ranking is ordered by total hold; the sample is < 1 MB.
"""

import collections
import datetime
import gzip
import json
import os
import re
import sys
import urllib.parse

SEVERITIES = ("LOG|ERROR|FATAL|PANIC|WARNING|NOTICE|INFO|DEBUG[1-5]?|DETAIL|"
              "HINT|QUERY|CONTEXT|LOCATION|STATEMENT")
LINE_RE = re.compile(
    r"^(?P<ts>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) (?P<tz>\S+) \[(?P<pid>\d+)\] "
    r"(?:(?P<user>[^@ ]*)@(?P<db>[^/ ]*)/(?P<app>\S*) (?P<sid>[0-9a-f]+\.[0-9a-f]+) "
    r"(?P<lno>\d+) (?P<vxid>\S*) (?P<xid>\d+) (?P<state>[0-9A-Z]{5}) )?"
    r"(?P<sev>" + SEVERITIES + r"):  (?P<msg>.*)$")
WAIT_RE = re.compile(r"^process (\d+) (still waiting for|acquired) (\w+) on (.+) after (\d+\.\d{3}) ms")
HOLDER_RE = re.compile(r"^Process(?:es)? holding the lock: ([0-9, ]+)\. Wait queue: ([0-9, ]*)\.")
STMT_RE = re.compile(r"^duration: \d+\.\d{3} ms  statement: (.*)$", re.S)
TOL = 0.030   # s: client event-loop jitter + log %m millisecond truncation

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def t_iso(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ") \
        .replace(tzinfo=datetime.timezone.utc).timestamp()


def t_log(s):
    return datetime.datetime.strptime(s, "%Y-%m-%d %H:%M:%S.%f") \
        .replace(tzinfo=datetime.timezone.utc).timestamp()


def parse_log(path):
    recs = []
    with open(path, "rb") as f:
        for raw in f:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if line.startswith("\t") and recs:
                recs[-1]["msg"] += "\n" + line[1:]
                continue
            m = LINE_RE.match(line)
            if not check(m, "unparsable log line: %r" % line[:120]):
                continue
            r = m.groupdict()
            r["t"] = t_log(r["ts"])
            r["pid"] = int(r["pid"])
            recs.append(r)
    return recs


def last_comment(sql):
    """sqlcommenter: the last /*...*/ comment, as {key: URL-decoded value}."""
    i = sql.rfind("/*")
    if i < 0 or not sql.rstrip().endswith("*/"):
        return None
    body = sql[i + 2:sql.rstrip().rfind("*/")]
    tags = {}
    for m in re.finditer(r"([^=,]+)='((?:[^'\\]|\\.)*)'", body):
        k = urllib.parse.unquote(m.group(1).strip())
        tags[k] = urllib.parse.unquote(m.group(2).replace("\\'", "'"))
    return tags


def check_waits(recs, truth):
    logged = []
    by_pid = collections.defaultdict(list)
    for i, r in enumerate(recs):
        by_pid[r["pid"]].append(i)
    acquired = collections.defaultdict(list)
    for i, r in enumerate(recs):
        m = WAIT_RE.match(r["msg"]) if r["sev"] == "LOG" else None
        if not m:
            continue
        if m.group(2) == "acquired":
            acquired[int(m.group(1))].append(r["t"])
            continue
        holder = None
        for j in by_pid[r["pid"]]:
            if j > i and recs[j]["sev"] == "DETAIL":
                hm = HOLDER_RE.match(recs[j]["msg"])
                if hm:
                    holder = [int(x) for x in hm.group(1).split(",")]
                break
        logged.append({"pid": int(m.group(1)), "mode": m.group(3), "t": r["t"],
                       "holder": holder, "what": m.group(4)})
    waits = truth["waits"]
    used = set()
    for lw in logged:
        match = None
        for k, w in enumerate(waits):
            if k in used or w["waiter_pid"] != lw["pid"] or w["mode_expected"] != lw["mode"]:
                continue
            if not (t_iso(w["wait_start"]) + 0.1 - TOL <= lw["t"] <= t_iso(w["wait_end"]) + TOL):
                continue
            match = k
            break
        if not check(match is not None, "logged wait not in truth: pid %d %s at %s"
                     % (lw["pid"], lw["mode"], lw["t"])):
            continue
        used.add(match)
        w = waits[match]
        allowed = w.get("direct_blocker_alternatives") or [w["direct_blocker_pid"]]
        check(lw["holder"] is not None and len(lw["holder"]) == 1 and lw["holder"][0] in allowed,
              "wait of pid %d at %s: log names holder %s, truth %s"
              % (lw["pid"], w["wait_start"], lw["holder"], allowed))
        check(any(t >= lw["t"] for t in acquired[lw["pid"]]),
              "wait of pid %d at %s never acquired" % (lw["pid"], w["wait_start"]))
        exp = "transaction" if w["mode_expected"] == "ShareLock" else "tuple"
        check(lw["what"].startswith(exp), "wait of pid %d: lock on %r" % (lw["pid"], lw["what"]))
    for k, w in enumerate(waits):
        if k not in used:
            check(w["marginal"], "truth wait not logged: pid %d at %s (%s)"
                  % (w["waiter_pid"], w["wait_start"], w["mode_expected"]))
    return len(logged), len(used)


def check_statements(recs, truth):
    stmts = collections.defaultdict(list)   # pid -> [(t, text)]
    commented = []
    for r in recs:
        m = STMT_RE.match(r["msg"]) if r["sev"] == "LOG" else None
        if not m:
            continue
        stmts[r["pid"]].append((r["t"], m.group(1)))
        c = last_comment(m.group(1))
        if c:
            commented.append((r["pid"], r["t"], m.group(1), c))
    want_comments = {}
    for q in truth["requests"]:
        for s in q["statements"]:
            lo, hi = t_iso(s["start"]) - TOL, t_iso(s["end"]) + TOL
            hits = [x for x in stmts[q["pid"]] if x[1] == s["sql"] and lo <= x[0] <= hi]
            check(len(hits) == 1, "request %d: statement %r of pid %d logged %d times in its window"
                  % (q["seq"], s["sql"][:60], q["pid"], len(hits)))
            c = last_comment(s["sql"])
            check(bool(c) == q["sqlcommenter"], "request %d (%s): comment on %r"
                  % (q["seq"], q["function"], s["sql"][:60]))
            if c:
                want_comments[s["span_id"]] = (q, s, c)
    check(len(commented) == len(want_comments),
          "log has %d commented statements, truth %d" % (len(commented), len(want_comments)))
    for pid, t, text, c in commented:
        tp = c.get("traceparent", "")
        parts = tp.split("-")
        if not check(len(parts) == 4 and parts[2] in want_comments,
                     "logged comment with unknown traceparent %r" % tp):
            continue
        q, s, _ = want_comments[parts[2]]
        check(parts[1] == q["trace_id"] and pid == q["pid"] and text == s["sql"],
              "comment %r: trace/pid/text differ from request %d" % (tp, q["seq"]))
        check(c.get("route") == q["route"], "comment route %r != %r" % (c.get("route"), q["route"]))
    return len(commented)


def attrs_otlp(lst):
    out = {}
    for kv in lst or []:
        v = kv.get("value", {})
        for k in ("stringValue", "boolValue", "doubleValue"):
            if k in v:
                out[kv["key"]] = v[k]
        if "intValue" in v:
            out[kv["key"]] = int(v["intValue"])
    return out


def load_otlp(path):
    op = gzip.open if path.endswith(".gz") else open
    spans = {}
    with op(path, "rt", encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            doc = json.loads(line)
            for rs in doc["resourceSpans"]:
                for ss in rs["scopeSpans"]:
                    for s in ss["spans"]:
                        check(isinstance(s["startTimeUnixNano"], str), "OTLP times not strings")
                        spans[s["spanId"]] = {
                            "trace": s["traceId"], "parent": s.get("parentSpanId", ""),
                            "name": s["name"], "kind": s.get("kind", 0),
                            "start_ns": int(s["startTimeUnixNano"]), "end_ns": int(s["endTimeUnixNano"]),
                            "attrs": attrs_otlp(s.get("attributes"))}
    return spans


KINDS = {"SERVER": 2, "CLIENT": 3, "PRODUCER": 4, "CONSUMER": 5, None: 1,
         "server": 2, "client": 3, "producer": 4, "consumer": 5, "internal": 1}


def check_traces(d, truth):
    otlp = load_otlp(os.path.join(d, "traces.otlp.jsonl"))
    check(otlp == load_otlp(os.path.join(d, "traces.otlp.jsonl.gz")), "jsonl.gz differs from jsonl")
    zipkin = {}
    for s in json.load(open(os.path.join(d, "traces.zipkin.json"))):
        zipkin[s["id"]] = s
    jaeger = {}
    jdoc = json.load(open(os.path.join(d, "traces.jaeger.json")))
    for tr in jdoc["data"]:
        for s in tr["spans"]:
            check(s["traceID"] == tr["traceID"], "jaeger span in the wrong trace")
            check(s["processID"] in tr["processes"], "jaeger span without process")
            jaeger[s["spanID"]] = s
    check(set(otlp) == set(zipkin) == set(jaeger),
          "span ids differ: otlp %d zipkin %d jaeger %d" % (len(otlp), len(zipkin), len(jaeger)))
    for sid, o in otlp.items():
        z, j = zipkin.get(sid), jaeger.get(sid)
        if not (z and j):
            continue
        s_us, e_us = o["start_ns"] // 1000, o["end_ns"] // 1000
        check(z["traceId"] == o["trace"] and z.get("parentId", "") == o["parent"]
              and z["name"] == o["name"] and KINDS[z.get("kind")] == o["kind"],
              "zipkin span %s differs" % sid)
        check(z["timestamp"] == s_us and abs(z["timestamp"] + z["duration"] - e_us) <= 1,
              "zipkin span %s times differ" % sid)
        parent = [r["spanID"] for r in j["references"] if r["refType"] == "CHILD_OF"]
        jt = {t["key"]: t["value"] for t in j["tags"]}
        check(j["traceID"] == o["trace"] and (parent[0] if parent else "") == o["parent"]
              and j["operationName"] == o["name"] and KINDS[jt.get("span.kind")] == o["kind"],
              "jaeger span %s differs" % sid)
        check(j["startTime"] == s_us and abs(j["startTime"] + j["duration"] - e_us) <= 1,
              "jaeger span %s times differ" % sid)
        for k, v in o["attrs"].items():
            check(jt.get(k) == v, "jaeger span %s tag %s" % (sid, k))
            check(str(z.get("tags", {}).get(k)) == (str(v).lower() if isinstance(v, bool) else str(v)),
                  "zipkin span %s tag %s" % (sid, k))
    traces = {o["trace"] for o in otlp.values()}
    check(len(traces) == len(truth["requests"]), "%d traces for %d requests"
          % (len(traces), len(truth["requests"])))
    for q in truth["requests"]:
        srv = otlp.get(q["server_span_id"], {})
        check(srv.get("kind") == 2 and srv.get("parent") == "" and srv.get("trace") == q["trace_id"]
              and srv["attrs"].get("http.route") == q["route"], "request %d: server span" % q["seq"])
        fn = otlp.get(q["function_span_id"], {})
        a = fn.get("attrs", {})
        check(fn.get("parent") == q["server_span_id"] and a.get("code.function") == q["code_function"]
              and a.get("code.filepath") == q["code_filepath"] and a.get("code.lineno") == q["code_lineno"],
              "request %d: function span" % q["seq"])
        for s in q["statements"] + q["other_spans"]:
            o = otlp.get(s["span_id"])
            if not check(o is not None, "request %d: span %s missing" % (q["seq"], s["span_id"])):
                continue
            check(o["parent"] == q["function_span_id"] and o["trace"] == q["trace_id"],
                  "request %d: span %s parent/trace" % (q["seq"], s["span_id"]))
            # Spans are on the application's clock, truth on the server's.
            skew = truth.get("app_clock_skew_us", 0) / 1e6
            check(abs(o["start_ns"] / 1e9 - skew - t_iso(s["start"])) < 2e-6
                  and abs(o["end_ns"] / 1e9 - skew - t_iso(s["end"])) < 2e-6,
                  "request %d: span %s times differ from truth" % (q["seq"], s["span_id"]))
            if "sql" not in s:
                continue
            text = o["attrs"].get("db.statement" if q["db_convention"] == "old" else "db.query.text")
            sysname = o["attrs"].get("db.system" if q["db_convention"] == "old" else "db.system.name")
            check(sysname == "postgresql" and text is not None and s["sql"].startswith(text),
                  "request %d: db span %s attributes" % (q["seq"], s["span_id"]))
            check((o["attrs"].get("db.postgresql.backend_pid") == q["pid"]) == q["pid_attribute"],
                  "request %d: db span %s pid attribute" % (q["seq"], s["span_id"]))
    return len(otlp), len(traces)


def check_truth_self(truth):
    holds = sorted(truth["requests"], key=lambda q: q["hold"]["start"])
    for a, b in zip(holds, holds[1:]):
        check(t_iso(b["hold"]["start"]) >= t_iso(a["hold"]["end"]) - 0.020,
              "holds of requests %d and %d overlap" % (a["seq"], b["seq"]))
    tot = [p["hold_total_s"] for p in truth["ranking"]]
    check(tot == sorted(tot, reverse=True), "ranking not ordered by total hold")
    for q in truth["requests"]:
        b = q["breakdown"]
        s = b["sql_s"] + sum(b["spans_s"].values()) + b["idle_s"] + b["commit_s"]
        check(abs(s - q["hold"]["duration_s"]) < 2e-6, "request %d: breakdown does not add up" % q["seq"])


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "app")
    truth = json.load(open(os.path.join(d, "truth.json")))
    with open(os.path.join(d, "prefix.txt")) as f:
        check(f.read() == truth["prefix"], "prefix.txt differs from truth.prefix")
    recs = parse_log(os.path.join(d, "postgresql.log"))
    nlogged, nmatched = check_waits(recs, truth)
    ncomm = check_statements(recs, truth)
    nspans, ntraces = check_traces(d, truth)
    check_truth_self(truth)
    size = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d)
               if os.path.isfile(os.path.join(d, f)) and f != "package-lock.json")
    check(size < 1_000_000, "sample is %d bytes" % size)
    if failures:
        for f in failures[:50]:
            print("FAIL:", f)
        print("%d failures" % len(failures))
        return 1
    print("OK: %d log records, %d logged waits = truth (%d truth waits, %d marginal), "
          "%d sqlcommenter statements, %d spans in %d traces identical in OTLP/Zipkin/Jaeger"
          % (len(recs), nlogged, len(truth["waits"]), sum(w["marginal"] for w in truth["waits"]),
             ncomm, nspans, ntraces))
    return 0


if __name__ == "__main__":
    sys.exit(main())
