#!/usr/bin/env python3
"""The report's content beside every pid, against the application's truth
and the store: samples/app* (each request's pid, code path, trace and its
waits as the client measured them, with an OTLP export) and
samples/realistic (each transaction's pid, code path and times; its csvlog
has queued blockers, a deadlock, errors and hidden waits).

Usage: check_content.py LOCKSPAN SAMPLE_DIR

Analyzes the log (with the OTLP export where there is one) into JSON,
Markdown and HTML, and checks:
- every pid of the JSON (waits: waiter, direct blocker, holder, root; the
  timeline's waits, holds and hidden waits and whom they queued behind; the
  root blockers of each hot row and of the report; holds; the worst
  moment's tree; deadlock victims, edges and processes; errors and their
  causes) has its code path, code path source, trace id and tx id beside
  it, and the code path (and trace id) is the one the truth recorded for
  that pid at that time;
- each reported wait names the waiter's and the root blocker's code path
  the truth recorded for that pid at that time, with the request's trace id;
- every JSON tx_id / trace_id beside a pid is the store's (lock_waits,
  holds, tx_code);
- the lock tree at the worst moment lists a pid once: a backend waits for
  one lock at a time, and the truth has each listed pid waiting then;
- every pid of the Markdown's waits, holds, lock tree and root blockers
  shows the code path the JSON gives it;
- anywhere in the Markdown (tables, headings, mermaid charts) and in the
  HTML (text, SVG tooltips and lane labels), a session's pid is followed by
  " · " and a code path the truth gives that pid: a pid without its path
  fails.
"""
import datetime
import html
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

SLACK = 0.5  # s: the application's clock is up to 300 ms off in app-skew


def ts(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def md_text(s):
    """A Markdown cell's text as a reader sees it (backslash escapes undone)."""
    return re.sub(r"\\([\\`*_{}\[\]()#+\-.!|<>~&$])", r"\1", s)


def truth_units(truth):
    """The truth's transactions as {pid, start, end, function, trace_id}:
    samples/app* records requests, samples/realistic transactions."""
    out = []
    for r in truth.get("requests", []):
        tx = r.get("transaction") or {}
        if r.get("pid") and tx.get("start"):
            out.append({"pid": r["pid"], "start": ts(tx["start"]), "end": ts(tx["end"]),
                        "function": r["function"], "trace_id": r["trace_id"]})
    if "requests" not in truth:
        for x in truth.get("transactions", []):
            out.append({"pid": x["pid"], "start": ts(x["start"]), "end": ts(x["end"]),
                        "function": x["code_path"], "trace_id": None})
    return out


def truth_request(units, pid, t):
    """The transaction of backend `pid` that spans time t (the nearest,
    within SLACK: a pid serves one request after another)."""
    best, dist = None, SLACK
    for r in units:
        if r["pid"] != pid:
            continue
        d = max(0.0, r["start"] - t, t - r["end"])
        if d <= dist:
            best, dist = r, d
    return best


def pid_fields(rep):
    """Every pid of the JSON report: (where, object, pid key, time or None,
    (lo, hi) window or None). The pid key's code path fields carry its
    prefix: blocker_pid -> blocker_code_path."""
    out = []
    for w in rep["waits"]:
        for k in ("pid", "blocker_pid", "holder_pid", "root_pid"):
            out.append(("wait", w, k, ts(w["start"]), None))
    for h in rep["hot_rows"]:
        tl = h["timeline"]
        for w in tl["waits"]:
            for k in ("pid", "blocker_pid", "holder_pid", "root_pid"):
                out.append(("timeline wait", w, k, ts(w["start"]), None))
        for x in tl["holds"]:
            out.append(("timeline hold", x, "pid", ts(x["start"]), None))
        for x in tl["hidden_waits"]:
            out.append(("hidden wait", x, "pid", ts(x["start"]), None))
            out.append(("hidden wait", x, "behind_pid", ts(x["start"]), None))
        window = (ts(h["first_wait"]), ts(h["last_wait_end"] or h["first_wait"]))
        for x in h.get("root_blockers", []):
            out.append(("hot row root blocker", x, "pid", None, window))
    for x in rep["holds"]:
        out.append(("hold", x, "pid", ts(x["start"]), None))
    for x in rep["root_blockers"]:
        out.append(("root blocker", x, "pid", ts(x["first_wait"]), None))
    wm = rep["worst_moment"]
    for x in (wm or {}).get("waits", []):
        for k in ("pid", "blocker_pid", "holder_pid", "root_pid"):
            out.append(("worst moment", x, k, ts(wm["time"]), None))
    for d in rep["deadlocks"]:
        t = ts(d["time"])
        out.append(("deadlock victim", d, "victim_pid", t, None))
        for e in d["edges"]:
            out.append(("deadlock edge", e, "waiter_pid", t, None))
            out.append(("deadlock edge", e, "blocker_pid", t, None))
        for p in d["processes"]:
            out.append(("deadlock process", p, "pid", t, None))
    for e in rep["errors"]:
        out.append(("error", e, "pid", ts(e["time"]), None))
        out.append(("error", e, "cause_pid", ts(e["time"]), None))
    return out


def paths_of(units, pid, lo, hi):
    """The truth's code paths of pid in [lo, hi] (give or take SLACK)."""
    return {u["function"] for u in units
            if u["pid"] == pid and u["start"] <= hi + SLACK and u["end"] >= lo - SLACK}


def fmt_duration(ms):
    """A duration as the reports write it (docs: "350 ms", "78.1 s",
    "12 min 34 s", "1 h 02 min")."""
    if ms < 10:
        return f"{ms:.1f} ms"
    if ms < 999.5:
        return f"{ms:.0f} ms"
    if ms < 599950:
        return f"{ms / 1000:.1f} s"
    if ms < 3599500:
        s = int(ms / 1000 + 0.5)
        return f"{s // 60} min {s % 60:02d} s"
    m = int(ms / 60000 + 0.5)
    return f"{m // 60} h {m % 60:02d} min"


def check_findings(rep):
    """Findings read as people write durations: no raw "1301 ms", and each
    duration field of a finding appears in its evidence in words."""
    for f in rep["findings"]:
        ev = f["evidence"] or ""
        check(not re.search(r"\b\d{4,}(\.\d+)? ms\b", ev), f"finding {f['rule']}: no raw ms: {ev}")
        for k, v in f.items():
            if k.endswith("_ms") and k != "weight_ms" and isinstance(v, (int, float)):
                check(fmt_duration(v) in ev, f"finding {f['rule']}: {k} {v} as "
                      f"{fmt_duration(v)!r} in {ev!r}")
        if isinstance(f.get("window_s"), (int, float)):
            check(fmt_duration(f["window_s"] * 1000) in ev, f"finding {f['rule']}: window")
    check(len(rep["findings"]) > 0, "the report has findings")


def pids_with_paths(text, pids, where, units):
    """Every session pid standing alone in text must be followed by " · "
    and a code path the truth gives that pid."""
    allpaths = {}
    for u in units:
        allpaths.setdefault(u["pid"], set()).add(u["function"])
    n = 0
    for m in re.finditer(r"(?<![\w.#:-])(\d{3,7})(?![\w.:])", text):
        pid = int(m.group(1))
        if pid not in pids:
            continue
        n += 1
        after = text[m.end():m.end() + 200]
        ok = after.startswith(" · ")
        if ok and pid in allpaths:
            ok = any(after[3:].startswith(p[:18]) for p in allpaths[pid])
        check(ok, f"{where}: pid {pid} with its code path: "
                  f"{text[max(0, m.start() - 40):m.end() + 40]!r}")
    return n


def main():
    lockspan, sample = sys.argv[1], sys.argv[2]
    truth = json.load(open(os.path.join(sample, "truth.json")))
    units = truth_units(truth)
    traced = "requests" in truth
    if traced:
        inputs = [os.path.join(sample, "postgresql.log"),
                  os.path.join(sample, "traces.otlp.jsonl")]
    else:
        inputs = [os.path.join(sample, "postgresql.csv")]
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "s.db")
        js, md = os.path.join(tmp, "r.json"), os.path.join(tmp, "r.md")
        page = os.path.join(tmp, "r.html")
        r = subprocess.run([lockspan, "analyze", "-q", "--db", db, "-o", js, "-o", md,
                            "-o", page] + inputs)
        check(r.returncode == 0, "analyze")
        rep = json.load(open(js))
        text = open(md).read()
        con = sqlite3.connect(db)

        # Every pid of the JSON: its code path fields, and the truth's path.
        fields = pid_fields(rep)
        seen = {}
        for where, o, key, t, window in fields:
            if o.get(key) is None:
                continue
            pre = key[:-3]
            pid = o[key]
            seen[where] = seen.get(where, 0) + 1
            check(all(pre + f in o for f in ("tx_id", "code_path", "code_path_source",
                                             "trace_id")),
                  f"{where} {key} {pid}: tx id, code path, its source and trace id beside it")
            if t is not None:
                req = truth_request(units, pid, t)
                if req:
                    check(o.get(pre + "code_path") == req["function"],
                          f"{where} {key} {pid}: code path {o.get(pre + 'code_path')} "
                          f"(truth {req['function']})")
                    if traced:
                        check(o.get(pre + "trace_id") == req["trace_id"],
                              f"{where} {key} {pid}: trace id")
            else:
                want = paths_of(units, pid, *window)
                if want:
                    check(o.get(pre + "code_path") in want,
                          f"{where} {key} {pid}: code path {o.get(pre + 'code_path')} "
                          f"(truth {sorted(want)})")
        check_findings(rep)
        # The places this sample exercises (realistic: a queued blocker that
        # holds no row, a deadlock, errors, hidden waits).
        must = ["wait", "timeline wait", "timeline hold", "hot row root blocker", "hold",
                "root blocker", "worst moment", "hidden wait"]
        if not traced:
            must += ["deadlock victim", "deadlock edge", "deadlock process", "error"]
            check(any(w["blocker_pid"] != w["holder_pid"] for w in rep["waits"]),
                  "a wait whose direct blocker is queued, not holding the row")
        for where in must:
            check(seen.get(where, 0) > 0, f"the report has pids in {where}")
        for w in rep["waits"]:
            tx = con.execute("SELECT blocker_tx FROM lock_waits WHERE wait_id = ?",
                             (w["wait_id"],)).fetchone()
            check(w.get("blocker_tx_id") == tx[0] and w.get("blocker_tx") == tx[0],
                  f"wait {w['wait_id']}: blocker tx is the store's")
        for h in rep["hot_rows"]:
            for x in h.get("root_blockers", []):
                n = con.execute("SELECT count(*) FROM lock_waits WHERE row_id = ? AND"
                                " root_pid = ? AND root_tx IS ?",
                                (h["row_id"], x["pid"], x["tx_id"])).fetchone()[0]
                check(n > 0, f"hot row {h['row_id']} root blocker {x['pid']}: the store's tx")
            check(sorted({x["pid"] for x in h.get("root_blockers", [])}) ==
                  sorted(set(h["root_blocker_pids"])),
                  f"hot row {h['row_id']}: root blockers are root_blocker_pids")

        # Markdown and HTML: a session's pid never stands without its path.
        pids = {p for (p,) in con.execute("SELECT DISTINCT pid FROM sessions")}
        md_plain = re.sub(r"#(\d+);", lambda m: chr(int(m.group(1))), md_text(text))
        n = pids_with_paths(md_plain, pids, "markdown", units)
        check(n >= len(fields) // 4, f"markdown: {n} pids checked")
        raw = open(page).read()
        body = re.sub(r"<style.*?</style>", "", raw, flags=re.S)
        svgs = re.findall(r"<svg.*?</svg>", body, flags=re.S)
        visible = html.unescape(re.sub(r"<[^>]+>", "", re.sub(r"<svg.*?</svg>", "", body,
                                                               flags=re.S)))
        n = pids_with_paths(visible, pids, "html", units)
        check(n >= min(len(rep["waits"]), 10), f"html: {n} pids checked")
        tips = [html.unescape(t) for sv in svgs
                for t in re.findall(r"<title>(.*?)</title>", sv, flags=re.S)]
        labels = [html.unescape(re.sub(r"<title>.*?</title>", "", t, flags=re.S))
                  for sv in svgs for t in re.findall(r'<text class="lane[^"]*"[^>]*>(.*?)</text>',
                                                     sv, flags=re.S)]
        labels = [x for x in labels if x.startswith("pid ")]  # not the queue's
        n = pids_with_paths("\n".join(tips), pids, "html tooltip", units)
        check(n > 0 and labels, f"html: {n} pids in SVG tooltips, {len(labels)} lane labels")
        for lab in labels:
            check(re.fullmatch(r"pid \d+ · .+", lab) is not None, f"html lane label {lab!r}")

        # Waits: code paths and traces against the truth.
        for w in rep["waits"]:
            t = ts(w["start"])
            req = truth_request(units, w["pid"], t)
            if not req:
                continue
            check(w["code_path"] == req["function"],
                  f"wait of {w['pid']}: code path {w['code_path']} (truth {req['function']})")
            if traced:
                check(w["trace_id"] == req["trace_id"], f"wait of {w['pid']}: trace id")
            root = truth_request(units, w["root_pid"], t) if w["root_pid"] else None
            if root:
                check(w["root_code_path"] == root["function"],
                      f"wait of {w['pid']}: root {w['root_pid']} code path "
                      f"{w['root_code_path']} (truth {root['function']})")

        # JSON against the store.
        for w in rep["waits"]:
            tx = con.execute("SELECT waiter_tx, holder_tx, root_tx FROM lock_waits"
                             " WHERE wait_id = ?", (w["wait_id"],)).fetchone()
            check((w["tx_id"], w["holder_tx_id"], w["root_tx_id"]) == tx,
                  f"wait {w['wait_id']}: tx ids are the store's")
            trace = con.execute("SELECT trace_id FROM tx_code WHERE tx_id = ?",
                                (w["tx_id"],)).fetchone()
            check(w["trace_id"] == (trace[0] if trace else None),
                  f"wait {w['wait_id']}: trace id is the store's")
        for h in rep["holds"]:
            n = con.execute("SELECT count(*) FROM holds WHERE tx_id = ? AND pid = ?",
                            (h["tx_id"], h["pid"])).fetchone()[0]
            check(n >= 1, f"hold of {h['pid']}: tx {h['tx_id']} is the store's")
            check(h["code_path"] is not None, f"hold of {h['pid']}: a code path")
        for rb in rep["root_blockers"]:
            check(rb["code_path"] is not None and
                  rb["tx_id"] == (rb["transaction"] or {}).get("tx_id"),
                  f"root blocker {rb['pid']}: code path and tx")

        # The lock tree at the worst moment.
        wm = rep["worst_moment"]
        check(wm is not None, "a worst moment")
        if wm:
            t = ts(wm["time"])
            pids = [x["pid"] for x in wm["waits"]]
            check(len(pids) == len(set(pids)), f"worst moment: each pid once {sorted(pids)}")
            for p in pids:
                check(any(x["waiter_pid"] == p and ts(x["wait_start"]) - SLACK <= t <=
                          ts(x["wait_end"]) + SLACK for x in truth["waits"]),
                      f"worst moment: pid {p} was waiting then")

        # Markdown: the code path beside each pid.
        def section(title):
            return text.split("## " + title)[1].split("\n## ")[0]

        rows = [l for l in section("Lock waits").split("\n") if re.match(r"^\| 20\d\d-", l)]
        for w, row in zip(rep["waits"], rows):
            cells = [md_text(c.strip()) for c in re.split(r"(?<!\\)\|", row.strip()[1:-1])]
            want = f"{w['pid']} · {w['code_path']}" if w["code_path"] else str(w["pid"])
            check(cells[1] == want, f"markdown wait: {cells[1]!r} (want {want!r})")
            want = f"{w['root_pid']} · {w['root_code_path']}" if w["root_code_path"] \
                else str(w["root_pid"])
            check(cells[8] == want, f"markdown wait root: {cells[8]!r} (want {want!r})")
            want = f"{w['blocker_pid']} · {w['blocker_code_path']}" \
                if w["blocker_code_path"] else str(w["blocker_pid"])
            check(cells[7] == want, f"markdown wait blocker: {cells[7]!r} (want {want!r})")
        rows = [l for l in section("Lock tree at the worst moment").split("\n")
                if re.match(r"^\| \d", l)]
        check(len(rows) == len(wm["waits"]) if wm else True, "markdown tree rows")
        for x, row in zip(wm["waits"] if wm else [], rows):
            cells = [md_text(c.strip()) for c in re.split(r"(?<!\\)\|", row.strip()[1:-1])]
            check(cells[1] == f"{x['pid']} · {x['code_path']}",
                  f"markdown tree: {cells[1]!r}")
        for rb in rep["root_blockers"]:
            head = f"### pid {rb['pid']} · {rb['code_path']}"
            check(any(md_text(l).startswith(head) for l in section("Root blockers").split("\n")),
                  f"markdown root blocker: {head}")
    return report()


if __name__ == "__main__":
    sys.exit(main())
