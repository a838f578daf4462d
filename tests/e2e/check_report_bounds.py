#!/usr/bin/env python3
"""Never a confident wrong answer in the report's tables (issue 33's report
items), on samples/blind-rb (a real Rails run on a threshold log:
log_min_duration_statement = 100ms, no BEGIN/COMMIT; warehouses id=1 is
a row only by its 54 slow FOR UPDATEs, 32.6 s, none of its waits logged).

Usage: check_report_bounds.py LOCKSPAN PROJECT_DIR

Analyzed once into a store, then reported whole and over a window:
  - row queueing: a hidden waiting the log cannot show (JSON null) reads
    "unknown" in the Markdown and HTML tables, never "—";
  - row occupancy: the untimed paths (total null) are said to have no
    rank (order_unknown, and an "Order unknown" note in both formats);
    the blocking ranking's paths, no hold of them timed, have a total
    hold of null ("unknown" in the tables), not 0 ms;
  - hot rows: the slow-locker row's waits, total and max wait are bounds
    (wait_bounds), and their cells say so: "≥ 0", "≥ 32.6 s", "≤ 2.0 s";
  - figures over holds none of which was timed are unknown (null, with
    the reason; "unknown" in the tables), not 0 ms: the accounts path's
    hold breakdown (idle and SQL), warehouses id=1's mean hold, occupied
    time and utilisation over its 54 holds (every hot row's here);
  - --since 12:56:40 --until 12:57:02: the slow-locker row is kept, its
    figures those of its 34 lockers' statements inside the window
    (20.7 s, longest 2.0 s), still said bounds;
  - where the log does not show a hold's or transaction's end (every
    hold here is "at least"), its idle and commit time are unknown, not
    0 ms (issue 34): holds[] and the timelines' holds, the root blockers'
    transactions (idle, longest gap, commit, each statement's idle
    before) null with split_unknown_reason, the holder's state unknown;
    "unknown" in the Markdown and HTML (holds table, root blockers), the
    transaction "at least" its length;
  - a null max and p95 hold read "unknown" where the path's holds were
    not timed (both rankings), in both formats; a path that held nothing
    on a complete log (samples/hidden's checkout) keeps "—";
  - samples/blind-pl (no statement logged): summary.hidden_waits'
    logged_wait_ms and statements_waited_unlogged null, as hidden_wait_ms.
Prints one FAIL line per wrong fact, then "N passed, N failed".
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from lscheck import check, report


def run(args):
    p = subprocess.run(args, capture_output=True, text=True)
    check(p.returncode == 0, f"{' '.join(args[1:3])}: exit {p.returncode}: {p.stderr[-300:]}")
    return p.returncode == 0


def md_rows(md, first_head):
    """The rows of the Markdown table whose header starts with first_head,
    as lists of cells."""
    lines = md.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("| " + first_head + " |"):
            rows = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                rows.append([c.strip() for c in row.strip().strip("|").split("|")])
            return rows
    return []


def html_text(page):
    return re.sub(r"<[^>]+>", "", page)


def main():
    lockspan, root = sys.argv[1], sys.argv[2]
    d = os.path.join(root, "samples", "blind-rb")
    tmp = tempfile.mkdtemp(prefix="lockspan-bounds.")
    try:
        db = os.path.join(tmp, "rb.db")
        if not run([lockspan, "ingest", "-q", "--db", db, "--prefix",
                    open(os.path.join(d, "prefix.txt")).read().strip(),
                    os.path.join(d, "postgresql.log")]):
            return report()
        ways = {"whole": [], "window": ["--since", "2026-12-07T12:56:40Z",
                                        "--until", "2026-12-07T12:57:02Z"]}
        m, md, html = {}, {}, {}
        for k, extra in ways.items():
            out = {f: os.path.join(tmp, f"{k}.{f}") for f in ("json", "md", "html")}
            if not run([lockspan, "report", "-q", "--db", db, *extra,
                        "-o", out["json"], "-o", out["md"], "-o", out["html"]]):
                return report()
            m[k] = json.load(open(out["json"]))
            md[k] = open(out["md"], encoding="utf-8").read()
            html[k] = open(out["html"], encoding="utf-8").read()
        r, page = m["whole"], html["whole"]

        # Row queueing: null hidden waiting reads "unknown".
        q = r["row_queueing"]
        check(len(q) > 0 and all(x["hidden_wait_ms_caused"] is None for x in q),
              f"row_queueing: hidden waiting null on a threshold log ({q})")
        rows = md_rows(md["whole"], "Code path | Statements queued behind it")
        check(rows and all(row[2] == "unknown" and row[5] == "unknown" for row in rows),
              f"Markdown queueing: null hidden waiting reads unknown ({rows})")
        tab = re.search(r"Hidden wait caused.*?</table>", page, re.S)
        cells = re.findall(r'<td class="n">([^<]*)</td>', tab.group(0)) if tab else []
        check(cells.count("unknown") == 2 * len(q) and "—" not in cells,
              f"HTML queueing: null hidden waiting reads unknown ({cells})")

        # Row occupancy: no rank for the untimed paths; blocking totals null.
        ro = r["row_occupancy"]
        check(len(ro) == 2 and all(x["total_hold_ms"] is None and x.get("order_unknown") is True
                                   for x in ro),
              f"row_occupancy: untimed paths carry order_unknown "
              f"({[(x['code_path'], x.get('order_unknown')) for x in ro]})")
        for name, text in (("Markdown", md["whole"]), ("HTML", html_text(page))):
            note = re.search(r"Order unknown: ([^\n]*?)\.(?:_|\n|$)", text)
            check(note is not None and all(x["code_path"] in note.group(1) for x in ro)
                  and "not a ranking" in note.group(1),
                  f"the {name} says the occupancy order is unknown ({note and note.group(0)})")
        cp = r["code_paths"]
        check(len(cp) == 2 and all(x["total_hold_ms"] is None for x in cp),
              f"code_paths: no path's untimed hold total said 0 ms "
              f"({[(x['code_path'], x['total_hold_ms']) for x in cp]})")
        rows = md_rows(md["whole"], "Code path | Named by | Blocking episodes")
        check(rows and all(row[4] == "unknown" for row in rows),
              f"Markdown blocking: total hold reads unknown ({[row[4] for row in rows]})")

        # Hot rows: a bounds row's cells are marked.
        wh = next((h for h in r["hot_rows"] if h["row_key"] == "id=1"
                   and h["relation"] == "warehouses"), {})
        b = wh.get("wait_bounds") or {}
        check(b.get("waits") == "at_least" and b.get("total_wait_ms") == "at_least"
              and b.get("max_wait_ms") == "at_most", f"warehouses id=1: wait_bounds {b}")
        rows = [row for row in md_rows(md["whole"], "Relation | Row")
                if row[:2] == ["warehouses", "id=1"]]
        check(rows and rows[0][3:6] == ["≥ 0", "≥ 32.6 s", "≤ 2.0 s"],
              f"Markdown hot rows: warehouses id=1's bounds marked ({rows[:1]})")
        hot = re.search(r"<td>warehouses</td><td>id=1</td>(.*?)</tr>", page, re.S)
        cells = re.findall(r'<td class="n">([^<]*)</td>', hot.group(1)) if hot else []
        check(cells[:3] == ["≥ 0", "≥ 32.6 s", "≤ 2.0 s"],
              f"HTML hot rows: warehouses id=1's bounds marked ({cells[:3]})")
        others = [row for row in md_rows(md["whole"], "Relation | Row")
                  if row[:2] != ["warehouses", "id=1"]]
        check(others and not any("≥" in c or "≤" in c for row in others for c in row),
              "Markdown hot rows: rows with logged waits carry no bound mark")

        # Figures over holds none of which was timed are unknown, not 0 ms
        # (ls_logcover_holds_unknown): the accounts path's hold breakdown,
        # warehouses id=1's mean hold (54 holds, none timed).
        acc = next((x for x in cp if x["code_path"] == "SELECT FOR UPDATE accounts"), {})
        parts = acc.get("hold_breakdown", [])
        check(len(parts) > 0 and all(p["ms"] is None for p in parts)
              and "not knowable" in (acc.get("hold_breakdown_unknown_reason") or ""),
              f"accounts path: hold breakdown null with its reason ({parts}, "
              f"{acc.get('hold_breakdown_unknown_reason')})")
        rows = md_rows(md["whole"], "Code path | Named by | Blocking episodes")
        cells = [row[-1] for row in rows if row[0] == "SELECT FOR UPDATE accounts"]
        check(cells and "unknown" in cells[0] and "0.0 ms" not in cells[0],
              f"Markdown blocking: the accounts path's breakdown reads unknown ({cells})")
        tab = re.search(r"<h3>SELECT FOR UPDATE accounts</h3>(.*?)</table>(.*?)</p>", page, re.S)
        check(tab is not None and "0.0 ms" not in tab.group(1) and "unknown" in tab.group(1)
              and "not knowable" in tab.group(2),
              f"HTML: the accounts path's breakdown reads unknown, its reason said "
              f"({tab and html_text(tab.group(0))[:300]})")
        check(wh.get("occupancy_holds") == 54 and wh.get("mean_hold_ms", 0) is None
              and wh.get("occupied_ms", 0) is None and wh.get("utilisation", 0) is None
              and "not knowable" in (wh.get("hold_unknown_reason") or ""),
              f"warehouses id=1: mean hold, occupied and utilisation null over its "
              f"{wh.get('occupancy_holds')} untimed holds ({wh.get('mean_hold_ms')}, "
              f"{wh.get('occupied_ms')}, {wh.get('utilisation')})")
        untimed = [h for h in r["hot_rows"] if h.get("occupancy_holds")]
        check(untimed and all(h["mean_hold_ms"] is None for h in untimed),
              f"no hot row's mean hold is 0 ms on this log "
              f"({[(h['row_key'], h['mean_hold_ms']) for h in untimed]})")
        rows = [row for row in md_rows(md["whole"], "Relation | Row")
                if row[:2] == ["warehouses", "id=1"]]
        check(rows and rows[0][8] == "unknown",
              f"Markdown hot rows: warehouses id=1's mean hold reads unknown ({rows[:1]})")

        # Idle and commit of holds whose end the log does not show: null,
        # "unknown", the holder's state unknown (ls_logcover_split_unknown).
        holds = r["holds"] + [h for x in r["hot_rows"] for h in x["timeline"]["holds"]
                              if h["waits"] > 0]
        check(len(r["holds"]) == 6 and all(h.get("hold_at_least") for h in holds),
              f"holds: 6 listed, every one 'at least' ({len(r['holds'])})")
        check(all(h["idle_ms"] is None and h["commit_ms"] is None
                  and h["head_state"] == "unknown" and "idle_min_ms" not in h
                  and "not knowable" in (h.get("split_unknown_reason") or "") for h in holds),
              f"holds: idle and commit null, state unknown, with the reason "
              f"({[(h['idle_ms'], h['commit_ms'], h['head_state']) for h in holds]})")
        rows = md_rows(md["whole"], "Row | Holder pid · code path")
        check(len(rows) == 6 and all(row[6] == "unknown" and row[8:10] == ["unknown", "unknown"]
                                     for row in rows),
              f"Markdown holds: state, idle and commit read unknown ({[row[6:10] for row in rows]})")
        tab = re.search(r'<section id="holds">.*?</table>', page, re.S)
        trs = re.findall(r"<tr><td>.*?</tr>", tab.group(0)) if tab else []
        cells = [re.findall(r"<td[^>]*>([^<]*)</td>", tr) for tr in trs]
        # ... Mostly, SQL, Idle, Commit, End evidence
        check(len(cells) == 6 and all(c[-5] == "unknown" and c[-3:-1] == ["unknown", "unknown"]
                                      for c in cells),
              f"HTML holds: state, idle and commit read unknown ({[c[-5:-1] for c in cells]})")
        # One xid, one transaction: a root blocker is listed once per pid
        # and xid (pid 22163's xid 1432 was listed twice, its waits split
        # between two of its statements' transactions, after go34).
        ids = [(x["pid"], x["xid"]) for x in r["root_blockers"] if x.get("xid")]
        check(len(ids) == len(set(ids)),
              f"root blockers: each pid and xid once ({sorted(ids)})")
        # (as many as the log ties a transaction to: 4 at f96521b, 2 since
        # go34 names two roots by their pid alone)
        roots = [x for x in r["root_blockers"] if x.get("transaction")]
        n = len(roots)
        check(n >= 2 and all(
            x["transaction"]["idle_ms"] is None and x["transaction"]["max_idle_ms"] is None
            and x["transaction"]["commit_ms"] is None and x["head_state"] == "unknown"
            and x["transaction"]["split_unknown_reason"]
            and all(st["idle_before_ms"] is None for st in x["transaction"]["statements"])
            for x in roots),
              f"root blockers: their transactions' idle, gap and commit null, state unknown "
              f"({[(x['head_state'], x['transaction']['idle_ms']) for x in roots]})")
        check("idle in transaction 0.0 ms" not in md["whole"]
              and md["whole"].count("idle in transaction unknown (longest gap unknown), "
                                    "commit unknown") == n
              and md["whole"].count("- Transaction lasted at least ") == n
              and "it was mostly idle in transaction" not in md["whole"],
              "Markdown root blockers: idle, gap and commit read unknown, the length at least")
        text = html_text(page)
        check(text.count("Transaction lasted at least ") == n
              and "of it idle between statements" not in text,
              "HTML root blockers: the length at least, the idle unknown")

        # A null max and p95 hold read "unknown" where no hold was timed.
        for head in ("Code path | Named by | Blocking episodes",
                     "Code path | Named by | Holds of hot rows"):
            rows = md_rows(md["whole"], head)
            check(len(rows) == 2 and all(row[4:7] == ["unknown"] * 3 for row in rows),
                  f"Markdown {head.split('|')[2].strip()}: total, max, p95 hold read unknown "
                  f"({[row[4:7] for row in rows]})")
        for head in ("Waiting caused</th>", "Share of hot-row time %</th>"):
            tab = re.search(r"p95 hold</th><th class=\"n\">" + re.escape(head) + r".*?</table>",
                            page, re.S)
            rows = re.findall(r"<tr><td>.*?</tr>", tab.group(0)) if tab else []
            check(len(rows) == 2 and all(re.findall(r'<td class="n">([^<]*)</td>', tr)[2:5]
                                         == ["unknown"] * 3 for tr in rows),
                  f"HTML {head}: total, max, p95 hold read unknown")

        # A window: the slow-locker row is kept with the window's lockers.
        w = m["window"]
        wh = next((h for h in w["hot_rows"] if h["row_key"] == "id=1"
                   and h["relation"] == "warehouses"), None)
        check(wh is not None, "--since/--until: warehouses id=1 (its lockers inside) is kept")
        if wh:
            check(wh["waits"] == 0 and abs(wh["total_wait_ms"] - 20691.008) < 0.01
                  and abs(wh["max_wait_ms"] - 2043.262) < 0.01,
                  f"--since/--until: its figures are the window's 34 lockers' "
                  f"({wh['waits']}, {wh['total_wait_ms']}, {wh['max_wait_ms']})")
            check((wh.get("wait_bounds") or {}).get("total_wait_ms") == "at_least",
                  "--since/--until: still said a bound")
            check(wh["first_wait"] >= "2026-12-07T12:56:40", f"first_wait {wh['first_wait']}")

        # A complete log's path that held nothing: its null max hold is no
        # unknown ("—"), samples/hidden's checkout (blocking ranking).
        hd = os.path.join(root, "samples", "hidden")
        out = {f: os.path.join(tmp, f"hidden.{f}") for f in ("json", "md")}
        if run([lockspan, "analyze", "-q", "--db", os.path.join(tmp, "hidden.db"), "--prefix",
                open(os.path.join(hd, "prefix.txt")).read().rstrip("\n"),
                os.path.join(hd, "postgresql.log"), "-o", out["json"], "-o", out["md"]]):
            h = json.load(open(out["json"]))
            co = next((x for x in h["code_paths"] if x["code_path"] == "checkout"), {})
            check(co.get("blocking_episodes") == 0 and co.get("total_hold_ms") == 0
                  and co.get("max_hold_ms", 0) is None and "hold_unknown_reason" not in co,
                  f"hidden: checkout held nothing others waited for ({co})")
            rows = [row for row in md_rows(open(out["md"], encoding="utf-8").read(),
                                           "Code path | Named by | Blocking episodes")
                    if row[0] == "checkout"]
            check(rows and rows[0][4:7] == ["0.0 ms", "—", "—"],
                  f"hidden: checkout's max and p95 hold read — ({rows[:1]})")

        # A log with no statement (samples/blind-pl): nothing rebuilt, so
        # the logged share and the count of unlogged waits are unknown too.
        pl = os.path.join(root, "samples", "blind-pl")
        out = os.path.join(tmp, "pl.json")
        if run([lockspan, "analyze", "-q", "--db", os.path.join(tmp, "pl.db"),
                os.path.join(pl, "postgresql.log"), "-o", out]):
            hw = json.load(open(out))["summary"]["hidden_waits"]
            check(hw.get("reconstructed") is False
                  and all(k in hw and hw[k] is None for k in
                          ("hidden_wait_ms", "logged_wait_ms", "statements_waited_unlogged"))
                  and "not knowable" in (hw.get("unknown_reason") or ""),
                  f"blind-pl: hidden_waits' figures null with the reason ({hw})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report()


if __name__ == "__main__":
    sys.exit(main())
