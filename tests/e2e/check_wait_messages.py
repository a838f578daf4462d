#!/usr/bin/env python3
"""Lock messages become waits the way PostgreSQL wrote them (issue 9).

tests/e2e/data/pgbench-tuple-rewait.log is a real pgbench client's tuple
wait ("still waiting", then "acquired" after 240.695 ms) and, 13 minutes
later on the same tuple, a deadlock its own check found ("detected deadlock
while waiting ... after 50.107 ms", with no "still waiting": PostgreSQL
writes one or the other). They are two waits of 240.695 ms and 50.107 ms.
The episode builder once took the deadlock message for the end of the
first wait and made one wait of 13 minutes (154 of the 1 GiB pgbench log's
waits; their hot rows' queueing and code-path shares with them).

The same with whole-second `%t` times (the excerpt's times cut to the
second), where the messages' "after X ms" still tells the waits apart.

And the same with the first wait's "acquired" lines stamped 60 ms late, as
a loaded machine stamps them (the backend reads the clock for "after X ms",
is descheduled, then stamps the line): the start that message implies falls
after the "still waiting" line (deadlock_timeout was 50 ms), and the wait
was once split in two (one wait too many in a CI run of the live pgbench
test). Nothing else of the process was logged between the two messages, so
they are one wait, and it lasted the 240.695 ms its "acquired" line says,
not 60 ms more: every message's "after X ms" is read before its line is
stamped, so the wait starts at the earliest start its messages imply and
ends X after it.

A tuple lock's holder is the first process queued for the row, itself
waiting for the transaction that has it. In pgbench-tuple-queue.log.gz (a
whole 2,500-line window of the same log) pid 15649 waits for the tuple lock
of branch bid=2 held by pid 15653, whose own wait for pid 15643's
transaction is too short to be logged and which then dies in a deadlock
without ever having the row. The wait is for 15643's hold (the statements
show it had the row then), and 15653 gets no hold of the row at all: it
once got one, "bounded by transaction start and first wait".

A chain does not go on through a wait for the very lock the server names
its process a holder of. In pgbench-deadlock-handoff.log.gz pid 3281 waits
for the tuple lock of branch bid=3 and the server names pid 3278 its holder
(49.553); 3278's "acquired" line for that tuple lock comes 2 ms later. The
chain once went on through 3278's wait to pid 3280, the queue's former head,
whose deadlock had rolled its transaction back: a root with no transaction
and no code path (a CI failure of the live pgbench test). 3278 holds the
tuple lock only while it waits for the row's transaction: the root is the
row's holder, pid 3285 (transaction 26909).

In pgbench-rollback-holder.log.gz pid 359 waits for the tuple lock of
branch bid=2 (tuple (6,46)) behind the queue head 355, which waits for the
transaction of pid 1376 (xid 31385), the row's holder. 1376 dies in a
deadlock and its ROLLBACK line is stamped at 39.050; 359's "still waiting"
line only at 39.052. The row's holder of 359's wait is 1376 all the same,
and its transaction then is the one it had open when the wait began (the
holder once had no transaction and no code path: a CI failure of the live
pgbench test).

Usage: check_wait_messages.py LOCKSPAN DATA_DIR
"""
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

PREFIX_M = "%m [%p] %q%u@%d/%a %c %l %v %x %e "
PREFIX_T = "%t [%p] %q%u@%d/%a %c %l %v %x %e "


def analyze(lockspan, log, prefix, tmp, name):
    """lockspan analyze into tmp/NAME.db and tmp/NAME.json; their paths."""
    db, js = os.path.join(tmp, name + ".db"), os.path.join(tmp, name + ".json")
    r = subprocess.run([lockspan, "analyze", "-q", "--db", db, "--prefix", prefix, "-o", js, log],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"{name}: analyze exits 0 ({r.stderr.strip()[:300]})")
    return db, js


def waits(lockspan, log, prefix, tmp, name):
    db, _ = analyze(lockspan, log, prefix, tmp, name)
    con = sqlite3.connect(db)
    rows = con.execute("SELECT outcome, waited_ms, (end_ts - start_ts) / 1000.0 FROM lock_waits"
                       " WHERE pid = 15645 AND target LIKE 'tuple (10,160) %'"
                       " ORDER BY start_ts").fetchall()
    con.close()
    return rows


def main():
    lockspan, data = sys.argv[1], sys.argv[2]
    src = os.path.join(data, "pgbench-tuple-rewait.log")
    with tempfile.TemporaryDirectory(prefix="lockspan-waitmsg.") as tmp:
        whole = os.path.join(tmp, "t.log")
        with open(src) as f, open(whole, "w") as out:
            for line in f:
                out.write(re.sub(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\.\d{3}", r"\1", line))
        for name, log, prefix, slack in (("%m", src, PREFIX_M, 2.0),
                                          ("%t", whole, PREFIX_T, 1000.0)):
            rows = waits(lockspan, log, prefix, tmp, name.strip("%"))
            check([r[0] for r in rows] == ["acquired", "deadlock"],
                  f"{name}: two waits, acquired then deadlock ({rows})")
            if len(rows) == 2:
                check(abs(rows[0][1] - 240.695) < 0.01 and abs(rows[1][1] - 50.107) < 0.01,
                      f"{name}: waited 240.695 and 50.107 ms ({rows})")
                check(all(r[2] <= r[1] + slack for r in rows),
                      f"{name}: neither lasts longer than its messages say ({rows})")
        late = os.path.join(tmp, "late.log")
        with open(src) as f, open(late, "w") as out:
            for line in f:
                out.write(line.replace("2026-12-04 01:09:19.548 ", "2026-12-04 01:09:19.608 "))
        rows = waits(lockspan, late, PREFIX_M, tmp, "late")
        check([(r[0], round(r[1], 3)) for r in rows] == [("acquired", 240.695), ("deadlock", 50.107)],
              f"acquired stamped 60 ms late: still two waits, acquired then deadlock ({rows})")
        check(rows and abs(rows[0][2] - 240.695) < 0.01,
              f"acquired stamped 60 ms late: the wait lasted its 240.695 ms, not 60 ms more ({rows[:1]})")
        # (lockspan reads the .gz excerpts as they are)
        db, js = analyze(lockspan, os.path.join(data, "pgbench-tuple-queue.log.gz"), PREFIX_M,
                         tmp, "queue")
        con = sqlite3.connect(db)
        w = con.execute("SELECT blocker_pid, holder_pid, round(waited_ms, 3) FROM lock_waits"
                        " WHERE pid = 15649 AND target LIKE 'tuple (6,170) %'").fetchall()
        con.close()
        check(w == [(15653, 15643, 122.939)],
              f"15649's wait: queued behind 15653, for 15643's hold ({w})")
        holds = {h["pid"]: h for h in json.load(open(js))["holds"]}
        check(15653 not in holds, f"no hold of 15653 ({holds.get(15653)})")
        h = holds.get(15643, {})
        check(h.get("start_evidence") == "end of the locking statement" and h.get("waits", 0) >= 7,
              f"15643's hold, from its UPDATE's end, waited for by 7 ({h})")

        db, js = analyze(lockspan, os.path.join(data, "pgbench-deadlock-handoff.log.gz"),
                         PREFIX_M, tmp, "handoff")
        con = sqlite3.connect(db)
        w = con.execute("SELECT w.blocker_pid, w.root_pid, w.root_xid, t.xid, w.chain_depth"
                        " FROM lock_waits w LEFT JOIN transactions t ON t.tx_id = w.root_tx"
                        " WHERE w.pid = 3281 AND w.target LIKE 'tuple (5,155) %'"
                        " AND w.logged_ts = (SELECT min(logged_ts) FROM lock_waits"
                        "  WHERE pid = 3281 AND logged_ts >= 1796365789553000)").fetchall()
        con.close()
        check(w == [(3278, 3285, 26909, 26909, 2)],
              f"3281's wait at 49.553: behind 3278, rooted at 3285's transaction 26909 ({w})")
        roots = [(x["root_pid"], x["root_code_path"]) for r in json.load(open(js))["hot_rows"]
                 for x in r["timeline"]["waits"]
                 if x["pid"] == 3281 and x["start"].startswith("2026-12-04T06:29:49.50")]
        check(roots == [(3285, "bench-extended")],
              f"the report's root of that wait, with its code path ({roots})")

        db, js = analyze(lockspan, os.path.join(data, "pgbench-rollback-holder.log.gz"),
                         PREFIX_M, tmp, "rollback")
        con = sqlite3.connect(db)
        w = con.execute("SELECT w.holder_pid, t.pid, t.xid, t.outcome FROM lock_waits w"
                        " LEFT JOIN transactions t ON t.tx_id = w.holder_tx"
                        " WHERE w.pid = 359 AND w.target LIKE 'tuple (6,46) %'").fetchall()
        con.close()
        check(w == [(1376, 1376, 31385, "aborted")],
              f"359's tuple wait: held by 1376's transaction 31385, rolled back ({w})")
        holders = [(x["holder_pid"], x["holder_code_path"]) for x in json.load(open(js))["waits"]
                   if x["pid"] == 359 and x["target"].startswith("tuple (6,46)")]
        check(holders == [(1376, "bench-extended")],
              f"the report's holder of that wait, with its code path ({holders})")
    return report()


if __name__ == "__main__":
    sys.exit(main())
