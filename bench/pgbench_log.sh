#!/usr/bin/env bash
# Big realistic PostgreSQL 15 stderr log from pgbench, for bench/run.sh.
#
#   bench/pgbench_log.sh SIZE_MB OUT.log [--gzip]
#
# Starts a private server (samples/pgserver.sh) on 127.0.0.1:$PORT, logging
# every statement with its duration and every lock wait, runs pgbench with
# 16 clients on the custom scripts in bench/pgbench/ until the log reaches
# SIZE_MB MiB, stops pgbench and the server by their pids and moves the log
# to OUT.log (plus OUT.log.gz, gzip -6, with --gzip). Run as root (the
# server runs as postgres; pgbench, a client, as the caller).
#
# Workload (weights in the -f name@weight arguments below):
#   tpcb.sql        TPC-B-like on random accounts/tellers/branches (scale 20)
#   hot_branch.sql  one UPDATE of a hot branch row (bid 1..3)
#   hold_hot.sql    holds branch 1 for ~250 ms (pg_sleep inside the transaction)
#   lock_ab.sql / lock_ba.sql  branches 2 and 3 in opposite orders: deadlocks
# Two pgbench processes share the 16 clients: 10 with -M prepared (named
# statements: "execute P_n", parameters in DETAIL) and 6 with -M extended
# ("execute <unnamed>", parameters in DETAIL). Deadlocked transactions are
# retried by pgbench (--max-tries), as an application would. The second
# one's backends get pids 1024 (or a multiple) after the first one's, as on
# a busy server whose live sessions' pids are alike modulo a power of two
# (the script sets the pid counter there as root, else forks until it is).
#
# deadlock_timeout = 50ms: a wait is logged only once it has lasted
# deadlock_timeout, so the default 1 s would log almost none of the waits
# behind the 250 ms holds and the hot-branch queues; 50 ms logs those and the
# deadlocks (found 50 ms into the wait), while the sub-ms waits of TPC-B
# stay unlogged as on a production server.
#
# Environment: LOCKSPAN_PGBENCH_PORT (default 54341), LOCKSPAN_PGBIN
# (default /usr/lib/postgresql/15/bin), LOCKSPAN_PGBENCH_SCALE (default 20),
# LOCKSPAN_PGBENCH_MIN_WAITS (default 0: run on, past SIZE_MB if need be,
# until the log holds that many logged waits; how many waits a MiB holds
# depends on the machine's speed, the 250 ms holds do not),
# LOCKSPAN_PGBENCH_CLIENTS (default 16, shared 10 to 6 as above: a server
# with many live sessions at once), LOCKSPAN_PGBENCH_PREFIX (the
# log_line_prefix; default '%m [%p] %q%u@%d/%a %c %l %v %x %e ').
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCRIPTS="$ROOT/bench/pgbench"
PORT=${LOCKSPAN_PGBENCH_PORT:-54341}
PGBIN=${LOCKSPAN_PGBIN:-/usr/lib/postgresql/15/bin}
SCALE=${LOCKSPAN_PGBENCH_SCALE:-20}
MIN_WAITS=${LOCKSPAN_PGBENCH_MIN_WAITS:-0}
CLIENTS=${LOCKSPAN_PGBENCH_CLIENTS:-16}
PREFIX=${LOCKSPAN_PGBENCH_PREFIX:-'%m [%p] %q%u@%d/%a %c %l %v %x %e '}

usage() { echo "usage: ${0##*/} SIZE_MB OUT.log [--gzip]" >&2; exit 2; }
(($# >= 2)) || usage
MB=$1; OUT=$2; GZ=0
[[ ${3:-} == --gzip ]] && GZ=1
[[ $MB =~ ^[0-9]+$ && $MB -gt 0 ]] || usage
[[ $CLIENTS =~ ^[0-9]+$ && $CLIENTS -ge 2 && $CLIENTS -le 1000 ]] ||
    { echo "LOCKSPAN_PGBENCH_CLIENTS: 2 to 1000 clients" >&2; exit 2; }
# The clients of the two pgbench processes, 10 to 6 as with 16 (each at
# least one, since CLIENTS >= 2).
PREPARED=$(((CLIENTS * 10 + 8) / 16))
EXTENDED=$((CLIENTS - PREPARED))
OUT=$(realpath -m "$OUT")
mkdir -p "$(dirname "$OUT")"
TARGET=$((MB * 1048576))

# shellcheck source=../samples/pgserver.sh
source "$ROOT/samples/pgserver.sh"
PGBENCH=$PGBIN/pgbench
[[ -x $PGBENCH ]] || PGBENCH=$(command -v pgbench)

PGB_PIDS=()
stop_pgbench() {
    local p
    for p in "${PGB_PIDS[@]}"; do stop_pid "$p" 30; done
    PGB_PIDS=()
}
PG_ON_EXIT=(stop_pgbench pg_stop)

pg_require
pg_workdir lockspan-pgbench
pg_initdb
pg_settings "log_line_prefix = '$PREFIX'" \
    "deadlock_timeout = '50ms'" \
    "log_min_duration_statement = 0" \
    "log_lock_waits = on" \
    "max_connections = $((CLIENTS + 24))"
pg_start
pg_createdb bench
LOGF=$LOGDIR/postgresql.log

echo "[pgbench_log] server on 127.0.0.1:$PORT, log $LOGF; pgbench -i -s $SCALE" >&2
"$PGBENCH" -h 127.0.0.1 -p "$PORT" -U "$PG_USER" -i -q -s "$SCALE" bench >"$WORK/init.out" 2>&1 ||
    { cat "$WORK/init.out" >&2; die "pgbench -i failed"; }

run_pgbench() { # NAME MODE CLIENTS SCRIPT@WEIGHT...
    local name=$1 mode=$2 clients=$3; shift 3
    local args=() s
    for s in "$@"; do args+=(-f "$SCRIPTS/$s"); done
    # pgbench is a client: it runs as the caller, so $! is its own pid
    PGAPPNAME=$name "$PGBENCH" -h 127.0.0.1 -p "$PORT" -U "$PG_USER" \
        -n -M "$mode" -s "$SCALE" -c "$clients" -j 1 -T 86400 --max-tries=10 \
        "${args[@]}" bench >"$WORK/$name.out" 2>&1 &
    PGB_PIDS+=($!)
}
# Wait (up to 30 s) for the first pgbench's backends; the lowest of their
# pids, or empty.
first_backend() {
    local i p=""
    for ((i = 0; i < 60; i++)); do
        p=$(as_pg "$PGBIN/psql" -h "$SOCK" -p "$PORT" -U "$PG_USER" -At -d bench -c \
            "SELECT min(pid) FROM pg_stat_activity WHERE application_name = 'bench-prepared'
             HAVING count(*) = $PREPARED" 2>/dev/null || true)
        [[ -n $p ]] && break
        sleep 0.5
    done
    echo "$p"
}
# Bring the pid counter to where the next pids are `p0` modulo 1024: the
# next pgbench takes one, its backends the next ones. As root, by setting
# it (/proc/sys/kernel/ns_last_pid); else by forking (at most 2048 times,
# seconds under load, while the first pgbench runs alone).
pids_to() {
    local p0=$1 i max
    max=$(cat /proc/sys/kernel/pid_max 2>/dev/null || echo 0)
    if [[ -w /proc/sys/kernel/ns_last_pid ]]; then
        PID_AT=$(echo $BASHPID)
        PID_AT=$((PID_AT + 1 + ((p0 - 3 - PID_AT) % 1024 + 1024) % 1024))
        if ((PID_AT + 32 < max)) && echo "$PID_AT" >/proc/sys/kernel/ns_last_pid 2>/dev/null; then
            return 0
        fi
    fi
    for ((i = 0; i < 2048; i++)); do
        PID_AT=$(echo $BASHPID)
        (((PID_AT + 2 - p0) % 1024 == 0)) && return 0
    done
    return 1
}

t0=$(date +%s)
run_pgbench bench-prepared prepared "$PREPARED" tpcb.sql@20 hot_branch.sql@2
p0=$(first_backend)
if [[ -n $p0 ]] && pids_to "$p0"; then
    echo "[pgbench_log] bench-prepared's backends from pid $p0; bench-extended's after pid $((PID_AT + 1))" >&2
else
    echo "[pgbench_log] could not bring the pid counter to bench-prepared's pids modulo 1024 (first $p0)" >&2
fi
run_pgbench bench-extended extended "$EXTENDED" tpcb.sql@20 hold_hot.sql@1 lock_ab.sql@1 lock_ba.sql@1

size=0
while :; do
    sleep 2
    size=$(stat -c %s "$LOGF" 2>/dev/null || echo 0)
    if ((size >= TARGET)); then
        ((MIN_WAITS == 0)) && break
        (($(grep -c 'still waiting for' "$LOGF" || true) >= MIN_WAITS)) && break
    fi
    for p in "${PGB_PIDS[@]}"; do
        alive "$p" || { cat "$WORK"/bench-*.out >&2; die "pgbench $p ended early"; }
    done
    if (($(date +%s) % 30 < 2)); then
        echo "[pgbench_log] $((size / 1048576)) / $MB MiB after $(($(date +%s) - t0)) s" >&2
    fi
done
stop_pgbench
pg_stop
secs=$(($(date +%s) - t0))

mv "$LOGF" "$OUT"
chown "$(id -u):$(id -g)" "$OUT"
if ((GZ)); then gzip -6 -c "$OUT" >"$OUT.gz.tmp" && mv "$OUT.gz.tmp" "$OUT.gz"; fi
waits=$(grep -c 'still waiting for' "$OUT" || true)
dl=$(grep -c 'ERROR:  deadlock detected' "$OUT" || true)
echo "[pgbench_log] $OUT: $(($(stat -c %s "$OUT") / 1048576)) MiB in ${secs} s, $waits logged waits, $dl deadlocks; prefix '$PREFIX'" >&2
