#!/usr/bin/env python3
"""The one-line application_name switch forgery, read as the log proves it
(issue 37).

samples/forged-switch (samples/forged-switch.sh: real PostgreSQL 15
servers writing stderr and csvlog of the same run, log_line_prefix
'%m [%p] %q%u@%d/%a ') holds sessions that switch application_name from
"x" to "x ERROR:  y" (and "z" to "z LOG:  duration: 1.000 ms") for a few
statements, then back. Every forged line reads two ways, and the lines
around it say "x": only the SET statement in the log proves the switch.
With statements logged (mode stmt: log_statement = 'all', the SET logged
before it runs; mode dur: log_min_duration_statement = 0, logged after it
ran, under the new name), the stderr log must give csvlog's errors
(pid, message), statements (pid, duration, text) and sessions'
application names, with no line unparsable.

With no statement logged (mode err: no SET in the log), the forged ERROR
and its STATEMENT line share their prefix text to the byte, as every
report's lines do: read as one report under the switched name, the stderr
log must give csvlog's errors too (before: one extra error row, the
STATEMENT line read as an error of "x").

Usage: check_forged_switch.py LOCKSPAN SAMPLES_DIR
"""
import os
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

QUERIES = {
    "errors": "SELECT pid, message FROM errors ORDER BY ts, pid, message",
    "statements": "SELECT pid, duration_ms, text FROM statements ORDER BY start_ts, pid, text",
    "applications": "SELECT pid, application FROM sessions ORDER BY pid",
    "bad lines": "SELECT line, reason FROM bad_lines ORDER BY line",
}


def facts(ls, tmp, path, extra=()):
    db = os.path.join(tmp, os.path.basename(path) + ".db")
    if os.path.exists(db):
        os.remove(db)
    r = subprocess.run([ls, "ingest", "-q", "--db", db, *extra, path], capture_output=True,
                       env=dict(os.environ, TZ="UTC"), timeout=120)
    if r.returncode != 0:
        return None, r.stderr.decode("utf-8", "replace")
    con = sqlite3.connect(db)
    try:
        return {k: con.execute(q).fetchall() for k, q in QUERIES.items()}, ""
    finally:
        con.close()


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    ls, samples = os.path.abspath(sys.argv[1]), sys.argv[2]
    d = os.path.join(samples, "forged-switch")
    prefix = open(os.path.join(d, "prefix.txt")).read()
    with tempfile.TemporaryDirectory(prefix="lockspan-switch-") as tmp:
        for mode in ("stmt", "dur", "err"):
            truth, err = facts(ls, tmp, os.path.join(d, mode + ".csv"))
            check(truth is not None and truth["errors"],
                  f"{mode}: the csvlog ingests, with its real errors: {err}")
            if truth is None:
                continue
            for how, extra in (("inferred", ()), ("--prefix", ("--prefix", prefix))):
                got, err = facts(ls, tmp, os.path.join(d, mode + ".log"), extra)
                check(got is not None, f"{mode} {how}: the stderr log ingests: {err}")
                if got is None:
                    continue
                for k in ("errors", "statements", "applications"):
                    check(got[k] == truth[k], f"{mode} {how}: {k} as csvlog has them: "
                          f"{got[k]} vs {truth[k]}")
                check(got["bad lines"] == [], f"{mode} {how}: no line unparsable or ambiguous: "
                      f"{got['bad lines']}")
    return report()


if __name__ == "__main__":
    sys.exit(main())
