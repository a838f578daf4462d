#!/usr/bin/env python3
"""Blind judge of lockspan on samples/blind-rb (an ActiveRecord 6.1 app, one
application_name, no traces; PostgreSQL 15 logging only statements of
100 ms+, lock waits, deadlock_timeout 1 s): runs `lockspan analyze` on the
committed log and compares its JSON report with the app's truth.json.
Written from README.md, docs/report-json.md and `lockspan --help` only.

  judge.py LOCKSPAN [SAMPLE_DIR]

Prints one line a check: ok / WRONG, lockspan's answer, the truth. Where the
log cannot show something, the right answer is that lockspan says so; a
confident wrong answer is the worst result.
"""
import collections
import datetime
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile

# Ruby method of a code path named by transaction shape (no spans, no tags,
# one application_name): the relation it names.
REL_PATH = {"warehouses": "reserve_stock", "accounts": "transfer", "articles": "comment_article",
            "comments": "comment_article", "order_totals": "place_order", "orders": "place_order"}
MS = 1000


def iso_us(s):
    """ISO time (UTC, 'Z') to epoch microseconds."""
    d = datetime.datetime.strptime(s.rstrip("Z")[:26], "%Y-%m-%dT%H:%M:%S.%f")
    return int(d.replace(tzinfo=datetime.timezone.utc).timestamp() * 1_000_000)


def log_path(sample):
    for n in ("postgresql.log", "postgresql.log.gz"):
        if os.path.exists(os.path.join(sample, n)):
            return os.path.join(sample, n)
    raise SystemExit("no postgresql.log in " + sample)


def log_text(sample):
    p = log_path(sample)
    return (gzip.open(p, "rt") if p.endswith(".gz") else open(p)).read()


def analyze(lockspan, sample, tmp, *extra):
    out = os.path.join(tmp, "r%d.json" % len(os.listdir(tmp)))
    subprocess.run([lockspan, "analyze", "-q", "--db", out + ".db", *extra, "-o", out, log_path(sample)],
                   check=True, stdout=subprocess.DEVNULL)
    return json.load(open(out))


def report(lockspan, sample, tmp):
    """The report of the log as a DBA would run it (no --prefix), with the
    report of the same log under --prefix as `_with_prefix`."""
    rep = analyze(lockspan, sample, tmp)
    prefix = open(os.path.join(sample, "prefix.txt")).read()
    rep["_with_prefix"] = analyze(lockspan, sample, tmp, "--prefix", prefix)
    rep["_log"] = log_text(sample)
    return rep


def load(path):
    return json.load(open(path))


def path_of(code_path):
    """The Ruby method a transaction-shape code path stands for, by the
    relations it names (products: place_order and reprice both lock it)."""
    names = [p for r, p in REL_PATH.items() if re.search(r"\b%s\b" % r, code_path or "")]
    if names:
        return names[0]
    return "products" if "products" in (code_path or "") else code_path


class Judge:
    def __init__(self, truth, rep):
        self.t = truth
        self.r = rep
        self.off = truth["clock_offset_us"]
        self.out = []

    def srv(self, us):
        return us + self.off

    def check(self, name, ok, got, want):
        self.out.append({"name": name, "ok": bool(ok), "lockspan": got, "truth": want})

    def run(self):
        t, r = self.t, self.r
        s = r["summary"]
        log = r["_log"]
        logged_dur = len(re.findall(r" LOG:  duration: ", log))
        self.check("log read: no unparsable lines", s["bad_lines"] == 0, s["bad_lines"], 0)
        self.check("slow statements: every duration line read", s["statements"] == logged_dur,
                   s["statements"], logged_dur)
        wp = r["_with_prefix"]
        same = (wp["summary"]["statements"], wp["summary"]["waits"], wp["summary"]["deadlocks"],
                wp["summary"]["serialization_failures"], [f["rule"] for f in wp["findings"]])
        got = (s["statements"], s["waits"], s["deadlocks"], s["serialization_failures"],
               [f["rule"] for f in r["findings"]])
        self.check("prefix inferred without --prefix: the same report", same == got, got, same)

        lg = r["input"]["logging"]
        self.check("statement logging judged threshold (BEGIN/COMMIT and fast statements missing)",
                   lg["verdict"] == "threshold", lg["verdict"], "threshold")
        self.check("holds: every hold marked a lower bound (hold_at_least)",
                   lg["holds"] == lg["holds_at_least"], "%d of %d" % (lg["holds_at_least"], lg["holds"]),
                   "all")
        self.check("logging advice given (what to log for the incident window)", bool(lg.get("advice")),
                   (lg.get("advice") or "")[:40], "an advice")

        # ---- deadlocks ----------------------------------------------------
        td = t["deadlocks"]
        self.check("deadlocks: count", s["deadlocks"] == len(td), s["deadlocks"], len(td))
        vic = sorted(d["victim_pid"] for d in r["deadlocks"])
        self.check("deadlock victims: pids", vic == sorted(d["victim_pid"] for d in td), vic,
                   sorted(d["victim_pid"] for d in td))
        far = []
        for d in r["deadlocks"]:
            x = next((x for x in td if x["victim_pid"] == d["victim_pid"]), None)
            if not x or abs(iso_us(d["time"]) - self.srv(x["time_us"])) > 50 * MS:
                far.append(d["victim_pid"])
        self.check("deadlock victims: time within 50 ms of the app's error", not far, far or "all", "all")
        bad = []
        for d in r["deadlocks"]:
            x = next((x for x in td if x["victim_pid"] == d["victim_pid"]), None)
            other = {e["blocker_pid"] for e in d["edges"] if e["waiter_pid"] == d["victim_pid"]}
            if not x:
                bad.append(d["victim_pid"])
                continue
            # a FOR UPDATE queue: the tuple lock is held by the first waiter
            rel, row = x["victim_wanted"].split(" id=")
            queued = {w["pid"] for w in t["waits"] if w["relation"] == rel and w["row"] == int(row)
                      and w["start_us"] <= x["time_us"] <= w["end_us"] + 2 * MS}
            if not other <= set(x["other_pids"]) | queued:
                bad.append(d["victim_pid"])
        self.check("deadlocks: the process the victim waited for held the row it wanted or led "
                   "its queue (the tuple lock)", not bad, bad or "all", "all")
        rules = collections.Counter(f["rule"] for f in r["findings"])
        self.check("finding deserved: deadlocks", rules["deadlocks"] == 1, rules["deadlocks"], 1)
        lo = [f for f in r["findings"] if f["rule"] == "inconsistent_lock_order"]
        self.check("finding deserved: inconsistent lock order, transfer against itself on accounts",
                   any(f["first"] == "accounts" and f["then"] == "accounts" for f in lo),
                   [(f["code_path"], f["first"], f["then"]) for f in lo] or "none",
                   "SELECT FOR UPDATE accounts x2 (transfer), %d deadlocks" % len(td))
        te = collections.Counter(e["sqlstate"] for e in t["errors"])
        d_retried = sum(e["retried"] for e in t["errors"] if e["sqlstate"] == "40P01")
        said_no = sum(1 for e in r["errors"] if e["sqlstate"] == "40P01" and e["retried"] is False)
        self.check("deadlock victims: none said not retried that the app retried (on a new pid after "
                   "ActiveRecord's reset: untold is right)",
                   said_no <= te["40P01"] - d_retried,
                   "%d said retried=false" % said_no, "%d of %d retried" % (d_retried, te["40P01"]))

        # ---- serialization failures ---------------------------------------
        n40001 = te["40001"]
        self.check("serialization failures (40001): count", s["serialization_failures"] == n40001,
                   s["serialization_failures"], n40001)
        stmts = {e["statement"] for e in r["errors"] if e["sqlstate"] == "40001"}
        want = {e["statement"] for e in t["errors"] if e["sqlstate"] == "40001"}
        self.check("serialization failures: each on reprice's UPDATE products", stmts <= want,
                   len(stmts), "%d shape(s)" % len(want))
        f = [f for f in r["findings"] if f["rule"] == "retries_after_serialization_failure"]
        self.check("finding deserved: retries after serialization failure", bool(f), bool(f), True)
        retried = sum(e["retried"] for e in t["errors"] if e["sqlstate"] == "40001")
        fr = f[0] if f else {}
        self.check("40001 retries: the finding's retried + untold covers the app's retries",
                   fr.get("retried", 0) + (fr.get("untold") or 0) >= retried,
                   "retried %s, untold %s" % (fr.get("retried"), fr.get("untold")),
                   "%d of %d retried (all on a new pid)" % (retried, n40001))
        said_no = sum(1 for e in r["errors"] if e["sqlstate"] == "40001" and e["retried"] is False)
        listed = sum(1 for e in r["errors"] if e["sqlstate"] == "40001")
        self.check("40001: none said not retried beyond the app's unretried share",
                   said_no <= round(listed * (n40001 - retried) / max(n40001, 1)) + 1,
                   "%d of %d listed said retried=false" % (said_no, listed),
                   "%d of %d not retried" % (n40001 - retried, n40001))
        self.check("40001: no cause named wrongly (no wait of the UPDATE was logged)",
                   all(e["cause_pid"] is None for e in r["errors"] if e["sqlstate"] == "40001"),
                   "none named", "none knowable")
        n25 = len(re.findall(r"ERROR:  current transaction is aborted", log))
        self.check("INFO 25P02 errors of ActiveRecord's connection resets (DEALLOCATE aN) in errors[]",
                   True, sum(1 for e in r["errors"] if e["sqlstate"] == "25P02"), n25)

        # ---- hot rows, waits, holds --------------------------------------
        thot = {(h["relation"], h["row_key"]): h for h in t["hot_rows"]}
        keyed = [h for h in r["hot_rows"] if h["row_key"].startswith("id=")]
        notreal = [(h["relation"], h["row_key"]) for h in keyed if (h["relation"], h["row_key"]) not in thot]
        self.check("hot rows: each listed row (by key) is a truth hot row", not notreal and keyed,
                   notreal or [h["relation"] + " " + h["row_key"] for h in keyed], "truth hot rows")
        busiest = t["hot_rows"][0]
        self.check("hot rows: the truth's busiest row (warehouses id=1) is listed",
                   ("warehouses", "id=1") in {(h["relation"], h["row_key"]) for h in r["hot_rows"]},
                   [h["relation"] + " " + h["row_key"] for h in r["hot_rows"]],
                   "%s %s: %d waits, %.1f s" % (busiest["relation"], busiest["row_key"], busiest["waits"],
                                               busiest["wait_ms"] / 1000))
        top = r["hot_rows"][0] if r["hot_rows"] else {}
        self.check("busiest hot row (hot_rows[0]) is the row waited for longest",
                   (top.get("relation"), top.get("row_key")) == (busiest["relation"], busiest["row_key"]),
                   "%s %s" % (top.get("relation"), top.get("row_key")),
                   "%s %s" % (busiest["relation"], busiest["row_key"]))
        hw = s["hidden_waits"]
        under = sum(w["wait_ms"] for w in t["waits"] if w["wait_ms"] < 1000)
        self.check("hidden waits: not reported as 0 ms when the log cannot show them (threshold log)",
                   not (hw.get("reconstructed") and hw.get("hidden_wait_ms", 0) == 0),
                   "%s ms, reconstructed %s" % (hw.get("hidden_wait_ms"), hw.get("reconstructed")),
                   "%.1f s of waits under 1 s, unlogged" % (under / 1000))
        tw = t["waits"]
        miss, wrongh = [], []
        for w in r["waits"]:
            if not (w.get("row_key") or "").startswith("id="):
                continue
            rel, row = w["relation"], int(w["row_key"][3:])
            a, b = iso_us(w["start"]), iso_us(w["end"])
            x = [x for x in tw if x["pid"] == w["pid"] and x["relation"] == rel and x["row"] == row
                 and self.srv(x["start_us"]) - 2 * MS <= a and b <= self.srv(x["end_us"]) + 2 * MS]
            if not x:
                miss.append(w["wait_id"])
            hp = w.get("holder_pid") or w.get("blocker_pid")
            held = [h for h in t["holds"] if h["pid"] == hp and h["relation"] == rel and h["row"] == row
                    and self.srv(h["acquired_us"]) <= b and a <= self.srv(h["released_us"])]
            if hp and not held:
                wrongh.append(w["wait_id"])
        self.check("logged waits (keyed): each lies within a truth wait of that pid and row", not miss,
                   miss or "all", "all")
        self.check("logged waits (keyed): the holder named held the row during the wait", not wrongh,
                   wrongh or "all", "all")
        nlog = len(re.findall(r"(still waiting for|detected deadlock while)", log))
        self.check("logged waits: count (still waiting + deadlock lines; truth %d waits of 1 s+)"
                   % sum(w["wait_ms"] >= 1000 for w in tw), s["waits"] == nlog, s["waits"], nlog)
        nothold, longer = [], []
        for h in r["holds"]:
            if not h["row_key"].startswith("id="):
                continue
            rel, row = h["relation"], int(h["row_key"][3:])
            x = [x for x in t["holds"] if x["pid"] == h["pid"] and x["relation"] == rel and x["row"] == row]
            if not x:
                nothold.append((h["pid"], rel, row))
            elif h["hold_ms"] > max(y["hold_ms"] for y in x) + 1:
                longer.append((h["pid"], h["hold_ms"]))
        self.check("holds listed (keyed): each is a truth hold of that pid and row", not nothold,
                   nothold or "all", "all")
        self.check("holds listed: none longer than the truth's (lower bounds)", not longer,
                   longer or "none", "none")

        # ---- rankings and story -------------------------------------------
        occ = [x["path"] for x in t["rankings"]["occupancy"]]
        blk = [x["path"] for x in t["rankings"]["blocking"]]
        ro = [path_of(x["code_path"]) for x in r["row_occupancy"]]
        st = r.get("story") or {}
        self.check("story: top path by row occupancy", path_of(st.get("code_path")) == occ[0],
                   "%s (%s, %.1f ms)" % (st.get("code_path"), path_of(st.get("code_path")),
                                         st.get("hold_ms") or 0),
                   "%s (%.1f s, %.0f %%)" % (occ[0], t["rankings"]["occupancy"][0]["hold_ms"] / 1000,
                                            t["rankings"]["occupancy"][0]["share_pct"]))
        self.check("story: a top path with 0 ms of hold time is not named (or is said unknown)",
                   not (st and (st.get("hold_ms") or 0) == 0 and st.get("share_pct") == 0 and st.get("code_path")),
                   "%s at %s ms, %s %%" % (st.get("code_path"), st.get("hold_ms"), st.get("share_pct")),
                   "no occupancy is knowable from this log")
        self.check("occupancy order of the Ruby methods (row_occupancy)", ro == occ, ro, occ)
        cp = [path_of(x["code_path"]) for x in r["code_paths"]]
        self.check("top code path by blocking (code_paths[0])", cp[:1] == blk[:1], cp[:1], blk[:1])
        ci = r.get("code_path_identity") or {}
        self.check("code paths: said to be named by transaction shape (one application_name, no spans)",
                   ci.get("fallback") == "transaction shape", ci.get("fallback"), "transaction shape")
        shapes = collections.Counter(path_of(x["code_path"]) for x in r["row_occupancy"])
        split = [p for p, n in shapes.items() if n > 1]
        self.check("each Ruby method is one code path (no method split into shapes)", not split,
                   split or "none", "none")

        # ---- findings not deserved ----------------------------------------
        self.check("finding not deserved: lock queue behind DDL", not rules["lock_queue_behind_ddl"],
                   rules["lock_queue_behind_ddl"], 0)
        self.check("finding not deserved: external call in transaction (no traces: not in the log)",
                   not rules["external_call_in_transaction"], rules["external_call_in_transaction"], 0)
        hc = [f["relation"] for f in r["findings"] if f["rule"] == "hot_counter_row"
              and f["relation"] in ("warehouses", "accounts", "products")]
        self.check("finding not deserved: hot counter row on warehouses, accounts or products", not hc,
                   hc or "none", "none")
        idle = [f["code_path"] for f in r["findings"] if f["rule"] == "idle_in_transaction_head"
                and path_of(f["code_path"]) != "reserve_stock"]
        self.check("finding not deserved: idle in transaction for a path other than reserve_stock",
                   not idle, idle or "none", "none")
        return self.out


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: judge.py LOCKSPAN [SAMPLE_DIR]")
    lockspan = os.path.abspath(sys.argv[1])
    sample = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory(prefix="judge_blind_rb.") as tmp:
        rep = report(lockspan, sample, tmp)
    truth = load(os.path.join(sample, "truth.json"))
    res = Judge(truth, rep).run()
    for x in res:
        print("%-6s %s: lockspan %s, truth %s" % ("ok" if x["ok"] else "WRONG", x["name"], x["lockspan"],
                                                  x["truth"]))
    print("judge.py: %d right, %d wrong" % (sum(x["ok"] for x in res), sum(not x["ok"] for x in res)))


if __name__ == "__main__":
    main()
