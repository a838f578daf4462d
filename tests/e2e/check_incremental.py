#!/usr/bin/env python3
"""Incremental ingest (issue 10): a nightly job re-ingesting overlapping
logs leaves the same store as one clean ingest of the whole log.

For real sample logs (stderr with %c, stderr without %c (RDS prefix),
csvlog, jsonlog, and a pg_stat_activity snapshot file) the log is cut at a
record boundary into a "first half"; then, into one store: the half, the
whole file under the same name (grown), the same again, a renamed copy, its
logrotate copy (.log.1), its .gz, the half again. Another store takes the
half gzip-compressed, then the whole plain file. Each store's raw tables
(storedump.py: sessions, statements, lock_events, deadlocks and their edges
and processes, errors, bad lines, activity, files) must equal those of one
clean ingest of the whole file; no run may fail. Also: a log in which a
`connection received` line appears twice (and three times) is analyzed
without a store error.

Usage: check_incremental.py LOCKSPAN SAMPLES_DIR
"""
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile

from lscheck import check, report
import storedump

# A line that begins a record: a prefix line whose message is not a
# secondary field of the record before it.
SECONDARY = re.compile(rb"(DETAIL|STATEMENT|HINT|CONTEXT|QUERY|LOCATION):  ")


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True)


def cut_half(data, fmt):
    """The first half of `data`, cut before a line that starts a record."""
    lines = data.split(b"\n")
    n = len(lines) // 2
    while n < len(lines):
        line = lines[n]
        if fmt == "stderr":
            ok = re.match(rb"^\d{4}-\d\d-\d\d ", line) and not SECONDARY.search(line[:200])
        elif fmt == "csvlog":
            ok = re.match(rb'^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ [A-Z]+,', line)
        else:  # one record per line
            ok = True
        if ok:
            break
        n += 1
    assert 0 < n < len(lines)
    return b"\n".join(lines[:n]) + b"\n"


def main():
    ls, samples = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="lockspan-incr.")
    cases = [
        ("correlation/postgresql.log", "stderr"),
        ("rds/postgresql.log", "stderr"),
        ("correlation/postgresql.csv", "csvlog"),
        ("correlation/postgresql.json", "jsonlog"),
        ("correlation/pg_stat_activity.csv", "activity"),
    ]
    try:
        for rel, fmt in cases:
            src = os.path.join(samples, rel)
            data = open(src, "rb").read()
            name = os.path.basename(src)
            d = os.path.join(tmp, rel.replace("/", "_"))
            os.mkdir(d)
            whole = os.path.join(d, name)
            half = os.path.join(d, "half-" + name)
            open(half, "wb").write(cut_half(data, fmt))

            def ingest(db, *paths):
                r = run(ls, "ingest", "-q", "--db", db, *paths)
                check(r.returncode == 0,
                      f"{rel}: ingest {[os.path.basename(p) for p in paths]} exit 0 "
                      f"(got {r.returncode}: {r.stderr.strip()[:300]})")
                return r

            clean_db = os.path.join(d, "clean.db")
            shutil.copy(src, whole)
            ingest(clean_db, whole)
            clean = storedump.dump(clean_db)
            check(sum(storedump.counts(clean).values()) > 0, f"{rel}: clean ingest stores rows")

            # Into one store: half, then the file as it grew, then copies of it.
            db = os.path.join(d, "incr.db")
            grow = os.path.join(d, "grow-" + name)
            shutil.copy(half, grow)
            ingest(db, grow)
            half_counts = storedump.counts(storedump.dump(db))
            check(half_counts != storedump.counts(clean),
                  f"{rel}: the half holds fewer rows than the whole")
            shutil.copy(src, grow)  # the log grew
            ingest(db, grow)
            got = storedump.dump(db)
            check(got == clean, f"{rel}: half then grown file = clean ingest: "
                                f"{storedump.diff(got, clean)}")
            renamed = os.path.join(d, "renamed-" + name)
            rotated = os.path.join(d, name + ".1")
            gz = os.path.join(d, name + ".1.gz")
            shutil.copy(src, renamed)
            shutil.copy(src, rotated)
            with open(src, "rb") as fi, gzip.open(gz, "wb") as fo:
                fo.write(fi.read())
            for again in (grow, renamed, rotated, gz, half):
                ingest(db, again)
                got = storedump.dump(db)
                check(got == clean, f"{rel}: + {os.path.basename(again)} = clean ingest: "
                                    f"{storedump.diff(got, clean)}")
            # All of them on one command line, into a fresh store.
            db3 = os.path.join(d, "all.db")
            ingest(db3, half, grow, renamed, gz)
            got = storedump.dump(db3)
            check(got == clean, f"{rel}: half + copies in one run = clean ingest: "
                                f"{storedump.diff(got, clean)}")

            # The half compressed, then the whole plain file.
            db2 = os.path.join(d, "gz.db")
            halfgz = half + ".gz"
            with open(half, "rb") as fi, gzip.open(halfgz, "wb") as fo:
                fo.write(fi.read())
            ingest(db2, halfgz)
            ingest(db2, whole)
            got = storedump.dump(db2)
            check(got == clean, f"{rel}: half.gz then whole = clean ingest: "
                                f"{storedump.diff(got, clean)}")

        # A log first ingested when it had one line, then grown.
        src = os.path.join(samples, "correlation/postgresql.log")
        data = open(src, "rb").read()
        one = os.path.join(tmp, "one.log")
        open(one, "wb").write(data[:data.index(b"\n") + 1])
        db = os.path.join(tmp, "one.db")
        r1 = run(ls, "ingest", "-q", "--prefix", "%m [%p] %q%u@%d/%a %c %l %v %x %e ",
                 "--db", db, one)
        open(one, "wb").write(data)
        r2 = run(ls, "ingest", "-q", "--prefix", "%m [%p] %q%u@%d/%a %c %l %v %x %e ",
                 "--db", db, one)
        clean_db = os.path.join(tmp, "one-clean.db")
        r3 = run(ls, "ingest", "-q", "--prefix", "%m [%p] %q%u@%d/%a %c %l %v %x %e ",
                 "--db", clean_db, src)
        check(r1.returncode == r2.returncode == r3.returncode == 0,
              f"one line, then grown: exit 0 ({r1.stderr} {r2.stderr} {r3.stderr})")
        got, clean = storedump.dump(db), storedump.dump(clean_db)
        check(got == clean, f"one line, then grown = clean ingest: {storedump.diff(got, clean)}")

        # A nightly job that ran right after the server started: the log had
        # only lines of processes without a session, which %q cuts short, so
        # the prefix inferred from them is '%m [%p] '. Read on, the session
        # lines do not match it: the prefix is inferred again from them, as
        # after a change in mid-file, and nothing is lost.
        src = os.path.join(samples, "basic/postgresql.log")
        data = open(src, "rb").read()
        lines = data.split(b"\n")
        n = next(i for i, line in enumerate(lines) if b"connection received" in line)
        early = os.path.join(tmp, "early.log")
        open(early, "wb").write(b"\n".join(lines[:n]) + b"\n")
        db = os.path.join(tmp, "early.db")
        r1 = run(ls, "ingest", "--db", db, early)
        open(early, "wb").write(data)
        r2 = run(ls, "ingest", "--db", db, early)
        clean_db = os.path.join(tmp, "early-clean.db")
        r3 = run(ls, "ingest", "-q", "--db", clean_db, src)
        check(r1.returncode == r2.returncode == r3.returncode == 0,
              f"started, then grown: exit 0 ({r1.stderr} {r2.stderr} {r3.stderr})")
        check("inferred log_line_prefix '%m [%p] '" in r1.stderr,
              f"started: only the postmaster's prefix to infer from: {r1.stderr.strip()}")
        check(" 0 unparsable lines" in r2.stderr,
              f"started, then grown: every line read on: {r2.stderr.strip()[-300:]}")
        got, clean = storedump.dump(db), storedump.dump(clean_db)
        check(got == clean, f"started, then grown = clean ingest: {storedump.diff(got, clean)}")

        # Read while the server was writing its last line (no newline yet):
        # that line waits for the next ingest instead of being stored twice.
        for rel, fmt in cases[:4]:
            src = os.path.join(samples, rel)
            data = open(src, "rb").read()
            half = cut_half(data, fmt)
            live = os.path.join(tmp, "live-" + os.path.basename(src))
            open(live, "wb").write(half + data[len(half):len(half) + 40])
            db = os.path.join(tmp, "live-" + os.path.basename(src) + ".db")
            r1 = run(ls, "ingest", "--db", db, live)
            check(r1.returncode == 0 and "no newline yet" in r1.stderr,
                  f"{rel} cut mid-line: exit 0, the partial line named ({r1.stderr.strip()[-200:]})")
            open(live, "wb").write(data)
            ingest(db, live)
            clean_db = os.path.join(tmp, "live-clean-" + os.path.basename(src) + ".db")
            ingest(clean_db, src)
            got, clean = storedump.dump(db), storedump.dump(clean_db)
            check(got == clean, f"{rel} cut mid-line, then whole = clean ingest: "
                                f"{storedump.diff(got, clean)}")

        # Two different snapshot files with the same header line, the second
        # shorter: both are read (neither is taken for a copy of the other).
        src = os.path.join(samples, "correlation/pg_stat_activity.csv")
        lines = open(src, "rb").read().split(b"\n")
        a, b = os.path.join(tmp, "snap-a.csv"), os.path.join(tmp, "snap-b.csv")
        open(a, "wb").write(b"\n".join([lines[0]] + lines[1:150]) + b"\n")
        open(b, "wb").write(b"\n".join([lines[0]] + lines[200:240]) + b"\n")

        def activity_rows(db):
            return storedump.counts(storedump.dump(db))["activity"]
        for p in (a, b):
            run(ls, "ingest", "-q", "--db", p + ".db", p)
        both = os.path.join(tmp, "snap-both.db")
        run(ls, "ingest", "-q", "--db", both, a)
        run(ls, "ingest", "-q", "--db", both, b)
        na, nb, nboth = activity_rows(a + ".db"), activity_rows(b + ".db"), activity_rows(both)
        check(na > 0 and nb > 0 and nboth == na + nb,
              f"two snapshot files with one header: {na} + {nb} rows = {nboth}")

        # A duplicated `connection received` line (twice, three times).
        src = os.path.join(samples, "rds/postgresql.log")
        lines = open(src, "rb").read().split(b"\n")
        i = next(k for k, l in enumerate(lines) if b"connection received" in l)
        for copies in (2, 3):
            dup = os.path.join(tmp, f"dup{copies}.log")
            open(dup, "wb").write(b"\n".join(lines[:i] + [lines[i]] * copies + lines[i + 1:]))
            r = run(ls, "analyze", "-q", "--db", os.path.join(tmp, f"dup{copies}.db"),
                    "-o", os.path.join(tmp, f"dup{copies}.md"), dup)
            check(r.returncode == 0 and "store error" not in r.stderr,
                  f"connection received x{copies}: analyze exit 0, no store error "
                  f"(got {r.returncode}: {r.stderr.strip()[:200]})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report()


if __name__ == "__main__":
    sys.exit(main())
