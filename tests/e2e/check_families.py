#!/usr/bin/env python3
"""Input families beyond the server's own files, each sniffed with no
option, parsed to records and its lock waits classified (ingest only):

- a Jaeger export that is a top-level array of traces (samples/app's
  traces.jaeger.json, a real application's traces, with its "data" array
  saved alone): every span of the file is stored;
- csvlog whose timestamps a CSV tool quoted (samples/basic/postgresql.csv,
  a real PostgreSQL 15 csvlog, with its two timestamp fields quoted): the
  waits of samples/basic/truth.json, recorded client-side, are classified;
- CloudNativePG's JSON lines: the example line of cloudnative-pg's
  docs/src/logging.md ("PostgreSQL log"), then samples/basic's csvlog records
  in the same envelope with the documented csvlog field names and every
  value a string ("" for an empty field), as its instance manager writes the
  csvlog it reads; lines of other loggers are passed over: the truth's
  waiters are classified, nothing is unparsable;
- Heroku logplex: lines quoted in public documents (see test_syslog.c's
  test_heroku) are read without options, the prefix ' sql_error_code = %e '
  inferred, the pid and time taken from the logplex header;
- Cloud SQL through Cloud Logging (tests/e2e/data/cloudsql-*.jsonl, entries
  quoted in pgbadger issues, origins in data/README.md): textPayload read
  with its prefix inferred, the entry's timestamp standing in when the
  text has none.

Usage: check_families.py LOCKSPAN SAMPLES_DIR
"""
import csv
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report


def ingest(ls, tmp, *paths):
    db = os.path.join(tmp, "s.db")
    if os.path.exists(db):
        os.remove(db)
    r = subprocess.run([ls, "ingest", "--db", db] + list(paths), capture_output=True, text=True,
                       env=dict(os.environ, TZ="UTC"))
    return r, sqlite3.connect(db) if r.returncode == 0 else None


def waiter_pids(db):
    return sorted(p for (p,) in db.execute(
        "SELECT DISTINCT pid FROM lock_events WHERE phase IN ('waiting', 'deadlock')"))


def jaeger_array(ls, tmp, samples):
    doc = json.load(open(os.path.join(samples, "app", "traces.jaeger.json")))
    path = os.path.join(tmp, "traces.jaeger-array.json")
    with open(path, "w") as f:
        json.dump(doc["data"], f, separators=(",", ":"))
        f.write("\n")
    want = sum(len(t["spans"]) for t in doc["data"])
    r, db = ingest(ls, tmp, path)
    check(db is not None, "jaeger array: ingested: " + r.stderr[-300:])
    got = db.execute("SELECT count(*) FROM spans").fetchone()[0] if db else 0
    check(got == want, f"jaeger array: {got} spans stored, the file has {want}")


def csv_quoted(ls, tmp, samples):
    path = os.path.join(tmp, "quoted.csv")
    with open(os.path.join(samples, "basic", "postgresql.csv")) as src, open(path, "w") as out:
        for line in src:
            if line[:4].isdigit():  # a record's first line: quote log_time, session_start
                f = line.split(",", 9)
                f[0] = '"' + f[0] + '"'
                if f[8]:
                    f[8] = '"' + f[8] + '"'
                line = ",".join(f)
            out.write(line)
    truth = json.load(open(os.path.join(samples, "basic", "truth.json")))
    want = sorted({w["waiter_pid"] for w in truth["waits"]})
    r, db = ingest(ls, tmp, path)
    check(db is not None and " 0 unparsable lines" in r.stderr,
          "csvlog, quoted timestamps: ingested, no bad line: " + r.stderr[-300:])
    check(db is not None and waiter_pids(db) == want,
          f"csvlog, quoted timestamps: waiters {db and waiter_pids(db)}, truth {want}")
    ts = db.execute("SELECT min(ts) FROM lock_events").fetchone()[0] if db else None
    check(ts is not None and ts > 1.7e15, f"csvlog, quoted timestamps: times read ({ts})")


CNPG_DOC_LINE = {  # cloudnative-pg docs/src/logging.md, "PostgreSQL log"
    "level": "info", "ts": 1619781249.7188137, "logger": "postgres", "msg": "record",
    "record": {
        "log_time": "2021-04-30 11:14:09.718 UTC", "user_name": "", "database_name": "",
        "process_id": "25", "connection_from": "", "session_id": "608be681.19",
        "session_line_num": "1", "command_tag": "", "session_start_time": "2021-04-30 11:14:09 UTC",
        "virtual_transaction_id": "", "transaction_id": "0", "error_severity": "LOG",
        "sql_state_code": "00000",
        "message": "database system was interrupted; last known up at 2021-04-30 11:14:07 UTC",
        "detail": "", "hint": "", "internal_query": "", "internal_query_pos": "", "context": "",
        "query": "", "query_pos": "", "location": "", "application_name": "",
        "backend_type": "startup"}}
CSV_COLUMNS = ["log_time", "user_name", "database_name", "process_id", "connection_from",
               "session_id", "session_line_num", "command_tag", "session_start_time",
               "virtual_transaction_id", "transaction_id", "error_severity", "sql_state_code",
               "message", "detail", "hint", "internal_query", "internal_query_pos", "context",
               "query", "query_pos", "location", "application_name", "backend_type",
               "leader_pid", "query_id"]


def cnpg(ls, tmp, samples):
    path = os.path.join(tmp, "cnpg.json")
    with open(path, "w") as out:
        out.write(json.dumps(CNPG_DOC_LINE) + "\n")
        out.write(json.dumps({"level": "info", "ts": 1619781250.0, "logger": "instance-manager",
                              "msg": "Instance is still down, will retry in 1 second"}) + "\n")
        with open(os.path.join(samples, "basic", "postgresql.csv"), newline="") as src:
            rows = list(csv.reader(src))
            for row in rows:
                rec = dict(zip(CSV_COLUMNS, row))
                out.write(json.dumps({"level": "info", "ts": 0, "logger": "postgres",
                                      "msg": "record", "record": rec}) + "\n")
    truth = json.load(open(os.path.join(samples, "basic", "truth.json")))
    want = sorted({w["waiter_pid"] for w in truth["waits"]})
    r, db = ingest(ls, tmp, path)
    check(db is not None and " 0 unparsable lines" in r.stderr,
          "CloudNativePG: ingested, no bad line: " + r.stderr[-300:])
    check(db is not None and waiter_pids(db) == want,
          f"CloudNativePG: waiters {db and waiter_pids(db)}, truth {want}")
    check(f" {len(rows) + 1} records" in r.stderr,
          f"CloudNativePG: {len(rows)} csvlog records and the docs' line: " + r.stderr[-200:])


HEROKU = [  # quoted in a 2017 post on Dexter and in 2020 performance notes (public)
    "2017-06-28T15:10:02+00:00 app[postgres.13761]: [DATABASE] [7-1]  sql_error_code = 00000 "
    "LOG:  duration: 4822.012 ms  statement: BEGIN READ ONLY;",
    "2017-06-28T15:10:02+00:00 app[postgres.13761]: [DATABASE] [7-2]       SELECT column",
    "2017-06-28T15:10:02+00:00 app[postgres.13761]: [DATABASE] [7-3]         FROM table",
    "2017-06-28T15:10:02+00:00 app[postgres.13761]: [DATABASE] [7-4]        WHERE condition",
    "2020-09-24T19:49:51.000000+00:00 app[postgres.4456]: [PINK] [21-1]  sql_error_code = 00000 "
    "LOG:  duration: 301365.830 ms  statement: SELECT json_build_object('at', "
    "'pg_start_backup', 'lsn', pg_start_backup('8dec463b_8c13_452c_a9e4_0d51c4b0d50f', false, "
    "false));",
]


def heroku(ls, tmp):
    path = os.path.join(tmp, "heroku.log")
    with open(path, "w") as f:
        f.write("\n".join(HEROKU) + "\n")
    r, db = ingest(ls, tmp, path)
    check(db is not None and "inferred log_line_prefix ' sql_error_code = %e '" in r.stderr
          and " 0 unparsable lines" in r.stderr, "Heroku: read, prefix inferred: " + r.stderr[-400:])
    got = sorted(db.execute("SELECT pid, log_ts FROM statements")) if db else []
    check(got == [(4456, 1600976991000000), (13761, 1498662602000000)],
          f"Heroku: statements with the header's pid and time: {got}")


def cloudsql(ls, tmp):
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
    r, db = ingest(ls, tmp, os.path.join(data, "cloudsql-2020.jsonl"))
    check(db is not None and "inferred log_line_prefix '[%p]: [%l-1] db=%d,user=%u '" in r.stderr
          and " 0 unparsable lines" in r.stderr, "Cloud SQL 2020: read: " + r.stderr[-400:])
    got = sorted(db.execute("SELECT pid, log_ts FROM statements")) if db else []
    check(got == [(153735, 1586381543456622), (1430907, 1589528353142617)],
          f"Cloud SQL 2020: statements with their pid and the entry's time: {got}")
    r, db = ingest(ls, tmp, os.path.join(data, "cloudsql-2022.jsonl"))
    check(db is not None and "inferred log_line_prefix '%m [%p]: [%l-1] db=%d,user=%u '" in r.stderr,
          "Cloud SQL 2022: prefix inferred from textPayload: " + r.stderr[-400:])
    # The same entries pretty-printed, as the Logs Explorer downloads them and
    # `gcloud logging read --format=json` writes them (and as the pgbadger
    # issues quoted them): one JSON array over many lines.
    entries = [json.loads(line) for line in open(os.path.join(data, "cloudsql-2020.jsonl"))]
    pretty = os.path.join(tmp, "cloudsql-2020.json")
    with open(pretty, "w") as f:
        f.write(json.dumps(entries, indent=2) + "\n")
    starts = [i + 1 for i, line in enumerate(open(pretty)) if line == "  {\n"]
    r, db = ingest(ls, tmp, pretty)
    check(db is not None and " 0 unparsable lines" in r.stderr,
          "Cloud SQL pretty-printed: read: " + r.stderr[-400:])
    got = sorted(db.execute("SELECT pid, log_ts, line FROM statements")) if db else []
    check(got == [(153735, 1586381543456622, starts[0]), (1430907, 1589528353142617, starts[1])],
          f"Cloud SQL pretty-printed: the same statements, each at its entry's first line"
          f" {starts}: {got}")
    # The entries one a line, then pretty-printed, in one run: each file read.
    r, db = ingest(ls, tmp, os.path.join(data, "cloudsql-2020.jsonl"), pretty)
    got = sorted(db.execute("SELECT pid FROM statements")) if db else []
    check(got == [(153735,), (153735,), (1430907,), (1430907,)],
          f"Cloud SQL lines, then pretty-printed, in one run: both read: {got} {r.stderr[-300:]}")
    # Cut inside its second entry: the first is read, the second counted with its line.
    cut = os.path.join(tmp, "cloudsql-cut.json")
    with open(cut, "w") as f:
        f.writelines(open(pretty).readlines()[:starts[1] + 3])
    r, db = ingest(ls, tmp, cut)
    check(db is not None and " 1 unparsable lines" in r.stderr
          and f"cloudsql-cut.json:{starts[1]}: JSON entry not closed" in r.stderr,
          "Cloud SQL pretty-printed, cut: the open entry counted: " + r.stderr[-400:])
    got = sorted(db.execute("SELECT pid FROM statements")) if db else []
    check(got == [(153735,)], f"Cloud SQL pretty-printed, cut: the whole entry read: {got}")


def main():
    ls, samples = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="lockspan-families.")
    try:
        jaeger_array(ls, tmp, samples)
        csv_quoted(ls, tmp, samples)
        cnpg(ls, tmp, samples)
        heroku(ls, tmp)
        cloudsql(ls, tmp)
    finally:
        shutil.rmtree(tmp)
    return report()


if __name__ == "__main__":
    sys.exit(main())
