#!/usr/bin/env bash
# Generate real PostgreSQL 15 logs (stderr + csvlog of the same run) in
# which a client switches its application_name to a value that imitates
# the rest of a line ("x ERROR:  y", "z LOG:  duration: 1.000 ms") for a
# few statements, then back: the one-line switch forgery of issue 37. The
# lines around the forged ones carry the true name, so only what the log
# itself proves (the SET statement, when it is logged) can tell them.
#
# Usage: samples/forged-switch.sh [OUTDIR]   (default: samples/forged-switch)
#
# Writes OUTDIR/<mode>.log (stderr) and OUTDIR/<mode>.csv (csvlog of the
# same events), with log_line_prefix '%m [%p] %q%u@%d/%a ' (the name
# right before the severity), for each mode:
#   stmt   log_statement = 'all' and log_min_duration_statement = 0
#          (the SET is logged before it runs, its duration after)
#   dur    log_min_duration_statement = 0 only ("duration: N ms  statement:
#          SET ...", logged after it ran, under the new name)
#   err    neither: only errors, their STATEMENT lines and connections
# The workload of each (the same each time):
#   - session "x": SELECT 1, a real error, SET application_name to
#     'x ERROR:  y', SELECT 2, a real error, SET it back to 'x', SELECT 3,
#     a real error;
#   - session "z": SET application_name to 'z LOG:  duration: 1.000 ms',
#     SELECT 6, SET it back, SELECT 7.
# The csvlog is the ground truth: its fields cannot be forged.
#
# One private, throw-away server per mode (samples/pgserver.sh): loopback,
# trust auth, run as the `postgres` user.
# Env: LOCKSPAN_PGPORT (default 55482), LOCKSPAN_PGBIN (default
#      /usr/lib/postgresql/15/bin).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUTDIR=${1:-$HERE/forged-switch}
PORT=${LOCKSPAN_PGPORT:-55482}
PGBIN=${LOCKSPAN_PGBIN:-/usr/lib/postgresql/15/bin}
PREFIX='%m [%p] %q%u@%d/%a '

# shellcheck source=samples/pgserver.sh
. "$HERE/pgserver.sh"

pg_require
command -v psql >/dev/null || die "psql not found"

tcp() { PGAPPNAME=$1 psql -X -q -At -h 127.0.0.1 -p "$PORT" -U "$PG_USER" -d postgres "${@:2}"; }

workload() {
    tcp x -c "SELECT 1" -c "SELECT 1/0" >/dev/null 2>&1 || true
    # one session: psql -c runs each in turn and stops at the first error,
    # so the errors come from a script that goes on after them
    tcp x -v ON_ERROR_STOP=0 >/dev/null 2>&1 <<'SQL' || true
SELECT 1;
SELECT 1/0;
SET application_name = 'x ERROR:  y';
SELECT 2;
SELECT 1/0;
SET application_name = 'x';
SELECT 3;
SELECT 1/0;
SQL
    tcp z -c "SELECT 5" -c "SET application_name = 'z LOG:  duration: 1.000 ms'" \
        -c "SELECT 6" -c "SET application_name = 'z'" -c "SELECT 7" >/dev/null 2>&1 || true
    sleep 0.3
}

mkdir -p "$OUTDIR"
for mode in stmt dur err; do
    case $mode in
    stmt) settings=("log_statement = 'all'" "log_min_duration_statement = 0") ;;
    dur) settings=("log_statement = 'none'" "log_min_duration_statement = 0") ;;
    err) settings=("log_statement = 'none'" "log_min_duration_statement = -1") ;;
    esac
    echo "forged-switch.sh: $mode" >&2
    pg_workdir "lockspan-forged-switch-$mode"
    pg_initdb
    pg_settings "log_filename = 'pg.log'" "log_destination = 'stderr,csvlog'" \
        "log_line_prefix = '$PREFIX'" "${settings[@]}"
    pg_start
    workload
    pg_stop
    [[ -s $LOGDIR/pg.log && -s $LOGDIR/pg.csv ]] || die "server did not write pg.log/.csv"
    cp "$LOGDIR/pg.log" "$OUTDIR/$mode.log"
    cp "$LOGDIR/pg.csv" "$OUTDIR/$mode.csv"
    rm -rf "$WORK"
done
trap - EXIT
printf '%s' "$PREFIX" >"$OUTDIR/prefix.txt"
chmod 644 "$OUTDIR"/*
echo "forged-switch.sh: wrote $OUTDIR" >&2
