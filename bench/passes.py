#!/usr/bin/env python3
"""Per-pass flatness of `lockspan analyze` (a benchmark, NOT a test).

Runs `LOCKSPAN_TIMING=1 lockspan analyze` RUNS times on each SIZE (the
log's first N MiB, cut back to a whole line; the largest size may be the
whole log), the sizes in turn in each round, and prints, as a Markdown table, the median CPU seconds of each
correlation pass (the `correlate-cpu:` lines: the correlating thread's own
CPU time), of the whole run (user + sys) and its wall time and peak RSS,
then ms per MiB at each size and the ratio of ms per MiB from each smaller
size to the largest (x1.00 = flat). The spread (min-max) of each pass at
the smallest size is printed too: passes of a few hundredths of a second
vary by a third from one run to the next.

A second table gives each pass's SQLite virtual machine steps (the
`correlate-steps:` lines), per MiB and their ratio likewise. A step count
is the same on every run of the same input, so its ratio is not blurred by
the machine: a pass that visits rows more than once per row of the log
(a nested scan: quadratic) shows as a ratio that grows with the size. It
does not count the log factor of a sort or an index seek, nor work a pass
does in C on the rows it reads.

Usage: bench/passes.py LOG [--sizes 100,300,1024] [--runs 5]
                           [--bin build/lockspan] [--dir /tmp/lockspan-passes]
                           [--prefix '%m [%p] ...']

LOG is a stderr log of bench/pgbench_log.sh (its prefix is the default).
Run it on an idle machine: other load shows in every pass.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

PREFIX = "%m [%p] %q%u@%d/%a %c %l %v %x %e "
MiB = 1 << 20
# Rows the passes read or make, counted per MiB beside the steps: a log's
# density of waits and hot-row transactions is not the same from start to
# end, and a pass's steps should follow the rows it works on.
COUNTED = ["stmt_rows", "lock_events", "lock_waits", "errors", "transactions", "holds", "row_waits"]


def cut(log, mb, work):
    """The first mb MiB of log, to the end of a line (the log itself if smaller)."""
    size = os.path.getsize(log)
    if mb * MiB >= size:
        return log, size
    out = os.path.join(work, f"slice-{mb}M.log")
    if not os.path.exists(out):
        with open(log, "rb") as f, open(out + ".tmp", "wb") as o:
            data = f.read(mb * MiB)
            o.write(data[:data.rfind(b"\n") + 1])
        os.replace(out + ".tmp", out)
    return out, os.path.getsize(out)


def run_once(binary, log, prefix, work):
    db = os.path.join(work, "passes.db")
    for suffix in ("", "-journal", "-wal"):
        if os.path.exists(db + suffix):
            os.unlink(db + suffix)
    env = dict(os.environ, LOCKSPAN_TIMING="1")
    r = subprocess.run(["/usr/bin/time", "-f", "@time %e %U %S %M", binary, "analyze", "-q",
                        "--db", db, "--prefix", prefix, "-o", os.devnull, log],
                       env=env, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f"bench/passes.py: analyze {log} failed:\n{r.stderr[-2000:]}")
    passes, whole, steps = {}, None, {}
    for line in r.stderr.splitlines():
        m = re.match(r"lockspan: correlate-cpu: (.*\S)\s+([0-9.]+) s$", line)
        if m:
            passes[m.group(1)] = passes.get(m.group(1), 0.0) + float(m.group(2))
        m = re.match(r"lockspan: correlate-steps: (.*\S)\s+([0-9]+) SQLite VM steps$", line)
        if m:
            steps[m.group(1)] = steps.get(m.group(1), 0) + int(m.group(2))
        m = re.match(r"@time ([0-9.]+) ([0-9.]+) ([0-9.]+) ([0-9]+)", line)
        if m:
            whole = (float(m.group(1)), float(m.group(2)) + float(m.group(3)),
                     int(m.group(4)) / 1024.0)
    counts = {}
    for table in COUNTED:
        q = subprocess.run(["sqlite3", db, f"SELECT count(*) FROM {table}"],
                           stdout=subprocess.PIPE, text=True)
        counts[table] = int(q.stdout.strip() or 0) if q.returncode == 0 else 0
    os.unlink(db)
    passes["@steps"] = steps
    passes["@counts"] = counts
    return passes, whole


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("log")
    ap.add_argument("--sizes", default="100,300,1024")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   "..", "build", "lockspan"))
    ap.add_argument("--dir", default="/tmp/lockspan-passes")
    ap.add_argument("--prefix", default=PREFIX)
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    sizes = sorted(int(x) for x in a.sizes.split(","))
    res, logs = {}, {}
    for mb in sizes:
        log, nbytes = cut(a.log, mb, a.dir)
        logs[mb] = log
        res[mb] = (nbytes / MiB, [])
    # Round robin over the sizes: a machine that slows down for a few
    # minutes (a shared VM does) then slows every size alike, instead of
    # skewing the ratios.
    for i in range(a.runs):
        for mb in sizes:
            subprocess.run(["cat", logs[mb]], stdout=subprocess.DEVNULL)  # page cache
            res[mb][1].append(run_once(a.bin, logs[mb], a.prefix, a.dir))
            print(f"[passes] round {i + 1}, {mb} MiB: {res[mb][1][-1][1][0]:.2f} s wall",
                  file=sys.stderr)

    names = []
    for mb in sizes:
        for passes, _ in res[mb][1]:
            names += [n for n in passes if n not in names and not n.startswith("@")]
    big = sizes[-1]

    def med(mb, key):
        vals = [(p.get(key, 0.0) if isinstance(key, str) else w[key]) for p, w in res[mb][1]]
        return statistics.median(vals), min(vals), max(vals)

    head = "| pass (CPU s, median of %d) | " % a.runs + " | ".join(
        f"{mb} MiB" for mb in sizes) + " | " + " | ".join(
        f"ms/MiB {mb} → {big}" for mb in sizes[:-1]) + " | spread at %d MiB |" % sizes[0]
    print(head)
    print("|---" * (1 + len(sizes) + len(sizes) - 1 + 1) + "|")
    rows = [("whole run, wall", 0), ("whole run, CPU (user + sys)", 1)] + [(n, n) for n in names]
    for label, key in rows:
        cells, per = [], {}
        for mb in sizes:
            m, lo, hi = med(mb, key)
            cells.append(f"{m:.3f}")
            per[mb] = m * 1000.0 / res[mb][0]
        ratios = []
        for mb in sizes[:-1]:
            r = per[big] / per[mb] if per[mb] else float("nan")
            ratios.append(f"{per[mb]:.2f} → {per[big]:.2f} (x{r:.2f})")
        m, lo, hi = med(sizes[0], key)
        print(f"| {label} | " + " | ".join(cells) + " | " + " | ".join(ratios) +
              f" | {lo:.3f}–{hi:.3f} |")
    print("| peak RSS (MiB) | " + " | ".join(f"{med(mb, 2)[0]:.0f}" for mb in sizes) +
          " |" + " |" * len(sizes))
    print("\n| pass (SQLite VM steps) | " + " | ".join(f"{mb} MiB" for mb in sizes) + " | " +
          " | ".join(f"steps/MiB {mb} → {big}" for mb in sizes[:-1]) + " | same on every run |")
    print("|---" * (1 + len(sizes) + len(sizes) - 1 + 1) + "|")
    for n in names + ["all passes"]:
        cells, per, same = [], {}, True
        for mb in sizes:
            runs = [(sum(p["@steps"].values()) if n == "all passes" else p["@steps"].get(n, 0))
                    for p, _ in res[mb][1]]
            same = same and len(set(runs)) == 1
            cells.append(f"{runs[0]:,}")
            per[mb] = runs[0] / res[mb][0]
        ratios = [f"{per[mb]:,.0f} → {per[big]:,.0f} (x{per[big] / per[mb]:.2f})"
                  if per[mb] else "-" for mb in sizes[:-1]]
        print(f"| {n} | " + " | ".join(cells) + " | " + " | ".join(ratios) +
              f" | {'yes' if same else 'NO'} |")
    for t in COUNTED:
        cells = [f"{res[mb][1][0][0]['@counts'][t]:,}" for mb in sizes]
        per = {mb: res[mb][1][0][0]["@counts"][t] / res[mb][0] for mb in sizes}
        ratios = [f"{per[mb]:,.0f} → {per[big]:,.0f} (x{per[big] / per[mb]:.2f})"
                  if per[mb] else "-" for mb in sizes[:-1]]
        print(f"| rows in `{t}` | " + " | ".join(cells) + " | " + " | ".join(ratios) + " | |")
    print(f"\nlog {a.log}; sizes in MiB of its first bytes: " +
          ", ".join(f"{res[mb][0]:.1f}" for mb in sizes) + f"; {a.bin}")


if __name__ == "__main__":
    main()
