#!/usr/bin/env python3
"""The report's input.logging is read from what ingest and correlation
stored (issue 38: the report reads small prepared tables, not every
statement), and stays exact (src/store/stmtstats.c,
src/correlate/logging.c, reports/coverage.c):

- a log ingested in two runs into one store (its first lines, then the
  rest as another file): stmt_stats sums both runs and equals the counts
  of the statement rows the store holds (the oracle: SQL over stmt_rows
  here, as the report counted before), and input.logging says the same;
- the report reads the correlation's logcover row: a store whose row is
  changed (still correlated) reports the changed figures;
- --retention drops the mark that stmt_stats covers every row: the
  correlation then counts the rows, and input.logging is still the
  oracle's;
- a report window takes the statement counts of the whole store.

Samples: blind-pool's jsonlog (threshold: every statement timed) and
basic's stderr log (statements with and without durations, BEGIN and
COMMIT), both written by a real PostgreSQL server.

usage: check_stmt_stats.py LOCKSPAN SAMPLES_DIR
"""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

failures = []
SPAN_VERB = 5  # LS_VERB_SPAN
TX_CONTROL_KINDS = (1, 2, 3)  # LS_SQL_BEGIN, LS_SQL_COMMIT, LS_SQL_ROLLBACK (ls_sqlshape.h)


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def run(args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("FAIL: %s exited %d: %s" % (" ".join(args), r.returncode, r.stderr))
    return r


def oracle(db):
    """The logged statement rows' counts, as the report counted them
    before: rows not from spans, with a duration (the log's, else the one
    the spans pass gave it: stmt_span_time, schema 20), the shortest (ms),
    BEGIN/COMMIT/ROLLBACK by their text's kind."""
    con = sqlite3.connect(db)
    try:
        n, timed, shortest, txc = con.execute(
            "SELECT count(*), count(coalesce(st.dur_us, x.dur_us)),"
            " min(coalesce(st.dur_us, x.dur_us)) / 1000.0,"
            " coalesce(sum(t.kind IN (?, ?, ?)), 0) FROM stmt_rows st"
            " LEFT JOIN stmt_span_time x ON x.stmt_id = st.stmt_id"
            " LEFT JOIN stmt_texts t ON t.text_id = st.text_id WHERE st.verb <> ?",
            TX_CONTROL_KINDS + (SPAN_VERB,)).fetchone()
    finally:
        con.close()
    return {"statements": n, "statements_timed": timed, "shortest_ms": shortest,
            "transaction_control": txc}


def store_rows(db, sql):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    except sqlite3.Error as e:
        return "error: %s" % e
    finally:
        con.close()


def report(lockspan, db, out, extra=()):
    run([lockspan, "report", "-q", "--db", db, "-o", out] + list(extra))
    with open(out) as f:
        return json.load(f)["input"]["logging"]


def same_counts(lg, want, what):
    got = {k: lg.get(k) for k in want}
    check(got == want, "%s: input.logging %s == the rows' %s" % (what, got, want))


def split_ingest(lockspan, tmp, name, path, prefix, traces):
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
    args = ["--prefix", prefix] if prefix else []
    for p, more in ((parts[0], []), (parts[1], traces)):
        run([lockspan, "ingest", "-q", "--db", db] + args + [p] + more)
    return db, parts


def check_sample(lockspan, tmp, name, path, prefix, traces=()):
    db, parts = split_ingest(lockspan, tmp, name, path, prefix, list(traces))
    want = oracle(db)
    check(want["statements"] > 0, "%s: the store holds statements (%d)" % (name, want["statements"]))
    stats = store_rows(db, "SELECT statements, timed, min_dur_us / 1000.0, tx_control"
                           " FROM stmt_stats")
    check(stats == [(want["statements"], want["statements_timed"], want["shortest_ms"],
                     want["transaction_control"])],
          "%s: two ingests' stmt_stats %s sum to the rows' counts %s" % (name, stats, want))
    mark = store_rows(db, "SELECT value FROM meta WHERE key = 'stmt_stats'")
    check(mark == [("complete",)], "%s: stmt_stats marked complete (%s)" % (name, mark))
    lg = report(lockspan, db, os.path.join(tmp, name + ".json"))
    # after correlation: the statements the spans timed count as timed
    # (stmt_span_time), as they did when the report counted the rows
    want = oracle(db)
    same_counts(lg, want, name)
    lg["ingest_timed"] = stats[0][1] if isinstance(stats, list) and stats else None
    lg["span_timed"] = store_rows(db, "SELECT count(*) FROM stmt_span_time")[0][0]

    # The report reads the stored row (the store stays correlated).
    con = sqlite3.connect(db)
    try:
        con.execute("UPDATE logcover SET statements = statements + 1000, holds = holds + 7")
        con.commit()
    except sqlite3.Error as e:
        check(False, "%s: the store has a logcover row to change (%s)" % (name, e))
        return lg
    finally:
        con.close()
    lg2 = report(lockspan, db, os.path.join(tmp, name + "-changed.json"))
    check(lg2["statements"] == want["statements"] + 1000 and lg2["holds"] == lg["holds"] + 7,
          "%s: the report reads logcover (statements %s, holds %s after the row was changed)"
          % (name, lg2["statements"], lg2["holds"]))

    # A window: the statement counts are the whole store's.
    lgw = report(lockspan, db, os.path.join(tmp, name + "-window.json"),
                 ["--since", "2000-01-01T00:00:00Z", "--until", "2000-01-02T00:00:00Z"])
    check(lgw["holds"] == 0 and lgw["statements"] == want["statements"] + 1000,
          "%s: a window without holds: holds %s, the stored statements %s"
          % (name, lgw["holds"], lgw["statements"]))

    # --retention (the second part again: already read, nothing added):
    # the mark goes, correlation counts the rows.
    run([lockspan, "ingest", "-q", "--db", db, "--retention", "3650"]
        + (["--prefix", prefix] if prefix else []) + [parts[1]])
    mark = store_rows(db, "SELECT value FROM meta WHERE key = 'stmt_stats'")
    check(mark == [], "%s: --retention drops the stmt_stats mark (%s)" % (name, mark))
    want = oracle(db)
    lg3 = report(lockspan, db, os.path.join(tmp, name + "-retention.json"))
    same_counts(lg3, want, name + " after --retention")
    return lg


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    lockspan, samples = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        lg = check_sample(lockspan, tmp, "blind-pool",
                          os.path.join(samples, "blind-pool", "postgresql.json"), None)
        check(lg["verdict"] == "threshold", "blind-pool: verdict threshold (%s)" % lg["verdict"])
        with open(os.path.join(samples, "basic", "prefix.txt")) as f:
            prefix = f.read().rstrip("\n")
        lg = check_sample(lockspan, tmp, "basic",
                          os.path.join(samples, "basic", "postgresql.log"), prefix)
        check(lg["transaction_control"] > 0, "basic: BEGIN/COMMIT counted (%d)"
              % lg["transaction_control"])
        # A whole-second log_statement = 'all' log and its trace: no
        # statement has a duration at ingest, the spans time some.
        d = os.path.join(samples, "app-seconds")
        with open(os.path.join(d, "prefix.txt")) as f:
            prefix = f.read().rstrip("\n")
        lg = check_sample(lockspan, tmp, "app-seconds", os.path.join(d, "postgresql.log"),
                          prefix, [os.path.join(d, "traces.otlp.jsonl.gz")])
        check(lg["ingest_timed"] == 0 and lg["span_timed"] > 0
              and lg["statements_timed"] == lg["span_timed"],
              "app-seconds: none timed at ingest (%s), the %d the spans timed are (%d)"
              % (lg["ingest_timed"], lg["span_timed"], lg["statements_timed"]))
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
