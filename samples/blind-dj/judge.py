#!/usr/bin/env python3
"""Blind judge of lockspan on samples/blind-dj (a Django 5.2 service, one
application_name, no traces; PostgreSQL 18 jsonlog in Spanish with
log_statement = 'all' and log_duration = on, log_lock_waits,
deadlock_timeout 200ms): runs `lockspan analyze` on the committed log and
compares the JSON report with the app's truth.json.gz. Written from
README.md, docs/ and `lockspan --help` only.

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

MS = 1000
PATHS = ("place_order", "hit_page", "reserve_stock", "transfer", "reprice")


def iso_us(s):
    s = s.replace("Z", "+00:00")
    d = datetime.datetime.fromisoformat(s)
    if d.tzinfo is None:
        d = d.replace(tzinfo=datetime.timezone.utc)
    return int(d.timestamp() * 1_000_000)


def route_of(code_path):
    """The Python function a transaction shape stands for (the log has no
    other name: one application_name, no spans)."""
    cp = code_path or ""
    if not cp:
        return None
    if re.search(r"\b(orders|order_totals|counters)\b", cp):
        return "place_order"
    for rel, r in (("warehouses", "reserve_stock"), ("accounts", "transfer"), ("pages", "hit_page")):
        if re.search(r"\b%s\b" % rel, cp):
            return r
    if re.search(r"\bproducts\b", cp):
        return "place_order" if "FOR UPDATE" in cp else "reprice"
    return cp


def log_path(sample):
    for n in ("postgresql.json", "postgresql.json.gz"):
        if os.path.exists(os.path.join(sample, n)):
            return os.path.join(sample, n)
    raise SystemExit("no postgresql.json(.gz) in %s" % sample)


def records(p):
    f = gzip.open(p, "rt") if p.endswith(".gz") else open(p)
    return [json.loads(x) for x in f if x.strip()]


def analyze(lockspan, tmp, inputs, *extra):
    out = os.path.join(tmp, "r%d.json" % len(os.listdir(tmp)))
    p = subprocess.run([lockspan, "analyze", "-q", "--db", out + ".db", *extra, "-o", out, *inputs],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0 or not os.path.exists(out):
        return {"_failed": "exit %d: %s" % (p.returncode, p.stderr.strip()[-400:])}
    r = json.load(open(out))
    r["_stderr"] = p.stderr
    return r


def report(lockspan, sample, tmp):
    """{'log': the report of the log alone, '_recs': the log's records}."""
    log = log_path(sample)
    return {"log": analyze(lockspan, tmp, [log], "--max-errors", "1000"), "_recs": records(log)}


def load(path):
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        path += ".gz"
    return json.load(gzip.open(path, "rt") if path.endswith(".gz") else open(path))


class Judge:
    def __init__(self, truth, rep):
        self.t = truth
        self.rep = rep
        self.out = []
        self.holds = collections.defaultdict(list)
        for h in truth["holds"]:
            self.holds[(h["pid"], h["relation"], h["row_key"])].append(h)
        self.twaits = collections.defaultdict(list)
        for w in truth["waits"]:
            self.twaits[(w["pid"], w["relation"], w["row_key"])].append(w)

    def check(self, name, ok, got, want):
        self.out.append({"name": name, "ok": bool(ok), "lockspan": got, "truth": want})

    def run(self):
        if "_failed" in self.rep["log"]:
            self.check("lockspan analyze wrote a report", False, self.rep["log"]["_failed"], "a report")
            return self.out
        self.reading()
        self.deadlocks()
        self.serialization()
        self.rows_and_waits()
        self.rankings()
        self.findings()
        return self.out

    # ---- input: jsonlog in Spanish, durations on their own records ----------
    def reading(self):
        r, recs = self.rep["log"], self.rep["_recs"]
        s = r["summary"]
        self.check("jsonlog read: no unparsable records", s["bad_lines"] == 0 and s["records"] == len(recs),
                   (s["records"], s["bad_lines"]), (len(recs), 0))
        nst = sum(1 for x in recs if x["error_severity"] == "LOG" and x["message"].startswith("sentencia: "))
        ndu = sum(1 for x in recs if x["error_severity"] == "LOG" and x["message"].startswith("duración: "))
        self.check("statements: each 'sentencia:' record one statement (its 'duración:' record folded in, "
                   "not counted again)", s["statements"] == nst, s["statements"], nst)
        lg = r["input"]["logging"]
        self.check("statements timed: every statement that ended without error has its duration",
                   lg["statements_timed"] == ndu, lg["statements_timed"], ndu)
        self.check("statement logging judged complete (log_statement = 'all' with BEGIN/COMMIT and durations)",
                   lg["verdict"] == "complete", lg["verdict"], "complete")
        self.check("no hold marked a lower bound (COMMIT and ROLLBACK are logged)", lg["holds_at_least"] == 0,
                   lg["holds_at_least"], 0)
        ev = [f["evidence"] for f in r["findings"] if "No durations in the log" in f["evidence"]]
        self.check("no finding says the log has no durations (log_duration = on: %d duration records)" % ndu,
                   not ev, "%d findings say 'No durations in the log'" % len(ev), 0)
        nlock = sum(1 for x in recs if x["error_severity"] == "LOG"
                    and re.match(r"el proceso \d+ (aún espera|detectó un deadlock)", x["message"]))
        self.check("Spanish lock-wait messages read: waits = 'aún espera' + 'detectó un deadlock' records",
                   s["waits"] == nlock and not s.get("unmatched_lock_messages"), s["waits"], nlock)

    # ---- deadlocks ----------------------------------------------------------
    def deadlocks(self):
        r, td = self.rep["log"], self.t["deadlocks"]
        self.check("deadlocks: count", r["summary"]["deadlocks"] == len(td), r["summary"]["deadlocks"], len(td))
        vic = sorted(d["victim_pid"] for d in r["deadlocks"])
        self.check("deadlock victims: pids", vic == sorted(d["victim_pid"] for d in td), vic,
                   sorted(d["victim_pid"] for d in td))
        far = [d["victim_pid"] for d in r["deadlocks"]
               if not any(x["victim_pid"] == d["victim_pid"] and
                          abs(iso_us(d["time"]) - iso_us(x["time"])) <= 50 * MS for x in td)]
        self.check("deadlock victims: time within 50 ms of the app's error", not far, far or "all", "all")
        self.check("finding deserved: deadlocks", any(f["rule"] == "deadlocks" for f in r["findings"]),
                   [f["rule"] for f in r["findings"]], "deadlocks")
        vp = [route_of(d.get("victim_code_path")) for d in r["deadlocks"]]
        self.check("deadlock victims' code path is transfer's shape (accounts)",
                   vp and all(v == "transfer" for v in vp), [d.get("victim_code_path") for d in r["deadlocks"]],
                   "transfer")
        ers = [e for e in r["errors"] if e["sqlstate"] == "40P01"]
        no = [e["pid"] for e in ers if e["retried"] is False]
        self.check("deadlock victims: none said not retried (the app retried all %d, each committed)" % len(td),
                   not no, [(e["pid"], e["retried"]) for e in ers], "retried (or unknown)")
        lo = [(f.get("code_path"), f.get("other_code_path"), f.get("first"), f.get("then"))
              for f in r["findings"] if f["rule"] == "inconsistent_lock_order"]
        self.check("finding deserved: inconsistent lock order (transfer with itself, accounts)",
                   any(route_of(a) == "transfer" and route_of(b) == "transfer" and x == y == "accounts"
                       for a, b, x, y in lo), lo or "none", "transfer / transfer on accounts")

    # ---- 40001 ----------------------------------------------------------------
    def serialization(self):
        r = self.rep["log"]
        te = [e for e in self.t["errors"] if e["sqlstate"] == "40001"]
        ret = sum(1 for e in te if e["retried"])
        self.check("serialization failures (40001): count", r["summary"]["serialization_failures"] == len(te),
                   r["summary"]["serialization_failures"], len(te))
        f = next((f for f in r["findings"] if f["rule"] == "retries_after_serialization_failure"), None)
        self.check("finding deserved: retries after serialization failure", f is not None, bool(f), True)
        if f:
            self.check("40001 retries: the finding's retried + untold covers the app's %d retries" % ret,
                       f["retried"] + f.get("untold", 0) >= ret,
                       "%d + %d untold" % (f["retried"], f.get("untold", 0)), ret)
            self.check("40001 retries: no more said retried than the app retried", f["retried"] <= ret,
                       f["retried"], ret)
        wrong, seen = [], 0
        for e in r["errors"]:
            if e["sqlstate"] != "40001":
                continue
            x = next((x for x in te if x["pid"] == e["pid"] and
                      abs(iso_us(x["time"]) - iso_us(e["time"])) <= 50 * MS), None)
            seen += 1
            if x and e["retried"] is False and x["retried"]:
                wrong.append(e["pid"])
        self.check("40001: none said not retried that the app retried (listed errors)", not wrong,
                   "%d of %d listed" % (len(wrong), seen), "0 (the app retried %d of %d)" % (ret, len(te)))
        bad = [(e["statement"] or "")[:40] for e in r["errors"] if e["sqlstate"] == "40001"
               and not re.match(r'UPDATE "products"', e["statement"] or "")]
        self.check("serialization failures: each on reprice's UPDATE products", not bad, bad[:3] or "all", "all")
        cp = collections.Counter(route_of(e.get("code_path")) for e in r["errors"] if e["sqlstate"] == "40001")
        self.check("serialization failures: each in reprice's shape (SELECT products; UPDATE products)",
                   set(cp) == {"reprice"}, dict(cp), "reprice")

    # ---- rows, waits, holds -------------------------------------------------
    def rows_and_waits(self):
        r, t = self.rep["log"], self.t
        thot = {(h["relation"], h["row_key"]) for h in t["hot_rows"]}
        top = (t["hot_rows"][0]["relation"], t["hot_rows"][0]["row_key"])
        rows = [(h["relation"], h["row_key"]) for h in r["hot_rows"]]
        self.check("hot rows: each listed row (by key) is a truth hot row", all(x in thot for x in rows),
                   rows, "truth hot rows")
        self.check("busiest row: %s %s first" % top, rows[:1] == [top], rows[:1], top)
        # rows the truth has >= 1 s of waiting on, all below deadlock_timeout
        # except a few: listed?
        # (not order_totals: only the trigger's UPDATE names it, and no
        # wait for it was logged: the log cannot show its key)
        big = [(h["relation"], h["row_key"]) for h in t["hot_rows"] if h["total_wait_ms"] >= 900
               and h["relation"] != "order_totals"]
        miss = [x for x in big if x not in rows]
        self.check("hot rows: every row with >= 0.9 s of waiting in the truth whose key a logged statement "
                   "names is listed (durations show the short waits)", not miss, miss or "all", big)
        # a wait whose relation lockspan gives only by its oid ("relation
        # 16447") is compared on pid and key; the name is checked apart
        oid = [(w["pid"], w["relation"], w.get("row_key"), w["start"][11:23]) for w in r["waits"]
               if re.match(r"relation \d+$", w["relation"] or "")]
        self.check("logged waits: each wait's relation named (the Spanish tuple-lock messages give only its oid)",
                   not oid, oid[:3] or "all named", "all named")

        def tw(pid, rel, key, d):
            if re.match(r"relation \d+$", rel or ""):
                return [x for (p, _, k), xs in d.items() if p == pid and k == key for x in xs]
            return d.get((pid, rel, key), [])
        out = []
        for w in r["waits"]:
            ws = tw(w["pid"], w["relation"], w.get("row_key"), self.twaits)
            s, e = iso_us(w["start"]), iso_us(w["end"])
            if not any(iso_us(x["start"]) - 5 * MS <= s and e <= iso_us(x["end"]) + 5 * MS for x in ws):
                out.append((w["pid"], w["relation"], w.get("row_key"), w["start"][11:23]))
        self.check("logged waits: each lies within a truth wait of that pid and row", not out,
                   out[:4] or "all", "all (%d listed)" % len(r["waits"]))
        bad = []
        for w in r["waits"]:
            hs = tw(w["holder_pid"], w["relation"], w.get("row_key"), self.holds)
            s, e = iso_us(w["start"]), iso_us(w["end"])
            if not any(iso_us(h["start_lo"]) - 5 * MS <= e and iso_us(h["end"]) + 5 * MS >= s for h in hs):
                bad.append((w["holder_pid"], w["relation"], w.get("row_key"), w["start"][11:23]))
        self.check("logged waits: the holder pid named held the row during the wait", not bad,
                   bad[:4] or "all", "all")
        nothold, wrongpath, far = [], [], []
        for h in r["holds"]:
            th = self.holds.get((h["pid"], h["relation"], h["row_key"]), [])
            s, e = iso_us(h["start"]), iso_us(h["end"])
            m = [x for x in th if iso_us(x["start_lo"]) - 5 * MS <= s and e <= iso_us(x["end"]) + 5 * MS]
            if not m:
                nothold.append((h["pid"], h["relation"], h["row_key"], h["start"][11:23]))
            elif route_of(h.get("code_path")) != m[0]["path"]:
                wrongpath.append((h["pid"], h.get("code_path"), m[0]["path"]))
            # the hold's length: within 5 ms of the truth's
            if m and abs(h["hold_ms"] - m[0]["hold_ms"]) > 5:
                far.append((h["pid"], h["hold_ms"], m[0]["hold_ms"]))
        self.check("holds listed: each is a truth hold of that pid, row and time", not nothold,
                   nothold or "all", "all")
        self.check("holds listed: the shape of each is the path that held the row", not wrongpath,
                   wrongpath or "all", "all")
        self.check("holds listed: hold_ms within 5 ms of the app's (BEGIN/COMMIT and durations logged)", not far,
                   far or "all", "all")
        hw = r["summary"]["hidden_waits"]
        tw = [w for w in t["waits"] if w["waited_ms"] < 200]
        tms = sum(w["waited_ms"] for w in tw)
        got = hw.get("hidden_wait_ms")
        self.check("hidden waits (below deadlock_timeout) rebuilt: within a factor of 2 of the truth's %.1f s "
                   "in %d waits" % (tms / 1000, len(tw)),
                   got is not None and tms / 2 <= got <= tms * 2, got, round(tms, 1))

    # ---- rankings and story ---------------------------------------------------
    def rankings(self):
        r, t = self.rep["log"], self.t
        occ = [x["route"] for x in t["rankings"]["occupancy"]]
        blk = [x["route"] for x in t["rankings"]["blocking"]]
        st = r.get("story") or {}
        got = "%s (%s ms, %s %%)" % (st.get("code_path"), st.get("hold_ms"), st.get("share_pct"))
        self.check("story: names reserve_stock's shape (%s %% of hot-row hold time)" %
                   t["rankings"]["occupancy"][0]["share_pct"],
                   route_of(st.get("code_path")) == occ[0], got, occ[0])
        self.check("story: no top path named with 0 ms of hold time",
                   st.get("code_path") is None or st.get("hold_ms"), got, "not 0 ms")
        ro = []
        for x in r["row_occupancy"]:
            p = route_of(x["code_path"])
            if p not in ro:
                ro.append(p)
        self.check("occupancy ranking: reserve_stock first", ro[:1] == occ[:1], ro, occ)
        self.check("occupancy ranking: the order of the first three paths", ro[:3] == occ[:3], ro[:3], occ[:3])
        by = collections.Counter()
        for c in r["code_paths"]:
            by[route_of(c["code_path"])] += c.get("waiter_ms_caused") or 0
        bo = [p for p, v in by.most_common() if v]
        self.check("blocking ranking: reserve_stock first", bo[:1] == blk[:1], bo, blk)
        self.check("blocking ranking: its caused waiting within 10 %% of the truth's %.1f s" %
                   (t["rankings"]["blocking"][0]["waiter_ms_caused"] / 1000),
                   abs(by[blk[0]] - t["rankings"]["blocking"][0]["waiter_ms_caused"])
                   <= 0.1 * t["rankings"]["blocking"][0]["waiter_ms_caused"],
                   round(by[blk[0]], 1), t["rankings"]["blocking"][0]["waiter_ms_caused"])
        src = sorted({c.get("named_by") for c in r["row_occupancy"] + r["code_paths"]})
        self.check("code paths named by transaction shape (one application_name, no spans)",
                   src == ["transaction shape"], src, ["transaction shape"])
        shapes = collections.defaultdict(set)
        for c in r["row_occupancy"] + r["code_paths"]:
            shapes[route_of(c["code_path"])].add(c["code_path"])
        self.check("code paths: each shape maps to one Python function (no shape mixes two paths)",
                   all(p in PATHS for p in shapes), sorted(shapes), list(PATHS))
        split = {p: sorted(v) for p, v in shapes.items() if len(v) > 1}
        self.check("code paths: one shape per Python function (a deadlock victim's rolled-back transfer "
                   "is not a path of its own)", not split, split or "one each", "one each")

    # ---- findings -------------------------------------------------------------
    def findings(self):
        r = self.rep["log"]
        rules = collections.Counter(f["rule"] for f in r["findings"])
        self.check("finding not deserved: lock queue behind DDL", not rules["lock_queue_behind_ddl"],
                   rules["lock_queue_behind_ddl"], 0)
        self.check("finding not deserved: commit wait at the head", not rules["commit_wait_head"],
                   rules["commit_wait_head"], 0)
        hc = [f["relation"] for f in r["findings"] if f["rule"] == "hot_counter_row"
              and f["relation"] in ("warehouses", "accounts", "products")]
        self.check("finding not deserved: hot counter row on warehouses, accounts or products", not hc,
                   hc or "none", "none")
        ec = [f for f in r["findings"] if f["rule"] == "external_call_in_transaction"]
        self.check("no external call in transaction claimed (no spans: not in the log)", not ec, len(ec), 0)
        lo = [f.get("code_path") for f in r["findings"] if f["rule"] == "inconsistent_lock_order"
              and route_of(f.get("code_path")) != "transfer"]
        self.check("finding not deserved: inconsistent lock order for a path other than transfer", not lo,
                   lo or "none", "none")
        it = [(f.get("code_path"), f.get("waiter_ms")) for f in r["findings"]
              if f["rule"] == "idle_in_transaction_head"]
        self.check("finding deserved: idle in transaction at the head for reserve_stock's shape (the HTTP "
                   "call, which the log shows only as idle)",
                   any(route_of(c) == "reserve_stock" for c, _ in it), it or "none", "reserve_stock")
        self.check("idle-at-the-head: reserve_stock's shape is the heaviest",
                   it and route_of(it[0][0]) == "reserve_stock", it[:1], "reserve_stock")
        # counters bumped by F() + 1 / the trigger, each waited for below
        # deadlock_timeout (the truth's waits)
        cnt = [(h["relation"], h["row_key"], h["waits"], h["total_wait_ms"]) for h in self.t["hot_rows"]
               if h["relation"] in ("counters", "pages") and h["total_wait_ms"] >= 500]
        got = [(f["relation"], f["row"]) for f in r["findings"] if f["rule"] == "hot_counter_row"]
        self.check("finding deserved: hot counter row for a counter waited for >= 0.5 s (%s)" %
                   ", ".join("%s %s" % (a, b) for a, b, _, _ in cnt),
                   not cnt or any((a, b) in got for a, b, _, _ in cnt), got or "none",
                   [(a, b, n, round(ms)) for a, b, n, ms in cnt])
        self.check("finding deserved: serial capacity of warehouses id=1",
                   any(f["rule"] == "serial_capacity" and f["relation"] == "warehouses" and f["row"] == "id=1"
                       for f in r["findings"]), [f["rule"] for f in r["findings"]][:3], "serial_capacity")


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: judge.py LOCKSPAN [SAMPLE_DIR]")
    lockspan = os.path.abspath(sys.argv[1])
    sample = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory(prefix="judge_blind_dj.") as tmp:
        rep = report(lockspan, sample, tmp)
    truth = load(os.path.join(sample, "truth.json.gz"))
    res = Judge(truth, rep).run()
    for x in res:
        print("%-6s %s: lockspan %s, truth %s" % ("ok" if x["ok"] else "WRONG", x["name"], x["lockspan"],
                                                  x["truth"]))
    print("judge.py: %d right, %d wrong" % (sum(x["ok"] for x in res), sum(not x["ok"] for x in res)))


if __name__ == "__main__":
    main()
