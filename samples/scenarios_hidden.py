#!/usr/bin/env python3
"""Hidden lock waits (issue 11): an application of 12 concurrent workers
queueing on two hot rows, with the server's default deadlock_timeout = 1s,
so most waits are below it and never logged. Driven by samples/hidden.sh.

Each worker is one connection (application_name = its code path) running
"requests": one transaction each: BEGIN; a read; an insert; the UPDATE of
a hot row (accounts id=1 or counters id=1, tagged /*action='<path>'*/);
sometimes a simulated external call (a client-side sleep) while holding
it; COMMIT.

Truth, never from the server log:
- client side: every statement's start/end (time.time() around execute),
  each request's start/end, each hold of a hot row (the locking UPDATE
  returned -> COMMIT returned);
- a quiet sampler connection (startup options: nothing of it is logged)
  reading pg_stat_activity (wait_event_type, wait_event,
  pg_blocking_pids(pid), query_start, state) every ~5 ms, stamped with
  the server's clock_timestamp() (same host clock as the client).
A hot-row UPDATE waited when the sampler saw it waiting on a Lock, or
(a wait shorter than the sampling period) when it was sent while another
transaction held the row. Its wait = client duration - the median
uncontended duration of hot-row UPDATEs, never less than the sampled
span. PostgreSQL logs each lock wait of a statement (the tuple lock, then
the transaction lock, or the transactions that updated the row in turn)
once it passes deadlock_timeout: the wait is split into runs of one
sampled lock; a run >= deadlock_timeout is `logged_ms`, the rest of the
wait `hidden_ms` (never in the log).

Usage: scenarios_hidden.py --port P --truth FILE [--traces FILE]
       [--duration S] [--seed N]
"""

import argparse
import datetime
import json
import random
import statistics
import sys
import threading
import time

import psycopg2

QUIET = "-c log_statement=none -c log_min_duration_statement=-1"
DEADLOCK_TIMEOUT_MS = 1000.0
PERIOD = 0.005                      # sampler period target (s)

# code path -> (workers, hot row, think time range s, external call
# probability, call range s, slow call on every Nth request (from the
# second; 0 = never), slow call range s). The slow calls hold the row past
# deadlock_timeout: the few waits the log shows.
PATHS = {
    "checkout": (5, "accounts", (0.45, 1.1), 0.7, (0.02, 0.30), 0, None),
    "refund":   (2, "accounts", (0.6, 1.5), 0.0, None, 0, None),
    "settle":   (1, "accounts", (4.0, 7.0), 1.0, (0.05, 0.15), 3, (1.1, 1.3)),
    "signup":   (3, "counters", (0.25, 0.7), 1.0, (0.005, 0.06), 0, None),
    "audit":    (1, "counters", (1.5, 3.0), 1.0, (0.1, 0.4), 5, (1.1, 1.3)),
}
NAMESPACE = {"checkout": "shop.orders", "refund": "shop.orders",
             "settle": "shop.ledger", "signup": "shop.users", "audit": "shop.audit"}


def iso(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%S.%fZ")


def connect(args, app, quiet=False):
    kw = dict(host=args.host, port=args.port, user=args.user, dbname=args.dbname,
              application_name=app)
    if quiet:
        kw["options"] = QUIET
    c = psycopg2.connect(**kw)
    c.autocommit = True
    return c


def setup(args):
    c = connect(args, "hidden-setup")
    cur = c.cursor()
    cur.execute("CREATE TABLE accounts (id int PRIMARY KEY, balance numeric NOT NULL)")
    cur.execute("CREATE TABLE counters (id int PRIMARY KEY, n bigint NOT NULL)")
    cur.execute("CREATE TABLE orders (id bigserial PRIMARY KEY, path text, amount int,"
                " at timestamptz DEFAULT now())")
    cur.execute("CREATE TABLE users (id bigserial PRIMARY KEY, name text)")
    cur.execute("INSERT INTO accounts SELECT g, 1000 FROM generate_series(1, 20) g")
    cur.execute("INSERT INTO counters SELECT g, 0 FROM generate_series(1, 5) g")
    c.close()


class Sampler(threading.Thread):
    """pg_stat_activity every PERIOD s from a connection nothing logs."""

    def __init__(self, args, pids):
        super().__init__(daemon=True)
        self.conn = connect(args, "hidden-sampler", quiet=True)
        self.pids = list(pids)
        self.stop = threading.Event()
        self.samples = []         # (ts, pid, wait_event, [blocking pids])
        self.times = []

    def run(self):
        cur = self.conn.cursor()
        q = ("SELECT extract(epoch FROM clock_timestamp())::float8, pid, wait_event_type,"
             " wait_event, CASE WHEN wait_event_type = 'Lock' THEN pg_blocking_pids(pid) END,"
             " query_start, state FROM pg_stat_activity WHERE pid = ANY(%s)")
        nxt = time.time()
        while not self.stop.is_set():
            cur.execute(q, (self.pids,))
            rows = cur.fetchall()
            if rows:
                self.times.append(rows[0][0])
            for t, pid, wtype, wev, blk, _qs, _st in rows:
                if wtype == "Lock":
                    self.samples.append((t, pid, wev, list(blk or [])))
            nxt += PERIOD
            d = nxt - time.time()
            if d > 0:
                time.sleep(d)
            else:
                nxt = time.time()
        self.conn.close()


class Worker(threading.Thread):
    def __init__(self, args, path, n, t_end, seed, emit_traces):
        super().__init__(daemon=True)
        self.path, self.n, self.t_end = path, n, t_end
        self.rng = random.Random(seed)
        self.emit = emit_traces
        self.conn = connect(args, path)
        cur = self.conn.cursor()
        cur.execute("SELECT pid, to_hex(trunc(extract(epoch FROM backend_start))::int)"
                    " || '.' || to_hex(pid), backend_start FROM pg_stat_activity"
                    " WHERE pid = pg_backend_pid()")
        self.pid, self.session_id, bs = cur.fetchone()
        self.backend_start = bs.timestamp()
        self.requests = []
        self.spans = []
        self.error = None

    def sql(self, req, text, hot=None):
        cur = self.conn.cursor()
        t0 = time.time()
        cur.execute(text)
        t1 = time.time()
        st = {"sql": text, "start": t0, "end": t1}
        if hot:
            st["row"] = hot
        req["statements"].append(st)
        return st

    def one(self, k):
        (_, row, _, p_call, call, every, slow) = PATHS[self.path]
        rng = self.rng
        tag = f"/*action='{self.path}'*/"
        req = {"request_id": f"{self.path}-{self.n}-{k}", "session_id": self.session_id,
               "pid": self.pid, "code_path": self.path, "statements": [], "calls": []}
        req["start"] = time.time()
        self.sql(req, "BEGIN")
        if row == "accounts":
            other = rng.randint(2, 20)
            self.sql(req, f"SELECT balance FROM accounts WHERE id = {other} {tag}")
            amt = rng.randint(1, 50)
            self.sql(req, f"INSERT INTO orders (path, amount) VALUES ('{self.path}', {amt}) {tag}")
            sign = "+" if self.path == "refund" else "-"
            h = self.sql(req, f"UPDATE accounts SET balance = balance {sign} {amt}"
                              f" WHERE id = 1 {tag}", hot=("accounts", "id=1"))
        else:
            self.sql(req, f"INSERT INTO users (name) VALUES ('u{self.n}-{k}') {tag}")
            h = self.sql(req, f"UPDATE counters SET n = n + 1 WHERE id = 1 {tag}",
                         hot=("counters", "id=1"))
        dur = None
        if every and k % every == 1:
            dur = rng.uniform(*slow)
        elif call and rng.random() < p_call:
            dur = rng.uniform(*call)
        if dur:
            c0 = time.time()
            time.sleep(dur)
            req["calls"].append({"name": "HTTP POST payments-api /charge", "start": c0,
                                 "end": time.time()})
        c = self.sql(req, "COMMIT")
        req["end"] = time.time()
        req["hold"] = {"row": h["row"], "start": h["end"], "end": c["end"]}
        self.requests.append(req)

    def run(self):
        try:
            k = 0
            time.sleep(self.rng.uniform(0, 0.5))
            while time.time() < self.t_end:
                self.one(k)
                k += 1
                time.sleep(self.rng.uniform(*PATHS[self.path][2]))
        except Exception as e:    # recorded; main fails the run
            self.error = repr(e)
        finally:
            self.conn.close()


# --------------------------------------------------------------------------
# truth

def build_truth(args, workers, sampler):
    by_pid = {w.pid: w for w in workers}
    reqs = sorted((r for w in workers for r in w.requests), key=lambda r: r["start"])
    holds = {}
    for r in reqs:
        holds.setdefault(r["hold"]["row"], []).append(r)
    samples = {}
    for t, pid, wev, blk in sampler.samples:
        samples.setdefault(pid, []).append((t, wev, blk))
    times = sampler.times
    gaps = [b - a for a, b in zip(times, times[1:])]
    period_ms = statistics.mean(gaps) * 1000 if gaps else None
    p95_gap = sorted(gaps)[int(len(gaps) * 0.95)] * 1000 if gaps else None

    hot = [(r, s) for r in reqs for s in r["statements"] if "row" in s]
    for r, s in hot:
        s["samples"] = [x for x in samples.get(r["pid"], ())
                        if s["start"] - 0.001 <= x[0] <= s["end"] + 0.001]
        s["contended"] = any(o is not r and o["hold"]["start"] < s["start"] < o["hold"]["end"]
                             for o in holds[s["row"]])
    base = statistics.median([s["end"] - s["start"] for r, s in hot
                              if not s["samples"] and not s["contended"]] or [0.0005])

    statements = []
    per_row, per_path = {}, {}
    for r, s in hot:
        dur = s["end"] - s["start"]
        wait = 0.0
        if s["samples"]:
            span = s["samples"][-1][0] - s["samples"][0][0]
            wait = min(dur, max(span, dur - base))
            method = "sampled"
        elif s["contended"]:
            wait = max(0.0, dur - base)
            method = "client (shorter than the sampling period)"
        else:
            method = "none"
        ws, we = s["end"] - wait, s["end"]
        # whom it waited behind: the other holds of the row overlapping the wait
        behind = {}
        at_start = None
        for o in holds[s["row"]]:
            if o is r:
                continue
            lo, hi = max(ws, o["hold"]["start"]), min(we, o["hold"]["end"])
            if hi > lo:
                behind[o["code_path"]] = behind.get(o["code_path"], 0.0) + (hi - lo)
            if o["hold"]["start"] <= ws < o["hold"]["end"]:
                at_start = o
        blk = sorted({p for x in s["samples"] for p in x[2]})
        wait_ms = round(wait * 1000, 3)
        # PostgreSQL logs each lock wait (a tuple lock, then the transaction
        # lock; or one transaction, then the next that updated the row) on
        # its own once it passes deadlock_timeout: split the wait into runs of
        # one lock — one wait_event, and for a transactionid wait one set of
        # blocking pids (the awaited transaction's owner; a tuple wait's set
        # shrinks as waiters ahead leave) — cut halfway between samples.
        segs = []
        for x in s["samples"]:
            key = (x[1], tuple(x[2]) if x[1] == "transactionid" else None)
            if segs and segs[-1][3] == key:
                segs[-1][2] = x[0]
            else:
                segs.append([x[1], x[0], x[0], key])
        bounds = [ws] + [(a[2] + b[1]) / 2 for a, b in zip(segs, segs[1:])] + [we]
        seg_ms = [(bounds[i + 1] - bounds[i]) * 1000 for i in range(len(segs))]
        logged_ms = round(sum(m for m in seg_ms if m >= DEADLOCK_TIMEOUT_MS), 3)
        marginal = any(abs(m - DEADLOCK_TIMEOUT_MS) < 15 for m in seg_ms)
        rowname = f"{s['row'][0]} {s['row'][1]}"
        stmt = {
            "session_id": r["session_id"], "pid": r["pid"], "code_path": r["code_path"],
            "request_id": r["request_id"], "sql": s["sql"],
            "row": {"relation": s["row"][0], "row_key": s["row"][1]},
            "start": iso(s["start"]), "end": iso(s["end"]),
            "client_ms": round(dur * 1000, 3), "lock_wait_ms": wait_ms,
            "wait_method": method,
            "lock_samples": len(s["samples"]),
            "first_lock_sample": iso(s["samples"][0][0]) if s["samples"] else None,
            "last_lock_sample": iso(s["samples"][-1][0]) if s["samples"] else None,
            "wait_events": sorted({x[1] for x in s["samples"]}),
            "blocked_by_pids": blk,
            "blocked_by_session_ids": [by_pid[p].session_id for p in blk if p in by_pid],
            "blocked_by_code_paths": sorted({by_pid[p].path for p in blk if p in by_pid}),
            "behind_at_start": ({"request_id": at_start["request_id"],
                                 "session_id": at_start["session_id"],
                                 "code_path": at_start["code_path"]} if at_start else None),
            "behind_ms_by_code_path": {k: round(v * 1000, 3) for k, v in sorted(behind.items())},
            "lock_waits": [{"wait_event": g[0], "ms": round(m, 3)}
                           for g, m in zip(segs, seg_ms)],
            "logged_ms": logged_ms, "hidden_ms": round(wait_ms - logged_ms, 3),
            "marginal": marginal,
        }
        statements.append(stmt)
        r["_stmt"] = stmt
        for key, tbl in ((rowname, per_row), (r["code_path"], per_path)):
            t = tbl.setdefault(key, {"statements": 0, "waited": 0, "waited_over_20ms": 0,
                                     "hidden_ms": 0.0, "logged_ms": 0.0, "hidden_waits": 0,
                                     "logged_waits": 0})
            t["statements"] += 1
            if wait_ms > 0:
                t["waited"] += 1
            if wait_ms > 20:
                t["waited_over_20ms"] += 1
            t["logged_ms"] += logged_ms
            t["hidden_ms"] += wait_ms - logged_ms
            if logged_ms > 0:
                t["logged_waits"] += 1
            elif wait_ms > 0:
                t["hidden_waits"] += 1
            if marginal:
                t["marginal_statements"] = t.get("marginal_statements", 0) + 1
        # caused: the waiting each holder path caused, time-weighted
        for k, v in behind.items():
            t = per_path.setdefault(k, {"statements": 0, "waited": 0, "waited_over_20ms": 0,
                                        "hidden_ms": 0.0, "logged_ms": 0.0, "hidden_waits": 0,
                                        "logged_waits": 0})
            t["caused_ms"] = t.get("caused_ms", 0.0) + v * 1000

    requests = []
    for r in reqs:
        st = r["_stmt"]
        bm = st["behind_ms_by_code_path"]
        requests.append({
            "request_id": r["request_id"], "session_id": r["session_id"], "pid": r["pid"],
            "code_path": r["code_path"], "start": iso(r["start"]), "end": iso(r["end"]),
            "duration_ms": round((r["end"] - r["start"]) * 1000, 3),
            "lock_wait_ms": st["lock_wait_ms"], "logged_ms": st["logged_ms"],
            "hidden_ms": st["hidden_ms"], "row": st["row"],
            "waited_behind_code_path": max(bm, key=bm.get) if bm else None,
            "waited_behind_share": (round(max(bm.values()) / sum(bm.values()), 3)
                                    if bm else None),
            "statements": len(r["statements"]),
            "external_call_ms": round(sum(c["end"] - c["start"] for c in r["calls"]) * 1000, 3),
            "hold": {"start": iso(r["hold"]["start"]), "end": iso(r["hold"]["end"])},
        })
    for tbl in (per_row, per_path):
        for t in tbl.values():
            for k in list(t):
                if isinstance(t[k], float):
                    t[k] = round(t[k], 3)
    waits = [s["lock_wait_ms"] for s in statements if s["lock_wait_ms"] > 0]
    return {
        "set": args.set_name, "prefix": args.prefix,
        "log": args.log_mode, "deadlock_timeout_ms": DEADLOCK_TIMEOUT_MS,
        "hot_rows": [{"relation": "accounts", "row_key": "id=1"},
                     {"relation": "counters", "row_key": "id=1"}],
        "code_paths": {p: {"workers": v[0], "row": v[1], "application_name": p,
                           "sqlcommenter_action": p, "code_function": p,
                           "code_namespace": NAMESPACE[p]} for p, v in PATHS.items()},
        "sampling": {"target_period_ms": PERIOD * 1000, "samples": len(times),
                     "mean_period_ms": round(period_ms, 3) if period_ms else None,
                     "p95_period_ms": round(p95_gap, 3) if p95_gap else None,
                     "uncontended_update_ms": round(base * 1000, 3)},
        "wait_distribution_ms": {
            "waits": len(waits),
            "under_5": sum(w < 5 for w in waits),
            "5_to_500": sum(5 <= w < 500 for w in waits),
            "500_to_1000": sum(500 <= w < 1000 for w in waits),
            "over_1000": sum(w >= 1000 for w in waits)},
        "sessions": [{"session_id": w.session_id, "pid": w.pid, "code_path": w.path,
                      "application_name": w.path, "backend_start": iso(w.backend_start)}
                     for w in workers],
        "totals": {"per_row": per_row, "per_code_path": per_path},
        "requests": requests,
        "statements": statements,
    }


# --------------------------------------------------------------------------
# traces (OTLP/JSON Lines, one TracesData per request)

def attr(k, v):
    if isinstance(v, int):
        return {"key": k, "value": {"intValue": str(v)}}
    return {"key": k, "value": {"stringValue": v}}


def traces(workers, path, rng):
    with open(path, "w") as f:
        for w in workers:
            for r in w.requests:
                tid = "%032x" % rng.getrandbits(128)
                root = "%016x" % rng.getrandbits(64)
                ns = lambda t: str(int(round(t * 1e6)) * 1000)
                spans = [{"traceId": tid, "spanId": root, "name": f"POST /{r['code_path']}",
                          "kind": 2, "startTimeUnixNano": ns(r["start"]),
                          "endTimeUnixNano": ns(r["end"]),
                          "attributes": [attr("http.route", "/" + r["code_path"]),
                                         attr("code.function", r["code_path"]),
                                         attr("code.namespace", NAMESPACE[r["code_path"]])]}]
                for s in r["statements"]:
                    spans.append({"traceId": tid, "spanId": "%016x" % rng.getrandbits(64),
                                  "parentSpanId": root, "name": s["sql"].split()[0],
                                  "kind": 3, "startTimeUnixNano": ns(s["start"]),
                                  "endTimeUnixNano": ns(s["end"]),
                                  "attributes": [attr("db.system", "postgresql"),
                                                 attr("db.statement", s["sql"]),
                                                 attr("db.postgresql.backend_pid", r["pid"])]})
                for c in r["calls"]:
                    spans.append({"traceId": tid, "spanId": "%016x" % rng.getrandbits(64),
                                  "parentSpanId": root, "name": c["name"], "kind": 3,
                                  "startTimeUnixNano": ns(c["start"]),
                                  "endTimeUnixNano": ns(c["end"]),
                                  "attributes": [attr("peer.service", "payments-api")]})
                doc = {"resourceSpans": [{"resource": {"attributes": [attr("service.name", "shop")]},
                                          "scopeSpans": [{"scope": {"name": "lockspan-hidden"},
                                                          "spans": spans}]}]}
                f.write(json.dumps(doc, separators=(",", ":")) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--user", default="postgres")
    ap.add_argument("--dbname", default="lockspan")
    ap.add_argument("--truth", required=True)
    ap.add_argument("--traces")
    ap.add_argument("--duration", type=float, default=30.0)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--set-name", default="hidden")
    ap.add_argument("--prefix", default="")
    ap.add_argument("--log-mode", default="durations")
    args = ap.parse_args()
    setup(args)
    rng = random.Random(args.seed)
    t_end = time.time() + args.duration
    workers = []
    for path, spec in PATHS.items():
        for n in range(spec[0]):
            workers.append(Worker(args, path, n, t_end, rng.getrandbits(32), bool(args.traces)))
    sampler = Sampler(args, [w.pid for w in workers])
    sampler.start()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    sampler.stop.set()
    sampler.join()
    errs = [f"{w.path}/{w.pid}: {w.error}" for w in workers if w.error]
    if errs:
        raise SystemExit("worker errors: " + "; ".join(errs))
    truth = build_truth(args, workers, sampler)
    with open(args.truth, "w") as f:
        json.dump(truth, f, indent=1)
    if args.traces:
        traces(workers, args.traces, rng)
    s = truth["sampling"]
    print(f"scenarios_hidden: {len(truth['requests'])} requests, sampler mean period"
          f" {s['mean_period_ms']} ms (p95 {s['p95_period_ms']}),"
          f" waits {truth['wait_distribution_ms']}", file=sys.stderr)
    for k, v in sorted(truth["totals"]["per_row"].items()):
        print(f"  {k}: hidden {v['hidden_ms']:.0f} ms, logged {v['logged_ms']:.0f} ms,"
              f" >20ms {v['waited_over_20ms']}", file=sys.stderr)


if __name__ == "__main__":
    main()
