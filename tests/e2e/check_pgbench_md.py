#!/usr/bin/env python3
"""Issue 13's "Done when" on a pgbench-style log with thousands of waits,
made in the test by a live server: bench/pgbench_log.sh starts a private
PostgreSQL on 127.0.0.1 (samples/pgserver.sh), runs two pgbench clients
(application_name bench-prepared and bench-extended) until the log reaches
SIZE_MB MiB, and stops pgbench and the server by their pids.

Usage: check_pgbench_md.py LOCKSPAN PROJECT_DIR [SIZE_MB]
Environment: LOCKSPAN_PGBENCH_PORT (the server's port; default 54338).
The log is made with LOCKSPAN_PGBENCH_MIN_WAITS=1100: it grows past SIZE_MB
when a slow machine has not logged that many waits by then.

Checks, against what the clients and the server's own log say:
- the log has at least 1,000 logged waits ("still waiting for" lines) and
  the report counts at least 1,000 waits;
- the default Markdown is under 65,536 characters (GitHub's limit for an
  issue or a comment);
- no HTML entity code (&#95; &amp; ...) outside code blocks and code spans;
- one wait per wait the server logged: PostgreSQL writes "still waiting for"
  once per wait, or "detected deadlock while waiting for" instead when its
  deadlock check finds one, so the report counts exactly their sum; and no
  acquired or deadlocked wait lasts longer than its own "after X ms" (with
  250 ms or 10 % for the time between PostgreSQL's reading the clock and
  stamping the line, which passed 50 ms in a CI run on a loaded machine):
  a pid that waited for a tuple and, later, detected a deadlock on the
  same tuple once made one wait of minutes;
- no hold of a row starts more than 20 ms before the statement that locked
  it ended (its duration line) unless a wait for the holder's transaction
  on that row began then, and the hold says so: waits for the tuple lock
  of a statement queued behind the row's holder once moved its hold's
  start back to when they began, counting its own time in the queue as
  holding; a transaction wait may (on a loaded machine a server process
  stamped the locking statement's duration line 51 ms after a waiter had
  begun waiting for its transaction);
- every parse and bind line is folded into the next line of its session
  when that is the same statement's bind or execute (same process, file,
  name, text, vxid and parameters): ingest's groups of 256 statement rows
  once ended between them for about 1 pair in 30, and such pairs stayed
  apart, three rows for one statement; and sessions whose pids are alike
  modulo 1024 (the log has at least 3 such pairs live at once: the
  generator aligns the second pgbench's pids) once took one place in the
  store's session cache from each other, with the same effect;
- the code path is named next to every pid: every pid of the JSON has its
  code path, one of the application names the clients set, and every
  session pid in the Markdown (tables, headings, mermaid charts) is
  followed by " · " and that name.
"""
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_content import pid_fields  # noqa: E402
from lscheck import check, report  # noqa: E402

APPS = {"bench-prepared", "bench-extended"}  # PGAPPNAME of bench/pgbench_log.sh's clients
GITHUB_MAX = 65536


def outside_code(md):
    """The Markdown with fenced code blocks and inline code spans removed."""
    md = re.sub(r"^```.*?^```", "", md, flags=re.S | re.M)
    return re.sub(r"(`+).*?\1", "", md, flags=re.S)


def main():
    lockspan, root = sys.argv[1], sys.argv[2]
    size = sys.argv[3] if len(sys.argv) > 3 else "25"
    env = dict(os.environ)
    env.setdefault("LOCKSPAN_PGBENCH_PORT", "54338")
    # waits per MiB vary with the machine's speed: run on until there are
    # enough (a slow CI run once stopped at 25 MiB with 997)
    env["LOCKSPAN_PGBENCH_MIN_WAITS"] = "1100"
    with tempfile.TemporaryDirectory(prefix="lockspan-pgbench-md.") as tmp:
        os.chmod(tmp, 0o755)
        log = os.path.join(tmp, "pgbench.log")
        # A second try when the first fails (on a shared machine pg_ctl start
        # has failed once, the server's own log gone with its directory).
        for attempt in (1, 2):
            r = subprocess.run(["bash", os.path.join(root, "bench", "pgbench_log.sh"), size, log],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, timeout=270)
            if r.returncode == 0 and os.path.exists(log):
                break
            print(f"bench/pgbench_log.sh, try {attempt}:\n{r.stdout}")
        else:
            check(False, "bench/pgbench_log.sh made a log")
            return report()
        # Waits as the server's lock messages count them, per process in log
        # order: "still waiting" begins one; a process whose own deadlock
        # check finds a deadlock logs "detected deadlock while waiting"
        # instead; and one granted the lock just as deadlock_timeout fired
        # logs only "acquired ... after" (ProcSleep reports the state it
        # finds), a wait of its own.
        logged = deadlocked = unannounced = 0
        waiting = {}
        for line in open(log, errors="replace"):
            m = re.search(r"LOG:  process ([0-9]+) (still waiting for|acquired|"
                          r"detected deadlock while waiting for) ", line)
            if not m:
                continue
            pid, what = m.group(1), m.group(2)
            if what == "still waiting for":
                logged += 1
                waiting[pid] = True
            elif what == "acquired":
                unannounced += not waiting.get(pid)
                waiting[pid] = False
            else:
                deadlocked += 1
                waiting[pid] = False
        check(logged >= 1000, f"the server logged {logged} waits (>= 1000)")

        db, md_path, js = (os.path.join(tmp, n) for n in ("s.db", "r.md", "r.json"))
        r = subprocess.run([lockspan, "analyze", "-q", "--db", db, "-o", md_path, "-o", js, log])
        check(r.returncode == 0, "analyze")
        md = open(md_path, encoding="utf-8").read()
        rep = json.load(open(js))

        check(rep["summary"]["waits"] == logged + deadlocked + unannounced,
              f"the report counts {rep['summary']['waits']} waits, the log "
              f"{logged} + {deadlocked} + {unannounced} (still waiting + detected deadlock"
              f" + acquired without still waiting)")
        con = sqlite3.connect(db)
        long_waits = con.execute(
            "SELECT wait_id, pid, target, (end_ts - start_ts) / 1000.0, waited_ms FROM lock_waits"
            " WHERE outcome IN ('acquired', 'deadlock')"
            " AND (end_ts - start_ts) / 1000.0 > waited_ms + max(250, waited_ms / 10)").fetchall()
        check(not long_waits, f"no wait longer than its messages say ({long_waits[:3]})")
        early = con.execute(
            "SELECT h.hold_id, h.pid, (s.end_ts - h.start_ts) / 1000.0, h.start_evidence"
            " FROM holds h JOIN statements s ON s.stmt_id = h.lock_stmt"
            " WHERE s.end_ts IS NOT NULL AND h.start_ts < s.end_ts - 20000"
            " AND NOT (h.start_evidence = 'first wait for the holder''s transaction'"
            "  AND h.start_ts = (SELECT min(w.start_ts) FROM lock_waits w"
            "   WHERE w.holder_tx = h.tx_id AND w.row_id = h.row_id"
            "   AND w.target_kind = 'transaction'))").fetchall()
        nholds = con.execute("SELECT count(*) FROM holds").fetchone()[0]
        check(nholds >= 1000 and not early,
              f"of {nholds} holds none starts before its statement locked the row but at a"
              f" wait for its transaction ({early[:3]})")
        unfolded = con.execute(
            "WITH s AS (SELECT stmt_id, file_id, pid, verb, name, text, params, vxid, duration_ms,"
            "  LEAD(stmt_id) OVER w AS nid, LEAD(file_id) OVER w AS nfile,"
            "  LEAD(pid) OVER w AS npid, LEAD(verb) OVER w AS nverb,"
            "  LEAD(name) OVER w AS nname, LEAD(text) OVER w AS ntext,"
            "  LEAD(params) OVER w AS nparams, LEAD(vxid) OVER w AS nvxid,"
            "  LEAD(duration_ms) OVER w AS ndur FROM statements WHERE session_id IS NOT NULL"
            "  WINDOW w AS (PARTITION BY session_id ORDER BY stmt_id))"
            " SELECT stmt_id, verb, nid, nverb FROM s"
            " WHERE ((verb = 'bind' AND nverb = 'execute' AND params IS nparams)"
            "  OR (verb = 'parse' AND nverb = 'bind' AND params IS NULL))"
            " AND pid IS npid AND name IS nname AND text = ntext AND vxid IS nvxid"
            " AND file_id = nfile AND duration_ms IS NOT NULL AND ndur IS NOT NULL").fetchall()
        nfolded = con.execute("SELECT count(bind_ms) FROM statements").fetchone()[0]
        check(nfolded >= 1000 and not unfolded,
              f"{nfolded} bind lines folded into their execute line; none left apart from the"
              f" next line of its session, the same statement's ({len(unfolded)}: {unfolded[:3]})")
        # bench/pgbench_log.sh starts the second pgbench's backends at pids
        # alike modulo 1024 to the first one's, as on a busy server: the
        # store's session cache once had one place per pid modulo 1024, and
        # such sessions took it from each other, leaving their parse and
        # bind lines unfolded (the check above: 6,184 of 209,466 then).
        alike = con.execute(
            "SELECT count(*) FROM sessions a JOIN sessions b ON a.pid < b.pid"
            " AND (b.pid - a.pid) % 1024 = 0 AND a.first_ts < b.last_ts"
            " AND b.first_ts < a.last_ts").fetchone()[0]
        check(alike >= 3, f"{alike} pairs of sessions live at once with pids alike modulo 1024")
        check(len(md) < GITHUB_MAX, f"default Markdown is {len(md)} characters (< {GITHUB_MAX})")
        ents = re.findall(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);", outside_code(md))
        check(not ents, f"no HTML entity codes outside code ({ents[:5]})")

        # JSON: every pid with its code path, the name its client set.
        n = 0
        for where, o, key, _t, _w in pid_fields(rep):
            if o.get(key) is None:
                continue
            n += 1
            path = o.get(key[:-3] + "code_path")
            check(path in APPS, f"{where} {key} {o[key]}: code path {path!r}")
        check(n >= 1000, f"{n} pids in the JSON checked")

        # Markdown: no session pid without " · " and its path. In a table,
        # the cells of the pid columns (their header says "pid"); elsewhere
        # a number named a pid or process, or any number not followed by a
        # word or "(" ("1281 waits", "1282 (1281 linked ...)": counts, which
        # can equal a pid where pids are low, as on a fresh CI machine). Not
        # a date's year ("2026-12-05"), which can equal a pid as well.
        pids = {p for (p,) in con.execute("SELECT DISTINCT pid FROM sessions")}
        number = re.compile(r"(?<![\w.#:-])(\d{3,7})(?![\w.:-])")

        def plain(t):
            t = re.sub(r"\\(.)", r"\1", t)
            return re.sub(r"#(\d+);", lambda m: chr(int(m.group(1))), t)  # mermaid labels

        pieces = []  # (text, the numbers in it to check)
        header = None
        for line in md.split("\n"):
            if not line.startswith("|"):
                header, t = None, plain(line)
                pieces.append((t, [m for m in number.finditer(t)
                                   if re.search(r"\b(?:pids?|process) $", t[:m.start()])
                                   or not re.match(r" [A-Za-z(]", t[m.end():])]))
                continue
            cells = [plain(c) for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            if header is None:
                header = [i for i, c in enumerate(cells) if "pid" in c.lower()]
                continue
            for i in header:
                if i < len(cells):
                    pieces.append((cells[i], list(number.finditer(cells[i]))))
        k = 0
        for t, found in pieces:
            for m in found:
                if int(m.group(1)) not in pids:
                    continue
                # an OID or a transaction id that happens to equal a pid (pids
                # wrap at pid_max, 32768 here; pgbench_branches is OID 16394)
                if re.search(r"\b(?:relation|database|transaction) $", t[max(0, m.start() - 12):m.start()]):
                    continue
                k += 1
                after = t[m.end():m.end() + 40]
                check(after.startswith(" · ") and any(after[3:].startswith(a) for a in APPS),
                      f"markdown pid {m.group(1)} with its code path: "
                      f"{t[max(0, m.start() - 40):m.end() + 40]!r}")
        check(k >= 50, f"{k} pids in the Markdown checked")
    return report()


if __name__ == "__main__":
    sys.exit(main())
