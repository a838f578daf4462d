#!/usr/bin/env bash
# DDL pile-up sample (issue 34 item 8): a real PostgreSQL 15 server, a
# transaction holding a table lock, a DDL statement queued behind it and
# plain statements queued behind the DDL (ALTER TABLE behind a reader,
# CREATE INDEX behind a writer, two ALTERs in one queue), and a queue no
# DDL heads (an UPDATE behind LOCK TABLE ... IN SHARE MODE). The same on
# PostgreSQL 17 and 18: samples/ddl-queue-chroot.sh. The truth, from the
# client, has each session's pid and statements and pg_blocking_pids()
# snapshots taken while they waited (samples/scenarios_ddl.py).
#
# Usage: samples/ddl-queue.sh OUTDIR        (samples/ddl-queue)
# Env: LOCKSPAN_PGPORT (default 55450, 127.0.0.1 only), LOCKSPAN_PGBIN,
#      LOCKSPAN_PYTHON.
set -euo pipefail

if [[ $# -ne 1 ]]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi
OUTDIR=$1
PORT=${LOCKSPAN_PGPORT:-55450}
PGBIN=${LOCKSPAN_PGBIN:-/usr/lib/postgresql/15/bin}
PYTHON=${LOCKSPAN_PYTHON:-/usr/bin/python3}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PREFIX='%m [%p] %q%u@%d/%a %c %l %v %x %e '

# shellcheck source=samples/pgserver.sh
. "$HERE/pgserver.sh"

pg_require
"$PYTHON" -c 'import psycopg2' 2>/dev/null || die "$PYTHON cannot import psycopg2"

pg_workdir lockspan-ddl
pg_initdb
pg_settings "log_line_prefix = '$PREFIX'" "log_destination = 'stderr,csvlog,jsonlog'"
pg_start
pg_createdb lockspan

echo "ddl-queue.sh: running on 127.0.0.1:$PORT" >&2
"$PYTHON" "$HERE/scenarios_ddl.py" --port "$PORT" --truth "$WORK/truth.json" \
    --prefix "$PREFIX"

pg_stop
[[ -s $LOGDIR/postgresql.log ]] || die "server did not write postgresql.log"

mkdir -p "$OUTDIR"
install -m 644 "$LOGDIR/postgresql.log" "$LOGDIR/postgresql.csv" "$LOGDIR/postgresql.json" \
    "$WORK/truth.json" "$OUTDIR/"
printf '%s' "$PREFIX" >"$OUTDIR/prefix.txt"
chmod 644 "$OUTDIR/prefix.txt"
ls -l "$OUTDIR" >&2
