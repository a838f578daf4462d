#!/usr/bin/env bash
# Regenerate samples/blind-otel/: a real Node.js service (Express + knex +
# pg, OpenTelemetry auto-instrumentation, OTLP/HTTP JSON export) driven by
# concurrent HTTP clients against a real PostgreSQL 15, and the truth the
# app recorded on the client side. Run as root from the repository root or
# anywhere; needs node/npm (npm ci fetches app/node_modules once).
#   samples/blind-otel.sh [DURATION_S]      (default 25)
# With LOCKSPAN=path/to/lockspan it also writes report.md, report.html and
# report.json.gz (lockspan analyze of the log and the export).
# Ports (127.0.0.1): PostgreSQL 55490, app 55491, partner stub 55492,
# OTLP receiver 55493.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$HERE/blind-otel
APP=$OUT/app
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
PORT=55490
APP_PORT=55491
PARTNER_PORT=55492
OTLP_PORT=55493
DURATION_S=${1:-25}
PREFIX='%m [%p] %q%u@%d/%a '
OTLP_GZIP_OVER=$((2 * 1024 * 1024))    # gzip the export when bigger

# shellcheck source=samples/pgserver.sh
source "$HERE/pgserver.sh"

STUBS_PID= APP_PID=
stop_node() {
    stop_pid "$APP_PID" 100
    stop_pid "$STUBS_PID"
}
PG_ON_EXIT=(stop_node pg_stop)

# wait_port PORT: wait up to 10 s for something to listen on 127.0.0.1:PORT.
wait_port() {
    for _ in $(seq 100); do
        (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.1
    done
    die "nothing listens on port $1"
}

[[ -d $APP/node_modules ]] || (cd "$APP" && npm ci --no-audit --no-fund)
pg_require
pg_workdir lockspan-blind-otel
pg_initdb
pg_settings "log_line_prefix = '$PREFIX'" "log_destination = 'stderr,csvlog'"
pg_start
pg_createdb shop
as_pg "$PGBIN/psql" -q -X -v ON_ERROR_STOP=1 -h "$SOCK" -p "$PORT" -d shop \
    <"$APP/schema.sql" >/dev/null

export PGPORT=$PORT APP_PORT PARTNER_PORT OTLP_PORT
export OTLP_OUT=$WORK/traces.otlp.jsonl TRUTH_OUT=$WORK/truth.jsonl
export OTEL_SERVICE_NAME=shop-api
export OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://127.0.0.1:$OTLP_PORT/v1/traces
export OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json
: >"$OTLP_OUT"; : >"$TRUTH_OUT"
(cd "$APP" && exec node stubs.js) & STUBS_PID=$!
wait_port "$PARTNER_PORT"; wait_port "$OTLP_PORT"
(cd "$APP" && exec node -r ./tracing.js app.js) & APP_PID=$!
wait_port "$APP_PORT"

(cd "$APP" && DURATION_S=$DURATION_S node load.js) >"$WORK/load.out"
cat "$WORK/load.out"
sleep 2                           # let the last batch of spans go out
stop_pid "$APP_PID" 100           # SIGTERM: the SDK flushes, then exits
sleep 0.5
stop_pid "$STUBS_PID"
pg_stop

rm -f "$OUT"/postgresql.log "$OUT"/postgresql.csv "$OUT"/traces.otlp.jsonl*
cp "$LOGDIR/postgresql.log" "$LOGDIR/postgresql.csv" "$OUT/"
cp "$OTLP_OUT" "$OUT/traces.otlp.jsonl"
if (($(stat -c %s "$OUT/traces.otlp.jsonl") > OTLP_GZIP_OVER)); then
    gzip -9n "$OUT/traces.otlp.jsonl"
fi
python3 "$APP/build_truth.py" "$TRUTH_OUT" "$OUT/truth.json"
echo "log_line_prefix: $PREFIX" >"$OUT/settings.txt"
if [[ -n ${LOCKSPAN:-} ]]; then
    rm -f "$OUT"/report.*
    (cd "$OUT" && "$LOCKSPAN" analyze -q --generated-at "blind-otel.sh" \
        -o report.md -o report.html -o report.json \
        postgresql.log traces.otlp.jsonl*)
    gzip -9n "$OUT/report.json"
fi
echo "${0##*/}: wrote $OUT" >&2
