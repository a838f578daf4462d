"""The `correlation` scenario set of samples/scenarios.py (--set correlation).

Real-server scenarios for the correlation engine (GitHub issue 4): pid reuse,
a chain three deep, a tuple-lock queue of five, an idle-in-transaction head,
one transaction holding two hot rows, a head blocker that is committing, a
40001 failure and its retry, a lock_timeout and its retry, and one row that
moves through several ctids (driven with psycopg 3, extended protocol).

Every session records its identity (pid, backend_start, the %c session id)
and every statement it sends with client-side start/end times; truth.json
gets waits, holds, transactions, retries, chains, ctids and pid_reuse.
A separate connection saves pg_stat_activity snapshots every 200 ms.
Imported by scenarios.py; S is that module (set by corr_main).
"""

import json
import os
import subprocess
import sys
import threading
import time

import psycopg2

S = None                  # the scenarios module
SESSIONS = []             # every identified session, in creation order
OBS = []                  # ctid observations
MON = None
SNAPS = None              # the Snapshots thread, if any
# Startup-packet options for the helper connections: none of their
# statements is logged (under log_statement = 'all' too); a SET sent as a
# statement would itself be logged.
QUIET = "-c log_statement=none -c log_min_duration_statement=-1"
SNAPSHOT_QUERY = ("SELECT now(), pid, state, wait_event_type, wait_event, "
                  "xact_start, query_start, backend_start, pg_blocking_pids(pid), "
                  "query FROM pg_stat_activity WHERE backend_type = 'client backend' "
                  "AND pid <> pg_backend_pid()")
IDENT_QUERY = ("SELECT pg_backend_pid(), backend_start FROM pg_stat_activity "
               "WHERE pid = pg_backend_pid()")
HOLD = 1.5                # how long head blockers hold their rows (s)


def ts(t):
    return S.ts(t)


def sqlstate(e):
    return getattr(e, "pgcode", None) or getattr(e, "sqlstate", None)


# --------------------------------------------------------------------------
# sessions

def corr_identify(sess, record):
    """Session.__init__ hook: pid, backend_start and %c session id."""
    sess.stmts = []
    sess.driver = getattr(sess, "driver", "psycopg2")
    rows = sess.sql(IDENT_QUERY)
    sess.pid, bs = rows[0]
    sess.backend_start = bs.timestamp()
    # elog.c: %c = "%lx.%x" of (time_t) MyStartTime and MyProcPid;
    # backend_start is MyStartTimestamp, of which MyStartTime is the seconds.
    sess.session_id = "%x.%x" % (int(sess.backend_start), sess.pid)
    SESSIONS.append(sess)
    if record:
        S.add("sessions", {"pid": sess.pid, "application_name": sess.app,
                           "scenario": sess.scenario,
                           "session_id": sess.session_id,
                           "backend_start": ts(sess.backend_start),
                           "driver": sess.driver})


def corr_sql(sess, q, params=None):
    """Session.sql hook: execute and record the statement as sent."""
    text = sess.cur.mogrify(q, params).decode() if params is not None else q
    rec = {"sql": text}
    rec["start"] = time.time()
    try:
        sess.cur.execute(q, params)
        rows = sess.cur.fetchall() if sess.cur.description is not None else None
    except psycopg2.Error as e:
        rec["end"] = time.time()
        rec["sqlstate"] = e.pgcode
        sess.stmts.append(rec)
        raise
    rec["end"] = time.time()
    sess.stmts.append(rec)
    return rows


class Session3:
    """A psycopg 3 session: extended query protocol, server-side binding,
    so the log has `execute <unnamed>: ... $1` and `parameters: $1 = '...'`."""

    def __init__(self, scenario, app):
        import psycopg
        self.psycopg = psycopg
        self.scenario = scenario
        self.app = app
        self.driver = "psycopg3"
        self.conn = psycopg.connect(host=S.ARGS.host, port=S.ARGS.port,
                                    user=S.ARGS.user, dbname=S.ARGS.dbname,
                                    application_name=app, autocommit=True)
        self.cur = self.conn.cursor()
        corr_identify(self, True)

    def sql(self, q, params=None):
        n = 0
        text = q
        while "%s" in text:
            n += 1
            text = text.replace("%s", "$%d" % n, 1)
        rec = {"sql": text, "protocol": "extended"}
        if params is not None:
            rec["params"] = [str(p) for p in params]
        rec["start"] = time.time()
        try:
            self.cur.execute(q, params)
            rows = self.cur.fetchall() if self.cur.description is not None else None
        except self.psycopg.Error as e:
            rec["end"] = time.time()
            rec["sqlstate"] = e.sqlstate
            self.stmts.append(rec)
            raise
        rec["end"] = time.time()
        self.stmts.append(rec)
        return rows

    def close(self):
        try:
            self.conn.close()
        except Exception:
            pass


def timed(sess, q, params=None):
    t0 = time.time()
    try:
        sess.sql(q, params)
        err = None
    except Exception as e:  # psycopg2.Error or psycopg.Error
        err = sqlstate(e)
        if err is None:
            raise
    return t0, time.time(), err


def ident(s, prefix=""):
    return {prefix + "pid": s.pid, prefix + "session_id": s.session_id,
            prefix + "backend_start": ts(s.backend_start)}


# --------------------------------------------------------------------------
# monitor (unlogged; shared by threads under a lock)

class Mon:
    def __init__(self):
        self.conn = S.connect("lockspan-monitor", QUIET)
        self.cur = self.conn.cursor()
        self.lock = threading.Lock()

    def q(self, sql, params):
        with self.lock:
            self.cur.execute(sql, params)
            return self.cur.fetchone()

    def wait_lock(self, pid, timeout=5.0):
        deadline = time.time() + timeout
        while time.time() < deadline:
            row = self.q("SELECT wait_event_type FROM pg_stat_activity "
                         "WHERE pid = %s", (pid,))
            if row and row[0] == "Lock":
                return
            time.sleep(0.005)
        raise RuntimeError("pid %d never started waiting on a lock" % pid)

    def xid(self, pid):
        row = self.q("SELECT backend_xid::text FROM pg_stat_activity "
                     "WHERE pid = %s", (pid,))
        return int(row[0]) if row and row[0] else None


class Snapshots(threading.Thread):
    """COPY (pg_stat_activity ...) TO STDOUT WITH CSV every 200 ms."""

    def __init__(self, path):
        super().__init__(name="snapshots", daemon=True)
        self.path = path
        self.stop = threading.Event()
        self.pause = threading.Event()  # set while pid_reuse burns pids
        self.count = 0
        self.error = None

    def run(self):
        try:
            conn = S.connect("lockspan-snapshot", QUIET)
            cur = conn.cursor()
            with open(self.path, "w") as f:
                nxt = time.time()
                while not self.stop.is_set():
                    if self.pause.is_set():
                        self.stop.wait(0.05)
                        nxt = time.time()
                        continue
                    cur.copy_expert("COPY (%s) TO STDOUT WITH CSV%s"
                                    % (SNAPSHOT_QUERY, " HEADER" if not self.count else ""), f)
                    self.count += 1
                    nxt += 0.2
                    self.stop.wait(max(0.0, nxt - time.time()))
            conn.close()
        except Exception as e:  # noqa: BLE001
            self.error = e


# --------------------------------------------------------------------------
# truth records

def lock_row(s, table, row_id, setexpr, holder=True):
    """SELECT ctid, then UPDATE: returns (ctid, t_before_update)."""
    ctid = s.sql("SELECT ctid FROM %s WHERE id = %%s" % table, (row_id,))[0][0]
    OBS.append({"relation": table, "row_id": row_id, "ctid": str(ctid),
                "seen": ts(time.time()), "pid": s.pid, "session_id": s.session_id,
                "how": "select_before_update"})
    t0 = time.time()
    s.sql("UPDATE %s SET %s WHERE id = %%s" % (table, setexpr), (row_id,))
    return str(ctid), t0


def rec_wait(sc, waiter, direct, root, relation, row_id, mode, res, ctid,
             awaited_xid=None):
    t0, t1, err = res
    w = {"scenario": sc, "waiter_pid": waiter.pid,
         "direct_blocker_pid": direct.pid, "root_blocker_pid": root.pid,
         "relation": relation, "row_id": row_id, "mode_expected": mode,
         "wait_start": ts(t0), "wait_end": ts(t1), "outcome": S.OUTCOME[err],
         "ctid": ctid,
         "waiter_session_id": waiter.session_id,
         "waiter_backend_start": ts(waiter.backend_start),
         "direct_blocker_session_id": direct.session_id,
         "root_session_id": root.session_id,
         "root_backend_start": ts(root.backend_start)}
    if mode == "ShareLock":
        w["awaited_xid"] = awaited_xid
    S.add("waits", w)


def rec_hold(sc, s, relation, row_id, ctid, t0, t1, head_state, xid):
    h = {"scenario": sc, "pid": s.pid, "relation": relation, "row_id": row_id,
         "start": ts(t0), "end": ts(t1), "application_name": s.app,
         "session_id": s.session_id, "backend_start": ts(s.backend_start),
         "ctid": ctid, "xid": xid, "head_state": head_state}
    S.add("holds", h)


def rec_error(sc, s, state):
    S.add("errors", {"pid": s.pid, "sqlstate": state, "scenario": sc,
                     "session_id": s.session_id})


def run(*fns):
    r = S.Runner()
    for f in fns:
        r.start(f)
    return r


# --------------------------------------------------------------------------
# schema

def setup():
    s = S.Session("setup", "lockspan-setup")
    s.sql("DROP TABLE IF EXISTS accounts, inventory, invoices, payouts")
    s.sql("CREATE TABLE accounts (id int PRIMARY KEY, balance numeric NOT NULL)")
    s.sql("CREATE TABLE inventory (id int PRIMARY KEY, qty int NOT NULL)")
    s.sql("CREATE TABLE invoices (id int PRIMARY KEY, total numeric NOT NULL)")
    s.sql("CREATE TABLE payouts (id int PRIMARY KEY, amount numeric NOT NULL, "
          "slow boolean NOT NULL DEFAULT false)")
    # A deferred constraint trigger runs at COMMIT: the COMMIT itself is slow
    # while the row lock is still held.
    s.sql("CREATE FUNCTION payout_settle() RETURNS trigger LANGUAGE plpgsql AS "
          "$$BEGIN PERFORM pg_sleep(0.8); RETURN NULL; END$$")
    s.sql("CREATE CONSTRAINT TRIGGER payout_settle AFTER UPDATE ON payouts "
          "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.slow) "
          "EXECUTE FUNCTION payout_settle()")
    s.sql("INSERT INTO accounts SELECT g, 1000 FROM generate_series(1, 30) g")
    s.sql("INSERT INTO inventory SELECT g, 100 FROM generate_series(1, 30) g")
    s.sql("INSERT INTO invoices SELECT g, 0 FROM generate_series(1, 30) g")
    s.sql("INSERT INTO payouts SELECT g, 0 FROM generate_series(1, 5) g")
    s.sql("VACUUM ANALYZE accounts, inventory, invoices, payouts")
    s.close()


# --------------------------------------------------------------------------
# pid_reuse: the same pid, two sessions, both in lock waits

def pid_free(pid):
    return not os.path.exists("/proc/%d" % pid)


BURNER = ("import os, sys\n"
          "for _ in range(int(sys.argv[1])):\n"
          "    try:\n"
          "        os.posix_spawn('/nonexistent-lockspan-pid-burner', ['x'], {})\n"
          "    except OSError:\n"
          "        pass\n")


def spawn(n):
    """Create and reap n short-lived processes: posix_spawn of a missing
    file is a clone + failed execve, some thousands per second."""
    for _ in range(n):
        try:
            os.posix_spawn("/nonexistent-lockspan-pid-burner", ["x"], {})
        except OSError:
            pass


def burn_to(target, deadline):
    """Use up pids until the kernel's next free pid is target, so that the
    next fork (the postmaster's, for our next connection) gets it: the last
    pid must be target - 1, or below it with only pids in use in between
    (the monitor and snapshot backends often sit just below the target).
    Returns the number of processes created, None past the deadline."""
    pid_max = int(open("/proc/sys/kernel/pid_max").read())
    lo = 300  # RESERVED_PIDS: allocation wraps around to here
    ring = pid_max - lo
    spawned = 0
    while time.time() < deadline:
        aim = target - 1
        while aim > lo and os.path.exists("/proc/%d" % aim):  # taken (or a thread)
            aim -= 1
        last = int(open("/proc/sys/kernel/ns_last_pid").read())
        if aim <= last < target:
            return spawned
        gap = ((aim - lo) - (last - lo)) % ring
        if gap > 2000:  # far: two helper processes, one per core
            n = (gap - 500) // 2
            procs = [subprocess.Popen([sys.executable, "-S", "-c", BURNER, str(n)])
                     for _ in range(2)]
            for p in procs:
                p.wait()
            spawned += 2 * n + 2
            continue
        n = 1 if gap <= 40 else min(gap - 30, 500)
        spawn(n)
        spawned += n
    return None


def pid_reuse(mon):
    sc = "pid_reuse"
    row = 9
    info = {"attempts": 0, "processes_spawned": 0}
    # Phase 1: old blocker A (billing) holds accounts 9, old waiter B waits.
    a = S.Session(sc, "billing")
    b = S.Session(sc, "checkout")
    held = threading.Event()
    res = {}

    def a_fn():
        a.sql("BEGIN")
        res["ctid"], t0 = lock_row(a, "accounts", row, "balance = balance - 3")
        res["xid"] = mon.xid(a.pid)
        held.set()
        time.sleep(0.6)
        a.sql("COMMIT")
        rec_hold(sc, a, "accounts", row, res["ctid"], t0, time.time(),
                 "idle_in_transaction", res["xid"])

    def b_fn():
        b.sql("BEGIN")
        res["b"] = timed(b, "UPDATE accounts SET balance = balance + 3 WHERE id = 9")
        b.sql("COMMIT")

    r = run(a_fn)
    held.wait(10)
    r.start(b_fn)
    r.join()
    rec_wait(sc, b, a, a, "accounts", row, "ShareLock", res["b"], res["ctid"],
             res["xid"])
    a.close()
    b.close()
    target = a.pid
    for _ in range(200):
        if pid_free(target):
            break
        time.sleep(0.01)
    # Phase 2: new blocker C (billing); the new session N (refunds) that got
    # A's pid waits for C on the same row.
    c = S.Session(sc, "billing")
    n = None
    t_start = time.time()
    deadline = t_start + 30.0
    if SNAPS:
        SNAPS.pause.set()  # nothing happens while pids are used up
    while time.time() < deadline:
        spawned = burn_to(target, deadline)
        if spawned is None:
            break
        info["processes_spawned"] += spawned
        info["attempts"] += 1
        cand = S.Session(sc, "refunds")
        if cand.pid == target:
            n = cand
            break
        cand.close()  # a refunds session that did nothing
    info["seconds"] = round(time.time() - t_start, 3)
    if SNAPS:
        SNAPS.pause.clear()
    if n is None:
        print("scenarios.py: pid_reuse: no reuse of pid %d within 30 s" % target,
              file=sys.stderr)
        n = S.Session(sc, "refunds")
    held.clear()

    def c_fn():
        c.sql("BEGIN")
        res["ctid2"], t0 = lock_row(c, "accounts", row, "balance = balance - 4")
        res["xid2"] = mon.xid(c.pid)
        held.set()
        time.sleep(0.6)
        c.sql("COMMIT")
        rec_hold(sc, c, "accounts", row, res["ctid2"], t0, time.time(),
                 "idle_in_transaction", res["xid2"])

    def n_fn():
        n.sql("BEGIN")
        res["n"] = timed(n, "UPDATE accounts SET balance = balance + 4 WHERE id = 9")
        n.sql("COMMIT")

    r = run(c_fn)
    held.wait(10)
    r.start(n_fn)
    r.join()
    rec_wait(sc, n, c, c, "accounts", row, "ShareLock", res["n"], res["ctid2"],
             res["xid2"])
    c.close()
    n.close()
    if n.pid == target:
        info.update({"pid": target, "sessions": [
            dict(ident(a), application_name=a.app, role="blocker",
                 blocked_pid=b.pid, blocked_session_id=b.session_id),
            dict(ident(n), application_name=n.app, role="waiter",
                 blocked_by_pid=c.pid, blocked_by_session_id=c.session_id)]})
        S.TRUTH["pid_reuse"] = info
    else:
        S.TRUTH["pid_reuse"] = None
        S.TRUTH["pid_reuse_attempt"] = info


# --------------------------------------------------------------------------
# chain3: D -> C -> B -> A (depth 3); A runs a statement while holding

def chain3(mon):
    sc = "chain3"
    a = S.Session(sc, "billing")
    b = S.Session(sc, "billing")
    c = S.Session(sc, "refunds")
    d = S.Session(sc, "checkout")
    ev = {k: threading.Event() for k in "abc"}
    res = {}

    def holder(s, key, row, wait_row, head):
        def fn():
            s.sql("BEGIN")
            ctid, t0 = lock_row(s, "accounts", row, "balance = balance - 5")
            res[key + "ctid"], res[key + "xid"] = ctid, mon.xid(s.pid)
            ev[key].set()
            if wait_row is None:
                s.sql("SELECT pg_sleep(%s)", (HOLD,))  # "running"
            else:
                res[key] = timed(s, "UPDATE accounts SET balance = balance + 5 "
                                 "WHERE id = %s", (wait_row,))
            s.sql("COMMIT")
            rec_hold(sc, s, "accounts", row, ctid, t0, time.time(),
                     "running" if head else "waiting", res[key + "xid"])
        fn.__name__ = "chain3_" + key
        return fn

    def d_fn():
        d.sql("BEGIN")
        res["d"] = timed(d, "UPDATE accounts SET balance = balance + 1 WHERE id = 4")
        d.sql("COMMIT")

    r = run(holder(a, "a", 2, None, True))
    ev["a"].wait(10)
    r.start(holder(b, "b", 3, 2, False))
    ev["b"].wait(10)
    mon.wait_lock(b.pid)
    r.start(holder(c, "c", 4, 3, False))
    ev["c"].wait(10)
    mon.wait_lock(c.pid)
    r.start(d_fn)
    mon.wait_lock(d.pid)
    r.join()
    rec_wait(sc, b, a, a, "accounts", 2, "ShareLock", res["b"], res["actid"], res["axid"])
    rec_wait(sc, c, b, a, "accounts", 3, "ShareLock", res["c"], res["bctid"], res["bxid"])
    rec_wait(sc, d, c, a, "accounts", 4, "ShareLock", res["d"], res["cctid"], res["cxid"])
    S.add("chains", {"scenario": sc, "depth": 3,
                     "members": [dict(ident(s), application_name=s.app)
                                 for s in (a, b, c, d)],
                     "root_pid": a.pid, "root_session_id": a.session_id,
                     "leaf_pid": d.pid, "leaf_session_id": d.session_id})
    for s in (a, b, c, d):
        s.close()


# --------------------------------------------------------------------------
# queue on one row: holder + N waiters (first ShareLock, rest tuple lock)

def queue(sc, table, row, holder_app, waiter_apps, head_state, hold_s):
    holder = S.Session(sc, holder_app)
    waiters = [S.Session(sc, app) for app in waiter_apps]
    held = threading.Event()
    res = {}

    def h_fn():
        holder.sql("BEGIN")
        res["ctid"], t0 = lock_row(holder, table, row, "%s = %s - 1" % (
            ("qty", "qty") if table == "inventory" else ("balance", "balance")))
        res["xid"] = MON.xid(holder.pid)
        held.set()
        if head_state == "running":
            holder.sql("SELECT pg_sleep(%s)", (hold_s,))
        else:
            time.sleep(hold_s)  # idle in transaction: no statement running
        holder.sql("COMMIT")
        rec_hold(sc, holder, table, row, res["ctid"], t0, time.time(),
                 head_state, res["xid"])

    def w_fn(i, w):
        def fn():
            w.sql("BEGIN")
            res[i] = timed(w, "UPDATE %s SET %s WHERE id = %%s" % (
                table, "qty = qty - 1" if table == "inventory"
                else "balance = balance + 1"), (row,))
            w.sql("COMMIT")
        fn.__name__ = "%s_waiter%d" % (sc, i)
        return fn

    r = run(h_fn)
    held.wait(10)
    for i, w in enumerate(waiters):
        if i:
            time.sleep(S.STAGGER)
        r.start(w_fn(i, w))
        MON.wait_lock(w.pid)
    r.join()
    for i, w in enumerate(waiters):
        if res[i][2]:
            raise RuntimeError("%s waiter failed: %s" % (sc, res[i][2]))
        rec_wait(sc, w, holder if i == 0 else waiters[0], holder, table, row,
                 "ShareLock" if i == 0 else "ExclusiveLock", res[i], res["ctid"],
                 res["xid"])
    for s in [holder] + waiters:
        s.close()


def tuple_queue(mon):
    queue("tuple_queue", "inventory", 5, "stock-reserve", ["checkout"] * 5,
          "running", HOLD)


def idle_head(mon):
    queue("idle_head", "inventory", 7, "inventory-sync", ["checkout", "checkout"],
          "idle_in_transaction", 1.5)


# --------------------------------------------------------------------------
# two_rows: one transaction holds accounts 10 and inventory 20

def two_rows(mon):
    sc = "two_rows"
    h = S.Session(sc, "billing")
    w1 = S.Session(sc, "checkout")
    w2 = S.Session(sc, "stock-reserve")
    held = threading.Event()
    res = {}

    def h_fn():
        h.sql("BEGIN")
        res["c1"], t1 = lock_row(h, "accounts", 10, "balance = balance - 7")
        res["c2"], t2 = lock_row(h, "inventory", 20, "qty = qty - 1")
        res["xid"] = mon.xid(h.pid)
        held.set()
        time.sleep(1.0)
        h.sql("COMMIT")
        t_end = time.time()
        rec_hold(sc, h, "accounts", 10, res["c1"], t1, t_end,
                 "idle_in_transaction", res["xid"])
        rec_hold(sc, h, "inventory", 20, res["c2"], t2, t_end,
                 "idle_in_transaction", res["xid"])

    def w1_fn():
        w1.sql("BEGIN")
        res["w1"] = timed(w1, "UPDATE accounts SET balance = balance + 7 WHERE id = 10")
        w1.sql("COMMIT")

    def w2_fn():
        w2.sql("BEGIN")
        res["w2"] = timed(w2, "UPDATE inventory SET qty = qty + 1 WHERE id = 20")
        w2.sql("COMMIT")

    r = run(h_fn)
    held.wait(10)
    r.start(w1_fn)
    mon.wait_lock(w1.pid)
    time.sleep(S.STAGGER)
    r.start(w2_fn)
    mon.wait_lock(w2.pid)
    r.join()
    rec_wait(sc, w1, h, h, "accounts", 10, "ShareLock", res["w1"], res["c1"], res["xid"])
    rec_wait(sc, w2, h, h, "inventory", 20, "ShareLock", res["w2"], res["c2"], res["xid"])
    for s in (h, w1, w2):
        s.close()


# --------------------------------------------------------------------------
# commit_slow: the head blocker is inside COMMIT (deferred trigger, 0.8 s)

def commit_slow(mon):
    sc = "commit_slow"
    h = S.Session(sc, "payout-batch")
    w = S.Session(sc, "payout-api")
    committing = threading.Event()
    res = {}

    def h_fn():
        h.sql("BEGIN")
        res["ctid"], t0 = lock_row(h, "payouts", 1, "amount = amount + 100, slow = true")
        res["xid"] = mon.xid(h.pid)
        committing.set()
        h.sql("COMMIT")  # runs payout_settle(): pg_sleep(0.8) at commit
        rec_hold(sc, h, "payouts", 1, res["ctid"], t0, time.time(),
                 "committing", res["xid"])

    def w_fn():
        w.sql("BEGIN")
        res["w"] = timed(w, "UPDATE payouts SET amount = amount - 1, slow = false "
                         "WHERE id = 1")
        w.sql("COMMIT")

    r = run(h_fn)
    committing.wait(10)
    time.sleep(0.15)
    r.start(w_fn)
    r.join()
    rec_wait(sc, w, h, h, "payouts", 1, "ShareLock", res["w"], res["ctid"], res["xid"])
    h.close()
    w.close()


# --------------------------------------------------------------------------
# retry_40001: REPEATABLE READ fails with 40001, the client retries

def retry_40001(mon):
    sc = "retry_40001"
    t1s = S.Session(sc, "report")
    t2s = S.Session(sc, "billing")
    snap = threading.Event()
    upd = threading.Event()
    res = {}
    upd_sql = "UPDATE accounts SET balance = balance * 2 WHERE id = %s"

    def t1_fn():
        res["tx1_start"] = time.time()
        t1s.sql("BEGIN ISOLATION LEVEL REPEATABLE READ")
        t1s.sql("SELECT balance FROM accounts WHERE id = %s", (12,))
        snap.set()
        upd.wait(10)
        time.sleep(0.05)
        res["fail"] = timed(t1s, upd_sql, (12,))
        t1s.sql("ROLLBACK")
        res["tx1_end"] = time.time()
        time.sleep(0.1)  # client back-off
        res["tx2_start"] = time.time()
        t1s.sql("BEGIN ISOLATION LEVEL REPEATABLE READ")
        t1s.sql("SELECT balance FROM accounts WHERE id = %s", (12,))
        res["retry"] = timed(t1s, upd_sql, (12,))
        t1s.sql("COMMIT")
        res["tx2_end"] = time.time()

    def t2_fn():
        t2s.sql("BEGIN")
        res["ctid"], t0 = lock_row(t2s, "accounts", 12, "balance = balance + 100")
        res["xid"] = mon.xid(t2s.pid)
        upd.set()
        time.sleep(0.6)
        t2s.sql("COMMIT")
        rec_hold(sc, t2s, "accounts", 12, res["ctid"], t0, time.time(),
                 "idle_in_transaction", res["xid"])

    r = run(t1_fn)
    snap.wait(10)
    r.start(t2_fn)
    r.join()
    if res["fail"][2] != "40001" or res["retry"][2]:
        raise RuntimeError("retry_40001: got %r then %r" % (res["fail"][2], res["retry"][2]))
    rec_error(sc, t1s, "40001")
    rec_wait(sc, t1s, t2s, t2s, "accounts", 12, "ShareLock", res["fail"], res["ctid"],
             res["xid"])
    S.add("retries", dict(
        ident(t1s), scenario=sc, sqlstate="40001",
        statement=upd_sql % 12, caused_by_pid=t2s.pid,
        caused_by_session_id=t2s.session_id, caused_by_xid=res["xid"],
        failed={"tx_start": ts(res["tx1_start"]), "tx_end": ts(res["tx1_end"]),
                "statement_start": ts(res["fail"][0]),
                "statement_end": ts(res["fail"][1]), "outcome": "rolled_back"},
        retry={"tx_start": ts(res["tx2_start"]), "tx_end": ts(res["tx2_end"]),
               "statement_start": ts(res["retry"][0]),
               "statement_end": ts(res["retry"][1]), "outcome": "committed"}))
    t1s.close()
    t2s.close()


# --------------------------------------------------------------------------
# lock_timeout_retry: 55P03 after 300 ms, one retry after the holder commits

def lock_timeout_retry(mon):
    sc = "lock_timeout_retry"
    h = S.Session(sc, "billing")
    w = S.Session(sc, "checkout")
    held = threading.Event()
    done = threading.Event()
    res = {}
    upd_sql = "UPDATE accounts SET balance = balance + 1 WHERE id = 14"

    def h_fn():
        h.sql("BEGIN")
        res["ctid"], t0 = lock_row(h, "accounts", 14, "balance = balance - 1")
        res["xid"] = mon.xid(h.pid)
        held.set()
        time.sleep(1.0)
        h.sql("COMMIT")
        rec_hold(sc, h, "accounts", 14, res["ctid"], t0, time.time(),
                 "idle_in_transaction", res["xid"])
        done.set()

    def w_fn():
        w.sql("SET lock_timeout = '300ms'")
        res["tx1_start"] = time.time()
        w.sql("BEGIN")
        res["fail"] = timed(w, upd_sql)
        w.sql("ROLLBACK")
        res["tx1_end"] = time.time()
        done.wait(10)
        time.sleep(0.05)
        res["tx2_start"] = time.time()
        w.sql("BEGIN")
        res["retry"] = timed(w, upd_sql)
        w.sql("COMMIT")
        res["tx2_end"] = time.time()

    r = run(h_fn)
    held.wait(10)
    time.sleep(0.05)
    r.start(w_fn)
    r.join()
    if res["fail"][2] != "55P03" or res["retry"][2]:
        raise RuntimeError("lock_timeout_retry: got %r then %r"
                           % (res["fail"][2], res["retry"][2]))
    rec_error(sc, w, "55P03")
    rec_wait(sc, w, h, h, "accounts", 14, "ShareLock", res["fail"], res["ctid"],
             res["xid"])
    S.add("retries", dict(
        ident(w), scenario=sc, sqlstate="55P03", statement=upd_sql,
        caused_by_pid=h.pid, caused_by_session_id=h.session_id,
        caused_by_xid=res["xid"],
        failed={"tx_start": ts(res["tx1_start"]), "tx_end": ts(res["tx1_end"]),
                "statement_start": ts(res["fail"][0]),
                "statement_end": ts(res["fail"][1]), "outcome": "rolled_back"},
        retry={"tx_start": ts(res["tx2_start"]), "tx_end": ts(res["tx2_end"]),
               "statement_start": ts(res["retry"][0]),
               "statement_end": ts(res["retry"][1]), "outcome": "committed"}))
    h.close()
    w.close()


# --------------------------------------------------------------------------
# ctid_walk: accounts 15 updated in 4 successive transactions, each with a
# waiter; psycopg 3 (extended protocol, bind parameters) for all sessions

def ctid_walk(mon):
    sc = "ctid_walk"
    h = Session3(sc, "ledger")
    for k in range(4):
        w = Session3(sc, "checkout")
        held = threading.Event()
        res = {}

        def h_fn():
            h.sql("BEGIN")
            ctid = h.sql("SELECT ctid FROM accounts WHERE id = %s", (15,))[0][0]
            OBS.append({"relation": "accounts", "row_id": 15, "ctid": str(ctid),
                        "seen": ts(time.time()), "pid": h.pid,
                        "session_id": h.session_id, "how": "select_before_update"})
            t0 = time.time()
            h.sql("UPDATE accounts SET balance = balance + %s WHERE id = %s", (1, 15))
            res["ctid"], res["xid"] = str(ctid), mon.xid(h.pid)
            held.set()
            time.sleep(0.5)
            h.sql("COMMIT")
            rec_hold(sc, h, "accounts", 15, res["ctid"], t0, time.time(),
                     "idle_in_transaction", res["xid"])

        def w_fn():
            w.sql("BEGIN")
            t0 = time.time()
            try:
                rows = w.sql("UPDATE accounts SET balance = balance - %s "
                             "WHERE id = %s RETURNING ctid", (1, 15))
                err = None
            except Exception as e:  # noqa: BLE001
                rows, err = None, sqlstate(e)
            res["w"] = (t0, time.time(), err)
            if rows:
                OBS.append({"relation": "accounts", "row_id": 15,
                            "ctid": str(rows[0][0]), "seen": ts(time.time()),
                            "pid": w.pid, "session_id": w.session_id,
                            "how": "returning"})
            w.sql("COMMIT")

        r = run(h_fn)
        held.wait(10)
        r.start(w_fn)
        mon.wait_lock(w.pid)
        r.join()
        rec_wait(sc, w, h, h, "accounts", 15, "ShareLock", res["w"], res["ctid"],
                 res["xid"])
        w.close()
        time.sleep(0.1)
    h.close()


SCENARIOS = [pid_reuse, chain3, tuple_queue, idle_head, two_rows, commit_slow,
             retry_40001, lock_timeout_retry, ctid_walk]


# --------------------------------------------------------------------------

def transactions():
    """Group each session's statements: BEGIN ... COMMIT/ROLLBACK is one
    explicit transaction; any other statement outside is an implicit one."""
    out = []
    for s in SESSIONS:
        cur = None
        for st in s.stmts:
            rec = {k: v for k, v in st.items() if k not in ("start", "end")}
            rec["start"], rec["end"] = ts(st["start"]), ts(st["end"])
            word = st["sql"].split()[0].upper()
            if cur is None:
                cur = dict(pid=s.pid, session_id=s.session_id, scenario=s.scenario,
                           application_name=s.app, statements=[],
                           kind="explicit" if word == "BEGIN" else "implicit")
            cur["statements"].append(rec)
            if cur["kind"] == "implicit" or word in ("COMMIT", "ROLLBACK", "END"):
                cur["start"] = cur["statements"][0]["start"]
                cur["end"] = cur["statements"][-1]["end"]
                if cur["kind"] == "implicit":
                    cur["outcome"] = "failed" if rec.get("sqlstate") else "committed"
                else:
                    cur["outcome"] = "committed" if word in ("COMMIT", "END") \
                        and not any(x.get("sqlstate") for x in cur["statements"]) \
                        else "rolled_back"
                out.append(cur)
                cur = None
        if cur is not None:
            raise RuntimeError("session %d left a transaction open" % s.pid)
    out.sort(key=lambda t: t["start"])
    return out


def ctid_rows():
    rows = {}
    for o in OBS:
        r = rows.setdefault((o["relation"], o["row_id"]),
                            {"relation": o["relation"], "row_id": o["row_id"],
                             "ctids": [], "observations": []})
        if o["ctid"] not in r["ctids"]:
            r["ctids"].append(o["ctid"])
        r["observations"].append({k: v for k, v in o.items()
                                  if k not in ("relation", "row_id")})
    return sorted(rows.values(), key=lambda r: (r["relation"], r["row_id"]))


def write_truth(T, f):
    """JSON, one list element per line (compact, still diffable)."""
    f.write("{\n")
    keys = list(T)
    for i, k in enumerate(keys):
        v = T[k]
        f.write("  %s: " % json.dumps(k))
        if isinstance(v, list) and v:
            f.write("[\n")
            f.write(",\n".join("    " + json.dumps(x, separators=(",", ":"))
                                for x in v))
            f.write("\n  ]")
        else:
            f.write(json.dumps(v))
        f.write(",\n" if i < len(keys) - 1 else "\n")
    f.write("}\n")


def corr_main(mod):
    global S, MON, SNAPS
    S = mod
    T = S.TRUTH
    T.update({"set": "correlation",
              "log_statement": S.ARGS.log_statement,
              "log_min_duration_statement": -1 if S.ARGS.log_statement == "all" else 0,
              "pid_reuse": None, "chains": [], "retries": [],
              "transactions": [], "ctids": []})
    setup()
    MON = Mon()
    snaps = SNAPS = Snapshots(S.ARGS.snapshots) if S.ARGS.snapshots else None
    if snaps:
        snaps.start()
    time.sleep(S.SETTLE)
    for fn in SCENARIOS:
        print("scenarios.py: %s" % fn.__name__, file=sys.stderr)
        fn(MON)
        time.sleep(S.SETTLE)
    if snaps:
        snaps.stop.set()
        snaps.join(10)
        if snaps.error:
            raise RuntimeError("snapshots failed: %r" % snaps.error)
        T["snapshots"] = {"file": "pg_stat_activity.csv", "interval_ms": 200,
                          "count": snaps.count, "query": SNAPSHOT_QUERY}
    MON.conn.close()
    T["transactions"] = transactions()
    T["ctids"] = ctid_rows()
    T["waits"].sort(key=lambda r: r["wait_start"])
    T["holds"].sort(key=lambda r: r["start"])
    with open(S.ARGS.truth, "w") as f:
        write_truth(T, f)
    print("scenarios.py: %s" % ", ".join(
        "%d %s" % (len(T[k]), k) for k in ("waits", "holds", "errors", "sessions",
                                           "transactions", "retries", "chains")),
        file=sys.stderr)
    print("scenarios.py: pid_reuse: %s" % (
        "pid %d" % T["pid_reuse"]["pid"] if T["pid_reuse"] else "not obtained"),
        file=sys.stderr)
