#!/usr/bin/env python3
"""Judge a lockspan JSON report of samples/blind-pool against the app's truth.

Written blind, from README.md and docs/report-json.md only. Usage:
  judge.py TRUTH_JSON REPORT_JSON [STDERR_REPORT_JSON]
prints one line per check; as a module, Judge(truth, report, stderr_report)
.run() returns [{name, lockspan, truth, ok}]. STDERR_REPORT is the report
of the whole-second stderr log alone (no traces), for the checks of what
lockspan says it cannot know.

Tolerances: a time lockspan gives to the millisecond (jsonlog) must be
within max(25 ms, 5 %) of the truth; a share of matched items passes at
90 %. Truth rows are "table:key" (events:1); lockspan's are mapped from
relation + row_key (id=1, event_id=1); a row lockspan keys only by ctid
maps to nothing.
"""
import datetime
import gzip
import json
import re
import sys
from collections import Counter, defaultdict

TOL_MS = 25.0            # absolute tolerance of a millisecond-precise time
SECOND_MS = 1000.0       # the tolerance of a time a whole-second log gives
DEADLOCK_TIME_MS = 100.0  # a deadlock's log time against the app's catch
OFFSET_MS = 5.0          # clock offset, millisecond log
OFFSET_SECONDS_MS = 100.0  # clock offset, whole-second log (a mean of many)
TOL_SHARE = 0.05         # relative tolerance
PASS_SHARE = 0.90        # share of matched items that passes a matching check
DEADLOCK_TIMEOUT_MS = 200.0
ROUTES = ("bookings", "checkins", "transfers", "settlements", "prices")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def ms(iso):
    """ISO 8601 UTC (lockspan's) to ms since the epoch."""
    if iso is None:
        return None
    d = datetime.datetime.strptime(iso.rstrip("Z"), "%Y-%m-%dT%H:%M:%S.%f")
    return d.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000.0


def close(a, b):
    return a is not None and b is not None and abs(a - b) <= max(TOL_MS, TOL_SHARE * abs(b))


def within(x, lo, hi):
    """X within [lo, hi] widened by the tolerance."""
    if x is None:
        return False
    tol = max(TOL_MS, TOL_SHARE * abs(hi))
    return lo - tol <= x <= hi + tol


def row_of(relation, row_key):
    m = re.fullmatch(r"(?:id|event_id)=(\d+)", row_key or "")
    return "%s:%s" % (relation, m.group(1)) if m else None


def route_of_label(label):
    """The truth route a lockspan code path label names, or None."""
    if not label:
        return None
    low = label.lower()
    for r in ROUTES:
        if "/" + r in low:
            return "POST /" + r
    return None


class Judge:
    def __init__(self, truth, report, stderr_report=None, seconds=False):
        """SECONDS: REPORT is of a whole-second log (%t): times lockspan
        takes from the log are matched within a second, not TOL_MS."""
        self.tol_t = SECOND_MS if seconds else TOL_MS
        self.seconds = seconds
        self.t = truth
        self.r = report
        self.rs = stderr_report
        self.txs = truth["transactions"]
        self.by_trace = defaultdict(list)
        for tx in self.txs:
            self.by_trace[tx["trace_id"]].append(tx)
        self.out = []

    def check(self, name, lockspan, truth, ok):
        self.out.append({"name": name, "lockspan": lockspan, "truth": truth, "ok": bool(ok)})

    # ---- the truth's derived figures ----
    def route_hold(self):
        tot = Counter()
        for tx in self.txs:
            for lk in tx["locks"]:
                tot[tx["route"]] += (lk["hold_lo_ms"] + lk["hold_hi_ms"]) / 2
        return tot

    def logged_waits(self):
        return [w for w in self.t["waits"] if w["wait_ms"] >= DEADLOCK_TIMEOUT_MS]

    def truth_lock(self, trace_id, row, start, end):
        """The truth lock of ROW by a transaction of TRACE_ID overlapping
        [start, end] (lockspan's hold), with its transaction."""
        best = None
        for tx in self.by_trace.get(trace_id, ()):
            for lk in tx["locks"]:
                if lk["row"] != row:
                    continue
                if lk["acquired_lo"] - 1000 <= end and start <= tx["released_hi"] + 1000:
                    best = (tx, lk)
        return best

    # ---- the checks ----
    def deadlocks(self):
        td = self.t["deadlocks"]
        ld = self.r["deadlocks"]
        self.check("deadlocks", self.r["summary"]["deadlocks"], len(td),
                   self.r["summary"]["deadlocks"] == len(td))
        hit = 0
        for d in ld:
            t = ms(d["time"])
            if any(x["victim_pid"] in (d["victim_pid"], None) and abs(x["detected_at"] - t) < max(
                    DEADLOCK_TIME_MS, self.tol_t)
                   for x in td):
                hit += 1
        self.check("deadlock victims (pid where the truth knows it, within 100 ms%s)"
                   % (" or the log's second" if self.seconds else ""),
                   hit, len(td), hit == len(td))
        named = sum(1 for d in ld if d.get("victim_trace_id") and any(
            x["victim_trace_id"] == d["victim_trace_id"] for x in td))
        self.check("deadlock victims' trace (request) named", named, len(td),
                   named >= PASS_SHARE * len(td))
        routes = Counter(route_of_label(d.get("victim_code_path")) for d in ld)
        self.check("deadlock victims' route (all POST /transfers)", dict(routes),
                   dict(Counter(x["victim_route"] for x in td)),
                   routes.get("POST /transfers", 0) == len(td))
        f = [x for x in self.r["findings"] if x["rule"] == "inconsistent_lock_order"]
        self.check("finding: inconsistent lock order (transfers lock accounts in request order)",
                   len(f) + len(self.r["lock_order_conflicts"]), "yes", f or self.r["lock_order_conflicts"])

    def serialization(self):
        ts = self.t["serialization_failures"]
        self.check("serialization failures (40001)", self.r["summary"]["serialization_failures"],
                   len(ts), self.r["summary"]["serialization_failures"] == len(ts))
        retried_truth = sum(1 for s in ts if any(
            tx["trace_id"] == s["trace_id"] and tx["attempt"] == s["attempt"] + 1
            for tx in self.by_trace[s["trace_id"]]))
        errs = [e for e in self.r["errors"] if e["sqlstate"] == "40001"]
        retried = sum(1 for e in errs if e["retried"])
        self.check("40001 failures retried", retried, retried_truth,
                   abs(retried - retried_truth) <= 0.1 * retried_truth)

    def rows(self):
        logged = Counter()
        for w in self.logged_waits():
            logged[w["row"]] += w["wait_ms"]
        # a statement's wait is logged when one phase of it (tuple lock,
        # then transaction lock) lasts deadlock_timeout: a row must have a
        # logged wait if a truth wait lasted twice that, may if one lasted it
        must = {w["row"] for w in self.t["waits"] if w["wait_ms"] >= 2 * DEADLOCK_TIMEOUT_MS}
        hot = self.r["hot_rows"]
        mapped = [row_of(h["relation"], h["row_key"]) for h in hot if h["waits"]]
        keyed = sorted(x for x in mapped if x)
        self.check("rows with a logged wait", keyed, "%s (must), %s (may)" % (sorted(must), sorted(logged)),
                   must <= set(keyed) <= set(logged))
        unkeyed = [h["relation"] + " " + h["row_key"] for h in hot if not row_of(h["relation"], h["row_key"])]
        self.check("hot rows lockspan could not key (ctid only; truth: every row has a key)",
                   len(unkeyed), 0, not unkeyed)
        top = [row_of(h["relation"], h["row_key"]) for h in
               sorted(hot, key=lambda h: -h["total_wait_ms"])[:3]]
        self.check("hot rows, top 3 by logged wait", top,
                   [r for r, _ in logged.most_common(3)], top == [r for r, _ in logged.most_common(3)])
        byrow = {row_of(h["relation"], h["row_key"]): h for h in hot}
        for row in ("events:1", "event_totals:1", "accounts:3"):
            th = self.t["hot_rows"][row]
            h = byrow.get(row)
            n = h["occupancy_holds"] if h else None
            self.check("%s holds (occupancy)" % row, n, th["locks"],
                       n is not None and abs(n - th["locks"]) <= 0.1 * th["locks"])
            occ = round(h["occupied_ms"] / 1000, 2) if h else None
            lo, hi = th["hold_total_ms"]
            self.check("%s occupied, s" % row, occ, [round(lo / 1000, 2), round(hi / 1000, 2)],
                       occ is not None and within(h["occupied_ms"], lo, hi))
            mean = round(h["occupied_ms"] / h["occupancy_holds"], 1) if h and h["occupancy_holds"] else None
            self.check("%s mean hold, ms" % row, mean,
                       [round(lo / th["locks"], 1), round(hi / th["locks"], 1)],
                       mean is not None and within(mean, lo / th["locks"], hi / th["locks"]))
            ws = [w for w in self.t["waits"] if w["row"] == row]
            lw = (h["logged_wait_ms"] + h["hidden_wait_ms"]) / 1000 if h else None
            tw = sum(w["wait_ms"] for w in ws) / 1000
            self.check("%s wait, logged + hidden, s" % row, lw and round(lw, 2), round(tw, 2),
                       lw is not None and close(lw * 1000, tw * 1000))

    def paths(self):
        tot = self.route_hold()
        top = tot.most_common(1)[0][0]
        story = self.r.get("story") or {}
        label = story.get("code_path")
        self.check("top code path by row occupancy", label, top, route_of_label(label) == top)
        n = len(self.r["row_occupancy"])
        self.check("code paths told apart (routes holding hot rows)", n, len(tot), n >= len(tot))
        # what the bookings' holds of events:1 were spent on: the partner call
        part = Counter()
        for tx in self.txs:
            if tx["route"] == "POST /bookings" and len(tx["locks"]) == 2:
                a, b = tx["locks"]
                part["span"] += b["sent"] - a["returned"]
                part["sql"] += (tx["released_lo"] - a["acquired_lo"]) - (b["sent"] - a["returned"])
        doing = (story.get("doing") or {}).get("part")
        self.check("top path mostly (truth: POST /bookings, the partner call)", doing,
                   part.most_common(1)[0][0], route_of_label(label) == top and doing == "span")
        ext = [f for f in self.r["findings"] if f["rule"] == "external_call_in_transaction"]
        self.check("finding: external call in transaction blamed on POST /bookings",
                   [f.get("code_path") for f in ext], "POST /bookings",
                   any(route_of_label(f.get("code_path")) == "POST /bookings" for f in ext))
        counters = [row_of(f.get("relation"), f.get("row")) or "%s %s" % (f.get("relation"), f.get("row"))
                    for f in self.r["findings"] if f["rule"] == "hot_counter_row"]
        wrong = [c for c in counters if c.startswith("accounts")]
        self.check("finding: hot counter rows that are balances moved between rows (transfers)",
                   wrong, [], not wrong)

    def holds(self):
        """Each waited-for hold of a row's timeline, against the truth lock
        of that row by the transaction of its trace."""
        counts = [0, 0, 0]
        n = 0
        for hr in self.r["hot_rows"]:
            for h in hr["timeline"]["holds"]:
                hold = dict(h, relation=hr["relation"], row_key=hr["row_key"])
                n += self.one_hold(hold, counts)
        found, good, in_bounds = counts
        self.check("timeline holds whose trace locked that row", found, n, found >= PASS_SHARE * n)
        self.check("timeline holds: hold_ms within max(25 ms, 5 %) of the truth", good, found,
                   good >= PASS_SHARE * found)
        self.check("timeline holds: [hold_min, hold_max] meets the truth", in_bounds, found,
                   in_bounds >= PASS_SHARE * found)

    def one_hold(self, h, counts):
        """Judge one hold of a row's timeline; counts = [found, good,
        in_bounds] is updated. Returns 1 if the hold was judged."""
        row = row_of(h["relation"], h["row_key"])
        if not row or not h.get("trace_id"):
            return 0
        m = self.truth_lock(h["trace_id"], row, ms(h["start"]), ms(h["end"]))
        if not m:
            return 1
        counts[0] += 1
        _, lk = m
        if within(h["hold_ms"], lk["hold_lo_ms"], lk["hold_hi_ms"]):
            counts[1] += 1
        lo = h.get("hold_min_ms", h["hold_ms"])
        hi = h.get("hold_max_ms", h["hold_ms"])
        if lo - self.tol_t <= lk["hold_hi_ms"] and lk["hold_lo_ms"] <= hi + self.tol_t:
            counts[2] += 1
        return 1

    def held_during(self, row, s, e, pid=None, trace_id=None):
        """Whether a truth transaction of PID (or of TRACE_ID) held ROW at
        some time in [s, e]."""
        for tx in self.txs:
            if pid is not None and tx["pid"] != pid:
                continue
            if trace_id is not None and tx["trace_id"] != trace_id:
                continue
            for lk in tx["locks"]:
                if lk["row"] == row and lk["acquired_lo"] - self.tol_t <= e \
                        and s <= tx["released_hi"] + self.tol_t:
                    return True
        return False

    def waits(self):
        """Each logged wait against the truth's: a logged wait is one phase
        (tuple lock, then transaction lock) of a statement's wait, so it
        lies within the truth wait of its pid (or, where the truth knows no
        pid, because the transaction never got a row, of its row)."""
        tw = self.t["waits"]
        match = holder = htrace = wtrace = 0
        lws = self.r["waits"]
        for w in lws:
            row = row_of(w["relation"], w.get("row_key"))
            s, e = ms(w["start"]), ms(w["end"])
            cand = [x for x in tw if (x["waiter_pid"] == w["pid"] or
                                      (x["waiter_pid"] is None and x["row"] == row))
                    and x["sent"] - self.tol_t <= s and e <= x["until"] + 2 * self.tol_t]
            if not cand:
                continue
            x = cand[0]
            match += 1
            if row and self.held_during(row, s, e, pid=w.get("holder_pid")):
                holder += 1
            if row and w.get("holder_trace_id") and \
                    self.held_during(row, s, e, trace_id=w["holder_trace_id"]):
                htrace += 1
            if w.get("trace_id") and w["trace_id"] == x["waiter_trace_id"]:
                wtrace += 1
        self.check("logged waits within a truth wait of their pid",
                   match, len(lws), match >= PASS_SHARE * len(lws))
        self.check("logged waits whose holder_pid held the row during the wait", holder, match,
                   holder >= PASS_SHARE * match)
        self.check("logged waits whose holder's trace held the row during the wait", htrace,
                   match, htrace >= PASS_SHARE * match)
        self.check("logged waits whose waiter's trace is the truth waiter's request", wtrace,
                   match, wtrace >= PASS_SHARE * match)
        fail = Counter(w["outcome"] for w in lws if w["outcome"] != "acquired")
        tf = Counter("deadlock" if x["failed"] and self.sqlstate(x) == "40P01" else
                     "serialization_failure" for x in tw
                     if x["failed"] and x["wait_ms"] >= DEADLOCK_TIMEOUT_MS)
        self.check("logged waits that ended in an error, by outcome", dict(fail), dict(tf),
                   fail == tf)

    def sqlstate(self, wait):
        for tx in self.txs:
            if tx["tx"] == wait["waiter_tx"]:
                return tx["sqlstate"]
        return None

    def slow_requests(self):
        good = n = 0
        for s in self.r["slow_requests"]:
            txs = self.by_trace.get(s["trace_id"], [])
            if not txs:
                continue
            n += 1
            tw = sum(w["wait_ms"] for w in self.t["waits"] if w["waiter_trace_id"] == s["trace_id"])
            if close(s["lock_wait_ms"], tw):
                good += 1
        self.check("slow requests: row-lock wait within max(25 ms, 5 %)", good, n,
                   n and good >= PASS_SHARE * n)
        named = [route_of_label(s["name"]) for s in self.r["slow_requests"]]
        truth = [self.by_trace[s["trace_id"]][0]["route"] for s in self.r["slow_requests"]
                 if self.by_trace.get(s["trace_id"])]
        self.check("slow requests named by their route", sum(1 for x in named if x), len(truth),
                   named == truth)

    def unknowns(self):
        ts = self.r["summary"].get("trace_spans") or {}
        off = ts.get("clock_offset_ms")
        toff = self.t["clock"]["offset_ms_applied"]
        tol = OFFSET_SECONDS_MS if self.seconds else OFFSET_MS
        self.check("clock offset, database minus app, ms (within %g ms)" % tol, off, toff,
                   off is not None and abs(off - toff) <= tol)
        hw = self.r["summary"]["hidden_waits"]["hidden_wait_ms"] / 1000
        th = sum(w["wait_ms"] for w in self.t["waits"] if w["wait_ms"] < DEADLOCK_TIMEOUT_MS) / 1000
        self.check("hidden waiting (waits below deadlock_timeout), s", round(hw, 1), round(th, 1),
                   close(hw * 1000, th * 1000))
        self.check("database spans without a backend pid said (stock pg instrumentation has none)",
                   ts.get("without_pid"), ts.get("database_spans"),
                   ts.get("database_spans") and ts.get("without_pid") == ts.get("database_spans"))
        self.check("spans it could not place said, with why", ts.get("not_placed"), "> 0 (pooled pids)",
                   ts.get("not_placed") and ts.get("not_placed_why"))
        text = json.dumps(self.r).lower()
        said = any(w in text for w in ("pgbouncer", "pooler", "connection pool", "pooled"))
        pids = self.t["backend_pids"]
        self.check("report says one backend pid served many requests (pooler)", said,
                   "%d pids served %d transactions" % (len(pids), sum(p["transactions"] for p in pids.values())),
                   said)
        said = "log_min_duration_statement" in text
        self.check("report says most statements were not logged (log_min_duration_statement = 50)",
                   said, "only statements over 50 ms logged", said)
        if self.rs is None:
            return
        occ = self.rs["row_occupancy"]
        ranged = bool(occ) and all("total_hold_min_ms" in p and "total_hold_max_ms" in p for p in occ)
        self.check("whole-second log alone: occupancy totals given as ranges", ranged, True, ranged)
        tot = self.route_hold()
        top = tot.most_common(1)[0][0]
        label = occ[0]["code_path"] if occ else None
        self.check("whole-second log alone: top code path by row occupancy", label, top,
                   route_of_label(label) == top or (label or "").lower().startswith("update events"))
        n = self.rs["summary"]["deadlocks"]
        self.check("whole-second log alone: deadlocks", n, len(self.t["deadlocks"]),
                   n == len(self.t["deadlocks"]))

    def run(self):
        self.deadlocks()
        self.serialization()
        self.rows()
        self.paths()
        self.holds()
        self.waits()
        self.slow_requests()
        self.unknowns()
        return self.out


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: judge.py TRUTH_JSON REPORT_JSON [STDERR_REPORT_JSON]")
    rs = load(sys.argv[3]) if len(sys.argv) > 3 else None
    for c in Judge(load(sys.argv[1]), load(sys.argv[2]), rs).run():
        print("%-5s %s: lockspan %s, truth %s" % ("ok" if c["ok"] else "WRONG", c["name"],
                                                   c["lockspan"], c["truth"]))


if __name__ == "__main__":
    main()
