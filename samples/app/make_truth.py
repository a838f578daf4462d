#!/usr/bin/python3
"""Turn the client-side record of a samples/app run (run.json, written by
app.js) into truth.json: requests, the waits PostgreSQL will log, and the
expected ranking and hold-time breakdowns, all computed from the client's
own intervals (never from the server log).

Usage: make_truth.py RUN.json TRUTH.json        (stdlib only)

Which waits PostgreSQL 15 logs, and whom it names, follows from the order in
which the transactions held the hot row (client-side: UPDATE returned ..
COMMIT returned) and when each UPDATE was sent:

- a waiter's wait is cut into one lock wait per holder it waited behind;
  each is logged (`still waiting for ...`) when it lasts longer than
  deadlock_timeout (100 ms);
- an UPDATE that arrives while holder H has the row and nobody else has
  arrived during H's hold takes the tuple lock and waits for H's
  transaction: ShareLock on transaction, DETAIL names H;
- later arrivals during H's hold queue for that tuple lock: ExclusiveLock on
  tuple, DETAIL names the first arrival (the "first waiter" convention);
- when H commits, every waiter re-reads the row (EvalPlanQual); one of them
  gets it (the next holder, known client-side) and the rest wait for the
  new holder's transaction directly (ShareLock, DETAIL names the new
  holder), without the tuple lock.
A wait within MARGIN of deadlock_timeout is marked "marginal": it may or
may not be logged.
"""

import datetime
import json
import sys

DEADLOCK_TIMEOUT_US = 100_000
MARGIN_US = 15_000


# The application's clock ran this far ahead of the server's on purpose
# (run.json's clock_skew_us, LOCKSPAN_APP_CLOCK_SKEW_MS): the client-side
# record is on the application's clock, and every time in truth.json is
# written on the server's (the record minus the skew), as the log shows it.
SKEW_US = 0


def iso(us):
    us -= SKEW_US
    return datetime.datetime.fromtimestamp(us // 1_000_000, tz=datetime.timezone.utc) \
        .strftime("%Y-%m-%dT%H:%M:%S") + ".%06dZ" % (us % 1_000_000)


def sec(us):
    return round(us / 1e6, 6)


def p95(values):
    """Nearest-rank 95th percentile."""
    v = sorted(values)
    if not v:
        return 0
    k = max(1, -(-95 * len(v) // 100))
    return v[k - 1]


def main():
    global SKEW_US
    run = json.load(open(sys.argv[1]))
    SKEW_US = run.get("clock_skew_us", 0)
    reqs = run["requests"]
    txs = []
    for r in reqs:
        sql = [s for s in r["spans"] if s.get("kind") == "sql"]
        upd = next(s for s in sql if s["sql"].startswith("UPDATE inventory"))
        commit = next(s for s in sql if s["sql"].startswith("COMMIT"))
        begin = next(s for s in sql if s["sql"].startswith("BEGIN"))
        txs.append({"r": r, "q": upd["start"], "a": upd["end"], "rel": commit["end"],
                    "begin": begin, "upd": upd, "commit": commit, "sql": sql})
    # Holders in the order they got the row.
    order = sorted(txs, key=lambda t: t["a"])
    for i, t in enumerate(order):
        t["order"] = i
        if i and t["a"] < order[i - 1]["rel"] - 20000:
            raise SystemExit("make_truth: holds overlap: requests %d and %d"
                             % (order[i - 1]["r"]["seq"], t["r"]["seq"]))

    # Fresh arrivals per holder phase: phase h spans (rel[h-1], rel[h]].
    def phase_of(t_us):
        for h in order:
            if t_us < h["rel"]:
                return h
        return None

    first_fresh = {}   # holder order -> first fresh arrival (waiting) in its phase
    for t in sorted(txs, key=lambda t: t["q"]):
        h = phase_of(t["q"])
        if h is None or h is t or h["order"] > t["order"]:
            continue
        if t["a"] - t["q"] < 1000 and h["a"] > t["q"]:
            continue
        first_fresh.setdefault(h["order"], []).append(t)

    waits = []
    for t in txs:
        for h in order[:t["order"]]:
            start = max(t["q"], h["a"])
            end = min(t["a"], h["rel"])
            if end <= start or h["rel"] <= t["q"]:
                continue
            fresh = t["q"] > (order[h["order"] - 1]["rel"] if h["order"] else 0)
            arrivals = first_fresh.get(h["order"], [])
            if fresh and arrivals and arrivals[0] is not t:
                mode, direct = "ExclusiveLock", arrivals[0]
                lock = "tuple"
                close = abs(arrivals[0]["q"] - t["q"]) < 2000
            else:
                mode, direct, lock, close = "ShareLock", h, "transaction", False
            dur = end - start
            if dur <= DEADLOCK_TIMEOUT_US - MARGIN_US:
                continue
            w = {"waiter_pid": t["r"]["pid"], "waiter_request": t["r"]["seq"],
                 "waiter_function": t["r"]["function"],
                 "direct_blocker_pid": direct["r"]["pid"],
                 "direct_blocker_request": direct["r"]["seq"],
                 "root_blocker_pid": h["r"]["pid"], "root_blocker_request": h["r"]["seq"],
                 "root_blocker_function": h["r"]["function"],
                 "relation": "inventory", "row_id": 1, "mode_expected": mode,
                 "lock": lock, "wait_start": iso(start), "wait_end": iso(end),
                 "duration_s": sec(dur), "outcome": "acquired",
                 "marginal": dur < DEADLOCK_TIMEOUT_US + MARGIN_US or close}
            if close:
                w["direct_blocker_alternatives"] = [x["r"]["pid"] for x in arrivals[:2]]
            waits.append(w)
    waits.sort(key=lambda w: w["wait_start"])

    # Per-transaction facts.
    requests = []
    by_seq = {}
    for t in sorted(txs, key=lambda t: t["r"]["seq"]):
        r = t["r"]
        hold = t["rel"] - t["a"]
        named = {}
        inside = 0
        sql_in = 0
        for s in r["spans"]:
            lo, hi = max(s["start"], t["a"]), min(s["end"], t["rel"])
            if hi <= lo:
                continue
            if s.get("kind") == "sql":
                if s is t["commit"]:
                    continue
                sql_in += hi - lo
            elif s.get("kind") in ("http", "render"):
                named[s["name"]] = named.get(s["name"], 0) + (hi - lo)
            else:
                continue
            inside += hi - lo
        commit = t["rel"] - max(t["commit"]["start"], t["a"])
        idle = hold - inside - commit
        waited = t["a"] - t["q"]
        rec = {
            "seq": r["seq"], "worker": r.get("worker"), "function": r["function"],
            "code_function": r["code_function"], "code_namespace": r["code_namespace"],
            "code_filepath": r["code_filepath"], "code_lineno": r["code_lineno"],
            "route": r["route"], "method": r["method"], "trace_id": r["trace_id"],
            "server_span_id": r["server_span_id"], "function_span_id": r["function_span_id"],
            "pid": r["pid"], "sqlcommenter": r["sqlcommenter"],
            "db_convention": r["db_convention"], "pid_attribute": r["pid_attribute"],
            "request": {"start": iso(r["request"]["start"]), "end": iso(r["request"]["end"])},
            "transaction": {"start": iso(t["begin"]["start"]), "end": iso(t["rel"])},
            "update": {"start": iso(t["q"]), "end": iso(t["a"]), "waited_s": sec(waited)},
            "hold": {"relation": "inventory", "row_id": 1, "start": iso(t["a"]),
                     "end": iso(t["rel"]), "duration_s": sec(hold), "order": t["order"] + 1},
            "breakdown": {"sql_s": sec(sql_in), "spans_s": {k: sec(v) for k, v in named.items()},
                          "idle_s": sec(idle), "commit_s": sec(commit)},
            "statements": [{"span_id": s["span_id"], "span_name": s["name"], "sql": s["sql"],
                            "start": iso(s["start"]), "end": iso(s["end"])} for s in t["sql"]],
            "other_spans": [{"span_id": s["span_id"], "name": s["name"], "start": iso(s["start"]),
                             "end": iso(s["end"])} for s in r["spans"] if s.get("kind") in ("http", "render")],
            "untraced": [{"name": s["name"], "start": iso(s["start"]), "end": iso(s["end"])}
                         for s in r["spans"] if s.get("kind") == "untraced"],
        }
        if r.get("payments_delay_ms") is not None:
            rec["payments_delay_ms"] = r["payments_delay_ms"]
        requests.append(rec)
        by_seq[r["seq"]] = (t, rec)

    # Ranking by code path, from the intervals above.
    paths = {}
    for t in txs:
        r = t["r"]
        p = paths.setdefault(r["function"], {"function": r["function"], "route": r["route"],
                                             "transactions": 0, "holds": [], "episodes": 0,
                                             "logged_episodes": 0, "waiter_us": 0,
                                             "waits_suffered": 0, "wait_suffered_us": 0,
                                             "logged_waits_suffered": 0})
        p["transactions"] += 1
        p["holds"].append(t["rel"] - t["a"])
        caused = 0
        for o in txs:
            if o is t:
                continue
            ov = min(o["a"], t["rel"]) - max(o["q"], t["a"])
            if ov > 0:
                caused += ov
        p["waiter_us"] += caused
        if caused > 0:
            p["episodes"] += 1
        if any(w["root_blocker_request"] == r["seq"] and not w["marginal"] for w in waits):
            p["logged_episodes"] += 1
        if t["a"] - t["q"] > 1000:
            p["waits_suffered"] += 1
            p["wait_suffered_us"] += t["a"] - t["q"]
        if any(w["waiter_request"] == r["seq"] and not w["marginal"] for w in waits):
            p["logged_waits_suffered"] += 1
    ranking = []
    for p in paths.values():
        h = p.pop("holds")
        ranking.append({
            "function": p["function"], "route": p["route"], "transactions": p["transactions"],
            "hold_total_s": sec(sum(h)), "hold_max_s": sec(max(h)), "hold_p95_s": sec(p95(h)),
            "hold_mean_s": sec(sum(h) // len(h)),
            "blocking_episodes": p["episodes"], "blocking_episodes_logged": p["logged_episodes"],
            "waiter_seconds_caused": sec(p["waiter_us"]),
            "waits_suffered": p["waits_suffered"], "wait_seconds_suffered": sec(p["wait_suffered_us"]),
            "logged_waits_suffered": p["logged_waits_suffered"]})
    ranking.sort(key=lambda x: -x["hold_total_s"])
    order_by = {
        "hold_total": [x["function"] for x in ranking],
        "blocking_episodes": [x["function"] for x in sorted(ranking, key=lambda x: -x["blocking_episodes"])],
        "waiter_seconds_caused": [x["function"] for x in sorted(ranking, key=lambda x: -x["waiter_seconds_caused"])],
    }
    top = ranking[0]["function"]
    bd = [{"seq": rec["seq"], "trace_id": rec["trace_id"], "pid": rec["pid"],
           "hold_s": rec["hold"]["duration_s"], **rec["breakdown"]}
          for rec in requests if rec["function"] == top]

    truth = {
        "set": "app",
        "prefix": sys.argv[3] if len(sys.argv) > 3 else "%m [%p] %q%u@%d/%a %c %l %v %x %e ",
        "log_statement": sys.argv[4] if len(sys.argv) > 4 else "none",
        "service": run["service"],
        "application_name": "shop",
        "pg_driver": run["pg_driver"],
        "deadlock_timeout_ms": DEADLOCK_TIMEOUT_US // 1000,
        "app_clock_skew_us": SKEW_US,
        "hot_row": {"relation": "inventory", "row_id": 1},
        "trace_files": ["traces.otlp.jsonl", "traces.otlp.jsonl.gz", "traces.zipkin.json",
                        "traces.jaeger.json"],
        "code_paths": sorted({(r["function"], r["route"], r["method"], r["sqlcommenter"],
                               r["db_convention"], r["pid_attribute"]) for r in requests}),
        "sessions": [{"pid": run["setup_pid"], "application_name": "shop-setup", "role": "setup"}]
                    + [{"pid": p["pid"], "application_name": "shop", "role": "pool",
                        "identified": p["identified"]} for p in run["pool_pids"]],
        "requests": requests,
        "waits": waits,
        "ranking": ranking,
        "ranking_order": order_by,
        "top_path": top,
        "top_path_breakdowns": bd,
    }
    truth["code_paths"] = [dict(zip(("function", "route", "method", "sqlcommenter",
                                     "db_convention", "pid_attribute"), c))
                           for c in truth["code_paths"]]
    with open(sys.argv[2], "w") as f:
        json.dump(truth, f, indent=1)
        f.write("\n")
    n = {}
    for r in requests:
        n[r["function"]] = n.get(r["function"], 0) + 1
    print("make_truth: %d requests %s, %d waits (%d marginal), top path %s"
          % (len(requests), n, len(waits), sum(w["marginal"] for w in waits), top), file=sys.stderr)


if __name__ == "__main__":
    main()
