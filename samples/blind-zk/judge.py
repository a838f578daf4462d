#!/usr/bin/env python3
"""Blind judge of lockspan on samples/blind-zk (a Sequelize v6 service, one
application_name, traced to Zipkin by the stock OpenTelemetry JS SDK;
PostgreSQL 15 with log_statement = 'mod', lock waits, deadlock_timeout 1 s,
no durations): runs `lockspan analyze` on the committed log with the Zipkin
file (`zk`), the same under --prefix, and the log alone (`log`), and
compares the JSON reports with the app's truth.json. Written from README.md,
docs/ and `lockspan --help` only.

  judge.py LOCKSPAN [SAMPLE_DIR]

Prints one line a check: ok / WRONG, lockspan's answer, the truth. Where the
inputs cannot show something, the right answer is that lockspan says so; a
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
# Route of a code path: a span route (log + Zipkin) or a transaction shape
# named by its relation (log alone; products: place_order and reprice both
# write it).
ROUTE_PREFIX = {"/orders/": "place_order", "/pages/": "hit_page", "/warehouses/": "reserve_stock",
                "/transfers/": "transfer", "/products/": "reprice"}
REL_ROUTE = {"orders": "place_order", "order_totals": "place_order", "counters": "hit_page",
             "warehouses": "reserve_stock", "accounts": "transfer"}


def iso_us(s):
    d = datetime.datetime.strptime(s.rstrip("Z")[:26], "%Y-%m-%dT%H:%M:%S.%f")
    return int(d.replace(tzinfo=datetime.timezone.utc).timestamp() * 1_000_000)


def route_of(code_path):
    cp = code_path or ""
    for p, r in ROUTE_PREFIX.items():
        if p in cp:
            return r
    for rel, r in REL_ROUTE.items():
        if re.search(r"\b%s\b" % rel, cp):
            return r
    return "products" if "products" in cp else cp or None


def sample_file(sample, *names):
    for n in names:
        if os.path.exists(os.path.join(sample, n)):
            return os.path.join(sample, n)
    raise SystemExit("none of %s in %s" % (names, sample))


def log_path(sample):
    return sample_file(sample, "postgresql.log", "postgresql.log.gz")


def zipkin_path(sample):
    return sample_file(sample, "zipkin.json", "zipkin.json.gz")


def text(p):
    return (gzip.open(p, "rt") if p.endswith(".gz") else open(p)).read()


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
    """{'zk': log + Zipkin, 'zk_prefix': the same under --prefix, 'log':
    the log alone, '_log': the log's text, '_spans': the Zipkin file's span
    count}."""
    log, zk = log_path(sample), zipkin_path(sample)
    prefix = open(os.path.join(sample, "prefix.txt")).read()
    spans = sum(len(json.loads(line)) for line in text(zk).splitlines() if line.strip())
    return {"zk": analyze(lockspan, tmp, [log, zk]),
            "zk_prefix": analyze(lockspan, tmp, [log, zk], "--prefix", prefix),
            "log": analyze(lockspan, tmp, [log]),
            "_log": text(log), "_spans": spans}


def load(path):
    return json.load(open(path))


class Judge:
    def __init__(self, truth, rep):
        self.t = truth
        self.rep = rep
        self.out = []
        self.by_pid = collections.defaultdict(list)
        for a in truth["attempts"]:
            if a["stmts"]:
                a["_lo"] = iso_us(a["stmts"][0]["call"]) - 20 * MS
                a["_hi"] = iso_us(a["end"]) + 2 * MS
                self.by_pid[a["pid"]].append(a)
        self.holds = collections.defaultdict(list)
        for h in truth["holds"]:
            self.holds[(h["pid"], h["relation"], h["row_key"])].append(h)
        self.twaits = collections.defaultdict(list)
        for w in truth["waits"]:
            self.twaits[(w["pid"], w["relation"], w["row_key"])].append(w)

    def check(self, name, ok, got, want):
        self.out.append({"name": name, "ok": bool(ok), "lockspan": got, "truth": want})

    def attempt_at(self, pid, us):
        c = [a for a in self.by_pid.get(pid, []) if a["_lo"] <= us <= a["_hi"]]
        return max(c, key=lambda a: a["_lo"]) if c else None

    def route_at(self, pid, iso):
        a = self.attempt_at(pid, iso_us(iso))
        return a["route"] if a else None

    def run(self):
        t, rep = self.t, self.rep
        for k in ("zk", "log"):
            if "_failed" in rep[k]:
                self.check("%s: lockspan analyze wrote a report" % k, False, rep[k]["_failed"], "a report")
                return self.out
        self.reading()
        self.logging()
        self.deadlocks()
        self.serialization()
        self.rows_and_waits()
        self.rankings()
        self.findings()
        return self.out

    # ---- inputs -----------------------------------------------------------
    def reading(self):
        zk, lg, log = self.rep["zk"], self.rep["log"], self.rep["_log"]
        self.check("log read: no unparsable lines", lg["summary"]["bad_lines"] == 0,
                   lg["summary"]["bad_lines"], 0)
        zf = [f for f in zk["input"]["files"] if f["format"] == "zipkin"]
        got = zf[0]["records"] if zf else None
        self.check("zipkin file read: every span", got == self.rep["_spans"] and zf[0]["bad_lines"] == 0,
                   got, self.rep["_spans"])
        n = len(re.findall(r" LOG:  (?:statement|execute [^:]*): ", log))
        got = lg["input"]["logging"]["statements"]
        self.check("log_statement = 'mod': every logged statement read", got == n, got, n)
        wp = self.rep["zk_prefix"]
        pick = lambda r: (r["summary"]["statements"], r["summary"]["waits"], r["summary"]["deadlocks"],  # noqa: E731
                          r["summary"]["serialization_failures"], [f["rule"] for f in r["findings"]],
                          (r["story"] or {}).get("code_path"))
        self.check("prefix inferred without --prefix: the same report", pick(zk) == pick(wp), pick(zk), pick(wp))
        ts = zk["summary"].get("trace_spans") or {}
        off = ts.get("clock_offset_ms")
        want = self.t["clock"]["offset_us"] / 1000.0
        self.check("zk: clock offset within 2 ms of the app's measured offset (spans in whole ms)",
                   off is not None and abs(off - want) <= 2, off, want)

    # ---- what the logging can tell ----------------------------------------
    def logging(self):
        for k in ("zk", "log"):
            r = self.rep[k]
            lg = r["input"]["logging"]
            self.check("%s: statement logging not judged complete (no BEGIN/COMMIT, no durations)" % k,
                       lg["verdict"] != "complete", lg["verdict"], "not complete (log_statement = 'mod')")
            self.check("%s: logging advice given (BEGIN/COMMIT or durations for the incident window)" % k,
                       bool(lg.get("advice")), (lg.get("advice") or "")[:40] or None, "an advice")
            hw = r["summary"]["hidden_waits"]
            tw = self.t["run"]["waits"] - self.t["run"]["waits_1s"]
            self.check("%s: hidden waits not reported as 0 ms (truth: %d waits under 1 s; the log has "
                       "no durations to rebuild them)" % (k, tw),
                       hw.get("hidden_wait_ms") is None or hw.get("hidden_wait_ms", 0) > 0,
                       hw.get("hidden_wait_ms"), "unknown (null) or > 0")
        lg = self.rep["log"]["input"]["logging"]
        self.check("log: holds marked lower bounds (no COMMIT in the log: hold_at_least)",
                   lg["holds"] and lg["holds_at_least"] == lg["holds"],
                   "%d of %d" % (lg["holds_at_least"], lg["holds"]), "all")

    # ---- deadlocks ----------------------------------------------------------
    def deadlocks(self):
        td = self.t["deadlocks"]
        for k in ("zk", "log"):
            r = self.rep[k]
            self.check("%s: deadlocks: count" % k, r["summary"]["deadlocks"] == len(td),
                       r["summary"]["deadlocks"], len(td))
            vic = sorted(d["victim_pid"] for d in r["deadlocks"])
            self.check("%s: deadlock victims: pids" % k, vic == sorted(d["victim_pid"] for d in td), vic,
                       sorted(d["victim_pid"] for d in td))
            far = [d["victim_pid"] for d in r["deadlocks"]
                   if not any(x["victim_pid"] == d["victim_pid"] and
                              abs(iso_us(d["time"]) - iso_us(x["time"])) <= 50 * MS for x in td)]
            self.check("%s: deadlock victims: time within 50 ms of the app's error" % k, not far,
                       far or "all", "all")
            self.check("%s: finding deserved: deadlocks" % k,
                       any(f["rule"] == "deadlocks" for f in r["findings"]),
                       [f["rule"] for f in r["findings"]], "deadlocks")
            # the deadlock waits' holder: its code path is its route then
            bad, said = [], []
            for w in r["waits"]:
                if w["outcome"] != "deadlock":
                    continue
                truth_route = self.route_at(w["holder_pid"], w["start"])
                got = route_of(w.get("holder_code_path"))
                said.append((w["holder_pid"], w.get("holder_code_path")))
                if got is not None and got != truth_route:
                    bad.append((w["holder_pid"], w.get("holder_code_path"), truth_route))
            self.check("%s: deadlocks: the holder each victim waited for is named by its route (transfer) "
                       "or not named" % k, not bad and said, bad or said, "transfer (or unknown)")
            ers = [e for e in r["errors"] if e["sqlstate"] == "40P01"]
            no = [e["pid"] for e in ers if e["retried"] is False]
            self.check("%s: deadlock victims: none said not retried (the app retried both)" % k, not no,
                       no or [(e["pid"], e["retried"], e["retry_matched_by"]) for e in ers], "retried")
        r = self.rep["zk"]
        vp = [route_of(d.get("victim_code_path")) for d in r["deadlocks"]]
        self.check("zk: deadlock victims' code path is transfer (span route)",
                   vp and all(v == "transfer" for v in vp), [d.get("victim_code_path") for d in r["deadlocks"]],
                   "transfer")
        for k in ("zk", "log"):
            lo = [(f.get("code_path"), f.get("other_code_path"), f.get("first"), f.get("then"))
                  for f in self.rep[k]["findings"] if f["rule"] == "inconsistent_lock_order"]
            self.check("%s: finding deserved: inconsistent lock order (transfer with itself, accounts)" % k,
                       any(route_of(a) == "transfer" and route_of(b) == "transfer" for a, b, _, _ in lo)
                       or (k == "log" and any(x == "accounts" for _, _, x, _ in lo)),
                       lo or "none", "transfer / transfer on accounts")

    # ---- 40001 ----------------------------------------------------------------
    def serialization(self):
        te = [e for e in self.t["errors"] if e["sqlstate"] == "40001"]
        for k in ("zk", "log"):
            r = self.rep[k]
            self.check("%s: serialization failures (40001): count" % k,
                       r["summary"]["serialization_failures"] == len(te),
                       r["summary"]["serialization_failures"], len(te))
            f = next((f for f in r["findings"] if f["rule"] == "retries_after_serialization_failure"), None)
            self.check("%s: finding deserved: retries after serialization failure" % k, f is not None,
                       bool(f), True)
            ret = sum(1 for e in te if e["retried"])
            if f:
                self.check("%s: 40001 retries: the finding's retried + untold covers the app's %d retries" % (k, ret),
                           f["retried"] + f.get("untold", 0) >= ret,
                           "%d + %d untold" % (f["retried"], f.get("untold", 0)), ret)
                self.check("%s: 40001 retries: no more said retried than the app retried" % k,
                           f["retried"] <= ret, f["retried"], ret)
            # per error (listed ones): said not retried while the app retried;
            # each listed error is the app's error of its pid nearest in time
            # within 50 ms, one to one (retry34n: the first within 50 ms
            # paired two errors of one pid 48 ms apart with the same app
            # error, the attempt retried, and judged the second, a last
            # attempt rightly said not retried, wrong)
            wrong, seen, used = [], 0, set()
            for e in sorted((e for e in r["errors"] if e["sqlstate"] == "40001"),
                            key=lambda e: e["time"]):
                near = [(abs(iso_us(x["time"]) - iso_us(e["time"])), i) for i, x in enumerate(te)
                        if i not in used and x["pid"] == e["pid"]
                        and abs(iso_us(x["time"]) - iso_us(e["time"])) <= 50 * MS]
                x = te[min(near)[1]] if near else None
                if near:
                    used.add(min(near)[1])
                seen += 1
                if x and e["retried"] is False and x["retried"]:
                    wrong.append(e["pid"])
            self.check("%s: 40001: none said not retried that the app retried (listed errors)" % k, not wrong,
                       "%d of %d listed" % (len(wrong), seen), 0)
            bad = [e["statement"][:40] for e in r["errors"] if e["sqlstate"] == "40001"
                   and not re.match(r'UPDATE "products"', e["statement"] or "")]
            self.check("%s: serialization failures: each on reprice's UPDATE products" % k, not bad,
                       bad[:3] or "all", "all")

    # ---- rows, waits, holds -------------------------------------------------
    def rows_and_waits(self):
        t = self.t
        thot = {(h["relation"], h["row_key"]) for h in t["hot_rows"]}
        top = (t["hot_rows"][0]["relation"], t["hot_rows"][0]["row_key"])
        log = self.rep["_log"]
        nlog = len(re.findall(r" LOG:  process \d+ (?:still waiting|detected deadlock)", log))
        for k in ("zk", "log"):
            r = self.rep[k]
            rows = [(h["relation"], h["row_key"]) for h in r["hot_rows"]]
            self.check("%s: hot rows: each listed row (by key) is a truth hot row" % k,
                       all(x in thot for x in rows), rows, "truth hot rows")
            self.check("%s: busiest row: warehouses id=1 (196 s of waiting, never logged) first, "
                       "or the ranking said incomplete" % k,
                       (rows and rows[0] == top) or r["summary"]["hidden_waits"].get("hidden_wait_ms") is None,
                       rows[:1], top)
            self.check("%s: logged waits: count (still waiting + deadlock lines)" % k,
                       r["summary"]["waits"] == nlog, r["summary"]["waits"], nlog)
            out = []
            for w in r["waits"]:
                if not w.get("row_key"):
                    continue
                ws = self.twaits.get((w["pid"], w["relation"], w["row_key"]), [])
                s, e = iso_us(w["start"]), iso_us(w["end"])
                if not any(iso_us(x["start"]) - 5 * MS <= s and e <= iso_us(x["end"]) + 5 * MS for x in ws):
                    out.append((w["pid"], w["relation"], w["row_key"]))
            self.check("%s: logged waits: each lies within a truth wait of that pid and row" % k, not out,
                       out or "all", "all")
            bad = []
            for w in r["waits"]:
                hs = self.holds.get((w["holder_pid"], w["relation"], w["row_key"]), [])
                s, e = iso_us(w["start"]), iso_us(w["end"])
                if not any(iso_us(h["start_lo"]) - 5 * MS <= e and iso_us(h["end"]) + 5 * MS >= s for h in hs):
                    bad.append((w["holder_pid"], w["relation"], w["row_key"]))
            self.check("%s: logged waits: the holder pid named held the row during the wait" % k, not bad,
                       bad or "all", "all")
            # the listed holds: a truth hold of that pid, row and time; the
            # code path its route then
            nothold, wrongpath = [], []
            for h in r["holds"]:
                th = self.holds.get((h["pid"], h["relation"], h["row_key"]), [])
                s, e = iso_us(h["start"]), iso_us(h["end"])
                m = [x for x in th if iso_us(x["start_lo"]) - 5 * MS <= s and e <= iso_us(x["end"]) + 5 * MS]
                if not m:
                    nothold.append((h["pid"], h["relation"], h["row_key"], h["start"][11:23]))
                rt = route_of(h.get("code_path"))
                if k == "zk" and rt is not None:
                    ok = any(x["route"] == rt for x in th if iso_us(x["start_lo"]) - 1000 * MS <= s <= iso_us(x["end"]))
                    if not ok:
                        wrongpath.append((h["pid"], h.get("code_path")))
            self.check("%s: holds listed: each is a truth hold of that pid, row and time" % k, not nothold,
                       nothold or "all", "all")
            if k == "zk":
                self.check("zk: holds listed: the code path of each is the route that held the row",
                           not wrongpath, wrongpath or "all", "all")
        # the slow requests (traces): the reserve_stock requests, their lock
        # wait not claimed 0
        sr = self.rep["zk"].get("slow_requests") or []
        names = [x["name"] for x in sr[:5]]
        self.check("zk: slow requests: the slowest are POST /warehouses/1/reserve",
                   names and all(n.startswith("POST /warehouses/1/reserve") for n in names), names[:2],
                   "POST /warehouses/1/reserve")
        zero = [x["name"] for x in sr if x["name"].startswith("POST /warehouses") and x["lock_wait_ms"] == 0]
        self.check("zk: slow requests: reserve_stock's row-lock wait not stated as 0 ms (the log cannot show it)",
                   not zero, zero[:2] or "none 0", "unknown or > 0")
        got = [x["lock_wait_ms"] for x in sr[:5]]
        self.check("zk: slow requests: reserve_stock's row-lock wait given (the locking SELECT's span lasted "
                   "seconds while other requests held the row)", any(g for g in got), got, "> 0")

    # ---- rankings and story ---------------------------------------------------
    def rankings(self):
        t = self.t
        occ = [x["route"] for x in t["rankings"]["occupancy"]]
        blk = [x["route"] for x in t["rankings"]["blocking"]]
        for k in ("zk", "log"):
            r = self.rep[k]
            st = r["story"] or {}
            if st.get("code_path") is None:
                got, ok = "none named (%s)" % (st.get("occupancy_unknown") or "no story")[:60], True
            else:
                got = "%s (%s ms, %s %%)" % (st["code_path"], st["hold_ms"], st["share_pct"])
                ok = route_of(st["code_path"]) == occ[0]
            self.check("%s: story: names reserve_stock (62 %% of hot-row hold time) or says it cannot rank" % k,
                       ok, got, "%s or unknown" % occ[0])
            zero = st.get("code_path") is not None and not st.get("hold_ms")
            self.check("%s: story: no top path named with 0 ms of hold time" % k, not zero, got, "not 0 ms")
            ro = [route_of(x["code_path"]) for x in r["row_occupancy"]]
            self.check("%s: occupancy ranking: reserve_stock first (or no ranking)" % k,
                       not ro or ro[0] == occ[0], ro[:5], occ)
            cp = sorted(r["code_paths"], key=lambda c: -(c.get("waiter_ms_caused") or 0))
            bo = [route_of(c["code_path"]) for c in cp if c.get("waiter_ms_caused")]
            self.check("%s: blocking ranking: reserve_stock first (or none)" % k, not bo or bo[0] == blk[0],
                       bo[:5], blk)
        r = self.rep["zk"]
        src = sorted({c.get("named_by") for c in r["row_occupancy"] + r["code_paths"]})
        self.check("zk: code paths named by span route", src == ["span route"], src, ["span route"])
        ro = [x["code_path"] for x in r["row_occupancy"] + r["code_paths"]]
        self.check("zk: each code path is one route (templated: /transfers/{id}/{id})",
                   all(route_of(c) in occ + ["reprice"] and "{id}" in c for c in ro), sorted(set(ro)), "routes")
        r = self.rep["log"]
        src = sorted({c.get("named_by") for c in r["row_occupancy"] + r["code_paths"]})
        self.check("log: code paths named by transaction shape (one application_name, no spans)",
                   src == ["transaction shape"], src, ["transaction shape"])

    # ---- findings -------------------------------------------------------------
    def findings(self):
        for k in ("zk", "log"):
            r = self.rep[k]
            rules = collections.Counter(f["rule"] for f in r["findings"])
            self.check("%s: finding not deserved: lock queue behind DDL" % k, not rules["lock_queue_behind_ddl"],
                       rules["lock_queue_behind_ddl"], 0)
            self.check("%s: finding not deserved: commit wait at the head (synchronous_commit off)" % k,
                       not rules["commit_wait_head"], rules["commit_wait_head"], 0)
            hc = [f["relation"] for f in r["findings"] if f["rule"] == "hot_counter_row"
                  and f["relation"] in ("warehouses", "accounts", "products")]
            self.check("%s: finding not deserved: hot counter row on warehouses, accounts or products" % k,
                       not hc, hc or "none", "none")
            ec = [f.get("code_path") for f in r["findings"] if f["rule"] == "external_call_in_transaction"
                  and route_of(f.get("code_path")) != "reserve_stock"]
            self.check("%s: finding not deserved: external call in transaction for a path other than "
                       "reserve_stock" % k, not ec, ec or "none", "none")
            lo = [f.get("code_path") for f in r["findings"] if f["rule"] == "inconsistent_lock_order"
                  and route_of(f.get("code_path")) not in ("transfer", None)]
            self.check("%s: finding not deserved: inconsistent lock order for a path other than transfer" % k,
                       not lo, lo or "none", "none")
        r = self.rep["zk"]
        ec = [(f.get("code_path"), f.get("span")) for f in r["findings"]
              if f["rule"] == "external_call_in_transaction" and route_of(f.get("code_path")) == "reserve_stock"]
        self.check("zk: finding deserved: external call in transaction (reserve_stock, GET /quote span)",
                   bool(ec), ec or "none", "reserve_stock, GET 127.0.0.1:55712/quote")
        r = self.rep["log"]
        ec = [f for f in r["findings"] if f["rule"] == "external_call_in_transaction"]
        self.check("log: no external call in transaction claimed (no spans: not in the log)", not ec,
                   len(ec), 0)


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: judge.py LOCKSPAN [SAMPLE_DIR]")
    lockspan = os.path.abspath(sys.argv[1])
    sample = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory(prefix="judge_blind_zk.") as tmp:
        rep = report(lockspan, sample, tmp)
    truth = load(os.path.join(sample, "truth.json"))
    res = Judge(truth, rep).run()
    for x in res:
        print("%-6s %s: lockspan %s, truth %s" % ("ok" if x["ok"] else "WRONG", x["name"], x["lockspan"],
                                                  x["truth"]))
    print("judge.py: %d right, %d wrong" % (sum(x["ok"] for x in res), sum(not x["ok"] for x in res)))


if __name__ == "__main__":
    main()
