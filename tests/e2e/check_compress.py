#!/usr/bin/env python3
"""Compression by content (issue 37 items 1 and 7): bzip2, xz, lzma, zstd, zip.

The real sample logs of samples/ (basic, correlation, realistic: written by
samples/generate.sh from real PostgreSQL servers) are compressed here, at
test time, with Python's bz2 / lzma / zipfile and the zstd and zip tools,
under names that say nothing ("pg.data"): the content decides. Each must
give the same ingest counts (lines, records, events) and the same waits as
the plain file; concatenated streams count twice, as `xz -dc` reads them;
the same through a pipe (stdin) and a process substitution <(cat f). A
stream cut with head -c between two good files is partial: ingest exits 4
and names it, the good files are stored whole, and `report` on that store
exits 4 too, also with -q. A zip whose member is cut, or whose data is damaged, is
partial as well. A directory of rotated logs recompressed file by file as
.xz/.bz2/.zst/.lzma reads as the original: same counts, order and waits.

Usage: check_compress.py LOCKSPAN SAMPLES_DIR
"""
import bz2
import gzip
import io
import json
import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

from lscheck import check, report

TIMEOUT = 120
EXIT_PARTIAL = 4
SAMPLES = ("basic", "correlation", "realistic")
COUNTS = re.compile(rb"ingested (\d+) files, (\d+) lines, (\d+) records \((\d+) events\)")


def run(args, stdin=None, shell=False):
    try:
        return subprocess.run(args, capture_output=True, stdin=stdin, timeout=TIMEOUT,
                              shell=shell, executable="/bin/bash" if shell else None,
                              env=dict(os.environ, TZ="UTC"))
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(args, None, e.stdout or b"", e.stderr or b"")


def counts(r):
    """(files, lines, records, events) from ingest's last line, or None."""
    m = COUNTS.search(r.stderr)
    return tuple(int(x) for x in m.groups()) if m else None


def tool(args, data):
    r = subprocess.run(args, input=data, capture_output=True, check=True)
    return r.stdout


def zip_deflated(data):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("postgresql.log", data)
    return b.getvalue()


def zip_stored_in_parts(data):
    """Two stored members and a directory: read as one stream, in order."""
    cut = data.index(b"\n", len(data) // 2) + 1
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_STORED) as z:
        z.writestr("logs/", b"")
        z.writestr("logs/part1.log", data[:cut])
        z.writestr("logs/part2.log", data[cut:])
    return b.getvalue()


# name -> compressor. `zip -` writes to a pipe: sizes in data descriptors.
CODECS = {
    "bzip2": lambda d: bz2.compress(d),
    "xz": lambda d: lzma.compress(d, format=lzma.FORMAT_XZ),
    "lzma": lambda d: lzma.compress(d, format=lzma.FORMAT_ALONE),
    "zstd": lambda d: tool(["zstd", "-q", "-c"], d),
    "zip": zip_deflated,
    "zip-stored": zip_stored_in_parts,
    "zip-stream": lambda d: tool(["zip", "-q", "-", "-"], d),
}


def ingest(ls, tmp, args, stdin=None, shell=False):
    db = os.path.join(tmp, "c.db")
    if os.path.exists(db):
        os.remove(db)
    if shell:
        return run(f"'{ls}' ingest --db '{db}' {args}", shell=True)
    return run([ls, "ingest", "--db", db] + args, stdin=stdin)


def waits(ls, tmp, path):
    out = os.path.join(tmp, "w.json")
    if os.path.exists(out):
        os.remove(out)
    r = run([ls, "analyze", "-q", "-o", out, path])
    if r.returncode != 0 or not os.path.exists(out):
        return None
    return sorted((w.get("pid"), w.get("blocker_pid")) for w in json.load(open(out))["waits"])


def check_same(ls, tmp, samples):
    for s in SAMPLES:
        log = os.path.join(samples, s, "postgresql.log")
        data = open(log, "rb").read()
        r = ingest(ls, tmp, [log])
        plain = counts(r)
        plain_waits = waits(ls, tmp, log)
        check(r.returncode == 0 and plain and plain[1] > 0 and plain_waits,
              f"{s}: the plain log ingests ({r.stderr[-300:]!r})")
        for name, compress in CODECS.items():
            p = os.path.join(tmp, f"{s}-{name}.data")
            open(p, "wb").write(compress(data))
            r = ingest(ls, tmp, [p])
            check(r.returncode == 0 and counts(r) == plain,
                  f"{s} as {name}: exit 0 and counts {plain} (exit {r.returncode}, "
                  f"{counts(r)}): {r.stderr[-300:]!r}")
            w = waits(ls, tmp, p)
            check(w == plain_waits, f"{s} as {name}: the same waits as the plain log")
            r = ingest(ls, tmp, ["-"], stdin=open(p, "rb"))
            check(r.returncode == 0 and counts(r) == plain,
                  f"{s} as {name} on stdin: counts {plain} ({counts(r)}, exit {r.returncode})")
            r = ingest(ls, tmp, f"<(cat '{p}')", shell=True)
            check(r.returncode == 0 and counts(r) == plain,
                  f"{s} as {name} through <(cat): counts {plain} ({counts(r)}, exit "
                  f"{r.returncode})")
        # Concatenated streams are read one after the other.
        for name in ("bzip2", "xz", "zstd"):
            p = os.path.join(tmp, f"{s}-{name}-twice.data")
            one = CODECS[name](data)
            open(p, "wb").write(one + one)
            r = ingest(ls, tmp, [p])
            c = counts(r)
            check(c is not None and plain is not None and c[1] == 2 * plain[1],
                  f"{s}: two {name} streams end to end give twice the lines ({c}, {plain})")


def check_cut(ls, tmp, samples):
    # The cut one is the largest sample (300 kB), in blocks of 100 kB for
    # bzip2 (-1): a stream cut before its first block ends gives no line, and
    # then only the exit status (not the store) can tell.
    logs = [os.path.join(samples, s, "postgresql.log") for s in ("basic", "hidden", "realistic")]
    datas = [open(p, "rb").read() for p in logs]
    codecs = dict(CODECS, bzip2=lambda d: bz2.compress(d, 1))
    for name in ("bzip2", "xz", "lzma", "zstd", "zip", "zip-stream"):
        d = os.path.join(tmp, "cut-" + name)
        os.mkdir(d)
        paths = []
        for i, data in enumerate(datas):
            p = os.path.join(d, f"pg{i}.data")
            blob = codecs[name](data)
            if i == 1:
                blob = blob[: len(blob) * 2 // 3]  # as head -c cuts it
            open(p, "wb").write(blob)
            paths.append(p)
        db = os.path.join(d, "s.db")
        r = run([ls, "ingest", "--db", db] + paths)
        e = r.stderr.decode("utf-8", "replace")
        check(r.returncode == EXIT_PARTIAL and "pg1.data" in e and "truncated" in e,
              f"a cut {name} between good files: exit {EXIT_PARTIAL}, named "
              f"(exit {r.returncode}): {e[-400:]}")
        rj = os.path.join(d, "r.json")
        r = run([ls, "report", "--db", db, "-o", rj])
        check(r.returncode == EXIT_PARTIAL and os.path.exists(rj),
              f"report on the store with a cut {name}: report written, exit {EXIT_PARTIAL} "
              f"(exit {r.returncode})")
        rep = json.load(open(rj)) if os.path.exists(rj) else {"input": {"files": []}}
        files = {os.path.basename(f["path"]): f for f in rep["input"]["files"]}
        for i in (0, 2):
            n = datas[i].count(b"\n")
            check(files.get(f"pg{i}.data", {}).get("lines") == n,
                  f"cut {name}: pg{i}.data stored whole ({n} lines): {files.get(f'pg{i}.data')}")
        r = run([ls, "ingest", "-q", "--db", os.path.join(d, "q.db"), paths[1]])
        check(r.returncode == EXIT_PARTIAL,
              f"cut {name} with -q: still exit {EXIT_PARTIAL} (exit {r.returncode})")


def check_damaged_zip(ls, tmp, samples):
    """A stored member whose bytes changed fails its CRC-32: partial, named."""
    data = open(os.path.join(samples, "basic", "postgresql.log"), "rb").read()
    blob = bytearray(zip_stored_in_parts(data))
    at = blob.index(data[100:140])
    blob[at] ^= 0x20  # one letter's case
    p = os.path.join(tmp, "damaged.zip")
    open(p, "wb").write(bytes(blob))
    r = ingest(ls, tmp, [p])
    e = r.stderr.decode("utf-8", "replace")
    check(r.returncode == EXIT_PARTIAL and "CRC-32" in e,
          f"a zip member with a changed byte: exit {EXIT_PARTIAL}, CRC named "
          f"(exit {r.returncode}): {e[-300:]}")


def stems(rep):
    """The input files of a JSON report, in order, without their extensions."""
    return [os.path.basename(f["path"]).split(".")[0] for f in rep["input"]["files"]]


def check_directory(ls, tmp, samples):
    """samples/rotation (names that do not sort in time order, stderr and
    csvlog of each file, some .gz) recompressed file by file as .xz, .bz2,
    .zst, .lzma: the directory reads as the original does, in the same
    order (first timestamps read through each decoder), csvlog chosen
    over stderr by name as with .gz."""
    src = os.path.join(samples, "rotation")
    d = os.path.join(tmp, "rotation")
    os.mkdir(d)
    kinds = [("xz", "xz"), ("bz2", "bzip2"), ("zst", "zstd"), ("lzma", "lzma")]
    for i, name in enumerate(sorted(os.listdir(src))):
        data = open(os.path.join(src, name), "rb").read()
        if not name.startswith("postgresql-"):
            continue
        if name.endswith(".gz"):
            data = gzip.decompress(data)
            name = name[:-3]
        ext, codec = kinds[i % len(kinds)]
        open(os.path.join(d, f"{name}.{ext}"), "wb").write(CODECS[codec](data))
    prefix = ["--prefix", open(os.path.join(src, "prefix.txt")).read().rstrip("\n")]
    got = {}
    for label, where in (("original", src), ("recompressed", d)):
        out = os.path.join(tmp, f"rot-{label}.json")
        r = run([ls, "analyze", "-o", out] + prefix + [where])
        rep = json.load(open(out)) if r.returncode == 0 and os.path.exists(out) else None
        got[label] = (counts(r), rep and stems(rep),
                      rep and sorted((w.get("pid"), w.get("blocker_pid")) for w in rep["waits"]))
        check(rep is not None, f"rotation {label}: analyze exit 0 (exit {r.returncode}): "
              f"{r.stderr[-300:]!r}")
    check(got["original"] == got["recompressed"],
          f"rotation recompressed as xz/bz2/zst/lzma reads as the original: counts, file "
          f"order and waits {got['original'][:2]} vs {got['recompressed'][:2]}")


def main():
    ls, samples = sys.argv[1], sys.argv[2]
    if not shutil.which("zstd") or not shutil.which("zip"):
        print("FAIL: the zstd and zip tools are needed (.ci/install-deps.sh installs them)")
        return 1
    tmp = tempfile.mkdtemp(prefix="lockspan-compress.")
    try:
        check_same(ls, tmp, samples)
        check_cut(ls, tmp, samples)
        check_damaged_zip(ls, tmp, samples)
        check_directory(ls, tmp, samples)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report()


if __name__ == "__main__":
    sys.exit(main())
