#!/usr/bin/env python3
"""Inputs read once, and never a silent zero (issues 37 and 35).

Real logs from samples/ (basic, correlation, realistic: one log_line_prefix,
written by samples/generate.sh from real PostgreSQL servers) are given as
streams that can be read only once: a FIFO fed by a writer thread, a bash
process substitution <(cat log) and <(cat log.gz), gzip on stdin. Each must
give the waits the same log gives as a file; one cut mid-line is partial
(exit 4). /dev/zero and a log followed by zeros on a pipe end (no endless
loop) with a message. An empty file, a README
and a PNG given as a log exit 5 with a message (0 with --allow-empty). The
bad-line share applies below 1000 lines (at least 10 bad lines). A .gz cut
with head -c between two whole ones: exit 4, the rest is stored, report
works, exits 4 and names where it broke, the next ingest of the same bytes exits 0,
and once the whole .gz replaces it the store reads on to its end.

Usage: check_streams.py LOCKSPAN SAMPLES_DIR
"""
import gzip
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

from lscheck import check, report

TIMEOUT = 60  # seconds: a run that hangs on a stream fails instead
EXIT_BAD_LINES, EXIT_PARTIAL, EXIT_NOTHING = 3, 4, 5


def run(args, stdin=None, timeout=TIMEOUT):
    """The command's CompletedProcess; returncode None when it timed out."""
    try:
        return subprocess.run(args, capture_output=True, stdin=stdin, timeout=timeout,
                              env=dict(os.environ, TZ="UTC"))
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(args, None, e.stdout or b"", e.stderr or b"")


def err(r):
    return r.stderr.decode("utf-8", "replace")


def waits_of(path):
    """(pid, blocker_pid) of every wait in a JSON report, or None."""
    try:
        rep = json.load(open(path))
    except (OSError, ValueError):
        return None
    return sorted((w.get("pid"), w.get("blocker_pid")) for w in rep["waits"])


def png_bytes():
    """A real 1x1 PNG image (signature, IHDR, IDAT, IEND)."""
    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data +
                struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b""))


def check_streams(ls, tmp, log, base):
    out = os.path.join(tmp, "s.json")

    def analyze(*args, stdin=None, shell=False):
        if os.path.exists(out):
            os.remove(out)
        cmd = [ls, "analyze", "-o", out] + list(args)
        if shell:  # process substitution: bash gives lockspan /dev/fd/N, a pipe
            cmd = ["bash", "-c", " ".join(f"'{a}'" if not a.startswith("<(") else a
                                          for a in cmd)]
        return run(cmd, stdin=stdin)

    # A FIFO, written once by a thread.
    fifo = os.path.join(tmp, "pg.fifo")
    os.mkfifo(fifo)
    data = open(log, "rb").read()

    def writer():
        try:
            with open(fifo, "wb") as f:
                f.write(data)
        except OSError:
            pass  # the reader went away: its result says what happened
    t = threading.Thread(target=writer, daemon=True)
    t.start()
    r = analyze(fifo)
    if r.returncode is None:  # a hung reader: let the writer's open return
        os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    t.join(5)
    check(r.returncode == 0 and waits_of(out) == base,
          f"FIFO: exit 0 and the file's {len(base)} waits (exit {r.returncode}): {err(r)[-300:]}")

    r = analyze(f"<(cat {log})", shell=True)
    check(r.returncode == 0 and waits_of(out) == base,
          f"<(cat log): exit 0 and the file's waits (exit {r.returncode}): {err(r)[-300:]}")

    gz = os.path.join(tmp, "pg.log.gz")
    open(gz, "wb").write(gzip.compress(data))
    r = analyze(f"<(cat {gz})", shell=True)
    check(r.returncode == 0 and waits_of(out) == base,
          f"<(cat log.gz): exit 0 and the file's waits (exit {r.returncode}): {err(r)[-300:]}")

    with open(gz, "rb") as f:
        r = analyze("-", stdin=f)
    check(r.returncode == 0 and waits_of(out) == base,
          f"gzip on stdin: exit 0 and the file's waits (exit {r.returncode}): {err(r)[-300:]}")

    with open(log, "rb") as f:
        r = analyze("-", stdin=f)
    check(r.returncode == 0 and waits_of(out) == base, f"stdin: the file's waits: {err(r)[-300:]}")

    # A stream cut in the middle of a line (zcat of a cut .gz, head -c): partial.
    r = analyze(f"<(head -c {len(data) // 2} {log})", shell=True)
    check(r.returncode == EXIT_PARTIAL and "cut short" in err(r) and waits_of(out),
          f"<(head -c N log), cut mid-line: exit {EXIT_PARTIAL}, what came before read "
          f"(exit {r.returncode}): {err(r)[-300:]}")
    # The same bytes as a file: a file may be being written; read as it is.
    half = os.path.join(tmp, "half.log")
    open(half, "wb").write(data[: len(data) // 2])
    r = analyze(half)
    check(r.returncode == 0, f"a file ending mid-line: exit 0 (exit {r.returncode})")

    # /dev/zero: no line break ever. It ends, names the input, and is no all-clear.
    t0 = time.monotonic()
    r = analyze("/dev/zero")
    took = time.monotonic() - t0
    check(r.returncode == EXIT_NOTHING and "/dev/zero" in err(r) and "line break" in err(r),
          f"/dev/zero: exit {EXIT_NOTHING}, named, 'no line break' (exit {r.returncode} after "
          f"{took:.1f} s): {err(r)[-300:]}")

    # A log, then 40 MiB of zeros on a pipe: the log is read, the stream is partial.
    feed = subprocess.Popen(["bash", "-c", f"cat '{log}'; head -c 41943040 /dev/zero"],
                            stdout=subprocess.PIPE)
    r = analyze("-", stdin=feed.stdout)
    feed.stdout.close()
    feed.kill()
    feed.wait()
    check(r.returncode == EXIT_PARTIAL and "no line break" in err(r) and waits_of(out) == base,
          f"log then zeros on a pipe: exit {EXIT_PARTIAL}, the log's waits (exit "
          f"{r.returncode}): {err(r)[-300:]}")


def check_nothing(ls, tmp, readme):
    out = os.path.join(tmp, "n.md")
    empty = os.path.join(tmp, "empty.log")
    open(empty, "wb").close()
    png = os.path.join(tmp, "picture.png")
    open(png, "wb").write(png_bytes())
    for what, path in (("empty file", empty), ("README", readme), ("PNG", png)):
        r = run([ls, "analyze", "-o", out, path])
        check(r.returncode == EXIT_NOTHING and path in err(r) and "nothing to read" in err(r),
              f"{what}: exit {EXIT_NOTHING} naming it (exit {r.returncode}): {err(r)[-300:]}")
        r = run([ls, "analyze", "--allow-empty", "-o", out, path])
        check(r.returncode == 0, f"{what} with --allow-empty: exit 0 (exit {r.returncode})")
        db = os.path.join(tmp, "n.db")
        r = run([ls, "ingest", "-q", "--db", db, path])
        check(r.returncode == EXIT_NOTHING and "nothing to read" in err(r),
              f"{what}: ingest exits {EXIT_NOTHING}, even with -q (exit {r.returncode})")
        if os.path.exists(db):
            os.remove(db)


def check_bad_share(ls, tmp, log):
    """Garbage lines inserted into a real log of fewer than 1000 lines."""
    lines = open(log, "rb").read().split(b"\n")

    def with_garbage(n):
        path = os.path.join(tmp, f"garbage{n}.log")
        step = len(lines) // (n + 1)
        out = []
        for i, line in enumerate(lines):
            out.append(line)
            if (i + 1) % step == 0 and (i + 1) // step <= n:
                out.append(b"garbage line %d, no log_line_prefix" % i)
        open(path, "wb").write(b"\n".join(out))
        return path, len(out)

    prefix = open(os.path.join(os.path.dirname(log), "prefix.txt")).read().rstrip("\n")
    out = os.path.join(tmp, "g.md")
    path, total = with_garbage(30)
    r = run([ls, "analyze", "--prefix", prefix, "-o", out, path])
    check(r.returncode == EXIT_BAD_LINES and "30 of" in err(r),
          f"30 bad of {total} lines (over 10%): exit 3 (exit {r.returncode}): {err(r)[-300:]}")
    path, total = with_garbage(10)
    r = run([ls, "analyze", "--prefix", prefix, "--max-bad-lines", "2%", "-o", out, path])
    check(r.returncode == EXIT_BAD_LINES and "10 of" in err(r),
          f"10 bad of {total} lines, --max-bad-lines 2%: exit 3 (exit {r.returncode}): "
          f"{err(r)[-300:]}")
    r = run([ls, "analyze", "--prefix", prefix, "-o", out, path])
    check(r.returncode == 0, f"10 bad of {total} lines (under 10%): exit 0 (exit {r.returncode})")
    # Under the floor of 10 bad lines, whatever their share: 9 of 49 lines.
    short = os.path.join(tmp, "short.log")
    open(short, "wb").write(b"\n".join(lines[:40] + [b"garbage %d" % i for i in range(9)]) + b"\n")
    r = run([ls, "analyze", "--prefix", prefix, "-o", out, short])
    check(r.returncode == 0 and "9 unparsable lines" in err(r),
          f"9 bad lines of 49: under the floor, exit 0 (exit {r.returncode}): {err(r)[-300:]}")


def check_cut_gz(ls, tmp, samples):
    logs = [os.path.join(samples, d, "postgresql.log") for d in ("basic", "correlation", "realistic")]
    d = os.path.join(tmp, "nightly")
    os.mkdir(d)
    gzs = []
    for i, log in enumerate(logs):
        p = os.path.join(d, f"pg{i}.log.gz")
        open(p, "wb").write(gzip.compress(open(log, "rb").read()))
        gzs.append(p)
    whole = open(gzs[1], "rb").read()
    full_lines = open(logs[1], "rb").read().count(b"\n")
    # Cut as `head -c` cuts it: half the compressed bytes.
    subprocess.run(["bash", "-c", f"head -c {len(whole) // 2} '{gzs[1]}' > '{gzs[1]}.cut'"],
                   check=True)
    os.replace(gzs[1] + ".cut", gzs[1])
    db = os.path.join(tmp, "nightly.db")
    rj = os.path.join(tmp, "nightly.json")

    r = run([ls, "ingest", "--db", db] + gzs)
    e = err(r)
    check(r.returncode == EXIT_PARTIAL and "pg1.log.gz" in e and "truncated" in e,
          f"cut .gz among good ones: ingest exits {EXIT_PARTIAL}, names it (exit "
          f"{r.returncode}): {e[-400:]}")
    r = run([ls, "report", "--db", db, "-o", rj])
    check(r.returncode == EXIT_PARTIAL and "1 input of this store was not fully read" in err(r),
          f"report on the store after a cut .gz: exit {EXIT_PARTIAL}, says so (exit "
          f"{r.returncode}: {err(r)[-300:]})")
    rep = json.load(open(rj)) if r.returncode == EXIT_PARTIAL else {"input": {"files": [],
                                                                   "bad_line_samples": []}}
    files = {os.path.basename(f["path"]): f for f in rep["input"]["files"]}
    for i, log in enumerate(logs):
        if i != 1:
            n = open(log, "rb").read().count(b"\n")
            check(files.get(f"pg{i}.log.gz", {}).get("lines") == n,
                  f"pg{i}.log.gz stored whole ({n} lines): {files.get(f'pg{i}.log.gz')}")
    cut_lines = files.get("pg1.log.gz", {}).get("lines", 0)
    check(0 < cut_lines < full_lines, f"the cut file's lines before the cut are stored "
          f"({cut_lines} of {full_lines})")
    broke = [b for b in rep["input"]["bad_line_samples"] if b["file"].endswith("pg1.log.gz")]
    check(len(broke) == 1 and "not fully read" in broke[0]["reason"] and
          broke[0]["line"] == cut_lines + 1,
          f"the report's input section says where it broke: {broke}")

    r = run([ls, "ingest", "--db", db] + gzs)
    check(r.returncode == 0 and "still breaks" in err(r),
          f"the same cut file again: exit 0, nothing new (exit {r.returncode}): {err(r)[-300:]}")
    open(gzs[1], "wb").write(whole)
    r = run([ls, "ingest", "--db", db] + gzs)
    check(r.returncode == 0 and "reading on" in err(r),
          f"the whole .gz in its place: read on (exit {r.returncode}): {err(r)[-300:]}")
    r = run([ls, "report", "-q", "--db", db, "-o", rj])
    check(r.returncode == 0, f"report on the store now whole: exit 0 (exit {r.returncode})")
    rep = json.load(open(rj)) if r.returncode == 0 else {"input": {"files": [],
                                                                   "bad_line_samples": []}}
    files = {os.path.basename(f["path"]): f for f in rep["input"]["files"]}
    check(files.get("pg1.log.gz", {}).get("lines") == full_lines and
          not rep["input"]["bad_line_samples"],
          f"now whole: {full_lines} lines, no break recorded: {files.get('pg1.log.gz')} "
          f"{rep['input']['bad_line_samples']}")

    # analyze: the report is written, the exit status says partial.
    open(gzs[1], "wb").write(whole[: len(whole) // 2])
    out = os.path.join(tmp, "a.json")
    r = run([ls, "analyze", "-o", out] + gzs)
    check(r.returncode == EXIT_PARTIAL and os.path.exists(out),
          f"analyze with a cut .gz: exit {EXIT_PARTIAL}, report written (exit {r.returncode})")
    md = os.path.join(tmp, "a.md")
    r = run([ls, "analyze", "-q", "-o", md] + gzs)
    text = open(md).read() if os.path.exists(md) else ""
    check(r.returncode == EXIT_PARTIAL and "**Not fully read:** " in text and
          "pg1.log.gz breaks at line" in text,
          f"the Markdown report's input section names the cut file (exit {r.returncode})")


def main():
    ls, samples = sys.argv[1], sys.argv[2]
    log = os.path.join(samples, "basic", "postgresql.log")
    tmp = tempfile.mkdtemp(prefix="lockspan-streams.")
    try:
        base_out = os.path.join(tmp, "base.json")
        r = run([ls, "analyze", "-q", "-o", base_out, log])
        base = waits_of(base_out)
        check(r.returncode == 0 and base, f"the sample as a file: waits ({err(r)[-300:]})")
        check_streams(ls, tmp, log, base)
        check_nothing(ls, tmp, os.path.join(samples, "..", "README.md"))
        check_bad_share(ls, tmp, log)
        check_cut_gz(ls, tmp, samples)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report()


if __name__ == "__main__":
    sys.exit(main())
