#!/usr/bin/env python3
"""Blind check of lockspan on samples/blind-pool (a Node.js Sequelize app
behind pgbouncer in transaction pooling mode, PostgreSQL 17 jsonlog and a
whole-second %t stderr log, log_min_duration_statement = 50, stock
OpenTelemetry JS spans with no backend pid).

  check_blind_pool.py LOCKSPAN [SAMPLE_DIR]

Runs `lockspan analyze` three times on the committed files (jsonlog + the
OTLP export; the whole-second stderr log alone; the stderr log + the
export, whose checks are named "%t + traces: ..."), compares the JSON
reports with the app's client-side truth (samples/blind-pool/app/judge.py, written blind from the
docs) and
  - asserts the facts lockspan gets right today (MUST_HOLD): a regression
    fails the run (exit 1);
  - prints what it gets wrong as expected failures (XFAIL), not counted
    as passes; one that starts to pass is printed as XPASS so it can be
    moved to MUST_HOLD;
  - prints the checks in NOT_ASSERTED (right by coincidence) as INFO.
Exit 0 when every MUST_HOLD check passes. No server is needed.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import lscheck

# The checks of judge.py that lockspan answers right on this sample
# (samples/blind-pool/JUDGEMENT.md). Every other check is an expected failure.
MUST_HOLD = [
    # the logging verdict (input.logging, decide/logcover.c) names the
    # setting: right since sum38 (2026-12-06), asserted since
    "report says most statements were not logged (log_min_duration_statement = 50)",
    "%t + traces: report says most statements were not logged (log_min_duration_statement = 50)",
    "deadlocks",
    "deadlock victims (pid where the truth knows it, within 100 ms)",
    "serialization failures (40001)",
    "rows with a logged wait",
    "hot rows, top 3 by logged wait",
    "timeline holds whose trace locked that row",
    "logged waits within a truth wait of their pid",
    "logged waits whose holder_pid held the row during the wait",
    "database spans without a backend pid said (stock pg instrumentation has none)",
    "spans it could not place said, with why",
    "clock offset, database minus app, ms (within 5 ms)",
    "whole-second log alone: occupancy totals given as ranges",
    "whole-second log alone: top code path by row occupancy",
    "whole-second log alone: deadlocks",
    # the %t stderr log with the export: times from the log matched within
    # the log's second, durations as ranges that must meet the truth
    "%t + traces: deadlocks",
    "%t + traces: serialization failures (40001)",
    "%t + traces: rows with a logged wait",
    "%t + traces: hot rows, top 3 by logged wait",
    "%t + traces: timeline holds: [hold_min, hold_max] meets the truth",
    "%t + traces: logged waits within a truth wait of their pid",
    "%t + traces: logged waits whose holder_pid held the row during the wait",
    "%t + traces: database spans without a backend pid said (stock pg instrumentation has none)",
    "%t + traces: spans it could not place said, with why",
    # since an HTTP span named only by its method is named by its target and
    # a server span without http.route gives its url.path as the route
    # (parsers/tracejson.c ls_tj_http_name, traces.c span_route): every
    # path was 'POST' before
    "finding: external call in transaction blamed on POST /bookings",
    "slow requests named by their route",
    "%t + traces: top code path by row occupancy",
    "%t + traces: finding: external call in transaction blamed on POST /bookings",
    "%t + traces: slow requests named by their route",
    # since an error belongs to the statement running in its session when
    # it was written (log position, decide/errstmt.h; branch err34): a 40001
    # of one client is no longer pinned on another client's acquired wait
    # of the same pooled backend (serialization_failure 30 and 61 before)
    "logged waits that ended in an error, by outcome",
    "%t + traces: logged waits that ended in an error, by outcome",
    # since a transaction that moved an amount to another row of the
    # relation is read from its request's trace too (a wait in no known
    # transaction: the one request whose span of its text overlaps it;
    # decide/counter.c, branch ctr34): none (accounts:1 and :3 before)
    "finding: hot counter rows that are balances moved between rows (transfers)",
    "%t + traces: finding: hot counter rows that are balances moved between rows (transfers)",
    # since a whole-second log's time is its second's start, what it times
    # ran up to a second later (spans.c add_interval): -414.5 ms before
    "%t + traces: clock offset, database minus app, ms (within 100 ms)",
    "%t + traces: logged waits whose trace is a truth waiter's request in their second",
    # since a whole-second deadlock wait takes the transaction its deadlock
    # was linked to (decide/victim.c) where its span times fit the wait's
    # second, else one transaction that alone fits, else none
    # (decide/waittx.c, transactions.c relink_whole_waiters; branch
    # poolt34): 10 of 62 on 5120a43
    "%t + traces: logged deadlock waits whose trace is a victim's request of their second",
    # since a whole-second deadlock wait's holder is the transaction
    # running the holder's DETAIL statement at the deadlock, where its
    # request's spans rebuilt it (decide/waittx.c ls_wait_holder_stmt_pick,
    # transactions.c relink_whole_holders; branch poolt34): 25 of 62 on
    # 5120a43 (the pooled pid's transaction by log position: another
    # client's, a booking or check-in then holding an accounts row)
    "%t + traces: logged deadlock waits whose holder's trace held the row during the wait",
    # since the input section says when backend pids ran several requests
    # (reports/coverage.c, input.pooled_backends)
    "report says one backend pid served many requests (pooler)",
    "%t + traces: report says one backend pid served many requests (pooler)",
    "input.pooled_backends: the pids that served several requests",
    "%t + traces: input.pooled_backends: the pids that served several requests",
    # since a pooled backend's deadlock victim gets its transaction from its
    # request's BEGIN and ROLLBACK spans (spans.c write_victims): 0 of 62
    # victims' traces and 197 of 260 waiters' before; the lock order
    # finding (transfers against itself, accounts) appears, 1 deadlock
    "deadlock victims' trace (request) named",
    "logged waits whose waiter's trace is the truth waiter's request",
    "finding: inconsistent lock order (transfers lock accounts in request order)",
    # since a 40001 whose transaction the log does not show (pooled
    # backends, log_min_duration_statement) is retried when its request's
    # trace runs the failed statement's shape in its next transaction, on
    # any backend (decide/retry.c, retries.c; issue 34, branch rty34): 49
    # of 49 with the jsonlog and with the %t log (0 before: the retry was
    # looked for in the backend's own later statements)
    "40001 failures retried",
    "%t + traces: 40001 failures retried",
    # since a transaction the log saw as one statement ends at its
    # request's COMMIT (ROLLBACK) span when the statement's span ran
    # between a BEGIN and a COMMIT of its trace (txspans.c,
    # decide/spantx.c; branch pool34b): events:1 mean hold 17.3 ms before
    # (86 of its 92 holds 0 ms), top path /transfers, timeline holds 120
    # and 126 of 363. On the %t log the span is matched by its text, the
    # logged duration and the second, and the hold begins at its end
    # (hold_ms 104 of 326 before, 245 now, still XFAIL); the lock order
    # finding (0 before) appears: each transfer's two accounts are one
    # transaction.
    "events:1 mean hold, ms",
    "top code path by row occupancy",
    "timeline holds: hold_ms within max(25 ms, 5 %) of the truth",
    "timeline holds: [hold_min, hold_max] meets the truth",
    "%t + traces: events:1 mean hold, ms",
    "%t + traces: finding: inconsistent lock order (transfers lock accounts in request order)",
    # since a rebuilt transaction's statements the log does not have (a
    # booking's UPDATE events under 50 ms before its logged INSERT) hold
    # the hot row their span's text names, from the span's end to the
    # COMMIT span (txspans.c span_holds): 92 holds, 1.59 s on 43a13e6;
    # 94 and 27.68 s (29.0-29.4) now, 96 with the %t log
    "events:1 holds (occupancy)",
    "events:1 occupied, s",
    "%t + traces: events:1 holds (occupancy)",
    # since on a whole-second log the victims of one second are paired with
    # their failed spans in the log's order and linked to the transaction
    # rebuilt from them (decide/victim.c, spans.c write_victims,
    # transactions.c relink_victims; branch vict34): 62 of 62 (17 before,
    # and 27 victims' routes None, 9 /checkins or /bookings)
    "%t + traces: deadlock victims' trace (request) named",
    "%t + traces: deadlock victims' route (all POST /transfers)",
    # since a millisecond log's victim takes the one failed span of its
    # text that ended by the time the client hears of a deadlock (100 ms),
    # not a later victim's that began before it (decide/victim.c): 59 of
    # 62 before (3 routes None), waiters' traces 257 of 260 before
    "deadlock victims' route (all POST /transfers)",
    # since a deadlock's sides are read from its DETAIL where the holds do
    # not tell: the row the survivor's statement waited for (the victim's
    # first), the transaction running it, the victim's from deadlock_links
    # (dlprocs.c, lockorder.h): /transfers against itself in 35 deadlocks
    # on both logs (1 on the jsonlog and 0 on %t before)
    # (and "%t + traces: finding: inconsistent lock order", listed above)
    # since a request's transaction whose statements the log has none of
    # (all under 50 ms, no wait; its spans have no pid) is one of its own,
    # no session and no pid, from its BEGIN..COMMIT spans, holding the hot
    # rows its statements' text names from each span's end to the COMMIT
    # span's (txspans.c spans_only, decide/spantx.c ls_span_tx_logged;
    # evidence "spans only"): 311 such transactions, 503 holds. On 74550a7
    # accounts:3 86 holds of 216, mean 114 ms; hidden waiting 26.0 s (truth
    # 35.0); events:1 logged + hidden 44.4 s (truth 47.0); %t timeline holds
    # with a trace that locked the row 373 of 429
    "accounts:3 holds (occupancy)",
    "accounts:3 mean hold, ms",
    "events:1 wait, logged + hidden, s",
    "%t + traces: timeline holds whose trace locked that row",
    # since on the %t log a logged statement among others of its text
    # stamped in the same second takes the span its place in the log's
    # order gives (file and line), once the spans that fit none of their
    # durations are set aside and the rest pair in order
    # (decide/spantx.c ls_span_pick_in_order, txspans.c pick_in_order):
    # 186 of the logged statements' transactions left as the log has them
    # (197 before); hold_ms 413 of 485 before (290 of 373 on 74550a7),
    # events:1 occupied 26.9 s before (truth 29.0-29.4)
    "%t + traces: timeline holds: hold_ms within max(25 ms, 5 %) of the truth",
    "%t + traces: events:1 occupied, s",
    # since a statement's bind parameters are read from PostgreSQL 17's
    # capitalized DETAIL ("Parameters: $1 = '1', ...", ingest/classify.c
    # stmt_params; 0 of 556 statements had their parameters before): the
    # check-in and booking INSERTs' waits on event_totals are keyed by their
    # trigger's NEW.event_id (CONTEXT), two rules are learned (INSERT INTO
    # checkins, bookings: event_id) and key the 147 logged INSERTs.
    # event_totals:1 logged + hidden 25.3 s before (truth 40.1); 4 ctid-only
    # rows before (6 on the jsonlog); slow requests' row-lock wait 7 of 10
    "hot rows lockspan could not key (ctid only; truth: every row has a key)",
    "%t + traces: hot rows lockspan could not key (ctid only; truth: every row has a key)",
    "event_totals:1 wait, logged + hidden, s",
    "slow requests: row-lock wait within max(25 ms, 5 %)",
    # since on the %t log a hold that begins at its locking statement's
    # span's end has that span's start as its statement's (start_lo,
    # decide/spantx.c ls_span_hold_start; txspans.c hold_start): the
    # hidden-waits pass queues the statement from there. With start_lo
    # dropped (pool34c's log-order pick gave 368 logged statements their
    # span) the statements had no time to queue in: hidden waiting 4.6 s
    # (jsonlog 46.6 s), event_totals:1 logged + hidden 21.5 s
    "%t + traces: event_totals:1 wait, logged + hidden, s",
    # since a deadlock victim's statements before the failed one, which the
    # log does not have, hold the rows their spans name from each span's
    # end to the error (txspans.c victim_holds, decide/spantx.c
    # ls_span_victim_tx; millisecond logs): 31 holds of accounts 1-3 (10 of
    # id=3, 2.43 s; its transfers' first UPDATE, the row the other side
    # waited for). accounts:3 occupied 12.93 s before (14.4-15.2), 215 holds
    "accounts:3 occupied, s",
    # since a logged wait's holder behind the pooler is the transaction
    # whose hold of the row covered the wait's first message, of the holder's pid or
    # rebuilt from its request's spans alone, where the pid's logged one had
    # ended by then (decide/link.c ls_holder_tx, transactions.c
    # link_pooled_holders; branch poolwait34; millisecond logs only): 258 of
    # 260 (204 before). With the waits on the right holders, the bookings'
    # holds others waited for are mostly the partner call (10.6 s of 21.9 s;
    # before, SQL 12.6 s of 24.6 s, with 5 holds "bounded by transaction
    # start and first wait" made for the wrongly linked transactions)
    "logged waits whose holder's trace held the row during the wait",
    "top path mostly (truth: POST /bookings, the partner call)",
    # issue 34 (poolhid34): lockspan's hidden waiting is no over-count.
    # Of its 55.1 s rebuilt, 53.8 s lies in the truth's unlogged waiting of
    # the same request on the same row, 2.9 s in settlements' SELECT ...
    # FOR UPDATE on event_totals, which the truth lists as no wait (their
    # acquisition has only bounds, build_truth.py waited_ms 0; 30 such
    # waits, 216 ms of one logged inside its statement), 0.13 s elsewhere
    # (from the store; from the report's timelines, hidden_excess, 0.22 s of
    # 57.0 s: a pid-less wait keeps its time under another's logged wait).
    # Per row it is below the truth's unlogged waiting on every row: it
    # misses 13.2 s (67.0 s), it adds none. A guard: it held on ca8fabd
    # already; without FOR UPDATE set apart it reads 3.1 s and fails.
    "hidden waiting rebuilt where the request did not wait on the row "
    "(over-count; FOR UPDATE the truth cannot time set apart), s",
    # since a logged transaction wait's statement whose end is timed (a
    # duration, sub-second stamps) waits until the hold queued before it
    # ended when that is later: it lost the race at the holder's end and
    # waited on for the winner's transaction, unlogged (decide/hidden.c
    # ls_hidden_logged_wait; poolhid34). 111 of 134 before (23 ended at the
    # logged acquired line, up to 310 ms early); hidden waiting 55.1 ->
    # 57.5 s (truth 67.0), events:1 logged + hidden 45.12 -> 46.90 s (truth
    # 46.98), event_totals:1 40.29 -> 40.56 s (40.14); the %t log's
    # unchanged (its holds' ends are whole seconds)
    "logged waits' statements: rebuilt end within max(25 ms, 5 %) of the truth's acquisition",
    # since on the %t log with traces a logged wait's statement that its
    # span timed waits from the span's start to its end, kept inside the
    # acquired line's second, never less than its "after"s (decide/hidden.c
    # ls_hidden_span_timed_wait; branch tsspan34): the lines' whole-second
    # stamps were taken as millisecond ones, the first line's second's
    # start less its "after" as the wait's start, up to a second early.
    # Logged waits' statements within max(25 ms, 5 %) 8 of 128 before
    # (67.2 s against 71.6), 122 now (71.3 s); event_totals:1's 62 logged
    # statements 28.3 s -> 24.8 s (truth 24.7); events:1 logged + hidden
    # 43.08 -> 46.21 s (46.98); slow requests' row-lock wait 1 -> 9 of 10
    "%t + traces: logged waits' statements: rebuilt wait within max(25 ms, 5 %) of the truth's",
    "%t + traces: events:1 wait, logged + hidden, s",
    "%t + traces: slow requests: row-lock wait within max(25 ms, 5 %)",
    # since a logged statement is one of a span's only if the span lasted
    # as long (less each end's millisecond; decide/spantx.c is_span_of,
    # branch pool34): on whole seconds a statement may be any span of its
    # text in its second, and a request whose short UPDATE span fell in
    # the second of another's 63 ms statement was taken as logged, so no
    # transaction of spans only was made for it (81 transfers holding
    # accounts id=3 had none). 132 holds of 216 before (mean 96.8 ms)
    "%t + traces: accounts:3 holds (occupancy)",
]

# judge.py's "hidden waiting (waits below deadlock_timeout)" compares
# summary.hidden_waits.hidden_wait_ms with the truth's waits shorter than
# deadlock_timeout (35.0 s). hidden_wait_ms is the queueing the log did not
# show (docs/report-json.md), which also holds the unlogged part of longer
# waits: a statement's wait is logged only when one of its phases (tuple
# lock, then transaction lock) lasts deadlock_timeout. In truth 67.0 s of
# waiting is covered by no logged wait of its pid (hidden_truth_check). On
# 47de16d lockspan's 34.0 s matched 35.0 by coincidence (event_totals:1
# logged + hidden 25.3 s of 40.1); with the parameters read it is 46.6 s,
# nearer the 67.0 s it measures: no longer asserted, hidden_truth_check
# says how far it is. That is the definition docs/report-json.md gives
# (the queueing the log did not show, its logged waits' time apart), and
# the one lockspan is judged by: 55.1 s against 67.0 s is an under-count
# (issue 34, poolhid34: 53.8 s of it lies in the truth's unlogged waits
# of the same request and row, 2.9 s in FOR UPDATE waits the truth lists
# as none; hidden_excess_check). judge.py's 35.0 s also drops the unlogged
# part of waits of 200 ms and more, and counts those under 200 ms that a
# logged wait of the same statement covers; it stays XFAIL. Measured again
# on pool34 (2026-12-07): truth 67.0 s = 35.0 s (the 514 waits under
# 200 ms, none covered) + 32.0 s (the unlogged phases of the 249 longer
# ones); lockspan's 59.4 s rebuilt = 30.0 s in the short waits + 26.2 s
# in the long ones' unlogged phases + 2.9 s FOR UPDATE + 0.13 s elsewhere.
# On %t + traces (53.9 s since pool34's spans-only transactions, 44.3 s
# before) the 8.9 s where the request had no truth wait on the row are
# 5.7 s in another request's truth wait of the same pid and row (the
# same-text spans of a second paired wrong), 2.3 s in its own once moved
# by under a second, 0.8 s neither: the request and the place in the
# second are wrong, not the waiting; no decision makes waits up.

# "%t + traces: code paths told apart" counted 5 on main a1c8ca7 only
# because one transaction was linked to no trace and fell back to its
# application_name ('ticket-api'); with the statement links right on %t
# (traces.c pair_distance) it is 4 routes, as on the jsonlog (/prices
# holds no row anyone logged a wait for): an expected failure again.
# The judge counts the routes that locked any row (5); row_occupancy ranks
# the paths that held a hot row. /prices locks ticket_prices by an UPDATE
# with bound parameters that never ran over 50 ms: its only log lines are
# the 51 40001 ERRORs, whose STATEMENT has $1 and no parameters, and its
# spans have no values, so no input names its rows (pool34d, 2026-12-07):
# left as the judge has it, not attainable from these inputs.
#
# "top path mostly": the judge splits every booking's whole hold of its
# events row (partner call 35.1 s, the rest 13.7 s). story.doing is the
# largest part of the holds others waited for, while they waited
# (docs/report-json.md); the truth of that is the partner call 9.0 s
# against 8.5 s of SQL (98 bookings' holds from the first waiter's send to
# the release): span, by 5 %. lockspan said SQL (12.6 s against 11.0 s)
# until the waits' holders were the right transactions (poolwait34: the
# call 10.6 s of 21.9 s): asserted since, above.

# Right today, but only by coincidence: not asserted, printed as INFO.
NOT_ASSERTED = {
    # 86 ms (51-68, within 25 ms) from 225 of the row's 420 holds: the
    # logged, contended check-ins and bookings; the unlogged ones' spans
    # carry $1 without its value, so no rule can key them
    "event_totals:1 mean hold, ms",
    # from 57 and 90 of the rows' 216 and 420 holds (58.9 and 28.6 ms on
    # main; 196 and 96 ms since their ends are their COMMIT spans: the
    # logged ones are the contended, longer holds)
    "%t + traces: accounts:3 mean hold, ms",
    # 14.39 s against 14.4-15.2 (within 5 %) from 138 of the row's 216
    # holds, mean 104 ms (67-70): fewer, longer holds that happen to sum
    # up (13.05 s before the log-order pick)
    "%t + traces: accounts:3 occupied, s",
    "%t + traces: event_totals:1 mean hold, ms",
    # /bookings' partner call 10734.8 ms against its SQL 10732.6 ms since
    # poolt34 (the deadlock waits' holders no longer bookings and check-ins
    # holding accounts rows: /bookings 62.8 s -> 49.5 s, truth 50.8 s;
    # SQL 17.7 s before): right by 2 ms
    "%t + traces: top path mostly (truth: POST /bookings, the partner call)",
}


# A 40001's log line is written before the client hears of it through
# pgbouncer: the truth's failure time ("at") is 0-55 ms after it here.
FAIL_HEARD_MS = 100


def retry_checks(judge, truth, report):
    """What the judge's count (within 10 %) does not see: each 40001 of the
    millisecond log, paired in order with the truth's failures heard within
    FAIL_HEARD_MS after it, is retried exactly when the truth's request ran another attempt;
    the retry found is in that attempt (its time inside the attempt's
    transaction), with its outcome (commit, or it failed again), and said
    to be matched by the request's trace. (name, ok, lockspan, truth)."""
    fails = truth["serialization_failures"]
    nxt = {(t["trace_id"], t["attempt"]): t for t in truth["transactions"]}
    errs = sorted((e for e in report["errors"] if e["sqlstate"] == "40001"),
                  key=lambda e: (e["time"], e["line"]))
    right, bad = 0, []
    used = set()
    for f in sorted(fails, key=lambda f: f["at"]):
        # in order, one to one: two failures 1 ms apart are heard in the
        # order they were logged
        near = [i for i, e in enumerate(errs) if i not in used
                and 0 <= f["at"] - judge.ms(e["time"]) <= FAIL_HEARD_MS]
        e = errs[near[0]] if near else None
        used.update(near[:1])
        att = nxt.get((f["trace_id"], f["attempt"] + 1))
        if e is None:
            bad.append("no error for %s/%d" % (f["trace_id"][:8], f["attempt"]))
            continue
        ok = e["retried"] == (att is not None)
        if ok and att is not None:
            at = judge.ms(e["retry_time"]) if e["retry_time"] else None
            want = "commit" if att["outcome"] == "commit" else "aborted"
            ok = (at is not None and att["start"] <= at <= att["released_hi"]
                  and e["retry_outcome"] == want and e.get("retry_matched_by") == "trace")
        if ok:
            right += 1
        else:
            bad.append("%s/%d: %s %s %s %s" % (f["trace_id"][:8], f["attempt"], e["retried"],
                                             e["retry_time"], e["retry_outcome"],
                                             e.get("retry_matched_by")))
    return ("40001 errors whose retry (or none) is the request's next attempt, with its "
            "outcome, matched by trace", right == len(fails), "%d%s" % (
                right, " (%s)" % "; ".join(bad[:3]) if bad else ""), len(fails))


# The rules that claim a hot row of their own (decide/finding.h,
# ls_finding_row_keyed). event_totals event_id=1's waits through the
# check-in trigger that the log gives no key for are row versions,
# "ctid (0,20)" and the like: one logical row split, never a row at its
# serial capacity or a counter of its own (both fired on (0,20) on
# 43a13e6, on the jsonlog and on %t). That they are still listed apart in
# hot_rows is the judge's XFAIL "hot rows lockspan could not key".
ROW_RULES = ("hot_counter_row", "hidden_waiting", "serial_capacity")


def ctid_findings_check(prefix, report):
    """(name, ok, lockspan, truth): no row finding on a ctid-only row."""
    bad = ["%s %s" % (f["rule"], f.get("row")) for f in report["findings"]
           if f["rule"] in ROW_RULES and (f.get("row") or "").startswith("ctid ")]
    return (prefix + "row findings on rows known only by a ctid (ls_finding_row_keyed)",
            not bad, bad, [])


def analyze(lockspan, out, inputs):
    run = subprocess.run([lockspan, "analyze", "-q", "-o", out] + inputs,
                         capture_output=True, text=True)
    if run.returncode != 0:
        print(run.stderr, file=sys.stderr)
        sys.exit("FAIL: lockspan analyze %s exited %d" % (" ".join(inputs), run.returncode))
    with open(out) as f:
        return json.load(f)


def no_pid_zero_check(lockspan, tmp, inputs):
    """(name, ok, lockspan, truth): the Markdown and HTML reports name no
    'pid 0'. A transaction rebuilt from its spans alone behind the pooler
    (txspans.c spans_only) has no backend pid; its holds were drawn as
    'pid 0' on the timelines (2 in report.md, 252 in report.html before
    reports/prose.c and html.c said 'pid unknown')."""
    md, html = os.path.join(tmp, "r.md"), os.path.join(tmp, "r.html")
    run = subprocess.run([lockspan, "analyze", "-q", "-o", md, "-o", html] + inputs,
                         capture_output=True, text=True)
    n = 0
    if run.returncode == 0:
        for p in (md, html):
            with open(p) as f:
                n += len(re.findall(r"\bpid 0\b", f.read()))
    return ("report names no 'pid 0' (no pid is known behind the pooler)",
            run.returncode == 0 and n == 0, n, 0)


def pooled_check(prefix, truth, report):
    """The input section's pooled backends against the truth's: every
    backend pid of the truth ran several requests, so each is counted."""
    p = report.get("input", {}).get("pooled_backends") or {}
    pids = len(truth["backend_pids"])
    name = prefix + "input.pooled_backends: the pids that served several requests"
    return {name: {"name": name, "lockspan": p.get("pids"), "truth": pids,
                   "ok": p.get("pids") == pids and p.get("requests", 0) > pids}}


# On a whole-second log several truth waits of one pid fit a logged wait's
# second; judge.py compares with the first only. The waiter's trace is
# right when it is the request of any of them; 208 of 267 since the
# statement links pair by duration there (traces.c pair_distance), 98 on
# a1c8ca7; 225 on 5120a43, 251 since a deadlock wait takes its deadlock's
# transaction where the spans' times fit the wait's second
# (decide/waittx.c, transactions.c relink_whole_waiters; branch poolt34):
# at least nine tenths asserted (three quarters before).
SECONDS_WAITER_SHARE = 0.9


def seconds_waiter_check(judge, truth, report):
    """%t + traces: logged waits whose trace is the request of a truth wait
    of their pid (or row, where the truth knows no pid) in their second."""
    tol = judge.SECOND_MS
    n = good = 0
    for w in report["waits"]:
        s, e = judge.ms(w["start"]), judge.ms(w["end"])
        row = judge.row_of(w["relation"], w.get("row_key"))
        cand = [x for x in truth["waits"]
                if (x["waiter_pid"] == w["pid"] or (x["waiter_pid"] is None and x["row"] == row))
                and x["sent"] - tol <= s and e <= x["until"] + 2 * tol]
        if not cand:
            continue
        n += 1
        if w.get("trace_id") and any(x["waiter_trace_id"] == w["trace_id"] for x in cand):
            good += 1
    name = "%t + traces: logged waits whose trace is a truth waiter's request in their second"
    return {name: {"name": name, "lockspan": good, "truth": n,
                   "ok": n and good >= SECONDS_WAITER_SHARE * n}}


def seconds_deadlock_waiter_check(judge, truth, report):
    """%t + traces: logged waits that ended in a deadlock whose trace is
    the request of a truth victim of their pid caught in the wait's last
    second (or up to judge.DEADLOCK_TIME_MS after it: the app hears of it
    after the server wrote it). Every one: 10 of 62 on 5120a43 (the wait
    took the session's transaction open at its derived start, the first
    instant of its second: another client's, or none)."""
    n = good = 0
    for w in report["waits"]:
        if w["outcome"] != "deadlock":
            continue
        e = judge.ms(w["end"])
        cand = [d for d in truth["deadlocks"] if d["victim_pid"] in (w["pid"], None)
                and e - 5 <= d["detected_at"] < e + judge.SECOND_MS + judge.DEADLOCK_TIME_MS]
        if not cand:
            continue
        n += 1
        if w.get("trace_id") and any(d["victim_trace_id"] == w["trace_id"] for d in cand):
            good += 1
    name = "%t + traces: logged deadlock waits whose trace is a victim's request of their second"
    return {name: {"name": name, "lockspan": good, "truth": n,
                   "ok": n > 0 and good == n}}


# The deadlock waits' holders on the %t log: 25 of 62 on 5120a43, 44
# since the holder is the transaction running its DETAIL statement, where
# that one is rebuilt from its request's spans (decide/waittx.c
# ls_wait_holder_stmt_pick; branch poolt34). The rest: a survivor whose
# transaction the spans did not give, or two statements of its text
# running in that second.
SECONDS_DEADLOCK_HOLDER_SHARE = 2 / 3


def seconds_deadlock_holder_check(judge, truth, report):
    """%t + traces: logged waits that ended in a deadlock whose holder's
    trace held the wait's row during it (judge.py's held_during, within
    the log's second)."""
    j = judge.Judge(truth, report, seconds=True)
    n = good = 0
    for w in report["waits"]:
        if w["outcome"] != "deadlock":
            continue
        row = judge.row_of(w["relation"], w.get("row_key"))
        if not row:
            continue
        n += 1
        if w.get("holder_trace_id") and j.held_during(
                row, judge.ms(w["start"]), judge.ms(w["end"]), trace_id=w["holder_trace_id"]):
            good += 1
    name = "%t + traces: logged deadlock waits whose holder's trace held the row during the wait"
    return {name: {"name": name, "lockspan": good, "truth": n,
                   "ok": n > 0 and good >= SECONDS_DEADLOCK_HOLDER_SHARE * n}}


def hidden_truth(judge, truth, report):
    """(truth s, lockspan s): the truth's waiting that no logged wait of
    the waiter's pid covers (what hidden_wait_ms is meant to count), and
    lockspan's hidden_wait_ms."""
    logged = {}
    for w in report["waits"]:
        if w.get("end"):
            logged.setdefault(w["pid"], []).append((judge.ms(w["start"]), judge.ms(w["end"])))
    hidden = 0.0
    for x in truth["waits"]:
        s, e = x["sent"], x["sent"] + x["wait_ms"]
        cov = sum(max(0.0, min(b, e) - max(a, s)) for a, b in logged.get(x["waiter_pid"], ()))
        hidden += max(0.0, x["wait_ms"] - cov)
    return hidden / 1000, report["summary"]["hidden_waits"]["hidden_wait_ms"] / 1000


def minus(iv, cuts):
    """The parts of interval IV outside every interval of CUTS."""
    out = [iv]
    for a, b in cuts:
        out = [p for s, e in out for p in
               (((s, e),) if b <= s or a >= e else
                tuple(x for x in ((s, a), (b, e)) if x[1] > x[0]))]
    return out


def overlap(ivs, jvs):
    return sum(max(0.0, min(b, d) - max(a, c)) for a, b in ivs for c, d in jvs)


def hidden_excess(judge, truth, report):
    """(excess ms, FOR UPDATE ms, rebuilt ms): lockspan's rebuilt hidden
    waiting (each row's timeline.hidden_waits[], less the logged waits of
    its pid) that lies in no unlogged part of a truth wait of the same
    request (trace) on the same row: waiting the truth does not have. Set
    apart: the part inside a settlement's SELECT ... FOR UPDATE, whose
    acquisition the app could not stamp (build_truth.py takes acquired_lo
    = sent, so waited_ms 0 and no truth wait), between its send and the
    upper bound of its acquisition."""
    logged = {}
    for w in report["waits"]:
        if w.get("end"):
            logged.setdefault(w["pid"], []).append((judge.ms(w["start"]), judge.ms(w["end"])))
    tw = {}
    for x in truth["waits"]:
        tw.setdefault((x["waiter_trace_id"], x["row"]), []).extend(
            minus((x["sent"], x["sent"] + x["wait_ms"]), logged.get(x["waiter_pid"], ())))
    fu = {}
    for tx in truth["transactions"]:
        for lk in tx["locks"]:
            if lk.get("acquired") is None:
                fu.setdefault((tx["trace_id"], lk["row"]), []).append((lk["sent"], lk["acquired_hi"]))
    excess = fu_ms = rebuilt = 0.0
    for h in report["hot_rows"]:
        row = judge.row_of(h["relation"], h.get("row_key"))
        for w in (h.get("timeline") or {}).get("hidden_waits", ()):
            if not w.get("end"):
                continue
            hid = minus((judge.ms(w["start"]), judge.ms(w["end"])),
                        logged.get(w["pid"], ()) if w.get("pid") else ())
            n = sum(b - a for a, b in hid)
            rebuilt += n
            key = (w.get("trace_id"), row)
            out = n - overlap(hid, tw.get(key, ()))
            f = min(out, overlap(hid, fu.get(key, ())))
            fu_ms += f
            excess += out - f
    return excess, fu_ms, rebuilt


# The most rebuilt hidden waiting (ms) allowed outside the truth's waits:
# 0.22 s of 57.0 s on ca8fabd (in the store, 78 ms rebuilt for statements
# rebuilt from their spans alone, pid unknown, whose logged wait on their
# backend already counts; 53 ms where the request had no truth wait on the
# row).
HIDDEN_EXCESS_MS = 1000.0


def hidden_excess_check(judge, prefix, truth, report):
    excess, fu_ms, rebuilt = hidden_excess(judge, truth, report)
    name = (prefix + "hidden waiting rebuilt where the request did not wait on the row "
            "(over-count; FOR UPDATE the truth cannot time set apart), s")
    return {name: {"name": name,
                   "lockspan": "%.2f (of %.1f; %.1f inside untimed FOR UPDATE)" % (
                       excess / 1000, rebuilt / 1000, fu_ms / 1000),
                   "truth": "<= %.1f" % (HIDDEN_EXCESS_MS / 1000),
                   "ok": rebuilt > 0 and excess <= HIDDEN_EXCESS_MS}}


# A logged wait's statement that lost the race after its holder's
# transaction ended waited on, unlogged, for the winner's (decide/hidden.c
# ls_hidden_logged_wait, stmt_end_logged): 111 of 134 such waits' ends
# within max(25 ms, 5 %) of the truth's acquisition on ca8fabd (23 early,
# the logged end kept), 126 since (8 early, none late).
LOGGED_END_SHARE = 0.9


def logged_end_check(judge, truth, report):
    """(name: result): the truth's waits that did not fail, matched to the
    one rebuilt wait with a logged part (timeline.hidden_waits[] kind
    'logged') of the same request and row overlapping it, whose end is
    within max(25 ms, 5 %) of the truth's acquisition (until)."""
    reb = {}
    for h in report["hot_rows"]:
        row = judge.row_of(h["relation"], h.get("row_key"))
        for w in (h.get("timeline") or {}).get("hidden_waits", ()):
            if w.get("end") and w["kind"] == "logged":
                reb.setdefault((w.get("trace_id"), row), []).append(w)
    n = good = late = 0
    for x in truth["waits"]:
        if x["failed"]:
            continue
        ws = [w for w in reb.get((x["waiter_trace_id"], x["row"]), ())
              if judge.ms(w["start"]) < x["until"] and judge.ms(w["end"]) > x["sent"]]
        if len(ws) != 1:
            continue
        n += 1
        d = judge.ms(ws[0]["end"]) - x["until"]
        good += abs(d) <= max(25.0, 0.05 * x["wait_ms"])
        late += d > max(25.0, 0.05 * x["wait_ms"])
    name = ("logged waits' statements: rebuilt end within max(25 ms, 5 %) of the truth's "
            "acquisition")
    return {name: {"name": name, "lockspan": "%d (%d late)" % (good, late), "truth": n,
                   "ok": n > 0 and good >= LOGGED_END_SHARE * n and late == 0}}


# The share of the %t log's logged waits' statements whose rebuilt wait is
# within max(25 ms, 5 %) of the truth's: 122 of 128 since tsspan34 (8 on
# 08d73b5).
SECONDS_LOGGED_SHARE = 0.9


def seconds_logged_wait_check(judge, truth, report):
    """(name: result): on the %t log with traces, the truth's waits that did
    not fail, matched to the one rebuilt wait with a logged part
    (timeline.hidden_waits[] kind 'logged') of the same request and row
    within a second of it (the lines' tick), whose waited_ms is within
    max(25 ms, 5 %) of the truth's wait_ms."""
    reb = {}
    for h in report["hot_rows"]:
        row = judge.row_of(h["relation"], h.get("row_key"))
        for w in (h.get("timeline") or {}).get("hidden_waits", ()):
            if w.get("end") and w["kind"] == "logged":
                reb.setdefault((w.get("trace_id"), row), []).append(w)
    n = good = 0
    got_ms = truth_ms = 0.0
    for x in truth["waits"]:
        if x["failed"]:
            continue
        ws = [w for w in reb.get((x["waiter_trace_id"], x["row"]), ())
              if judge.ms(w["start"]) < x["until"] + 1000 and judge.ms(w["end"]) > x["sent"] - 1000]
        if len(ws) != 1:
            continue
        n += 1
        got_ms += ws[0]["waited_ms"]
        truth_ms += x["wait_ms"]
        good += abs(ws[0]["waited_ms"] - x["wait_ms"]) <= max(25.0, 0.05 * x["wait_ms"])
    name = ("%t + traces: logged waits' statements: rebuilt wait within max(25 ms, 5 %) of the "
            "truth's")
    return {name: {"name": name, "lockspan": "%d (%.1f s)" % (good, got_ms / 1000),
                   "truth": "%d (%.1f s)" % (n, truth_ms / 1000),
                   "ok": n > 0 and good >= SECONDS_LOGGED_SHARE * n}}


def hidden_truth_check(judge, prefix, truth, report):
    t, got = hidden_truth(judge, truth, report)
    name = prefix + "hidden waiting: the truth's waiting no logged wait of its pid covers, s"
    return {name: {"name": name, "lockspan": round(got, 1), "truth": round(t, 1),
                   "ok": judge.close(got * 1000, t * 1000)}}


def caused_range_checks(truth, report, seconds_report):
    """The blocking ranking's waiting caused (issue 34): the %t log with
    the traces is a whole-second log (its lock messages and statement
    lines; the spans time statements, not waits: ls_log_resolution), so
    each route's waiting caused has the range the log allows, which holds
    the truth's (each truth wait's wait_ms by its blocker's route, max(25
    ms, 5 %) out), and a pair is left in no certain order exactly where
    the ranges meet, a pair ordered for certain being the truth's order;
    the jsonlog (milliseconds) has no range. (name, ok, got, want) tuples."""
    caused = {}
    for w in truth["waits"]:
        if w.get("blocker_route"):
            path = w["blocker_route"].split(" ", 1)[1]
            caused[path] = caused.get(path, 0.0) + w["wait_ms"]
    cp = seconds_report["code_paths"]
    got, miss, wrong = {}, [], []
    for o in cp:
        lo, hi = o.get("waiter_ms_caused_min"), o.get("waiter_ms_caused_max")
        got[o["code_path"]] = (lo, hi)
        t = caused.get(o["code_path"])
        if lo is None or hi is None or (t is not None and not (
                lo - max(25.0, 0.05 * lo) <= t <= hi + max(25.0, 0.05 * hi))):
            miss.append((o["code_path"], round(t or 0), lo, hi))
    for i, a in enumerate(cp):
        for b in cp[i + 1:]:
            pa, pb = a["code_path"], b["code_path"]
            if pa not in got or got[pa][0] is None or got[pb][0] is None:
                continue
            meet = got[pa][0] <= got[pb][1] and got[pb][0] <= got[pa][1]
            said = pb in a.get("order_uncertain_with", [])
            if said != meet or (not said and caused.get(pb, 0) - caused.get(pa, 0) > 25.0):
                wrong.append((pa, pb, said, meet))
    ms = [o["code_path"] for o in report["code_paths"]
          if "waiter_ms_caused_min" in o or "order_uncertain" in o]
    return [("%t + traces: blocking ranking: each route's waiting caused has a range holding"
             " the truth's", bool(cp) and not miss, miss or len(cp), "inside"),
            ("%t + traces: blocking ranking: order left uncertain exactly where the ranges"
             " meet, the rest the truth's", not wrong, wrong or "none", "none"),
            ("blocking ranking: no waiting-caused range on the jsonlog (milliseconds)",
             not ms, ms or "none", "none")]


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: check_blind_pool.py LOCKSPAN [SAMPLE_DIR]")
    lockspan = os.path.abspath(sys.argv[1])
    sample = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "blind-pool")
    sys.path.insert(0, os.path.join(sample, "app"))
    import judge                                    # noqa: E402

    def path(name):
        p = os.path.join(sample, name)
        return p if os.path.exists(p) else p + ".gz"

    with tempfile.TemporaryDirectory(prefix="check_blind_pool.") as tmp:
        report = analyze(lockspan, os.path.join(tmp, "report.json"),
                         [path("postgresql.json"), path("traces.otlp.jsonl")])
        stderr_report = analyze(lockspan, os.path.join(tmp, "stderr.json"),
                                [path("postgresql.log")])
        seconds_report = analyze(lockspan, os.path.join(tmp, "seconds.json"),
                                 [path("postgresql.log"), path("traces.otlp.jsonl")])
        pid_zero = no_pid_zero_check(lockspan, tmp,
                                     [path("postgresql.json"), path("traces.otlp.jsonl")])
    truth = judge.load(os.path.join(sample, "truth.json"))
    results = {r["name"]: r for r in judge.Judge(truth, report, stderr_report).run()}
    for r in judge.Judge(truth, seconds_report, seconds=True).run():
        r["name"] = "%t + traces: " + r["name"]
        results[r["name"]] = r

    for prefix, r in (("", report), ("%t + traces: ", seconds_report)):
        results.update(pooled_check(prefix, truth, r))
    results.update(seconds_waiter_check(judge, truth, seconds_report))
    results.update(seconds_deadlock_waiter_check(judge, truth, seconds_report))
    results.update(seconds_deadlock_holder_check(judge, truth, seconds_report))
    results.update(seconds_logged_wait_check(judge, truth, seconds_report))
    # the jsonlog's alone: a whole-second log's logged waits are placed
    # within their seconds, and cover the truth's waits only in part
    results.update(hidden_truth_check(judge, "", truth, report))
    results.update(hidden_excess_check(judge, "", truth, report))
    # the %t log's: 17.3 s on 08d73b5, 7.7 s since tsspan34 (each logged
    # wait's time at its evidence's resolution); an expected failure
    results.update(hidden_excess_check(judge, "%t + traces: ", truth, seconds_report))
    results.update(logged_end_check(judge, truth, report))
    sys.exit(lscheck.judged("check_blind_pool", results, MUST_HOLD,
                            first=caused_range_checks(truth, report, seconds_report) +
                            [retry_checks(judge, truth, report),
                                   ctid_findings_check("", report),
                                   ctid_findings_check("%t + traces: ", seconds_report),
                                   pid_zero],
                            not_asserted=NOT_ASSERTED))


if __name__ == "__main__":
    main()
