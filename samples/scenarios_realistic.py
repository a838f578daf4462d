"""The `realistic` scenario set of samples/scenarios.py (--set realistic).

An application that looks like a real one rather than like lockspan's own
tests (GitHub issue 9, "Samples"): a connection pool per service, the
extended protocol (psycopg 3, server-side binding, some statements prepared
server-side), one service whose sessions run with log_parameter_max_length
= 0, SQL and PL/pgSQL functions that update a hot row, a trigger on INSERT
INTO payments that updates a per-merchant total row, SQL-level PREPARE /
EXECUTE (psycopg2), a row share-locked by several transactions and then
updated (multixact), a deadlock between extended-protocol clients, a
lock_timeout, and short transactions that lock the hot rows while nobody
waits. Code paths are named the way a log-only analysis can name them:
sqlcommenter tags `/*action='...',controller='...'*/` on the statements
(`controller.action`), else the application_name.

The truth is client-side only (never from the server log): each session's
pid (from the protocol, no query), backend_start and %c session id (from a
quiet helper connection); each statement's send and return times; the waits
(client windows, confirmed by a quiet sampler that reads pg_locks and
pg_blocking_pids() every ~10 ms); one hold per (transaction, hot row) for
every transaction that locked a hot row, from the return of its locking
statement to the return of its COMMIT/ROLLBACK; and the two code-path
rankings computed from those holds. Imported by scenarios.py; S is that
module (set by real_main).
"""

import sys
import threading
import time

import psycopg
import psycopg2

from scenarios_correlation import write_truth

S = None
QUIET = "-c log_statement=none -c log_min_duration_statement=-1"
DEADLOCK_TIMEOUT = 0.100   # deadlock_timeout in generate.sh
SAMPLE_EVERY = 0.010       # sampler period (s)
GAP = 0.030                # pause between short transactions
SESSIONS = []              # every truth session, in creation order
TXS = []                   # every transaction of the app, in start order
WAITS = []                 # logged waits (dicts, truth shape, plus internals)
MON = None
SAMPLER = None
SAMPLER_QUERY = (
    "SELECT a.pid, pg_blocking_pids(a.pid), l.locktype, l.mode, l.transactionid::text, "
    "l.relation::regclass::text, l.page, l.tuple "
    "FROM pg_stat_activity a LEFT JOIN pg_locks l ON l.pid = a.pid AND NOT l.granted "
    "WHERE a.wait_event_type = 'Lock' AND a.pid <> pg_backend_pid()")


def ts(t):
    return S.ts(t)


def sqlstate(e):
    return getattr(e, "sqlstate", None) or getattr(e, "pgcode", None)


def comment(tag):
    """sqlcommenter: keys sorted, values URL-encoded in single quotes."""
    return "/*" + ",".join("%s='%s'" % (k, v) for k, v in sorted(tag.items())) + "*/"


# --------------------------------------------------------------------------
# quiet helper connections (their statements are not logged)

class Monitor:
    def __init__(self):
        self.conn = psycopg2.connect(host=S.ARGS.host, port=S.ARGS.port, user=S.ARGS.user,
                                     dbname=S.ARGS.dbname, application_name="lockspan-monitor",
                                     options=QUIET)
        self.conn.autocommit = True
        self.cur = self.conn.cursor()
        self.lock = threading.Lock()

    def q(self, sql, params=()):
        with self.lock:
            self.cur.execute(sql, params)
            return self.cur.fetchall()

    def backend_start(self, pid):
        return self.q("SELECT backend_start FROM pg_stat_activity WHERE pid = %s", (pid,))[0][0]

    def wait_lock(self, pid, timeout=5.0):
        """Return once pid is waiting for a heavyweight lock."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            row = self.q("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", (pid,))
            if row and row[0][0] == "Lock":
                return
            time.sleep(0.005)
        raise RuntimeError("pid %d never started waiting on a lock" % pid)

    def blockers(self, pid):
        return self.q("SELECT pg_blocking_pids(%s)", (pid,))[0][0]


class Sampler(threading.Thread):
    """pg_locks and pg_blocking_pids() of every lock-waiting backend, every
    SAMPLE_EVERY s, from its own quiet connection: (time, pid, blockers,
    locktype, mode, awaited xid, relation, page, tuple)."""

    def __init__(self):
        super().__init__(name="sampler", daemon=True)
        self.stop = threading.Event()
        self.samples = []
        self.rounds = 0
        self.error = None

    def run(self):
        try:
            conn = psycopg2.connect(host=S.ARGS.host, port=S.ARGS.port, user=S.ARGS.user,
                                    dbname=S.ARGS.dbname, application_name="lockspan-sampler",
                                    options=QUIET)
            conn.autocommit = True
            cur = conn.cursor()
            while not self.stop.is_set():
                t0 = time.time()
                cur.execute(SAMPLER_QUERY)
                rows = cur.fetchall()
                t = (t0 + time.time()) / 2
                self.rounds += 1
                for pid, blk, locktype, mode, xid, rel, page, tup in rows:
                    self.samples.append((t, pid, list(blk or []), locktype, mode, xid, rel,
                                         page, tup))
                self.stop.wait(SAMPLE_EVERY)
            conn.close()
        except Exception as e:  # noqa: BLE001
            self.error = e


# --------------------------------------------------------------------------
# the application's sessions and transactions

class Sess:
    """One pooled connection of a service (one backend)."""

    def __init__(self, app, driver="psycopg3", options=None, prepare=None, scenario="pool"):
        self.app = app
        self.driver = driver
        self.options = options
        self.prepare = prepare  # psycopg 3: True = server-side prepared statements
        self.scenario = scenario
        self.tx = None
        self.stmts = []  # statements outside transactions
        kw = {"options": options} if options else {}
        if driver == "psycopg3":
            self.conn = psycopg.connect(host=S.ARGS.host, port=S.ARGS.port, user=S.ARGS.user,
                                        dbname=S.ARGS.dbname, application_name=app,
                                        autocommit=True, **kw)
            self.pid = self.conn.info.backend_pid
            if not prepare:
                self.conn.prepare_threshold = None  # never prepare behind our back
        else:
            self.conn = psycopg2.connect(host=S.ARGS.host, port=S.ARGS.port, user=S.ARGS.user,
                                         dbname=S.ARGS.dbname, application_name=app, **kw)
            self.conn.autocommit = True
            self.pid = self.conn.get_backend_pid()
        self.cur = self.conn.cursor()
        bs = MON.backend_start(self.pid)
        self.backend_start = bs.timestamp()
        # elog.c: %c = "%lx.%x" of (time_t) MyStartTime and MyProcPid.
        self.session_id = "%x.%x" % (int(self.backend_start), self.pid)
        SESSIONS.append(self)

    def q(self, sql, params=None, locks=(), expect=(), prepare=None):
        """Run one statement (with the transaction's sqlcommenter tag, if
        any); record it; `locks` = the hot-row candidates it locks, as
        (relation, row_key), noted at its return. Returns the rows; sets
        self.last = (t_sent, t_returned, sqlstate or None)."""
        tag = self.tx.tag if self.tx is not None and sql not in ("BEGIN", "COMMIT", "ROLLBACK") \
            else None
        if tag:
            sql = sql + " " + comment(tag)
        if self.driver == "psycopg3":
            shown, n = sql, 0
            while "%s" in shown:
                n += 1
                shown = shown.replace("%s", "$%d" % n, 1)
            rec = {"sql": shown, "protocol": "extended" if params is not None else "simple"}
            if params is not None:
                rec["params"] = [str(p) for p in params]
                prep = self.prepare if prepare is None else prepare
                if prep:
                    rec["prepared"] = True
        else:
            shown = self.cur.mogrify(sql, params).decode() if params is not None else sql
            rec = {"sql": shown, "protocol": "simple"}
        rows, err = None, None
        t0 = time.time()
        try:
            if self.driver == "psycopg3" and params is not None:
                self.cur.execute(sql, params, prepare=rec.get("prepared"))
            else:
                self.cur.execute(sql, params)
            if self.cur.description is not None:
                rows = self.cur.fetchall()
        except (psycopg.Error, psycopg2.Error) as e:
            err = sqlstate(e)
            if err is None or err not in expect:
                raise
        t1 = time.time()
        rec["start"], rec["end"] = t0, t1
        if err:
            rec["sqlstate"] = err
        (self.tx.stmts if self.tx is not None else self.stmts).append(rec)
        if self.tx is not None and not err:
            for rel, key in locks:
                self.tx.locks.append((rel, key, t1, rec["sql"]))
        self.last = (t0, t1, err)
        return rows

    def begin(self, scenario, tag=None):
        assert self.tx is None
        self.tx = Tx(self, scenario, tag)
        self.q("BEGIN")
        self.tx.start = self.tx.stmts[0]["start"]
        return self.tx

    def end(self, word="COMMIT"):
        tx = self.tx
        self.q(word)
        tx.end = tx.stmts[-1]["end"]
        tx.outcome = "committed" if word == "COMMIT" and not any(
            s.get("sqlstate") for s in tx.stmts) else "rolled_back"
        self.tx = None
        return tx

    def close(self):
        try:
            self.conn.close()
        except Exception:  # noqa: BLE001
            pass


class Tx:
    def __init__(self, sess, scenario, tag):
        self.sess = sess
        self.scenario = scenario
        self.tag = tag
        # How a log-only analysis names it: sqlcommenter controller.action
        # (joined as OpenTelemetry's code.namespace + code.function are,
        # src/correlate/codepath.h), else the application_name.
        self.path = "%s.%s" % (tag["controller"], tag["action"]) if tag else sess.app
        self.stmts = []
        self.locks = []
        self.start = self.end = None
        self.outcome = None
        self.seq = len(TXS) + 1
        TXS.append(self)


def run(*fns):
    r = S.Runner()
    for f in fns:
        r.start(f)
    return r


# --------------------------------------------------------------------------
# what each code path does (every statement as the application sends it)

ACC = "accounts"
WITHDRAW = {"controller": "accounts", "action": "withdraw"}
DEPOSIT = {"controller": "accounts", "action": "deposit"}
TRANSFER = {"controller": "accounts", "action": "transfer"}
ADJUST = {"controller": "accounts", "action": "adjust"}
PAY = {"controller": "payments", "action": "create"}


def withdraw(s, acct, amount):
    s.q("SELECT * FROM withdraw(%s, %s)", (acct, amount), locks=[(ACC, "id=%d" % acct)])


def deposit(s, acct, amount):
    s.q("SELECT deposit(%s, %s)", (acct, amount), locks=[(ACC, "id=%d" % acct)])


def settle(s, acct, amount, expect=()):
    s.q("UPDATE accounts SET balance = balance + %s WHERE id = %s", (amount, acct),
        locks=[(ACC, "id=%d" % acct)], expect=expect)


def pay(s, merchant, amount):
    s.q("INSERT INTO payments (merchant_id, amount) VALUES (%s, %s) RETURNING id",
        (merchant, amount), locks=[("merchant_totals", "merchant_id=%d" % merchant)])


def reserve(s, sku, n):
    s.q("EXECUTE reserve(%d, %d)" % (sku, n), locks=[("inventory", "sku=%d" % sku)])


def short_tx(s, scenario, tag, fn, *args, work=0.02):
    """A short transaction: lock, a little application work, commit."""
    s.begin(scenario, tag)
    fn(s, *args)
    time.sleep(work)
    s.end()
    time.sleep(GAP)


# --------------------------------------------------------------------------
# truth records

def wait(sc, waiter, direct, holder_tx, rel, key, mode, lock, t0, t1, outcome):
    """A wait PostgreSQL logs (all are several times deadlock_timeout)."""
    w = {"scenario": sc, "waiter_pid": waiter.pid, "waiter_session_id": waiter.session_id,
         "waiter_tx": waiter.tx.seq if waiter.tx else None,
         "waiter_code_path": waiter.tx.path if waiter.tx else None,
         "direct_blocker_pid": direct.pid, "direct_blocker_session_id": direct.session_id,
         "root_pid": holder_tx.sess.pid, "root_session_id": holder_tx.sess.session_id,
         "holder_tx": holder_tx.seq, "relation": rel, "row_key": key,
         "mode_expected": mode, "lock": lock, "wait_start": ts(t0), "wait_end": ts(t1),
         "waited_ms": round((t1 - t0) * 1000, 3), "outcome": S.OUTCOME[outcome],
         "_t0": t0, "_t1": t1}
    if outcome:
        # Client time of the failing statement: an upper bound of the wait
        # up to the ERROR (parse/bind/round trip, ~1 ms once the session's
        # caches are warm); confirm() adds the sampler's lower bound.
        w["time_to_error_ms"] = w["waited_ms"]
    WAITS.append(w)
    return w


def error(sc, s, state):
    S.add("errors", {"pid": s.pid, "session_id": s.session_id, "sqlstate": state,
                     "scenario": sc})


# --------------------------------------------------------------------------
# schema

def setup():
    s = Sess("lockspan-setup", driver="psycopg2", scenario="setup")
    for sql in [
        "DROP TABLE IF EXISTS accounts, merchant_totals, payments, inventory",
        "CREATE TABLE accounts (id int PRIMARY KEY, owner text NOT NULL, "
        "balance numeric NOT NULL)",
        "CREATE TABLE merchant_totals (merchant_id int PRIMARY KEY, total numeric NOT NULL, "
        "payments int NOT NULL)",
        "CREATE TABLE payments (id bigserial PRIMARY KEY, merchant_id int NOT NULL, "
        "amount numeric NOT NULL, created_at timestamptz NOT NULL DEFAULT now())",
        "CREATE TABLE inventory (sku int PRIMARY KEY, qty int NOT NULL)",
        # PL/pgSQL: the waiting statement is SELECT * FROM withdraw(7, 5);
        # only CONTEXT shows the UPDATE (WHERE id = p_id).
        "CREATE FUNCTION withdraw(p_id integer, p_amount numeric) RETURNS numeric\n"
        "LANGUAGE plpgsql AS $$\n"
        "DECLARE\n"
        "    v_balance numeric;\n"
        "BEGIN\n"
        "    UPDATE accounts SET balance = balance - p_amount\n"
        "     WHERE id = p_id\n"
        "    RETURNING balance INTO v_balance;\n"
        "    RETURN v_balance;\n"
        "END\n"
        "$$",
        # SQL function: CONTEXT says only 'SQL function "deposit" statement 1'.
        "CREATE FUNCTION deposit(p_id integer, p_amount numeric) RETURNS numeric\n"
        "LANGUAGE sql AS $$\n"
        "    UPDATE accounts SET balance = balance + p_amount WHERE id = p_id\n"
        "    RETURNING balance\n"
        "$$",
        # The per-merchant total row: a hot counter row updated by a trigger.
        "CREATE FUNCTION payments_total() RETURNS trigger LANGUAGE plpgsql AS $$\n"
        "BEGIN\n"
        "    UPDATE merchant_totals\n"
        "       SET total = total + NEW.amount, payments = payments + 1\n"
        "     WHERE merchant_id = NEW.merchant_id;\n"
        "    RETURN NEW;\n"
        "END\n"
        "$$",
        "CREATE TRIGGER payments_total AFTER INSERT ON payments "
        "FOR EACH ROW EXECUTE FUNCTION payments_total()",
        "INSERT INTO accounts SELECT g, 'owner ' || g, 1000 FROM generate_series(1, 20) g",
        "INSERT INTO merchant_totals SELECT g, 0, 0 FROM generate_series(1, 5) g",
        "INSERT INTO inventory SELECT g, 1000 FROM generate_series(1, 10) g",
        "VACUUM ANALYZE accounts, merchant_totals, payments, inventory",
    ]:
        s.q(sql)
    s.close()


# --------------------------------------------------------------------------
# scenarios

def quiet_traffic(P, sc):
    """Short transactions on the hot rows, one at a time: nobody waits."""
    b, p, st = P["bank"], P["pay"], P["stock"]
    short_tx(b[0], sc, WITHDRAW, withdraw, 7, 5)
    short_tx(b[1], sc, DEPOSIT, deposit, 7, 10)
    short_tx(P["settle"], sc, None, settle, 7, 3)
    short_tx(p[0], sc, PAY, pay, 3, 12)
    short_tx(st[0], sc, None, reserve, 7, 1)
    short_tx(b[2], sc, WITHDRAW, withdraw, 7, 5, work=0.06)
    short_tx(p[1], sc, PAY, pay, 3, 40)
    short_tx(P["audit"][0], sc, None, share, 9)
    short_tx(st[1], sc, None, reserve, 7, 2)
    short_tx(b[0], sc, WITHDRAW, withdraw, 12, 1)
    short_tx(p[2], sc, PAY, pay, 3, 7)
    short_tx(b[1], sc, TRANSFER, transfer_leg, 4, -5)
    # A refund of another account (not a hot row): it also warms the refunds
    # session's caches, so that its timed-out UPDATE's client time is the
    # wait, not catalog loading.
    short_tx(P["refund"], sc, None, settle, 15, 1)


def share(s, acct):
    s.q("SELECT id, balance FROM accounts WHERE id = %s FOR SHARE", (acct,),
        locks=[(ACC, "id=%d" % acct)])


def transfer_leg(s, acct, amount):
    s.q("UPDATE accounts SET balance = balance + %s WHERE id = %s", (amount, acct),
        locks=[(ACC, "id=%d" % acct)])


def queue_on_account(P):
    """deposit() holds accounts 7 while the client calls a fraud service;
    withdraw() (PL/pgSQL), a settlement UPDATE (no parameters logged) and
    another deposit() (SQL function) queue behind it: ShareLock, then two tuple waits
    naming the first waiter."""
    sc = "account_queue"
    h, waiters = P["bank"][0], [P["bank"][1], P["settle"], P["bank"][2]]
    held = threading.Event()
    res = {}

    def h_fn():
        res["tx"] = h.begin(sc, DEPOSIT)
        deposit(h, 7, 100)
        held.set()
        time.sleep(0.8)  # fraud check over HTTP
        h.end()

    def w_fn(i, w):
        def fn():
            if w is P["settle"]:
                w.begin(sc, None)
                settle(w, 7, -2)
            elif i == 2:
                w.begin(sc, DEPOSIT)
                deposit(w, 7, 15)
            else:
                w.begin(sc, WITHDRAW)
                withdraw(w, 7, 5)
            res[i] = (w.tx, w.last)
            w.end()
        fn.__name__ = "%s_waiter%d" % (sc, i)
        return fn

    r = run(h_fn)
    held.wait(10)
    for i, w in enumerate(waiters):
        if i:
            time.sleep(0.06)
        r.start(w_fn(i, w))
        MON.wait_lock(w.pid)
    r.join()
    for i, w in enumerate(waiters):
        tx, (t0, t1, err) = res[i]
        if err:
            raise RuntimeError("%s waiter failed: %s" % (sc, err))
        wt = wait(sc, w, h if i == 0 else waiters[0], res["tx"], ACC, "id=7",
                  "ShareLock" if i == 0 else "ExclusiveLock",
                  "transaction" if i == 0 else "tuple", t0, t1, None)
        wt["waiter_tx"], wt["waiter_code_path"] = tx.seq, tx.path


def function_holder(P):
    """withdraw() holds accounts 7, the client idles; the settlement
    session (log_parameter_max_length = 0, prepared) waits."""
    sc = "function_holder"
    h, w = P["bank"][2], P["settle"]
    held = threading.Event()
    res = {}

    def h_fn():
        res["tx"] = h.begin(sc, WITHDRAW)
        withdraw(h, 7, 20)
        held.set()
        time.sleep(0.6)  # ledger call
        h.end()

    def w_fn():
        res["wtx"] = w.begin(sc, None)
        settle(w, 7, 4)
        res["w"] = w.last
        w.end()

    r = run(h_fn)
    held.wait(10)
    time.sleep(0.05)
    r.start(w_fn)
    MON.wait_lock(w.pid)
    r.join()
    t0, t1, err = res["w"]
    wt = wait(sc, w, h, res["tx"], ACC, "id=7", "ShareLock", "transaction", t0, t1, err)
    wt["waiter_tx"], wt["waiter_code_path"] = res["wtx"].seq, res["wtx"].path


def trigger_counter(P):
    """An INSERT INTO payments whose trigger updates merchant_totals 3
    holds the counter row while the client renders a receipt; two more
    payments for merchant 3 queue on it."""
    sc = "trigger_counter"
    h, waiters = P["pay"][0], [P["pay"][1], P["pay"][2]]
    held = threading.Event()
    res = {}

    def h_fn():
        res["tx"] = h.begin(sc, PAY)
        pay(h, 3, 25)
        held.set()
        time.sleep(0.7)  # receipt rendering
        h.end()

    def w_fn(i, w):
        def fn():
            w.begin(sc, PAY)
            pay(w, 3, 10 + i)
            res[i] = (w.tx, w.last)
            w.end()
        fn.__name__ = "%s_waiter%d" % (sc, i)
        return fn

    r = run(h_fn)
    held.wait(10)
    for i, w in enumerate(waiters):
        if i:
            time.sleep(0.06)
        r.start(w_fn(i, w))
        MON.wait_lock(w.pid)
    r.join()
    for i, w in enumerate(waiters):
        tx, (t0, t1, err) = res[i]
        wt = wait(sc, w, h if i == 0 else waiters[0], res["tx"], "merchant_totals",
                  "merchant_id=3", "ShareLock" if i == 0 else "ExclusiveLock",
                  "transaction" if i == 0 else "tuple", t0, t1, err)
        wt["waiter_tx"], wt["waiter_code_path"] = tx.seq, tx.path


def prepared_execute(P):
    """SQL-level PREPARE/EXECUTE: EXECUTE reserve(7, 2) holds inventory
    sku 7 while the worker prints a pick list; EXECUTE reserve(7, 1) of the
    other worker waits."""
    sc = "prepared_execute"
    h, w = P["stock"]
    held = threading.Event()
    res = {}

    def h_fn():
        res["tx"] = h.begin(sc, None)
        reserve(h, 7, 2)
        held.set()
        time.sleep(0.6)
        h.end()

    def w_fn():
        res["wtx"] = w.begin(sc, None)
        reserve(w, 7, 1)
        res["w"] = w.last
        w.end()

    r = run(h_fn)
    held.wait(10)
    time.sleep(0.05)
    r.start(w_fn)
    MON.wait_lock(w.pid)
    r.join()
    t0, t1, err = res["w"]
    wt = wait(sc, w, h, res["tx"], "inventory", "sku=7", "ShareLock", "transaction",
              t0, t1, err)
    wt["waiter_tx"], wt["waiter_code_path"] = res["wtx"].seq, res["wtx"].path


def multixact(P):
    """Three audit sessions SELECT ... FOR SHARE accounts 9 (a multixact),
    then accounts.adjust UPDATEs it: it waits for the share lockers'
    transactions one after another, each wait naming one of them. Which
    one it waits for when is read from the sampler, not assumed."""
    sc = "multixact"
    sharers, wr = P["audit"], P["bank"][1]
    res = {}
    done = {}
    for a in sharers:
        res[a.pid] = a.begin(sc, None)
        share(a, 9)
        time.sleep(0.05)
    go = threading.Event()

    def w_fn():
        res["wtx"] = wr.begin(sc, ADJUST)
        go.set()
        transfer_leg(wr, 9, 30)
        res["w"] = wr.last
        wr.end()

    r = run(w_fn)
    go.wait(10)
    MON.wait_lock(wr.pid)
    first = MON.blockers(wr.pid)
    for a in sharers:
        time.sleep(0.4)
        done[a.pid] = a.end().end
    r.join()
    t0, t1, err = res["w"]
    if err:
        raise RuntimeError("multixact writer failed: %s" % err)
    # The writer's blockers in the order the sampler saw them.
    order = []
    for smp in SAMPLER.samples:
        if smp[1] == wr.pid and t0 <= smp[0] <= t1:
            for b in smp[2]:
                if b not in order:
                    order.append(b)
    by_pid = {a.pid: a for a in sharers}
    if not order or any(b not in by_pid for b in order) or order[0] not in first:
        raise RuntimeError("multixact: writer blocked by %r (first %r)" % (order, first))
    start = t0
    for k, b in enumerate(order):
        end = t1 if k == len(order) - 1 else done[b]
        wt = wait(sc, wr, by_pid[b], res[b], ACC, "id=9", "ShareLock", "transaction",
                  start, end, None)
        wt["waiter_tx"], wt["waiter_code_path"] = res["wtx"].seq, res["wtx"].path
        wt["multixact_member"] = k + 1
        start = done[b]


def deadlock(P):
    """accounts.transfer from two extended-protocol clients in opposite
    order (4 then 5, 5 then 4); the second to close the cycle is the victim."""
    sc = "deadlock"
    x, y = P["bank"][0], P["bank"][2]
    x_holds, y_holds, y_go = threading.Event(), threading.Event(), threading.Event()
    res = {}

    def x_fn():
        res["xtx"] = x.begin(sc, TRANSFER)
        transfer_leg(x, 4, -20)
        x_holds.set()
        y_holds.wait(10)
        x.q("UPDATE accounts SET balance = balance + %s WHERE id = %s", (20, 5),
            locks=[(ACC, "id=5")], expect=("40P01",))
        res["x"] = x.last
        x.end("ROLLBACK" if x.last[2] else "COMMIT")

    def y_fn():
        res["ytx"] = y.begin(sc, TRANSFER)
        transfer_leg(y, 5, -20)
        y_holds.set()
        y_go.wait(10)
        y.q("UPDATE accounts SET balance = balance + %s WHERE id = %s", (20, 4),
            locks=[(ACC, "id=4")], expect=("40P01",))
        res["y"] = y.last
        y.end("ROLLBACK" if y.last[2] else "COMMIT")

    r = run(x_fn)
    x_holds.wait(10)
    r.start(y_fn)
    y_holds.wait(10)
    MON.wait_lock(x.pid)
    time.sleep(0.4)  # x's deadlock check finds nothing; y's finds the cycle
    y_go.set()
    r.join()
    if res["x"][2] is not None or res["y"][2] != "40P01":
        raise RuntimeError("deadlock: x %r, y %r" % (res["x"][2], res["y"][2]))
    S.add("deadlocks", {"pids": [x.pid, y.pid], "session_ids": [x.session_id, y.session_id],
                        "victim_pid": y.pid, "victim_session_id": y.session_id})
    error(sc, y, "40P01")
    t0, t1, err = res["x"]
    wt = wait(sc, x, y, res["ytx"], ACC, "id=5", "ShareLock", "transaction", t0, t1, err)
    wt["waiter_tx"], wt["waiter_code_path"] = res["xtx"].seq, res["xtx"].path
    t0, t1, err = res["y"]
    wt = wait(sc, y, x, res["xtx"], ACC, "id=4", "ShareLock", "transaction", t0, t1, err)
    wt["waiter_tx"], wt["waiter_code_path"] = res["ytx"].seq, res["ytx"].path


def lock_timeout(P):
    """withdraw() holds accounts 12 for 0.9 s; the refunds service (lock_timeout
    300 ms) times out (55P03), then retries after the holder committed."""
    sc = "lock_timeout"
    h, w = P["bank"][1], P["refund"]
    held, done = threading.Event(), threading.Event()
    res = {}

    def h_fn():
        res["tx"] = h.begin(sc, WITHDRAW)
        withdraw(h, 12, 1)
        held.set()
        time.sleep(0.9)
        h.end()
        done.set()

    def w_fn():
        res["wtx"] = w.begin(sc, None)
        settle(w, 12, 1, expect=("55P03",))
        res["w"] = w.last
        w.end("ROLLBACK")
        done.wait(10)
        time.sleep(0.05)
        short_tx(w, sc, None, settle, 12, 1)

    w.q("SET lock_timeout = '300ms'")
    r = run(h_fn)
    held.wait(10)
    time.sleep(0.05)
    r.start(w_fn)
    r.join()
    t0, t1, err = res["w"]
    if err != "55P03":
        raise RuntimeError("lock_timeout: got %r" % err)
    error(sc, w, err)
    wt = wait(sc, w, h, res["tx"], ACC, "id=12", "ShareLock", "transaction", t0, t1, err)
    wt["waiter_tx"], wt["waiter_code_path"] = res["wtx"].seq, res["wtx"].path


def checkout_burst(P):
    """30 payments for merchant 3, one after another, each holding the
    counter row ~80 ms while the client scores the payment: nobody waits,
    yet payments.create occupies the hot rows longest (the occupancy
    ranking's top differs from the blocking ranking's)."""
    for i in range(30):
        short_tx(P["pay"][i % 3], "checkout_burst", PAY, pay, 3, 5 + i, work=0.08)


# --------------------------------------------------------------------------
# truth

def confirm(w):
    """The sampler's view of a wait: samples inside its window where the
    waiter was blocked, and by whom."""
    t0, t1 = w["_t0"], w["_t1"]
    inside = [s for s in SAMPLER.samples if s[1] == w["waiter_pid"] and t0 <= s[0] <= t1]
    by_direct = [s for s in inside if w["direct_blocker_pid"] in s[2]]
    # A second lock wait inside the same statement (e.g. a tuple waiter then
    # waiting for the first waiter's transaction) would be logged if long.
    want = "transactionid" if w["lock"] == "transaction" else "tuple"
    other = [s[0] for s in inside if s[3] and s[3] != want]
    if other and max(other) - min(other) > 0.08:
        raise RuntimeError("wait of %d in %s: also waited on another lock kind %.0f ms"
                           % (w["waiter_pid"], w["scenario"], (max(other) - min(other)) * 1e3))
    if "time_to_error_ms" in w and inside:
        w["time_to_error_min_ms"] = round((t1 - inside[0][0]) * 1000, 3)
    return {"samples": len(inside), "samples_blocked_by_direct": len(by_direct),
            "first": ts(by_direct[0][0]) if by_direct else None,
            "last": ts(by_direct[-1][0]) if by_direct else None,
            "locktypes": sorted({s[3] for s in by_direct if s[3]}),
            "blockers_seen": sorted({b for s in inside for b in s[2]})}


def unexplained_blocking():
    """Sampled waits of more than ~80 ms that no truth wait explains (they
    would be logged without being in the truth)."""
    runs = {}
    for s in SAMPLER.samples:
        if any(w["waiter_pid"] == s[1] and w["_t0"] <= s[0] <= w["_t1"] for w in WAITS):
            continue
        runs.setdefault(s[1], []).append(s[0])
    out = []
    for pid, times in runs.items():
        times.sort()
        a = b = times[0]
        for t in times[1:] + [None]:
            if t is not None and t - b < 3 * SAMPLE_EVERY + 0.02:
                b = t
                continue
            if b - a > 0.08:
                out.append({"pid": pid, "from": ts(a), "to": ts(b)})
            if t is not None:
                a = b = t
    return out


def holds():
    """One hold per (transaction, hot row) for every transaction that locked
    a hot row (a row some logged wait was for)."""
    hot = {(w["relation"], w["row_key"]) for w in WAITS}
    out = []
    for tx in TXS:
        seen = set()
        for rel, key, t_lock, sql in tx.locks:
            if (rel, key) not in hot or (rel, key) in seen:
                continue
            seen.add((rel, key))
            n = sum(1 for w in WAITS if w["holder_tx"] == tx.seq and
                    (w["relation"], w["row_key"]) == (rel, key))
            out.append({"scenario": tx.scenario, "tx": tx.seq, "pid": tx.sess.pid,
                        "session_id": tx.sess.session_id,
                        "application_name": tx.sess.app, "code_path": tx.path,
                        "relation": rel, "row_key": key, "start": ts(t_lock),
                        "end": ts(tx.end), "hold_ms": round((tx.end - t_lock) * 1000, 3),
                        "waits": n, "waited_for": n > 0, "outcome": tx.outcome,
                        "locking_statement": sql})
    out.sort(key=lambda h: h["start"])
    return out


def ranking(hs):
    by = {}
    for h in hs:
        r = by.setdefault(h["code_path"], {"code_path": h["code_path"], "holds": 0,
                                           "total_hold_ms": 0.0, "max_hold_ms": 0.0})
        r["holds"] += 1
        r["total_hold_ms"] += h["hold_ms"]
        r["max_hold_ms"] = max(r["max_hold_ms"], h["hold_ms"])
    for r in by.values():
        r["total_hold_ms"] = round(r["total_hold_ms"], 3)
    return sorted(by.values(), key=lambda r: (-r["total_hold_ms"], r["code_path"]))


def transactions():
    out = []
    for tx in TXS:
        out.append({"tx": tx.seq, "pid": tx.sess.pid, "session_id": tx.sess.session_id,
                    "scenario": tx.scenario, "application_name": tx.sess.app,
                    "code_path": tx.path, "start": ts(tx.start), "end": ts(tx.end),
                    "outcome": tx.outcome,
                    "statements": [dict({k: v for k, v in st.items()
                                         if k not in ("start", "end")},
                                        start=ts(st["start"]), end=ts(st["end"]))
                                   for st in tx.stmts]})
    return out


def real_main(mod):
    global S, MON, SAMPLER
    S = mod
    T = S.TRUTH
    T.update({"set": "realistic", "log_destination": "stderr,csvlog",
              "deadlock_timeout_ms": int(DEADLOCK_TIMEOUT * 1000),
              "hold_definition": "start = client-side return of the locking statement "
              "(after its own wait), end = return of COMMIT/ROLLBACK; one per "
              "(transaction, hot row); hot row = a row some logged wait was for",
              "sampler": {"interval_ms": int(SAMPLE_EVERY * 1000), "query": SAMPLER_QUERY},
              "code_paths": [], "sessions": [], "waits": [], "holds": [],
              "rankings": {}, "transactions": [], "deadlocks": [], "errors": []})
    MON = Monitor()
    setup()
    SAMPLER = Sampler()
    SAMPLER.start()
    P = {"bank": [Sess("bank-api", prepare=(i == 0)) for i in range(3)],
         "pay": [Sess("payments-svc") for _ in range(3)],
         "stock": [Sess("stock-worker", driver="psycopg2") for _ in range(2)],
         # A service whose sessions log no bind parameters.
         "settle": Sess("settlement", options="-c log_parameter_max_length=0", prepare=True),
         "audit": [Sess("audit") for _ in range(3)],
         "refund": Sess("refunds")}
    for s in P["stock"]:
        s.q("PREPARE reserve(int, int) AS UPDATE inventory SET qty = qty - $2 WHERE sku = $1")
    time.sleep(S.SETTLE)
    steps = [("quiet_traffic", lambda: quiet_traffic(P, "quiet_traffic")),
             ("account_queue", lambda: queue_on_account(P)),
             ("function_holder", lambda: function_holder(P)),
             ("trigger_counter", lambda: trigger_counter(P)),
             ("prepared_execute", lambda: prepared_execute(P)),
             ("multixact", lambda: multixact(P)),
             ("deadlock", lambda: deadlock(P)),
             ("lock_timeout", lambda: lock_timeout(P)),
             ("checkout_burst", lambda: checkout_burst(P)),
             ("quiet_traffic_2", lambda: quiet_traffic(P, "quiet_traffic_2"))]
    for name, fn in steps:
        print("scenarios.py: %s" % name, file=sys.stderr)
        fn()
        time.sleep(S.SETTLE)
    SAMPLER.stop.set()
    SAMPLER.join(10)
    if SAMPLER.error:
        raise RuntimeError("sampler failed: %r" % SAMPLER.error)
    for s in list(SESSIONS):
        s.close()
    MON.conn.close()

    for w in WAITS:
        w["confirmed"] = confirm(w)
        if not w["confirmed"]["samples_blocked_by_direct"]:
            raise RuntimeError("wait of %d in %s not seen blocked by %d in pg_locks"
                               % (w["waiter_pid"], w["scenario"], w["direct_blocker_pid"]))
        # (A deadlock victim's wait ends at its own deadlock check.)
        if w["outcome"] != "deadlock" and w["_t1"] - w["_t0"] < DEADLOCK_TIMEOUT + 0.1:
            raise RuntimeError("wait of %d in %s too short to be surely logged"
                               % (w["waiter_pid"], w["scenario"]))
    extra = unexplained_blocking()
    if extra:
        raise RuntimeError("lock waits nobody expected: %r" % extra)
    WAITS.sort(key=lambda w: w["_t0"])
    T["waits"] = [{k: v for k, v in w.items() if not k.startswith("_")} for w in WAITS]
    T["holds"] = hs = holds()
    T["rankings"] = {
        "blocking": ranking([h for h in hs if h["waits"]]),
        "occupancy": ranking(hs)}
    T["code_paths"] = sorted({tx.path for tx in TXS})
    T["sessions"] = [{"pid": s.pid, "session_id": s.session_id,
                      "backend_start": ts(s.backend_start), "application_name": s.app,
                      "driver": s.driver, "options": s.options,
                      "log_parameter_max_length": 0 if s.options and
                      "log_parameter_max_length=0" in s.options else None,
                      "prepared_statements": bool(s.prepare),
                      "scenario": s.scenario,
                      "code_paths": sorted({tx.path for tx in TXS if tx.sess is s}),
                      "statements_outside_transactions": [
                          dict({k: v for k, v in st.items() if k not in ("start", "end")},
                               start=ts(st["start"]), end=ts(st["end"]))
                          for st in s.stmts]}
                     for s in SESSIONS]
    T["transactions"] = transactions()
    T["sampler"]["rounds"] = SAMPLER.rounds
    T["sampler"]["samples"] = len(SAMPLER.samples)
    with open(S.ARGS.truth, "w") as f:
        write_truth(T, f)
    print("scenarios.py: %d waits, %d holds (%d waited for), %d transactions, %d sessions, "
          "%d sampler rounds" % (len(T["waits"]), len(hs), sum(1 for h in hs if h["waits"]),
                                 len(TXS), len(SESSIONS), SAMPLER.rounds), file=sys.stderr)
