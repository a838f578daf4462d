#!/usr/bin/env python3
"""Lock queues behind DDL (issue 34 item 8), against a real server's truth
(samples/ddl-queue, made by samples/ddl-queue.sh; samples/ddl-queue-pg17
and -pg18 by samples/ddl-queue-chroot.sh): a transaction holds a
table lock, a DDL statement queues behind it, plain statements queue
behind the DDL. PostgreSQL grants in queue order, so the server (and
pg_blocking_pids(), snapshotted by the client while they waited) says the
waiting DDL blocks them.

For every round of the truth, in each log format the server wrote
(stderr, csvlog, jsonlog) and in the stderr log cut to whole seconds (%t):
  - the DDL's wait: blocker = the holder, depth 1;
  - each queued statement's wait: blocker = the DDL's pid (one of the pids
    pg_blocking_pids() gave for it), root = the holder, depth 2, holder =
    the holder; with two DDLs queued (round `events`), the second's blocker
    is the first, and the statement's the second (depth 3);
  - no hot-row finding (serial capacity, counter row) on the relation;
  - one lock-queue finding per pile-up, naming the DDL at its head and
    counting every wait queued behind it, and the relation named as the
    statements name it, not by OID; none on the queue of round `tickets`,
    which an UPDATE heads (behind LOCK TABLE ... IN SHARE MODE: no DDL;
    "ddl" in its truth is the head of the queue), also when the window
    (--since, --until) holds that round alone;
  - relation-level contention in a section of its own (relation_queues,
    "Relation lock queues" in the Markdown and the HTML): per round one
    queue, its relation, the DDL, the holder it waited for and how many
    queued behind it; the relation lock is no hot row (hot_rows, holds,
    the code-path rankings, the story's row) and no
    idle_in_transaction_head finding words the reader's hold of the
    table as a hot row's.

The summary answers with the queue that waited longest by the truth (or
one within the tolerance of it: rounds of one shape tie within tens of ms).

Usage: check_ddl_queue.py LOCKSPAN SAMPLE_DIR
       check_ddl_queue.py LOCKSPAN SAMPLE_DIR --absent [--relation-wait]
The first form runs on samples/ddl-queue (PostgreSQL 15) and
samples/ddl-queue-pg17, -pg18 (samples/ddl-queue-chroot.sh). The second: a
sample with no DDL pile-up (samples/realistic; samples/basic, a plain hot
row) gets no lock-queue finding, and no relation lock queues section in
any format; with --relation-wait the sample must have a relation-lock wait
with nothing queued behind it (samples/pg18/C's LOCK TABLE), no queue
either.
"""
import datetime
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile

from lscheck import check, report

QUEUE_RULE = "lock_queue_behind_ddl"
NAMES = True     # the relation named from the statements
FINDINGS = True  # the lock-queue finding, no hot-row one
# The tolerance of one wait's length (issue 34: max(25 ms, 5 %); the
# summary's queues are seconds long and differ by tens of ms at most when
# the scenario gives them the same shape).
TIE_S_PER_WAIT = 0.025
FORMATS = (("stderr", "postgresql.log"), ("csvlog", "postgresql.csv"),
           ("jsonlog", "postgresql.json"))


def log_file(sample, name):
    """The sample's log `name`, or its gzipped copy (name.gz) when only
    that is there (samples/ddl-queue-pg17, -pg18)."""
    if not os.path.exists(os.path.join(sample, name)) and \
            os.path.exists(os.path.join(sample, name + ".gz")):
        return name + ".gz"
    return name


def whole_seconds(sample, tmp):
    """The stderr log with its milliseconds cut off (%m read as %t): the
    order of whole-second lines is their log position."""
    path = os.path.join(tmp, "seconds.log")
    log = os.path.join(sample, log_file(sample, "postgresql.log"))
    opener = gzip.open if log.endswith(".gz") else open
    with opener(log, "rt") as f, open(path, "w") as out:
        for line in f:
            out.write(re.sub(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\.\d{3}", r"\1", line))
    return path


def analyze(lockspan, sample, log, tmp, prefix=None, extra=()):
    prefix_path = os.path.join(sample, "prefix.txt")
    out = os.path.join(tmp, "r.json")
    args = [lockspan, "analyze", "-q", "--format", "json", "-o", out]
    if prefix is None and ".log" in log and os.path.exists(prefix_path):
        prefix = open(prefix_path).read().rstrip("\n")
    if prefix is not None:
        args += ["--prefix", prefix]
    subprocess.run(args + list(extra) + [os.path.join(sample, log)], check=True)
    return json.load(open(out))


def round_wait_s(rnd):
    """The truth's waiting in a round's queue: the DDL's statement and every
    statement queued behind it (a session's longest: round tickets' queued
    sessions wrap theirs in BEGIN and COMMIT), from their client-side start
    to end."""
    roles = ("ddl", "ddl2", "queued")
    return sum(max(st["end"] - st["start"] for st in s["statements"])
               for s in rnd["sessions"] if s["role"] in roles)


def heaviest_ddls(truth):
    """The DDL statements of the rounds whose queue waited longest by the
    truth: the heaviest, and any within TIE_S_PER_WAIT per wait of it (the
    client's clock is not the log's, so near ties may come out either way)."""
    totals = [(round_wait_s(rnd), rnd) for rnd in truth["rounds"]]
    top = max(t for t, _ in totals)
    out = []
    for t, rnd in totals:
        waits = sum(1 for s in rnd["sessions"] if s["role"] in ("ddl", "ddl2", "queued"))
        if t >= top - TIE_S_PER_WAIT * waits:
            ddl = [s for s in rnd["sessions"] if s["pid"] == rnd["ddl"]][0]
            out.append(ddl["statements"][0]["sql"])
    return out


def check_round(r, rnd, fmt):
    tag = f"{fmt} {rnd['table']}"
    waits = {}
    for w in r["waits"]:
        waits.setdefault(w["pid"], []).append(w)
    ddl = waits.get(rnd["ddl"], [])
    check(len(ddl) == 1, f"{tag}: the DDL {rnd['ddl']} waited once ({len(ddl)})")
    for w in ddl:
        check(w["blocker_pid"] == rnd["holder"] and w["root_pid"] == rnd["holder"]
              and w["chain_depth"] == 1,
              f"{tag}: the DDL's blocker and root are the holder {rnd['holder']}"
              f" ({w['blocker_pid']}, {w['root_pid']}, depth {w['chain_depth']})")
        if NAMES:
            check(w["relation"] == rnd["table"],
                  f"{tag}: the DDL's wait names the relation {rnd['table']} ({w['relation']})")
    snap = {a["pid"]: a["blocked_by"] for a in rnd["snapshot"]["activity"]}
    expect = rnd["expect"]
    # A second DDL queued behind the first: blocked by it, root the holder.
    queued = [(pid, expect["blocker_of_queued"], 3 if "ddl2" in rnd else 2)
              for pid in rnd["queued"]]
    if "ddl2" in rnd:
        queued.append((rnd["ddl2"], expect["blocker_of_ddl2"], 2))
    for pid, blocker, depth in queued:
        ws = waits.get(pid, [])
        check(len(ws) == 1, f"{tag}: queued {pid} waited once ({len(ws)})")
        for w in ws:
            check(w["blocker_pid"] == blocker,
                  f"{tag}: queued {pid}'s blocker is the DDL {blocker} ({w['blocker_pid']})")
            check(w["blocker_pid"] in snap.get(pid, []),
                  f"{tag}: queued {pid}'s blocker is one pg_blocking_pids() named"
                  f" ({w['blocker_pid']} in {snap.get(pid)})")
            check(w["root_pid"] == rnd["holder"] and w["chain_depth"] == depth,
                  f"{tag}: queued {pid}'s root is the holder {rnd['holder']}, depth {depth}"
                  f" ({w['root_pid']}, depth {w['chain_depth']})")
            check(w["holder_pid"] == rnd["holder"],
                  f"{tag}: queued {pid}'s lock holder is {rnd['holder']} ({w['holder_pid']})")
            if NAMES:
                check(w["relation"] == rnd["table"],
                      f"{tag}: queued {pid}'s wait names {rnd['table']} ({w['relation']})")


def check_queues(r, truth, fmt):
    """The relation lock queues section, and no hot row of a relation."""
    tables = [rnd["table"] for rnd in truth["rounds"]]
    queues = r.get("relation_queues")
    check(isinstance(queues, list), f"{fmt}: the report has relation_queues ({type(queues)})")
    queues = queues or []
    check(len(queues) == len(truth["rounds"]),
          f"{fmt}: one relation lock queue per round ({len(queues)})")
    for rnd in truth["rounds"]:
        mine = [q for q in queues if q["relation"] == rnd["table"]]
        check(len(mine) == 1, f"{fmt}: one queue on {rnd['table']} ({len(mine)})")
        behind = len(rnd["queued"]) + (1 if "ddl2" in rnd else 0)
        ddl_sql = [s for s in rnd["sessions"] if s["pid"] == rnd["ddl"]][0]
        for q in mine:
            tag = f"{fmt} {rnd['table']} queue"
            check(q["pid"] == rnd["ddl"], f"{tag}: the DDL {rnd['ddl']} at its head ({q['pid']})")
            check(q["statement"] == ddl_sql["statements"][0]["sql"],
                  f"{tag}: names the DDL statement ({q['statement']})")
            check(q["mode"] == rnd["modes"]["ddl"], f"{tag}: the DDL's mode ({q['mode']})")
            check(q["holder_pid"] == rnd["holder"],
                  f"{tag}: waited for the holder {rnd['holder']} ({q['holder_pid']})")
            check(q["queued"] == behind, f"{tag}: {behind} queued behind it ({q['queued']})")
            check(q["waited_ms"] > 0 and q["queued_wait_ms"] >= q["max_queued_wait_ms"] > 0,
                  f"{tag}: how long ({q['waited_ms']}, {q['queued_wait_ms']},"
                  f" {q['max_queued_wait_ms']})")
    hot = [h["relation"] for h in r["hot_rows"]]
    check(not set(hot) & set(tables), f"{fmt}: no relation lock among the hot rows ({hot})")
    paths = [p["code_path"] for p in r["row_occupancy"] + r["code_paths"]]
    check(not paths, f"{fmt}: no code path ranked for holding a relation lock ({paths})")
    held = [h.get("relation") for h in r["holds"]]
    check(not set(held) & set(tables), f"{fmt}: no relation lock among the holds ({held})")
    story = r.get("story") or {}
    row = (story.get("row") or {}).get("relation")
    check(row not in tables, f"{fmt}: the summary's busiest row is no relation lock ({row})")
    idle = [f["title"] for f in r["findings"] if f["rule"] == "idle_in_transaction_head"]
    check(not idle, f"{fmt}: no idle_in_transaction_head finding on a relation lock ({idle})")


def check_rendered(lockspan, sample, tmp, truth):
    """The Markdown and the HTML show the section, with each DDL."""
    prefix = open(os.path.join(sample, "prefix.txt")).read().rstrip("\n")
    for fmt in ("md", "html"):
        out = os.path.join(tmp, "r." + fmt)
        subprocess.run([lockspan, "analyze", "-q", "--format", fmt, "-o", out,
                        "--prefix", prefix,
                        os.path.join(sample, log_file(sample, "postgresql.log"))], check=True)
        text = open(out, encoding="utf-8").read()
        head = "## Relation lock queues" if fmt == "md" else 'id="relation-queues"'
        at = text.find(head)
        check(at >= 0, f"{fmt}: the Relation lock queues section")
        end = text.find("\n## " if fmt == "md" else "</section>", at + len(head))
        section = text[at:end if end > 0 else len(text)]
        pid = "{} · " if fmt == "md" else '{} <span class="path">· '
        for rnd in truth["rounds"]:
            ddl_sql = [s for s in rnd["sessions"] if s["pid"] == rnd["ddl"]][0]
            sql = ddl_sql["statements"][0]["sql"]
            shown = sql.replace("_", "\\_") if fmt == "md" else sql
            check(shown in section, f"{fmt}: the section names the DDL on {rnd['table']} ({sql})")
            for who in ("ddl", "holder"):
                check(pid.format(rnd[who]) in section,
                      f"{fmt}: the section names {rnd['table']}'s {who} {rnd[who]}")
        # The summary answers with the heaviest queue, not a hot row.
        head = "## Summary" if fmt == "md" else '<section id="summary"'
        at = text.find(head)
        end = text.find("\n## " if fmt == "md" else "</section>", at + len(head))
        summary = text[at:end]
        heaviest = heaviest_ddls(truth)
        named = [d for d in heaviest
                 if (d.replace("_", "\\_") if fmt == "md" else d) in summary]
        check("relation's lock queue, not on a hot row" in summary and len(named) == 1
              and "holds the hot rows longest" not in summary,
              f"{fmt}: the summary answers with the heaviest queue's DDL (one of {heaviest}),"
              f" no hot row ({summary[:300]!r})")


def iso(ts):
    """A truth time (epoch seconds) as --since/--until take it."""
    return datetime.datetime.fromtimestamp(ts, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%S.%fZ")


def check_no_ddl_alone(lockspan, sample, log, tmp, truth, fmt):
    """The rounds whose queue no DDL heads, each alone in the window (a
    rule names its heaviest findings only, so with the others in view a
    light queue's finding could be left out, not decided against): the
    queue is in the section, and no lock-queue finding names it."""
    for rnd in truth["rounds"]:
        if rnd.get("ddl_head", True):
            continue
        times = [st[k] for s in rnd["sessions"] for st in s["statements"]
                 for k in ("start", "end")]
        r = analyze(lockspan, sample, log, tmp,
                    extra=("--since", iso(min(times)), "--until", iso(max(times))))
        tag = f"{fmt} {rnd['table']} alone"
        head = [s for s in rnd["sessions"] if s["pid"] == rnd["ddl"]][0]
        queues = [(q["relation"], q["statement"]) for q in r["relation_queues"]]
        check(queues == [(rnd["table"], head["statements"][0]["sql"])],
              f"{tag}: the one queue in the window, the UPDATE's ({queues})")
        named = [f["title"] for f in r["findings"] if f["rule"] == QUEUE_RULE]
        check(not named, f"{tag}: no {QUEUE_RULE} finding on a queue an UPDATE heads ({named})")


def check_findings(r, truth, fmt):
    rules = [f["rule"] for f in r["findings"]]
    check(truth["findings_expected"] == [QUEUE_RULE], "the truth expects the lock-queue finding")
    for bad in truth["findings_forbidden"]:
        check(bad not in rules, f"{fmt}: no {bad} finding on a lock queue ({rules})")
    queue = [f for f in r["findings"] if f["rule"] == QUEUE_RULE]
    for rnd in truth["rounds"]:
        mine = [f for f in queue if f.get("relation") == rnd["table"]]
        if not rnd.get("ddl_head", True):
            check(not mine, f"{fmt}: no {QUEUE_RULE} finding on {rnd['table']}, whose queue an"
                  f" UPDATE heads ({[f.get('statement') for f in mine]})")
            continue
        check(len(mine) == 1, f"{fmt}: one {QUEUE_RULE} finding on {rnd['table']} ({len(mine)})")
        behind = len(rnd["queued"]) + (1 if "ddl2" in rnd else 0)
        for f in mine:
            check(f.get("queued") == behind,
                  f"{fmt} {rnd['table']}: the finding counts {behind} statements"
                  f" queued behind the DDL ({f.get('queued')})")
            ddl_sql = [s for s in rnd["sessions"] if s["pid"] == rnd["ddl"]][0]
            check(f.get("statement") == ddl_sql["statements"][0]["sql"],
                  f"{fmt} {rnd['table']}: the finding names the DDL statement"
                  f" ({f.get('statement')})")
            check(f.get("mode") == rnd["modes"]["ddl"],
                  f"{fmt} {rnd['table']}: the DDL's mode ({f.get('mode')})")


def check_absent(lockspan, sample, tmp, relation_wait):
    """A sample with no DDL pile-up: no lock-queue finding, no relation lock
    queue, no section. relation_wait: the sample has a wait for a relation
    lock at the head of its queue with nothing queued behind it (a lone
    LOCK TABLE wait), which is no queue either."""
    log = log_file(sample, "postgresql.log")
    r = analyze(lockspan, sample, log, tmp)
    rules = [f["rule"] for f in r["findings"]]
    check(len(rules) > 0, f"{sample} has findings at all ({rules})")
    check(QUEUE_RULE not in rules, f"{sample}: no {QUEUE_RULE} finding ({rules})")
    check(r.get("relation_queues") == [],
          f"{sample}: no relation lock queue ({r.get('relation_queues')})")
    check(len(r["hot_rows"]) > 0, f"{sample} has hot rows ({len(r['hot_rows'])})")
    if relation_wait:
        heads = [w["wait_id"] for w in r["waits"] if w["target_kind"] == "relation"
                 and w["blocker_pid"] == w["holder_pid"]]
        check(len(heads) > 0, f"{sample} has a relation-lock wait at a queue's head ({heads})")
    for fmt in ("md", "html"):
        out = os.path.join(tmp, "r." + fmt)
        args = [lockspan, "analyze", "-q", "--format", fmt, "-o", out]
        prefix_path = os.path.join(sample, "prefix.txt")
        if os.path.exists(prefix_path):
            args += ["--prefix", open(prefix_path).read().rstrip("\n")]
        subprocess.run(args + [os.path.join(sample, log)], check=True)
        text = open(out, encoding="utf-8").read()
        check("Relation lock queues" not in text,
              f"{sample}: no Relation lock queues section in the {fmt}")


def main():
    lockspan, sample = sys.argv[1], sys.argv[2]
    absent = "--absent" in sys.argv[3:]
    with tempfile.TemporaryDirectory() as tmp:
        if absent:
            check_absent(lockspan, sample, tmp, "--relation-wait" in sys.argv[3:])
            return report()
        truth = json.load(open(os.path.join(sample, "truth.json")))
        check(len(truth["rounds"]) == 4
              and [rnd.get("ddl_head", True) for rnd in truth["rounds"]].count(False) == 1,
              "the sample has its four rounds, one with no DDL at its queue's head")
        for fmt, name in FORMATS:
            log = log_file(sample, name)
            r = analyze(lockspan, sample, log, tmp)
            for rnd in truth["rounds"]:
                check_round(r, rnd, fmt)
            if FINDINGS:
                check_findings(r, truth, fmt)
                check_no_ddl_alone(lockspan, sample, log, tmp, truth, fmt)
            check_queues(r, truth, fmt)
        check_rendered(lockspan, sample, tmp, truth)
        prefix = open(os.path.join(sample, "prefix.txt")).read().rstrip("\n")
        check("%m" in prefix, "the sample's prefix has %m")
        r = analyze(lockspan, sample, whole_seconds(sample, tmp), tmp,
                    prefix.replace("%m", "%t"))
        for rnd in truth["rounds"]:
            check_round(r, rnd, "stderr %t")
        check_findings(r, truth, "stderr %t")
        check_queues(r, truth, "stderr %t")
    return report()


if __name__ == "__main__":
    sys.exit(main())
