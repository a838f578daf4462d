#!/usr/bin/env python3
"""The times spans give logged statements are the "statements from spans"
pass's own (issue 33, one writer per table; schema 20).

samples/app-seconds (a %t log, whole seconds, and its OTLP traces): the
pass times logged statements from their spans (spantimes.c). Checked:

1. stmt_rows is as ingest wrote it after correlation: every statement the
   pass timed keeps its logged start (stmt_span_time.log_ts) and no
   duration; its span's start and duration are in stmt_span_time
   (start_ts, dur_us), and the view statements gives them (an sqlite3
   shell reads what the report reads). On main 08d73b5 the pass UPDATEd
   stmt_rows (and stmt_span_time had no start_ts): this fails there.
2. A store of schema 19 as 08d73b5 left it after correlation (the span
   times in stmt_rows, the log's in stmt_span_time.log_ts, the view
   statements over stmt_rows alone) is brought to 20 when `report` opens
   it: the times move into stmt_span_time, stmt_rows gets the log's back,
   the correlation is reused (its mark stays current) and the report is
   the fresh store's, byte for byte.

Usage: check_span_times.py LOCKSPAN SAMPLES_DIR
"""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

ARGS = ["--format", "json", "--top", "1000", "--generated-at", "2026-12-02T00:00:00Z"]

# The view statements of schema 19 (store_schema.h at main 08d73b5).
STATEMENTS_19 = """CREATE VIEW statements AS SELECT stmt_id, session_id,
  coalesce(stmt_rows.pid, (SELECT se.pid FROM sessions se WHERE se.session_id = stmt_rows.session_id)) AS pid,
  file_id, line, CASE WHEN dur_us IS NULL THEN start_ts ELSE start_ts + dur_us END AS log_ts,
  start_ts, start_ts + dur_us AS end_ts, dur_us / 1000.0 AS duration_ms,
  CASE verb WHEN 0 THEN 'execute' WHEN 1 THEN 'bind' WHEN 2 THEN 'parse'
    WHEN 3 THEN 'statement' WHEN 4 THEN '' WHEN 5 THEN 'span' END AS verb,
  (SELECT n.name FROM stmt_names n WHERE n.name_id = stmt_rows.name_id) AS name,
  xid,
  CASE WHEN typeof(stmt_rows.vxid) = 'integer' THEN (SELECT r_.vxid FROM stmt_rows r_
   WHERE r_.stmt_id = stmt_rows.stmt_id - stmt_rows.vxid) ELSE stmt_rows.vxid END AS vxid,
  (SELECT t.text FROM stmt_texts t WHERE t.text_id = stmt_rows.text_id) AS text,
  CASE WHEN typeof(stmt_rows.params) = 'integer' THEN (SELECT r_.params FROM stmt_rows r_
   WHERE r_.stmt_id = stmt_rows.stmt_id - stmt_rows.params) ELSE stmt_rows.params END AS params,
  prepare, bind_us / 1000.0 AS bind_ms, parse_us / 1000.0 AS parse_ms FROM stmt_rows"""


def run(ls, what, *args):
    r = subprocess.run([ls, *args], capture_output=True, text=True,
                       env={**os.environ, "TZ": "UTC"})
    check(r.returncode == 0, f"{what}: exit 0 ({r.returncode}) {r.stderr[-300:]}")
    return r


def rows(db, sql):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def main():
    ls, samples = sys.argv[1], sys.argv[2]
    d = os.path.join(samples, "app-seconds")
    inputs = [os.path.join(d, "postgresql.log"), os.path.join(d, "traces.otlp.jsonl.gz")]
    with tempfile.TemporaryDirectory() as tmp:
        fresh, old = os.path.join(tmp, "fresh.db"), os.path.join(tmp, "old.db")
        fresh_json, old_json = os.path.join(tmp, "fresh.json"), os.path.join(tmp, "old.json")
        run(ls, "analyze", "analyze", "-q", "--db", fresh, *ARGS, "-o", fresh_json, *inputs)

        # 1. stmt_rows as logged, the span times the pass's own
        timed = rows(fresh, "SELECT count(*) FROM stmt_span_time")[0][0]
        check(timed > 20, f"the pass timed statements from their spans ({timed})")
        moved = rows(fresh, "SELECT count(*) FROM stmt_span_time x JOIN stmt_rows r"
                            " USING (stmt_id) WHERE r.start_ts IS NOT x.log_ts"
                            " OR r.dur_us IS NOT NULL")[0][0]
        check(moved == 0, f"stmt_rows keeps the log's times ({moved} of {timed} changed)")
        spanned = rows(fresh, "SELECT count(*) FROM stmt_span_time x JOIN statements s"
                              " USING (stmt_id) WHERE x.start_ts IS NOT NULL"
                              " AND s.start_ts = x.start_ts AND s.end_ts = x.start_ts + x.dur_us"
                              " AND x.start_ts / 1000000 = x.log_ts / 1000000")[0][0]
        check(spanned == timed,
              f"the view statements gives the span's times, in the logged second"
              f" ({spanned} of {timed})")

        # 2. a store of schema 19 as 08d73b5 left it, brought forward
        shutil.copy(fresh, old)
        con = sqlite3.connect(old)
        con.executescript(
            "UPDATE stmt_rows SET start_ts = (SELECT x.start_ts FROM stmt_span_time x"
            "  WHERE x.stmt_id = stmt_rows.stmt_id), dur_us = (SELECT x.dur_us"
            "  FROM stmt_span_time x WHERE x.stmt_id = stmt_rows.stmt_id)"
            "  WHERE stmt_id IN (SELECT stmt_id FROM stmt_span_time);"
            " DROP VIEW statements; ALTER TABLE stmt_span_time DROP COLUMN start_ts;"
            " ALTER TABLE stmt_span_time DROP COLUMN dur_us;"
            f" {STATEMENTS_19}; PRAGMA user_version = 19;")
        con.close()
        r = run(ls, "report on a schema 19 store", "report", "--db", old, *ARGS, "-o", old_json)
        check("correlated after its last ingest: reused" in r.stderr,
              f"the upgraded store's correlation is reused ({r.stderr.strip()[:200]})")
        check(rows(old, "PRAGMA user_version")[0][0] == 20, "the store is at version 20")
        want = rows(fresh, "SELECT * FROM stmt_span_time ORDER BY stmt_id")
        check(rows(old, "SELECT * FROM stmt_span_time ORDER BY stmt_id") == want,
              "stmt_span_time as a fresh correlation writes it")
        want = rows(fresh, "SELECT stmt_id, start_ts, dur_us FROM stmt_rows ORDER BY stmt_id")
        check(rows(old, "SELECT stmt_id, start_ts, dur_us FROM stmt_rows ORDER BY stmt_id")
              == want, "stmt_rows with the log's times again")
        with open(fresh_json, "rb") as a, open(old_json, "rb") as b:
            check(a.read() == b.read(), "the upgraded store's report is the fresh store's")
    return report()


if __name__ == "__main__":
    sys.exit(main())
