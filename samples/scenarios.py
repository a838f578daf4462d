#!/usr/bin/python3
"""Drive a real PostgreSQL server into known lock-contention situations and
record the ground truth client-side (truth.json).

Run by samples/generate.sh; needs psycopg2 (Debian: python3-psycopg2), so run
it with /usr/bin/python3.

Every scenario runs its sessions concurrently (one thread and one connection
per session, autocommit on and explicit BEGIN/COMMIT so that every statement
is visible in the server log).  Ordering between sessions is enforced with
threading events and, where the order of lock queueing matters, by polling
pg_stat_activity from a monitor connection (whose own statements are not
logged) until the previous session is really waiting on a lock.

--set basic (default) runs the scenarios below (samples/basic);
--set correlation runs those of scenarios_correlation.py instead;
--set realistic those of scenarios_realistic.py (samples/realistic);
--set i18n the basic scenarios in a fixed order of log lines
(scenarios_i18n.py, samples/i18n).
"""

import argparse
import datetime
import json
import sys
import threading
import time

import psycopg2
import psycopg2.errors

DEADLOCK_TIMEOUT = 0.100  # must match deadlock_timeout in generate.sh
SETTLE = 0.5              # pause between scenarios
STAGGER = 0.060           # hot_account: gap between waiters

ARGS = None
CORR = False              # --set correlation: sessions record identity + statements
TRUTH = {"prefix": "", "waits": [], "holds": [], "deadlocks": [],
         "errors": [], "sessions": []}
TRUTH_LOCK = threading.Lock()


def ts(t):
    """UTC ISO 8601 with microseconds, e.g. 2024-05-01T10:00:00.123456Z."""
    return datetime.datetime.fromtimestamp(t, tz=datetime.timezone.utc) \
        .strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def add(kind, rec):
    with TRUTH_LOCK:
        TRUTH[kind].append(rec)


def connect(app, options=None):
    kw = {"options": options} if options else {}
    conn = psycopg2.connect(host=ARGS.host, port=ARGS.port, user=ARGS.user,
                            dbname=ARGS.dbname, application_name=app, **kw)
    conn.autocommit = True
    return conn


class Session:
    """One client connection = one backend pid."""

    def __init__(self, scenario, app, record=True):
        self.scenario = scenario
        self.app = app
        self.conn = connect(app)
        self.cur = self.conn.cursor()
        if CORR:
            corr_identify(self, record)
            return
        self.cur.execute("SELECT pg_backend_pid()")
        self.pid = self.cur.fetchone()[0]
        if record:
            add("sessions", {"pid": self.pid, "application_name": app,
                             "scenario": scenario})

    def sql(self, q, params=None):
        if CORR:
            return corr_sql(self, q, params)
        self.cur.execute(q, params)
        if self.cur.description is not None:
            return self.cur.fetchall()
        return None

    def close(self):
        try:
            self.conn.close()
        except Exception:
            pass


class Monitor:
    """Unlogged helper connection used only to observe lock waits."""

    def __init__(self):
        self.conn = connect("lockspan-monitor")
        self.cur = self.conn.cursor()
        # Keep the monitor's polling out of the statement log.
        self.cur.execute("SET log_min_duration_statement = -1")

    def wait_for_lock_wait(self, pid, timeout=5.0):
        deadline = time.time() + timeout
        while time.time() < deadline:
            self.cur.execute(
                "SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s",
                (pid,))
            row = self.cur.fetchone()
            if row and row[0] == "Lock":
                return time.time()
            time.sleep(0.005)
        raise RuntimeError("pid %d never started waiting on a lock" % pid)


class Runner:
    """Runs functions in threads and re-raises their failures."""

    def __init__(self):
        self.threads = []
        self.failures = []

    def start(self, fn, *args):
        def wrap():
            try:
                fn(*args)
            except BaseException as e:  # noqa: BLE001
                self.failures.append((fn.__name__, e))
                raise
        t = threading.Thread(target=wrap, name=fn.__name__, daemon=True)
        t.start()
        self.threads.append(t)
        return t

    def join(self, timeout=30.0):
        for t in self.threads:
            t.join(timeout)
            if t.is_alive():
                raise RuntimeError("thread %s hung" % t.name)
        if self.failures:
            name, e = self.failures[0]
            raise RuntimeError("thread %s failed: %r" % (name, e))


def timed(session, q, params=None):
    """Execute q; return (t_before, t_after, sqlstate or None)."""
    t0 = time.time()
    try:
        session.sql(q, params)
        err = None
    except psycopg2.Error as e:
        err = e.pgcode
        if err is None:
            raise
    t1 = time.time()
    return t0, t1, err


def record_wait(scenario, waiter, direct, root, relation, row_id, mode, t0, t1,
                outcome):
    add("waits", {"scenario": scenario, "waiter_pid": waiter.pid,
                  "direct_blocker_pid": direct.pid,
                  "root_blocker_pid": root.pid, "relation": relation,
                  "row_id": row_id, "mode_expected": mode,
                  "wait_start": ts(t0), "wait_end": ts(t1),
                  "outcome": outcome})


def record_hold(scenario, s, relation, row_id, t0, t1):
    add("holds", {"scenario": scenario, "pid": s.pid, "relation": relation,
                  "row_id": row_id, "start": ts(t0), "end": ts(t1),
                  "application_name": s.app})


OUTCOME = {None: "acquired", "40P01": "deadlock", "55P03": "lock_timeout",
           "40001": "serialization_failure"}


# --------------------------------------------------------------------------
# schema

def setup():
    s = Session("setup", "lockspan-setup")
    s.sql("DROP TABLE IF EXISTS accounts, inventory, invoices")
    s.sql("CREATE TABLE accounts (id int PRIMARY KEY, balance numeric NOT NULL)")
    s.sql("CREATE TABLE inventory (id int PRIMARY KEY, qty int NOT NULL)")
    s.sql("CREATE TABLE invoices (id int PRIMARY KEY, total numeric NOT NULL)")
    s.sql("INSERT INTO accounts SELECT g, 1000 FROM generate_series(1, 10) g")
    s.sql("INSERT INTO inventory SELECT g, 100 FROM generate_series(1, 10) g")
    s.sql("INSERT INTO invoices SELECT g, 0 FROM generate_series(1, 10) g")
    s.sql("VACUUM ANALYZE accounts, inventory, invoices")
    s.close()


# --------------------------------------------------------------------------
# a. hot_account: one holder with a slow client step, 4 queued waiters

def hot_account(mon):
    sc = "hot_account"
    holder = Session(sc, "billing")
    waiters = [Session(sc, "checkout") for _ in range(4)]
    held = threading.Event()
    results = {}
    r = Runner()

    def holder_fn():
        holder.sql("BEGIN")
        holder.sql("UPDATE accounts SET balance = balance - 10 WHERE id = 1")
        t_hold = time.time()
        held.set()
        time.sleep(0.8)  # "HTTP call to the payment provider"
        holder.sql("UPDATE invoices SET total = total + 10 WHERE id = 1")
        holder.sql("COMMIT")
        record_hold(sc, holder, "accounts", 1, t_hold, time.time())

    def waiter_fn(i, w):
        w.sql("BEGIN")
        t0, t1, err = timed(w, "UPDATE accounts SET balance = balance + 1 WHERE id = 1")
        w.sql("COMMIT")
        results[i] = (t0, t1, err)

    r.start(holder_fn)
    if not held.wait(10):
        raise RuntimeError("holder did not take the lock")
    for i, w in enumerate(waiters):
        if i:
            time.sleep(STAGGER)
        r.start(waiter_fn, i, w)
        mon.wait_for_lock_wait(w.pid)  # fixes the queue order
    r.join()
    first = waiters[0]
    for i, w in enumerate(waiters):
        t0, t1, err = results[i]
        if err:
            raise RuntimeError("hot_account waiter failed: %s" % err)
        # First waiter: ShareLock on the holder's xid.  The others queue on
        # the tuple lock that the first waiter holds: ExclusiveLock on tuple,
        # and PostgreSQL names the first waiter as the holder.
        record_wait(sc, w, holder if i == 0 else first, holder, "accounts", 1,
                    "ShareLock" if i == 0 else "ExclusiveLock", t0, t1,
                    OUTCOME[err])
    for s in [holder] + waiters:
        s.close()


# --------------------------------------------------------------------------
# b. idle_in_tx: SELECT ... FOR UPDATE, then the client goes idle

def idle_in_tx(mon):
    sc = "idle_in_tx"
    holder = Session(sc, "inventory-sync")
    waiter = Session(sc, "checkout")
    held = threading.Event()
    res = {}
    r = Runner()

    def holder_fn():
        holder.sql("BEGIN")
        holder.sql("SELECT * FROM inventory WHERE id = 7 FOR UPDATE")
        t_hold = time.time()
        held.set()
        time.sleep(1.2)  # idle in transaction
        holder.sql("COMMIT")
        record_hold(sc, holder, "inventory", 7, t_hold, time.time())

    def waiter_fn():
        waiter.sql("BEGIN")
        res["w"] = timed(waiter, "UPDATE inventory SET qty = qty - 1 WHERE id = 7")
        waiter.sql("COMMIT")

    r.start(holder_fn)
    if not held.wait(10):
        raise RuntimeError("holder did not take the lock")
    time.sleep(0.2)
    r.start(waiter_fn)
    r.join()
    t0, t1, err = res["w"]
    if err:
        raise RuntimeError("idle_in_tx waiter failed: %s" % err)
    record_wait(sc, waiter, holder, holder, "inventory", 7, "ShareLock", t0, t1,
                OUTCOME[err])
    holder.close()
    waiter.close()


# --------------------------------------------------------------------------
# c. chain: C waits on B, B waits on A

def chain(mon):
    sc = "chain"
    a = Session(sc, "billing")
    b = Session(sc, "billing")
    c = Session(sc, "checkout")
    a_holds = threading.Event()
    b_holds = threading.Event()
    res = {}
    r = Runner()

    def a_fn():
        a.sql("BEGIN")
        a.sql("UPDATE accounts SET balance = balance - 5 WHERE id = 2")
        t_hold = time.time()
        a_holds.set()
        time.sleep(1.0)
        a.sql("COMMIT")
        record_hold(sc, a, "accounts", 2, t_hold, time.time())

    def b_fn():
        b.sql("BEGIN")
        b.sql("UPDATE accounts SET balance = balance - 5 WHERE id = 3")
        t_hold = time.time()
        b_holds.set()
        res["b"] = timed(b, "UPDATE accounts SET balance = balance + 5 WHERE id = 2")
        b.sql("COMMIT")
        record_hold(sc, b, "accounts", 3, t_hold, time.time())

    def c_fn():
        c.sql("BEGIN")
        res["c"] = timed(c, "UPDATE accounts SET balance = balance + 1 WHERE id = 3")
        c.sql("COMMIT")

    r.start(a_fn)
    if not a_holds.wait(10):
        raise RuntimeError("A did not take the lock")
    r.start(b_fn)
    if not b_holds.wait(10):
        raise RuntimeError("B did not take the lock")
    mon.wait_for_lock_wait(b.pid)
    time.sleep(0.1)
    r.start(c_fn)
    r.join()
    for who, direct in (("b", a), ("c", b)):
        t0, t1, err = res[who]
        if err:
            raise RuntimeError("chain %s failed: %s" % (who, err))
    t0, t1, err = res["b"]
    record_wait(sc, b, a, a, "accounts", 2, "ShareLock", t0, t1, OUTCOME[err])
    t0, t1, err = res["c"]
    record_wait(sc, c, b, a, "accounts", 3, "ShareLock", t0, t1, OUTCOME[err])
    for s in (a, b, c):
        s.close()


# --------------------------------------------------------------------------
# d. deadlock: opposite lock order on accounts 4 and 5

def deadlock(mon):
    sc = "deadlock"
    x = Session(sc, "billing")   # 4 then 5
    y = Session(sc, "refunds")   # 5 then 4
    x_holds = threading.Event()
    y_holds = threading.Event()
    y_go = threading.Event()
    res = {}
    r = Runner()

    def x_fn():
        x.sql("BEGIN")
        x.sql("UPDATE accounts SET balance = balance - 20 WHERE id = 4")
        res["x_hold"] = time.time()
        x_holds.set()
        y_holds.wait(10)
        res["x"] = timed(x, "UPDATE accounts SET balance = balance + 20 WHERE id = 5")
        x.sql("ROLLBACK" if res["x"][2] else "COMMIT")
        res["x_end"] = time.time()

    def y_fn():
        y.sql("BEGIN")
        y.sql("UPDATE accounts SET balance = balance - 20 WHERE id = 5")
        res["y_hold"] = time.time()
        y_holds.set()
        y_go.wait(10)
        res["y"] = timed(y, "UPDATE accounts SET balance = balance + 20 WHERE id = 4")
        y.sql("ROLLBACK" if res["y"][2] else "COMMIT")
        res["y_end"] = time.time()

    r.start(x_fn)
    x_holds.wait(10)
    r.start(y_fn)
    y_holds.wait(10)
    # Let x's deadlock check run (and find nothing) before y closes the
    # cycle: y's own check then finds the deadlock and y is the victim.
    mon.wait_for_lock_wait(x.pid)
    time.sleep(0.4)
    y_go.set()
    r.join()
    errs = {s.pid: res[k][2] for s, k in ((x, "x"), (y, "y"))}
    victims = [pid for pid, e in errs.items() if e == "40P01"]
    if len(victims) != 1 or any(e not in (None, "40P01") for e in errs.values()):
        raise RuntimeError("deadlock scenario: unexpected results %r" % errs)
    victim = victims[0]
    add("deadlocks", {"pids": [x.pid, y.pid], "victim_pid": victim})
    add("errors", {"pid": victim, "sqlstate": "40P01", "scenario": sc})
    t0, t1, err = res["x"]
    record_wait(sc, x, y, y, "accounts", 5, "ShareLock", t0, t1, OUTCOME[err])
    t0, t1, err = res["y"]
    record_wait(sc, y, x, x, "accounts", 4, "ShareLock", t0, t1, OUTCOME[err])
    record_hold(sc, x, "accounts", 4, res["x_hold"], res["x_end"])
    record_hold(sc, y, "accounts", 5, res["y_hold"], res["y_end"])
    x.close()
    y.close()


# --------------------------------------------------------------------------
# e. lock_timeout

def lock_timeout(mon):
    sc = "lock_timeout"
    holder = Session(sc, "billing")
    waiter = Session(sc, "checkout")
    held = threading.Event()
    res = {}
    r = Runner()

    def holder_fn():
        holder.sql("BEGIN")
        holder.sql("UPDATE accounts SET balance = balance - 1 WHERE id = 6")
        t_hold = time.time()
        held.set()
        time.sleep(1.0)
        holder.sql("COMMIT")
        record_hold(sc, holder, "accounts", 6, t_hold, time.time())

    def waiter_fn():
        waiter.sql("SET lock_timeout = '400ms'")
        waiter.sql("BEGIN")
        res["w"] = timed(waiter, "UPDATE accounts SET balance = balance + 1 WHERE id = 6")
        waiter.sql("ROLLBACK")

    r.start(holder_fn)
    held.wait(10)
    time.sleep(0.05)
    r.start(waiter_fn)
    r.join()
    t0, t1, err = res["w"]
    if err != "55P03":
        raise RuntimeError("lock_timeout: expected 55P03, got %r" % err)
    add("errors", {"pid": waiter.pid, "sqlstate": err, "scenario": sc})
    record_wait(sc, waiter, holder, holder, "accounts", 6, "ShareLock", t0, t1,
                OUTCOME[err])
    holder.close()
    waiter.close()


# --------------------------------------------------------------------------
# f. serialization failure under REPEATABLE READ

def serialization(mon):
    sc = "serialization"
    tx1 = Session(sc, "report")
    tx2 = Session(sc, "billing")
    snap = threading.Event()
    tx2_updated = threading.Event()
    res = {}
    r = Runner()

    def tx1_fn():
        tx1.sql("BEGIN ISOLATION LEVEL REPEATABLE READ")
        tx1.sql("SELECT balance FROM accounts WHERE id = 8")  # takes snapshot
        snap.set()
        tx2_updated.wait(10)
        time.sleep(0.05)
        res["tx1"] = timed(tx1, "UPDATE accounts SET balance = balance * 2 WHERE id = 8")
        tx1.sql("ROLLBACK")

    def tx2_fn():
        tx2.sql("BEGIN")
        tx2.sql("UPDATE accounts SET balance = balance + 100 WHERE id = 8")
        t_hold = time.time()
        tx2_updated.set()
        time.sleep(0.5)
        tx2.sql("COMMIT")
        record_hold(sc, tx2, "accounts", 8, t_hold, time.time())

    r.start(tx1_fn)
    snap.wait(10)
    r.start(tx2_fn)
    r.join()
    t0, t1, err = res["tx1"]
    if err != "40001":
        raise RuntimeError("serialization: expected 40001, got %r" % err)
    add("errors", {"pid": tx1.pid, "sqlstate": err, "scenario": sc})
    record_wait(sc, tx1, tx2, tx2, "accounts", 8, "ShareLock", t0, t1,
                OUTCOME[err])
    tx1.close()
    tx2.close()


SCENARIOS = [hot_account, idle_in_tx, chain, deadlock, lock_timeout,
             serialization]

sys.dont_write_bytecode = True  # no samples/__pycache__
from scenarios_correlation import corr_identify, corr_sql, corr_main  # noqa: E402


def main():
    global ARGS, CORR
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=54329)
    p.add_argument("--user", default="postgres")
    p.add_argument("--dbname", default="lockspan")
    p.add_argument("--prefix", required=True, help="log_line_prefix in use")
    p.add_argument("--truth", required=True, help="output truth.json")
    p.add_argument("--set", default="basic", choices=("basic", "correlation", "realistic", "i18n"),
                   help="scenario set (default basic)")
    p.add_argument("--log-statement", default="none",
                   help="the server's log_statement ('all': statements are "
                   "logged at start, log_min_duration_statement = -1)")
    p.add_argument("--snapshots", help="correlation set: write pg_stat_activity "
                   "snapshots (CSV) here")
    p.add_argument("--csvlog", help="i18n set: the server's csvlog, read to order "
                   "the sessions' steps")
    ARGS = p.parse_args()
    TRUTH["prefix"] = ARGS.prefix
    if ARGS.set == "i18n":
        from scenarios_i18n import i18n_main
        i18n_main(sys.modules[__name__])
        write_truth()
        return
    if ARGS.set == "realistic":
        from scenarios_realistic import real_main
        real_main(sys.modules[__name__])
        return
    if ARGS.set == "correlation":
        CORR = True
        corr_main(sys.modules[__name__])
        return

    setup()
    mon = Monitor()
    time.sleep(SETTLE)
    for fn in SCENARIOS:
        print("scenarios.py: %s" % fn.__name__, file=sys.stderr)
        fn(mon)
        time.sleep(SETTLE)
    mon.conn.close()
    write_truth()


def write_truth():
    for k in ("waits", "holds"):
        TRUTH[k].sort(key=lambda r: r["wait_start" if k == "waits" else "start"])
    with open(ARGS.truth, "w") as f:
        json.dump(TRUTH, f, indent=2)
        f.write("\n")
    print("scenarios.py: %d waits, %d holds, %d deadlocks, %d errors, %d sessions"
          % tuple(len(TRUTH[k]) for k in ("waits", "holds", "deadlocks",
                                          "errors", "sessions")),
          file=sys.stderr)


if __name__ == "__main__":
    main()
