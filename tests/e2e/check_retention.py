#!/usr/bin/env python3
"""ingest --retention DAYS: a store holding Cloud SQL entries of 2020
(tests/e2e/data/cloudsql-2020.jsonl) then samples/basic's log (2026-12-02,
a real PostgreSQL 15 run) ingested with --retention 30 equals a store of
samples/basic alone, table by table, and its waiters are those of
samples/basic/truth.json (recorded client-side); without --retention, or
with a longer one, the 2020 statements stay; the pruned file given again
adds nothing back.

Usage: check_retention.py LOCKSPAN SAMPLES_DIR
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

COUNTS = ["lock_events", "stmt_rows", "stmt_texts", "sessions", "errors", "deadlocks",
          "deadlock_edges", "xids", "spans", "activity"]


def ingest(ls, db, *args):
    r = subprocess.run([ls, "ingest", "--db", db] + list(args), capture_output=True, text=True,
                       env=dict(os.environ, TZ="UTC"))
    check(r.returncode == 0, f"ingest {' '.join(args)}: exit 0 ({r.returncode}) {r.stderr[-200:]}")


def counts(db):
    con = sqlite3.connect(db)
    out = {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in COUNTS}
    out["waiters"] = sorted(p for (p,) in con.execute(
        "SELECT DISTINCT pid FROM lock_events WHERE phase IN ('waiting', 'deadlock')"))
    con.close()
    return out


def main():
    ls, samples = sys.argv[1], sys.argv[2]
    old = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "cloudsql-2020.jsonl")
    log = os.path.join(samples, "basic", "postgresql.log")
    truth = json.load(open(os.path.join(samples, "basic", "truth.json")))
    tmp = tempfile.mkdtemp(prefix="lockspan-retention.")
    try:
        alone = os.path.join(tmp, "alone.db")
        ingest(ls, alone, log)
        want = counts(alone)
        check(want["waiters"] == sorted({w["waiter_pid"] for w in truth["waits"]}),
              "basic alone: the truth's waiters")

        kept = os.path.join(tmp, "kept.db")
        ingest(ls, kept, old)
        ingest(ls, kept, log)
        got = counts(kept)
        check(got["stmt_rows"] == want["stmt_rows"] + 2,
              f"no --retention: the 2020 statements stay ({got['stmt_rows']})")

        pruned = os.path.join(tmp, "pruned.db")
        ingest(ls, pruned, old)
        ingest(ls, pruned, "--retention", "30", log)
        got = counts(pruned)
        for k in want:
            check(got[k] == want[k], f"--retention 30: {k} {got[k]}, basic alone {want[k]}")
        ingest(ls, pruned, "--retention", "30", old)
        check(counts(pruned) == want, "--retention 30: the pruned file given again adds nothing")

        long = os.path.join(tmp, "long.db")
        ingest(ls, long, old)
        ingest(ls, long, "--retention", "5000", log)
        check(counts(long)["stmt_rows"] == want["stmt_rows"] + 2,
              "--retention 5000: 2020 is within it, its statements stay")

        # A statement line kept whose vxid and parameters repeat those of a
        # line dropped (stored once, by reference: docs/store.md) still has
        # them, as the log wrote them. (Two executes: a bind line would be
        # folded into the execute's row.)
        vxid, params = "3/7", "$1 = '42'"
        text = "SELECT abalance FROM accounts WHERE aid = $1"
        rep = os.path.join(tmp, "repeat.log")
        with open(rep, "w") as f:
            for day, ms, verb in (("2026-01-01", "0.100", "execute"), ("2026-02-20", "0.200", "execute")):
                f.write(f"{day} 00:00:00.100 UTC [100] {vxid} LOG:  duration: {ms} ms  "
                        f"{verb} P_1: {text}\n")
                f.write(f"{day} 00:00:00.100 UTC [100] {vxid} DETAIL:  parameters: {params}\n")
        for name, args, n in (("repeat-all.db", [], 2), ("repeat-pruned.db", ["--retention", "30"], 1)):
            db = os.path.join(tmp, name)
            ingest(ls, db, "--prefix", "%m [%p] %v ", *args, rep)
            con = sqlite3.connect(db)
            rows = con.execute("SELECT verb, name, vxid, params, text FROM statements"
                               " ORDER BY stmt_id").fetchall()
            con.close()
            want_rows = [("execute", "P_1", vxid, params, text)] * 2
            check(rows == want_rows[-n:], f"{name}: statements as logged ({rows})")

        r = subprocess.run([ls, "ingest", "--db", pruned, "--retention", "x", log],
                           capture_output=True, text=True)
        check(r.returncode == 2, f"--retention x: usage error ({r.returncode})")
    finally:
        shutil.rmtree(tmp)
    return report()


if __name__ == "__main__":
    sys.exit(main())
