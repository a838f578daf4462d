#!/usr/bin/env python3
"""One trigger reached from two code paths, of which only one ever waits
(issue 34 item 3). Driven by samples/trigger-paths.sh.

Both paths INSERT INTO payments, whose BEFORE INSERT trigger updates the
merchant's row of merchant_totals (merchant 1's row is the hot counter).
Neither statement names merchant_totals: only a logged wait's CONTEXT
shows the trigger's UPDATE. Each path writes the INSERT its own way, as
two programs of one team do:

    checkout (psycopg 3, extended protocol: the log shows `execute
    <unnamed>: ...` and DETAIL `parameters: $1 = '1', $2 = '...'`):
      INSERT INTO payments (merchant_id, amount) VALUES ($1, $2)
        RETURNING extract(epoch FROM clock_timestamp())
    import (psycopg 3 ClientCursor: the simple protocol, values inlined,
    its own column order and a column of its own):
      INSERT INTO payments (source, amount, merchant_id)
        VALUES ('import', 120, 1) RETURNING extract(epoch FROM clock_timestamp())

- `checkout` (application_name shop-checkout): WORKERS concurrent
  connections, each BEGIN; the INSERT; 60-160 ms of rendering (a client
  sleep) holding the row; COMMIT. They queue on the counter row; waits over
  deadlock_timeout (100 ms) are logged, with the trigger's statement in
  CONTEXT.
- `import` (application_name ledger-import): one connection, and it runs
  only at quiet moments (the checkout workers are paused, and have all
  committed): it never waits, so no line of the log says what its
  INSERT locks. It holds the row 30-90 ms the same way.

Truth (truth.json), never from the server log: per transaction its path,
backend pid, the moment the trigger had the row (the statement's
RETURNING clock_timestamp(): a BEFORE trigger runs before RETURNING is
computed) and the release (COMMIT sent = released_lo, COMMIT returned =
released). Per path: transactions and the holds' count and total on
merchant_totals merchant_id=1.

Usage: scenarios_trigger_paths.py --port P --truth FILE [--duration S]
       [--seed N]
"""

import argparse
import json
import random
import sys
import threading
import time

import psycopg

WORKERS = 4                  # concurrent checkout connections
BUSY_S = (1.2, 1.8)          # a busy phase: checkouts run
QUIET_SETTLE_S = 0.15        # quiet phase: after the checkouts committed
IMPORTS_PER_QUIET = 2        # import transactions per quiet phase
CHECKOUT_HOLD_S = (0.06, 0.16)
IMPORT_HOLD_S = (0.03, 0.09)
HOT_MERCHANT = 1
OTHER_MERCHANT_EVERY = 5     # every 5th payment of a path is for merchant 2

SCHEMA = """
DROP TABLE IF EXISTS payments;
DROP TABLE IF EXISTS merchant_totals;
CREATE TABLE merchant_totals(merchant_id int PRIMARY KEY,
  total bigint NOT NULL DEFAULT 0, payments int NOT NULL DEFAULT 0);
INSERT INTO merchant_totals(merchant_id) SELECT g FROM generate_series(1, 3) g;
CREATE TABLE payments(id bigserial PRIMARY KEY, merchant_id int NOT NULL,
  amount int NOT NULL, source text NOT NULL DEFAULT 'shop',
  created_at timestamptz NOT NULL DEFAULT now());
CREATE FUNCTION bump_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE merchant_totals SET total = total + NEW.amount, payments = payments + 1
    WHERE merchant_id = NEW.merchant_id;
  RETURN NEW;
END $$;
CREATE TRIGGER payments_bump BEFORE INSERT ON payments
  FOR EACH ROW EXECUTE FUNCTION bump_totals();
"""

RETURNING = " RETURNING extract(epoch FROM clock_timestamp())"
PAY_SQL = {
    "checkout": "INSERT INTO payments (merchant_id, amount) VALUES (%s, %s)" + RETURNING,
    "import": "INSERT INTO payments (source, amount, merchant_id) VALUES ('import', %s, %s)"
              + RETURNING,
}

PATHS = {"checkout": "shop-checkout", "import": "ledger-import"}


def connect(args, app, client_side=False):
    kw = {"cursor_factory": psycopg.ClientCursor} if client_side else {}
    return psycopg.connect(host="127.0.0.1", port=args.port, user="postgres",
                           dbname=args.dbname, application_name=app, autocommit=True, **kw)


def one_payment(conn, path, merchant, hold_s, rng, out, lock):
    """BEGIN; the INSERT (its trigger locks the merchant's totals row);
    hold; COMMIT. Appends the transaction's truth to out."""
    cur = conn.cursor()
    pid = conn.info.backend_pid
    begin = time.time()
    cur.execute("BEGIN")
    sent = time.time()
    amount = rng.randint(1, 500)
    cur.execute(PAY_SQL[path], (merchant, amount) if path == "checkout" else (amount, merchant))
    locked_at = float(cur.fetchone()[0])
    returned = time.time()
    time.sleep(hold_s)
    released_lo = time.time()
    cur.execute("COMMIT")
    released = time.time()
    with lock:
        out.append({"path": path, "application": PATHS[path], "pid": pid,
                    "merchant_id": merchant, "begin": begin, "sent": sent,
                    "locked_at": locked_at, "returned": returned,
                    "released_lo": released_lo, "released": released})


def checkout_worker(args, idx, go, stop, out, lock, busy):
    rng = random.Random(args.seed * 100 + idx)
    conn = connect(args, PATHS["checkout"])
    n = 0
    while not stop.is_set():
        if not go.wait(0.05):
            continue
        with busy:
            busy[idx] = True
        if go.is_set() and not stop.is_set():
            n += 1
            merchant = 2 if n % OTHER_MERCHANT_EVERY == 0 else HOT_MERCHANT
            one_payment(conn, "checkout", merchant, rng.uniform(*CHECKOUT_HOLD_S), rng,
                        out, lock)
        with busy:
            busy[idx] = False
    conn.close()


class Busy(dict):
    """The workers in a transaction, under its own lock (with busy: ...)."""

    def __init__(self):
        super().__init__()
        self._lock = threading.Lock()

    def __enter__(self):
        self._lock.acquire()
        return self

    def __exit__(self, *exc):
        self._lock.release()

    def any(self):
        with self._lock:
            return any(self.values())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--dbname", default="lockspan")
    ap.add_argument("--truth", required=True)
    ap.add_argument("--duration", type=float, default=20.0)
    ap.add_argument("--seed", type=int, default=34)
    args = ap.parse_args()
    rng = random.Random(args.seed)

    with connect(args, "trigger-setup") as c:
        c.execute(SCHEMA)

    go, stop, lock, busy = threading.Event(), threading.Event(), threading.Lock(), Busy()
    out = []
    threads = [threading.Thread(target=checkout_worker,
                                args=(args, i, go, stop, out, lock, busy))
               for i in range(WORKERS)]
    for t in threads:
        t.start()
    imp = connect(args, PATHS["import"], client_side=True)
    n_import = 0
    end = time.time() + args.duration
    while time.time() < end:
        go.set()
        time.sleep(rng.uniform(*BUSY_S))
        go.clear()
        while busy.any():          # quiet: every checkout has committed
            time.sleep(0.005)
        time.sleep(QUIET_SETTLE_S)
        for _ in range(IMPORTS_PER_QUIET):
            n_import += 1
            merchant = 2 if n_import % OTHER_MERCHANT_EVERY == 0 else HOT_MERCHANT
            one_payment(imp, "import", merchant, rng.uniform(*IMPORT_HOLD_S), rng, out, lock)
        time.sleep(QUIET_SETTLE_S)
    stop.set()
    for t in threads:
        t.join()
    imp.close()

    out.sort(key=lambda r: r["locked_at"])
    paths = {}
    for p in PATHS:
        txs = [r for r in out if r["path"] == p]
        hot = [r for r in txs if r["merchant_id"] == HOT_MERCHANT]
        paths[p] = {"application": PATHS[p], "transactions": len(txs),
                    "hot_holds": len(hot),
                    "hot_total_ms": round(sum((r["released"] - r["locked_at"]) * 1000
                                              for r in hot), 1),
                    "hot_total_lo_ms": round(sum((r["released_lo"] - r["locked_at"]) * 1000
                                                 for r in hot), 1),
                    "waited_over_100ms": sum(1 for r in txs
                                             if (r["locked_at"] - r["sent"]) > 0.1)}
    truth = {"note": "times are seconds since the epoch (UTC); locked_at is the server's"
                     " clock_timestamp() once the trigger had the row, released the moment"
                     " COMMIT returned (released_lo: sent)",
             "hot_row": {"relation": "merchant_totals", "key": f"merchant_id={HOT_MERCHANT}"},
             "paths": paths, "transactions": out}
    with open(args.truth, "w") as f:
        json.dump(truth, f, indent=1)
    for p, v in paths.items():
        print(f"scenarios_trigger_paths: {p}: {v}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
