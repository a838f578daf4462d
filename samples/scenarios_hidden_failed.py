#!/usr/bin/env python3
"""Statements that failed did wait first (issue 34 item 2): a real
PostgreSQL 15 with the default deadlock_timeout (1s) and
log_statement = 'all', where locking statements queue behind a holder of
a row, below deadlock_timeout (never logged), and then fail. Driven by
samples/hidden.sh (mode `failed`).

Rounds one after the other, each kind on its own rows of `accounts` (row 1:
serialization, 2: lock_timeout, 3 and 4: deadlock). First a slow round
makes rows 1 and 2 hot in the log: a holder keeps both 1.2 s while two
READ COMMITTED updaters wait, one for each (logged waits that end acquired);
lockspan learns which rows are hot from the logged waits. Then:
- serialization: a holder (READ COMMITTED) updates the row and keeps it
  150-700 ms; a REPEATABLE READ transaction reads, then updates the row,
  queues behind the holder and fails with 40001 when the holder commits;
  a READ COMMITTED updater that queued behind the same holder gets the row
  (a wait that ended acquired, for contrast);
- lock_timeout: the holder keeps the row 500-800 ms; a transaction with
  SET LOCAL lock_timeout = 150-350 ms updates it and fails with 55P03;
- deadlock: A locks row a, B locks row b, A updates b (queues behind B),
  B updates a; A's deadlock_timeout runs out first, so A is the victim
  (40P01) after about a second of waiting behind B (a logged wait: the
  server logs "detected deadlock while waiting"), and B gets row a.

Truth, from the client only (time.time() around each execute; the pids and
xids the sessions read of themselves): `failed_waits`, one per failed
statement: pid, row (relation, key), start, end (the statement sent, the
error back), sqlstate, blocker_pid and blocker_xid (the transaction it
queued behind), logged (whether it outlasted deadlock_timeout); `waits`
the same for the statements that waited and got the row.

Usage: scenarios_hidden_failed.py --port P --truth FILE [--rounds N] [--seed N]
"""

import argparse
import datetime
import json
import random
import threading
import time

import psycopg2
import psycopg2.errors

DEADLOCK_TIMEOUT_S = 1.0
ROUND_GAP_S = 0.05          # quiet time between rounds
SERIAL_ROW, TIMEOUT_ROW, DEADLOCK_ROW = 1, 2, 3   # the deadlock takes 3 and 4


def iso(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%S.%fZ")


class Session:
    """One connection (application_name = its role), autocommit: the
    transactions are the SQL's own BEGIN/COMMIT, as the log shows them."""

    def __init__(self, args, app):
        self.conn = psycopg2.connect(host=args.host, port=args.port, user=args.user,
                                     dbname=args.dbname, application_name=app)
        self.conn.autocommit = True
        self.cur = self.conn.cursor()
        self.cur.execute("SELECT pg_backend_pid()")
        self.pid = self.cur.fetchone()[0]

    def run(self, sql, *params):
        self.cur.execute(sql, params or None)
        return self.cur.fetchall() if self.cur.description else None

    def xid(self):
        return self.run("SELECT txid_current()")[0][0]

    def timed(self, sql):
        """Execute sql; (start, end, sqlstate or None)."""
        t0 = time.time()
        try:
            self.cur.execute(sql)
            state = None
        except psycopg2.Error as e:
            state = e.pgcode
        return t0, time.time(), state


def setup(args):
    s = Session(args, "failed-setup")
    s.run("CREATE TABLE accounts (id int PRIMARY KEY, balance numeric NOT NULL)")
    s.run("INSERT INTO accounts SELECT g, 1000 FROM generate_series(1, 100) g")
    s.conn.close()


def update_sql(row, delta=1):
    return "UPDATE accounts SET balance = balance + %d WHERE id = %d" % (delta, row)


def waiter_thread(session, sql, out, before=()):
    """Run `before` statements, then sql timed, in a thread; ROLLBACK on error."""
    def body():
        for b in before:
            session.run(b)
        out.append(session.timed(sql))
        if out[-1][2] is not None:
            session.run("ROLLBACK")
    t = threading.Thread(target=body, daemon=True)
    t.start()
    return t


def record(truth, key, s, row, timed, blocker, blocker_xid):
    t0, t1, state = timed
    truth[key].append({
        "pid": s.pid, "relation": "accounts", "row_key": "id=%d" % row,
        "start": iso(t0), "end": iso(t1), "ms": round((t1 - t0) * 1000, 3),
        "sqlstate": state, "blocker_pid": blocker.pid, "blocker_xid": blocker_xid,
        "logged": (t1 - t0) >= DEADLOCK_TIMEOUT_S})


def serialization_round(sess, rng, row, truth):
    holder, rr, rc = sess["holder"], sess["rr"], sess["rc"]
    hold_s = rng.uniform(0.15, 0.7)
    holder.run("BEGIN")
    holder.run(update_sql(row))
    xid = holder.xid()
    rr.run("BEGIN ISOLATION LEVEL REPEATABLE READ")
    rr.run("SELECT balance FROM accounts WHERE id = %d" % row)
    out_rr, out_rc = [], []
    t_rr = waiter_thread(rr, update_sql(row, 0), out_rr)
    time.sleep(rng.uniform(0.01, 0.04))
    t_rc = waiter_thread(rc, update_sql(row, 2), out_rc, before=("BEGIN",))
    time.sleep(hold_s)
    holder.run("COMMIT")
    t_rr.join()
    t_rc.join()
    rc.run("COMMIT")
    if out_rr[0][2] is None:
        rr.run("COMMIT")
    record(truth, "failed_waits", rr, row, out_rr[0], holder, xid)
    record(truth, "waits", rc, row, out_rc[0], holder, xid)


def lock_timeout_round(sess, rng, row, truth):
    holder, w = sess["holder"], sess["timeout"]
    holder.run("BEGIN")
    holder.run(update_sql(row))
    xid = holder.xid()
    out = []
    t = waiter_thread(w, update_sql(row), out,
                      before=("BEGIN", "SET LOCAL lock_timeout = '%dms'"
                              % rng.randint(150, 350)))
    time.sleep(rng.uniform(0.5, 0.8))
    t.join()
    holder.run("COMMIT")
    if out[0][2] is None:
        w.run("COMMIT")
    record(truth, "failed_waits", w, row, out[0], holder, xid)


def deadlock_round(sess, rng, row, truth):
    a, b = sess["dl_a"], sess["dl_b"]
    ra, rb = row, row + 1
    a.run("BEGIN")
    a.run(update_sql(ra))
    xa = a.xid()
    b.run("BEGIN")
    b.run(update_sql(rb))
    xb = b.xid()
    out_a, out_b = [], []
    ta = waiter_thread(a, update_sql(rb), out_a)
    time.sleep(rng.uniform(0.1, 0.3))
    tb = waiter_thread(b, update_sql(ra), out_b)
    ta.join()
    tb.join()
    for s, out in ((a, out_a), (b, out_b)):
        if out[0][2] is None:
            s.run("COMMIT")
    # the victim is whichever failed; A's timer runs out first
    if out_a[0][2] is not None:
        record(truth, "failed_waits", a, rb, out_a[0], b, xb)
        record(truth, "waits", b, ra, out_b[0], a, xa)
    else:
        record(truth, "failed_waits", b, ra, out_b[0], a, xa)
        record(truth, "waits", a, rb, out_a[0], b, xb)


def slow_round(sess, rows, truth):
    """A holder keeps `rows` past deadlock_timeout; an updater of its own
    waits for each."""
    holder = sess["holder"]
    holder.run("BEGIN")
    for row in rows:
        holder.run(update_sql(row))
    xid = holder.xid()
    waiters = [(sess[name], row, []) for name, row in zip(("rc", "timeout"), rows)]
    threads = [waiter_thread(w, update_sql(row, 2), out, before=("BEGIN",))
               for w, row, out in waiters]
    time.sleep(DEADLOCK_TIMEOUT_S + 0.2)
    holder.run("COMMIT")
    for t in threads:
        t.join()
    for w, row, out in waiters:
        w.run("COMMIT")
        record(truth, "waits", w, row, out[0], holder, xid)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--user", default="postgres")
    ap.add_argument("--dbname", default="lockspan")
    ap.add_argument("--truth", required=True)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--seed", type=int, default=34)
    ap.add_argument("--set-name", default="hidden-failed")
    ap.add_argument("--prefix", default="")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    setup(args)
    sess = {k: Session(args, k) for k in
            ("holder", "rr", "rc", "timeout", "dl_a", "dl_b")}
    truth = {"set": args.set_name, "prefix": args.prefix,
             "deadlock_timeout_ms": DEADLOCK_TIMEOUT_S * 1000,
             "pids": {k: s.pid for k, s in sess.items()},
             "failed_waits": [], "waits": []}
    slow_round(sess, (SERIAL_ROW, TIMEOUT_ROW), truth)
    for _ in range(args.rounds):
        serialization_round(sess, rng, SERIAL_ROW, truth)
        lock_timeout_round(sess, rng, TIMEOUT_ROW, truth)
        deadlock_round(sess, rng, DEADLOCK_ROW, truth)
        time.sleep(ROUND_GAP_S)
    for s in sess.values():
        s.conn.close()
    with open(args.truth, "w") as f:
        json.dump(truth, f, indent=1)
    states = [w["sqlstate"] for w in truth["failed_waits"]]
    print("scenarios_hidden_failed: %d failed statements (%s)"
          % (len(states), ", ".join("%s %d" % (s, states.count(s)) for s in sorted(set(states),
                                                                                  key=str))))


if __name__ == "__main__":
    main()
