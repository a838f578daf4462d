#!/usr/bin/env bash
# Regenerate samples/app: a small traced application (samples/app/app.js,
# OpenTelemetry JS SDK + node-postgres) run against a real, private
# PostgreSQL 15, with its traces in three formats and client-side truth.
#
# Usage: samples/app.sh [OUTDIR]          (default: samples/app)
#
# Env: LOCKSPAN_PREFIX (log_line_prefix, default below),
# LOCKSPAN_LOG_STATEMENT=all (log_statement = 'all' and no durations, as
# samples/generate.sh), LOCKSPAN_CSVLOG=1 (a csvlog of the same run too,
# postgresql.csv: the control with milliseconds), LOCKSPAN_APP_CHARGE_BY_CUSTOMER=1
# (the checkout's payments-api call names one of three customers in its URL
# and span name: samples/app-urlids). samples/app-seconds is
#   LOCKSPAN_PREFIX='%t [%p-%l] ' LOCKSPAN_LOG_STATEMENT=all LOCKSPAN_CSVLOG=1 \
#       LOCKSPAN_PGPORT=55440 bash samples/app.sh samples/app-seconds
#
# Needs node >= 20 and npm (only to regenerate: the committed sample is used
# without node), /usr/bin/python3, postgresql-15, root (or the postgres user).
# Runs `npm ci` in samples/app if node_modules is missing.
#
# Ports on 127.0.0.1 (env overrides): LOCKSPAN_PGPORT 54397 (PostgreSQL),
# LOCKSPAN_APP_PORT 54396 (the app), LOCKSPAN_PAYMENTS_PORT 54399 (the
# payments-api), LOCKSPAN_RECEIVER_PORT 54398 (OTLP + Zipkin receiver).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
APPDIR=$HERE/app
OUTDIR=${1:-$APPDIR}
PORT=${LOCKSPAN_PGPORT:-54397}
APP_PORT=${LOCKSPAN_APP_PORT:-54396}
PAY_PORT=${LOCKSPAN_PAYMENTS_PORT:-54399}
RCV_PORT=${LOCKSPAN_RECEIVER_PORT:-54398}
PGBIN=${LOCKSPAN_PGBIN:-/usr/lib/postgresql/15/bin}
PYTHON=${LOCKSPAN_PYTHON:-/usr/bin/python3}
NODE=${LOCKSPAN_NODE:-node}
PREFIX=${LOCKSPAN_PREFIX:-'%m [%p] %q%u@%d/%a %c %l %v %x %e '}
LOG_STATEMENT=${LOCKSPAN_LOG_STATEMENT:-none}
CSVLOG=${LOCKSPAN_CSVLOG:-0}

# shellcheck source=samples/pgserver.sh
. "$HERE/pgserver.sh"

pg_require
command -v "$NODE" >/dev/null || die "node not found (needed only to regenerate this sample)"
if [[ ! -d $APPDIR/node_modules ]]; then
    (cd "$APPDIR" && npm ci --no-audit --no-fund) || die "npm ci failed"
fi

pg_workdir lockspan-app
mkdir -p "$WORK/traces"

# The node receiver and payments-api, stopped before the server on exit.
CHILD_PIDS=()
stop_children() {
    local pid
    for pid in "${CHILD_PIDS[@]}"; do
        stop_pid "$pid" 30
        wait "$pid" 2>/dev/null || true
    done
    CHILD_PIDS=()
}
PG_ON_EXIT=(stop_children "${PG_ON_EXIT[@]}")

wait_port() { # PORT NAME
    for _ in $(seq 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.05
    done
    die "$2 did not start listening on 127.0.0.1:$1"
}

echo "app.sh: initdb in $DATA" >&2
pg_initdb
settings=("log_line_prefix = '$PREFIX'")
if [[ $LOG_STATEMENT == all ]]; then
    settings+=("log_min_duration_statement = -1" "log_statement = 'all'")
fi
if [[ $CSVLOG == 1 ]]; then
    settings+=("log_destination = 'stderr,csvlog'")
fi
pg_settings "${settings[@]}"

echo "app.sh: starting PostgreSQL on 127.0.0.1:$PORT" >&2
pg_start
pg_createdb lockspan

"$NODE" "$APPDIR/receiver.js" "$RCV_PORT" "$WORK/traces" >"$WORK/receiver.out" 2>&1 &
CHILD_PIDS+=($!)
"$NODE" "$APPDIR/payments.js" "$PAY_PORT" 7 >"$WORK/payments.out" 2>&1 &
CHILD_PIDS+=($!)
wait_port "$RCV_PORT" receiver
wait_port "$PAY_PORT" payments-api

echo "app.sh: running the application" >&2
(cd "$APPDIR" && timeout 60 "$NODE" app.js --pg-port "$PORT" --app-port "$APP_PORT" \
    --payments-port "$PAY_PORT" --receiver-port "$RCV_PORT" --run "$WORK/run.json")

# The app flushed its exporters before exiting; stop the receivers, then the
# server (so that every log line is written).
stop_children
pg_stop
[[ -s $LOGDIR/postgresql.log ]] || die "server did not write postgresql.log"
[[ -s $WORK/traces/traces.otlp.jsonl ]] || die "no OTLP received"

mkdir -p "$OUTDIR"
cp "$LOGDIR/postgresql.log" "$OUTDIR/postgresql.log"
if [[ $CSVLOG == 1 ]]; then
    [[ -s $LOGDIR/postgresql.csv ]] || die "server did not write postgresql.csv"
    cp "$LOGDIR/postgresql.csv" "$OUTDIR/postgresql.csv"
    chmod 644 "$OUTDIR/postgresql.csv"
fi
printf '%s' "$PREFIX" >"$OUTDIR/prefix.txt"
cp "$WORK/traces/traces.otlp.jsonl" "$OUTDIR/traces.otlp.jsonl"
gzip -9 -n -c "$OUTDIR/traces.otlp.jsonl" >"$OUTDIR/traces.otlp.jsonl.gz"
cp "$WORK/traces/traces.zipkin.json" "$OUTDIR/traces.zipkin.json"
"$PYTHON" "$APPDIR/otlp2jaeger.py" "$OUTDIR/traces.otlp.jsonl" >"$OUTDIR/traces.jaeger.json"
"$PYTHON" "$APPDIR/make_truth.py" "$WORK/run.json" "$OUTDIR/truth.json" "$PREFIX" "$LOG_STATEMENT"
chmod 644 "$OUTDIR"/postgresql.log "$OUTDIR"/prefix.txt "$OUTDIR"/traces.* "$OUTDIR"/truth.json
echo "app.sh: wrote $OUTDIR/{postgresql.log,prefix.txt,traces.otlp.jsonl[.gz],traces.zipkin.json,traces.jaeger.json,truth.json}" >&2
# check_app.py reads the default prefix's log (samples/app, app-skew);
# another set is checked by its own test (app-seconds: check_seconds.py).
if [[ $PREFIX == '%m [%p] %q%u@%d/%a %c %l %v %x %e ' && $LOG_STATEMENT == none ]]; then
    "$PYTHON" "$HERE/check_app.py" "$OUTDIR" || die "check_app.py failed on $OUTDIR (a marginal wait? run again)"
fi
