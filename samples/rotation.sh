#!/usr/bin/env bash
# Generate a directory of rotated PostgreSQL 15 logs with ground truth.
#
# Usage: samples/rotation.sh OUTDIR
#
# Like generate.sh (same server setup, same basic scenarios), but the
# logging collector rotates small files: log_destination = 'stderr,csvlog',
# log_rotation_size = 8kB and log_filename = 'postgresql-%a-%S-%M.log'.
# Seconds come before minutes, so once the run crosses a minute (the
# scenarios start at second 54 to make sure it does) the names do not sort
# in time order, as 'postgresql-%a.log' or '-%H.log' do not across a
# week or midnight. The
# stderr and csvlog files rotate independently (each when it passes the
# size), so the two formats' names do not pair up. After the run every
# other rotated file (never the newest) is gzip-compressed, as logrotate's
# delaycompress would leave a mix. OUTDIR receives the log files, prefix.txt and
# truth.json.
#
# Env: LOCKSPAN_PGPORT  TCP port on 127.0.0.1 (default 54395)
#      LOCKSPAN_PGBIN   PostgreSQL bin dir (default /usr/lib/postgresql/15/bin)
#      LOCKSPAN_PYTHON  Python with psycopg2 (default /usr/bin/python3)
set -euo pipefail

if [[ $# -ne 1 ]]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi

OUTDIR=$1
PORT=${LOCKSPAN_PGPORT:-54395}
PGBIN=${LOCKSPAN_PGBIN:-/usr/lib/postgresql/15/bin}
PYTHON=${LOCKSPAN_PYTHON:-/usr/bin/python3}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PREFIX='%m [%p] %q%u@%d/%a %c %l %v %x %e '

# shellcheck source=samples/pgserver.sh
. "$HERE/pgserver.sh"

pg_require
"$PYTHON" -c 'import psycopg2' 2>/dev/null || die "$PYTHON cannot import psycopg2 (apt-get install python3-psycopg2)"

pg_workdir lockspan-samples

echo "rotation.sh: initdb in $DATA" >&2
pg_initdb
pg_settings "log_destination = 'stderr,csvlog'" "log_filename = 'postgresql-%a-%S-%M.log'" \
    "log_rotation_size = '8kB'" "log_line_prefix = '$PREFIX'"

echo "rotation.sh: starting server on 127.0.0.1:$PORT" >&2
pg_start
pg_createdb lockspan

# Start at second 54: the run (about 10 s) then crosses a minute.
sec=$((10#$(date +%S)))
if (( sec != 54 )); then
    sleep $(( (54 - sec + 60) % 60 ))
fi
echo "rotation.sh: running scenarios" >&2
"$PYTHON" "$HERE/scenarios.py" --host 127.0.0.1 --port "$PORT" --user "$PG_USER" \
    --dbname lockspan --prefix "$PREFIX" --truth "$WORK/truth.json"

# Stop the server first so that every log line is flushed.
pg_stop

shopt -s nullglob
logs=("$LOGDIR"/postgresql-*.log)
csvs=("$LOGDIR"/postgresql-*.csv)
(( ${#logs[@]} >= 3 && ${#csvs[@]} >= 3 )) \
    || die "expected several rotated files, got ${#logs[@]} .log and ${#csvs[@]} .csv"

mkdir -p "$OUTDIR"
rm -f "$OUTDIR"/postgresql-*
# Keep modification times (cp -p): they are the fallback order.
cp -p "${logs[@]}" "${csvs[@]}" "$OUTDIR/"
cp "$WORK/truth.json" "$OUTDIR/truth.json"
printf '%s' "$PREFIX" >"$OUTDIR/prefix.txt"
chmod 644 "$OUTDIR"/postgresql-* "$OUTDIR"/prefix.txt "$OUTDIR"/truth.json
# Compress every other file of each format, oldest first by mtime, never the
# newest (the one the server still writes to); gzip keeps the mtime.
for ext in log csv; do
    # shellcheck disable=SC2012
    ls -1tr "$OUTDIR"/postgresql-*."$ext" | head -n -1 | awk 'NR % 2 == 1' |
        while read -r f; do gzip -9n "$f"; done
done

echo "rotation.sh: wrote $(ls "$OUTDIR" | wc -l) files to $OUTDIR" >&2
