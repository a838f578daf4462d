#!/usr/bin/env python3
"""The statements view gives every statement line its own values, as the log
wrote them, although stmt_rows (schema 7, docs/store.md) keeps the pid only
when it is not its session's, the verb as a number, the prepared
statement's name by id, and a vxid or parameter list that repeats the
session's previous one as a reference to that row; and since schema 9 the
parse and bind lines of an extended-protocol statement are part of its
execute line's row (parse_ms, bind_ms) when they are the session's lines
just before it with the same pid, name, text, vxid and parameters.

The log is written here, and the expected rows are taken from the lines as
written (not from lockspan): a session whose %c shows up under a second pid
(a log read with the wrong prefix), bind and execute lines with the same
parameters, a transaction's vxid on several lines, two sessions
interleaved, a duration line without its statement, a statement: line and
a named and an unnamed prepared statement. (A duration line without its
statement has the text '', as in every schema before.)

Stores of older schema versions are made from new ones and opened: each is
brought to the current version with its rows as they were (and, since
schema 12, its code paths and holds correlated again, each distinct
statement shape, order of relations and hold evidence stored once).

Usage: check_store_refs.py LOCKSPAN
"""
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

HERE = os.path.dirname(os.path.abspath(__file__))

PREFIX = "%m [%p] %c %v "
T1 = "SELECT abalance FROM pgbench_accounts WHERE aid = $1"
T2 = "UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2"

# (time, pid, %c, vxid, verb, name, text, params, duration ms)
LINES = [
    ("10:00:00.100", 100, "a.64", "3/7", "parse", "P_1", T1, None, "0.010"),
    ("10:00:00.101", 200, "b.c8", "4/2", "bind", "<unnamed>", T2, "$1 = '5', $2 = '1'", "0.020"),
    ("10:00:00.102", 100, "a.64", "3/7", "bind", "P_1", T1, "$1 = '42'", "0.030"),
    ("10:00:00.103", 200, "b.c8", "4/2", "execute", "<unnamed>", T2, "$1 = '5', $2 = '1'", "0.040"),
    ("10:00:00.104", 100, "a.64", "3/7", "execute", "P_1", T1, "$1 = '42'", "0.050"),
    ("10:00:00.105", 100, "a.64", "3/7", "bind", "P_1", T1, "$1 = '42'", "0.060"),
    ("10:00:00.106", 100, "a.64", "3/8", "execute", "P_1", T1, "$1 = '43'", "0.070"),
    # the same session id under another pid: the line's own pid
    ("10:00:00.107", 300, "a.64", "3/8", "statement", None, "COMMIT", None, None),
    ("10:00:00.108", 100, "a.64", "3/8", "", None, "", None, "0.080"),
    ("10:00:00.109", 200, "b.c8", "4/2", "execute", "<unnamed>", T2, "$1 = '5', $2 = '1'", "0.090"),
    # a transaction's end: its execute line is logged after it, vxid B/0
    ("10:00:00.110", 100, "a.64", "3/9", "bind", "<unnamed>", "END", None, "0.011"),
    ("10:00:00.111", 100, "a.64", "3/0", "execute", "<unnamed>", "END", None, "0.012"),
]


# Two lock messages of a real PostgreSQL 15 log (bench/pgbench_log.sh with
# LOCKSPAN_PGBENCH_CLIENTS=160, 2026-12-05): two waiters behind the same
# transaction log the same seven-pid wait queue.
QUEUE_PREFIX = "%m [%p] %q%u@%d/%a %c %l %v %x %e "
QUEUE = "23444,23379,23380,23400,23429,23391,23434"
QUEUE_EXCERPT = """\
2026-12-05 12:09:25.132 UTC [23444] postgres@bench/bench-prepared 6b13fef4.5b94 31 70/3 803 00000 LOG:  process 23444 still waiting for ShareLock on transaction 801 after 50.214 ms
2026-12-05 12:09:25.132 UTC [23444] postgres@bench/bench-prepared 6b13fef4.5b94 32 70/3 803 00000 DETAIL:  Process holding the lock: 23442. Wait queue: 23444, 23379, 23380, 23400, 23429, 23391, 23434.
2026-12-05 12:09:25.132 UTC [23444] postgres@bench/bench-prepared 6b13fef4.5b94 33 70/3 803 00000 CONTEXT:  while rechecking updated tuple (0,28) in relation "pgbench_branches"
2026-12-05 12:09:25.132 UTC [23444] postgres@bench/bench-prepared 6b13fef4.5b94 34 70/3 803 00000 STATEMENT:  UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2;
2026-12-05 12:09:25.133 UTC [23380] postgres@bench/bench-prepared 6b13fef3.5b54 29 12/3 748 00000 LOG:  process 23380 still waiting for ShareLock on transaction 801 after 50.282 ms
2026-12-05 12:09:25.133 UTC [23380] postgres@bench/bench-prepared 6b13fef3.5b54 30 12/3 748 00000 DETAIL:  Process holding the lock: 23442. Wait queue: 23444, 23379, 23380, 23400, 23429, 23391, 23434.
2026-12-05 12:09:25.133 UTC [23380] postgres@bench/bench-prepared 6b13fef3.5b54 31 12/3 748 00000 CONTEXT:  while rechecking updated tuple (0,28) in relation "pgbench_branches"
2026-12-05 12:09:25.133 UTC [23380] postgres@bench/bench-prepared 6b13fef3.5b54 32 12/3 748 00000 STATEMENT:  UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2;
"""


def lockspan(ls, what, *args):
    """Run lockspan with args; check it exits 0 (`what` names the run)."""
    r = subprocess.run([ls, *args], capture_output=True, text=True)
    check(r.returncode == 0, f"{what}: exit 0 ({r.returncode}) {r.stderr[-300:]}")


def as_older(ls, con, db, ver, sql):
    """Make the store `db` (open as `con`) one of schema version `ver`: the
    lock tables as they were before 11, then `sql`; open it with `report`,
    which brings it to the current version. Returns a new connection."""
    # before 15 there were no relation lock views (over lock_wait_rows)
    con.executescript("DROP VIEW relation_lock_rows; DROP VIEW relation_queues;")
    con.execute("DROP VIEW lock_events")
    con.execute("DROP VIEW lock_waits")
    for new, old in (("lock_event_rows", "lock_events"), ("lock_wait_rows", "lock_waits")):
        ddl = con.execute("SELECT sql FROM sqlite_master WHERE name = ?", (new,)).fetchone()[0]
        # before 11 the lists were TEXT columns, which turn an integer into text
        old_ddl = ddl.replace(new + "(", old + "(", 1).replace("holders, queue,",
                                                                "holders TEXT, queue TEXT,")
        check(old_ddl.count("TEXT, queue TEXT") == 1, f"{old}: the columns of before 11")
        con.executescript(f"{old_ddl}; INSERT INTO {old} SELECT * FROM {new}; DROP TABLE {new};")
    # before 12 tx_code, lock_order and holds were tables, every
    # transaction with its shape and its relations as text, every hold with
    # its evidence as text
    con.executescript("CREATE TABLE tx_code_old AS SELECT * FROM tx_code;"
                      " ALTER TABLE tx_code_old DROP COLUMN order_id;"
                      " CREATE TABLE lock_order_old AS SELECT * FROM lock_order;"
                      " CREATE TABLE holds_old AS SELECT * FROM holds;"
                      " DROP VIEW tx_code; DROP VIEW lock_order; DROP VIEW holds;"
                      " DROP TABLE tx_code_rows; DROP TABLE shapes; DROP TABLE lock_orders;"
                      " DROP TABLE IF EXISTS hold_rows; DROP TABLE IF EXISTS hold_evidence;"
                      " ALTER TABLE tx_code_old RENAME TO tx_code;"
                      " ALTER TABLE lock_order_old RENAME TO lock_order;"
                      " ALTER TABLE holds_old RENAME TO holds;")
    # before 13 rows was a table, and what the passes after the
    # transactions pass decide of a hold was in hold_rows
    con.executescript("CREATE TABLE rows_old AS SELECT * FROM rows; DROP VIEW rows;"
                      " DROP TABLE row_keys; DROP TABLE row_holds; DROP TABLE row_queue_peaks;"
                      " DROP TABLE row_hidden; DROP TABLE IF EXISTS hold_bounds;"
                      " DROP TABLE IF EXISTS hold_queued; DROP TABLE IF EXISTS bound_evidence;"
                      " ALTER TABLE rows_old RENAME TO rows;")
    # (before 15 the store kept hold_rows, hold_evidence, hold_bounds,
    # bound_evidence and hold_queued: the steps to 12 and 13 make them, the
    # step to 15 drops them again)
    # before 14 there were no tx_cuts, and stmt_texts had no kind, writes
    con.executescript("DROP TABLE tx_cuts; ALTER TABLE stmt_texts DROP COLUMN kind;"
                      " ALTER TABLE stmt_texts DROP COLUMN writes;")
    # before 15 row_rules had no target, target_col, there was no
    # rule_keyed, and transactions had no cut_shape
    con.executescript("ALTER TABLE row_rules DROP COLUMN target;"
                      " ALTER TABLE row_rules DROP COLUMN target_col; DROP TABLE rule_keyed;"
                      " ALTER TABLE transactions DROP COLUMN cut_shape;")
    # before 16 there were no path_names, path_sets (each transaction's
    # paths, decided by the code paths pass) and no index of row_queue
    con.executescript("DROP TABLE path_sets; DROP TABLE path_names; DROP INDEX row_queue_row;")
    # before 19 transactions had no first_pos (tx_cuts, dropped above, is
    # made by the step to 14 as it was then)
    con.executescript("ALTER TABLE transactions DROP COLUMN first_pos;")
    # before 20 stmt_span_time had no start_ts, dur_us (the span's times
    # were in stmt_rows) and the view statements did not read it (the
    # last step makes the views again)
    con.executescript("DROP VIEW statements; ALTER TABLE stmt_span_time DROP COLUMN start_ts;"
                      " ALTER TABLE stmt_span_time DROP COLUMN dur_us;"
                      " CREATE VIEW statements AS SELECT * FROM stmt_rows;")
    con.executescript(f"CREATE INDEX lock_events_pid ON lock_events(pid, ts);"
                      f" {sql} PRAGMA user_version = {ver};")
    con.close()
    lockspan(ls, f"report on a version {ver} store", "report", "--db", db, "-o", os.devnull)
    con = sqlite3.connect(db)
    now = con.execute("PRAGMA user_version").fetchone()[0]
    check(now == SCHEMA_VERSION,
          f"the version {ver} store is now version {SCHEMA_VERSION} ({now})")
    return con


# The version this lockspan writes (include/ls_store.h).
SCHEMA_VERSION = int(re.search(
    r"#define LS_STORE_SCHEMA_VERSION (\d+)",
    open(os.path.join(os.path.dirname(__file__), "..", "..", "include", "ls_store.h")).read())[1])

# Before 11 a lock message's lists were text.
LISTS_AS_TEXT = """
UPDATE lock_event_rows SET queue = (SELECT text FROM stmt_texts WHERE text_id = queue)
 WHERE typeof(queue) = 'integer';
UPDATE lock_event_rows SET holders = (SELECT text FROM stmt_texts WHERE text_id = holders)
 WHERE typeof(holders) = 'integer';
UPDATE lock_wait_rows SET queue = (SELECT text FROM stmt_texts WHERE text_id = queue)
 WHERE typeof(queue) = 'integer';
"""


def code_paths(con):
    """What names each transaction's code path, the order it writes
    relations in, and its holds, as readers see them."""
    return (con.execute("SELECT tx_id, shape, application FROM tx_code ORDER BY tx_id").fetchall(),
            con.execute("SELECT tx_id, seq, relation FROM lock_order ORDER BY 1, 2").fetchall(),
            con.execute("SELECT * FROM holds ORDER BY hold_id").fetchall())


def write_log(path):
    with open(path, "w") as f:
        for ts, pid, sid, vxid, verb, name, text, params, ms in LINES:
            head = f"2026-12-03 {ts} UTC [{pid}] {sid} {vxid} LOG:  "
            if verb == "":
                f.write(f"{head}duration: {ms} ms\n")
            elif verb == "statement":
                f.write(f"{head}statement: {text}\n")
            else:
                f.write(f"{head}duration: {ms} ms  {verb} {name}: {text}\n")
            if params:
                f.write(f"2026-12-03 {ts} UTC [{pid}] {sid} {vxid} DETAIL:  parameters: {params}\n")


def folded_rows():
    """The rows LINES make, in log order: a bind line joins the session's previous row when
    that is its parse, an execute line when it is its bind (same pid, name,
    text and vxid; a parse has no parameters, a bind the execute's). The
    execute line of a transaction's end shows vxid B/0 where its bind showed
    the transaction's B/n: it joins, and the row keeps B/n."""
    rows, last = [], {}
    for at, (_, pid, sid, vxid, verb, name, text, params, ms) in enumerate(LINES):
        dur = float(ms) if ms else None
        prev = rows[last[sid]] if sid in last else None
        ended = prev is not None and verb == "execute" and vxid.endswith("/0") and \
            prev["vxid"].split("/")[0] == vxid.split("/")[0] and not prev["vxid"].endswith("/0")
        fold = prev is not None and dur is not None and prev["dur"] is not None and \
            (pid, name, text) == (prev["pid"], prev["name"], prev["text"]) and \
            (vxid == prev["vxid"] or ended) and (
                (verb == "bind" and prev["verb"] == "parse" and prev["params"] is None) or
                (verb == "execute" and prev["verb"] == "bind" and prev["params"] == params))
        if fold:
            prev[prev["verb"]] = prev["dur"]
            prev.update(verb=verb, dur=dur, params=params, at=at)
            continue
        last[sid] = len(rows)
        rows.append(dict(pid=pid, sid=sid, vxid=vxid, verb=verb, name=name, text=text,
                         params=params, dur=dur, bind=None, parse=None, at=at))
    rows.sort(key=lambda r: r["at"])  # a row is at its last line
    return [(r["pid"], r["sid"], r["vxid"], r["verb"], r["name"], r["text"], r["params"],
             r["dur"], r["bind"], r["parse"]) for r in rows]


def main():
    ls = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="lockspan-refs.")
    try:
        log, db = os.path.join(tmp, "refs.log"), os.path.join(tmp, "refs.db")
        write_log(log)
        lockspan(ls, "ingest", "ingest", "--db", db, "--prefix", PREFIX, log)
        con = sqlite3.connect(db)
        got = con.execute("SELECT s.pid, se.pg_session, s.vxid, s.verb, s.name, s.text, s.params,"
                          " s.duration_ms, s.bind_ms, s.parse_ms FROM statements s"
                          " JOIN sessions se USING (session_id) ORDER BY s.line").fetchall()
        want = folded_rows()
        check(len(want) == 8, f"the log folds to 8 rows ({len(want)})")
        check(len(got) == len(want), f"one row per statement ({len(got)} of {len(want)})")
        for i, (g, w) in enumerate(zip(got, want)):
            check(g == w, f"line {i + 1}: {g} == {w}")
        # The references are what makes the store narrow: check they are used.
        refs = con.execute("SELECT sum(typeof(vxid) = 'integer'), sum(typeof(params) = 'integer'),"
                           " sum(pid IS NULL) FROM stmt_rows").fetchone()
        check(refs[0] > 0 and refs[1] > 0 and refs[2] > 0,
              f"vxid, params and pid stored by reference somewhere ({refs})")

        # A store of schema version 8 (no bind_us, parse_us; no
        # lock_events.after_lock, added by 10; lock_events a table, not a
        # view of lock_event_rows, 11) is brought to the current version
        # when opened, its rows as they were, and ingest folds from then on.
        con = as_older(ls, con, db, 8, "DROP VIEW statements;"
                       " ALTER TABLE stmt_rows DROP COLUMN bind_us;"
                       " ALTER TABLE stmt_rows DROP COLUMN parse_us;"
                       " ALTER TABLE lock_events DROP COLUMN after_lock;"
                       " CREATE VIEW statements AS SELECT * FROM stmt_rows;")
        cols = [c[1] for c in con.execute("PRAGMA table_info(lock_events)")]
        check("after_lock" in cols, f"lock_events has after_lock ({cols[-3:]})")
        again = con.execute("SELECT s.pid, se.pg_session, s.vxid, s.verb, s.name, s.text,"
                            " s.params, s.duration_ms, s.bind_ms, s.parse_ms FROM statements s"
                            " JOIN sessions se USING (session_id) ORDER BY s.line").fetchall()
        # (the columns dropped above took the folded durations with them)
        check(again == [g[:8] + (None, None) for g in got], "its statements as before")
        con.close()
        log2 = os.path.join(tmp, "refs-next-day.log")
        with open(log) as f, open(log2, "w") as o:
            o.write(f.read().replace("2026-12-03 ", "2026-12-04 "))
        lockspan(ls, "ingest into it", "ingest", "--db", db, "--prefix", PREFIX, log2)
        con = sqlite3.connect(db)
        folded = con.execute("SELECT count(bind_us), count(parse_us) FROM stmt_rows"
                             " WHERE file_id = (SELECT max(file_id) FROM files)").fetchone()
        check(folded == (3, 1), f"the next day's lines folded as in a new store ({folded})")
        con.close()

        # Long pid lists of lock messages are kept once, in stmt_texts, and
        # the lock_events view gives them back as text; short ones inline.
        log3, db3 = os.path.join(tmp, "queues.log"), os.path.join(tmp, "queues.db")
        with open(log3, "w") as f:
            f.write(QUEUE_EXCERPT)
        lockspan(ls, "ingest of the queue excerpt", "ingest", "--db", db3, "--prefix",
                 QUEUE_PREFIX, log3)
        con = sqlite3.connect(db3)
        view = con.execute("SELECT pid, holders, queue FROM lock_events ORDER BY line").fetchall()
        check(view == [(23444, "23442", QUEUE), (23380, "23442", QUEUE)],
              f"both messages' holders and queue as logged ({view})")
        raw = con.execute("SELECT typeof(holders), typeof(queue), queue FROM lock_event_rows"
                          " ORDER BY line").fetchall()
        check([x[:2] for x in raw] == [("text", "integer")] * 2 and raw[0][2] == raw[1][2],
              f"the queue stored once and referred to twice, the holder inline ({raw})")
        kept = con.execute("SELECT count(*) FROM stmt_texts WHERE text = ?", (QUEUE,)).fetchone()
        check(kept == (1,), f"one stmt_texts row for the queue ({kept})")
        con.close()
        # correlation's waits keep the message's queue the same way
        lockspan(ls, "report", "report", "--db", db3, "-o", os.devnull)
        con = sqlite3.connect(db3)
        waits = con.execute("SELECT w.pid, w.holders, w.queue, typeof(r.queue) FROM lock_waits w"
                            " JOIN lock_wait_rows r USING (wait_id) ORDER BY w.pid").fetchall()
        check(waits == [(23380, "23442", QUEUE, "integer"), (23444, "23442", QUEUE, "integer")],
              f"each wait's holders and queue, the queue by id ({waits})")
        con.close()
        # --retention drops texts no row refers to: not the queue
        lockspan(ls, "ingest --retention 1", "ingest", "--db", db3, "--prefix", QUEUE_PREFIX,
                 "--retention", "1", log3)
        con = sqlite3.connect(db3)
        view2 = con.execute("SELECT pid, holders, queue FROM lock_events ORDER BY line").fetchall()
        check(view2 == view, f"the queue still read after --retention ({view2})")
        # A store of version 10 (lock_events a table, its lists as text) is
        # brought to 11: its rows kept as they were, read through the view.
        con.executescript(LISTS_AS_TEXT)
        con = as_older(ls, con, db3, 10, "")
        view3 = con.execute("SELECT pid, holders, queue FROM lock_events ORDER BY line").fetchall()
        raw3 = con.execute("SELECT DISTINCT typeof(queue) FROM lock_event_rows").fetchall()
        check(view3 == view and raw3 == [("text",)],
              f"its lock messages as stored, their queues as text ({view3}, {raw3})")
        con.close()
        # A store of version 11 (tx_code and lock_order tables of their
        # own) is brought to 12: correlated again, every transaction's
        # code path and order of relations as before, each distinct shape
        # and order stored once. Real lines: a 160-client pgbench log.
        db5 = os.path.join(tmp, "paths.db")
        lockspan(ls, "analyze of excerpts", "analyze", "--db", db5, "--prefix", QUEUE_PREFIX,
                 "-o", os.devnull, *[os.path.join(HERE, "excerpts", f"c160-{x}.log") for x in
                                     ("queue-head", "queue-head-next", "woken-holders")])
        con5 = sqlite3.connect(db5)
        paths = code_paths(con5)
        apps = {p[2] for p in paths[0]}
        check(sum(p[1] is not None for p in paths[0]) >= 6 and len(paths[1]) >= 10
              and apps == {"bench-prepared", "bench-extended"},
              f"transactions with a shape, an application and relations written ({paths})")
        stored = con5.execute("SELECT (SELECT count(*) FROM shapes), (SELECT count(*) FROM"
                              " lock_orders), (SELECT count(DISTINCT shape) FROM tx_code),"
                              " (SELECT count(DISTINCT group_concat_rels) FROM (SELECT"
                              " group_concat(relation) AS group_concat_rels FROM (SELECT *"
                              " FROM lock_order ORDER BY tx_id, seq) GROUP BY tx_id)),"
                              " (SELECT count(*) FROM hold_final_evidence),"
                              " (SELECT count(DISTINCT start_evidence) + count(DISTINCT"
                              "  end_evidence) FROM hold_final),"
                              " (SELECT count(DISTINCT text) FROM hold_final_evidence)").fetchone()
        check(stored[0] == stored[2] and stored[1] == stored[3] and
              # hold_final_evidence may keep a text no hold has any more
              # (the transactions pass stores its texts before a later pass,
              # hold_bounds, hold_queued or an aborted transaction's end,
              # decides otherwise), but each text once
              stored[0] + stored[1] < len(paths[0]) and 0 < stored[5] and
              stored[4] == stored[6],
              f"each shape, order of relations and hold evidence stored once ({stored})")
        # the holds: each bound a time, equal ones NULL in hold_final
        bounds = con5.execute("SELECT count(*), count(start_lo), count(start_hi), count(end_lo),"
                              " count(end_hi), (SELECT count(start_hi) + count(end_lo)"
                              " FROM hold_final) FROM holds").fetchone()
        check(bounds[0] >= 5 and bounds[1:5] == (bounds[0],) * 4 and bounds[5] < bounds[0],
              f"every hold's bounds, those equal to their time stored as NULL ({bounds})")
        con5.executescript(LISTS_AS_TEXT)
        con5 = as_older(ls, con5, db5, 10, "")
        again = code_paths(con5)
        for what, a, b in zip(("code paths", "lock orders", "holds"), again, paths):
            check(a == b, f"the same {what} from the upgraded store"
                  f" ({[x for x in a if x not in b]} for {[x for x in b if x not in a]})")
        con5.close()
        # and the next day's lists go in by id, read back as text
        log4 = os.path.join(tmp, "queues-next-day.log")
        with open(log4, "w") as f:
            f.write(QUEUE_EXCERPT.replace("2026-12-05 ", "2026-12-06 "))
        lockspan(ls, "ingest into it", "ingest", "--db", db3, "--prefix", QUEUE_PREFIX, log4)
        con = sqlite3.connect(db3)
        next_day = con.execute("SELECT e.queue, typeof(r.queue) FROM lock_events e"
                               " JOIN lock_event_rows r USING (event_id)"
                               " WHERE e.file_id = (SELECT max(file_id) FROM files)").fetchall()
        check(next_day == [(QUEUE, "integer")] * 2,
              f"the next day's queues by id in the upgraded store ({next_day})")
        con.close()
    finally:
        shutil.rmtree(tmp)
    return report()


if __name__ == "__main__":
    sys.exit(main())
