#!/usr/bin/env python3
"""Blind check of lockspan on samples/blind-go (a Go 1.19 + pgx v4 service:
a pgxpool of 8 connections shared by 16 goroutines, one application_name;
PostgreSQL 15 logging through syslog as rsyslog's default file template
writes it: whole seconds, no year, prefix 'user=%u,db=%d,app=%a ',
log_min_duration_statement 250ms, log_lock_waits, deadlock_timeout 1s).

  check_blind_go.py LOCKSPAN [SAMPLE_DIR]

Runs `lockspan analyze` on the committed log, compares the JSON and
Markdown reports with the app's client-side truth (samples/blind-go/judge.py,
written blind from the docs) and
  - asserts the facts lockspan gets right today (MUST_HOLD): a regression
    fails the run (exit 1);
  - prints what it gets wrong as expected failures (XFAIL), not counted;
    one that starts to pass is printed as XPASS so it can be moved to
    MUST_HOLD (samples/blind-go/JUDGEMENT.md says why each is wrong).
Exit 0 when every MUST_HOLD check passes. No server is needed.
"""
import os
import sys
import tempfile

import lscheck

# The checks of judge.py that lockspan answers right on this sample
# (samples/blind-go/JUDGEMENT.md, lockspan f96521b). Every other check is an
# expected failure.
MUST_HOLD = [
    'syslog read: no unparsable lines',
    "log_line_prefix inferred ('user=%u,db=%d,app=%a ')",
    "time range: the syslog header's seconds, this year, around the run",
    'statements: the 119 duration lines (log_min_duration_statement 250ms)',
    "statement logging judged 'threshold' (only statements of 250 ms or more)",
    'holds: every one said a lower bound (no BEGIN/COMMIT logged)',
    'code paths: named by transaction shape, because one application_name covers all',
    'code paths: no Go func named (the log has none)',
    'code paths: every shape named is one of the 3 a logged statement shows',
    'deadlocks: count',
    'deadlock victims: pids',
    "deadlock victims: time within the syslog second of the app's error",
    'finding deserved: deadlocks',
    'finding deserved: inconsistent lock order on accounts (transferCredit locks in request order)',
    "deadlock victims: no code path but transferCredit's shape (every victim was one)",
    'deadlock victims: retried untold for each (truth: 69 retried, 2 not; a retry runs under 250 ms, unlogged)',
    'lock timeouts (55P03): count',
    "lock timeouts: each at the pid and second of the app's",
    'lock timeouts: none said retried (restock gives up)',
    'lock timeouts: a holder named held an inventory row then (or none named)',
    'logged waits: each lies within a truth wait of that pid and relation',
    'logged waits: the holder pid named held (or led the queue for) a row of that relation then',
    "total wait: 150.0 s logged is no more than the app's 200.5 s of waits with a lock line",
    "hidden waits: said a lower bound and no more than the truth's 97.5 s without a lock line",
    'busiest row: an accounts row first (truth: accounts rows had 234 of 298 s of waiting)',
    'hot rows: every row named by key is a row the app waited for',
    "hot rows: inventory sku=SKU-1 found (from the slow FOR UPDATEs' $1 = 'SKU-1')",
    "SKU-1: hidden waiting 28.0 s no more than the app's 57.9 s (none of it has a lock line)",
    'finding deserved: hidden waiting on SKU-1 (its 300-800 ms holds queue below deadlock_timeout)',
    'hot counter daily_totals: no row invented (its waits are < 250 ms, never logged)',
    'blocking ranking: transferCredit then reserveWithPayment (truth: 234.0 s, 59.2 s)',
    'finding not deserved: lock_queue_behind_ddl (no DDL ran)',
    'finding not deserved: retries_after_serialization_failure (no 40001)',
    'finding not deserved: commit_wait_head (commits take < 1 ms)',
    'finding not deserved: external_call_in_transaction (no spans: not in the log)',
    "finding not deserved: hot_counter_row (the hot counter's waits are never logged)",
    'serialization failures: 0',
    # go34 (issue 34): a threshold log with no BEGIN or COMMIT cannot
    # delimit transactions; a pid's last logged transaction is not the
    # holder of a row of a relation its statements never locked when it
    # ended more than the log's tick before the wait began (the pooled
    # connection ran another request's next: decide/link.c ls_holder_tx).
    # Within the tick it is kept: 3 glued links of 123 remain (XFAIL).
    "occupancy ranking: transferCredit's shape first, or said unknown (truth: transferCredit 121.8 s, 73 %; "
    "reserveWithPayment 30.2 s)",
    "stderr's headline: names transferCredit's shape as holding longest, or no path",
    # go34: a threshold log's waiting caused has no upper bound the log
    # gives (ls_logcover_caused_unbounded): 'at least' the figure
    "blocking: transferCredit's range of waiting caused holds the truth's 234.0 s",
    # go34: on a threshold log an untold retry is not blamed on a dropped
    # connection (the session may simply have run nothing slow after)
    'deadlock victims: the untold retry is not blamed on a dropped connection (pgx kept the pooled '
    'connection and retried)',
    "occupancy: reserveWithPayment's share not stated above the truth's 18 % as a figure",
    'story: the path said to hold longest is not given rows of a relation it never locks',
    # go34b: a row none of whose holds the log timed (threshold logging, no
    # BEGIN/COMMIT) has no share of the time held: the hidden_waiting
    # finding says it unknown (utilisation null), not 0 %
    'SKU-1: not said held 0 % of the time (truth: held 20.3 s; no hold of it is in the log)',
    # go34b: where the log shows the end of none of a path's holds behind
    # its breakdown, idle and commit are unknown and so is "mostly"
    # (decide/logcover.c ls_logcover_breakdown_unknown)
    "reserveWithPayment's shape: not said mostly SQL (truth: 99.7 % of its holds is the payment call, "
    "idle in transaction)",
]


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: check_blind_go.py LOCKSPAN [SAMPLE_DIR]")
    lockspan = os.path.abspath(sys.argv[1])
    sample = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "blind-go"))
    sys.path.insert(0, sample)
    import judge                                    # noqa: E402

    with tempfile.TemporaryDirectory(prefix="check_blind_go.") as tmp:
        rep = judge.report(lockspan, sample, tmp)
    truth = judge.load(os.path.join(sample, "truth.json.gz"))
    results = {r["name"]: r for r in judge.Judge(truth, rep).run()}
    sys.exit(lscheck.judged("check_blind_go", results, MUST_HOLD, first=hedged(rep)))


def hedged(rep):
    """go34 (issue 34): no hold of this log has a known start or end, so
    the occupancy headline's total is a lower bound and its share one of
    the timed holds only: said so in the JSON story, on stderr and in the
    Markdown summary (f96521b: '95.9 % of the time hot rows were held')."""
    st = rep.get("story") or {}
    top = [l for l in rep["_stderr"].splitlines() if "holds hot rows longest" in l]
    said = "of the time hot rows were held (" in rep["_md"]
    return [("occupancy headline: a lower bound, its share not of the time hot rows were held",
             st.get("hold_at_least") is True and bool(top) and "at least" in top[0] and not said,
             [st.get("hold_at_least"), top[:1], said], [True, "at least", False])]


if __name__ == "__main__":
    main()
