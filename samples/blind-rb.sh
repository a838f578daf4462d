#!/usr/bin/env bash
# Regenerate samples/blind-rb/: a Rails-style shop back end on ActiveRecord
# 6.1 (app/shop.rb: Debian's ruby-activerecord and ruby-pg, ActiveRecord's
# own connection pool (pool: 8) shared by 12 threads, prepared statements
# on, no traces, one application_name) driven for DURATION_S seconds
# against a real PostgreSQL 15 that logs only the statements of 100 ms or
# more (log_min_duration_statement = 100ms, no log_statement), lock waits
# and the DEFAULT deadlock_timeout (1 s); and the truth the app recorded.
# Run as root. Needs Debian's ruby, ruby-activerecord, ruby-pg and
# ruby-webrick:
#   apt-get install ruby-activerecord ruby-pg ruby-webrick
#   samples/blind-rb.sh [DURATION_S]      (default 30)
# With LOCKSPAN=path/to/lockspan it also writes report.md and report.json.gz.
# Port: PostgreSQL on 127.0.0.1:55690.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$HERE/blind-rb
APP=$OUT/app
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
PORT=55690
DURATION_S=${1:-30}
THREADS=12
POOL=8
SEED=${SEED:-34}
PREFIX='%m [%p] %q%u@%d '
GZIP_OVER=$((2 * 1024 * 1024))

# shellcheck source=samples/pgserver.sh
source "$HERE/pgserver.sh"

command -v ruby >/dev/null || die "no ruby (apt-get install ruby-activerecord ruby-pg ruby-webrick)"
ruby -e 'require "active_record"; require "pg"; require "webrick"' \
    || die "apt-get install ruby-activerecord ruby-pg ruby-webrick"
pg_require
pg_workdir lockspan-blind-rb
pg_initdb
# What most production servers log: slow statements only (100 ms), lock
# waits, the default deadlock_timeout; no connections, no log_statement.
pg_settings "log_line_prefix = '$PREFIX'" "deadlock_timeout = '1s'" \
    "log_min_duration_statement = '100ms'" "log_statement = 'none'" \
    "log_connections = off" "log_disconnections = off"
pg_start
pg_createdb shop
as_pg "$PGBIN/psql" -q -X -v ON_ERROR_STOP=1 -h "$SOCK" -p "$PORT" -d shop \
    <"$APP/schema.sql" >/dev/null

ruby "$APP/shop.rb" 127.0.0.1 "$PORT" shop "$DURATION_S" "$THREADS" "$POOL" "$SEED" \
    "$WORK/truth.jsonl"
{
    echo "server: PostgreSQL $(as_pg "$PGBIN/postgres" --version | awk '{print $3}')"
    echo "ruby: $(ruby -v)"
    echo "activerecord: $(ruby -e 'require "active_record"; print ActiveRecord::VERSION::STRING')"
    echo "pg gem: $(ruby -e 'require "pg"; print PG::VERSION')"
    for s in log_line_prefix log_destination deadlock_timeout log_lock_waits \
        log_min_duration_statement log_statement log_connections lc_messages log_timezone; do
        echo "$s = '$(as_pg "$PGBIN/postgres" -D "$DATA" -C "$s")'"
    done
} >"$WORK/settings.txt"
pg_stop

rm -f "$OUT"/postgresql.log* "$OUT"/report.*
cp "$LOGDIR/postgresql.log" "$OUT/postgresql.log"
cp "$WORK/settings.txt" "$OUT/settings.txt"
printf '%s' "$PREFIX" >"$OUT/prefix.txt"
if (($(stat -c %s "$OUT/postgresql.log") > GZIP_OVER)); then gzip -9n "$OUT/postgresql.log"; fi
python3 "$APP/build_truth.py" "$WORK/truth.jsonl" "$OUT/truth.json"
if [[ -n ${LOCKSPAN:-} ]]; then
    (cd "$OUT" && "$LOCKSPAN" analyze -q --generated-at "blind-rb.sh" \
        -o report.md -o report.json postgresql.log*)
    gzip -9n "$OUT/report.json"
fi
echo "${0##*/}: wrote $OUT" >&2
