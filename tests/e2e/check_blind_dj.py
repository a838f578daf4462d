#!/usr/bin/env python3
"""Blind check of lockspan on samples/blind-dj (a Django 5.2 service on
psycopg2, one application_name, no traces; PostgreSQL 18 jsonlog in
Spanish, lc_messages = es_ES.UTF-8, log_statement = 'all' with
log_duration = on: each duration its own record without the statement;
log_lock_waits, deadlock_timeout 200ms).

  check_blind_dj.py LOCKSPAN [SAMPLE_DIR]

Runs `lockspan analyze` on the committed jsonlog, compares the JSON report
with the app's client-side truth (samples/blind-dj/judge.py, written blind
from the docs) and
  - asserts the facts lockspan gets right today (MUST_HOLD): a regression
    fails the run (exit 1);
  - prints what it gets wrong as expected failures (XFAIL), not counted;
    one that starts to pass is printed as XPASS so it can be moved to
    MUST_HOLD (samples/blind-dj/JUDGEMENT.md says why each is wrong).
Exit 0 when every MUST_HOLD check passes. No server is needed.
"""
import os
import sys
import tempfile

import lscheck

# The checks of judge.py that lockspan answers right on this sample
# (samples/blind-dj/JUDGEMENT.md, lockspan fd48027). Every other check is an
# expected failure.
MUST_HOLD = [
    'jsonlog read: no unparsable records',
    'statements timed: every statement that ended without error has its duration',
    "statement logging judged complete (log_statement = 'all' with BEGIN/COMMIT and durations)",
    'no hold marked a lower bound (COMMIT and ROLLBACK are logged)',
    "Spanish lock-wait messages read: waits = 'aún espera' + 'detectó un deadlock' records",
    'deadlocks: count',
    'deadlock victims: pids',
    "deadlock victims: time within 50 ms of the app's error",
    'finding deserved: deadlocks',
    "deadlock victims' code path is transfer's shape (accounts)",
    'finding deserved: inconsistent lock order (transfer with itself, accounts)',
    'serialization failures (40001): count',
    'finding deserved: retries after serialization failure',
    '40001 retries: no more said retried than the app retried',
    "serialization failures: each on reprice's UPDATE products",
    "serialization failures: each in reprice's shape (SELECT products; UPDATE products)",
    'hot rows: each listed row (by key) is a truth hot row',
    'busiest row: warehouses id=1 first',
    'logged waits: each lies within a truth wait of that pid and row',
    'logged waits: the holder pid named held the row during the wait',
    'holds listed: each is a truth hold of that pid, row and time',
    'holds listed: the shape of each is the path that held the row',
    "holds listed: hold_ms within 5 ms of the app's (BEGIN/COMMIT and durations logged)",
    "hidden waits (below deadlock_timeout) rebuilt: within a factor of 2 of the truth's 10.5 s in 369 waits",
    "story: names reserve_stock's shape (53.3 % of hot-row hold time)",
    'story: no top path named with 0 ms of hold time',
    'occupancy ranking: reserve_stock first',
    'blocking ranking: reserve_stock first',
    "blocking ranking: its caused waiting within 10 % of the truth's 177.7 s",
    'code paths named by transaction shape (one application_name, no spans)',
    'code paths: each shape maps to one Python function (no shape mixes two paths)',
    'finding not deserved: lock queue behind DDL',
    'finding not deserved: commit wait at the head',
    'finding not deserved: hot counter row on warehouses, accounts or products',
    'no external call in transaction claimed (no spans: not in the log)',
    'finding not deserved: inconsistent lock order for a path other than transfer',
    "finding deserved: idle in transaction at the head for reserve_stock's shape (the HTTP call, which the log shows only as idle)",
    "idle-at-the-head: reserve_stock's shape is the heaviest",
    'finding deserved: serial capacity of warehouses id=1',
    # issue 34 (djfix34): log_duration's bare records folded into their statement;
    # a SET sent before every transaction leaves the retry untold, not false
    "statements: each 'sentencia:' record one statement (its 'duración:' record folded in, not counted again)",
    'no finding says the log has no durations (log_duration = on: 9392 duration records)',
    'deadlock victims: none said not retried (the app retried all 6, each committed)',
    "40001 retries: the finding's retried + untold covers the app's 370 retries",
    '40001: none said not retried that the app retried (listed errors)',
    'hot rows: every row with >= 0.9 s of waiting in the truth whose key a logged statement names is listed (durations show the short waits)',
    'occupancy ranking: the order of the first three paths',
    # issue 34 (djrest34): a tuple wait's relation named by its waiters'
    # SELECT ... FOR UPDATE of one table when no holder's CONTEXT names it
    "logged waits: each wait's relation named (the Spanish tuple-lock messages give only its oid)",
    # issue 34 (djrest34): hot_counter_row counts a row's statements that
    # queued below deadlock_timeout (durations logged), not its logged waits alone
    'finding deserved: hot counter row for a counter waited for >= 0.5 s (pages id=1)',
]


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: check_blind_dj.py LOCKSPAN [SAMPLE_DIR]")
    lockspan = os.path.abspath(sys.argv[1])
    sample = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "blind-dj"))
    sys.path.insert(0, sample)
    import judge                                    # noqa: E402

    with tempfile.TemporaryDirectory(prefix="check_blind_dj.") as tmp:
        rep = judge.report(lockspan, sample, tmp)
    truth = judge.load(os.path.join(sample, "truth.json.gz"))
    results = {r["name"]: r for r in judge.Judge(truth, rep).run()}
    sys.exit(lscheck.judged("check_blind_dj", results, MUST_HOLD))


if __name__ == "__main__":
    main()
