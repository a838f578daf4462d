#!/usr/bin/env python3
"""gen_spans.py — a large OTLP/JSON export of database spans, for the
memory of the passes that read spans (issue 37: "10 M spans under 64 MiB").

Usage: gen_spans.py N T0_NS SECONDS OUT
       gen_spans.py N --log LOG OUT

Writes N database spans with distinct trace and span ids (five spans a
trace), 1000 a line (OTLP/JSON lines, as the OpenTelemetry collector's
file exporter writes them), their starts spread evenly over SECONDS from
T0_NS (Unix nanoseconds, the application's clock), each 1.5 ms long, with
a db.statement of one of three shapes and distinct literals and a
db.postgresql.backend_pid (900000 + i % 50) that no session of a real log
had. This is a load, not a sample: nothing in it is a fact about an
application; analyze it beside a real log (samples/app) and read the peak
resident memory of each pass with LOCKSPAN_TIMING=1:

  bench/gen_spans.py 300000 1796214989000000000 60 /tmp/spans.jsonl
  LOCKSPAN_TIMING=1 lockspan analyze --prefix "$(cat samples/app/prefix.txt)" \\
      samples/app/postgresql.log /tmp/spans.jsonl 2>&1 | grep correlate-peak

With --log LOG (a real server's stderr log with prefix '%m [%p] ...' that
logged connections and disconnections but no statements, such as
samples/hidden-traces/postgresql.log), the spans belong to that log's
sessions instead: each trace is one transaction (BEGIN, SELECT, UPDATE,
INSERT, COMMIT) on the backend pid of one of its application sessions
(those that lived at least MIN_SESSION_S), the sessions taking turns, each
session's spans one after the other inside the time all of them were
connected, each 80 % of its slot long. Every pass that reads spans then
has work: "statements from spans" turns each span into a statement of its
session, the transactions pass rebuilds N/5 transactions from them, the
code-paths pass links each to its span by pid.
"""
import json
import random
import re
import sys
from datetime import datetime, timezone

TEXTS = ["UPDATE inventory SET stock = stock - %d WHERE sku = 'sku-%d'",
         "SELECT * FROM orders WHERE id = %d AND customer = %d",
         "INSERT INTO payments(order_id, amount) VALUES (%d, %d)"]
PER_LINE = 1000
SPAN_NS = 1500000


def span(i, n, t0, secs):
    start = t0 + int(secs * 1e9 * i / n)
    return {"traceId": "%032x" % (i // 5 + 1), "spanId": "%016x" % (i + 1),
            "parentSpanId": "%016x" % (10**12 + i // 5), "name": "pg.query", "kind": 3,
            "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + SPAN_NS),
            "attributes": [
                {"key": "db.system", "value": {"stringValue": "postgresql"}},
                {"key": "db.statement",
                 "value": {"stringValue": TEXTS[i % 3] % (random.randrange(10**6), i)}},
                {"key": "db.postgresql.backend_pid", "value": {"intValue": str(900000 + i % 50)}}]}


TX_TEXTS = ["BEGIN", "SELECT balance FROM accounts WHERE id = %d",
            "UPDATE accounts SET balance = balance - %d WHERE id = %d",
            "INSERT INTO orders (path, amount) VALUES ('gen', %d)", "COMMIT"]
MIN_SESSION_S = 5.0
SLOT_SHARE = 0.8
LINE_RE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) UTC \[(\d+)\] .*?"
                     r"LOG:  (connection authorized|disconnection)")


def log_sessions(path):
    """[(pid, connected_ns, disconnected_ns)] of the log's sessions that
    lived MIN_SESSION_S or more (the application's, not setup's)."""
    conn, out = {}, []
    with open(path) as f:
        for line in f:
            m = LINE_RE.match(line)
            if not m:
                continue
            t = datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=timezone.utc)
            ns = int(t.timestamp() * 1e6) * 1000
            pid = int(m.group(2))
            if m.group(3) == "connection authorized":
                conn[pid] = ns
            elif pid in conn and ns - conn[pid] >= MIN_SESSION_S * 1e9:
                out.append((pid, conn.pop(pid), ns))
    return sorted(out)


def tx_span(i, sessions, t0, step):
    """Span i: the (i % 5)-th statement of transaction i // 5, on session
    (i // 5) % len(sessions), in its slot of that session's timeline."""
    tx, k = i // 5, len(sessions)
    j = (tx // k) * 5 + i % 5
    start = t0 + j * step
    text = TX_TEXTS[i % 5]
    if i % 5 == 2:
        text = text % (random.randrange(100), tx % 20 + 1)
    elif i % 5 in (1, 3):
        text = text % (tx % 20 + 1)
    return {"traceId": "%032x" % (tx + 1), "spanId": "%016x" % (i + 1),
            "parentSpanId": "%016x" % (10**12 + tx), "name": "pg.query", "kind": 3,
            "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + int(step * SLOT_SHARE)),
            "attributes": [
                {"key": "db.system", "value": {"stringValue": "postgresql"}},
                {"key": "db.statement", "value": {"stringValue": text}},
                {"key": "db.postgresql.backend_pid",
                 "value": {"intValue": str(sessions[tx % k][0])}}]}


def main():
    args = sys.argv[1:]
    if len(args) == 4 and args[1] == "--log":
        sessions = log_sessions(args[2])
        if not sessions:
            sys.exit("%s: no session of %g s or more" % (args[2], MIN_SESSION_S))
        n, out = int(args[0]), args[3]
        # Inside the time every one of them was connected, with a margin.
        t0 = max(s[1] for s in sessions) + 10**8
        t1 = min(s[2] for s in sessions) - 10**8
        per_session = (n // 5 + len(sessions)) // len(sessions) * 5
        step = (t1 - t0) // per_session
        if step < 2000:
            sys.exit("%d spans do not fit in %.1f s of sessions at 2 us each" % (n, (t1 - t0) / 1e9))
        make = lambda i: tx_span(i, sessions, t0, step)
    elif len(args) == 4:
        n, t0, secs, out = int(args[0]), int(args[1]), float(args[2]), args[3]
        make = lambda i: span(i, n, t0, secs)
    else:
        sys.exit(__doc__)
    random.seed(7)
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": "gen"}}]}
    with open(out, "w") as f:
        for b in range(0, n, PER_LINE):
            spans = [make(i) for i in range(b, min(n, b + PER_LINE))]
            f.write(json.dumps({"resourceSpans": [{"resource": resource, "scopeSpans": [
                {"scope": {"name": "gen"}, "spans": spans}]}]}) + "\n")


if __name__ == "__main__":
    main()
