#!/usr/bin/env bash
# The DDL pile-up sample (samples/ddl-queue.sh, issue 34 item 8) on a real
# PostgreSQL 17 or 18 server, which needs a newer glibc than Debian 12's:
# the server runs in a chroot of Debian trixie (17) or sid (18) made with
# debootstrap (samples/pg18.sh setup makes one), and the same client,
# samples/scenarios_ddl.py with psycopg2 on this machine, drives it over
# 127.0.0.1. The truth has each session's pid and statements and
# pg_blocking_pids() snapshots taken while they waited.
#
# Usage: samples/ddl-queue-chroot.sh MAJOR OUTDIR
#          (17 samples/ddl-queue-pg17, 18 samples/ddl-queue-pg18)
# Writes OUTDIR/{postgresql.log.gz,postgresql.csv.gz,postgresql.json.gz,
# prefix.txt,truth.json,version.txt}: what samples/ddl-queue.sh writes, the
# logs gzipped (18's are over 190 KB plain) and the server's version.
#
# The server's settings are samples/pgserver.sh's (lock waits and every
# statement's duration logged, deadlock_timeout 100ms, C messages, UTC)
# with stderr, csvlog and jsonlog; on 18 also log_connections = 'all' and
# log_lock_failures = on (both new in 18), so that the sample has 18's new
# lines.
#
# Env: LOCKSPAN_PG_ROOT   the chroot (default /srv/pgMAJOR-structural)
#      LOCKSPAN_PGPORT    TCP port on 127.0.0.1 (default 55530 for 17,
#                         55531 for 18)
#      LOCKSPAN_PYTHON    Python with psycopg2 on this machine (/usr/bin/python3)
# Run as root (chroot, mount). proc and a tmpfs on dev/shm are mounted in
# the chroot while the server runs and unmounted at the end (those this
# script mounted); the server is stopped by its postmaster's pid.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PREFIX='%m [%p] %q%u@%d/%a %c %l %v %x %e '
# Ports of this sample: 127.0.0.1:BASE_PORT + (MAJOR - 17).
BASE_PORT=55530
OLDEST_MAJOR=17

die() { echo "${0##*/}: $*" >&2; exit 1; }
[[ $# -eq 2 ]] || die "usage: $0 MAJOR OUTDIR"
MAJOR=$1
OUT=$2
[[ $MAJOR =~ ^[0-9]+$ && $MAJOR -ge $OLDEST_MAJOR ]] || die "MAJOR must be 17 or later ($MAJOR)"
[[ $(id -u) -eq 0 ]] || die "run as root (chroot, mount)"
ROOT=${LOCKSPAN_PG_ROOT:-/srv/pg$MAJOR-structural}
PORT=${LOCKSPAN_PGPORT:-$((BASE_PORT + MAJOR - OLDEST_MAJOR))}
PYTHON=${LOCKSPAN_PYTHON:-/usr/bin/python3}
PGBIN=/usr/lib/postgresql/$MAJOR/bin
[[ -x $ROOT$PGBIN/postgres ]] || die "no PostgreSQL $MAJOR in $ROOT (samples/pg18.sh setup)"
"$PYTHON" -c 'import psycopg2' 2>/dev/null || die "$PYTHON cannot import psycopg2"

# in_root, as_pg, mount_fs, umount_fs, stop_server (WORK: the run's
# directory inside the chroot)
. "$HERE/chroot.sh"
cleanup() {
    local rc=$?
    stop_server
    [[ -n $WORK ]] && rm -rf "${ROOT:?}$WORK"
    umount_fs
    exit $rc
}
mount_fs
trap cleanup EXIT
trap 'exit 130' INT TERM

WORK=$(in_root mktemp -d /tmp/lockspan-ddl.XXXXXX)
chmod 755 "$ROOT$WORK"
in_root chown postgres "$WORK"
as_pg "$PGBIN/initdb" -D "$WORK/data" -U postgres --auth=trust --no-locale -E UTF8 >/dev/null
mkdir -p "$ROOT$WORK/log" "$ROOT$WORK/sock"
in_root chown postgres "$WORK/log" "$WORK/sock"
cat >>"$ROOT$WORK/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$WORK/sock'
logging_collector = on
log_destination = 'stderr,csvlog,jsonlog'
log_directory = '$WORK/log'
log_filename = 'postgresql.log'
log_rotation_age = 0
log_rotation_size = 0
log_file_mode = 0644
log_line_prefix = '$PREFIX'
log_lock_waits = on
deadlock_timeout = '100ms'
log_min_duration_statement = 0
log_connections = on
log_disconnections = on
lc_messages = 'C'
log_timezone = 'UTC'
timezone = 'UTC'
autovacuum = off
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
if [[ $MAJOR -ge 18 ]]; then
    printf "log_connections = 'all'\nlog_lock_failures = on\n" >>"$ROOT$WORK/data/postgresql.conf"
fi
as_pg "$PGBIN/pg_ctl" -D "$WORK/data" -l "$WORK/pg_ctl.out" -w -t 60 start >/dev/null \
    || { cat "$ROOT$WORK/pg_ctl.out" >&2; die "pg_ctl start failed"; }
as_pg "$PGBIN/createdb" -h "$WORK/sock" -p "$PORT" -U postgres lockspan

echo "${0##*/}: PostgreSQL $MAJOR running on 127.0.0.1:$PORT" >&2
"$PYTHON" "$HERE/scenarios_ddl.py" --port "$PORT" --truth "$ROOT$WORK/truth.json" \
    --prefix "$PREFIX"
as_pg "$PGBIN/postgres" --version >"$ROOT$WORK/version.txt"
stop_server
[[ -s $ROOT$WORK/log/postgresql.log ]] || die "server did not write postgresql.log"

mkdir -p "$OUT"
rm -f "$OUT"/postgresql.{log,csv,json}{,.gz}
for f in postgresql.log postgresql.csv postgresql.json; do
    gzip -9 -n -c "$ROOT$WORK/log/$f" >"$OUT/$f.gz"
done
chmod 644 "$OUT"/postgresql.*.gz
install -m 644 "$ROOT$WORK/truth.json" "$ROOT$WORK/version.txt" "$OUT/"
printf '%s' "$PREFIX" >"$OUT/prefix.txt"
chmod 644 "$OUT/prefix.txt"
ls -l "$OUT" >&2
