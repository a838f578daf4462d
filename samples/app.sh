#!/usr/bin/env bash
# Regenerate samples/app: a small traced application (samples/app/app.js,
# OpenTelemetry JS SDK + node-postgres) run against a real, private
# PostgreSQL 15, with its traces in three formats and client-side truth.
#
# Usage: samples/app.sh [OUTDIR]          (default: samples/app)
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
PG_USER=postgres
PREFIX='%m [%p] %q%u@%d/%a %c %l %v %x %e '

die() { echo "app.sh: $*" >&2; exit 1; }

[[ -x $PGBIN/postgres ]] || die "no PostgreSQL binaries in $PGBIN"
id -u "$PG_USER" >/dev/null 2>&1 || die "system user '$PG_USER' does not exist"
command -v "$NODE" >/dev/null || die "node not found (needed only to regenerate this sample)"
if [[ ! -d $APPDIR/node_modules ]]; then
    (cd "$APPDIR" && npm ci --no-audit --no-fund) || die "npm ci failed"
fi

as_pg() {
    if [[ $(id -u) -eq 0 ]]; then
        runuser -u "$PG_USER" -- "$@"
    elif [[ $(id -un) == "$PG_USER" ]]; then
        "$@"
    else
        die "run as root (or as $PG_USER)"
    fi
}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/lockspan-app.XXXXXX")
DATA=$WORK/data
SOCK=$WORK/sock
LOGDIR=$WORK/log
mkdir -p "$SOCK" "$LOGDIR" "$WORK/traces"
chmod 755 "$WORK"
if [[ $(id -u) -eq 0 ]]; then
    chown "$PG_USER" "$WORK" "$SOCK" "$LOGDIR"
fi

CHILD_PIDS=()

server_pid() {
    if [[ -f $DATA/postmaster.pid ]]; then
        head -n 1 "$DATA/postmaster.pid" 2>/dev/null || true
    fi
}

alive() {
    local state
    kill -0 "$1" 2>/dev/null || return 1
    state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null || true)
    [[ -n $state && $state != Z && $state != X ]]
}

stop_server() {
    local pid
    pid=$(server_pid)
    [[ -n $pid ]] || return 0
    as_pg "$PGBIN/pg_ctl" -D "$DATA" -m fast -w -t 30 stop >"$WORK/pg_ctl_stop.out" 2>&1 \
        || cat "$WORK/pg_ctl_stop.out" >&2
    for _ in $(seq 20); do alive "$pid" || break; sleep 0.1; done
    if alive "$pid"; then
        echo "app.sh: postmaster $pid still alive after pg_ctl stop, killing it" >&2
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 50); do alive "$pid" || break; sleep 0.1; done
        if alive "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
    fi
}

stop_children() {
    local pid
    for pid in "${CHILD_PIDS[@]}"; do
        if alive "$pid"; then
            kill -TERM "$pid" 2>/dev/null || true
            for _ in $(seq 30); do alive "$pid" || break; sleep 0.1; done
            if alive "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
        fi
        wait "$pid" 2>/dev/null || true
    done
    CHILD_PIDS=()
}

cleanup() {
    local rc=$?
    stop_children
    stop_server
    rm -rf "$WORK"
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wait_port() { # PORT NAME
    for _ in $(seq 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.05
    done
    die "$2 did not start listening on 127.0.0.1:$1"
}

echo "app.sh: initdb in $DATA" >&2
as_pg "$PGBIN/initdb" -D "$DATA" -U "$PG_USER" --auth=trust --no-locale -E UTF8 >"$WORK/initdb.out" 2>&1 \
    || { cat "$WORK/initdb.out" >&2; die "initdb failed"; }

cat >>"$DATA/postgresql.conf" <<CONF

# ---- lockspan samples/app.sh ----
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$SOCK'
logging_collector = on
log_destination = 'stderr'
log_directory = '$LOGDIR'
log_filename = 'postgresql.log'
log_rotation_age = 0
log_rotation_size = 0
log_file_mode = 0644
log_lock_waits = on
deadlock_timeout = '100ms'
log_min_duration_statement = 0
log_connections = on
log_disconnections = on
lc_messages = 'C'
log_timezone = 'UTC'
timezone = 'UTC'
log_line_prefix = '$PREFIX'
fsync = off
synchronous_commit = off
full_page_writes = off
CONF

echo "app.sh: starting PostgreSQL on 127.0.0.1:$PORT" >&2
as_pg "$PGBIN/pg_ctl" -D "$DATA" -l "$WORK/pg_ctl.out" -w -t 60 start >/dev/null \
    || { cat "$WORK/pg_ctl.out" >&2 || true; die "pg_ctl start failed"; }
as_pg "$PGBIN/createdb" -h "$SOCK" -p "$PORT" -U "$PG_USER" lockspan

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
stop_server
[[ -s $LOGDIR/postgresql.log ]] || die "server did not write postgresql.log"
[[ -s $WORK/traces/traces.otlp.jsonl ]] || die "no OTLP received"

mkdir -p "$OUTDIR"
cp "$LOGDIR/postgresql.log" "$OUTDIR/postgresql.log"
printf '%s' "$PREFIX" >"$OUTDIR/prefix.txt"
cp "$WORK/traces/traces.otlp.jsonl" "$OUTDIR/traces.otlp.jsonl"
gzip -9 -n -c "$OUTDIR/traces.otlp.jsonl" >"$OUTDIR/traces.otlp.jsonl.gz"
cp "$WORK/traces/traces.zipkin.json" "$OUTDIR/traces.zipkin.json"
"$PYTHON" "$APPDIR/otlp2jaeger.py" "$OUTDIR/traces.otlp.jsonl" >"$OUTDIR/traces.jaeger.json"
"$PYTHON" "$APPDIR/make_truth.py" "$WORK/run.json" "$OUTDIR/truth.json"
chmod 644 "$OUTDIR"/postgresql.log "$OUTDIR"/prefix.txt "$OUTDIR"/traces.* "$OUTDIR"/truth.json
echo "app.sh: wrote $OUTDIR/{postgresql.log,prefix.txt,traces.otlp.jsonl[.gz],traces.zipkin.json,traces.jaeger.json,truth.json}" >&2
"$PYTHON" "$HERE/check_app.py" "$OUTDIR" || die "check_app.py failed on $OUTDIR (a marginal wait? run again)"
