#!/usr/bin/env python3
"""The correlation engine against a real server's truth (samples/correlation
and samples/correlation-stmtall, see samples/README.md): sessions kept apart
when a pid is reused, waits linked to the right sessions, hold intervals and
what the holder was doing, a three-deep chain, a tuple queue of five, one
logical row however many ctids it had, a transaction holding two hot rows,
retries after 40001 and 55P03, and transactions rebuilt from the log.

Usage: check_correlation.py LOCKSPAN SAMPLE_DIR [--no-snapshots]

The whole directory is analyzed (its log in three formats is read once,
and pg_stat_activity.csv is ingested unless --no-snapshots). Times are
compared within the log's millisecond resolution plus client/server skew.
"""
import datetime
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

SLACK = 0.08  # seconds


def ts(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def main():
    lockspan, sample = sys.argv[1], sys.argv[2]
    snapshots = "--no-snapshots" not in sys.argv[3:]
    truth = json.load(open(os.path.join(sample, "truth.json")))
    with tempfile.TemporaryDirectory() as tmp:
        db_path = os.path.join(tmp, "s.db")
        if snapshots:
            inputs = [sample]
        else:
            inputs = [os.path.join(sample, "postgresql.log")]
        subprocess.run([lockspan, "analyze", "-q", "--db", db_path, "--format", "json",
                        "-o", os.path.join(tmp, "r.json")] + inputs, check=True)
        db = sqlite3.connect(db_path)
        q = lambda sql, *a: db.execute(sql, a).fetchall()

        if snapshots:
            check(q("SELECT count(*) FROM activity")[0][0] > 0, "snapshots ingested")

        # Waits: by the waiter's session (%c), not its pid.
        for t in truth["waits"]:
            rows = q("SELECT w.blocker_pid, rs.pg_session, w.relation, r.row_key, w.outcome,"
                     " w.start_ts, w.chain_depth FROM lock_waits w"
                     " JOIN sessions ws ON ws.session_id = w.session_id"
                     " LEFT JOIN sessions rs ON rs.session_id = w.root_session"
                     " LEFT JOIN rows r ON r.row_id = w.row_id WHERE ws.pg_session = ?",
                     t["waiter_session_id"])
            tag = f"{t['scenario']} waiter {t['waiter_pid']} ({t['waiter_session_id']})"
            check(len(rows) == 1, f"{tag}: one wait (got {len(rows)})")
            if len(rows) != 1:
                continue
            blocker, root_session, rel, key, outcome, start, depth = rows[0]
            check(blocker == t["direct_blocker_pid"], f"{tag}: blocker {blocker}")
            check(root_session == t["root_session_id"],
                  f"{tag}: root session {root_session}, truth {t['root_session_id']}")
            check(rel == t["relation"] and key == f"id={t['row_id']}", f"{tag}: row {rel} {key}")
            check(outcome == t["outcome"], f"{tag}: outcome {outcome}")
            check(abs(start / 1e6 - ts(t["wait_start"])) < SLACK, f"{tag}: start")

        # Pid reuse: the two sessions with one pid stay apart.
        pr = truth.get("pid_reuse")
        check(pr is not None, "the sample has a reused pid")
        if pr:
            keys = {s["session_id"] for s in pr["sessions"]}
            got = {r[0] for r in q("SELECT pg_session FROM sessions WHERE pid = ?", pr["pid"])}
            check(keys <= got and len(got) >= 2, f"pid {pr['pid']}: sessions {got}")

        # Holds: interval and what the holder did while others waited.
        for h in truth["holds"]:
            rows = q("SELECT h.start_ts, h.end_ts, h.head_state, h.tx_id FROM holds h"
                     " JOIN sessions s ON s.session_id = h.session_id"
                     " JOIN rows r ON r.row_id = h.row_id"
                     " WHERE s.pg_session = ? AND r.relation = ? AND r.row_key = ?",
                     h["session_id"], h["relation"], f"id={h['row_id']}")
            tag = f"{h['scenario']} hold of {h['relation']} {h['row_id']} by {h['pid']}"
            check(rows, f"{tag}: found")
            if not rows:
                continue
            start, end, state, _ = min(rows, key=lambda r: abs(r[0] / 1e6 - ts(h["start"])))
            check(abs(start / 1e6 - ts(h["start"])) < SLACK, f"{tag}: start")
            check(abs(end / 1e6 - ts(h["end"])) < SLACK, f"{tag}: end {end} vs {h['end']}")
            # A statement-only log without snapshots cannot tell running from
            # idle: "unknown" is then right; a wrong state never is.
            check(state == h["head_state"] or (state == "unknown" and not snapshots and
                                                 h["head_state"] in ("running", "idle_in_transaction")),
                  f"{tag}: holder was {state}, truth {h['head_state']}")

        # Where the log only bounds a hold (log_statement = 'all': the COMMIT's
        # end is not logged), the report gives a range, and the truth is in it.
        rep = json.load(open(os.path.join(tmp, "r.json")))
        for rh in rep["holds"]:
            if "hold_min_ms" not in rh:
                continue
            cands = [h for h in truth["holds"] if h["pid"] == rh["pid"] and
                     f"id={h['row_id']}" == rh["row_key"]]
            t = min(cands, key=lambda h: abs(ts(h["start"]) - ts(rh["start"])), default=None)
            tag = f"reported hold of {rh['row_key']} by {rh['pid']}"
            check(t is not None, f"{tag}: in the truth")
            if t is None:
                continue
            true_ms = (ts(t["end"]) - ts(t["start"])) * 1000
            check(rh["hold_min_ms"] - SLACK * 1000 <= true_ms <= rh["hold_max_ms"] + SLACK * 1000
                  and rh["hold_min_ms"] <= rh["hold_ms"] <= rh["hold_max_ms"],
                  f"{tag}: truth {true_ms:.0f} ms in {rh['hold_min_ms']}-{rh['hold_max_ms']}")

        # A transaction holding two hot rows: both holds are the same transaction.
        by_session = {}
        for h in truth["holds"]:
            by_session.setdefault((h["session_id"], h["start"]), []).append(h)
        for (sess, _), hs in by_session.items():
            if len({(h["relation"], h["row_id"]) for h in hs}) > 1:
                txs = {r[0] for r in q("SELECT h.tx_id FROM holds h JOIN sessions s"
                                       " ON s.session_id = h.session_id WHERE s.pg_session = ?",
                                       sess)}
                check(len(txs) == 1, f"{sess}: two rows held by one transaction ({txs})")

        # Chains: depth and root.
        for c in truth["chains"]:
            rows = q("SELECT w.chain_depth, w.root_pid FROM lock_waits w JOIN sessions s"
                     " ON s.session_id = w.session_id WHERE s.pg_session = ?",
                     c["leaf_session_id"])
            check(rows == [(c["depth"], c["root_pid"])], f"chain of {c['depth']}: {rows}")

        # The tuple queue's depth, and one logical row per row however many ctids.
        queue = {}
        for t in truth["waits"]:
            queue.setdefault((t["relation"], t["row_id"]), []).append(t)
        for (rel, row), ws in queue.items():
            rows = q("SELECT max_queue, ctids FROM rows WHERE relation = ? AND row_key = ?",
                     rel, f"id={row}")
            check(len(rows) == 1, f"{rel} {row}: one logical row (got {len(rows)})")
            if rows and ws[0]["scenario"] == "tuple_queue":
                check(rows[0][0] == len(ws), f"tuple queue depth {rows[0][0]}")
        for c in truth["ctids"]:
            seen = sorted({t["ctid"] for t in truth["waits"]
                           if (t["relation"], t["row_id"]) == (c["relation"], c["row_id"])})
            if len(seen) < 2:
                continue
            rows = q("SELECT ctids FROM rows WHERE relation = ? AND row_key = ?",
                     c["relation"], f"id={c['row_id']}")
            check(rows and sorted(rows[0][0].split(" ")) == seen,
                  f"{c['relation']} {c['row_id']}: ctids {rows} vs {seen}")

        # Retries after lock errors, and the transaction that caused the error.
        for r in truth["retries"]:
            rows = q("SELECT e.retry_outcome, cs.pg_session FROM errors_linked e"
                     " JOIN sessions s ON s.session_id = e.session_id"
                     " LEFT JOIN transactions ct ON ct.tx_id = e.cause_tx"
                     " LEFT JOIN sessions cs ON cs.session_id = ct.session_id"
                     " WHERE s.pg_session = ? AND e.sqlstate = ?", r["session_id"], r["sqlstate"])
            check(rows == [("commit", r["caused_by_session_id"])],
                  f"{r['scenario']}: retry and cause {rows}")

        # Transactions of the sessions correlation rebuilt: same boundaries.
        built = {r[0] for r in q("SELECT DISTINCT s.pg_session FROM transactions t"
                                 " JOIN sessions s ON s.session_id = t.session_id")}
        outcome = {"committed": ("commit",), "rolled_back": ("rollback", "aborted")}
        n = rolled_back = 0
        for t in truth["transactions"]:
            if t["session_id"] not in built:
                continue
            n += 1
            start = int(ts(t["start"]) * 1e6)
            # Back-to-back transactions start within the log's millisecond:
            # the first statement's text tells them apart.
            first = t["statements"][0]["sql"] if t["statements"] else ""
            rows = q("SELECT t.start_ts, t.end_ts, t.outcome, t.end_known FROM transactions t"
                     " JOIN sessions s ON s.session_id = t.session_id"
                     " JOIN statements st ON st.stmt_id = t.first_stmt WHERE s.pg_session = ?"
                     " ORDER BY st.text <> ?, abs(t.start_ts - ?) LIMIT 1",
                     t["session_id"], first, start)
            tag = f"transaction of {t['session_id']} at {t['start']}"
            check(rows and abs(rows[0][0] / 1e6 - ts(t["start"])) < SLACK, f"{tag}: start")
            if not rows:
                continue
            if rows[0][3] not in ("commit start", "rollback start"):
                check(rows[0][1] is not None and abs(rows[0][1] / 1e6 - ts(t["end"])) < SLACK,
                      f"{tag}: end")
            check(rows[0][2] in outcome.get(t["outcome"], (t["outcome"],)),
                  f"{tag}: outcome {rows[0][2]} vs {t['outcome']}")
            # what ended it: the ROLLBACK of a rolled-back one, not a COMMIT
            ended = {"committed": ("commit", "commit start", "statement", "statement start"),
                     "rolled_back": ("rollback", "rollback start", "disconnection")}
            check(rows[0][3] in ended.get(t["outcome"], (rows[0][3],)),
                  f"{tag}: ended by {rows[0][3]} ({t['outcome']})")
            rolled_back += t["outcome"] == "rolled_back"
        check(n >= 20 and rolled_back >= 1,
              f"transactions compared: {n}, of which rolled back {rolled_back}")
    return report()


if __name__ == "__main__":
    sys.exit(main())
