#!/usr/bin/env python3
"""Logs whose lines can be read more than one way, read as the server wrote
them (ingest only, no option):

- Heroku logplex (tests/e2e/data/logplex.gz, pgBadger's own fixture, origin
  in data/README.md): each DETAIL, CONTEXT and STATEMENT line is a numbered
  piece of its message whose text starts with the prefix
  ' sql_error_code = %e ' (a space first, as a piece cut for length does);
  read as the records' secondary lines, the fixture's deadlock and the
  holders its waits name come out. The counts below are the fixture's, read
  by hand: 10 messages; 5 lock lines (pid 4882 waiting, holder 4821, queue
  4886,4882; 4849 detected deadlock, holder 4821; 4821, 4882 and 4886
  acquired, with no holder in the message); one deadlock of three processes
  (4849 -> 4821 -> 4796 -> 4849, victim 4849); the log drain's multi-line
  statement of pid 5925 (its lines without the TAB) as one statement.

Usage: check_forged.py LOCKSPAN REPO_DIR
"""
import os
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report


def ingest(ls, tmp, name, *paths):
    db = os.path.join(tmp, name + ".db")
    if os.path.exists(db):
        os.remove(db)
    r = subprocess.run([ls, "ingest", "--db", db] + list(paths), capture_output=True, text=True,
                       env=dict(os.environ, TZ="UTC"))
    return r, sqlite3.connect(db) if r.returncode == 0 else None


def logplex(ls, tmp, repo):
    r, db = ingest(ls, tmp, "logplex", os.path.join(repo, "tests", "e2e", "data", "logplex.gz"))
    check(db is not None, "logplex: ingested: " + r.stderr[-300:])
    if db is None:
        return
    check("inferred log_line_prefix ' sql_error_code = %e '" in r.stderr,
          "logplex: prefix inferred: " + r.stderr[-300:])
    check("ingested 1 files, 36 lines, 10 records" in r.stderr and " 0 unparsable lines" in r.stderr,
          "logplex: 10 records, nothing unparsable: " + r.stderr[-300:])
    events = sorted(db.execute("SELECT pid, phase, holders, queue FROM lock_events"))
    check(events == [(4821, "acquired", None, None), (4849, "deadlock", "4821", "4886,4882"),
                     (4882, "acquired", None, None), (4882, "waiting", "4821", "4886,4882"),
                     (4886, "acquired", None, None)],
          f"logplex: lock events {events}")
    dl = db.execute("SELECT victim_pid FROM deadlocks").fetchall()
    check(dl == [(4849,)], f"logplex: one deadlock, victim 4849: {dl}")
    edges = db.execute("SELECT waiter_pid, blocker_pid, target FROM deadlock_edges ORDER BY seq")
    edges = edges.fetchall()
    check(edges == [(4849, 4821, "transaction 259635360"), (4821, 4796, "transaction 259635221"),
                    (4796, 4849, "transaction 259635423")],
          f"logplex: the deadlock's cycle: {edges}")
    procs = sorted(p for (p,) in db.execute("SELECT pid FROM deadlock_procs"))
    check(procs == [4796, 4821, 4849], f"logplex: the deadlock's statements: {procs}")
    stmt = db.execute("SELECT text FROM statements WHERE pid = 5925").fetchall()
    check(len(stmt) == 1 and stmt[0][0].startswith('UPDATE "checkers" SET redundant_missions_count'
                                                   ' =\n        (\n          select COUNT(id)'),
          f"logplex: the drain's multi-line statement: {stmt}")


def main():
    ls, repo = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        logplex(ls, tmp, repo)
    return report()


if __name__ == "__main__":
    sys.exit(main())
