#!/usr/bin/env python3
"""The schema a new store gets (issue 33: the tables ingest writes are
declared once, in src/store/store_tables.h, and their DDL, INSERTs and bind
positions made from that declaration).

A store made by `lockspan ingest` has every table, view and index of
store_schema20.txt, and nothing else: for each, its type and table, its
SQL with the whitespace taken out (the DDL's line breaks are not the
schema), and for each table and view every column in order (PRAGMA
table_xinfo: position, name, declared type, NOT NULL, default, primary
key), for each index its columns (PRAGMA index_xinfo). A column dropped,
added, renamed, retyped or moved in a declaration fails it; so does a
declaration's INSERT that binds one column's value into another (the
rows of samples/basic, as lockspan 0.x of schema 15 wrote them, are
checked by name below).

store_schema20.txt is what `--write` printed from the same log: schema 15
as the lockspan of main abf0931 (before the declarations) printed it, and
the lines schema 16 added (stmt_stats, logcover, path_names, path_sets,
tx_code_rows.path_set, row_queue_row, tx_code's ids), nothing else changed
(checked with diff when schema 16 came); then the lines schema 17 added
(user_version 17, path_ranking, path_queueing, path_occupancy,
stmt_minutes: summary_schema.h; retries.retry_span and errors_linked's
retry_span), nothing else changed (diff against store_schema16.txt of
main a1c8ca7); then the lines schema 18 added (user_version 18, tx_keys:
each statement's row key as ingest decided it), nothing else changed
(diff against store_schema17.txt of main 43a13e6); then the lines schema
19 added (user_version 19, tx_cuts.first_pos and transactions.first_pos:
the log position of a transaction's first statement), nothing else
changed (diff against store_schema18.txt of main f144ad6); then the lines
schema 20 changed (user_version 20, stmt_span_time.start_ts and dur_us:
the times a span gives a logged statement, kept there alone; the view
statements reads them, so its start_ts has no declared type), nothing else
changed (diff against store_schema19.txt of main 08d73b5). Change it only
with a new schema version (LS_STORE_SCHEMA_VERSION) and its upgrade step.

Usage: check_store_schema.py LOCKSPAN SAMPLES_DIR [--write]
"""
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

EXPECTED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "store_schema20.txt")


def squeeze(sql):
    """SQL without the whitespace that does not change it."""
    sql = re.sub(r"\s+", " ", sql or "").strip()
    return re.sub(r" ?([(),]) ?", r"\1", sql)


def describe(db):
    """The schema of store `db`, one line per object and per column."""
    con = sqlite3.connect(db)
    out = [f"user_version {con.execute('PRAGMA user_version').fetchone()[0]}"]
    objs = con.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"
                       " WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").fetchall()
    for typ, name, tbl, sql in objs:
        out.append(f"{typ} {name} on {tbl}: {squeeze(sql)}")
        if typ in ("table", "view"):
            for cid, col, ctype, notnull, dflt, pk, hidden in con.execute(
                    f'PRAGMA table_xinfo("{name}")'):
                out.append(f"  {name}[{cid}] {col} type={ctype!r} notnull={notnull}"
                           f" default={dflt!r} pk={pk} hidden={hidden}")
        elif typ == "index":
            for seqno, cid, col, desc, coll, key in con.execute(f'PRAGMA index_xinfo("{name}")'):
                out.append(f"  {name}[{seqno}] {col} cid={cid} desc={desc} key={key}")
    con.close()
    return out


def main():
    ls, samples = sys.argv[1], sys.argv[2]
    log = os.path.join(samples, "basic", "postgresql.log")
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "s.db")
        r = subprocess.run([ls, "ingest", "-q", "--db", db, log], capture_output=True, text=True,
                           env={**os.environ, "TZ": "UTC"})
        check(r.returncode == 0, f"ingest exit 0 ({r.returncode}) {r.stderr[-300:]}")
        got = describe(db)
        if "--write" in sys.argv[3:]:
            print("\n".join(got))
            return 0
        with open(EXPECTED) as f:
            want = f.read().splitlines()
        missing = [x for x in want if x not in got]
        extra = [x for x in got if x not in want]
        check(not missing, f"the store lacks {len(missing)} of the schema's lines: {missing[:6]}")
        check(not extra, f"the store has {len(extra)} lines the schema lacks: {extra[:6]}")
        check(got == want, "every object and column in the schema's order")
        # The rows of the declared tables, read by name: each value in its
        # own column (an INSERT that bound one into another fails here).
        con = sqlite3.connect(db)
        one = con.execute("SELECT path, format, gzip, lines, records, bad_lines FROM files"
                          ).fetchone()
        check(one is not None and one[0].endswith("postgresql.log") and one[1] == "stderr"
              and one[2] == 0 and one[3] > 0 and one[4] > 0 and one[5] == 0,
              f"files: path, format, gzip, lines, records, bad_lines ({one})")
        bad = con.execute("SELECT count(*) FROM stmt_rows WHERE stmt_id <= 0 OR file_id <> 1"
                          " OR line < 1 OR (verb NOT BETWEEN 0 AND 5)"
                          " OR typeof(start_ts) <> 'integer' OR start_ts < 1000000000000000"
                          " OR (dur_us IS NOT NULL AND (dur_us < 0 OR dur_us > start_ts))"
                          " OR (text_id IS NOT NULL AND text_id NOT IN"
                          "     (SELECT text_id FROM stmt_texts))"
                          " OR (session_id IS NOT NULL AND session_id NOT IN"
                          "     (SELECT session_id FROM sessions))").fetchone()[0]
        n = con.execute("SELECT count(*) FROM stmt_rows").fetchone()[0]
        check(n > 0 and bad == 0, f"stmt_rows: {bad} of {n} rows with a value out of its column")
        bad = con.execute("SELECT count(*) FROM lock_event_rows WHERE file_id <> 1 OR line < 1"
                          " OR ts < 1000000000000000 OR pid < 1"
                          " OR phase NOT IN ('waiting', 'acquired', 'timeout', 'deadlock',"
                          "                  'cancelled', 'still waiting')"
                          " OR target_kind IS NULL OR typeof(waited_ms) <> 'real'").fetchone()[0]
        n = con.execute("SELECT count(*) FROM lock_event_rows").fetchone()[0]
        check(n > 0 and bad == 0,
              f"lock_event_rows: {bad} of {n} rows with a value out of its column")
        bad = con.execute("SELECT count(*) FROM sessions WHERE pid < 1 OR key NOT LIKE '%.%'"
                          " OR first_ts > last_ts OR start_ts > first_ts").fetchone()[0]
        n = con.execute("SELECT count(*) FROM sessions").fetchone()[0]
        check(n > 0 and bad == 0, f"sessions: {bad} of {n} rows with a value out of its column")
        bad = con.execute("SELECT count(*) FROM stmt_texts WHERE typeof(hash) <> 'integer'"
                          " OR typeof(text) <> 'text' OR kind NOT BETWEEN 0 AND 9").fetchone()[0]
        check(bad == 0, f"stmt_texts: {bad} rows with a value out of its column")
        # Each cut's first_pos: its first statement's line, as one integer
        # (file_id * 2^40 + line), which the transactions pass finds the
        # transaction at a lock message's line by (POS_TX).
        bad = con.execute("SELECT count(*) FROM tx_cuts c WHERE c.first_pos IS NOT"
                          " (SELECT r.file_id * 1099511627776 + r.line FROM stmt_rows r"
                          "  WHERE r.stmt_id = c.first_stmt)").fetchone()[0]
        n = con.execute("SELECT count(*) FROM tx_cuts").fetchone()[0]
        check(n > 0 and bad == 0, f"tx_cuts: {bad} of {n} cuts whose first_pos is not the line"
              " of their first statement")
        con.close()
    return report()


if __name__ == "__main__":
    sys.exit(main())
