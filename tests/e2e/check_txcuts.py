#!/usr/bin/env python3
"""Transactions cut at ingest (tx_cuts, issue 38) against the transactions
pass reading every statement, on real logs of samples/ (made by the
scripts beside them against a real PostgreSQL server).

For each case, a store ingested and reported as usual, and a copy of it
as ingested made to read its statements (meta tx_cuts set 'incomplete'):
  - every transaction the statement path stored has its tx_cuts row (by
    first statement, in a copy of the store before correlation) with the
    same last statement, session, pid, xid, vxid, times, end, outcome,
    count and sums (an unfinished cut ended as the pass ends it: at its
    session's disconnection, else its last statement);
  - the JSON reports of both stores are the same byte for byte, and so
    are their transactions and holds;
  - the correlation emptied the cuts and marked them consumed: a
    transaction is stored once, in transactions (issue 38);
  - the report is also the same when the pass reads the cuts without
    ingest's row keys (tx_keys, schema 18: meta tx_keys 'incomplete'), and
    for a store of schema 17 upgraded (ingested into after, or not);
  - the report of the store correlated again (its cuts and keys emptied by
    the first correlation) is the first one;
  - each correlated store keeps no index that only the passes read
    (statements_session, lock_events_pid, transactions_session_stmt: the
    report reads none) and has no free page (auto_vacuum incremental:
    issue 38, the analyzed store under 0.25 x the log).
blind-ts and busy-row have rows that statements queued for only below
deadlock_timeout (issue 34, quiet.c, made from the cuts and keys, or from
the statements when the store has none): their number or keys are checked
first, so that the invariant covers them.
The rotation sample is also ingested one file per run, in log order: a
session's transaction open at a file's end is cut across runs; and in two
steps, the second ingesting into a store whose cuts were consumed,
whose report must be that of the same ingests without the correlation
between them.

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
        " c.max_idle_ms, c.commit_ms, s.end_ts FROM cut.tx_cuts c"
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


def quiet_rows(path):
    """The rows made from statements queued below deadlock_timeout."""
    db = sqlite3.connect(path)
    rows = sorted(f"{r[0]} {r[1]}" for r in db.execute(
        "SELECT relation, row_key FROM row_keys"
        " WHERE evidence = 'statements queued below deadlock_timeout'"))
    db.close()
    return rows


def run_case(lockspan, tmp, tag, prefix, inputs, runs=None, quiet=None):
    db_path = os.path.join(tmp, tag + ".db")
    out = os.path.join(tmp, tag + ".json")
    pre = ["--prefix", prefix] if prefix else []
    common = ["--format", "json", "--top", "1000", "--generated-at", GENERATED]
    for f in runs or [inputs]:  # one ingest per file, or one of them all
        subprocess.run([lockspan, "ingest", "-q", "--db", db_path] + pre
                       + (f if isinstance(f, list) else [f]), check=True)
    db = sqlite3.connect(db_path)
    state = db.execute("SELECT value FROM meta WHERE key = 'tx_cuts'").fetchone()
    check(state == ("complete",), f"{tag}: tx_cuts complete ({state})")
    state = db.execute("SELECT value FROM meta WHERE key = 'tx_keys'").fetchone()
    check(state == ("complete",), f"{tag}: tx_keys complete ({state})")
    spans = db.execute("SELECT count(*) FROM spans").fetchone()[0]
    db.close()
    # The cuts as ingest left them: the correlation empties them.
    cuts_path = os.path.join(tmp, tag + "-cuts.db")
    shutil.copy(db_path, cuts_path)
    subprocess.run([lockspan, "report", "-q", "--db", db_path, "-o", out] + common, check=True)
    if quiet is not None:  # the case has such rows (else the checks below say little)
        got = quiet_rows(db_path)
        if isinstance(quiet, int):
            check(len(got) == quiet, f"{tag}: {quiet} rows queued for below deadlock_timeout"
                                     f" ({len(got)})")
        else:
            check(all(k in got for k in quiet),
                  f"{tag}: rows queued for below deadlock_timeout {quiet} ({got})")

    # The same store, its statements read by the pass.
    old_path = os.path.join(tmp, tag + "-statements.db")
    old_out = os.path.join(tmp, tag + "-statements.json")
    shutil.copy(cuts_path, old_path)
    db = sqlite3.connect(old_path)
    db.execute("UPDATE meta SET value = 'incomplete' WHERE key = 'tx_cuts'")
    db.commit()
    db.close()
    subprocess.run([lockspan, "report", "-q", "--db", old_path, "-o", old_out] + common,
                   check=True)
    # The cuts read without ingest's row keys (tx_keys, schema 18): the
    # pass scans the statements of the texts that may lock a hot row, as
    # in a store ingested before schema 18.
    nokeys_path = os.path.join(tmp, tag + "-nokeys.db")
    nokeys_out = os.path.join(tmp, tag + "-nokeys.json")
    shutil.copy(cuts_path, nokeys_path)
    db = sqlite3.connect(nokeys_path)
    db.execute("UPDATE meta SET value = 'incomplete' WHERE key = 'tx_keys'")
    db.commit()
    db.close()
    subprocess.run([lockspan, "report", "-q", "--db", nokeys_path, "-o", nokeys_out] + common,
                   check=True)
    check(open(out, "rb").read() == open(nokeys_out, "rb").read(),
          f"{tag}: the report from the row keys is the report from the statements' texts")
    old = sqlite3.connect(old_path)
    new = sqlite3.connect(db_path)
    if spans == 0:  # a trace's statements come after ingest, uncut
        old.execute("ATTACH ? AS cut", (cuts_path,))
        n = cuts_match(old, tag)
        check(n > 0, f"{tag}: transactions stored ({n})")
    check(open(out, "rb").read() == open(old_out, "rb").read(),
          f"{tag}: the report from the cuts is the report from the statements")
    # every column but cut_shape, which only the cuts' path knows (the
    # shape of the cut a transaction was stored from, for the code paths)
    tx_cols = ("tx_id, session_id, pid, xid, vxid, explicit, start_ts, start_known, end_ts,"
               " end_known, outcome, first_stmt, last_stmt, statements, sql_ms, idle_ms,"
               " max_idle_ms, commit_ms")
    for what, sql in (("transactions", f"SELECT {tx_cols} FROM transactions ORDER BY tx_id"),
                      ("holds", "SELECT * FROM hold_final ORDER BY hold_id")):
        check(table(new, sql) == table(old, sql), f"{tag}: the same {what}")
    # A transaction is stored once: the correlation emptied the cuts and
    # marked them consumed (issue 38).
    left = new.execute("SELECT (SELECT count(*) FROM tx_cuts),"
                       " (SELECT value FROM meta WHERE key = 'tx_cuts'),"
                       " (SELECT count(*) FROM tx_keys)").fetchone()
    check(left == (0, "consumed", 0), f"{tag}: the cuts and keys emptied once read ({left})")
    new.close()
    old.close()
    check_pass_indexes_dropped(db_path, tag)
    # Correlated again (a revision bump; a nightly store's next report
    # after an ingest): its cuts and keys were emptied by the first
    # correlation, and the rows statements queued for below
    # deadlock_timeout (quiet.c) are found from the statements (issue 34).
    db = sqlite3.connect(db_path)
    db.execute("UPDATE meta SET value = 'stale' WHERE key = 'correlated'")
    db.commit()
    db.close()
    again_out = os.path.join(tmp, tag + "-again.json")
    subprocess.run([lockspan, "report", "-q", "--db", db_path, "-o", again_out] + common,
                   check=True)
    check(open(out, "rb").read() == open(again_out, "rb").read(),
          f"{tag}: the report of the store correlated again is the first one")
    check_pass_indexes_dropped(db_path, tag + " correlated again")


PASS_ONLY = ("lock_events_pid", "statements_session", "transactions_session_stmt")


def pass_indexes(path):
    """The indexes only correlation's passes read that store `path` has,
    its free pages and its auto_vacuum mode."""
    db = sqlite3.connect(path)
    names = tuple(r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND name IN (?, ?, ?)"
        " ORDER BY name", PASS_ONLY))
    free = db.execute("PRAGMA freelist_count").fetchone()[0]
    vacuum = db.execute("PRAGMA auto_vacuum").fetchone()[0]
    page = db.execute("PRAGMA page_size").fetchone()[0]
    db.close()
    return names, free, vacuum, page


def check_pass_indexes_dropped(path, tag):
    """Issue 38: the correlated store keeps no index that only the passes
    read (the report reads none of them) and gives their pages back: no
    free page left, auto_vacuum incremental (2) in a store made new, its
    pages of 16 KiB still (store.c)."""
    got = pass_indexes(path)
    check(got == ((), 0, 2, 16384), f"{tag}: no index only the passes read, no free page,"
                                    f" auto_vacuum incremental, 16 KiB pages ({got})")


def as_schema17(path):
    """Store `path` as a lockspan of schema 17 left it: no tx_keys, no
    meta 'tx_keys', no first statement's position in tx_cuts and
    transactions (schema 19)."""
    db = sqlite3.connect(path)
    db.execute("DROP TABLE tx_keys")
    db.execute("ALTER TABLE tx_cuts DROP COLUMN first_pos")
    db.execute("ALTER TABLE transactions DROP COLUMN first_pos")
    db.execute("DELETE FROM meta WHERE key = 'tx_keys'")
    db.execute("PRAGMA user_version = 17")
    db.commit()
    db.close()


def upgraded(lockspan, tmp, prefix, logs):
    """A store of schema 17 (cut, without row keys) upgraded to 18: the
    transactions pass reads the statements' texts, and an ingest into it
    makes no row keys (they would miss the statements stored before);
    its reports are those of a store ingested by this lockspan."""
    common = ["--format", "json", "--top", "1000", "--generated-at", GENERATED]
    pre = ["--prefix", prefix]
    half = len(logs) // 2
    outs = {}
    for tag in ("whole", "upgraded", "upgraded-ingest"):
        db_path = os.path.join(tmp, f"schema17-{tag}.db")
        subprocess.run([lockspan, "ingest", "-q", "--db", db_path] + pre + logs[:half],
                       check=True)
        if tag == "upgraded-ingest":
            as_schema17(db_path)
        subprocess.run([lockspan, "ingest", "-q", "--db", db_path] + pre + logs[half:],
                       check=True)
        if tag == "upgraded":
            as_schema17(db_path)
        if tag != "upgraded":
            db = sqlite3.connect(db_path)
            state = db.execute("SELECT (SELECT value FROM meta WHERE key = 'tx_cuts'),"
                               " (SELECT value FROM meta WHERE key = 'tx_keys'),"
                               " (SELECT count(*) FROM tx_keys)").fetchone()
            db.close()
            want = ("complete", "complete") if tag == "whole" else ("complete", "incomplete")
            check(state[:2] == want and (state[2] > 0) == (tag == "whole"),
                  f"schema 17 {tag}: cuts and row keys {state}")
        outs[tag] = os.path.join(tmp, f"schema17-{tag}.json")
        subprocess.run([lockspan, "report", "-q", "--db", db_path, "-o", outs[tag]] + common,
                       check=True)
        db = sqlite3.connect(db_path)
        version = db.execute("PRAGMA user_version").fetchone()[0]
        db.close()
        check(version == 20, f"schema 17 {tag}: the store upgraded ({version})")
    whole = open(outs["whole"], "rb").read()
    check(open(outs["upgraded"], "rb").read() == whole,
          "schema 17: the report of a store upgraded is the one of a store of 19")
    check(open(outs["upgraded-ingest"], "rb").read() == whole,
          "schema 17: the report of a store upgraded and ingested into is the one of 19")


def ingest_after_report(lockspan, tmp, prefix, logs):
    """An ingest into a store correlated before (its cuts consumed): no cut
    is made, the next correlation reads the statements, and the report is
    the one of the same ingests with no correlation between them (whose
    cuts are whole)."""
    common = ["--format", "json", "--top", "1000", "--generated-at", GENERATED]
    pre = ["--prefix", prefix]
    db_path = os.path.join(tmp, "after-report.db")
    out = os.path.join(tmp, "after-report.json")
    whole = os.path.join(tmp, "after-report-whole.json")
    half = len(logs) // 2
    subprocess.run([lockspan, "analyze", "-q", "--db", db_path, "-o", os.devnull] + pre
                   + logs[:half], check=True)
    subprocess.run([lockspan, "ingest", "-q", "--db", db_path] + pre + logs[half:], check=True)
    db = sqlite3.connect(db_path)
    left = db.execute("SELECT (SELECT count(*) FROM tx_cuts),"
                      " (SELECT value FROM meta WHERE key = 'tx_cuts')").fetchone()
    db.close()
    check(left == (0, "incomplete"),
          f"after-report: no cut by an ingest after a correlation ({left})")
    # the ingest indexes again what the correlation dropped (its next
    # correlation probes them), the correlation drops them again
    got = pass_indexes(db_path)[0]
    check(got == ("lock_events_pid", "statements_session"),
          f"after-report: the ingest made ingest's indexes again ({got})")
    subprocess.run([lockspan, "report", "-q", "--db", db_path, "-o", out] + common, check=True)
    one = os.path.join(tmp, "whole.db")
    for part in (logs[:half], logs[half:]):
        subprocess.run([lockspan, "ingest", "-q", "--db", one] + pre + part, check=True)
    subprocess.run([lockspan, "report", "-q", "--db", one, "-o", whole] + common, check=True)
    check(open(out, "rb").read() == open(whole, "rb").read(),
          "after-report: the report of the files ingested before and after a correlation"
          " is the one of the same ingests without it (cut whole)")
    check_pass_indexes_dropped(db_path, "after-report")


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
        # Rows statements queued for only below deadlock_timeout (issue 34):
        # blind-ts (csvlog and traces: events id=2, page_counters
        # slug=home, seats id=4) and busy-row (38 of them).
        d = os.path.join(samples, "blind-ts")
        run_case(lockspan, tmp, "blind-ts", None,
                 [os.path.join(d, "postgresql.csv.gz"), os.path.join(d, "traces.otlp.jsonl.gz")],
                 quiet=("events id=2", "page_counters slug=home", "seats id=4"))
        d = os.path.join(samples, "busy-row")
        prefix = open(os.path.join(d, "prefix.txt")).read().rstrip("\n")
        run_case(lockspan, tmp, "busy-row", prefix, [os.path.join(d, "postgresql.log.xz")],
                 quiet=38)
        d = os.path.join(samples, "correlation")
        run_case(lockspan, tmp, "correlation-csv", None, [os.path.join(d, "postgresql.csv")])
        run_case(lockspan, tmp, "correlation-json", None, [os.path.join(d, "postgresql.json")])
        d = os.path.join(samples, "rotation")
        logs = sorted((f for f in os.listdir(d) if ".log" in f),
                      key=lambda f: first_line(os.path.join(d, f)))
        prefix = open(os.path.join(d, "prefix.txt")).read().rstrip("\n")
        run_case(lockspan, tmp, "rotation-runs", prefix, None,
                 runs=[os.path.join(d, f) for f in logs])
        ingest_after_report(lockspan, tmp, prefix,
                            [os.path.join(d, f) for f in logs if f.endswith(".log")])
        upgraded(lockspan, tmp, prefix, [os.path.join(d, f) for f in logs if f.endswith(".log")])
    return report()


if __name__ == "__main__":
    sys.exit(main())
