#!/usr/bin/env python3
"""Crash safety of ingest (issue 10): kill -9 at random points, then rerun,
gives the store of an uninterrupted ingest.

Inputs: a larger stderr log (the correlation sample repeated, each copy a
day later), the sample's csvlog, the RDS-prefixed log (no %c) and the
pg_stat_activity snapshots: four runs of the ingest, each committed with
its files' resume points. `lockspan ingest` into one store is killed with
SIGKILL at KILLS random points (seeded, printed): half at a random time
within the length of an uninterrupted ingest, half when the store file
reaches a random size; after each kill `report` must refuse the store as
incomplete unless the run had finished. A last ingest runs to the end; the
store's raw tables (storedump.py) must equal those of one uninterrupted
ingest, and report must then work.

Usage: check_crash.py LOCKSPAN SAMPLES_DIR [KILLS] [SEED]
"""
import datetime
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from lscheck import check, report
import storedump

STAMP = re.compile(rb"^(\d{4}-\d\d-\d\d) ", re.M)


def shifted(data, days):
    """`data` with the date at the start of each line moved on by `days`."""
    def move(m):
        d = datetime.date.fromisoformat(m.group(1).decode()) + datetime.timedelta(days=days)
        return d.isoformat().encode() + b" "
    return STAMP.sub(move, data)


def main():
    ls, samples = sys.argv[1], sys.argv[2]
    kills = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else int(time.time())
    print(f"seed {seed}, {kills} kills")
    rnd = random.Random(seed)
    tmp = tempfile.mkdtemp(prefix="lockspan-crash.")
    try:
        corr = os.path.join(samples, "correlation")
        big = os.path.join(tmp, "big.log")
        data = open(os.path.join(corr, "postgresql.log"), "rb").read()
        with open(big, "wb") as f:
            for day in range(60):
                f.write(shifted(data, day))
        inputs = [big, os.path.join(corr, "postgresql.csv"),
                  os.path.join(samples, "rds", "postgresql.log"),
                  os.path.join(corr, "pg_stat_activity.csv")]

        clean_db = os.path.join(tmp, "clean.db")
        t0 = time.time()
        r = subprocess.run([ls, "ingest", "-q", "--db", clean_db, *inputs],
                           capture_output=True, text=True)
        span = time.time() - t0
        check(r.returncode == 0, f"uninterrupted ingest: exit 0 ({r.stderr.strip()[:300]})")
        clean = storedump.dump(clean_db)
        print(f"uninterrupted ingest: {span:.2f} s, rows {storedump.counts(clean)}")

        final_size = os.path.getsize(clean_db)

        def killed_run(db, at, size=None):
            """Start an ingest into `db`, SIGKILL it `at` s later, or once the
            store has `size` bytes; True when it was killed."""
            p = subprocess.Popen([ls, "ingest", "-q", "--db", db, *inputs],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if size is None:
                time.sleep(at)
            else:
                while p.poll() is None and not (os.path.exists(db) and
                                                os.path.getsize(db) >= size):
                    time.sleep(0.0005)
            running = p.poll() is None
            if running:
                p.send_signal(signal.SIGKILL)
            _, err = p.communicate()
            if not running:
                check(p.returncode == 0, f"run not killed: exit 0 (got {p.returncode}: "
                                         f"{err.decode(errors='replace').strip()[:300]})")
            return running and p.returncode == -signal.SIGKILL

        def check_refused(db, what):
            if not os.path.exists(db):
                return  # killed before the store was created: nothing to report from
            r = subprocess.run([ls, "report", "--db", db, "-o", os.devnull],
                               capture_output=True, text=True)
            if r.returncode == 0:
                # Killed after its last write: the store must then be whole.
                got = storedump.dump(db)
                check(got == clean, f"{what}: report accepted the store, so it must be "
                                    f"whole: {storedump.diff(got, clean)}")
            else:
                check("did not finish" in r.stderr,
                      f"{what}: report refuses the store as incomplete "
                      f"(got {r.returncode}: {r.stderr.strip()[:200]})")

        def rerun_and_compare(db, what):
            r = subprocess.run([ls, "ingest", "-q", "--db", db, *inputs], capture_output=True,
                               text=True)
            check(r.returncode == 0, f"{what}: rerun exit 0 ({r.stderr.strip()[:300]})")
            got = storedump.dump(db)
            check(got == clean, f"{what}: store after the rerun = uninterrupted store: "
                                f"{storedump.diff(got, clean)}")
            r = subprocess.run([ls, "report", "--db", db, "-o", os.devnull],
                               capture_output=True, text=True)
            check(r.returncode == 0, f"{what}: report on the completed store ({r.stderr.strip()})")

        # Each kill point on a fresh store, then one rerun.
        killed = 0
        for i in range(kills):
            # Half the kills at a random time, half when the store reaches a
            # random size (mid-way whatever the machine's speed).
            at = rnd.uniform(0, span)
            size = rnd.randint(1, final_size) if i % 2 else None
            db = os.path.join(tmp, f"crash{i}.db")
            what = f"kill {i} " + (f"at {size} bytes" if size else f"at {at:.3f} s")
            if killed_run(db, at, size):
                killed += 1
                check_refused(db, what)
            rerun_and_compare(db, what)
            os.unlink(db)
        print(f"{killed} of {kills} runs killed mid-way")
        check(killed >= kills // 3, f"at least a third of the runs were killed mid-way ({killed})")

        # Kill after kill into one store until a run completes, then rerun.
        db = os.path.join(tmp, "repeated.db")
        n = 0
        while n < kills and killed_run(db, rnd.uniform(0, span / 2)):
            n += 1
            check_refused(db, f"repeated kill {n}")
        print(f"{n} kills in a row into one store")
        rerun_and_compare(db, f"after {n} kills in a row")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report()


if __name__ == "__main__":
    sys.exit(main())
