#!/usr/bin/env python3
"""samples/blind-php: the truth from the app's own records.

  build_truth.py RECORDS.jsonl.gz TRUTH.json

RECORDS is what app/worker.php wrote (one JSON line per transaction attempt,
a `connection` line per worker with its backend pid and clock offset). The
truth is on the client's clock (UTC microseconds since the epoch; the
server's clock is `clock.offset_us` ahead, one kernel clock here, so 0 up
to the round trip). A row is held from the return of the first statement
that locks it to the return of the COMMIT or ROLLBACK; a statement waited
when another pid held its row while it ran (from its call to the end of the
last such hold or its own return, whichever is first: an upper bound by the
client round trip)."""
import gzip
import json
import statistics
import sys
from collections import defaultdict

DEADLOCK_TIMEOUT_MS = 1000
LOCK_TIMEOUT_MS = 150


def ms(us):
    return round(us / 1000.0, 3)


def iso(us):
    import datetime
    return datetime.datetime.fromtimestamp(us / 1e6, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%S.%fZ")


def main():
    src, dst = sys.argv[1], sys.argv[2]
    recs = [json.loads(line) for line in gzip.open(src, "rt")]
    conns = [r for r in recs if r["kind"] == "connection"]
    atts = sorted((r for r in recs if r["kind"] == "attempt"), key=lambda r: (r["start"], r["pid"]))
    for i, a in enumerate(atts):
        a["id"] = i
    offsets = [c["offset_us"] for c in conns]

    # holds
    holds = []
    for a in atts:
        first = {}
        for s in a["stmts"]:
            if "ret" not in s:
                continue
            for rel, key in s["locks"]:
                k = (rel, "id=%d" % key)
                first.setdefault(k, s["ret"])
        end = a["stmts"][-1]["ret"] if a["stmts"][-1]["sql"] in ("COMMIT", "ROLLBACK") else a["end"]
        for (rel, key), st in first.items():
            holds.append({"attempt": a["id"], "pid": a["pid"], "path": a["path"], "relation": rel,
                          "row": key, "start_us": st, "end_us": end, "hold_ms": ms(end - st),
                          "outcome": a["outcome"]})
    by_row = defaultdict(list)
    for h in holds:
        by_row[(h["relation"], h["row"])].append(h)

    # waits
    waits = []
    for a in atts:
        mine = set()
        for s in a["stmts"]:
            end = s.get("ret", s.get("err"))
            for rel, key in s["locks"]:
                k = (rel, "id=%d" % key)
                if k in mine:
                    continue
                others = [h for h in by_row[k] if h["pid"] != a["pid"]
                          and h["start_us"] < end and h["end_us"] > s["call"]]
                if others:
                    wend = min(end, max(h["end_us"] for h in others))
                    if wend > s["call"]:
                        blockers = []
                        for h in sorted(others, key=lambda h: h["start_us"]):
                            ov = min(wend, h["end_us"]) - max(s["call"], h["start_us"])
                            if ov > 0:
                                blockers.append({"attempt": h["attempt"], "pid": h["pid"],
                                                 "path": h["path"], "overlap_ms": ms(ov)})
                        outcome = "acquired" if "ret" in s else {
                            "55P03": "lock_timeout", "40P01": "deadlock"}.get(s.get("sqlstate"), "error")
                        waits.append({"attempt": a["id"], "pid": a["pid"], "path": a["path"],
                                      "relation": rel, "row": k[1], "sql": s["sql"],
                                      "start_us": s["call"], "end_us": wend,
                                      "waited_ms": ms(wend - s["call"]), "outcome": outcome,
                                      "logged": wend - s["call"] >= DEADLOCK_TIMEOUT_MS * 1000,
                                      "blockers": blockers})
                if "ret" in s:
                    mine.add(k)

    # errors, deadlocks, retries
    errors, deadlocks = [], []
    for a in atts:
        if a["outcome"] == "commit":
            continue
        bad = next(s for s in a["stmts"] if "err" in s)
        nxt = next((b for b in atts if b["pid"] == a["pid"] and b["start"] > a["start"]), None)
        e = {"attempt": a["id"], "pid": a["pid"], "path": a["path"], "sqlstate": a["sqlstate"],
             "time_us": bad["err"], "sql": bad["sql"], "params": bad["params"],
             "retried": a["retried"],
             "retry_outcome": nxt["outcome"] if a["retried"] else None,
             "retry_start_us": nxt["start"] if a["retried"] else None}
        if a["sqlstate"] == "55P03":
            k = tuple(bad["locks"][0])
            k = (k[0], "id=%d" % k[1])
            hs = [h for h in by_row[k] if h["pid"] != a["pid"] and h["start_us"] < bad["err"]
                  and h["end_us"] > bad["err"] - LOCK_TIMEOUT_MS * 1000]
            e["row"] = "%s %s" % k
            e["holders"] = [{"pid": h["pid"], "path": h["path"], "attempt": h["attempt"]} for h in hs]
        errors.append(e)
        if a["sqlstate"] == "40P01":
            held = [[rel, "id=%d" % key] for s in a["stmts"] if "ret" in s for rel, key in s["locks"]]
            rel, key = bad["locks"][0]
            k = (rel, "id=%d" % key)
            hs = [h for h in by_row[k] if h["pid"] != a["pid"] and h["start_us"] < bad["err"]
                  and h["end_us"] > bad["err"]]
            deadlocks.append({"time_us": bad["err"], "victim_pid": a["pid"], "victim_path": a["path"],
                              "victim_held": held[:1], "victim_wanted": "%s %s" % k,
                              "other_pids": sorted({h["pid"] for h in hs}),
                              "other_paths": sorted({h["path"] for h in hs}),
                              "retried": a["retried"], "retry_outcome": e["retry_outcome"]})

    # rows, rankings
    rows = defaultdict(lambda: {"waits": 0, "wait_ms": 0.0, "logged_waits": 0, "logged_wait_ms": 0.0,
                                "max_wait_ms": 0.0, "by_path": defaultdict(float)})
    for w in waits:
        r = rows[(w["relation"], w["row"])]
        r["waits"] += 1
        r["wait_ms"] += w["waited_ms"]
        r["max_wait_ms"] = max(r["max_wait_ms"], w["waited_ms"])
        r["by_path"][w["path"]] += w["waited_ms"]
        if w["logged"]:
            r["logged_waits"] += 1
            r["logged_wait_ms"] += w["waited_ms"]
    hot = {k for k, r in rows.items() if r["max_wait_ms"] >= 5}
    hot_rows = []
    for k, r in sorted(rows.items(), key=lambda kv: -kv[1]["wait_ms"]):
        hs = by_row[k]
        span = (max(h["end_us"] for h in hs) - min(h["start_us"] for h in hs)) or 1
        held = sum(h["end_us"] - h["start_us"] for h in hs)
        hot_rows.append({"relation": k[0], "row": k[1], "waits": r["waits"],
                         "wait_ms": round(r["wait_ms"], 3), "max_wait_ms": r["max_wait_ms"],
                         "waits_logged_by_deadlock_timeout": r["logged_waits"],
                         "logged_wait_ms": round(r["logged_wait_ms"], 3),
                         "hidden_share_pct": round(100 * (1 - r["logged_wait_ms"] / r["wait_ms"]), 1)
                         if r["wait_ms"] else None,
                         "holds": len(hs), "mean_hold_ms": ms(held / len(hs)),
                         "utilisation": round(held / span, 3),
                         "waiting_paths": {p: round(v, 3) for p, v in r["by_path"].items()},
                         "hot": k in hot})
    occ = defaultdict(float)
    nholds = defaultdict(int)
    for h in holds:
        if (h["relation"], h["row"]) in hot:
            occ[h["path"]] += h["hold_ms"]
            nholds[h["path"]] += 1
    total_occ = sum(occ.values())
    blocking = defaultdict(float)
    caused = defaultdict(int)
    for w in waits:
        for b in w["blockers"]:
            blocking[b["path"]] += b["overlap_ms"]
        if w["blockers"]:
            caused[w["blockers"][0]["path"]] += 1
    rankings = {
        "occupancy": [{"path": p, "hold_ms": round(v, 3), "holds": nholds[p],
                       "share_pct": round(100 * v / total_occ, 1)}
                      for p, v in sorted(occ.items(), key=lambda kv: -kv[1])],
        "blocking": [{"path": p, "waiting_caused_ms": round(v, 3), "waits_first_blocked": caused[p]}
                     for p, v in sorted(blocking.items(), key=lambda kv: -kv[1])],
    }

    paths = defaultdict(lambda: defaultdict(int))
    for a in atts:
        paths[a["path"]]["attempts"] += 1
        paths[a["path"]][a["outcome"]] += 1
    w1 = next((r for r in hot_rows if r["relation"] == "warehouses" and r["row"] == "id=1"), None)
    dl_n = len(deadlocks)
    findings = {
        "deserved": [
            {"rule": "deadlocks", "why": "%d deadlocks (40P01), all transfer against transfer" % dl_n},
            {"rule": "inconsistent_lock_order", "code_path": "transfer", "other": "transfer",
             "relation": "accounts", "why": "transfer locks its two accounts in request order"},
            {"rule": "idle_in_transaction_head", "code_path": "reserve_stock",
             "why": "reserve_stock holds warehouses id=1 during a 200-500 ms HTTP call; "
                    "the log shows it only as idle in transaction"},
            {"rule": "serial_capacity", "relation": "warehouses", "row": "id=1",
             "why": "utilisation %.2f, mean hold %.0f ms" % (w1["utilisation"], w1["mean_hold_ms"])
             if w1 else None},
            {"rule": "hidden_waiting", "relation": "warehouses", "row": "id=1",
             "why": "%.1f %% of its waiting below deadlock_timeout (1 s)" % w1["hidden_share_pct"]
             if w1 else None},
        ],
        "not_deserved": [
            {"rule": "lock_queue_behind_ddl", "why": "no DDL ran during the load"},
            {"rule": "commit_wait_head", "why": "commits take < 1 ms"},
            {"rule": "retries_after_serialization_failure", "why": "no 40001: READ COMMITTED only"},
            {"rule": "external_call_in_transaction", "why": "no traces: the log cannot show the HTTP call"},
            {"rule": "hot_counter_row", "relation": "accounts",
             "why": "transfer moves an amount between two accounts (a lock-order problem)"},
            {"rule": "inconsistent_lock_order", "why": "for any pair other than transfer with itself"},
        ],
        "not_asserted": [
            {"rule": "hot_counter_row", "why": "pages id=1 (hits = hits + 1) and order_totals id=1 "
             "(the trigger's n = n + 1) are counters; deserved where their waiting is worth it "
             "(see hot_rows)"},
        ],
    }
    truth = {
        "sample": "blind-php",
        "clock": {"offset_us": int(statistics.median(offsets)), "offsets_us": offsets,
                  "note": "server minus client clock, least-RTT of 5 round trips per worker; "
                          "one kernel clock"},
        "connections": conns,
        "settings": {"deadlock_timeout_ms": DEADLOCK_TIMEOUT_MS, "lock_timeout_ms": LOCK_TIMEOUT_MS,
                     "log_line_prefix": "%t [%p]: [%l-1] user=%u,db=%d,app=%a,client=%h ",
                     "application_name": None},
        "paths": {p: dict(v) for p, v in paths.items()},
        "attempts": atts,
        "holds": holds,
        "waits": waits,
        "errors": errors,
        "deadlocks": deadlocks,
        "hot_rows": hot_rows,
        "rankings": rankings,
        "findings": findings,
        "dba_can_know": [
            "every statement with its duration (log_min_duration_statement = 0: parse, bind and "
            "execute each have a line, the execute's bind parameters in DETAIL), BEGIN, COMMIT, "
            "ROLLBACK and SET LOCAL as simple queries",
            "the waits longer than deadlock_timeout (1 s), the deadlocks with both processes and "
            "the lock timeouts (55P03) and the 25P02 of PDO's DEALLOCATE in the aborted transaction",
            "hold lengths to about a second (whole-second %t stamps; statement durations in ms)",
            "the transaction shape of each backend's transactions, hence which code path by shape",
        ],
        "dba_cannot_know": [
            "the PHP function (no application_name: %a is [inconnu]; no spans, no sqlcommenter)",
            "that reserve_stock's idle time with the row held is an HTTP call (no traces)",
            "the order of events within a second across backends (whole-second stamps), so the "
            "holder of a short wait below deadlock_timeout only within the second",
            "the exact waits below deadlock_timeout and behind a 150 ms lock_timeout (never logged "
            "as waits): only rebuilt from durations and stamps",
            "whether a transaction after a failure is a retry or the worker's next request, except by "
            "the same statement with the same parameters right after the ROLLBACK",
        ],
    }
    for key in ("holds", "waits"):
        for x in truth[key]:
            x["start"] = iso(x["start_us"])
            x["end"] = iso(x["end_us"])
    json.dump(truth, open(dst, "w"), indent=None, separators=(",", ":"))
    print("build_truth: %d attempts, %d holds, %d waits (%d logged >= 1 s), %d errors, %d deadlocks"
          % (len(atts), len(holds), len(waits), sum(w["logged"] for w in waits), len(errors), dl_n),
          file=sys.stderr)
    for r in hot_rows[:6]:
        print("  row %s %s: %d waits %.0f ms (logged %d, %.0f ms) util %.2f mean hold %.0f" % (
            r["relation"], r["row"], r["waits"], r["wait_ms"],
            r["waits_logged_by_deadlock_timeout"], r["logged_wait_ms"], r["utilisation"],
            r["mean_hold_ms"]), file=sys.stderr)
    print("  occupancy:", [(x["path"], round(x["hold_ms"])) for x in rankings["occupancy"]],
          file=sys.stderr)
    print("  blocking:", [(x["path"], round(x["waiting_caused_ms"])) for x in rankings["blocking"]],
          file=sys.stderr)


if __name__ == "__main__":
    main()
