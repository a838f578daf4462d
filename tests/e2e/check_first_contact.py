#!/usr/bin/env python3
"""First contact (issue 36 item 6): `make demo-report` (the analysis `make
demo` runs) works with no PostgreSQL program on PATH and, when this runs as
root, as the user nobody; `lockspan --help` ends with three examples; the
last stderr line names the answer, taken from the report model (the
occupancy ranking's top and the busiest hot row), or says there is no hot
row; -q prints nothing but errors, even for a directory that holds one log in
several formats; on a terminal a warning never shares the progress line.

Usage: check_first_contact.py LOCKSPAN SOURCE_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from lscheck import check, report, run_pty

NOBODY = 65534
PROGRESS_LINES = 4096  # ingest draws its progress every this many lines
FIRST_WAIT_LINE = 44  # samples/basic/postgresql.log: the first "still waiting"


def run(*args, env=None, cwd=None):
    return subprocess.run(list(args), capture_output=True, text=True, env=env, cwd=cwd)


def duration(ms):
    """As the answer line writes a duration."""
    return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


def check_help(ls):
    out = run(ls, "--help").stdout
    tail = out.split("\nexamples:\n", 1)
    check(len(tail) == 2, "--help has an examples section")
    if len(tail) < 2:
        return
    check(not re.search(r"^\S.*:$", tail[1], re.M), "examples are the last section of --help")
    blocks = [b for b in tail[1].strip("\n").split("\n\n") if b.strip()]
    check(len(blocks) == 3, f"--help ends with three examples: {len(blocks)}")
    for b in blocks:
        cmds = re.findall(r"^    lockspan (\w+) ", b, re.M)
        check(cmds and set(cmds) <= {"analyze", "ingest", "report"},
              f"example shows a lockspan command: {b!r}")


def check_answer(ls, sample, tmp):
    log = os.path.join(sample, "postgresql.log")
    prefix = open(os.path.join(sample, "prefix.txt")).read().rstrip("\n")
    rj, rm = os.path.join(tmp, "r.json"), os.path.join(tmp, "r.md")
    r = run(ls, "analyze", "--prefix", prefix, "-o", rj, "-o", rm, log)
    check(r.returncode == 0, f"analyze the sample: {r.stderr}")
    model = json.load(open(rj))
    top, row = model["row_occupancy"][0], model["hot_rows"][0]
    last = r.stderr.rstrip("\n").split("\n")[-1]
    m = re.fullmatch(r"lockspan: top: (.*) holds hot rows longest \((.*) of ([\d.]+) s\); "
                     r"busiest row (\S+) (\S+), report written to (.*)", last)
    check(m is not None, f"last stderr line names the answer: {last!r}")
    if m:
        check_answer_facts(m, top, row, f"{rj}, {rm}")
    check_answer_cases(ls, log, prefix, tmp)


def check_answer_facts(m, top, row, outs):
    """The answer line (matched by m) against the model's ranking and rows."""
    check(m.group(1) == top["code_path"], f"answer's path is the ranking's top: {m.group(1)}")
    check(m.group(2) == duration(top["total_hold_ms"]),
          f"answer's hold time is the top's: {m.group(2)} vs {top['total_hold_ms']} ms")
    all_ms = top["total_hold_ms"] * 100 / top["share_pct"]
    check(abs(float(m.group(3)) * 1000 - all_ms) <= 50,
          f"answer's total is all hot-row hold time: {m.group(3)} s vs {all_ms:.0f} ms")
    check((m.group(4), m.group(5)) == (row["relation"], row["row_key"]),
          f"answer's row is the busiest hot row: {m.group(4)} {m.group(5)}")
    check(m.group(6) == outs, f"answer names both reports: {m.group(6)}")


def check_answer_cases(ls, log, prefix, tmp):
    """The answer for a report on stdout, and for a log with no hot row."""
    # To stdout: the answer says so.
    r = run(ls, "analyze", "--prefix", prefix, "--format", "json", "-o", "-", log)
    last = r.stderr.rstrip("\n").split("\n")[-1]
    check(r.returncode == 0 and last.endswith(", report written to stdout")
          and "top: " in last, f"answer for a report on stdout: {last!r}")

    # A real log cut before its first lock wait: no hot row, said plainly.
    lines = open(log).read().split("\n")
    check("still waiting" in lines[FIRST_WAIT_LINE - 1]
          and not any("still waiting" in x for x in lines[:FIRST_WAIT_LINE - 1]),
          "the sample's first wait is where this test cuts it")
    cut = os.path.join(tmp, "before-waits.log")
    with open(cut, "w") as f:
        f.write("\n".join(lines[:FIRST_WAIT_LINE - 1]) + "\n")
    out = os.path.join(tmp, "none.md")
    r = run(ls, "analyze", "--prefix", prefix, "-o", out, cut)
    last = r.stderr.rstrip("\n").split("\n")[-1]
    check(r.returncode == 0 and last.startswith("lockspan: top: no hot row")
          and last.endswith(f", report written to {out}"),
          f"no hot row: said on the last line: {last!r}")


def check_quiet(ls, sample, tmp):
    # The sample directory holds one log in three formats: read once, and
    # without -q each file skipped is named. With -q, nothing.
    r = run(ls, "analyze", "-o", os.path.join(tmp, "d.md"), sample + "/")
    check(r.returncode == 0 and "skipped" in r.stderr,
          f"without -q the skipped formats are named: {r.stderr!r}")
    r = run(ls, "analyze", "-q", "-o", os.path.join(tmp, "q.md"), sample + "/")
    check(r.returncode == 0 and r.stderr == "", f"-q: no note at all: {r.stderr!r}")
    check(os.path.getsize(os.path.join(tmp, "q.md")) > 0, "-q: the report is written")
    r = run(ls, "analyze", "-q", "-o", os.path.join(tmp, "e.md"), os.path.join(tmp, "nope.log"))
    check(r.returncode == 1 and "nope.log" in r.stderr, f"-q: errors still shown: {r.stderr!r}")


def screen_lines(text):
    """The lines a terminal shows for text: '\\r' returns to column 0,
    ESC [K clears to the end of the line, '\\n' ends it."""
    shown = []
    for raw in text.split("\n"):
        line, col, i = [], 0, 0
        while i < len(raw):
            if raw[i] == "\r":
                col = 0
            elif raw.startswith("\033[K", i):
                del line[col:]
                i += 2
            else:
                line[col:col + 1] = raw[i]
                col += 1
            i += 1
        shown.append("".join(line))
    return shown



def check_warning_line(ls, sample, tmp):
    """On a terminal, a warning met while the progress line is shown gets a
    line of its own. The input is the real sample repeated until progress is
    drawn (every 4096 lines), with one bad line after that."""
    lines = open(os.path.join(sample, "postgresql.log")).read().split("\n")[:-1]
    big = []
    while len(big) < PROGRESS_LINES * 2:
        big += lines
    big.insert(PROGRESS_LINES + PROGRESS_LINES // 2, "this line is no log record")
    path = os.path.join(tmp, "big.log")
    with open(path, "w") as f:
        f.write("\n".join(big) + "\n")
    prefix = open(os.path.join(sample, "prefix.txt")).read().rstrip("\n")
    rc, err, _ = run_pty(ls, "analyze", "--max-bad-lines", "10", "--prefix", prefix,
                         "-o", os.path.join(tmp, "big.md"), path)
    err = err.replace("\r\n", "\n")
    check(rc == 0, f"analyze the repeated sample on a terminal: exit {rc}")
    check(re.search(r"ingest .*big\.log: .*\d+ lines\033\[K[^\n]*this line is no log", err)
          is not None, "the warning came while the progress line was shown")
    warn = [l for l in screen_lines(err) if "this line is no log" in l]
    check(len(warn) == 1 and warn[0].startswith(f"lockspan: {path}:"),
          f"the warning has a line of its own on the terminal: {warn!r}")


def check_demo(ls, src, tmp):
    """make demo-report with make and cat alone on PATH (no PostgreSQL
    program can be found), as nobody when this runs as root."""
    make, cat = shutil.which("make"), shutil.which("cat")
    check(make is not None and cat is not None, "make and cat are installed")
    if not make or not cat:
        return
    bindir = os.path.join(tmp, "bin")
    os.mkdir(bindir)
    for prog in (make, cat):
        os.symlink(prog, os.path.join(bindir, os.path.basename(prog)))
    out = os.path.join(tmp, "demo", "lockspan-report.md")
    os.mkdir(os.path.dirname(out))
    os.chmod(tmp, 0o755)
    os.chmod(os.path.dirname(out), 0o777)
    env = {"PATH": bindir, "HOME": tmp, "LC_ALL": "C"}
    for pg in ("postgres", "pg_ctl", "psql", "initdb"):
        check(shutil.which(pg, path=bindir) is None, f"{pg} is not on the demo's PATH")
    cmd = [make, "--no-print-directory", "-C", src, "demo-report",
           f"BUILD={os.path.dirname(os.path.abspath(ls))}", f"DEMO_OUT={out}"]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        check(setpriv is not None, "setpriv is installed (to run the demo as nobody)")
        if not setpriv:
            return
        cmd = [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"] + cmd
    r = run(*cmd, env=env)
    check(r.returncode == 0, f"make demo-report without PostgreSQL: exit {r.returncode} "
          f"{r.stderr[-500:]}")
    check(os.path.isfile(out) and "# " in open(out).read(), "the demo wrote a Markdown report")
    if os.geteuid() == 0 and os.path.exists(out):
        check(os.stat(out).st_uid == NOBODY, "the demo ran as nobody")
    last = r.stderr.rstrip("\n").split("\n")[-1]
    check(last.startswith("lockspan: top: ") and last.endswith(f"report written to {out}"),
          f"the demo's last line names the answer: {last!r}")


def main():
    ls, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    sample = os.path.join(src, "samples", "basic")
    tmp = tempfile.mkdtemp(prefix="lockspan-first.")
    try:
        check_help(ls)
        check_answer(ls, sample, tmp)
        check_quiet(ls, sample, tmp)
        check_warning_line(ls, sample, tmp)
        check_demo(ls, src, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report()


if __name__ == "__main__":
    sys.exit(main())
