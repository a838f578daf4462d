#!/usr/bin/env python3
"""Build samples/blind-java/truth.json from what Shop.java recorded
(truth.jsonl: one line per transaction attempt, plus the clock probes, the
pool and the load window). Nothing here reads the server's log.

  build_truth.py TRUTH_JSONL TRUTH_JSON

Times: microseconds since the epoch on the client's clock (`*_us` keys and
the raw transaction records), converted to the server's clock where named
`*_server_us` (client + measured offset; one host, so the offset is ~0).
"""
import collections
import json
import sys

WAIT_MIN_US = 5000          # a locking statement that took 5 ms+ while another held its row
DEADLOCK_TIMEOUT_US = 1_000_000

PATH_DOC = {
    "placeOrder": "SELECT product (+@Version); UPDATE products SET stock = stock - ?, version = version + 1 "
                  "WHERE id = ? AND version = ? (0 rows: optimistic conflict, retried up to 3 attempts); "
                  "INSERT orders (AFTER trigger bumps order_totals id=1); batch INSERT order_lines x3; COMMIT",
    "reserveShipment": "SELECT warehouses ... FOR UPDATE; carrier API call 200-1000 ms (sleep, row held); "
                       "UPDATE warehouses SET reserved = reserved + ?; COMMIT",
    "transferCredit": "UPDATE accounts (debit) ; fraud check 30-120 ms; UPDATE accounts (credit), "
                      "rows in request order (deadlocks with itself); victim retried once",
    "recountShelf": "SET LOCAL lock_timeout = '500ms'; UPDATE warehouses SET last_counted = now(); "
                    "55P03 given up",
    "repriceProduct": "REPEATABLE READ: SELECT sum(stock); pricing 30-120 ms; UPDATE products price/version; "
                      "40001 retried up to 3 attempts",
}


def main():
    src, dst = sys.argv[1], sys.argv[2]
    probes, pool, load, txs = [], None, None, []
    with open(src) as f:
        for line in f:
            d = json.loads(line)
            if "clock_probe" in d:
                probes.append(d)
            elif "pool" in d:
                pool = d["pool"]
            elif "load" in d:
                load = d["load"]
            else:
                txs.append(d)
    txs.sort(key=lambda t: t["start"])
    for i, t in enumerate(txs):
        t["tx"] = i
    offset = sorted(probes, key=lambda p: p["rtt_us"])[0]["offset_us"]

    # ---- holds: every row lock taken, until COMMIT/ROLLBACK returned ----
    holds = []
    for t in txs:
        seen = set()
        for lk in t["locks"]:
            key = (lk["relation"], lk["row"])
            if key in seen:             # the second statement on a row it already holds
                continue
            seen.add(key)
            holds.append({"tx": t["tx"], "path": t["path"], "pid": t["pid"], "request": t["request"],
                          "relation": lk["relation"], "row": lk["row"], "via": lk["via"],
                          "stmt_call_us": lk["stmt_call"], "acquired_us": lk["acquired"],
                          "released_lo_us": lk["released_lo"], "released_us": lk["released"],
                          "held_ms": round((lk["released"] - lk["acquired"]) / 1000, 3),
                          "outcome": t["outcome"]})
    by_row = collections.defaultdict(list)
    for h in holds:
        by_row[(h["relation"], h["row"])].append(h)

    # ---- waits: a statement on a row while another transaction held it ----
    outcome_of = {"40P01": "deadlock", "55P03": "lock_timeout", "40001": "serialization_failure"}
    waits = []
    for t in txs:
        held = set()
        for s in t["statements"]:
            if s["relation"] is None:
                continue
            key = (s["relation"], s["row"])
            if key in held:
                continue
            dur = s["ret"] - s["call"]
            blockers = []
            for h in by_row[key]:
                if h["tx"] == t["tx"]:
                    continue
                lo, hi = max(s["call"], h["acquired_us"]), min(s["ret"], h["released_us"])
                if hi > lo:
                    blockers.append({"tx": h["tx"], "path": h["path"], "pid": h["pid"],
                                     "overlap_ms": round((hi - lo) / 1000, 3)})
            if s["sqlstate"]:
                outcome = outcome_of.get(s["sqlstate"], s["sqlstate"])
            elif s["rows"] == 0:
                outcome = "optimistic_conflict"
            else:
                outcome = "acquired"
                held.add(key)
            if dur >= WAIT_MIN_US and blockers:
                waits.append({"tx": t["tx"], "path": t["path"], "pid": t["pid"], "request": t["request"],
                              "relation": s["relation"], "row": s["row"], "statement": s["label"],
                              "start_us": s["call"], "end_us": s["ret"], "waited_ms": round(dur / 1000, 3),
                              "over_deadlock_timeout": dur >= DEADLOCK_TIMEOUT_US,
                              "outcome": outcome, "blockers": blockers})

    # ---- hot rows: rows with a wait; occupancy and blocking per code path ----
    hot = collections.OrderedDict()
    for w in waits:
        k = "%s:%d" % (w["relation"], w["row"])
        r = hot.setdefault(k, {"row": k, "waits": 0, "total_wait_ms": 0.0, "max_wait_ms": 0.0,
                               "waits_over_deadlock_timeout": 0, "wait_ms_over_deadlock_timeout": 0.0})
        r["waits"] += 1
        r["total_wait_ms"] += w["waited_ms"]
        r["max_wait_ms"] = max(r["max_wait_ms"], w["waited_ms"])
        if w["over_deadlock_timeout"]:
            r["waits_over_deadlock_timeout"] += 1
            r["wait_ms_over_deadlock_timeout"] += w["waited_ms"]
    for k, r in hot.items():
        rel, row = k.split(":")
        hs = by_row[(rel, int(row))]
        r["holds"] = len(hs)
        r["held_ms"] = round(sum(h["held_ms"] for h in hs), 3)
        r["total_wait_ms"] = round(r["total_wait_ms"], 3)
        r["wait_ms_over_deadlock_timeout"] = round(r["wait_ms_over_deadlock_timeout"], 3)
    hot_rows = sorted(hot.values(), key=lambda r: -r["total_wait_ms"])

    occ = collections.defaultdict(lambda: {"holds": 0, "hold_ms": 0.0, "holds_waited_for": 0,
                                           "waiter_ms_caused": 0.0, "waits_caused": 0})
    waited_for = collections.Counter()
    for w in waits:
        for b in w["blockers"]:
            occ[b["path"]]["waiter_ms_caused"] += b["overlap_ms"]
            occ[b["path"]]["waits_caused"] += 1
            waited_for[(b["tx"], w["relation"], w["row"])] += 1
    for h in holds:
        if "%s:%d" % (h["relation"], h["row"]) not in hot:
            continue
        o = occ[h["path"]]
        o["holds"] += 1
        o["hold_ms"] += h["held_ms"]
        o["holds_waited_for"] += (h["tx"], h["relation"], h["row"]) in waited_for
    total = sum(o["hold_ms"] for o in occ.values())
    occupancy = sorted(({"path": p, "holds": o["holds"], "holds_waited_for": o["holds_waited_for"],
                         "hold_ms": round(o["hold_ms"], 3),
                         "share_pct": round(100 * o["hold_ms"] / total, 1) if total else 0}
                        for p, o in occ.items()), key=lambda x: -x["hold_ms"])
    blocking = sorted(({"path": p, "waits_caused": o["waits_caused"],
                        "waiter_ms_caused": round(o["waiter_ms_caused"], 3),
                        "holds_waited_for": o["holds_waited_for"]}
                       for p, o in occ.items()), key=lambda x: -x["waiter_ms_caused"])

    # ---- idle in transaction while holding a row others waited for ----
    idle = collections.defaultdict(float)
    for t in txs:
        if not any((t["tx"], lk["relation"], lk["row"]) in waited_for for lk in t["locks"]):
            continue
        first = min((lk["acquired"] for lk in t["locks"]), default=None)
        for s in t["sleeps"]:
            if first is not None and s["end"] > first:
                idle[t["path"]] += (s["end"] - max(s["start"], first)) / 1000
    # ---- errors, retries, deadlocks ----
    by_req = collections.defaultdict(list)
    for t in txs:
        by_req[t["request"]].append(t)
    errors, deadlocks = [], []
    for t in txs:
        if not t["sqlstate"]:
            continue
        nxt = [u for u in by_req[t["request"]] if u["attempt"] == t["attempt"] + 1]
        failing = next(s for s in t["statements"] if s["sqlstate"])
        e = {"tx": t["tx"], "path": t["path"], "pid": t["pid"], "request": t["request"],
             "attempt": t["attempt"], "sqlstate": t["sqlstate"], "statement": failing["label"],
             "time_us": failing["ret"], "relation": failing["relation"], "row": failing["row"],
             "retried": bool(nxt), "retry_pid": nxt[0]["pid"] if nxt else None,
             "retry_same_pid": bool(nxt) and nxt[0]["pid"] == t["pid"],
             "retry_outcome": nxt[0]["outcome"] if nxt else None}
        errors.append(e)
        if t["sqlstate"] == "40P01":
            wanted = (failing["relation"], failing["row"])
            other = [h for h in by_row[wanted] if h["tx"] != t["tx"]
                     and h["acquired_us"] < failing["ret"] and h["released_us"] > failing["call"]]
            first = [lk for lk in t["locks"]]
            deadlocks.append({"victim_pid": t["pid"], "victim_tx": t["tx"], "victim_path": t["path"],
                              "victim_request": t["request"], "time_us": failing["ret"],
                              "victim_held": ["%s:%d" % (lk["relation"], lk["row"]) for lk in first],
                              "victim_wanted": "%s:%d" % wanted,
                              "other_pids": sorted({h["pid"] for h in other}),
                              "other_paths": sorted({h["path"] for h in other})})
    by_state = collections.Counter(e["sqlstate"] for e in errors)
    retries = {st: {"failures": by_state[st],
                    "retried": sum(e["retried"] for e in errors if e["sqlstate"] == st),
                    "retried_on_same_pid": sum(e["retry_same_pid"] for e in errors if e["sqlstate"] == st),
                    "retry_committed": sum(e["retry_outcome"] == "commit" for e in errors if e["sqlstate"] == st)}
               for st in sorted(by_state)}

    paths = collections.OrderedDict()
    for p in PATH_DOC:
        ts = [t for t in txs if t["path"] == p]
        paths[p] = {"what": PATH_DOC[p], "transactions": len(ts),
                    "requests": len({t["request"] for t in ts}),
                    "outcomes": dict(collections.Counter(t["outcome"] + ("/" + t["sqlstate"] if t["sqlstate"] else "")
                                                         for t in ts)),
                    "idle_while_waited_for_ms": round(idle.get(p, 0.0), 3)}

    truth = {
        "note": "Recorded by app/Shop.java on the client (never read from the log). Times are microseconds "
                "since the epoch on the client clock; the server clock is client + clock.offset_us (min-RTT "
                "probes; one host). A hold runs from the locking statement's return (acquired_us) to the "
                "COMMIT/ROLLBACK's return (released_us; released_lo_us its call). A wait is a statement on a "
                "row that took 5 ms or more while another transaction held the row (start/end = call/return); "
                "over_deadlock_timeout marks waits of 1 s or more, which the log shows only when a single "
                "lock sleep lasted 1 s (a FOR UPDATE queued behind several holders sleeps on each in turn and "
                "is often never logged). Hot rows are the rows with a wait. Occupancy: every hold of a hot row "
                "per code path; blocking: the waiting each path's holds caused (a wait behind several holds "
                "counts for each the time it overlapped). Code paths are the Java methods.",
        "clock": {"offset_us": offset, "probes": probes},
        "pool": pool, "load": load, "paths": paths,
        "findings": {
            "deserved": {
                "deadlocks": "%d deadlocks (40P01)" % by_state.get("40P01", 0),
                "inconsistent_lock_order": "transferCredit against itself on accounts (rows in request order)",
                "idle_in_transaction_head": "reserveShipment holds warehouses rows across its carrier call "
                                            "(a client-side sleep: idle in transaction to the server)",
                "retries_after_serialization_failure": "repriceProduct retries 40001 (on whatever pooled "
                                                       "connection it gets)",
                "hidden_waiting": "warehouses id=1: most of its queueing is never logged",
                "serial_capacity": "warehouses id=1 is held nearly all the time",
            },
            "not_deserved": {
                "external_call_in_transaction": "no traces: nothing in the input can name a call",
                "hot_counter_row on warehouses": "reserved = reserved + ? is the booking; the row is held by "
                                                 "the carrier call, not by counting",
                "hot_counter_row on accounts": "balances moved between rows",
                "lock_queue_behind_ddl": "no DDL during the load",
            },
        },
        "rankings": {"occupancy": occupancy, "blocking": blocking},
        "hot_rows": hot_rows, "deadlocks": deadlocks, "errors_by_sqlstate": dict(by_state),
        "retries": retries, "errors": errors, "waits": waits, "holds": holds, "transactions": txs,
    }
    with open(dst, "w") as f:
        json.dump(truth, f, separators=(",", ":"))
        f.write("\n")
    print("truth: %d transactions, %d holds, %d waits (%d over 1 s), %d errors %s, %d deadlocks; "
          "occupancy %s" % (len(txs), len(holds), len(waits), sum(w["over_deadlock_timeout"] for w in waits),
                            len(errors), dict(by_state), len(deadlocks),
                            ", ".join("%s %.1f s" % (o["path"], o["hold_ms"] / 1000) for o in occupancy)),
          file=sys.stderr)


if __name__ == "__main__":
    main()
