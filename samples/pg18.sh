#!/usr/bin/env bash
# Lock-contention samples from a real PostgreSQL 18 (or 17) server, which
# needs a newer glibc than Debian 12's: it runs in a chroot of Debian sid
# (or trixie) made with debootstrap.
#
# Usage:
#   samples/pg18.sh setup                 # make the chroot (once, ~3 min)
#   samples/pg18.sh OUTDIR [LANG...]      # run; default LANGs: C de_DE zh_CN
#                                         # (a LANG's locale is generated in
#                                         # the chroot when missing)
#
# For each LANG the server runs with lc_messages = LANG (.UTF-8), writes
# stderr, csvlog and jsonlog, and samples/scenarios_pg18.py drives it from
# this machine over 127.0.0.1 (NOWAIT failure, deadlock, relation wait,
# lock and statement timeouts, a serialization failure) and writes the
# client-side truth. Results: OUTDIR/DIR/{postgresql.log.gz,
# postgresql.csv.gz,postgresql.json.gz,prefix.txt,truth.json,version.txt},
# DIR being C, de, zh_CN (as samples/i18n.sh names them).
#
# Settings beyond samples/pgserver.sh's: log_lock_failures = on and
# log_connections = 'all' (both new in 18), log_destination with csvlog and
# jsonlog, autovacuum off (nothing else takes locks).
#
# Env: LOCKSPAN_PG18_ROOT   the chroot (default /srv/pg18)
#      LOCKSPAN_PG18_SUITE  Debian suite for setup (default sid; trixie has 17)
#      LOCKSPAN_PGMAJOR     PostgreSQL major version in the chroot (default 18)
#      LOCKSPAN_PGPORT      TCP port on 127.0.0.1 (default 55440)
#      LOCKSPAN_PYTHON      Python with psycopg2 on this machine (/usr/bin/python3)
# Run as root (chroot, mount). proc and a tmpfs on dev/shm are mounted in
# the chroot while the servers run and unmounted at the end (those this
# script mounted); every server is stopped by its postmaster's pid.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=${LOCKSPAN_PG18_ROOT:-/srv/pg18}
SUITE=${LOCKSPAN_PG18_SUITE:-sid}
MAJOR=${LOCKSPAN_PGMAJOR:-18}
PORT=${LOCKSPAN_PGPORT:-55440}
PYTHON=${LOCKSPAN_PYTHON:-/usr/bin/python3}
PREFIX='%m [%p] %q%u@%d/%a %c %l %v %x %e '
APT=(apt-get -o Acquire::Check-Valid-Until=false)

die() { echo "${0##*/}: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || die "run as root (chroot, mount)"
(($#)) || die "usage: $0 setup | OUTDIR [LANG...]"

# in_root, as_pg, mount_fs, umount_fs, stop_server (WORK: the run's
# directory inside the chroot, PGBIN once set)
. "$HERE/chroot.sh"

setup() {
    command -v debootstrap >/dev/null || die "apt-get install debootstrap"
    [[ -d $ROOT/usr ]] || debootstrap --variant=minbase "$SUITE" "$ROOT" http://deb.debian.org/debian
    # No service may start in the chroot (it shares this machine's ports),
    # and no cluster is made at install.
    printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"
    chmod +x "$ROOT/usr/sbin/policy-rc.d"
    mkdir -p "$ROOT/etc/postgresql-common/createcluster.d"
    echo "create_main_cluster = false" >"$ROOT/etc/postgresql-common/createcluster.d/lockspan.conf"
    printf 'de_DE.UTF-8 UTF-8\nzh_CN.UTF-8 UTF-8\nen_US.UTF-8 UTF-8\n' >"$ROOT/etc/locale.gen"
    mount_fs
    trap umount_fs EXIT
    in_root env DEBIAN_FRONTEND=noninteractive "${APT[@]}" update
    in_root env DEBIAN_FRONTEND=noninteractive "${APT[@]}" install -y --no-install-recommends \
        "postgresql-$MAJOR" locales
    in_root locale-gen
}

if [[ $1 == setup ]]; then
    setup
    exit 0
fi

OUT=$1
shift
langs=("$@")
((${#langs[@]})) || langs=(C de_DE zh_CN)
PGBIN=/usr/lib/postgresql/$MAJOR/bin
[[ -x $ROOT$PGBIN/postgres ]] || die "no PostgreSQL $MAJOR in $ROOT (run: $0 setup)"
"$PYTHON" -c 'import psycopg2' || die "$PYTHON cannot import psycopg2"
# Each language's locale in the chroot (setup makes de_DE's and zh_CN's).
gen=0
for l in "${langs[@]}"; do
    [[ $l == C ]] || grep -qx "$l.UTF-8 UTF-8" "$ROOT/etc/locale.gen" && continue
    echo "$l.UTF-8 UTF-8" >>"$ROOT/etc/locale.gen"
    gen=1
done
((gen == 0)) || in_root locale-gen >/dev/null

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

for l in "${langs[@]}"; do
    # LANG -> lc_messages and sample directory (as samples/i18n.sh names them)
    case $l in
    C) loc=C dir=C ;;
    zh_* | pt_*) loc=$l.UTF-8 dir=$l ;;
    *) loc=$l.UTF-8 dir=${l%%_*} ;;
    esac
    WORK=$(in_root mktemp -d /tmp/lockspan-pg18.XXXXXX)
    chmod 755 "$ROOT$WORK"
    in_root chown postgres "$WORK"
    as_pg "$PGBIN/initdb" -D "$WORK/data" -U postgres --auth=trust --no-locale -E UTF8 \
        >/dev/null
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
log_lock_failures = on
deadlock_timeout = '100ms'
log_min_duration_statement = 0
log_connections = 'all'
log_disconnections = on
lc_messages = '$loc'
log_timezone = 'UTC'
timezone = 'UTC'
autovacuum = off
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
    if [[ $MAJOR -lt 18 ]]; then
        sed -i -e '/^log_lock_failures/d' -e "s/^log_connections = 'all'/log_connections = on/" \
            "$ROOT$WORK/data/postgresql.conf"
    fi
    as_pg "$PGBIN/pg_ctl" -D "$WORK/data" -l "$WORK/pg_ctl.out" -w -t 60 start >/dev/null \
        || { cat "$ROOT$WORK/pg_ctl.out" >&2; die "pg_ctl start failed"; }
    as_pg "$PGBIN/createdb" -h "$WORK/sock" -p "$PORT" -U postgres lockspan
    "$PYTHON" "$HERE/scenarios_pg18.py" "$PORT" "$ROOT$WORK/truth.json"
    as_pg "$PGBIN/postgres" --version >"$ROOT$WORK/version.txt"
    stop_server
    d=$OUT/$dir
    mkdir -p "$d"
    for f in postgresql.log postgresql.csv postgresql.json; do
        gzip -9 -n -c "$ROOT$WORK/log/$f" >"$d/$f.gz"
    done
    cp "$ROOT$WORK/truth.json" "$ROOT$WORK/version.txt" "$d/"
    printf '%s\n' "$PREFIX" >"$d/prefix.txt"
    rm -rf "${ROOT:?}$WORK"
    WORK=
done
