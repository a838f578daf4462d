#!/usr/bin/env bash
# Regenerate samples/blind-php/: a shop on PHP 8.2 + PDO pgsql (Debian 12's
# php-cli and php-pgsql; app/worker.php, 10 php-cli worker processes, one
# connection each, server-side prepared statements, no application_name)
# against a real PostgreSQL 13 (Debian 11's postgresql-13, extracted with
# dpkg-deb as samples/i18n-pg13.sh does) logging stderr in French
# (lc_messages = fr_FR.UTF-8) with pgBadger's recommended settings:
# log_line_prefix = '%t [%p]: [%l-1] user=%u,db=%d,app=%a,client=%h '
# (whole seconds), log_min_duration_statement = 0, log_lock_waits = on,
# deadlock_timeout = 1s, log_checkpoints/connections/disconnections = on,
# log_temp_files = 0, log_autovacuum_min_duration = 0; and the truth the
# app recorded.
#
#   samples/blind-php.sh setup            # install php, fetch postgresql-13 (once)
#   samples/blind-php.sh [DURATION_S]     # run (default 30)
#
# setup installs with apt-get (--no-install-recommends): php-cli, php-pgsql;
# and downloads (not installs) from Debian 11's archive, with a private apt
# state in LOCKSPAN_CATALOGS (default /tmp/lockspan-catalogs, the layout
# tools/fetch_catalogs.sh makes, which i18n-pg13.sh reads): the newest
# postgresql-13 .deb and libssl1.1, libldap-2.4-2, libicu67, extracted in
# LOCKSPAN_CATALOGS/pg13-run/VERSION. Needs the fr_FR.UTF-8 locale
# (locale -a) and Debian 12's postgresql-client-15 (createdb, psql).
# Ports: PostgreSQL 127.0.0.1:55730, the slow pricing stub (php -S)
# 127.0.0.1:55731. Run as root (the server runs as postgres); it is stopped
# by its postmaster's pid, the stub by its pid. With LOCKSPAN=path/to/lockspan
# it also writes report.md.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$HERE/blind-php
CAT=${LOCKSPAN_CATALOGS:-/tmp/lockspan-catalogs}
PORT=55730
STUB_PORT=55731
WORKERS=10
GZIP_OVER=$((2 * 1024 * 1024))
LIBS=(libssl1.1 libldap-2.4-2 libicu67)
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
APT=(-o "Dir::Etc::sourcelist=$CAT/apt/etc/sources.list"
     -o "Dir::Etc::sourceparts=-"
     -o "Dir::State::Lists=$CAT/apt/lists"
     -o "Dir::State::status=$CAT/apt/etc/status"
     -o "Dir::Cache=$CAT/apt/cache"
     -o "APT::Architecture=amd64"
     -o "Acquire::Check-Valid-Until=false"
     -o "APT::Sandbox::User=$(id -un)"
     -o "Debug::NoLocking=1")

setup() {
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends php-cli php-pgsql
    if ! ls "$CAT"/debs/postgresql-13_*.deb >/dev/null 2>&1; then
        mkdir -p "$CAT"/{apt/lists/partial,apt/cache/archives/partial,apt/etc,debs}
        if [[ ! -s $CAT/apt/etc/sources.list ]]; then
            cat >"$CAT/apt/etc/sources.list" <<SRC
deb [signed-by=$KEYRING] http://deb.debian.org/debian bullseye main
deb [signed-by=$KEYRING] http://deb.debian.org/debian-security bullseye-security main
SRC
            : >"$CAT/apt/etc/status"
        fi
        apt-get "${APT[@]}" -q update
        (cd "$CAT/debs" && apt-get "${APT[@]}" -q download postgresql-13)
    fi
}

# The extracted server (as samples/i18n-pg13.sh makes it): sets PGBIN.
pg13() {
    local deb ver root
    deb=$(ls "$CAT"/debs/postgresql-13_*.deb 2>/dev/null | sort -V | tail -1)
    [[ -f $deb ]] || die "no postgresql-13 .deb in $CAT/debs (run: $0 setup)"
    ver=$(dpkg-deb -f "$deb" Version)
    root=$CAT/pg13-run/$ver
    if [[ ! -x $root/bin/postgres ]]; then
        rm -rf "$root"
        mkdir -p "$root/bin"
        dpkg-deb -x "$deb" "$root"
        (cd "$CAT/debs" && for l in "${LIBS[@]}"; do
            v=$(apt-cache "${APT[@]}" madison "$l" | awk -F'|' '{gsub(/ /, "", $2); print $2}' |
                sort -V | tail -1)
            ls "${l}_${v//:/%3a}"_*.deb >/dev/null 2>&1 || apt-get "${APT[@]}" -q download "$l=$v"
            dpkg-deb -x "${l}_${v//:/%3a}"_*.deb "$root"
        done)
        for b in "$root"/usr/lib/postgresql/13/bin/*; do ln -s "$b" "$root/bin/"; done
        ln -s /usr/lib/postgresql/15/bin/createdb "$root/bin/createdb"
        ln -s /usr/lib/postgresql/15/bin/psql "$root/bin/psql"
        chmod -R a+rX "$root"
    fi
    PGBIN=$root/bin
    PG13_VERSION=$ver
    export LD_LIBRARY_PATH=$root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
}

# shellcheck source=samples/pgserver.sh
. "$HERE/pgserver.sh"
[[ $(id -u) -eq 0 ]] || die "run as root (the server runs as postgres)"
if [[ ${1:-} == setup ]]; then
    setup
    exit 0
fi
DURATION_S=${1:-30}
command -v php >/dev/null || die "no php (run: $0 setup)"
php -m | grep -qx pdo_pgsql || die "no pdo_pgsql (run: $0 setup)"
locale -a | grep -qix 'fr_FR.utf8' || die "no fr_FR.UTF-8 locale"
pg13
pg_require

STUB_PID=
# php -S with PHP_CLI_SERVER_WORKERS forks its workers, which outlive a
# TERM of the parent: stop each child by its pid, then the parent.
stop_stub() {
    local c
    if [[ -n $STUB_PID ]]; then
        for c in $(pgrep -P "$STUB_PID" || true); do stop_pid "$c"; done
        stop_pid "$STUB_PID"
    fi
    STUB_PID=
}
pg_workdir lockspan-blind-php
PG_ON_EXIT=(stop_stub pg_stop)
pg_initdb
pg_settings \
    "log_line_prefix = '%t [%p]: [%l-1] user=%u,db=%d,app=%a,client=%h '" \
    "log_min_duration_statement = 0" \
    "log_lock_waits = on" \
    "deadlock_timeout = '1s'" \
    "log_checkpoints = on" \
    "log_connections = on" \
    "log_disconnections = on" \
    "log_temp_files = 0" \
    "log_autovacuum_min_duration = 0" \
    "autovacuum_naptime = '10s'" \
    "checkpoint_timeout = '30s'" \
    "lc_messages = 'fr_FR.UTF-8'" \
    "synchronous_commit = on"
pg_start
as_pg "$PGBIN/psql" -q -X -h "$SOCK" -p "$PORT" -U postgres -d postgres -c "CREATE ROLE shop LOGIN"
pg_createdb -O shop shop
as_pg "$PGBIN/psql" -q -X -v ON_ERROR_STOP=1 -h "$SOCK" -p "$PORT" -U shop -d shop \
    -f "$OUT/app/schema.sql" >/dev/null

PHP_CLI_SERVER_WORKERS=16 php -S "127.0.0.1:$STUB_PORT" "$OUT/app/stub.php" >"$WORK/stub.out" 2>&1 &
STUB_PID=$!
for _ in $(seq 50); do
    php -r "exit(@file_get_contents('http://127.0.0.1:$STUB_PORT/?ms=0') === false ? 1 : 0);" && break
    sleep 0.1
done
alive "$STUB_PID" || { cat "$WORK/stub.out" >&2; die "the stub did not start (port $STUB_PORT in use?)"; }
pids=()
for w in $(seq 1 "$WORKERS"); do
    php "$OUT/app/worker.php" 127.0.0.1 "$PORT" "$STUB_PORT" "$DURATION_S" "$w" "$((3400 + w))" \
        "$WORK/truth-$w.jsonl" &
    pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
((rc == 0)) || die "a worker failed"
stop_stub
{
    echo "server: $("$PGBIN/postgres" --version) (Debian 11 postgresql-13 $PG13_VERSION, extracted)"
    echo "client: PHP $(php -r 'echo PHP_VERSION;') (Debian 12 php-cli, php-pgsql)"
    # shellcheck disable=SC2016 # dpkg-query's own format
    dpkg-query -W -f='${Package}: ${Version}\n' php8.2-cli php8.2-pgsql libpq5
    for s in log_destination log_line_prefix log_min_duration_statement log_statement \
        log_lock_waits deadlock_timeout log_checkpoints log_connections log_disconnections \
        log_temp_files log_autovacuum_min_duration lc_messages log_timezone; do
        echo "$s = '$(as_pg "$PGBIN/psql" -X -At -h "$SOCK" -p "$PORT" -U postgres -d postgres \
            -c "SHOW $s")'"
    done
} >"$WORK/settings.txt"
pg_stop

rm -f "$OUT"/postgresql.log* "$OUT"/truth.json* "$OUT"/records.jsonl* "$OUT"/report.*
cp "$LOGDIR/postgresql.log" "$OUT/postgresql.log"
cp "$WORK/settings.txt" "$OUT/settings.txt"
if (($(stat -c %s "$OUT/postgresql.log") > GZIP_OVER)); then gzip -9n "$OUT/postgresql.log"; fi
# the app's own records (one JSON line per transaction attempt), then the truth from them
cat "$WORK"/truth-*.jsonl | gzip -9n >"$OUT/records.jsonl.gz"
python3 "$OUT/app/build_truth.py" "$OUT/records.jsonl.gz" "$OUT/truth.json"
gzip -9n "$OUT/truth.json"
if [[ -n ${LOCKSPAN:-} ]]; then
    (cd "$OUT" && "$LOCKSPAN" analyze -q --generated-at "blind-php.sh" -o report.md postgresql.log*)
fi
echo "${0##*/}: wrote $OUT" >&2
