#!/usr/bin/env python3
"""Blind check of lockspan on samples/blind-ts (a Node.js TypeORM app under
libfaketime, stock OpenTelemetry JS spans with the npm TypeORM
instrumentation, PostgreSQL 15 csvlog with lc_messages = de_DE.UTF-8).

  check_blind_ts.py LOCKSPAN [SAMPLE_DIR]

Runs `lockspan analyze` twice on the committed files (the csvlog + the OTLP
export; the csvlog alone, whose checks are named "csvlog alone: ..."),
compares the JSON reports with the app's client-side truth
(samples/blind-ts/app/judge.py, written blind from the docs) and
  - asserts the facts lockspan gets right today (MUST_HOLD): a regression
    fails the run (exit 1);
  - prints what it gets wrong as expected failures (XFAIL), not counted
    as passes; one that starts to pass is printed as XPASS so it can be
    moved to MUST_HOLD;
  - prints the checks in NOT_ASSERTED as INFO.
Exit 0 when every MUST_HOLD check passes. No server is needed.
"""
import os
import sys
import tempfile

import lscheck

# The checks of judge.py that lockspan answers right on this sample
# (samples/blind-ts/JUDGEMENT.md). Every other check is an expected failure.
MUST_HOLD = [
    "German csvlog: lock waits read ('wartet immer noch' lines + deadlock victims)",
    'German csvlog: no unparsable lines',
    'deadlocks',
    'serialization failures (none)',
    'deadlock victims: pid and time (within 50 ms)',
    'deadlock victims: trace id and code path /seats/swap',
    'lock order: /seats/swap against itself only',
    # since a deadlock process's DETAIL statement is keyed with the
    # parameters of its logged statement running at the deadlock (holds.c
    # deadlock_names, dlprocs.c proc_row; ls_deadlock_stmt_running): the
    # sixth deadlock's survivor 30770 waited for seats id=3, which the victim
    # held; seats:3 was no row, and the deadlock was not counted
    'lock order: every deadlock whose victim held a row counted (all row pairs)',
    'deadlock finding: lock rows in the same order',
    "hottest row's relation is events (truth: events:1)",
    # (a deadlock's rows are both of its cycle's: judge.py; seats:3 since
    # the deadlock DETAIL's statements are keyed by their logged parameters)
    "keyed hot rows besides events: every row with a logged wait or in a deadlock's cycle, and no row nobody waited for",
    # since a FROM inside parentheses is not the statement's own (find_kw,
    # src/common/sqlshape.c): TypeORM's extract(epoch FROM ...) beside its
    # FOR UPDATE made the relation clock_timestamp, and events:1 127 ctid rows
    "events:1, the bookings' FOR UPDATE row, keyed (no row version listed as a row of its own)",
    "csvlog alone: events:1, the bookings' FOR UPDATE row, keyed (no row version listed as a row of its own)",
    # since an ORM's row version bumped beside the columns an update sets is
    # no counter's increment (ls_finding_is_increment, decide/finding.c):
    # TypeORM's "version" = "version" + 1 made seats id=1/2 counter rows
    "no counter finding on seats (swapped, not counted) or events",
    "events: total logged wait (all events rows) within 5 % of the truth's waits over deadlock_timeout",
    'every listed hold is a truth lock of that pid and relation',
    'hold start (row locked) within max(25 ms, 5 %): 100 %+ of holds',
    'hold end (COMMIT/ROLLBACK) within max(25 ms, 5 %): 100 %+ of holds',
    'hold length within max(25 ms, 5 %): 80 %+ of holds',
    'top code path by row occupancy',
    '/seats/swap occupancy of its hot rows (hot seats): holds and total',
    'code paths named by span route',
    # since a URL path's segment the request's transaction bound as a
    # parameter is the route's variable (ls_path_url_route,
    # decide/pathname.c): the spans carry no http.route (plain http), and
    # the hot counter's holds went to /pages/home/hit, one path per slug;
    # now /pages/{id}/hit (judge.py takes the route's template for the
    # app's name /pages/hit, which no log line or span says)
    '/pages/hit (the hot counter: 289 locks, 31 waits) in the occupancy ranking',
    # since an ORM's span is its driver child's statement when their texts
    # differ only in placeholders of different styles (TypeORM's
    # ":orm_param_0" against pg's "$1": ls_span_same_statement), or when its
    # text is the ORM's JSON record of the call and the child is its one
    # database child (increment, decrement, insert: ls_span_orm_call_of)
    'each TypeORM span is one statement with its pg span',
    # since, of several sessions whose statements fit all of a trace's
    # spans within the match window, the one whose statements lie inside
    # the spans within LS_SPAN_FIT_SLACK_US places them (ls_span_trace_pid,
    # decide/span.c): 279 of 4,802 not placed before (5.8 %), 20 now
    'at most 5 % of the database spans not placed',
    'every logged statement wait over deadlock_timeout + 20 ms is a lockspan wait',
    "statement waits: lockspan's last wait of it ends within 25 ms of the lock's acquisition (95 %)",
    'statement waits: none starts over 25 ms before the app sent the statement',
    "each logged wait's blocker held or queued for that relation's row during it",
    "clock offset: spans behind the server by the app's measured offset (within 5 ms)",
    "slow requests' row-lock wait within max(25 ms, 5 %) of the truth (80 %)",
    "one external-call finding, /bookings's payment call",
    "/bookings's hold is its payment call: POST span ms within max(25 ms, 5 %) of the partner calls in its listed holds",
    # since a key some statement queued for at least 5 ms behind another
    # transaction's hold, its duration spanning that hold's end, is a row
    # (decide/quiet.c, src/correlate/quiet.c; issue 34, branch quiet34):
    # events:2, page_counters:home and seats:4 are hot rows, events:2's
    # holds count in /bookings' occupancy (fail on 53a72c4)
    'events rows with waits: one hot row each (not one per row version)',
    '/bookings occupancy of its hot rows (events): holds and total',
    'csvlog alone: events rows with waits: one hot row each (not one per row version)',
    "csvlog alone: German csvlog: lock waits read ('wartet immer noch' lines + deadlock victims)",
    'csvlog alone: German csvlog: no unparsable lines',
    'csvlog alone: deadlocks',
    'csvlog alone: serialization failures (none)',
    'csvlog alone: deadlock victims: pid and time (within 50 ms)',
    'csvlog alone: deadlock finding: lock rows in the same order',
    "csvlog alone: hottest row's relation is events (truth: events:1)",
    "csvlog alone: keyed hot rows besides events: every row with a logged wait or in a deadlock's cycle, and no row nobody waited for",
    "csvlog alone: events: total logged wait (all events rows) within 5 % of the truth's waits over deadlock_timeout",
    'csvlog alone: every listed hold is a truth lock of that pid and relation',
    'csvlog alone: hold start (row locked) within max(25 ms, 5 %): 100 %+ of holds',
    'csvlog alone: hold end (COMMIT/ROLLBACK) within max(25 ms, 5 %): 100 %+ of holds',
    'csvlog alone: hold length within max(25 ms, 5 %): 80 %+ of holds',
    'csvlog alone: top code path by row occupancy',
    'csvlog alone: every logged statement wait over deadlock_timeout + 20 ms is a lockspan wait',
    "csvlog alone: statement waits: lockspan's last wait of it ends within 25 ms of the lock's acquisition (95 %)",
    'csvlog alone: statement waits: none starts over 25 ms before the app sent the statement',
    "csvlog alone: each logged wait's blocker held or queued for that relation's row during it",
]

# Expected failures (XFAIL) left, issue 34: venue_totals:1 had lock waits
# (another transaction held the row during them: judge.py's waited_rows)
# all below deadlock_timeout, and no logged wait, deadlock or error names
# it; it is locked by a trigger whose statement the csvlog never shows, so
# no statement of its key is known either (page_counters:home, seats:4
# and events:2 are hot rows since branch quiet34: their statements'
# durations span another transaction's hold of their key). No shape rule
# says INSERT INTO bookings locks it (learned_rules is empty): a rule is
# learned only from a keyed logged wait whose statement locked a row it
# does not name, and none names venue_totals; the trigger's row is
# venue_totals.venue_id = events.venue_id of NEW.event_id, a join, which
# no rule keyed by an argument of the INSERT can say (events 1 and 2 both
# lock venue 1). See JUDGEMENT.md item 3 (branch ts34c).

# Printed, not asserted: the truth does not know the app's in-process gaps.
NOT_ASSERTED = [
    "idle-in-transaction findings (INFO: the app's in-process gaps are not in the truth)",
]


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: check_blind_ts.py LOCKSPAN [SAMPLE_DIR]")
    lockspan = os.path.abspath(sys.argv[1])
    sample = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "blind-ts"))
    sys.path.insert(0, os.path.join(sample, "app"))
    import judge                                    # noqa: E402

    with tempfile.TemporaryDirectory(prefix="check_blind_ts.") as tmp:
        full, csv_only = judge.reports(lockspan, sample, tmp)
    truth = judge.load(os.path.join(sample, "truth.json"))
    results = {r["name"]: r for r in judge.Judge(truth, full, csv_only, sample).run()}
    sys.exit(lscheck.judged("check_blind_ts", results, MUST_HOLD,
                            not_asserted=NOT_ASSERTED))


if __name__ == "__main__":
    main()
