#!/usr/bin/env python3
"""A deadlock wait's own transaction on a whole-second log (issue 34,
decide/waittx.c): samples/deadlock-holds and deadlock-holds-stmtall (two
code paths deadlock round after round, every statement and BEGIN logged)
with their stderr log's milliseconds cut off, read with %t, as
tools/compare_reports.sh makes its "-log-t" cases.

The log's prefix has %x: each line of a deadlock wait ("detected deadlock
while waiting ...") carries the waiting transaction's own xid. Every such
wait must be linked (lock_waits.waiter_tx) to the transaction of that xid.
On 5120a43 the second deadlock wait of samples/deadlock-holds took the
session's transaction open at its derived start, the first instant of its
second (xid 732, committed, instead of 734, aborted by the deadlock).

Usage: check_seconds_deadlock_waits.py LOCKSPAN SAMPLE_DIR
"""
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

MS = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\.\d{3}")


def main():
    lockspan, sample = sys.argv[1], sys.argv[2]
    prefix = open(os.path.join(sample, "prefix.txt")).read().rstrip("\n")
    fields = prefix.split()
    if "%m" not in prefix or "%x" not in fields:
        sys.exit("check_seconds_deadlock_waits: %s's prefix has no %%m or %%x" % sample)
    # the time takes two words with %t and its zone ("2026-12-06 14:17:21 UTC")
    xid_at = fields.index("%x") + 2
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "postgresql-t.log")
        with open(os.path.join(sample, "postgresql.log"), encoding="utf-8") as f, \
                open(log, "w", encoding="utf-8") as out:
            for line in f:
                line = MS.sub(r"\1", line)
                lines.append(line)
                out.write(line)
        db_path = os.path.join(tmp, "s.db")
        subprocess.run([lockspan, "analyze", "-q", "--db", db_path, "--prefix",
                        prefix.replace("%m", "%t"), "-o", os.path.join(tmp, "r.json"), log],
                       check=True)
        db = sqlite3.connect(db_path)
        waits = db.execute(
            "SELECT w.line, t.xid FROM lock_waits w JOIN wait_links l USING (wait_id)"
            " LEFT JOIN transactions t ON t.tx_id = l.waiter_tx"
            " WHERE w.outcome = 'deadlock' ORDER BY w.line").fetchall()
        db.close()
    good = 0
    for line, xid in waits:
        words = lines[line - 1].split()
        want = int(words[xid_at]) if words[xid_at].isdigit() else None
        if want is not None and xid == want:
            good += 1
        else:
            print("line %d: waiter's transaction xid %s, the line's %%x %s" % (line, xid, want))
    name = os.path.basename(sample.rstrip("/"))
    print("%s: %d of %d deadlock waits on %%t linked to their own xid's transaction"
          % (name, good, len(waits)))
    check(good == len(waits) and len(waits) > 0,
          "%s: deadlock waits linked to their own xid's transaction: %d of %d"
          % (name, good, len(waits)))
    return report()


if __name__ == "__main__":
    sys.exit(main())
