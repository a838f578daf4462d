#!/usr/bin/env python3
"""Transactions cut at ingest (tx_cuts, issue 38) against the transactions
pass reading every statement, on real logs of samples/ (made by the
scripts beside them against a real PostgreSQL server).

For each case, a store analyzed as usual, then a copy of it made to read
its statements (meta tx_cuts set 'incomplete', correlation run again with
`lockspan report`):
  - every transaction the statement path stored has its tx_cuts row (by
    first statement) with the same last statement, session, pid, xid,
    vxid, times, end, outcome, count and sums (an unfinished cut ended as
    the pass ends it: at its session's disconnection, else its last
    statement);
  - the JSON reports of both stores are the same byte for byte, and so
    are their transactions and holds.
The rotation sample is also ingested one file per run, in log order: a
session's transaction open at a file's end is cut across runs.

Usage: check_txcuts.py LOCKSPAN SAMPLES_DIR
"""
import gzip
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

END = {1: "statement", 2: "statement start", 3: "commit", 4: "commit start",
       5: "rollback", 6: "rollback start"}
GENERATED = "2026-12-02T00:00:00Z"


def cuts_match(db, tag):
    """Every stored transaction against its cut; returns how many."""
    cuts = {r[0]: r for r in db.execute(
        "SELECT c.first_stmt, c.last_stmt, c.session_id, c.pid, c.xid, c.vxid, c.explicit,"
        " c.closed, c.end_kind, c.start_ts, c.end_ts, c.statements, c.sql_ms, c.idle_ms,"
        " c.max_idle_ms, c.commit_ms, s.end_ts FROM tx_cuts c"
        " LEFT JOIN sessions s USING (session_id)")}
    n = bad = 0
    for t in db.execute("SELECT first_stmt, last_stmt, session_id, pid, xid, vxid, explicit,"
                        " start_ts, start_known, end_ts, end_known, outcome, statements, sql_ms,"
                        " idle_ms, max_idle_ms, commit_ms FROM transactions"):
        n += 1
        c = cuts.get(t[0])
        if c is None:
            bad += 1
            if bad <= 5:
                print(f"  {tag}: no cut for transaction {t}")
            continue
        if c[7]:
            end_ts, known = c[10], END[c[8]]
            outcome = "rollback" if c[8] in (5, 6) else "commit"
        elif c[16] is not None:
            end_ts, known, outcome = c[16], "disconnection", "rollback"
        else:
            end_ts, known, outcome = c[10], "last statement", "open"
        want = (c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[9],
                "BEGIN" if c[6] else "statement", end_ts, known, outcome, c[11], c[12],
                c[13], c[14], c[15])
        got = list(t)
        if got[11] == "aborted":  # an error before its ROLLBACK: link_errors_sql's
            got[11] = "rollback"
        if tuple(got) != want:
            bad += 1
            if bad <= 5:
                print(f"  {tag}: transaction {tuple(got)}\n  {tag}: cut         {want}")
    check(bad == 0, f"{tag}: {bad} of {n} transactions differ from their cuts")
    return n


def table(db, sql):
    return db.execute(sql).fetchall()


def run_case(lockspan, tmp, tag, prefix, inputs, runs=None):
    db_path = os.path.join(tmp, tag + ".db")
    out = os.path.join(tmp, tag + ".json")
    pre = ["--prefix", prefix] if prefix else []
    common = ["--format", "json", "--top", "1000", "--generated-at", GENERATED]
    if runs:  # one ingest per file, then the report
        for f in runs:
            subprocess.run([lockspan, "ingest", "-q", "--db", db_path] + pre + [f], check=True)
        subprocess.run([lockspan, "report", "-q", "--db", db_path, "-o", out] + common,
                       check=True)
    else:
        subprocess.run([lockspan, "analyze", "-q", "--db", db_path, "-o", out] + pre + common
                       + inputs, check=True)
    db = sqlite3.connect(db_path)
    state = db.execute("SELECT value FROM meta WHERE key = 'tx_cuts'").fetchone()
    check(state == ("complete",), f"{tag}: tx_cuts complete ({state})")
    spans = db.execute("SELECT count(*) FROM spans").fetchone()[0]
    db.close()

    # The same store, its statements read by the pass.
    old_path = os.path.join(tmp, tag + "-statements.db")
    old_out = os.path.join(tmp, tag + "-statements.json")
    shutil.copy(db_path, old_path)
    db = sqlite3.connect(old_path)
    db.execute("UPDATE meta SET value = 'incomplete' WHERE key = 'tx_cuts'")
    db.execute("DELETE FROM meta WHERE key = 'correlated'")
    db.commit()
    db.close()
    subprocess.run([lockspan, "report", "-q", "--db", old_path, "-o", old_out] + common,
                   check=True)
    old = sqlite3.connect(old_path)
    new = sqlite3.connect(db_path)
    if spans == 0:  # a trace's statements come after ingest, uncut
        n = cuts_match(old, tag)
        check(n > 0, f"{tag}: transactions stored ({n})")
    check(open(out, "rb").read() == open(old_out, "rb").read(),
          f"{tag}: the report from the cuts is the report from the statements")
    for what, sql in (("transactions", "SELECT * FROM transactions ORDER BY tx_id"),
                      ("holds", "SELECT * FROM hold_final ORDER BY hold_id")):
        check(table(new, sql) == table(old, sql), f"{tag}: the same {what}")


def first_line(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", errors="replace") as f:
        return f.readline()


def main():
    lockspan, samples = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("correlation", "correlation-stmtall", "basic", "hidden", "rotation"):
            d = os.path.join(samples, name)
            prefix = open(os.path.join(d, "prefix.txt")).read().rstrip("\n")
            run_case(lockspan, tmp, name, prefix, [d])
        d = os.path.join(samples, "correlation")
        run_case(lockspan, tmp, "correlation-csv", None, [os.path.join(d, "postgresql.csv")])
        run_case(lockspan, tmp, "correlation-json", None, [os.path.join(d, "postgresql.json")])
        d = os.path.join(samples, "rotation")
        logs = sorted((f for f in os.listdir(d) if ".log" in f),
                      key=lambda f: first_line(os.path.join(d, f)))
        run_case(lockspan, tmp, "rotation-runs",
                 open(os.path.join(d, "prefix.txt")).read().rstrip("\n"), None,
                 runs=[os.path.join(d, f) for f in logs])
    return report()


if __name__ == "__main__":
    sys.exit(main())
