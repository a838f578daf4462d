#!/usr/bin/env python3
"""A parse or bind line does not take a row lock: only the statement's
execution does (issue 38, transactions.c lock_row_ours).

tests/e2e/data/pgbench-bind-victim.log.gz is a whole window of a real
pgbench log (log_min_duration_statement = 0, so the extended protocol's
parse, bind and execute lines are all logged). pid 8656 (bench-extended,
xid 1697) parses and binds `UPDATE pgbench_branches ... WHERE bid = 2` at
07:12:58.751, waits for the transaction of pid 8658 (1682), which has the
row, and dies in a deadlock at 58.801: its UPDATE never ran, so it never
held bid=2. The row's holds are those of pids 7631, 7640 and 8658, whose
UPDATEs executed (8658's from the end of its execute line, 58.748). Taken
as a lock statement, 8656's bind line once made it a hold of bid=2 from
58.751 to 58.802, and twelve other bind lines made holds too (mutation
tx38-3 in docs/mutations.md; the 256 MiB bench report differed).

tests/e2e/data/otel-bind-40001.log is lines 859-938 of
samples/blind-otel/postgresql.log, whole (a Node service through
node-postgres, log_min_duration_statement = 0): pid 8302 (/reprice,
REPEATABLE READ) updates products SKU-1 at 05:52:02.611 and commits at
02.636; pid 8313 (/reprice too) binds its UPDATE of SKU-1 at 02.619 and
fails with 40001 at 02.636, when 8302 commits. The failed UPDATE has no
execute line (no duration is written for a statement that failed), only
its bind line with the parameters, then the ERROR (issue 34): it is the
failed statement of 8313's transaction, it acquired nothing (no hold), and
it queued for the row behind 8302's hold from its bind line to the error,
17 ms, below deadlock_timeout (a hidden wait); the row is then a hot row
of the report though no wait of it was logged.

Usage: check_bind_holds.py LOCKSPAN DATA_DIR
"""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

PREFIX_M = "%m [%p] %q%u@%d/%a %c %l %v %x %e "
VICTIM_PID = 8656
# the pids whose UPDATE of bid=2 executed in the window, and 8658's start
BID2_HOLDERS = {7631, 7640, 8658}
HOLDER_PID, HOLDER_START = 8658, "2026-12-06T07:12:58.748000Z"
PREFIX_OTEL = "%m [%p] %q%u@%d/%a "
OTEL_WAITER, OTEL_HOLDER = 8313, 8302
# 8313's bind line (its UPDATE's start) and its error, 8302's COMMIT
OTEL_BIND, OTEL_ERROR = "2026-12-06T05:52:02.619Z", "2026-12-06T05:52:02.636Z"
# stmt_rows.verb of a parse and a bind line (LS_VERB_PARSE, LS_VERB_BIND)
VERB_PARSE, VERB_BIND = 2, 1


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check_bind_holds.py LOCKSPAN DATA_DIR")
    lockspan, data = os.path.abspath(sys.argv[1]), sys.argv[2]
    with tempfile.TemporaryDirectory(prefix="check_bind_holds.") as tmp:
        db, js = os.path.join(tmp, "bind.db"), os.path.join(tmp, "bind.json")
        r = subprocess.run([lockspan, "analyze", "-q", "--db", db, "--prefix", PREFIX_M,
                            "-o", js, os.path.join(data, "pgbench-bind-victim.log.gz")],
                           capture_output=True, text=True)
        check(r.returncode == 0, "analyze exits 0 (%s)" % r.stderr.strip()[:300])
        if r.returncode != 0:
            sys.exit(report())
        with open(js) as f:
            rep = json.load(f)
        con = sqlite3.connect(db)
        victim = con.execute("SELECT count(*) FROM holds WHERE pid = ?", (VICTIM_PID,)).fetchone()[0]
        binds = con.execute("SELECT count(*) FROM holds h JOIN stmt_rows r ON r.stmt_id = h.lock_stmt"
                            " WHERE r.verb IN (?, ?)", (VERB_PARSE, VERB_BIND)).fetchone()[0]
        con.close()
    check(victim == 0, "pid %d, whose UPDATE was only bound, holds no row (%d holds)"
          % (VICTIM_PID, victim))
    check(binds == 0, "no hold begins at a parse or bind line (%d do)" % binds)
    row = [h for h in rep["hot_rows"]
           if h["relation"] == "pgbench_branches" and h["row_key"] == "bid=2"]
    check(len(row) == 1, "bid=2 is a hot row of the report")
    holds = row[0]["timeline"]["holds"] if row else []
    pids = {h["pid"] for h in holds}
    check(pids == BID2_HOLDERS, "bid=2's holds are those of %s (%s)" % (sorted(BID2_HOLDERS),
                                                                     sorted(pids)))
    starts = [h["start"] for h in holds if h["pid"] == HOLDER_PID]
    check(starts == [HOLDER_START], "pid %d's hold of bid=2 starts at %s, the end of its execute"
          " line (%s)" % (HOLDER_PID, HOLDER_START, starts))
    otel(lockspan, data)
    sys.exit(report())


def otel(lockspan, data):
    """A statement known only from its bind line, ended by 40001."""
    with tempfile.TemporaryDirectory(prefix="check_bind_holds.") as tmp:
        db, js = os.path.join(tmp, "otel.db"), os.path.join(tmp, "otel.json")
        r = subprocess.run([lockspan, "analyze", "-q", "--db", db, "--prefix", PREFIX_OTEL,
                            "-o", js, os.path.join(data, "otel-bind-40001.log")],
                           capture_output=True, text=True)
        check(r.returncode == 0, "analyze exits 0 (%s)" % r.stderr.strip()[:300])
        if r.returncode != 0:
            return
        with open(js) as f:
            rep = json.load(f)
        con = sqlite3.connect(db)
        held = con.execute("SELECT count(*) FROM holds WHERE pid = ?",
                           (OTEL_WAITER,)).fetchone()[0]
        waits = con.execute(
            "SELECT q.kind, q.wait_ms, h.pid, s.verb FROM row_waits q"
            " JOIN rows r ON r.row_id = q.row_id JOIN holds h ON h.hold_id = q.behind_hold"
            " JOIN stmt_rows s ON s.stmt_id = q.stmt_id"
            " WHERE q.pid = ? AND r.relation = 'products' AND r.row_key = 'sku=SKU-1'",
            (OTEL_WAITER,)).fetchall()
        con.close()
    check(held == 0, "pid %d, whose UPDATE failed with 40001, holds no row (%d holds)"
          % (OTEL_WAITER, held))
    check(waits == [("inferred", 17.0, OTEL_HOLDER, VERB_BIND)],
          "pid %d's failed UPDATE, known from its bind line, queued for products SKU-1"
          " behind pid %d's hold from %s to its error at %s, 17 ms, hidden (%s)"
          % (OTEL_WAITER, OTEL_HOLDER, OTEL_BIND, OTEL_ERROR, waits))
    row = [h for h in rep["hot_rows"]
           if h["relation"] == "products" and h["row_key"] == "sku=SKU-1"]
    check(len(row) == 1 and row[0]["waits"] == 0 and row[0]["hidden_wait_ms"] == 17.0,
          "products SKU-1, whose only waiting is hidden, is a hot row of the report"
          " (%s)" % [(h["waits"], h["hidden_wait_ms"]) for h in row])


if __name__ == "__main__":
    main()
