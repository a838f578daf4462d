#!/usr/bin/env python3
"""Deadlock participants' holds (issue 34 item 5): two code paths
(application_name `transfer` and `payout`) that lock two hot rows of
`accounts` in opposite order and deadlock, each also locking a row of
`notes` nobody else waits for. Driven by samples/deadlock.sh.

Each round, both paths open a transaction and lock their side row
(notes), then their first account row (transfer: id=1, payout: id=2).
The round's victim then asks for the other's row first; GAP_S later the
survivor asks for the victim's row, closing the cycle. The victim's
deadlock check runs first (deadlock_timeout after its wait began), so it
gets 40P01; it sleeps ROLLBACK_DELAY (the application handling the
error) and sends ROLLBACK. The error aborted its transaction: PostgreSQL
released its locks then (AbortTransaction, at the error; the ROLLBACK only
ends the aborted block), so the victim held its side row and its first
account row until the error, not until its ROLLBACK, and the survivor gets
the victim's row at the error (its acquisition shows it). The survivor
holds both account rows and its side row until its COMMIT. Its wait
(deadlock_timeout - GAP_S) stays below deadlock_timeout: it is never
logged; the deadlock DETAIL names it. The roles alternate between rounds.
Between rounds each path also runs an uncontended transaction on one
account row: a hold of a hot row nobody queued behind.

Truth, from the client only: every row lock's acquisition (the locking
UPDATE's `RETURNING clock_timestamp()`, server clock on the same host,
evaluated after any wait) and release (COMMIT returned;
for the victim, its error returned), the failed statements (sent, error returned) and each
transaction's start and end.

Usage: scenarios_deadlock.py --port P --truth FILE [--rounds N]
"""

import argparse
import datetime
import json
import random
import sys
import threading
import time

import psycopg2
import psycopg2.errors

GAP_S = 0.45               # victim's cycle statement -> survivor's
ROLLBACK_DELAY = (0.25, 0.32)  # 40P01 returned -> ROLLBACK sent
COMMIT_DELAY = (0.05, 0.15)    # survivor's last lock -> COMMIT
SOLO_HOLD = (0.03, 0.09)       # uncontended hold of a hot row
# The rows each path locks first, by round parity: transfer is the victim
# on rows 1 and 2, payout on rows 3 and 4. The victim's wait is logged
# ("detected deadlock") on the survivor's row (2, 3); the survivor's, below
# deadlock_timeout, on the victim's row (1, 4) is named only by the
# deadlock's DETAIL.
FIRST_ROWS = ({"transfer": 1, "payout": 2}, {"transfer": 3, "payout": 4})
SIDE_BASE = {"transfer": 100, "payout": 200}


def iso(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%S.%fZ")


def connect(args, app):
    c = psycopg2.connect(host=args.host, port=args.port, user=args.user, dbname=args.dbname,
                         application_name=app)
    c.autocommit = True
    return c


class Session:
    """One code path's connection and what it did."""

    def __init__(self, args, path):
        self.path = path
        self.conn = connect(args, path)
        cur = self.conn.cursor()
        cur.execute("SELECT pg_backend_pid(), extract(epoch FROM backend_start)::float8"
                    " FROM pg_stat_activity WHERE pid = pg_backend_pid()")
        self.pid, bs = cur.fetchone()
        # elog.c: %c is "%lx.%x" of (time_t) MyStartTime and MyProcPid
        self.session_id = "%x.%x" % (int(bs), self.pid)
        self.holds, self.failed, self.txs = [], [], []
        self.tx = None

    def run(self, sql):
        cur = self.conn.cursor()
        t0 = time.time()
        cur.execute(sql)
        t1 = time.time()
        return t0, t1, cur

    def begin(self):
        t0, _, _ = self.run("BEGIN")
        self.tx = {"code_path": self.path, "session_id": self.session_id, "start": t0,
                   "locks": []}

    def lock(self, rel, col, key, sql):
        """The locking statement; the row is ours from its RETURNING
        clock_timestamp(), evaluated once the row is updated (after any
        wait for it)."""
        t0, t1, cur = self.run(sql + " RETURNING clock_timestamp()")
        at = cur.fetchone()[0].timestamp()
        self.tx["locks"].append({"relation": rel, "row_key": f"{col}={key}",
                                 "sql": sql, "sent": t0, "returned": t1, "acquired": at,
                                 "waited_ms": round((at - t0) * 1000, 3)})

    def fail(self, k, sql, rel, col, key):
        """A statement that must end in a deadlock error."""
        t0 = time.time()
        try:
            self.conn.cursor().execute(sql)
        except psycopg2.errors.DeadlockDetected:
            t1 = time.time()
            self.failed.append({"code_path": self.path, "session_id": self.session_id,
                                "pid": self.pid, "sqlstate": "40P01", "statement": sql,
                                "round": k,
                                "relation": rel, "row_key": f"{col}={key}",
                                "statement_start": t0, "statement_end": t1,
                                "tx": self.tx})
            # The error aborted the transaction: PostgreSQL released its
            # locks then (AbortTransaction), not at the ROLLBACK.
            self.tx["aborted_at"] = t1
            return
        raise RuntimeError(f"{self.path}: {sql} did not deadlock")

    def end(self, verb):
        t0, t1, _ = self.run(verb)
        self.tx.update(end_sent=t0, end=t1, outcome=verb.lower())
        released = self.tx.get("aborted_at", t1)
        for lk in self.tx["locks"]:
            self.holds.append({"code_path": self.path, "session_id": self.session_id,
                               "pid": self.pid, "relation": lk["relation"],
                               "row_key": lk["row_key"], "sql": lk["sql"],
                               "start": lk["acquired"], "end": released,
                               "ended_by": "error" if "aborted_at" in self.tx else verb,
                               "waited_ms": lk["waited_ms"]})
        self.txs.append(self.tx)
        self.tx = None


def upd_account(path, key):
    sign = "-" if path == "transfer" else "+"
    return f"UPDATE accounts SET balance = balance {sign} 1 WHERE id = {key}"


def upd_note(key):
    return f"UPDATE notes SET n = n + 1 WHERE id = {key}"


def victim_side(s, other_key, rng, go, closed, k):
    go.wait()
    s.fail(k, upd_account(s.path, other_key), "accounts", "id", other_key)
    closed.set()
    time.sleep(rng.uniform(*ROLLBACK_DELAY))
    s.end("ROLLBACK")


def survivor_side(s, other_key, rng, go):
    go.wait()
    time.sleep(GAP_S)
    s.lock("accounts", "id", other_key, upd_account(s.path, other_key))
    time.sleep(rng.uniform(*COMMIT_DELAY))
    s.end("COMMIT")


def one_round(k, sessions, rng):
    victim = sessions[k % 2]
    survivor = sessions[1 - k % 2]
    first_row = FIRST_ROWS[k % 2]
    for s in sessions:
        s.begin()
        side = SIDE_BASE[s.path] + k
        s.lock("notes", "id", side, upd_note(side))
        first = first_row[s.path]
        s.lock("accounts", "id", first, upd_account(s.path, first))
    go, closed = threading.Event(), threading.Event()
    errs = []

    def guarded(fn, *a):
        try:
            fn(*a)
        except Exception as e:       # recorded; the run fails
            errs.append(repr(e))

    tv = threading.Thread(target=guarded, args=(victim_side, victim,
                                                first_row[survivor.path], rng, go, closed, k))
    ts = threading.Thread(target=guarded, args=(survivor_side, survivor,
                                                first_row[victim.path], rng, go))
    tv.start()
    ts.start()
    go.set()
    tv.join()
    ts.join()
    if errs:
        raise RuntimeError("; ".join(errs))
    time.sleep(0.2)
    # Uncontended holds of the hot rows, one path after the other: its own
    # first row, or (every third round) the other path's.
    for s in sessions:
        key = first_row[s.path] if k % 3 else first_row[victim.path if s is survivor
                                                        else survivor.path]
        s.begin()
        s.lock("accounts", "id", key, upd_account(s.path, key))
        time.sleep(rng.uniform(*SOLO_HOLD))
        s.end("COMMIT")
        time.sleep(0.05)
    time.sleep(0.2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--user", default="postgres")
    ap.add_argument("--dbname", default="lockspan")
    ap.add_argument("--truth", required=True)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--seed", type=int, default=34)
    ap.add_argument("--set-name", default="deadlock")
    ap.add_argument("--log-mode", default="durations")
    args = ap.parse_args()
    rng = random.Random(args.seed)

    c = connect(args, "deadlock-setup")
    cur = c.cursor()
    cur.execute("CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL)")
    cur.execute("CREATE TABLE notes (id int PRIMARY KEY, n int NOT NULL)")
    cur.execute("INSERT INTO accounts SELECT g, 1000 FROM generate_series(1, 10) g")
    cur.execute("INSERT INTO notes SELECT g, 0 FROM generate_series(1, 400) g")
    c.close()

    sessions = [Session(args, "transfer"), Session(args, "payout")]
    for k in range(args.rounds):
        one_round(k, sessions, rng)
    for s in sessions:
        s.conn.close()

    # The victim's locks were released when its error aborted the
    # transaction: the client saw the error return, and saw the survivor
    # get the victim's row (its RETURNING clock_timestamp()), whichever
    # came first (the error's return can be scheduled late on a busy host).
    for s in sessions:
        for f in s.failed:
            mine = f"id={FIRST_ROWS[f['round'] % 2][s.path]}"
            got = [h["start"] for o in sessions if o is not s for h in o.holds
                   if h["row_key"] == mine and h["relation"] == "accounts"
                   and f["statement_start"] < h["start"] < f["tx"]["end"]]
            released = min([f["statement_end"]] + got)
            f["released"] = released
            for h in s.holds:
                if h["ended_by"] == "error" and h["end"] == f["statement_end"]:
                    h["end"] = released
    holds = sorted((h for s in sessions for h in s.holds), key=lambda h: h["start"])
    failed = [f for s in sessions for f in s.failed]
    hot = {("accounts", f"id={v}") for fr in FIRST_ROWS for v in fr.values()}
    per_path = {}
    for h in holds:
        if (h["relation"], h["row_key"]) not in hot:
            continue
        p = per_path.setdefault(h["code_path"], {"holds": 0, "hold_ms": 0.0})
        p["holds"] += 1
        p["hold_ms"] = round(p["hold_ms"] + (h["end"] - h["start"]) * 1000, 3)
    for h in holds:
        h["ms"] = round((h["end"] - h["start"]) * 1000, 3)
        h["start"], h["end"] = iso(h["start"]), iso(h["end"])
    out_failed = []
    for f in failed:
        tx = f["tx"]
        out_failed.append({k: v for k, v in f.items() if k != "tx"} | {
            "statement_start": iso(f["statement_start"]), "statement_end": iso(f["statement_end"]),
            "released": iso(f["released"]),
            "tx_start": iso(tx["start"]), "rollback_sent": iso(tx["end_sent"]),
            "tx_end": iso(tx["end"])})
    truth = {
        "set": args.set_name, "log_mode": args.log_mode, "rounds": args.rounds,
        "hot_rows": sorted(f"{r} {k}" for r, k in hot),
        "sessions": [{"code_path": s.path, "pid": s.pid, "session_id": s.session_id}
                     for s in sessions],
        "per_code_path": per_path,
        "holds": holds,
        "failed": out_failed,
    }
    with open(args.truth, "w") as f:
        json.dump(truth, f, indent=1)
    print(f"scenarios_deadlock: {len(holds)} holds, {len(failed)} deadlocks, per path"
          f" {per_path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
