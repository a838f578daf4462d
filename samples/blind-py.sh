#!/usr/bin/env bash
# Regenerate samples/blind-py/: a small Python shop back end (psycopg2
# ThreadedConnectionPool, worker threads, four request kinds) driven for
# DURATION_S seconds against a real PostgreSQL 15 that writes a POOR log:
# whole-second times, log_statement = 'all' without durations, lock waits
# after 200 ms, no csvlog, no traces. The app records the truth on the
# client side (truth.json). Run as root; needs python3-psycopg2 (Debian).
#   samples/blind-py.sh [DURATION_S]        (default 30)
# With LOCKSPAN=path/to/lockspan it also writes report.md, report.html and
# report.json.gz (lockspan analyze of the log) and judge.md (the report
# against the truth, app/judge.py).
# Port (127.0.0.1): PostgreSQL 55480.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$HERE/blind-py
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
PORT=55480
DURATION_S=${1:-30}
PYTHON=/usr/bin/python3          # Debian's, where python3-psycopg2 lives
PREFIX='%t [%p-%l] '
LOG_GZIP_OVER=$((2 * 1024 * 1024))

# shellcheck source=samples/pgserver.sh
source "$HERE/pgserver.sh"

pg_require
"$PYTHON" -c 'import psycopg2' 2>/dev/null \
    || die "python3-psycopg2 missing (apt-get install -y python3-psycopg2)"
pg_workdir lockspan-blind-py
pg_initdb
# pg_settings' common lines log every duration and connection: the lines
# after them make the log poor, as many production servers' are.
pg_settings "log_line_prefix = '$PREFIX'" \
    "log_min_duration_statement = -1" \
    "log_statement = 'all'" \
    "log_lock_waits = on" \
    "deadlock_timeout = '200ms'" \
    "log_connections = off" \
    "log_disconnections = off" \
    "max_connections = 40"
pg_start
pg_createdb shop

DSN="host=127.0.0.1 port=$PORT dbname=shop user=$PG_USER"
"$PYTHON" "$OUT/app/shop.py" --dsn "$DSN" --truth /dev/null --schema
"$PYTHON" "$OUT/app/shop.py" --dsn "$DSN" --truth "$WORK/truth.jsonl" \
    --seconds "$DURATION_S" --workers 10
pg_stop

rm -f "$OUT/postgresql.log" "$OUT/postgresql.log.gz"
if (($(stat -c %s "$LOGDIR/postgresql.log") > LOG_GZIP_OVER)); then
    gzip -n -9 <"$LOGDIR/postgresql.log" >"$OUT/postgresql.log.gz"
    LOG=$OUT/postgresql.log.gz
else
    cp "$LOGDIR/postgresql.log" "$OUT/postgresql.log"
    LOG=$OUT/postgresql.log
fi
# The settings in force, as the server reads its configuration.
for name in log_line_prefix log_statement log_min_duration_statement \
    log_lock_waits deadlock_timeout log_connections log_disconnections \
    log_destination lc_messages log_timezone; do
    printf '%s = %s\n' "$name" "$(as_pg "$PGBIN/postgres" -D "$DATA" -C "$name")"
done >"$OUT/settings.txt"
"$PYTHON" "$OUT/app/truth.py" "$WORK/truth.jsonl" >"$OUT/truth.json"

if [[ -n ${LOCKSPAN:-} ]]; then
    LOCKSPAN=$(realpath "$LOCKSPAN")
    rc=0
    # From $OUT, so that the reports name the log by a relative path.
    (cd "$OUT" && "$LOCKSPAN" analyze --generated-at 'blind-py sample' \
        -o report.md -o report.html -o report.json "${LOG##*/}") \
        2>"$OUT/analyze.stderr" || rc=$?
    echo "lockspan analyze exit $rc" >>"$OUT/analyze.stderr"
    gzip -n -9 -f "$OUT/report.json"
    "$PYTHON" "$OUT/app/judge.py" "$OUT/truth.json" "$OUT/report.json.gz" \
        >"$OUT/judge.md"
fi
echo "blind-py: wrote $OUT"
