#!/usr/bin/env bash
# Deadlock participants' holds sample (issue 34 item 5): a real PostgreSQL
# 15 server with the default deadlock_timeout (1s), two code paths that
# deadlock on two hot rows round after round, each also locking a row
# nobody else waits for; the victim holds its rows until its ROLLBACK,
# 0.25-0.32 s after the error. Truth from the client only
# (samples/scenarios_deadlock.py). The server writes stderr (%m) and csvlog.
#
# Usage: samples/deadlock.sh MODE OUTDIR
#   MODE durations  log_min_duration_statement = 0       (samples/deadlock-holds)
#        stmtall    log_statement = 'all', no durations   (samples/deadlock-holds-stmtall)
#
# Env: LOCKSPAN_PGPORT (default 55430, 127.0.0.1 only), LOCKSPAN_PGBIN,
#      LOCKSPAN_PYTHON, LOCKSPAN_SEED.
set -euo pipefail

if [[ $# -ne 2 || ! $1 =~ ^(durations|stmtall)$ ]]; then
    echo "usage: $0 durations|stmtall OUTDIR" >&2
    exit 2
fi
MODE=$1
OUTDIR=$2
PORT=${LOCKSPAN_PGPORT:-55430}
PGBIN=${LOCKSPAN_PGBIN:-/usr/lib/postgresql/15/bin}
PYTHON=${LOCKSPAN_PYTHON:-/usr/bin/python3}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PREFIX='%m [%p] %q%u@%d/%a %c %l %v %x %e '

# shellcheck source=samples/pgserver.sh
. "$HERE/pgserver.sh"

pg_require
"$PYTHON" -c 'import psycopg2' 2>/dev/null || die "$PYTHON cannot import psycopg2"

pg_workdir lockspan-deadlock
pg_initdb
settings=("log_line_prefix = '$PREFIX'" "log_destination = 'stderr,csvlog'"
          "deadlock_timeout = '1s'" "log_lock_waits = on")
case $MODE in
    durations) settings+=("log_min_duration_statement = 0" "log_statement = 'none'") ;;
    stmtall)   settings+=("log_min_duration_statement = -1" "log_statement = 'all'") ;;
esac
pg_settings "${settings[@]}"
pg_start
pg_createdb lockspan

echo "deadlock.sh: running $MODE on 127.0.0.1:$PORT" >&2
"$PYTHON" "$HERE/scenarios_deadlock.py" --port "$PORT" --truth "$WORK/truth.json" \
    --set-name "deadlock-$MODE" --log-mode "$MODE" --seed "${LOCKSPAN_SEED:-34}"

pg_stop
[[ -s $LOGDIR/postgresql.log ]] || die "server did not write postgresql.log"

mkdir -p "$OUTDIR"
install -m 644 "$LOGDIR/postgresql.log" "$LOGDIR/postgresql.csv" "$WORK/truth.json" "$OUTDIR/"
printf '%s' "$PREFIX" >"$OUTDIR/prefix.txt"
chmod 644 "$OUTDIR/prefix.txt"
ls -l "$OUTDIR" >&2
