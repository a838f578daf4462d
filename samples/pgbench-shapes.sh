#!/usr/bin/env bash
# pgbench with no traces and several transaction shapes (issue 34 item 6):
# a real PostgreSQL 15 server, pgbench at scale 1 (one branch row, which
# every script updates: the hot row) running three scripts whose
# transactions differ in shape, every statement logged with its duration,
# lock waits logged past deadlock_timeout = 20ms. application_name is
# "pgbench" for every session and there is no sqlcommenter tag: only the
# transactions' shapes tell the code paths apart.
#
# Scripts (samples/pgbench-shapes/*.sql, weights below): transfer.sql
# (TPC-B-like, the branch updated late, 2 ms of client work before END),
# hot_first.sql (the branch first, 8 ms of client work, an account),
# read_mostly.sql (three reads, the branch last). Each transaction locks
# the branch row once; the accounts are random among 100,000 (no
# contention).
#
# Truth, from the client side (truth-shapes.json): pgbench's
# per-transaction log (--log) gives each transaction's script and latency;
# the truth counts each script's committed transactions (each holds the
# hot row once), their latency, and the client work each does while it
# holds the row (the \sleep), whose sum orders the scripts' occupancy.
#
# Usage: samples/pgbench-shapes.sh OUTDIR     (samples/pgbench-shapes)
# Env: LOCKSPAN_PGPORT (default 55420, 127.0.0.1 only), LOCKSPAN_PGBIN,
#      LOCKSPAN_SHAPES_SECONDS (default 3), LOCKSPAN_PYTHON.
set -euo pipefail

if [[ $# -ne 1 ]]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi
OUTDIR=$(realpath -m "$1")
PORT=${LOCKSPAN_PGPORT:-55420}
PGBIN=${LOCKSPAN_PGBIN:-/usr/lib/postgresql/15/bin}
PYTHON=${LOCKSPAN_PYTHON:-/usr/bin/python3}
SECONDS_RUN=${LOCKSPAN_SHAPES_SECONDS:-3}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SCRIPTS=$HERE/pgbench-shapes
PREFIX='%m [%p] %q%u@%d/%a %c %l %v %x %e '
CLIENTS=6
# script@weight, in pgbench's script numbering order (0, 1, 2)
WEIGHTS=(transfer.sql@5 hot_first.sql@2 read_mostly.sql@3)

# shellcheck source=samples/pgserver.sh
. "$HERE/pgserver.sh"
PGBENCH=$PGBIN/pgbench
[[ -x $PGBENCH ]] || die "no pgbench in $PGBIN"

PGB_PID=
stop_pgbench() { [[ -z $PGB_PID ]] || stop_pid "$PGB_PID" 30; }
PG_ON_EXIT=(stop_pgbench pg_stop)

pg_require
pg_workdir lockspan-shapes
pg_initdb
# pgbench -i runs with statement logging off; the run logs everything.
pg_settings "log_line_prefix = '$PREFIX'" "deadlock_timeout = '20ms'" \
    "log_min_duration_statement = -1" "log_connections = off" "log_disconnections = off"
pg_start
pg_createdb bench
"$PGBENCH" -h 127.0.0.1 -p "$PORT" -U "$PG_USER" -i -q -s 1 bench >"$WORK/init.out" 2>&1 ||
    { cat "$WORK/init.out" >&2; die "pgbench -i failed"; }
as_pg "$PGBIN/psql" -h "$SOCK" -p "$PORT" -U "$PG_USER" -d bench -qAt \
    -c "ALTER SYSTEM SET log_min_duration_statement = 0" -c "SELECT pg_reload_conf()" >/dev/null
sleep 1 # the reload reaches every process before pgbench connects

args=()
for s in "${WEIGHTS[@]}"; do args+=(-f "$SCRIPTS/$s"); done
mkdir -p "$WORK/txlog"
chmod 777 "$WORK/txlog"
echo "pgbench-shapes.sh: pgbench -c $CLIENTS -T $SECONDS_RUN on 127.0.0.1:$PORT" >&2
"$PGBENCH" -h 127.0.0.1 -p "$PORT" -U "$PG_USER" -n -M prepared -c "$CLIENTS" -j 2 \
    -T "$SECONDS_RUN" --log --log-prefix="$WORK/txlog/tx" --failures-detailed --max-tries=1 \
    "${args[@]}" bench >"$WORK/pgbench.out" 2>&1 &
PGB_PID=$!
wait "$PGB_PID" || { cat "$WORK/pgbench.out" >&2; die "pgbench failed"; }
PGB_PID=
pg_stop
[[ -s $LOGDIR/postgresql.log ]] || die "server did not write postgresql.log"

mkdir -p "$OUTDIR"
"$PYTHON" - "$WORK/txlog" "$SCRIPTS" "$OUTDIR/truth-shapes.json" "$CLIENTS" "$SECONDS_RUN" \
    "${WEIGHTS[@]}" <<'PY'
import glob, json, os, re, sys

txdir, scripts, out, clients, seconds = sys.argv[1:6]
weights = sys.argv[6:]
per = {}
for f in sorted(glob.glob(os.path.join(txdir, "tx*"))):
    for line in open(f):
        # client_id transaction_no time script_no time_epoch time_us [...]
        v = line.split()
        s = per.setdefault(int(v[3]), {"committed": 0, "failed": 0, "latency_us": 0})
        if v[2].isdigit():
            s["committed"] += 1
            s["latency_us"] += int(v[2])
        else:
            s["failed"] += 1
paths = []
for i, sw in enumerate(weights):
    name, weight = sw.split("@")
    sql = [l.strip() for l in open(os.path.join(scripts, name))
           if l.strip() and not l.startswith("--")]
    # client work while the branch row is held: the \sleep after the
    # script's UPDATE of pgbench_branches and before its END
    held = 0
    locked = False
    for l in sql:
        if l.startswith("UPDATE pgbench_branches"):
            locked = True
        m = re.match(r"\\sleep (\d+) ms", l)
        if m and locked:
            held += int(m.group(1))
    s = per.get(i, {"committed": 0, "failed": 0, "latency_us": 0})
    paths.append({"script_no": i, "script": name, "weight": int(weight),
                  "statements": [l for l in sql if not l.startswith("\\")],
                  "locks": ["pgbench_branches bid=1"],
                  "holds_per_transaction": 1,
                  "client_work_while_held_ms": held,
                  "committed": s["committed"], "failed": s["failed"],
                  "latency_ms_total": round(s["latency_us"] / 1000.0, 3),
                  "held_ms_lower_bound": held * s["committed"]})
order = [p["script"] for p in sorted(paths, key=lambda p: -p["held_ms_lower_bound"])]
json.dump({"clients": int(clients), "seconds": int(seconds), "scripts": paths,
           "occupancy_order": order,
           "note": "each committed transaction holds pgbench_branches bid=1 once; "
                   "held_ms_lower_bound = committed x the client work done while held "
                   "(pgbench \\sleep), which orders the scripts' occupancy"},
          open(out, "w"), indent=1)
PY
gzip -9 -c "$LOGDIR/postgresql.log" >"$OUTDIR/postgresql.log.gz"
printf '%s' "$PREFIX" >"$OUTDIR/prefix.txt"
cp "$WORK/pgbench.out" "$OUTDIR/pgbench.out"
chmod 644 "$OUTDIR"/*
ls -l "$OUTDIR" >&2
