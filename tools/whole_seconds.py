#!/usr/bin/env python3
"""How well does lockspan link waits when the log has whole-second times?

Usage: tools/whole_seconds.py LOCKSPAN LOG [WORKDIR]

LOG is a real PostgreSQL stderr log written with the prefix
'%m [%p] %q%u@%d/%a %c %l %v %x %e ' (bench/pgbench_log.sh's). The script
writes it again as the same server would have with '%t [%p] %q%u@%d/%a '
(each line's milliseconds and its %c %l %v %x %e fields cut; nothing else
changes, so every line keeps its number), analyzes both, and prints, per
kind of wait, the share of waits whose links are the same in both: the
holder's pid, and the holder's, blocker's, root's and waiter's
transactions (each named by the line of its first statement). The
millisecond reading, with xids, is the reference.

A measurement, not a test: tests/e2e/check_crowd.py holds two excerpts,
written again by to_whole_seconds() here, to full agreement. Standard
library only.
"""
import gzip
import os
import re
import sqlite3
import subprocess
import sys

PREFIX_MS = "%m [%p] %q%u@%d/%a %c %l %v %x %e "
PREFIX_T = "%t [%p] %q%u@%d/%a "
HEAD = re.compile(rb"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\.\d{3} (\S+ \[\d+\] )(.*)$", re.S)
SESSION = re.compile(rb"^(\S*@\S*/\S*) \S+ \d+ \S* \d+ \w{5} (.*)$", re.S)
LINKS = ("holder_pid", "holder_tx", "blocker_tx", "root_pid", "root_tx", "waiter_tx")


def to_whole_seconds(src, dst):
    """src (gzip when it ends in .gz) written to dst with whole seconds."""
    opener = gzip.open if src.endswith(".gz") else open
    with opener(src, "rb") as f, open(dst, "wb") as out:
        for line in f:
            m = HEAD.match(line)
            if m:
                rest = m.group(3)
                s = SESSION.match(rest)
                line = m.group(1) + b" " + m.group(2) + (s.group(1) + b" " + s.group(2) if s else rest)
            out.write(line)


def links(db):
    con = sqlite3.connect(db)
    first = dict(con.execute("SELECT t.tx_id, s.line FROM transactions t"
                             " JOIN stmt_rows s ON s.stmt_id = t.first_stmt"))
    waits = {}
    for r in con.execute("SELECT line, target_kind, holder_pid, holder_tx, blocker_tx, root_pid,"
                         " root_tx, waiter_tx FROM lock_waits"):
        waits[r[0]] = (r[1], r[2], first.get(r[3]), first.get(r[4]), r[5], first.get(r[6]),
                       first.get(r[7]))
    con.close()
    return waits


def analyze(ls, log, prefix, db):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    subprocess.run([ls, "analyze", "-q", "--prefix", prefix, "--db", db, "--format", "json",
                    "-o", db + ".json", log], check=True)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    ls, log = sys.argv[1], sys.argv[2]
    work = sys.argv[3] if len(sys.argv) > 3 else os.path.dirname(os.path.abspath(log))
    whole = os.path.join(work, os.path.basename(log) + ".whole-seconds.log")
    to_whole_seconds(log, whole)
    analyze(ls, log, PREFIX_MS, os.path.join(work, "ms.db"))
    analyze(ls, whole, PREFIX_T, os.path.join(work, "t.db"))
    ms, t = links(os.path.join(work, "ms.db")), links(os.path.join(work, "t.db"))
    common = sorted(set(ms) & set(t))
    print(f"waits: {len(ms)} with milliseconds, {len(t)} with whole seconds, {len(common)} alike")
    for kind in ("transaction", "tuple", None):
        lines = [l for l in common if kind is None or ms[l][0] == kind]
        same = [sum(ms[l][i + 1] == t[l][i + 1] for l in lines) for i in range(len(LINKS))]
        print(f"  {kind or 'all'} ({len(lines)}): " +
              ", ".join(f"{n} {100 * s / max(1, len(lines)):.1f}%" for n, s in zip(LINKS, same)))


if __name__ == "__main__":
    main()
