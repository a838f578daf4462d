#!/usr/bin/env python3
"""End-to-end check of rotated logs (samples/rotation, made by
samples/rotation.sh): a directory of postgresql-*.log / .csv files, some
gzip-compressed, whose names do not sort in time order.

Usage: check_rotation.py LOCKSPAN SAMPLE_DIR

Checks that the directory is read once (the csvlog files; the stderr files
hold the same events), in time order, every record counted for the file it
started in and none lost or bad; that the stderr files alone, read as one
run with an inferred prefix, give the same waits; and (through
check_report.py, run by ctest as e2e_rotation) the waits, blockers and
roots against truth.json. Prints "N passed, N failed".
"""
import csv
import gzip
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report


def read_text(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return f.read().decode("utf-8")


def csv_records(path):
    return sum(1 for _ in csv.reader(io.StringIO(read_text(path), newline="")))


def analyze(lockspan, tmp, name, paths):
    db, out = os.path.join(tmp, name + ".db"), os.path.join(tmp, name + ".json")
    r = subprocess.run([lockspan, "analyze", "--db", db, "--format", "json", "-o", out] + paths,
                       capture_output=True, text=True)
    check(r.returncode == 0, f"{name}: analyze exits 0 ({r.stderr.strip()[-300:]})")
    rep = json.load(open(out)) if r.returncode == 0 else {"waits": [], "summary": {}}
    return rep, sqlite3.connect(db), r.stderr


def main():
    lockspan, sample = sys.argv[1], sys.argv[2]
    truth = json.load(open(os.path.join(sample, "truth.json")))
    names = sorted(n for n in os.listdir(sample) if n.startswith("postgresql-"))
    csvs = [n for n in names if ".csv" in n]
    logs = [n for n in names if ".log" in n]
    check(len(csvs) >= 3 and len(logs) >= 3, "the sample spans several rotated files")
    check(any(n.endswith(".gz") for n in csvs) and any(not n.endswith(".gz") for n in csvs),
          "some csvlog files are gzip-compressed, some not")

    with tempfile.TemporaryDirectory() as tmp:
        rep, con, err = analyze(lockspan, tmp, "dir", [sample])
        files = con.execute("SELECT path, format, gzip, lines, records, bad_lines, first_ts, "
                            "last_ts FROM files ORDER BY file_id").fetchall()
        read = [os.path.basename(f[0]) for f in files]
        check(sorted(read) == csvs, f"every csvlog file read, no stderr file: {read}")
        check(all(f[1] == "csvlog" for f in files), "all read as csvlog")
        check(read != sorted(read), f"the names do not sort in time order: {read}")
        firsts = [f[6] for f in files]
        check(all(a < b for a, b in zip(firsts, firsts[1:])), "files read in time order")
        check(all(files[i][7] <= files[i + 1][6] for i in range(len(files) - 1)),
              "each file ends before the next begins")
        for f in files:
            name = os.path.basename(f[0])
            check(f[2] == (1 if name.endswith(".gz") else 0), f"{name}: gzip flag")
            check(f[4] == csv_records(os.path.join(sample, name)),
                  f"{name}: {f[4]} records, the file holds {csv_records(os.path.join(sample, name))}")
            check(f[5] == 0, f"{name}: no bad lines")
        check("skipped" in err and "postgresql-" in err, "says the stderr files were skipped")
        check(len(rep["waits"]) == len(truth["waits"]),
              f"directory: {len(rep['waits'])} waits, truth {len(truth['waits'])}")
        check(rep["summary"].get("bad_lines") == 0, "directory: no bad lines")
        con.close()

        # The stderr files alone: one run of one stderr parser, prefix inferred.
        d = os.path.join(tmp, "stderr")
        os.mkdir(d)
        for n in logs:
            shutil.copy2(os.path.join(sample, n), d)
        rep, con, err = analyze(lockspan, tmp, "stderr", [d])
        files = con.execute("SELECT path, format, records, bad_lines, first_ts FROM files "
                            "ORDER BY file_id").fetchall()
        check(sorted(os.path.basename(f[0]) for f in files) == logs, "every stderr file read")
        check(all(f[1] == "stderr" for f in files), "all read as stderr")
        firsts = [f[4] for f in files]
        check(all(a < b for a, b in zip(firsts, firsts[1:])), "stderr files read in time order")
        check(sum(f[3] for f in files) == 0, "stderr: no bad lines")
        check("inferred log_line_prefix" in err, "stderr: the prefix was inferred")
        check(len(rep["waits"]) == len(truth["waits"]),
              f"stderr: {len(rep['waits'])} waits, truth {len(truth['waits'])}")
        truth_pairs = sorted((t["waiter_pid"], t["direct_blocker_pid"], t["root_blocker_pid"])
                             for t in truth["waits"])
        got_pairs = sorted((w["pid"], w["blocker_pid"], w["root_pid"]) for w in rep["waits"])
        check(got_pairs == truth_pairs, f"stderr: waiters, blockers and roots {got_pairs}")
        con.close()

    return report()


if __name__ == "__main__":
    sys.exit(main())
