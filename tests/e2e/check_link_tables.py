#!/usr/bin/env python3
"""One writer per table (issue 33): the "transactions and holds" and
"retries" passes write what they link to waits, lock errors and deadlock
processes into tables of their own (wait_links, error_links, retries,
deadlock_links), which the views lock_waits and errors_linked join in;
the rows ingest wrote and the wait episodes stay as they were written.

1. Correlation leaves the raw rows alone: every row and column of errors
   and deadlock_procs is the same after ingest and after correlation, and
   lock_wait_rows' old link columns stay NULL.
2. The links are in the pass's tables, one row per wait, lock error and
   deadlock process, and the views give them.
3. A store of schema version 12 (made from a new one: no link tables,
   errors and deadlock_procs with their old link columns, lock_waits a view
   of lock_wait_rows alone, no final holds and rows tables) is brought to
   the current version (16) when opened and gives the same report as the
   store analyzed anew.

The log is samples/realistic (a real server's: waits, a deadlock, lock
errors and a retry).

Usage: check_link_tables.py LOCKSPAN SAMPLES_DIR
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

REPORT_ARGS = ["--format", "json", "--top", "1000", "--generated-at", "2026-12-02T00:00:00Z"]

# lock_wait_rows' columns that the links pass wrote before schema 13
OLD_WAIT_LINKS = ("waiter_tx", "holder_pid", "holder_tx", "blocker_tx", "root_tx")

# What a version 12 store had where version 13 has the link tables (and
# version 14 the final holds and rows tables, version 15 row_rules.target,
# version 16 stmt_stats, logcover and the code paths' path_sets).
TO_V12 = """
DROP VIEW holds;
DROP VIEW lock_waits; DROP VIEW errors_linked;
DROP TABLE wait_links; DROP TABLE error_links; DROP TABLE retries;
DROP TABLE deadlock_links; DROP TABLE span_placement;
ALTER TABLE errors ADD COLUMN tx_id INTEGER; ALTER TABLE errors ADD COLUMN wait_id INTEGER;
ALTER TABLE errors ADD COLUMN cause_tx INTEGER; ALTER TABLE errors ADD COLUMN retry_stmt INTEGER;
ALTER TABLE errors ADD COLUMN retry_tx INTEGER; ALTER TABLE errors ADD COLUMN retry_outcome TEXT;
ALTER TABLE deadlock_procs ADD COLUMN session_id INTEGER;
ALTER TABLE deadlock_procs ADD COLUMN tx_id INTEGER;
CREATE VIEW lock_waits AS SELECT * FROM lock_wait_rows;
CREATE TABLE rows_old AS SELECT * FROM rows; DROP VIEW rows;
DROP TABLE hold_final; DROP TABLE hold_final_evidence; DROP TABLE row_final;
DROP TABLE row_keys; DROP TABLE row_holds; DROP TABLE row_queue_peaks;
DROP TABLE row_hidden; ALTER TABLE rows_old RENAME TO rows;
DROP TABLE tx_cuts; ALTER TABLE stmt_texts DROP COLUMN kind;
ALTER TABLE stmt_texts DROP COLUMN writes;
ALTER TABLE row_rules DROP COLUMN target; ALTER TABLE row_rules DROP COLUMN target_col;
DROP TABLE rule_keyed; ALTER TABLE transactions DROP COLUMN cut_shape;
DROP TABLE stmt_stats; DROP TABLE logcover; DELETE FROM meta WHERE key = 'stmt_stats';
DROP VIEW tx_code; DROP TABLE path_sets; DROP TABLE path_names;
ALTER TABLE tx_code_rows DROP COLUMN path_set; DROP INDEX row_queue_row;
ALTER TABLE transactions DROP COLUMN first_pos;
PRAGMA user_version = 12;
"""


def lockspan(ls, *args):
    p = subprocess.run([ls, *args], capture_output=True, text=True, check=False)
    check(p.returncode == 0, f"lockspan {' '.join(args[:3])}: exit {p.returncode} {p.stderr}")


def raw(db):
    """errors and deadlock_procs, every row and column, in rowid order."""
    con = sqlite3.connect(db)
    out = {t: con.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall()
           for t in ("errors", "deadlock_procs")}
    con.close()
    return out


def one(db, sql):
    con = sqlite3.connect(db)
    r = con.execute(sql).fetchone()
    con.close()
    return r


def main():
    ls, samples = sys.argv[1], sys.argv[2]
    log = os.path.join(samples, "realistic", "postgresql.log")
    with open(os.path.join(samples, "realistic", "prefix.txt"), encoding="utf-8") as f:
        prefix = f.read().rstrip("\n")
    tmp = tempfile.mkdtemp(prefix="lockspan-links.")
    try:
        db = os.path.join(tmp, "s.db")
        lockspan(ls, "ingest", "-q", "--db", db, "--prefix", prefix, log)
        before = raw(db)
        fresh = os.path.join(tmp, "fresh.json")
        lockspan(ls, "report", "-q", "--db", db, *REPORT_ARGS, "-o", fresh)

        # 1. raw rows as ingest wrote them
        after = raw(db)
        for t in before:
            check(before[t] and before[t] == after[t],
                  f"{t}: {len(before[t])} rows, unchanged by correlation")
        old = one(db, "SELECT count(*), " + ", ".join(f"count({c})" for c in OLD_WAIT_LINKS)
                  + " FROM lock_wait_rows")
        check(old[0] > 0 and not any(old[1:]),
              f"lock_wait_rows' old link columns stay NULL ({old})")

        # 2. the links, in the pass's own tables, through the views
        n = one(db, "SELECT (SELECT count(*) FROM lock_wait_rows),"
                    " (SELECT count(*) FROM wait_links),"
                    " (SELECT count(*) FROM wait_links WHERE holder_tx IS NOT NULL),"
                    " (SELECT count(*) FROM lock_waits w JOIN wait_links l USING (wait_id)"
                    "  WHERE w.holder_tx IS l.holder_tx AND w.waiter_tx IS l.waiter_tx"
                    "  AND w.root_tx IS l.root_tx AND w.blocker_tx IS l.blocker_tx)")
        check(n[0] > 0 and n[0] == n[1] == n[3] and n[2] > 0,
              f"a wait_links row per wait, lock_waits giving its links ({n})")
        e = one(db, "SELECT (SELECT count(*) FROM errors WHERE class <> 'other'),"
                    " (SELECT count(*) FROM error_links),"
                    " (SELECT count(*) FROM errors_linked WHERE cause_tx IS NOT NULL),"
                    " (SELECT count(*) FROM errors_linked WHERE retry_outcome IS NOT NULL),"
                    " (SELECT count(*) FROM retries), (SELECT count(*) FROM errors),"
                    " (SELECT count(*) FROM errors_linked)")
        check(e[0] > 0 and e[0] == e[1] and e[2] > 0 and e[3] > 0 and e[3] == e[4]
              and e[5] == e[6], f"an error_links row per lock error, causes and retries ({e})")
        d = one(db, "SELECT (SELECT count(DISTINCT deadlock_id || '/' || pid) FROM deadlock_procs),"
                    " (SELECT count(*) FROM deadlock_links WHERE session_id IS NOT NULL"
                    "  AND tx_id IS NOT NULL)")
        check(d[0] > 0 and d[0] == d[1], f"each deadlock process's session and transaction ({d})")

        # 3. a version 12 store brought forward
        con = sqlite3.connect(db)
        con.executescript(TO_V12)
        con.close()
        upgraded = os.path.join(tmp, "upgraded.json")
        lockspan(ls, "report", "-q", "--db", db, *REPORT_ARGS, "-o", upgraded)
        check(one(db, "PRAGMA user_version") == (20,), "the store is at version 20")
        # The step to 14 notes that the server's work in the store's files
        # was not read (meta server_events_from_file): context_not_kept says
        # so first, and the report is otherwise the fresh one's.
        with open(fresh, encoding="utf-8") as a, open(upgraded, encoding="utf-8") as b:
            fj, uj = json.load(a), json.load(b)
        nk = uj.get("context_not_kept") or []
        check(nk[:1] and "before schema 14 was not read" in nk[0],
              f"the upgraded store's report says its files' server work was not read: {nk}")
        uj["context_not_kept"] = nk[1:]
        check(fj == uj, "the upgraded store's report is the fresh one's")
    finally:
        shutil.rmtree(tmp)
    return report()


if __name__ == "__main__":
    sys.exit(main())
