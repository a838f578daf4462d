#!/usr/bin/python3
"""DDL pile-ups on a real PostgreSQL server (issue 34 item 8), truth from
the client side: samples/ddl-queue.sh runs it.

Three rounds, each on its own table:

  alter   a reader transaction holds AccessShareLock on `orders` (it read
          the table and stays open); `ALTER TABLE orders ADD COLUMN` queues
          for AccessExclusiveLock behind it; plain SELECTs then queue behind
          the waiting ALTER (AccessShareLock conflicts with the ALTER's
          request, not with the reader's hold).
  index   a writer transaction holds RowExclusiveLock on `customers` (an
          UPDATE, left open); `CREATE INDEX` queues for ShareLock behind
          it; UPDATEs of other customers then queue behind the CREATE
          INDEX (RowExclusiveLock conflicts with its ShareLock request).
  events  two ALTERs queue behind a reader, the second behind the first,
          and one SELECT behind the second: a chain of three.
  tickets no DDL: a transaction holds `LOCK TABLE tickets IN SHARE MODE`;
          an UPDATE queues for RowExclusiveLock behind it, and two more
          `LOCK TABLE tickets IN SHARE MODE` queue behind the UPDATE (their
          ShareLock conflicts with its request, not with the hold). A
          relation lock queue headed by plain DML: it deserves no
          lock_queue_behind_ddl finding (the fix is the LOCK TABLE holder,
          not lock_timeout on a DDL).

While everyone waits, a monitor connection snapshots pg_stat_activity with
pg_blocking_pids() (what the server itself says blocks whom) and pg_locks'
wait order. Each session's pid, statements and their client-side start and
end times go into truth.json, with the facts a report must state: the
blocker of every queued statement is the DDL's pid, the root is the holder,
and the relation is contended as a lock queue, not as a hot row.
"""
import argparse
import json
import threading
import time

import psycopg2

APP_HOLDER = {"alter": "report-job", "index": "billing", "share": "exporter"}
APP_DDL = "migrate"
APP_QUEUED = "api"
QUEUED = 3                # statements queued behind each DDL
QUEUED_DML = 2            # behind the UPDATE of round tickets
HOLD_S = 2.5              # how long the holder keeps its transaction open
DDL_AFTER_S = 0.4         # the DDL starts this long after the holder's lock
QUEUED_AFTER_S = 0.7      # the first queued statement starts then
QUEUED_GAP_S = 0.2        # between queued statements (their queue order)
SNAPSHOT_AFTER_S = 1.6    # the monitor's snapshot, all of them waiting


def now():
    return time.time()


class Session:
    """One client connection with its pid and a log of its statements."""

    def __init__(self, args, app, role):
        self.conn = psycopg2.connect(host=args.host, port=args.port, user=args.user,
                                     dbname=args.dbname, application_name=app)
        self.conn.autocommit = True
        self.cur = self.conn.cursor()
        self.cur.execute("SELECT pg_backend_pid()")
        self.pid = self.cur.fetchone()[0]
        self.app = app
        self.role = role
        self.statements = []

    def run(self, sql, params=None):
        t0 = now()
        self.cur.execute(sql, params)
        t1 = now()
        self.statements.append({"sql": sql, "params": params, "start": t0, "end": t1})
        return self.cur.fetchall() if self.cur.description else None

    def truth(self):
        return {"pid": self.pid, "app": self.app, "role": self.role,
                "statements": self.statements}

    def close(self):
        self.conn.close()


def snapshot(mon, pids):
    """pg_blocking_pids() of each session, and pg_locks' waiters in order."""
    mon.execute("SELECT pid, pg_blocking_pids(pid), wait_event_type, wait_event, state,"
                " query FROM pg_stat_activity WHERE pid = ANY(%s) ORDER BY pid", (pids,))
    act = [{"pid": r[0], "blocked_by": list(r[1]), "wait_event_type": r[2],
            "wait_event": r[3], "state": r[4], "query": r[5]} for r in mon.fetchall()]
    mon.execute("SELECT l.pid, l.mode, l.granted, c.relname FROM pg_locks l"
                " JOIN pg_class c ON c.oid = l.relation WHERE l.locktype = 'relation'"
                " AND l.pid = ANY(%s) AND c.relkind = 'r' ORDER BY l.granted DESC, l.pid",
                (pids,))
    locks = [{"pid": r[0], "mode": r[1], "granted": r[2], "relation": r[3]}
             for r in mon.fetchall()]
    return {"ts": now(), "activity": act, "relation_locks": locks}


def round_alter(args, mon):
    holder = Session(args, APP_HOLDER["alter"], "holder")
    ddl = Session(args, APP_DDL, "ddl")
    queued = [Session(args, APP_QUEUED, "queued") for _ in range(QUEUED)]
    return run_round(mon, "orders", holder,
                     ["BEGIN", "SELECT sum(amount) FROM orders"],
                     ddl, "ALTER TABLE orders ADD COLUMN note text",
                     queued, "SELECT amount FROM orders WHERE id = %s",
                     "AccessShareLock", "AccessExclusiveLock", "AccessShareLock")


def round_index(args, mon):
    holder = Session(args, APP_HOLDER["index"], "holder")
    ddl = Session(args, APP_DDL, "ddl")
    queued = [Session(args, APP_QUEUED, "queued") for _ in range(QUEUED)]
    return run_round(mon, "customers", holder,
                     ["BEGIN", "UPDATE customers SET balance = balance + 1 WHERE id = 1"],
                     ddl, "CREATE INDEX customers_balance ON customers (balance)",
                     queued, "UPDATE customers SET balance = balance - 1 WHERE id = %s",
                     "RowExclusiveLock", "ShareLock", "RowExclusiveLock")


def round_dml_head(args, mon):
    """A relation lock queue with no DDL in it: the UPDATE at its head
    waits for a LOCK TABLE ... IN SHARE MODE holder."""
    holder = Session(args, APP_HOLDER["share"], "holder")
    head = Session(args, APP_QUEUED, "ddl")
    queued = [Session(args, APP_HOLDER["share"], "queued") for _ in range(QUEUED_DML)]
    out = run_round(mon, "tickets", holder, ["BEGIN", "LOCK TABLE tickets IN SHARE MODE"],
                    head, "UPDATE tickets SET seats = seats - 1 WHERE id = 1",
                    queued, ("BEGIN", "LOCK TABLE tickets IN SHARE MODE", "COMMIT"),
                    "ShareLock", "RowExclusiveLock", "ShareLock")
    out["ddl_head"] = False
    return out


def round_two_ddl(args, mon):
    """Two ALTERs in the queue: the second waits behind the first (both
    conflict with the reader too, but the first is ahead), and one SELECT
    behind the second: SELECT -> ALTER 2 -> ALTER 1 -> reader."""
    holder = Session(args, APP_HOLDER["alter"], "holder")
    ddl = Session(args, APP_DDL, "ddl")
    ddl2 = Session(args, APP_DDL, "ddl2")
    queued = [Session(args, APP_QUEUED, "queued")]
    t0 = now()
    holder.run("BEGIN")
    holder.run("SELECT count(*) FROM events")
    threads = []

    def later(delay, fn):
        th = threading.Thread(target=lambda: (time.sleep(max(0.0, t0 + delay - now())), fn()))
        th.start()
        threads.append(th)

    later(DDL_AFTER_S, lambda: ddl.run("ALTER TABLE events ADD COLUMN a int"))
    later(DDL_AFTER_S + QUEUED_GAP_S, lambda: ddl2.run("ALTER TABLE events ADD COLUMN b int"))
    later(QUEUED_AFTER_S + QUEUED_GAP_S,
          lambda: queued[0].run("SELECT kind FROM events WHERE id = %s", (2,)))
    time.sleep(max(0.0, t0 + SNAPSHOT_AFTER_S - now()))
    snap = snapshot(mon, [holder.pid, ddl.pid, ddl2.pid, queued[0].pid])
    time.sleep(max(0.0, t0 + HOLD_S - now()))
    holder.run("COMMIT")
    for th in threads:
        th.join()
    sessions = [holder, ddl, ddl2] + queued
    out = {
        "table": "events", "ddl_head": True,
        "holder": holder.pid, "ddl": ddl.pid, "ddl2": ddl2.pid,
        "queued": [s.pid for s in queued],
        "modes": {"held": "AccessShareLock", "ddl": "AccessExclusiveLock",
                  "queued": "AccessShareLock"},
        "expect": {"blocker_of_queued": ddl2.pid, "root_of_queued": holder.pid,
                   "blocker_of_ddl2": ddl.pid, "blocker_of_ddl": holder.pid},
        "snapshot": snap,
        "sessions": [s.truth() for s in sessions],
    }
    for s in sessions:
        s.close()
    return out


def run_round(mon, table, holder, holder_sql, ddl, ddl_sql, queued, queued_sql,
              held_mode, ddl_mode, queued_mode):
    t0 = now()
    for sql in holder_sql:
        holder.run(sql)
    threads = []

    def later(delay, fn):
        th = threading.Thread(target=lambda: (time.sleep(max(0.0, t0 + delay - now())), fn()))
        th.start()
        threads.append(th)

    later(DDL_AFTER_S, lambda: ddl.run(ddl_sql))
    # queued_sql: one statement with the row's id, or (BEGIN, a statement
    # that must run in a transaction block, COMMIT): BEGIN at once.
    if isinstance(queued_sql, tuple):
        begin, queued_sql, end = queued_sql
        for s in queued:
            s.run(begin)
        run_queued = lambda s, k: (s.run(queued_sql), s.run(end))  # noqa: E731
    else:
        run_queued = lambda s, k: s.run(queued_sql, (k,))  # noqa: E731
    for i, s in enumerate(queued):
        later(QUEUED_AFTER_S + i * QUEUED_GAP_S, lambda s=s, k=i + 2: run_queued(s, k))
    time.sleep(max(0.0, t0 + SNAPSHOT_AFTER_S - now()))
    snap = snapshot(mon, [holder.pid, ddl.pid] + [s.pid for s in queued])
    time.sleep(max(0.0, t0 + HOLD_S - now()))
    holder.run("COMMIT")
    for th in threads:
        th.join()
    sessions = [holder, ddl] + queued
    out = {
        "table": table, "ddl_head": True,
        "holder": holder.pid, "ddl": ddl.pid, "queued": [s.pid for s in queued],
        "modes": {"held": held_mode, "ddl": ddl_mode, "queued": queued_mode},
        # What the report must say of every queued statement's wait.
        "expect": {"blocker_of_queued": ddl.pid, "root_of_queued": holder.pid,
                   "blocker_of_ddl": holder.pid},
        "snapshot": snap,
        "sessions": [s.truth() for s in sessions],
    }
    for s in sessions:
        s.close()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--user", default="postgres")
    ap.add_argument("--dbname", default="lockspan")
    ap.add_argument("--truth", required=True)
    ap.add_argument("--prefix", default="")
    args = ap.parse_args()

    setup = psycopg2.connect(host=args.host, port=args.port, user=args.user,
                             dbname=args.dbname, application_name="setup")
    setup.autocommit = True
    cur = setup.cursor()
    cur.execute("CREATE TABLE orders(id int PRIMARY KEY, amount int NOT NULL)")
    cur.execute("INSERT INTO orders SELECT g, g * 10 FROM generate_series(1, 20) g")
    cur.execute("CREATE TABLE customers(id int PRIMARY KEY, balance int NOT NULL)")
    cur.execute("INSERT INTO customers SELECT g, 100 FROM generate_series(1, 20) g")
    cur.execute("CREATE TABLE events(id int PRIMARY KEY, kind text NOT NULL)")
    cur.execute("INSERT INTO events SELECT g, 'k' || g FROM generate_series(1, 20) g")
    cur.execute("CREATE TABLE tickets(id int PRIMARY KEY, seats int NOT NULL)")
    cur.execute("INSERT INTO tickets SELECT g, 50 FROM generate_series(1, 20) g")
    cur.execute("SELECT oid, relname FROM pg_class"
                " WHERE relname IN ('orders', 'customers', 'events', 'tickets')")
    oids = {r[1]: r[0] for r in cur.fetchall()}
    cur.execute("SELECT oid FROM pg_database WHERE datname = current_database()")
    db_oid = cur.fetchone()[0]
    mon_conn = psycopg2.connect(host=args.host, port=args.port, user=args.user,
                                dbname=args.dbname, application_name="monitor")
    mon_conn.autocommit = True
    mon = mon_conn.cursor()

    rounds = [round_alter(args, mon)]
    time.sleep(0.5)
    rounds.append(round_index(args, mon))
    time.sleep(0.5)
    rounds.append(round_two_ddl(args, mon))
    time.sleep(0.5)
    rounds.append(round_dml_head(args, mon))
    mon_conn.close()
    setup.close()

    for r in rounds:
        r["rel_oid"] = oids[r["table"]]
        r["db_oid"] = db_oid
        for a in r["snapshot"]["activity"]:
            blocker = r["expect"]["blocker_of_queued"]
            if a["pid"] in r["queued"] and blocker not in a["blocked_by"]:
                raise SystemExit("scenarios_ddl.py: %s: pid %d not blocked by the DDL %d: %s"
                                 % (r["table"], a["pid"], blocker, a["blocked_by"]))
    truth = {
        "set": "ddl-queue",
        "prefix": args.prefix,
        "rounds": rounds,
        # Findings the code deserves, and those it must not get (the
        # lock-queue finding on the rounds with "ddl_head" only).
        "findings_expected": ["lock_queue_behind_ddl"],
        "findings_forbidden": ["serial_capacity", "hot_counter_row", "hidden_waiting"],
    }
    with open(args.truth, "w") as f:
        json.dump(truth, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
