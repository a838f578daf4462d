#!/usr/bin/env python3
"""A trace export written as ONE JSON document on ONE line longer than the
input layer's 8 MiB line bound (issue 34 item 9): samples/app's real
export (OpenTelemetry JS SDK; its Jaeger and Zipkin conversions too) made
one line by samples/oneline_export.py, the run repeated with its own ids
until the line is over 8.5 MiB; for OTLP also merged into one
ResourceSpans (one element of resourceSpans is the whole line).

Usage: check_oneline.py LOCKSPAN SAMPLES_DIR

For each format, against the analysis of the original export with the same
log:
- every span of the line is read (the closing note counts copies x spans),
  the input section shows one line, no bad line, every span as a record;
- the store holds the original's spans (a span is kept once per id), and the
  report has the same code paths, holds and trace span count (OTLP: also
  through gzip);
and for OTLP:
- an element of the line that is not JSON is one bad line naming the file,
  line 1 and its byte offset, in the input section too; every other
  element is read;
- a file cut inside the line reads every element before the cut and says
  the document does not close; cut inside its first span (no span read),
  the run fails (exit 1) and says why.
"""
import gzip
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

LINE_MAX = 8 * 1024 * 1024  # LS_LINE_MAX in include/ls_input.h
MIN_BYTES = LINE_MAX + LINE_MAX // 16
ORIGINAL = {"otlp": "traces.otlp.jsonl", "otlp-merged": "traces.otlp.jsonl",
            "jaeger": "traces.jaeger.json", "zipkin": "traces.zipkin.json"}


def analyze(lockspan, tmp, name, paths):
    db = os.path.join(tmp, name + ".db")
    out = os.path.join(tmp, name + ".json")
    p = subprocess.run([lockspan, "analyze", "--db", db, "--format", "json", "--top", "100",
                        "-o", out] + paths, capture_output=True, text=True)
    rep = json.load(open(out)) if p.returncode == 0 else None
    spans = sqlite3.connect(db).execute("SELECT count(*) FROM spans").fetchone()[0] \
        if p.returncode == 0 else -1
    return p, rep, spans


def read_note(stderr, path):
    m = re.search(re.escape(path) + r": (\d+) spans read from (\d+) JSON values", stderr)
    return (int(m.group(1)), int(m.group(2))) if m else (-1, -1)


def input_file(rep, path):
    for f in (rep or {}).get("input", {}).get("files", []):
        if f["path"] == path:
            return f
    return {}


def paths_of(rep):
    return sorted((c["code_path"], c["blocking_episodes"], c["waits_caused"], c["total_hold_ms"])
                  for c in rep["code_paths"])


def holds_of(rep):
    return sorted((h["pid"], h["tx_id"], h["code_path"], h["trace_id"] or "")
                  for h in rep["holds"])


def make_line(samples, tmp, fmt):
    out = os.path.join(tmp, "one." + fmt + ".json")
    p = subprocess.run([sys.executable, os.path.join(samples, "oneline_export.py"), fmt,
                        os.path.join(samples, "app"), out, str(MIN_BYTES)],
                       capture_output=True, text=True, check=True)
    copies, nspans = map(int, p.stdout.split())
    return out, copies, nspans


def check_format(lockspan, samples, tmp, fmt):
    app = os.path.join(samples, "app")
    log = os.path.join(app, "postgresql.log")
    line, copies, nspans = make_line(samples, tmp, fmt)
    size = os.path.getsize(line)
    with open(line, "rb") as f:
        check(f.read().count(b"\n") == 1, f"{fmt}: the export is one line")
    check(size > LINE_MAX, f"{fmt}: the line is over 8 MiB ({size} bytes)")

    p0, base, base_spans = analyze(lockspan, tmp, fmt + "-orig", [log, os.path.join(app, ORIGINAL[fmt])])
    p1, one, one_spans = analyze(lockspan, tmp, fmt + "-one", [log, line])
    check(p0.returncode == 0 and p1.returncode == 0,
          f"{fmt}: exit status {p0.returncode} / {p1.returncode}: {p1.stderr[-500:]}")
    if base is None or one is None:
        return
    read, values = read_note(p1.stderr, line)
    check(read == copies * nspans and values == 1,
          f"{fmt}: {read} spans read from {values} values, want {copies} x {nspans} from 1")
    f = input_file(one, line)
    check(f.get("lines") == 1 and f.get("bad_lines") == 0 and f.get("records") == copies * nspans,
          f"{fmt}: input section {f}")
    check(base_spans == nspans and one_spans == nspans,
          f"{fmt}: spans stored {one_spans}, original {base_spans}, export {nspans}")
    check(one["summary"].get("trace_spans") == base["summary"].get("trace_spans"),
          f"{fmt}: trace_spans {one['summary'].get('trace_spans')} vs {base['summary'].get('trace_spans')}")
    check(len(base["code_paths"]) > 0 and paths_of(one) == paths_of(base),
          f"{fmt}: code paths {paths_of(one)} vs {paths_of(base)}")
    check(len(base["holds"]) > 0 and holds_of(one) == holds_of(base),
          f"{fmt}: holds {holds_of(one)} vs {holds_of(base)}")
    if fmt == "otlp":
        # The same line through gzip.
        gz = line + ".gz"
        with open(line, "rb") as src, gzip.open(gz, "wb") as dst:
            dst.write(src.read())
        p2, onegz, gz_spans = analyze(lockspan, tmp, fmt + "-gz", [log, gz])
        read, _ = read_note(p2.stderr, gz)
        check(p2.returncode == 0 and read == copies * nspans and gz_spans == nspans and
              onegz is not None and paths_of(onegz) == paths_of(base),
              f"{fmt}: gzip: exit {p2.returncode}, {read} spans read, {gz_spans} stored")


def check_damage(lockspan, samples, tmp):
    line, copies, nspans = make_line(samples, tmp, "otlp")
    text = open(line).read()
    # One element of the resourceSpans array, in the middle of the line,
    # made invalid JSON.
    at = text.index(',{"resource":', len(text) // 2) + 1
    bad = text[:at] + '{"resource":oops},' + text[at:]
    damaged = os.path.join(tmp, "damaged.otlp.json")
    open(damaged, "w").write(bad)
    p, rep, spans = analyze(lockspan, tmp, "damaged", [damaged])
    check(p.returncode == 0, f"damaged: exit status {p.returncode}")
    read, _ = read_note(p.stderr, damaged)
    check(read == copies * nspans, f"damaged: {read} spans read, want {copies * nspans}")
    check(re.search(re.escape(damaged) + r":1: an element of the export: invalid JSON "
                    r"\(from byte " + str(at) + r" of the line\): \{\"resource\":oops\}",
                    p.stderr) is not None, f"damaged: stderr names line and byte: {p.stderr[-600:]}")
    f = input_file(rep, damaged)
    check(f.get("bad_lines") == 1 and f.get("records") == copies * nspans,
          f"damaged: input section {f}")
    check(rep is not None and [(b["line"], b["reason"]) for b in rep["input"]["bad_line_samples"]]
          == [(1, f"an element of the export: invalid JSON (from byte {at} of the line)")],
          f"damaged: the report's bad line samples {rep and rep['input']['bad_line_samples']}")

    # Cut inside the line, in the middle of an element: the spans of the
    # elements that end before the cut are read, and no others.
    cut = os.path.join(tmp, "cut.otlp.json")
    end = text.index(',{"resource":', len(text) * 3 // 4) + 40
    pos, want = len('{"resourceSpans":['), 0
    for e in json.loads(text)["resourceSpans"]:
        t = json.dumps(e, separators=(",", ":"), ensure_ascii=False)
        if pos + len(t) > end:
            break
        want += sum(len(ss["spans"]) for ss in e["scopeSpans"])
        pos += len(t) + 1
    open(cut, "w").write(text[:end])
    p, rep, spans = analyze(lockspan, tmp, "cut", [cut])
    read, _ = read_note(p.stderr, cut)
    check(p.returncode == 0 and want > 0 and read == want,
          f"cut: {read} spans read, want {want}")
    check("incomplete JSON document at the end of the file" in p.stderr,
          "cut: says the document does not close")
    f = input_file(rep, cut)
    check(f.get("bad_lines") == 1, f"cut: input section {f}")

    # Cut inside its first span: not a span can be read. Never a silent
    # zero: the run fails and says why.
    first = os.path.join(tmp, "first.otlp.json")
    open(first, "w").write(text[:text.index('"spans":[{') + 40])
    p, rep, spans = analyze(lockspan, tmp, "first", [first])
    check(p.returncode == 1 and "no span could be read from this trace export" in p.stderr,
          f"cut in its first element: exit {p.returncode}, {p.stderr[-300:]}")


def main():
    lockspan, samples = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in ("otlp", "otlp-merged", "jaeger", "zipkin"):
            check_format(lockspan, samples, tmp, fmt)
        check_damage(lockspan, samples, tmp)
    return report()


if __name__ == "__main__":
    sys.exit(main())
