#!/usr/bin/env python3
"""Runs on one store at once all finish, and nothing is lost (issue 37, 2):

A nightly store holding one log; then 4 `ingest` runs (4 other real sample
logs, one each) and 2 `report` runs started together on it, ROUNDS times.
Every run must exit 0, each report must be whole (JSON that parses), and the
store must end with every file's records: its `files` rows and its raw
tables' counts equal those of each log ingested alone into a store of its
own, summed (statement texts: the union of theirs).

A run that waited while `analyze` put a new store in place (the store file
renamed over) writes into the new store, not the old file gone from the name.

Before issue 37 two runs on one store failed one another ("the store is in
use by another process", exit 1) in about a third of the tries, and a report
beside an ingest failed at once.

Usage: check_concurrency.py LOCKSPAN SAMPLES_DIR [ROUNDS]
"""
import fcntl
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

from lscheck import check, report

BASE = "hidden-traces"  # in the store before each round
LOGS = ["basic", "correlation", "correlation-stmtall", "realistic"]
TABLES = ["sessions", "stmt_rows", "lock_event_rows", "errors", "deadlocks",
          "deadlock_procs", "bad_lines"]


def counts(db):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        files = {os.path.basename(os.path.dirname(p)): (lines, records)
                 for p, lines, records in con.execute("SELECT path, lines, records FROM files")}
        tables = {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}
        # a text is stored once, whichever logs share it
        texts = {t for (t,) in con.execute("SELECT text FROM stmt_texts")}
        state = con.execute("SELECT value FROM meta WHERE key = 'ingest'").fetchone()[0]
    finally:
        con.close()
    return files, tables, state, texts


def ingest(ls, db, *logs):
    return subprocess.run([ls, "ingest", "-q", "--db", db, *logs], capture_output=True, text=True)


def main():
    ls, samples = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    log = {name: os.path.join(samples, name, "postgresql.log") for name in [BASE] + LOGS}
    tmp = tempfile.mkdtemp(prefix="lockspan-concurrency.")
    try:
        # Each log alone: what the shared store must hold of it.
        want_files, want_tables, want_texts = {}, dict.fromkeys(TABLES, 0), set()
        for name in [BASE] + LOGS:
            db = os.path.join(tmp, f"alone-{name}.db")
            r = ingest(ls, db, log[name])
            check(r.returncode == 0, f"{name} alone: exit 0 (got {r.returncode}: {r.stderr})")
            files, tables, _, texts = counts(db)
            want_files.update(files)
            want_texts |= texts
            for t in TABLES:
                want_tables[t] += tables[t]
        check(len(want_files) == 1 + len(LOGS) and want_tables["stmt_rows"] > 0
              and want_tables["lock_event_rows"] > 0,
              f"the logs alone give rows to compare with: {want_files} {want_tables}")

        bad_runs = []
        lost = []
        for n in range(rounds):
            d = os.path.join(tmp, f"round{n}")
            os.mkdir(d)
            db = os.path.join(d, "nightly.db")
            r = ingest(ls, db, log[BASE])
            if r.returncode != 0:
                bad_runs.append((n, "base ingest", r.returncode, r.stderr))
                continue
            procs = [(f"ingest {name}", subprocess.Popen(
                          [ls, "ingest", "-q", "--db", db, log[name]],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
                     for name in LOGS]
            outs = [os.path.join(d, f"r{k}.json") for k in range(2)]
            procs += [(f"report {k}", subprocess.Popen(
                           [ls, "report", "-q", "--db", db, "-o", outs[k]],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
                      for k in range(2)]
            for what, p in procs:
                _, err = p.communicate(timeout=300)
                if p.returncode != 0:
                    bad_runs.append((n, what, p.returncode, err.strip()))
            for o in outs:
                try:
                    json.load(open(o))
                except (OSError, ValueError) as e:
                    bad_runs.append((n, f"report {o}", "unreadable", str(e)))
            files, tables, state, texts = counts(db)
            if (files != want_files or tables != want_tables or texts != want_texts
                    or state != "complete"):
                lost.append((n, files, tables, len(texts), state))
        check(bad_runs == [], f"{rounds} rounds of 4 ingests and 2 reports at once: every run "
                              f"exits 0 with a whole report; failed: {bad_runs[:4]}"
                              f"{' ...' if len(bad_runs) > 4 else ''} ({len(bad_runs)} runs)")
        check(lost == [], f"every round's store holds each file's records as ingested alone "
                          f"({want_files}, {want_tables}, {len(want_texts)} texts); differs in {len(lost)} rounds: "
                          f"{lost[:2]}")

        # A run waits for the store; meanwhile a new store is renamed over
        # its name (what analyze --db does, under the same lock).
        d = os.path.join(tmp, "replaced")
        os.mkdir(d)
        db, new = os.path.join(d, "s.db"), os.path.join(d, "new.db")
        for path, name in ((db, LOGS[0]), (new, LOGS[1])):
            r = ingest(ls, path, log[name])
            check(r.returncode == 0, f"store of {name} (got {r.returncode}: {r.stderr})")
        fd = os.open(db, os.O_RDONLY)
        fcntl.flock(fd, fcntl.LOCK_EX)
        p = subprocess.Popen([ls, "ingest", "-q", "--db", db, log[LOGS[2]]],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        waited = p.poll() is None
        os.rename(new, db)
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
        _, err = p.communicate(timeout=120)
        files = counts(db)[0]
        check(waited and p.returncode == 0 and sorted(files) == sorted([LOGS[1], LOGS[2]]),
              f"a run that waited while a new store replaced the old one writes the new one "
              f"(waited: {waited}, exit {p.returncode}: {err.strip()}; holds {sorted(files)})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report()


if __name__ == "__main__":
    sys.exit(main())
