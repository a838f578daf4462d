#!/usr/bin/env python3
"""samples/blind-rb: build truth.json from the app's own records (shop.rb's
JSON lines: one per transaction attempt, with every statement ActiveRecord
ran (its sql.active_record notification: call and return on the client's
clock), the row locks the code takes (lock(...) blocks), its pauses and the
backend pid).

  build_truth.py TRUTH.jsonl truth.json
"""
import collections
import json
import sys

WAIT_MIN_US = 5000          # a locking statement that took 5 ms+ behind another hold
HOT_RELEASE = "COMMIT/ROLLBACK return (or, after ActiveRecord's reset, the new connection's first statement)"


def load(path):
    probes, attempts, failed = [], [], []
    for line in open(path):
        d = json.loads(line)
        if "probe" in d:
            probes.append(d)
        elif "request_failed" in d:
            failed.append(d)
        else:
            attempts.append(d)
    attempts.sort(key=lambda a: a["start_us"])
    return probes, attempts, failed


def release(a):
    """(call, return) of the end of the attempt's transaction: its COMMIT or
    ROLLBACK; after a 40P01/40001 ActiveRecord 6.1 sends no ROLLBACK and
    resets the connection: the backend exits between the failed statement's
    return and the reconnected session's first statement."""
    for s in a["stmts"]:
        if s["name"] == "TRANSACTION" and s["sql"] in ("COMMIT", "ROLLBACK"):
            return s["call_us"], s["ret_us"], s["sql"]
    failed = [s for s in a["stmts"] if s["sqlstate"]]
    if failed:
        after = [s for s in a["stmts"] if s["name"] == "SCHEMA" and s["call_us"] >= failed[0]["ret_us"]]
        end = after[0]["call_us"] if after else a["end_us"]
        return failed[0]["ret_us"], end, "connection reset"
    return a["end_us"], a["end_us"], "end of attempt"


def main():
    src, dst = sys.argv[1], sys.argv[2]
    probes, attempts, failed = load(src)
    offset = min(probes, key=lambda p: p["rtt_us"])
    tx = []
    holds = []
    for i, a in enumerate(attempts):
        rc, rr, how = release(a)
        failed_stmt = next((s for s in a["stmts"] if s["sqlstate"]), None)
        t = {"tx": i, "path": a["path"], "request": a["req"], "attempt": a["attempt"],
             "thread": a["thread"], "pid": a["pid"], "start_us": a["start_us"], "end_us": a["end_us"],
             "outcome": a["outcome"], "error": a.get("error"),
             "sqlstate": failed_stmt["sqlstate"] if failed_stmt else None,
             "release_call_us": rc, "release_ret_us": rr, "ended_by": how,
             "statements": len([s for s in a["stmts"] if s["name"] != "SCHEMA"]),
             "statements_100ms": len([s for s in a["stmts"] if s["name"] != "SCHEMA"
                                      and s["ret_us"] - s["call_us"] >= 100000]),
             "pauses": a["pauses"], "locks": a["locks"]}
        tx.append(t)
        seen = set()
        for lk in a["locks"]:
            key = (lk["relation"], lk["row"])
            if not lk["ok"] or key in seen:
                continue
            seen.add(key)
            holds.append({"tx": i, "path": a["path"], "pid": a["pid"], "relation": lk["relation"],
                          "row": lk["row"], "stmt_call_us": lk["call_us"], "acquired_us": lk["ret_us"],
                          "released_call_us": rc, "released_us": rr, "ended_by": how,
                          "hold_ms": round((rr - lk["ret_us"]) / 1000, 3)})
    by_row = collections.defaultdict(list)
    for h in holds:
        by_row[(h["relation"], h["row"])].append(h)

    # Waits: a locking statement that took 5 ms+ while another transaction
    # held its row; the time each holder covered.
    waits = []
    for t in tx:
        for lk in t["locks"]:
            dur = lk["ret_us"] - lk["call_us"]
            if dur < WAIT_MIN_US:
                continue
            cover = collections.Counter()
            blockers = []
            for h in by_row[(lk["relation"], lk["row"])]:
                if h["tx"] == t["tx"]:
                    continue
                lo, hi = max(lk["call_us"], h["acquired_us"]), min(lk["ret_us"], h["released_us"])
                if hi > lo:
                    cover[h["tx"]] += hi - lo
                    blockers.append(h["tx"])
            if not cover:
                continue
            if lk["ok"]:
                outcome = "granted"
            elif t["sqlstate"] == "40P01":
                outcome = "deadlock"
            elif t["sqlstate"] == "40001":
                outcome = "serialization_failure"
            else:
                outcome = "stale_after_wait" if t["outcome"] == "stale" else "failed"
            waits.append({"tx": t["tx"], "path": t["path"], "pid": t["pid"], "relation": lk["relation"],
                          "row": lk["row"], "start_us": lk["call_us"], "end_us": lk["ret_us"],
                          "wait_ms": round(dur / 1000, 3), "outcome": outcome,
                          "blocked_by": [{"tx": b, "pid": tx[b]["pid"], "path": tx[b]["path"],
                                          "covered_ms": round(cover[b] / 1000, 3)} for b in blockers]})

    hot = collections.defaultdict(lambda: {"waits": 0, "wait_ms": 0.0, "waits_1s": 0, "max_wait_ms": 0.0})
    for w in waits:
        r = hot["%s id=%d" % (w["relation"], w["row"])]
        r["waits"] += 1
        r["wait_ms"] += w["wait_ms"]
        r["waits_1s"] += w["wait_ms"] >= 1000
        r["max_wait_ms"] = max(r["max_wait_ms"], w["wait_ms"])
    hot_rows = []
    for k, r in sorted(hot.items(), key=lambda kv: -kv[1]["wait_ms"]):
        rel, row = k.split(" id=")
        hs = by_row[(rel, int(row))]
        hot_rows.append({"relation": rel, "row": int(row), "row_key": "id=" + row, "waits": r["waits"],
                         "wait_ms": round(r["wait_ms"], 1), "waits_1s": r["waits_1s"],
                         "max_wait_ms": r["max_wait_ms"], "holds": len(hs),
                         "held_ms": round(sum(h["hold_ms"] for h in hs), 1)})
    hot_keys = {(r["relation"], r["row"]) for r in hot_rows}

    occ = collections.Counter()
    occ_holds = collections.Counter()
    for h in holds:
        if (h["relation"], h["row"]) in hot_keys:
            occ[h["path"]] += h["hold_ms"]
            occ_holds[h["path"]] += 1
    total_occ = sum(occ.values()) or 1
    blk = collections.Counter()
    for w in waits:
        for b in w["blocked_by"]:
            blk[b["path"]] += b["covered_ms"]
    rankings = {
        "occupancy": [{"path": p, "hold_ms": round(v, 1), "holds": occ_holds[p],
                       "share_pct": round(100 * v / total_occ, 1)} for p, v in occ.most_common()],
        "blocking": [{"path": p, "waiting_caused_ms": round(v, 1)} for p, v in blk.most_common()],
        "note": "occupancy: every hold (locking statement's return to COMMIT/ROLLBACK return) of "
                "a hot row (a row some locking statement waited 5 ms+ for); blocking: the waiting "
                "each path's holds covered",
    }

    deadlocks = []
    errors = []
    by_req = collections.defaultdict(list)
    for t in tx:
        by_req[(t["path"], t["request"])].append(t)
    for t in tx:
        if not t["sqlstate"]:
            continue
        s = next(s for s in attempts[t["tx"]]["stmts"] if s["sqlstate"])
        nxt = [u for u in by_req[(t["path"], t["request"])] if u["attempt"] == t["attempt"] + 1]
        e = {"tx": t["tx"], "path": t["path"], "pid": t["pid"], "sqlstate": t["sqlstate"],
             "time_us": s["ret_us"], "statement": s["sql"], "retried": bool(nxt),
             "retry_pid": nxt[0]["pid"] if nxt else None,
             "retry_same_pid": bool(nxt) and nxt[0]["pid"] == t["pid"],
             "retry_outcome": nxt[0]["outcome"] if nxt else None,
             "connection_reset": t["ended_by"] == "connection reset"}
        errors.append(e)
        if t["sqlstate"] == "40P01":
            want = next(lk for lk in t["locks"] if not lk["ok"])
            held = [(lk["relation"], lk["row"]) for lk in t["locks"] if lk["ok"]]
            other = [h for h in by_row[(want["relation"], want["row"])] if h["tx"] != t["tx"]
                     and h["acquired_us"] <= s["ret_us"] <= h["released_us"] + 2000]
            deadlocks.append({"victim_tx": t["tx"], "victim_pid": t["pid"], "victim_path": t["path"],
                              "time_us": s["ret_us"], "victim_held": ["%s id=%d" % x for x in held],
                              "victim_wanted": "%s id=%d" % (want["relation"], want["row"]),
                              "other_pids": [h["pid"] for h in other],
                              "other_paths": sorted({h["path"] for h in other}),
                              "retried": e["retried"], "retry_outcome": e["retry_outcome"]})
    stale = [t for t in tx if t["outcome"] == "stale"]
    paths = {}
    for p in sorted({t["path"] for t in tx}):
        ts = [t for t in tx if t["path"] == p]
        idle_w = 0.0
        for t in ts:
            for ps in t["pauses"]:
                for w in waits:
                    for b in w["blocked_by"]:
                        if b["tx"] == t["tx"]:
                            lo, hi = max(ps["start_us"], w["start_us"]), min(ps["end_us"], w["end_us"])
                            idle_w += max(0, hi - lo) / 1000
        paths[p] = {"attempts": len(ts), "requests": len({t["request"] for t in ts}),
                    "committed": sum(t["outcome"] == "commit" for t in ts),
                    "stale_object_errors": sum(t["outcome"] == "stale" for t in ts),
                    "errors": collections.Counter(t["sqlstate"] for t in ts if t["sqlstate"]),
                    "statements": sum(t["statements"] for t in ts),
                    "statements_logged_100ms": sum(t["statements_100ms"] for t in ts),
                    "hot_row_hold_ms": round(occ[p], 1),
                    "idle_while_waited_for_ms": round(idle_w, 1),
                    "pause_kinds": sorted({ps["kind"] for t in ts for ps in t["pauses"]})}
    nstmt = sum(t["statements"] for t in tx)
    n100 = sum(t["statements_100ms"] for t in tx)
    truth = {
        "note": "Recorded by samples/blind-rb/app/shop.rb on the client's clock (CLOCK_REALTIME, "
                "microseconds); server time = client time + clock_offset_us. A hold runs from its "
                "locking statement's return to its transaction's " + HOT_RELEASE + ". ActiveRecord "
                "6.1 sends no ROLLBACK after a deadlock or serialization failure: it resets the "
                "connection (the old backend exits, a new pid runs the retry).",
        "clock_offset_us": offset["offset_us"], "clock_probe_rtt_us": offset["rtt_us"],
        "probes": probes,
        "counts": {"attempts": len(tx), "requests": len({(t["path"], t["request"]) for t in tx}),
                   "statements": nstmt, "statements_100ms": n100,
                   "pids": len({t["pid"] for t in tx}), "waits": len(waits),
                   "waits_1s": sum(w["wait_ms"] >= 1000 for w in waits),
                   "wait_ms": round(sum(w["wait_ms"] for w in waits), 1),
                   "deadlocks": len(deadlocks),
                   "serialization_failures": sum(e["sqlstate"] == "40001" for e in errors),
                   "stale_object_errors": len(stale), "requests_failed": len(failed)},
        "paths": paths, "hot_rows": hot_rows, "rankings": rankings,
        "deadlocks": deadlocks, "errors": errors, "failed_requests": failed,
        "findings": {
            "deserved": {
                "deadlocks": bool(deadlocks),
                "inconsistent_lock_order": "transfer against itself on accounts (lock! in request order)",
                "retries_after_serialization_failure": "reprice (REPEATABLE READ, retried up to 3 attempts)",
            },
            "true_but_not_in_this_log": {
                "external_call_in_transaction": "reserve_stock holds warehouses with_lock during the "
                    "carrier's HTTP call: no traces, so no log can name the call",
                "idle_in_transaction_head": "reserve_stock's holder is idle (in the HTTP call) while "
                    "others wait; its own statements are all under 100 ms, so the log shows no "
                    "statement of the holder at all: right only if said as a guess",
                "hot_counter_row": "articles id=1 (counter cache + increment!) and order_totals id=1 "
                    "(the trigger) are counters bumped under contention, but their waits are short "
                    "and unlogged (below 100 ms and below deadlock_timeout)",
            },
            "not_deserved": ["lock_queue_behind_ddl", "external_call_in_transaction named from the log",
                             "hot_counter_row on warehouses, accounts or products (absolute SETs)",
                             "retries_after_serialization_failure naming another path than reprice"],
        },
        "what_a_dba_can_know": [
            "slow statements (100 ms+): mostly the waiters (FOR UPDATE on warehouses/accounts, "
            "the 40001 UPDATEs are not slow), with their parameters",
            "lock waits of 1 s+ (still waiting / acquired lines) with the holder's pid and the "
            "waited-for tuple; deadlocks with both processes' statements",
            "the errors: 40P01, 40001, and ActiveRecord's 25P02 DEALLOCATE errors of each "
            "connection reset",
        ],
        "what_a_dba_cannot_know": [
            "when a transaction began or ended (no BEGIN/COMMIT logged): every hold's length is "
            "unknown, at best a lower bound from a waiter's wait",
            "what the holder did while others waited (the HTTP call is invisible)",
            "waits under 1 s (most of them) and the statements under 100 ms (%d of %d)" % (nstmt - n100, nstmt),
            "the code paths by name: only SQL shapes; one application_name for every thread",
            "the retry after a 40001/40P01: it runs on a new backend pid (connection reset)",
            "the optimistic-lock (StaleObjectError) retries: no server error at all",
        ],
        "transactions": tx, "holds": holds, "waits": waits,
    }
    with open(dst, "w") as f:
        json.dump(truth, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
