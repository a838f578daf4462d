#!/usr/bin/env python3
"""File names with control characters are shown escaped (issue 37).

A file name may hold any byte but '/' and NUL. In one directory: a copy
of a real log (samples/basic/postgresql.log, written by samples/generate.sh
from a real PostgreSQL server) named with a newline, a forged "lockspan: "
line and a tab; a file that is no log named with a terminal escape
(ESC [31m) and a bidi override (U+202E); an empty file, a file with
unparsable lines (samples/hidden's log and two lines of garbage) and a .gz
cut in its header, each with a newline in its name. The report is written
to a name with a newline, and `report` is pointed at a --db with a newline
that does not exist.

stderr must hold no control byte but the newline that ends each line, no
bidi override, and every line must be one of lockspan's (no forged line);
the names are shown as \\n, \\t, \\x1b and \\u{202E}. The JSON report keeps
the names exactly (ESC as \\u001b, not U+FFFD); the Markdown and HTML
reports hold no raw control character or bidi override, and the Markdown
input table gives each file one row, its control characters shown as code
escapes (`\\n`, `\\x1b`), not folded into a space.

Usage: check_names.py LOCKSPAN SAMPLES_DIR
"""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

from lscheck import check, report

FORGED = "evil\nlockspan: forged\tx.log"
TINTED = "tint\x1b[1m.log"  # a copy of a real log (samples/hidden-traces), ESC in its name
ESCAPE = "esc\x1b[31mred\u202e.log"
BAD_BIDI = "\u202e"


def run(args, cwd):
    return subprocess.run(args, capture_output=True, cwd=cwd, env=dict(os.environ, TZ="UTC"),
                          timeout=120)


def clean_stderr(text, what):
    """stderr `text` has no control character but line ends, no bidi
    override, and each line is lockspan's own."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    raw = [c for c in text if (ord(c) < 0x20 and c != "\n") or ord(c) == 0x7f or c == BAD_BIDI]
    check(not raw, f"{what}: no raw control character or bidi override on stderr "
          f"({sorted(set(map(hex, map(ord, raw))))})")
    foreign = [ln for ln in lines if not ln.startswith("lockspan")]
    check(not foreign, f"{what}: every stderr line is lockspan's own: {foreign[:3]}")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    ls, samples = os.path.abspath(sys.argv[1]), sys.argv[2]
    log = os.path.join(samples, "basic", "postgresql.log")
    tmp = tempfile.mkdtemp(prefix="lockspan-names-")
    try:
        d = os.path.join(tmp, "logs")
        os.mkdir(d)
        shutil.copyfile(log, os.path.join(d, FORGED))
        shutil.copyfile(os.path.join(samples, "hidden-traces", "postgresql.log"),
                        os.path.join(d, TINTED))
        text = open(log, "rb").read()
        open(os.path.join(d, "empty\n.log"), "wb").close()
        with open(os.path.join(d, ESCAPE), "wb") as f:
            f.write(b"hello, this is no log\n")
        with open(os.path.join(d, "cut\n.log.gz"), "wb") as f:
            f.write(gzip.compress(text)[:5])
        with open(os.path.join(d, "bad\n.log"), "wb") as f:
            f.write(open(os.path.join(samples, "hidden", "postgresql.log"), "rb").read() +
                    b"garbage one\ngarbage two\n")
        out = "report\nlockspan: forged.json"
        r = run([ls, "analyze", "-o", out, "-o", "r.md", "-o", "r.html", "logs"], tmp)
        err = r.stderr.decode("utf-8", "replace")
        check(r.returncode == 4, f"analyze: exit 4 for the cut .gz (exit {r.returncode}): "
              f"{err[-300:]}")
        clean_stderr(err, "analyze")
        for shown in ("evil\\nlockspan: forged\\tx.log", "esc\\x1b[31mred\\u{202E}.log",
                      "cut\\n.log.gz", "empty\\n.log", "bad\\n.log",
                      "report\\nlockspan: forged.json"):
            check(shown in err, f"stderr shows {shown!r}: {err[-600:]!r}")

        rep = {}
        try:
            rep = json.load(open(os.path.join(tmp, out)))
        except (OSError, ValueError) as e:
            check(False, f"JSON report under a name with a newline: {e}")
        paths = {os.path.basename(f.get("path", "")) for f in rep.get("input", {}).get("files", [])}
        check(FORGED in paths and "cut\n.log.gz" in paths and TINTED in paths,
              f"the JSON report keeps the names exactly: {sorted(paths)!r}")
        raw = open(os.path.join(tmp, out), encoding="utf-8").read()
        check("tint\\u001b[1m.log" in raw and "\ufffd" not in raw,
              "the JSON report writes ESC in a name as \\u001b, not U+FFFD")
        for name in ("r.md", "r.html"):
            body = open(os.path.join(tmp, name), encoding="utf-8", errors="replace").read()
            raw = [c for c in body if c in ("\x1b", BAD_BIDI)]
            check(not raw, f"{name}: no raw ESC or bidi override")
        md = open(os.path.join(tmp, "r.md"), encoding="utf-8").read()
        rows = [ln for ln in md.split("\n") if ln.startswith("| ") and "x.log" in ln]
        check(len(rows) >= 1 and all(ln.rstrip().endswith("|") for ln in rows),
              f"the Markdown input table gives the forged name one whole row: {rows!r}")
        check(not any(ln.startswith("lockspan: forged") for ln in md.split("\n")),
              "the Markdown report has no line begun by the forged text")
        check(any("evil`\\n`lockspan: forged`\\t`x.log" in ln for ln in rows),
              f"the Markdown input table shows the newline and tab as `\\n`, `\\t`: {rows!r}")
        check("tint`\\x1b`\\[1m.log" in md,
              "the Markdown input table shows ESC as `\\x1b`")

        # report on a --db with a newline that does not exist
        r = run([ls, "report", "--db", "no\nsuch.db"], tmp)
        err = r.stderr.decode("utf-8", "replace")
        check(r.returncode != 0 and "no\\nsuch.db" in err,
              f"report --db 'no<newline>such.db': an error that shows the name escaped "
              f"(exit {r.returncode}): {err!r}")
        clean_stderr(err, "report")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report()


if __name__ == "__main__":
    sys.exit(main())
