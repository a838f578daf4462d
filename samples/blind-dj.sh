#!/usr/bin/env bash
# Regenerate samples/blind-dj/: a shop service on Django (Debian's
# python3-django + python3-psycopg2, app/run.py: 12 worker threads, each with
# persistent connections, one application_name) against a real PostgreSQL 18
# logging jsonlog in Spanish (lc_messages = es_ES.UTF-8) with
# log_statement = 'all' and log_duration = on (durations on their own
# records, without the statement), log_lock_waits = on and
# deadlock_timeout = 200ms; and the truth the app recorded. Both the server
# and the app run in a Debian sid chroot made with debootstrap.
#
#   samples/blind-dj.sh setup            # make the chroot (once, ~4 min)
#   samples/blind-dj.sh [DURATION_S]     # run (default 30)
#
# setup installs in the chroot: postgresql-18, locales, python3-django,
# python3-psycopg2 (apt-get, --no-install-recommends) and generates
# es_ES.UTF-8. With LOCKSPAN=path/to/lockspan it also writes report.md.
# Env: LOCKSPAN_DJ_ROOT (the chroot, default /srv/blinddj). Ports: PostgreSQL
# 127.0.0.1:55720, the slow pricing stub 127.0.0.1:55721. Run as root
# (chroot, mount): proc and a tmpfs on dev/shm are mounted in the chroot
# while the server runs and unmounted at the end; the server is stopped by
# its postmaster's pid.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$HERE/blind-dj
ROOT=${LOCKSPAN_DJ_ROOT:-/srv/blinddj}
PORT=55720
STUB_PORT=55721
MAJOR=18
PGBIN=/usr/lib/postgresql/$MAJOR/bin
APT=(apt-get -o Acquire::Check-Valid-Until=false)
GZIP_OVER=$((2 * 1024 * 1024))

die() { echo "${0##*/}: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || die "run as root (chroot, mount)"
# shellcheck source=samples/chroot.sh
. "$HERE/chroot.sh"

setup() {
    command -v debootstrap >/dev/null || die "apt-get install debootstrap"
    [[ -d $ROOT/usr ]] || debootstrap --variant=minbase sid "$ROOT" http://deb.debian.org/debian
    printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"
    chmod +x "$ROOT/usr/sbin/policy-rc.d"
    mkdir -p "$ROOT/etc/postgresql-common/createcluster.d"
    echo "create_main_cluster = false" >"$ROOT/etc/postgresql-common/createcluster.d/lockspan.conf"
    printf 'es_ES.UTF-8 UTF-8\nen_US.UTF-8 UTF-8\n' >"$ROOT/etc/locale.gen"
    mount_fs
    trap umount_fs EXIT
    in_root env DEBIAN_FRONTEND=noninteractive "${APT[@]}" update
    in_root env DEBIAN_FRONTEND=noninteractive "${APT[@]}" install -y --no-install-recommends \
        "postgresql-$MAJOR" locales python3-django python3-psycopg2
    in_root locale-gen
}

if [[ ${1:-} == setup ]]; then
    setup
    exit 0
fi
DURATION_S=${1:-30}
[[ -x $ROOT$PGBIN/postgres ]] || die "no PostgreSQL $MAJOR in $ROOT (run: $0 setup)"
in_root python3 -c 'import django, psycopg2' || die "no python3-django/python3-psycopg2 in $ROOT"

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

WORK=$(in_root mktemp -d /tmp/lockspan-blind-dj.XXXXXX)
chmod 755 "$ROOT$WORK"
in_root chown postgres "$WORK"
as_pg "$PGBIN/initdb" -D "$WORK/data" -U postgres --auth=trust --no-locale -E UTF8 >/dev/null
mkdir -p "$ROOT$WORK/log" "$ROOT$WORK/sock"
cp -r "$OUT/app" "$ROOT$WORK/app"
find "$ROOT$WORK/app" -name __pycache__ -prune -exec rm -rf {} +
in_root chown -R postgres "$WORK/log" "$WORK/sock" "$WORK/app"
cat >>"$ROOT$WORK/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$WORK/sock'
logging_collector = on
log_destination = 'jsonlog'
log_directory = '$WORK/log'
log_filename = 'postgresql.log'
log_rotation_age = 0
log_rotation_size = 0
log_file_mode = 0644
log_statement = 'all'
log_duration = on
log_min_duration_statement = -1
log_lock_waits = on
deadlock_timeout = '200ms'
lc_messages = 'es_ES.UTF-8'
log_timezone = 'UTC'
timezone = 'UTC'
autovacuum = off
fsync = off
full_page_writes = off
CONF
as_pg "$PGBIN/pg_ctl" -D "$WORK/data" -l "$WORK/pg_ctl.out" -w -t 60 start >/dev/null \
    || { cat "$ROOT$WORK/pg_ctl.out" >&2; die "pg_ctl start failed"; }
as_pg "$PGBIN/createdb" -h "$WORK/sock" -p "$PORT" -U postgres shop
as_pg "$PGBIN/psql" -q -X -v ON_ERROR_STOP=1 -h "$WORK/sock" -p "$PORT" -d shop \
    -f "$WORK/app/schema.sql" >/dev/null
as_pg python3 "$WORK/app/run.py" 127.0.0.1 "$PORT" "$STUB_PORT" "$DURATION_S" "$WORK/truth.jsonl"
{
    echo "server: $(as_pg "$PGBIN/postgres" --version)"
    echo "chroot: Debian $(cat "$ROOT/etc/debian_version")"
    # shellcheck disable=SC2016 # dpkg-query's own format
    in_root dpkg-query -W -f='${Package}: ${Version}\n' python3 python3-django python3-psycopg2
    for s in log_destination log_statement log_duration log_min_duration_statement \
        log_lock_waits deadlock_timeout lc_messages log_timezone log_connections; do
        echo "$s = '$(as_pg "$PGBIN/postgres" -D "$WORK/data" -C "$s")'"
    done
} >"$ROOT$WORK/settings.txt"
stop_server

rm -f "$OUT"/postgresql.json* "$OUT"/truth.json* "$OUT"/report.*
cp "$ROOT$WORK/log/postgresql.json" "$OUT/postgresql.json"
cp "$ROOT$WORK/settings.txt" "$OUT/settings.txt"
if (($(stat -c %s "$OUT/postgresql.json") > GZIP_OVER)); then gzip -9n "$OUT/postgresql.json"; fi
python3 "$OUT/app/build_truth.py" "$ROOT$WORK/truth.jsonl" "$OUT/truth.json"
gzip -9n "$OUT/truth.json"
if [[ -n ${LOCKSPAN:-} ]]; then
    (cd "$OUT" && "$LOCKSPAN" analyze -q --generated-at "blind-dj.sh" -o report.md postgresql.json*)
fi
echo "${0##*/}: wrote $OUT" >&2
