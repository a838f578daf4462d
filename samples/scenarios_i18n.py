"""The `i18n` scenario set of samples/scenarios.py (--set i18n): the six basic
scenarios (hot_account, idle_in_tx, chain, deadlock, lock_timeout,
serialization; with LOCKSPAN_I18N_EXTRA=1 also statement_timeout and a
NOWAIT failure) run so that every run writes the same log lines in the same
order, whatever the server's lc_messages. samples/i18n holds one run per
language, and tests/e2e/check_i18n.py compares their stores row for row.

What would vary between two runs of the basic set, and what fixes it here:
- a waiter's "still waiting" line against the next session's statements:
  nothing goes on until the waiter's record is in the csvlog and the log
  files have stopped growing (Log.settle);
- a holder's COMMIT line against the line of the waiter it wakes (both are
  written at once): every waiter is stopped (SIGSTOP) once its wait is
  logged and resumed (SIGCONT) only when the statement that releases its
  lock has returned, one waiter at a time; a later waiter in a tuple queue
  then finds the row's previous locker committed and waits no more;
- disconnection lines, written when a backend exits: each session is closed
  after the previous one's backend is gone;
- the deadlock's victim: the second session closes the cycle while the
  first is stopped, so its own deadlock check finds it;
- vxids (backend slots): generate.sh turns autovacuum and the logical
  replication launcher off and lets createdb's backend exit first;
- verdicts made of times: the sleeps leave no head_state or serial-capacity
  verdict near its threshold, and give every row's total wait, every
  blocker's waiting caused and each waiter of the hot row a wait ~0.3 s
  from the next on a quiet machine (under load a step can take longer: the
  check orders those lists by the truth's times, not by C's run).
Imported by scenarios.py; S is that module (set by i18n_main). Needs to run
as root (or as postgres) to signal the backends, and --csvlog.
"""

import csv
import os
import signal
import socket
import sys
import threading
import time

S = None            # the scenarios module
LOG = None
MON = None
STOPPED = set()     # pids stopped here, resumed on any failure


class Log:
    """The server's csvlog, read to see what a backend has logged so far."""

    def __init__(self, path):
        self.path = path
        self.others = [path[:-len(".csv")] + ext for ext in (".log", ".json")]

    def records(self, pid):
        # latin-1: any codeset's bytes, the CSV structure is ASCII
        with open(self.path, newline="", encoding="latin-1") as f:
            rows = []
            try:
                rows = list(csv.reader(f))
            except csv.Error:
                pass  # a record being written: counted at the next look
        return sum(1 for r in rows if len(r) > 3 and r[3] == str(pid))

    def sizes(self):
        return [os.path.getsize(p) if os.path.exists(p) else 0
                for p in [self.path] + self.others]

    def quiet(self):
        """Wait until no log file grows: what was sent to the logger is in
        the files."""
        last = None
        while True:
            now = self.sizes()
            if now == last:
                return
            last = now
            time.sleep(0.1)

    def settle(self, pid, n, timeout=30.0):
        """Wait until pid has logged n records and no log file grows (the
        record's stderr and jsonlog copies are written after its csvlog one,
        or before)."""
        deadline = time.time() + timeout
        while self.records(pid) < n:
            if time.time() > deadline:
                raise RuntimeError("pid %d logged %d records, not %d" % (pid, self.records(pid), n))
            time.sleep(0.01)
        self.quiet()


def state(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def stop(pid):
    os.kill(pid, signal.SIGSTOP)
    STOPPED.add(pid)
    while state(pid) not in ("T", "t"):
        time.sleep(0.005)


def cont(pid):
    os.kill(pid, signal.SIGCONT)
    STOPPED.discard(pid)


def session(scenario, app):
    """A scenarios.Session whose truth record has its client port too (the
    log's connection lines name it)."""
    s = S.Session(scenario, app)
    with socket.socket(fileno=os.dup(s.conn.fileno())) as sock:
        S.TRUTH["sessions"][-1]["client_port"] = sock.getsockname()[1]
    return s


class Blocked:
    """A statement that waits for a lock, in a thread of its own: started,
    its wait logged ("still waiting"), then its backend stopped until
    release()."""

    def __init__(self, s, q):
        self.s = s
        self.res = None
        LOG.quiet()  # the session's last statement is counted in mark
        mark = LOG.records(s.pid)
        self.t = threading.Thread(target=self._run, args=(q,), daemon=True)
        self.t.start()
        MON.wait_for_lock_wait(s.pid, timeout=30.0)
        time.sleep(S.DEADLOCK_TIMEOUT)
        LOG.settle(s.pid, mark + 1)
        stop(s.pid)

    def _run(self, q):
        self.res = S.timed(self.s, q)

    def release(self):
        """Resume the backend and wait for its statement's result."""
        cont(self.s.pid)
        self.t.join(60)
        if self.t.is_alive() or self.res is None:
            raise RuntimeError("%s: blocked statement did not end" % self.s.app)
        return self.res


def close(sessions):
    """Close in order, each after the previous backend has exited (and so
    written its disconnection line)."""
    for s in sessions:
        s.close()
        deadline = time.time() + 30
        while state(s.pid) not in (None, "Z", "X"):
            if time.time() > deadline:
                raise RuntimeError("backend %d did not exit" % s.pid)
            time.sleep(0.01)


# --------------------------------------------------------------------------

def hot_account():
    """One holder idle in transaction, four waiters: the first on its
    transaction, the others queued on the first's tuple lock."""
    sc = "hot_account"
    holder = session(sc, "billing")
    waiters = [session(sc, "checkout") for _ in range(4)]
    holder.sql("BEGIN")
    holder.sql("UPDATE accounts SET balance = balance - 10 WHERE id = 1")
    t_hold = time.time()
    blocked = []
    for w in waiters:
        w.sql("BEGIN")
        blocked.append(Blocked(w, "UPDATE accounts SET balance = balance + 1 WHERE id = 1"))
    time.sleep(0.3)  # "HTTP call to the payment provider"
    holder.sql("UPDATE invoices SET total = total + 10 WHERE id = 1")
    holder.sql("COMMIT")
    S.record_hold(sc, holder, "accounts", 1, t_hold, time.time())
    for i, (w, b) in enumerate(zip(waiters, blocked)):
        # Waiters pass one by one, further apart than they queued: each
        # waits ~0.45 s longer than the one before (the report sorts by
        # it), and the row is clearly below its serial capacity (demand
        # ~0.5 of it), not a few % either side.
        time.sleep(0.8)
        t0, t1, err = b.release()
        if err:
            raise RuntimeError("hot_account waiter failed: %s" % err)
        w.sql("COMMIT")
        S.record_wait(sc, w, holder if i == 0 else waiters[0], holder, "accounts", 1,
                      "ShareLock" if i == 0 else "ExclusiveLock", t0, t1, S.OUTCOME[err])
    close([holder] + waiters)


def idle_in_tx():
    sc = "idle_in_tx"
    holder = session(sc, "inventory-sync")
    waiter = session(sc, "checkout")
    holder.sql("BEGIN")
    holder.sql("SELECT * FROM inventory WHERE id = 7 FOR UPDATE")
    t_hold = time.time()
    time.sleep(0.2)
    waiter.sql("BEGIN")
    b = Blocked(waiter, "UPDATE inventory SET qty = qty - 1 WHERE id = 7")
    time.sleep(1.1)  # idle in transaction
    holder.sql("COMMIT")
    S.record_hold(sc, holder, "inventory", 7, t_hold, time.time())
    t0, t1, err = b.release()
    if err:
        raise RuntimeError("idle_in_tx waiter failed: %s" % err)
    waiter.sql("COMMIT")
    S.record_wait(sc, waiter, holder, holder, "inventory", 7, "ShareLock", t0, t1,
                  S.OUTCOME[err])
    close([holder, waiter])


def chain():
    """C waits on B, B waits on A."""
    sc = "chain"
    a = session(sc, "billing")
    b = session(sc, "billing")
    c = session(sc, "checkout")
    a.sql("BEGIN")
    a.sql("UPDATE accounts SET balance = balance - 5 WHERE id = 2")
    t_a = time.time()
    b.sql("BEGIN")
    b.sql("UPDATE accounts SET balance = balance - 5 WHERE id = 3")
    t_b = time.time()
    bb = Blocked(b, "UPDATE accounts SET balance = balance + 5 WHERE id = 2")
    c.sql("BEGIN")
    bc = Blocked(c, "UPDATE accounts SET balance = balance + 1 WHERE id = 3")
    time.sleep(0.5)
    a.sql("COMMIT")
    S.record_hold(sc, a, "accounts", 2, t_a, time.time())
    rb = bb.release()
    b.sql("COMMIT")
    S.record_hold(sc, b, "accounts", 3, t_b, time.time())
    rc = bc.release()
    c.sql("COMMIT")
    for who, r in (("b", rb), ("c", rc)):
        if r[2]:
            raise RuntimeError("chain %s failed: %s" % (who, r[2]))
    S.record_wait(sc, b, a, a, "accounts", 2, "ShareLock", rb[0], rb[1], S.OUTCOME[rb[2]])
    S.record_wait(sc, c, b, a, "accounts", 3, "ShareLock", rc[0], rc[1], S.OUTCOME[rc[2]])
    close([a, b, c])


def deadlock():
    """x: 4 then 5; y: 5 then 4. x's wait is logged (its deadlock check found
    nothing) and x stopped before y closes the cycle: y is the victim."""
    sc = "deadlock"
    x = session(sc, "billing")
    y = session(sc, "refunds")
    x.sql("BEGIN")
    x.sql("UPDATE accounts SET balance = balance - 20 WHERE id = 4")
    t_x = time.time()
    y.sql("BEGIN")
    y.sql("UPDATE accounts SET balance = balance - 20 WHERE id = 5")
    t_y = time.time()
    bx = Blocked(x, "UPDATE accounts SET balance = balance + 20 WHERE id = 5")
    ry = S.timed(y, "UPDATE accounts SET balance = balance + 20 WHERE id = 4")
    y.sql("ROLLBACK" if ry[2] else "COMMIT")
    t_y_end = time.time()
    # x stays in its UPDATE a while: its hold's head_state is "waiting" by
    # far, not by the ~100 ms of y's wait against a client's idle gap.
    time.sleep(1.8)
    rx = bx.release()
    x.sql("ROLLBACK" if rx[2] else "COMMIT")
    t_x_end = time.time()
    if ry[2] != "40P01" or rx[2] is not None:
        raise RuntimeError("deadlock scenario: x %r, y %r" % (rx[2], ry[2]))
    S.add("deadlocks", {"pids": [x.pid, y.pid], "victim_pid": y.pid})
    S.add("errors", {"pid": y.pid, "sqlstate": "40P01", "scenario": sc})
    S.record_wait(sc, x, y, y, "accounts", 5, "ShareLock", rx[0], rx[1], S.OUTCOME[rx[2]])
    S.record_wait(sc, y, x, x, "accounts", 4, "ShareLock", ry[0], ry[1], S.OUTCOME[ry[2]])
    S.record_hold(sc, x, "accounts", 4, t_x, t_x_end)
    S.record_hold(sc, y, "accounts", 5, t_y, t_y_end)
    close([x, y])


def lock_timeout():
    """The waiter's own process logs its wait and then its timeout: no
    other session acts until it has given up."""
    sc = "lock_timeout"
    holder = session(sc, "billing")
    waiter = session(sc, "checkout")
    holder.sql("BEGIN")
    holder.sql("UPDATE accounts SET balance = balance - 1 WHERE id = 6")
    t_hold = time.time()
    waiter.sql("SET lock_timeout = '400ms'")
    waiter.sql("BEGIN")
    t0, t1, err = S.timed(waiter, "UPDATE accounts SET balance = balance + 1 WHERE id = 6")
    waiter.sql("ROLLBACK")
    if err != "55P03":
        raise RuntimeError("lock_timeout: expected 55P03, got %r" % err)
    time.sleep(0.3)
    holder.sql("COMMIT")
    S.record_hold(sc, holder, "accounts", 6, t_hold, time.time())
    S.add("errors", {"pid": waiter.pid, "sqlstate": err, "scenario": sc})
    S.record_wait(sc, waiter, holder, holder, "accounts", 6, "ShareLock", t0, t1,
                  S.OUTCOME[err])
    close([holder, waiter])


def serialization():
    """REPEATABLE READ: tx1 waits for tx2's update of its row, then fails."""
    sc = "serialization"
    tx1 = session(sc, "report")
    tx2 = session(sc, "billing")
    tx1.sql("BEGIN ISOLATION LEVEL REPEATABLE READ")
    tx1.sql("SELECT balance FROM accounts WHERE id = 8")  # takes the snapshot
    tx2.sql("BEGIN")
    tx2.sql("UPDATE accounts SET balance = balance + 100 WHERE id = 8")
    t_hold = time.time()
    b = Blocked(tx1, "UPDATE accounts SET balance = balance * 2 WHERE id = 8")
    time.sleep(2.3)
    tx2.sql("COMMIT")
    S.record_hold(sc, tx2, "accounts", 8, t_hold, time.time())
    t0, t1, err = b.release()
    tx1.sql("ROLLBACK")
    if err != "40001":
        raise RuntimeError("serialization: expected 40001, got %r" % err)
    S.add("errors", {"pid": tx1.pid, "sqlstate": err, "scenario": sc})
    S.record_wait(sc, tx1, tx2, tx2, "accounts", 8, "ShareLock", t0, t1, S.OUTCOME[err])
    close([tx1, tx2])


def statement_timeout():
    """As lock_timeout, but the statement's own timeout ends the wait
    (57014, "canceling statement due to statement timeout")."""
    sc = "statement_timeout"
    holder = session(sc, "billing")
    waiter = session(sc, "checkout")
    holder.sql("BEGIN")
    holder.sql("UPDATE accounts SET balance = balance - 1 WHERE id = 7")
    t_hold = time.time()
    waiter.sql("SET statement_timeout = '400ms'")
    waiter.sql("BEGIN")
    t0, t1, err = S.timed(waiter, "UPDATE accounts SET balance = balance + 1 WHERE id = 7")
    waiter.sql("ROLLBACK")
    if err != "57014":
        raise RuntimeError("statement_timeout: expected 57014, got %r" % err)
    time.sleep(0.3)
    holder.sql("COMMIT")
    S.record_hold(sc, holder, "accounts", 7, t_hold, time.time())
    S.add("errors", {"pid": waiter.pid, "sqlstate": err, "scenario": sc})
    S.record_wait(sc, waiter, holder, holder, "accounts", 7, "ShareLock", t0, t1,
                  "statement_timeout")
    close([holder, waiter])


def nowait():
    """SELECT ... FOR UPDATE NOWAIT on a row another transaction holds:
    55P03 at once, no wait logged (before 18's log_lock_failures)."""
    sc = "nowait"
    holder = session(sc, "billing")
    other = session(sc, "checkout")
    holder.sql("BEGIN")
    holder.sql("UPDATE accounts SET balance = balance - 1 WHERE id = 9")
    t_hold = time.time()
    other.sql("BEGIN")
    _, _, err = S.timed(other, "SELECT balance FROM accounts WHERE id = 9 FOR UPDATE NOWAIT")
    other.sql("ROLLBACK")
    if err != "55P03":
        raise RuntimeError("nowait: expected 55P03, got %r" % err)
    holder.sql("COMMIT")
    S.record_hold(sc, holder, "accounts", 9, t_hold, time.time())
    S.add("errors", {"pid": other.pid, "sqlstate": err, "scenario": sc})
    close([holder, other])


SCENARIOS = [hot_account, idle_in_tx, chain, deadlock, lock_timeout, serialization]
# LOCKSPAN_I18N_EXTRA=1 (the sets of other releases: samples/i18n-pg13.sh,
# samples/i18n.sh with LOCKSPAN_I18N_RELEASE): two more, after the six
EXTRA = [statement_timeout, nowait]


def i18n_main(mod):
    global S, LOG, MON
    S = mod
    if not S.ARGS.csvlog:
        raise SystemExit("scenarios.py --set i18n needs --csvlog")
    LOG = Log(S.ARGS.csvlog)
    S.TRUTH["set"] = "i18n"
    try:
        s = session("setup", "lockspan-setup")
        for q in ("CREATE TABLE accounts (id int PRIMARY KEY, balance numeric NOT NULL)",
                  "CREATE TABLE inventory (id int PRIMARY KEY, qty int NOT NULL)",
                  "CREATE TABLE invoices (id int PRIMARY KEY, total numeric NOT NULL)",
                  "INSERT INTO accounts SELECT g, 1000 FROM generate_series(1, 10) g",
                  "INSERT INTO inventory SELECT g, 100 FROM generate_series(1, 10) g",
                  "INSERT INTO invoices SELECT g, 0 FROM generate_series(1, 10) g",
                  "VACUUM ANALYZE accounts, inventory, invoices"):
            s.sql(q)
        close([s])
        MON = S.Monitor()
        MON.cur.execute("SELECT pg_backend_pid()")  # not logged (see Monitor)
        MON.pid = MON.cur.fetchone()[0]
        MON.app = "lockspan-monitor"
        extra = EXTRA if os.environ.get("LOCKSPAN_I18N_EXTRA") == "1" else []
        S.TRUTH["scenarios"] = [fn.__name__ for fn in SCENARIOS + extra]
        for fn in SCENARIOS + extra:
            print("scenarios.py: %s" % fn.__name__, file=sys.stderr)
            fn()
        MON.close = MON.conn.close
        close([MON])
    finally:
        for pid in list(STOPPED):
            cont(pid)
