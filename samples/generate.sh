#!/usr/bin/env bash
# Generate a PostgreSQL 15 lock-contention sample with client-side ground truth.
#
# Usage: samples/generate.sh OUTDIR
#
# Starts a private, throw-away PostgreSQL 15 server (loopback only) as the
# unprivileged `postgres` user, drives it with samples/scenarios.py, stops it,
# and copies postgresql.log / .csv / .json, prefix.txt and truth.json to OUTDIR.
#
# Env: LOCKSPAN_PGPORT  TCP port on 127.0.0.1 (default 54329)
#      LOCKSPAN_PGBIN   PostgreSQL bin dir (default /usr/lib/postgresql/15/bin)
#      LOCKSPAN_PYTHON  Python with psycopg2 (default /usr/bin/python3)
#      LOCKSPAN_PREFIX  log_line_prefix (default below; samples/rds uses RDS's)
#      LOCKSPAN_SCENARIOS  scenario set: basic (default) | correlation
#      LOCKSPAN_LOG_STATEMENT  'all': log_statement = 'all' and
#                       log_min_duration_statement = -1 (default: durations)
set -euo pipefail

if [[ $# -ne 1 ]]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi

OUTDIR=$1
PORT=${LOCKSPAN_PGPORT:-54329}
PGBIN=${LOCKSPAN_PGBIN:-/usr/lib/postgresql/15/bin}
PYTHON=${LOCKSPAN_PYTHON:-/usr/bin/python3}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PG_USER=postgres
# Keep exactly this default: the C tests parse the stderr log with it.
PREFIX=${LOCKSPAN_PREFIX:-'%m [%p] %q%u@%d/%a %c %l %v %x %e '}

SCENARIO_SET=${LOCKSPAN_SCENARIOS:-basic}
LOG_STATEMENT=${LOCKSPAN_LOG_STATEMENT:-none}

die() { echo "generate.sh: $*" >&2; exit 1; }

[[ -x $PGBIN/postgres ]] || die "no PostgreSQL binaries in $PGBIN"
id -u "$PG_USER" >/dev/null 2>&1 || die "system user '$PG_USER' does not exist"
"$PYTHON" -c 'import psycopg2' 2>/dev/null || die "$PYTHON cannot import psycopg2 (apt-get install python3-psycopg2)"
if [[ $SCENARIO_SET == correlation ]]; then
    "$PYTHON" -c 'import psycopg' 2>/dev/null || die "$PYTHON cannot import psycopg (apt-get install python3-psycopg)"
fi

# Run a command as the postgres user (PostgreSQL refuses to run as root).
as_pg() {
    if [[ $(id -u) -eq 0 ]]; then
        runuser -u "$PG_USER" -- "$@"
    elif [[ $(id -un) == "$PG_USER" ]]; then
        "$@"
    else
        die "run as root (or as $PG_USER)"
    fi
}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/lockspan-samples.XXXXXX")
DATA=$WORK/data
SOCK=$WORK/sock
LOGDIR=$WORK/log
mkdir -p "$SOCK" "$LOGDIR"
chmod 755 "$WORK"
if [[ $(id -u) -eq 0 ]]; then
    chown "$PG_USER" "$WORK" "$SOCK" "$LOGDIR"
fi

server_pid() {
    if [[ -f $DATA/postmaster.pid ]]; then
        head -n 1 "$DATA/postmaster.pid" 2>/dev/null || true
    fi
}

# True if the process exists and is not a zombie (the daemonized postmaster
# may be re-parented to an init that does not reap it promptly).
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
        echo "generate.sh: postmaster $pid still alive after pg_ctl stop, killing it" >&2
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 50); do alive "$pid" || break; sleep 0.1; done
        if alive "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
    fi
}

cleanup() {
    local rc=$?
    stop_server
    rm -rf "$WORK"
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "generate.sh: initdb in $DATA" >&2
as_pg "$PGBIN/initdb" -D "$DATA" -U "$PG_USER" --auth=trust --no-locale -E UTF8 >"$WORK/initdb.out" 2>&1 \
    || { cat "$WORK/initdb.out" >&2; die "initdb failed"; }

cat >>"$DATA/postgresql.conf" <<EOF

# ---- lockspan sample generator ----
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$SOCK'
logging_collector = on
log_destination = 'stderr,csvlog,jsonlog'
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
EOF
if [[ $LOG_STATEMENT == all ]]; then
    printf "log_min_duration_statement = -1\nlog_statement = 'all'\n" >>"$DATA/postgresql.conf"
fi

echo "generate.sh: starting server on 127.0.0.1:$PORT" >&2
as_pg "$PGBIN/pg_ctl" -D "$DATA" -l "$WORK/pg_ctl.out" -w -t 60 start >/dev/null \
    || { cat "$WORK/pg_ctl.out" >&2 || true; die "pg_ctl start failed"; }

as_pg "$PGBIN/createdb" -h "$SOCK" -p "$PORT" -U "$PG_USER" lockspan

echo "generate.sh: running scenarios" >&2
"$PYTHON" "$HERE/scenarios.py" --host 127.0.0.1 --port "$PORT" --user "$PG_USER" \
    --dbname lockspan --prefix "$PREFIX" --truth "$WORK/truth.json" \
    --set "$SCENARIO_SET" --log-statement "$LOG_STATEMENT" \
    --snapshots "$WORK/pg_stat_activity.csv"

# Stop the server first so that every log line is flushed.
stop_server

for f in postgresql.log postgresql.csv postgresql.json; do
    [[ -s $LOGDIR/$f ]] || die "server did not write $f"
done

mkdir -p "$OUTDIR"
cp "$LOGDIR/postgresql.log" "$LOGDIR/postgresql.csv" "$LOGDIR/postgresql.json" "$OUTDIR/"
cp "$WORK/truth.json" "$OUTDIR/truth.json"
if [[ -f $WORK/pg_stat_activity.csv ]]; then
    install -m 644 "$WORK/pg_stat_activity.csv" "$OUTDIR/pg_stat_activity.csv"
fi
printf '%s' "$PREFIX" >"$OUTDIR/prefix.txt"
chmod 644 "$OUTDIR"/postgresql.log "$OUTDIR"/postgresql.csv "$OUTDIR"/postgresql.json \
    "$OUTDIR"/prefix.txt "$OUTDIR"/truth.json

echo "generate.sh: wrote $OUTDIR/{postgresql.log,postgresql.csv,postgresql.json,prefix.txt,truth.json}" >&2
