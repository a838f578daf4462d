#!/usr/bin/env python3
"""Build samples/blind-zk/truth.json from the app's records (app.js writes
one JSON object a line: the clock probes, then one per transaction
attempt). Everything here is the client's view: what the code did and when
(the app's clock, microseconds), put on the server's clock by the offset
the min-RTT probes measured.

  build_truth.py TRUTH_JSONL TRUTH_JSON
"""
import collections
import datetime
import json
import sys

WAIT_MIN_US = 5000          # a locking statement that took 5 ms+ while another held its row
HOT_PATHS = {"reserve_stock", "transfer", "place_order", "hit_page", "reprice"}


def iso(us):
    d = datetime.datetime.fromtimestamp(us // 1_000_000, tz=datetime.timezone.utc)
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + "%06dZ" % (us % 1_000_000)


def ms(us):
    return round(us / 1000.0, 3)


def clock(probes):
    best = {}
    for p in probes:
        rtt = p["t1"] - p["t0"]
        off = p["server_us"] - (p["t0"] + p["t1"]) // 2
        if p["label"] not in best or rtt < best[p["label"]][0]:
            best[p["label"]] = (rtt, off)
    rtt, off = min(best.values())
    return {"offset_us": off, "rtt_us": rtt, "probes": len(probes),
            "by_label": {k: {"rtt_us": v[0], "offset_us": v[1]} for k, v in best.items()},
            "meaning": "database (clock_timestamp()) minus application clock, from the "
                       "probe of least round trip; one host, so it is the probes' error (+- rtt/2)"}


def main():
    src, dst = sys.argv[1], sys.argv[2]
    probes, attempts = [], []
    for line in open(src):
        o = json.loads(line)
        if o["kind"] == "probes":
            probes = o["probes"]
        else:
            attempts.append(o)
    ck = clock(probes)
    off = ck["offset_us"]
    srv = lambda us: iso(us + off)                       # noqa: E731

    attempts.sort(key=lambda a: a["start"])
    by_req = collections.defaultdict(list)
    for i, a in enumerate(attempts):
        a["id"] = i
        by_req[a["req"]].append(a)
    for req, atts in by_req.items():
        atts.sort(key=lambda a: a["attempt"])
        for a, nxt in zip(atts, atts[1:] + [None]):
            a["retry"] = ({"attempt": nxt["attempt"], "pid": nxt["pid"], "outcome": nxt["outcome"],
                           "start": srv(nxt["start"]), "sqlstate": nxt.get("sqlstate")}
                          if nxt else None)

    # Holds: per attempt and row, from the return of the first statement
    # that locked it (granted at the latest then; no earlier than its call)
    # to the end of the transaction (COMMIT/ROLLBACK returned) or, when a
    # statement failed (40P01, 40001), to that error: PostgreSQL releases the
    # aborted transaction's locks at the error.
    holds = []
    for a in attempts:
        end = a["error_at"] if a.get("error_at") else a["end"]
        seen = {}
        for s in a["stmts"]:
            if "rel" not in s or s.get("sqlstate"):
                continue
            k = (s["rel"], int(s["key"]))
            if k not in seen:
                seen[k] = {"attempt": a["id"], "req": a["req"], "route": a["route"], "pid": a["pid"],
                           "trace_id": a["trace_id"], "relation": k[0], "key": k[1],
                           "row_key": "id=%d" % k[1], "mode": s["mode"], "statement": s["what"],
                           "start_lo_us": s["call"], "start_us": s["ret"], "end_us": end,
                           "end_by": ("error " + a["sqlstate"]) if a.get("error_at")
                           else ("COMMIT returned" if a["outcome"] == "commit" else "ROLLBACK returned")}
            elif s["mode"] == "FOR UPDATE" or seen[k]["mode"] != "FOR UPDATE":
                pass
        for h in seen.values():
            h["hold_ms"] = ms(h["end_us"] - h["start_us"])
            holds.append(h)
    by_row = collections.defaultdict(list)
    for h in holds:
        by_row[(h["relation"], h["key"])].append(h)

    # Waits: a locking statement (or the failed one) that took 5 ms+ while
    # another attempt held its row. Each holder's share: the overlap of its
    # hold with the wait.
    waits = []
    for a in attempts:
        for s in a["stmts"]:
            if "rel" not in s or s["ret"] - s["call"] < WAIT_MIN_US:
                continue
            k = (s["rel"], int(s["key"]))
            others = []
            for h in by_row[k]:
                if h["attempt"] == a["id"]:
                    continue
                ov = min(h["end_us"], s["ret"]) - max(h["start_us"], s["call"])
                if ov > 0:
                    others.append((h, ov))
            if not others:
                continue
            others.sort(key=lambda x: x[0]["start_us"])
            waits.append({
                "attempt": a["id"], "req": a["req"], "route": a["route"], "pid": a["pid"],
                "trace_id": a["trace_id"], "relation": k[0], "key": k[1], "row_key": "id=%d" % k[1],
                "statement": s["what"], "start_us": s["call"], "end_us": s["ret"],
                "waited_ms": ms(s["ret"] - s["call"]),
                "outcome": s.get("sqlstate") or "acquired",
                "holders": [{"pid": h["pid"], "route": h["route"], "req": h["req"],
                             "overlap_ms": ms(ov)} for h, ov in others],
                "holder_at_start": next(({"pid": h["pid"], "route": h["route"]} for h, ov in others
                                         if h["start_us"] <= s["call"] < h["end_us"]), None),
            })

    hot = []
    wrow = collections.defaultdict(list)
    for w in waits:
        wrow[(w["relation"], w["key"])].append(w)
    for k, ws in wrow.items():
        hs = by_row[k]
        hot.append({"relation": k[0], "key": k[1], "row_key": "id=%d" % k[1], "waits": len(ws),
                    "waits_1s": sum(1 for w in ws if w["waited_ms"] >= 1000),
                    "total_wait_ms": ms(sum(w["end_us"] - w["start_us"] for w in ws)),
                    "max_wait_ms": max(w["waited_ms"] for w in ws),
                    "holds": len(hs), "occupied_ms": ms(sum(h["end_us"] - h["start_us"] for h in hs)),
                    "routes": sorted({h["route"] for h in hs})})
    hot.sort(key=lambda r: -r["total_wait_ms"])
    hot_keys = {(r["relation"], r["key"]) for r in hot}

    occ = collections.Counter()
    occ_n = collections.Counter()
    for h in holds:
        if (h["relation"], h["key"]) in hot_keys:
            occ[h["route"]] += h["end_us"] - h["start_us"]
            occ_n[h["route"]] += 1
    tot = sum(occ.values()) or 1
    occupancy = [{"route": r, "hold_ms": ms(v), "share_pct": round(100.0 * v / tot, 1),
                  "holds": occ_n[r]} for r, v in occ.most_common()]
    blk = collections.Counter()
    blk_n = collections.Counter()
    for w in waits:
        for h in w["holders"]:
            blk[h["route"]] += h["overlap_ms"]
            blk_n[h["route"]] += 1
    blocking = [{"route": r, "waiter_ms": round(v, 3), "waits": blk_n[r]} for r, v in blk.most_common()]

    deadlocks, errors = [], []
    for a in attempts:
        st = a.get("sqlstate")
        if not st:
            continue
        fs = next((s for s in a["stmts"] if s.get("sqlstate")), None)
        e = {"time": srv(a["error_at"]) if a.get("error_at") else srv(a["end"]), "pid": a["pid"],
             "route": a["route"], "req": a["req"], "attempt": a["attempt"], "sqlstate": st,
             "statement": fs["what"] if fs else None,
             "relation": fs.get("rel") if fs else None,
             "key": int(fs["key"]) if fs and "key" in fs else None,
             "retried": bool(a.get("retried")), "retry": a["retry"], "trace_id": a["trace_id"]}
        errors.append(e)
        if st == "40P01":
            deadlocks.append(dict(e, victim_pid=a["pid"]))

    n40001 = [e for e in errors if e["sqlstate"] == "40001"]
    waits_1s = [w for w in waits if w["waited_ms"] >= 1000]
    routes = collections.Counter(a["route"] for a in attempts)
    reqs = {a["req"] for a in attempts}
    findings = {
        "deserved": [
            {"rule": "deadlocks", "why": "%d deadlocks (transfer locks two accounts in request order)" % len(deadlocks)},
            {"rule": "inconsistent_lock_order", "code_path": "transfer",
             "why": "transfer locks accounts a then b in request order: it deadlocks with itself"},
            {"rule": "retries_after_serialization_failure", "code_path": "reprice",
             "why": "%d x 40001 on reprice's UPDATE products, %d retried" %
                    (len(n40001), sum(1 for e in n40001 if e["retried"]))},
            {"rule": "external_call_in_transaction", "code_path": "reserve_stock",
             "why": "reserve_stock holds warehouses id=%s FOR UPDATE across GET /quote (200-500 ms); "
                    "the Zipkin trace has the HTTP client span inside the transaction's spans" % "1"},
        ],
        "allowed": [
            {"rule": "hot_counter_row", "relation": "counters|order_totals",
             "why": "true but minor: hit_page's Counter.increment() (SET hits = hits + 1, counters id=1 and 4) and "
                    "place_order's trigger on order_totals id=1 are counters; their waits: %s" %
                    ", ".join("%s %s %d waits %.0f ms" % (r["relation"], r["row_key"], r["waits"], r["total_wait_ms"])
                              for r in hot if r["relation"] in ("counters", "order_totals"))},
            {"rule": "idle_in_transaction_head|serial_capacity|hidden_waiting", "relation": "warehouses",
             "why": "reserve_stock is idle in its transaction during GET /quote; warehouses id=1 is past its serial capacity"},
        ],
        "true_but_not_in_this_log": [
            {"rule": "external_call_in_transaction", "code_path": "reserve_stock",
             "why": "from the log alone: the HTTP call is in no log line (only with the Zipkin spans)"},
        ],
        "not_deserved": [
            {"rule": "lock_queue_behind_ddl", "why": "no DDL runs during the load"},
            {"rule": "hot_counter_row", "relation": "accounts|warehouses|products",
             "why": "accounts move balances between rows; warehouses and products are locked FOR UPDATE and updated with a value"},
            {"rule": "external_call_in_transaction", "code_path": "any other than reserve_stock",
             "why": "only reserve_stock calls out inside its transaction"},
            {"rule": "inconsistent_lock_order", "code_path": "any other than transfer",
             "why": "only transfer locks two rows of one relation in varying order"},
            {"rule": "commit_wait_head", "why": "synchronous_commit = off: COMMITs are sub-millisecond"},
        ],
    }
    can = [
        "every INSERT/UPDATE (log_statement = 'mod': execute <unnamed> + parameters, or a simple statement) "
        "with its pid and millisecond time: the write half of every transaction",
        "lock waits of 1 s or more (still waiting / acquired, deadlock_timeout = 1s), with the holder's pid",
        "every deadlock (ERROR 40P01, DETAIL with each process's statement) and every 40001 (ERROR with the UPDATE)",
        "with the Zipkin spans: per request its route (url path), the SQL text of every statement including "
        "SELECT ... FOR UPDATE, START TRANSACTION and COMMIT (pg spans, app clock), and the GET /quote span",
    ]
    cannot = [
        "from the log alone: when a hold began (the SELECT ... FOR UPDATE that takes the row is not logged) or "
        "ended (no BEGIN/COMMIT): hold times are unknown, at most lower bounds from the first to the last logged write",
        "waits under 1 s (%d of %d waits of 5 ms+): not logged; no statement durations to rebuild them" %
        (len(waits) - len(waits_1s), len(waits)),
        "most waits of 1 s+ too: %d waits of 1 s+, yet a 'still waiting' line only where one single lock wait "
        "lasted deadlock_timeout (judge.py counts them: in the committed run only the deadlock victims'): a SELECT ... FOR UPDATE queued on a row its holders UPDATE waits once per row version, each "
        "wait shorter than deadlock_timeout (holds of 200-500 ms), so the 4.9 s queue on warehouses id=1 is never "
        "logged; only the spans of the locking SELECTs (seconds long) show it" % len(waits_1s),
        "which route a backend ran from the log alone (one application_name, a pool of 10 connections "
        "shared by all routes): only statement shapes",
        "from the spans: the backend pid (the pg instrumentation records none); a span links to a logged "
        "statement only by its text and time; the spans' clock is the app's (offset %+d us here, one host)" % off,
        "whether a deadlock victim or a 40001 was retried from the log alone when the retry runs on another "
        "pooled connection (the request's trace shows it: same trace id, next attempt)",
    ]
    truth = {
        "note": "client-side truth recorded by samples/blind-zk/app/app.js (Sequelize v6 + pg, one "
                "application_name shop-sequelize, pool max 10, 12 load clients); times *_us are the app's "
                "clock (epoch microseconds), ISO times are on the server's clock (app + clock.offset_us). "
                "A hold runs from the return of the statement that locked the row to the COMMIT/ROLLBACK "
                "return, or to the error that aborted the transaction; a wait is a locking statement that "
                "took 5 ms+ while another attempt held its row (waited_ms includes the statement's own work).",
        "clock": ck,
        "run": {"requests": len(reqs), "attempts": len(attempts), "routes": dict(routes),
                "pids": len({a["pid"] for a in attempts}),
                "statements": sum(len(a["stmts"]) for a in attempts),
                "start": srv(attempts[0]["start"]), "end": srv(max(a["end"] for a in attempts)),
                "waits": len(waits), "wait_ms": ms(sum(w["end_us"] - w["start_us"] for w in waits)),
                "waits_1s": len(waits_1s), "deadlocks": len(deadlocks),
                "serialization_failures": len(n40001),
                "gave_up": sum(1 for a in attempts if a.get("gave_up"))},
        "attempts": [{**{k: a.get(k) for k in ("id", "route", "req", "attempt", "pid", "trace_id",
                                               "outcome", "sqlstate", "retried", "gave_up")},
                      "start": srv(a["start"]), "end": srv(a["end"]),
                      "error_at": srv(a["error_at"]) if a.get("error_at") else None,
                      "stmts": [{"what": s["what"], "relation": s.get("rel"),
                                 "key": int(s["key"]) if "key" in s else None, "mode": s.get("mode"),
                                 "call": srv(s["call"]), "ret": srv(s["ret"]),
                                 "sqlstate": s.get("sqlstate")} for s in a["stmts"]],
                      "pauses": [{"what": p["what"], "start": srv(p["start"]), "end": srv(p["end"])}
                                 for p in a["pauses"]]} for a in attempts],
        "holds": [dict({k: v for k, v in h.items() if not k.endswith("_us")},
                       start=srv(h["start_us"]), start_lo=srv(h["start_lo_us"]), end=srv(h["end_us"]))
                  for h in holds],
        "waits": [dict({k: v for k, v in w.items() if not k.endswith("_us")},
                       start=srv(w["start_us"]), end=srv(w["end_us"])) for w in waits],
        "hot_rows": hot,
        "rankings": {"occupancy": occupancy, "blocking": blocking,
                     "meaning": "occupancy: hold time of the hot rows (rows with a wait) per route; "
                                "blocking: time others waited while the route held their row"},
        "deadlocks": deadlocks,
        "errors": errors,
        "findings": findings,
        "what_a_dba_can_know": can,
        "what_a_dba_cannot_know": cannot,
    }
    with open(dst, "w") as f:
        json.dump(truth, f, indent=None, separators=(",", ":"))
        f.write("\n")
    r = truth["run"]
    print("truth: %d requests, %d attempts, %d waits (%.1f s, %d of 1 s+), %d deadlocks, %d x 40001; "
          "occupancy %s; blocking %s" % (r["requests"], r["attempts"], r["waits"], r["wait_ms"] / 1000,
                                         r["waits_1s"], r["deadlocks"], r["serialization_failures"],
                                         [(o["route"], round(o["hold_ms"] / 1000, 1)) for o in occupancy],
                                         [(b["route"], round(b["waiter_ms"] / 1000, 1)) for b in blocking]),
          file=sys.stderr)


if __name__ == "__main__":
    main()
