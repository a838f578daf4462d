#!/usr/bin/env python3
"""No silent loss, no forged evidence (issue 10), on the basic sample:

- CRLF line endings: the stderr, csvlog and jsonlog logs with every '\\n'
  made '\\r\\n' give the same raw tables as the originals (the deadlock
  included: its message was compared with "deadlock detected" exactly).
- A NUL byte inside a statement does not cut it: the text after it is
  stored, and the NUL is reported with file:line.
- A deadlock's process query that contains the text of a deadlock edge
  (`Process 99995 waits for ShareLock on transaction 1; blocked by process
  99996.`) and of a process line makes neither an edge nor a process; the
  real edges and processes stay (stderr and jsonlog).
- A hold's start_evidence says where its start came from: "end of the
  locking statement" starts exactly at that statement's end, "first wait
  for the holder's transaction" exactly at the first wait for its
  transaction on that row (samples/prefix-change, whose second half has
  whole-second times: three holds start earlier in the second than their
  statements' lines; their evidence once still named the statement).

Usage: check_evidence.py LOCKSPAN SAMPLE_DIR
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report
import storedump

FORGED_EDGE = "Process 99995 waits for ShareLock on transaction 1; blocked by process 99996."
FORGED_PROC = "Process 99995: SELECT 'forged'"


def ingest(ls, db, path):
    r = subprocess.run([ls, "ingest", "--db", db, path], capture_output=True, text=True)
    check(r.returncode == 0, f"ingest {os.path.basename(path)}: exit 0 ({r.stderr.strip()[:300]})")
    return r


def without_files(d):
    return {t: rows for t, rows in d.items() if t != "files"}


def main():
    ls, sample = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="lockspan-evidence.")
    try:
        # --- CRLF ---
        for name in ("postgresql.log", "postgresql.csv", "postgresql.json"):
            src = os.path.join(sample, name)
            data = open(src, "rb").read()
            crlf = os.path.join(tmp, "crlf-" + name)
            open(crlf, "wb").write(data.replace(b"\n", b"\r\n"))
            lf_db, crlf_db = os.path.join(tmp, "lf-" + name + ".db"), crlf + ".db"
            ingest(ls, lf_db, src)
            ingest(ls, crlf_db, crlf)
            a, b = storedump.dump(lf_db), storedump.dump(crlf_db)
            check(len(a["deadlocks"]) == 1 and len(a["statements"]) > 0,
                  f"{name}: the LF log has its deadlock and statements")
            check(without_files(a) == without_files(b),
                  f"{name}: CRLF endings give the same rows: {storedump.diff(a, b)}")

        # --- NUL byte inside a statement ---
        src = os.path.join(sample, "postgresql.log")
        lines = open(src, "rb").read().split(b"\n")
        k = next(i for i, l in enumerate(lines) if b"statement: UPDATE accounts" in l)
        lines[k] = lines[k].replace(b"UPDATE accounts", b"UPDATE\x00accounts", 1)
        nul = os.path.join(tmp, "nul.log")
        open(nul, "wb").write(b"\n".join(lines))
        db = os.path.join(tmp, "nul.db")
        r = ingest(ls, db, nul)
        check(f"nul.log:{k + 1}:" in r.stderr and "NUL" in r.stderr,
              f"NUL byte reported with file:line ({r.stderr.strip()[:200]})")
        con = sqlite3.connect(db)
        n = con.execute("SELECT count(*) FROM statements WHERE file_id = 1 AND line = ?"
                        " AND text LIKE 'UPDATE?accounts%'", (k + 1,)).fetchone()[0]
        con.close()
        check(n == 1, "NUL byte: the statement after it is kept (as '?')")

        # --- forged edge in a process's query: stderr ---
        lines = open(src, "rb").read().decode().split("\n")
        k = next(i for i, l in enumerate(lines) if l.startswith("\tProcess ") and ": " in l
                 and " waits for " not in l)
        lines[k] = lines[k] + " -- \n\t" + FORGED_EDGE + "\n\t" + FORGED_PROC
        forged = os.path.join(tmp, "forged.log")
        open(forged, "w").write("\n".join(lines))

        # --- and jsonlog ---
        jl = []
        for line in open(os.path.join(sample, "postgresql.json")):
            o = json.loads(line)
            if o.get("message") == "deadlock detected":
                parts = o["detail"].split("\n")
                q = next(i for i, p in enumerate(parts) if ": " in p and " waits for " not in p)
                parts[q] += " -- \n" + FORGED_EDGE + "\n" + FORGED_PROC
                o["detail"] = "\n".join(parts)
            jl.append(json.dumps(o))
        forged_json = os.path.join(tmp, "forged.json")
        open(forged_json, "w").write("\n".join(jl) + "\n")

        for path in (forged, forged_json):
            db = path + ".db"
            ingest(ls, db, path)
            con = sqlite3.connect(db)
            edges = con.execute("SELECT waiter_pid, blocker_pid FROM deadlock_edges"
                                " ORDER BY seq").fetchall()
            procs = con.execute("SELECT p.pid, (SELECT x.text FROM stmt_texts x"
                                " WHERE x.text_id = p.text_id) FROM deadlock_procs p").fetchall()
            con.close()
            name = os.path.basename(path)
            check(len(edges) == 2 and all(99995 not in e and 99996 not in e for e in edges),
                  f"{name}: the two real edges only: {edges}")
            check(len(procs) == 2 and all(p[0] != 99995 for p in procs),
                  f"{name}: the two real processes only: {[p[0] for p in procs]}")
            check(any(FORGED_EDGE in (p[1] or "") for p in procs),
                  f"{name}: the forged text stays in the query it belongs to")

        # --- a hold's start and its evidence agree ---
        change = os.path.join(os.path.dirname(os.path.abspath(sample)), "prefix-change", "1.log")
        db = os.path.join(tmp, "change.db")
        r = subprocess.run([ls, "analyze", "-q", "--db", db, "-o", os.path.join(tmp, "c.json"),
                            change], capture_output=True, text=True)
        check(r.returncode == 0, f"analyze prefix-change: exit 0 ({r.stderr.strip()[:300]})")
        con = sqlite3.connect(db)
        stmt_end = con.execute(
            "SELECT h.hold_id, h.start_ts, s.end_ts FROM holds h"
            " JOIN statements s ON s.stmt_id = h.lock_stmt"
            " WHERE h.start_evidence = 'end of the locking statement'"
            " AND h.start_ts IS NOT s.end_ts").fetchall()
        tx_wait = con.execute(
            "SELECT h.hold_id, h.start_ts, (SELECT min(w.start_ts) FROM lock_waits w"
            "  WHERE w.holder_tx = h.tx_id AND w.row_id = h.row_id"
            "  AND w.target_kind = 'transaction') AS first FROM holds h"
            " WHERE h.start_evidence = 'first wait for the holder''s transaction'").fetchall()
        con.close()
        check(not stmt_end, "every hold from the end of its locking statement starts there: "
              f"{stmt_end[:3]}")
        check(tx_wait and all(t[1] == t[2] for t in tx_wait),
              "holds from the first wait for the holder's transaction (some) start there: "
              f"{tx_wait[:3]}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report()


if __name__ == "__main__":
    sys.exit(main())
