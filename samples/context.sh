#!/usr/bin/env bash
# Server-work sample (issue 36, the per-minute context): a real PostgreSQL
# 15 server with log_checkpoints, log_autovacuum_min_duration = 0,
# log_temp_files = 0 and a 1 s autovacuum naptime, and a client that makes
# a lock wait, asks for a CHECKPOINT, runs a sort that spills to a
# temporary file (work_mem = 64kB) and updates enough rows for autovacuum
# (samples/scenarios_context.py). The truth, from the client, says what it
# did and when.
#
# Usage: samples/context.sh OUTDIR        (samples/context)
# Env: LOCKSPAN_PGPORT (default 55460, 127.0.0.1 only), LOCKSPAN_PGBIN,
#      LOCKSPAN_PYTHON.
set -euo pipefail

if [[ $# -ne 1 ]]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi
OUTDIR=$1
PORT=${LOCKSPAN_PGPORT:-55460}
PGBIN=${LOCKSPAN_PGBIN:-/usr/lib/postgresql/15/bin}
PYTHON=${LOCKSPAN_PYTHON:-/usr/bin/python3}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PREFIX='%m [%p] %q%u@%d/%a %c %l %v %x %e '

# shellcheck source=samples/pgserver.sh
. "$HERE/pgserver.sh"

pg_require
"$PYTHON" -c 'import psycopg2' 2>/dev/null || die "$PYTHON cannot import psycopg2"

pg_workdir lockspan-context
pg_initdb
pg_settings "log_line_prefix = '$PREFIX'" "log_checkpoints = on" \
    "log_autovacuum_min_duration = 0" "log_temp_files = 0" "autovacuum_naptime = 1" \
    "log_min_duration_statement = -1" "log_statement = 'all'"
pg_start
pg_createdb lockspan

echo "context.sh: running on 127.0.0.1:$PORT" >&2
"$PYTHON" "$HERE/scenarios_context.py" --port "$PORT" --truth "$WORK/truth.json"

pg_stop
[[ -s $LOGDIR/postgresql.log ]] || die "server did not write postgresql.log"

mkdir -p "$OUTDIR"
install -m 644 "$LOGDIR/postgresql.log" "$WORK/truth.json" "$OUTDIR/"
printf '%s' "$PREFIX" >"$OUTDIR/prefix.txt"
chmod 644 "$OUTDIR/prefix.txt"
ls -l "$OUTDIR" >&2
