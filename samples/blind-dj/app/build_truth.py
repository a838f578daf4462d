#!/usr/bin/env python3
"""samples/blind-dj: the app's records (run.py, one JSON line per
transaction attempt) -> truth.json: attempts, holds, waits, deadlocks,
errors and retries, hot rows, the rankings, the findings deserved and not,
and what the log can and cannot show.

  build_truth.py TRUTH.jsonl TRUTH.json

Times are the client's clock (UTC); `clock.offset_us` (server minus
client, measured) is 0 within the round trip: client and server share one
kernel clock (the server runs in a chroot on the same machine).
A row is locked when the statement meant to lock it returns (`start`, its
call `start_lo`) and freed when its transaction's COMMIT or ROLLBACK
returns (`end`). A wait is a locking statement whose row another pid held
while it ran: from its call to its return (an upper bound: it includes the
statement's own work, under 2 ms here).
"""
import collections
import datetime
import json
import sys

MS = 1000


def us(s):
    return int(datetime.datetime.fromisoformat(s).timestamp() * 1_000_000)


def iso(u):
    return datetime.datetime.fromtimestamp(u / 1e6, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def main():
    src, dst = sys.argv[1], sys.argv[2]
    lines = [json.loads(x) for x in open(src)]
    head, attempts = lines[0], lines[1:]
    attempts.sort(key=lambda a: us(a["start"]))
    holds, locking = [], []
    for i, a in enumerate(attempts):
        a["route"] = a["path"]
        a["id"] = i
        have = set()
        for s in a["stmts"]:
            for rel, key in s["rows"]:
                k = (rel, "id=%d" % key)
                locking.append((a, s, k))
                if "error" not in s and k not in have:
                    have.add(k)
                    holds.append({"pid": a["pid"], "path": a["path"], "route": a["path"], "attempt": i,
                                  "relation": k[0], "row_key": k[1], "start": iso(us(s["ret"])),
                                  "start_lo": iso(us(s["call"])), "end": iso(us(a["end"])),
                                  "hold_ms": (us(a["end"]) - us(s["ret"])) / MS, "outcome": a["outcome"]})
    by_row = collections.defaultdict(list)
    for h in holds:
        by_row[(h["relation"], h["row_key"])].append(h)
    waits = []
    for a, s, k in locking:
        c, r = us(s["call"]), us(s["ret"])
        bl = [h for h in by_row[k] if h["pid"] != a["pid"] and us(h["start"]) < r - MS and us(h["end"]) > c + MS
              and us(h["start"]) < c + (r - c) // 2 + MS]
        if not bl or r - c < 2 * MS:
            continue
        waits.append({"pid": a["pid"], "path": a["path"], "attempt": a["id"], "relation": k[0], "row_key": k[1],
                      "start": s["call"], "end": s["ret"], "waited_ms": (r - c) / MS,
                      "outcome": {"40P01": "deadlock", "40001": "serialization_failure"}.get(s.get("error"),
                                                                                             "acquired"),
                      "holders": sorted({(h["pid"], h["path"]) for h in bl}),
                      "statement": s["sql"][:120]})
    for w in waits:
        w["holders"] = [{"pid": p, "path": q} for p, q in w["holders"]]
    errors, deadlocks = [], []
    for a in attempts:
        if a["outcome"] != "error":
            continue
        s = next((s for s in a["stmts"] if s.get("error")), None)
        e = {"pid": a["pid"], "path": a["path"], "sqlstate": a["sqlstate"], "time": s["ret"] if s else a["end"],
             "statement": s["sql"][:120] if s else None, "retried": bool(a.get("retried")), "try": a["try"]}
        errors.append(e)
        if a["sqlstate"] == "40P01":
            deadlocks.append({"victim_pid": a["pid"], "time": e["time"], "path": a["path"]})
    # retries: the next attempt of the same thread, its outcome
    for e in errors:
        nxt = next((b for b in attempts if b["pid"] == e["pid"] and b["path"] == e["path"]
                    and b["try"] == e["try"] + 1 and us(b["start"]) >= us(e["time"])), None)
        e["retry_outcome"] = nxt["outcome"] if (nxt and e["retried"]) else None
    # hot rows, rankings
    rows = collections.defaultdict(lambda: {"waits": 0, "total_wait_ms": 0.0, "max_wait_ms": 0.0,
                                            "waits_over_200ms": 0})
    for w in waits:
        x = rows[(w["relation"], w["row_key"])]
        x["waits"] += 1
        x["total_wait_ms"] += w["waited_ms"]
        x["max_wait_ms"] = max(x["max_wait_ms"], w["waited_ms"])
        x["waits_over_200ms"] += w["waited_ms"] >= 200
    hot = sorted(({"relation": k[0], "row_key": k[1], **{a: round(b, 3) if isinstance(b, float) else b
                                                         for a, b in v.items()},
                   "holds": len(by_row[k]), "occupied_ms": round(sum(h["hold_ms"] for h in by_row[k]), 3)}
                  for k, v in rows.items()), key=lambda x: -x["total_wait_ms"])
    hotset = {(h["relation"], h["row_key"]) for h in hot}
    occ = collections.Counter()
    for h in holds:
        if (h["relation"], h["row_key"]) in hotset:
            occ[h["path"]] += h["hold_ms"]
    blk = collections.Counter()
    for w in waits:
        for h in w["holders"]:
            blk[h["path"]] += w["waited_ms"] / len(w["holders"])
    tot = sum(occ.values()) or 1
    rankings = {
        "occupancy": [{"route": p, "hold_ms": round(v, 1), "share_pct": round(100 * v / tot, 1)}
                      for p, v in occ.most_common()],
        "blocking": [{"route": p, "waiter_ms_caused": round(v, 1)} for p, v in blk.most_common()],
        "note": "occupancy: time each path held a hot row (a row some wait was for); blocking: waiting it "
                "caused others, a wait split evenly between its holders"}
    paths = collections.Counter(a["path"] for a in attempts)
    truth = {
        "sample": "blind-dj", "clock": head["clock"],
        "app": {"django": head["django"], "psycopg2": head["psycopg2"], "workers": head["workers"],
                "duration_s": head["duration_s"], "application_name": head["application_name"]},
        "run": {"attempts": len(attempts), "by_path": dict(paths),
                "commits": sum(a["outcome"] == "commit" for a in attempts),
                "errors": len(errors), "waits": len(waits),
                "waits_over_200ms": sum(w["waited_ms"] >= 200 for w in waits),
                "wait_ms": round(sum(w["waited_ms"] for w in waits), 1),
                "pids": sorted({a["pid"] for a in attempts})},
        "findings": {
            "deserved": {
                "deadlocks": "transfer locks two accounts rows in request order",
                "inconsistent_lock_order": "transfer with itself, accounts",
                "retries_after_serialization_failure": "reprice (REPEATABLE READ) retries 40001, up to 3 tries",
                "hot_counter_row": "counters id=1 (post_save signal, F('n') + 1), order_totals id=1 (trigger), "
                                   "pages id=1 (F('hits') + 1), if waited for",
                "external_call_in_transaction": "reserve_stock (GET to the pricing stub with warehouses row held): "
                                                "NOT visible in this log (no spans); the right answer is "
                                                "idle in transaction at the head or nothing, never a named URL"},
            "not_deserved": ["lock_queue_behind_ddl (no DDL during the run)",
                             "commit_wait_head (fsync off)",
                             "hot_counter_row on warehouses, accounts or products",
                             "inconsistent_lock_order for a path other than transfer",
                             "external_call_in_transaction (no spans in the input)"]},
        "dba_can_know": [
            "every statement and its duration (log_statement = 'all', log_duration = on): BEGIN, COMMIT and "
            "ROLLBACK included, so hold times are exact to the logged ms",
            "waits of 200 ms and more (log_lock_waits, deadlock_timeout = 200ms), deadlocks and their DETAIL, "
            "40001 errors, all in Spanish",
            "which backend pid ran what (one application_name for all: paths only by transaction shape)"],
        "dba_cannot_know": [
            "the Python function (code path) of a transaction: no spans, no sqlcommenter, one application_name",
            "that reserve_stock's idle time with the row held is an HTTP call (only: idle in transaction)",
            "waits under 200 ms except as statement durations (they can be rebuilt from durations, not read)",
            "that a retry after 40001 is a retry rather than the thread's next request (same connection; "
            "same statement text)"],
        "attempts": attempts, "holds": holds, "waits": waits, "errors": errors, "deadlocks": deadlocks,
        "hot_rows": hot, "rankings": rankings,
    }
    for a in attempts:
        a.pop("id", None)
    json.dump(truth, open(dst, "w"), indent=1)
    print("build_truth: %d attempts, %d holds, %d waits (%d >= 200 ms), %d errors, %d deadlocks" % (
        len(attempts), len(holds), len(waits), truth["run"]["waits_over_200ms"], len(errors), len(deadlocks)),
        file=sys.stderr)


if __name__ == "__main__":
    main()
