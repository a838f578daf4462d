#!/usr/bin/env bash
# Regenerate samples/blind-java/: a plain-JDBC Java 17 shop back end
# (app/Shop.java: PgJDBC from Debian, a fixed pool of its own, autocommit
# off, PreparedStatements, no traces, one application_name) driven for
# DURATION_S seconds by 16 threads against a real PostgreSQL 15 logging to
# stderr with a pgBadger-style whole-second prefix and the DEFAULT
# deadlock_timeout (1 s); and the truth the app recorded on its side.
# Run as root. Needs Debian's default-jdk-headless and
# libpostgresql-jdbc-java (/usr/share/java/postgresql.jar):
#   apt-get install default-jdk-headless libpostgresql-jdbc-java
#   samples/blind-java.sh [DURATION_S]      (default 30)
# With LOCKSPAN=path/to/lockspan it also writes report.md and report.json.gz.
# Port: PostgreSQL on 127.0.0.1:55670.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$HERE/blind-java
APP=$OUT/app
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
PORT=55670
DURATION_S=${1:-30}
THREADS=16
POOL=10
SEED=${SEED:-34}
JDBC_JAR=/usr/share/java/postgresql.jar
PREFIX='%t [%p]: [%l-1] user=%u,db=%d,app=%a,client=%h '
GZIP_OVER=$((2 * 1024 * 1024))

# shellcheck source=samples/pgserver.sh
source "$HERE/pgserver.sh"

[[ -f $JDBC_JAR ]] || die "no $JDBC_JAR (apt-get install libpostgresql-jdbc-java)"
command -v javac >/dev/null || die "no javac (apt-get install default-jdk-headless)"
pg_require
pg_workdir lockspan-blind-java
pg_initdb
# pgBadger's recommended stderr prefix; every statement's duration, lock
# waits, connections; deadlock_timeout left at its default (1 s).
pg_settings "log_line_prefix = '$PREFIX'" "deadlock_timeout = '1s'" \
    "log_checkpoints = on" "log_temp_files = 0" "log_autovacuum_min_duration = 0"
pg_start
pg_createdb shop
as_pg "$PGBIN/psql" -q -X -v ON_ERROR_STOP=1 -h "$SOCK" -p "$PORT" -d shop \
    <"$APP/schema.sql" >/dev/null

mkdir -p "$WORK/classes"
javac -d "$WORK/classes" -cp "$JDBC_JAR" "$APP/Shop.java"
java -cp "$JDBC_JAR:$WORK/classes" Shop "jdbc:postgresql://127.0.0.1:$PORT/shop" \
    "$DURATION_S" "$THREADS" "$POOL" "$SEED" "$WORK/truth.jsonl"
{
    echo "server: PostgreSQL $(as_pg "$PGBIN/postgres" --version | awk '{print $3}')"
    echo "driver: PgJDBC $(unzip -p "$JDBC_JAR" META-INF/MANIFEST.MF 2>/dev/null \
        | awk -F': ' '/^Implementation-Version/ {print $2}' | tr -d '\r')"
    echo "java: $(java -version 2>&1 | head -n 1)"
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
    (cd "$OUT" && "$LOCKSPAN" analyze -q --generated-at "blind-java.sh" \
        --prefix "$PREFIX" -o report.md -o report.json postgresql.log*)
    gzip -9n "$OUT/report.json"
fi
echo "${0##*/}: wrote $OUT" >&2
