#!/usr/bin/env python3
"""Judge lockspan on samples/blind-go, blind: written from README.md,
docs/report-json.md and `lockspan --help` only, against the truth the Go
app recorded (truth.json.gz, app/build_truth.py).

  judge.py LOCKSPAN [SAMPLE_DIR]     # prints each check; exit 0

Each check is {"name", "ok", "lockspan", "truth"}. The log is syslog
(RSYSLOG_TraditionalFileFormat: whole seconds, no year) with the prefix
'user=%u,db=%d,app=%a ', log_min_duration_statement 250ms, lock waits over
deadlock_timeout 1s, one application_name for every code path. For what it
cannot show (hold times, code paths, occupancy, waiting below 250 ms / 1 s,
retries) the right answer is that lockspan says it cannot know; a confident
wrong answer, or a figure that is a lower bound without saying so, is the
worst result. tests/e2e/check_blind_go.py asserts the checks lockspan gets
right (MUST_HOLD) and lists the rest as XFAIL."""
import collections
import datetime
import glob
import gzip
import json
import os
import re
import subprocess
import sys

SEC = 1_000_000
PREFIX = "user=%u,db=%d,app=%a "
# lockspan names transactions by shape here (one application_name); each
# shape it can see is one Go func's: the statements a shape is made of are
# the only slow (logged) statements of that func.
SHAPE = {
    "SELECT FOR UPDATE accounts": "transferCredit",
    "SELECT FOR UPDATE inventory": "reserveWithPayment",
    "UPDATE inventory": "restock",
}


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def report(lockspan, sample, tmp):
    """`lockspan analyze` the committed log as a DBA would (the prefix
    inferred, named on stderr); the JSON and Markdown reports, with
    `_stderr` and `_md`."""
    out = os.path.join(tmp, "report.json")
    md = os.path.join(tmp, "report.md")
    logs = sorted(glob.glob(os.path.join(sample, "postgresql.log*")))
    p = subprocess.run([lockspan, "analyze", "--max-errors", "1000", "--max-waits", "1000",
                        "--max-deadlocks", "1000", "--top", "50", "-o", out, "-o", md] + logs,
                       capture_output=True, text=True, env=dict(os.environ, TZ="UTC"))
    if p.returncode != 0:
        sys.exit("lockspan analyze failed (%d): %s" % (p.returncode, p.stderr))
    rep = load(out)
    rep["_stderr"] = p.stderr
    with open(md) as f:
        rep["_md"] = f.read()
    return rep


def us(iso):
    return int(datetime.datetime.strptime(iso.replace("Z", ""), "%Y-%m-%dT%H:%M:%S.%f").replace(
        tzinfo=datetime.timezone.utc).timestamp() * SEC)


class Judge:
    def __init__(self, truth, rep):
        self.t = truth
        self.r = rep
        self.off = truth["clock"]["offset_us"]
        self.out = []
        self.tx_by_pid = collections.defaultdict(list)
        for x in truth["transactions"]:
            self.tx_by_pid[x["pid"]].append(x)

    def check(self, name, ok, got, want):
        self.out.append({"name": name, "ok": bool(ok), "lockspan": got, "truth": want})

    def srv(self, x):
        return x + self.off

    def held(self, pid, rel, lo, hi):
        return any(h["pid"] == pid and h["rel"] == rel and self.srv(h["start"]) <= hi
                   and self.srv(h["end"]) >= lo for h in self.t["holds"])

    def rel_paths(self, pid, rel, lo, hi):
        """Go funcs of pid's transactions that held, or queued for (a queue's head
        holds the tuple lock others wait behind), a row of rel within [lo, hi]."""
        ps = {h["path"] for h in self.t["holds"] if h["pid"] == pid and h["rel"] == rel
              and self.srv(h["start"]) <= hi and self.srv(h["end"]) >= lo}
        ps |= {w["path"] for w in self.t["waits"] if w["pid"] == pid and any(x[0] == rel for x in w["rows"])
               and self.srv(w["start"]) <= hi and self.srv(w["end"]) >= lo}
        return ps

    @staticmethod
    def same_second(log_us, truth_us):
        """A syslog second S holds events of [S, S+1 s); the client hears of them a little later."""
        return log_us - 50_000 <= truth_us <= log_us + SEC + 50_000

    def run(self):
        t, r = self.t, self.r
        c = t["counts"]
        s = r["summary"]
        err, md = r["_stderr"], r["_md"]
        rules = collections.defaultdict(list)
        for f in r["findings"]:
            rules[f["rule"]].append(f)

        # ---- reading the log
        self.check("syslog read: no unparsable lines", s["bad_lines"] == 0, s["bad_lines"], 0)
        m = re.search(r"inferred log_line_prefix '([^']*)'", err)
        self.check("log_line_prefix inferred ('%s')" % PREFIX, m is not None and m.group(1) == PREFIX,
                   m.group(1) if m else None, PREFIX)
        t0 = min(self.srv(x["start"]) for x in t["transactions"])
        t1 = max(self.srv(x["end"]) for x in t["transactions"])
        tr = s["time_range"]
        self.check("time range: the syslog header's seconds, this year, around the run",
                   us(tr["start"]) <= t0 and t1 - SEC <= us(tr["end"]) <= t1 + 5 * SEC,
                   [tr["start"], tr["end"]], [t0, t1])
        self.check("statements: the %d duration lines (log_min_duration_statement 250ms)"
                   % c["log_lines"]["duration"], s["statements"] == c["log_lines"]["duration"],
                   s["statements"], c["log_lines"]["duration"])
        lg = r["input"]["logging"]
        self.check("statement logging judged 'threshold' (only statements of 250 ms or more)",
                   lg["verdict"] == "threshold", lg["verdict"], "threshold")
        self.check("holds: every one said a lower bound (no BEGIN/COMMIT logged)",
                   lg["holds"] > 0 and lg["holds_at_least"] == lg["holds"],
                   [lg["holds_at_least"], lg["holds"]], "all")
        ident = r["code_path_identity"]
        self.check("code paths: named by transaction shape, because one application_name covers all",
                   ident.get("fallback") == "transaction shape" and ident.get("application_names") == 1,
                   [ident.get("fallback"), ident.get("application_names")], ["transaction shape", 1])
        names = {cp["code_path"] for cp in r["code_paths"]} | {cp["code_path"] for cp in r["row_occupancy"]}
        gofuncs = sorted(n for n in names if n in {"placeOrder", "reserveWithPayment", "transferCredit",
                                                      "restock", "productPage"})
        self.check("code paths: no Go func named (the log has none)", not gofuncs, gofuncs or "none", "none")
        unknown_shape = sorted(n for n in names if n not in SHAPE)
        self.check("code paths: every shape named is one of the 3 a logged statement shows",
                   not unknown_shape, unknown_shape or "none", sorted(SHAPE))

        # ---- deadlocks
        tdl = t["deadlocks"]
        self.check("deadlocks: count", s["deadlocks"] == len(tdl), s["deadlocks"], len(tdl))
        lv = sorted(d["victim_pid"] for d in r["deadlocks"])
        tv = sorted(d["pid"] for d in tdl)
        self.check("deadlock victims: pids", lv == tv, lv[:5], tv[:5])
        bad = [d["time"] for d in r["deadlocks"]
               if not any(x["pid"] == d["victim_pid"] and
                          self.same_second(us(d["time"]), x["server_time"])
                          for x in tdl)]
        self.check("deadlock victims: time within the syslog second of the app's error",
                   not bad and r["deadlocks"], bad[:3] or "all", "all")
        self.check("finding deserved: deadlocks", bool(rules["deadlocks"]), len(rules["deadlocks"]), 1)
        ilo = rules["inconsistent_lock_order"]
        self.check("finding deserved: inconsistent lock order on accounts (transferCredit locks in "
                   "request order)", any(f.get("first") == "accounts" and f.get("then") == "accounts"
                                        for f in ilo),
                   [(f.get("code_path"), f.get("first"), f.get("then")) for f in ilo], "accounts both ways")
        wrongv = []
        for d in r["deadlocks"]:
            cp = d.get("victim_code_path")
            if cp and SHAPE.get(cp) != "transferCredit":
                wrongv.append(cp)
        self.check("deadlock victims: no code path but transferCredit's shape (every victim was one)",
                   not wrongv, wrongv[:3] or "none", "transferCredit or none")
        le = [e for e in r["errors"] if e["sqlstate"] == "40P01"]
        said = [e["retried"] for e in le if e["retried"] is not None]
        self.check("deadlock victims: retried untold for each (truth: %d retried, %d not; a retry runs "
                   "under 250 ms, unlogged)" % (c["deadlocks_retried"], c["deadlocks"] - c["deadlocks_retried"]),
                   len(le) == len(tdl) and not said, said[:3] or "none said", "untold")
        dropped = [e["pid"] for e in le if "dropped the connection" in (e.get("retry_untold") or "")]
        self.check("deadlock victims: the untold retry is not blamed on a dropped connection (pgx kept "
                   "the pooled connection and retried)", not dropped, dropped or "none", "none")
        # the cause (holder) of a deadlock error: the path its pid really ran
        wrongc, rightc = [], 0
        for e in le:
            cp = e.get("cause_code_path")
            if not cp or not e.get("cause_pid"):
                continue
            ps = self.rel_paths(e["cause_pid"], "accounts", us(e["time"]) - 2 * SEC, us(e["time"]) + SEC)
            if SHAPE.get(cp) in ps:
                rightc += 1
            else:
                wrongc.append((e["cause_pid"], cp, sorted(ps)))
        self.check("deadlock causes: the code path named for the other process is what it ran "
                   "(always transferCredit)", not wrongc, "%d wrong of %d: %s" % (
                       len(wrongc), len(wrongc) + rightc, wrongc[:2]), "transferCredit")

        # ---- lock timeouts
        tlt = t["lock_timeouts"]
        self.check("lock timeouts (55P03): count", s["lock_timeouts"] == len(tlt), s["lock_timeouts"], len(tlt))
        l55 = [e for e in r["errors"] if e["sqlstate"] == "55P03"]
        bad = [e["pid"] for e in l55 if not any(
            x["pid"] == e["pid"] and self.same_second(us(e["time"]), x["server_time"]) for x in tlt)]
        self.check("lock timeouts: each at the pid and second of the app's", len(l55) == len(tlt) and not bad,
                   bad or "all", "all")
        yes = [e["pid"] for e in l55 if e["retried"] is True]
        self.check("lock timeouts: none said retried (restock gives up)", not yes, yes or "none", "none")
        wrongc = []
        for e in l55:
            if e.get("cause_pid"):
                tt = us(e["time"])
                if not self.held(e["cause_pid"], "inventory", tt - 2 * SEC, tt + SEC):
                    wrongc.append(e["cause_pid"])
        self.check("lock timeouts: a holder named held an inventory row then (or none named)",
                   not wrongc, wrongc or "none wrong", "holder or untold")

        # ---- logged waits
        tw = t["waits"]
        bad, badh, badp, nh = [], [], [], 0
        for w in r["waits"]:
            st, en = us(w["start"]), us(w["end"])
            mt = [x for x in tw if x["pid"] == w["pid"] and any(rr[0] == w["relation"] for rr in x["rows"])
                  and self.srv(x["start"]) - SEC <= st and en <= self.srv(x["end"]) + SEC]
            if not mt:
                bad.append((w["pid"], w["start"]))
            hp = w.get("holder_pid") or w.get("blocker_pid")
            if hp:
                nh += 1
                ps = self.rel_paths(hp, w["relation"], st - SEC, en + SEC)
                if not ps:
                    badh.append((w["pid"], hp, w["start"]))
                hcp = w.get("holder_code_path")
                if hcp and SHAPE.get(hcp) not in ps:
                    badp.append((hp, hcp, w["end"]))
        self.check("logged waits: each lies within a truth wait of that pid and relation", not bad,
                   "%d of %d outside: %s" % (len(bad), len(r["waits"]), bad[:2]), "all")
        self.check("logged waits: the holder pid named held (or led the queue for) a row of that relation then", not badh,
                   "%d of %d wrong: %s" % (len(badh), nh, badh[:2]), "all")
        self.check("logged waits: the holder's code path named is what that pid ran (transferCredit "
                   "for every accounts wait)", not badp,
                   "%d of %d wrong: %s" % (len(badp), nh, badp[:2]), "all")
        self.check("total wait: %.1f s logged is no more than the app's %.1f s of waits with a lock line"
                   % (s["total_wait_ms"] / 1000, c["waits_lock_logged_ms"] / 1000),
                   s["total_wait_ms"] <= c["waits_lock_logged_ms"] * 1.02,
                   round(s["total_wait_ms"] / 1000, 1), round(c["waits_lock_logged_ms"] / 1000, 1))
        hw = s["hidden_waits"]
        unl = (c["wait_ms"] - c["waits_lock_logged_ms"]) / 1000
        self.check("hidden waits: said a lower bound and no more than the truth's %.1f s without a lock line"
                   % unl, hw.get("at_least") is True and hw["hidden_wait_ms"] is not None
                   and hw["hidden_wait_ms"] / 1000 <= unl,
                   [hw["hidden_wait_ms"], hw.get("at_least")], round(unl, 1))

        # ---- rows
        hr = r["hot_rows"]
        by_rel = collections.Counter()
        for k, v in t["rows"].items():
            by_rel[k.split(" ", 1)[0]] += v["wait_ms"]
        trel, tms = by_rel.most_common(1)[0]
        self.check("busiest row: an %s row first (truth: %s rows had %.0f of %.0f s of waiting)"
                   % (trel, trel, tms / 1000, c["wait_ms"] / 1000),
                   bool(hr) and hr[0]["relation"] == trel, hr[0]["relation"] + " " + hr[0]["row_key"] if hr else None,
                   trel)
        keyed = [(h["relation"], h["row_key"]) for h in hr if re.match(r"^\w+=", h["row_key"] or "")]
        ok = []
        for rel, key in keyed:
            k = key.split("=", 1)[1]
            ok.append("%s %s" % (rel, k) in t["rows"])
        self.check("hot rows: every row named by key is a row the app waited for", keyed and all(ok),
                   [k for k, o in zip(keyed, ok) if not o] or keyed, "keys with waits")
        sku = [h for h in hr if h["relation"] == "inventory" and h["row_key"] == "sku=SKU-1"]
        tsku = t["rows"]["inventory SKU-1"]
        self.check("hot rows: inventory sku=SKU-1 found (from the slow FOR UPDATEs' $1 = 'SKU-1')",
                   bool(sku), [h["row_key"] for h in sku], "sku=SKU-1")
        hid = sku[0]["hidden_wait_ms"] if sku else None
        self.check("SKU-1: hidden waiting %s s no more than the app's %.1f s (none of it has a lock line)"
                   % (None if hid is None else round(hid / 1000, 1), tsku["wait_ms"] / 1000),
                   hid is not None and 0 < hid <= tsku["wait_ms"], hid, tsku["wait_ms"])
        hwf = [f for f in rules["hidden_waiting"] if "SKU-1" in f["title"]]
        self.check("finding deserved: hidden waiting on SKU-1 (its 300-800 ms holds queue below "
                   "deadlock_timeout)", bool(hwf), [f["title"] for f in hwf][:1], "SKU-1")
        held0 = [f["title"] for f in hwf if "held 0 %" in (f.get("evidence") or "") or "held 0 %" in f["title"]]
        m = re.search(r"SKU-1[^\n]*?the row was held 0 % of the time", md)
        self.check("SKU-1: not said held 0 %% of the time (truth: held %.1f s; no hold of it is in the log)"
                   % (tsku["held_ms"] / 1000), not held0 and not m, "said 0 %" if (held0 or m) else "not said",
                   "unknown")
        dt = [h for h in hr if h["relation"] == "daily_totals"]
        self.check("hot counter daily_totals: no row invented (its waits are < 250 ms, never logged)",
                   not dt, len(dt), 0)

        # ---- rankings
        occ = t["rankings"]["occupancy_ms_by_path"]
        blk = t["rankings"]["blocking_ms_by_path"]
        tot = sum(occ.values())
        ro = [x for x in r["row_occupancy"] if x.get("total_hold_ms") is not None]
        first = ro[0]["code_path"] if ro else None
        topm = re.search(r"top: (.*?) holds hot rows longest", err)
        (p1, o1), (p2, o2) = sorted(occ.items(), key=lambda kv: -kv[1])[:2]
        self.check("occupancy ranking: %s's shape first, or said unknown (truth: %s %.1f s, %.0f %%; %s %.1f s)"
                   % (p1, p1, o1 / 1000, 100 * o1 / tot, p2, o2 / 1000),
                   first is None or SHAPE.get(first) == p1,
                   [(x["code_path"], x.get("share_pct")) for x in r["row_occupancy"]], p1)
        self.check("stderr's headline: names %s's shape as holding longest, or no path" % p1,
                   topm is None or SHAPE.get(topm.group(1)) == p1,
                   topm.group(0) if topm else None, p1 + " or none")
        inv = [x for x in r["row_occupancy"] if x["code_path"] == "SELECT FOR UPDATE inventory"]
        share = inv[0].get("share_pct") if inv else None
        self.check("occupancy: reserveWithPayment's share not stated above the truth's %.0f %% as a figure"
                   % (100 * occ["reserveWithPayment"] / tot),
                   share is None or share <= 100 * occ["reserveWithPayment"] / tot * 1.2, share,
                   round(100 * occ["reserveWithPayment"] / tot, 1))
        st = r.get("story") or {}
        row = (st.get("row") or {}).get("relation")
        self.check("story: the path said to hold longest is not given rows of a relation it never locks",
                   not (SHAPE.get(st.get("code_path")) == "reserveWithPayment" and row == "accounts"),
                   [st.get("code_path"), row], "inventory for reserveWithPayment")
        # reserveWithPayment holds through its outbound call: idle in transaction
        idle = sum(x["slow_call_ms"] for x in t["transactions"] if x["path"] == "reserveWithPayment")
        hold = sum(h["ms"] for h in t["holds"] if h["path"] == "reserveWithPayment")
        mostly = [x.get("mostly") for x in (st.get("ranking") or []) if x["code_path"] == "SELECT FOR UPDATE inventory"]
        self.check("reserveWithPayment's shape: not said mostly SQL (truth: %.1f %% of its holds is the "
                   "payment call, idle in transaction)" % (100 * idle / hold),
                   not mostly or mostly[0] != "SQL", mostly, "idle in transaction or unknown")
        cps = [x for x in r["code_paths"] if x.get("waiter_ms_caused") is not None]
        cps.sort(key=lambda x: -x["waiter_ms_caused"])
        order = [SHAPE.get(x["code_path"]) for x in cps]
        (b1, v1), (b2, v2) = sorted(blk.items(), key=lambda kv: -kv[1])[:2]
        self.check("blocking ranking: %s then %s (truth: %.1f s, %.1f s)" % (b1, b2, v1 / 1000, v2 / 1000),
                   order[:2] == [b1, b2],
                   [(x["code_path"], x["waiter_ms_caused"]) for x in cps], [b1, b2])
        acc = [x for x in cps if SHAPE.get(x["code_path"]) == b1]
        rng = (acc[0].get("waiter_ms_caused_min"), acc[0].get("waiter_ms_caused_max")) if acc else (None, None)
        self.check("blocking: %s's range of waiting caused holds the truth's %.1f s" % (b1, v1 / 1000),
                   # a null maximum: "at least" the minimum (no upper bound the log gives)
                   rng[0] is not None and rng[0] <= v1 and (rng[1] is None or v1 <= rng[1]), rng, v1)
        rs = [x for x in cps if SHAPE.get(x["code_path"]) == "restock"]
        rsv = rs[0]["waiter_ms_caused"] if rs else 0
        self.check("blocking: restock's shape not said to cause seconds of waiting (truth: %.1f ms; it "
                   "commits right after its UPDATE)" % blk.get("restock", 0),
                   rsv <= 1000, rsv, blk.get("restock", 0))

        # ---- findings not deserved
        for rule, why in (("lock_queue_behind_ddl", "no DDL ran"),
                          ("retries_after_serialization_failure", "no 40001"),
                          ("commit_wait_head", "commits take < 1 ms"),
                          ("external_call_in_transaction", "no spans: not in the log"),
                          ("hot_counter_row", "the hot counter's waits are never logged")):
            self.check("finding not deserved: %s (%s)" % (rule, why), not rules[rule], len(rules[rule]), 0)
        self.check("serialization failures: 0", s["serialization_failures"] == 0, s["serialization_failures"], 0)
        return self.out


def main():
    lockspan = sys.argv[1]
    sample = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(__file__))
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        rep = report(lockspan, sample, tmp)
    truth = load(os.path.join(sample, "truth.json.gz"))
    for c in Judge(truth, rep).run():
        print("%s  %s\n      lockspan: %s\n      truth:    %s" % ("RIGHT" if c["ok"] else "WRONG", c["name"],
                                                               json.dumps(c["lockspan"], default=str)[:300],
                                                               json.dumps(c["truth"], default=str)[:200]))


if __name__ == "__main__":
    main()
