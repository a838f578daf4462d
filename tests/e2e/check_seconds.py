#!/usr/bin/env python3
"""Whole-second logs (issue 34, items 1 and 4): samples/app-seconds, the
traced application's run logged with `%t [%p-%l] ` and log_statement =
'all' (no durations), its csvlog (milliseconds) as the control, and its
OTLP traces; the truth is the application's (client side).

Usage: check_seconds.py LOCKSPAN SAMPLE_DIR

1. %t log with the traces: each truth hold of the hot row is a hold of the
   same backend, its start and end within max(25 ms, 5 %) of the truth's
   (the statements took the times of the spans that sent them); per code
   path, the occupancy ranking has the truth's hold count and a total
   within max(25 ms, 5 %); the order and the top path are the truth's,
   each total inside its reported range, and no order said uncertain
   where the ranges (as narrow as the spans) do not overlap, and none
   overlap: with the spans the order is known.
2. %t log alone (no traces; the paths are named by sqlcommenter tags and
   application_name): each truth hold lies inside its reported hold's
   bounds (start and end each within the logged second, the length within
   the range the log allows); per path, the holds counted once each, the
   truth's total inside the reported total range; where two paths' ranges
   do not overlap their order is the truth's, and order_uncertain names a
   pair exactly where the ranges overlap; the top path is the truth's.
   The report's own bounds (each timeline hold's start_lo .. end_hi in
   the JSON) contain the truth's hold as they are, no second added: the
   k-th truth hold of a backend against its k-th reported hold.
3. The csvlog with the traces (the control): the same order and top path.
4. The csvlog alone (no traces; paths named as in 2): per path the holds
   counted once each, the order and top path the truth's, no total
   ranges (a millisecond log). Known wrong, printed as EXPECTED FAILURE
   and not counted: without durations a hold starts at its locking
   statement's start, 30-65 ms before the truth's (the statement's
   return), and ends at its COMMIT's start (request 17's COMMIT took 31
   ms, and request 18's hold starts there), so 5 of 24 holds and the
   small path's total miss max(25 ms, 5 %). (Request 11's hold is right
   since a hold starts no earlier than the end of the row's hold before
   it in end order, decide/queue.c ls_queue_hold_start: three waiters
   woken by one commit raced for the row.)
"""
import datetime
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

TOL_S = 0.025
TOL_FRAC = 0.05


def ts(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def tol(d):
    return max(TOL_S, TOL_FRAC * abs(d))


def analyze(lockspan, tmp, name, paths, prefix):
    db = os.path.join(tmp, name + ".db")
    out = os.path.join(tmp, name + ".json")
    args = [lockspan, "analyze", "-q", "--db", db, "--format", "json", "--top", "100", "-o", out]
    if prefix is not None:
        args += ["--prefix", prefix]
    subprocess.run(args + paths, check=True)
    with open(out, encoding="utf-8") as f:
        rep = json.load(f)
    return rep, sqlite3.connect(db)


def truth_paths(truth):
    """Per code path: hold count and total seconds, from the client."""
    paths = {}
    for r in truth["requests"]:
        h = r.get("hold")
        if not h:
            continue
        p = paths.setdefault(r["function"], {"n": 0, "total": 0.0})
        p["n"] += 1
        p["total"] += h["duration_s"]
    return paths


def check_order(name, rep, truth):
    occ = rep["row_occupancy"]
    got = [o["code_path"] for o in occ]
    want = [x["function"] for x in sorted(truth["ranking"], key=lambda x: -x["hold_total_s"])]
    check(got[:1] == [truth["top_path"]], f"{name}: top path {got[:1]}, truth {truth['top_path']}")
    check(got == want, f"{name}: occupancy order {got}, truth {want}")


def check_holds(name, db, truth):
    """Each truth hold: a hold of its pid, start and end within tolerance."""
    rows = db.execute("SELECT hold_id, pid, start_ts / 1e6, end_ts / 1e6 FROM holds"
                      " WHERE end_ts IS NOT NULL").fetchall()
    used = set()
    for r in truth["requests"]:
        h = r.get("hold")
        if not h:
            continue
        t0, t1 = ts(h["start"]), ts(h["end"])
        cands = [x for x in rows if x[1] == r["pid"] and x[0] not in used]
        best = min(cands, key=lambda x: abs(x[2] - t0) + abs(x[3] - t1), default=None)
        ok = (best is not None and abs(best[2] - t0) <= tol(t1 - t0) and
              abs(best[3] - t1) <= tol(t1 - t0))
        check(ok, f"{name}: hold of request {r['seq']} (pid {r['pid']}, {h['start']} .. {h['end']},"
                  f" {h['duration_s'] * 1000:.1f} ms): got "
                  + (f"{best[2]:.3f} .. {best[3]:.3f} ({(best[3] - best[2]) * 1000:.1f} ms)"
                     if best else "none"))
        if best:
            used.add(best[0])


def check_totals(name, rep, truth):
    paths = truth_paths(truth)
    occ = {o["code_path"]: o for o in rep["row_occupancy"]}
    for fn, p in sorted(paths.items()):
        o = occ.get(fn)
        check(o is not None and o["holds"] == p["n"],
              f"{name}: {fn}: {o['holds'] if o else None} holds, truth {p['n']}")
        got = o["total_hold_ms"] / 1000.0 if o else None
        check(got is not None and abs(got - p["total"]) <= tol(p["total"]),
              f"{name}: {fn}: total {got} s, truth {p['total']:.6f} s")


SECOND = 1.0
ROUND_S = 1e-6  # the report's totals are rounded to the µs


def no_trace_label(truth, r):
    """What names a request's path without traces: its sqlcommenter
    controller tag (the function's namespace), else application_name."""
    return r["function"].split(".")[0] if r["sqlcommenter"] else truth["application_name"]


def check_intervals(name, db, truth):
    has_range = db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'hold_range'").fetchone()[0]
    check(has_range, f"{name}: the store has hold_range (each hold's length range)")
    rows = db.execute("SELECT h.hold_id, h.pid, h.start_lo / 1e6, h.start_hi / 1e6, h.end_lo / 1e6,"
                      " h.end_hi / 1e6, " + ("r.lo_us / 1e6, r.hi_us / 1e6 FROM holds h"
                                            " LEFT JOIN hold_range r ON r.hold_id = h.hold_id"
                                            if has_range else "NULL, NULL FROM holds h") +
                      " WHERE h.end_ts IS NOT NULL").fetchall()
    used = set()
    for r in truth["requests"]:
        h = r.get("hold")
        if not h:
            continue
        t0, t1 = ts(h["start"]), ts(h["end"])

        def inside(x):
            return (x[2] <= t0 < x[3] + SECOND and x[4] <= t1 < x[5] + SECOND and
                    x[6] is not None and x[6] <= t1 - t0 <= x[7])
        cands = [x for x in rows if x[1] == r["pid"] and x[0] not in used and inside(x)]
        check(cands, f"{name}: hold of request {r['seq']} (pid {r['pid']}, {h['start']} .. "
                     f"{h['end']}): inside no reported hold's bounds")
        if cands:
            used.add(min(cands, key=lambda x: abs(x[2] - t0))[0])


def check_report_bounds(name, rep, truth):
    """Each truth hold inside its reported hold's [start_lo, end_hi] as the
    JSON report gives them (docs/report-json.md: the bounds of a
    whole-second log are where the hold's ends truly lay), the holds of
    one backend taken in time order."""
    ls = {}
    for hr in rep["hot_rows"]:
        check(len(hr["timeline"]["holds"]) == hr["occupancy_holds"],
              f"{name}: {hr['row_key']}: the timeline lists every hold")
        for h in hr["timeline"]["holds"]:
            ls.setdefault(h["pid"], []).append(h)
    want = {}
    for r in truth["requests"]:
        if r.get("hold"):
            want.setdefault(r["pid"], []).append(r)
    for pid, reqs in sorted(want.items()):
        reqs.sort(key=lambda r: ts(r["hold"]["start"]))
        hs = sorted(ls.get(pid, []), key=lambda h: (h["start"], h["end"]))
        check(len(hs) == len(reqs), f"{name}: pid {pid}: {len(hs)} holds, truth {len(reqs)}")
        for r, h in zip(reqs, hs):
            t0, t1 = ts(r["hold"]["start"]), ts(r["hold"]["end"])
            check(ts(h["start_lo"]) <= t0 and t1 <= ts(h["end_hi"]),
                  f"{name}: hold of request {r['seq']} ({r['hold']['start']} .. {r['hold']['end']})"
                  f" inside the report's bounds {h['start_lo']} .. {h['end_hi']}")


# The csvlog alone's known wrong answers (see 4. above): the requests
# whose hold starts 30-65 ms early or ends at its COMMIT's start, and the
# path whose total they inflate.
CSV_ALONE_KNOWN_HOLDS = {3, 6, 12, 17, 18}
CSV_ALONE_KNOWN_TOTALS = {"shop"}


def check_or_known(known, cond, what):
    """check() unless known wrong: then printed, not counted (XPASS once
    right, to be made a check)."""
    if not known:
        check(cond, what)
    else:
        print(("XPASS (now right: make it a check)  " if cond else "EXPECTED FAILURE  ") + what)


def check_csv_alone(name, rep, db, truth):
    paths = {}
    for r in truth["requests"]:
        if r.get("hold"):
            p = paths.setdefault(no_trace_label(truth, r), {"n": 0, "total": 0.0})
            p["n"] += 1
            p["total"] += r["hold"]["duration_s"]
    occ = rep["row_occupancy"]
    got = [o["code_path"] for o in occ]
    want = sorted(paths, key=lambda k: -paths[k]["total"])
    check(got[:1] == want[:1], f"{name}: top path {got[:1]}, truth {want[:1]}")
    check(got == want, f"{name}: occupancy order {got}, truth {want}")
    for o in occ:
        p = paths.get(o["code_path"])
        check(p is not None and o["holds"] == p["n"],
              f"{name}: {o['code_path']}: {o['holds']} holds, truth {p['n'] if p else None}")
        check("total_hold_min_ms" not in o and not o.get("order_uncertain"),
              f"{name}: {o['code_path']}: no total range, no uncertain order (milliseconds)")
        if p:
            got_s = o["total_hold_ms"] / 1000.0
            check_or_known(o["code_path"] in CSV_ALONE_KNOWN_TOTALS,
                           abs(got_s - p["total"]) <= tol(p["total"]),
                           f"{name}: {o['code_path']}: total {got_s} s, truth {p['total']:.6f} s")
    rows = db.execute("SELECT hold_id, pid, start_ts / 1e6, end_ts / 1e6 FROM holds"
                      " WHERE end_ts IS NOT NULL").fetchall()
    used = set()
    for r in truth["requests"]:
        h = r.get("hold")
        if not h:
            continue
        t0, t1 = ts(h["start"]), ts(h["end"])
        cands = [x for x in rows if x[1] == r["pid"] and x[0] not in used]
        best = min(cands, key=lambda x: abs(x[2] - t0) + abs(x[3] - t1), default=None)
        if best:
            used.add(best[0])
        ok = (best is not None and abs(best[2] - t0) <= tol(t1 - t0) and
              abs(best[3] - t1) <= tol(t1 - t0))
        check_or_known(r["seq"] in CSV_ALONE_KNOWN_HOLDS, ok,
                       f"{name}: hold of request {r['seq']} ({h['duration_s'] * 1000:.1f} ms)"
                       " within max(25 ms, 5 %)")


def check_known_order(name, rep):
    """With the traces the order is known: the spans time each statement
    to the microsecond, a hold's start is no earlier than the end of the
    row's hold before it, so no two paths' total ranges meet (the truth's
    totals are 4.5 s, 128 ms and 26 ms apart)."""
    for o in rep["row_occupancy"]:
        check(not o.get("order_uncertain"),
              f"{name}: {o['code_path']}: order known (not uncertain: "
              f"{o.get('total_hold_min_ms')} .. {o.get('total_hold_max_ms')} ms,"
              f" uncertain with {o.get('order_uncertain_with')})")


def check_ranges(name, rep, truth, label_of):
    paths = {}
    for r in truth["requests"]:
        if r.get("hold"):
            p = paths.setdefault(label_of(truth, r), {"n": 0, "total": 0.0})
            p["n"] += 1
            p["total"] += r["hold"]["duration_s"]
    occ = rep["row_occupancy"]
    byname = {o["code_path"]: o for o in occ}
    for label, p in sorted(paths.items()):
        o = byname.get(label)
        check(o is not None and o["holds"] == p["n"],
              f"{name}: {label}: {o['holds'] if o else None} holds, truth {p['n']}")
        if not o:
            continue
        lo, hi = o.get("total_hold_min_ms"), o.get("total_hold_max_ms")
        check(lo is not None and hi is not None and
              lo / 1000 - ROUND_S <= p["total"] <= hi / 1000 + ROUND_S,
              f"{name}: {label}: truth total {p['total']:.3f} s outside [{lo}, {hi}] ms")
    top = max(paths, key=lambda k: paths[k]["total"])
    check(occ and occ[0]["code_path"] == top, f"{name}: top path {occ[0]['code_path'] if occ else None},"
                                              f" truth {top}")
    for i, a in enumerate(occ):
        for b in occ[i + 1:]:
            if "total_hold_min_ms" not in a or "total_hold_min_ms" not in b:
                check(False, f"{name}: {a['code_path']} / {b['code_path']}: no total ranges")
                continue
            overlap = (a["total_hold_min_ms"] <= b["total_hold_max_ms"] and
                       b["total_hold_min_ms"] <= a["total_hold_max_ms"])
            said = b["code_path"] in a.get("order_uncertain_with", [])
            check(said == overlap and said == (a["code_path"] in b.get("order_uncertain_with", [])),
                  f"{name}: {a['code_path']} / {b['code_path']}: uncertain {said}, ranges overlap"
                  f" {overlap}")
            if not overlap and a["code_path"] in paths and b["code_path"] in paths:
                check(paths[a["code_path"]]["total"] >= paths[b["code_path"]]["total"],
                      f"{name}: {a['code_path']} ranked above {b['code_path']} for certain,"
                      " truth the other way")
        check(a.get("order_uncertain") == bool(a.get("order_uncertain_with")),
              f"{name}: {a['code_path']}: order_uncertain and its list agree")


def check_caused(name, rep, truth, ranged):
    """The blocking ranking's waiting caused (issue 34): on the %t log
    (ranged) each path's range holds the figure ranked and the truth's
    waiter_seconds_caused (max(25 ms, 5 %) out: the client's clock), a
    pair is said uncertain exactly where the ranges meet, a pair not said
    uncertain is in the truth's order, and the top path (13.3 s caused
    against 0.17 s and 0.06 s) is ordered for certain; on the csvlog
    (milliseconds) no range and nothing said uncertain."""
    want = {r["function"]: r["waiter_seconds_caused"] * 1000.0 for r in truth["ranking"]}
    cp = rep["code_paths"]
    for o in cp:
        p, lo, hi = o["code_path"], o.get("waiter_ms_caused_min"), o.get("waiter_ms_caused_max")
        if not ranged:
            check(lo is None and "order_uncertain" not in o,
                  f"{name}: {p}: no waiting-caused range, no uncertain order (milliseconds)")
            continue
        check(lo is not None and hi is not None and
              lo - ROUND_S * 1000 <= o["waiter_ms_caused"] <= hi + ROUND_S * 1000,
              f"{name}: {p}: waiting caused {o['waiter_ms_caused']} ms inside its range {lo}..{hi}")
        if p in want and lo is not None:
            check(lo - tol(lo / 1000) * 1000 <= want[p] <= hi + tol(hi / 1000) * 1000,
                  f"{name}: {p}: truth waiting caused {want[p]:.1f} ms within {lo}..{hi} ms,"
                  " max(25 ms, 5 %) out")
    if not ranged:
        return
    for i, a in enumerate(cp):
        for b in cp[i + 1:]:
            if "waiter_ms_caused_min" not in a or "waiter_ms_caused_min" not in b:
                continue  # no ranges: failed above
            meet = (a["waiter_ms_caused_min"] <= b["waiter_ms_caused_max"] and
                    b["waiter_ms_caused_min"] <= a["waiter_ms_caused_max"])
            said = b["code_path"] in a.get("order_uncertain_with", [])
            check(said == meet and said == (a["code_path"] in b.get("order_uncertain_with", [])),
                  f"{name}: {a['code_path']} / {b['code_path']}: waiting caused said uncertain"
                  f" {said}, ranges meet {meet}")
            if not said and a["code_path"] in want and b["code_path"] in want:
                check(want[a["code_path"]] >= want[b["code_path"]],
                      f"{name}: {a['code_path']} ranked above {b['code_path']} for certain,"
                      " truth the other way")
    top = cp[0] if cp else {}
    check(top.get("code_path") == truth["top_path"] and not top.get("order_uncertain"),
          f"{name}: blocking ranking's top {top.get('code_path')} ordered for certain"
          f" (uncertain with {top.get('order_uncertain_with')})")


def main():
    lockspan, d = sys.argv[1], sys.argv[2]
    with open(os.path.join(d, "truth.json"), encoding="utf-8") as f:
        truth = json.load(f)
    with open(os.path.join(d, "prefix.txt"), encoding="utf-8") as f:
        prefix = f.read()
    log = os.path.join(d, "postgresql.log")
    csv = os.path.join(d, "postgresql.csv")
    traces = os.path.join(d, "traces.otlp.jsonl.gz")
    with tempfile.TemporaryDirectory() as tmp:
        rep, db = analyze(lockspan, tmp, "seconds-traces", [log, traces], prefix)
        check_holds("%t + traces", db, truth)
        check_totals("%t + traces", rep, truth)
        check_order("%t + traces", rep, truth)
        check_ranges("%t + traces", rep, truth, lambda t, r: r["function"])
        check_known_order("%t + traces", rep)
        check_caused("%t + traces", rep, truth, True)
        db.close()

        rep, db = analyze(lockspan, tmp, "seconds", [log], prefix)
        check_intervals("%t alone", db, truth)
        check_report_bounds("%t alone", rep, truth)
        check_ranges("%t alone", rep, truth, no_trace_label)
        db.close()

        rep, db = analyze(lockspan, tmp, "csv-traces", [csv, traces], None)
        check_order("csvlog + traces", rep, truth)
        check_caused("csvlog + traces", rep, truth, False)
        db.close()

        rep, db = analyze(lockspan, tmp, "csv", [csv], None)
        check_csv_alone("csvlog alone", rep, db, truth)
        db.close()
    return report()


if __name__ == "__main__":
    sys.exit(main())
