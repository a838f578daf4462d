#!/usr/bin/env python3
"""Seed corpora for the fuzz targets, cut from the bundled samples.

Usage: seeds.py SAMPLES_DIR OUT_DIR

Writes OUT_DIR/<target>/<origin>-<n> for every target in tests/fuzz (the
names of tests/fuzz/CMakeLists.txt without "fuzz_"). Each seed is a small
piece of a real sample: a window of lines around a lock wait, a deadlock or
an error (plus the file's head), a few trace spans kept whole in their JSON
document, a snapshot's header with some rows. Small seeds keep libFuzzer
fast; the origin of each is in its file name. The stderr_prefix seeds start
with the sample's log_line_prefix on a line of its own; the e2e seeds join
files with the fuzz_e2e separator line (a log, its snapshots, its traces).
"""
import bz2
import glob
import gzip
import io
import lzma
import subprocess
import zipfile
import hashlib
import json
import os
import re
import shutil
import sys

SEP = b"#lockspan-fuzz-next-file\n"
WINDOW = 16          # lines per log seed
MAX_SEED = 2048      # bytes per parser seed: libFuzzer's -max_len follows the largest
E2E_MAX = 8192       # bytes per file of an e2e seed (a lock scenario needs more lines)
ANCHORS = re.compile(rb"still waiting|acquired|deadlock detected|canceling statement|"
                     rb"could not obtain lock|could not serialize|duration:|statement: BEGIN")


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        return gzip.decompress(data)
    if data[:6] == b"\xfd7zXZ\x00":
        return lzma.decompress(data)
    return data


def windows(data, per_file=6, width=WINDOW, limit=MAX_SEED):
    """The file's head and windows of lines starting a little before anchors."""
    lines = data.splitlines(keepends=True)
    starts = [0]
    for i, line in enumerate(lines):
        if ANCHORS.search(line) and (not starts or i - 3 > starts[-1] + width // 2):
            starts.append(max(0, i - 3))
    if len(starts) > per_file:  # spread over the file
        step = len(starts) / per_file
        starts = [starts[int(k * step)] for k in range(per_file)]
    out = []
    for s in starts:
        chunk = b"".join(lines[s:s + width])
        while len(chunk) > limit and b"\n" in chunk[:-1]:
            chunk = chunk[:chunk.rstrip(b"\n").rfind(b"\n") + 1]
        out.append(chunk[:limit])
    return out


def prefix_of(log):
    """The log_line_prefix the sample was written with, or None."""
    d = os.path.dirname(log)
    stem = os.path.splitext(os.path.basename(log))[0]
    for p in (os.path.join(d, stem + ".prefix"), os.path.join(d, "prefix.txt")):
        if os.path.exists(p):
            return open(p, "rb").read().rstrip(b"\n")
    return None


class Out:
    def __init__(self, root):
        self.root = root
        self.seen = set()

    def put(self, target, origin, data):
        if not data:
            return
        h = hashlib.sha1(data).hexdigest()[:10]
        if (target, h) in self.seen:
            return
        self.seen.add((target, h))
        d = os.path.join(self.root, target)
        os.makedirs(d, exist_ok=True)
        name = re.sub(r"[^A-Za-z0-9._-]+", "_", origin) + "-" + h
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)


def otlp_docs(path, spans_per_doc=1, docs=8):
    """OTLP lines reduced to a few spans each, as compact JSON Lines."""
    out = []
    for line in read(path).splitlines():
        doc = json.loads(line)
        for rs in doc.get("resourceSpans", []):
            for ss in rs.get("scopeSpans", []):
                spans = ss.get("spans", [])
                for k in range(0, min(len(spans), spans_per_doc * 3), spans_per_doc):
                    part = {"resourceSpans": [dict(rs, scopeSpans=[dict(ss, spans=spans[k:k + spans_per_doc])])]}
                    out.append(json.dumps(part, separators=(",", ":")).encode())
                    if len(out) >= docs:
                        return out
    return out


def jaeger_docs(path, docs=8):
    doc = json.loads(read(path))
    out = []
    for tr in doc.get("data", [])[:docs]:
        tr = dict(tr, spans=tr.get("spans", [])[:1])
        out.append(json.dumps({"data": [tr]}, separators=(",", ":")).encode())
    # The top-level array form of an export (issue 10).
    if doc.get("data"):
        tr = doc["data"][0]
        out.append(json.dumps([dict(tr, spans=tr.get("spans", [])[:1])]).encode())
    return out


def zipkin_docs(path, docs=8):
    spans = json.loads(read(path))
    by_trace = {}
    for sp in spans:
        by_trace.setdefault(sp.get("traceId"), []).append(sp)
    out = []
    for tid in list(by_trace)[:docs]:
        out.append(json.dumps(by_trace[tid][:2], separators=(",", ":")).encode())
    return out


def main():
    samples, root = sys.argv[1], sys.argv[2]
    if os.path.isdir(root):  # no seeds left over from an older cut
        shutil.rmtree(root)
    o = Out(root)
    rel = lambda p: os.path.relpath(p, samples)

    logs = sorted(glob.glob(os.path.join(samples, "*", "*.log")) +
                  glob.glob(os.path.join(samples, "*", "*.log.gz")))
    for log in logs:
        data = read(log)
        pre = prefix_of(log)
        for i, w in enumerate(windows(data)):
            o.put("stderr_infer", f"{rel(log)}.{i}", w)
            o.put("sniff", f"{rel(log)}.{i}", w)
            if pre is not None:
                o.put("stderr_prefix", f"{rel(log)}.{i}", pre + b"\n" + w)

    for csv in sorted(glob.glob(os.path.join(samples, "*", "postgresql*.csv")) +
                      glob.glob(os.path.join(samples, "*", "postgresql*.csv.gz"))):
        for i, w in enumerate(windows(read(csv))):
            o.put("csvlog", f"{rel(csv)}.{i}", w)
            o.put("sniff", f"{rel(csv)}.{i}", w)

    for js in sorted(glob.glob(os.path.join(samples, "*", "postgresql*.json"))):
        for i, w in enumerate(windows(read(js), width=8)):
            o.put("jsonlog", f"{rel(js)}.{i}", w)
            o.put("sniff", f"{rel(js)}.{i}", w)

    for sl in sorted(glob.glob(os.path.join(samples, "*", "*.syslog"))):
        for i, w in enumerate(windows(read(sl))):
            o.put("syslog", f"{rel(sl)}.{i}", w)

    for act in sorted(glob.glob(os.path.join(samples, "*", "pg_stat_activity.csv"))):
        lines = read(act).splitlines(keepends=True)
        head, rows = lines[0], lines[1:]
        waiting = [i for i, l in enumerate(rows) if b",Lock," in l]
        starts = [0] + waiting[::max(1, len(waiting) // 5)][:5]
        for i, s in enumerate(starts):
            o.put("activity", f"{rel(act)}.{i}", head + b"".join(rows[s:s + 8]))
        o.put("activity", f"{rel(act)}.noheader", b"".join(rows[:8]))

    app = os.path.join(samples, "app")
    otlp = otlp_docs(os.path.join(app, "traces.otlp.jsonl"))
    for i, d in enumerate(otlp):
        o.put("otlp", f"app/traces.otlp.jsonl.{i}", d + b"\n")
    o.put("otlp", "app/traces.otlp.jsonl.lines", b"\n".join(otlp[:2]) + b"\n")
    jaeger = jaeger_docs(os.path.join(app, "traces.jaeger.json"))
    for i, d in enumerate(jaeger):
        o.put("jaeger", f"app/traces.jaeger.json.{i}", d)
    zipkin = zipkin_docs(os.path.join(app, "traces.zipkin.json"))
    for i, d in enumerate(zipkin):
        o.put("zipkin", f"app/traces.zipkin.json.{i}", d)

    # End to end: single logs of each format, a log with its snapshots, the
    # traced application's log with spans of the traces it names, a gzip log.
    e2e_logs = [os.path.join(samples, p) for p in
                ("basic/postgresql.log", "basic/postgresql.csv", "basic/postgresql.json",
                 "syslog/postgresql.syslog", "rds/postgresql.log", "hostile/postgresql.log",
                 "correlation-stmtall/postgresql.log", "prefixes/4.log",
                 # rows no logged wait names (sub-deadlock_timeout queueing
                 # on a millisecond log: decide/quiet.c), a whole-second
                 # pooled log with durations
                 "busy-row/postgresql.log.xz", "blind-ts/postgresql.csv.gz",
                 "blind-java/postgresql.log.gz")]
    for log in e2e_logs:
        if os.path.exists(log):
            for i, w in enumerate(windows(read(log), 3, 60, E2E_MAX)):
                o.put("e2e", f"{rel(log)}.{i}", w)
    for s in ("correlation", "correlation-stmtall"):
        d = os.path.join(samples, s)
        log = windows(read(os.path.join(d, "postgresql.log")), 2, 60, E2E_MAX)[-1]
        act = read(os.path.join(d, "pg_stat_activity.csv")).splitlines(keepends=True)
        o.put("e2e", f"{s}/postgresql.log+pg_stat_activity.csv",
              log + SEP + b"".join(act[:1] + [l for l in act[1:] if b",Lock," in l][:30]))
    applog = read(os.path.join(app, "postgresql.log"))
    for i, w in enumerate(windows(applog, 3, 60, E2E_MAX)):
        tids = set(re.findall(rb"00-([0-9a-f]{32})-[0-9a-f]{16}-0[01]", w))
        spans = []
        for line in read(os.path.join(app, "traces.otlp.jsonl")).splitlines():
            doc = json.loads(line)
            for rs in doc["resourceSpans"]:
                for ss in rs["scopeSpans"]:
                    keep = [sp for sp in ss["spans"] if sp.get("traceId", "").encode() in tids]
                    if keep:
                        spans.append(json.dumps({"resourceSpans": [dict(rs, scopeSpans=[dict(ss, spans=keep[:12])])]},
                                                separators=(",", ":")).encode())
        if spans:
            o.put("e2e", f"app/postgresql.log+traces.otlp.jsonl.{i}", w + SEP + b"\n".join(spans[:2]) + b"\n")
    o.put("e2e", "blind-ts/postgresql.csv.quiet", quiet_window(os.path.join(samples, "blind-ts")))
    o.put("e2e", "basic/postgresql.log.gz", gzip.compress(windows(read(os.path.join(samples, "basic/postgresql.log")), 1, 60, E2E_MAX)[0], mtime=0))

    # Stage 1: a window of a real log in every compression the decoders
    # read, the first byte 0 (sniff) for fuzz_decompress, and for fuzz_input
    # a two-byte header (pipe or file, peek lengths) before plain and
    # compressed windows.
    for s in ("basic", "hostile"):
        for i, w in enumerate(windows(read(os.path.join(samples, s, "postgresql.log")), 2)):
            for name, blob in compressed(w).items():
                o.put("decompress", f"{s}/postgresql.log.{i}.{name}", b"\0" + blob)
                o.put("input", f"{s}/postgresql.log.{i}.{name}", bytes([i & 3, 0x23]) + blob)
            o.put("input", f"{s}/postgresql.log.{i}", bytes([1, 0x35]) + w)
            for name, blob in compressed(w).items():
                o.put("sniff", f"{s}/postgresql.log.{i}.{name}", blob[:64])


def quiet_window(d):
    """blind-ts's csvlog records, from 30 ms before it began to 3 ms after it
    ended, of the processes that wrote `seats` around pid 30779's 12.575 ms
    UPDATE at 04:01:22.389: the row it queued for is a row no logged wait
    names (decide/quiet.c; seats id=1, 8.6 ms queued)."""
    import csv
    import datetime as dt
    path = os.path.join(d, "postgresql.csv.gz")
    if not os.path.exists(path):
        return b""
    rows = list(csv.reader(io.StringIO(read(path).decode())))

    def at(r):
        return dt.datetime.strptime(r[0][:23], "%Y-%m-%d %H:%M:%S.%f")
    end = dt.datetime(2026, 12, 7, 4, 1, 22, 389000)
    lo, hi = end - dt.timedelta(milliseconds=12.575 + 30), end + dt.timedelta(milliseconds=3)
    near = [r for r in rows if len(r) > 13 and lo <= at(r) <= hi]
    pids = {r[3] for r in near if "seats" in r[13]}
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    for r in near:
        if r[3] in pids:
            w.writerow(r)
    return out.getvalue().encode()[:E2E_MAX]


def compressed(data):
    """data in each format ls_codec_sniff knows (zstd only when its tool is here)."""
    out = {"gz": gzip.compress(data, mtime=0), "bz2": bz2.compress(data),
           "xz": lzma.compress(data, format=lzma.FORMAT_XZ),
           "lzma": lzma.compress(data, format=lzma.FORMAT_ALONE)}
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("postgresql.log", data)
    out["zip"] = b.getvalue()
    if shutil.which("zstd"):
        out["zst"] = subprocess.run(["zstd", "-q", "-c"], input=data, capture_output=True,
                                    check=True).stdout
    return out


if __name__ == "__main__":
    main()
