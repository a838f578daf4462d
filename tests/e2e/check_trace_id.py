#!/usr/bin/env python3
"""--trace-id (issue 11: the per-request view) against the truth of
samples/hidden-traces, recorded by the client: each request's duration, how
long its statements waited for row locks (a 5 ms pg_stat_activity sampler)
and the code path whose holds covered most of that wait.

Usage: check_trace_id.py LOCKSPAN SAMPLE_DIR [--app-skew-ms N]

The truth names requests, not traces; the trace export the generator wrote
(the input, not lockspan's output) gives each request's trace id: its root
span starts when the request did, on the client's clock, in that session's
code path. With --app-skew-ms N the set's spans are moved N ms later first
(check_hidden.skewed_copy), and the truth is compared the same way.

Asked for every request that waited >= 100 ms, three that never waited, one
given as a traceparent, one id no span carries and a malformed one:
- each asked id gets an entry, in the order given; the unknown one says
  found false and why, stderr names it, the run still exits 0;
- duration within 1 ms of the client's; the row-lock wait within 10 % (or
  25 ms) of the truth and the row for >= 90 % of the requests that waited
  (issue 11's bar), the right code path behind it for >= 95 %; the ones
  that never waited show under 25 ms;
- the Markdown and HTML show each asked request with its sentence;
- a malformed id is a usage error (exit 2) before anything is read.
"""
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile

from lscheck import check, report
from check_hidden import skewed_copy

TOL, ABS_MS = 0.10, 25.0
# The issue asks 90 %; naming the holder when each wait started (not the one
# that held the row for most of it) already gives 91 % here, so the bar is
# set where only the coverage rule (requests.c) passes.
PATH_BAR = 0.95


def ts_us(s):
    return int(datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp() * 1e6)


def root_spans(sample):
    """(start_us, code.function) -> trace id of each root span of the export."""
    out = {}
    for name in os.listdir(sample):
        if not name.endswith(".otlp.jsonl"):
            continue
        for line in open(os.path.join(sample, name)):
            for rs in json.loads(line)["resourceSpans"]:
                for ss in rs["scopeSpans"]:
                    for sp in ss["spans"]:
                        if sp.get("parentSpanId"):
                            continue
                        attrs = {a["key"]: a["value"].get("stringValue") for a in sp["attributes"]}
                        out[(int(sp["startTimeUnixNano"]) // 1000, attrs.get("code.function"))] = \
                            sp["traceId"]
    return out


def near(got, want):
    return abs(got - want) <= max(TOL * want, ABS_MS)


def main():
    lockspan, sample = sys.argv[1], sys.argv[2]
    skew = int(sys.argv[4]) if sys.argv[3:4] == ["--app-skew-ms"] else 0
    truth = json.load(open(os.path.join(sample, "truth.json")))
    with tempfile.TemporaryDirectory() as tmp:
        if skew:
            skewed_copy(sample, os.path.join(tmp, "set"), skew)
            sample = os.path.join(tmp, "set")
        roots = root_spans(sample)
        tid = {}
        for r in truth["requests"]:
            # the export rounds the client's float seconds to the microsecond
            t0 = ts_us(r["start"]) + skew * 1000
            for d in (0, 1, -1, 2, -2):
                if (t0 + d, r["code_path"]) in roots:
                    tid[r["request_id"]] = roots[(t0 + d, r["code_path"])]
                    break
        check(len(tid) == len(truth["requests"]),
              f"every request of the truth has its root span in the export"
              f" ({len(tid)} of {len(truth['requests'])})")
        slow = [r for r in truth["requests"] if r["lock_wait_ms"] >= 100 and r["request_id"] in tid]
        idle = [r for r in truth["requests"] if r["lock_wait_ms"] == 0 and r["request_id"] in tid][:3]
        check(len(slow) >= 20 and len(idle) == 3,
              f"the truth has requests that waited >= 100 ms ({len(slow)}) and that never waited")
        asked = slow + idle
        args = []
        for i, r in enumerate(asked):
            t = tid[r["request_id"]]
            # one as a W3C traceparent, in upper case
            args += ["--trace-id", f"00-{t.upper()}-00f067aa0ba902b7-01" if i == 0 else t]
        unknown = "0123456789abcdef0123456789abcdef"
        args += ["--trace-id", unknown]

        out = {ext: os.path.join(tmp, "r." + ext) for ext in ("json", "md", "html")}
        bad = subprocess.run([lockspan, "analyze", "--db", os.path.join(tmp, "bad.db"),
                              "-o", out["json"], "--trace-id", "not-a-trace", sample],
                             capture_output=True, text=True)
        check(bad.returncode == 2 and "--trace-id" in bad.stderr and "not-a-trace" in bad.stderr,
              f"a malformed --trace-id is a usage error naming it (exit {bad.returncode},"
              f" {bad.stderr.strip()[:200]!r})")
        check(not os.path.exists(out["json"]), "no report written for a malformed --trace-id")

        r = subprocess.run([lockspan, "analyze", "--db", os.path.join(tmp, "s.db"),
                            "-o", out["json"], "-o", out["md"], "-o", out["html"]] + args
                           + [sample], capture_output=True, text=True)
        check(r.returncode == 0, f"lockspan analyze exit {r.returncode}: {r.stderr[-300:]}")
        if r.returncode != 0:
            return report()
        check(unknown in r.stderr, "stderr names the --trace-id no span carries")
        got = json.load(open(out["json"])).get("trace_requests", [])
        want_ids = [tid[x["request_id"]] for x in asked] + [unknown]
        check([g.get("trace_id") for g in got] == want_ids,
              "trace_requests: one entry per --trace-id, in the order given, as 32 lowercase hex")
        by_id = {g.get("trace_id"): g for g in got}

        u = by_id.get(unknown, {})
        check(u.get("found") is False and "no span" in u.get("note", ""),
              f"the unknown trace id: found false and a note ({u})")

        dur_ok = wait_ok = path_ok = row_ok = 0
        misses = []
        for x in slow:
            g = by_id.get(tid[x["request_id"]], {})
            dur_ok += abs(g.get("duration_ms", -1e9) - x["duration_ms"]) <= 1.0
            w = g.get("lock_wait_ms") or 0.0
            ok_w = near(w, x["lock_wait_ms"]) and \
                abs(g.get("lock_wait_share", -1) - x["lock_wait_ms"] / x["duration_ms"]) <= 0.1
            ok_p = (g.get("waited_behind_code_path") or "").split(".")[-1] == \
                x["waited_behind_code_path"]
            ok_r = g.get("waited_for_row") == f"{x['row']['relation']} {x['row']['row_key']}"
            wait_ok += ok_w
            path_ok += ok_p
            row_ok += ok_r
            if not (ok_w and ok_p and ok_r):
                misses.append((x["request_id"], x["lock_wait_ms"], w, x["waited_behind_code_path"],
                               g.get("waited_behind_code_path")))
        n = len(slow)
        check(dur_ok == n, f"duration within 1 ms of the client's for {dur_ok} of {n}")
        check(wait_ok >= 0.9 * n,
              f"row-lock wait (and its share) near the truth for {wait_ok} of {n} (need 90 %)")
        check(path_ok >= PATH_BAR * n,
              f"waited-behind code path right for {path_ok} of {n} (need {PATH_BAR:.0%})")
        check(row_ok >= 0.9 * n, f"row waited for right for {row_ok} of {n} (need 90 %)")
        print(f"  {n} requests that waited >= 100 ms: wait near the truth {wait_ok},"
              f" code path {path_ok}, row {row_ok}")
        for m in misses[:6]:
            print("  miss: %s waited %.0f ms (report %.0f) behind %s (report %s)" % m)
        for x in idle:
            g = by_id.get(tid[x["request_id"]], {})
            check(g.get("found") is True and (g.get("lock_wait_ms") or 0) < ABS_MS,
                  f"{x['request_id']} never waited: report {g.get('lock_wait_ms')} ms")
            check(g.get("waits") == [] or all(w["wait_ms"] < ABS_MS for w in g.get("waits", [])),
                  f"{x['request_id']}: no wait listed")

        # As a reader sees them: Markdown with its backslash escapes undone.
        md = re.sub(r"\\(.)", r"\1", open(out["md"]).read())
        html = open(out["html"]).read()
        check("## Requests asked for (--trace-id)" in md, "the Markdown has the section")
        # The HTML's contents lead to it (issue 36: it sat 6,250 px down, unlisted).
        check('<nav>' in html and '<a href="#trace-requests">' in html.split('</nav>')[0]
              and '<section id="trace-requests">' in html,
              "the HTML's contents list the --trace-id section")
        top = max(slow, key=lambda x: x["lock_wait_ms"])
        t = tid[top["request_id"]]
        sec = md.split("trace " + t, 1)[1].split("\n### ", 1)[0] if ("trace " + t) in md else ""
        check("was queueing for row locks, mostly behind" in sec and
              top["waited_behind_code_path"] in sec,
              f"the Markdown's sentence for the longest waiter {top['request_id']} names its path")
        check("Not in this report" in md.split("trace " + unknown, 1)[-1],
              "the Markdown says the unknown trace is not in the report")
        check(html.count("<h3>") >= len(asked) and t in html and unknown in html and
              "was queueing for row locks" in html,
              "the HTML shows each asked request with its sentence")
    return report()


if __name__ == "__main__":
    sys.exit(main())
