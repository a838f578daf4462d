#!/usr/bin/env python3
"""Correlation on a realistic application's log against its client-side
truth (samples/realistic, see samples/README.md): extended protocol with and
without logged parameters, server-side prepared statements, PL/pgSQL and SQL
functions, a trigger on a counter row, SQL PREPARE/EXECUTE, a multixact, a
deadlock, a lock_timeout, and short holds nobody waited for.

Usage: check_realistic.py LOCKSPAN SAMPLE_DIR

Two analyses of the same run:
  csvlog  `lockspan analyze -q --db S.db --format json -o r.json DIR` (the
          directory holds postgresql.log and .csv; the csvlog is read, with
          millisecond times);
  %t      the stderr log alone (`--prefix` from prefix.txt), whole seconds.
On each, against truth.json and the store (docs/store.md):
  - every truth session is a store session (same %c and pid);
  - every logged wait: one store wait per truth wait of that waiter session
    (in log order), its direct blocker (pid and session), its root session,
    its logical row (relation + row_key `col=value`, never a `ctid ...`
    fragment), its outcome and start; a timed-out wait's waited_ms is the
    time to the ERROR (csvlog: within 25 ms; %t: within the second);
  - every truth hot row is one store row with `grouped_by` set, and every
    store row that was waited on is a truth hot row;
  - every truth hold (every transaction that locked a hot row, waited for or
    not) has a store hold of the same session and row: start and end within
    max(25 ms, 5 % of the hold) (%t: the same second), `waits` > 0 exactly
    when someone waited for it, in the right order on its row; no store hold
    on a hot row that the truth does not have; no (tx_id, row_id) twice;
  - the JSON report's two code-path rankings equal the truth's: row
    occupancy (every hold) and blocking (holds others waited for): holds,
    total and max hold (csvlog: within the summed hold tolerances; %t:
    counts only); the first path (csvlog) the truth's: occupancy by hold
    time, blocking by the waiting its holds caused (issue 34).
Prints one FAIL line per wrong fact, then "N passed, N failed".
"""
import datetime
import json
import math
import os
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

TOL_MS = 25.0        # holds and timed-out waits: absolute tolerance
TOL_PCT = 0.05       # holds: relative tolerance
START_SLACK = 0.08   # a wait's start: client/server skew + the log's ms (s)


def ts(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def tol_s(hold_ms):
    return max(TOL_MS, TOL_PCT * hold_ms) / 1000.0


def same_second(store_us, truth_s):
    """A whole-second log: the store's time is in the truth's second (25 ms
    either side for client/server skew at a second's edge)."""
    if store_us is None:
        return False
    sec = math.floor(store_us / 1e6)
    return sec in {math.floor(truth_s - TOL_MS / 1000), math.floor(truth_s + TOL_MS / 1000)}


def analyze(lockspan, tmp, name, inputs, prefix=None):
    db_path = os.path.join(tmp, name + ".db")
    out = os.path.join(tmp, name + ".json")
    cmd = [lockspan, "analyze", "-q", "--db", db_path]
    if prefix is not None:
        cmd += ["--prefix", prefix]
    subprocess.run(cmd + ["--format", "json", "-o", out] + inputs, check=True)
    return sqlite3.connect(db_path), json.load(open(out))


def unknowable(truth):
    """Truth holds the log cannot show: a session that logs no parameters
    (log_parameter_max_length = 0) ran a $n statement, nobody waited for it
    and it did not wait itself, so nothing in the log names its row. They
    are listed and left out of the comparison, never counted as passed."""
    no_params = {s["session_id"] for s in truth["sessions"]
                 if s.get("log_parameter_max_length") == 0}
    waited_tx = {(w["waiter_session_id"], w["waiter_tx"]) for w in truth["waits"]}
    return {i for i, h in enumerate(truth["holds"])
            if h["session_id"] in no_params and "$" in h["locking_statement"]
            and not h["waits"] and (h["session_id"], h["tx"]) not in waited_tx}


def caused_by_path(truth):
    """Code path -> the waiting (ms) its holds caused: each truth wait given
    to the path of the transaction that held the row (holder_tx)."""
    path = {h["tx"]: h["code_path"] for h in truth["holds"]}
    caused = {}
    for w in truth["waits"]:
        p = path.get(w["holder_tx"])
        caused[p] = caused.get(p, 0.0) + w["waited_ms"]
    return caused


def check_analysis(label, db, rep, truth, whole_seconds):
    q = lambda sql, *a: db.execute(sql, a).fetchall()
    say = lambda what: f"[{label}] {what}"
    hidden = unknowable(truth)
    for i in sorted(hidden):
        h = truth["holds"][i]
        print(say(f"not comparable: {h['scenario']} hold #{h['tx']} of {h['relation']} "
                  f"{h['row_key']} by {h['pid']} ({h['code_path']}): its statement's "
                  f"parameters are not logged and no wait names its row"))
    truth = dict(truth, holds=[h for i, h in enumerate(truth["holds"]) if i not in hidden])
    # The rankings' truth, from the comparable holds.
    rank = {"occupancy": {}, "blocking": {}}
    for h in truth["holds"]:
        for name in ("occupancy", "blocking") if h["waits"] else ("occupancy",):
            r = rank[name].setdefault(h["code_path"], {"code_path": h["code_path"], "holds": 0,
                                                       "total_hold_ms": 0.0, "max_hold_ms": 0.0})
            r["holds"] += 1
            r["total_hold_ms"] += h["hold_ms"]
            r["max_hold_ms"] = max(r["max_hold_ms"], h["hold_ms"])
    for name, want in rank.items():
        given = {r["code_path"]: r for r in truth["rankings"][name]}
        for path, r in want.items():
            if not hidden:
                check(given.get(path, {}).get("holds") == r["holds"],
                      say(f"truth {name} ranking of {path} matches its holds"))
    truth["rankings"] = {name: list(want.values()) for name, want in rank.items()}

    # Sessions.
    sessions = {r[0]: (r[1], r[2]) for r in q("SELECT session_id, pg_session, pid FROM sessions")}
    by_key = {k: (sid, pid) for sid, (k, pid) in sessions.items()}
    for s in truth["sessions"]:
        got = by_key.get(s["session_id"])
        check(got is not None and got[1] == s["pid"],
              say(f"session {s['session_id']} (pid {s['pid']}, {s['application_name']}): "
                  f"{'pid ' + str(got[1]) if got else 'not in the store'}"))
    key_of = lambda sid: sessions.get(sid, (None, None))[0]

    # Waits, per waiter session in log order.
    truth_waits = {}
    for w in truth["waits"]:
        truth_waits.setdefault(w["waiter_session_id"], []).append(w)
    for sess, tws in truth_waits.items():
        tws.sort(key=lambda w: w["wait_start"])
        rows = q("SELECT w.wait_id, w.blocker_pid, w.blocker_session, w.root_session, w.relation,"
                 " r.row_key, w.outcome, w.start_ts, w.waited_ms, w.row_evidence"
                 " FROM lock_waits w JOIN sessions s ON s.session_id = w.session_id"
                 " LEFT JOIN rows r ON r.row_id = w.row_id"
                 " WHERE s.pg_session = ? ORDER BY w.first_event", sess)
        check(len(rows) == len(tws),
              say(f"waiter {sess}: {len(rows)} store waits, truth {len(tws)}"))
        for t, r in zip(tws, rows):
            wid, bpid, bsess, rsess, rel, key, outcome, start, waited, evidence = r
            tag = say(f"{t['scenario']} wait of {t['waiter_pid']} ({sess}, {t['waiter_code_path']})"
                      f" for {t['relation']} {t['row_key']}")
            check(bpid == t["direct_blocker_pid"] and key_of(bsess) == t["direct_blocker_session_id"],
                  f"{tag}: direct blocker {bpid} ({key_of(bsess)}), truth {t['direct_blocker_pid']}"
                  f" ({t['direct_blocker_session_id']})")
            check(key_of(rsess) == t["root_session_id"],
                  f"{tag}: root session {key_of(rsess)}, truth {t['root_session_id']}")
            check(rel == t["relation"] and key == t["row_key"],
                  f"{tag}: keyed to {rel} {key!r} (evidence {evidence!r})")
            check(key is None or not key.startswith("ctid"),
                  f"{tag}: a ctid fragment {key!r} where the row is known")
            check(outcome == t["outcome"], f"{tag}: outcome {outcome}, truth {t['outcome']}")
            slack = 1.0 + START_SLACK if whole_seconds else START_SLACK
            check(start is not None and abs(start / 1e6 - ts(t["wait_start"])) < slack,
                  f"{tag}: start {start}, truth {t['wait_start']}")
            if "time_to_error_ms" in t:
                lim = 1000.0 + TOL_MS if whole_seconds else TOL_MS
                check(waited is not None and abs(waited - t["time_to_error_ms"]) <= lim,
                      f"{tag}: waited_ms {waited}, truth time to the error "
                      f"{t['time_to_error_ms']} (within {lim:g} ms)")

    # Logical rows.
    hot = sorted({(w["relation"], w["row_key"]) for w in truth["waits"]})
    for rel, key in hot:
        rows = q("SELECT grouped_by FROM rows WHERE relation = ? AND row_key = ?", rel, key)
        check(len(rows) == 1, say(f"hot row {rel} {key}: {len(rows)} store rows"))
        check(len(rows) == 1 and rows[0][0], say(f"hot row {rel} {key}: grouped_by {rows}"))
    for rel, key, waits, ev in q("SELECT relation, row_key, waits, evidence FROM rows"
                                 " WHERE waits > 0"):
        check((rel, key) in hot, say(f"store row {rel} {key!r} ({waits} waits, {ev!r}) is not"
                                     " a truth hot row"))

    # Holds.
    store = {}
    for r in q("SELECT h.hold_id, s.pg_session, r.relation, r.row_key, h.start_ts, h.end_ts,"
               " h.waits, h.tx_id FROM holds h JOIN sessions s ON s.session_id = h.session_id"
               " JOIN rows r ON r.row_id = h.row_id"):
        store.setdefault((r[1], r[2], r[3]), []).append(r)
    # Pair truth and store holds of one session and row: in order when both
    # have as many (whole-second times tie: the transaction's order in the
    # log decides), else each truth hold takes the nearest unused one.
    truth_by_key = {}
    for i, h in enumerate(truth["holds"]):
        truth_by_key.setdefault((h["session_id"], h["relation"], h["row_key"]), []).append(i)
    pair = {}
    for k, idx in truth_by_key.items():
        cands = sorted(store.get(k, []), key=lambda r: (r[4] or 0, r[7] or 0, r[0]))
        idx.sort(key=lambda i: truth["holds"][i]["start"])
        check(len(cands) == len(idx), say(f"holds of {k[1]} {k[2]} by session {k[0]}: "
                                          f"{len(cands)} in the store, truth {len(idx)}"))
        if len(cands) == len(idx):
            pair.update(zip(idx, cands))
            continue
        free = list(cands)
        for i in idx:
            if not free:
                break
            h = truth["holds"][i]
            s0, e0 = ts(h["start"]), ts(h["end"])
            best = min(free, key=lambda r: abs((r[4] or 0) / 1e6 - s0) + abs((r[5] or 0) / 1e6 - e0))
            free.remove(best)
            pair[i] = best
    used = {}
    matched = {}
    for i, h in enumerate(truth["holds"]):
        tag = say(f"{h['scenario']} hold #{h['tx']} of {h['relation']} {h['row_key']} by "
                  f"{h['pid']} ({h['code_path']}, {h['hold_ms']:.0f} ms, "
                  f"{'waited for' if h['waits'] else 'nobody waited'})")
        best = pair.get(i)
        check(best is not None, f"{tag}: not in the store")
        if best is None:
            continue
        s0, e0 = ts(h["start"]), ts(h["end"])
        used[best[0]] = h["tx"]
        matched[i] = best
        _, _, _, _, start, end, waits, _ = best
        if whole_seconds:
            check(same_second(start, s0), f"{tag}: start {start} not in the second of {h['start']}")
            check(same_second(end, e0), f"{tag}: end {end} not in the second of {h['end']}")
        else:
            t = tol_s(h["hold_ms"])
            check(start is not None and abs(start / 1e6 - s0) <= t,
                  f"{tag}: start off by {(start / 1e6 - s0) * 1e3 if start else None:.1f} ms"
                  f" (tolerance {t * 1e3:.0f})")
            check(end is not None and abs(end / 1e6 - e0) <= t,
                  f"{tag}: end off by {(end / 1e6 - e0) * 1e3 if end else None:.1f} ms"
                  f" (tolerance {t * 1e3:.0f})")
        check((waits or 0) > 0 if h["waits"] else waits == 0,
              f"{tag}: holds.waits {waits}, truth {h['waits']} logged waits")
    # Order on each row: a hold that ended before the next began comes first.
    by_row = {}
    for i, h in enumerate(truth["holds"]):
        if i in matched:
            by_row.setdefault((h["relation"], h["row_key"]), []).append((h, matched[i]))
    for (rel, key), pairs in by_row.items():
        pairs.sort(key=lambda p: p[0]["start"])
        for (a, sa), (b, sb) in zip(pairs, pairs[1:]):
            if ts(a["end"]) > ts(b["start"]):
                continue  # overlapping share locks: no order
            check(sa[4] is not None and sb[4] is not None and sa[4] <= sb[4] and
                  sa[5] is not None and sa[5] <= sb[4],
                  say(f"{rel} {key}: hold #{a['tx']} ({a['code_path']}) before #{b['tx']}"
                      f" ({b['code_path']}): store {sa[4]}..{sa[5]} then {sb[4]}..{sb[5]}"))
    # Nothing the truth does not have, nothing twice.
    for (sess, rel, key), rows in store.items():
        if (rel, key) not in hot:
            continue
        for r in rows:
            check(r[0] in used, say(f"store hold {r[0]} of {rel} {key} by {sess} "
                                    f"({r[4]}..{r[5]}, waits {r[6]}) is no truth hold"))
    for tx, row, n in q("SELECT tx_id, row_id, count(*) FROM holds GROUP BY 1, 2 HAVING count(*) > 1"):
        check(False, say(f"holds: (tx_id {tx}, row_id {row}) {n} times"))
    check(len(q("SELECT 1 FROM holds GROUP BY tx_id, row_id HAVING count(*) > 1")) == 0,
          say("no (tx_id, row_id) pair twice in holds"))

    # Rankings.
    tols = {}
    for h in truth["holds"]:
        tols.setdefault(h["code_path"], [0.0, 0.0])
        tols[h["code_path"]][0] += tol_s(h["hold_ms"]) * 1000
        if h["waits"]:
            tols[h["code_path"]][1] += tol_s(h["hold_ms"]) * 1000
    waited_for = {}
    for h in truth["holds"]:
        waited_for[h["code_path"]] = waited_for.get(h["code_path"], 0) + (1 if h["waits"] else 0)
    for name, section, count_key, ti in (("occupancy", "row_occupancy", "holds", 0),
                                         ("blocking", "code_paths", "blocking_episodes", 1)):
        got = {e["code_path"]: e for e in rep.get(section, [])}
        want = {r["code_path"]: r for r in truth["rankings"][name]}
        for path, r in want.items():
            e = got.get(path)
            tag = say(f"{name} ranking, {path}")
            check(e is not None, f"{tag}: missing (report has {sorted(got)})")
            if e is None:
                continue
            check(e.get(count_key) == r["holds"],
                  f"{tag}: {count_key} {e.get(count_key)}, truth {r['holds']}")
            if name == "occupancy":
                check(e.get("holds_waited_for") == waited_for.get(path, 0),
                      f"{tag}: holds_waited_for {e.get('holds_waited_for')}, truth "
                      f"{waited_for.get(path, 0)}")
            if whole_seconds:
                continue
            lim = tols[path][ti]
            check(abs((e.get("total_hold_ms") or 0) - r["total_hold_ms"]) <= lim,
                  f"{tag}: total_hold_ms {e.get('total_hold_ms')}, truth {r['total_hold_ms']}"
                  f" (tolerance {lim:.0f})")
            check(abs((e.get("max_hold_ms") or 0) - r["max_hold_ms"]) <=
                  max(TOL_MS, TOL_PCT * r["max_hold_ms"]),
                  f"{tag}: max_hold_ms {e.get('max_hold_ms')}, truth {r['max_hold_ms']}")
        for path, e in got.items():
            if e.get(count_key):
                check(path in want, say(f"{name} ranking: {path} ({e.get(count_key)} "
                                        f"{count_key}) is no truth code path"))
        if not whole_seconds and want and got:
            # Occupancy: the most hold time; blocking: the most waiting its
            # holds caused, each truth wait given to its holder's path
            # (issue 34: whose holds made others wait the most).
            if name == "occupancy":
                top = max(want.values(), key=lambda r: r["total_hold_ms"])["code_path"]
            else:
                top = max(caused_by_path(truth).items(), key=lambda kv: kv[1])[0]
            first = rep[section][0]["code_path"]
            check(first == top, say(f"{name} ranking: first {first}, truth {top}"))


def main():
    lockspan, sample = sys.argv[1], sys.argv[2]
    truth = json.load(open(os.path.join(sample, "truth.json")))
    prefix = open(os.path.join(sample, "prefix.txt")).read()
    check(truth.get("set") == "realistic", "truth.json of the realistic set")
    check("%t" in prefix and "%m" not in prefix, "the stderr log has whole-second %t times")
    with tempfile.TemporaryDirectory() as tmp:
        db, rep = analyze(lockspan, tmp, "s", [sample])
        files = [r[0] for r in db.execute("SELECT format FROM files")]
        check(files == ["csvlog"], f"the directory is read once, as csvlog ({files})")
        check_analysis("csvlog", db, rep, truth, whole_seconds=False)
        db.close()
        db, rep = analyze(lockspan, tmp, "t", [os.path.join(sample, "postgresql.log")], prefix)
        check_analysis("%t stderr", db, rep, truth, whole_seconds=True)
        db.close()
    return report()


if __name__ == "__main__":
    sys.exit(main())
