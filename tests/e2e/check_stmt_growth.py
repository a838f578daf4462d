#!/usr/bin/env python3
"""No statement of an analyze grows faster than the log (issue 38).

Two statements of the findings pass were quadratic (one cost 2,327 M
SQLite VM steps at 1 GiB, ~28 s) and no test saw it: the per-pass check
(check_pass_growth.py) sums a pass's statements, and a statement that is
a small part of its pass on a small log hides in the sum. This one looks
at every statement.

It makes one realistic log at three sizes from samples/busy-row (the
first 100,000 lines of a real bench/pgbench_log.sh run, 16 clients):

  small  the server's start and pgbench -i, then a stretch of the
         benchmark: its lines [SKIP, SKIP + STRETCH) after its first
         connection, each session's from the start of its transaction
         open at the stretch's first line to the end of the one open at
         its last (no wait lacks its holder's transaction for the cut);
  long   the small log, then the stretch three times more as the same
         sessions going on: times one stretch later each time, %l, the
         local xid of %v and transaction ids (%x, and in the lock
         messages) past the copy's before; each session 4 times as long
         (a pool's connections, open all day);
  wide   the small log, then the stretch three times more as other
         sessions: as above, and new pids (in the prefix and the
         messages, by a multiple of 1024), the session ids %c made of
         them and of the later start, backend ids past the first copy's;
         4 times the sessions (a client that connects per request).

In both large logs the rows are the same (a longer day locks the same hot
rows again) and the statements, waits, holds and transactions are 4
times the small log's. All three are analyzed with
LOCKSPAN_TIMING=sql-all, which prints the VM steps of every statement by
an id (the hash of its pass and whole text). For each statement that
costs at least FLOOR steps on a large log, its growth per unit is
(steps large / steps small) / (units large / units small), the units
being whichever of statements, waits, holds and transactions grew most
(the most lenient: all are 4x, to within 3%), or what the statement is
driven by when that grows faster (OWN_UNIT_OF). A linear statement's
growth per unit is 1 or less (less when part of its cost is fixed); VM
steps do not count the log factor of a B-tree seek or a sort (a seek is
one step whatever the tree's depth), and the same input gives the same
count on every run, so the bound needs no slack for load: MAX_GROWTH =
1.5 for 4 times the data passes n log n with room and fails n^1.3 or
steeper (4^0.3 = 1.52). At f144ad6 the most any statement grew was
1.26x. A statement quadratic in the whole log grows 4x per unit on both
large logs (a correlated subquery over every wait per hold, planted:
3.78x and 3.71x); one quadratic in a session's statements 4x on the long
log (the idle rule's before d8ce76f, planted back: 2.80x, its linear
part diluting it); one quadratic in the sessions 4x on the wide log (a
session found by pid through every session, planted in SESSION_OF:
2.60x there, the long log passes); one quadratic in a hot row's holds 4x
on both. A text with numbers formatted
in (the report's strip of minutes) has another id at each size: such
statements are matched by their printed label (pass and first 87 bytes)
and summed. A statement that runs on a large log only fails when it
costs FLOOR steps or more there.

Usage: check_stmt_growth.py LOCKSPAN PROJECT_DIR [KEEP_DIR]
(KEEP_DIR: keep the logs, stores, reports and stderr there.)
Prints each statement that fails with its steps and runs at both sizes
and its label, the five that grew most on each large log, then
"N passed, N failed".
"""
import calendar
import functools
import lzma
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time

from lscheck import check, report

SKIP = 15000         # lines of the benchmark before the stretch (all sessions connected)
STRETCH = 25000      # lines of the benchmark's sessions in the small log
MAX_GROWTH = 1.5     # steps' growth per unit, 4x the data
MARGIN = 15000       # lines read past the stretch
SIZES = ("small", "long", "wide")
FLOOR = 2000         # steps on a large log below which a statement is not judged

LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(\.\d{3} UTC \[)(\d+)\] (.*)$", re.S)
# %q%u@%d/%a %c %l %v %x %e of a session's line (the prefix of samples/busy-row)
SESSION = re.compile(r"^(\S*@\S*/\S* )([0-9a-f]+)\.([0-9a-f]+) (\d+) (?:(\d+)/(\d+))? (\d+)( \w{5} .*)$",
                     re.S)
PID_IN_TEXT = re.compile(r"\b([Pp]rocess) (\d+)")
PID_LIST = re.compile(r"(Process holding the lock: |Wait queue: )([\d, ]*)\.")
XID_IN_TEXT = re.compile(r"\b(transaction) (\d+)")
PROFILE = re.compile(r"^lockspan: sql +(\d+) steps +[\d.]+ s +(\d+) runs  #([0-9a-f]{16}) (.*)$",
                     re.M)
UNITS = {
    "statements": "SELECT count(*) FROM stmt_rows",
    "waits": "SELECT count(*) FROM lock_waits",
    "holds": "SELECT count(*) FROM hold_final",
    "transactions": "SELECT count(*) FROM transactions",
}
# What some statements are driven by that grows faster than the log
# between the sizes: such a statement is judged against the most of it
# and the units above.
OWN_UNITS = {
    # the rows with the findings' floor of logged waits
    # (LS_FINDING_ROW_MIN_WAITS, decide/tolerances.h): 1 of the 15 rows
    # with waits on the small log, 15 on the large ones: 12.3x the holds
    "holds of rows with 3+ waits": "SELECT count(*) FROM holds WHERE row_id IN (SELECT row_id"
                                   " FROM rows WHERE waits >= 3 AND capacity_per_s > 0)",
}
OWN_UNIT_OF = {  # a statement's label (its pass and its text's start): its unit
    # serial_capacity reads the holds of those rows (findings.c): 1.50x
    # per unit of the log at f144ad6, 0.49x per hold of those rows
    "[findings] WITH r0 AS MATERIALIZED (SELECT r.* FROM rows r WHERE r.capacity_per_s > 0":
        "holds of rows with 3+ waits",
}


@functools.lru_cache(maxsize=None)
def stamp(sec):
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(sec))


@functools.lru_cache(maxsize=None)
def epoch(ts):
    return calendar.timegm(time.strptime(ts, "%Y-%m-%d %H:%M:%S"))


class Record:
    """A log record: its first line's prefix fields and its lines."""

    def __init__(self, m, index):
        self.index, self.lines = index, [m.group(0)]
        self.sec, self.pid, self.rest = epoch(m.group(1)), int(m.group(3)), m.group(4)
        self.ms = m.group(2)
        self.s = SESSION.match(self.rest)
        self.lxid = None
        if self.s:
            s = self.s
            backend = None if s.group(5) is None else int(s.group(5))
            self.lxid = None if backend is None else int(s.group(6))
            # %u@%d/%a, %c's start and pid, %l, %v's backend and local xid, %x, the rest
            self.fields = (s.group(1), int(s.group(2), 16), int(s.group(3), 16), int(s.group(4)),
                           backend, self.lxid, int(s.group(7)), s.group(8))

    def closing(self):
        """Out of a transaction: no %v, or a local xid of 0 (the COMMIT's
        or ROLLBACK's duration line is logged after the transaction)."""
        return not self.lxid

    def xids(self):
        out = [int(x) for ln in self.lines for _, x in XID_IN_TEXT.findall(ln)]
        return out + ([self.fields[6]] if self.s else [])


def records(lines, lo, hi):
    """The records that begin in lines[lo:hi]."""
    out = []
    for i in range(lo, hi):
        ln = lines[i]
        m = LINE.match(ln)
        if m:
            out.append(Record(m, i))
        elif out:
            out[-1].lines.append(ln)
    return out


def stretch(recs, lo, hi):
    """The records of [lo, hi) (line indexes) in whole transactions: each
    session's from the start of its transaction open at lo to the end of
    its transaction open at hi, so that no wait of the stretch lacks its
    holder's transaction for being cut (nor does a copy that goes on with
    the sessions begin in the middle of one)."""
    by_pid, keep = {}, set()
    for r in recs:
        if r.s is None:
            if lo <= r.index < hi:
                keep.add(id(r))
        else:
            by_pid.setdefault(r.pid, []).append(r)
    for rs in by_pid.values():
        inside = [i for i, r in enumerate(rs) if lo <= r.index < hi]
        if not inside:
            continue
        first, last = inside[0], inside[-1]
        while first > 0 and not rs[first - 1].closing():
            first -= 1
        while last + 1 < len(rs) and not rs[last].closing():
            last += 1
        keep.update(id(r) for r in rs[first:last + 1])
    return [r for r in recs if id(r) in keep]


def later(recs, k, g, c, span, pids, xids, backends, lines_of, lxids_of):
    """Copy k (1, 2, 3) of the stretch as a later stretch of the day, k
    spans later, with transaction ids k * xids past the stretch's: of
    session group g (g > 0: other sessions, pid + g * pids, their session
    ids %c with it, backend ids + g * backends), the group's c-th copy
    (c > 0: its sessions go on, %l and the local xid of %v after those of
    the copy before). Rows, statement texts and parameters as they are."""
    secs, dpid, dxid = k * span, g * pids, k * xids
    pid = lambda m: "%s %d" % (m.group(1), int(m.group(2)) + dpid)
    xid = lambda m: "%s %d" % (m.group(1), int(m.group(2)) + dxid if int(m.group(2)) else 0)

    def text(t):
        if "rocess" in t:
            t = PID_IN_TEXT.sub(pid, t)
            t = PID_LIST.sub(lambda m: m.group(1) + ", ".join(
                str(int(p) + dpid) for p in m.group(2).split(", ") if p) + ".", t)
        return XID_IN_TEXT.sub(xid, t) if "transaction" in t else t

    out = []
    for r in recs:
        if r.s:
            who, cts, cpid, num, backend, lx, x, msg = r.fields
            v = ""
            if backend is not None:
                v = "%d/%d" % (backend + g * backends, lx + c * lxids_of[r.pid] if lx else 0)
            # the session began (k - c) spans later, its pid dpid more
            rest = "%s%x.%x %d %s %d%s" % (who, cts + (k - c) * span, cpid + dpid,
                                          num + c * lines_of[r.pid], v, x + dxid if x else 0,
                                          text(msg))
        else:
            rest = text(r.rest)
        out.append(stamp(r.sec + secs) + r.ms + str(r.pid + dpid) + "] " + rest)
        out += [text(ln) for ln in r.lines[1:]]
    return out


def make_logs(lines):
    """The small log and the two large ones (long, wide), lists of lines."""
    # the benchmark's sessions begin with the first bench-* connection
    first = next(i for i, ln in enumerate(lines) if "application_name=bench-" in ln)
    pid0 = LINE.match(lines[first]).group(3)
    start = next(i for i, ln in enumerate(lines) if "[%s]" % pid0 in ln)
    lo = start + SKIP
    check(len(lines) >= lo + STRETCH, f"the sample has {len(lines)} lines (>= {lo + STRETCH})")
    pre = lines[:start]
    # the sessions' records from their start to MARGIN lines past the
    # stretch: the transactions open at its ends are whole in them
    recs = records(lines, start, min(len(lines), lo + STRETCH + MARGIN))
    b = stretch(recs, lo, lo + STRETCH)
    secs = [r.sec for r in b]
    xids = [x for r in b for x in r.xids() if x]
    pids = [r.pid for r in b]
    backends = [r.fields[4] for r in b if r.s and r.fields[4] is not None]
    lines_of, lxids_of = {}, {}
    for r in b:
        if r.s:
            n = r.fields[3]
            a, z = lines_of.get(r.pid, (n, n))
            lines_of[r.pid] = (min(a, n), max(z, n))
            if r.lxid:
                a, z = lxids_of.get(r.pid, (r.lxid, r.lxid))
                lxids_of[r.pid] = (min(a, r.lxid), max(z, r.lxid))
    lines_of = {p: z - a + 1 for p, (a, z) in lines_of.items()}
    lxids_of = {p: z - a + 1 for p, (a, z) in lxids_of.items()}
    # pids past the sample's by a multiple of 1024 (alike modulo 1024, as
    # a busy server's are: bench/README.md)
    args = (max(secs) - min(secs) + 2, (max(pids) // 1024 + 1) * 1024, max(xids) - min(xids) + 1,
            max(backends), lines_of, lxids_of)
    small = pre + [ln for r in b for ln in r.lines]
    long_, wide = list(small), list(small)
    for k in (1, 2, 3):
        long_ += later(b, k, 0, k, *args)
        wide += later(b, k, k, 0, *args)
    return small, long_, wide


def analyze(lockspan, prefix, lines, tmp, name):
    """{id: (steps, runs, label)} and the units counted in the store, or None."""
    log, db = os.path.join(tmp, name + ".log"), os.path.join(tmp, name + ".db")
    with open(log, "w", encoding="utf-8", newline="") as f:
        f.writelines(lines)
    env = dict(os.environ, LOCKSPAN_TIMING="sql-all")
    p = subprocess.run([lockspan, "analyze", "-q", "--db", db, "--prefix", prefix, "-o",
                        os.path.join(tmp, name + ".json"), log],
                       capture_output=True, text=True, env=env)
    with open(os.path.join(tmp, name + ".err"), "w") as f:
        f.write(p.stderr)
    check(p.returncode == 0, f"{name}: analyze exit {p.returncode}: {p.stderr[-300:]}")
    if p.returncode != 0:
        return None
    stmts = {}
    for m in PROFILE.finditer(p.stderr):  # one block per store closed: summed by id
        steps, runs, label = stmts.get(m.group(3), (0, 0, m.group(4)))
        stmts[m.group(3)] = (steps + int(m.group(1)), runs + int(m.group(2)), label)
    check(p.stderr.count("lockspan: sql ") == len(PROFILE.findall(p.stderr)),
          f"{name}: every 'lockspan: sql' line read")
    check(len(stmts) > 100, f"{name}: {len(stmts)} statements profiled")
    con = sqlite3.connect(db)
    units = {u: con.execute(sql).fetchone()[0] for u, sql in {**UNITS, **OWN_UNITS}.items()}
    con.close()
    return stmts, units


def judged(sa, sb):
    """[(key, small (steps, runs) or None, large (steps, runs), label)]: the
    statements of each run matched by id; those whose id is in one run only
    (a text with numbers formatted in: the report's strip of minutes has
    its counts as a VALUES list) summed by their label."""
    out = [(sid, sa.get(sid), (st, ru), label) for sid, (st, ru, label) in sb.items()
           if sid in sa]
    alone = [{}, {}]
    for side, (mine, other) in enumerate(((sa, sb), (sb, sa))):
        for sid, (st, ru, label) in mine.items():
            if sid not in other:
                was = alone[side].get(label, (0, 0))
                alone[side][label] = (was[0] + st, was[1] + ru)
    for label, new in alone[1].items():
        out.append(("label", alone[0].get(label), new, label))
    return out


def main():
    lockspan, root = sys.argv[1], sys.argv[2]
    d = os.path.join(root, "samples", "busy-row")
    prefix = open(os.path.join(d, "prefix.txt")).read()
    lines = lzma.open(os.path.join(d, "postgresql.log.xz"), "rt", encoding="utf-8",
                      newline="").readlines()
    logs = make_logs(lines)
    with tempfile.TemporaryDirectory() as tmp:
        keep = sys.argv[3] if len(sys.argv) > 3 else tmp
        os.makedirs(keep, exist_ok=True)
        runs = [analyze(lockspan, prefix, log, keep, name) for log, name in zip(logs, SIZES)]
    if None in runs:
        return report()
    for name, large in zip(SIZES[1:], runs[1:]):
        judge(name, runs[0], large)
    return report()


def judge(name, small, large):
    """Check each statement's growth per unit from the small log to this
    large one."""
    (sa, ua), (sb, ub) = small, large
    print(f"small -> {name}:")
    growth_of = {}
    for u in list(UNITS) + list(OWN_UNITS):
        growth_of[u] = ub[u] / max(ua[u], 1)
        print(f"  {u}: {ua[u]} -> {ub[u]} ({growth_of[u]:.2f}x)")
    for u in UNITS:
        check(ua[u] > 0 and 3.8 <= growth_of[u] <= 4.2,
              f"{name}: {u}: {ua[u]} -> {ub[u]}, not 4x: the logs are not one log at two sizes")
    unit = max(growth_of[u] for u in UNITS)
    rows = []
    for sid, old, new, label in judged(sa, sb):
        if new[0] < FLOOR:
            continue
        mine = unit
        for start, u in OWN_UNIT_OF.items():
            if label.startswith(start):
                mine = max(unit, growth_of[u])
        growth = float("inf") if not old or not old[0] else new[0] / old[0] / mine
        rows.append((growth, sid, old, new, label, mine))
    rows.sort(key=lambda r: r[0], reverse=True)
    for growth, sid, old, new, label, mine in rows:
        if growth <= MAX_GROWTH:
            break
        was = f"{old[0]} steps in {old[1]} runs" if old else "not run"
        check(False, f"{name}: statement #{sid} grew {growth:.2f}x per unit ({mine:.2f}x the units; "
              f"at most {MAX_GROWTH}): small log {was}, {name} log {new[0]} steps in {new[1]} "
              f"runs: {label}")
    print(f"  {len(rows)} statements of {FLOOR} steps or more on the {name} log; the five that "
          f"grew most per unit ({unit:.2f}x the units):")
    for growth, sid, old, new, label, mine in rows[:5]:
        print(f"  {growth:5.2f}x  {old[0] if old else 0:>10} -> {new[0]:>10} steps  #{sid} "
              f"{label[:100]}")
    check(len(rows) > 50, f"{name}: {len(rows)} statements judged (> 50)")


if __name__ == "__main__":
    sys.exit(main())
