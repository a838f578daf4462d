#!/usr/bin/env python3
"""The report reads its code-path rankings and its statements per minute
from small stored tables, and they stay exact (issue 38: the report reads,
it does not analyze; src/correlate/summary.c, src/store/stmtstats.c,
reports/codepaths.c, reports/context.c, scope.c):

- stmt_minutes: a log ingested in two runs into one store (its first
  lines, then the rest as another file) counts the statement rows begun in
  each minute, summed over both runs, equal to the rows' own counts (the
  oracle: SQL over stmt_rows here, as the report counted them before); the
  report's context_per_minute says the same, and reads the table (a
  changed minute shows); with --database, with a store whose spans made or
  moved statements, and after --retention (the mark dropped) it counts the
  rows instead;
- path_occupancy / path_ranking / path_queueing: what the report's
  row_occupancy, code_paths and row_queueing list, in order; the
  occupancy's holds and total per path equal the holds' own (SQL over the
  holds and tx_code here, as the report summed them before); a changed row
  shows in the report; the queue buckets of a cut timeline are the old
  query's over the row's queue (whole, and in a window); --group-by shape
  and a --since/--until
  window are summed again for the report (a changed stored row does not
  show there), the first equal to the holds' own under that grouping;
  path_queueing, summed in C, is row for row what the SQL that summed it
  before gives over the same tables.

Samples: hidden-stmtall's stderr log (log_statement = 'all', two
databases), and app's log with its OTLP traces (code
paths named by spans), both written by a real PostgreSQL server.

usage: check_summary.py LOCKSPAN SAMPLES_DIR
"""
import datetime
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

import lscheck
from lscheck import check

US_PER_MIN = 60000000
TAMPER = 1000


def run(args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("FAIL: %s exited %d: %s" % (" ".join(args), r.returncode, r.stderr))
    return r


def rows(db, sql, args=()):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql, args).fetchall()
    except sqlite3.Error as e:
        return "error: %s" % e
    finally:
        con.close()


def execute(db, sql):
    con = sqlite3.connect(db)
    try:
        con.executescript(sql)
        con.commit()
        return True
    except sqlite3.Error as e:
        print("       %s: %s" % (sql, e))
        return False
    finally:
        con.close()


def report(lockspan, db, out, extra=()):
    run([lockspan, "report", "-q", "--db", db, "-o", out] + list(extra))
    with open(out) as f:
        return json.load(f)


def minute_of(iso):
    t = datetime.datetime.fromisoformat(iso.replace("Z", "+00:00"))
    if t.tzinfo is None:
        t = t.replace(tzinfo=datetime.timezone.utc)
    return int(t.timestamp()) * 1000000 // US_PER_MIN


def rows_per_minute(db):
    """The oracle: the statement rows begun in each minute."""
    return dict(rows(db, "SELECT start_ts / %d, count(*) FROM stmt_rows"
                         " WHERE start_ts IS NOT NULL GROUP BY 1" % US_PER_MIN))


def context_minutes(rep):
    return {minute_of(m["minute"]): m["statements"] for m in rep["context_per_minute"]}


def split_ingest(lockspan, tmp, name, path, prefix, traces=()):
    """path's first half of lines, then the rest (and the traces), as two
    runs of ingest into one store."""
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        lines = f.readlines()
    half = len(lines) // 2
    parts = []
    for i, chunk in enumerate((lines[:half], lines[half:])):
        p = os.path.join(tmp, "%s-part%d%s" % (name, i + 1, os.path.splitext(path)[1]))
        with open(p, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.writelines(chunk)
        parts.append(p)
    db = os.path.join(tmp, name + ".db")
    for p, more in ((parts[0], []), (parts[1], list(traces))):
        run([lockspan, "ingest", "-q", "--db", db, "--prefix", prefix, p] + more)
    return db, parts


def same_minutes(rep, want, what):
    got = context_minutes(rep)
    bad = {m: (n, want.get(m, 0)) for m, n in got.items() if n != want.get(m, 0)}
    check(got and not bad, "%s: context_per_minute's %d minutes are the rows' counts%s"
          % (what, len(got), " (differ: %s)" % dict(list(bad.items())[:4]) if bad else ""))


def check_minutes(lockspan, tmp, samples):
    d = os.path.join(samples, "hidden-stmtall")
    with open(os.path.join(d, "prefix.txt")) as f:
        prefix = f.read().rstrip("\n")
    db, parts = split_ingest(lockspan, tmp, "hidden-stmtall", os.path.join(d, "postgresql.log"), prefix)
    want = rows_per_minute(db)
    table = dict(rows(db, "SELECT minute, statements FROM stmt_minutes")
                 if not isinstance(rows(db, "SELECT 1 FROM stmt_minutes"), str) else {})
    check(len(want) > 1 and table == want,
          "hidden-stmtall: two ingests' stmt_minutes (%d minutes, %d rows) are the rows' per minute"
          " (%d minutes, %d rows)" % (len(table), sum(table.values()), len(want),
                                      sum(want.values())))
    mark = rows(db, "SELECT value FROM meta WHERE key = 'stmt_minutes'")
    check(mark == [("complete",)], "hidden-stmtall: stmt_minutes marked complete (%s)" % (mark,))
    rep = report(lockspan, db, os.path.join(tmp, "hidden-stmtall.json"))
    same_minutes(rep, want, "hidden-stmtall")
    shown = sorted(context_minutes(rep))
    # the report reads the table: a changed minute shows
    busy = max(shown, key=lambda m: want.get(m, 0)) if shown else 0
    execute(db, "UPDATE stmt_minutes SET statements = statements + %d WHERE minute = %d"
            % (TAMPER, busy))
    got = context_minutes(report(lockspan, db, os.path.join(tmp, "hidden-stmtall-changed.json")))
    check(got.get(busy) == want.get(busy, 0) + TAMPER,
          "hidden-stmtall: the report reads stmt_minutes (minute %d: %s after the row was changed,"
          " %s before)" % (busy, got.get(busy), want.get(busy)))
    # --database: the rows, counted (the table does not know databases)
    dbs = [r[0] for r in rows(db, "SELECT se.database FROM stmt_rows st JOIN sessions se"
                                  " USING (session_id) WHERE se.database IS NOT NULL"
                                  " GROUP BY 1 ORDER BY count(*) DESC")]
    if dbs:
        want_db = dict(rows(db, "SELECT st.start_ts / %d, count(*) FROM stmt_rows st WHERE"
                                " st.session_id IN (SELECT session_id FROM sessions WHERE"
                                " database = ?) GROUP BY 1" % US_PER_MIN, (dbs[0],)))
        rep = report(lockspan, db, os.path.join(tmp, "hidden-stmtall-db.json"), ["--database", dbs[0]])
        same_minutes(rep, want_db, "hidden-stmtall --database %s" % dbs[0])
    # --retention: the mark goes; the report counts the rows
    run([lockspan, "ingest", "-q", "--db", db, "--retention", "3650", "--prefix", prefix,
         parts[1]])
    mark = rows(db, "SELECT value FROM meta WHERE key = 'stmt_minutes'")
    check(mark == [], "hidden-stmtall: --retention drops the stmt_minutes mark (%s)" % (mark,))
    same_minutes(report(lockspan, db, os.path.join(tmp, "hidden-stmtall-retention.json")),
                 rows_per_minute(db), "hidden-stmtall after --retention")


def occupancy_oracle(db, label):
    """Per path (label: a column of tx_code), the holds of hot rows and
    their summed length in ms, as the report summed them before."""
    got = rows(db, "SELECT coalesce(c.%s, 'unknown'), count(*),"
                   " sum(coalesce(r.est_us, h.end_ts - h.start_ts)) FROM holds h"
                   " LEFT JOIN tx_code c ON c.tx_id = h.tx_id"
                   " LEFT JOIN hold_range r ON r.hold_id = h.hold_id"
                   " WHERE h.end_ts IS NOT NULL"
                   " AND h.row_id NOT IN (SELECT row_id FROM relation_lock_rows)"
                   " GROUP BY 1" % label)
    return {p: (n, us / 1000.0) for p, n, us in got}


def same_occupancy(rep, want, what):
    got = {o["code_path"]: (o["holds"], o["total_hold_ms"]) for o in rep["row_occupancy"]}
    bad = [p for p in got if p not in want or got[p][0] != want[p][0]
           or abs(got[p][1] - want[p][1]) > 0.001]
    check(got and len(got) == min(len(want), 10) and not bad,
          "%s: row_occupancy's %d paths: the holds' own count and total (differ: %s)"
          % (what, len(got), [(p, got[p], want.get(p)) for p in bad[:3]]))


# summary.c's queueing ranking as SQL summed it before it was summed in C
# (issue 38: six sorts, 18 M SQLite VM steps at 1 GiB), each path the
# tx_code view's function_path (the default grouping): the oracle of
# path_queueing, row for row.
OLD_QUEUEING_SQL = (
    "WITH cov AS (SELECT rw_id, tx_id, us FROM row_cover),"
    " tot AS (SELECT rw_id, sum(us) AS us FROM cov GROUP BY rw_id),"
    " part AS (SELECT c.rw_id, c.tx_id, c.us * 1.0 / t.us AS f, c.us FROM cov c"
    "  JOIN tot t ON t.rw_id = c.rw_id WHERE t.us > 0"
    "  UNION ALL SELECT w.rw_id, w.behind_tx, 1.0, w.wait_ms * 1000 FROM row_waits w"
    "  WHERE w.rw_id NOT IN (SELECT rw_id FROM tot WHERE us > 0)),"
    " q AS (SELECT w.wait_ms AS ms, coalesce(w.logged_ms, 0) AS lg, p.function_path AS waiter"
    "  FROM row_waits w LEFT JOIN tx_code p ON p.tx_id = w.tx_id),"
    " caused AS (SELECT p.function_path AS label, w.rw_id, sum(pt.f) AS f, sum(pt.us) AS us,"
    "  w.wait_ms AS ms, coalesce(w.logged_ms, 0) AS lg"
    "  FROM part pt JOIN row_waits w ON w.rw_id = pt.rw_id"
    "  LEFT JOIN tx_code p ON p.tx_id = pt.tx_id GROUP BY 1, 2),"
    " ranked AS (SELECT *, row_number() OVER (PARTITION BY rw_id ORDER BY us DESC, label)"
    "  AS rn FROM caused),"
    " s AS (SELECT label, 1 AS caused, rn = 1 AND ms > 20 AS over,"
    "  f * max(0, ms - lg) AS hid, f * lg AS lgd FROM ranked"
    "  UNION ALL SELECT waiter, 0, ms > 20, max(0, ms - lg), lg FROM q)"
    " SELECT label, sum(caused AND over), total(CASE WHEN caused THEN hid END),"
    " total(CASE WHEN caused THEN lgd END), sum(NOT caused AND over),"
    " total(CASE WHEN NOT caused THEN hid END), total(CASE WHEN NOT caused THEN lgd END)"
    " FROM s WHERE label IS NOT NULL GROUP BY label ORDER BY 3 DESC, 4 DESC, label")


def same_queueing(db, what):
    """path_queueing, every row and column, is the old SQL's (floats to
    1e-9 ms: the sums may be added in another order)."""
    want = rows(db, OLD_QUEUEING_SQL)
    got = rows(db, "SELECT code_path, statements_queued_behind, hidden_wait_ms_caused,"
                   " logged_wait_ms_caused, statements_waited, hidden_wait_ms_suffered,"
                   " logged_wait_ms_suffered FROM path_queueing ORDER BY ord")

    def same(a, b):
        if isinstance(a, float) or isinstance(b, float):
            return a is not None and b is not None and abs(a - b) <= 1e-9 * max(1.0, abs(b))
        return a == b
    bad = [(g, w) for g, w in zip(got, want) if len(g) != len(w)
           or not all(same(x, y) for x, y in zip(g, w))] if isinstance(got, list) else got
    check(isinstance(want, list) and len(want) > 1 and isinstance(got, list)
          and len(got) == len(want) and not bad and any(r[1] for r in want),
          "%s: path_queueing's %s paths are the old SQL's %s, every column (differ: %s)"
          % (what, len(got), len(want), bad[:2]))


OLD_BUCKETS_SQL = (
    # reports/queue.c before issue 38: the row's queue in 400 buckets
    "SELECT min(ts), max(ts), max(depth), max(CASE WHEN rn = 1 THEN depth END)"
    " FROM (SELECT ts, depth, b, row_number() OVER (PARTITION BY b ORDER BY ts DESC, id DESC)"
    " AS rn FROM (SELECT q.ts, q.depth, q.rowid AS id, (q.ts - r.t0) * 400"
    " / r.span AS b FROM row_queue q, (SELECT min(ts) AS t0, max(ts) - min(ts) + 1 AS span"
    " FROM row_queue WHERE row_id = ?1 AND ts BETWEEN ?2 AND ?3) r WHERE q.row_id = ?1"
    " AND q.ts BETWEEN ?2 AND ?3)) GROUP BY b ORDER BY b")
US = 1000000


def ts_us(iso):
    t = datetime.datetime.fromisoformat(iso.replace("Z", "+00:00"))
    if t.tzinfo is None:
        t = t.replace(tzinfo=datetime.timezone.utc)
    return round(t.timestamp() * US)


def same_buckets(db, rep, lo, hi, what):
    """Each cut timeline's queue_buckets: the old query's over the queue
    between lo and hi (µs), to the millisecond the report prints."""
    n = 0
    for row in rep["hot_rows"]:
        b = row.get("timeline", {}).get("queue_buckets")
        if b is None:
            continue
        want = rows(db, OLD_BUCKETS_SQL, (row["row_id"], lo, hi))
        got = [(ts_us(x["time"]) // 1000, ts_us(x["end"]) // 1000, x["depth"], x["end_depth"])
               for x in b]
        want = [(t0 // 1000, t1 // 1000, d, e) for t0, t1, d, e in want]
        check(got == want, "%s: row %s's %d queue_buckets are the old query's %d (first differ:"
              " %s)" % (what, row["row_id"], len(got), len(want),
                        next(((g, w) for g, w in zip(got, want) if g != w), None)))
        n += 1
    check(n > 0, "%s: %d timelines cut, with queue_buckets" % (what, n))


def check_paths(lockspan, tmp, samples):
    d = os.path.join(samples, "app")
    with open(os.path.join(d, "prefix.txt")) as f:
        prefix = f.read().rstrip("\n")
    db, _ = split_ingest(lockspan, tmp, "app", os.path.join(d, "postgresql.log"), prefix,
                         [os.path.join(d, "traces.otlp.jsonl")])
    # spans made and moved statements: the report counts the rows, not
    # ingest's minutes (changed here, so that reading them would show)
    execute(db, "UPDATE stmt_minutes SET statements = statements + %d" % TAMPER)
    rep = report(lockspan, db, os.path.join(tmp, "app.json"), ["--top", "10"])
    same_occupancy(rep, occupancy_oracle(db, "function_path"), "app")
    same_queueing(db, "app")
    # the stored tables, in the report's order
    for key, table in (("row_occupancy", "path_occupancy"), ("code_paths", "path_ranking"),
                       ("row_queueing", "path_queueing")):
        stored = rows(db, "SELECT code_path FROM %s ORDER BY ord LIMIT 10" % table)
        listed = [o["code_path"] for o in rep[key]]
        check(listed and stored == [(p,) for p in listed],
              "app: %s lists %s's paths in its order (%s)" % (key, table, listed[:4]))
    # with traces, the statements per minute are the rows' (spans made some)
    same_minutes(rep, rows_per_minute(db), "app (spans)")
    # the report reads the stored rows: a changed one shows
    top = rep["row_occupancy"][0]["code_path"]
    execute(db, "UPDATE path_occupancy SET holds = holds + %d WHERE code_path = '%s';"
                " UPDATE path_ranking SET waits_caused = waits_caused + %d"
                " WHERE ord = 1" % (TAMPER, top.replace("'", "''"), TAMPER))
    rep2 = report(lockspan, db, os.path.join(tmp, "app-changed.json"), ["--top", "10"])
    check(rep2["row_occupancy"][0]["holds"] == rep["row_occupancy"][0]["holds"] + TAMPER
          and rep2["code_paths"][0]["waits_caused"] == rep["code_paths"][0]["waits_caused"]
          + TAMPER, "app: the report reads path_occupancy and path_ranking (holds %s -> %s,"
          " waits_caused %s -> %s)" % (rep["row_occupancy"][0]["holds"],
                                       rep2["row_occupancy"][0]["holds"],
                                       rep["code_paths"][0]["waits_caused"],
                                       rep2["code_paths"][0]["waits_caused"]))
    # the queue buckets of the cut timelines, whole and in a window
    rep5 = report(lockspan, db, os.path.join(tmp, "app-cut.json"), ["--max-waits", "2"])
    same_buckets(db, rep5, -2 ** 62, 2 ** 62, "app --max-waits 2")
    span = rows(db, "SELECT min(ts), max(ts) FROM row_queue")[0]
    mid = (span[0] + span[1]) // 2
    since = datetime.datetime.fromtimestamp(span[0] / US, datetime.timezone.utc)
    until = datetime.datetime.fromtimestamp(mid / US, datetime.timezone.utc)
    iso = "%Y-%m-%dT%H:%M:%S.%fZ"
    rep6 = report(lockspan, db, os.path.join(tmp, "app-cut-window.json"),
                  ["--max-waits", "2", "--since", since.strftime(iso),
                   "--until", until.strftime(iso)])
    same_buckets(db, rep6, span[0], mid, "app --max-waits 2, the queue's first half")
    # the report's order: the longest total first
    totals = [o["total_hold_ms"] for o in rep["row_occupancy"]]
    check(totals == sorted(totals, reverse=True),
          "app: row_occupancy by total hold time, longest first (%s)" % totals)
    # another grouping is summed for the report, from the holds
    rep3 = report(lockspan, db, os.path.join(tmp, "app-application.json"),
                  ["--top", "10", "--group-by", "shape"])
    same_occupancy(rep3, occupancy_oracle(db, "shape_path"), "app --group-by shape")
    check(len(rep3["row_occupancy"]) > 1 and [o["code_path"] for o in rep3["row_occupancy"]]
          != [o["code_path"] for o in rep["row_occupancy"]],
          "app --group-by shape: other paths than the default grouping's (%s)"
          % [o["code_path"] for o in rep3["row_occupancy"]][:3])
    # a window over the whole log is summed for the report: the stored
    # (changed) rows do not show, the figures are the unchanged ones
    rep4 = report(lockspan, db, os.path.join(tmp, "app-window.json"),
                  ["--top", "10", "--since", "2000-01-01T00:00:00Z",
                   "--until", "2100-01-01T00:00:00Z"])
    check(rep4["row_occupancy"] == rep["row_occupancy"]
          and rep4["code_paths"] == rep["code_paths"]
          and rep4["row_queueing"] == rep["row_queueing"],
          "app: a window over the whole log sums its own rankings, the unchanged figures")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    lockspan, samples = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        check_minutes(lockspan, tmp, samples)
        check_paths(lockspan, tmp, samples)
    sys.exit(lscheck.report())


if __name__ == "__main__":
    main()
