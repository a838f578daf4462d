#!/usr/bin/env python3
"""Blind judgement of lockspan on samples/blind-otel/ (a Node.js service with
OpenTelemetry auto-instrumentation against a real PostgreSQL 15; see its
README.md), written from README.md and --help only, without reading
lockspan's source.

Usage: check_blind_otel.py LOCKSPAN SAMPLE_DIR [--numbers]

Runs `lockspan analyze` on the stderr log and the OTLP export and compares
the JSON report with truth.json, which the application recorded on the
client side. Facts lockspan gets right are checked (a regression fails,
exit 1); what it gets wrong is printed as EXPECTED FAILURE and not counted
as a pass. --numbers also prints the per-row and per-path figures that
JUDGEMENT.md quotes. Not registered in ctest.
"""
import datetime
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile

HOLD_TOLERANCE_MS = 25.0     # the brief: hold times within 25 ms
DEADLOCK_TIMEOUT_MS = 100.0  # the sample server's deadlock_timeout
TIME_MATCH_MS = 50.0         # a deadlock / 40001 found at the same moment
WAIT_SLACK_MS = 20.0         # a truth wait this much over deadlock_timeout is logged


class Tally:
    """Counts passes and failures; prints every check."""

    def __init__(self):
        self.passed = self.failed = self.expected = 0

    def check(self, ok, what):
        print(("PASS  " if ok else "FAIL  ") + what)
        if ok:
            self.passed += 1
        else:
            self.failed += 1

    def known_wrong(self, still_wrong, what):
        """A fact lockspan gets wrong: printed, never counted as a pass."""
        if still_wrong:
            print("EXPECTED FAILURE  " + what)
            self.expected += 1
        else:
            print("NOW RIGHT (update the checker)  " + what)


def ms(iso):
    return datetime.datetime.fromisoformat(
        iso.replace("Z", "+00:00")).timestamp() * 1000.0


def iso(msec):
    return datetime.datetime.fromtimestamp(msec / 1000, datetime.timezone.utc).isoformat(
        timespec="milliseconds").replace("+00:00", "Z")


def row_name(relation, row_key):
    """lockspan's 'inventory' 'sku=SKU-1' -> the truth's 'inventory:SKU-1'."""
    return relation + ":" + row_key.split("=", 1)[1]


def analyze(lockspan, sample, tmp):
    traces = os.path.join(sample, "traces.otlp.jsonl.gz")
    if not os.path.exists(traces):
        traces = os.path.join(sample, "traces.otlp.jsonl")
    out = os.path.join(tmp, "report.json")
    subprocess.run([lockspan, "analyze", "-q", "--top", "100000",
                    "--max-waits", "100000", "--generated-at", "fixed",
                    "-o", out, os.path.join(sample, "postgresql.log"), traces],
                   check=True)
    with open(out, encoding="utf-8") as f:
        return json.load(f), traces


def partner_spans(traces):
    """trace id -> total ms of its HTTP client spans to the partner stub."""
    opener = gzip.open if traces.endswith(".gz") else open
    total = {}
    with opener(traces, "rt", encoding="utf-8") as f:
        for line in f:
            for rs in json.loads(line)["resourceSpans"]:
                for ss in rs["scopeSpans"]:
                    for s in ss["spans"]:
                        attrs = {a["key"]: a["value"] for a in s.get("attributes", [])}
                        url = attrs.get("url.full", {}).get("stringValue", "")
                        if s.get("kind") == 3 and url.endswith("/reserve"):
                            d = (int(s["endTimeUnixNano"]) - int(s["startTimeUnixNano"])) / 1e6
                            total[s["traceId"]] = total.get(s["traceId"], 0.0) + d
    return total


def orm_spans(traces):
    """How many database spans the knex instrumentation wrote (each wraps
    the pg instrumentation's span of the same statement)."""
    opener = gzip.open if traces.endswith(".gz") else open
    n = 0
    with opener(traces, "rt", encoding="utf-8") as f:
        for line in f:
            for rs in json.loads(line)["resourceSpans"]:
                for ss in rs["scopeSpans"]:
                    if ss.get("scope", {}).get("name") != "@opentelemetry/instrumentation-knex":
                        continue
                    n += sum(1 for s in ss["spans"] if any(
                        a["key"] in ("db.query.text", "db.statement")
                        for a in s.get("attributes", [])))
    return n


def judge_spans(rep, traces, tally):
    """An ORM's span and its driver's for one statement are one statement;
    the driver's spans are placed on the session that ran them."""
    ts = rep["summary"]["trace_spans"]
    knex = orm_spans(traces)
    tally.check(ts.get("orm_of_driver_span") == knex,
                "each of the %d knex spans is one statement with its pg span "
                "(lockspan: %s)" % (knex, ts.get("orm_of_driver_span")))
    tally.check(ts["not_placed"] <= 0.05 * ts["database_spans"],
                "at most 5 %% of the database spans are not placed (%d of %d)"
                % (ts["not_placed"], ts["database_spans"]))


def truth_holds(truth):
    """(pid, row) -> list of truth locks with tx facts. A transaction an
    error aborted (failed_lock: a deadlock victim, 40001, a lock timeout)
    released its locks when the server raised the error (AbortTransaction),
    not at the ROLLBACK the client sent later: its locks' release lies
    between the failing statement's start and the ROLLBACK's return (the
    client saw the error at failed_at, a busy host's scheduling later)."""
    out = {}
    for t in truth["transactions"]:
        for lk in t["locks"]:
            if t.get("failed_lock"):
                lk = dict(lk, released_lo=min(lk["released_lo"], t["failed_lock"]["stmt_start"]))
            out.setdefault((t["pid"], lk["row"]), []).append(dict(lk, tx=t))
    return out


def match_hold(th, h):
    """The truth lock of the same pid and row whose interval overlaps hold H."""
    s, e = ms(h["start"]), ms(h["end"])
    best, best_ov = None, 0.0
    for lk in th.get((h["pid"], row_name(h["relation"], h["row_key"])), []):
        ov = min(e, lk["released"]) - max(s, lk["stmt_start"])
        if ov > best_ov:
            best, best_ov = lk, ov
    return best


def outside(x, lo, hi):
    """How far X lies outside [LO, HI] (0 inside)."""
    return max(lo - x, x - hi, 0.0)


def judge_holds(rep, truth, tally, numbers):
    """Each listed hold against the truth: its start against the server's
    clock_timestamp() when the row was locked, its end against the interval
    in which COMMIT/ROLLBACK ran, its length against [held_lo, held]."""
    th = truth_holds(truth)
    holds = rep["holds"]
    matched = [(h, match_hold(th, h)) for h in holds]
    found = [(h, lk) for h, lk in matched if lk]
    tally.check(len(holds) > 0 and len(found) == len(holds),
                "every hold lockspan lists (%d) is a real hold of that row by "
                "that pid (%d matched)" % (len(holds), len(found)))
    start_err = [abs(ms(h["start"]) - lk["acquired"]) for h, lk in found]
    end_err = [outside(ms(h["end"]), lk["released_lo"], lk["released"]) for h, lk in found]
    len_err = [outside(h["hold_ms"], lk["held_lo_ms"], lk["held_ms"]) for h, lk in found]

    def summary(name, errs):
        within = sum(1 for e in errs if e <= HOLD_TOLERANCE_MS)
        print("      %s error ms: median %.1f, p90 %.1f, max %.1f; %d of %d within %g ms"
              % (name, statistics.median(errs), sorted(errs)[int(0.9 * (len(errs) - 1))],
                 max(errs), within, len(errs), HOLD_TOLERANCE_MS))
        return within

    end_within = summary("hold end (release)", end_err)
    start_within = summary("hold start (row locked)", start_err)
    len_within = summary("hold length", len_err)
    tally.check(end_within == len(end_err),
                "every listed hold ends within %g ms of the COMMIT/ROLLBACK "
                "interval (%d of %d)" % (HOLD_TOLERANCE_MS, end_within, len(end_err)))
    tally.check(len_within >= 0.8 * len(len_err),
                "at least 80%% of listed hold lengths within %g ms (%d of %d)"
                % (HOLD_TOLERANCE_MS, len_within, len(len_err)))
    tally.check(start_within == len(start_err),
                "every listed hold starts within %g ms of the moment the row was "
                "locked (%d of %d)" % (HOLD_TOLERANCE_MS, start_within, len(start_err)))
    if numbers:
        bad = sorted(found, key=lambda p: -abs(ms(p[0]["start"]) - p[1]["acquired"]))[:5]
        for h, lk in bad:
            print("      worst start: pid %d %s lockspan %s..%s (%s) %d ms; truth locked "
                  "%s, released by %s, held %.1f ms" % (
                      h["pid"], lk["row"], h["start"][11:23], h["end"][11:23],
                      h["start_evidence"], h["hold_ms"], iso(lk["acquired"])[11:23],
                      iso(lk["released"])[11:23], lk["held_ms"]))
    return found


def judge_paths(rep, truth, tally, numbers):
    routes = truth["routes"]
    truth_top = max(routes, key=lambda r: routes[r]["total_held_ms"])
    occ = rep["row_occupancy"]
    top = occ[0]["code_path"] if occ else None
    tally.check(top is not None and truth_top.endswith(top),
                "the code path holding hot rows longest is %s (truth: %s)"
                % (top, truth_top))
    for o in occ:
        t = routes["POST " + o["code_path"]]
        print("      %-10s lockspan holds %4d total %8.0f ms max %5d ms | truth "
              "locks %4d total %8.0f ms max %6.1f ms" % (
                  o["code_path"], o["holds"], o["total_hold_ms"], o["max_hold_ms"],
                  t["locks"], t["total_held_ms"], t["max_held_ms"]))
    # The rows lockspan counts holds of: its hot rows, and the rows whose
    # statements failed on a concurrent update (40001: the row was another
    # transaction's; issue 34 item 7, /reprice's products:SKU-1, whose 12
    # waits are all below deadlock_timeout and none logged).
    hot = {row_name(r["relation"], r["row_key"]) for r in rep["hot_rows"]}
    hot |= {sf["row"] for sf in truth["serialization_failures"]}
    for o in occ:
        locks = [lk for t in truth["transactions"] if t["route"] == "POST " + o["code_path"]
                 for lk in t["locks"] if lk["row"] in hot]
        lo = sum(lk["held_lo_ms"] for lk in locks)
        hi = sum(lk["held_ms"] for lk in locks)
        tally.check(o["holds"] == len(locks) and
                    outside(o["total_hold_ms"], lo, hi) <= HOLD_TOLERANCE_MS,
                    "%s occupies the hot rows %d times for %.0f ms (truth: %d times, "
                    "%.0f..%.0f ms)" % (o["code_path"], o["holds"], o["total_hold_ms"],
                                        len(locks), lo, hi))
    co = {c["code_path"]: c for c in rep["code_paths"]}
    tally.check("/checkout" in co and co["/checkout"]["named_by"] == "span route",
                "/checkout is named by its trace's route")
    names = {o["code_path"] for o in occ}
    tally.check("/reprice" in names,
                "/reprice (REPEATABLE READ, holds products:SKU-1 %d times, %d waits, all "
                "below deadlock_timeout; its 40001 failures name the row) is in the "
                "occupancy ranking" % (truth["hot_rows"]["products:SKU-1"]["locks"],
                                       truth["hot_rows"]["products:SKU-1"]["waits"]))


def judge_rows(rep, truth, tally, numbers):
    truth_rows = truth["hot_rows"]
    by_wait = sorted(truth_rows, key=lambda r: -truth_rows[r]["total_wait_ms"])
    ls_rows = [row_name(r["relation"], r["row_key"]) for r in rep["hot_rows"]]
    tally.check(bool(ls_rows) and ls_rows[0] == by_wait[0],
                "the hottest row is %s (truth: %s)" % (ls_rows[0] if ls_rows else None,
                                                       by_wait[0]))
    for r in rep["hot_rows"]:
        name = row_name(r["relation"], r["row_key"])
        t = truth_rows[name]
        print("      %-18s lockspan waits %4d %9.1f ms, holds %4d mean %6.1f ms | "
              "truth waits %4d %9.1f ms, locks %4d mean %6.1f ms" % (
                  name, r.get("waits", 0), r.get("total_wait_ms", 0.0),
                  r.get("holds", 0), r.get("mean_hold_ms", 0.0), t["waits"],
                  t["total_wait_ms"], t["locks"], t["total_held_ms"] / t["locks"]))
    # A row some statement waited for behind another transaction's lock
    # (the truth's wait has a blocker); truth_rows[r]["waits"] counts every
    # locking statement slower than 5 ms, blocker or not.
    blocked = {w["row"] for w in truth["waits"] if w["blocker_tx"] is not None}
    missing = [r for r in by_wait if r not in ls_rows and r in blocked]
    # products:SKU-1's waits are all below deadlock_timeout; its 40001
    # failures name it, and each failed UPDATE, known only from its bind
    # line (no execute line is written for a statement that failed),
    # queued behind the holder from its bind to its error: a hidden wait,
    # which makes it a hot row (issue 34, branch otel34b).
    tally.check("products:SKU-1" not in missing,
                "products:SKU-1 (waits all hidden, its 40001s known from their bind lines) "
                "is a hot row (missing: %s)" % ", ".join(missing))
    # merchant_totals:2 (bumped by the payments trigger for merchant 2):
    # no logged wait, deadlock or error of the log names it, and no hot row
    # of lockspan's it is; the truth's 3 "waits" on it (slow INSERTs, 62 ms,
    # the first 40.7 ms in the run's first second) have no blocker: no
    # transaction held it when they were sent, so nobody ever waited for it
    # (issue 34, branch otel34c: it was an expected failure here).
    rest = [r for r in missing if r != "products:SKU-1"]
    tally.check(not rest, "every row some statement waited for behind another "
                "transaction's lock is a hot row (missing: %s; merchant_totals:2, whose "
                "%d slow statements no transaction blocked, is not one)"
                % (", ".join(rest) or "none", truth_rows["merchant_totals:2"]["waits"]))
    # The trigger's counter-row update waits like any other: the row's
    # waiting is what the log showed (total_wait_ms, logged waits alone)
    # and the hidden waits rebuilt from the holds (hidden_wait_ms); the
    # truth's waits are every locking statement over 5 ms on the client's
    # clock (Node's event loop adds up to 190 ms: README), so within 25 %
    # of its total, and lockspan's statements that waited over 20 ms
    # within 25 % of the truth's. Since a statement whose derived start is
    # within a stamp's tick of another's acquisition queues behind it
    # (decide/queue.c, branch py34): 1544 ms, 23 statements (1420 ms, 72 %,
    # and 21 before; 401 ms logged alone).
    mt = next((r for r in rep["hot_rows"]
               if row_name(r["relation"], r["row_key"]) == "merchant_totals:1"), None)
    t = truth_rows["merchant_totals:1"]
    t20 = [w for w in truth["waits"] if w["row"] == "merchant_totals:1" and w["wait_ms"] > 20]
    got = (mt["logged_wait_ms"] + mt["hidden_wait_ms"]) if mt else 0.0
    tally.check(mt is not None and abs(got - t["total_wait_ms"]) <= 0.25 * t["total_wait_ms"]
                and abs(mt["statements_waited"] - len(t20)) <= 0.25 * len(t20),
                "merchant_totals:1 (trigger counter) waits, logged + hidden: lockspan %.0f ms "
                "(%.0f + %.0f), %s statements over 20 ms; truth %.0f ms over %d waits, %d "
                "over 20 ms" % (got, mt["logged_wait_ms"] if mt else 0,
                                mt["hidden_wait_ms"] if mt else 0,
                                mt["statements_waited"] if mt else None,
                                t["total_wait_ms"], t["waits"], len(t20)))


def judge_waits(rep, truth, tally, numbers):
    """Every truth wait over deadlock_timeout is logged; each logged wait's
    root blocker held that row while it waited."""
    long_waits = [w for w in truth["waits"] if w["ended_in"] == "granted"
                  and w["wait_ms"] > DEADLOCK_TIMEOUT_MS + WAIT_SLACK_MS]
    seen = 0
    for w in long_waits:
        if any(x["pid"] == w["waiter_pid"] and ms(x["start"]) < w["wait_end"]
               and ms(x["end"]) > w["wait_start"] for x in rep["waits"]):
            seen += 1
    tally.check(seen == len(long_waits),
                "every statement that waited over deadlock_timeout has a logged "
                "wait (%d of %d)" % (seen, len(long_waits)))
    print("      logged wait records: %d for %d truth statements that waited over "
          "%g ms (one statement queued behind N holders is logged N times)"
          % (len(rep["waits"]), len(long_waits), DEADLOCK_TIMEOUT_MS))
    th = truth_holds(truth)
    right = 0
    for x in rep["waits"]:
        row = row_name(x["relation"], x["row_key"])
        s, e = ms(x["start"]), ms(x["end"])
        # the direct blocker held the row, or was queued for it ahead
        # (PostgreSQL's tuple lock) during the wait
        if any(lk["stmt_start"] <= e and lk["released"] >= s
               for lk in th.get((x["blocker_pid"], row), [])):
            right += 1
    tally.check(right == len(rep["waits"]),
                "each logged wait's direct blocker held or was queued for that row "
                "during the wait (%d of %d)" % (right, len(rep["waits"])))
    single = [x for x in rep["waits"] if x.get("chain_depth") == 1]
    root_ok = sum(1 for x in single if any(
        lk["acquired"] <= ms(x["end"]) and lk["released"] >= ms(x["start"])
        for lk in th.get((x["root_pid"], row_name(x["relation"], x["row_key"])), [])))
    tally.check(root_ok == len(single),
                "in a chain of one, the root blocker held that row during the wait "
                "(%d of %d)" % (root_ok, len(single)))


def judge_slow_requests(rep, truth, tally):
    """A slow request's row-lock wait is its locking statements' wait."""
    by_trace = {t["trace_id"]: t for t in truth["transactions"]}
    errs = []
    for r in rep["slow_requests"]:
        t = by_trace.get(r["trace_id"])
        if t is None or r.get("lock_wait_ms") is None:
            continue
        errs.append(abs(r["lock_wait_ms"] - sum(lk["stmt_ms"] for lk in t["locks"])))
    impossible = [r for r in rep["slow_requests"]
                  if (r.get("lock_wait_ms") or 0) > r["duration_ms"]]
    # a transaction links to a trace only inside its request (issue 34
    # item 7): a wait longer than the request is another transaction's
    shown = "; ".join(
        "%s %s %.0f ms wait in %.0f ms (truth %.0f ms)" % (
            r["name"], r["trace_id"][:8], r["lock_wait_ms"], r["duration_ms"],
            sum(lk["stmt_ms"] for lk in by_trace[r["trace_id"]]["locks"]))
        for r in impossible)
    tally.check(not impossible,
                "no slow request's row-lock wait exceeds the request itself "
                "(a wait of another transaction linked to the trace)"
                + (": " + shown if shown else ""))
    within = sum(1 for e in errs if e <= HOLD_TOLERANCE_MS)
    tally.check(len(errs) >= 10 and within >= 0.8 * len(errs),
                "slow requests' row-lock wait within %g ms of the truth for %d of %d "
                "(max error %.1f ms)" % (HOLD_TOLERANCE_MS, within, len(errs),
                                         max(errs) if errs else -1))


def judge_deadlocks(rep, truth, tally):
    td = truth["deadlocks"]
    ld = rep["deadlocks"]
    tally.check(len(ld) == len(td), "deadlocks: lockspan %d, truth %d" % (len(ld), len(td)))
    matched = 0
    for d in td:
        if any(x["victim_pid"] == d["victim_pid"]
               and outside(ms(x["time"]), d["at_lo_ms"], d["at_ms"]) < TIME_MATCH_MS
               and x["victim_code_path"] == "/transfer" for x in ld):
            matched += 1
    tally.check(matched == len(td), "each deadlock's victim pid, time and code path "
                "(/transfer) are right (%d of %d)" % (matched, len(td)))
    cyc = all(all(e["waiter_code_path"] == "/transfer" and e["blocker_code_path"] == "/transfer"
                  for e in x["edges"]) for x in ld)
    tally.check(cyc, "every deadlock cycle is /transfer against /transfer (lock order)")
    fixes = [f for f in rep["findings"] if f["rule"].startswith("deadlock")]
    tally.check(any("same order" in f["fix"] for f in fixes),
                "the deadlock finding's fix is to lock rows in the same order")


def judge_lock_order(rep, truth, tally):
    """Lock order from the deadlocks (issue 34 item 7): /transfer against
    itself, once, with each deadlock whose victim had locked a row before
    its wait (the truth's victim_held: one transfer locked its rows in the
    opposite order of the other's); a victim that held nothing (it queued
    for a tuple behind a third transfer) made no opposite order of its own.
    The rows named are the first such deadlock's. No other pair: /checkout
    and /payments write relations in other orders, and INSERT fresh rows,
    and never deadlock."""
    made = sorted((d for d in truth["deadlocks"] if d["victim_held"]), key=lambda d: d["at_ms"])
    first = made[0]
    want_rows = sorted([first["victim_held"][-1], first["victim_waited_for"]])
    for what, items in (("finding inconsistent_lock_order",
                         [f for f in rep["findings"] if f["rule"] == "inconsistent_lock_order"]),
                        ("report.lock_order_conflicts", rep["lock_order_conflicts"])):
        got = [(x["code_path"], x["other_code_path"], x["deadlocks"],
                sorted(row_name(*r.split(" ", 1)) for r in (x["first_row"], x["then_row"])))
               for x in items]
        want = [("/transfer", "/transfer", len(made), want_rows)]
        tally.check(got == want, "lock order (%s): /transfer against itself on %s with the %d "
                    "deadlocks whose victim held a row (lockspan: %s)"
                    % (what, " and ".join(want_rows), len(made), got))


def judge_serialization(rep, truth, tally):
    ts_ = truth["serialization_failures"]
    n = rep["summary"]["serialization_failures"]
    tally.check(n == len(ts_), "serialization failures: lockspan %d, truth %d" % (n, len(ts_)))
    f = next((f for f in rep["findings"] if "serialization" in f["title"]), None)
    retried = sum(1 for s in ts_ if any(
        t["pid"] == s["pid"] and t["route"] == s["route"] and t["outcome"] == "commit"
        and t["start"] > ms(s["at"]) for t in truth["transactions"]))
    tally.check(f is not None and ("%d committed" % retried) in f["evidence"],
                "the 40001 finding says %d were retried and committed" % retried)
    # issue 34: the app answers a deadlock with 409 and never retries it;
    # the next transfer of the same amount between the same wallets, on
    # another connection, of another trace, is no retry (by parameters)
    dl = [e for e in rep["errors"] if e["sqlstate"] == "40P01"]
    wrong = [e["time"] for e in dl if e["retried"]]
    tally.check(dl and not wrong, "deadlock victims: none marked retried, of %d (the app never "
                "retries one; lockspan: %s)" % (len(dl), wrong))


def judge_findings(rep, truth, traces, found, tally, numbers):
    titles = [f["title"] for f in rep["findings"]]
    counters = [t for t in titles if t.startswith("Counter row")]
    tally.check(bool(counters) and not any("wallets" in t for t in counters),
                "no transfer's wallet row (debited and credited between rows: a lock "
                "order problem) is called a counter (findings: %s)" % "; ".join(counters))
    mt = [f for f in rep["findings"] if f["rule"] == "hot_counter_row"
          and f["relation"] == "merchant_totals" and f["row"] == "merchant_id=1"]
    mt_locks = truth["hot_rows"]["merchant_totals:1"]["locks"]
    tally.check(len(mt) == 1 and "insert into \"payments\"" in mt[0]["statement"]
                and mt[0]["transactions"] == mt_locks,
                "the real counter row, merchant_totals merchant_id=1 (bumped by the payments "
                "trigger), is called a counter and named by the payments INSERT that bumps it "
                "(%d transactions; truth: %d locks)" % (mt[0]["transactions"] if mt else -1, mt_locks))
    partner = partner_spans(traces)
    co = next(c for c in rep["code_paths"] if c["code_path"] == "/checkout")
    parts = {p["name"]: p["ms"] for p in co["hold_breakdown"]}
    in_hold = 0.0
    for h, lk in found:
        if h["code_path"] == "/checkout":
            in_hold += partner.get(lk["tx"]["trace_id"], 0.0)
    idle = parts.get("idle in transaction, no span", 0.0)
    # The partner POST is a sibling of the SQL under the Express request
    # handler: the hold is explained by it, within max(25 ms, 5 %).
    post = sum(p["ms"] for p in co["hold_breakdown"]
               if p["part"] == "span" and p["name"].startswith("POST"))
    tally.check(idle <= 0.5 * sum(parts.values()) and
                abs(post - in_hold) <= max(HOLD_TOLERANCE_MS, 0.05 * in_hold),
                "/checkout's hold is explained by its HTTP client span to the partner: "
                "%.0f ms of %.0f in the POST span (%.0f ms of partner calls in the listed "
                "/checkout holds), %.0f ms 'idle in transaction, no span'"
                % (post, sum(parts.values()), in_hold, idle))
    # Only /checkout calls out (/transfer's fraud check and /payments'
    # rendering are in-process, with no span).
    calls = [f for f in rep["findings"] if f["rule"] == "external_call_in_transaction"]
    tally.check(len(calls) == 1 and calls[0]["title"].startswith("/checkout "),
                "one finding names an external call in a transaction, /checkout's (%s)"
                % "; ".join(f["title"] for f in calls))
    cap = [f for f in rep["findings"] if f["rule"].startswith("serial_capacity")
           or "serial capacity" in f["title"]]
    for f in cap:
        row = f["title"].split("Row ", 1)[1].split(" is at")[0].replace(" ", ":", 1)
        rel, key = row.split(":", 1)
        name = rel + ":" + key.split("=", 1)[1]
        t = truth["hot_rows"].get(name)
        if t and "wallets" in name:
            tally.known_wrong(True, "capacity finding for %s: %s (truth: %d locks "
                              "over the whole 25 s run)" % (name, f["evidence"], t["locks"]))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    lockspan, sample = sys.argv[1], sys.argv[2]
    numbers = "--numbers" in sys.argv[3:]
    with open(os.path.join(sample, "truth.json"), encoding="utf-8") as f:
        truth = json.load(f)
    tally = Tally()
    with tempfile.TemporaryDirectory() as tmp:
        rep, traces = analyze(lockspan, sample, tmp)
    judge_paths(rep, truth, tally, numbers)
    judge_rows(rep, truth, tally, numbers)
    found = judge_holds(rep, truth, tally, numbers)
    judge_waits(rep, truth, tally, numbers)
    judge_slow_requests(rep, truth, tally)
    judge_deadlocks(rep, truth, tally)
    judge_lock_order(rep, truth, tally)
    judge_serialization(rep, truth, tally)
    judge_findings(rep, truth, traces, found, tally, numbers)
    judge_spans(rep, traces, tally)
    print("%d passed, %d failed, %d expected failures (not counted)"
          % (tally.passed, tally.failed, tally.expected))
    sys.exit(1 if tally.failed else 0)


if __name__ == "__main__":
    main()
