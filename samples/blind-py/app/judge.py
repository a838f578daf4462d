#!/usr/bin/python3
"""Compare lockspan's JSON report of samples/blind-py with truth.json.

  judge.py truth.json report.json [--json]

Prints each comparison (lockspan's figure, the truth's) and whether it
matches; --json prints them as a list of {name, lockspan, truth, ok, note}
for tests/e2e/check_blind_py.py. Blind: it reads only the report's
documented JSON (docs/report-json.md), never lockspan's code.
"""
import collections
import datetime
import gzip
import json
import sys

SECOND = 1.0
EPS = 0.002                     # clock and rounding slack, seconds


def ts(s):
    """ISO 8601 UTC string -> Unix seconds."""
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


# What a hold of lockspan's stands for in the truth when it is none of
# the truth's paths (Judge.code_paths()): not a path a name can stand for.
NOT_A_PATH = ("ambiguous", "no truth hold")


def truth_path_of(mix):
    """The truth path a lockspan code path stands for: of its holds'
    truth paths (mix, Judge.path_mix), the commonest, holds that are
    ambiguous (a transaction of another path of the same pid and row in
    the same seconds) or match no truth hold not counting as a path: 3
    report_fix holds and 5 ambiguous ones are report_fix's (each of the 5
    is report_fix's too, or another path's). None when no hold is one
    path's."""
    real = {p: n for p, n in mix.items() if p not in NOT_A_PATH}
    return max(real, key=real.get) if real else None


def truth_row(relation, row_key):
    """lockspan's (relation, 'sku=1') -> truth's 'stock 1'."""
    return "%s %s" % (relation, row_key.split("=", 1)[1])


class Judge:
    def __init__(self, truth, report):
        self.t = truth
        self.r = report
        self.results = []
        self.by_pid = collections.defaultdict(list)
        for tx in truth["transactions"]:
            self.by_pid[tx["pid"]].append(tx)

    def add(self, name, lockspan, truth, ok, note=""):
        self.results.append({"name": name, "lockspan": lockspan,
                             "truth": truth, "ok": bool(ok), "note": note})

    def truth_tx_at(self, pid, lo, hi):
        """Truth transactions of PID overlapping [lo, hi + 1 s) (hi is a
        whole-second stamp: the moment is within the second after it)."""
        return [tx for tx in self.by_pid.get(pid, [])
                if tx["start"] < hi + SECOND and tx["end"] >= lo - EPS]

    # ---- code paths ----------------------------------------------------
    def code_paths(self):
        """Which truth paths each lockspan code path holds stand for."""
        mix = collections.defaultdict(collections.Counter)
        for hr in self.r["hot_rows"]:
            row = truth_row(hr["relation"], hr["row_key"])
            for h in hr["timeline"]["holds"]:
                lo, hi = ts(h["start_lo"] or h["start"]), ts(h["end_hi"] or h["end"])
                cands = [tx for tx in self.truth_tx_at(h["pid"], lo, hi)
                         if any(l["table"] + " " + str(l["key"]) == row for l in tx["locks"])]
                paths = {tx["path"] for tx in cands}
                path = paths.pop() if len(paths) == 1 else (
                    "ambiguous" if cands else "no truth hold")
                mix[h["code_path"]][path] += 1
        self.path_mix = {k: dict(v) for k, v in mix.items()}
        return self.path_mix

    def ranking(self):
        occ = self.r["row_occupancy"]
        top = occ[0]["code_path"] if occ else None
        mix = self.path_mix.get(top, {})
        top_truth_path = truth_path_of(mix)
        tp = self.t["paths"]
        truth_top = max(tp, key=lambda p: tp[p]["hot_row_hold_s"])
        self.add("top code path by row occupancy", "%s (%s)" % (top, top_truth_path),
                 truth_top, top_truth_path == truth_top,
                 "lockspan names it by statement shape; its holds map to these "
                 "truth paths: %s" % mix)
        total = {o["code_path"]: o["total_hold_ms"] / 1000 for o in occ}
        self.add("top path total hot-row hold, s", total.get(top),
                 tp[truth_top]["hot_row_hold_s"],
                 abs(total.get(top, 0) - tp[truth_top]["hot_row_hold_s"])
                 <= 0.25 * tp[truth_top]["hot_row_hold_s"],
                 "truth: lock taken (statement returned) to COMMIT returned")
        mx = {o["code_path"]: o["max_hold_ms"] / 1000 for o in occ}
        self.add("top path max hot-row hold, s", mx.get(top),
                 tp[truth_top]["max_hold_s"],
                 mx.get(top, 0) <= tp[truth_top]["max_hold_s"] + 2 * SECOND,
                 "whole seconds allow up to +2 s")
        named = {o["code_path"] for o in occ} | {c["code_path"] for c in self.r["code_paths"]}
        distinct = len([n for n in named if n != "unknown"])
        self.add("code paths told apart", distinct, len(tp), distinct >= len(tp),
                 "unknown stands for: %s" % self.path_mix.get("unknown", {}))

    # ---- hot rows ------------------------------------------------------
    def hot_rows(self):
        rows = self.t["rows"]
        logged = collections.defaultdict(float)
        hidden = collections.defaultdict(float)
        for w in self.t["waits"]:
            (logged if w["logged"] else hidden)[w["row"]] += w["seconds"]
        truth_order = sorted(logged, key=logged.get, reverse=True)
        ls_order = [truth_row(h["relation"], h["row_key"]) for h in self.r["hot_rows"]]
        self.add("hot rows, top 3 by logged wait", ls_order[:3], truth_order[:3],
                 ls_order[:3] == truth_order[:3])
        self.add("rows with a logged wait", sorted(ls_order), sorted(truth_order),
                 sorted(ls_order) == sorted(truth_order))
        for hr in self.r["hot_rows"][:3]:
            row = truth_row(hr["relation"], hr["row_key"])
            tr = rows[row]
            self.add("%s holds (occupancy)" % row, hr["occupancy_holds"], tr["holds"],
                     hr["occupancy_holds"] == tr["holds"])
            self.add("%s mean hold, ms" % row, hr["mean_hold_ms"],
                     round(1000 * tr["hold_s_sum"] / tr["holds"], 1),
                     abs(hr["mean_hold_ms"] - 1000 * tr["hold_s_sum"] / tr["holds"])
                     <= 0.15 * 1000 * tr["hold_s_sum"] / tr["holds"])
            self.add("%s occupied, s" % row, hr["occupied_ms"] / 1000, tr["occupied_s"],
                     abs(hr["occupied_ms"] / 1000 - tr["occupied_s"]) <= 2 * SECOND)
            ls_total = (hr["logged_wait_ms"] + hr["hidden_wait_ms"]) / 1000
            t_total = logged[row] + hidden[row]
            self.add("%s wait, logged + hidden, s" % row,
                     "%.1f (%.1f + %.1f)" % (ls_total, hr["logged_wait_ms"] / 1000,
                                             hr["hidden_wait_ms"] / 1000),
                     "%.1f" % t_total, abs(ls_total - t_total) <= 0.15 * t_total,
                     "truth: time inside the locking statements that waited "
                     "(> 20 ms); the log shows only the parts over deadlock_timeout")
            nw = sum(1 for w in self.t["waits"] if w["row"] == row)
            self.add("%s statements that waited > 20 ms" % row, hr["statements_waited"], nw,
                     abs(hr["statements_waited"] - nw) <= 0.1 * nw)

    # ---- holds ---------------------------------------------------------
    def holds(self):
        """Every truth hold of a reported hot row against lockspan's."""
        ls = collections.defaultdict(list)
        cut = []
        for hr in self.r["hot_rows"]:
            row = truth_row(hr["relation"], hr["row_key"])
            if len(hr["timeline"]["holds"]) < hr["occupancy_holds"]:
                cut.append("%s: %d of %d" % (row, len(hr["timeline"]["holds"]),
                                             hr["occupancy_holds"]))
                continue        # compared only where the list is whole
            for h in hr["timeline"]["holds"]:
                ls[row].append(h)
        self.add("hot rows whose timeline.holds lists every hold (docs)",
                 len(self.r["hot_rows"]) - len(cut), len(self.r["hot_rows"]),
                 not cut, "listed of occupancy_holds, with no count of the "
                 "rest: %s; the hold checks below leave those rows out" % "; ".join(cut))
        n = contained = contained_sec = missing = 0
        used = set()
        for th in self.t["holds"]:
            if th["row"] not in ls:
                continue
            n += 1
            best = None
            for h in ls[th["row"]]:
                if h["pid"] != th["pid"]:
                    continue
                lo, hi = ts(h["start_lo"] or h["start"]), ts(h["end_hi"] or h["end"])
                if lo <= th["released"] + EPS and hi + SECOND >= th["taken"] - EPS:
                    if best is None or abs(lo - th["taken"]) < abs(ts(best["start"]) - th["taken"]):
                        best = h
            if best is None:
                missing += 1
                continue
            used.add(id(best))
            lo, hi = ts(best["start_lo"] or best["start"]), ts(best["end_hi"] or best["end"])
            if lo <= th["taken"] + EPS and hi >= th["released"] - EPS:
                contained += 1
            if lo <= th["taken"] + EPS and hi + SECOND >= th["released"] - EPS:
                contained_sec += 1
        over = []
        for row, hs in ls.items():
            iv = sorted((ts(h["start"]), ts(h["end"]), h["pid"]) for h in hs)
            for i, (a, b, p) in enumerate(iv):
                for a2, b2, p2 in iv[i + 1:]:
                    if a2 >= b:
                        break
                    if min(b, b2) - a2 > SECOND:
                        over.append((row, p, p2))
        self.add("pairs of holds of one row overlapping by > 1 s (impossible)",
                 len(over), 0, not over, "e.g. %s" % over[:3])
        self.add("truth holds of hot rows found by lockspan", n - missing, n, missing == 0)
        self.add("holds whose [start_lo, end_hi] contains the truth", contained, n,
                 contained == n, "lockspan's bounds of a whole-second stamp are "
                 "the stamp itself (end_lo = end_hi)")
        self.add("holds contained once end_hi is widened to its second's end",
                 contained_sec, n, contained_sec >= 0.95 * n)
        # A failed locking statement must add no hold: in the seconds of its
        # transaction, lockspan's holds of that row by that pid must be no
        # more than the truth's (whole seconds cannot tell them apart).
        phantom = []
        failed = [(tx, st) for tx in self.t["transactions"] for st in tx["statements"]
                  if st["error"] and st["locks"]]
        for tx, st in failed:
            lo, hi = int(tx["start"]), int(tx["end"]) + SECOND
            for table, key in st["locks"]:
                row = "%s %s" % (table, key)
                if row not in ls:
                    continue
                n_ls = sum(1 for h in ls[row] if h["pid"] == tx["pid"]
                           and lo <= ts(h["start"]) < hi)
                n_t = sum(1 for h in self.t["holds"] if h["row"] == row
                          and h["pid"] == tx["pid"] and h["taken"] < hi
                          and h["released"] >= lo)
                if n_ls > n_t:
                    phantom.append((row, tx["pid"], int(st["call"]), st["error"], n_ls, n_t))
        self.add("phantom holds for statements that failed", len(phantom), 0,
                 not phantom, "; ".join("%s pid %s at %s (%s): %d holds, truth %d" % p
                           for p in phantom[:5]))

    # ---- waits ---------------------------------------------------------
    def waits(self):
        """Each logged wait's holder against the truth's holders of the row."""
        tw = collections.defaultdict(list)
        for w in self.t["waits"]:
            tw[w["waiter_pid"]].append(w)
        n = matched = holder_ok = root_ok = 0
        for w in self.r["waits"]:
            n += 1
            s = ts(w["start"])
            e = ts(w["end"])
            row = truth_row(w["relation"], w["row_key"]) if w.get("row_key") else None
            cands = [x for x in tw.get(w["pid"], [])
                     if (row is None or x["row"] == row)
                     and x["call"] - SECOND <= s <= x["ret"] + SECOND
                     and x["call"] - SECOND <= e <= x["ret"] + SECOND]
            if not cands:
                continue
            x = min(cands, key=lambda x: abs(x["call"] - s))
            matched += 1
            pids = {h["pid"] for h in x["holders_during"]}
            if w.get("holder_pid") in pids:
                holder_ok += 1
            if w.get("root_pid") in pids:
                root_ok += 1
        self.add("logged waits matched to a truth wait", matched, n, matched == n)
        self.add("logged waits whose holder_pid held the row during the wait",
                 holder_ok, matched, holder_ok >= 0.95 * matched)
        self.add("logged waits whose root_pid held the row during the wait",
                 root_ok, matched, root_ok >= 0.95 * matched)

    # ---- deadlocks and 40001 -------------------------------------------
    def errors(self):
        td = self.t["deadlocks"]
        rd = self.r["deadlocks"]
        self.add("deadlocks", len(rd), len(td), len(rd) == len(td))
        tv = sorted((d["pid"], int(d["at"])) for d in td)
        rv = sorted((d["victim_pid"], int(ts(d["time"]))) for d in rd)
        self.add("deadlock victims (pid, second)", rv, tv, rv == tv)
        right_tx = 0
        for d in rd:
            vic = [p for p in d["processes"] if p["pid"] == d["victim_pid"]]
            tx = vic[0]["transaction"] if vic else None
            texts = [s["text"] for s in tx["statements"]] if tx else []
            if tx and tx["outcome"] != "commit" and d["processes"][0]["query"] in texts:
                right_tx += 1
        self.add("deadlock victim's transaction shown is the one that deadlocked",
                 right_tx, len(rd), right_tx == len(rd),
                 "the transaction must hold the failing statement and not commit")
        paths = {p["code_path"] for d in rd for p in d["processes"]}
        self.add("deadlock code paths", sorted(paths),
                 sorted({d["path"] for d in td}), "transfer" in paths or
                 any("move_money" in p or "accounts" in p for p in paths))
        tsf = self.t["serialization_failures"]
        rs = [e for e in self.r["errors"] if e["sqlstate"] == "40001"]
        self.add("serialization failures (40001)", len(rs), len(tsf), len(rs) == len(tsf))
        retried = sum(1 for f in tsf if f["retried"])
        ls_ret = sum(1 for e in rs if e["retried"])
        self.add("40001 retried", ls_ret, retried, ls_ret == retried)
        ok_after = sum(1 for f in tsf if f.get("retry_outcome") == "commit")
        ls_ok = sum(1 for e in rs if e["retried"] and e["retry_outcome"] == "commit")
        self.add("40001 whose retry committed", ls_ok, ok_after, ls_ok == ok_after)
        right = 0
        outcome = {"aborted": "rollback", "commit": "commit"}
        for pid in {e["pid"] for e in rs}:
            le = sorted((e for e in rs if e["pid"] == pid), key=lambda e: (e["time"], e["line"]))
            tf = sorted((f for f in tsf if f["pid"] == pid), key=lambda f: f["at"])
            for e, f in zip(le, tf):
                if int(ts(e["time"])) == int(f["at"]) and f["retried"] == e["retried"] and (
                        not e["retried"] or f["retry_outcome"] == outcome.get(e["retry_outcome"])):
                    right += 1
        self.add("40001 errors whose retried/retry_outcome are right", right, len(tsf),
                 right == len(tsf), "matched in order per pid, same second")
        f = [x for x in self.r["findings"] if x["rule"] == "retries_after_serialization_failure"]
        if f:
            self.add("finding: 40001 retried / committed",
                     "%d / %d" % (f[0]["retried"], f[0]["committed"]),
                     "%d / %d" % (retried, ok_after),
                     (f[0]["retried"], f[0]["committed"]) == (retried, ok_after))
        rows40 = collections.Counter(truth_row(w["relation"], w["row_key"])
                                     for w in self.r["waits"]
                                     if w["outcome"] == "serialization_failure")
        t40 = collections.Counter(w["row"] for w in self.t["waits"] if w["result"] == "40001")
        self.add("waits ending in 40001, by row", dict(rows40), dict(t40), rows40 == t40,
                 "lockspan's count is of lock-wait messages, the truth's of statements")

    def error_attribution(self):
        """Each 40001/40P01 error's code path and cause against the truth."""
        named = {}
        for name, mix in self.path_mix.items():
            if name != "unknown" and truth_path_of(mix):
                named[name] = truth_path_of(mix)
        fails = [tx for tx in self.t["transactions"] if tx["sqlstate"] in ("40001", "40P01")]
        n = path_ok = cause_ok = cause_n = 0
        for e in self.r["errors"]:
            if e["sqlstate"] not in ("40001", "40P01"):
                continue
            sec = int(ts(e["time"]))
            tf = [tx for tx in fails if tx["pid"] == e["pid"] and int(tx["statements"][-1]["ret"]) == sec
                  and tx["sqlstate"] == e["sqlstate"]]
            if not tf:
                continue
            n += 1
            paths = {tx["path"] for tx in tf}
            if named.get(e["code_path"]) in paths or (
                    e["code_path"] == "unknown" and paths <= {"refund", "transfer"}):
                path_ok += 1
            if e["cause_pid"] is None:
                continue
            cause_n += 1
            good = False
            for tx in tf:
                st = tx["statements"][-1]
                snap = tx["statements"][0]["call"]
                for table, key in st["locks"]:
                    row = "%s %s" % (table, key)
                    good |= any(h["row"] == row and h["pid"] == e["cause_pid"]
                                and h["released"] > snap - EPS and h["taken"] < st["ret"] + EPS
                                for h in self.t["holds"])
            cause_ok += good
        self.add("40001/40P01 errors whose code path is the failing transaction's",
                 path_ok, n, path_ok == n, "lockspan names mapped to truth paths by their holds: %s" % named)
        self.add("40001/40P01 errors whose cause_pid changed or held the row meanwhile",
                 cause_ok, cause_n, cause_ok == cause_n,
                 "%d of %d errors name no cause" % (n - cause_n, n))

    # ---- findings ------------------------------------------------------
    def findings(self):
        rules = [f["rule"] for f in self.r["findings"]]
        self.add("finding: external call / idle in transaction at the head",
                 [r for r in rules if r in ("external_call_in_transaction",
                                            "idle_in_transaction_head")], "place_order's "
                 "partner call (sleep) inside the transaction holds stock and merchant rows",
                 any(r in ("external_call_in_transaction", "idle_in_transaction_head") for r in rules),
                 "not decidable with whole-second statement starts and no durations? "
                 "the report should then say it cannot tell")
        hc = [f for f in self.r["findings"] if f["rule"] == "hot_counter_row"]
        for f in hc:
            row = truth_row(f["relation"], f["row"])
            writers = collections.Counter(h["path"] for h in self.t["holds"] if h["row"] == row)
            top = writers.most_common(1)[0][0] if writers else None
            stmt_path = "report_fix" if "qty + 0" in f["statement"] else (
                "place_order" if "qty - " in f["statement"] else "?")
            # the code path the finding names (a name of lockspan's), read
            # as the truth path its holds stand for, as errors' are
            mix = self.path_mix.get(f.get("code_path")) or {}
            if truth_path_of(mix):
                stmt_path = truth_path_of(mix)
            self.add("finding hot_counter_row %s: writer statement" % row,
                     "%s from %s (%s)" % (f["statement"], f.get("code_path"), stmt_path),
                     "%s, holds by path %s" % (top, dict(writers)),
                     stmt_path == top)
        lo = self.r["lock_order_conflicts"]
        self.add("lock-order conflict found (transfer vs itself)", len(lo), 1, len(lo) >= 1,
                 "transfer locks two account rows in request order")

    def run(self):
        self.code_paths()
        self.ranking()
        self.hot_rows()
        self.holds()
        self.waits()
        self.errors()
        self.error_attribution()
        self.findings()
        return self.results


def load(path):
    """A JSON file, gzip-compressed or not."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return json.loads(data)


def main():
    truth = load(sys.argv[1])
    report = load(sys.argv[2])
    res = Judge(truth, report).run()
    if "--json" in sys.argv:
        json.dump(res, sys.stdout, indent=1)
        return
    print("| check | lockspan | truth | right? |")
    print("|---|---|---|---|")
    for r in res:
        print("| %s | %s | %s | %s |" % (r["name"], r["lockspan"], r["truth"],
                                          "yes" if r["ok"] else "**no**"))
    for r in res:
        if r["note"]:
            print("- %s: %s" % (r["name"], r["note"]))


if __name__ == "__main__":
    main()
