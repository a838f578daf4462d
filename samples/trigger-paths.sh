#!/usr/bin/env bash
# One trigger reached from two code paths, of which only one ever waits
# (issue 34 item 3): a real PostgreSQL 15, samples/scenarios_trigger_paths.py
# (psycopg 3, bind parameters), stderr with '%m ...' and csvlog of the same
# run, durations logged. Writes samples/trigger-paths (or OUTDIR):
# postgresql.log, postgresql.csv, prefix.txt, settings.txt, truth.json.
#
# Usage: samples/trigger-paths.sh [OUTDIR]   (as root or postgres)
# Env: LOCKSPAN_PGPORT (default 55461, 127.0.0.1 only), LOCKSPAN_PGBIN,
#      LOCKSPAN_PYTHON (needs psycopg 3), LOCKSPAN_TRIGGER_SECONDS (default 20).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUTDIR=${1:-$HERE/trigger-paths}
PORT=${LOCKSPAN_PGPORT:-55461}
PGBIN=${LOCKSPAN_PGBIN:-/usr/lib/postgresql/15/bin}
PYTHON=${LOCKSPAN_PYTHON:-/usr/bin/python3}
PREFIX='%m [%p] %q%u@%d/%a '

# shellcheck source=samples/pgserver.sh
. "$HERE/pgserver.sh"

pg_require
"$PYTHON" -c 'import psycopg' 2>/dev/null || die "$PYTHON cannot import psycopg (3)"

pg_workdir lockspan-trigger-paths
pg_initdb
settings=("log_line_prefix = '$PREFIX'" "log_destination = 'stderr,csvlog'"
          "deadlock_timeout = '100ms'" "log_lock_waits = on"
          "log_min_duration_statement = 0" "log_statement = 'none'")
pg_settings "${settings[@]}"
pg_start
pg_createdb lockspan

echo "trigger-paths.sh: running on 127.0.0.1:$PORT" >&2
"$PYTHON" "$HERE/scenarios_trigger_paths.py" --port "$PORT" --truth "$WORK/truth.json" \
    --duration "${LOCKSPAN_TRIGGER_SECONDS:-20}"

pg_stop
[[ -s $LOGDIR/postgresql.log ]] || die "server did not write postgresql.log"
[[ -s $LOGDIR/postgresql.csv ]] || die "server did not write postgresql.csv"

mkdir -p "$OUTDIR"
install -m 644 "$LOGDIR/postgresql.log" "$LOGDIR/postgresql.csv" "$WORK/truth.json" "$OUTDIR/"
printf '%s' "$PREFIX" >"$OUTDIR/prefix.txt"
printf '%s\n' "${settings[@]}" >"$OUTDIR/settings.txt"
chmod 644 "$OUTDIR/prefix.txt" "$OUTDIR/settings.txt"
ls -l "$OUTDIR" >&2
