#!/usr/bin/env bash
# Generate a lock-contention sample logged through syslog, with ground truth.
#
# Usage: samples/syslog.sh [--noseq] [--rfc3339] [--prefix P] OUTDIR
#
#   --noseq    syslog_sequence_numbers = off, syslog_split_messages = off
#              (default: both on, PostgreSQL's defaults)
#   --rfc3339  rsyslog writes RSYSLOG_FileFormat (RFC 3339 timestamps)
#              instead of RSYSLOG_TraditionalFileFormat ("Dec  2 11:45:04")
#   --prefix P log_line_prefix (default '%m [%p] %q%u@%d/%a %c %l %v %x %e ');
#              e.g. one without %m and %p, the usual setup with syslog,
#              whose own header carries the time and the pid
#
# Like generate.sh, but the server logs with log_destination = 'syslog' to a
# private rsyslogd that this script starts, and OUTDIR receives
# postgresql.syslog (what rsyslog wrote), prefix.txt and truth.json.
#
# Needs rsyslog (Debian: apt-get install -y rsyslog; this script installs
# nothing) and must run as root: PostgreSQL's syslog(3) always writes to
# /dev/log, so the server is started in a private mount namespace
# (unshare -m) whose /dev is a tmpfs holding links to the real device nodes
# plus /dev/log -> the private rsyslogd's socket. The machine's /dev and
# any system syslog daemon are left alone.
#
# Env: LOCKSPAN_PGPORT  TCP port on 127.0.0.1 (default 54371)
#      LOCKSPAN_PGBIN   PostgreSQL bin dir (default /usr/lib/postgresql/15/bin)
#      LOCKSPAN_PYTHON  Python with psycopg2 (default /usr/bin/python3)
#      LOCKSPAN_RSYSLOGD rsyslogd binary (default: rsyslogd on PATH)
set -euo pipefail

SEQ=on
TEMPLATE=RSYSLOG_TraditionalFileFormat
PREFIX='%m [%p] %q%u@%d/%a %c %l %v %x %e '
while [[ $# -gt 1 ]]; do
    case $1 in
    --noseq) SEQ=off ;;
    --rfc3339) TEMPLATE=RSYSLOG_FileFormat ;;
    --prefix) PREFIX=$2; shift ;;
    *) break ;;
    esac
    shift
done
if [[ $# -ne 1 || $1 == -* ]]; then
    echo "usage: $0 [--noseq] [--rfc3339] [--prefix P] OUTDIR" >&2
    exit 2
fi

OUTDIR=$1
PORT=${LOCKSPAN_PGPORT:-54371}
PGBIN=${LOCKSPAN_PGBIN:-/usr/lib/postgresql/15/bin}
PYTHON=${LOCKSPAN_PYTHON:-/usr/bin/python3}
RSYSLOGD=${LOCKSPAN_RSYSLOGD:-$(command -v rsyslogd || echo /usr/sbin/rsyslogd)}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# shellcheck source=samples/pgserver.sh
. "$HERE/pgserver.sh"

[[ $(id -u) -eq 0 ]] || die "run as root (a private mount namespace is needed for /dev/log)"
[[ -x $RSYSLOGD ]] || die "no rsyslogd (apt-get install -y rsyslog)"
pg_require
"$PYTHON" -c 'import psycopg2' 2>/dev/null || die "$PYTHON cannot import psycopg2 (apt-get install python3-psycopg2)"

pg_workdir lockspan-syslog
RSYS=$WORK/rsyslog
mkdir -p "$RSYS" "$WORK/realdev"
chmod 755 "$RSYS"

stop_rsyslogd() {
    if [[ -f $RSYS/rsyslogd.pid ]]; then
        stop_pid "$(cat "$RSYS/rsyslogd.pid")"
    fi
}
# On exit: stop the server, then rsyslogd.
PG_ON_EXIT+=(stop_rsyslogd)

# A private rsyslogd: only our socket, only our file, no system inputs.
cat >"$RSYS/rsyslog.conf" <<EOF
global(workDirectory="$RSYS")
module(load="imuxsock" SysSock.Use="off")
input(type="imuxsock" Socket="$RSYS/log.sock" RateLimit.Interval="0")
local0.* action(type="omfile" file="$RSYS/postgresql.syslog" template="$TEMPLATE")
EOF
"$RSYSLOGD" -f "$RSYS/rsyslog.conf" -i "$RSYS/rsyslogd.pid" >"$RSYS/rsyslogd.out" 2>&1 \
    || { cat "$RSYS/rsyslogd.out" >&2; die "rsyslogd failed to start"; }
for _ in $(seq 50); do [[ -S $RSYS/log.sock ]] && break; sleep 0.1; done
[[ -S $RSYS/log.sock ]] || die "rsyslogd did not create $RSYS/log.sock"
chmod 666 "$RSYS/log.sock"

echo "syslog.sh: initdb in $DATA" >&2
pg_initdb
pg_settings "logging_collector = off" "log_destination = 'syslog'" "syslog_facility = 'local0'" \
    "syslog_ident = 'postgres'" "syslog_sequence_numbers = $SEQ" "syslog_split_messages = $SEQ" \
    "log_line_prefix = '$PREFIX'"

# The postmaster (and every backend it forks) lives in a mount namespace
# where /dev/log leads to our rsyslogd; it stays there after this shell exits.
echo "syslog.sh: starting server on 127.0.0.1:$PORT (private /dev/log)" >&2
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

pg_createdb lockspan

echo "syslog.sh: running scenarios" >&2
"$PYTHON" "$HERE/scenarios.py" --host 127.0.0.1 --port "$PORT" --user "$PG_USER" \
    --dbname lockspan --prefix "$PREFIX" --truth "$WORK/truth.json"

# Statements longer than PostgreSQL's 900-byte syslog piece (one with
# spaces, split at a word boundary; one without, split mid-word) and one
# with a newline and a TAB, so the log holds every way a line is cut.
WORDS=$(printf 'lorem%03d ' $(seq 1 150))
LONGWORD=$(printf 'x%.0s' $(seq 1 1200))
PGAPPNAME=lockspan-long as_pg "$PGBIN/psql" -X -q -h "$SOCK" -p "$PORT" -U "$PG_USER" -d lockspan \
    -v ON_ERROR_STOP=1 >/dev/null <<EOF
SELECT length('$WORDS') AS words;
SELECT length('$LONGWORD') AS longword;
SELECT 1 AS a,
	2 AS b;
EOF

# Stop the server, then rsyslogd (which flushes its file on exit).
pg_stop
stop_rsyslogd
[[ -s $RSYS/postgresql.syslog ]] || die "rsyslogd wrote nothing to $RSYS/postgresql.syslog"

mkdir -p "$OUTDIR"
cp "$RSYS/postgresql.syslog" "$WORK/truth.json" "$OUTDIR/"
printf '%s' "$PREFIX" >"$OUTDIR/prefix.txt"
chmod 644 "$OUTDIR"/postgresql.syslog "$OUTDIR"/prefix.txt "$OUTDIR"/truth.json
echo "syslog.sh: wrote $OUTDIR/{postgresql.syslog,prefix.txt,truth.json}" >&2
