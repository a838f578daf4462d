#!/usr/bin/python3
"""Convert OTLP/JSON traces (TracesData objects, JSON Lines or one document,
optionally gzipped) to the Jaeger query-API JSON shape (what the Jaeger UI's
"Download JSON" and GET /api/traces return):

    {"data": [{"traceID", "spans": [...], "processes": {"p1": ...},
               "warnings": null}], "total": 0, "limit": 0, "offset": 0,
     "errors": null}

The JS SDK no longer has a Jaeger exporter, so samples/app makes its Jaeger
file from the captured OTLP, following the OpenTelemetry collector's
OTLP -> Jaeger translator (pkg/translator/jaeger/traces_to_jaegerproto.go,
the code Jaeger itself uses to ingest OTLP) and Jaeger's domain -> JSON
conversion (model/converter/json/from_domain.go):

- span tags: otel.scope.name / otel.scope.version first, then the span's
  attributes in order, then span.kind (client, server, producer, consumer,
  internal), otel.status_code (OK / ERROR) and error=true for ERROR,
  otel.status_description, w3c.tracestate;
- tag types string / bool / int64 / float64 / binary; arrays and maps
  become strings (JSON);
- the parent becomes the first reference, CHILD_OF; links FOLLOWS_FROM;
- events become logs (an "event" field with the name, then the attributes);
- process: serviceName from the resource's service.name, the other resource
  attributes as process tags; processes numbered p1, p2, ... per trace in
  order of first appearance;
- startTime / duration: microseconds, truncated from nanoseconds (duration
  computed in nanoseconds first);
- traceID: 32 hex digits (16 when the high half is zero), spanID 16.

Usage: otlp2jaeger.py FILE.jsonl[.gz] > traces.jaeger.json   (stdlib only)
"""

import gzip
import json
import sys


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8") as f:
        text = f.read()
    docs = []
    try:
        docs.append(json.loads(text))
    except json.JSONDecodeError:
        for line in text.splitlines():
            if line.strip():
                docs.append(json.loads(line))
    return docs


def value_tag(key, v):
    if "stringValue" in v:
        return {"key": key, "type": "string", "value": v["stringValue"]}
    if "boolValue" in v:
        return {"key": key, "type": "bool", "value": bool(v["boolValue"])}
    if "intValue" in v:
        return {"key": key, "type": "int64", "value": int(v["intValue"])}
    if "doubleValue" in v:
        return {"key": key, "type": "float64", "value": float(v["doubleValue"])}
    if "bytesValue" in v:
        return {"key": key, "type": "binary", "value": v["bytesValue"]}
    return {"key": key, "type": "string", "value": json.dumps(raw(v), separators=(",", ":"))}


def raw(v):
    if "arrayValue" in v:
        return [raw(x) for x in v["arrayValue"].get("values", [])]
    if "kvlistValue" in v:
        return {kv["key"]: raw(kv.get("value", {})) for kv in v["kvlistValue"].get("values", [])}
    for k in ("stringValue", "boolValue", "doubleValue", "bytesValue"):
        if k in v:
            return v[k]
    if "intValue" in v:
        return int(v["intValue"])
    return None


def tags(attrs):
    return [value_tag(kv["key"], kv.get("value", {})) for kv in attrs or []]


def trace_id(h):
    h = h.lower()
    return h[16:] if h[:16] == "0" * 16 else h


KIND = {2: "server", 3: "client", 4: "producer", 5: "consumer", 1: "internal"}
STATUS = {1: "OK", 2: "ERROR"}


def convert_span(s, scope):
    t = []
    if scope.get("name"):
        t.append({"key": "otel.scope.name", "type": "string", "value": scope["name"]})
    if scope.get("version"):
        t.append({"key": "otel.scope.version", "type": "string", "value": scope["version"]})
    t += tags(s.get("attributes"))
    kind = int(s.get("kind", 0))
    if kind in KIND:
        t.append({"key": "span.kind", "type": "string", "value": KIND[kind]})
    st = s.get("status") or {}
    code = int(st.get("code", 0))
    if code in STATUS:
        t.append({"key": "otel.status_code", "type": "string", "value": STATUS[code]})
    if code == 2:
        t.append({"key": "error", "type": "bool", "value": True})
    if st.get("message"):
        t.append({"key": "otel.status_description", "type": "string", "value": st["message"]})
    if s.get("traceState"):
        t.append({"key": "w3c.tracestate", "type": "string", "value": s["traceState"]})
    tid = trace_id(s["traceId"])
    refs = []
    if s.get("parentSpanId"):
        refs.append({"refType": "CHILD_OF", "traceID": tid, "spanID": s["parentSpanId"].lower()})
    for ln in s.get("links") or []:
        refs.append({"refType": "FOLLOWS_FROM", "traceID": trace_id(ln["traceId"]),
                     "spanID": ln["spanId"].lower()})
    logs = []
    for ev in s.get("events") or []:
        fields = []
        names = {kv["key"] for kv in ev.get("attributes") or []}
        if ev.get("name") and "event" not in names:
            fields.append({"key": "event", "type": "string", "value": ev["name"]})
        fields += tags(ev.get("attributes"))
        logs.append({"timestamp": int(ev.get("timeUnixNano", 0)) // 1000, "fields": fields})
    start = int(s["startTimeUnixNano"])
    end = int(s["endTimeUnixNano"])
    return {"traceID": tid, "spanID": s["spanId"].lower(), "operationName": s.get("name", ""),
            "references": refs, "startTime": start // 1000, "duration": (end - start) // 1000,
            "tags": t, "logs": logs, "processID": None, "warnings": None}


def main():
    traces = {}   # traceID -> {"spans": [], "procs": [(key, process)]}
    order = []
    for path in sys.argv[1:]:
        for doc in load(path):
            for rs in doc.get("resourceSpans", []):
                rattrs = (rs.get("resource") or {}).get("attributes") or []
                svc = "OTLPResourceNoServiceName"
                ptags = []
                for kv in rattrs:
                    if kv["key"] == "service.name":
                        svc = kv["value"].get("stringValue", svc)
                    else:
                        ptags.append(value_tag(kv["key"], kv.get("value", {})))
                process = {"serviceName": svc, "tags": ptags}
                for ss in rs.get("scopeSpans", []):
                    for s in ss.get("spans", []):
                        js = convert_span(s, ss.get("scope") or {})
                        tr = traces.get(js["traceID"])
                        if tr is None:
                            tr = traces[js["traceID"]] = {"spans": [], "procs": []}
                            order.append(js["traceID"])
                        for key, p in tr["procs"]:
                            if p == process:
                                break
                        else:
                            key = "p%d" % (len(tr["procs"]) + 1)
                            tr["procs"].append((key, process))
                        js["processID"] = key
                        tr["spans"].append(js)
    data = []
    for tid in order:
        tr = traces[tid]
        data.append({"traceID": tid, "spans": tr["spans"],
                     "processes": {k: p for k, p in tr["procs"]}, "warnings": None})
    json.dump({"data": data, "total": 0, "limit": 0, "offset": 0, "errors": None},
              sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
