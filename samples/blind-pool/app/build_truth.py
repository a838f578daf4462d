#!/usr/bin/env python3
"""Build truth.json from the app's per-transaction records (TRUTH_OUT).

Usage: build_truth.py TRUTH_JSONL OUT_JSON

Input lines are either {"clock": label, "offset": server-minus-app ms, ...}
or one transaction attempt (see app.js). Times in the output are ms since
the epoch on the SERVER's clock: app-clock readings are shifted by the
measured offset (the mean of the start and end measurements). A lock's
acquired is exact where a trigger stamped it; a SELECT ... FOR UPDATE's is
the interval [acquired_lo, acquired_hi]. A lock is released in
[released_lo, released_hi] (COMMIT/ROLLBACK sent .. returned), so a hold is
the interval [hold_lo_ms, hold_hi_ms].

A locking statement WAITED when the row was acquired more than WAIT_MS after
the statement was sent; its blocker is the transaction that held the row
(acquired, not yet released) when it was sent.
"""
import json
import statistics
import sys
from collections import defaultdict

WAIT_MS = 5.0        # a lock taken this long after its statement was sent waited


def load(path):
    clocks, txs = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            (clocks if "clock" in r else txs).append(r)
    return clocks, txs


def shift(txs, off):
    """Put every app-clock time on the server's clock."""
    for t in txs:
        for k in ("start", "released_lo", "released"):
            if t.get(k) is not None:
                t[k] += off
        t["released_hi"] = t.pop("released")
        for lk in t["locks"]:
            lk["sent"] += off
            lk["returned"] += off
            if lk["acquired"] is None:          # FOR UPDATE: only bounds
                lk["acquired_lo"] = lk["sent"]
                hi = lk["returned"]
                if lk.get("stamped") is not None:
                    hi = min(hi, lk["stamped"])
                lk["acquired_hi"] = hi
            else:
                lk["acquired_lo"] = lk["acquired_hi"] = lk["acquired"]
            lk["hold_lo_ms"] = t["released_lo"] - lk["acquired_hi"]
            lk["hold_hi_ms"] = t["released_hi"] - lk["acquired_lo"]
            lk["waited_ms"] = max(0.0, lk["acquired_lo"] - lk["sent"])
        fl = t.get("failed_lock")
        if fl:
            fl["sent"] += off
            fl["failed_at"] += off


def holder_at(txs, row, when, exclude):
    """The transaction holding ROW at time WHEN (server ms), or None."""
    for t in txs:
        if t["tx"] == exclude:
            continue
        for lk in t["locks"]:
            if lk["row"] == row and lk["acquired_lo"] <= when < t["released_hi"]:
                return t
    return None


def waits(txs):
    out = []
    for t in txs:
        asks = [(lk["row"], lk["sent"], lk["acquired_lo"], False) for lk in t["locks"]
                if lk["waited_ms"] > WAIT_MS]
        fl = t.get("failed_lock")
        if fl:
            asks.append((fl["row"], fl["sent"], fl["failed_at"], True))
        for row, sent, got, failed in asks:
            b = holder_at(txs, row, sent, t["tx"])
            out.append({
                "row": row, "waiter_tx": t["tx"], "waiter_route": t["route"],
                "waiter_pid": t["pid"], "waiter_trace_id": t["trace_id"],
                "sent": sent, "until": got, "wait_ms": got - sent, "failed": failed,
                "blocker_tx": b["tx"] if b else None,
                "blocker_route": b["route"] if b else None,
                "blocker_pid": b["pid"] if b else None,
                "blocker_trace_id": b["trace_id"] if b else None,
            })
    return out


def deadlocks(txs):
    out = []
    for t in txs:
        if t["sqlstate"] != "40P01":
            continue
        fl = t.get("failed_lock") or {}
        other = holder_at(txs, fl.get("row"), fl.get("sent", 0), t["tx"])
        out.append({
            "victim_tx": t["tx"], "victim_route": t["route"], "victim_pid": t["pid"],
            "victim_trace_id": t["trace_id"],
            "victim_held": [lk["row"] for lk in t["locks"]],
            "victim_wanted": fl.get("row"), "detected_at": fl.get("failed_at"),
            "other_tx": other["tx"] if other else None,
            "other_route": other["route"] if other else None,
            "other_pid": other["pid"] if other else None,
            "other_held": [lk["row"] for lk in other["locks"]] if other else None,
        })
    return out


def hold_stats(locks):
    lo = [lk["hold_lo_ms"] for lk in locks]
    hi = [lk["hold_hi_ms"] for lk in locks]
    return {
        "locks": len(locks),
        "hold_total_ms": [round(sum(lo), 1), round(sum(hi), 1)],
        "hold_max_ms": [round(max(lo), 1), round(max(hi), 1)] if locks else None,
        "hold_median_ms": [round(statistics.median(lo), 1),
                           round(statistics.median(hi), 1)] if locks else None,
    }


def summarize(txs, ws):
    routes = defaultdict(list)
    rows = defaultdict(list)
    for t in txs:
        routes[t["route"]].append(t)
        for lk in t["locks"]:
            rows[lk["row"]].append((t, lk))
    rs = {}
    for route, ts in sorted(routes.items()):
        rb = defaultdict(int)
        for t in ts:
            if t["outcome"] != "commit":
                rb[t["sqlstate"] or "other"] += 1
        by_row = defaultdict(list)
        for t in ts:
            for lk in t["locks"]:
                by_row[lk["row"]].append(lk)
        rs[route] = {
            "transactions": len(ts),
            "commits": sum(1 for t in ts if t["outcome"] == "commit"),
            "rollbacks": dict(rb),
            "duration_max_ms": round(max(t["released_hi"] - t["start"] for t in ts), 1),
            "rows": {r: hold_stats(lks) for r, lks in sorted(by_row.items())},
        }
    hs = {}
    for row, pairs in sorted(rows.items()):
        by_route = defaultdict(list)
        for t, lk in pairs:
            by_route[t["route"]].append(lk)
        w = [x for x in ws if x["row"] == row]
        hs[row] = {
            **hold_stats([lk for _, lk in pairs]),
            "waits": len(w),
            "waits_over_deadlock_timeout": sum(1 for x in w if x["wait_ms"] >= 200),
            "wait_total_ms": round(sum(x["wait_ms"] for x in w), 1),
            "by_route": {r: hold_stats(lks) for r, lks in sorted(by_route.items())},
        }
    return rs, hs


def main():
    clocks, txs = load(sys.argv[1])
    offs = [c["offset"] for c in clocks]
    off = sum(offs) / len(offs) if offs else 0.0
    shift(txs, off)
    txs.sort(key=lambda t: t["start"])
    ws = waits(txs)
    routes, hot = summarize(txs, ws)
    pids = defaultdict(set)
    for t in txs:
        if t["pid"] is not None:
            pids[t["pid"]].add(t["route"])
    truth = {
        "clock": {"skew_injected": False, "measurements": clocks,
                  "offset_ms_applied": round(off, 3),
                  "note": "app and server share one host; no skew was injected. "
                          "offset = server clock_timestamp() - app clock, "
                          "from the fastest of 15 round trips via pgbouncer"},
        "backend_pids": {str(p): {"transactions": sum(1 for t in txs if t["pid"] == p),
                                  "routes": sorted(r)} for p, r in sorted(pids.items())},
        "routes": routes,
        "hot_rows": hot,
        "deadlocks": deadlocks(txs),
        "serialization_failures": [
            {"tx": t["tx"], "route": t["route"], "attempt": t["attempt"], "pid": t["pid"],
             "trace_id": t["trace_id"], "at": t["released_hi"]}
            for t in txs if t["sqlstate"] == "40001"],
        "waits": ws,
        "transactions": txs,
    }
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump(truth, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
