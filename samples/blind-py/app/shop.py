#!/usr/bin/python3
"""A small shop back end, as a team would write it: a psycopg2 connection
pool shared by worker threads serving four kinds of request.

  place_order  UPDATE stock (hot rows sku 1 and 2), INSERT an order whose trigger
               bumps the merchant's totals row (hot row merchant 1), then a
               slow partner call (sleep) inside the transaction, COMMIT.
  refund       SELECT apply_refund(...), a PL/pgSQL function whose INSERT
               fires the same trigger; mostly other merchants, so it rarely
               waits.
  transfer     PREPAREd UPDATEs of two account rows in request order (it
               can deadlock with itself); a deadlock victim is retried once.
  report_fix   REPEATABLE READ: read the stock, then correct sku 2's row;
               fails with 40001 when a place_order changed it meanwhile,
               and is retried (up to 3 attempts). Mostly a quiet sku, 30 %
               sku 2, which place_order also sells.

Every transaction's truth is recorded on the client side (code path,
backend pid, start, each statement's call and return, the row locks each
locking statement took, commit/rollback return, the error) and written as
JSON lines to the file named by --truth.
"""
import argparse
import json
import random
import threading
import time

import psycopg2
import psycopg2.pool

SCHEMA = """
CREATE TABLE stock (sku int PRIMARY KEY, qty int NOT NULL);
CREATE TABLE merchant_totals (merchant_id int PRIMARY KEY,
                              orders int NOT NULL DEFAULT 0,
                              amount numeric NOT NULL DEFAULT 0);
CREATE TABLE orders (id bigserial PRIMARY KEY, sku int, merchant_id int NOT NULL,
                     amount numeric NOT NULL, kind text NOT NULL,
                     created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE accounts (id int PRIMARY KEY, balance numeric NOT NULL);

CREATE FUNCTION bump_merchant_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE merchant_totals
       SET orders = orders + 1, amount = amount + NEW.amount
     WHERE merchant_id = NEW.merchant_id;
    RETURN NEW;
END $$;
CREATE TRIGGER orders_totals AFTER INSERT ON orders
    FOR EACH ROW EXECUTE FUNCTION bump_merchant_totals();

CREATE FUNCTION apply_refund(p_merchant int, p_amount numeric) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    v_id bigint;
BEGIN
    INSERT INTO orders (sku, merchant_id, amount, kind)
    VALUES (NULL, p_merchant, -p_amount, 'refund') RETURNING id INTO v_id;
    RETURN v_id;
END $$;

INSERT INTO stock SELECT g, 1000000 FROM generate_series(1, 20) g;
INSERT INTO merchant_totals (merchant_id) SELECT g FROM generate_series(1, 5) g;
INSERT INTO accounts SELECT g, 1000000 FROM generate_series(1, 4) g;
"""


class Truth:
    """Thread-safe sink of transaction records (JSON lines)."""

    def __init__(self, path):
        self.f = open(path, "w")
        self.lock = threading.Lock()

    def write(self, rec):
        with self.lock:
            self.f.write(json.dumps(rec) + "\n")

    def close(self):
        self.f.close()


def now():
    return time.time()


class Tx:
    """One database transaction attempt, as the client saw it."""

    def __init__(self, conn, path, attempt, request_id):
        self.conn = conn
        self.cur = conn.cursor()
        self.rec = {"path": path, "request": request_id, "attempt": attempt,
                    "pid": None, "start": now(),
                    "statements": [], "locks": [], "end": None,
                    "outcome": None, "sqlstate": None, "error": None}

    def execute(self, sql, params=None, locks=()):
        """Run one statement; LOCKS lists the (table, key) rows it locks.
        A lock is taken when the statement returns successfully."""
        st = {"sql": sql if params is None else self.cur.mogrify(sql, params).decode(),
              "call": now(), "ret": None, "error": None, "locks": list(locks)}
        self.rec["statements"].append(st)
        try:
            self.cur.execute(sql, params)
        except psycopg2.Error as e:
            st["ret"] = now()
            st["error"] = e.pgcode
            raise
        st["ret"] = now()
        for table, key in locks:
            self.rec["locks"].append({"table": table, "key": key,
                                      "taken": st["ret"],
                                      "stmt": len(self.rec["statements"]) - 1})
        return self.cur

    def commit(self):
        self.conn.commit()
        self.rec["end"] = now()
        self.rec["outcome"] = "commit"

    def rollback(self, err):
        self.conn.rollback()
        self.rec["end"] = now()
        self.rec["outcome"] = "rollback"
        self.rec["sqlstate"] = getattr(err, "pgcode", None)
        self.rec["error"] = str(err).splitlines()[0] if err else None


class Shop:
    def __init__(self, dsn, truth, workers, seed):
        self.pool = psycopg2.pool.ThreadedConnectionPool(workers, workers, dsn)
        self.truth = truth
        self.seed = seed
        self.prepared = set()          # connections with the transfer plan
        self.plock = threading.Lock()
        self.pids = {}

    def conn(self):
        c = self.pool.getconn()
        if id(c) not in self.pids:
            cur = c.cursor()
            cur.execute("SELECT pg_backend_pid()")
            self.pids[id(c)] = cur.fetchone()[0]
            c.commit()
        return c

    def run_tx(self, path, request_id, body, max_attempts, retry_on):
        """Run BODY(tx) in a transaction, retrying on the SQLSTATEs given."""
        for attempt in range(1, max_attempts + 1):
            c = self.conn()
            try:
                tx = Tx(c, path, attempt, request_id)
                tx.rec["pid"] = self.pids[id(c)]
                try:
                    body(tx)
                    tx.commit()
                    self.truth.write(tx.rec)
                    return True
                except psycopg2.Error as e:
                    tx.rollback(e)
                    self.truth.write(tx.rec)
                    if e.pgcode not in retry_on:
                        return False
                    time.sleep(random.uniform(0.01, 0.05))
            finally:
                self.pool.putconn(c)
        return False

    # ---- request kinds -------------------------------------------------
    def place_order(self, rnd, rid):
        x = rnd.random()
        sku = 1 if x < 0.65 else 2 if x < 0.9 else rnd.randint(3, 20)
        merchant = 1 if rnd.random() < 0.8 else rnd.randint(2, 5)
        amount = rnd.randint(5, 200)
        partner_s = rnd.uniform(0.10, 0.40)

        def body(tx):
            tx.execute("UPDATE stock SET qty = qty - %s WHERE sku = %s",
                       (1, sku), locks=[("stock", sku)])
            tx.execute("INSERT INTO orders (sku, merchant_id, amount, kind) "
                       "VALUES (%s, %s, %s, 'order') RETURNING id",
                       (sku, merchant, amount),
                       locks=[("merchant_totals", merchant)])
            tx.rec["partner_call"] = [now(), None]
            time.sleep(partner_s)           # partner API, inside the tx
            tx.rec["partner_call"][1] = now()
        self.run_tx("place_order", rid, body, 1, ())

    def refund(self, rnd, rid):
        merchant = 1 if rnd.random() < 0.1 else rnd.randint(2, 5)
        amount = rnd.randint(5, 50)

        def body(tx):
            tx.execute("SELECT apply_refund(%s, %s)", (merchant, amount),
                       locks=[("merchant_totals", merchant)])
        self.run_tx("refund", rid, body, 1, ())

    def transfer(self, rnd, rid):
        a, b = rnd.sample([1, 2, 3], 2)
        amount = rnd.randint(1, 100)

        def body(tx):
            key = id(tx.conn)
            if key not in self.prepared:
                # PREPARE is session state, outside any transaction
                tx.conn.cursor().execute(
                    "PREPARE move_money(numeric, int) AS "
                    "UPDATE accounts SET balance = balance + $1 WHERE id = $2")
                tx.conn.commit()
                self.prepared.add(key)
                tx.rec["start"] = now()
            tx.execute("EXECUTE move_money(%s, %s)", (-amount, a),
                       locks=[("accounts", a)])
            time.sleep(rnd.uniform(0.02, 0.12))   # fraud check
            tx.execute("EXECUTE move_money(%s, %s)", (amount, b),
                       locks=[("accounts", b)])
        self.run_tx("transfer", rid, body, 2, ("40P01",))

    def report_fix(self, rnd, rid):
        sku = 2 if rnd.random() < 0.3 else rnd.randint(3, 20)

        def body(tx):
            tx.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            tx.execute("SELECT sum(qty), count(*) FROM stock")
            time.sleep(rnd.uniform(0.05, 0.25))   # build the report
            tx.execute("UPDATE stock SET qty = qty + 0 WHERE sku = %s",
                       (sku,), locks=[("stock", sku)])
        self.run_tx("report_fix", rid, body, 3, ("40001",))

    KINDS = [("place_order", 0.45), ("refund", 0.20), ("transfer", 0.20),
             ("report_fix", 0.15)]

    def worker(self, n, deadline, counter):
        rnd = random.Random(self.seed * 1000 + n)
        while now() < deadline:
            x = rnd.random()
            for kind, p in self.KINDS:
                if x < p:
                    break
                x -= p
            with counter[1]:
                counter[0] += 1
                rid = counter[0]
            getattr(self, kind)(rnd, rid)
            time.sleep(rnd.uniform(0.05, 0.30))   # think time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--truth", required=True)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--schema", action="store_true")
    a = ap.parse_args()
    if a.schema:
        c = psycopg2.connect(a.dsn)
        c.autocommit = True
        c.cursor().execute(SCHEMA)
        c.close()
        return
    truth = Truth(a.truth)
    shop = Shop(a.dsn, truth, a.workers, a.seed)
    deadline = now() + a.seconds
    counter = [0, threading.Lock()]
    threads = [threading.Thread(target=shop.worker, args=(i, deadline, counter))
               for i in range(a.workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    shop.pool.closeall()
    truth.close()


if __name__ == "__main__":
    main()
