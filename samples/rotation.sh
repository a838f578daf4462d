#!/usr/bin/env bash
# Generate a directory of rotated PostgreSQL 15 logs with ground truth.
#
# Usage: samples/rotation.sh OUTDIR
#
# Like generate.sh (same server setup, same basic scenarios), but the
# logging collector rotates small files: log_destination = 'stderr,csvlog',
# log_rotation_size = 8kB and log_filename = 'postgresql-%a-%S-%M.log'.
# Seconds come before minutes, so once the run crosses a minute (the
# scenarios start at second 54 to make sure it does) the names do not sort
# in time order, as 'postgresql-%a.log' or '-%H.log' do not across a
# week or midnight. The
# stderr and csvlog files rotate independently (each when it passes the
# size), so the two formats' names do not pair up. After the run every
# other rotated file (never the newest) is gzip-compressed, as logrotate's
# delaycompress would leave a mix. OUTDIR receives the log files, prefix.txt and
# truth.json.
#
# Env: LOCKSPAN_PGPORT  TCP port on 127.0.0.1 (default 54395)
#      LOCKSPAN_PGBIN   PostgreSQL bin dir (default /usr/lib/postgresql/15/bin)
#      LOCKSPAN_PYTHON  Python with psycopg2 (default /usr/bin/python3)
set -euo pipefail

if [[ $# -ne 1 ]]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi

OUTDIR=$1
PORT=${LOCKSPAN_PGPORT:-54395}
PGBIN=${LOCKSPAN_PGBIN:-/usr/lib/postgresql/15/bin}
PYTHON=${LOCKSPAN_PYTHON:-/usr/bin/python3}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PG_USER=postgres
PREFIX='%m [%p] %q%u@%d/%a %c %l %v %x %e '

die() { echo "rotation.sh: $*" >&2; exit 1; }

[[ -x $PGBIN/postgres ]] || die "no PostgreSQL binaries in $PGBIN"
id -u "$PG_USER" >/dev/null 2>&1 || die "system user '$PG_USER' does not exist"
"$PYTHON" -c 'import psycopg2' 2>/dev/null || die "$PYTHON cannot import psycopg2 (apt-get install python3-psycopg2)"

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
        echo "rotation.sh: postmaster $pid still alive after pg_ctl stop, killing it" >&2
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

echo "rotation.sh: initdb in $DATA" >&2
as_pg "$PGBIN/initdb" -D "$DATA" -U "$PG_USER" --auth=trust --no-locale -E UTF8 >"$WORK/initdb.out" 2>&1 \
    || { cat "$WORK/initdb.out" >&2; die "initdb failed"; }

cat >>"$DATA/postgresql.conf" <<EOF

# ---- lockspan sample generator ----
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$SOCK'
logging_collector = on
log_destination = 'stderr,csvlog'
log_directory = '$LOGDIR'
log_filename = 'postgresql-%a-%S-%M.log'
log_rotation_age = 0
log_rotation_size = '8kB'
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

echo "rotation.sh: starting server on 127.0.0.1:$PORT" >&2
as_pg "$PGBIN/pg_ctl" -D "$DATA" -l "$WORK/pg_ctl.out" -w -t 60 start >/dev/null \
    || { cat "$WORK/pg_ctl.out" >&2 || true; die "pg_ctl start failed"; }

as_pg "$PGBIN/createdb" -h "$SOCK" -p "$PORT" -U "$PG_USER" lockspan

# Start at second 54: the run (about 10 s) then crosses a minute.
sec=$((10#$(date +%S)))
if (( sec != 54 )); then
    sleep $(( (54 - sec + 60) % 60 ))
fi
echo "rotation.sh: running scenarios" >&2
"$PYTHON" "$HERE/scenarios.py" --host 127.0.0.1 --port "$PORT" --user "$PG_USER" \
    --dbname lockspan --prefix "$PREFIX" --truth "$WORK/truth.json"

# Stop the server first so that every log line is flushed.
stop_server

shopt -s nullglob
logs=("$LOGDIR"/postgresql-*.log)
csvs=("$LOGDIR"/postgresql-*.csv)
(( ${#logs[@]} >= 3 && ${#csvs[@]} >= 3 )) \
    || die "expected several rotated files, got ${#logs[@]} .log and ${#csvs[@]} .csv"

mkdir -p "$OUTDIR"
rm -f "$OUTDIR"/postgresql-*
# Keep modification times (cp -p): they are the fallback order.
cp -p "${logs[@]}" "${csvs[@]}" "$OUTDIR/"
cp "$WORK/truth.json" "$OUTDIR/truth.json"
printf '%s' "$PREFIX" >"$OUTDIR/prefix.txt"
chmod 644 "$OUTDIR"/postgresql-* "$OUTDIR"/prefix.txt "$OUTDIR"/truth.json
# Compress every other file of each format, oldest first by mtime, never the
# newest (the one the server still writes to); gzip keeps the mtime.
for ext in log csv; do
    # shellcheck disable=SC2012
    ls -1tr "$OUTDIR"/postgresql-*."$ext" | head -n -1 | awk 'NR % 2 == 1' |
        while read -r f; do gzip -9n "$f"; done
done

echo "rotation.sh: wrote $(ls "$OUTDIR" | wc -l) files to $OUTDIR" >&2
