#!/usr/bin/env bash
# Regenerate samples/blind-ts/: a real Node.js ticketing service (TypeORM +
# pg, OpenTelemetry auto-instrumentation incl. the npm TypeORM
# instrumentation, OTLP/HTTP JSON export) under libfaketime (its clock
# skewed from the server's), driven by concurrent HTTP clients against a
# real PostgreSQL 15 that writes a German csvlog; and the truth the app
# recorded on the client side. Run as root; needs node/npm (npm ci fetches
# app/node_modules once) and Debian's faketime and German locale.
#   samples/blind-ts.sh [DURATION_S]      (default 25)
# With LOCKSPAN=path/to/lockspan it also writes report.md and report.json.gz
# (lockspan analyze of the csvlog and the export).
# Ports (127.0.0.1): PostgreSQL 55660, app 55661, payment stub 55662,
# OTLP receiver 55663.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$HERE/blind-ts
APP=$OUT/app
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
PORT=55660
APP_PORT=55661
PARTNER_PORT=55662
OTLP_PORT=55663
DURATION_S=${1:-25}
APP_SKEW=${APP_SKEW:--0.061}            # libfaketime offset of the app, seconds
FAKETIME_LIB=/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1
GZIP_OVER=$((2 * 1024 * 1024))          # gzip the log / export when bigger

# shellcheck source=samples/pgserver.sh
source "$HERE/pgserver.sh"

STUBS_PID= APP_PID=
stop_node() {
    stop_pid "$APP_PID" 100
    stop_pid "$STUBS_PID"
}
PG_ON_EXIT=(stop_node pg_stop)

wait_port() {
    for _ in $(seq 100); do
        (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.1
    done
    die "nothing listens on port $1"
}

[[ -f $FAKETIME_LIB ]] || die "no $FAKETIME_LIB (apt-get install faketime)"
locale -a | grep -qi '^de_DE\.utf-\?8$' || die "no de_DE.UTF-8 locale (locale-gen)"
[[ -d $APP/node_modules ]] || (cd "$APP" && npm ci --no-audit --no-fund)
pg_require
pg_workdir lockspan-blind-ts
pg_initdb
pg_settings "log_destination = 'csvlog'" "lc_messages = 'de_DE.UTF-8'" \
    "log_line_prefix = '%m [%p] '"
pg_start
pg_createdb boxoffice
as_pg "$PGBIN/psql" -q -X -v ON_ERROR_STOP=1 -h "$SOCK" -p "$PORT" -d boxoffice \
    <"$APP/schema.sql" >/dev/null

export PGPORT=$PORT APP_PORT PARTNER_PORT OTLP_PORT
export OTLP_OUT=$WORK/traces.otlp.jsonl TRUTH_OUT=$WORK/truth.jsonl
export OTEL_SERVICE_NAME=box-office
export OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://127.0.0.1:$OTLP_PORT/v1/traces
export OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json
: >"$OTLP_OUT"; : >"$TRUTH_OUT"
(cd "$APP" && exec node stubs.js) & STUBS_PID=$!
wait_port "$PARTNER_PORT"; wait_port "$OTLP_PORT"
(cd "$APP" && FAKETIME="$APP_SKEW" LD_PRELOAD=$FAKETIME_LIB exec node -r ./tracing.js app.js) &
APP_PID=$!
wait_port "$APP_PORT"

(cd "$APP" && DURATION_S=$DURATION_S node load.js) >"$WORK/load.out"
cat "$WORK/load.out"
kill -USR2 "$APP_PID"             # measure the offset again, then SIGTERM:
for _ in $(seq 100); do alive "$APP_PID" || break; sleep 0.1; done  # SDK flush
stop_pid "$APP_PID" 100
sleep 0.5
stop_pid "$STUBS_PID"
pg_stop

rm -f "$OUT"/postgresql.csv* "$OUT"/traces.otlp.jsonl* "$OUT"/report.*
cp "$LOGDIR/postgresql.csv" "$OUT/postgresql.csv"
cp "$OTLP_OUT" "$OUT/traces.otlp.jsonl"
for f in "$OUT/postgresql.csv" "$OUT/traces.otlp.jsonl"; do
    if (($(stat -c %s "$f") > GZIP_OVER)); then gzip -9n "$f"; fi
done
python3 "$APP/build_truth.py" "$TRUTH_OUT" "$OUT/truth.json" "$APP_SKEW"
{
    echo "log_destination: csvlog (logging_collector on), lc_messages: de_DE.UTF-8"
    echo "log_line_prefix: %m [%p] (not used by csvlog)"
    echo "app clock: FAKETIME=$APP_SKEW (libfaketime), OTEL spans in the app clock"
} >"$OUT/settings.txt"
if [[ -n ${LOCKSPAN:-} ]]; then
    (cd "$OUT" && "$LOCKSPAN" analyze -q --generated-at "blind-ts.sh" \
        -o report.md -o report.json postgresql.csv* traces.otlp.jsonl*)
    gzip -9n "$OUT/report.json"
fi
echo "${0##*/}: wrote $OUT" >&2
