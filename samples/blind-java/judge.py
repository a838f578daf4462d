#!/usr/bin/env python3
"""Judge lockspan's report on samples/blind-java against the app's truth.

  judge.py LOCKSPAN [SAMPLE_DIR]

Written blind (from README.md, docs/report-json.md and `lockspan --help`
only). Runs `lockspan analyze --prefix "$(cat prefix.txt)"` on the
committed log, reads the JSON report and prints one line per check:
ok / WRONG, what lockspan says, what the truth says. Exit 0 always (the
verdicts are the output); tests/e2e/check_blind_java.py decides which must
hold.

The log's times are whole seconds (%t). A hold or wait is right when the
range lockspan gives for it (start_lo..start_hi, end_lo..end_hi; a wait's
stamped end's second) contains the truth, converted to the server clock
with the offset the app measured, with 50 ms of slack for the client's
round trip. Code paths are named by lockspan from the SQL (transaction
shape); they are mapped back to the Java methods by their statements.
"""
import collections
import datetime
import gzip
import json
import os
import subprocess
import sys
import tempfile

SLACK_US = 50_000           # client round trip and scheduling around a statement
SECOND_US = 1_000_000


def iso_us(s):
    """ISO 8601 UTC (lockspan's times) -> microseconds since the epoch."""
    d = datetime.datetime.strptime(s.replace("Z", ""), "%Y-%m-%dT%H:%M:%S.%f")
    return int(d.replace(tzinfo=datetime.timezone.utc).timestamp()) * SECOND_US + d.microsecond


def iso(us):
    return datetime.datetime.fromtimestamp(us / SECOND_US, datetime.timezone.utc).strftime("%H:%M:%S.%f")


def method_of(label, statements=None):
    """The Java method behind a lockspan code path (a transaction shape)."""
    text = (statements or "").lower()
    lab = (label or "").lower()
    if "lock_timeout" in text or "last_counted" in text or lab.startswith("set; update warehouses"):
        return "recountShelf"
    if "warehouses" in lab or "warehouses" in text:
        return "reserveShipment"
    if "accounts" in lab or "accounts" in text:
        return "transferCredit"
    if "sum(stock)" in text:
        return "repriceProduct"
    if "orders" in lab or "and version = ?" in text or "insert into orders" in text:
        return "placeOrder"
    if lab.startswith("select products"):
        return "repriceProduct?"          # a shape without statements: ambiguous
    return "?"


def load(path):
    with open(path) as f:
        return json.load(f)


def report(lockspan, sample, tmp):
    with open(os.path.join(sample, "prefix.txt")) as f:
        prefix = f.read()
    log = [os.path.join(sample, n) for n in sorted(os.listdir(sample)) if n.startswith("postgresql.log")]
    out = os.path.join(tmp, "report.json")
    subprocess.run([lockspan, "analyze", "-q", "--prefix", prefix, "-o", out] + log, check=True)
    rep = load(out)
    # the same log without --prefix: the prefix is to be inferred
    out2 = os.path.join(tmp, "report-inferred.json")
    p = subprocess.run([lockspan, "analyze", "-o", out2] + log, stderr=subprocess.PIPE, text=True)
    other = load(out2) if p.returncode == 0 else {}
    def strip(x):
        return {k: v for k, v in x.items() if k != "input"}
    rep["_judge"] = {"same_without_prefix": bool(other) and strip(other) == strip(rep), "prefix": prefix,
                     "inferred": [ln for ln in p.stderr.splitlines() if "inferred log_line_prefix" in ln]}
    return rep


class Judge:
    def __init__(self, truth, rep):
        self.t = truth
        self.r = rep
        self.off = truth["clock"]["offset_us"]
        self.results = []
        # code path label -> statements, from the rankings that carry them
        self.stmts = {}
        for key in ("row_occupancy", "code_paths"):
            for p in rep.get(key) or []:
                if p.get("statements"):
                    self.stmts[p["code_path"]] = p["statements"]

    def m(self, label):
        return method_of(label, self.stmts.get(label))

    def srv(self, us):
        return us + self.off

    def check(self, name, ok, got, want):
        self.results.append({"name": name, "ok": bool(ok), "lockspan": got, "truth": want})

    # ------------------------------------------------------------------
    def run(self):
        t, r = self.t, self.r
        s = r["summary"]
        self.check("log read: no unparsable lines", s["bad_lines"] == 0 and s["records"] > 0,
                   "%d bad of %d lines" % (s["bad_lines"], s["lines"]), "0")
        j = r.get("_judge") or {}
        said = (j.get("inferred") or ["no inference line"])[0].split(": ", 2)[-1]
        self.check("prefix inferred without --prefix: exactly, and the same report",
                   j.get("same_without_prefix") and "'%s'" % j.get("prefix") in said, said,
                   "'%s' (prefix.txt)" % j.get("prefix"))
        self.check("statement logging judged complete (every statement has a duration)",
                   r["input"]["logging"]["verdict"] == "complete", r["input"]["logging"]["verdict"], "complete")
        self.errors()
        self.deadlocks()
        self.rankings()
        self.hot_rows()
        self.waits()
        self.holds()
        self.findings()
        return self.results

    def errors(self):
        t, r, s = self.t, self.r, self.r["summary"]
        by = t["errors_by_sqlstate"]
        self.check("deadlocks: count", s["deadlocks"] == by.get("40P01", 0), s["deadlocks"], by.get("40P01", 0))
        self.check("lock timeouts (55P03): count", s["lock_timeouts"] == by.get("55P03", 0),
                   s["lock_timeouts"], by.get("55P03", 0))
        self.check("serialization failures (40001): count", s["serialization_failures"] == by.get("40001", 0),
                   s["serialization_failures"], by.get("40001", 0))
        self.check("errors: every error the app got, no other", len(r["errors"]) == len(t["errors"]),
                   len(r["errors"]), len(t["errors"]))
        lt = [e for e in r["errors"] if e["sqlstate"] == "55P03"]
        self.check("lock timeouts: each on recountShelf's UPDATE (the error's statement)",
                   lt and all("last_counted" in (e["statement"] or "") for e in lt),
                   collections.Counter(e["statement"] for e in lt).most_common(2), "UPDATE ... last_counted")
        self.check("lock timeouts: each error's code path is recountShelf's",
                   lt and all(self.m(e["code_path"]) == "recountShelf" for e in lt),
                   collections.Counter(e["code_path"] for e in lt).most_common(2),
                   "recountShelf (SET; UPDATE warehouses, as its commits are named)")
        sf = [e for e in r["errors"] if e["sqlstate"] == "40001"]
        self.check("serialization failures: each on repriceProduct's price UPDATE (the error's statement)",
                   sf and all("set price" in (e["statement"] or "").lower() for e in sf),
                   collections.Counter(e["statement"] for e in sf).most_common(2), "UPDATE products SET price ...")
        truth_lt_blockers = collections.Counter(
            b["path"] for w in t["waits"] if w["outcome"] == "lock_timeout" for b in w["blockers"])
        causes = collections.Counter(self.m(e["cause_code_path"]) if e["cause_code_path"] else None for e in lt)
        self.check("lock timeouts: the holder named (reserveShipment held warehouses id=1)",
                   causes.get("reserveShipment", 0) == len(lt), dict(causes), dict(truth_lt_blockers))
        # retries
        rt = t["retries"]
        f = [x for x in r["findings"] if x["rule"] == "retries_after_serialization_failure"]
        got = f[0]["retried"] if f else None
        want = rt.get("40001", {}).get("retried", 0)
        self.check("40001 retries: retried count (finding) within 10 % of the truth",
                   got is not None and abs(got - want) <= max(1, 0.1 * want),
                   "%s retried" % got, "%d of %d retried (%d on the same pooled connection, %d on another)"
                   % (want, rt["40001"]["failures"], rt["40001"]["retried_on_same_pid"],
                      want - rt["40001"]["retried_on_same_pid"]))
        agree, n = self.retry_agree("40001")
        self.check("40001: retried exactly where the retry ran on the same connection (session order)",
                   n and agree == n, "%d of %d" % (agree, n), n)
        got = sum(1 for e in r["errors"] if e["sqlstate"] == "40P01" and e["retried"])
        want = rt.get("40P01", {}).get("retried", 0)
        self.check("deadlock victims retried: count", got == want, got,
                   "%d (%d on the same pid)" % (want, rt["40P01"]["retried_on_same_pid"]))
        # per victim: lockspan matches retries by session order, so a retry on
        # the same pooled connection is what it can find
        agree, n = self.retry_agree("40P01")
        self.check("deadlock victims: retried exactly where the retry ran on the same connection",
                   n and agree == n, "%d of %d" % (agree, n), n)
        got = sum(1 for e in lt if e["retried"])
        self.check("lock timeouts marked retried (recountShelf never retries)", got == 0, got, 0)

    def retry_agree(self, state):
        """lockspan matches a retry by the session's log order (no traces), so
        a retry on the same pooled connection is what it can find, or (issue
        34, `retry_matched_by` "parameters") one on another connection told
        by the failed statement's parameters, right where the app retried
        on that pid: of its
        errors of this SQLSTATE, how many say retried exactly when the app's
        next attempt ran on the same pid (each matched one to one, by pid and
        the log's second)."""
        todo = [e for e in self.t["errors"] if e["sqlstate"] == state]
        agree = n = 0
        for e in self.r["errors"]:
            if e["sqlstate"] != state:
                continue
            n += 1
            lo = iso_us(e["time"])
            x = next((c for c in todo if c["pid"] == e["pid"]
                      and lo - SLACK_US <= self.srv(c["time_us"]) <= lo + SECOND_US + SLACK_US), None)
            if x:
                todo.remove(x)
                if e.get("retry_matched_by") == "parameters":
                    # issue 34: told by its parameters on another connection
                    agree += bool(x["retried"] and not x["retry_same_pid"]
                                  and x.get("retry_pid") == e.get("retry_pid"))
                else:
                    agree += bool(e["retried"]) == x["retry_same_pid"]
        return agree, n

    def deadlocks(self):
        t, r = self.t, self.r
        tds = sorted(t["deadlocks"], key=lambda d: d["time_us"])
        used, matched, bad_partner = set(), 0, []
        for d in tds:
            ts = self.srv(d["time_us"])
            for i, x in enumerate(r["deadlocks"]):
                lo = iso_us(x["time"])
                if i in used or x["victim_pid"] != d["victim_pid"] or not lo - SLACK_US <= ts <= lo + SECOND_US + SLACK_US:
                    continue
                used.add(i)
                matched += 1
                blk = [e["blocker_pid"] for e in x["edges"] if e["waiter_pid"] == d["victim_pid"]]
                if not blk or blk[0] not in d["other_pids"]:
                    bad_partner.append((d["victim_pid"], blk, d["other_pids"]))
                break
        self.check("deadlock victims: pid and time (within the log's second)",
                   matched == len(tds) == len(r["deadlocks"]), "%d of %d matched" % (matched, len(r["deadlocks"])),
                   len(tds))
        self.check("deadlock victims: the process the victim waited for held the row it wanted",
                   matched and not bad_partner, bad_partner or "all", "all")
        paths = collections.Counter(self.m(x["victim_code_path"]) for x in r["deadlocks"])
        paths.update(self.m(e["blocker_code_path"]) for x in r["deadlocks"] for e in x["edges"])
        self.check("deadlocks: victims and partners are transferCredit", set(paths) == {"transferCredit"},
                   dict(paths), "transferCredit only")

    def rankings(self):
        t, r = self.t, self.r
        hot = {"%s:%s" % (h["relation"], h["row_key"].split("=")[1]) for h in r["hot_rows"]
               if h["row_key"].startswith("id=")}
        truth_occ = collections.defaultdict(float)
        truth_holds = collections.Counter()
        for h in t["holds"]:
            if "%s:%d" % (h["relation"], h["row"]) in hot:
                truth_occ[h["path"]] += h["held_ms"]
                truth_holds[h["path"]] += 1
        occ = collections.defaultdict(lambda: [0.0, 0.0, 0.0, 0, 0])   # est, min, max, holds, shapes
        for p in r["row_occupancy"]:
            o = occ[self.m(p["code_path"])]
            o[0] += p["total_hold_ms"]
            o[1] += p.get("total_hold_min_ms", p["total_hold_ms"])
            o[2] += p.get("total_hold_max_ms", p["total_hold_ms"])
            o[3] += p["holds"]
            o[4] += 1
        top = self.m(r["story"]["code_path"]) if r.get("story") else None
        want = t["rankings"]["occupancy"][0]["path"]
        self.check("top code path by row occupancy (story)", top == want,
                   "%s (%s)" % (top, r["story"]["code_path"] if r.get("story") else None), want)
        tb = t["rankings"]["blocking"]
        top_b = self.m(r["code_paths"][0]["code_path"]) if r["code_paths"] else None
        self.check("top code path by blocking (code_paths[0])", top_b == tb[0]["path"],
                   "%s (%s, %.1f s caused)" % (top_b, r["code_paths"][0]["code_path"],
                                               r["code_paths"][0]["waiter_ms_caused"] / 1000),
                   "%s (%.1f s caused; %s %.1f s)" % (tb[0]["path"], tb[0]["waiter_ms_caused"] / 1000,
                                                     tb[1]["path"], tb[1]["waiter_ms_caused"] / 1000))
        q = collections.defaultdict(float)
        for p in r.get("row_queueing") or []:
            q[self.m(p["code_path"])] += p["hidden_wait_ms_caused"] + p["logged_wait_ms_caused"]
        order_q = [k for k, v in sorted(q.items(), key=lambda kv: -kv[1]) if v > 0]
        order_tb = [x["path"] for x in tb if x["waiter_ms_caused"] >= 1000]
        self.check("top code path by queueing caused, logged and hidden (row_queueing[0])",
                   r.get("row_queueing") and self.m(r["row_queueing"][0]["code_path"]) == tb[0]["path"],
                   "%s (%s)" % (self.m(r["row_queueing"][0]["code_path"]), r["row_queueing"][0]["code_path"])
                   if r.get("row_queueing") else None, tb[0]["path"])
        self.check("queueing order of the Java methods causing 1 s+ (row_queueing, shapes merged)",
                   order_q[:len(order_tb)] == order_tb,
                   ", ".join("%s %.1f s" % (k, q[k] / 1000) for k in order_q),
                   ", ".join("%s %.1f s" % (x["path"], x["waiter_ms_caused"] / 1000) for x in tb if x["path"] in order_tb))
        order_ls = [k for k, v in sorted(occ.items(), key=lambda kv: -kv[1][0]) if v[0] > 0]
        order_t = [k for k, v in sorted(truth_occ.items(), key=lambda kv: -kv[1]) if v >= 1000]
        self.check("occupancy order of the Java methods with 1 s+ on lockspan's hot rows (shapes merged)",
                   order_ls[:len(order_t)] == order_t, order_ls, order_t)
        for path in ("reserveShipment", "transferCredit"):
            o = occ.get(path)
            want = truth_occ.get(path, 0.0)
            self.check("occupancy of %s: lockspan's range contains the truth (its hot rows)" % path,
                       o is not None and o[1] - 1 <= want <= o[2] + 1,
                       "%.1f s (%.1f-%.1f s)" % (o[0] / 1000, o[1] / 1000, o[2] / 1000) if o else None,
                       "%.1f s" % (want / 1000))
            self.check("occupancy of %s: estimate within 10 %% of the truth" % path,
                       o is not None and abs(o[0] - want) <= 0.1 * want,
                       "%.1f s" % (o[0] / 1000) if o else None, "%.1f s" % (want / 1000))
            rows = {(h["relation"], h["row"]) for h in t["holds"] if h["path"] == path
                    and "%s:%d" % (h["relation"], h["row"]) in hot}
            span = iso_us(r["summary"]["time_range"]["end"]) - iso_us(r["summary"]["time_range"]["start"]) + SECOND_US
            cap = len(rows) * span / 1000
            self.check("occupancy of %s: the range's max is possible (its hot rows x the log's %d s)"
                       % (path, span // SECOND_US),
                       o is not None and o[2] <= cap, "max %.1f s" % (o[2] / 1000) if o else None,
                       "at most %.1f s (%d rows)" % (cap / 1000, len(rows)))
            self.check("holds of %s on the hot rows: count" % path,
                       o is not None and o[3] == truth_holds.get(path, 0), o[3] if o else None,
                       truth_holds.get(path, 0))
        many = {k: v[4] for k, v in occ.items() if v[4] > 1}
        self.check("each Java method is one code path (no method split into shapes)", not many,
                   {k: [p["code_path"] for p in r["row_occupancy"] if self.m(p["code_path"]) == k] for k in many}
                   or "one each", "one path per method")

    def hot_rows(self):
        t, r = self.t, self.r
        listed = ["%s:%s" % (h["relation"], h["row_key"].split("=")[1]) for h in r["hot_rows"]
                  if h["row_key"].startswith("id=")]
        over1s = [h["row"] for h in t["hot_rows"] if h["wait_ms_over_deadlock_timeout"] > 0]
        self.check("hot rows: every row with a wait of 1 s+ is listed", set(over1s) <= set(listed), listed, over1s)
        total1s = [h["row"] for h in t["hot_rows"] if h["total_wait_ms"] >= 1000]
        self.check("hot rows: every row with 1 s+ of waiting in all is listed (sub-second waits rebuilt)",
                   set(total1s) <= set(listed), listed, total1s)
        self.check("busiest hot row (hot_rows[0]) is the row waited for longest", listed[:1] == [t["hot_rows"][0]["row"]],
                   listed[:1], "%s (%.1f s of waiting; next %s %.1f s)" % (
                       t["hot_rows"][0]["row"], t["hot_rows"][0]["total_wait_ms"] / 1000,
                       t["hot_rows"][1]["row"], t["hot_rows"][1]["total_wait_ms"] / 1000))
        w1 = next((h for h in r["hot_rows"] if h["relation"] == "warehouses" and h["row_key"] == "id=1"), None)
        # the statements that waited and then ran (a 55P03 logs no duration)
        want = sum(w["waited_ms"] for w in t["waits"] if w["relation"] == "warehouses" and w["row"] == 1
                   and w["outcome"] == "acquired")
        got = (w1["hidden_wait_ms"] + w1["logged_wait_ms"]) if w1 else None
        self.check("warehouses id=1: queueing (logged + hidden) within 25 % of the truth's completed waits",
                   got is not None and abs(got - want) <= 0.25 * want,
                   "%.1f s" % (got / 1000) if got is not None else None,
                   "%.1f s (%d statements; with the 55P03 ones %.1f s)" % (
                       want / 1000, sum(1 for w in t["waits"] if w["relation"] == "warehouses" and w["row"] == 1
                                        and w["outcome"] == "acquired"),
                       next(h["total_wait_ms"] for h in t["hot_rows"] if h["row"] == "warehouses:1") / 1000))

    def waits(self):
        t, r = self.t, self.r
        tw = collections.defaultdict(list)
        for w in t["waits"]:
            tw[(w["pid"], w["relation"], w["row"])].append(w)
        inside, holder_ok, n = 0, 0, 0
        bad = []
        for w in r["waits"]:
            if not (w.get("row_key") or "").startswith("id="):
                continue
            n += 1
            key = (w["pid"], w["relation"], int(w["row_key"][3:]))
            end_lo = iso_us(w["end"]) // SECOND_US * SECOND_US
            end_hi = end_lo + SECOND_US
            dur = int(w["waited_ms"] * 1000)
            hit = None
            for x in tw.get(key, []):
                a, b = self.srv(x["start_us"]) - SLACK_US, self.srv(x["end_us"]) + SLACK_US
                if max(end_lo, a + dur) <= min(end_hi, b):
                    hit = x
                    break
            if hit:
                inside += 1
                hp = w.get("holder_pid") or w.get("blocker_pid")
                if hp in {bl["pid"] for bl in hit["blockers"]}:
                    holder_ok += 1
            else:
                bad.append((w["pid"], w["row_key"], w["end"], w["waited_ms"]))
        self.check("logged waits: each lies within a truth wait of that pid and row (whole-second stamps)",
                   n and inside == n, "%d of %d%s" % (inside, n, (" (not: %s)" % bad[:3]) if bad else ""), n)
        self.check("logged waits: the holder named held the row during the wait", n and holder_ok == inside,
                   "%d of %d" % (holder_ok, inside), inside)
        self.check("logged waits: count (13 still-waiting + 7 deadlock lines; the truth has 66 waits of 1 s+)",
                   r["summary"]["waits"] == 20, r["summary"]["waits"],
                   "%d waits of 1 s+" % sum(w["over_deadlock_timeout"] for w in t["waits"]))

    def holds(self):
        t, r = self.t, self.r
        th = collections.defaultdict(list)
        for h in t["holds"]:
            th[(h["pid"], h["relation"], h["row"])].append(h)
        listed = list(r["holds"])
        for h in r["hot_rows"]:
            for x in h["timeline"]["holds"]:
                listed.append(dict(x, relation=h["relation"], row_key=h["row_key"]))
        seen, used, n, start_ok, end_ok, known = set(), set(), 0, 0, 0, 0
        bad = []
        for h in listed:
            if not h["row_key"].startswith("id="):
                continue
            k = (h["pid"], h["relation"], h["row_key"], h["start"], h["end"])
            if k in seen:
                continue
            seen.add(k)
            n += 1
            key = (h["pid"], h["relation"], int(h["row_key"][3:]))
            s_lo = iso_us(h.get("start_lo") or h["start"]) - SLACK_US
            s_hi = iso_us(h.get("start_hi") or h["start"]) + SLACK_US
            e_lo = iso_us(h.get("end_lo") or h["end"]) - SLACK_US
            e_hi = iso_us(h.get("end_hi") or h["end"]) + SLACK_US
            cands = [x for x in th.get(key, []) if id(x) not in used
                     and self.srv(x["acquired_us"]) < e_hi + SECOND_US and self.srv(x["released_us"]) > s_lo - SECOND_US]
            if not cands:
                bad.append(("no truth hold", h["pid"], h["row_key"], h["start"]))
                continue
            known += 1
            # the truth hold its ranges fit best (a pid takes the same row again and again)
            x = max(cands, key=lambda c: ((s_lo <= self.srv(c["acquired_us"]) <= s_hi)
                                          + (e_lo <= self.srv(c["released_us"]) <= e_hi),
                                          -abs(self.srv(c["acquired_us"]) - iso_us(h["start"]))))
            used.add(id(x))
            ok_s = s_lo <= self.srv(x["acquired_us"]) <= s_hi
            ok_e = e_lo <= self.srv(x["released_us"]) <= e_hi
            start_ok += ok_s
            end_ok += ok_e
            if not (ok_s and ok_e):
                bad.append((h["pid"], h["row_key"], h.get("start_lo"), h.get("start_hi"), h.get("end_lo"),
                            h.get("end_hi"), h.get("end_evidence"), x["path"], x["outcome"],
                            iso(self.srv(x["acquired_us"])), iso(self.srv(x["released_us"]))))
        self.check("holds listed: each is a truth hold of that pid and row", n and known == n,
                   "%d of %d" % (known, n), n)
        self.check("holds listed: start range (start_lo..start_hi) contains the truth's lock time",
                   known and start_ok == known, "%d of %d" % (start_ok, known), known)
        self.check("holds listed: end range (end_lo..end_hi) contains the truth's COMMIT/ROLLBACK",
                   known and end_ok == known, "%d of %d%s" % (end_ok, known, (" (not: %s)" % bad[:3]) if bad else ""),
                   known)

    def findings(self):
        t, r = self.t, self.r
        fs = r["findings"]
        rules = collections.Counter(f["rule"] for f in fs)

        def has(rule, pred=lambda f: True):
            return [f for f in fs if f["rule"] == rule and pred(f)]

        self.check("finding deserved: deadlocks", has("deadlocks"), rules.get("deadlocks", 0), 1)
        lo = has("inconsistent_lock_order")
        self.check("finding deserved: inconsistent lock order, transferCredit against itself on accounts",
                   lo and all(self.m(f["code_path"]) == self.m(f["other_code_path"]) == "transferCredit"
                              and f["first"] == f["then"] == "accounts" for f in lo),
                   [(f["code_path"], f["other_code_path"], f["deadlocks"]) for f in lo], "transferCredit x itself")
        self.check("inconsistent lock order: all the deadlocks counted", sum(f["deadlocks"] for f in lo) ==
                   len(t["deadlocks"]), sum(f["deadlocks"] for f in lo), len(t["deadlocks"]))
        idle = has("idle_in_transaction_head", lambda f: self.m(f["code_path"]) == "reserveShipment")
        self.check("finding deserved: reserveShipment idle in transaction at the head (its carrier call)",
                   idle, [(f["code_path"], f["idle_ms"]) for f in idle], "reserveShipment")
        want = t["paths"]["reserveShipment"]["idle_while_waited_for_ms"]
        got = sum(f["idle_ms"] for f in idle)
        self.check("reserveShipment idle while waited for: within 25 % of the truth's carrier-call time",
                   abs(got - want) <= 0.25 * want, "%.1f s" % (got / 1000), "%.1f s" % (want / 1000))
        tr = has("idle_in_transaction_head", lambda f: self.m(f["code_path"]) == "transferCredit")
        want = t["paths"]["transferCredit"]["idle_while_waited_for_ms"]
        got = sum(f["idle_ms"] for f in tr)
        nh = sum(f["holds"] for f in tr)
        self.check("transferCredit idle: no more than its fraud checks while waited for (+1 s a hold)",
                   got <= want + 1000 * nh, "%.1f s in %d holds" % (got / 1000, nh),
                   "%.1f s of fraud checks (a deadlock victim waits, it is not idle)" % (want / 1000))
        self.check("finding deserved: retries after serialization failure",
                   has("retries_after_serialization_failure"), rules.get("retries_after_serialization_failure", 0), 1)
        self.check("finding deserved: hidden waiting on warehouses id=1",
                   has("hidden_waiting", lambda f: f["relation"] == "warehouses" and f["row"] == "id=1"),
                   [(f["relation"], f["row"]) for f in has("hidden_waiting")], "warehouses id=1")
        self.check("finding deserved: serial capacity of warehouses id=1",
                   has("serial_capacity", lambda f: f["relation"] == "warehouses" and f["row"] == "id=1"),
                   [(f["relation"], f["row"]) for f in has("serial_capacity")], "warehouses id=1")
        self.check("finding not deserved: external call in transaction (no traces)",
                   not has("external_call_in_transaction"), rules.get("external_call_in_transaction", 0), 0)
        self.check("finding not deserved: hot counter row on warehouses or accounts",
                   not has("hot_counter_row", lambda f: f["relation"] in ("warehouses", "accounts")),
                   [(f["relation"], f["row"]) for f in has("hot_counter_row")], "none there")
        self.check("finding not deserved: lock queue behind DDL", not has("lock_queue_behind_ddl"),
                   rules.get("lock_queue_behind_ddl", 0), 0)
        # accounts rows: the truth's busiest 4 s on each (transactions that took or waited for it)
        for f in has("serial_capacity", lambda f: f["relation"] == "accounts"):
            row = int(f["row"][3:])
            times = sorted(self.srv(h["stmt_call_us"]) for h in t["holds"]
                           if h["relation"] == "accounts" and h["row"] == row)
            win = int(f["window_s"] * SECOND_US) or SECOND_US
            most = max(sum(1 for y in times if x <= y < x + win) for x in times) if times else 0
            self.check("serial capacity of accounts %s: transactions in its window no more than the truth's "
                       "busiest %g s" % (f["row"], f["window_s"]), f["transactions"] <= most,
                       "%d in %g s" % (f["transactions"], f["window_s"]), "at most %d" % most)
        d = (r.get("story") or {}).get("doing") or {}
        self.check("story: the top path's holds were mostly idle in transaction (its carrier call)",
                   d.get("part") == "idle", d.get("name"), "idle in transaction (carrier API call)")


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: judge.py LOCKSPAN [SAMPLE_DIR]")
    lockspan = os.path.abspath(sys.argv[1])
    sample = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory(prefix="blind_java_judge.") as tmp:
        rep = report(lockspan, sample, tmp)
    for x in Judge(load(os.path.join(sample, "truth.json")), rep).run():
        print("%-5s %s: lockspan %s, truth %s" % ("ok" if x["ok"] else "WRONG", x["name"], x["lockspan"], x["truth"]))


if __name__ == "__main__":
    main()
