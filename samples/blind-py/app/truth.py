#!/usr/bin/python3
"""Turn the app's per-transaction JSON lines into truth.json: the
transactions, every row-lock hold (taken = locking statement returned,
released = COMMIT/ROLLBACK returned), every wait (a locking statement that
took longer than WAIT_MIN_S) with the holders of its row meanwhile, the
deadlocks and 40001 retries, and per code path and per row totals.
All times are client clock (the server is on the same host), Unix seconds."""
import collections
import json
import sys

WAIT_MIN_S = 0.020          # a locking statement slower than this waited
DEADLOCK_TIMEOUT_S = 0.200  # waits at least this long are in the log


def union_len(intervals):
    """Length of the union of [a, b] intervals."""
    total, cur_a, cur_b = 0.0, None, None
    for a, b in sorted(intervals):
        if cur_b is None or a > cur_b:
            if cur_b is not None:
                total += cur_b - cur_a
            cur_a, cur_b = a, b
        else:
            cur_b = max(cur_b, b)
    if cur_b is not None:
        total += cur_b - cur_a
    return total


def main():
    """truth.py APP.jsonl (or an earlier truth.json) > truth.json"""
    with open(sys.argv[1]) as f:
        text = f.read()
    if text.startswith('{"about"') or text.startswith('{\n "about"'):
        txs = json.loads(text)["transactions"]      # an earlier truth.json
    else:
        txs = [json.loads(line) for line in text.splitlines()]
    txs.sort(key=lambda t: t["start"])
    for i, t in enumerate(txs):
        t["id"] = i
    holds = []
    for t in txs:
        for lk in t["locks"]:
            holds.append({"tx": t["id"], "path": t["path"], "pid": t["pid"],
                          "row": "%s %s" % (lk["table"], lk["key"]),
                          "taken": lk["taken"], "released": t["end"],
                          "outcome": t["outcome"]})
    by_row = collections.defaultdict(list)
    for h in holds:
        by_row[h["row"]].append(h)

    waits = []
    for t in txs:
        for si, st in enumerate(t["statements"]):
            if not st["locks"] or st["ret"] - st["call"] < WAIT_MIN_S:
                continue
            for table, key in st["locks"]:
                row = "%s %s" % (table, key)
                over = [h for h in by_row[row]
                        if h["tx"] != t["id"] and h["taken"] < st["ret"]
                        and h["released"] > st["call"]]
                if not over:
                    continue        # slow for another reason
                at_call = [h["tx"] for h in over if h["taken"] <= st["call"]]
                waits.append({
                    "waiter_tx": t["id"], "waiter_path": t["path"],
                    "waiter_pid": t["pid"], "row": row, "sql": st["sql"],
                    "call": st["call"], "ret": st["ret"],
                    "seconds": round(st["ret"] - st["call"], 4),
                    "logged": st["ret"] - st["call"] >= DEADLOCK_TIMEOUT_S,
                    "result": st["error"] or "acquired",
                    "holder_at_call": at_call,
                    "holders_during": [{"tx": h["tx"], "path": h["path"],
                                        "pid": h["pid"]} for h in over],
                })

    by_request = collections.defaultdict(list)
    for t in txs:
        by_request[t["request"]].append(t)

    def retry_of(t):
        """The next attempt of T's request (None: the request gave up)."""
        nxt = [x for x in by_request[t["request"]] if x["attempt"] == t["attempt"] + 1]
        if not nxt:
            return {"retried": False}
        return {"retried": True, "retry_tx": nxt[0]["id"], "retry_pid": nxt[0]["pid"],
                "retry_same_session": nxt[0]["pid"] == t["pid"],
                "retry_outcome": nxt[0]["outcome"]}

    deadlocks, retries = [], []
    for t in txs:
        if t["sqlstate"] == "40P01":
            w = [x for x in waits if x["waiter_tx"] == t["id"]]
            deadlocks.append({"victim_tx": t["id"], "path": t["path"],
                              "pid": t["pid"], "at": t["statements"][-1]["ret"],
                              "sql": t["statements"][-1]["sql"],
                              "waited_for": w[-1]["holders_during"] if w else [],
                              **retry_of(t)})
        if t["sqlstate"] == "40001":
            retries.append({"tx": t["id"], "path": t["path"], "pid": t["pid"],
                            "at": t["statements"][-1]["ret"],
                            "sql": t["statements"][-1]["sql"],
                            "attempt": t["attempt"], **retry_of(t)})

    hot = {w["row"] for w in waits}
    rows = {}
    for row, hs in sorted(by_row.items()):
        ws = [w for w in waits if w["row"] == row]
        rows[row] = {"holds": len(hs),
                     "occupied_s": round(union_len([(h["taken"], h["released"]) for h in hs]), 3),
                     "hold_s_sum": round(sum(h["released"] - h["taken"] for h in hs), 3),
                     "waits": len(ws), "logged_waits": sum(w["logged"] for w in ws),
                     "wait_s": round(sum(w["seconds"] for w in ws), 3),
                     "hot": row in hot}
    paths = {}
    for p in sorted({t["path"] for t in txs}):
        pt = [t for t in txs if t["path"] == p]
        ph = [h for h in holds if h["path"] == p and h["row"] in hot]
        caused = 0.0
        for w in waits:
            for tid in w["holder_at_call"]:
                if txs[tid]["path"] == p:
                    caused += w["seconds"] / len(w["holder_at_call"])
        paths[p] = {"transactions": len(pt),
                    "committed": sum(t["outcome"] == "commit" for t in pt),
                    "rolled_back": sum(t["outcome"] == "rollback" for t in pt),
                    "hot_row_holds": len(ph),
                    "hot_row_hold_s": round(sum(h["released"] - h["taken"] for h in ph), 3),
                    "max_hold_s": round(max((h["released"] - h["taken"] for h in ph), default=0), 3),
                    "waits_suffered": sum(w["waiter_path"] == p for w in waits),
                    "wait_s_suffered": round(sum(w["seconds"] for w in waits if w["waiter_path"] == p), 3),
                    "wait_s_caused_as_holder_at_call": round(caused, 3)}
    out = {"about": "client-side truth of samples/blind-py (see README.md); "
                    "times are Unix seconds, client clock = server clock",
           "wait_min_s": WAIT_MIN_S, "deadlock_timeout_s": DEADLOCK_TIMEOUT_S,
           "paths": paths, "rows": rows,
           "deadlocks": deadlocks, "serialization_failures": retries,
           "waits": waits, "holds": holds, "transactions": txs}
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
