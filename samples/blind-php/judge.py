#!/usr/bin/env python3
"""Judge lockspan on samples/blind-php, blind: written from README.md,
docs/report-json.md and `lockspan --help` only, against the truth the PHP
app recorded (truth.json.gz, app/build_truth.py).

  judge.py LOCKSPAN [SAMPLE_DIR]     # prints each check; exit 0

Each check is {"name", "ok", "lockspan", "truth"}. For what the log cannot
show, the right answer is that lockspan says it cannot know; a confident
wrong answer is the worst result. tests/e2e/check_blind_php.py asserts the
checks lockspan gets right (MUST_HOLD) and lists the rest as XFAIL."""
import collections
import datetime
import glob
import gzip
import json
import os
import re
import subprocess
import sys

PREFIX = "%t [%p]: [%l-1] user=%u,db=%d,app=%a,client=%h "
SEC = 1_000_000


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def report(lockspan, sample, tmp):
    """`lockspan analyze` the committed log as a DBA would (no --prefix: it
    is inferred; every error listed); the JSON report with `_stderr`."""
    out = os.path.join(tmp, "report.json")
    logs = sorted(glob.glob(os.path.join(sample, "postgresql.log*")))
    p = subprocess.run([lockspan, "analyze", "--max-errors", "1000", "--max-waits", "1000",
                        "-o", out] + logs, capture_output=True, text=True,
                       env=dict(os.environ, TZ="UTC"))
    if p.returncode != 0:
        sys.exit("lockspan analyze failed (%d): %s" % (p.returncode, p.stderr))
    rep = load(out)
    rep["_stderr"] = p.stderr
    rep["_log"] = logs
    return rep


def us(iso):
    return int(datetime.datetime.strptime(iso, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp() * SEC)


def fn_of(shape):
    """The PHP function a transaction shape belongs to (app/worker.php): by
    the relations and verbs its statements name."""
    if not shape:
        return None
    s = shape.upper()
    if "ACCOUNTS" in s:
        return "transfer"
    if "SELECT FOR UPDATE WAREHOUSES" in s:
        return "reserve_stock"
    if "WAREHOUSES" in s and s.startswith("SET"):
        return "restock"
    if "PRODUCTS" in s or "ORDERS" in s:
        return "place_order"
    if "PAGES" in s:
        return "hit_page"
    return None


def rowkey(rel, key):
    return "%s %s" % (rel, key)


class Judge:
    def __init__(self, truth, rep):
        self.t = truth
        self.r = rep
        self.off = truth["clock"]["offset_us"]
        self.out = []

    def check(self, name, ok, got, want):
        self.out.append({"name": name, "ok": bool(ok), "lockspan": got, "truth": want})

    # truth on the server's clock
    def ts(self, x):
        return x + self.off

    # a whole-second stamp (%t) and the app's time of the same event: the
    # client sees it after the server (up to 50 ms here)
    def in_second(self, iso, truth_us):
        st = us(iso)
        return st - 50_000 <= self.ts(truth_us) < st + SEC + 50_000

    def log_text(self):
        lines = []
        for f in self.r["_log"]:
            with (gzip.open(f, "rt", encoding="utf-8") if f.endswith(".gz") else open(f)) as fh:
                lines.extend(fh)
        return lines

    def run(self):
        t, r = self.t, self.r
        s = r["summary"]
        err = r["_stderr"]
        lines = self.log_text()

        # ---- reading the log
        self.check("stderr read: no unparsable lines", s["bad_lines"] == 0, s["bad_lines"], 0)
        m = re.search(r"inferred log_line_prefix '([^']*)'", err)
        self.check("log_line_prefix inferred (pgBadger's, %t whole seconds)",
                   m is not None and m.group(1) == PREFIX, m.group(1) if m else None, PREFIX)
        self.check("French server messages recognised", "server messages in fr" in err,
                   "fr" if "server messages in fr" in err else err.strip().splitlines()[:2], "fr")
        # every execute and simple query has a duration line; a statement that
        # failed has none, its ERROR line instead (not the 25P02 of PDO's
        # DEALLOCATE in the aborted transaction: that one never ran)
        execs = sum(1 for ln in lines if re.search(r"LOG:  durée : [0-9.]+ ms(  exécute |, instruction : )", ln))
        failed = sum(1 for ln in lines if " ERREUR:  " in ln and "la transaction est annulée" not in ln)
        self.check("statements: each PDO execute or simple query once (parse and bind lines folded; "
                   "a failed one from its ERROR, not the 25P02 DEALLOCATE)",
                   s["statements"] == execs + failed, s["statements"], execs + failed)
        lg = r["input"]["logging"]
        self.check("statement logging judged complete (log_min_duration_statement = 0)",
                   lg["verdict"] == "complete", lg["verdict"], "complete")
        self.check("no hold marked a lower bound (BEGIN/COMMIT logged with durations)",
                   lg["holds_at_least"] == 0, lg["holds_at_least"], 0)
        ident = r.get("code_path_identity") or {}
        self.check("code paths named by transaction shape (no application_name: %a is [inconnu])",
                   ident.get("fallback") == "transaction shape", ident.get("fallback"), "transaction shape")

        # ---- deadlocks
        tdl = t["deadlocks"]
        self.check("deadlocks: count", s["deadlocks"] == len(tdl), s["deadlocks"], len(tdl))
        lv = sorted(d["victim_pid"] for d in r["deadlocks"])
        tv = sorted(d["victim_pid"] for d in tdl)
        self.check("deadlock victims: pids", lv == tv, lv, tv)
        bad = []
        for d in r["deadlocks"]:
            near = [x for x in tdl if x["victim_pid"] == d["victim_pid"]
                    and self.in_second(d["time"], x["time_us"])]
            if not near:
                bad.append(d["time"])
        self.check("deadlock victims: time within the second of the app's error (whole-second log)",
                   not bad and r["deadlocks"], bad or "all", "all")
        vp = sorted({fn_of(d.get("victim_code_path")) for d in r["deadlocks"]}, key=str)
        self.check("deadlock victims' code path is transfer's shape (accounts)", vp == ["transfer"], vp,
                   ["transfer"])
        rules = collections.defaultdict(list)
        for f in r["findings"]:
            rules[f["rule"]].append(f)
        self.check("finding deserved: deadlocks", bool(rules["deadlocks"]), len(rules["deadlocks"]), 1)
        ilo = rules["inconsistent_lock_order"]
        ilo_fns = sorted({(fn_of(f.get("code_path")), fn_of(f.get("other_code_path"))) for f in ilo}, key=str)
        self.check("finding deserved: inconsistent lock order (transfer with itself, accounts)",
                   any(a == "transfer" and b == "transfer" and f.get("first") == "accounts"
                       for f in ilo for a, b in [(fn_of(f.get("code_path")), fn_of(f.get("other_code_path")))]),
                   ilo_fns, [("transfer", "transfer")])
        self.check("finding not deserved: inconsistent lock order for a path other than transfer",
                   all(p == ("transfer", "transfer") for p in ilo_fns), ilo_fns, [("transfer", "transfer")])
        le40 = [e for e in r["errors"] if e["sqlstate"] == "40P01"]
        said_no = [e["pid"] for e in le40 if e["retried"] is False]
        self.check("deadlock victims: none said not retried (the app retried all 4, each committed)",
                   not said_no, said_no or "none", "none")
        untold = [e for e in le40 if e["retried"] is None]
        self.check("deadlock victims: each said retried, or untold with the reason",
                   all(e["retried"] is True or (e["retried"] is None and e.get("retry_untold")) for e in le40)
                   and len(le40) == len(tdl),
                   "%d retried, %d untold" % (sum(e["retried"] is True for e in le40), len(untold)),
                   "%d retried" % len(tdl))
        said = collections.Counter(str(e["retried"]) for e in le40)
        self.check("deadlock victims: each said retried", said.get("True", 0) == len(tdl), dict(said),
                   {"True": len(tdl)})

        # ---- lock timeouts (55P03, SET LOCAL lock_timeout = '150ms' in restock)
        te = [e for e in t["errors"] if e["sqlstate"] == "55P03"]
        self.check("lock timeouts (55P03): count", s["lock_timeouts"] == len(te), s["lock_timeouts"], len(te))
        le = [e for e in r["errors"] if e["sqlstate"] == "55P03"]
        self.check("lock timeouts: every one listed (--max-errors 1000)", len(le) == len(te), len(le), len(te))
        by_pid_t = collections.defaultdict(list)
        for e in sorted(te, key=lambda e: e["time_us"]):
            by_pid_t[e["pid"]].append(e)
        by_pid_l = collections.defaultdict(list)
        for e in le:
            by_pid_l[e["pid"]].append(e)
        pairs = []
        for pid, es in by_pid_l.items():
            for a, b in zip(es, by_pid_t.get(pid, [])):
                pairs.append((a, b))
        timed = sum(self.in_second(a["time"], b["time_us"]) for a, b in pairs)
        self.check("lock timeouts: each (pid, k-th) within the second of the app's error",
                   timed == len(te) == len(pairs), timed, len(te))
        named = [(a, b) for a, b in pairs if a.get("cause_pid") is not None]
        wrong = [(a["pid"], a["time"], a["cause_pid"]) for a, b in named
                 if a["cause_pid"] not in {h["pid"] for h in b["holders"]}]
        self.check("lock timeouts: each cause named is a truth holder of the row in its last 150 ms",
                   not wrong, "%d named, %d wrong %s" % (len(named), len(wrong), wrong[:3]),
                   "%d errors" % len(te))
        untold = sum(1 for a, b in pairs if a.get("cause_pid") is None)
        self.check("lock timeouts: a cause named for at least 90 % (or said untold)",
                   len(named) >= 0.9 * len(pairs) and all(a.get("cause_untold") for a, b in pairs
                                                          if a.get("cause_pid") is None),
                   "%d named, %d untold" % (len(named), untold), len(pairs))
        cpw = collections.Counter(fn_of(a.get("cause_code_path")) for a, b in named)
        tcp = collections.Counter(h["path"] for a, b in named for h in b["holders"][:1])
        self.check("lock timeouts: causes are mostly reserve_stock (the HTTP call holding warehouses)",
                   cpw.most_common(1)[0][0] == "reserve_stock" if cpw else False, dict(cpw), dict(tcp))
        said_no = [(a["pid"], a["time"]) for a, b in pairs if a["retried"] is False and b["retried"]]
        said_yes = [(a["pid"], a["time"]) for a, b in pairs if a["retried"] is True and not b["retried"]]
        self.check("lock timeouts: none said not retried that the app retried",
                   not said_no, "%d wrong %s" % (len(said_no), said_no[:2]),
                   "%d retried" % sum(b["retried"] for a, b in pairs))
        self.check("lock timeouts: none said retried that the app did not retry (3rd try failed)",
                   not said_yes, "%d wrong %s" % (len(said_yes), said_yes[:2]),
                   "%d not retried" % sum(not b["retried"] for a, b in pairs))
        # added by phpretry34 (issue 34), not blind: untold is allowed, but
        # the log shows each retry's bind parameters on the failed pid
        told = sum(a["retried"] is not None for a, b in pairs)
        self.check("lock timeouts: the retry told (not untold) for at least 90 % (the log shows "
                   "each retry's bind parameters on the same pid)",
                   told >= 0.9 * len(pairs), "%d told, %d untold" % (told, len(pairs) - told),
                   len(pairs))

        # ---- logged waits
        tw = t["waits"]
        bad, badh = [], []
        for w in r["waits"]:
            st, en = us(w["start"]), us(w["end"])
            rk = w.get("row_key")
            mt = [x for x in tw if x["pid"] == w["pid"] and x["row"] == rk and x["relation"] == w["relation"]
                  and self.ts(x["start_us"]) - SEC <= st and en <= self.ts(x["end_us"]) + SEC]
            if not mt:
                bad.append((w["pid"], w["start"]))
            hold = [h for h in t["holds"] if h["pid"] == w.get("holder_pid") and h["relation"] == w["relation"]
                    and h["row"] == rk and self.ts(h["start_us"]) - SEC < en and self.ts(h["end_us"]) + SEC > st]
            if not hold:
                badh.append((w["pid"], w["start"], w.get("holder_pid")))
        self.check("logged waits: each lies within a truth wait of that pid and row",
                   not bad and r["waits"], bad or len(r["waits"]), "all")
        self.check("logged waits: the holder pid named held the row during the wait",
                   not badh and r["waits"], badh or len(r["waits"]), "all")

        # ---- hot rows
        thr = [x for x in t["hot_rows"] if x["hot"]]
        tkeys = {rowkey(x["relation"], x["row"]) for x in thr}
        lh = r["hot_rows"]
        lkeys = [rowkey(h["relation"], h["row_key"]) for h in lh]
        self.check("hot rows: each listed row (by key) is a truth hot row", set(lkeys) <= tkeys,
                   sorted(set(lkeys) - tkeys) or len(lkeys), "subset")
        top = rowkey(thr[0]["relation"], thr[0]["row"])
        self.check("busiest row: warehouses id=1 first (%.1f s of waiting, %.0f %% below deadlock_timeout)"
                   % (thr[0]["wait_ms"] / 1000, thr[0]["hidden_share_pct"]),
                   lkeys[:1] == [top], lkeys[:1], top)
        m = re.search(r"busiest row ([^,]*),", err)
        self.check("stderr's last line: busiest row warehouses id=1", m and m.group(1) == top,
                   m.group(1) if m else None, top)
        w1 = next((h for h in lh if rowkey(h["relation"], h["row_key"]) == top), None)
        got = (w1["total_wait_ms"] + w1["hidden_wait_ms"]) if w1 else None
        self.check("hot rows: warehouses id=1's waiting within 25 %% of the truth's %.1f s" % (thr[0]["wait_ms"] / 1000),
                   got is not None and abs(got - thr[0]["wait_ms"]) <= 0.25 * thr[0]["wait_ms"],
                   round(got) if got else None, round(thr[0]["wait_ms"]))
        hidden_t = sum(x["waited_ms"] for x in tw if not x["logged"])
        hw = s["hidden_waits"]
        got = hw.get("hidden_wait_ms")
        self.check("hidden waits (below deadlock_timeout) rebuilt: within a factor of 2 of the truth's %.1f s"
                   % (hidden_t / 1000), got is not None and hidden_t / 2 <= got <= hidden_t * 2,
                   got, round(hidden_t, 1))

        # ---- holds listed
        bad, badp, badms = [], [], []
        for h in r["holds"]:
            st, en = us(h["start"]), us(h["end"])
            rk = h.get("row_key")
            mt = [x for x in t["holds"] if x["pid"] == h["pid"] and x["row"] == rk and x["relation"] == h.get("relation")
                  and abs(self.ts(x["start_us"]) - st) <= 1.5 * SEC and abs(self.ts(x["end_us"]) - en) <= 1.5 * SEC]
            if not mt:
                bad.append((h["pid"], h["start"], h.get("relation"), rk))
                continue
            x = min(mt, key=lambda x: abs(self.ts(x["start_us"]) - st))
            if fn_of(h.get("code_path")) != x["path"]:
                badp.append((h.get("code_path"), x["path"]))
            lo = h.get("hold_min_ms", h["hold_ms"])
            hi = h.get("hold_max_ms", h["hold_ms"])
            if not (lo - 1 <= x["hold_ms"] <= hi + 1 or abs(x["hold_ms"] - h["hold_ms"]) <= 1000):
                badms.append((h["pid"], h["hold_ms"], lo, hi, x["hold_ms"]))
        self.check("holds listed: each is a truth hold of that pid, row and time (within 1.5 s)",
                   not bad and r["holds"], bad[:3] or len(r["holds"]), "all")
        self.check("holds listed: the shape of each is the PHP function that held the row",
                   not badp and r["holds"], badp[:3] or len(r["holds"]), "all")
        self.check("holds listed: the truth's hold_ms within the range given (or 1 s of the estimate)",
                   not badms and r["holds"], badms[:3] or len(r["holds"]), "all")

        # ---- code paths: one function each
        tx_fn = collections.defaultdict(set)
        for h in r["holds"]:
            st = us(h["start"])
            mt = [x for x in t["holds"] if x["pid"] == h["pid"] and x["row"] == h.get("row_key")
                  and abs(self.ts(x["start_us"]) - st) <= 1.5 * SEC]
            for x in mt[:1]:
                tx_fn[h.get("code_path")].add(x["path"])
        mixed = {k: sorted(v) for k, v in tx_fn.items() if len(v) > 1}
        self.check("code paths: each shape maps to one PHP function (no shape mixes two paths)",
                   not mixed, mixed or "none", "none")
        shapes = sorted({c["code_path"] for c in r["row_occupancy"] + r["code_paths"]})
        unmapped = [c for c in shapes if fn_of(c) is None]
        self.check("code paths: every ranked shape is one of the app's functions' shapes",
                   not unmapped, unmapped or len(shapes), "all")

        # ---- rankings
        occ_t = [x["path"] for x in t["rankings"]["occupancy"]]
        occ_l = collections.OrderedDict()
        for c in r["row_occupancy"]:
            f = fn_of(c["code_path"])
            occ_l[f] = occ_l.get(f, 0) + c["total_hold_ms"]
        occ_l_order = [k for k, v in sorted(occ_l.items(), key=lambda kv: -kv[1]) if v > 0]
        first = fn_of(r["row_occupancy"][0]["code_path"]) if r["row_occupancy"] else None
        self.check("occupancy ranking: reserve_stock first", first == occ_t[0], first, occ_t[0])
        self.check("occupancy ranking (shapes summed per function): the first two functions",
                   occ_l_order[:2] == occ_t[:2], occ_l_order[:2], occ_t[:2])
        self.check("occupancy ranking (shapes summed per function): the first three functions",
                   occ_l_order[:3] == occ_t[:3], occ_l_order[:3], occ_t[:3])
        rs = next((c for c in r["row_occupancy"] if fn_of(c["code_path"]) == "reserve_stock"), None)
        rs_t = t["rankings"]["occupancy"][0]["hold_ms"]
        self.check("occupancy: reserve_stock's total hold range contains the truth's %.1f s" % (rs_t / 1000),
                   rs is not None and rs.get("total_hold_min_ms", rs["total_hold_ms"]) <= rs_t
                   <= rs.get("total_hold_max_ms", rs["total_hold_ms"]),
                   [rs.get("total_hold_min_ms"), rs["total_hold_ms"], rs.get("total_hold_max_ms")] if rs else None,
                   round(rs_t))
        story = r.get("story") or {}
        self.check("story: names reserve_stock's shape", fn_of(story.get("code_path")) == "reserve_stock",
                   story.get("code_path"), "reserve_stock")
        blk_t = t["rankings"]["blocking"]
        blk = r["code_paths"]
        bfirst = fn_of(blk[0]["code_path"]) if blk else None
        self.check("blocking ranking: reserve_stock first", bfirst == blk_t[0]["path"], bfirst, blk_t[0]["path"])
        got = sum(c["waiter_ms_caused"] for c in blk if fn_of(c["code_path"]) == "reserve_stock")
        self.check("blocking ranking: reserve_stock's caused waiting within 15 %% of the truth's %.1f s"
                   % (blk_t[0]["waiting_caused_ms"] / 1000),
                   abs(got - blk_t[0]["waiting_caused_ms"]) <= 0.15 * blk_t[0]["waiting_caused_ms"],
                   round(got), round(blk_t[0]["waiting_caused_ms"]))

        # ---- findings
        iith = [f for f in rules["idle_in_transaction_head"] if fn_of(f.get("code_path")) == "reserve_stock"]
        self.check("finding deserved: idle in transaction at the head for reserve_stock's shape (the HTTP call, "
                   "which the log shows only as idle)", bool(iith), len(iith), 1)
        hid = [f for f in rules["hidden_waiting"] if f.get("relation") == "warehouses" and f.get("row") in ("id=1", None)]
        self.check("finding deserved: hidden waiting on warehouses id=1", bool(hid), len(hid), 1)
        sc = [f for f in rules["serial_capacity"] if f.get("relation") == "warehouses"]
        self.check("finding deserved: serial capacity of warehouses id=1 (held %.0f %% of the time)"
                   % (100 * thr[0]["utilisation"]), bool(sc), len(sc), 1)
        hc = [(f.get("relation"), f.get("row")) for f in rules["hot_counter_row"]]
        self.check("finding not deserved: hot counter row on warehouses (its queue is behind reserve_stock's "
                   "HTTP call; restock's increment holds it < 1 ms)",
                   not [x for x in hc if x[0] == "warehouses"], hc, "none on warehouses")
        self.check("finding not deserved: hot counter row on accounts (transfer moves amounts)",
                   not [x for x in hc if x[0] == "accounts"], hc, "none on accounts")
        for rule, why in (("lock_queue_behind_ddl", "no DDL ran"),
                          ("commit_wait_head", "commits < 1 ms"),
                          ("retries_after_serialization_failure", "no 40001"),
                          ("external_call_in_transaction", "no spans: not in the log")):
            self.check("finding not deserved: %s (%s)" % (rule, why), not rules[rule], len(rules[rule]), 0)

        # ---- the server's context
        nk = r.get("context_not_kept") or []
        self.check("context: checkpoints read (log_checkpoints = on, PostgreSQL 13 writes them untranslated)",
                   not any(x.startswith("checkpoints") for x in nk), nk, "not listed as missing")
        av = [x for x in nk if x.startswith("autovacuum")]
        self.check("context: the French autovacuum lines not said absent without saying only English is read",
                   all("only English" in x for x in av), av, "hedged")
        return self.out


def main():
    lockspan = sys.argv[1]
    sample = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(__file__))
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        rep = report(lockspan, sample, tmp)
    truth = load(os.path.join(sample, "truth.json.gz"))
    res = Judge(truth, rep).run()
    for x in res:
        print("%-5s %s: lockspan %s, truth %s" % ("ok" if x["ok"] else "WRONG", x["name"], x["lockspan"], x["truth"]))
    print("%d right, %d wrong" % (sum(x["ok"] for x in res), sum(not x["ok"] for x in res)))


if __name__ == "__main__":
    main()
