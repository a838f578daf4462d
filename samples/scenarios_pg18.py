#!/usr/bin/env python3
"""A small, deterministic lock workload for samples/pg18.sh (PostgreSQL 17/18
in a chroot), with client-side truth.

Usage: scenarios_pg18.py PORT TRUTH_JSON

Connects to 127.0.0.1:PORT, database lockspan, user postgres. Runs, one
after the other, each with its own sessions (application_name = the step):
  row_wait       B's UPDATE waits for A's row lock (transaction), A commits
  nowait         B's SELECT ... FOR UPDATE NOWAIT finds A's row locked: 55P03
                 (18's log_lock_failures logs the holder)
  deadlock       A and B lock rows 3 and 4 crosswise: B is the victim, 40P01
  relation_wait  B's SELECT waits for A's LOCK TABLE (a relation lock; the
                 wait message ends with the statement position)
  lock_timeout   B waits for A's row past lock_timeout: 55P03
  stmt_timeout   B's pg_sleep runs past statement_timeout: 57014
  serialization  A (REPEATABLE READ) updates a row B changed since A's
                 snapshot: 40001
The truth is what the clients saw: each session's backend pid
(pg_backend_pid()), the waits (waiter, blocker, lock target kind, how the
wait ended), the deadlock's edges and the SQLSTATE of every error a client
got. Nothing in it comes from the server log.
"""
import json
import sys
import threading
import time

import psycopg2
import psycopg2.extensions

# Long enough past deadlock_timeout (100 ms) that every wait is logged.
HOLD = 0.5


def connect(port, app):
    c = psycopg2.connect(host="127.0.0.1", port=port, dbname="lockspan", user="postgres",
                         application_name=app)
    c.autocommit = True
    return c


def pid_of(conn):
    with conn.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        return cur.fetchone()[0]


def run(conn, sql, errors, who):
    """Run sql; a server error is recorded (SQLSTATE) and not raised."""
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
    except psycopg2.Error as e:
        errors.append({"pid": who, "sqlstate": e.pgcode})
        return e.pgcode
    return None


def in_thread(conn, sql, errors, who):
    t = threading.Thread(target=run, args=(conn, sql, errors, who))
    t.start()
    return t


def main():
    port = int(sys.argv[1])
    truth = {"sessions": {}, "waits": [], "deadlock_edges": [], "errors": []}
    errors = truth["errors"]

    setup = connect(port, "setup")
    run(setup, "DROP TABLE IF EXISTS acct", errors, 0)
    run(setup, "CREATE TABLE acct (id int PRIMARY KEY, v int NOT NULL)", errors, 0)
    run(setup, "INSERT INTO acct SELECT g, 0 FROM generate_series(1, 10) g", errors, 0)
    setup.close()

    def pair(step):
        a, b = connect(port, step), connect(port, step)
        pa, pb = pid_of(a), pid_of(b)
        truth["sessions"][step] = {"a": pa, "b": pb}
        return a, b, pa, pb

    def wait(waiter, blocker, kind, outcome):
        truth["waits"].append({"pid": waiter, "blocker": blocker, "kind": kind,
                               "outcome": outcome})

    # row_wait
    a, b, pa, pb = pair("row_wait")
    run(a, "BEGIN; UPDATE acct SET v = v + 1 WHERE id = 1", errors, pa)
    t = in_thread(b, "UPDATE acct SET v = v + 1 WHERE id = 1", errors, pb)
    time.sleep(HOLD)
    run(a, "COMMIT", errors, pa)
    t.join()
    wait(pb, pa, "transaction", "acquired")
    a.close(), b.close()

    # nowait
    a, b, pa, pb = pair("nowait")
    run(a, "BEGIN; UPDATE acct SET v = v + 1 WHERE id = 2", errors, pa)
    run(b, "SELECT * FROM acct WHERE id = 2 FOR UPDATE NOWAIT", errors, pb)
    run(a, "COMMIT", errors, pa)
    truth["nowait"] = {"pid": pb, "holder": pa}
    a.close(), b.close()

    # deadlock: A waits first (its deadlock check finds no cycle yet), B
    # closes the cycle and its own check finds it: B is the victim.
    a, b, pa, pb = pair("deadlock")
    run(a, "BEGIN; UPDATE acct SET v = v + 1 WHERE id = 3", errors, pa)
    run(b, "BEGIN; UPDATE acct SET v = v + 1 WHERE id = 4", errors, pb)
    t = in_thread(a, "UPDATE acct SET v = v + 1 WHERE id = 4", errors, pa)
    time.sleep(HOLD)
    run(b, "UPDATE acct SET v = v + 1 WHERE id = 3", errors, pb)
    run(b, "ROLLBACK", errors, pb)
    t.join()
    run(a, "COMMIT", errors, pa)
    wait(pa, pb, "transaction", "acquired")
    wait(pb, pa, "transaction", "deadlock")
    truth["deadlock_edges"] = sorted([[pa, pb], [pb, pa]])
    a.close(), b.close()

    # relation_wait
    a, b, pa, pb = pair("relation_wait")
    run(a, "BEGIN; LOCK TABLE acct IN ACCESS EXCLUSIVE MODE", errors, pa)
    t = in_thread(b, "SELECT count(*) FROM acct", errors, pb)
    time.sleep(HOLD)
    run(a, "COMMIT", errors, pa)
    t.join()
    wait(pb, pa, "relation", "acquired")
    a.close(), b.close()

    # lock_timeout
    a, b, pa, pb = pair("lock_timeout")
    run(a, "BEGIN; UPDATE acct SET v = v + 1 WHERE id = 5", errors, pa)
    run(b, "SET lock_timeout = '400ms'", errors, pb)
    run(b, "UPDATE acct SET v = v + 1 WHERE id = 5", errors, pb)
    run(a, "COMMIT", errors, pa)
    wait(pb, pa, "transaction", "lock_timeout")
    a.close(), b.close()

    # stmt_timeout
    a, b, pa, pb = pair("stmt_timeout")
    run(b, "SET statement_timeout = '300ms'", errors, pb)
    run(b, "SELECT pg_sleep(1)", errors, pb)
    a.close(), b.close()

    # serialization
    a, b, pa, pb = pair("serialization")
    run(a, "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT v FROM acct WHERE id = 6", errors, pa)
    run(b, "UPDATE acct SET v = v + 1 WHERE id = 6", errors, pb)
    run(a, "UPDATE acct SET v = v + 1 WHERE id = 6", errors, pa)
    run(a, "ROLLBACK", errors, pa)
    a.close(), b.close()

    # Let the backends write their disconnection lines.
    time.sleep(HOLD)
    with open(sys.argv[2], "w") as f:
        json.dump(truth, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
