#!/usr/bin/env bash
# Generate a PostgreSQL 15 lock-contention sample with client-side ground truth.
#
# Usage: samples/generate.sh OUTDIR
#
# Starts a private, throw-away PostgreSQL 15 server (loopback only) as the
# unprivileged `postgres` user, drives it with samples/scenarios.py, stops it,
# and copies postgresql.log / .csv / .json, prefix.txt and truth.json to OUTDIR.
#
# Env: LOCKSPAN_PGPORT  TCP port on 127.0.0.1 (default 54329)
#      LOCKSPAN_PGBIN   PostgreSQL bin dir (default /usr/lib/postgresql/15/bin)
#      LOCKSPAN_PYTHON  Python with psycopg2 (default /usr/bin/python3)
#      LOCKSPAN_PREFIX  log_line_prefix (default below; samples/rds uses RDS's)
#      LOCKSPAN_SCENARIOS  scenario set: basic (default) | correlation |
#                       realistic (stderr with a whole-second %t prefix and
#                       csvlog of the same run; no jsonlog) | i18n (basic's
#                       scenarios with the same log lines in the same order
#                       in every run: samples/i18n.sh)
#      LOCKSPAN_LOG_STATEMENT  'all': log_statement = 'all' and
#                       log_min_duration_statement = -1 (default: durations)
#      LOCKSPAN_LC_MESSAGES  the server's lc_messages (default C), e.g.
#                       ru_RU.UTF-8 or ru_RU.CP1251 (the locale must exist:
#                       locale-gen); samples/i18n.sh runs every language
#      LOCKSPAN_LOG_DESTINATIONS  log_destination (default stderr,csvlog,jsonlog;
#                       stderr,csvlog for a server before 15: i18n-pg13.sh)
#      LOCKSPAN_EXTRA_SETTINGS  more postgresql.conf lines, ';'-separated
#                       (18: "log_lock_failures = on;log_connections = 'all'")
#      LOCKSPAN_DB_ENCODING  the encoding of the database the scenarios run in
#                       (default UTF8), e.g. WIN1251 with
#                       LOCKSPAN_LC_MESSAGES=ru_RU.CP1251
set -euo pipefail

if [[ $# -ne 1 ]]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi

OUTDIR=$1
PORT=${LOCKSPAN_PGPORT:-54329}
PGBIN=${LOCKSPAN_PGBIN:-/usr/lib/postgresql/15/bin}
PYTHON=${LOCKSPAN_PYTHON:-/usr/bin/python3}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SCENARIO_SET=${LOCKSPAN_SCENARIOS:-basic}
# Keep exactly this default: the C tests parse the stderr log with it.
# The realistic set logs whole seconds (%t), as many servers do.
if [[ $SCENARIO_SET == realistic ]]; then
    PREFIX=${LOCKSPAN_PREFIX:-'%t [%p] %q%u@%d/%a %c %l %v %x %e '}
    DESTINATIONS='stderr,csvlog'
    LOGFILES=(postgresql.log postgresql.csv)
else
    PREFIX=${LOCKSPAN_PREFIX:-'%m [%p] %q%u@%d/%a %c %l %v %x %e '}
    DESTINATIONS=${LOCKSPAN_LOG_DESTINATIONS:-stderr,csvlog,jsonlog}
    LOGFILES=(postgresql.log postgresql.csv)
    [[ $DESTINATIONS == *jsonlog* ]] && LOGFILES+=(postgresql.json)
fi
LOG_STATEMENT=${LOCKSPAN_LOG_STATEMENT:-none}

# shellcheck source=samples/pgserver.sh
. "$HERE/pgserver.sh"

pg_require
"$PYTHON" -c 'import psycopg2' 2>/dev/null || die "$PYTHON cannot import psycopg2 (apt-get install python3-psycopg2)"
if [[ $SCENARIO_SET == correlation || $SCENARIO_SET == realistic ]]; then
    "$PYTHON" -c 'import psycopg' 2>/dev/null || die "$PYTHON cannot import psycopg (apt-get install python3-psycopg)"
fi

pg_workdir lockspan-samples

echo "generate.sh: initdb in $DATA" >&2
pg_initdb
settings=("log_destination = '$DESTINATIONS'" "log_line_prefix = '$PREFIX'")
if [[ -n ${LOCKSPAN_LC_MESSAGES:-} ]]; then
    settings+=("lc_messages = '$LOCKSPAN_LC_MESSAGES'")
fi
if [[ $LOG_STATEMENT == all ]]; then
    settings+=("log_min_duration_statement = -1" "log_statement = 'all'")
fi
if [[ -n ${LOCKSPAN_EXTRA_SETTINGS:-} ]]; then
    IFS=';' read -ra extra <<<"$LOCKSPAN_EXTRA_SETTINGS"
    settings+=("${extra[@]}")
fi
if [[ $SCENARIO_SET == i18n ]]; then
    # The autovacuum launcher and workers and the logical replication
    # launcher take backend slots: the sessions' vxids would depend on when
    # they started
    settings+=("autovacuum = off" "max_logical_replication_workers = 0")
fi
pg_settings "${settings[@]}"

echo "generate.sh: starting server on 127.0.0.1:$PORT" >&2
pg_start
if [[ $SCENARIO_SET == i18n ]]; then
    # CREATE DATABASE names the encoding: unlogged, the runs log the same
    export PGOPTIONS='-c log_min_duration_statement=-1'
fi
if [[ -n ${LOCKSPAN_DB_ENCODING:-} ]]; then
    pg_createdb -T template0 -E "$LOCKSPAN_DB_ENCODING" --locale="$LOCKSPAN_LC_MESSAGES" lockspan
else
    pg_createdb lockspan
fi
unset PGOPTIONS
if [[ $SCENARIO_SET == i18n ]]; then
    sleep 1 # createdb's backend exits (and frees its slot) before the first session
fi

echo "generate.sh: running scenarios" >&2
"$PYTHON" "$HERE/scenarios.py" --host 127.0.0.1 --port "$PORT" --user "$PG_USER" \
    --dbname lockspan --prefix "$PREFIX" --truth "$WORK/truth.json" \
    --set "$SCENARIO_SET" --log-statement "$LOG_STATEMENT" \
    --snapshots "$WORK/pg_stat_activity.csv" --csvlog "$LOGDIR/postgresql.csv"

# Stop the server first so that every log line is flushed.
pg_stop

for f in "${LOGFILES[@]}"; do
    [[ -s $LOGDIR/$f ]] || die "server did not write $f"
done

mkdir -p "$OUTDIR"
for f in "${LOGFILES[@]}"; do cp "$LOGDIR/$f" "$OUTDIR/"; done
cp "$WORK/truth.json" "$OUTDIR/truth.json"
if [[ -f $WORK/pg_stat_activity.csv ]]; then
    install -m 644 "$WORK/pg_stat_activity.csv" "$OUTDIR/pg_stat_activity.csv"
fi
printf '%s' "$PREFIX" >"$OUTDIR/prefix.txt"
for f in "${LOGFILES[@]}" prefix.txt truth.json; do chmod 644 "$OUTDIR/$f"; done

written=$(IFS=,; echo "${LOGFILES[*]}")
echo "generate.sh: wrote $OUTDIR/{$written,prefix.txt,truth.json}" >&2
