#!/usr/bin/env python3
"""gen_spans.py — a large OTLP/JSON export of database spans, for the
memory of the passes that read spans (issue 37: "10 M spans under 64 MiB").

Usage: gen_spans.py N T0_NS SECONDS OUT

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
"""
import json
import random
import sys

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


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    n, t0, secs, out = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    random.seed(7)
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": "gen"}}]}
    with open(out, "w") as f:
        for b in range(0, n, PER_LINE):
            spans = [span(i, n, t0, secs) for i in range(b, min(n, b + PER_LINE))]
            f.write(json.dumps({"resourceSpans": [{"resource": resource, "scopeSpans": [
                {"scope": {"name": "gen"}, "spans": spans}]}]}) + "\n")


if __name__ == "__main__":
    main()
