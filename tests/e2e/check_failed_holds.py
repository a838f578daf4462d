#!/usr/bin/env python3
"""Only acquired locks are held (issue 34 item 2), against a real server's
truth (samples/correlation and samples/correlation-stmtall, made by
samples/scenarios_correlation.py): a statement that ended in an error
(40001 after its wait, a lock timeout) acquired nothing on the row it
failed on. For every failed attempt the client recorded (truth.json
`retries`): no hold of that session on the attempt's row within the failed
transaction; the wait it queued in is still a wait of the row, ended by
its error; and the retry, which committed, holds the row.

Usage: check_failed_holds.py LOCKSPAN SAMPLE_DIR

Only the log is read (postgresql.log with its prefix.txt). Under
log_statement = 'all' the failing statement has a `statement:` line; with
durations it has none, so the check there guards that nothing else
changes.
"""
import datetime
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

SLACK_US = 80_000  # the log's millisecond times plus client/server skew


def us(s):
    t = datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))
    return int(round(t.timestamp() * 1_000_000))


def main():
    lockspan, sample = sys.argv[1], sys.argv[2]
    truth = json.load(open(os.path.join(sample, "truth.json")))
    prefix = open(os.path.join(sample, "prefix.txt")).read().rstrip("\n")
    with tempfile.TemporaryDirectory() as tmp:
        db_path = os.path.join(tmp, "s.db")
        subprocess.run([lockspan, "analyze", "-q", "--db", db_path, "--format", "json",
                        "--prefix", prefix, "-o", os.path.join(tmp, "r.json"),
                        os.path.join(sample, "postgresql.log")], check=True)
        db = sqlite3.connect(db_path)
        q = lambda sql, *a: db.execute(sql, a).fetchall()

        check(len(truth["retries"]) >= 2, f"the sample has failed attempts ({len(truth['retries'])})")
        for r in truth["retries"]:
            m = re.search(r"WHERE id = (\d+)", r["statement"])
            check(m is not None, f"{r['scenario']}: the statement names its row")
            if not m:
                continue
            key = f"id={m.group(1)}"
            tag = f"{r['scenario']} ({r['sqlstate']}) session {r['session_id']} {key}"
            f, ok = r["failed"], r["retry"]
            # No hold of the failed transaction on the row it failed on.
            phantom = q("SELECT h.hold_id, h.start_ts, h.end_ts FROM holds h"
                        " JOIN sessions s ON s.session_id = h.session_id"
                        " JOIN rows w ON w.row_id = h.row_id"
                        " WHERE s.pg_session = ? AND w.row_key = ?"
                        " AND h.start_ts < ? AND h.end_ts > ?",
                        r["session_id"], key, us(f["tx_end"]) + SLACK_US,
                        us(f["tx_start"]) - SLACK_US)
            check(phantom == [], f"{tag}: no hold in the failed transaction (got {phantom})")
            # Its wait counts: one logged wait of the session on the row,
            # ended by the error.
            waits = q("SELECT w.outcome FROM lock_waits w"
                      " JOIN sessions s ON s.session_id = w.session_id"
                      " JOIN rows x ON x.row_id = w.row_id"
                      " WHERE s.pg_session = ? AND x.row_key = ?"
                      " AND w.start_ts BETWEEN ? AND ?",
                      r["session_id"], key, us(f["statement_start"]) - SLACK_US,
                      us(f["statement_end"]) + SLACK_US)
            check(len(waits) == 1 and waits[0][0] != "acquired",
                  f"{tag}: its wait is kept, ended by the error (got {waits})")
            # ... and is counted among the row's waits (hidden-waits accounting).
            counted = q("SELECT count(*) FROM row_waits q"
                        " JOIN sessions s ON s.session_id = q.session_id"
                        " JOIN rows x ON x.row_id = q.row_id"
                        " WHERE s.pg_session = ? AND x.row_key = ? AND q.kind = 'logged'"
                        " AND q.start_ts BETWEEN ? AND ?",
                        r["session_id"], key, us(f["statement_start"]) - SLACK_US,
                        us(f["statement_end"]) + SLACK_US)[0][0]
            check(counted == 1, f"{tag}: its logged wait counts for the row (got {counted})")
            # The retry that committed holds the row.
            held = q("SELECT count(*) FROM holds h"
                     " JOIN sessions s ON s.session_id = h.session_id"
                     " JOIN rows w ON w.row_id = h.row_id"
                     " WHERE s.pg_session = ? AND w.row_key = ?"
                     " AND h.start_ts BETWEEN ? AND ?",
                     r["session_id"], key, us(ok["statement_start"]) - SLACK_US,
                     us(ok["tx_end"]) + SLACK_US)[0][0]
            check(held == 1, f"{tag}: the committed retry holds the row (got {held})")
    return report()


if __name__ == "__main__":
    sys.exit(main())
