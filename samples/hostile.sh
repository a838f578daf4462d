#!/usr/bin/env bash
# Generate samples/hostile: a real PostgreSQL 15 log whose statements,
# application names and relation name carry markup, script, Markdown and
# mermaid injection, control characters and invalid UTF-8 (a SQL_ASCII
# database passes bytes through unchecked). Every report format must render
# it inert; tests/e2e/check_html.py and browser_html.sh check that.
#
# Usage: samples/hostile.sh [OUTDIR]      (default: samples/hostile)
#
# Starts a private, throw-away server as the `postgres` user (loopback only,
# trust auth, port 54391), runs three situations from psycopg2 threads, stops
# the server by its pid (also from an EXIT trap) and copies postgresql.log
# and prefix.txt to OUTDIR.
#
#   1. a hot row: a holder updates the row, sits idle in its transaction,
#      runs one more statement and commits; two waiters queue behind it
#      (the second on the tuple lock, a chain of depth 2);
#   2. a deadlock between two sessions;
#   3. a lock timeout (55P03).
#
# Env: LOCKSPAN_PGPORT (default 54391), LOCKSPAN_PGBIN, LOCKSPAN_PYTHON as
# for generate.sh.
set -euo pipefail

OUTDIR=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/hostile}
PORT=${LOCKSPAN_PGPORT:-54391}
PGBIN=${LOCKSPAN_PGBIN:-/usr/lib/postgresql/15/bin}
PYTHON=${LOCKSPAN_PYTHON:-/usr/bin/python3}
PREFIX='%m [%p] %q%u@%d/%a %c %l %v %x %e '

# shellcheck source=samples/pgserver.sh
. "$(dirname "${BASH_SOURCE[0]}")/pgserver.sh"

pg_require
"$PYTHON" -c 'import psycopg2' 2>/dev/null || die "$PYTHON cannot import psycopg2"

pg_workdir lockspan-hostile
pg_initdb
pg_settings "log_line_prefix = '$PREFIX'"
pg_start
# A SQL_ASCII database passes any bytes through (template0: the cluster is UTF8).
pg_createdb -E SQL_ASCII -T template0 hostile

"$PYTHON" - "$PORT" <<'PY'
import sys
import threading
import time

import psycopg2

PORT = int(sys.argv[1])
# The relation name itself is hostile: it reaches the report through CONTEXT.
REL = b'"<img src=x onerror=alert(1)>"'
SCRIPT = b"<script>alert(1)</script>"
IMG = b"<img src=x onerror=alert(1)>"
SVG = b'"><svg onload=alert(1)>'
MD = b"| injected | cell | [link](javascript:alert(1))"
MERMAID = b'"]; click A call alert(1); A["'
INIT = b'%%{init: {"theme":"dark"}}%%'
CTRL = b"\x1b[31mred\x07bell"
BAD = b"caf\xe9 \xff\xfe \xc0\xaf"   # Latin-1 and invalid UTF-8 bytes


def conn(app):
    c = psycopg2.connect(host="127.0.0.1", port=PORT, user="postgres", dbname="hostile",
                         application_name=app)
    c.autocommit = True
    c.set_client_encoding("SQL_ASCII")
    return c


def run(c, sql):
    # Bytes queries go to the server unchanged, invalid UTF-8 included.
    try:
        with c.cursor() as cur:
            cur.execute(sql)
    except psycopg2.Error as e:
        print("hostile.sh: expected error:", e.pgcode, file=sys.stderr)


setup = conn("lockspan setup")
run(setup, b"CREATE TABLE " + REL + b" (id int PRIMARY KEY, note text)")
run(setup, b"INSERT INTO " + REL + b" SELECT g, 'n' FROM generate_series(1, 6) g")
setup.close()


def upd(row, note, comment=b""):
    return (b"UPDATE " + REL + b" SET note = '" + note + b"' WHERE id = " + str(row).encode() +
            (b" /* " + comment + b" */" if comment else b""))


def hot_holder():
    c = conn("<script>alert(1)</script>")
    run(c, b"BEGIN")
    run(c, upd(1, SVG, SCRIPT))
    time.sleep(0.7)                      # idle in transaction, row 1 held
    run(c, b"SELECT '" + MD + b"' AS " + b'"' + SCRIPT + b'"')
    time.sleep(0.2)
    run(c, b"COMMIT")
    c.close()


def hot_waiter(app, note, comment, delay):
    c = conn(app)
    time.sleep(delay)
    run(c, upd(1, note, comment))
    c.close()


def deadlock_side(app, first, second, delay, comment):
    c = conn(app)
    run(c, b"BEGIN")
    run(c, upd(first, IMG, comment))
    time.sleep(delay)
    run(c, upd(second, MERMAID, INIT))
    run(c, b"ROLLBACK")
    c.close()


def timeout_holder():
    c = conn("holder \"quoted\" 'app'")
    run(c, b"BEGIN")
    run(c, upd(6, b"held", MERMAID))
    time.sleep(0.8)
    run(c, b"COMMIT")
    c.close()


def timeout_waiter():
    c = conn("[link](javascript:alert(1))")
    time.sleep(0.1)
    run(c, b"SET lock_timeout = '300ms'")
    run(c, upd(6, CTRL + b" " + BAD, SCRIPT + b" " + INIT))
    c.close()


def together(*threads):
    for t in threads:
        t.start()
    for t in threads:
        t.join()


together(threading.Thread(target=hot_holder),
         threading.Thread(target=hot_waiter,
                          args=('"><svg onload=alert(1)>', CTRL + b" " + BAD, MD, 0.15)),
         threading.Thread(target=hot_waiter,
                          args=('"]; click A call alert(1); A["', SCRIPT, INIT, 0.3)))
time.sleep(0.2)
together(threading.Thread(target=deadlock_side,
                          args=("%%{init: {'theme':'forest'}}%%", 2, 3, 0.3, SCRIPT)),
         threading.Thread(target=deadlock_side,
                          args=("| injected | cell |", 3, 2, 0.5, MD)))
time.sleep(0.2)
together(threading.Thread(target=timeout_holder), threading.Thread(target=timeout_waiter))
PY

pg_stop
[[ -s $LOGDIR/postgresql.log ]] || die "server did not write postgresql.log"
mkdir -p "$OUTDIR"
cp "$LOGDIR/postgresql.log" "$OUTDIR/postgresql.log"
printf '%s' "$PREFIX" >"$OUTDIR/prefix.txt"
chmod 644 "$OUTDIR/postgresql.log" "$OUTDIR/prefix.txt"
echo "hostile.sh: wrote $OUTDIR/postgresql.log and prefix.txt" >&2
