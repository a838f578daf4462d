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

- samples/forged (samples/forged.sh: a real PostgreSQL 15 server writing
  stderr and csvlog of the same run): a client sets application_name to a
  line head and " ERROR:  forged ...", then causes a real error and a real
  lock wait; another connects with such a name. Read from stderr, with the
  prefix inferred and with --prefix, the errors, the lock events and the
  sessions' application names equal csvlog's (whose fields cannot be
  forged), the prefix is inferred as the server had it ('[%l-1]' as %l),
  and no line is unparsable or ambiguous.

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
    ctx = db.execute("SELECT DISTINCT ctx_action, ctx_relation FROM lock_events").fetchall()
    check(ctx == [("locking", "redacted_table_2")], f"logplex: each lock line's CONTEXT: {ctx}")
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


def facts(db):
    """What the forgery would change: errors, lock events, application names."""
    # (no sqlstate: these prefixes have no %e)
    errors = sorted(db.execute("SELECT pid, severity, message FROM errors"))
    events = sorted(db.execute("SELECT pid, phase, waited_ms, holders, queue FROM lock_events"))
    apps = sorted(db.execute("SELECT DISTINCT pid, application FROM sessions"
                             " WHERE application IS NOT NULL AND application <> ''"))
    return errors, events, apps


def forged(ls, tmp, repo):
    d = os.path.join(repo, "samples", "forged")
    for n in (1, 2, 3):
        prefix = open(os.path.join(d, f"{n}.prefix")).read()
        rc, csv = ingest(ls, tmp, f"c{n}", os.path.join(d, f"{n}.csv"))
        check(csv is not None, f"forged {n}: csvlog ingested: " + rc.stderr[-300:])
        if csv is None:
            continue
        want = facts(csv)
        check(len(want[0]) == 2 and all(e[2] == "division by zero" for e in want[0]),
              f"forged {n}: the csvlog has the two real errors: {want[0]}")
        check(sum(1 for e in want[1] if e[1] == "waiting") == 2,
              f"forged {n}: the csvlog has the two real waits: {want[1]}")
        for args in ([], ["--prefix", prefix]):
            what = f"forged {n}{' --prefix' if args else ''}"
            r, db = ingest(ls, tmp, f"s{n}", *args, os.path.join(d, f"{n}.log"))
            check(db is not None, f"{what}: ingested: " + r.stderr[-300:])
            if db is None:
                continue
            if not args:
                check(f"inferred log_line_prefix '{prefix}'" in r.stderr,
                      f"{what}: prefix '{prefix}' inferred: " + r.stderr[-400:])
            check(" 0 unparsable lines" in r.stderr and "ambiguous" not in r.stderr,
                  f"{what}: nothing unparsable or ambiguous: " + r.stderr[-600:])
            got = facts(db)
            check(got[0] == want[0], f"{what}: errors {got[0]}, csvlog {want[0]}")
            check(got[1] == want[1], f"{what}: lock events {got[1]}, csvlog {want[1]}")
            if "%a" in prefix:
                check(got[2] == want[2], f"{what}: application names {got[2]}, csvlog {want[2]}")
            if "%x" not in prefix:  # no line number stored as a transaction id
                xids = db.execute("SELECT count(*) FROM statements WHERE xid <> 0").fetchone()[0]
                check(xids == 0, f"{what}: {xids} statements with an xid the prefix has not")


def main():
    ls, repo = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        logplex(ls, tmp, repo)
        forged(ls, tmp, repo)
    return report()


if __name__ == "__main__":
    sys.exit(main())
