#!/usr/bin/env bash
# Regenerate samples/blind-zk/: a shop service on Sequelize v6 + pg (plain
# `http`, app/app.js) traced by the stock OpenTelemetry JS auto-
# instrumentation (http, pg, opentelemetry-instrumentation-sequelize) and
# exported with @opentelemetry/exporter-zipkin to a tiny local collector
# (app/collector.js) that writes every POSTed body byte for byte, one body
# a line; driven by 12 concurrent clients (app/load.js) for DURATION_S
# seconds against a real PostgreSQL 15 with log_statement = 'mod' (writes
# logged, SELECT ... FOR UPDATE, BEGIN and COMMIT not), log_lock_waits and
# deadlock_timeout = 1s, no durations; and the truth the app recorded.
# Run as root. Needs Node.js (>= 18) and npm; the app's packages come from
# npm (`npm ci` in app/, from package-lock.json, into app/node_modules,
# which is not committed):
#   samples/blind-zk.sh [DURATION_S]      (default 30)
# With LOCKSPAN=path/to/lockspan it also writes report.md and report.json.gz.
# Ports: PostgreSQL 127.0.0.1:55700; app 55710, Zipkin collector 55711,
# slow pricing stub 55712.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$HERE/blind-zk
APP=$OUT/app
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
PORT=55700
APP_PORT=55710
ZIPKIN_PORT=55711
STUB_PORT=55712
DURATION_S=${1:-30}
CLIENTS=12
PREFIX='%m [%p] %q%u@%d/%a '
GZIP_OVER=$((2 * 1024 * 1024))

# shellcheck source=samples/pgserver.sh
source "$HERE/pgserver.sh"

command -v node >/dev/null || die "no node (Node.js >= 18 and npm)"
if [[ ! -d $APP/node_modules ]]; then
    (cd "$APP" && npm ci --no-audit --no-fund >/dev/null) || die "npm ci failed in $APP"
fi
pg_require
pg_workdir lockspan-blind-zk
APP_PID= COLL_PID=
stop_node() { stop_pid "$APP_PID" 100; stop_pid "$COLL_PID" 50; }
PG_ON_EXIT=(stop_node pg_stop)
pg_initdb
# Writes logged (log_statement = 'mod'), lock waits after the default
# deadlock_timeout, no durations, no connections.
pg_settings "log_line_prefix = '$PREFIX'" "deadlock_timeout = '1s'" \
    "log_min_duration_statement = -1" "log_statement = 'mod'" \
    "log_connections = off" "log_disconnections = off"
pg_start
pg_createdb shop
as_pg "$PGBIN/psql" -q -X -v ON_ERROR_STOP=1 -h "$SOCK" -p "$PORT" -d shop \
    <"$APP/schema.sql" >/dev/null

wait_port() {
    for _ in $(seq 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.1
    done
    die "nothing listens on 127.0.0.1:$1"
}
node "$APP/collector.js" "$ZIPKIN_PORT" "$STUB_PORT" "$WORK/zipkin.json" &
COLL_PID=$!
wait_port "$ZIPKIN_PORT"
(cd "$APP" && exec env OTEL_SERVICE_NAME=shop-sequelize \
    ZIPKIN_URL="http://127.0.0.1:$ZIPKIN_PORT/api/v2/spans" \
    node -r ./tracing.js app.js "$PORT" "$APP_PORT" "$STUB_PORT" "$WORK/truth.jsonl") &
APP_PID=$!
wait_port "$APP_PORT"
node "$APP/load.js" "$APP_PORT" "$CLIENTS" "$DURATION_S"
kill -TERM "$APP_PID"
for _ in $(seq 300); do alive "$APP_PID" || break; sleep 0.1; done
stop_pid "$APP_PID" 10
sleep 0.5
kill -TERM "$COLL_PID"
for _ in $(seq 50); do alive "$COLL_PID" || break; sleep 0.1; done
{
    echo "server: PostgreSQL $(as_pg "$PGBIN/postgres" --version | awk '{print $3}')"
    echo "node: $(node --version)"
    (cd "$APP" && node -e 'for (const p of ["sequelize", "pg", "@opentelemetry/sdk-node",
        "@opentelemetry/exporter-zipkin", "@opentelemetry/instrumentation-http",
        "@opentelemetry/instrumentation-pg", "opentelemetry-instrumentation-sequelize"])
        console.log(p + ": " + require(p + "/package.json").version)')
    for s in log_line_prefix log_destination deadlock_timeout log_lock_waits \
        log_min_duration_statement log_statement log_connections lc_messages log_timezone; do
        echo "$s = '$(as_pg "$PGBIN/postgres" -D "$DATA" -C "$s")'"
    done
} >"$WORK/settings.txt"
pg_stop

rm -f "$OUT"/postgresql.log* "$OUT"/zipkin.json* "$OUT"/report.*
cp "$LOGDIR/postgresql.log" "$OUT/postgresql.log"
cp "$WORK/zipkin.json" "$OUT/zipkin.json"
cp "$WORK/settings.txt" "$OUT/settings.txt"
printf '%s' "$PREFIX" >"$OUT/prefix.txt"
for f in postgresql.log zipkin.json; do
    if (($(stat -c %s "$OUT/$f") > GZIP_OVER)); then gzip -9n "$OUT/$f"; fi
done
python3 "$APP/build_truth.py" "$WORK/truth.jsonl" "$OUT/truth.json"
if [[ -n ${LOCKSPAN:-} ]]; then
    (cd "$OUT" && "$LOCKSPAN" analyze -q --generated-at "blind-zk.sh" \
        -o report.md -o report.json postgresql.log* zipkin.json*)
    gzip -9n "$OUT/report.json"
fi
echo "${0##*/}: wrote $OUT" >&2
