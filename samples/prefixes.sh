#!/usr/bin/env bash
# Generate small PostgreSQL 15 stderr logs, one per log_line_prefix and one
# per log_timezone, for the log_line_prefix inference and time zone tests.
#
# Usage: samples/prefixes.sh [OUTDIR]     (default: the directory of this script)
#
# Writes OUTDIR/prefixes/<n>.log + <n>.prefix (the true log_line_prefix, no
# trailing newline), OUTDIR/prefix-change/1.log (a log whose prefix changes
# by reload in mid-file after 5 rounds of the workload, more than the 200
# lines an inference reads) + 1.prefixes (the two prefixes, one per line) and OUTDIR/timezones/<n>.log + <n>.prefix + <n>.zone (the
# log_timezone) + <n>.utc ("<mark> <UTC instant>" per line, taken client-side
# from now() AT TIME ZONE 'UTC' of the statement whose log line carries the
# mark).
#
# One private, throw-away server (loopback, trust auth) runs as the `postgres`
# user, like generate.sh. For each case the script points log_filename at a
# scratch file, changes log_line_prefix / log_timezone, then points
# log_filename at the case's file (the logging collector rotates on that
# change), so every line of a case's file carries that case's prefix. The
# workload per case: a connection over TCP and one over the unix socket, a
# few statements, a division by zero, a lock wait between two psql sessions
# (log_lock_waits, deadlock_timeout = 100ms) and a CHECKPOINT (lines of a
# non-session process).
#
# Env: LOCKSPAN_PGPORT (default 54361), LOCKSPAN_PGBIN (default
#      /usr/lib/postgresql/15/bin).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUTDIR=${1:-$HERE}
PORT=${LOCKSPAN_PGPORT:-54361}
PGBIN=${LOCKSPAN_PGBIN:-/usr/lib/postgresql/15/bin}

# n|log_line_prefix
PREFIXES=(
    "1|%m [%p] "
    "2|%t:%r:%u@%d:[%p]:"
    "3|%m [%p] %q%u@%d "
    "4|%t [%p]: user=%u,db=%d,app=%a,client=%h "
    "5|%t [%p]: [%l-1] user=%u,db=%d,app=%a,client=%h "
    "6|%m [%p] %q%u@%d/%a %c %l %v %x %e "
    "7|%-8p %m "
    "8|%n [%p] %q%u@%d "
    "9|%m [%p] %s %i %q%u@%d "
    "10|%m [%p] [queryid=%Q] %q%u@%d "
    "11|%t [%p]: appli=%a,user=%u,db=%d,client=%h "
    "12|%t [%l-1] %q%u@%d "
    "13|%m [%p] [%l-1] %q%u@%d "
    "14|%m [%p-%l] %q%u@%d "
    "15|%m [%p-%l] %q[queryid=%Q] appli=%a user=%u "
)
# n|log_timezone|log_line_prefix
ZONES=(
    "1|Europe/Moscow|%m [%p] "
    "2|America/Sao_Paulo|%t [%p]: user=%u,db=%d,app=%a,client=%h "
    "3|Asia/Kolkata|%m [%p] %q%u@%d "
    "4|Europe/Berlin|%t:%r:%u@%d:[%p]:"
    "5|America/Chicago|%m [%p] %q%u@%d/%a %c %l %v %x %e "
    "6|Etc/GMT-5|%t [%p]: [%l-1] user=%u,db=%d,app=%a,client=%h "
)

# shellcheck source=samples/pgserver.sh
. "$HERE/pgserver.sh"

pg_require
command -v psql >/dev/null || die "psql not found"

pg_workdir lockspan-prefixes
pg_initdb
# No log_line_prefix here: each case sets its own (ALTER SYSTEM).
# compute_query_id: %Q prints 0 without it.
pg_settings "log_filename = 'startup.log'" "log_checkpoints = on" "compute_query_id = on"
pg_start

# psql over the unix socket as the superuser, quiet, unaligned.
admin() { psql -X -q -At -v ON_ERROR_STOP=1 -h "$SOCK" -p "$PORT" -U "$PG_USER" -d postgres "$@"; }
# psql over TCP into the sample database with an application name.
tcp() { PGAPPNAME=$1 psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U "$PG_USER" -d lockspan "${@:2}"; }

admin -c "CREATE DATABASE lockspan" >/dev/null
tcp setup -c "CREATE TABLE accounts(id int PRIMARY KEY, balance numeric)" \
    -c "INSERT INTO accounts SELECT g, 100 FROM generate_series(1, 10) g" >/dev/null

# Point the log at `file` with the ALTER SYSTEM statements after it in force.
switch_log() {
    local file=$1 stmt args=()
    for stmt in "${@:2}"; do args+=(-c "$stmt"); done
    admin -c "ALTER SYSTEM SET log_filename = 'switch.log'" -c "SELECT pg_reload_conf()" >/dev/null
    sleep 0.5
    admin "${args[@]}" -c "SELECT pg_reload_conf()" >/dev/null
    sleep 0.5
    admin -c "ALTER SYSTEM SET log_filename = '$file'" -c "SELECT pg_reload_conf()" >/dev/null
    sleep 0.5
}

# The workload of one case; prints "<mark> <UTC>" for each marked statement.
workload() {
    local tag=$1 mark
    for mark in 1 2; do
        tcp "$tag-client" -c "SELECT '$tag-mark-$mark' AS mark, now() AT TIME ZONE 'UTC'" \
            | awk -F'|' '{ print $1 " " $2 }'
        sleep 0.3
    done
    tcp "$tag-client" -c "SELECT count(*) FROM accounts" -c "SELECT 1/0" >/dev/null 2>&1 || true
    # A lock wait: the holder keeps row 1 for 0.5 s, the waiter waits for it.
    tcp billing -c "BEGIN" -c "UPDATE accounts SET balance = balance + 1 WHERE id = 1" \
        -c "SELECT pg_sleep(0.5)" -c "COMMIT" >/dev/null &
    local holder=$!
    sleep 0.15
    tcp checkout -c "UPDATE accounts SET balance = balance - 1 WHERE id = 1" >/dev/null
    wait "$holder"
    PGAPPNAME="$tag-local" psql -X -q -At -h "$SOCK" -p "$PORT" -U "$PG_USER" -d lockspan \
        -c "SELECT 'local'" >/dev/null
    admin -c "CHECKPOINT"
    sleep 0.3
}

mkdir -p "$OUTDIR/prefixes" "$OUTDIR/timezones"

for entry in "${PREFIXES[@]}"; do
    n=${entry%%|*}
    prefix=${entry#*|}
    echo "prefixes.sh: prefix $n: '$prefix'" >&2
    switch_log "p$n.log" "ALTER SYSTEM SET log_line_prefix = '$prefix'"
    workload "p$n" >/dev/null
done

for entry in "${ZONES[@]}"; do
    n=${entry%%|*}
    rest=${entry#*|}
    zone=${rest%%|*}
    prefix=${rest#*|}
    echo "prefixes.sh: zone $n: $zone, '$prefix'" >&2
    switch_log "z$n.log" "ALTER SYSTEM SET log_line_prefix = '$prefix'" \
        "ALTER SYSTEM SET log_timezone = '$zone'"
    workload "z$n" >"$WORK/z$n.utc"
done

# The prefix changes in mid-file: a reload, as after editing postgresql.conf.
CHANGE=("%m [%p] %q%u@%d " "%t [%p]: [%l-1] user=%u,db=%d,app=%a,client=%h ")
echo "prefixes.sh: prefix change '${CHANGE[0]}' -> '${CHANGE[1]}'" >&2
switch_log "c1.log" "ALTER SYSTEM SET log_line_prefix = '${CHANGE[0]}'"
for _ in 1 2 3 4 5; do workload c1 >/dev/null; done
admin -c "ALTER SYSTEM SET log_line_prefix = '${CHANGE[1]}'" -c "SELECT pg_reload_conf()" >/dev/null
sleep 0.5
for _ in 1 2 3 4 5; do workload c1 >/dev/null; done

admin -c "ALTER SYSTEM SET log_filename = 'switch.log'" -c "SELECT pg_reload_conf()" >/dev/null
sleep 0.5
pg_stop

for entry in "${PREFIXES[@]}"; do
    n=${entry%%|*}
    [[ -s $LOGDIR/p$n.log ]] || die "server did not write p$n.log"
    cp "$LOGDIR/p$n.log" "$OUTDIR/prefixes/$n.log"
    printf '%s' "${entry#*|}" >"$OUTDIR/prefixes/$n.prefix"
done
for entry in "${ZONES[@]}"; do
    n=${entry%%|*}
    rest=${entry#*|}
    [[ -s $LOGDIR/z$n.log ]] || die "server did not write z$n.log"
    cp "$LOGDIR/z$n.log" "$OUTDIR/timezones/$n.log"
    printf '%s' "${rest#*|}" >"$OUTDIR/timezones/$n.prefix"
    printf '%s' "${rest%%|*}" >"$OUTDIR/timezones/$n.zone"
    cp "$WORK/z$n.utc" "$OUTDIR/timezones/$n.utc"
done
mkdir -p "$OUTDIR/prefix-change"
cp "$LOGDIR/c1.log" "$OUTDIR/prefix-change/1.log"
printf '%s\n' "${CHANGE[@]}" >"$OUTDIR/prefix-change/1.prefixes"
chmod 644 "$OUTDIR"/prefixes/* "$OUTDIR"/timezones/* "$OUTDIR"/prefix-change/*
echo "prefixes.sh: wrote $OUTDIR/prefixes and $OUTDIR/timezones" >&2
