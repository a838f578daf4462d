#!/usr/bin/env bash
# Regenerate samples/blind-pool/: a real Node.js ticketing service (plain
# http + Sequelize on pg, stock OpenTelemetry auto-instrumentation, OTLP/HTTP
# JSON export) talking to a real PostgreSQL 17 THROUGH pgbouncer in
# transaction pooling mode, driven by concurrent HTTP clients; and the truth
# the app recorded on the client side. Run as root; needs node/npm (npm ci
# fetches app/node_modules once), pgbouncer (apt-get install pgbouncer) and
# the PostgreSQL 17 chroot (samples/pg18.sh with LOCKSPAN_PG18_ROOT and
# LOCKSPAN_PGMAJOR=17 makes one).
#   samples/blind-pool.sh [DURATION_S]      (default 30)
# With LOCKSPAN=path/to/lockspan it also writes report.md, report.html and
# report.json.gz (lockspan analyze of the jsonlog and the export).
# Env: LOCKSPAN_PG17_ROOT  the chroot (default /srv/pg17-structural)
# Ports (127.0.0.1): PostgreSQL 55540, pgbouncer 55541, app 55542, partner
# stub 55543, OTLP receiver 55544. proc and a tmpfs on dev/shm are mounted in
# the chroot while the server runs and unmounted at the end (those this
# script mounted); every process is stopped by its pid.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$HERE/blind-pool
APP=$OUT/app
ROOT=${LOCKSPAN_PG17_ROOT:-/srv/pg17-structural}
PGBIN=/usr/lib/postgresql/17/bin
PORT=55540
PGB_PORT=55541
APP_PORT=55542
PARTNER_PORT=55543
OTLP_PORT=55544
DURATION_S=${1:-30}
PREFIX='%t [%p]: user=%u,db=%d,app=%a,client=%h '
OTLP_GZIP_OVER=$((2 * 1024 * 1024))    # gzip the export when bigger

die() { echo "${0##*/}: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || die "run as root (chroot, mount)"
[[ -x $ROOT$PGBIN/postgres ]] || die "no PostgreSQL 17 in $ROOT"
command -v pgbouncer >/dev/null || die "apt-get install pgbouncer"

# as_pg, alive, mount_fs, umount_fs, stop_server (WORK: the run's
# directory inside the chroot)
. "$HERE/chroot.sh"

# stop_pid PID [TENTHS]: TERM, wait up to TENTHS/10 s (default 5 s), KILL.
stop_pid() {
    local pid=$1
    [[ -n $pid ]] && alive "$pid" || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq "${2:-50}"); do alive "$pid" || return 0; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
}

# wait_port PORT: wait up to 10 s for something to listen on 127.0.0.1:PORT.
wait_port() {
    for _ in $(seq 100); do
        (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.1
    done
    die "nothing listens on port $1"
}

PGB_DIR='' STUBS_PID='' APP_PID='' PGB_PID=''
cleanup() {
    local rc=$?
    stop_pid "$APP_PID" 100
    stop_pid "$STUBS_PID"
    stop_pid "$PGB_PID"
    stop_server
    [[ -n $WORK ]] && rm -rf "${ROOT:?}$WORK"
    [[ -n $PGB_DIR ]] && rm -rf "$PGB_DIR"
    umount_fs
    exit $rc
}

[[ -d $APP/node_modules ]] || (cd "$APP" && npm ci --no-audit --no-fund)
mount_fs
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- PostgreSQL 17, settings a DBA might have ----
WORK=$(chroot "$ROOT" mktemp -d /tmp/lockspan-blind-pool.XXXXXX)
chmod 755 "$ROOT$WORK"
chroot "$ROOT" chown postgres "$WORK"
as_pg "$PGBIN/initdb" -D "$WORK/data" -U postgres --auth=trust --no-locale -E UTF8 >/dev/null
mkdir -p "$ROOT$WORK/log" "$ROOT$WORK/sock"
chroot "$ROOT" chown postgres "$WORK/log" "$WORK/sock"
cat >"$OUT/settings.conf" <<CONF
# postgresql.conf lines the sample's server ran with (beyond initdb's)
listen_addresses = '127.0.0.1'
port = $PORT
logging_collector = on
log_destination = 'stderr,jsonlog'
log_filename = 'postgresql.log'
log_rotation_age = 0
log_rotation_size = 0
log_file_mode = 0644
log_line_prefix = '$PREFIX'
log_lock_waits = on
deadlock_timeout = '200ms'
log_min_duration_statement = 50
log_statement = 'none'
log_connections = on
log_disconnections = on
lc_messages = 'C'
log_timezone = 'UTC'
timezone = 'UTC'
fsync = off
synchronous_commit = off
full_page_writes = off
CONF
{
    cat "$OUT/settings.conf"
    echo "unix_socket_directories = '$WORK/sock'"
    echo "log_directory = '$WORK/log'"
} >>"$ROOT$WORK/data/postgresql.conf"
as_pg "$PGBIN/pg_ctl" -D "$WORK/data" -l "$WORK/pg_ctl.out" -w -t 60 start >/dev/null \
    || { cat "$ROOT$WORK/pg_ctl.out" >&2; die "pg_ctl start failed"; }
as_pg "$PGBIN/createuser" -h "$WORK/sock" -p "$PORT" -U postgres ticket_api
as_pg "$PGBIN/createdb" -h "$WORK/sock" -p "$PORT" -U postgres -O ticket_api tickets
chroot "$ROOT" runuser -u postgres -- "$PGBIN/psql" -q -X -v ON_ERROR_STOP=1 \
    -h "$WORK/sock" -p "$PORT" -U ticket_api -d tickets <"$APP/schema.sql" >/dev/null
as_pg "$PGBIN/postgres" --version >"$OUT/version.txt"

# ---- pgbouncer, transaction pooling, as the unprivileged postgres user ----
PGB_DIR=$(mktemp -d /tmp/lockspan-blind-pool-pgb.XXXXXX)
sed -e "s/@PORT@/$PORT/" -e "s/@PGB_PORT@/$PGB_PORT/" -e "s|@DIR@|$PGB_DIR|g" \
    "$APP/pgbouncer.ini.in" >"$PGB_DIR/pgbouncer.ini"
chown -R postgres "$PGB_DIR"
setpriv --reuid=postgres --regid=postgres --init-groups \
    pgbouncer "$PGB_DIR/pgbouncer.ini" >/dev/null 2>&1 & PGB_PID=$!
wait_port "$PGB_PORT"

# ---- the app, its stubs, the load ----
export PGB_PORT APP_PORT PARTNER_PORT OTLP_PORT
export OTLP_OUT=$PGB_DIR/traces.otlp.jsonl TRUTH_OUT=$PGB_DIR/truth.jsonl
export OTEL_SERVICE_NAME=ticket-api
export OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://127.0.0.1:$OTLP_PORT/v1/traces
export OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json
: >"$OTLP_OUT"; : >"$TRUTH_OUT"
(cd "$APP" && exec node stubs.js) & STUBS_PID=$!
wait_port "$PARTNER_PORT"; wait_port "$OTLP_PORT"
(cd "$APP" && exec node -r ./tracing.js app.js) & APP_PID=$!
wait_port "$APP_PORT"

(cd "$APP" && DURATION_S=$DURATION_S node load.js) >"$PGB_DIR/load.out"
cat "$PGB_DIR/load.out"
kill -USR2 "$APP_PID"             # the app notes the clock offset again
sleep 2                           # ... and the last batch of spans goes out
stop_pid "$APP_PID" 100           # SIGTERM: the SDK flushes, then exits
sleep 0.5
stop_pid "$STUBS_PID"
stop_pid "$PGB_PID"
cp "$PGB_DIR/pgbouncer.log" "$OUT/pgbouncer.log"
stop_server

rm -f "$OUT"/postgresql.log "$OUT"/postgresql.json "$OUT"/traces.otlp.jsonl*
cp "$ROOT$WORK/log/postgresql.log" "$ROOT$WORK/log/postgresql.json" "$OUT/"
cp "$OTLP_OUT" "$OUT/traces.otlp.jsonl"
if (($(stat -c %s "$OUT/traces.otlp.jsonl") > OTLP_GZIP_OVER)); then
    gzip -9n "$OUT/traces.otlp.jsonl"
fi
cp "$PGB_DIR/load.out" "$OUT/load.out"
python3 "$APP/build_truth.py" "$TRUTH_OUT" "$OUT/truth.json"
cp "$APP/pgbouncer.ini.in" "$OUT/pgbouncer.ini"
if [[ -n ${LOCKSPAN:-} ]]; then
    rm -f "$OUT"/report.*
    (cd "$OUT" && "$LOCKSPAN" analyze -q --generated-at "blind-pool.sh" \
        -o report.md -o report.html -o report.json \
        postgresql.json traces.otlp.jsonl*)
    gzip -9n "$OUT/report.json"
fi
echo "${0##*/}: wrote $OUT" >&2
