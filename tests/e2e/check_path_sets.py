#!/usr/bin/env python3
"""Each transaction's code path stored once, read by key (issue 38).

The code paths pass decides each transaction's path under every grouping
(decide/pathname.c) and stores it interned: path_names, path_sets and
tx_code_rows.path_set; the tx_code view reads them by key. Checked on two
real runs, samples/app (spans with code attributes and routes, and
sqlcommenter tags), samples/pgbench-shapes (no span, no tag, one
application_name: the transaction's shape names the paths) and
samples/basic (application_name names them, and a path's
transactions write first to different relations):
  - every transaction points at a set, and the sets are few: far fewer
    than the transactions;
  - each grouping's path and evidence, as the view gives them, are what
    the view computed from the transaction's facts up to schema 15 (that
    SQL, copied below), for every transaction;
  - the view reads a path by key: a transaction's function_path touches
    neither transactions, sessions nor path_identity (it did per use);
  - the report reads a hot row's queue on row_queue's index, not by a
    scan of every row's queue.

Usage: check_path_sets.py LOCKSPAN SAMPLES_DIR
"""
import os
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

# The tx_code view's expressions up to schema 15 (store_schema.h at abf0931),
# over its columns c.
CODE_NAME = ("(CASE WHEN coalesce({fn}, '') = '' THEN nullif({ns}, '')"
             " WHEN coalesce({ns}, '') = '' OR instr({fn}, '.') > 0 OR instr({fn}, '::') > 0"
             " OR instr({fn}, '\\') > 0 OR instr({fn}, '#') > 0 THEN {fn}"
             " ELSE {ns} || '.' || {fn} END)")
BY_SHAPE = "coalesce((SELECT identity = 'shape' FROM path_identity), 0)"
OLD = {
    "function_path": "coalesce(CASE WHEN c.code_function IS NOT NULL THEN "
    + CODE_NAME.format(ns="c.code_namespace", fn="c.code_function")
    + " END, CASE WHEN c.tag_controller IS NOT NULL THEN "
    + CODE_NAME.format(ns="c.tag_controller", fn="c.tag_action")
    + " END, c.route, c.tag_route, c.root_name, CASE WHEN " + BY_SHAPE
    + " THEN c.tx_shape ELSE c.application END, c.shape, 'unknown')",
    "function_source": "CASE WHEN c.code_function IS NOT NULL THEN 'span code attributes'"
    " WHEN c.tag_controller IS NOT NULL THEN 'sqlcommenter tags'"
    " WHEN c.route IS NOT NULL THEN 'span route' WHEN c.tag_route IS NOT NULL"
    " THEN 'sqlcommenter tags' WHEN c.root_name IS NOT NULL THEN 'span name'"
    " WHEN " + BY_SHAPE + " AND c.tx_shape IS NOT NULL THEN 'transaction shape'"
    " WHEN c.application IS NOT NULL THEN 'application_name'"
    " WHEN c.shape IS NOT NULL THEN 'statement shape' ELSE 'none' END",
    "route_path": "coalesce(c.route, c.tag_route, c.root_name, c.application, c.shape,"
    " 'unknown')",
    "route_source": "CASE WHEN c.route IS NOT NULL THEN 'span route'"
    " WHEN c.tag_route IS NOT NULL THEN 'sqlcommenter tags'"
    " WHEN c.root_name IS NOT NULL THEN 'span name'"
    " WHEN c.application IS NOT NULL THEN 'application_name'"
    " WHEN c.shape IS NOT NULL THEN 'statement shape' ELSE 'none' END",
    "service_path": "coalesce(c.service, c.tag_application, c.application, 'unknown')",
    "service_source": "CASE WHEN c.service IS NOT NULL THEN 'span service'"
    " WHEN c.tag_application IS NOT NULL THEN 'sqlcommenter tags'"
    " WHEN c.application IS NOT NULL THEN 'application_name' ELSE 'none' END",
    "application_path": "coalesce(c.application, 'unknown')",
    "application_source": "CASE WHEN c.application IS NOT NULL THEN 'application_name'"
    " ELSE 'none' END",
    "statement_path": "coalesce(c.shape, 'unknown')",
    "statement_source": "CASE WHEN c.shape IS NOT NULL THEN 'statement shape' ELSE 'none' END",
    "shape_path": "coalesce(c.tx_shape, 'unknown')",
    "shape_source": "CASE WHEN c.tx_shape IS NOT NULL THEN 'transaction shape' ELSE 'none' END",
}


def analyze(ls, tmp, name, args):
    db = os.path.join(tmp, name + ".db")
    r = subprocess.run([ls, "analyze", "-q", "--db", db, "-o", os.devnull, *args],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"{name}: analyze exit 0 ({r.returncode}) {r.stderr[-300:]}")
    return db


def plan(con, sql, *params):
    return " | ".join(row[-1] for row in con.execute("EXPLAIN QUERY PLAN " + sql, params))


def check_store(name, db, want_sources, ratio):
    con = sqlite3.connect(db)
    try:
        check_paths(name, con, want_sources, ratio)
    except sqlite3.Error as e:
        check(False, f"{name}: the store's paths ({e})")
    con.close()


def check_paths(name, con, want_sources, ratio):
    """ratio: at least this many transactions per set."""
    txs, unset = con.execute("SELECT count(*), count(*) - count(path_set)"
                             " FROM tx_code_rows").fetchone()
    sets = con.execute("SELECT count(*) FROM path_sets").fetchone()[0]
    check(txs > 0, f"{name}: transactions with code rows ({txs})")
    check(unset == 0, f"{name}: every transaction points at its paths ({unset} do not)")
    check(0 < sets and sets * ratio <= txs,
          f"{name}: few path sets for many transactions ({sets} for {txs})")
    cols = ", ".join(OLD)
    old = ", ".join(f"{expr}" for expr in OLD.values())
    rows = con.execute(f"SELECT c.tx_id, {cols}, {old} FROM tx_code c ORDER BY c.tx_id").fetchall()
    n = len(OLD)
    differ = [r for r in rows if r[1:1 + n] != r[1 + n:]]
    check(not differ, f"{name}: every transaction's paths as schema 15 named them"
                      f" ({len(differ)} of {len(rows)} differ; first {differ[:1]})")
    sources = {r[0] for r in con.execute("SELECT DISTINCT function_source FROM tx_code")}
    check(want_sources <= sources, f"{name}: function paths named by {sorted(want_sources)}"
                                   f" ({sorted(sources)})")
    p = plan(con, "SELECT c.function_path FROM tx_code c WHERE c.tx_id = ?", 1)
    check(all(t not in p for t in ("sessions", "transactions", "path_identity")),
          f"{name}: a transaction's path read by key, not computed ({p})")
    p = plan(con, "SELECT ts, depth FROM row_queue WHERE row_id = ?1 ORDER BY ts, rowid LIMIT 10",
             1)
    check("row_queue_row" in p and "TEMP B-TREE" not in p,
          f"{name}: a row's queue read on its index, in order ({p})")


def main():
    ls, samples = sys.argv[1], sys.argv[2]
    app = os.path.join(samples, "app")
    shapes = os.path.join(samples, "pgbench-shapes")
    with tempfile.TemporaryDirectory() as tmp:
        prefix = open(os.path.join(app, "prefix.txt")).read().rstrip("\n")
        db = analyze(ls, tmp, "app", ["--prefix", prefix, os.path.join(app, "postgresql.log"),
                                      os.path.join(app, "traces.otlp.jsonl")])
        check_store("app", db, {"span code attributes"}, 4)
        prefix = open(os.path.join(shapes, "prefix.txt")).read().rstrip("\n")
        db = analyze(ls, tmp, "pgbench-shapes",
                     ["--prefix", prefix, os.path.join(shapes, "postgresql.log.gz")])
        check_store("pgbench-shapes", db, {"transaction shape"}, 100)
        # application_name names the paths, and one path writes first
        # to several relations: sets that share a function path differ
        trig = os.path.join(samples, "basic")
        prefix = open(os.path.join(trig, "prefix.txt")).read().rstrip("\n")
        db = analyze(ls, tmp, "basic",
                     ["--prefix", prefix, os.path.join(trig, "postgresql.log")])
        check_store("basic", db, {"application_name"}, 2)
        con = sqlite3.connect(db)
        try:
            n = con.execute("SELECT count(*) FROM (SELECT function_id FROM path_sets"
                            " GROUP BY function_id HAVING count(*) > 1)").fetchone()[0]
        except sqlite3.Error:
            n = 0
        con.close()
        check(n > 0, f"basic: a function path with several sets ({n})")
    return report()


if __name__ == "__main__":
    sys.exit(main())
