#!/usr/bin/env python3
"""Client of samples/context.sh: a lock wait, a CHECKPOINT, a sort that
spills to a temporary file and enough updates for autovacuum, on a real
server. Writes the truth (what the client did, with UTC times) as JSON.

Usage: scenarios_context.py --port N --truth FILE
"""
import argparse
import datetime
import json
import threading
import time

import psycopg2

ROWS = 20000          # rows of the table the sort and the updates read
UPDATE_ROUNDS = 3     # full-table updates: dead rows for autovacuum
AUTOVACUUM_WAIT = 60  # seconds at most to wait for autovacuum to log
HOLD_S = 1.0          # how long the blocker holds the row
MINUTE_S = 60
COUNTS = ("SELECT autovacuum_count, autoanalyze_count FROM pg_stat_user_tables"
          " WHERE relname = 'item'")


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat()


def connect(port, app):
    c = psycopg2.connect(host="127.0.0.1", port=port, dbname="lockspan", user="postgres",
                         application_name=app)
    return c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--truth", required=True)
    a = ap.parse_args()
    truth = {"rows": ROWS, "update_rounds": UPDATE_ROUNDS}
    setup = connect(a.port, "setup")
    setup.autocommit = True
    cur = setup.cursor()
    cur.execute("CREATE TABLE item(id int PRIMARY KEY, v int, pad text)")
    cur.execute("INSERT INTO item SELECT g, 0, repeat('x', 40) FROM generate_series(1, %s) g",
                (ROWS,))

    # A lock wait: the blocker holds row 1, the waiter updates it.
    blocker, waiter = connect(a.port, "blocker"), connect(a.port, "waiter")
    bc = blocker.cursor()
    bc.execute("UPDATE item SET v = v + 1 WHERE id = 1")
    bc.execute("SELECT pg_backend_pid()")
    truth["blocker_pid"] = bc.fetchone()[0]
    wc = waiter.cursor()
    wc.execute("SELECT pg_backend_pid()")
    truth["waiter_pid"] = wc.fetchone()[0]
    t = threading.Thread(target=lambda: (wc.execute("UPDATE item SET v = v + 1 WHERE id = 1"),
                                         waiter.commit()))
    truth["wait_start"] = now()
    t.start()
    time.sleep(HOLD_S)
    blocker.commit()
    t.join()
    truth["wait_end"] = now()
    blocker.close()
    waiter.close()

    # The server's work in the next minute, so that the per-minute counts
    # have two minutes to tell apart.
    t0 = time.time()
    time.sleep(MINUTE_S - t0 % MINUTE_S + 1)

    # A checkpoint the client asked for.
    truth["checkpoint_at"] = now()
    cur.execute("CHECKPOINT")
    truth["checkpoints_requested"] = 1

    # A sort that spills: work_mem 64kB and 20000 rows of 50 bytes.
    cur.execute("SET work_mem = '64kB'")
    truth["sort_at"] = now()
    cur.execute("SELECT id FROM item ORDER BY pad || v::text DESC")
    cur.fetchall()
    cur.execute("RESET work_mem")
    truth["spilling_sorts"] = 1

    # Dead rows for autovacuum, then wait until it has vacuumed and
    # analyzed the table once more than before them (the INSERT above may
    # have had its own autovacuum already).
    cur.execute(COUNTS)
    vac0, ana0 = cur.fetchone()
    truth["autovacuum_before_updates"], truth["autoanalyze_before_updates"] = vac0, ana0
    truth["updates_at"] = now()
    for _ in range(UPDATE_ROUNDS):
        cur.execute("UPDATE item SET v = v + 1")
    deadline = time.time() + AUTOVACUUM_WAIT
    while time.time() < deadline:
        cur.execute(COUNTS)
        vac, ana = cur.fetchone()
        if vac > vac0 and ana > ana0:
            break
        time.sleep(0.5)
    truth["autovacuum_count"], truth["autoanalyze_count"] = vac, ana
    truth["end"] = now()
    setup.close()
    with open(a.truth, "w") as f:
        json.dump(truth, f, indent=1)


if __name__ == "__main__":
    main()
