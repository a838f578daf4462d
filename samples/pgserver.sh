# A private, throw-away PostgreSQL server for the sample generators.
# Source it (do not run it) from a script that has set PORT (TCP port on
# 127.0.0.1) and PGBIN (PostgreSQL bin dir). It runs the server as the
# `postgres` user (PostgreSQL refuses to run as root), loopback only, with
# trust auth and its own socket directory. Typical use:
#
#   pg_require; pg_workdir lockspan-NAME; pg_initdb
#   pg_settings "log_line_prefix = '$PREFIX'"; pg_start; pg_createdb lockspan
#   ...; pg_stop        # pg_stop also runs from the EXIT trap
#
# Sets PG_USER, WORK (the temp dir), DATA, SOCK and LOGDIR.
# shellcheck shell=bash

PG_USER=postgres

# Print "SCRIPT: message" on stderr and exit 1.
die() { echo "${0##*/}: $*" >&2; exit 1; }

# Fail early if the PostgreSQL binaries or the postgres user are missing.
pg_require() {
    [[ -x $PGBIN/postgres ]] || die "no PostgreSQL binaries in $PGBIN"
    id -u "$PG_USER" >/dev/null 2>&1 || die "system user '$PG_USER' does not exist"
}

# Run a command as the postgres user (as root through runuser).
as_pg() {
    if [[ $(id -u) -eq 0 ]]; then
        runuser -u "$PG_USER" -- "$@"
    elif [[ $(id -un) == "$PG_USER" ]]; then
        "$@"
    else
        die "run as root (or as $PG_USER)"
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

# stop_pid PID [TENTHS]: TERM, wait up to TENTHS/10 s (default 5 s), KILL.
stop_pid() {
    local pid=$1
    [[ -n $pid ]] && alive "$pid" || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq "${2:-50}"); do alive "$pid" || return 0; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
}

# Commands the EXIT trap runs, in order, before it removes $WORK. Callers
# may add theirs before or after pg_stop, e.g. PG_ON_EXIT+=(stop_rsyslogd).
PG_ON_EXIT=(pg_stop)
pg_cleanup() {
    local rc=$? cmd
    for cmd in "${PG_ON_EXIT[@]}"; do "$cmd" || true; done
    rm -rf "$WORK"
    exit $rc
}

# pg_workdir NAME: make the private temp dir ${TMPDIR:-/tmp}/NAME.XXXXXX
# (data/, sock/, log/; owned by postgres when run as root) and install the
# EXIT trap that stops the server and removes it.
pg_workdir() {
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
    DATA=$WORK/data
    SOCK=$WORK/sock
    LOGDIR=$WORK/log
    mkdir -p "$SOCK" "$LOGDIR"
    chmod 755 "$WORK"
    if [[ $(id -u) -eq 0 ]]; then
        chown "$PG_USER" "$WORK" "$SOCK" "$LOGDIR"
    fi
    trap pg_cleanup EXIT
    trap 'exit 130' INT TERM
}

# Create the cluster in $DATA: trust auth, no locale, UTF8 (hostile.sh
# makes its SQL_ASCII database with pg_createdb -E SQL_ASCII -T template0).
pg_initdb() {
    as_pg "$PGBIN/initdb" -D "$DATA" -U "$PG_USER" --auth=trust --no-locale -E UTF8 \
        >"$WORK/initdb.out" 2>&1 || { cat "$WORK/initdb.out" >&2; die "initdb failed"; }
}

# pg_settings ['name = value'...]: append the common settings to
# postgresql.conf (loopback on $PORT, socket in $SOCK, logging collector
# writing $LOGDIR/postgresql.log, lock waits and every statement's duration
# logged, C messages, UTC, no fsync), then the given lines. A later line
# wins, so the given lines may override the common ones.
pg_settings() {
    cat >>"$DATA/postgresql.conf" <<EOF

# ---- lockspan ${0##*/} ----
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
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
    if (($#)); then printf '%s\n' "$@" >>"$DATA/postgresql.conf"; fi
}

# Start the server and wait (up to 60 s) until it accepts connections.
pg_start() {
    as_pg "$PGBIN/pg_ctl" -D "$DATA" -l "$WORK/pg_ctl.out" -w -t 60 start >/dev/null \
        || { cat "$WORK/pg_ctl.out" >&2 || true; die "pg_ctl start failed"; }
}

# pg_createdb [ARGS...] NAME: createdb over the private socket.
pg_createdb() {
    as_pg "$PGBIN/createdb" -h "$SOCK" -p "$PORT" -U "$PG_USER" "$@"
}

# The postmaster's pid, from postmaster.pid (empty if it is not running).
pg_pid() {
    if [[ -f $DATA/postmaster.pid ]]; then
        head -n 1 "$DATA/postmaster.pid" 2>/dev/null || true
    fi
}

# Stop the server by its pid: pg_ctl stop -m fast, then, if the postmaster
# is still alive 2 s later, TERM and KILL it. A no-op if it is not running.
pg_stop() {
    local pid
    pid=$(pg_pid)
    [[ -n $pid ]] || return 0
    as_pg "$PGBIN/pg_ctl" -D "$DATA" -m fast -w -t 30 stop >"$WORK/pg_ctl_stop.out" 2>&1 \
        || cat "$WORK/pg_ctl_stop.out" >&2
    for _ in $(seq 20); do alive "$pid" || break; sleep 0.1; done
    if alive "$pid"; then
        echo "${0##*/}: postmaster $pid still alive after pg_ctl stop, killing it" >&2
        stop_pid "$pid"
    fi
}
