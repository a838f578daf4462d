#!/usr/bin/env python3
"""Both code-path rankings against the truth where no other checker
compares them (issue 34: "both rankings equal to the truth's" on every
sample, log format and with and without traces):

  - deadlock-holds, deadlock-holds-stmtall (samples/scenarios_deadlock.py),
    stderr and csvlog: row occupancy against the truth's per_code_path
    (every hold of accounts id=1..4), the blocking ranking against the
    truth's holds that a logged wait queued behind (a 40P01 statement of
    the other session on the row, sent during the hold, or a lock that
    waited past deadlock_timeout = 1s, deadlock.sh);
  - ddl-queue (samples/ddl-queue.sh), stderr, stderr cut to whole seconds,
    csvlog, jsonlog: no statement of its truth locks a row (a SELECT, an
    ALTER TABLE: table locks), so both rankings are empty (a relation lock
    is a lock queue, no hot row);
  - correlation, correlation-stmtall (samples/scenarios_correlation.py),
    the directory (three formats and pg_stat_activity) and each log format
    alone: the blocking ranking against the truth's holds (each a hold a
    logged wait queued behind), by application_name. Their row occupancy
    is not checked: the truth records only the holds somebody waited for;
  - app-seconds (samples/app.sh), csvlog without traces: row occupancy
    against the truth's requests' holds, by what names a path without
    traces (the sqlcommenter controller, else application_name);
  - blind-otel (samples/blind-otel.sh), csvlog with the traces: row
    occupancy against the truth's hot rows' holds by route (the route's
    path is the code path the spans' http.route names), on the rows the
    truth shows hot (otel_contended_rows: some transaction waited for
    another's lock on it, or a deadlock or 40001 was on it). The truth times
    each release by an interval (from COMMIT/ROLLBACK sent to seen
    returned, late by Node's event-loop lag; a deadlock victim's locks go
    at its error, before its ROLLBACK: another transfer took the row
    first in all 5), so a route's total must lie within the sums of those
    bounds, and every hold of the store's holds view must be a lock of the
    truth's (pid, row) starting within 25 ms of its clock_timestamp() and
    ending within 25 ms of its release interval, and every lock of a
    contended row must be a hold; those hold checks also on the stderr
    log with the traces and on each log without them. Without traces its
    paths are named by transaction shape: the ranking is not checked there.

Per ranking: the code paths are the truth's, each with the truth's number
of holds and a total within max(25 ms, 5 %); the order is the truth's
and so the top path: row occupancy by total hold time, the blocking
ranking by the waiting each path's holds caused in the truth (whose holds
made others wait the most: issue 34); two paths within 25 ms of each other
may be in either order. Each check's text starts with
"SAMPLE [FORMAT, TRACES]:" (tools/sample_matrix.py sorts them into the
cells of docs/sample-matrix.md).

Known wrong answers (KNOWN_WRONG, as check_blind_py.py's MUST_HOLD):
printed as "XFAIL ..." (or "XPASS ..." once right), not counted.

Usage: check_rankings.py LOCKSPAN PROJECT_DIR
Prints one FAIL line per wrong fact, then "N passed, N failed".
"""
import datetime
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

import lscheck
from lscheck import report

TOL_MS = 25.0      # max(25 ms, 5 %): the tolerance
TOL_FRAC = 0.05
# Two paths whose truth totals are this close may be ranked either way
# (the tolerance of one hold); further apart, the truth's order.
ORDER_TOL_MS = 25.0
ROUND_MS = 0.001   # the report's figures are rounded to the µs
DEADLOCK_TIMEOUT_MS = 1000.0   # samples/deadlock.sh: deadlock_timeout = '1s'
DIRF = "stderr+csvlog+jsonlog (dir)"
# PostgreSQL's table lock modes (lock.h): a wait in one is for a relation.
TABLE_MODES = {"AccessShareLock", "RowShareLock", "RowExclusiveLock",
               "ShareUpdateExclusiveLock", "ShareLock", "ShareRowExclusiveLock",
               "ExclusiveLock", "AccessExclusiveLock"}

# (sample, check text regex) -> why: answers lockspan gets wrong today.
KNOWN_WRONG = {
    ("app-seconds", r"shop's total hold time"):
        "csvlog with log_statement = 'all' and no durations: shop's short holds "
        "(payments.fast_pay and reports.read_then_update, 16 holds) total 260 ms against "
        "the truth's 155 ms: each starts at its UPDATE's logged start, 1-65 ms before the "
        "truth's acquisition (its unlogged wait and run included: 242 ms in all), and ends "
        "at its COMMIT's logged start (136 ms early in all); issue 34: where the log only "
        "bounds a hold, an interval",
}


def tol(ms):
    return max(TOL_MS, TOL_FRAC * ms)


def ts(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def known(sample, text):
    for (s, rx), why in KNOWN_WRONG.items():
        if s == sample and re.search(rx, text):
            return why
    return None


def verdict(sample, ok, text):
    why = known(sample, text)
    if why is None:
        lscheck.check(ok, text)
    elif ok:
        print(f"XPASS {text} (now right: take it off KNOWN_WRONG)")
    else:
        print(f"XFAIL {text}")
        print(f"    known wrong: {why}")


def analyze(ls, d, inputs, tmp, prefix=True):
    """Analyze inputs into tmp; prefix True: the sample's prefix.txt, a
    string: that prefix, None or False: none. Returns (report, error)."""
    out = os.path.join(tmp, "r.json")
    db = os.path.join(tmp, "r.db")
    for p in (out, db):
        if os.path.exists(p):
            os.remove(p)
    args = [ls, "analyze", "-q", "--db", db, "--format", "json", "--top", "1000", "-o", out]
    pf = os.path.join(d, "prefix.txt")
    if prefix is True and os.path.exists(pf):
        with open(pf, encoding="utf-8") as f:
            args += ["--prefix", f.read().rstrip("\n")]
    elif isinstance(prefix, str):
        args += ["--prefix", prefix]
    p = subprocess.run(args + inputs, capture_output=True, text=True)
    if p.returncode != 0 or not os.path.exists(out):
        return None, p.stderr.strip()[-300:]
    with open(out, encoding="utf-8") as f:
        return json.load(f), None


def compare(sample, label, kind, got, truth, bounds=None, caused=None):
    """got: [(path, holds, total_ms)] in lockspan's order; truth: path ->
    (holds, total_ms); bounds, where the truth gives an interval: path ->
    (lo_ms, hi_ms), and a total must lie within it, max(25 ms, 5 %) out.
    caused (the blocking ranking): path -> the waiting its holds caused in
    the truth, the ranking's order (issue 34); else the order is by total."""
    names = [g[0] for g in got]
    verdict(sample, sorted(names) == sorted(truth),
            f"{label}: {kind} ranking lists the truth's code paths "
            f"[lockspan {names}, truth {sorted(truth)}]")
    by = {g[0]: g for g in got}
    for path, (n, ms) in sorted(truth.items()):
        g = by.get(path)
        verdict(sample, g is not None and g[1] == n,
                f"{label}: {kind} ranking: {path}'s hold count "
                f"[lockspan {g and g[1]}, truth {n}]")
        if bounds and path in bounds:
            lo, hi = bounds[path]
            verdict(sample, g is not None and lo - tol(lo) <= g[2] <= hi + tol(hi),
                    f"{label}: {kind} ranking: {path}'s total hold time within the truth's "
                    f"bounds, max(25 ms, 5 %) out [lockspan {g and round(g[2], 1)} ms, "
                    f"truth {lo:.1f}..{hi:.1f} ms]")
            continue
        verdict(sample, g is not None and abs(g[2] - ms) <= tol(ms),
                f"{label}: {kind} ranking: {path}'s total hold time within max(25 ms, 5 %) "
                f"[lockspan {g and round(g[2], 1)} ms, truth {ms:.1f} ms]")
    key = {p: (caused.get(p, 0.0) if caused is not None else v[1]) for p, v in truth.items()}
    by = "waiting caused" if caused is not None else "total"
    known_paths = [x for x in names if x in truth]
    swapped = [(a, b) for i, a in enumerate(known_paths) for b in known_paths[i + 1:]
               if key[b] - key[a] > ORDER_TOL_MS]
    want = sorted(truth, key=lambda p: -key[p])
    verdict(sample, bool(known_paths) and not swapped,
            f"{label}: {kind} ranking order is the truth's by {by} (ties within 25 ms either "
            f"way) [lockspan {names}, truth {want}, swapped {swapped}]")
    if truth:
        top = max(key.values())
        verdict(sample, bool(names) and names[0] in truth and
                top - key[names[0]] <= ORDER_TOL_MS,
                f"{label}: {kind} ranking's top path is the truth's by {by} "
                f"[lockspan {names[:1]}, truth {want[:1]}]")


def occupancy(rep):
    return [(o["code_path"], o["holds"], o["total_hold_ms"]) for o in rep["row_occupancy"]]


def blocking(rep):
    return [(o["code_path"], o["blocking_episodes"], o["total_hold_ms"])
            for o in rep["code_paths"]]


def deadlock_truth(truth):
    """(occupancy, blocking, caused): path -> (holds, total ms) on the hot
    rows; caused: path -> the waiting its holds of the hot rows caused (the
    waits of another session's lock of the row begun during the hold, and
    the failed statements' time from their start to the lock's release)."""
    hot = set(truth["hot_rows"])
    occ = {p: (v["holds"], v["hold_ms"]) for p, v in truth["per_code_path"].items()}
    blk, caused = {}, {}
    for h in truth["holds"]:
        if f"{h['relation']} {h['row_key']}" not in hot:
            continue
        t0, t1 = ts(h["start"]), ts(h["end"])

        def same_row(x):
            return (x["relation"], x["row_key"], x["session_id"] != h["session_id"]) == \
                (h["relation"], h["row_key"], True)
        by_error = [f for f in truth["failed"] if same_row(f)
                    and t0 <= ts(f["statement_start"]) < t1]
        by_wait = [g for g in truth["holds"] if same_row(g) and g["waited_ms"] >=
                   DEADLOCK_TIMEOUT_MS and t0 <= ts(g["start"]) - g["waited_ms"] / 1e3 < t1]
        if by_error or by_wait:
            n, ms = blk.get(h["code_path"], (0, 0.0))
            blk[h["code_path"]] = (n + 1, ms + h["ms"])
        waited = sum(g["waited_ms"] for g in truth["holds"] if same_row(g)
                     and t0 <= ts(g["start"]) - g["waited_ms"] / 1e3 < t1)
        waited += sum((min(ts(f["statement_end"]), ts(f["released"])) -
                       ts(f["statement_start"])) * 1e3 for f in truth["failed"]
                      if same_row(f) and t0 <= ts(f["statement_start"]) < t1)
        caused[h["code_path"]] = caused.get(h["code_path"], 0.0) + waited
    return occ, blk, caused


def check_deadlock(ls, root, tmp):
    for sample in ("deadlock-holds", "deadlock-holds-stmtall"):
        d = os.path.join(root, "samples", sample)
        with open(os.path.join(d, "truth.json"), encoding="utf-8") as f:
            truth = json.load(f)
        occ, blk, caused = deadlock_truth(truth)
        for fmt, log in (("stderr %m", "postgresql.log"), ("csvlog", "postgresql.csv")):
            label = f"{sample} [{fmt}, none]"
            rep, err = analyze(ls, d, [os.path.join(d, log)], tmp)
            lscheck.check(rep is not None, f"{label}: analyze failed: {err}")
            if rep:
                compare(sample, label, "occupancy", occupancy(rep), occ)
                compare(sample, label, "blocking", blocking(rep), blk, caused=caused)


def whole_seconds(d, tmp):
    """The stderr log with its milliseconds cut off (as check_ddl_queue.py)."""
    path = os.path.join(tmp, "seconds.log")
    with open(os.path.join(d, "postgresql.log"), encoding="utf-8") as f, \
            open(path, "w", encoding="utf-8") as out:
        for line in f:
            out.write(re.sub(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\.\d{3}", r"\1", line))
    return path


def check_ddl_queue(ls, root, tmp):
    sample = "ddl-queue"
    d = os.path.join(root, "samples", sample)
    with open(os.path.join(d, "truth.json"), encoding="utf-8") as f:
        truth = json.load(f)
    # Every wait of the truth (the DDL's, the statements queued behind it)
    # is for a table lock: no row was waited for, so no row is hot.
    modes = [(r["table"], r["modes"][k]) for r in truth["rounds"] for k in ("ddl", "queued")]
    lscheck.check(modes and all(m in TABLE_MODES for _, m in modes),
                  f"{sample}: every wait of the truth is for a table lock [{modes}]")
    seconds = whole_seconds(d, tmp)
    with open(os.path.join(d, "prefix.txt"), encoding="utf-8") as f:
        prefix = f.read().rstrip("\n")
    for fmt, path, pre in (("stderr %m", os.path.join(d, "postgresql.log"), prefix),
                           ("stderr %t (copy)", seconds, prefix.replace("%m", "%t")),
                           ("csvlog", os.path.join(d, "postgresql.csv"), None),
                           ("jsonlog", os.path.join(d, "postgresql.json"), None)):
        label = f"{sample} [{fmt}, none]"
        rep, err = analyze(ls, d, [path], tmp, pre)
        lscheck.check(rep is not None, f"{label}: analyze failed: {err}")
        if rep:
            for kind, got in (("occupancy", occupancy(rep)), ("blocking", blocking(rep))):
                lscheck.check(got == [], f"{label}: {kind} ranking empty, as the truth's "
                                         f"(table locks only) [lockspan {got}]")


def held_truth(truth):
    """(blocking, caused) of a truth of holds by application_name and
    waits (samples/scenarios_correlation.py, samples/scenarios.py):
    path -> (holds, total ms); caused: path -> the waiting its holds
    caused, each wait given to the hold of its row by another session at
    the wait's start."""
    blk, caused = {}, {}
    for h in truth["holds"]:
        n, ms = blk.get(h["application_name"], (0, 0.0))
        blk[h["application_name"]] = (n + 1, ms + (ts(h["end"]) - ts(h["start"])) * 1e3)
    for w in truth["waits"]:
        ws, we = ts(w["wait_start"]), ts(w["wait_end"])
        for h in truth["holds"]:
            if (h["pid"] != w["waiter_pid"] and (h["relation"], h["row_id"]) ==
                    (w["relation"], w["row_id"]) and ts(h["start"]) <= ws < ts(h["end"])):
                caused[h["application_name"]] = (caused.get(h["application_name"], 0.0)
                                                  + (we - ws) * 1e3)
                break
    return blk, caused


def no_caused_ranges(sample, label, rep):
    """A log with sub-second times: the blocking ranking's waiting caused
    has no range and no order is said uncertain."""
    said = [o["code_path"] for o in rep["code_paths"]
            if "waiter_ms_caused_min" in o or "order_uncertain" in o]
    verdict(sample, not said, f"{label}: blocking ranking: no waiting-caused range, no uncertain "
                              f"order (sub-second times) [said for {said}]")


def caused_ranges(sample, label, rep, caused, certain=(), uncertain=()):
    """A whole-second log (issue 34: the truth's order, "with uncertainty
    shown where the truth's order cannot be known from the log"): every
    listed path's waiting caused has a range that holds the figure ranked
    and the truth's (max(25 ms, 5 %) out: the truth is the client's);
    order_uncertain_with names a pair exactly where their ranges meet;
    a pair not said uncertain is in the truth's order (ties within 25 ms
    either way). `certain`: pairs the log orders (must not be said
    uncertain); `uncertain`: pairs it cannot (must be)."""
    cp = rep["code_paths"]
    by = {o["code_path"]: o for o in cp}
    for o in cp:
        p, lo, hi = o["code_path"], o.get("waiter_ms_caused_min"), o.get("waiter_ms_caused_max")
        verdict(sample, lo is not None and hi is not None and
                lo - ROUND_MS <= o["waiter_ms_caused"] <= hi + ROUND_MS,
                f"{label}: blocking ranking: {p}'s waiting caused has a range holding it "
                f"[lockspan {o['waiter_ms_caused']} ms in {lo}..{hi}]")
        if p in caused and lo is not None and hi is not None:
            t = caused[p]
            verdict(sample, lo - tol(lo) <= t <= hi + tol(hi),
                    f"{label}: blocking ranking: {p}'s truth waiting caused within its range, "
                    f"max(25 ms, 5 %) out [truth {t:.1f} ms, range {lo}..{hi}]")
        verdict(sample, bool(o.get("order_uncertain")) == bool(o.get("order_uncertain_with")),
                f"{label}: blocking ranking: {p}: order_uncertain and its list agree")
    for i, a in enumerate(cp):
        for b in cp[i + 1:]:
            pa, pb = a["code_path"], b["code_path"]
            if "waiter_ms_caused_min" not in a or "waiter_ms_caused_min" not in b:
                continue
            meet = (a["waiter_ms_caused_min"] <= b["waiter_ms_caused_max"] and
                    b["waiter_ms_caused_min"] <= a["waiter_ms_caused_max"])
            said = pb in a.get("order_uncertain_with", [])
            verdict(sample, said == meet and said == (pa in b.get("order_uncertain_with", [])),
                    f"{label}: blocking ranking: {pa} / {pb} said uncertain exactly where their "
                    f"ranges meet [said {said}, meet {meet}]")
            if not said and pa in caused and pb in caused:
                verdict(sample, caused[pb] - caused[pa] <= ORDER_TOL_MS,
                        f"{label}: blocking ranking: {pa} above {pb} for certain, as the truth "
                        f"[truth {caused[pa]:.1f} ms, {caused[pb]:.1f} ms]")
    for pa, pb in certain:
        a = by.get(pa)
        verdict(sample, a is not None and pb in by and
                pb not in a.get("order_uncertain_with", []),
                f"{label}: blocking ranking: {pa} / {pb} ordered for certain (the log tells) "
                f"[uncertain with {a and a.get('order_uncertain_with')}]")
    for pa, pb in uncertain:
        a = by.get(pa)
        verdict(sample, a is not None and pb in a.get("order_uncertain_with", []),
                f"{label}: blocking ranking: {pa} / {pb} said uncertain (the log cannot tell) "
                f"[uncertain with {a and a.get('order_uncertain_with')}]")


# Pairs of the blocking ranking on the stderr logs cut to whole seconds:
# what the log can tell and what it cannot.
SECONDS_CERTAIN = {
    # billing's 8 logged waits (each "acquired ... after N ms": exact)
    # caused 5.3 s; inventory-sync's and refunds' about 1.9 s and 0.9 s.
    "basic": [("billing", "inventory-sync"), ("billing", "refunds")],
}
SECONDS_UNCERTAIN = {
    # issue 34: the truth's 6,984 vs 6,755 ms, 3 % apart; stock-reserve's
    # five waits each queued partly unlogged (a tuple lock, then its
    # holder's transaction below deadlock_timeout), rebuilt from
    # whole-second stamps: its estimate 6.75 s (the logged parts exact,
    # each wait's hidden part a few ms), its range up to 7.25 s, billing's
    # 6.77..8.58 s (f144ad6 said nothing; c304da5 ranked 8.0 s).
    "correlation": [("stock-reserve", "billing")],
}


# The blocking ranking's estimate of each path's waiting caused on the
# stderr logs cut to whole seconds (caused_estimates): within max(25 ms,
# 5 %) of the truth's, or, where the log cannot give that, what it allows,
# stated: (sample, path) -> (ms more allowed, why).
SECONDS_ESTIMATE_ALLOWS = {
    ("basic", "billing"): (
        1000.0, "pid 4445's wait ended in a lock timeout, whose error line gives no "
        "\"after\": the log has its first message's 100.1 ms and its stamps, both in one "
        "second, so it lasted 100.1 ms to 1.1 s (the truth's 402.0 ms); billing's other eight "
        "waits gave their own \"after\""),
}


def caused_estimates(sample, label, rep, caused):
    """Each listed path the truth has: its waiting caused (the figure
    ranked) within max(25 ms, 5 %) of the truth's (issue 34: the hidden
    part of a logged wait is what the statement waited beyond the wait's
    own "after", not beyond its stamps' span: samples/correlation's
    stock-reserve was 8000 ms for the truth's 6755; and where its
    statement's start is only its line's whole-second stamp, what exceeds
    that by more than a second: correlation-stmtall's billing was 10376 ms
    for the truth's 6975), or within what SECONDS_ESTIMATE_ALLOWS states
    the log allows."""
    for o in rep["code_paths"]:
        p, got = o["code_path"], o["waiter_ms_caused"]
        if p not in caused:
            continue
        t = caused[p]
        more, why = SECONDS_ESTIMATE_ALLOWS.get((sample, p), (0.0, None))
        verdict(sample, abs(got - t) <= tol(t) + more,
                f"{label}: blocking ranking: {p}'s waiting caused within max(25 ms, 5 %) of the "
                f"truth's{f', or {more:.0f} ms more as the log allows' if more else ''} "
                f"[lockspan {got} ms, truth {t:.1f} ms]" + (f" ({why})" if why else ""))


def check_seconds_caused(ls, root, tmp, sample, caused):
    """The stderr log of `sample` cut to whole seconds: caused_ranges()."""
    d = os.path.join(root, "samples", sample)
    with open(os.path.join(d, "prefix.txt"), encoding="utf-8") as f:
        prefix = f.read().rstrip("\n")
    label = f"{sample} [stderr %t (copy), none]"
    rep, err = analyze(ls, d, [whole_seconds(d, tmp)], tmp, prefix.replace("%m", "%t"))
    lscheck.check(rep is not None, f"{label}: analyze failed: {err}")
    if rep:
        caused_ranges(sample, label, rep, caused, SECONDS_CERTAIN.get(sample, ()),
                      SECONDS_UNCERTAIN.get(sample, ()))
        caused_estimates(sample, label, rep, caused)


def check_correlation(ls, root, tmp):
    for sample in ("correlation", "correlation-stmtall"):
        d = os.path.join(root, "samples", sample)
        with open(os.path.join(d, "truth.json"), encoding="utf-8") as f:
            truth = json.load(f)
        blk, caused = held_truth(truth)
        for fmt, inputs in ((DIRF, [d]), ("stderr %m", [os.path.join(d, "postgresql.log")]),
                            ("csvlog", [os.path.join(d, "postgresql.csv")]),
                            ("jsonlog", [os.path.join(d, "postgresql.json")])):
            traces = "none (+ pg_stat_activity)" if fmt == DIRF else "none"
            label = f"{sample} [{fmt}, {traces}]"
            rep, err = analyze(ls, d, inputs, tmp)
            lscheck.check(rep is not None, f"{label}: analyze failed: {err}")
            if rep:
                compare(sample, label, "blocking", blocking(rep), blk, caused=caused)
                no_caused_ranges(sample, label, rep)
        check_seconds_caused(ls, root, tmp, sample, caused)
    # samples/basic (samples/scenarios.py), whose truth has the same shape:
    # an order the whole-second log tells.
    with open(os.path.join(root, "samples", "basic", "truth.json"), encoding="utf-8") as f:
        _, caused = held_truth(json.load(f))
    check_seconds_caused(ls, root, tmp, "basic", caused)


def check_listed_min(ls, root, tmp):
    """Paths with ~0 ms waiting caused (issue 34): on a log with
    millisecond times a path no logged wait queued behind is listed in the
    blocking ranking only when the waiting given it reaches the log's tick,
    a millisecond (decide/waitrange.h ls_caused_listed_min_ms): below it
    the stamps cannot tell it from none. The queueing ranking still shows
    it. samples/trigger-paths: ledger-import's 0.611 ms of shares of
    checkout's waits (f144ad6 listed it last). On a whole-second log any
    such path is listed, with a range from 0 up (caused_ranges checks the
    ranges and what they leave uncertain on the cut samples)."""
    sample = "trigger-paths"
    d = os.path.join(root, "samples", sample)
    for fmt, path, pre in (("stderr %m", os.path.join(d, "postgresql.log"), True),
                           ("csvlog", os.path.join(d, "postgresql.csv"), False)):
        label = f"{sample} [{fmt}, none]"
        rep, err = analyze(ls, d, [path], tmp, pre)
        lscheck.check(rep is not None, f"{label}: analyze failed: {err}")
        if not rep:
            continue
        small = [(o["code_path"], o["waiter_ms_caused"]) for o in rep["code_paths"]
                 if o["blocking_episodes"] == 0 and (o["waiter_ms_caused"] or 0) < 1.0]
        lscheck.check(rep["code_paths"] and not small,
                      f"{label}: blocking ranking lists no path without a logged wait whose "
                      f"waiting caused is below the log's millisecond [{small}]")
        queued = {o["code_path"]: o for o in rep["row_queueing"]}
        q = queued.get("ledger-import")
        lscheck.check(q is not None and 0 < q["hidden_wait_ms_caused"] + q["logged_wait_ms_caused"]
                      < 1.0, f"{label}: the queueing ranking still shows ledger-import's "
                             f"sub-millisecond waiting caused [{q}]")


def check_app_seconds(ls, root, tmp):
    sample = "app-seconds"
    d = os.path.join(root, "samples", sample)
    with open(os.path.join(d, "truth.json"), encoding="utf-8") as f:
        truth = json.load(f)
    occ = {}
    for r in truth["requests"]:
        h = r.get("hold")
        if not h:
            continue
        # check_seconds.py's no_trace_label: the sqlcommenter controller
        # (the function's namespace), else application_name.
        label = r["function"].split(".")[0] if r["sqlcommenter"] else truth["application_name"]
        n, ms = occ.get(label, (0, 0.0))
        occ[label] = (n + 1, ms + h["duration_s"] * 1e3)
    label = f"{sample} [csvlog, none]"
    rep, err = analyze(ls, d, [os.path.join(d, "postgresql.csv")], tmp, False)
    lscheck.check(rep is not None, f"{label}: analyze failed: {err}")
    if rep:
        compare(sample, label, "occupancy", occupancy(rep), occ)


def otel_release(t):
    """(lo, hi): when transaction T of blind-otel's truth let its row locks
    go, ms since the epoch. A COMMIT or ROLLBACK lets them go while it runs:
    from when it was sent (end_start) to when the app saw it return (end,
    late by Node's event-loop lag: up to 190 ms, README.md). A deadlock
    victim's go at its error (PostgreSQL's AbortTransaction releases them,
    before the ROLLBACK): from when the failing statement was sent to when
    the app saw it fail."""
    f = t.get("failed_lock")
    if t["sqlstate"] == "40P01" and f:
        return f["stmt_start"], f["failed_at"]
    return t["end_start"], t["end"]


def otel_truth_locks(truth):
    """(pid, row) -> [(acquired, release lo, release hi, route)] of every
    lock of blind-otel's truth."""
    locks = {}
    for t in truth["transactions"]:
        lo, hi = otel_release(t)
        for lk in t["locks"]:
            locks.setdefault((t["pid"], lk["row"]), []).append(
                (lk["acquired"], lo, hi, t["route"]))
    return locks


def check_otel_holds(label, db, locks, hot):
    """Every hold the occupancy ranking sums (the store's holds view) is a
    lock of the truth's (same pid, same row), each lock one hold, starting
    within 25 ms of the server's clock_timestamp() at the lock and ending
    within 25 ms of the interval in which the lock was let go; and every
    lock of a row in `hot` is one of them."""
    con = sqlite3.connect(db)
    holds = con.execute("SELECT h.pid, r.relation, r.row_key, h.start_ts, h.end_ts"
                        " FROM holds h JOIN rows r ON r.row_id = h.row_id").fetchall()
    con.close()
    used, unmatched, start_off, end_off = set(), [], [], []
    for pid, rel, key, s_us, e_us in holds:
        row = f"{rel}:{key.split('=', 1)[-1]}"
        s, e = s_us / 1e3, e_us / 1e3
        cand = [(abs(s - lk[0]), i, lk) for i, lk in enumerate(locks.get((pid, row), []))
                if (pid, row, i) not in used and lk[0] - TOL_MS <= e and s <= lk[2] + TOL_MS]
        if not cand:
            unmatched.append((pid, row, s))
            continue
        _, i, (acq, lo, hi, _) = min(cand)
        used.add((pid, row, i))
        if abs(s - acq) > TOL_MS:
            start_off.append((pid, row, round(s - acq, 1)))
        if not lo - TOL_MS <= e <= hi + TOL_MS:
            end_off.append((pid, row, round(e - lo if e < lo else e - hi, 1)))
    lscheck.check(holds and not unmatched,
                  f"{label}: every hold (the store's holds view) is a lock of the truth's, "
                  f"same pid and row ({len(holds) - len(unmatched)} of {len(holds)}; "
                  f"not: {unmatched[:5]})")
    want = sum(len(v) for (_, row), v in locks.items() if row in hot)
    got = sum(1 for _, row, _ in used if row in hot)
    lscheck.check(got == want, f"{label}: every lock of the truth's contended rows is a hold "
                               f"({got} of {want})")
    lscheck.check(holds and not start_off,
                  f"{label}: every hold starts within 25 ms of the truth's lock "
                  f"({len(holds) - len(unmatched) - len(start_off)} of "
                  f"{len(holds) - len(unmatched)}; not: {start_off[:5]})")
    lscheck.check(holds and not end_off,
                  f"{label}: every hold ends within 25 ms of the truth's release interval, "
                  f"a deadlock victim's at its error ({len(holds) - len(unmatched) - len(end_off)} "
                  f"of {len(holds) - len(unmatched)}; not: {end_off[:5]})")


def otel_contended_rows(truth):
    """The rows of blind-otel's truth that were hot: one a locking
    statement waited for behind another transaction's lock (a truth wait
    with a blocker: the transaction holding the row when it was sent), or
    that a deadlock or serialization failure was on. truth["hot_rows"]
    lists every row the app locked; its "waits" are its statements slower
    than 5 ms, blocker or not: merchant_totals:2's 3 have none (the first
    40.7 ms, in the run's first second), so nobody ever waited for it."""
    hot = {w["row"] for w in truth["waits"] if w["blocker_tx"] is not None}
    hot |= {d["victim_waited_for"] for d in truth["deadlocks"]}
    hot |= {f["row"] for f in truth["serialization_failures"] if f["row"]}
    return hot


def check_blind_otel(ls, root, tmp):
    """csvlog with the traces: row occupancy by route (the express
    instrumentation's http.route names the path) against the truth's
    hot rows' holds by route. The truth times a lock's release by an
    interval (otel_release), so each route's total is the interval of
    the sums of its locks' [lo, hi] lengths, and each hold is checked
    against its lock (check_otel_holds)."""
    sample = "blind-otel"
    d = os.path.join(root, "samples", sample)
    with open(os.path.join(d, "truth.json"), encoding="utf-8") as f:
        truth = json.load(f)
    hot = otel_contended_rows(truth)
    occ, bounds = {}, {}
    for row, v in truth["hot_rows"].items():
        if row not in hot:
            continue
        for route, r in v["by_route"].items():
            path = route.split(" ", 1)[1]
            n, ms = occ.get(path, (0, 0.0))
            occ[path] = (n + r["n"], ms + r["total_held_ms"])
    for t in truth["transactions"]:
        path = t["route"].split(" ", 1)[1]
        rlo, rhi = otel_release(t)
        for lk in t["locks"]:
            if lk["row"] not in hot:
                continue
            lo, hi = bounds.get(path, (0.0, 0.0))
            bounds[path] = (lo + max(0.0, rlo - lk["acquired"]), hi + rhi - lk["acquired"])
    label = f"{sample} [csvlog, OTLP]"
    rep, err = analyze(ls, d, [os.path.join(d, "postgresql.csv"),
                               os.path.join(d, "traces.otlp.jsonl.gz")], tmp, False)
    lscheck.check(rep is not None, f"{label}: analyze failed: {err}")
    if rep:
        compare(sample, label, "occupancy", occupancy(rep), occ, bounds)
        check_otel_holds(label, os.path.join(tmp, "r.db"), otel_truth_locks(truth), hot)
    # The holds themselves do not depend on how paths are named: the same
    # per-hold checks on the stderr log, and on each log without traces.
    for fmt, traces, inputs in (
            ("stderr %m", "OTLP", ["postgresql.log", "traces.otlp.jsonl.gz"]),
            ("stderr %m", "none", ["postgresql.log"]),
            ("csvlog", "none", ["postgresql.csv"])):
        label = f"{sample} [{fmt}, {traces}]"
        rep, err = analyze(ls, d, [os.path.join(d, x) for x in inputs], tmp, False)
        lscheck.check(rep is not None, f"{label}: analyze failed: {err}")
        if rep:
            check_otel_holds(label, os.path.join(tmp, "r.db"), otel_truth_locks(truth), hot)


def main():
    ls, root = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        check_blind_otel(ls, root, tmp)
        check_deadlock(ls, root, tmp)
        check_ddl_queue(ls, root, tmp)
        check_correlation(ls, root, tmp)
        check_listed_min(ls, root, tmp)
        check_app_seconds(ls, root, tmp)
    return report()


if __name__ == "__main__":
    sys.exit(main())
