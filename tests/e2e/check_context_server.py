#!/usr/bin/env python3
"""Checkpoints, autovacuum runs and temporary files in the per-minute
context (issue 36), on a real sample (samples/context: PostgreSQL 15 with
log_checkpoints, log_autovacuum_min_duration = 0, log_temp_files = 0; the
client made a lock wait, a CHECKPOINT, a sort that spilled and enough
updates for autovacuum, samples/context/truth.json).

Usage: check_context_server.py LOCKSPAN PROJECT_DIR

  - the log's lines, counted here with regexes per minute (checkpoint
    complete, automatic vacuum/analyze, temporary file and its size), equal
    the JSON context_per_minute's checkpoints, autovacuum, temp_files and
    temp_bytes minute by minute, and the strip has them all;
  - the truth: the client's CHECKPOINT, its spilling sort and the
    autovacuum and autoanalyze of its table are among them (at least as
    many as the client caused), in the minute the client did them;
  - context_not_kept is empty (the log has all three), and names the
    setting for each on a log without them (samples/realistic);
  - the Markdown and HTML tables show the new columns with the busiest
    minute's figures;
  - server_events in the store: one row per line, relations as logged;
  - a store whose files were ingested before schema 14 (meta
    server_events_from_file) says their server work was not read.
Prints one FAIL line per wrong fact, then "N passed, N failed".
"""
import collections
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

from lscheck import check, report

LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d):\d\d\.\d+ UTC \[\d+\] .*?LOG:  (.*)$")
CKPT = re.compile(r"^checkpoint complete: ")
AUTOVAC = re.compile(r'^automatic (?:aggressive )?(?:vacuum|analyze) (?:to prevent wraparound )?'
                     r'of table "([^"]+)"')
TEMP = re.compile(r'^temporary file: path "[^"]+", size (\d+)$')


def count_log(path):
    """Per minute ("YYYY-MM-DDTHH:MM"): checkpoints, autovacuum, temp files, bytes."""
    per = collections.defaultdict(lambda: [0, 0, 0, 0])
    rels = []
    for ln in open(path, encoding="utf-8"):
        m = LINE.match(ln.rstrip("\n"))
        if not m:
            continue
        mi, msg = m.group(1).replace(" ", "T"), m.group(2)
        if CKPT.match(msg):
            per[mi][0] += 1
        elif AUTOVAC.match(msg):
            per[mi][1] += 1
            rels.append(AUTOVAC.match(msg).group(1))
        elif TEMP.match(msg):
            per[mi][2] += 1
            per[mi][3] += int(TEMP.match(msg).group(1))
    return per, rels


def analyze(lockspan, tmp, name, inputs):
    db = os.path.join(tmp, name + ".db")
    out = {f: os.path.join(tmp, f"{name}.{f}") for f in ("json", "md", "html")}
    p = subprocess.run([lockspan, "analyze", "-q", "--db", db, "-o", out["json"], "-o", out["md"],
                        "-o", out["html"]] + inputs, capture_output=True, text=True)
    check(p.returncode == 0, f"{name}: analyze exit {p.returncode}: {p.stderr[-300:]}")
    if p.returncode != 0:
        return None, None, None
    return db, json.load(open(out["json"])), out


def sample(lockspan, root, tmp):
    d = os.path.join(root, "samples", "context")
    log = os.path.join(d, "postgresql.log")
    truth = json.load(open(os.path.join(d, "truth.json")))
    per, rels = count_log(log)
    db, m, out = analyze(lockspan, tmp, "context",
                         ["--prefix", open(os.path.join(d, "prefix.txt")).read(), log])
    if not m:
        return
    c = m.get("context_per_minute") or []
    got = {x["minute"][:16]: [x.get("checkpoints"), x.get("autovacuum"), x.get("temp_files"),
                              x.get("temp_bytes")] for x in c}
    check(len(per) >= 2, f"the sample's server work spans minutes: {sorted(per)}")
    for mi, want in sorted(per.items()):
        check(got.get(mi) == want, f"minute {mi}: checkpoints, autovacuum, temp files, bytes "
                                   f"{got.get(mi)}, the log's {want}")
    for mi, g in sorted(got.items()):
        if mi not in per:
            check(g == [0, 0, 0, 0], f"minute {mi} has no server work in the log: {g}")
    tot = [sum(v[i] for v in per.values()) for i in range(4)]
    check(tot[0] >= truth["checkpoints_requested"] and tot[2] >= truth["spilling_sorts"],
          f"the client's checkpoint and spilling sort are logged: {tot}")
    own = sum(1 for r in rels if r == "lockspan.public.item")
    check(own >= truth["autovacuum_count"] + truth["autoanalyze_count"] >= 2 and
          truth["autovacuum_count"] > truth["autovacuum_before_updates"],
          f"autovacuum and autoanalyze of the client's table: {own} lines, "
          f"truth {truth['autovacuum_count']} + {truth['autoanalyze_count']}")
    ck_min = truth["checkpoint_at"][:16]
    check((got.get(ck_min) or [0])[0] >= 1, f"a checkpoint in the client's minute {ck_min}")
    sort_min = truth["sort_at"][:16]
    check((got.get(sort_min) or [0, 0, 0])[2] >= 1, f"a temp file in the sort's minute {sort_min}")
    check(m.get("context_not_kept") == [], f"context_not_kept empty: {m.get('context_not_kept')}")
    try:
        srows = sqlite3.connect(db).execute(
            "SELECT count(*), sum(kind = 'checkpoint'), sum(kind = 'checkpoint_start'),"
            " group_concat(relation, '|') FROM server_events").fetchone()
    except sqlite3.Error as e:
        check(False, f"server_events: {e}")
        return
    starts = sum(1 for ln in open(log) if "LOG:  checkpoint starting: " in ln)
    check(srows[1] == tot[0] and srows[2] == starts,
          f"server_events: {srows[1]} checkpoints, {srows[2]} starts; the log {tot[0]}, {starts}")
    check(sorted((srows[3] or "").split("|")) == sorted(rels), "server_events relations as logged")
    older(lockspan, tmp, db)
    busy = max(c, key=lambda x: (x.get("autovacuum") or 0))
    md = open(out["md"], encoding="utf-8").read().split("### Context per minute", 1)
    check(len(md) == 2 and "| Checkpoints | Autovacuum | Temp files | Temp bytes |" in md[-1],
          "Markdown header has the new columns")
    row = f"| {busy['errors']} | {busy['checkpoints']} | {busy['autovacuum']} | " \
          f"{busy['temp_files']} | {busy['temp_bytes']} |"
    check(len(md) == 2 and row in md[1], f"Markdown row of {busy['minute']} ends {row}")
    page = open(out["html"], encoding="utf-8").read()
    cells = "".join(f'<td class="n">{busy[k]}</td>'
                    for k in ("checkpoints", "autovacuum", "temp_files", "temp_bytes"))
    check(cells in page, f"HTML row of {busy['minute']} has {cells}")


def older(lockspan, tmp, db):
    """A store whose files were ingested before schema 14 (the upgrade
    step writes meta 'server_events_from_file', store.c): the report says
    their server work was not read. Made here from the sample's store by
    writing that key as the step would and removing the rows."""
    old = os.path.join(tmp, "older.db")
    src = sqlite3.connect(db)
    dst = sqlite3.connect(old)
    src.backup(dst)
    src.close()
    dst.execute("DELETE FROM server_events")
    dst.execute("INSERT OR REPLACE INTO meta(key, value) SELECT 'server_events_from_file',"
                " max(file_id) + 1 FROM files")
    dst.commit()
    dst.close()
    p = subprocess.run([lockspan, "report", "-q", "--db", old, "--format", "json"],
                       capture_output=True, text=True)
    nk = json.loads(p.stdout).get("context_not_kept") or [] if p.returncode == 0 else []
    check(len(nk) == 4 and "before schema 14 was not read" in nk[0],
          f"a store of older files says their server work was not read: {nk}")


def without(lockspan, root, tmp):
    """A log with no such lines: context_not_kept names the settings."""
    _, m, _ = analyze(lockspan, tmp, "realistic",
                      [os.path.join(root, "samples", "realistic", "postgresql.csv")])
    if not m:
        return
    nk = m.get("context_not_kept") or []
    con = sqlite3.connect(os.path.join(tmp, "realistic.db"))
    try:
        kinds = {k for (k,) in con.execute("SELECT DISTINCT kind FROM server_events")}
    except sqlite3.Error as e:
        check(False, f"realistic: server_events: {e}")
        return
    want = []
    if not kinds & {"checkpoint", "checkpoint_start"}:
        want.append("log_checkpoints = on")
    if not kinds & {"autovacuum", "autoanalyze"}:
        want.append("log_autovacuum_min_duration = 0")
    if "temp_file" not in kinds:
        want.append("log_temp_files = 0")
    check(want and len(nk) == len(want) and all(w in n for w, n in zip(want, nk)),
          f"realistic: context_not_kept names {want}: {nk}")


def main():
    lockspan, root = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        sample(lockspan, root, tmp)
        without(lockspan, root, tmp)
    return report()


if __name__ == "__main__":
    sys.exit(main())
