#!/usr/bin/env python3
"""Write a real trace export of samples/app as ONE JSON document on ONE
line of at least MIN_BYTES, as `jq -c` and many exporters write it.

Usage: oneline_export.py FORMAT APP_DIR OUT MIN_BYTES

FORMAT is otlp (the resourceSpans of every line of traces.otlp.jsonl, the
OpenTelemetry JS SDK's batches, merged into one {"resourceSpans":[...]}),
otlp-merged (the same spans in one ResourceSpans per resource and one
ScopeSpans per scope, so one element of resourceSpans holds the whole
line: `jq -c` merging batches writes this), jaeger (the "data" traces of traces.jaeger.json) or zipkin (the span array
of traces.zipkin.json). The run's batches / traces / spans are repeated
unchanged, ids included, until the line is MIN_BYTES long: a reader that
reads the whole line reads every span COPIES times, and a store that keeps
a span once per (trace id, span id) holds the original export's spans.
Prints COPIES and the number of spans per copy on stdout.
"""
import json
import os
import sys


def elements(fmt, app):
    """The export's repeatable elements and its spans per copy."""
    if fmt == "otlp":
        out = []
        with open(os.path.join(app, "traces.otlp.jsonl")) as f:
            for line in f:
                if line.strip():
                    out.extend(json.loads(line)["resourceSpans"])
        n = sum(len(ss["spans"]) for rs in out for ss in rs["scopeSpans"])
        return out, n
    if fmt == "jaeger":
        data = json.load(open(os.path.join(app, "traces.jaeger.json")))["data"]
        return data, sum(len(t["spans"]) for t in data)
    if fmt == "zipkin":
        spans = json.load(open(os.path.join(app, "traces.zipkin.json")))
        return spans, len(spans)
    raise SystemExit(f"unknown format {fmt}")


def merged(app, min_bytes):
    """The OTLP export as one ResourceSpans per resource, one ScopeSpans per
    scope, each scope's spans repeated: the line, copies, spans per copy."""
    dump = lambda v: json.dumps(v, separators=(",", ":"), ensure_ascii=False)
    groups = {}  # resource text -> scope text -> [span texts]
    elems, nspans = elements("otlp", app)
    for rs in elems:
        for ss in rs["scopeSpans"]:
            groups.setdefault(dump(rs.get("resource", {})), {}).setdefault(
                dump(ss.get("scope", {})), []).extend(dump(sp) for sp in ss["spans"])
    size = sum(len(t) + 1 for scopes in groups.values() for spans in scopes.values() for t in spans)
    copies = -(-min_bytes // size)
    rss = []
    for res, scopes in groups.items():
        sss = ['{"scope":' + scope + ',"spans":[' + ",".join(spans * copies) + "]}"
               for scope, spans in scopes.items()]
        rss.append('{"resource":' + res + ',"scopeSpans":[' + ",".join(sss) + "]}")
    return '{"resourceSpans":[' + ",".join(rss) + "]}", copies, nspans


def main():
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    fmt, app, out, min_bytes = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    if fmt == "otlp-merged":
        line, copies, nspans = merged(app, min_bytes)
        with open(out, "w") as f:
            f.write(line + "\n")
        print(copies, nspans)
        return
    elems, nspans = elements(fmt, app)
    texts = [json.dumps(e, separators=(",", ":"), ensure_ascii=False) for e in elems]
    one = ",".join(texts)
    copies = -(-min_bytes // (len(one) + 1))
    body = ",".join([one] * copies)
    if fmt == "otlp":
        line = '{"resourceSpans":[' + body + "]}"
    elif fmt == "jaeger":
        line = '{"data":[' + body + '],"total":0,"limit":0,"offset":0,"errors":null}'
    else:
        line = "[" + body + "]"
    with open(out, "w") as f:
        f.write(line + "\n")
    print(copies, nspans)


if __name__ == "__main__":
    main()
