#!/usr/bin/env bash
# Make tests/e2e/data/lock-order.log: a real PostgreSQL 15 log of two code
# paths (application_name) that write the same two relations in opposite
# orders, and deadlock once doing so (check_findings.py: the
# inconsistent_lock_order finding).
#
# Usage: tests/e2e/data/lock-order.sh OUT.log   (as root: the server runs
# as postgres, samples/pgserver.sh)
#
# order-service: UPDATE orders, then stock. stock-sync: UPDATE stock, then
# orders, 0.1 s after order-service began; each sleeps 0.3 s between its
# two writes, so each waits for the other: a deadlock, one rolled back.
# Then each path runs once more alone (no wait): same orders, committed.
# Env: LOCKSPAN_PGPORT (default 55470), LOCKSPAN_PGBIN.
set -euo pipefail
(($# == 1)) || { echo "usage: $0 OUT.log" >&2; exit 2; }
OUT=$1
PORT=${LOCKSPAN_PGPORT:-55470}
PGBIN=${LOCKSPAN_PGBIN:-/usr/lib/postgresql/15/bin}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PREFIX='%m [%p] %q%u@%d/%a %c %l %v %x %e '
# shellcheck source=samples/pgserver.sh
. "$HERE/../../../samples/pgserver.sh"

pg_require
pg_workdir lockspan-lock-order
pg_initdb
pg_settings "log_line_prefix = '$PREFIX'"
pg_start
pg_createdb lockspan

# psql as postgres over the private socket, application_name $1, the
# statements of $2 read from stdin: each sent (and logged) on its own.
sql() {
    as_pg env PGAPPNAME="$1" "$PGBIN/psql" -X -q -v ON_ERROR_STOP=0 -h "$SOCK" -p "$PORT" \
        -U "$PG_USER" -d lockspan -f - <<<"$2"
}

sql setup "CREATE TABLE orders (id int PRIMARY KEY, n int NOT NULL);
CREATE TABLE stock (id int PRIMARY KEY, n int NOT NULL);
INSERT INTO orders VALUES (1, 0); INSERT INTO stock VALUES (1, 100);"

ORDER_TX="BEGIN; UPDATE orders SET n = n + 1 WHERE id = 1; SELECT pg_sleep(0.3);
UPDATE stock SET n = n - 1 WHERE id = 1; COMMIT;"
SYNC_TX="BEGIN; UPDATE stock SET n = 100 WHERE id = 1; SELECT pg_sleep(0.3);
UPDATE orders SET n = 0 WHERE id = 1; COMMIT;"

sql order-service "$ORDER_TX" >/dev/null 2>&1 &
a=$!
sleep 0.1
sql stock-sync "$SYNC_TX" >/dev/null 2>&1 &
b=$!
wait "$a" "$b" || true
sql order-service "$ORDER_TX" >/dev/null
sql stock-sync "$SYNC_TX" >/dev/null

pg_stop
cp "$LOGDIR/postgresql.log" "$OUT"
chmod 644 "$OUT"
echo "${0##*/}: wrote $(wc -l <"$OUT") lines to $OUT" >&2
