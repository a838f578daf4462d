#!/usr/bin/env python3
"""Blind check of lockspan on samples/blind-zk (a Sequelize v6 service, one
application_name, traced to Zipkin by the stock OpenTelemetry JS SDK and
@opentelemetry/exporter-zipkin; PostgreSQL 15 stderr log, prefix
'%m [%p] %q%u@%d/%a ', log_statement = 'mod', lock waits, deadlock_timeout
1 s, no durations).

  check_blind_zk.py LOCKSPAN [SAMPLE_DIR]

Runs `lockspan analyze` on the committed log with the Zipkin file (zk: and
again under --prefix) and on the log alone (log:), compares the JSON
reports with the app's client-side truth (samples/blind-zk/judge.py,
written blind from the docs) and
  - asserts the facts lockspan gets right today (MUST_HOLD): a regression
    fails the run (exit 1);
  - prints what it gets wrong as expected failures (XFAIL), not counted;
    one that starts to pass is printed as XPASS so it can be moved to
    MUST_HOLD (samples/blind-zk/JUDGEMENT.md says why each is wrong).
Exit 0 when every MUST_HOLD check passes. No server is needed.
"""
import os
import sys
import tempfile

import lscheck

# The checks of judge.py that lockspan answers right on this sample
# (samples/blind-zk/JUDGEMENT.md). Every other check is an expected failure.
MUST_HOLD = [
    'log read: no unparsable lines',
    'zipkin file read: every span',
    "log_statement = 'mod': every logged statement read",
    'prefix inferred without --prefix: the same report',
    "zk: clock offset within 2 ms of the app's measured offset (spans in whole ms)",
    'zk: deadlocks: count',
    'zk: deadlock victims: pids',
    "zk: deadlock victims: time within 50 ms of the app's error",
    'zk: finding deserved: deadlocks',
    'zk: deadlock victims: none said not retried (the app retried both)',
    'log: deadlocks: count',
    'log: deadlock victims: pids',
    "log: deadlock victims: time within 50 ms of the app's error",
    'log: finding deserved: deadlocks',
    "zk: deadlock victims' code path is transfer (span route)",
    'zk: serialization failures (40001): count',
    'zk: finding deserved: retries after serialization failure',
    'zk: 40001 retries: no more said retried than the app retried',
    "zk: serialization failures: each on reprice's UPDATE products",
    'log: serialization failures (40001): count',
    'log: finding deserved: retries after serialization failure',
    'log: 40001 retries: no more said retried than the app retried',
    "log: serialization failures: each on reprice's UPDATE products",
    'zk: hot rows: each listed row (by key) is a truth hot row',
    'zk: logged waits: count (still waiting + deadlock lines)',
    'zk: logged waits: each lies within a truth wait of that pid and row',
    'zk: logged waits: the holder pid named held the row during the wait',
    'log: hot rows: each listed row (by key) is a truth hot row',
    'log: logged waits: count (still waiting + deadlock lines)',
    'log: logged waits: each lies within a truth wait of that pid and row',
    'log: logged waits: the holder pid named held the row during the wait',
    'zk: slow requests: the slowest are POST /warehouses/1/reserve',
    "zk: slow requests: reserve_stock's row-lock wait not stated as 0 ms (the log cannot show it)",
    'zk: story: no top path named with 0 ms of hold time',
    'zk: code paths named by span route',
    'zk: each code path is one route (templated: /transfers/{id}/{id})',
    'log: code paths named by transaction shape (one application_name, no spans)',
    'zk: finding not deserved: lock queue behind DDL',
    'zk: finding not deserved: commit wait at the head (synchronous_commit off)',
    'zk: finding not deserved: hot counter row on warehouses, accounts or products',
    'zk: finding not deserved: external call in transaction for a path other than reserve_stock',
    'zk: finding not deserved: inconsistent lock order for a path other than transfer',
    'log: finding not deserved: lock queue behind DDL',
    'log: finding not deserved: commit wait at the head (synchronous_commit off)',
    'log: finding not deserved: hot counter row on warehouses, accounts or products',
    'log: finding not deserved: external call in transaction for a path other than reserve_stock',
    'log: finding not deserved: inconsistent lock order for a path other than transfer',
    'log: no external call in transaction claimed (no spans: not in the log)',
    # issue 34 (modlog34): a log_statement = 'mod' log is not judged complete
    'zk: statement logging not judged complete (no BEGIN/COMMIT, no durations)',
    'zk: logging advice given (BEGIN/COMMIT or durations for the incident window)',
    'zk: hidden waits not reported as 0 ms (truth: 138 waits under 1 s; the log has no durations to rebuild them)',
    'log: statement logging not judged complete (no BEGIN/COMMIT, no durations)',
    'log: logging advice given (BEGIN/COMMIT or durations for the incident window)',
    'log: hidden waits not reported as 0 ms (truth: 138 waits under 1 s; the log has no durations to rebuild them)',
    'log: holds marked lower bounds (no COMMIT in the log: hold_at_least)',
    'zk: busiest row: warehouses id=1 (196 s of waiting, never logged) first, or the ranking said incomplete',
    'log: busiest row: warehouses id=1 (196 s of waiting, never logged) first, or the ranking said incomplete',
    'log: story: names reserve_stock (62 % of hot-row hold time) or says it cannot rank',
    'log: story: no top path named with 0 ms of hold time',
    # issue 34 (modlog34): no holder named by its pid's last logged statement
    'zk: deadlocks: the holder each victim waited for is named by its route (transfer) or not named',
    'log: deadlocks: the holder each victim waited for is named by its route (transfer) or not named',
    'zk: holds listed: each is a truth hold of that pid, row and time',
    'zk: holds listed: the code path of each is the route that held the row',
    'log: holds listed: each is a truth hold of that pid, row and time',
    'zk: blocking ranking: reserve_stock first (or none)',
    'log: blocking ranking: reserve_stock first (or none)',
    # zkspan34: a 40001 or deadlock victim whose retry no trace walked and
    # whose session is a pool's (or does not show its transaction) is
    # untold, not "not retried" (decide/retry.h ls_retry_elsewhere_untold)
    'log: deadlock victims: none said not retried (the app retried both)',
    "zk: 40001 retries: the finding's retried + untold covers the app's 177 retries",
    "log: 40001 retries: the finding's retried + untold covers the app's 177 retries",
    'log: 40001: none said not retried that the app retried (listed errors)',
    # zkrow34: warehouses id=1 a row from its locking spans' queueing
    # (spanqueue.c), the reserve requests' transactions and holds from
    # their BEGIN..COMMIT spans (txspans.c, statements logged without a
    # duration), the hidden waits behind those holds
    "zk: story: names reserve_stock (62 % of hot-row hold time) or says it cannot rank",
    'zk: occupancy ranking: reserve_stock first (or no ranking)',
    'zk: finding deserved: inconsistent lock order (transfer with itself, accounts)',
    # zkrow34: a hold on a row whose every wait was rebuilt is one others
    # waited for when a rebuilt wait of 5 ms+ queued behind it
    # (LS_HOLDS_WAITED_SQL): its span parts, and the call rule, read it
    'zk: finding deserved: external call in transaction (reserve_stock, GET /quote span)',
    # order34: the DETAIL cycle's one statement read by its shape (Sequelize
    # writes the ids into the text: decide/finding.h ls_finding_same_stmt);
    # the log alone ties no transaction to it: named by no code path (the
    # zk check, which zkrow34's spans also make hold, is listed above)
    'log: finding deserved: inconsistent lock order (transfer with itself, accounts)',
]

# Printed, never asserted: a slow request's row-lock wait that no log line
# shows. lockspan's null (unknown) is honest; a number from the locking
# SELECT's span would be better but is an inference, not a fact of the log.
NOT_ASSERTED = [
    "zk: slow requests: reserve_stock's row-lock wait given (the locking SELECT's span lasted seconds while other requests held the row)",
]


def own_checks(judge, truth, rep):
    """Issue 34 (retry34n): per listed 40001 and deadlock victim, matched
    one to one to the app's error of its pid nearest in time within 50
    ms, none said retried (true) that the app did not retry, with the
    Zipkin file and the log alone. On 014e695 the zk report said true of
    pid 30375's third and last attempt at 15:25:36.815: the retries pass
    took the errors by id, not in log order, and this one took the failed
    span of pid 30360's error logged 10 ms before it (and that error the
    last attempt's span: "not retried")."""
    out = []
    for k in ("zk", "log"):
        r = rep[k]
        wrong, said = [], 0
        for state in ("40001", "40P01"):
            te = [e for e in truth["errors"] if e["sqlstate"] == state]
            used = set()
            for e in sorted((e for e in r["errors"] if e["sqlstate"] == state),
                            key=lambda e: e["time"]):
                near = [(abs(judge.iso_us(x["time"]) - judge.iso_us(e["time"])), i)
                        for i, x in enumerate(te) if i not in used and x["pid"] == e["pid"]
                        and abs(judge.iso_us(x["time"]) - judge.iso_us(e["time"])) <= 50 * judge.MS]
                if not near:
                    continue
                used.add(min(near)[1])
                said += e["retried"] is True
                if e["retried"] is True and not te[min(near)[1]]["retried"]:
                    wrong.append("%d %s" % (e["pid"], e["time"][11:23]))
        name = ("%s: 40001/40P01: none said retried that the app did not retry (listed errors, "
                "one to one)" % k)
        got = "%d of %d said retried (%s)" % (len(wrong), said, ", ".join(wrong[:4])) \
            if wrong else "none of %d" % said
        if k == "zk":
            out.append((name, not wrong, got, 0))
        else:
            # KNOWN_WRONG (printed, not asserted): with the log alone, 9 last
            # attempts (the app's third) said retried: the pool's next
            # reprice of the same product on that backend (session order) or
            # with the same new price and id elsewhere (parameters)
            print("KNOWN_WRONG %s: lockspan %s, truth 0" % (name, got))
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: check_blind_zk.py LOCKSPAN [SAMPLE_DIR]")
    lockspan = os.path.abspath(sys.argv[1])
    sample = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "blind-zk"))
    sys.path.insert(0, sample)
    import judge                                    # noqa: E402

    with tempfile.TemporaryDirectory(prefix="check_blind_zk.") as tmp:
        rep = judge.report(lockspan, sample, tmp)
    truth = judge.load(os.path.join(sample, "truth.json"))
    results = {r["name"]: r for r in judge.Judge(truth, rep).run()}
    sys.exit(lscheck.judged("check_blind_zk", results, MUST_HOLD, not_asserted=NOT_ASSERTED,
                            first=own_checks(judge, truth, rep)))


if __name__ == "__main__":
    main()
