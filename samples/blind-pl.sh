#!/usr/bin/env bash
# Regenerate samples/blind-pl/: a shop back end on Perl DBI + DBD::Pg
# (app/shop.pl: 10 forked workers, AutoCommit off, server-side prepared
# statements with placeholders) against a real PostgreSQL 18 with its
# DEFAULT logging: stderr (pg_ctl -l), log_line_prefix '%m [%p] ',
# log_lock_waits on (set: 18.6's default is off), deadlock_timeout 1s,
# log_statement none, no durations, English messages; and the truth the app
# recorded. The server runs in the Debian sid chroot of samples/blind-dj.sh
# (postgresql-18 installed there: `samples/blind-dj.sh setup`); the app runs
# on the host over TCP.
#
#   samples/blind-pl.sh [DURATION_S]     # default 30
#
# Host packages (apt-get install --no-install-recommends): libdbd-pg-perl
# (pulls libdbi-perl; JSON::PP is in perl's core), python3.
# Env: LOCKSPAN_PL_ROOT (the chroot, default /srv/blinddj). Port: PostgreSQL
# 127.0.0.1:55740. Run as root (chroot, mount): proc and a tmpfs on dev/shm
# are mounted in the chroot while the server runs and unmounted at the end;
# the server is stopped by its postmaster's pid. With LOCKSPAN=path/to/lockspan
# it also writes report.md.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$HERE/blind-pl
ROOT=${LOCKSPAN_PL_ROOT:-/srv/blinddj}
PORT=55740
WORKERS=10
MAJOR=18
PGBIN=/usr/lib/postgresql/$MAJOR/bin
GZIP_OVER=$((2 * 1024 * 1024))

die() { echo "${0##*/}: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || die "run as root (chroot, mount)"
# shellcheck source=samples/chroot.sh
. "$HERE/chroot.sh"

DURATION_S=${1:-30}
[[ -x $ROOT$PGBIN/postgres ]] || die "no PostgreSQL $MAJOR in $ROOT (run: samples/blind-dj.sh setup)"
perl -MDBD::Pg -MJSON::PP -e 1 2>/dev/null || die "apt-get install --no-install-recommends libdbd-pg-perl"

TMPD=
cleanup() {
    local rc=$?
    stop_server
    [[ -n $WORK ]] && rm -rf "${ROOT:?}$WORK"
    [[ -n $TMPD ]] && rm -rf "$TMPD"
    umount_fs
    exit $rc
}
mount_fs
trap cleanup EXIT
trap 'exit 130' INT TERM

WORK=$(in_root mktemp -d /tmp/lockspan-blind-pl.XXXXXX)
chmod 755 "$ROOT$WORK"
in_root chown postgres "$WORK"
as_pg "$PGBIN/initdb" -D "$WORK/data" -U postgres --auth=trust --no-locale -E UTF8 >/dev/null
mkdir -p "$ROOT$WORK/sock"
in_root chown postgres "$WORK/sock"
# Logging as the server's defaults (stderr to pg_ctl's -l file, '%m [%p] ',
# deadlock_timeout 1s, log_statement none, no durations) except one line:
# PostgreSQL 18.6 ships log_lock_waits = off (postgresql.conf.sample:
# "#log_lock_waits = off"; the default turned on only after 18), so it is
# set on here, the one setting a DBA of 18 would have to turn on.
cat >>"$ROOT$WORK/data/postgresql.conf" <<CONF
log_lock_waits = on
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$WORK/sock'
fsync = off
CONF
as_pg "$PGBIN/pg_ctl" -D "$WORK/data" -l "$WORK/postgresql.log" -w -t 60 start >/dev/null \
    || { cat "$ROOT$WORK/postgresql.log" >&2; die "pg_ctl start failed"; }
as_pg "$PGBIN/createdb" -h "$WORK/sock" -p "$PORT" -U postgres shop
as_pg "$PGBIN/psql" -q -X -v ON_ERROR_STOP=1 -h "$WORK/sock" -p "$PORT" -d shop \
    -f - <"$OUT/app/schema.sql" >/dev/null
TMPD=$(mktemp -d /tmp/lockspan-blind-pl-rec.XXXXXX)
perl "$OUT/app/shop.pl" 127.0.0.1 "$PORT" "$DURATION_S" "$WORKERS" "$TMPD"
{
    echo "server: $(as_pg "$PGBIN/postgres" --version)"
    echo "chroot: Debian $(cat "$ROOT/etc/debian_version")"
    echo "host: Debian $(cat /etc/debian_version)"
    echo "perl: $(perl -e 'print $^V')"
    # shellcheck disable=SC2016 # dpkg-query's own format
    dpkg-query -W -f='${Package}: ${Version}\n' libdbd-pg-perl libdbi-perl libpq5
    for s in logging_collector log_destination log_line_prefix log_statement log_duration \
        log_min_duration_statement log_min_error_statement log_lock_waits deadlock_timeout \
        lc_messages log_timezone log_connections log_checkpoints; do
        echo "$s = '$(as_pg "$PGBIN/psql" -X -A -t -h "$WORK/sock" -p "$PORT" -d shop -c "SHOW $s")'"
    done
} >"$TMPD/settings.txt"
stop_server

rm -f "$OUT"/postgresql.log* "$OUT"/truth.json* "$OUT"/records.jsonl* "$OUT"/clock.json "$OUT"/report.*
cp "$ROOT$WORK/postgresql.log" "$OUT/postgresql.log"
chmod 644 "$OUT/postgresql.log"
cp "$TMPD/settings.txt" "$OUT/settings.txt"
if (($(stat -c %s "$OUT/postgresql.log") > GZIP_OVER)); then gzip -9n "$OUT/postgresql.log"; fi
cat "$TMPD"/worker-*.jsonl | gzip -9n >"$OUT/records.jsonl.gz"
cp "$TMPD/clock.json" "$OUT/clock.json"
python3 "$OUT/app/build_truth.py" "$OUT/records.jsonl.gz" "$OUT/clock.json" "$OUT"/postgresql.log* "$OUT/truth.json"
gzip -9n "$OUT/truth.json"
if [[ -n ${LOCKSPAN:-} ]]; then
    (cd "$OUT" && "$LOCKSPAN" analyze -q --generated-at "blind-pl.sh" -o report.md postgresql.log*)
fi
echo "${0##*/}: wrote $OUT" >&2
