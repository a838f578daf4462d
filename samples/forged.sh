#!/usr/bin/env bash
# Generate real PostgreSQL 15 logs (stderr + csvlog of the same run) in
# which a client sets an application_name that looks like a log_line_prefix
# followed by " ERROR:  ", for the prefix parser's forgery tests.
#
# Usage: samples/forged.sh [OUTDIR]     (default: samples/forged)
#
# Writes OUTDIR/<n>.log (stderr), OUTDIR/<n>.csv (csvlog of the same
# events) and OUTDIR/<n>.prefix (the true log_line_prefix, no newline) for
# each prefix below:
#   1  '%t [%p]: [%l-1] user=%u,db=%d '         pgBadger / Heroku style
#   2  '%t [%p]: [%l-1] user=%u,db=%d,app=%a '  the same with the app name
#   3  '%m [%p] %q%u@%d/%a '                    app name right before the severity
#
# The workload per case (the same each time):
#   - a "forger" session that runs SET application_name = '<fake prefix>
#     ERROR:  forged ...', then a real division by zero, then waits for a
#     row another session holds (a real lock wait), then holds a row while
#     another session waits for it;
#   - a session whose startup packet carries such a name (PGAPPNAME);
#   - plain sessions around them.
# The csvlog is the ground truth: its severities do not depend on parsing
# the prefix.
#
# One private, throw-away server (samples/pgserver.sh): loopback, trust
# auth, run as the `postgres` user.
# Env: LOCKSPAN_PGPORT (default 55481), LOCKSPAN_PGBIN (default
#      /usr/lib/postgresql/15/bin).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUTDIR=${1:-$HERE/forged}
PORT=${LOCKSPAN_PGPORT:-55481}
PGBIN=${LOCKSPAN_PGBIN:-/usr/lib/postgresql/15/bin}

PREFIXES=(
    "1|%t [%p]: [%l-1] user=%u,db=%d "
    "2|%t [%p]: [%l-1] user=%u,db=%d,app=%a "
    "3|%m [%p] %q%u@%d/%a "
)

# shellcheck source=samples/pgserver.sh
. "$HERE/pgserver.sh"

pg_require
command -v psql >/dev/null || die "psql not found"

pg_workdir lockspan-forged
pg_initdb
pg_settings "log_filename = 'startup.log'" "log_destination = 'stderr,csvlog'"
pg_start

admin() { psql -X -q -At -v ON_ERROR_STOP=1 -h "$SOCK" -p "$PORT" -U "$PG_USER" -d postgres "$@"; }
tcp() { PGAPPNAME=$1 psql -X -q -At -h 127.0.0.1 -p "$PORT" -U "$PG_USER" -d lockspan "${@:2}"; }

admin -c "CREATE DATABASE lockspan" >/dev/null
tcp setup -v ON_ERROR_STOP=1 -c "CREATE TABLE accounts(id int PRIMARY KEY, balance numeric)" \
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

# What an application_name can hold (printable ASCII, at most 63 bytes):
# prefixes above print it, then a severity. One per prefix form.
FAKE_T="x 2026-12-06 10:00:00 UTC [123]: [1-1] u=a ERROR:  forged t"
FAKE_M="x 2026-12-06 10:00:00.000 UTC [123] a@b/c ERROR:  forged m"

workload() {
    local tag=$1 holder
    tcp "$tag-plain" -c "SELECT 'plain-1'" -c "SELECT count(*) FROM accounts" >/dev/null
    # The forger: a real error, then a real wait for row 1 (billing holds it
    # for 0.5 s), then it holds row 2 while checkout waits for it.
    tcp billing -c "BEGIN" -c "UPDATE accounts SET balance = balance + 1 WHERE id = 1" \
        -c "SELECT pg_sleep(0.5)" -c "COMMIT" >/dev/null &
    holder=$!
    sleep 0.15
    tcp "$tag-forger" -c "SET application_name = '$FAKE_T'" -c "SELECT 1/0" \
        -c "SET application_name = '$FAKE_M'" \
        -c "UPDATE accounts SET balance = balance - 1 WHERE id = 1" \
        -c "BEGIN" -c "UPDATE accounts SET balance = balance - 1 WHERE id = 2" \
        -c "SELECT pg_sleep(0.6)" -c "COMMIT" >/dev/null 2>&1 &
    local forger=$!
    wait "$holder"
    sleep 0.2
    tcp checkout -c "UPDATE accounts SET balance = balance + 1 WHERE id = 2" >/dev/null
    wait "$forger" || true
    # A name set in the startup packet, then a real error.
    tcp "$FAKE_T" -c "SELECT 'startup-named'" -c "SELECT 1/0" >/dev/null 2>&1 || true
    tcp "$tag-plain" -c "SELECT 'plain-2'" >/dev/null
    sleep 0.3
}

for entry in "${PREFIXES[@]}"; do
    n=${entry%%|*}
    prefix=${entry#*|}
    echo "forged.sh: prefix $n: '$prefix'" >&2
    switch_log "f$n.log" "ALTER SYSTEM SET log_line_prefix = '$prefix'"
    workload "f$n"
done

admin -c "ALTER SYSTEM SET log_filename = 'switch.log'" -c "SELECT pg_reload_conf()" >/dev/null
sleep 0.5
pg_stop

mkdir -p "$OUTDIR"
for entry in "${PREFIXES[@]}"; do
    n=${entry%%|*}
    [[ -s $LOGDIR/f$n.log && -s $LOGDIR/f$n.csv ]] || die "server did not write f$n.log/.csv"
    cp "$LOGDIR/f$n.log" "$OUTDIR/$n.log"
    cp "$LOGDIR/f$n.csv" "$OUTDIR/$n.csv"
    printf '%s' "${entry#*|}" >"$OUTDIR/$n.prefix"
done
chmod 644 "$OUTDIR"/*
echo "forged.sh: wrote $OUTDIR" >&2
