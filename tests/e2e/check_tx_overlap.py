#!/usr/bin/env python3
"""A session runs one transaction at a time: in the store that `lockspan
analyze` writes for a real sample, no two transactions of one session
overlap in time (the end of one is at or before the start of the next,
within the log's time resolution).

A pooled backend (samples/blind-pool, pgbouncer in transaction mode) runs
the transactions of many requests one after the other; a deadlock victim's
transaction there is rebuilt from its request's spans (spans.c
write_victim), and its BEGIN must be put where the backend began it (the
BEGIN span's end, once the pooler gave the request a server connection),
not at the span's start, when the backend may still be running the
previous request's transaction (mutation pool34-4 in docs/mutations.md).

Reads the `transactions` table (session_id, start_ts, end_ts in
microseconds) of each run's store.

Usage: check_tx_overlap.py LOCKSPAN [SAMPLES_DIR]
"""
import os
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

MS_US = 1000            # a millisecond log's resolution, in store units (us)
SECOND_US = 1000000     # a whole-second (%t) log's
# how far a span's time may be from the log's for the same moment
# (LS_SPAN_LOG_SLACK_US, src/correlate/decide/tolerances.h)
SPAN_LOG_SLACK_US = 1000

# (name, inputs under SAMPLES_DIR, prefix file or None, resolution)
RUNS = [
    ("blind-pool jsonlog + traces",
     ["blind-pool/postgresql.json", "blind-pool/traces.otlp.jsonl"], None, MS_US),
    ("blind-pool %t + traces",
     ["blind-pool/postgresql.log", "blind-pool/traces.otlp.jsonl"], None, SECOND_US),
    ("blind-pool %t alone", ["blind-pool/postgresql.log"], None, SECOND_US),
    ("blind-py", ["blind-py/postgresql.log"], None, MS_US),
    ("correlation", ["correlation/postgresql.log"], "correlation/prefix.txt", MS_US),
    ("deadlock-holds", ["deadlock-holds/postgresql.log"], "deadlock-holds/prefix.txt", MS_US),
    ("hidden", ["hidden/postgresql.log"], "hidden/prefix.txt", MS_US),
]

# Every transaction whose session, start and end the store knows, by
# session and start; rebuilt: a deadlock victim's transaction that
# spans.c write_victim() rebuilt from its request's spans (its BEGIN a
# statement of verb 'span', LS_VERB_SPAN).
TX_SQL = """
SELECT t.session_id, t.tx_id, t.start_ts, t.end_ts, t.explicit, t.statements,
       r.verb IS 5 AND t.start_known = 'BEGIN' AS rebuilt
  FROM transactions t LEFT JOIN stmt_rows r ON r.stmt_id = t.first_stmt
 WHERE t.session_id IS NOT NULL AND t.start_ts IS NOT NULL AND t.end_ts IS NOT NULL
 ORDER BY t.session_id, t.start_ts, t.tx_id
"""
TX_SESSION, TX_ID, TX_START, TX_END, TX_EXPLICIT, TX_STATEMENTS, TX_REBUILT = range(7)


def known_nested(a, b, res):
    """Known wrong (KNOWN_WRONG, not failed): a statement the victim ran
    before its failed one, logged past log_min_duration_statement, stays a
    one-statement transaction of its own inside the victim's rebuilt one
    (spans.c write_victim: "a transaction of their own, cut short"). Either
    of a, b may be the rebuilt one: the logged statement may start up to
    the span-to-log slack before the BEGIN the trace gave."""
    for outer, inner in ((a, b), (b, a)):
        if (outer[TX_REBUILT] and not inner[TX_EXPLICIT] and inner[TX_STATEMENTS] == 1
                and inner[TX_START] >= outer[TX_START] - SPAN_LOG_SLACK_US - res
                and inner[TX_END] <= outer[TX_END] + res):
            return True
    return False


def overlaps(rows, res):
    """The pairs of transactions of one session that share more than the
    log's resolution `res` of time (each against the earlier one that ends
    last), and the known-wrong nested ones: (bad, known) lists of pairs."""
    bad, known = [], []
    last = None
    for t in rows:
        if last is not None and last[TX_SESSION] != t[TX_SESSION]:
            last = None
        if last is not None and min(last[TX_END], t[TX_END]) - t[TX_START] > res:
            if known_nested(last, t, res):
                known.append((last[TX_ID], t[TX_ID]))
            else:
                bad.append((last[TX_ID], t[TX_ID]))
        if last is None or t[TX_END] > last[TX_END]:
            last = t
    return bad, known


def path(samples, name):
    """A sample file, or its .gz where only that is committed."""
    p = os.path.join(samples, name)
    return p if os.path.exists(p) else p + ".gz"


def analyze(lockspan, samples, tmp, i, inputs, prefix):
    """Analyze the inputs into tmp/N.db; its path, or None on failure."""
    db = os.path.join(tmp, "%d.db" % i)
    cmd = [lockspan, "analyze", "-q", "--db", db, "-o", os.path.join(tmp, "%d.json" % i)]
    if prefix:
        with open(os.path.join(samples, prefix)) as f:
            cmd += ["--prefix", f.read().rstrip("\n")]
    r = subprocess.run(cmd + [path(samples, x) for x in inputs], capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stderr, file=sys.stderr)
        return None
    return db


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: check_tx_overlap.py LOCKSPAN [SAMPLES_DIR]")
    lockspan = os.path.abspath(sys.argv[1])
    samples = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples")
    with tempfile.TemporaryDirectory(prefix="check_tx_overlap.") as tmp:
        for i, (name, inputs, prefix, res) in enumerate(RUNS):
            db = analyze(lockspan, samples, tmp, i, inputs, prefix)
            check(db is not None, "%s: analyze exits 0" % name)
            if db is None:
                continue
            con = sqlite3.connect(db)
            rows = con.execute(TX_SQL).fetchall()
            con.close()
            n = len(rows)
            bad, known = overlaps(rows, res)
            # a store without transactions would pass vacuously
            check(n > 1, "%s: transactions with a session, start and end stored (%d)" % (name, n))
            check(not bad, "%s: %d of %d transactions overlap an earlier one of their session"
                  " (tx_id pairs, e.g. %s)" % (name, len(bad), n, bad[:3]))
            print("%s: %d transactions, %d overlapping; KNOWN_WRONG: %d logged statements"
                  " inside a rebuilt victim's transaction (e.g. %s)"
                  % (name, n, len(bad), len(known), known[:3]))
    sys.exit(report())


if __name__ == "__main__":
    main()
