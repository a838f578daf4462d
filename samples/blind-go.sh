#!/usr/bin/env bash
# Regenerate samples/blind-go/: a Go order service on pgx v4 (app/shop.go:
# a pgxpool of 8 connections shared by 16 goroutine "requests", extended
# protocol with pgx's statement cache) against PostgreSQL 15 logging the way
# a Debian shop does it through syslog: log_destination = 'syslog' (facility
# local0, ident postgres, sequence numbers on: "[5-1]"), written by rsyslog
# with its default file template RSYSLOG_TraditionalFileFormat ("Dec  7
# 21:50:01 host postgres[1234]: [5-1] ...", whole seconds, no year),
# log_line_prefix 'user=%u,db=%d,app=%a ' (no %m, no %p: syslog has them),
# log_min_duration_statement = 250ms, log_lock_waits = on, deadlock_timeout
# 1s, lc_messages C; and the truth the app recorded. No traces.
#
#   samples/blind-go.sh [DURATION_S]     # default 40
#
# Host packages (apt-get install --no-install-recommends): postgresql-15,
# golang-go (Go 1.19), golang-github-jackc-pgx-v4-dev (pgx 4.15, built in
# GOPATH mode: GOPATH=/usr/share/gocode GO111MODULE=off), rsyslog, python3.
# Run as root: PostgreSQL's syslog(3) writes to /dev/log, so the server runs
# in a private mount namespace whose /dev/log is the socket of a private
# rsyslogd (own config, pid file, stopped by its pid); the machine's /dev
# and any system syslog daemon are left alone. Port: 127.0.0.1:55760.
# With LOCKSPAN=path/to/lockspan it also writes report.md.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$HERE/blind-go
PORT=55760
PGBIN=/usr/lib/postgresql/15/bin
REQUESTERS=16
PREFIX='user=%u,db=%d,app=%a '
GZIP_OVER=$((2 * 1024 * 1024))
RSYSLOGD=$(command -v rsyslogd || echo /usr/sbin/rsyslogd)
# shellcheck source=samples/pgserver.sh
. "$HERE/pgserver.sh"
DURATION_S=${1:-40}
[[ $(id -u) -eq 0 ]] || die "run as root (a private mount namespace is needed for /dev/log)"
[[ -x $RSYSLOGD ]] || die "apt-get install --no-install-recommends rsyslog"
command -v go >/dev/null || die "apt-get install --no-install-recommends golang-go"
[[ -d /usr/share/gocode/src/github.com/jackc/pgx/v4/pgxpool ]] \
    || die "apt-get install --no-install-recommends golang-github-jackc-pgx-v4-dev"
pg_require

pg_workdir lockspan-blind-go
RSYS=$WORK/rsyslog
mkdir -p "$RSYS" "$WORK/realdev" "$WORK/rec"
chmod 755 "$RSYS"
stop_rsyslogd() {
    if [[ -f $RSYS/rsyslogd.pid ]]; then stop_pid "$(cat "$RSYS/rsyslogd.pid")"; fi
}
PG_ON_EXIT+=(stop_rsyslogd)

GOPATH=/usr/share/gocode GO111MODULE=off GOCACHE=$WORK/gocache \
    go build -o "$WORK/shop" "$OUT/app/shop.go"

# rsyslog as Debian ships it writes files with RSYSLOG_TraditionalFileFormat
# (its default template); here only our socket and only local0 to our file.
cat >"$RSYS/rsyslog.conf" <<EOF
global(workDirectory="$RSYS")
module(load="imuxsock" SysSock.Use="off")
input(type="imuxsock" Socket="$RSYS/log.sock" RateLimit.Interval="0")
local0.* action(type="omfile" file="$RSYS/postgresql.log" template="RSYSLOG_TraditionalFileFormat")
EOF
"$RSYSLOGD" -f "$RSYS/rsyslog.conf" -i "$RSYS/rsyslogd.pid" >"$RSYS/rsyslogd.out" 2>&1 \
    || { cat "$RSYS/rsyslogd.out" >&2; die "rsyslogd failed to start"; }
for _ in $(seq 50); do [[ -S $RSYS/log.sock ]] && break; sleep 0.1; done
[[ -S $RSYS/log.sock ]] || die "rsyslogd did not create $RSYS/log.sock"
chmod 666 "$RSYS/log.sock"

pg_initdb
# pg_settings' common lines, then what this shop has (later lines win).
pg_settings "logging_collector = off" "log_destination = 'syslog'" "syslog_facility = 'local0'" \
    "syslog_ident = 'postgres'" "log_line_prefix = '$PREFIX'" \
    "log_min_duration_statement = '250ms'" "log_lock_waits = on" "deadlock_timeout = '1s'" \
    "log_connections = off" "log_disconnections = off" "lc_messages = 'C'"
unshare -m --propagation private env WORK="$WORK" RSYS="$RSYS" PGBIN="$PGBIN" DATA="$DATA" \
    PG_USER="$PG_USER" bash -euc '
    mount --rbind /dev "$WORK/realdev"
    mount -t tmpfs -o mode=755 lockspan-dev /dev
    for e in "$WORK"/realdev/* "$WORK"/realdev/.[!.]*; do
        [[ -e $e || -L $e ]] && ln -s "$e" "/dev/${e##*/}"
    done
    ln -s "$RSYS/log.sock" /dev/log
    runuser -u "$PG_USER" -- "$PGBIN/pg_ctl" -D "$DATA" -l "$WORK/pg_ctl.out" -w -t 60 start >/dev/null
' || { cat "$WORK/pg_ctl.out" >&2 || true; die "pg_ctl start failed"; }
pg_createdb shop
PGAPPNAME=psql as_pg "$PGBIN/psql" -q -X -v ON_ERROR_STOP=1 -h "$SOCK" -p "$PORT" -d shop \
    -f - <"$OUT/app/schema.sql" >/dev/null
"$WORK/shop" 127.0.0.1 "$PORT" "$DURATION_S" "$REQUESTERS" "$WORK/rec"
{
    echo "server: $(as_pg "$PGBIN/postgres" --version)"
    echo "host: Debian $(cat /etc/debian_version)"
    echo "go: $(go version)"
    # shellcheck disable=SC2016 # dpkg-query's own format
    dpkg-query -W -f='${Package}: ${Version}\n' golang-github-jackc-pgx-v4-dev rsyslog
    echo "rsyslog template: RSYSLOG_TraditionalFileFormat"
    for s in logging_collector log_destination syslog_facility syslog_ident \
        syslog_sequence_numbers syslog_split_messages log_line_prefix log_statement \
        log_min_duration_statement log_parameter_max_length log_min_error_statement \
        log_lock_waits deadlock_timeout lc_messages log_timezone log_connections; do
        echo "$s = '$(as_pg "$PGBIN/psql" -X -A -t -h "$SOCK" -p "$PORT" -d shop -c "SHOW $s")'"
    done
} >"$WORK/settings.txt"
pg_stop
stop_rsyslogd
[[ -s $RSYS/postgresql.log ]] || die "rsyslogd wrote nothing"

rm -f "$OUT"/postgresql.log* "$OUT"/truth.json* "$OUT"/records.jsonl* "$OUT"/clock.json "$OUT"/report.*
cp "$RSYS/postgresql.log" "$OUT/postgresql.log"
chmod 644 "$OUT/postgresql.log"
cp "$WORK/settings.txt" "$OUT/settings.txt"
if (($(stat -c %s "$OUT/postgresql.log") > GZIP_OVER)); then gzip -9n "$OUT/postgresql.log"; fi
gzip -9n <"$WORK/rec/records.jsonl" >"$OUT/records.jsonl.gz"
cp "$WORK/rec/clock.json" "$OUT/clock.json"
python3 "$OUT/app/build_truth.py" "$OUT/records.jsonl.gz" "$OUT/clock.json" "$OUT"/postgresql.log* "$OUT/truth.json"
gzip -9nf "$OUT/truth.json"
if [[ -n ${LOCKSPAN:-} ]]; then
    (cd "$OUT" && "$LOCKSPAN" analyze -q --generated-at "blind-go.sh" --prefix "$PREFIX" \
        -o report.md postgresql.log*)
fi
echo "${0##*/}: wrote $OUT" >&2
