#!/usr/bin/env python3
"""Who held the row when a crowd waits for it: five excerpts of real
PostgreSQL 15 logs, tests/e2e/excerpts/ (bench/pgbench_log.sh with
LOCKSPAN_PGBENCH_CLIENTS=160, 2026-12-05: every line of the processes
named, between two of the log's lines, as the server wrote them).

Usage: check_crowd.py LOCKSPAN PROJECT_DIR

c160-woken-holders.log: pid 24425 updates two branch rows in its
transaction (xid 11819, its lines' %x) and commits at 12:10:06.704; in
that millisecond pid 23467's deadlock_timeout fires and its "still waiting
for ShareLock on transaction 11819" lists as holders the waiters the
commit woke (23411, 23426, ...: each granted the lock for an instant), no
longer 24425. The wait is for 24425's transaction: its blocker and holder
are 24425 and the transaction of xid 11819, not 23411 (which then held no
row: under lockspan's old rule 23411's transaction got a hold of 6.9 s of
a row it never had).

c160-queue-head.log: pid 23415 waits for the row bid=2 behind transaction
11355 of pid 24420 (12:10:04.039-.153), is woken by its end, finds the row
taken by a newcomer and waits again (from .163). Pid 24411 queued for the
tuple lock behind 23415 from .108; its message, stamped .159 between
23415's two waits, names 23415 as the tuple lock's holder. The row was held
by 24420's transaction (11355) through most of 24411's wait; 23415, still
waiting itself, held no row (under the old rule its transaction got a hold
of bid=2 of 9.5 s that overlapped 195 others').

c160-queue-head-next.log: pid 23443 queues for bid=2 (tuple, then
transaction waits) from 12:09:30.409; pid 23380 queues behind it for the
tuple from 12:09:31.012, logged at .063, while 23443 is between two of its
own waits (the tuple wait that ended at .048, the wait for transaction 5439
of pid 24443 from .075): the row went to 24443's transaction, which holds
it until .137; 23443 itself got it at .212. The holder of 23380's wait is
24443's transaction (5439), not 23443's (5044).

c160-t-same-second.log, from a log of the same workload with the prefix
'%t [%p]: user=%u,db=%d,app=%a ' (whole seconds, no xid, no session id):
pid 24075's transaction (BEGIN at 15:02:57) locks bid=3 and commits at
15:02:58; pid 24097's "still waiting for ShareLock on transaction 3938",
stamped 15:02:58, is for it, and 24075's next transaction, begun in the
same second after the message's line, holds nothing of bid=3 (under the
old rule, the transaction open at 15:02:58 was the next one, which got a
hold bounded by its start).

c160-extension.log: pid 24419's UPDATE of the account aid=703299 waits
for the extension of pgbench_accounts (relation 16391: new pages for the
crowd's new row versions) held by pid 24440 for 80 ms. That is not a wait
for the account row: it is keyed by its lock target, and nobody gets a hold
of aid=703299 from it (under the old rule the statement's key made it a
row wait, and 24440's transaction a hold of that account from its first
write to the relation).

c160-whole-second.log: the lines of six processes of the same log from its
first 4,200 (12:09:19-25). Three of them (23379, 23380, 23391) queue from
12:09:25.02 for the tuple lock of a branch row behind the queue head
23444, which waits for transaction 766 of 23399 until .082 and then for
801 of 23442: their messages, stamped .072-.077, are for 23399's
transaction. The check reads the excerpt as it is and as the same server
would have logged it with '%t [%p] %q%u@%d/%a ' (whole seconds, no
session id, vxid or xid: tools/whole_seconds.py cuts those fields from
each line) and asks the
same of both: every wait's holder, and its holder's, blocker's and
root's transactions (each named by the line of its first statement).
In whole seconds 23444's waits all begin in one second, so the one on at
a message is told by log position, not by derived start times (the old
rule took 23444's wait for 801, begun after the messages, as the one on,
and named 23442's transaction the holder).

pgbench-hot-hold.log.gz, from a log of bench/pgbench_log.sh (16 clients,
2026-12-05 11:54:45-47, its lines 47,000-66,000): the lines of four
processes, three of them queued behind 19066's 250 ms hold of a branch
row (hold_hot.sql) and the others after it. Each session runs about 190
statements a second, the same UPDATE dozens of times in one second. Read
with whole seconds as above, every wait for a transaction has the same
holder and the same waiter's transaction as with milliseconds: the
waiter's statement is the session's first logged after the wait's
message, found by log position among those begun around it (the old
rule took the last 32 by start time, all after it in that second, and
named a later run of the same UPDATE).

Each is checked against its own lines (the xid each process logged with
%x), with every hold it gives, and the holds of each row must not overlap.
"""
import os
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

PREFIX = "%m [%p] %q%u@%d/%a %c %l %v %x %e "
PREFIX_T = "%t [%p]: user=%u,db=%d,app=%a "


def xid_owners(path):
    """xid -> pid, from the %x field of every line (after '%v')."""
    owners = {}
    for line in open(path, encoding="utf-8"):
        f = line.split(" ")
        # date time zone [pid] user@db/app session line vxid xid sqlstate
        pid, xid = int(f[3].strip("[]")), int(f[8])
        if xid:
            owners.setdefault(xid, pid)
    return owners


def analyze(ls, tmp, path, prefix=PREFIX):
    db = os.path.join(tmp, os.path.basename(path) + ".db")
    r = subprocess.run([ls, "analyze", "-q", "--db", db, "--prefix", prefix, "--format", "json",
                        "-o", db + ".json", path], capture_output=True, text=True)
    check(r.returncode == 0, f"{path}: analyze exit 0 ({r.returncode}) {r.stderr[-300:]}")
    return sqlite3.connect(db)


def wait_at(db, pid, logged):
    """The wait of pid logged at hh:mm:ss.mmm: blocker, holder, holder's xid, holders."""
    return db.execute(
        "SELECT w.blocker_pid, w.holder_pid, t.xid, w.holders, w.target_kind FROM lock_waits w"
        " LEFT JOIN transactions t ON t.tx_id = w.holder_tx WHERE w.pid = ?"
        " AND strftime('%H:%M:%f', w.logged_ts / 1e6, 'unixepoch') = ?", (pid, logged)).fetchone()


def holds_do_not_overlap(db, name):
    rows = db.execute("SELECT r.row_key, h.start_ts, h.end_ts, t.xid FROM holds h"
                      " JOIN rows r USING (row_id) LEFT JOIN transactions t USING (tx_id)"
                      " ORDER BY h.row_id, h.start_ts").fetchall()
    for a, b in zip(rows, rows[1:]):
        if a[0] == b[0]:
            check(b[1] >= a[2] - 5000, f"{name}: holds of {a[0]} by xids {a[3]} and {b[3]}"
                  f" overlap by {(a[2] - b[1]) / 1000:.1f} ms")
    return rows


# name, excerpt, waiter, its message's time, lock kind, the first pid of
# DETAIL's holders, the queue head for a tuple wait (None: the blocker is
# the holder), the xid of the transaction the waiter waited for, and every
# hold (row, xid), by row and start.
WAITS = [
    ("woken holders", "c160-woken-holders.log", 23467, "12:10:06.704", "transaction", 23411,
     None, 11819, [("bid=2", 11819), ("bid=3", 11819)]),
    ("queue head", "c160-queue-head.log", 24411, "12:10:04.159", "tuple", 23415,
     23415, 11355, [("bid=2", 11355), ("bid=3", 11367)]),
    ("queue head next", "c160-queue-head-next.log", 23380, "12:09:31.063", "tuple", 23443,
     23443, 5439, [("bid=2", 5439), ("bid=2", 5044), ("bid=2", 5446)]),
]


def links_by_line(db, kind=None):
    """Every wait (by its first line; of one kind of lock if given) -> its
    holder pid and the first lines of its holder's, blocker's, root's and
    waiter's transactions."""
    first = "(SELECT s.line FROM transactions t JOIN stmt_rows s ON s.stmt_id = t.first_stmt" \
            " WHERE t.tx_id = w.{})"
    return {r[0]: r[1:] for r in db.execute(
        "SELECT w.line, w.holder_pid, " +
        ", ".join(first.format(c) for c in ("holder_tx", "blocker_tx", "root_tx", "waiter_tx")) +
        " FROM lock_waits w WHERE ?1 IS NULL OR w.target_kind = ?1", (kind,))}


def main():
    ls, root = sys.argv[1], sys.argv[2]
    sys.path.insert(0, os.path.join(root, "tools"))
    sys.dont_write_bytecode = True  # no __pycache__ left in the source tree
    from whole_seconds import to_whole_seconds  # pylint: disable=import-outside-toplevel
    ex = os.path.join(root, "tests", "e2e", "excerpts")
    with tempfile.TemporaryDirectory() as tmp:
        for name, file, waiter, logged, kind, listed, head, xid, held in WAITS:
            path = os.path.join(ex, file)
            owners = xid_owners(path)
            db = analyze(ls, tmp, path)
            w = wait_at(db, waiter, logged)
            check(w is not None, f"{name}: the wait of {waiter} logged at {logged}")
            holder = owners.get(xid)
            check(holder is not None, f"{name}: the log names the owner of xid {xid}")
            if w:
                check(w[4] == kind and w[3].split(",")[0] == str(listed),
                      f"{name}: a {w[4]} wait, holders as logged {w[3][:30]}")
                check(w[0] == (head or holder), f"{name}: blocker {w[0]}")
                check(w[1] == holder and w[2] == xid,
                      f"{name}: holder {w[1]} (xid {w[2]}), the owner of xid {xid} ({holder})")
            holds = holds_do_not_overlap(db, name)
            check([(h[0], h[3]) for h in holds] == held,
                  f"{name}: holds {[(h[0], h[3]) for h in holds]}, expected {held}")
            db.close()

        path = os.path.join(ex, "c160-t-same-second.log")
        db = analyze(ls, tmp, path, PREFIX_T)
        w = db.execute("SELECT w.holder_pid, s.line, strftime('%H:%M:%S', t.start_ts / 1e6,"
                       " 'unixepoch') FROM lock_waits w JOIN transactions t ON t.tx_id = w.holder_tx"
                       " JOIN stmt_rows s ON s.stmt_id = t.first_stmt"
                       " WHERE w.pid = 24097 AND w.target = 'transaction 3938'").fetchone()
        check(w == (24075, 1, "15:02:57"),
              f"same second: the wait for 3938 is for 24075's transaction begun at line 1 ({w})")
        holds = holds_do_not_overlap(db, "same second")
        check([(h[0], h[3]) for h in holds] == [("bid=3", None)],
              f"same second: one hold of bid=3 ({holds})")
        db.close()

        path = os.path.join(ex, "c160-whole-second.log")
        whole = os.path.join(tmp, "c160-whole-second-t.log")
        to_whole_seconds(path, whole)
        ms = links_by_line(analyze(ls, tmp, path))
        sec = links_by_line(analyze(ls, tmp, whole, "%t [%p] %q%u@%d/%a "))
        check(len(ms) == 15 and sorted(sec) == sorted(ms),
              f"whole seconds: the same 15 waits ({len(ms)}, {len(sec)})")
        for line in sorted(ms):
            check(sec.get(line, (None,) * 5)[:4] == ms[line][:4],
                  f"whole seconds: the wait logged at line {line}: holder pid, holder's,"
                  f" blocker's, root's transactions {sec.get(line)}, with milliseconds {ms[line]}")
        tuple_links = {ms.get(line, (None,) * 5)[:4] for line in (136, 139, 142)}
        link = ms.get(136, (None,) * 5)[:4]
        check(tuple_links == {link} and link[0] == 23399 and link[1] and link[3] == link[1],
              f"whole seconds: the tuple waiters' holder and root are 23399's transaction ({link})")

        path = os.path.join(ex, "pgbench-hot-hold.log.gz")
        whole = os.path.join(tmp, "pgbench-hot-hold-t.log")
        to_whole_seconds(path, whole)
        ms = links_by_line(analyze(ls, tmp, path), "transaction")
        sec = links_by_line(analyze(ls, tmp, whole, "%t [%p] %q%u@%d/%a "), "transaction")
        check(len(ms) == 19 and sorted(sec) == sorted(ms),
              f"hot hold: the same 19 waits for a transaction ({len(ms)}, {len(sec)})")
        for line in sorted(ms):
            check(sec.get(line) == ms[line],
                  f"hot hold: the wait logged at line {line}: holder pid, holder's, blocker's,"
                  f" root's, waiter's transactions {sec.get(line)}, with milliseconds {ms[line]}")
        known = sum(1 for v in ms.values() if v[4])
        check(known >= 12, f"hot hold: the waiter's transaction known for {known} of 19 waits")

        path = os.path.join(ex, "c160-extension.log")
        db = analyze(ls, tmp, path)
        rows = db.execute("SELECT w.pid, w.target_kind, r.row_key, r.evidence FROM lock_waits w"
                          " JOIN rows r USING (row_id)").fetchall()
        check(len(rows) == 1 and rows[0][:2] == (24419, "extend"),
              f"extension: one wait, 24419's for the extension ({rows})")
        check(rows and rows[0][2] == "extension of relation 16391 of database 16384" and
              rows[0][3] == "lock target", f"extension: keyed by its lock target ({rows})")
        holds = db.execute("SELECT h.pid, r.row_key FROM holds h JOIN rows r USING (row_id)"
                           " WHERE r.row_key LIKE 'aid=%'").fetchall()
        check(holds == [], f"extension: no hold of an account row ({holds})")
        db.close()
    return report()


if __name__ == "__main__":
    sys.exit(main())
